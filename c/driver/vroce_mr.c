// SPDX-License-Identifier: GPL-2.0
/*
 * vroce MR verbs: get_dma_mr, reg_user_mr, alloc_mr, map_mr_sg, dereg_mr,
 * after pvrdma_get_dma_mr() and its friends.
 *
 * An MR's pages are an MTR (bindings/vroce_abi.h); the HCA learns of the
 * MR through CREATE_MR and hands back its key. Deregistration destroys the
 * HCA's entry first and frees the tables only once the HCA confirms: an MR
 * whose DESTROY_MR fails or times out is kept on the device's zombie list
 * and retried, and freed for good only when the HCA lets go or is reset.
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
#define VROCE_ACC_SUPPORTED	(IB_ACCESS_LOCAL_WRITE | VROCE_ACC_REMOTE | \
				 IB_ACCESS_OPTIONAL)

static struct vroce_dev *to_vdev(struct ib_device *ibdev)
{
	return to_vroce_dev(ibdev);
}

/**
 * vroce_mr_access() - IB access flags as the HCA's rights
 * @access: IB_ACCESS_* flags; optional hints are dropped
 * @acc: where the VROCE_ACC_* rights are returned
 *
 * Context: any context.
 * Return: 0, -EOPNOTSUPP for flags the HCA does not know, or -EINVAL for
 * remote write or atomic without local write.
 */
int vroce_mr_access(int access, u32 *acc)
{
	if (access & ~VROCE_ACC_SUPPORTED)
		return -EOPNOTSUPP;
	/* Remote write or atomic without local write is not a valid MR. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;

	*acc = 0;
	if (access & IB_ACCESS_LOCAL_WRITE)
		*acc |= VROCE_ACC_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		*acc |= VROCE_ACC_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		*acc |= VROCE_ACC_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		*acc |= VROCE_ACC_REMOTE_ATOMIC;
	return 0;
}

static struct vroce_mr *vroce_mr_alloc(struct vroce_dev *vdev)
{
	struct vroce_mr *mr = vroce_core_zalloc(vdev, sizeof(*mr));

	if (mr)
		INIT_LIST_HEAD(&mr->zombie);
	return mr;
}

/* Free what the driver holds for an MR the HCA no longer knows. */
static void vroce_mr_free(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	vroce_mtr_destroy(vdev, mr->mtr);
	vroce_core_dma_free(vdev, array_size(mr->max_pages, sizeof(*mr->pbl)),
			    mr->pbl, mr->pbl_dma);
	vroce_core_free(vdev, mr);
}

/* Keep @mr's memory until the HCA lets go of it (see vroce_mr_reap()). */
static void vroce_mr_park(struct vroce_dev *vdev, struct vroce_mr *mr)
{
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&mr->zombie, &vdev->zombies);
	mutex_unlock(&vdev->zombie_lock);
}

/*
 * Undo an MR whose creation failed at any step. When CREATE_MR timed out
 * the HCA may have entered it under a key the driver never learnt: its
 * tables then stay until the HCA is reset. Otherwise all is freed.
 */
static void vroce_mr_unwind(struct vroce_dev *vdev, struct vroce_mr *mr,
			    int err)
{
	if (err == -ETIMEDOUT && mr->mtr) {
		mr->key_unknown = true;
		vroce_mr_park(vdev, mr);
		return;
	}
	vroce_mr_free(vdev, mr);
}

