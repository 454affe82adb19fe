// SPDX-License-Identifier: GPL-2.0

//! The MTR itself: layout, BA tables, buffer and lookups.
//!
//! What the HCA walks, with unit = BA table (BT) page size / 8 entries (see
//! `Documentation/mtr.rst`):
//! - a direct MTR (every region hop 0) has no tables: the root BA is the
//!   first page of a contiguous buffer;
//! - otherwise one root BT page is shared by all regions, each region's
//!   root entries following the previous region's: one entry for hop 0
//!   (the region's first page), one per page for hop 1, and for hop 2 and
//!   3 one per bottom (or middle) BT page;
//! - entries are 64-bit little-endian DMA addresses; unused ones are 0.

use crate::bindings;
use crate::mem::{dma_wmb, fill_entries, maybe_resched, CoreBox, CoreVec, Dev, DmaBuf, Umem};
use kernel::error::{code::*, Error, Result};

/// Regions per MTR.
pub(crate) const MAX_REGIONS: usize = bindings::VROCE_MTR_MAX_REGIONS as usize;
const MAX_HOP: u32 = bindings::VROCE_MTR_MAX_HOP;
const MIN_PAGE_SHIFT: u32 = bindings::VROCE_MTR_MIN_PAGE_SHIFT;
const MAX_PAGE_SHIFT: u32 = bindings::VROCE_MTR_MAX_PAGE_SHIFT;
const MAX_BA_PAGE_SHIFT: u32 = bindings::VROCE_MTR_MAX_BA_PAGE_SHIFT;
const MAX_PAGES: u64 = bindings::VROCE_MTR_MAX_PAGES as u64; // bindgen: u32
/// log2 of the bytes of one BA table entry.
const BA_BYTES_SHIFT: u32 = bindings::VROCE_MTR_BA_BYTES.trailing_zeros();

/// `ENOBUFS`, which the 6.12 `kernel` crate has no name for.
fn enobufs() -> Error {
    Error::from_errno(-(kernel::uapi::ENOBUFS as i32))
}

/// Table entries per BT page, as a shift.
fn unit_shift(ba_pg_shift: u32) -> u32 {
    ba_pg_shift - BA_BYTES_SHIFT
}

/// `ceil(n / 2^shift)`.
fn div_round_up_shift(n: u64, shift: u32) -> u64 {
    (n >> shift) + u64::from(n & ((1u64 << shift) - 1) != 0)
}

/// Root entries a region of `count` pages behind `hop` levels needs.
fn root_entries(count: u64, hop: u32, ushift: u32) -> u64 {
    match hop {
        0 => 1,
        1 => count,
        _ => div_round_up_shift(count, ushift * (hop - 1)),
    }
}

/// Whether `pages` follow each other in DMA address space.
fn contiguous(pages: &[u64], shift: u32) -> bool {
    let first = pages.first().copied().unwrap_or(0);
    pages
        .iter()
        .zip(0u64..)
        .all(|(&p, i)| p == first.wrapping_add(i << shift))
}

/// Copies page addresses into table entries; returns them OR-ed together.
fn fill(dst: &mut [u64], src: &[u64]) -> u64 {
    fill_entries(dst, src)
}

/// The entries of `table` from `from` on (none past its end).
fn tail(table: &mut [u64], from: u64) -> &mut [u64] {
    table.get_mut(from as usize..).unwrap_or(&mut [])
}

/// Points table entries at BT pages.
fn link(dst: &mut [u64], bts: &[DmaBuf]) {
    for (d, bt) in dst.iter_mut().zip(bts) {
        *d = bt.dma().to_le();
    }
}

/// Links `bt`, just built (zeroed), at entry `i` of `table`: its contents
/// reach the device before the entry that leads there.
fn publish(table: &mut DmaBuf, i: usize, bt: &DmaBuf) -> Result {
    dma_wmb();
    table.write_entry(i, bt.dma().to_le())
}

/// `nr` BT pages of `size` bytes.
fn alloc_bt_array(dev: Dev, nr: u64, size: usize) -> Result<CoreVec<DmaBuf>> {
    let mut bts = CoreVec::with_capacity(dev, usize::try_from(nr).map_err(|_| ENOMEM)?)?;
    for i in 0..nr {
        bts.push(DmaBuf::alloc(dev, size)?)?;
        maybe_resched(i);
    }
    Ok(bts)
}

/// The byte size of `n` pages of `2^shift` bytes.
fn pages_to_bytes(n: u64, shift: u32) -> Result<usize> {
    usize::try_from(n << shift).map_err(|_| ENOMEM)
}

