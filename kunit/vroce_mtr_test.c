// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mtr: memory translate regions through the ABI of
 * bindings/vroce_abi.h, whichever implementation is built. Every layout is
 * checked by walking its tables from the root BA by DMA address with the
 * emulated HCA's walker, as the hardware would.
 */

#include <kunit/test.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "vroce_test.h"

#define UNIT		512ULL		/* entries in a 4 KiB table page */
#define UNIT2		(UNIT * UNIT)
#define FAKE_DMA_BASE	BIT_ULL(40)	/* table-only pages are never touched */
#define PATTERN		0x7652434500000000ULL
#define USER_SEED	0x5e

/* A value create never returns, to check a failed create leaves *mtr alone. */
#define MTR_POISON	((struct vroce_mtr *)0x5a5a5a5a5a5a5a5aUL)

static struct device *vroce_test_dma_dev(struct vroce_dev *vdev)
{
	return vdev->dma_dev;
}

/* The translation as the HCA would be programmed with it. */
static void vroce_test_mtt(struct kunit *test, struct vroce_mtr *mtr,
			   struct vroce_hca_mtt *mtt)
{
	struct vroce_mtr_region r;
	u32 i;

	memset(mtt, 0, sizeof(*mtt));
	mtt->root_ba = vroce_mtr_root_ba(mtr);
	mtt->ba_pg_shift = vroce_mtr_ba_page_shift(mtr);
	mtt->buf_pg_shift = vroce_mtr_buf_page_shift(mtr);
	mtt->region_count = vroce_mtr_region_count(mtr);
	KUNIT_ASSERT_LE(test, mtt->region_count, VROCE_HCA_MAX_REGIONS);
	for (i = 0; i < mtt->region_count; i++) {
		KUNIT_ASSERT_EQ(test, vroce_mtr_region(mtr, i, &r), 0);
		mtt->region[i].offset = r.offset;
		mtt->region[i].count = r.count;
		mtt->region[i].hopnum = r.hopnum;
	}
}

/*
 * One find of up to UNIT + 3 pages from page @i (across a table's end)
 * gives what finds of one page give, page by page, and the first page's
 * table; it stops only where the mapping does.
 */
static void vroce_test_find_batch(struct kunit *test, struct vroce_dev *vdev,
				  struct vroce_mtr *mtr, u64 i, u32 shift)
{
	u64 *batch = kunit_kmalloc_array(test, UNIT + 3, sizeof(*batch),
					 GFP_KERNEL);
	u64 one, base = 0, base1 = 0;
	int n, k;

	KUNIT_ASSERT_NOT_NULL(test, batch);
	n = vroce_mtr_find(vdev, mtr, i << shift, batch, UNIT + 3, &base);
	KUNIT_ASSERT_GT_MSG(test, n, 0, "batch from page %llu", i);
	for (k = 0; k < n; k++) {
		KUNIT_ASSERT_EQ(test, vroce_mtr_find(vdev, mtr, (i + k) << shift,
						     &one, 1, k ? NULL : &base1),
				1);
		KUNIT_ASSERT_EQ_MSG(test, batch[k], one, "page %llu+%d", i, k);
	}
	KUNIT_EXPECT_EQ_MSG(test, base, base1, "table of page %llu", i);
	if (n < UNIT + 3)
		KUNIT_EXPECT_EQ_MSG(test,
				    vroce_mtr_find(vdev, mtr, (i + n) << shift,
						   &one, 1, NULL),
				    -ENOENT, "batch from %llu stopped at %d", i,
				    n);
	kunit_kfree(test, batch);
}

/*
 * Page @i as the HCA reaches it agrees with vroce_mtr_find(): the same
 * address and the same table. At the first page and at each table's last,
 * a batched find agrees with single ones too.
 */
static u64 vroce_test_walk_page(struct kunit *test, struct vroce_dev *vdev,
				struct vroce_mtr *mtr,
				const struct vroce_hca_mtt *mtt, u64 i)
{
	u64 addr = 0, table = 0, found = 0, base = 0;
	int ret;

	ret = vroce_hca_mtt_translate(vroce_test_dma_dev(vdev), mtt, i, &addr,
				      &table);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "walk of page %llu", i);
	ret = vroce_mtr_find(vdev, mtr, i << mtt->buf_pg_shift, &found, 1,
			     &base);
	KUNIT_ASSERT_EQ_MSG(test, ret, 1, "find of page %llu", i);
	KUNIT_EXPECT_EQ_MSG(test, found, addr, "page %llu", i);
	KUNIT_EXPECT_EQ_MSG(test, base, table, "table of page %llu", i);
	if (i == 0 || i % UNIT == UNIT - 1)
		vroce_test_find_batch(test, vdev, mtr, i, mtt->buf_pg_shift);
	return addr;
}

/* Pages checked in a large MTR: the edges of every table, plus a stride. */
static bool vroce_test_sampled(u64 i, u64 count)
{
	u64 m = i % UNIT;

	return count <= 4096 || i < UNIT + 2 || i + 2 >= count ||
	       m == 0 || m == UNIT - 1 || i % 997 == 0;
}

/*
 * Mark every page of a kernel buffer through its kernel address, then
 * check that the HCA's walk reaches exactly those pages, in order.
 */
static void vroce_test_walk_kbuf(struct kunit *test, struct vroce_dev *vdev,
				 struct vroce_mtr *mtr)
{
	struct vroce_hca_mtt mtt;
	u64 i, n = vroce_mtr_page_count(mtr), *p;
	u32 shift = vroce_mtr_buf_page_shift(mtr);

	for (i = 0; i < n; i++) {
		p = vroce_mtr_buf_kva(mtr, i << shift);
		KUNIT_ASSERT_NOT_NULL(test, p);
		*p = PATTERN | i;
		p = vroce_mtr_buf_kva(mtr, ((i + 1) << shift) - sizeof(*p));
		KUNIT_ASSERT_NOT_NULL(test, p);
		*p = ~(PATTERN | i);
	}
	KUNIT_EXPECT_NULL(test, vroce_mtr_buf_kva(mtr, n << shift));

	vroce_test_mtt(test, mtr, &mtt);
	for (i = 0; i < n; i++) {
		u64 addr = vroce_test_walk_page(test, vdev, mtr, &mtt, i);
		u64 *head = vroce_hca_dma_to_virt(vroce_test_dma_dev(vdev),
						  addr, sizeof(u64));
		u64 *tail = vroce_hca_dma_to_virt(vroce_test_dma_dev(vdev),
						  addr + BIT_ULL(shift) - 8,
						  sizeof(u64));

		KUNIT_ASSERT_NOT_NULL(test, head);
		KUNIT_ASSERT_NOT_NULL(test, tail);
		KUNIT_ASSERT_EQ_MSG(test, *head, PATTERN | i, "page %llu", i);
		KUNIT_ASSERT_EQ_MSG(test, *tail, ~(PATTERN | i), "page %llu", i);
	}
}

