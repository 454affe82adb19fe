// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: completion queues and the event queue (Documentation/datapath.rst).
 *
 * A CQ is a ring of CQEs the HCA writes and poll_cq() reads; the event
 * queue is a ring of EQEs the HCA writes when an armed CQ gets a CQE or a
 * CQ overflows, read by the interrupt handler. Both are kernel-buffer MTRs
 * of one region. Polling and arming never sleep or allocate.
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"
#include "../ifc/vroce_bus.h"
#include "../../bindings/vroce_core.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_regs.h"
#include "../ifc/vroce_wqe.h"
#include "../../bindings/vroce_abi.h"

/* Slot of the @n-th entry of a ring of 2^@log2 entries of @size bytes. */
static void *vroce_ring_entry(struct vroce_mtr *mtr, u32 n, u32 log2, u32 size)
{
	return vroce_mtr_buf_kva(mtr, (u64)(n & (BIT(log2) - 1)) * size);
}

/* Whether the HCA has written the @n-th entry: its owner bit has the phase. */
static bool vroce_ring_valid(const u8 *owner, u32 n, u32 log2)
{
	return (READ_ONCE(*owner) & VROCE_CQE_OWNER) == !((n >> log2) & 1);
}

/**
 * vroce_ring_create() - a ring for the HCA: a kernel-buffer MTR
 * @vdev: the device
 * @mtr: where the ring's MTR is returned
 * @log2: entries = 2^@log2
 * @size: bytes per entry
 *
 * Context: process context, may sleep.
 * Return: 0 or an error of vroce_mtr_create().
 */
int vroce_ring_create(struct vroce_dev *vdev, struct vroce_mtr **mtr,
		      u32 log2, u32 size)
{
	struct vroce_buf_attr attr = {
		.region = { { (u64)size << log2, 0 } },
		.region_count = 1,
		.page_shift = PAGE_SHIFT,
		.adaptive = true,
	};

	return vroce_mtr_create(vdev, mtr, &attr, PAGE_SHIFT, NULL, 0);
}

static void vroce_cq_doorbell(struct vroce_cq *cq, u32 cmd)
{
	struct vroce_dev *vdev = to_vroce_dev(cq->ibcq.device);

	vroce_hw_write32(&vdev->hw, VROCE_REG_DB_CQ,
			 FIELD_PREP(VROCE_DB_CQ_CQN, cq->cqn) |
			 FIELD_PREP(VROCE_DB_CQ_CMD, cmd) |
			 FIELD_PREP(VROCE_DB_CQ_CI, cq->ci & 0xffff));
}

/* Rings whose DESTROY failed: the HCA may still write them. */
struct vroce_ring_zombie {
	struct list_head list;
	struct vroce_mtr *mtr[2];
};

/**
 * vroce_ring_zombie_alloc() - the record a CQ or QP will need to park its
 *	rings, taken when it is created so that parking never allocates
 * @vdev: the device
 *
 * Context: process context, may sleep.
 * Return: the record, to be handed to vroce_ring_zombie() or freed with
 * vroce_ring_zombie_free(), or NULL when memory runs out.
 */
struct vroce_ring_zombie *vroce_ring_zombie_alloc(struct vroce_dev *vdev)
{
	return vroce_core_zalloc(vdev, sizeof(struct vroce_ring_zombie));
}

/**
 * vroce_ring_zombie_free() - free an unused record
 * @vdev: the device
 * @z: the record from vroce_ring_zombie_alloc(), or NULL
 *
 * Context: process context, may sleep.
 */
void vroce_ring_zombie_free(struct vroce_dev *vdev, struct vroce_ring_zombie *z)
{
	vroce_core_free(vdev, z);
}