/// One region as built; hop 3 has middle and bottom BT pages, hop 2 only
/// bottom ones.
#[derive(Default)]
struct Region {
    offset: u64,
    count: u64,
    hopnum: u32,
    root_index: u64,
    mid: Option<CoreVec<DmaBuf>>,
    btm: Option<CoreVec<DmaBuf>>,
    /// A sparse MTR's middle and bottom BT pages, each built when a page
    /// under it is first mapped (`None` until then).
    sparse_mid: Option<CoreVec<Option<DmaBuf>>>,
    sparse_btm: Option<CoreVec<Option<DmaBuf>>>,
}

/// A memory translate region.
///
/// Fields drop in order: the tables, then the buffer, then the pin on user
/// memory, as `vroce_mtr_destroy()` documents.
pub(crate) struct Mtr {
    regions: [Region; MAX_REGIONS],
    root: Option<DmaBuf>,
    /// The kernel buffer: one chunk when direct, one per hop-0 region and
    /// one per page elsewhere, in buffer order.
    chunks: Option<CoreVec<DmaBuf>>,
    umem: Option<Umem>,
    dev: Dev,
    region_count: usize,
    buf_pg_shift: u32,
    ba_pg_shift: u32,
    page_count: u64,
    mapped: u64,
    is_direct: bool,
    mtt_only: bool,
    /// One region whose tables below the root are built as pages are
    /// mapped ([`Mtr::map_range`]); no [`Mtr::find_leaf`] tables.
    sparse: bool,
    root_ba: u64,
    /// For [`Mtr::find_leaf`], the tables holding the first region's page
    /// entries: the root (hop 1) or its bottom tables (hop 2 or 3), where
    /// page `i` is entry `i & leaf_mask` of table `i >> leaf_shift`, for
    /// `i` below `leaf_pages` (0: no such tables); `leaf_limit` is the
    /// smaller of `leaf_pages` and the mapped count.
    leaf_root: bool,
    leaf_shift: u32,
    leaf_mask: u64,
    leaf_pages: u64,
    leaf_limit: u64,
}

/// One region of a buffer to build (`struct vroce_buf_region_attr`).
#[derive(Clone, Copy, Default)]
pub(crate) struct RegionAttr {
    /// Bytes, at least 1.
    pub(crate) size: u64,
    /// Levels of tables in front of it; ignored when adaptive.
    pub(crate) hopnum: u32,
}

/// What an MTR is asked to build (`struct vroce_buf_attr`); [`Mtr::create`]
/// checks it.
#[derive(Clone, Copy, Default)]
pub(crate) struct BufAttr {
    /// The regions, in buffer order; the first `region_count` are used.
    pub(crate) region: [RegionAttr; MAX_REGIONS],
    /// 1 to [`MAX_REGIONS`].
    pub(crate) region_count: u32,
    /// Buffer page shift (the largest for an adaptive user buffer).
    pub(crate) page_shift: u32,
    /// IB access flags a user buffer is pinned with.
    pub(crate) user_access: i32,
    /// Tables only, pages supplied later.
    pub(crate) mtt_only: bool,
    /// Hop numbers (and a user buffer's page size) chosen here.
    pub(crate) adaptive: bool,
    /// The HCA's address of the start of a user buffer.
    pub(crate) iova: u64,
    /// Table-only, one region with tables, built as pages are mapped.
    pub(crate) sparse: bool,
}

/// The layout of one region, as built (`struct vroce_mtr_region`).
pub(crate) struct RegionLayout {
    /// Index of its first page among all the MTR's pages.
    pub(crate) offset: u64,
    /// Its pages.
    pub(crate) count: u64,
    /// Levels of tables in front of it.
    pub(crate) hopnum: u32,
}

fn check_attr(attr: &BufAttr, ba_page_shift: u32, user: bool) -> Result {
    let n = attr.region_count as usize;
    if n == 0 || n > MAX_REGIONS {
        return Err(EINVAL);
    }
    if !(MIN_PAGE_SHIFT..=MAX_PAGE_SHIFT).contains(&attr.page_shift)
        || !(MIN_PAGE_SHIFT..=MAX_BA_PAGE_SHIFT).contains(&ba_page_shift)
        || (attr.mtt_only && user)
    {
        return Err(EINVAL);
    }
    // Sparse: one table-only region with tables (hop 1 or more).
    if attr.sparse && (!attr.mtt_only || n != 1 || (!attr.adaptive && attr.region[0].hopnum == 0)) {
        return Err(EINVAL);
    }
    let mut pages = 0u64;
    for r in &attr.region[..n] {
        // Bounded first, so that neither rounding nor the sum wraps.
        if r.size == 0 || r.hopnum > MAX_HOP || r.size > MAX_PAGES << attr.page_shift {
            return Err(EINVAL);
        }
        pages += div_round_up_shift(r.size, attr.page_shift);
    }
    if pages > MAX_PAGES {
        return Err(EINVAL);
    }
    Ok(())
}

