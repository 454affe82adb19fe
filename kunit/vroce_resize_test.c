// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of issue 30's cq/counters work, through the RDMA core's
 * own API between two RC QPs of the emulated HCA:
 * - vroce_resize: ib_resize_cq() growing and shrinking a CQ with CQEs
 *   not yet polled (none lost, none twice, in order), sizes refused,
 *   RESIZE_CQ failed and lost, each allocation failed, and completions
 *   arriving while CQs are resized;
 * - vroce_counters: the port's hardware counters (get_hw_stats, read by
 *   QUERY_COUNTERS) moved by traffic by exactly what it did, and
 *   QUERY_COUNTERS failed;
 * - vroce_inline: inline sends' bounds, for a kernel QP and for a QP
 *   whose work requests carry the process's addresses (a user QP's).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/driver/vroce_cmdq.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define RS_BUF_LEN	(4 * SZ_4K)
#define RS_POLL_MS	3000
#define RS_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* Two connected RC QPs completing to one CQ, a DMA-mapped buffer each. */
struct rs_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vroce_test_kbuf *buf[2];
};

KUNIT_DEFINE_ACTION_WRAPPER(rs_free_cq, ib_free_cq, struct ib_cq *);

static void rs_destroy_qp(void *qp)
{
	ib_destroy_qp(qp);
}

static void rs_dereg_mr(void *mr)
{
	ib_dereg_mr(mr);
}

static struct ib_qp *rs_qp(struct kunit *test, struct rs_pair *p, u32 depth)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = VROCE_MAX_SEND_SGE,
			.max_recv_sge = 1,
			.max_inline_data = VROCE_MAX_INLINE,
		},
	};
	struct ib_qp *qp = ib_create_qp(p->pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rs_destroy_qp,
							qp), 0);
	return qp;
}

static struct rs_pair *rs_pair_on(struct kunit *test, struct vroce_dev *vdev,
				  u32 depth, int cqe, u8 rnr_retry)
{
	struct rs_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vdev;
	p->pd = vroce_test_pd(test, vdev, 0);
	p->cq = ib_alloc_cq(&vdev->ibdev, NULL, cqe, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rs_free_cq,
							p->cq), 0);
	/* Buffers before QPs: cleanup destroys the QPs first. */
	for (i = 0; i < 2; i++)
		p->buf[i] = vroce_test_kbuf(test, vdev, RS_BUF_LEN);
	for (i = 0; i < 2; i++)
		p->qp[i] = rs_qp(test, p, depth);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test,
				vroce_lb_connect(p->qp[i], p->qp[!i]->qp_num, 0,
						 vdev->netdev->dev_addr,
						 rnr_retry, RS_ACCESS), 0);
	return p;
}

static struct rs_pair *rs_pair(struct kunit *test, u32 depth, int cqe,
			       u8 rnr_retry)
{
	return rs_pair_on(test, vroce_test_dev(test), depth, cqe, rnr_retry);
}

static struct ib_sge rs_sge(struct rs_pair *p, int side, u32 off, u32 len)
{
	return (struct ib_sge){ .addr = p->buf[side]->dma + off, .length = len,
				.lkey = p->pd->local_dma_lkey };
}

static int rs_post(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		   struct ib_sge *sge, int n, u64 raddr, u32 rkey, int flags)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = sge,
			.num_sge = n, .send_flags = flags },
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

static int rs_post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sge)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

/* Up to @n completions within RS_POLL_MS. */
static int rs_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return vroce_test_poll(cq, wc, n, RS_POLL_MS);
}

/* Wait until the HCA has written @n CQEs past the consumer's, unpolled. */
static bool rs_wait_written(struct ib_cq *ibcq, u32 n)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(RS_POLL_MS);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	unsigned long flags;
	bool ok;

	do {
		spin_lock_irqsave(&cq->lock, flags);
		ok = n == 0 || vroce_ring_written(&cq->ring, cq->ci + n - 1);
		spin_unlock_irqrestore(&cq->lock, flags);
		if (ok)
			return true;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, deadline));
	return false;
}

/*
 * Message @i: a receive (wr_id 1000 + i) then a signaled SEND of @len
 * bytes (wr_id i). In loopback the receive's CQE is written before the
 * send's.
 */
