/* SPDX-License-Identifier: GPL-2.0 */
/* One md array as its sysfs attributes describe it. */
#ifndef RAIDCTL_MDINFO_H
#define RAIDCTL_MDINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "mdattr.h"
#include "rc.h"
#include "sysfs.h"

#define MD_MEMBERS_MAX 128

struct md_member {
	char name[RC_NAME_MAX];		/* kernel name: "vda" */
	char state[SYSFS_VALUE_MAX];	/* dev-X/state as md prints it */
	unsigned int flags;		/* enum dev_flag */
	bool has_slot;
	unsigned int slot;
};

struct md_info {
	char name[RC_NAME_MAX];		/* kernel name: "md0" */
	char level[32];			/* "raid5"; "" when inactive */
	bool has_layout;
	unsigned int layout;
	uint64_t chunk_bytes;
	unsigned int raid_disks;	/* the target count during a reshape */
	unsigned int old_disks;		/* == raid_disks unless reshaping */
	unsigned int degraded;
	char array_state[32];
	char metadata[64];
	uint64_t component_kib;		/* per-member data size, KiB */
	uint64_t size_sectors;		/* the array's size */
	unsigned int dev_major, dev_minor;
	bool has_sync;			/* the level has sync_action & co */
	enum sync_action action;	/* SA_UNKNOWN: a word we do not know */
	char action_word[32];		/* sync_action as md printed it */
	char last_action[32];
	struct sync_completed completed;
	bool reshape_active;
	uint64_t reshape_sector;	/* array sectors, new geometry */
	bool speed_known;
	uint64_t speed_kib;		/* KiB/s, as sync_speed reads */
	bool has_stripe_cache;
	unsigned int stripe_cache;
	unsigned int nmembers;
	struct md_member members[MD_MEMBERS_MAX];
};

/* What went wrong reading an array: a sysfs error or an unparsable value. */
struct md_err {
	struct sysfs_err sys;
	char value[SYSFS_VALUE_MAX];	/* set when the value did not parse */
	bool parse;
};

/* Reads every attribute of one array; 0 or -errno (e filled). */
int md_info_read(const struct rc_ctx *ctx, const char *name,
		 struct md_info *info, struct md_err *e);
/* "cannot read md/level: ..." or "md/raid_disks: unexpected value 'x'" */
void md_err_describe(const struct md_err *e, char *buf, size_t len);

bool md_is_raid5(const struct md_info *info);
/* Members that hold no slot and have not failed: spares md can use. */
unsigned int md_spare_count(const struct md_info *info);
/* Index of the member with this kernel name, or -1. */
int md_member_index(const struct md_info *info, const char *name);

/* sync_action for people: its name, or the word md printed if unknown. */
const char *md_action_text(const struct md_info *info);

#endif
