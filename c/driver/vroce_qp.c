// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: queue pairs, RC, UD and GSI (Documentation/datapath.rst).
 *
 * Each QP has a send and a receive ring, kernel-buffer MTRs the HCA reads
 * by DMA address. post_send()/post_recv() write WQEs into the ring and ring
 * the QP's doorbell with one register write: no command, no sleeping, no
 * allocation. The state machine is the core's (ib_modify_qp_is_ok()); the
 * HCA is told each new state with MODIFY_QP.
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/sched/stat.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"
#include "../../bindings/vroce_core.h"

static bool vroce_wq_full(const struct vroce_wq *wq)
{
	return wq->pi - wq->ci >= BIT(wq->ring.log2);
}

static int vroce_wq_init(struct vroce_dev *vdev, struct vroce_wq *wq,
			 u32 max_wr, u32 wqe_size, u32 max_sge)
{
	wq->max_sge = max_sge;
	wq->pi = 0;
	wq->ci = 0;
	spin_lock_init(&wq->lock);
	/* At least two entries, so that a ring always has a phase to flip. */
	return vroce_ring_create(vdev, &wq->ring,
				 max_wr > 2 ? order_base_2(max_wr) : 1,
				 wqe_size, 0);
}

static int vroce_qp_check_init(struct vroce_dev *vdev,
			       const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;
	u32 max_wr = BIT(vdev->attr.max_wq_depth_log2);

	if ((init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UD &&
	     init->qp_type != IB_QPT_GSI && init->qp_type != IB_QPT_UC) ||
	    init->create_flags)
		return -EOPNOTSUPP;
	/* UC QPs: an HCA that offers them; their receives are their own. */
	if (init->qp_type == IB_QPT_UC &&
	    (!(vdev->attr.caps & VROCE_CAP_UC) || init->srq))
		return -EOPNOTSUPP;
	/* RC and UD QPs may take their receives from an SRQ of this device. */
	if (init->srq && (init->qp_type == IB_QPT_GSI ||
			  init->srq->device != &vdev->ibdev))
		return -EINVAL;
	if (init->qp_type == IB_QPT_GSI && init->port_num != 1)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	/* With an SRQ the receive capabilities are ignored, as upstream. */
	if (cap->max_send_wr > max_wr ||
	    (!init->srq && cap->max_recv_wr > max_wr) ||
	    cap->max_send_sge > VROCE_MAX_SEND_SGE ||
	    (!init->srq && cap->max_recv_sge > VROCE_MAX_RECV_SGE) ||
	    cap->max_inline_data > VROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

/*
 * QP numbers. The driver chooses them (CREATE_QP carries the number, as
 * hns and mlx4 do), in turn (xa_alloc_cyclic()), and gives one again only
 * when nothing of its last QP can reach a new one: &vroce_dev.qps keeps
 * the number taken (a NULL entry) from the moment vroce_destroy_qp() takes
 * the QP out of the table until the HCA has let go of it, the CQs hold
 * none of its CQEs and every event queued for it has been consumed
 * (vroce_eq_release_qpn()). A number the HCA may still use (CREATE_QP or
 * DESTROY_QP lost, or CREATE_QP refused as BUSY: the HCA holds a QP under
 * it) is never given again. The core's restrack frees its entry for the
 * number only after destroy_qp returns: a create that gets the number in
 * between, which cyclic allocation makes rare (every other number must
 * have been given since), is not tracked there (rdma_restrack_add()).
 */
static_assert(VROCE_GSI_QPN == VROCE_QPN_BASE);

static int vroce_qpn_alloc(struct vroce_dev *vdev, enum ib_qp_type type,
			   u32 *qpn)
{
	int err;

	if (vroce_inject(vdev))
		return -ENOMEM;
	if (type == IB_QPT_GSI) {
		*qpn = VROCE_GSI_QPN;
		return xa_insert(&vdev->qps, VROCE_GSI_QPN, NULL, GFP_KERNEL);
	}
	/* As many as the HCA says it has (QUERY_DEVICE), GSI included. */
	err = xa_alloc_cyclic(&vdev->qps, qpn, NULL,
			      XA_LIMIT(VROCE_GSI_QPN + 1, VROCE_QPN_BASE - 1 +
				       min_t(u32, vdev->attr.max_qp, VROCE_MAX_QP)),
			      &vdev->qpn_next, GFP_KERNEL);
	if (err == -EBUSY)
		return -ENOMEM;		/* every number is taken */
	return err < 0 ? err : 0;
}

/* @node into @list, or out of it, under @cq's lock. */
static void vroce_qp_link(struct vroce_cq *cq, struct list_head *node,
			  struct list_head *list, bool attach)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (attach)
		list_add_tail(node, list);
	else
		list_del(node);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/*
 * Into its CQs' lists, or out (a dead device's pollers flush the QPs
 * there): under each CQ's lock, so that a poller holding it sees the QP
 * whole or not at all.
 */
static void vroce_qp_attach(struct vroce_qp *qp, bool attach)
{
	struct vroce_cq *scq = to_vroce_cq(qp->ibqp.send_cq);
	struct vroce_cq *rcq = to_vroce_cq(qp->ibqp.recv_cq);

	vroce_qp_link(scq, &qp->sq_node, &scq->sq_qps, attach);
	vroce_qp_link(rcq, &qp->rq_node, &rcq->rq_qps, attach);
}

/* ---- issue 31: mapped rings ---- */

/* Whether [@a, @a + @alen) and [@b, @b + @blen) share a byte. */
static bool vroce_ranges_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * The driver data of a process's CREATE_QP: 0 with @*mapped set for a
 * mapped QP, every field checked (Documentation/badinput.rst), else the
 * kernel's rings as before. A mapped QP completes to mapped CQs, a QP that
 * is not to CQs that are not (the kernel learns a QP's progress only from
 * the CQEs it polls). Either may take receives from any SRQ: the slots of
 * an SRQ come free by its WQEs' srq_done, not by CQEs.
 */
static int vroce_qp_ureq(struct vroce_dev *vdev, struct ib_udata *udata,
			 const struct ib_qp_init_attr *init,
			 struct vroce_create_qp *ureq, bool *mapped)
{
	u32 max_log2 = vdev->attr.max_wq_depth_log2;
	bool cq_mapped;
	int err;

	*mapped = false;
	err = vroce_udata_in(udata, ureq, sizeof(*ureq));
	if (err)
		return err;
	if (ureq->comp_mask & ~VROCE_CREATE_QP_MAPPED)
		return -EOPNOTSUPP;
	if (ureq->reserved)
		return -EINVAL;
	cq_mapped = init->send_cq && init->recv_cq &&
		    to_vroce_cq(init->send_cq)->mapped;
	if (!(ureq->comp_mask & VROCE_CREATE_QP_MAPPED)) {
		if (ureq->sq_buf_addr || ureq->rq_buf_addr || ureq->dbrec_addr ||
		    ureq->sq_depth || ureq->rq_depth)
			return -EINVAL;
		if (cq_mapped || (init->recv_cq &&
				  to_vroce_cq(init->recv_cq)->mapped))
			return -EINVAL;
		return 0;
	}
	if (!(vdev->attr.caps & VROCE_CAP_MAPPED))
		return -EOPNOTSUPP;
	/* uverbs creates no GSI QP; UD, UC and RC are mapped alike. */
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!cq_mapped || !init->recv_cq || !to_vroce_cq(init->recv_cq)->mapped)
		return -EINVAL;
	*mapped = true;
	err = vroce_map_check_ring(vdev, ureq->sq_buf_addr, ureq->sq_depth,
				   VROCE_SEND_WQE_SIZE, init->cap.max_send_wr,
				   max_log2);
	if (err)
		return err;
	/* No receive ring exactly when the receives are an SRQ's. */
	if (init->srq)
		return ureq->rq_buf_addr || ureq->rq_depth ? -EINVAL : 0;
	err = vroce_map_check_ring(vdev, ureq->rq_buf_addr, ureq->rq_depth,
				   VROCE_RECV_WQE_SIZE, init->cap.max_recv_wr,
				   max_log2);
	if (err)
		return err;
	if (vroce_ranges_overlap(ureq->sq_buf_addr,
				 (u64)ureq->sq_depth * VROCE_SEND_WQE_SIZE,
				 ureq->rq_buf_addr,
				 (u64)ureq->rq_depth * VROCE_RECV_WQE_SIZE))
		return -EINVAL;
	return 0;
}

/*
 * A mapped QP's rings and record: pinned from the process's memory, as
 * vroce_ureq() checked them; undone by vroce_qp_rings_destroy().
 */
static int vroce_qp_rings_create_user(struct vroce_dev *vdev,
				      struct vroce_qp *qp,
				      const struct vroce_create_qp *ureq,
				      struct ib_udata *udata)
{
	int err;

	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->sq.max_sge = VROCE_MAX_SEND_SGE;
	qp->rq.max_sge = VROCE_MAX_RECV_SGE;
	err = vroce_dbrec_get(vdev, ureq->dbrec_addr, &qp->dbrec);
	if (err)
		return err;
	err = vroce_ring_create_user(vdev, &qp->sq.ring, ilog2(ureq->sq_depth),
				     VROCE_SEND_WQE_SIZE, udata,
				     ureq->sq_buf_addr);
	if (err)
		goto err_put_dbrec;
	if (qp->srq)
		return 0;
	err = vroce_ring_create_user(vdev, &qp->rq.ring, ilog2(ureq->rq_depth),
				     VROCE_RECV_WQE_SIZE, udata,
				     ureq->rq_buf_addr);
	if (err)
		goto err_destroy_sq;
	return 0;

err_destroy_sq:
	vroce_ring_destroy(vdev, &qp->sq.ring);
err_put_dbrec:
	vroce_dbrec_put(vdev, &qp->dbrec);
	return err;
}

static void vroce_qp_rings_destroy(struct vroce_dev *vdev, struct vroce_qp *qp)
{
	vroce_ring_destroy(vdev, &qp->rq.ring);
	vroce_ring_destroy(vdev, &qp->sq.ring);
	vroce_dbrec_put(vdev, &qp->dbrec);
}

/* The HCA may still use the rings and record: they stay until its reset. */
static void vroce_qp_park(struct vroce_dev *vdev, struct vroce_qp *qp)
{
	qp->zombie->dbrec = qp->dbrec;
	vroce_ring_zombie(vdev, qp->zombie, &qp->sq.ring, &qp->rq.ring);
}

int vroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_qp_desc desc = {};
	struct vroce_create_qp ureq = {};
	u32 qpn;
	int err;

	err = vroce_qp_check_init(vdev, init);
	if (err)
		return err;
	/* uverbs creates no GSI QP; ib_mad creates the port's one. */
	if (udata && init->qp_type == IB_QPT_GSI)
		return -EINVAL;
	/*
	 * A user QP's rings are the process's when it asks (issue 31,
	 * mapped rings: it posts with no system call but the send
	 * doorbell). Otherwise they stay in the kernel: the process posts
	 * through uverbs commands (POST_SEND, POST_RECV), which copy the
	 * work requests in; its inline data stays behind the process's
	 * addresses and is copied in by post_send (vroce_user_inline_in()).
	 */
	qp->mapped = false;
	memset(&qp->dbrec, 0, sizeof(qp->dbrec));
	if (udata) {
		err = vroce_qp_ureq(vdev, udata, init, &ureq, &qp->mapped);
		if (err)
			return err;
	}

	qp->type = init->qp_type == IB_QPT_RC ? VROCE_QPT_RC :
		   init->qp_type == IB_QPT_UD ? VROCE_QPT_UD :
		   init->qp_type == IB_QPT_UC ? VROCE_QPT_UC : VROCE_QPT_GSI;
	mutex_init(&qp->state_lock);
	init_waitqueue_head(&qp->handoff_wq);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->user = !!udata;
	/* All the WQE holds, whatever was asked (as rxe): the send WQE's. */
	qp->max_inline = VROCE_MAX_INLINE;
	qp->zombie = vroce_ring_zombie_alloc(vdev);
	if (!qp->zombie)
		return -ENOMEM;
	qp->srq = init->srq ? to_vroce_srq(init->srq) : NULL;
	if (qp->mapped) {
		err = vroce_qp_rings_create_user(vdev, qp, &ureq, udata);
		if (err)
			goto err_free_zombie;
		goto described;
	}
	err = vroce_wq_init(vdev, &qp->sq, init->cap.max_send_wr,
			    VROCE_SEND_WQE_SIZE, VROCE_MAX_SEND_SGE);
	if (err)
		goto err_free_zombie;
	/* A QP attached to an SRQ has no receive ring of its own. */
	if (init->srq) {
		spin_lock_init(&qp->rq.lock);
		qp->rq.pi = 0;
		qp->rq.ci = 0;
	} else {
		err = vroce_wq_init(vdev, &qp->rq, init->cap.max_recv_wr,
				    VROCE_RECV_WQE_SIZE, VROCE_MAX_RECV_SGE);
		if (err)
			goto err_destroy_sq;
	}

described:
	desc.pdn = to_vroce_pd(ibqp->pd)->pdn;
	desc.scqn = to_vroce_cq(init->send_cq)->cqn;
	desc.rcqn = to_vroce_cq(init->recv_cq)->cqn;
	desc.sq = &qp->sq.ring;
	desc.rq = qp->srq ? NULL : &qp->rq.ring;
	desc.srqn = qp->srq ? qp->srq->srqn : 0;
	desc.sq_sig_all = qp->sq_sig_all;
	desc.type = qp->type;
	/*
	 * A process's QP: the HCA refuses its privileged work requests
	 * itself, and the driver no longer filters them (vroce_wqe_build()).
	 * An HCA without VROCE_CAP_UNPRIV_QP leaves that to the driver.
	 */
	desc.unpriv = (udata || (IS_ENABLED(CONFIG_KUNIT) && vdev->kunit_unpriv)) &&
		      (vdev->attr.caps & VROCE_CAP_UNPRIV_QP);
	err = vroce_qpn_alloc(vdev, init->qp_type, &qpn);
	if (err)
		goto err_destroy_rq;
	desc.qpn = qpn;
	err = vroce_cmd_create_qp(vdev, &desc);
	if (err == -ETIMEDOUT) {
		/* The HCA may hold the rings under that number: both stay. */
		vroce_qp_park(vdev, qp);
		return err;
	}
	/* The HCA holds a QP under that number: it must not be given out. */
	if (err == -EBUSY)
		goto err_destroy_rq;
	if (err)
		goto err_free_qpn;
	ibqp->qp_num = qpn;
	/* issue 31: CREATE_QP has no room for the record; it comes next. */
	if (qp->mapped) {
		err = vroce_cmd_qp_dbrec(vdev, qpn, qp->dbrec.dma);
		if (err)
			goto err_destroy_qp;
	}
	if (udata) {
		struct vroce_create_qp_resp uresp = {
			.comp_mask = qp->mapped ? VROCE_CREATE_QP_MAPPED : 0,
			.qpn = qpn,
			.sq_depth = BIT(qp->sq.ring.log2),
			.rq_depth = qp->srq ? 0 : BIT(qp->rq.ring.log2),
		};

		err = vroce_udata_out(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy_qp;
	}
	/* The number is taken: this only fills its entry in. */
	err = xa_err(xa_store(&vdev->qps, qpn, qp, GFP_KERNEL));
	if (err)
		goto err_destroy_qp;
	vroce_qp_attach(qp, true);

	init->cap.max_send_wr = BIT(qp->sq.ring.log2);
	init->cap.max_recv_wr = qp->srq ? 0 : BIT(qp->rq.ring.log2);
	init->cap.max_send_sge = VROCE_MAX_SEND_SGE;
	init->cap.max_recv_sge = qp->srq ? 0 : VROCE_MAX_RECV_SGE;
	init->cap.max_inline_data = qp->max_inline;
	return 0;

err_destroy_qp:
	if (vroce_cmd_destroy_qp_fenced(vdev, qpn, qp->mapped)) {
		/* The HCA may still use the rings and the number. */
		vroce_qp_park(vdev, qp);
		return err;
	}
err_free_qpn:
	/* Never published, in RESET: no CQE or event can name it. */
	xa_erase(&vdev->qps, qpn);
err_destroy_rq:
	if (qp->mapped) {
		vroce_qp_rings_destroy(vdev, qp);
		goto err_free_zombie;
	}
	vroce_ring_destroy(vdev, &qp->rq.ring);
err_destroy_sq:
	vroce_ring_destroy(vdev, &qp->sq.ring);
err_free_zombie:
	vroce_ring_zombie_free(vdev, qp->zombie);
	return err;
}

static u32 vroce_qp_hca_state(enum ib_qp_state state)
{
	switch (state) {
	case IB_QPS_RESET:
		return VROCE_QPS_RESET;
	case IB_QPS_INIT:
		return VROCE_QPS_INIT;
	case IB_QPS_RTR:
		return VROCE_QPS_RTR;
	case IB_QPS_RTS:
		return VROCE_QPS_RTS;
	default:
		return VROCE_QPS_ERR;
	}
}

/*
 * A RoCE address vector on this port (the core has checked the source
 * GID). The HCA finds the peer by the destination MAC: the port's own is
 * loopback.
 */
static int vroce_qp_check_av(const struct rdma_ah_attr *ah)
{
	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(ah) != 1)
		return -EINVAL;
	return 0;
}