impl Mtr {
    /// Builds an MTR for `attr`; `user` is the start of a user buffer to
    /// pin, `None` for a kernel or table-only buffer.
    pub(crate) fn create(
        dev: Dev,
        attr: &BufAttr,
        ba_page_shift: u32,
        user: Option<usize>,
    ) -> Result<CoreBox<Mtr>> {
        check_attr(attr, ba_page_shift, user.is_some())?;

        let mut mtr = Mtr {
            regions: Default::default(),
            root: None,
            chunks: None,
            umem: None,
            dev,
            region_count: attr.region_count as usize,
            buf_pg_shift: attr.page_shift,
            ba_pg_shift: ba_page_shift,
            page_count: 0,
            mapped: 0,
            is_direct: true,
            mtt_only: attr.mtt_only,
            sparse: attr.sparse,
            root_ba: 0,
            leaf_root: false,
            leaf_shift: 0,
            leaf_mask: 0,
            leaf_pages: 0,
            leaf_limit: 0,
        };

        if let Some(addr) = user {
            let size = attr.region[..mtr.region_count]
                .iter()
                .map(|r| r.size)
                .sum::<u64>();
            let size = usize::try_from(size).map_err(|_| EINVAL)?;
            let umem = Umem::get(dev, addr, size, attr.user_access)?;
            mtr.user_layout(&umem, attr)?;
            mtr.umem = Some(umem);
        } else {
            for (rgn, r) in mtr.regions.iter_mut().zip(&attr.region[..mtr.region_count]) {
                rgn.count = div_round_up_shift(r.size, attr.page_shift);
            }
        }

        mtr.set_hops(attr, ba_page_shift)?;
        if user.is_none() && !mtr.mtt_only {
            mtr.alloc_kbuf()?;
        }
        if !mtr.is_direct {
            mtr.alloc_tables()?;
        }
        if !mtr.mtt_only {
            mtr.map_buf()?;
        }
        CoreBox::new(dev, mtr)
    }

    /// A user buffer's page size is the largest one, up to the one asked
    /// for (exactly that one unless adaptive), at which the pinned memory
    /// and the iova agree; its page count comes from the pinned memory.
    fn user_layout(&mut self, umem: &Umem, attr: &BufAttr) -> Result {
        let pgsz = umem.page_size(MIN_PAGE_SHIFT, attr.page_shift, attr.iova);
        if pgsz == 0 || (!attr.adaptive && pgsz != 1u64 << attr.page_shift) {
            return Err(EINVAL);
        }
        self.buf_pg_shift = pgsz.trailing_zeros();

        let blocks = umem.block_count(pgsz);
        if blocks > MAX_PAGES {
            return Err(EINVAL);
        }
        if self.region_count == 1 {
            self.regions[0].count = blocks;
            return Ok(());
        }

        // Several regions: each a whole number of pages, together the buffer.
        let mut sum = 0;
        for (rgn, r) in self
            .regions
            .iter_mut()
            .zip(&attr.region[..self.region_count])
        {
            if r.size & (pgsz - 1) != 0 {
                return Err(EINVAL);
            }
            rgn.count = r.size >> self.buf_pg_shift;
            sum += rgn.count;
        }
        if sum != blocks {
            return Err(EINVAL);
        }
        Ok(())
    }

    /// Offsets, hop numbers and the BT page size. Adaptive regions get the
    /// smallest hop whose tables, at the asked-for BT page size, cover them.
    /// The BT page size is then the smallest from `ba_page_shift` up whose
    /// one root page holds every region's root entries.
    fn set_hops(&mut self, attr: &BufAttr, ba_page_shift: u32) -> Result {
        let ushift = unit_shift(ba_page_shift);
        let mut offset = 0;

        self.is_direct = true;
        for (rgn, r) in self.regions[..self.region_count]
            .iter_mut()
            .zip(&attr.region)
        {
            let mut hop = r.hopnum;
            if attr.adaptive {
                hop = u32::from(attr.sparse);
                while hop < MAX_HOP && rgn.count > 1u64 << (ushift * hop) {
                    hop += 1;
                }
            }
            rgn.hopnum = hop;
            rgn.offset = offset;
            offset += rgn.count;
            if hop != 0 {
                self.is_direct = false;
            }
        }
        self.page_count = offset;

        self.ba_pg_shift = ba_page_shift;
        if self.is_direct {
            return Ok(());
        }
        for shift in ba_page_shift..=MAX_BA_PAGE_SHIFT {
            let ushift = unit_shift(shift);
            let mut need = 0;
            for rgn in &mut self.regions[..self.region_count] {
                rgn.root_index = need;
                need += root_entries(rgn.count, rgn.hopnum, ushift);
            }
            if need <= 1u64 << ushift {
                self.ba_pg_shift = shift;
                return Ok(());
            }
        }
        Err(ERANGE)
    }

