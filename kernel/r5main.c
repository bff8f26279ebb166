// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow: an md RAID-5 personality built to grow live arrays.
 *
 * This file is the glue between md core and our engine: array start and
 * stop, member failure and spares, status, size, the sysfs knobs, and the
 * personality's operations, each handed to the file of its feature. The
 * files and their layers, what crosses between them, and which lock
 * protects what, are listed in r5grow.h.
 *
 * On-disk format: exactly md's RAID-5 (level 5) with the four classic
 * layouts, left/right and symmetric/asymmetric, any power-of-two chunk
 * of at least one page. Arrays move freely between this module and
 * md's raid456. Write-intent bitmaps are honoured. Refused at run time,
 * with a message: other layouts (parity-first/last, RAID-6 layouts),
 * journals, PPL, and reshapes other than a grow (r5reshape.c says which).
 *
 * The module registers as "raid5", level 5, and carries no module
 * alias: md's automatic "md-level-5" loading must keep finding raid456.
 * Load r5grow explicitly to use it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "md.h"
#include "md-bitmap.h"
#include "r5grow.h"

/*---- Members ----*/

static void r5g_error(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5g_conf *conf = mddev->private;
	unsigned long flags;

	if (test_bit(Faulty, &rdev->flags))
		return;
	pr_crit("md/raid:%s: Disk failure on %pg, disabling device.\n",
		mdname(mddev), rdev->bdev);

	spin_lock_irqsave(&conf->cache_lock, flags);
	set_bit(Faulty, &rdev->flags);
	clear_bit(In_sync, &rdev->flags);
	mddev->degraded = r5g_calc_degraded(conf);
	if (mddev->degraded > 1) {
		set_bit(MD_BROKEN, &mddev->flags);
		conf->recovery_disabled = mddev->recovery_disabled;
		pr_crit("md/raid:%s: Cannot continue operation (%d/%d failed).\n",
			mdname(mddev), mddev->degraded,
			conf->geo[R5G_GEO_CUR].raid_disks);
	} else {
		pr_crit("md/raid:%s: Operation continuing on %d devices.\n",
			mdname(mddev),
			conf->geo[R5G_GEO_CUR].raid_disks - mddev->degraded);
	}
	spin_unlock_irqrestore(&conf->cache_lock, flags);

	set_bit(MD_RECOVERY_INTR, &mddev->recovery);
	/* writes wait for this failure to be in the superblock */
	set_bit(Blocked, &rdev->flags);
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_DEVS) | BIT(MD_SB_CHANGE_PENDING));
}

static int r5g_add_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5g_conf *conf = mddev->private;
	int first = 0, last = conf->geo[R5G_GEO_CUR].raid_disks - 1;
	int disk;

	if (test_bit(Journal, &rdev->flags)) {
		pr_warn("md/raid:%s: journal devices are not supported\n",
			mdname(mddev));
		return -EOPNOTSUPP;
	}
	if (mddev->recovery_disabled == conf->recovery_disabled)
		return -EBUSY;
	if (rdev->saved_raid_disk < 0 && mddev->degraded > 1)
		return -EINVAL;		/* nothing left to rebuild from */
	if (rdev->raid_disk >= 0) {
		first = rdev->raid_disk;
		last = first;
	}
	if (rdev->saved_raid_disk >= first && rdev->saved_raid_disk <= last &&
	    !r5g_rdev_locked(conf, rdev->saved_raid_disk))
		first = rdev->saved_raid_disk;

	for (disk = first; disk <= last; disk++) {
		if (r5g_rdev_locked(conf, disk))
			continue;
		clear_bit(In_sync, &rdev->flags);
		rdev->raid_disk = disk;
		if (rdev->saved_raid_disk != disk)
			conf->fullsync = true;
		rcu_assign_pointer(conf->disks[disk].rdev, rdev);
		return 0;
	}
	return -EEXIST;
}