static int vroce_qp_check_attr(const struct ib_qp_attr *attr, int mask,
			       bool odp)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	/* QP numbers are 24 bits on the wire. */
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) && attr->path_mtu > IB_MTU_4096)
		return -EINVAL;
	if (((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7) ||
	    ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7) ||
	    ((mask & IB_QP_TIMEOUT) && attr->timeout > 31) ||
	    ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > VROCE_MAX_INIT_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > VROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	/*
	 * Issue 33: IB_ACCESS_ON_DEMAND is an MR's flag, which consumers
	 * (pyverbs' test_odp) pass to their QPs too: taken and ignored
	 * where the device offers ODP, as mlx5 and rxe take it.
	 */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       (odp ? IB_ACCESS_ON_DEMAND : 0))))
		return -EINVAL;
	if (mask & IB_QP_AV)
		return vroce_qp_check_av(&attr->ah_attr);
	return 0;
}

/* Keep what modify_qp was given, for query_qp and later transitions. */
static void vroce_qp_store_attr(struct vroce_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* No reference is kept: the core holds the QP's own. */
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
}

/* Make pollers skip what @qp's CQs still hold of it. */
static void vroce_qp_clean_cqs(struct vroce_qp *qp)
{
	vroce_cq_clean(to_vroce_cq(qp->ibqp.send_cq), qp->ibqp.qp_num);
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		vroce_cq_clean(to_vroce_cq(qp->ibqp.recv_cq), qp->ibqp.qp_num);
}

