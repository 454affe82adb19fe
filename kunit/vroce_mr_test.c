// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mr: the MR verbs through the RDMA core's own API
 * (ib_alloc_pd, ib_reg_user_mr, ib_alloc_mr, ib_map_mr_sg, ib_dereg_mr),
 * checked by moving bytes through each MR with the emulated HCA's
 * translation engine, and the HCA's fault knobs.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define MR_LEN		(3 * SZ_4K + 123)

static u32 vroce_test_pdn(struct ib_pd *pd)
{
	return to_vroce_pd(pd)->pdn;
}

/* The DMA address of a fast-register MR's page list, for REG_MR. */
static u64 mr_pbl(struct ib_mr *mr)
{
	struct vroce_mr_info info;

	vroce_test_mr_info(mr, &info);
	return info.pbl_dma;
}

/* The PD's DMA MR (its local_dma_lkey) reads and writes kernel memory. */
static void vroce_mr_dma_mr_moves_bytes(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, MR_LEN);
	u8 *in = kunit_kzalloc(test, MR_LEN, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, MR_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_NE(test, pd->local_dma_lkey, 0);
	KUNIT_EXPECT_EQ(test, pd->unsafe_global_rkey, 0);

	vroce_test_fill(in, MR_LEN, 1);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, pd->local_dma_lkey,
						  vroce_test_pdn(pd), b->dma,
						  in, MR_LEN,
						  VROCE_ACC_LOCAL_WRITE, true),
			0);
	dma_sync_single_for_cpu(b->dev, b->dma, MR_LEN, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, b->va, in, MR_LEN);

	vroce_test_fill(b->va, MR_LEN, 99);
	dma_sync_single_for_device(b->dev, b->dma, MR_LEN, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, pd->local_dma_lkey,
						  vroce_test_pdn(pd), b->dma,
						  out, MR_LEN, 0, false), 0);
	KUNIT_EXPECT_MEMEQ(test, out, b->va, MR_LEN);

	/* It grants no remote access, and belongs to its PD only. */
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, pd->local_dma_lkey,
						  vroce_test_pdn(pd), b->dma,
						  out, 8, VROCE_ACC_REMOTE_READ,
						  false), -VROCE_HCA_EACCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, pd->local_dma_lkey,
						  vroce_test_pdn(pd) + 1,
						  b->dma, out, 8, 0, false),
			-VROCE_HCA_EPD);
}

static void vroce_test_forbid_remote_dma_mr(void *data)
{
	vroce_allow_remote_dma_mr = false;
}

/* IB_PD_UNSAFE_GLOBAL_RKEY only when the administrator allows it. */
static void vroce_mr_unsafe_global_rkey(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, SZ_4K);
	struct ib_pd *pd;
	u64 v = 0;

	pd = ib_alloc_pd(&vdev->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pd), -EOPNOTSUPP);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_forbid_remote_dma_mr,
							NULL), 0);
	vroce_allow_remote_dma_mr = true;
	pd = vroce_test_pd(test, vdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_NE(test, pd->unsafe_global_rkey, 0);
	*(u64 *)b->va = 0x1122334455667788ULL;
	dma_sync_single_for_device(b->dev, b->dma, SZ_4K, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, pd->unsafe_global_rkey,
						  vroce_test_pdn(pd), b->dma,
						  &v, sizeof(v),
						  VROCE_ACC_REMOTE_READ, false),
			0);
	KUNIT_EXPECT_EQ(test, v, 0x1122334455667788ULL);
}

static void vroce_mr_dma_mr_bad_access(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	const struct ib_device_ops *ops = &vdev->ibdev.ops;

	/* The HCA binds no window to a DMA MR (a user MR takes MW_BIND). */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ops->get_dma_mr(pd, IB_ACCESS_MW_BIND)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ops->get_dma_mr(pd, IB_ACCESS_ON_DEMAND)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ops->get_dma_mr(pd, IB_ACCESS_REMOTE_READ)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ops->get_dma_mr(pd, IB_ACCESS_REMOTE_WRITE)),
			-EINVAL);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* A user MR: the HCA reads what the user wrote and writes what it reads. */
