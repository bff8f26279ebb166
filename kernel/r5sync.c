// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow sync_request outside a reshape: resync after an unclean stop,
 * check and repair of parity, rebuild onto a spare. One stripe per call:
 * it is marked R5G_S_SYNC and handed to the daemon, whose handler
 * (r5g_handle_sync() in r5stripe.c) reads, compares, rebuilds or repairs
 * and reports with md_done_sync(). The write-intent bitmap decides what
 * a resync may skip.
 *
 * Locks: none of its own; the stripe's through r5cache.c. Reads no
 * reshape cursor (r5main.c sends reshape calls to r5reshape.c).
 */
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

sector_t r5g_sync_request(struct mddev *mddev, sector_t sector_nr,
			  int *skipped)
{
	struct r5g_conf *conf = mddev->private;
	struct r5g_stripe *sh;
	sector_t max, blocks;
	bool still_degraded = false;
	int i;

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

