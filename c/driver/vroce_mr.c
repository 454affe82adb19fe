// SPDX-License-Identifier: GPL-2.0
/*
 * vroce MR verbs: get_dma_mr, reg_user_mr, alloc_mr, map_mr_sg, dereg_mr,
 * after pvrdma_get_dma_mr() and its friends.
 *
 * The ib_core glue: what the RDMA core hands in, and which way each MR
 * goes. A user MR the MR cache fits (vroce_mr_cache_fits()) is taken
 * from the cache (c/driver/vroce_mr_cache.c) and given back to it; every
 * other MR never passes through the cache: c/driver/vroce_mr_entry.c
 * makes it (an MR object of the MR/MTR ABI, bindings/vroce_abi.h, holds
 * its rights, tables, page list and state) and enters it in the HCA
 * (CREATE_MR), and destroys it (DESTROY_MR). Deregistration destroys the
 * HCA's entry first and frees the tables only once the HCA confirms: an
 * MR whose DESTROY_MR fails or times out is kept on the device's zombie
 * list (c/driver/vroce_zombie.c) and retried, and freed for good only
 * when the HCA lets go or is reset (the object refuses to be freed
 * before).
 */

#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

VISIBLE_IF_KUNIT bool vroce_allow_remote_dma_mr;
EXPORT_SYMBOL_IF_KUNIT(vroce_allow_remote_dma_mr);
module_param_named(allow_remote_dma_mr, vroce_allow_remote_dma_mr, bool, 0444);
MODULE_PARM_DESC(allow_remote_dma_mr,
		 "allow DMA MRs with remote access (IB_PD_UNSAFE_GLOBAL_RKEY): exposes all memory");

#define VROCE_ACC_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

static struct vroce_dev *to_vdev(struct ib_device *ibdev)
{
	return to_vroce_dev(ibdev);
}

/* The ABI repeats the HCA's values for bindgen; they must agree. */
static_assert(VROCE_MR_RIGHT_LOCAL_WRITE == VROCE_ACC_LOCAL_WRITE);
static_assert(VROCE_MR_RIGHT_REMOTE_WRITE == VROCE_ACC_REMOTE_WRITE);
static_assert(VROCE_MR_RIGHT_REMOTE_READ == VROCE_ACC_REMOTE_READ);
static_assert(VROCE_MR_RIGHT_REMOTE_ATOMIC == VROCE_ACC_REMOTE_ATOMIC);
static_assert(VROCE_MR_RIGHT_MW_BIND == VROCE_ACC_MW_BIND);
static_assert(VROCE_MW_OBJ_TYPE_1 == VROCE_MW_TYPE_1 && VROCE_MW_TYPE_1 == IB_MW_TYPE_1);
static_assert(VROCE_MW_OBJ_TYPE_2 == VROCE_MW_TYPE_2 && VROCE_MW_TYPE_2 == IB_MW_TYPE_2);
static_assert(VROCE_MR_TYPE_DMA == VROCE_MR_KIND_DMA);
static_assert(VROCE_MR_TYPE_USER == VROCE_MR_KIND_MTT);
static_assert(VROCE_MR_TYPE_FRMR == VROCE_MR_KIND_FRMR);
static_assert(VROCE_MR_TYPE_ODP == VROCE_MR_KIND_ODP);
static_assert(VROCE_MR_FRMR_PAGE_SHIFT == VROCE_FRMR_PAGE_SHIFT);

/**
 * vroce_get_dma_mr() - an MR over all memory, addressed by bus address
 * @ibpd: the protection domain
 * @access: IB_ACCESS_* flags
 *
 * Remote access makes every page of the machine reachable with one rkey;
 * it is refused unless the allow_remote_dma_mr module parameter is set,
 * and each such MR is logged.
 *
 * Context: process context, may sleep.
 * Return: the MR, or ERR_PTR(-EOPNOTSUPP) for unsupported or refused
 * access flags, -EINVAL for inconsistent ones, -ENOMEM, or an HCA error.
 */