static int r5g_remove_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5g_conf *conf = mddev->private;
	int number = rdev->raid_disk;

	if (number < 0 || number >= conf->pool_disks ||
	    r5g_rdev_locked(conf, number) != rdev)
		return 0;
	if (test_bit(In_sync, &rdev->flags) ||
	    atomic_read(&rdev->nr_pending))
		return -EBUSY;
	/* a working spare under rebuild stays while rebuild can go on */
	if (!test_bit(Faulty, &rdev->flags) &&
	    mddev->recovery_disabled != conf->recovery_disabled &&
	    mddev->degraded <= 1 &&
	    number < conf->geo[R5G_GEO_CUR].raid_disks)
		return -EBUSY;

	RCU_INIT_POINTER(conf->disks[number].rdev, NULL);
	if (!test_bit(RemoveSynchronized, &rdev->flags)) {
		synchronize_rcu();
		if (atomic_read(&rdev->nr_pending)) {
			/* lost a race with a new request: try later */
			rcu_assign_pointer(conf->disks[number].rdev, rdev);
			return -EBUSY;
		}
	}
	return 0;
}

static int r5g_spare_active(struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	unsigned long flags;
	int i, count = 0;

	for (i = 0; i < conf->geo[R5G_GEO_CUR].raid_disks; i++) {
		struct md_rdev *rdev = r5g_rdev_locked(conf, i);

		if (rdev && rdev->recovery_offset == MaxSector &&
		    !test_bit(Faulty, &rdev->flags) &&
		    !test_and_set_bit(In_sync, &rdev->flags)) {
			count++;
			sysfs_notify_dirent_safe(rdev->sysfs_state);
		}
	}
	spin_lock_irqsave(&conf->cache_lock, flags);
	mddev->degraded = r5g_calc_degraded(conf);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
	return count;
}

/*---- Size ----*/

static sector_t r5g_size(struct mddev *mddev, sector_t sectors,
			 int raid_disks)
{
	struct r5g_conf *conf = mddev->private;

	if (!sectors)
		sectors = mddev->dev_sectors;
	if (!raid_disks)
		raid_disks = min(conf->geo[R5G_GEO_CUR].raid_disks,
				 conf->geo[R5G_GEO_PREV].raid_disks);
	sectors &= ~((sector_t)conf->geo[R5G_GEO_CUR].chunk_sectors - 1);
	sectors &= ~((sector_t)conf->geo[R5G_GEO_PREV].chunk_sectors - 1);
	return sectors * (raid_disks - 1);
}

static int r5g_resize(struct mddev *mddev, sector_t sectors)
{
	struct r5g_conf *conf = mddev->private;
	sector_t newsize;

	if (conf->reshape_progress != MaxSector) {
		pr_warn("md/raid:%s: cannot change size during a reshape\n",
			mdname(mddev));
		return -EBUSY;
	}
	sectors &= ~((sector_t)conf->geo[R5G_GEO_CUR].chunk_sectors - 1);
	newsize = r5g_size(mddev, sectors, mddev->raid_disks);
	if (mddev->external_size && mddev->array_sectors > newsize) {
		pr_warn("md/raid:%s: new size is below the set array_size\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (mddev->bitmap) {
		int err = md_bitmap_resize(mddev->bitmap, sectors, 0, 0);

		if (err)
			return err;
	}
	md_set_array_sectors(mddev, newsize);
	if (sectors > mddev->dev_sectors &&
	    mddev->recovery_cp > mddev->dev_sectors) {
		/* parity of the new space is unknown: resync it */
		mddev->recovery_cp = mddev->dev_sectors;
		set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
	}
	mddev->dev_sectors = sectors;
	mddev->resync_max_sectors = sectors;
	return 0;
}

/*---- Array start and stop ----*/

static bool r5g_layout_ok(struct mddev *mddev, int layout, int chunk)
{
	if (layout < R5G_LEFT_ASYMMETRIC || layout > R5G_RIGHT_SYMMETRIC) {
		pr_warn("md/raid:%s: layout %d not supported, only the four RAID-5 layouts 0-3\n",
			mdname(mddev), layout);
		return false;
	}
	if (chunk < (int)R5G_STRIPE_SECTORS || !is_power_of_2(chunk)) {
		pr_warn("md/raid:%s: chunk size %d sectors not supported, need a power of two of at least %lu\n",
			mdname(mddev), chunk, R5G_STRIPE_SECTORS);
		return false;
	}
	return true;
}

static void r5g_free_conf(struct r5g_conf *conf)
{
	cancel_delayed_work_sync(&conf->ckpt_work);
	r5g_reshape_free(conf);
	r5g_cache_exit(conf);
	r5g_bio_exit(conf);
	kfree(conf->disks);
	kfree(conf);
}

static void r5g_free(struct mddev *mddev, void *priv)
{
	r5g_free_conf(priv);
}

/* Refusals of r5g_run(), each with its own message. */
static int r5g_check_features(struct mddev *mddev)
{
	struct md_rdev *rdev;

	if (mddev->level != 5) {
		pr_warn("md/raid:%s: level %d not supported, only RAID-5\n",
			mdname(mddev), mddev->level);
		return -EINVAL;
	}
	if (test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		pr_warn("md/raid:%s: journal devices are not supported\n",
			mdname(mddev));
		return -EOPNOTSUPP;
	}
	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags)) {
			pr_warn("md/raid:%s: journal devices are not supported\n",
				mdname(mddev));
			return -EOPNOTSUPP;
		}
	if (test_bit(MD_HAS_PPL, &mddev->flags)) {
		pr_warn("md/raid:%s: partial parity log (PPL) is not supported\n",
			mdname(mddev));
		return -EOPNOTSUPP;
	}
	if (mddev->reshape_position == MaxSector && r5g_reshape_pending(mddev)) {
		pr_warn("md/raid:%s: a geometry change is pending without a recorded reshape position\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (mddev->raid_disks < 2) {
		pr_warn("md/raid:%s: RAID-5 needs at least 2 devices, not %d\n",
			mdname(mddev), mddev->raid_disks);
		return -EINVAL;
	}
	if (!r5g_layout_ok(mddev, mddev->layout, mddev->chunk_sectors))
		return -EINVAL;
	return 0;
}

