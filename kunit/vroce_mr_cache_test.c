// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mr_cache: reg_user_mr from cached HCA MR entries
 * (c/driver/vroce_mr_cache.c): an entry is reused under a new key while
 * no old key works, the pages go only once the HCA revoked the MR, the
 * buckets keep what they may, and what the cache does not fit, or a cache
 * turned off, takes the cold path. The MR suites run with the cache on
 * (the default) in the debug kernels and off in the nodebug kernel.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define CACHE_ACC	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ)

static struct vroce_dev *cache_dev(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);

	/* The module parameter may have turned it off for the kernel. */
	vdev->mr_cache.enabled = true;
	return vdev;
}

/* The HCA reads @len bytes through @key at @iova; 0 or its error. */
static int cache_read(struct kunit *test, u32 key, u32 pdn, u64 iova,
		      u8 *buf, u32 len)
{
	return vroce_hca_mr_access(vroce_test_hca(test), key, pdn, iova, buf,
				   len, 0, false);
}

/*
 * Deregistered, the entry comes back under a new key over new pages: the
 * HCA reads the new pages, no old key works, and the MR is a user MR (no
 * work request invalidates or registers it).
 */
static void vroce_mr_cache_reuse(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 1);
	unsigned long b = vroce_test_user_mem(test, SZ_16K, 2);
	u8 *want = kunit_kzalloc(test, SZ_16K, GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, SZ_16K, GFP_KERNEL);
	struct vroce_mr_info info;
	u32 keys[3], handle;
	struct ib_mr *mr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.misses, 1);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits, 0);
	vroce_test_mr_info(mr, &info);
	/* A fast-register entry of 4 pages under the user's new key. */
	KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_FRMR);
	KUNIT_EXPECT_EQ(test, info.max_pages, 4);
	handle = info.handle;
	keys[0] = mr->lkey;
	KUNIT_EXPECT_NE(test, keys[0], info.key);
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)a, SZ_16K),
			0);
	KUNIT_ASSERT_EQ(test, cache_read(test, mr->rkey, pdn, a, got, SZ_16K),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, want, SZ_16K);
	/* A user MR: the data path can neither invalidate nor register it. */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_invalidate(hca, mr->rkey),
			-VROCE_HCA_EKEY);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, cache_read(test, keys[0], pdn, a, got, 8),
			-VROCE_HCA_EKEY);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.recycled, 1);
	/*
	 * Idle, it waits under the cache's own PD, where no QP is: a REG_MR
	 * work request from the user's PD cannot register it.
	 */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, keys[0], pdn, a,
						      SZ_4K, VROCE_ACC_LOCAL_WRITE,
						      info.pbl_dma, 1),
			-VROCE_HCA_EPD);

	for (i = 1; i < 3; i++) {
		mr = ib_reg_user_mr(pd, b, SZ_16K, b + SZ_16K * i, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits, i);
		vroce_test_mr_info(mr, &info);
		/* The same HCA entry, a key none before had. */
		KUNIT_EXPECT_EQ(test, info.handle, handle);
		keys[i] = mr->lkey;
		KUNIT_EXPECT_NE(test, FIELD_GET(VROCE_KEY_TAG, keys[i]),
				FIELD_GET(VROCE_KEY_TAG, keys[i - 1]));
		KUNIT_EXPECT_NE(test, FIELD_GET(VROCE_KEY_GEN, keys[i]),
				FIELD_GET(VROCE_KEY_GEN, keys[i - 1]));
		KUNIT_EXPECT_EQ(test, cache_read(test, keys[i - 1], pdn,
						 b + SZ_16K * i, got, 8),
				-VROCE_HCA_EKEY);
		/* The table now leads to b's pages, at the new iova. */
		KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)b,
						     SZ_16K), 0);
		KUNIT_ASSERT_EQ(test, cache_read(test, keys[i], pdn,
						 b + SZ_16K * i, got, SZ_16K),
				0);
		KUNIT_EXPECT_MEMEQ(test, got, want, SZ_16K);
		KUNIT_EXPECT_EQ(test, cache_read(test, keys[i], pdn,
						 b + SZ_16K * i - 1, got, 1),
				-VROCE_HCA_EBOUNDS);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	}
	KUNIT_EXPECT_EQ(test, cache_read(test, keys[2], pdn, b + 2 * SZ_16K,
					 got, 8), -VROCE_HCA_EKEY);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * REVOKE_MR fails, and so does the DESTROY_MR that follows: the MR may
 * still translate, so its pages stay pinned and reachable until the HCA
 * lets go. A lost REVOKE_MR is followed by a DESTROY_MR that works.
 */
