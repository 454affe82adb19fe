// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_uc: unreliable connected QPs through the RDMA core's
 * own API. Two UC QPs connected to each other on one HCA (loopback through
 * the port's own MAC) move SEND and RDMA WRITE, with immediate data or
 * not; RDMA READ is refused at posting (and by the HCA, should a WQE carry
 * it); a message the responder cannot take (no receive, a receive too
 * small, no remote write right, a bad rkey, a peer not ready or another
 * QP's peer) is dropped there and counted, while the requester completes
 * successfully: UC has no acks, so no retries and no RNR waits.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define UC_BUF		(4 * SZ_4K)
#define POLL_MS		3000
#define UC_IMM		0x12345678

/* Two UC QPs connected to each other, one CQ, a DMA-mapped buffer each. */
struct uc_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
};

KUNIT_DEFINE_ACTION_WRAPPER(uc_free_cq, ib_free_cq, struct ib_cq *);

static void uc_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void uc_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static struct ib_qp *uc_create(struct kunit *test, struct uc_pair *p)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UC, .send_cq = p->cq, .recv_cq = p->cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ib_qp *qp = ib_create_qp(p->pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_destroy_qp,
							qp), 0);
	KUNIT_EXPECT_EQ(test, qp->qp_type, IB_QPT_UC);
	return qp;
}

static int uc_state(struct ib_qp *qp, enum ib_qp_state state, int mask)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE | mask);
}

static int uc_init(struct ib_qp *qp, int access)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

/*
 * INIT -> RTR -> RTS towards @dest_qpn through the port's own MAC, with
 * exactly the attributes IBTA requires of UC (no RNR timer, no
 * retry counts, no RDMA READ/atomic resources).
 */
static int uc_connect(struct ib_qp *qp, u32 dest_qpn, const u8 *dmac)
{
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int err;

	err = rdma_query_gid(qp->device, 1, 0, &gid);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_4096;
	attr.dest_qp_num = dest_qpn;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, 0, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, dmac);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN);
	if (err)
		return err;
	return uc_state(qp, IB_QPS_RTS, IB_QP_SQ_PSN);
}

static struct uc_pair *uc_pair(struct kunit *test, int access1)
{
	struct uc_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vroce_test_dev(test);
	p->pd = vroce_test_pd(test, p->vdev, 0);
	p->cq = ib_alloc_cq(&p->vdev->ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_free_cq,
							p->cq), 0);
	/* Buffers before the QPs: cleanup frees them after the QPs. */
	for (i = 0; i < 2; i++)
		p->buf[i] = vroce_test_kbuf(test, p->vdev, UC_BUF);
	for (i = 0; i < 2; i++)
		p->qp[i] = uc_create(test, p);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, uc_init(p->qp[i], i ? access1 :
					      IB_ACCESS_LOCAL_WRITE), 0);
		KUNIT_ASSERT_EQ(test, uc_connect(p->qp[i], p->qp[!i]->qp_num,
						 p->vdev->netdev->dev_addr), 0);
	}
	return p;
}

static int uc_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, POLL_MS);
}

static void uc_expect_quiet(struct kunit *test, struct ib_cq *cq)
{
	struct ib_wc wc;

	msleep(50);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);
}

static struct ib_sge uc_sge(struct uc_pair *p, int side, u32 off, u32 len)
{
	return (struct ib_sge){ .addr = p->buf[side]->dma + off,
				.length = len, .lkey = p->pd->local_dma_lkey };
}

static int uc_post_recv(struct uc_pair *p, u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = uc_sge(p, 1, off, len);
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(p->qp[1], &wr, NULL);
}

/* Post @op of @len bytes at offset 0 of side 0's buffer on qp[0]. */
static int uc_post(struct uc_pair *p, enum ib_wr_opcode op, u64 wr_id,
		   u32 len, u64 raddr, u32 rkey)
{
	struct ib_sge sge = uc_sge(p, 0, 0, len);
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr, .rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(UC_IMM);
	return ib_post_send(p->qp[0], &wr.wr, NULL);
}