static void rs_message(struct kunit *test, struct rs_pair *p, u32 i, u32 len)
{
	struct ib_sge src = rs_sge(p, 0, 0, len);
	struct ib_sge dst = rs_sge(p, 1, 0, RS_BUF_LEN);

	KUNIT_ASSERT_EQ(test, rs_post_recv(p->qp[1], 1000 + i, &dst), 0);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, i, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
}

/* The @k-th CQE of the sequence rs_message() makes, from message 0. */
static u64 rs_expected(u32 k)
{
	return k % 2 ? k / 2 : 1000 + k / 2;
}

/* Poll @n CQEs and expect CQEs @from to @from + @n - 1, in order. */
static void rs_expect_seq(struct kunit *test, struct ib_cq *cq, u32 from,
			  u32 n)
{
	struct ib_wc *wc = kunit_kcalloc(test, n, sizeof(*wc), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, wc);
	KUNIT_ASSERT_EQ(test, rs_poll(cq, wc, n), n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, wc[i].status, IB_WC_SUCCESS, "cqe %u",
				    from + i);
		KUNIT_EXPECT_EQ_MSG(test, wc[i].wr_id, rs_expected(from + i),
				    "cqe %u", from + i);
	}
}

static void rs_expect_empty(struct kunit *test, struct ib_cq *cq)
{
	struct ib_wc wc;

	msleep(20);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);
}

static void rs_release_hold(void *hca)
{
	vroce_hca_hold_qp(hca, 0);
}

/* A fast-register MR over @len bytes of side @side's buffer. */
static struct ib_mr *rs_reg_mr(struct kunit *test, struct rs_pair *p, int side,
			       u32 len)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;
	struct ib_mr *mr;

	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, RS_BUF_LEN / SZ_4K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rs_dereg_mr, mr),
			0);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = p->buf[side]->dma;
	sg_dma_len(&sg) = len;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K), 1);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 77;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = RS_ACCESS;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[side], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, &wc, 1), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	return mr;
}

/* ---- vroce_resize ---- */

/* Grow with 9 CQEs unpolled: none lost, none twice, order kept. */
static void vroce_resize_grow(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 16, 7);
	u32 i;

	KUNIT_ASSERT_EQ(test, p->cq->cqe, 16);
	for (i = 0; i < 6; i++)
		rs_message(test, p, i, 100);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 12));
	rs_expect_seq(test, p->cq, 0, 3);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(p->cq, 100), 0);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 128);
	/* More than the old ring held, behind the copied ones. */
	for (i = 6; i < 14; i++)
		rs_message(test, p, i, 100);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 25));
	rs_expect_seq(test, p->cq, 3, 25);
	rs_expect_empty(test, p->cq);
}

/* Shrink: below the CQEs outstanding is EINVAL; to exactly them works. */
static void vroce_resize_shrink(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	u32 i;

	for (i = 0; i < 5; i++)
		rs_message(test, p, i, 64);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 10));
	rs_expect_seq(test, p->cq, 0, 2);
	/* 8 outstanding. */
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 64);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(p->cq, 8), 0);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 8);
	rs_expect_seq(test, p->cq, 2, 8);
	rs_expect_empty(test, p->cq);
	/* The small ring wraps and works on. */
	for (i = 5; i < 11; i++) {
		rs_message(test, p, i, 64);
		rs_expect_seq(test, p->cq, 2 * i, 2);
	}
	/* Same size again: nothing to do. */
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 7), 0);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 8);
}

/* Sizes the device cannot give. */
static void vroce_resize_bad_size(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 4, 16, 7);
	u32 max = BIT(p->vdev->attr.max_cq_depth_log2);

	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, max + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 16);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, max), 0);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, max);
	rs_message(test, p, 0, 8);
	rs_expect_seq(test, p->cq, 0, 2);
}

/*
 * RESIZE_CQ failed by the HCA: the CQ keeps its ring and CQEs, the new
 * ring is freed. Lost: the new ring is parked until the HCA's reset.
 */
