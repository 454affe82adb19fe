// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the translation engine's table walk.
 *
 * Given what the driver programmed (root BA, page shifts, region layout)
 * and a page index, walk the BA tables by DMA address, as the HCA's
 * hardware walker would, and return the page's DMA address. Nothing the
 * driver wrote is trusted: the layout is range-checked, every table
 * address is checked before it is read, and a zero entry is a fault.
 *
 * The host harness (scripts/host-test.sh) builds this file as a user-space
 * program too, so it includes only the public vroce_hca.h.
 *
 * Calls: nothing else of the HCA.
 */

#include <kunit/visibility.h>
#include <linux/dma-direct.h>
#include <linux/mm.h>
#include <linux/overflow.h>

#include "vroce_hca.h"

#define VROCE_HCA_MIN_SHIFT	12
#define VROCE_HCA_MAX_BA_SHIFT	21
#define VROCE_HCA_MAX_BUF_SHIFT	30
#define VROCE_HCA_BA_SHIFT	3	/* 8-byte entries */

/**
 * vroce_hca_dma_to_virt() - the HCA's view of memory at a DMA address
 * @dma_dev: the HCA's DMA device
 * @dma: the DMA address
 * @len: bytes to be accessed from @dma, within one page of the system
 *
 * The one place where the device model turns an address into a pointer.
 *
 * Context: any context.
 * Return: a kernel pointer, or NULL when the range is not RAM the HCA may
 * reach.
 */
void *vroce_hca_dma_to_virt(struct device *dma_dev, u64 dma, size_t len)
{
	phys_addr_t phys = dma_to_phys(dma_dev, dma);

	if (!len || offset_in_page(phys) + len > PAGE_SIZE ||
	    !pfn_valid(PHYS_PFN(phys)))
		return NULL;
	return phys_to_virt(phys);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_dma_to_virt);

/* Read entry @index of the table at @table_ba. */
static int vroce_hca_read_ba(struct device *dma_dev, u64 table_ba, u64 index,
			     u32 ba_pg_shift, u64 *entry)
{
	__le64 *p;

	if (index >= BIT_ULL(ba_pg_shift - VROCE_HCA_BA_SHIFT) ||
	    !IS_ALIGNED(table_ba, BIT_ULL(VROCE_HCA_MIN_SHIFT)))
		return -EFAULT;
	p = vroce_hca_dma_to_virt(dma_dev, table_ba + index * sizeof(*p),
				  sizeof(*p));
	if (!p)
		return -EFAULT;
	*entry = le64_to_cpu(READ_ONCE(*p));
	return 0;
}

static u64 vroce_hca_root_entries(const struct vroce_hca_region *r, u32 ushift)
{
	u32 s;

	if (r->hopnum <= 1)
		return r->hopnum ? r->count : 1;
	s = ushift * (r->hopnum - 1);
	return (r->count >> s) + !!(r->count & (BIT_ULL(s) - 1));
}

/*
 * Check a translation's layout and find the region holding @page: *@rp,
 * the index of its first root entry, whether every region is direct.
 */
static int vroce_hca_mtt_region(const struct vroce_hca_mtt *mtt, u64 page,
				const struct vroce_hca_region **rp,
				u64 *root_index, bool *direct)
{
	const struct vroce_hca_region *r = NULL;
	u64 next = 0;
	u32 ushift, i;

	if (mtt->region_count < 1 ||
	    mtt->region_count > VROCE_HCA_MAX_REGIONS ||
	    mtt->ba_pg_shift < VROCE_HCA_MIN_SHIFT ||
	    mtt->ba_pg_shift > VROCE_HCA_MAX_BA_SHIFT ||
	    mtt->buf_pg_shift < VROCE_HCA_MIN_SHIFT ||
	    mtt->buf_pg_shift > VROCE_HCA_MAX_BUF_SHIFT)
		return -EINVAL;
	ushift = mtt->ba_pg_shift - VROCE_HCA_BA_SHIFT;

	/* Regions must tile the pages in order; find the one holding @page. */
	*root_index = 0;
	*direct = true;
	for (i = 0; i < mtt->region_count; i++) {
		const struct vroce_hca_region *ri = &mtt->region[i];

		if (ri->offset != next || ri->hopnum > 3 ||
		    check_add_overflow(next, ri->count, &next))
			return -EINVAL;
		if (ri->hopnum)
			*direct = false;
		if (!r && page < next)
			r = ri;
		else if (!r)
			*root_index += vroce_hca_root_entries(ri, ushift);
	}
	if (!r)
		return -ERANGE;
	*rp = r;
	return 0;
}

/*
 * For page @l of a region of hop 1 or more whose entries start at root
 * entry @root_index: the table holding its bottom entry, and the index.
 */
