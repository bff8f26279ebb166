// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for r5map.c, built as a module of their own (r5map_kunit)
 * that compiles r5map.c in, so the cases call the same code r5grow.ko
 * runs. The expected values are written out here from md(4)'s layout
 * definitions and from the bounds the grow needs, never computed by the
 * code under test. tests/guest/kunit-r5map.sh loads it in the guest.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include "r5map.c"

#define ROWS	5	/* the tables below list one period of 4 or 5 rows */

/* One row of a layout: the parity member, then data blocks 0, 1, ... */
struct r5t_row {
	int pd;
	int data[ROWS - 1];
};

/* md(4): left = parity starts on the last member and moves left, right =
 * starts on the first and moves right; asymmetric = data in member order
 * around the parity, symmetric = data starts after the parity, wrapping.
 */
static const struct r5t_row r5t_four[4][4] = {
	[R5G_LEFT_ASYMMETRIC] = {
		{ 3, { 0, 1, 2 } }, { 2, { 0, 1, 3 } },
		{ 1, { 0, 2, 3 } }, { 0, { 1, 2, 3 } } },
	[R5G_RIGHT_ASYMMETRIC] = {
		{ 0, { 1, 2, 3 } }, { 1, { 0, 2, 3 } },
		{ 2, { 0, 1, 3 } }, { 3, { 0, 1, 2 } } },
	[R5G_LEFT_SYMMETRIC] = {
		{ 3, { 0, 1, 2 } }, { 2, { 3, 0, 1 } },
		{ 1, { 2, 3, 0 } }, { 0, { 1, 2, 3 } } },
	[R5G_RIGHT_SYMMETRIC] = {
		{ 0, { 1, 2, 3 } }, { 1, { 2, 3, 0 } },
		{ 2, { 3, 0, 1 } }, { 3, { 0, 1, 2 } } },
};

static const struct r5t_row r5t_five[4][5] = {
	[R5G_LEFT_ASYMMETRIC] = {
		{ 4, { 0, 1, 2, 3 } }, { 3, { 0, 1, 2, 4 } },
		{ 2, { 0, 1, 3, 4 } }, { 1, { 0, 2, 3, 4 } },
		{ 0, { 1, 2, 3, 4 } } },
	[R5G_RIGHT_ASYMMETRIC] = {
		{ 0, { 1, 2, 3, 4 } }, { 1, { 0, 2, 3, 4 } },
		{ 2, { 0, 1, 3, 4 } }, { 3, { 0, 1, 2, 4 } },
		{ 4, { 0, 1, 2, 3 } } },
	[R5G_LEFT_SYMMETRIC] = {
		{ 4, { 0, 1, 2, 3 } }, { 3, { 4, 0, 1, 2 } },
		{ 2, { 3, 4, 0, 1 } }, { 1, { 2, 3, 4, 0 } },
		{ 0, { 1, 2, 3, 4 } } },
	[R5G_RIGHT_SYMMETRIC] = {
		{ 0, { 1, 2, 3, 4 } }, { 1, { 2, 3, 4, 0 } },
		{ 2, { 3, 4, 0, 1 } }, { 3, { 4, 0, 1, 2 } },
		{ 4, { 0, 1, 2, 3 } } },
};

static const char * const r5t_names[] = {
	"left-asymmetric", "right-asymmetric", "left-symmetric",
	"right-symmetric",
};

static struct r5g_geo r5t_geo(int disks, int chunk, int alg)
{
	struct r5g_geo g = {
		.raid_disks = disks,
		.data_disks = disks - 1,
		.chunk_sectors = chunk,
		.algorithm = alg,
	};

	return g;
}

static const struct r5t_row *r5t_row(int disks, int alg, sector_t row)
{
	if (disks == 4)
		return &r5t_four[alg][row % 4];
	return &r5t_five[alg][row % 5];
}