static void vroce_resize_cmd_faults(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 16, 7);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_dev *vdev = p->vdev;
	s64 held;
	u32 i;

	for (i = 0; i < 3; i++)
		rs_message(test, p, i, 32);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 6));
	vroce_test_faults_off(test, hca);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_RESIZE_CQ);

	held = atomic64_read(&vdev->mem.dma_bytes);
	vroce_hca_set_faults(hca, 1, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 64), -EIO);
	vroce_hca_set_faults(hca, 1, VROCE_CMD_BAD_OPCODE, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 64), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.dma_bytes), held);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 16);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->ring_zombies));
	/* Nothing moved: the CQEs are where they were, and more follow. */
	rs_message(test, p, 3, 32);
	rs_expect_seq(test, p->cq, 0, 8);

	/* Lost: the HCA may write either ring; the new one is parked. */
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 64), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, list_empty(&vdev->ring_zombies));
	KUNIT_EXPECT_GT(test, atomic64_read(&vdev->mem.dma_bytes), held);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 16);
}

/* Each allocation of a resize failed in turn: -ENOMEM, nothing held. */
static void vroce_resize_fail_every_allocation(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 16, 7);
	struct vroce_dev *vdev = p->vdev;
	s64 allocs, frees;
	int n, err = 0;
	u32 i;

	for (i = 0; i < 3; i++)
		rs_message(test, p, i, 32);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 6));
	for (n = 1; n < 40; n++) {
		allocs = atomic64_read(&vdev->mem.allocs);
		frees = atomic64_read(&vdev->mem.frees);
		atomic_set(&vdev->mem.fail_nth, n);
		err = ib_resize_cq(p->cq, 256);
		if (!err)
			break;
		KUNIT_EXPECT_EQ_MSG(test, err, -ENOMEM, "point %d", n);
		KUNIT_EXPECT_EQ(test, atomic_read(&vdev->mem.fail_nth), 0);
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&vdev->mem.allocs) - allocs,
				    atomic64_read(&vdev->mem.frees) - frees,
				    "point %d", n);
		KUNIT_EXPECT_EQ(test, p->cq->cqe, 16);
	}
	atomic_set(&vdev->mem.fail_nth, 0);
	KUNIT_ASSERT_EQ(test, err, 0);
	kunit_info(test, "%d injection points in ib_resize_cq()", n - 1);
	/* The zombie record, the ring's page array, its MTR. */
	KUNIT_EXPECT_GE(test, n - 1, 3);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 256);
	rs_expect_seq(test, p->cq, 0, 6);
}

struct rs_poster {
	struct rs_pair *p;
	u32 count;
	int err;
};

/* Post rs_message()s as the queues take them. */
static int rs_poster_fn(void *data)
{
	struct rs_poster *t = data;
	struct rs_pair *p = t->p;
	struct ib_sge src = rs_sge(p, 0, 0, 16);
	struct ib_sge dst = rs_sge(p, 1, 0, RS_BUF_LEN);
	unsigned long deadline = jiffies + 20 * HZ;
	u32 i = 0;
	int err;

	while (i < t->count && time_before(jiffies, deadline) &&
	       !kthread_should_stop()) {
		err = rs_post_recv(p->qp[1], 1000 + i, &dst);
		if (err == -ENOMEM) {
			usleep_range(100, 200);
			continue;
		}
		if (err)
			break;
		do {
			err = rs_post(p->qp[0], IB_WR_SEND, i, &src, 1, 0, 0,
				      IB_SEND_SIGNALED);
			if (err == -ENOMEM)
				usleep_range(100, 200);
		} while (err == -ENOMEM && time_before(jiffies, deadline));
		if (err)
			break;
		i++;
	}
	t->err = i == t->count ? 0 : err ?: -ETIMEDOUT;
	return 0;
}

/*
 * Completions arriving while the CQ is resized again and again land in
 * order: every CQE once, in the order the HCA wrote them.
 */