struct ib_mr *vroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct vroce_dev *vdev = to_vdev(ibpd->device);
	struct vroce_mr *mr;
	int err;

	mr = vroce_mr_new_dma(vdev, access, vroce_allow_remote_dma_mr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	if (err)
		return ERR_PTR(err);
	if (access & VROCE_ACC_REMOTE)
		ibdev_notice(&vdev->ibdev,
			     "DMA MR with remote access, rkey %#x: all memory is exposed\n",
			     mr->ibmr.rkey);
	return &mr->ibmr;
}

/* What rereg_mr keeps of a user MR when it is not given it again. */
static void vroce_mr_user_remember(struct vroce_mr *mr,
				   const struct vroce_mr_user_attr *attr)
{
	mr->user_start = attr->start;
	mr->user_access = attr->access;
}

/**
 * vroce_reg_user_mr() - register user memory
 * @ibpd: the protection domain
 * @start: user address of the memory
 * @length: bytes
 * @virt_addr: the MR's iova
 * @access: IB_ACCESS_* flags
 * @udata: user data, or NULL for a kernel caller (ib_reg_user_mr())
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: the MR, or ERR_PTR(-EINVAL) for a zero length or one above the
 * HCA's maximum, an iova range that wraps, or driver data in @udata that
 * is not zero (vroce takes none), -EOPNOTSUPP or -EINVAL for access flags,
 * any error of ib_umem_get() unchanged, an error of vroce_mtr_create(), or
 * an HCA error.
 */
struct ib_mr *vroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vdev(ibpd->device);
	struct vroce_mr_user_attr attr = {
		.start = start,
		.length = length,
		.iova = virt_addr,
		.access = access,
		.max_length = vdev->attr.max_mr_size,
	};
	struct vroce_mr *mr;
	u32 rights, order;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);

	/* Issue 33: pinned nothing; faults bring the pages in. */
	if (access & IB_ACCESS_ON_DEMAND) {
		struct ib_mr *ibmr = vroce_odp_reg_user_mr(ibpd, &attr);

		if (!IS_ERR(ibmr))
			vroce_mr_user_remember(to_vroce_mr(ibmr), &attr);
		return ibmr;
	}

	if (vroce_mr_cache_fits(vdev, &attr, &rights, &order)) {
		struct ib_mr *ibmr = vroce_mr_cache_take(vdev, ibpd, &attr,
							 rights, order);

		/* NULL: the cache's own failure; the cold path may succeed. */
		if (!IS_ERR_OR_NULL(ibmr))
			vroce_mr_user_remember(to_vroce_mr(ibmr), &attr);
		if (ibmr)
			return ibmr;
	}
	mr = vroce_mr_new_user(vdev, &attr, udata);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	if (err)
		return ERR_PTR(err);
	vroce_mr_user_remember(mr, &attr);
	return &mr->ibmr;
}

/**
 * vroce_alloc_mr() - a fast-register MR, its tables empty
 * @ibpd: the protection domain
 * @type: only IB_MR_TYPE_MEM_REG
 * @max_num_sg: most pages map_mr_sg may map, 1 to the HCA's maximum
 *
 * The HCA enters the MR as not registered; it translates once registered
 * through a fast-register work request.
 *
 * Context: process context, may sleep.
 * Return: the MR, or ERR_PTR(-EINVAL) for another type or a bad page count,
 * -ENOMEM, or an HCA error.
 */
struct ib_mr *vroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct vroce_dev *vdev = to_vdev(ibpd->device);
	struct vroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);

	mr = vroce_mr_new_frmr(vdev, max_num_sg, vdev->attr.max_fast_reg_pages);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	return err ? ERR_PTR(err) : &mr->ibmr;
}

/* IB_MR_REREG_PD and _ACCESS as the HCA's VROCE_REREG_* flags. */
static u32 vroce_rereg_flags(int flags)
{
	return (flags & IB_MR_REREG_PD ? VROCE_REREG_PD : 0) |
	       (flags & IB_MR_REREG_ACCESS ? VROCE_REREG_ACCESS : 0);
}

