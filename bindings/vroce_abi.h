/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce MR/MTR ABI: the one header through which the rest of the driver
 * reaches memory-translate-region (MTR) state.
 *
 * An MTR describes a buffer to the HCA: up to VROCE_MTR_MAX_REGIONS regions,
 * each either direct (hop 0: the HCA computes addresses from a base) or
 * behind one to three levels of base-address (BA) tables whose 8-byte
 * little-endian entries hold DMA addresses. All regions share one root BA
 * table page. The HCA is given the root BA, the page shifts and the region
 * layout, and walks the tables by DMA address.
 *
 * The implementation behind this header is C (c/vroce_mtr.c) or Rust, chosen
 * in Kconfig. The header is plain C for bindgen: opaque handles, plain types,
 * no inline logic. Unless a function says otherwise, an MTR must not be used
 * concurrently with its destruction, and callers serialise map() against
 * find() on the same MTR; distinct MTRs are independent.
 */
#ifndef _VROCE_ABI_H_
#define _VROCE_ABI_H_

#include <linux/types.h>

struct ib_udata;
struct vroce_dev;
struct vroce_mtr;

/* Limits of the HCA's translation engine. */
#define VROCE_MTR_MAX_REGIONS		3
#define VROCE_MTR_MAX_HOP		3
#define VROCE_MTR_MIN_PAGE_SHIFT	12
#define VROCE_MTR_MAX_PAGE_SHIFT	30
#define VROCE_MTR_MAX_BA_PAGE_SHIFT	21
/* 2^25 pages; a plain literal so that bindgen sees a constant */
#define VROCE_MTR_MAX_PAGES		33554432ULL
#define VROCE_MTR_BA_BYTES		8

/**
 * struct vroce_buf_region_attr - one region of an MTR's buffer
 * @size: size in bytes, at least 1
 * @hopnum: levels of BA tables in front of the region, 0 (direct) to
 *	VROCE_MTR_MAX_HOP; ignored when &vroce_buf_attr.adaptive is set
 */
struct vroce_buf_region_attr {
	u64 size;
	u32 hopnum;
};

/**
 * struct vroce_buf_attr - what vroce_mtr_create() is asked to build
 * @region: the regions, in buffer order; the first @region_count are used
 * @region_count: 1 to VROCE_MTR_MAX_REGIONS
 * @page_shift: buffer page shift, VROCE_MTR_MIN_PAGE_SHIFT to
 *	VROCE_MTR_MAX_PAGE_SHIFT; for adaptive user buffers the page size is
 *	chosen instead, up to this size
 * @user_access: IB_ACCESS_* flags used to pin a user buffer
 * @mtt_only: build the tables only, with no buffer behind them; pages are
 *	supplied later with vroce_mtr_map() (fast-register MRs)
 * @adaptive: let the implementation choose each region's hop number (the
 *	smallest that fits) and, for a user buffer, the page size
 * @iova: the address the HCA uses for the start of a user buffer; page
 *	sizes are chosen so that @iova and the buffer agree in alignment
 */
struct vroce_buf_attr {
	struct vroce_buf_region_attr region[VROCE_MTR_MAX_REGIONS];
	u32 region_count;
	u32 page_shift;
	u32 user_access;
	bool mtt_only;
	bool adaptive;
	u64 iova;
};

/**
 * struct vroce_mtr_region - the layout of one region, as built
 * @offset: index of the region's first page among all the MTR's pages
 * @count: number of pages in the region
 * @hopnum: levels of BA tables in front of the region (0: direct)
 */
struct vroce_mtr_region {
	u64 offset;
	u64 count;
	u32 hopnum;
};

/**
 * vroce_mtr_create() - build a memory translate region
 * @dev: the device whose DMA device maps the tables and the buffer
 * @mtr: where the new MTR is returned; set only on success
 * @attr: the buffer's layout; not modified and not referenced afterwards
 * @ba_page_shift: smallest BA table page shift to use, from
 *	VROCE_MTR_MIN_PAGE_SHIFT to VROCE_MTR_MAX_BA_PAGE_SHIFT; a larger one
 *	is chosen when the root table would not fit in one page
 * @udata: NULL for a kernel buffer, which the MTR allocates itself
 *	(DMA-coherent, zeroed); non-NULL for a user buffer pinned from
 *	@user_addr with ib_umem_get()
 * @user_addr: start of the user buffer; ignored for kernel buffers
 *
 * Every BA table page is DMA-coherent memory of the device's DMA device.
 * The caller owns the returned MTR and frees it with vroce_mtr_destroy().
 * A failed create has freed everything it took.
 *
 * Context: process context, may sleep; takes no driver locks. Building
 * large tables yields the CPU (cond_resched()).
 * Return: 0 on success, or
 * -EINVAL for a bad argument: NULL @dev, @mtr or @attr; @region_count out
 * of range; a page shift or @ba_page_shift out of range; a hop number above
 * VROCE_MTR_MAX_HOP; a zero-size region; more than VROCE_MTR_MAX_PAGES
 * pages; @mtt_only with @udata; a user buffer no page size up to
 * @page_shift can map, or whose region sizes are not page multiples adding
 * up to the pinned buffer;
 * -ERANGE when no BA table page size up to VROCE_MTR_MAX_BA_PAGE_SHIFT
 * holds the root table for these regions and hop numbers;
 * -ENOBUFS when a direct multi-region user buffer, or a hop-0 region of a
 * user buffer, is not physically contiguous;
 * -ENOMEM when memory runs out;
 * any error of ib_umem_get(), unchanged (for example -EFAULT).
 */
