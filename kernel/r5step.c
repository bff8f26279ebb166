// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow grow step: copying new rows [nrow, nrow + nrows) of the new
 * geometry from the old rows that hold their data.
 *
 * A step (one sync_request call, r5reshape.c) copies up to rs->max_nrows
 * new rows: it plans its rows within the bound below, opens the window W
 * over them, waits for the requests that routed before (r5route.c's
 * epochs) and for the old-geometry stripes of its source rows to go idle,
 * reads the source old rows straight from the members (all of each row,
 * so a missing member can be rebuilt from parity), builds the new rows
 * from the read pages (no copy: the write bios point at them), computes
 * new parity, zero-fills past the old end, and writes the new rows to
 * every new member. Two steps are in flight at most: one reading while
 * the other writes. When a step's writes end, P moves over it (in step
 * order) and md_done_sync() reports the sectors to md.
 *
 * The bound: every member's data moves back by D sectors (new_data_offset
 * = data_offset - D; D >= c, or 0 with a critical section, r5crit.c). New
 * row q then overwrites, on an old member, only old rows below
 * q + 1 - D/c. A step writing new rows below q1 needs those old rows to
 * be wholly below C: C >= (q1 - D/c) * c * od (r5g_step_need()). If C is
 * short, the step waits for the steps in flight, checkpoints at P and
 * goes on (r5g_ckpt_before()); a step from new row q0 holds at most
 * D/c + q0 * (nd - od) / od rows (r5g_step_rows()), so this always
 * suffices. Steps start at D/c rows and grow as the reshape moves away
 * from the start.
 *
 * Locks: cache_lock for the cursors P and W, the step count and each
 * step's busy/done; the rest of a step belongs to the sync thread.
 */
#include <linux/bio.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "md.h"
#include "r5grow.h"

/* A member bio of a step. */
struct r5g_rbio {
	struct r5g_rstep *st;
	struct md_rdev *rdev;
	int disk;
	sector_t sector;	/* member sector, for messages */
	struct bio bio;		/* last: bioset front_pad */
};

/*---- Step buffers ----*/

void r5g_reshape_free(struct r5g_conf *conf)
{
	struct r5g_reshape *rs = conf->rs;
	int i, j, nsrc, npar;

	if (!rs)
		return;
	nsrc = rs->odisks * rs->max_orows * rs->cpp;
	npar = rs->max_nrows * rs->cpp;
	for (i = 0; i < R5G_RS_STEPS; i++) {
		struct r5g_rstep *st = &rs->step[i];

		for (j = 0; st->src && j < nsrc; j++)
			if (st->src[j])
				__free_page(st->src[j]);
		for (j = 0; st->par && j < npar; j++)
			if (st->par[j])
				__free_page(st->par[j]);
		kfree(st->src);
		kfree(st->par);
		bitmap_free(st->bad);
	}
	kfree(rs->vec);
	kfree(rs->chunks);
	bioset_exit(&rs->bs);
	kfree(rs);
	conf->rs = NULL;
}

static int r5g_alloc_pages(struct page **pages, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			return -ENOMEM;
	}
	return 0;
}