static void vroce_mr_user_mr_moves_bytes(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, 4 * SZ_4K, 5);
	u64 start = uaddr + 100, iova = 0x7700000000ULL + 100;
	u8 *want = kunit_kzalloc(test, MR_LEN, GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, MR_LEN, GFP_KERNEL);
	u32 pdn = vroce_test_pdn(pd), key;
	struct ib_mr *mr;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	mr = ib_reg_user_mr(pd, start, MR_LEN, iova,
			    IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, mr->lkey, mr->rkey);
	KUNIT_EXPECT_EQ(test, mr->iova, iova);
	KUNIT_EXPECT_EQ(test, mr->length, MR_LEN);

	/* Read through the MR, across page boundaries. */
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)start, MR_LEN),
			0);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn, iova, got,
						  MR_LEN, 0, false), 0);
	KUNIT_EXPECT_MEMEQ(test, got, want, MR_LEN);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->rkey, pdn,
						  iova + 4000, got, 300,
						  VROCE_ACC_REMOTE_READ, false),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, want + 4000, 300);

	/* Write through it; the user sees the bytes. */
	vroce_test_fill(want, MR_LEN, 200);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn, iova, want,
						  MR_LEN, VROCE_ACC_LOCAL_WRITE,
						  true), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)start, MR_LEN),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, want, MR_LEN);

	/* What the MR does not allow. */
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn, iova - 1,
						  got, 1, 0, false),
			-VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn, iova,
						  got, MR_LEN + 1, 0, false),
			-VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn, U64_MAX,
						  got, 2, 0, false),
			-VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->rkey, pdn, iova, got,
						  8, VROCE_ACC_REMOTE_WRITE, true),
			-VROCE_HCA_EACCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey, pdn + 1, iova,
						  got, 8, 0, false),
			-VROCE_HCA_EPD);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey ^ 0x80, pdn,
						  iova, got, 8, 0, false),
			-VROCE_HCA_EKEY);

	/* After dereg the key is dead and the memory is back. */
	key = mr->lkey;
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, key, pdn, iova, got, 8, 0,
						  false), -VROCE_HCA_EKEY);
	vroce_test_expect_no_memory_held(test, vdev);
}

static void vroce_mr_user_mr_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 0);
	int acc = IB_ACCESS_LOCAL_WRITE;
	struct ib_mr *mr;
	u64 v;

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, uaddr, 0, uaddr, acc)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr,
					       vdev->attr.max_mr_size + 1,
					       uaddr, acc)), -EINVAL);
	/* Zero-based MRs are not supported. */
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr,
					       acc | IB_ZERO_BASED)),
			-EOPNOTSUPP);
	/*
	 * Memory windows may be bound to a user MR (issue 30): the HCA's
	 * entry carries the right, one without IB_ACCESS_MW_BIND does not.
	 * Not from the MR cache, whose buckets have no MW_BIND.
	 */
	mr = ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr, IB_ACCESS_MW_BIND);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey,
						  vroce_test_pdn(pd), uaddr, &v,
						  8, VROCE_ACC_MW_BIND, false),
			0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	mr = ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr, acc);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey,
						  vroce_test_pdn(pd), uaddr, &v,
						  8, VROCE_ACC_MW_BIND, false),
			-VROCE_HCA_EACCESS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr,
					       IB_ACCESS_REMOTE_WRITE)), -EINVAL);
	/* ib_umem_get()'s errno comes back as it is, not as -ENOMEM. */
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, SZ_4K, SZ_4K, SZ_4K, acc)),
			-EFAULT);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, U64_MAX - SZ_4K, SZ_16K,
					       0, acc)), -EINVAL);
	/* An iova range that wraps, although the buffer does not. */
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_16K,
					       U64_MAX - SZ_4K + 1, acc)),
			-EINVAL);
	/*
	 * Issue 33: on-demand paging is offered (IBK_ON_DEMAND_PAGING) and
	 * pins nothing; with the odp parameter off it is refused
	 * (-EOPNOTSUPP, as ib_core does for a device without it). Atomic
	 * needs local write.
	 */
	mr = ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr, acc | IB_ACCESS_ON_DEMAND);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_TRUE(test, vdev->ibdev.attrs.kernel_cap_flags &
			  IBK_ON_DEMAND_PAGING);
	vroce_odp = false;
	mr = ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr, acc | IB_ACCESS_ON_DEMAND);
	vroce_odp = true;
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr,
					       IB_ACCESS_REMOTE_ATOMIC)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr,
					       IB_ACCESS_REMOTE_ATOMIC |
					       IB_ACCESS_REMOTE_READ)), -EINVAL);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Keys: unique while live, a new tag when a slot is reused, no stride. */