KUNIT_DEFINE_ACTION_WRAPPER(vroce_test_kvfree, kvfree, const void *);

/* Fake, page-aligned DMA addresses for table-only MTRs. */
static dma_addr_t *vroce_test_fake_pages(struct kunit *test, u64 n, u32 shift)
{
	dma_addr_t *pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vroce_test_kvfree,
							pages), 0);
	for (i = 0; i < n; i++)
		pages[i] = FAKE_DMA_BASE + (i << shift);
	return pages;
}

/* Map fake pages into a table-only MTR and walk them. */
static void vroce_test_walk_fake(struct kunit *test, struct vroce_dev *vdev,
				 struct vroce_mtr *mtr)
{
	u64 i, n = vroce_mtr_page_count(mtr), found;
	u32 shift = vroce_mtr_buf_page_shift(mtr);
	struct vroce_hca_mtt mtt;
	dma_addr_t *pages;
	int ret;

	/* Nothing is mapped yet: find has nothing, the walk hits empty entries. */
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, &found, 1, NULL),
			-ENOENT);
	vroce_test_mtt(test, mtr, &mtt);
	ret = vroce_hca_mtt_translate(vroce_test_dma_dev(vdev), &mtt, n - 1,
				      &found, NULL);
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);

	pages = vroce_test_fake_pages(test, n, shift);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, n), 0);
	vroce_test_mtt(test, mtr, &mtt);
	for (i = 0; i < n; i++) {
		if (!vroce_test_sampled(i, n))
			continue;
		KUNIT_ASSERT_EQ_MSG(test,
				    vroce_test_walk_page(test, vdev, mtr, &mtt, i),
				    pages[i], "page %llu", i);
	}
}

struct vroce_mtr_layout {
	const char *name;
	u32 nregions;
	u64 pages[VROCE_MTR_MAX_REGIONS];
	u32 hop[VROCE_MTR_MAX_REGIONS];
	u32 page_shift;
	u32 ba_shift;
	bool adaptive;
	bool mtt_only;
	u32 want_hop[VROCE_MTR_MAX_REGIONS];	/* adaptive only */
	u32 want_ba_shift;			/* 0: as asked */
};

static const struct vroce_mtr_layout vroce_mtr_layouts[] = {
	{ "1 page, direct", 1, { 1 }, { 0 } },
	{ "1 page, hop 1", 1, { 1 }, { 1 } },
	{ "unit-1 pages, hop 1", 1, { UNIT - 1 }, { 1 } },
	{ "unit pages, hop 1", 1, { UNIT }, { 1 } },
	{ "unit+1 pages, hop 1, BT page grows", 1, { UNIT + 1 }, { 1 },
	  .want_ba_shift = 13 },
	{ "unit+1 pages, hop 2", 1, { UNIT + 1 }, { 2 } },
	{ "unit^2 pages, hop 2, table-only", 1, { UNIT2 }, { 2 },
	  .mtt_only = true },
	{ "unit^2+1 pages, hop 2, BT page grows, table-only", 1, { UNIT2 + 1 },
	  { 2 }, .mtt_only = true, .want_ba_shift = 13 },
	{ "unit^2+1 pages, hop 3, table-only", 1, { UNIT2 + 1 }, { 3 },
	  .mtt_only = true },
	{ "3 regions, hops 1/2/3", 3, { 7, UNIT + 88, 2 * UNIT + 6 },
	  { 1, 2, 3 } },
	{ "3 regions, direct", 3, { 2, 3, 4 }, { 0, 0, 0 } },
	{ "hop-0 region beside a hop-1 region", 2, { 4, 10 }, { 0, 1 } },
	{ "hop-0 region between tables, table-only", 3, { 5, 4, UNIT + 3 },
	  { 1, 0, 2 }, .mtt_only = true },
	{ "64 KiB pages, hop 2", 1, { 130 }, { 2 }, .page_shift = 16 },
	{ "8 KiB BT pages, hop 3", 1, { 1500 }, { 3 }, .ba_shift = 13 },
	{ "direct, table-only", 1, { 8 }, { 0 }, .mtt_only = true },
	{ "adaptive: 1 page", 1, { 1 }, .adaptive = true, .want_hop = { 0 } },
	{ "adaptive: unit pages", 1, { UNIT }, .adaptive = true,
	  .want_hop = { 1 } },
	{ "adaptive: unit+1 pages", 1, { UNIT + 1 }, .adaptive = true,
	  .want_hop = { 2 } },
	{ "adaptive: unit^2+1 pages, table-only", 1, { UNIT2 + 1 },
	  .adaptive = true, .mtt_only = true, .want_hop = { 3 } },
	{ "adaptive: 3 regions, BT page grows", 3, { 1, UNIT, UNIT + 1 },
	  .adaptive = true, .want_hop = { 0, 1, 2 }, .want_ba_shift = 13 },
};

