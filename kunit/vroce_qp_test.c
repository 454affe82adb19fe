// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_qp: the data path through the RDMA core's own API
 * (ib_alloc_cq, ib_create_qp, ib_modify_qp, ib_post_send, ib_post_recv,
 * ib_poll_cq, ib_drain_qp) between two RC QPs of the emulated HCA: every
 * opcode moving bytes, compared byte for byte; every error status; ring
 * wrap-around; CQ overflow; the HCA's completion-event fault knobs.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/driver/vroce_cmdq.h"
#include "../c/hca/vroce_hca.h"
#include "../bindings/vroce_abi.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define BUF_LEN		(4 * SZ_4K)
#define POLL_MS		3000

/* Two connected QPs on one CQ, with a DMA-mapped buffer each. */
struct qp_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
	u32 lkey;
};

KUNIT_DEFINE_ACTION_WRAPPER(qp_free_cq, ib_free_cq, struct ib_cq *);

static void qp_destroy(void *data)
{
	ib_destroy_qp(data);
}

static void qp_destroy_cq(void *data)
{
	ib_destroy_cq(data);
}

static void qp_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static struct ib_cq *qp_cq(struct kunit *test, struct vroce_dev *vdev,
			   int cqe, enum ib_poll_context ctx)
{
	struct ib_cq *cq = ib_alloc_cq(&vdev->ibdev, NULL, cqe, 0, ctx);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_free_cq, cq),
			0);
	return cq;
}

static struct ib_qp *qp_create(struct kunit *test, struct ib_pd *pd,
			       struct ib_cq *cq, u32 depth)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = VROCE_MAX_SEND_SGE,
			.max_recv_sge = VROCE_MAX_RECV_SGE,
			.max_inline_data = VROCE_MAX_INLINE,
		},
	};
	struct ib_qp *qp = ib_create_qp(pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_destroy, qp),
			0);
	KUNIT_EXPECT_GE(test, qp->qp_num, VROCE_QPN_BASE);
	return qp;
}

static int qp_to_init(struct ib_qp *qp, int access)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

#define QP_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* RESET or INIT -> RTS towards @dest_qpn, through the port's own MAC. */
static int qp_connect(struct vroce_dev *vdev, struct ib_qp *qp, u32 dest_qpn,
		      u8 rnr_retry)
{
	return vroce_lb_connect(qp, dest_qpn, 0, vdev->netdev->dev_addr,
				rnr_retry, QP_ACCESS);
}

/* Two connected QPs, on @vdev's HCA, in a new PD of their own. */
static struct qp_pair *qp_pair_on(struct kunit *test, struct vroce_dev *vdev,
				  u32 depth, int cqe, u8 rnr_retry)
{
	struct qp_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vdev;
	p->pd = vroce_test_pd(test, p->vdev, 0);
	p->lkey = p->pd->local_dma_lkey;
	p->cq = qp_cq(test, p->vdev, cqe, IB_POLL_DIRECT);
	/*
	 * Buffers first: test cleanup runs in reverse, so the QPs (and with
	 * them the WQEs the HCA may still execute) go before their memory.
	 */
	for (i = 0; i < 2; i++)
		p->buf[i] = vroce_test_kbuf(test, p->vdev, BUF_LEN);
	for (i = 0; i < 2; i++)
		p->qp[i] = qp_create(test, p->pd, p->cq, depth);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, qp_connect(p->vdev, p->qp[i],
						 p->qp[!i]->qp_num, rnr_retry),
				0);
	return p;
}

/* Two connected QPs on a fresh HCA. */
static struct qp_pair *qp_pair(struct kunit *test, u32 depth, int cqe,
			       u8 rnr_retry)
{
	return qp_pair_on(test, vroce_test_dev(test), depth, cqe, rnr_retry);
}

/* Poll @n completions within POLL_MS; return how many came. */
static int qp_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, POLL_MS);
}

/* Expect no completion for a while. */
static void qp_expect_quiet(struct kunit *test, struct ib_cq *cq)
{
	struct ib_wc wc;

	msleep(50);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);
}

/* Expect two successful completions within POLL_MS: @a and @b, any order. */
static void qp_expect_two(struct kunit *test, struct ib_cq *cq, u64 a, u64 b)
{
	struct ib_wc wc[2];
	int i;

	KUNIT_ASSERT_EQ(test, qp_poll(cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_TRUE(test, wc[i].wr_id == a || wc[i].wr_id == b);
	}
}

static struct ib_sge qp_sge(struct qp_pair *p, int side, u32 off, u32 len)
{
	return (struct ib_sge){ .addr = p->buf[side]->dma + off,
				.length = len, .lkey = p->lkey };
}

static int qp_post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sge,
			int n)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n };

	return ib_post_recv(qp, &wr, NULL);
}

static int qp_post(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		   struct ib_sge *sge, int n, u64 raddr, u32 rkey, int flags)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = sge,
			.num_sge = n, .send_flags = flags },
		.remote_addr = raddr,
		.rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(0x12345678);
	if (op == IB_WR_SEND_WITH_INV || op == IB_WR_LOCAL_INV)
		wr.wr.ex.invalidate_rkey = rkey;
	return ib_post_send(qp, &wr.wr, NULL);
}

/* A fast-register MR over @len bytes of @b at @off, registered by REG_MR. */
static struct ib_mr *qp_reg_mr(struct kunit *test, struct qp_pair *p,
			       int side, u32 off, u32 len, int access)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;
	struct ib_mr *mr;

	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, BUF_LEN / SZ_4K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr, mr),
			0);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = p->buf[side]->dma + off;
	sg_dma_len(&sg) = len;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K), 1);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));

	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 77;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[side], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 77);
	return mr;
}

static void qp_fill(struct qp_pair *p, int side, u8 seed)
{
	vroce_test_fill(p->buf[side]->va, BUF_LEN, seed);
}

/* SEND from three SGEs across pages into a receive of two SGEs. */
static void vroce_qp_send_recv(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src[3] = { qp_sge(p, 0, 100, 4000),
				 qp_sge(p, 0, 4096 + 300, 5000),
				 qp_sge(p, 0, 3 * 4096 + 7, 11) };
	struct ib_sge dst[2] = { qp_sge(p, 1, 4095, 6000),
				 qp_sge(p, 1, 3 * 4096 + 100, 3500) };
	u8 *a = p->buf[0]->va, *b = p->buf[1]->va;
	struct ib_wc wc[2];
	int i;

	qp_fill(p, 0, 1);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 10, dst, 2), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND_WITH_IMM, 20, src,
				      3, 0, 0, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].wr_id == 10) {
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, 9011);
			KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, p->qp[1]);
			KUNIT_EXPECT_EQ(test, wc[i].src_qp, p->qp[0]->qp_num);
			KUNIT_EXPECT_TRUE(test, wc[i].wc_flags & IB_WC_WITH_IMM);
			KUNIT_EXPECT_EQ(test, be32_to_cpu(wc[i].ex.imm_data),
					0x12345678);
		} else {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, 20);
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
			KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, p->qp[0]);
		}
	}
	/* 4000 + 5000 + 11 bytes land as 6000 + 3011, in order. */
	KUNIT_EXPECT_EQ(test, memcmp(b + 4095, a + 100, 4000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b + 4095 + 4000, a + 4096 + 300, 2000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b + 3 * 4096 + 100, a + 4096 + 2300,
				     3000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b + 3 * 4096 + 3100, a + 3 * 4096 + 7, 11),
			0);
	KUNIT_EXPECT_EQ(test, b[4094], 0);
	KUNIT_EXPECT_EQ(test, b[4095 + 6000], 0);
	KUNIT_EXPECT_EQ(test, b[3 * 4096 + 3111], 0);
}

/* Unsignaled sends complete nothing; inline data needs no lkey. */
static void vroce_qp_unsignaled_inline(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	u8 msg[VROCE_MAX_INLINE];
	struct ib_sge in = { .addr = (uintptr_t)msg, .length = sizeof(msg) };
	struct ib_sge big = { .addr = (uintptr_t)msg,
			      .length = VROCE_MAX_INLINE + 1 };
	struct ib_sge dst = qp_sge(p, 1, 0, 4096);
	struct ib_wc wc[2];

	vroce_test_fill(msg, sizeof(msg), 3);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 1, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 2, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 5, &in, 1, 0, 0,
				      IB_SEND_INLINE), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, sizeof(msg));
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1]->va, msg, sizeof(msg)), 0);
	qp_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 6, &big, 1, 0, 0,
				      IB_SEND_INLINE), -EINVAL);
}

/* WRITE and READ through a fast-register MR spanning pages. */
static void vroce_qp_write_read(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_mr *mr = qp_reg_mr(test, p, 1, 0, BUF_LEN, QP_ACCESS);
	struct ib_sge src = qp_sge(p, 0, 10, 6000);
	struct ib_sge dst = qp_sge(p, 0, 2 * 4096, 5000);
	struct ib_sge rcv = qp_sge(p, 1, 0, 16);
	u8 *a = p->buf[0]->va, *b = p->buf[1]->va;
	struct ib_wc wc[2];
	int i;

	qp_fill(p, 0, 4);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, 1, &src, 1,
				      mr->iova + 4000, mr->rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(b + 4000, a + 10, 6000), 0);

	/* Read 5000 bytes back from the peer, across its page boundary. */
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_READ, 2, &dst, 1,
				      mr->iova + 4000, mr->rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 5000);
	KUNIT_EXPECT_EQ(test, memcmp(a + 2 * 4096, b + 4000, 5000), 0);

	/* WRITE_WITH_IMM also consumes a receive, which carries the data. */
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 3, &rcv, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE_WITH_IMM, 4,
				      &src, 1, mr->iova + 8192, mr->rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].wr_id != 3)
			continue;
		KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV_RDMA_WITH_IMM);
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 6000);
		KUNIT_EXPECT_TRUE(test, wc[i].wc_flags & IB_WC_WITH_IMM);
	}
	KUNIT_EXPECT_EQ(test, memcmp(b + 8192, a + 10, 6000), 0);
}

/*
 * A user MR (memory of the test's own address space, pinned by
 * ib_reg_user_mr) as the target of RDMA WRITE and READ and as the source
 * of a SEND: bytes checked from user space.
 */
static void vroce_qp_user_mr(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long uaddr = vroce_test_user_mem(test, 4 * SZ_4K, 9);
	u64 start = uaddr + 123, iova = 0x6600000000ULL + 123;
	u32 len = 3 * SZ_4K;
	struct ib_sge src = qp_sge(p, 0, 0, len);
	struct ib_sge back = qp_sge(p, 0, 0, len);
	struct ib_sge dst = qp_sge(p, 1, 0, len);
	u8 *got = kunit_kzalloc(test, len, GFP_KERNEL);
	struct ib_sge usge;
	struct ib_wc wc[2];
	struct ib_mr *mr;

	KUNIT_ASSERT_NOT_NULL(test, got);
	mr = ib_reg_user_mr(p->pd, start, len, iova, QP_ACCESS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr, mr),
			0);

	/* WRITE into the user pages, across their page boundaries. */
	qp_fill(p, 0, 21);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, 1, &src, 1,
				      iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)start, len),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, len);

	/* READ them back into a cleared buffer. */
	memset(p->buf[0]->va, 0, len);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_READ, 2, &back, 1,
				      iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, p->buf[0]->va, got, len);

	/* SEND from the user MR (its lkey) to the peer's receive. */
	usge = (struct ib_sge){ .addr = iova, .length = len,
				.lkey = mr->lkey };
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 3, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 4, &usge, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, p->buf[1]->va, got, len);
}

/* The requester's and responder's status after a failed work request. */
static void qp_expect_error(struct kunit *test, struct qp_pair *p,
			    enum ib_wc_status req, enum ib_wc_status resp)
{
	struct ib_wc wc[2];
	int n = resp == IB_WC_SUCCESS ? 1 : 2, got, i;

	got = qp_poll(p->cq, wc, n);
	KUNIT_ASSERT_EQ(test, got, n);
	for (i = 0; i < n; i++) {
		if (wc[i].qp == p->qp[0])
			KUNIT_EXPECT_EQ(test, wc[i].status, req);
		else
			KUNIT_EXPECT_EQ(test, wc[i].status, resp);
	}
	qp_expect_quiet(test, p->cq);
}

static enum ib_qp_state qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_RESET;
	return attr.qp_state;
}

