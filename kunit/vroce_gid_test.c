// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_gid (review of issue 31): the port's GID table in the
 * HCA. The driver writes it from the RDMA core's add_gid and del_gid
 * (SET_GID), and the HCA checks each datagram's source GID against it: a
 * process's UD QP (a kernel QP made unprivileged, vroce_dev.kunit_unpriv,
 * whose WQE the test rewrites behind the driver's back as a process
 * writes its mapped ring) that forges one gets LOC_QP_OP_ERR and its QP
 * goes to ERR; a kernel QP's datagram with an address the port lost is
 * dropped. Both count in sgid_refused, and nothing reaches the receiver.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/driver/vroce_cmd.h"
#include "../c/driver/vroce_ring.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define GT_QKEY		0x11111111
#define GT_MSG		64
#define GT_BUF		(VROCE_GRH_SIZE + VROCE_MAX_UD_MSG)
#define GT_POLL_MS	3000
#define GT_IDLE_MS	200

/* Not the port's: an address no netdev of the test kernel has. */
static const u8 gt_forged[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
};

/* One the test adds to a free entry and removes again. */
static const u8 gt_added[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x31,
};

/*
 * A receiver (a kernel UD QP with a receive buffer), a kernel sender, an
 * AH to the port's GID 0, and process memory with a user MR over it for
 * the unprivileged senders.
 */
struct gt_fix {
	struct vroce_dev *vdev;
	struct vroce_hca *hca;
	struct ib_pd *pd;
	struct ib_cq *cq;	/* the senders' */
	struct ib_cq *rcq;	/* the receiver's */
	struct ib_qp *rqp;
	struct ib_qp *kqp;
	struct vroce_test_kbuf *rbuf;
	struct vroce_test_kbuf *kbuf;
	unsigned long map;
	struct ib_mr *umr;
	struct ib_ah *ah;
	union ib_gid gid;
};

KUNIT_DEFINE_ACTION_WRAPPER(gt_free_cq, ib_free_cq, struct ib_cq *);

static void gt_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void gt_destroy_ah(void *data)
{
	rdma_destroy_ah(data, RDMA_DESTROY_AH_SLEEPABLE);
}

static void gt_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static struct ib_qp *gt_qp_on(struct kunit *test, struct gt_fix *f,
			      struct ib_cq *cq, bool unpriv)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_ALL_WR, .port_num = 1,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = GT_QKEY,
	};
	struct ib_qp *qp;

	f->vdev->kunit_unpriv = unpriv;
	qp = ib_create_qp(f->pd, &init);
	f->vdev->kunit_unpriv = false;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_destroy_qp,
							qp), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_QKEY), 0);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_SQ_PSN), 0);
	return qp;
}

/* A sender on the senders' CQ: a process's (@unpriv) or the kernel's. */
static struct ib_qp *gt_qp(struct kunit *test, struct gt_fix *f, bool unpriv)
{
	return gt_qp_on(test, f, f->cq, unpriv);
}

/* A test that failed while the HCA held a QP lets it go. */
static void gt_unhold(void *hca)
{
	vroce_hca_hold_qp(hca, 0);
}

