// SPDX-License-Identifier: GPL-2.0
/*
 * vroce host harness: build an MTR with c/abi/vroce_mtr.c, map it, and check
 * every page three ways: what vroce_mtr_find() reports, what the HCA's
 * own walker (c/hca/vroce_hca_mtt.c) finds by reading the tables from the
 * root BA, and what the buffer really is. Then destroy it and check that
 * everything allocated was freed.
 */

#include <stdio.h>
#include <stdlib.h>

#include "vroce_host_test.h"
#include "../../c/hca/vroce_hca.h"

#define FAIL(...) do {							\
	fprintf(stderr, "vroce_host: " __VA_ARGS__);			\
	fputc('\n', stderr);						\
	abort();							\
} while (0)

/* The translation the HCA is told about, from the MTR's accessors. */
static void mtt_of(const struct vroce_mtr *mtr, struct vroce_hca_mtt *mtt)
{
	struct vroce_mtr_region rgn;
	u64 next = 0;
	u32 i;

	memset(mtt, 0, sizeof(*mtt));
	mtt->root_ba = vroce_mtr_root_ba(mtr);
	mtt->ba_pg_shift = vroce_mtr_ba_page_shift(mtr);
	mtt->buf_pg_shift = vroce_mtr_buf_page_shift(mtr);
	mtt->region_count = vroce_mtr_region_count(mtr);
	if (mtt->region_count < 1 || mtt->region_count > VROCE_HCA_MAX_REGIONS)
		FAIL("region count %u", mtt->region_count);
	for (i = 0; i < mtt->region_count; i++) {
		if (vroce_mtr_region(mtr, i, &rgn))
			FAIL("vroce_mtr_region(%u) failed", i);
		if (rgn.offset != next || !rgn.count || rgn.hopnum > 3)
			FAIL("region %u: offset %llu count %llu hop %u", i,
			     (unsigned long long)rgn.offset,
			     (unsigned long long)rgn.count, rgn.hopnum);
		next += rgn.count;
		mtt->region[i].offset = rgn.offset;
		mtt->region[i].count = rgn.count;
		mtt->region[i].hopnum = rgn.hopnum;
	}
	if (next != vroce_mtr_page_count(mtr))
		FAIL("regions hold %llu pages, the MTR %llu",
		     (unsigned long long)next,
		     (unsigned long long)vroce_mtr_page_count(mtr));
}

/* The hop number of the region holding @page. */
static u32 hop_of(const struct vroce_hca_mtt *mtt, u64 page)
{
	u32 i;

	for (i = 0; i < mtt->region_count; i++)
		if (page < mtt->region[i].offset + mtt->region[i].count)
			return mtt->region[i].hopnum;
	return 0;
}

/*
 * Check every page: @want[i] is page i's address for i < @mapped. Pages
 * from @mapped on are unmapped: find must say so, and so must the walker
 * where the page has an entry of its own (hop 1 and more).
 */
static void check_walk(struct vroce_dev *dev, struct vroce_mtr *mtr,
		       const u64 *want, u64 mapped)
{
	u32 shift = vroce_mtr_buf_page_shift(mtr);
	u64 pages = vroce_mtr_page_count(mtr), p, addr, found[8];
	bool direct = vroce_mtr_is_direct(mtr);
	struct vroce_hca_mtt mtt;
	int rc, n, k;

	mtt_of(mtr, &mtt);
	if (direct && mapped && mtt.root_ba != want[0])
		FAIL("direct MTR: root BA %#llx, first page %#llx",
		     (unsigned long long)mtt.root_ba,
		     (unsigned long long)want[0]);
	for (p = 0; p < pages; p++) {
		rc = vroce_hca_mtt_translate(NULL, &mtt, p, &addr, NULL);
		n = vroce_mtr_find(dev, mtr, p << shift, found, 8, NULL);
		if (p < mapped) {
			if (rc || addr != want[p])
				FAIL("page %llu: the HCA finds %#llx (%d), want %#llx",
				     (unsigned long long)p,
				     (unsigned long long)addr, rc,
				     (unsigned long long)want[p]);
			if (n < 1 || n > 8)
				FAIL("page %llu: find returned %d",
				     (unsigned long long)p, n);
			for (k = 0; k < n; k++)
				if (p + k >= mapped || found[k] != want[p + k])
					FAIL("page %llu+%d: find %#llx",
					     (unsigned long long)p, k,
					     (unsigned long long)found[k]);
			if (n < 8 && p + n < mapped)
				FAIL("page %llu: find stopped at %d of %llu",
				     (unsigned long long)p, n,
				     (unsigned long long)(mapped - p));
		} else {
			if (n != -ENOENT)
				FAIL("unmapped page %llu: find returned %d",
				     (unsigned long long)p, n);
			if (!direct && hop_of(&mtt, p) && rc != -ENOENT)
				FAIL("unmapped page %llu: the HCA finds %#llx (%d)",
				     (unsigned long long)p,
				     (unsigned long long)addr, rc);
		}
	}
	/* Past the end: nothing. */
	if (vroce_hca_mtt_translate(NULL, &mtt, pages, &addr, NULL) != -ERANGE)
		FAIL("the HCA translates page %llu of %llu",
		     (unsigned long long)pages, (unsigned long long)pages);
	if (vroce_mtr_find(dev, mtr, pages << shift, found, 1, NULL) != -ENOENT)
		FAIL("find past the end");
}

