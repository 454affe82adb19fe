// SPDX-License-Identifier: GPL-2.0
/*
 * vroce on-demand paging MRs (issue 33): IB_ACCESS_ON_DEMAND registration
 * pins nothing. The MR's object (bindings/vroce_abi.h, an ODP MR object)
 * has a sparse table with no page mapped, and the RDMA core's ib_umem_odp
 * follows the memory: an MMU interval notifier and hmm_range_fault().
 * Registration does no per-page work: the MR's umem is an implicit root
 * (no page lists, no notifier), and each 2 MiB chunk of the MR's pages
 * gets a child umem, with its page lists and notifier, when a page of it
 * first faults (as mlx5's implicit MRs do per 1 GiB).
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
 * - A prefetch (advise_mr) maps a range's pages as a fault would, before
 *   the HCA meets them; without faulting, only the pages present.
 *
 * Explicit ODP only: no implicit (whole address space) MRs.
 * Documentation/mr.rst, "On-demand paging".
 */

#include <kunit/visibility.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
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
/* A chunk of an MR's pages (from its page 0) with a child umem of its own. */
#define VROCE_ODP_CHUNK_SHIFT	(21 - PAGE_SHIFT)

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
 * either end of RC (an SRQ's receives too: such a message starts over)
 * and UC, and at both ends of UD. No implicit ODP.
 */
void vroce_odp_caps(const struct vroce_dev *vdev, struct ib_device_attr *props)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_SRQ_RECV;

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
 * Write the entries of @r, pages of @odp (a chunk's umem) from its page
 * @index on, from the umem's DMA list, in runs of at most a batch; the
 * umem's mutex is held (the list is stable, no invalidation of the chunk
 * runs), and the MR's odp_mutex (no other call on its object runs). Only
 * pages mapped with the rights the MR needs get an entry: after a fault
 * all of them; after a prefetch that does not fault, those present, and
 * of a writable MR only those writable now (an entry lets the HCA write,
 * and a page the CPU maps read-only, a copy-on-write or the zero page,
 * must not be written through it).
 */
static int vroce_odp_map_locked(struct vroce_dev *vdev, struct vroce_mr *mr,
				struct ib_umem_odp *odp,
				const struct vroce_mr_odp_range *r, u64 index)
{
	u64 need = ODP_READ_ALLOWED_BIT |
		   (mr->odp->umem.writable ? ODP_WRITE_ALLOWED_BIT : 0);
	dma_addr_t pages[VROCE_ODP_BATCH];
	struct vroce_mr_odp_range part;
	u64 done, n, e;
	int err;

	lockdep_assert_held(&odp->umem_mutex);
	lockdep_assert_held(&mr->odp_mutex);
	for (done = 0; done < r->count; done += n ?: 1) {
		for (n = 0; n < VROCE_ODP_BATCH && done + n < r->count; n++) {
			e = odp->dma_list[index + done + n];
			if ((e & need) != need)
				break;
			pages[n] = e & ODP_DMA_ADDR_MASK;
		}
		if (!n)
			continue;
		part = *r;
		part.first = r->first + done;
		part.count = n;
		err = vroce_mr_obj_odp_map(vdev, mr->obj, &part, pages);
		if (err)
			return err;
	}
	return 0;
}

static const struct mmu_interval_notifier_ops vroce_odp_ops;

/*
 * The umem of chunk @c of @mr, made (with its notifier) when first
 * needed. @base is the user address of the MR's page 0, @pages its page
 * count. Under the MR's odp_chunk_lock (two faults of one chunk make one
 * umem); a fault's reference keeps the MR and its root.
 */
static struct ib_umem_odp *vroce_odp_chunk(struct vroce_dev *vdev,
					   struct vroce_mr *mr, u64 c,
					   u64 base, u64 pages)
{
	u64 first = c << VROCE_ODP_CHUNK_SHIFT;
	u64 n = min_t(u64, pages - first, BIT_ULL(VROCE_ODP_CHUNK_SHIFT));
	struct ib_umem_odp *child;
	int err;

	lockdep_assert_held(&mr->odp_chunk_lock);
	child = xa_load(&mr->odp_chunks, c);
	if (child)
		return child;
	child = vroce_inject(vdev) ? ERR_PTR(-ENOMEM) :
		ib_umem_odp_alloc_child(mr->odp, base + (first << PAGE_SHIFT),
					n << PAGE_SHIFT, &vroce_odp_ops);
	if (IS_ERR(child))
		return child;
	vroce_mem_account(vdev, true);
	/* Under its mutex: an invalidation running now sees all or none. */
	mutex_lock(&child->umem_mutex);
	child->private = mr;
	mutex_unlock(&child->umem_mutex);
	err = xa_err(xa_store(&mr->odp_chunks, c, child, GFP_KERNEL));
	if (err) {
		ib_umem_odp_release(child);
		vroce_mem_account(vdev, false);
		return ERR_PTR(err);
	}
	return child;
}

/*
 * Map the pages of @r in @mr (@pages pages), chunk by chunk: fault them
 * in (or, without @fault, take those present) and DMA-map them through
 * the chunk's umem, and write their entries with its mutex held.
 */
static int vroce_odp_map_range(struct vroce_dev *vdev, struct vroce_mr *mr,
			       const struct vroce_mr_odp_range *r, u64 pages,
			       bool fault)
{
	u64 base = r->user_addr - (r->first << PAGE_SHIFT), end, next, c;
	u64 mask = ODP_READ_ALLOWED_BIT;
	struct vroce_mr_odp_range piece;
	struct ib_umem_odp *child;
	unsigned int noreclaim;
	int n, err;

	/* A writable MR's pages are faulted writable: one fault, not two. */
	if (mr->odp->umem.writable)
		mask |= ODP_WRITE_ALLOWED_BIT;
	end = r->first + r->count;
	for (piece.first = r->first; piece.first < end; piece.first = next) {
		c = piece.first >> VROCE_ODP_CHUNK_SHIFT;
		next = min((c + 1) << VROCE_ODP_CHUNK_SHIFT, end);
		mutex_lock(&mr->odp_chunk_lock);
		child = vroce_odp_chunk(vdev, mr, c, base, pages);
		mutex_unlock(&mr->odp_chunk_lock);
		if (IS_ERR(child))
			return PTR_ERR(child);
		piece.count = next - piece.first;
		piece.user_addr = base + (piece.first << PAGE_SHIFT);
		piece.user_len = piece.count << PAGE_SHIFT;
		n = ib_umem_odp_map_dma_and_lock(child, piece.user_addr,
						 piece.user_len, mask, fault);
		if (n < 0)
			return n;
		/*
		 * The object's calls one at a time (chunks fault and
		 * invalidate under mutexes of their own); its tables are
		 * allocated without reclaim, which could wait for an
		 * invalidation that waits for this mutex.
		 */
		mutex_lock(&mr->odp_mutex);
		noreclaim = memalloc_noreclaim_save();
		err = vroce_odp_map_locked(vdev, mr, child, &piece,
					   (piece.user_addr -
					    ib_umem_start(child)) >> PAGE_SHIFT);
		memalloc_noreclaim_restore(noreclaim);
		mutex_unlock(&mr->odp_mutex);
		mutex_unlock(&child->umem_mutex);
		if (err)
			return err;
	}
	return 0;
}

/* The pages to map for @f (@ahead: the window), and the MR's page count. */
static int vroce_odp_range(struct vroce_mr *mr, const struct vroce_page_fault *f,
			   bool ahead, struct vroce_mr_odp_range *r, u64 *pages)
{
	struct vroce_mr_info info;
	int err;

	mutex_lock(&mr->odp_mutex);
	err = vroce_mr_obj_odp_fault(mr->obj, f->iova, f->len, ahead, r);
	vroce_mr_obj_info(mr->obj, &info);
	*pages = vroce_mtr_page_count(info.mtr);
	mutex_unlock(&mr->odp_mutex);
	return err;
}

/*
 * Make the pages of @f present in @mr: the window ahead of the access,
 * or, when part of it cannot be mapped (not in the address space), the
 * access's own pages.
 */
static int vroce_odp_resolve(struct vroce_dev *vdev, struct vroce_mr *mr,
			     const struct vroce_page_fault *f)
{
	struct vroce_mr_odp_range r;
	u64 pages;
	int err;

	err = vroce_odp_range(mr, f, true, &r, &pages);
	if (!err)
		err = vroce_odp_map_range(vdev, mr, &r, pages, true);
	if (!err || err == -ENOMEM || err == -EBUSY)
		return err;
	err = vroce_odp_range(mr, f, false, &r, &pages);
	return err ?: vroce_odp_map_range(vdev, mr, &r, pages, true);
}

/* Drop a reference vroce_odp_get() or a fault took on @mr. */
static void vroce_odp_put(struct vroce_mr *mr)
{
	if (atomic_dec_and_test(&mr->odp_users))
		wake_up_var(&mr->odp_users);
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
	/*
	 * A reference, not the table's lock, for the resolution: one MR's
	 * fault that blocks (a file that never answers) holds up that MR's
	 * deregistration, not every other MR's faults.
	 */
	mutex_lock(&vdev->odp_lock);
	mr = xa_load(&vdev->odp_mrs, f.handle);
	if (mr)
		atomic_inc(&mr->odp_users);
	mutex_unlock(&vdev->odp_lock);
	if (mr) {
		err = vroce_odp_resolve(vdev, mr, &f);
		/*
		 * No memory for a table now, or the range kept changing
		 * under hmm_range_fault() (-EBUSY): the access faults again,
		 * a moment later.
		 */
		if (err == -ENOMEM || err == -EBUSY)
			usleep_range(1000, 2000);
		if (!err || err == -ENOMEM || err == -EBUSY)
			status = VROCE_PAGE_FAULT_RESOLVED;
		else
			ibdev_dbg(&vdev->ibdev,
				  "page fault of MR %#x at %#llx+%llu: %d\n",
				  f.handle, f.iova, f.len, err);
		vroce_odp_put(mr);
	}
	err = vroce_cmd_resume_page_fault(vdev, w->slot, f.handle, status);
	if (err && err != -ENOENT)
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "RESUME_PAGE_FAULT %u failed (%d): the QP retries\n",
				       w->slot, err);
}