static struct gt_fix *gt_fix(struct kunit *test)
{
	struct gt_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	const struct ib_gid_attr *gattr = ERR_PTR(-ENOENT);
	struct rdma_ah_attr ah_attr = {};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->vdev = vroce_test_dev(test);
	f->hca = vroce_test_hca(test);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_unhold,
							f->hca), 0);
	KUNIT_ASSERT_TRUE(test, f->vdev->attr.caps & VROCE_CAP_GID_TABLE);
	f->pd = vroce_test_pd(test, f->vdev, 0);
	f->cq = ib_alloc_cq(&f->vdev->ibdev, NULL, 32, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_cq,
							f->cq), 0);
	f->rcq = ib_alloc_cq(&f->vdev->ibdev, NULL, 32, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->rcq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_cq,
							f->rcq), 0);
	f->rbuf = vroce_test_kbuf(test, f->vdev, GT_BUF);
	f->kbuf = vroce_test_kbuf(test, f->vdev, GT_MSG);
	f->map = vroce_test_user_mem(test, 3 * SZ_4K, 3);
	f->umr = ib_reg_user_mr(f->pd, f->map + SZ_4K, SZ_4K, f->map + SZ_4K,
				IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->umr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_dereg_mr,
							f->umr), 0);
	f->rqp = gt_qp_on(test, f, f->rcq, false);
	f->kqp = gt_qp(test, f, false);
	/* The port's GID 0, once the core's table (and the HCA's) has it. */
	for (i = 0; i < 100 && IS_ERR(gattr); i++) {
		gattr = rdma_get_gid_attr(&f->vdev->ibdev, 1, 0);
		if (IS_ERR(gattr))
			msleep(20);
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(gattr));
	f->gid = gattr->gid;
	rdma_put_gid_attr(gattr);
	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah_attr, 1);
	rdma_ah_set_grh(&ah_attr, &f->gid, 0, 0, 64, 0);
	ether_addr_copy(ah_attr.roce.dmac, f->vdev->netdev->dev_addr);
	f->ah = rdma_create_ah(f->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->ah);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_destroy_ah,
							f->ah), 0);
	return f;
}

static u64 gt_counter(struct kunit *test, struct gt_fix *f, u32 c)
{
	u64 v[VROCE_CNT_NUM];

	KUNIT_ASSERT_EQ(test, vroce_cmd_query_counters(f->vdev, v), 0);
	return v[c];
}

static enum ib_qp_state gt_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_RESET;
	return attr.qp_state;
}

static void gt_post_recv(struct kunit *test, struct gt_fix *f, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = f->rbuf->dma, .length = GT_BUF,
		.lkey = f->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	memset(f->rbuf->va, 0, GT_BUF);
	KUNIT_ASSERT_EQ(test, ib_post_recv(f->rqp, &wr, NULL), 0);
}

/*
 * Post a SEND of @qp to the receiver, with @sgid written over its WQE's
 * source GID (NULL: the AH's) while the HCA holds the QP, as a process
 * writes its ring; its completion in @wc.
 */
/* gt_send()'s first half: the HCA holds @qp until gt_send_posted(). */
static void gt_send_held(struct kunit *test, struct gt_fix *f,
			 struct ib_qp *qp, u64 wr_id, const u8 *sgid)
{
	bool user = qp != f->kqp;
	struct ib_sge sge = {
		.addr = user ? f->map + SZ_4K : f->kbuf->dma,
		.length = GT_MSG,
		.lkey = user ? f->umr->lkey : f->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND },
		.ah = f->ah, .remote_qpn = f->rqp->qp_num,
		.remote_qkey = GT_QKEY,
	};
	struct vroce_qp *vqp = to_vroce_qp(qp);
	struct vroce_send_wqe *wqe;
	u32 idx = vqp->sq.pi;

	vroce_hca_hold_qp(f->hca, qp->qp_num);
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, &wr.wr, NULL), 0);
	if (sgid) {
		wqe = vroce_ring_slot(&vqp->sq.ring, idx);
		memcpy(wqe->av.sgid, sgid, sizeof(wqe->av.sgid));
	}
}

/* gt_send()'s second half: the HCA lets go, the completion comes. */
static void gt_send_posted(struct kunit *test, struct gt_fix *f,
			   struct ib_qp *qp, u64 wr_id, struct ib_wc *wc)
{
	vroce_hca_hold_qp(f->hca, 0);
	KUNIT_ASSERT_EQ(test, vroce_test_poll(qp->send_cq, wc, 1, GT_POLL_MS),
			1);
	KUNIT_EXPECT_EQ(test, wc->wr_id, wr_id);
	KUNIT_EXPECT_PTR_EQ(test, wc->qp, qp);
}