static void vroce_qp_bad_lkey(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 64);

	src.lkey ^= 0x80;	/* another tag: no such MR */
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 1, &src, 1, 0, 0,
				      0), 0);
	/* Errors complete although unsignaled. */
	qp_expect_error(test, p, IB_WC_LOC_PROT_ERR, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[0]), IB_QPS_ERR);
}

static void vroce_qp_remote_access_errors(struct kunit *test)
{
	static const struct {
		const char *what;
		int access;		/* of the MR */
		u64 offset;		/* into the MR */
		u32 rkey_xor;
		bool other_pd;
		enum ib_wr_opcode op;
	} cases[] = {
		/* A tag bit: the MR's own slot, under another key. */
		{ "wrong rkey", QP_ACCESS, 0, 0x80, false, IB_WR_RDMA_WRITE },
		{ "past the end", QP_ACCESS, BUF_LEN - 8, 0, false,
		  IB_WR_RDMA_WRITE },
		{ "no remote write", IB_ACCESS_LOCAL_WRITE |
		  IB_ACCESS_REMOTE_READ, 0, 0, false, IB_WR_RDMA_WRITE },
		{ "no remote read", IB_ACCESS_LOCAL_WRITE |
		  IB_ACCESS_REMOTE_WRITE, 0, 0, false, IB_WR_RDMA_READ },
		{ "other PD", QP_ACCESS, 0, 0, true, IB_WR_RDMA_WRITE },
	};
	struct vroce_dev *vdev = vroce_test_dev(test);
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct qp_pair *p = qp_pair_on(test, vdev, 16, 64, 7);
		struct ib_sge sge = qp_sge(p, 0, 0, 64);
		struct ib_mr *mr;

		kunit_info(test, "%s", cases[i].what);
		if (cases[i].other_pd) {
			/* Registered by a QP of another PD, same HCA. */
			struct qp_pair *o = qp_pair_on(test, vdev, 4, 16, 7);

			mr = qp_reg_mr(test, o, 1, 0, BUF_LEN, cases[i].access);
		} else {
			mr = qp_reg_mr(test, p, 1, 0, BUF_LEN,
				       cases[i].access);
		}
		KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], cases[i].op, 1, &sge,
					      1, mr->iova + cases[i].offset,
					      mr->rkey ^ cases[i].rkey_xor, 0),
				0);
		qp_expect_error(test, p, IB_WC_REM_ACCESS_ERR, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, qp_state(p->qp[0]), IB_QPS_ERR);
		KUNIT_EXPECT_EQ(test, qp_state(p->qp[1]), IB_QPS_ERR);
	}
}

/* After LOCAL_INV the old rkey is dead; SEND_WITH_INV kills the peer's. */
static void vroce_qp_invalidate(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_mr *mr = qp_reg_mr(test, p, 1, 0, BUF_LEN, QP_ACCESS);
	struct ib_mr *mr2 = qp_reg_mr(test, p, 1, 0, SZ_4K, QP_ACCESS);
	struct ib_sge sge = qp_sge(p, 0, 0, 64);
	struct ib_sge rcv = qp_sge(p, 1, 0, 64);
	struct ib_wc wc[2];
	int i;

	KUNIT_ASSERT_EQ(test, qp_post(p->qp[1], IB_WR_LOCAL_INV, 1, NULL, 0,
				      0, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_LOCAL_INV);

	/* SEND_WITH_INV: the receive reports the key it invalidated. */
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 2, &rcv, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND_WITH_INV, 3, &sge,
				      1, 0, mr2->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].wr_id != 2)
			continue;
		KUNIT_EXPECT_TRUE(test, wc[i].wc_flags & IB_WC_WITH_INVALIDATE);
		KUNIT_EXPECT_EQ(test, wc[i].ex.invalidate_rkey, mr2->rkey);
	}

	/* Both keys are stale now. */
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, 4, &sge, 1,
				      mr->iova, mr->rkey, 0), 0);
	qp_expect_error(test, p, IB_WC_REM_ACCESS_ERR, IB_WC_SUCCESS);
}

/* A SEND longer than the posted receive. */
static void vroce_qp_recv_too_small(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 200);
	struct ib_sge dst = qp_sge(p, 1, 0, 100);

	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 1, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 2, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	qp_expect_error(test, p, IB_WC_REM_INV_REQ_ERR, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[1]), IB_QPS_ERR);
}

/* No receive and no RNR retries: the sender gives up. */
static void vroce_qp_rnr(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 0);
	struct ib_sge src = qp_sge(p, 0, 0, 64);

	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 1, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	qp_expect_error(test, p, IB_WC_RNR_RETRY_EXC_ERR, IB_WC_SUCCESS);
}

/* With infinite RNR retries the SEND waits for the receive. */
static void vroce_qp_rnr_waits(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 64);
	struct ib_sge dst = qp_sge(p, 1, 0, 64);
	struct ib_wc wc[2];

	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 1, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	qp_expect_quiet(test, p->cq);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 2, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
}

/* Posting in the wrong state, or to a full queue. */
static void vroce_qp_post_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	/* Before the QPs, so that it is freed after them. */
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, SZ_4K);
	struct ib_cq *cq = qp_cq(test, vdev, 64, IB_POLL_DIRECT);
	struct ib_qp *qp = qp_create(test, pd, cq, 4), *peer;
	struct ib_sge sge = { .addr = b->dma, .length = 8,
			      .lkey = pd->local_dma_lkey };
	struct ib_send_wr wr[5] = {};
	const struct ib_send_wr *cbad;
	int i;

	/* RESET takes nothing; INIT takes receives only. */
	KUNIT_EXPECT_EQ(test, qp_post_recv(qp, 1, &sge, 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, qp_to_init(qp, QP_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, qp_post_recv(qp, 1, &sge, 1), 0);
	KUNIT_EXPECT_EQ(test, qp_post(qp, IB_WR_SEND, 1, &sge, 1, 0, 0, 0),
			-EINVAL);
	/* Transitions the state machine does not allow, bad attributes. */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &(struct ib_qp_attr){
			.qp_state = IB_QPS_RTS }, IB_QP_STATE), -EINVAL);
	peer = qp_create(test, pd, cq, 4);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, qp, peer->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, peer, qp->qp_num, 7), 0);

	/* SQD is not supported; the QP stays usable. */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &(struct ib_qp_attr){
			.qp_state = IB_QPS_SQD }, IB_QP_STATE), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, qp_state(qp), IB_QPS_RTS);

	/* Too many SGEs, then a full send queue (4 WQEs): bad_wr says where. */
	for (i = 0; i < 5; i++) {
		wr[i].opcode = IB_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	wr[0].num_sge = VROCE_MAX_SEND_SGE + 1;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, wr, &cbad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, cbad, (const struct ib_send_wr *)&wr[0]);
	wr[0].num_sge = 1;
	/* The peer has no receive and retries forever: nothing completes. */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, wr, &cbad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, cbad, (const struct ib_send_wr *)&wr[4]);
}

static int qp_set_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/*
 * A third QP that names qp[1] as its peer, while qp[1] is connected to
 * qp[0], reaches nothing: an RC responder answers only the QP it is
 * connected to. Its SEND and RDMA WRITE end in RETRY_EXC_ERR, qp[1]'s
 * receive and state stay as they were, and qp[0] still reaches qp[1].
 */
static void vroce_qp_intruder(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 64);
	struct ib_sge dst = qp_sge(p, 1, 0, 256);
	struct ib_qp *c = qp_create(test, p->pd, p->cq, 16);
	u8 *b = p->buf[1]->va;
	struct ib_wc wc[2];
	struct ib_mr *mr;
	int i;

	KUNIT_ASSERT_EQ(test, qp_connect(p->vdev, c, p->qp[1]->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 10, &dst, 1), 0);

	KUNIT_ASSERT_EQ(test, qp_post(c, IB_WR_SEND, 30, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, c);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_RETRY_EXC_ERR);
	qp_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[1]), IB_QPS_RTS);

	/* An RDMA WRITE with a valid rkey of qp[1]'s PD writes nothing. */
	mr = qp_reg_mr(test, p, 1, 0, BUF_LEN,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	KUNIT_ASSERT_EQ(test, qp_set_state(c, IB_QPS_RESET), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(p->vdev, c, p->qp[1]->qp_num, 7), 0);
	qp_fill(p, 0, 5);
	memset(b, 0, BUF_LEN);
	KUNIT_ASSERT_EQ(test, qp_post(c, IB_WR_RDMA_WRITE, 31, &src, 1,
				      mr->iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, c);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(b, 0, 64));
	qp_expect_quiet(test, p->cq);

	/* qp[1]'s receive is still there for its own peer. */
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 20, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].wr_id == 10)
			KUNIT_EXPECT_EQ(test, wc[i].src_qp, p->qp[0]->qp_num);
	}
}

/*
 * Flushed completions left in the CQ belong to the QP's past: after RESET
 * or destroy they reach neither the QP nor one given the same number.
 */
static void vroce_qp_reset_and_reuse(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 64);
	struct ib_sge dst = qp_sge(p, 1, 0, 64);
	struct ib_qp *old, *qp;
	u32 qpn;
	int i;

	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], i, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_set_state(p->qp[1], IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qp_set_state(p->qp[1], IB_QPS_RESET), 0);
	qp_expect_quiet(test, p->cq);

	/* Connected again, it works from a clean slate. */
	KUNIT_ASSERT_EQ(test, qp_connect(p->vdev, p->qp[1], p->qp[0]->qp_num,
					 7), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 7, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 8, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	qp_expect_two(test, p->cq, 7, 8);

	/* Destroyed with flushed receives unpolled; its number comes back. */
	old = ib_create_qp(p->pd, &(struct ib_qp_init_attr){
		.qp_type = IB_QPT_RC, .send_cq = p->cq, .recv_cq = p->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } });
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, old);
	qpn = old->qp_num;
	KUNIT_ASSERT_EQ(test, qp_to_init(old, QP_ACCESS), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, qp_post_recv(old, 20 + i, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_set_state(old, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, ib_destroy_qp(old), 0);
	/* The driver gives numbers in turn: have it give this one now. */
	p->vdev->qpn_next = qpn;
	qp = qp_create(test, p->pd, p->cq, 4);
	KUNIT_EXPECT_EQ(test, qp->qp_num, qpn);
	qp_expect_quiet(test, p->cq);
}

/*
 * A QP whose DESTROY_QP fails is gone for the core, but its rings stay
 * (the HCA may still use them) until the HCA is reset at unplug; its
 * number stays taken.
 */
static void vroce_qp_destroy_fails(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = qp_cq(test, vdev, 16, IB_POLL_DIRECT);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp, *next;
	s64 held;
	u32 qpn;

	qp = ib_create_qp(pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	qpn = qp->qp_num;
	held = atomic64_read(&vdev->mem.dma_bytes);
	vroce_test_faults_off(test, hca);
	vroce_hca_set_faults(hca, 1, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.dma_bytes), held);
	next = qp_create(test, pd, cq, 4);
	KUNIT_EXPECT_NE(test, next->qp_num, qpn);
}

/*
 * A CREATE_CQ or CREATE_QP that times out may have been carried out: the
 * HCA may own the rings, so they stay until it is reset.
 */
static void vroce_qp_create_timeout(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = qp_cq(test, vdev, 16, IB_POLL_DIRECT);
	struct ib_cq_init_attr cqa = { .cqe = 16 };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	s64 held;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 100);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->ring_zombies));

	held = atomic64_read(&vdev->mem.dma_bytes);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(&vdev->ibdev, NULL, NULL,
						   NULL, &cqa)), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->ring_zombies));
	KUNIT_EXPECT_GT(test, atomic64_read(&vdev->mem.dma_bytes), held);

	held = atomic64_read(&vdev->mem.dma_bytes);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(pd, &init)), -ETIMEDOUT);
	KUNIT_EXPECT_GT(test, atomic64_read(&vdev->mem.dma_bytes), held);

	/* The device still works, and a failed (not lost) command frees all. */
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_cmd_timeout(test, vdev, 2000);
	held = atomic64_read(&vdev->mem.dma_bytes);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(pd, &init)), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.dma_bytes), held);
	qp_create(test, pd, cq, 4);
}

