// SPDX-License-Identifier: GPL-2.0
/* grow: the checks that come before any change. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "grow.h"
#include "progress.h"
#include "util.h"

__attribute__((format(printf, 3, 4)))
static int refuse(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return RC_REFUSED;
}

static int check_level(const struct md_info *info, char *msg, size_t len)
{
	if (info->level[0] && !md_is_raid5(info))
		return refuse(msg, len, "the array is %s, not RAID-5",
			      info->level);
	if (!info->level[0] || !strcmp(info->array_state, "inactive") ||
	    !strcmp(info->array_state, "clear"))
		return refuse(msg, len, "the array is not running");
	if (!strncmp(info->metadata, "external:", 9))
		return refuse(msg, len, "external metadata (%s) is not supported",
			      info->metadata + 9);
	return RC_OK;
}

static int check_state(const struct md_info *info, char *msg, size_t len)
{
	enum reshape_state rs = reshape_state_of(info);

	if (!strcmp(info->array_state, "read-auto") ||
	    !strcmp(info->array_state, "readonly"))
		return refuse(msg, len, "the array is %s; make it writable "
			      "first (mdadm --readwrite)", info->array_state);
	if (!array_state_writable(info->array_state))
		return refuse(msg, len, "the array is %s; it must be clean or active",
			      info->array_state);
	if (info->degraded)
		return refuse(msg, len, "the array is degraded (%u missing); "
			      "recover it before growing", info->degraded);
	if (rs == RS_RUNNING || rs == RS_PAUSED)
		return refuse(msg, len, "a reshape is already in progress (%s)",
			      reshape_state_name(rs));
	if (info->action == SA_FROZEN)
		return refuse(msg, len, "sync_action is frozen; "
			      "write idle to md/sync_action first");
	if (info->action != SA_IDLE)
		return refuse(msg, len, "a %s is running; wait until it is done",
			      md_action_text(info));
	return RC_OK;
}

static int check_count(const struct md_info *info, unsigned int to,
		       unsigned int nadd, char *msg, size_t len)
{
	unsigned int spares = md_spare_count(info) + nadd;
	unsigned int need = to - info->raid_disks;

	if (to <= info->raid_disks)
		return refuse(msg, len, "the array has %u devices already; "
			      "--to must be larger", info->raid_disks);
	if (spares < need)
		return refuse(msg, len, "growing from %u to %u devices needs "
			      "%u spares, there %s %u (add devices with --add)",
			      info->raid_disks, to, need,
			      spares == 1 ? "is" : "are", spares);
	return RC_OK;
}

int grow_check_array(const struct md_info *info, unsigned int to,
		     unsigned int nadd, char *msg, size_t len)
{
	int r = check_level(info, msg, len);

	if (!r)
		r = check_state(info, msg, len);
	if (!r)
		r = check_count(info, to, nadd, msg, len);
	return r;
}

int grow_check_device(const struct md_info *info, const struct blkdev *d,
		      char *msg, size_t len)
{
	char have[32], need[32];

	if (md_member_index(info, d->name) >= 0)
		return refuse(msg, len, "%s is a member of %s already",
			      d->node, info->name);
	if (d->busy)
		return refuse(msg, len, "%s is in use (mounted, or part of "
			      "another array)", d->node);
	if (d->sectors < info->component_kib * 2) {
		format_size(d->sectors * 512, have, sizeof(have));
		format_size(info->component_kib * 1024, need, sizeof(need));
		return refuse(msg, len, "%s is too small (%s; members hold %s)",
			      d->node, have, need);
	}
	return RC_OK;
}

unsigned int grow_cache_needed(uint64_t chunk_bytes)
{
	return (unsigned int)(chunk_bytes / 4096 * 4);
}

static const struct {
	const char *attr;
	int errnum;
	const char *why;
} refusals[] = {
	{ "md/raid_disks", EBUSY, "md is busy with a resync or reshape" },
	{ "md/raid_disks", EINVAL, "the RAID-5 personality cannot reshape to that many devices" },
	{ "md/raid_disks", EROFS, "the array is read-only" },
	{ "md/raid_disks", EOPNOTSUPP, "the personality cannot reshape" },
	{ "md/sync_action", EOPNOTSUPP, "the personality cannot reshape" },
	{ "md/sync_action", EBUSY, "md is busy with another sync job" },
	{ "md/sync_action", EINVAL, "the personality refused to start the reshape (too few usable spares, a failed member, or no reshape support)" },
	{ "md/sync_action", ENOSPC, "the stripe cache is too small for this chunk size" },
	{ "md/stripe_cache_size", EINVAL, "md refused the stripe cache size" },
	{ "md/stripe_cache_size", ENOMEM, "not enough memory for a larger stripe cache" },
};

const char *grow_refusal(const char *attr, int errnum)
{
	size_t i;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		if (refusals[i].errnum == errnum && !strcmp(refusals[i].attr, attr))
			return refusals[i].why;
	return strerror(errnum);
}

void grow_state_after(const struct grow_plan *plan, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	if (plan->added) {
		n += (size_t)snprintf(buf + n, len - n, "added as spares:");
		for (i = 0; i < plan->added && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, " %s",
					      plan->add[i].node);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "; ");
	}
	if (plan->cache_raised && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      "stripe_cache_size raised to %u; ",
				      plan->cache_to);
	if (n < len)
		snprintf(buf + n, len - n, "the array still has %u devices and "
			 "no reshape was started", plan->from);
}
