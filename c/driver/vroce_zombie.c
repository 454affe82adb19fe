// SPDX-License-Identifier: GPL-2.0
/*
 * vroce zombies: what the HCA may still hold after a command that should
 * have freed it failed or was lost, kept (parked) until the HCA lets go of
 * it or is reset, and freed (reaped) then. The one place for all four
 * kinds:
 *
 * - MRs (&vroce_dev.zombies): their tables and pages, parked by the MR
 *   entry code (c/driver/vroce_mr_entry.c) when DESTROY_MR is not
 *   confirmed or CREATE_MR is lost; DESTROY_MR is retried for them.
 * - PD numbers (&vroce_dev.pd_zombies): a PD's number, whether a user's PD
 *   (c/driver/vroce_verbs.c) or the MR cache's own; the record that keeps
 *   it is taken with the PD, so that destroying never allocates.
 * - Rings (&vroce_dev.ring_zombies): a CQ's or QP's rings, freed only once
 *   the HCA is reset.
 * - Memory windows (&vroce_dev.mw_zombies): window objects whose
 *   DEALLOC_MW is not confirmed or whose ALLOC_MW was lost
 *   (c/driver/vroce_mw.c); DEALLOC_MW is retried for them.
 *
 * vroce_mr_free() is here too: an MR record ends either freed or parked,
 * and the reaping frees the parked ones.
 */

#include <kunit/visibility.h>
#include <linux/jiffies.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/*
 * Free an MR whose object is NEW or GONE (the ABI refuses the others), and
 * the pages a cache entry pinned for it.
 */
void vroce_mr_free(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	/* ODP: the notifiers, which use the object, go first. */
	if (mr->odp) {
		vroce_mem_odp_release(vdev, mr->odp, &mr->odp_chunks);
		mr->odp = NULL;
	}
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

/* Keep @mw's object until the HCA lets go of it (see vroce_mr_reap()). */
void vroce_mw_park(struct vroce_dev *vdev, struct vroce_mw *mw)
{
	mw->zombie->obj = mw->obj;
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&mw->zombie->list, &vdev->mw_zombies);
	mutex_unlock(&vdev->zombie_lock);
}

/* Retry DEALLOC_MW for the parked windows; free those the HCA let go. */
static void vroce_mw_reap(struct vroce_dev *vdev, bool hca_reset)
{
	struct vroce_mw_zombie *z, *tmp;
	struct vroce_mw_info info;
	int err;

	lockdep_assert_held(&vdev->zombie_lock);
	list_for_each_entry_safe(z, tmp, &vdev->mw_zombies, list) {
		vroce_mw_obj_info(z->obj, &info);
		if (hca_reset)
			err = 0;
		else if (info.state == VROCE_MR_STATE_LOST)
			continue;
		else
			err = vroce_cmd_dealloc_mw(vdev, info.handle);
		if (!vroce_cmd_let_go(err) ||
		    vroce_mw_obj_released(z->obj, hca_reset))
			continue;
		list_del(&z->list);
		vroce_mw_obj_destroy(vdev, z->obj);
		vroce_core_free(vdev, z);
	}
}

/**
 * vroce_mr_reap() - free zombie MRs the HCA has let go of
 * @vdev: the device
 * @hca_reset: the HCA has been reset and holds nothing: free them all
 *
 * Otherwise DESTROY_MR is retried for each, by the handle CREATE_MR
 * returned; an MR the HCA no longer knows (-ENOENT) is freed too. An MR
 * whose handle was never learnt (CREATE_MR timed out) waits for the reset.
 * Memory windows likewise, by DEALLOC_MW. Then DESTROY_PD is retried for
 * the PD numbers the HCA refused while their MRs were parked; not for
 * those whose DESTROY_PD was lost, which the HCA may have carried out and
 * whose number it may have given to a new PD.
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
		bool kept;

		/* Issue 33: an ODP MR's notifiers call its object too. */
		if (mr->odp)
			mutex_lock(&mr->odp_mutex);
		vroce_mr_obj_info(mr->obj, &info);
		if (hca_reset)
			err = 0;
		else if (info.state == VROCE_MR_STATE_LOST)
			err = -EBUSY;
		else
			err = vroce_cmd_destroy_mr(vdev, info.handle);
		kept = !vroce_cmd_let_go(err) ||
		       vroce_mr_obj_released(mr->obj, hca_reset);
		if (mr->odp)
			mutex_unlock(&mr->odp_mutex);
		if (kept)
			continue;
		list_del(&mr->zombie);
		vroce_mr_free(vdev, mr);
	}
	vroce_mw_reap(vdev, hca_reset);
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
	any = !list_empty(&vdev->zombies) || !list_empty(&vdev->pd_zombies) ||
	      !list_empty(&vdev->mw_zombies);
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