/*
 * The on-demand paging MR of @pd whose lkey is @lkey, with a reference
 * that deregistration waits for (vroce_odp_put()); ERR_PTR(-ENOENT) when
 * there is none (no such key, not an ODP MR of this device, deregistered),
 * -EPERM for another PD's, or, for @write, one not writable.
 */
static struct vroce_mr *vroce_odp_get(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 lkey, bool write)
{
	struct vroce_mr *mr, *found = ERR_PTR(-ENOENT);
	unsigned long handle;

	mutex_lock(&vdev->odp_lock);
	xa_for_each(&vdev->odp_mrs, handle, mr) {
		if (mr->ibmr.lkey != lkey)
			continue;
		if (mr->ibmr.pd != pd || (write && !mr->odp->umem.writable)) {
			found = ERR_PTR(-EPERM);
		} else {
			atomic_inc(&mr->odp_users);
			found = mr;
		}
		break;
	}
	mutex_unlock(&vdev->odp_lock);
	return found;
}

/**
 * vroce_advise_mr() - prefetch pages of on-demand paging MRs
 * @pd: the protection domain of the MRs
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH, _PREFETCH_WRITE (the MR
 *	must be writable) or _PREFETCH_NO_FAULT (only pages the process has
 *	mapped already, and of a writable MR only those it may write now)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH: report a range that could not
 *	be mapped; without it the advice is carried out all the same (here,
 *	before returning), but only a bad key is reported
 * @sg_list: the ranges: an ODP MR's lkey, an address in it, a length
 * @num_sge: how many
 * @attrs: the uverbs call's attributes (unused; NULL from ib_advise_mr())
 *
 * Each range's pages get their entries as a fault's would, so that the
 * HCA's first access to them does not fault (Documentation/mr.rst,
 * "On-demand paging"). A writable MR's pages are faulted in writable for
 * either advice, as its faults fault them: the HCA's table has no
 * per-page write right, so a page mapped read-only could get no entry
 * (mlx5 faults them in read-only for _PREFETCH). Every key is checked
 * before any range is mapped; the ranges are mapped before the call
 * returns, with or without IB_UVERBS_ADVISE_MR_FLAG_FLUSH.
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP for another advice or a device without ODP;
 * -ENOENT for a key that is no ODP MR of the device, -EPERM for one of
 * another PD or, for _PREFETCH_WRITE, not writable; -EINTR for a fatal
 * signal; with IB_UVERBS_ADVISE_MR_FLAG_FLUSH also -EFAULT for a range
 * not inside its MR, or an error of mapping it (-EFAULT for memory the
 * process has not mapped, -EPERM for a writable MR over memory mapped
 * read-only, -ENOMEM, -EBUSY), ranges before it staying mapped.
 */
int vroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	struct vroce_dev *vdev = to_vroce_dev(pd->device);
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	bool flush = flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH;
	struct vroce_mr_odp_range r;
	struct vroce_page_fault f;
	struct vroce_mr *mr;
	u64 pages;
	int err;
	u32 i;

	if ((advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	     advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	     advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT) ||
	    !vroce_odp_supported(vdev))
		return -EOPNOTSUPP;
	/* Every key first: a bad one fails the call before any work. */
	for (i = 0; i < num_sge; i++) {
		mr = vroce_odp_get(vdev, pd, sg_list[i].lkey, write);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		vroce_odp_put(mr);
	}
	for (i = 0; i < num_sge; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		if (!sg_list[i].length)
			continue;
		/* Deregistered since: nothing left to advise. */
		mr = vroce_odp_get(vdev, pd, sg_list[i].lkey, write);
		if (IS_ERR(mr)) {
			if (flush)
				return PTR_ERR(mr);
			continue;
		}
		f = (struct vroce_page_fault){ .iova = sg_list[i].addr,
					       .len = sg_list[i].length };
		err = vroce_odp_range(mr, &f, false, &r, &pages) ? -EFAULT : 0;
		if (!err)
			err = vroce_odp_map_range(vdev, mr, &r, pages, fault);
		vroce_odp_put(mr);
		if (err && flush)
			return err;
	}
	return 0;
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
 * FENCE, or nothing once the device stopped its HCA (a reset HCA reaches
 * no memory, and the command queue may be gone): true when no access
 * through entries emptied before is in flight, false when the HCA did
 * not answer in time. Any answer is one: the HCA runs commands with no
 * access inside; a dead HCA's fence succeeds in software.
 */