    /// The root BT page and every region's middle and bottom BT pages,
    /// linked; a failure leaves what was built for `Drop`.
    fn alloc_tables(&mut self) -> Result {
        let dev = self.dev;
        let bt_size = 1usize << self.ba_pg_shift;
        let ushift = unit_shift(self.ba_pg_shift);
        let unit = 1usize << ushift;

        let root = self.root.insert(DmaBuf::alloc(dev, bt_size)?);
        self.root_ba = root.dma();
        if self.sparse {
            return self.alloc_sparse();
        }
        let first = &self.regions[0];
        if first.hopnum >= 1 {
            // Hop 1: the first region's entries from root index 0.
            self.leaf_root = first.hopnum == 1;
            self.leaf_shift = ushift;
            self.leaf_mask = if self.leaf_root {
                u64::MAX
            } else {
                unit as u64 - 1
            };
            self.leaf_pages = first.count;
        }
        for rgn in &mut self.regions[..self.region_count] {
            if rgn.hopnum < 2 {
                continue;
            }
            let btm = rgn.btm.insert(alloc_bt_array(
                dev,
                div_round_up_shift(rgn.count, ushift),
                bt_size,
            )?);
            if rgn.hopnum == 2 {
                link(tail(root.entries_mut(), rgn.root_index), btm);
                continue;
            }
            let mid = rgn.mid.insert(alloc_bt_array(
                dev,
                div_round_up_shift(rgn.count, 2 * ushift),
                bt_size,
            )?);
            for (m, b) in mid.iter_mut().zip(btm.chunks(unit)) {
                link(m.entries_mut(), b);
            }
            link(tail(root.entries_mut(), rgn.root_index), mid);
        }
        Ok(())
    }

    /// A sparse MTR's one region: for hop 2 and 3 room to note the bottom
    /// and middle tables, which [`Mtr::map_range`] builds.
    fn alloc_sparse(&mut self) -> Result {
        let dev = self.dev;
        let ushift = unit_shift(self.ba_pg_shift);
        let [rgn, ..] = &mut self.regions;
        let none = |nr: u64| -> Result<CoreVec<Option<DmaBuf>>> {
            let mut v = CoreVec::with_capacity(dev, usize::try_from(nr).map_err(|_| ENOMEM)?)?;
            for _ in 0..nr {
                v.push(None)?;
            }
            Ok(v)
        };
        if rgn.hopnum >= 2 {
            rgn.sparse_btm = Some(none(div_round_up_shift(rgn.count, ushift))?);
        }
        if rgn.hopnum == 3 {
            rgn.sparse_mid = Some(none(div_round_up_shift(rgn.count, 2 * ushift))?);
        }
        Ok(())
    }

    /// The table holding page `idx`'s entry in a sparse MTR, and the
    /// entry's index there; for hop 2 and 3 the tables missing above it
    /// are built when `build` (zeroed, then linked), else `None` when one
    /// is missing.
    fn sparse_table(&mut self, idx: u64, build: bool) -> Result<Option<(&mut DmaBuf, usize)>> {
        let dev = self.dev;
        let size = 1usize << self.ba_pg_shift;
        let ushift = unit_shift(self.ba_pg_shift);
        let mask = (1u64 << ushift) - 1;
        let Some(root) = self.root.as_mut() else {
            return Err(EINVAL);
        };
        let [rgn, ..] = &mut self.regions;
        let at = |i: u64| usize::try_from(i).map_err(|_| EINVAL);
        if rgn.hopnum == 1 {
            return Ok(Some((root, at(rgn.root_index + idx)?)));
        }
        let b = idx >> ushift;
        let (up, up_index) = if rgn.hopnum == 3 {
            let m = b >> ushift;
            let slot = rgn
                .sparse_mid
                .as_mut()
                .and_then(|v| v.get_mut(m as usize))
                .ok_or(EINVAL)?;
            if slot.is_none() {
                if !build {
                    return Ok(None);
                }
                let bt = DmaBuf::alloc(dev, size)?;
                publish(root, at(rgn.root_index + m)?, &bt)?;
                *slot = Some(bt);
            }
            (slot.as_mut().ok_or(EINVAL)?, at(b & mask)?)
        } else {
            (root, at(rgn.root_index + b)?)
        };
        let slot = rgn
            .sparse_btm
            .as_mut()
            .and_then(|v| v.get_mut(b as usize))
            .ok_or(EINVAL)?;
        if slot.is_none() {
            if !build {
                return Ok(None);
            }
            let bt = DmaBuf::alloc(dev, size)?;
            publish(up, up_index, &bt)?;
            *slot = Some(bt);
        }
        Ok(slot.as_mut().map(|bt| (bt, (idx & mask) as usize)))
    }

    /// Whether `first..first + count` is a non-empty range of the pages.
    fn range_ok(&self, first: u64, count: u64) -> bool {
        count != 0 && first < self.page_count && count <= self.page_count - first
    }