/* A CQ and a QP on it, or the error of the first that failed. */
static int qp_cq_and_qp(struct ib_pd *pd, struct vroce_dev *vdev)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_cq *cq;
	struct ib_qp *qp;
	int err = 0;

	cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp))
		err = PTR_ERR(qp);
	else
		ib_destroy_qp(qp);
	ib_free_cq(cq);
	return err;
}

/*
 * Every fault injection point of creating a CQ and a QP (allocations and
 * the xarray inserts), failed in turn, unwinds.
 */
static void vroce_qp_fail_every_allocation(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	s64 allocs;
	int n, err;

	KUNIT_ASSERT_EQ(test, qp_cq_and_qp(pd, vdev), 0);
	allocs = vroce_test_allocs(test, vdev);
	vroce_test_expect_no_memory_held(test, vdev);
	/* CQ ring, send ring, receive ring: an MTR and its memory each. */
	KUNIT_ASSERT_GE(test, allocs, 6);

	for (n = 1; n < 200; n++) {
		atomic_set(&vdev->mem.fail_nth, n);
		err = qp_cq_and_qp(pd, vdev);
		if (!err)
			break;
		KUNIT_EXPECT_EQ_MSG(test, err, -ENOMEM, "point %d", n);
		vroce_test_expect_no_memory_held(test, vdev);
		if (test->status == KUNIT_FAILURE)
			break;
	}
	atomic_set(&vdev->mem.fail_nth, 0);
	/* Every allocation, and the two xarray inserts. */
	KUNIT_EXPECT_EQ(test, n - 1, allocs + 2);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* An error the HCA found first wins over a transition out of it. */
static void vroce_qp_hca_error_wins(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_mr *mr = qp_reg_mr(test, p, 1, 0, BUF_LEN, QP_ACCESS);
	struct ib_qp_attr attr = { .qp_access_flags = IB_ACCESS_LOCAL_WRITE };
	struct ib_sge src = qp_sge(p, 0, 0, 64);

	/* The responder takes no RDMA WRITE: it fails silently into ERR. */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr,
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, 1, &src, 1,
				      mr->iova, mr->rkey, 0), 0);
	qp_expect_error(test, p, IB_WC_REM_INV_REQ_ERR, IB_WC_SUCCESS);
	attr.qp_access_flags = QP_ACCESS;
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE |
					   IB_QP_ACCESS_FLAGS), -EINVAL);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[1]), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, qp_set_state(p->qp[1], IB_QPS_RESET), 0);
}

/* SQ, RQ and CQ wrap around several times. */
static void vroce_qp_wrap(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 4, 8, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 32);
	struct ib_sge dst = qp_sge(p, 1, 0, 32);
	struct ib_wc wc[2];
	int i;

	for (i = 0; i < 20; i++) {
		*(u32 *)p->buf[0]->va = i;
		KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], i, &dst, 1), 0);
		KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 100 + i,
					      &src, 1, 0, 0, IB_SEND_SIGNALED),
				0);
		KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
		KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, *(u32 *)p->buf[1]->va, i);
	}
}

struct qp_event {
	struct completion done;
	enum ib_event_type type;
};

static void qp_cq_event(struct ib_event *ev, void *ctx)
{
	struct qp_event *e = ctx;

	e->type = ev->event;
	complete(&e->done);
}

/* More CQEs than the CQ holds: reported as a CQ error, not silent. */
static void vroce_qp_cq_overflow(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 4, 7);
	struct qp_event ev;
	int i;

	init_completion(&ev.done);
	p->cq->event_handler = qp_cq_event;
	p->cq->cq_context = &ev;
	/* Six signaled zero-length WRITEs into a CQ of four, not polled. */
	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, i,
					      NULL, 0, 0, 0, IB_SEND_SIGNALED),
				0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ev.done,
							  msecs_to_jiffies(POLL_MS)),
			0);
	KUNIT_EXPECT_EQ(test, ev.type, IB_EVENT_CQ_ERR);
	p->cq->event_handler = NULL;
}

struct qp_drain_wr {
	struct ib_cqe cqe;
	int flushed;
};

static void qp_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct qp_drain_wr *d = container_of(wc->wr_cqe, struct qp_drain_wr,
					     cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		d->flushed++;
}

/* ib_drain_qp() flushes outstanding receives and its own requests. */
static void vroce_qp_drain(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge dst = qp_sge(p, 1, 0, 64);
	struct qp_drain_wr d = { .cqe.done = qp_drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe, .sg_list = &dst,
				 .num_sge = 1 };
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &wr, NULL), 0);
	ib_drain_qp(p->qp[1]);
	KUNIT_EXPECT_EQ(test, d.flushed, 3);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[1]), IB_QPS_ERR);
	/* Still takes work requests, which flush. */
	KUNIT_EXPECT_EQ(test, ib_post_recv(p->qp[1], &wr, NULL), 0);
	for (i = 0; i < POLL_MS && !ib_process_cq_direct(p->cq, 4); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, d.flushed, 4);
	qp_expect_quiet(test, p->cq);
}

struct qp_armed {
	atomic_t calls;
	unsigned long at;
};

static void qp_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct qp_armed *a = ctx;

	a->at = jiffies;
	atomic_inc(&a->calls);
}

static void qp_restore_events(void *data)
{
	vroce_hca_set_event_faults(data, 0, 0);
}

/* Completion events: armed CQs call back once; knobs drop or delay them. */
static void vroce_qp_events(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_cq_init_attr cqa = { .cqe = 64 };
	struct qp_armed armed = { .calls = ATOMIC_INIT(0) };
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_qp *qp, *peer;
	unsigned long start;
	struct ib_wc wc;
	struct ib_cq *cq;

	cq = ib_create_cq(&vdev->ibdev, qp_comp_handler, NULL, &armed, &cqa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_destroy_cq,
							cq), 0);
	qp = qp_create(test, pd, cq, 8);
	peer = qp_create(test, pd, cq, 8);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, qp, peer->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, peer, qp->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_restore_events,
							hca), 0);

	/* Zero-length WRITEs: no memory, no key. Not armed: no call. */
	KUNIT_ASSERT_EQ(test, qp_post(qp, IB_WR_RDMA_WRITE, 1, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&armed.calls), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_ASSERT_EQ(test, qp_post(qp, IB_WR_RDMA_WRITE, 2, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_post(qp, IB_WR_RDMA_WRITE, 3, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&armed.calls), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
	/* A CQE is waiting: arming reports it. */
	KUNIT_EXPECT_GT(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	KUNIT_EXPECT_EQ(test, qp_poll(cq, &wc, 1), 1);

	/* The HCA drops the next event. */
	vroce_hca_set_event_faults(hca, 1, 0);
	atomic_set(&armed.calls, 0);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	KUNIT_ASSERT_EQ(test, qp_post(qp, IB_WR_RDMA_WRITE, 4, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(cq, &wc, 1), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&armed.calls), 0);

	/* ... and delays the one after. */
	vroce_hca_set_event_faults(hca, 0, 100);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	start = jiffies;
	KUNIT_ASSERT_EQ(test, qp_post(qp, IB_WR_RDMA_WRITE, 5, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	msleep(300);
	KUNIT_EXPECT_EQ(test, atomic_read(&armed.calls), 1);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(armed.at - start), 100);
	KUNIT_EXPECT_EQ(test, qp_poll(cq, &wc, 1), 1);
}

/* INIT -> RTR attributes a bad input is then put into. */
static void qp_rtr_attr(struct vroce_dev *vdev, struct ib_qp_attr *attr,
			u32 dest_qpn)
{
	union ib_gid gid;

	memset(attr, 0, sizeof(*attr));
	rdma_query_gid(&vdev->ibdev, 1, 0, &gid);
	attr->qp_state = IB_QPS_RTR;
	attr->path_mtu = IB_MTU_4096;
	attr->dest_qp_num = dest_qpn;
	attr->max_dest_rd_atomic = 1;
	attr->min_rnr_timer = 1;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, 1);
	rdma_ah_set_grh(&attr->ah_attr, &gid, 0, 0, 64, 0);
	ether_addr_copy(attr->ah_attr.roce.dmac, vdev->netdev->dev_addr);
}

#define QP_RTR_MASK	(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | \
			 IB_QP_DEST_QPN | IB_QP_RQ_PSN | \
			 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)

/*
 * Bad inputs to the verbs of the data path, each with its errno: CQ and
 * QP capabilities, QP attributes, and work requests refused at posting.
 */
static void vroce_qp_bad_inputs(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, SZ_8K);
	struct ib_cq *cq = qp_cq(test, vdev, 64, IB_POLL_DIRECT);
	struct ib_cq_init_attr cqa = {};
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_qp *qp, *peer;
	struct ib_sge sge = { .addr = b->dma, .length = 8,
			      .lkey = pd->local_dma_lkey }, sges[8];
	struct ib_send_wr wr = {};
	struct ib_recv_wr rwr = {};
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct ib_mr *mr, *other;
	int i;

	/* create_cq */
	cqa.cqe = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(&vdev->ibdev, NULL, NULL,
						   NULL, &cqa)), -EINVAL);
	cqa.cqe = BIT(vdev->attr.max_cq_depth_log2) + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(&vdev->ibdev, NULL, NULL,
						   NULL, &cqa)), -EINVAL);
	cqa.cqe = 8;
	cqa.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(&vdev->ibdev, NULL, NULL,
						   NULL, &cqa)), -EOPNOTSUPP);

	/*
	 * create_qp: one bad capability or type at a time; then no send CQ,
	 * and zero capabilities, which are valid (a QP that only changes
	 * state) and get the smallest rings.
	 */
	for (i = 0; i < 10; i++) {
		memset(&init, 0, sizeof(init));
		init.qp_type = IB_QPT_RC;
		init.send_cq = cq;
		init.recv_cq = cq;
		init.cap = (struct ib_qp_cap){ .max_send_wr = 4,
			.max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 };
		switch (i) {
		case 0:
			init.cap.max_send_wr = BIT(vdev->attr.max_wq_depth_log2) + 1;
			break;
		case 1:
			init.cap.max_recv_wr = BIT(vdev->attr.max_wq_depth_log2) + 1;
			break;
		case 2:
			init.cap.max_send_sge = VROCE_MAX_SEND_SGE + 1;
			break;
		case 3:
			init.cap.max_recv_sge = VROCE_MAX_RECV_SGE + 1;
			break;
		case 4:
			init.cap.max_inline_data = VROCE_MAX_INLINE + 1;
			break;
		case 5:
			init.qp_type = IB_QPT_RAW_PACKET;
			break;
		case 6:
			init.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
			break;
		case 7:
			init.cap.max_send_wr = U32_MAX;
			break;
		case 8:
			init.send_cq = NULL;
			break;
		case 9:
			memset(&init.cap, 0, sizeof(init.cap));
			break;
		}
		qp = ib_create_qp(pd, &init);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(qp),
				    i == 9 ? 0 : i == 5 || i == 6 ? -EOPNOTSUPP :
				    -EINVAL, "create_qp case %d", i);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
	}

	/* modify_qp: one bad attribute at a time, from INIT to RTR. */
	qp = qp_create(test, pd, cq, 4);
	peer = qp_create(test, pd, cq, 4);
	KUNIT_ASSERT_EQ(test, qp_to_init(qp, QP_ACCESS), 0);
	for (i = 0; i < 11; i++) {
		int mask = QP_RTR_MASK, want = -EINVAL;

		qp_rtr_attr(vdev, &attr, peer->qp_num);
		switch (i) {
		case 0:		/* a remote QPN past 24 bits */
			attr.dest_qp_num = BIT(24);
			want = -EINVAL;
			break;
		case 1:		/* the only P_Key is at index 0 */
			mask |= IB_QP_PKEY_INDEX;
			attr.pkey_index = 1;
			break;
		case 2:		/* a GID index past the table */
			attr.ah_attr.grh.sgid_index = VROCE_GID_TBL_LEN;
			break;
		case 3:		/* an MTU IB does not have */
			attr.path_mtu = IB_MTU_4096 + 1;
			break;
		case 4:		/* an RNR timer code past 31 */
			attr.min_rnr_timer = 32;
			break;
		case 5:		/* more reads in flight than the HCA takes */
			attr.max_dest_rd_atomic = 17;
			break;
		case 6:		/* an address vector without a GRH */
			rdma_ah_set_ah_flags(&attr.ah_attr, 0);
			break;
		case 7:		/* an InfiniBand address vector on a RoCE port */
			attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
			break;
		case 8:		/* an attribute this transition does not take */
			mask |= IB_QP_SQ_PSN;
			break;
		case 9:		/* a transition RC does not have: INIT -> RTS */
			attr.qp_state = IB_QPS_RTS;
			break;
		case 10:	/* access flags no QP has */
			mask |= IB_QP_ACCESS_FLAGS;
			attr.qp_access_flags = IB_ZERO_BASED;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, ib_modify_qp(qp, &attr, mask), want,
				    "modify_qp case %d", i);
		KUNIT_EXPECT_EQ(test, qp_state(qp), IB_QPS_INIT);
	}
	/* RTR -> RTS with retry counts past 7. */
	qp_rtr_attr(vdev, &attr, peer->qp_num);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, QP_RTR_MASK), 0);
	for (i = 0; i < 3; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IB_QPS_RTS;
		attr.timeout = 14;
		attr.retry_cnt = i == 0 ? 8 : 7;
		attr.rnr_retry = i == 1 ? 8 : 7;
		attr.max_rd_atomic = i == 2 ? VROCE_MAX_INIT_RD_ATOMIC + 1 : 1;
		KUNIT_EXPECT_EQ_MSG(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
						       IB_QP_TIMEOUT |
						       IB_QP_RETRY_CNT |
						       IB_QP_RNR_RETRY |
						       IB_QP_SQ_PSN |
						       IB_QP_MAX_QP_RD_ATOMIC),
				    -EINVAL, "RTS case %d", i);
	}
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, peer, qp->qp_num, 7), 0);
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					   IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);

	/* Work requests refused at posting. */
	for (i = 0; i < ARRAY_SIZE(sges); i++)
		sges[i] = sge;
	wr.sg_list = sges;
	wr.num_sge = 1;
	wr.opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP;	/* none masked */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr, NULL), -EINVAL);
	wr.opcode = 0xff;			/* no such opcode */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr, NULL), -EINVAL);
	wr.opcode = IB_WR_SEND;
	wr.num_sge = VROCE_MAX_SEND_SGE + 1;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr, NULL), -EINVAL);
	wr.num_sge = 2;
	wr.send_flags = IB_SEND_INLINE;		/* 72 bytes inline, 64 fit */
	sges[0].addr = (uintptr_t)b->va;	/* inline: kernel addresses */
	sges[1].addr = (uintptr_t)b->va;
	sges[0].length = 64;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr, NULL), -EINVAL);
	sges[0] = sge;
	sges[1] = sge;
	wr.send_flags = 0;
	rwr.sg_list = sges;
	rwr.num_sge = VROCE_MAX_RECV_SGE + 1;
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, NULL), -EINVAL);

	/* REG_MR: bad rights, an MR that is not fast-register, another MR's key. */
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr, mr),
			0);
	other = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr,
							other), 0);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = SZ_8K;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K), 1);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_REMOTE_WRITE;	/* without local write */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, NULL), -EINVAL);
	reg.access = IB_ACCESS_LOCAL_WRITE;
	reg.key = other->rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, NULL), -EINVAL);
	reg.key = mr->rkey;
	reg.mr = pd->__internal_mr;		/* the PD's DMA MR */
	if (reg.mr)
		KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, NULL), -EINVAL);
	reg.mr = other;				/* nothing mapped yet */
	reg.key = other->rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, NULL), -EINVAL);
	qp_expect_quiet(test, cq);

	/*
	 * A REG_MR whose length is past the pages it carries reaches the
	 * HCA, which fails it: an error completion, the QP in ERR.
	 */
	reg.mr = mr;
	reg.key = mr->rkey;
	mr->length = 2 * SZ_4K + 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, &reg.wr, NULL), 0);
	{
		struct ib_wc wc;

		KUNIT_ASSERT_EQ(test, qp_poll(cq, &wc, 1), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	}
	KUNIT_EXPECT_EQ(test, qp_state(qp), IB_QPS_ERR);
}

