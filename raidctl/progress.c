// SPDX-License-Identifier: GPL-2.0
/* Reshape progress and ETA. */
#include <string.h>

#include "progress.h"

const char *reshape_state_name(enum reshape_state s)
{
	static const char *const names[] = {
		[RS_NONE] = "none", [RS_RUNNING] = "running",
		[RS_PAUSED] = "paused", [RS_DONE] = "done",
	};

	return names[s];
}

/*
 * reshape_position is the cursor: "none" means no reshape is in progress.
 * With a cursor, sync_action "reshape" means it runs; anything else
 * ("frozen", or "idle" on a read-only array) means it does not move.
 * Without one, last_sync_action tells whether the last job was a reshape.
 */
enum reshape_state reshape_state_of(const struct md_info *info)
{
	if (info->reshape_active)
		return info->action == SA_RESHAPE ? RS_RUNNING : RS_PAUSED;
	if (info->action == SA_RESHAPE)
		return RS_RUNNING;	/* started, cursor not yet written */
	if (!strcmp(info->last_action, "reshape"))
		return RS_DONE;
	return RS_NONE;
}

double percent_of(uint64_t done, uint64_t total)
{
	double p;

	if (!total)
		return 0.0;
	p = 100.0 * (double)done / (double)total;
	return p > 100.0 ? 100.0 : p;
}

bool eta_seconds(uint64_t remaining, uint64_t rate, uint64_t *secs)
{
	uint64_t s;

	if (!rate)
		return false;
	s = remaining / rate + (remaining % rate ? 1 : 0);
	if (s > ETA_HORIZON_SECS)
		return false;
	*secs = s;
	return true;
}

unsigned int data_disks(unsigned int disks)
{
	return disks > 1 ? disks - 1 : 1;	/* RAID-5: one parity */
}

static void fill_position(const struct md_info *info, struct progress *p)
{
	uint64_t per_dev_total = info->component_kib * 2;
	unsigned int nd = data_disks(info->raid_disks);

	if (info->completed.kind == SC_RANGE && info->completed.total) {
		p->done_bytes = info->completed.done * nd * 512;
		p->total_bytes = info->completed.total * nd * 512;
	} else if (info->reshape_active && per_dev_total) {
		p->done_bytes = info->reshape_sector * 512;
		p->total_bytes = per_dev_total * nd * 512;
	} else {
		return;
	}
	if (p->done_bytes > p->total_bytes)
		p->done_bytes = p->total_bytes;
	p->has_position = true;
	p->percent = percent_of(p->done_bytes, p->total_bytes);
}

static void fill_rate(const struct md_info *info, struct progress *p)
{
	if (p->state != RS_RUNNING || !info->speed_known)
		return;
	/* sync_speed counts per-member KiB, like sync_completed */
	p->rate_bytes = info->speed_kib * 1024 * data_disks(info->raid_disks);
	p->has_rate = true;
	if (p->has_position)
		p->has_eta = eta_seconds(p->total_bytes - p->done_bytes,
					 p->rate_bytes, &p->eta_secs);
}

void progress_compute(const struct md_info *info, struct progress *p)
{
	memset(p, 0, sizeof(*p));
	p->state = reshape_state_of(info);
	p->from_disks = info->old_disks;
	p->to_disks = info->raid_disks;
	p->has_cursor = info->reshape_active;
	p->cursor_sector = info->reshape_sector;
	if (p->state == RS_RUNNING || p->state == RS_PAUSED)
		fill_position(info, p);
	fill_rate(info, p);
}
