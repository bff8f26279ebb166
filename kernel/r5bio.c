// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow array bio path: what happens to a bio md hands us.
 *
 * Reads are cut at chunk ends; a read that lies in one chunk on a working
 * member bypasses the cache and goes straight to that member, and if that
 * read fails it is replayed through the stripe cache, which reconstructs
 * it from the other members. Other reads and all writes are queued on
 * every stripe they touch (r5g_stripe_path()); writes are held back while
 * the submitter is plugged so that consecutive bios fill whole stripes.
 *
 * During a reshape every request first asks r5route.c for its geometry,
 * and keeps its epoch counted until it is queued (bypass reads and writes
 * to both geometries: until they end).
 *
 * Locks: stripe->lock to queue on a stripe, cache_lock for the bypass
 * read count and the retry list. Reads reshape_progress (READ_ONCE) only
 * to see whether a reshape runs; the cursors are r5route.c's.
 */
#include <linux/bio.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

/* Stripes one plug may hold back for write batching. */
#define R5G_PLUG_MAX	64

/* A bypass read or a write to both geometries: the clone and its origin. */
struct r5g_aligned {
	struct r5g_conf *conf;	/* for a write to both geometries */
	struct md_rdev *rdev;	/* for a bypass read */
	struct bio *orig;
	int gen;		/* the geometry it was mapped through */
	int epoch;		/* reshape epoch it holds, or -1 */
	struct bio clone;	/* must be last: bioset front_pad */
};

struct r5g_plug {
	struct blk_plug_cb cb;
	int n;
	struct r5g_stripe *sh[R5G_PLUG_MAX];
};

static void r5g_plug_flush(struct r5g_conf *conf, struct r5g_plug *plug)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&conf->cache_lock, flags);
	for (i = 0; i < plug->n; i++)
		r5g_release_locked(conf, plug->sh[i]);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
	plug->n = 0;
}

static void r5g_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct r5g_plug *plug = container_of(cb, struct r5g_plug, cb);

	r5g_plug_flush(cb->data, plug);
	kfree(plug);
}

/*
 * Writes are held back while the submitter is plugged, so that
 * consecutive bios can fill whole stripes before parity is computed.
 */
static void r5g_release_write(struct r5g_conf *conf, struct r5g_stripe *sh)
{
	struct blk_plug_cb *cb;
	struct r5g_plug *plug;

	cb = blk_check_plugged(r5g_unplug, conf, sizeof(*plug));
	if (!cb) {
		r5g_release(sh);
		return;
	}
	plug = container_of(cb, struct r5g_plug, cb);
	if (plug->n == R5G_PLUG_MAX)
		r5g_plug_flush(conf, plug);
	plug->sh[plug->n++] = sh;
}

static void r5g_attach(struct r5g_conf *conf, struct r5g_stripe *sh, int i,
		       struct bio *bio, bool write)
{
	struct r5g_req *req, **pos;
	u64 seq = 0;

	req = mempool_alloc(&conf->req_pool, GFP_NOIO);
	req->bio = bio;
	req->next = NULL;
	bio_inc_remaining(bio);
	if (write) {
		md_write_inc(conf->mddev, bio);
		md_bitmap_startwrite(conf->mddev->bitmap, sh->sector,
				     R5G_STRIPE_SECTORS, 0);
		seq = atomic64_inc_return(&conf->bm_seq);
	}
	spin_lock(&sh->lock);
	pos = write ? &sh->dev[i].towrite : &sh->dev[i].toread;
	while (*pos)
		pos = &(*pos)->next;
	*pos = req;
	if (write && seq > sh->bm_seq)
		WRITE_ONCE(sh->bm_seq, seq);
	spin_unlock(&sh->lock);
	set_bit(R5G_S_HANDLE, &sh->state);
}

/*
 * Queue @bio on every stripe it touches, stripe by stripe, so that each
 * stripe gets all of the bio's blocks at once.
 */
