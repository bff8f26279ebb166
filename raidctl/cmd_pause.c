// SPDX-License-Identifier: GPL-2.0
/*
 * pause and resume: sync_action "frozen" stops a running reshape where it
 * is; "idle" lifts the freeze and md restarts the reshape from
 * reshape_position (md.c action_store(), md_check_recovery()).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "progress.h"

static int set_action(const struct rc_ctx *ctx, const struct md_info *info,
		      const char *action)
{
	char why[512];
	struct sysfs_err e;

	if (!sysfs_write(ctx, info->name, "md/sync_action", action, &e))
		return RC_OK;
	sysfs_describe(&e, why, sizeof(why));
	warnx("%s: %s; the reshape was not changed", info->name, why);
	return RC_FAIL;
}

static void say_where(const struct md_info *info, const char *what)
{
	struct progress pg;

	progress_compute(info, &pg);
	if (pg.has_position)
		printf("%s: reshape %s at %.2f%%\n", info->name, what,
		       pg.percent);
	else
		printf("%s: reshape %s\n", info->name, what);
}

/* Refusals shared by pause and resume; RC_OK when the state fits. */
static int check_state(const struct md_info *info, enum reshape_state want,
		       const char *verb)
{
	enum reshape_state s = reshape_state_of(info);

	if (s == want)
		return RC_OK;
	if (s == RS_RUNNING)
		warnx("%s: the reshape is running, not paused", info->name);
	else if (s == RS_PAUSED)
		warnx("%s: the reshape is already paused", info->name);
	else if (info->has_sync && info->action != SA_IDLE)
		warnx("%s: no reshape to %s (sync_action is %s)", info->name,
		      verb, md_action_text(info));
	else
		warnx("%s: no reshape to %s", info->name, verb);
	return RC_REFUSED;
}

static int pause_or_resume(struct rc_ctx *ctx, const struct rc_args *a,
			   bool pause)
{
	struct md_info *info;
	int r = array_open(ctx, a->array, &info);

	if (r)
		return r;
	r = check_state(info, pause ? RS_RUNNING : RS_PAUSED,
			pause ? "pause" : "resume");
	if (!r)
		r = set_action(ctx, info, pause ? "frozen" : "idle");
	/*
	 * A pause reports where the reshape was when it stopped: afterwards
	 * md only shows its last checkpoint.  A resume reports where md
	 * takes it up.
	 */
	if (!r && (pause || !array_reread(ctx, info)))
		say_where(info, pause ? "paused" : "resumed");
	free(info);
	return r;
}

int cmd_pause(struct rc_ctx *ctx, const struct rc_args *a)
{
	return pause_or_resume(ctx, a, true);
}

int cmd_resume(struct rc_ctx *ctx, const struct rc_args *a)
{
	return pause_or_resume(ctx, a, false);
}
