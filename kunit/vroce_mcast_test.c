// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mcast: UD multicast through the RDMA core's own API
 * (ib_attach_mcast(), ib_detach_mcast()). Two HCAs on the wire, three UD
 * QPs attached to one group (two on the first HCA, one on the second):
 * one datagram sent to the group's GID with destination QPN 0xffffff
 * reaches each of them, each with its own receive and Q_Key check, and
 * never the sending QP; a detached QP gets nothing more. Bad inputs get
 * the errno rxe gives; ATTACH_MCAST and DETACH_MCAST failed or lost by the
 * HCA's knobs leave the group as the HCA left it.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/platform_device.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define MC_QKEY		0x22222222
#define MC_MSG		200
#define MC_BUF		(VROCE_GRH_SIZE + VROCE_MAX_UD_MSG)
#define POLL_MS		3000

/* ff0e::1:2 (global scope), and its Ethernet address 33:33:00:01:00:02. */
static const union ib_gid mc_gid = { .raw = {
	0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2 } };

/* A UD QP of the suite, with its CQ and a receive buffer. */
struct mc_qp {
	struct vroce_dev *vdev;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct vroce_test_kbuf *buf;
	u32 lkey;
};

struct mc_fix {
	struct vroce_dev *va, *vb;
	struct ib_pd *pa, *pb;
	struct mc_qp send;	/* on va */
	struct mc_qp r[3];	/* r[0], r[1] on va; r[2] on vb */
	struct ib_ah *ah;
};

KUNIT_DEFINE_ACTION_WRAPPER(mc_free_cq, ib_free_cq, struct ib_cq *);
KUNIT_DEFINE_ACTION_WRAPPER(mc_dealloc_pd, ib_dealloc_pd, struct ib_pd *);

static void mc_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void mc_destroy_ah(void *data)
{
	rdma_destroy_ah(data, RDMA_DESTROY_AH_SLEEPABLE);
}

static int mc_ready(struct ib_qp *qp, u32 qkey)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = qkey,
	};
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* A UD QP in RTS with Q_Key @qkey, a CQ of its own, a buffer. */
static void mc_qp(struct kunit *test, struct mc_qp *q, struct vroce_dev *vdev,
		  struct ib_pd *pd, enum ib_qp_type type, u32 qkey)
{
	struct ib_qp_init_attr init = {
		.qp_type = type, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	q->vdev = vdev;
	q->lkey = pd->local_dma_lkey;
	q->buf = vroce_test_kbuf(test, vdev, MC_BUF);
	q->cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mc_free_cq,
							q->cq), 0);
	init.send_cq = q->cq;
	init.recv_cq = q->cq;
	q->qp = ib_create_qp(pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q->qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mc_destroy_qp,
							q->qp), 0);
	if (type == IB_QPT_UD)
		KUNIT_ASSERT_EQ(test, mc_ready(q->qp, qkey), 0);
}

static int mc_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, POLL_MS);
}

static int mc_post_recv(struct mc_qp *q, u64 wr_id)
{
	struct ib_sge sge = { .addr = q->buf->dma, .length = MC_BUF,
			      .lkey = q->lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(q->qp, &wr, NULL);
}

/* The port's GID 0 once the core has it. */
static int mc_port_gid(struct vroce_dev *vdev, union ib_gid *gid)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!rdma_query_gid(&vdev->ibdev, 1, 0, gid))
			return 0;
		msleep(20);
	}
	return -ENOENT;
}

/* An AH to @dgid: the group's multicast MAC, from the port's GID 0. */
static struct ib_ah *mc_ah(struct kunit *test, struct ib_pd *pd,
			   const union ib_gid *dgid)
{
	struct rdma_ah_attr attr = {};
	struct ib_ah *ah;

	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, (union ib_gid *)dgid, 0, 0, 64, 0);
	ipv6_eth_mc_map((const struct in6_addr *)dgid->raw, attr.roce.dmac);
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mc_destroy_ah,
							ah), 0);
	return ah;
}

/* Send MC_MSG bytes of @q's buffer to @dqpn through @ah with @qkey. */
static int mc_send(struct mc_qp *q, struct ib_ah *ah, u32 dqpn, u32 qkey,
		   u8 seed)
{
	struct ib_sge sge = { .addr = q->buf->dma + VROCE_GRH_SIZE,
			      .length = MC_MSG, .lkey = q->lkey };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 99, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey,
	};

	vroce_test_fill(q->buf->va + VROCE_GRH_SIZE, MC_MSG, seed);
	return ib_post_send(q->qp, &wr.wr, NULL);
}