static void vroce_mr_cache_revoke_fails(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 3);
	u8 want[64], got[64];
	struct ib_mr *mr;
	u32 key;

	vroce_test_faults_off(test, hca);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	key = mr->lkey;
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)a, 64), 0);

	vroce_hca_set_faults(hca, 2, VROCE_CMD_BUSY, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_ASSERT_FALSE(test, list_empty(&vdev->zombies));
	/* Its pages are still pinned, and the HCA still reaches them. */
	KUNIT_EXPECT_NOT_NULL(test, list_first_entry(&vdev->zombies,
						     struct vroce_mr,
						     zombie)->umem);
	KUNIT_EXPECT_EQ(test, cache_read(test, key, pdn, a, got, 64), 0);
	KUNIT_EXPECT_MEMEQ(test, got, want, 64);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.recycled, 0);
	vroce_mr_reap(vdev, false);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_EQ(test, cache_read(test, key, pdn, a, got, 8),
			-VROCE_HCA_EKEY);
	vroce_test_expect_no_memory_held(test, vdev);

	/* Lost: the HCA revoked it but said nothing; destroyed after. */
	vroce_test_cmd_timeout(test, vdev, 100);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	key = mr->lkey;
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_REVOKE_MR);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_EQ(test, cache_read(test, key, pdn, a, got, 8),
			-VROCE_HCA_EKEY);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.recycled, 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Buckets by rights and 2^order pages, each keeping VROCE_MR_CACHE_HIGH
 * idle entries; the user's PD is free to go once its MRs are.
 */
static void vroce_mr_cache_buckets(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = ib_alloc_pd(&vdev->ibdev, 0);
	unsigned long a = vroce_test_user_mem(test, 8 * SZ_4K, 4);
	u32 r = VROCE_MR_RIGHT_LOCAL_WRITE | VROCE_MR_RIGHT_REMOTE_READ;
	struct ib_mr *mr[VROCE_MR_CACHE_HIGH + 4], *x;
	u32 pdn;
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	pdn = to_vroce_pd(pd)->pdn;
	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	/* Five pages take the eight-page bucket; other rights, another. */
	x = ib_reg_user_mr(pd, a + 100, 4 * SZ_4K + 1, a + 100, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, x);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(x), 0);
	x = ib_reg_user_mr(pd, a, SZ_4K, a, IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, x);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(x), 0);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.bucket[r][3].count, 1);
	KUNIT_EXPECT_EQ(test,
			vdev->mr_cache.bucket[VROCE_MR_RIGHT_REMOTE_READ][0].count,
			1);
	for (i = 0; i < ARRAY_SIZE(mr); i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.bucket[r][0].count,
			VROCE_MR_CACHE_HIGH);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.dropped,
			ARRAY_SIZE(mr) - VROCE_MR_CACHE_HIGH);

	/* Idle entries wait under the cache's PD, not the user's. */
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->pd_zombies));
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, pdn), -ENOENT);
	vroce_test_expect_no_memory_held(test, vdev);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.bucket[r][0].count, 0);
}

/* Off, or an MR the cache does not fit: an MTR built for it, as before. */
static void vroce_mr_cache_cold(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 5), big;
	struct vroce_mr_info info;
	struct ib_mr *mr;
	int i;

	big = kunit_vm_mmap(test, NULL, 0, SZ_16M + SZ_4K,
			    PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
			    0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(big));
	for (i = 0; i < 2; i++) {
		vdev->mr_cache.enabled = i;
		/* Off; then on, more pages than a fast-register table has. */
		mr = i ? ib_reg_user_mr(pd, big, SZ_16M + SZ_4K, big,
					CACHE_ACC) :
			 ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		vroce_test_mr_info(mr, &info);
		KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_USER);
		KUNIT_EXPECT_EQ(test, mr->lkey, info.key);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	}
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits + vdev->mr_cache.misses, 0);
	/* Bad input gets the cold path's errno, cache or not. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, a, SZ_4K, a,
						     IB_ACCESS_REMOTE_WRITE)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, 0, SZ_4K, 0,
						     CACHE_ACC)),
			-EFAULT);
	/* An iova that disagrees with the address below 4 KiB maps nowhere. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, a, SZ_4K, a + 8,
						     CACHE_ACC)),
			-EINVAL);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * ENABLE_MR refused: the error goes to the caller and the pages are let
 * go; the entry stays idle for the next registration after NO_RESOURCE,
 * and is destroyed after BAD_PARAM (the HCA does not take it as idle).
 */
static void vroce_mr_cache_enable_fails(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 6);
	struct ib_mr *mr;

	vroce_test_faults_off(test, hca);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_ENABLE_MR);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	/* The entry is kept, and the registration takes the cold path. */
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.recycled, 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_TRUE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits, 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	/* Refused as not idle, or unknown: the entry is not kept. */
	vroce_hca_set_faults(hca, 1, VROCE_CMD_BAD_PARAM, 0, 0);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits, 2);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.dropped, 1);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.bucket[VROCE_MR_RIGHT_LOCAL_WRITE |
						 VROCE_MR_RIGHT_REMOTE_READ][2].count,
			0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* What the HCA refuses of ENABLE_MR and REVOKE_MR, entry left usable. */
