// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_cmd: the command ring under load and its deadlines,
 * interrupt delivery outside the HCA's locks, and the HCA's handles.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define CMD_THREADS	32	/* twice the ring's 16 slots */
#define CMD_MRS		4	/* MRs per thread */

struct cmd_thread {
	struct ib_pd *pd;
	int id;
	bool dereg;
	struct ib_mr *mr[CMD_MRS];
	int err;
	struct completion done;
};

/* Pages of thread @id's MR @j: distinct for every MR of the test. */
static u32 cmd_pages(int id, int j)
{
	return id * CMD_MRS + j + 1;
}

static int cmd_thread_fn(void *data)
{
	struct cmd_thread *t = data;
	int j, err;

	for (j = 0; j < CMD_MRS; j++) {
		if (t->dereg && !t->mr[j])
			continue;	/* its alloc failed, and said so */
		if (t->dereg) {
			err = ib_dereg_mr(t->mr[j]);
			if (!err)
				t->mr[j] = NULL;
		} else {
			t->mr[j] = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG,
					       cmd_pages(t->id, j));
			err = PTR_ERR_OR_ZERO(t->mr[j]);
			if (err)
				t->mr[j] = NULL;
		}
		if (err && !t->err)
			t->err = err;
	}
	complete(&t->done);
	return 0;
}

/* Run every thread's part once (alloc or dereg), all at the same time. */
static void cmd_run_threads(struct kunit *test, struct cmd_thread *t,
			    bool dereg)
{
	struct task_struct *task;
	int i;

	for (i = 0; i < CMD_THREADS; i++) {
		t[i].dereg = dereg;
		t[i].err = 0;
		init_completion(&t[i].done);
	}
	for (i = 0; i < CMD_THREADS; i++) {
		task = kthread_run(cmd_thread_fn, &t[i], "vroce_cmd_%d", i);
		if (IS_ERR(task)) {
			t[i].err = PTR_ERR(task);
			complete(&t[i].done);
		}
	}
	for (i = 0; i < CMD_THREADS; i++)
		wait_for_completion(&t[i].done);
	for (i = 0; i < CMD_THREADS; i++)
		KUNIT_EXPECT_EQ_MSG(test, t[i].err, 0, "thread %d, %s", i,
				    dereg ? "dereg" : "alloc");
}

static int cmd_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Twice as many submitters as ring slots, with a slow HCA so that the ring
 * stays full: every command completes, to its own caller. Each MR has its
 * own page count, so a key that went to the wrong caller shows: the HCA
 * registers a fast-register MR only up to the pages its entry has.
 */
