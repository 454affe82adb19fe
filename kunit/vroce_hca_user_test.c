// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_hca_user (issue 31, hca): the HCA trusts no WQE of an
 * unprivileged QP. Kernel QPs made unprivileged (vroce_dev.kunit_unpriv)
 * stand in for a process's: the test writes their kernel rings behind
 * the driver's back as a process writes its mapped ones. Each bad field
 * fails only that QP, with the completion Documentation/datapath.rst's
 * table names, counted in unpriv_wqe_refused; the ring fuzzer writes
 * random bytes into a pair's rings while a bystander pair on the same
 * HCA moves and checks data and canaries outside the pair's MRs stay.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/mman.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include <linux/scatterlist.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "../c/driver/vroce_cmd.h"
#include "../c/driver/vroce_ring.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define HU_BUF		SZ_4K		/* each side's MR */
#define HU_MAP		(3 * SZ_4K)	/* a guard page either side of it */
#define HU_POLL_MS	5000
#define HU_DEPTH	16
#define HU_ALL		(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static ulong hca_fuzz_seed;
module_param(hca_fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(hca_fuzz_seed, "vroce_hca_user.ring_fuzz: the seed (0: random, printed)");
static uint hca_fuzz_ms = 10000;
module_param(hca_fuzz_ms, uint, 0444);
MODULE_PARM_DESC(hca_fuzz_ms, "vroce_hca_user.ring_fuzz: how long it writes the rings");

/*
 * A process's RC pair on one HCA: side 0 sends to side 1, both
 * unprivileged, in one PD; each side's buffer is HU_BUF bytes of
 * process memory (a user MR) between two guard pages no MR covers.
 */
struct hu_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	unsigned long map[2];	/* the mapping; the MR is its middle page */
	struct ib_mr *mr[2];
	struct vroce_test_kbuf *scratch;	/* no MR of the PD covers it */
	struct ib_mr *fr;	/* a fast-register MR of the PD, unregistered */
	struct ib_qp *kqp;	/* a privileged QP of the PD, to itself */
	/* ring_fuzz only (issue 30): windows of the PD, an MR they bind to */
	struct ib_mw *mw[2];	/* type 1, type 2 */
	struct ib_mr *bmr;	/* side 1's MR again, with MW_BIND */
};

KUNIT_DEFINE_ACTION_WRAPPER(hu_free_cq, ib_free_cq, struct ib_cq *);

static void hu_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void hu_dereg_mr(void *data)
{
	ib_dereg_mr(data);
}

static u64 hu_va(const struct hu_pair *p, int side)
{
	return p->map[side] + SZ_4K;
}

static struct ib_qp *hu_qp(struct kunit *test, struct vroce_dev *vdev,
			   struct ib_pd *pd, struct ib_cq *cq, bool unpriv)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = HU_DEPTH,
			.max_recv_wr = HU_DEPTH,
			.max_send_sge = VROCE_MAX_SEND_SGE,
			.max_recv_sge = VROCE_MAX_RECV_SGE,
		},
	};
	struct ib_qp *qp;

	vdev->kunit_unpriv = unpriv;
	qp = ib_create_qp(pd, &init);
	vdev->kunit_unpriv = false;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_destroy_qp,
							qp), 0);
	return qp;
}

static struct ib_cq *hu_cq(struct kunit *test, struct vroce_dev *vdev)
{
	struct ib_cq *cq = ib_alloc_cq(&vdev->ibdev, NULL, 4 * HU_DEPTH, 0,
				       IB_POLL_DIRECT);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_free_cq, cq),
			0);
	return cq;
}

static void hu_connect(struct kunit *test, struct hu_pair *p)
{
	const u8 *mac = p->vdev->netdev->dev_addr;

	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[0], p->qp[1]->qp_num, 0,
					       mac, 0, HU_ALL), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[1], p->qp[0]->qp_num, 0,
					       mac, 0, HU_ALL), 0);
}

static struct hu_pair *hu_pair_on(struct kunit *test, struct vroce_dev *vdev,
				  bool unpriv)
{
	struct hu_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vdev;
	/* Its DMA MR with remote rights too: only the HCA's check stops it. */
	vroce_allow_remote_dma_mr = true;
	p->pd = vroce_test_pd(test, vdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	vroce_allow_remote_dma_mr = false;
	for (i = 0; i < 2; i++) {
		p->map[i] = vroce_test_user_mem(test, HU_MAP, 0x40 + i);
		p->mr[i] = ib_reg_user_mr(p->pd, hu_va(p, i), HU_BUF,
					  hu_va(p, i), HU_ALL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->mr[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								hu_dereg_mr,
								p->mr[i]), 0);
		p->cq[i] = hu_cq(test, vdev);
	}
	for (i = 0; i < 2; i++)
		p->qp[i] = hu_qp(test, vdev, p->pd, p->cq[i], unpriv);
	hu_connect(test, p);
	p->scratch = vroce_test_kbuf(test, vdev, SZ_4K);
	vroce_test_fill(p->scratch->va, SZ_4K, 0x55);
	dma_sync_single_for_device(p->scratch->dev, p->scratch->dma, SZ_4K,
				   DMA_BIDIRECTIONAL);
	p->fr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->fr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_dereg_mr,
							p->fr), 0);
	p->kqp = hu_qp(test, vdev, p->pd, p->cq[1], false);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->kqp, p->kqp->qp_num, 0,
					       vdev->netdev->dev_addr, 0,
					       HU_ALL), 0);
	return p;
}

