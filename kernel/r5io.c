// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow I/O engine: stripe cache, request mapping, the stripe state
 * machine and sync_request.
 *
 * A stripe is one page on every member at the same member sector. Array
 * bios are cut into per-stripe pieces (struct r5g_req) and queued on the
 * stripe's per-member lists; the md thread ("daemon") is the only place
 * where a stripe is handled. A pass of r5g_handle_stripe() looks at what
 * is queued and at which members can be read or written, and either
 * finishes work from cached pages or issues member reads and writes.
 * Member I/O holds a reference on the stripe; when the last member bio
 * ends the stripe goes back to the daemon for the next pass. So a stripe
 * never has a handler and member I/O at the same time, and its pages need
 * no other lock.
 *
 * Writes: per pass, the blocks with queued writes are either updated by
 * read-modify-write (read old data and parity, parity ^= old ^ new) or by
 * reconstruct-write (read the untouched data blocks, parity = xor of all
 * data), whichever needs fewer reads. A stripe whose data blocks are all
 * overwritten needs no read at all. With a member missing, all readable
 * blocks are read, the missing one is computed, and reconstruct-write
 * is used. Array bios complete when the member writes have ended, and
 * only after a member failure seen meanwhile is recorded in the superblock.
 *
 * Reads that fall inside one chunk on a working member bypass the cache
 * and go straight to that member; if that read fails it is replayed
 * through the stripe cache, which reconstructs from the other members.
 *
 * Pages stay valid after a pass: a cached stripe whose block is
 * R5G_UPTODATE holds exactly what the member holds (writes complete only
 * after reaching the members), so later passes skip those reads.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

/* r5g_get_stripe() flags */
#define R5G_GET_NOBLOCK	BIT(0)	/* return NULL instead of waiting */
#define R5G_GET_RETRY	BIT(1)	/* replayed read: pass the quiesce gate */

/* Stripes one plug may hold back for write batching. */
#define R5G_PLUG_MAX	64

/* How a pass writes: parity update method. */
enum r5g_method { R5G_RMW, R5G_RCW, R5G_NOPARITY };

/* What r5g_handle_writes() did this pass. */
enum r5g_wstate { R5G_W_NONE, R5G_W_WAIT, R5G_W_STARTED };

/* A bypass read: the clone and where it came from. */
struct r5g_aligned {
	struct r5g_conf *conf;	/* for a write to both geometries */
	struct md_rdev *rdev;	/* for a bypass read */
	struct bio *orig;
	int gen;		/* the geometry it was mapped through */
	int epoch;		/* reshape epoch it holds, or -1 */
	struct bio clone;	/* must be last: bioset front_pad */
};

/*---- Geometry ----*/

/* Map an array sector to a member sector; *disk gets the member. */
static sector_t r5g_map_sector(const struct r5g_geo *g, sector_t lsector,
			       int *disk)
{
	unsigned int shift = ilog2(g->chunk_sectors);
	sector_t off = lsector & (g->chunk_sectors - 1);
	sector_t row = lsector >> shift;
	int k = sector_div(row, g->data_disks);

	*disk = r5g_data_disk(g, r5g_parity_disk(g, row), k);
	return (row << shift) + off;
}

/*---- Stripe cache ----*/

static struct r5g_stripe *r5g_alloc_stripe(struct r5g_conf *conf, gfp_t gfp)
{
	struct r5g_stripe *sh;
	int i;

	sh = kzalloc(struct_size(sh, dev, conf->pool_disks), gfp);
	if (!sh)
		return NULL;
	sh->conf = conf;
	spin_lock_init(&sh->lock);
	INIT_HLIST_NODE(&sh->hash);
	INIT_LIST_HEAD(&sh->lru);
	for (i = 0; i < conf->pool_disks; i++) {
		sh->dev[i].page = alloc_page(gfp);
		sh->dev[i].bio = bio_kmalloc(1, gfp);
		if (!sh->dev[i].page || !sh->dev[i].bio)
			goto out_free_devs;
	}
	return sh;

out_free_devs:
	for (; i >= 0; i--) {
		if (sh->dev[i].page)
			__free_page(sh->dev[i].page);
		kfree(sh->dev[i].bio);
	}
	kfree(sh);
	return NULL;
}

static void r5g_free_stripe(struct r5g_conf *conf, struct r5g_stripe *sh)
{
	int i;

	for (i = 0; i < conf->pool_disks; i++) {
		__free_page(sh->dev[i].page);
		kfree(sh->dev[i].bio);
	}
	kfree(sh);
}

static struct hlist_head *r5g_hash(struct r5g_conf *conf, sector_t sector,
				   int gen)
{
	u64 key = ((u64)sector >> 3) * R5G_NR_GEO + gen;

	return &conf->hash[hash_64(key, R5G_HASH_BITS)];
}

static int r5g_add_stripes(struct r5g_conf *conf, int nr)
{
	LIST_HEAD(fresh);
	struct r5g_stripe *sh, *tmp;
	int i;

	for (i = 0; i < nr; i++) {
		sh = r5g_alloc_stripe(conf, GFP_KERNEL);
		if (!sh)
			goto out_free_fresh;
		list_add(&sh->lru, &fresh);
	}
	spin_lock_irq(&conf->cache_lock);
	list_splice(&fresh, &conf->inactive);
	conf->nr_stripes += nr;
	spin_unlock_irq(&conf->cache_lock);
	wake_up(&conf->wait_stripe);
	return 0;

out_free_fresh:
	list_for_each_entry_safe(sh, tmp, &fresh, lru)
		r5g_free_stripe(conf, sh);
	return -ENOMEM;
}

