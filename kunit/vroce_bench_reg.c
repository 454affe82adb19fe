// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_bench_reg: registrations and commands per second for
 * 'make bench', vroce beside the kernel's soft-RoCE provider rxe in the
 * same kernel, with one registering thread and with sixteen at once:
 *
 *   reg_user_mr + dereg_mr of 4 KiB, 2 MiB and 1 GiB of user memory
 *   alloc_mr + map_mr_sg (32 pages) + a REG_MR work request + dereg_mr
 *   QUERY_DEVICE commands (vroce's command ring alone)
 *
 * Each thread is a kernel thread sharing the test's address space
 * (kthread_use_mm()); all are started and waiting before the clock starts.
 * The UML test kernel has 1 GiB of RAM, so the 1 GiB of user memory is a
 * 16 MiB tmpfs file mapped 64 times over one range: 262,144 pages to pin
 * and translate, each physical page 64 times (the umem, the MTT and rxe's
 * page list are full size).
 *
 * It asserts nothing about time; it prints lines starting with
 * "vroce-bench:" and is skipped unless vroce_kunit.bench=1.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define REG_ROUNDS	5
#define REG_THREADS	16
#define REG_FAST_PAGES	32

enum reg_op { REG_QUERY, REG_USER, REG_FAST };

/*
 * A QP connected to itself, its CQ's completions handed to work request
 * callbacks (IB_POLL_SOFTIRQ), as kernel ULPs post REG_MR: one per thread.
 */
struct reg_qp {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	struct ib_mr *stuck;	/* its REG_MR never completed */
};

/* What one thread repeats. */
struct reg_job {
	enum reg_op op;
	struct vroce_dev *vdev;		/* REG_QUERY */
	struct ib_pd *pd;		/* REG_USER */
	unsigned long uaddr;
	u64 len;
	int access;
	struct reg_qp *rq;		/* REG_FAST */
};

/*
 * Issue 33, item 5: where one registration's time goes, step by step
 * (reg_steps()): a clock read after each step of reg_once(), summed.
 */
enum reg_step {
	REG_STEP_REG,		/* reg_user_mr, or alloc_mr */
	REG_STEP_POST,		/* map_mr_sg and posting the REG_MR */
	REG_STEP_WAIT,		/* its completion, through the CQ's handler */
	REG_STEP_DEREG,		/* dereg_mr */
	REG_STEPS
};

struct reg_clock {
	u64 ns[REG_STEPS];
	u64 last;
};

/* The time since the last step's end, added to @step's; @c may be NULL. */
static void reg_clock_step(struct reg_clock *c, enum reg_step step)
{
	u64 now;

	if (!c)
		return;
	now = ktime_get_ns();
	c->ns[step] += now - c->last;
	c->last = now;
}

static void reg_fast_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct reg_qp *rq = container_of(wc->wr_cqe, struct reg_qp, cqe);

	rq->status = wc->status;
	complete(&rq->done);
}

/*
 * alloc_mr, map_mr_sg, a REG_MR work request waited for, dereg_mr; each
 * step clocked into @c, unless NULL.
 */
static int reg_fast(struct reg_qp *rq, struct reg_clock *c)
{
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_cqe = &rq->cqe,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ,
	};
	struct scatterlist sg;
	struct ib_mr *mr;
	int err;

	mr = ib_alloc_mr(rq->pd, IB_MR_TYPE_MEM_REG, REG_FAST_PAGES);
	reg_clock_step(c, REG_STEP_REG);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = rq->dma;
	sg_dma_len(&sg) = REG_FAST_PAGES * SZ_4K;
	err = ib_map_mr_sg(mr, &sg, 1, NULL, SZ_4K) == 1 ? 0 : -EINVAL;
	wr.mr = mr;
	wr.key = mr->rkey;
	reinit_completion(&rq->done);
	if (!err)
		err = ib_post_send(rq->qp, &wr.wr, NULL);
	reg_clock_step(c, REG_STEP_POST);
	if (!err && !wait_for_completion_timeout(&rq->done, 2 * HZ))
		err = -ETIMEDOUT;
	else if (!err && rq->status != IB_WC_SUCCESS)
		err = -EIO;
	reg_clock_step(c, REG_STEP_WAIT);
	/* The QP may still use it: deregistered after the QP is gone. */
	if (err == -ETIMEDOUT) {
		rq->stuck = mr;
		return err;
	}
	err = ib_dereg_mr(mr) ?: err;
	reg_clock_step(c, REG_STEP_DEREG);
	return err;
}

