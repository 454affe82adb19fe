// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, the data path's base: QP lookups and state, writing
 * CQEs and events (with their interrupt), RNR and retry waits, the timer.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>

#include "vroce_hca_priv.h"

#define VROCE_HCA_MAX_EQ_DEPTH_LOG2	15

static_assert(sizeof(struct vroce_send_wqe) == VROCE_SEND_WQE_SIZE);
static_assert(sizeof(struct vroce_recv_wqe) == VROCE_RECV_WQE_SIZE);
static_assert(sizeof(struct vroce_cqe) == VROCE_CQE_SIZE);
static_assert(sizeof(struct vroce_eqe) == VROCE_EQE_SIZE);

/* Microseconds of each IB_RNR_TIMER_* code. */
const u32 vroce_hca_rnr_usecs[] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* ---- lookups ---- */

bool vroce_hca_enabled(struct vroce_hca *hca)
{
	unsigned long flags;
	bool on;

	spin_lock_irqsave(&hca->reg_lock, flags);
	on = vroce_hca_reg(hca, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	/* A hung HCA's engine does nothing: its work waits for the reset. */
	return on && !vroce_hca_hung(hca);
}

/* The context slot of QP number @qpn, or VROCE_MAX_QP when it has none. */
u32 vroce_hca_qpn_slot(u32 qpn)
{
	u32 slot = qpn - VROCE_QPN_BASE;	/* wraps below the base */

	return slot < VROCE_MAX_QP ? slot : VROCE_MAX_QP;
}

struct vroce_hca_qp *vroce_hca_qp_of(struct vroce_hca *hca, u32 qpn)
{
	u32 slot = vroce_hca_qpn_slot(qpn);

	if (slot == VROCE_MAX_QP || !hca->qps[slot].valid)
		return NULL;
	return &hca->qps[slot];
}

u32 vroce_hca_qp_slot(struct vroce_hca *hca,
		      const struct vroce_hca_qp *qp)
{
	return qp - hca->qps;
}

/* ---- multicast groups ---- */

/* An IPv6 multicast GID (ff00::/8), or an IPv4-mapped one (224.0.0.0/4). */
bool vroce_hca_gid_mcast(const u8 *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

/*
 * The group of @gid on @hca, or NULL. Context: @hca->wire_lock held (the
 * commands change the groups with it held for writing).
 */
struct vroce_hca_mcg *vroce_hca_mcg_find(struct vroce_hca *hca, const u8 *gid)
{
	u32 i;

	for (i = 0; i < VROCE_MAX_MCG; i++)
		if (hca->mcg[i].nqp && !memcmp(hca->mcg[i].gid, gid, 16))
			return &hca->mcg[i];
	return NULL;
}

/* ---- rings ---- */

/* Copy WQE @count of @wq out of host memory. */
bool vroce_hca_wq_fetch(struct vroce_hca *hca,
			const struct vroce_hca_wq *wq, u32 count,
			void *wqe)
{
	void *p = vroce_hca_ring_entry(hca, &wq->ring, count);

	if (!p)
		return false;
	memcpy(wqe, p, wq->ring.entry_size);
	return true;
}

/* ---- event queue and interrupt ---- */

/* The event queue as programmed; false when it is off or malformed. */
static bool vroce_hca_eq_ring(struct vroce_hca *hca,
			      struct vroce_hca_ring *ring)
{
	u32 cfg = vroce_hca_reg(hca, VROCE_REG_EQ_CFG);

	return vroce_hca_ring_from_regs(hca, VROCE_REG_EQ_BA, cfg,
					VROCE_HCA_MAX_EQ_DEPTH_LOG2,
					VROCE_EQE_SIZE, ring) &&
	       (cfg & VROCE_EQ_CFG_ENABLE);
}

/*
 * Write an event: its body, then the owner byte. An EQ that is off, full
 * (against EQ_CI) or unreachable loses the event; eq_lost counts it.
 */
void vroce_hca_eq_post(struct vroce_hca *hca, u8 type, u32 num)
{
	struct vroce_hca_ring ring;
	struct vroce_eqe *e = NULL;
	unsigned long flags;
	u32 pi;

	/* Engines of several QPs post at once: one event at a time. */
	spin_lock_irqsave(&hca->reg_lock, flags);
	pi = hca->eq_pi;
	if (vroce_hca_eq_ring(hca, &ring) &&
	    pi - vroce_hca_reg(hca, VROCE_REG_EQ_CI) < BIT(ring.depth_log2))
		e = vroce_hca_ring_entry(hca, &ring, pi);
	if (e) {
		hca->eq_pi = pi + 1;
		e->num = cpu_to_le32(num);
		e->type = type;
		memset(e->rsvd, 0, sizeof(e->rsvd));
		dma_wmb();
		WRITE_ONCE(e->owner, ((pi >> ring.depth_log2) & 1) ^ 1);
	} else {
		hca->eq_lost++;
	}
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	if (e)
		atomic_set(&hca->eq_raise, 1);
}

/**
 * vroce_hca_engine_raise() - interrupt for the events written so far
 * @hca: the HCA
 *
 * Raises VROCE_INTR_EQ on the event vector, when events were written since
 * the last time. Once per QP visit or command batch.
 *
 * Context: process context, @hca->wire_lock held.
 */
void vroce_hca_engine_raise(struct vroce_hca *hca)
{
	lockdep_assert_held(hca->wire_lock);
	if (atomic_xchg(&hca->eq_raise, 0))
		vroce_hca_raise_irq(hca, VROCE_IRQ_EQ, VROCE_INTR_EQ);
}

/* ---- QP state ---- */

/* Have @qp's work visit it (again, if it runs now). */
void vroce_hca_qp_kick(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	vroce_hca_queue(hca, &hca->qpx[vroce_hca_qp_slot(hca, qp)].work);
}

/* The receive queue lock of @qp. */
static struct mutex *vroce_hca_rq_lock(struct vroce_hca *hca,
				       const struct vroce_hca_qp *qp)
{
	return &hca->qpx[vroce_hca_qp_slot(hca, qp)].lock;
}

/* The SRQ @srqn, or NULL when there is none under that number. */
struct vroce_hca_srq *vroce_hca_srq_of(struct vroce_hca *hca, u32 srqn)
{
	u32 slot = srqn - VROCE_SRQN_BASE;	/* wraps below the base */

	if (slot >= VROCE_MAX_SRQ || !hca->srqs[slot].valid)
		return NULL;
	return &hca->srqs[slot];
}

/* The queue lock of the SRQ @qp is attached to, or NULL. */
static struct mutex *vroce_hca_srq_lock(struct vroce_hca *hca,
					const struct vroce_hca_qp *qp)
{
	struct vroce_hca_srq *srq;

	if (!qp->srqn)
		return NULL;
	srq = vroce_hca_srq_of(hca, qp->srqn);
	return srq ? &hca->srq_lock[srq - hca->srqs] : NULL;
}

/*
 * Enter @qp's receive queue: its own, and the SRQ it takes receives from
 * (only commands attach or detach a QP, never beside an engine).
 */
void vroce_hca_rq_enter(struct vroce_hca *hca,
			const struct vroce_hca_qp *qp)
{
	struct mutex *srq_lock = vroce_hca_srq_lock(hca, qp);

	mutex_lock(vroce_hca_rq_lock(hca, qp));
	if (srq_lock)
		mutex_lock(srq_lock);
}

void vroce_hca_rq_leave(struct vroce_hca *hca,
			const struct vroce_hca_qp *qp)
{
	struct mutex *srq_lock = vroce_hca_srq_lock(hca, qp);

	if (srq_lock)
		mutex_unlock(srq_lock);
	mutex_unlock(vroce_hca_rq_lock(hca, qp));
}

/*
 * Where @qp's receives come from: its SRQ's queue, or its own. The caller
 * is in its receive queue (vroce_hca_rq_enter()).
 */
struct vroce_hca_wq *vroce_hca_recv_wq(struct vroce_hca *hca,
				       struct vroce_hca_qp *qp)
{
	struct vroce_hca_srq *srq;

	if (qp->srqn) {
		srq = vroce_hca_srq_of(hca, qp->srqn);
		/* Never without one: DESTROY_SRQ waits for its QPs. */
		if (srq)
			return &srq->wq;
	}
	return &qp->wq[VROCE_HCA_RQ];
}

/* The PD a receive WQE of @qp is checked against: its SRQ's, or its own. */
u32 vroce_hca_recv_pdn(struct vroce_hca *hca, const struct vroce_hca_qp *qp)
{
	struct vroce_hca_srq *srq;

	if (qp->srqn) {
		srq = vroce_hca_srq_of(hca, qp->srqn);
		if (srq)
			return srq->pdn;
	}
	return qp->pdn;
}

/**
 * vroce_hca_recv_taken() - the head receive WQE of @qp completes
 * @hca: the HCA
 * @qp: the QP, whose receive queue the caller entered
 *
 * The consumer count moves on. An SRQ's WQE is marked taken (the driver
 * may reuse its slot: the HCA copied it when it looked at it), and a take
 * that leaves fewer WQEs posted than the armed limit writes the limit
 * event, once: the limit is disarmed. The producer count was taken from
 * DB_SRQ or the SRQ's record as the receive was (vroce_hca_wq_sync()).
 */
void vroce_hca_recv_taken(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	struct vroce_hca_wq *wq = vroce_hca_recv_wq(hca, qp);
	struct vroce_recv_wqe *wqe;
	struct vroce_hca_srq *srq;

	if (wq == &qp->wq[VROCE_HCA_RQ]) {
		wq->ci++;
		return;
	}
	srq = container_of(wq, struct vroce_hca_srq, wq);
	wqe = vroce_hca_ring_entry(hca, &wq->ring, wq->ci);
	wq->ci++;
	if (wqe) {
		/* The copy was read before the slot is handed back. */
		smp_mb();
		WRITE_ONCE(wqe->srq_done, 1);
	}
	if (srq->limit && wq->pi - wq->ci < srq->limit) {
		srq->limit = 0;
		vroce_hca_eq_post(hca, VROCE_EQE_SRQ_LIMIT, srq->srqn);
	}
}

/**
 * vroce_hca_last_wqe() - an SRQ's QP in ERR takes nothing more from it
 * @hca: the HCA
 * @qp: the QP, in ERR, whose receive queue the caller entered: no
 *	message is being received there, and none will be
 *
 * Writes the LAST_WQE event of a QP attached to an SRQ, once per error.
 */
void vroce_hca_last_wqe(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	lockdep_assert_held(vroce_hca_rq_lock(hca, qp));
	if (!qp->srqn || qp->last_wqe)
		return;
	qp->last_wqe = true;
	vroce_hca_eq_post(hca, VROCE_EQE_QP_LAST_WQE, qp->qpn);
}

/*
 * Whether @qp takes messages (RTR or RTS), from one look at its state:
 * another engine may fail it at any time.
 */
bool vroce_hca_qp_receives(const struct vroce_hca_qp *qp)
{
	u32 state = READ_ONCE(qp->state);

	return state == VROCE_QPS_RTR || state == VROCE_QPS_RTS;
}

/*
 * Move @qp to the error state; its work flushes both its queues, and an
 * RNR or retry wait ends. Any engine may fail any QP (a responder error
 * fails the requester), so the state moves by exchange (a full barrier:
 * see vroce_hca_db_qp()); commands change it only with every engine out.
 * True when this call moved it.
 */
bool vroce_hca_qp_error(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	if (xchg(&qp->state, VROCE_QPS_ERR) == VROCE_QPS_ERR)
		return false;
	spin_lock(&hca->timer_lock);
	WRITE_ONCE(qp->rnr_wait, false);
	spin_unlock(&hca->timer_lock);
	vroce_hca_qp_kick(hca, qp);
	return true;
}

/*
 * An error not tied to a completion: the QP fails and an event says so,
 * once, and only when it did not fail before for another reason.
 */
void vroce_hca_qp_fatal(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	if (vroce_hca_qp_error(hca, qp))
		vroce_hca_eq_post(hca, VROCE_EQE_QP_FATAL, qp->qpn);
}

/* Issue 33: a QP waiting for a page fault's end; never a QP slot. */
#define VROCE_HCA_ODP_PEER	(U32_MAX - 1)

/*
 * Requesters waiting for a receive at QP slot @slot (or, @slot
 * VROCE_HCA_ODP_PEER, for a page fault) try again now.
 */
void vroce_hca_rnr_wake(struct vroce_hca *hca, u32 slot)
{
	struct vroce_hca_qp *qp;
	u32 i;

	if (!READ_ONCE(hca->timed))
		return;
	spin_lock(&hca->timer_lock);
	for (i = 0; i < VROCE_MAX_QP; i++) {
		qp = &hca->qps[i];
		if (qp->valid && qp->rnr_wait && qp->rnr_peer == slot) {
			WRITE_ONCE(qp->rnr_wait, false);
			vroce_hca_qp_kick(hca, qp);
		}
	}
	spin_unlock(&hca->timer_lock);
}

/*
 * The SRQ @qp takes receives from: its producer index last rung, as
 * vroce_hca_wq_sync() takes a queue's; a broken one fails the QP that
 * found it.
 */
static bool vroce_hca_srq_sync(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	struct vroce_hca_srq *srq = vroce_hca_srq_of(hca, qp->srqn);
	struct vroce_hca_wq *wq;
	unsigned long flags;
	u32 slot, pi;
	u16 rung;

	if (!srq)
		return false;
	slot = srq - hca->srqs;
	wq = &srq->wq;
	lockdep_assert_held(&hca->srq_lock[slot]);
	if (srq->dbrec) {
		/* issue 31: the process's record, read once, checked below. */
		if (!vroce_hca_dbrec_read(hca, srq->dbrec, 0, &pi))
			pi = wq->pi - 1;
	} else {
		spin_lock_irqsave(&hca->reg_lock, flags);
		rung = hca->srq_db[slot];
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		pi = wq->ci + (u16)(rung - (u16)wq->ci);
	}
	/* The WQEs were written before the index that announced them. */
	dma_rmb();

	if (pi == wq->pi)
		return false;
	if (pi - wq->ci > BIT(wq->ring.depth_log2) || (s32)(pi - wq->pi) < 0) {
		if (srq->dbrec && READ_ONCE(qp->state) != VROCE_QPS_ERR)
			vroce_hca_count(hca, VROCE_CNT_DBREC_ERR, 1);
		vroce_hca_qp_fatal(hca, qp);
		return false;
	}
	wq->pi = pi;
	/* A requester that met this QP's empty queue may find one now. */
	vroce_hca_rnr_wake(hca, vroce_hca_qp_slot(hca, qp));
	return true;
}

/**
 * vroce_hca_wq_rung() - the index a QP's send or receive queue was rung up to
 * @hca: the HCA
 * @qp: the QP
 * @q: VROCE_HCA_SQ or VROCE_HCA_RQ
 * @pi: where the index goes, unchecked
 *
 * A process's QP (issue 31) tells it in its doorbell record, read once
 * here; a kernel QP by DB_SQ and DB_RQ, whose 16 bits are made whole
 * against the consumer's index. An index more than the ring's depth
 * ahead of the consumer, or behind what the engine took, is a broken
 * doorbell, and so is a record that leads nowhere.
 *
 * Return: false for a broken doorbell (@pi then means nothing).
 */
bool vroce_hca_wq_rung(struct vroce_hca *hca, const struct vroce_hca_qp *qp,
		       int q, u32 *pi)
{
	const struct vroce_hca_wq *wq = &qp->wq[q];
	unsigned long flags;
	bool good = true;
	u16 rung;

	if (qp->dbrec) {
		good = vroce_hca_dbrec_read(hca, qp->dbrec, q, pi);
	} else {
		spin_lock_irqsave(&hca->reg_lock, flags);
		rung = hca->qp_db[vroce_hca_qp_slot(hca, qp)].pi[q];
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		*pi = wq->ci + (u16)(rung - (u16)wq->ci);
	}
	/* The WQEs were written before the index that announced them. */
	dma_rmb();
	return good && *pi - wq->ci <= BIT(wq->ring.depth_log2) &&
	       (s32)(*pi - wq->pi) >= 0;
}

/*
 * Take the producer index last rung for queue @q of @qp; true when it
 * moved. A broken doorbell (vroce_hca_wq_rung()) fails the QP. The
 * receive queue of a QP attached to an SRQ is the SRQ's.
 */
bool vroce_hca_wq_sync(struct vroce_hca *hca, struct vroce_hca_qp *qp,
		       int q)
{
	struct vroce_hca_wq *wq = &qp->wq[q];
	u32 slot = vroce_hca_qp_slot(hca, qp), pi;

	if (q == VROCE_HCA_RQ)
		lockdep_assert_held(vroce_hca_rq_lock(hca, qp));
	if (READ_ONCE(qp->state) == VROCE_QPS_RESET)
		return false;
	if (q == VROCE_HCA_RQ && qp->srqn)
		return vroce_hca_srq_sync(hca, qp);
	if (!vroce_hca_wq_rung(hca, qp, q, &pi)) {
		/* Counted once: a QP in ERR flushes what it took, no more. */
		if (qp->dbrec && READ_ONCE(qp->state) != VROCE_QPS_ERR)
			vroce_hca_count(hca, VROCE_CNT_DBREC_ERR, 1);
		vroce_hca_qp_fatal(hca, qp);
		return false;
	}
	if (pi == wq->pi)
		return false;
	wq->pi = pi;
	if (q == VROCE_HCA_RQ)
		vroce_hca_rnr_wake(hca, slot);
	return true;
}

/* ---- completion queues ---- */

/*
 * Whether @cqe fires the CQ's event: if so it is disarmed, and the event
 * is sent unless the knob loses it (false then too).
 * Context: the CQ's lock and @hca->reg_lock held.
 */
static bool vroce_hca_cq_fires(struct vroce_hca *hca, u32 cqn,
			       const struct vroce_cqe *cqe)
{
	u8 arm = hca->cq_db[cqn].arm;

	lockdep_assert_held(&hca->reg_lock);
	if (arm != VROCE_DB_CQ_CMD_ARM_NEXT &&
	    (arm != VROCE_DB_CQ_CMD_ARM_SOL ||
	     (!(cqe->flags & VROCE_CQE_F_SOLICITED) &&
	      cqe->status == VROCE_CQE_OK)))
		return false;
	hca->cq_db[cqn].arm = 0;
	/* The knob counts events of every CQ. */
	if (hca->drop_events) {
		hca->drop_events--;
		return false;
	}
	return true;
}

/*
 * Send the event of a CQ that fired, now or (the delay knob) later.
 * Context: the CQ's lock held.
 */
static void vroce_hca_cq_event(struct vroce_hca *hca, u32 cqn)
{
	struct vroce_hca_cq *cq = &hca->cqs[cqn];
	u32 delay;

	delay = READ_ONCE(hca->event_delay_ms);
	if (!delay) {
		vroce_hca_eq_post(hca, VROCE_EQE_COMP, cqn);
		return;
	}
	/* The timer work writes it; one pending event per CQ. */
	spin_lock(&hca->timer_lock);
	if (!cq->event_pending) {
		cq->event_due = jiffies + msecs_to_jiffies(delay);
		WRITE_ONCE(cq->event_pending, true);
		WRITE_ONCE(hca->timed, true);
	}
	spin_unlock(&hca->timer_lock);
}

/* Count an error CQE by its status (enum vroce_counter). */
static void vroce_hca_count_error(struct vroce_hca *hca, u8 status)
{
	static const u8 cnt[] = {
		[VROCE_CQE_LOC_LEN_ERR] = VROCE_CNT_LOC_LEN_ERR,
		[VROCE_CQE_LOC_QP_OP_ERR] = VROCE_CNT_LOC_QP_OP_ERR,
		[VROCE_CQE_LOC_PROT_ERR] = VROCE_CNT_LOC_PROT_ERR,
		[VROCE_CQE_WR_FLUSH_ERR] = VROCE_CNT_WR_FLUSH_ERR,
		[VROCE_CQE_REM_INV_REQ_ERR] = VROCE_CNT_REM_INV_REQ_ERR,
		[VROCE_CQE_REM_ACCESS_ERR] = VROCE_CNT_REM_ACCESS_ERR,
		[VROCE_CQE_REM_OP_ERR] = VROCE_CNT_REM_OP_ERR,
		[VROCE_CQE_RETRY_EXC_ERR] = VROCE_CNT_RETRY_EXC_ERR,
		[VROCE_CQE_RNR_RETRY_EXC_ERR] = VROCE_CNT_RNR_RETRY_EXC_ERR,
		[VROCE_CQE_LOC_ACCESS_ERR] = VROCE_CNT_LOC_ACCESS_ERR,
	};

	/* A status with no counter of its own (none yet) is not counted. */
	if (status < ARRAY_SIZE(cnt) && cnt[status])
		vroce_hca_count(hca, cnt[status], 1);
}

/*
 * Write @cqe for @qp to CQ @cqn: body, barrier, owner byte. A full CQ
 * (against its last CI doorbell) loses it: the overflow is reported once
 * per CQ and @qp goes to the error state.
 */
void vroce_hca_cq_post(struct vroce_hca *hca, struct vroce_hca_qp *qp,
		       u32 cqn, struct vroce_cqe *cqe)
{
	struct vroce_hca_cq *cq = &hca->cqs[cqn];
	struct vroce_cqe *slot = NULL;
	unsigned long flags;
	bool fire;
	u32 ci32, used;
	u16 ci;

	/* QPs of any engine complete to a CQ: one CQE at a time. */
	spin_lock(&hca->cq_lock[cqn]);
	if (cq->dbrec) {
		/*
		 * issue 31: the process's record, read once. A consumer
		 * ahead of the producer, or more than the depth behind, is
		 * a broken record: reported as an overflow, and counted.
		 */
		if (!vroce_hca_dbrec_read(hca, cq->dbrec, 0, &ci32))
			ci32 = cq->pi + 1;
		used = cq->pi - ci32;
		if (used > BIT(cq->ring.depth_log2))
			vroce_hca_count(hca, VROCE_CNT_DBREC_ERR, 1);
		else if (used < BIT(cq->ring.depth_log2))
			slot = vroce_hca_ring_entry(hca, &cq->ring, cq->pi);
		spin_lock_irqsave(&hca->reg_lock, flags);
	} else {
		/*
		 * The consumer index and the arm under one hold of the
		 * register lock, the CQE written between (issue 33).
		 */
		spin_lock_irqsave(&hca->reg_lock, flags);
		ci = hca->cq_db[cqn].ci;
		if ((u16)((u16)cq->pi - ci) < BIT(cq->ring.depth_log2))
			slot = vroce_hca_ring_entry(hca, &cq->ring, cq->pi);
	}
	if (!slot) {
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		if (!cq->overflowed) {
			cq->overflowed = true;
			vroce_hca_eq_post(hca, VROCE_EQE_CQ_ERR, cqn);
		}
		vroce_hca_qp_error(hca, qp);
		goto out;
	}
	cqe->owner = 0;
	memcpy(slot, cqe, offsetof(struct vroce_cqe, owner));
	dma_wmb();
	WRITE_ONCE(slot->owner, ((cq->pi >> cq->ring.depth_log2) & 1) ^ 1);
	cq->pi++;
	fire = vroce_hca_cq_fires(hca, cqn, cqe);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	if (cqe->status)
		vroce_hca_count_error(hca, cqe->status);
	/* issue 31, hca: a process's WQE refused (datapath.rst's table). */
	if (qp->unpriv && (cqe->status == VROCE_CQE_LOC_LEN_ERR ||
			   cqe->status == VROCE_CQE_LOC_QP_OP_ERR ||
			   cqe->status == VROCE_CQE_LOC_PROT_ERR))
		vroce_hca_count(hca, VROCE_CNT_UNPRIV_REFUSED, 1);
	if (fire)
		vroce_hca_cq_event(hca, cqn);
out:
	spin_unlock(&hca->cq_lock[cqn]);
}

/*
 * issue 31: arming a CQ whose consumer index is in a record. The arm came
 * by DB_CQ; CQEs the HCA wrote before it that the consumer has not read
 * (the record's ci behind the producer count, read once) raise the event
 * now, as a CQE after the arm would (the arm is taken): an event is never
 * lost against a CQE written between the consumer's last poll and its
 * arm. An armed-solicited CQ gets it too (an extra event is allowed).
 * Context: the timer work, @hca->wire_lock read-held.
 */
static void vroce_hca_cq_arm_check(struct vroce_hca *hca, u32 cqn)
{
	struct vroce_hca_cq *cq = &hca->cqs[cqn];
	unsigned long flags;
	bool fire = false;
	u32 ci;

	spin_lock(&hca->cq_lock[cqn]);
	if (cq->valid && cq->dbrec &&
	    vroce_hca_dbrec_read(hca, cq->dbrec, 0, &ci) && ci != cq->pi) {
		spin_lock_irqsave(&hca->reg_lock, flags);
		fire = hca->cq_db[cqn].arm;
		hca->cq_db[cqn].arm = 0;
		spin_unlock_irqrestore(&hca->reg_lock, flags);
	}
	if (fire)
		vroce_hca_eq_post(hca, VROCE_EQE_COMP, cqn);
	spin_unlock(&hca->cq_lock[cqn]);
}

/**
 * vroce_hca_cq_arm_checks() - the arm checks DB_CQ asked for (issue 31)
 * @hca: the HCA
 *
 * Context: the timer work, @hca->wire_lock read-held; it raises the
 * interrupt of the events written after.
 */
void vroce_hca_cq_arm_checks(struct vroce_hca *hca)
{
	u32 cqn;

	for_each_set_bit(cqn, hca->cq_arm_check, VROCE_MAX_CQ)
		if (test_and_clear_bit(cqn, hca->cq_arm_check))
			vroce_hca_cq_arm_check(hca, cqn);
}

/* ---- RNR and retry waits ---- */

/*
 * Park the head send WQE of @qp for @delay jiffies (at least one), or
 * until a receive is rung at QP slot @peer_slot of this HCA.
 */
static void vroce_hca_sq_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      u32 peer_slot, unsigned long delay)
{
	spin_lock(&hca->timer_lock);
	/*
	 * Failed meanwhile by another engine: its work flushes, no wait.
	 * vroce_hca_qp_error() moves the state before it takes timer_lock
	 * to end waits, so one of the two sees the other.
	 */
	if (READ_ONCE(qp->state) == VROCE_QPS_ERR) {
		spin_unlock(&hca->timer_lock);
		return;
	}
	qp->rnr_peer = peer_slot;
	qp->rnr_deadline = jiffies + max(delay, 1UL);
	WRITE_ONCE(qp->rnr_wait, true);
	WRITE_ONCE(hca->timed, true);
	spin_unlock(&hca->timer_lock);
}

/* RNR: wait for the peer's min_rnr_timer, or a receive there. */
void vroce_hca_rnr_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			struct vroce_hca *phca,
			const struct vroce_hca_qp *peer)
{
	u32 code = min_t(u32, peer->min_rnr_timer,
			 ARRAY_SIZE(vroce_hca_rnr_usecs) - 1);

	/* A receive there wakes a waiter on the same HCA; across, the timer. */
	vroce_hca_sq_wait(hca, qp,
			  phca == hca ? vroce_hca_qp_slot(hca, peer) : U32_MAX,
			  usecs_to_jiffies(vroce_hca_rnr_usecs[code]));
}