/* Free idle stripes while the cache is above its target size. */
static void r5g_trim_cache(struct r5g_conf *conf)
{
	struct r5g_stripe *sh, *tmp;
	LIST_HEAD(victims);

	spin_lock_irq(&conf->cache_lock);
	while (conf->nr_stripes > READ_ONCE(conf->max_nr_stripes) &&
	       !list_empty(&conf->inactive)) {
		sh = list_last_entry(&conf->inactive, struct r5g_stripe, lru);
		list_move(&sh->lru, &victims);
		hlist_del_init(&sh->hash);
		conf->nr_stripes--;
	}
	spin_unlock_irq(&conf->cache_lock);
	list_for_each_entry_safe(sh, tmp, &victims, lru)
		r5g_free_stripe(conf, sh);
}

/* Per-pass member tables, one allocation sized for the stripe pool. */
static size_t r5g_pass_size(int disks);

int r5g_io_init(struct r5g_conf *conf, int nr)
{
	int i, err;

	mutex_init(&conf->cache_mutex);
	INIT_WORK(&conf->retry_work, r5g_retry_work);
	err = mempool_init_kmalloc_pool(&conf->req_pool, 256,
					sizeof(struct r5g_req));
	if (err)
		return err;
	err = bioset_init(&conf->bio_split, BIO_POOL_SIZE, 0, 0);
	if (err)
		return err;
	err = bioset_init(&conf->bio_aligned, BIO_POOL_SIZE,
			  offsetof(struct r5g_aligned, clone), 0);
	if (err)
		return err;
	conf->scratch = alloc_page(GFP_KERNEL);
	conf->pass = kzalloc(r5g_pass_size(conf->pool_disks), GFP_KERNEL);
	conf->hash = kcalloc(1 << R5G_HASH_BITS, sizeof(*conf->hash),
			     GFP_KERNEL);
	if (!conf->scratch || !conf->pass || !conf->hash)
		return -ENOMEM;
	for (i = 0; i < 1 << R5G_HASH_BITS; i++)
		INIT_HLIST_HEAD(&conf->hash[i]);
	conf->max_nr_stripes = nr;
	return r5g_add_stripes(conf, nr);
}

/* Undo r5g_io_init(), also a partial one: frees only what was set. */
void r5g_io_exit(struct r5g_conf *conf)
{
	struct r5g_stripe *sh, *tmp;

	cancel_work_sync(&conf->retry_work);
	WARN_ON_ONCE(conf->active_stripes);
	list_for_each_entry_safe(sh, tmp, &conf->inactive, lru) {
		list_del(&sh->lru);
		r5g_free_stripe(conf, sh);
	}
	kfree(conf->hash);
	conf->hash = NULL;
	kfree(conf->pass);
	conf->pass = NULL;
	if (conf->scratch)
		__free_page(conf->scratch);
	conf->scratch = NULL;
	bioset_exit(&conf->bio_aligned);
	bioset_exit(&conf->bio_split);
	mempool_exit(&conf->req_pool);
}

/* Grow now, or shrink as far as idle stripes allow (the rest lazily). */
int r5g_cache_resize(struct r5g_conf *conf, int nr)
{
	int err = 0;

	mutex_lock(&conf->cache_mutex);
	WRITE_ONCE(conf->max_nr_stripes, nr);
	if (nr > conf->nr_stripes)
		err = r5g_add_stripes(conf, nr - conf->nr_stripes);
	else
		r5g_trim_cache(conf);
	mutex_unlock(&conf->cache_mutex);
	return err;
}

/*
 * Widen every stripe and the member table to @disks members, for a grow
 * (issue 4). Allocate first, then swap: if any allocation fails nothing
 * has changed and -ENOMEM is returned. The caller holds reconfig_mutex
 * and has the array suspended, so every stripe is idle; cached contents
 * are dropped (the geometry is about to change anyway).
 */
int r5g_pool_grow(struct r5g_conf *conf, int disks)
{
	struct r5g_stripe *sh, *nsh, *tmp;
	struct r5g_disk *ndisks;
	LIST_HEAD(old_list);
	LIST_HEAD(fresh);
	void *npass;
	int i, old = conf->pool_disks, n = 0, err = -ENOMEM;

	lockdep_assert_held(&conf->mddev->reconfig_mutex);
	if (disks <= old)
		return 0;
	mutex_lock(&conf->cache_mutex);
	if (WARN_ON_ONCE(!conf->quiesce || conf->active_stripes)) {
		err = -EBUSY;
		goto out_unlock;
	}
	ndisks = kcalloc(disks, sizeof(*ndisks), GFP_NOIO);
	npass = kzalloc(r5g_pass_size(disks), GFP_NOIO);
	if (!ndisks || !npass)
		goto out_free_tables;
	/* new stripe heads with only the extra members' pages and bios */
	for (; n < conf->nr_stripes; n++) {
		nsh = kzalloc(struct_size(nsh, dev, disks), GFP_NOIO);
		if (!nsh)
			goto out_free_fresh;
		list_add_tail(&nsh->lru, &fresh);
		for (i = old; i < disks; i++) {
			nsh->dev[i].page = alloc_page(GFP_NOIO);
			nsh->dev[i].bio = bio_kmalloc(1, GFP_NOIO);
			if (!nsh->dev[i].page || !nsh->dev[i].bio)
				goto out_free_fresh;
		}
	}

	/* swap: nothing below can fail */
	spin_lock_irq(&conf->cache_lock);
	list_splice_init(&conf->inactive, &old_list);
	list_for_each_entry_safe(sh, tmp, &old_list, lru) {
		if (WARN_ON_ONCE(list_empty(&fresh)))
			break;
		list_del(&sh->lru);
		hlist_del_init(&sh->hash);
		nsh = list_first_entry(&fresh, struct r5g_stripe, lru);
		list_del(&nsh->lru);
		nsh->conf = conf;
		spin_lock_init(&nsh->lock);
		INIT_HLIST_NODE(&nsh->hash);
		for (i = 0; i < old; i++) {
			nsh->dev[i].page = sh->dev[i].page;
			nsh->dev[i].bio = sh->dev[i].bio;
		}
		list_add_tail(&nsh->lru, &conf->inactive);
		kfree(sh);
	}
	for (i = 0; i < old; i++)
		RCU_INIT_POINTER(ndisks[i].rdev, r5g_rdev_locked(conf, i));
	swap(conf->disks, ndisks);
	swap(conf->pass, npass);
	conf->pool_disks = disks;
	spin_unlock_irq(&conf->cache_lock);
	err = 0;
	goto out_free_tables;

out_free_fresh:
	list_for_each_entry_safe(nsh, tmp, &fresh, lru) {
		for (i = old; i < disks; i++) {
			if (nsh->dev[i].page)
				__free_page(nsh->dev[i].page);
			kfree(nsh->dev[i].bio);
		}
		kfree(nsh);
	}
out_free_tables:
	kfree(ndisks);		/* the old table after a swap */
	kfree(npass);
out_unlock:
	mutex_unlock(&conf->cache_mutex);
	return err;
}