/* The sender's successful completion. */
static void mc_expect_sent(struct kunit *test, struct mc_qp *q)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, mc_poll(q->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 99);
}

/* @q received the group's datagram from @src: the GRH, then the bytes. */
static void mc_expect_recv(struct kunit *test, struct mc_qp *q,
			   struct mc_qp *src, u64 wr_id, u8 seed)
{
	u8 want[MC_MSG];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, mc_poll(q->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.byte_len, VROCE_GRH_SIZE + MC_MSG);
	KUNIT_EXPECT_EQ(test, wc.src_qp, src->qp->qp_num);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_MEMEQ(test, wc.smac, src->vdev->netdev->dev_addr,
			   ETH_ALEN);
	dma_sync_single_for_cpu(q->buf->dev, q->buf->dma, MC_BUF,
				DMA_BIDIRECTIONAL);
	/* The IPv6 header's destination is the group. */
	KUNIT_EXPECT_MEMEQ(test, q->buf->va + 24, mc_gid.raw, 16);
	vroce_test_fill(want, MC_MSG, seed);
	KUNIT_EXPECT_MEMEQ(test, q->buf->va + VROCE_GRH_SIZE, want, MC_MSG);
}

static void mc_expect_quiet(struct kunit *test, struct mc_qp *q)
{
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, ib_poll_cq(q->cq, 1, &wc), 0);
}

/* Two HCAs, a sender and three receivers in RTS, none attached yet. */
static struct mc_fix *mc_fix(struct kunit *test)
{
	struct mc_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	union ib_gid gid;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->va = vroce_test_dev(test);
	f->vb = platform_get_drvdata(vroce_test_add_pdev(test));
	KUNIT_ASSERT_NOT_NULL(test, f->vb);
	f->pa = vroce_test_pd(test, f->va, 0);
	f->pb = ib_alloc_pd(&f->vb->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->pb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mc_dealloc_pd,
							f->pb), 0);
	mc_qp(test, &f->send, f->va, f->pa, IB_QPT_UD, MC_QKEY);
	for (i = 0; i < 3; i++)
		mc_qp(test, &f->r[i], i < 2 ? f->va : f->vb,
		      i < 2 ? f->pa : f->pb, IB_QPT_UD, MC_QKEY);
	KUNIT_ASSERT_EQ(test, mc_port_gid(f->va, &gid), 0);
	f->ah = mc_ah(test, f->pa, &mc_gid);
	vroce_test_rebase(test, f->va);
	return f;
}

/* Send one datagram to the group; each of @want[] receives it, no other. */
static void mc_round(struct kunit *test, struct mc_fix *f, const bool *want,
		     u8 seed)
{
	int i;

	KUNIT_ASSERT_EQ(test, mc_send(&f->send, f->ah, VROCE_MCAST_QPN,
				      MC_QKEY, seed), 0);
	mc_expect_sent(test, &f->send);
	for (i = 0; i < 3; i++)
		if (want[i])
			mc_expect_recv(test, &f->r[i], &f->send, 100 + i, seed);
	msleep(30);
	for (i = 0; i < 3; i++)
		if (!want[i])
			mc_expect_quiet(test, &f->r[i]);
	mc_expect_quiet(test, &f->send);
}

/*
 * The device attributes say what the HCA's table holds; one datagram
 * reaches the three QPs attached, on both HCAs; a QP detached gets no
 * more, the others still do; a receive left posted at the detached QP
 * stays there.
 */
