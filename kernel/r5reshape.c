// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow reshape engine: online grow of a RAID-5 onto more members.
 *
 * Sectors are 512 bytes. od/nd are the old/new data-member counts, c the
 * chunk (the same in both geometries), a "row" one chunk on every member.
 * Old row r holds array sectors [r*c*od, (r+1)*c*od), new row q holds
 * [q*c*nd, (q+1)*c*nd); both are c sectors high on each member.
 *
 * Cursors (struct r5g_conf, array sectors, under cache_lock, forward only):
 *
 *   C  reshape_safe      the reshape_position the superblocks record. A
 *                        crash restarts at C: old-geometry data of array
 *                        sectors >= C must stay intact on disk.
 *   P  reshape_progress  array sectors below P are in the new geometry on
 *                        the members (their step writes have ended).
 *   W  reshape_window    end of the steps in flight, rounded up to a whole
 *                        old row. Requests overlapping [P, W) wait until P
 *                        passes them and are then routed again.
 *
 * Routing a request [s, e): e <= P: new geometry; s >= W: old geometry;
 * straddling P with no step there: split at P; else wait. A write below
 * P that reaches past C (split at C) goes to both geometries: a crash
 * restarts at C and copies the old geometry's data over the new one, and
 * the old rows of [C, P) are still intact on disk. Such a write keeps its
 * epoch counted until both halves end, so the step that later overwrites
 * its old rows (once C has passed them) waits for it. It waits instead
 * while a step reads its last old row (one that reaches past P). Reads
 * below P never wait; reads that lie in one chunk go straight to the
 * member, also counted until they end.
 *
 * Where the new geometry goes: every member's data moves back by D
 * sectors (new_data_offset = data_offset - D, D >= c; from mdadm if it
 * set new_offset, else one chunk, which leaves room for later grows).
 * New row q then overwrites, on an old member, only old rows below
 * q + 1 - D/c. A step writing new rows below q1 needs those old rows to
 * be wholly below C: C >= (q1 - D/c) * c * od. If C is short, the step
 * waits for the steps in flight, checkpoints at P and goes on; a step
 * from new row q0 holds at most D/c + q0 * (nd - od) / od rows, so this
 * always suffices: there is no critical section and no backup. Steps
 * start at D/c rows and grow as the reshape moves away from the start.
 *
 * Metadata without room before the data (0.90, 1.0, or 1.x after many
 * grows) keeps D = 0. Then the first new rows overwrite old rows not yet
 * recorded as copied: that critical section is done inside
 * start_reshape with the array suspended, backed up first to the new
 * members in mdadm's backup format (see r5g_critical_section()).
 *
 * A step (one sync_request call) copies up to rs->max_nrows new rows:
 * it sets W, waits for the requests that routed before (two-epoch
 * count) and for the old-geometry stripes of its source rows to go idle,
 * reads the source old rows straight from the members (all of each row,
 * so a missing member can be rebuilt from parity), builds the new rows
 * from the read pages (no copy: the write bios point at them), computes
 * new parity, zero-fills past the old end, and writes the new rows to
 * every new member. Two steps are in flight at most: one reading while
 * the other writes. When a step's writes end, P moves over it (in step
 * order) and md_done_sync() reports the sectors to md.
 *
 * Checkpoints (superblock writes of P, by md_update_sb() from the sync
 * thread or a work item) happen when a step needs one and every
 * reshape_checkpoint_ms. md writes the superblocks with PREFLUSH+FUA, so
 * the copied data is durable before the position that relies on it.
 * Before the end switches the offsets, every request routed before it
 * has ended (r5g_drain_routed()).
 */
#include <linux/bio.h>
#include <linux/delay.h>
#include <linux/blkdev.h>
#include <linux/gcd.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "md.h"
#include "r5grow.h"

#define R5G_RS_STEPS		2		/* steps in flight */
#define R5G_RS_SECTORS		(4096 * 2)	/* array data per step, about */
#define R5G_RS_SECTORS_MAX	(4 * R5G_RS_SECTORS)	/* ... to line rows up */
#define R5G_CKPT_MS		1000		/* default checkpoint interval */
#define R5G_CKPT_RETRY		2		/* jiffies: reconfig_mutex was busy */
#define R5G_FG_RECENT		(HZ / 10)	/* foreground I/O counts this long */
#define R5G_SPEED_MIN		1000		/* md's speed_limit_min default */
#define R5G_FG_SHARE		2		/* pause: this many times a step */
#define R5G_PAUSE_MAX_NS	(200 * NSEC_PER_MSEC)	/* longest pause */

/*
 * Fault-injection hook for the power-cut tests: pause this long at each
 * stage of the critical section, after saying which stage it is.
 */
static unsigned int crit_pause_ms;
module_param(crit_pause_ms, uint, 0644);
MODULE_PARM_DESC(crit_pause_ms, "test hook: pause at each critical-section stage (ms)");

static void r5g_crit_stage(struct mddev *mddev, const char *stage)
{
	unsigned int ms = READ_ONCE(crit_pause_ms);

	if (!ms)
		return;
	pr_info("md/raid:%s: critical section: %s\n", mdname(mddev), stage);
	msleep(ms);
}

/* One step: new rows [nrow, nrow + nrows), read from old rows. */
struct r5g_rstep {
	struct r5g_conf *conf;
	sector_t lo, hi;	/* array sectors of the new rows */
	sector_t nrow, orow;	/* first new row, first old row read */
	int nrows, orows;
	atomic_t pending;	/* member bios in flight, +1 while sending */
	bool busy;		/* sent, not yet retired; cache_lock */
	bool done;		/* writes ended, waits for its turn; cache_lock */
	bool writing;		/* the bios in flight are writes */
	bool retire;		/* the writes end the step (else: complete) */
	bool quiet;		/* not counted with md (critical section) */
	blk_opf_t extra;	/* added to the op of the writes */
	bool werr;		/* a write failed (critical section) */
	u64 t0;			/* ktime_get_ns() when its reads were sent */
	struct completion reads;
	unsigned long *bad;	/* old members whose read failed */
	struct page **src;	/* [old member][max_orows * cpp] */
	struct page **par;	/* [max_nrows * cpp] */
};

/* Step buffers, allocated when a reshape starts or resumes. */
struct r5g_reshape {
	int cpp;		/* pages per chunk */
	int max_nrows, max_orows;
	int period;		/* new rows after which new and old rows line up */
	int odisks;		/* old members, parity included */
	int next;		/* slot of the next step */
	struct page **vec;	/* [new raid_disks] xor sources */
	struct page ***chunks;	/* [new raid_disks] data chunks of a row */
	sector_t issued;	/* end of the last step sent (array sector) */
	u64 step_ns;		/* how long the last retired step took */
	struct bio_set bs;	/* member bios; front_pad r5g_rbio */
	struct r5g_rstep step[R5G_RS_STEPS];
};

