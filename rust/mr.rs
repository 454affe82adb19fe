// SPDX-License-Identifier: GPL-2.0

//! The MR lifecycle of the MR/MTR ABI: rights, the MR object with its MTR
//! and fast-register page list, and its states until the HCA lets go.
//!
//! The same rules as `c/abi/vroce_mr_obj.c`; the C-ABI shims are in
//! [`crate::mr_abi`]. No `unsafe` here: memory is [`CoreBox`] and
//! [`DmaBuf`], the tables an [`Mtr`], and dropping an [`MrObj`] frees all
//! three. Whether it may be dropped is the state's to say
//! ([`MrObj::may_free`]).

use crate::bindings;
use crate::mem::{CoreBox, Dev, DmaBuf};
use crate::mtr::{BufAttr, Mtr};
use kernel::error::{code::*, Error, Result};

/// -EOPNOTSUPP, which the kernel crate of 6.12 does not name.
fn eopnotsupp() -> Error {
    Error::from_errno(-(kernel::bindings::EOPNOTSUPP as i32))
}

const IB_LOCAL_WRITE: i32 = bindings::VROCE_IB_ACCESS_LOCAL_WRITE as i32;
const IB_REMOTE_WRITE: i32 = bindings::VROCE_IB_ACCESS_REMOTE_WRITE as i32;
const IB_REMOTE_READ: i32 = bindings::VROCE_IB_ACCESS_REMOTE_READ as i32;
const IB_REMOTE_ATOMIC: i32 = bindings::VROCE_IB_ACCESS_REMOTE_ATOMIC as i32;
const IB_MW_BIND: i32 = bindings::VROCE_IB_ACCESS_MW_BIND as i32;
const IB_ON_DEMAND: i32 = bindings::VROCE_IB_ACCESS_ON_DEMAND as i32;
const IB_OPTIONAL: i32 = bindings::VROCE_IB_ACCESS_OPTIONAL as i32;
const IB_REMOTE: i32 = IB_REMOTE_READ | IB_REMOTE_WRITE | IB_REMOTE_ATOMIC;
const IB_KNOWN: i32 = IB_LOCAL_WRITE | IB_REMOTE | IB_MW_BIND | IB_OPTIONAL;

/// Page size of fast-register MRs.
pub(crate) const FRMR_PAGE_SHIFT: u32 = bindings::VROCE_MR_FRMR_PAGE_SHIFT;
const BA_BYTES: u32 = bindings::VROCE_MTR_BA_BYTES;

/// What an MR is, as CREATE_MR is told.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MrType {
    /// All memory by bus address, no table.
    Dma,
    /// Pinned user pages behind an MTR.
    User,
    /// A table filled by REG_MR work requests from the page list.
    Frmr,
    /// On-demand paging: a sparse table, pages mapped as the HCA faults.
    Odp,
}

impl MrType {
    /// The ABI's `VROCE_MR_TYPE_*`.
    pub(crate) fn abi(self) -> u32 {
        match self {
            MrType::Dma => bindings::VROCE_MR_TYPE_DMA,
            MrType::User => bindings::VROCE_MR_TYPE_USER,
            MrType::Frmr => bindings::VROCE_MR_TYPE_FRMR,
            MrType::Odp => bindings::VROCE_MR_TYPE_ODP,
        }
    }
}

/// Where an MR stands with the HCA.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Created, not entered in the HCA.
    New,
    /// Entered under `key`/`handle`.
    Live { key: u32, handle: u32 },
    /// DESTROY_MR was not confirmed: the HCA may still hold it.
    Zombie { key: u32, handle: u32 },
    /// CREATE_MR timed out: the HCA may hold it under an unknown key.
    Lost,
    /// The HCA let go.
    Gone,
}

impl State {
    /// The ABI's `VROCE_MR_STATE_*`.
    pub(crate) fn abi(self) -> u32 {
        match self {
            State::New => bindings::VROCE_MR_STATE_NEW,
            State::Live { .. } => bindings::VROCE_MR_STATE_LIVE,
            State::Zombie { .. } => bindings::VROCE_MR_STATE_ZOMBIE,
            State::Lost => bindings::VROCE_MR_STATE_LOST,
            State::Gone => bindings::VROCE_MR_STATE_GONE,
        }
    }