static void vroce_mcast_deliver(struct kunit *test)
{
	struct mc_fix *f = mc_fix(test);
	bool all[3] = { true, true, true }, two[3] = { true, false, true };
	int i;

	KUNIT_EXPECT_EQ(test, f->va->ibdev.attrs.max_mcast_grp, VROCE_MAX_MCG);
	KUNIT_EXPECT_EQ(test, f->va->ibdev.attrs.max_mcast_qp_attach,
			VROCE_MAX_MCG_QP);
	KUNIT_EXPECT_EQ(test, f->va->ibdev.attrs.max_total_mcast_qp_attach,
			VROCE_MAX_MCG * VROCE_MAX_MCG_QP);

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[i].qp,
						      (union ib_gid *)&mc_gid,
						      0), 0);
		KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[i], 100 + i), 0);
	}
	mc_round(test, f, all, 1);

	KUNIT_ASSERT_EQ(test, ib_detach_mcast(f->r[1].qp,
					      (union ib_gid *)&mc_gid, 0), 0);
	for (i = 0; i < 3; i++)
		if (two[i])
			KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[i], 100 + i), 0);
	KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[1], 101), 0);
	mc_round(test, f, two, 2);

	/* Attached again, it takes the receive it had left posted. */
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[1].qp,
					      (union ib_gid *)&mc_gid, 0), 0);
	for (i = 0; i < 3; i++)
		if (two[i])
			KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[i], 100 + i), 0);
	mc_round(test, f, all, 3);

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[i].qp,
						      (union ib_gid *)&mc_gid,
						      0), 0);
}

/*
 * Each receiver checks its own Q_Key; the sending QP, attached to the
 * group itself, never gets its own datagram; a QP of the group not in RTR
 * drops it (ud_dropped); a unicast QPN to the group's GID reaches no one.
 */
static void vroce_mcast_qkey_loopback(struct kunit *test)
{
	struct mc_fix *f = mc_fix(test);
	struct vroce_hca *ha = vroce_test_hca(test);
	bool some[3] = { true, false, true };
	struct ib_qp_attr attr = { .qkey = MC_QKEY + 1 };
	u32 dropped;
	int i;

	KUNIT_ASSERT_EQ(test, ib_modify_qp(f->r[1].qp, &attr, IB_QP_QKEY), 0);
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->send.qp,
					      (union ib_gid *)&mc_gid, 0), 0);
	KUNIT_ASSERT_EQ(test, mc_post_recv(&f->send, 200), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[i].qp,
						      (union ib_gid *)&mc_gid,
						      0), 0);
		KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[i], 100 + i), 0);
	}
	dropped = vroce_hca_ud_dropped(ha);
	mc_round(test, f, some, 4);
	/* r[1]'s wrong Q_Key. */
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(ha), dropped + 1);

	/* A unicast QPN (r[0]'s own) with the group's GID: not a group send. */
	KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[0], 100), 0);
	KUNIT_ASSERT_EQ(test, mc_send(&f->send, f->ah, f->r[0].qp->qp_num,
				      MC_QKEY, 5), 0);
	mc_expect_sent(test, &f->send);
	msleep(30);
	mc_expect_quiet(test, &f->r[0]);

	/* The receive the sender posted is still there: nothing came back. */
	KUNIT_ASSERT_EQ(test, ib_detach_mcast(f->send.qp,
					      (union ib_gid *)&mc_gid, 0), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[i].qp,
						      (union ib_gid *)&mc_gid,
						      0), 0);
}

/*
 * Bad inputs, with rxe's errnos where the core does not decide: a GID
 * that is not multicast and a QP that is not UD (the core: -EINVAL),
 * attaching twice (-EINVAL: the core counts each attach in the QP's
 * usecnt), detaching a QP not attached or from a group that does not
 * exist (-EINVAL), a full group and a full table (-ENOMEM), and a
 * kernel QP still attached cannot be destroyed (-EBUSY, the core's).
 */