/* A member bio of a step. */
struct r5g_rbio {
	struct r5g_rstep *st;
	struct md_rdev *rdev;
	int disk;
	struct bio bio;		/* last: bioset front_pad */
};

/*---- Geometry arithmetic ----*/

static sector_t r5g_row_len(const struct r5g_geo *g)
{
	return (sector_t)g->chunk_sectors * g->data_disks;
}

/* Rows per member (the same in both geometries). */
static sector_t r5g_rows(struct r5g_conf *conf)
{
	return conf->mddev->dev_sectors >>
		ilog2(conf->geo[R5G_GEO_CUR].chunk_sectors);
}

/* Array sectors the new geometry holds. */
static sector_t r5g_new_end(struct r5g_conf *conf)
{
	return r5g_rows(conf) * r5g_row_len(&conf->geo[R5G_GEO_CUR]);
}

static sector_t r5g_old_end(struct r5g_conf *conf)
{
	return r5g_rows(conf) * r5g_row_len(&conf->geo[R5G_GEO_PREV]);
}

/*---- Routing requests ----*/

/* Split off [bs, at) of *@biop for the caller; resubmit the rest. */
static void r5g_route_split(struct r5g_conf *conf, struct bio **biop,
			    sector_t at)
{
	struct bio *bio = *biop, *split;

	spin_unlock_irq(&conf->cache_lock);
	split = bio_split(bio, at - bio->bi_iter.bi_sector, GFP_NOIO,
			  &conf->bio_split);
	bio_chain(split, bio);
	submit_bio_noacct(bio);
	*biop = split;
	spin_lock_irq(&conf->cache_lock);
}

/*
 * Choose the geometry for @bio and count it in the current epoch; see the
 * top of this file. May wait, and may split @bio at P or C, resubmitting
 * the rest. Returns R5G_GEO_CUR, R5G_GEO_PREV, or R5G_GEO_BOTH for a
 * write in [C, P), which the caller writes in both geometries and keeps
 * counted until both have ended. Otherwise the caller calls
 * r5g_reshape_route_done() when the bio is queued.
 */
int r5g_reshape_route(struct r5g_conf *conf, struct bio **biop, int *epoch)
{
	sector_t rl = r5g_row_len(&conf->geo[R5G_GEO_PREV]);
	bool write = op_is_write(bio_op(*biop));
	int gen;

	spin_lock_irq(&conf->cache_lock);
	WRITE_ONCE(conf->fg_time, jiffies);
	for (;;) {
		sector_t p = conf->reshape_progress, w = conf->reshape_window;
		sector_t c = conf->reshape_safe;
		sector_t bs = (*biop)->bi_iter.bi_sector;
		sector_t be = bio_end_sector(*biop);

		if (p == MaxSector || be <= bs) {
			gen = R5G_GEO_CUR;
			break;
		}
		/*
		 * At most one split per submission (one mempool): a write
		 * across C splits there first, and the rest comes back.
		 */
		if (write && bs < c && be > c) {
			r5g_route_split(conf, biop, c);
			continue;
		}
		if (be <= p && (!write || be <= c)) {
			gen = R5G_GEO_CUR;
			break;
		}
		/*
		 * A write in [C, P) in the old geometry too, where it still
		 * is on disk: a crash restarts at C and copies it from
		 * there. Not while a step reads its last old row, which
		 * reaches past P.
		 */
		if (be <= p && (w <= p || DIV64_U64_ROUND_UP(be, rl) * rl <= p)) {
			gen = R5G_GEO_BOTH;
			break;
		}
		if (bs >= w) {
			gen = R5G_GEO_PREV;
			break;
		}
		if (bs < p && be > p) {
			r5g_route_split(conf, biop, p);
			continue;
		}
		wait_event_lock_irq(conf->wait_reshape,
				    conf->reshape_progress != p ||
				    conf->reshape_window != w ||
				    conf->reshape_safe != c,
				    conf->cache_lock);
	}
	*epoch = conf->reshape_epoch;
	conf->reshape_users[*epoch]++;
	spin_unlock_irq(&conf->cache_lock);
	return gen;
}

/* Also from bio completion (bypass reads). */
void r5g_reshape_route_done(struct r5g_conf *conf, int epoch)
{
	unsigned long flags;

	spin_lock_irqsave(&conf->cache_lock, flags);
	if (!--conf->reshape_users[epoch])
		wake_up_all(&conf->wait_reshape);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
}

/*---- Checkpoints ----*/

/*
 * Record P in the superblocks, written here with md_update_sb(), and
 * return once they are on disk. Not through md's thread with
 * MD_SB_CHANGE_PENDING: that holds every array write in md_write_start()
 * for the length of the superblock write. md_update_sb() wants
 * reconfig_mutex: the sync thread tries for it until md interrupts the
 * reshape (whoever interrupts holds it; -EINTR), other callers try once
 * (-EAGAIN: try again later, with ckpt_mutex released between).
 * Returns 0 when C == P at the time of the call.
 */
static int r5g_checkpoint(struct r5g_conf *conf, bool sync_thread)
{
	struct mddev *mddev = conf->mddev;
	sector_t pos;

	lockdep_assert_held(&conf->ckpt_mutex);
	while (!mddev_trylock(mddev)) {
		if (!sync_thread)
			return -EAGAIN;
		if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
			return -EINTR;
		usleep_range(1000, 2000);
	}
	/*
	 * md's "frozen" and "idle" drop reconfig_mutex while they stop the
	 * thread; the thread stops without a new checkpoint, and
	 * r5g_finish_reshape() records where it stopped.
	 */
	if (sync_thread && test_bit(MD_RECOVERY_INTR, &mddev->recovery)) {
		mddev_unlock(mddev);
		return -EINTR;
	}
	/* under cache_lock: never after the end switched the offsets */
	spin_lock_irq(&conf->cache_lock);
	pos = conf->reshape_progress;
	if (pos == MaxSector || pos <= conf->reshape_safe) {
		spin_unlock_irq(&conf->cache_lock);
		mddev_unlock(mddev);
		return 0;
	}
	mddev->reshape_position = pos;
	spin_unlock_irq(&conf->cache_lock);

	mddev->curr_resync_completed =
		div_u64(pos, conf->geo[R5G_GEO_CUR].data_disks);
	/* PREFLUSH+FUA: the steps' writes are durable before it */
	md_update_sb(mddev, 1);
	mddev_unlock(mddev);

	spin_lock_irq(&conf->cache_lock);
	if (conf->reshape_safe < pos)
		conf->reshape_safe = pos;
	spin_unlock_irq(&conf->cache_lock);
	wake_up_all(&conf->wait_reshape);
	conf->ckpt_time = jiffies;
	sysfs_notify_dirent_safe(mddev->sysfs_completed);
	return 0;
}

