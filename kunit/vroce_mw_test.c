// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mw (issue 30, memory windows): windows of type 1 and
 * type 2B in the HCA. The RDMA core gives kernel consumers no way to bind
 * a window (no bind work request since 5.x): a process binds through its
 * mapped send queue. The test stands in for the process: its QPs are
 * unprivileged (vroce_dev.kunit_unpriv) and it writes the BIND_MW and
 * LOCAL_INV WQEs into their rings as the provider does. Windows come from
 * the driver's alloc_mw op, as uverbs calls it.
 *
 * What is checked: remote access by a window's rkey within its range and
 * rights only, and the bytes that land; each binding rule (IBTA C10-72..75,
 * o10-36, o10-37) refusing with IB_WC_MW_BIND_ERR and leaving the window
 * as it was; type 2 bound to its QP; invalidation by LOCAL_INV, by
 * SEND_WITH_INV, by a zero-length bind (type 1) and by dealloc; an MR
 * deregistered under a bound window; alloc_mw's errors and allocation
 * faults, and a DEALLOC_MW the HCA does not answer.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/driver/vroce_cmd.h"
#include "../c/driver/vroce_ring.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define MW_LEN		SZ_16K		/* each side's MR */
#define MW_POLL_MS	5000
#define MW_DEPTH	16
#define MW_ALL		(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
#define MW_WOFF		SZ_4K		/* the window: this far into mr[1] */
#define MW_WLEN		SZ_4K

/*
 * A process's RC pair: side 0 writes to side 1 through side 1's windows;
 * both QPs unprivileged, in one PD; each side's MR (MW_BIND and every
 * right) covers MW_LEN bytes of process memory. @other is a second pair
 * of the PD's QPs, looped to each other, that no window is bound to.
 */
struct mw_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	unsigned long va[2];
	struct ib_mr *mr[2];
	struct ib_qp *other[2];
	struct ib_cq *ocq;
};

KUNIT_DEFINE_ACTION_WRAPPER(mw_free_cq, ib_free_cq, struct ib_cq *);

static void mw_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void mw_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static struct ib_cq *mw_cq(struct kunit *test, struct vroce_dev *vdev)
{
	struct ib_cq *cq = ib_alloc_cq(&vdev->ibdev, NULL, 4 * MW_DEPTH, 0,
				       IB_POLL_DIRECT);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mw_free_cq, cq),
			0);
	return cq;
}

static struct ib_qp *mw_qp(struct kunit *test, struct vroce_dev *vdev,
			   struct ib_pd *pd, struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = MW_DEPTH,
			.max_recv_wr = MW_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp *qp;

	vdev->kunit_unpriv = true;
	qp = ib_create_qp(pd, &init);
	vdev->kunit_unpriv = false;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mw_destroy_qp,
							qp), 0);
	return qp;
}

static void mw_link(struct kunit *test, struct ib_qp *a, struct ib_qp *b)
{
	const u8 *mac = to_vroce_dev(a->device)->netdev->dev_addr;

	KUNIT_ASSERT_EQ(test, vroce_lb_connect(a, b->qp_num, 0, mac, 0,
					       MW_ALL), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(b, a->qp_num, 0, mac, 0,
					       MW_ALL), 0);
}

static struct ib_mr *mw_mr(struct kunit *test, struct ib_pd *pd, u64 va,
			   int access)
{
	struct ib_mr *mr = ib_reg_user_mr(pd, va, MW_LEN, va, access);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mw_dereg_mr, mr),
			0);
	return mr;
}

static struct mw_pair *mw_pair(struct kunit *test)
{
	struct mw_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vroce_test_dev(test);
	p->pd = vroce_test_pd(test, p->vdev, 0);
	for (i = 0; i < 2; i++) {
		p->va[i] = vroce_test_user_mem(test, MW_LEN, 0x30 + i);
		p->mr[i] = mw_mr(test, p->pd, p->va[i],
				 MW_ALL | IB_ACCESS_MW_BIND);
		p->cq[i] = mw_cq(test, p->vdev);
	}
	for (i = 0; i < 2; i++)
		p->qp[i] = mw_qp(test, p->vdev, p->pd, p->cq[i]);
	mw_link(test, p->qp[0], p->qp[1]);
	p->ocq = mw_cq(test, p->vdev);
	for (i = 0; i < 2; i++)
		p->other[i] = mw_qp(test, p->vdev, p->pd, p->ocq);
	mw_link(test, p->other[0], p->other[1]);
	return p;
}

static struct ib_mw *mw_new(struct kunit *test, struct ib_pd *pd,
			    enum ib_mw_type type)
{
	struct ib_mw *mw = NULL;

	KUNIT_ASSERT_EQ(test, vroce_test_mw(test, pd, type, &mw), 0);
	return mw;
}

