// SPDX-License-Identifier: GPL-2.0
/* Parsing of every value format md's attributes use, and number helpers. */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "mdattr.h"
#include "util.h"

static void test_sync_completed(void)
{
	static const char *const bad[] = {
		"12/40", "12 / ", " / 40", "a / b", "1 / 2 / 3", "-1 / 2",
		"18446744073709551616 / 1", "12  / 40", "Delayed", "nonee",
	};
	struct sync_completed sc;
	size_t i;

	CHECK(parse_sync_completed("none", &sc) == 0 && sc.kind == SC_NONE);
	CHECK(parse_sync_completed("", &sc) == 0 && sc.kind == SC_NONE);
	CHECK(parse_sync_completed("delayed", &sc) == 0 && sc.kind == SC_DELAYED);
	CHECK(parse_sync_completed("32256 / 129024", &sc) == 0);
	CHECK(sc.kind == SC_RANGE && sc.done == 32256 && sc.total == 129024);
	CHECK(parse_sync_completed("0 / 0", &sc) == 0 && sc.total == 0);
	CHECK(parse_sync_completed("18446744073709551615 / 1", &sc) == 0 &&
	      sc.done == UINT64_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_sync_completed(bad[i], &sc) == -EINVAL);
}

static void test_reshape_position(void)
{
	uint64_t s;
	bool on;

	CHECK(parse_reshape_position("none", &on, &s) == 0 && !on);
	CHECK(parse_reshape_position("0", &on, &s) == 0 && on && s == 0);
	CHECK(parse_reshape_position("161280", &on, &s) == 0 && s == 161280);
	CHECK(parse_reshape_position("12a", &on, &s) == -EINVAL);
	CHECK(parse_reshape_position("-5", &on, &s) == -EINVAL);
	CHECK(parse_reshape_position(" 5", &on, &s) == -EINVAL);
}

static void test_raid_disks(void)
{
	static const char *const bad[] = {
		"6 (", "6 (x)", "(3)", "6  (3)", "6 (3", "6 3", "x", "6 ()",
		"6 (3) ", "-6",
	};
	unsigned int n, old;
	size_t i;

	CHECK(parse_raid_disks("3", &n, &old) == 0 && n == 3 && old == 3);
	CHECK(parse_raid_disks("6 (3)", &n, &old) == 0 && n == 6 && old == 3);
	CHECK(parse_raid_disks("4 (5)", &n, &old) == 0 && n == 4 && old == 5);
	CHECK(parse_raid_disks("", &n, &old) == 0 && n == 0 && old == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_raid_disks(bad[i], &n, &old) == -EINVAL);
}

static void test_sync_action(void)
{
	static const char *const words[] = {
		"idle", "frozen", "reshape", "resync", "recover", "check", "repair",
	};
	enum sync_action a;
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		CHECK(parse_sync_action(words[i], &a) == 0);
		CHECK_STR(sync_action_name(a), words[i]);
	}
	CHECK(parse_sync_action("rebuild", &a) == -EINVAL && a == SA_UNKNOWN);
	CHECK(parse_sync_action("", &a) == -EINVAL);
	CHECK(parse_sync_action("idle ", &a) == -EINVAL);
}

static void test_dev_state(void)
{
	unsigned int f;

	CHECK(parse_dev_state("in_sync", &f) == 0 && f == DEV_IN_SYNC);
	CHECK(parse_dev_state("spare", &f) == 0 && f == DEV_SPARE);
	CHECK(parse_dev_state("faulty,in_sync,write_mostly", &f) == 0 &&
	      f == (DEV_FAULTY | DEV_IN_SYNC | DEV_WRITE_MOSTLY));
	CHECK(parse_dev_state("in_sync,want_replacement", &f) == 0 &&
	      f == (DEV_IN_SYNC | DEV_OTHER));
	CHECK(parse_dev_state("blocked,journal,replacement", &f) == 0 &&
	      f == (DEV_BLOCKED | DEV_JOURNAL | DEV_REPLACEMENT));
	CHECK(parse_dev_state("", &f) == 0 && f == 0);
	CHECK(parse_dev_state("in_sync,,spare", &f) == -EINVAL);
	CHECK(parse_dev_state("in_sync,", &f) == -EINVAL);
	CHECK(parse_dev_state(",spare", &f) == -EINVAL);
}

static void test_u64_or_none(void)
{
	uint64_t v;
	bool known;

	CHECK(parse_u64_or_none("none", &known, &v) == 0 && !known);
	CHECK(parse_u64_or_none("2048", &known, &v) == 0 && known && v == 2048);
	CHECK(parse_u64_or_none("2048K", &known, &v) == -EINVAL);
}

static void test_layout_and_state(void)
{
	CHECK_STR(raid5_layout_name(0), "left-asymmetric");
	CHECK_STR(raid5_layout_name(2), "left-symmetric");
	CHECK_STR(raid5_layout_name(5), "parity-last");
	CHECK(raid5_layout_name(6) == NULL);
	CHECK(array_state_writable("clean") && array_state_writable("active"));
	CHECK(array_state_writable("active-idle"));
	CHECK(array_state_writable("write-pending"));
	CHECK(!array_state_writable("readonly") && !array_state_writable("read-auto"));
	CHECK(!array_state_writable("inactive") && !array_state_writable("clear"));
	CHECK(!array_state_writable("suspended") && !array_state_writable(""));
}

static void test_numbers(void)
{
	unsigned int u;
	uint64_t v;

	CHECK(parse_u64("0", &v) == 0 && v == 0);
	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_u64("", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL);
	CHECK(parse_u64("1 ", &v) == -EINVAL && parse_u64("0x10", &v) == -EINVAL);
	CHECK(parse_uint("4294967295", &u) == 0 && u == 4294967295u);
	CHECK(parse_uint("4294967296", &u) == -ERANGE);
}

static void test_formats(void)
{
	char buf[64];
	char s[8];

	format_size(0, buf, sizeof(buf));
	CHECK_STR(buf, "0B");
	format_size(1023, buf, sizeof(buf));
	CHECK_STR(buf, "1023B");
	format_size(1536, buf, sizeof(buf));
	CHECK_STR(buf, "1.50K");
	format_size(82575360, buf, sizeof(buf));
	CHECK_STR(buf, "78.8M");
	format_size(330301440, buf, sizeof(buf));
	CHECK_STR(buf, "315M");
	format_size(UINT64_MAX, buf, sizeof(buf));
	CHECK_STR(buf, "16.0E");
	format_duration(0, buf, sizeof(buf));
	CHECK_STR(buf, "00:00:00");
	format_duration(3723, buf, sizeof(buf));
	CHECK_STR(buf, "01:02:03");
	format_duration(2 * 86400 + 61, buf, sizeof(buf));
	CHECK_STR(buf, "2 days 00:01:01");
	CHECK(copy_str(s, sizeof(s), "1234567") && !copy_str(s, sizeof(s), "12345678"));
	CHECK_STR(s, "1234567");
	copy_str(buf, sizeof(buf), "value \n\n");
	trim_end(buf);
	CHECK_STR(buf, "value");
}

int main(void)
{
	test_sync_completed();
	test_reshape_position();
	test_raid_disks();
	test_sync_action();
	test_dev_state();
	test_u64_or_none();
	test_layout_and_state();
	test_numbers();
	test_formats();
	CHECK_DONE();
}