static void r5g_ckpt_work(struct work_struct *work)
{
	struct r5g_conf *conf = container_of(to_delayed_work(work),
					     struct r5g_conf, ckpt_work);
	int err;

	mutex_lock(&conf->ckpt_mutex);
	err = r5g_checkpoint(conf, false);
	mutex_unlock(&conf->ckpt_mutex);
	if (err == -EAGAIN)	/* reconfig_mutex is busy: a bit later */
		queue_delayed_work(system_wq, &conf->ckpt_work,
				   R5G_CKPT_RETRY);
}

/*
 * ckpt_mutex for the sync thread, which must not sleep on it: the work
 * item may hold it while md is interrupting the thread.
 */
static int r5g_ckpt_lock(struct r5g_conf *conf)
{
	while (!mutex_trylock(&conf->ckpt_mutex)) {
		if (test_bit(MD_RECOVERY_INTR, &conf->mddev->recovery))
			return -EINTR;
		usleep_range(1000, 2000);
	}
	return 0;
}

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
static int r5g_reshape_alloc(struct r5g_conf *conf, const struct r5g_geo *og,
			     const struct r5g_geo *ng)
{
	sector_t c = ng->chunk_sectors;
	struct r5g_reshape *rs;
	int i, nrows, nsrc, npar, err;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	conf->rs = rs;
	rs->cpp = c >> (PAGE_SHIFT - SECTOR_SHIFT);
	rs->odisks = og->raid_disks;
	/*
	 * Steps of whole periods (od / gcd(od, nd) new rows, which hold
	 * whole old rows) read no old row twice; raise a step to one period
	 * where the buffers stay reasonable (large chunks, few members).
	 */
	rs->period = og->data_disks / gcd(og->data_disks, ng->data_disks);
	nrows = max_t(sector_t, 1, R5G_RS_SECTORS / r5g_row_len(ng));
	if (nrows >= rs->period)
		nrows = rounddown(nrows, rs->period);
	else if (rs->period * r5g_row_len(ng) <= R5G_RS_SECTORS_MAX)
		nrows = rs->period;
	rs->max_nrows = nrows;
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

	if (bio->bi_status) {
		if (!st->writing)
			set_bit(rb->disk, st->bad);
		else
			st->werr = true;
		md_error(mddev, rb->rdev);
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
static bool r5g_step_chunk(struct r5g_rstep *st, int disk, sector_t sector,
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
	st->writing = false;
	reinit_completion(&st->reads);
	atomic_set(&st->pending, 1);
	for (i = 0; i < rs->odisks; i++) {
		bool ok = true;

		for (r = 0; r < st->orows && ok; r++)
			ok = r5g_step_chunk(st, i, (st->orow + r) * c,
					    r5g_src(st, i, st->orow + r),
					    rs->cpp);
		if (!ok)
			set_bit(i, st->bad);
	}
	if (!atomic_dec_and_test(&st->pending))
		wait_for_completion(&st->reads);
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
static struct page **r5g_new_chunk(struct r5g_rstep *st, sector_t q, int k)
{
	struct r5g_conf *conf = st->conf;
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t c = ng->chunk_sectors;
	sector_t a = q * r5g_row_len(ng) + (sector_t)k * c;
	sector_t orow;
	u64 rem;
	int disk;

	if (a >= r5g_old_end(conf))
		return NULL;
	orow = div64_u64_rem(a, r5g_row_len(og), &rem);
	disk = r5g_data_disk(og, r5g_parity_disk(og, orow), rem >> ilog2(c));
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
				k = (j - pd - 1 + ng->raid_disks) %
				    ng->raid_disks;
				if (ng->algorithm == R5G_LEFT_ASYMMETRIC ||
				    ng->algorithm == R5G_RIGHT_ASYMMETRIC)
					k = j < pd ? j : j - 1;
				pages = r5g_new_chunk(st, row, k) ?: zeros;
			}
			r5g_step_chunk(st, j, row * c, pages, rs->cpp);
		}
	}
	if (atomic_dec_and_test(&st->pending))
		r5g_step_retire(st);
	kfree(zeros);
}

/*---- sync_request: one step per call ----*/

static bool r5g_steps_idle(struct r5g_conf *conf)
{
	bool idle;

	spin_lock_irq(&conf->cache_lock);
	idle = !conf->reshape_steps;
	spin_unlock_irq(&conf->cache_lock);
	return idle;
}

/* Plan the step starting at array sector @lo. */
static void r5g_step_plan(struct r5g_conf *conf, struct r5g_rstep *st,
			  sector_t lo, sector_t limit)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	sector_t rows = r5g_rows(conf), oend, safe, end;

	st->lo = lo;
	st->nrow = div64_u64(lo, r5g_row_len(ng));
	/*
	 * With C = P = lo, new rows below nrow + D/c + nrow * (nd - od) / od
	 * overwrite only checkpointed old rows (see the top).
	 */
	safe = div64_u64(conf->offset_delta, ng->chunk_sectors) +
	       div64_u64(st->nrow * (ng->data_disks - og->data_disks),
			 og->data_disks);
	st->nrows = min_t(sector_t, conf->rs->max_nrows, rows - st->nrow);
	st->nrows = min_t(sector_t, st->nrows, max_t(sector_t, safe, 1));
	st->nrows = min_t(sector_t, st->nrows, limit);
	/* End on a period boundary, so that the next step starts on one. */
	if (st->nrows >= conf->rs->period) {
		end = div64_u64(st->nrow + st->nrows, conf->rs->period) *
		      conf->rs->period;
		if (end > st->nrow)
			st->nrows = end - st->nrow;
	}
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
 * With C, steps may write new rows below C / old row + D/c. Once the
 * steps have used half of that room, a checkpoint starts in the
 * background (the work item), so that later steps seldom stop and wait
 * for one: a checkpoint flushes every member, which takes longer than
 * several steps.
 */