static void vroce_wq_reset(struct vroce_wq *wq)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	wq->pi = 0;
	wq->ci = 0;
	spin_unlock_irqrestore(&wq->lock, flags);
}

/*
 * Issue 34: the parts of the path and PSNs this modify sets, for an HCA
 * with VROCE_CAP_QP_PATH (and a GID table, whose entry the path names).
 * Each part goes whole from what the QP holds, but only when the modify
 * names it: an RTS to RTS change of the timeout moves no PSN.
 */
static void vroce_qp_path_desc(struct vroce_dev *vdev,
			       const struct vroce_qp *qp, int mask,
			       struct vroce_qp_modify_desc *desc)
{
	const struct ib_qp_attr *a = &qp->attr;
	const struct ib_global_route *grh = &a->ah_attr.grh;
	bool connected = qp->type == VROCE_QPT_RC || qp->type == VROCE_QPT_UC;
	u32 need = VROCE_CAP_QP_PATH | VROCE_CAP_GID_TABLE;

	if ((vdev->attr.caps & need) != need)
		return;
	if (mask & IB_QP_SQ_PSN) {
		desc->flags |= VROCE_MODIFY_F_SQ_PSN;
		desc->sq_psn = a->sq_psn & VROCE_PSN_MASK;
	}
	if (!connected)
		return;
	if (mask & IB_QP_RQ_PSN) {
		desc->flags |= VROCE_MODIFY_F_RQ_PSN;
		desc->rq_psn = a->rq_psn & VROCE_PSN_MASK;
	}
	if (qp->type == VROCE_QPT_RC &&
	    (mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC))) {
		desc->flags |= VROCE_MODIFY_F_RD_ATOMIC;
		desc->max_rd_atomic = min_t(u8, a->max_rd_atomic,
					    VROCE_MAX_RD_ATOMIC);
		desc->max_dest_rd_atomic = a->max_dest_rd_atomic;
	}
	/* The AV and the MTU come together at RTR (ib_modify_qp_is_ok()). */
	if ((mask & (IB_QP_AV | IB_QP_PATH_MTU)) &&
	    (rdma_ah_get_ah_flags(&a->ah_attr) & IB_AH_GRH) && a->path_mtu) {
		desc->flags |= VROCE_MODIFY_F_PATH;
		desc->path_mtu = a->path_mtu;
		desc->sgid_index = grh->sgid_index;
		desc->hop_limit = grh->hop_limit;
		desc->tclass = grh->traffic_class;
		desc->flow_label = grh->flow_label & VROCE_FLOW_LABEL_MASK;
		memcpy(desc->dgid, grh->dgid.raw, sizeof(desc->dgid));
	}
}

int vroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_qp_modify_desc desc = { .qpn = ibqp->qp_num };
	enum ib_qp_state seen, cur, next;
	struct ib_qp_attr saved;
	bool last_wqe = false;
	u32 acc = 0;
	int err;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	mutex_lock(&qp->state_lock);
	seen = READ_ONCE(qp->state);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : seen;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	err = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		goto out;
	/* SQ drain (SQD) is optional and not implemented by the HCA. */
	err = -EOPNOTSUPP;
	if (next == IB_QPS_SQD || next == IB_QPS_SQE)
		goto out;
	err = vroce_qp_check_attr(attr, mask,
				  vroce_odp_supported(to_vroce_dev(ibqp->device)));
	if (err)
		goto out;

	/* The HCA gets the whole set; it is kept only once the HCA took it. */
	saved = qp->attr;
	vroce_qp_store_attr(qp, attr, mask);
	if (qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE)
		acc |= VROCE_ACC_REMOTE_WRITE;
	if (qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ)
		acc |= VROCE_ACC_REMOTE_READ;
	if (qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)
		acc |= VROCE_ACC_REMOTE_ATOMIC;
	desc.state = vroce_qp_hca_state(next);
	desc.dest_qpn = qp->attr.dest_qp_num;
	desc.access = acc;
	desc.rnr_retry = qp->attr.rnr_retry;
	desc.min_rnr_timer = qp->attr.min_rnr_timer;
	desc.retry_cnt = qp->attr.retry_cnt;
	desc.timeout = qp->attr.timeout;
	desc.qkey = qp->attr.qkey;
	if (qp->type == VROCE_QPT_RC || qp->type == VROCE_QPT_UC)
		ether_addr_copy(desc.dmac, qp->attr.ah_attr.roce.dmac);
	vroce_qp_path_desc(vdev, qp, mask, &desc);

	err = vroce_cmd_modify_qp(vdev, &desc);
	if (err) {
		qp->attr = saved;
		/* The HCA found an error the driver has not polled yet. */
		if (err == -EBUSY) {
			WRITE_ONCE(qp->state, IB_QPS_ERR);
			err = -EINVAL;
		}
		/*
		 * Lost: the HCA may have moved the QP, or not. ERR is the state
		 * both agree leads on only through RESET.
		 */
		if (err == -ETIMEDOUT)
			WRITE_ONCE(qp->state, IB_QPS_ERR);
		goto out;
	}
	if (next == IB_QPS_RESET) {
		vroce_qp_clean_cqs(qp);
		vroce_wq_reset(&qp->sq);
		vroce_wq_reset(&qp->rq);
	}
	/* An error polled meanwhile wins over anything but RESET. */
	if (cmpxchg(&qp->state, seen, next) != seen && next == IB_QPS_RESET)
		WRITE_ONCE(qp->state, next);
	/*
	 * A dead HCA writes no LAST_WQE event, and ib_drain_qp() of a QP on
	 * an SRQ waits for one (60 s): the driver sends it once a move to ERR
	 * is done in software, as the HCA would, with no lock held (the
	 * handler may call the driver).
	 */
	last_wqe = next == IB_QPS_ERR && ibqp->srq &&
		   ibqp->event_handler && vroce_dev_dead(vdev);
out:
	mutex_unlock(&qp->state_lock);
	if (last_wqe) {
		struct ib_event ev = {
			.device = ibqp->device,
			.element.qp = ibqp,
			.event = IB_EVENT_QP_LAST_WQE_REACHED,
		};

		ibqp->event_handler(&ev, ibqp->qp_context);
	}
	return err;
}

int vroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);

	mutex_lock(&qp->state_lock);
	*attr = qp->attr;
	mutex_unlock(&qp->state_lock);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->port_num = 1;
	attr->cap.max_send_wr = BIT(qp->sq.ring.log2);
	attr->cap.max_recv_wr = qp->srq ? 0 : BIT(qp->rq.ring.log2);
	attr->cap.max_send_sge = VROCE_MAX_SEND_SGE;
	attr->cap.max_recv_sge = qp->srq ? 0 : VROCE_MAX_RECV_SGE;
	attr->cap.max_inline_data = qp->max_inline;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* Wait until no poller still uses @qp (events: vroce_eq_forget()). */
static void vroce_qp_quiesce(struct vroce_qp *qp)
{
	struct vroce_cq *cqs[] = { to_vroce_cq(qp->ibqp.send_cq),
				   to_vroce_cq(qp->ibqp.recv_cq) };
	unsigned long flags;
	int i;

	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		spin_lock_irqsave(&cqs[i]->lock, flags);
		spin_unlock_irqrestore(&cqs[i]->lock, flags);
	}
}

int vroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	int err;

	/*
	 * Out of the table first: no event or CQE reaches @qp from now on.
	 * Its number stays taken until nothing of @qp can arrive any more.
	 */
	vroce_eq_forget(vdev, &vdev->qps, ibqp->qp_num);
	vroce_qp_attach(qp, false);
	err = vroce_cmd_destroy_qp_fenced(vdev, ibqp->qp_num, qp->mapped);
	if (vroce_cmd_let_go(err))
		err = 0;
	/* Events written until the HCA let go are dropped now. */
	vroce_eq_forget(vdev, NULL, 0);
	/*
	 * Pollers skip CQEs of a QP they cannot find, and of QPN 0: what the
	 * CQs still hold of this QP must not reach a QP given its number next
	 * (also when the destroy timed out: the HCA may have carried it out).
	 */
	vroce_qp_clean_cqs(qp);
	vroce_qp_quiesce(qp);
	if (err) {
		/*
		 * The core frees @qp regardless; the rings stay with the HCA,
		 * and the number, which it may still use.
		 */
		ibdev_warn_ratelimited(ibqp->device, "DESTROY_QP %u failed (%d)\n",
				       ibqp->qp_num, err);
		vroce_qp_park(vdev, qp);
		return 0;
	}
	vroce_qp_rings_destroy(vdev, qp);
	vroce_ring_zombie_free(vdev, qp->zombie);
	vroce_eq_release_qpn(vdev, ibqp->qp_num);
	return 0;
}

/**
 * vroce_qp_retire() - a CQE of @qp was polled: free its WQE slots
 * @qp: the QP
 * @rq: the CQE completes a receive WQE
 * @wqe_idx: the WQE's index (low 16 bits); a send CQE also retires the
 *	unsignaled WQEs before it
 * @error: the completion is an error: the HCA has moved the QP to ERR
 *
 * Context: any context; called with the CQ's lock held.
 */
