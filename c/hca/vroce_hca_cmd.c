// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the command processor.
 *
 * When the driver writes CMDQ_PI while the HCA is enabled, the command work
 * runs in the HCA's ordered workqueue, holding hca->wire_lock for writing (no
 * engine runs meanwhile): it takes each
 * command up to the producer index (the doorbell record's when CMDQ_DBR
 * names one, else CMDQ_PI's) from the command ring (reached through its tables, as CMDQ_BA
 * and CMDQ_CFG program it), carries it out, writes the response into the
 * second half of the command's slot, then moves CMDQ_CI and raises
 * VROCE_INTR_CMD_DONE on the command vector, once per completed command.
 * The fault knobs fail_cmds, fail_status, drop_cmds, delay_ms and
 * fault_opcode act here. Before it stops, it writes the index it stopped at
 * into the doorbell record's event and reads the producer index once more
 * (struct vroce_cmdq_dbr).
 *
 * QUERY_DEVICE and the PD commands are carried out here (DESTROY_PD asks
 * both the engine and the MPT whether something still names the PD); the
 * MR commands by the MPT, the CQ and QP commands by the data path engine.
 *
 * Calls: c/hca/vroce_hca_ctx.c (CQ and QP commands, PDs in use),
 * c/hca/vroce_hca_comp.c (the event interrupt), c/hca/vroce_hca_mpt.c
 * (MR commands, PDs), c/hca/vroce_hca_core.c (the command ring, the
 * command interrupt).
 */

#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/delay.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

/* The IEEE OUI vroce GUIDs carry: locally administered (0x02 bit). */
#define VROCE_HCA_VENDOR_ID		0x02f000
#define VROCE_HCA_MAX_CMDQ_DEPTH_LOG2	12

static u16 vroce_hca_create_pd(struct vroce_hca *hca,
			       struct vroce_resp_create_pd *resp)
{
	unsigned long pdn = find_first_zero_bit(hca->pd_map, VROCE_HCA_MAX_PD);

	if (pdn >= VROCE_HCA_MAX_PD)
		return VROCE_CMD_NO_RESOURCE;
	__set_bit(pdn, hca->pd_map);
	resp->pdn = cpu_to_le32(pdn);
	return VROCE_CMD_OK;
}

static u16 vroce_hca_destroy_pd(struct vroce_hca *hca,
				const struct vroce_cmd_destroy_pd *cmd)
{
	u32 pdn = le32_to_cpu(cmd->pdn);

	if (!vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (vroce_hca_pd_busy(hca, pdn) || vroce_hca_pd_has_mr(hca, pdn))
		return VROCE_CMD_BUSY;	/* a QP or an MR still names it */
	__clear_bit(pdn, hca->pd_map);
	return VROCE_CMD_OK;
}

static u16 vroce_hca_query_device(struct vroce_hca *hca,
				  struct vroce_resp_query_device *resp)
{
	resp->max_mr_size = cpu_to_le64(VROCE_HCA_MAX_MR_SIZE);
	resp->page_size_cap = cpu_to_le64(VROCE_HCA_PAGE_SIZE_CAP);
	resp->max_pd = cpu_to_le32(VROCE_HCA_MAX_PD);
	resp->max_mr = cpu_to_le32(hca->max_mr);
	resp->max_fast_reg_pages = cpu_to_le32(VROCE_HCA_MAX_FRMR_PAGES);
	resp->vendor_id = cpu_to_le32(VROCE_HCA_VENDOR_ID);
	resp->max_qp = cpu_to_le32(VROCE_MAX_QP);
	resp->max_cq = cpu_to_le32(VROCE_MAX_CQ);
	resp->max_wq_depth_log2 = cpu_to_le32(VROCE_MAX_WQ_DEPTH_LOG2);
	resp->max_cq_depth_log2 = cpu_to_le32(VROCE_MAX_CQ_DEPTH_LOG2);
	memcpy(resp->mac, hca->mac, ETH_ALEN);
	resp->caps = hca->caps & 0xff;
	resp->caps_hi = hca->caps >> 8;
	return VROCE_CMD_OK;
}

/* Every request and response fits its half of a slot. */
static_assert(sizeof(struct vroce_cmd_create_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_enable_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_rereg_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_cq) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_modify_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_mcast) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_alloc_mw) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_resp_alloc_mw) <= VROCE_CMD_RESP_SIZE);
static_assert(sizeof(struct vroce_resp_query_device) <=
	      VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE);
