// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: memory translate regions (MTR), the C implementation of the MTR
 * functions of bindings/vroce_abi.h.
 *
 * What the HCA walks, with unit = BA table (BT) page size / 8 entries:
 * - A direct MTR (every region hop 0) has no tables: the root BA is the
 *   first page of a contiguous buffer.
 * - Otherwise one root BT page is shared by all regions, each region's
 *   root entries following the previous region's:
 *   hop 0: one entry, the address of the region's first page (the
 *          region's pages are contiguous);
 *   hop 1: one entry per page, the page's address;
 *   hop 2: entries point to ceil(count / unit) bottom BT pages, whose
 *          entries are the pages' addresses;
 *   hop 3: entries point to ceil(count / unit^2) middle BT pages, whose
 *          entries point to ceil(count / unit) bottom BT pages.
 * - Entries are 64-bit little-endian DMA addresses; unused ones are 0.
 * The region layout (offset, count, hop) is what the HCA is told besides
 * the root BA and the two page shifts.
 */

#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/* Yield the CPU every this many table pages or entries written. */
#define VROCE_MTR_RESCHED_EVERY	1024

#define VROCE_BA_BYTES_SHIFT	3	/* ilog2(VROCE_MTR_BA_BYTES) */

/* One BA table page. */
struct vroce_bt {
	__le64 *va;
	dma_addr_t dma;
};

/*
 * One region as built. @mid and @btm are arrays of @nr_mid and @nr_btm
 * table pages (hop 3 has both, hop 2 only bottom pages).
 */
struct vroce_mtr_rgn {
	u64 offset;
	u64 count;
	u32 hopnum;
	u64 root_index;
	u64 nr_mid;
	u64 nr_btm;
	struct vroce_bt *mid;
	struct vroce_bt *btm;
};

/* A DMA-coherent piece of a kernel buffer, @npages buffer pages long. */
struct vroce_buf_chunk {
	void *va;
	dma_addr_t dma;
	u64 npages;
};

struct vroce_mtr {
	struct vroce_dev *dev;
	struct ib_umem *umem;
	struct vroce_buf_chunk *chunks;
	u64 nr_chunks;
	u32 buf_pg_shift;
	u32 ba_pg_shift;
	u64 page_count;
	u64 mapped;
	bool is_direct;
	bool mtt_only;
	bool sparse;
	dma_addr_t root_ba;
	struct vroce_bt root;
	u32 region_count;
	struct vroce_mtr_rgn region[VROCE_MTR_MAX_REGIONS];
	/*
	 * For find's one-page path, the tables holding the first region's
	 * page entries: its bottom tables (hop 2 or 3), or the root (hop 1;
	 * the region's entries start the root). Page i's entry is
	 * leaf[i >> leaf_shift].va[i & leaf_mask] for i below leaf_pages (0
	 * when the first region has no such tables); leaf_limit is the
	 * smaller of leaf_pages and the mapped count.
	 */
	const struct vroce_bt *leaf;
	u64 leaf_pages;
	u64 leaf_limit;
	u64 leaf_mask;
	u32 leaf_shift;
};

/* The pages find() reports from now on: the first @n. */
static void vroce_mtr_set_mapped(struct vroce_mtr *mtr, u64 n)
{
	mtr->mapped = n;
	mtr->leaf_limit = min(n, mtr->leaf_pages);
}

/* Called once per table page or chunk; never on the first, see map(). */
static void vroce_mtr_maybe_resched(u64 i)
{
	if (i && !(i % VROCE_MTR_RESCHED_EVERY))
		vroce_core_resched();
}

static u32 vroce_unit_shift(u32 ba_pg_shift)
{
	return ba_pg_shift - VROCE_BA_BYTES_SHIFT;
}

static u64 vroce_div_round_up_shift(u64 n, u32 shift)
{
	return (n >> shift) + !!(n & (BIT_ULL(shift) - 1));
}

/* Root entries a region of @count pages behind @hop levels needs. */
static u64 vroce_rgn_root_entries(u64 count, u32 hop, u32 ushift)
{
	switch (hop) {
	case 0:
		return 1;
	case 1:
		return count;
	default:
		return vroce_div_round_up_shift(count, ushift * (hop - 1));
	}
}

