// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, QP, CQ and SRQ contexts: the CREATE_CQ, DESTROY_CQ,
 * CREATE_QP, MODIFY_QP, DESTROY_QP and the SRQ commands, and the PDs QPs
 * and SRQs use.
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "vroce_hca_priv.h"

/* ---- rings a command describes ---- */

/* Check a ring a command describes, as an MR's table, and keep it. */
static bool vroce_hca_ring_from_cmd(struct vroce_hca_ring *ring,
				    const struct vroce_cmd_ring *cmd,
				    u32 depth_log2, u32 entry_size)
{
	struct vroce_hca_mtt *mtt = &ring->mtt;
	u32 cfg = le32_to_cpu(cmd->cfg);
	u64 pages = le32_to_cpu(cmd->page_count);

	memset(ring, 0, sizeof(*ring));
	ring->depth_log2 = depth_log2;
	ring->entry_size = entry_size;
	mtt->root_ba = le64_to_cpu(cmd->root_ba);
	mtt->ba_pg_shift = FIELD_GET(VROCE_MTT_BA_PG_SHIFT, cfg);
	mtt->buf_pg_shift = FIELD_GET(VROCE_MTT_BUF_PG_SHIFT, cfg);
	mtt->region_count = 1;
	mtt->region[0].count = pages;
	mtt->region[0].hopnum = FIELD_GET(VROCE_MTT_HOPNUM, cfg);

	if (!mtt->root_ba || mtt->buf_pg_shift < 12 || mtt->buf_pg_shift > 30 ||
	    mtt->ba_pg_shift < 12 || mtt->ba_pg_shift > 21)
		return false;
	/* The pages behind the table must hold every entry. */
	return pages << mtt->buf_pg_shift >= (u64)entry_size << depth_log2;
}

/* A work queue ring: 1 to VROCE_MAX_WQ_DEPTH_LOG2. */
static bool vroce_hca_wq_from_cmd(struct vroce_hca_wq *wq,
				  const struct vroce_cmd_ring *cmd,
				  u32 depth_log2, u32 entry_size)
{
	memset(wq, 0, sizeof(*wq));
	return depth_log2 >= 1 && depth_log2 <= VROCE_MAX_WQ_DEPTH_LOG2 &&
	       vroce_hca_ring_from_cmd(&wq->ring, cmd, depth_log2, entry_size);
}

/* ---- lookups ---- */

static struct vroce_hca_cq *vroce_hca_cq_of(struct vroce_hca *hca, u32 cqn)
{
	if (cqn >= VROCE_MAX_CQ || !hca->cqs[cqn].valid)
		return NULL;
	return &hca->cqs[cqn];
}

/* ---- commands ---- */

/**
 * vroce_hca_pd_busy() - whether a QP or SRQ still uses a protection domain
 * @hca: the HCA
 * @pdn: the PD
 *
 * Context: @hca->wire_lock held.
 * Return: true when some QP or SRQ belongs to @pdn.
 */
bool vroce_hca_pd_busy(struct vroce_hca *hca, u32 pdn)
{
	u32 i;

	for (i = 0; i < VROCE_MAX_QP; i++)
		if (hca->qps[i].valid && hca->qps[i].pdn == pdn)
			return true;
	for (i = 0; i < VROCE_MAX_SRQ; i++)
		if (hca->srqs[i].valid && hca->srqs[i].pdn == pdn)
			return true;
	return false;
}

/**
 * vroce_hca_create_cq() - CREATE_CQ: a CQ context over a ring of CQEs
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the CQN goes
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_PARAM (depth or ring) or NO_RESOURCE.
 */
u16 vroce_hca_create_cq(struct vroce_hca *hca,
			const struct vroce_cmd_create_cq *cmd,
			struct vroce_resp_create_cq *resp)
{
	u32 log2 = le32_to_cpu(cmd->depth_log2), cqn;
	u64 dbrec = le64_to_cpu(cmd->dbrec);
	struct vroce_hca_ring ring;
	unsigned long flags;