    // The lifecycle the MR and window objects share (bindings/vroce_abi.h;
    // c/abi/vroce_obj_life.h in C).

    /// The create command succeeded: NEW -> LIVE.
    pub(crate) fn entered(&mut self, key: u32, handle: u32) -> Result {
        if *self != State::New {
            return Err(EINVAL);
        }
        *self = State::Live { key, handle };
        Ok(())
    }

    /// The create command failed with `err` (a negative errno): true when
    /// the object must be kept (LOST now: a timeout with `may_hold`, the
    /// HCA would hold an entry for it; or not NEW: the HCA may hold it).
    pub(crate) fn create_failed(&mut self, err: i32, may_hold: bool) -> bool {
        let timedout = -(kernel::bindings::ETIMEDOUT as i32);
        if *self != State::New {
            return true;
        }
        if err == timedout && may_hold {
            *self = State::Lost;
            return true;
        }
        false
    }

    /// The destroy command was not confirmed: LIVE -> ZOMBIE.
    pub(crate) fn parked(&mut self) -> Result {
        match *self {
            State::Live { key, handle } => {
                *self = State::Zombie { key, handle };
                Ok(())
            }
            _ => Err(EINVAL),
        }
    }

    /// The HCA let go (or was reset): -> GONE.
    pub(crate) fn released(&mut self, hca_reset: bool) -> Result {
        match *self {
            State::Live { .. } | State::Zombie { .. } => {}
            State::Lost if hca_reset => {}
            _ => return Err(EINVAL),
        }
        *self = State::Gone;
        Ok(())
    }

    /// Whether the HCA holds nothing of the object: it may be freed.
    pub(crate) fn may_free(self) -> bool {
        matches!(self, State::New | State::Gone)
    }
}

/// IB access flags as the HCA's rights (`vroce_mr_rights()`).
pub(crate) fn rights(access: i32) -> Result<u32> {
    if access & !IB_KNOWN != 0 {
        return Err(eopnotsupp());
    }
    // Remote write or atomic without local write is not a valid MR.
    if access & (IB_REMOTE_WRITE | IB_REMOTE_ATOMIC) != 0 && access & IB_LOCAL_WRITE == 0 {
        return Err(EINVAL);
    }
    let mut r = 0;
    for (ib, hca) in [
        (IB_LOCAL_WRITE, bindings::VROCE_MR_RIGHT_LOCAL_WRITE),
        (IB_REMOTE_WRITE, bindings::VROCE_MR_RIGHT_REMOTE_WRITE),
        (IB_REMOTE_READ, bindings::VROCE_MR_RIGHT_REMOTE_READ),
        (IB_REMOTE_ATOMIC, bindings::VROCE_MR_RIGHT_REMOTE_ATOMIC),
        (IB_MW_BIND, bindings::VROCE_MR_RIGHT_MW_BIND),
    ] {
        if access & ib != 0 {
            r |= hca;
        }
    }
    Ok(r)
}

/// A one-region buffer of `size` bytes in `page_shift` pages.
fn buf_attr(size: u64, page_shift: u32) -> BufAttr {
    let mut attr = BufAttr {
        region_count: 1,
        page_shift,
        ..Default::default()
    };
    attr.region[0].size = size;
    attr
}

/// The user memory of [`MrObj::user`].
pub(crate) struct UserMem {
    /// Address in the owner's address space.
    pub(crate) start: u64,
    /// Bytes.
    pub(crate) length: u64,
    /// First address as the HCA sees it.
    pub(crate) iova: u64,
    /// IB access flags.
    pub(crate) access: i32,
    /// The device's largest MR.
    pub(crate) max_length: u64,
}

/// Pages of an on-demand paging MR (`struct vroce_mr_odp_range`).
#[derive(Default)]
pub(crate) struct OdpRange {
    /// Index of the first page among the MR's pages.
    pub(crate) first: u64,
    /// Pages (0: none).
    pub(crate) count: u64,
    /// User address of page `first`.
    pub(crate) user_addr: u64,
    /// Bytes the pages span.
    pub(crate) user_len: u64,
}

