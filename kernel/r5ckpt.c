// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow reshape checkpoints: recording P as the reshape_position in
 * every superblock, which makes it the new C (conf->reshape_safe).
 *
 * The protocol that leaves no unsafe instant: a step writes new rows only
 * over old rows that are wholly below C (r5step.c checks the bound and
 * calls r5g_ckpt_before() when it is short), and C moves only when a
 * checkpoint is on disk. md writes the superblocks with PREFLUSH+FUA, so
 * the copied data below P is durable before the position that relies on
 * it. A crash at any instant leaves C at a position whose old rows above
 * it are intact, and the resume copies from C again.
 *
 * Checkpoints happen when a step needs one, in the background once the
 * steps have used half the room the last one gave them (r5g_step_safe()),
 * and every reshape_checkpoint_ms (the work item). A checkpoint never
 * goes through md's thread with MD_SB_CHANGE_PENDING: that would hold
 * every array write in md_write_start() for the superblock write.
 *
 * Locks: ckpt_mutex (one checkpoint at a time), then reconfig_mutex for
 * md_update_sb(); cache_lock to read P and move C.
 */
#include <linux/delay.h>
#include <linux/math64.h>
#include "md.h"
#include "r5grow.h"

#define R5G_CKPT_MS		1000	/* default checkpoint interval */
#define R5G_CKPT_RETRY		2	/* jiffies: reconfig_mutex was busy */

/*
 * Test hook for the power-cut tests: the next superblock write of phase
 * sb_cut_phase (enum r5g_sb_phase) reaches only the first sb_cut_after
 * members in md's list; the rest keep the superblock before it, as a
 * power cut between the member writes leaves them. Then it says so on
 * the console and stands still for R5G_SB_CUT_MS holding reconfig_mutex,
 * so no other superblock write comes before the cut. One shot.
 */
static unsigned int sb_cut_phase;
module_param(sb_cut_phase, uint, 0644);
MODULE_PARM_DESC(sb_cut_phase, "test hook: superblock write to cut (1 start, 2 checkpoint, 3 end)");
static unsigned int sb_cut_after;
module_param(sb_cut_after, uint, 0644);
MODULE_PARM_DESC(sb_cut_after, "test hook: members that get the cut superblock write");

#define R5G_SB_CUT_MS	60000

static const char * const r5g_sb_phase_name[] = {
	[R5G_SB_START] = "start", [R5G_SB_CKPT] = "checkpoint",
	[R5G_SB_END] = "end",
};

/*
 * md_update_sb(mddev, 1), or the cut write of the hook above. md skips a
 * member whose sb_events already equals the new event count, which is
 * what the hook sets on the members after the k-th.
 */
void r5g_write_sb(struct mddev *mddev, enum r5g_sb_phase phase)
{
	unsigned int k = READ_ONCE(sb_cut_after), i = 0;
	struct md_rdev *rdev;
	u64 ev;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (READ_ONCE(sb_cut_phase) != phase) {
		md_update_sb(mddev, 1);
		return;
	}
	WRITE_ONCE(sb_cut_phase, 0);
	ev = mddev->events + 1;
	rdev_for_each(rdev, mddev)
		if (i++ >= k)
			rdev->sb_events = ev;
	md_update_sb(mddev, 1);
	if (mddev->events != ev) {
		pr_warn("md/raid:%s: test hook: superblock cut missed (md wrote again)\n",
			mdname(mddev));
		return;
	}
	i = 0;
	rdev_for_each(rdev, mddev)
		pr_info("md/raid:%s: test hook: %s superblock %s %pg\n",
			mdname(mddev), r5g_sb_phase_name[phase],
			i++ < k ? "written to" : "held from", rdev->bdev);
	pr_info("md/raid:%s: test hook: superblock cut after %u members\n",
		mdname(mddev), k);
	msleep(R5G_SB_CUT_MS);
}

/*
 * Mark the array clean when no write is in flight, as md's safemode
 * does; the caller has suspended I/O, so none starts. md_write_start()
 * reads in_sync after taking writes_pending, and sync_checkers (under
 * mddev->lock) keeps it on that slow path while the count is atomic.
 * True when the array was dirty and is clean now.
 */