/* Page addresses to map into a table-only MTR: not memory, never read. */
static void make_pages(u64 *pages, u64 n, u32 shift, u64 seed, bool scatter)
{
	u64 base = (0x10000000ULL + (seed & 0xffff)) << shift, i, x = seed | 1;

	for (i = 0; i < n; i++) {
		if (scatter) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pages[i] = ((x & 0xffffffULL) + 1) << shift;
		} else {
			pages[i] = base + (i << shift);
		}
	}
}

/* Addresses of a made-up user buffer's pages, from its segments. */
static u64 user_pages(const struct vroce_host_case *c, u32 shift, u64 *pages,
		      u64 max)
{
	u64 n = 0, a, end, pgsz = 1ULL << shift;
	u32 i;

	for (i = 0; i < c->nseg; i++) {
		end = c->seg[i].dma + c->seg[i].len;
		for (a = ALIGN_DOWN(c->seg[i].dma, pgsz); a < end && n < max;
		     a += pgsz)
			pages[n++] = a;
	}
	return n;
}

static void check_no_leak(const struct vroce_dev *dev, const char *when)
{
	if (dev->allocs != dev->frees || dev->dma_bytes)
		FAIL("%s: %ld allocations, %ld frees, %ld DMA bytes held", when,
		     dev->allocs, dev->frees, dev->dma_bytes);
}

int vroce_host_run(const struct vroce_host_case *c)
{
	struct vroce_dev dev = { .fail_nth = c->fail_nth };
	struct ib_udata udata = { 0 };
	struct vroce_mtr *mtr = NULL;
	u64 pages, mapped = 0, *want, pages_at;
	u32 shift;
	int err;

	if (c->user)
		vroce_host_set_umem(c->user_addr, c->seg, c->nseg);
	err = vroce_mtr_create(&dev, &mtr, &c->attr, c->ba_page_shift,
			       c->user ? &udata : NULL, c->user_addr);
	vroce_host_set_umem(0, NULL, 0);
	if (err) {
		if (err > 0 || err < -MAX_ERRNO || mtr)
			FAIL("create returned %d, MTR %p", err, (void *)mtr);
		if (c->fail_nth && dev.fail_nth == 0 && err != -ENOMEM)
			FAIL("an injected failure came back as %d", err);
		check_no_leak(&dev, "failed create");
		return err;
	}
	if (c->fail_nth && dev.fail_nth == 0)
		FAIL("create succeeded although allocation %u failed",
		     c->fail_nth);

	pages = vroce_mtr_page_count(mtr);
	shift = vroce_mtr_buf_page_shift(mtr);
	if (!pages || shift < VROCE_MTR_MIN_PAGE_SHIFT ||
	    shift > c->attr.page_shift)
		FAIL("%llu pages of shift %u", (unsigned long long)pages, shift);
	want = calloc(pages, sizeof(*want));
	if (!want)
		abort();

	if (c->attr.mtt_only) {
		mapped = c->map_count < pages ? c->map_count : pages;
		if (mapped) {
			make_pages(want, mapped, shift, c->map_seed,
				   c->map_scatter);
			err = vroce_mtr_map(&dev, mtr, want, mapped);
			if (err == -ENOBUFS && c->map_scatter)
				mapped = 0;	/* hop 0 wants contiguous pages */
			else if (err)
				FAIL("map of %llu pages: %d",
				     (unsigned long long)mapped, err);
		}
	} else if (c->user) {
		mapped = user_pages(c, shift, want, pages);
		if (mapped != pages)
			FAIL("user buffer: %llu pages, the MTR has %llu",
			     (unsigned long long)mapped,
			     (unsigned long long)pages);
	} else {
		for (mapped = 0; mapped < pages; mapped++)
			want[mapped] = (uintptr_t)vroce_mtr_buf_kva(mtr,
								    mapped << shift);
	}
	check_walk(&dev, mtr, want, mapped);

	/* A map of the wrong count on a buffer: nothing stays mapped. */
	if (!c->attr.mtt_only && pages > 1) {
		if (vroce_mtr_map(&dev, mtr, want, pages - 1) != -ENOBUFS)
			FAIL("map of %llu of %llu pages did not fail",
			     (unsigned long long)pages - 1,
			     (unsigned long long)pages);
		for (mapped = 0; mapped < pages; mapped++)
			if (vroce_mtr_find(&dev, mtr, mapped << shift, &pages_at,
					   1, NULL) != -ENOENT)
				FAIL("page %llu still mapped after a failed map",
				     (unsigned long long)mapped);
		if (vroce_mtr_map(&dev, mtr, want, pages))
			FAIL("remap of all %llu pages failed",
			     (unsigned long long)pages);
		check_walk(&dev, mtr, want, pages);
	}
	free(want);
	vroce_mtr_destroy(&dev, mtr);
	check_no_leak(&dev, "destroy");
	return 0;
}
