// SPDX-License-Identifier: GPL-2.0

//! Safe abstractions over the core services of `bindings/vroce_core.h`.
//!
//! Every allocation the Rust MTR makes goes through these types, and so
//! through the C core's accounted, fault-injectable allocators: a failed
//! allocation is [`ENOMEM`] and dropping a value frees exactly what its
//! constructor took.

use crate::bindings;
use core::mem::{align_of, needs_drop, size_of, ManuallyDrop};
use core::ops::{Deref, DerefMut};
use core::ptr::{self, NonNull};
use kernel::error::{code::*, from_err_ptr, Result};

/// Loops over many table pages or entries yield the CPU this often.
pub(crate) const RESCHED_EVERY: u64 = 1024;

/// Yields the CPU on every [`RESCHED_EVERY`]th step `i` of a loop, never on
/// the first.
///
/// Callers run in process context: the ABI functions that loop (create,
/// destroy, and map of more than 2^19 pages) may sleep.
/// Copies `src` into the table entries `dst` (as many as both have) and
/// returns the copied values OR-ed together, in one pass.
///
/// The stores are volatile so that the compiler keeps the loop: as a
/// plain copy it becomes a `memcpy()` call plus a second pass for the OR,
/// which `make bench` measured 1.3x slower than the C MTR's single loop.
pub(crate) fn fill_entries(dst: &mut [u64], src: &[u64]) -> u64 {
    let mut acc = 0;
    for (d, &s) in dst.iter_mut().zip(src) {
        // SAFETY: (U-2) `d` is a unique reference to an initialised, aligned
        // `u64`, so it is valid for a write.
        unsafe { ptr::write_volatile(d, s.to_le()) };
        acc |= s;
    }
    acc
}

pub(crate) fn maybe_resched(i: u64) {
    if i != 0 && i % RESCHED_EVERY == 0 {
        // SAFETY: (U-1) `vroce_core_resched()` has no preconditions beyond a
        // sleepable context, which the callers' contract provides.
        unsafe { bindings::vroce_core_resched() };
    }
}

/// `dma_wmb()`: writes to DMA-coherent memory before it reach the device
/// before those after it.
pub(crate) fn dma_wmb() {
    // SAFETY: (U-132) `vroce_core_dma_wmb()` has no preconditions.
    unsafe { bindings::vroce_core_dma_wmb() };
}

/// The vroce device an MTR belongs to.
///
/// # Invariants
///
/// `self.0` points to a live `struct vroce_dev`, and stays live for as long
/// as any copy of this value exists: the ABI requires every MTR, and so
/// every object holding a `Dev`, to be destroyed before its device.
#[derive(Clone, Copy)]
pub(crate) struct Dev(NonNull<bindings::vroce_dev>);

impl Dev {
    /// Wraps a device pointer coming from C; `None` for NULL.
    ///
    /// # Safety
    ///
    /// (U-3) `ptr` is NULL or points to a live `struct vroce_dev` that
    /// outlives the returned value and every copy of it.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::vroce_dev) -> Option<Self> {
        // INVARIANT: the caller guarantees liveness of a non-NULL `ptr`.
        NonNull::new(ptr).map(Self)
    }

    fn as_ptr(self) -> *mut bindings::vroce_dev {
        self.0.as_ptr()
    }
}

/// A zeroed DMA-coherent buffer of the device's DMA device.
///
/// # Invariants
///
/// `va` and `dma` are the CPU and device addresses of a live allocation of
/// `size` bytes made by `vroce_core_dma_alloc()` for `dev`, owned by this
/// value. `va` is page aligned (a DMA-coherent allocation always is).
pub(crate) struct DmaBuf {
    dev: Dev,
    va: NonNull<u8>,
    dma: u64,
    size: usize,
}

impl DmaBuf {
    /// Allocates `size` bytes, `size` at least 1.
    pub(crate) fn alloc(dev: Dev, size: usize) -> Result<Self> {
        let mut dma: bindings::dma_addr_t = 0;
        // SAFETY: (U-4) `dev` is live by its type invariant and `dma` is a
        // valid place for the device address.
        let va = unsafe { bindings::vroce_core_dma_alloc(dev.as_ptr(), size, &mut dma) };
        let va = NonNull::new(va.cast::<u8>()).ok_or(ENOMEM)?;
        // INVARIANT: `va`/`dma` are the fresh allocation of `size` bytes.
        Ok(Self { dev, va, dma, size })
    }

