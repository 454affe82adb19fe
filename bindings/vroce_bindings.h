/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bindgen reads to generate bindings/vroce_abi_generated.rs, the Rust
 * view of the MR/MTR ABI and of the core services an implementation uses.
 * Regenerate with 'make bindings'.
 */
#include "vroce_abi.h"
#include "vroce_core.h"