/*
 * Forget what the cache holds, for a geometry change: every stripe is
 * idle (the caller has the array quiesced), so unhashing is enough.
 */
void r5g_cache_forget(struct r5g_conf *conf)
{
	struct r5g_stripe *sh;

	spin_lock_irq(&conf->cache_lock);
	WARN_ON_ONCE(!conf->quiesce || conf->active_stripes);
	list_for_each_entry(sh, &conf->inactive, lru)
		hlist_del_init(&sh->hash);
	spin_unlock_irq(&conf->cache_lock);
}

/*
 * True when no stripe of geometry @gen at member sectors [@lo, @hi) has
 * work queued or in flight. Called with cache_lock held.
 */
bool r5g_stripes_idle(struct r5g_conf *conf, sector_t lo, sector_t hi,
		      int gen)
{
	struct r5g_stripe *sh;
	sector_t s;

	lockdep_assert_held(&conf->cache_lock);
	for (s = round_down(lo, R5G_STRIPE_SECTORS); s < hi;
	     s += R5G_STRIPE_SECTORS)
		hlist_for_each_entry(sh, r5g_hash(conf, s, gen), hash)
			if (sh->sector == s && sh->gen == gen &&
			    (sh->count || test_bit(R5G_S_HANDLE, &sh->state) ||
			     test_bit(R5G_S_BLOCKED, &sh->state)))
				return false;
	return true;
}

int r5g_active_stripes(struct r5g_conf *conf)
{
	return READ_ONCE(conf->active_stripes);
}

/* Point an idle stripe at a new place in geometry @gen. */
static void r5g_init_stripe(struct r5g_conf *conf, struct r5g_stripe *sh,
			    sector_t sector, int gen)
{
	const struct r5g_geo *g = &conf->geo[gen];
	unsigned int shift = ilog2(g->chunk_sectors);
	sector_t row = sector >> shift;
	sector_t off = sector & (g->chunk_sectors - 1);
	sector_t first = (row * g->data_disks) << shift;
	int i, k;

	sh->sector = sector;
	sh->gen = gen;
	sh->disks = g->raid_disks;
	sh->pd_idx = r5g_parity_disk(g, row);
	sh->state = 0;
	for (i = 0; i < sh->disks; i++) {
		struct r5g_dev *dev = &sh->dev[i];

		WARN_ON_ONCE(dev->toread || dev->towrite || dev->written);
		dev->flags = 0;
		dev->lsector = MaxSector;
	}
	for (k = 0; k < g->data_disks; k++) {
		i = r5g_data_disk(g, sh->pd_idx, k);
		sh->dev[i].lsector = first + ((sector_t)k << shift) + off;
	}
}

/*
 * Get a referenced stripe for @sector in geometry @gen, reusing the
 * cached one if there is one, else the least recently used idle one.
 */
static struct r5g_stripe *r5g_get_stripe(struct r5g_conf *conf,
					 sector_t sector, int gen,
					 unsigned int flags)
{
	struct r5g_stripe *sh;
	struct hlist_head *head = r5g_hash(conf, sector, gen);

	spin_lock_irq(&conf->cache_lock);
	for (;;) {
		if (!(flags & R5G_GET_RETRY))
			wait_event_lock_irq(conf->wait_stripe, !conf->quiesce,
					    conf->cache_lock);
		hlist_for_each_entry(sh, head, hash)
			if (sh->sector == sector && sh->gen == gen)
				goto found;
		if (!list_empty(&conf->inactive)) {
			sh = list_last_entry(&conf->inactive,
					     struct r5g_stripe, lru);
			list_del_init(&sh->lru);
			hlist_del_init(&sh->hash);
			r5g_init_stripe(conf, sh, sector, gen);
			hlist_add_head(&sh->hash, head);
			conf->active_stripes++;
			sh->count = 1;
			break;
		}
		if (flags & R5G_GET_NOBLOCK) {
			sh = NULL;
			break;
		}
		wait_event_lock_irq(conf->wait_stripe,
				    !list_empty(&conf->inactive) ||
				    (conf->quiesce && !(flags & R5G_GET_RETRY)),
				    conf->cache_lock);
	}
	spin_unlock_irq(&conf->cache_lock);
	return sh;

found:
	if (!sh->count) {
		if (!test_bit(R5G_S_HANDLE, &sh->state) &&
		    !test_bit(R5G_S_BLOCKED, &sh->state))
			conf->active_stripes++;
		list_del_init(&sh->lru);
	}
	sh->count++;
	spin_unlock_irq(&conf->cache_lock);
	return sh;
}

