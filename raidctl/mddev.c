// SPDX-License-Identifier: GPL-2.0
/* Finding arrays and devices: libudev, or a fake tree in unit tests. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mddev.h"
#include "sysfs.h"
#include "util.h"

/*---- Both ways ----*/

/* An md array is a block device with an md/ directory. */
static bool is_md(const struct rc_ctx *ctx, const char *name)
{
	char path[RC_PATH_MAX];
	struct stat st;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	if (sysfs_path(ctx, name, "md", path, sizeof(path)))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int add_name(char (*names)[RC_NAME_MAX], int n, int max,
		    const char *name)
{
	if (n == max)
		return -E2BIG;
	copy_str(names[n], RC_NAME_MAX, name);
	return n + 1;
}

/*---- Fake tree (unit tests) ----*/

/* <root><path>, with symlinks resolved, must stay inside <root>/dev. */
static int fake_name_of_path(const struct rc_ctx *ctx, const char *path,
			     char *name, size_t len)
{
	char full[RC_PATH_MAX], real[PATH_MAX], devdir[RC_PATH_MAX];
	const char *base;

	snprintf(full, sizeof(full), "%s%s", ctx->root, path);
	snprintf(devdir, sizeof(devdir), "%s/dev/", ctx->root);
	if (!realpath(full, real))
		return -errno;
	if (strncmp(real, devdir, strlen(devdir)))
		return -ENOTBLK;
	base = strrchr(real, '/') + 1;
	return copy_str(name, len, base) ? 0 : -ENAMETOOLONG;
}

static int fake_list(const struct rc_ctx *ctx, char (*names)[RC_NAME_MAX],
		     int max)
{
	char path[RC_PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "%s/sys/block", ctx->root);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (n >= 0 && (d = readdir(dir)))
		if (!strncmp(d->d_name, "md", 2) && is_md(ctx, d->d_name))
			n = add_name(names, n, max, d->d_name);
	closedir(dir);
	return n;
}

/* Something is stacked on the device (an array, a dm target). */
static bool fake_has_holders(const struct rc_ctx *ctx, const char *name)
{
	char path[RC_PATH_MAX];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	if (sysfs_path(ctx, name, "holders", path, sizeof(path)))
		return false;
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir)))
		found = d->d_name[0] != '.';
	closedir(dir);
	return found;
}

static int fake_blk_lookup(const struct rc_ctx *ctx, const char *path,
			   struct blkdev *d)
{
	char buf[SYSFS_VALUE_MAX];
	struct sysfs_err e;
	int r = fake_name_of_path(ctx, path, d->name, sizeof(d->name));

	if (r)
		return r == -ENOENT ? r : -ENOTBLK;
	/* sysfs_read takes /sys/block/<name>/<attr>: fine for whole disks */
	if (sysfs_read(ctx, d->name, "dev", buf, sizeof(buf), &e) ||
	    sscanf(buf, "%u:%u", &d->major, &d->minor) != 2)
		return -ENOTBLK;
	if (sysfs_read(ctx, d->name, "size", buf, sizeof(buf), &e) ||
	    parse_u64(buf, &d->sectors))
		return -ENOTBLK;
	snprintf(d->node, sizeof(d->node), "/dev/%s", d->name);
	d->busy = fake_has_holders(ctx, d->name);
	return 0;
}

/*---- libudev ----*/

static struct udev_device *udev_by_path(const struct rc_ctx *ctx,
					const char *path, int *err)
{
	struct udev_device *dev;
	struct stat st;

	if (stat(path, &st)) {
		*err = -errno;
		return NULL;
	}
	if (!S_ISBLK(st.st_mode)) {
		*err = -ENOTBLK;
		return NULL;
	}
	dev = udev_device_new_from_devnum(ctx->udev, 'b', st.st_rdev);
	*err = dev ? 0 : -ENOENT;
	return dev;
}