static int r5g_step_safe(struct r5g_conf *conf, struct r5g_rstep *st)
{
	sector_t c = conf->geo[R5G_GEO_CUR].chunk_sectors;
	sector_t orl = r5g_row_len(&conf->geo[R5G_GEO_PREV]);
	sector_t drows = div64_u64(conf->offset_delta, c);
	sector_t end = st->nrow + st->nrows, need = 0;
	sector_t safe = READ_ONCE(conf->reshape_safe), room;
	int err;

	if (end > drows)
		need = (end - drows) * orl;
	room = (div64_u64(safe, orl) + drows) *
	       r5g_row_len(&conf->geo[R5G_GEO_CUR]);
	if (room > safe && st->lo >= safe + (room - safe) / 2)
		queue_delayed_work(system_wq, &conf->ckpt_work, 0);
	if (safe >= need)
		return 0;
	wait_event(conf->wait_reshape, r5g_steps_idle(conf));
	err = r5g_ckpt_lock(conf);
	if (err)
		return err;
	err = r5g_checkpoint(conf, true);
	mutex_unlock(&conf->ckpt_mutex);
	if (err)
		return err;
	if (WARN_ON_ONCE(READ_ONCE(conf->reshape_safe) < need))
		return -EIO;
	return 0;
}

/*
 * Open the window over the step and wait until nothing else touches its
 * array sectors in the old geometry: requests that routed before the
 * window moved, and old stripes with writes still queued or in flight.
 */
static void r5g_step_open(struct r5g_conf *conf, struct r5g_rstep *st)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	sector_t c = og->chunk_sectors;
	sector_t w = roundup(st->hi, r5g_row_len(og));
	int e;

	spin_lock_irq(&conf->cache_lock);
	wait_event_lock_irq(conf->wait_stripe, !conf->quiesce,
			    conf->cache_lock);
	st->busy = true;
	conf->reshape_steps++;
	if (conf->reshape_window < w)
		conf->reshape_window = w;
	e = conf->reshape_epoch;
	conf->reshape_epoch ^= 1;
	wait_event_lock_irq(conf->wait_reshape, !conf->reshape_users[e],
			    conf->cache_lock);
	wait_event_lock_irq(conf->wait_stripe,
			    r5g_stripes_idle(conf, st->orow * c,
					     (st->orow + st->orows) * c,
					     R5G_GEO_PREV),
			    conf->cache_lock);
	spin_unlock_irq(&conf->cache_lock);
}

/* Undo r5g_step_open() for a step that is not sent after all. */
static void r5g_step_cancel(struct r5g_conf *conf, struct r5g_rstep *st)
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

/* Copy one step. Returns false when it cannot (two members gone). */
static bool r5g_step_run(struct r5g_conf *conf, struct r5g_rstep *st)
{
	struct mddev *mddev = conf->mddev;
	struct r5g_reshape *rs = conf->rs;
	int bad;

	st->t0 = ktime_get_ns();
	r5g_step_read(st);
	bad = bitmap_weight(st->bad, rs->odisks);
	if (bad > 1) {
		pr_crit("md/raid:%s: reshape stopped: %d devices unreadable at array sector %llu\n",
			mdname(mddev), bad, (unsigned long long)st->lo);
		return false;
	}
	if (bad)
		r5g_step_rebuild(st, find_first_bit(st->bad, rs->odisks));
	r5g_step_write(st);
	return true;
}

/* Wait for every request routed before now, in both epochs. */
static void r5g_drain_routed(struct r5g_conf *conf)
{
	int i, e;

	spin_lock_irq(&conf->cache_lock);
	for (i = 0; i < 2; i++) {
		e = conf->reshape_epoch;
		conf->reshape_epoch ^= 1;
		wait_event_lock_irq(conf->wait_reshape,
				    !conf->reshape_users[e], conf->cache_lock);
	}
	spin_unlock_irq(&conf->cache_lock);
}

/* Everything is copied: switch to the new geometry for good. */
static void r5g_end_reshape(struct r5g_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *rdev;

	spin_lock_irq(&conf->cache_lock);
	md_finish_reshape(mddev);
	conf->geo[R5G_GEO_PREV] = conf->geo[R5G_GEO_CUR];
	/* data_offset is new_data_offset now: r5g_data_offset() agrees */
	WRITE_ONCE(conf->reshape_progress, MaxSector);
	conf->reshape_window = MaxSector;
	conf->reshape_safe = MaxSector;
	mddev->reshape_position = MaxSector;
	spin_unlock_irq(&conf->cache_lock);
	wake_up_all(&conf->wait_reshape);

	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 && !test_bit(In_sync, &rdev->flags))
			rdev->recovery_offset = MaxSector;
	mddev->curr_resync_completed = mddev->dev_sectors;
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	pr_info("md/raid:%s: reshape done: %d devices\n", mdname(mddev),
		conf->geo[R5G_GEO_CUR].raid_disks);
}

/* The last sync_request call: finish, or record where we stopped. */
static void r5g_reshape_stop(struct r5g_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	sector_t p;

	wait_event(conf->wait_reshape, r5g_steps_idle(conf));
	spin_lock_irq(&conf->cache_lock);
	p = conf->reshape_progress;
	spin_unlock_irq(&conf->cache_lock);
	if (p >= r5g_new_end(conf) &&
	    !test_bit(MD_RECOVERY_INTR, &mddev->recovery) &&
	    !r5g_ckpt_lock(conf)) {
		/*
		 * Record the end before writes stop waiting for C: until
		 * md records "done", a crash resumes from the position.
		 */
		int err = r5g_checkpoint(conf, true);

		if (!err) {
			/* writes to both geometries end before it goes */
			r5g_drain_routed(conf);
			r5g_end_reshape(conf);
		}
		mutex_unlock(&conf->ckpt_mutex);
		if (!err)
			return;
	}
	/* md writes the superblocks when the sync thread is reaped */
	mddev->reshape_position = p;
	mddev->curr_resync_completed =
		div_u64(p, conf->geo[R5G_GEO_CUR].data_disks);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_wakeup_thread(mddev->thread);
}

/*
 * Leave the members to foreground I/O two thirds of the time. md yields a
 * reshape to other I/O only by waiting for the sync I/O in flight, which
 * leaves little between steps this large. So while array requests came
 * in within R5G_FG_RECENT and the reshape runs faster than the array's
 * sync_speed_min (or md's default, when it follows the system value,
 * which a module cannot read), one step runs at a time and is followed
 * by a pause R5G_FG_SHARE times as long as it took.
 */