static int mw_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	return vroce_test_poll(cq, wc, 1, MW_POLL_MS);
}

static enum ib_qp_state mw_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_RESET;
	return attr.qp_state;
}

/*
 * Post @w on @ibqp as the process writes its mapped ring: a SEND is posted
 * while the HCA holds the QP and replaced in the ring by @w, then the QP
 * runs. Returns the completion's status (every WQE here is signaled).
 */
static enum ib_wc_status mw_post_raw(struct kunit *test, struct ib_qp *ibqp,
				     struct ib_cq *cq, struct vroce_send_wqe *w)
{
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_wc wc;
	u32 idx;

	w->flags |= VROCE_WQE_F_SIGNALED;
	w->wr_id = cpu_to_le64(0x3000);
	vroce_hca_hold_qp(hca, ibqp->qp_num);
	idx = qp->sq.pi;
	KUNIT_ASSERT_EQ(test, ib_post_send(ibqp, &wr, NULL), 0);
	memcpy(vroce_ring_slot(&qp->sq.ring, idx), w, sizeof(*w));
	vroce_hca_hold_qp(hca, 0);
	KUNIT_ASSERT_EQ(test, mw_poll(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x3000);
	if (wc.status == IB_WC_SUCCESS)
		KUNIT_EXPECT_EQ(test, wc.opcode,
				w->opcode == VROCE_WQE_BIND_MW ?
				IB_WC_BIND_MW : IB_WC_LOCAL_INV);
	return wc.status;
}

/* A BIND_MW WQE: @mw to [@iova, @iova + @len) of @mr with @access. */
static void mw_bind_wqe(struct vroce_send_wqe *w, struct ib_mw *mw, u8 tag,
			u32 mr_key, u64 iova, u64 len, u32 access)
{
	memset(w, 0, sizeof(*w));
	w->opcode = VROCE_WQE_BIND_MW;
	w->fr_key = cpu_to_le32((mw->rkey & ~0xffU) | tag);
	w->fr_iova = cpu_to_le64(iova);
	w->fr_length = cpu_to_le64(len);
	w->fr_access = cpu_to_le32(access);
	w->bind.mr_key = cpu_to_le32(mr_key);
}

/*
 * Bind @mw on side 1's QP (the responder of side 0's writes) to the
 * window range of mr[1] with @access; the window's new key.
 */
static u32 mw_bind(struct kunit *test, struct mw_pair *p, struct ib_mw *mw,
		   u32 access, enum ib_wc_status expect)
{
	struct vroce_send_wqe w;
	u8 tag = (mw->rkey & 0xff) + 1;

	mw_bind_wqe(&w, mw, tag, p->mr[1]->lkey, p->va[1] + MW_WOFF, MW_WLEN,
		    access);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			expect);
	return (mw->rkey & ~0xffU) | tag;
}

/*
 * An RDMA WRITE (or READ) of @len bytes of side 0's memory at @off from
 * @qp (side 0's, or @p->other[0]) to @raddr under @rkey: its status.
 */
static enum ib_wc_status mw_rdma(struct kunit *test, struct mw_pair *p,
				 struct ib_qp *qp, struct ib_cq *cq,
				 enum ib_wr_opcode op, u32 rkey, u64 raddr,
				 u32 len)
{
	struct ib_sge sge = { .addr = p->va[0], .length = len,
			      .lkey = p->mr[0]->lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 0x77, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.rkey = rkey,
	};
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_send(qp, &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, mw_poll(cq, &wc), 1);
	return wc.status;
}

static enum ib_wc_status mw_write(struct kunit *test, struct mw_pair *p,
				  u32 rkey, u64 raddr, u32 len)
{
	return mw_rdma(test, p, p->qp[0], p->cq[0], IB_WR_RDMA_WRITE, rkey,
		       raddr, len);
}

/* Side 1's memory at @off holds side 0's first @len bytes: 0, or -1. */
static int mw_landed(struct kunit *test, struct mw_pair *p, u32 off, u32 len)
{
	u8 *b = kunit_kmalloc(test, len, GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, copy_from_user(b, (void __user *)(p->va[1] + off),
					     len), 0);
	for (i = 0; i < len; i++)
		if (b[i] != vroce_test_pattern(i, 0x30))
			return -1;
	return 0;
}

/* Side 1's memory at @off is untouched (its own pattern): 0, or -1. */
static int mw_untouched(struct kunit *test, struct mw_pair *p, u32 off,
			u32 len)
{
	u8 *b = kunit_kmalloc(test, len, GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, copy_from_user(b, (void __user *)(p->va[1] + off),
					     len), 0);
	for (i = 0; i < len; i++)
		if (b[i] != vroce_test_pattern(off + i, 0x31))
			return -1;
	return 0;
}