static void vroce_mr_keys(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mr *mr[8], *again;
	bool same_stride = true;
	u32 old;
	u64 v;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, mr[i]->lkey, mr[j]->lkey);
		if (i >= 2 && mr[i]->lkey - mr[i - 1]->lkey !=
			      mr[1]->lkey - mr[0]->lkey)
			same_stride = false;
	}
	KUNIT_EXPECT_FALSE_MSG(test, same_stride, "keys are sequential");

	old = mr[3]->lkey;
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[3]), 0);
	again = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, again);
	/* The stale key stays dead. */
	KUNIT_EXPECT_NE(test, again->lkey, old);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, old, VROCE_HCA_ANY_PD,
						  0, &v, 8, 0, false),
			-VROCE_HCA_EKEY);
	mr[3] = again;

	for (i = 0; i < ARRAY_SIZE(mr); i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Fast-register MRs: sizes, types, what map_mr_sg puts in the tables, and
 * bytes through the MR once the HCA registers it.
 */
static void vroce_mr_fast_reg(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, 5 * SZ_4K);
	u8 *in = kunit_kzalloc(test, 3 * SZ_4K, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	struct vroce_mr_info info;
	struct scatterlist sg[2];
	unsigned int off = 0;
	u64 addr[4], v, page;
	struct ib_mr *mr;
	u32 old_key;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 4)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
					    vdev->attr.max_fast_reg_pages + 1)),
			-EINVAL);
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 512);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(b->dma, SZ_4K));
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 3);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	/* Not registered yet: the HCA does not translate it. */
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->lkey,
						  vroce_test_pdn(pd), 0, &v, 8,
						  0, false), -VROCE_HCA_EKEY);

	/* Two DMA-mapped pieces: pages 0..1 and 3 of the buffer. */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = b->dma;
	sg_dma_len(&sg[0]) = 2 * SZ_4K;
	sg_dma_address(&sg[1]) = b->dma + 3 * SZ_4K;
	sg_dma_len(&sg[1]) = SZ_4K;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, &off, SZ_4K), 2);
	KUNIT_EXPECT_EQ(test, mr->iova, b->dma);
	KUNIT_EXPECT_EQ(test, mr->length, 3 * SZ_4K);
	/* The pages wait in the page list; the HCA's table is untouched. */
	vroce_mr_obj_info(to_vroce_mr(mr)->obj, &info);
	KUNIT_ASSERT_EQ(test, info.npages, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, vroce_mr_obj_page(to_vroce_mr(mr)->obj, i,
							&page), 0);
		KUNIT_EXPECT_EQ(test, page, b->dma + (i + i / 2) * SZ_4K);
	}
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page(to_vroce_mr(mr)->obj, 3, &page),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mtr_find(vdev, info.mtr, 0, addr, 4, NULL),
			-ENOENT);

	/*
	 * What a REG_MR work request does on the HCA (the data path will post
	 * it): register under a new consumer key byte, then move bytes.
	 */
	old_key = mr->rkey;
	ib_update_fast_reg_key(mr, (mr->rkey + 1) & 0xff);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd) + 1,
						      mr->iova, mr->length,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr), 3),
			-VROCE_HCA_EPD);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, 3 * SZ_4K + 1,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr), 3),
			-VROCE_HCA_EBOUNDS);
	/* The HCA itself refuses remote write or atomic without local write. */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, mr->length,
						      VROCE_ACC_REMOTE_WRITE,
						      mr_pbl(mr), 3),
			-VROCE_HCA_EACCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, mr->length,
						      VROCE_ACC_REMOTE_ATOMIC |
						      VROCE_ACC_REMOTE_READ,
						      mr_pbl(mr), 3),
			-VROCE_HCA_EACCESS);
	KUNIT_ASSERT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, mr->length,
						      VROCE_ACC_LOCAL_WRITE |
						      VROCE_ACC_REMOTE_READ,
						      mr_pbl(mr), 3),
			0);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, mr->length, 0,
						      mr_pbl(mr), 3),
			-VROCE_HCA_EKEY);
	vroce_test_fill(in, 3 * SZ_4K, 77);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->lkey,
						  vroce_test_pdn(pd), mr->iova,
						  in, 3 * SZ_4K,
						  VROCE_ACC_LOCAL_WRITE, true), 0);
	dma_sync_single_for_cpu(b->dev, b->dma, 5 * SZ_4K, DMA_BIDIRECTIONAL);
	/* Pages 0, 1 and 3 of the buffer, page 2 untouched. */
	KUNIT_EXPECT_MEMEQ(test, b->va, in, 2 * SZ_4K);
	KUNIT_EXPECT_MEMEQ(test, b->va + 3 * SZ_4K, in + 2 * SZ_4K, SZ_4K);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(b->va + 2 * SZ_4K, 0, SZ_4K), NULL);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd),
						  mr->iova + SZ_4K + 100, out,
						  SZ_4K, VROCE_ACC_REMOTE_READ,
						  false), 0);
	KUNIT_EXPECT_MEMEQ(test, out, in + SZ_4K + 100, SZ_4K);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, old_key,
						  vroce_test_pdn(pd), mr->iova,
						  out, 8, 0, false),
			-VROCE_HCA_EKEY);
	/*
	 * map_mr_sg on the registered MR (iSER's map, then LOCAL_INV +
	 * REG_MR): the live key still reaches the old pages only.
	 */
	sg_init_table(sg, 1);
	sg_dma_address(&sg[0]) = b->dma + 4 * SZ_4K;
	sg_dma_len(&sg[0]) = SZ_4K;
	off = 0;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 1, &off, SZ_4K), 1);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
							  vroce_test_pdn(pd),
							  b->dma + i * SZ_4K,
							  out, SZ_4K, 0, false),
				0);
		KUNIT_EXPECT_MEMEQ(test, out, in + i * SZ_4K, SZ_4K);
	}
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd),
						  b->dma + 2 * SZ_4K, out,
						  SZ_4K, 0, false), 0);
	KUNIT_EXPECT_MEMEQ(test, out, in + 2 * SZ_4K, SZ_4K);

	/* LOCAL_INV: the key is dead again. */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_invalidate(hca, mr->rkey), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd), mr->iova,
						  out, 8, 0, false),
			-VROCE_HCA_EKEY);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_invalidate(hca, mr->rkey),
			-VROCE_HCA_EKEY);

	/*
	 * REG_MR with the one new page: the table gets it now, and the range
	 * is checked against the pages the request carries, not the MR's
	 * size: the old pages past it are out of reach.
	 */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, 2 * SZ_4K,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr), 1),
			-VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, SZ_4K,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr), 4),
			-VROCE_HCA_EBOUNDS);
	KUNIT_ASSERT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, SZ_4K,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr), 1), 0);
	vroce_test_fill(b->va + 4 * SZ_4K, SZ_4K, 5);
	dma_sync_single_for_device(b->dev, b->dma, 5 * SZ_4K,
				   DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd), mr->iova,
						  out, SZ_4K, 0, false), 0);
	KUNIT_EXPECT_MEMEQ(test, out, b->va + 4 * SZ_4K, SZ_4K);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd),
						  mr->iova + SZ_4K, out, 8, 0,
						  false), -VROCE_HCA_EBOUNDS);
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_invalidate(hca, mr->rkey), 0);
	/* A page list the HCA cannot reach leaves the MR unregistered. */
	KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, mr->rkey,
						      vroce_test_pdn(pd),
						      mr->iova, SZ_4K,
						      VROCE_ACC_LOCAL_WRITE,
						      mr_pbl(mr) + 4, 1),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, mr->rkey,
						  vroce_test_pdn(pd), mr->iova,
						  out, 8, 0, false),
			-VROCE_HCA_EKEY);

	/* More pages than the MR holds: only what fits is mapped. */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = b->dma;
	sg_dma_len(&sg[0]) = 3 * SZ_4K;
	sg_dma_address(&sg[1]) = b->dma + 3 * SZ_4K;
	sg_dma_len(&sg[1]) = SZ_4K;
	off = 0;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, &off, SZ_4K), 1);
	/* Only 4 KiB MR pages. */
	KUNIT_EXPECT_LT(test, ib_map_mr_sg(mr, sg, 2, &off, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* A command the HCA fails comes back as an errno, leaving nothing behind. */
static void vroce_mr_knob_fail(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 0);

	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 8)),
			-ENOMEM);
	/*
	 * With the MR cache on, its command (CREATE_PD or CREATE_MR of a
	 * miss) fails first, and the cold path's CREATE_MR after it.
	 */
	vroce_hca_set_faults(hca, vdev->mr_cache.enabled ? 2 : 1,
			     VROCE_CMD_BAD_PARAM, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr,
						     IB_ACCESS_LOCAL_WRITE)),
			-EINVAL);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_INTERNAL, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_pd(&vdev->ibdev, 0)), -EIO);
	vroce_test_expect_no_memory_held(test, vdev);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
}