/* Size the steps for a reshape from @og to @ng and allocate them. */
int r5g_reshape_alloc(struct r5g_conf *conf, const struct r5g_geo *og,
		      const struct r5g_geo *ng)
{
	sector_t c = ng->chunk_sectors;
	struct r5g_reshape *rs;
	int i, nsrc, npar, err;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	conf->rs = rs;
	rs->cpp = c >> (PAGE_SHIFT - SECTOR_SHIFT);
	rs->odisks = og->raid_disks;
	rs->period = r5g_period(og, ng);
	rs->max_nrows = r5g_step_size(og, ng);
	rs->max_orows = DIV_ROUND_UP(rs->max_nrows * ng->data_disks,
				     og->data_disks) + 1;
	nsrc = rs->odisks * rs->max_orows * rs->cpp;
	npar = rs->max_nrows * rs->cpp;
	rs->vec = kcalloc(ng->raid_disks, sizeof(*rs->vec), GFP_KERNEL);
	rs->chunks = kcalloc(ng->raid_disks, sizeof(*rs->chunks), GFP_KERNEL);
	if (!rs->vec || !rs->chunks) {
		err = -ENOMEM;
		goto out_free;
	}
	err = bioset_init(&rs->bs, 2 * BIO_POOL_SIZE,
			  offsetof(struct r5g_rbio, bio), BIOSET_NEED_BVECS);
	if (err)
		goto out_free;
	err = -ENOMEM;
	for (i = 0; i < R5G_RS_STEPS; i++) {
		struct r5g_rstep *st = &rs->step[i];

		st->conf = conf;
		init_completion(&st->reads);
		st->src = kcalloc(nsrc, sizeof(*st->src), GFP_KERNEL);
		st->par = kcalloc(npar, sizeof(*st->par), GFP_KERNEL);
		st->bad = bitmap_zalloc(rs->odisks, GFP_KERNEL);
		if (!st->src || !st->par || !st->bad ||
		    r5g_alloc_pages(st->src, nsrc) ||
		    r5g_alloc_pages(st->par, npar))
			goto out_free;
	}
	return 0;

out_free:
	r5g_reshape_free(conf);
	return err;
}

/*---- Member I/O of a step ----*/

static void r5g_step_retire(struct r5g_rstep *st)
{
	struct r5g_conf *conf = st->conf;
	struct r5g_reshape *rs = conf->rs;
	unsigned long flags;
	bool moved = false;
	int i;

	spin_lock_irqsave(&conf->cache_lock, flags);
	st->done = true;
	/*
	 * Position held: P stays, and finished steps end without passing
	 * (their rows are copied again on the resume).
	 */
	for (i = 0; i < R5G_RS_STEPS && r5g_position_held(conf); i++) {
		struct r5g_rstep *s = &rs->step[i];

		if (!s->busy || !s->done)
			continue;
		s->busy = false;
		s->done = false;
		conf->reshape_steps--;
		if (!s->quiet)	/* not ok: md interrupts the reshape */
			md_done_sync(conf->mddev,
				     (sector_t)s->nrows *
				     conf->geo[R5G_GEO_CUR].chunk_sectors, 0);
		moved = true;
	}
	/* P moves over finished steps in order */
	for (i = 0; i < R5G_RS_STEPS; i++) {
		struct r5g_rstep *s = &rs->step[i];

		if (!s->busy || !s->done ||
		    s->lo != conf->reshape_progress)
			continue;
		conf->reshape_progress = s->hi;
		if (!s->quiet)
			rs->step_ns = ktime_get_ns() - s->t0;
		s->busy = false;
		s->done = false;
		conf->reshape_steps--;
		if (!s->quiet)
			md_done_sync(conf->mddev,
				     (sector_t)s->nrows *
				     conf->geo[R5G_GEO_CUR].chunk_sectors, 1);
		moved = true;
		i = -1;		/* the other step may be next */
	}
	if (!conf->reshape_steps) {
		/* nothing in flight: no window */
		conf->reshape_window = conf->reshape_progress;
		wake_up(&conf->wait_stripe);
	}
	spin_unlock_irqrestore(&conf->cache_lock, flags);
	if (moved)
		wake_up_all(&conf->wait_reshape);
}

static void r5g_step_end_io(struct bio *bio)
{
	struct r5g_rbio *rb = container_of(bio, struct r5g_rbio, bio);
	struct r5g_rstep *st = rb->st;
	struct mddev *mddev = st->conf->mddev;

	if (bio->bi_status && st->writing) {
		st->werr = true;
		md_error(mddev, rb->rdev);
	} else if (bio->bi_status) {
		/* rebuilt from parity; the copy writes it to its new place */
		set_bit(rb->disk, st->bad);
		r5g_read_error(st->conf, rb->rdev, rb->sector);
	}
	rdev_dec_pending(rb->rdev, mddev);
	bio_put(bio);
	if (!atomic_dec_and_test(&st->pending))
		return;
	if (st->writing && st->retire)
		r5g_step_retire(st);
	else
		complete(&st->reads);
}

/*
 * Read or write one chunk (@n pages) of member @disk at member sector
 * @sector of the old (read) or new (write) geometry. False when the
 * member is missing or failed.
 */