static void vroce_mr_cache_hca_checks(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 7);
	struct vroce_cmd_enable_desc d, good;
	struct vroce_mr_info info, cold;
	struct ib_mr *mr, *user;
	u32 key, cpdn;

	/* One entry of 4 pages, idle, and a cold user MR beside it. */
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_test_mr_info(mr, &info);
	/* In use: not idle, so not enabled twice. */
	good = (struct vroce_cmd_enable_desc){ .handle = info.handle,
		.pdn = to_vroce_pd(pd)->pdn, .access = VROCE_ACC_LOCAL_WRITE,
		.npages = 4, .iova = a, .length = SZ_16K, .pbl = info.pbl_dma };
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &good, &key), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	cpdn = vdev->mr_cache.pdn;
	/* Idle: nothing to revoke. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_revoke_mr(vdev, info.handle, cpdn),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_revoke_mr(vdev, info.handle ^ 0x10000,
						  cpdn), -ENOENT);

	d = good;
	d.handle ^= 0x10000;			/* another generation */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -ENOENT);
	d = good;
	d.pdn = vdev->attr.max_pd - 1;		/* no such PD */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -ENOENT);
	d = good;
	d.npages = 0;
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d.npages = 5;				/* more than the table has */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d = good;
	d.length = 0;
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d.length = SZ_16K + 1;			/* beyond the listed pages */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d = good;
	d.iova = U64_MAX - 100;			/* wraps */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d = good;
	d.access = VROCE_ACC_REMOTE_WRITE;	/* without local write */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	d = good;
	d.pbl = good.pbl + 4;			/* misaligned */
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);

	/* A cold user MR is neither enabled nor revoked. */
	vdev->mr_cache.enabled = false;
	user = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, user);
	vdev->mr_cache.enabled = true;
	vroce_test_mr_info(user, &cold);
	d = good;
	d.handle = cold.handle;
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &d, &key), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_revoke_mr(vdev, cold.handle, cpdn),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(user), 0);

	/* The entry took none of it: the next registration reuses it. */
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits, 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

#define CACHE_CYCLES	300
#define CACHE_DISTINCT	200

/*
 * An entry serves VROCE_MR_CACHE_USES registrations, then goes; with one
 * MPT slot left for it, the keys of 300 registrations stay apart: none
 * equals any of the 200 before it.
 */
static void vroce_mr_cache_key_cycles(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_4K, 8);
	u32 *keys = kunit_kcalloc(test, CACHE_CYCLES, sizeof(*keys),
				  GFP_KERNEL);
	struct vroce_mr_info info;
	struct ib_mr *mr;
	/* No handle (24 bits): 0 is one, when the slot and generation are. */
	u32 handle = U32_MAX;
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, keys);
	/* One slot left (the PD's DMA MR came first): every entry takes it. */
	vroce_test_free_mr(test, 1);
	for (i = 0; i < CACHE_CYCLES; i++) {
		mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		keys[i] = mr->lkey;
		vroce_test_mr_info(mr, &info);
		/* A new entry every VROCE_MR_CACHE_USES registrations. */
		if (i % VROCE_MR_CACHE_USES)
			KUNIT_EXPECT_EQ(test, info.handle, handle);
		else
			KUNIT_EXPECT_NE(test, info.handle, handle);
		handle = info.handle;
		KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr), 0);
		for (j = max(0, i - CACHE_DISTINCT); j < i; j++)
			KUNIT_ASSERT_NE_MSG(test, keys[i], keys[j],
					    "registration %d has the key of %d",
					    i, j);
	}
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.misses,
			DIV_ROUND_UP(CACHE_CYCLES, VROCE_MR_CACHE_USES));
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * 600 pages: a table of two levels; bytes read across its first bottom
 * table's end, and the page list's first page's, are the user's.
 */