static void r5g_share(struct mddev *mddev, struct r5g_conf *conf)
{
	unsigned long kib, secs, min = mddev->sync_speed_min;
	ktime_t t;
	u64 ns;

	if (time_after(jiffies, READ_ONCE(conf->fg_time) + R5G_FG_RECENT))
		return;
	kib = (mddev->curr_mark_cnt - mddev->resync_mark_cnt) / 2;
	secs = (jiffies - mddev->resync_mark) / HZ + 1;
	if (kib / secs <= (min ? min : R5G_SPEED_MIN))
		return;
	wait_event(conf->wait_reshape, r5g_steps_idle(conf));
	ns = min_t(u64, R5G_FG_SHARE * READ_ONCE(conf->rs->step_ns),
		   R5G_PAUSE_MAX_NS);
	/* md stops the thread with kthread_stop(), which wakes it */
	t = ns_to_ktime(ns);
	set_current_state(TASK_IDLE);
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
		__set_current_state(TASK_RUNNING);
	else
		schedule_hrtimeout(&t, HRTIMER_MODE_REL);
}

sector_t r5g_reshape_request(struct mddev *mddev, sector_t sector_nr,
			     int *skipped)
{
	struct r5g_conf *conf = mddev->private;
	struct r5g_reshape *rs = conf->rs;
	int nd = conf->geo[R5G_GEO_CUR].data_disks;
	struct r5g_rstep *st;
	sector_t p;

	if (WARN_ON_ONCE(!rs || conf->reshape_progress == MaxSector))
		return 0;
	if (sector_nr >= mddev->dev_sectors) {
		r5g_reshape_stop(conf);
		return 0;
	}
	if (sector_nr == 0) {
		/* (re)starting: go on from P */
		wait_event(conf->wait_reshape, r5g_steps_idle(conf));
		spin_lock_irq(&conf->cache_lock);
		p = conf->reshape_progress;
		spin_unlock_irq(&conf->cache_lock);
		rs->issued = p;
		conf->ckpt_time = jiffies;
		if (p) {
			*skipped = 1;
			mddev->curr_resync_completed = div_u64(p, nd);
			sysfs_notify_dirent_safe(mddev->sysfs_completed);
			return div_u64(p, nd);
		}
	}
	if (rs->issued >= r5g_new_end(conf)) {
		*skipped = 1;
		return mddev->dev_sectors - sector_nr;
	}

	if (time_after(jiffies, conf->ckpt_time +
		       msecs_to_jiffies(READ_ONCE(conf->ckpt_ms)))) {
		conf->ckpt_time = jiffies;
		queue_delayed_work(system_wq, &conf->ckpt_work, 0);
	}

	r5g_share(mddev, conf);
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
		return 0;
	st = &rs->step[rs->next];
	wait_event(conf->wait_reshape, !READ_ONCE(st->busy));
	r5g_step_plan(conf, st, rs->issued, rs->max_nrows);
	if (r5g_step_safe(conf, st))
		return 0;
	r5g_step_open(conf, st);
	if (!r5g_step_run(conf, st)) {
		r5g_step_cancel(conf, st);
		return 0;
	}
	rs->issued = st->hi;
	rs->next = (rs->next + 1) % R5G_RS_STEPS;
	mddev->curr_resync_completed = div_u64(READ_ONCE(conf->reshape_progress), nd);
	sysfs_notify_dirent_safe(mddev->sysfs_completed);
	return (sector_t)st->nrows * conf->geo[R5G_GEO_CUR].chunk_sectors;
}

/*---- Starting, resuming and finishing ----*/

void r5g_reshape_init(struct r5g_conf *conf)
{
	conf->reshape_progress = MaxSector;
	conf->reshape_window = MaxSector;
	conf->reshape_safe = MaxSector;
	conf->ckpt_ms = R5G_CKPT_MS;
	init_waitqueue_head(&conf->wait_reshape);
	mutex_init(&conf->ckpt_mutex);
	INIT_DELAYED_WORK(&conf->ckpt_work, r5g_ckpt_work);
}

/* Is a change of geometry asked for (raid_disks, layout, chunk)? */
bool r5g_reshape_pending(struct mddev *mddev)
{
	return mddev->delta_disks ||
	       mddev->new_layout != mddev->layout ||
	       mddev->new_chunk_sectors != mddev->chunk_sectors ||
	       mddev->new_level != mddev->level;
}

