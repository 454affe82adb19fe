// SPDX-License-Identifier: GPL-2.0
/*
 * vroce MR cache: HCA MR entries kept for re-registration, after mlx5's
 * mkey cache (drivers/infiniband/hw/mlx5/mr.c).
 *
 * An entry is a fast-register MR object of the MR/MTR ABI (a table-only
 * MTR of 2^order 4 KiB pages and its page list) that CREATE_MR entered in
 * the HCA under the cache's own PD, in buckets by rights and order.
 * reg_user_mr of up to max_fast_reg_pages pages whose iova and address
 * agree below 4 KiB takes an idle entry of its rights and order (or makes
 * one), pins the pages, writes their addresses into the entry's page list
 * and has ENABLE_MR copy them into the entry's table and make it the
 * user's MR under a new key (the key generation moves on and the tag
 * changes, so none of the slot's last 255 keys works again). No
 * CREATE_MR, no tables built.
 *
 * dereg_mr has REVOKE_MR stop the MR, and only once the HCA confirmed
 * lets the pages go; the entry goes back to its bucket, or is destroyed
 * when the bucket holds VROCE_MR_CACHE_HIGH or the entry served
 * VROCE_MR_CACHE_USES registrations (each moves its slot's 8-bit key
 * generation on, as a CREATE_MR does; a new entry takes a random MPT slot,
 * so over many registrations a slot's keys come round about as often as
 * without the cache, not every 256 registrations of one user). An MR
 * whose REVOKE_MR fails may still translate the user's pages: it is
 * destroyed, and if DESTROY_MR fails too it is parked with its pages
 * (vroce_mr_reap()).
 *
 * A bucket a registration took from or missed in is warm: a work keeps
 * at least mr_cache_low idle entries in it (module parameter, default 8;
 * 0 turns the prefill off), made with CREATE_MR in the background after
 * the registration that left fewer, as mlx5 refills below its low water
 * mark. So a burst of registrations after the first finds entries.
 *
 * Idle entries go when their bucket went unused for a whole period
 * (module parameter mr_cache_idle_ms): vroce_mr_cache_trim(), from a
 * delayed work queued while entries are idle; the bucket is then cold.
 * When CREATE_MR finds the MPT full, every idle entry is destroyed for
 * its slot (vroce_mr_cache_shrink()) and every bucket is cold.
 *
 * Only user MRs the cache fits (vroce_mr_cache_fits(), which the verbs ask
 * first) pass through it. For the other MRs vroce_mr_create_hw_reclaim()
 * reads how many entries the cache destroyed before their CREATE_MR and,
 * when that finds the MPT full, has the cache give its idle entries'
 * slots back (vroce_mr_cache_reclaim_begin()); the MR stays with it.
 *
 * The module parameter mr_cache (default on) turns it off: reg_user_mr
 * then builds an MTR for every MR, as it does for those the cache does not
 * fit, and for every MR of an HCA whose QUERY_DEVICE does not offer
 * VROCE_CAP_MR_ENABLE. debugfs vroce/<ibdev>/mr_cache shows hits, misses and buckets.
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/*
 * Off by default (issue 33): a cache on by default must never make a
 * registration slower, and on this HCA a miss costs two commands where a
 * cold registration costs one (Documentation/performance.rst).
 */
static bool vroce_mr_cache_on;
module_param_named(mr_cache, vroce_mr_cache_on, bool, 0444);
MODULE_PARM_DESC(mr_cache,
		 "keep HCA MR entries for reg_user_mr to reuse (default off)");

static unsigned int vroce_mr_cache_low = 8;
module_param_named(mr_cache_low, vroce_mr_cache_low, uint, 0444);
MODULE_PARM_DESC(mr_cache_low,
		 "idle MR cache entries kept ready for each size and rights in use, made in the background (default 8, at most 16; 0: none)");

static unsigned int vroce_mr_cache_idle_ms = 30000;
module_param_named(mr_cache_idle_ms, vroce_mr_cache_idle_ms, uint, 0444);
MODULE_PARM_DESC(mr_cache_idle_ms,
		 "destroy the idle MR cache entries of a size and rights no registration used for this long (ms, default 30000)");

#define VROCE_MR_CACHE_PAGE	SZ_4K
/* The refill starts this long after the registration that asked for it. */
#define VROCE_MR_CACHE_REFILL_DELAY	1	/* jiffies */

