// SPDX-License-Identifier: GPL-2.0
/*
 * vroce MR entries: an MR's driver record, its HCA entry made from its MR
 * object (CREATE_MR), destroyed (DESTROY_MR) or parked while the HCA may
 * hold it, and freed. Shared
 * by the MR verbs (c/driver/vroce_mr.c) and the MR cache
 * (c/driver/vroce_mr_cache.c), which call it and not each other's; so
 * are the zombies' reaping (vroce_mr_reap(), vroce_mr_reap_zombies()).
 */

#include <kunit/visibility.h>
#include <linux/jiffies.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/* A zeroed MR, or NULL. */
struct vroce_mr *vroce_mr_alloc(struct vroce_dev *vdev)
{
	struct vroce_mr *mr = vroce_core_zalloc(vdev, sizeof(*mr));

	if (mr) {
		INIT_LIST_HEAD(&mr->zombie);
		INIT_LIST_HEAD(&mr->cache);
	}
	return mr;
}

/*
 * Free an MR whose object is NEW or GONE (the ABI refuses the others), and
 * the pages a cache entry pinned for it.
 */
void vroce_mr_free(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	vroce_mr_obj_destroy(vdev, mr->obj);
	vroce_core_umem_release(vdev, mr->umem);
	vroce_core_free(vdev, mr);
}

/* Keep @mr's memory until the HCA lets go of it (see vroce_mr_reap()). */
void vroce_mr_park(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&mr->zombie, &vdev->zombies);
	mutex_unlock(&vdev->zombie_lock);
}

/*
 * Enter @mr's object in the HCA under PD @pdn and fill in the keys. When
 * CREATE_MR fails the MR is undone: kept as a zombie if the HCA may hold
 * it under a key the driver never learnt (a timeout), freed otherwise;
 * but with @keep_if_full, a CREATE_MR refused for want of an MPT entry
 * (-ENOMEM) leaves @mr as it was, for the caller to try again or free.
 */
int vroce_mr_register(struct vroce_dev *vdev, struct vroce_mr *mr, u32 pdn,
		      bool keep_if_full)
{
	struct vroce_mr_info info;
	struct vroce_mr_desc desc;
	u32 key, handle;
	int err;

	err = vroce_mr_obj_describe(mr->obj, pdn, &desc);
	if (!err)
		err = vroce_cmd_create_mr(vdev, &desc, &key, &handle);
	/* -ENOMEM is the HCA's NO_RESOURCE: no entry was made. */
	if (err == -ENOMEM && keep_if_full)
		return err;
	if (err) {
		if (vroce_mr_obj_create_failed(mr->obj, err))
			vroce_mr_park(vdev, mr);
		else
			vroce_mr_free(vdev, mr);
		return err;
	}
	/* NEW, as describe() just found it: the caller serialises. */
	err = vroce_mr_obj_registered(mr->obj, key, handle);
	if (WARN_ON_ONCE(err)) {
		/* The HCA holds it: take it back, or keep it for good. */
		if (!vroce_cmd_let_go(vroce_cmd_destroy_mr(vdev, handle)))
			ibdev_err(&vdev->ibdev, "MR %#x stays in the HCA\n",
				  handle);
		return err;
	}
	vroce_mr_obj_info(mr->obj, &info);
	mr->type = info.type;
	mr->mtr = info.mtr;
	mr->ibmr.lkey = info.key;
	mr->ibmr.rkey = info.key;
	mr->ibmr.iova = info.iova;
	mr->ibmr.length = info.length;
	return 0;
}

/*
 * Take @mr (its object LIVE) out of the HCA and free it, tables and pages;
 * when DESTROY_MR fails or times out, keep them all until the HCA lets go
 * (see vroce_mr_reap()). Returns whether it was freed.
 */
bool vroce_mr_destroy(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	struct vroce_mr_info info;
	int err;

	/* By handle: the consumer may have changed the key's low byte. */
	vroce_mr_obj_info(mr->obj, &info);
	err = vroce_cmd_destroy_mr(vdev, info.handle);
	if (!vroce_cmd_let_go(err)) {
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "DESTROY_MR %#x failed (%d): keeping its tables and pages until the HCA lets go\n",
				       info.handle, err);
		vroce_mr_obj_parked(mr->obj);
		vroce_mr_park(vdev, mr);
		return false;
	}
	vroce_mr_obj_released(mr->obj, false);
	vroce_mr_free(vdev, mr);
	return true;
}

/**
 * vroce_mr_reap() - free zombie MRs the HCA has let go of
 * @vdev: the device
 * @hca_reset: the HCA has been reset and holds nothing: free them all
 *
 * Otherwise DESTROY_MR is retried for each, by the handle CREATE_MR
 * returned; an MR the HCA no longer knows (-ENOENT) is freed too. An MR
 * whose handle was never learnt (CREATE_MR timed out) waits for the reset.
 * Then DESTROY_PD is retried for the PD numbers the HCA refused while
 * their MRs were parked; not for those whose DESTROY_PD was lost, which
 * the HCA may have carried out and whose number it may have given to a
 * new PD.
 *
 * Context: process context, may sleep.
 */
void vroce_mr_reap(struct vroce_dev *vdev, bool hca_reset)
{
	struct vroce_pd_zombie *pz, *ptmp;
	struct vroce_mr *mr, *tmp;
	int err;

	mutex_lock(&vdev->zombie_lock);
	list_for_each_entry_safe(mr, tmp, &vdev->zombies, zombie) {
		struct vroce_mr_info info;

		vroce_mr_obj_info(mr->obj, &info);
		if (hca_reset)
			err = 0;
		else if (info.state == VROCE_MR_STATE_LOST)
			continue;
		else
			err = vroce_cmd_destroy_mr(vdev, info.handle);
		if (!vroce_cmd_let_go(err) ||
		    vroce_mr_obj_released(mr->obj, hca_reset))
			continue;
		list_del(&mr->zombie);
		vroce_mr_free(vdev, mr);
	}
	list_for_each_entry_safe(pz, ptmp, &vdev->pd_zombies, list) {
		if (pz->lost && !hca_reset)
			continue;
		err = hca_reset ? 0 : vroce_cmd_destroy_pd(vdev, pz->pdn);
		if (!vroce_cmd_let_go(err))
			continue;
		list_del(&pz->list);
		vroce_core_free(vdev, pz);
	}
	mutex_unlock(&vdev->zombie_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_reap);

/**
 * vroce_mr_reap_zombies() - retry the zombies, if there are any
 * @vdev: the device
 *
 * Called after the HCA carried out a command that frees an MR, whichever
 * path (cold, cached, the cache's own discards): a device that answers
 * again lets go of parked MRs and PD numbers (vroce_mr_reap()), so that
 * none keeps the user's pages pinned under a workload that no longer
 * takes the cold path. Tried at most once every VROCE_REAP_PERIOD.
 *
 * Context: process context, may sleep.
 */
void vroce_mr_reap_zombies(struct vroce_dev *vdev)
{
	unsigned long next = READ_ONCE(vdev->reap_next);
	bool any;

	mutex_lock(&vdev->zombie_lock);
	any = !list_empty(&vdev->zombies) || !list_empty(&vdev->pd_zombies);
	mutex_unlock(&vdev->zombie_lock);
	/*
	 * At most once a period: a zombie the HCA keeps refusing (its PD
	 * held by a lost MR until the reset) costs a command each time.
	 */
	if (!any || time_before(jiffies, next) ||
	    cmpxchg(&vdev->reap_next, next, jiffies + VROCE_REAP_PERIOD) != next)
		return;
	vroce_mr_reap(vdev, false);
}
