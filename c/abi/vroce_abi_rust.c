// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: exports of the MR/MTR ABI's functions when rust/ implements them
 * (CONFIG_VROCE_ABI_RUST). The Rust shims are plain C-ABI symbols; these
 * are the same exports vroce_mtr.c, vroce_mr_obj.c and vroce_mw_obj.c
 * beside it make, and
 * it is built with rust/ in their place: the replaceable side's C glue.
 */

#include <kunit/visibility.h>
#include <linux/export.h>

#include "../../bindings/vroce_abi.h"

/* The symbols are defined in another object: export them by name. */
#define VROCE_MTR_EXPORT(sym) EXPORT_SYMBOL_IF_KUNIT(sym)

VROCE_MTR_EXPORT(vroce_mtr_create);
VROCE_MTR_EXPORT(vroce_mtr_destroy);
VROCE_MTR_EXPORT(vroce_mtr_map);
VROCE_MTR_EXPORT(vroce_mtr_find);
VROCE_MTR_EXPORT(vroce_mtr_root_ba);
VROCE_MTR_EXPORT(vroce_mtr_is_direct);
VROCE_MTR_EXPORT(vroce_mtr_ba_page_shift);
VROCE_MTR_EXPORT(vroce_mtr_buf_page_shift);
VROCE_MTR_EXPORT(vroce_mtr_page_count);
VROCE_MTR_EXPORT(vroce_mtr_region_count);
VROCE_MTR_EXPORT(vroce_mtr_region);
VROCE_MTR_EXPORT(vroce_mtr_buf_kva);
VROCE_MTR_EXPORT(vroce_mr_rights);
VROCE_MTR_EXPORT(vroce_mr_obj_create_dma);
VROCE_MTR_EXPORT(vroce_mr_obj_create_user);
VROCE_MTR_EXPORT(vroce_mr_obj_create_frmr);
VROCE_MTR_EXPORT(vroce_mr_obj_describe);
VROCE_MTR_EXPORT(vroce_mr_obj_registered);
VROCE_MTR_EXPORT(vroce_mr_obj_create_failed);
VROCE_MTR_EXPORT(vroce_mr_obj_parked);
VROCE_MTR_EXPORT(vroce_mr_obj_released);
VROCE_MTR_EXPORT(vroce_mr_obj_info);
VROCE_MTR_EXPORT(vroce_mr_obj_pages_reset);
VROCE_MTR_EXPORT(vroce_mr_obj_page_add);
VROCE_MTR_EXPORT(vroce_mr_obj_page);
VROCE_MTR_EXPORT(vroce_mr_obj_destroy);
VROCE_MTR_EXPORT(vroce_mw_obj_create);
VROCE_MTR_EXPORT(vroce_mw_obj_describe);
VROCE_MTR_EXPORT(vroce_mw_obj_allocated);
VROCE_MTR_EXPORT(vroce_mw_obj_alloc_failed);
VROCE_MTR_EXPORT(vroce_mw_obj_parked);
VROCE_MTR_EXPORT(vroce_mw_obj_released);
VROCE_MTR_EXPORT(vroce_mw_obj_info);
VROCE_MTR_EXPORT(vroce_mw_obj_destroy);
