// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing and human-readable sizes and durations. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

int parse_u64(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		d = (unsigned int)(*s - '0');
		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int parse_uint(const char *s, unsigned int *v)
{
	uint64_t n;
	int r = parse_u64(s, &n);

	if (r)
		return r;
	if (n > UINT_MAX)
		return -ERANGE;
	*v = (unsigned int)n;
	return 0;
}

void format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024.0 && units[u + 1]) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 "B", bytes);
	else if (v < 10.0)
		snprintf(buf, len, "%.2f%c", v, units[u]);
	else if (v < 100.0)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

void format_duration(uint64_t secs, char *buf, size_t len)
{
	uint64_t days = secs / 86400;
	unsigned int h = (unsigned int)(secs % 86400 / 3600);
	unsigned int m = (unsigned int)(secs % 3600 / 60);
	unsigned int s = (unsigned int)(secs % 60);

	if (days)
		snprintf(buf, len, "%" PRIu64 " days %02u:%02u:%02u",
			 days, h, m, s);
	else
		snprintf(buf, len, "%02u:%02u:%02u", h, m, s);
}

bool copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len) {
		memcpy(dst, src, len - 1);
		dst[len - 1] = '\0';
		return false;
	}
	memcpy(dst, src, n + 1);
	return true;
}

void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}