/* Accounted allocations of @vdev not freed yet. */
static s64 mw_held(struct vroce_dev *vdev)
{
	return atomic64_read(&vdev->mem.allocs) -
	       atomic64_read(&vdev->mem.frees);
}

/* Whether @key grants remote write of 8 bytes at @iova (any PD, QP). */
static bool mw_key_works(struct kunit *test, u32 key, u64 iova)
{
	u8 buf[8] = {};

	return !vroce_hca_mr_access(vroce_test_hca(test), key,
				    VROCE_HCA_ANY_PD, iova, buf, sizeof(buf),
				    VROCE_ACC_REMOTE_WRITE, false);
}

/* ---- type 1 ---- */

/*
 * A type 1 window is valid from its allocation and grants nothing; bound,
 * its new key writes inside its range only, and the bytes land where the
 * window's addresses say; the key it had before the bind is dead.
 */
static void vroce_mw_type1_bind_write(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	u32 old = mw->rkey, key;

	/* Bound to nothing: its key reaches no byte. */
	KUNIT_EXPECT_EQ(test, mw_write(test, p, old, p->va[1] + MW_WOFF, 64),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_state(p->qp[0]), IB_QPS_ERR);

	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	old = mw->rkey;
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key,
				       p->va[1] + MW_WOFF + 512, 1024),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_landed(test, p, MW_WOFF + 512, 1024), 0);
	/* The MR's bytes outside what was written are unchanged. */
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 512), 0);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF + 1536, 512), 0);
	/* The last byte of the window, then one past it. */
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key,
				       p->va[1] + MW_WOFF + MW_WLEN - 1, 1),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key,
				       p->va[1] + MW_WOFF + MW_WLEN - 1, 2),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF + MW_WLEN, 64), 0);

	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	old = mw->rkey;
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, old, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
}

/*
 * A window grants only its own rights, whatever the MR's: a read through
 * a write-only window fails, and so does a write through a window bound
 * with local write only (pyverbs' test_qp_ex_rc_bind_mw).
 */
static void vroce_mw_rights(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	u32 key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);

	KUNIT_EXPECT_EQ(test, mw_rdma(test, p, p->qp[0], p->cq[0],
				      IB_WR_RDMA_READ, key,
				      p->va[1] + MW_WOFF, 64),
			IB_WC_REM_ACCESS_ERR);

	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	key = mw_bind(test, p, mw, IB_ACCESS_LOCAL_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 64),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 64), 0);

	/* And READ through a read window returns the MR's bytes. */
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_READ, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_rdma(test, p, p->qp[0], p->cq[0],
				      IB_WR_RDMA_READ, key,
				      p->va[1] + MW_WOFF, 256),
			IB_WC_SUCCESS);
}

/* A zero-length bind of a type 1 window unbinds it (no MR needed). */
static void vroce_mw_type1_unbind(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	struct vroce_send_wqe w;
	u32 key;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_SUCCESS);
	mw_bind_wqe(&w, mw, (key & 0xff) + 1, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, (key & ~0xffU) |
				       ((key + 1) & 0xff),
				       p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
}

/* ---- type 2 ---- */

/*
 * A type 2 window is free until bound; bound, it serves the QP it was
 * bound to only: the PD's other QPs get a remote access error.
 */
static void vroce_mw_type2_qp(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	u32 key;

	KUNIT_EXPECT_EQ(test, mw_write(test, p, mw->rkey, p->va[1] + MW_WOFF,
				       8), IB_WC_REM_ACCESS_ERR);
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 256),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_landed(test, p, MW_WOFF, 256), 0);
	KUNIT_EXPECT_EQ(test, mw_rdma(test, p, p->other[0], p->ocq,
				      IB_WR_RDMA_WRITE, key,
				      p->va[1] + MW_WOFF + 1024, 64),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF + 1024, 64), 0);
}

/* A LOCAL_INV WQE for @key. */
static void mw_inv_wqe(struct vroce_send_wqe *w, u32 key)
{
	memset(w, 0, sizeof(*w));
	w->opcode = VROCE_WQE_LOCAL_INV;
	w->imm_inv = cpu_to_le32(key);
}

/*
 * A process's LOCAL_INV unbinds its type 2 window (the key then fails and
 * the window may be bound again); it cannot invalidate a type 1 window
 * (o10-36), nor an unbound window (IB_WC_LOC_QP_OP_ERR both).
 */
static void vroce_mw_type2_local_inv(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	struct vroce_send_wqe w;
	u32 key, again;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	mw_inv_wqe(&w, key);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 8), 0);

	/* Free again: bound anew under another key, it works. */
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	mw_inv_wqe(&w, key);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_SUCCESS);
	mw->rkey = key;
	again = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_EXPECT_NE(test, again, key);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, again, p->va[1] + MW_WOFF, 8),
			IB_WC_SUCCESS);
	/* Unbound now? No: invalidating twice fails the second time. */
	mw_inv_wqe(&w, again);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_LOC_QP_OP_ERR);

	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	mw_inv_wqe(&w, key);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, mw_state(p->qp[1]), IB_QPS_ERR);
}

