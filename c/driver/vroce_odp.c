// SPDX-License-Identifier: GPL-2.0
/*
 * vroce on-demand paging MRs (issue 33): IB_ACCESS_ON_DEMAND registration
 * pins nothing. The MR's object (bindings/vroce_abi.h, an ODP MR object)
 * has a sparse table with no page mapped, and the RDMA core's ib_umem_odp
 * follows the memory: an MMU interval notifier and hmm_range_fault().
 *
 * - A page fault: the HCA met an empty entry, held the work request and
 *   wrote a VROCE_EQE_PAGE_FAULT event naming a fault slot. Its work here
 *   reads the slot (QUERY_PAGE_FAULT), finds the MR by its handle, asks
 *   the object which pages to map (a window ahead of the access, or just
 *   the access's pages when the window is not all mapped memory), faults
 *   them in and DMA-maps them (ib_umem_odp_map_dma_and_lock()), writes
 *   their entries through the object with the umem's mutex held, and ends
 *   the fault (RESUME_PAGE_FAULT): resolved, or failed, when the access
 *   completes with a protection error.
 * - An invalidation (the notifier: munmap, mremap, fork's write protect,
 *   MADV_DONTNEED, reclaim, exit): under the umem's mutex the object
 *   empties the entries of the range, a FENCE command confirms that no
 *   access through them is in flight, and only then are the pages
 *   DMA-unmapped and let go (ib_umem_odp_unmap_dma_pages()).
 * - Deregistration takes the MR out of the fault table first, under the
 *   mutex every fault's resolution holds; the umem (and with it the
 *   notifier) goes before the object, once the HCA let go of the MR.
 *
 * Explicit ODP only: no implicit (whole address space) MRs, no prefetch
 * (advise_mr). Documentation/mr.rst, "On-demand paging".
 */

#include <kunit/visibility.h>
#include <linux/mmu_notifier.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

VISIBLE_IF_KUNIT bool vroce_odp = true;
EXPORT_SYMBOL_IF_KUNIT(vroce_odp);
module_param_named(odp, vroce_odp, bool, 0444);
MODULE_PARM_DESC(odp, "offer on-demand paging MRs (IB_ACCESS_ON_DEMAND) when the HCA can");

/* Page addresses written per call while the umem's mutex is held. */
#define VROCE_ODP_BATCH		64

/**
 * vroce_odp_supported() - whether the device offers on-demand paging
 * @vdev: the device
 *
 * Return: the HCA can (VROCE_CAP_ODP) and the odp module parameter is set.
 */
bool vroce_odp_supported(const struct vroce_dev *vdev)
{
	return vroce_odp && (vdev->attr.caps & VROCE_CAP_ODP);
}

/**
 * vroce_odp_caps() - what query_device says of on-demand paging
 * @vdev: the device
 * @props: the attributes being filled in
 *
 * Explicit ODP MRs for every operation the HCA executes: it faults on
 * either end of RC and UC, and at both ends of UD. No implicit ODP.
 */
void vroce_odp_caps(const struct vroce_dev *vdev, struct ib_device_attr *props)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ;

	if (!vroce_odp_supported(vdev))
		return;
	if (vdev->attr.caps & VROCE_CAP_ATOMIC)
		rc |= IB_ODP_SUPPORT_ATOMIC;
	props->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	props->odp_caps.general_caps = IB_ODP_SUPPORT;
	props->odp_caps.per_transport_caps.rc_odp_caps = rc;
	props->odp_caps.per_transport_caps.uc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_WRITE;
	props->odp_caps.per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV;
}

/*
 * Write the entries of @r from the umem's DMA list, in batches; the
 * umem's mutex is held (the list is stable, no invalidation runs).
 */
