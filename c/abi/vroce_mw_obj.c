// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the C implementation of the memory-window object of the MR/MTR
 * ABI (bindings/vroce_abi.h, "Memory windows"): a window's type, PD, key
 * and handle, and its states until the HCA lets go.
 *
 * Like the MR object it calls only the core services
 * (bindings/vroce_core.h), never the command layer or the verbs: the
 * caller issues ALLOC_MW/DEALLOC_MW and reports each outcome here.
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/types.h>

#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"
#include "vroce_obj_life.h"

/*
 * struct vroce_mw_obj - a memory window's lifecycle state
 * @type: VROCE_MW_OBJ_TYPE_*
 * @life: its state, and the key and handle ALLOC_MW returned
 * @pdn: its protection domain
 *
 * The caller serialises calls on one object (bindings/vroce_abi.h,
 * "Memory windows").
 */
struct vroce_mw_obj {
	u32 type;
	struct vroce_obj_life life;
	u32 pdn;
};

int vroce_mw_obj_create(struct vroce_dev *dev, u32 type, u32 pdn,
			struct vroce_mw_obj **mw)
{
	struct vroce_mw_obj *obj;

	if (!dev || !mw ||
	    (type != VROCE_MW_OBJ_TYPE_1 && type != VROCE_MW_OBJ_TYPE_2))
		return -EINVAL;
	obj = vroce_core_zalloc(dev, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	obj->type = type;
	obj->life.state = VROCE_MR_STATE_NEW;
	obj->pdn = pdn;
	*mw = obj;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_create);

int vroce_mw_obj_describe(const struct vroce_mw_obj *mw,
			  struct vroce_mw_desc *desc)
{
	if (!mw || !desc || mw->life.state != VROCE_MR_STATE_NEW)
		return -EINVAL;
	*desc = (struct vroce_mw_desc) {
		.pdn = mw->pdn,
		.type = mw->type,
	};
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_describe);

int vroce_mw_obj_allocated(struct vroce_mw_obj *mw, u32 key, u32 handle)
{
	return vroce_obj_entered(&mw->life, key, handle);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_allocated);

bool vroce_mw_obj_alloc_failed(struct vroce_mw_obj *mw, int err)
{
	/* Every window takes an MPT entry: a lost ALLOC_MW may hold one. */
	return vroce_obj_create_failed(&mw->life, err, true);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_alloc_failed);

int vroce_mw_obj_parked(struct vroce_mw_obj *mw)
{
	return vroce_obj_parked(&mw->life);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_parked);

int vroce_mw_obj_released(struct vroce_mw_obj *mw, bool hca_reset)
{
	return vroce_obj_released(&mw->life, hca_reset);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_released);

void vroce_mw_obj_info(const struct vroce_mw_obj *mw,
		       struct vroce_mw_info *info)
{
	*info = (struct vroce_mw_info) {
		.type = mw->type,
		.state = mw->life.state,
		.pdn = mw->pdn,
		.key = mw->life.key,
		.handle = mw->life.handle,
	};
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_info);

void vroce_mw_obj_destroy(struct vroce_dev *dev, struct vroce_mw_obj *mw)
{
	if (!mw)
		return;
	if (!vroce_obj_may_free(&mw->life)) {
		vroce_core_warn_mr_leak(mw->life.state);
		return;
	}
	vroce_core_free(dev, mw);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mw_obj_destroy);
