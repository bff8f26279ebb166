/* SPDX-License-Identifier: GPL-2.0 */
/* A few macros for the C unit tests: count failures, say where. */
#ifndef RAIDCTL_CHECK_H
#define RAIDCTL_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: failed: %s\n",		\
				__FILE__, __LINE__, #cond);		\
			check_failures++;				\
		}							\
	} while (0)

#define CHECK_STR(got, want)						\
	do {								\
		const char *g_ = (got), *w_ = (want);			\
		if (strcmp(g_, w_)) {					\
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",	\
				__FILE__, __LINE__, g_, w_);		\
			check_failures++;				\
		}							\
	} while (0)

#define CHECK_DONE()							\
	do {								\
		if (check_failures)					\
			fprintf(stderr, "%d check(s) failed\n",		\
				check_failures);			\
		return check_failures ? 1 : 0;				\
	} while (0)

#endif