static void r5g_stripe_path(struct r5g_conf *conf, struct bio *bio, int gen,
			    unsigned int flags)
{
	const struct r5g_geo *g = &conf->geo[gen];
	bool write = op_is_write(bio_op(bio));
	unsigned int shift = ilog2(g->chunk_sectors);
	sector_t cs = g->chunk_sectors;
	sector_t bs = bio->bi_iter.bi_sector;
	sector_t be = bio_end_sector(bio);
	sector_t lo = round_down(bs, R5G_STRIPE_SECTORS);
	sector_t row, last_row;

	if (be <= bs)
		return;
	row = lo >> shift;
	sector_div(row, g->data_disks);
	last_row = (be - 1) >> shift;
	sector_div(last_row, g->data_disks);

	for (; row <= last_row; row++) {
		sector_t row_lo = (row * g->data_disks) << shift;
		sector_t row_hi = row_lo + ((sector_t)g->data_disks << shift);
		sector_t a = max(lo, row_lo), b = min(be, row_hi);
		sector_t n = DIV_ROUND_UP(b - a, R5G_STRIPE_SECTORS);
		sector_t off0 = (a - row_lo) & (cs - 1), j;

		n = min_t(sector_t, n, cs / R5G_STRIPE_SECTORS);
		for (j = 0; j < n; j++) {
			sector_t off = (off0 + j * R5G_STRIPE_SECTORS) &
				       (cs - 1);
			struct r5g_stripe *sh;
			int k;

			sh = r5g_get_stripe(conf, (row << shift) + off, gen,
					    flags);
			for (k = 0; k < g->data_disks; k++) {
				sector_t blk = row_lo + ((sector_t)k << shift) +
					       off;

				if (blk >= be ||
				    blk + R5G_STRIPE_SECTORS <= bs)
					continue;
				r5g_attach(conf, sh,
					   r5g_data_disk(g, sh->pd_idx, k),
					   bio, write);
			}
			if (write)
				r5g_release_write(conf, sh);
			else
				r5g_release(sh);
		}
	}
}

/* A bypass read is over: uncount it, and its reshape epoch if any. */
static void r5g_aligned_done(struct r5g_conf *conf, int epoch)
{
	unsigned long flags;

	spin_lock_irqsave(&conf->cache_lock, flags);
	if (!--conf->aligned_reads)
		wake_up(&conf->wait_stripe);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
	if (epoch >= 0)
		r5g_reshape_route_done(conf, epoch);
}

static void r5g_aligned_end(struct bio *clone)
{
	struct r5g_aligned *ar = container_of(clone, struct r5g_aligned,
					      clone);
	struct md_rdev *rdev = ar->rdev;
	struct r5g_conf *conf = rdev->mddev->private;
	unsigned long flags;

	rdev_dec_pending(rdev, conf->mddev);
	if (!clone->bi_status) {
		int epoch = ar->epoch;

		bio_endio(ar->orig);
		bio_put(clone);
		r5g_aligned_done(conf, epoch);
		return;
	}
	/* replay through the stripe cache; still counted */
	spin_lock_irqsave(&conf->cache_lock, flags);
	bio_list_add(&conf->retry_list, clone);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
	queue_work(system_wq, &conf->retry_work);
}

static void r5g_retry_work(struct work_struct *work)
{
	struct r5g_conf *conf = container_of(work, struct r5g_conf,
					     retry_work);
	struct r5g_aligned *ar;
	struct bio *clone, *orig;
	int gen, epoch;

	for (;;) {
		spin_lock_irq(&conf->cache_lock);
		clone = bio_list_pop(&conf->retry_list);
		spin_unlock_irq(&conf->cache_lock);
		if (!clone)
			break;
		ar = container_of(clone, struct r5g_aligned, clone);
		orig = ar->orig;
		gen = ar->gen;
		epoch = ar->epoch;
		bio_put(clone);
		r5g_stripe_path(conf, orig, gen, R5G_GET_RETRY);
		bio_endio(orig);
		r5g_aligned_done(conf, epoch);
	}
}

/*
 * Send a read that lies in one chunk of geometry @gen straight to its
 * member. A read routed through a reshape keeps its @epoch counted until
 * it ends, so no step overwrites what it reads (-1: no reshape).
 */
static bool r5g_read_one_chunk(struct r5g_conf *conf, struct bio *bio,
			       int gen, int epoch)
{
	const struct r5g_geo *g = &conf->geo[gen];
	struct r5g_aligned *ar;
	struct md_rdev *rdev;
	struct bio *clone;
	sector_t msector;
	int disk;

	msector = r5g_map_sector(g, bio->bi_iter.bi_sector, &disk);
	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[disk].rdev);
	if (!rdev || test_bit(Faulty, &rdev->flags) ||
	    (!test_bit(In_sync, &rdev->flags) &&
	     rdev->recovery_offset < msector + bio_sectors(bio)) ||
	    r5g_is_badblock(conf, rdev, gen, msector, bio_sectors(bio))) {
		rcu_read_unlock();
		return false;
	}
	atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();

	spin_lock_irq(&conf->cache_lock);
	wait_event_lock_irq(conf->wait_stripe, !conf->quiesce,
			    conf->cache_lock);
	conf->aligned_reads++;
	spin_unlock_irq(&conf->cache_lock);

	clone = bio_alloc_clone(rdev->bdev, bio, GFP_NOIO, &conf->bio_aligned);
	ar = container_of(clone, struct r5g_aligned, clone);
	ar->rdev = rdev;
	ar->orig = bio;
	ar->gen = gen;
	ar->epoch = epoch;
	clone->bi_iter.bi_sector = msector + r5g_data_offset(conf, rdev, gen);
	clone->bi_end_io = r5g_aligned_end;
	submit_bio_noacct(clone);
	return true;
}

