// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: completion queues (Documentation/datapath.rst).
 *
 * A CQ is a ring of CQEs (c/driver/vroce_ring.h) the HCA writes and
 * poll_cq() reads. Polling and arming never sleep or allocate; the event
 * queue (c/driver/vroce_eq.c) brings completion events.
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "vroce.h"

static void vroce_cq_doorbell(struct vroce_cq *cq, enum vroce_hw_cq_arm arm)
{
	struct vroce_dev *vdev = to_vroce_dev(cq->ibcq.device);

	vroce_hw_cq_doorbell(&vdev->hw, cq->cqn, cq->ci, arm);
}

/* ---- issue 31: mapped rings ---- */

/*
 * The driver data of a process's CREATE_CQ: 0 with @*mapped set for a
 * mapped CQ (issue 31), else the kernel's ring as before. Fields of the
 * mapped ring without VROCE_CREATE_CQ_MAPPED are refused (-EINVAL), as is
 * the bit from a context not told it may map (-EOPNOTSUPP).
 */
static int vroce_cq_ureq(struct vroce_dev *vdev, struct ib_udata *udata,
			 const struct ib_cq_init_attr *attr,
			 struct vroce_create_cq *ureq, bool *mapped)
{
	int err;

	*mapped = false;
	err = vroce_udata_in(udata, ureq, sizeof(*ureq));
	if (err)
		return err;
	if (ureq->comp_mask & ~VROCE_CREATE_CQ_MAPPED)
		return -EOPNOTSUPP;
	if (ureq->reserved || ureq->reserved2)
		return -EINVAL;
	if (!(ureq->comp_mask & VROCE_CREATE_CQ_MAPPED))
		return ureq->buf_addr || ureq->dbrec_addr || ureq->depth ?
		       -EINVAL : 0;
	if (!(vdev->attr.caps & VROCE_CAP_MAPPED))
		return -EOPNOTSUPP;
	*mapped = true;
	return vroce_map_check_ring(vdev, ureq->buf_addr, ureq->depth,
				    VROCE_CQE_SIZE, attr->cqe,
				    vdev->attr.max_cq_depth_log2);
}

/*
 * The CQ's ring: the process's (pinned, with its record) for a mapped CQ,
 * else the kernel's; undone by vroce_cq_ring_destroy().
 */
static int vroce_cq_ring_create(struct vroce_dev *vdev, struct vroce_cq *cq,
				const struct ib_cq_init_attr *attr,
				struct ib_udata *udata,
				const struct vroce_create_cq *ureq)
{
	int err;

	if (!cq->mapped)
		return vroce_ring_create(vdev, &cq->ring,
					 attr->cqe > 2 ? order_base_2(attr->cqe) : 1,
					 VROCE_CQE_SIZE, 0);
	err = vroce_dbrec_get(vdev, ureq->dbrec_addr, &cq->dbrec);
	if (err)
		return err;
	err = vroce_ring_create_user(vdev, &cq->ring, ilog2(ureq->depth),
				     VROCE_CQE_SIZE, udata, ureq->buf_addr);
	if (err)
		vroce_dbrec_put(vdev, &cq->dbrec);
	return err;
}

static void vroce_cq_ring_destroy(struct vroce_dev *vdev, struct vroce_cq *cq)
{
	vroce_ring_destroy(vdev, &cq->ring);
	vroce_dbrec_put(vdev, &cq->dbrec);
}

/* The HCA may still use the ring (and record): both stay until its reset. */
static void vroce_cq_park(struct vroce_dev *vdev, struct vroce_cq *cq)
{
	cq->zombie->dbrec = cq->dbrec;
	vroce_ring_zombie(vdev, cq->zombie, &cq->ring, NULL);
}

int vroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	struct vroce_create_cq ureq = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > BIT(vdev->attr.max_cq_depth_log2))
		return -EINVAL;
	/*
	 * A user CQ's ring is the process's when it asks (issue 31, mapped
	 * rings: it polls and arms it itself); otherwise it stays in the
	 * kernel and the process polls and arms it through uverbs commands
	 * (POLL_CQ, REQ_NOTIFY_CQ).
	 */
	cq->mapped = false;
	if (udata) {
		err = vroce_cq_ureq(vdev, udata, attr, &ureq, &cq->mapped);
		if (err)
			return err;
	}

	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	INIT_LIST_HEAD(&cq->sq_qps);
	INIT_LIST_HEAD(&cq->rq_qps);
	cq->zombie = vroce_ring_zombie_alloc(vdev);
	if (!cq->zombie)
		return -ENOMEM;
	err = vroce_cq_ring_create(vdev, cq, attr, udata, &ureq);
	if (err)
		goto err_free_zombie;
	err = vroce_cmd_create_cq(vdev, &cq->ring, cq->dbrec.dma, &cq->cqn);
	if (err == -ETIMEDOUT) {
		/* The HCA may hold the ring under a CQN never learnt. */
		vroce_cq_park(vdev, cq);
		return err;
	}
	if (err)
		goto err_destroy_mtr;
	if (udata) {
		struct vroce_create_cq_resp uresp = {
			.comp_mask = cq->mapped ? VROCE_CREATE_CQ_MAPPED : 0,
			.cqn = cq->cqn,
		};

		err = vroce_udata_out(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy_cq;
	}
	err = vroce_inject(vdev) ? -ENOMEM :
	      xa_insert(&vdev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy_cq;
	ibcq->cqe = BIT(cq->ring.log2);
	return 0;

err_destroy_cq:
	if (vroce_cmd_destroy_cq_fenced(vdev, cq->cqn, cq->mapped)) {
		vroce_cq_park(vdev, cq);
		return err;
	}
err_destroy_mtr:
	vroce_cq_ring_destroy(vdev, cq);
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

	err = vroce_cmd_destroy_cq_fenced(vdev, cq->cqn, cq->mapped);
	/* Events written until the HCA let go are dropped now. */
	vroce_eq_forget(vdev, NULL, 0);
	if (!vroce_cmd_let_go(err)) {
		/* The core frees @cq regardless; the ring stays with the HCA. */
		ibdev_warn_ratelimited(ibcq->device, "DESTROY_CQ %u failed (%d)\n",
				       cq->cqn, err);
		vroce_cq_park(vdev, cq);
		return;
	}
	vroce_cq_ring_destroy(vdev, cq);
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
	return vroce_ring_written(&cq->ring, n);
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
	[VROCE_CQE_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
};

static const enum ib_wc_opcode vroce_wc_opcode[] = {
	[VROCE_CQE_SEND] = IB_WC_SEND,
	[VROCE_CQE_WRITE] = IB_WC_RDMA_WRITE,
	[VROCE_CQE_READ] = IB_WC_RDMA_READ,
	[VROCE_CQE_REG_MR] = IB_WC_REG_MR,
	[VROCE_CQE_LOCAL_INV] = IB_WC_LOCAL_INV,
	[VROCE_CQE_RECV] = IB_WC_RECV,
	[VROCE_CQE_RECV_WRITE_IMM] = IB_WC_RECV_RDMA_WITH_IMM,
	[VROCE_CQE_COMP_SWAP] = IB_WC_COMP_SWAP,
	[VROCE_CQE_FETCH_ADD] = IB_WC_FETCH_ADD,
	[VROCE_CQE_ATOMIC_WRITE] = VROCE_IB_WC_ATOMIC_WRITE,
	[VROCE_CQE_BIND_MW] = IB_WC_BIND_MW,
};

/*
 * Turn a CQE of @cq into a work completion; false to skip it: its QP is
 * gone (its number is taken but has no QP, or none), or the QP of that
 * number completes that queue on another CQ, so it is not the CQE's.
 */
static bool vroce_cqe_to_wc(struct vroce_dev *vdev, struct vroce_cq *cq,
			    const struct vroce_cqe *cqe, struct ib_wc *wc)
{
	struct vroce_qp *qp = xa_load(&vdev->qps, le32_to_cpu(cqe->qpn));
	bool rq = cqe->flags & VROCE_CQE_F_RQ;

	if (!qp || (rq ? qp->ibqp.recv_cq : qp->ibqp.send_cq) != &cq->ibcq)
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
	/* A datagram: its GRH leads the data, as ib_mad and ib_cm expect. */
	if (cqe->flags & VROCE_CQE_F_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE |
				IB_WC_WITH_SMAC;
		wc->network_hdr_type = cqe->net_type == VROCE_NET_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
		ether_addr_copy(wc->smac, cqe->smac);
		wc->pkey_index = le16_to_cpu(cqe->pkey_index);
	}
	return true;
}

/*
 * A dead device: complete in software what @cq's QPs posted and the HCA
 * did not (vroce_qp_flush()); with @wc NULL, whether there is any. The
 * QPs in the CQ's lists stay while cq->lock is held: destroy_qp takes
 * them out under it.
 */
static int vroce_cq_flush(struct vroce_cq *cq, struct ib_wc *wc, int max)
{
	struct vroce_qp *qp;
	int got = 0;

	lockdep_assert_held(&cq->lock);
	list_for_each_entry(qp, &cq->sq_qps, sq_node) {
		if (wc ? got == max : got)
			return got;
		got += vroce_qp_flush(qp, false, wc ? wc + got : NULL, max - got);
	}
	list_for_each_entry(qp, &cq->rq_qps, rq_node) {
		if (wc ? got == max : got)
			return got;
		got += vroce_qp_flush(qp, true, wc ? wc + got : NULL, max - got);
	}
	return got;
}

int vroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	const struct vroce_cqe *cqe;
	unsigned long flags;
	u32 start;
	int n = 0;

	/*
	 * issue 31: a mapped CQ's ring is the process's, which polls it
	 * itself; uverbs' POLL_CQ (an old or broken provider) is refused.
	 */
	if (cq->mapped)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	/* The HCA may be copying the ring: its CQEs come after the switch. */
	if (unlikely(cq->resizing)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return 0;
	}
	start = cq->ci;
	while (n < num_entries) {
		cqe = vroce_cq_written(cq, cq->ci);
		if (!cqe)
			break;
		cq->ci++;
		if (vroce_cqe_to_wc(vdev, cq, cqe, &wc[n]))
			n++;
	}
	/* Slots are handed back only once read. */
	if (cq->ci != start)
		vroce_cq_doorbell(cq, VROCE_HW_CQ_NO_ARM);
	/* What the HCA wrote comes first, then what it never will. */
	if (unlikely(vroce_dev_dead(vdev)) && n < num_entries)
		n += vroce_cq_flush(cq, wc + n, num_entries - n);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/* vroce_cq_clean() on the ring @cq has now, under cq->lock. */
static void vroce_cq_clean_locked(struct vroce_cq *cq, u32 qpn)
{
	struct vroce_cqe *cqe;
	u32 n;

	lockdep_assert_held(&cq->lock);
	for (n = cq->ci; n - cq->ci < BIT(cq->ring.log2); n++) {
		cqe = vroce_cq_written(cq, n);
		if (!cqe)
			break;
		if (le32_to_cpu(cqe->qpn) == qpn)
			cqe->qpn = 0;
	}
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
	unsigned long flags;

	/* issue 31: the process cleans its own ring (its provider does). */
	if (cq->mapped)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	/* CQEs the HCA copies to a new ring meanwhile are cleaned there. */
	if (unlikely(cq->resizing) && qpn >= VROCE_QPN_BASE &&
	    qpn - VROCE_QPN_BASE < VROCE_MAX_QP)
		__set_bit(qpn - VROCE_QPN_BASE, cq->resize_clean);
	vroce_cq_clean_locked(cq, qpn);
	spin_unlock_irqrestore(&cq->lock, flags);
}

int vroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	WRITE_ONCE(cq->armed, true);
	/*
	 * issue 31: a mapped CQ's consumer index is in its record, which
	 * the HCA reads; the doorbell only arms (its index is ignored).
	 * Whether CQEs wait is the process's to see, by polling after.
	 */
	if (cq->mapped) {
		if (likely(!vroce_dev_dead(vdev)))
			vroce_cq_doorbell(cq, (flags & IB_CQ_SOLICITED_MASK) ==
					      IB_CQ_SOLICITED ?
					      VROCE_HW_CQ_ARM_SOLICITED :
					      VROCE_HW_CQ_ARM_NEXT);
		spin_unlock_irqrestore(&cq->lock, irqflags);
		/*
		 * Dead: the process flushes its work requests itself
		 * (vroce_cq_mark_dead()); the flush work calls the handler.
		 */
		if (unlikely(vroce_dev_dead(vdev)))
			queue_work(system_unbound_wq, &vdev->flush_work);
		return 0;
	}
	/* No doorbell carries the old ring's index now: armed after. */
	if (unlikely(cq->resizing)) {
		/* Armed for any CQE is the wider of the two. */
		if ((flags & IB_CQ_SOLICITED_MASK) != IB_CQ_SOLICITED)
			cq->resize_arm = VROCE_HW_CQ_ARM_NEXT;
		else if (cq->resize_arm == VROCE_HW_CQ_NO_ARM)
			cq->resize_arm = VROCE_HW_CQ_ARM_SOLICITED;
		spin_unlock_irqrestore(&cq->lock, irqflags);
		/* What the new ring will hold is not known yet: poll again. */
		return !!(flags & IB_CQ_REPORT_MISSED_EVENTS);
	}
	/* A dead HCA writes no event: the next flush calls the handler. */
	if (unlikely(vroce_dev_dead(vdev))) {
		if (flags & IB_CQ_REPORT_MISSED_EVENTS)
			missed = vroce_cq_written(cq, cq->ci) ||
				 vroce_cq_flush(cq, NULL, 0);
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return missed;
	}
	vroce_cq_doorbell(cq, (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
			      VROCE_HW_CQ_ARM_SOLICITED : VROCE_HW_CQ_ARM_NEXT);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		missed = !!vroce_cq_written(cq, cq->ci);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/* ---- issue 30, cq/counters: resize_cq ---- */

/*
 * Polling and arming stop for the RESIZE_CQ command; @ci is what the
 * consumer polled, which the HCA copies from.
 */
VISIBLE_IF_KUNIT u32 vroce_cq_resize_begin(struct vroce_cq *cq)
{
	unsigned long flags;
	u32 ci;

	spin_lock_irqsave(&cq->lock, flags);
	cq->resizing = true;
	cq->resize_arm = VROCE_HW_CQ_NO_ARM;
	bitmap_zero(cq->resize_clean, VROCE_MAX_QP);
	ci = cq->ci;
	spin_unlock_irqrestore(&cq->lock, flags);
	return ci;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cq_resize_begin);

/*
 * Polling and arming go on: on the new ring @ring, from its first CQE,
 * when the HCA took it (@*ring becomes the old ring, to be freed), else on
 * the old one. CQEs of QPs cleaned meanwhile are cleaned in the copy.
 */
VISIBLE_IF_KUNIT void vroce_cq_resize_end(struct vroce_cq *cq,
					  struct vroce_ring *ring, bool taken)
{
	struct vroce_ring old;
	unsigned long flags;
	u32 bit;

	spin_lock_irqsave(&cq->lock, flags);
	cq->resizing = false;
	if (taken) {
		old = cq->ring;
		cq->ring = *ring;
		*ring = old;
		cq->ci = 0;
		for_each_set_bit(bit, cq->resize_clean, VROCE_MAX_QP)
			vroce_cq_clean_locked(cq, bit + VROCE_QPN_BASE);
	}
	/* The HCA's index is 0 now; an arm asked for meanwhile goes too. */
	vroce_cq_doorbell(cq, cq->resize_arm);
	spin_unlock_irqrestore(&cq->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cq_resize_end);

/* CQEs written and not polled, stopping at @max; under cq->lock. */
static u32 vroce_cq_outstanding(struct vroce_cq *cq, u32 max)
{
	u32 n = 0;

	lockdep_assert_held(&cq->lock);
	while (n <= max && n < BIT(cq->ring.log2) &&
	       vroce_cq_written(cq, cq->ci + n))
		n++;
	return n;
}

/*
 * issue 31: resize_cq of a mapped CQ. The new ring is the process's
 * (struct vroce_resize_cq, checked as CREATE_CQ checks a ring); the CQEs
 * the process has not consumed are those past the record's ci, read once
 * here and checked by the HCA (a count the CQ never had, or more CQEs
 * outstanding than @entries, is -EINVAL). The HCA sets the record's ci
 * to 0 as it switches. The process polls nothing meanwhile.
 */
static int vroce_resize_cq_mapped(struct vroce_dev *vdev, struct vroce_cq *cq,
				  int entries, struct ib_udata *udata)
{
	struct vroce_ring_zombie *zombie;
	struct vroce_resize_cq ureq;
	struct vroce_ring ring = {};
	u32 ci, copied;
	int err;

	if (!udata)
		return -EINVAL;
	err = vroce_udata_in(udata, &ureq, sizeof(ureq));
	if (err)
		return err;
	if (ureq.comp_mask & ~VROCE_RESIZE_CQ_MAPPED)
		return -EOPNOTSUPP;
	if (ureq.reserved || ureq.reserved2 ||
	    !(ureq.comp_mask & VROCE_RESIZE_CQ_MAPPED))
		return -EINVAL;
	if (entries < 1 || entries > BIT(vdev->attr.max_cq_depth_log2))
		return -EINVAL;
	err = vroce_map_check_ring(vdev, ureq.buf_addr, ureq.depth,
				   VROCE_CQE_SIZE, entries,
				   vdev->attr.max_cq_depth_log2);
	if (err)
		return err;

	mutex_lock(&cq->resize_mutex);
	zombie = vroce_ring_zombie_alloc(vdev);
	if (!zombie) {
		err = -ENOMEM;
		goto out_unlock;
	}
	err = vroce_ring_create_user(vdev, &ring, ilog2(ureq.depth),
				     VROCE_CQE_SIZE, udata, ureq.buf_addr);
	if (err)
		goto err_free_zombie;
	/* The process's count, read once: the HCA refuses a bad one. */
	ci = le32_to_cpu(READ_ONCE(*(__le32 *)cq->dbrec.va));
	vroce_cq_resize_begin(cq);
	err = vroce_cmd_resize_cq_want(vdev, cq->cqn, &ring, ci, entries,
				       &copied);
	vroce_cq_resize_end(cq, &ring, !err);
	if (err == -ETIMEDOUT) {
		vroce_ring_zombie(vdev, zombie, &ring, NULL);
		goto out_unlock;
	}
	if (err)
		goto err_destroy_ring;
	cq->ibcq.cqe = ureq.depth;
err_destroy_ring:
	/* The old ring on success, which the HCA let go of; else the new. */
	vroce_ring_destroy(vdev, &ring);
err_free_zombie:
	vroce_ring_zombie_free(vdev, zombie);
out_unlock:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

/**
 * vroce_resize_cq() - give a CQ a ring of another size
 * @ibcq: the CQ
 * @entries: CQEs it must hold at least; rounded up to a power of two
 * @udata: a process's resize: no driver data (what there is must be
 *	zero), but for a mapped CQ (issue 31): its new ring,
 *	vroce_resize_cq_mapped()
 *
 * The new ring is an MTR like the old. RESIZE_CQ has the HCA copy the
 * CQEs not yet polled to the start of the new ring, in order, and write
 * every later CQE behind them, so the consumer loses none and sees none
 * twice; polling finds nothing while the command is out (a short wait,
 * not a loss). The old ring is freed once the HCA confirmed it let go of
 * it; when the command is lost, the new ring is parked until the HCA is
 * reset (the HCA may write either) and the CQ keeps the old one.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for @entries below 1, above the device's most, or
 * below the CQEs outstanding (the HCA counts those owed for work already
 * posted too); -EOPNOTSUPP for driver data that is not
 * zero; -ENOMEM; or an error of RESIZE_CQ (vroce_cmd_resize_cq()): the CQ
 * is then unchanged.
 */
int vroce_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	struct vroce_ring_zombie *zombie;
	struct vroce_ring ring = {};
	unsigned long flags;
	u32 log2, ci, copied, busy;
	int err;

	/* issue 31: a mapped CQ's provider passes the new ring. */
	if (cq->mapped)
		return vroce_resize_cq_mapped(vdev, cq, entries, udata);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (entries < 1 || entries > BIT(vdev->attr.max_cq_depth_log2))
		return -EINVAL;
	log2 = entries > 2 ? order_base_2(entries) : 1;

	mutex_lock(&cq->resize_mutex);
	spin_lock_irqsave(&cq->lock, flags);
	busy = vroce_cq_outstanding(cq, BIT(log2));
	spin_unlock_irqrestore(&cq->lock, flags);
	/* As mlx5 and rxe: what is outstanding must fit (the HCA checks too). */
	if (busy > BIT(log2)) {
		err = -EINVAL;
		goto out_unlock;
	}
	err = 0;
	if (log2 == cq->ring.log2)
		goto out_unlock;

	zombie = vroce_ring_zombie_alloc(vdev);
	if (!zombie) {
		err = -ENOMEM;
		goto out_unlock;
	}
	err = vroce_ring_create(vdev, &ring, log2, VROCE_CQE_SIZE, 0);
	if (err)
		goto err_free_zombie;

	ci = vroce_cq_resize_begin(cq);
	err = vroce_cmd_resize_cq(vdev, cq->cqn, &ring, ci, &copied);
	vroce_cq_resize_end(cq, &ring, !err);
	if (err == -ETIMEDOUT) {
		/* The HCA may write the new ring: it stays until the reset. */
		vroce_ring_zombie(vdev, zombie, &ring, NULL);
		goto out_unlock;
	}
	if (err)
		goto err_destroy_ring;
	/* @ring is the old ring now, which the HCA let go of. */
	ibcq->cqe = BIT(log2);
	vroce_ring_destroy(vdev, &ring);
	vroce_ring_zombie_free(vdev, zombie);
	mutex_unlock(&cq->resize_mutex);
	return 0;

err_destroy_ring:
	vroce_ring_destroy(vdev, &ring);
err_free_zombie:
	vroce_ring_zombie_free(vdev, zombie);
out_unlock:
	mutex_unlock(&cq->resize_mutex);
	return err;
}