static void vroce_resize_under_traffic(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 8, 32, 7);
	struct rs_poster *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned long deadline = jiffies + 20 * HZ;
	static const int sizes[] = { 64, 32, 256, 17 };
	struct task_struct *task;
	struct ib_wc wc[8];
	u32 next = 0, resizes = 0, total;
	int got, i, err = 0;
	bool bad = false;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->p = p;
	t->count = 400;
	total = 2 * t->count;
	task = kthread_run(rs_poster_fn, t, "rs_poster");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	/* No assertion until the poster stopped: it uses the QPs. */
	while (!bad && !err && next < total && time_before(jiffies, deadline)) {
		got = ib_poll_cq(p->cq, ARRAY_SIZE(wc), wc);
		for (i = 0; i < got && !bad; i++, next++) {
			bad = wc[i].status != IB_WC_SUCCESS ||
			      wc[i].wr_id != rs_expected(next);
			if (bad)
				kunit_err(test, "cqe %u: wr_id %llu status %d",
					  next, wc[i].wr_id, wc[i].status);
		}
		/* At most 16 WQEs are out: any of these sizes holds them. */
		err = ib_resize_cq(p->cq, sizes[resizes % ARRAY_SIZE(sizes)]);
		resizes++;
	}
	kthread_stop(task);
	put_task_struct(task);
	KUNIT_EXPECT_FALSE(test, bad);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, t->err, 0);
	KUNIT_EXPECT_EQ(test, next, total);
	kunit_info(test, "%u CQEs polled across %u resizes", next, resizes);
	KUNIT_EXPECT_GT(test, resizes, 10);
	rs_expect_empty(test, p->cq);
}

/*
 * A QP cleaned (destroyed or reset) after the HCA copied its CQEs but
 * before the driver took the new ring: they are cleaned in the new ring
 * too, or they would retire WQEs of a QP given the number next.
 */
static void vroce_resize_clean_copies(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 16, 7);
	struct vroce_cq *cq = to_vroce_cq(p->cq);
	struct vroce_ring ring = {};
	u32 i, ci, copied = 0;
	struct ib_wc wc;

	for (i = 0; i < 3; i++)
		rs_message(test, p, i, 32);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 6));
	/* vroce_resize_cq() step by step, a clean between command and switch. */
	KUNIT_ASSERT_EQ(test, vroce_ring_create(p->vdev, &ring, 6,
						VROCE_CQE_SIZE, 0), 0);
	ci = vroce_cq_resize_begin(cq);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, vroce_cmd_resize_cq(p->vdev, cq->cqn, &ring, ci,
						  &copied), 0);
	KUNIT_EXPECT_EQ(test, copied, 6);
	vroce_cq_clean(cq, p->qp[1]->qp_num);
	vroce_cq_resize_end(cq, &ring, true);
	vroce_ring_destroy(p->vdev, &ring);	/* the old one now */
	/* Only the sends' CQEs remain; the receives' are skipped. */
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, rs_poll(p->cq, &wc, 1), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, i);
		KUNIT_EXPECT_PTR_EQ(test, wc.qp, p->qp[0]);
	}
	rs_expect_empty(test, p->cq);
}

/*
 * Work posted and not yet executed owes its CQEs: a shrink below what is
 * written plus what is owed is EINVAL, the CQ unchanged; unsignaled WQEs
 * owe nothing. (pyverbs' test_resize_cq posts six UD sends and shrinks
 * at once; the shrink passed when the engine had not run yet.)
 */
static void vroce_resize_owed(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 16, 7);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_mr *mr = rs_reg_mr(test, p, 1, RS_BUF_LEN);
	struct ib_sge src = rs_sge(p, 0, 0, 64);
	struct ib_wc wc[4];
	u32 i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rs_release_hold,
							hca), 0);
	vroce_hca_hold_qp(hca, p->qp[0]->qp_num);
	/* 4 signaled WRITEs, 3 unsignaled between them. */
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, rs_post(p->qp[0], IB_WR_RDMA_WRITE, i,
					      &src, 1, mr->iova, mr->rkey,
					      i % 2 ? 0 : IB_SEND_SIGNALED), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, wc), 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 16);
	/* 3 is 4 entries: exactly what is owed. */
	KUNIT_EXPECT_EQ(test, ib_resize_cq(p->cq, 3), 0);
	KUNIT_EXPECT_EQ(test, p->cq->cqe, 4);
	vroce_hca_hold_qp(hca, 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 4), 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 2 * i);
	}
	rs_expect_empty(test, p->cq);
}

