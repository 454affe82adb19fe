// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_ud: datagrams through the RDMA core's own API. UD QPs
 * on the emulated HCA send to address handles (rdma_create_ah()) built
 * from the port's GIDs; each receive starts with the 40-byte GRH the HCA
 * writes; Q_Keys decide what is received; the GSI QP that ib_mad made is
 * QP 1 and the only one; an AH is a copy in every WQE, so destroying it
 * after posting changes nothing, and creating it never sleeps.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <net/checksum.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define UD_QKEY		0x11111111
#define UD_MSG		256
#define UD_BUF		(VROCE_GRH_SIZE + VROCE_MAX_UD_MSG + 64)
#define POLL_MS		3000

/* A lock as ib_cm holds one around rdma_create_ah(). */
static DEFINE_SPINLOCK(ud_atomic_lock);

/* Two UD QPs on one CQ, a buffer each, and an AH to the port's GID 0. */
struct ud_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
	struct ib_ah *ah;
	union ib_gid gid;
};

KUNIT_DEFINE_ACTION_WRAPPER(ud_free_cq, ib_free_cq, struct ib_cq *);

static void ud_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void ud_destroy_ah(void *data)
{
	rdma_destroy_ah(data, RDMA_DESTROY_AH_SLEEPABLE);
}

static int ud_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, POLL_MS);
}

/* RESET -> INIT (Q_Key @qkey) -> RTR -> RTS. */
static int ud_ready(struct ib_qp *qp, u32 qkey)
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
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static struct ib_qp *ud_qp(struct kunit *test, struct ud_pair *p,
			   enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.qp_type = type, .send_cq = p->cq, .recv_cq = p->cq,
		.sq_sig_type = IB_SIGNAL_ALL_WR, .port_num = 1,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ib_qp *qp = ib_create_qp(p->pd, &init);

	if (IS_ERR(qp))
		return qp;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ud_destroy_qp,
							qp), 0);
	return qp;
}

/* The port's GID @index once the core has it (its table fills in a work). */
static int ud_gid(struct vroce_dev *vdev, int index, union ib_gid *gid)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < 100; i++) {
		attr = rdma_get_gid_attr(&vdev->ibdev, 1, index);
		if (!IS_ERR(attr)) {
			*gid = attr->gid;
			rdma_put_gid_attr(attr);
			return 0;
		}
		msleep(20);
	}
	return -ENOENT;
}

static struct ib_ah *ud_ah(struct ud_pair *p, union ib_gid *dgid,
			   u32 flags)
{
	struct rdma_ah_attr attr = {};

	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, dgid, 0x12345, 0, 64, 0x20);
	/* A kernel caller resolves the MAC itself (rdma_cm, ib_cm do). */
	ether_addr_copy(attr.roce.dmac, p->vdev->netdev->dev_addr);
	return rdma_create_ah(p->pd, &attr, flags);
}

static struct ud_pair *ud_pair(struct kunit *test, u32 qkey0, u32 qkey1)
{
	struct ud_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vroce_test_dev(test);
	p->pd = vroce_test_pd(test, p->vdev, 0);
	p->cq = ib_alloc_cq(&p->vdev->ibdev, NULL, 32, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ud_free_cq,
							p->cq), 0);
	for (i = 0; i < 2; i++) {
		p->qp[i] = ud_qp(test, p, IB_QPT_UD);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->qp[i]);
		KUNIT_EXPECT_GT(test, p->qp[i]->qp_num, VROCE_GSI_QPN);
		KUNIT_ASSERT_EQ(test, ud_ready(p->qp[i], i ? qkey1 : qkey0), 0);
		p->buf[i] = vroce_test_kbuf(test, p->vdev, UD_BUF);
	}
	KUNIT_ASSERT_EQ(test, ud_gid(p->vdev, 0, &p->gid), 0);
	p->ah = ud_ah(p, &p->gid, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->ah);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ud_destroy_ah,
							p->ah), 0);
	return p;
}

static int ud_post_recv(struct ud_pair *p, int side, u64 wr_id, u32 len)
{
	struct ib_sge sge = {
		.addr = p->buf[side]->dma, .length = len,
		.lkey = p->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(p->qp[side], &wr, NULL);
}

/* Send @len bytes of side 0's buffer (past its GRH room) to QP @dqpn. */
static int ud_send(struct ud_pair *p, struct ib_ah *ah, u32 dqpn, u32 qkey,
		   u32 len, enum ib_wr_opcode op)
{
	struct ib_sge sge = {
		.addr = p->buf[0]->dma + VROCE_GRH_SIZE, .length = len,
		.lkey = p->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0xabcd) },
		.ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey,
	};

	return ib_post_send(p->qp[0], &wr.wr, NULL);
}

