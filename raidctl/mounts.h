/* SPDX-License-Identifier: GPL-2.0 */
/* Where a block device is mounted (libmount), and how to grow its fs. */
#ifndef RAIDCTL_MOUNTS_H
#define RAIDCTL_MOUNTS_H

#include <stddef.h>

#include "rc.h"

struct libmnt_table;

struct mounts {
	struct libmnt_table *tb;	/* NULL when nothing could be read */
};

/* /proc/self/mountinfo (under the root of a fake tree); 0 or -errno. */
int mounts_load(const struct rc_ctx *ctx, struct mounts *m);
void mounts_free(struct mounts *m);
/*
 * The idx-th mount of device major:minor: its mount point and fs type.
 * Returns 0, or -ENOENT when there is no such mount.
 */
int mounts_find(const struct mounts *m, unsigned int major, unsigned int minor,
		int idx, const char **target, const char **fstype);
/* "resize2fs /dev/md0", "xfs_growfs /mnt", ...; "" for unknown types. */
void grow_fs_hint(const char *fstype, const char *devnode, const char *target,
		  char *buf, size_t len);

#endif