static struct kunit_case vroce_resize_cases[] = {
	KUNIT_CASE(vroce_resize_grow),
	KUNIT_CASE(vroce_resize_shrink),
	KUNIT_CASE(vroce_resize_owed),
	KUNIT_CASE(vroce_resize_bad_size),
	KUNIT_CASE(vroce_resize_cmd_faults),
	KUNIT_CASE(vroce_resize_fail_every_allocation),
	KUNIT_CASE(vroce_resize_under_traffic),
	KUNIT_CASE(vroce_resize_clean_copies),
	{}
};

static struct kunit_suite vroce_resize_suite = {
	.name = "vroce_resize",
	.test_cases = vroce_resize_cases,
};

/* ---- vroce_counters ---- */

/* The port's counters now, through the driver's get_hw_stats. */
static void rs_counters(struct kunit *test, struct vroce_dev *vdev, u64 *v)
{
	struct rdma_hw_stats *stats = vroce_alloc_hw_port_stats(&vdev->ibdev, 1);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, stats);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 1, 0),
			VROCE_CNT_NUM);
	for (i = 0; i < VROCE_CNT_NUM; i++)
		v[i] = stats->value[i];
	rdma_free_hw_stats_struct(stats);
}

#define RS_DELTA(c)	(now[VROCE_CNT_##c] - before[VROCE_CNT_##c])

/* SEND, WRITE and READ move the byte and packet counters by what they did. */
static void vroce_counters_traffic(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	u64 before[VROCE_CNT_NUM], now[VROCE_CNT_NUM];
	struct ib_sge sge;
	struct ib_wc wc[2];
	struct ib_mr *mr;
	u32 i;

	mr = rs_reg_mr(test, p, 1, RS_BUF_LEN);
	rs_counters(test, p->vdev, before);
	/* 3 SENDs of 5000 bytes: 2 packets each. */
	for (i = 0; i < 3; i++) {
		rs_message(test, p, i, 5000);
		KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 2), 2);
	}
	/* WRITE of 100 bytes: 1 packet; READ of 8192: 2 packets back. */
	sge = rs_sge(p, 0, 0, 100);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_RDMA_WRITE, 10, &sge, 1,
				      mr->iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	sge = rs_sge(p, 0, 0, 8192);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_RDMA_READ, 11, &sge, 1,
				      mr->iova, mr->rkey, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	rs_counters(test, p->vdev, now);

	/* Both ends are this port: what one sent, the other took. */
	KUNIT_EXPECT_EQ(test, RS_DELTA(TX_PACKETS), 3 * 2 + 1 + 2);
	KUNIT_EXPECT_EQ(test, RS_DELTA(TX_BYTES), 3 * 5000 + 100 + 8192);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RX_PACKETS), 3 * 2 + 1 + 2);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RX_BYTES), 3 * 5000 + 100 + 8192);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RETRIES), 0);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RNR_NAK_SENT), 0);
	for (i = VROCE_CNT_LOC_LEN_ERR; i < VROCE_CNT_NUM; i++)
		KUNIT_EXPECT_EQ_MSG(test, now[i] - before[i], 0, "counter %u", i);
}

/* RNR NAKs both ways, RNR retries exhausted, and what the error flushes. */
static void vroce_counters_rnr_and_flush(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 1);
	u64 before[VROCE_CNT_NUM], now[VROCE_CNT_NUM];
	struct ib_sge src = rs_sge(p, 0, 0, 64);
	struct ib_sge dst = rs_sge(p, 0, 0, 64);
	struct ib_wc wc[4];

	rs_counters(test, p->vdev, before);
	/* No receive: 1 RNR and a retry, then a second RNR fails it. */
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 1, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 2, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_post_recv(p->qp[0], 3, &dst), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 3), 3);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[2].status, IB_WC_WR_FLUSH_ERR);
	rs_counters(test, p->vdev, now);

	KUNIT_EXPECT_EQ(test, RS_DELTA(RNR_NAK_SENT), 2);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RNR_NAK_RCVD), 2);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RNR_RETRY_EXC_ERR), 1);
	KUNIT_EXPECT_EQ(test, RS_DELTA(WR_FLUSH_ERR), 2);
	KUNIT_EXPECT_EQ(test, RS_DELTA(TX_PACKETS), 0);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RX_PACKETS), 0);
	KUNIT_EXPECT_EQ(test, RS_DELTA(LOC_PROT_ERR), 0);
}