/* One send and its receive, both successful; @wc[1] is the receive. */
static void ud_expect_delivered(struct kunit *test, struct ud_pair *p,
				struct ib_wc *wc, u32 len)
{
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, wc, 2), 2);
	if (wc[0].opcode != IB_WC_SEND)
		swap(wc[0], wc[1]);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 7);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RECV);
	KUNIT_EXPECT_PTR_EQ(test, wc[1].qp, p->qp[1]);
	KUNIT_EXPECT_EQ(test, wc[1].byte_len, VROCE_GRH_SIZE + len);
	KUNIT_EXPECT_EQ(test, wc[1].src_qp, p->qp[0]->qp_num);
	KUNIT_EXPECT_EQ(test, wc[1].pkey_index, 0);
	KUNIT_EXPECT_TRUE(test, wc[1].wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_TRUE(test, wc[1].wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_TRUE(test, wc[1].wc_flags & IB_WC_WITH_SMAC);
	KUNIT_EXPECT_MEMEQ(test, wc[1].smac, p->vdev->netdev->dev_addr,
			   ETH_ALEN);
}

/*
 * A datagram to the port's own link-local GID: delivered whole behind an
 * IPv6 header carrying both GIDs, the AH's flow label, traffic class and
 * hop limit; the completion says so, with the sender's QP and MAC.
 */
static void vroce_ud_send_recv(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct ipv6hdr *ip6;
	struct ib_wc wc[2];
	u8 *rx, *tx;

	tx = p->buf[0]->va + VROCE_GRH_SIZE;
	rx = p->buf[1]->va;
	vroce_test_fill(tx, UD_MSG, 3);
	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 1, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND_WITH_IMM), 0);
	ud_expect_delivered(test, p, wc, UD_MSG);
	KUNIT_EXPECT_EQ(test, wc[1].network_hdr_type, RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_TRUE(test, wc[1].wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc[1].ex.imm_data), 0xabcd);

	dma_sync_single_for_cpu(p->buf[1]->dev, p->buf[1]->dma, UD_BUF,
				DMA_BIDIRECTIONAL);
	ip6 = (struct ipv6hdr *)rx;
	KUNIT_EXPECT_EQ(test, (int)ip6->version, 6);
	KUNIT_EXPECT_EQ(test, ip6->nexthdr, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ip6->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, ip6_flowlabel(ip6), cpu_to_be32(0x12345));
	KUNIT_EXPECT_EQ(test, ip6_tclass(ip6_flowinfo(ip6)), 0x20);
	KUNIT_EXPECT_MEMEQ(test, &ip6->saddr, p->gid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, &ip6->daddr, p->gid.raw, 16);
	/* The core reads the same addresses back out of it. */
	KUNIT_EXPECT_EQ(test, ib_get_rdma_header_version((void *)rx), 6);
	KUNIT_EXPECT_MEMEQ(test, rx + VROCE_GRH_SIZE, tx, UD_MSG);
}

/*
 * RoCE v2 over IPv4 as the HCA writes it: 20 bytes left zero, then an
 * IPv4 header with a checksum that holds and both addresses. The port has
 * no IPv4 address here, so the AH's vector (what every WQE copies) is
 * given IPv4-mapped GIDs by hand; the HCA picks the header by them.
 */
static void ud_del_gid(void *data)
{
	const struct ib_gid_attr *attr = data;

	attr->device->ops.del_gid(attr, NULL);
}