static int vroce_mtr_check_attr(const struct vroce_buf_attr *attr,
				u32 ba_page_shift, bool user)
{
	u64 pages = 0;
	u32 i;

	if (!attr->region_count || attr->region_count > VROCE_MTR_MAX_REGIONS)
		return -EINVAL;
	if (attr->page_shift < VROCE_MTR_MIN_PAGE_SHIFT ||
	    attr->page_shift > VROCE_MTR_MAX_PAGE_SHIFT)
		return -EINVAL;
	if (ba_page_shift < VROCE_MTR_MIN_PAGE_SHIFT ||
	    ba_page_shift > VROCE_MTR_MAX_BA_PAGE_SHIFT)
		return -EINVAL;
	if (attr->mtt_only && user)
		return -EINVAL;
	/* Sparse: one table-only region with tables (hop 1 or more). */
	if (attr->sparse &&
	    (!attr->mtt_only || attr->region_count != 1 ||
	     (!attr->adaptive && !attr->region[0].hopnum)))
		return -EINVAL;

	for (i = 0; i < attr->region_count; i++) {
		const struct vroce_buf_region_attr *r = &attr->region[i];

		if (!r->size || r->hopnum > VROCE_MTR_MAX_HOP)
			return -EINVAL;
		/* Bounded first, so that neither rounding nor the sum wraps. */
		if (r->size > VROCE_MTR_MAX_PAGES << attr->page_shift)
			return -EINVAL;
		pages += vroce_div_round_up_shift(r->size, attr->page_shift);
	}
	if (pages > VROCE_MTR_MAX_PAGES)
		return -EINVAL;

	return 0;
}

static u64 vroce_attr_total_size(const struct vroce_buf_attr *attr)
{
	u64 size = 0;
	u32 i;

	for (i = 0; i < attr->region_count; i++)
		size += attr->region[i].size;
	return size;
}

/* Page counts of a kernel or table-only buffer follow from the sizes. */
static void vroce_mtr_kernel_layout(struct vroce_mtr *mtr,
				    const struct vroce_buf_attr *attr)
{
	u32 i;

	mtr->buf_pg_shift = attr->page_shift;
	for (i = 0; i < attr->region_count; i++)
		mtr->region[i].count =
			vroce_div_round_up_shift(attr->region[i].size,
						 attr->page_shift);
}

/*
 * A user buffer's page size is the largest one, up to the one asked for
 * (exactly the one asked for unless adaptive), at which the pinned memory
 * and @iova agree; its page count comes from the pinned memory.
 */
static int vroce_mtr_user_layout(struct vroce_mtr *mtr,
				 const struct vroce_buf_attr *attr)
{
	unsigned long pgsz;
	u64 blocks, sum = 0;
	u32 i;

	pgsz = vroce_core_umem_page_size(mtr->umem, VROCE_MTR_MIN_PAGE_SHIFT,
					 attr->page_shift, attr->iova);
	if (!pgsz || (!attr->adaptive && pgsz != BIT(attr->page_shift)))
		return -EINVAL;
	mtr->buf_pg_shift = ilog2(pgsz);

	blocks = vroce_core_umem_block_count(mtr->umem, pgsz);
	if (blocks > VROCE_MTR_MAX_PAGES)
		return -EINVAL;
	if (attr->region_count == 1) {
		mtr->region[0].count = blocks;
		return 0;
	}

	/* Several regions: each a whole number of pages, together the buffer. */
	for (i = 0; i < attr->region_count; i++) {
		u64 size = attr->region[i].size;

		if (!IS_ALIGNED(size, pgsz))
			return -EINVAL;
		mtr->region[i].count = size >> mtr->buf_pg_shift;
		sum += mtr->region[i].count;
	}
	return sum == blocks ? 0 : -EINVAL;
}

/*
 * Offsets, hop numbers and the BT page size. Adaptive regions get the
 * smallest hop whose tables, at the asked-for BT page size, cover them.
 * The BT page size is then the smallest from @ba_page_shift up whose one
 * root page holds every region's root entries.
 */
static int vroce_mtr_set_hops(struct vroce_mtr *mtr,
			      const struct vroce_buf_attr *attr,
			      u32 ba_page_shift)
{
	u32 ushift = vroce_unit_shift(ba_page_shift);
	u64 offset = 0, need;
	u32 i, shift;

	mtr->is_direct = true;
	for (i = 0; i < mtr->region_count; i++) {
		struct vroce_mtr_rgn *rgn = &mtr->region[i];
		u32 hop = attr->region[i].hopnum;

		if (attr->adaptive)
			for (hop = attr->sparse; hop < VROCE_MTR_MAX_HOP &&
			     rgn->count > BIT_ULL(ushift * hop); hop++)
				;
		rgn->hopnum = hop;
		rgn->offset = offset;
		offset += rgn->count;
		if (hop)
			mtr->is_direct = false;
	}
	mtr->page_count = offset;

	if (mtr->is_direct) {
		mtr->ba_pg_shift = ba_page_shift;
		return 0;
	}

	for (shift = ba_page_shift; shift <= VROCE_MTR_MAX_BA_PAGE_SHIFT;
	     shift++) {
		ushift = vroce_unit_shift(shift);
		need = 0;
		for (i = 0; i < mtr->region_count; i++) {
			mtr->region[i].root_index = need;
			need += vroce_rgn_root_entries(mtr->region[i].count,
						       mtr->region[i].hopnum,
						       ushift);
		}
		if (need <= BIT_ULL(ushift)) {
			mtr->ba_pg_shift = shift;
			return 0;
		}
	}
	return -ERANGE;
}