void vroce_qp_retire(struct vroce_qp *qp, bool rq, u16 wqe_idx, bool error)
{
	struct vroce_wq *wq = rq ? &qp->rq : &qp->sq;
	unsigned long flags;
	u16 ahead;

	spin_lock_irqsave(&wq->lock, flags);
	ahead = (u16)(wqe_idx + 1) - (u16)wq->ci;
	/* Only forward, never past what was posted. */
	if (ahead <= wq->pi - wq->ci)
		wq->ci += ahead;
	spin_unlock_irqrestore(&wq->lock, flags);
	if (error)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
}

/**
 * vroce_qp_flush() - complete a dead device's WQEs in software
 * @qp: the QP
 * @rq: the receive queue, else the send queue
 * @wc: where the completions go; NULL to only tell whether there is one
 * @max: room in @wc
 *
 * The HCA is reset and completes nothing more: each WQE it did not
 * complete, signaled or not, completes with IB_WC_WR_FLUSH_ERR, in order,
 * as in a QP in error, and the QP is in ERR.
 *
 * Context: any context; called with the CQ's lock held, after the CQ's
 * own CQEs.
 * Return: the completions written to @wc, or with @wc NULL whether a
 * WQE waits.
 */
int vroce_qp_flush(struct vroce_qp *qp, bool rq, struct ib_wc *wc, int max)
{
	struct vroce_wq *wq = rq ? &qp->rq : &qp->sq;
	const struct vroce_recv_wqe *rwqe;
	const struct vroce_send_wqe *swqe;
	unsigned long flags;
	int n = 0;

	/* issue 31: a mapped QP's WQEs are the process's, unseen here. */
	if (qp->mapped)
		return 0;
	spin_lock_irqsave(&wq->lock, flags);
	if (!wc) {
		n = wq->pi != wq->ci;
		goto out;
	}
	for (; n < max && wq->ci != wq->pi; n++, wq->ci++) {
		memset(&wc[n], 0, sizeof(wc[n]));
		if (rq) {
			rwqe = vroce_ring_slot(&wq->ring, wq->ci);
			wc[n].wr_id = le64_to_cpu(rwqe->wr_id);
			wc[n].opcode = IB_WC_RECV;
		} else {
			swqe = vroce_ring_slot(&wq->ring, wq->ci);
			wc[n].wr_id = le64_to_cpu(swqe->wr_id);
			wc[n].opcode = IB_WC_SEND;
		}
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].vendor_err = VROCE_CQE_WR_FLUSH_ERR;
		wc[n].qp = &qp->ibqp;
	}
	if (n)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
out:
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

static void vroce_wqe_sges(struct vroce_wqe_sge *dst, const struct ib_sge *src,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = cpu_to_le64(src[i].addr);
		dst[i].length = cpu_to_le32(src[i].length);
		dst[i].lkey = cpu_to_le32(src[i].lkey);
	}
}

/* Whether @wr's data goes inline: IB_SEND_INLINE, except for a READ. */
static bool vroce_wr_inline(const struct ib_send_wr *wr)
{
	return (wr->send_flags & IB_SEND_INLINE) &&
	       wr->opcode != IB_WR_RDMA_READ;
}

/* The bytes of @wr's SGEs; -EINVAL past @max_inline. */
static int vroce_wr_inline_len(const struct ib_send_wr *wr, u32 max_inline,
			       u32 *len)
{
	int i;

	*len = 0;
	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > max_inline - *len)
			return -EINVAL;
		*len += wr->sg_list[i].length;
	}
	return 0;
}

/*
 * Copy the data of an inline send into the WQE: from @user_data, where
 * vroce_user_inline_in() copied a user QP's, else from the SGEs' kernel
 * addresses (a kernel QP's).
 */