static void vroce_cmd_many_submitters(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn, *keys, len;
	struct vroce_mr_info info;
	struct cmd_thread *t;
	u64 pbl, waits;
	int i, j, n = 0;

	t = kunit_kcalloc(test, CMD_THREADS, sizeof(*t), GFP_KERNEL);
	keys = kunit_kcalloc(test, CMD_THREADS * CMD_MRS, sizeof(*keys),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < CMD_THREADS; i++) {
		t[i].pd = pd;
		t[i].id = i;
	}
	waits = vdev->cmdq.full_waits;
	vroce_test_faults_off(test, hca);
	vroce_hca_set_faults(hca, 0, 0, 0, 1);

	cmd_run_threads(test, t, false);
	/* More submitters than slots: some found the ring full and waited. */
	KUNIT_EXPECT_GT(test, vdev->cmdq.full_waits, waits);
	for (i = 0; i < CMD_THREADS; i++) {
		for (j = 0; j < CMD_MRS; j++) {
			if (!t[i].mr[j])
				continue;
			keys[n++] = t[i].mr[j]->lkey;
			/* The key reaches the MR of exactly its page count. */
			len = cmd_pages(i, j) * SZ_4K;
			vroce_test_mr_info(t[i].mr[j], &info);
			pbl = info.pbl_dma;
			KUNIT_EXPECT_EQ_MSG(test,
					    vroce_hca_frmr_register(hca, t[i].mr[j]->lkey,
								    pdn, 0, len + SZ_4K,
								    VROCE_ACC_LOCAL_WRITE,
								    pbl, cmd_pages(i, j) + 1),
					    -VROCE_HCA_EBOUNDS, "thread %d MR %d", i, j);
			KUNIT_EXPECT_EQ_MSG(test,
					    vroce_hca_frmr_register(hca, t[i].mr[j]->lkey,
								    pdn, 0, len,
								    VROCE_ACC_LOCAL_WRITE,
								    pbl, cmd_pages(i, j)),
					    0, "thread %d MR %d", i, j);
			KUNIT_EXPECT_EQ(test,
					vroce_hca_frmr_invalidate(hca, t[i].mr[j]->lkey),
					0);
		}
	}
	KUNIT_EXPECT_EQ(test, n, CMD_THREADS * CMD_MRS);
	sort(keys, n, sizeof(*keys), cmd_cmp_u32, NULL);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_NE(test, keys[i], keys[i - 1]);

	cmd_run_threads(test, t, true);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	/* Whatever a failure left behind goes now, before the counts. */
	for (i = 0; i < CMD_THREADS; i++)
		for (j = 0; j < CMD_MRS; j++)
			if (t[i].mr[j])
				ib_dereg_mr(t[i].mr[j]);
	KUNIT_EXPECT_TRUE(test, list_empty(&vdev->zombies));
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * A command that first waits for a slot and then for its response gives up
 * once, at its deadline, not after a second full timeout.
 */
static void vroce_cmd_deadline(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_dev_attr attr;
	unsigned long start;
	struct vroce_test_busy *b;
	unsigned int ms;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 300);
	/* Each command takes 100 ms: a full ring takes 1.6 s to drain. */
	vroce_hca_set_faults(hca, 0, 0, 0, 100);
	b = vroce_test_fill_ring(test, vdev);
	start = jiffies;
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -ETIMEDOUT);
	ms = jiffies_to_msecs(jiffies - start);
	KUNIT_EXPECT_GE(test, ms, 300 - 20);
	KUNIT_EXPECT_LE_MSG(test, ms, 300 + 60, "waited %u ms", ms);
	vroce_test_ring_wait(vdev, b);

	/* Once the HCA catches up, the ring works again. */
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_cmd_timeout(test, vdev, 2000);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), 0);
}

/*
 * With every slot of @vdev's ring taken by a command that takes @delay_ms
 * (well over 70: the threads must start, then 20 ms and the 50 ms
 * deadline, each up to a jiffy longer), a command that finds no free slot
 * by its deadline is not posted at all: -EAGAIN, and the ring's producer
 * index has not moved.
 */
static void cmd_expect_no_slot(struct kunit *test, struct vroce_dev *vdev,
			       u32 delay_ms)
{
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_dev_attr attr;
	struct vroce_test_busy *b;
	u32 pi;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 50);
	vroce_hca_set_faults(hca, 0, 0, 0, delay_ms);
	b = vroce_test_fill_ring(test, vdev);
	pi = READ_ONCE(vdev->cmdq.pi);
	KUNIT_EXPECT_EQ(test, pi - READ_ONCE(vdev->cmdq.ci), vdev->cmdq.depth);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), -EAGAIN);
	KUNIT_EXPECT_EQ(test, READ_ONCE(vdev->cmdq.pi), pi);
	/* The command under way keeps its delay; the others run at once. */
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_ring_wait(vdev, b);
	vroce_test_cmd_timeout(test, vdev, 2000);
	KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), 0);
}

/* 16 slots, the first command done after 200 ms. */
static void vroce_cmd_no_slot(struct kunit *test)
{
	cmd_expect_no_slot(test, vroce_test_dev(test), 200);
}

/* A PD number the HCA never handed out (it has 1024). */
#define VROCE_TEST_NO_PD	1000

