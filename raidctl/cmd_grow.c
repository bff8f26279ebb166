// SPDX-License-Identifier: GPL-2.0
/* grow: checks first, then the steps (see grow.h). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "grow.h"
#include "mounts.h"
#include "progress.h"
#include "util.h"

/*---- Checks: nothing is changed before all pass ----*/

static int lookup_devices(const struct rc_ctx *ctx, const struct rc_args *a,
			  struct grow_plan *plan)
{
	char msg[512];
	unsigned int i;
	int r;

	for (i = 0; i < a->nadd; i++) {
		r = blk_lookup(ctx, a->add[i], &plan->add[i]);
		if (r == -ENOENT) {
			warnx("%s: %s: no such device", plan->info->name, a->add[i]);
			return RC_USAGE;
		}
		if (r) {
			warnx("%s: %s: not a block device", plan->info->name, a->add[i]);
			return RC_USAGE;
		}
		r = grow_check_device(plan->info, &plan->add[i], msg, sizeof(msg));
		if (r) {
			warnx("%s: %s", plan->info->name, msg);
			return r;
		}
	}
	plan->nadd = a->nadd;
	return RC_OK;
}

int grow_plan_make(const struct rc_ctx *ctx, const struct rc_args *a,
		   struct grow_plan *plan)
{
	struct md_info *info = plan->info;
	char msg[512];
	int r;

	r = grow_check_array(info, a->to, a->nadd, msg, sizeof(msg));
	if (r) {
		warnx("%s: %s", info->name, msg);
		return r;
	}
	plan->from = info->raid_disks;
	plan->to = a->to;
	plan->cache_from = plan->cache_to = info->stripe_cache;
	if (info->has_stripe_cache &&
	    grow_cache_needed(info->chunk_bytes) > info->stripe_cache)
		plan->cache_to = grow_cache_needed(info->chunk_bytes);
	return lookup_devices(ctx, a, plan);
}

/*---- Steps ----*/

static void step_failed(const struct grow_plan *plan, const char *what,
			const char *why)
{
	char state[1024];

	grow_state_after(plan, state, sizeof(state));
	warnx("%s: %s: %s; %s", plan->info->name, what, why, state);
}

/* Keeps the last line of what a program said. */
static void last_line(char *out)
{
	char *nl;

	trim_end(out);
	nl = strrchr(out, '\n');
	if (nl)
		memmove(out, nl + 1, strlen(nl + 1) + 1);
}

/* Reads fd to its end, keeping the last len - 1 bytes in out. */
static void read_tail(int fd, char *out, size_t len)
{
	size_t got = 0, cap = len - 1, k;
	char chunk[512];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		k = (size_t)n < cap ? (size_t)n : cap;
		if (got + k > cap) {	/* drop the oldest bytes */
			memmove(out, out + (got + k - cap), cap - k);
			got = cap - k;
		}
		memcpy(out + got, chunk + ((size_t)n - k), k);
		got += k;
	}
	out[got] = '\0';
}

/* The mdadm to run: RAIDCTL_MDADM, never the real one on a fake tree. */
static const char *mdadm_program(const struct rc_ctx *ctx)
{
	const char *mdadm = getenv(RC_MDADM_ENV);

	if (mdadm)
		return mdadm;
	return rc_ctx_fake(ctx) ? NULL : "mdadm";
}