/* What we can reshape; each refusal with its own message and errno. */
static int r5g_reshape_supported(struct mddev *mddev)
{
	if (mddev->new_level != mddev->level) {
		pr_warn("md/raid:%s: changing the RAID level is not supported\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (mddev->new_layout != mddev->layout ||
	    mddev->new_chunk_sectors != mddev->chunk_sectors) {
		pr_warn("md/raid:%s: changing the layout or chunk size is not supported, only adding devices\n",
			mdname(mddev));
		return -EOPNOTSUPP;
	}
	if (mddev->delta_disks < 0) {
		pr_warn("md/raid:%s: removing devices (shrinking) is not supported\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (mddev->bitmap) {
		pr_warn("md/raid:%s: cannot grow with a write-intent bitmap; remove it first\n",
			mdname(mddev));
		return -EBUSY;
	}
	return 0;
}

/*
 * How far each member's data moves back: from new_data_offset if mdadm
 * set it on the old members, else the most the space before the data
 * allows, in whole chunks. 0 when it cannot move at least one chunk.
 */
static sector_t r5g_room(struct mddev *mddev, struct md_rdev *rdev)
{
	sector_t low = rdev->sb_start + 72;	/* superblock: 36 KiB */

	if (mddev->major_version != 1 || mddev->minor_version == 0 ||
	    rdev->sb_start >= rdev->data_offset)
		return 0;	/* 0.90, 1.0: the superblock is at the end */
	if (rdev->badblocks.sector > rdev->sb_start)
		low = max_t(sector_t, low, rdev->badblocks.sector + 8 +
			    rdev->badblocks.size);
	return rdev->data_offset > low ? rdev->data_offset - low : 0;
}

static int r5g_pick_offsets(struct mddev *mddev, struct r5g_conf *conf,
			    int old_disks, bool resume)
{
	sector_t c = mddev->chunk_sectors, d = MaxSector;
	struct md_rdev *rdev;
	bool given = false;

	rdev_for_each(rdev, mddev)
		if (rdev->new_data_offset != rdev->data_offset)
			given = true;
	if (resume && !given) {
		conf->offset_delta = 0;
		return 0;
	}
	rdev_for_each(rdev, mddev) {
		sector_t room;

		if (rdev->raid_disk < 0 || rdev->raid_disk >= old_disks ||
		    test_bit(Faulty, &rdev->flags))
			continue;
		if (given) {
			if (rdev->new_data_offset >= rdev->data_offset) {
				pr_warn("md/raid:%s: %pg: new_offset %llu is not below data_offset %llu\n",
					mdname(mddev), rdev->bdev,
					(unsigned long long)rdev->new_data_offset,
					(unsigned long long)rdev->data_offset);
				return -EINVAL;
			}
			room = rdev->data_offset - rdev->new_data_offset;
		} else {
			/* one chunk: leaves room for later grows */
			room = r5g_room(mddev, rdev) >= c ? c : 0;
		}
		d = min(d, room);
	}
	if (d == MaxSector)
		d = 0;
	if (given && d < c) {
		pr_warn("md/raid:%s: new_offset moves the data back %llu sectors, less than a chunk (%llu)\n",
			mdname(mddev), (unsigned long long)d,
			(unsigned long long)c);
		return -EINVAL;
	}
	/* no room to move: the offset stays, with a critical section */
	conf->offset_delta = d < c ? 0 : d;
	return 0;
}

/* Apply the offsets r5g_pick_offsets() chose (reconfig_mutex held). */
static void r5g_set_offsets(struct mddev *mddev, struct r5g_conf *conf)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (rdev->new_data_offset == rdev->data_offset &&
		    r5g_room(mddev, rdev) >= conf->offset_delta)
			rdev->new_data_offset = rdev->data_offset -
						conf->offset_delta;
}

/*---- The critical section: grows that keep the data offset ----*/

/*
 * mdadm's backup superblock ("md_backup_data-1"): mdadm --assemble looks
 * for it at member sector data_offset + size - 8 of the new members, and
 * for an identical copy 8 sectors before the backed-up data, when
 * a recorded grow is still in its critical section, writes the backed-up
 * array sectors in the new geometry and records the position
 * arraystart + length. All sizes in sectors.
 */
struct r5g_bsb {
	char magic[16];
	u8 set_uuid[16];
	__le64 mtime;
	__le64 devstart;	/* where the data is, on the same member */
	__le64 arraystart;
	__le64 length;
	__le32 sb_csum;
	__le32 pad1;
	__le64 devstart2;
	__le64 arraystart2;
	__le64 length2;
	__le32 sb_csum2;
	u8 pad[412];
} __packed;

/* mdadm's checksum of the header: its first byte, shifted in @len times. */
static __le32 r5g_bsb_csum(const void *buf, int len)
{
	const u8 *b = buf;
	u32 csum = 0;
	int i;

	for (i = 0; i < len; i++)
		csum = (csum << 3) + b[0];
	return cpu_to_le32(csum);
}

/*
 * End of the critical section (array sectors): new row q overwrites old
 * row q in place, which is safe once (q + 1) * od <= q * nd. It is also
 * at least the end mdadm computes (it walks chunk by chunk until the old
 * row of the new data lies above it), so that mdadm --assemble never asks
 * for a backup after we dropped it.
 */
static sector_t r5g_critical_end(struct r5g_conf *conf)
{
	const struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
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

/* Write one page to every new member at @sector of the new geometry. */
static void r5g_write_new_members(struct r5g_rstep *st, int from, int to,
				  sector_t sector, struct page **pages, int n,
				  blk_opf_t extra)
{
	int j;

	st->writing = true;
	st->retire = false;
	st->extra = extra;
	reinit_completion(&st->reads);
	atomic_set(&st->pending, 1);
	for (j = from; j < to; j++)
		r5g_step_chunk(st, j, sector, pages, n);
	if (!atomic_dec_and_test(&st->pending))
		wait_for_completion(&st->reads);
}

/* Read the old rows of one new row and rebuild a missing member. */
static int r5g_read_row(struct r5g_conf *conf, struct r5g_rstep *st,
			sector_t lo)
{
	int bad;

	r5g_step_plan(conf, st, lo, 1);
	r5g_step_read(st);
	bad = bitmap_weight(st->bad, conf->rs->odisks);
	if (bad > 1)
		return -EIO;
	if (bad)
		r5g_step_rebuild(st, find_first_bit(st->bad, conf->rs->odisks));
	return 0;
}

/*
 * Back up array sectors [0, @end) to the tail of every new member and
 * write the header mdadm looks for. The array is suspended.
 */
static int r5g_backup(struct mddev *mddev, struct r5g_conf *conf,
		      sector_t end, int old, int new)
{
	const struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	struct r5g_rstep *st = &conf->rs->step[0];
	int cpp = conf->rs->cpp;
	sector_t c = ng->chunk_sectors, tail = mddev->dev_sectors - 8 - end;
	struct page **zeros, *hdr;
	struct r5g_bsb *bsb;
	sector_t lo;
	int j, k, err;

	zeros = kmalloc_array(cpp, sizeof(*zeros), GFP_KERNEL);
	hdr = alloc_page(GFP_KERNEL | __GFP_ZERO);
	st->werr = false;
	if (!zeros || !hdr) {
		kfree(zeros);
		if (hdr)
			__free_page(hdr);
		return -ENOMEM;
	}
	for (k = 0; k < cpp; k++)
		zeros[k] = ZERO_PAGE(0);
	for (lo = 0; lo < end; lo += r5g_row_len(ng)) {
		err = r5g_read_row(conf, st, lo);
		if (err)
			goto out_free;
		st->writing = true;
		st->retire = false;
		st->extra = 0;
		reinit_completion(&st->reads);
		atomic_set(&st->pending, 1);
		for (k = 0; k < ng->data_disks; k++) {
			struct page **ch = r5g_new_chunk(st, st->nrow, k);

			for (j = old; j < new; j++)
				r5g_step_chunk(st, j, tail + lo + k * c,
					       ch ?: zeros, cpp);
		}
		if (!atomic_dec_and_test(&st->pending))
			wait_for_completion(&st->reads);
	}

	bsb = page_address(hdr);
	memcpy(bsb->magic, "md_backup_data-1", 16);
	memcpy(bsb->set_uuid, mddev->uuid, 16);
	bsb->mtime = cpu_to_le64(ktime_get_real_seconds());
	bsb->arraystart = 0;
	bsb->length = cpu_to_le64(end);
	for (j = old; j < new; j++) {
		struct md_rdev *rdev = r5g_rdev_locked(conf, j);

		if (!rdev)
			continue;
		/* devstart is a device sector for mdadm */
		bsb->devstart = cpu_to_le64(rdev->new_data_offset + tail);
		bsb->sb_csum = r5g_bsb_csum(bsb,
					    offsetof(struct r5g_bsb, sb_csum));
		/* a copy 4 KiB before the data, which mdadm checks too */
		r5g_write_new_members(st, j, j + 1, tail - 8, &hdr, 1, 0);
		r5g_write_new_members(st, j, j + 1, mddev->dev_sectors - 8,
				      &hdr, 1, REQ_PREFLUSH | REQ_FUA);
	}
	err = st->werr ? -EIO : 0;
out_free:
	kfree(zeros);
	__free_page(hdr);
	return err;
}

/*
 * A grow that keeps the data offset overwrites old rows it has not
 * recorded as copied during its first rows. Do those rows here, with the
 * array suspended, in an order where a crash at any instant loses
 * nothing: back up [0, end) to the new members' tails (which the new
 * geometry only uses at the very end) in mdadm's backup format; record
 * the reshape; copy the rows (and one more); record that; drop the backup.
 * A crash before the reshape is recorded leaves the old array; after it,
 * mdadm --assemble restores the backup and records @end.
 */
static int r5g_critical_section(struct mddev *mddev, struct r5g_conf *conf,
				int old, int new)
{
	struct r5g_rstep *st = &conf->rs->step[0];
	sector_t end = r5g_critical_end(conf), lo, done;
	struct page *zero[1] = { ZERO_PAGE(0) };
	int err;

	/*
	 * Copy one row more than the backup holds and record that: mdadm's
	 * 0.90 monitor backs up [0, end) too, and leaves that backup valid;
	 * mdadm --assemble ignores it only once the position is past end.
	 * The extra row overwrites only old rows whose data lies below end.
	 */
	done = min(end + r5g_row_len(&conf->geo[R5G_GEO_CUR]),
		   r5g_new_end(conf));

	if (end + 8 > mddev->dev_sectors / 2) {
		pr_warn("md/raid:%s: the devices are too small to back up the first %llu sectors\n",
			mdname(mddev), (unsigned long long)end);
		return -ENOSPC;
	}
	err = r5g_backup(mddev, conf, end, old, new);
	if (err)
		return err;
	r5g_crit_stage(mddev, "backup written");
	md_update_sb(mddev, 1);
	r5g_crit_stage(mddev, "reshape recorded");

	for (lo = 0; lo < done; lo = st->hi) {
		if (r5g_read_row(conf, st, lo)) {
			/* keep the backup and position 0: mdadm restores */
			pr_crit("md/raid:%s: critical section unreadable at array sector %llu\n",
				mdname(mddev), (unsigned long long)lo);
			return 0;
		}
		spin_lock_irq(&conf->cache_lock);
		st->busy = true;
		st->quiet = true;
		conf->reshape_steps++;
		spin_unlock_irq(&conf->cache_lock);
		r5g_step_write(st);
		wait_event(conf->wait_reshape, !READ_ONCE(st->busy));
	}

	r5g_crit_stage(mddev, "rows copied");
	mddev->reshape_position = done;
	md_update_sb(mddev, 1);
	r5g_crit_stage(mddev, "end recorded");
	spin_lock_irq(&conf->cache_lock);
	conf->reshape_safe = done;
	spin_unlock_irq(&conf->cache_lock);
	r5g_write_new_members(st, old, new, mddev->dev_sectors - 8, zero, 1,
			      REQ_FUA);
	pr_info("md/raid:%s: critical section of %llu sectors done\n",
		mdname(mddev), (unsigned long long)end);
	return 0;
}

int r5g_check_reshape(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	int err;

	if (conf->reshape_progress != MaxSector)
		return 0;	/* recorded: md may resume it */
	if (!r5g_reshape_pending(mddev))
		return 0;
	err = r5g_reshape_supported(mddev);
	if (err)
		return err;
	if (mddev->degraded) {
		pr_warn("md/raid:%s: cannot grow a degraded array; rebuild it first\n",
			mdname(mddev));
		return -EBUSY;
	}
	/* the member table and the stripes: allocate, then swap */
	mddev_suspend(mddev);
	err = r5g_pool_grow(conf, mddev->raid_disks + mddev->delta_disks);
	mddev_resume(mddev);
	if (err)
		pr_warn("md/raid:%s: not enough memory for %d devices\n",
			mdname(mddev), mddev->raid_disks + mddev->delta_disks);
	return err;
}

/* Give the spares the new slots; returns how many got one. */
static int r5g_place_spares(struct mddev *mddev, struct r5g_conf *conf,
			    int from, int to)
{
	struct md_rdev *rdev;
	int slot = from, n = 0;

	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk >= 0 || test_bit(Faulty, &rdev->flags) ||
		    test_bit(Journal, &rdev->flags))
			continue;
		while (slot < to && r5g_rdev_locked(conf, slot))
			slot++;
		if (slot >= to)
			break;
		rdev->raid_disk = slot;
		rdev->recovery_offset = MaxSector;
		set_bit(In_sync, &rdev->flags);
		rcu_assign_pointer(conf->disks[slot].rdev, rdev);
		n++;
	}
	return n;
}