static void vroce_ud_ipv4_grh(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct vroce_ah *ah = to_vroce_ah(p->ah);
	struct ib_gid_attr *gattr;
	const struct ib_gid_attr *used;
	struct ib_wc wc[2];
	struct iphdr *ip;
	u8 *rx;

	/* 192.0.2.1 -> 192.0.2.2 (::ffff:c000:201, ::ffff:c000:202). */
	ipv6_addr_set_v4mapped(cpu_to_be32(0xc0000201),
			       (struct in6_addr *)ah->av.sgid);
	ipv6_addr_set_v4mapped(cpu_to_be32(0xc0000202),
			       (struct in6_addr *)ah->av.dgid);
	/*
	 * The source must be one of the port's GIDs (the HCA's table,
	 * review of issue 31): the HCA's last entry gets it, as add_gid
	 * would write it for an IPv4 address of the netdev.
	 */
	used = rdma_get_gid_attr(&p->vdev->ibdev, 1, VROCE_GID_TBL_LEN - 1);
	if (!IS_ERR(used)) {
		rdma_put_gid_attr(used);
		kunit_skip(test, "the core uses the last GID entry");
	}
	gattr = kunit_kzalloc(test, sizeof(*gattr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gattr);
	gattr->device = &p->vdev->ibdev;
	gattr->port_num = 1;
	gattr->index = VROCE_GID_TBL_LEN - 1;
	gattr->gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	memcpy(gattr->gid.raw, ah->av.sgid, 16);
	KUNIT_ASSERT_EQ(test, p->vdev->ibdev.ops.add_gid(gattr, NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ud_del_gid,
							gattr), 0);

	rx = p->buf[1]->va;
	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 1, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	ud_expect_delivered(test, p, wc, UD_MSG);
	KUNIT_EXPECT_EQ(test, wc[1].network_hdr_type, RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_FALSE(test, wc[1].wc_flags & IB_WC_WITH_IMM);

	dma_sync_single_for_cpu(p->buf[1]->dev, p->buf[1]->dma, UD_BUF,
				DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(rx, 0, 20));
	ip = (struct iphdr *)(rx + 20);
	KUNIT_EXPECT_EQ(test, (int)ip->version, 4);
	KUNIT_EXPECT_EQ(test, (int)ip->ihl, 5);
	KUNIT_EXPECT_EQ(test, ip->protocol, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ip->ttl, 64);
	KUNIT_EXPECT_EQ(test, ip->tos, 0x20);
	KUNIT_EXPECT_EQ(test, ip->saddr, cpu_to_be32(0xc0000201));
	KUNIT_EXPECT_EQ(test, ip->daddr, cpu_to_be32(0xc0000202));
	KUNIT_EXPECT_EQ(test, ip_fast_csum(ip, ip->ihl), 0);
	KUNIT_EXPECT_EQ(test, ib_get_rdma_header_version((void *)rx), 4);
}

/*
 * Q_Keys: a datagram whose Q_Key differs from the receiver's is dropped
 * (the sender still completes; the receive stays posted); bit 31 set in
 * the work request sends with the sender's own Q_Key.
 */
static void vroce_ud_qkey(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY + 1);
	struct vroce_hca *hca = vroce_test_hca(test);
	u32 dropped = vroce_hca_ud_dropped(hca);
	struct ib_qp_attr attr = {};
	struct ib_wc wc[2];

	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 1, UD_BUF), 0);
	/* The sender's own Q_Key is not the receiver's. */
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num,
				      IB_QP_SET_QKEY, UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	msleep(20);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, wc), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 2);

	/* The right Q_Key takes the receive that is still posted. */
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num,
				      UD_QKEY + 1, UD_MSG, IB_WR_SEND), 0);
	ud_expect_delivered(test, p, wc, UD_MSG);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 1);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 2);

	/* Bit 31 with a sender whose own Q_Key is the receiver's: taken. */
	attr.qkey = UD_QKEY + 1;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[0], &attr, IB_QP_QKEY), 0);
	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 3, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num,
				      IB_QP_SET_QKEY, UD_MSG, IB_WR_SEND), 0);
	ud_expect_delivered(test, p, wc, UD_MSG);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 3);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 2);
}

/*
 * Lost datagrams complete at the sender all the same: no QP with that
 * number, a QP not yet in RTR, no receive posted (UD has no RNR).
 */
static void vroce_ud_dropped(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct vroce_hca *hca = vroce_test_hca(test);
	u32 dropped = vroce_hca_ud_dropped(hca);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	struct ib_wc wc;

	/* No receive posted. */
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	/* No such QP. */
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, 0xfffff0, UD_QKEY, UD_MSG,
				      IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	/* A receiver in RESET (which forgets its receive queue). */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	msleep(20);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 3);
}

/*
 * Bad datagrams: RDMA opcodes and a QPN past 24 bits are refused at
 * posting; a message past the MTU fails at the sender; one too big for
 * the receive posted (GRH and message) is dropped and leaves the
 * receiver alone: its receive stays for the next datagram that fits, its
 * QP in RTS (a sender must not be able to fail another's QP by size).
 */