/* Parity slot and data members of every row of three periods. */
static void r5t_rows(struct kunit *test)
{
	int disks, alg, k;
	sector_t row;

	for (disks = 4; disks <= 5; disks++) {
		for (alg = 0; alg < 4; alg++) {
			struct r5g_geo g = r5t_geo(disks, 128, alg);

			for (row = 0; row < 3 * disks; row++) {
				const struct r5t_row *e = r5t_row(disks, alg, row);
				int pd = r5g_parity_disk(&g, row);

				KUNIT_EXPECT_EQ_MSG(test, pd, e->pd,
						    "%s, %d disks, row %llu",
						    r5t_names[alg], disks,
						    (unsigned long long)row);
				for (k = 0; k < disks - 1; k++) {
					KUNIT_EXPECT_EQ(test,
							r5g_data_disk(&g, pd, k),
							e->data[k]);
					KUNIT_EXPECT_EQ(test,
							r5g_data_index(&g, pd,
								       e->data[k]),
							k);
				}
			}
		}
	}
}

/*
 * Every 4 KiB block of three periods, chunks of 4K, 64K and 512K: array
 * sector a lies in chunk a / c, which is data block (a / c) % dd of row
 * (a / c) / dd, at member sector row * c + a % c.
 */
static void r5t_blocks(struct kunit *test)
{
	static const int chunks[] = { 8, 128, 1024 };
	int disks, alg, ci;

	for (ci = 0; ci < ARRAY_SIZE(chunks); ci++) {
		int c = chunks[ci];

		for (disks = 4; disks <= 5; disks++) {
			for (alg = 0; alg < 4; alg++) {
				struct r5g_geo g = r5t_geo(disks, c, alg);
				sector_t end = (sector_t)3 * disks * (disks - 1) * c;
				sector_t a;

				for (a = 0; a < end; a += 8) {
					sector_t chunk = a / c;
					sector_t row = chunk / (disks - 1);
					int k = chunk % (disks - 1);
					const struct r5t_row *e = r5t_row(disks, alg, row);
					int disk = -1;
					sector_t m = r5g_map_sector(&g, a + 3, &disk);

					KUNIT_EXPECT_EQ_MSG(test, disk, e->data[k],
							    "%s, %d disks, chunk %d, sector %llu",
							    r5t_names[alg], disks, c,
							    (unsigned long long)a);
					KUNIT_EXPECT_EQ(test, m, row * c + a % c + 3);
				}
			}
		}
	}
}