/*
 * Module parameter cmdq_depth, read at probe: rounded up to a power of
 * two from 4 to 256 (0: 1, so 4). Each ring works round twice (256
 * slots: 8 pages). A ring of 32 holds 32 commands in the HCA at once,
 * and the 33rd waits for a slot.
 */
static void vroce_cmd_depth(struct kunit *test)
{
	static const struct { u32 want, got; } v[] = {
		{ 0, 4 }, { 3, 4 }, { 17, 32 }, { 1000, 256 }, { 32, 32 },
	};
	struct vroce_dev *vdev = NULL;
	struct vroce_dev_attr attr;
	u32 i, n;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		vroce_test_cmdq_depth(test, v[i].want);
		vdev = vroce_test_dev(test);
		KUNIT_EXPECT_EQ_MSG(test, vdev->cmdq.depth, v[i].got,
				    "cmdq_depth %u", v[i].want);
		for (n = 0; n < 2 * v[i].got; n++)
			KUNIT_ASSERT_EQ(test,
					vroce_cmd_query_device(vdev, &attr), 0);
		KUNIT_EXPECT_EQ(test, attr.max_mr, vdev->attr.max_mr);
	}
	cmd_expect_no_slot(test, vdev, 300);
}

/*
 * A deep ring: a destroy that waited past its 2 s deadline for a slot of
 * a 64-slot ring, and is then posted behind 63 others (20 ms each: two
 * jiffies at HZ=100, 1.26 s), still gets its response: its floor grows
 * with the ring (a quarter of the timeout per 16 slots, 2 s here, not
 * 0.5 s), so it does not time out and park what it frees.
 */
static void vroce_cmd_deep_ring_destroy(struct kunit *test)
{
	struct vroce_dev *vdev;
	struct vroce_hca *hca;
	struct vroce_test_busy *b;

	vroce_test_cmdq_depth(test, 64);
	vdev = vroce_test_dev(test);
	hca = vroce_test_hca(test);
	KUNIT_ASSERT_EQ(test, vdev->cmdq.depth, 64);
	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 2000);
	/* The first command takes 2.1 s, those after it 20 ms each. */
	vroce_hca_set_faults(hca, 0, 0, 0, 2100);
	b = vroce_test_fill_ring(test, vdev);	/* full, the first under way */
	vroce_hca_set_faults(hca, 0, 0, 0, 10);
	/* No such PD: the HCA answers BAD_HANDLE, if it is waited for. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, VROCE_TEST_NO_PD),
			-ENOENT);
	vroce_test_ring_wait(vdev, b);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
}

/*
 * Commands the HCA carries out without completing raise no interrupt; a
 * full ring of them must not stop the next caller for good.
 */
static void vroce_cmd_dropped_fill_ring(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	u32 depth = vdev->cmdq.depth, i;
	struct vroce_dev_attr attr;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 50);
	vroce_hca_set_faults(hca, 0, 0, depth + 1, 0);
	for (i = 0; i <= depth; i++)
		KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr),
				-ETIMEDOUT);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	for (i = 0; i < 2 * depth; i++)
		KUNIT_EXPECT_EQ(test, vroce_cmd_query_device(vdev, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.max_mr, vdev->attr.max_mr);
}

struct cmd_handler_ctx {
	struct ib_pd *pd;
	struct ib_cq *spare;
	atomic_t calls;
	int err;
	int destroy_err;
	unsigned int ms;
	struct completion done;
};

/*
 * A completion handler that issues verbs needing HCA commands, and
 * destroys another CQ of the device.
 */
static void cmd_comp_handler(struct ib_cq *cq, void *data)
{
	struct cmd_handler_ctx *c = data;
	unsigned long start = jiffies;
	struct ib_mr *mr;

	if (atomic_inc_return(&c->calls) > 1)
		return;
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 2);
	c->err = PTR_ERR_OR_ZERO(mr);
	if (!c->err)
		c->err = ib_dereg_mr(mr);
	c->destroy_err = ib_destroy_cq_user(c->spare, NULL);
	c->ms = jiffies_to_msecs(jiffies - start);
	complete(&c->done);
}