/*
 * The fast-register MR over the scratch page: mapped (the driver's page
 * list), and with @reg registered by a REG_MR of the privileged QP.
 */
static void hu_fr_map(struct kunit *test, struct hu_pair *p, bool reg)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = p->scratch->dma;
	sg_dma_len(&sg) = SZ_4K;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(p->fr, &sg, 1, NULL, SZ_4K), 1);
	if (!reg)
		return;
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = p->fr;
	wr.key = p->fr->rkey;
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->kqp, &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, vroce_test_poll(p->cq[1], &wc, 1, HU_POLL_MS), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/* The fast-register MR translates under its key. */
static bool hu_fr_valid(struct kunit *test, struct hu_pair *p)
{
	u8 buf[8];

	return !vroce_hca_mr_access(vroce_test_hca(test), p->fr->rkey,
				    VROCE_HCA_ANY_PD, p->fr->iova, buf,
				    sizeof(buf), 0, false);
}

static int hu_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	return vroce_test_poll(cq, wc, 1, HU_POLL_MS);
}

static enum ib_qp_state hu_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_RESET;
	return attr.qp_state;
}

static u64 hu_refused(struct kunit *test, struct vroce_dev *vdev)
{
	u64 v[VROCE_CNT_NUM];

	KUNIT_ASSERT_EQ(test, vroce_cmd_query_counters(vdev, v), 0);
	return v[VROCE_CNT_UNPRIV_REFUSED];
}