/* One operation of @j; each step clocked into @c, unless NULL. */
static int reg_once(const struct reg_job *j, struct reg_clock *c)
{
	struct vroce_dev_attr attr;
	struct ib_mr *mr;
	int err;

	switch (j->op) {
	case REG_QUERY:
		return vroce_cmd_query_device(j->vdev, &attr);
	case REG_USER:
		mr = ib_reg_user_mr(j->pd, j->uaddr, j->len, j->uaddr,
				    j->access);
		reg_clock_step(c, REG_STEP_REG);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = ib_dereg_mr(mr);
		reg_clock_step(c, REG_STEP_DEREG);
		return err;
	case REG_FAST:
		return reg_fast(j->rq, c);
	}
	return -EINVAL;
}

struct reg_thread {
	const struct reg_job *job;
	struct mm_struct *mm;
	atomic_t *waiting;
	struct completion *ready;
	struct completion *go;
	int iters;
	int err;
	struct completion done;
};

static int reg_thread_fn(void *data)
{
	struct reg_thread *t = data;
	int i;

	kthread_use_mm(t->mm);
	if (atomic_dec_and_test(t->waiting))
		complete(t->ready);
	wait_for_completion(t->go);
	for (i = 0; i < t->iters && !t->err; i++)
		t->err = reg_once(t->job, NULL);
	kthread_unuse_mm(t->mm);
	complete(&t->done);
	return 0;
}

/*
 * @threads kernel threads, thread i repeating @jobs[i] @per times, all
 * started together: operations per second of them all, best of the
 * rounds, in @rate. Every thread started has ended when it returns.
 */
static int reg_rate(struct kunit *test, const struct reg_job *jobs,
		    int threads, int per, u64 *rate)
{
	struct reg_thread *t = kunit_kcalloc(test, threads, sizeof(*t),
					     GFP_KERNEL);
	struct completion ready, go;
	struct task_struct *task;
	u64 best = U64_MAX, t0;
	int r, i, started, err = 0;
	atomic_t waiting;

	/* The test's address space holds the user memory. */
	if (!t || !current->mm)
		return -ENOMEM;
	for (r = 0; r < REG_ROUNDS && !err; r++) {
		init_completion(&ready);
		init_completion(&go);
		atomic_set(&waiting, threads);
		for (started = 0; started < threads; started++) {
			t[started] = (struct reg_thread){
				.job = &jobs[started], .mm = current->mm,
				.waiting = &waiting, .ready = &ready,
				.go = &go, .iters = per };
			init_completion(&t[started].done);
			task = kthread_run(reg_thread_fn, &t[started],
					   "vroce-reg/%d", started);
			if (IS_ERR(task)) {
				err = PTR_ERR(task);
				break;
			}
		}
		if (err) {
			/* Those started still wait at the gate: no work. */
			for (i = 0; i < started; i++)
				t[i].iters = 0;
			complete_all(&go);
		} else {
			wait_for_completion(&ready);
			t0 = ktime_get_ns();
			complete_all(&go);
		}
		for (i = 0; i < started; i++)
			wait_for_completion(&t[i].done);
		if (err)
			break;
		best = min(best, ktime_get_ns() - t0);
		for (i = 0; i < threads && !err; i++) {
			err = t[i].err;
			if (err)
				kunit_info(test, "thread %d, op %d: %d", i,
					   jobs[i].op, err);
		}
	}
	*rate = err ? 0 : div64_u64((u64)threads * per * NSEC_PER_SEC, best);
	return err;
}

