// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, data path scheduling: doorbells, the QPs' and the
 * timer's work items, the event and hold knobs, the engine's life cycle.
 */

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

#define VROCE_HCA_QP_BUDGET		16	/* send WQEs per QP visit */
/*
 * issue 31, lend: send WQEs a context lent by DB_LEND executes at most: a
 * post list of perftest's default size (-l 32) runs whole in the poster's
 * system call, with no worker to wake (waking one per post for the rest
 * cost up to 8x the 64-byte message rate on two CPUs under QEMU). It is
 * the poster's own CPU time; other QPs run beside it in their work items.
 */
#define VROCE_HCA_LEND_BUDGET		32

/*
 * How the engine runs (Documentation/datapath.rst has the model): a
 * doorbell only records a producer index, a CQ consumer index or an arm
 * request under reg_lock and queues the QP's work item (a receive doorbell
 * only when there is something for it to do: vroce_hca_db_qp()); it never
 * sleeps or allocates. Each QP's work item, on the HCA's unbound qp_wq,
 * holds the wire's lock for reading: QPs run side by side, never beside a
 * command, each QP's WQEs in order. A visit executes at most
 * VROCE_HCA_QP_BUDGET send WQEs (c/hca/vroce_hca_req.c) through one of
 * VROCE_HCA_BOUNCES bounce buffers (given back when the visit ends or would
 * yield the CPU), then queues the QP again behind the others, and raises
 * the event interrupt once if it wrote events. The timer work ends RNR and
 * ack timeout waits and writes delayed events.
 *
 * issue 31, lend: a DB_LEND write after a user QP's SQ doorbell lends the
 * writer's context (uverbs POST_SEND: process context) to the QP: the
 * visit the doorbell queued runs right there, VROCE_HCA_LEND_BUDGET send
 * WQEs at most, and the work item does the rest (vroce_hca_lend()).
 */

/* ---- the engine's work items ---- */

/*
 * RNR retries and delayed events whose time has come; and (review of
 * issue 31) receives a process posted by its record to a QP in ERR, which
 * rang no doorbell: the QP's work flushes them (vroce_hca_qp_err_scan()).
 */
static void vroce_hca_timers_expire(struct vroce_hca *hca)
{
	unsigned long now = jiffies;
	struct vroce_hca_qp *qp;
	struct vroce_hca_cq *cq;
	u32 i, pi;

	spin_lock(&hca->timer_lock);
	for (i = 0; i < VROCE_MAX_QP; i++) {
		qp = &hca->qps[i];
		if (qp->valid && qp->rnr_wait &&
		    time_after_eq(now, qp->rnr_deadline)) {
			WRITE_ONCE(qp->rnr_wait, false);
			vroce_hca_qp_kick(hca, qp);
		}
		/* The record read once; a change (or no record) kicks. */
		if (vroce_hca_qp_err_scan(qp) &&
		    (!vroce_hca_dbrec_read(hca, qp->dbrec, VROCE_HCA_RQ, &pi) ||
		     pi != READ_ONCE(qp->wq[VROCE_HCA_RQ].pi)))
			vroce_hca_qp_kick(hca, qp);
	}
	for (i = 0; i < VROCE_MAX_CQ; i++) {
		cq = &hca->cqs[i];
		if (cq->valid && cq->event_pending &&
		    time_after_eq(now, cq->event_due)) {
			WRITE_ONCE(cq->event_pending, false);
			vroce_hca_eq_post(hca, VROCE_EQE_COMP, i);
		}
	}
	spin_unlock(&hca->timer_lock);
}

/*
 * One visit of a QP, by its own work item on the unbound qp_wq: QPs run
 * side by side, each in order. Commands hold the wire's lock for writing,
 * so no command runs beside a visit.
 */