/*
 * SEND_WITH_INV naming a type 2 window bound to the receiving QP unbinds
 * it, and the receive says so (IB_WC_WITH_INVALIDATE and the key); one
 * naming a window bound to another QP is refused at the responder.
 */
static void vroce_mw_type2_remote_inv(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	struct ib_sge rsge = { .addr = p->va[1], .length = 64,
			       .lkey = p->mr[1]->lkey };
	struct ib_recv_wr rwr = { .wr_id = 5, .sg_list = &rsge, .num_sge = 1 };
	struct ib_sge ssge = { .addr = p->va[0], .length = 16,
			       .lkey = p->mr[0]->lkey };
	struct ib_send_wr swr = { .wr_id = 6, .opcode = IB_WR_SEND_WITH_INV,
				  .sg_list = &ssge, .num_sge = 1,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc;
	u32 key;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	swr.ex.invalidate_rkey = key;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &swr, NULL), 0);
	KUNIT_ASSERT_EQ(test, mw_poll(p->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, mw_poll(p->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, key);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);

	/* Bound to side 1's QP; the other pair's receiver may not. */
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	rsge.addr = p->va[1];
	rsge.lkey = p->mr[1]->lkey;
	ssge.addr = p->va[0];
	ssge.lkey = p->mr[0]->lkey;
	swr.ex.invalidate_rkey = key;
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->other[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->other[0], &swr, NULL), 0);
	KUNIT_ASSERT_EQ(test, mw_poll(p->ocq, &wc), 1);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	/* The window still serves its QP. */
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_SUCCESS);
}

/* ---- the binding rules ---- */

struct mw_rule {
	const char *name;
	enum ib_mw_type type;
	/* Change the sound bind @w of @mw; NULL: bind twice. */
	void (*mangle)(struct kunit *test, struct mw_pair *p,
		       struct ib_mw *mw, struct vroce_send_wqe *w);
};

/* An MR without IB_ACCESS_MW_BIND (C10-73). */
static void mw_r_no_bind(struct kunit *test, struct mw_pair *p,
			 struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_mr *mr = mw_mr(test, p->pd, p->va[1], MW_ALL);

	w->bind.mr_key = cpu_to_le32(mr->lkey);
}

/* Remote write through an MR without local write (C10-74). */
static void mw_r_no_local_write(struct kunit *test, struct mw_pair *p,
				struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_mr *mr = mw_mr(test, p->pd, p->va[1],
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND);

	w->bind.mr_key = cpu_to_le32(mr->lkey);
}

/* The range past the MR's end (C10-75). */
static void mw_r_past_mr(struct kunit *test, struct mw_pair *p,
			 struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->fr_iova = cpu_to_le64(p->va[1] + MW_LEN - 8);
	w->fr_length = cpu_to_le64(16);
}

/* A range that wraps. */
static void mw_r_wrap(struct kunit *test, struct mw_pair *p,
		      struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->fr_length = cpu_to_le64(U64_MAX);
}

/* An MR of another PD (the window's and the QP's is p->pd). */
static void mw_r_other_pd_mr(struct kunit *test, struct mw_pair *p,
			     struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_pd *pd = vroce_test_pd(test, p->vdev, 0);
	struct ib_mr *mr = mw_mr(test, pd, p->va[1], MW_ALL | IB_ACCESS_MW_BIND);

	w->bind.mr_key = cpu_to_le32(mr->lkey);
}

/* A window of another PD (C10-72). */
static void mw_r_other_pd_mw(struct kunit *test, struct mw_pair *p,
			     struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_pd *pd = vroce_test_pd(test, p->vdev, 0);
	struct ib_mw *other = mw_new(test, pd, IB_MW_TYPE_2);

	w->fr_key = cpu_to_le32((other->rkey & ~0xffU) |
				((other->rkey + 1) & 0xff));
}

/* The MR's key with another tag: it names no MR. */
static void mw_r_mr_tag(struct kunit *test, struct mw_pair *p,
			struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->bind.mr_key = cpu_to_le32(p->mr[1]->lkey ^ 0x5a);
}

/* The PD's DMA MR (a process's QP may not name it anyway). */
static void mw_r_dma_mr(struct kunit *test, struct mw_pair *p,
			struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->bind.mr_key = cpu_to_le32(p->pd->local_dma_lkey);
}

/* A window's key where the MR's goes. */
static void mw_r_mw_as_mr(struct kunit *test, struct mw_pair *p,
			  struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_mw *other = mw_new(test, p->pd, IB_MW_TYPE_1);

	w->bind.mr_key = cpu_to_le32(other->rkey);
}