static void vroce_mr_cache_trim_work(struct work_struct *work)
{
	struct vroce_mr_cache *c = container_of(to_delayed_work(work),
						struct vroce_mr_cache,
						trim_work);

	vroce_mr_cache_trim(container_of(c, struct vroce_dev, mr_cache));
}

static void vroce_mr_cache_refill_work(struct work_struct *work)
{
	struct vroce_mr_cache *c = container_of(to_delayed_work(work),
						struct vroce_mr_cache,
						refill_work);

	vroce_mr_cache_refill(container_of(c, struct vroce_dev, mr_cache));
}

/**
 * vroce_mr_cache_init() - an empty cache, on or off as the module parameter
 * @vdev: a new device
 *
 * Context: process context.
 */
void vroce_mr_cache_init(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	u32 r, o;

	mutex_init(&c->lock);
	mutex_init(&c->reclaim_lock);
	INIT_DELAYED_WORK(&c->trim_work, vroce_mr_cache_trim_work);
	INIT_DELAYED_WORK(&c->refill_work, vroce_mr_cache_refill_work);
	c->idle_ms = max(vroce_mr_cache_idle_ms, 1U);
	c->low = min(vroce_mr_cache_low, VROCE_MR_CACHE_HIGH);
	c->enabled = vroce_mr_cache_on;
	for (r = 0; r < VROCE_MR_CACHE_RIGHTS; r++)
		for (o = 0; o < VROCE_MR_CACHE_ORDERS; o++)
			INIT_LIST_HEAD(&c->bucket[r][o].idle);
}

/**
 * vroce_mr_cache_fits() - whether reg_user_mr takes a cache entry
 * @vdev: the device
 * @attr: the registration
 * @rights: where its rights go
 * @order: where its bucket's order goes
 *
 * Not for bad input: the cold path reports it, with its own errno.
 *
 * Context: any context.
 * Return: true when the cache is on, the HCA offers ENABLE_MR
 * (VROCE_CAP_MR_ENABLE), the cache's PD was not lost, @attr is valid, its
 * rights have a bucket (not VROCE_MR_RIGHT_MW_BIND), its iova and address
 * agree below 4 KiB and its pages fit a fast-register table.
 */
bool vroce_mr_cache_fits(struct vroce_dev *vdev,
			 const struct vroce_mr_user_attr *attr, u32 *rights,
			 u32 *order)
{
	u64 end, npages;

	/*
	 * An HCA without ENABLE_MR gets no cached MR: every one would fail;
	 * nor does a cache whose PD was lost, which makes none again.
	 */
	if (!READ_ONCE(vdev->mr_cache.enabled) ||
	    (READ_ONCE(vdev->mr_cache.pd_lost) &&
	     !READ_ONCE(vdev->mr_cache.have_pd)) ||
	    !(vdev->attr.caps & VROCE_CAP_MR_ENABLE) || !attr->length ||
	    attr->length > attr->max_length ||
	    check_add_overflow(attr->iova, attr->length - 1, &end) ||
	    check_add_overflow(attr->start, attr->length - 1, &end) ||
	    (attr->iova ^ attr->start) & (VROCE_MR_CACHE_PAGE - 1) ||
	    vroce_mr_rights(attr->access, rights) ||
	    /* No bucket for VROCE_MR_RIGHT_MW_BIND: such MRs are not cached. */
	    *rights >= VROCE_MR_CACHE_RIGHTS)
		return false;
	npages = DIV_ROUND_UP((attr->iova & (VROCE_MR_CACHE_PAGE - 1)) +
			      attr->length, VROCE_MR_CACHE_PAGE);
	if (npages > BIT(VROCE_MR_CACHE_ORDERS - 1) ||
	    BIT(order_base_2(npages)) > vdev->attr.max_fast_reg_pages)
		return false;
	*order = order_base_2(npages);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_cache_fits);

/*
 * Destroy @mr's entry, or keep it and its pages if the HCA may still use
 * them (DESTROY_MR failed). @mr's object is LIVE. Counted once the
 * DESTROY_MR is done: a registration that sees the count move may find a
 * free MPT slot.
 */
static bool vroce_mr_cache_discard(struct vroce_dev *vdev,
				   struct vroce_mr *mr)
{
	bool freed = vroce_mr_destroy_hw(vdev, mr);