static void vroce_mtr_free_bt_array(struct vroce_mtr *mtr,
				    struct vroce_bt *bt, u64 nr)
{
	size_t size = BIT(mtr->ba_pg_shift);
	u64 i;

	if (!bt)
		return;
	for (i = 0; i < nr; i++) {
		/* A sparse MTR's tables: only those built. */
		if (bt[i].va)
			vroce_core_dma_free(mtr->dev, size, bt[i].va,
					    bt[i].dma);
		vroce_mtr_maybe_resched(i);
	}
	vroce_core_free(mtr->dev, bt);
}

/* Mirror of vroce_mtr_alloc_tables(); also undoes a partial build. */
static void vroce_mtr_free_tables(struct vroce_mtr *mtr)
{
	u32 i;

	for (i = 0; i < mtr->region_count; i++) {
		struct vroce_mtr_rgn *rgn = &mtr->region[i];

		vroce_mtr_free_bt_array(mtr, rgn->mid, rgn->nr_mid);
		vroce_mtr_free_bt_array(mtr, rgn->btm, rgn->nr_btm);
		rgn->mid = NULL;
		rgn->btm = NULL;
	}
	mtr->leaf = NULL;
	mtr->leaf_pages = 0;
	mtr->leaf_limit = 0;
	vroce_core_dma_free(mtr->dev, BIT(mtr->ba_pg_shift), mtr->root.va,
			    mtr->root.dma);
	mtr->root.va = NULL;
	mtr->root_ba = 0;
}

static struct vroce_bt *vroce_mtr_alloc_bt_array(struct vroce_mtr *mtr, u64 nr)
{
	size_t size = BIT(mtr->ba_pg_shift);
	struct vroce_bt *bt;
	u64 i;

	bt = vroce_core_zalloc(mtr->dev, array_size(nr, sizeof(*bt)));
	if (!bt)
		return NULL;
	for (i = 0; i < nr; i++) {
		bt[i].va = vroce_core_dma_alloc(mtr->dev, size, &bt[i].dma);
		if (!bt[i].va) {
			vroce_mtr_free_bt_array(mtr, bt, i);
			return NULL;
		}
		vroce_mtr_maybe_resched(i);
	}
	return bt;
}

/* Point @nr entries of @table, from @first, at the pages of @bt. */
static void vroce_bt_link(__le64 *table, u64 first, const struct vroce_bt *bt,
			  u64 nr)
{
	u64 i;

	for (i = 0; i < nr; i++)
		table[first + i] = cpu_to_le64(bt[i].dma);
}

/*
 * A sparse MTR's one region: the root now, and for hop 2 and 3 room to
 * note the bottom and middle tables, which vroce_mtr_map_range() builds.
 * No one-page path for find (leaf stays NULL).
 */
static int vroce_mtr_alloc_sparse(struct vroce_mtr *mtr)
{
	u32 ushift = vroce_unit_shift(mtr->ba_pg_shift);
	struct vroce_mtr_rgn *rgn = &mtr->region[0];

	if (rgn->hopnum < 2)
		return 0;
	rgn->nr_btm = vroce_div_round_up_shift(rgn->count, ushift);
	rgn->btm = vroce_core_zalloc(mtr->dev,
				     array_size(rgn->nr_btm, sizeof(*rgn->btm)));
	if (!rgn->btm)
		goto err_free_tables;
	if (rgn->hopnum == 2)
		return 0;
	rgn->nr_mid = vroce_div_round_up_shift(rgn->count, 2 * ushift);
	rgn->mid = vroce_core_zalloc(mtr->dev,
				     array_size(rgn->nr_mid, sizeof(*rgn->mid)));
	if (!rgn->mid)
		goto err_free_tables;
	return 0;

err_free_tables:
	vroce_mtr_free_tables(mtr);
	return -ENOMEM;
}

