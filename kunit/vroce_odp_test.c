// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_odp (issue 33): on-demand paging MRs. First the ABI's
 * ODP object (bindings/vroce_abi.h), whichever implementation is built:
 * what it refuses, the pages a fault maps and an invalidation unmaps,
 * and that the HCA's walker finds exactly the pages mapped.
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "vroce_test.h"

#define FAKE_DMA	BIT_ULL(40)	/* table-only pages are never touched */
#define ODP_ACC		(IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE | \
			 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)
#define WIN		VROCE_MR_ODP_FAULT_PAGES

static struct vroce_mr_obj *vroce_test_odp_obj(struct kunit *test,
					       struct vroce_dev *vdev,
					       u64 start, u64 length, u64 iova)
{
	struct vroce_mr_user_attr attr = {
		.start = start, .length = length, .iova = iova,
		.access = ODP_ACC, .max_length = U64_MAX,
	};
	struct vroce_mr_obj *obj = NULL;

	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_odp(vdev, &attr, &obj), 0);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	return obj;
}

/* Page @i of @obj as the HCA's walker finds it: its address or the error. */
static s64 vroce_test_odp_walk(struct kunit *test, struct vroce_dev *vdev,
			       struct vroce_mr_obj *obj, u64 i)
{
	struct vroce_mr_info info;
	struct vroce_mtr_region r;
	struct vroce_hca_mtt mtt = {};
	u64 addr, table;
	int err;

	vroce_mr_obj_info(obj, &info);
	KUNIT_ASSERT_NOT_NULL(test, info.mtr);
	KUNIT_ASSERT_EQ(test, vroce_mtr_region(info.mtr, 0, &r), 0);
	mtt.root_ba = vroce_mtr_root_ba(info.mtr);
	mtt.ba_pg_shift = vroce_mtr_ba_page_shift(info.mtr);
	mtt.buf_pg_shift = vroce_mtr_buf_page_shift(info.mtr);
	mtt.region_count = 1;
	mtt.region[0].count = r.count;
	mtt.region[0].hopnum = r.hopnum;
	err = vroce_hca_mtt_translate(vdev->dma_dev, &mtt, i, &addr, &table);
	return err ?: (s64)addr;
}

/* What an ODP object refuses; the rights it gives what it takes. */
static void vroce_odp_obj_create(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mr_user_attr attr = {
		.start = SZ_1G, .length = SZ_64K, .iova = SZ_1G,
		.access = ODP_ACC, .max_length = SZ_1G,
	};
	struct vroce_mr_obj *obj = NULL;
	struct vroce_mr_desc desc;
	struct vroce_mr_info info;

#define REFUSED(change, err, what)					\
	do {								\
		struct vroce_mr_user_attr a = attr;			\
									\
		change;							\
		KUNIT_EXPECT_EQ_MSG(test,				\
				    vroce_mr_obj_create_odp(vdev, &a, &obj), \
				    err, what);				\
		KUNIT_EXPECT_NULL(test, obj);				\
	} while (0)

	REFUSED(a.length = 0, -EINVAL, "zero length");
	REFUSED(a.length = SZ_1G + 1, -EINVAL, "longer than the device's max");
	REFUSED((a.iova = U64_MAX - SZ_4K + 1), -EINVAL, "an iova that wraps");
	REFUSED((a.start = U64_MAX - SZ_4K + 1, a.iova = a.start), -EINVAL,
		"a start that wraps");
	REFUSED(a.iova += 8, -EINVAL, "iova and start apart in their page");
	REFUSED(a.access &= ~IB_ACCESS_ON_DEMAND, -EINVAL, "not on demand");
	REFUSED(a.access |= IB_ZERO_BASED, -EOPNOTSUPP, "zero-based");
	REFUSED(a.access = IB_ACCESS_ON_DEMAND | IB_ACCESS_REMOTE_WRITE,
		-EINVAL, "remote write without local write");
#undef REFUSED
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_odp(NULL, &attr, &obj),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_odp(vdev, NULL, &obj),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_odp(vdev, &attr, NULL),
			-EINVAL);

	/* An unaligned start: the pages it touches, iova with the same offset. */
	attr.start += 100;
	attr.iova = SZ_1M + 100;
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_odp(vdev, &attr, &obj), 0);
	vroce_mr_obj_info(obj, &info);
	KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_ODP);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_NEW);
	KUNIT_EXPECT_EQ(test, info.iova, SZ_1M + 100);
	KUNIT_EXPECT_EQ(test, info.length, SZ_64K);
	KUNIT_EXPECT_EQ(test, vroce_mtr_page_count(info.mtr),
			(SZ_64K >> PAGE_SHIFT) + 1);
	KUNIT_EXPECT_EQ(test, vroce_mtr_buf_page_shift(info.mtr), PAGE_SHIFT);
	KUNIT_EXPECT_FALSE(test, vroce_mtr_is_direct(info.mtr));
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_describe(obj, 7, &desc), 0);
	KUNIT_EXPECT_EQ(test, desc.kind, VROCE_MR_TYPE_ODP);
	KUNIT_EXPECT_EQ(test, desc.access, VROCE_MR_RIGHT_LOCAL_WRITE |
			VROCE_MR_RIGHT_REMOTE_WRITE |
			VROCE_MR_RIGHT_REMOTE_READ);
	/* Not a fast-register MR. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(obj, FAKE_DMA), -EINVAL);
	vroce_mr_obj_destroy(vdev, obj);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A fault maps the aligned window around the access, inside the MR; an
 * access outside the MR is refused; the window's pages are mapped where
 * the walker finds them; an invalidation unmaps the pages it meets,
 * counts those that were mapped, and clips to the MR.
 */