	mutex_lock(&vdev->mr_cache.lock);
	vdev->mr_cache.dropped++;
	mutex_unlock(&vdev->mr_cache.lock);
	return freed;
}

/*
 * Bucket @b's idle entries onto @list, and the bucket cold; c->lock held.
 * Returns how many.
 */
static u32 vroce_mr_cache_splice(struct vroce_mr_cache_bucket *b,
				 struct list_head *list)
{
	u32 n = b->count;

	list_splice_init(&b->idle, list);
	b->count = 0;
	b->warm = false;
	return n;
}

/* Every bucket's idle entries onto @list; c->lock held. Returns how many. */
static u32 vroce_mr_cache_splice_all(struct vroce_mr_cache *c,
				     struct list_head *list)
{
	u32 r, o, n = 0;

	for (r = 0; r < VROCE_MR_CACHE_RIGHTS; r++)
		for (o = 0; o < VROCE_MR_CACHE_ORDERS; o++)
			n += vroce_mr_cache_splice(&c->bucket[r][o], list);
	return n;
}

/*
 * Destroy (or park) the idle entries on @list; when the HCA destroyed one,
 * retry the zombies too.
 */
static void vroce_mr_cache_discard_all(struct vroce_dev *vdev,
				       struct list_head *list)
{
	struct vroce_mr *mr, *tmp;
	bool answered = false;

	list_for_each_entry_safe(mr, tmp, list, cache) {
		list_del_init(&mr->cache);
		answered |= vroce_mr_cache_discard(vdev, mr);
	}
	if (answered)
		vroce_mr_reap_zombies(vdev);
}

/*
 * Into its bucket, idle (revoked, no pages), unless the cache is off or
 * has no PD, or the bucket is full; c->lock held. Returns whether it is.
 */
static bool vroce_mr_cache_add(struct vroce_mr_cache *c, struct vroce_mr *mr)
{
	struct vroce_mr_cache_bucket *b =
		&c->bucket[mr->cache_rights][mr->cache_order];

	if (!c->enabled || !c->have_pd || b->count >= VROCE_MR_CACHE_HIGH)
		return false;
	list_add(&mr->cache, &b->idle);
	b->count++;
	/* Entries wait: the trim looks at them a period from now. */
	queue_delayed_work(system_unbound_wq, &c->trim_work,
			   msecs_to_jiffies(c->idle_ms));
	return true;
}

/*
 * Back into its bucket, or destroyed: when it does not fit there, or the
 * entry served VROCE_MR_CACHE_USES registrations.
 */
static void vroce_mr_cache_recycle(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	bool kept;

	mutex_lock(&c->lock);
	/* A dead device's entries serve no one again. */
	kept = mr->cache_uses < VROCE_MR_CACHE_USES &&
	       !vroce_dev_dead(vdev) && vroce_mr_cache_add(c, mr);
	if (kept) {
		c->recycled++;
		/* Coming back is use too: a long-held MR's entry is not old. */
		c->bucket[mr->cache_rights][mr->cache_order].used = true;
	}
	mutex_unlock(&c->lock);
	if (!kept)
		vroce_mr_cache_discard(vdev, mr);
}

/* An idle entry of the bucket, or NULL (a miss); @pdn is the cache PD. */
static struct vroce_mr *vroce_mr_cache_pop(struct vroce_dev *vdev, u32 r,
					   u32 o, u32 *pdn)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_mr_cache_bucket *b = &c->bucket[r][o];
	struct vroce_mr *mr;
	int err = 0;

	mutex_lock(&c->lock);
	b->used = true;
	b->warm = true;
	mr = list_first_entry_or_null(&b->idle, struct vroce_mr, cache);
	if (mr) {
		list_del_init(&mr->cache);
		b->count--;
		c->hits++;
	} else {
		c->misses++;
	}
	/* Misses make entries under the cache's PD: made once. */
	if (!mr && !c->have_pd && c->pd_lost) {
		err = -ENODEV;
	} else if (!mr && !c->have_pd) {
		err = vroce_pd_create(vdev, &c->pdn, &c->pd_zombie);
		/* At most one number lost to the cache per HCA. */
		if (err)
			WRITE_ONCE(c->pd_lost, err == -ETIMEDOUT);
		else
			WRITE_ONCE(c->have_pd, true);
	}
	/*
	 * Fewer than the low water mark left: more are made from the next
	 * jiffy on, so that a burst's registrations mostly go first (mlx5
	 * refills from a delayed work too). Not pushed back by later ones:
	 * under steady load the refill still runs.
	 */
	if (c->have_pd && b->count < c->low)
		queue_delayed_work(system_unbound_wq, &c->refill_work,
				   VROCE_MR_CACHE_REFILL_DELAY);
	*pdn = c->pdn;
	mutex_unlock(&c->lock);
	return err ? ERR_PTR(err) : mr;
}