static struct r5g_conf *r5g_setup_conf(struct mddev *mddev)
{
	struct r5g_conf *conf;
	struct md_rdev *rdev;
	struct r5g_geo *g;
	int err;

	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return ERR_PTR(-ENOMEM);
	conf->mddev = mddev;
	spin_lock_init(&conf->cache_lock);
	INIT_LIST_HEAD(&conf->inactive);
	INIT_LIST_HEAD(&conf->handle_list);
	INIT_LIST_HEAD(&conf->blocked_list);
	bio_list_init(&conf->retry_list);
	init_waitqueue_head(&conf->wait_stripe);
	r5g_reshape_init(conf);
	conf->recovery_disabled = mddev->recovery_disabled - 1;

	g = &conf->geo[R5G_GEO_CUR];
	g->raid_disks = mddev->raid_disks;
	g->data_disks = mddev->raid_disks - 1;
	g->chunk_sectors = mddev->chunk_sectors;
	g->algorithm = mddev->layout;
	conf->geo[R5G_GEO_PREV] = *g;
	conf->pool_disks = mddev->raid_disks;

	conf->disks = kcalloc(conf->pool_disks, sizeof(*conf->disks),
			      GFP_KERNEL);
	if (!conf->disks) {
		kfree(conf);
		return ERR_PTR(-ENOMEM);
	}
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0)
			continue;
		if (rdev->raid_disk >= conf->pool_disks) {
			pr_warn("md/raid:%s: %pg has role %d beyond the %d devices\n",
				mdname(mddev), rdev->bdev, rdev->raid_disk,
				conf->pool_disks);
			err = -EINVAL;
			goto out_free_conf;
		}
		RCU_INIT_POINTER(conf->disks[rdev->raid_disk].rdev, rdev);
	}
	err = r5g_bio_init(conf);
	if (!err)
		err = r5g_cache_init(conf, R5G_DEF_STRIPES);
	if (err) {
		pr_warn("md/raid:%s: cannot allocate the stripe cache\n",
			mdname(mddev));
		goto out_free_conf;
	}
	if (mddev->reshape_position != MaxSector) {
		err = r5g_reshape_resume(mddev, conf);
		if (err)
			goto out_free_conf;
	} else {
		r5g_fix_missed_end(mddev);
	}
	return conf;

out_free_conf:
	r5g_free_conf(conf);
	return ERR_PTR(err);
}

static const struct attribute_group r5g_attrs_group;

