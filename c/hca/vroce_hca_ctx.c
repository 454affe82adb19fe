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
static bool vroce_emu_ring_from_cmd(struct vroce_emu_ring *ring,
				    const struct vroce_cmd_ring *cmd,
				    u32 depth_log2, u32 entry_size)
{
	struct vroce_emu_mtt *mtt = &ring->mtt;
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
static bool vroce_emu_wq_from_cmd(struct vroce_emu_wq *wq,
				  const struct vroce_cmd_ring *cmd,
				  u32 depth_log2, u32 entry_size)
{
	memset(wq, 0, sizeof(*wq));
	return depth_log2 >= 1 && depth_log2 <= VROCE_MAX_WQ_DEPTH_LOG2 &&
	       vroce_emu_ring_from_cmd(&wq->ring, cmd, depth_log2, entry_size);
}

/* ---- lookups ---- */

static struct vroce_emu_cq *vroce_emu_cq_of(struct vroce_emu *emu, u32 cqn)
{
	if (cqn >= VROCE_MAX_CQ || !emu->cqs[cqn].valid)
		return NULL;
	return &emu->cqs[cqn];
}

/* ---- commands ---- */

/**
 * vroce_emu_pd_busy() - whether a QP still uses a protection domain
 * @emu: the HCA
 * @pdn: the PD
 *
 * Context: @emu->lock held.
 * Return: true when some QP belongs to @pdn.
 */
bool vroce_emu_pd_busy(struct vroce_emu *emu, u32 pdn)
{
	u32 i;

	for (i = 0; i < VROCE_MAX_QP; i++)
		if (emu->qps[i].valid && emu->qps[i].pdn == pdn)
			return true;
	return false;
}

/**
 * vroce_emu_create_cq() - CREATE_CQ: a CQ context over a ring of CQEs
 * @emu: the HCA
 * @cmd: the request
 * @resp: where the CQN goes
 *
 * Context: the command processor, @emu->lock held.
 * Return: VROCE_CMD_OK, BAD_PARAM (depth or ring) or NO_RESOURCE.
 */
u16 vroce_emu_create_cq(struct vroce_emu *emu,
			const struct vroce_cmd_create_cq *cmd,
			struct vroce_resp_create_cq *resp)
{
	u32 log2 = le32_to_cpu(cmd->depth_log2), cqn;
	struct vroce_emu_ring ring;
	unsigned long flags;

	if (log2 < 1 || log2 > VROCE_MAX_CQ_DEPTH_LOG2 ||
	    !vroce_emu_ring_from_cmd(&ring, &cmd->ring, log2, VROCE_CQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	for (cqn = 0; cqn < VROCE_MAX_CQ; cqn++)
		if (!emu->cqs[cqn].valid)
			break;
	if (cqn == VROCE_MAX_CQ)
		return VROCE_CMD_NO_RESOURCE;

	memset(&emu->cqs[cqn], 0, sizeof(emu->cqs[cqn]));
	emu->cqs[cqn].ring = ring;
	emu->cqs[cqn].valid = true;
	spin_lock_irqsave(&emu->reg_lock, flags);
	memset(&emu->cq_db[cqn], 0, sizeof(emu->cq_db[cqn]));
	spin_unlock_irqrestore(&emu->reg_lock, flags);
	resp->cqn = cpu_to_le32(cqn);
	return VROCE_CMD_OK;
}

/**
 * vroce_emu_destroy_cq() - DESTROY_CQ
 * @emu: the HCA
 * @cmd: the request
 *
 * The HCA writes nothing to the CQ's ring once this succeeds; a delayed
 * completion event for it is forgotten.
 *
 * Context: the command processor, @emu->lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, or BUSY while a QP completes to it.
 */
u16 vroce_emu_destroy_cq(struct vroce_emu *emu,
			 const struct vroce_cmd_destroy_cq *cmd)
{
	struct vroce_emu_cq *cq = vroce_emu_cq_of(emu, le32_to_cpu(cmd->cqn));

	if (!cq)
		return VROCE_CMD_BAD_HANDLE;
	if (cq->users)
		return VROCE_CMD_BUSY;
	memset(cq, 0, sizeof(*cq));
	return VROCE_CMD_OK;
}

/* Forget the doorbells of QP slot @slot. */
static void vroce_emu_qp_db_clear(struct vroce_emu *emu, u32 slot)
{
	unsigned long flags;

	spin_lock_irqsave(&emu->reg_lock, flags);
	memset(&emu->qp_db[slot], 0, sizeof(emu->qp_db[slot]));
	spin_unlock_irqrestore(&emu->reg_lock, flags);
}

/**
 * vroce_emu_create_qp() - CREATE_QP: an RC, UD or GSI QP context, in RESET
 * @emu: the HCA
 * @cmd: the request
 * @resp: where the QPN goes
 *
 * The driver names the QP (as hns and mlx4 drivers do): the number decides
 * the context slot, VROCE_QPN_BASE + slot. The GSI QP has slot 0 and
 * number VROCE_GSI_QPN; there is one. RC and UD QPs take the other slots.
 * The driver gives a number again only once nothing of its last QP can
 * still reach it, which the HCA cannot know.
 *
 * Context: the command processor, @emu->lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD or CQ), BAD_PARAM (type, depth,
 * ring, or a number out of range for the type) or BUSY (the number's
 * slot is in use).
 */
u16 vroce_emu_create_qp(struct vroce_emu *emu,
			const struct vroce_cmd_create_qp *cmd,
			struct vroce_resp_create_qp *resp)
{
	u32 scqn = le32_to_cpu(cmd->scqn), rcqn = le32_to_cpu(cmd->rcqn);
	u32 pdn = le32_to_cpu(cmd->pdn), qpn = le32_to_cpu(cmd->qpn);
	u32 slot = vroce_emu_qpn_slot(qpn);
	struct vroce_emu_wq sq, rq;
	struct vroce_emu_qp *qp;

	if (!vroce_emu_pd_valid(emu, pdn) || !vroce_emu_cq_of(emu, scqn) ||
	    !vroce_emu_cq_of(emu, rcqn))
		return VROCE_CMD_BAD_HANDLE;
	if (cmd->type > VROCE_QPT_GSI ||
	    !vroce_emu_wq_from_cmd(&sq, &cmd->sq, cmd->sq_depth_log2,
				   VROCE_SEND_WQE_SIZE) ||
	    !vroce_emu_wq_from_cmd(&rq, &cmd->rq, cmd->rq_depth_log2,
				   VROCE_RECV_WQE_SIZE))
		return VROCE_CMD_BAD_PARAM;
	if (slot == VROCE_MAX_QP)
		return VROCE_CMD_BAD_PARAM;
	/* Slot 0 is the GSI QP's, and only its. */
	if (cmd->type == VROCE_QPT_GSI ? slot : !slot)
		return VROCE_CMD_BAD_PARAM;
	if (emu->qps[slot].valid)
		return VROCE_CMD_BUSY;

	qp = &emu->qps[slot];
	memset(qp, 0, sizeof(*qp));
	qp->valid = true;
	qp->type = cmd->type;
	qp->qpn = qpn;
	qp->pdn = pdn;
	qp->scqn = scqn;
	qp->rcqn = rcqn;
	qp->sq_sig_all = cmd->sq_sig_all;
	qp->state = VROCE_QPS_RESET;
	qp->wq[VROCE_EMU_SQ] = sq;
	qp->wq[VROCE_EMU_RQ] = rq;
	emu->cqs[scqn].users++;
	emu->cqs[rcqn].users++;
	vroce_emu_qp_db_clear(emu, slot);
	resp->qpn = cpu_to_le32(qp->qpn);
	return VROCE_CMD_OK;
}

/**
 * vroce_emu_modify_qp() - MODIFY_QP: a new state and the QP's attributes
 * @emu: the HCA
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
 * Context: the command processor, @emu->lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE, BUSY (the QP is in ERR), or BAD_PARAM
 * (state, access, retry counts or RNR timer code out of range).
 */
u16 vroce_emu_modify_qp(struct vroce_emu *emu,
			const struct vroce_cmd_modify_qp *cmd)
{
	struct vroce_emu_qp *qp = vroce_emu_qp_of(emu, le32_to_cpu(cmd->qpn));
	u32 state = le32_to_cpu(cmd->state), access = le32_to_cpu(cmd->access);
	int q;

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	if (state > VROCE_QPS_ERR || (access & ~VROCE_ACC_MASK) ||
	    cmd->rnr_retry > VROCE_EMU_RNR_FOREVER || cmd->retry_cnt > 7 ||
	    cmd->min_rnr_timer >= ARRAY_SIZE(vroce_emu_rnr_usecs) ||
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
	smp_mb();	/* the state before the RQ index: see vroce_emu_db_qp() */
	if (state == VROCE_QPS_RESET) {
		for (q = VROCE_EMU_SQ; q <= VROCE_EMU_RQ; q++) {
			qp->wq[q].pi = 0;
			qp->wq[q].ci = 0;
		}
		vroce_emu_qp_db_clear(emu, vroce_emu_qp_slot(emu, qp));
		return VROCE_CMD_OK;
	}
	vroce_emu_qp_kick(emu, qp);
	if (state == VROCE_QPS_ERR)
		vroce_emu_qp_run(emu, qp, 0);
	return VROCE_CMD_OK;
}

/**
 * vroce_emu_destroy_qp() - DESTROY_QP
 * @emu: the HCA
 * @cmd: the request
 *
 * Once this returns the engine never touches the QP's rings again.
 * Requesters waiting for a receive at it retry now, and find no peer.
 *
 * Context: the command processor, @emu->lock held.
 * Return: VROCE_CMD_OK or BAD_HANDLE.
 */
u16 vroce_emu_destroy_qp(struct vroce_emu *emu,
			 const struct vroce_cmd_destroy_qp *cmd)
{
	struct vroce_emu_qp *qp = vroce_emu_qp_of(emu, le32_to_cpu(cmd->qpn));
	u32 slot;

	if (!qp)
		return VROCE_CMD_BAD_HANDLE;
	slot = vroce_emu_qp_slot(emu, qp);
	emu->cqs[qp->scqn].users--;
	emu->cqs[qp->rcqn].users--;
	memset(qp, 0, sizeof(*qp));
	vroce_emu_qp_db_clear(emu, slot);
	vroce_emu_rnr_wake(emu, slot);
	return VROCE_CMD_OK;
}
