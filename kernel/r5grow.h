/* SPDX-License-Identifier: GPL-2.0 */
/*
 * r5grow private header: the structures the files share, the one place
 * that says which lock guards what, and each file's entry points.
 *
 * Files, lowest layer first (Kbuild lists them in this order; a file
 * calls only into files above it in this list, checked by
 * tests/lint-layers):
 *
 *   r5map.c      geometry: array sector -> member, parity slot, rows,
 *                periods, the bounds of a grow step. Pure functions.
 *   r5cache.c    stripe cache: allocation, hash, lru, resize, widening
 *                for a grow, the member count, quiesce.
 *   r5stripe.c   the stripe handler and the daemon (md thread).
 *   r5route.c    which geometry a request takes during a reshape: the
 *                window, the epochs and the waits.
 *   r5bio.c      the array bio path: split, attach, plug, bypass reads.
 *   r5sync.c     resync, rebuild, check and repair (sync_request).
 *   r5ckpt.c     reshape checkpoints: reshape_position on disk.
 *   r5step.c     one copy step of a grow: buffers, member I/O, bounds.
 *   r5crit.c     the critical section and mdadm's backup format.
 *   r5reshape.c  starting, driving, stopping and resuming a grow.
 *   r5main.c     md personality glue and sysfs.
 *
 * Locking overview (each field below names its lock):
 *
 *   reconfig_mutex (mddev_lock)  array configuration: conf->geo, the
 *                                member table pointer, cache size target.
 *   conf->cache_lock (irq-safe)  stripe hash, lru/handle/blocked lists,
 *                                stripe->count, the counters next to them,
 *                                conf->quiesce, the retry bio list, the
 *                                reshape cursors, epochs and step states.
 *   stripe->lock                 the per-device bio lists of one stripe.
 *   RCU                          conf->disks[i].rdev readers on the I/O
 *                                path; writers hold reconfig_mutex.
 *   conf->cache_mutex            serializes cache resizing: sysfs
 *                                stripe_cache_size, r5g_pool_grow() and
 *                                the daemon's lazy trim (trylock).
 *   conf->ckpt_mutex             one checkpoint at a time (r5ckpt.c).
 *   (none: the daemon)           stripe pages and dev[].written of a
 *                                stripe being handled, conf->pass,
 *                                conf->scratch, conf->bm_flushed.
 *   (none: the sync thread)      conf->rs and the step buffers, except
 *                                the fields marked cache_lock.
 *
 * Order: reconfig_mutex -> cache_mutex -> cache_lock; ckpt_mutex ->
 * reconfig_mutex, taken only by trylock (r5g_checkpoint()). cache_lock
 * and stripe->lock are never held together.
 */
#ifndef R5GROW_H
#define R5GROW_H

#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "md.h"

/* One stripe covers one page on every member. */
#define R5G_STRIPE_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
#define R5G_SECTOR_MASK		((1u << R5G_STRIPE_SECTORS) - 1)

#define R5G_DEF_STRIPES		256
#define R5G_MIN_STRIPES		32
#define R5G_MAX_STRIPES		32768
#define R5G_HASH_BITS		10

/* sysfs reshape_checkpoint_ms bounds */
#define R5G_CKPT_MS_MIN		10
#define R5G_CKPT_MS_MAX		600000

/* The four RAID-5 layouts we map (md's ALGORITHM_* numbers). */
#define R5G_LEFT_ASYMMETRIC	0
#define R5G_RIGHT_ASYMMETRIC	1
#define R5G_LEFT_SYMMETRIC	2
#define R5G_RIGHT_SYMMETRIC	3

/* Array data a grow step copies, about, and the most it may be raised to. */
#define R5G_RS_SECTORS		(4096 * 2)
#define R5G_RS_SECTORS_MAX	(4 * R5G_RS_SECTORS)
#define R5G_RS_STEPS		2	/* steps in flight */

/* r5g_get_stripe() flags */
#define R5G_GET_NOBLOCK	BIT(0)	/* return NULL instead of waiting */
#define R5G_GET_RETRY	BIT(1)	/* replayed read: pass the quiesce gate */