static int vroce_mtr_alloc_tables(struct vroce_mtr *mtr)
{
	u32 ushift = vroce_unit_shift(mtr->ba_pg_shift);
	u64 unit = BIT_ULL(ushift), m;
	u32 i;

	mtr->root.va = vroce_core_dma_alloc(mtr->dev, BIT(mtr->ba_pg_shift),
					    &mtr->root.dma);
	if (!mtr->root.va)
		return -ENOMEM;
	mtr->root_ba = mtr->root.dma;
	if (mtr->sparse)
		return vroce_mtr_alloc_sparse(mtr);

	for (i = 0; i < mtr->region_count; i++) {
		struct vroce_mtr_rgn *rgn = &mtr->region[i];

		if (!i && rgn->hopnum == 1) {
			/* Entries from root index 0; i >> 63 is 0. */
			mtr->leaf = &mtr->root;
			mtr->leaf_pages = rgn->count;
			mtr->leaf_shift = 63;
			mtr->leaf_mask = U64_MAX;
		}
		if (rgn->hopnum < 2)
			continue;

		rgn->nr_btm = vroce_div_round_up_shift(rgn->count, ushift);
		rgn->btm = vroce_mtr_alloc_bt_array(mtr, rgn->nr_btm);
		if (!rgn->btm)
			goto err_free_tables;

		if (!i) {
			mtr->leaf = rgn->btm;
			mtr->leaf_pages = rgn->count;
			mtr->leaf_shift = ushift;
			mtr->leaf_mask = unit - 1;
		}
		if (rgn->hopnum == 2) {
			vroce_bt_link(mtr->root.va, rgn->root_index, rgn->btm,
				      rgn->nr_btm);
			continue;
		}

		rgn->nr_mid = vroce_div_round_up_shift(rgn->count, 2 * ushift);
		rgn->mid = vroce_mtr_alloc_bt_array(mtr, rgn->nr_mid);
		if (!rgn->mid)
			goto err_free_tables;
		for (m = 0; m < rgn->nr_mid; m++)
			vroce_bt_link(rgn->mid[m].va, 0, &rgn->btm[m * unit],
				      min(unit, rgn->nr_btm - m * unit));
		vroce_bt_link(mtr->root.va, rgn->root_index, rgn->mid,
			      rgn->nr_mid);
	}
	return 0;

err_free_tables:
	vroce_mtr_free_tables(mtr);
	return -ENOMEM;
}

static void vroce_mtr_free_kbuf(struct vroce_mtr *mtr)
{
	u64 i;

	if (!mtr->chunks)
		return;
	for (i = 0; i < mtr->nr_chunks; i++)
		vroce_core_dma_free(mtr->dev,
				    mtr->chunks[i].npages << mtr->buf_pg_shift,
				    mtr->chunks[i].va, mtr->chunks[i].dma);
	vroce_core_free(mtr->dev, mtr->chunks);
	mtr->chunks = NULL;
}

/*
 * A kernel buffer is one contiguous chunk when the MTR is direct, one per
 * hop-0 region, and one per page elsewhere.
 */
static int vroce_mtr_alloc_kbuf(struct vroce_mtr *mtr)
{
	struct vroce_buf_chunk *c;
	u64 nr = 0, p;
	u32 i;

	if (mtr->is_direct) {
		nr = 1;
	} else {
		for (i = 0; i < mtr->region_count; i++)
			nr += mtr->region[i].hopnum ? mtr->region[i].count : 1;
	}

	mtr->chunks = vroce_core_zalloc(mtr->dev, array_size(nr, sizeof(*c)));
	if (!mtr->chunks)
		return -ENOMEM;
	mtr->nr_chunks = nr;

	c = mtr->chunks;
	if (mtr->is_direct) {
		c->npages = mtr->page_count;
	} else {
		for (i = 0; i < mtr->region_count; i++) {
			if (!mtr->region[i].hopnum) {
				(c++)->npages = mtr->region[i].count;
				continue;
			}
			for (p = 0; p < mtr->region[i].count; p++)
				(c++)->npages = 1;
		}
	}

	for (p = 0; p < nr; p++) {
		c = &mtr->chunks[p];
		c->va = vroce_core_dma_alloc(mtr->dev,
					     c->npages << mtr->buf_pg_shift,
					     &c->dma);
		if (!c->va) {
			vroce_mtr_free_kbuf(mtr);
			return -ENOMEM;
		}
		vroce_mtr_maybe_resched(p);
	}
	return 0;
}

/* Whether @n pages from @pages follow each other in DMA address space. */
static bool vroce_pages_contiguous(const dma_addr_t *pages, u64 n, u32 shift)
{
	u64 i;

	for (i = 1; i < n; i++)
		if (pages[i] != pages[0] + (i << shift))
			return false;
	return true;
}

/* Copy @n page addresses into table entries; return them OR-ed together. */
static u64 vroce_bt_fill(__le64 *dst, const dma_addr_t *src, u64 n)
{
	u64 acc = 0, i;

	for (i = 0; i < n; i++) {
		dst[i] = cpu_to_le64(src[i]);
		acc |= src[i];
	}
	return acc;
}