/*
 * A command that never completes times out. If it was a CREATE_MR, the
 * HCA may hold the MR under a key nobody learnt: its tables stay until the
 * HCA is reset.
 */
static void vroce_mr_knob_timeout(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mr *mr;

	vroce_test_cmd_timeout(test, vdev, 100);

	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 8)),
			-ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->zombies));

	/* A slow HCA is a timeout too, and the ring still works afterwards. */
	vroce_hca_set_faults(hca, 0, 0, 0, 300);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 8)),
			-ETIMEDOUT);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_cmd_timeout(test, vdev, 2000);
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	/*
	 * Retrying cannot free MRs whose key is unknown: they stay, memory
	 * held, until the HCA is reset when the driver unbinds (which KASAN
	 * and kmemleak watch at the end of this test).
	 */
	vroce_mr_reap(vdev, false);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_NE(test, vroce_test_allocs(test, vdev), 0);
}

/*
 * A failing DESTROY_MR: dereg succeeds for the caller, the HCA still holds
 * the MR, and its memory is kept until a retry succeeds.
 */
static void vroce_mr_knob_failed_destroy(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 9);
	u8 want[64], got[64];
	struct ib_mr *mr;
	u32 key;

	mr = ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	key = mr->lkey;
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void __user *)uaddr, 64), 0);

	/*
	 * From the MR cache, dereg revokes the MR first and destroys it when
	 * that fails: both fail here.
	 */
	vroce_hca_set_faults(hca, vdev->mr_cache.enabled ? 2 : 1,
			     VROCE_CMD_BUSY, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->zombies));
	/* The HCA can still reach the pages: they must still be there. */
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, key, VROCE_HCA_ANY_PD,
						  uaddr, got, 64, 0, false), 0);
	KUNIT_EXPECT_MEMEQ(test, got, want, 64);
	KUNIT_EXPECT_NE(test, vroce_test_allocs(test, vdev), 0);

	vroce_mr_reap(vdev, false);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, key, VROCE_HCA_ANY_PD,
						  uaddr, got, 64, 0, false),
			-VROCE_HCA_EKEY);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A PD whose MR is parked cannot be destroyed yet: its number is kept and
 * DESTROY_PD retried once the MR is reaped, not leaked until a reset.
 */