/// The fast-register page list: what `map_mr_sg` collects.
///
/// # Invariants
///
/// `npages <= max` and `max * 8 <= buf.size()`.
struct PageList {
    buf: DmaBuf,
    npages: u32,
    max: u32,
}

/// An MR's lifecycle state (`struct vroce_mr_obj`).
pub(crate) struct MrObj {
    ty: MrType,
    state: State,
    rights: u32,
    iova: u64,
    length: u64,
    // Dropped before the page list and the object: the field order is the
    // drop order, as in C.
    mtr: Option<CoreBox<Mtr>>,
    pbl: Option<PageList>,
    /// User address of the first page (on-demand paging).
    ustart: u64,
}

/// What the driver may read of an MR object (`struct vroce_mr_info`), and
/// what CREATE_MR is told (`struct vroce_mr_desc`, with the PD).
pub(crate) struct Info {
    pub(crate) ty: MrType,
    pub(crate) rights: u32,
    pub(crate) state: State,
    pub(crate) iova: u64,
    pub(crate) length: u64,
    pub(crate) mtr: Option<*mut Mtr>,
    pub(crate) pbl_dma: u64,
    pub(crate) npages: u32,
    pub(crate) max_pages: u32,
}

impl MrObj {
    fn new(ty: MrType, rights: u32, iova: u64, length: u64) -> Self {
        MrObj {
            ty,
            state: State::New,
            rights,
            iova,
            length,
            mtr: None,
            pbl: None,
            ustart: 0,
        }
    }

    /// An MR over all memory by bus address.
    pub(crate) fn dma(dev: Dev, access: i32, allow_remote: bool) -> Result<CoreBox<MrObj>> {
        let r = rights(access)?;
        if access & IB_REMOTE != 0 && !allow_remote {
            return Err(eopnotsupp());
        }
        // The HCA binds no window to a DMA MR.
        if access & IB_MW_BIND != 0 {
            return Err(eopnotsupp());
        }
        CoreBox::new(dev, MrObj::new(MrType::Dma, r, 0, u64::MAX))
    }

    /// An MR over pinned user memory.
    pub(crate) fn user(dev: Dev, mem: &UserMem) -> Result<CoreBox<MrObj>> {
        if mem.length == 0 || mem.length > mem.max_length {
            return Err(EINVAL);
        }
        mem.iova.checked_add(mem.length - 1).ok_or(EINVAL)?;
        let r = rights(mem.access)?;
        let mut attr = buf_attr(mem.length, bindings::VROCE_MTR_MAX_PAGE_SHIFT);
        attr.user_access = mem.access;
        attr.adaptive = true;
        attr.iova = mem.iova;
        let start = usize::try_from(mem.start).map_err(|_| EINVAL)?;
        // The object first, then its tables: the allocations of C's
        // implementation in the same order, for the fault-injection cases.
        let mut obj = CoreBox::new(dev, MrObj::new(MrType::User, r, mem.iova, mem.length))?;
        obj.mtr = Some(Mtr::create(
            dev,
            &attr,
            kernel::page::PAGE_SHIFT as u32,
            Some(start),
        )?);
        Ok(obj)
    }

    /// A fast-register MR: a page list of `max_pages` and an empty table.
    pub(crate) fn frmr(dev: Dev, max_pages: u32, limit: u32) -> Result<CoreBox<MrObj>> {
        if max_pages == 0 || max_pages > limit {
            return Err(EINVAL);
        }
        // The object, the page list, the tables: C's order.
        let mut obj = CoreBox::new(dev, MrObj::new(MrType::Frmr, 0, 0, 0))?;
        let buf = DmaBuf::alloc(dev, max_pages as usize * BA_BYTES as usize)?;
        // INVARIANT: an empty list of `max_pages` entries of 8 bytes.
        obj.pbl = Some(PageList {
            buf,
            npages: 0,
            max: max_pages,
        });
        // Never direct (hop 0): the HCA learns the table's root now, and a
        // direct MTR's root is its first page, known only once mapped.
        let mut attr = buf_attr(u64::from(max_pages) << FRMR_PAGE_SHIFT, FRMR_PAGE_SHIFT);
        attr.mtt_only = true;
        attr.region[0].hopnum = if max_pages <= 4096 / BA_BYTES { 1 } else { 2 };
        obj.mtr = Some(Mtr::create(dev, &attr, FRMR_PAGE_SHIFT, None)?);
        Ok(obj)
    }