/* Write the first @n pages of a region; return their addresses OR-ed. */
static u64 vroce_mtr_map_region(struct vroce_mtr *mtr,
				struct vroce_mtr_rgn *rgn,
				const dma_addr_t *pages, u64 n)
{
	u32 ushift = vroce_unit_shift(mtr->ba_pg_shift);
	u64 unit = BIT_ULL(ushift), acc = 0, b;

	switch (rgn->hopnum) {
	case 0:
		return vroce_bt_fill(&mtr->root.va[rgn->root_index], pages, 1);
	case 1:
		return vroce_bt_fill(&mtr->root.va[rgn->root_index], pages, n);
	default:
		for (b = 0; b << ushift < n; b++) {
			acc |= vroce_bt_fill(rgn->btm[b].va, pages + (b << ushift),
					     min(unit, n - (b << ushift)));
			vroce_mtr_maybe_resched(b);
		}
		return acc;
	}
}

/*
 * Write the first @count page addresses; the caller checked @count. Runs
 * that the HCA addresses from a base must be contiguous, and every address
 * must be page aligned; a failure may leave entries written, which the
 * caller then reports as unmapped.
 */
static int __vroce_mtr_map(struct vroce_mtr *mtr, const dma_addr_t *pages,
			   u64 count)
{
	u64 pgmask = BIT_ULL(mtr->buf_pg_shift) - 1, acc = 0, done, n;
	u32 r;

	if (mtr->is_direct) {
		if (pages[0] & pgmask)
			return -EINVAL;
		if (!vroce_pages_contiguous(pages, count, mtr->buf_pg_shift))
			return -ENOBUFS;
		mtr->root_ba = pages[0];
		return 0;
	}

	for (r = 0; r < mtr->region_count; r++) {
		struct vroce_mtr_rgn *rgn = &mtr->region[r];

		if (rgn->offset >= count)
			break;
		n = min(rgn->count, count - rgn->offset);
		if (!rgn->hopnum &&
		    !vroce_pages_contiguous(pages + rgn->offset, n,
					    mtr->buf_pg_shift))
			return -ENOBUFS;
	}

	for (r = 0, done = 0; r < mtr->region_count && done < count; r++) {
		n = min(mtr->region[r].count, count - done);
		acc |= vroce_mtr_map_region(mtr, &mtr->region[r], pages + done, n);
		done += n;
	}
	return acc & pgmask ? -EINVAL : 0;
}

/* Map the pages of the MTR's own buffer, kernel or user. */
static int vroce_mtr_map_buf(struct vroce_mtr *mtr)
{
	dma_addr_t *pages;
	u64 n = 0, i;
	int err;

	pages = vroce_core_zalloc(mtr->dev,
				  array_size(mtr->page_count, sizeof(*pages)));
	if (!pages)
		return -ENOMEM;

	if (mtr->umem) {
		n = vroce_core_umem_dma_blocks(mtr->umem, BIT(mtr->buf_pg_shift),
					       pages, mtr->page_count);
	} else {
		for (i = 0; i < mtr->nr_chunks; i++) {
			const struct vroce_buf_chunk *c = &mtr->chunks[i];
			u64 p;

			for (p = 0; p < c->npages; p++)
				pages[n++] = c->dma + (p << mtr->buf_pg_shift);
		}
	}

	err = n == mtr->page_count ? __vroce_mtr_map(mtr, pages, n) : -ENOBUFS;
	if (!err)
		vroce_mtr_set_mapped(mtr, n);
	vroce_core_free(mtr->dev, pages);
	return err;
}

int vroce_mtr_create(struct vroce_dev *dev, struct vroce_mtr **mtrp,
		     const struct vroce_buf_attr *attr, u32 ba_page_shift,
		     struct ib_udata *udata, unsigned long user_addr)
{
	struct vroce_mtr *mtr;
	int err;

	if (!dev || !mtrp || !attr)
		return -EINVAL;
	err = vroce_mtr_check_attr(attr, ba_page_shift, udata);
	if (err)
		return err;

	mtr = vroce_core_zalloc(dev, sizeof(*mtr));
	if (!mtr)
		return -ENOMEM;
	mtr->dev = dev;
	mtr->mtt_only = attr->mtt_only;
	mtr->sparse = attr->sparse;
	mtr->region_count = attr->region_count;

	if (udata) {
		mtr->umem = vroce_core_umem_get(dev, user_addr,
						vroce_attr_total_size(attr),
						attr->user_access);
		if (IS_ERR(mtr->umem)) {
			err = PTR_ERR(mtr->umem);
			mtr->umem = NULL;
			goto err_free_mtr;
		}
		err = vroce_mtr_user_layout(mtr, attr);
		if (err)
			goto err_free_buf;
	} else {
		vroce_mtr_kernel_layout(mtr, attr);
	}

	err = vroce_mtr_set_hops(mtr, attr, ba_page_shift);
	if (err)
		goto err_free_buf;

