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

#define VROCE_EMU_QP_BUDGET		16	/* send WQEs per QP visit */

/*
 * How the engine runs (Documentation/datapath.rst has the model): a
 * doorbell only records a producer index, a CQ consumer index or an arm
 * request under reg_lock and queues the QP's work item (a receive doorbell
 * only when there is something for it to do: vroce_emu_db_qp()); it never
 * sleeps or allocates. Each QP's work item, on the HCA's unbound qp_wq,
 * holds the wire's lock for reading: QPs run side by side, never beside a
 * command, each QP's WQEs in order. A visit executes at most
 * VROCE_EMU_QP_BUDGET send WQEs (c/hca/vroce_hca_req.c), each through one
 * of VROCE_EMU_BOUNCES bounce buffers, then queues the QP again behind the
 * others, and raises the event interrupt once if it wrote events. The
 * timer work ends RNR and ack timeout waits and writes delayed events.
 */

/* ---- the engine's work items ---- */

/* RNR retries and delayed events whose time has come. */
static void vroce_emu_timers_expire(struct vroce_emu *emu)
{
	unsigned long now = jiffies;
	struct vroce_emu_qp *qp;
	struct vroce_emu_cq *cq;
	u32 i;

	spin_lock(&emu->timer_lock);
	for (i = 0; i < VROCE_MAX_QP; i++) {
		qp = &emu->qps[i];
		if (qp->valid && qp->rnr_wait &&
		    time_after_eq(now, qp->rnr_deadline)) {
			WRITE_ONCE(qp->rnr_wait, false);
			vroce_emu_qp_kick(emu, qp);
		}
	}
	for (i = 0; i < VROCE_MAX_CQ; i++) {
		cq = &emu->cqs[i];
		if (cq->valid && cq->event_pending &&
		    time_after_eq(now, cq->event_due)) {
			WRITE_ONCE(cq->event_pending, false);
			vroce_emu_eq_post(emu, VROCE_EQE_COMP, i);
		}
	}
	spin_unlock(&emu->timer_lock);
}

/*
 * One visit of a QP, by its own work item on the unbound qp_wq: QPs run
 * side by side, each in order. Commands hold the wire's lock for writing,
 * so no command runs beside a visit.
 */
static void vroce_emu_qp_work(struct work_struct *work)
{
	struct vroce_emu_qp_exec *x = container_of(work, struct vroce_emu_qp_exec,
						   work);
	struct vroce_emu *emu = x->emu;
	u32 slot = x - emu->qpx;
	struct vroce_emu_qp *qp = &emu->qps[slot];

	/*
	 * The hold knob: this QP's engine stops here, without the lock, and
	 * looks again under it (vroce_emu_hold_qp() waits for visits that
	 * took the lock before the hold).
	 */
	for (;;) {
		wait_event(emu->hold_wq,
			   READ_ONCE(emu->hold_qpn) != VROCE_QPN_BASE + slot);
		down_read(emu->lock);
		if (READ_ONCE(emu->hold_qpn) != VROCE_QPN_BASE + slot)
			break;
		up_read(emu->lock);
	}
	if (vroce_emu_enabled(emu) && qp->valid)
		vroce_emu_qp_run(emu, qp, VROCE_EMU_QP_BUDGET);
	vroce_emu_timer_arm(emu);
	vroce_emu_engine_raise(emu);
	up_read(emu->lock);
}

static void vroce_emu_timer_work(struct work_struct *work)
{
	struct vroce_emu *emu = container_of(to_delayed_work(work),
					     struct vroce_emu, timer_work);

	down_read(emu->lock);
	if (vroce_emu_enabled(emu)) {
		vroce_emu_timers_expire(emu);
		vroce_emu_timer_arm(emu);	/* what is left */
		vroce_emu_engine_raise(emu);
	}
	up_read(emu->lock);
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
 * vroce_emu_qp_error(), smp_mb() in MODIFY_QP) or a wait (vroce_emu_rnr()),
 * then the index. One of the two sees the other.
 */
static void vroce_emu_db_qp(struct vroce_emu *emu, int q, u32 val)
{
	u32 slot = vroce_emu_qpn_slot(FIELD_GET(VROCE_DB_QPN, val));

	if (slot == VROCE_MAX_QP)
		return;
	emu->qp_db[slot].pi[q] = FIELD_GET(VROCE_DB_PI, val);
	if (q == VROCE_EMU_RQ) {
		smp_mb();	/* the index before the state and waits */
		if (!READ_ONCE(emu->timed) &&
		    READ_ONCE(emu->qps[slot].state) != VROCE_QPS_ERR)
			return;
	}
	queue_work(emu->qp_wq, &emu->qpx[slot].work);
}