/* Per second with 1 and with REG_THREADS threads, thread i doing @jobs[i]. */
static void reg_pair(struct kunit *test, const struct reg_job *jobs, int per,
		     u64 rate[2])
{
	KUNIT_EXPECT_EQ(test, reg_rate(test, jobs, 1, per, &rate[0]), 0);
	KUNIT_EXPECT_EQ(test, reg_rate(test, jobs, REG_THREADS,
				       max(1, per / REG_THREADS), &rate[1]), 0);
}

/* REG_THREADS copies of @job. */
static struct reg_job *reg_jobs(struct kunit *test, const struct reg_job *job)
{
	struct reg_job *jobs = kunit_kcalloc(test, REG_THREADS, sizeof(*jobs),
					     GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, jobs);
	for (i = 0; i < REG_THREADS; i++)
		jobs[i] = *job;
	return jobs;
}

/* Free what reg_qp_setup() made of @data, even in part. */
static void reg_qp_free(void *data)
{
	struct reg_qp *rq = data;

	/* The QP first: once it is gone the device uses no MR of it. */
	if (!IS_ERR_OR_NULL(rq->qp))
		ib_destroy_qp(rq->qp);
	if (rq->stuck)
		ib_dereg_mr(rq->stuck);
	if (!IS_ERR_OR_NULL(rq->cq))
		ib_free_cq(rq->cq);
	if (rq->dma)
		ib_dma_unmap_single(rq->pd->device, rq->dma,
				    REG_FAST_PAGES * SZ_4K, DMA_BIDIRECTIONAL);
	kfree(rq->buf);
	if (!IS_ERR_OR_NULL(rq->pd))
		ib_dealloc_pd(rq->pd);
}

/* @rq's PD, CQ, buffer and QP on @proto's device, the QP connected to itself. */
static int reg_qp_setup(struct reg_qp *rq, const struct vroce_lb *proto)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_device *ibdev = proto->ibdev;

	rq->cqe.done = reg_fast_done;
	init_completion(&rq->done);
	rq->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(rq->pd))
		return PTR_ERR(rq->pd);
	rq->cq = ib_alloc_cq(ibdev, NULL, 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(rq->cq))
		return PTR_ERR(rq->cq);
	rq->buf = kzalloc(REG_FAST_PAGES * SZ_4K, GFP_KERNEL);
	if (!rq->buf)
		return -ENOMEM;
	rq->dma = ib_dma_map_single(ibdev, rq->buf, REG_FAST_PAGES * SZ_4K,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, rq->dma)) {
		rq->dma = 0;
		return -ENOMEM;
	}
	init.send_cq = rq->cq;
	init.recv_cq = rq->cq;
	rq->qp = ib_create_qp(rq->pd, &init);
	if (IS_ERR(rq->qp))
		return PTR_ERR(rq->qp);
	return vroce_lb_connect(rq->qp, rq->qp->qp_num, proto->sgid_index,
				proto->dmac, 0, 0);
}

/* REG_FAST per second; every thread posts on a QP of its own. */
static void reg_fast_pair(struct kunit *test, const struct vroce_lb *proto,
			  int per, u64 rate[2])
{
	struct reg_job *jobs = kunit_kcalloc(test, REG_THREADS, sizeof(*jobs),
					     GFP_KERNEL);
	struct reg_qp *rq = kunit_kcalloc(test, REG_THREADS, sizeof(*rq),
					  GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, jobs);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	for (i = 0; i < REG_THREADS; i++) {
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								reg_qp_free,
								&rq[i]), 0);
		KUNIT_ASSERT_EQ(test, reg_qp_setup(&rq[i], proto), 0);
		jobs[i] = (struct reg_job){ .op = REG_FAST, .rq = &rq[i] };
	}
	reg_pair(test, jobs, per, rate);
	for (i = 0; i < REG_THREADS; i++)
		kunit_release_action(test, reg_qp_free, &rq[i]);
}

#define REG_STEP_ROUNDS	3

/*
 * @iters operations of @jobs[0] (vroce) and of @jobs[1] (rxe, if not NULL)
 * in this thread, each step clocked, REG_STEP_ROUNDS rounds of each taken
 * in turns (the machine's pace changes from second to second): the
 * round with the least total kept per device, ns per operation, in @best.
 */
