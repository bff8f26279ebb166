/* SPDX-License-Identifier: GPL-2.0 */
/* The commands, and what they share. */
#ifndef RAIDCTL_CMDS_H
#define RAIDCTL_CMDS_H

#include "args.h"
#include "mdinfo.h"
#include "rc.h"

int cmd_grow(struct rc_ctx *ctx, const struct rc_args *a);
int cmd_pause(struct rc_ctx *ctx, const struct rc_args *a);
int cmd_resume(struct rc_ctx *ctx, const struct rc_args *a);
int cmd_progress(struct rc_ctx *ctx, const struct rc_args *a);
int cmd_status(struct rc_ctx *ctx, const struct rc_args *a);

/*
 * Resolves ARRAY and reads it into *info (allocated; free() it).
 * Returns RC_OK, or RC_NOT_FOUND / RC_FAIL after printing why.
 */
int array_open(const struct rc_ctx *ctx, const char *arg,
	       struct md_info **info);
/* Re-reads an array already found; RC_OK or RC_FAIL after printing why. */
int array_reread(const struct rc_ctx *ctx, struct md_info *info);

/*
 * Follows a reshape until it ends (or Ctrl-C): a bar on a terminal, plain
 * lines (or JSON lines) otherwise.  Returns an exit code.
 */
int follow_reshape(const struct rc_ctx *ctx, struct md_info *info, bool json);

#endif