/*
 * A geometry: how array sectors map onto members. A running array has
 * one; during a reshape it has two, selected per request by the reshape
 * cursors (r5route.c): R5G_GEO_CUR behind them, R5G_GEO_PREV ahead.
 * Every stripe records its geometry (gen) and member count (disks), and
 * the cache hash key includes gen, so an old-geometry and a new-geometry
 * stripe for the same member sector coexist.
 */
struct r5g_geo {
	int raid_disks;
	int data_disks;		/* raid_disks - 1 */
	int chunk_sectors;	/* power of two, >= R5G_STRIPE_SECTORS */
	int algorithm;		/* R5G_*_SYMMETRIC / _ASYMMETRIC */
};

enum { R5G_GEO_PREV, R5G_GEO_CUR, R5G_NR_GEO };
/* r5g_reshape_route(): a write for both geometries (see r5route.c) */
#define R5G_GEO_BOTH	R5G_NR_GEO

/* One bio's part in one stripe block, queued on r5g_dev lists. */
struct r5g_req {
	struct r5g_req *next;
	struct bio *bio;
};

enum r5g_dev_flags {
	R5G_UPTODATE,	/* page holds the block's current content */
	R5G_WANT_READ,	/* read the member this pass */
	R5G_WANT_WRITE,	/* write the member this pass */
	R5G_READ_ERR,	/* a read failed: do not trust this member here */
	R5G_REWRITE,	/* READ_ERR, member kept: write the rebuilt block back */
	R5G_REREAD,	/* written back: read it again before trusting it */
};

/* One block (one page) of a stripe on one member. */
struct r5g_dev {
	struct page *page;
	sector_t lsector;	/* array sector of a data block */
	/* bio lists, protected by stripe->lock */
	struct r5g_req *toread;
	struct r5g_req *towrite;
	/* owned by the handler; completed when the member writes end */
	struct r5g_req *written;
	unsigned long flags;	/* enum r5g_dev_flags, atomic bitops */
	struct md_rdev *io_rdev;	/* target of the bio in flight */
	struct bio *bio;	/* member I/O, one page; bio_kmalloc()ed */
};

enum r5g_stripe_state {
	R5G_S_HANDLE,		/* needs a pass of r5g_handle_stripe() */
	R5G_S_SYNC,		/* sync_request asked for resync/check/rebuild */
	R5G_S_SYNC_READ,	/* members re-read for this sync */
	R5G_S_SYNC_WRITE,	/* the sync write is in flight */
	R5G_S_WRITE,		/* array writes are in flight */
	R5G_S_FUA,		/* a bio being written asked for FUA */
	R5G_S_BLOCKED,		/* waiting for a failure to reach the sb */
	R5G_S_RETRY,		/* holds a retried read: ignores quiesce */
};

/*
 * A cached stripe. It lives on exactly one of: the inactive lru
 * (count == 0, nothing to do), the handle list (count == 0, HANDLE set),
 * the blocked list, or no list while someone holds a reference.
 * In-flight member I/O holds one reference for all its bios, so the
 * handler never runs while the stripe's member I/O is in flight, and
 * only the daemon runs the handler: one handler per stripe at a time.
 */
struct r5g_stripe {
	struct hlist_node hash;		/* cache_lock */
	struct list_head lru;		/* cache_lock */
	struct r5g_conf *conf;
	sector_t sector;		/* member sector; cache_lock */
	int gen;			/* R5G_GEO_*; cache_lock */
	int disks;			/* members this stripe spans */
	int pd_idx;			/* parity member */
	int count;			/* references; cache_lock */
	unsigned long state;		/* enum r5g_stripe_state, bitops */
	spinlock_t lock;		/* dev[].toread, dev[].towrite */
	u64 bm_seq;			/* last write attach; lock */
	atomic_t pending_io;		/* member bios in flight */
	struct r5g_dev dev[];		/* conf->pool_disks entries */
};

/* What one pass of the handler found out about a stripe's members. */
struct r5g_pass {
	int nfailed;		/* members not readable here */
	int failed;		/* the first of them */
	bool blocked;		/* a failure is not yet in the superblock */
	bool readable[];	/* indexed by member; then want[], full[] */
};

/* Per-pass member tables, one allocation sized for the stripe pool. */
static inline size_t r5g_pass_size(int disks)
{
	struct r5g_pass *p;

	return struct_size(p, readable, disks) + 2 * disks * sizeof(bool);
}