static void r5g_release_locked(struct r5g_conf *conf, struct r5g_stripe *sh)
	__must_hold(&conf->cache_lock)
{
	lockdep_assert_held(&conf->cache_lock);
	if (WARN_ON_ONCE(sh->count <= 0) || --sh->count)
		return;
	if (test_bit(R5G_S_HANDLE, &sh->state)) {
		list_add_tail(&sh->lru, &conf->handle_list);
		md_wakeup_thread(conf->mddev->thread);
	} else if (test_bit(R5G_S_BLOCKED, &sh->state)) {
		list_add_tail(&sh->lru, &conf->blocked_list);
	} else {
		list_add(&sh->lru, &conf->inactive);
		conf->active_stripes--;
		wake_up(&conf->wait_stripe);
	}
}

static void r5g_release(struct r5g_stripe *sh)
{
	struct r5g_conf *conf = sh->conf;
	unsigned long flags;

	spin_lock_irqsave(&conf->cache_lock, flags);
	r5g_release_locked(conf, sh);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
}

/*---- Copying between bios and stripe pages ----*/

/* Sector mask of the part of @bio that falls in the block at @lsector. */
static unsigned int r5g_cover(struct bio *bio, sector_t lsector)
{
	sector_t s = max(bio->bi_iter.bi_sector, lsector);
	sector_t e = min(bio_end_sector(bio), lsector + R5G_STRIPE_SECTORS);
	unsigned int mask = 0;

	for (; s < e; s++)
		mask |= 1u << (s - lsector);
	return mask;
}

static void r5g_copy(struct bio *bio, struct page *page, sector_t lsector,
		     bool to_page)
{
	sector_t bs = bio->bi_iter.bi_sector;
	sector_t s = max(bs, lsector);
	sector_t e = min(bio_end_sector(bio), lsector + R5G_STRIPE_SECTORS);
	struct bvec_iter iter = bio->bi_iter;
	unsigned int off, len;
	char *base = page_address(page);

	if (s >= e)
		return;
	off = (s - lsector) << SECTOR_SHIFT;
	len = (e - s) << SECTOR_SHIFT;
	bio_advance_iter(bio, &iter, (s - bs) << SECTOR_SHIFT);
	while (len) {
		struct bio_vec bv = bio_iter_iovec(bio, iter);
		unsigned int n = min(bv.bv_len, len);
		char *p = kmap_local_page(bv.bv_page);

		if (to_page) {
			memcpy(base + off, p + bv.bv_offset, n);
		} else {
			memcpy(p + bv.bv_offset, base + off, n);
			flush_dcache_page(bv.bv_page);
		}
		kunmap_local(p);
		off += n;
		len -= n;
		bio_advance_iter_single(bio, &iter, n);
	}
}

/*
 * End one stripe's share of each bio on @list. For writes, @clean says
 * whether every member got the data, so the bitmap may forget the area.
 */
static void r5g_end_reqs(struct r5g_stripe *sh, struct r5g_req *list,
			 bool write, bool error, bool clean)
{
	struct r5g_conf *conf = sh->conf;
	struct r5g_req *req, *next;

	for (req = list; req; req = next) {
		next = req->next;
		if (error)
			req->bio->bi_status = BLK_STS_IOERR;
		bio_endio(req->bio);
		if (write) {
			md_bitmap_endwrite(conf->mddev->bitmap, sh->sector,
					   R5G_STRIPE_SECTORS,
					   clean && !error, 0);
			md_write_end(conf->mddev);
		}
		mempool_free(req, &conf->req_pool);
	}
}

/*---- Member I/O ----*/

static void r5g_end_io(struct bio *bio)
{
	struct r5g_stripe *sh = bio->bi_private;
	struct r5g_conf *conf = sh->conf;
	bool write = op_is_write(bio_op(bio));
	struct r5g_dev *dev = sh->dev;
	struct md_rdev *rdev;

	while (dev->bio != bio)
		dev++;
	rdev = dev->io_rdev;

	if (bio->bi_status) {
		if (!write) {
			clear_bit(R5G_UPTODATE, &dev->flags);
			set_bit(R5G_READ_ERR, &dev->flags);
		}
		md_error(conf->mddev, rdev);
	} else if (write) {
		clear_bit(R5G_READ_ERR, &dev->flags);
	} else {
		set_bit(R5G_UPTODATE, &dev->flags);
	}
	bio_uninit(bio);
	rdev_dec_pending(rdev, conf->mddev);
	if (atomic_dec_and_test(&sh->pending_io)) {
		set_bit(R5G_S_HANDLE, &sh->state);
		r5g_release(sh);
	}
}

/* Send one page to or from member @i; false if it went away meanwhile. */
static bool r5g_submit(struct r5g_stripe *sh, int i, bool write,
		       blk_opf_t extra)
{
	struct r5g_conf *conf = sh->conf;
	struct r5g_dev *dev = &sh->dev[i];
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[i].rdev);
	if (!rdev || test_bit(Faulty, &rdev->flags)) {
		rcu_read_unlock();
		return false;
	}
	atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();

	if (test_bit(R5G_S_SYNC, &sh->state))
		md_sync_acct(rdev->bdev, R5G_STRIPE_SECTORS);
	dev->io_rdev = rdev;
	bio_init(dev->bio, rdev->bdev, dev->bio->bi_inline_vecs, 1,
		 (write ? REQ_OP_WRITE | extra : REQ_OP_READ));
	dev->bio->bi_iter.bi_sector = sh->sector +
				      r5g_data_offset(conf, rdev, sh->gen);
	dev->bio->bi_end_io = r5g_end_io;
	dev->bio->bi_private = sh;
	__bio_add_page(dev->bio, dev->page, PAGE_SIZE, 0);
	submit_bio_noacct(dev->bio);
	return true;
}