/**
 * vroce_ring_zombie() - keep rings the HCA may still use until its reset
 * @vdev: the device
 * @z: the object's record from vroce_ring_zombie_alloc(); now owned by
 *	the device
 * @a: a ring
 * @b: another ring, or NULL
 *
 * For a CQ or QP whose CREATE timed out or whose DESTROY failed: the core
 * frees the object regardless, but its rings must stay until the HCA is
 * reset (vroce_ring_reap()).
 *
 * Context: process context, may sleep.
 */
void vroce_ring_zombie(struct vroce_dev *vdev, struct vroce_ring_zombie *z,
		       struct vroce_mtr *a, struct vroce_mtr *b)
{
	z->mtr[0] = a;
	z->mtr[1] = b;
	mutex_lock(&vdev->zombie_lock);
	list_add_tail(&z->list, &vdev->ring_zombies);
	mutex_unlock(&vdev->zombie_lock);
}

/**
 * vroce_ring_reap() - free the rings kept by vroce_ring_zombie()
 * @vdev: the device, its HCA reset (it touches no memory)
 *
 * Context: process context, may sleep.
 */
void vroce_ring_reap(struct vroce_dev *vdev)
{
	struct vroce_ring_zombie *z, *tmp;

	mutex_lock(&vdev->zombie_lock);
	list_for_each_entry_safe(z, tmp, &vdev->ring_zombies, list) {
		vroce_mtr_destroy(vdev, z->mtr[0]);
		vroce_mtr_destroy(vdev, z->mtr[1]);
		list_del(&z->list);
		vroce_core_free(vdev, z);
	}
	mutex_unlock(&vdev->zombie_lock);
}

int vroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	int err;

	/* Kernel CQs only: user CQs would need a mapped ring. */
	if (attrs || attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > BIT(vdev->attr.max_cq_depth_log2))
		return -EINVAL;

	cq->depth_log2 = attr->cqe > 2 ? order_base_2(attr->cqe) : 1;
	spin_lock_init(&cq->lock);
	cq->zombie = vroce_ring_zombie_alloc(vdev);
	if (!cq->zombie)
		return -ENOMEM;
	err = vroce_ring_create(vdev, &cq->mtr, cq->depth_log2, VROCE_CQE_SIZE);
	if (err)
		goto err_free_zombie;
	err = vroce_cmd_create_cq(vdev, cq->mtr, cq->depth_log2, &cq->cqn);
	if (err == -ETIMEDOUT) {
		/* The HCA may hold the ring under a CQN never learnt. */
		vroce_ring_zombie(vdev, cq->zombie, cq->mtr, NULL);
		return err;
	}
	if (err)
		goto err_destroy_mtr;
	err = vroce_inject(vdev) ? -ENOMEM :
	      xa_insert(&vdev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy_cq;
	ibcq->cqe = BIT(cq->depth_log2);
	return 0;

err_destroy_cq:
	if (vroce_cmd_destroy_cq(vdev, cq->cqn)) {
		vroce_ring_zombie(vdev, cq->zombie, cq->mtr, NULL);
		return err;
	}
err_destroy_mtr:
	vroce_mtr_destroy(vdev, cq->mtr);
err_free_zombie:
	vroce_ring_zombie_free(vdev, cq->zombie);
	return err;
}

/**
 * vroce_pre_destroy_cq() - no event reaches @ibcq from now on
 * @ibcq: the CQ
 *
 * ib_free_cq() calls this before it cancels the CQ's poll work, so that no
 * completion event can queue that work again before the CQ is freed.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int vroce_pre_destroy_cq(struct ib_cq *ibcq)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);

	vroce_eq_forget(vdev, &vdev->cqs, to_vroce_cq(ibcq)->cqn);
	return 0;
}

/**
 * vroce_post_destroy_cq() - the HCA lets go of @ibcq, its ring is freed
 * @ibcq: the CQ, its events stopped by vroce_pre_destroy_cq()
 *
 * Context: process context, may sleep.
 */