static int hu_post_recv(struct hu_pair *p, u64 wr_id, u32 len)
{
	struct ib_sge sge = { .addr = hu_va(p, 1), .length = len,
			      .lkey = p->mr[1]->lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(p->qp[1], &wr, NULL);
}

static int hu_post_send(struct hu_pair *p, u64 wr_id, u32 len)
{
	struct ib_sge sge = { .addr = hu_va(p, 0), .length = len,
			      .lkey = p->mr[0]->lkey };
	struct ib_send_wr wr = { .wr_id = wr_id, .opcode = IB_WR_SEND,
				 .sg_list = &sge, .num_sge = 1,
				 .send_flags = IB_SEND_SIGNALED };

	return ib_post_send(p->qp[0], &wr, NULL);
}

/* The guard pages of both sides still hold what was written there. */
static void hu_expect_guards(struct kunit *test, struct hu_pair *p)
{
	u8 *b = kunit_kmalloc(test, SZ_4K, GFP_KERNEL);
	int i, g;

	KUNIT_ASSERT_NOT_NULL(test, b);
	dma_sync_single_for_cpu(p->scratch->dev, p->scratch->dma, SZ_4K,
				DMA_BIDIRECTIONAL);
	for (i = 0; i < SZ_4K; i++)
		if (((u8 *)p->scratch->va)[i] != vroce_test_pattern(i, 0x55)) {
			KUNIT_FAIL(test, "scratch byte %d changed", i);
			break;
		}
	for (i = 0; i < 2; i++) {
		for (g = 0; g < 3; g += 2) {
			void __user *guard = (void __user *)(p->map[i] +
							     g * SZ_4K);
			int k;

			KUNIT_ASSERT_EQ(test, copy_from_user(b, guard, SZ_4K),
					0);
			/* vroce_test_user_mem()'s pattern, from its start. */
			for (k = 0; k < SZ_4K; k++)
				if (b[k] != vroce_test_pattern(g * SZ_4K + k,
							       0x40 + i)) {
					KUNIT_FAIL(test, "side %d guard %d byte %d changed",
						   i, g, k);
					return;
				}
		}
	}
}

/* ---- a process's privileged work requests and keys ---- */

/*
 * A bad send WQE: posted as a sound SEND while the HCA holds the QP, then
 * changed in the ring as a process changes its mapped one.
 */
struct hu_bad_wqe {
	const char *name;
	void (*mangle)(struct hu_pair *p, struct vroce_send_wqe *w);
	enum ib_wc_status status;	/* at the requester */
	bool counted;			/* in unpriv_wqe_refused */
	bool fr_reg;			/* the FRMR is registered before */
};

static void hu_m_opcode(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->opcode = 0xee;
}

static void hu_m_flags(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->flags |= BIT(6);
}

static void hu_m_num_sge(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->num_sge = 200;
}

static void hu_m_inline_len(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->flags |= VROCE_WQE_F_INLINE;
	w->inline_len = cpu_to_le32(SZ_64K);
}

static void hu_m_reg_mr(struct hu_pair *p, struct vroce_send_wqe *w)
{
	struct vroce_mr_info info;

	/* Its own PD's FRMR, as the driver writes it for a kernel QP. */
	vroce_test_mr_info(p->fr, &info);
	memset(w->sge, 0, sizeof(w->sge));
	w->num_sge = 0;
	w->opcode = VROCE_WQE_REG_MR;
	w->fr_key = cpu_to_le32(p->fr->rkey);
	w->fr_iova = cpu_to_le64(p->fr->iova);
	w->fr_length = cpu_to_le64(p->fr->length);
	w->fr_access = cpu_to_le32(VROCE_ACC_MASK);
	w->reg.pbl = cpu_to_le64(info.pbl_dma);
	w->reg.npages = cpu_to_le32(info.npages);
}

static void hu_m_local_inv(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->num_sge = 0;
	w->opcode = VROCE_WQE_LOCAL_INV;
	w->imm_inv = cpu_to_le32(p->fr->rkey);
}

static void hu_m_len_cap(struct hu_pair *p, struct vroce_send_wqe *w)
{
	int i;

	w->num_sge = VROCE_MAX_SEND_SGE;
	for (i = 0; i < VROCE_MAX_SEND_SGE; i++) {
		w->sge[i] = w->sge[0];
		w->sge[i].length = cpu_to_le32(U32_MAX);
	}
}

static void hu_m_addr_wrap(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->sge[0].addr = cpu_to_le64(U64_MAX - 8);
}

static void hu_m_dma_lkey(struct hu_pair *p, struct vroce_send_wqe *w)
{
	/* The PD's DMA MR (ib_core's local_dma_lkey): all of memory. */
	w->sge[0].lkey = cpu_to_le32(p->pd->local_dma_lkey);
	w->sge[0].addr = cpu_to_le64(p->scratch->dma);
}

static void hu_m_dma_rkey(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->opcode = VROCE_WQE_WRITE;
	w->rkey = cpu_to_le32(p->pd->unsafe_global_rkey);
	w->remote_addr = cpu_to_le64(p->scratch->dma);
}

static void hu_m_atomic_align(struct hu_pair *p, struct vroce_send_wqe *w)
{
	w->opcode = VROCE_WQE_ATOMIC_FETCH_ADD;
	w->sge[0].length = cpu_to_le32(8);
	w->rkey = cpu_to_le32(p->mr[1]->rkey);
	w->remote_addr = cpu_to_le64(hu_va(p, 1) + 4);
}

static const struct hu_bad_wqe hu_bad_wqes[] = {
	{ "opcode", hu_m_opcode, IB_WC_LOC_QP_OP_ERR, true },
	{ "flags", hu_m_flags, IB_WC_LOC_QP_OP_ERR, true },
	{ "num_sge", hu_m_num_sge, IB_WC_LOC_QP_OP_ERR, true },
	{ "inline_len", hu_m_inline_len, IB_WC_LOC_QP_OP_ERR, true },
	{ "reg_mr", hu_m_reg_mr, IB_WC_LOC_QP_OP_ERR, true },
	{ "local_inv", hu_m_local_inv, IB_WC_LOC_QP_OP_ERR, true, true },
	{ "length_cap", hu_m_len_cap, IB_WC_LOC_LEN_ERR, true },
	{ "addr_wrap", hu_m_addr_wrap, IB_WC_LOC_PROT_ERR, true },
	{ "dma_lkey", hu_m_dma_lkey, IB_WC_LOC_PROT_ERR, true },
	{ "dma_rkey", hu_m_dma_rkey, IB_WC_REM_ACCESS_ERR, false },
	{ "atomic_align", hu_m_atomic_align, IB_WC_REM_INV_REQ_ERR, false },
};

static void hu_bad_wqe_desc(const struct hu_bad_wqe *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hu_bad_wqe, hu_bad_wqes, hu_bad_wqe_desc);

/*
 * Each bad field of a send WQE of an unprivileged QP completes it with the
 * status of the table (wr_id kept), moves that QP to ERR, and is counted
 * when the refusal is the requester's own (a LOC_* status); the MRs keep
 * their keys (a REG_MR or LOCAL_INV did nothing), the guard pages and the
 * receiver's buffer are untouched.
 */
static void vroce_hca_user_bad_wqe(struct kunit *test)
{
	const struct hu_bad_wqe *t = test->param_value;
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct hu_pair *p = hu_pair_on(test, vdev, true);
	struct vroce_qp *qp = to_vroce_qp(p->qp[0]);
	u64 before;
	u8 buf[8];
	struct ib_wc wc;

	hu_fr_map(test, p, t->fr_reg);
	before = hu_refused(test, vdev);
	KUNIT_ASSERT_EQ(test, hu_post_recv(p, 2, HU_BUF), 0);
	vroce_hca_hold_qp(hca, p->qp[0]->qp_num);
	KUNIT_ASSERT_EQ(test, hu_post_send(p, 7, 64), 0);
	t->mangle(p, vroce_ring_slot(&qp->sq.ring, 0));
	vroce_hca_hold_qp(hca, 0);
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
	KUNIT_EXPECT_EQ(test, wc.status, t->status);
	KUNIT_EXPECT_EQ(test, hu_state(p->qp[0]), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, hu_refused(test, vdev), before + t->counted);
	/* Both MRs still translate under their keys. */
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, p->mr[0]->lkey,
						  VROCE_HCA_ANY_PD, hu_va(p, 0),
						  buf, sizeof(buf), 0, false), 0);
	KUNIT_EXPECT_EQ(test, vroce_hca_mr_access(hca, p->mr[1]->lkey,
						  VROCE_HCA_ANY_PD, hu_va(p, 1),
						  buf, sizeof(buf), 0, false), 0);
	/* A REG_MR registered nothing, a LOCAL_INV invalidated nothing. */
	KUNIT_EXPECT_EQ(test, hu_fr_valid(test, p), t->fr_reg);
	hu_expect_guards(test, p);
}