static int vroce_odp_map_locked(struct vroce_dev *vdev, struct vroce_mr *mr,
				const struct vroce_mr_odp_range *r)
{
	struct ib_umem_odp *odp = mr->odp;
	dma_addr_t pages[VROCE_ODP_BATCH];
	struct vroce_mr_odp_range part;
	u64 done, i, n;
	int err;

	lockdep_assert_held(&odp->umem_mutex);
	for (done = 0; done < r->count; done += n) {
		n = min_t(u64, r->count - done, VROCE_ODP_BATCH);
		for (i = 0; i < n; i++)
			pages[i] = odp->dma_list[r->first + done + i] &
				   ODP_DMA_ADDR_MASK;
		part = *r;
		part.first = r->first + done;
		part.count = n;
		err = vroce_mr_obj_odp_map(vdev, mr->obj, &part, pages);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Make the pages of @f present in @mr: the window ahead of the access,
 * or, when part of it cannot be mapped (not in the address space), the
 * access's own pages.
 */
static int vroce_odp_resolve(struct vroce_dev *vdev, struct vroce_mr *mr,
			     const struct vroce_page_fault *f)
{
	struct ib_umem_odp *odp = mr->odp;
	struct vroce_mr_odp_range r;
	u64 mask = ODP_READ_ALLOWED_BIT;
	bool ahead = true;
	int n, err;

	/* A writable MR's pages are faulted writable: one fault, not two. */
	if (odp->umem.writable)
		mask |= ODP_WRITE_ALLOWED_BIT;
	for (;;) {
		err = vroce_mr_obj_odp_fault(mr->obj, f->iova, f->len, ahead,
					     &r);
		if (err)
			return err;
		n = ib_umem_odp_map_dma_and_lock(odp, r.user_addr, r.user_len,
						 mask, true);
		if (n >= 0)
			break;
		if (!ahead)
			return n;
		ahead = false;
	}
	err = vroce_odp_map_locked(vdev, mr, &r);
	mutex_unlock(&odp->umem_mutex);
	return err;
}

static void vroce_odp_fault_work(struct work_struct *work)
{
	struct vroce_odp_work *w = container_of(work, struct vroce_odp_work,
						work);
	struct vroce_dev *vdev = w->vdev;
	u32 status = VROCE_PAGE_FAULT_FAILED;
	struct vroce_page_fault f;
	struct vroce_mr *mr;
	int err;

	if (READ_ONCE(vdev->odp_stopping))
		return;
	/* Ended meanwhile (a stale event raised again), or its MR gone. */
	if (vroce_cmd_query_page_fault(vdev, w->slot, &f))
		return;
	mutex_lock(&vdev->odp_lock);
	mr = xa_load(&vdev->odp_mrs, f.handle);
	if (mr) {
		err = vroce_odp_resolve(vdev, mr, &f);
		if (!err)
			status = VROCE_PAGE_FAULT_RESOLVED;
		else
			ibdev_dbg(&vdev->ibdev,
				  "page fault of MR %#x at %#llx+%llu: %d\n",
				  f.handle, f.iova, f.len, err);
	}
	mutex_unlock(&vdev->odp_lock);
	err = vroce_cmd_resume_page_fault(vdev, w->slot, f.handle, status);
	if (err && err != -ENOENT)
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "RESUME_PAGE_FAULT %u failed (%d): the QP retries\n",
				       w->slot, err);
}

/**
 * vroce_odp_event() - a VROCE_EQE_PAGE_FAULT event
 * @vdev: the device
 * @slot: the fault slot it names
 *
 * Context: the event queue's consumer; does not sleep.
 */
void vroce_odp_event(struct vroce_dev *vdev, u32 slot)
{
	if (slot >= VROCE_PAGE_FAULT_SLOTS || READ_ONCE(vdev->odp_stopping))
		return;
	queue_work(system_unbound_wq, &vdev->odp_work[slot].work);
}

/*
 * The notifier: the range [@range->start, @range->end) of the address
 * space changes. Entries first, a fence, then the pages.
 */
static bool vroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct vroce_mr *mr = odp->private;
	struct vroce_mr_odp_range r = {};
	struct vroce_dev *vdev;
	s64 was = 0;
	int err;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	/* Set once the MR is made; nothing is mapped before. */
	if (mr) {
		vdev = to_vroce_dev(mr->ibmr.device);
		was = vroce_mr_obj_odp_invalidate(vdev, mr->obj, range->start,
						  range->end, &r);
		/*
		 * Until the HCA answers, an access may use the old entries:
		 * any answer is one (it runs commands with no access inside);
		 * a dead HCA's fence succeeds in software.
		 */
		while (was > 0) {
			err = vroce_cmd_fence(vdev);
			if (err != -ETIMEDOUT && err != -EAGAIN)
				break;
			ibdev_warn_ratelimited(&vdev->ibdev,
					       "FENCE timed out: pages kept until the HCA answers\n");
		}
	}
	if (r.count)
		ib_umem_odp_unmap_dma_pages(odp, r.user_addr,
					    r.user_addr + r.user_len);
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops vroce_odp_ops = {
	.invalidate = vroce_odp_invalidate,
};

/**
 * vroce_odp_reg_user_mr() - register user memory on demand
 * @ibpd: the protection domain
 * @attr: the memory, IB_ACCESS_ON_DEMAND in its access flags
 *
 * The object first (its sparse table), then the umem and its notifier,
 * then the HCA's entry; the MR is found by its handle by the faults
 * from then on. Nothing is pinned or mapped.
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: the MR; ERR_PTR(-EOPNOTSUPP) when the device offers no ODP; an
 * error of vroce_mr_obj_create_odp() or ib_umem_odp_get(); -ENOMEM; an
 * HCA error.
 */
struct ib_mr *vroce_odp_reg_user_mr(struct ib_pd *ibpd,
				    const struct vroce_mr_user_attr *attr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);
	struct ib_umem_odp *odp;
	struct vroce_mr_info info;
	struct vroce_mr *mr;
	int err;

	if (!vroce_odp_supported(vdev))
		return ERR_PTR(-EOPNOTSUPP);
	mr = vroce_mr_new_odp(vdev, attr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	odp = vroce_inject(vdev) ? ERR_PTR(-ENOMEM) :
	      ib_umem_odp_get(&vdev->ibdev, attr->start, attr->length,
			      attr->access, &vroce_odp_ops);
	if (IS_ERR(odp)) {
		vroce_mr_free(vdev, mr);
		return ERR_CAST(odp);
	}
	vroce_mem_account(vdev, true);
	mr->odp = odp;
	/* Under the mutex: an invalidation running now sees all or none. */
	mutex_lock(&odp->umem_mutex);
	odp->private = mr;
	mutex_unlock(&odp->umem_mutex);
	mr->umem = &odp->umem;

	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	if (err)
		return ERR_PTR(err);
	vroce_mr_obj_info(mr->obj, &info);
	mutex_lock(&vdev->odp_lock);
	err = xa_err(xa_store(&vdev->odp_mrs, info.handle, mr, GFP_KERNEL));
	mutex_unlock(&vdev->odp_lock);
	if (err) {
		vroce_mr_destroy_hw(vdev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * vroce_odp_forget() - faults no longer find @mr
 * @vdev: the device
 * @mr: an ODP MR, before its DESTROY_MR
 *
 * Waits for a fault's resolution that uses it.
 *
 * Context: process context, may sleep.
 */
void vroce_odp_forget(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	struct vroce_mr_info info;

	vroce_mr_obj_info(mr->obj, &info);
	mutex_lock(&vdev->odp_lock);
	xa_erase(&vdev->odp_mrs, info.handle);
	mutex_unlock(&vdev->odp_lock);
}

/**
 * vroce_odp_release() - let an ODP MR's memory go
 * @vdev: the device
 * @mr: an MR the HCA no longer holds, its object not yet freed
 *
 * The notifier goes (no invalidation runs after) and the pages mapped
 * are unmapped; the object, which the notifier used, goes after.
 *
 * Context: process context, may sleep.
 */
void vroce_odp_release(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	ib_umem_odp_release(mr->odp);
	vroce_mem_account(vdev, false);
	mr->odp = NULL;
	mr->umem = NULL;
}

/**
 * vroce_odp_init() - set up a new device's fault handling
 * @vdev: the device
 */
void vroce_odp_init(struct vroce_dev *vdev)
{
	u32 i;

	mutex_init(&vdev->odp_lock);
	xa_init(&vdev->odp_mrs);
	for (i = 0; i < VROCE_PAGE_FAULT_SLOTS; i++) {
		vdev->odp_work[i].vdev = vdev;
		vdev->odp_work[i].slot = i;
		INIT_WORK(&vdev->odp_work[i].work, vroce_odp_fault_work);
	}
}

/**
 * vroce_odp_stop() - no fault is handled from now on
 * @vdev: the device
 *
 * Called before the HCA stops (no command may follow the work) and again
 * once its event vector is gone (an event delivered meanwhile queued work
 * that returns at once).
 *
 * Context: process context, may sleep.
 */
void vroce_odp_stop(struct vroce_dev *vdev)
{
	u32 i;

	WRITE_ONCE(vdev->odp_stopping, true);
	for (i = 0; i < VROCE_PAGE_FAULT_SLOTS; i++)
		cancel_work_sync(&vdev->odp_work[i].work);
}
