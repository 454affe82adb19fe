// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_rereg: rereg_mr of user MRs (IB_MR_REREG_PD, _ACCESS,
 * _TRANS), called through the device op as uverbs calls it (ib_core has
 * no in-kernel caller), checked by moving bytes through the MR with the
 * emulated HCA's translation engine after each change; bad input, the
 * REREG_MR command's fault knobs and allocation failures, each leaving
 * the MR as it was.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "vroce_test.h"

#define RR_LEN		(2 * SZ_4K + 100)

static u32 rr_pdn(struct ib_pd *pd)
{
	return to_vroce_pd(pd)->pdn;
}

/* Accounted allocations not freed (vroce_test_allocs() counts them all). */
static s64 rr_held(struct vroce_dev *vdev)
{
	return atomic64_read(&vdev->mem.allocs) -
	       atomic64_read(&vdev->mem.frees);
}

/* A user MR off the MR cache, so that rereg changes it in place. */
static struct ib_mr *rr_user_mr(struct kunit *test, struct vroce_dev *vdev,
				struct ib_pd *pd, unsigned long uaddr,
				size_t len, int access)
{
	bool cache = vdev->mr_cache.enabled;
	struct ib_mr *mr;

	vdev->mr_cache.enabled = false;
	mr = ib_reg_user_mr(pd, uaddr, len, uaddr, access);
	vdev->mr_cache.enabled = cache;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_FALSE(test, to_vroce_mr(mr)->cached);
	return mr;
}

/* What uverbs does around the op (ib_uverbs_rereg_mr()), for in place. */
static struct ib_mr *rr_rereg(struct ib_mr *mr, int flags, u64 start,
			      u64 len, u64 iova, int access, struct ib_pd *pd)
{
	struct ib_mr *new_mr;

	new_mr = mr->device->ops.rereg_user_mr(mr, flags, start, len, iova,
					       access, pd, NULL);
	if (IS_ERR_OR_NULL(new_mr) && !IS_ERR(new_mr)) {
		if (flags & IB_MR_REREG_PD) {
			atomic_dec(&mr->pd->usecnt);
			mr->pd = pd;
			atomic_inc(&pd->usecnt);
		}
		if (flags & IB_MR_REREG_TRANS) {
			mr->iova = iova;
			mr->length = len;
		}
	}
	return new_mr;
}

/* Read @len bytes at @iova through @key as PD @pd with @right. */
static int rr_read(struct vroce_hca *hca, u32 key, struct ib_pd *pd, u64 iova,
		   void *buf, u64 len, u32 right)
{
	return vroce_hca_mr_access(hca, key, rr_pdn(pd), iova, buf, len, right,
				   false);
}

static int rr_write(struct vroce_hca *hca, u32 key, struct ib_pd *pd, u64 iova,
		    void *buf, u64 len, u32 right)
{
	return vroce_hca_mr_access(hca, key, rr_pdn(pd), iova, buf, len, right,
				   true);
}

/* The MR still reads @seed's pattern at @iova, local rights only. */
static void rr_expect_pattern(struct kunit *test, struct vroce_hca *hca,
			      struct ib_mr *mr, struct ib_pd *pd, u64 iova,
			      u8 seed)
{
	u8 *out = kunit_kzalloc(test, RR_LEN, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, RR_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, want);
	vroce_test_fill(want, RR_LEN, seed);
	KUNIT_ASSERT_EQ(test, rr_read(hca, mr->lkey, pd, iova, out, RR_LEN, 0),
			0);
	KUNIT_EXPECT_MEMEQ(test, out, want, RR_LEN);
}

