// SPDX-License-Identifier: GPL-2.0
/* Device access, aligned buffers, whole-length I/O, number parsing. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iover.h"

/*
 * Opens a block device or an existing regular file; never creates one.
 * extra: more open flags (O_DSYNC, which F_SETFL cannot add later).
 */
int dev_open(struct dev *d, const char *path, bool direct, bool writable,
	     int extra)
{
	struct stat st;
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | extra;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = path;
	d->direct = direct;
	if (stat(path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return -ENOTBLK;
	if (direct)
		flags |= O_DIRECT;
	d->fd = open(path, flags);
	if (d->fd < 0)
		return -errno;
	if (fstat(d->fd, &st))
		goto out_errno;
	d->lbs = SECTOR_SIZE;
	if (S_ISBLK(st.st_mode)) {
		d->is_blk = true;
		if (ioctl(d->fd, BLKGETSIZE64, &d->size) ||
		    ioctl(d->fd, BLKSSZGET, &d->lbs))
			goto out_errno;
	} else {
		d->size = st.st_size;
	}
	return 0;
out_errno:
	close(d->fd);
	d->fd = -1;
	return -errno;
}

void dev_close(struct dev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

void *buf_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len ?: 4096))
		return NULL;
	return p;
}

/* Returns the bytes moved (short only at end of file), or -1 with errno. */
ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

ssize_t pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, (const char *)buf + done, len - done,
			   off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		done += n;
	}
	return done;
}

/* A decimal number, optionally with K, M, G or T (powers of 1024). */
int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'T': case 't':
		shift += 10;
		/* fall through */
	case 'G': case 'g':
		shift += 10;
		/* fall through */
	case 'M': case 'm':
		shift += 10;
		/* fall through */
	case 'K': case 'k':
		shift += 10;
		end++;
		break;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

double now_sec(void)
{
	return now_ns() / 1e9;
}
