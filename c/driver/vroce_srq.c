// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: shared receive queues (Documentation/datapath.rst, "Shared
 * receive queues").
 *
 * An SRQ is a ring of receive WQEs, a kernel-buffer MTR like a QP's
 * receive queue, that RC and UD QPs created with it take their receives
 * from, in ring order, whichever QP a message arrives at. The HCA marks a
 * WQE it has taken (srq_done), so the driver knows a slot is free without
 * a completion: the CQEs of an SRQ's WQEs go to the CQs of many QPs, in
 * any order, and some are purged with their QP. post_srq_recv() writes
 * WQEs and rings the SRQ's doorbell: no command, no sleeping, no
 * allocation.
 */

#include <kunit/visibility.h>
#include <linux/log2.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"

static int vroce_srq_check(struct vroce_dev *vdev,
			   const struct ib_srq_init_attr *init)
{
	const struct ib_srq_attr *a = &init->attr;

	if (!(vdev->attr.caps & VROCE_CAP_SRQ) ||
	    init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > BIT(vdev->attr.max_wq_depth_log2) ||
	    a->max_sge > VROCE_MAX_RECV_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	return 0;
}

/* Every slot free: the HCA has taken nothing, nothing is posted. */
static void vroce_srq_ring_init(struct vroce_srq *srq)
{
	struct vroce_recv_wqe *wqe;
	u32 i;

	for (i = 0; i < BIT(srq->ring.log2); i++) {
		wqe = vroce_ring_slot(&srq->ring, i);
		wqe->srq_done = 1;
	}
}

/* ---- issue 31: a mapped SRQ ---- */

/*
 * The driver data of a process's CREATE_SRQ: @*mapped set for a mapped
 * SRQ, its ring checked as a QP's; else the kernel's ring, as before.
 */
static int vroce_srq_ureq(struct vroce_dev *vdev, struct ib_udata *udata,
			  const struct ib_srq_init_attr *init,
			  struct vroce_create_srq *ureq, bool *mapped)
{
	int err;

	*mapped = false;
	err = vroce_udata_in(udata, ureq, sizeof(*ureq));
	if (err)
		return err;
	if (ureq->comp_mask & ~VROCE_CREATE_SRQ_MAPPED)
		return -EOPNOTSUPP;
	if (ureq->reserved || ureq->reserved2)
		return -EINVAL;
	if (!(ureq->comp_mask & VROCE_CREATE_SRQ_MAPPED))
		return ureq->buf_addr || ureq->dbrec_addr || ureq->depth ?
		       -EINVAL : 0;
	if (!(vdev->attr.caps & VROCE_CAP_MAPPED))
		return -EOPNOTSUPP;
	*mapped = true;
	return 0;
}

/* The SRQ's ring: the process's with its record, or the kernel's. */
static int vroce_srq_ring_create(struct vroce_dev *vdev, struct vroce_srq *srq,
				 u32 max_wr, struct ib_udata *udata,
				 const struct vroce_create_srq *ureq)
{
	int err;

	if (!srq->mapped) {
		/* At least two entries, like a QP's queues. */
		err = vroce_ring_create(vdev, &srq->ring,
					max_wr > 2 ? order_base_2(max_wr) : 1,
					VROCE_RECV_WQE_SIZE, 0);
		if (!err)
			vroce_srq_ring_init(srq);
		return err;
	}
	/* The process marked every slot free (srq_done) before this. */
	err = vroce_dbrec_get(vdev, ureq->dbrec_addr, &srq->dbrec);
	if (err)
		return err;
	err = vroce_ring_create_user(vdev, &srq->ring, ilog2(ureq->depth),
				     VROCE_RECV_WQE_SIZE, udata,
				     ureq->buf_addr);
	if (err)
		vroce_dbrec_put(vdev, &srq->dbrec);
	return err;
}

static void vroce_srq_ring_destroy(struct vroce_dev *vdev,
				   struct vroce_srq *srq)
{
	vroce_ring_destroy(vdev, &srq->ring);
	vroce_dbrec_put(vdev, &srq->dbrec);
}

/* The HCA may still read the ring and record: both stay until its reset. */
static void vroce_srq_park(struct vroce_dev *vdev, struct vroce_srq *srq)
{
	srq->zombie->dbrec = srq->dbrec;
	vroce_ring_zombie(vdev, srq->zombie, &srq->ring, NULL);
}

int vroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	struct vroce_create_srq ureq = {};
	u32 max_wr = init->attr.max_wr;
	int err;

	srq->mapped = false;
	if (udata) {
		err = vroce_srq_ureq(vdev, udata, init, &ureq, &srq->mapped);
		if (err)
			return err;
	}
	err = vroce_srq_check(vdev, init);
	if (err)
		return err;
	if (srq->mapped) {
		err = vroce_map_check_ring(vdev, ureq.buf_addr, ureq.depth,
					   VROCE_RECV_WQE_SIZE, max_wr,
					   vdev->attr.max_wq_depth_log2);
		if (err)
			return err;
	}

	spin_lock_init(&srq->lock);
	srq->pi = 0;
	srq->zombie = vroce_ring_zombie_alloc(vdev);
	if (!srq->zombie)
		return -ENOMEM;
	err = vroce_srq_ring_create(vdev, srq, max_wr, udata, &ureq);
	if (err)
		goto err_free_zombie;

	err = vroce_cmd_create_srq(vdev, to_vroce_pd(ibsrq->pd)->pdn,
				   &srq->ring, init->attr.srq_limit,
				   srq->dbrec.dma, &srq->srqn);
	if (err == -ETIMEDOUT) {
		/* The HCA may hold the ring under a number never learnt. */
		vroce_srq_park(vdev, srq);
		return err;
	}
	if (err)
		goto err_destroy_ring;
	if (udata) {
		struct vroce_create_srq_resp uresp = {
			.comp_mask = srq->mapped ? VROCE_CREATE_SRQ_MAPPED : 0,
			.srqn = srq->srqn,
			.depth = BIT(srq->ring.log2),
		};

		err = vroce_udata_out(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy_srq;
	}
	err = vroce_inject(vdev) ? -ENOMEM :
	      xa_insert(&vdev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy_srq;

	init->attr.max_wr = BIT(srq->ring.log2);
	init->attr.max_sge = VROCE_MAX_RECV_SGE;
	return 0;

err_destroy_srq:
	if (!vroce_cmd_let_go(vroce_cmd_destroy_srq_fenced(vdev, srq->srqn,
							   srq->mapped))) {
		/* The HCA may still read the ring. */
		vroce_srq_park(vdev, srq);
		return err;
	}
	/* Never in the table: no event of it can be delivered. */
err_destroy_ring:
	vroce_srq_ring_destroy(vdev, srq);
err_free_zombie:
	vroce_ring_zombie_free(vdev, srq->zombie);
	return err;
}

int vroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	/* Resizing is not supported (as mlx5): the ring is the HCA's. */
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT) || (mask & IB_SRQ_MAX_WR))
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > BIT(srq->ring.log2))
		return -EINVAL;
	return vroce_cmd_modify_srq(vdev, srq->srqn, attr->srq_limit);
}

int vroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	u32 limit, posted;
	int err;

	/* The limit is the HCA's: it disarms it when the event fires. */
	err = vroce_cmd_query_srq(vdev, srq->srqn, &limit, &posted);
	if (err)
		return err;
	attr->max_wr = BIT(srq->ring.log2);
	attr->max_sge = VROCE_MAX_RECV_SGE;
	attr->srq_limit = limit;
	return 0;
}

int vroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	int err;

	/*
	 * The core refuses while QPs use it (usecnt); the HCA would too
	 * (BUSY), and the SRQ then stays whole.
	 */
	err = vroce_cmd_destroy_srq_fenced(vdev, srq->srqn, srq->mapped);
	if (err == -EBUSY)
		return err;
	/*
	 * Out of the table, and the events written until the HCA let go
	 * consumed (dropped): none reaches an SRQ given the number next.
	 */
	vroce_eq_forget(vdev, &vdev->srqs, srq->srqn);
	if (!vroce_cmd_let_go(err)) {
		ibdev_warn_ratelimited(ibsrq->device, "DESTROY_SRQ %u failed (%d)\n",
				       srq->srqn, err);
		vroce_srq_park(vdev, srq);
		return 0;
	}
	vroce_srq_ring_destroy(vdev, srq);
	vroce_ring_zombie_free(vdev, srq->zombie);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_destroy_srq);

static void vroce_srq_sges(struct vroce_wqe_sge *dst, const struct ib_sge *src,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = cpu_to_le64(src[i].addr);
		dst[i].length = cpu_to_le32(src[i].length);
		dst[i].lkey = cpu_to_le32(src[i].lkey);
	}
}

int vroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	struct vroce_recv_wqe *wqe;
	unsigned long flags;
	u32 start;
	int err = 0;

	/* issue 31: a mapped SRQ's receives are posted with no system call. */
	if (srq->mapped) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	start = srq->pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_RECV_SGE) {
			err = -EINVAL;
			break;
		}
		/* Taken in order: a slot still posted means all are. */
		wqe = vroce_ring_slot(&srq->ring, srq->pi);
		if (!READ_ONCE(wqe->srq_done)) {
			err = -ENOMEM;
			break;
		}
		/* The HCA's copy was done before it marked the slot. */
		smp_mb();
		memset(wqe, 0, sizeof(*wqe));
		wqe->wr_id = cpu_to_le64(wr->wr_id);
		wqe->num_sge = wr->num_sge;
		vroce_srq_sges(wqe->sge, wr->sg_list, wr->num_sge);
		srq->pi++;
	}
	if (srq->pi != start)
		vroce_hw_srq_doorbell(&vdev->hw, srq->srqn, srq->pi);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