/*
 * The same work requests of a privileged (kernel) QP are carried out: a
 * SEND through the PD's DMA lkey arrives, a REG_MR registers the FRMR and
 * a LOCAL_INV invalidates it; nothing is counted.
 */
static void vroce_hca_user_kernel_qp_privileged(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct hu_pair *p = hu_pair_on(test, vdev, false);
	struct vroce_test_kbuf *kb = vroce_test_kbuf(test, vdev, 64);
	struct ib_sge sge = { .addr = kb->dma, .length = 64,
			      .lkey = p->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = 3, .opcode = IB_WR_SEND,
				 .sg_list = &sge, .num_sge = 1,
				 .send_flags = IB_SEND_SIGNALED };
	u64 before = hu_refused(test, vdev);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, hu_post_recv(p, 2, HU_BUF), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	hu_fr_map(test, p, true);
	KUNIT_EXPECT_TRUE(test, hu_fr_valid(test, p));
	wr.opcode = IB_WR_LOCAL_INV;
	wr.num_sge = 0;
	wr.ex.invalidate_rkey = p->fr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, hu_fr_valid(test, p));
	KUNIT_EXPECT_EQ(test, hu_refused(test, vdev), before);
}

/*
 * A bad receive WQE of an unprivileged responder (as written into its
 * ring): more SGEs than a receive holds, or the PD's DMA lkey. The
 * responder completes it with LOC_QP_OP_ERR or LOC_PROT_ERR and goes to
 * ERR, counted; the requester completes with REM_OP_ERR; no byte lands.
 */
static void vroce_hca_user_bad_recv(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	int round;

	for (round = 0; round < 2; round++) {
		struct hu_pair *p = hu_pair_on(test, vdev, true);
		struct vroce_recv_wqe *r;
		u64 before = hu_refused(test, vdev);
		struct ib_wc wc;

		KUNIT_ASSERT_EQ(test, hu_post_recv(p, 2, HU_BUF), 0);
		r = vroce_ring_slot(&to_vroce_qp(p->qp[1])->rq.ring, 0);
		if (round) {
			r->sge[0].lkey = cpu_to_le32(p->pd->local_dma_lkey);
			r->sge[0].addr = cpu_to_le64(p->scratch->dma);
		} else {
			r->num_sge = 9;
		}
		KUNIT_ASSERT_EQ(test, hu_post_send(p, 7, 64), 0);
		KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_OP_ERR);
		KUNIT_ASSERT_EQ(test, hu_poll(p->cq[1], &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 2);
		KUNIT_EXPECT_EQ(test, wc.status, round ? IB_WC_LOC_PROT_ERR :
							 IB_WC_LOC_QP_OP_ERR);
		KUNIT_EXPECT_EQ(test, hu_state(p->qp[1]), IB_QPS_ERR);
		KUNIT_EXPECT_EQ(test, hu_refused(test, vdev), before + 1);
		hu_expect_guards(test, p);
	}
}

/*
 * An HCA that does not offer VROCE_CAP_UNPRIV_QP refuses a CREATE_QP
 * carrying the flag: -EINVAL, nothing held. A driver that read no such
 * cap sends no flag (it filters a process's posts itself), and the QP is
 * created.
 */
static void vroce_hca_user_no_cap(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = hu_cq(test, vdev);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	u32 caps = vdev->attr.caps;
	struct ib_qp *qp;

	/* The HCA lacks it, the driver believes it has it. */
	vroce_hca_set_caps(hca, caps & ~VROCE_CAP_UNPRIV_QP);
	vroce_test_rebase(test, vdev);
	vdev->kunit_unpriv = true;
	qp = ib_create_qp(pd, &init);
	vdev->kunit_unpriv = false;
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	vroce_test_expect_no_memory_held(test, vdev);

	/* The driver knows the HCA lacks it: no flag, the QP is created. */
	vdev->attr.caps = caps & ~VROCE_CAP_UNPRIV_QP;
	qp = hu_qp(test, vdev, pd, cq, true);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, qp);
	vdev->attr.caps = caps;
	vroce_hca_set_caps(hca, caps);
}

/*
 * CREATE_QP of an unprivileged QP failed or lost by the HCA's knobs
 * (fault_opcode CREATE_QP): an errno and nothing held, or -ETIMEDOUT and
 * its rings parked until the HCA's reset, as for any QP.
 */
static void vroce_hca_user_create_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = hu_cq(test, vdev);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	s64 held = atomic64_read(&vdev->mem.dma_bytes);
	struct ib_qp *qp;

	vroce_hca_set_fault_opcode(hca, VROCE_CMD_CREATE_QP);
	vdev->kunit_unpriv = true;
	vroce_hca_set_faults(hca, 1, VROCE_CMD_NO_RESOURCE, 0, 0);
	qp = ib_create_qp(pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.dma_bytes), held);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_BAD_PARAM, 0, 0);
	qp = ib_create_qp(pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.dma_bytes), held);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->ring_zombies));
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	qp = ib_create_qp(pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->ring_zombies));
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_hca_set_fault_opcode(hca, 0);
	vdev->kunit_unpriv = false;
}