/* One side of a connection across the wire: an HCA of its own. */
static struct qp_pair *qp_side(struct kunit *test, struct vroce_dev *vdev)
{
	struct qp_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vdev;
	p->pd = vroce_test_pd(test, vdev, 0);
	p->lkey = p->pd->local_dma_lkey;
	p->cq = qp_cq(test, vdev, 64, IB_POLL_DIRECT);
	for (i = 0; i < 2; i++)
		p->buf[i] = vroce_test_kbuf(test, vdev, BUF_LEN);
	p->qp[0] = qp_create(test, p->pd, p->cq, 16);
	return p;
}

/* Issue 34: what the HCA holds of @qpn's path, asserted to exist. */
static struct vroce_hca_qp_path qp_path(struct kunit *test,
					struct vroce_hca *hca, u32 qpn)
{
	struct vroce_hca_qp_path path;

	KUNIT_ASSERT_EQ(test, vroce_hca_qp_path(hca, qpn, &path), 0);
	return path;
}

/* INIT, then RTR with a path to @dgid through GID 0, and RQ PSN 0x123456. */
static int qp_path_rtr(struct ib_qp *qp, union ib_gid *dgid,
		       const u8 *dmac)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = qp->qp_num,
		.rq_psn = 0x123456,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
	};
	int err = qp_to_init(qp, QP_ACCESS);

	if (err)
		return err;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, dgid, 0xabcde, 0, 33, 0x48);
	ether_addr_copy(attr.ah_attr.roce.dmac, dmac);
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			    IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			    IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
}

/*
 * MODIFY_QP with @flags and one field changed by @bad, on the HCA's QP
 * @qpn in RTS, issued as it stands (the driver would not send it).
 */
static int qp_path_raw(struct vroce_dev *vdev, u32 qpn, u8 flags, int bad)
{
	struct vroce_cmd_modify_qp req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_MODIFY_QP),
		.qpn = cpu_to_le32(qpn),
		.state = VROCE_QPS_RTS,
		.flags = flags,
		.retry_cnt = 7,
		.timeout = 14,
		.path_mtu = flags & VROCE_MODIFY_F_PATH ? VROCE_IB_MTU_4096 : 0,
	};
	struct vroce_resp_hdr resp;

	switch (bad) {
	case 1:
		req.path_mtu = 0;
		break;
	case 2:
		req.path_mtu = VROCE_IB_MTU_4096 + 1;
		break;
	case 3:
		req.sgid_index = VROCE_MAX_GID;
		break;
	case 4:
		req.sgid_index = VROCE_MAX_GID - 1;	/* empty */
		break;
	case 5:
		req.sq_psn = cpu_to_le32(BIT(24));
		break;
	case 6:
		req.rq_psn = cpu_to_le32(VROCE_PSN_MASK + 1);
		break;
	case 7:
		req.qkey = cpu_to_le32(VROCE_FLOW_LABEL_MASK + 1);
		break;
	case 8:
		req.max_rd_atomic = VROCE_MAX_RD_ATOMIC + 1;
		break;
	case 9:
		req.max_dest_rd_atomic = VROCE_MAX_RD_ATOMIC + 1;
		break;
	case 10:
		req.rsvd = 1;
		break;
	case 11:
		req.dgid[15] = 1;	/* a part without its flag */
		break;
	case 12:
		req.hop_limit = 64;
		break;
	}
	return vroce_cmdq_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/*
 * Issue 34: MODIFY_QP carries an RC QP's path and PSNs to the HCA
 * (VROCE_CAP_QP_PATH): the source GID copied from the GID table, the
 * rest as ib_modify_qp() gave it; only the parts a modify names change
 * (an RTS to RTS modify moves no PSN); RESET forgets them. Every field
 * out of range, a part given without its flag or to a QP type without it,
 * and an empty GID entry are refused and change nothing. An HCA without
 * the capability refuses the new bytes, and a driver that knows so sends
 * none, the QP then working as before.
 */
static void vroce_qp_path(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	u8 flags = VROCE_MODIFY_F_SQ_PSN | VROCE_MODIFY_F_RQ_PSN |
		   VROCE_MODIFY_F_PATH | VROCE_MODIFY_F_RD_ATOMIC;
	struct qp_pair *a = qp_side(test, vdev);
	struct ib_qp *qp = a->qp[0];
	struct vroce_hca_qp_path path, before;
	union ib_gid sgid, dgid, empty;
	struct ib_qp_attr attr = {};
	u32 caps = vdev->attr.caps;
	int bad;

	KUNIT_ASSERT_TRUE(test, caps & VROCE_CAP_QP_PATH);
	KUNIT_ASSERT_EQ(test, rdma_query_gid(&vdev->ibdev, 1, 0, &sgid), 0);
	KUNIT_ASSERT_NE(test, rdma_query_gid(&vdev->ibdev, 1, VROCE_MAX_GID - 1,
					     &empty), 0);
	memset(&dgid, 0, sizeof(dgid));
	dgid.raw[0] = 0xfe;
	dgid.raw[1] = 0x80;
	dgid.raw[15] = 0x42;
	KUNIT_EXPECT_EQ(test, qp_path(test, hca, qp->qp_num).set, 0);

	KUNIT_ASSERT_EQ(test, qp_path_rtr(qp, &dgid, vdev->netdev->dev_addr),
			0);
	path = qp_path(test, hca, qp->qp_num);
	KUNIT_EXPECT_EQ(test, path.set, VROCE_MODIFY_F_RQ_PSN |
			VROCE_MODIFY_F_PATH | VROCE_MODIFY_F_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, path.mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, path.hop_limit, 33);
	KUNIT_EXPECT_EQ(test, path.tclass, 0x48);
	KUNIT_EXPECT_EQ(test, path.flow_label, 0xabcde);
	KUNIT_EXPECT_EQ(test, memcmp(path.sgid, sgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(path.dgid, dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, path.rq_psn, 0x123456);
	KUNIT_EXPECT_EQ(test, path.sq_psn, 0);
	KUNIT_EXPECT_EQ(test, path.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, path.max_rd_atomic, 0);

	/* A PSN is 24 bits: the low ones count (6.12's core masks too). */
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x1abcdef;
	attr.max_rd_atomic = 2;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_SQ_PSN | IB_QP_TIMEOUT |
					   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
	path = qp_path(test, hca, qp->qp_num);
	KUNIT_EXPECT_EQ(test, path.set, flags);
	KUNIT_EXPECT_EQ(test, path.sq_psn, 0xabcdef);
	KUNIT_EXPECT_EQ(test, path.rq_psn, 0x123456);
	KUNIT_EXPECT_EQ(test, path.max_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, path.max_dest_rd_atomic, 4);

	/* RTS to RTS: the PSNs and the path stay. */
	attr = (struct ib_qp_attr){ .qp_state = IB_QPS_RTS,
				    .min_rnr_timer = 3 };
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_MIN_RNR_TIMER), 0);
	before = qp_path(test, hca, qp->qp_num);
	KUNIT_EXPECT_EQ(test, memcmp(&before, &path, sizeof(path)), 0);

	/* Refused, changing nothing. */
	for (bad = 1; bad <= 12; bad++) {
		KUNIT_EXPECT_EQ_MSG(test, qp_path_raw(vdev, qp->qp_num,
						      bad > 10 ? 0 : flags,
						      bad), -EINVAL,
				    "case %d", bad);
		path = qp_path(test, hca, qp->qp_num);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&before, &path, sizeof(path)),
				    0, "case %d", bad);
	}
	KUNIT_EXPECT_EQ(test, qp_path_raw(vdev, qp->qp_num, BIT(4), 0),
			-EINVAL);
	/* The GSI QP is no connected QP: only a send PSN. */
	KUNIT_EXPECT_EQ(test, qp_path_raw(vdev, 1, VROCE_MODIFY_F_RQ_PSN, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, qp_path_raw(vdev, 1, VROCE_MODIFY_F_PATH, 0),
			-EINVAL);
	/* What ib_mad's move to RTS set, and nothing else. */
	KUNIT_EXPECT_EQ(test, qp_path(test, hca, 1).set, VROCE_MODIFY_F_SQ_PSN);
	/* The same request valid: taken. */
	KUNIT_EXPECT_EQ(test, qp_path_raw(vdev, qp->qp_num, flags, 0), 0);
	path = qp_path(test, hca, qp->qp_num);
	KUNIT_EXPECT_EQ(test, path.mtu, VROCE_IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, path.sq_psn, 0);

	/* RESET forgets it. */
	attr = (struct ib_qp_attr){ .qp_state = IB_QPS_RESET };
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, qp_path(test, hca, qp->qp_num).set, 0);

	/* An HCA before the capability: the new bytes are refused... */
	vroce_hca_set_caps(hca, caps & ~VROCE_CAP_QP_PATH);
	KUNIT_EXPECT_EQ(test, qp_path_rtr(qp, &dgid, vdev->netdev->dev_addr),
			-EINVAL);
	attr = (struct ib_qp_attr){ .qp_state = IB_QPS_RESET };
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	/* ... and a driver that knows sends none: the QP connects. */
	vdev->attr.caps = caps & ~VROCE_CAP_QP_PATH;
	KUNIT_EXPECT_EQ(test, qp_path_rtr(qp, &dgid, vdev->netdev->dev_addr),
			0);
	vdev->attr.caps = caps;
	vroce_hca_set_caps(hca, caps);
	KUNIT_EXPECT_EQ(test, qp_path(test, hca, qp->qp_num).set, 0);
}