static int r5g_count_spares(struct mddev *mddev)
{
	struct md_rdev *rdev;
	int n = 0;

	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk < 0 && !test_bit(Faulty, &rdev->flags) &&
		    !test_bit(Journal, &rdev->flags))
			n++;
	return n;
}

/* Undo the start of a reshape that wrote nothing; array suspended. */
static void r5g_unstart(struct mddev *mddev, struct r5g_conf *conf,
			const struct r5g_geo *og, int old)
{
	struct md_rdev *rdev;

	spin_lock_irq(&conf->cache_lock);
	WRITE_ONCE(conf->reshape_progress, MaxSector);
	conf->reshape_window = MaxSector;
	conf->reshape_safe = MaxSector;
	conf->geo[R5G_GEO_CUR] = *og;
	mddev->raid_disks = old;
	mddev->reshape_position = MaxSector;
	spin_unlock_irq(&conf->cache_lock);
	rdev_for_each(rdev, mddev) {
		rdev->new_data_offset = rdev->data_offset;
		if (rdev->raid_disk >= old) {
			RCU_INIT_POINTER(conf->disks[rdev->raid_disk].rdev,
					 NULL);
			rdev->raid_disk = -1;
			clear_bit(In_sync, &rdev->flags);
		}
	}
	mddev->degraded = r5g_calc_degraded(conf);
}

