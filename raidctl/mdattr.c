// SPDX-License-Identifier: GPL-2.0
/* Parsers for the value formats of md's sysfs attributes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdattr.h"
#include "util.h"

/* Splits "A<sep>B" at the first occurrence of sep; both sides non-empty. */
static int split_two(const char *s, const char *sep, char *a, char *b,
		     size_t len)
{
	const char *p = strstr(s, sep);
	size_t alen;

	if (!p)
		return -EINVAL;
	alen = (size_t)(p - s);
	if (alen == 0 || alen >= len || strlen(p + strlen(sep)) >= len)
		return -EINVAL;
	memcpy(a, s, alen);
	a[alen] = '\0';
	strcpy(b, p + strlen(sep));
	return b[0] ? 0 : -EINVAL;
}

int parse_sync_completed(const char *s, struct sync_completed *sc)
{
	char a[32], b[32];

	if (!strcmp(s, "none") || !*s) {
		*sc = (struct sync_completed){ .kind = SC_NONE };
		return 0;
	}
	if (!strcmp(s, "delayed")) {
		*sc = (struct sync_completed){ .kind = SC_DELAYED };
		return 0;
	}
	if (split_two(s, " / ", a, b, sizeof(a)) ||
	    parse_u64(a, &sc->done) || parse_u64(b, &sc->total))
		return -EINVAL;
	sc->kind = SC_RANGE;
	return 0;
}

int parse_u64_or_none(const char *s, bool *known, uint64_t *v)
{
	if (!strcmp(s, "none") || !*s) {
		*known = false;
		*v = 0;
		return 0;
	}
	*known = true;
	return parse_u64(s, v) ? -EINVAL : 0;
}

int parse_reshape_position(const char *s, bool *active, uint64_t *sector)
{
	return parse_u64_or_none(s, active, sector);
}

int parse_raid_disks(const char *s, unsigned int *disks, unsigned int *old)
{
	char a[32], b[32];
	size_t n;

	if (!*s) {	/* an inactive array prints nothing */
		*disks = *old = 0;
		return 0;
	}
	if (!strchr(s, ' ')) {
		if (parse_uint(s, disks))
			return -EINVAL;
		*old = *disks;
		return 0;
	}
	if (split_two(s, " (", a, b, sizeof(a)))
		return -EINVAL;
	n = strlen(b);
	if (n < 2 || b[n - 1] != ')')
		return -EINVAL;
	b[n - 1] = '\0';
	return parse_uint(a, disks) || parse_uint(b, old) ? -EINVAL : 0;
}

static const char *const action_names[] = {
	[SA_UNKNOWN] = "unknown", [SA_IDLE] = "idle", [SA_FROZEN] = "frozen",
	[SA_RESHAPE] = "reshape", [SA_RESYNC] = "resync",
	[SA_RECOVER] = "recover", [SA_CHECK] = "check", [SA_REPAIR] = "repair",
};

int parse_sync_action(const char *s, enum sync_action *a)
{
	size_t i;

	for (i = SA_IDLE; i < sizeof(action_names) / sizeof(action_names[0]); i++) {
		if (!strcmp(s, action_names[i])) {
			*a = (enum sync_action)i;
			return 0;
		}
	}
	*a = SA_UNKNOWN;
	return -EINVAL;
}

const char *sync_action_name(enum sync_action a)
{
	return action_names[a];
}

static const struct {
	const char *word;
	enum dev_flag flag;
} dev_flags[] = {
	{ "faulty", DEV_FAULTY },
	{ "in_sync", DEV_IN_SYNC },
	{ "spare", DEV_SPARE },
	{ "write_mostly", DEV_WRITE_MOSTLY },
	{ "blocked", DEV_BLOCKED },
	{ "journal", DEV_JOURNAL },
	{ "replacement", DEV_REPLACEMENT },
};

static unsigned int dev_flag_of(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(dev_flags) / sizeof(dev_flags[0]); i++) {
		if (strlen(dev_flags[i].word) == len &&
		    !strncmp(dev_flags[i].word, word, len))
			return dev_flags[i].flag;
	}
	return DEV_OTHER;
}

int parse_dev_state(const char *s, unsigned int *flags)
{
	*flags = 0;
	while (*s) {
		size_t len = strcspn(s, ",");

		if (len == 0)
			return -EINVAL;
		*flags |= dev_flag_of(s, len);
		s += len;
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	return 0;
}

const char *raid5_layout_name(unsigned int layout)
{
	static const char *const names[] = {
		"left-asymmetric", "right-asymmetric", "left-symmetric",
		"right-symmetric", "parity-first", "parity-last",
	};

	return layout < sizeof(names) / sizeof(names[0]) ? names[layout] : NULL;
}

bool array_state_writable(const char *state)
{
	return !strcmp(state, "clean") || !strcmp(state, "active") ||
	       !strcmp(state, "active-idle") || !strcmp(state, "write-pending");
}