	if (!udata && !mtr->mtt_only) {
		err = vroce_mtr_alloc_kbuf(mtr);
		if (err)
			goto err_free_mtr;
	}

	if (!mtr->is_direct) {
		err = vroce_mtr_alloc_tables(mtr);
		if (err)
			goto err_free_buf;
	}

	if (!mtr->mtt_only) {
		err = vroce_mtr_map_buf(mtr);
		if (err)
			goto err_free_tables;
	}

	*mtrp = mtr;
	return 0;

err_free_tables:
	vroce_mtr_free_tables(mtr);
err_free_buf:
	vroce_mtr_free_kbuf(mtr);
	vroce_core_umem_release(dev, mtr->umem);
err_free_mtr:
	vroce_core_free(dev, mtr);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_create);

void vroce_mtr_destroy(struct vroce_dev *dev, struct vroce_mtr *mtr)
{
	if (!mtr)
		return;
	if (!mtr->is_direct)
		vroce_mtr_free_tables(mtr);
	vroce_mtr_free_kbuf(mtr);
	vroce_core_umem_release(dev, mtr->umem);
	vroce_core_free(dev, mtr);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_destroy);

int vroce_mtr_map(struct vroce_dev *dev, struct vroce_mtr *mtr,
		  const dma_addr_t *pages, u64 count)
{
	int err;

	if (!mtr || !pages || !count || count > mtr->page_count ||
	    mtr->sparse)
		return -EINVAL;
	/* From here on, a failed map leaves no page mapped. */
	vroce_mtr_set_mapped(mtr, 0);
	if (!mtr->mtt_only && count != mtr->page_count)
		return -ENOBUFS;

	err = __vroce_mtr_map(mtr, pages, count);
	if (!err)
		vroce_mtr_set_mapped(mtr, count);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_map);

/* The page addresses in @n table entries from @src. */
static void vroce_bt_read(u64 *addrs, const __le64 *src, u64 n)
{
	u64 i;

#ifdef __LITTLE_ENDIAN
	/* The entries are the addresses: one copy for a run. */
	if (n > 1) {
		memcpy(addrs, src, n * sizeof(*addrs));
		return;
	}
#endif
	for (i = 0; i < n; i++)
		addrs[i] = le64_to_cpu(src[i]);
}

/* The region holding page @idx; @idx is below the page count. */
static const struct vroce_mtr_rgn *
vroce_mtr_rgn_of(const struct vroce_mtr *mtr, u64 idx)
{
	u32 r = 0;

	while (idx >= mtr->region[r].offset + mtr->region[r].count)
		r++;
	return &mtr->region[r];
}

/*
 * The addresses of up to @max pages from page @idx on, as the HCA would
 * find them, all from one table (or computed, for a hop-0 region or a
 * direct MTR), and that table's address in @table. @idx is below the
 * mapped count and @max at least 1 and at most the pages mapped from
 * @idx. Returns how many were written, at least 1: one table at a time,
 * the entries are copied in a tight loop.
 */
static u32 vroce_mtr_run(const struct vroce_mtr *mtr, u64 idx, u32 max,
			 u64 *addrs, u64 *table)
{
	u32 ushift = vroce_unit_shift(mtr->ba_pg_shift);
	const struct vroce_mtr_rgn *rgn;
	const __le64 *src;
	u64 l, base;
	u32 n;

	if (mtr->is_direct) {
		*table = mtr->root_ba;
		for (n = 0; n < max; n++)
			addrs[n] = mtr->root_ba + ((idx + n) << mtr->buf_pg_shift);
		return max;
	}

	rgn = vroce_mtr_rgn_of(mtr, idx);
	l = idx - rgn->offset;
	max = min_t(u64, max, rgn->offset + rgn->count - idx);
	switch (rgn->hopnum) {
	case 0:
		base = le64_to_cpu(mtr->root.va[rgn->root_index]);
		*table = base;
		for (n = 0; n < max; n++)
			addrs[n] = base + ((l + n) << mtr->buf_pg_shift);
		return max;
	case 1:
		*table = mtr->root.dma;
		src = &mtr->root.va[rgn->root_index + l];
		break;
	default:
		*table = rgn->btm[l >> ushift].dma;
		src = &rgn->btm[l >> ushift].va[l & (BIT_ULL(ushift) - 1)];
		max = min_t(u64, max,
			    BIT_ULL(ushift) - (l & (BIT_ULL(ushift) - 1)));
		break;
	}
	vroce_bt_read(addrs, src, max);
	return max;
}

/*
 * find() from page @idx on, below the mapped count: one copy when the
 * pages are all in one of the one-page path's tables, else runs of
 * entries, one table at a time. Out of line, so that find's one-page path
 * needs no stack frame.
 */
