/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding arrays and devices: libudev on a real system.
 *
 * When the context points at a fake sysfs tree (unit tests only), libudev
 * cannot be used (it accepts nothing outside /sys), so the same questions
 * are answered from the tree's directories: <root>/sys/block/NAME and
 * <root>/dev/... symlinks that lead to a file named like the kernel device.
 */
#ifndef RAIDCTL_MDDEV_H
#define RAIDCTL_MDDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rc.h"

#define MD_ARRAYS_MAX 256

/* md0, /dev/md0 or /dev/md/NAME to the kernel name; 0 or -ENOENT. */
int md_resolve(const struct rc_ctx *ctx, const char *arg, char *name,
	       size_t len);
/* Kernel names of every md array, sorted; returns how many, or -errno. */
int md_list(const struct rc_ctx *ctx, char (*names)[RC_NAME_MAX], int max);

struct blkdev {
	char name[RC_NAME_MAX];		/* kernel name: "vdd" */
	char node[RC_PATH_MAX];		/* "/dev/vdd" */
	unsigned int major, minor;
	uint64_t sectors;
	bool busy;			/* opened exclusively by someone */
};

/* A block device by path; 0, -ENOENT or -ENOTBLK. */
int blk_lookup(const struct rc_ctx *ctx, const char *path, struct blkdev *d);
/* The device node of a block device by kernel name ("/dev/vda"). */
void blk_devnode(const struct rc_ctx *ctx, const char *name, char *buf,
		 size_t len);

#endif