/*
 * Change @mr in place with REREG_MR: the PD and rights, and, with @attr
 * pinned anew (@repin), the translation. The new pages are pinned and
 * their tables built before the command; the old ones go only after the
 * HCA answered that it switched.
 */
static int vroce_rereg_in_place(struct vroce_dev *vdev, struct vroce_mr *mr,
				const struct vroce_mr_user_attr *attr,
				u32 pdn, u32 rights, u32 hw_flags, bool repin,
				struct ib_udata *udata)
{
	struct vroce_mr_desc desc = { .pdn = pdn, .access = rights };
	struct vroce_mr *next = NULL;
	struct vroce_mr_obj *old;
	struct vroce_mr_info info;
	u32 key;
	int err;

	if (repin) {
		next = vroce_mr_new_user(vdev, attr, udata);
		if (IS_ERR(next))
			return PTR_ERR(next);
		err = vroce_mr_obj_describe(next->obj, pdn, &desc);
		if (err)
			goto err_free_next;
		hw_flags |= VROCE_REREG_TRANS | VROCE_REREG_ACCESS;
	}
	vroce_mr_obj_info(mr->obj, &info);
	err = vroce_cmd_rereg_mr(vdev, info.handle, hw_flags, &desc, &key);
	if (err)
		goto err_free_next;
	if (next) {
		/* The HCA let go of the old tables: they go with @next. */
		old = mr->obj;
		WARN_ON_ONCE(vroce_mr_obj_registered(next->obj, key,
						     info.handle));
		WARN_ON_ONCE(vroce_mr_obj_released(old, false));
		mr->obj = next->obj;
		next->obj = old;
		vroce_mr_free(vdev, next);
		vroce_mr_obj_info(mr->obj, &info);
		vroce_mr_set_mtr(mr, info.mtr);
		mr->ibmr.iova = attr->iova;
		mr->ibmr.length = attr->length;
	}
	vroce_mr_user_remember(mr, attr);
	return 0;

err_free_next:
	/* A timeout: the HCA may use the new tables too; keep them. */
	if (next && vroce_mr_obj_create_failed(next->obj, err))
		vroce_mr_park(vdev, next);
	else if (next)
		vroce_mr_free(vdev, next);
	return err;
}

/**
 * vroce_rereg_user_mr() - change a user MR's PD, rights and/or memory
 * @ibmr: the MR, from vroce_reg_user_mr()
 * @flags: IB_MR_REREG_PD, _ACCESS, _TRANS, at least one
 * @start: IB_MR_REREG_TRANS: the new memory's user address
 * @length: IB_MR_REREG_TRANS: its bytes
 * @virt_addr: IB_MR_REREG_TRANS: the MR's new iova
 * @access: IB_MR_REREG_ACCESS: the new IB_ACCESS_* flags
 * @new_pd: IB_MR_REREG_PD: the new protection domain
 * @udata: user data, or NULL for a kernel caller
 *
 * The MR is changed in place by REREG_MR, under the same lkey and rkey (as
 * hns does): new memory, or the same memory when the rights change
 * whether it must be writable, is pinned and its tables built first; the
 * old pages are unpinned only after the HCA switched. But an MR from the
 * MR cache that needs its memory pinned again is not changed: a new MR is
 * registered with the result (new keys) and returned, for the caller to
 * swap in and to deregister the old one (uverbs does; mlx5 does the same
 * when it cannot change an MR in place). When this fails the MR is as it was, keys
 * included, except after -ETIMEDOUT (the HCA may or may not have made the
 * change: the MR must be deregistered). The caller updates @ibmr->pd (as
 * uverbs does).
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: NULL when changed in place, the new MR, or ERR_PTR(-EOPNOTSUPP)
 * for unknown @flags, -EINVAL for no @flags, driver data in @udata that is not zero, an MR that
 * is not a user MR, a PD of another device, or remote write or atomic
 * without local write; -EOPNOTSUPP for access flags the HCA does not
 * know; an error of vroce_reg_user_mr() (new memory: the length, the
 * iova, pinning) or of REREG_MR (vroce_cmd_rereg_mr()).
 */