int r5g_start_reshape(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	int old = mddev->raid_disks, new = old + mddev->delta_disks;
	struct r5g_geo og, ng;
	struct md_rdev *rdev;
	int err, spares;

	if (conf->reshape_progress != MaxSector)
		return -EBUSY;
	if (!r5g_reshape_pending(mddev)) {
		pr_warn("md/raid:%s: no reshape is pending: set raid_disks first\n",
			mdname(mddev));
		return -EINVAL;
	}
	err = r5g_reshape_supported(mddev);
	if (err)
		return err;
	if (mddev->degraded) {
		pr_warn("md/raid:%s: cannot grow a degraded array; rebuild it first\n",
			mdname(mddev));
		return -EBUSY;
	}
	if (mddev->recovery_cp != MaxSector) {
		pr_warn("md/raid:%s: cannot grow before the resync has finished\n",
			mdname(mddev));
		return -EBUSY;
	}
	spares = r5g_count_spares(mddev);
	if (spares < mddev->delta_disks) {
		pr_warn("md/raid:%s: growing to %d devices needs %d spares, there are %d\n",
			mdname(mddev), new, mddev->delta_disks, spares);
		return -EINVAL;
	}
	if (WARN_ON_ONCE(new > conf->pool_disks))
		return -EINVAL;
	err = r5g_pick_offsets(mddev, conf, old, false);
	if (err)
		return err;

	/* the step buffers first: failing here changes nothing */
	og = conf->geo[R5G_GEO_CUR];
	ng = og;
	ng.raid_disks = new;
	ng.data_disks = new - 1;
	err = r5g_reshape_alloc(conf, &og, &ng);
	if (err) {
		pr_warn("md/raid:%s: not enough memory to start the reshape\n",
			mdname(mddev));
		return err;
	}

	mddev_suspend(mddev);
	r5g_cache_forget(conf);
	r5g_set_offsets(mddev, conf);
	r5g_place_spares(mddev, conf, old, new);
	spin_lock_irq(&conf->cache_lock);
	conf->geo[R5G_GEO_PREV] = og;
	conf->geo[R5G_GEO_CUR] = ng;
	conf->reshape_safe = 0;
	conf->reshape_window = 0;
	WRITE_ONCE(conf->reshape_progress, 0);
	conf->reshape_users[0] = 0;
	conf->reshape_users[1] = 0;
	mddev->raid_disks = new;
	mddev->reshape_position = 0;
	mddev->degraded = r5g_calc_degraded(conf);
	spin_unlock_irq(&conf->cache_lock);
	if (!conf->offset_delta) {
		err = r5g_critical_section(mddev, conf, old, new);
		if (err) {
			r5g_unstart(mddev, conf, &og, old);
			mddev_resume(mddev);
			r5g_reshape_free(conf);
			return err;
		}
	}
	mddev_resume(mddev);

	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= old && sysfs_link_rdev(mddev, rdev))
			pr_warn("md/raid:%s: cannot link rd%d in sysfs\n",
				mdname(mddev), rdev->raid_disk);

	clear_bit(MD_RECOVERY_SYNC, &mddev->recovery);
	clear_bit(MD_RECOVERY_CHECK, &mddev->recovery);
	clear_bit(MD_RECOVERY_DONE, &mddev->recovery);
	set_bit(MD_RECOVERY_RESHAPE, &mddev->recovery);
	set_bit(MD_RECOVERY_RUNNING, &mddev->recovery);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	mddev->sync_thread = md_register_thread(md_do_sync, mddev, "reshape");
	if (!mddev->sync_thread) {
		/* md_check_recovery() starts it again from the position */
		mddev->recovery = 0;
		set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
		pr_warn("md/raid:%s: cannot start the reshape thread now\n",
			mdname(mddev));
		return 0;
	}
	conf->ckpt_time = jiffies;
	md_wakeup_thread(mddev->sync_thread);
	md_new_event();
	pr_info("md/raid:%s: reshape started: %d -> %d devices, data moves back %llu sectors\n",
		mdname(mddev), old, new,
		(unsigned long long)conf->offset_delta);
	return 0;
}

/*
 * r5g_run() of an array whose superblocks record a reshape: set up both
 * geometries and the cursors at the recorded position, or refuse.
 */
int r5g_reshape_resume(struct mddev *mddev, struct r5g_conf *conf)
{
	struct r5g_geo *og = &conf->geo[R5G_GEO_PREV];
	struct r5g_geo *ng = &conf->geo[R5G_GEO_CUR];
	int old = mddev->raid_disks - mddev->delta_disks;
	sector_t pos = mddev->reshape_position;
	u64 rem;
	int err;

	err = r5g_reshape_supported(mddev);
	if (err)
		return err;
	if (mddev->delta_disks <= 0 || old < 2) {
		pr_warn("md/raid:%s: recorded reshape %d -> %d devices is not a grow\n",
			mdname(mddev), old, mddev->raid_disks);
		return -EINVAL;
	}
	og->raid_disks = old;
	og->data_disks = old - 1;
	div64_u64_rem(pos, r5g_row_len(ng), &rem);
	if (rem) {
		pr_warn("md/raid:%s: reshape_position %llu is not on a stripe boundary of the new geometry\n",
			mdname(mddev), (unsigned long long)pos);
		return -EINVAL;
	}
	err = r5g_pick_offsets(mddev, conf, old, true);
	if (err)
		return err;
	if (!conf->offset_delta && pos < r5g_critical_end(conf)) {
		pr_warn("md/raid:%s: position %llu in the critical section: mdadm --assemble restores it\n",
			mdname(mddev), (unsigned long long)pos);
		return -EINVAL;
	}
	err = r5g_reshape_alloc(conf, og, ng);
	if (err)
		return err;
	conf->reshape_safe = pos;
	conf->reshape_window = pos;
	conf->reshape_progress = pos;
	pr_info("md/raid:%s: reshape %d -> %d devices resumes at array sector %llu\n",
		mdname(mddev), old, mddev->raid_disks,
		(unsigned long long)pos);
	return 0;
}

/*
 * md calls this when it reaps the sync thread, before it writes the
 * superblocks. A reshape that stopped half-way records P here: md's
 * "frozen" and "idle" put back the reshape_position they saw before
 * stopping the thread, which a checkpoint may have passed since, and
 * steps after that checkpoint overwrote old rows the older position
 * still points a resume at.
 */
void r5g_finish_reshape(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	sector_t p;

	spin_lock_irq(&conf->cache_lock);
	p = conf->reshape_progress;
	spin_unlock_irq(&conf->cache_lock);
	if (p != MaxSector) {
		mddev->reshape_position = p;
		mddev->curr_resync_completed =
			div_u64(p, conf->geo[R5G_GEO_CUR].data_disks);
		return;
	}
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
		return;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = 0;
	mddev->reshape_position = MaxSector;
	r5g_set_limits(mddev, conf);
	r5g_reshape_free(conf);
}