int vroce_mtr_create(struct vroce_dev *dev, struct vroce_mtr **mtr,
		     const struct vroce_buf_attr *attr, u32 ba_page_shift,
		     struct ib_udata *udata, unsigned long user_addr);

/**
 * vroce_mtr_destroy() - free an MTR and everything it owns
 * @dev: the device the MTR was created for
 * @mtr: the MTR, or NULL (nothing is done)
 *
 * Frees the BA tables, then the kernel buffer or the pinned user pages,
 * then the MTR. The caller must make sure the device no longer uses the
 * tables.
 *
 * Context: process context, may sleep.
 */
void vroce_mtr_destroy(struct vroce_dev *dev, struct vroce_mtr *mtr);

/**
 * vroce_mtr_map() - write buffer page addresses into an MTR's tables
 * @dev: the device the MTR was created for
 * @mtr: the MTR
 * @pages: DMA addresses of the pages, in buffer order, each aligned to the
 *	buffer page size
 * @count: number of entries in @pages
 *
 * For a table-only (mtt_only) MTR @count may be less than its page count:
 * the first @count pages are mapped and vroce_mtr_find() reports only
 * those (fast-register MRs). An MTR with a buffer must be remapped whole.
 * Pages of a direct MTR or of a hop-0 region must be contiguous.
 *
 * Context: process context; yields the CPU only when mapping more than
 * 2^19 pages, so smaller maps (fast-register MRs) may run in atomic
 * context. The caller serialises map and find on one MTR.
 * Return: 0 on success, or
 * -EINVAL for NULL @mtr or @pages, zero @count, or @count above the MTR's
 * page count (a write past the end of the tables);
 * -ENOBUFS when @count differs from the page count of an MTR with a
 * buffer, or a direct or hop-0 run of pages is not contiguous; the MTR
 * then reports no mapped pages until a map succeeds.
 */
int vroce_mtr_map(struct vroce_dev *dev, struct vroce_mtr *mtr,
		  const dma_addr_t *pages, u64 count);

/**
 * vroce_mtr_find() - look up the DMA addresses of pages of an MTR
 * @dev: the device the MTR was created for
 * @mtr: the MTR
 * @offset: byte offset into the buffer; rounded down to its page
 * @addrs: where the DMA addresses of the pages from @offset are written
 * @max: room in @addrs, at least 1
 * @base_addr: if not NULL, receives the DMA address of the table page that
 *	holds the entry for @offset (for a direct MTR or a hop-0 region: the
 *	address of the region's first page)
 *
 * Context: any context; does not sleep or allocate.
 * Return: the number of addresses written (1 to @max), or
 * -EINVAL for NULL @mtr or @addrs, or @max below 1;
 * -ENOENT when no (mapped) page is at @offset.
 */
int vroce_mtr_find(struct vroce_dev *dev, struct vroce_mtr *mtr, u64 offset,
		   u64 *addrs, u32 max, u64 *base_addr);

/**
 * vroce_mtr_root_ba() - the address the HCA starts a translation from
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: the DMA address of the root BA table page, or for a direct MTR of
 * the buffer's first page (0 for a direct table-only MTR not yet mapped).
 */
u64 vroce_mtr_root_ba(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_is_direct() - whether the MTR has no BA tables
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: true when every region is hop 0 and the buffer is contiguous.
 */
bool vroce_mtr_is_direct(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_ba_page_shift() - page shift of the MTR's BA table pages
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: the shift in use, which may exceed the one asked for; for a
 * direct MTR, the one asked for.
 */
u32 vroce_mtr_ba_page_shift(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_buf_page_shift() - page shift of the MTR's buffer pages
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: the shift in use (chosen by create for adaptive user buffers).
 */
u32 vroce_mtr_buf_page_shift(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_page_count() - number of buffer pages the MTR describes
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: the sum of the regions' page counts.
 */
u64 vroce_mtr_page_count(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_region_count() - number of regions of the MTR
 * @mtr: the MTR
 *
 * Context: any context.
 * Return: 1 to VROCE_MTR_MAX_REGIONS.
 */
u32 vroce_mtr_region_count(const struct vroce_mtr *mtr);

/**
 * vroce_mtr_region() - the layout of one region of the MTR
 * @mtr: the MTR
 * @index: the region, from 0
 * @region: where the layout is written
 *
 * The hop numbers here, with vroce_mtr_root_ba() and the page shifts, are
 * what the HCA is programmed with.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @index is not a region of @mtr or @region is
 * NULL.
 */
int vroce_mtr_region(const struct vroce_mtr *mtr, u32 index,
		     struct vroce_mtr_region *region);

/**
 * vroce_mtr_buf_kva() - kernel address of a byte of an MTR's kernel buffer
 * @mtr: the MTR
 * @offset: byte offset into the buffer
 *
 * The address is valid up to the end of the buffer page holding @offset,
 * for as long as the MTR lives.
 *
 * Context: any context.
 * Return: the kernel virtual address, or NULL when @mtr has no kernel
 * buffer (user or table-only) or @offset is past its end.
 */
void *vroce_mtr_buf_kva(const struct vroce_mtr *mtr, u64 offset);

#endif /* _VROCE_ABI_H_ */