static void vroce_mr_pd_waits_for_zombie(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = ib_alloc_pd(&vdev->ibdev, 0);
	struct ib_mr *mr;
	u32 pdn;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	pdn = to_vroce_pd(pd)->pdn;
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	/* This MR's DESTROY_MR fails, and so does the PD's own DMA MR's. */
	vroce_test_faults_off(test, hca);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_DESTROY_MR);
	vroce_hca_set_faults(hca, 2, VROCE_CMD_BUSY, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->zombies));
	ib_dealloc_pd(pd);
	vroce_hca_faults_clear(hca);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->pd_zombies));
	/* The HCA still has the PD. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, pdn), -EBUSY);

	vroce_mr_reap(vdev, false);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->pd_zombies));
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, pdn), -ENOENT);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Every allocation of an MR verb fails in turn: -ENOMEM, nothing leaked.
 * With the MR cache on, an allocation of the cache's fails its attempt
 * only: reg_user_mr then takes the cold path and succeeds. The cold
 * path's own unwinding runs with the cache off (verb 2).
 */
static void vroce_mr_alloc_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 0);
	bool cache = vdev->mr_cache.enabled;
	s64 base, allocs[3];
	struct ib_mr *mr;
	int v, n;

	for (v = 0; v < 3; v++) {
		vdev->mr_cache.enabled = v == 2 ? false : cache;
		base = vroce_test_allocs(test, vdev);
		mr = v ? ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr,
					IB_ACCESS_LOCAL_WRITE) :
			 ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 600);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
		allocs[v] = vroce_test_allocs(test, vdev) - base;
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
		KUNIT_ASSERT_GT(test, allocs[v], 1);

		for (n = 1; n <= allocs[v]; n++) {
			atomic_set(&vdev->mem.fail_nth, n);
			mr = v ? ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr,
						IB_ACCESS_LOCAL_WRITE) :
				 ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 600);
			if (!IS_ERR(mr) && v == 1 && !to_vroce_mr(mr)->cached &&
			    cache)
				kunit_info(test, "allocation %d: the cache's; cold path",
					   n);
			else
				KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(mr),
						    -ENOMEM,
						    "verb %d, allocation %d", v,
						    n);
			if (!IS_ERR(mr))
				ib_dereg_mr(mr);
			vroce_test_expect_no_memory_held(test, vdev);
		}
		atomic_set(&vdev->mem.fail_nth, 0);
	}
	vdev->mr_cache.enabled = cache;
}

/*
 * A consumer bumps a fast-register MR's key (ib_update_fast_reg_key()) and
 * deregisters it without ever posting REG_MR: the HCA's entry still goes,
 * so MPT slots do not leak and no entry points at freed tables.
 */