static void gt_send(struct kunit *test, struct gt_fix *f, struct ib_qp *qp,
		    u64 wr_id, const u8 *sgid, struct ib_wc *wc)
{
	gt_send_held(test, f, qp, wr_id, sgid);
	gt_send_posted(test, f, qp, wr_id, wc);
}

/* The receive posted came, from @sgid (the GRH's IPv6 source). */
static void gt_expect_recv(struct kunit *test, struct gt_fix *f,
			   const u8 *sgid)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, vroce_test_poll(f->rcq, &wc, 1, GT_POLL_MS), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, f->rqp);
	KUNIT_EXPECT_EQ(test, wc.byte_len, VROCE_GRH_SIZE + GT_MSG);
	dma_sync_single_for_cpu(f->rbuf->dev, f->rbuf->dma, GT_BUF,
				DMA_BIDIRECTIONAL);
	/* struct ipv6hdr: the source address at byte 8. */
	KUNIT_EXPECT_MEMEQ(test, (u8 *)f->rbuf->va + 8, sgid, 16);
}

/* Nothing reached the receiver: its receive is still posted. */
static void gt_expect_no_recv(struct kunit *test, struct gt_fix *f)
{
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, vroce_test_poll(f->rcq, &wc, 1, GT_IDLE_MS), 0);
}

/* The RDMA core's view of an entry the test adds and removes. */
static void gt_attr(struct gt_fix *f, struct ib_gid_attr *attr, u32 index,
		    const u8 *gid)
{
	memset(attr, 0, sizeof(*attr));
	attr->device = &f->vdev->ibdev;
	attr->port_num = 1;
	attr->index = index;
	attr->gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	memcpy(attr->gid.raw, gid, 16);
}

/* The last entry of the port's table, which the core leaves empty here. */
static u32 gt_free_index(struct kunit *test, struct gt_fix *f)
{
	const struct ib_gid_attr *a;
	u32 index = VROCE_MAX_GID - 1;

	a = rdma_get_gid_attr(&f->vdev->ibdev, 1, index);
	if (!IS_ERR(a)) {
		rdma_put_gid_attr(a);
		kunit_skip(test, "GID entry %u is the core's", index);
	}
	return index;
}

struct gt_added {
	struct gt_fix *f;
	u32 index;
};

/* Whatever the test did, the entry it added goes. */
static void gt_del_action(void *data)
{
	struct gt_added *a = data;
	struct ib_gid_attr attr;

	gt_attr(a->f, &attr, a->index, gt_added);
	a->f->vdev->ibdev.ops.del_gid(&attr, NULL);
}

static void gt_track(struct kunit *test, struct gt_fix *f, u32 index)
{
	struct gt_added *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->f = f;
	a->index = index;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_del_action, a),
			0);
}

/* ---- the cases ---- */

/*
 * A process's UD QP: with the port's GID its datagram arrives with that
 * source; with a forged one written into its WQE, LOC_QP_OP_ERR, the QP
 * in ERR, sgid_refused and unpriv_wqe_refused + 1, nothing delivered.
 */
static void vroce_gid_forged_unpriv(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	struct ib_qp *uqp = gt_qp(test, f, true);
	u64 refused = gt_counter(test, f, VROCE_CNT_SGID_REFUSED);
	u64 unpriv = gt_counter(test, f, VROCE_CNT_UNPRIV_REFUSED);
	struct ib_wc wc;

	gt_post_recv(test, f, 1);
	gt_send(test, f, uqp, 10, NULL, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, f->gid.raw);

	gt_post_recv(test, f, 2);
	gt_send(test, f, uqp, 11, gt_forged, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, gt_state(uqp), IB_QPS_ERR);
	gt_expect_no_recv(test, f);
	KUNIT_EXPECT_EQ(test, gt_counter(test, f, VROCE_CNT_SGID_REFUSED),
			refused + 1);
	KUNIT_EXPECT_EQ(test, gt_counter(test, f, VROCE_CNT_UNPRIV_REFUSED),
			unpriv + 1);
	/* The receive waits for the next datagram, from the kernel's QP. */
	gt_send(test, f, f->kqp, 12, NULL, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, f->gid.raw);
}

