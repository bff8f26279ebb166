// SPDX-License-Identifier: GPL-2.0
/* Reshape state, progress and ETA math. */
#include <string.h>

#include "check.h"
#include "progress.h"

static void test_eta(void)
{
	uint64_t s = 99;

	CHECK(!eta_seconds(100, 0, &s) && s == 99);	/* no rate: no estimate */
	CHECK(eta_seconds(0, 10, &s) && s == 0);
	CHECK(eta_seconds(100, 10, &s) && s == 10);
	CHECK(eta_seconds(101, 10, &s) && s == 11);	/* rounds up */
	CHECK(eta_seconds(1, UINT64_MAX, &s) && s == 1);
	CHECK(eta_seconds(ETA_HORIZON_SECS, 1, &s) && s == ETA_HORIZON_SECS);
	CHECK(!eta_seconds(ETA_HORIZON_SECS + 1, 1, &s));
	CHECK(!eta_seconds(UINT64_MAX, 1, &s));
}

static void test_percent(void)
{
	CHECK(percent_of(0, 0) == 0.0);
	CHECK(percent_of(1, 4) == 25.0);
	CHECK(percent_of(4, 4) == 100.0);
	CHECK(percent_of(5, 4) == 100.0);
	CHECK(percent_of(UINT64_MAX, UINT64_MAX) == 100.0);
}

/* md0 of trees/reshape: 3 -> 6 devices, a quarter done, 2048 KiB/s. */
static void running(struct md_info *m)
{
	memset(m, 0, sizeof(*m));
	strcpy(m->level, "raid5");
	m->raid_disks = 6;
	m->old_disks = 3;
	m->component_kib = 64512;
	m->has_sync = true;
	m->action = SA_RESHAPE;
	m->completed = (struct sync_completed){ SC_RANGE, 32256, 129024 };
	m->reshape_active = true;
	m->reshape_sector = 32256 * 5;
	m->speed_known = true;
	m->speed_kib = 2048;
}

static void test_running(void)
{
	struct md_info m;
	struct progress p;

	running(&m);
	progress_compute(&m, &p);
	CHECK(p.state == RS_RUNNING && p.from_disks == 3 && p.to_disks == 6);
	CHECK(p.has_position && p.done_bytes == 32256ULL * 5 * 512);
	CHECK(p.total_bytes == 129024ULL * 5 * 512 && p.percent == 25.0);
	CHECK(p.has_rate && p.rate_bytes == 2048ULL * 1024 * 5);
	CHECK(p.has_eta && p.eta_secs == 24);	/* 23.6 s, rounded up */
	CHECK(p.has_cursor && p.cursor_sector == 161280);

	m.speed_kib = 0;	/* stalled: no estimate */
	progress_compute(&m, &p);
	CHECK(p.has_rate && p.rate_bytes == 0 && !p.has_eta);

	m.completed = (struct sync_completed){ SC_RANGE, 200000, 129024 };
	progress_compute(&m, &p);	/* never past the end */
	CHECK(p.done_bytes == p.total_bytes && p.percent == 100.0);
}

static void test_paused_and_delayed(void)
{
	struct md_info m;
	struct progress p;

	running(&m);
	m.action = SA_FROZEN;
	m.completed.kind = SC_NONE;
	m.speed_known = false;
	progress_compute(&m, &p);	/* position from reshape_position */
	CHECK(p.state == RS_PAUSED && p.has_position && p.percent == 25.0);
	CHECK(!p.has_rate && !p.has_eta);

	running(&m);
	m.completed.kind = SC_DELAYED;
	m.speed_known = false;
	m.reshape_sector = 0;
	progress_compute(&m, &p);
	CHECK(p.state == RS_RUNNING && p.has_position && p.done_bytes == 0);
	CHECK(!p.has_rate && !p.has_eta);

	m.action = SA_IDLE;	/* a read-only array: cursor, nothing moves */
	CHECK(reshape_state_of(&m) == RS_PAUSED);
}

static void test_states(void)
{
	struct md_info m;
	struct progress p;

	memset(&m, 0, sizeof(m));
	m.raid_disks = m.old_disks = 6;
	m.action = SA_IDLE;
	CHECK(reshape_state_of(&m) == RS_NONE);
	strcpy(m.last_action, "resync");
	CHECK(reshape_state_of(&m) == RS_NONE);
	strcpy(m.last_action, "reshape");
	CHECK(reshape_state_of(&m) == RS_DONE);
	progress_compute(&m, &p);
	CHECK(p.state == RS_DONE && !p.has_position && !p.has_cursor);
	m.action = SA_RESHAPE;	/* started, cursor not yet written */
	CHECK(reshape_state_of(&m) == RS_RUNNING);
	progress_compute(&m, &p);
	CHECK(!p.has_position && !p.has_eta);
	CHECK_STR(reshape_state_name(RS_NONE), "none");
	CHECK_STR(reshape_state_name(RS_RUNNING), "running");
	CHECK_STR(reshape_state_name(RS_PAUSED), "paused");
	CHECK_STR(reshape_state_name(RS_DONE), "done");
}

int main(void)
{
	test_eta();
	test_percent();
	test_running();
	test_paused_and_delayed();
	test_states();
	CHECK_DONE();
}
