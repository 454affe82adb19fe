// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_atomic: RC atomics through the RDMA core's API
 * (IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_WRITE):
 * the values they return and leave, every completion error they can
 * meet, requesters on two HCAs and the CPU racing on one counter, and the
 * bounds of max_rd_atomic and max_dest_rd_atomic.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define AT_BUF		SZ_16K
#define AT_POLL_MS	5000
#define AT_MR_OFF	SZ_4K		/* the target MR: this far into buf[1] */
#define AT_MR_LEN	SZ_4K
#define AT_ALL		(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/*
 * A requester QP (side 0) connected to a responder QP (side 1), each in a
 * PD and with a CQ and a DMA-mapped buffer on its own device (one device
 * or two HCAs on the wire); @mr, a fast-register MR over AT_MR_LEN bytes
 * of the responder's buffer at AT_MR_OFF, is the atomics' target.
 */
struct at_pair {
	struct vroce_dev *vdev[2];
	struct ib_pd *pd[2];
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
	struct ib_mr *mr;
};

KUNIT_DEFINE_ACTION_WRAPPER(at_free_cq, ib_free_cq, struct ib_cq *);

static void at_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void at_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static struct ib_qp *at_qp(struct kunit *test, struct ib_pd *pd,
			   struct ib_cq *cq, u32 depth)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = 4,
			.max_send_sge = VROCE_MAX_SEND_SGE,
			.max_recv_sge = 1,
			.max_inline_data = VROCE_MAX_INLINE,
		},
	};
	struct ib_qp *qp = ib_create_qp(pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, at_destroy_qp,
							qp), 0);
	return qp;
}

/* Poll @n completions of @cq within AT_POLL_MS; how many came. */
static int at_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, AT_POLL_MS);
}

/*
 * Side 0 on @va, side 1 on @vb; the responder QP allows @access. With
 * @share, the responder's buffer is @share's: many requesters, one
 * target.
 */
static struct at_pair *at_pair_on(struct kunit *test, struct vroce_dev *va,
				  struct vroce_dev *vb, u32 depth, int access,
				  const struct at_pair *share)
{
	struct at_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev[0] = va;
	p->vdev[1] = vb;
	for (i = 0; i < 2; i++) {
		p->pd[i] = vroce_test_pd(test, p->vdev[i], 0);
		/* Before the QPs: cleanup frees it after them. */
		if (i && share)
			p->buf[1] = share->buf[1];
		else
			p->buf[i] = vroce_test_kbuf(test, p->vdev[i], AT_BUF);
		p->cq[i] = ib_alloc_cq(&p->vdev[i]->ibdev, NULL, 2 * depth, 0,
				       IB_POLL_DIRECT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								at_free_cq,
								p->cq[i]), 0);
	}
	for (i = 0; i < 2; i++)
		p->qp[i] = at_qp(test, p->pd[i], p->cq[i], depth);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[0], p->qp[1]->qp_num, 0,
					       vb->netdev->dev_addr, 7, AT_ALL),
			0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[1], p->qp[0]->qp_num, 0,
					       va->netdev->dev_addr, 7, access),
			0);
	return p;
}

/*
 * The target MR: registered by a REG_MR work request of the responder QP
 * with @mr_access.
 */
static void at_target(struct kunit *test, struct at_pair *p, int mr_access)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;
	struct ib_mr *mr;

	mr = ib_alloc_mr(p->pd[1], IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, at_dereg_mr, mr),
			0);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = p->buf[1]->dma + AT_MR_OFF;
	sg_dma_len(&sg) = AT_MR_LEN;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K), 1);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = mr_access;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[1], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, at_poll(p->cq[1], &wc, 1), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	p->mr = mr;
}

/* One connected pair on a fresh HCA, its target MR granting @mr_access. */
static struct at_pair *at_pair(struct kunit *test, int qp_access,
			       int mr_access)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct at_pair *p = at_pair_on(test, vdev, vdev, 16, qp_access,
				       NULL);

	at_target(test, p, mr_access);
	return p;
}

/* The 8 bytes at @off of side @side's buffer, as the CPU sees them. */
static u64 *at_word(struct at_pair *p, int side, u32 off)
{
	return p->buf[side]->va + off;
}