static int vroce_wqe_inline(struct vroce_send_wqe *wqe,
			    const struct ib_send_wr *wr, u32 max_inline,
			    const u8 *user_data)
{
	u32 len;
	int i, err;

	/* The whole size first: nothing is read for a request refused. */
	err = vroce_wr_inline_len(wr, max_inline, &len);
	if (err)
		return err;
	if (user_data) {
		memcpy(wqe->inline_data, user_data, len);
	} else {
		for (i = 0, len = 0; i < wr->num_sge; i++) {
			memcpy(wqe->inline_data + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
	}
	wqe->flags |= VROCE_WQE_F_INLINE;
	wqe->inline_len = cpu_to_le32(len);
	return 0;
}

/*
 * A user QP's inline sends (uverbs' POST_SEND): their SGEs hold the
 * process's addresses. Their data is copied in here, before the SQ lock
 * is taken (copy_from_user() may fault and sleep; post_send runs in the
 * process's write()), VROCE_MAX_INLINE bytes of @*buf for each such
 * request of the chain in turn; @*buf stays NULL when there is none.
 * Return: 0, -EINVAL (too many SGEs, or more than @qp->max_inline bytes),
 * -EFAULT (an address the process cannot read), -ENOMEM.
 */
static int vroce_user_inline_in(struct vroce_dev *vdev, struct vroce_qp *qp,
				const struct ib_send_wr *wr, u8 **buf)
{
	const struct ib_send_wr *w;
	u32 n = 0, len;
	u8 *data, *p;
	int i, err;

	*buf = NULL;
	for (w = wr; w; w = w->next)
		n += vroce_wr_inline(w);
	if (!n)
		return 0;
	data = vroce_core_zalloc(vdev, array_size(n, VROCE_MAX_INLINE));
	if (!data)
		return -ENOMEM;
	for (p = data, w = wr; w; w = w->next) {
		if (!vroce_wr_inline(w))
			continue;
		err = -EINVAL;
		if (w->num_sge < 0 || w->num_sge > VROCE_MAX_SEND_SGE ||
		    vroce_wr_inline_len(w, qp->max_inline, &len))
			goto err_free;
		for (i = 0, len = 0; i < w->num_sge; i++) {
			err = -EFAULT;
			if (copy_from_user(p + len,
					   u64_to_user_ptr(w->sg_list[i].addr),
					   w->sg_list[i].length))
				goto err_free;
			len += w->sg_list[i].length;
		}
		p += VROCE_MAX_INLINE;
	}
	*buf = data;
	return 0;

err_free:
	vroce_core_free(vdev, data);
	return err;
}

static int vroce_wqe_reg_mr(struct vroce_dev *vdev, struct vroce_send_wqe *wqe,
			    const struct ib_reg_wr *reg)
{
	struct vroce_mr *mr = to_vroce_mr(reg->mr);
	struct vroce_mr_info info;
	u32 acc;
	int err;

	err = vroce_mr_rights(reg->access, &acc);
	if (err)
		return -EINVAL;
	/*
	 * Only our own fast-register MRs carry a page list (not a user MR
	 * made from an MR cache entry), and only under a key of the MR
	 * itself: the consumer chooses the key's low byte only.
	 */
	if (reg->mr->device != &vdev->ibdev || mr->cached)
		return -EINVAL;
	vroce_mr_obj_info(mr->obj, &info);
	if (info.type != VROCE_MR_TYPE_FRMR || !info.npages ||
	    info.state != VROCE_MR_STATE_LIVE ||
	    (reg->key ^ reg->mr->lkey) & ~VROCE_KEY_TAG)
		return -EINVAL;
	wqe->fr_iova = cpu_to_le64(reg->mr->iova);
	wqe->fr_length = cpu_to_le64(reg->mr->length);
	wqe->fr_key = cpu_to_le32(reg->key);
	wqe->fr_access = cpu_to_le32(acc);
	wqe->reg.pbl = cpu_to_le64(info.pbl_dma);
	wqe->reg.npages = cpu_to_le32(info.npages);
	return 0;
}

/* A UD or GSI send: SEND or SEND_IMM to an AH's address and a QP there. */
static int vroce_wqe_ud(struct vroce_qp *qp, struct vroce_send_wqe *wqe,
			const struct ib_ud_wr *ud, u8 op)
{
	if (op != VROCE_WQE_SEND && op != VROCE_WQE_SEND_IMM)
		return -EINVAL;
	/* QP numbers are 24 bits on the wire. */
	if (!ud->ah || ud->ah->device != qp->ibqp.device ||
	    ud->remote_qpn > 0xffffff)
		return -EINVAL;
	wqe->av = to_vroce_ah(ud->ah)->av;
	wqe->av.dest_qpn = cpu_to_le32(ud->remote_qpn);
	wqe->av.qkey = cpu_to_le32(ud->remote_qkey);
	return 0;
}

/*
 * What a UC QP may post (IBTA: no RDMA READ and no atomics on UC): SEND
 * and RDMA WRITE, with immediate data or not, and local work requests.
 */
static bool vroce_wqe_uc_ok(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		return true;
	default:
		return false;
	}
}

static bool vroce_wqe_is_atomic(u8 op)
{
	return op == VROCE_WQE_ATOMIC_CMP_SWP ||
	       op == VROCE_WQE_ATOMIC_FETCH_ADD || op == VROCE_WQE_ATOMIC_WRITE;
}

/*
 * An atomic: the target and operands into the WQE's header. The 8-byte
 * target's alignment and the local length are the HCA's to check (the
 * requester completes with an error), as for silicon. A kernel
 * ATOMIC_WRITE is an ib_rdma_wr whose 8 bytes are its SGE or, inline,
 * copied here; a process's comes as a FETCH_AND_ADD flagged
 * VROCE_SEND_ATOMIC_WRITE with the value in swap (uverbs passes no
 * ATOMIC_WRITE), and is carried as 8 bytes of inline data.
 */
static int vroce_wqe_atomic(struct vroce_qp *qp, struct vroce_send_wqe *wqe,
			    const struct ib_send_wr *wr, u8 op)
{
	const struct ib_atomic_wr *atomic = atomic_wr(wr);
	u64 value;

	if (op == VROCE_WQE_ATOMIC_WRITE && !qp->user) {
		wqe->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		wqe->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		if (wr->send_flags & IB_SEND_INLINE)
			return vroce_wqe_inline(wqe, wr, sizeof(u64), NULL);
		goto sges;
	}
	wqe->remote_addr = cpu_to_le64(atomic->remote_addr);
	wqe->rkey = cpu_to_le32(atomic->rkey);
	if (op == VROCE_WQE_ATOMIC_WRITE) {
		/* The value's bytes in memory order, as ibv_wr_atomic_write(). */
		value = atomic->swap;
		memcpy(wqe->inline_data, &value, sizeof(value));
		wqe->inline_len = cpu_to_le32(sizeof(value));
		wqe->flags |= VROCE_WQE_F_INLINE;
		return 0;
	}
	wqe->atomic_cmp_add = cpu_to_le64(atomic->compare_add);
	wqe->atomic_swap = cpu_to_le64(atomic->swap);
	/* The original value lands in the SGEs: not inline. */
	if (wr->send_flags & IB_SEND_INLINE)
		return -EINVAL;
sges:
	wqe->num_sge = wr->num_sge;
	vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
	return 0;
}

/* Build the WQE for @wr in @wqe; -EINVAL for what the HCA cannot do. */
static int vroce_wqe_build(struct vroce_qp *qp, struct vroce_send_wqe *wqe,
			   const struct ib_send_wr *wr, const u8 *user_data)
{
	static const u8 opcodes[] = {
		[IB_WR_SEND] = VROCE_WQE_SEND,
		[IB_WR_SEND_WITH_IMM] = VROCE_WQE_SEND_IMM,
		[IB_WR_SEND_WITH_INV] = VROCE_WQE_SEND_INV,
		[IB_WR_RDMA_WRITE] = VROCE_WQE_WRITE,
		[IB_WR_RDMA_WRITE_WITH_IMM] = VROCE_WQE_WRITE_IMM,
		[IB_WR_RDMA_READ] = VROCE_WQE_READ,
		[IB_WR_REG_MR] = VROCE_WQE_REG_MR,
		[IB_WR_LOCAL_INV] = VROCE_WQE_LOCAL_INV,
		[IB_WR_ATOMIC_CMP_AND_SWP] = VROCE_WQE_ATOMIC_CMP_SWP,
		[IB_WR_ATOMIC_FETCH_AND_ADD] = VROCE_WQE_ATOMIC_FETCH_ADD,
	};
	int err;
	u8 op;

	if (vroce_ib_wr_atomic_write(wr->opcode))
		op = VROCE_WQE_ATOMIC_WRITE;
	else if (wr->opcode < ARRAY_SIZE(opcodes) &&
		 (opcodes[wr->opcode] || wr->opcode == IB_WR_SEND))
		op = opcodes[wr->opcode];
	else
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_SEND_SGE)
		return -EINVAL;
	/* A process's ATOMIC_WRITE arrives as a FETCH_AND_ADD (vroce-abi.h). */
	if (qp->user && op == VROCE_WQE_ATOMIC_WRITE)
		return -EINVAL;
	if (qp->user && (wr->send_flags & VROCE_SEND_ATOMIC_WRITE)) {
		if (op != VROCE_WQE_ATOMIC_FETCH_ADD)
			return -EINVAL;
		op = VROCE_WQE_ATOMIC_WRITE;
	}
	if (vroce_wqe_is_atomic(op) &&
	    (qp->type != VROCE_QPT_RC ||
	     !(to_vroce_dev(qp->ibqp.device)->attr.caps & VROCE_CAP_ATOMIC)))
		return -EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = cpu_to_le64(wr->wr_id);
	wqe->opcode = op;
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sq_sig_all)
		wqe->flags |= VROCE_WQE_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->flags |= VROCE_WQE_F_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->flags |= VROCE_WQE_F_FENCE;
	if (qp->type == VROCE_QPT_UC && !vroce_wqe_uc_ok(wr->opcode))
		return -EINVAL;
	if (qp->type == VROCE_QPT_UD || qp->type == VROCE_QPT_GSI) {
		err = vroce_wqe_ud(qp, wqe, ud_wr(wr), op);
		if (err)
			return err;
	}

	/*
	 * uverbs passes no REG_MR or LOCAL_INV of a process. A REG_MR names
	 * kernel objects (the ib_mr behind reg_wr()), so a process's is
	 * refused here still. A LOCAL_INV carries nothing but a key: an HCA
	 * that checks a process's WQEs (VROCE_CAP_UNPRIV_QP) refuses it
	 * itself, with a LOC_QP_OP_ERR completion, as it refuses one written
	 * into a mapped ring; an older HCA leaves it to the driver.
	 */
	if (qp->user && (op == VROCE_WQE_REG_MR ||
			 (op == VROCE_WQE_LOCAL_INV &&
			  !(to_vroce_dev(qp->ibqp.device)->attr.caps &
			    VROCE_CAP_UNPRIV_QP))))
		return -EINVAL;

	switch (op) {
	case VROCE_WQE_REG_MR:
		return vroce_wqe_reg_mr(to_vroce_dev(qp->ibqp.device), wqe,
					reg_wr(wr));
	case VROCE_WQE_LOCAL_INV:
	case VROCE_WQE_SEND_INV:
		wqe->imm_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case VROCE_WQE_SEND_IMM:
	case VROCE_WQE_WRITE_IMM:
		/* Passed through as posted (big endian). */
		wqe->imm_inv = (__force __le32)wr->ex.imm_data;
		break;
	}
	if (op == VROCE_WQE_WRITE || op == VROCE_WQE_WRITE_IMM ||
	    op == VROCE_WQE_READ) {
		wqe->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		wqe->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
	}
	if (op == VROCE_WQE_LOCAL_INV)
		return 0;
	if (vroce_wqe_is_atomic(op))
		return vroce_wqe_atomic(qp, wqe, wr, op);

	if (vroce_wr_inline(wr)) {
		/* The addresses of a user QP's SGEs are the process's. */
		if (qp->user && WARN_ON_ONCE(!user_data))
			return -EINVAL;
		return vroce_wqe_inline(wqe, wr, qp->max_inline, user_data);
	}
	wqe->num_sge = wr->num_sge;
	vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
	return 0;
}