/* ACCESS: remote rights come and go under the same key. */
static void vroce_rereg_access(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, RR_LEN, 3);
	u8 *in = kunit_kzalloc(test, RR_LEN, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, RR_LEN, GFP_KERNEL);
	struct ib_mr *mr;
	u32 key;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	mr = rr_user_mr(test, vdev, pd, uaddr, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	key = mr->rkey;
	KUNIT_EXPECT_EQ(test, rr_write(hca, key, pd, uaddr, in, 8,
				       VROCE_ACC_REMOTE_WRITE),
			-VROCE_HCA_EACCESS);

	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					 IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_WRITE |
					 IB_ACCESS_REMOTE_READ, pd));
	KUNIT_EXPECT_EQ(test, mr->rkey, key);
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	vroce_test_fill(in, RR_LEN, 7);
	KUNIT_ASSERT_EQ(test, rr_write(hca, key, pd, uaddr, in, RR_LEN,
				       VROCE_ACC_REMOTE_WRITE), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(out, (void __user *)uaddr,
					     RR_LEN), 0);
	KUNIT_EXPECT_MEMEQ(test, out, in, RR_LEN);
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, uaddr, out, RR_LEN,
				      VROCE_ACC_REMOTE_READ), 0);

	/* Read-only now: the pages are pinned again; writes are refused. */
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					 IB_ACCESS_REMOTE_READ, pd));
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	KUNIT_EXPECT_EQ(test, rr_write(hca, key, pd, uaddr, in, 8,
				       VROCE_ACC_LOCAL_WRITE),
			-VROCE_HCA_EACCESS);
	rr_expect_pattern(test, hca, mr, pd, uaddr, 7);

	/* Memory windows may be bound (issue 30): the right comes and goes. */
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, uaddr, out, 8,
				      VROCE_ACC_MW_BIND), -VROCE_HCA_EACCESS);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					 IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_MW_BIND, pd));
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, uaddr, out, 8,
				      VROCE_ACC_MW_BIND), 0);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					 IB_ACCESS_REMOTE_READ, pd));
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, uaddr, out, 8,
				      VROCE_ACC_MW_BIND), -VROCE_HCA_EACCESS);
	rr_expect_pattern(test, hca, mr, pd, uaddr, 7);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* PD: the old PD's QPs lose the MR, the new PD's gain it. */
static void vroce_rereg_pd(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_pd *pd2 = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, RR_LEN, 4);
	struct ib_mr *mr;
	u64 v;

	mr = rr_user_mr(test, vdev, pd, uaddr, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_PD, 0, 0, 0, 0, pd2));
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, pd2);
	KUNIT_EXPECT_EQ(test, rr_read(hca, mr->lkey, pd, uaddr, &v, 8, 0),
			-VROCE_HCA_EPD);
	rr_expect_pattern(test, hca, mr, pd2, uaddr, 4);

	/* PD and ACCESS at once. */
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_PD |
					 IB_MR_REREG_ACCESS, 0, 0, 0,
					 IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ, pd));
	KUNIT_EXPECT_EQ(test, rr_read(hca, mr->lkey, pd2, uaddr, &v, 8, 0),
			-VROCE_HCA_EPD);
	KUNIT_EXPECT_EQ(test, rr_read(hca, mr->rkey, pd, uaddr, &v, 8,
				      VROCE_ACC_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* TRANS: other memory at another iova, the old range out of the MR. */
static void vroce_rereg_trans(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_pd *pd2 = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, RR_LEN, 5);
	unsigned long b = vroce_test_user_mem(test, RR_LEN + SZ_4K, 6);
	u64 iova = 0x7000000000ULL + offset_in_page(b + 16);
	struct ib_mr *mr;
	u8 want[8];
	u32 key, i;
	u64 v;

	mr = rr_user_mr(test, vdev, pd, a, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	key = mr->lkey;
	rr_expect_pattern(test, hca, mr, pd, a, 5);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, b, RR_LEN,
					 b, 0, pd));
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	KUNIT_EXPECT_EQ(test, mr->length, RR_LEN);
	rr_expect_pattern(test, hca, mr, pd, b, 6);
	/* The old range is no longer in the MR (the two maps are apart). */
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, a, &v, 8, 0),
			-VROCE_HCA_EBOUNDS);

	/* All three at once, the iova unlike the address. */
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS |
					 IB_MR_REREG_PD | IB_MR_REREG_ACCESS,
					 b + 16, RR_LEN, iova,
					 IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_WRITE, pd2));
	KUNIT_EXPECT_EQ(test, mr->iova, iova);
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, iova, &v, 8, 0),
			-VROCE_HCA_EPD);
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd2, iova, &v, 8, 0), 0);
	for (i = 0; i < 8; i++)
		want[i] = vroce_test_pattern(16 + i, 6);
	KUNIT_EXPECT_MEMEQ(test, &v, want, 8);
	v = 0x0123456789abcdefULL;
	KUNIT_ASSERT_EQ(test, rr_write(hca, key, pd2, iova + 8, &v, 8,
				       VROCE_ACC_REMOTE_WRITE), 0);
	v = 0;
	KUNIT_ASSERT_EQ(test, copy_from_user(&v, (void __user *)(b + 24), 8),
			0);
	KUNIT_EXPECT_EQ(test, v, 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Bad input: the errno, and the MR as it was. */
static void vroce_rereg_bad_input(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, RR_LEN, 8);
	struct ib_mr *mr, *fr;
	s64 base;
	u32 key;

	mr = rr_user_mr(test, vdev, pd, uaddr, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	key = mr->lkey;
	base = rr_held(vdev);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, 0, 0, 0, 0, 0, pd)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_SUPPORTED + 1,
					       0, 0, 0, 0, pd)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					       IB_ACCESS_REMOTE_WRITE, pd)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					       IB_ACCESS_LOCAL_WRITE |
					       IB_ZERO_BASED, pd)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_TRANS, uaddr,
					       0, uaddr, 0, pd)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_TRANS, uaddr,
					       RR_LEN, U64_MAX - 8, 0, pd)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_PD, 0, 0, 0, 0,
					       NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, rr_held(vdev), base);
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	rr_expect_pattern(test, hca, mr, pd, uaddr, 8);

	/* Only user MRs. */
	fr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fr);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(fr, IB_MR_REREG_ACCESS, 0, 0, 0,
					       IB_ACCESS_LOCAL_WRITE, pd)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(fr), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * REREG_MR failed by the HCA's knob: the errno, nothing held beyond the
 * MR, and the MR as it was (key, PD, rights, pages).
 */