/* Post one atomic of side 0: result (or value) at @loff, @llen bytes. */
static int at_post(struct at_pair *p, enum ib_wr_opcode op, u64 wr_id,
		   u32 loff, u32 llen, u64 raddr, u64 cmp_add, u64 swap)
{
	struct ib_sge sge = { .addr = p->buf[0]->dma + loff, .length = llen,
			      .lkey = p->pd[0]->local_dma_lkey };
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.compare_add = cmp_add,
		.swap = swap,
		.rkey = p->mr->rkey,
	};

	return ib_post_send(p->qp[0], &wr.wr, NULL);
}

/* Post one atomic and expect its completion with @status. */
static void at_expect(struct kunit *test, struct at_pair *p,
		      enum ib_wr_opcode op, u32 llen, u64 raddr, u64 cmp_add,
		      u64 swap, enum ib_wc_status status,
		      enum ib_wc_opcode wc_op)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, at_post(p, op, 9, 0, llen, raddr, cmp_add, swap),
			0);
	KUNIT_ASSERT_EQ(test, at_poll(p->cq[0], &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9);
	KUNIT_EXPECT_EQ(test, wc.status, status);
	if (status != IB_WC_SUCCESS)
		return;
	KUNIT_EXPECT_EQ(test, wc.opcode, wc_op);
	KUNIT_EXPECT_EQ(test, wc.byte_len, sizeof(u64));
}

/* The device says what it does: global atomics, no masked ones. */
static void vroce_atomic_caps(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_device_attr *a = &vdev->ibdev.attrs;

	KUNIT_EXPECT_EQ(test, a->atomic_cap, IB_ATOMIC_GLOB);
	KUNIT_EXPECT_EQ(test, a->masked_atomic_cap, IB_ATOMIC_NONE);
	/* Where ib_core has ATOMIC_WRITE (Documentation/compat.rst). */
	KUNIT_EXPECT_EQ(test, a->device_cap_flags & VROCE_IB_DEVICE_ATOMIC_WRITE,
			(u64)VROCE_IB_DEVICE_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, a->max_qp_rd_atom, 16);
	KUNIT_EXPECT_EQ(test, a->max_qp_init_rd_atom, 128);
}

/* COMPARE_AND_SWAP that matches, then one that does not. */
static void vroce_atomic_cas(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);
	u64 *target = at_word(p, 1, AT_MR_OFF + 64);
	u64 *res = at_word(p, 0, 0);

	*target = 0x1111222233334444ULL;
	*res = 0;
	at_expect(test, p, IB_WR_ATOMIC_CMP_AND_SWP, 8, p->mr->iova + 64,
		  0x1111222233334444ULL, 0xaaaabbbbccccddddULL, IB_WC_SUCCESS,
		  IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, *res, 0x1111222233334444ULL);
	KUNIT_EXPECT_EQ(test, *target, 0xaaaabbbbccccddddULL);

	/* A miss returns the value and leaves it. */
	at_expect(test, p, IB_WR_ATOMIC_CMP_AND_SWP, 8, p->mr->iova + 64,
		  0x1111222233334444ULL, 5, IB_WC_SUCCESS, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, *res, 0xaaaabbbbccccddddULL);
	KUNIT_EXPECT_EQ(test, *target, 0xaaaabbbbccccddddULL);
	/* The neighbours are untouched. */
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF + 56), 0);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF + 72), 0);
}

/* FETCH_AND_ADD wraps around 2^64; the last word of the MR is in reach. */
static void vroce_atomic_faa_wrap(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);
	u64 *target = at_word(p, 1, AT_MR_OFF + AT_MR_LEN - 8);
	u64 *res = at_word(p, 0, 0);

	*target = U64_MAX - 1;
	at_expect(test, p, IB_WR_ATOMIC_FETCH_AND_ADD, 8,
		  p->mr->iova + AT_MR_LEN - 8, 3, 0, IB_WC_SUCCESS,
		  IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, *res, U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, *target, 1);
}

