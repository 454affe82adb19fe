// SPDX-License-Identifier: GPL-2.0
/*
 * vroce host harness: a libFuzzer target for c/abi/vroce_mtr.c. The input is
 * decoded into MTR attributes (regions, hop numbers, page and BT page
 * shifts, table-only or user buffer with its DMA segments, a partial map,
 * an allocation to fail); vroce_host_run() builds the MTR, checks every
 * page against the HCA's walker and destroys it. Any failed check aborts.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (scripts/host-test.sh).
 */

#include <stdlib.h>

#include "vroce_host_test.h"

/* Sizes kept small enough that a run takes milliseconds. */
#define FUZZ_MAX_PAGES		BIT_ULL(16)
#define FUZZ_MAX_KBUF_BYTES	BIT_ULL(23)

struct fuzz_in {
	const u8 *p;
	size_t left;
};

static u64 take(struct fuzz_in *in, unsigned int bytes)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		v |= (u64)(in->left ? *in->p : 0) << (8 * i);
		if (in->left) {
			in->p++;
			in->left--;
		}
	}
	return v;
}

/* Pages the attributes ask for, or ~0 when the sizes are out of range. */
static u64 asked_pages(const struct vroce_buf_attr *a)
{
	u64 pages = 0, n;
	u32 i;

	if (a->page_shift < 12 || a->page_shift > 30 || !a->region_count ||
	    a->region_count > VROCE_MTR_MAX_REGIONS)
		return ~0ULL;
	for (i = 0; i < a->region_count; i++) {
		n = (a->region[i].size >> a->page_shift) +
		    !!(a->region[i].size & ((1ULL << a->page_shift) - 1));
		if (n > VROCE_MTR_MAX_PAGES)
			return ~0ULL;
		pages += n;
	}
	return pages;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct vroce_host_case c = { 0 };
	u64 flags = take(&in, 1), pages, dma, len = 0;
	u32 i;

	c.attr.mtt_only = flags & 1;
	c.user = flags & 2;
	c.attr.adaptive = flags & 4;
	c.map_scatter = flags & 8;
	c.attr.region_count = take(&in, 1) % 5;		/* 4: invalid */
	c.attr.page_shift = 10 + take(&in, 1) % 23;	/* 10..32 */
	c.ba_page_shift = 10 + take(&in, 1) % 14;	/* 10..23 */
	for (i = 0; i < VROCE_MTR_MAX_REGIONS; i++) {
		/* Mostly page multiples, sometimes odd or huge. */
		u64 sz = take(&in, 3), kind = take(&in, 1);

		c.attr.region[i].size = kind & 0x80 ? sz << 12 :
					kind & 0x40 ? sz : ~0ULL >> (kind & 63);
		c.attr.region[i].hopnum = kind % 5;		/* 4: invalid */
	}
	c.attr.iova = take(&in, 4) << 8;
	c.map_count = take(&in, 3);
	c.map_seed = take(&in, 4);
	c.fail_nth = take(&in, 1) % 16;

	if (c.user) {
		c.user_addr = c.attr.iova;
		c.nseg = 1 + take(&in, 1) % VROCE_HOST_MAX_SEGS;
		for (i = 0; i < c.nseg; i++) {
			dma = (0x100000ULL + take(&in, 2)) << 21;
			c.seg[i].len = (1 + take(&in, 1) % 64) << 12;
			/* The first segment starts where the buffer does. */
			if (!i) {
				dma += c.user_addr & 0xfff;
				c.seg[i].len -= c.user_addr & 0xfff;
			}
			/* Sometimes glued to the previous one. */
			if (i && (take(&in, 1) & 1))
				dma = c.seg[i - 1].dma + c.seg[i - 1].len;
			c.seg[i].dma = dma;
			len += c.seg[i].len;
		}
		/* One region: the buffer's size; several: as decoded. */
		if (c.attr.region_count == 1)
			c.attr.region[0].size = len;
	}

	/* Huge but valid layouts would only take time: skip them. */
	pages = asked_pages(&c.attr);
	if (pages != ~0ULL && (pages > FUZZ_MAX_PAGES ||
			       (!c.attr.mtt_only && !c.user &&
				(pages << c.attr.page_shift) > FUZZ_MAX_KBUF_BYTES)))
		return 0;
	if (c.user && len > (FUZZ_MAX_PAGES << 12))
		return 0;

	vroce_host_run(&c);
	return 0;
}
