// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: exports of the MTR functions when rust/vroce_mtr.rs implements
 * them (CONFIG_VROCE_MTR_RUST). The Rust shims are plain C-ABI symbols;
 * these are the same exports c/vroce_mtr.c makes.
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