/* ATOMIC_WRITE stores the 8 bytes of its SGE or of its inline data. */
static void vroce_atomic_write(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);
	u64 *target = at_word(p, 1, AT_MR_OFF + 8);
	u64 value = 0x0102030405060708ULL;
	struct ib_sge sge = { .addr = p->buf[0]->dma + 128, .length = 8,
			      .lkey = p->pd[0]->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 3, .opcode = VROCE_IB_WR_ATOMIC_WRITE,
			.sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = p->mr->iova + 8,
		.rkey = p->mr->rkey,
	};
	struct ib_wc wc;

	if (!VROCE_IB_DEVICE_ATOMIC_WRITE)
		kunit_skip(test, "this ib_core has no RDMA ATOMIC_WRITE (v6.2)");

	*at_word(p, 0, 128) = 0x1122334455667788ULL;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, at_poll(p->cq[0], &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, VROCE_IB_WC_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, *target, 0x1122334455667788ULL);

	sge.addr = (uintptr_t)&value;
	sge.lkey = 0;
	wr.wr.send_flags |= IB_SEND_INLINE;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, at_poll(p->cq[0], &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, *target, value);

	/* Not 8 bytes: the requester's length error, nothing stored. */
	sge.length = 4;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, at_poll(p->cq[0], &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, *target, value);
}

/* A target not 8-byte aligned: the peer's invalid request NAK. */
static void vroce_atomic_misaligned(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);

	*at_word(p, 1, AT_MR_OFF) = 7;
	at_expect(test, p, IB_WR_ATOMIC_FETCH_AND_ADD, 8, p->mr->iova + 4, 1,
		  0, IB_WC_REM_INV_REQ_ERR, 0);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF), 7);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF + 8), 0);
}

/* An MR without REMOTE_ATOMIC: a remote access error, nothing changed. */
static void vroce_atomic_no_mr_right(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL & ~IB_ACCESS_REMOTE_ATOMIC);

	*at_word(p, 1, AT_MR_OFF) = 7;
	at_expect(test, p, IB_WR_ATOMIC_CMP_AND_SWP, 8, p->mr->iova, 7, 8,
		  IB_WC_REM_ACCESS_ERR, 0);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF), 7);
}

/*
 * A responder QP without IB_ACCESS_REMOTE_ATOMIC: the invalid request NAK,
 * as for WRITE and READ not enabled there (rxe's check_qp_attr_access()).
 */
static void vroce_atomic_no_qp_right(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL & ~IB_ACCESS_REMOTE_ATOMIC,
				    AT_ALL);

	*at_word(p, 1, AT_MR_OFF) = 7;
	at_expect(test, p, IB_WR_ATOMIC_FETCH_AND_ADD, 8, p->mr->iova, 1, 0,
		  IB_WC_REM_INV_REQ_ERR, 0);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF), 7);
}

/* A target past the MR's end: a remote access error. */
static void vroce_atomic_range(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);

	at_expect(test, p, IB_WR_ATOMIC_FETCH_AND_ADD, 8,
		  p->mr->iova + AT_MR_LEN, 1, 0, IB_WC_REM_ACCESS_ERR, 0);
	/* The word right after the MR, in the same buffer, is untouched. */
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF + AT_MR_LEN), 0);
}

/* A local SGE that cannot take the 8 bytes: the requester's length error. */
static void vroce_atomic_short_sge(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);

	*at_word(p, 1, AT_MR_OFF) = 7;
	*at_word(p, 0, 0) = 0x5a5a5a5a5a5a5a5aULL;
	at_expect(test, p, IB_WR_ATOMIC_FETCH_AND_ADD, 4, p->mr->iova, 1, 0,
		  IB_WC_LOC_LEN_ERR, 0);
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF), 7);
	KUNIT_EXPECT_EQ(test, *at_word(p, 0, 0), 0x5a5a5a5a5a5a5a5aULL);
}