/* The requester's one successful completion of @wr_id. */
static void uc_expect_sent(struct kunit *test, struct uc_pair *p, u64 wr_id,
			   enum ib_wc_opcode opcode)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, p->qp[0]);
}

/* Both completions of a delivered message; @rwc gets the receive's. */
static void uc_expect_both(struct kunit *test, struct uc_pair *p,
			   struct ib_wc *rwc)
{
	struct ib_wc wc[2];

	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, wc, 2), 2);
	if (wc[0].qp == p->qp[1])
		swap(wc[0], wc[1]);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, p->qp[0]);
	KUNIT_EXPECT_PTR_EQ(test, wc[1].qp, p->qp[1]);
	*rwc = wc[1];
}

/* A fast-register MR over side 1's buffer, registered by a REG_MR on qp[1]. */
static struct ib_mr *uc_reg_mr(struct kunit *test, struct uc_pair *p,
			       int access)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;
	struct ib_mr *mr;

	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, UC_BUF / SZ_4K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_dereg_mr, mr),
			0);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = p->buf[1]->dma;
	sg_dma_len(&sg) = UC_BUF;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K), 1);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 77;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[1], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	return mr;
}

static void uc_sync(struct uc_pair *p, int side)
{
	dma_sync_single_for_cpu(p->buf[side]->dev, p->buf[side]->dma, UC_BUF,
				DMA_BIDIRECTIONAL);
}

static enum ib_qp_state uc_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_ERR;
	return attr.qp_state;
}

/*
 * SEND and SEND_WITH_IMM: the bytes arrive whole, the receive completes
 * with the sender's QP, the length and the immediate data, no GRH.
 */
static void vroce_uc_send(struct kunit *test)
{
	struct uc_pair *p = uc_pair(test, IB_ACCESS_LOCAL_WRITE);
	u8 *a = p->buf[0]->va, *b = p->buf[1]->va;
	struct ib_wc rwc;

	vroce_test_fill(a, UC_BUF, 1);
	memset(b, 0, UC_BUF);
	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 10, 0, UC_BUF), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 1, 6000, 0, 0), 0);
	uc_expect_both(test, p, &rwc);
	KUNIT_EXPECT_EQ(test, rwc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rwc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, rwc.wr_id, 10);
	KUNIT_EXPECT_EQ(test, rwc.byte_len, 6000);
	KUNIT_EXPECT_EQ(test, rwc.src_qp, p->qp[0]->qp_num);
	KUNIT_EXPECT_FALSE(test, rwc.wc_flags & (IB_WC_GRH | IB_WC_WITH_IMM));
	uc_sync(p, 1);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, 6000), 0);

	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 11, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND_WITH_IMM, 2, 64, 0, 0), 0);
	uc_expect_both(test, p, &rwc);
	KUNIT_EXPECT_EQ(test, rwc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rwc.wr_id, 11);
	KUNIT_EXPECT_TRUE(test, rwc.wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rwc.ex.imm_data), UC_IMM);
}

/*
 * RDMA WRITE places the bytes at the rkey's address and completes only
 * at the requester; WRITE_WITH_IMM also consumes a receive.
 */
static void vroce_uc_write(struct kunit *test)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct uc_pair *p = uc_pair(test, acc);
	struct ib_mr *mr = uc_reg_mr(test, p, acc);
	u8 *a = p->buf[0]->va, *b = p->buf[1]->va;
	struct ib_wc rwc;

	vroce_test_fill(a, UC_BUF, 2);
	memset(b, 0, UC_BUF);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE, 1, 5000,
				      mr->iova + 100, mr->rkey), 0);
	uc_expect_sent(test, p, 1, IB_WC_RDMA_WRITE);
	uc_expect_quiet(test, p->cq);
	uc_sync(p, 1);
	KUNIT_EXPECT_EQ(test, memcmp(a, b + 100, 5000), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(b, 0, 100));

	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 12, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE_WITH_IMM, 2, 3000,
				      mr->iova + 8192, mr->rkey), 0);
	uc_expect_both(test, p, &rwc);
	KUNIT_EXPECT_EQ(test, rwc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rwc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, rwc.wr_id, 12);
	KUNIT_EXPECT_EQ(test, rwc.byte_len, 3000);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rwc.ex.imm_data), UC_IMM);
	uc_sync(p, 1);
	KUNIT_EXPECT_EQ(test, memcmp(a, b + 8192, 3000), 0);
}