static void vroce_mr_cache_large(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	u64 len = 600 * SZ_4K, off = 511 * SZ_4K + 100;
	u8 *want = kunit_kzalloc(test, 2 * SZ_4K, GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, 2 * SZ_4K, GFP_KERNEL);
	struct vroce_mr_info info;
	unsigned long a;
	struct ib_mr *mr;
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	a = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	for (i = 0; i < len; i += SZ_4K) {
		vroce_test_fill(want, SZ_4K, (u8)(i >> 12));
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(a + i), want,
						   SZ_4K), 0);
	}
	mr = ib_reg_user_mr(pd, a, len, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_test_mr_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.max_pages, 1024);
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)(a + off),
					     2 * SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, cache_read(test, mr->rkey, pdn, a + off, got,
					 2 * SZ_4K), 0);
	KUNIT_EXPECT_MEMEQ(test, got, want, 2 * SZ_4K);
	KUNIT_ASSERT_EQ(test, cache_read(test, mr->rkey, pdn, a + len - 64,
					 got, 64), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)(a + len - 64),
					     64), 0);
	KUNIT_EXPECT_MEMEQ(test, got, want, 64);
	KUNIT_EXPECT_EQ(test, cache_read(test, mr->rkey, pdn, a + len - 64,
					 got, 65), -VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A user MR from the cache is no fast-register MR to the consumer: a
 * REG_MR work request naming it is refused when posted, and the QP lives.
 */
static void vroce_mr_cache_no_reg_wr(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_lb lb = { .ibdev = &vdev->ibdev,
			       .dmac = vdev->netdev->dev_addr, .len = SZ_4K };
	unsigned long a = vroce_test_user_mem(test, SZ_4K, 9);
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	struct ib_mr *mr;

	KUNIT_ASSERT_EQ(test, vroce_lb_setup(&lb), 0);
	mr = ib_reg_user_mr(lb.pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_EXPECT_FALSE(test, IS_ERR_OR_NULL(mr));
	if (!IS_ERR_OR_NULL(mr)) {
		KUNIT_EXPECT_EQ(test, vdev->mr_cache.misses, 1);
		wr.mr = mr;
		wr.key = mr->rkey;
		KUNIT_EXPECT_EQ(test, ib_post_send(lb.qp[0], &wr.wr, &bad),
				-EINVAL);
		KUNIT_EXPECT_PTR_EQ(test, bad, &wr.wr);
		KUNIT_EXPECT_EQ(test, ib_query_qp(lb.qp[0], &attr,
						  IB_QP_STATE, &init), 0);
		KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	}
	vroce_lb_teardown(&lb);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* A fast-register limit that is no power of two: the bucket must fit it. */
static void vroce_mr_cache_odd_limit(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, 3 * SZ_4K, 10);
	u32 limit = vdev->attr.max_fast_reg_pages;
	struct vroce_mr_info info;
	struct ib_mr *mr;

	/* Three pages: the four-page bucket is beyond a limit of three. */
	vdev->attr.max_fast_reg_pages = 3;
	mr = ib_reg_user_mr(pd, a, 3 * SZ_4K, a, CACHE_ACC);
	vdev->attr.max_fast_reg_pages = limit;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_test_mr_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_USER);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.misses, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * An HCA whose QUERY_DEVICE does not offer ENABLE_MR (firmware from before
 * it) refuses the command; the driver, bound to it, never sends it:
 * registrations take the cold path and succeed.
 */
static void vroce_mr_cache_no_cap(struct kunit *test)
{
	struct vroce_cmd_enable_desc desc = { .npages = 1 };
	struct platform_device *pdev;
	struct vroce_mr_info info;
	struct vroce_dev *vdev;
	struct vroce_hca *hca;
	struct ib_mr *mr;
	struct ib_pd *pd;
	unsigned long a;
	u32 key;

	cache_dev(test);
	hca = vroce_test_hca(test);
	pdev = vroce_hca_pdev(hca);
	a = vroce_test_user_mem(test, SZ_4K, 11);
	device_release_driver(&pdev->dev);
	vroce_hca_set_caps(hca, 0);
	KUNIT_ASSERT_EQ(test, device_attach(&pdev->dev), 1);
	vdev = platform_get_drvdata(pdev);
	KUNIT_ASSERT_NOT_NULL(test, vdev);
	vroce_test_rebase(test, vdev);
	vdev->mr_cache.enabled = true;
	KUNIT_EXPECT_EQ(test, vdev->attr.caps & VROCE_CAP_MR_ENABLE, 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_enable_mr(vdev, &desc, &key),
			-EOPNOTSUPP);

	pd = vroce_test_pd(test, vdev, 0);
	mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_test_mr_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_USER);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.hits + vdev->mr_cache.misses, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Idle entries of every bucket. */
static u32 cache_idle(struct vroce_mr_cache *c)
{
	u32 r, o, n = 0;

	mutex_lock(&c->lock);
	for (r = 0; r < VROCE_MR_CACHE_RIGHTS; r++)
		for (o = 0; o < VROCE_MR_CACHE_ORDERS; o++)
			n += c->bucket[r][o].count;
	mutex_unlock(&c->lock);
	return n;
}

/*
 * Trimmed when idle: an entry whose bucket a registration used since the
 * last trim stays; one whose bucket nobody used for a whole period goes,
 * and the next registration makes a new one. The trim work does it by
 * itself a period after an entry went idle. An MR held across a trim and
 * then deregistered is used, not old.
 */
static void vroce_mr_cache_trim_idle(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_4K, 12), deadline;
	struct ib_mr *mr;
	int round;

	for (round = 0; round < 2; round++) {
		/* A long period while the entry goes idle: nothing trims yet. */
		cancel_delayed_work_sync(&c->trim_work);
		c->idle_ms = 60000;
		mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		KUNIT_EXPECT_EQ(test, c->misses, round + 1);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
		KUNIT_EXPECT_EQ(test, cache_idle(c), 1);
		if (!round) {
			vroce_mr_cache_trim(vdev);	/* used: kept */
			KUNIT_EXPECT_EQ(test, cache_idle(c), 1);
			vroce_mr_cache_trim(vdev);	/* a period unused */
		} else {
			/* The work, now and every 20 ms: gone at the second. */
			c->idle_ms = 20;
			mod_delayed_work(system_unbound_wq, &c->trim_work, 0);
			deadline = jiffies + msecs_to_jiffies(3000);
			while (cache_idle(c) && time_before(jiffies, deadline))
				msleep(20);
		}
		KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
		KUNIT_EXPECT_EQ(test, c->trimmed, round + 1);
	}
	/* Held across a trim, then returned: that is use, it is kept. */
	cancel_delayed_work_sync(&c->trim_work);
	c->idle_ms = 60000;
	mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_mr_cache_trim(vdev);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_mr_cache_trim(vdev);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 1);
	KUNIT_EXPECT_EQ(test, c->trimmed, 2);
	KUNIT_EXPECT_EQ(test, c->hits, 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Idle entries hold MPT slots no user has: when the MPT is full, a
 * registration gets them back (the idle entries are destroyed) instead of
 * failing with -ENOMEM. A full MPT of MRs in use still fails it.
 */
static void vroce_mr_cache_mpt_full(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 13);
	struct ib_mr *mr[3];
	struct ib_pd *pd;
	int round, i;

	/* Three slots: the PD's DMA MR and two more. */
	vroce_test_free_mr(test, 3);
	pd = vroce_test_pd(test, vdev, 0);
	for (round = 0; round < 2; round++) {
		/* Two idle entries, of 1 and of 2 pages: the MPT is full. */
		for (i = 0; i < 2; i++) {
			mr[i] = ib_reg_user_mr(pd, a, SZ_4K << i, a,
					       CACHE_ACC);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
		}
		for (i = 0; i < 2; i++)
			KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
		KUNIT_ASSERT_EQ(test, cache_idle(&vdev->mr_cache), 2);
		/* A cold MR, then a cache miss of 4 pages. */
		if (!round)
			mr[2] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		else
			mr[2] = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[2]);
		KUNIT_EXPECT_EQ(test, cache_idle(&vdev->mr_cache), 0);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[2]), 0);
		vroce_mr_cache_drain(vdev);
	}
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.reclaimed, 4);
	/* Two MRs in use and no idle entry: the third finds no slot. */
	for (i = 0; i < 2; i++) {
		mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, a, SZ_4K, a,
						     CACHE_ACC)), -ENOMEM);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4)),
			-ENOMEM);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Idle entries of CACHE_ACC and 2^@order pages. */