static void vroce_mtr_layout_desc(const struct vroce_mtr_layout *l, char *desc)
{
	strscpy(desc, l->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vroce_mtr_layout, vroce_mtr_layouts, vroce_mtr_layout_desc);

static void vroce_test_attr(const struct vroce_mtr_layout *l,
			    struct vroce_buf_attr *attr)
{
	u32 i;

	memset(attr, 0, sizeof(*attr));
	attr->region_count = l->nregions;
	attr->page_shift = l->page_shift ?: 12;
	attr->mtt_only = l->mtt_only;
	attr->adaptive = l->adaptive;
	for (i = 0; i < l->nregions; i++) {
		attr->region[i].size = l->pages[i] << attr->page_shift;
		attr->region[i].hopnum = l->hop[i];
	}
}

/* Each layout builds as asked, and the HCA's walk reaches its pages. */
static void vroce_mtr_layouts_walk(struct kunit *test)
{
	const struct vroce_mtr_layout *l = test->param_value;
	struct vroce_dev *vdev = vroce_test_dev(test);
	u32 ba_shift = l->ba_shift ?: 12, i;
	struct vroce_mtr *mtr = NULL;
	struct vroce_buf_attr attr;
	struct vroce_mtr_region r;
	u64 offset = 0;
	bool direct = true;

	vroce_test_attr(l, &attr);
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, ba_shift,
					       NULL, 0), 0);
	KUNIT_ASSERT_NOT_NULL(test, mtr);

	KUNIT_EXPECT_EQ(test, vroce_mtr_region_count(mtr), l->nregions);
	KUNIT_EXPECT_EQ(test, vroce_mtr_buf_page_shift(mtr), attr.page_shift);
	for (i = 0; i < l->nregions; i++) {
		u32 hop = l->adaptive ? l->want_hop[i] : l->hop[i];

		KUNIT_ASSERT_EQ(test, vroce_mtr_region(mtr, i, &r), 0);
		KUNIT_EXPECT_EQ(test, r.offset, offset);
		KUNIT_EXPECT_EQ(test, r.count, l->pages[i]);
		KUNIT_EXPECT_EQ(test, r.hopnum, hop);
		offset += l->pages[i];
		direct &= !hop;
	}
	KUNIT_EXPECT_EQ(test, vroce_mtr_region(mtr, l->nregions, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_page_count(mtr), offset);
	KUNIT_EXPECT_EQ(test, vroce_mtr_is_direct(mtr), direct);
	KUNIT_EXPECT_EQ(test, vroce_mtr_ba_page_shift(mtr),
			l->want_ba_shift ?: ba_shift);

	if (l->mtt_only) {
		KUNIT_EXPECT_NULL(test, vroce_mtr_buf_kva(mtr, 0));
		vroce_test_walk_fake(test, vdev, mtr);
	} else {
		vroce_test_walk_kbuf(test, vdev, mtr);
	}
	if (direct && !l->mtt_only)
		KUNIT_EXPECT_PTR_EQ(test,
				    vroce_hca_dma_to_virt(vroce_test_dma_dev(vdev),
							  vroce_mtr_root_ba(mtr),
							  8),
				    vroce_mtr_buf_kva(mtr, 0));

	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Hop 2 puts ceil(N / unit) bottom tables behind the root, hop 3 as many
 * again behind ceil(N / unit^2) middle tables: count the distinct leaf
 * tables the walk passes through.
 */
static void vroce_mtr_table_counts(struct kunit *test)
{
	static const struct { u64 pages; u32 hop; } cases[] = {
		{ UNIT - 1, 2 }, { UNIT, 2 }, { UNIT + 1, 2 }, { 3 * UNIT, 2 },
		{ UNIT + 1, 3 }, { UNIT2 + 1, 3 },
	};
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_buf_attr attr = {
		.region_count = 1, .page_shift = 12, .mtt_only = true,
	};
	struct vroce_hca_mtt mtt;
	dma_addr_t *pages;
	u32 c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		u64 n = cases[c].pages, i, tables = 0, last = 0, addr, table;
		struct vroce_mtr *mtr;

		attr.region[0].size = n << 12;
		attr.region[0].hopnum = cases[c].hop;
		KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12,
						       NULL, 0), 0);
		pages = vroce_test_fake_pages(test, n, 12);
		KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, n), 0);
		vroce_test_mtt(test, mtr, &mtt);
		for (i = 0; i < n; i++) {
			KUNIT_ASSERT_EQ(test,
					vroce_hca_mtt_translate(vroce_test_dma_dev(vdev),
								&mtt, i, &addr,
								&table), 0);
			KUNIT_ASSERT_EQ(test, addr, pages[i]);
			if (!i || table != last)
				tables++;
			last = table;
		}
		KUNIT_EXPECT_EQ_MSG(test, tables, DIV_ROUND_UP_ULL(n, UNIT),
				    "%llu pages, hop %u", n, cases[c].hop);
		kunit_release_action(test, vroce_test_kvfree, pages);
		vroce_mtr_destroy(vdev, mtr);
	}
	vroce_test_expect_no_memory_held(test, vdev);
}

struct vroce_mtr_bad {
	const char *name;
	struct vroce_buf_attr attr;
	u32 ba_shift;
	bool user;
	int err;
};

#define R1(sz, hop)	.region = { { (sz), (hop) } }, .region_count = 1
#define MAXP		VROCE_MTR_MAX_PAGES

static const struct vroce_mtr_bad vroce_mtr_bads[] = {
	{ "no region", { .page_shift = 12 }, 12, false, -EINVAL },
	{ "4 regions", { .region = { { SZ_4K, 1 }, { SZ_4K, 1 }, { SZ_4K, 1 } },
	  .region_count = 4, .page_shift = 12 }, 12, false, -EINVAL },
	{ "page shift 11", { R1(SZ_4K, 1), .page_shift = 11 }, 12, false,
	  -EINVAL },
	{ "page shift 31", { R1(SZ_4K, 1), .page_shift = 31 }, 12, false,
	  -EINVAL },
	{ "BT page shift 11", { R1(SZ_4K, 1), .page_shift = 12 }, 11, false,
	  -EINVAL },
	{ "BT page shift 22", { R1(SZ_4K, 1), .page_shift = 12 }, 22, false,
	  -EINVAL },
	{ "hop 4", { R1(SZ_4K, 4), .page_shift = 12 }, 12, false, -EINVAL },
	{ "hop 4, adaptive", { R1(SZ_4K, 4), .page_shift = 12,
	  .adaptive = true }, 12, false, -EINVAL },
	{ "zero-size region", { .region = { { SZ_4K, 1 }, { 0, 1 } },
	  .region_count = 2, .page_shift = 12 }, 12, false, -EINVAL },
	{ "one page over the maximum", { R1((MAXP + 1) << 12, 3),
	  .page_shift = 12, .mtt_only = true }, 12, false, -EINVAL },
	{ "U32_MAX pages", { R1((u64)U32_MAX << 12, 3), .page_shift = 12,
	  .mtt_only = true }, 12, false, -EINVAL },
	{ "U64_MAX bytes", { R1(U64_MAX, 3), .page_shift = 12,
	  .mtt_only = true }, 12, false, -EINVAL },
	{ "size that wraps when rounded up", { R1(U64_MAX - 4094, 3),
	  .page_shift = 12, .mtt_only = true }, 12, false, -EINVAL },
	{ "1 GiB pages, U64_MAX bytes", { R1(U64_MAX, 3), .page_shift = 30,
	  .mtt_only = true }, 12, false, -EINVAL },
	{ "regions adding up past the maximum",
	  { .region = { { (MAXP / 2) << 12, 3 }, { (MAXP / 2) << 12, 3 },
			{ SZ_4K, 1 } },
	    .region_count = 3, .page_shift = 12, .mtt_only = true }, 12, false,
	  -EINVAL },
	{ "regions adding up past U64_MAX",
	  { .region = { { U64_MAX / 2, 3 }, { U64_MAX / 2, 3 },
			{ U64_MAX / 2, 3 } },
	    .region_count = 3, .page_shift = 12, .mtt_only = true }, 12, false,
	  -EINVAL },
	{ "table-only with user data", { R1(SZ_4K, 1), .page_shift = 12,
	  .mtt_only = true }, 12, true, -EINVAL },
	{ "no BT page holds the root (hop 1)", { R1(BIT_ULL(19) << 12, 1),
	  .page_shift = 12, .mtt_only = true }, 12, false, -ERANGE },
	{ "no BT page holds the root (3 regions)",
	  { .region = { { BIT_ULL(18) << 12, 1 }, { SZ_4K, 1 },
			{ SZ_4K, 1 } },
	    .region_count = 3, .page_shift = 12, .mtt_only = true }, 12, false,
	  -ERANGE },
};