static bool r5g_mark_clean(struct mddev *mddev)
{
	bool changed = false;

	if (mddev->in_sync || mddev->external ||
	    mddev->recovery_cp != MaxSector)
		return false;
	spin_lock(&mddev->lock);
	mddev->sync_checkers++;
	spin_unlock(&mddev->lock);
	percpu_ref_switch_to_atomic_sync(&mddev->writes_pending);
	spin_lock(&mddev->lock);
	if (!mddev->in_sync && percpu_ref_is_zero(&mddev->writes_pending)) {
		mddev->in_sync = 1;
		/* in_sync is seen before sync_checkers drops */
		smp_mb();
		set_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
		changed = true;
	}
	if (--mddev->sync_checkers == 0)
		percpu_ref_switch_to_percpu(&mddev->writes_pending);
	spin_unlock(&mddev->lock);
	sysfs_notify_dirent_safe(mddev->sysfs_state);
	return changed;
}

/*
 * Before a reshape is recorded, with I/O suspended and the old shape
 * still in mddev: the superblocks say clean. A cut between the member
 * writes of the start leaves members of the old and of the new shape,
 * each of which may lack a member, and mdadm starts a degraded array only
 * when its superblocks say clean (md's write-hole rule); the start write
 * goes out clean too, as nothing writes before it. The next write to the
 * array marks it dirty again (md_write_start()) before its data reaches a
 * member. A cut inside this write leaves one shape, dirty or clean.
 */
void r5g_write_clean(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (r5g_mark_clean(mddev))
		md_update_sb(mddev, 1);
}

/*
 * reconfig_mutex for the end write, from the sync thread; false when md
 * is interrupting the thread (whoever does holds the mutex).
 */
bool r5g_end_lock(struct mddev *mddev)
{
	while (!mddev_trylock(mddev)) {
		if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

/*
 * The end of a reshape, written clean like the start (r5g_write_clean()):
 * the caller has suspended I/O and written the old shape clean. A cut
 * between its member writes leaves members of two shapes on 0.90
 * (minor_version 91 and 90), and mdadm starts the one that lacks a
 * member only when its superblocks say clean.
 */
void r5g_write_end(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	r5g_mark_clean(mddev);
	r5g_write_sb(mddev, R5G_SB_END);
}

/*
 * Record P in the superblocks, written here with md_update_sb(), and
 * return once they are on disk. Not through md's thread with
 * MD_SB_CHANGE_PENDING: that holds every array write in md_write_start()
 * for the length of the superblock write. md_update_sb() wants
 * reconfig_mutex: the sync thread tries for it until md interrupts the
 * reshape (whoever interrupts holds it; -EINTR), other callers try once
 * (-EAGAIN: try again later, with ckpt_mutex released between).
 * Returns 0 when C == P at the time of the call, -EIO when the position
 * is held (r5g_position_held()).
 */
/*
 * With more members failed than parity covers, the position stays where
 * the members that went last recorded it, so that mdadm --assemble
 * --force finds them agreeing once they are back: no checkpoint moves C,
 * and no step moves P (r5g_step_retire()). Rows copied since are copied
 * again on the resume.
 */
bool r5g_position_held(struct r5g_conf *conf)
{
	return READ_ONCE(conf->mddev->degraded) > 1;
}

int r5g_checkpoint(struct r5g_conf *conf, bool sync_thread)
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
	if (r5g_position_held(conf)) {
		mddev_unlock(mddev);
		return -EIO;
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
	r5g_write_sb(mddev, R5G_SB_CKPT);
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
int r5g_ckpt_lock(struct r5g_conf *conf)
{
	while (!mutex_trylock(&conf->ckpt_mutex)) {
		if (test_bit(MD_RECOVERY_INTR, &conf->mddev->recovery))
			return -EINTR;
		usleep_range(1000, 2000);
	}
	return 0;
}

/*
 * Make C at least @need, for a step about to overwrite old rows below
 * it: wait for the steps in flight (P then covers them), checkpoint P.
 */
int r5g_ckpt_before(struct r5g_conf *conf, sector_t need)
{
	int err;

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

void r5g_ckpt_init(struct r5g_conf *conf)
{
	conf->ckpt_ms = R5G_CKPT_MS;
	mutex_init(&conf->ckpt_mutex);
	INIT_DELAYED_WORK(&conf->ckpt_work, r5g_ckpt_work);
}