    /// An on-demand paging MR: a sparse table of CPU pages over the pages
    /// the memory spans, none mapped.
    pub(crate) fn odp(dev: Dev, mem: &UserMem) -> Result<CoreBox<MrObj>> {
        let page_size = kernel::page::PAGE_SIZE as u64;
        if mem.length == 0 || mem.length > mem.max_length {
            return Err(EINVAL);
        }
        mem.iova.checked_add(mem.length - 1).ok_or(EINVAL)?;
        let end = mem.start.checked_add(mem.length - 1).ok_or(EINVAL)?;
        if end > u64::MAX - page_size
            || (mem.start ^ mem.iova) & (page_size - 1) != 0
            || mem.access & IB_ON_DEMAND == 0
        {
            return Err(EINVAL);
        }
        let r = rights(mem.access & !IB_ON_DEMAND)?;
        let mut obj = CoreBox::new(dev, MrObj::new(MrType::Odp, r, mem.iova, mem.length))?;
        obj.ustart = mem.start & !(page_size - 1);
        let uend = (end + 1).next_multiple_of(page_size);
        let shift = kernel::page::PAGE_SHIFT as u32;
        let mut attr = buf_attr(uend - obj.ustart, shift);
        attr.mtt_only = true;
        attr.adaptive = true;
        attr.sparse = true;
        obj.mtr = Some(Mtr::create(dev, &attr, shift, None)?);
        Ok(obj)
    }

    /// Pages `first..end` as a range.
    fn odp_span(&self, first: u64, end: u64) -> OdpRange {
        let shift = kernel::page::PAGE_SHIFT as u32;
        OdpRange {
            first,
            count: end - first,
            user_addr: self.ustart + (first << shift),
            user_len: (end - first) << shift,
        }
    }

    /// The pages to map for a fault at `iova` of `len` bytes, widened to
    /// the fault window when `ahead` (`vroce_mr_obj_odp_fault()`).
    pub(crate) fn odp_fault(&self, iova: u64, len: u64, ahead: bool) -> Result<OdpRange> {
        let shift = kernel::page::PAGE_SHIFT as u32;
        let page_size = 1u64 << shift;
        let win = if ahead {
            u64::from(bindings::VROCE_MR_ODP_FAULT_PAGES)
        } else {
            1
        };
        if self.ty != MrType::Odp
            || len == 0
            || iova < self.iova
            || iova - self.iova >= self.length
            || len > self.length - (iova - self.iova)
        {
            return Err(EINVAL);
        }
        let mtr = self.mtr.as_ref().ok_or(EINVAL)?;
        // Byte offset from the start of the MR's first page.
        let off = (self.iova & (page_size - 1)) + (iova - self.iova);
        let first = (off >> shift) / win * win;
        let end = (((off + len - 1) >> shift) + 1).next_multiple_of(win);
        Ok(self.odp_span(first, end.min(mtr.page_count())))
    }

    /// Whether `range` is a non-empty range of this on-demand paging MR's
    /// pages.
    pub(crate) fn odp_check(&self, range: &OdpRange) -> Result {
        let pages = self.mtr.as_ref().ok_or(EINVAL)?.page_count();
        if self.ty != MrType::Odp
            || range.count == 0
            || range.first >= pages
            || range.count > pages - range.first
        {
            return Err(EINVAL);
        }
        Ok(())
    }

    /// Maps the pages of `range` (`vroce_mr_obj_odp_map()`).
    pub(crate) fn odp_map(&mut self, range: &OdpRange, pages: &[u64]) -> Result {
        if self.ty != MrType::Odp || range.count == 0 {
            return Err(EINVAL);
        }
        let mtr = self.mtr.as_mut().ok_or(EINVAL)?;
        mtr.map_range(range.first, pages)
    }