/*
 * Two HCAs on the wire, an RC QP on each, each connected to the other's
 * port MAC: SEND, RDMA WRITE and RDMA READ cross between them, the bytes
 * compared, each completion on its own HCA's CQ.
 */
static void vroce_qp_two_hcas(struct kunit *test)
{
	struct vroce_dev *va = vroce_test_dev(test);
	struct vroce_dev *vb = platform_get_drvdata(vroce_test_add_pdev(test));
	struct qp_pair *a, *b;
	struct ib_sge sge, rcv;
	struct ib_wc wc;
	struct ib_mr *mr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, vb);
	KUNIT_EXPECT_FALSE(test, ether_addr_equal(va->netdev->dev_addr,
						  vb->netdev->dev_addr));
	a = qp_side(test, va);
	b = qp_side(test, vb);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(a->qp[0], b->qp[0]->qp_num, 0,
					       vb->netdev->dev_addr, 7,
					       QP_ACCESS), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(b->qp[0], a->qp[0]->qp_num, 0,
					       va->netdev->dev_addr, 7,
					       QP_ACCESS), 0);

	qp_fill(a, 0, 21);
	rcv = qp_sge(b, 1, 0, BUF_LEN);
	KUNIT_ASSERT_EQ(test, qp_post_recv(b->qp[0], 5, &rcv, 1), 0);
	sge = qp_sge(a, 0, 100, 9000);
	KUNIT_ASSERT_EQ(test, qp_post(a->qp[0], IB_WR_SEND, 6, &sge, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, qp_poll(b->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 9000);
	KUNIT_EXPECT_EQ(test, wc.src_qp, a->qp[0]->qp_num);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf[1]->va, a->buf[0]->va + 100, 9000),
			0);

	/* B's MR, registered on B, written and read by A. */
	mr = qp_reg_mr(test, b, 0, 0, BUF_LEN, QP_ACCESS);
	sge = qp_sge(a, 0, 7, 5000);
	KUNIT_ASSERT_EQ(test, qp_post(a->qp[0], IB_WR_RDMA_WRITE, 7, &sge, 1,
				      mr->iova + 3000, mr->rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf[0]->va + 3000, a->buf[0]->va + 7,
				     5000), 0);
	sge = qp_sge(a, 1, 0, 5000);
	KUNIT_ASSERT_EQ(test, qp_post(a->qp[0], IB_WR_RDMA_READ, 8, &sge, 1,
				      mr->iova + 3000, mr->rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 5000);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf[1]->va, a->buf[0]->va + 7, 5000),
			0);
	/*
	 * A's key is not B's: an MR of A open to remote writes, named as
	 * the rkey, is looked up in B's table, not found, and B's QP fails.
	 */
	mr = qp_reg_mr(test, a, 0, 0, BUF_LEN, QP_ACCESS);
	KUNIT_ASSERT_EQ(test, qp_post(a->qp[0], IB_WR_RDMA_WRITE, 9, &sge, 1,
				      mr->iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);
	for (i = 0; i < 100 && qp_state(b->qp[0]) != IB_QPS_ERR; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, qp_state(b->qp[0]), IB_QPS_ERR);
}

/*
 * A peer no port on the wire has: the request is retried after the ack
 * timeout (code 14, 67 ms) retry_cnt (7) times, then fails with
 * RETRY_EXC_ERR: not before 7 timeouts, and not after many more.
 */
static void vroce_qp_no_peer(struct kunit *test)
{
	static const u8 nobody[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct qp_pair *p = qp_pair(test, 4, 16, 7);
	struct ib_sge sge = qp_sge(p, 0, 0, 64);
	unsigned long start;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qp_set_state(p->qp[0], IB_QPS_RESET), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[0], p->qp[1]->qp_num, 0,
					       nobody, 7, QP_ACCESS), 0);
	start = jiffies;
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 1, &sge, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), 7 * 67);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - start), 12 * 67 + 200);
}

static void qp_release_hold(void *data)
{
	vroce_hca_hold_qp(data, 0);
}

/*
 * Each QP has an engine of its own: while one QP's is held before its next
 * send WQE, the other QP of the pair sends, and its message is received by
 * the held QP, whose receive queue is not held.
 */
static void vroce_qp_engines_apart(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_sge r0 = qp_sge(p, 0, 0, 256), r1 = qp_sge(p, 1, 0, 256);
	struct ib_sge s0 = qp_sge(p, 0, 4096, 64), s1 = qp_sge(p, 1, 4096, 64);

	qp_fill(p, 0, 5);
	qp_fill(p, 1, 6);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[0], 10, &r0, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 11, &r1, 1), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_release_hold,
							hca), 0);
	vroce_hca_hold_qp(hca, p->qp[0]->qp_num);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 20, &s0, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[1], IB_WR_SEND, 21, &s1, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);

	/* qp[1]'s send and qp[0]'s receive of it; qp[0]'s send waits. */
	qp_expect_two(test, p->cq, 10, 21);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[0]->va, p->buf[1]->va + 4096, 64),
			0);
	qp_expect_quiet(test, p->cq);

	vroce_hca_hold_qp(hca, 0);
	qp_expect_two(test, p->cq, 11, 20);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1]->va, p->buf[0]->va + 4096, 64),
			0);
}

#define QP_MANY		8	/* pairs */
#define QP_MANY_MSGS	32	/* SENDs each way */

/*
 * Eight pairs send at once, both ways: the engines of sixteen QPs take
 * each other's receive queues and write their pair's one CQ side by side.
 * Every message lands whole, once, in order.
 */
static void vroce_qp_many_engines(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_wc *wc = kunit_kcalloc(test, 64, sizeof(*wc), GFP_KERNEL);
	u32 want = QP_MANY * 2 * QP_MANY_MSGS * 2, got = 0, recvs = 0;
	struct qp_pair *p[QP_MANY];
	u32 next[QP_MANY][2] = {};
	unsigned long deadline;
	struct ib_sge sge;
	int i, j, k, side, n;
	u8 *dst, *src;

	KUNIT_ASSERT_NOT_NULL(test, wc);
	for (i = 0; i < QP_MANY; i++) {
		p[i] = qp_pair_on(test, vdev, 2 * QP_MANY_MSGS, 1024, 7);
		qp_fill(p[i], 0, 2 * i);
		qp_fill(p[i], 1, 2 * i + 1);
	}
	/* Receives: message k into slot k of 64 bytes, at offset 8 KiB. */
	for (k = 0; k < QP_MANY_MSGS; k++)
		for (i = 0; i < QP_MANY; i++)
			for (side = 0; side < 2; side++) {
				sge = qp_sge(p[i], side, 8192 + k * 64, 64);
				KUNIT_ASSERT_EQ(test,
						qp_post_recv(p[i]->qp[side],
							     k, &sge, 1), 0);
			}
	/* Sends: message k is 64 bytes from offset k * 64. */
	for (k = 0; k < QP_MANY_MSGS; k++)
		for (i = 0; i < QP_MANY; i++)
			for (side = 0; side < 2; side++) {
				sge = qp_sge(p[i], side, k * 64, 64);
				KUNIT_ASSERT_EQ(test,
						qp_post(p[i]->qp[side],
							IB_WR_SEND, 1000 + k,
							&sge, 1, 0, 0,
							IB_SEND_SIGNALED), 0);
			}

	deadline = jiffies + msecs_to_jiffies(10 * POLL_MS);
	while (got < want && time_before(jiffies, deadline)) {
		for (i = 0; i < QP_MANY; i++) {
			n = ib_poll_cq(p[i]->cq, 64, wc);
			KUNIT_ASSERT_GE(test, n, 0);
			for (j = 0; j < n; j++) {
				KUNIT_EXPECT_EQ(test, wc[j].status,
						IB_WC_SUCCESS);
				if (wc[j].opcode != IB_WC_RECV)
					continue;
				recvs++;
				side = wc[j].qp == p[i]->qp[1];
				/* Each QP's receives complete in order. */
				KUNIT_EXPECT_EQ(test, wc[j].wr_id,
						next[i][side]++);
			}
			got += n;
		}
		usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_EQ(test, got, want);
	KUNIT_EXPECT_EQ(test, recvs, want / 2);
	for (i = 0; i < QP_MANY; i++)
		for (side = 0; side < 2; side++) {
			dst = p[i]->buf[side]->va + 8192;
			src = p[i]->buf[!side]->va;
			KUNIT_EXPECT_EQ(test, memcmp(dst, src,
						     QP_MANY_MSGS * 64), 0);
		}
}

/*
 * A QP number given again. QP a is destroyed from a completion handler
 * while an event of a's (QP_FATAL) is still in the event queue behind the
 * one that called the handler; the handler then creates b. With every
 * other number taken, a's is the only one b could get: b must not get it
 * while a's event can still arrive, and no event of a's may reach b or
 * the QP created with a's number after the queue was drained.
 */
struct qp_reuse {
	struct ib_pd *pd;
	struct ib_cq *cq;	/* a's, b's and c's CQ */
	struct ib_sge sge;	/* 64 bytes of a buffer in @pd */
	struct ib_qp *a, *b, *c;
	int b_err;
	atomic_t events;	/* events of b and c */
};

/* A PD, a buffer in it, and a CQ polled directly, on @vdev. */
static struct qp_reuse *qp_reuse_setup(struct kunit *test,
				       struct vroce_dev *vdev)
{
	struct qp_reuse *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct vroce_test_kbuf *buf;

	KUNIT_ASSERT_NOT_NULL(test, r);
	atomic_set(&r->events, 0);
	r->pd = vroce_test_pd(test, vdev, 0);
	buf = vroce_test_kbuf(test, vdev, SZ_4K);
	r->sge = (struct ib_sge){ .addr = buf->dma, .length = 64,
				  .lkey = r->pd->local_dma_lkey };
	r->cq = qp_cq(test, vdev, 64, IB_POLL_DIRECT);
	return r;
}

static void qp_reuse_event(struct ib_event *ev, void *ctx)
{
	struct qp_reuse *r = ctx;

	atomic_inc(&r->events);
}

static struct ib_qp *qp_reuse_create(struct qp_reuse *r)
{
	struct ib_qp_init_attr init = {
		.event_handler = qp_reuse_event,
		.qp_context = r,
		.qp_type = IB_QPT_RC,
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ib_create_qp(r->pd, &init);
}

/* The handler of the CQ whose event comes first: destroy a, create b. */
static void qp_reuse_handler(struct ib_cq *cq, void *ctx)
{
	struct qp_reuse *r = ctx;
	struct ib_qp *b;

	if (!r->a)
		return;
	ib_destroy_qp(r->a);
	r->a = NULL;
	b = qp_reuse_create(r);
	if (IS_ERR(b))
		r->b_err = PTR_ERR(b);
	else
		r->b = b;
}

static void qp_reuse_cleanup(void *data)
{
	struct qp_reuse *r = data;

	if (r->c)
		ib_destroy_qp(r->c);
	if (r->b)
		ib_destroy_qp(r->b);
	if (r->a)
		ib_destroy_qp(r->a);
}

static void qp_unmask_events(void *data)
{
	struct vroce_dev *vdev = data;

	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_EQ, false);
	vroce_eq_irq(vdev);
}

#define QP_FILL_MAX	(VROCE_MAX_QP + 1)

static void vroce_qp_reused_number_events(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_cq_init_attr cqa = { .cqe = 16 };
	struct qp_reuse *r = qp_reuse_setup(test, vdev);
	struct ib_qp *peer, *x0, *x1, **fill;
	struct ib_cq *cq_x;
	struct ib_wc wc;
	int nfill = 0;
	u32 a_num;

	fill = kunit_kcalloc(test, QP_FILL_MAX, sizeof(*fill), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fill);
	cq_x = ib_create_cq(&vdev->ibdev, qp_reuse_handler, NULL, r, &cqa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq_x);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_destroy_cq,
							cq_x), 0);
	r->a = qp_reuse_create(r);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->a);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_reuse_cleanup,
							r), 0);
	a_num = r->a->qp_num;
	peer = qp_create(test, r->pd, r->cq, 4);
	x0 = qp_create(test, r->pd, cq_x, 4);
	x1 = qp_create(test, r->pd, cq_x, 4);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, r->a, peer->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, peer, a_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, x0, x1->qp_num, 7), 0);
	KUNIT_ASSERT_EQ(test, qp_connect(vdev, x1, x0->qp_num, 7), 0);
	/* Every other QP number taken. */
	while (nfill < QP_FILL_MAX) {
		struct ib_qp *q = qp_reuse_create(r);

		if (IS_ERR(q)) {
			KUNIT_ASSERT_EQ(test, PTR_ERR(q), -ENOMEM);
			break;
		}
		fill[nfill] = q;
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								qp_destroy, q),
				0);
		nfill++;
	}
	KUNIT_ASSERT_LT(test, nfill, QP_FILL_MAX);
	kunit_info(test, "%d more QPs fill the HCA", nfill);

	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_EQ, true);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_unmask_events,
							vdev), 0);
	/* First a completion event of cq_x ... */
	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq_x, IB_CQ_NEXT_COMP), 0);
	KUNIT_ASSERT_EQ(test, qp_post(x0, IB_WR_RDMA_WRITE, 1, NULL, 0, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(cq_x, &wc, 1), 1);
	/* ... then a's QP_FATAL: a WRITE to it under a key of no MR. */
	KUNIT_ASSERT_EQ(test, qp_post(peer, IB_WR_RDMA_WRITE, 2, &r->sge, 1,
				      0x10000, 0x00dead00, 0), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(r->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);

	/* The handler runs in this thread, the QP_FATAL after it. */
	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_EQ, false);
	vroce_eq_irq(vdev);
	KUNIT_EXPECT_NULL(test, r->a);
	if (r->b) {
		kunit_info(test, "b got number %u, a had %u", r->b->qp_num,
			   a_num);
		KUNIT_EXPECT_NE(test, r->b->qp_num, a_num);
		KUNIT_EXPECT_EQ(test, qp_state(r->b), IB_QPS_RESET);
	} else {
		KUNIT_EXPECT_EQ(test, r->b_err, -ENOMEM);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&r->events), 0);

	/* The queue drained, a's number is free again, and stays quiet. */
	if (!r->b) {
		r->c = qp_reuse_create(r);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->c);
		KUNIT_EXPECT_EQ(test, r->c->qp_num, a_num);
		vroce_eq_irq(vdev);
		KUNIT_EXPECT_EQ(test, qp_state(r->c), IB_QPS_RESET);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->events), 0);
	}
}