static u32 cache_bucket(struct kunit *test, struct vroce_mr_cache *c,
			u32 order)
{
	u32 rights, n;

	KUNIT_ASSERT_EQ(test, vroce_mr_rights(CACHE_ACC, &rights), 0);
	mutex_lock(&c->lock);
	n = c->bucket[rights][order].count;
	mutex_unlock(&c->lock);
	return n;
}

#define CACHE_LOW	4

/*
 * Prefill: a registration that leaves its bucket below the low water mark
 * has the refill work make entries up to it, so the next CACHE_LOW
 * registrations, held all at once, find entries, each reading its own
 * pages. Only warm buckets are refilled, and a trimmed bucket is cold.
 */
static void vroce_mr_cache_prefill(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	unsigned long a = vroce_test_user_mem(test, SZ_4K * (CACHE_LOW + 1),
					      14);
	u8 *want = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	struct ib_mr *mr[CACHE_LOW + 1];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	c->low = CACHE_LOW;
	mr[0] = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[0]);
	flush_delayed_work(&c->refill_work);
	KUNIT_EXPECT_EQ(test, cache_bucket(test, c, 0), CACHE_LOW);
	KUNIT_EXPECT_EQ(test, c->refilled, CACHE_LOW);
	KUNIT_EXPECT_EQ(test, cache_bucket(test, c, 1), 0);
	for (i = 1; i <= CACHE_LOW; i++) {
		mr[i] = ib_reg_user_mr(pd, a + SZ_4K * i, SZ_4K, a + SZ_4K * i,
				       CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	KUNIT_EXPECT_EQ(test, c->misses, 1);
	KUNIT_EXPECT_EQ(test, c->hits, CACHE_LOW);
	for (i = 0; i <= CACHE_LOW; i++) {
		void __user *u = (void __user *)(a + SZ_4K * i);

		KUNIT_ASSERT_EQ(test, copy_from_user(want, u, SZ_4K), 0);
		KUNIT_ASSERT_EQ(test, cache_read(test, mr[i]->rkey, pdn,
						 a + SZ_4K * i, got, SZ_4K), 0);
		KUNIT_EXPECT_MEMEQ(test, got, want, SZ_4K);
	}
	/* Refilled again while they are held. */
	flush_delayed_work(&c->refill_work);
	KUNIT_EXPECT_EQ(test, cache_bucket(test, c, 0), CACHE_LOW);
	KUNIT_EXPECT_EQ(test, c->refilled, 2 * CACHE_LOW);
	for (i = 0; i <= CACHE_LOW; i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	KUNIT_EXPECT_EQ(test, cache_bucket(test, c, 0), 2 * CACHE_LOW + 1);

	/* Unused for a period: trimmed, and cold. */
	cancel_delayed_work_sync(&c->trim_work);
	vroce_mr_cache_trim(vdev);
	vroce_mr_cache_trim(vdev);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
	vroce_mr_cache_refill(vdev);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
	/* Two pages warm that bucket alone. */
	mr[0] = ib_reg_user_mr(pd, a, SZ_8K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[0]);
	flush_delayed_work(&c->refill_work);
	KUNIT_EXPECT_EQ(test, cache_bucket(test, c, 1), CACHE_LOW);
	KUNIT_EXPECT_EQ(test, cache_idle(c), CACHE_LOW);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[0]), 0);
	KUNIT_EXPECT_EQ(test, c->refill_failed, 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * The refill's CREATE_MR fails: it stops and counts it, holding nothing.
 * With the MPT full it fails too, and does not destroy idle entries for
 * slots (a registration would: vroce_mr_cache_mpt_full).
 */
static void vroce_mr_cache_refill_fails(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_hca *hca = vroce_test_hca(test);
	unsigned long a = vroce_test_user_mem(test, SZ_4K, 15);
	struct ib_mr *mr;
	struct ib_pd *pd;

	vroce_test_faults_off(test, hca);
	/* The PD's DMA MR, the user's and two more. */
	vroce_test_free_mr(test, 4);
	pd = vroce_test_pd(test, vdev, 0);
	mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);

	c->low = CACHE_LOW;
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_CREATE_MR);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_INTERNAL, 0, 0);
	vroce_mr_cache_refill(vdev);
	KUNIT_EXPECT_EQ(test, c->refill_failed, 1);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
	/* Two slots left: two entries, then NO_RESOURCE. */
	vroce_mr_cache_refill(vdev);
	KUNIT_EXPECT_EQ(test, c->refill_failed, 2);
	KUNIT_EXPECT_EQ(test, c->refilled, 2);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 2);
	KUNIT_EXPECT_EQ(test, c->reclaimed, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 3);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A drain while the refill's CREATE_MR is under way (every command
 * 200 ms) and no entry is idle waits for the refill: the refill destroys
 * what it made, and only then the cache's PD goes (the HCA refuses
 * DESTROY_PD while an MR names the PD: the PD would be parked).
 */