/* Issue every WANT_READ/WANT_WRITE of this pass. Handler context. */
static void r5g_issue(struct r5g_stripe *sh)
{
	struct r5g_conf *conf = sh->conf;
	blk_opf_t extra = 0;
	int i, n = 0, lost = 0;

	for (i = 0; i < sh->disks; i++)
		if (test_bit(R5G_WANT_READ, &sh->dev[i].flags) ||
		    test_bit(R5G_WANT_WRITE, &sh->dev[i].flags))
			n++;
	if (!n)
		return;
	if (test_and_clear_bit(R5G_S_FUA, &sh->state))
		extra = REQ_FUA;

	spin_lock_irq(&conf->cache_lock);
	sh->count++;			/* the member I/O's reference */
	spin_unlock_irq(&conf->cache_lock);
	/* +1 bias so no completion runs the stripe before all are sent */
	atomic_set(&sh->pending_io, n + 1);

	for (i = 0; i < sh->disks; i++) {
		struct r5g_dev *dev = &sh->dev[i];
		bool ok = true;

		if (test_and_clear_bit(R5G_WANT_READ, &dev->flags)) {
			ok = r5g_submit(sh, i, false, 0);
			if (!ok)
				set_bit(R5G_READ_ERR, &dev->flags);
		} else if (test_and_clear_bit(R5G_WANT_WRITE, &dev->flags)) {
			ok = r5g_submit(sh, i, true, extra);
		} else {
			continue;
		}
		if (!ok)
			lost++;
	}
	if (atomic_sub_and_test(lost + 1, &sh->pending_io)) {
		set_bit(R5G_S_HANDLE, &sh->state);
		r5g_release(sh);
	}
}

/*---- The stripe state machine ----*/

/* What one pass found out about the members of a stripe. */
struct r5g_pass {
	int nfailed;		/* members not readable here */
	int failed;		/* the first of them */
	bool blocked;		/* a failure is not yet in the superblock */
	bool readable[];	/* indexed by member */
};

#define R5G_READABLE(p, i)	((p)->readable[i])

static size_t r5g_pass_size(int disks)
{
	struct r5g_pass *p;

	return struct_size(p, readable, disks) + 2 * disks * sizeof(bool);
}

static bool r5g_writable(struct r5g_conf *conf, int i)
{
	struct md_rdev *rdev;
	bool ok;

	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[i].rdev);
	ok = rdev && !test_bit(Faulty, &rdev->flags);
	rcu_read_unlock();
	return ok;
}

static void r5g_analyse(struct r5g_stripe *sh, struct r5g_pass *p)
{
	struct r5g_conf *conf = sh->conf;
	int i;

	p->nfailed = 0;
	p->failed = -1;
	p->blocked = false;
	rcu_read_lock();
	for (i = 0; i < sh->disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);
		bool ok = rdev && !test_bit(Faulty, &rdev->flags);

		if (rdev && test_bit(Blocked, &rdev->flags))
			p->blocked = true;
		if (ok && !test_bit(In_sync, &rdev->flags) &&
		    rdev->recovery_offset < sh->sector + R5G_STRIPE_SECTORS)
			ok = false;
		if (ok && r5g_is_badblock(conf, rdev, sh->gen, sh->sector,
					  R5G_STRIPE_SECTORS))
			ok = false;
		if (test_bit(R5G_READ_ERR, &sh->dev[i].flags))
			ok = false;
		p->readable[i] = ok;
		if (!ok) {
			if (!p->nfailed)
				p->failed = i;
			p->nfailed++;
		}
	}
	rcu_read_unlock();
}

static bool r5g_uptodate(struct r5g_stripe *sh, int i)
{
	return test_bit(R5G_UPTODATE, &sh->dev[i].flags);
}

/* dest = xor of every block of the stripe except @skip. */
static void r5g_xor_all_but(struct r5g_stripe *sh, int skip, void *dest)
{
	void *srcs[MAX_XOR_BLOCKS];
	int i, n = 0;
	bool first = true;

	for (i = 0; i < sh->disks; i++) {
		void *src;

		if (i == skip)
			continue;
		src = page_address(sh->dev[i].page);
		if (first) {
			memcpy(dest, src, PAGE_SIZE);
			first = false;
			continue;
		}
		srcs[n++] = src;
		if (n == MAX_XOR_BLOCKS) {
			xor_blocks(n, PAGE_SIZE, dest, srcs);
			n = 0;
		}
	}
	if (n)
		xor_blocks(n, PAGE_SIZE, dest, srcs);
}

/* Parity ^= the data blocks of members set in @mask. */
static void r5g_xor_into_parity(struct r5g_stripe *sh, const bool *mask)
{
	void *dest = page_address(sh->dev[sh->pd_idx].page);
	void *srcs[MAX_XOR_BLOCKS];
	int i, n = 0;

	for (i = 0; i < sh->disks; i++) {
		if (!mask[i])
			continue;
		srcs[n++] = page_address(sh->dev[i].page);
		if (n == MAX_XOR_BLOCKS) {
			xor_blocks(n, PAGE_SIZE, dest, srcs);
			n = 0;
		}
	}
	if (n)
		xor_blocks(n, PAGE_SIZE, dest, srcs);
}

