// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: exports of the MTR functions when rust/vroce_mtr.rs implements
 * them (CONFIG_VROCE_MTR_RUST). The Rust shims are plain C-ABI symbols;
 * these are the same exports c/vroce_mtr.c makes.
 */

#include <kunit/visibility.h>
#include <linux/export.h>

#include "../bindings/vroce_abi.h"

EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_create);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_destroy);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_map);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_find);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_root_ba);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_is_direct);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_ba_page_shift);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_buf_page_shift);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_page_count);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_region_count);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_region);
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_buf_kva);