struct r5g_disk {
	struct md_rdev __rcu *rdev;	/* RCU; written under reconfig_mutex */
};

/*
 * One grow step: new rows [nrow, nrow + nrows), read from old rows
 * [orow, orow + orows). Owned by the sync thread between r5g_step_plan()
 * and its retirement, except the fields marked cache_lock.
 */
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
	bool werr;		/* a write of this step failed */
	u64 t0;			/* ktime_get_ns() when its reads were sent */
	struct completion reads;
	unsigned long *bad;	/* old members whose read failed */
	struct page **src;	/* [old member][max_orows * cpp] */
	struct page **par;	/* [max_nrows * cpp] */
};

/* Step buffers of a grow (conf->rs), from its start or resume to its end. */
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

struct r5g_conf {
	struct mddev *mddev;

	/* reconfig_mutex; read locklessly on the I/O path while stable */
	struct r5g_geo geo[R5G_NR_GEO];
	/*
	 * Reshape cursors, in array sectors, MaxSector when no reshape is
	 * in progress. r5route.c explains them at its top. All three
	 * are written under cache_lock and only move forward;
	 * reshape_progress is also read locklessly (READ_ONCE) to see
	 * whether a reshape is on at all.
	 *   reshape_safe (C)      what the superblocks on disk record
	 *                         (moved by r5ckpt.c, r5crit.c)
	 *   reshape_progress (P)  below it: new geometry, on the members
	 *                         (moved by r5step.c as steps retire)
	 *   reshape_window (W)    requests overlapping [P, W) wait
	 *                         (opened by r5step.c)
	 * C <= P <= W.
	 */
	sector_t reshape_safe;
	sector_t reshape_progress;
	sector_t reshape_window;
	/*
	 * Requests routing through the reshape window, counted per epoch
	 * so a step can wait for the ones that saw the old window; and the
	 * number of reshape steps with member I/O in flight. cache_lock.
	 */
	int reshape_users[2];
	int reshape_epoch;
	int reshape_steps;
	wait_queue_head_t wait_reshape;	/* cursors moved, users drained */
	sector_t offset_delta;		/* D: data moved back; reconfig_mutex */
	struct r5g_reshape *rs;		/* step buffers; sync thread only */
	struct mutex ckpt_mutex;	/* one checkpoint at a time */
	struct delayed_work ckpt_work;	/* the periodic checkpoints */
	unsigned long ckpt_time;	/* jiffies of the last; ckpt_mutex */
	unsigned int ckpt_ms;		/* sysfs reshape_checkpoint_ms */
	/* jiffies of the last array request routed during a reshape */
	unsigned long fg_time;		/* cache_lock; read with READ_ONCE */
	int pool_disks;			/* pages per stripe; reconfig_mutex */
	struct r5g_disk *disks;		/* [pool_disks]; swapped suspended */

	spinlock_t cache_lock;		/* see the top of this file */
	struct hlist_head *hash;	/* cache_lock */
	struct list_head inactive;	/* cache_lock; lru, head = newest */
	struct list_head handle_list;	/* cache_lock */
	struct list_head blocked_list;	/* cache_lock */
	/*
	 * The md thread polls blocked_list every HZ / 20 and has changed
	 * thread->timeout for that; it gives md's timeout (the bitmap
	 * daemon's) back once the list is empty. md thread only.
	 */
	bool blocked_poll;
	int nr_stripes;			/* allocated; cache_lock */
	int active_stripes;		/* not on inactive; cache_lock */
	int quiesce;			/* cache_lock */
	int aligned_reads;		/* bypass reads in flight; cache_lock */
	struct bio_list retry_list;	/* failed bypass reads; cache_lock */
	wait_queue_head_t wait_stripe;	/* free stripe, quiesce changes */

	int max_nr_stripes;		/* target size; reconfig_mutex */
	int recovery_disabled;		/* reconfig_mutex or md thread */
	/* "reshape held" was logged for too many failed members; reconfig_mutex */
	bool held_said;
	bool fullsync;			/* a fresh spare: ignore the bitmap */