static void vroce_mr_cache_refill_drain(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_4K, 16), deadline;
	struct ib_mr *mr;
	u64 dropped;

	vroce_test_faults_off(test, hca);
	mr = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
	c->low = 1;
	vroce_hca_set_faults(hca, 0, 0, 0, 200);
	dropped = c->dropped;
	mod_delayed_work(system_unbound_wq, &c->refill_work, 0);
	/* Running, it posts its CREATE_MR at once. */
	deadline = jiffies + msecs_to_jiffies(2000);
	while (!(work_busy(&c->refill_work.work) & WORK_BUSY_RUNNING) &&
	       time_before(jiffies, deadline))
		usleep_range(500, 1000);
	usleep_range(10000, 11000);
	vroce_mr_cache_drain(vdev);
	KUNIT_EXPECT_FALSE(test, work_busy(&c->refill_work.work));
	/* The refill made an entry and destroyed it; none was idle. */
	KUNIT_EXPECT_EQ(test, c->refilled, 0);
	KUNIT_EXPECT_EQ(test, c->dropped, dropped + 1);
	KUNIT_EXPECT_EQ(test, cache_idle(c), 0);
	KUNIT_EXPECT_FALSE(test, c->have_pd);
	mutex_lock(&vdev->zombie_lock);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->pd_zombies));
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	mutex_unlock(&vdev->zombie_lock);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	/* With no cache PD, the MR is destroyed, not revoked. */
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Once the cache starts destroying idle entries for their slots, does
 * what another thread's registration of a page would do to the cache:
 * warm its bucket and queue the refill (without the registration's own
 * CREATE_MR, which competes for the slot as any user may).
 */