static int udev_resolve_path(const struct rc_ctx *ctx, const char *path,
			     char *name, size_t len)
{
	int err;
	struct udev_device *dev = udev_by_path(ctx, path, &err);

	if (!dev)
		return err;
	copy_str(name, len, udev_device_get_sysname(dev));
	udev_device_unref(dev);
	return 0;
}

static int udev_list(const struct rc_ctx *ctx, char (*names)[RC_NAME_MAX],
		     int max)
{
	struct udev_enumerate *en = udev_enumerate_new(ctx->udev);
	struct udev_list_entry *e;
	int n = 0;

	if (!en)
		return -ENOMEM;
	udev_enumerate_add_match_subsystem(en, "block");
	udev_enumerate_add_match_sysname(en, "md*");
	udev_enumerate_add_match_property(en, "DEVTYPE", "disk");
	if (udev_enumerate_scan_devices(en) < 0) {
		udev_enumerate_unref(en);
		return -EIO;
	}
	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en)) {
		const char *sysname = strrchr(udev_list_entry_get_name(e), '/');

		if (n >= 0 && sysname && is_md(ctx, sysname + 1))
			n = add_name(names, n, max, sysname + 1);
	}
	udev_enumerate_unref(en);
	return n;
}

/* Someone holds it open exclusively: mounted, or in an array or a dm. */
static bool opened_exclusively(const char *node)
{
	int fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0)
		return errno == EBUSY;
	close(fd);
	return false;
}

static int udev_blk_lookup(const struct rc_ctx *ctx, const char *path,
			   struct blkdev *d)
{
	const char *node, *size;
	struct udev_device *dev;
	int err;

	dev = udev_by_path(ctx, path, &err);
	if (!dev)
		return err;
	copy_str(d->name, sizeof(d->name), udev_device_get_sysname(dev));
	node = udev_device_get_devnode(dev);
	copy_str(d->node, sizeof(d->node), node ? node : path);
	d->major = major(udev_device_get_devnum(dev));
	d->minor = minor(udev_device_get_devnum(dev));
	size = udev_device_get_sysattr_value(dev, "size");
	if (!size || parse_u64(size, &d->sectors))
		d->sectors = 0;
	udev_device_unref(dev);
	d->busy = opened_exclusively(d->node);
	return 0;
}

/*---- Entry points ----*/

int md_resolve(const struct rc_ctx *ctx, const char *arg, char *name,
	       size_t len)
{
	int r;

	if (arg[0] != '/') {
		if (!copy_str(name, len, arg))
			return -ENOENT;
	} else {
		r = rc_ctx_fake(ctx) ? fake_name_of_path(ctx, arg, name, len)
				     : udev_resolve_path(ctx, arg, name, len);
		if (r)
			return -ENOENT;
	}
	return is_md(ctx, name) ? 0 : -ENOENT;
}

int md_list(const struct rc_ctx *ctx, char (*names)[RC_NAME_MAX], int max)
{
	int n = rc_ctx_fake(ctx) ? fake_list(ctx, names, max)
				 : udev_list(ctx, names, max);

	if (n > 0)
		qsort(names, (size_t)n, RC_NAME_MAX, by_name);
	return n;
}

int blk_lookup(const struct rc_ctx *ctx, const char *path, struct blkdev *d)
{
	memset(d, 0, sizeof(*d));
	if (path[0] != '/')
		return -ENOENT;
	return rc_ctx_fake(ctx) ? fake_blk_lookup(ctx, path, d)
				: udev_blk_lookup(ctx, path, d);
}

void blk_devnode(const struct rc_ctx *ctx, const char *name, char *buf,
		 size_t len)
{
	struct udev_device *dev = NULL;
	const char *node = NULL;

	if (!rc_ctx_fake(ctx))
		dev = udev_device_new_from_subsystem_sysname(ctx->udev,
							     "block", name);
	if (dev)
		node = udev_device_get_devnode(dev);
	if (node)
		copy_str(buf, len, node);
	else
		snprintf(buf, len, "/dev/%s", name);
	if (dev)
		udev_device_unref(dev);
}