static noinline int vroce_mtr_find_runs(const struct vroce_mtr *mtr, u64 idx,
					u64 *addrs, u32 max, u64 *base_addr)
{
	u64 table, first_table = 0, in_bt = idx & mtr->leaf_mask;
	const struct vroce_bt *bt;
	u32 n;

	/* @max mapped pages of one of the one-page path's tables: one copy. */
	if (idx < mtr->leaf_limit && max <= mtr->leaf_limit - idx &&
	    max - 1 <= mtr->leaf_mask - in_bt) {
		bt = &mtr->leaf[idx >> mtr->leaf_shift];
		vroce_bt_read(addrs, &bt->va[in_bt], max);
		if (base_addr)
			*base_addr = bt->dma;
		return max;
	}

	max = min_t(u64, max, mtr->mapped - idx);
	n = vroce_mtr_run(mtr, idx, max, addrs, &first_table);
	while (n < max)
		n += vroce_mtr_run(mtr, idx + n, max - n, addrs + n, &table);
	if (base_addr)
		*base_addr = first_table;
	return n;
}

/* ---- sparse MTRs (on-demand paging) ---- */

/*
 * Link a table just built (zeroed by its allocation) into the entry above
 * it: its contents are visible to the HCA before the entry that leads
 * there.
 */
static void vroce_bt_publish(__le64 *entry, const struct vroce_bt *bt)
{
	vroce_core_dma_wmb();
	WRITE_ONCE(*entry, cpu_to_le64(bt->dma));
}

/* Build table @bt and link it at @up; 0 or -ENOMEM. */
static int vroce_bt_build(struct vroce_mtr *mtr, struct vroce_bt *bt,
			  __le64 *up)
{
	bt->va = vroce_core_dma_alloc(mtr->dev, BIT(mtr->ba_pg_shift),
				      &bt->dma);
	if (!bt->va)
		return -ENOMEM;
	vroce_bt_publish(up, bt);
	return 0;
}

/*
 * The table holding page @idx's entry in a sparse MTR, and its index
 * there: for hop 2 and 3 building what is missing above it when @build,
 * else NULL when a table is missing; ERR_PTR(-ENOMEM).
 */
static struct vroce_bt *vroce_mtr_sparse_bt(struct vroce_mtr *mtr, u64 idx,
					    bool build, u64 *index)
{
	u32 ushift = vroce_unit_shift(mtr->ba_pg_shift);
	struct vroce_mtr_rgn *rgn = &mtr->region[0];
	u64 mask = BIT_ULL(ushift) - 1, b = idx >> ushift;
	struct vroce_bt *bt, *mid;
	__le64 *up;

	if (rgn->hopnum == 1) {
		*index = rgn->root_index + idx;
		return &mtr->root;
	}
	up = &mtr->root.va[rgn->root_index + b];
	if (rgn->hopnum == 3) {
		mid = &rgn->mid[b >> ushift];
		if (!mid->va && (!build ||
				 vroce_bt_build(mtr, mid,
						&mtr->root.va[rgn->root_index +
							      (b >> ushift)])))
			return build ? ERR_PTR(-ENOMEM) : NULL;
		up = &mid->va[b & mask];
	}
	bt = &rgn->btm[b];
	if (!bt->va && (!build || vroce_bt_build(mtr, bt, up)))
		return build ? ERR_PTR(-ENOMEM) : NULL;
	*index = idx & mask;
	return bt;
}

/* [@first, @first + @count) is a non-empty range of @mtr's pages. */
static bool vroce_mtr_range_ok(const struct vroce_mtr *mtr, u64 first,
			       u64 count)
{
	return count && first < mtr->page_count &&
	       count <= mtr->page_count - first;
}

