/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grow: the checks that come before any change, and the steps.
 *
 * Every check runs before the first write, so a refused grow changes
 * nothing.  The steps then are: add the --add devices as spares (mdadm
 * writes their member superblocks; md takes no blank device into an array
 * with a persistent superblock), raise stripe_cache_size when the chunk
 * needs it (raid5.c check_stripe_cache()), write raid_disks, and write
 * "reshape" to sync_action.  When a step fails, the ones before it are
 * reported (or undone when that is safe: raid_disks before the start).
 */
#ifndef RAIDCTL_GROW_H
#define RAIDCTL_GROW_H

#include <stddef.h>

#include "args.h"
#include "rc.h"
#include "mddev.h"
#include "mdinfo.h"

struct grow_plan {
	struct md_info *info;
	unsigned int from, to;
	unsigned int nadd;
	struct blkdev add[ADD_MAX];
	unsigned int cache_from, cache_to;	/* equal: leave it */
	/* what has been done so far, for the report when a step fails */
	unsigned int added;
	bool cache_raised;
};

/*
 * The array's part of the checks (level, state, count, spares counting
 * the --add devices).  Returns RC_OK, or an exit code with the reason in
 * msg.
 */
int grow_check_array(const struct md_info *info, unsigned int to,
		     unsigned int nadd, char *msg, size_t len);
/* One --add device, already looked up, against the array. */
int grow_check_device(const struct md_info *info, const struct blkdev *d,
		      char *msg, size_t len);
/* stripe_cache_size md needs for this chunk size to reshape. */
unsigned int grow_cache_needed(uint64_t chunk_bytes);
/* Why md refused a write, in the admin's terms (or strerror). */
const char *grow_refusal(const char *attr, int errnum);
/*
 * All the checks, for the array plan->info (read already) and a's devices;
 * fills the plan.  RC_OK, or an exit code after printing why.
 */
int grow_plan_make(const struct rc_ctx *ctx, const struct rc_args *a,
		   struct grow_plan *plan);
/* The steps; RC_OK, or RC_FAIL after printing the array's state. */
int grow_run_steps(const struct rc_ctx *ctx, struct grow_plan *plan);
/* What the array looks like after a failed step: "spares added: ..." */
void grow_state_after(const struct grow_plan *plan, char *buf, size_t len);

#endif