/* A bad lkey and a remote access error each count once, by class. */
static void vroce_counters_error_classes(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	u64 before[VROCE_CNT_NUM], now[VROCE_CNT_NUM];
	struct ib_sge src = rs_sge(p, 0, 0, 64);
	struct rs_pair *q;
	struct ib_wc wc[2];

	rs_counters(test, p->vdev, before);
	src.lkey ^= 0x80;
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 1, &src, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_LOC_PROT_ERR);
	/* A WRITE to a key nobody has: REM_ACCESS_ERR at the requester. */
	q = rs_pair_on(test, p->vdev, 16, 64, 7);
	src = rs_sge(q, 0, 0, 64);
	KUNIT_ASSERT_EQ(test, rs_post(q->qp[0], IB_WR_RDMA_WRITE, 2, &src, 1,
				      0x1000, 0x12345678, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_GE(test, rs_poll(q->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_REM_ACCESS_ERR);
	msleep(20);
	rs_counters(test, p->vdev, now);

	KUNIT_EXPECT_EQ(test, RS_DELTA(LOC_PROT_ERR), 1);
	KUNIT_EXPECT_EQ(test, RS_DELTA(REM_ACCESS_ERR), 1);
	KUNIT_EXPECT_EQ(test, RS_DELTA(LOC_LEN_ERR), 0);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RETRY_EXC_ERR), 0);
	KUNIT_EXPECT_EQ(test, RS_DELTA(UD_DROPPED), 0);
	KUNIT_EXPECT_EQ(test, now[VROCE_CNT_UD_DROPPED],
			vroce_hca_ud_dropped(vroce_test_hca(test)));
}

/* A peer that never answers: retry_cnt transport retries, then RETRY_EXC. */
static void vroce_counters_retries(struct kunit *test)
{
	static const u8 nobody[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct rs_pair *p = rs_pair(test, 4, 16, 7);
	u64 before[VROCE_CNT_NUM], now[VROCE_CNT_NUM];
	struct ib_sge sge = rs_sge(p, 0, 0, 64);
	struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[0], &reset, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[0], p->qp[1]->qp_num, 0,
					       nobody, 7, RS_ACCESS), 0);
	rs_counters(test, p->vdev, before);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 1, &sge, 1, 0, 0,
				      IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_RETRY_EXC_ERR);
	rs_counters(test, p->vdev, now);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RETRIES), 7);
	KUNIT_EXPECT_EQ(test, RS_DELTA(RETRY_EXC_ERR), 1);
	KUNIT_EXPECT_EQ(test, RS_DELTA(TX_PACKETS), 0);
}

/* QUERY_COUNTERS failed or lost: get_hw_stats returns its error. */
static void vroce_counters_query_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct rdma_hw_stats *stats;
	int i;

	stats = vroce_alloc_hw_port_stats(&vdev->ibdev, 1);
	KUNIT_ASSERT_NOT_NULL(test, stats);
	KUNIT_EXPECT_EQ(test, stats->num_counters, VROCE_CNT_NUM);
	for (i = 0; i < VROCE_CNT_NUM; i++)
		stats->value[i] = 0xdead;
	vroce_test_faults_off(test, hca);
	vroce_hca_set_fault_opcode(hca, VROCE_CMD_QUERY_COUNTERS);
	vroce_hca_set_faults(hca, 1, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 1, 0),
			-EIO);
	/* An HCA without the command. */
	vroce_hca_set_faults(hca, 1, VROCE_CMD_BAD_OPCODE, 0, 0);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 1, 0),
			-EOPNOTSUPP);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 1, 0),
			-ETIMEDOUT);
	for (i = 0; i < VROCE_CNT_NUM; i++)
		KUNIT_EXPECT_EQ(test, stats->value[i], 0xdead);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_cmd_timeout(test, vdev, 2000);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 1, 0),
			VROCE_CNT_NUM);
	KUNIT_EXPECT_EQ(test, vroce_get_hw_stats(&vdev->ibdev, stats, 2, 0),
			-EINVAL);
	rdma_free_hw_stats_struct(stats);
}