struct qp_destroyer {
	struct work_struct work;
	struct ib_qp *qp;
	int err;
};

static void qp_destroyer_fn(struct work_struct *work)
{
	struct qp_destroyer *d = container_of(work, struct qp_destroyer, work);

	d->err = ib_destroy_qp(d->qp);
}

/*
 * A's DESTROY_QP is carried out but its completion lost: while a's
 * destroy waits for it, a's CQ still holds a's flush completions. A QP
 * created meanwhile on that CQ must not be named by them, nor have its
 * receive queue retired or its state moved by them.
 */
static void vroce_qp_reused_number_completions(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct qp_reuse *r = qp_reuse_setup(test, vdev);
	struct qp_destroyer *d;
	struct ib_wc wc[8];
	struct ib_qp *b;
	u32 a_num;
	int i, n;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->qp = qp_create(test, r->pd, r->cq, 4);
	/* Its cleanup action goes with this test's own destroy below. */
	kunit_remove_action(test, qp_destroy, d->qp);
	a_num = d->qp->qp_num;
	KUNIT_ASSERT_EQ(test, qp_to_init(d->qp, QP_ACCESS), 0);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, qp_post_recv(d->qp, 10 + i, &r->sge, 1),
				0);
	/* Four flush completions of a on the CQ, not polled. */
	KUNIT_ASSERT_EQ(test, qp_set_state(d->qp, IB_QPS_ERR), 0);
	msleep(50);

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 1000);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_DESTROY_QP);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	INIT_WORK(&d->work, qp_destroyer_fn);
	queue_work(system_unbound_wq, &d->work);
	msleep(200);	/* DESTROY_QP carried out, its completion awaited */

	/* Numbers are given in turn: start the search at a's. */
	vdev->qpn_next = a_num;
	b = qp_create(test, r->pd, r->cq, 4);
	KUNIT_ASSERT_EQ(test, qp_to_init(b, QP_ACCESS), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(b, 99, &r->sge, 1), 0);
	kunit_info(test, "b got number %u, a had %u", b->qp_num, a_num);
	n = ib_poll_cq(r->cq, ARRAY_SIZE(wc), wc);
	KUNIT_EXPECT_GE(test, n, 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_NE(test, wc[i].qp, b);
	KUNIT_EXPECT_EQ(test, qp_state(b), IB_QPS_INIT);
	flush_work(&d->work);
	KUNIT_EXPECT_EQ(test, d->err, 0);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_hca_set_fault_opcode(hca, 0);
	/* b's receive is still posted: flushing b completes it, named b. */
	KUNIT_ASSERT_EQ(test, qp_set_state(b, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(r->cq, wc, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, b);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 99);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
}

/* ---- a device that stops answering ---- */

struct dead_watch {
	struct ib_event_handler h;
	atomic_t fatal;
	atomic_t other;
};

static void dead_event(struct ib_event_handler *h, struct ib_event *ev)
{
	struct dead_watch *w = container_of(h, struct dead_watch, h);

	atomic_inc(ev->event == IB_EVENT_DEVICE_FATAL ? &w->fatal : &w->other);
}

static void dead_unwatch(void *data)
{
	ib_unregister_event_handler(data);
}

/* Count the device events of @vdev from now on. */
static struct dead_watch *dead_watch(struct kunit *test, struct vroce_dev *vdev)
{
	struct dead_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	INIT_IB_EVENT_HANDLER(&w->h, &vdev->ibdev, dead_event);
	ib_register_event_handler(&w->h);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dead_unwatch,
							&w->h), 0);
	return w;
}

/* Wait up to @ms for the device's IB_EVENT_DEVICE_FATAL. */
static bool dead_wait_fatal(struct dead_watch *w, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	while (!atomic_read(&w->fatal) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	return atomic_read(&w->fatal) == 1;
}

static void dead_restore_poll(void *data)
{
	vroce_health_poll_ms = (uintptr_t)data;
}

static void dead_poll_ms(struct kunit *test, unsigned int ms)
{
	void *old = (void *)(uintptr_t)vroce_health_poll_ms;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dead_restore_poll,
							old), 0);
	vroce_health_poll_ms = ms;
}

/*
 * The HCA hangs mid-traffic, with MRs (kernel and user), a pair of
 * connected QPs with writes and receives outstanding, and a second pair
 * on a CQ driven by the core's work queue. The first command after it
 * (a PD) is late; the heartbeat stands still: the device is dead. That
 * command and every later one fail with -EIO (the later ones at once),
 * the core's clients get IB_EVENT_DEVICE_FATAL once, every work request
 * completes (the ones the HCA never did with IB_WC_WR_FLUSH_ERR, named by
 * their own QP, each once), every QP is in ERR, new work requests still
 * flush, modify_qp to ERR and RESET works (to INIT fails), ib_drain_qp()
 * returns, and MRs deregister with nothing parked.
 */
static void vroce_dead_hang_mid_traffic(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct vroce_dev *vdev = p->vdev;
	struct vroce_hca *hca = vroce_test_hca(test);
	struct dead_watch *w = dead_watch(test, vdev);
	unsigned long uaddr = vroce_test_user_mem(test, 8 * SZ_4K, 3);
	struct qp_drain_wr d = { .cqe.done = qp_drain_done };
	struct ib_sge src = qp_sge(p, 0, 0, 512), dst = qp_sge(p, 1, 0, 512);
	struct ib_recv_wr rwr = { .wr_cqe = &d.cqe, .sg_list = &dst,
				  .num_sge = 1 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_mr *rmr, *umr, *fmr;
	struct ib_wc *wc = kunit_kcalloc(test, 16, sizeof(*wc), GFP_KERNEL);
	struct ib_qp *wq_qp[2];
	unsigned long start;
	u64 seen = 0;
	struct ib_cq *wq_cq;
	int i, n, got;

	KUNIT_ASSERT_NOT_NULL(test, wc);
	dead_poll_ms(test, 0);
	vroce_test_cmd_timeout(test, vdev, 200);
	rmr = qp_reg_mr(test, p, 1, 0, BUF_LEN, QP_ACCESS);
	umr = ib_reg_user_mr(p->pd, uaddr, 8 * SZ_4K, uaddr,
			     IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, umr);
	fmr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fmr);
	wq_cq = qp_cq(test, vdev, 16, IB_POLL_WORKQUEUE);
	for (i = 0; i < 2; i++)
		wq_qp[i] = qp_create(test, p->pd, wq_cq, 8);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, qp_connect(vdev, wq_qp[i],
						 wq_qp[!i]->qp_num, 7), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, ib_post_recv(wq_qp[1], &rwr, NULL), 0);

	/* Traffic: 8 writes, 4 receives nobody sends to; then it hangs. */
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 100 + i, &dst, 1),
				0);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_RDMA_WRITE, i,
					      &src, 1, rmr->iova, rmr->rkey,
					      IB_SEND_SIGNALED), 0);
	vroce_hca_set_health(hca, true, false);

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_pd(&vdev->ibdev, 0)), -EIO);
	KUNIT_EXPECT_TRUE(test, vroce_dev_dead(vdev));
	KUNIT_EXPECT_TRUE(test, dead_wait_fatal(w, 2000));
	KUNIT_EXPECT_EQ(test, atomic_read(&w->other), 0);
	start = jiffies;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_pd(&vdev->ibdev, 0)), -EIO);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 8)),
			-EIO);
	KUNIT_EXPECT_LE(test, jiffies_to_msecs(jiffies - start), 20);

	/* 12 completions, each work request once, each named by its QP. */
	got = qp_poll(p->cq, wc, 12);
	KUNIT_EXPECT_EQ(test, got, 12);
	for (n = 0; n < got; n++) {
		bool rq = wc[n].wr_id >= 100;

		KUNIT_EXPECT_PTR_EQ(test, wc[n].qp, p->qp[rq]);
		KUNIT_EXPECT_TRUE(test,
				  wc[n].status == IB_WC_SUCCESS ||
				  wc[n].status == IB_WC_WR_FLUSH_ERR);
		/* Receives nobody sent to can only flush. */
		if (rq)
			KUNIT_EXPECT_EQ(test, wc[n].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_FALSE(test, seen & BIT_ULL(wc[n].wr_id % 64));
		seen |= BIT_ULL(wc[n].wr_id % 64);
	}
	qp_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, qp_state(p->qp[0]), IB_QPS_ERR);

	/* Posting still works; what is posted flushes. */
	KUNIT_EXPECT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 77, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 77);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, qp_to_init(p->qp[1], QP_ACCESS), -EIO);

	/* The work queue's CQ: its handler runs, the drain returns. */
	ib_drain_qp(wq_qp[1]);
	KUNIT_EXPECT_EQ(test, d.flushed, 3);

	/* MRs go, and their memory with them: nothing is parked. */
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(umr), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(fmr), 0);
	mutex_lock(&vdev->zombie_lock);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->ring_zombies));
	mutex_unlock(&vdev->zombie_lock);
}

/*
 * Destroys on a hung HCA: each waits for its command's deadline at most
 * once, then the device is dead and they complete in software, after the
 * reset: nothing is parked, and everything made since the test began is
 * freed (memory included) once the test's objects are gone.
 */