/* An MR's key where the window's goes. */
static void mw_r_mr_as_mw(struct kunit *test, struct mw_pair *p,
			  struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->fr_key = cpu_to_le32(p->mr[0]->rkey);
}

/* Zero length for a type 2 window (o10-37.2.40). */
static void mw_r_type2_zero(struct kunit *test, struct mw_pair *p,
			    struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->fr_length = 0;
}

/* Rights the HCA does not know. */
static void mw_r_bad_rights(struct kunit *test, struct mw_pair *p,
			    struct ib_mw *mw, struct vroce_send_wqe *w)
{
	w->fr_access = cpu_to_le32(BIT(7) | VROCE_ACC_REMOTE_WRITE);
}

/* A deallocated window's key (its generation has moved on). */
static void mw_r_dead_window(struct kunit *test, struct mw_pair *p,
			     struct ib_mw *mw, struct vroce_send_wqe *w)
{
	struct ib_mw *other = NULL;

	KUNIT_ASSERT_EQ(test, vroce_test_mw(test, p->pd, IB_MW_TYPE_2, &other), 0);
	w->fr_key = cpu_to_le32((other->rkey & ~0xffU) |
				((other->rkey + 1) & 0xff));
	kunit_release_action(test, vroce_test_dealloc_mw, other);
}

static const struct mw_rule mw_rules[] = {
	{ "mr_without_mw_bind", IB_MW_TYPE_1, mw_r_no_bind },
	{ "remote_write_without_local_write", IB_MW_TYPE_2,
	  mw_r_no_local_write },
	{ "range_past_mr", IB_MW_TYPE_1, mw_r_past_mr },
	{ "range_wraps", IB_MW_TYPE_2, mw_r_wrap },
	{ "mr_of_other_pd", IB_MW_TYPE_2, mw_r_other_pd_mr },
	{ "window_of_other_pd", IB_MW_TYPE_1, mw_r_other_pd_mw },
	{ "mr_key_other_tag", IB_MW_TYPE_1, mw_r_mr_tag },
	{ "dma_mr", IB_MW_TYPE_2, mw_r_dma_mr },
	{ "window_as_mr", IB_MW_TYPE_1, mw_r_mw_as_mr },
	{ "mr_as_window", IB_MW_TYPE_1, mw_r_mr_as_mw },
	{ "type2_zero_length", IB_MW_TYPE_2, mw_r_type2_zero },
	{ "unknown_rights", IB_MW_TYPE_2, mw_r_bad_rights },
	{ "deallocated_window", IB_MW_TYPE_2, mw_r_dead_window },
	{ "type2_bound_twice", IB_MW_TYPE_2, NULL },
};

static void mw_rule_desc(const struct mw_rule *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mw_rule, mw_rules, mw_rule_desc);

/*
 * Each binding rule: the bind completes with IB_WC_MW_BIND_ERR, its QP
 * goes to ERR, and nothing was bound under the bind's key (the HCA's
 * translation refuses it); a window bound before keeps its binding.
 */
static void vroce_mw_bind_rules(struct kunit *test)
{
	const struct mw_rule *r = test->param_value;
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, r->type);
	struct vroce_send_wqe w;
	u32 first = 0;

	if (!r->mangle) {
		first = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE,
				IB_WC_SUCCESS);
		mw->rkey = first;
	}
	mw_bind_wqe(&w, mw, (mw->rkey & 0xff) + 1, p->mr[1]->lkey,
		    p->va[1] + MW_WOFF, MW_WLEN, IB_ACCESS_REMOTE_WRITE);
	if (r->mangle)
		r->mangle(test, p, mw, &w);
	KUNIT_EXPECT_EQ(test, mw_post_raw(test, p->qp[1], p->cq[1], &w),
			IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mw_state(p->qp[1]), IB_QPS_ERR);
	/* Nothing was bound under the refused key; a first bind stays. */
	KUNIT_EXPECT_FALSE(test, mw_key_works(test, le32_to_cpu(w.fr_key),
					      p->va[1] + MW_WOFF));
	if (first)
		KUNIT_EXPECT_TRUE(test, mw_key_works(test, first,
						     p->va[1] + MW_WOFF));
}

/* ---- lifetime ---- */

/*
 * Deallocating a bound window ends it at once, and no later window in the
 * same MPT slot answers to its key.
 */
static void vroce_mw_dealloc_bound(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2), *again;
	u32 key, i;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	kunit_release_action(test, vroce_test_dealloc_mw, mw);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
	/* One free MPT entry: the next windows take the same slot. */
	vroce_test_free_mr(test, 1);
	for (i = 0; i < 4; i++) {
		again = mw_new(test, p->pd, IB_MW_TYPE_1);
		KUNIT_EXPECT_NE(test, again->rkey & ~0xffU, key & ~0xffU);
		kunit_release_action(test, vroce_test_dealloc_mw, again);
	}
}