static void cmd_destroy_qp(void *data)
{
	ib_destroy_qp(data);
}

static void cmd_destroy_cq(void *data)
{
	ib_destroy_cq(data);
}

/*
 * A CQ whose completion handler is cmd_comp_handler() with @c, and the
 * spare CQ that handler destroys; the CQ is destroyed when the test ends.
 */
static struct ib_cq *cmd_handler_cq(struct kunit *test, struct vroce_dev *vdev,
				    struct ib_pd *pd, struct cmd_handler_ctx *c)
{
	struct ib_cq_init_attr cqa = { .cqe = 16 };
	struct ib_cq *cq;

	c->pd = pd;
	init_completion(&c->done);
	c->spare = ib_create_cq(&vdev->ibdev, NULL, NULL, NULL, &cqa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->spare);
	cq = ib_create_cq(&vdev->ibdev, cmd_comp_handler, NULL, c, &cqa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmd_destroy_cq,
							cq), 0);
	return cq;
}

/*
 * Interrupts reach the driver outside the HCA's locks: a consumer's
 * completion handler may issue a verb that waits for a command.
 */
static void vroce_cmd_handler_issues_verb(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct cmd_handler_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 1, .opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
	};
	struct ib_qp *qp[2];
	struct ib_cq *cq;
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	cq = cmd_handler_cq(test, vdev, pd, c);
	init.send_cq = cq;
	init.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		qp[i] = ib_create_qp(pd, &init);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								cmd_destroy_qp,
								qp[i]), 0);
	}
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, vroce_lb_connect(qp[i], qp[!i]->qp_num, 0,
						       vdev->netdev->dev_addr,
						       7, IB_ACCESS_LOCAL_WRITE |
						       IB_ACCESS_REMOTE_WRITE),
				0);

	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	/* A zero-length WRITE: no memory, no key. */
	KUNIT_ASSERT_EQ(test, ib_post_send(qp[0], &wr.wr, NULL), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&c->done, 5 * HZ), 0);
	KUNIT_EXPECT_EQ(test, c->err, 0);
	KUNIT_EXPECT_EQ(test, c->destroy_err, 0);
	/* Well within the command timeout: nothing waited for it. */
	KUNIT_EXPECT_LT_MSG(test, c->ms, 1000U, "the handler took %u ms",
			    c->ms);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

struct cmd_events {
	atomic_t fatal;
};

static void cmd_qp_event(struct ib_event *ev, void *ctx)
{
	struct cmd_events *e = ctx;

	if (ev->event == IB_EVENT_QP_FATAL)
		atomic_inc(&e->fatal);
}

static struct ib_qp *cmd_event_qp(struct ib_pd *pd, struct ib_cq *cq,
				  struct cmd_events *e)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.event_handler = cmd_qp_event, .qp_context = e,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ib_create_qp(pd, &init);
}

/*
 * An event the HCA wrote for a QP that is then destroyed is dropped, and
 * never reaches a new QP given the same number: destroy consumes what is
 * pending, in its own thread. A completion event pending for the CQ is
 * delivered there, and its handler destroys another CQ (a nested destroy
 * in the consuming thread). The event interrupt is masked so that nothing
 * else consumes the queue first.
 */
