// SPDX-License-Identifier: GPL-2.0
/* The command table and every argument check. */
#include <errno.h>

#include "args.h"
#include "check.h"

struct arg_case {
	const char *cmd;
	const char *argv[8];
	int rc;
	const char *msg;	/* for rc == RC_USAGE */
};

static const struct arg_case cases[] = {
	{ "grow", { "md0", "--to", "6" }, 0, NULL },
	{ "grow", { "--to=6", "md0", "--add", "/dev/a,/dev/b", "-a", "/dev/c", "-w" }, 0, NULL },
	{ "grow", { "-t", "4", "/dev/md/data" }, 0, NULL },
	{ "grow", { "md0", "--help" }, -1, NULL },
	{ "grow", { "md0" }, RC_USAGE, "missing --to N" },
	{ "grow", { "--to", "4" }, RC_USAGE, "missing ARRAY" },
	{ "grow", { "", "--to", "4" }, RC_USAGE, "ARRAY is empty" },
	{ "grow", { "md0", "--to", "six" }, RC_USAGE, "--to: 'six' is not a number of devices" },
	{ "grow", { "md0", "--to", "6x" }, RC_USAGE, "--to: '6x' is not a number of devices" },
	{ "grow", { "md0", "--to", "-1" }, RC_USAGE, "--to: '-1' is not a number of devices" },
	{ "grow", { "md0", "--to", " 6" }, RC_USAGE, "--to: ' 6' is not a number of devices" },
	{ "grow", { "md0", "--to", "" }, RC_USAGE, "--to: '' is not a number of devices" },
	{ "grow", { "md0", "--to", "1" }, RC_USAGE, "--to: 1 is out of range (2 to 128 devices)" },
	{ "grow", { "md0", "--to", "129" }, RC_USAGE, "--to: 129 is out of range (2 to 128 devices)" },
	{ "grow", { "md0", "--to", "4294967296" }, RC_USAGE, "--to: 4294967296 is out of range (2 to 128 devices)" },
	{ "grow", { "md0", "--to" }, RC_USAGE, "option '--to' needs a value" },
	{ "grow", { "md0", "-t" }, RC_USAGE, "option '-t' needs a value" },
	{ "grow", { "md0", "--to", "4", "--add", "" }, RC_USAGE, "--add: empty device name in ''" },
	{ "grow", { "md0", "--to", "4", "--add", ",/dev/a" }, RC_USAGE, "--add: empty device name in ',/dev/a'" },
	{ "grow", { "md0", "--to", "4", "--add", "/dev/a," }, RC_USAGE, "--add: empty device name in '/dev/a,'" },
	{ "grow", { "md0", "--to", "4", "--add", "/dev/a,/dev/a" }, RC_USAGE, "--add: /dev/a is given twice" },
	{ "grow", { "md0", "--to", "4", "--json" }, RC_USAGE, "option --json does not apply to grow" },
	{ "grow", { "md0", "--to", "4", "-f" }, RC_USAGE, "option --follow does not apply to grow" },
	{ "grow", { "md0", "md1", "--to", "4" }, RC_USAGE, "unexpected argument 'md1'" },
	{ "grow", { "md0", "--to", "4", "--bogus" }, RC_USAGE, "unknown option '--bogus'" },
	{ "grow", { "md0", "-x" }, RC_USAGE, "unknown option '-x'" },
	{ "grow", { "md0", "--t", "4" }, 0, NULL },	/* getopt: unique abbreviation */
	{ "pause", { "md0" }, 0, NULL },
	{ "pause", { }, RC_USAGE, "missing ARRAY" },
	{ "pause", { "md0", "--wait" }, RC_USAGE, "option --wait does not apply to pause" },
	{ "resume", { "md0", "--to", "3" }, RC_USAGE, "option --to does not apply to resume" },
	{ "progress", { "md0", "--follow", "--json" }, 0, NULL },
	{ "progress", { "md0", "--add", "/dev/a" }, RC_USAGE, "option --add does not apply to progress" },
	{ "status", { }, 0, NULL },
	{ "status", { "--json" }, 0, NULL },
	{ "status", { "md0", "md1" }, RC_USAGE, "unexpected argument 'md1'" },
	{ "status", { "--follow" }, RC_USAGE, "option --follow does not apply to status" },
};

static void test_case(const struct arg_case *c)
{
	const struct rc_cmd *cmd = cmd_find(c->cmd);
	char *argv[10] = { (char *)c->cmd };
	static struct rc_args a;
	char msg[256] = "";
	int argc = 1, r;

	while (c->argv[argc - 1])
		argv[argc] = (char *)c->argv[argc - 1], argc++;
	r = args_parse(cmd, argc, argv, &a, msg, sizeof(msg));
	if (r != c->rc)
		fprintf(stderr, "%s %s...: rc %d, want %d (%s)\n", c->cmd,
			c->argv[0] ? c->argv[0] : "", r, c->rc, msg);
	CHECK(r == c->rc);
	if (c->msg)
		CHECK_STR(msg, c->msg);
}

static void test_values(void)
{
	char *argv[] = { "grow", "--to=6", "md0", "--add", "/dev/a,/dev/b",
			 "-a", "/dev/c", "-w", NULL };
	static struct rc_args a;
	char msg[256];

	CHECK(args_parse(cmd_find("grow"), 8, argv, &a, msg, sizeof(msg)) == 0);
	CHECK_STR(a.array, "md0");
	CHECK(a.has_to && a.to == 6 && a.wait && !a.json && !a.follow);
	CHECK(a.nadd == 3);
	CHECK_STR(a.add[0], "/dev/a");
	CHECK_STR(a.add[1], "/dev/b");
	CHECK_STR(a.add[2], "/dev/c");
}

static void test_table(void)
{
	static const char *const names[] = {
		"grow", "pause", "resume", "progress", "status", "help",
	};
	size_t i, n;
	const struct rc_cmd *t = cmd_table(&n);

	CHECK(n == sizeof(names) / sizeof(names[0]));
	for (i = 0; i < n && i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_STR(t[i].name, names[i]);
		CHECK(cmd_find(names[i]) == &t[i]);
	}
	CHECK(cmd_find("gro") == NULL);		/* full words only */
	CHECK(cmd_find("g") == NULL);
	CHECK(cmd_find("grows") == NULL);
	CHECK(cmd_find("GROW") == NULL);
	CHECK(cmd_find("") == NULL);
}

static void test_device_count(void)
{
	unsigned int n;

	CHECK(parse_device_count("2", &n) == 0 && n == 2);
	CHECK(parse_device_count("128", &n) == 0 && n == 128);
	CHECK(parse_device_count("1", &n) == -ERANGE);
	CHECK(parse_device_count("0", &n) == -ERANGE);
	CHECK(parse_device_count("06", &n) == 0 && n == 6);
	CHECK(parse_device_count("6.0", &n) == -EINVAL);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_case(&cases[i]);
	test_values();
	test_table();
	test_device_count();
	CHECK_DONE();
}
