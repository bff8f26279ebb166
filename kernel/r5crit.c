// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow critical section: the first rows of a grow that keeps the data
 * offset (D = 0: 0.90, 1.0, or 1.x without room before the data).
 *
 * Those first new rows overwrite old rows not yet recorded as copied, so
 * they are copied inside start_reshape with the array suspended, in an
 * order where a crash at any instant loses nothing: back up the section
 * to the tails of the new members in mdadm's backup format, record the
 * reshape at position 0, copy, record the end of the section, drop the
 * backup. A crash before the reshape is recorded leaves the old array;
 * after it, mdadm --assemble restores the backup and records the end.
 *
 * Cursors: sets C (reshape_safe) to the end of the section under
 * cache_lock once that is on disk; P moves as its steps retire.
 * Locks: the caller holds reconfig_mutex and has the array suspended.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "md.h"
#include "r5grow.h"

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

/* Write one page to every new member at @sector of the new geometry. */
static void r5g_write_new_members(struct r5g_rstep *st, int from, int to,
				  sector_t sector, struct page **pages, int n,
				  blk_opf_t extra)
{
	int j;

	r5g_step_io_begin(st, true, extra);
	for (j = from; j < to; j++)
		r5g_step_chunk(st, j, sector, pages, n);
	r5g_step_io_wait(st);
}

/* Read the old rows of one new row and rebuild a missing member. */
static int r5g_read_row(struct r5g_conf *conf, struct r5g_rstep *st,
			sector_t lo)
{
	r5g_step_plan(conf, st, lo, 1);
	return r5g_step_fetch(st) > 1 ? -EIO : 0;
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
		r5g_step_io_begin(st, true, 0);
		for (k = 0; k < ng->data_disks; k++) {
			struct page **ch = r5g_new_chunk(st, st->nrow, k);

			for (j = old; j < new; j++)
				r5g_step_chunk(st, j, tail + lo + k * c,
					       ch ?: zeros, cpp);
		}
		r5g_step_io_wait(st);
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
int r5g_critical_section(struct mddev *mddev, struct r5g_conf *conf, int old,
			 int new)
{
	struct r5g_rstep *st = &conf->rs->step[0];
	sector_t end = r5g_critical_end(&conf->geo[R5G_GEO_PREV],
					 &conf->geo[R5G_GEO_CUR]);
	sector_t lo, done;
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
	r5g_write_sb(mddev, R5G_SB_START);
	r5g_crit_stage(mddev, "reshape recorded");

	for (lo = 0; lo < done; lo = st->hi) {
		if (r5g_read_row(conf, st, lo)) {
			/* keep the backup and position 0: mdadm restores */
			pr_crit("md/raid:%s: critical section unreadable at array sector %llu\n",
				mdname(mddev), (unsigned long long)lo);
			return 0;
		}
		r5g_step_copy_quiet(conf, st);
	}

	r5g_crit_stage(mddev, "rows copied");
	mddev->reshape_position = done;
	r5g_write_sb(mddev, R5G_SB_CKPT);
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