/*
 * RDMA READ, SEND_WITH_INV and atomics are not UC operations: refused at
 * posting with -EINVAL, nothing queued. A READ WQE that reaches the HCA
 * anyway (written into the ring behind the driver's back) completes with
 * a local QP operation error.
 */
static void vroce_uc_read_refused(struct kunit *test)
{
	struct uc_pair *p = uc_pair(test, IB_ACCESS_LOCAL_WRITE);
	struct vroce_qp *qp = to_vroce_qp(p->qp[0]);
	struct ib_atomic_wr awr = {
		.wr = { .opcode = IB_WR_ATOMIC_CMP_AND_SWP },
	};
	struct vroce_send_wqe *wqe;
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, uc_post(p, IB_WR_RDMA_READ, 1, 8, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, uc_post(p, IB_WR_SEND_WITH_INV, 1, 8, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &awr.wr, NULL), -EINVAL);
	awr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &awr.wr, NULL), -EINVAL);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, uc_qp_state(p->qp[0]), IB_QPS_RTS);

	/* A SEND posted, then turned into a READ before the HCA runs it. */
	vroce_hca_hold_qp(vroce_test_hca(test), p->qp[0]->qp_num);
	KUNIT_EXPECT_EQ(test, uc_post(p, IB_WR_SEND, 5, 8, 0, 0), 0);
	wqe = vroce_ring_slot(&qp->sq.ring, 0);
	wqe->opcode = VROCE_WQE_READ;
	vroce_hca_hold_qp(vroce_test_hca(test), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 5);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, uc_qp_state(p->qp[0]), IB_QPS_ERR);
}

/*
 * Loss without retry: with no receive posted a SEND, and a WRITE_WITH_IMM,
 * complete successfully at once at the requester (no RNR wait, whatever
 * the rnr_retry), nothing completes at the responder, its QP stays in
 * RTS, and uc_dropped counts each. A receive posted afterwards takes the
 * next message, not a lost one.
 */
static void vroce_uc_loss_no_recv(struct kunit *test)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct uc_pair *p = uc_pair(test, acc);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_mr *mr = uc_reg_mr(test, p, acc);
	u32 dropped = vroce_hca_uc_dropped(hca);
	u8 *a = p->buf[0]->va, *b = p->buf[1]->va;
	struct ib_wc rwc;

	vroce_test_fill(a, UC_BUF, 3);
	memset(b, 0, UC_BUF);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 1, 64, 0, 0), 0);
	uc_expect_sent(test, p, 1, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE_WITH_IMM, 2, 64,
				      mr->iova, mr->rkey), 0);
	uc_expect_sent(test, p, 2, IB_WC_RDMA_WRITE);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 2);
	KUNIT_EXPECT_EQ(test, uc_qp_state(p->qp[1]), IB_QPS_RTS);
	/* The WRITE_WITH_IMM placed nothing either. */
	uc_sync(p, 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(b, 0, UC_BUF));

	/* A receive too small: dropped, the receive stays for the next. */
	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 20, 0, 32), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 3, 64, 0, 0), 0);
	uc_expect_sent(test, p, 3, IB_WC_SEND);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 3);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 4, 32, 0, 0), 0);
	uc_expect_both(test, p, &rwc);
	KUNIT_EXPECT_EQ(test, rwc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rwc.wr_id, 20);
	KUNIT_EXPECT_EQ(test, rwc.byte_len, 32);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 3);
}

/*
 * Remote access errors do not exist for a UC requester: a WRITE with a bad
 * rkey, out of the MR's range, or to a peer that allows no remote write
 * completes successfully, writes nothing and leaves the peer in RTS.
 */