/*
 * A new entry of 2^@o pages under the cache's PD @pdn; with @reclaim,
 * made even if idle entries must give their MPT slots for it.
 */
static struct vroce_mr *vroce_mr_cache_new(struct vroce_dev *vdev, u32 r,
					   u32 o, u32 pdn, bool reclaim)
{
	struct vroce_mr *mr;
	int err;

	mr = vroce_mr_new_frmr(vdev, BIT(o), vdev->attr.max_fast_reg_pages);
	if (IS_ERR(mr))
		return mr;
	/* On failure the MR is freed, or parked if the HCA may hold it. */
	err = reclaim ? vroce_mr_create_hw_reclaim(vdev, mr, pdn) :
			vroce_mr_create_hw(vdev, mr, pdn, false);
	if (err)
		return ERR_PTR(err);
	mr->cache_rights = r;
	mr->cache_order = o;
	return mr;
}

/* @umem's 4 KiB pages into @mr's page list; returns how many. */
static int vroce_mr_cache_pages(struct vroce_mr *mr, struct ib_umem *umem)
{
	struct ib_block_iter biter;
	int n = 0, err;

	err = vroce_mr_obj_pages_reset(mr->obj);
	rdma_umem_for_each_dma_block(umem, &biter, VROCE_MR_CACHE_PAGE) {
		err = err ?: vroce_mr_obj_page_add(mr->obj,
				rdma_block_iter_dma_address(&biter));
		n++;
	}
	return err ?: n;
}

/*
 * The device did not answer the cache's command (lost, or no command slot
 * within the timeout): the cold path would wait as long again, so the
 * registration fails rather than falling back.
 */
static bool vroce_mr_cache_unanswered(int err)
{
	return err == -ETIMEDOUT || err == -EAGAIN;
}

/**
 * vroce_mr_cache_take() - take a cache entry for reg_user_mr: an idle one,
 *	or a new one, made the user's MR over its pages (ENABLE_MR)
 * @vdev: the device
 * @ibpd: the MR's protection domain
 * @attr: the registration, vroce_mr_cache_fits() said it fits
 * @rights: its rights, from vroce_mr_cache_fits()
 * @order: its bucket, likewise
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: the MR; NULL when the cache could not serve the registration
 * (its PD or a new entry could not be made, or ENABLE_MR failed): the
 * cache's failure is not the user's, the caller takes the cold path;
 * ERR_PTR() of an error of ib_umem_get() (unchanged), -ETIMEDOUT when a
 * command of the cache was lost or -EAGAIN when it found no command slot
 * in time (the device did not answer: the cold path would wait as long
 * again); after a lost ENABLE_MR the entry and the pages are kept until
 * the HCA lets go.
 */