static void hu_destroy_ah(void *data)
{
	rdma_destroy_ah(data, RDMA_DESTROY_AH_SLEEPABLE);
}

/*
 * An unprivileged UD QP (Q_Key 0x11) sends to the GSI QP with the GSI
 * Q_Key in the work request: its bit 31 means the QP's own Q_Key, so the
 * GSI QP drops the datagram (ud_dropped + 1) and the sender completes
 * successfully; a controlled Q_Key comes only from the QP's context. Then
 * a destination QPN of 25 bits written into its WQE: LOC_QP_OP_ERR, the
 * QP to ERR, counted.
 */
static void vroce_hca_user_ud(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct ib_cq *cq = hu_cq(test, vdev);
	unsigned long map = vroce_test_user_mem(test, HU_MAP, 3);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.sq_sig_type = IB_SIGNAL_ALL_WR, .port_num = 1,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x11,
	};
	struct rdma_ah_attr ah_attr = {};
	const struct ib_gid_attr *gattr = ERR_PTR(-ENOENT);
	union ib_gid gid;
	struct ib_sge sge = { .addr = map + SZ_4K, .length = 64 };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND },
		.remote_qpn = VROCE_GSI_QPN, .remote_qkey = IB_QP1_QKEY,
	};
	struct vroce_send_wqe *wqe;
	u64 before = hu_refused(test, vdev);
	struct ib_mr *mr;
	struct ib_qp *qp;
	struct ib_ah *ah;
	struct ib_wc wc;
	u32 dropped;
	int i;

	mr = ib_reg_user_mr(pd, map + SZ_4K, SZ_4K, map + SZ_4K,
			    IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_dereg_mr, mr),
			0);
	sge.lkey = mr->lkey;
	vdev->kunit_unpriv = true;
	qp = ib_create_qp(pd, &init);
	vdev->kunit_unpriv = false;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_destroy_qp,
							qp), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_QKEY), 0);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_SQ_PSN), 0);
	/* The port's GID 0, once the core's table has it. */
	for (i = 0; i < 100 && IS_ERR(gattr); i++) {
		gattr = rdma_get_gid_attr(&vdev->ibdev, 1, 0);
		if (IS_ERR(gattr))
			msleep(20);
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(gattr));
	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah_attr, 1);
	gid = gattr->gid;
	rdma_put_gid_attr(gattr);
	rdma_ah_set_grh(&ah_attr, &gid, 0, 0, 64, 0);
	ether_addr_copy(ah_attr.roce.dmac, vdev->netdev->dev_addr);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ah);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_destroy_ah,
							ah), 0);
	wr.ah = ah;

	dropped = vroce_hca_ud_dropped(hca);
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, hu_poll(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, vroce_hca_ud_dropped(hca), dropped + 1);
	KUNIT_EXPECT_EQ(test, hu_refused(test, vdev), before);

	vroce_hca_hold_qp(hca, qp->qp_num);
	wr.wr.wr_id = 6;
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, &wr.wr, NULL), 0);
	wqe = vroce_ring_slot(&to_vroce_qp(qp)->sq.ring, 1);
	wqe->av.dest_qpn = cpu_to_le32(BIT(24));
	vroce_hca_hold_qp(hca, 0);
	KUNIT_ASSERT_EQ(test, hu_poll(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 6);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, hu_state(qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, hu_refused(test, vdev), before + 1);
}

/*
 * What the driver still filters for a process's QP (vroce_qp.user, as
 * uverbs makes it): with VROCE_CAP_UNPRIV_QP a LOCAL_INV is posted and the
 * HCA completes it with LOC_QP_OP_ERR, the MR still valid; a REG_MR is
 * refused at post (its work request names kernel objects). A driver
 * that read no such cap refuses both: -EINVAL, nothing posted.
 */
static void vroce_hca_user_driver_filter(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct hu_pair *p = hu_pair_on(test, vdev, true);
	struct vroce_qp *qp = to_vroce_qp(p->qp[0]);
	struct ib_send_wr inv = { .wr_id = 9, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 10, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
	};
	const struct ib_send_wr *bad;
	u32 caps = vdev->attr.caps;
	struct ib_wc wc;

	hu_fr_map(test, p, true);
	inv.ex.invalidate_rkey = p->fr->rkey;
	reg.mr = p->fr;
	reg.key = p->fr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE;
	qp->user = true;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &reg.wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &reg.wr);
	vdev->attr.caps = caps & ~VROCE_CAP_UNPRIV_QP;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &inv, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_test_poll(p->cq[0], &wc, 1, 100), 0);
	vdev->attr.caps = caps;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &inv, &bad), 0);
	qp->user = false;
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_TRUE(test, hu_fr_valid(test, p));
}

/* ---- the ring fuzzer ---- */

/*
 * A bystander: a privileged pair on the same HCA, in its own PD, moves
 * @len bytes of pattern @seed and checks them at the receiver.
 */