/*
 * A page fault (an ODP MR's page has no entry): the head send WQE waits
 * until a fault is resumed (vroce_hca_odp_wake()), or at most
 * VROCE_PAGE_FAULT_RETRY_MS, and runs again.
 */
void vroce_hca_odp_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	vroce_hca_sq_wait(hca, qp, VROCE_HCA_ODP_PEER,
			  msecs_to_jiffies(VROCE_PAGE_FAULT_RETRY_MS));
}

/* Every QP of @hca waiting for a page fault runs again now. */
void vroce_hca_odp_wake(struct vroce_hca *hca)
{
	vroce_hca_rnr_wake(hca, VROCE_HCA_ODP_PEER);
}

/*
 * No answer: wait the local ack timeout, 4.096 us * 2^timeout (0 is
 * infinite in the IB spec; the longest code stands for it), then retry.
 */
void vroce_hca_retry_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	vroce_hca_sq_wait(hca, qp, U32_MAX, vroce_hca_ack_timeout(qp));
}

/**
 * vroce_hca_rc_timer() - arm an RC requester's timer over packets
 * @hca: the HCA
 * @qp: the QP; its visit holds its run lock
 * @delay: jiffies until the timer kicks the QP (its rnr_wait cleared)
 *
 * Issue 34: the local ack timeout and an RNR NAK's wait
 * (c/hca/vroce_hca_req.c); arming it again moves the deadline.
 *
 * Context: a visit, @hca->wire_lock read-held.
 */