static void vroce_mr_bumped_key_dereg(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd;
	struct ib_mr *mr;
	u32 created, bumped;
	u64 v;
	int i;

	/* Eight free MPT entries: the PD's DMA MR and seven more. */
	vroce_test_free_mr(test, 8);
	pd = vroce_test_pd(test, vdev, 0);
	for (i = 0; i < 64; i++) {
		mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, mr, "cycle %d", i);
		created = mr->lkey;
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		bumped = mr->lkey;
		KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr), 0);
		/* Gone from the HCA under either key. */
		KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, bumped,
							      vroce_test_pdn(pd),
							      0, SZ_4K, 0, 0, 1),
				-VROCE_HCA_EKEY);
		KUNIT_EXPECT_EQ(test, vroce_hca_frmr_register(hca, created,
							      vroce_test_pdn(pd),
							      0, SZ_4K, 0, 0, 1),
				-VROCE_HCA_EKEY);
		KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, bumped,
							  VROCE_HCA_ANY_PD, 0,
							  &v, 8, 0, false),
				-VROCE_HCA_EKEY);
	}
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Limits on the MPT for tests count what is free: MRs made before the
 * limit (ib_core's own PDs make DMA MRs at registration) in slots below
 * it do not take the slots the test asked for, wherever they lie.
 */
static void vroce_mr_free_mr_limit(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_mr *low[2], *mr[3];
	struct ib_pd *pd;
	int i;

	/*
	 * The PD's DMA MR and three MRs in the four lowest free slots, the
	 * second of the three gone again: taken, free, taken below the cut.
	 */
	vroce_test_free_mr(test, 1);
	pd = vroce_test_pd(test, vdev, 0);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, vroce_hca_set_free_mr(hca, 1), 1);
		mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, mr[i], "low MR %d", i);
	}
	KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr[1]), 0);
	low[0] = mr[0];
	low[1] = mr[2];

	/* Two more: the hole and one past the last. */
	KUNIT_ASSERT_EQ(test, vroce_hca_set_free_mr(hca, 2), 2);
	for (i = 0; i < 2; i++) {
		mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, mr[i], "MR %d", i);
	}
	mr[2] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr[2]), -ENOMEM);
	if (!IS_ERR(mr[2]))
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[2]), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(low[i]), 0);
	}
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Keys (ReDMArk): the slot of the next MR cannot be told from the last key. */
static void vroce_mr_key_slots(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mr *mr[32];
	int i, adjacent = 0;

	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	for (i = 1; i < ARRAY_SIZE(mr); i++)
		if (FIELD_GET(VROCE_KEY_INDEX, mr[i]->lkey) ==
		    FIELD_GET(VROCE_KEY_INDEX, mr[i - 1]->lkey) + 1)
			adjacent++;
	/* Random slots out of 4096: two neighbours in a row are rare. */
	KUNIT_EXPECT_LT_MSG(test, adjacent, 4, "%d of %zu MRs took the next slot",
			    adjacent, ARRAY_SIZE(mr) - 1);
	for (i = 0; i < ARRAY_SIZE(mr); i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Keys (ReDMArk): a slot's key does not come back within 256 reuses. */
static void vroce_mr_key_generations(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	u32 *keys = kunit_kcalloc(test, 256, sizeof(*keys), GFP_KERNEL);
	struct ib_mr *mr[2];
	struct ib_pd *pd;
	int i, j;
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, keys);
	/* One free slot besides the PD's DMA MR: every MR reuses it. */
	vroce_test_free_mr(test, 2);
	pd = vroce_test_pd(test, vdev, 0);
	mr[0] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[0]);
	mr[1] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr[1]), -ENOMEM);
	if (!IS_ERR(mr[1]))
		ib_dereg_mr(mr[1]);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[0]), 0);
	for (i = 0; i < 256; i++) {
		mr[0] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[0]);
		keys[i] = mr[0]->lkey;
		KUNIT_EXPECT_EQ(test, FIELD_GET(VROCE_KEY_INDEX, keys[i]),
				FIELD_GET(VROCE_KEY_INDEX, keys[0]));
		for (j = 0; j < i; j++)
			if (keys[j] == keys[i])
				break;
		KUNIT_EXPECT_EQ_MSG(test, j, i, "key %#x of reuse %d came back",
				    keys[i], i);
		/* The key of the previous reuse, whatever its tag, is dead. */
		if (i)
			KUNIT_EXPECT_EQ(test,
					vroce_hca_frmr_register(hca, keys[i - 1],
								vroce_test_pdn(pd),
								0, SZ_4K, 0, 0, 1),
					-VROCE_HCA_EKEY);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[0]), 0);
		KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, keys[i],
							  VROCE_HCA_ANY_PD, 0,
							  &v, 8, 0, false),
				-VROCE_HCA_EKEY);
	}
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * The MR object's states through the ABI alone (C or Rust, whichever the
 * kernel has): what each call accepts in each state, what info() reports,
 * and that an object the HCA may hold is never reported freeable.
 */
