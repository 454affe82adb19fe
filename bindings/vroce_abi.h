/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce MR/MTR ABI: the one header through which the rest of the driver
 * reaches memory-translate-region (MTR) state and the lifecycle of memory
 * regions (MRs) apart from the hardware: their rights, their tables and
 * fast-register page lists, and their states until the HCA lets go.
 *
 * An MTR describes a buffer to the HCA: up to VROCE_MTR_MAX_REGIONS regions,
 * each either direct (hop 0: the HCA computes addresses from a base) or
 * behind one to three levels of base-address (BA) tables whose 8-byte
 * little-endian entries hold DMA addresses. All regions share one root BA
 * table page. The HCA is given the root BA, the page shifts and the region
 * layout, and walks the tables by DMA address.
 *
 * The implementation behind this header is C (c/abi/: vroce_mtr.c,
 * vroce_mr_obj.c and vroce_mw_obj.c) or Rust (rust/), chosen in Kconfig. The header is plain C
 * for bindgen: opaque handles, plain types, no inline logic. Unless a
 * function says otherwise, an MTR must not be used concurrently with its
 * destruction, and callers serialise map() against find() on the same MTR;
 * distinct MTRs are independent.
 */
#ifndef _VROCE_ABI_H_
#define _VROCE_ABI_H_

#include <linux/types.h>

struct ib_udata;
struct vroce_dev;
struct vroce_mr_obj;
struct vroce_mtr;
struct vroce_mw_obj;

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
 * @sparse: with @mtt_only, one region behind one to three levels of
 *	tables (never hop 0 or direct; an adaptive hop number is at least
 *	1) of which only the root is built now: the tables below it are
 *	allocated as pages are mapped with vroce_mtr_map_range(), and every
 *	page not mapped has an empty entry, or an empty entry above it
 *	(on-demand paging MRs: the HCA faults on either)
 */
