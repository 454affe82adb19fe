// SPDX-License-Identifier: GPL-2.0
/*
 * vroce MR entries: an MR's driver record with its MR object of the ABI
 * (vroce_mr_new_*()), and its HCA entry, made from the object (CREATE_MR)
 * and destroyed (DESTROY_MR); when the HCA may still hold it, the MR is
 * parked (c/driver/vroce_zombie.c) instead of freed. Below the MR verbs
 * (c/driver/vroce_mr.c) and the MR cache (c/driver/vroce_mr_cache.c),
 * above the MR object (c/abi/vroce_mr_obj.c or rust/): it never calls up.
 */

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/* A zeroed MR, or NULL. */
static struct vroce_mr *vroce_mr_alloc(struct vroce_dev *vdev)
{
	struct vroce_mr *mr = vroce_core_zalloc(vdev, sizeof(*mr));

	if (mr) {
		INIT_LIST_HEAD(&mr->zombie);
		INIT_LIST_HEAD(&mr->cache);
		xa_init(&mr->odp_chunks);
	}
	return mr;
}

/* @mr with its object made (@err 0), or freed and ERR_PTR(@err). */
static struct vroce_mr *vroce_mr_made(struct vroce_dev *vdev,
				      struct vroce_mr *mr, int err)
{
	if (err) {
		vroce_mr_free(vdev, mr);
		return ERR_PTR(err);
	}
	return mr;
}

/**
 * vroce_mr_new_dma() - an MR with a NEW DMA object
 * @vdev: the device
 * @access: IB_ACCESS_* flags
 * @allow_remote: remote access may be granted
 *
 * Context: process context, may sleep.
 * Return: the MR, to be entered with vroce_mr_create_hw(); ERR_PTR() of
 * -ENOMEM or of an error of vroce_mr_obj_create_dma().
 */
struct vroce_mr *vroce_mr_new_dma(struct vroce_dev *vdev, int access,
				  bool allow_remote)
{
	struct vroce_mr *mr = vroce_mr_alloc(vdev);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mr_obj_create_dma(vdev, access, allow_remote, &mr->obj);
	return vroce_mr_made(vdev, mr, err);
}

/**
 * vroce_mr_new_user() - an MR with a NEW object over pinned user memory
 * @vdev: the device
 * @attr: the memory
 * @udata: the owner's user data, or NULL for a kernel caller
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: the MR, to be entered with vroce_mr_create_hw(); ERR_PTR() of
 * -ENOMEM or of an error of vroce_mr_obj_create_user().
 */
struct vroce_mr *vroce_mr_new_user(struct vroce_dev *vdev,
				   const struct vroce_mr_user_attr *attr,
				   struct ib_udata *udata)
{
	struct vroce_mr *mr = vroce_mr_alloc(vdev);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mr_obj_create_user(vdev, attr, udata, &mr->obj);
	return vroce_mr_made(vdev, mr, err);
}

/**
 * vroce_mr_new_odp() - an MR with a NEW on-demand paging object
 * @vdev: the device
 * @attr: the memory
 *
 * Nothing is pinned: c/driver/vroce_odp.c gives the MR its umem.
 *
 * Context: process context, may sleep.
 * Return: the MR; ERR_PTR() of -ENOMEM or of an error of
 * vroce_mr_obj_create_odp().
 */
struct vroce_mr *vroce_mr_new_odp(struct vroce_dev *vdev,
				  const struct vroce_mr_user_attr *attr)
{
	struct vroce_mr *mr = vroce_mr_alloc(vdev);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mr_obj_create_odp(vdev, attr, &mr->obj);
	return vroce_mr_made(vdev, mr, err);
}

/**
 * vroce_mr_new_frmr() - an MR with a NEW fast-register object
 * @vdev: the device
 * @max_pages: most pages its page list takes
 * @limit: the device's maximum
 *
 * For alloc_mr, and for the MR cache's entries.
 *
 * Context: process context, may sleep.
 * Return: the MR, to be entered with vroce_mr_create_hw(); ERR_PTR() of
 * -ENOMEM or of an error of vroce_mr_obj_create_frmr().
 */
struct vroce_mr *vroce_mr_new_frmr(struct vroce_dev *vdev, u32 max_pages,
				   u32 limit)
{
	struct vroce_mr *mr = vroce_mr_alloc(vdev);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vroce_mr_obj_create_frmr(vdev, max_pages, limit, &mr->obj);
	return vroce_mr_made(vdev, mr, err);
}

/*
 * @mr's MTR (NULL for a DMA MR), and what restrack dumps show of it; the
 * pointer is the driver's, the copy the dumps' (see struct vroce_mr).
 */
void vroce_mr_set_mtr(struct vroce_mr *mr, const struct vroce_mtr *mtr)
{
	struct vroce_hw_mtt mtt = {};

	if (mtr)
		vroce_ring_mtt(mtr, &mtt);
	WRITE_ONCE(mr->mtr, mtr);
	mr->res_mtt = mtt;
}

/*
 * Enter @mr's object in the HCA under PD @pdn and fill in the keys. When
 * CREATE_MR fails the MR is undone: kept as a zombie if the HCA may hold
 * it under a key the driver never learnt (a timeout), freed otherwise;
 * but with @keep_if_full, a CREATE_MR refused for want of an MPT entry
 * (-ENOMEM) leaves @mr as it was, for the caller to try again or free.
 */
int vroce_mr_create_hw(struct vroce_dev *vdev, struct vroce_mr *mr, u32 pdn,
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
	vroce_mr_set_mtr(mr, info.mtr);
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
bool vroce_mr_destroy_hw(struct vroce_dev *vdev, struct vroce_mr *mr)
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