struct ib_mr *vroce_mr_cache_take(struct vroce_dev *vdev, struct ib_pd *ibpd,
				  const struct vroce_mr_user_attr *attr,
				  u32 rights, u32 order)
{
	struct vroce_cmd_enable_desc desc = {
		.pdn = to_vroce_pd(ibpd)->pdn,
		.access = rights,
		.iova = attr->iova,
		.length = attr->length,
	};
	struct vroce_mr_info info;
	struct ib_umem *umem;
	struct vroce_mr *mr;
	u32 key, pdn;
	int n, err;

	umem = vroce_core_umem_get(vdev, attr->start, attr->length,
				   attr->access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = vroce_mr_cache_pop(vdev, rights, order, &pdn);
	if (!mr)
		mr = vroce_mr_cache_new(vdev, rights, order, pdn, true);
	if (IS_ERR(mr)) {
		vroce_core_umem_release(vdev, umem);
		return vroce_mr_cache_unanswered(PTR_ERR(mr)) ? ERR_CAST(mr) :
								NULL;
	}

	n = vroce_mr_cache_pages(mr, umem);
	vroce_mr_obj_info(mr->obj, &info);
	desc.handle = info.handle;
	desc.npages = n;
	desc.pbl = info.pbl_dma;
	/* The table fits by the bucket; a list it does not fit is a bug. */
	err = WARN_ON_ONCE(n < 0) ? n : vroce_cmd_enable_mr(vdev, &desc, &key);
	if (err == -ETIMEDOUT) {
		/* The HCA may have made it the user's MR: keep the pages. */
		mr->umem = umem;
		vroce_mr_cache_discard(vdev, mr);
		return ERR_PTR(err);
	}
	if (err) {
		/* Not enabled: the pages go; the entry too, unless it is fine. */
		vroce_core_umem_release(vdev, umem);
		if (err == -EAGAIN || err == -ENOMEM || err == -EBUSY)
			vroce_mr_cache_recycle(vdev, mr);
		else
			vroce_mr_cache_discard(vdev, mr);
		return vroce_mr_cache_unanswered(err) ? ERR_PTR(err) : NULL;
	}

	memset(&mr->ibmr, 0, sizeof(mr->ibmr));
	mr->umem = umem;
	mr->cached = true;
	mr->cache_uses++;
	mr->type = VROCE_MR_TYPE_USER;
	vroce_mr_set_mtr(mr, info.mtr);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ibmr.iova = attr->iova;
	mr->ibmr.length = attr->length;
	return &mr->ibmr;
}

/**
 * vroce_mr_cache_put() - give back at dereg_mr an MR made from a cache
 *	entry (REVOKE_MR): to its bucket, or destroyed
 * @vdev: the device
 * @mr: the MR
 *
 * The pages go only once REVOKE_MR succeeded: the entry then goes back to
 * its bucket. Otherwise it is destroyed, or parked with its pages.
 *
 * Context: process context, may sleep.
 * Return: whether the HCA carried out REVOKE_MR or the DESTROY_MR after it
 * (it answers: zombies are worth retrying).
 */
bool vroce_mr_cache_put(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_mr_info info;
	u32 pdn;
	int err;

	mutex_lock(&c->lock);
	pdn = c->pdn;
	err = c->have_pd ? 0 : -ENOENT;
	mutex_unlock(&c->lock);
	vroce_mr_obj_info(mr->obj, &info);
	if (!err)
		err = vroce_cmd_revoke_mr(vdev, info.handle, pdn);
	mr->cached = false;
	if (err) {
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "REVOKE_MR %#x failed (%d): destroying it\n",
				       info.handle, err);
		return vroce_mr_cache_discard(vdev, mr);
	}
	vroce_core_umem_release(vdev, mr->umem);
	mr->umem = NULL;
	vroce_mr_cache_recycle(vdev, mr);
	return true;
}

/**
 * vroce_mr_cache_drain() - destroy every idle entry, and the cache's PD
 * @vdev: the device
 *
 * Entries the HCA does not let go of are parked, and the PD's number with
 * them; MRs in use come back later and are destroyed then (the cache has
 * no PD to keep them under). Before the device is stopped, once it is
 * unregistered, and for tests that count what the device holds: not while
 * a deregistration may be between reading the cache's PD and REVOKE_MR
 * (the number could go to a user's PD meanwhile).
 *
 * Context: process context, may sleep.
 */
void vroce_mr_cache_drain(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_pd_zombie *pz = NULL;
	LIST_HEAD(all);
	bool have_pd;
	u32 pdn;

	/* A trim under way destroys entries under the PD: let it end. */
	cancel_delayed_work_sync(&c->trim_work);
	mutex_lock(&c->lock);
	vroce_mr_cache_splice_all(c, &all);
	have_pd = c->have_pd;
	pdn = c->pdn;
	pz = c->pd_zombie;
	c->have_pd = false;
	c->pd_zombie = NULL;
	mutex_unlock(&c->lock);
	/*
	 * One queued meanwhile; with no PD none is queued from now on. A
	 * refill under way finishes with the PD still there, and destroys
	 * what it made.
	 */
	cancel_delayed_work_sync(&c->trim_work);
	cancel_delayed_work_sync(&c->refill_work);

	vroce_mr_cache_discard_all(vdev, &all);
	/* Parked while a parked entry still names it. */
	if (have_pd)
		vroce_pd_destroy(vdev, pdn, pz);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_cache_drain);