static void vroce_mcast_bad_inputs(struct kunit *test)
{
	struct mc_fix *f = mc_fix(test);
	union ib_gid uni, g = mc_gid;
	struct mc_qp extra[VROCE_MAX_MCG_QP];
	struct mc_qp rc;
	int i;

	KUNIT_ASSERT_EQ(test, mc_port_gid(f->va, &uni), 0);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[0].qp, &uni, 0), -EINVAL);
	mc_qp(test, &rc, f->va, f->pa, IB_QPT_RC, 0);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(rc.qp, &g, 0), -EINVAL);
	/* Not attached anywhere, then not to this group. */
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp, &g, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[0].qp, &g, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[0].qp, &g, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[1].qp, &g, 0), -EINVAL);
	/* Attached: the core refuses to destroy it. */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(f->r[0].qp), -EBUSY);

	/* The group holds VROCE_MAX_MCG_QP QPs: r[0] and 7 more. */
	for (i = 0; i < VROCE_MAX_MCG_QP; i++)
		mc_qp(test, &extra[i], f->va, f->pa, IB_QPT_UD, MC_QKEY);
	for (i = 0; i < VROCE_MAX_MCG_QP - 1; i++)
		KUNIT_ASSERT_EQ(test, ib_attach_mcast(extra[i].qp, &g, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(extra[i].qp, &g, 0), -ENOMEM);
	for (i = 0; i < VROCE_MAX_MCG_QP - 1; i++)
		KUNIT_EXPECT_EQ(test, ib_detach_mcast(extra[i].qp, &g, 0), 0);

	/* VROCE_MAX_MCG groups, the first one's included: no room for more. */
	for (i = 1; i < VROCE_MAX_MCG; i++) {
		g.raw[15] = i;
		g.raw[14] = 0x10;
		KUNIT_ASSERT_EQ_MSG(test, ib_attach_mcast(f->r[1].qp, &g, 0),
				    0, "group %d", i);
	}
	g.raw[15] = 0;
	g.raw[14] = 0x20;
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[1].qp, &g, 0), -ENOMEM);
	/* An IPv4-mapped group (239.1.2.3) is a group too: still no room. */
	ipv6_addr_set_v4mapped(cpu_to_be32(0xef010203),
			       (struct in6_addr *)g.raw);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[1].qp, &g, 0), -ENOMEM);
	for (i = 1; i < VROCE_MAX_MCG; i++) {
		g = mc_gid;
		g.raw[15] = i;
		g.raw[14] = 0x10;
		KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[1].qp, &g, 0), 0);
	}
	/* Room again, for the IPv4-mapped group. */
	ipv6_addr_set_v4mapped(cpu_to_be32(0xef010203),
			       (struct in6_addr *)g.raw);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[1].qp, &g, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[1].qp, &g, 0), 0);
	g = mc_gid;
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp, &g, 0), 0);
}

/*
 * The HCA takes a QP out of every group when the QP is destroyed, whoever
 * sends DESTROY_QP (uverbs detaches first; a driver error path may not):
 * a QP made afterwards under the same slot is in no group.
 */
static void vroce_mcast_destroy_detaches(struct kunit *test)
{
	struct mc_fix *f = mc_fix(test);
	struct vroce_qp *vqp = to_vroce_qp(f->r[0].qp);
	bool none[3] = {};

	KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[0].qp,
					      (union ib_gid *)&mc_gid, 0), 0);
	KUNIT_ASSERT_EQ(test, vroce_cmd_destroy_qp(f->va, vqp->ibqp.qp_num), 0);
	/* The QP is gone in the HCA: detaching finds no such QP. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_detach_mcast(f->va, vqp->ibqp.qp_num,
						     mc_gid.raw), -ENOENT);
	/* Nothing of the group is left: the datagram reaches no one. */
	mc_round(test, f, none, 6);
	/*
	 * The driver's QP still stands and the core counts its attach:
	 * leave it attached in the core's eyes, and let DESTROY_QP meet a QP
	 * the HCA forgot (-ENOENT: let go) at cleanup.
	 */
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp,
					      (union ib_gid *)&mc_gid, 0),
			-ENOENT);
	atomic_dec(&f->r[0].qp->usecnt);
}

/*
 * ATTACH_MCAST and DETACH_MCAST failed by the HCA (each status in turn)
 * return their errno and change nothing. Lost (carried out, never
 * completed): an attach returns -ETIMEDOUT and the driver detaches the
 * QP again; a detach stands (0). No memory is held either way.
 */
