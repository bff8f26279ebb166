// SPDX-License-Identifier: GPL-2.0
/* Argument checks. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "util.h"

static const struct option longopts[] = {	/* alphabetical */
	{ "add", required_argument, NULL, 'a' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "follow", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, 'j' },
	{ "to", required_argument, NULL, 't' },
	{ "wait", no_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	int val;
	enum rc_opt opt;
} opt_bits[] = {
	{ 'a', OPT_ADD }, { 'f', OPT_FOLLOW }, { 'j', OPT_JSON }, { 'n', OPT_DRY_RUN },
	{ 't', OPT_TO }, { 'w', OPT_WAIT },
};

static const char *long_name(int val)
{
	const struct option *o;

	for (o = longopts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

static bool accepts(const struct rc_cmd *cmd, int val)
{
	size_t i;

	for (i = 0; i < sizeof(opt_bits) / sizeof(opt_bits[0]); i++)
		if (opt_bits[i].val == val)
			return cmd->opts & opt_bits[i].opt;
	return true;	/* --help */
}

int parse_device_count(const char *s, unsigned int *n)
{
	int r = parse_uint(s, n);

	if (r)
		return r;
	return *n < 2 || *n > MD_MEMBERS_MAX ? -ERANGE : 0;
}

static bool listed(const struct rc_args *a, const char *dev)
{
	unsigned int i;

	for (i = 0; i < a->nadd; i++)
		if (!strcmp(a->add[i], dev))
			return true;
	return false;
}

int parse_add_list(const char *s, struct rc_args *a, char *msg, size_t len)
{
	const char *list = s;

	for (;;) {
		size_t n = strcspn(s, ",");

		if (n == 0) {
			snprintf(msg, len, "--add: empty device name in '%s'", list);
			return RC_USAGE;
		}
		if (a->nadd == ADD_MAX || n >= sizeof(a->add[0])) {
			snprintf(msg, len, "--add: too many or too long device names");
			return RC_USAGE;
		}
		memcpy(a->add[a->nadd], s, n);
		a->add[a->nadd][n] = '\0';
		if (listed(a, a->add[a->nadd])) {
			snprintf(msg, len, "--add: %s is given twice", a->add[a->nadd]);
			return RC_USAGE;
		}
		a->nadd++;
		s += n;
		if (!*s++)
			return 0;
	}
}

static int parse_to(const char *s, struct rc_args *a, char *msg, size_t len)
{
	int r = parse_device_count(s, &a->to);

	if (r == -ERANGE)
		snprintf(msg, len, "--to: %s is out of range (2 to %d devices)",
			 s, MD_MEMBERS_MAX);
	else if (r)
		snprintf(msg, len, "--to: '%s' is not a number of devices", s);
	a->has_to = true;
	return r ? RC_USAGE : 0;
}

static int parse_option(const struct rc_cmd *cmd, int c, struct rc_args *a,
			char *msg, size_t len)
{
	if (!accepts(cmd, c)) {
		snprintf(msg, len, "option --%s does not apply to %s",
			 long_name(c), cmd->name);
		return RC_USAGE;
	}
	switch (c) {
	case 'a':
		return parse_add_list(optarg, a, msg, len);
	case 'f':
		a->follow = true;
		return 0;
	case 'h':
		return -1;
	case 'j':
		a->json = true;
		return 0;
	case 'n':
		a->dry_run = true;
		return 0;
	case 't':
		return parse_to(optarg, a, msg, len);
	case 'w':
		a->wait = true;
		return 0;
	}
	return RC_USAGE;
}

static int bad_option(int c, int argc, char **argv, char *msg, size_t len)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (c == ':')
		snprintf(msg, len, "option '%s' needs a value", arg);
	else if (optopt)
		snprintf(msg, len, "unknown option '-%c'", optopt);
	else
		snprintf(msg, len, "unknown option '%s'", arg);
	return RC_USAGE;
}

static int check_operands(const struct rc_cmd *cmd, int argc, char **argv,
			  struct rc_args *a, char *msg, size_t len)
{
	if (optind < argc)
		a->array = argv[optind++];
	if (optind < argc) {
		snprintf(msg, len, "unexpected argument '%s'", argv[optind]);
		return RC_USAGE;
	}
	if (!a->array && !cmd->array_optional) {
		snprintf(msg, len, "missing ARRAY");
		return RC_USAGE;
	}
	if (a->array && !*a->array) {
		snprintf(msg, len, "ARRAY is empty");
		return RC_USAGE;
	}
	if ((cmd->opts & OPT_TO) && !a->has_to) {
		snprintf(msg, len, "missing --to N");
		return RC_USAGE;
	}
	return 0;
}

int args_parse(const struct rc_cmd *cmd, int argc, char **argv,
	       struct rc_args *a, char *msg, size_t len)
{
	int c, r;

	memset(a, 0, sizeof(*a));
	optind = 0;	/* GNU: start over, permuting operands to the end */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:fhjnt:w", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argc, argv, msg, len);
		r = parse_option(cmd, c, a, msg, len);
		if (r)
			return r;
	}
	return check_operands(cmd, argc, argv, a, msg, len);
}