void vroce_hca_rc_timer(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			unsigned long delay)
{
	vroce_hca_sq_wait(hca, qp, U32_MAX, delay);
}

/**
 * vroce_hca_rc_timer_stop() - disarm it: nothing is outstanding
 * @hca: the HCA
 * @qp: the QP; its visit holds its run lock
 *
 * Context: a visit, @hca->wire_lock read-held.
 */
void vroce_hca_rc_timer_stop(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	spin_lock(&hca->timer_lock);
	WRITE_ONCE(qp->rnr_wait, false);
	spin_unlock(&hca->timer_lock);
}

/**
 * vroce_hca_ack_timeout() - @qp's local ack timeout in jiffies
 * @qp: the QP
 *
 * 4.096 us * 2^timeout; 0 is infinite in the IB spec, the longest code
 * stands for it. Never shorter than the timeout: jiffies round down.
 *
 * Return: the jiffies.
 */
unsigned long vroce_hca_ack_timeout(const struct vroce_hca_qp *qp)
{
	u32 code = qp->timeout ? min_t(u32, qp->timeout, 31) : 31;

	return nsecs_to_jiffies(4096ULL << code) + 1;
}

/* ---- the timer ---- */

static void vroce_hca_earliest(unsigned long *next, bool *any,
			       unsigned long when)
{
	if (!*any || time_before(when, *next))
		*next = when;
	*any = true;
}