/**
 * vroce_pd_create() - a PD number from the HCA, with the record that keeps
 *	it if the HCA later refuses to free it
 * @vdev: the device
 * @pdn: where the number goes
 * @zombie: where the record goes; NULL on failure
 *
 * The record is taken first, so that vroce_pd_destroy() never allocates.
 * For a user's PD and for the MR cache's own.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, or an error of CREATE_PD (-ETIMEDOUT: the HCA may
 * hold a PD whose number was never learnt).
 */
int vroce_pd_create(struct vroce_dev *vdev, u32 *pdn,
		    struct vroce_pd_zombie **zombie)
{
	int err;

	*zombie = vroce_core_zalloc(vdev, sizeof(**zombie));
	if (!*zombie)
		return -ENOMEM;
	err = vroce_cmd_create_pd(vdev, pdn);
	if (err) {
		vroce_core_free(vdev, *zombie);
		*zombie = NULL;
	}
	return err;
}

/**
 * vroce_pd_destroy() - free a PD number, or park it
 * @vdev: the device
 * @pdn: the number, from vroce_pd_create()
 * @zombie: its record, from vroce_pd_create(); freed, or owned by the
 *	device from now on
 *
 * A PD holds no memory the HCA could reach. The HCA refuses DESTROY_PD
 * while an MR or QP of the PD is still parked: the number is then kept
 * and vroce_mr_reap() retries it, until the HCA is reset; a lost one is
 * only forgotten at the reset.
 *
 * Context: process context, may sleep.
 * Return: 0 when the number is free, else the error of DESTROY_PD (the
 * number is parked).
 */
int vroce_pd_destroy(struct vroce_dev *vdev, u32 pdn,
		     struct vroce_pd_zombie *zombie)
{
	int err = vroce_cmd_destroy_pd(vdev, pdn);

	if (vroce_cmd_let_go(err)) {
		vroce_core_free(vdev, zombie);
		return 0;
	}
	zombie->pdn = pdn;
	zombie->lost = err == -ETIMEDOUT;
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&zombie->list, &vdev->pd_zombies);
	mutex_unlock(&vdev->zombie_lock);
	return err;
}

/**
 * vroce_ring_zombie_alloc() - the record a CQ or QP will need to park its
 *	rings, taken when it is created so that parking never allocates
 * @vdev: the device
 *
 * Context: process context, may sleep.
 * Return: the record, to be handed to vroce_ring_zombie() or freed with
 * vroce_ring_zombie_free(), or NULL when memory runs out.
 */
struct vroce_ring_zombie *vroce_ring_zombie_alloc(struct vroce_dev *vdev)
{
	return vroce_core_zalloc(vdev, sizeof(struct vroce_ring_zombie));
}

/**
 * vroce_ring_zombie_free() - free an unused record
 * @vdev: the device
 * @z: the record from vroce_ring_zombie_alloc(), or NULL
 *
 * Context: process context, may sleep.
 */
void vroce_ring_zombie_free(struct vroce_dev *vdev, struct vroce_ring_zombie *z)
{
	vroce_core_free(vdev, z);
}

/**
 * vroce_ring_zombie() - keep rings the HCA may still use until its reset
 * @vdev: the device
 * @z: the object's record from vroce_ring_zombie_alloc(); now owned by
 *	the device
 * @a: a ring; the record takes it over
 * @b: another ring, or NULL
 *
 * For a CQ or QP whose CREATE timed out or whose DESTROY failed: the core
 * frees the object regardless, but its rings must stay until the HCA is
 * reset (vroce_ring_reap()).
 *
 * Context: process context, may sleep.
 */
void vroce_ring_zombie(struct vroce_dev *vdev, struct vroce_ring_zombie *z,
		       const struct vroce_ring *a, const struct vroce_ring *b)
{
	z->ring[0] = *a;
	if (b)
		z->ring[1] = *b;
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&z->list, &vdev->ring_zombies);
	mutex_unlock(&vdev->zombie_lock);
}

/**
 * vroce_ring_reap() - free the rings kept by vroce_ring_zombie()
 * @vdev: the device, its HCA reset (it touches no memory)
 *
 * Context: process context, may sleep.
 */
void vroce_ring_reap(struct vroce_dev *vdev)
{
	struct vroce_ring_zombie *z, *tmp;

	mutex_lock(&vdev->zombie_lock);
	list_for_each_entry_safe(z, tmp, &vdev->ring_zombies, list) {
		vroce_ring_destroy(vdev, &z->ring[0]);
		vroce_ring_destroy(vdev, &z->ring[1]);
		vroce_dbrec_put(vdev, &z->dbrec);
		list_del(&z->list);
		vroce_core_free(vdev, z);
	}
	mutex_unlock(&vdev->zombie_lock);
}