static void vroce_uc_loss_remote_access(struct kunit *test)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct uc_pair *p = uc_pair(test, acc);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_mr *mr = uc_reg_mr(test, p, acc);
	u32 dropped = vroce_hca_uc_dropped(hca);
	u8 *b = p->buf[1]->va;
	struct ib_qp_attr attr = { .qp_access_flags = IB_ACCESS_LOCAL_WRITE };

	vroce_test_fill(p->buf[0]->va, UC_BUF, 4);
	memset(b, 0, UC_BUF);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE, 1, 64, mr->iova,
				      mr->rkey ^ 0x100), 0);
	uc_expect_sent(test, p, 1, IB_WC_RDMA_WRITE);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE, 2, 64,
				      mr->iova + UC_BUF - 32, mr->rkey), 0);
	uc_expect_sent(test, p, 2, IB_WC_RDMA_WRITE);
	/* The peer takes the right away (RTS -> RTS, access flags). */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr,
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_RDMA_WRITE, 3, 64, mr->iova,
				      mr->rkey), 0);
	uc_expect_sent(test, p, 3, IB_WC_RDMA_WRITE);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 3);
	uc_sync(p, 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(b, 0, UC_BUF));
	KUNIT_EXPECT_EQ(test, uc_qp_state(p->qp[1]), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, uc_qp_state(p->qp[0]), IB_QPS_RTS);
}

/*
 * A peer not ready (INIT), and a third UC QP that names qp[1] while qp[1]
 * is connected to qp[0]: the messages are dropped, the senders complete
 * successfully, qp[1]'s receive stays for its own peer.
 */
static void vroce_uc_loss_peer(struct kunit *test)
{
	struct uc_pair *p = uc_pair(test, IB_ACCESS_LOCAL_WRITE);
	struct vroce_hca *hca = vroce_test_hca(test);
	u32 dropped = vroce_hca_uc_dropped(hca);
	struct ib_qp *c = uc_create(test, p);
	struct ib_sge sge = uc_sge(p, 0, 0, 16);
	struct ib_send_wr wr = { .wr_id = 30, .opcode = IB_WR_SEND,
				 .sg_list = &sge, .num_sge = 1,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc, rwc;

	KUNIT_ASSERT_EQ(test, uc_init(c, IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_ASSERT_EQ(test, uc_connect(c, p->qp[1]->qp_num,
					 p->vdev->netdev->dev_addr), 0);
	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 10, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(c, &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, c);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 1);

	/* qp[0] still reaches qp[1]'s receive. */
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 1, 16, 0, 0), 0);
	uc_expect_both(test, p, &rwc);
	KUNIT_EXPECT_EQ(test, rwc.wr_id, 10);
	KUNIT_EXPECT_EQ(test, rwc.src_qp, p->qp[0]->qp_num);

	/* qp[1] back in INIT: not ready, so what qp[0] sends is lost. */
	KUNIT_ASSERT_EQ(test, uc_state(p->qp[1], IB_QPS_RESET, 0), 0);
	KUNIT_ASSERT_EQ(test, uc_init(p->qp[1], IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 11, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 2, 16, 0, 0), 0);
	uc_expect_sent(test, p, 2, IB_WC_SEND);
	uc_expect_quiet(test, p->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hca), dropped + 2);
}

/*
 * The UC state machine as IBTA has it (ib_modify_qp_is_ok()): RTR wants
 * the AV, the destination QPN, the path MTU and the RQ PSN, and takes no
 * RNR timer or RDMA READ resources; RTS takes no retry counts or ack
 * timeout. Posting before RTS is refused. Query returns what was set.
 */