static void reg_steps(struct kunit *test, const struct reg_job *jobs[2],
		      int iters, u64 best[2][REG_STEPS])
{
	u64 least[2] = { U64_MAX, U64_MAX }, total;
	struct reg_clock c;
	int r, d, i, k;

	for (r = 0; r < REG_STEP_ROUNDS; r++) {
		for (d = 0; d < 2 && jobs[d]; d++) {
			c = (struct reg_clock){ .last = ktime_get_ns() };
			for (i = 0; i < iters; i++)
				KUNIT_ASSERT_EQ(test, reg_once(jobs[d], &c), 0);
			for (total = 0, k = 0; k < REG_STEPS; k++)
				total += c.ns[k];
			if (total >= least[d])
				continue;
			least[d] = total;
			for (k = 0; k < REG_STEPS; k++)
				best[d][k] = div_u64(c.ns[k], iters);
		}
	}
}

/* One step's row: vroce's ns beside rxe's. */
static void reg_step_row(const char *what, u64 v, u64 r)
{
	char ratio[16];

	vroce_bench_ratio(ratio, sizeof(ratio), v, r);
	pr_info("vroce-bench: reg step %-36s %7llu %7llu %7s\n", what, v, r,
		r ? ratio : "-");
}

/* Sum of @ns over @steps (a mask of BIT(enum reg_step)). */
static u64 reg_steps_sum(const u64 ns[REG_STEPS], u32 steps)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < REG_STEPS; k++)
		if (steps & BIT(k))
			sum += ns[k];
	return sum;
}

/*
 * Issue 33, item 5: the 4 KiB user MR and the fast registration step by
 * step, vroce beside rxe, and what the goal (rxe's rate) leaves vroce:
 * rxe's whole operation, less vroce's two commands (CREATE_MR, DESTROY_MR)
 * at the cost of a command in a loop of QUERY_DEVICE (@cmd_ns), is the
 * time left for all the rest (pinning, tables, objects; for the fast
 * registration, the wait for the REG_MR's completion too, which comes
 * through the HCA's engine and its event interrupt).
 */
static void reg_step_rows(struct kunit *test, const struct reg_job *user[2],
			  const struct reg_job *fast[2], u64 cmd_ns)
{
	static const char * const names[2][REG_STEPS] = {
		{ "4 KiB: reg_user_mr", NULL, NULL, "4 KiB: dereg_mr" },
		{ "fast: alloc_mr", "fast: map_mr_sg and post REG_MR",
		  "fast: wait for its completion", "fast: dereg_mr" },
	};
	const u32 mine[2] = { BIT(REG_STEP_REG) | BIT(REG_STEP_DEREG),
			      GENMASK(REG_STEPS - 1, 0) };
	u64 ns[2][2][REG_STEPS] = {}, v, r;
	int o, k;

	reg_steps(test, user, 2000, ns[0]);
	reg_steps(test, fast, 2000, ns[1]);
	pr_info("vroce-bench: reg steps of one registration, ns, 1 thread, 2000 each, the best of %d rounds taken in turns with rxe's\n",
		REG_STEP_ROUNDS);
	pr_info("vroce-bench: reg step %-36s %7s %7s %7s\n", "step", "vroce",
		"rxe", "v/r");
	for (o = 0; o < 2; o++) {
		for (k = 0; k < REG_STEPS; k++)
			if (names[o][k])
				reg_step_row(names[o][k], ns[o][0][k],
					     ns[o][1][k]);
		v = reg_steps_sum(ns[o][0], mine[o]);
		r = reg_steps_sum(ns[o][1], mine[o]);
		reg_step_row(o ? "fast: total" : "4 KiB: total", v, r);
		if (!r)
			continue;
		pr_info("vroce-bench: reg goal %s: rxe's %llu ns leave %lld ns beside vroce's 2 commands at a loop's %llu ns each%s; vroce takes %llu ns (goal: rxe's rate or better)\n",
			o ? "fast" : "4 KiB", r, (s64)r - 2 * (s64)cmd_ns,
			cmd_ns, o ? ", its wait included" : "", v);
	}
}

#define REG_BIG_FILE	SZ_16M

