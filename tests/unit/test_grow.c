// SPDX-License-Identifier: GPL-2.0
/*
 * grow's checks and reports, and finding arrays and devices, over the fake
 * tree trees/idle (RAIDCTL_SYSFS_ROOT, set by ctest).
 */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "grow.h"
#include "mddev.h"
#include "mdinfo.h"

static struct rc_ctx ctx;

static void load(const char *name, struct md_info *info)
{
	struct md_err e;

	CHECK(md_info_read(&ctx, name, info, &e) == 0);
}

static void expect(const struct md_info *info, unsigned int to,
		   unsigned int nadd, int rc, const char *msg)
{
	char buf[512] = "";

	CHECK(grow_check_array(info, to, nadd, buf, sizeof(buf)) == rc);
	CHECK_STR(buf, msg);
}

static void test_array_checks(void)
{
	static struct md_info info;

	load("md0", &info);
	CHECK(info.raid_disks == 3 && info.nmembers == 3);
	expect(&info, 4, 1, RC_OK, "");
	expect(&info, 3, 1, RC_REFUSED, "the array has 3 devices already; --to must be larger");
	expect(&info, 5, 1, RC_REFUSED, "growing from 3 to 5 devices needs 2 spares, there is 1 (add devices with --add)");
	expect(&info, 6, 0, RC_REFUSED, "growing from 3 to 6 devices needs 3 spares, there are 0 (add devices with --add)");
	info.action = SA_FROZEN;
	expect(&info, 4, 1, RC_REFUSED, "sync_action is frozen; write idle to md/sync_action first");
	info.action = SA_CHECK;
	expect(&info, 4, 1, RC_REFUSED, "a check is running; wait until it is done");
	info.action = SA_RESHAPE;
	expect(&info, 4, 1, RC_REFUSED, "a reshape is already in progress (running)");
	info.action = SA_IDLE;
	strcpy(info.array_state, "read-auto");
	expect(&info, 4, 1, RC_REFUSED, "the array is read-auto; make it writable first (mdadm --readwrite)");
	strcpy(info.array_state, "suspended");
	expect(&info, 4, 1, RC_REFUSED, "the array is suspended; it must be clean or active");
	strcpy(info.array_state, "clean");
	strcpy(info.metadata, "external:imsm");
	expect(&info, 4, 1, RC_REFUSED, "external metadata (imsm) is not supported");

	load("md1", &info);
	expect(&info, 3, 1, RC_REFUSED, "the array is raid1, not RAID-5");
	load("md2", &info);
	expect(&info, 4, 1, RC_REFUSED, "the array is degraded (1 missing); recover it before growing");
	load("md3", &info);
	expect(&info, 4, 1, RC_REFUSED, "a resync is running; wait until it is done");
	load("md4", &info);
	CHECK(md_spare_count(&info) == 1);
	expect(&info, 5, 0, RC_OK, "");
	load("md5", &info);
	expect(&info, 4, 4, RC_REFUSED, "the array is not running");
}

static void expect_device(const struct md_info *info, const char *path,
			  int lookup, int rc, const char *msg)
{
	struct blkdev d;
	char buf[512] = "";

	CHECK(blk_lookup(&ctx, path, &d) == lookup);
	if (lookup)
		return;
	CHECK(grow_check_device(info, &d, buf, sizeof(buf)) == rc);
	CHECK_STR(buf, msg);
}