/* Array sectors beyond 2^32 and 2^41: member, member sector, parity. */
static void r5t_large(struct kunit *test)
{
	static const struct {
		int disks, chunk, alg;
		sector_t a, m;
		int disk, pd;
	} cases[] = {
		{ 4, 128, 0, 0x10000000dULL, 1431655693ULL, 3, 1 },
		{ 4, 128, 1, 0x10000000dULL, 1431655693ULL, 3, 2 },
		{ 4, 128, 2, 0x10000000dULL, 1431655693ULL, 0, 1 },
		{ 4, 128, 3, 0x10000000dULL, 1431655693ULL, 1, 2 },
		{ 5, 1024, 0, 0x10000000dULL, 1073741837ULL, 0, 3 },
		{ 5, 1024, 2, 0x10000000dULL, 1073741837ULL, 4, 3 },
		{ 4, 128, 0, 0x20000000005ULL, 733007751813ULL, 1, 2 },
		{ 4, 128, 1, 0x20000000005ULL, 733007751813ULL, 2, 1 },
		{ 4, 128, 2, 0x20000000005ULL, 733007751813ULL, 0, 2 },
		{ 4, 128, 3, 0x20000000005ULL, 733007751813ULL, 3, 1 },
		{ 5, 1024, 2, 0x20000000005ULL, 549755813893ULL, 3, 2 },
		{ 5, 1024, 3, 0x20000000005ULL, 549755813893ULL, 3, 2 },
		{ 4, 128, 0, 0x20000700003ULL, 733010198531ULL, 0, 3 },
		{ 4, 128, 3, 0x20000700003ULL, 733010198531ULL, 1, 0 },
		{ 5, 1024, 1, 0x20000700003ULL, 549757648899ULL, 0, 4 },
		{ 5, 1024, 2, 0x20000700003ULL, 549757648899ULL, 1, 0 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct r5g_geo g = r5t_geo(cases[i].disks, cases[i].chunk,
					   cases[i].alg);
		int disk = -1;
		sector_t m = r5g_map_sector(&g, cases[i].a, &disk);

		KUNIT_EXPECT_EQ_MSG(test, m, cases[i].m, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, disk, cases[i].disk, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    r5g_parity_disk(&g, m / cases[i].chunk),
				    cases[i].pd, "case %d", i);
	}
}

/* Grows by member count, old -> new, and what a 64K chunk makes of them. */
static const struct {
	int from, to;
	int period;		/* new rows per period */
	int old_rows;		/* old rows per period */
	int step_4k, step_64k, step_512k;	/* new rows a step copies */
	sector_t crit;		/* critical-section end, 64K chunk */
} r5t_grows[] = {
	/* 3->4: od 2, nd 3; rows of 256 and 384 sectors */
	{ 3, 4, 2, 3, 340, 20, 2, 768 },
	/* 4->6: od 3, nd 5 */
	{ 4, 6, 3, 5, 204, 12, 3, 1280 },
	/* 3->6: od 2, nd 5 */
	{ 3, 6, 2, 5, 204, 12, 2, 640 },
	/* 5->8: od 4, nd 7 */
	{ 5, 8, 4, 7, 144, 8, 4, 1792 },
	/* 3->5: od 2, nd 4: gcd 2 */
	{ 3, 5, 1, 2, 256, 16, 2, 512 },
	/* 5->7: od 4, nd 6: gcd 2 */
	{ 5, 7, 2, 3, 170, 10, 2, 1536 },
};

static void r5t_periods(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(r5t_grows); i++) {
		struct r5g_geo og = r5t_geo(r5t_grows[i].from, 128, 2);
		struct r5g_geo ng = r5t_geo(r5t_grows[i].to, 128, 2);
		int p = r5g_period(&og, &ng);

		KUNIT_EXPECT_EQ_MSG(test, p, r5t_grows[i].period,
				    "%d->%d", r5t_grows[i].from,
				    r5t_grows[i].to);
		/* a period of new rows holds whole old rows */
		KUNIT_EXPECT_EQ(test, p * r5g_row_len(&ng),
				r5t_grows[i].old_rows * r5g_row_len(&og));
		KUNIT_EXPECT_EQ(test, r5g_row_len(&og),
				(sector_t)128 * (r5t_grows[i].from - 1));
		KUNIT_EXPECT_EQ(test, r5g_critical_end(&og, &ng),
				r5t_grows[i].crit);

		og.chunk_sectors = 8;
		ng.chunk_sectors = 8;
		KUNIT_EXPECT_EQ(test, r5g_step_size(&og, &ng),
				r5t_grows[i].step_4k);
		og.chunk_sectors = 128;
		ng.chunk_sectors = 128;
		KUNIT_EXPECT_EQ(test, r5g_step_size(&og, &ng),
				r5t_grows[i].step_64k);
		og.chunk_sectors = 1024;
		ng.chunk_sectors = 1024;
		KUNIT_EXPECT_EQ(test, r5g_step_size(&og, &ng),
				r5t_grows[i].step_512k);
	}
}