    /// Maps pages `first..` of a sparse MTR (`vroce_mtr_map_range()`).
    pub(crate) fn map_range(&mut self, first: u64, pages: &[u64]) -> Result {
        let count = pages.len() as u64;
        if !self.sparse || !self.range_ok(first, count) {
            return Err(EINVAL);
        }
        let pgmask = (1u64 << self.buf_pg_shift) - 1;
        if pages.iter().fold(0, |acc, &p| acc | p) & pgmask != 0 {
            return Err(EINVAL);
        }
        for (idx, &p) in (first..).zip(pages) {
            if let Some((bt, i)) = self.sparse_table(idx, true)? {
                bt.write_entry(i, p.to_le())?;
            }
            maybe_resched(idx - first);
        }
        Ok(())
    }

    /// Unmaps pages `first..first + count` of a sparse MTR; returns how
    /// many were mapped (`vroce_mtr_unmap_range()`).
    pub(crate) fn unmap_range(&mut self, first: u64, count: u64) -> Result<u64> {
        if !self.sparse || !self.range_ok(first, count) {
            return Err(EINVAL);
        }
        let mask = (1u64 << unit_shift(self.ba_pg_shift)) - 1;
        let end = first + count;
        let mut idx = first;
        let mut was = 0;
        while idx < end {
            match self.sparse_table(idx, false)? {
                // No table: none of its pages is mapped.
                None => idx = (idx | mask) + 1,
                Some((bt, i)) => {
                    if bt.read_entry(i).unwrap_or(0) != 0 {
                        bt.write_entry(i, 0)?;
                        was += 1;
                    }
                    idx += 1;
                }
            }
        }
        Ok(was)
    }

    /// Page `idx`'s entry in a sparse MTR and its table's address; `None`
    /// when not mapped.
    fn sparse_entry(&self, idx: u64) -> Option<(u64, u64)> {
        let ushift = unit_shift(self.ba_pg_shift);
        let mask = (1u64 << ushift) - 1;
        let root = self.root.as_ref()?;
        let [rgn, ..] = &self.regions;
        let (bt, i) = if rgn.hopnum == 1 {
            (root, rgn.root_index.checked_add(idx)?)
        } else {
            let b = idx >> ushift;
            let bt = rgn.sparse_btm.as_ref()?.get(b as usize)?.as_ref()?;
            (bt, idx & mask)
        };
        let e = u64::from_le(bt.read_entry(usize::try_from(i).ok()?)?);
        (e != 0).then_some((e, bt.dma()))
    }

    /// [`Mtr::find`] on a sparse MTR: the mapped pages from `idx` on.
    fn find_sparse(&self, idx: u64, addrs: &mut [u64]) -> Result<(usize, u64)> {
        let mut table = 0;
        let mut n = 0;
        for (a, i) in addrs.iter_mut().zip(idx..self.page_count) {
            let Some((e, t)) = self.sparse_entry(i) else {
                break;
            };
            if n == 0 {
                table = t;
            }
            *a = e;
            n += 1;
        }
        if n == 0 {
            return Err(ENOENT);
        }
        Ok((n, table))
    }

    /// A kernel buffer: one contiguous chunk when the MTR is direct, one
    /// per hop-0 region, and one per page elsewhere.
    fn alloc_kbuf(&mut self) -> Result {
        let dev = self.dev;
        let shift = self.buf_pg_shift;
        let regions = &self.regions[..self.region_count];
        let nr = if self.is_direct {
            1
        } else {
            regions
                .iter()
                .map(|r| if r.hopnum != 0 { r.count } else { 1 })
                .sum()
        };

        let chunks = self.chunks.insert(CoreVec::with_capacity(
            dev,
            usize::try_from(nr).map_err(|_| ENOMEM)?,
        )?);
        if self.is_direct {
            return chunks.push(DmaBuf::alloc(dev, pages_to_bytes(self.page_count, shift)?)?);
        }
        let mut i = 0;
        for rgn in regions {
            if rgn.hopnum == 0 {
                chunks.push(DmaBuf::alloc(dev, pages_to_bytes(rgn.count, shift)?)?)?;
                maybe_resched(i);
                i += 1;
                continue;
            }
            for _ in 0..rgn.count {
                chunks.push(DmaBuf::alloc(dev, 1usize << shift)?)?;
                maybe_resched(i);
                i += 1;
            }
        }
        Ok(())
    }

    /// Maps the pages of the MTR's own buffer, kernel or user.
    fn map_buf(&mut self) -> Result {
        let shift = self.buf_pg_shift;
        let mut pages = CoreVec::zeroed(
            self.dev,
            usize::try_from(self.page_count).map_err(|_| ENOMEM)?,
        )?;

        let n = if let Some(umem) = &self.umem {
            umem.dma_blocks(1u64 << shift, &mut pages)
        } else {
            let mut slots = pages.iter_mut();
            for c in self.chunks.iter().flat_map(|c| c.iter()) {
                for p in 0..(c.size() >> shift) as u64 {
                    if let Some(slot) = slots.next() {
                        *slot = c.dma() + (p << shift);
                    }
                }
            }
            self.page_count
        };
        if n != self.page_count {
            return Err(enobufs());
        }
        self.write_pages(&pages)?;
        self.set_mapped(n);
        Ok(())
    }