static void vroce_mtr_bad_desc(const struct vroce_mtr_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vroce_mtr_bad, vroce_mtr_bads, vroce_mtr_bad_desc);

/*
 * Bad attributes are refused before anything is allocated; a layout no
 * table fits is refused with nothing left behind.
 */
static void vroce_mtr_bad_attrs(struct kunit *test)
{
	const struct vroce_mtr_bad *b = test->param_value;
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mtr *mtr = MTR_POISON;
	struct ib_udata udata = {};

	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &b->attr,
					       b->ba_shift,
					       b->user ? &udata : NULL, 0),
			b->err);
	KUNIT_EXPECT_PTR_EQ(test, mtr, MTR_POISON);
	if (b->err == -EINVAL)
		KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

static void vroce_mtr_null_args(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_buf_attr attr = { R1(SZ_4K, 1), .page_shift = 12 };
	struct vroce_mtr *mtr = MTR_POISON;

	KUNIT_EXPECT_EQ(test, vroce_mtr_create(NULL, &mtr, &attr, 12, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, NULL, &attr, 12, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, NULL, 12, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, mtr, MTR_POISON);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), 0);

	/* Destroying nothing is a no-op. */
	vroce_mtr_destroy(vdev, NULL);
	vroce_test_expect_no_memory_held(test, vdev);
}

static struct vroce_mtr *vroce_test_mtr(struct kunit *test,
					struct vroce_dev *vdev, u64 pages,
					u32 hop, bool mtt_only)
{
	struct vroce_buf_attr attr = {
		R1(pages << 12, hop), .page_shift = 12, .mtt_only = mtt_only,
	};
	struct vroce_mtr *mtr = NULL;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	return mtr;
}

static void vroce_mtr_map_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	dma_addr_t *pages = vroce_test_fake_pages(test, 12, 12);
	struct vroce_mtr *mtr;
	u64 addr;

	/* Table-only: a prefix may be mapped; nothing past the end. */
	mtr = vroce_test_mtr(test, vdev, 10, 1, true);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, NULL, pages, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, U64_MAX),
			-EINVAL);
	pages[2] += 8;		/* not page aligned */
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 4), -EINVAL);
	pages[2] -= 8;
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 4), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 3 << 12, &addr, 1,
					     NULL), 1);
	KUNIT_EXPECT_EQ(test, addr, pages[3]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 4 << 12, &addr, 1,
					     NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 10), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 9 << 12, &addr, 1,
					     NULL), 1);
	vroce_mtr_destroy(vdev, mtr);

	/*
	 * With a buffer: all pages or nothing; a map of another count fails
	 * and leaves no page mapped, as the ABI says.
	 */
	mtr = vroce_test_mtr(test, vdev, 10, 1, false);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, &addr, 1, NULL), 1);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 9), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, &addr, 1, NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 9 << 12, &addr, 1,
					     NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 10), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 7 << 12, &addr, 1,
					     NULL), 1);
	KUNIT_EXPECT_EQ(test, addr, pages[7]);
	vroce_mtr_destroy(vdev, mtr);

	/* Direct: contiguous pages only; a failed map leaves nothing mapped. */
	mtr = vroce_test_mtr(test, vdev, 4, 0, true);
	KUNIT_EXPECT_EQ(test, vroce_mtr_root_ba(mtr), 0);
	swap(pages[1], pages[2]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 4), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, &addr, 1, NULL),
			-ENOENT);
	swap(pages[1], pages[2]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 4), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_root_ba(mtr), pages[0]);
	vroce_mtr_destroy(vdev, mtr);

	vroce_test_expect_no_memory_held(test, vdev);
}

static void vroce_mtr_map_hop0_region(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	dma_addr_t *pages = vroce_test_fake_pages(test, 8, 12);
	struct vroce_buf_attr attr = {
		.region = { { 4 << 12, 0 }, { 4 << 12, 1 } },
		.region_count = 2, .page_shift = 12, .mtt_only = true,
	};
	struct vroce_mtr *mtr;
	u64 addr[8];
	int i;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	/* The hop-1 region may be scattered, the hop-0 one may not. */
	swap(pages[5], pages[6]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 8), 0);
	swap(pages[1], pages[2]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 8), -ENOBUFS);
	swap(pages[1], pages[2]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 8), 0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_find(vdev, mtr, 0, addr, 8, NULL), 8);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, addr[i], pages[i]);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

static void vroce_mtr_find_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	dma_addr_t *pages = vroce_test_fake_pages(test, 10, 12);
	struct vroce_mtr *mtr = vroce_test_mtr(test, vdev, 10, 2, true);
	u64 addrs[16], base = 0;
	int i;

	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 10), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, NULL, 0, addrs, 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, NULL, 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, addrs, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 10 << 12, addrs, 1,
					     NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, U64_MAX, addrs, 1,
					     NULL), -ENOENT);

	/* A byte offset rounds down to its page; the count stops at the end. */
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, (5 << 12) + 123, addrs,
					     3, &base), 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, addrs[i], pages[5 + i]);
	KUNIT_EXPECT_NE(test, base, 0);
	KUNIT_EXPECT_NE(test, base, vroce_mtr_root_ba(mtr));
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 0, addrs, 16, NULL),
			10);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, 9 << 12, addrs, 16,
					     NULL), 1);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Room for the longest batch vroce_test_find_spans() asks for, and more. */
#define SPAN_ROOM	(2 * UNIT + 8)
#define SPAN_POISON	0xdeadbeefdeadbeefULL

/*
 * A find of @max pages from page @idx returns as many as are mapped from
 * there, up to @max, in order, with the table of page @idx, and writes
 * nothing past @max.
 */