void vroce_post_destroy_cq(struct ib_cq *ibcq)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	int err;

	err = vroce_cmd_destroy_cq(vdev, cq->cqn);
	/* Events written until the HCA let go are dropped now. */
	vroce_eq_forget(vdev, NULL, 0);
	if (!vroce_cmd_let_go(err)) {
		/* The core frees @cq regardless; the ring stays with the HCA. */
		ibdev_warn_ratelimited(ibcq->device, "DESTROY_CQ %u failed (%d)\n",
				       cq->cqn, err);
		vroce_ring_zombie(vdev, cq->zombie, cq->mtr, NULL);
		return;
	}
	vroce_mtr_destroy(vdev, cq->mtr);
	vroce_ring_zombie_free(vdev, cq->zombie);
}

int vroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	vroce_pre_destroy_cq(ibcq);
	vroce_post_destroy_cq(ibcq);
	return 0;
}

/* CQE @n of @cq when the HCA has written it, else NULL; under cq->lock. */
static struct vroce_cqe *vroce_cq_written(struct vroce_cq *cq, u32 n)
{
	struct vroce_cqe *cqe = vroce_ring_entry(cq->mtr, n, cq->depth_log2,
						 VROCE_CQE_SIZE);

	return vroce_ring_valid(&cqe->owner, n, cq->depth_log2) ? cqe : NULL;
}

