// SPDX-License-Identifier: GPL-2.0

//! The C-ABI shims of the MR lifecycle (`vroce_mr_*` of
//! `bindings/vroce_abi.h`), built instead of `c/abi/vroce_mr_obj.c`
//! when `CONFIG_VROCE_ABI_RUST` is set. Each turns raw arguments into safe
//! types, calls [`MrObj`], and turns the result into an errno or the ABI's
//! structures. An MR object handle is a `CoreBox<MrObj>::into_raw()`
//! pointer.

use crate::bindings;
use crate::mem::{CoreBox, Dev};
use crate::mr::{self, Info, MrObj, OdpRange, State, UserMem};
use core::ptr::NonNull;
use kernel::error::code::EINVAL;
use kernel::ffi::c_int;

/// The shims must have exactly the prototypes bindgen read from the header.
const _: () = {
    let _ = [bindings::vroce_mr_rights, vroce_mr_rights];
    let _ = [bindings::vroce_mr_obj_create_dma, vroce_mr_obj_create_dma];
    let _ = [bindings::vroce_mr_obj_create_user, vroce_mr_obj_create_user];
    let _ = [bindings::vroce_mr_obj_create_frmr, vroce_mr_obj_create_frmr];
    let _ = [bindings::vroce_mr_obj_create_odp, vroce_mr_obj_create_odp];
    let _ = [bindings::vroce_mr_obj_odp_fault, vroce_mr_obj_odp_fault];
    let _ = [bindings::vroce_mr_obj_odp_map, vroce_mr_obj_odp_map];
    let _ = [
        bindings::vroce_mr_obj_odp_invalidate,
        vroce_mr_obj_odp_invalidate,
    ];
    let _ = [bindings::vroce_mr_obj_describe, vroce_mr_obj_describe];
    let _ = [bindings::vroce_mr_obj_registered, vroce_mr_obj_registered];
    let _ = [
        bindings::vroce_mr_obj_create_failed,
        vroce_mr_obj_create_failed,
    ];
    let _ = [bindings::vroce_mr_obj_parked, vroce_mr_obj_parked];
    let _ = [bindings::vroce_mr_obj_released, vroce_mr_obj_released];
    let _ = [bindings::vroce_mr_obj_info, vroce_mr_obj_info];
    let _ = [bindings::vroce_mr_obj_pages_reset, vroce_mr_obj_pages_reset];
    let _ = [bindings::vroce_mr_obj_page_add, vroce_mr_obj_page_add];
    let _ = [bindings::vroce_mr_obj_page, vroce_mr_obj_page];
    let _ = [bindings::vroce_mr_obj_destroy, vroce_mr_obj_destroy];
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
/// (U-28) `mr` is a handle returned by one of the `vroce_mr_obj_create_*`
/// shims, not yet destroyed, and nothing changes it for the returned
/// lifetime.
unsafe fn obj_ref<'a>(mr: *const bindings::vroce_mr_obj) -> &'a MrObj {
    // SAFETY: (U-29) handles are `CoreBox<MrObj>::into_raw()` pointers, live
    // per the function's contract.
    unsafe { &*mr.cast::<MrObj>() }
}

/// The object behind a handle from C, for changing it.
///
/// # Safety
///
/// (U-30) As for [`obj_ref`], and nothing else uses the object for the
/// returned lifetime (the ABI has callers serialise calls on one object).
unsafe fn obj_mut<'a>(mr: *mut bindings::vroce_mr_obj) -> &'a mut MrObj {
    // SAFETY: (U-31) as in `obj_ref`, and the access is exclusive per the
    // function's contract.
    unsafe { &mut *mr.cast::<MrObj>() }
}

/// Makes an object for the device behind `dev` and hands it to C through
/// `out`: the part every `vroce_mr_obj_create_*` shim shares.
///
/// # Safety
///
/// (U-32) `dev` is NULL or a live device that outlives the object; `out` is
/// NULL or valid for writing a pointer.
unsafe fn create(
    dev: *mut bindings::vroce_dev,
    out: *mut *mut bindings::vroce_mr_obj,
    make: impl FnOnce(Dev) -> kernel::error::Result<CoreBox<MrObj>>,
) -> c_int {
    // SAFETY: (U-33) a live device that outlives the object, per the
    // contract.
    let Some(dev) = (unsafe { Dev::from_raw(dev) }) else {
        return EINVAL.to_errno();
    };
    if out.is_null() {
        return EINVAL.to_errno();
    }
    match make(dev) {
        Ok(obj) => {
            // SAFETY: (U-34) not NULL, so valid for writing, per the
            // contract.
            unsafe { *out = obj.into_raw().cast() };
            0
        }
        Err(e) => e.to_errno(),
    }
}

fn mtr_handle(mtr: Option<*mut crate::mtr::Mtr>) -> *const bindings::vroce_mtr {
    // An MTR handle of the Rust MTR (the `Mtr` in its `CoreBox`), const in
    // the ABI: C may only read it; the object frees it.
    mtr.map_or(core::ptr::null(), |m| m.cast_const().cast())
}

/// See `vroce_mr_rights()`.
///
/// # Safety
///
/// (U-35) `rights` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_rights(access: c_int, rights: *mut u32) -> c_int {
    // SAFETY: (U-36) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { rights.as_mut() }) else {
        return EINVAL.to_errno();
    };
    match mr::rights(access) {
        Ok(r) => {
            *out = r;
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mr_obj_create_dma()`.
///
/// # Safety
///
/// (U-37) `dev` is NULL or a live device that outlives the object; `mr` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_create_dma(
    dev: *mut bindings::vroce_dev,
    access: c_int,
    allow_remote: bool,
    mr: *mut *mut bindings::vroce_mr_obj,
) -> c_int {
    // SAFETY: (U-38) as `create()` requires, per the contract.
    unsafe { create(dev, mr, |dev| MrObj::dma(dev, access, allow_remote)) }
}

/// The user memory C describes, as the object takes it (create_user and
/// create_odp).
fn user_mem(attr: &bindings::vroce_mr_user_attr) -> UserMem {
    UserMem {
        start: attr.start,
        length: attr.length,
        iova: attr.iova,
        access: attr.access,
        max_length: attr.max_length,
    }
}

/// See `vroce_mr_obj_create_user()`.
///
/// # Safety
///
/// (U-39) `dev` is NULL or a live device that outlives the object; `attr` is
/// NULL or valid for reading; `mr` is NULL or valid for writing a pointer.
/// The call runs in the memory owner's process context.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_create_user(
    dev: *mut bindings::vroce_dev,
    attr: *const bindings::vroce_mr_user_attr,
    _udata: *mut bindings::ib_udata,
    mr: *mut *mut bindings::vroce_mr_obj,
) -> c_int {
    // SAFETY: (U-40) NULL or valid for reading, per the contract.
    let Some(attr) = (unsafe { attr.as_ref() }) else {
        return EINVAL.to_errno();
    };
    let mem = user_mem(attr);
    // SAFETY: (U-41) as `create()` requires, per the contract.
    unsafe { create(dev, mr, |dev| MrObj::user(dev, &mem)) }
}

/// See `vroce_mr_obj_create_frmr()`.
///
/// # Safety
///
/// (U-42) `dev` is NULL or a live device that outlives the object; `mr` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_create_frmr(
    dev: *mut bindings::vroce_dev,
    max_pages: u32,
    limit: u32,
    mr: *mut *mut bindings::vroce_mr_obj,
) -> c_int {
    // SAFETY: (U-43) as `create()` requires, per the contract.
    unsafe { create(dev, mr, |dev| MrObj::frmr(dev, max_pages, limit)) }
}

/// The ABI's range from the object's.
fn odp_range(r: &OdpRange) -> bindings::vroce_mr_odp_range {
    bindings::vroce_mr_odp_range {
        first: r.first,
        count: r.count,
        user_addr: r.user_addr,
        user_len: r.user_len,
    }
}

/// See `vroce_mr_obj_create_odp()`.
///
/// # Safety
///
/// (U-138) `dev` is NULL or a live device that outlives the object; `attr`
/// is NULL or valid for reading; `mr` is NULL or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_create_odp(
    dev: *mut bindings::vroce_dev,
    attr: *const bindings::vroce_mr_user_attr,
    mr: *mut *mut bindings::vroce_mr_obj,
) -> c_int {
    // SAFETY: (U-139) NULL or valid for reading, per the contract.
    let Some(attr) = (unsafe { attr.as_ref() }) else {
        return EINVAL.to_errno();
    };
    let mem = user_mem(attr);
    // SAFETY: (U-140) as `create()` requires, per the contract.
    unsafe { create(dev, mr, |dev| MrObj::odp(dev, &mem)) }
}

/// See `vroce_mr_obj_odp_fault()`.
///
/// # Safety
///
/// (U-141) `mr` is a live handle; `range` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_odp_fault(
    mr: *const bindings::vroce_mr_obj,
    iova: u64,
    len: u64,
    ahead: bool,
    range: *mut bindings::vroce_mr_odp_range,
) -> c_int {
    // SAFETY: (U-142) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { range.as_mut() }) else {
        return EINVAL.to_errno();
    };
    // SAFETY: (U-143) a live handle, per the contract.
    match unsafe { obj_ref(mr) }.odp_fault(iova, len, ahead) {
        Ok(r) => {
            *out = odp_range(&r);
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mr_obj_odp_map()`.
///
/// # Safety
///
/// (U-144) `mr` is a live handle nobody else uses during the call; `range`
/// is NULL or valid for reading; `pages` is NULL or valid for reading
/// `range->count` addresses.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_odp_map(
    _dev: *mut bindings::vroce_dev,
    mr: *mut bindings::vroce_mr_obj,
    range: *const bindings::vroce_mr_odp_range,
    pages: *const bindings::dma_addr_t,
) -> c_int {
    // SAFETY: (U-145) NULL or valid for reading, per the contract.
    let Some(r) = (unsafe { range.as_ref() }) else {
        return EINVAL.to_errno();
    };
    // SAFETY: (U-146) a live handle used by nobody else, per the contract.
    let obj = unsafe { obj_mut(mr) };
    let Ok(count) = usize::try_from(r.count) else {
        return EINVAL.to_errno();
    };
    if pages.is_null() || count == 0 {
        return EINVAL.to_errno();
    }
    let range = OdpRange {
        first: r.first,
        count: r.count,
        user_addr: r.user_addr,
        user_len: r.user_len,
    };
    // The object checks the range against its pages before it reads
    // `pages`: a count past them fails first.
    if obj.odp_check(&range).is_err() {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-147) `pages` is valid for `range->count` addresses, per
    // the contract, and that count is within the MR's pages (checked).
    let pages = unsafe { core::slice::from_raw_parts(pages, count) };
    errno(obj.odp_map(&range, pages))
}

/// See `vroce_mr_obj_odp_invalidate()`.
///
/// # Safety
///
/// (U-148) `mr` is a live handle nobody else uses during the call; `range`
/// is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_odp_invalidate(
    _dev: *mut bindings::vroce_dev,
    mr: *mut bindings::vroce_mr_obj,
    start: u64,
    end: u64,
    range: *mut bindings::vroce_mr_odp_range,
) -> i64 {
    // SAFETY: (U-149) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { range.as_mut() }) else {
        return EINVAL.to_errno().into();
    };
    // SAFETY: (U-150) a live handle used by nobody else, per the contract.
    match unsafe { obj_mut(mr) }.odp_invalidate(start, end) {
        Ok((r, was)) => {
            *out = odp_range(&r);
            was as i64
        }
        Err(e) => e.to_errno().into(),
    }
}