/* DB_CQ: the consumer index, and an arm request; NEXT covers SOL. */
static void vroce_emu_db_cq(struct vroce_emu *emu, u32 val)
{
	u32 cqn = FIELD_GET(VROCE_DB_CQ_CQN, val);
	u32 cmd = FIELD_GET(VROCE_DB_CQ_CMD, val);
	struct vroce_emu_cq_db *db;

	if (cqn >= VROCE_MAX_CQ)
		return;
	db = &emu->cq_db[cqn];
	db->ci = FIELD_GET(VROCE_DB_CQ_CI, val);
	if (cmd == VROCE_DB_CQ_CMD_ARM_NEXT)
		db->arm = VROCE_DB_CQ_CMD_ARM_NEXT;
	else if (cmd == VROCE_DB_CQ_CMD_ARM_SOL && !db->arm)
		db->arm = VROCE_DB_CQ_CMD_ARM_SOL;
}

/**
 * vroce_emu_doorbell() - decode a write to a data path doorbell
 * @emu: the HCA
 * @off: the register written
 * @val: the value
 *
 * DB_SQ and DB_RQ record the QP's producer index and queue the engine;
 * DB_CQ records the CQ's consumer index and arm request. A disabled HCA
 * ignores doorbells, and so does it those naming no possible QP or CQ.
 *
 * Context: any context; takes @emu->reg_lock, never sleeps or allocates.
 * Return: true when @off is a doorbell (the write is handled).
 */