static void reg_fput(void *file)
{
	fput(file);
}

/* 1 GiB of user memory over 16 MiB of RAM; see the top of the file. */
static unsigned long reg_big_mem(struct kunit *test)
{
	unsigned long base, addr;
	struct file *file;
	u64 off;

	file = shmem_file_setup("vroce-bench", REG_BIG_FILE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, reg_fput, file),
			0);
	base = kunit_vm_mmap(test, NULL, 0, SZ_1G, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(base));
	for (off = 0; off < SZ_1G; off += REG_BIG_FILE) {
		addr = kunit_vm_mmap(test, file, base + off, REG_BIG_FILE,
				     PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_FIXED, 0);
		KUNIT_ASSERT_EQ(test, addr, base + off);
	}
	return base;
}

static void reg_rxe_put(void *lb)
{
	vroce_bench_rxe_put(lb);
}

KUNIT_DEFINE_ACTION_WRAPPER(reg_dealloc_pd, ib_dealloc_pd, struct ib_pd *);

/* Submitters of the deep ring figure, and that ring's slots. */
#define REG_DEEP_THREADS	64
#define REG_DEEP_SLOTS		64

/*
 * QUERY_DEVICE from REG_DEEP_THREADS threads at once on @vdev: per second
 * in @rate, doorbells per 100 commands in @rung.
 */
static void reg_deep(struct kunit *test, struct vroce_dev *vdev, u64 *rate,
		     u64 *rung)
{
	struct reg_job *jobs = kunit_kcalloc(test, REG_DEEP_THREADS,
					     sizeof(*jobs), GFP_KERNEL);
	u64 pi = vdev->cmdq.pi, db = vdev->cmdq.doorbells;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, jobs);
	for (i = 0; i < REG_DEEP_THREADS; i++)
		jobs[i] = (struct reg_job){ .op = REG_QUERY, .vdev = vdev };
	KUNIT_EXPECT_EQ(test, reg_rate(test, jobs, REG_DEEP_THREADS,
				       16000 / REG_DEEP_THREADS, rate), 0);
	*rung = div64_u64((vdev->cmdq.doorbells - db) * 100,
			  (u32)(vdev->cmdq.pi - pi) ?: 1);
}

/*
 * More submitters than slots: the default ring against one of
 * REG_DEEP_SLOTS (module parameter cmdq_depth, on a second HCA).
 */
static void reg_deep_rows(struct kunit *test, struct vroce_dev *vdev)
{
	u64 rate[2], rung[2];
	struct vroce_dev *deep;
	char ratio[16];

	reg_deep(test, vdev, &rate[0], &rung[0]);
	vroce_test_cmdq_depth(test, REG_DEEP_SLOTS);
	deep = vroce_test_dev(test);
	KUNIT_ASSERT_EQ(test, deep->cmdq.depth, REG_DEEP_SLOTS);
	reg_deep(test, deep, &rate[1], &rung[1]);
	vroce_bench_ratio(ratio, sizeof(ratio), rate[1], rate[0]);
	pr_info("vroce-bench: ring QUERY_DEVICE from %d threads: %u slots %llu/s (%llu doorbells per 100), %d slots %llu/s (%llu per 100): %s\n",
		REG_DEEP_THREADS, vdev->cmdq.depth, rate[0], rung[0],
		REG_DEEP_SLOTS, rate[1], rung[1], ratio);
}

/* One row: per second on vroce and rxe, 1 and 16 threads, with ratios. */
static void reg_row(const char *what, const u64 v[2], const u64 r[2])
{
	char s[4][16];

	vroce_bench_ratio(s[0], sizeof(s[0]), v[1], v[0]);
	vroce_bench_ratio(s[1], sizeof(s[1]), r[1], r[0]);
	vroce_bench_ratio(s[2], sizeof(s[2]), v[0], r[0]);
	vroce_bench_ratio(s[3], sizeof(s[3]), v[1], r[1]);
	pr_info("vroce-bench: reg %-30s %9llu %9llu %7s | %9llu %9llu %7s | %7s %7s\n",
		what, v[0], v[1], s[0], r[0], r[1], s[1], s[2], s[3]);
}

