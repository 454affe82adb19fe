// SPDX-License-Identifier: GPL-2.0

//! Raw bindings of the MR/MTR ABI.
//!
//! `bindings/vroce_abi_generated.rs` is what `bindgen` makes of
//! `bindings/vroce_abi.h` and `bindings/vroce_core.h` (input:
//! `bindings/vroce_bindings.h`; regenerate with `make bindings`, checked by
//! `make check`). This module is the only way in: nothing but the safe
//! abstractions of [`crate::mem`] and the C-ABI shims of the crate root may
//! use it, and the lints generated code cannot meet are allowed here, once.

#![allow(
    clippy::all,
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    improper_ctypes,
    unreachable_pub,
    unsafe_op_in_unsafe_fn
)]

use kernel::ffi;

// Blocklisted in the generation, as the kernel's own bindings do: C's
// size types are Rust's.
type __kernel_size_t = usize;
type __kernel_ssize_t = isize;

include!("../bindings/vroce_abi_generated.rs");