/*
 * The MR under a bound window deregistered: the window's key reaches
 * nothing (the HCA checks the MR's key at every access), even once the
 * MR's slot holds a new MR.
 */
static void vroce_mw_mr_gone(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	struct ib_mr *mr;
	u32 key;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	kunit_release_action(test, mw_dereg_mr, p->mr[1]);
	vroce_test_free_mr(test, 1);
	mr = mw_mr(test, p->pd, p->va[1], MW_ALL | IB_ACCESS_MW_BIND);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 8), 0);
	KUNIT_EXPECT_NE(test, mr->lkey, 0);
}

/* A window's key is no L_Key: a local SGE through it is refused. */
static void vroce_mw_not_lkey(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = p->va[0],
		.rkey = p->mr[0]->rkey,
	};
	struct ib_wc wc;
	u32 key;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE |
		      IB_ACCESS_REMOTE_READ, IB_WC_SUCCESS);
	sge = (struct ib_sge){ .addr = p->va[1] + MW_WOFF, .length = 8,
			       .lkey = key };
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[1], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, mw_poll(p->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
}

/* ---- alloc_mw and dealloc_mw ---- */

/*
 * alloc_mw refuses a type that is neither 1 nor 2 (-EINVAL) and driver
 * data it does not know; a full MPT gives -ENOMEM; nothing leaks.
 */
static void vroce_mw_alloc_errors(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mw *mw = NULL;
	s64 before = vroce_test_allocs(test, vdev);

	KUNIT_EXPECT_EQ(test, vroce_test_mw(test, pd, 3, &mw), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_test_mw(test, pd, 0, &mw), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), before);
	vroce_test_free_mr(test, 1);
	mw_new(test, pd, IB_MW_TYPE_1);
	KUNIT_EXPECT_EQ(test, vroce_test_mw(test, pd, IB_MW_TYPE_2, &mw), -ENOMEM);
}

/* Each allocation alloc_mw makes, failed in turn: -ENOMEM, nothing held. */
static void vroce_mw_alloc_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mw *mw = NULL;
	s64 base;
	int n, err;

	/* The window object and the record that would park it. */

	for (n = 1; n < 8; n++) {
		base = mw_held(vdev);
		atomic_set(&vdev->mem.fail_nth, n);
		err = vroce_test_mw(test, pd, IB_MW_TYPE_2, &mw);
		atomic_set(&vdev->mem.fail_nth, 0);
		if (!err) {
			KUNIT_EXPECT_EQ(test, mw_held(vdev), base + 2);
			kunit_release_action(test, vroce_test_dealloc_mw, mw);
			KUNIT_EXPECT_EQ(test, mw_held(vdev), base);
			break;
		}
		KUNIT_EXPECT_EQ(test, err, -ENOMEM);
		KUNIT_EXPECT_EQ(test, mw_held(vdev), base);
	}
	KUNIT_EXPECT_GT(test, n, 1);
	KUNIT_EXPECT_LT(test, n, 8);
}

static bool mw_zombies(struct vroce_dev *vdev)
{
	bool any;

	mutex_lock(&vdev->zombie_lock);
	any = !list_empty(&vdev->mw_zombies);
	mutex_unlock(&vdev->zombie_lock);
	return any;
}

/*
 * A DEALLOC_MW the HCA refuses, then one it does not answer: each parks
 * the window (dealloc still succeeds for the caller) with its memory
 * held, and the reap frees it once the HCA answers (the lost one it had
 * carried out: -ENOENT lets go too); the window's key is dead after.
 */
static void vroce_mw_dealloc_faults(struct kunit *test)
{
	struct vroce_dev *vdev;
	struct vroce_hca *hca;
	struct mw_pair *p;
	struct ib_mw *mw;
	s64 held;
	u32 key;
	int lost;

	for (lost = 0; lost < 2; lost++) {
		/* A device of its own each time (vroce_test_dev()). */
		p = mw_pair(test);
		vdev = p->vdev;
		hca = vroce_test_hca(test);
		vroce_test_faults_off(test, hca);
		mw = mw_new(test, p->pd, IB_MW_TYPE_1);
		key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE,
			      IB_WC_SUCCESS);
		held = mw_held(vdev);
		vroce_hca_set_fault_opcode(hca, VROCE_CMD_DEALLOC_MW);
		if (lost) {
			vroce_test_cmd_timeout(test, vdev, 100);
			vroce_hca_set_faults(hca, 0, 0, 1, 0);
		} else {
			vroce_hca_set_faults(hca, 1, VROCE_CMD_BUSY, 0, 0);
		}
		kunit_release_action(test, vroce_test_dealloc_mw, mw);
		vroce_hca_faults_clear(hca);
		vroce_test_cmd_timeout(test, vdev, 2000);
		KUNIT_EXPECT_EQ(test, mw_held(vdev), held);
		KUNIT_EXPECT_TRUE(test, mw_zombies(vdev));
		vroce_mr_reap(vdev, false);
		KUNIT_EXPECT_FALSE(test, mw_zombies(vdev));
		KUNIT_EXPECT_EQ(test, mw_held(vdev), held - 2);
		KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF,
					       8), IB_WC_REM_ACCESS_ERR);
	}
}