int vroce_mtr_map_range(struct vroce_dev *dev, struct vroce_mtr *mtr,
			u64 first, const dma_addr_t *pages, u64 count)
{
	struct vroce_bt *bt;
	u64 i, acc = 0, index;

	if (!mtr || !pages || !mtr->sparse ||
	    !vroce_mtr_range_ok(mtr, first, count))
		return -EINVAL;
	for (i = 0; i < count; i++)
		acc |= pages[i];
	if (acc & (BIT_ULL(mtr->buf_pg_shift) - 1))
		return -EINVAL;
	for (i = 0; i < count; i++) {
		bt = vroce_mtr_sparse_bt(mtr, first + i, true, &index);
		if (IS_ERR(bt))
			return PTR_ERR(bt);
		WRITE_ONCE(bt->va[index], cpu_to_le64(pages[i]));
		vroce_mtr_maybe_resched(i);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_map_range);

s64 vroce_mtr_unmap_range(struct vroce_dev *dev, struct vroce_mtr *mtr,
			  u64 first, u64 count)
{
	u64 mask = BIT_ULL(vroce_unit_shift(mtr ? mtr->ba_pg_shift :
					    VROCE_MTR_MIN_PAGE_SHIFT)) - 1;
	u64 idx = first, end, index;
	struct vroce_bt *bt;
	s64 was = 0;

	if (!mtr || !mtr->sparse || !vroce_mtr_range_ok(mtr, first, count))
		return -EINVAL;
	end = first + count;
	while (idx < end) {
		bt = vroce_mtr_sparse_bt(mtr, idx, false, &index);
		if (!bt) {
			/* No table: none of its pages is mapped. */
			idx = (idx | mask) + 1;
			continue;
		}
		if (READ_ONCE(bt->va[index])) {
			WRITE_ONCE(bt->va[index], 0);
			was++;
		}
		idx++;
	}
	return was;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_unmap_range);

/* find() on a sparse MTR: the mapped pages from @idx, up to @max. */
static int vroce_mtr_find_sparse(const struct vroce_mtr *mtr, u64 idx,
				 u64 *addrs, u32 max, u64 *base_addr)
{
	struct vroce_mtr *m = (struct vroce_mtr *)mtr;	/* nothing is built */
	struct vroce_bt *bt;
	u64 index, e;
	u32 n;

	for (n = 0; n < max && idx + n < mtr->page_count; n++) {
		bt = vroce_mtr_sparse_bt(m, idx + n, false, &index);
		e = bt ? le64_to_cpu(READ_ONCE(bt->va[index])) : 0;
		if (!e)
			break;
		if (!n && base_addr)
			*base_addr = bt->dma;
		addrs[n] = e;
	}
	return n ? n : -ENOENT;
}

int vroce_mtr_find(struct vroce_dev *dev, const struct vroce_mtr *mtr,
		   u64 offset, u64 *addrs, u32 max, u64 *base_addr)
{
	const struct vroce_bt *bt;
	u64 idx;

	if (!mtr || !addrs)
		return -EINVAL;

	idx = offset >> mtr->buf_pg_shift;
	/* One mapped page of the first region's tables: two loads. */
	if (max == 1 && idx < mtr->leaf_limit) {
		bt = &mtr->leaf[idx >> mtr->leaf_shift];
		addrs[0] = le64_to_cpu(bt->va[idx & mtr->leaf_mask]);
		if (base_addr)
			*base_addr = bt->dma;
		return 1;
	}
	if (max < 1)
		return -EINVAL;
	if (mtr->sparse)
		return vroce_mtr_find_sparse(mtr, idx, addrs, max, base_addr);
	if (idx >= mtr->mapped)
		return -ENOENT;
	return vroce_mtr_find_runs(mtr, idx, addrs, max, base_addr);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_find);

u64 vroce_mtr_root_ba(const struct vroce_mtr *mtr)
{
	return mtr->root_ba;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_root_ba);

bool vroce_mtr_is_direct(const struct vroce_mtr *mtr)
{
	return mtr->is_direct;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_is_direct);

u32 vroce_mtr_ba_page_shift(const struct vroce_mtr *mtr)
{
	return mtr->ba_pg_shift;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_ba_page_shift);

u32 vroce_mtr_buf_page_shift(const struct vroce_mtr *mtr)
{
	return mtr->buf_pg_shift;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_buf_page_shift);

u64 vroce_mtr_page_count(const struct vroce_mtr *mtr)
{
	return mtr->page_count;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_page_count);

u32 vroce_mtr_region_count(const struct vroce_mtr *mtr)
{
	return mtr->region_count;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_region_count);

int vroce_mtr_region(const struct vroce_mtr *mtr, u32 index,
		     struct vroce_mtr_region *region)
{
	if (!region || index >= mtr->region_count)
		return -EINVAL;
	region->offset = mtr->region[index].offset;
	region->count = mtr->region[index].count;
	region->hopnum = mtr->region[index].hopnum;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_region);

void *vroce_mtr_buf_kva(const struct vroce_mtr *mtr, u64 offset)
{
	u64 idx = offset >> mtr->buf_pg_shift, c = 0;
	u32 r;

	if (!mtr->chunks || idx >= mtr->page_count)
		return NULL;
	if (mtr->is_direct)
		return mtr->chunks[0].va + offset;

	/* Chunks run in region order: one per hop-0 region, else one a page. */
	for (r = 0; idx >= mtr->region[r].offset + mtr->region[r].count; r++)
		c += mtr->region[r].hopnum ? mtr->region[r].count : 1;
	if (!mtr->region[r].hopnum)
		return mtr->chunks[c].va +
		       (offset - (mtr->region[r].offset << mtr->buf_pg_shift));
	return mtr->chunks[c + idx - mtr->region[r].offset].va +
	       (offset & (BIT_ULL(mtr->buf_pg_shift) - 1));
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mtr_buf_kva);