    /// Writes page addresses from the start of the buffer. Runs the HCA
    /// addresses from a base must be contiguous, and every address must be
    /// page aligned; a failure may leave entries written, which callers
    /// then report as unmapped.
    fn write_pages(&mut self, pages: &[u64]) -> Result {
        let shift = self.buf_pg_shift;
        let pgmask = (1u64 << shift) - 1;
        let count = pages.len() as u64;

        if self.is_direct {
            let first = pages.first().copied().unwrap_or(0);
            if first & pgmask != 0 {
                return Err(EINVAL);
            }
            if !contiguous(pages, shift) {
                return Err(enobufs());
            }
            self.root_ba = first;
            return Ok(());
        }

        let regions = &mut self.regions[..self.region_count];
        for rgn in regions.iter() {
            if rgn.offset >= count {
                break;
            }
            let end = rgn.offset + rgn.count.min(count - rgn.offset);
            let run = pages.get(rgn.offset as usize..end as usize).unwrap_or(&[]);
            if rgn.hopnum == 0 && !contiguous(run, shift) {
                return Err(enobufs());
            }
        }

        let Some(root) = self.root.as_mut() else {
            return Err(EINVAL);
        };
        let root = root.entries_mut();
        let ushift = unit_shift(self.ba_pg_shift);
        let mut acc = 0;
        let mut rest = pages;
        for rgn in regions {
            if rest.is_empty() {
                break;
            }
            let (head, others) = rest.split_at(rest.len().min(rgn.count as usize));
            rest = others;
            acc |= match (rgn.hopnum, rgn.btm.as_mut()) {
                (0, _) => fill(tail(root, rgn.root_index), head.get(..1).unwrap_or(&[])),
                (1, _) => fill(tail(root, rgn.root_index), head),
                (_, Some(btm)) => {
                    let mut acc = 0;
                    for (b, (bt, chunk)) in btm.iter_mut().zip(head.chunks(1 << ushift)).enumerate()
                    {
                        acc |= fill(bt.entries_mut(), chunk);
                        maybe_resched(b as u64);
                    }
                    acc
                }
                (_, None) => return Err(EINVAL),
            };
        }
        if acc & pgmask != 0 {
            return Err(EINVAL);
        }
        Ok(())
    }

    /// Writes the first `pages.len()` page addresses (`vroce_mtr_map()`).
    pub(crate) fn map(&mut self, pages: &[u64]) -> Result {
        let count = pages.len() as u64;
        if count == 0 || count > self.page_count || self.sparse {
            return Err(EINVAL);
        }
        // From here on, a failed map leaves no page mapped.
        self.set_mapped(0);
        if !self.mtt_only && count != self.page_count {
            return Err(enobufs());
        }
        self.write_pages(pages)?;
        self.set_mapped(count);
        Ok(())
    }

    /// The pages find reports from now on: the first `n`.
    fn set_mapped(&mut self, n: u64) {
        self.mapped = n;
        self.leaf_limit = n.min(self.leaf_pages);
    }

    /// The region holding page `idx`, which is below the page count.
    fn region_of(&self, idx: u64) -> &Region {
        let [first, rest @ ..] = &self.regions;
        // Most MTRs have one region: no search.
        if self.region_count <= 1 || idx < first.offset.wrapping_add(first.count) {
            return first;
        }
        let rest = rest.get(..self.region_count - 1).unwrap_or(rest);
        rest.iter()
            .find(|r| idx < r.offset.wrapping_add(r.count))
            .or(rest.last())
            .unwrap_or(first)
    }

    /// Page `idx`'s address as the HCA would find it, and the address of
    /// the table (or, direct, the first page) it is found in.
    ///
    /// This is the lookup hot path. `idx` is below the mapped count, so
    /// offsets and shifts stay in range by construction: wrapping
    /// arithmetic spares the checks `CONFIG_RUST_OVERFLOW_CHECKS` adds,
    /// and table reads use `get`, so a broken invariant reads 0, never out
    /// of bounds.
    fn lookup(&self, idx: u64) -> (u64, u64) {
        let ushift = unit_shift(self.ba_pg_shift);
        let entry = |bt: &DmaBuf, i: u64| bt.read_entry(i as usize).map_or(0, u64::from_le);
        let shift = self.buf_pg_shift;
        if self.is_direct {
            return (
                self.root_ba.wrapping_add(idx.wrapping_shl(shift)),
                self.root_ba,
            );
        }
        let Some(root) = self.root.as_ref() else {
            return (0, 0);
        };
        let rgn = self.region_of(idx);
        let l = idx.wrapping_sub(rgn.offset);
        // The HCA writes fast-register tables: each entry is read once.
        match rgn.hopnum {
            0 => {
                let base = entry(root, rgn.root_index);
                (base.wrapping_add(l.wrapping_shl(shift)), base)
            }
            1 => (entry(root, rgn.root_index.wrapping_add(l)), root.dma()),
            _ => match rgn
                .btm
                .as_ref()
                .and_then(|b| b.get(l.wrapping_shr(ushift) as usize))
            {
                Some(bt) => (entry(bt, l & ((1u64 << ushift) - 1)), bt.dma()),
                None => (0, 0),
            },
        }
    }