/* A warm bucket below the low water mark, and the cache's PD. */
static bool vroce_mr_cache_needy(struct vroce_mr_cache *c, u32 *r, u32 *o,
				 u32 *pdn)
{
	bool found = false;

	mutex_lock(&c->lock);
	/* Not while a registration waits for the slots it freed. */
	if (!c->enabled || !c->have_pd || c->reclaiming)
		goto out;
	for (*r = 0; *r < VROCE_MR_CACHE_RIGHTS; (*r)++) {
		for (*o = 0; *o < VROCE_MR_CACHE_ORDERS; (*o)++) {
			struct vroce_mr_cache_bucket *b = &c->bucket[*r][*o];

			if (b->warm && b->count < c->low) {
				found = true;
				goto out;
			}
		}
	}
out:
	*pdn = c->pdn;
	mutex_unlock(&c->lock);
	return found;
}

/**
 * vroce_mr_cache_refill() - bring warm buckets up to the low water mark
 * @vdev: the device
 *
 * What the refill work does after a registration left a warm bucket with
 * fewer than mr_cache_low idle entries: CREATE_MR makes entries under the
 * cache's PD until every warm bucket has that many. It stops at the first
 * failure (counted as refill_failed) and never takes MPT slots from idle
 * entries. Also for tests, which do not wait.
 *
 * Context: process context, may sleep.
 */
void vroce_mr_cache_refill(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_mr *mr;
	u32 r, o, pdn;
	bool kept;

	while (vroce_mr_cache_needy(c, &r, &o, &pdn)) {
		mr = vroce_mr_cache_new(vdev, r, o, pdn, false);
		mutex_lock(&c->lock);
		if (IS_ERR(mr)) {
			c->refill_failed++;
			mutex_unlock(&c->lock);
			return;
		}
		/*
		 * A drain meanwhile took the PD, a trim or a shrink made the
		 * bucket cold, or a registration is reclaiming: the entry goes.
		 */
		kept = pdn == c->pdn && c->bucket[r][o].warm && !c->reclaiming &&
		       vroce_mr_cache_add(c, mr);
		if (kept)
			c->refilled++;
		mutex_unlock(&c->lock);
		if (!kept) {
			vroce_mr_cache_discard(vdev, mr);
			return;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_cache_refill);

/**
 * vroce_mr_cache_trim() - destroy the idle entries of buckets no
 *	registration or deregistration used since the last trim
 * @vdev: the device
 *
 * What the trim work does every idle period while entries are idle, after
 * mlx5's cache shrinking: an entry goes between one and two periods after
 * its bucket was last used. Also for tests, which do not wait.
 *
 * Context: process context, may sleep.
 */
void vroce_mr_cache_trim(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	bool left = false;
	LIST_HEAD(old);
	u32 r, o;

	mutex_lock(&c->lock);
	for (r = 0; r < VROCE_MR_CACHE_RIGHTS; r++) {
		for (o = 0; o < VROCE_MR_CACHE_ORDERS; o++) {
			struct vroce_mr_cache_bucket *b = &c->bucket[r][o];

			if (!b->used)
				c->trimmed += vroce_mr_cache_splice(b, &old);
			b->used = false;
			left |= b->count > 0;
		}
	}
	if (left)
		queue_delayed_work(system_unbound_wq, &c->trim_work,
				   msecs_to_jiffies(c->idle_ms));
	mutex_unlock(&c->lock);
	vroce_mr_cache_discard_all(vdev, &old);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_cache_trim);

/**
 * vroce_mr_cache_shrink() - destroy every idle entry, for their MPT slots
 * @vdev: the device
 *
 * For a CREATE_MR the HCA refused for want of an MPT entry: idle entries
 * hold slots no user has, and are given back before the registration
 * fails. The cache's PD stays.
 *
 * Context: process context, may sleep; not under the cache's lock.
 */
void vroce_mr_cache_shrink(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	LIST_HEAD(all);

	mutex_lock(&c->lock);
	c->reclaimed += vroce_mr_cache_splice_all(c, &all);
	mutex_unlock(&c->lock);
	vroce_mr_cache_discard_all(vdev, &all);
}

/**
 * vroce_mr_cache_reclaim_mark() - the entries the cache has destroyed so far
 * @vdev: the device
 *
 * Taken before a CREATE_MR, for vroce_mr_cache_reclaim_begin() to tell
 * whether MPT slots came back since.
 *
 * Context: process context, may sleep.
 * Return: the count (debugfs dropped).
 */
u64 vroce_mr_cache_reclaim_mark(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	u64 dropped;

	mutex_lock(&c->lock);
	dropped = c->dropped;
	mutex_unlock(&c->lock);
	return dropped;
}

/**
 * vroce_mr_cache_reclaim_begin() - give the MPT slots of the idle entries
 *	back, for a CREATE_MR that found the MPT full
 * @vdev: the device
 * @mark: vroce_mr_cache_reclaim_mark() from before that CREATE_MR
 *
 * Every idle entry is destroyed (vroce_mr_cache_shrink()). Until
 * vroce_mr_cache_reclaim_end() the refill makes no entry (it would take
 * the slots back), and one under way is waited for first, so that its
 * entry goes too. Reclaims run one at a time, each after the DESTROY_MRs
 * of those before, so a second one may find nothing idle and still have
 * slots to try: those the refill's entry or the reclaim before it freed.
 *
 * Context: process context, may sleep. Returns with the cache's
 * reclaim_lock held, for the caller's second CREATE_MR; release it with
 * vroce_mr_cache_reclaim_end().
 * Return: whether the cache destroyed an entry since @mark: CREATE_MR is
 * worth trying again.
 */
bool vroce_mr_cache_reclaim_begin(struct vroce_dev *vdev, u64 mark)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	bool again;

	/* One at a time: each sees what those before it destroyed. */
	mutex_lock(&c->reclaim_lock);
	mutex_lock(&c->lock);
	c->reclaiming++;
	mutex_unlock(&c->lock);
	cancel_delayed_work_sync(&c->refill_work);
	vroce_mr_cache_shrink(vdev);
	mutex_lock(&c->lock);
	/* Entries destroyed since the first try gave slots back. */
	again = c->dropped != mark;
	mutex_unlock(&c->lock);
	return again;
}

/**
 * vroce_mr_cache_reclaim_end() - end what vroce_mr_cache_reclaim_begin()
 *	started: the refill may make entries again
 * @vdev: the device
 *
 * Context: process context, with the cache's reclaim_lock held by
 * vroce_mr_cache_reclaim_begin(); releases it.
 */
void vroce_mr_cache_reclaim_end(struct vroce_dev *vdev)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;

	mutex_lock(&c->lock);
	c->reclaiming--;
	mutex_unlock(&c->lock);
	mutex_unlock(&c->reclaim_lock);
}