static int cache_kick_refill(void *data)
{
	struct vroce_mr_cache *c = data;
	bool kicked = false;
	u32 rights;

	if (vroce_mr_rights(CACHE_ACC, &rights))
		return -EINVAL;
	while (!kthread_should_stop()) {
		if (!kicked && READ_ONCE(c->reclaimed)) {
			mutex_lock(&c->lock);
			c->bucket[rights][0].warm = true;
			mutex_unlock(&c->lock);
			mod_delayed_work(system_unbound_wq, &c->refill_work,
					 0);
			kicked = true;
		}
		usleep_range(500, 1000);
	}
	return 0;
}

/*
 * A refill that starts while a registration on a full MPT destroys idle
 * entries for their slots does not take the slot freed for the
 * registration (every command 50 ms, so the refill's CREATE_MR would come
 * between the DESTROY_MR and the registration's second CREATE_MR).
 */
static void vroce_mr_cache_reclaim_refill(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct vroce_hca *hca = vroce_test_hca(test);
	unsigned long a = vroce_test_user_mem(test, SZ_8K, 17);
	struct task_struct *kick;
	struct ib_mr *mr, *user;
	struct ib_pd *pd;

	vroce_test_faults_off(test, hca);
	/* The PD's DMA MR, the user's MR and an idle entry of 2 pages. */
	vroce_test_free_mr(test, 3);
	pd = vroce_test_pd(test, vdev, 0);
	user = ib_reg_user_mr(pd, a, SZ_4K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, user);
	mr = ib_reg_user_mr(pd, a, SZ_8K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_ASSERT_EQ(test, cache_idle(c), 1);

	c->low = 1;
	vroce_hca_set_faults(hca, 0, 0, 0, 50);
	kick = kthread_run(cache_kick_refill, c, "vroce-kick");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kick));
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	kthread_stop(kick);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	flush_delayed_work(&c->refill_work);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, c->reclaimed, 1);
	if (!IS_ERR(mr))
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(user), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

struct cache_alloc {
	struct ib_pd *pd;
	struct ib_mr *mr;
	struct completion done;
};

static int cache_alloc_fn(void *data)
{
	struct cache_alloc *x = data;

	x->mr = ib_alloc_mr(x->pd, IB_MR_TYPE_MEM_REG, 4);
	complete(&x->done);
	return 0;
}

/*
 * Two registrations find the MPT full at once (every command 50 ms): the
 * first destroys both idle entries, the second finds none left to destroy
 * but tries again all the same, and both get a slot.
 */
static void vroce_mr_cache_reclaim_twice(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	unsigned long a = vroce_test_user_mem(test, SZ_8K, 18);
	struct cache_alloc *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct ib_mr *mr[2], *y;
	struct ib_pd *pd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, x);
	vroce_test_faults_off(test, hca);
	/* The PD's DMA MR and two idle entries, of 1 and of 2 pages. */
	vroce_test_free_mr(test, 3);
	pd = vroce_test_pd(test, vdev, 0);
	for (i = 0; i < 2; i++) {
		mr[i] = ib_reg_user_mr(pd, a, SZ_4K << i, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	KUNIT_ASSERT_EQ(test, cache_idle(&vdev->mr_cache), 2);

	vroce_hca_set_faults(hca, 0, 0, 0, 50);
	x->pd = pd;
	init_completion(&x->done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(cache_alloc_fn, x,
						    "vroce-alloc")));
	/* Its CREATE_MR first: posted, and 50 ms to run. */
	usleep_range(10000, 11000);
	y = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	wait_for_completion(&x->done);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, x->mr);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, y);
	KUNIT_EXPECT_EQ(test, vdev->mr_cache.reclaimed, 2);
	if (!IS_ERR(x->mr))
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(x->mr), 0);
	if (!IS_ERR(y))
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(y), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A cached MR whose REVOKE_MR and DESTROY_MR both fail is parked with its
 * pages. Later cached registrations and deregistrations, the HCA
 * answering again, reap it: under a workload that never takes the cold
 * path no zombie keeps the user's pages pinned.
 */