    /// The addresses of up to `addrs.len()` pages from page `idx` on, as
    /// the HCA would find them, all from one table (or computed, for a
    /// hop-0 region or a direct MTR), and that table's address (direct:
    /// the first page's). Returns how many were written: at least 1 for
    /// a non-empty `addrs` while the invariants hold ([`Mtr::find`] stops
    /// on 0).
    ///
    /// This is the lookup hot path. `idx` is below the mapped count and
    /// `addrs` no longer than the pages mapped from it, so offsets and
    /// shifts stay in range by construction: wrapping arithmetic spares the
    /// checks `CONFIG_RUST_OVERFLOW_CHECKS` adds, and table reads are
    /// bounded by the table, so a broken invariant reads 0, never out of
    /// bounds. One table at a time, entries are copied in one loop.
    fn run(&self, idx: u64, addrs: &mut [u64]) -> (usize, u64) {
        let shift = self.buf_pg_shift;
        if self.is_direct {
            for (i, a) in (idx..).zip(addrs.iter_mut()) {
                *a = self.root_ba.wrapping_add(i.wrapping_shl(shift));
            }
            return (addrs.len(), self.root_ba);
        }
        let Some(root) = self.root.as_ref() else {
            addrs.fill(0);
            return (addrs.len(), 0);
        };
        let rgn = self.region_of(idx);
        let l = idx.wrapping_sub(rgn.offset);
        let left = rgn.offset.wrapping_add(rgn.count).wrapping_sub(idx);
        let mut n = (addrs.len() as u64).min(left) as usize;
        if n == 0 {
            return (0, 0);
        }
        let ushift = unit_shift(self.ba_pg_shift);
        let per = 1u64 << ushift;
        let (table, first) = match rgn.hopnum {
            0 => {
                let base = root
                    .read_entry(rgn.root_index as usize)
                    .map_or(0, u64::from_le);
                for (i, a) in (l..).zip(addrs.iter_mut().take(n)) {
                    *a = base.wrapping_add(i.wrapping_shl(shift));
                }
                return (n, base);
            }
            1 => (Some(root), rgn.root_index.wrapping_add(l)),
            _ => {
                n = (n as u64).min(per - (l & (per - 1))) as usize;
                let bt = rgn
                    .btm
                    .as_ref()
                    .and_then(|b| b.get(l.wrapping_shr(ushift) as usize));
                (bt, l & (per - 1))
            }
        };
        let Some(out) = addrs.get_mut(..n) else {
            return (0, 0);
        };
        match table {
            // The HCA writes fast-register tables: each entry is read once.
            Some(bt) => {
                bt.read_entries(first as usize, out);
                for a in out.iter_mut() {
                    *a = u64::from_le(*a);
                }
                (n, bt.dma())
            }
            None => {
                out.fill(0);
                (n, 0)
            }
        }
    }

    /// Page `offset`'s address and its table's, when it is a mapped page
    /// of the first region's tables (hop 1 to 3): no region to look for,
    /// as C's one-page path, with the bounds checks of the table and the
    /// entry besides C's one. `None` leaves it to [`Mtr::find`]. A broken
    /// invariant gives `None`, never a read out of bounds.
    #[inline(always)]
    pub(crate) fn find_leaf(&self, offset: u64) -> Option<(u64, u64)> {
        let idx = offset.wrapping_shr(self.buf_pg_shift);
        if idx >= self.leaf_limit {
            return None;
        }
        let bt = self.leaf_table(idx)?;
        let entry = bt.read_entry((idx & self.leaf_mask) as usize)?;
        Some((u64::from_le(entry), bt.dma()))
    }

    /// The table of [`Mtr::find_leaf`]'s tables that holds page `idx`'s
    /// entry, at `idx & leaf_mask`; `idx` is below `leaf_limit`.
    #[inline(always)]
    fn leaf_table(&self, idx: u64) -> Option<&DmaBuf> {
        if self.leaf_root {
            return self.root.as_ref();
        }
        let [first, ..] = &self.regions;
        first
            .btm
            .as_deref()?
            .get(idx.wrapping_shr(self.leaf_shift) as usize)
    }