static void r5g_set_limits(struct mddev *mddev, struct r5g_conf *conf)
{
	const struct r5g_geo *g = &conf->geo[R5G_GEO_CUR];
	unsigned int chunk = g->chunk_sectors << SECTOR_SHIFT;
	struct md_rdev *rdev;

	if (!mddev->queue)
		return;
	blk_queue_io_min(mddev->queue, chunk);
	blk_queue_io_opt(mddev->queue, chunk * g->data_disks);
	mddev->queue->limits.raid_partial_stripes_expensive = 1;
	rdev_for_each(rdev, mddev)
		disk_stack_limits(mddev->gendisk, rdev->bdev,
				  rdev->data_offset << SECTOR_SHIFT);
	/* neither is supported: a partial discard would break parity */
	blk_queue_max_discard_sectors(mddev->queue, 0);
	blk_queue_max_write_zeroes_sectors(mddev->queue, 0);
	/*
	 * Any size works, but a write split in the middle of a stripe row
	 * turns into read-modify-write: let bios of two full rows (at least
	 * 1 MiB) through whole, whatever the members' segment limits.
	 */
	blk_queue_max_hw_sectors(mddev->queue,
				 max_t(unsigned int, 2048,
				       2 * g->data_disks * g->chunk_sectors));
	blk_queue_max_segments(mddev->queue, USHRT_MAX);
}

static int r5g_run(struct mddev *mddev)
{
	struct r5g_conf *conf;
	int err;

	if (mddev_init_writes_pending(mddev) < 0)
		return -ENOMEM;
	err = r5g_check_features(mddev);
	if (err)
		return err;

	conf = r5g_setup_conf(mddev);
	if (IS_ERR(conf))
		return PTR_ERR(conf);

	mddev->degraded = r5g_calc_degraded(conf);
	if (mddev->degraded > 1) {
		pr_crit("md/raid:%s: not enough operational devices (%d/%d failed)\n",
			mdname(mddev), mddev->degraded, mddev->raid_disks);
		err = -EIO;
		goto out_free_conf;
	}
	if (mddev->degraded && mddev->recovery_cp != MaxSector) {
		if (!mddev->ok_start_degraded) {
			pr_crit("md/raid:%s: cannot start dirty degraded array.\n",
				mdname(mddev));
			err = -EIO;
			goto out_free_conf;
		}
		pr_crit("md/raid:%s: starting dirty degraded array - data corruption possible.\n",
			mdname(mddev));
	}
	if (mddev->recovery_cp != MaxSector)
		pr_notice("md/raid:%s: not clean -- starting background reconstruction\n",
			  mdname(mddev));

	mddev->dev_sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	mddev->resync_max_sectors = mddev->dev_sectors;
	mddev->private = conf;

	mddev->thread = md_register_thread(r5g_daemon, mddev, "raid5");
	if (!mddev->thread) {
		pr_warn("md/raid:%s: cannot start the array thread\n",
			mdname(mddev));
		err = -ENOMEM;
		goto out_clear_private;
	}

	if (mddev->to_remove == &r5g_attrs_group)
		mddev->to_remove = NULL;
	else if (mddev->kobj.sd &&
		 sysfs_create_group(&mddev->kobj, &r5g_attrs_group))
		pr_warn("md/raid:%s: cannot create the sysfs attributes\n",
			mdname(mddev));

	md_set_array_sectors(mddev, r5g_size(mddev, 0, 0));
	r5g_set_limits(mddev, conf);
	pr_info("md/raid:%s: raid level 5 active with %d out of %d devices, algorithm %d (r5grow)\n",
		mdname(mddev), mddev->raid_disks - mddev->degraded,
		mddev->raid_disks, mddev->layout);
	return 0;

out_clear_private:
	mddev->private = NULL;
out_free_conf:
	r5g_free_conf(conf);
	return err;
}

static void r5g_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r5g_conf *conf = mddev->private;
	const struct r5g_geo *g = &conf->geo[R5G_GEO_CUR];
	int i;

	seq_printf(seq, " level %d, %dk chunk, algorithm %d", mddev->level,
		   g->chunk_sectors / 2, mddev->layout);
	seq_printf(seq, " [%d/%d] [", g->raid_disks,
		   g->raid_disks - mddev->degraded);
	rcu_read_lock();
	for (i = 0; i < g->raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		seq_puts(seq, rdev && test_bit(In_sync, &rdev->flags) ?
			 "U" : "_");
	}
	rcu_read_unlock();
	seq_puts(seq, "]");
}

/*---- Operations of other files ----*/

/* Resync, check, repair and rebuild, or a reshape step. */
static sector_t r5g_sync(struct mddev *mddev, sector_t sector_nr,
			 int *skipped)
{
	if (test_bit(MD_RECOVERY_RESHAPE, &mddev->recovery))
		return r5g_reshape_request(mddev, sector_nr, skipped);
	return r5g_sync_request(mddev, sector_nr, skipped);
}