static void vroce_rereg_cmd_fails(struct kunit *test)
{
	static const u16 status[] = { VROCE_CMD_BAD_PARAM, VROCE_CMD_INTERNAL,
				      VROCE_CMD_BAD_HANDLE };
	static const int flags[] = { IB_MR_REREG_PD, IB_MR_REREG_ACCESS,
				     IB_MR_REREG_TRANS };
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_pd *pd2 = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, RR_LEN, 9);
	unsigned long b = vroce_test_user_mem(test, RR_LEN, 10);
	struct ib_mr *mr, *ret;
	u32 i, j, key;
	s64 base;
	u64 v;

	vroce_test_faults_off(test, hca);
	mr = rr_user_mr(test, vdev, pd, a, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	key = mr->lkey;
	base = rr_held(vdev);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_REREG_MR);
	for (i = 0; i < ARRAY_SIZE(status); i++) {
		for (j = 0; j < ARRAY_SIZE(flags); j++) {
			vroce_hca_set_faults(hca, 1, status[i], 0, 0);
			ret = rr_rereg(mr, flags[j], b, RR_LEN, b,
				       IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_READ, pd2);
			KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(ret),
					      "status %u flags %d", status[i],
					      flags[j]);
			KUNIT_EXPECT_EQ(test, rr_held(vdev),
					base);
			KUNIT_EXPECT_EQ(test, mr->lkey, key);
			KUNIT_EXPECT_PTR_EQ(test, mr->pd, pd);
			KUNIT_EXPECT_EQ(test, mr->iova, (u64)a);
			rr_expect_pattern(test, hca, mr, pd, a, 9);
			KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, a, &v, 8,
						      VROCE_ACC_REMOTE_READ),
					-VROCE_HCA_EACCESS);
		}
	}
	vroce_hca_set_faults(hca, 1, VROCE_CMD_BAD_PARAM, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_PD, 0, 0, 0, 0,
					       pd2)), -EINVAL);

	/* After the faults the same calls work. */
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, b, RR_LEN, b,
					 0, pd));
	rr_expect_pattern(test, hca, mr, pd, b, 10);

	/* A lost response: -ETIMEDOUT, the MR to be deregistered. */
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rr_rereg(mr, IB_MR_REREG_TRANS, a,
					       RR_LEN, a, 0, pd)),
			-ETIMEDOUT);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_cmd_timeout(test, vdev, 2000);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* Each allocation of a rereg that pins new memory fails in turn. */