struct ib_mr *vroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *new_pd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vdev(ibmr->device);
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	struct vroce_mr_user_attr attr = {
		.start = mr->user_start,
		.length = ibmr->length,
		.iova = ibmr->iova,
		.access = mr->user_access,
		.max_length = vdev->attr.max_mr_size,
	};
	struct ib_pd *pd = flags & IB_MR_REREG_PD ? new_pd : ibmr->pd;
	bool repin;
	u32 rights;
	int err;

	/* As ib_uverbs_rereg_mr() answers before it calls here. */
	if (!flags)
		return ERR_PTR(-EINVAL);
	if (flags & ~IB_MR_REREG_SUPPORTED)
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	/* Issue 33: an ODP MR is not changed; deregister it and register. */
	if (mr->odp)
		return ERR_PTR(-EOPNOTSUPP);
	if (mr->type != VROCE_MR_TYPE_USER || !pd ||
	    pd->device != ibmr->device)
		return ERR_PTR(-EINVAL);
	if (flags & IB_MR_REREG_ACCESS)
		attr.access = access;
	if (flags & IB_MR_REREG_TRANS) {
		attr.start = start;
		attr.length = length;
		attr.iova = virt_addr;
	}
	err = vroce_mr_rights(attr.access, &rights);
	if (err)
		return ERR_PTR(err);
	/* Pages pinned read-only cannot take a write right: pin them again. */
	repin = (flags & IB_MR_REREG_TRANS) ||
		ib_access_writable(attr.access) !=
		ib_access_writable(mr->user_access);
	/* A cache entry's table is loaded from its page list: a new MR. */
	if (mr->cached && repin)
		return vroce_reg_user_mr(pd, attr.start, attr.length, attr.iova,
					 attr.access, udata);
	err = vroce_rereg_in_place(vdev, mr, &attr, to_vroce_pd(pd)->pdn,
				   rights, vroce_rereg_flags(flags), repin,
				   udata);
	return err ? ERR_PTR(err) : NULL;
}

static int vroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	return vroce_mr_obj_page_add(to_vroce_mr(ibmr)->obj, addr);
}

/**
 * vroce_map_mr_sg() - collect a scatterlist's pages for a fast-register MR
 * @ibmr: the MR from vroce_alloc_mr()
 * @sg: the scatterlist, DMA-mapped for the HCA
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry, updated by ib_sg_to_pages()
 *
 * The pages go to the MR's page list only: the HCA's table, and with it
 * what any key of the MR reaches, changes when a REG_MR work request
 * carrying the list executes. Pages are 4 KiB (VROCE_FRMR_PAGE_SHIFT).
 *
 * Context: any context; does not sleep.
 * Return: the number of entries mapped, or -EINVAL for another page size.
 */
int vroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);

	/*
	 * A user MR made from a cache entry has a fast-register object; an
	 * ODP MR's object is its notifiers' too (not to be touched here).
	 */
	if (mr->cached || mr->odp ||
	    ibmr->page_size != BIT(VROCE_FRMR_PAGE_SHIFT) ||
	    vroce_mr_obj_pages_reset(mr->obj))
		return -EINVAL;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vroce_set_page);
}

/**
 * vroce_dereg_mr() - deregister an MR
 * @ibmr: the MR
 * @udata: user data, unused
 *
 * The HCA's entry goes first; the tables and pages only after it is gone.
 * When DESTROY_MR fails or times out the MR is kept as a zombie (see
 * vroce_mr_reap()) and deregistration still succeeds for the caller: the
 * key is dead to it, the memory stays until the HCA lets go.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int vroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vdev(ibmr->device);
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	bool answered;

	/* Issue 33: its chunks' notifiers call its object meanwhile. */
	if (mr->odp)
		answered = vroce_odp_dereg(vdev, mr);
	else if (mr->cached)
		answered = vroce_mr_cache_put(vdev, mr);
	else
		answered = vroce_mr_destroy_hw(vdev, mr);
	if (answered)
		vroce_mr_reap_zombies(vdev);
	return 0;
}
