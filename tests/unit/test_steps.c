// SPDX-License-Identifier: GPL-2.0
/*
 * grow's steps when md refuses one: each case copies trees/idle, plans a
 * grow of md0 from 3 to 5 devices, then turns one attribute into a
 * directory (so that writing it fails, as a refusal by md would) and checks
 * the message, the exit code and what the array is left with.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "grow.h"
#include "util.h"

static char root[RC_PATH_MAX / 2];

static void copy_tree(void)
{
	char cmd[RC_PATH_MAX * 3];
	const char *trees = getenv("RAIDCTL_TREES");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s/idle' '%s'",
		 root, trees, root);
	CHECK(system(cmd) == 0);
}

static void break_attr(const char *attr)
{
	char path[RC_PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/block/md0/md/%s", root, attr);
	CHECK(unlink(path) == 0 && mkdir(path, 0755) == 0);
}

static void read_attr(const char *attr, char *buf, size_t len)
{
	char path[RC_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/block/md0/md/%s", root, attr);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && fgets(buf, (int)len, f))
		trim_end(buf);
	if (f)
		fclose(f);
}

/* Runs the steps with stderr caught in err. */
static int run(const struct rc_ctx *ctx, struct grow_plan *plan, char *err,
	       size_t len)
{
	char path[RC_PATH_MAX];
	int saved = dup(STDERR_FILENO), fd, r;
	ssize_t n;

	snprintf(path, sizeof(path), "%s.stderr", root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	r = grow_run_steps(ctx, plan);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	return r;
}

static void one_case(const char *broken, const char *want_err,
		     const char *want_disks)
{
	char *argv[] = { "grow", "md0", "--to", "5", "--add",
			 "/dev/vdd,/dev/vde", NULL };
	static struct grow_plan plan;
	static struct rc_args a;
	struct rc_ctx ctx = { .root = root };
	char err[2048], msg[256], disks[32];
	struct md_err e;

	copy_tree();
	memset(&plan, 0, sizeof(plan));
	plan.info = calloc(1, sizeof(*plan.info));
	CHECK(args_parse(cmd_find("grow"), 6, argv, &a, msg, sizeof(msg)) == 0);
	CHECK(md_info_read(&ctx, "md0", plan.info, &e) == 0);
	CHECK(grow_plan_make(&ctx, &a, &plan) == RC_OK);
	break_attr(broken);
	CHECK(run(&ctx, &plan, err, sizeof(err)) == RC_FAIL);
	CHECK_STR(err, want_err);
	read_attr("raid_disks", disks, sizeof(disks));
	CHECK_STR(disks, want_disks);
	free(plan.info);
}

int main(void)
{
	if (!getenv("RAIDCTL_TREES") || !getenv("RAIDCTL_MDADM")) {
		fprintf(stderr, "needs RAIDCTL_TREES and RAIDCTL_MDADM\n");
		return 77;
	}
	snprintf(root, sizeof(root), "%s/steps-root", getenv("TEST_WORK") ?: "/tmp");
	setenv(RC_ROOT_ENV, root, 1);	/* for fake-mdadm */
	one_case("stripe_cache_size",
		 "test_steps: md0: cannot set md/stripe_cache_size to 512: Is a directory; "
		 "added as spares: /dev/vdd /dev/vde; the array still has 3 "
		 "devices and no reshape was started\n", "3");
	one_case("raid_disks",
		 "test_steps: md0: cannot set md/raid_disks to 5: Is a directory; "
		 "added as spares: /dev/vdd /dev/vde; stripe_cache_size raised "
		 "to 512; the array still has 3 devices and no reshape was "
		 "started\n", "");
	one_case("sync_action",
		 "test_steps: md0: cannot start the reshape (md/sync_action): Is a "
		 "directory; added as spares: /dev/vdd /dev/vde; "
		 "stripe_cache_size raised to 512; the array still has 3 "
		 "devices and no reshape was started\n", "3");
	CHECK_DONE();
}