/*
 * A kernel QP's datagram whose source GID the port does not have is
 * dropped: the send completes, the QP stays in RTS, sgid_refused + 1,
 * nothing delivered; the next one goes through.
 */
static void vroce_gid_forged_kernel(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	u64 refused = gt_counter(test, f, VROCE_CNT_SGID_REFUSED);
	struct ib_wc wc;

	gt_post_recv(test, f, 1);
	gt_send(test, f, f->kqp, 20, gt_forged, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, gt_state(f->kqp), IB_QPS_RTS);
	gt_expect_no_recv(test, f);
	KUNIT_EXPECT_EQ(test, gt_counter(test, f, VROCE_CNT_SGID_REFUSED),
			refused + 1);
	gt_send(test, f, f->kqp, 21, NULL, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, f->gid.raw);
}

/*
 * add_gid writes an entry, and a datagram from it arrives with it as its
 * source; after del_gid the same WQE is refused: a process's QP to ERR
 * (LOC_QP_OP_ERR), a kernel QP's datagram dropped.
 */
static void vroce_gid_deleted(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	const struct ib_device_ops *ops = &f->vdev->ibdev.ops;
	u32 index = gt_free_index(test, f);
	struct ib_qp *uqp[2] = { gt_qp(test, f, true), gt_qp(test, f, true) };
	u64 refused = gt_counter(test, f, VROCE_CNT_SGID_REFUSED);
	struct ib_gid_attr attr;
	struct ib_wc wc;

	gt_attr(f, &attr, index, gt_added);
	gt_track(test, f, index);
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	gt_post_recv(test, f, 1);
	gt_send(test, f, uqp[0], 30, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, gt_added);
	gt_post_recv(test, f, 2);
	gt_send(test, f, f->kqp, 31, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, gt_added);

	KUNIT_ASSERT_EQ(test, ops->del_gid(&attr, NULL), 0);
	gt_post_recv(test, f, 3);
	gt_send(test, f, uqp[1], 32, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, gt_state(uqp[1]), IB_QPS_ERR);
	gt_send(test, f, f->kqp, 33, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, gt_state(f->kqp), IB_QPS_RTS);
	gt_expect_no_recv(test, f);
	KUNIT_EXPECT_EQ(test, gt_counter(test, f, VROCE_CNT_SGID_REFUSED),
			refused + 2);
	/* The port's own GID still goes. */
	gt_send(test, f, uqp[0], 34, NULL, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, f->gid.raw);
}

/*
 * In flight: WQEs posted with a GID, which del_gid removes before the HCA
 * executes them (the HCA holds their QPs), are refused as any other: a
 * process's QP to ERR, a kernel QP's datagram dropped. The table is read
 * when the WQE executes, not when it is posted.
 */