	/*
	 * Write-intent bitmap ordering: every write attach marks the bitmap
	 * (md_bitmap_startwrite) and then takes a number from bm_seq; the
	 * daemon flushes the bitmap (md_bitmap_unplug) before a stripe whose
	 * number is above bm_flushed writes to the members.
	 */
	atomic64_t bm_seq;
	u64 bm_flushed;			/* daemon only */

	struct mutex cache_mutex;	/* serializes cache resizing */
	struct work_struct retry_work;	/* replays retry_list */
	mempool_t req_pool;		/* struct r5g_req */
	struct bio_set bio_split;	/* splitting reads at chunk ends */
	struct bio_set bio_aligned;	/* bypass read clones */
	/* daemon only: scratch page and per-pass member tables */
	struct page *scratch;
	void *pass;
};

/* r5map.c: geometry, pure functions */
int r5g_parity_disk(const struct r5g_geo *g, sector_t row);
int r5g_data_disk(const struct r5g_geo *g, int pd, int k);
int r5g_data_index(const struct r5g_geo *g, int pd, int disk);
sector_t r5g_map_sector(const struct r5g_geo *g, sector_t lsector, int *disk);
sector_t r5g_row_len(const struct r5g_geo *g);
int r5g_period(const struct r5g_geo *og, const struct r5g_geo *ng);
int r5g_step_size(const struct r5g_geo *og, const struct r5g_geo *ng);
sector_t r5g_step_rows(const struct r5g_geo *og, const struct r5g_geo *ng,
		       sector_t drows, sector_t nrow, sector_t want);
sector_t r5g_step_need(const struct r5g_geo *og, sector_t drows,
		       sector_t end);
sector_t r5g_ckpt_room(const struct r5g_geo *og, const struct r5g_geo *ng,
		       sector_t drows, sector_t safe);
sector_t r5g_critical_end(const struct r5g_geo *og, const struct r5g_geo *ng);

/* Rows per member (the same in both geometries). */
static inline sector_t r5g_rows(struct r5g_conf *conf)
{
	return conf->mddev->dev_sectors >>
		ilog2(conf->geo[R5G_GEO_CUR].chunk_sectors);
}

/* Array sectors the new geometry holds. */
static inline sector_t r5g_new_end(struct r5g_conf *conf)
{
	return r5g_rows(conf) * r5g_row_len(&conf->geo[R5G_GEO_CUR]);
}

static inline sector_t r5g_old_end(struct r5g_conf *conf)
{
	return r5g_rows(conf) * r5g_row_len(&conf->geo[R5G_GEO_PREV]);
}