/*
 * reg_step_rows() for a 4 KiB user MR at @uaddr with @access and for the
 * fast registration, on vroce (@vlb) and on rxe (@rlb, or NULL); @q, the
 * QUERY_DEVICE commands per second of one thread.
 */
static void reg_steps_measure(struct kunit *test, const struct vroce_lb *vlb,
			      const struct vroce_lb *rlb, unsigned long uaddr,
			      int access, u64 q)
{
	struct reg_job *u = kunit_kcalloc(test, 4, sizeof(*u), GFP_KERNEL);
	struct reg_qp *rq = kunit_kcalloc(test, 2, sizeof(*rq), GFP_KERNEL);
	const struct reg_job *user[2] = {}, *fast[2] = {};
	int d;

	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	for (d = 0; d < 2 && (!d || rlb); d++) {
		u[d] = (struct reg_job){ .op = REG_USER, .len = SZ_4K,
			.uaddr = uaddr, .access = access };
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								reg_qp_free,
								&rq[d]), 0);
		KUNIT_ASSERT_EQ(test, reg_qp_setup(&rq[d], d ? rlb : vlb), 0);
		/* The fast registration's PD serves the user MR too. */
		u[d].pd = rq[d].pd;
		u[2 + d] = (struct reg_job){ .op = REG_FAST, .rq = &rq[d] };
		user[d] = &u[d];
		fast[d] = &u[2 + d];
	}
	reg_step_rows(test, user, fast, q ? div64_u64(NSEC_PER_SEC, q) : 0);
	for (d = 0; d < 2 && (!d || rlb); d++)
		kunit_release_action(test, reg_qp_free, &rq[d]);
}