static int vroce_hca_mtt_leaf(struct device *dma_dev,
			      const struct vroce_hca_mtt *mtt, u32 hop,
			      u64 root_index, u64 l, u64 *table, u64 *index)
{
	u32 ushift = mtt->ba_pg_shift - VROCE_HCA_BA_SHIFT;
	u64 tbl = mtt->root_ba, e;
	int err;

	/* Root entry, then one level per remaining hop, bottom entry last. */
	e = root_index + (l >> (ushift * (hop - 1)));
	for (; hop > 1; hop--) {
		err = vroce_hca_read_ba(dma_dev, tbl, e, mtt->ba_pg_shift, &tbl);
		if (err)
			return err;
		/* An empty interior entry: no page under it is mapped. */
		if (!tbl)
			return -ENOENT;
		e = (l >> (ushift * (hop - 2))) & (BIT_ULL(ushift) - 1);
	}
	*table = tbl;
	*index = e;
	return 0;
}

/**
 * vroce_hca_mtt_translate() - walk a translation to one page
 * @dma_dev: the HCA's DMA device
 * @mtt: the translation as programmed
 * @page: index of the page among all the translation's pages
 * @addr: where the page's DMA address is returned
 * @table: if not NULL, where the address of the table holding the page's
 *	entry is returned (for a hop-0 region: the region's base address);
 *	also set when that entry is empty
 *
 * Context: any context; does not sleep.
 * Return: 0, or -EINVAL for a malformed translation, -ERANGE for a page
 * outside it, -EFAULT when a table address leads nowhere, -ENOENT when the
 * page's own entry, or an interior entry above it, is empty (not mapped:
 * a sparse table's page not yet mapped).
 */
int vroce_hca_mtt_translate(struct device *dma_dev,
			    const struct vroce_hca_mtt *mtt, u64 page,
			    u64 *addr, u64 *table)
{
	const struct vroce_hca_region *r;
	u64 root_index, l, tbl, e;
	bool direct;
	int err;

	err = vroce_hca_mtt_region(mtt, page, &r, &root_index, &direct);
	if (err)
		return err;

	l = page - r->offset;
	if (direct) {
		if (!mtt->root_ba)
			return -ENOENT;
		tbl = mtt->root_ba;
		*addr = mtt->root_ba + (page << mtt->buf_pg_shift);
		goto out;
	}

	if (r->hopnum == 0) {
		err = vroce_hca_read_ba(dma_dev, mtt->root_ba, root_index,
					mtt->ba_pg_shift, &e);
		if (err)
			return err;
		if (!e)
			return -ENOENT;
		tbl = e;
		*addr = e + (l << mtt->buf_pg_shift);
		goto out;
	}

	err = vroce_hca_mtt_leaf(dma_dev, mtt, r->hopnum, root_index, l, &tbl,
				 &e);
	if (err)
		return err;
	err = vroce_hca_read_ba(dma_dev, tbl, e, mtt->ba_pg_shift, addr);
	if (err)
		return err;
out:
	if (table)
		*table = tbl;
	return *addr ? 0 : -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_mtt_translate);

/**
 * vroce_hca_mtt_store_run() - write the bottom entries of consecutive pages
 * @dma_dev: the HCA's DMA device
 * @mtt: the translation as programmed
 * @page: index of the first page among all the translation's pages
 * @src: their DMA addresses (little-endian), as the HCA read them
 * @n: how many, at least 1
 *
 * The tables are walked once, for @page; the entries that follow it in
 * the same bottom table (and host page) are written with it, as an HCA
 * writes a burst.
 *
 * Context: any context; does not sleep.
 * Return: the entries written (1 to @n), or -EINVAL for a malformed
 * translation, a page in a direct or hop-0 region, or an address not
 * aligned to the buffer page size; -ERANGE for a page outside the
 * translation; -EFAULT when a table leads nowhere, -ENOENT when an
 * interior entry is empty.
 */
int vroce_hca_mtt_store_run(struct device *dma_dev,
			    const struct vroce_hca_mtt *mtt, u64 page,
			    const __le64 *src, u32 n)
{
	u32 ushift = mtt->ba_pg_shift - VROCE_HCA_BA_SHIFT, k;
	const struct vroce_hca_region *r;
	u64 root_index, tbl, e, addr;
	__le64 *p;
	bool direct;
	int err;

	err = vroce_hca_mtt_region(mtt, page, &r, &root_index, &direct);
	if (err)
		return err;
	if (direct || !r->hopnum)
		return -EINVAL;
	err = vroce_hca_mtt_leaf(dma_dev, mtt, r->hopnum, root_index,
				 page - r->offset, &tbl, &e);
	if (err)
		return err;
	if (e >= BIT_ULL(ushift) || !IS_ALIGNED(tbl, BIT_ULL(VROCE_HCA_MIN_SHIFT)))
		return -EFAULT;
	/* This table, this region, this host page. */
	n = min_t(u64, n, BIT_ULL(ushift) - e);
	n = min_t(u64, n, r->offset + r->count - page);
	n = min_t(u64, n, (PAGE_SIZE - offset_in_page(tbl + e * sizeof(*p))) /
			  sizeof(*p));
	p = vroce_hca_dma_to_virt(dma_dev, tbl + e * sizeof(*p), n * sizeof(*p));
	if (!p)
		return -EFAULT;
	for (k = 0; k < n; k++) {
		addr = le64_to_cpu(READ_ONCE(src[k]));
		if (!IS_ALIGNED(addr, BIT_ULL(mtt->buf_pg_shift)))
			return -EINVAL;
		WRITE_ONCE(p[k], cpu_to_le64(addr));
	}
	return n;
}