/* What post_send refuses: a result cannot land in inline data; UD QPs. */
static void vroce_atomic_post_refused(struct kunit *test)
{
	struct at_pair *p = at_pair(test, AT_ALL, AT_ALL);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.send_cq = p->cq[0],
		.recv_cq = p->cq[0],
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_sge sge = { .addr = p->buf[0]->dma, .length = 8,
			      .lkey = p->pd[0]->local_dma_lkey };
	struct ib_atomic_wr wr = {
		.wr = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_INLINE },
		.remote_addr = p->mr->iova,
		.rkey = p->mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_qp *ud;

	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &wr.wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr.wr);

	ud = ib_create_qp(p->pd[0], &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ud);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, at_destroy_qp,
							ud), 0);
	{
		struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT,
					   .port_num = 1, .qkey = 1 };

		KUNIT_ASSERT_EQ(test, ib_modify_qp(ud, &attr, IB_QP_STATE |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT | IB_QP_QKEY), 0);
		attr.qp_state = IB_QPS_RTR;
		KUNIT_ASSERT_EQ(test, ib_modify_qp(ud, &attr, IB_QP_STATE), 0);
		attr.qp_state = IB_QPS_RTS;
		KUNIT_ASSERT_EQ(test, ib_modify_qp(ud, &attr, IB_QP_STATE |
						   IB_QP_SQ_PSN), 0);
	}
	wr.wr.send_flags = IB_SEND_SIGNALED;
	KUNIT_EXPECT_EQ(test, ib_post_send(ud, &wr.wr, &bad), -EINVAL);
	/* Nothing was executed: the target is as it was. */
	KUNIT_EXPECT_EQ(test, *at_word(p, 1, AT_MR_OFF), 0);
}

#define RACE_QPS	2	/* requesters per HCA */
#define RACE_N		256	/* fetch-and-adds per requester */
#define RACE_CPU	10000	/* the CPU's own increments */

static int at_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Requesters on two HCAs of the wire (RACE_QPS each: on A towards B,
 * and on B in loopback), each through an MR of its own over the same
 * page, and the CPU add 1 to one counter of B at once:
 * the final value is exactly the sum, and the originals the HCAs
 * returned are distinct (each add saw every earlier one).
 */
static void vroce_atomic_race_two_hcas(struct kunit *test)
{
	struct vroce_dev *va = vroce_test_dev(test);
	struct vroce_dev *vb = platform_get_drvdata(vroce_test_add_pdev(test));
	struct at_pair *p[2 * RACE_QPS];
	struct ib_wc *wc;
	atomic64_t *counter;
	u64 *seen, expect;
	int i, j, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, vb);
	wc = kunit_kcalloc(test, RACE_N, sizeof(*wc), GFP_KERNEL);
	seen = kunit_kcalloc(test, 2 * RACE_QPS * RACE_N, sizeof(*seen),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < 2 * RACE_QPS; i++) {
		p[i] = at_pair_on(test, i < RACE_QPS ? va : vb, vb, RACE_N,
				  AT_ALL, i ? p[0] : NULL);
		/*
		 * An MR of each pair's own over the same page: MPT entries
		 * (and entry locks) of their own, so that only the atomic
		 * itself keeps the adds apart.
		 */
		at_target(test, p[i], AT_ALL);
	}
	counter = (atomic64_t *)at_word(p[0], 1, AT_MR_OFF);
	atomic64_set(counter, 0);

	/* Each requester's adds go in one chain: one doorbell each. */
	for (i = 0; i < 2 * RACE_QPS; i++) {
		for (j = 0; j < RACE_N; j++)
			KUNIT_ASSERT_EQ(test, at_post(p[i],
						      IB_WR_ATOMIC_FETCH_AND_ADD,
						      j, j * 8, 8,
						      p[i]->mr->iova, 1, 0), 0);
	}
	/* Meanwhile the CPU adds too: the HCAs' atomics are the CPU's. */
	for (j = 0; j < RACE_CPU; j++) {
		atomic64_inc(counter);
		if (!(j % 1000))
			cond_resched();
	}
	for (i = 0; i < 2 * RACE_QPS; i++) {
		KUNIT_ASSERT_EQ(test, at_poll(p[i]->cq[0], wc, RACE_N), RACE_N);
		for (j = 0; j < RACE_N; j++) {
			KUNIT_EXPECT_EQ(test, wc[j].status, IB_WC_SUCCESS);
			KUNIT_EXPECT_EQ(test, wc[j].opcode, IB_WC_FETCH_ADD);
			seen[n++] = *at_word(p[i], 0, wc[j].wr_id * 8);
		}
	}
	expect = 2 * RACE_QPS * RACE_N + RACE_CPU;
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(counter), expect);
	/* Distinct originals, each below the final value. */
	sort(seen, n, sizeof(*seen), at_cmp_u64, NULL);
	for (i = 1; i < n; i++)
		if (seen[i] == seen[i - 1])
			break;
	KUNIT_EXPECT_EQ(test, i, n);
	KUNIT_EXPECT_LT(test, seen[n - 1], expect);
}

