/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reshape progress and ETA.
 *
 * md reports a running reshape in sync_completed as per-member sectors out
 * of component_size, and the cursor in reshape_position as array sectors in
 * the new geometry.  Both are turned into bytes of array data reshaped out
 * of the array's new size, so a running and a paused reshape read the same.
 */
#ifndef RAIDCTL_PROGRESS_H
#define RAIDCTL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "mdinfo.h"

/* No estimate is printed beyond this horizon (as zpool status does). */
#define ETA_HORIZON_SECS (30ULL * 86400)

enum reshape_state { RS_NONE, RS_RUNNING, RS_PAUSED, RS_DONE };

struct progress {
	enum reshape_state state;
	unsigned int from_disks, to_disks;
	bool has_position;
	uint64_t done_bytes, total_bytes;
	double percent;
	bool has_rate;
	uint64_t rate_bytes;	/* per second */
	bool has_eta;
	uint64_t eta_secs;
	bool has_cursor;
	uint64_t cursor_sector;	/* reshape_position */
};

const char *reshape_state_name(enum reshape_state s);
enum reshape_state reshape_state_of(const struct md_info *info);
void progress_compute(const struct md_info *info, struct progress *p);
/* Seconds until remaining bytes are done at rate; false: no sane estimate. */
bool eta_seconds(uint64_t remaining, uint64_t rate, uint64_t *secs);
/* Percent of done in total, 0 when total is 0, at most 100. */
double percent_of(uint64_t done, uint64_t total);
/* The data members of a RAID-5 of this many (one parity; at least 1). */
unsigned int data_disks(unsigned int disks);

#endif
