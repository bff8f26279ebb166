// SPDX-License-Identifier: GPL-2.0
/*
 * The generation map and the state file that carries it across clean
 * reboots.  The state can also live on a raw block device, written in
 * place (the guest's root file system does not survive a reboot).  State
 * file: one 4 KiB block holding a struct disk_super, then
 * nsect 32-bit gens (left out when every sector has the same gen).  It is
 * replaced atomically (temporary file, fsync, rename).  A run that uses it
 * first marks it dirty in place, so a run killed before saving leaves a file
 * that verify refuses instead of a stale model that would fail for nothing.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iover.h"

#define STATE_MAGIC	"IOVERST1"
#define STATE_HDR	4096u

int model_init(struct model *m, uint64_t seed, uint64_t offset,
	       uint64_t nsect, uint32_t gen)
{
	uint64_t i;

	m->seed = seed;
	m->offset = offset;
	m->nsect = nsect;
	m->gen = malloc(nsect * sizeof(*m->gen) ?: 1);
	if (!m->gen)
		return -ENOMEM;
	for (i = 0; i < nsect; i++)
		m->gen[i] = gen;
	return 0;
}

/* Grow the region to nsect sectors; the new ones are unknown (gen 0). */
int model_extend(struct model *m, uint64_t nsect)
{
	uint32_t *gen;

	if (nsect <= m->nsect)
		return 0;
	gen = realloc(m->gen, nsect * sizeof(*gen));
	if (!gen)
		return -ENOMEM;
	memset(gen + m->nsect, 0, (nsect - m->nsect) * sizeof(*gen));
	m->gen = gen;
	m->nsect = nsect;
	return 0;
}

void model_free(struct model *m)
{
	free(m->gen);
	m->gen = NULL;
}

uint32_t model_max_gen(const struct model *m)
{
	uint32_t max = 0;
	uint64_t i;

	for (i = 0; i < m->nsect; i++)
		if (m->gen[i] > max)
			max = m->gen[i];
	return max;
}

/* Returns the gen every sector has, or 0 when they differ. */
static uint32_t model_uniform(const struct model *m)
{
	uint64_t i;

	if (!m->nsect)
		return 0;
	for (i = 1; i < m->nsect; i++)
		if (m->gen[i] != m->gen[0])
			return 0;
	return m->gen[0];
}

uint64_t hash_words(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0x243f6a8885a308d3ull ^ len;
	uint64_t w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = mix64(h ^ w) + i;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, len - i);
		h = mix64(h ^ w) + i;
	}
	return h;
}

void super_seal(struct disk_super *s)
{
	s->sum = hash_words(s, offsetof(struct disk_super, sum));
}

bool super_valid(const struct disk_super *s, const char *magic)
{
	return !memcmp(s->magic, magic, sizeof(s->magic)) && s->version == 1 &&
	       s->sum == hash_words(s, offsetof(struct disk_super, sum));
}

static int read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread_full(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int write_exact(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite_full(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int state_load(const char *path, struct model *m, uint32_t *flags)
{
	struct disk_super s;
	size_t maplen;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_exact(fd, &s, sizeof(s), 0);
	if (ret)
		goto out_close;
	ret = -EINVAL;
	if (!super_valid(&s, STATE_MAGIC) || s.nsect > SIZE_MAX / 4)
		goto out_close;
	ret = model_init(m, s.seed, s.offset, s.nsect, s.uniform_gen);
	if (ret)
		goto out_close;
	*flags = s.flags;
	if (s.flags & SUPER_UNIFORM)
		goto out_close;
	maplen = s.nsect * sizeof(*m->gen);
	ret = read_exact(fd, m->gen, maplen, STATE_HDR);
	if (!ret && hash_words(m->gen, maplen) != s.map_sum)
		ret = -EINVAL;
	if (ret)
		model_free(m);
out_close:
	close(fd);
	return ret;
}

static void fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int state_write(int fd, const char *hdr, const struct model *m)
{
	const struct disk_super *s = (const struct disk_super *)hdr;
	int ret = 0;

	if (!(s->flags & SUPER_UNIFORM))
		ret = write_exact(fd, m->gen, m->nsect * sizeof(*m->gen),
				  STATE_HDR);
	if (!ret)
		ret = write_exact(fd, hdr, STATE_HDR, 0);
	if (!ret && fsync(fd))
		ret = -errno;
	return ret;
}

/* A state on a raw disk (the guest's root does not survive a reboot). */
static int state_save_blk(const char *path, const char *hdr,
			  const struct model *m)
{
	uint64_t size;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, BLKGETSIZE64, &size) ? -errno : 0;
	if (!ret && size < STATE_HDR + m->nsect * sizeof(*m->gen))
		ret = -ENOSPC;
	if (!ret)
		ret = state_write(fd, hdr, m);
	close(fd);
	return ret;
}

int state_save(const char *path, const struct model *m, uint32_t flags)
{
	char hdr[STATE_HDR] = { 0 };
	struct disk_super *s = (struct disk_super *)hdr;
	char tmp[PATH_MAX];
	struct stat st;
	int fd, ret;

	memcpy(s->magic, STATE_MAGIC, sizeof(s->magic));
	s->version = 1;
	s->flags = flags & ~SUPER_UNIFORM;
	s->seed = m->seed;
	s->offset = m->offset;
	s->nsect = m->nsect;
	s->uniform_gen = model_uniform(m);
	if (s->uniform_gen || !m->nsect)
		s->flags |= SUPER_UNIFORM;
	else
		s->map_sum = hash_words(m->gen, m->nsect * sizeof(*m->gen));
	super_seal(s);

	if (!stat(path, &st) && S_ISBLK(st.st_mode))
		return state_save_blk(path, hdr, m);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = state_write(fd, hdr, m);
	close(fd);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	fsync_parent(path);
	return 0;
}

/* Rewrite the flags of an existing state file in place. */
int state_mark(const char *path, uint32_t flags)
{
	struct disk_super s;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_exact(fd, &s, sizeof(s), 0);
	if (!ret && !super_valid(&s, STATE_MAGIC))
		ret = -EINVAL;
	if (!ret) {
		s.flags = (s.flags & SUPER_UNIFORM) | flags;
		super_seal(&s);
		ret = write_exact(fd, &s, sizeof(s), 0);
	}
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}