/* INIT -> RTR with @dest_rd; then, if that worked, RTR -> RTS with @rd. */
static int at_rtr_rts(struct ib_qp *qp, struct vroce_dev *vdev, u32 dest,
		      u8 dest_rd, u8 rd, bool rts)
{
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int err;

	if (!rts) {
		err = rdma_query_gid(qp->device, 1, 0, &gid);
		if (err)
			return err;
		attr.qp_state = IB_QPS_RTR;
		attr.path_mtu = IB_MTU_4096;
		attr.dest_qp_num = dest;
		attr.max_dest_rd_atomic = dest_rd;
		attr.min_rnr_timer = 1;
		attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr.ah_attr, 1);
		rdma_ah_set_grh(&attr.ah_attr, &gid, 0, 0, 64, 0);
		ether_addr_copy(attr.ah_attr.roce.dmac, vdev->netdev->dev_addr);
		return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
				    IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				    IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				    IB_QP_MIN_RNR_TIMER);
	}
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = rd;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/*
 * max_rd_atomic above max_qp_init_rd_atom (128) and max_dest_rd_atomic
 * above max_qp_rd_atom (16): -EINVAL.
 */
static void vroce_atomic_rd_atomic_bounds(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = ib_alloc_cq(&vdev->ibdev, NULL, 8, 0,
				       IB_POLL_DIRECT);
	u32 max = vdev->ibdev.attrs.max_qp_rd_atom;
	u32 init = vdev->ibdev.attrs.max_qp_init_rd_atom;
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr attr;
	struct ib_qp *qp;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, at_free_cq, cq),
			0);
	qp = at_qp(test, pd, cq, 4);
	attr = (struct ib_qp_attr){ .qp_state = IB_QPS_INIT, .port_num = 1,
				    .qp_access_flags = AT_ALL };
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, at_rtr_rts(qp, vdev, qp->qp_num, max + 1, 0,
					 false), -EINVAL);
	KUNIT_EXPECT_EQ(test, at_rtr_rts(qp, vdev, qp->qp_num, U8_MAX, 0,
					 false), -EINVAL);
	KUNIT_ASSERT_EQ(test, at_rtr_rts(qp, vdev, qp->qp_num, max, 0, false),
			0);
	/* As initiator up to rxe's 128 (a peer's max_dest_rd_atomic). */
	KUNIT_EXPECT_EQ(test, init, 128);
	KUNIT_EXPECT_EQ(test, at_rtr_rts(qp, vdev, 0, 0, init + 1, true),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, at_rtr_rts(qp, vdev, 0, 0, init, true), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, IB_QP_MAX_QP_RD_ATOMIC |
					  IB_QP_MAX_DEST_RD_ATOMIC, &qinit), 0);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, init);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, max);
}

static struct kunit_case vroce_atomic_cases[] = {
	KUNIT_CASE(vroce_atomic_caps),
	KUNIT_CASE(vroce_atomic_cas),
	KUNIT_CASE(vroce_atomic_faa_wrap),
	KUNIT_CASE(vroce_atomic_write),
	KUNIT_CASE(vroce_atomic_misaligned),
	KUNIT_CASE(vroce_atomic_no_mr_right),
	KUNIT_CASE(vroce_atomic_no_qp_right),
	KUNIT_CASE(vroce_atomic_range),
	KUNIT_CASE(vroce_atomic_short_sge),
	KUNIT_CASE(vroce_atomic_post_refused),
	KUNIT_CASE_SLOW(vroce_atomic_race_two_hcas),
	KUNIT_CASE(vroce_atomic_rd_atomic_bounds),
	{}
};

static struct kunit_suite vroce_atomic_suite = {
	.name = "vroce_atomic",
	.test_cases = vroce_atomic_cases,
};

kunit_test_suite(vroce_atomic_suite);