static void vroce_test_find_span(struct kunit *test, struct vroce_dev *vdev,
				 struct vroce_mtr *mtr, const dma_addr_t *pages,
				 u64 mapped, u64 idx, u64 max, u64 *got)
{
	u64 want = min(max, mapped - idx), k, one, base = 0, base1 = 0;
	int n;

	if (!max || max >= SPAN_ROOM)
		return;
	for (k = 0; k < SPAN_ROOM; k++)
		got[k] = SPAN_POISON;
	n = vroce_mtr_find(vdev, mtr, idx << 12, got, max, &base);
	KUNIT_ASSERT_EQ_MSG(test, n, want, "%llu pages from %llu of %llu",
			    max, idx, mapped);
	KUNIT_ASSERT_EQ(test, vroce_mtr_find(vdev, mtr, idx << 12, &one, 1,
					     &base1), 1);
	KUNIT_ASSERT_EQ_MSG(test, base, base1, "table of %llu, %llu asked",
			    idx, max);
	for (k = 0; k < n; k++)
		KUNIT_ASSERT_EQ_MSG(test, got[k], pages[idx + k],
				    "page %llu+%llu, %llu asked", idx, k, max);
	for (k = max; k < SPAN_ROOM; k++)
		KUNIT_ASSERT_EQ_MSG(test, got[k], SPAN_POISON,
				    "slot %llu written, %llu asked", k, max);
}

/*
 * Batched finds from pages at and around the table edges, of lengths that
 * end inside a table, at its last entry, one past it, at the last mapped
 * page and one past that.
 */
static void vroce_test_find_spans(struct kunit *test, struct vroce_dev *vdev,
				  struct vroce_mtr *mtr,
				  const dma_addr_t *pages, u64 mapped)
{
	u64 starts[] = { 0, 1, UNIT - 2, UNIT - 1, UNIT, UNIT + 1,
			 mapped - 3, mapped - 2, mapped - 1 };
	u64 *got = kunit_kmalloc_array(test, SPAN_ROOM, sizeof(*got),
				       GFP_KERNEL);
	u32 s;
	int d;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		u64 idx = starts[s], in_table = UNIT - idx % UNIT;

		if (idx >= mapped)
			continue;
		for (d = -1; d <= 1; d++) {
			vroce_test_find_span(test, vdev, mtr, pages, mapped,
					     idx, 3 + d, got);
			vroce_test_find_span(test, vdev, mtr, pages, mapped,
					     idx, in_table + d, got);
			vroce_test_find_span(test, vdev, mtr, pages, mapped,
					     idx, mapped - idx + d, got);
			vroce_test_find_span(test, vdev, mtr, pages, mapped,
					     idx, UNIT + d, got);
		}
	}
	kunit_kfree(test, got);
}

#define HOLES	64

/* Pages held between free ones, by vroce_test_fragment(). */
struct vroce_test_holes {
	struct page *held[HOLES];
};

static void vroce_test_unfragment(void *arg)
{
	struct vroce_test_holes *h = arg;
	int i;

	for (i = 0; i < HOLES; i++)
		if (h->held[i])
			__free_page(h->held[i]);
	kfree(h);
}

/*
 * Free pages with a held page between each two: allocations that follow
 * get pages apart, so that a table read past its end does not find the
 * next table's first entry by chance. The held pages go back when the
 * test ends or at kunit_release_action(vroce_test_unfragment).
 */
static struct vroce_test_holes *vroce_test_fragment(struct kunit *test)
{
	struct vroce_test_holes *h = kzalloc(sizeof(*h), GFP_KERNEL);
	struct page *block;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_unfragment,
							h), 0);
	for (i = 0; i < HOLES; i++) {
		block = alloc_pages(GFP_KERNEL, 1);
		KUNIT_ASSERT_NOT_NULL(test, block);
		split_page(block, 1);
		h->held[i] = block + 1;
		__free_page(block);
	}
	return h;
}

/*
 * A hop-2 table-only MTR of @count pages, mapped, whose bottom tables are
 * not next to each other in DMA address space (a few tries).
 */
static struct vroce_mtr *vroce_test_mtr_apart(struct kunit *test,
					      struct vroce_dev *vdev,
					      const dma_addr_t *pages,
					      u64 count)
{
	struct vroce_buf_attr attr = {
		R1(count << 12, 2), .page_shift = 12, .mtt_only = true,
	};
	u64 b, one, table, prev = 0;
	struct vroce_test_holes *h;
	struct vroce_mtr *mtr;
	bool apart;
	int tries;

	for (tries = 0; tries < 4; tries++) {
		h = vroce_test_fragment(test);
		KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12,
						       NULL, 0), 0);
		kunit_release_action(test, vroce_test_unfragment, h);
		KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, count),
				0);
		apart = true;
		for (b = 0; b * UNIT < count; b++) {
			KUNIT_ASSERT_EQ(test, vroce_mtr_find(vdev, mtr,
							     b * UNIT << 12,
							     &one, 1, &table),
					1);
			if (b && table == prev + PAGE_SIZE)
				apart = false;
			prev = table;
		}
		if (apart)
			return mtr;
		vroce_mtr_destroy(vdev, mtr);
	}
	KUNIT_FAIL(test, "bottom tables kept coming next to each other");
	return NULL;
}

/*
 * Batched finds in the first region's bottom tables (hop 2, then hop 3),
 * in its root entries (hop 1), and from a first region into a second,
 * mapped whole and then a prefix of it, whose entries past the mapped
 * count are stale.
 */
static void vroce_mtr_find_batch_edges(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	u64 count = 2 * UNIT + 5;
	dma_addr_t *pages = vroce_test_fake_pages(test, count, 12);
	struct vroce_buf_attr two = {
		.region = { { 5 << 12, 1 }, { (UNIT + 3) << 12, 2 } },
		.region_count = 2, .page_shift = 12, .mtt_only = true,
	};
	struct vroce_mtr *mtr;

	mtr = vroce_test_mtr_apart(test, vdev, pages, count);
	KUNIT_ASSERT_NOT_NULL(test, mtr);
	vroce_test_find_spans(test, vdev, mtr, pages, count);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, UNIT + 7), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, UNIT + 7);
	vroce_mtr_destroy(vdev, mtr);

	mtr = vroce_test_mtr(test, vdev, count, 3, true);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, count), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, count);
	vroce_mtr_destroy(vdev, mtr);

	mtr = vroce_test_mtr(test, vdev, UNIT, 1, true);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, UNIT), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, UNIT);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 100), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, 100);
	vroce_mtr_destroy(vdev, mtr);

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &two, 12, NULL, 0),
			0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, UNIT + 8), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, UNIT + 8);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 7), 0);
	vroce_test_find_spans(test, vdev, mtr, pages, 7);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * 64 GiB of 4 KiB pages behind hop-3 tables: 2^24 pages, 32768 bottom and
 * 64 middle table pages. Building it yields the CPU (the soft-lockup
 * detector is on in the test kernel); every bottom table is reachable.
 */
