// SPDX-License-Identifier: GPL-2.0

//! The C-ABI shims of the memory-window object (`vroce_mw_obj_*` of
//! `bindings/vroce_abi.h`), built instead of `c/abi/vroce_mw_obj.c` when
//! `CONFIG_VROCE_ABI_RUST` is set. Each turns raw arguments into safe
//! types, calls [`MwObj`], and turns the result into an errno or the ABI's
//! structures. A window object handle is a `CoreBox<MwObj>::into_raw()`
//! pointer.

use crate::bindings;
use crate::mem::{CoreBox, Dev};
use crate::mr::State;
use crate::mw::{Info, MwObj};
use core::ptr::NonNull;
use kernel::error::code::EINVAL;
use kernel::ffi::c_int;

/// The shims must have exactly the prototypes bindgen read from the header.
const _: () = {
    let _ = [bindings::vroce_mw_obj_create, vroce_mw_obj_create];
    let _ = [bindings::vroce_mw_obj_describe, vroce_mw_obj_describe];
    let _ = [bindings::vroce_mw_obj_allocated, vroce_mw_obj_allocated];
    let _ = [
        bindings::vroce_mw_obj_alloc_failed,
        vroce_mw_obj_alloc_failed,
    ];
    let _ = [bindings::vroce_mw_obj_parked, vroce_mw_obj_parked];
    let _ = [bindings::vroce_mw_obj_released, vroce_mw_obj_released];
    let _ = [bindings::vroce_mw_obj_info, vroce_mw_obj_info];
    let _ = [bindings::vroce_mw_obj_destroy, vroce_mw_obj_destroy];
};

fn errno(r: kernel::error::Result) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// The object behind a handle from C.
///
/// # Safety
///
/// (U-106) `mw` is a handle returned by [`vroce_mw_obj_create`], not yet
/// destroyed, and nothing changes it for the returned lifetime.
unsafe fn mw_ref<'a>(mw: *const bindings::vroce_mw_obj) -> &'a MwObj {
    // SAFETY: (U-107) handles are `CoreBox<MwObj>::into_raw()` pointers, live
    // per the function's contract.
    unsafe { &*mw.cast::<MwObj>() }
}

/// The object behind a handle from C, for changing it.
///
/// # Safety
///
/// (U-108) As for [`mw_ref`], and nothing else uses the object for the
/// returned lifetime (the ABI has callers serialise calls on one object).
unsafe fn mw_mut<'a>(mw: *mut bindings::vroce_mw_obj) -> &'a mut MwObj {
    // SAFETY: (U-109) as in `mw_ref`, and the access is exclusive per the
    // function's contract.
    unsafe { &mut *mw.cast::<MwObj>() }
}

/// The key and handle of a window in `state` (0 unless LIVE or ZOMBIE).
fn key_handle(state: State) -> (u32, u32) {
    match state {
        State::Live { key, handle } | State::Zombie { key, handle } => (key, handle),
        _ => (0, 0),
    }
}

