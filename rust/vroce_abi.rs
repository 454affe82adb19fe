// SPDX-License-Identifier: GPL-2.0

//! vroce: memory translate regions (MTR), MR and memory-window objects in
//! Rust.
//!
//! The Rust implementation of the MR/MTR ABI, `bindings/vroce_abi.h`,
//! built instead of `c/abi/vroce_mtr.c`, `c/abi/vroce_mr_obj.c` and
//! `c/abi/vroce_mw_obj.c` when `CONFIG_VROCE_ABI_RUST` is set. The MTR
//! shims are below, the MR object's in [`mr_abi`], the memory-window
//! object's in [`mw_abi`]. The functions below are the C ABI: each
//! converts its arguments to safe types, calls [`mtr::Mtr`], and converts
//! the result back to an errno.
//! The logic lives in [`mtr`]; the only unsafe code outside these shims is
//! in the safe abstractions of [`mem`].

// Whatever the kernel's lint set: every unsafe block states why it is
// sound, and that comment starts with the id Documentation/safety-audit.rst
// keys the block's row by (scripts/unsafe-audit.py checks the ids).
#![deny(clippy::undocumented_unsafe_blocks)]

/// What `pr_*!` put in front of messages (`module!` would define it).
const __LOG_PREFIX: &[u8] = b"vroce\0";

mod bindings;
mod mem;
mod mr;
pub mod mr_abi;
mod mtr;
mod mw;
pub mod mw_abi;

use core::ptr::NonNull;
use kernel::error::code::EINVAL;
use kernel::ffi::{c_int, c_ulong, c_void};
use mem::{CoreBox, Dev};
use mtr::{BufAttr, Mtr, RegionAttr};

/// The shims must have exactly the prototypes bindgen read from the header.
const _: () = {
    let _ = [bindings::vroce_mtr_create, vroce_mtr_create];
    let _ = [bindings::vroce_mtr_destroy, vroce_mtr_destroy];
    let _ = [bindings::vroce_mtr_map, vroce_mtr_map];
    let _ = [bindings::vroce_mtr_map_range, vroce_mtr_map_range];
    let _ = [bindings::vroce_mtr_unmap_range, vroce_mtr_unmap_range];
    let _ = [bindings::vroce_mtr_find, vroce_mtr_find];
    let _ = [bindings::vroce_mtr_root_ba, vroce_mtr_root_ba];
    let _ = [bindings::vroce_mtr_is_direct, vroce_mtr_is_direct];
    let _ = [bindings::vroce_mtr_ba_page_shift, vroce_mtr_ba_page_shift];
    let _ = [bindings::vroce_mtr_buf_page_shift, vroce_mtr_buf_page_shift];
    let _ = [bindings::vroce_mtr_page_count, vroce_mtr_page_count];
    let _ = [bindings::vroce_mtr_region_count, vroce_mtr_region_count];
    let _ = [bindings::vroce_mtr_region, vroce_mtr_region];
    let _ = [bindings::vroce_mtr_buf_kva, vroce_mtr_buf_kva];
};

/// The MTR behind a handle from C.
///
/// # Safety
///
/// (U-70) `mtr` is a handle returned by [`vroce_mtr_create`] and not yet
/// destroyed, and nothing changes the MTR for the returned lifetime.
unsafe fn mtr_ref<'a>(mtr: *const bindings::vroce_mtr) -> &'a Mtr {
    // SAFETY: (U-71) handles are `CoreBox<Mtr>::into_raw()` pointers, live
    // per the function's contract.
    unsafe { &*mtr.cast::<Mtr>() }
}

/// The C description of a buffer as the MTR's own type.
fn buf_attr(attr: &bindings::vroce_buf_attr) -> BufAttr {
    let mut region = [RegionAttr::default(); mtr::MAX_REGIONS];
    for (r, a) in region.iter_mut().zip(&attr.region) {
        *r = RegionAttr {
            size: a.size,
            hopnum: a.hopnum,
        };
    }
    BufAttr {
        region,
        region_count: attr.region_count,
        page_shift: attr.page_shift,
        user_access: attr.user_access as i32,
        mtt_only: attr.mtt_only,
        adaptive: attr.adaptive,
        iova: attr.iova,
        sparse: attr.sparse,
    }
}