struct hu_bystander {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
};

static bool hu_bystander_move(struct kunit *test, struct hu_bystander *b,
			      u8 seed, u32 len)
{
	struct ib_sge ss = { .addr = b->buf[0]->dma, .length = len,
			     .lkey = b->pd->local_dma_lkey };
	struct ib_sge rs = { .addr = b->buf[1]->dma, .length = len,
			     .lkey = b->pd->local_dma_lkey };
	struct ib_send_wr swr = { .wr_id = 1, .opcode = IB_WR_SEND,
				  .sg_list = &ss, .num_sge = 1,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 };
	struct ib_wc wc[2];
	int n = 0;

	vroce_test_fill(b->buf[0]->va, len, seed);
	memset(b->buf[1]->va, 0, len);
	if (ib_post_recv(b->qp[1], &rwr, NULL) ||
	    ib_post_send(b->qp[0], &swr, NULL))
		return false;
	while (n < 2 && vroce_test_poll(b->cq, &wc[n], 1, HU_POLL_MS) == 1) {
		if (wc[n].status != IB_WC_SUCCESS)
			return false;
		n++;
	}
	return n == 2 && !memcmp(b->buf[0]->va, b->buf[1]->va, len);
}

/*
 * Back to RTS after the fuzz failed it; its completions drained. The
 * receiver of an SRQ whose ring indexes the fuzz broke fails again as
 * soon as the HCA looks at it (QP_FATAL at INIT): with @srq that is
 * allowed, and the pair stays down until the next try.
 */
static void hu_revive(struct kunit *test, struct hu_pair *p, bool srq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	const u8 *mac = p->vdev->netdev->dev_addr;
	struct ib_wc wc[8];
	int i, err;

	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[i], &attr,
						   IB_QP_STATE), 0);
	for (i = 0; i < 2; i++)
		while (ib_poll_cq(p->cq[i], ARRAY_SIZE(wc), wc) > 0)
			;
	if (!srq) {
		hu_connect(test, p);
		return;
	}
	err = vroce_lb_connect(p->qp[0], p->qp[1]->qp_num, 0, mac, 0, HU_ALL);
	if (!err)
		err = vroce_lb_connect(p->qp[1], p->qp[0]->qp_num, 0, mac, 0,
				       HU_ALL);
	KUNIT_EXPECT_TRUE_MSG(test, !err || err == -EINVAL, "revive: %d", err);
}

static void hu_destroy_srq(void *data)
{
	ib_destroy_srq(data);
}

/*
 * A second unprivileged pair of the fuzzed PD whose receiver takes its
 * receives from an SRQ: @p's qp[] and cq[] are its own, its MRs @p's.
 */
static struct hu_pair *hu_srq_pair(struct kunit *test, struct hu_pair *p,
				   struct ib_srq **srqp)
{
	struct hu_pair *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = HU_DEPTH, .max_sge = VROCE_MAX_RECV_SGE },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = HU_DEPTH, .max_send_sge = 1 },
	};
	struct ib_srq *srq;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	*s = *p;
	srq = ib_create_srq(p->pd, &sinit);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_destroy_srq,
							srq), 0);
	for (i = 0; i < 2; i++)
		s->cq[i] = hu_cq(test, p->vdev);
	s->qp[0] = hu_qp(test, p->vdev, p->pd, s->cq[0], true);
	init.send_cq = s->cq[1];
	init.recv_cq = s->cq[1];
	init.srq = srq;
	p->vdev->kunit_unpriv = true;
	s->qp[1] = ib_create_qp(p->pd, &init);
	p->vdev->kunit_unpriv = false;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->qp[1]);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_destroy_qp,
							s->qp[1]), 0);
	hu_connect(test, s);
	*srqp = srq;
	return s;
}

static void hu_srq_traffic(struct hu_pair *s, struct ib_srq *srq, u32 r)
{
	struct ib_sge sge = { .addr = hu_va(s, 1), .length = HU_BUF,
			      .lkey = s->mr[1]->lkey };
	struct ib_recv_wr wr = { .wr_id = r, .sg_list = &sge, .num_sge = 1 };

	ib_post_srq_recv(srq, &wr, NULL);
	hu_post_send(s, r, 1 + r % HU_BUF);
}

/*
 * Aim a fuzzed WQE at what a process must never reach: a key of its PD's
 * DMA MR (local_dma_lkey, the remote unsafe_global_rkey), of another PD's
 * DMA MR, or its PD's unregistered FRMR, at the scratch page or the
 * canary by DMA address; or a privileged opcode with its operands.
 */