    /// The device (DMA) address.
    pub(crate) fn dma(&self) -> u64 {
        self.dma
    }

    /// The size in bytes.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The CPU address, for C code that fills the buffer.
    pub(crate) fn va(&self) -> *mut u8 {
        self.va.as_ptr()
    }

    /// Entry `i` of the buffer as 64-bit words, read once from memory
    /// the device may be writing at the same time (the tables of a
    /// fast-register MR, which REG_MR work requests fill), or `None`
    /// past the end.
    pub(crate) fn read_entry(&self, i: usize) -> Option<u64> {
        if i >= self.size / 8 {
            return None;
        }
        // SAFETY: (U-5) by the type invariant `va` is valid for `size` bytes
        // and 8-byte aligned, and `i` is in bounds; a volatile read makes no
        // reference to memory the device may change.
        Some(unsafe { ptr::read_volatile(self.va.as_ptr().cast::<u64>().add(i)) })
    }

    /// Entries `start..start + out.len()` into `out`; 0 for those past the
    /// end. Like C's lookups (plain loads of `__le64` entries), a run in
    /// bounds is copied at once (not volatile), with no reference made to
    /// the memory, so no Rust reference to the buffer exists that a device
    /// write could invalidate. The copy may tear: an entry the device
    /// writes meanwhile (a fast-register table during a REG_MR) may read
    /// as neither its old nor its new value (safety-audit.rst G-18); a
    /// single entry is read with one volatile load.
    pub(crate) fn read_entries(&self, start: usize, out: &mut [u64]) {
        let len = self.size / 8;
        if let [one] = out {
            // One entry (a single-page find): no call to memcpy.
            *one = self.read_entry(start).unwrap_or(0);
            return;
        }
        match start.checked_add(out.len()) {
            Some(end) if end <= len => {
                // SAFETY: (U-6) by the type invariant `va` is valid for
                // `size` bytes and 8-byte aligned, and `start..end` is in
                // bounds; `out` is a distinct, writable slice of `out.len()`
                // entries; any bits are a `u64`.
                unsafe {
                    ptr::copy_nonoverlapping(
                        self.va.as_ptr().cast::<u64>().add(start),
                        out.as_mut_ptr(),
                        out.len(),
                    )
                };
            }
            _ => {
                for (i, o) in (start..).zip(out.iter_mut()) {
                    *o = self.read_entry(i).unwrap_or(0);
                }
            }
        }
    }

    /// Writes entry `i` once, for memory the device may be reading at the
    /// same time (a fast-register page list); `ENOMEM` past the end.
    pub(crate) fn write_entry(&mut self, i: usize, value: u64) -> Result {
        if i >= self.size / 8 {
            return Err(ENOMEM);
        }
        // SAFETY: (U-7) as in `read_entry()`; the unique borrow of `self`
        // keeps other CPU writers away.
        unsafe { ptr::write_volatile(self.va.as_ptr().cast::<u64>().add(i), value) };
        Ok(())
    }

    /// The buffer as 64-bit base-address table entries, for writing.
    ///
    /// Only while the device does not use the buffer: tables are built
    /// and linked before their root is given to the HCA. Memory the device
    /// may read or write meanwhile (fast-register page lists and tables)
    /// goes through [`DmaBuf::read_entry`] and [`DmaBuf::write_entry`].
    pub(crate) fn entries_mut(&mut self) -> &mut [u64] {
        // SAFETY: (U-8) by the type invariant `va` is valid for `size` bytes,
        // page (so 8-byte) aligned, and zero-initialised at allocation; any
        // bit pattern is a valid `u64`; the unique borrow of `self` makes
        // this the only CPU reference, and the device does not use the memory
        // while it lives (above).
        unsafe { core::slice::from_raw_parts_mut(self.va.as_ptr().cast::<u64>(), self.size / 8) }
    }
}

impl Drop for DmaBuf {
    fn drop(&mut self) {
        // SAFETY: (U-9) by the type invariant this value owns the allocation
        // `va`/`dma` of `size` bytes for the live `dev`; it is freed once.
        unsafe {
            bindings::vroce_core_dma_free(
                self.dev.as_ptr(),
                self.size,
                self.va.as_ptr().cast(),
                self.dma,
            )
        };
    }
}