/*
 * An ALLOC_MW the HCA does not answer: -ETIMEDOUT, and the window object
 * is kept (the HCA may hold an entry under a key nobody learnt) through
 * reaps, until the HCA is reset when the device goes (KASAN and kmemleak
 * watch the end of the test).
 */
static void vroce_mw_alloc_lost(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_mw *mw = NULL;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_ALLOC_MW);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, vroce_test_mw(test, pd, IB_MW_TYPE_2, &mw), -ETIMEDOUT);
	vroce_hca_faults_clear(hca);
	vroce_test_cmd_timeout(test, vdev, 2000);
	KUNIT_EXPECT_TRUE(test, mw_zombies(vdev));
	vroce_mr_reap(vdev, false);
	KUNIT_EXPECT_TRUE(test, mw_zombies(vdev));
	KUNIT_EXPECT_GT(test, mw_held(vdev), 0);
	/* The device still allocates windows. */
	mw_new(test, pd, IB_MW_TYPE_2);
}

/* The driver's rereg_user_mr, as uverbs calls it (MW_LEN bytes). */
static struct ib_mr *mw_rereg(struct ib_mr *mr, int flags, u64 start,
			      u64 iova, int access, struct ib_pd *pd)
{
	return mr->device->ops.rereg_user_mr(mr, flags, start, MW_LEN, iova,
					     access, pd, NULL);
}

/*
 * Review of issue 30: the MR under a bound window re-registered in place
 * (REREG_MR keeps its key) with new pages, with its rights changed
 * (MW_BIND taken away), or moved to another PD and back: the window is
 * unbound, it reaches neither the old pages nor the new ones (a rereg is
 * a deregistration and a registration).
 */
static void vroce_mw_rereg(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	unsigned long nva = vroce_test_user_mem(test, MW_LEN, 0x31);
	struct ib_mr *mr = p->mr[1];
	u32 key;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_ASSERT_FALSE(test, to_vroce_mr(mr)->cached);
	KUNIT_ASSERT_NULL(test, mw_rereg(mr, IB_MR_REREG_TRANS, nva, p->va[1],
					 0, p->pd));
	KUNIT_EXPECT_FALSE(test, mw_key_works(test, key, p->va[1] + MW_WOFF));
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 8), 0);

	/* Rights only: MW_BIND taken away unbinds a type 1 window too. */
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	mr = p->mr[1];
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_ASSERT_NULL(test, mw_rereg(mr, IB_MR_REREG_ACCESS, 0, 0, MW_ALL,
					 p->pd));
	KUNIT_EXPECT_FALSE(test, mw_key_works(test, key, p->va[1] + MW_WOFF));

	/* PD only, there and back: the window does not come back. */
	p = mw_pair(test);
	mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	mr = p->mr[1];
	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	KUNIT_ASSERT_NULL(test, mw_rereg(mr, IB_MR_REREG_PD, 0, 0, 0,
					 vroce_test_pd(test, p->vdev, 0)));
	KUNIT_ASSERT_NULL(test, mw_rereg(mr, IB_MR_REREG_PD, 0, 0, 0, p->pd));
	KUNIT_EXPECT_FALSE(test, mw_key_works(test, key, p->va[1] + MW_WOFF));
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
}

/*
 * Review of issue 30: a type 2 window goes with the QP it is bound to; a
 * later QP of the PD under the same number (numbers go round) does not
 * inherit it.
 */
static void vroce_mw_type2_qp_gone(struct kunit *test)
{
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_2);
	const u8 *mac = p->vdev->netdev->dev_addr;
	u32 qpn = p->qp[1]->qp_num, key, i;
	struct ib_qp *qp = NULL, *q;

	key = mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	kunit_release_action(test, mw_destroy_qp, p->qp[1]);
	KUNIT_EXPECT_FALSE(test, mw_key_works(test, key, p->va[1] + MW_WOFF));
	for (i = 0; i < 2 * VROCE_MAX_QP && !qp; i++) {
		q = mw_qp(test, p->vdev, p->pd, p->ocq);
		if (q->qp_num == qpn)
			qp = q;
		else
			kunit_release_action(test, mw_destroy_qp, q);
	}
	if (!qp)
		kunit_skip(test, "QP number %#x not given again", qpn);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(qp, p->qp[0]->qp_num, 0, mac, 0,
					       MW_ALL), 0);
	KUNIT_EXPECT_EQ(test, mw_write(test, p, key, p->va[1] + MW_WOFF, 8),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mw_untouched(test, p, MW_WOFF, 8), 0);
}