static void vroce_dead_destroys_finish(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	unsigned long uaddr = vroce_test_user_mem(test, 4 * SZ_4K, 5);
	struct ib_mr *umr, *fmr;
	struct ib_cq *cq;
	struct ib_pd *pd;
	unsigned long start;

	dead_poll_ms(test, 0);
	vroce_test_cmd_timeout(test, vdev, 200);
	pd = ib_alloc_pd(&vdev->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	umr = ib_reg_user_mr(pd, uaddr, 4 * SZ_4K, uaddr, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, umr);
	fmr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fmr);
	cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);

	vroce_hca_set_health(hca, true, false);
	start = jiffies;
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(umr), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(fmr), 0);
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
	/* One deadline (200 ms) and the heartbeat's look, not four. */
	KUNIT_EXPECT_LE(test, jiffies_to_msecs(jiffies - start), 600);
	KUNIT_EXPECT_TRUE(test, vroce_dev_dead(vdev));
	mutex_lock(&vdev->zombie_lock);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->ring_zombies));
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->pd_zombies));
	mutex_unlock(&vdev->zombie_lock);
	/* The dead device's cache kept nothing either: no drain needed. */
	KUNIT_EXPECT_FALSE(test, vdev->mr_cache.have_pd);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * No command needed: the health poll finds a heartbeat that stands still,
 * or an HCA that reports a fatal error, and the device dies; a fatal
 * error is seen at a command's first look, without waiting for a beat.
 */
static void vroce_dead_health_poll(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct dead_watch *w = dead_watch(test, vdev);
	struct vroce_dev_attr attr;

	dead_poll_ms(test, 100);
	/* Alive and idle: the poll leaves it be. */
	msleep(500);
	KUNIT_EXPECT_FALSE(test, vroce_dev_dead(vdev));
	vroce_hca_set_health(hca, true, false);
	KUNIT_EXPECT_TRUE(test, dead_wait_fatal(w, 2000));
	KUNIT_EXPECT_TRUE(test, vroce_dev_dead(vdev));
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -EIO);

	vdev = vroce_test_dev(test);
	hca = vroce_test_hca(test);
	w = dead_watch(test, vdev);
	vroce_hca_set_health(hca, false, true);
	KUNIT_EXPECT_TRUE(test, dead_wait_fatal(w, 2000));
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -EIO);
}

/* A fatal error met by a command: -EIO at its deadline, no beat's wait. */
static void vroce_dead_fatal_command(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct dead_watch *w = dead_watch(test, vdev);
	struct vroce_dev_attr attr;

	dead_poll_ms(test, 0);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_health(hca, false, true);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -EIO);
	KUNIT_EXPECT_TRUE(test, dead_wait_fatal(w, 2000));
	/* A late command on a live HCA is only late. */
	vdev = vroce_test_dev(test);
	hca = vroce_test_hca(test);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 0, 300);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, vroce_dev_dead(vdev));
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	msleep(300);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), 0);
}

/* A destroy the HCA would refuse: a PD number no PD has. */
static int dead_destroy_fn(void *data)
{
	struct vroce_test_busy *c = data;

	c->err = vroce_cmd_destroy_pd(c->vdev, 1000);
	complete(&c->done);
	return 0;
}

/*
 * Nothing completes in software before the HCA is reset: until then it
 * may still finish what it was doing, and a work request flushed to its
 * consumer must never be written or completed after. The ring is full of
 * commands the HCA takes 1.5 s each for (the timeout 100 ms), a destroy
 * waits for a slot; once it found the HCA stuck the device is dead, but
 * the reset waits for the command in flight: meanwhile a posted receive
 * does not flush. After the reset it does.
 */
static void vroce_dead_flush_after_reset(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct vroce_dev *vdev = p->vdev;
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_sge dst = qp_sge(p, 1, 0, 64);
	struct vroce_test_busy *b, *destroy = kunit_kzalloc(test,
							      sizeof(*destroy),
							      GFP_KERNEL);
	unsigned long deadline;
	struct ib_wc wc;
	bool windowed;

	KUNIT_ASSERT_NOT_NULL(test, destroy);
	destroy->vdev = vdev;
	dead_poll_ms(test, 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 5, &dst, 1), 0);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 0, 1500);
	/* The ring full first, then the destroy. */
	b = vroce_test_fill_ring(test, vdev);
	init_completion(&destroy->done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(dead_destroy_fn, destroy,
						    "vroce_dead_destroy")));
	deadline = jiffies + msecs_to_jiffies(3000);
	while (!READ_ONCE(vdev->cmdq.dead) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(vdev->cmdq.dead));
	windowed = !completion_done(&vdev->cmdq.reset_done);
	if (windowed) {
		KUNIT_EXPECT_FALSE(test, vroce_dev_dead(vdev));
		KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
	}
	kunit_info(test, "polled between death and reset: %s",
		   windowed ? "yes" : "no (missed the window)");
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_ring_wait(vdev, b);
	wait_for_completion(&destroy->done);
	KUNIT_EXPECT_EQ(test, destroy->err, 0);
	KUNIT_EXPECT_TRUE(test, vroce_dev_dead(vdev));
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 5);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
}

/* ---- issue 33: on-demand paging MRs under traffic ---- */

#define ODP_ACCESS	(QP_ACCESS | IB_ACCESS_ON_DEMAND | \
			 IB_ACCESS_REMOTE_ATOMIC)

/* The page faults @vdev's HCA raised so far. */
static u64 odp_faults(struct kunit *test, struct vroce_dev *vdev)
{
	u64 v[VROCE_CNT_NUM];

	KUNIT_ASSERT_EQ(test, vroce_cmd_query_counters(vdev, v), 0);
	return v[VROCE_CNT_PAGE_FAULTS];
}

/* An ODP MR over user memory, deregistered when the test ends. */
static struct ib_mr *odp_mr(struct kunit *test, struct qp_pair *p, u64 start,
			    u64 len, u64 iova)
{
	struct ib_mr *mr = ib_reg_user_mr(p->pd, start, len, iova, ODP_ACCESS);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr, mr),
			0);
	return mr;
}

/* Post one signaled work request and return its completion's status. */
static enum ib_wc_status odp_one(struct kunit *test, struct qp_pair *p,
				 enum ib_wr_opcode op, struct ib_sge *sge,
				 u64 raddr, u32 rkey)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], op, op, sge, 1, raddr, rkey,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, op);
	return wc.status;
}

/*
 * An ODP MR pins nothing and moves bytes every way: the HCA faults on
 * the first touch at the responder (WRITE, READ, an atomic) and at the
 * requester (SEND from its lkey), the driver maps the pages and the work
 * request runs again; pages once present fault no more.
 */
static void vroce_odp_qp_moves_bytes(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long uaddr = vroce_test_user_mem(test, 40 * SZ_4K, 9);
	u64 start = uaddr + 123, iova = 0x6600000000ULL + 123, before, sum;
	u32 len = 3 * SZ_4K;
	struct ib_sge src = qp_sge(p, 0, 0, len);
	struct ib_sge dst = qp_sge(p, 1, 0, len);
	struct ib_sge res = qp_sge(p, 0, 0, 8);
	u8 *got = kunit_kzalloc(test, len, GFP_KERNEL);
	/* ON_DEMAND among a QP's flags is taken (pyverbs sets it). */
	struct ib_qp_attr qattr = {
		.qp_access_flags = QP_ACCESS | IB_ACCESS_REMOTE_ATOMIC |
				   IB_ACCESS_ON_DEMAND,
	};
	struct ib_atomic_wr awr;
	struct ib_sge usge;
	struct ib_wc wc[2];
	struct ib_mr *mr;

	KUNIT_ASSERT_NOT_NULL(test, got);
	before = odp_faults(test, p->vdev);
	mr = odp_mr(test, p, start, 39 * SZ_4K, iova);
	KUNIT_EXPECT_EQ(test, odp_faults(test, p->vdev), before);

	/* WRITE into pages never touched by the HCA: a fault, then bytes. */
	qp_fill(p, 0, 21);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, iova,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_EXPECT_GT(test, odp_faults(test, p->vdev), before);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)start, len),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, len);

	/* Present now: READ them back, no fault more. */
	before = odp_faults(test, p->vdev);
	memset(p->buf[0]->va, 0, len);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_READ, &src, iova,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, p->buf[0]->va, got, len);
	KUNIT_EXPECT_EQ(test, odp_faults(test, p->vdev), before);

	/* SEND from pages far in the MR (its lkey): the requester faults. */
	usge = (struct ib_sge){ .addr = iova + 30 * SZ_4K, .length = len,
				.lkey = mr->lkey };
	KUNIT_ASSERT_EQ(test, copy_from_user(got,
					     (void __user *)start + 30 * SZ_4K,
					     len), 0);
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 3, &dst, 1), 0);
	KUNIT_ASSERT_EQ(test, qp_post(p->qp[0], IB_WR_SEND, 4, &usge, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, p->buf[1]->va, got, len);
	KUNIT_EXPECT_GT(test, odp_faults(test, p->vdev), before);

	/* An atomic at a page not present: it runs once, after the fault. */
	if (!(p->vdev->attr.caps & VROCE_CAP_ATOMIC))
		return;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &qattr,
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(&sum,
					     (void __user *)uaddr + 20 * SZ_4K,
					     8), 0);
	awr = (struct ib_atomic_wr) {
		.wr = { .wr_id = 5, .opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
			.sg_list = &res, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = iova - 123 + 20 * SZ_4K,
		.compare_add = 5, .rkey = mr->rkey,
	};
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &awr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, qp_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, *(u64 *)p->buf[0]->va, sum);
	KUNIT_ASSERT_EQ(test, copy_from_user(got,
					     (void __user *)uaddr + 20 * SZ_4K,
					     8), 0);
	KUNIT_EXPECT_EQ(test, *(u64 *)got, sum + 5);
}

/*
 * munmap under a live ODP MR and a new mapping at the same address: the
 * HCA writes the new page, never the old one (kept here by a pin of the
 * test's own); with nothing mapped, the access fails as a remote access
 * error, and a SEND from there as a local protection error.
 */
static void vroce_odp_qp_remap(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long uaddr = vroce_test_user_mem(test, 4 * SZ_4K, 9), page;
	struct ib_sge src = qp_sge(p, 0, 0, SZ_4K);
	u8 *got = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	struct page *old;
	struct ib_mr *mr;
	u8 *va;

	KUNIT_ASSERT_NOT_NULL(test, got);
	mr = odp_mr(test, p, uaddr, 4 * SZ_4K, uaddr);
	page = uaddr + SZ_4K;
	qp_fill(p, 0, 31);
	KUNIT_ASSERT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, page,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, pin_user_pages_fast(page, 1, FOLL_WRITE, &old),
			1);
	va = kmap_local_page(old);
	KUNIT_EXPECT_MEMEQ(test, va, p->buf[0]->va, SZ_4K);

	/* Gone and mapped anew (zeroes): the WRITE lands in the new page. */
	KUNIT_ASSERT_EQ(test, vm_munmap(page, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, kunit_vm_mmap(test, NULL, page, SZ_4K,
					    PROT_READ | PROT_WRITE,
					    MAP_ANONYMOUS | MAP_PRIVATE |
					    MAP_FIXED, 0), page);
	qp_fill(p, 0, 32);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, page,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)page, SZ_4K),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, SZ_4K);
	/* The old page kept what the first WRITE put there. */
	vroce_test_fill(got, SZ_4K, 31);
	KUNIT_EXPECT_MEMEQ(test, va, got, SZ_4K);
	kunmap_local(va);
	unpin_user_page(old);

	/* Nothing mapped there: the responder's access fails. */
	KUNIT_ASSERT_EQ(test, vm_munmap(page, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, page,
				      mr->rkey), IB_WC_REM_ACCESS_ERR);
}

/* A SEND from an ODP lkey over memory not mapped: LOC_PROT_ERR. */
static void vroce_odp_qp_local_unmapped(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long uaddr = vroce_test_user_mem(test, 2 * SZ_4K, 9);
	struct ib_sge dst = qp_sge(p, 1, 0, SZ_4K);
	struct ib_sge usge;
	struct ib_mr *mr;

	mr = odp_mr(test, p, uaddr, 2 * SZ_4K, uaddr);
	KUNIT_ASSERT_EQ(test, vm_munmap(uaddr + SZ_4K, SZ_4K), 0);
	usge = (struct ib_sge){ .addr = uaddr + SZ_4K, .length = 64,
				.lkey = mr->lkey };
	KUNIT_ASSERT_EQ(test, qp_post_recv(p->qp[1], 3, &dst, 1), 0);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_SEND, &usge, 0, 0),
			IB_WC_LOC_PROT_ERR);
}

