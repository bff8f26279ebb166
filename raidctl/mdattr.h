/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the value formats of md's sysfs attributes (drivers/md/md.c).
 * Each takes the value with its newline removed and returns 0 or -EINVAL;
 * none of them touches the file system.
 */
#ifndef RAIDCTL_MDATTR_H
#define RAIDCTL_MDATTR_H

#include <stdbool.h>
#include <stdint.h>

/* sync_completed: "none", "delayed" or "<done> / <total>" in sectors. */
enum sc_kind { SC_NONE, SC_DELAYED, SC_RANGE };
struct sync_completed {
	enum sc_kind kind;
	uint64_t done;
	uint64_t total;
};
int parse_sync_completed(const char *s, struct sync_completed *sc);

/* reshape_position: "none" or an array sector. */
int parse_reshape_position(const char *s, bool *active, uint64_t *sector);

/* raid_disks: "N", or "N (OLD)" while a reshape changes the count. */
int parse_raid_disks(const char *s, unsigned int *disks, unsigned int *old);

/* sync_speed (KiB/s) and dev-X/slot: "none" or a number. */
int parse_u64_or_none(const char *s, bool *known, uint64_t *v);

/* sync_action: every word action_show() prints. */
enum sync_action {
	SA_UNKNOWN, SA_IDLE, SA_FROZEN, SA_RESHAPE, SA_RESYNC, SA_RECOVER,
	SA_CHECK, SA_REPAIR,
};
int parse_sync_action(const char *s, enum sync_action *a);
const char *sync_action_name(enum sync_action a);

/* dev-X/state: comma-separated flags, e.g. "in_sync,write_mostly". */
enum dev_flag {
	DEV_FAULTY = 1 << 0,
	DEV_IN_SYNC = 1 << 1,
	DEV_SPARE = 1 << 2,
	DEV_WRITE_MOSTLY = 1 << 3,
	DEV_BLOCKED = 1 << 4,
	DEV_JOURNAL = 1 << 5,
	DEV_REPLACEMENT = 1 << 6,
	DEV_OTHER = 1 << 7,	/* a flag this version does not know */
};
int parse_dev_state(const char *s, unsigned int *flags);

/* layout of a raid5 array: "2" -> "left-symmetric"; NULL if unknown. */
const char *raid5_layout_name(unsigned int layout);

/* array_state: true for the states in which md can start a reshape. */
bool array_state_writable(const char *state);

#endif