/* Runs mdadm --manage ARRAY --add DEV; 0, or -1 with its last words in out. */
static int run_mdadm_add(const struct rc_ctx *ctx, const char *array,
			 const char *dev, char *out, size_t len)
{
	const char *mdadm = mdadm_program(ctx);
	int pfd[2], status;
	pid_t pid;

	if (!mdadm) {
		snprintf(out, len, "%s is set but %s is not", RC_ROOT_ENV,
			 RC_MDADM_ENV);
		return -1;
	}
	if (pipe(pfd) || (pid = fork()) < 0) {
		snprintf(out, len, "cannot run %s: %s", mdadm, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		execlp(mdadm, mdadm, "--manage", array, "--add", dev, (char *)NULL);
		fprintf(stderr, "%s is needed to write the member superblock "
			"and cannot be run: %s\n", mdadm, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	read_tail(pfd[0], out, len);
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0) {
		snprintf(out, len, "cannot wait for %s: %s", mdadm, strerror(errno));
		return -1;
	}
	last_line(out);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Arrays without a persistent superblock take a device by number. */
static int add_by_number(const struct rc_ctx *ctx, const char *array,
			 const struct blkdev *d, char *out, size_t len)
{
	char value[32];
	struct sysfs_err e;

	snprintf(value, sizeof(value), "%u:%u", d->major, d->minor);
	if (!sysfs_write(ctx, array, "md/new_dev", value, &e))
		return 0;
	sysfs_describe(&e, out, len);
	return -1;
}

/* No superblock: md takes a spare by device number, not through mdadm. */
static bool adds_by_number(const struct md_info *info)
{
	return !strcmp(info->metadata, "none");
}

static int add_spares(const struct rc_ctx *ctx, struct grow_plan *plan)
{
	const struct md_info *info = plan->info;
	char node[RC_PATH_MAX], why[1024], what[RC_PATH_MAX + 32];
	int r;

	blk_devnode(ctx, info->name, node, sizeof(node));
	for (; plan->added < plan->nadd; plan->added++) {
		const struct blkdev *d = &plan->add[plan->added];

		if (adds_by_number(info))
			r = add_by_number(ctx, info->name, d, why, sizeof(why));
		else
			r = run_mdadm_add(ctx, node, d->node, why, sizeof(why));
		if (r) {
			snprintf(what, sizeof(what), "cannot add %s as a spare",
				 d->node);
			step_failed(plan, what, why);
			return RC_FAIL;
		}
	}
	return RC_OK;
}

#define BUSY_TRIES 20
#define BUSY_WAIT_US 100000

/*
 * md answers EBUSY for a moment after a spare arrives, while its thread
 * looks for recovery work (md_check_recovery()); so EBUSY is tried again
 * for up to two seconds before it counts as a refusal.
 */
static int write_busy(const struct rc_ctx *ctx, const char *array,
		      const char *attr, const char *value, struct sysfs_err *e)
{
	int i, r = 0;

	for (i = 0; i < BUSY_TRIES; i++) {
		r = sysfs_write(ctx, array, attr, value, e);
		if (r != -EBUSY)
			break;
		usleep(BUSY_WAIT_US);
	}
	return r;
}

static int write_step(const struct rc_ctx *ctx, struct grow_plan *plan,
		      const char *attr, unsigned int value)
{
	char buf[32], what[128];
	struct sysfs_err e;

	snprintf(buf, sizeof(buf), "%u", value);
	if (!write_busy(ctx, plan->info->name, attr, buf, &e))
		return RC_OK;
	snprintf(what, sizeof(what), "cannot set %s to %s", attr, buf);
	step_failed(plan, what, grow_refusal(attr, e.errnum));
	return RC_FAIL;
}

static int start_reshape(const struct rc_ctx *ctx, struct grow_plan *plan)
{
	struct sysfs_err e, undo;
	char buf[32];

	if (!write_busy(ctx, plan->info->name, "md/sync_action", "reshape", &e))
		return RC_OK;
	/* Not started: take the new count back so the array is as it was. */
	snprintf(buf, sizeof(buf), "%u", plan->from);
	write_busy(ctx, plan->info->name, "md/raid_disks", buf, &undo);
	step_failed(plan, "cannot start the reshape (md/sync_action)",
		    grow_refusal("md/sync_action", e.errnum));
	return RC_FAIL;
}

int grow_run_steps(const struct rc_ctx *ctx, struct grow_plan *plan)
{
	int r = add_spares(ctx, plan);

	if (!r && plan->cache_to != plan->cache_from) {
		r = write_step(ctx, plan, "md/stripe_cache_size", plan->cache_to);
		plan->cache_raised = !r;
	}
	if (!r)
		r = write_step(ctx, plan, "md/raid_disks", plan->to);
	if (!r)
		r = start_reshape(ctx, plan);
	return r;
}

/*---- Reports ----*/

static void fs_hint(const struct rc_ctx *ctx, const struct md_info *info,
		    bool done)
{
	const char *target, *fstype;
	char node[RC_PATH_MAX], hint[RC_PATH_MAX + 64];
	struct mounts mnt;

	blk_devnode(ctx, info->name, node, sizeof(node));
	mounts_load(ctx, &mnt);
	if (mounts_find(&mnt, info->dev_major, info->dev_minor, 0, &target,
			&fstype)) {
		printf("%s the filesystem on %s, if there is one "
		       "(e.g. resize2fs %s).\n",
		       done ? "Now grow" : "When it is done, grow", node, node);
	} else {
		grow_fs_hint(fstype, node, target, hint, sizeof(hint));
		printf("%s is mounted on %s (%s): %s grow the filesystem with: "
		       "%s\n", node, target, fstype, done ? "now" : "when it is done,",
		       hint[0] ? hint : "the tool of that filesystem");
	}
	mounts_free(&mnt);
}

static void say_started(const struct rc_ctx *ctx, const struct grow_plan *plan,
			bool wait)
{
	const struct md_info *info = plan->info;
	unsigned int i;

	for (i = 0; i < plan->added; i++)
		printf("%s: added %s as a spare\n", info->name, plan->add[i].node);
	if (plan->cache_raised)
		printf("%s: stripe_cache_size raised from %u to %u\n",
		       info->name, plan->cache_from, plan->cache_to);
	printf("%s: reshape started: %u -> %u devices\n", info->name,
	       plan->from, plan->to);
	if (wait)
		return;
	printf("Follow it with: raidctl progress %s --follow\n", info->name);
	fs_hint(ctx, info, false);
}

static int wait_done(const struct rc_ctx *ctx, struct md_info *info)
{
	int r = array_reread(ctx, info);

	if (!r)
		r = follow_reshape(ctx, info, false);
	if (!r && reshape_state_of(info) == RS_DONE)
		fs_hint(ctx, info, true);
	return r;
}

/* --dry-run: the plan grow_run_steps() would carry out, in order. */
static void say_plan(const struct rc_ctx *ctx, const struct grow_plan *plan)
{
	const struct md_info *info = plan->info;
	char node[RC_PATH_MAX], from[32], to[32];
	unsigned int i, step = 1;

	blk_devnode(ctx, info->name, node, sizeof(node));
	format_size(info->size_sectors * 512, from, sizeof(from));
	format_size(info->component_kib * 1024 * data_disks(plan->to), to,
		    sizeof(to));
	printf("%s: dry run, nothing changed; every check passed\n",
	       info->name);
	printf("%s: would grow %u -> %u devices, size %s -> %s\n", info->name,
	       plan->from, plan->to, from, to);
	for (i = 0; i < plan->nadd; i++) {
		if (adds_by_number(info))
			printf("  %u. add %s: write %u:%u to md/new_dev\n",
			       step++, plan->add[i].node, plan->add[i].major,
			       plan->add[i].minor);
		else
			printf("  %u. mdadm --add %s %s\n", step++, node,
			       plan->add[i].node);
	}
	if (plan->cache_to != plan->cache_from)
		printf("  %u. md/stripe_cache_size: %u -> %u\n", step++,
		       plan->cache_from, plan->cache_to);
	printf("  %u. md/raid_disks: %u -> %u\n", step++, plan->from, plan->to);
	printf("  %u. md/sync_action: reshape\n", step);
}

int cmd_grow(struct rc_ctx *ctx, const struct rc_args *a)
{
	struct grow_plan *plan = calloc(1, sizeof(*plan));
	int r;

	if (!plan)
		err(RC_FAIL, "cannot allocate memory");
	r = array_open(ctx, a->array, &plan->info);
	if (!r)
		r = grow_plan_make(ctx, a, plan);
	if (!r && a->dry_run) {
		say_plan(ctx, plan);
		goto out;
	}
	if (!r)
		r = grow_run_steps(ctx, plan);
	if (!r)
		say_started(ctx, plan, a->wait);
	if (!r && a->wait)
		r = wait_done(ctx, plan->info);
out:
	free(plan->info);
	free(plan);
	return r;
}