static void vroce_mr_obj_states(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mr_info info;
	struct vroce_mr_desc desc;
	struct vroce_mr_obj *mr;
	u64 dma;

	/* A fast-register object: NEW -> LIVE -> ZOMBIE -> GONE. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_frmr(vdev, 2, 8, &mr), 0);
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_NEW);
	KUNIT_EXPECT_EQ(test, info.type, VROCE_MR_TYPE_FRMR);
	KUNIT_EXPECT_EQ(test, info.max_pages, 2);
	KUNIT_EXPECT_NE(test, info.pbl_dma, 0);
	KUNIT_EXPECT_NOT_NULL(test, info.mtr);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_describe(mr, 7, &desc), 0);
	KUNIT_EXPECT_EQ(test, desc.pdn, 7);
	KUNIT_EXPECT_EQ(test, desc.kind, VROCE_MR_TYPE_FRMR);
	KUNIT_EXPECT_PTR_EQ(test, desc.mtr, info.mtr);
	/* Released or parked before it was ever registered: refused. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_released(mr, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_parked(mr), -EINVAL);

	/* The page list: aligned pages, up to its size. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(mr, 0x1000), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(mr, 0x2001), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(mr, 0x3000), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(mr, 0x4000), -ENOMEM);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page(mr, 1, &dma), 0);
	KUNIT_EXPECT_EQ(test, dma, 0x3000);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page(mr, 2, &dma), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_pages_reset(mr), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page(mr, 0, &dma), -EINVAL);

	KUNIT_EXPECT_EQ(test, vroce_mr_obj_registered(mr, 0x1234, 9), 0);
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_LIVE);
	KUNIT_EXPECT_EQ(test, info.key, 0x1234);
	KUNIT_EXPECT_EQ(test, info.handle, 9);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_registered(mr, 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_describe(mr, 7, &desc), -EINVAL);
	/* A failure reported for a LIVE object: the HCA holds it, keep it. */
	KUNIT_EXPECT_TRUE(test, vroce_mr_obj_create_failed(mr, -EIO));
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_LIVE);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_parked(mr), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_parked(mr), -EINVAL);
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_ZOMBIE);
	KUNIT_EXPECT_EQ(test, info.handle, 9);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_released(mr, false), 0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_released(mr, false), -EINVAL);
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_GONE);
	KUNIT_EXPECT_EQ(test, info.key, 0);
	KUNIT_EXPECT_EQ(test, info.handle, 0);
	vroce_mr_obj_destroy(vdev, mr);

	/* A timed-out CREATE_MR: LOST, released only by an HCA reset. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_frmr(vdev, 1, 8, &mr), 0);
	KUNIT_EXPECT_FALSE(test, vroce_mr_obj_create_failed(mr, -EIO));
	KUNIT_EXPECT_TRUE(test, vroce_mr_obj_create_failed(mr, -ETIMEDOUT));
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_LOST);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_released(mr, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_released(mr, true), 0);
	vroce_mr_obj_destroy(vdev, mr);

	/* A DMA MR has no tables: a timeout leaves nothing to keep. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_LOCAL_WRITE,
						      false, &mr), 0);
	KUNIT_EXPECT_FALSE(test, vroce_mr_obj_create_failed(mr, -ETIMEDOUT));
	vroce_mr_obj_info(mr, &info);
	KUNIT_EXPECT_EQ(test, info.state, VROCE_MR_STATE_NEW);
	KUNIT_EXPECT_NULL(test, info.mtr);
	KUNIT_EXPECT_EQ(test, info.length, U64_MAX);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_pages_reset(mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_page_add(mr, 0x1000), -EINVAL);
	vroce_mr_obj_destroy(vdev, mr);

	/* Bad creations leave nothing behind (vroce_leaks counts). */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_frmr(vdev, 0, 8, &mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_frmr(vdev, 9, 8, &mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_REMOTE_READ,
						      false, &mr), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_REMOTE_WRITE,
						      true, &mr), -EINVAL);
}

/* CREATE_MR of @desc must be refused with @err, and leave no MR behind. */
static void vroce_test_create_refused(struct kunit *test,
				      struct vroce_dev *vdev,
				      const struct vroce_mr_desc *desc, int err,
				      const char *what)
{
	u32 key = 0, handle = 0;
	int ret = vroce_cmd_create_mr(vdev, desc, &key, &handle);

	KUNIT_EXPECT_EQ_MSG(test, ret, err, "%s", what);
	if (!ret)
		vroce_cmd_destroy_mr(vdev, handle);
}

/*
 * The HCA's own checks of CREATE_MR, which the driver never reaches with
 * its good descriptions: each crafted description is refused, whatever
 * the driver in front of the HCA would have let through.
 */
