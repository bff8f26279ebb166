// SPDX-License-Identifier: GPL-2.0
/*
 * Counters, a log-linear latency histogram (16 steps per power of two, so
 * within 6%), and the one-line summary that tests log.
 */
#include <stdio.h>

#include "iover.h"

static unsigned int hist_bucket(uint64_t v)
{
	unsigned int msb, shift;

	if (v < HIST_SUB)
		return v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - 4;
	return (shift + 1) * HIST_SUB + ((v >> shift) & (HIST_SUB - 1));
}

/* The largest value that falls in bucket b. */
static uint64_t hist_value(unsigned int b)
{
	unsigned int shift;

	if (b < HIST_SUB)
		return b;
	shift = b / HIST_SUB - 1;
	return ((uint64_t)(HIST_SUB + b % HIST_SUB + 1) << shift) - 1;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->count[hist_bucket(ns)]++;
	h->n++;
	if (ns > h->max)
		h->max = ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->n += src->n;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_pct(const struct hist *h, double pct)
{
	uint64_t want = (uint64_t)(h->n * pct / 100.0);
	uint64_t seen = 0;
	unsigned int i;

	if (!h->n)
		return 0;
	if (want >= h->n)
		want = h->n - 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen > want)
			return hist_value(i) < h->max ? hist_value(i) : h->max;
	}
	return h->max;
}

void stats_add(struct stats *dst, const struct stats *src)
{
	dst->written += src->written;
	dst->read += src->read;
	dst->verified += src->verified;
	dst->wops += src->wops;
	dst->rops += src->rops;
	dst->mismatches += src->mismatches;
	dst->ioerrs += src->ioerrs;
	dst->unknown += src->unknown;
	dst->resolved_old += src->resolved_old;
	dst->resolved_new += src->resolved_new;
	dst->torn += src->torn;
}

static double mbps(uint64_t bytes, double secs)
{
	return secs > 0 ? bytes / secs / 1e6 : 0;
}

void stats_summary(const char *cmd, const struct stats *s, double secs,
		   const struct hist *lat)
{
	printf("iover %s: written=%llu read=%llu verified=%llu wops=%llu rops=%llu secs=%.2f write_MBps=%.1f read_MBps=%.1f mismatches=%llu ioerrors=%llu unknown=%llu",
	       cmd, (unsigned long long)s->written,
	       (unsigned long long)s->read, (unsigned long long)s->verified,
	       (unsigned long long)s->wops, (unsigned long long)s->rops,
	       secs, mbps(s->written, secs), mbps(s->read, secs),
	       (unsigned long long)s->mismatches,
	       (unsigned long long)s->ioerrs, (unsigned long long)s->unknown);
	if (s->resolved_old || s->resolved_new || s->torn)
		printf(" pending_old=%llu pending_new=%llu torn=%llu",
		       (unsigned long long)s->resolved_old,
		       (unsigned long long)s->resolved_new,
		       (unsigned long long)s->torn);
	if (lat && lat->n)
		printf(" wlat_p50_us=%.1f wlat_p99_us=%.1f wlat_max_us=%.1f",
		       hist_pct(lat, 50) / 1e3, hist_pct(lat, 99) / 1e3,
		       lat->max / 1e3);
	printf("\n");
	fflush(stdout);
}

int stats_exit(const struct stats *s)
{
	if (s->mismatches)
		return EXIT_MISMATCH;
	if (s->ioerrs)
		return EXIT_IOERR;
	return EXIT_OK;
}