static void vroce_uc_state_machine(struct kunit *test)
{
	struct uc_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	struct ib_wc wc[2];
	union ib_gid gid;
	struct ib_qp *qp;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vroce_test_dev(test);
	p->pd = vroce_test_pd(test, p->vdev, 0);
	p->cq = ib_alloc_cq(&p->vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_free_cq,
							p->cq), 0);
	p->buf[0] = vroce_test_kbuf(test, p->vdev, UC_BUF);
	p->buf[1] = p->buf[0];
	qp = uc_create(test, p);
	p->qp[0] = qp;
	p->qp[1] = qp;

	/* RESET: neither queue takes work; RESET -> RTR is no transition. */
	KUNIT_EXPECT_EQ(test, uc_post_recv(p, 1, 0, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, uc_state(qp, IB_QPS_RTR, 0), -EINVAL);
	/* INIT of a UC QP takes no Q_Key. */
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qkey = 5;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS | IB_QP_QKEY),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, uc_init(qp, IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, uc_post_recv(p, 1, 0, 8), 0);
	KUNIT_EXPECT_EQ(test, uc_post(p, IB_WR_SEND, 1, 8, 0, 0), -EINVAL);
	/* RTR without the destination, or with an RC-only attribute. */
	KUNIT_EXPECT_EQ(test, uc_state(qp, IB_QPS_RTR, 0), -EINVAL);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	KUNIT_ASSERT_EQ(test, rdma_query_gid(qp->device, 1, 0, &gid), 0);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, 0, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, p->vdev->netdev->dev_addr);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN | IB_QP_MIN_RNR_TIMER),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN), 0);
	KUNIT_EXPECT_EQ(test, uc_qp_state(qp), IB_QPS_RTR);
	/* RTS with an RC-only attribute. */
	attr.qp_state = IB_QPS_RTS;
	attr.retry_cnt = 7;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_SQ_PSN | IB_QP_RETRY_CNT),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, uc_state(qp, IB_QPS_RTS, IB_QP_SQ_PSN), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, IB_QP_STATE |
					  IB_QP_DEST_QPN | IB_QP_PATH_MTU,
					  &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, qp->qp_num);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, init.qp_type, IB_QPT_UC);
	/* Connected to itself: its own receive takes its SEND. */
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 2, 8, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
}

/*
 * Fault injection: CREATE_QP of a UC QP failed by the HCA, and each
 * allocation of the create failed in turn: an error, nothing left held.
 */
static void vroce_uc_create_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_cq *cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0,
				       IB_POLL_DIRECT);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp;
	int n, failed = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_free_cq, cq),
			0);
	vroce_test_rebase(test, vdev);

	vroce_hca_set_fault_opcode(hca, VROCE_CMD_CREATE_QP);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	qp = ib_create_qp(pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -ENOMEM);
	vroce_test_faults_off(test, hca);
	vroce_test_expect_no_memory_held(test, vdev);

	for (n = 1; n < 32; n++) {
		atomic_set(&vdev->mem.fail_nth, n);
		qp = ib_create_qp(pd, &init);
		atomic_set(&vdev->mem.fail_nth, 0);
		if (!IS_ERR(qp)) {
			KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
			break;
		}
		KUNIT_EXPECT_EQ(test, PTR_ERR(qp), -ENOMEM);
		failed++;
		vroce_test_expect_no_memory_held(test, vdev);
	}
	KUNIT_EXPECT_GT(test, failed, 0);
	KUNIT_EXPECT_LT(test, n, 32);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* A UC QP of its own on @vdev: PD, CQ, buffer; in INIT. */
static struct ib_qp *uc_side(struct kunit *test, struct uc_pair *p,
			     struct vroce_dev *vdev, int side)
{
	p->vdev = vdev;
	p->pd = vroce_test_pd(test, vdev, 0);
	p->cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_free_cq,
							p->cq), 0);
	p->buf[side] = vroce_test_kbuf(test, vdev, UC_BUF);
	p->qp[side] = uc_create(test, p);
	KUNIT_ASSERT_EQ(test, uc_init(p->qp[side], IB_ACCESS_LOCAL_WRITE), 0);
	return p->qp[side];
}

/*
 * Across the wire: a UC QP on one HCA and its peer on another, each
 * through the other port's MAC. A SEND arrives whole at the second HCA;
 * one with no receive there is dropped and counted there, not at the
 * sender's HCA, and the sender completes successfully.
 */
