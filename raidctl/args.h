/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command table and argument checks.
 *
 * Each command names the options it takes (as data); one longopts[] serves
 * all of them.  Parsing never touches the system: it only checks the command
 * line, so every usage error is found before anything is read or changed.
 */
#ifndef RAIDCTL_ARGS_H
#define RAIDCTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "mdinfo.h"
#include "rc.h"

enum rc_opt {
	OPT_ADD = 1 << 0,
	OPT_FOLLOW = 1 << 1,
	OPT_JSON = 1 << 2,
	OPT_TO = 1 << 3,
	OPT_WAIT = 1 << 4,
	OPT_DRY_RUN = 1 << 5,
};

#define ADD_MAX 32

struct rc_args {
	const char *array;		/* NULL: none given */
	bool json, follow, wait, dry_run;
	bool has_to;
	unsigned int to;
	unsigned int nadd;
	char add[ADD_MAX][RC_PATH_MAX / 8];
};

struct rc_cmd {
	const char *name;
	int (*run)(struct rc_ctx *ctx, const struct rc_args *a);
	unsigned int opts;		/* enum rc_opt it accepts */
	bool array_optional;
	const char *synopsis;		/* after "raidctl NAME " */
	const char *help;		/* its options, one per line */
};

/* Full-word lookup in the table; NULL when unknown. */
const struct rc_cmd *cmd_find(const char *name);
const struct rc_cmd *cmd_table(size_t *n);

/*
 * Parses argv (argv[0] is the command name).  Returns 0, RC_USAGE with the
 * reason in msg, or -1 when --help was asked for.
 */
int args_parse(const struct rc_cmd *cmd, int argc, char **argv,
	       struct rc_args *a, char *msg, size_t len);

/* --to: the new member count, 2 to MD_MEMBERS_MAX; 0 or -EINVAL/-ERANGE. */
int parse_device_count(const char *s, unsigned int *n);
/* --add: "a,b" added to a->add; 0 or RC_USAGE with msg. */
int parse_add_list(const char *s, struct rc_args *a, char *msg, size_t len);

#endif
