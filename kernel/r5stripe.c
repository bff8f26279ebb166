// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow stripe handler: the state machine of one stripe, its member I/O
 * and the daemon (md thread) that runs it.
 *
 * Array bios are cut into per-stripe pieces (struct r5g_req, r5bio.c) and
 * queued on the stripe's per-member lists; the daemon is the only place
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
 * Pages stay valid after a pass: a cached stripe whose block is
 * R5G_UPTODATE holds exactly what the member holds (writes complete only
 * after reaching the members), so the next passes skip those reads.
 *
 * Locks: stripe->lock around the bio lists, cache_lock for the stripe's
 * reference and state lists (r5cache.c). Reads reshape_progress only
 * through r5g_data_offset(): a stripe knows its own geometry.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/raid/xor.h>
#include <linux/string.h>
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

/* How a pass writes: parity update method. */
enum r5g_method { R5G_RMW, R5G_RCW, R5G_NOPARITY };

/* What r5g_handle_writes() did this pass. */
enum r5g_wstate { R5G_W_NONE, R5G_W_WAIT, R5G_W_STARTED };

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

	if (bio->bi_status && write) {
		md_error(conf->mddev, rdev);
	} else if (bio->bi_status) {
		clear_bit(R5G_UPTODATE, &dev->flags);
		set_bit(R5G_READ_ERR, &dev->flags);
		if (test_and_clear_bit(R5G_REREAD, &dev->flags)) {
			pr_warn("md/raid:%s: read error not corrected (sector %llu on %pg): failing it\n",
				mdname(conf->mddev),
				(unsigned long long)sh->sector, rdev->bdev);
			md_error(conf->mddev, rdev);
		} else if (r5g_read_error(conf, rdev, sh->sector)) {
			set_bit(R5G_REWRITE, &dev->flags);
		}
	} else if (write) {
		/* a block rebuilt after a read error is trusted once re-read */
		if (test_and_clear_bit(R5G_REWRITE, &dev->flags))
			set_bit(R5G_REREAD, &dev->flags);
		else
			clear_bit(R5G_READ_ERR, &dev->flags);
	} else {
		set_bit(R5G_UPTODATE, &dev->flags);
		if (test_and_clear_bit(R5G_REREAD, &dev->flags)) {
			clear_bit(R5G_READ_ERR, &dev->flags);
			atomic_inc(&rdev->corrected_errors);
			pr_info_ratelimited("md/raid:%s: read error corrected (%lu sectors at %llu on %pg)\n",
					    mdname(conf->mddev),
					    (unsigned long)R5G_STRIPE_SECTORS,
					    (unsigned long long)sh->sector,
					    rdev->bdev);
		}
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

#define R5G_READABLE(p, i)	((p)->readable[i])

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

/*
 * md's read-error repair, once the unreadable block is rebuilt: write it
 * back to the member (r5g_end_io() then asks for the re-read).
 */
static void r5g_rewrite(struct r5g_stripe *sh, struct r5g_pass *p)
{
	struct r5g_dev *dev;

	if (p->nfailed != 1)
		return;
	dev = &sh->dev[p->failed];
	if (!test_bit(R5G_REWRITE, &dev->flags) ||
	    test_bit(R5G_WANT_WRITE, &dev->flags))
		return;
	if (!r5g_writable(sh->conf, p->failed)) {
		clear_bit(R5G_REWRITE, &dev->flags);
		return;
	}
	if (r5g_want_all(sh, p) || !r5g_compute_missing(sh, p))
		return;
	set_bit(R5G_WANT_WRITE, &dev->flags);
}

/*
 * The re-read of a written-back block, alone in its pass: nothing else
 * touches the page while it is read into. True when it was asked for.
 */
static bool r5g_reread(struct r5g_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5g_dev *dev = &sh->dev[i];

		if (!test_bit(R5G_REREAD, &dev->flags))
			continue;
		if (!r5g_writable(sh->conf, i)) {
			clear_bit(R5G_REREAD, &dev->flags);
			continue;
		}
		clear_bit(R5G_UPTODATE, &dev->flags);
		set_bit(R5G_WANT_READ, &dev->flags);
		return true;
	}
	return false;
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
	if (r5g_reread(sh))
		goto issue;

	if (p->nfailed)
		r5g_compute_missing(sh, p);
	r5g_serve_reads(sh, p);
	if (r5g_handle_writes(sh, p, want, full) == R5G_W_NONE &&
	    test_bit(R5G_S_SYNC, &sh->state))
		r5g_handle_sync(sh, p);
	r5g_rewrite(sh, p);
issue:
	r5g_issue(sh);
}

/*---- The daemon (md thread) ----*/

/*
 * Wake every HZ / 20 while stripes wait for a blocked member. Otherwise
 * the timeout is md's: the bitmap daemon sets it to its flush period
 * while bits are dirty, and md_bitmap_daemon_work() only clears them
 * when the thread wakes.
 */
static void r5g_blocked_poll(struct r5g_conf *conf, struct md_thread *thread,
			     bool blocked)
{
	struct mddev *mddev = conf->mddev;

	if (blocked) {
		conf->blocked_poll = true;
		thread->timeout = HZ / 20;
	} else if (conf->blocked_poll) {
		conf->blocked_poll = false;
		thread->timeout = mddev->bitmap ?
			mddev->bitmap_info.daemon_sleep : MAX_SCHEDULE_TIMEOUT;
	}
}

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
	r5g_blocked_poll(conf, thread, !list_empty(&conf->blocked_list));
	spin_unlock_irq(&conf->cache_lock);
	blk_finish_plug(&plug);

	if (conf->nr_stripes > READ_ONCE(conf->max_nr_stripes) &&
	    mutex_trylock(&conf->cache_mutex)) {
		r5g_trim_cache(conf);
		mutex_unlock(&conf->cache_mutex);
	}
}