static void vroce_mr_hca_create_checks(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_buf_attr attr = {
		.region = { { 2 * SZ_4K, 1 } }, .region_count = 1,
		.page_shift = 12, .mtt_only = true,
	};
	struct vroce_buf_attr direct = {
		.region = { { 2 * SZ_4K, 0 } }, .region_count = 1,
		.page_shift = 12, .mtt_only = true,
	};
	struct vroce_buf_attr big = {
		.region = { { 2 * SZ_2M, 1 } }, .region_count = 1,
		.page_shift = 21, .mtt_only = true,
	};
	struct vroce_mtr *mtr, *mtr_direct, *mtr_big;
	struct vroce_mr_desc good = {
		.pdn = vroce_test_pdn(pd),
		.access = VROCE_MR_RIGHT_LOCAL_WRITE,
		.kind = VROCE_MR_TYPE_USER,
		.iova = SZ_4K,
		.length = 2 * SZ_4K,
	}, d;
	u32 key, handle;

	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr, &attr, 12, NULL, 0),
			0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr_direct, &direct, 12,
					       NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(vdev, &mtr_big, &big, 12, NULL,
					       0), 0);
	good.mtr = mtr;

	/* The good one is taken (and given back): the rest differ in one. */
	KUNIT_ASSERT_EQ(test, vroce_cmd_create_mr(vdev, &good, &key, &handle),
			0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, handle), 0);

	d = good;
	d.pdn = 0xffffff;
	vroce_test_create_refused(test, vdev, &d, -ENOENT, "unknown PD");
	d = good;
	d.access = 1 << 7;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "unknown right");
	d.access = VROCE_MR_RIGHT_REMOTE_WRITE;
	vroce_test_create_refused(test, vdev, &d, -EINVAL,
				  "remote write without local write");
	d = good;
	d.kind = 7;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "unknown kind");

	/* DMA MRs span all of memory from 0, nothing else. */
	d = good;
	d.kind = VROCE_MR_TYPE_DMA;
	d.mtr = NULL;
	d.iova = 0;
	d.length = SZ_4K;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "DMA MR, short");
	d.iova = SZ_4K;
	d.length = U64_MAX;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "DMA MR, iova");

	/* MTT MRs: inside their table and the HCA's limits. */
	d = good;
	d.length = 0;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "zero length");
	d.length = 2 * SZ_4K + 1;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "past the table");
	d.iova = SZ_4K + 1;
	d.length = 2 * SZ_4K;
	vroce_test_create_refused(test, vdev, &d, -EINVAL,
				  "past the table from an unaligned iova");
	d.iova = U64_MAX - SZ_4K;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "iova wraps");
	d = good;
	d.mtr = mtr_big;
	d.length = BIT_ULL(37) + 1;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "above 128 GiB");

	/* Fast-register MRs: 4 KiB pages behind at least one table. */
	d = good;
	d.kind = VROCE_MR_TYPE_FRMR;
	d.iova = 0;
	d.length = 0;
	d.access = 0;
	d.mtr = mtr_big;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "FRMR, 2 MiB pages");
	d.mtr = mtr_direct;
	vroce_test_create_refused(test, vdev, &d, -EINVAL, "FRMR, hop 0");
	d.mtr = mtr;
	KUNIT_ASSERT_EQ(test, vroce_cmd_create_mr(vdev, &d, &key, &handle), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, handle), 0);

	vroce_mtr_destroy(vdev, mtr);
	vroce_mtr_destroy(vdev, mtr_direct);
	vroce_mtr_destroy(vdev, mtr_big);
}

static struct kunit_case vroce_mr_cases[] = {
	KUNIT_CASE(vroce_mr_dma_mr_moves_bytes),
	KUNIT_CASE(vroce_mr_unsafe_global_rkey),
	KUNIT_CASE(vroce_mr_dma_mr_bad_access),
	KUNIT_CASE(vroce_mr_user_mr_moves_bytes),
	KUNIT_CASE(vroce_mr_user_mr_errors),
	KUNIT_CASE(vroce_mr_keys),
	KUNIT_CASE(vroce_mr_fast_reg),
	KUNIT_CASE(vroce_mr_knob_fail),
	KUNIT_CASE(vroce_mr_knob_timeout),
	KUNIT_CASE(vroce_mr_knob_failed_destroy),
	KUNIT_CASE(vroce_mr_pd_waits_for_zombie),
	KUNIT_CASE(vroce_mr_alloc_faults),
	KUNIT_CASE(vroce_mr_free_mr_limit),
	KUNIT_CASE(vroce_mr_bumped_key_dereg),
	KUNIT_CASE(vroce_mr_key_slots),
	KUNIT_CASE(vroce_mr_key_generations),
	KUNIT_CASE(vroce_mr_obj_states),
	KUNIT_CASE(vroce_mr_hca_create_checks),
	{}
};

static struct kunit_suite vroce_mr_suite = {
	.name = "vroce_mr",
	.test_cases = vroce_mr_cases,
};

kunit_test_suite(vroce_mr_suite);