/* The rows a step may copy, worked out by hand from the bound. */
static void r5t_step_rows(struct kunit *test)
{
	static const struct {
		int from, to;
		sector_t drows, nrow, want, rows;
	} cases[] = {
		{ 3, 4, 1, 0, 20, 1 },		/* safe = 1 */
		{ 3, 4, 1, 10, 20, 6 },		/* safe 1 + 5, ends on 16 */
		{ 3, 4, 1, 11, 20, 5 },		/* safe 6, cut back to 16 */
		{ 3, 4, 1, 100, 20, 20 },	/* safe 51: want rules */
		{ 3, 4, 1, 100, 3, 2 },		/* 103 cut back to 102 */
		{ 3, 4, 0, 5, 20, 1 },		/* safe 2, 7 cut to 6 */
		{ 3, 4, 2, 0, 20, 2 },		/* safe 2, one period */
		{ 4, 6, 1, 0, 12, 1 },
		{ 4, 6, 1, 3, 12, 3 },		/* safe 1 + 2, ends on 6 */
		{ 4, 6, 1, 4, 12, 2 },		/* safe 3, 7 cut to 6 */
		{ 5, 8, 1, 8, 8, 4 },		/* safe 1 + 6 = 7, cut to 12 */
		{ 3, 6, 1, 4, 12, 6 },		/* safe 1 + 6 = 7, cut to 10 */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct r5g_geo og = r5t_geo(cases[i].from, 128, 2);
		struct r5g_geo ng = r5t_geo(cases[i].to, 128, 2);

		KUNIT_EXPECT_EQ_MSG(test,
				    r5g_step_rows(&og, &ng, cases[i].drows,
						  cases[i].nrow, cases[i].want),
				    cases[i].rows, "case %d", i);
	}
}

/* What C a step needs, and the room a checkpoint gives. */
static void r5t_bounds(struct kunit *test)
{
	struct r5g_geo og = r5t_geo(3, 128, 2);	/* old rows: 256 sectors */
	struct r5g_geo ng = r5t_geo(4, 128, 2);	/* new rows: 384 sectors */

	KUNIT_EXPECT_EQ(test, r5g_step_need(&og, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, r5g_step_need(&og, 1, 1), 0);
	/* new rows below 7 overwrite old rows below 6 */
	KUNIT_EXPECT_EQ(test, r5g_step_need(&og, 1, 7), 6 * 256);
	KUNIT_EXPECT_EQ(test, r5g_step_need(&og, 0, 1), 256);
	/* C = 6 old rows, D = 1 row: new rows below 7 may be written */
	KUNIT_EXPECT_EQ(test, r5g_ckpt_room(&og, &ng, 1, 6 * 256), 7 * 384);
	KUNIT_EXPECT_EQ(test, r5g_ckpt_room(&og, &ng, 1, 6 * 256 + 64),
			7 * 384);
	KUNIT_EXPECT_EQ(test, r5g_ckpt_room(&og, &ng, 2, 0), 2 * 384);
}

/*
 * With C = P = the step's start, a step of the size r5g_step_rows()
 * allows never needs a checkpoint first: the bound is exact enough.
 */
static void r5t_step_never_waits(struct kunit *test)
{
	int i;
	sector_t drows, nrow;

	for (i = 0; i < ARRAY_SIZE(r5t_grows); i++) {
		struct r5g_geo og = r5t_geo(r5t_grows[i].from, 128, 2);
		struct r5g_geo ng = r5t_geo(r5t_grows[i].to, 128, 2);

		for (drows = 1; drows <= 3; drows++) {
			for (nrow = 0; nrow < 300; nrow++) {
				sector_t n = r5g_step_rows(&og, &ng, drows,
							   nrow, 1000);
				sector_t c = nrow * r5g_row_len(&ng);

				KUNIT_EXPECT_GE(test, n, 1);
				KUNIT_EXPECT_LE_MSG(test,
						    r5g_step_need(&og, drows,
								  nrow + n),
						    c, "%d->%d D %llu q %llu",
						    r5t_grows[i].from,
						    r5t_grows[i].to,
						    (unsigned long long)drows,
						    (unsigned long long)nrow);
			}
		}
	}
}

static struct kunit_case r5map_cases[] = {
	KUNIT_CASE(r5t_rows),
	KUNIT_CASE(r5t_blocks),
	KUNIT_CASE(r5t_large),
	KUNIT_CASE(r5t_periods),
	KUNIT_CASE(r5t_step_rows),
	KUNIT_CASE(r5t_bounds),
	KUNIT_CASE(r5t_step_never_waits),
	{}
};

static struct kunit_suite r5map_suite = {
	.name = "r5map",
	.test_cases = r5map_cases,
};

kunit_test_suite(r5map_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit cases for r5grow's geometry (r5map.c)");