/* What debugfs shows: the switch, the counters and the buckets in use. */
static int vroce_mr_cache_show(struct seq_file *m, void *unused)
{
	struct vroce_dev *vdev = m->private;
	struct vroce_mr_cache *c = &vdev->mr_cache;
	u32 r, o;

	mutex_lock(&c->lock);
	seq_printf(m, "enabled %d\nhits %llu\nmisses %llu\nrecycled %llu\ndropped %llu\ntrimmed %llu\nreclaimed %llu\nrefilled %llu\nrefill_failed %llu\nlow %u\nidle_ms %u\n",
		   c->enabled, c->hits, c->misses, c->recycled, c->dropped,
		   c->trimmed, c->reclaimed, c->refilled, c->refill_failed,
		   c->low, c->idle_ms);
	for (r = 0; r < VROCE_MR_CACHE_RIGHTS; r++)
		for (o = 0; o < VROCE_MR_CACHE_ORDERS; o++)
			if (c->bucket[r][o].count)
				seq_printf(m, "rights %#x pages %lu: %u idle\n",
					   r, BIT(o), c->bucket[r][o].count);
	mutex_unlock(&c->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vroce_mr_cache);

/**
 * vroce_mr_cache_debugfs() - add the cache's file to the device's directory
 * @vdev: the device
 * @dir: its debugfs directory
 *
 * Context: process context.
 */
void vroce_mr_cache_debugfs(struct vroce_dev *vdev, struct dentry *dir)
{
	debugfs_create_file("mr_cache", 0400, dir, vdev, &vroce_mr_cache_fops);
}