/* Request reads of every readable member that is not cached. */
static int r5g_want_all(struct r5g_stripe *sh, struct r5g_pass *p)
{
	int i, n = 0;

	for (i = 0; i < sh->disks; i++) {
		if (r5g_uptodate(sh, i) || !R5G_READABLE(p, i))
			continue;
		set_bit(R5G_WANT_READ, &sh->dev[i].flags);
		n++;
	}
	return n;
}

/*
 * Rebuild the one unreadable block from the others when they are all
 * cached. Returns true when every block of the stripe is cached.
 */
static bool r5g_compute_missing(struct r5g_stripe *sh, struct r5g_pass *p)
{
	int i;

	for (i = 0; i < sh->disks; i++)
		if (i != p->failed && !r5g_uptodate(sh, i))
			return false;
	if (p->failed >= 0 && !r5g_uptodate(sh, p->failed)) {
		r5g_xor_all_but(sh, p->failed,
				page_address(sh->dev[p->failed].page));
		set_bit(R5G_UPTODATE, &sh->dev[p->failed].flags);
	}
	return true;
}

/* Serve queued reads whose blocks are cached. */
static void r5g_serve_reads(struct r5g_stripe *sh, struct r5g_pass *p)
{
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5g_dev *dev = &sh->dev[i];
		struct r5g_req *list, *req;

		if (!READ_ONCE(dev->toread))
			continue;
		if (!r5g_uptodate(sh, i)) {
			if (R5G_READABLE(p, i))
				set_bit(R5G_WANT_READ, &dev->flags);
			else
				r5g_want_all(sh, p);
			continue;
		}
		spin_lock(&sh->lock);
		list = dev->toread;
		dev->toread = NULL;
		spin_unlock(&sh->lock);
		for (req = list; req; req = req->next)
			r5g_copy(req->bio, dev->page, dev->lsector, false);
		r5g_end_reqs(sh, list, false, false, true);
	}
}

/*
 * Start writing the queued array writes if the blocks they need are
 * cached; otherwise ask for the reads that get them there.
 */
static enum r5g_wstate r5g_handle_writes(struct r5g_stripe *sh,
					 struct r5g_pass *p,
					 bool *want, bool *full)
{
	struct r5g_conf *conf = sh->conf;
	int i, pd = sh->pd_idx, nwrite = 0;
	int rmw = 0, rcw = 0;
	enum r5g_method method;

	spin_lock(&sh->lock);
	for (i = 0; i < sh->disks; i++) {
		struct r5g_req *req;
		unsigned int mask = 0;

		want[i] = sh->dev[i].towrite;
		full[i] = false;
		if (!want[i])
			continue;
		nwrite++;
		for (req = sh->dev[i].towrite; req; req = req->next)
			mask |= r5g_cover(req->bio, sh->dev[i].lsector);
		full[i] = mask == R5G_SECTOR_MASK;
	}
	spin_unlock(&sh->lock);
	if (!nwrite)
		return R5G_W_NONE;

	if (p->nfailed) {
		/* one member missing: read all, compute it, reconstruct */
		if (r5g_want_all(sh, p) || !r5g_compute_missing(sh, p))
			return R5G_W_WAIT;
		if (p->failed == pd && !r5g_writable(conf, pd))
			method = R5G_NOPARITY;
		else
			method = R5G_RCW;
	} else {
		for (i = 0; i < sh->disks; i++) {
			if (i == pd || r5g_uptodate(sh, i))
				continue;
			if (want[i])
				rmw++;
			if (!want[i] || !full[i])
				rcw++;
		}
		if (!r5g_uptodate(sh, pd))
			rmw++;
		if (!rcw) {
			method = R5G_RCW;
		} else if (!rmw) {
			method = R5G_RMW;
		} else {
			/* fetch what the cheaper method needs, decide again */
			method = rcw <= rmw ? R5G_RCW : R5G_RMW;
			for (i = 0; i < sh->disks; i++) {
				bool need;

				if (r5g_uptodate(sh, i))
					continue;
				if (method == R5G_RCW)
					need = i != pd && (!want[i] || !full[i]);
				else
					need = want[i] || i == pd;
				if (need)
					set_bit(R5G_WANT_READ,
						&sh->dev[i].flags);
			}
			return R5G_W_WAIT;
		}
	}

	if (conf->mddev->bitmap && READ_ONCE(sh->bm_seq) > conf->bm_flushed) {
		/* the bitmap must say "dirty" on disk before data moves */
		u64 seq = atomic64_read(&conf->bm_seq);

		md_bitmap_unplug(conf->mddev->bitmap);
		conf->bm_flushed = seq;
	}

	if (method == R5G_RMW)
		r5g_xor_into_parity(sh, want);	/* take the old data out */

	/* drain: the queued writes of the chosen members go to the pages */
	spin_lock(&sh->lock);
	for (i = 0; i < sh->disks; i++) {
		if (!want[i])
			continue;
		WARN_ON_ONCE(sh->dev[i].written);
		sh->dev[i].written = sh->dev[i].towrite;
		sh->dev[i].towrite = NULL;
	}
	spin_unlock(&sh->lock);
	for (i = 0; i < sh->disks; i++) {
		struct r5g_req *req;

		if (!want[i])
			continue;
		for (req = sh->dev[i].written; req; req = req->next) {
			r5g_copy(req->bio, sh->dev[i].page,
				 sh->dev[i].lsector, true);
			if (req->bio->bi_opf & REQ_FUA)
				set_bit(R5G_S_FUA, &sh->state);
		}
		set_bit(R5G_UPTODATE, &sh->dev[i].flags);
		if (r5g_writable(conf, i))
			set_bit(R5G_WANT_WRITE, &sh->dev[i].flags);
	}

	if (method == R5G_RMW) {
		r5g_xor_into_parity(sh, want);	/* put the new data in */
	} else if (method == R5G_RCW) {
		r5g_xor_all_but(sh, pd, page_address(sh->dev[pd].page));
		set_bit(R5G_UPTODATE, &sh->dev[pd].flags);
	} else {
		clear_bit(R5G_UPTODATE, &sh->dev[pd].flags);
	}
	if (method != R5G_NOPARITY && r5g_writable(conf, pd))
		set_bit(R5G_WANT_WRITE, &sh->dev[pd].flags);
	set_bit(R5G_S_WRITE, &sh->state);
	return R5G_W_STARTED;
}