static void test_device_checks(void)
{
	static struct md_info info;
	struct blkdev d;

	load("md0", &info);
	expect_device(&info, "/dev/vdd", 0, RC_OK, "");
	CHECK(blk_lookup(&ctx, "/dev/vdd", &d) == 0 && d.major == 254 &&
	      d.minor == 48 && d.sectors == 131072 && !d.busy);
	CHECK_STR(d.node, "/dev/vdd");
	expect_device(&info, "/dev/vdb", 0, RC_REFUSED, "/dev/vdb is a member of md0 already");
	expect_device(&info, "/dev/vdm", 0, RC_REFUSED, "/dev/vdm is in use (mounted, or part of another array)");
	expect_device(&info, "/dev/vdl", 0, RC_REFUSED, "/dev/vdl is too small (16.0M; members hold 63.0M)");
	expect_device(&info, "/dev/vdx", -ENOENT, 0, "");
	expect_device(&info, "vdd", -ENOENT, 0, "");
	expect_device(&info, "/dev/console", -ENOTBLK, 0, "");
	expect_device(&info, "/dev/../../../etc/passwd", -ENOENT, 0, "");
}

static void test_resolve(void)
{
	static const char *const missing[] = {
		"md9", "/dev/md9", "/dev/md/nope", "vdd", "/dev/vdd", "dev/md0",
		"md", "", ".", "..", "../md0", "/dev/../dev/md/../../md0",
	};
	char (*names)[RC_NAME_MAX] = calloc(MD_ARRAYS_MAX, RC_NAME_MAX);
	char name[RC_NAME_MAX];
	size_t i;

	CHECK(md_resolve(&ctx, "md0", name, sizeof(name)) == 0);
	CHECK_STR(name, "md0");
	CHECK(md_resolve(&ctx, "/dev/md4", name, sizeof(name)) == 0);
	CHECK_STR(name, "md4");
	CHECK(md_resolve(&ctx, "/dev/md/data", name, sizeof(name)) == 0);
	CHECK_STR(name, "md0");
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
		CHECK(md_resolve(&ctx, missing[i], name, sizeof(name)) == -ENOENT);
	CHECK(md_list(&ctx, names, MD_ARRAYS_MAX) == 6);
	CHECK_STR(names[0], "md0");
	CHECK_STR(names[5], "md5");
	CHECK(md_list(&ctx, names, 2) == -E2BIG);
	free(names);
}

static void test_reports(void)
{
	static struct grow_plan plan;
	char buf[512];

	CHECK(grow_cache_needed(524288) == 512);
	CHECK(grow_cache_needed(65536) == 64);
	CHECK(grow_cache_needed(4096) == 4);
	CHECK_STR(grow_refusal("md/sync_action", EINVAL),
		  "the personality refused to start the reshape (too few usable spares, a failed member, or no reshape support)");
	CHECK_STR(grow_refusal("md/raid_disks", EBUSY), "md is busy with a resync or reshape");
	CHECK_STR(grow_refusal("md/sync_action", ENOSPC), "the stripe cache is too small for this chunk size");
	CHECK_STR(grow_refusal("md/raid_disks", EOPNOTSUPP), "the personality cannot reshape");
	CHECK_STR(grow_refusal("md/raid_disks", EIO), "Input/output error");

	plan.from = 3;
	grow_state_after(&plan, buf, sizeof(buf));
	CHECK_STR(buf, "the array still has 3 devices and no reshape was started");
	plan.nadd = 2;
	strcpy(plan.add[0].node, "/dev/vdd");
	strcpy(plan.add[1].node, "/dev/vde");
	plan.added = 2;
	plan.cache_raised = true;
	plan.cache_to = 512;
	grow_state_after(&plan, buf, sizeof(buf));
	CHECK_STR(buf, "added as spares: /dev/vdd /dev/vde; stripe_cache_size raised to 512; "
		  "the array still has 3 devices and no reshape was started");
	grow_state_after(&plan, buf, 20);	/* cut, never overrun */
	CHECK_STR(buf, "added as spares: /d");
}

int main(void)
{
	if (rc_ctx_init(&ctx) || !rc_ctx_fake(&ctx)) {
		fprintf(stderr, "needs RAIDCTL_SYSFS_ROOT=.../trees/idle\n");
		return 77;
	}
	test_array_checks();
	test_device_checks();
	test_resolve();
	test_reports();
	rc_ctx_done(&ctx);
	CHECK_DONE();
}