static void vroce_rereg_alloc_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long a = vroce_test_user_mem(test, RR_LEN, 11);
	unsigned long b = vroce_test_user_mem(test, RR_LEN, 12);
	struct ib_mr *mr, *ret;
	s64 base, allocs;
	int n;

	mr = rr_user_mr(test, vdev, pd, a, RR_LEN, IB_ACCESS_LOCAL_WRITE);
	base = rr_held(vdev);
	/*
	 * The allocations of the very move the loop fails, a to b, after a
	 * first round trip: a and b align differently, and the MTR of each
	 * (its page size, its tables) may take a different number.
	 */
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, b, RR_LEN, b,
					 0, pd));
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, a, RR_LEN, a,
					 0, pd));
	allocs = atomic64_read(&vdev->mem.allocs);
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, b, RR_LEN, b,
					 0, pd));
	allocs = atomic64_read(&vdev->mem.allocs) - allocs;
	KUNIT_ASSERT_NULL(test, rr_rereg(mr, IB_MR_REREG_TRANS, a, RR_LEN, a,
					 0, pd));
	KUNIT_ASSERT_GT(test, allocs, 0);
	KUNIT_EXPECT_EQ(test, rr_held(vdev), base);

	for (n = 1; n <= allocs; n++) {
		atomic_set(&vdev->mem.fail_nth, n);
		ret = rr_rereg(mr, IB_MR_REREG_TRANS, b, RR_LEN, b, 0, pd);
		atomic_set(&vdev->mem.fail_nth, 0);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(ret), -ENOMEM,
				    "allocation %d", n);
		KUNIT_EXPECT_EQ(test, rr_held(vdev), base);
		KUNIT_EXPECT_EQ(test, mr->iova, (u64)a);
		rr_expect_pattern(test, hca, mr, pd, a, 11);
	}
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * An MR of the MR cache changes its PD and rights in place, keys kept;
 * a translation change gets a new MR, new keys: once the caller swapped
 * it in and deregistered the old one (as uverbs does), the old key is
 * refused.
 */
static void vroce_rereg_cached(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_pd *pd2 = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 13);
	struct ib_mr *mr, *nmr;
	u8 want[8];
	u32 i, key;
	u64 v;

	if (!vdev->mr_cache.enabled)
		kunit_skip(test, "the MR cache is off");
	mr = ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	if (!to_vroce_mr(mr)->cached) {
		ib_dereg_mr(mr);
		kunit_skip(test, "the MR cache did not take a 16 KiB MR");
	}
	key = mr->rkey;
	KUNIT_EXPECT_NULL(test, rr_rereg(mr, IB_MR_REREG_ACCESS |
					 IB_MR_REREG_PD, 0, 0, 0,
					 IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ, pd2));
	KUNIT_EXPECT_EQ(test, mr->rkey, key);
	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd, uaddr, &v, 8,
				      VROCE_ACC_REMOTE_READ), -VROCE_HCA_EPD);
	KUNIT_ASSERT_EQ(test, rr_read(hca, key, pd2, uaddr, &v, 8,
				      VROCE_ACC_REMOTE_READ), 0);

	nmr = rr_rereg(mr, IB_MR_REREG_TRANS, uaddr + SZ_4K, SZ_8K,
		       uaddr + SZ_4K, 0, pd2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nmr);
	KUNIT_EXPECT_PTR_NE(test, nmr, mr);
	KUNIT_EXPECT_NE(test, nmr->rkey, key);
	/* ib_uverbs_rereg_mr()'s part. */
	nmr->device = pd2->device;
	nmr->pd = pd2;
	nmr->type = IB_MR_TYPE_USER;
	nmr->iova = uaddr + SZ_4K;
	atomic_inc(&pd2->usecnt);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	KUNIT_EXPECT_EQ(test, rr_read(hca, key, pd2, uaddr + SZ_4K, &v, 8,
				      VROCE_ACC_REMOTE_READ),
			-VROCE_HCA_EKEY);
	KUNIT_ASSERT_EQ(test, rr_read(hca, nmr->rkey, pd2, uaddr + SZ_4K + 8,
				      &v, 8, VROCE_ACC_REMOTE_READ), 0);
	for (i = 0; i < 8; i++)
		want[i] = vroce_test_pattern(SZ_4K + 8 + i, 13);
	KUNIT_EXPECT_MEMEQ(test, &v, want, 8);
	KUNIT_EXPECT_EQ(test, rr_read(hca, nmr->rkey, pd2, uaddr, &v, 8,
				      VROCE_ACC_REMOTE_READ),
			-VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(nmr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

static struct kunit_case vroce_rereg_cases[] = {
	KUNIT_CASE(vroce_rereg_access),
	KUNIT_CASE(vroce_rereg_pd),
	KUNIT_CASE(vroce_rereg_trans),
	KUNIT_CASE(vroce_rereg_bad_input),
	KUNIT_CASE(vroce_rereg_cmd_fails),
	KUNIT_CASE(vroce_rereg_alloc_faults),
	KUNIT_CASE(vroce_rereg_cached),
	{}
};

static struct kunit_suite vroce_rereg_suite = {
	.name = "vroce_rereg",
	.test_cases = vroce_rereg_cases,
};

kunit_test_suite(vroce_rereg_suite);