bool vroce_emu_doorbell(struct vroce_emu *emu, u32 off, u32 val)
{
	unsigned long flags;
	bool on;

	if (off != VROCE_REG_DB_SQ && off != VROCE_REG_DB_RQ &&
	    off != VROCE_REG_DB_CQ)
		return false;

	spin_lock_irqsave(&emu->reg_lock, flags);
	on = vroce_emu_reg(emu, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE;
	if (on && off == VROCE_REG_DB_CQ)
		vroce_emu_db_cq(emu, val);
	else if (on)
		vroce_emu_db_qp(emu, off == VROCE_REG_DB_SQ ?
				VROCE_EMU_SQ : VROCE_EMU_RQ, val);
	spin_unlock_irqrestore(&emu->reg_lock, flags);
	return true;
}

/* ---- knobs: event faults, holding a QP ---- */

/**
 * vroce_emu_set_event_faults() - set the completion event knobs (what
 *	debugfs sets)
 * @emu: the HCA
 * @drop_events: lose this many next completion events: the armed CQ is
 *	disarmed, no EQE is written, no interrupt raised
 * @event_delay_ms: write each completion event this long after the CQE
 *	that caused it (0: at once)
 *
 * Context: process context.
 */
void vroce_emu_set_event_faults(struct vroce_emu *emu, u32 drop_events,
				u32 event_delay_ms)
{
	unsigned long flags;

	down_write(emu->lock);
	spin_lock_irqsave(&emu->reg_lock, flags);
	emu->drop_events = drop_events;
	spin_unlock_irqrestore(&emu->reg_lock, flags);
	WRITE_ONCE(emu->event_delay_ms, event_delay_ms);
	up_write(emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_event_faults);

/**
 * vroce_emu_hold_qp() - hold one QP's engine (a test knob)
 * @emu: the HCA
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
void vroce_emu_hold_qp(struct vroce_emu *emu, u32 qpn)
{
	WRITE_ONCE(emu->hold_qpn, qpn);
	wake_up_all(&emu->hold_wq);
	if (qpn) {
		down_write(emu->lock);
		up_write(emu->lock);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_hold_qp);

/* ---- life cycle ---- */

/**
 * vroce_emu_engine_alloc() - set up the data path of a new HCA
 * @emu: the HCA
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int vroce_emu_engine_alloc(struct vroce_emu *emu)
{
	u32 i;

	INIT_DELAYED_WORK(&emu->timer_work, vroce_emu_timer_work);
	spin_lock_init(&emu->timer_lock);
	init_waitqueue_head(&emu->hold_wq);
	sema_init(&emu->bounce_sem, VROCE_EMU_BOUNCES);
	emu->qps = vroce_emu_inject() ? NULL :
		   kvcalloc(VROCE_MAX_QP, sizeof(*emu->qps), GFP_KERNEL);
	emu->cqs = vroce_emu_inject() ? NULL :
		   kvcalloc(VROCE_MAX_CQ, sizeof(*emu->cqs), GFP_KERNEL);
	emu->qpx = vroce_emu_inject() ? NULL :
		   kvcalloc(VROCE_MAX_QP, sizeof(*emu->qpx), GFP_KERNEL);
	emu->cq_lock = vroce_emu_inject() ? NULL :
		       kvcalloc(VROCE_MAX_CQ, sizeof(*emu->cq_lock),
				GFP_KERNEL);
	for (i = 0; i < VROCE_EMU_BOUNCES; i++)
		emu->bounce[i] = vroce_emu_inject() ? NULL :
				 kvmalloc(VROCE_MAX_MSG_SIZE, GFP_KERNEL);
	emu->qp_wq = vroce_emu_inject() ? NULL :
		     alloc_workqueue("vroce_emu_qp", WQ_UNBOUND, 0);
	if (!emu->qps || !emu->cqs || !emu->qpx || !emu->cq_lock ||
	    !emu->qp_wq)
		goto err;
	for (i = 0; i < VROCE_EMU_BOUNCES; i++)
		if (!emu->bounce[i])
			goto err;
	for (i = 0; i < VROCE_MAX_QP; i++) {
		emu->qpx[i].emu = emu;
		INIT_WORK(&emu->qpx[i].work, vroce_emu_qp_work);
		mutex_init(&emu->qpx[i].lock);
	}
	for (i = 0; i < VROCE_MAX_CQ; i++)
		spin_lock_init(&emu->cq_lock[i]);
	return 0;

err:
	vroce_emu_engine_free(emu);
	return -ENOMEM;
}

/**
 * vroce_emu_engine_free() - free what vroce_emu_engine_alloc() allocated
 * @emu: the HCA, its engine stopped
 */
void vroce_emu_engine_free(struct vroce_emu *emu)
{
	u32 i;

	if (emu->qp_wq)
		destroy_workqueue(emu->qp_wq);
	for (i = 0; i < VROCE_EMU_BOUNCES; i++) {
		kvfree(emu->bounce[i]);
		emu->bounce[i] = NULL;
	}
	kvfree(emu->cq_lock);
	kvfree(emu->qpx);	/* its mutexes were never taken, or are idle */
	kvfree(emu->cqs);
	kvfree(emu->qps);
	emu->qp_wq = NULL;
	emu->cq_lock = NULL;
	emu->qpx = NULL;
	emu->cqs = NULL;
	emu->qps = NULL;
}

/**
 * vroce_emu_engine_quiesce() - wait for the engine to go idle
 * @emu: the HCA, already disabled (doorbells no longer queue work)
 *
 * Finishes the QP visits in flight and cancels the RNR and event timer.
 * A visit queued meanwhile (a visit that used up its budget, another HCA's
 * engine failing a QP here) may still run, and arm the timer again: it
 * finds the HCA disabled, or, after the reset, a QP that is gone or in
 * RESET, and a timer that finds nothing to do.
 *
 * Context: process context, may sleep; not with @emu->lock held.
 */
void vroce_emu_engine_quiesce(struct vroce_emu *emu)
{
	flush_workqueue(emu->qp_wq);
	cancel_delayed_work_sync(&emu->timer_work);
}

/**
 * vroce_emu_engine_stop() - stop the engine for good
 * @emu: the HCA being deleted
 *
 * Context: process context, may sleep; not with @emu->lock held.
 */
void vroce_emu_engine_stop(struct vroce_emu *emu)
{
	u32 i;

	/* A visit may kick another QP or arm the timer: those go last. */
	for (i = 0; i < VROCE_MAX_QP; i++)
		disable_work_sync(&emu->qpx[i].work);
	disable_delayed_work_sync(&emu->timer_work);
	for (i = 0; i < VROCE_MAX_QP; i++)
		mutex_destroy(&emu->qpx[i].lock);
}

/**
 * vroce_emu_engine_reset() - forget every CQ, QP, doorbell and the EQ
 * @emu: the HCA, its engine quiesced
 *
 * Context: @emu->lock held.
 */
void vroce_emu_engine_reset(struct vroce_emu *emu)
{
	unsigned long flags;

	lockdep_assert_held(emu->lock);
	memset(emu->qps, 0, VROCE_MAX_QP * sizeof(*emu->qps));
	memset(emu->cqs, 0, VROCE_MAX_CQ * sizeof(*emu->cqs));
	atomic_set(&emu->eq_raise, 0);
	emu->timed = false;

	spin_lock_irqsave(&emu->reg_lock, flags);
	memset(emu->qp_db, 0, sizeof(emu->qp_db));
	memset(emu->cq_db, 0, sizeof(emu->cq_db));
	emu->eq_pi = 0;
	spin_unlock_irqrestore(&emu->reg_lock, flags);
}