/* Enter @mr in the HCA and fill in its keys. */
static int vroce_mr_register(struct vroce_dev *vdev, struct vroce_mr *mr,
			     struct ib_pd *ibpd, u32 acc, u32 kind, u64 iova,
			     u64 length)
{
	struct vroce_mr_desc desc = {
		.pdn = to_vroce_pd(ibpd)->pdn,
		.access = acc,
		.kind = kind,
		.iova = iova,
		.length = length,
		.mtr = mr->mtr,
	};
	u32 key;
	int err;

	err = vroce_cmd_create_mr(vdev, &desc, &key, &mr->handle);
	if (err)
		return err;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return 0;
}

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
	u32 acc;
	int err;

	err = vroce_mr_access(access, &acc);
	if (err)
		return ERR_PTR(err);
	if ((access & VROCE_ACC_REMOTE) && !vroce_allow_remote_dma_mr)
		return ERR_PTR(-EOPNOTSUPP);

	mr = vroce_mr_alloc(vdev);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mr_register(vdev, mr, ibpd, acc, VROCE_MR_KIND_DMA, 0,
				U64_MAX);
	if (err) {
		vroce_mr_unwind(vdev, mr, err);
		return ERR_PTR(err);
	}
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
	struct vroce_buf_attr attr = {
		.region = { { length, 0 } },
		.region_count = 1,
		.page_shift = VROCE_MTR_MAX_PAGE_SHIFT,
		.user_access = access,
		.adaptive = true,
		.iova = virt_addr,
	};
	/* The MTR pins user memory when given user data; a kernel caller has none. */
	struct ib_udata kudata = {};
	struct vroce_mr *mr;
	u64 end;
	u32 acc;
	int err;

	if (!length || length > vdev->attr.max_mr_size ||
	    check_add_overflow(virt_addr, length - 1, &end))
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	err = vroce_mr_access(access, &acc);
	if (err)
		return ERR_PTR(err);

	mr = vroce_mr_alloc(vdev);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mtr_create(vdev, &mr->mtr, &attr, PAGE_SHIFT,
			       udata ?: &kudata, start);
	if (err)
		goto err_unwind;
	err = vroce_mr_register(vdev, mr, ibpd, acc, VROCE_MR_KIND_MTT,
				virt_addr, length);
	if (err)
		goto err_unwind;
	return &mr->ibmr;

err_unwind:
	vroce_mr_unwind(vdev, mr, err);
	return ERR_PTR(err);
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
	/*
	 * Never direct (hop 0): the HCA learns the table's root BA now, and
	 * a direct MTR's root is its first page, known only once mapped.
	 */
	struct vroce_buf_attr attr = {
		.region = { { (u64)max_num_sg << VROCE_FRMR_PAGE_SHIFT,
			      max_num_sg <= SZ_4K / VROCE_MTR_BA_BYTES ? 1 : 2 } },
		.region_count = 1,
		.page_shift = VROCE_FRMR_PAGE_SHIFT,
		.mtt_only = true,
	};
	struct vroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > vdev->attr.max_fast_reg_pages)
		return ERR_PTR(-EINVAL);

	mr = vroce_mr_alloc(vdev);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pbl = vroce_core_dma_alloc(vdev, array_size(max_num_sg,
							sizeof(*mr->pbl)),
				       &mr->pbl_dma);
	err = -ENOMEM;
	if (!mr->pbl)
		goto err_unwind;
	err = vroce_mtr_create(vdev, &mr->mtr, &attr, VROCE_FRMR_PAGE_SHIFT,
			       NULL, 0);
	if (err)
		goto err_unwind;
	err = vroce_mr_register(vdev, mr, ibpd, 0, VROCE_MR_KIND_FRMR, 0, 0);
	if (err)
		goto err_unwind;
	return &mr->ibmr;

err_unwind:
	vroce_mr_unwind(vdev, mr, err);
	return ERR_PTR(err);
}

static int vroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pbl[mr->npages++] = cpu_to_le64(addr);
	return 0;
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

	if (ibmr->page_size != BIT(VROCE_FRMR_PAGE_SHIFT))
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vroce_set_page);
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
 * their MRs were parked.
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
		if (hca_reset)
			err = 0;
		else if (mr->key_unknown)
			continue;
		else
			err = vroce_cmd_destroy_mr(vdev, mr->handle);
		if (!vroce_cmd_let_go(err))
			continue;
		list_del(&mr->zombie);
		vroce_mr_free(vdev, mr);
	}
	list_for_each_entry_safe(pz, ptmp, &vdev->pd_zombies, list) {
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
	int err;

	/* By handle: the consumer may have changed the key's low byte. */
	err = vroce_cmd_destroy_mr(vdev, mr->handle);
	if (!vroce_cmd_let_go(err)) {
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "DESTROY_MR %#x failed (%d): keeping its tables until the HCA lets go\n",
				       mr->handle, err);
		vroce_mr_park(vdev, mr);
		return 0;
	}
	vroce_mr_free(vdev, mr);
	vroce_mr_reap(vdev, false);
	return 0;
}
