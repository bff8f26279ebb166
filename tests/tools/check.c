// SPDX-License-Identifier: GPL-2.0
/*
 * Checking data read back against the model, and reporting the first
 * mismatches with what the data actually is.  Sectors in the pattern are
 * absolute device sectors, so data moved to another place is recognised as
 * misplaced, not just as wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iover.h"

struct reporter report = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.max_report = 10,
};

static uint64_t abs_sector(const struct model *m, uint64_t sector)
{
	return (m->offset >> SECTOR_SHIFT) + sector;
}

/*
 * Consecutive bad sectors found by one thread make one report line: the
 * first sector described, and the count.  Lines are cut at the end of each
 * chunk or read (report_flush) and at --max-report.
 */
static __thread struct {
	bool active;
	uint64_t first, n;	/* absolute sectors */
	char text[400];
} run;

void report_flush(void)
{
	if (!run.active)
		return;
	run.active = false;
	pthread_mutex_lock(&report.lock);
	if (report.reported < report.max_report) {
		if (run.n == 1)
			fprintf(stderr, "iover: mismatch at byte %llu (sector %llu): %s\n",
				(unsigned long long)(run.first << SECTOR_SHIFT),
				(unsigned long long)run.first, run.text);
		else
			fprintf(stderr, "iover: mismatch at byte %llu (sector %llu), %llu sectors: %s (first sector)\n",
				(unsigned long long)(run.first << SECTOR_SHIFT),
				(unsigned long long)run.first,
				(unsigned long long)run.n, run.text);
	} else if (report.reported == report.max_report) {
		fprintf(stderr, "iover: further mismatches not shown\n");
	}
	report.reported++;
	pthread_mutex_unlock(&report.lock);
}

void report_mismatch(const struct model *m, uint64_t sector, const void *buf,
		     uint32_t want, const char *expect)
{
	uint64_t abs = abs_sector(m, sector);
	char what[256];

	if (run.active && abs == run.first + run.n) {
		run.n++;
		return;
	}
	report_flush();
	pattern_describe(m->seed, abs, want, buf, what, sizeof(what));
	snprintf(run.text, sizeof(run.text), "expected %s, found %s", expect,
		 what);
	run.first = abs;
	run.n = 1;
	run.active = true;
}

/* I/O errors: the first --max-report are shown, as mismatches are. */
void report_ioerr(const char *what, const char *path, uint64_t off,
		  size_t len, int err)
{
	static uint64_t shown;

	pthread_mutex_lock(&report.lock);
	if (shown < report.max_report)
		fprintf(stderr, "iover: %s %s at byte %llu, %zu bytes: %s\n",
			what, path, (unsigned long long)off, len,
			strerror(err));
	else if (shown == report.max_report)
		fprintf(stderr, "iover: further I/O errors not shown\n");
	shown++;
	pthread_mutex_unlock(&report.lock);
}

/*
 * Check bytes [from, from + len) of a sector against the model; buf holds
 * just those bytes.  Returns false on a mismatch (already counted and
 * reported).
 */
bool check_sector(const struct model *m, uint64_t sector, const void *buf,
		  unsigned int from, unsigned int len, struct stats *st)
{
	uint32_t gen = m->gen[sector];
	unsigned char whole[SECTOR_SIZE];
	char expect[48];

	if (!gen) {
		st->unknown++;
		return true;
	}
	if (pattern_match_part(m->seed, abs_sector(m, sector), gen, buf,
			       from, len))
		return true;
	st->mismatches++;
	snprintf(expect, sizeof(expect), "gen %u", gen);
	if (from == 0 && len == SECTOR_SIZE) {
		report_mismatch(m, sector, buf, gen, expect);
		return false;
	}
	/* Describe a partial sector with the expected bytes around it. */
	pattern_fill(m->seed, abs_sector(m, sector), gen, whole);
	memcpy(whole + from, buf, len);
	report_mismatch(m, sector, whole, gen, expect);
	return false;
}

/* Every byte comes from one of the candidates: a torn buffered write. */
static bool torn_match(const struct model *m, uint64_t abs,
		       const unsigned char *buf, const struct cand *c)
{
	unsigned char want[MAX_CAND][SECTOR_SIZE];
	unsigned int i, k;

	for (k = 0; k < c->n; k++)
		pattern_fill(m->seed, abs, c->gen[k], want[k]);
	for (i = 0; i < SECTOR_SIZE; i++) {
		for (k = 0; k < c->n; k++)
			if (buf[i] == want[k][i])
				break;
		if (k == c->n)
			return false;
	}
	return true;
}

static void cand_text(const struct cand *c, char *out, size_t len)
{
	size_t used = 0;
	unsigned int k;

	for (k = 0; k < c->n && used < len; k++)
		used += snprintf(out + used, len - used, "%sgen %u",
				 k ? " or " : "", c->gen[k]);
}

/*
 * Check a whole sector against candidates, oldest first.  Returns the index
 * of the gen it holds, -1 for a torn mix of them (accepted when
 * c->torn_ok), -2 on a mismatch (counted and reported).  A candidate gen 0
 * (unknown) accepts anything.
 */
int check_cand(const struct model *m, uint64_t sector, const void *buf,
	       const struct cand *c, struct stats *st)
{
	uint64_t abs = abs_sector(m, sector);
	char expect[160];
	unsigned int k;

	for (k = c->n; k-- > 0;) {
		if (!c->gen[k]) {
			st->unknown++;
			return k;
		}
		if (pattern_match(m->seed, abs, c->gen[k], buf))
			return k;
	}
	if (c->torn_ok && torn_match(m, abs, buf, c)) {
		st->torn++;
		return -1;
	}
	st->mismatches++;
	cand_text(c, expect, sizeof(expect));
	report_mismatch(m, sector, buf, c->gen[c->n - 1], expect);
	return -2;
}
