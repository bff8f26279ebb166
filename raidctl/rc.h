/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidctl library: what every module shares.
 *
 * The library holds all of raidctl's logic (argument checks, sysfs access
 * and parsing, progress math, output); main.c only calls rc_main().  The
 * context carries the root directory that tests point at a fake sysfs tree
 * (RAIDCTL_SYSFS_ROOT) and the libudev handle used on a real system.
 */
#ifndef RAIDCTL_RC_H
#define RAIDCTL_RC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes, listed under EXIT STATUS in raidctl(8). */
enum rc_exit {
	RC_OK = 0,		/* success */
	RC_FAIL = 1,		/* the operation failed */
	RC_USAGE = 2,		/* bad command line */
	RC_NOT_FOUND = 3,	/* no such array (or device for --add) */
	RC_REFUSED = 4,		/* refused because of the array's state */
	RC_INTERRUPTED = 130,	/* Ctrl-C stopped --follow/--wait (128 + SIGINT) */
};

#define RC_ROOT_ENV	"RAIDCTL_SYSFS_ROOT"
#define RC_MDADM_ENV	"RAIDCTL_MDADM"
#define RC_NAME_MAX	64
#define RC_PATH_MAX	4096

struct udev;

struct rc_ctx {
	const char *root;	/* "" normally; a fake tree in unit tests */
	struct udev *udev;	/* NULL when root is a fake tree */
};

/* Sets up the context from the environment; returns 0 or -errno. */
int rc_ctx_init(struct rc_ctx *ctx);
void rc_ctx_done(struct rc_ctx *ctx);
static inline bool rc_ctx_fake(const struct rc_ctx *ctx)
{
	return ctx->root[0] != '\0';
}

/* The tool's entry point: dispatches argv[1] through the command table. */
int rc_main(int argc, char **argv);

#endif