static const enum ib_wc_status vroce_wc_status[] = {
	[VROCE_CQE_OK] = IB_WC_SUCCESS,
	[VROCE_CQE_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[VROCE_CQE_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[VROCE_CQE_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[VROCE_CQE_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[VROCE_CQE_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[VROCE_CQE_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[VROCE_CQE_REM_OP_ERR] = IB_WC_REM_OP_ERR,
	[VROCE_CQE_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
	[VROCE_CQE_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
	[VROCE_CQE_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
};

static const enum ib_wc_opcode vroce_wc_opcode[] = {
	[VROCE_CQE_SEND] = IB_WC_SEND,
	[VROCE_CQE_WRITE] = IB_WC_RDMA_WRITE,
	[VROCE_CQE_READ] = IB_WC_RDMA_READ,
	[VROCE_CQE_REG_MR] = IB_WC_REG_MR,
	[VROCE_CQE_LOCAL_INV] = IB_WC_LOCAL_INV,
	[VROCE_CQE_RECV] = IB_WC_RECV,
	[VROCE_CQE_RECV_WRITE_IMM] = IB_WC_RECV_RDMA_WITH_IMM,
};

/* Turn a CQE into a work completion; false to skip it (QP gone). */
static bool vroce_cqe_to_wc(struct vroce_dev *vdev, const struct vroce_cqe *cqe,
			    struct ib_wc *wc)
{
	struct vroce_qp *qp = xa_load(&vdev->qps, le32_to_cpu(cqe->qpn));
	bool rq = cqe->flags & VROCE_CQE_F_RQ;

	if (!qp)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->qp = &qp->ibqp;
	wc->vendor_err = cqe->status;
	wc->status = cqe->status < ARRAY_SIZE(vroce_wc_status) ?
		     vroce_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
	vroce_qp_retire(qp, rq, le16_to_cpu(cqe->wqe_idx),
			wc->status != IB_WC_SUCCESS);
	if (wc->status != IB_WC_SUCCESS)
		return true;

	wc->opcode = cqe->opcode < ARRAY_SIZE(vroce_wc_opcode) ?
		     vroce_wc_opcode[cqe->opcode] : IB_WC_SEND;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	if (cqe->flags & VROCE_CQE_F_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)cqe->imm_inv;
	} else if (cqe->flags & VROCE_CQE_F_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->imm_inv);
	}
	if (rq) {
		wc->src_qp = le32_to_cpu(cqe->src_qp);
		wc->port_num = 1;
	}
	return true;
}

int vroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	const struct vroce_cqe *cqe;
	unsigned long flags;
	u32 start;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	while (n < num_entries) {
		cqe = vroce_cq_written(cq, cq->ci);
		if (!cqe)
			break;
		/* The body was written before the owner byte. */
		dma_rmb();
		cq->ci++;
		if (vroce_cqe_to_wc(vdev, cqe, &wc[n]))
			n++;
	}
	/* Slots are handed back only once read. */
	if (cq->ci != start)
		vroce_cq_doorbell(cq, VROCE_DB_CQ_CMD_CI);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * vroce_cq_clean() - make pollers skip the CQEs of a QP still in a CQ
 * @cq: the CQ
 * @qpn: the QP, destroyed or reset
 *
 * The HCA writes only past the CQEs not yet polled, so those are the
 * driver's to rewrite: their QPN becomes 0, which no QP has, and pollers
 * drop them. Without this a QP's old completions would retire WQEs of the
 * QP reset under, or of a new QP given, the same number.
 *
 * Context: any context.
 */
void vroce_cq_clean(struct vroce_cq *cq, u32 qpn)
{
	struct vroce_cqe *cqe;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = cq->ci; n - cq->ci < BIT(cq->depth_log2); n++) {
		cqe = vroce_cq_written(cq, n);
		if (!cqe)
			break;
		dma_rmb();
		if (le32_to_cpu(cqe->qpn) == qpn)
			cqe->qpn = 0;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

int vroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	vroce_cq_doorbell(cq, (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
			      VROCE_DB_CQ_CMD_ARM_SOL : VROCE_DB_CQ_CMD_ARM_NEXT);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		missed = !!vroce_cq_written(cq, cq->ci);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

static void vroce_eq_event(struct vroce_dev *vdev, u32 type, u32 num)
{
	struct ib_event ev = { .device = &vdev->ibdev };
	struct vroce_cq *cq;
	struct vroce_qp *qp;

	switch (type) {
	case VROCE_EQE_COMP:
		cq = xa_load(&vdev->cqs, num);
		if (cq && cq->ibcq.comp_handler)
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
	}
}

/* Deliver every event the HCA has written; eq->lock held. */
static void vroce_eq_consume(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;
	const struct vroce_eqe *eqe;
	u32 start = eq->ci;

	lockdep_assert_held(&eq->lock);
	if (!eq->mtr)
		return;
	for (;;) {
		eqe = vroce_ring_entry(eq->mtr, eq->ci, eq->depth_log2,
				       VROCE_EQE_SIZE);
		if (!vroce_ring_valid(&eqe->owner, eq->ci, eq->depth_log2))
			break;
		dma_rmb();
		eq->ci++;
		vroce_eq_event(vdev, eqe->type, le32_to_cpu(eqe->num));
	}
	if (eq->ci != start)
		vroce_hw_write32(&vdev->hw, VROCE_REG_EQ_CI, eq->ci);
}

/**
 * vroce_eq_irq() - consume the event queue
 * @vdev: the device
 *
 * Called from the HCA's event vector. CQs and QPs named by events are
 * looked up and used under eq->lock, which vroce_eq_forget() takes before
 * a destroyed object leaves its table: the consumers' completion and event
 * handlers may sleep, issue verbs that wait for commands (those complete
 * on their own vector) and destroy CQs and QPs of this device, their own
 * included. They must not wait for another event of this device (an
 * ib_drain_qp() whose CQ is driven by events), nor take a lock that a
 * thread destroying a CQ or QP of this device may hold.
 *
 * Context: process context (the HCA's interrupt), may sleep.
 */
void vroce_eq_irq(struct vroce_dev *vdev)
{
	vroce_eq_forget(vdev, NULL, 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_eq_irq);

/**
 * vroce_eq_forget() - take a CQ or QP out of its table, once no event
 *	handler can still be using it, and drop its pending events
 * @vdev: the device
 * @xa: &vroce_dev.cqs or &vroce_dev.qps; NULL to only consume the queue
 * @num: the object's number
 *
 * The entry goes first, then every event the HCA has written is consumed:
 * those of the object are dropped (none reaches an object given the same
 * number later), the others delivered, in this thread. Whoever consumes
 * is the queue's owner while it does, so that a handler it calls may
 * destroy CQs and QPs in turn: from within a handler the entry is only
 * erased, and the consuming loop that called the handler drops the rest.
 *
 * Context: process context, may sleep.
 */
void vroce_eq_forget(struct vroce_dev *vdev, struct xarray *xa,
		     unsigned long num)
{
	struct vroce_eq *eq = &vdev->eq;

	if (READ_ONCE(eq->owner) == current) {
		if (xa)
			xa_erase(xa, num);
		return;
	}
	mutex_lock(&eq->lock);
	if (xa)
		xa_erase(xa, num);
	WRITE_ONCE(eq->owner, current);
	vroce_eq_consume(vdev);
	WRITE_ONCE(eq->owner, NULL);
	mutex_unlock(&eq->lock);
}

/**
 * vroce_ring_cfg() - a ring's VROCE_RING_CFG_* register value
 * @mtr: the ring, an MTR of one region
 * @log2: entries = 2^@log2
 *
 * Context: any context.
 * Return: the value for the ring's CFG register (command ring, event
 * queue), without the event queue's ENABLE bit.
 */
u32 vroce_ring_cfg(struct vroce_mtr *mtr, u32 log2)
{
	struct vroce_mtr_region rgn;

	vroce_mtr_region(mtr, 0, &rgn);
	return FIELD_PREP(VROCE_RING_CFG_DEPTH_LOG2, log2) |
	       FIELD_PREP(VROCE_RING_CFG_BA_PG_SHIFT,
			  vroce_mtr_ba_page_shift(mtr)) |
	       FIELD_PREP(VROCE_RING_CFG_BUF_PG_SHIFT,
			  vroce_mtr_buf_page_shift(mtr)) |
	       FIELD_PREP(VROCE_RING_CFG_HOPNUM, rgn.hopnum);
}

static void vroce_eq_handler(void *data)
{
	vroce_eq_irq(data);
}

/**
 * vroce_eq_init() - give the HCA its event queue
 * @vdev: the device, its command ring running
 *
 * Context: process context, may sleep.
 * Return: 0, an error of vroce_mtr_create() or of connecting the event
 * vector.
 */
int vroce_eq_init(struct vroce_dev *vdev)
{
	struct vroce_eq *eq = &vdev->eq;
	struct vroce_mtr *mtr;
	int err;

	eq->depth_log2 = VROCE_EQ_DEPTH_LOG2;
	eq->ci = 0;
	err = vroce_ring_create(vdev, &mtr, eq->depth_log2, VROCE_EQE_SIZE);
	if (err)
		return err;
	err = vroce_hw_request_irq(&vdev->hw, VROCE_IRQ_EQ, vroce_eq_handler,
				   vdev);
	if (err) {
		vroce_mtr_destroy(vdev, mtr);
		return err;
	}
	/* Published before the HCA can raise an event for it. */
	WRITE_ONCE(eq->mtr, mtr);
	vroce_hw_write64(&vdev->hw, VROCE_REG_EQ_BA, vroce_mtr_root_ba(mtr));
	vroce_hw_write32(&vdev->hw, VROCE_REG_EQ_CI, 0);
	vroce_hw_write32(&vdev->hw, VROCE_REG_EQ_CFG,
			 vroce_ring_cfg(mtr, eq->depth_log2) |
			 VROCE_EQ_CFG_ENABLE);
	return 0;
}

/**
 * vroce_eq_exit() - free the event queue
 * @vdev: the device; the HCA has been reset (it writes no more events)
 *
 * Context: process context, may sleep.
 */
void vroce_eq_exit(struct vroce_dev *vdev)
{
	vroce_hw_free_irq(&vdev->hw, VROCE_IRQ_EQ);
	vroce_mtr_destroy(vdev, vdev->eq.mtr);
	vdev->eq.mtr = NULL;
}
