// SPDX-License-Identifier: GPL-2.0
/*
 * vroce memory windows (issue 30): ALLOC_MW and DEALLOC_MW for the RDMA
 * core's alloc_mw and dealloc_mw. A window's state is a window object of
 * the MR/MTR ABI (bindings/vroce_abi.h); binds and invalidations are work
 * requests the HCA executes (BIND_MW, LOCAL_INV, SEND_WITH_INV), posted by
 * a process into its mapped send queue: the kernel's verbs carry none.
 * A window whose DEALLOC_MW is not confirmed is parked on the device's
 * window zombies, with a record taken when it was allocated, and retried
 * with the MR zombies (vroce_mr_reap()).
 *
 * Calls: c/driver/vroce_cmd.c (the commands), c/driver/vroce_zombie.c
 * (parking).
 */

#include <rdma/ib_verbs.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/**
 * vroce_alloc_mw() - allocate a memory window of a PD
 * @ibmw: the window the RDMA core allocated; type and PD are set
 * @udata: the process's data: no request or response beyond uverbs'
 *
 * Context: process context, may sleep.
 * Return: 0 with @ibmw->rkey set; -EOPNOTSUPP when the HCA has no
 * windows; -EINVAL for a type other than 1 or 2, or driver data the
 * driver does not know; -ENOMEM; an error of ALLOC_MW (-ENOMEM when the
 * MPT is full, -ETIMEDOUT).
 */
int vroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibmw->device);
	struct vroce_mw *mw = to_vroce_mw(ibmw);
	struct vroce_mw_desc desc;
	u32 key, handle;
	int err;

	if (!(vdev->attr.caps & VROCE_CAP_MW))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	err = vroce_mw_obj_create(vdev, ibmw->type, to_vroce_pd(ibmw->pd)->pdn,
				  &mw->obj);
	if (err)
		return err;
	mw->zombie = vroce_core_zalloc(vdev, sizeof(*mw->zombie));
	if (!mw->zombie) {
		err = -ENOMEM;
		goto out_obj;
	}
	err = vroce_mw_obj_describe(mw->obj, &desc);
	if (!err)
		err = vroce_cmd_alloc_mw(vdev, &desc, &key, &handle);
	if (err) {
		if (vroce_mw_obj_alloc_failed(mw->obj, err)) {
			vroce_mw_park(vdev, mw);
			return err;
		}
		vroce_core_free(vdev, mw->zombie);
		goto out_obj;
	}
	err = vroce_mw_obj_allocated(mw->obj, key, handle);
	if (WARN_ON_ONCE(err)) {
		/* The HCA holds it: keep it until a DEALLOC_MW or a reset. */
		vroce_mw_park(vdev, mw);
		return err;
	}
	ibmw->rkey = key;
	return 0;

out_obj:
	vroce_mw_obj_destroy(vdev, mw->obj);
	return err;
}

/**
 * vroce_dealloc_mw() - free a memory window, bound or not
 * @ibmw: the window
 *
 * Once DEALLOC_MW is answered no access goes through the window. When it
 * fails or times out the window is parked and retried (vroce_mr_reap()),
 * and the caller still sees success: the key is dead to it.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int vroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct vroce_dev *vdev = to_vroce_dev(ibmw->device);
	struct vroce_mw *mw = to_vroce_mw(ibmw);
	struct vroce_mw_info info;
	int err;

	vroce_mw_obj_info(mw->obj, &info);
	err = vroce_cmd_dealloc_mw(vdev, info.handle);
	if (vroce_cmd_let_go(err) && !vroce_mw_obj_released(mw->obj, false)) {
		vroce_mw_obj_destroy(vdev, mw->obj);
		vroce_core_free(vdev, mw->zombie);
		/* The HCA answers: retry what it did not before. */
		vroce_mr_reap_zombies(vdev);
	} else {
		vroce_mw_obj_parked(mw->obj);
		vroce_mw_park(vdev, mw);
	}
	return 0;
}