static void vroce_gid_in_flight(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	const struct ib_device_ops *ops = &f->vdev->ibdev.ops;
	u32 index = gt_free_index(test, f);
	struct ib_qp *uqp = gt_qp(test, f, true);
	u64 refused = gt_counter(test, f, VROCE_CNT_SGID_REFUSED);
	struct ib_gid_attr attr;
	struct ib_wc wc;

	gt_attr(f, &attr, index, gt_added);
	gt_track(test, f, index);
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	gt_post_recv(test, f, 1);
	gt_send_held(test, f, uqp, 70, gt_added);
	KUNIT_ASSERT_EQ(test, ops->del_gid(&attr, NULL), 0);
	gt_send_posted(test, f, uqp, 70, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, gt_state(uqp), IB_QPS_ERR);

	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	gt_send_held(test, f, f->kqp, 71, gt_added);
	KUNIT_ASSERT_EQ(test, ops->del_gid(&attr, NULL), 0);
	gt_send_posted(test, f, f->kqp, 71, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_no_recv(test, f);
	KUNIT_EXPECT_EQ(test, gt_counter(test, f, VROCE_CNT_SGID_REFUSED),
			refused + 2);
}

/*
 * SET_GID's faults (the fail knob on its opcode). A failed add_gid
 * returns the errno and the HCA has no entry: the GID is refused. A
 * failed del_gid returns the errno and tries once more at once; when that
 * fails too the entry stays in the HCA, marked stale, and the next change
 * of the table empties it first.
 */
static void vroce_gid_command_faults(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	const struct ib_device_ops *ops = &f->vdev->ibdev.ops;
	u32 index = gt_free_index(test, f);
	struct ib_qp *uqp[4] = { gt_qp(test, f, true), gt_qp(test, f, true),
				 gt_qp(test, f, true), gt_qp(test, f, true) };
	struct ib_gid_attr attr, other;
	struct ib_wc wc;

	vroce_test_faults_off(test, f->hca);
	gt_attr(f, &attr, index, gt_added);
	gt_attr(f, &other, index - 1, gt_forged);
	gt_track(test, f, index);
	vroce_hca_set_fault_opcode(f->hca, VROCE_CMD_SET_GID);

	vroce_hca_set_faults(f->hca, 1, VROCE_CMD_INTERNAL, 0, 0);
	KUNIT_EXPECT_EQ(test, ops->add_gid(&attr, NULL), -EIO);
	gt_post_recv(test, f, 1);
	gt_send(test, f, uqp[0], 40, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	gt_expect_no_recv(test, f);

	/* One failure: del_gid's own retry empties it. */
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	vroce_hca_set_faults(f->hca, 1, VROCE_CMD_INTERNAL, 0, 0);
	KUNIT_EXPECT_EQ(test, ops->del_gid(&attr, NULL), -EIO);
	KUNIT_EXPECT_FALSE(test, test_bit(index, &f->vdev->gid_stale));
	gt_post_recv(test, f, 2);
	gt_send(test, f, uqp[1], 41, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	gt_expect_no_recv(test, f);

	/* Two: the retry fails too, and the entry stays, marked stale. */
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	vroce_hca_set_faults(f->hca, 2, VROCE_CMD_INTERNAL, 0, 0);
	KUNIT_EXPECT_EQ(test, ops->del_gid(&attr, NULL), -EIO);
	KUNIT_EXPECT_TRUE(test, test_bit(index, &f->vdev->gid_stale));
	/* Until the next change, the HCA still has it. */
	gt_send(test, f, uqp[2], 42, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, gt_added);

	/* An entry written elsewhere empties the stale one first. */
	KUNIT_ASSERT_EQ(test, ops->add_gid(&other, NULL), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(index, &f->vdev->gid_stale));
	KUNIT_EXPECT_EQ(test, ops->del_gid(&other, NULL), 0);
	gt_post_recv(test, f, 3);
	gt_send(test, f, uqp[3], 43, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	gt_expect_no_recv(test, f);
}

/*
 * A lost SET_GID (the drop knob: the HCA carries it out, and answers
 * nothing): add_gid fails with -ETIMEDOUT and empties the entry the HCA
 * may have written, so the GID the core does not have is refused;
 * del_gid fails with -ETIMEDOUT and empties it again. Nothing stays
 * stale.
 */
static void vroce_gid_lost(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	const struct ib_device_ops *ops = &f->vdev->ibdev.ops;
	u32 index = gt_free_index(test, f);
	struct ib_qp *uqp[2] = { gt_qp(test, f, true), gt_qp(test, f, true) };
	struct ib_gid_attr attr;
	struct ib_wc wc;

	vroce_test_faults_off(test, f->hca);
	vroce_test_cmd_timeout(test, f->vdev, 200);
	gt_attr(f, &attr, index, gt_added);
	gt_track(test, f, index);
	vroce_hca_set_fault_opcode(f->hca, VROCE_CMD_SET_GID);
	vroce_hca_set_faults(f->hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ops->add_gid(&attr, NULL), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, test_bit(index, &f->vdev->gid_stale));
	gt_post_recv(test, f, 1);
	gt_send(test, f, uqp[0], 60, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	gt_expect_no_recv(test, f);

	vroce_hca_set_faults(f->hca, 0, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	vroce_hca_set_faults(f->hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ops->del_gid(&attr, NULL), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, test_bit(index, &f->vdev->gid_stale));
	gt_send(test, f, uqp[1], 61, gt_added, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	gt_expect_no_recv(test, f);
}

/*
 * A dead device: its HCA was reset, which emptied the table. del_gid
 * succeeds in software, add_gid fails with -EIO (the core keeps no
 * entry), and nothing is left stale.
 */
static void vroce_gid_dead(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	const struct ib_device_ops *ops = &f->vdev->ibdev.ops;
	u32 index = gt_free_index(test, f);
	struct vroce_dev_attr dattr;
	struct ib_gid_attr attr;

	gt_attr(f, &attr, index, gt_added);
	KUNIT_ASSERT_EQ(test, ops->add_gid(&attr, NULL), 0);
	vroce_test_cmd_timeout(test, f->vdev, 100);
	vroce_hca_set_health(f->hca, false, true);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(f->vdev, &dattr), -EIO);
	KUNIT_ASSERT_TRUE(test, vroce_dev_dead(f->vdev));
	KUNIT_EXPECT_EQ(test, ops->del_gid(&attr, NULL), 0);
	KUNIT_EXPECT_EQ(test, ops->add_gid(&attr, NULL), -EIO);
	KUNIT_EXPECT_EQ(test, f->vdev->gid_stale, 0);
}

/*
 * SET_GID's bad parameters (BAD_PARAM: -EINVAL), and an HCA without the
 * table (VROCE_CAP_GID_TABLE): the command is BAD_OPCODE (-EOPNOTSUPP)
 * and the HCA sends any source GID, as before it.
 */
static void vroce_gid_bad_cmds(struct kunit *test)
{
	struct gt_fix *f = gt_fix(test);
	struct ib_qp *uqp = gt_qp(test, f, true);
	u8 zero[16] = {};
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, vroce_cmd_set_gid(f->vdev, VROCE_MAX_GID,
						gt_added), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_set_gid(f->vdev, VROCE_MAX_GID, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_set_gid(f->vdev, 0, zero), -EINVAL);

	vroce_hca_set_caps(f->hca, f->vdev->attr.caps & ~VROCE_CAP_GID_TABLE);
	KUNIT_EXPECT_EQ(test, vroce_cmd_set_gid(f->vdev, 0, gt_added),
			-EOPNOTSUPP);
	gt_post_recv(test, f, 1);
	gt_send(test, f, uqp, 50, gt_forged, &wc);
	vroce_hca_set_caps(f->hca, f->vdev->attr.caps);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	gt_expect_recv(test, f, gt_forged);
}

static struct kunit_case vroce_gid_cases[] = {
	KUNIT_CASE(vroce_gid_forged_unpriv),
	KUNIT_CASE(vroce_gid_forged_kernel),
	KUNIT_CASE(vroce_gid_deleted),
	KUNIT_CASE(vroce_gid_in_flight),
	KUNIT_CASE(vroce_gid_command_faults),
	KUNIT_CASE(vroce_gid_lost),
	KUNIT_CASE(vroce_gid_dead),
	KUNIT_CASE(vroce_gid_bad_cmds),
	{}
};

static struct kunit_suite vroce_gid_suite = {
	.name = "vroce_gid",
	.test_cases = vroce_gid_cases,
};

kunit_test_suite(vroce_gid_suite);