static void vroce_hca_qp_work(struct work_struct *work)
{
	struct vroce_hca_qp_exec *x = container_of(work, struct vroce_hca_qp_exec,
						   work);
	struct vroce_hca *hca = x->hca;
	u32 slot = x - hca->qpx;
	struct vroce_hca_qp *qp = &hca->qps[slot];
	u64 t = vroce_hca_stage_now(hca), rung = xchg(&x->rung_ns, 0);

	if (t && rung && t > rung)
		atomic64_add(t - rung, &hca->stage_ns[VROCE_HCA_STAGE_WAKE]);
	/*
	 * The hold knob: this QP's engine stops here, without the lock, and
	 * looks again under it (vroce_hca_hold_qp() waits for visits that
	 * took the lock before the hold).
	 */
	for (;;) {
		wait_event(hca->hold_wq,
			   READ_ONCE(hca->hold_qpn) != VROCE_QPN_BASE + slot);
		/* A lent context in the QP's send queue: wait for it. */
		mutex_lock(&x->run);
		down_read(hca->wire_lock);
		if (READ_ONCE(hca->hold_qpn) != VROCE_QPN_BASE + slot)
			break;
		up_read(hca->wire_lock);
		mutex_unlock(&x->run);
	}
	vroce_hca_stage_add(hca, VROCE_HCA_STAGE_VISIT, &t);
	if (vroce_hca_enabled(hca) && qp->valid)
		vroce_hca_qp_run(hca, qp, VROCE_HCA_QP_BUDGET);
	if (t)
		t = ktime_get_ns();
	vroce_hca_timer_arm(hca);
	vroce_hca_engine_raise(hca);
	up_read(hca->wire_lock);
	mutex_unlock(&x->run);
	if (t) {
		vroce_hca_stage_add(hca, VROCE_HCA_STAGE_VISIT, &t);
		atomic64_inc(&hca->stage_visits);
	}
}

static void vroce_hca_timer_work(struct work_struct *work)
{
	struct vroce_hca *hca = container_of(to_delayed_work(work),
					     struct vroce_hca, timer_work);

	down_read(hca->wire_lock);
	if (vroce_hca_enabled(hca)) {
		vroce_hca_cq_arm_checks(hca);
		vroce_hca_timers_expire(hca);
		vroce_hca_timer_arm(hca);	/* what is left */
		vroce_hca_engine_raise(hca);
	}
	up_read(hca->wire_lock);
}

/* ---- doorbells ---- */

/*
 * DB_SQ or DB_RQ: note the producer index and queue the QP's work (under
 * reg_lock: a reset that disabled the HCA flushes what this queued).
 *
 * Receives wait for a message, whose engine takes them; the QP's own work
 * has nothing to do for them but flush them in ERR and wake requesters
 * waiting in RNR, so an RQ doorbell queues it only then. Each side writes,
 * then a full barrier, then reads the other's: the doorbell its index, then
 * the state and @timed; an engine the state (xchg() in
 * vroce_hca_qp_error(), smp_mb() in MODIFY_QP) or a wait (vroce_hca_rnr()),
 * then the index. One of the two sees the other.
 */
static void vroce_hca_db_qp(struct vroce_hca *hca, int q, u32 val)
{
	u32 slot = vroce_hca_qpn_slot(FIELD_GET(VROCE_DB_QPN, val));

	if (slot == VROCE_MAX_QP)
		return;
	hca->qp_db[slot].pi[q] = FIELD_GET(VROCE_DB_PI, val);
	if (q == VROCE_HCA_RQ) {
		smp_mb();	/* the index before the state and waits */
		if (!READ_ONCE(hca->timed) &&
		    READ_ONCE(hca->qps[slot].state) != VROCE_QPS_ERR)
			return;
	}
	/* The stage clock: the first doorbell the visit will answer. */
	if (unlikely(READ_ONCE(hca->stage_on)) &&
	    !READ_ONCE(hca->qpx[slot].rung_ns))
		WRITE_ONCE(hca->qpx[slot].rung_ns, ktime_get_ns());
	vroce_hca_queue(hca, &hca->qpx[slot].work);
}

/*
 * DB_SRQ: note the producer index. Like a receive doorbell it wakes
 * nobody: the message that needs a receive looks at the index under the
 * SRQ's lock (an RNR waiter retries at its timer).
 */
static void vroce_hca_db_srq(struct vroce_hca *hca, u32 val)
{
	u32 slot = FIELD_GET(VROCE_DB_SRQN, val) - VROCE_SRQN_BASE;

	if (slot < VROCE_MAX_SRQ)
		hca->srq_db[slot] = FIELD_GET(VROCE_DB_PI, val);
}