/* issue 31, lend: module parameter lend (Documentation/datapath.rst). */
bool vroce_lend = true;
EXPORT_SYMBOL_IF_KUNIT(vroce_lend);
module_param_named(lend, vroce_lend, bool, 0644);
MODULE_PARM_DESC(lend, "run a user QP's send WQEs in the poster's context (default: on)");

/* issue 31, hand-off: module parameter handoff_us (Documentation/datapath.rst). */
unsigned int vroce_handoff_us = 50;
EXPORT_SYMBOL_IF_KUNIT(vroce_handoff_us);
module_param_named(handoff_us, vroce_handoff_us, uint, 0644);
MODULE_PARM_DESC(handoff_us, "after a lent post answering its RC peer's, on a CPU other tasks want, wait at most this many microseconds for the peer's next (0: never; default: 50)");

/*
 * The RC peer of @qp on its device, when the two are connected to each
 * other (an intruder connected to @qp alone is no peer). Context: the
 * device's QP table locked (the peer stays while it is).
 */
static struct vroce_qp *vroce_qp_peer(struct vroce_dev *vdev,
				      struct vroce_qp *qp)
{
	struct vroce_qp *peer;

	if (qp->type != VROCE_QPT_RC)
		return NULL;
	peer = xa_load(&vdev->qps, READ_ONCE(qp->attr.dest_qp_num));
	if (!peer || peer == qp ||
	    READ_ONCE(peer->attr.dest_qp_num) != qp->ibqp.qp_num)
		return NULL;
	return peer;
}

/**
 * vroce_qp_handoff() - give the CPU a lent post borrowed to the peer
 *	waiting for what it delivered
 * @vdev: the device
 * @qp: the QP whose send doorbell was just lent
 *
 * A lent post delivers its messages before it returns, into the memory and
 * CQs of QPs whose processes poll them without a system call. On a CPU
 * those processes share with the poster (UML's one CPU; any machine with
 * more runnable tasks than CPUs), the poster spins next in its own poll,
 * and the scheduler lets the receiver see the message only at its next
 * tick: a round trip of two spinning processes took 10 ms on UML, where
 * the device needs microseconds. So between two RC QPs of one device
 * connected to each other, each lent post counts for the peer
 * (@handoff_posts); a post that answers, one that follows a post of its
 * peer since its own last, when other tasks are runnable on this CPU,
 * sleeps until the peer posts again (its answer) or for handoff_us at
 * most: the peer runs meanwhile, and wakes the poster with its answer.
 * A stream (posts with no post of the peer between them: the sender of a
 * bandwidth test, a sender over several QPs), a QP with no such peer, and
 * a poster alone on its CPU never wait; nobody else's posts count or
 * wake. The wait is interruptible; a signal ends it, and the post it
 * follows stands.
 *
 * Context: process context, no lock held.
 * Return: 0 when it did not wait, 1 when the peer's post woke it, -ETIME
 * when it waited handoff_us, -EINTR when a signal ended the wait.
 */
VISIBLE_IF_KUNIT int vroce_qp_handoff(struct vroce_dev *vdev,
				      struct vroce_qp *qp)
{
	unsigned int us = READ_ONCE(vroce_handoff_us);
	struct vroce_qp *peer;
	u32 seen;
	long ret;

	xa_lock(&vdev->qps);
	peer = vroce_qp_peer(vdev, qp);
	if (peer) {
		/* The barrier of the increment orders it before the look. */
		atomic_inc_return(&peer->handoff_posts);
		if (wq_has_sleeper(&peer->handoff_wq))
			wake_up(&peer->handoff_wq);
	}
	xa_unlock(&vdev->qps);
	if (!peer)
		return 0;
	seen = atomic_read(&qp->handoff_posts);
	if (seen == READ_ONCE(qp->handoff_seen))
		return 0;	/* no answer to anything: a stream */
	WRITE_ONCE(qp->handoff_seen, seen);
	if (!us || single_task_running())
		return 0;
	ret = wait_event_interruptible_hrtimeout(qp->handoff_wq,
						 atomic_read(&qp->handoff_posts) != seen,
						 ns_to_ktime((u64)us * NSEC_PER_USEC));
	if (!ret)
		return 1;
	return ret == -ETIME ? -ETIME : -EINTR;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_qp_handoff);

/**
 * vroce_qp_lend() - lend the poster's context to the HCA for @qp's sends
 * @vdev: the device
 * @qp: the QP whose send doorbell was just rung, or, for a QP with a
 *	doorbell record (a mapped QP), whose sends its record announces
 *
 * As rxe runs a user QP's requester in the poster's context, the HCA runs
 * a few of the QP's send WQEs before the register write returns
 * (VROCE_CAP_LEND): the process's next poll finds their completions with
 * no worker to wait for. For a QP with a record the lend is the send
 * doorbell too: what the lent context does not run the HCA's engine runs,
 * and no worker is woken for what it does run. Then the poster may hand
 * the CPU on (vroce_qp_handoff()). Only for user QPs, whose posts come
 * through uverbs in process context; a kernel QP's post may come from any
 * context (a ULP's completion handler, under its spinlocks), so its work
 * stays with the HCA's engine, as rxe defers kernel QPs. Off with lend=0,
 * with an HCA without the capability, or a dead one.
 *
 * Context: process context, no spinlock held (the SQ lock released).
 * Return: true when the HCA was lent the context; false when the caller
 * must ring the send doorbell itself (if it has not).
 */