/*
 * Run the timer work when the next RNR retry or delayed event is due, or
 * the next look at the receive records of mapped QPs in ERR.
 * Whoever starts a wait sets @timed under timer_lock and calls this after,
 * so a scan that missed the new wait is followed by one that sees it.
 */
void vroce_hca_timer_arm(struct vroce_hca *hca)
{
	unsigned long next = 0, now = jiffies;
	bool any = false;
	u32 i;

	if (!READ_ONCE(hca->timed))
		return;
	spin_lock(&hca->timer_lock);
	for (i = 0; i < VROCE_MAX_QP; i++) {
		if (hca->qps[i].valid && hca->qps[i].rnr_wait)
			vroce_hca_earliest(&next, &any, hca->qps[i].rnr_deadline);
		if (vroce_hca_qp_err_scan(&hca->qps[i]))
			vroce_hca_earliest(&next, &any,
					   now + VROCE_HCA_ERR_SCAN_JIFFIES);
	}
	for (i = 0; i < VROCE_MAX_CQ; i++)
		if (hca->cqs[i].valid && hca->cqs[i].event_pending)
			vroce_hca_earliest(&next, &any, hca->cqs[i].event_due);
	if (any)
		vroce_hca_timer(hca, time_after(next, now) ? next - now : 0);
	/* The scans can stop until one is set again. */
	WRITE_ONCE(hca->timed, any);
	spin_unlock(&hca->timer_lock);
}