static bool vroce_odp_fenced(struct vroce_dev *vdev)
{
	int err = 0;

	down_read(&vdev->odp_fence_lock);
	if (!vdev->odp_quiet)
		err = vroce_cmd_fence(vdev);
	up_read(&vdev->odp_fence_lock);
	return err != -ETIMEDOUT && err != -EAGAIN;
}

/*
 * The notifier of a chunk's umem: the range [@range->start, @range->end)
 * of the address space changes. Entries first (of this chunk's pages: the
 * others have notifiers and mutexes of their own), a fence, then the
 * pages.
 */
static bool vroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	u64 start = max_t(u64, range->start, ib_umem_start(odp));
	u64 end = min_t(u64, range->end, ib_umem_end(odp));
	struct vroce_mr_odp_range r = {};
	struct vroce_mr *mr;
	struct vroce_dev *vdev;
	s64 was = 0;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	/* Set once the chunk is made; nothing is mapped before. */
	mr = odp->private;
	if (mr && start < end) {
		vdev = to_vroce_dev(mr->ibmr.device);
		mutex_lock(&mr->odp_mutex);
		was = vroce_mr_obj_odp_invalidate(vdev, mr->obj, start, end,
						  &r);
		mutex_unlock(&mr->odp_mutex);
		/* Until the HCA answers, an access may use the old entries. */
		while (was > 0 && !vroce_odp_fenced(vdev))
			ibdev_warn_ratelimited(&vdev->ibdev,
					       "FENCE timed out: pages kept until the HCA answers\n");
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
 * The object first (its sparse table), then the implicit root umem (no
 * page lists, no notifier: the chunks get theirs when they fault), then
 * the HCA's entry; the MR is found by its handle by the faults from then
 * on. Nothing is pinned or mapped, and nothing is done per page.
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: the MR; ERR_PTR(-EOPNOTSUPP) when the device offers no ODP;
 * -EINVAL for a caller with no address space (a kernel thread); an error
 * of vroce_mr_obj_create_odp() or ib_umem_odp_alloc_implicit(); -ENOMEM;
 * an HCA error.
 */
struct ib_mr *vroce_odp_reg_user_mr(struct ib_pd *ibpd,
				    const struct vroce_mr_user_attr *attr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);
	struct ib_umem_odp *root;
	struct vroce_mr_info info;
	struct vroce_mr *mr;
	int err;

	if (!vroce_odp_supported(vdev))
		return ERR_PTR(-EOPNOTSUPP);
	if (!current->mm)
		return ERR_PTR(-EINVAL);
	mr = vroce_mr_new_odp(vdev, attr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mutex_init(&mr->odp_mutex);
	mutex_init(&mr->odp_chunk_lock);
	atomic_set(&mr->odp_users, 0);
	root = vroce_inject(vdev) ? ERR_PTR(-ENOMEM) :
	       ib_umem_odp_alloc_implicit(&vdev->ibdev, attr->access);
	if (IS_ERR(root)) {
		vroce_mr_free(vdev, mr);
		return ERR_CAST(root);
	}
	/* The root has no notifier to hold the mm: the chunks need it. */
	mmgrab(root->umem.owning_mm);
	vroce_mem_account(vdev, true);
	root->private = mr;
	mr->odp = root;

	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	if (err)
		return ERR_PTR(err);
	/* No chunk yet, no notifier: the object is the caller's alone. */
	vroce_mr_obj_info(mr->obj, &info);
	mr->odp_handle = info.handle;
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
 * vroce_odp_dereg() - deregister an ODP MR
 * @vdev: the device
 * @mr: the MR, entered in the HCA
 *
 * Faults no longer find it, and those resolving it end; DESTROY_MR and
 * the object's state change run under its odp_mutex (its chunks'
 * notifiers call the object too, until the umems go); then, when the HCA
 * let go, the umems and the object go (vroce_mr_free()); else the MR is
 * parked, as any.
 *
 * Context: process context, may sleep.
 * Return: whether the HCA answered (the MR is freed).
 */
bool vroce_odp_dereg(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	int err;

	mutex_lock(&vdev->odp_lock);
	xa_erase(&vdev->odp_mrs, mr->odp_handle);
	mutex_unlock(&vdev->odp_lock);
	wait_var_event(&mr->odp_users, !atomic_read(&mr->odp_users));

	mutex_lock(&mr->odp_mutex);
	err = vroce_cmd_destroy_mr(vdev, mr->odp_handle);
	if (vroce_cmd_let_go(err))
		vroce_mr_obj_released(mr->obj, false);
	else
		vroce_mr_obj_parked(mr->obj);
	mutex_unlock(&mr->odp_mutex);
	if (!vroce_cmd_let_go(err)) {
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "DESTROY_MR %#x failed (%d): keeping its tables and pages until the HCA lets go\n",
				       mr->odp_handle, err);
		vroce_mr_park(vdev, mr);
		return false;
	}
	vroce_mr_free(vdev, mr);
	return true;
}

/**
 * vroce_odp_init() - set up a new device's fault handling
 * @vdev: the device
 */
void vroce_odp_init(struct vroce_dev *vdev)
{
	u32 i;

	mutex_init(&vdev->odp_lock);
	init_rwsem(&vdev->odp_fence_lock);
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
 * @quiet: the HCA is reset: invalidations fence no more (it reaches no
 *	memory, and the command queue goes next)
 *
 * Called before the HCA stops (no command may follow the work) and again
 * once it is reset and its event vector gone (an event delivered
 * meanwhile queued work that returns at once); the second call waits for
 * fences in flight.
 *
 * Context: process context, may sleep.
 */
void vroce_odp_stop(struct vroce_dev *vdev, bool quiet)
{
	u32 i;

	WRITE_ONCE(vdev->odp_stopping, true);
	for (i = 0; i < VROCE_PAGE_FAULT_SLOTS; i++)
		cancel_work_sync(&vdev->odp_work[i].work);
	if (!quiet)
		return;
	down_write(&vdev->odp_fence_lock);
	vdev->odp_quiet = true;
	up_write(&vdev->odp_fence_lock);
}