static void vroce_bench_reg_rates(struct kunit *test)
{
	static const struct {
		const char *what;
		u64 len;
		int per;
		int access;
	} user[] = {
		{ "reg_user_mr+dereg 4 KiB", SZ_4K, 4000,
		  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ },
		{ "reg_user_mr+dereg 2 MiB", SZ_2M, 800,
		  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ },
		{ "reg_user_mr+dereg 1 GiB", SZ_1G, 16,
		  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ },
	};
	/* Issue 33: the same on demand (vroce only: 6.12's rxe has no ODP). */
	u64 odp[ARRAY_SIZE(user)][2] = {};
	char ratio[16];
	u64 v[ARRAY_SIZE(user) + 1][2] = {}, r[ARRAY_SIZE(user) + 1][2] = {};
	u64 q[2] = {}, rung[2], none[2] = {};
	struct vroce_lb vlb = {}, *rlb;
	unsigned long small, big;
	struct vroce_dev *vdev;
	struct reg_job job;
	struct ib_pd *rpd;
	bool rxe;
	u32 pi[2];
	int i;

	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	vdev = vroce_test_dev(test);
	small = vroce_test_user_mem(test, SZ_2M, 1);
	big = reg_big_mem(test);
	vlb = (struct vroce_lb){ .ibdev = &vdev->ibdev,
		.dmac = vdev->netdev->dev_addr };
	/*
	 * Test-managed, not on this stack: reg_rxe_put() runs at the test's
	 * cleanup, after this function returned, and before it is freed.
	 */
	rlb = kunit_kzalloc(test, sizeof(*rlb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rlb);
	rxe = vroce_bench_rxe(test, rlb);
	if (rxe)
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								reg_rxe_put,
								rlb), 0);
	else
		kunit_info(test, "rxe not available: vroce figures only");

	for (i = 0; i < ARRAY_SIZE(user); i++) {
		job = (struct reg_job){ .op = REG_USER, .len = user[i].len,
			.uaddr = user[i].len == SZ_1G ? big : small,
			.access = user[i].access };
		job.pd = vroce_test_pd(test, vdev, 0);
		reg_pair(test, reg_jobs(test, &job), user[i].per, v[i]);
		if (!rxe)
			continue;
		rpd = ib_alloc_pd(rlb->ibdev, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rpd));
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								reg_dealloc_pd,
								rpd), 0);
		job.pd = rpd;
		reg_pair(test, reg_jobs(test, &job), user[i].per, r[i]);
		kunit_release_action(test, reg_dealloc_pd, rpd);
	}
	for (i = 0; i < ARRAY_SIZE(user); i++) {
		job = (struct reg_job){ .op = REG_USER, .len = user[i].len,
			.uaddr = user[i].len == SZ_1G ? big : small,
			.access = user[i].access | IB_ACCESS_ON_DEMAND };
		job.pd = vroce_test_pd(test, vdev, 0);
		/* No per-page work: the 1 GiB row repeats as often as 4 KiB. */
		reg_pair(test, reg_jobs(test, &job), min(user[i].per * 64, 4000),
			 odp[i]);
	}
	i = ARRAY_SIZE(user);
	reg_fast_pair(test, &vlb, 4000, v[i]);
	if (rxe)
		reg_fast_pair(test, rlb, 4000, r[i]);

	/* The command ring alone: rate, and doorbells rung per command. */
	job = (struct reg_job){ .op = REG_QUERY, .vdev = vdev };
	for (i = 0; i < 2; i++) {
		pi[i] = vdev->cmdq.pi;
		rung[i] = vdev->cmdq.doorbells;
		KUNIT_EXPECT_EQ(test, reg_rate(test, reg_jobs(test, &job),
					       i ? REG_THREADS : 1,
					       i ? 16000 / REG_THREADS : 16000,
					       &q[i]), 0);
		pi[i] = vdev->cmdq.pi - pi[i];
		rung[i] = vdev->cmdq.doorbells - rung[i];
	}
	/* Unmapped here, while the test's address space is its own. */
	vm_munmap(big, SZ_1G);

	pr_info("vroce-bench: registrations per second, best of %d rounds, 1 and %d threads; MR objects in %s; MR cache %s (1 GiB does not fit it)\n",
		REG_ROUNDS, REG_THREADS,
		IS_ENABLED(CONFIG_VROCE_ABI_RUST) ? "Rust" : "C",
		vdev->mr_cache.enabled ? "on" : "off");
	pr_info("vroce-bench: reg %-30s %9s %9s %7s | %9s %9s %7s | %7s %7s\n",
		"operation", "vroce 1", "vroce 16", "16/1", "rxe 1", "rxe 16",
		"16/1", "v/r 1", "v/r 16");
	for (i = 0; i < ARRAY_SIZE(user); i++)
		reg_row(user[i].what, v[i], r[i]);
	reg_row("alloc_mr+map_mr_sg+REG_MR 32p", v[i], r[i]);
	for (i = 0; i < ARRAY_SIZE(user); i++) {
		char what[40];

		snprintf(what, sizeof(what), "ODP %s", user[i].what + 18);
		reg_row(what, odp[i], none);
	}
	for (i = 0; i < ARRAY_SIZE(user); i++) {
		vroce_bench_ratio(ratio, sizeof(ratio), odp[i][0], v[i][0]);
		pr_info("vroce-bench: odp reg %s: %llu/s on demand, %llu/s pinned, 1 thread: %s%s\n",
			user[i].what + 18, odp[i][0], v[i][0], ratio,
			user[i].len == SZ_1G ? " (goal: at least 100x)" : "");
	}
	reg_row("QUERY_DEVICE commands", q, none);
	pr_info("vroce-bench: ring doorbells per 100 commands: %llu with 1 thread, %llu with %d\n",
		div64_u64(rung[0] * 100, pi[0] ?: 1),
		div64_u64(rung[1] * 100, pi[1] ?: 1), REG_THREADS);
	reg_deep_rows(test, vdev);
	reg_steps_measure(test, &vlb, rxe ? rlb : NULL, small, user[0].access,
			  q[0]);
}

static struct kunit_case vroce_bench_reg_cases[] = {
	KUNIT_CASE_SLOW(vroce_bench_reg_rates),
	{}
};

static struct kunit_suite vroce_bench_reg_suite = {
	.name = "vroce_bench_reg",
	.test_cases = vroce_bench_reg_cases,
};

kunit_test_suite(vroce_bench_reg_suite);