static void vroce_cmd_stale_event(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct cmd_events *ev = kunit_kcalloc(test, 3, sizeof(*ev), GFP_KERNEL);
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 1, .opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.rkey = 0x12345678,
	};
	struct ib_sge sge = { .length = 8, .lkey = pd->local_dma_lkey };
	struct vroce_test_kbuf *b = vroce_test_kbuf(test, vdev, SZ_4K);
	struct cmd_handler_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct ib_qp *a, *victim, *next;
	struct ib_cq *cq;
	struct ib_wc wc;
	u32 qpn;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_NOT_NULL(test, c);
	cq = cmd_handler_cq(test, vdev, pd, c);
	a = cmd_event_qp(pd, cq, &ev[0]);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmd_destroy_qp,
							a), 0);
	victim = cmd_event_qp(pd, cq, &ev[1]);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, victim);
	qpn = victim->qp_num;
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(a, qpn, 0, vdev->netdev->dev_addr,
					       7, IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(victim, a->qp_num, 0,
					       vdev->netdev->dev_addr, 7,
					       IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE), 0);

	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_EQ, true);
	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	/* A WRITE with a bad rkey: the responder's QP goes fatal. */
	sge.addr = b->dma;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(a, &wr.wr, NULL), 0);
	for (i = 0; i < 300 && ib_poll_cq(cq, 1, &wc) < 1; i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_LT(test, i, 300);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&ev[1].fatal), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->calls), 0);

	KUNIT_EXPECT_EQ(test, ib_destroy_qp(victim), 0);
	/* Dropped for the destroyed QP; delivered to the CQ, in this thread. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ev[1].fatal), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->calls), 1);
	KUNIT_EXPECT_EQ(test, c->err, 0);
	KUNIT_EXPECT_EQ(test, c->destroy_err, 0);
	/* The driver gives numbers in turn: have it give this one now. */
	vdev->qpn_next = qpn;
	next = cmd_event_qp(pd, cq, &ev[2]);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, next);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmd_destroy_qp,
							next), 0);
	KUNIT_EXPECT_EQ(test, next->qp_num, qpn);

	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_EQ, false);
	vroce_eq_irq(vdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&ev[2].fatal), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(next, &attr, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RESET);
}

/*
 * The HCA's handles: an unknown one is -ENOENT, told apart from a bad
 * parameter; a PD with an MR or a QP in it cannot be destroyed.
 */
static void vroce_cmd_handles(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	u32 pdn = to_vroce_pd(pd)->pdn;
	struct cmd_events ev = {};
	struct vroce_mr_info info;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	u32 handle;

	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, 0xffffff), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, U32_MAX), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, 999), -ENOENT);

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	vroce_test_mr_info(mr, &info);
	handle = info.handle;
	/* The PD's own DMA MR and this one live in it. */
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, pdn), -EBUSY);
	/* The handle is not the key, and another generation is refused. */
	KUNIT_EXPECT_NE(test, handle, mr->lkey);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, handle ^
						   FIELD_PREP(VROCE_MR_HANDLE_GEN, 1)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_mr(vdev, handle), -ENOENT);

	vroce_test_expect_no_memory_held(test, vdev);

	/*
	 * A QP alone keeps its PD too. The PD's own DMA MR goes first, the
	 * way ib_dealloc_pd() drops it (it was counted before the test).
	 */
	KUNIT_EXPECT_EQ(test, pd->device->ops.dereg_mr(pd->__internal_mr, NULL),
			0);
	pd->__internal_mr = NULL;
	vroce_test_rebase(test, vdev);
	cq = ib_alloc_cq(&vdev->ibdev, NULL, 4, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	qp = cmd_event_qp(pd, cq, &ev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, pdn), -EBUSY);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ib_free_cq(cq);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* One QUERY_DEVICE from a thread of its own. */
struct cmd_query {
	struct vroce_dev *vdev;
	int err;
	struct completion done;
};

static int cmd_query_fn(void *data)
{
	struct cmd_query *q = data;
	struct vroce_dev_attr attr;

	q->err = vroce_cmd_query_device(q->vdev, &attr);
	complete(&q->done);
	return 0;
}

#define CMD_BATCH	8	/* fewer than the ring's slots */

/*
 * The doorbell record: a command that finds the HCA idle rings the
 * doorbell, or it would never run; commands posted while the HCA is busy
 * ring none, and still run.
 */