/* DB_CQ: the consumer index, and an arm request; NEXT covers SOL. */
static void vroce_hca_db_cq(struct vroce_hca *hca, u32 val)
{
	u32 cqn = FIELD_GET(VROCE_DB_CQ_CQN, val);
	u32 cmd = FIELD_GET(VROCE_DB_CQ_CMD, val);
	struct vroce_hca_cq_db *db;

	if (cqn >= VROCE_MAX_CQ)
		return;
	db = &hca->cq_db[cqn];
	db->ci = FIELD_GET(VROCE_DB_CQ_CI, val);
	if (cmd == VROCE_DB_CQ_CMD_ARM_NEXT)
		db->arm = VROCE_DB_CQ_CMD_ARM_NEXT;
	else if (cmd == VROCE_DB_CQ_CMD_ARM_SOL && !db->arm)
		db->arm = VROCE_DB_CQ_CMD_ARM_SOL;
	/*
	 * issue 31: a CQ whose consumer index is in a record: CQEs it has
	 * not read raise the event now (the timer work compares, under the
	 * CQ's lock; queued under reg_lock, so a reset flushes it).
	 */
	if (cmd != VROCE_DB_CQ_CMD_CI && READ_ONCE(hca->cqs[cqn].dbrec)) {
		set_bit(cqn, hca->cq_arm_check);
		vroce_hca_timer(hca, 0);
	}
}

/*
 * Leave a lent QP to its work item, as its SQ doorbell did: queued again
 * (a no-op while it is pending), so that nothing the doorbells told is
 * lost whatever the lent context could not do; under reg_lock, as a
 * doorbell queues it, so that a reset that disabled the HCA flushes it.
 */
