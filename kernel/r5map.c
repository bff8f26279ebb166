// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow geometry: where array sectors live on the members, and the
 * arithmetic of a grow. Pure functions of their arguments: no locks, no
 * state, no cursors (the callers pass C, P and D in). r5map_kunit.c
 * checks them against tables worked out from md(4)'s definitions.
 *
 * Sectors are 512 bytes, c is the chunk, od/nd the data-member counts of
 * the old and new geometry. A row is one chunk on every member: row r
 * of geometry g holds array sectors [r * c * dd, (r + 1) * c * dd) with
 * dd = g->data_disks, at member sectors [r * c, (r + 1) * c).
 */
#include <linux/gcd.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include "r5grow.h"

/* Parity member of row @row. */
int r5g_parity_disk(const struct r5g_geo *g, sector_t row)
{
	int r = sector_div(row, g->raid_disks);

	switch (g->algorithm) {
	case R5G_LEFT_ASYMMETRIC:
	case R5G_LEFT_SYMMETRIC:
		return g->data_disks - r;
	default:
		return r;
	}
}

/* Member holding data block @k (0 .. data_disks - 1) of a row. */
int r5g_data_disk(const struct r5g_geo *g, int pd, int k)
{
	switch (g->algorithm) {
	case R5G_LEFT_ASYMMETRIC:
	case R5G_RIGHT_ASYMMETRIC:
		return k < pd ? k : k + 1;
	default:
		return (pd + 1 + k) % g->raid_disks;
	}
}

/* The inverse: which data block member @disk (not @pd) holds. */
int r5g_data_index(const struct r5g_geo *g, int pd, int disk)
{
	switch (g->algorithm) {
	case R5G_LEFT_ASYMMETRIC:
	case R5G_RIGHT_ASYMMETRIC:
		return disk < pd ? disk : disk - 1;
	default:
		return (disk - pd - 1 + g->raid_disks) % g->raid_disks;
	}
}

/* Map an array sector to a member sector; *disk gets the member. */
sector_t r5g_map_sector(const struct r5g_geo *g, sector_t lsector, int *disk)
{
	unsigned int shift = ilog2(g->chunk_sectors);
	sector_t off = lsector & (g->chunk_sectors - 1);
	sector_t row = lsector >> shift;
	int k = sector_div(row, g->data_disks);

	*disk = r5g_data_disk(g, r5g_parity_disk(g, row), k);
	return (row << shift) + off;
}

/* Array sectors in one row. */
sector_t r5g_row_len(const struct r5g_geo *g)
{
	return (sector_t)g->chunk_sectors * g->data_disks;
}

/*
 * New rows after which a new row and an old row start at the same array
 * sector again: od / gcd(od, nd) new rows, nd / gcd(od, nd) old rows.
 */
int r5g_period(const struct r5g_geo *og, const struct r5g_geo *ng)
{
	return og->data_disks / gcd(og->data_disks, ng->data_disks);
}

/*
 * New rows a step copies at most. Steps of whole periods read no old row
 * twice; a step is raised to one period where the buffers stay
 * reasonable (large chunks, few members).
 */
int r5g_step_size(const struct r5g_geo *og, const struct r5g_geo *ng)
{
	sector_t nrl = r5g_row_len(ng);
	int period = r5g_period(og, ng);
	sector_t nrows = max_t(sector_t, 1, div64_u64(R5G_RS_SECTORS, nrl));

	if (nrows >= period)
		nrows = rounddown(nrows, period);
	else if (period * nrl <= R5G_RS_SECTORS_MAX)
		nrows = period;
	return nrows;
}

/*
 * New rows a step from new row @nrow may copy, at most @want, when the
 * data moved back by @drows rows and C = P = the step's start. New row q
 * overwrites, on an old member, old rows below q + 1 - drows; those must
 * lie wholly below C = nrow * nd / od old rows, which holds for new rows
 * below nrow + drows + nrow * (nd - od) / od. At least one row: a step
 * that needs more waits for a checkpoint (r5g_step_need()). A step of
 * a period or more ends on a period boundary, so the next starts on one.
 */
sector_t r5g_step_rows(const struct r5g_geo *og, const struct r5g_geo *ng,
		       sector_t drows, sector_t nrow, sector_t want)
{
	int od = og->data_disks, nd = ng->data_disks;
	sector_t safe = drows + div64_u64(nrow * (nd - od), od);
	sector_t n = min(want, max_t(sector_t, safe, 1));
	int period = r5g_period(og, ng);
	sector_t end;

	if (n >= period) {
		end = div64_u64(nrow + n, period) * period;
		if (end > nrow)
			n = end - nrow;
	}
	return n;
}

/*
 * The C (array sector, a whole old row) that the writes of new rows
 * below @end need on disk: the old rows they overwrite, all those below
 * end - drows, must be recorded as copied.
 */
sector_t r5g_step_need(const struct r5g_geo *og, sector_t drows,
		       sector_t end)
{
	return end > drows ? (end - drows) * r5g_row_len(og) : 0;
}

/*
 * With C = @safe, the array sector below which new rows may be written:
 * new rows below safe / old row + drows.
 */
sector_t r5g_ckpt_room(const struct r5g_geo *og, const struct r5g_geo *ng,
		       sector_t drows, sector_t safe)
{
	return (div64_u64(safe, r5g_row_len(og)) + drows) * r5g_row_len(ng);
}

/*
 * End of the critical section of a grow that keeps the data offset
 * (array sectors): new row q overwrites old row q in place, which is
 * safe once (q + 1) * od <= q * nd. It is also at least the end mdadm
 * computes (it walks chunk by chunk until the old row of the new data
 * lies above it), so that mdadm --assemble never asks for a backup after
 * we dropped it.
 */
sector_t r5g_critical_end(const struct r5g_geo *og, const struct r5g_geo *ng)
{
	sector_t c = ng->chunk_sectors, len = r5g_row_len(ng);
	int od = og->data_disks, nd = ng->data_disks;
	sector_t mine = DIV_ROUND_UP(od, nd - od) * len;
	sector_t n = 0, last, o;

	do {
		n += c;
		last = n * nd;
		o = round_down(div_u64(last, od), c);
	} while (n >= o);
	return max(mine, roundup(last, len));
}
