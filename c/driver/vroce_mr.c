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
static_assert(VROCE_MR_TYPE_DMA == VROCE_MR_KIND_DMA);
static_assert(VROCE_MR_TYPE_USER == VROCE_MR_KIND_MTT);
static_assert(VROCE_MR_TYPE_FRMR == VROCE_MR_KIND_FRMR);
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

	if (vroce_mr_cache_fits(vdev, &attr, &rights, &order)) {
		struct ib_mr *ibmr = vroce_mr_cache_take(vdev, ibpd, &attr,
							 rights, order);

		/* NULL: the cache's own failure; the cold path may succeed. */
		if (ibmr)
			return ibmr;
	}
	mr = vroce_mr_new_user(vdev, &attr, udata);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = vroce_mr_create_hw_reclaim(vdev, mr, to_vroce_pd(ibpd)->pdn);
	return err ? ERR_PTR(err) : &mr->ibmr;
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

	/* A user MR made from a cache entry has a fast-register object. */
	if (mr->cached || ibmr->page_size != BIT(VROCE_FRMR_PAGE_SHIFT) ||
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

	if (mr->cached)
		answered = vroce_mr_cache_put(vdev, mr);
	else
		answered = vroce_mr_destroy_hw(vdev, mr);
	if (answered)
		vroce_mr_reap_zombies(vdev);
	return 0;
}