/// A fixed-capacity array in memory from `vroce_core_zalloc()`.
///
/// # Invariants
///
/// `ptr` points to an allocation made by `vroce_core_zalloc()` for `dev`,
/// with room for `cap` values of `T` and aligned for `T`, owned by this
/// value; its first `len` (at most `cap`) slots hold initialised values.
pub(crate) struct CoreVec<T> {
    dev: Dev,
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
}

impl<T> CoreVec<T> {
    /// An empty array with room for `cap` values, `cap` at least 1.
    pub(crate) fn with_capacity(dev: Dev, cap: usize) -> Result<Self> {
        // kvzalloc() aligns to at least 8 bytes, enough for what we store.
        kernel::build_assert!(align_of::<T>() <= 8);
        let bytes = cap.checked_mul(size_of::<T>()).ok_or(ENOMEM)?;
        // SAFETY: (U-10) `dev` is live by its type invariant.
        let ptr = unsafe { bindings::vroce_core_zalloc(dev.as_ptr(), bytes) };
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or(ENOMEM)?;
        // INVARIANT: a fresh allocation of `cap` values, none initialised.
        Ok(Self {
            dev,
            ptr,
            len: 0,
            cap,
        })
    }

    /// Appends `value`; [`ENOSPC`] when the array is full.
    pub(crate) fn push(&mut self, value: T) -> Result {
        if self.len == self.cap {
            return Err(ENOSPC);
        }
        // SAFETY: (U-11) `len < cap`, so the slot is inside the allocation
        // and uninitialised.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        // INVARIANT: the slot just written is initialised.
        self.len += 1;
        Ok(())
    }
}

impl CoreVec<u64> {
    /// An array of `len` zeroes, `len` at least 1.
    pub(crate) fn zeroed(dev: Dev, len: usize) -> Result<Self> {
        let mut v = Self::with_capacity(dev, len)?;
        // INVARIANT: the allocation is zeroed and zero is a valid `u64`.
        v.len = len;
        Ok(v)
    }
}

impl<T> Deref for CoreVec<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: (U-12) by the type invariant the first `len` values are
        // initialised and aligned.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for CoreVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: (U-13) as in `deref()`, and `self` is borrowed uniquely.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for CoreVec<T> {
    fn drop(&mut self) {
        if needs_drop::<T>() {
            // Arrays of DMA pages can be millions long.
            for i in 0..self.len {
                // SAFETY: (U-14) slot `i < len` holds an initialised value,
                // dropped once here and never read again.
                unsafe { ptr::drop_in_place(self.ptr.as_ptr().add(i)) };
                maybe_resched(i as u64);
            }
        }
        // SAFETY: (U-15) by the type invariant this value owns the
        // allocation, made by `vroce_core_zalloc()` for the live `dev`; it is
        // freed once.
        unsafe { bindings::vroce_core_free(self.dev.as_ptr(), self.ptr.as_ptr().cast()) };
    }
}

/// One value in memory from `vroce_core_zalloc()`, handed to C as a raw
/// pointer.
///
/// # Invariants
///
/// `ptr` points to an initialised `T` in an allocation made by
/// `vroce_core_zalloc()` for `dev`, owned by this value.
pub(crate) struct CoreBox<T> {
    dev: Dev,
    ptr: NonNull<T>,
}

impl<T> CoreBox<T> {
    /// Moves `value` into a new allocation.
    pub(crate) fn new(dev: Dev, value: T) -> Result<Self> {
        kernel::build_assert!(align_of::<T>() <= 8);
        // SAFETY: (U-16) `dev` is live by its type invariant.
        let ptr = unsafe { bindings::vroce_core_zalloc(dev.as_ptr(), size_of::<T>()) };
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or(ENOMEM)?;
        // SAFETY: (U-17) a fresh allocation, large and aligned enough for a
        // `T`.
        unsafe { ptr.as_ptr().write(value) };
        // INVARIANT: `ptr` holds the initialised `value`.
        Ok(Self { dev, ptr })
    }

    /// The value's address, for C to use as a handle while this box owns
    /// it (derived from the allocation, not from a reference).
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Gives up ownership: the pointer goes to C, which gives it back to
    /// [`CoreBox::from_raw`] exactly once.
    pub(crate) fn into_raw(self) -> *mut T {
        ManuallyDrop::new(self).ptr.as_ptr()
    }