static void vroce_ud_bad_inputs(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_wc wc[2];
	u32 dropped;

	KUNIT_EXPECT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_RDMA_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND_WITH_INV), -EINVAL);
	KUNIT_EXPECT_EQ(test, ud_send(p, p->ah, BIT(24), UD_QKEY, UD_MSG,
				      IB_WR_SEND), -EINVAL);
	KUNIT_EXPECT_EQ(test, ud_send(p, NULL, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), -EINVAL);

	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 1, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      VROCE_MAX_UD_MSG + 1, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, p->qp[0]);

	/* Room for the message, not for the GRH in front of it. */
	p->qp[0] = ud_qp(test, p, IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->qp[0]);
	KUNIT_ASSERT_EQ(test, ud_ready(p->qp[0], UD_QKEY), 0);
	p->qp[1] = ud_qp(test, p, IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->qp[1]);
	KUNIT_ASSERT_EQ(test, ud_ready(p->qp[1], UD_QKEY), 0);
	dropped = vroce_hca_ud_dropped(vroce_test_hca(test));
	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 2, UD_MSG), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, p->qp[0]);
	msleep(20);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, wc), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(vroce_test_hca(test)),
			dropped + 1);
	KUNIT_ASSERT_EQ(test, ib_query_qp(p->qp[1], &attr, IB_QP_STATE, &init),
			0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	/* The receive still posted takes a datagram that fits. */
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, p->qp[1]->qp_num, UD_QKEY,
				      UD_MSG - VROCE_GRH_SIZE, IB_WR_SEND), 0);
	ud_expect_delivered(test, p, wc, UD_MSG - VROCE_GRH_SIZE);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2);
}

/*
 * The GSI QP: ib_mad made QP 1 when the device registered, ready to
 * receive; a second GSI QP is refused (the HCA has one), and UD QPs never
 * get number 0 or 1. A UD QP reaches QP 1 only with the GSI Q_Key.
 */
static void vroce_ud_gsi(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct vroce_qp *gsi = xa_load(&p->vdev->qps, VROCE_GSI_QPN);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_qp *qp;
	struct ib_wc wc;
	u32 dropped;

	KUNIT_ASSERT_NOT_NULL(test, gsi);
	KUNIT_EXPECT_EQ(test, gsi->ibqp.qp_type, IB_QPT_GSI);
	KUNIT_EXPECT_EQ(test, gsi->ibqp.qp_num, 1);
	KUNIT_ASSERT_EQ(test, ib_query_qp(&gsi->ibqp, &attr, IB_QP_STATE |
					  IB_QP_QKEY, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.qkey, IB_QP1_QKEY);
	KUNIT_EXPECT_EQ(test, init.qp_type, IB_QPT_GSI);

	qp = ud_qp(test, p, IB_QPT_GSI);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EBUSY);
	KUNIT_EXPECT_GT(test, p->qp[0]->qp_num, 1);
	KUNIT_EXPECT_GT(test, p->qp[1]->qp_num, 1);

	/*
	 * A datagram to QP 1 with the sender's own Q_Key: dropped unless
	 * that is the GSI Q_Key (then ib_mad takes it, and drops the junk).
	 */
	dropped = vroce_hca_ud_dropped(hca);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, VROCE_GSI_QPN, IB_QP1_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 1);
	attr.qkey = IB_QP1_QKEY;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[0], &attr, IB_QP_QKEY), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, p->ah, VROCE_GSI_QPN, IB_QP1_QKEY,
				      UD_MSG, IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 1);
	/* The GSI QP took it and is still up. */
	KUNIT_ASSERT_EQ(test, ib_query_qp(&gsi->ibqp, &attr, IB_QP_STATE,
					  &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
}

/*
 * Address handles: created under a spinlock (ib_cm does that) without
 * sleeping; destroyed right after a post, the datagram still reaches the
 * address it named (the WQE has its own copy).
 */
static void vroce_ud_ah_lifetime(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct ib_wc wc[2];
	struct ib_ah *ah;

	spin_lock(&ud_atomic_lock);
	ah = ud_ah(p, &p->gid, 0);
	spin_unlock(&ud_atomic_lock);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);

	vroce_test_fill(p->buf[0]->va + VROCE_GRH_SIZE, UD_MSG, 9);
	KUNIT_ASSERT_EQ(test, ud_post_recv(p, 1, 1, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, ah, p->qp[1]->qp_num, UD_QKEY, UD_MSG,
				      IB_WR_SEND), 0);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ud_expect_delivered(test, p, wc, UD_MSG);
	dma_sync_single_for_cpu(p->buf[1]->dev, p->buf[1]->dma, UD_BUF,
				DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, p->buf[1]->va + VROCE_GRH_SIZE,
			   p->buf[0]->va + VROCE_GRH_SIZE, UD_MSG);

	/* An IB (not RoCE) address vector is refused. */
	{
		struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_IB };

		rdma_ah_set_port_num(&attr, 1);
		ah = rdma_create_ah(p->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		KUNIT_EXPECT_TRUE(test, IS_ERR(ah));
	}
}

