// SPDX-License-Identifier: GPL-2.0
/* Finding and reading the array a command names. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "mddev.h"

static int read_or_say(const struct rc_ctx *ctx, const char *name,
		       struct md_info *info)
{
	char why[512];
	struct md_err e;

	if (!md_info_read(ctx, name, info, &e))
		return RC_OK;
	md_err_describe(&e, why, sizeof(why));
	warnx("%s: %s", name, why);
	return RC_FAIL;
}

int array_open(const struct rc_ctx *ctx, const char *arg,
	       struct md_info **info)
{
	char name[RC_NAME_MAX];
	int r;

	*info = NULL;
	if (md_resolve(ctx, arg, name, sizeof(name))) {
		warnx("%s: no such md array", arg);
		return RC_NOT_FOUND;
	}
	*info = malloc(sizeof(**info));
	if (!*info)
		err(RC_FAIL, "%s", name);
	r = read_or_say(ctx, name, *info);
	if (r) {
		free(*info);
		*info = NULL;
	}
	return r;
}

int array_reread(const struct rc_ctx *ctx, struct md_info *info)
{
	char name[RC_NAME_MAX];

	snprintf(name, sizeof(name), "%s", info->name);
	return read_or_say(ctx, name, info);
}