static void vroce_mr_cache_zombie_reaped(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 9);
	struct ib_mr *mr;
	int i;

	vroce_test_faults_off(test, hca);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_TRUE(test, to_vroce_mr(mr)->cached);
	vroce_hca_set_faults(hca, 2, VROCE_CMD_BUSY, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_ASSERT_FALSE(test, list_empty(&vdev->zombies));

	for (i = 0; i < 4; i++) {
		mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		KUNIT_EXPECT_TRUE(test, to_vroce_mr(mr)->cached);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	}
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_GE(test, vdev->mr_cache.hits, 3);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * The cache's own failures are not the user's: when the CREATE_PD of the
 * cache's PD fails (no PD left), reg_user_mr takes the cold path and the
 * MR works. A lost one (the HCA may hold a PD whose number was never
 * learnt) fails that registration; later misses take the cold path and
 * the cache makes no PD again, so at most one number is lost.
 */
static void vroce_mr_cache_pd_fails(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 10);
	struct ib_pd *other;
	struct ib_mr *mr;
	u8 got[8];

	vroce_test_faults_off(test, hca);
	KUNIT_ASSERT_FALSE(test, vdev->mr_cache.have_pd);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_CREATE_PD);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_FALSE(test, vdev->mr_cache.have_pd);
	KUNIT_EXPECT_EQ(test, cache_read(test, mr->lkey, pdn, a, got, 8), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	/* Lost. */
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, a, SZ_16K, a,
						     CACHE_ACC)),
			-ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, vdev->mr_cache.pd_lost);
	/*
	 * A CREATE_PD would now fail: the next miss does not issue one (it
	 * takes the cold path), so the user's alloc_pd meets the failure.
	 */
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	other = ib_alloc_pd(&vdev->ibdev, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(other), -ENOMEM);
	if (!IS_ERR(other))
		ib_dealloc_pd(other);
}

/*
 * A DESTROY_PD that timed out may have been carried out: the HCA gives
 * the number to the next PD, here the cache's, and a retry of the lost
 * destroy would destroy that one. Reaped after the cache's trim (its PD
 * then holds no MR, so the HCA would not refuse), the zombies leave the
 * cache's PD working.
 */
static void vroce_mr_cache_lost_pd_number(struct kunit *test)
{
	struct vroce_dev *vdev = cache_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, SZ_16K, 11);
	struct ib_pd *gone;
	struct ib_mr *mr;
	u32 lost;

	vroce_test_faults_off(test, hca);
	gone = ib_alloc_pd(&vdev->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gone);
	lost = to_vroce_pd(gone)->pdn;
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_DESTROY_PD);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	ib_dealloc_pd(gone);
	vroce_hca_faults_clear(hca);
	KUNIT_ASSERT_FALSE(test, list_empty(&vdev->pd_zombies));

	/* The cache's PD, made by its first miss, gets the number. */
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_TRUE(test, to_vroce_mr(mr)->cached);
	KUNIT_ASSERT_EQ(test, vdev->mr_cache.pdn, lost);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_mr_cache_trim(vdev);
	vroce_mr_cache_trim(vdev);
	vroce_mr_reap(vdev, false);

	/* Its PD is still there: a miss makes an entry under it. */
	mr = ib_reg_user_mr(pd, a, SZ_16K, a, CACHE_ACC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_TRUE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

static struct kunit_case vroce_mr_cache_cases[] = {
	KUNIT_CASE(vroce_mr_cache_reuse),
	KUNIT_CASE(vroce_mr_cache_revoke_fails),
	KUNIT_CASE(vroce_mr_cache_zombie_reaped),
	KUNIT_CASE(vroce_mr_cache_pd_fails),
	KUNIT_CASE(vroce_mr_cache_lost_pd_number),
	KUNIT_CASE(vroce_mr_cache_buckets),
	KUNIT_CASE(vroce_mr_cache_cold),
	KUNIT_CASE(vroce_mr_cache_enable_fails),
	KUNIT_CASE(vroce_mr_cache_hca_checks),
	KUNIT_CASE(vroce_mr_cache_key_cycles),
	KUNIT_CASE(vroce_mr_cache_large),
	KUNIT_CASE(vroce_mr_cache_no_reg_wr),
	KUNIT_CASE(vroce_mr_cache_odd_limit),
	KUNIT_CASE(vroce_mr_cache_no_cap),
	KUNIT_CASE(vroce_mr_cache_trim_idle),
	KUNIT_CASE(vroce_mr_cache_mpt_full),
	KUNIT_CASE(vroce_mr_cache_prefill),
	KUNIT_CASE(vroce_mr_cache_refill_fails),
	KUNIT_CASE(vroce_mr_cache_refill_drain),
	KUNIT_CASE(vroce_mr_cache_reclaim_refill),
	KUNIT_CASE(vroce_mr_cache_reclaim_twice),
	{}
};

static struct kunit_suite vroce_mr_cache_suite = {
	.name = "vroce_mr_cache",
	.test_cases = vroce_mr_cache_cases,
};

kunit_test_suite(vroce_mr_cache_suite);
