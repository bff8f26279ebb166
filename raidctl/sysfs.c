// SPDX-License-Identifier: GPL-2.0
/* The one module that reads and writes md's sysfs attributes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"
#include "util.h"

static int fail(struct sysfs_err *e, const char *attr, bool write, int errnum)
{
	copy_str(e->attr, sizeof(e->attr), attr);
	e->write = write;
	e->errnum = errnum;
	return -errnum;
}

int sysfs_path(const struct rc_ctx *ctx, const char *array, const char *attr,
	       char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/sys/block/%s/%s", ctx->root, array, attr);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sysfs_open(const struct rc_ctx *ctx, const char *array, const char *attr,
	       struct sysfs_err *e)
{
	char path[RC_PATH_MAX];
	int fd;

	if (sysfs_path(ctx, array, attr, path, sizeof(path)))
		return fail(e, attr, false, ENAMETOOLONG);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(e, attr, false, errno);
	return fd;
}

int sysfs_reread(int fd, const char *attr, char *buf, size_t len,
		 struct sysfs_err *e)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return fail(e, attr, false, errno);
	n = read(fd, buf, len - 1);
	if (n < 0)
		return fail(e, attr, false, errno);
	buf[n] = '\0';
	trim_end(buf);
	return 0;
}

int sysfs_read(const struct rc_ctx *ctx, const char *array, const char *attr,
	       char *buf, size_t len, struct sysfs_err *e)
{
	int fd = sysfs_open(ctx, array, attr, e);
	int r;

	if (fd < 0)
		return fd;
	r = sysfs_reread(fd, attr, buf, len, e);
	close(fd);
	return r;
}

int sysfs_read_opt(const struct rc_ctx *ctx, const char *array,
		   const char *attr, char *buf, size_t len,
		   struct sysfs_err *e)
{
	int r = sysfs_read(ctx, array, attr, buf, len, e);

	if (r == -ENOENT) {
		buf[0] = '\0';
		return 0;
	}
	return r;
}

int sysfs_write(const struct rc_ctx *ctx, const char *array, const char *attr,
		const char *value, struct sysfs_err *e)
{
	char path[RC_PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd;

	if (sysfs_path(ctx, array, attr, path, sizeof(path)))
		return fail(e, attr, true, ENAMETOOLONG);
	/* A fake tree holds plain files: replace the value, as md would. */
	fd = open(path, O_WRONLY | O_CLOEXEC | (rc_ctx_fake(ctx) ? O_TRUNC : 0));
	if (fd < 0)
		return fail(e, attr, true, errno);
	n = write(fd, value, len);
	if (n < 0) {
		int errnum = errno;

		close(fd);
		return fail(e, attr, true, errnum);
	}
	if (close(fd) < 0)
		return fail(e, attr, true, errno);
	if ((size_t)n != len)
		return fail(e, attr, true, EIO);
	return 0;
}

void sysfs_describe(const struct sysfs_err *e, char *buf, size_t len)
{
	snprintf(buf, len, "cannot %s %s: %s", e->write ? "write" : "read",
		 e->attr, strerror(e->errnum));
}
