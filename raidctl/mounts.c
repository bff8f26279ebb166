// SPDX-License-Identifier: GPL-2.0
/* Where a block device is mounted (libmount), and how to grow its fs. */
#include <errno.h>
#include <libmount/libmount.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mounts.h"

int mounts_load(const struct rc_ctx *ctx, struct mounts *m)
{
	char path[RC_PATH_MAX];
	int r;

	m->tb = mnt_new_table();
	if (!m->tb)
		return -ENOMEM;
	if (rc_ctx_fake(ctx)) {
		snprintf(path, sizeof(path), "%s/proc/self/mountinfo",
			 ctx->root);
		r = mnt_table_parse_file(m->tb, path);
	} else {
		r = mnt_table_parse_mtab(m->tb, NULL);
	}
	if (r) {
		mnt_unref_table(m->tb);
		m->tb = NULL;
	}
	return r;
}

void mounts_free(struct mounts *m)
{
	mnt_unref_table(m->tb);
	m->tb = NULL;
}

int mounts_find(const struct mounts *m, unsigned int major, unsigned int minor,
		int idx, const char **target, const char **fstype)
{
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	dev_t devno = makedev(major, minor);
	int r = -ENOENT;

	if (!m->tb)
		return -ENOENT;
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!it)
		return -ENOMEM;
	while (mnt_table_next_fs(m->tb, it, &fs) == 0) {
		if (mnt_fs_get_devno(fs) != devno || idx-- > 0)
			continue;
		*target = mnt_fs_get_target(fs);
		*fstype = mnt_fs_get_fstype(fs);
		r = 0;
		break;
	}
	mnt_free_iter(it);
	return r;
}

void grow_fs_hint(const char *fstype, const char *devnode, const char *target,
		  char *buf, size_t len)
{
	if (!strncmp(fstype, "ext", 3))
		snprintf(buf, len, "resize2fs %s", devnode);
	else if (!strcmp(fstype, "xfs"))
		snprintf(buf, len, "xfs_growfs %s", target);
	else if (!strcmp(fstype, "btrfs"))
		snprintf(buf, len, "btrfs filesystem resize max %s", target);
	else
		buf[0] = '\0';
}