/*
 * The HCA's own checks of the two commands, as a driver other than this
 * one might send them: QUERY_COUNTERS past the last counter or with
 * reserved bits; RESIZE_CQ with a consumer count the CQ never had, or
 * more CQEs outstanding than the new ring holds (nothing changes).
 */
static void vroce_counters_hca_checks(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 4, 16, 7);
	struct vroce_cmd_query_counters q = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_QUERY_COUNTERS),
		.first = cpu_to_le32(VROCE_CNT_NUM),
	};
	struct vroce_resp_query_counters qr;
	struct vroce_ring ring = {};
	u32 copied = 0;

	KUNIT_EXPECT_EQ(test, vroce_cmdq_exec(p->vdev, &q, sizeof(q), &qr,
					      sizeof(qr), 0), -EINVAL);
	q.first = cpu_to_le32(VROCE_CNT_NUM - 1);
	q.rsvd = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, vroce_cmdq_exec(p->vdev, &q, sizeof(q), &qr,
					      sizeof(qr), 0), -EINVAL);
	q.rsvd = 0;
	KUNIT_EXPECT_EQ(test, vroce_cmdq_exec(p->vdev, &q, sizeof(q), &qr,
					      sizeof(qr), 0), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qr.num), VROCE_CNT_NUM);

	rs_message(test, p, 0, 16);
	rs_message(test, p, 1, 16);
	KUNIT_ASSERT_TRUE(test, rs_wait_written(p->cq, 4));
	KUNIT_ASSERT_EQ(test, vroce_ring_create(p->vdev, &ring, 1,
						VROCE_CQE_SIZE, 0), 0);
	/* A count past the producer's; 4 outstanding into 2 entries. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_resize_cq(p->vdev,
						  to_vroce_cq(p->cq)->cqn,
						  &ring, 5, &copied), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_resize_cq(p->vdev,
						  to_vroce_cq(p->cq)->cqn,
						  &ring, 0, &copied), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_resize_cq(p->vdev, VROCE_MAX_CQ - 1,
						  &ring, 0, &copied), -ENOENT);
	vroce_ring_destroy(p->vdev, &ring);
	/* The CQ went on as it was. */
	rs_expect_seq(test, p->cq, 0, 4);
}

static struct kunit_case vroce_counters_cases[] = {
	KUNIT_CASE(vroce_counters_traffic),
	KUNIT_CASE(vroce_counters_rnr_and_flush),
	KUNIT_CASE(vroce_counters_error_classes),
	KUNIT_CASE_SLOW(vroce_counters_retries),
	KUNIT_CASE(vroce_counters_query_faults),
	KUNIT_CASE(vroce_counters_hca_checks),
	{}
};

static struct kunit_suite vroce_counters_suite = {
	.name = "vroce_counters",
	.test_cases = vroce_counters_cases,
};

/* ---- vroce_inline ---- */

/* A kernel QP: up to VROCE_MAX_INLINE bytes over SGEs; granted in full. */
static void vroce_inline_kernel_bounds(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	u8 msg[VROCE_MAX_INLINE + 1];
	struct ib_sge in[2] = {
		{ .addr = (uintptr_t)msg, .length = 40 },
		{ .addr = (uintptr_t)msg + 40, .length = VROCE_MAX_INLINE - 40 },
	};
	struct ib_sge dst = rs_sge(p, 1, 0, 4096);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = p->cq, .recv_cq = p->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 10 },
	};
	struct ib_qp *qp;
	struct ib_wc wc[2];

	vroce_test_fill(msg, sizeof(msg), 9);
	KUNIT_ASSERT_EQ(test, rs_post_recv(p->qp[1], 1, &dst), 0);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 2, in, 2, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, VROCE_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1]->va, msg, VROCE_MAX_INLINE), 0);
	/* One byte more over two SGEs: refused, nothing posted. */
	in[1].length++;
	KUNIT_EXPECT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 3, in, 2, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED),
			-EINVAL);
	rs_expect_empty(test, p->cq);

	/* Asked 10, granted all the WQE holds; more than it holds: EINVAL. */
	qp = ib_create_qp(p->pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, init.cap.max_inline_data, VROCE_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	init.cap.max_inline_data = VROCE_MAX_INLINE + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(p->pd, &init)), -EINVAL);
}

