// SPDX-License-Identifier: GPL-2.0
/*
 * progress, and following a reshape.
 *
 * Following waits in poll() on sync_completed, which md notifies
 * (sysfs_notify) as the reshape checkpoints, starts, stops and ends.  The
 * notification is armed by reading the attribute, so it is re-read after
 * every wake-up.  A timeout still wakes us now and then so a terminal's
 * rate and ETA stay fresh.  Ctrl-C only stops following.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "printer.h"
#include "progress.h"
#include "show.h"

#define BAR_WIDTH 30
#define TTY_WAKE_MS 1000
#define LINE_WAKE_MS 5000
#define FAKE_WAKE_MS 100	/* plain files in a fake tree never notify */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGINT without SA_RESTART, so that poll() returns at once. */
static void catch_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

static void print_report(const struct md_info *info, const struct progress *pg,
			 bool json)
{
	struct printer p;

	pr_init(&p, stdout, json);
	pr_begin(&p);
	show_progress(&p, info, pg);
	pr_end(&p);
}

/* Plain lines only when something a reader cares about changed. */
static bool worth_a_line(const struct progress *pg, const struct progress *last)
{
	return pg->state != last->state ||
	       floor(pg->percent) != floor(last->percent);
}

static bool still_going(const struct progress *pg)
{
	return pg->state == RS_RUNNING || pg->state == RS_PAUSED;
}

/*
 * Sleeps until md notifies sync_completed, the timeout, or Ctrl-C.
 * Returns RC_OK, or RC_FAIL after printing why.
 */
static int wait_for_change(const struct md_info *info, int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLPRI | POLLERR };
	char buf[SYSFS_VALUE_MAX], why[512];
	struct sysfs_err e;

	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR) {
		warn("%s: cannot wait for md/sync_completed", info->name);
		return RC_FAIL;
	}
	if (sysfs_reread(fd, "md/sync_completed", buf, sizeof(buf), &e)) {
		sysfs_describe(&e, why, sizeof(why));
		warnx("%s: %s", info->name, why);
		return RC_FAIL;
	}
	return RC_OK;
}

/* A pause is said once each time it starts: nothing moves until resume. */
static void note_pause(const struct md_info *info, const struct progress *pg,
		       const struct progress *last, bool first, bool tty)
{
	if (pg->state != RS_PAUSED || (!first && last->state == RS_PAUSED))
		return;
	if (tty && !first) {
		putchar('\n');	/* off the bar's line */
		fflush(stdout);
	}
	warnx("%s: the reshape is paused; waiting until it is resumed "
	      "('raidctl resume %s')", info->name, info->name);
}

static void show_update(const struct md_info *info, const struct progress *pg,
			struct progress *last, bool tty, bool json, bool first)
{
	if (tty)
		show_progress_bar(stdout, info, pg, BAR_WIDTH);
	else if (first || worth_a_line(pg, last))
		print_report(info, pg, json);
	*last = *pg;
}

static int follow_loop(const struct rc_ctx *ctx, struct md_info *info,
		       int fd, bool tty, bool json)
{
	int wake_ms = rc_ctx_fake(ctx) ? FAKE_WAKE_MS
				       : tty ? TTY_WAKE_MS : LINE_WAKE_MS;
	struct progress pg, last;
	bool first = true;
	int r = RC_OK;

	memset(&last, 0, sizeof(last));
	for (;;) {
		progress_compute(info, &pg);
		if (!still_going(&pg))
			break;
		note_pause(info, &pg, &last, first, tty);
		show_update(info, &pg, &last, tty, json, first);
		first = false;
		r = wait_for_change(info, fd, wake_ms);
		if (!r && !interrupted)
			r = array_reread(ctx, info);
		if (r || interrupted)
			break;
	}
	if (tty && !first)
		putchar('\n');
	if (r)
		return r;
	if (interrupted) {
		warnx("%s: stopped following; the reshape goes on", info->name);
		return RC_INTERRUPTED;
	}
	print_report(info, &pg, json);
	return RC_OK;
}

int follow_reshape(const struct rc_ctx *ctx, struct md_info *info, bool json)
{
	bool tty = !json && isatty(STDOUT_FILENO);
	char why[512];
	struct sysfs_err e;
	int fd, r;

	fd = sysfs_open(ctx, info->name, "md/sync_completed", &e);
	if (fd < 0) {
		sysfs_describe(&e, why, sizeof(why));
		warnx("%s: %s", info->name, why);
		return RC_FAIL;
	}
	interrupted = 0;
	catch_sigint();
	r = follow_loop(ctx, info, fd, tty, json);
	signal(SIGINT, SIG_DFL);
	close(fd);
	return r;
}

int cmd_progress(struct rc_ctx *ctx, const struct rc_args *a)
{
	struct md_info *info;
	struct progress pg;
	int r = array_open(ctx, a->array, &info);

	if (r)
		return r;
	if (a->follow) {
		r = follow_reshape(ctx, info, a->json);
	} else {
		progress_compute(info, &pg);
		print_report(info, &pg, a->json);
	}
	free(info);
	return r;
}