    /// Writes the addresses of the mapped pages from byte `offset` into
    /// `addrs`; returns how many, with the table address of the first
    /// (`vroce_mtr_find()`).
    pub(crate) fn find(&self, offset: u64, addrs: &mut [u64]) -> Result<(usize, u64)> {
        if addrs.is_empty() {
            return Err(EINVAL);
        }
        let idx = offset >> self.buf_pg_shift;
        if self.sparse {
            return self.find_sparse(idx, addrs);
        }
        if idx >= self.mapped {
            return Err(ENOENT);
        }
        if let [one] = addrs {
            // One page: the plain lookup, no run bookkeeping.
            let (addr, table) = self.lookup(idx);
            *one = addr;
            return Ok((1, table));
        }
        if let Some(table) = self.first_table_run(idx, addrs) {
            return Ok((addrs.len(), table));
        }
        self.find_runs(idx, addrs)
    }

    /// All of `addrs` (at least one) from page `idx` on, when they are
    /// mapped pages of one of [`Mtr::find_leaf`]'s tables: one copy, and
    /// that table's address. `None` leaves the find to
    /// [`Mtr::find_runs`].
    fn first_table_run(&self, idx: u64, addrs: &mut [u64]) -> Option<u64> {
        let rest = (addrs.len() as u64).checked_sub(1)?;
        let start = idx & self.leaf_mask;
        if idx >= self.leaf_limit || rest >= self.leaf_limit - idx || rest > self.leaf_mask - start
        {
            return None;
        }
        let bt = self.leaf_table(idx)?;
        // The HCA writes fast-register tables: each entry is read once.
        bt.read_entries(start as usize, addrs);
        for a in addrs.iter_mut() {
            *a = u64::from_le(*a);
        }
        Some(bt.dma())
    }

    /// [`Mtr::find`] of more than one page from page `idx`, below the
    /// mapped count: runs of entries, one table at a time.
    fn find_runs(&self, idx: u64, addrs: &mut [u64]) -> Result<(usize, u64)> {
        let max = (addrs.len() as u64).min(self.mapped.wrapping_sub(idx)) as usize;
        let Some(addrs) = addrs.get_mut(..max) else {
            return Err(EINVAL);
        };
        let (mut n, first_table) = self.run(idx, addrs);
        while let Some(rest) = addrs.get_mut(n..).filter(|r| !r.is_empty()) {
            let (got, _) = self.run(idx.wrapping_add(n as u64), rest);
            if got == 0 {
                break;
            }
            n += got;
        }
        Ok((n, first_table))
    }

    /// The address the HCA starts a translation from.
    pub(crate) fn root_ba(&self) -> u64 {
        self.root_ba
    }

    /// Whether the MTR has no BA tables.
    pub(crate) fn is_direct(&self) -> bool {
        self.is_direct
    }

    /// The page shift of the BA table pages.
    pub(crate) fn ba_page_shift(&self) -> u32 {
        self.ba_pg_shift
    }

    /// The page shift of the buffer pages.
    pub(crate) fn buf_page_shift(&self) -> u32 {
        self.buf_pg_shift
    }

    /// The number of buffer pages.
    pub(crate) fn page_count(&self) -> u64 {
        self.page_count
    }

    /// The number of regions.
    pub(crate) fn region_count(&self) -> u32 {
        self.region_count as u32
    }

    /// The layout of region `index`, as built.
    pub(crate) fn region(&self, index: u32) -> Result<RegionLayout> {
        let rgn = self.regions[..self.region_count]
            .get(index as usize)
            .ok_or(EINVAL)?;
        Ok(RegionLayout {
            offset: rgn.offset,
            count: rgn.count,
            hopnum: rgn.hopnum,
        })
    }

    /// The kernel address of byte `offset` of the kernel buffer.
    pub(crate) fn buf_kva(&self, offset: u64) -> Option<*mut u8> {
        let chunks = self.chunks.as_ref()?;
        let shift = self.buf_pg_shift;
        let idx = offset >> shift;
        if idx >= self.page_count {
            return None;
        }
        let (chunk, within) = if self.is_direct {
            (chunks.first()?, offset)
        } else {
            // Chunks run in region order: one per hop-0 region, else one a
            // page.
            let mut c = 0;
            let mut found = None;
            for rgn in &self.regions[..self.region_count] {
                if idx < rgn.offset + rgn.count {
                    found = Some(rgn);
                    break;
                }
                c += if rgn.hopnum != 0 { rgn.count } else { 1 };
            }
            let rgn = found?;
            if rgn.hopnum == 0 {
                (chunks.get(c as usize)?, offset - (rgn.offset << shift))
            } else {
                let i = c + idx - rgn.offset;
                (chunks.get(i as usize)?, offset & ((1u64 << shift) - 1))
            }
        };
        Some(chunk.va().wrapping_add(within as usize))
    }
}
