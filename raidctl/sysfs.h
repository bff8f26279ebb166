/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one module that reads and writes md's sysfs attributes.
 *
 * Attribute names are relative to /sys/block/<array>/ ("md/sync_action",
 * "md/dev-vda/state", "size").  Every failure fills a struct sysfs_err that
 * says which attribute failed, whether it was a read or a write, and why,
 * so that callers can explain it in the admin's terms.
 */
#ifndef RAIDCTL_SYSFS_H
#define RAIDCTL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

#include "rc.h"

#define SYSFS_VALUE_MAX 256

struct sysfs_err {
	char attr[RC_NAME_MAX * 2];	/* e.g. "md/sync_action" */
	bool write;			/* failed writing (else reading) */
	int errnum;			/* positive errno */
};

/* "<root>/sys/block/<array>/<attr>" into buf; 0 or -ENAMETOOLONG. */
int sysfs_path(const struct rc_ctx *ctx, const char *array, const char *attr,
	       char *buf, size_t len);
/* Reads one value, trailing newline removed; 0 or -errno (e filled). */
int sysfs_read(const struct rc_ctx *ctx, const char *array, const char *attr,
	       char *buf, size_t len, struct sysfs_err *e);
/* Like sysfs_read, but a missing attribute gives "" and 0. */
int sysfs_read_opt(const struct rc_ctx *ctx, const char *array,
		   const char *attr, char *buf, size_t len,
		   struct sysfs_err *e);
/* Writes one value as md expects it (one write() call); 0 or -errno. */
int sysfs_write(const struct rc_ctx *ctx, const char *array, const char *attr,
		const char *value, struct sysfs_err *e);
/* Opens an attribute for poll(); returns an fd or -errno. */
int sysfs_open(const struct rc_ctx *ctx, const char *array, const char *attr,
	       struct sysfs_err *e);
/* Re-reads an fd opened by sysfs_open from the start; 0 or -errno. */
int sysfs_reread(int fd, const char *attr, char *buf, size_t len,
		 struct sysfs_err *e);
/* "cannot write md/raid_disks: Device or resource busy" */
void sysfs_describe(const struct sysfs_err *e, char *buf, size_t len);

#endif