/* caps took the byte after the MAC that was reserved (zero) before it. */
static_assert(offsetof(struct vroce_resp_query_device, caps) ==
	      offsetof(struct vroce_resp_query_device, mac) + 6);
static_assert(sizeof(struct vroce_resp_query_device) == 64);

static_assert(sizeof(struct vroce_cmd_resize_cq) <= VROCE_CMD_REQ_SIZE);
/* issue 31 */
static_assert(sizeof(struct vroce_cmd_qp_dbrec) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_srq) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_resp_query_counters) <=
	      VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE);

/* Review of issue 31 */
static_assert(sizeof(struct vroce_cmd_set_gid) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_resume_page_fault) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_resp_page_fault) <= VROCE_CMD_RESP_SIZE);

/*
 * SET_GID (review of issue 31): write or empty entry @index of the port's
 * GID table; the data path reads it under the wire's lock, which the
 * command processor holds for writing, so no WQE sees half an entry.
 */
static u16 vroce_hca_set_gid(struct vroce_hca *hca,
			     const struct vroce_cmd_set_gid *cmd)
{
	u32 index = le32_to_cpu(cmd->index), flags = le32_to_cpu(cmd->flags);
	bool zero = !memchr_inv(cmd->gid, 0, sizeof(cmd->gid));

	if (index >= VROCE_MAX_GID || (flags & ~VROCE_SET_GID_F_VALID) ||
	    zero == !!(flags & VROCE_SET_GID_F_VALID))
		return VROCE_CMD_BAD_PARAM;
	memcpy(hca->gid[index], cmd->gid, sizeof(hca->gid[index]));
	if (zero)
		hca->gid_valid &= ~BIT(index);
	else
		hca->gid_valid |= BIT(index);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_gid_reset() - a reset empties the GID table
 * @hca: the HCA
 *
 * Context: @hca->wire_lock held for writing.
 */
void vroce_hca_gid_reset(struct vroce_hca *hca)
{
	lockdep_assert_held_write(hca->wire_lock);
	memset(hca->gid, 0, sizeof(hca->gid));
	hca->gid_valid = 0;
}

/*
 * QUERY_COUNTERS: VROCE_CNT_PER_CMD counters from @first on. ud_dropped
 * has been the HCA's since before the counters; it is read as one.
 */
static u16 vroce_hca_query_counters(struct vroce_hca *hca,
				    const struct vroce_cmd_query_counters *cmd,
				    struct vroce_resp_query_counters *resp)
{
	u32 first = le32_to_cpu(cmd->first), i, c;
	unsigned long flags;
	u64 v;

	if (first >= VROCE_CNT_NUM || cmd->rsvd)
		return VROCE_CMD_BAD_PARAM;
	resp->num = cpu_to_le32(VROCE_CNT_NUM);
	for (i = 0; i < VROCE_CNT_PER_CMD; i++) {
		c = first + i;
		if (c >= VROCE_CNT_NUM)
			break;
		if (c == VROCE_CNT_UD_DROPPED) {
			spin_lock_irqsave(&hca->reg_lock, flags);
			v = hca->ud_dropped;
			spin_unlock_irqrestore(&hca->reg_lock, flags);
		} else {
			v = atomic64_read(&hca->cnt[c]);
		}
		resp->value[i] = cpu_to_le64(v);
	}
	return VROCE_CMD_OK;
}

static u16 vroce_hca_execute(struct vroce_hca *hca, const void *req,
			     void *resp)
{
	const struct vroce_cmd_hdr *hdr = req;

	switch (le16_to_cpu(hdr->opcode)) {
	case VROCE_CMD_QUERY_DEVICE:
		return vroce_hca_query_device(hca, resp);
	case VROCE_CMD_CREATE_PD:
		return vroce_hca_create_pd(hca, resp);
	case VROCE_CMD_DESTROY_PD:
		return vroce_hca_destroy_pd(hca, req);
	case VROCE_CMD_CREATE_MR:
		return vroce_hca_create_mr(hca, req, resp);
	case VROCE_CMD_DESTROY_MR:
		return vroce_hca_destroy_mr(hca, req);
	case VROCE_CMD_REREG_MR:
		return vroce_hca_rereg_mr(hca, req, resp);
	case VROCE_CMD_ENABLE_MR:
		if (!(hca->caps & VROCE_CAP_MR_ENABLE))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_enable_mr(hca, req, resp);
	case VROCE_CMD_REVOKE_MR:
		if (!(hca->caps & VROCE_CAP_MR_ENABLE))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_revoke_mr(hca, req);
	case VROCE_CMD_CREATE_CQ:
		return vroce_hca_create_cq(hca, req, resp);
	case VROCE_CMD_DESTROY_CQ:
		return vroce_hca_destroy_cq(hca, req);
	case VROCE_CMD_CREATE_QP:
		return vroce_hca_create_qp(hca, req, resp);
	case VROCE_CMD_MODIFY_QP:
		return vroce_hca_modify_qp(hca, req);
	case VROCE_CMD_DESTROY_QP:
		return vroce_hca_destroy_qp(hca, req);
	case VROCE_CMD_ATTACH_MCAST:
		return vroce_hca_attach_mcast(hca, req);
	case VROCE_CMD_DETACH_MCAST:
		return vroce_hca_detach_mcast(hca, req);
	case VROCE_CMD_RESIZE_CQ:
		return vroce_hca_resize_cq(hca, req, resp);
	case VROCE_CMD_QUERY_COUNTERS:
		return vroce_hca_query_counters(hca, req, resp);
	case VROCE_CMD_CREATE_SRQ:
		if (!(hca->caps & VROCE_CAP_SRQ))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_create_srq(hca, req, resp);
	case VROCE_CMD_MODIFY_SRQ:
		if (!(hca->caps & VROCE_CAP_SRQ))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_modify_srq(hca, req);
	case VROCE_CMD_DESTROY_SRQ:
		if (!(hca->caps & VROCE_CAP_SRQ))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_destroy_srq(hca, req);
	case VROCE_CMD_QUERY_SRQ:
		if (!(hca->caps & VROCE_CAP_SRQ))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_query_srq(hca, req, resp);
	case VROCE_CMD_ALLOC_MW:
		if (!(hca->caps & VROCE_CAP_MW))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_alloc_mw(hca, req, resp);
	case VROCE_CMD_DEALLOC_MW:
		if (!(hca->caps & VROCE_CAP_MW))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_dealloc_mw(hca, req);
	case VROCE_CMD_QP_DBREC:
		if (!(hca->caps & VROCE_CAP_MAPPED))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_qp_dbrec(hca, req);
	case VROCE_CMD_SET_GID:
		if (!(hca->caps & VROCE_CAP_GID_TABLE))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_set_gid(hca, req);
	case VROCE_CMD_QUERY_PAGE_FAULT:
		if (!(hca->caps & VROCE_CAP_ODP))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_query_page_fault(hca, req, resp);
	case VROCE_CMD_RESUME_PAGE_FAULT:
		if (!(hca->caps & VROCE_CAP_ODP))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_hca_resume_page_fault(hca, req);
	case VROCE_CMD_FENCE:
		/* Carried out with no engine inside: none is any more. */
		if (!(hca->caps & VROCE_CAP_ODP))
			return VROCE_CMD_BAD_OPCODE;
		return VROCE_CMD_OK;
	default:
		return VROCE_CMD_BAD_OPCODE;
	}
}

/*
 * Issue 33: a fault knob of the command processor is armed (or it hangs):
 * its commands are slow or wrong on purpose, and a lent context does not
 * carry them out (the work does, as without CMDQ_LEND). The knob files
 * store without @hca->wire_lock: read each once.
 */
static bool vroce_hca_cmd_knobs(struct vroce_hca *hca)
{
	return READ_ONCE(hca->delay_ms) || READ_ONCE(hca->fail_cmds) ||
	       READ_ONCE(hca->drop_cmds) || vroce_hca_hung(hca);
}

/*
 * Carry out one command. Return: 0; -EIO when the ring is unusable;
 * -EAGAIN, having consumed nothing, when @lent and a knob is armed.
 */
static int vroce_hca_one_cmd(struct vroce_hca *hca,
			     const struct vroce_hca_ring *ring, u32 ci,
			     bool lent, bool *complete)
{
	u8 req[VROCE_CMD_REQ_SIZE], resp[VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE];
	struct vroce_resp_hdr *rh = (void *)resp;
	const struct vroce_cmd_hdr *hdr = (void *)req;
	u32 delay = lent ? 0 : READ_ONCE(hca->delay_ms);
	bool faulty;
	u8 *p;
	u16 status;

	/* The one look a lent context takes at the knobs. */
	if (lent && vroce_hca_cmd_knobs(hca))
		return -EAGAIN;
	p = vroce_hca_ring_entry(hca, ring, ci);
	if (!p)
		return -EIO;
	memcpy(req, p, sizeof(req));
	memset(resp, 0, sizeof(resp));

	if (delay) {
		up_write(hca->wire_lock);
		msleep(delay);
		down_write(hca->wire_lock);
	}

	/*
	 * The knobs apply to every command, or to one opcode only; a lent
	 * context found them off above, and one armed since acts on the next.
	 */
	faulty = !lent && (!hca->fault_opcode ||
			   le16_to_cpu(hdr->opcode) == hca->fault_opcode);
	if (faulty && hca->fail_cmds) {
		hca->fail_cmds--;
		status = hca->fail_status ?: VROCE_CMD_INTERNAL;
	} else {
		status = vroce_hca_execute(hca, req, resp);
	}

	*complete = true;
	if (faulty && hca->drop_cmds) {
		hca->drop_cmds--;
		*complete = false;
		return 0;
	}

	rh->status = cpu_to_le16(status);
	rh->opcode = hdr->opcode;
	rh->token = hdr->token;
	memcpy(p + VROCE_CMD_REQ_SIZE, resp, sizeof(resp));
	return 0;
}

/*
 * The command doorbell record the driver gave, or NULL when it gave none
 * (the producer index is then the CMDQ_PI register's). @*bad is set when
 * it gave one the HCA cannot reach.
 */
static struct vroce_cmdq_dbr *vroce_hca_cmdq_dbr(struct vroce_hca *hca,
						 bool *bad)
{
	u64 dbr = (u64)vroce_hca_reg(hca, VROCE_REG_CMDQ_DBR + 4) << 32 |
		  vroce_hca_reg(hca, VROCE_REG_CMDQ_DBR);
	struct vroce_cmdq_dbr *rec;

	*bad = false;
	if (!dbr)
		return NULL;
	rec = IS_ALIGNED(dbr, sizeof(u64)) ?
	      vroce_hca_dma_to_virt(vroce_hca_dev(hca), dbr, sizeof(*rec)) :
	      NULL;
	*bad = !rec;
	return rec;
}

/*
 * Carry out the commands up to the producer index, with @hca->cmd_run
 * held. A context lent by CMDQ_LEND (@lent) carries out those before
 * @end alone (the writer's own: it found the HCA idle), and at an armed
 * knob none; it never waits for the wire's lock, and raises no CMD_DONE
 * interrupt (the writer collects the response when its write returns).
 * Return: true when a lent context stopped with commands left for the work.
 */
static bool vroce_hca_cmd_run(struct vroce_hca *hca, bool lent, u32 end)
{
	struct vroce_cmdq_dbr *dbr;
	struct vroce_hca_ring ring;
	bool complete, sane, bad, left = false;
	u32 pi, ci, ctrl;
	unsigned long flags;
	int err;

	lockdep_assert_held(&hca->cmd_run);
	/* A hung firmware consumes nothing; the reset forgets the ring. */
	if (vroce_hca_hung(hca))
		return false;
	/*
	 * A lent context never waits behind the engines: a submitter the
	 * scheduler treats as least of all must not hold up the wire.
	 */
	if (!lent)
		down_write(hca->wire_lock);
	else if (!down_write_trylock(hca->wire_lock))
		return true;
	for (;;) {
		spin_lock_irqsave(&hca->reg_lock, flags);
		ctrl = vroce_hca_reg(hca, VROCE_REG_CTRL);
		pi = vroce_hca_reg(hca, VROCE_REG_CMDQ_PI);
		ci = vroce_hca_reg(hca, VROCE_REG_CMDQ_CI);
		sane = vroce_hca_ring_from_regs(hca, VROCE_REG_CMDQ_BA,
						vroce_hca_reg(hca, VROCE_REG_CMDQ_CFG),
						VROCE_HCA_MAX_CMDQ_DEPTH_LOG2,
						VROCE_CMD_SLOT_SIZE, &ring);
		dbr = vroce_hca_cmdq_dbr(hca, &bad);
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		if (!(ctrl & VROCE_CTRL_ENABLE) || !sane || bad ||
		    vroce_hca_hung(hca))
			break;
		if (dbr) {
			pi = le32_to_cpu(READ_ONCE(dbr->pi));
			if (pi == ci) {
				/*
				 * Going idle: ask for the doorbell of the
				 * next command, then look once more for one
				 * posted meanwhile (the driver writes pi,
				 * then reads event).
				 */
				WRITE_ONCE(dbr->event, cpu_to_le32(ci));
				/* event before pi: pairs with the driver's mb() */
				smp_mb();
				pi = le32_to_cpu(READ_ONCE(dbr->pi));
			}
			/* The slots up to pi, as the driver wrote them. */
			dma_rmb();
		}
		if (pi == ci || pi - ci > BIT(ring.depth_log2))
			break;
		/*
		 * Lent: the writer's commands alone; those posted behind them
		 * go to the work, with their interrupts, so that no submitter
		 * waits for another's context to hand out its response.
		 */
		if (lent && (s32)(ci - end) >= 0) {
			left = true;
			break;
		}
		err = vroce_hca_one_cmd(hca, &ring, ci, lent, &complete);
		left = err == -EAGAIN;
		if (err)
			break;

		/* The response is in memory before the index moves. */
		spin_lock_irqsave(&hca->reg_lock, flags);
		hca->regs[VROCE_REG_CMDQ_CI / sizeof(u32)] = ci + 1;
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		/*
		 * One interrupt per completed command (coalesced while the
		 * handler has not run yet): a busy ring must not hold back
		 * the responses already written. None in a lent context,
		 * whose writer collects its own when its write returns.
		 */
		if (complete && !lent)
			vroce_hca_raise_irq(hca, VROCE_IRQ_CMD,
					    VROCE_INTR_CMD_DONE);
	}

	/* Events a command wrote (MODIFY_QP to ERR flushes). */
	vroce_hca_engine_raise(hca);
	up_write(hca->wire_lock);
	return left;
}

static void vroce_hca_cmd_work(struct work_struct *work)
{
	struct vroce_hca *hca = container_of(work, struct vroce_hca, cmd_work);

	mutex_lock(&hca->cmd_run);
	vroce_hca_cmd_run(hca, false, 0);
	mutex_unlock(&hca->cmd_run);
}

/**
 * vroce_hca_cmd_lend() - CMDQ_LEND: run the command processor right here
 * @hca: the HCA, enabled
 * @end: the value written: the producer index after the writer's commands
 *
 * Issue 33 (VROCE_CAP_CMD_LEND): the writer's context carries out its
 * commands, those before @end, before the write returns, raising no
 * CMD_DONE interrupt for them. When the processor or the wire's lock is
 * taken elsewhere, or a fault knob is armed, the write is a CMDQ_PI
 * doorbell: the work carries them out; and so it does the commands
 * posted behind the writer's.
 *
 * Context: process context, no spinlock held, may sleep.
 */
void vroce_hca_cmd_lend(struct vroce_hca *hca, u32 end)
{
	bool left = true;

	if ((READ_ONCE(hca->caps) & VROCE_CAP_CMD_LEND) &&
	    mutex_trylock(&hca->cmd_run)) {
		left = vroce_hca_cmd_run(hca, true, end);
		mutex_unlock(&hca->cmd_run);
	}
	if (left)
		queue_work(hca->wq, &hca->cmd_work);
}

/**
 * vroce_hca_cmd_quiesce() - wait until no command is being carried out
 * @hca: the HCA, its CTRL ENABLE bit cleared (nothing new starts)
 *
 * Context: process context, no lock of the HCA held.
 */
void vroce_hca_cmd_quiesce(struct vroce_hca *hca)
{
	flush_work(&hca->cmd_work);
	/* A lent context in the processor finishes its command. */
	mutex_lock(&hca->cmd_run);
	mutex_unlock(&hca->cmd_run);
}

/**
 * vroce_hca_cmd_init() - set up the command processor of a new HCA
 * @hca: the HCA
 *
 * Writing CMDQ_PI while the HCA is enabled queues its work on @hca->wq;
 * writing CMDQ_LEND runs it in the writer's context (vroce_hca_cmd_lend()).
 */
void vroce_hca_cmd_init(struct vroce_hca *hca)
{
	mutex_init(&hca->cmd_run);
	INIT_WORK(&hca->cmd_work, vroce_hca_cmd_work);
}

/* ---- fault knobs ---- */

/**
 * vroce_hca_set_faults() - set the fault knobs (what debugfs sets)
 * @hca: the HCA
 * @fail_cmds: fail this many next commands
 * @fail_status: with this status (0: VROCE_CMD_INTERNAL)
 * @drop_cmds: carry out this many next commands without completing them
 * @delay_ms: delay each command by this much
 *
 * Context: process context.
 */
void vroce_hca_set_faults(struct vroce_hca *hca, u32 fail_cmds,
			  u32 fail_status, u32 drop_cmds, u32 delay_ms)
{
	down_write(hca->wire_lock);
	hca->fail_cmds = fail_cmds;
	hca->fail_status = fail_status;
	hca->drop_cmds = drop_cmds;
	WRITE_ONCE(hca->delay_ms, delay_ms);
	up_write(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_faults);

/**
 * vroce_hca_set_caps() - what QUERY_DEVICE offers, as another firmware would
 * @hca: the HCA
 * @caps: VROCE_CAP_* (plugging in sets VROCE_CAP_MR_ENABLE); a command of
 *	a capability not offered fails with BAD_OPCODE
 *
 * For tests of a driver meeting an HCA that lacks a capability; the driver
 * reads it at probe.
 *
 * Context: process context.
 */
void vroce_hca_set_caps(struct vroce_hca *hca, u32 caps)
{
	down_write(hca->wire_lock);
	hca->caps = caps;
	up_write(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_caps);

/**
 * vroce_hca_set_fault_opcode() - aim the command knobs at one opcode
 * @hca: the HCA
 * @opcode: fail_cmds and drop_cmds apply to commands of this opcode only
 *	(VROCE_CMD_*); 0 for every command
 *
 * Context: process context.
 */
void vroce_hca_set_fault_opcode(struct vroce_hca *hca, u32 opcode)
{
	down_write(hca->wire_lock);
	hca->fault_opcode = opcode;
	up_write(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_fault_opcode);
