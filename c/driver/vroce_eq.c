// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the event queue (Documentation/datapath.rst).
 *
 * A ring of EQEs the HCA writes when an armed CQ gets a CQE, a CQ
 * overflows or a QP hits a fatal error; consumed by the handler of the
 * HCA's event vector (connected in c/driver/vroce_dev.c), which calls the
 * consumers' completion and event handlers. Destroyed CQs and QPs leave
 * the event tables through vroce_eq_forget().
 */

#include <kunit/visibility.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"

static void vroce_eq_event(struct vroce_dev *vdev, u32 type, u32 num)
{
	struct ib_event ev = { .device = &vdev->ibdev };
	struct vroce_srq *srq;
	struct vroce_cq *cq;
	struct vroce_qp *qp;

	switch (type) {
	case VROCE_EQE_COMP:
		cq = xa_load(&vdev->cqs, num);
		if (!cq)
			break;
		/* The HCA disarmed it to write this event. */
		WRITE_ONCE(cq->armed, false);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		break;
	case VROCE_EQE_CQ_ERR:
		cq = xa_load(&vdev->cqs, num);
		ibdev_warn_ratelimited(&vdev->ibdev, "CQ %u overflowed\n", num);
		if (cq && cq->ibcq.event_handler) {
			ev.event = IB_EVENT_CQ_ERR;
			ev.element.cq = &cq->ibcq;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		break;
	case VROCE_EQE_QP_FATAL:
		qp = xa_load(&vdev->qps, num);
		if (!qp)
			break;
		/* The HCA moved it to ERR; no CQE may ever say so. */
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		if (qp->ibqp.event_handler) {
			ev.event = IB_EVENT_QP_FATAL;
			ev.element.qp = &qp->ibqp;
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
		}
		break;
	case VROCE_EQE_SRQ_LIMIT:
		/* The HCA disarmed the limit to write this event. */
		srq = xa_load(&vdev->srqs, num);
		if (srq && srq->ibsrq.event_handler) {
			ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
			ev.element.srq = &srq->ibsrq;
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
		}
		break;
	case VROCE_EQE_QP_LAST_WQE:
		/*
		 * In ERR, it takes nothing more from its SRQ. The state is
		 * not set here: the driver moved it, or a CQE or QP_FATAL
		 * says so, and a late event must not undo a RESET since.
		 */
		qp = xa_load(&vdev->qps, num);
		if (qp && qp->ibqp.event_handler) {
			ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
			ev.element.qp = &qp->ibqp;
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
		}
		break;
	case VROCE_EQE_PAGE_FAULT:
		/* Issue 33: fault slot @num; its work resolves it. */
		vroce_odp_event(vdev, num);
		break;
	case VROCE_EQE_PORT_CHANGE:
		/* Issue 34: the link of port @num went up or down. */
		vroce_port_event(vdev, num);
		break;
	}
}

/*
 * Who consumes. The consumer takes eq->lock (vroce_eq_lock()) and calls the
 * consumers' handlers with it held. A handler may destroy CQs and QPs,
 * its own included, and a destroy takes the object out of its table under
 * eq->lock: a destroy in another task waits for the lock, and so for the
 * handler that may be using the object (the RDMA core frees it once the
 * destroy returns); a destroy called back by a handler, in the consumer's
 * own task, must not take the lock again. Both find the lock held and the
 * same object maybe in a handler: only the task tells them apart, so the
 * consumer writes itself into &vroce_eq.consumer while it holds the lock,
 * and vroce_eq_in_handler() is the one place that asks. lockdep checks
 * its answer either way: a yes asserts the lock held by this task, a
 * wrong no would take the lock again, a recursion lockdep reports. What
 * runs with the lock held asserts it.
 */
static void vroce_eq_lock(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;

	mutex_lock(&eq->lock);
	WRITE_ONCE(eq->consumer, current);
}

/*
 * Whether the caller runs inside a handler the consumer called, in the
 * consumer's task: eq->lock is then held, by this task. No other task can
 * find itself in @consumer: only the holder of the lock writes itself
 * there, and clears it before it drops the lock.
 */
static bool vroce_eq_in_handler(struct vroce_eq *eq)
{
	if (READ_ONCE(eq->consumer) != current)
		return false;
	lockdep_assert_held(&eq->lock);
	return true;
}

/* Deliver every event the HCA has written; eq->lock held. */
static void vroce_eq_consume(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;
	const struct vroce_eqe *eqe;
	u32 start = eq->ci;

	lockdep_assert_held(&eq->lock);
	if (!eq->ring.mtr)
		return;
	while ((eqe = vroce_ring_written(&eq->ring, eq->ci))) {
		eq->ci++;
		vroce_eq_event(vdev, eqe->type, le32_to_cpu(eqe->num));
	}
	if (eq->ci != start)
		vroce_hw_eq_set_ci(&vdev->hw, eq->ci);
}

/**
 * vroce_eq_irq() - consume the event queue
 * @vdev: the device
 *
 * The handler of the HCA's event vector (c/driver/vroce_dev.c). CQs and
 * QPs named by events are looked up and used under eq->lock, which
 * vroce_eq_forget() takes before a destroyed object leaves its table: the
 * consumers' completion and event handlers may sleep, issue verbs that
 * wait for commands (those complete on their own vector) and destroy CQs
 * and QPs of this device, their own included. They must not wait for
 * another event of this device (an ib_drain_qp() whose CQ is driven by
 * events), nor take a lock that a thread destroying a CQ or QP of this
 * device may hold.
 *
 * Context: process context (the HCA's interrupt), may sleep.
 */
void vroce_eq_irq(struct vroce_dev *vdev)
{
	vroce_eq_forget(vdev, NULL, 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_eq_irq);

/*
 * Stop consuming: the queue is empty, so the numbers handlers gave back
 * (vroce_eq_release_qpn()) are free now; drops eq->lock.
 */
static void vroce_eq_unlock(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;
	unsigned long n;

	lockdep_assert_held(&eq->lock);
	WRITE_ONCE(eq->consumer, NULL);
	for_each_set_bit(n, eq->qpn_release, VROCE_QPN_LIMIT)
		xa_erase(&vdev->qps, n);
	bitmap_zero(eq->qpn_release, VROCE_QPN_LIMIT);
	mutex_unlock(&eq->lock);
}

/*
 * Take entry @num of @xa (if any) out of its table, with eq->lock held: no
 * consumer finds it from now on. xa_store() of NULL: erased from the CQ
 * table; in the allocating QP table the number stays taken.
 */
static void __vroce_eq_forget(struct vroce_dev *vdev, struct xarray *xa,
			      unsigned long num)
{
	lockdep_assert_held(&vdev->eq.lock);
	if (xa)
		xa_store(xa, num, NULL, GFP_KERNEL);
}

/**
 * vroce_eq_forget() - take a CQ or QP out of its table, once no event
 *	handler can still be using it, and drop its pending events
 * @vdev: the device
 * @xa: &vroce_dev.cqs or &vroce_dev.qps; NULL to only consume the queue
 * @num: the object's number
 *
 * The entry goes first (xa_store() of NULL: erased from the CQ table; in
 * the allocating QP table the number stays taken until
 * vroce_eq_release_qpn()), then every event the HCA has written is
 * consumed: those of the object are dropped (none reaches an object given
 * the same number later), the others delivered, in this thread. Called
 * back by a handler (vroce_eq_in_handler()), which runs with eq->lock held
 * by its consumer, it only clears the entry: the consuming loop that
 * called the handler drops the rest.
 *
 * Context: process context, may sleep; eq->lock not held, or held by the
 * consumer whose handler calls this.
 */
void vroce_eq_forget(struct vroce_dev *vdev, struct xarray *xa,
		     unsigned long num)
{
	if (vroce_eq_in_handler(&vdev->eq)) {
		__vroce_eq_forget(vdev, xa, num);
		return;
	}
	vroce_eq_lock(vdev);
	__vroce_eq_forget(vdev, xa, num);
	vroce_eq_consume(vdev);
	vroce_eq_unlock(vdev);
}

/**
 * vroce_eq_flush_work() - call the completion handlers of a dead device
 * @work: &vroce_dev.flush_work
 *
 * A dead device's HCA writes no event, but its CQs still complete work
 * requests (in software, IB_WC_WR_FLUSH_ERR: vroce_poll_cq()): the
 * handlers of the armed CQs (&vroce_cq.armed: armed before the HCA was
 * reset, whose event the reset lost, or since) are called here, once per
 * arming, as the event queue calls them, so that they may destroy CQs
 * and QPs in turn. A mapped CQ's record is marked first
 * (vroce_cq_mark_dead()): its process flushes its own work requests.
 *
 * Context: process context (a work item), may sleep.
 */
void vroce_eq_flush_work(struct work_struct *work)
{
	struct vroce_dev *vdev = container_of(work, struct vroce_dev,
					      flush_work);
	struct vroce_cq *cq;
	unsigned long n;

	vroce_eq_lock(vdev);
	xa_for_each(&vdev->cqs, n, cq) {
		/* issue 31, review: a mapped CQ's process flushes its own. */
		vroce_cq_mark_dead(cq);
		if (xchg(&cq->armed, false) && cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	vroce_eq_unlock(vdev);
}

/**
 * vroce_eq_release_qpn() - give a destroyed QP's number back
 * @vdev: the device
 * @qpn: the number
 *
 * Called by vroce_destroy_qp() once the HCA has let go of the QP and its
 * CQs hold no CQE of it. Outside an event handler every event the HCA
 * wrote for the QP has been consumed (vroce_eq_forget() after DESTROY_QP):
 * the number is free at once. Inside one (vroce_eq_in_handler()), events
 * queued behind the handler's own may still name it: the consuming loop
 * that called the handler frees it when the queue is empty
 * (vroce_eq_unlock()), so that none of them reaches a QP created with that
 * number meanwhile.
 *
 * Context: process context, may sleep; eq->lock not held, or held by the
 * consumer whose handler calls this.
 */
void vroce_eq_release_qpn(struct vroce_dev *vdev, u32 qpn)
{
	struct vroce_eq *eq = &vdev->eq;

	if (vroce_eq_in_handler(eq)) {
		__set_bit(qpn, eq->qpn_release);
		return;
	}
	xa_erase(&vdev->qps, qpn);
}

/**
 * vroce_eq_init() - allocate the event queue
 * @vdev: the device
 *
 * The queue is set before the event vector is connected and the HCA told
 * of it (vroce_eq_start()).
 *
 * Context: process context, may sleep.
 * Return: 0 or an error of vroce_ring_create().
 */
int vroce_eq_init(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;

	eq->ci = 0;
	return vroce_ring_create(vdev, &eq->ring, VROCE_EQ_DEPTH_LOG2,
				 VROCE_EQE_SIZE, 0);
}

/**
 * vroce_eq_start() - tell the HCA of its event queue
 * @vdev: the device, its event vector connected
 *
 * Context: process context, may sleep.
 */
void vroce_eq_start(struct vroce_dev *vdev)
{
	struct vroce_hw_mtt mtt;

	vroce_ring_mtt(vdev->eq.ring.mtr, &mtt);
	vroce_hw_eq_start(&vdev->hw, &mtt, vdev->eq.ring.log2);
}

/**
 * vroce_eq_exit() - free the event queue
 * @vdev: the device; the HCA has been reset (it writes no more events)
 *	and the event vector disconnected
 *
 * Context: process context, may sleep.
 */
void vroce_eq_exit(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;

	mutex_lock(&eq->lock);
	vroce_ring_destroy(vdev, &eq->ring);
	mutex_unlock(&eq->lock);
}