/// See `vroce_mw_obj_create()`.
///
/// # Safety
///
/// (U-110) `dev` is NULL or a live device that outlives the object; `mw` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_create(
    dev: *mut bindings::vroce_dev,
    type_: u32,
    pdn: u32,
    mw: *mut *mut bindings::vroce_mw_obj,
) -> c_int {
    // SAFETY: (U-111) a live device that outlives the object, per the
    // contract.
    let Some(dev) = (unsafe { Dev::from_raw(dev) }) else {
        return EINVAL.to_errno();
    };
    if mw.is_null() {
        return EINVAL.to_errno();
    }
    // The type is checked before anything is allocated, as in C.
    match MwObj::new(type_, pdn).and_then(|obj| CoreBox::new(dev, obj)) {
        Ok(obj) => {
            // SAFETY: (U-112) not NULL, so valid for writing, per the
            // contract.
            unsafe { *mw = obj.into_raw().cast() };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mw_obj_describe()`.
///
/// # Safety
///
/// (U-113) `mw` is NULL or a live handle; `desc` is NULL or valid for
/// writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_describe(
    mw: *const bindings::vroce_mw_obj,
    desc: *mut bindings::vroce_mw_desc,
) -> c_int {
    // SAFETY: (U-114) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { desc.as_mut() }) else {
        return EINVAL.to_errno();
    };
    if mw.is_null() {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-115) a live handle, per the contract.
    match unsafe { mw_ref(mw) }.describe() {
        Ok(info) => {
            *out = bindings::vroce_mw_desc {
                pdn: info.pdn,
                type_: info.ty.abi(),
            };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mw_obj_allocated()`.
///
/// # Safety
///
/// (U-116) `mw` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_allocated(
    mw: *mut bindings::vroce_mw_obj,
    key: u32,
    handle: u32,
) -> c_int {
    // SAFETY: (U-117) a live handle used by nobody else, per the contract.
    errno(unsafe { mw_mut(mw) }.allocated(key, handle))
}

/// See `vroce_mw_obj_alloc_failed()`.
///
/// # Safety
///
/// (U-118) `mw` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_alloc_failed(
    mw: *mut bindings::vroce_mw_obj,
    err: c_int,
) -> bool {
    // SAFETY: (U-119) a live handle used by nobody else, per the contract.
    unsafe { mw_mut(mw) }.alloc_failed(err)
}

/// See `vroce_mw_obj_parked()`.
///
/// # Safety
///
/// (U-120) `mw` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_parked(mw: *mut bindings::vroce_mw_obj) -> c_int {
    // SAFETY: (U-121) a live handle used by nobody else, per the contract.
    errno(unsafe { mw_mut(mw) }.parked())
}

/// See `vroce_mw_obj_released()`.
///
/// # Safety
///
/// (U-122) `mw` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_released(
    mw: *mut bindings::vroce_mw_obj,
    hca_reset: bool,
) -> c_int {
    // SAFETY: (U-123) a live handle used by nobody else, per the contract.
    errno(unsafe { mw_mut(mw) }.released(hca_reset))
}

/// See `vroce_mw_obj_info()`.
///
/// # Safety
///
/// (U-124) `mw` is a live handle; `info` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_info(
    mw: *const bindings::vroce_mw_obj,
    info: *mut bindings::vroce_mw_info,
) {
    // SAFETY: (U-125) a live handle, per the contract.
    let Info { ty, pdn, state } = unsafe { mw_ref(mw) }.info();
    let (key, handle) = key_handle(state);
    // SAFETY: (U-126) valid for writing, per the contract.
    unsafe {
        *info = bindings::vroce_mw_info {
            type_: ty.abi(),
            state: state.abi(),
            pdn,
            key,
            handle,
        }
    };
}

/// See `vroce_mw_obj_destroy()`.
///
/// # Safety
///
/// (U-127) `mw` is NULL or a handle from [`vroce_mw_obj_create`] for `dev`,
/// not used again after this call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mw_obj_destroy(
    dev: *mut bindings::vroce_dev,
    mw: *mut bindings::vroce_mw_obj,
) {
    // SAFETY: (U-128) the device the object was made for, live per the
    // contract.
    let dev = unsafe { Dev::from_raw(dev) };
    let (Some(dev), Some(ptr)) = (dev, NonNull::new(mw.cast::<MwObj>())) else {
        return;
    };
    // SAFETY: (U-129) a live handle, not used by anyone else any more.
    let obj = unsafe { mw_ref(mw) };
    if !obj.may_free() {
        // The HCA may still hold its MPT entry: keep the object, as C does.
        // SAFETY: (U-130) a plain C function taking an integer.
        unsafe { bindings::vroce_core_warn_mr_leak(obj.info().state.abi()) };
        return;
    }
    // SAFETY: (U-131) the handle came from `CoreBox::into_raw()` for `dev` and
    // is given back once, per the contract.
    drop(unsafe { CoreBox::from_raw(dev, ptr) });
}
