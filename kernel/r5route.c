// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow request routing during a reshape: which geometry a request
 * takes, the window it may have to wait for, and the epochs that let a
 * step wait for the requests that routed before it.
 *
 * Sectors are 512 bytes; old row r holds array sectors [r*c*od,
 * (r+1)*c*od), new row q holds [q*c*nd, (q+1)*c*nd) (r5map.c).
 *
 * Cursors (struct r5g_conf, array sectors, under cache_lock, forward only):
 *
 *   C  reshape_safe      the reshape_position the superblocks record. A
 *                        crash restarts at C: old-geometry data of array
 *                        sectors >= C must stay intact on disk. Moved by
 *                        r5ckpt.c (and r5crit.c).
 *   P  reshape_progress  array sectors below P are in the new geometry on
 *                        the members (their step writes have ended).
 *                        Moved by r5step.c when a step retires.
 *   W  reshape_window    end of the steps in flight, rounded up to a whole
 *                        old row. Requests overlapping [P, W) wait until P
 *                        passes them and are then routed again. Opened by
 *                        r5step.c.
 *
 * Routing a request [s, e): e <= P: new geometry; s >= W: old geometry;
 * straddling P with no step there: split at P; else wait. A write below
 * P that reaches past C (split at C) goes to both geometries: a crash
 * restarts at C and copies the old geometry's data over the new one, and
 * the old rows of [C, P) are still intact on disk. Such a write keeps its
 * epoch counted until both halves end, so the step that overwrites its
 * old rows (once C has passed them) waits for it. It waits instead
 * while a step reads its last old row (one that reaches past P). Reads
 * below P never wait; reads that lie in one chunk go straight to the
 * member, also counted until they end.
 *
 * Epochs: a request is counted in reshape_users[reshape_epoch] from its
 * routing until it is queued (or ends, see above). r5g_route_flip()
 * switches the epoch and waits for the old one to drain.
 */
#include <linux/bio.h>
#include <linux/math64.h>
#include "md.h"
#include "r5grow.h"

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
 * Choose the geometry for @bio and count it in the current epoch; see
 * the top of this file. May wait, and may split @bio at P or C, resubmitting
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

/* No reshape step has member I/O in flight. */
bool r5g_steps_idle(struct r5g_conf *conf)
{
	bool idle;

	spin_lock_irq(&conf->cache_lock);
	idle = !conf->reshape_steps;
	spin_unlock_irq(&conf->cache_lock);
	return idle;
}

/*
 * Switch the epoch, and wait until every request counted in the old one
 * has gone: all that remain routed after the caller's change of cursors.
 */
void r5g_route_flip(struct r5g_conf *conf)
	__must_hold(&conf->cache_lock)
{
	int e = conf->reshape_epoch;

	lockdep_assert_held(&conf->cache_lock);
	conf->reshape_epoch ^= 1;
	wait_event_lock_irq(conf->wait_reshape, !conf->reshape_users[e],
			    conf->cache_lock);
}

/* Wait for every request routed before now, in both epochs. */
void r5g_drain_routed(struct r5g_conf *conf)
{
	spin_lock_irq(&conf->cache_lock);
	r5g_route_flip(conf);
	r5g_route_flip(conf);
	spin_unlock_irq(&conf->cache_lock);
}