static void r5g_finish(struct mddev *mddev)
{
	if (r5g_finish_reshape(mddev))
		r5g_set_limits(mddev, mddev->private);
}

/*---- sysfs ----*/

static ssize_t r5g_stripe_cache_size_show(struct mddev *mddev, char *page)
{
	struct r5g_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%d\n", READ_ONCE(conf->max_nr_stripes));
	spin_unlock(&mddev->lock);
	return ret;
}

static ssize_t r5g_stripe_cache_size_store(struct mddev *mddev,
					   const char *page, size_t len)
{
	struct r5g_conf *conf;
	unsigned long n;
	int err;

	if (len >= PAGE_SIZE)
		return -EINVAL;
	if (kstrtoul(page, 10, &n))
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf) {
		err = -ENODEV;
	} else if (n < R5G_MIN_STRIPES || n > R5G_MAX_STRIPES) {
		pr_warn("md/raid:%s: stripe_cache_size must be between %d and %d\n",
			mdname(mddev), R5G_MIN_STRIPES, R5G_MAX_STRIPES);
		err = -ERANGE;
	} else {
		err = r5g_cache_resize(conf, n);
	}
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5g_stripe_cache_size =
	__ATTR(stripe_cache_size, 0644, r5g_stripe_cache_size_show,
	       r5g_stripe_cache_size_store);

static ssize_t r5g_stripe_cache_active_show(struct mddev *mddev, char *page)
{
	struct r5g_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%d\n", r5g_active_stripes(conf));
	spin_unlock(&mddev->lock);
	return ret;
}

static struct md_sysfs_entry r5g_stripe_cache_active =
	__ATTR(stripe_cache_active, 0444, r5g_stripe_cache_active_show, NULL);

static ssize_t r5g_ckpt_ms_show(struct mddev *mddev, char *page)
{
	struct r5g_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%u\n", READ_ONCE(conf->ckpt_ms));
	spin_unlock(&mddev->lock);
	return ret;
}

/* Milliseconds between time-based reshape checkpoints. */
static ssize_t r5g_ckpt_ms_store(struct mddev *mddev, const char *page,
				 size_t len)
{
	struct r5g_conf *conf;
	unsigned int ms;
	int err;

	if (len >= PAGE_SIZE || kstrtouint(page, 10, &ms))
		return -EINVAL;
	if (ms < R5G_CKPT_MS_MIN || ms > R5G_CKPT_MS_MAX) {
		pr_warn("md/raid:%s: reshape_checkpoint_ms must be between %d and %d\n",
			mdname(mddev), R5G_CKPT_MS_MIN, R5G_CKPT_MS_MAX);
		return -ERANGE;
	}
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (conf)
		WRITE_ONCE(conf->ckpt_ms, ms);
	else
		err = -ENODEV;
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5g_ckpt_ms =
	__ATTR(reshape_checkpoint_ms, 0644, r5g_ckpt_ms_show,
	       r5g_ckpt_ms_store);

static struct attribute *r5g_attrs[] = {
	&r5g_stripe_cache_size.attr,
	&r5g_stripe_cache_active.attr,
	&r5g_ckpt_ms.attr,
	NULL,
};

static const struct attribute_group r5g_attrs_group = {
	.name = NULL,
	.attrs = r5g_attrs,
};

/*---- Personality ----*/

static struct md_personality r5g_personality = {
	.name		= "raid5",
	.level		= 5,
	.owner		= THIS_MODULE,
	.make_request	= r5g_make_request,
	.run		= r5g_run,
	.free		= r5g_free,
	.status		= r5g_status,
	.error_handler	= r5g_error,
	.hot_add_disk	= r5g_add_disk,
	.hot_remove_disk = r5g_remove_disk,
	.spare_active	= r5g_spare_active,
	.sync_request	= r5g_sync,
	.resize		= r5g_resize,
	.size		= r5g_size,
	.check_reshape	= r5g_check_reshape,
	.start_reshape	= r5g_start_reshape,
	.finish_reshape	= r5g_finish,
	.quiesce	= r5g_quiesce,
};

static int __init r5g_init(void)
{
	return register_md_personality(&r5g_personality);
}

static void __exit r5g_exit(void)
{
	unregister_md_personality(&r5g_personality);
}

module_init(r5g_init);
module_exit(r5g_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAID-5 personality for md with online grow");