static void vroce_cmd_doorbell_record(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct cmdq_counts { u32 pi; u64 rung; } before;
	struct vroce_dev_attr attr;
	struct cmd_query *q;
	struct task_struct *task;
	u64 rung;
	int i;

	vroce_test_faults_off(test, hca);
	/*
	 * One at a time: each finds the HCA idle or about to be, and each
	 * completes; a driver that skipped the doorbell the HCA waits for
	 * would time out here.
	 */
	before = (struct cmdq_counts){ vdev->cmdq.pi, vdev->cmdq.doorbells };
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, vroce_cmd_query_device(vdev, &attr), 0);
	KUNIT_EXPECT_EQ(test, vdev->cmdq.pi - before.pi, 16);
	rung = vdev->cmdq.doorbells - before.rung;
	KUNIT_EXPECT_GE(test, rung, 1);
	KUNIT_EXPECT_LE(test, rung, 16);

	/*
	 * A slow HCA: while it takes 20 ms over the first command, the
	 * others are posted and need no doorbell.
	 */
	q = kunit_kcalloc(test, CMD_BATCH, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	vroce_hca_set_faults(hca, 0, 0, 0, 20);
	before = (struct cmdq_counts){ vdev->cmdq.pi, vdev->cmdq.doorbells };
	for (i = 0; i < CMD_BATCH; i++) {
		q[i].vdev = vdev;
		init_completion(&q[i].done);
		task = kthread_run(cmd_query_fn, &q[i], "vroce_cmd_db%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i < CMD_BATCH; i++) {
		wait_for_completion(&q[i].done);
		KUNIT_EXPECT_EQ(test, q[i].err, 0);
	}
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, vdev->cmdq.pi - before.pi, CMD_BATCH);
	rung = vdev->cmdq.doorbells - before.rung;
	KUNIT_EXPECT_GE(test, rung, 1);
	KUNIT_EXPECT_LT_MSG(test, rung, CMD_BATCH / 2,
			    "%llu doorbells for %d commands", rung, CMD_BATCH);
}

/*
 * A command processor stuck behind a live heartbeat: every slot taken, the
 * first command taking 2 s, the timeout 100 ms. A destroy that waits for
 * a slot does not wait for the whole ring (16 x 2 s): after four
 * deadlines in which the HCA consumed nothing the device is dead, and the
 * destroy is done in software once the reset (which lets the command in
 * flight finish) is over. The ring's submitters, posted, were only late
 * (-ETIMEDOUT: the heartbeat moves) or answered.
 */
static void vroce_cmd_stuck_destroy(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	unsigned long start;
	struct vroce_test_busy *b;
	u32 i;

	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 100);
	vroce_hca_set_faults(hca, 0, 0, 0, 2000);
	b = vroce_test_fill_ring(test, vdev);
	start = jiffies;
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_pd(vdev, VROCE_TEST_NO_PD), 0);
	KUNIT_EXPECT_LE(test, jiffies_to_msecs(jiffies - start), 4000);
	KUNIT_EXPECT_TRUE(test, vroce_dev_dead(vdev));
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_test_ring_wait(vdev, b);
	for (i = 0; i < vdev->cmdq.depth; i++)
		KUNIT_EXPECT_TRUE_MSG(test, !b[i].err || b[i].err == -ETIMEDOUT ||
				      b[i].err == -EIO, "slot %u: %d", i,
				      b[i].err);
}

static void cmd_lend_restore(void *data)
{
	struct vroce_dev *vdev = data;

	WRITE_ONCE(vroce_cmd_lend, true);
	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_CMD, false);
	set_user_nice(current, 0);
}

/* A QUERY_DEVICE on @vdev: its errno, and in @ms how long it took. */
static int cmd_timed_query(struct vroce_dev *vdev, unsigned int *ms)
{
	struct vroce_dev_attr attr;
	unsigned long start = jiffies;
	int err = vroce_cmd_query_device(vdev, &attr);

	*ms = jiffies_to_msecs(jiffies - start);
	return err;
}