/* A member, for writers of conf->disks (reconfig_mutex held). */
static inline struct md_rdev *r5g_rdev_locked(struct r5g_conf *conf, int i)
{
	return rcu_dereference_protected(conf->disks[i].rdev,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

/*
 * Where geometry @gen of a member starts: during a reshape the new
 * geometry lives at new_data_offset.
 */
static inline sector_t r5g_data_offset(struct r5g_conf *conf,
				       struct md_rdev *rdev, int gen)
{
	if (gen == R5G_GEO_CUR && READ_ONCE(conf->reshape_progress) != MaxSector)
		return rdev->new_data_offset;
	return rdev->data_offset;
}

/* Bad blocks in [@s, @s + @len) of geometry @gen on @rdev? */
static inline bool r5g_is_badblock(struct r5g_conf *conf,
				   struct md_rdev *rdev, int gen, sector_t s,
				   int len)
{
	sector_t first_bad;
	int bad;

	if (likely(!rdev->badblocks.count))
		return false;
	return badblocks_check(&rdev->badblocks,
			       s + r5g_data_offset(conf, rdev, gen), len,
			       &first_bad, &bad) != 0;
}

/* r5cache.c: the stripe cache */
int r5g_cache_init(struct r5g_conf *conf, int nr);
void r5g_cache_exit(struct r5g_conf *conf);
int r5g_cache_resize(struct r5g_conf *conf, int nr);
void r5g_trim_cache(struct r5g_conf *conf);
int r5g_pool_grow(struct r5g_conf *conf, int disks);
void r5g_cache_forget(struct r5g_conf *conf);
bool r5g_stripes_idle(struct r5g_conf *conf, sector_t lo, sector_t hi,
		      int gen);
int r5g_active_stripes(struct r5g_conf *conf);
struct r5g_stripe *r5g_get_stripe(struct r5g_conf *conf, sector_t sector,
				  int gen, unsigned int flags);
void r5g_release_locked(struct r5g_conf *conf, struct r5g_stripe *sh);
void r5g_release(struct r5g_stripe *sh);
int r5g_calc_degraded(struct r5g_conf *conf);
bool r5g_read_error(struct r5g_conf *conf, struct md_rdev *rdev,
		    sector_t sector);
void r5g_quiesce(struct mddev *mddev, int quiesce);

/* r5stripe.c: the stripe handler */
void r5g_daemon(struct md_thread *thread);

/* r5route.c: routing requests during a reshape */
int r5g_reshape_route(struct r5g_conf *conf, struct bio **biop, int *epoch);
void r5g_reshape_route_done(struct r5g_conf *conf, int epoch);
void r5g_route_flip(struct r5g_conf *conf);
void r5g_drain_routed(struct r5g_conf *conf);
bool r5g_steps_idle(struct r5g_conf *conf);

/* r5bio.c: the array bio path */
int r5g_bio_init(struct r5g_conf *conf);
void r5g_bio_exit(struct r5g_conf *conf);
bool r5g_make_request(struct mddev *mddev, struct bio *bio);

/* r5sync.c: resync, rebuild, check, repair */
sector_t r5g_sync_request(struct mddev *mddev, sector_t sector_nr,
			  int *skipped);

/* r5ckpt.c: reshape checkpoints */
void r5g_ckpt_init(struct r5g_conf *conf);
bool r5g_position_held(struct r5g_conf *conf);
/* the superblock writes of a reshape, by phase (the sb_cut_* test hook) */
enum r5g_sb_phase { R5G_SB_START = 1, R5G_SB_CKPT, R5G_SB_END };
void r5g_write_sb(struct mddev *mddev, enum r5g_sb_phase phase);
void r5g_write_clean(struct mddev *mddev);
bool r5g_end_lock(struct mddev *mddev);
void r5g_write_end(struct mddev *mddev);
void r5g_fix_missed_end(struct mddev *mddev);
int r5g_checkpoint(struct r5g_conf *conf, bool sync_thread);
int r5g_ckpt_lock(struct r5g_conf *conf);
int r5g_ckpt_before(struct r5g_conf *conf, sector_t need);

/* r5step.c: grow steps */
int r5g_reshape_alloc(struct r5g_conf *conf, const struct r5g_geo *og,
		      const struct r5g_geo *ng);
void r5g_reshape_free(struct r5g_conf *conf);
void r5g_step_plan(struct r5g_conf *conf, struct r5g_rstep *st,
		   sector_t lo, sector_t limit);
int r5g_step_safe(struct r5g_conf *conf, struct r5g_rstep *st);
void r5g_step_open(struct r5g_conf *conf, struct r5g_rstep *st);
void r5g_step_cancel(struct r5g_conf *conf, struct r5g_rstep *st);
bool r5g_step_run(struct r5g_conf *conf, struct r5g_rstep *st);
int r5g_step_fetch(struct r5g_rstep *st);
void r5g_step_copy_quiet(struct r5g_conf *conf, struct r5g_rstep *st);
void r5g_step_io_begin(struct r5g_rstep *st, bool write, blk_opf_t extra);
bool r5g_step_chunk(struct r5g_rstep *st, int disk, sector_t sector,
		    struct page **pages, int n);
void r5g_step_io_wait(struct r5g_rstep *st);
struct page **r5g_new_chunk(struct r5g_rstep *st, sector_t q, int k);

/* r5crit.c: the critical section */
int r5g_critical_section(struct mddev *mddev, struct r5g_conf *conf,
			 int old, int new);

/* r5reshape.c: a grow from start to finish */
void r5g_reshape_init(struct r5g_conf *conf);
bool r5g_reshape_pending(struct mddev *mddev);
int r5g_reshape_resume(struct mddev *mddev, struct r5g_conf *conf);
sector_t r5g_reshape_request(struct mddev *mddev, sector_t sector_nr,
			     int *skipped);
int r5g_check_reshape(struct mddev *mddev);
int r5g_start_reshape(struct mddev *mddev);
bool r5g_finish_reshape(struct mddev *mddev);

#endif /* R5GROW_H */