static void vroce_uc_two_hcas(struct kunit *test)
{
	struct uc_pair *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct uc_pair *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct vroce_dev *va = vroce_test_dev(test), *vb;
	struct vroce_hca *ha = vroce_test_hca(test), *hb;
	u32 drop_a, drop_b;
	struct ib_qp *qa, *qb;
	struct ib_wc wc;
	u8 *x, *y;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	hb = vroce_test_add_hca(test);
	vb = platform_get_drvdata(vroce_hca_pdev(hb));
	KUNIT_ASSERT_NOT_NULL(test, vb);
	qa = uc_side(test, a, va, 0);
	qb = uc_side(test, b, vb, 1);
	KUNIT_ASSERT_EQ(test, uc_connect(qa, qb->qp_num,
					 vb->netdev->dev_addr), 0);
	KUNIT_ASSERT_EQ(test, uc_connect(qb, qa->qp_num,
					 va->netdev->dev_addr), 0);
	/* uc_post() and uc_post_recv() use qp[0]/buf[0] and qp[1]/buf[1]. */
	a->qp[1] = qb;
	a->buf[1] = b->buf[1];
	x = a->buf[0]->va;
	y = b->buf[1]->va;
	vroce_test_fill(x, UC_BUF, 9);
	memset(y, 0, UC_BUF);
	drop_a = vroce_hca_uc_dropped(ha);
	drop_b = vroce_hca_uc_dropped(hb);

	KUNIT_ASSERT_EQ(test, ib_post_recv(qb, &(struct ib_recv_wr){
		.wr_id = 40, .num_sge = 1,
		.sg_list = &(struct ib_sge){ .addr = b->buf[1]->dma,
					     .length = UC_BUF,
					     .lkey = b->pd->local_dma_lkey } },
		NULL), 0);
	KUNIT_ASSERT_EQ(test, uc_post(a, IB_WR_SEND, 1, 3000, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
	KUNIT_ASSERT_EQ(test, uc_poll(b->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 40);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 3000);
	KUNIT_EXPECT_EQ(test, wc.src_qp, qa->qp_num);
	uc_sync(b, 1);
	KUNIT_EXPECT_EQ(test, memcmp(x, y, 3000), 0);

	/* No receive at B: lost there. */
	KUNIT_ASSERT_EQ(test, uc_post(a, IB_WR_SEND, 2, 64, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(a->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2);
	uc_expect_quiet(test, b->cq);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(hb), drop_b + 1);
	KUNIT_EXPECT_EQ(test, vroce_hca_uc_dropped(ha), drop_a);
}

/*
 * A UC message is one bounce buffer of the HCA at most (1 MiB): the UC
 * responder places a message whole. One byte more completes with
 * IB_WC_LOC_LEN_ERR before any byte is read, and reaches no receive.
 */
static void vroce_uc_too_long(struct kunit *test)
{
	struct uc_pair *p = uc_pair(test, IB_ACCESS_LOCAL_WRITE);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, uc_post_recv(p, 10, 0, UC_BUF), 0);
	KUNIT_ASSERT_EQ(test, uc_post(p, IB_WR_SEND, 1, SZ_1M + 1, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, uc_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, p->qp[0]);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_LEN_ERR);
	/* The receive was not consumed: only the flush of QP 1 ends it. */
	uc_expect_quiet(test, p->cq);
}

static struct kunit_case vroce_uc_cases[] = {
	KUNIT_CASE(vroce_uc_send),
	KUNIT_CASE(vroce_uc_too_long),
	KUNIT_CASE(vroce_uc_write),
	KUNIT_CASE(vroce_uc_read_refused),
	KUNIT_CASE(vroce_uc_loss_no_recv),
	KUNIT_CASE(vroce_uc_loss_remote_access),
	KUNIT_CASE(vroce_uc_loss_peer),
	KUNIT_CASE(vroce_uc_state_machine),
	KUNIT_CASE(vroce_uc_create_faults),
	KUNIT_CASE(vroce_uc_two_hcas),
	{}
};

static struct kunit_suite vroce_uc_suite = {
	.name = "vroce_uc",
	.test_cases = vroce_uc_cases,
};

kunit_test_suite(vroce_uc_suite);