/// See `vroce_mr_obj_describe()`.
///
/// # Safety
///
/// (U-44) `mr` is NULL or a live handle; `desc` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_describe(
    mr: *const bindings::vroce_mr_obj,
    pdn: u32,
    desc: *mut bindings::vroce_mr_desc,
) -> c_int {
    // SAFETY: (U-45) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { desc.as_mut() }) else {
        return EINVAL.to_errno();
    };
    if mr.is_null() {
        return EINVAL.to_errno();
    }
    // SAFETY: (U-46) a live handle, per the contract.
    match unsafe { obj_ref(mr) }.describe() {
        Ok(info) => {
            *out = bindings::vroce_mr_desc {
                pdn,
                access: info.rights,
                kind: info.ty.abi(),
                iova: info.iova,
                length: info.length,
                mtr: mtr_handle(info.mtr),
            };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mr_obj_registered()`.
///
/// # Safety
///
/// (U-47) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_registered(
    mr: *mut bindings::vroce_mr_obj,
    key: u32,
    handle: u32,
) -> c_int {
    // SAFETY: (U-48) a live handle used by nobody else, per the contract.
    errno(unsafe { obj_mut(mr) }.registered(key, handle))
}

/// See `vroce_mr_obj_create_failed()`.
///
/// # Safety
///
/// (U-49) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_create_failed(
    mr: *mut bindings::vroce_mr_obj,
    err: c_int,
) -> bool {
    // SAFETY: (U-50) a live handle used by nobody else, per the contract.
    unsafe { obj_mut(mr) }.create_failed(err)
}

/// See `vroce_mr_obj_parked()`.
///
/// # Safety
///
/// (U-51) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_parked(mr: *mut bindings::vroce_mr_obj) -> c_int {
    // SAFETY: (U-52) a live handle used by nobody else, per the contract.
    errno(unsafe { obj_mut(mr) }.parked())
}

/// See `vroce_mr_obj_released()`.
///
/// # Safety
///
/// (U-53) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_released(
    mr: *mut bindings::vroce_mr_obj,
    hca_reset: bool,
) -> c_int {
    // SAFETY: (U-54) a live handle used by nobody else, per the contract.
    errno(unsafe { obj_mut(mr) }.released(hca_reset))
}

/// See `vroce_mr_obj_info()`.
///
/// # Safety
///
/// (U-55) `mr` is a live handle; `info` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_info(
    mr: *const bindings::vroce_mr_obj,
    info: *mut bindings::vroce_mr_info,
) {
    // SAFETY: (U-56) a live handle, per the contract.
    let Info {
        ty,
        rights: _,
        state,
        iova,
        length,
        mtr,
        pbl_dma,
        npages,
        max_pages,
    } = unsafe { obj_ref(mr) }.info();
    let (key, handle) = match state {
        State::Live { key, handle } | State::Zombie { key, handle } => (key, handle),
        _ => (0, 0),
    };
    // SAFETY: (U-57) valid for writing, per the contract.
    unsafe {
        *info = bindings::vroce_mr_info {
            type_: ty.abi(),
            state: state.abi(),
            key,
            handle,
            iova,
            length,
            mtr: mtr_handle(mtr),
            pbl_dma,
            npages,
            max_pages,
        }
    };
}

/// See `vroce_mr_obj_pages_reset()`.
///
/// # Safety
///
/// (U-58) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_pages_reset(mr: *mut bindings::vroce_mr_obj) -> c_int {
    // SAFETY: (U-59) a live handle used by nobody else, per the contract.
    errno(unsafe { obj_mut(mr) }.pages_reset())
}

/// See `vroce_mr_obj_page_add()`.
///
/// # Safety
///
/// (U-60) `mr` is a live handle nobody else uses during the call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_page_add(mr: *mut bindings::vroce_mr_obj, dma: u64) -> c_int {
    // SAFETY: (U-61) a live handle used by nobody else, per the contract.
    errno(unsafe { obj_mut(mr) }.page_add(dma))
}

/// See `vroce_mr_obj_page()`.
///
/// # Safety
///
/// (U-62) `mr` is a live handle; `dma` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_page(
    mr: *const bindings::vroce_mr_obj,
    index: u32,
    dma: *mut u64,
) -> c_int {
    // SAFETY: (U-63) NULL or valid for writing, per the contract.
    let Some(out) = (unsafe { dma.as_mut() }) else {
        return EINVAL.to_errno();
    };
    // SAFETY: (U-64) a live handle, per the contract.
    match unsafe { obj_ref(mr) }.page(index) {
        Ok(v) => {
            *out = v;
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// See `vroce_mr_obj_destroy()`.
///
/// # Safety
///
/// (U-65) `mr` is NULL or a handle from the `vroce_mr_obj_create_*` shims for
/// `dev`, not used again after this call.
#[no_mangle]
pub unsafe extern "C" fn vroce_mr_obj_destroy(
    dev: *mut bindings::vroce_dev,
    mr: *mut bindings::vroce_mr_obj,
) {
    // SAFETY: (U-66) the device the object was made for, live per the
    // contract.
    let dev = unsafe { Dev::from_raw(dev) };
    let (Some(dev), Some(ptr)) = (dev, NonNull::new(mr.cast::<MrObj>())) else {
        return;
    };
    // SAFETY: (U-67) a live handle, not used by anyone else any more.
    let obj = unsafe { obj_ref(mr) };
    if !obj.may_free() {
        // The HCA may still translate through its tables: leak them.
        // SAFETY: (U-68) a plain C function taking an integer.
        unsafe { bindings::vroce_core_warn_mr_leak(obj.info().state.abi()) };
        return;
    }
    // SAFETY: (U-69) the handle came from `CoreBox::into_raw()` for `dev` and
    // is given back once, per the contract.
    drop(unsafe { CoreBox::from_raw(dev, ptr) });
}