bool r5g_step_chunk(struct r5g_rstep *st, int disk, sector_t sector,
		    struct page **pages, int n)
{
	struct r5g_conf *conf = st->conf;
	blk_opf_t op = st->writing ? REQ_OP_WRITE | st->extra : REQ_OP_READ;
	struct md_rdev *rdev;
	sector_t off;

	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[disk].rdev);
	if (!rdev || test_bit(Faulty, &rdev->flags) ||
	    (!st->writing && !test_bit(In_sync, &rdev->flags))) {
		rcu_read_unlock();
		return false;
	}
	atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	off = st->writing ? rdev->new_data_offset : rdev->data_offset;

	while (n) {
		int i, k = min_t(int, n, BIO_MAX_VECS);
		struct r5g_rbio *rb;
		struct bio *bio;

		bio = bio_alloc_bioset(rdev->bdev, k, op, GFP_NOIO,
				       &conf->rs->bs);
		rb = container_of(bio, struct r5g_rbio, bio);
		rb->st = st;
		rb->rdev = rdev;
		rb->disk = disk;
		rb->sector = sector;
		bio->bi_iter.bi_sector = off + sector;
		bio->bi_end_io = r5g_step_end_io;
		for (i = 0; i < k; i++)
			__bio_add_page(bio, pages[i], PAGE_SIZE, 0);
		n -= k;
		pages += k;
		sector += (sector_t)k << (PAGE_SHIFT - SECTOR_SHIFT);
		if (n)
			atomic_inc(&rdev->nr_pending);	/* one per bio */
		atomic_inc(&st->pending);
		md_sync_acct_bio(bio, bio_sectors(bio));
		submit_bio_noacct(bio);
	}
	return true;
}

/*
 * Member I/O that the caller waits for (reads, and the critical
 * section's writes): begin, r5g_step_chunk() for each chunk, wait.
 */
void r5g_step_io_begin(struct r5g_rstep *st, bool write, blk_opf_t extra)
{
	st->writing = write;
	st->retire = false;
	st->extra = extra;
	reinit_completion(&st->reads);
	atomic_set(&st->pending, 1);
}

void r5g_step_io_wait(struct r5g_rstep *st)
{
	if (!atomic_dec_and_test(&st->pending))
		wait_for_completion(&st->reads);
}

static struct page **r5g_src(struct r5g_rstep *st, int disk, sector_t orow)
{
	struct r5g_reshape *rs = st->conf->rs;

	return st->src + (disk * rs->max_orows + (orow - st->orow)) * rs->cpp;
}

/* Read every old member of the source rows; wait for the reads. */
static void r5g_step_read(struct r5g_rstep *st)
{
	struct r5g_conf *conf = st->conf;
	struct r5g_reshape *rs = conf->rs;
	sector_t c = conf->geo[R5G_GEO_PREV].chunk_sectors;
	int i, r;

	bitmap_zero(st->bad, rs->odisks);
	if (!st->orows)
		return;
	r5g_step_io_begin(st, false, 0);
	for (i = 0; i < rs->odisks; i++) {
		bool ok = true;

		for (r = 0; r < st->orows && ok; r++)
			ok = r5g_step_chunk(st, i, (st->orow + r) * c,
					    r5g_src(st, i, st->orow + r),
					    rs->cpp);
		if (!ok)
			set_bit(i, st->bad);
	}
	r5g_step_io_wait(st);
}

/* dest = xor of @n pages */
static void r5g_xor_pages(struct page *dest, struct page **src, int n)
{
	void *d = page_address(dest), *s[MAX_XOR_BLOCKS];
	int i, k = 0;

	if (!n) {
		memset(d, 0, PAGE_SIZE);
		return;
	}
	memcpy(d, page_address(src[0]), PAGE_SIZE);
	for (i = 1; i < n; i++) {
		s[k++] = page_address(src[i]);
		if (k == MAX_XOR_BLOCKS) {
			xor_blocks(k, PAGE_SIZE, d, s);
			k = 0;
		}
	}
	if (k)
		xor_blocks(k, PAGE_SIZE, d, s);
}