static void vroce_hca_lend_defer(struct vroce_hca *hca, u32 slot)
{
	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	if (vroce_hca_reg(hca, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE)
		vroce_hca_queue(hca, &hca->qpx[slot].work);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	vroce_hca_count(hca, VROCE_CNT_LEND_DEFERRED, 1);
}

/*
 * DB_LEND (issue 31): the writer lends its context to QP @val; for a QP
 * with a doorbell record the write is its send doorbell too (nothing else
 * rang: everything below that does not run the QP queues it). When the
 * QP's send queue is free (no work item or other lent context in it), the
 * wire's lock free of commands, the QP not held and the HCA enabled, the
 * visit a doorbell queued runs here instead: a pending work item is
 * taken back (no kworker runs for nothing) and at most
 * VROCE_HCA_LEND_BUDGET send WQEs execute before the write returns; a QP
 * with more is queued again, behind the others (vroce_hca_qp_run()).
 * Messages to other QPs are delivered as the work item delivers them:
 * whatever they wake runs in its own work item, never here. Anything
 * else leaves the QP to its work item, which its doorbell queued; a lend
 * never waits for a command or another engine.
 *
 * The engine sleeps (mutexes, the bounce buffers' semaphore): the writer
 * must be in process context, holding no spinlock.
 */
static void vroce_hca_lend(struct vroce_hca *hca, u32 val)
{
	u32 slot = vroce_hca_qpn_slot(val);
	struct vroce_hca_qp_exec *x;
	struct vroce_hca_qp *qp;
	u32 ci;

	might_sleep();
	if (!(READ_ONCE(hca->caps) & VROCE_CAP_LEND) ||
	    (val & ~VROCE_DB_LEND_QPN) || slot == VROCE_MAX_QP)
		return;
	x = &hca->qpx[slot];
	qp = &hca->qps[slot];
	if (!mutex_trylock(&x->run))
		goto defer;
	if (!down_read_trylock(hca->wire_lock))
		goto defer_unlock;
	/* The hold knob stops a lent context as it stops the work item. */
	if (READ_ONCE(hca->hold_qpn) == val) {
		up_read(hca->wire_lock);
		goto defer_unlock;
	}
	/* Nothing to run: what the doorbell queued finds the same. */
	if (!vroce_hca_enabled(hca) || !qp->valid)
		goto out;
	/* The visit the doorbell queued is this one. */
	cancel_work(&x->work);
	ci = qp->wq[VROCE_HCA_SQ].ci;
	vroce_hca_qp_run(hca, qp, VROCE_HCA_LEND_BUDGET);
	vroce_hca_count(hca, VROCE_CNT_LENT_WQES,
			qp->wq[VROCE_HCA_SQ].ci - ci);
	vroce_hca_timer_arm(hca);
	vroce_hca_engine_raise(hca);
out:
	up_read(hca->wire_lock);
	mutex_unlock(&x->run);
	return;

defer_unlock:
	mutex_unlock(&x->run);
defer:
	vroce_hca_lend_defer(hca, slot);
}

/**
 * vroce_hca_doorbell() - decode a write to a data path doorbell
 * @hca: the HCA
 * @off: the register written
 * @val: the value
 *
 * DB_SQ and DB_RQ record the QP's producer index and queue the engine;
 * DB_CQ records the CQ's consumer index and arm request, DB_SRQ an SRQ's
 * producer index. A disabled HCA
 * ignores doorbells, and so does it those naming no possible QP or CQ.
 * DB_LEND (VROCE_CAP_LEND) runs the QP's send work in the writer's context
 * (vroce_hca_lend()).
 *
 * Context: any context; takes @hca->reg_lock, never sleeps or allocates;
 *	but DB_LEND: process context, no spinlock held, may sleep.
 * Return: true when @off is a doorbell (the write is handled).
 */
bool vroce_hca_doorbell(struct vroce_hca *hca, u32 off, u32 val)
{
	unsigned long flags;
	bool on;

	if (off == VROCE_REG_DB_LEND) {
		vroce_hca_lend(hca, val);
		return true;
	}
	if (off != VROCE_REG_DB_SQ && off != VROCE_REG_DB_RQ &&
	    off != VROCE_REG_DB_CQ && off != VROCE_REG_DB_SRQ)
		return false;

	spin_lock_irqsave(&hca->reg_lock, flags);
	on = vroce_hca_reg(hca, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE;
	if (on && off == VROCE_REG_DB_CQ)
		vroce_hca_db_cq(hca, val);
	else if (on && off == VROCE_REG_DB_SRQ)
		vroce_hca_db_srq(hca, val);
	else if (on)
		vroce_hca_db_qp(hca, off == VROCE_REG_DB_SQ ?
				VROCE_HCA_SQ : VROCE_HCA_RQ, val);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	return true;
}

/* ---- knobs: event faults, holding a QP, a busy QP ---- */

/**
 * vroce_hca_set_event_faults() - set the completion event knobs (what
 *	debugfs sets)
 * @hca: the HCA
 * @drop_events: lose this many next completion events: the armed CQ is
 *	disarmed, no EQE is written, no interrupt raised
 * @event_delay_ms: write each completion event this long after the CQE
 *	that caused it (0: at once)
 *
 * Context: process context.
 */
void vroce_hca_set_event_faults(struct vroce_hca *hca, u32 drop_events,
				u32 event_delay_ms)
{
	unsigned long flags;

	down_write(hca->wire_lock);
	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->drop_events = drop_events;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	WRITE_ONCE(hca->event_delay_ms, event_delay_ms);
	up_write(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_event_faults);

/**
 * vroce_hca_hold_qp() - hold one QP's engine (a test knob)
 * @hca: the HCA
 * @qpn: the QP whose next visit by its own work item waits, before it
 *	starts, until this is called again with another QPN (0 lets it go)
 *
 * Other QPs' engines run on, and still take the held QP's receives;
 * commands too (MODIFY_QP to ERR flushes without the QP's work). Once it
 * returns, no visit of @qpn is under way: one that had begun is waited
 * for (the wire's lock taken for writing, as a command does), and none
 * starts until the hold is let go.
 *
 * Context: process context.
 */
void vroce_hca_hold_qp(struct vroce_hca *hca, u32 qpn)
{
	WRITE_ONCE(hca->hold_qpn, qpn);
	wake_up_all(&hca->hold_wq);
	if (qpn) {
		down_write(hca->wire_lock);
		up_write(hca->wire_lock);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_hold_qp);

/**
 * vroce_hca_busy_qp() - make a QP's send queue look busy (a test knob,
 *	issue 31)
 * @hca: the HCA
 * @qpn: the QP
 * @busy: true: take the QP's run lock (qpx[].run) as an engine in its send
 *	queue holds it; false: let it go
 *
 * While it is taken, a DB_LEND of the QP leaves it to the QP's work item,
 * and the work item waits for it (vroce_lend.busy_qp).
 *
 * Context: process context; the same thread takes and lets go, before the
 *	HCA is deleted.
 */
void vroce_hca_busy_qp(struct vroce_hca *hca, u32 qpn, bool busy)
{
	u32 slot = vroce_hca_qpn_slot(qpn);

	if (slot == VROCE_MAX_QP)
		return;
	if (busy)
		mutex_lock(&hca->qpx[slot].run);
	else
		mutex_unlock(&hca->qpx[slot].run);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_busy_qp);

/* ---- issue 33: the stage clock ---- */

/**
 * vroce_hca_stage_clock() - start or stop the engine's stage clock
 * @hca: the HCA whose sums start afresh when the clock starts
 * @on: start it, or stop it
 *
 * While it stops the engine reads no clock. Stopping it waits for the
 * visits under way, whose time then counts whole. For 'make bench'.
 *
 * Context: process context, may sleep; no lock of the HCA held.
 */
void vroce_hca_stage_clock(struct vroce_hca *hca, bool on)
{
	int i;

	if (on) {
		for (i = 0; i < VROCE_HCA_STAGES; i++)
			atomic64_set(&hca->stage_ns[i], 0);
		atomic64_set(&hca->stage_visits, 0);
		atomic64_set(&hca->stage_wqes, 0);
		WRITE_ONCE(hca->stage_on, true);
	} else {
		flush_workqueue(hca->qp_wq);
		WRITE_ONCE(hca->stage_on, false);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_stage_clock);

/**
 * vroce_hca_stage_read() - what the stage clock measured
 * @hca: the HCA
 * @clock: where the sums go
 *
 * Context: any context.
 */
void vroce_hca_stage_read(struct vroce_hca *hca,
			  struct vroce_hca_stage_clock *clock)
{
	int i;

	for (i = 0; i < VROCE_HCA_STAGES; i++)
		clock->ns[i] = atomic64_read(&hca->stage_ns[i]);
	clock->visits = atomic64_read(&hca->stage_visits);
	clock->wqes = atomic64_read(&hca->stage_wqes);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_stage_read);

/* ---- life cycle ---- */

/**
 * vroce_hca_engine_alloc() - set up the data path of a new HCA
 * @hca: the HCA
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int vroce_hca_engine_alloc(struct vroce_hca *hca)
{
	u32 i;

	INIT_DELAYED_WORK(&hca->timer_work, vroce_hca_timer_work);
	spin_lock_init(&hca->timer_lock);
	spin_lock_init(&hca->pf_lock);
	init_waitqueue_head(&hca->hold_wq);
	sema_init(&hca->bounce_sem, VROCE_HCA_BOUNCES);
	hca->qps = vroce_hca_inject() ? NULL :
		   kvcalloc(VROCE_MAX_QP, sizeof(*hca->qps), GFP_KERNEL);
	hca->cqs = vroce_hca_inject() ? NULL :
		   kvcalloc(VROCE_MAX_CQ, sizeof(*hca->cqs), GFP_KERNEL);
	hca->qpx = vroce_hca_inject() ? NULL :
		   kvcalloc(VROCE_MAX_QP, sizeof(*hca->qpx), GFP_KERNEL);
	hca->cq_lock = vroce_hca_inject() ? NULL :
		       kvcalloc(VROCE_MAX_CQ, sizeof(*hca->cq_lock),
				GFP_KERNEL);
	hca->srqs = vroce_hca_inject() ? NULL :
		    kvcalloc(VROCE_MAX_SRQ, sizeof(*hca->srqs), GFP_KERNEL);
	hca->srq_lock = vroce_hca_inject() ? NULL :
			kvcalloc(VROCE_MAX_SRQ, sizeof(*hca->srq_lock),
				 GFP_KERNEL);
	for (i = 0; i < VROCE_HCA_BOUNCES; i++)
		hca->bounce[i] = vroce_hca_inject() ? NULL :
				 kvmalloc(VROCE_HCA_BOUNCE_SIZE, GFP_KERNEL);
	hca->qp_wq = vroce_hca_inject() ? NULL :
		     alloc_workqueue("vroce_hca_qp", WQ_UNBOUND, 0);
	if (!hca->qps || !hca->cqs || !hca->qpx || !hca->cq_lock ||
	    !hca->srqs || !hca->srq_lock || !hca->qp_wq)
		goto err;
	for (i = 0; i < VROCE_HCA_BOUNCES; i++)
		if (!hca->bounce[i])
			goto err;
	for (i = 0; i < VROCE_MAX_QP; i++) {
		hca->qpx[i].hca = hca;
		INIT_WORK(&hca->qpx[i].work, vroce_hca_qp_work);
		mutex_init(&hca->qpx[i].lock);
		mutex_init(&hca->qpx[i].run);
		spin_lock_init(&hca->qpx[i].ack_lock);
		skb_queue_head_init(&hca->qpx[i].resp_q);
	}
	for (i = 0; i < VROCE_MAX_CQ; i++)
		spin_lock_init(&hca->cq_lock[i]);
	for (i = 0; i < VROCE_MAX_SRQ; i++)
		mutex_init(&hca->srq_lock[i]);
	return 0;

err:
	vroce_hca_engine_free(hca);
	return -ENOMEM;
}

/**
 * vroce_hca_engine_free() - free what vroce_hca_engine_alloc() allocated
 * @hca: the HCA, its engine stopped
 */
void vroce_hca_engine_free(struct vroce_hca *hca)
{
	u32 i;

	if (hca->qp_wq)
		destroy_workqueue(hca->qp_wq);
	for (i = 0; i < VROCE_HCA_BOUNCES; i++) {
		kvfree(hca->bounce[i]);
		hca->bounce[i] = NULL;
	}
	kvfree(hca->srq_lock);	/* never taken, or idle */
	kvfree(hca->srqs);
	kvfree(hca->cq_lock);
	kvfree(hca->qpx);	/* its mutexes were never taken, or are idle */
	kvfree(hca->cqs);
	kvfree(hca->qps);
	hca->qp_wq = NULL;
	hca->srq_lock = NULL;
	hca->srqs = NULL;
	hca->cq_lock = NULL;
	hca->qpx = NULL;
	hca->cqs = NULL;
	hca->qps = NULL;
}

/**
 * vroce_hca_engine_quiesce() - wait for the engine to go idle
 * @hca: the HCA, already disabled (doorbells no longer queue work)
 *
 * Finishes the QP visits in flight and cancels the RNR and event timer.
 * A visit queued meanwhile (a visit that used up its budget, another HCA's
 * engine failing a QP here) may still run, and arm the timer again: it
 * finds the HCA disabled, or, after the reset, a QP that is gone or in
 * RESET, and a timer that finds nothing to do.
 *
 * Context: process context, may sleep; not with @hca->wire_lock held.
 */
void vroce_hca_engine_quiesce(struct vroce_hca *hca)
{
	flush_workqueue(hca->qp_wq);
	cancel_delayed_work_sync(&hca->timer_work);
}

/**
 * vroce_hca_engine_stop() - stop the engine for good
 * @hca: the HCA being deleted
 *
 * Context: process context, may sleep; not with @hca->wire_lock held.
 */
void vroce_hca_engine_stop(struct vroce_hca *hca)
{
	u32 i, pass;

	/*
	 * A visit may kick another QP or arm the timer, and the timer may
	 * kick QPs: nothing queues once @stopped is seen (vroce_hca_queue()).
	 * A work that read it clear has finished when the first pass is
	 * done (it waits for each work that runs); the second cancels what
	 * such works queued, and nothing queues after it. (disable_work_sync()
	 * would do the same, but only since v6.10: Documentation/compat.rst.)
	 */
	WRITE_ONCE(hca->stopped, true);
	smp_mb();	/* @stopped before the cancels */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < VROCE_MAX_QP; i++)
			cancel_work_sync(&hca->qpx[i].work);
		cancel_delayed_work_sync(&hca->timer_work);
	}
	/* READ responses no visit will take (issue 34). */
	for (i = 0; i < VROCE_MAX_QP; i++)
		skb_queue_purge(&hca->qpx[i].resp_q);
	for (i = 0; i < VROCE_MAX_QP; i++) {
		mutex_destroy(&hca->qpx[i].lock);
		mutex_destroy(&hca->qpx[i].run);
	}
	for (i = 0; i < VROCE_MAX_SRQ; i++)
		mutex_destroy(&hca->srq_lock[i]);
}

/**
 * vroce_hca_engine_reset() - forget every CQ, QP, multicast group, doorbell
 *	and the EQ
 * @hca: the HCA, its engine quiesced
 *
 * Context: @hca->wire_lock held.
 */
void vroce_hca_engine_reset(struct vroce_hca *hca)
{
	unsigned long flags;

	lockdep_assert_held(hca->wire_lock);
	memset(hca->qps, 0, VROCE_MAX_QP * sizeof(*hca->qps));
	memset(hca->cqs, 0, VROCE_MAX_CQ * sizeof(*hca->cqs));
	memset(hca->mcg, 0, sizeof(hca->mcg));
	memset(hca->srqs, 0, VROCE_MAX_SRQ * sizeof(*hca->srqs));
	atomic_set(&hca->eq_raise, 0);
	hca->timed = false;

	spin_lock_irqsave(&hca->reg_lock, flags);
	memset(hca->qp_db, 0, sizeof(hca->qp_db));
	memset(hca->cq_db, 0, sizeof(hca->cq_db));
	memset(hca->srq_db, 0, sizeof(hca->srq_db));
	hca->eq_pi = 0;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}