static void vroce_mtr_64g_table_only(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mtr *mtr = vroce_test_mtr(test, vdev, (64ULL * SZ_1G) >> 12, 3,
					       true);
	u64 n = (64ULL * SZ_1G) >> 12, i, addr, table, last = 0;
	dma_addr_t *pages = vroce_test_fake_pages(test, UNIT + 1, 12);
	struct vroce_hca_mtt mtt;
	int ret;

	KUNIT_EXPECT_EQ(test, vroce_mtr_page_count(mtr), n);
	KUNIT_EXPECT_EQ(test, vroce_mtr_ba_page_shift(mtr), 12);
	vroce_test_mtt(test, mtr, &mtt);
	for (i = 0; i < n; i += UNIT) {
		ret = vroce_hca_mtt_translate(vroce_test_dma_dev(vdev), &mtt,
					      i + UNIT - 1, &addr, &table);
		/* The walk reaches a bottom table whose entry is empty. */
		KUNIT_ASSERT_EQ_MSG(test, ret, -ENOENT, "page %llu", i);
		KUNIT_ASSERT_NE(test, table, last);
		last = table;
		if (!(i % (UNIT * 1024)))
			cond_resched();
	}

	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, UNIT + 1), 0);
	vroce_test_mtt(test, mtr, &mtt);
	KUNIT_EXPECT_EQ(test, vroce_test_walk_page(test, vdev, mtr, &mtt, UNIT),
			pages[UNIT]);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, (UNIT + 1) << 12,
					     &addr, 1, NULL), -ENOENT);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * The HCA's walk of a user buffer of @len bytes at @iova reaches the user's
 * 4 KiB pages, in order, whatever page size the MTR uses.
 */
static void vroce_test_walk_ubuf(struct kunit *test, struct vroce_dev *vdev,
				 struct vroce_mtr *mtr, u64 iova, size_t len)
{
	u32 shift = vroce_mtr_buf_page_shift(mtr);
	u64 pgmask = BIT_ULL(shift) - 1, o, rel, addr;
	struct vroce_hca_mtt mtt;
	u8 want[16], *p;
	size_t k;

	vroce_test_mtt(test, mtr, &mtt);
	for (o = 0; o < len; o += SZ_4K) {
		rel = (iova & pgmask) + o;
		addr = vroce_test_walk_page(test, vdev, mtr, &mtt, rel >> shift);
		p = vroce_hca_dma_to_virt(vroce_test_dma_dev(vdev),
					  addr + (rel & pgmask), sizeof(*p));
		KUNIT_ASSERT_NOT_NULL(test, p);
		for (k = 0; k < sizeof(want); k++)
			want[k] = vroce_test_pattern(o + k, USER_SEED);
		KUNIT_EXPECT_MEMEQ_MSG(test, p, want, sizeof(want),
				       "4 KiB page %llu", o >> 12);
	}
}

static void vroce_mtr_user_buffer(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_64K, USER_SEED);
	struct vroce_buf_attr attr = {
		R1(SZ_64K, 1), .page_shift = 12,
		.user_access = IB_ACCESS_LOCAL_WRITE, .iova = uaddr,
	};
	struct ib_udata udata = {};
	struct vroce_mtr *mtr;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_page_count(mtr), 16);
	KUNIT_EXPECT_NULL(test, vroce_mtr_buf_kva(mtr, 0));
	vroce_test_walk_ubuf(test, vdev, mtr, uaddr, SZ_64K);
	vroce_mtr_destroy(vdev, mtr);

	/* Two regions behind different hops. */
	attr.region_count = 2;
	attr.region[0].size = SZ_16K;
	attr.region[1].size = SZ_64K - SZ_16K;
	attr.region[1].hopnum = 2;
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), 0);
	vroce_test_walk_ubuf(test, vdev, mtr, uaddr, SZ_64K);
	vroce_mtr_destroy(vdev, mtr);

	/* Adaptive: some page size up to 2 MiB that covers the buffer. */
	attr.region_count = 1;
	attr.region[0].size = SZ_64K;
	attr.page_shift = 21;
	attr.adaptive = true;
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), 0);
	KUNIT_EXPECT_GE(test, vroce_mtr_buf_page_shift(mtr), 12);
	KUNIT_EXPECT_LE(test, vroce_mtr_buf_page_shift(mtr), 21);
	vroce_test_walk_ubuf(test, vdev, mtr, uaddr, SZ_64K);
	vroce_mtr_destroy(vdev, mtr);

	vroce_test_expect_no_memory_held(test, vdev);
}

static void vroce_mtr_user_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_64K, USER_SEED);
	struct vroce_buf_attr attr = {
		R1(SZ_64K, 1), .page_shift = 12, .adaptive = true,
		.user_access = IB_ACCESS_LOCAL_WRITE, .iova = uaddr + 8,
	};
	struct vroce_mtr *mtr = MTR_POISON;
	struct ib_udata udata = {};

	/* No page size makes the IOVA and the buffer agree. */
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), -EINVAL);

	/* 2 MiB pages asked for, and not adaptive: the buffer can't have them. */
	attr.iova = uaddr;
	attr.adaptive = false;
	attr.page_shift = 21;
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), -EINVAL);

	/* Region sizes that are not page multiples. */
	attr.page_shift = 12;
	attr.region_count = 2;
	attr.region[0].size = SZ_4K + 1;
	attr.region[1] = (struct vroce_buf_region_attr){ SZ_64K - SZ_4K - 1, 1 };
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       uaddr), -EINVAL);

	/* ib_umem_get()'s own error comes back unchanged. */
	attr.region_count = 1;
	attr.region[0].size = SZ_64K;
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, &udata,
					       SZ_4K), -EFAULT);

	KUNIT_EXPECT_PTR_EQ(test, mtr, MTR_POISON);
	vroce_test_expect_no_memory_held(test, vdev);
}

struct vroce_mtr_fault_case {
	const char *name;
	struct vroce_buf_attr attr;
	bool user;
};

static const struct vroce_mtr_fault_case vroce_mtr_fault_cases[] = {
	{ "kernel buffer, hops 1/2/3",
	  { .region = { { 3 << 12, 1 }, { (UNIT + 2) << 12, 2 },
			{ (UNIT + 5) << 12, 3 } },
	    .region_count = 3, .page_shift = 12 } },
	{ "kernel buffer, direct", { R1(8 << 12, 0), .page_shift = 12 } },
	{ "table-only, hop 3", { R1((2 * UNIT + 1) << 12, 3), .page_shift = 12,
	  .mtt_only = true } },
	{ "user buffer, two regions",
	  { .region = { { SZ_16K, 1 }, { SZ_64K - SZ_16K, 2 } },
	    .region_count = 2, .page_shift = 12,
	    .user_access = IB_ACCESS_LOCAL_WRITE }, true },
};

static void vroce_mtr_fault_desc(const struct vroce_mtr_fault_case *f,
				 char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vroce_mtr_fault, vroce_mtr_fault_cases, vroce_mtr_fault_desc);