    /// Unmaps the pages that meet user addresses `start..end`; returns
    /// them and how many were mapped (`vroce_mr_obj_odp_invalidate()`).
    pub(crate) fn odp_invalidate(&mut self, start: u64, end: u64) -> Result<(OdpRange, u64)> {
        let shift = kernel::page::PAGE_SHIFT as u32;
        if self.ty != MrType::Odp || end <= start {
            return Err(EINVAL);
        }
        let ustart = self.ustart;
        let pages = self.mtr.as_ref().ok_or(EINVAL)?.page_count();
        let uend = ustart + (pages << shift);
        if end <= ustart || start >= uend {
            return Ok((OdpRange::default(), 0));
        }
        let first = (start.max(ustart) - ustart) >> shift;
        let last = (end.min(uend) - 1 - ustart) >> shift;
        let range = self.odp_span(first, last + 1);
        let mtr = self.mtr.as_mut().ok_or(EINVAL)?;
        let was = mtr.unmap_range(range.first, range.count)?;
        Ok((range, was))
    }

    /// What CREATE_MR is to be told; only before it.
    pub(crate) fn describe(&self) -> Result<Info> {
        if self.state != State::New {
            return Err(EINVAL);
        }
        Ok(self.info())
    }

    /// The MTR's handle for C: the box's own pointer, not one derived from
    /// a reference (C passes it to MTR functions that read it).
    fn mtr_ptr(&self) -> Option<*mut Mtr> {
        self.mtr.as_ref().map(CoreBox::as_ptr)
    }

    /// CREATE_MR succeeded: NEW -> LIVE.
    pub(crate) fn registered(&mut self, key: u32, handle: u32) -> Result {
        self.state.entered(key, handle)
    }

    /// CREATE_MR failed with `err` (a negative errno): true when the MR
    /// must be kept (it is now LOST until the HCA is reset, or it was not
    /// NEW: the HCA may hold it), false when it may be freed. A DMA MR has
    /// no tables the HCA could walk.
    pub(crate) fn create_failed(&mut self, err: i32) -> bool {
        let may_hold = self.mtr.is_some();
        self.state.create_failed(err, may_hold)
    }

    /// DESTROY_MR was not confirmed: LIVE -> ZOMBIE.
    pub(crate) fn parked(&mut self) -> Result {
        self.state.parked()
    }

    /// The HCA let go (or was reset): -> GONE.
    pub(crate) fn released(&mut self, hca_reset: bool) -> Result {
        self.state.released(hca_reset)
    }

    /// Whether the HCA holds nothing of the MR: it may be freed.
    pub(crate) fn may_free(&self) -> bool {
        self.state.may_free()
    }

    /// The object as the driver may read it.
    pub(crate) fn info(&self) -> Info {
        let (pbl_dma, npages, max_pages) = self
            .pbl
            .as_ref()
            .map_or((0, 0, 0), |p| (p.buf.dma(), p.npages, p.max));
        Info {
            ty: self.ty,
            rights: self.rights,
            state: self.state,
            iova: self.iova,
            length: self.length,
            mtr: self.mtr_ptr(),
            pbl_dma,
            npages,
            max_pages,
        }
    }

    fn page_list(&mut self) -> Result<&mut PageList> {
        self.pbl.as_mut().ok_or(EINVAL)
    }

    /// Empties the page list (map_mr_sg starts here).
    pub(crate) fn pages_reset(&mut self) -> Result {
        self.page_list()?.npages = 0;
        Ok(())
    }

    /// Appends a page to the list.
    pub(crate) fn page_add(&mut self, dma: u64) -> Result {
        let list = self.page_list()?;
        if dma & ((1u64 << FRMR_PAGE_SHIFT) - 1) != 0 {
            return Err(EINVAL);
        }
        if list.npages == list.max {
            return Err(ENOMEM);
        }
        // The HCA reads the list when a REG_MR executes: one write each.
        list.buf.write_entry(list.npages as usize, dma.to_le())?;
        list.npages += 1;
        Ok(())
    }

    /// Entry `index` of the page list.
    pub(crate) fn page(&self, index: u32) -> Result<u64> {
        let list = self.pbl.as_ref().ok_or(EINVAL)?;
        if index >= list.npages {
            return Err(EINVAL);
        }
        let entry = list.buf.read_entry(index as usize).ok_or(EINVAL)?;
        Ok(u64::from_le(entry))
    }
}