/* Rebuild old member @bad of every source row from the others. */
static void r5g_step_rebuild(struct r5g_rstep *st, int bad)
{
	struct r5g_reshape *rs = st->conf->rs;
	int i, r, p, n;

	for (r = 0; r < st->orows; r++) {
		struct page **dst = r5g_src(st, bad, st->orow + r);

		for (p = 0; p < rs->cpp; p++) {
			n = 0;
			for (i = 0; i < rs->odisks; i++)
				if (i != bad)
					rs->vec[n++] = r5g_src(st, i,
							       st->orow + r)[p];
			r5g_xor_pages(dst[p], rs->vec, n);
		}
	}
}

/*
 * The pages of new row @q's data chunk @k: read pages of an old chunk,
 * or NULL past the old end (zeros).
 */
struct page **r5g_new_chunk(struct r5g_rstep *st, sector_t q, int k)
{
	struct r5g_conf *conf = st->conf;
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t c = ng->chunk_sectors;
	sector_t a = q * r5g_row_len(ng) + (sector_t)k * c;
	sector_t orow;
	int disk;

	if (a >= r5g_old_end(conf))
		return NULL;
	orow = r5g_map_sector(og, a, &disk) >> ilog2(c);
	return r5g_src(st, disk, orow);
}

/* Parity of the new rows, then the writes; completion retires the step. */
static void r5g_step_write(struct r5g_rstep *st)
{
	struct r5g_conf *conf = st->conf;
	struct r5g_reshape *rs = conf->rs;
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t c = ng->chunk_sectors;
	struct page *zero = ZERO_PAGE(0);
	struct page **zeros;
	int q, k, p, j, n;

	zeros = kmalloc_array(rs->cpp, sizeof(*zeros), GFP_NOIO | __GFP_NOFAIL);
	for (p = 0; p < rs->cpp; p++)
		zeros[p] = zero;

	for (q = 0; q < st->nrows; q++) {
		struct page **par = st->par + q * rs->cpp;

		for (k = 0; k < ng->data_disks; k++)
			rs->chunks[k] = r5g_new_chunk(st, st->nrow + q, k);
		for (p = 0; p < rs->cpp; p++) {
			n = 0;
			for (k = 0; k < ng->data_disks; k++)
				if (rs->chunks[k])
					rs->vec[n++] = rs->chunks[k][p];
			r5g_xor_pages(par[p], rs->vec, n);
		}
	}

	st->writing = true;
	st->retire = true;
	st->werr = false;
	st->extra = 0;
	atomic_set(&st->pending, 1);
	for (q = 0; q < st->nrows; q++) {
		sector_t row = st->nrow + q;
		int pd = r5g_parity_disk(ng, row);

		for (j = 0; j < ng->raid_disks; j++) {
			struct page **pages;

			if (j == pd) {
				pages = st->par + q * rs->cpp;
			} else {
				k = r5g_data_index(ng, pd, j);
				pages = r5g_new_chunk(st, row, k) ?: zeros;
			}
			r5g_step_chunk(st, j, row * c, pages, rs->cpp);
		}
	}
	if (atomic_dec_and_test(&st->pending))
		r5g_step_retire(st);
	kfree(zeros);
}

/*
 * Plan the step starting at array sector @lo: at most @limit new rows,
 * within the bound at the top of this file.
 */
void r5g_step_plan(struct r5g_conf *conf, struct r5g_rstep *st, sector_t lo,
		   sector_t limit)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t rows = r5g_rows(conf), oend, want;

	st->lo = lo;
	st->nrow = div64_u64(lo, r5g_row_len(ng));
	want = min_t(sector_t, conf->rs->max_nrows, rows - st->nrow);
	want = min(want, limit);
	st->nrows = r5g_step_rows(og, ng,
				  div64_u64(conf->offset_delta,
					    ng->chunk_sectors),
				  st->nrow, want);
	st->hi = lo + st->nrows * r5g_row_len(ng);
	st->orow = div64_u64(lo, r5g_row_len(og));
	oend = min(DIV64_U64_ROUND_UP(st->hi, r5g_row_len(og)), rows);
	st->orows = oend > st->orow ? oend - st->orow : 0;
	st->done = false;
	st->quiet = false;
}

