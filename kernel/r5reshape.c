// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow reshape: a grow of a RAID-5 onto more members, from its start to
 * its end. What it may do, how far each member's data moves back (D),
 * the start (spares placed, geometries switched, the critical section of
 * r5crit.c when D = 0), the sync_request calls that run one step each
 * (r5step.c) and leave the members to foreground I/O part of the time,
 * the stop (a checkpoint of where it got to, r5ckpt.c), the end (the new
 * geometry for good, once every request routed before has ended), and
 * the resume of a recorded reshape when the array starts.
 *
 * Cursors: sets C, P and W at the start, resume and end (cache_lock);
 * in between r5step.c, r5ckpt.c and r5route.c move them.
 * Locks: start, resume and finish run under reconfig_mutex (md calls
 * them so); sync_request runs in md's sync thread, which owns conf->rs.
 */
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

#define R5G_FG_RECENT		(HZ / 10)	/* foreground I/O counts this long */
#define R5G_SPEED_MIN		1000		/* md's speed_limit_min default */
#define R5G_FG_SHARE		2		/* pause: this many times a step */
#define R5G_PAUSE_MAX_NS	(200 * NSEC_PER_MSEC)	/* longest pause */

/*
 * Everything is copied: switch to the new geometry for good, and write
 * that clean with I/O suspended (r5g_write_end()). The old shape is
 * written clean first, so that the members a cut leaves in it say clean
 * too (the start does the same, r5g_write_clean()). When md is stopping
 * the thread meanwhile, md's thread writes it (MD_SB_CHANGE_DEVS), as
 * the array is then.
 */
static void r5g_end_reshape(struct r5g_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	bool locked = r5g_end_lock(mddev);
	struct md_rdev *rdev;

	if (locked) {
		mddev_suspend(mddev);
		r5g_write_clean(mddev);
	}
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
	if (locked) {
		r5g_write_end(mddev);
		mddev_resume(mddev);
		mddev_unlock(mddev);
	}
	pr_info("md/raid:%s: reshape done: %d devices\n", mdname(mddev),
		conf->geo[R5G_GEO_CUR].raid_disks);
}

/*
 * The end of a grow with an offset change is one superblock write; a
 * power cut between its member writes leaves members that still record
 * the reshape (old data_offset, new_offset) next to members that record
 * it done. md takes them, one event behind, with the data_offset of their
 * own superblock, which is no longer where their data is. With the
 * freshest superblock saying done, their data is at the new offset: use
 * it, and write their superblocks again.
 */
void r5g_fix_missed_end(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev) {
		if (rdev->new_data_offset == rdev->data_offset)
			continue;
		pr_warn("md/raid:%s: %pg missed the end of the reshape: its data is at sector %llu\n",
			mdname(mddev), rdev->bdev,
			(unsigned long long)rdev->new_data_offset);
		if (rdev->data_offset > rdev->new_data_offset)
			rdev->sectors += rdev->data_offset - rdev->new_data_offset;
		else
			rdev->sectors -= rdev->new_data_offset - rdev->data_offset;
		rdev->data_offset = rdev->new_data_offset;
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	}
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
	if (r5g_position_held(conf))
		return;
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
	init_waitqueue_head(&conf->wait_reshape);
	r5g_ckpt_init(conf);
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
	return 0;
}

/*
 * How far each member's data moves back: from new_data_offset if mdadm
 * set it on the old members, else the most the space before the data
 * allows, in whole chunks. 0 when it cannot move at least one chunk.
 */
static sector_t r5g_room(struct mddev *mddev, struct md_rdev *rdev)
{
	struct bitmap *bitmap = mddev->bitmap;
	sector_t low = rdev->sb_start + 72;	/* superblock: 36 KiB */

	if (mddev->major_version != 1 || mddev->minor_version == 0 ||
	    rdev->sb_start >= rdev->data_offset)
		return 0;	/* 0.90, 1.0: the superblock is at the end */
	if (rdev->badblocks.sector > rdev->sb_start)
		low = max_t(sector_t, low, rdev->badblocks.sector + 8 +
			    rdev->badblocks.size);
	/* an internal bitmap after the superblock stays where it is */
	if (bitmap && !mddev->bitmap_info.file && mddev->bitmap_info.offset > 0)
		low = max_t(sector_t, low, rdev->sb_start +
			    mddev->bitmap_info.offset +
			    bitmap->storage.file_pages *
			    (PAGE_SIZE >> SECTOR_SHIFT));
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

int r5g_check_reshape(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	int err;

	if (conf->reshape_progress != MaxSector) {
		/* recorded: md may resume it, unless too few members are left */
		if (mddev->degraded > 1) {
			if (!conf->held_said)
				pr_warn("md/raid:%s: reshape held at array sector %llu: %d devices failed\n",
					mdname(mddev),
					(unsigned long long)conf->reshape_safe,
					mddev->degraded);
			conf->held_said = true;
			return -EIO;
		}
		return 0;
	}
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
	r5g_write_clean(mddev);
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
	/*
	 * The new shape on every member before sync_action shows the
	 * reshape (the critical section wrote it already): a power cut
	 * after that finds members that agree, which mdadm --assemble
	 * demands (it compares raid_disks before event counts). With I/O
	 * still suspended, it goes out clean (r5g_write_clean()).
	 */
	if (conf->offset_delta)
		r5g_write_sb(mddev, R5G_SB_START);
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
	if (!conf->offset_delta && pos < r5g_critical_end(og, ng)) {
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
 * still points a resume at. Returns true when the grow is over, so that
 * the caller sets the queue limits of the new geometry.
 */
bool r5g_finish_reshape(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	sector_t p;

	spin_lock_irq(&conf->cache_lock);
	p = conf->reshape_progress;
	spin_unlock_irq(&conf->cache_lock);
	if (p != MaxSector) {
		if (r5g_position_held(conf))
			return false;
		mddev->reshape_position = p;
		mddev->curr_resync_completed =
			div_u64(p, conf->geo[R5G_GEO_CUR].data_disks);
		return false;
	}
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
		return false;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = 0;
	mddev->reshape_position = MaxSector;
	r5g_reshape_free(conf);
	return true;
}