static void hu_fuzz_aim(struct hu_pair *p, struct vroce_test_kbuf *canary,
			void *slot, bool recv, u32 r)
{
	/* Window keys with tag 0 or 1: the tags the fuzz binds them with. */
	u32 tag = (r >> 20) & 1;
	const u32 keys[] = { p->pd->local_dma_lkey, p->pd->unsafe_global_rkey,
			     p->fr->rkey, p->mr[0]->lkey, p->mr[1]->rkey,
			     p->bmr ? p->bmr->lkey : p->mr[1]->rkey,
			     p->mw[0] ? (p->mw[0]->rkey & ~0xffU) | tag : 0,
			     p->mw[1] ? (p->mw[1]->rkey & ~0xffU) | tag : 0 };
	const u64 addrs[] = { p->scratch->dma, canary->dma,
			      hu_va(p, 0) + SZ_4K - 8, hu_va(p, 1) - 8,
			      hu_va(p, 1) };
	u32 key = keys[r % ARRAY_SIZE(keys)];
	u64 addr = addrs[(r >> 4) % ARRAY_SIZE(addrs)];
	struct vroce_recv_wqe *rw = slot;
	struct vroce_send_wqe *sw = slot;
	int i = (r >> 8) % VROCE_MAX_RECV_SGE;

	if (recv) {
		rw->sge[i].lkey = cpu_to_le32(key);
		rw->sge[i].addr = cpu_to_le64(addr);
		return;
	}
	switch ((r >> 12) % 5) {
	case 0:
		sw->sge[i].lkey = cpu_to_le32(key);
		sw->sge[i].addr = cpu_to_le64(addr);
		break;
	case 1:
		sw->rkey = cpu_to_le32(key);
		sw->remote_addr = cpu_to_le64(addr);
		break;
	case 2:
		sw->opcode = VROCE_WQE_REG_MR;
		sw->fr_key = cpu_to_le32(p->fr->rkey);
		sw->fr_iova = cpu_to_le64(p->fr->iova);
		sw->fr_length = cpu_to_le64(SZ_4K);
		sw->fr_access = cpu_to_le32(VROCE_ACC_MASK);
		sw->reg.pbl = cpu_to_le64(addr);
		sw->reg.npages = cpu_to_le32(1);
		break;
	case 3:
		sw->opcode = VROCE_WQE_LOCAL_INV;
		sw->imm_inv = cpu_to_le32(key);
		break;
	default:
		/* issue 30: bind a window (or whatever the key is) somewhere. */
		sw->opcode = VROCE_WQE_BIND_MW;
		sw->fr_key = cpu_to_le32(keys[6 + ((r >> 16) & 1)] ?: key);
		/* Half of them over the MR windows may bind to. */
		sw->bind.mr_key = cpu_to_le32((r >> 18) & 1 ? keys[5] : key);
		sw->fr_iova = cpu_to_le64((r >> 19) & 1 ? hu_va(p, 1) : addr);
		sw->fr_length = cpu_to_le64((r >> 17) % 3 ? (r >> 8) % SZ_8K : 0);
		sw->fr_access = cpu_to_le32(VROCE_ACC_MASK);
		break;
	}
}

/*
 * For hca_fuzz_ms (10 s) a seeded stream of random bytes goes into random
 * slots of the SQ and RQ rings of an unprivileged pair, and of the SQ and
 * the SRQ ring of a second pair whose receiver takes from an SRQ, while
 * they post SENDs and receives, and their QPs are revived now and then
 * once failed (some writes aim a WQE at a privileged key, address or
 * opcode, or bind and use the PD's two memory windows: hu_fuzz_aim());
 * meanwhile a privileged pair on the same HCA moves and checks
 * data. Asserted: the bystander never fails or loses a byte, the engine
 * keeps completing (the bystander moves at every step), the guard pages
 * around the fuzzed pair's MRs and a canary buffer of another PD stay
 * as written, and the device holds no memory of the pair's afterwards.
 * KASAN and lockdep watch the whole run (scripts/kunit.sh's splat check).
 */