    /// Takes back ownership of a pointer from [`CoreBox::into_raw`].
    ///
    /// # Safety
    ///
    /// (U-18) `ptr` comes from [`CoreBox::into_raw`] on a box made for `dev`,
    /// and this is the only call taking it back.
    pub(crate) unsafe fn from_raw(dev: Dev, ptr: NonNull<T>) -> Self {
        // INVARIANT: the caller guarantees `ptr` is such an allocation, now
        // owned by nobody else.
        Self { dev, ptr }
    }
}

impl<T> Deref for CoreBox<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: (U-19) by the type invariant `ptr` holds an initialised
        // `T`.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T> DerefMut for CoreBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: (U-20) by the type invariant `ptr` holds an initialised `T`
        // owned by this value; the unique borrow of `self` makes this the
        // only reference made through it.
        unsafe { self.ptr.as_mut() }
    }
}

impl<T> Drop for CoreBox<T> {
    fn drop(&mut self) {
        // SAFETY: (U-21) by the type invariant `ptr` holds an initialised
        // `T`, owned by this value and dropped once here.
        unsafe { ptr::drop_in_place(self.ptr.as_ptr()) };
        // SAFETY: (U-22) the allocation was made by `vroce_core_zalloc()` for
        // the live `dev` and is freed once.
        unsafe { bindings::vroce_core_free(self.dev.as_ptr(), self.ptr.as_ptr().cast()) };
    }
}

/// User memory pinned by `vroce_core_umem_get()`.
///
/// # Invariants
///
/// `ptr` is a live `struct ib_umem` returned by `vroce_core_umem_get()` for
/// `dev`, owned by this value.
pub(crate) struct Umem {
    dev: Dev,
    ptr: NonNull<bindings::ib_umem>,
}

impl Umem {
    /// Pins `size` bytes of the calling process's memory from `addr` with
    /// `IB_ACCESS_*` flags `access`; errors of `ib_umem_get()` unchanged.
    pub(crate) fn get(dev: Dev, addr: usize, size: usize, access: i32) -> Result<Self> {
        // SAFETY: (U-23) `dev` is live by its type invariant; `ib_umem_get()`
        // checks the user range itself.
        let ptr = unsafe { bindings::vroce_core_umem_get(dev.as_ptr(), addr as _, size, access) };
        let ptr = NonNull::new(from_err_ptr(ptr)?).ok_or(EFAULT)?;
        // INVARIANT: a fresh, owned pin for `dev`.
        Ok(Self { dev, ptr })
    }

    /// The largest page size from `2^min_shift` to `2^max_shift` mapping
    /// the memory at `iova`, or 0 if none does.
    pub(crate) fn page_size(&self, min_shift: u32, max_shift: u32, iova: u64) -> u64 {
        // SAFETY: (U-24) `ptr` is a live umem by the type invariant.
        let pgsz = unsafe {
            bindings::vroce_core_umem_page_size(self.ptr.as_ptr(), min_shift, max_shift, iova)
        };
        pgsz as u64
    }

    /// How many pages of `pgsz` bytes cover the memory.
    pub(crate) fn block_count(&self, pgsz: u64) -> u64 {
        // SAFETY: (U-25) `ptr` is a live umem by the type invariant.
        unsafe { bindings::vroce_core_umem_block_count(self.ptr.as_ptr(), pgsz as _) }
    }

    /// Writes the DMA addresses of the memory's `pgsz` pages into `pages`;
    /// returns how many were written.
    pub(crate) fn dma_blocks(&self, pgsz: u64, pages: &mut [u64]) -> u64 {
        // SAFETY: (U-26) `ptr` is a live umem by the type invariant, and
        // `pages` is valid for writing `pages.len()` addresses.
        unsafe {
            bindings::vroce_core_umem_dma_blocks(
                self.ptr.as_ptr(),
                pgsz as _,
                pages.as_mut_ptr(),
                pages.len() as u64,
            )
        }
    }
}

impl Drop for Umem {
    fn drop(&mut self) {
        // SAFETY: (U-27) this value owns the live pin, released once here.
        unsafe { bindings::vroce_core_umem_release(self.dev.as_ptr(), self.ptr.as_ptr()) };
    }
}