	if (log2 < 1 || log2 > VROCE_MAX_CQ_DEPTH_LOG2 ||
	    !vroce_hca_ring_from_cmd(&ring, &cmd->ring, log2, VROCE_CQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	/* issue 31: a record only from an HCA that offers it, and usable. */
	if (dbrec && (!(hca->caps & VROCE_CAP_MAPPED) ||
		      !vroce_hca_dbrec_ok(hca, dbrec)))
		return VROCE_CMD_BAD_PARAM;
	for (cqn = 0; cqn < VROCE_MAX_CQ; cqn++)
		if (!hca->cqs[cqn].valid)
			break;
	if (cqn == VROCE_MAX_CQ)
		return VROCE_CMD_NO_RESOURCE;

	memset(&hca->cqs[cqn], 0, sizeof(hca->cqs[cqn]));
	hca->cqs[cqn].ring = ring;
	hca->cqs[cqn].dbrec = dbrec;
	hca->cqs[cqn].valid = true;
	spin_lock_irqsave(&hca->reg_lock, flags);
	memset(&hca->cq_db[cqn], 0, sizeof(hca->cq_db[cqn]));
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	resp->cqn = cpu_to_le32(cqn);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_destroy_cq() - DESTROY_CQ
 * @hca: the HCA
 * @cmd: the request
 *
 * The HCA writes nothing to the CQ's ring once this succeeds; a delayed
 * completion event for it is forgotten.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BUSY while a QP completes to it.
 */
u16 vroce_hca_destroy_cq(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_cq *cmd)
{
	struct vroce_hca_cq *cq = vroce_hca_cq_of(hca, le32_to_cpu(cmd->cqn));

	if (!cq)
		return VROCE_CMD_BAD_HANDLE;
	if (cq->users)
		return VROCE_CMD_BUSY;
	memset(cq, 0, sizeof(*cq));
	return VROCE_CMD_OK;
}

/* Send WQEs RESIZE_CQ reads at most for their flags, over all QPs. */
#define VROCE_HCA_OWED_READS	4096

/*
 * vroce_hca_wq_rung(); for a broken doorbell (the engine fails the QP for
 * it, which flushes what it had taken), false and the index it took.
 */
static bool vroce_hca_wq_owes(struct vroce_hca *hca,
			      const struct vroce_hca_qp *qp, int q, u32 *pi)
{
	if (vroce_hca_wq_rung(hca, qp, q, pi))
		return true;
	*pi = qp->wq[q].pi;
	return false;
}

/*
 * Send WQEs of @qp from @ci to @pi that complete (signaled, or leading
 * nowhere: an error), counted up to @max, reading *@reads at most.
 */
static u32 vroce_hca_sq_signaled(struct vroce_hca *hca,
				 const struct vroce_hca_qp *qp, u32 ci, u32 pi,
				 u32 max, u32 *reads)
{
	const struct vroce_send_wqe *wqe;
	u32 n = 0;

	for (; ci != pi && n <= max && *reads; ci++, (*reads)--) {
		wqe = vroce_hca_ring_entry(hca, &qp->wq[VROCE_HCA_SQ].ring, ci);
		if (!wqe || (READ_ONCE(wqe->flags) & VROCE_WQE_F_SIGNALED))
			n++;
	}
	return n;
}

/*
 * CQEs the HCA owes CQ @cqn for work it was told of, counted up to @max:
 * send WQEs rung and not yet completed that will write one (signaled, or
 * any of a QP in ERR or failing for a bad index, which flushes them), and
 * the receives such a QP will flush. A receive that waits for a message
 * owes nothing yet. The WQEs' flags are read as the engine will read
 * them, VROCE_HCA_OWED_READS at most (a process's rings cannot make the
 * command long; what is not read is not counted, which can only let the
 * consumer's own CQ overflow); a process may change them before the
 * engine reads them, which only moves a CQE the consumer asked for.
 */
static u32 vroce_hca_cq_owed(struct vroce_hca *hca, u32 cqn, u32 max)
{
	u32 owed = 0, reads = VROCE_HCA_OWED_READS, slot, pi, ci;
	struct vroce_hca_qp *qp;
	bool err;

	for (slot = 0; slot < VROCE_MAX_QP && owed <= max; slot++) {
		qp = &hca->qps[slot];
		if (!qp->valid || qp->state == VROCE_QPS_RESET)
			continue;
		err = qp->state == VROCE_QPS_ERR;
		if (qp->scqn == cqn) {
			err |= !vroce_hca_wq_owes(hca, qp, VROCE_HCA_SQ, &pi);
			ci = qp->wq[VROCE_HCA_SQ].ci;
			if (err || qp->sq_sig_all)
				owed += pi - ci;
			else
				owed += vroce_hca_sq_signaled(hca, qp, ci, pi,
							      max - owed, &reads);
		}
		if (qp->rcqn == cqn && !qp->srqn &&
		    (!vroce_hca_wq_owes(hca, qp, VROCE_HCA_RQ, &pi) || err))
			owed += pi - qp->wq[VROCE_HCA_RQ].ci;
	}
	return owed;
}

/**
 * vroce_hca_resize_cq() - RESIZE_CQ: move a CQ's unpolled CQEs to a new ring
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the count of CQEs copied goes
 *
 * No engine runs while a command does (@hca->wire_lock held for writing),
 * so no CQE is written between the copy and the switch: the CQEs written
 * before land in the old ring and are copied, those after in the new one
 * behind them. The new ring is written first and taken only when every
 * copy succeeded; on any error the CQ is as it was.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BAD_PARAM (depth, ring, a consumer
 * count the CQ never had, more CQEs outstanding, with those owed for work
 * already rung (vroce_hca_cq_owed()), than the new ring or @cmd->want
 * holds, a ring whose tables lead nowhere).
 */
u16 vroce_hca_resize_cq(struct vroce_hca *hca,
			const struct vroce_cmd_resize_cq *cmd,
			struct vroce_resp_resize_cq *resp)
{
	u32 cqn = le32_to_cpu(cmd->cqn), log2 = le32_to_cpu(cmd->depth_log2);
	struct vroce_hca_cq *cq = vroce_hca_cq_of(hca, cqn);
	u32 ci = le32_to_cpu(cmd->ci), room;
	struct vroce_hca_ring ring;
	struct vroce_cqe *from, *to;
	unsigned long flags;
	u32 n, i;

	if (!cq)
		return VROCE_CMD_BAD_HANDLE;
	if (log2 < 1 || log2 > VROCE_MAX_CQ_DEPTH_LOG2 ||
	    !vroce_hca_ring_from_cmd(&ring, &cmd->ring, log2, VROCE_CQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	n = cq->pi - ci;
	if (n > BIT(cq->ring.depth_log2))
		return VROCE_CMD_BAD_PARAM;
	room = cmd->want ? min(le32_to_cpu(cmd->want), BIT(log2)) : BIT(log2);
	if (n > room || vroce_hca_cq_owed(hca, cqn, room - n) > room - n)
		return VROCE_CMD_BAD_PARAM;
	for (i = 0; i < n; i++) {
		from = vroce_hca_ring_entry(hca, &cq->ring, ci + i);
		to = vroce_hca_ring_entry(hca, &ring, i);
		if (!from || !to)
			return VROCE_CMD_BAD_PARAM;
		memcpy(to, from, offsetof(struct vroce_cqe, owner));
		dma_wmb();
		/* The new ring's first lap: phase 1. */
		WRITE_ONCE(to->owner, VROCE_CQE_OWNER);
	}
	cq->ring = ring;
	cq->pi = n;
	/* issue 31: the consumer's count starts again with the new ring. */
	if (cq->dbrec)
		vroce_hca_dbrec_write(hca, cq->dbrec, 0, 0);
	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->cq_db[cqn].ci = 0;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	resp->copied = cpu_to_le32(n);
	return VROCE_CMD_OK;
}

/* Forget the doorbells of QP slot @slot. */
static void vroce_hca_qp_db_clear(struct vroce_hca *hca, u32 slot)
{
	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	memset(&hca->qp_db[slot], 0, sizeof(hca->qp_db[slot]));
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}

/**
 * vroce_hca_create_qp() - CREATE_QP: an RC, UC, UD or GSI QP context, in RESET
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the QPN goes
 *
 * The driver names the QP (as hns and mlx4 drivers do): the number decides
 * the context slot, VROCE_QPN_BASE + slot. The GSI QP has slot 0 and
 * number VROCE_GSI_QPN; there is one. RC, UC and UD QPs take the other
 * slots; UC only with VROCE_CAP_UC.
 * The driver gives a number again only once nothing of its last QP can
 * still reach it, which the HCA cannot know.
 *
 * An RC or UD QP may take its receives from an SRQ (@cmd->srqn), of any
 * PD; it has no receive ring then.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD, CQ or SRQ), BAD_PARAM (type,
 * depth, ring, an SRQ for a GSI QP or with a receive ring, a number out
 * of range for the type, an unknown flag in the sq_sig_all byte,
 * VROCE_QP_F_UNPRIV without VROCE_CAP_UNPRIV_QP) or BUSY (the number's
 * slot is in use).
 */
u16 vroce_hca_create_qp(struct vroce_hca *hca,
			const struct vroce_cmd_create_qp *cmd,
			struct vroce_resp_create_qp *resp)
{
	u32 scqn = le32_to_cpu(cmd->scqn), rcqn = le32_to_cpu(cmd->rcqn);
	u32 pdn = le32_to_cpu(cmd->pdn), qpn = le32_to_cpu(cmd->qpn);
	u32 slot = vroce_hca_qpn_slot(qpn), srqn = le32_to_cpu(cmd->srqn);
	struct vroce_hca_srq *srq = NULL;
	struct vroce_hca_wq sq, rq;
	struct vroce_hca_qp *qp;

	if (!vroce_hca_pd_valid(hca, pdn) || !vroce_hca_cq_of(hca, scqn) ||
	    !vroce_hca_cq_of(hca, rcqn))
		return VROCE_CMD_BAD_HANDLE;
	if (srqn) {
		srq = vroce_hca_srq_of(hca, srqn);
		if (!srq)
			return VROCE_CMD_BAD_HANDLE;
		/* RC and UD QPs only: the GSI and UC QPs have their own. */
		if (cmd->type == VROCE_QPT_GSI || cmd->type == VROCE_QPT_UC ||
		    cmd->rq_depth_log2 || cmd->rq.root_ba)
			return VROCE_CMD_BAD_PARAM;
		memset(&rq, 0, sizeof(rq));
	} else if (!vroce_hca_wq_from_cmd(&rq, &cmd->rq, cmd->rq_depth_log2,
					  VROCE_RECV_WQE_SIZE)) {
		return VROCE_CMD_BAD_PARAM;
	}
	if (cmd->type > VROCE_QPT_UC ||
	    (cmd->type == VROCE_QPT_UC && !(hca->caps & VROCE_CAP_UC)) ||
	    !vroce_hca_wq_from_cmd(&sq, &cmd->sq, cmd->sq_depth_log2,
				   VROCE_SEND_WQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	if (slot == VROCE_MAX_QP)
		return VROCE_CMD_BAD_PARAM;
	/* issue 31, hca: flags it knows, and only when it offers them. */
	if ((cmd->sq_sig_all & ~(VROCE_QP_F_SIG_ALL | VROCE_QP_F_UNPRIV)) ||
	    ((cmd->sq_sig_all & VROCE_QP_F_UNPRIV) &&
	     !(hca->caps & VROCE_CAP_UNPRIV_QP)))
		return VROCE_CMD_BAD_PARAM;
	/* Slot 0 is the GSI QP's, and only its. */
	if (cmd->type == VROCE_QPT_GSI ? slot : !slot)
		return VROCE_CMD_BAD_PARAM;
	if (hca->qps[slot].valid)
		return VROCE_CMD_BUSY;

	qp = &hca->qps[slot];
	memset(qp, 0, sizeof(*qp));
	hca->qpx[slot].gen++;
	qp->valid = true;
	qp->type = cmd->type;
	qp->qpn = qpn;
	qp->pdn = pdn;
	qp->scqn = scqn;
	qp->rcqn = rcqn;
	qp->sq_sig_all = cmd->sq_sig_all & VROCE_QP_F_SIG_ALL;
	qp->unpriv = cmd->sq_sig_all & VROCE_QP_F_UNPRIV;
	qp->state = VROCE_QPS_RESET;
	qp->wq[VROCE_HCA_SQ] = sq;
	qp->wq[VROCE_HCA_RQ] = rq;
	if (srq) {
		qp->srqn = srqn;
		srq->users++;
	}
	hca->cqs[scqn].users++;
	hca->cqs[rcqn].users++;
	vroce_hca_qp_db_clear(hca, slot);
	resp->qpn = cpu_to_le32(qp->qpn);
	return VROCE_CMD_OK;
}

/*
 * Issue 34: whether MODIFY_QP's path part (VROCE_CAP_QP_PATH) is valid
 * for @qp. An HCA without the capability read @state and @access as 32-bit
 * numbers: their upper bytes must be zero, and the bytes after @dmac are
 * not read.
 */
static bool vroce_hca_path_ok(const struct vroce_hca *hca,
			      const struct vroce_hca_qp *qp,
			      const struct vroce_cmd_modify_qp *cmd)
{
	u8 flags = cmd->flags, allowed;

	if (!(hca->caps & VROCE_CAP_QP_PATH))
		return !cmd->path_mtu && !cmd->sgid_index && !flags &&
		       !cmd->max_rd_atomic && !cmd->max_dest_rd_atomic &&
		       !cmd->hop_limit;
	switch (qp->type) {
	case VROCE_QPT_RC:
		allowed = VROCE_MODIFY_F_ALL;
		break;
	case VROCE_QPT_UC:
		allowed = VROCE_MODIFY_F_ALL & ~VROCE_MODIFY_F_RD_ATOMIC;
		break;
	default:
		allowed = VROCE_MODIFY_F_SQ_PSN;
		break;
	}
	if ((flags & ~allowed) || cmd->rsvd)
		return false;
	/* A part not set is all zero. */
	if (!(flags & VROCE_MODIFY_F_SQ_PSN) && cmd->sq_psn)
		return false;
	if (!(flags & VROCE_MODIFY_F_RQ_PSN) && cmd->rq_psn)
		return false;
	if (!(flags & VROCE_MODIFY_F_RD_ATOMIC) &&
	    (cmd->max_rd_atomic || cmd->max_dest_rd_atomic))
		return false;
	if (!(flags & VROCE_MODIFY_F_PATH) &&
	    (cmd->path_mtu || cmd->sgid_index || cmd->hop_limit ||
	     cmd->tclass || memchr_inv(cmd->dgid, 0, sizeof(cmd->dgid))))
		return false;
	if ((le32_to_cpu(cmd->sq_psn) | le32_to_cpu(cmd->rq_psn)) &
	    ~VROCE_PSN_MASK)
		return false;
	if (cmd->max_rd_atomic > VROCE_MAX_RD_ATOMIC ||
	    cmd->max_dest_rd_atomic > VROCE_MAX_RD_ATOMIC)
		return false;
	if (!(flags & VROCE_MODIFY_F_PATH))
		return true;
	/*
	 * A port on a netdev carries packets of its MTU at most: the path's
	 * payload and the headers IBTA's largest take (iboe_get_mtu()).
	 */
	if (hca->link && cmd->path_mtu >= VROCE_IB_MTU_256 &&
	    cmd->path_mtu <= VROCE_IB_MTU_4096 &&
	    (128U << cmd->path_mtu) + VROCE_HCA_ROCE_HDRS >
	    READ_ONCE(hca->link->mtu))
		return false;
	/* The source GID must be in the table now: it is copied. */
	return cmd->path_mtu >= VROCE_IB_MTU_256 &&
	       cmd->path_mtu <= VROCE_IB_MTU_4096 &&
	       cmd->sgid_index < VROCE_MAX_GID &&
	       (hca->gid_valid & BIT(cmd->sgid_index)) &&
	       !(le32_to_cpu(cmd->qkey) & ~VROCE_FLOW_LABEL_MASK);
}

/* Take the parts of the path MODIFY_QP sets (vroce_hca_path_ok()). */
static void vroce_hca_path_set(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       const struct vroce_cmd_modify_qp *cmd)
{
	struct vroce_hca_qp_path *path = &qp->path;

	if (!(hca->caps & VROCE_CAP_QP_PATH))
		return;
	if (cmd->flags & VROCE_MODIFY_F_SQ_PSN)
		path->sq_psn = le32_to_cpu(cmd->sq_psn);
	/* The responder over packets starts afresh at the new PSN. */
	if (cmd->flags & VROCE_MODIFY_F_RQ_PSN) {
		path->rq_psn = le32_to_cpu(cmd->rq_psn);
		vroce_hca_rc_resp_end(hca, qp, false);
		qp->rc = (struct vroce_hca_rc_resp){
			.psn = path->rq_psn,
			.ack_psn = (path->rq_psn - 1) & VROCE_PSN_MASK,
			.msn = qp->rc.msn,
		};
	}
	if (cmd->flags & VROCE_MODIFY_F_RD_ATOMIC) {
		path->max_rd_atomic = cmd->max_rd_atomic;
		path->max_dest_rd_atomic = cmd->max_dest_rd_atomic;
	}
	if (cmd->flags & VROCE_MODIFY_F_PATH) {
		path->mtu = cmd->path_mtu;
		path->hop_limit = cmd->hop_limit;
		path->tclass = cmd->tclass;
		path->flow_label = le32_to_cpu(cmd->qkey);
		memcpy(path->sgid, hca->gid[cmd->sgid_index], sizeof(path->sgid));
		memcpy(path->dgid, cmd->dgid, sizeof(path->dgid));
	}
	path->set |= cmd->flags;
	/* The requester over packets starts afresh at the new PSN. */
	if (cmd->flags & VROCE_MODIFY_F_SQ_PSN)
		vroce_hca_rc_req_reset(hca, qp);
}

/**
 * vroce_hca_modify_qp() - MODIFY_QP: a new state and the QP's attributes
 * @hca: the HCA
 * @cmd: the request
 *
 * The driver checks the state machine; the HCA refuses only to leave ERR
 * for anything but RESET or ERR, since the driver may not yet know of an
 * error the HCA found. Every attribute in @cmd replaces the QP's, but the
 * parts of the path (VROCE_CAP_QP_PATH) its flags do not name. To RESET
 * forgets the rings' progress, the recorded doorbells and the path. To ERR
 * completes every outstanding WQE of both queues with a flush error before
 * the response. Any new state ends an RNR wait: the head WQE is retried
 * at once, with its retries counted afresh.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, BUSY (the QP is in ERR), or BAD_PARAM
 * (state, access, retry counts, RNR timer code or a part of the path out
 * of range, or an empty source GID entry).
 */
u16 vroce_hca_modify_qp(struct vroce_hca *hca,
			const struct vroce_cmd_modify_qp *cmd)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, le32_to_cpu(cmd->qpn));
	u32 state = cmd->state, access = cmd->access;
	int q;

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	if (state > VROCE_QPS_ERR || (access & ~VROCE_ACC_MASK) ||
	    cmd->rnr_retry > VROCE_HCA_RNR_FOREVER || cmd->retry_cnt > 7 ||
	    cmd->min_rnr_timer >= ARRAY_SIZE(vroce_hca_rnr_usecs) ||
	    cmd->timeout > 31 || !vroce_hca_path_ok(hca, qp, cmd))
		return VROCE_CMD_BAD_PARAM;
	if (qp->state == VROCE_QPS_ERR && state != VROCE_QPS_ERR &&
	    state != VROCE_QPS_RESET)
		return VROCE_CMD_BUSY;

	qp->dest_qpn = le32_to_cpu(cmd->dest_qpn);
	qp->access = access;
	qp->rnr_retry = cmd->rnr_retry;
	qp->min_rnr_timer = cmd->min_rnr_timer;
	qp->retry_cnt = cmd->retry_cnt;
	qp->timeout = cmd->timeout;
	qp->qkey = le32_to_cpu(cmd->qkey);
	memcpy(qp->dmac, cmd->dmac, ETH_ALEN);
	/*
	 * A message in progress at the responder over packets ends (before
	 * a new RQ PSN, which would drop it unflushed).
	 */
	if (state == VROCE_QPS_RESET || state == VROCE_QPS_ERR)
		vroce_hca_rc_resp_end(hca, qp, state == VROCE_QPS_ERR);
	vroce_hca_path_set(hca, qp, cmd);
	qp->rnr_active = false;
	qp->retry_active = false;
	qp->rnr_wait = false;
	qp->rcreq.wait = VROCE_HCA_RC_WAIT_NONE;	/* its timer ended too */
	WRITE_ONCE(qp->state, state);
	smp_mb();	/* the state before the RQ index: see vroce_hca_db_qp() */
	if (state == VROCE_QPS_RESET) {
		for (q = VROCE_HCA_SQ; q <= VROCE_HCA_RQ; q++) {
			qp->wq[q].pi = 0;
			qp->wq[q].ci = 0;
		}
		qp->last_wqe = false;
		qp->msg_off = 0;
		memset(&qp->path, 0, sizeof(qp->path));
		memset(&qp->rc, 0, sizeof(qp->rc));
		memset(&qp->rcreq, 0, sizeof(qp->rcreq));
		skb_queue_purge(&hca->qpx[vroce_hca_qp_slot(hca, qp)].resp_q);
		hca->qpx[vroce_hca_qp_slot(hca, qp)].gen++;
		vroce_hca_qp_db_clear(hca, vroce_hca_qp_slot(hca, qp));
		return VROCE_CMD_OK;
	}
	vroce_hca_qp_kick(hca, qp);
	if (state == VROCE_QPS_ERR)
		vroce_hca_qp_run(hca, qp, 0);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_qp_path() - what the HCA holds of a QP's path and PSNs
 * @hca: the HCA
 * @qpn: the QP
 * @path: where a copy goes
 *
 * For tests: what MODIFY_QP left in the QP's context (issue 34).
 *
 * Context: process context; no lock of the HCA held.
 * Return: 0, or -ENOENT when the HCA has no such QP.
 */
int vroce_hca_qp_path(struct vroce_hca *hca, u32 qpn,
		      struct vroce_hca_qp_path *path)
{
	struct vroce_hca_qp *qp;
	int err = -ENOENT;

	down_read(hca->wire_lock);
	qp = vroce_hca_qp_of(hca, qpn);
	if (qp) {
		*path = qp->path;
		err = 0;
	}
	up_read(hca->wire_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_qp_path);

/* ---- multicast groups ---- */

/* Take QP @qpn out of group @g; the group goes with its last QP. */
static void vroce_hca_mcg_del(struct vroce_hca_mcg *g, u32 i)
{
	g->nqp--;
	memmove(&g->qpn[i], &g->qpn[i + 1], (g->nqp - i) * sizeof(g->qpn[0]));
	if (!g->nqp)
		memset(g, 0, sizeof(*g));
}

/* The QP's place in @g, or VROCE_MAX_MCG_QP when it is not attached. */
static u32 vroce_hca_mcg_pos(const struct vroce_hca_mcg *g, u32 qpn)
{
	u32 i;

	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return i;
	return VROCE_MAX_MCG_QP;
}

/* A QP that goes leaves every group (DESTROY_QP). */
static void vroce_hca_mcast_forget(struct vroce_hca *hca, u32 qpn)
{
	u32 i, pos;

	for (i = 0; i < VROCE_MAX_MCG; i++) {
		if (!hca->mcg[i].nqp)
			continue;
		pos = vroce_hca_mcg_pos(&hca->mcg[i], qpn);
		if (pos != VROCE_MAX_MCG_QP)
			vroce_hca_mcg_del(&hca->mcg[i], pos);
	}
}

/* The UD QP a multicast command names, and a status when there is none. */
static u16 vroce_hca_mcast_qp(struct vroce_hca *hca,
			      const struct vroce_cmd_mcast *cmd,
			      struct vroce_hca_qp **qp)
{
	if (!(hca->caps & VROCE_CAP_MCAST))
		return VROCE_CMD_BAD_OPCODE;
	*qp = vroce_hca_qp_of(hca, le32_to_cpu(cmd->qpn));
	if (!*qp)
		return VROCE_CMD_BAD_HANDLE;
	if ((*qp)->type != VROCE_QPT_UD || cmd->rsvd ||
	    !vroce_hca_gid_mcast(cmd->gid))
		return VROCE_CMD_BAD_PARAM;
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_attach_mcast() - ATTACH_MCAST: a UD QP joins a multicast group
 * @hca: the HCA
 * @cmd: the request
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_OPCODE (no VROCE_CAP_MCAST), BAD_HANDLE (no
 * such QP), BAD_PARAM (not a UD QP, not a multicast GID, or attached to
 * the group already) or NO_RESOURCE (no free group, or the group full).
 */
u16 vroce_hca_attach_mcast(struct vroce_hca *hca,
			   const struct vroce_cmd_mcast *cmd)
{
	struct vroce_hca_mcg *g;
	struct vroce_hca_qp *qp;
	u16 status;
	u32 i;

	status = vroce_hca_mcast_qp(hca, cmd, &qp);
	if (status)
		return status;
	g = vroce_hca_mcg_find(hca, cmd->gid);
	if (g && vroce_hca_mcg_pos(g, qp->qpn) != VROCE_MAX_MCG_QP)
		return VROCE_CMD_BAD_PARAM;
	if (!g) {
		for (i = 0; i < VROCE_MAX_MCG && hca->mcg[i].nqp; i++)
			;
		if (i == VROCE_MAX_MCG)
			return VROCE_CMD_NO_RESOURCE;
		g = &hca->mcg[i];
		memcpy(g->gid, cmd->gid, sizeof(g->gid));
	}
	if (g->nqp == VROCE_MAX_MCG_QP)
		return VROCE_CMD_NO_RESOURCE;
	g->qpn[g->nqp++] = qp->qpn;
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_detach_mcast() - DETACH_MCAST: a UD QP leaves a multicast group
 * @hca: the HCA
 * @cmd: the request
 *
 * Once this returns no datagram to the group reaches the QP.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_OPCODE, BAD_HANDLE, or BAD_PARAM (not a UD
 * QP, not a multicast GID, or not attached to the group).
 */
u16 vroce_hca_detach_mcast(struct vroce_hca *hca,
			   const struct vroce_cmd_mcast *cmd)
{
	struct vroce_hca_mcg *g;
	struct vroce_hca_qp *qp;
	u16 status;
	u32 pos;

	status = vroce_hca_mcast_qp(hca, cmd, &qp);
	if (status)
		return status;
	g = vroce_hca_mcg_find(hca, cmd->gid);
	pos = g ? vroce_hca_mcg_pos(g, qp->qpn) : VROCE_MAX_MCG_QP;
	if (pos == VROCE_MAX_MCG_QP)
		return VROCE_CMD_BAD_PARAM;
	vroce_hca_mcg_del(g, pos);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_destroy_qp() - DESTROY_QP
 * @hca: the HCA
 * @cmd: the request
 *
 * Once this returns the engine never touches the QP's rings again, and
 * the QP is in no multicast group. Requesters waiting for a receive at
 * it retry now, and find no peer.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK or BAD_HANDLE.
 */
u16 vroce_hca_destroy_qp(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_qp *cmd)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, le32_to_cpu(cmd->qpn));
	u32 slot;

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	slot = vroce_hca_qp_slot(hca, qp);
	vroce_hca_mcast_forget(hca, qp->qpn);
	vroce_hca_mw_qp_gone(hca, qp->qpn);	/* issue 30 */
	hca->cqs[qp->scqn].users--;
	hca->cqs[qp->rcqn].users--;
	vroce_hca_rc_resp_end(hca, qp, false);
	if (qp->srqn)
		vroce_hca_srq_of(hca, qp->srqn)->users--;
	memset(qp, 0, sizeof(*qp));
	vroce_hca_qp_db_clear(hca, slot);
	vroce_hca_rnr_wake(hca, slot);
	/* Issue 34: READ responses for it go with it. */
	skb_queue_purge(&hca->qpx[slot].resp_q);
	return VROCE_CMD_OK;
}

/* ---- shared receive queues ---- */

/**
 * vroce_hca_create_srq() - CREATE_SRQ: an SRQ context over a ring of
 *	receive WQEs, the lowest free number
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the SRQN goes
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD), BAD_PARAM (depth, ring, a limit
 * beyond the depth) or NO_RESOURCE.
 */
u16 vroce_hca_create_srq(struct vroce_hca *hca,
			 const struct vroce_cmd_create_srq *cmd,
			 struct vroce_resp_create_srq *resp)
{
	u32 log2 = le32_to_cpu(cmd->depth_log2), limit = le32_to_cpu(cmd->limit);
	u32 pdn = le32_to_cpu(cmd->pdn), slot;
	u64 dbrec = le64_to_cpu(cmd->dbrec);
	struct vroce_hca_srq *srq;
	struct vroce_hca_wq wq;
	unsigned long flags;

	if (!vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (!vroce_hca_wq_from_cmd(&wq, &cmd->ring, log2, VROCE_RECV_WQE_SIZE) ||
	    limit > BIT(log2))
		return VROCE_CMD_BAD_PARAM;
	if (dbrec && (!(hca->caps & VROCE_CAP_MAPPED) ||
		      !vroce_hca_dbrec_ok(hca, dbrec)))
		return VROCE_CMD_BAD_PARAM;
	for (slot = 0; slot < VROCE_MAX_SRQ; slot++)
		if (!hca->srqs[slot].valid)
			break;
	if (slot == VROCE_MAX_SRQ)
		return VROCE_CMD_NO_RESOURCE;

	srq = &hca->srqs[slot];
	memset(srq, 0, sizeof(*srq));
	srq->valid = true;
	srq->srqn = VROCE_SRQN_BASE + slot;
	srq->pdn = pdn;
	srq->wq = wq;
	srq->limit = limit;
	srq->dbrec = dbrec;
	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->srq_db[slot] = 0;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	resp->srqn = cpu_to_le32(srq->srqn);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_modify_srq() - MODIFY_SRQ: arm the limit event, or disarm it
 * @hca: the HCA
 * @cmd: the request
 *
 * Context: the command processor, @hca->wire_lock held (no engine is in
 * the SRQ's queue).
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BAD_PARAM (a limit beyond the
 * depth).
 */
u16 vroce_hca_modify_srq(struct vroce_hca *hca,
			 const struct vroce_cmd_modify_srq *cmd)
{
	struct vroce_hca_srq *srq = vroce_hca_srq_of(hca, le32_to_cpu(cmd->srqn));
	u32 limit = le32_to_cpu(cmd->limit);

	if (!srq)
		return VROCE_CMD_BAD_HANDLE;
	if (limit > BIT(srq->wq.ring.depth_log2))
		return VROCE_CMD_BAD_PARAM;
	srq->limit = limit;
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_destroy_srq() - DESTROY_SRQ
 * @hca: the HCA
 * @cmd: the request
 *
 * Once this succeeds the engine never touches the SRQ's ring again.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BUSY while a QP is attached.
 */
u16 vroce_hca_destroy_srq(struct vroce_hca *hca,
			  const struct vroce_cmd_srq *cmd)
{
	struct vroce_hca_srq *srq = vroce_hca_srq_of(hca, le32_to_cpu(cmd->srqn));
	unsigned long flags;
	u32 slot;

	if (!srq)
		return VROCE_CMD_BAD_HANDLE;
	if (srq->users)
		return VROCE_CMD_BUSY;
	slot = srq - hca->srqs;
	memset(srq, 0, sizeof(*srq));
	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->srq_db[slot] = 0;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	return VROCE_CMD_OK;
}

/*
 * Review of issue 31: the WQEs posted to @srq and not taken, from the
 * producer index posted now (the record's or DB_SRQ's) rather than the
 * one the data path last took; an index the data path would refuse (more
 * than the depth ahead, or behind what it took) counts as what it took.
 * Nothing changes: the data path finds a bad index itself.
 */
static u32 vroce_hca_srq_posted(struct vroce_hca *hca,
				const struct vroce_hca_srq *srq)
{
	const struct vroce_hca_wq *wq = &srq->wq;
	u32 slot = srq - hca->srqs, pi;
	unsigned long flags;
	u16 rung;

	if (srq->dbrec) {
		if (!vroce_hca_dbrec_read(hca, srq->dbrec, 0, &pi))
			pi = wq->pi;
	} else {
		spin_lock_irqsave(&hca->reg_lock, flags);
		rung = hca->srq_db[slot];
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		pi = wq->ci + (u16)(rung - (u16)wq->ci);
	}
	if (pi - wq->ci > BIT(wq->ring.depth_log2) || (s32)(pi - wq->pi) < 0)
		pi = wq->pi;
	return pi - wq->ci;
}

/**
 * vroce_hca_query_srq() - QUERY_SRQ: the armed limit and the WQEs posted
 *	(vroce_hca_srq_posted())
 * @hca: the HCA
 * @cmd: the request
 * @resp: where they go
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK or BAD_HANDLE.
 */
u16 vroce_hca_query_srq(struct vroce_hca *hca, const struct vroce_cmd_srq *cmd,
			struct vroce_resp_query_srq *resp)
{
	struct vroce_hca_srq *srq = vroce_hca_srq_of(hca, le32_to_cpu(cmd->srqn));

	if (!srq)
		return VROCE_CMD_BAD_HANDLE;
	resp->limit = cpu_to_le32(srq->limit);
	resp->posted = cpu_to_le32(vroce_hca_srq_posted(hca, srq));
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_qp_dbrec() - QP_DBREC: give a QP in RESET its doorbell record
 * @hca: the HCA
 * @cmd: the request
 *
 * From now on the QP's producer indexes come from the record (issue 31,
 * mapped rings); DB_SQ only says when to look.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BAD_PARAM (a GSI QP, not in RESET,
 * a record already, an address not aligned or not memory).
 */
u16 vroce_hca_qp_dbrec(struct vroce_hca *hca,
		       const struct vroce_cmd_qp_dbrec *cmd)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, le32_to_cpu(cmd->qpn));
	u64 dbrec = le64_to_cpu(cmd->dbrec);

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	if (qp->type == VROCE_QPT_GSI || qp->state != VROCE_QPS_RESET ||
	    qp->dbrec || cmd->rsvd || !vroce_hca_dbrec_ok(hca, dbrec))
		return VROCE_CMD_BAD_PARAM;
	qp->dbrec = dbrec;
	return VROCE_CMD_OK;
}