struct vroce_buf_attr {
	struct vroce_buf_region_attr region[VROCE_MTR_MAX_REGIONS];
	u32 region_count;
	u32 page_shift;
	u32 user_access;
	bool mtt_only;
	bool adaptive;
	u64 iova;
	bool sparse;
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
 * pages; @mtt_only with @udata; @sparse without @mtt_only, with more
 * than one region or with a hop-0 region; a user buffer no page size up to
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
 * Not for a sparse MTR (-EINVAL): it is mapped by ranges.
 * For a table-only (mtt_only) MTR @count may be less than its page count:
 * the first @count pages are mapped and vroce_mtr_find() reports only
 * those (fast-register MRs). An MTR with a buffer must be remapped whole.
 * Pages of a direct MTR or of a hop-0 region must be contiguous.
 *
 * Context: process context; yields the CPU only when mapping more than
 * 2^19 pages, so smaller maps (fast-register MRs) may run in atomic
 * context. The caller serialises map and find on one MTR.
 * Return: 0 on success, or
 * -EINVAL for NULL @mtr or @pages, zero @count, @count above the MTR's
 * page count (a write past the end of the tables), or a sparse MTR;
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
 * For a sparse MTR the run ends before the first page not mapped.
 *
 * Context: any context; does not sleep or allocate.
 * Return: the number of addresses written (1 to @max), or
 * -EINVAL for NULL @mtr or @addrs, or @max below 1;
 * -ENOENT when no (mapped) page is at @offset.
 */
int vroce_mtr_find(struct vroce_dev *dev, const struct vroce_mtr *mtr,
		   u64 offset, u64 *addrs, u32 max, u64 *base_addr);

/**
 * vroce_mtr_map_range() - map pages of a sparse MTR, anywhere in it
 * @dev: the device the MTR was created for
 * @mtr: a sparse MTR
 * @first: index of the first page to map
 * @pages: DMA addresses of pages @first to @first + @count - 1, each
 *	aligned to the buffer page size
 * @count: number of entries in @pages, at least 1
 *
 * Allocates the tables the range needs (zeroed, linked into the table
 * above only once complete) and writes each page's entry once, so that
 * the HCA, walking the tables meanwhile, finds for each page either no
 * entry or the new one. Pages mapped before stay mapped; an entry of the
 * range already mapped is overwritten.
 *
 * Context: process context, may sleep (allocates tables). The caller
 * serialises map_range, unmap_range and find on one MTR.
 * Return: 0, or -EINVAL for a NULL @mtr or @pages, zero @count, a range
 * past the MTR's pages, an MTR that is not sparse, or a misaligned
 * address (no entry is written then); -ENOMEM when a table cannot be
 * allocated: the pages before it are mapped, the others not.
 */
int vroce_mtr_map_range(struct vroce_dev *dev, struct vroce_mtr *mtr,
			u64 first, const dma_addr_t *pages, u64 count);

/**
 * vroce_mtr_unmap_range() - unmap pages of a sparse MTR
 * @dev: the device the MTR was created for
 * @mtr: a sparse MTR
 * @first: index of the first page to unmap
 * @count: number of pages, at least 1
 *
 * Empties the pages' entries (each written once); the tables stay, for
 * the next map. The HCA may still be using an address it read before:
 * the caller fences (a command: the HCA runs none beside an access)
 * before it lets the pages go.
 *
 * Context: any context; does not sleep or allocate. The caller
 * serialises as for vroce_mtr_map_range().
 * Return: the number of pages of the range that were mapped (0 to
 * @count), or -EINVAL for a NULL @mtr, zero @count, a range past the
 * MTR's pages, or an MTR that is not sparse.
 */
s64 vroce_mtr_unmap_range(struct vroce_dev *dev, struct vroce_mtr *mtr,
			  u64 first, u64 count);

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

/*
 * The MR lifecycle. An MR object holds what the driver keeps for an MR
 * besides the RDMA core's struct ib_mr: its type and rights, its MTR, the
 * fast-register page list, the HCA's key and handle, and its state. The
 * implementation never calls the command layer or the verbs: the caller
 * issues CREATE_MR/DESTROY_MR (c/driver/vroce_cmd.c) and reports each
 * outcome here, and the object says what may be freed.
 *
 * States and the calls that move between them:
 *
 *   NEW --registered()--> LIVE --released()--> GONE
 *   NEW --create_failed(-ETIMEDOUT)--> LOST
 *   LIVE --parked()--> ZOMBIE --released()--> GONE
 *
 *   LOST --released(hca_reset = true)--> GONE
 *
 * vroce_mr_obj_destroy() frees an object in NEW or GONE only: the tables
 * and pages of an MR the HCA may still translate through (LIVE, ZOMBIE,
 * LOST) are never freed. released() is called once DESTROY_MR succeeded,
 * the HCA no longer knows the handle, or the HCA was reset.
 *
 * Concurrency: the caller serialises every call on one object, info()
 * included (the verbs do: an MR is not used concurrently with its
 * registration, map_mr_sg or deregistration, and a consumer maps an MR
 * before it posts the REG_MR that carries its list). What other contexts
 * read at any time (restrack dumps) the caller copies at registration.
 * Every @mr argument below is a live object, never NULL, unless a
 * function says otherwise.
 *
 * The values below are those of c/ifc/vroce_cmds.h and <rdma/ib_verbs.h>,
 * repeated so that bindgen sees them; c/driver/vroce_mr.c checks that they
 * agree at compile time.
 */

/* IB_ACCESS_* flags an MR may be asked for (ib_verbs.h values). */
#define VROCE_IB_ACCESS_LOCAL_WRITE	1
#define VROCE_IB_ACCESS_REMOTE_WRITE	2
#define VROCE_IB_ACCESS_REMOTE_READ	4
#define VROCE_IB_ACCESS_REMOTE_ATOMIC	8
#define VROCE_IB_ACCESS_MW_BIND		16
/* IB_ACCESS_ON_DEMAND: on-demand paging, vroce_mr_obj_create_odp() only */
#define VROCE_IB_ACCESS_ON_DEMAND	64
/* IB_ACCESS_OPTIONAL: hints (relaxed ordering and others), dropped */
#define VROCE_IB_ACCESS_OPTIONAL	0x3ff00000

/* The HCA's rights (VROCE_ACC_* of c/ifc/vroce_cmds.h). */
#define VROCE_MR_RIGHT_LOCAL_WRITE	1
#define VROCE_MR_RIGHT_REMOTE_WRITE	2
#define VROCE_MR_RIGHT_REMOTE_READ	4
#define VROCE_MR_RIGHT_REMOTE_ATOMIC	8
#define VROCE_MR_RIGHT_MW_BIND		16

/* What CREATE_MR is told an MR is (VROCE_MR_KIND_* of vroce_cmds.h). */
#define VROCE_MR_TYPE_DMA		0	/* bus addresses, no table */
#define VROCE_MR_TYPE_USER		1	/* pinned pages behind an MTR */
#define VROCE_MR_TYPE_FRMR		2	/* table filled by REG_MR */
#define VROCE_MR_TYPE_ODP		3	/* sparse table, pages on fault */

/* Pages an on-demand paging fault maps at least (aligned window). */
#define VROCE_MR_ODP_FAULT_PAGES	16

/* Page size of fast-register MRs (VROCE_FRMR_PAGE_SHIFT). */
#define VROCE_MR_FRMR_PAGE_SHIFT	12

/* States of an MR object; see above. */
#define VROCE_MR_STATE_NEW		0
#define VROCE_MR_STATE_LIVE		1
#define VROCE_MR_STATE_ZOMBIE		2
#define VROCE_MR_STATE_LOST		3
#define VROCE_MR_STATE_GONE		4

/**
 * struct vroce_mr_desc - what CREATE_MR tells the HCA about an MR
 * @pdn: protection domain
 * @access: VROCE_MR_RIGHT_* rights
 * @kind: VROCE_MR_TYPE_*
 * @iova: first address of the MR
 * @length: bytes
 * @mtr: its pages, NULL for a DMA MR; owned by the MR object: read it
 *	only (vroce_mtr_find() and the getters), never map or destroy it
 *
 * @kind is VROCE_MR_TYPE_ODP for an on-demand paging MR: the HCA raises a
 * page fault where its tables have no entry.
 */
struct vroce_mr_desc {
	u32 pdn;
	u32 access;
	u32 kind;
	u64 iova;
	u64 length;
	const struct vroce_mtr *mtr;
};

/**
 * struct vroce_mr_user_attr - the user memory vroce_mr_obj_create_user()
 *	registers
 * @start: its address in the owner's address space (or a kernel caller's
 *	user address, as ib_reg_user_mr() passes it)
 * @length: bytes, at least 1 and at most @max_length
 * @iova: the MR's first address as the HCA sees it; @iova + @length - 1
 *	must not wrap
 * @access: IB_ACCESS_* flags (VROCE_IB_ACCESS_*)
 * @max_length: the device's largest MR
 */
struct vroce_mr_user_attr {
	u64 start;
	u64 length;
	u64 iova;
	int access;
	u64 max_length;
};

/**
 * struct vroce_mr_info - what the driver may read of an MR object
 * @type: VROCE_MR_TYPE_*
 * @state: VROCE_MR_STATE_*
 * @key: the key CREATE_MR returned (LIVE and ZOMBIE), else 0; a consumer
 *	may have changed its low byte since (ib_update_fast_reg_key()): look
 *	nothing up by it
 * @handle: the HCA's handle CREATE_MR returned (LIVE and ZOMBIE), else 0
 * @iova: the MR's first address (0 for DMA and fast-register MRs)
 * @length: bytes (U64_MAX for DMA MRs, 0 for fast-register MRs)
 * @mtr: the MR's MTR, NULL for a DMA MR; owned by the object: read it
 *	only, never map or destroy it
 * @pbl_dma: DMA address of the fast-register page list (FRMR), else 0
 * @npages: pages collected in the page list (FRMR), else 0
 * @max_pages: room in the page list (FRMR), else 0
 */
struct vroce_mr_info {
	u32 type;
	u32 state;
	u32 key;
	u32 handle;
	u64 iova;
	u64 length;
	const struct vroce_mtr *mtr;
	u64 pbl_dma;
	u32 npages;
	u32 max_pages;
};

/**
 * struct vroce_mr_odp_range - pages of an on-demand paging MR
 * @first: index of the first page among the MR's pages
 * @count: number of pages (0: none)
 * @user_addr: user address of page @first
 * @user_len: bytes from @user_addr the pages span
 *
 * Page i of the MR is the page at user address @user_addr of page 0 plus
 * i pages; its size is the MTR's buffer page size (PAGE_SIZE).
 */
struct vroce_mr_odp_range {
	u64 first;
	u64 count;
	u64 user_addr;
	u64 user_len;
};

/**
 * vroce_mr_rights() - IB access flags as the HCA's rights
 * @access: IB_ACCESS_* flags; the optional hints are dropped
 * @rights: where the VROCE_MR_RIGHT_* rights are written; only on success
 *
 * IB_ACCESS_MW_BIND becomes VROCE_MR_RIGHT_MW_BIND: memory windows may be
 * bound to the MR.
 *
 * Context: any context.
 * Return: 0; -EOPNOTSUPP for flags the HCA does not know (zero-based,
 * on-demand paging, ...); -EINVAL for remote write or remote atomic
 * without local write, or a NULL @rights.
 */
int vroce_mr_rights(int access, u32 *rights);

/**
 * vroce_mr_obj_create_dma() - an MR object over all memory by bus address
 * @dev: the device
 * @access: IB_ACCESS_* flags
 * @allow_remote: remote access may be granted (it exposes every page of
 *	the machine through one rkey); the caller decides by its policy
 * @mr: where the new object (state NEW) is returned; only on success
 *
 * Context: process context, may sleep.
 * Return: 0; an error of vroce_mr_rights(); -EOPNOTSUPP for remote access
 * without @allow_remote, or for IB_ACCESS_MW_BIND (the HCA binds no
 * window to a DMA MR); -EINVAL for a NULL @dev or @mr; -ENOMEM.
 */
int vroce_mr_obj_create_dma(struct vroce_dev *dev, int access,
			    bool allow_remote, struct vroce_mr_obj **mr);

/**
 * vroce_mr_obj_create_user() - an MR object over pinned user memory
 * @dev: the device
 * @attr: the memory; not referenced afterwards
 * @udata: the owner's user data, or NULL for a kernel caller (the memory
 *	is pinned either way)
 * @mr: where the new object (state NEW) is returned; only on success
 *
 * Pins the memory and builds its MTR (page size chosen to fit @iova).
 * A failed create has unpinned and freed everything.
 *
 * Context: process context of the memory's owner, may sleep.
 * Return: 0; -EINVAL for a NULL argument, a zero @length or one above
 * @max_length, an @iova range that wraps; an error of vroce_mr_rights();
 * -ENOMEM; any error of vroce_mtr_create() (and so of ib_umem_get()).
 */
int vroce_mr_obj_create_user(struct vroce_dev *dev,
			     const struct vroce_mr_user_attr *attr,
			     struct ib_udata *udata, struct vroce_mr_obj **mr);

/**
 * vroce_mr_obj_create_odp() - an on-demand paging MR object: nothing pinned
 * @dev: the device
 * @attr: the memory, with IB_ACCESS_ON_DEMAND in @access; not referenced
 *	afterwards
 * @mr: where the new object (state NEW) is returned; only on success
 *
 * Builds a sparse MTR (see struct vroce_buf_attr) of CPU pages over the
 * pages [@start, @start + @length) spans, with no page mapped: the
 * caller maps pages as the HCA faults on them (vroce_mr_obj_odp_fault(),
 * vroce_mr_obj_odp_map()) and unmaps them when the memory changes
 * (vroce_mr_obj_odp_invalidate()). The memory itself is the caller's to
 * track (ib_umem_odp): the object never pins or reads it.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a NULL argument, a zero @length or one above
 * @max_length, an @iova range that wraps, a @start range that wraps, an
 * @iova whose offset in its CPU page differs from @start's, or no
 * IB_ACCESS_ON_DEMAND in @access; an error of vroce_mr_rights() for the
 * other flags; -ENOMEM; an error of vroce_mtr_create().
 */
int vroce_mr_obj_create_odp(struct vroce_dev *dev,
			    const struct vroce_mr_user_attr *attr,
			    struct vroce_mr_obj **mr);

/**
 * vroce_mr_obj_odp_fault() - the pages to map for an HCA page fault
 * @mr: an on-demand paging MR object
 * @iova: the address the HCA faulted at
 * @len: bytes from @iova the access needs, at least 1
 * @ahead: widen the pages to the VROCE_MR_ODP_FAULT_PAGES-aligned window
 *	around them, within the MR (a fault maps ahead); the caller asks
 *	again without when the window cannot be mapped whole (a part of it
 *	not in the address space)
 * @range: where the pages are written: those holding the access, or the
 *	window
 *
 * Context: any context.
 * Return: 0, or -EINVAL for an MR that is not on-demand paging, a zero
 * @len, an access not inside the MR, or a NULL @range.
 */
int vroce_mr_obj_odp_fault(const struct vroce_mr_obj *mr, u64 iova, u64 len,
			   bool ahead, struct vroce_mr_odp_range *range);

/**
 * vroce_mr_obj_odp_map() - map pages of an on-demand paging MR
 * @dev: the device
 * @mr: an on-demand paging MR object
 * @range: the pages, as vroce_mr_obj_odp_fault() gave them (or part)
 * @pages: their DMA addresses, @range->count of them
 *
 * Context: process context, may sleep; allocates the tables the pages
 * need (a caller that an MMU notifier may wait for allocates without
 * reclaim: memalloc_noreclaim_save()). The caller serialises every call
 * on the object, vroce_mr_obj_odp_invalidate() included.
 * Return: 0, or -EINVAL for an MR that is not on-demand paging, a NULL
 * argument or an empty range; an error of vroce_mtr_map_range().
 */
int vroce_mr_obj_odp_map(struct vroce_dev *dev, struct vroce_mr_obj *mr,
			 const struct vroce_mr_odp_range *range,
			 const dma_addr_t *pages);

/**
 * vroce_mr_obj_odp_invalidate() - unmap the MR's pages in a user range
 * @dev: the device
 * @mr: an on-demand paging MR object
 * @start: first user address of the range (an MMU notifier's)
 * @end: the address after the range
 * @range: where the MR's pages that meet [@start, @end) are written
 *	(count 0 when none do)
 *
 * Empties the entries of those pages; the caller then fences the HCA
 * (no access through the old entries may be in flight) before it lets
 * the pages go.
 *
 * Context: any context; does not sleep. Serialised with
 * vroce_mr_obj_odp_map() by the caller.
 * Return: the number of those pages that were mapped (0: no fence is
 * needed), or -EINVAL for an MR that is not on-demand paging, @end not
 * above @start, or a NULL @range.
 */
s64 vroce_mr_obj_odp_invalidate(struct vroce_dev *dev, struct vroce_mr_obj *mr,
				u64 start, u64 end,
				struct vroce_mr_odp_range *range);

/**
 * vroce_mr_obj_create_frmr() - a fast-register MR object, tables empty
 * @dev: the device
 * @max_pages: most pages its page list takes, 1 to @limit
 * @limit: the device's maximum
 * @mr: where the new object (state NEW) is returned; only on success
 *
 * Allocates a DMA-coherent page list of @max_pages entries and a
 * table-only MTR (never direct: the HCA learns its root now) that a
 * REG_MR work request fills from the list.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a NULL @dev or @mr, or @max_pages 0 or above
 * @limit; -ENOMEM; an error of vroce_mtr_create().
 */
int vroce_mr_obj_create_frmr(struct vroce_dev *dev, u32 max_pages, u32 limit,
			     struct vroce_mr_obj **mr);

/**
 * vroce_mr_obj_describe() - what CREATE_MR is to be told
 * @mr: an object in state NEW
 * @pdn: the MR's protection domain
 * @desc: where the description is written
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mr is not NEW or an argument is NULL.
 */
int vroce_mr_obj_describe(const struct vroce_mr_obj *mr, u32 pdn,
			  struct vroce_mr_desc *desc);

/**
 * vroce_mr_obj_registered() - CREATE_MR succeeded: NEW -> LIVE
 * @mr: the object
 * @key: the key the HCA returned
 * @handle: the handle the HCA returned; DESTROY_MR takes it
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mr is not NEW.
 */
int vroce_mr_obj_registered(struct vroce_mr_obj *mr, u32 key, u32 handle);

/**
 * vroce_mr_obj_create_failed() - CREATE_MR failed with @err
 * @mr: an object in state NEW
 * @err: the command's error
 *
 * A timed-out CREATE_MR of an MR with tables may have entered it in the
 * HCA under a key the driver never learnt: the object becomes LOST and
 * must be kept until the HCA is reset. Another error leaves a NEW object
 * NEW, to be destroyed. An object that is not NEW may be held by the HCA:
 * it is kept as it is.
 *
 * Context: any context.
 * Return: true when the object must be kept (now LOST, or not NEW),
 * false when it may be destroyed.
 */
bool vroce_mr_obj_create_failed(struct vroce_mr_obj *mr, int err);

/**
 * vroce_mr_obj_parked() - DESTROY_MR was not confirmed: LIVE -> ZOMBIE
 * @mr: the object
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mr is not LIVE.
 */
int vroce_mr_obj_parked(struct vroce_mr_obj *mr);

/**
 * vroce_mr_obj_released() - the HCA no longer holds the MR: -> GONE
 * @mr: the object
 * @hca_reset: the HCA was reset (a LOST object may go only then)
 *
 * Call once DESTROY_MR succeeded or found no such MR (LIVE or ZOMBIE), or
 * after an HCA reset (LIVE, ZOMBIE or LOST).
 *
 * Context: any context.
 * Return: 0, or -EINVAL when the object is LOST and @hca_reset is false,
 * or it is NEW or already GONE.
 */
int vroce_mr_obj_released(struct vroce_mr_obj *mr, bool hca_reset);

/**
 * vroce_mr_obj_info() - read an MR object
 * @mr: the object
 * @info: where it is written
 *
 * Context: any context.
 */
void vroce_mr_obj_info(const struct vroce_mr_obj *mr,
		       struct vroce_mr_info *info);

/**
 * vroce_mr_obj_pages_reset() - empty a fast-register MR's page list
 * @mr: the object
 *
 * map_mr_sg starts here; the HCA's table changes only when a REG_MR work
 * request carrying the list executes.
 *
 * Context: any context; does not sleep.
 * Return: 0, or -EINVAL for an MR that is not a fast-register one.
 */
int vroce_mr_obj_pages_reset(struct vroce_mr_obj *mr);

/**
 * vroce_mr_obj_page_add() - append a page to a fast-register MR's list
 * @mr: the object
 * @dma: the page's DMA address, aligned to VROCE_MR_FRMR_PAGE_SHIFT
 *
 * Context: any context; does not sleep.
 * Return: 0; -ENOMEM when the list is full; -EINVAL for an MR that is not
 * a fast-register one, or a misaligned @dma.
 */
int vroce_mr_obj_page_add(struct vroce_mr_obj *mr, u64 dma);

/**
 * vroce_mr_obj_page() - one entry of a fast-register MR's page list
 * @mr: the object
 * @index: the entry, below the pages collected
 * @dma: where its DMA address is written
 *
 * Context: any context.
 * Return: 0, or -EINVAL for an MR that is not a fast-register one, an
 * @index past the pages collected, or a NULL @dma.
 */
int vroce_mr_obj_page(const struct vroce_mr_obj *mr, u32 index, u64 *dma);

/**
 * vroce_mr_obj_destroy() - free an MR object the HCA does not hold
 * @dev: the device it was created on
 * @mr: an object in state NEW or GONE, or NULL
 *
 * Frees the MTR (and unpins user memory), the page list and the object.
 * An object in another state is not freed (the HCA may still translate
 * through its tables): that is a driver bug, warned about once, and the
 * memory leaks rather than being reused under the HCA.
 *
 * Context: process context, may sleep.
 */
void vroce_mr_obj_destroy(struct vroce_dev *dev, struct vroce_mr_obj *mr);

/*
 * Memory windows (issue 30). A window object holds what the driver keeps
 * for a memory window besides the RDMA core's struct ib_mw: its type and
 * PD, the HCA's key and handle, and its state. Like the MR object it
 * never calls the command layer: the caller issues ALLOC_MW/DEALLOC_MW
 * and reports each outcome here. Binds and invalidations are work
 * requests the HCA executes; the driver does not see them, and the key
 * here is the one ALLOC_MW returned (a bind changes its low byte).
 *
 * States (the MR object's values and rules):
 *
 *   NEW --allocated()--> LIVE --released()--> GONE
 *   NEW --alloc_failed(-ETIMEDOUT)--> LOST
 *   LIVE --parked()--> ZOMBIE --released()--> GONE
 *
 *   LOST --released(hca_reset = true)--> GONE
 *
 * A window owns no memory the HCA reaches (it reaches the bound MR's,
 * and checks that MR's key at every access), so destroying a window the
 * HCA may still hold leaks no page to the HCA; it is refused all the
 * same, so that the HCA's MPT entry and the driver's view agree: only
 * NEW and GONE objects are freed.
 *
 * Concurrency: the caller serialises every call on one object (the verbs
 * do: an MW is not used concurrently with its allocation or
 * deallocation). Every @mw argument is a live object, never NULL, unless
 * a function says otherwise.
 */

/* Window types (IB_MW_TYPE_* and VROCE_MW_TYPE_* of vroce_cmds.h). */
#define VROCE_MW_OBJ_TYPE_1		1
#define VROCE_MW_OBJ_TYPE_2		2

/**
 * struct vroce_mw_desc - what ALLOC_MW tells the HCA about a window
 * @pdn: protection domain
 * @type: VROCE_MW_OBJ_TYPE_1 or VROCE_MW_OBJ_TYPE_2
 */
struct vroce_mw_desc {
	u32 pdn;
	u32 type;
};

/**
 * struct vroce_mw_info - what the driver may read of a window object
 * @type: VROCE_MW_OBJ_TYPE_1 or VROCE_MW_OBJ_TYPE_2
 * @state: VROCE_MR_STATE_*
 * @pdn: the protection domain it was created for
 * @key: the R_Key ALLOC_MW returned (LIVE and ZOMBIE), else 0
 * @handle: the handle ALLOC_MW returned (LIVE and ZOMBIE), else 0
 */
struct vroce_mw_info {
	u32 type;
	u32 state;
	u32 pdn;
	u32 key;
	u32 handle;
};

/**
 * vroce_mw_obj_create() - a window object, not yet known to the HCA
 * @dev: the device
 * @type: the window type asked for (IB_MW_TYPE_* values)
 * @pdn: its protection domain
 * @mw: where the new object (state NEW) is returned; only on success
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a NULL @dev or @mw, or a @type other than 1 or
 * 2; -ENOMEM.
 */
int vroce_mw_obj_create(struct vroce_dev *dev, u32 type, u32 pdn,
			struct vroce_mw_obj **mw);

/**
 * vroce_mw_obj_describe() - what ALLOC_MW is to be told
 * @mw: an object in state NEW
 * @desc: where the description is written
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mw is not NEW or @desc is NULL.
 */
int vroce_mw_obj_describe(const struct vroce_mw_obj *mw,
			  struct vroce_mw_desc *desc);

/**
 * vroce_mw_obj_allocated() - ALLOC_MW succeeded: NEW -> LIVE
 * @mw: the object
 * @key: the R_Key the HCA returned
 * @handle: the handle the HCA returned; DEALLOC_MW takes it
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mw is not NEW.
 */
int vroce_mw_obj_allocated(struct vroce_mw_obj *mw, u32 key, u32 handle);

/**
 * vroce_mw_obj_alloc_failed() - ALLOC_MW failed with @err
 * @mw: an object in state NEW
 * @err: the command's error
 *
 * A timed-out ALLOC_MW may have taken an MPT entry under a key the driver
 * never learnt: the object becomes LOST, kept until the HCA is reset.
 * Another error leaves a NEW object NEW, to be destroyed. An object that
 * is not NEW is kept as it is.
 *
 * Context: any context.
 * Return: true when the object must be kept (now LOST, or not NEW),
 * false when it may be destroyed.
 */
bool vroce_mw_obj_alloc_failed(struct vroce_mw_obj *mw, int err);

/**
 * vroce_mw_obj_parked() - DEALLOC_MW was not confirmed: LIVE -> ZOMBIE
 * @mw: the object
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @mw is not LIVE.
 */
int vroce_mw_obj_parked(struct vroce_mw_obj *mw);

/**
 * vroce_mw_obj_released() - the HCA no longer holds the window: -> GONE
 * @mw: the object
 * @hca_reset: the HCA was reset (a LOST object may go only then)
 *
 * Context: any context.
 * Return: 0, or -EINVAL when the object is LOST and @hca_reset is false,
 * or it is NEW or already GONE.
 */
int vroce_mw_obj_released(struct vroce_mw_obj *mw, bool hca_reset);

/**
 * vroce_mw_obj_info() - read a window object
 * @mw: the object
 * @info: where it is written
 *
 * Context: any context.
 */
void vroce_mw_obj_info(const struct vroce_mw_obj *mw,
		       struct vroce_mw_info *info);

/**
 * vroce_mw_obj_destroy() - free a window object the HCA does not hold
 * @dev: the device it was created on
 * @mw: an object in state NEW or GONE, or NULL
 *
 * An object in another state is not freed: a driver bug, warned about
 * once (the object leaks).
 *
 * Context: process context, may sleep.
 */
void vroce_mw_obj_destroy(struct vroce_dev *dev, struct vroce_mw_obj *mw);

#endif /* _VROCE_ABI_H_ */