/*
 * A QP whose work requests come from a process (uverbs' POST_SEND): its
 * inline SGEs hold user addresses, copied with copy_from_user() before
 * the SQ lock; a kernel address there is -EFAULT, never dereferenced;
 * too long is -EINVAL; the chain is all or nothing.
 */
static void vroce_inline_user_addresses(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	struct vroce_qp *vqp = to_vroce_qp(p->qp[0]);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_4K, 5);
	u8 *expect = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	u8 kmsg[16] = { 1, 2, 3 };
	struct ib_sge in[2] = {
		{ .addr = uaddr + 100, .length = 30 },
		{ .addr = uaddr + 1000, .length = 34 },
	};
	struct ib_sge dst = rs_sge(p, 1, 0, 4096);
	struct ib_send_wr wr[2] = {};
	const struct ib_send_wr *bad;
	struct ib_wc wc[2];

	KUNIT_ASSERT_NOT_NULL(test, expect);
	vroce_test_fill(expect, SZ_4K, 5);
	/* What uverbs makes of a process's QP. */
	vqp->user = true;

	KUNIT_ASSERT_EQ(test, rs_post_recv(p->qp[1], 1, &dst), 0);
	KUNIT_ASSERT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 2, in, 2, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rs_poll(p->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 64);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1]->va, expect + 100, 30), 0);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1]->va + 30, expect + 1000, 34), 0);

	/* A kernel address where a user address belongs. */
	in[0].addr = (uintptr_t)kmsg;
	in[0].length = sizeof(kmsg);
	KUNIT_EXPECT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 3, in, 1, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED),
			-EFAULT);
	/* Too long, over two SGEs. */
	in[0].addr = uaddr;
	in[0].length = 31;
	KUNIT_EXPECT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 4, in, 2, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED),
			-EINVAL);
	/* A good request then a bad one: neither is posted. */
	in[0].length = 8;
	wr[0] = (struct ib_send_wr){ .wr_id = 5, .opcode = IB_WR_SEND,
				     .sg_list = in, .num_sge = 1,
				     .send_flags = IB_SEND_INLINE |
						   IB_SEND_SIGNALED,
				     .next = &wr[1] };
	wr[1] = wr[0];
	wr[1].next = NULL;
	wr[1].wr_id = 6;
	wr[1].num_sge = 2;
	in[1].length = VROCE_MAX_INLINE;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[0]);
	rs_expect_empty(test, p->cq);
	vqp->user = false;
}

/* The user path's buffer allocation failed: -ENOMEM, nothing posted. */
static void vroce_inline_user_nomem(struct kunit *test)
{
	struct rs_pair *p = rs_pair(test, 16, 64, 7);
	struct vroce_qp *vqp = to_vroce_qp(p->qp[0]);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_4K, 5);
	struct ib_sge in = { .addr = uaddr, .length = 16 };
	s64 allocs, frees;

	vqp->user = true;
	allocs = atomic64_read(&p->vdev->mem.allocs);
	frees = atomic64_read(&p->vdev->mem.frees);
	atomic_set(&p->vdev->mem.fail_nth, 1);
	KUNIT_EXPECT_EQ(test, rs_post(p->qp[0], IB_WR_SEND, 1, &in, 1, 0, 0,
				      IB_SEND_INLINE | IB_SEND_SIGNALED),
			-ENOMEM);
	atomic_set(&p->vdev->mem.fail_nth, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p->vdev->mem.allocs) - allocs,
			atomic64_read(&p->vdev->mem.frees) - frees);
	rs_expect_empty(test, p->cq);
	vqp->user = false;
}

static struct kunit_case vroce_inline_cases[] = {
	KUNIT_CASE(vroce_inline_kernel_bounds),
	KUNIT_CASE(vroce_inline_user_addresses),
	KUNIT_CASE(vroce_inline_user_nomem),
	{}
};

static struct kunit_suite vroce_inline_suite = {
	.name = "vroce_inline",
	.test_cases = vroce_inline_cases,
};

kunit_test_suites(&vroce_resize_suite, &vroce_counters_suite,
		  &vroce_inline_suite);