/*
 * Issue 33: a lent command doorbell (VROCE_CAP_CMD_LEND) carries the
 * command out in the submitter's context, which hands out the response
 * itself: with the command interrupt masked, commands still complete at
 * once. Without the lend (cmd_lend=0), or with a fault knob armed, which
 * leaves the command to the HCA's own work, the response waits in the
 * ring for an interrupt that does not come: the submitter finds it there
 * when its wait ends, and does not call a command that was carried out
 * timed out (review of issue 33: it did). A submitter the scheduler
 * serves less than the HCA's work (nice 5) does not lend either (review
 * of issue 33: preempted, it held up every HCA).
 */
static void vroce_cmd_lend_inline(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_dev_attr attr;
	unsigned int ms;
	u64 doorbells;
	u32 n;

	KUNIT_ASSERT_TRUE(test, vdev->attr.caps & VROCE_CAP_CMD_LEND);
	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 100);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmd_lend_restore,
							vdev), 0);
	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_CMD, true);

	/* Lent: no interrupt needed, each command one doorbell. */
	doorbells = vdev->cmdq.doorbells;
	for (n = 0; n < 2 * vdev->cmdq.depth; n++)
		KUNIT_ASSERT_EQ_MSG(test, vroce_cmd_query_device(vdev, &attr), 0,
				    "command %u", n);
	KUNIT_EXPECT_EQ(test, vdev->cmdq.doorbells - doorbells,
			2 * vdev->cmdq.depth);
	KUNIT_EXPECT_EQ(test, attr.max_mr, vdev->attr.max_mr);

	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_LT_MSG(test, ms, 50, "lent, took %u ms", ms);

	/* Not lent: found in the ring when the 100 ms wait ends. */
	WRITE_ONCE(vroce_cmd_lend, false);
	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_GE_MSG(test, ms, 100 - 20, "not lent, took %u ms", ms);
	WRITE_ONCE(vroce_cmd_lend, true);

	/* A low-priority submitter: not lent. */
	set_user_nice(current, 5);
	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_GE_MSG(test, ms, 100 - 20, "nice 5, took %u ms", ms);
	set_user_nice(current, 0);
	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_LT_MSG(test, ms, 50, "nice 0, took %u ms", ms);

	/* A knob armed: the HCA's work carries it out, raising it in vain. */
	vroce_hca_set_faults(hca, 0, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_GE_MSG(test, ms, 100 - 20, "knob armed, took %u ms", ms);
	vroce_hca_set_faults(hca, 0, 0, 0, 0);

	/* Unmasked, the interrupt hands out responses again. */
	vroce_hw_irq_mask(&vdev->hw, VROCE_IRQ_CMD, false);
	WRITE_ONCE(vroce_cmd_lend, false);
	KUNIT_EXPECT_EQ(test, cmd_timed_query(vdev, &ms), 0);
	KUNIT_EXPECT_LT_MSG(test, ms, 50, "interrupt, took %u ms", ms);
}

static struct kunit_case vroce_cmd_cases[] = {
	KUNIT_CASE(vroce_cmd_lend_inline),
	KUNIT_CASE_SLOW(vroce_cmd_many_submitters),
	KUNIT_CASE_SLOW(vroce_cmd_deadline),
	KUNIT_CASE(vroce_cmd_no_slot),
	KUNIT_CASE_SLOW(vroce_cmd_depth),
	KUNIT_CASE_SLOW(vroce_cmd_deep_ring_destroy),
	KUNIT_CASE(vroce_cmd_dropped_fill_ring),
	KUNIT_CASE(vroce_cmd_handler_issues_verb),
	KUNIT_CASE(vroce_cmd_stale_event),
	KUNIT_CASE(vroce_cmd_handles),
	KUNIT_CASE_SLOW(vroce_cmd_doorbell_record),
	KUNIT_CASE_SLOW(vroce_cmd_stuck_destroy),
	{}
};

static struct kunit_suite vroce_cmd_suite = {
	.name = "vroce_cmd",
	.test_cases = vroce_cmd_cases,
};

kunit_test_suite(vroce_cmd_suite);
