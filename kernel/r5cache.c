// SPDX-License-Identifier: GPL-2.0
/*
 * r5grow stripe cache: the stripes, their hash and lru, resizing, the
 * widening of every stripe for a grow, quiesce, and whether a member
 * with a read error stays (r5g_read_error()).
 *
 * A stripe is one page on every member at the same member sector of one
 * geometry. r5g_get_stripe() hands out a referenced stripe, the cached
 * one for that place or the least recently used idle one; the last
 * r5g_release() puts it on the handle list (work queued: the daemon runs
 * it, r5stripe.c), the blocked list, or back on the lru.
 *
 * Locks: cache_lock for the hash, the lists, the counts and quiesce;
 * cache_mutex around resizing; reconfig_mutex and a suspended array for
 * r5g_pool_grow(). Reads no reshape cursor; quiesce waits for the
 * reshape steps in flight to drain (conf->reshape_steps).
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include "md.h"
#include "r5grow.h"

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
void r5g_trim_cache(struct r5g_conf *conf)
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

int r5g_cache_init(struct r5g_conf *conf, int nr)
{
	int i, err;

	mutex_init(&conf->cache_mutex);
	err = mempool_init_kmalloc_pool(&conf->req_pool, 256,
					sizeof(struct r5g_req));
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

/* Undo r5g_cache_init(), also a partial one: frees only what was set. */
void r5g_cache_exit(struct r5g_conf *conf)
{
	struct r5g_stripe *sh, *tmp;

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
 * Widen every stripe and the member table to @disks members, for a
 * grow. Allocate first, then swap: if any allocation fails nothing
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
struct r5g_stripe *r5g_get_stripe(struct r5g_conf *conf, sector_t sector,
				  int gen, unsigned int flags)
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

void r5g_release_locked(struct r5g_conf *conf, struct r5g_stripe *sh)
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

void r5g_release(struct r5g_stripe *sh)
{
	struct r5g_conf *conf = sh->conf;
	unsigned long flags;

	spin_lock_irqsave(&conf->cache_lock, flags);
	r5g_release_locked(conf, sh);
	spin_unlock_irqrestore(&conf->cache_lock, flags);
}

/* Members of the current geometry that cannot serve their data. */
int r5g_calc_degraded(struct r5g_conf *conf)
{
	int i, degraded = 0;

	rcu_read_lock();
	for (i = 0; i < conf->geo[R5G_GEO_CUR].raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		if (!rdev || test_bit(Faulty, &rdev->flags) ||
		    !test_bit(In_sync, &rdev->flags))
			degraded++;
	}
	rcu_read_unlock();
	return degraded;
}

/*
 * A read of @rdev failed at member sector @sector (from the data offset).
 * True when the member stays: the caller rebuilds the block from parity,
 * and the stripe path writes it back and reads it again, md's read-error
 * repair. The member is failed instead (false) when the array has no
 * redundancy to rebuild from, or after more than max_read_errors (md's
 * max_corr_read_errors) such errors on it since it joined the array.
 * Any context.
 */
bool r5g_read_error(struct r5g_conf *conf, struct md_rdev *rdev,
		    sector_t sector)
{
	struct mddev *mddev = conf->mddev;
	int max = atomic_read(&mddev->max_corr_read_errors);
	int n;

	if (test_bit(Faulty, &rdev->flags))
		return false;
	if (READ_ONCE(mddev->degraded)) {
		pr_warn_ratelimited("md/raid:%s: read error not correctable (sector %llu on %pg): the array is degraded\n",
				    mdname(mddev), (unsigned long long)sector,
				    rdev->bdev);
		md_error(mddev, rdev);
		return false;
	}
	n = atomic_inc_return(&rdev->read_errors);
	if (n > max) {
		pr_warn("md/raid:%s: %pg: %d read errors, more than max_read_errors (%d): failing it\n",
			mdname(mddev), rdev->bdev, n, max);
		md_error(mddev, rdev);
		return false;
	}
	pr_info_ratelimited("md/raid:%s: read error at sector %llu on %pg (%d of max_read_errors %d): rebuilding it from parity\n",
			    mdname(mddev), (unsigned long long)sector,
			    rdev->bdev, n, max);
	return true;
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