/*
 * Make sure the step's writes overwrite only old rows that the on-disk
 * checkpoint no longer needs; checkpoint if not (see the top).
 *
 * Once the steps have used half of the room the last checkpoint gave
 * them, a checkpoint starts in the background (the work item), so that
 * the next steps seldom stop and wait for one: a checkpoint flushes
 * every member, which takes longer than several steps.
 */
int r5g_step_safe(struct r5g_conf *conf, struct r5g_rstep *st)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t drows = div64_u64(conf->offset_delta, ng->chunk_sectors);
	sector_t need = r5g_step_need(og, drows, st->nrow + st->nrows);
	sector_t safe = READ_ONCE(conf->reshape_safe);
	sector_t room = r5g_ckpt_room(og, ng, drows, safe);

	if (room > safe && st->lo >= safe + (room - safe) / 2)
		queue_delayed_work(system_wq, &conf->ckpt_work, 0);
	if (safe >= need)
		return 0;
	return r5g_ckpt_before(conf, need);
}

/*
 * Open the window over the step and wait until nothing else touches its
 * array sectors in the old geometry: requests that routed before the
 * window moved, and old stripes with writes still queued or in flight.
 */
void r5g_step_open(struct r5g_conf *conf, struct r5g_rstep *st)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	sector_t c = og->chunk_sectors;
	sector_t w = roundup(st->hi, r5g_row_len(og));

	spin_lock_irq(&conf->cache_lock);
	wait_event_lock_irq(conf->wait_stripe, !conf->quiesce,
			    conf->cache_lock);
	st->busy = true;
	conf->reshape_steps++;
	if (conf->reshape_window < w)
		conf->reshape_window = w;
	r5g_route_flip(conf);
	wait_event_lock_irq(conf->wait_stripe,
			    r5g_stripes_idle(conf, st->orow * c,
					     (st->orow + st->orows) * c,
					     R5G_GEO_PREV),
			    conf->cache_lock);
	spin_unlock_irq(&conf->cache_lock);
}

/* Undo r5g_step_open() for a step that is not sent after all. */
void r5g_step_cancel(struct r5g_conf *conf, struct r5g_rstep *st)
{
	spin_lock_irq(&conf->cache_lock);
	st->busy = false;
	if (!--conf->reshape_steps) {
		conf->reshape_window = conf->reshape_progress;
		wake_up(&conf->wait_stripe);
	}
	spin_unlock_irq(&conf->cache_lock);
	wake_up_all(&conf->wait_reshape);
}

/*
 * Read the step's old rows and rebuild one unreadable member from the
 * others. Returns how many old members were unreadable: above 1, the
 * pages are not usable.
 */
int r5g_step_fetch(struct r5g_rstep *st)
{
	int odisks = st->conf->rs->odisks;
	int bad;

	r5g_step_read(st);
	bad = bitmap_weight(st->bad, odisks);
	if (bad == 1)
		r5g_step_rebuild(st, find_first_bit(st->bad, odisks));
	return bad;
}

/* Copy one step. Returns false when it cannot (two members gone). */
bool r5g_step_run(struct r5g_conf *conf, struct r5g_rstep *st)
{
	int bad;

	st->t0 = ktime_get_ns();
	bad = r5g_step_fetch(st);
	if (bad > 1) {
		pr_crit("md/raid:%s: reshape stopped: %d devices unreadable at array sector %llu\n",
			mdname(conf->mddev), bad, (unsigned long long)st->lo);
		return false;
	}
	r5g_step_write(st);
	return true;
}

/*
 * Write a fetched step while the array is suspended, not counted with md
 * (the critical section), and wait until it has retired.
 */
void r5g_step_copy_quiet(struct r5g_conf *conf, struct r5g_rstep *st)
{
	spin_lock_irq(&conf->cache_lock);
	st->busy = true;
	st->quiet = true;
	conf->reshape_steps++;
	spin_unlock_irq(&conf->cache_lock);
	r5g_step_write(st);
	wait_event(conf->wait_reshape, !READ_ONCE(st->busy));
}