/*
 * Fail the n-th allocation of a create, for every n in turn: each run
 * returns -ENOMEM and frees all it took, until n passes the number of
 * allocations a create makes and it succeeds.
 */
static void vroce_mtr_alloc_faults(struct kunit *test)
{
	const struct vroce_mtr_fault_case *f = test->param_value;
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_buf_attr attr = f->attr;
	struct ib_udata udata = {};
	unsigned long uaddr = 0;
	struct vroce_mtr *mtr;
	s64 allocs;
	int n, err;

	if (f->user) {
		uaddr = vroce_test_user_mem(test, SZ_64K, USER_SEED);
		attr.iova = uaddr;
	}

	/* How many allocations a create makes. */
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12,
					       f->user ? &udata : NULL, uaddr),
			0);
	allocs = vroce_test_allocs(test, vdev);
	vroce_mtr_destroy(vdev, mtr);
	KUNIT_ASSERT_GT(test, allocs, 1);

	for (n = 1; n <= allocs; n++) {
		mtr = MTR_POISON;
		atomic_set(&vdev->mem.fail_nth, n);
		err = vroce_mtr_create(vdev, &mtr, &attr, 12,
				       f->user ? &udata : NULL, uaddr);
		KUNIT_EXPECT_EQ_MSG(test, err, -ENOMEM, "allocation %d", n);
		KUNIT_EXPECT_PTR_EQ_MSG(test, mtr, MTR_POISON, "allocation %d", n);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&vdev->mem.fail_nth), 0,
				    "allocation %d not reached", n);
		if (!err)
			vroce_mtr_destroy(vdev, mtr);
		vroce_test_expect_no_memory_held(test, vdev);
		if (test->status == KUNIT_FAILURE)
			break;
	}

	/* One past the last allocation: nothing fails. */
	atomic_set(&vdev->mem.fail_nth, n);
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12,
					       f->user ? &udata : NULL, uaddr),
			0);
	atomic_set(&vdev->mem.fail_nth, 0);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * The HCA's walker on layouts no driver would program: each field out of
 * range, regions that do not tile, a root table that is unaligned or not
 * memory. It refuses each, and reads nothing.
 */
static void vroce_mtr_walker_malformed(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct device *dma = vroce_test_dma_dev(vdev);
	struct vroce_buf_attr attr = {
		.region = { { 4 * SZ_4K, 1 } }, .region_count = 1,
		.page_shift = 12, .mtt_only = true,
	};
	dma_addr_t pages[4] = { 0x100000, 0x101000, 0x102000, 0x103000 };
	struct vroce_hca_mtt good, m;
	struct vroce_mtr *mtr;
	u64 addr, table;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 4), 0);
	vroce_test_mtt(test, mtr, &good);
	KUNIT_ASSERT_EQ(test, vroce_hca_mtt_translate(dma, &good, 3, &addr,
						      &table), 0);
	KUNIT_EXPECT_EQ(test, addr, 0x103000);

#define WALK_REFUSED(field_change, err, what)				\
	do {								\
		m = good;						\
		field_change;						\
		KUNIT_EXPECT_EQ_MSG(test,				\
				    vroce_hca_mtt_translate(dma, &m, 0,	\
							    &addr, &table), \
				    err, what);				\
	} while (0)

	WALK_REFUSED(m.region_count = 0, -EINVAL, "no region");
	WALK_REFUSED(m.region_count = VROCE_HCA_MAX_REGIONS + 1, -EINVAL,
		     "too many regions");
	WALK_REFUSED(m.ba_pg_shift = 11, -EINVAL, "table pages of 2 KiB");
	WALK_REFUSED(m.ba_pg_shift = 22, -EINVAL, "table pages of 4 MiB");
	WALK_REFUSED(m.buf_pg_shift = 11, -EINVAL, "buffer pages of 2 KiB");
	WALK_REFUSED(m.buf_pg_shift = 31, -EINVAL, "buffer pages of 2 GiB");
	WALK_REFUSED(m.region[0].offset = 1, -EINVAL, "a region not at 0");
	WALK_REFUSED(m.region[0].hopnum = 4, -EINVAL, "hop 4");
	WALK_REFUSED((m.region_count = 2, m.region[1].offset = 5,
		      m.region[1].count = 1), -EINVAL, "a gap between regions");
	WALK_REFUSED((m.region_count = 2, m.region[1].offset = 4,
		      m.region[1].count = U64_MAX), -EINVAL,
		     "a region count that wraps");
	WALK_REFUSED(m.root_ba += 8, -EFAULT, "an unaligned root table");
	WALK_REFUSED(m.root_ba = 0xfff0000000000000ULL, -EFAULT,
		     "a root table that is not memory");
#undef WALK_REFUSED
	KUNIT_EXPECT_EQ(test, vroce_hca_mtt_translate(dma, &good, 4, &addr,
						      &table), -ERANGE);
	vroce_mtr_destroy(vdev, mtr);
}

/* Page @i of @mtr as the HCA finds it: its address, or the walker's error. */
static s64 vroce_test_sparse_walk(struct kunit *test, struct vroce_dev *vdev,
				  struct vroce_mtr *mtr, u64 i)
{
	struct vroce_hca_mtt mtt;
	u64 addr, table;
	int err;

	vroce_test_mtt(test, mtr, &mtt);
	err = vroce_hca_mtt_translate(vroce_test_dma_dev(vdev), &mtt, i, &addr,
				      &table);
	return err ?: (s64)addr;
}

struct vroce_mtr_sparse_case {
	u64 pages;
	u32 hopnum;	/* 0: adaptive */
	u32 want_hop;
	u64 first;	/* a range across a table's end */
	const char *name;
};

static const struct vroce_mtr_sparse_case vroce_mtr_sparse_cases[] = {
	{ 1, 0, 1, 0, "one page, adaptive: hop 1, never direct" },
	{ 300, 0, 1, 100, "300 pages, adaptive: hop 1" },
	{ UNIT * 4, 2, 2, UNIT - 3, "hop 2" },
	{ UNIT2 + UNIT, 0, 3, UNIT2 - 3, "adaptive beyond hop 2: hop 3" },
	{ UNIT * 3, 3, 3, UNIT * 2 - 3, "hop 3 asked for" },
};

static void vroce_mtr_sparse_desc(const struct vroce_mtr_sparse_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vroce_mtr_sparse, vroce_mtr_sparse_cases,
		  vroce_mtr_sparse_desc);

/*
 * A sparse MTR (on-demand paging): no page mapped at first, and the HCA's
 * walker finds none (-ENOENT, never a table that leads nowhere); a range
 * mapped anywhere, across a table's end, is found by find and the walker
 * alike and only it; unmapping counts what was mapped; a bad map writes
 * nothing; all memory goes with the MTR, the tables built on the way too.
 */