static void vroce_odp_obj_ranges(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	u64 npages = 3 * WIN + 5, start = SZ_1G + 100, iova = SZ_1M + 100;
	u64 len = (npages << PAGE_SHIFT) - 200;	/* 100 bytes short each end */
	struct vroce_mr_obj *obj = vroce_test_odp_obj(test, vdev, start, len,
						      iova);
	dma_addr_t *pages = kunit_kcalloc(test, WIN * 2, sizeof(*pages),
					  GFP_KERNEL);
	struct vroce_mr_odp_range r, ur;
	struct vroce_mr_info info;
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < WIN * 2; i++)
		pages[i] = FAKE_DMA + (i << PAGE_SHIFT);
	vroce_mr_obj_info(obj, &info);
	KUNIT_ASSERT_EQ(test, vroce_mtr_page_count(info.mtr), npages);

	/* An access in page WIN: the window WIN..2 WIN - 1. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_fault(obj, iova + WIN * PAGE_SIZE,
						     8, true, &r), 0);
	KUNIT_EXPECT_EQ(test, r.first, WIN);
	KUNIT_EXPECT_EQ(test, r.count, WIN);
	KUNIT_EXPECT_EQ(test, r.user_addr, round_down(start, PAGE_SIZE) +
			WIN * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, r.user_len, WIN * PAGE_SIZE);
	/* Across a window's end: both windows. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_fault(obj, iova + WIN * PAGE_SIZE -
						     108, 16, true, &r), 0);
	KUNIT_EXPECT_EQ(test, r.first, 0);
	KUNIT_EXPECT_EQ(test, r.count, 2 * WIN);
	/* Not ahead: the two pages the access touches, nothing more. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_fault(obj, iova + WIN * PAGE_SIZE -
						     108, 16, false, &r), 0);
	KUNIT_EXPECT_EQ(test, r.first, WIN - 1);
	KUNIT_EXPECT_EQ(test, r.count, 2);
	KUNIT_EXPECT_EQ(test, r.user_addr, round_down(start, PAGE_SIZE) +
			(WIN - 1) * PAGE_SIZE);
	/* The last bytes: clipped to the MR's pages. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_fault(obj, iova + len - 1, 1,
						     true, &r), 0);
	KUNIT_EXPECT_EQ(test, r.first, 3 * WIN);
	KUNIT_EXPECT_EQ(test, r.count, 5);
	/* Outside the MR, or nothing asked: refused. */
	KUNIT_EXPECT_EQ(test,
			vroce_mr_obj_odp_fault(obj, iova - 1, 1, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			vroce_mr_obj_odp_fault(obj, iova + len, 1, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_fault(obj, iova + len - 4, 8,
						     true, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			vroce_mr_obj_odp_fault(obj, iova, U64_MAX, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_fault(obj, iova, 0, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_fault(obj, iova, 1, true, NULL),
			-EINVAL);

	/* Map pages WIN..3 WIN - 1: the walker finds exactly those. */
	r = (struct vroce_mr_odp_range) { .first = WIN, .count = 2 * WIN };
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, &r, pages), 0);
	for (i = 0; i < npages; i++)
		KUNIT_EXPECT_EQ_MSG(test, vroce_test_odp_walk(test, vdev, obj, i),
				    i >= WIN && i < 3 * WIN ?
				    (s64)pages[i - WIN] : -ENOENT,
				    "page %llu", i);
	r.count = 0;
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, &r, pages),
			-EINVAL);
	r.count = npages;	/* past the end */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, &r, pages),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, NULL, pages),
			-EINVAL);

	/* An invalidation of one byte: its page, counted once. */
	r.user_addr = round_down(start, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj,
							  r.user_addr +
							  (WIN + 3) * PAGE_SIZE + 9,
							  r.user_addr +
							  (WIN + 3) * PAGE_SIZE + 10,
							  &ur), 1);
	KUNIT_EXPECT_EQ(test, ur.first, WIN + 3);
	KUNIT_EXPECT_EQ(test, ur.count, 1);
	KUNIT_EXPECT_EQ(test, vroce_test_odp_walk(test, vdev, obj, WIN + 3),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_test_odp_walk(test, vdev, obj, WIN + 4),
			(s64)pages[4]);
	/* The whole address space: clipped to the MR, the rest counted. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 0,
							  U64_MAX, &ur),
			2 * WIN - 1);
	KUNIT_EXPECT_EQ(test, ur.first, 0);
	KUNIT_EXPECT_EQ(test, ur.count, npages);
	KUNIT_EXPECT_EQ(test, vroce_test_odp_walk(test, vdev, obj, WIN + 4),
			-ENOENT);
	/* Around the MR, but not in it: nothing. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 0,
							  r.user_addr, &ur), 0);
	KUNIT_EXPECT_EQ(test, ur.count, 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj,
							  r.user_addr +
							  (npages << PAGE_SHIFT),
							  U64_MAX, &ur), 0);
	KUNIT_EXPECT_EQ(test, ur.count, 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 5, 5,
							  &ur), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 0, 5,
							  NULL), -EINVAL);
	vroce_mr_obj_destroy(vdev, obj);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* The ODP calls refuse every other kind of MR. */