static void vroce_hca_user_ring_fuzz(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct hu_pair *p = hu_pair_on(test, vdev, true);
	struct hu_bystander *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct vroce_test_kbuf *canary = vroce_test_kbuf(test, vdev, SZ_16K);
	u64 seed = hca_fuzz_seed ?: get_random_u64();
	unsigned long end = jiffies + msecs_to_jiffies(hca_fuzz_ms);
	struct vroce_ring *rings[4];
	struct vroce_ring *ring;
	struct hu_pair *s;
	struct ib_srq *srq;
	struct rnd_state rs;
	u32 steps = 0, revived = 0, bound = 0, i;
	int n, k;
	struct ib_wc wc[8];
	u64 refused;
	u8 *slot;
	int q;

	KUNIT_ASSERT_NOT_NULL(test, b);
	kunit_info(test, "seed 0x%llx (replay: vroce_kunit.hca_fuzz_seed=0x%llx)\n",
		   seed, seed);
	prandom_seed_state(&rs, seed);
	refused = hu_refused(test, vdev);
	/* issue 30: windows of the fuzzed pair's PD, bound and used at random. */
	p->bmr = ib_reg_user_mr(p->pd, hu_va(p, 1), HU_BUF, hu_va(p, 1),
				HU_ALL | IB_ACCESS_MW_BIND);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->bmr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hu_dereg_mr,
							p->bmr), 0);
	KUNIT_ASSERT_EQ(test, vroce_test_mw(test, p->pd, IB_MW_TYPE_1,
					    &p->mw[0]), 0);
	KUNIT_ASSERT_EQ(test, vroce_test_mw(test, p->pd, IB_MW_TYPE_2,
					    &p->mw[1]), 0);
	s = hu_srq_pair(test, p, &srq);
	rings[0] = &to_vroce_qp(p->qp[0])->sq.ring;
	rings[1] = &to_vroce_qp(p->qp[1])->rq.ring;
	rings[2] = &to_vroce_qp(s->qp[0])->sq.ring;
	rings[3] = &to_vroce_srq(srq)->ring;
	vroce_test_fill(canary->va, SZ_16K, 0x77);
	b->pd = vroce_test_pd(test, vdev, 0);
	b->cq = hu_cq(test, vdev);
	for (i = 0; i < 2; i++) {
		b->buf[i] = vroce_test_kbuf(test, vdev, SZ_4K);
		b->qp[i] = hu_qp(test, vdev, b->pd, b->cq, false);
	}
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(b->qp[0], b->qp[1]->qp_num, 0,
					       vdev->netdev->dev_addr, 7,
					       HU_ALL), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(b->qp[1], b->qp[0]->qp_num, 0,
					       vdev->netdev->dev_addr, 7,
					       HU_ALL), 0);

	while (time_before(jiffies, end)) {
		u32 r = prandom_u32_state(&rs);

		/* Traffic of the fuzzed pair; a full or failed queue refuses. */
		hu_post_recv(p, steps, 1 + r % HU_BUF);
		hu_post_send(p, steps, r % 2 ? 64 : 1 + (r >> 8) % HU_BUF);
		hu_srq_traffic(s, srq, r);
		/* Random bytes into a random slot of a random ring. */
		for (i = 0; i < 1 + r % 4; i++) {
			u32 w = prandom_u32_state(&rs);

			ring = rings[w & 3];
			slot = vroce_ring_slot(ring, w >> 8);
			slot[(w >> 1) % BIT(ring->entry_shift)] =
				prandom_u32_state(&rs);
			if (w & BIT(7))
				prandom_bytes_state(&rs, slot,
						    BIT(ring->entry_shift));
			if (w & BIT(6))
				hu_fuzz_aim(p, canary, slot, ring == rings[1] ||
					    ring == rings[3], prandom_u32_state(&rs));
		}
		/* Drain what completed; revive a failed pair now and then. */
		for (q = 0; q < 2; q++) {
			while ((n = ib_poll_cq(p->cq[q], ARRAY_SIZE(wc), wc)) > 0)
				for (k = 0; k < n; k++)
					bound += wc[k].status == IB_WC_SUCCESS &&
						 wc[k].opcode == IB_WC_BIND_MW;
			while (ib_poll_cq(s->cq[q], ARRAY_SIZE(wc), wc) > 0)
				;
		}
		if ((hu_state(p->qp[0]) == IB_QPS_ERR ||
		     hu_state(p->qp[1]) == IB_QPS_ERR) && !(r & 0x300)) {
			hu_revive(test, p, false);
			revived++;
		}
		if ((hu_state(s->qp[0]) == IB_QPS_ERR ||
		     hu_state(s->qp[1]) == IB_QPS_ERR) && !(r & 0x3000))
			hu_revive(test, s, true);
		if (!hu_bystander_move(test, b, steps, 1 + r % SZ_4K)) {
			KUNIT_FAIL(test, "step %u: the bystander pair failed (seed 0x%llx)",
				   steps, seed);
			break;
		}
		steps++;
		cond_resched();
	}
	refused = hu_refused(test, vdev) - refused;
	kunit_info(test, "%u steps, the fuzzed pair revived %u times, %llu WQEs refused, %u windows bound\n",
		   steps, revived, refused, bound);
	KUNIT_EXPECT_GT(test, steps, 10);
	/* The fuzz reached the checks, not only the flush. */
	KUNIT_EXPECT_GT(test, refused, 0);
	hu_expect_guards(test, p);
	for (i = 0; i < SZ_16K; i++)
		if (((u8 *)canary->va)[i] != vroce_test_pattern(i, 0x77)) {
			KUNIT_FAIL(test, "canary byte %u changed (seed 0x%llx)",
				   i, seed);
			break;
		}
	/* The pair still works once revived. */
	hu_revive(test, p, false);
	KUNIT_ASSERT_EQ(test, hu_post_recv(p, 1, HU_BUF), 0);
	KUNIT_ASSERT_EQ(test, hu_post_send(p, 1, 64), 0);
	KUNIT_ASSERT_EQ(test, hu_poll(p->cq[0], wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
}

static struct kunit_case vroce_hca_user_cases[] = {
	KUNIT_CASE_PARAM(vroce_hca_user_bad_wqe, hu_bad_wqe_gen_params),
	KUNIT_CASE(vroce_hca_user_kernel_qp_privileged),
	KUNIT_CASE(vroce_hca_user_bad_recv),
	KUNIT_CASE(vroce_hca_user_no_cap),
	KUNIT_CASE(vroce_hca_user_create_faults),
	KUNIT_CASE(vroce_hca_user_ud),
	KUNIT_CASE(vroce_hca_user_driver_filter),
	KUNIT_CASE_SLOW(vroce_hca_user_ring_fuzz),
	{}
};

static struct kunit_suite vroce_hca_user_suite = {
	.name = "vroce_hca_user",
	.test_cases = vroce_hca_user_cases,
};

kunit_test_suite(vroce_hca_user_suite);