VISIBLE_IF_KUNIT bool vroce_qp_lend(struct vroce_dev *vdev, struct vroce_qp *qp)
{
	if (!qp->user || !READ_ONCE(vroce_lend) ||
	    !(vdev->attr.caps & VROCE_CAP_LEND) || vroce_dev_dead(vdev))
		return false;
	vroce_hw_qp_lend(&vdev->hw, qp->ibqp.qp_num);
	vroce_qp_handoff(vdev, qp);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_qp_lend);

int vroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	const struct ib_send_wr *first = wr;
	struct vroce_wq *sq = &qp->sq;
	u8 *user_data = NULL, *inl;
	unsigned long flags;
	u32 start;
	int err = 0;

	/*
	 * issue 31: a mapped QP's POST_SEND carries no work request: it is
	 * the send doorbell, whose index the HCA takes from the record. The
	 * kernel writes nothing into the process's ring: a POST_SEND with
	 * work requests (an old or broken provider) is refused.
	 */
	if (qp->mapped) {
		if (wr) {
			*bad_wr = wr;
			return -EOPNOTSUPP;
		}
		/*
		 * A dead HCA executes nothing, and the kernel, which never saw
		 * the process's WQEs, flushes none in software: the doorbell
		 * fails, as the process's next verbs will, beside the
		 * IBV_EVENT_DEVICE_FATAL it gets.
		 */
		if (unlikely(vroce_dev_dead(vdev)))
			return -EIO;
		/* issue 31, lend: the lend is the doorbell, or there is none. */
		if (!vroce_qp_lend(vdev, qp))
			vroce_hw_sq_doorbell(&vdev->hw, ibqp->qp_num, 0);
		return 0;
	}
	/* In ERR work requests are taken and flushed (ib_drain_qp()). */
	if (state != IB_QPS_RTS && state != IB_QPS_ERR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* A user QP's chain is all or nothing: a refused copy fails it. */
	if (qp->user) {
		err = vroce_user_inline_in(vdev, qp, wr, &user_data);
		if (err) {
			*bad_wr = wr;
			return err;
		}
	}

	spin_lock_irqsave(&sq->lock, flags);
	start = sq->pi;
	for (inl = user_data; wr; wr = wr->next) {
		if (vroce_wq_full(sq)) {
			err = -ENOMEM;
			break;
		}
		err = vroce_wqe_build(qp, vroce_ring_slot(&sq->ring, sq->pi), wr,
				      qp->user && vroce_wr_inline(wr) ? inl : NULL);
		if (err)
			break;
		if (qp->user && vroce_wr_inline(wr))
			inl += VROCE_MAX_INLINE;
		sq->pi++;
	}
	/*
	 * A user QP's chain is all or nothing: libibverbs' ibv_wr_complete()
	 * promises that a failed batch posted none of it. The WQEs written
	 * past the doorbell's index are not the HCA's yet.
	 */
	if (err && qp->user) {
		sq->pi = start;
		wr = first;
	}
	if (sq->pi != start)
		vroce_hw_sq_doorbell(&vdev->hw, ibqp->qp_num, sq->pi);
	spin_unlock_irqrestore(&sq->lock, flags);
	vroce_core_free(vdev, user_data);
	/* A dead HCA completes nothing: the WQEs flush in software. */
	if (unlikely(vroce_dev_dead(vdev)))
		queue_work(system_unbound_wq, &vdev->flush_work);
	if (err)
		*bad_wr = wr;
	else
		vroce_qp_lend(vdev, qp);	/* issue 31: user QPs only */
	return err;
}

int vroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_wq *rq = &qp->rq;
	struct vroce_recv_wqe *wqe;
	unsigned long flags;
	u32 start;
	int err = 0;

	/* issue 31: a mapped QP's receives are posted with no system call. */
	if (qp->mapped) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* Receives of a QP attached to an SRQ are posted there. */
	if (READ_ONCE(qp->state) == IB_QPS_RESET || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&rq->lock, flags);
	start = rq->pi;
	for (; wr; wr = wr->next) {
		if (vroce_wq_full(rq)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_RECV_SGE) {
			err = -EINVAL;
			break;
		}
		wqe = vroce_ring_slot(&rq->ring, rq->pi);
		memset(wqe, 0, sizeof(*wqe));
		wqe->wr_id = cpu_to_le64(wr->wr_id);
		wqe->num_sge = wr->num_sge;
		vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
		rq->pi++;
	}
	if (rq->pi != start)
		vroce_hw_rq_doorbell(&vdev->hw, ibqp->qp_num, rq->pi);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (unlikely(vroce_dev_dead(vdev)))
		queue_work(system_unbound_wq, &vdev->flush_work);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * UD multicast. The core has checked that @gid is a multicast GID and
 * @ibqp a UD QP, and counts the attachments in the QP's usecnt, so that
 * a kernel QP is destroyed only once detached; uverbs detaches a
 * process's QP before it destroys it. DESTROY_QP also takes the QP out of
 * every group in the HCA. @lid means nothing on RoCE.
 */
int vroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	int err;

	if (!(vdev->attr.caps & VROCE_CAP_MCAST))
		return -EOPNOTSUPP;
	if (to_vroce_qp(ibqp)->type != VROCE_QPT_UD)
		return -EINVAL;
	err = vroce_cmd_attach_mcast(vdev, ibqp->qp_num, gid->raw);
	/*
	 * Lost: the HCA may have attached the QP. Undo it, so that the QP
	 * is in the group only when the core counts it; should that be lost
	 * too, DESTROY_QP takes the QP out of every group in the end.
	 */
	if (err == -ETIMEDOUT)
		vroce_cmd_detach_mcast(vdev, ibqp->qp_num, gid->raw);
	return err;
}

int vroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	int err;

	if (!(vdev->attr.caps & VROCE_CAP_MCAST))
		return -EOPNOTSUPP;
	if (to_vroce_qp(ibqp)->type != VROCE_QPT_UD)
		return -EINVAL;
	err = vroce_cmd_detach_mcast(vdev, ibqp->qp_num, gid->raw);
	/*
	 * Lost: the HCA may still deliver to the QP until DESTROY_QP takes it
	 * out of every group. The detach stands, as a destroy does: the core
	 * destroys a kernel QP only once its count of attachments is 0.
	 */
	if (err == -ETIMEDOUT) {
		ibdev_warn_ratelimited(ibqp->device, "DETACH_MCAST of QP %u lost\n",
				       ibqp->qp_num);
		return 0;
	}
	return err;
}