static void vroce_mcast_faults(struct kunit *test)
{
	static const struct { u16 status; int err; } st[] = {
		{ VROCE_CMD_BAD_PARAM, -EINVAL },
		{ VROCE_CMD_NO_RESOURCE, -ENOMEM },
		{ VROCE_CMD_INTERNAL, -EIO },
	};
	struct mc_fix *f = mc_fix(test);
	struct vroce_hca *ha = vroce_test_hca(test);
	union ib_gid *g = (union ib_gid *)&mc_gid;
	bool r0[3] = { true, false, false }, none[3] = {};
	int i;

	vroce_test_cmd_timeout(test, f->va, 100);
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		vroce_hca_set_fault_opcode(ha, VROCE_CMD_ATTACH_MCAST);
		vroce_hca_set_faults(ha, 1, st[i].status, 0, 0);
		KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[0].qp, g, 0),
				st[i].err);
		vroce_hca_faults_clear(ha);
	}
	mc_round(test, f, none, 7);

	KUNIT_ASSERT_EQ(test, ib_attach_mcast(f->r[0].qp, g, 0), 0);
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		vroce_hca_set_fault_opcode(ha, VROCE_CMD_DETACH_MCAST);
		vroce_hca_set_faults(ha, 1, st[i].status, 0, 0);
		KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp, g, 0),
				st[i].err);
		vroce_hca_faults_clear(ha);
	}
	KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[0], 100), 0);
	mc_round(test, f, r0, 8);

	/*
	 * A lost DETACH_MCAST stands, as a destroy does (the core must be
	 * able to destroy the QP): 0, and the HCA, which acted, delivers
	 * nothing more to the QP.
	 */
	vroce_hca_set_fault_opcode(ha, VROCE_CMD_DETACH_MCAST);
	vroce_hca_set_faults(ha, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp, g, 0), 0);
	vroce_hca_faults_clear(ha);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->r[0].qp->usecnt), 0);
	mc_round(test, f, none, 9);

	/*
	 * A lost ATTACH_MCAST: -ETIMEDOUT, and the driver undoes what the
	 * HCA did (a DETACH_MCAST): the QP is in no group, and attaches
	 * again.
	 */
	vroce_hca_set_fault_opcode(ha, VROCE_CMD_ATTACH_MCAST);
	vroce_hca_set_faults(ha, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[0].qp, g, 0), -ETIMEDOUT);
	vroce_hca_faults_clear(ha);
	mc_round(test, f, none, 10);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(f->r[0].qp, g, 0), 0);
	KUNIT_ASSERT_EQ(test, mc_post_recv(&f->r[0], 100), 0);
	mc_round(test, f, r0, 11);
	KUNIT_EXPECT_EQ(test, ib_detach_mcast(f->r[0].qp, g, 0), 0);
	vroce_test_expect_no_memory_held(test, f->va);
}

/*
 * An HCA whose firmware offers neither VROCE_CAP_UC nor VROCE_CAP_MCAST
 * (QUERY_DEVICE's caps): the driver bound to it reports no multicast
 * groups and refuses UC QPs and attaching (-EOPNOTSUPP); the HCA itself
 * refuses ATTACH_MCAST and DETACH_MCAST (BAD_OPCODE) and a UC CREATE_QP.
 */
static void vroce_mcast_no_cap(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct platform_device *pdev = vroce_hca_pdev(hca);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct mc_qp q;
	struct ib_pd *pd;
	struct ib_qp *qp;

	device_release_driver(&pdev->dev);
	vroce_hca_set_caps(hca, VROCE_CAP_MR_ENABLE);
	KUNIT_ASSERT_EQ(test, device_attach(&pdev->dev), 1);
	vdev = platform_get_drvdata(pdev);
	KUNIT_ASSERT_NOT_NULL(test, vdev);
	vroce_test_rebase(test, vdev);
	KUNIT_EXPECT_EQ(test, vdev->attr.caps & (VROCE_CAP_UC | VROCE_CAP_MCAST),
			0);
	KUNIT_EXPECT_EQ(test, vdev->ibdev.attrs.max_mcast_grp, 0);
	KUNIT_EXPECT_EQ(test, vdev->ibdev.attrs.max_mcast_qp_attach, 0);

	pd = vroce_test_pd(test, vdev, 0);
	mc_qp(test, &q, vdev, pd, IB_QPT_UD, MC_QKEY);
	init.send_cq = q.cq;
	init.recv_cq = q.cq;
	qp = ib_create_qp(pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	KUNIT_EXPECT_EQ(test, ib_attach_mcast(q.qp, (union ib_gid *)&mc_gid, 0),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vroce_cmd_attach_mcast(vdev, q.qp->qp_num,
						     mc_gid.raw), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vroce_cmd_detach_mcast(vdev, q.qp->qp_num,
						     mc_gid.raw), -EOPNOTSUPP);
}

static struct kunit_case vroce_mcast_cases[] = {
	KUNIT_CASE(vroce_mcast_deliver),
	KUNIT_CASE(vroce_mcast_qkey_loopback),
	KUNIT_CASE(vroce_mcast_bad_inputs),
	KUNIT_CASE(vroce_mcast_destroy_detaches),
	KUNIT_CASE(vroce_mcast_faults),
	KUNIT_CASE(vroce_mcast_no_cap),
	{}
};

static struct kunit_suite vroce_mcast_suite = {
	.name = "vroce_mcast",
	.test_cases = vroce_mcast_cases,
};

kunit_test_suite(vroce_mcast_suite);