/// Builds an MTR; see `vroce_mtr_create()` in `bindings/vroce_abi.h`.
///
/// # Safety
///
/// (U-72) `dev` is NULL or a live device that outlives the MTR; `mtr` is NULL
/// or valid for writing a pointer; `attr` is NULL or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_create(
    dev: *mut bindings::vroce_dev,
    mtr: *mut *mut bindings::vroce_mtr,
    attr: *const bindings::vroce_buf_attr,
    ba_page_shift: u32,
    udata: *mut bindings::ib_udata,
    user_addr: c_ulong,
) -> c_int {
    // SAFETY: (U-73) a live device that outlives the MTR, per the contract.
    let dev = unsafe { Dev::from_raw(dev) };
    // SAFETY: (U-74) NULL or valid for reading, per the contract.
    let attr = unsafe { attr.as_ref() };
    let (Some(dev), Some(attr), false) = (dev, attr, mtr.is_null()) else {
        return EINVAL.to_errno();
    };
    let user = (!udata.is_null()).then_some(user_addr);
    match Mtr::create(dev, &buf_attr(attr), ba_page_shift, user) {
        Ok(new) => {
            // SAFETY: (U-75) `mtr` is not NULL and valid for writing, per the
            // contract.
            unsafe { *mtr = new.into_raw().cast() };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// Frees an MTR; see `vroce_mtr_destroy()`.
///
/// # Safety
///
/// (U-76) `mtr` is NULL or a handle from [`vroce_mtr_create`] for `dev`, not
/// used again after this call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_destroy(
    dev: *mut bindings::vroce_dev,
    mtr: *mut bindings::vroce_mtr,
) {
    // SAFETY: (U-77) the device the MTR was made for, live per the contract.
    let dev = unsafe { Dev::from_raw(dev) };
    if let (Some(dev), Some(mtr)) = (dev, NonNull::new(mtr.cast::<Mtr>())) {
        // SAFETY: (U-78) the handle came from `CoreBox::into_raw()` for `dev`
        // and is given back once, per the contract.
        drop(unsafe { CoreBox::from_raw(dev, mtr) });
    }
}

/// Writes page addresses into an MTR; see `vroce_mtr_map()`.
///
/// # Safety
///
/// (U-79) `mtr` is NULL or a live handle that nothing else uses during the
/// call; `pages` is NULL or valid for reading `count` addresses.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_map(
    _dev: *mut bindings::vroce_dev,
    mtr: *mut bindings::vroce_mtr,
    pages: *const bindings::dma_addr_t,
    count: u64,
) -> c_int {
    if mtr.is_null() || pages.is_null() || count == 0 {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-80) a live handle used by nobody else during the call, per
    // the contract.
    let mtr = unsafe { &mut *mtr.cast::<Mtr>() };
    if count > mtr.page_count() {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-81) `pages` is valid for `count` addresses, per the
    // contract; `count` is at most the page count, which fits in memory.
    let pages = unsafe { core::slice::from_raw_parts(pages, count as usize) };
    match mtr.map(pages) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// Maps pages of a sparse MTR; see `vroce_mtr_map_range()`.
///
/// # Safety
///
/// (U-133) `mtr` is NULL or a live handle that nothing else uses during the
/// call; `pages` is NULL or valid for reading `count` addresses.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_map_range(
    _dev: *mut bindings::vroce_dev,
    mtr: *mut bindings::vroce_mtr,
    first: u64,
    pages: *const bindings::dma_addr_t,
    count: u64,
) -> c_int {
    if mtr.is_null() || pages.is_null() || count == 0 {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-134) a live handle used by nobody else during the call, per
    // the contract.
    let mtr = unsafe { &mut *mtr.cast::<Mtr>() };
    if count > mtr.page_count() {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-135) `pages` is valid for `count` addresses, per the
    // contract; `count` is at most the page count, which fits in memory.
    let pages = unsafe { core::slice::from_raw_parts(pages, count as usize) };
    match mtr.map_range(first, pages) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// Unmaps pages of a sparse MTR; see `vroce_mtr_unmap_range()`.
///
/// # Safety
///
/// (U-136) `mtr` is NULL or a live handle that nothing else uses during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_unmap_range(
    _dev: *mut bindings::vroce_dev,
    mtr: *mut bindings::vroce_mtr,
    first: u64,
    count: u64,
) -> i64 {
    if mtr.is_null() {
        return EINVAL.to_errno().into();
    }
    // SAFETY: (U-137) a live handle used by nobody else during the call, per
    // the contract.
    let mtr = unsafe { &mut *mtr.cast::<Mtr>() };
    match mtr.unmap_range(first, count) {
        Ok(n) => n as i64,
        Err(e) => e.to_errno().into(),
    }
}

/// Looks up page addresses; see `vroce_mtr_find()`.
///
/// # Safety
///
/// (U-82) `mtr` is NULL or a live handle not being mapped concurrently;
/// `addrs` is NULL or valid for writing `max` addresses; `base_addr` is NULL
/// or valid for writing one.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_find(
    _dev: *mut bindings::vroce_dev,
    mtr: *const bindings::vroce_mtr,
    offset: u64,
    addrs: *mut u64,
    max: u32,
    base_addr: *mut u64,
) -> c_int {
    if mtr.is_null() || addrs.is_null() || max == 0 {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-83) a live handle, per the contract.
    let mtr = unsafe { mtr_ref(mtr) };
    if max == 1 {
        if let Some((addr, table)) = mtr.find_leaf(offset) {
            // SAFETY: (U-84) `addrs` is valid for writing one address, and
            // `base_addr` NULL or valid for writing, per the contract.
            unsafe {
                addrs.write(addr);
                if let Some(base) = base_addr.as_mut() {
                    *base = table;
                }
            }
            return 1;
        }
    }
    // SAFETY: (U-85) the same contract.
    unsafe { find_runs(mtr, offset, addrs, max, base_addr) }
}