static void vroce_odp_obj_other_kinds(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mr_odp_range r = { .first = 0, .count = 1 };
	dma_addr_t page = FAKE_DMA;
	struct vroce_mr_obj *obj;

	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_frmr(vdev, 4, 4, &obj), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_fault(obj, 0, 1, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, &r, &page),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 0, 1, &r),
			-EINVAL);
	vroce_mr_obj_destroy(vdev, obj);
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_dma(vdev, 0, false, &obj), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_fault(obj, 0, 1, true, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_odp_invalidate(vdev, obj, 0, 1, &r),
			-EINVAL);
	vroce_mr_obj_destroy(vdev, obj);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Registration does no per-page work: a 1 GiB ODP object is its root
 * table and a few small arrays, and the tables below come with the
 * pages mapped.
 */
static void vroce_odp_obj_big(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mr_obj *obj = vroce_test_odp_obj(test, vdev, SZ_1G, SZ_1G,
						      SZ_1G);
	struct vroce_mr_odp_range r;
	dma_addr_t pages[WIN];
	s64 before;
	u64 i;

	KUNIT_EXPECT_LE(test, vroce_test_allocs(test, vdev), 5);
	for (i = 0; i < WIN; i++)
		pages[i] = FAKE_DMA + (i << PAGE_SHIFT);
	before = vroce_test_allocs(test, vdev);
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_fault(obj, SZ_1G + SZ_512M, 1,
						     true, &r), 0);
	KUNIT_ASSERT_EQ(test, r.count, WIN);
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_odp_map(vdev, obj, &r, pages), 0);
	/* One bottom table (and a middle one, for hop 3). */
	KUNIT_EXPECT_LE(test, vroce_test_allocs(test, vdev) - before, 2);
	KUNIT_EXPECT_EQ(test, vroce_test_odp_walk(test, vdev, obj, r.first + 3),
			(s64)pages[3]);
	vroce_mr_obj_destroy(vdev, obj);
	vroce_test_expect_no_memory_held(test, vdev);
}

static struct kunit_case vroce_odp_cases[] = {
	KUNIT_CASE(vroce_odp_obj_create),
	KUNIT_CASE(vroce_odp_obj_ranges),
	KUNIT_CASE(vroce_odp_obj_other_kinds),
	KUNIT_CASE(vroce_odp_obj_big),
	{}
};

static struct kunit_suite vroce_odp_suite = {
	.name = "vroce_odp",
	.test_cases = vroce_odp_cases,
};

kunit_test_suite(vroce_odp_suite);