/*
 * Registration pins nothing: 1 GiB of address space that is not even
 * accessible registers at once (a pinned MR fails there), and an access
 * to it fails as the memory does.
 */
static void vroce_odp_qp_no_pinning(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	struct ib_sge src = qp_sge(p, 0, 0, 64);
	struct ib_mr *mr, *again;
	unsigned long base;

	base = kunit_vm_mmap(test, NULL, 0, SZ_1G, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_NORESERVE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(base));
	KUNIT_EXPECT_TRUE(test, IS_ERR(ib_reg_user_mr(p->pd, base, SZ_1G, base,
						      QP_ACCESS)));
	mr = odp_mr(test, p, base, SZ_1G, base);
	KUNIT_EXPECT_EQ(test, mr->length, SZ_1G);
	/* Not changed in place: deregister and register again. */
	again = mr->device->ops.rereg_user_mr(mr, IB_MR_REREG_ACCESS, 0, 0, 0,
					      QP_ACCESS, NULL, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(again), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src,
				      base + SZ_512M, mr->rkey),
			IB_WC_REM_ACCESS_ERR);
}

/*
 * A message across the end of a 2 MiB chunk of the MR's pages (each chunk
 * has its own umem and notifier): both chunks fault in and take the
 * bytes; a munmap and a new mapping in the second leaves the first alone.
 */
static void vroce_odp_qp_chunks(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long uaddr = kunit_vm_mmap(test, NULL, 0, SZ_4M + SZ_4K,
					    PROT_READ | PROT_WRITE,
					    MAP_ANONYMOUS | MAP_PRIVATE, 0);
	u64 start = uaddr + 123, at = start + SZ_2M - 2 * SZ_4K;
	struct ib_sge src = qp_sge(p, 0, 0, BUF_LEN);
	u8 *got = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct ib_mr *mr;

	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(uaddr));
	KUNIT_ASSERT_NOT_NULL(test, got);
	mr = odp_mr(test, p, start, SZ_4M, start);
	qp_fill(p, 0, 41);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, at,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)at, BUF_LEN),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, BUF_LEN);

	/* The second chunk's page changes; the first chunk's stay present. */
	KUNIT_ASSERT_EQ(test, vm_munmap(uaddr + SZ_2M + SZ_4K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, kunit_vm_mmap(test, NULL, uaddr + SZ_2M + SZ_4K,
					    SZ_4K, PROT_READ | PROT_WRITE,
					    MAP_ANONYMOUS | MAP_PRIVATE |
					    MAP_FIXED, 0), uaddr + SZ_2M + SZ_4K);
	qp_fill(p, 0, 42);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, at,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)at, BUF_LEN),
			0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, BUF_LEN);
}

/* Anonymous memory nobody touched yet: no page present. */
static unsigned long odp_untouched(struct kunit *test, size_t len)
{
	unsigned long uaddr = kunit_vm_mmap(test, NULL, 0, len,
					    PROT_READ | PROT_WRITE,
					    MAP_ANONYMOUS | MAP_PRIVATE, 0);

	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(uaddr));
	return uaddr;
}

/* ib_advise_mr() of one range, synchronous with @flush. */
static int odp_advise(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		      bool flush, u32 lkey, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };

	return ib_advise_mr(pd, advice,
			    flush ? IB_UVERBS_ADVISE_MR_FLAG_FLUSH : 0, &sge, 1);
}

/*
 * A 4 KiB WRITE of pattern @seed (zeroes for 0) at @at through @mr; the
 * faults it took.
 */
static u64 odp_write_faults(struct kunit *test, struct qp_pair *p,
			    struct ib_mr *mr, u64 at, u8 seed)
{
	struct ib_sge src = qp_sge(p, 0, 0, SZ_4K);
	u8 *got = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	u64 before = odp_faults(test, p->vdev);

	KUNIT_ASSERT_NOT_NULL(test, got);
	if (seed)
		qp_fill(p, 0, seed);
	else
		memset(p->buf[0]->va, 0, SZ_4K);
	KUNIT_EXPECT_EQ(test, odp_one(test, p, IB_WR_RDMA_WRITE, &src, at,
				      mr->rkey), IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void __user *)at, SZ_4K), 0);
	KUNIT_EXPECT_MEMEQ(test, got, p->buf[0]->va, SZ_4K);
	return odp_faults(test, p->vdev) - before;
}

/* Pages of one fault window: a fault maps the window around the access. */
#define ODP_WINDOW	(VROCE_MR_ODP_FAULT_PAGES * SZ_4K)

/*
 * Issue 33, prefetch (ib_advise_mr(), ibv_advise_mr()): a range
 * prefetched takes no fault at the HCA's first access; one prefetched
 * without faulting maps only the pages present, and of a writable MR not
 * a page the CPU maps read-only (the shared zero page here: the HCA would
 * write it for every process; the test writes zeroes there, so that a
 * regression shows as a missing fault, not as a corrupted zero page);
 * bad keys, another PD's MR, a read-only MR for PREFETCH_WRITE and a
 * range outside the MR fail as mlx5's do. Pages compared lie in fault
 * windows of their own.
 */
static void vroce_odp_qp_prefetch(struct kunit *test)
{
	struct qp_pair *p = qp_pair(test, 16, 64, 7);
	unsigned long a = odp_untouched(test, 2 * ODP_WINDOW);
	unsigned long b = odp_untouched(test, 4 * SZ_4K);
	unsigned long c = odp_untouched(test, 3 * ODP_WINDOW);
	u8 *got = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	struct ib_mr *ma, *mb, *mc, *ro;
	struct ib_pd *other;

	KUNIT_ASSERT_NOT_NULL(test, got);
	ma = odp_mr(test, p, a, 2 * ODP_WINDOW, a);
	mb = odp_mr(test, p, b, 4 * SZ_4K, b);
	mc = odp_mr(test, p, c, 3 * ODP_WINDOW, c);

	/*
	 * Prefetched for writing: WRITEs into either window take no fault.
	 * The control: the same WRITE into a window nobody prefetched faults.
	 */
	KUNIT_EXPECT_GT(test, odp_write_faults(test, p, mc, c, 50), 0);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					 true, ma->lkey, a, 2 * ODP_WINDOW), 0);
	KUNIT_EXPECT_EQ(test, odp_write_faults(test, p, ma, a + ODP_WINDOW, 51),
			0);
	KUNIT_EXPECT_EQ(test, odp_write_faults(test, p, ma, a, 52), 0);
	/* PREFETCH (read) of a writable MR maps writable too. */
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 false, mb->lkey, b + SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, odp_write_faults(test, p, mb, b + SZ_4K, 53), 0);

	/*
	 * Without faulting, over windows 1 and 2 of c: a page of window 1
	 * only read by the CPU (the zero page, read-only), a page of window
	 * 2 written by the CPU (present, writable). Only the latter gets an
	 * entry.
	 */
	KUNIT_ASSERT_EQ(test, copy_from_user(got,
					     (void __user *)c + ODP_WINDOW +
					     SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(got, 0, SZ_4K));
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)c + 2 * ODP_WINDOW +
					   SZ_4K, p->buf[1]->va, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
					 true, mc->lkey, c + ODP_WINDOW,
					 2 * ODP_WINDOW), 0);
	KUNIT_EXPECT_EQ(test, odp_write_faults(test, p, mc,
					       c + 2 * ODP_WINDOW + SZ_4K, 54),
			0);
	KUNIT_EXPECT_GT(test, odp_write_faults(test, p, mc,
					       c + ODP_WINDOW + SZ_4K, 0), 0);

	/* Bad advice, bad keys, another PD, a read-only MR, out of range. */
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd, 7, true, ma->lkey, a, 8),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 true, ma->lkey + 1, a, 8), -ENOENT);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 false, qp_sge(p, 0, 0, 8).lkey, a, 8),
			-ENOENT);
	other = ib_alloc_pd(&p->vdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_EXPECT_EQ(test, odp_advise(other,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 true, ma->lkey, a, 8), -EPERM);
	ib_dealloc_pd(other);
	ro = ib_reg_user_mr(p->pd, b, 4 * SZ_4K, b,
			    IB_ACCESS_ON_DEMAND | IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ro);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_dereg_mr, ro),
			0);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					 true, ro->lkey, b, 8), -EPERM);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 true, ro->lkey, b, 4 * SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 true, ma->lkey, a + 2 * ODP_WINDOW - SZ_4K,
					 SZ_4K + 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					 false, ma->lkey, a + 2 * ODP_WINDOW - SZ_4K,
					 SZ_4K + 1), 0);
	/* Memory no longer mapped: reported when asked to. */
	KUNIT_ASSERT_EQ(test, vm_munmap(b + 3 * SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, odp_advise(p->pd,
					 IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					 true, mb->lkey, b + 3 * SZ_4K, SZ_4K),
			-EFAULT);
}

static struct kunit_case vroce_odp_qp_cases[] = {
	KUNIT_CASE(vroce_odp_qp_moves_bytes),
	KUNIT_CASE(vroce_odp_qp_prefetch),
	KUNIT_CASE(vroce_odp_qp_remap),
	KUNIT_CASE(vroce_odp_qp_local_unmapped),
	KUNIT_CASE(vroce_odp_qp_no_pinning),
	KUNIT_CASE(vroce_odp_qp_chunks),
	{}
};

static struct kunit_suite vroce_odp_qp_suite = {
	.name = "vroce_odp_qp",
	.test_cases = vroce_odp_qp_cases,
};

static struct kunit_case vroce_dead_cases[] = {
	KUNIT_CASE(vroce_dead_hang_mid_traffic),
	KUNIT_CASE(vroce_dead_destroys_finish),
	KUNIT_CASE(vroce_dead_health_poll),
	KUNIT_CASE(vroce_dead_fatal_command),
	KUNIT_CASE(vroce_dead_flush_after_reset),
	{}
};

static struct kunit_suite vroce_dead_suite = {
	.name = "vroce_dead",
	.test_cases = vroce_dead_cases,
};

static struct kunit_case vroce_qp_cases[] = {
	KUNIT_CASE(vroce_qp_two_hcas),
	KUNIT_CASE(vroce_qp_path),
	KUNIT_CASE_SLOW(vroce_qp_no_peer),
	KUNIT_CASE(vroce_qp_send_recv),
	KUNIT_CASE(vroce_qp_unsignaled_inline),
	KUNIT_CASE(vroce_qp_write_read),
	KUNIT_CASE(vroce_qp_user_mr),
	KUNIT_CASE(vroce_qp_bad_lkey),
	KUNIT_CASE(vroce_qp_intruder),
	KUNIT_CASE(vroce_qp_remote_access_errors),
	KUNIT_CASE(vroce_qp_invalidate),
	KUNIT_CASE(vroce_qp_recv_too_small),
	KUNIT_CASE(vroce_qp_rnr),
	KUNIT_CASE(vroce_qp_rnr_waits),
	KUNIT_CASE(vroce_qp_post_errors),
	KUNIT_CASE(vroce_qp_bad_inputs),
	KUNIT_CASE(vroce_qp_wrap),
	KUNIT_CASE(vroce_qp_reset_and_reuse),
	KUNIT_CASE(vroce_qp_hca_error_wins),
	KUNIT_CASE(vroce_qp_destroy_fails),
	KUNIT_CASE(vroce_qp_create_timeout),
	KUNIT_CASE(vroce_qp_fail_every_allocation),
	KUNIT_CASE(vroce_qp_cq_overflow),
	KUNIT_CASE(vroce_qp_drain),
	KUNIT_CASE(vroce_qp_events),
	KUNIT_CASE(vroce_qp_reused_number_events),
	KUNIT_CASE(vroce_qp_reused_number_completions),
	KUNIT_CASE(vroce_qp_engines_apart),
	KUNIT_CASE(vroce_qp_many_engines),
	{}
};

static struct kunit_suite vroce_qp_suite = {
	.name = "vroce_qp",
	.test_cases = vroce_qp_cases,
};

kunit_test_suites(&vroce_qp_suite, &vroce_dead_suite, &vroce_odp_qp_suite);