static void r5g_both_end(struct bio *clone)
{
	struct r5g_aligned *ar = container_of(clone, struct r5g_aligned,
					      clone);
	struct r5g_conf *conf = ar->conf;
	struct bio *orig = ar->orig;
	int epoch = ar->epoch;

	if (clone->bi_status && !orig->bi_status)
		orig->bi_status = clone->bi_status;
	bio_put(clone);
	bio_endio(orig);
	r5g_reshape_route_done(conf, epoch);
}

/*
 * A write in [C, P) of a reshape goes to both geometries: the old one
 * still holds those sectors on disk, and a crash restarts the copy at C.
 * Its epoch stays counted until both writes have ended, so no step
 * overwrites its old rows before then (r5g_step_open() waits).
 */
static void r5g_write_both(struct r5g_conf *conf, struct bio *bio, int epoch)
{
	struct r5g_aligned *ar;
	struct bio *clone;

	clone = bio_alloc_clone(bio->bi_bdev, bio, GFP_NOIO,
				&conf->bio_aligned);
	ar = container_of(clone, struct r5g_aligned, clone);
	ar->conf = conf;
	ar->rdev = NULL;
	ar->orig = bio;
	ar->gen = R5G_GEO_BOTH;
	ar->epoch = epoch;
	clone->bi_end_io = r5g_both_end;
	/* the clone ends @bio once; the caller ends it too */
	bio_inc_remaining(bio);
	r5g_stripe_path(conf, clone, R5G_GEO_CUR, 0);
	r5g_stripe_path(conf, clone, R5G_GEO_PREV, 0);
	bio_endio(clone);
}

/*
 * A read: route it through the reshape if one runs, then straight to
 * the member when it lies in one chunk, else through the stripe cache.
 */
static void r5g_read(struct r5g_conf *conf, struct bio *bio)
{
	sector_t c = conf->geo[R5G_GEO_CUR].chunk_sectors;
	int epoch = -1, gen = R5G_GEO_CUR;
	unsigned int left;

	/* the chunk is the same in both geometries */
	left = c - (bio->bi_iter.bi_sector & (c - 1));
	if (left < bio_sectors(bio)) {
		/*
		 * One chunk now, the rest back to the block layer: one split
		 * and one clone per call, so the mempools cannot run dry
		 * inside a single submission.
		 */
		struct bio *split = bio_split(bio, left, GFP_NOIO,
					      &conf->bio_split);

		bio_chain(split, bio);
		submit_bio_noacct(bio);
		bio = split;
	}
	/* P is on a row, so routing splits no one-chunk read */
	if (READ_ONCE(conf->reshape_progress) != MaxSector)
		gen = r5g_reshape_route(conf, &bio, &epoch);
	md_account_bio(conf->mddev, &bio);
	if (r5g_read_one_chunk(conf, bio, gen, epoch))
		return;
	r5g_stripe_path(conf, bio, gen, 0);
	if (epoch >= 0)
		r5g_reshape_route_done(conf, epoch);
	bio_endio(bio);
}

int r5g_bio_init(struct r5g_conf *conf)
{
	int err;

	INIT_WORK(&conf->retry_work, r5g_retry_work);
	err = bioset_init(&conf->bio_split, BIO_POOL_SIZE, 0, 0);
	if (err)
		return err;
	return bioset_init(&conf->bio_aligned, BIO_POOL_SIZE,
			   offsetof(struct r5g_aligned, clone), 0);
}

/* Undo r5g_bio_init(), also a partial one. */
void r5g_bio_exit(struct r5g_conf *conf)
{
	cancel_work_sync(&conf->retry_work);
	bioset_exit(&conf->bio_aligned);
	bioset_exit(&conf->bio_split);
}

bool r5g_make_request(struct mddev *mddev, struct bio *bio)
{
	struct r5g_conf *conf = mddev->private;

	if (unlikely(bio->bi_opf & REQ_PREFLUSH) &&
	    md_flush_request(mddev, bio))
		return true;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	default:
		/* discard and write-zeroes are not advertised */
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return true;
	}

	if (!md_write_start(mddev, bio))
		return false;

	if (!op_is_write(bio_op(bio))) {
		r5g_read(conf, bio);
		return true;
	}

	if (READ_ONCE(conf->reshape_progress) != MaxSector) {
		/* pick the geometry; may wait, may split off the rest */
		int epoch, gen = r5g_reshape_route(conf, &bio, &epoch);

		md_account_bio(mddev, &bio);
		if (gen == R5G_GEO_BOTH) {
			r5g_write_both(conf, bio, epoch);
		} else {
			r5g_stripe_path(conf, bio, gen, 0);
			r5g_reshape_route_done(conf, epoch);
		}
	} else {
		md_account_bio(mddev, &bio);
		r5g_stripe_path(conf, bio, R5G_GEO_CUR, 0);
	}
	bio_endio(bio);
	md_write_end(mddev);
	return true;
}