/*
 * A datagram across the wire: from a UD QP of one HCA to one of another,
 * by the other port's GID and MAC; the receive says who sent it (QP and
 * MAC) and its GRH carries both ports' GIDs.
 */
static void vroce_ud_two_hcas(struct kunit *test)
{
	struct ud_pair *p = ud_pair(test, UD_QKEY, UD_QKEY);
	struct vroce_dev *vb = platform_get_drvdata(vroce_test_add_pdev(test));
	struct ipv6hdr *ip6;
	union ib_gid gid_b;
	struct ib_wc wc;
	struct ib_ah *ah;
	struct ud_pair *b;

	KUNIT_ASSERT_NOT_NULL(test, vb);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->vdev = vb;
	b->pd = vroce_test_pd(test, vb, 0);
	b->cq = ib_alloc_cq(&vb->ibdev, NULL, 32, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ud_free_cq,
							b->cq), 0);
	b->buf[1] = vroce_test_kbuf(test, vb, UD_BUF);
	b->qp[1] = ud_qp(test, b, IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->qp[1]);
	KUNIT_ASSERT_EQ(test, ud_ready(b->qp[1], UD_QKEY), 0);
	KUNIT_ASSERT_EQ(test, ud_gid(vb, 0, &gid_b), 0);

	/* An AH of A's PD to B's port. */
	{
		struct rdma_ah_attr attr = {};

		attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr, 1);
		rdma_ah_set_grh(&attr, &gid_b, 0, 0, 32, 0);
		ether_addr_copy(attr.roce.dmac, vb->netdev->dev_addr);
		ah = rdma_create_ah(p->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								ud_destroy_ah,
								ah), 0);
	}

	vroce_test_fill(p->buf[0]->va + VROCE_GRH_SIZE, UD_MSG, 5);
	KUNIT_ASSERT_EQ(test, ud_post_recv(b, 1, 11, UD_BUF), 0);
	KUNIT_ASSERT_EQ(test, ud_send(p, ah, b->qp[1]->qp_num, UD_QKEY, UD_MSG,
				      IB_WR_SEND), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, ud_poll(b->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 11);
	KUNIT_EXPECT_EQ(test, wc.byte_len, VROCE_GRH_SIZE + UD_MSG);
	KUNIT_EXPECT_EQ(test, wc.src_qp, p->qp[0]->qp_num);
	KUNIT_EXPECT_MEMEQ(test, wc.smac, p->vdev->netdev->dev_addr, ETH_ALEN);
	dma_sync_single_for_cpu(b->buf[1]->dev, b->buf[1]->dma, UD_BUF,
				DMA_BIDIRECTIONAL);
	ip6 = b->buf[1]->va;
	KUNIT_EXPECT_MEMEQ(test, &ip6->saddr, p->gid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, &ip6->daddr, gid_b.raw, 16);
	KUNIT_EXPECT_EQ(test, ip6->hop_limit, 32);
	KUNIT_EXPECT_MEMEQ(test, b->buf[1]->va + VROCE_GRH_SIZE,
			   p->buf[0]->va + VROCE_GRH_SIZE, UD_MSG);
	/* Nothing arrived at A's own QP. */
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
}

static struct kunit_case vroce_ud_cases[] = {
	KUNIT_CASE(vroce_ud_send_recv),
	KUNIT_CASE(vroce_ud_ipv4_grh),
	KUNIT_CASE(vroce_ud_qkey),
	KUNIT_CASE(vroce_ud_dropped),
	KUNIT_CASE(vroce_ud_bad_inputs),
	KUNIT_CASE(vroce_ud_gsi),
	KUNIT_CASE(vroce_ud_ah_lifetime),
	KUNIT_CASE(vroce_ud_two_hcas),
	{}
};

static struct kunit_suite vroce_ud_suite = {
	.name = "vroce_ud",
	.test_cases = vroce_ud_cases,
};

kunit_test_suite(vroce_ud_suite);