static void r5g_sync_done(struct r5g_stripe *sh, bool ok)
{
	clear_bit(R5G_S_SYNC_READ, &sh->state);
	clear_bit(R5G_S_SYNC_WRITE, &sh->state);
	/*
	 * No md_bitmap_end_sync() here: a bitmap chunk spans many stripes,
	 * and ending it after the first would make the rest look clean.
	 * md_bitmap_cond_end_sync() in sync_request ends whole chunks once
	 * everything before them is done.
	 */
	if (test_and_clear_bit(R5G_S_SYNC, &sh->state))
		md_done_sync(sh->conf->mddev, R5G_STRIPE_SECTORS, ok);
}

/* Resync/check/repair of parity, or rebuild of a recovering member. */
static void r5g_handle_sync(struct r5g_stripe *sh, struct r5g_pass *p)
{
	struct r5g_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	int i, pd = sh->pd_idx;

	if (p->nfailed == 1 && r5g_writable(conf, p->failed)) {
		/* rebuild the block of the recovering member */
		if (r5g_want_all(sh, p))
			return;
		clear_bit(R5G_UPTODATE, &sh->dev[p->failed].flags);
		if (!r5g_compute_missing(sh, p))
			return;
		set_bit(R5G_WANT_WRITE, &sh->dev[p->failed].flags);
		set_bit(R5G_S_SYNC_WRITE, &sh->state);
		return;
	}
	if (p->nfailed) {
		/* degraded: nothing to compare against */
		r5g_sync_done(sh, true);
		return;
	}
	if (!test_and_set_bit(R5G_S_SYNC_READ, &sh->state)) {
		/* compare what is on the members, not what is cached */
		for (i = 0; i < sh->disks; i++)
			clear_bit(R5G_UPTODATE, &sh->dev[i].flags);
		r5g_want_all(sh, p);
		return;
	}
	if (r5g_want_all(sh, p))
		return;
	r5g_xor_all_but(sh, -1, page_address(conf->scratch));
	if (!memchr_inv(page_address(conf->scratch), 0, PAGE_SIZE)) {
		r5g_sync_done(sh, true);
		return;
	}
	atomic64_add(R5G_STRIPE_SECTORS, &mddev->resync_mismatches);
	if (test_bit(MD_RECOVERY_CHECK, &mddev->recovery)) {
		r5g_sync_done(sh, true);
		return;
	}
	r5g_xor_all_but(sh, pd, page_address(sh->dev[pd].page));
	set_bit(R5G_WANT_WRITE, &sh->dev[pd].flags);
	set_bit(R5G_S_SYNC_WRITE, &sh->state);
}

/* Fail everything queued: two members are gone here. */
static void r5g_fail_stripe(struct r5g_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5g_dev *dev = &sh->dev[i];
		struct r5g_req *rd, *wr;

		spin_lock(&sh->lock);
		rd = dev->toread;
		wr = dev->towrite;
		dev->toread = NULL;
		dev->towrite = NULL;
		spin_unlock(&sh->lock);
		r5g_end_reqs(sh, rd, false, true, false);
		r5g_end_reqs(sh, wr, true, true, false);
		r5g_end_reqs(sh, dev->written, true, true, false);
		dev->written = NULL;
	}
	if (test_bit(R5G_S_SYNC, &sh->state))
		r5g_sync_done(sh, false);
}

/* One pass over one stripe. Runs in the daemon only, see above. */
static void r5g_handle_stripe(struct r5g_stripe *sh, struct r5g_pass *p,
			      bool *want, bool *full)
{
	int i;

	r5g_analyse(sh, p);

	if (p->nfailed > 1) {
		clear_bit(R5G_S_WRITE, &sh->state);
		r5g_fail_stripe(sh);
		return;
	}

	/* results of the previous pass */
	if (test_bit(R5G_S_WRITE, &sh->state)) {
		if (p->blocked && !READ_ONCE(sh->conf->quiesce)) {
			/*
			 * Ack only once the failure is on record. Under
			 * quiesce (stop) the caller holds the lock the
			 * superblock update needs: do not wait there.
			 */
			set_bit(R5G_S_BLOCKED, &sh->state);
			return;
		}
		clear_bit(R5G_S_WRITE, &sh->state);
		for (i = 0; i < sh->disks; i++) {
			r5g_end_reqs(sh, sh->dev[i].written, true, false,
				     !p->nfailed);
			sh->dev[i].written = NULL;
		}
	}
	if (test_bit(R5G_S_SYNC_WRITE, &sh->state))
		r5g_sync_done(sh, true);

	if (p->nfailed)
		r5g_compute_missing(sh, p);
	r5g_serve_reads(sh, p);
	if (r5g_handle_writes(sh, p, want, full) == R5G_W_NONE &&
	    test_bit(R5G_S_SYNC, &sh->state))
		r5g_handle_sync(sh, p);
	r5g_issue(sh);
}