/*
 * A type 1 window rebound again and again, under one key, between two MRs
 * over the same pages (two MPT entries: the window's lock comes before
 * one MR's and after the other's), while RDMA WRITEs through it run on
 * the responder's engine: every bind and every write completes, and each
 * write's bytes land (a write meeting a bind between its two looks at the
 * window looks again). KASAN and lockdep watch.
 */
static void vroce_mw_rebind_race(struct kunit *test)
{
	struct vroce_hca *hca;
	struct mw_pair *p = mw_pair(test);
	struct ib_mw *mw = mw_new(test, p->pd, IB_MW_TYPE_1);
	struct ib_mr *mr2 = mw_mr(test, p->pd, p->va[1],
				  MW_ALL | IB_ACCESS_MW_BIND);
	struct ib_send_wr ph = { .opcode = IB_WR_SEND };
	struct vroce_qp *qp1 = to_vroce_qp(p->qp[1]);
	u8 tag = (mw->rkey & 0xff) + 1;
	u32 key = (mw->rkey & ~0xffU) | tag;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.rkey = key,
	};
	struct vroce_send_wqe w;
	struct ib_wc wc;
	u32 round, k, ok[2] = {};

	hca = vroce_test_hca(test);
	mw_bind(test, p, mw, IB_ACCESS_REMOTE_WRITE, IB_WC_SUCCESS);
	for (round = 0; round < 32; round++) {
		vroce_hca_hold_qp(hca, p->qp[1]->qp_num);
		for (k = 0; k < MW_DEPTH / 2; k++) {
			u32 idx = qp1->sq.pi;

			mw_bind_wqe(&w, mw, tag, (k & 1 ? mr2 : p->mr[1])->lkey,
				    p->va[1] + MW_WOFF, MW_WLEN,
				    IB_ACCESS_REMOTE_WRITE);
			w.flags = VROCE_WQE_F_SIGNALED;
			KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[1], &ph, NULL),
					0);
			memcpy(vroce_ring_slot(&qp1->sq.ring, idx), &w,
			       sizeof(w));
		}
		vroce_hca_hold_qp(hca, 0);
		for (k = 0; k < MW_DEPTH / 2; k++) {
			sge = (struct ib_sge){ .addr = p->va[0] + k * 64,
					       .length = 64,
					       .lkey = p->mr[0]->lkey };
			wr.remote_addr = p->va[1] + MW_WOFF + k * 64;
			KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr.wr,
							   NULL), 0);
		}
		for (k = 0; k < MW_DEPTH; k++) {
			int side = k < MW_DEPTH / 2;

			KUNIT_ASSERT_EQ(test, mw_poll(p->cq[side], &wc), 1);
			ok[side] += wc.status == IB_WC_SUCCESS;
		}
	}
	KUNIT_EXPECT_EQ(test, ok[0], 32 * MW_DEPTH / 2);
	KUNIT_EXPECT_EQ(test, ok[1], 32 * MW_DEPTH / 2);
	KUNIT_EXPECT_EQ(test, mw_landed(test, p, MW_WOFF, MW_DEPTH / 2 * 64), 0);
}

static struct kunit_case vroce_mw_cases[] = {
	KUNIT_CASE(vroce_mw_type1_bind_write),
	KUNIT_CASE(vroce_mw_rights),
	KUNIT_CASE(vroce_mw_type1_unbind),
	KUNIT_CASE(vroce_mw_type2_qp),
	KUNIT_CASE(vroce_mw_type2_local_inv),
	KUNIT_CASE(vroce_mw_type2_remote_inv),
	KUNIT_CASE_PARAM(vroce_mw_bind_rules, mw_rule_gen_params),
	KUNIT_CASE(vroce_mw_dealloc_bound),
	KUNIT_CASE(vroce_mw_mr_gone),
	KUNIT_CASE(vroce_mw_not_lkey),
	KUNIT_CASE(vroce_mw_alloc_errors),
	KUNIT_CASE(vroce_mw_alloc_faults),
	KUNIT_CASE(vroce_mw_dealloc_faults),
	KUNIT_CASE(vroce_mw_alloc_lost),
	KUNIT_CASE(vroce_mw_rereg),
	KUNIT_CASE_SLOW(vroce_mw_type2_qp_gone),
	KUNIT_CASE(vroce_mw_rebind_race),
	{}
};

static struct kunit_suite vroce_mw_suite = {
	.name = "vroce_mw",
	.test_cases = vroce_mw_cases,
};

kunit_test_suite(vroce_mw_suite);
