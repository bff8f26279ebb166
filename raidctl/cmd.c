// SPDX-License-Identifier: GPL-2.0
/* The command table (as iproute2's ip.c), --help, --version, dispatch. */
#include <err.h>
#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

#ifndef RAIDCTL_VERSION
#define RAIDCTL_VERSION "unknown"
#endif

static int cmd_help(struct rc_ctx *ctx, const struct rc_args *a);

static const struct rc_cmd commands[] = {
	{ "grow", cmd_grow, OPT_ADD | OPT_TO | OPT_WAIT | OPT_DRY_RUN, false,
	  "ARRAY --to N [--add DEV[,DEV...]] [--wait] [--dry-run]",
	  " -t, --to N          the number of member devices after the grow\n"
	  " -a, --add DEV,...   add these devices as spares first (repeatable)\n"
	  " -w, --wait          stay until the reshape is done, showing progress\n"
	  " -n, --dry-run       run every check and show the steps; change nothing\n" },
	{ "pause", cmd_pause, 0, false, "ARRAY", "" },
	{ "resume", cmd_resume, 0, false, "ARRAY", "" },
	{ "progress", cmd_progress, OPT_FOLLOW | OPT_JSON, false,
	  "ARRAY [--follow] [--json]",
	  " -f, --follow        update until the reshape ends (Ctrl-C stops following)\n"
	  " -j, --json          print JSON (one object per line with --follow)\n" },
	{ "status", cmd_status, OPT_JSON, true, "[ARRAY] [--json]",
	  " -j, --json          print JSON\n" },
	{ "help", cmd_help, 0, true, "[COMMAND]", "" },
};

const struct rc_cmd *cmd_table(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct rc_cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	size_t i;

	fputs("Usage:\n", out);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, " raidctl %s %s\n", commands[i].name,
			commands[i].synopsis);
	fputs("\nGrow a live md RAID-5 array onto new disks, pause and resume the\n"
	      "reshape, follow its progress and show the state of md arrays.\n"
	      "ARRAY is md0, /dev/md0 or /dev/md/NAME.\n"
	      "\nOptions:\n"
	      " -h, --help          display this help\n"
	      " -V, --version       display version\n"
	      "\nRun 'raidctl help COMMAND' for a command's options.\n"
	      "For more details see raidctl(8).\n", out);
}

static void cmd_usage(const struct rc_cmd *cmd)
{
	printf("Usage:\n raidctl %s %s\n\nOptions:\n%s"
	       " -h, --help          display this help\n"
	       "\nFor more details see raidctl(8).\n",
	       cmd->name, cmd->synopsis, cmd->help);
}

/* raidctl help [COMMAND]: what --help prints, for the tool or a command. */
static int cmd_help(struct rc_ctx *ctx, const struct rc_args *a)
{
	const struct rc_cmd *cmd;

	(void)ctx;
	if (!a->array) {
		usage(stdout);
		return RC_OK;
	}
	cmd = cmd_find(a->array);
	if (!cmd) {
		warnx("help: unknown command '%s'", a->array);
		fputs("Try 'raidctl --help'.\n", stderr);
		return RC_USAGE;
	}
	cmd_usage(cmd);
	return RC_OK;
}

int rc_ctx_init(struct rc_ctx *ctx)
{
	const char *root = getenv(RC_ROOT_ENV);

	ctx->root = root ? root : "";
	ctx->udev = NULL;
	if (rc_ctx_fake(ctx))
		return 0;
	ctx->udev = udev_new();
	return ctx->udev ? 0 : -ENOMEM;
}

void rc_ctx_done(struct rc_ctx *ctx)
{
	if (ctx->udev)
		udev_unref(ctx->udev);
	ctx->udev = NULL;
}

static int run_command(const struct rc_cmd *cmd, int argc, char **argv)
{
	struct rc_args *a = calloc(1, sizeof(*a));
	struct rc_ctx ctx;
	char msg[256];
	int r;

	if (!a)
		err(RC_FAIL, "cannot allocate memory");
	r = args_parse(cmd, argc, argv, a, msg, sizeof(msg));
	if (r == -1) {
		cmd_usage(cmd);
		r = RC_OK;
	} else if (r) {
		warnx("%s: %s", cmd->name, msg);
		fprintf(stderr, "Try 'raidctl %s --help'.\n", cmd->name);
	} else if (rc_ctx_init(&ctx)) {
		warnx("cannot initialise libudev");
		r = RC_FAIL;
	} else {
		r = cmd->run(&ctx, a);
		rc_ctx_done(&ctx);
	}
	free(a);
	return r;
}

int rc_main(int argc, char **argv)
{
	const struct rc_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return RC_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return RC_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("raidctl %s\n", RAIDCTL_VERSION);
		return RC_OK;
	}
	if (argv[1][0] == '-') {
		warnx("unknown option '%s'; the command comes first", argv[1]);
		fputs("Try 'raidctl --help'.\n", stderr);
		return RC_USAGE;
	}
	cmd = cmd_find(argv[1]);
	if (!cmd) {
		warnx("unknown command '%s'", argv[1]);
		fputs("Try 'raidctl --help'.\n", stderr);
		return RC_USAGE;
	}
	return run_command(cmd, argc - 1, argv + 1);
}
