// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, QP and CQ contexts: the CREATE_CQ, DESTROY_CQ,
 * CREATE_QP, MODIFY_QP and DESTROY_QP commands, and the PDs QPs use.
 */

#include <linux/bitfield.h>
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
 * vroce_hca_pd_busy() - whether a QP still uses a protection domain
 * @hca: the HCA
 * @pdn: the PD
 *
 * Context: @hca->wire_lock held.
 * Return: true when some QP belongs to @pdn.
 */
bool vroce_hca_pd_busy(struct vroce_hca *hca, u32 pdn)
{
	u32 i;

	for (i = 0; i < VROCE_MAX_QP; i++)
		if (hca->qps[i].valid && hca->qps[i].pdn == pdn)
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
	struct vroce_hca_ring ring;
	unsigned long flags;

	if (log2 < 1 || log2 > VROCE_MAX_CQ_DEPTH_LOG2 ||
	    !vroce_hca_ring_from_cmd(&ring, &cmd->ring, log2, VROCE_CQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	for (cqn = 0; cqn < VROCE_MAX_CQ; cqn++)
		if (!hca->cqs[cqn].valid)
			break;
	if (cqn == VROCE_MAX_CQ)
		return VROCE_CMD_NO_RESOURCE;

	memset(&hca->cqs[cqn], 0, sizeof(hca->cqs[cqn]));
	hca->cqs[cqn].ring = ring;
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

/* Forget the doorbells of QP slot @slot. */
static void vroce_hca_qp_db_clear(struct vroce_hca *hca, u32 slot)
{
	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	memset(&hca->qp_db[slot], 0, sizeof(hca->qp_db[slot]));
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}

/**
 * vroce_hca_create_qp() - CREATE_QP: an RC, UD or GSI QP context, in RESET
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the QPN goes
 *
 * The driver names the QP (as hns and mlx4 drivers do): the number decides
 * the context slot, VROCE_QPN_BASE + slot. The GSI QP has slot 0 and
 * number VROCE_GSI_QPN; there is one. RC and UD QPs take the other slots.
 * The driver gives a number again only once nothing of its last QP can
 * still reach it, which the HCA cannot know.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD or CQ), BAD_PARAM (type, depth,
 * ring, or a number out of range for the type) or BUSY (the number's
 * slot is in use).
 */
u16 vroce_hca_create_qp(struct vroce_hca *hca,
			const struct vroce_cmd_create_qp *cmd,
			struct vroce_resp_create_qp *resp)
{
	u32 scqn = le32_to_cpu(cmd->scqn), rcqn = le32_to_cpu(cmd->rcqn);
	u32 pdn = le32_to_cpu(cmd->pdn), qpn = le32_to_cpu(cmd->qpn);
	u32 slot = vroce_hca_qpn_slot(qpn);
	struct vroce_hca_wq sq, rq;
	struct vroce_hca_qp *qp;

	if (!vroce_hca_pd_valid(hca, pdn) || !vroce_hca_cq_of(hca, scqn) ||
	    !vroce_hca_cq_of(hca, rcqn))
		return VROCE_CMD_BAD_HANDLE;
	if (cmd->type > VROCE_QPT_GSI ||
	    !vroce_hca_wq_from_cmd(&sq, &cmd->sq, cmd->sq_depth_log2,
				   VROCE_SEND_WQE_SIZE) ||
	    !vroce_hca_wq_from_cmd(&rq, &cmd->rq, cmd->rq_depth_log2,
				   VROCE_RECV_WQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	if (slot == VROCE_MAX_QP)
		return VROCE_CMD_BAD_PARAM;
	/* Slot 0 is the GSI QP's, and only its. */
	if (cmd->type == VROCE_QPT_GSI ? slot : !slot)
		return VROCE_CMD_BAD_PARAM;
	if (hca->qps[slot].valid)
		return VROCE_CMD_BUSY;

	qp = &hca->qps[slot];
	memset(qp, 0, sizeof(*qp));
	qp->valid = true;
	qp->type = cmd->type;
	qp->qpn = qpn;
	qp->pdn = pdn;
	qp->scqn = scqn;
	qp->rcqn = rcqn;
	qp->sq_sig_all = cmd->sq_sig_all;
	qp->state = VROCE_QPS_RESET;
	qp->wq[VROCE_HCA_SQ] = sq;
	qp->wq[VROCE_HCA_RQ] = rq;
	hca->cqs[scqn].users++;
	hca->cqs[rcqn].users++;
	vroce_hca_qp_db_clear(hca, slot);
	resp->qpn = cpu_to_le32(qp->qpn);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_modify_qp() - MODIFY_QP: a new state and the QP's attributes
 * @hca: the HCA
 * @cmd: the request
 *
 * The driver checks the state machine; the HCA refuses only to leave ERR
 * for anything but RESET or ERR, since the driver may not yet know of an
 * error the HCA found. Every attribute in @cmd replaces the QP's. To RESET
 * forgets the rings' progress and the recorded doorbells. To ERR completes
 * every outstanding WQE of both queues with a flush error before the
 * response. Any new state ends an RNR wait: the head WQE is retried at
 * once, with its retries counted afresh.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, BUSY (the QP is in ERR), or BAD_PARAM
 * (state, access, retry counts or RNR timer code out of range).
 */
u16 vroce_hca_modify_qp(struct vroce_hca *hca,
			const struct vroce_cmd_modify_qp *cmd)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, le32_to_cpu(cmd->qpn));
	u32 state = le32_to_cpu(cmd->state), access = le32_to_cpu(cmd->access);
	int q;

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	if (state > VROCE_QPS_ERR || (access & ~VROCE_ACC_MASK) ||
	    cmd->rnr_retry > VROCE_HCA_RNR_FOREVER || cmd->retry_cnt > 7 ||
	    cmd->min_rnr_timer >= ARRAY_SIZE(vroce_hca_rnr_usecs) ||
	    cmd->timeout > 31)
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
	qp->rnr_active = false;
	qp->retry_active = false;
	qp->rnr_wait = false;
	WRITE_ONCE(qp->state, state);
	smp_mb();	/* the state before the RQ index: see vroce_hca_db_qp() */
	if (state == VROCE_QPS_RESET) {
		for (q = VROCE_HCA_SQ; q <= VROCE_HCA_RQ; q++) {
			qp->wq[q].pi = 0;
			qp->wq[q].ci = 0;
		}
		qp->msg_off = 0;
		vroce_hca_qp_db_clear(hca, vroce_hca_qp_slot(hca, qp));
		return VROCE_CMD_OK;
	}
	vroce_hca_qp_kick(hca, qp);
	if (state == VROCE_QPS_ERR)
		vroce_hca_qp_run(hca, qp, 0);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_destroy_qp() - DESTROY_QP
 * @hca: the HCA
 * @cmd: the request
 *
 * Once this returns the engine never touches the QP's rings again.
 * Requesters waiting for a receive at it retry now, and find no peer.
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
	hca->cqs[qp->scqn].users--;
	hca->cqs[qp->rcqn].users--;
	memset(qp, 0, sizeof(*qp));
	vroce_hca_qp_db_clear(hca, slot);
	vroce_hca_rnr_wake(hca, slot);
	return VROCE_CMD_OK;
}