static void vroce_mtr_sparse(struct kunit *test)
{
	const struct vroce_mtr_sparse_case *c = test->param_value;
	struct vroce_dev *vdev = vroce_test_dev(test);
	u64 n = min_t(u64, 7, c->pages - c->first), i, addr[8];
	dma_addr_t *pages = vroce_test_fake_pages(test, 8, 12);
	struct vroce_buf_attr attr = {
		.region = { { c->pages << 12, c->hopnum } }, .region_count = 1,
		.page_shift = 12, .mtt_only = true, .adaptive = !c->hopnum,
		.sparse = true,
	};
	struct vroce_mtr_region r;
	struct vroce_mtr *mtr;
	s64 allocs;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_region(mtr, 0, &r), 0);
	KUNIT_EXPECT_EQ(test, r.hopnum, c->want_hop);
	KUNIT_EXPECT_FALSE(test, vroce_mtr_is_direct(mtr));
	KUNIT_EXPECT_NE(test, vroce_mtr_root_ba(mtr), 0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_page_count(mtr), c->pages);
	/* The root table, the object and at most two arrays of table slots. */
	KUNIT_EXPECT_LE(test, vroce_test_allocs(test, vdev), 4);

	KUNIT_EXPECT_EQ(test, vroce_mtr_map(vdev, mtr, pages, 1), -EINVAL);
	for (i = 0; i < c->pages; i += max_t(u64, 1, c->pages / 5)) {
		KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, i << 12, addr,
						     1, NULL), -ENOENT);
		KUNIT_EXPECT_EQ_MSG(test, vroce_test_sparse_walk(test, vdev,
								 mtr, i),
				    -ENOENT, "page %llu", i);
	}

	/* Bad maps write nothing. */
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, NULL, 0, pages, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, 0, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, 0, pages, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->pages, pages,
						  1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->pages - 1,
						  pages, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, 1, pages,
						  U64_MAX), -EINVAL);
	pages[n - 1] += 8;
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->first, pages,
						  n), -EINVAL);
	pages[n - 1] -= 8;
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, c->first << 12, addr,
					     1, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, NULL, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, c->pages, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 1, U64_MAX),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 0, c->pages), 0);

	/* A range anywhere: found by both, and nothing around it. */
	KUNIT_ASSERT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->first, pages,
						  n), 0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_find(vdev, mtr, c->first << 12, addr,
					     8, NULL), n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, addr[i], pages[i]);
		KUNIT_EXPECT_EQ(test, vroce_test_sparse_walk(test, vdev, mtr,
							     c->first + i),
				(s64)pages[i]);
	}
	if (c->first) {
		KUNIT_EXPECT_EQ(test, vroce_test_sparse_walk(test, vdev, mtr,
							     c->first - 1),
				-ENOENT);
		KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr,
						     (c->first - 1) << 12,
						     addr, 1, NULL), -ENOENT);
	}
	if (c->first + n < c->pages)
		KUNIT_EXPECT_EQ(test, vroce_test_sparse_walk(test, vdev, mtr,
							     c->first + n),
				-ENOENT);
	/* Mapped again elsewhere in the same place: overwritten. */
	KUNIT_ASSERT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->first,
						  pages + 1, 1), 0);
	KUNIT_EXPECT_EQ(test, vroce_test_sparse_walk(test, vdev, mtr, c->first),
			(s64)pages[1]);

	/* Unmapped: counted once, then gone for the walker; tables stay. */
	allocs = vroce_test_allocs(test, vdev);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 0, c->pages), n);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 0, c->pages), 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, vroce_test_sparse_walk(test, vdev, mtr,
							     c->first + i),
				-ENOENT);
	KUNIT_ASSERT_EQ(test, vroce_mtr_map_range(vdev, mtr, c->first, pages,
						  n), 0);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), allocs);
	/* A hole: a find of several pages stops before it. */
	if (n > 1) {
		KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr,
							    c->first + 1, 1),
				1);
		KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, mtr, c->first << 12,
						     addr, 8, NULL), 1);
	}
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* What a sparse MTR may not be. */
static void vroce_mtr_sparse_attrs(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_buf_attr attr = {
		.region = { { SZ_64K, 1 }, { SZ_64K, 1 } }, .region_count = 1,
		.page_shift = 12, .mtt_only = true, .sparse = true,
	};
	struct vroce_mtr *mtr = MTR_POISON;
	dma_addr_t page = FAKE_DMA_BASE;

	attr.mtt_only = false;
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			-EINVAL);
	attr.mtt_only = true;
	attr.region_count = 2;
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			-EINVAL);
	attr.region_count = 1;
	attr.region[0].hopnum = 0;
	KUNIT_EXPECT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, mtr, MTR_POISON);

	/* A plain MTR is not mapped by ranges. */
	attr.sparse = false;
	attr.region[0].hopnum = 1;
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	KUNIT_EXPECT_EQ(test, vroce_mtr_map_range(vdev, mtr, 0, &page, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_unmap_range(vdev, mtr, 0, 1), -EINVAL);
	vroce_mtr_destroy(vdev, mtr);
	vroce_test_expect_no_memory_held(test, vdev);
}

static struct kunit_case vroce_mtr_cases[] = {
	KUNIT_CASE_PARAM(vroce_mtr_layouts_walk, vroce_mtr_layout_gen_params),
	KUNIT_CASE(vroce_mtr_table_counts),
	KUNIT_CASE_PARAM(vroce_mtr_bad_attrs, vroce_mtr_bad_gen_params),
	KUNIT_CASE(vroce_mtr_null_args),
	KUNIT_CASE(vroce_mtr_map_errors),
	KUNIT_CASE(vroce_mtr_map_hop0_region),
	KUNIT_CASE(vroce_mtr_find_errors),
	KUNIT_CASE(vroce_mtr_find_batch_edges),
	KUNIT_CASE(vroce_mtr_user_buffer),
	KUNIT_CASE(vroce_mtr_user_errors),
	KUNIT_CASE(vroce_mtr_walker_malformed),
	KUNIT_CASE_PARAM(vroce_mtr_sparse, vroce_mtr_sparse_gen_params),
	KUNIT_CASE(vroce_mtr_sparse_attrs),
	KUNIT_CASE_PARAM(vroce_mtr_alloc_faults, vroce_mtr_fault_gen_params),
	KUNIT_CASE_SLOW(vroce_mtr_64g_table_only),
	{}
};

static struct kunit_suite vroce_mtr_suite = {
	.name = "vroce_mtr",
	.test_cases = vroce_mtr_cases,
};

kunit_test_suite(vroce_mtr_suite);