/*---- The daemon (md thread) ----*/

void r5g_daemon(struct md_thread *thread)
{
	struct mddev *mddev = thread->mddev;
	struct r5g_conf *conf = mddev->private;
	struct r5g_stripe *sh;
	struct blk_plug plug;
	struct r5g_pass *p;
	bool *want, *full;
	int handled = 0;

	md_check_recovery(mddev);

	p = conf->pass;
	want = p->readable + conf->pool_disks;
	full = want + conf->pool_disks;

	blk_start_plug(&plug);
	spin_lock_irq(&conf->cache_lock);
	while (!list_empty(&conf->blocked_list)) {
		sh = list_first_entry(&conf->blocked_list, struct r5g_stripe,
				      lru);
		clear_bit(R5G_S_BLOCKED, &sh->state);
		set_bit(R5G_S_HANDLE, &sh->state);
		list_move_tail(&sh->lru, &conf->handle_list);
	}
	while (!list_empty(&conf->handle_list)) {
		sh = list_first_entry(&conf->handle_list, struct r5g_stripe,
				      lru);
		list_del_init(&sh->lru);
		sh->count++;
		clear_bit(R5G_S_HANDLE, &sh->state);
		spin_unlock_irq(&conf->cache_lock);

		r5g_handle_stripe(sh, p, want, full);
		cond_resched();

		spin_lock_irq(&conf->cache_lock);
		r5g_release_locked(conf, sh);
		if (++handled % 32 == 0 && mddev->sb_flags) {
			spin_unlock_irq(&conf->cache_lock);
			md_check_recovery(mddev);
			spin_lock_irq(&conf->cache_lock);
		}
	}
	thread->timeout = list_empty(&conf->blocked_list) ?
		MAX_SCHEDULE_TIMEOUT : HZ / 20;
	spin_unlock_irq(&conf->cache_lock);
	blk_finish_plug(&plug);

	if (conf->nr_stripes > READ_ONCE(conf->max_nr_stripes) &&
	    mutex_trylock(&conf->cache_mutex)) {
		r5g_trim_cache(conf);
		mutex_unlock(&conf->cache_mutex);
	}
}

/*---- Array requests ----*/

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

void r5g_retry_work(struct work_struct *work)
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

/*---- sync_request: resync, check, repair, rebuild ----*/

sector_t r5g_sync_request(struct mddev *mddev, sector_t sector_nr,
			  int *skipped)
{
	struct r5g_conf *conf = mddev->private;
	struct r5g_stripe *sh;
	sector_t max, blocks;
	bool still_degraded = false;
	int i;

	if (test_bit(MD_RECOVERY_RESHAPE, &mddev->recovery))
		return r5g_reshape_request(mddev, sector_nr, skipped);
	if (test_bit(MD_RECOVERY_SYNC, &mddev->recovery))
		max = mddev->resync_max_sectors;
	else
		max = mddev->dev_sectors;
	if (sector_nr >= max) {
		/* the final call: settle the bitmap */
		if (mddev->curr_resync < max)
			md_bitmap_end_sync(mddev->bitmap, mddev->curr_resync,
					   &blocks, 1);
		else
			conf->fullsync = false;
		md_bitmap_close_sync(mddev->bitmap);
		return 0;
	}

	if (test_bit(MD_RECOVERY_SYNC, &mddev->recovery) && mddev->degraded) {
		/* no redundancy to check or repair */
		*skipped = 1;
		return max - sector_nr;
	}
	if (sector_nr & (R5G_STRIPE_SECTORS - 1)) {
		/* only from a hand-set start; round up to a stripe */
		*skipped = 1;
		return R5G_STRIPE_SECTORS -
		       (sector_nr & (R5G_STRIPE_SECTORS - 1));
	}

	rcu_read_lock();
	for (i = 0; i < conf->geo[R5G_GEO_CUR].raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		if (!rdev || test_bit(Faulty, &rdev->flags))
			still_degraded = true;
	}
	rcu_read_unlock();
	/* a look first (degraded = 1 changes nothing in the bitmap) */
	if (!md_bitmap_start_sync(mddev->bitmap, sector_nr, &blocks, 1) &&
	    !test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery) &&
	    !conf->fullsync && blocks >= R5G_STRIPE_SECTORS) {
		/* the bitmap says this area is in sync */
		*skipped = 1;
		return round_down(blocks, R5G_STRIPE_SECTORS);
	}
	md_bitmap_cond_end_sync(mddev->bitmap, sector_nr, false);
	/* now mark the chunk as being synced, unless still degraded */
	md_bitmap_start_sync(mddev->bitmap, sector_nr, &blocks, still_degraded);

	sh = r5g_get_stripe(conf, sector_nr, R5G_GEO_CUR, 0);
	set_bit(R5G_S_SYNC, &sh->state);
	set_bit(R5G_S_HANDLE, &sh->state);
	r5g_release(sh);
	return R5G_STRIPE_SECTORS;
}

/* quiesce(1): no new stripe work, and wait until everything is idle. */
void r5g_quiesce(struct mddev *mddev, int quiesce)
{
	struct r5g_conf *conf = mddev->private;

	spin_lock_irq(&conf->cache_lock);
	if (quiesce) {
		conf->quiesce = 1;
		wait_event_lock_irq(conf->wait_stripe,
				    !conf->active_stripes &&
				    !conf->aligned_reads &&
				    !conf->reshape_steps,
				    conf->cache_lock);
	} else {
		conf->quiesce = 0;
		wake_up_all(&conf->wait_stripe);
	}
	spin_unlock_irq(&conf->cache_lock);
}