/// [`vroce_mtr_find`] beyond the one-page path, out of line, so that the
/// one-page path needs no stack frame.
///
/// # Safety
///
/// (U-86) As [`vroce_mtr_find`], with `addrs` not NULL and `max` above 0.
#[inline(never)]
unsafe fn find_runs(
    mtr: &Mtr,
    offset: u64,
    addrs: *mut u64,
    max: u32,
    base_addr: *mut u64,
) -> c_int {
    // SAFETY: (U-87) `addrs` is valid for writing `max` addresses, per the
    // contract.
    let addrs = unsafe { core::slice::from_raw_parts_mut(addrs, max as usize) };
    match mtr.find(offset, addrs) {
        Ok((n, table)) => {
            // SAFETY: (U-88) NULL or valid for writing, per the contract.
            if let Some(base) = unsafe { base_addr.as_mut() } {
                *base = table;
            }
            n as c_int
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mtr_root_ba()`.
///
/// # Safety
///
/// (U-89) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_root_ba(mtr: *const bindings::vroce_mtr) -> u64 {
    // SAFETY: (U-90) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.root_ba()
}

/// See `vroce_mtr_is_direct()`.
///
/// # Safety
///
/// (U-91) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_is_direct(mtr: *const bindings::vroce_mtr) -> bool {
    // SAFETY: (U-92) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.is_direct()
}

/// See `vroce_mtr_ba_page_shift()`.
///
/// # Safety
///
/// (U-93) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_ba_page_shift(mtr: *const bindings::vroce_mtr) -> u32 {
    // SAFETY: (U-94) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.ba_page_shift()
}

/// See `vroce_mtr_buf_page_shift()`.
///
/// # Safety
///
/// (U-95) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_buf_page_shift(mtr: *const bindings::vroce_mtr) -> u32 {
    // SAFETY: (U-96) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.buf_page_shift()
}

/// See `vroce_mtr_page_count()`.
///
/// # Safety
///
/// (U-97) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_page_count(mtr: *const bindings::vroce_mtr) -> u64 {
    // SAFETY: (U-98) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.page_count()
}

/// See `vroce_mtr_region_count()`.
///
/// # Safety
///
/// (U-99) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_region_count(mtr: *const bindings::vroce_mtr) -> u32 {
    // SAFETY: (U-100) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }.region_count()
}

/// See `vroce_mtr_region()`.
///
/// # Safety
///
/// (U-101) `mtr` is a live handle from [`vroce_mtr_create`]; `region` is NULL
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_region(
    mtr: *const bindings::vroce_mtr,
    index: u32,
    region: *mut bindings::vroce_mtr_region,
) -> c_int {
    // SAFETY: (U-102) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { region.as_mut() }) else {
        return EINVAL.to_errno();
    };
    // SAFETY: (U-103) a live handle, per the contract.
    match unsafe { mtr_ref(mtr) }.region(index) {
        Ok(r) => {
            *out = bindings::vroce_mtr_region {
                offset: r.offset,
                count: r.count,
                hopnum: r.hopnum,
            };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mtr_buf_kva()`.
///
/// # Safety
///
/// (U-104) `mtr` is a live handle from [`vroce_mtr_create`].
#[no_mangle]
pub unsafe extern "C" fn vroce_mtr_buf_kva(
    mtr: *const bindings::vroce_mtr,
    offset: u64,
) -> *mut c_void {
    // SAFETY: (U-105) a live handle, per the contract.
    unsafe { mtr_ref(mtr) }
        .buf_kva(offset)
        .map_or(core::ptr::null_mut(), |va| va.cast())
}
