/* SPDX-License-Identifier: GPL-2.0 */
/* Strict number parsing and human-readable sizes and durations. */
#ifndef RAIDCTL_UTIL_H
#define RAIDCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decimal digits only, no sign, no spaces, no overflow: 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, uint64_t *v);
int parse_uint(const char *s, unsigned int *v);

/* "1.50G": three significant digits, IEC units (K = 1024). */
void format_size(uint64_t bytes, char *buf, size_t len);
/* "00:02:13", or "3 days 04:00:00" beyond a day. */
void format_duration(uint64_t secs, char *buf, size_t len);

/* Copies src into dst (always terminated); false if it had to cut. */
bool copy_str(char *dst, size_t len, const char *src);
/* Removes trailing newlines and spaces in place. */
void trim_end(char *s);

#endif
