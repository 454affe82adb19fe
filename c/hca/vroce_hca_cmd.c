// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the command processor.
 *
 * When the driver writes CMDQ_PI while the HCA is enabled, the command work
 * runs in the HCA's ordered workqueue, holding emu->lock for writing (no
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
#define VROCE_EMU_VENDOR_ID		0x02f000
#define VROCE_EMU_MAX_CMDQ_DEPTH_LOG2	12

static u16 vroce_emu_create_pd(struct vroce_emu *emu,
			       struct vroce_resp_create_pd *resp)
{
	unsigned long pdn = find_first_zero_bit(emu->pd_map, VROCE_EMU_MAX_PD);

	if (pdn >= VROCE_EMU_MAX_PD)
		return VROCE_CMD_NO_RESOURCE;
	__set_bit(pdn, emu->pd_map);
	resp->pdn = cpu_to_le32(pdn);
	return VROCE_CMD_OK;
}

static u16 vroce_emu_destroy_pd(struct vroce_emu *emu,
				const struct vroce_cmd_destroy_pd *cmd)
{
	u32 pdn = le32_to_cpu(cmd->pdn);

	if (!vroce_emu_pd_valid(emu, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (vroce_emu_pd_busy(emu, pdn) || vroce_emu_pd_has_mr(emu, pdn))
		return VROCE_CMD_BUSY;	/* a QP or an MR still names it */
	__clear_bit(pdn, emu->pd_map);
	return VROCE_CMD_OK;
}

static u16 vroce_emu_query_device(struct vroce_emu *emu,
				  struct vroce_resp_query_device *resp)
{
	resp->max_mr_size = cpu_to_le64(VROCE_EMU_MAX_MR_SIZE);
	resp->page_size_cap = cpu_to_le64(VROCE_EMU_PAGE_SIZE_CAP);
	resp->max_pd = cpu_to_le32(VROCE_EMU_MAX_PD);
	resp->max_mr = cpu_to_le32(emu->max_mr);
	resp->max_fast_reg_pages = cpu_to_le32(VROCE_EMU_MAX_FRMR_PAGES);
	resp->vendor_id = cpu_to_le32(VROCE_EMU_VENDOR_ID);
	resp->max_qp = cpu_to_le32(VROCE_MAX_QP);
	resp->max_cq = cpu_to_le32(VROCE_MAX_CQ);
	resp->max_wq_depth_log2 = cpu_to_le32(VROCE_MAX_WQ_DEPTH_LOG2);
	resp->max_cq_depth_log2 = cpu_to_le32(VROCE_MAX_CQ_DEPTH_LOG2);
	memcpy(resp->mac, emu->mac, ETH_ALEN);
	resp->caps = emu->caps;
	return VROCE_CMD_OK;
}

/* Every request and response fits its half of a slot. */
static_assert(sizeof(struct vroce_cmd_create_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_enable_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_cq) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_modify_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_resp_query_device) <=
	      VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE);
/* caps took the byte after the MAC that was reserved (zero) before it. */
static_assert(offsetof(struct vroce_resp_query_device, caps) ==
	      offsetof(struct vroce_resp_query_device, mac) + 6);
static_assert(sizeof(struct vroce_resp_query_device) == 64);

static u16 vroce_emu_execute(struct vroce_emu *emu, const void *req,
			     void *resp)
{
	const struct vroce_cmd_hdr *hdr = req;

	switch (le16_to_cpu(hdr->opcode)) {
	case VROCE_CMD_QUERY_DEVICE:
		return vroce_emu_query_device(emu, resp);
	case VROCE_CMD_CREATE_PD:
		return vroce_emu_create_pd(emu, resp);
	case VROCE_CMD_DESTROY_PD:
		return vroce_emu_destroy_pd(emu, req);
	case VROCE_CMD_CREATE_MR:
		return vroce_emu_create_mr(emu, req, resp);
	case VROCE_CMD_DESTROY_MR:
		return vroce_emu_destroy_mr(emu, req);
	case VROCE_CMD_ENABLE_MR:
		if (!(emu->caps & VROCE_CAP_MR_ENABLE))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_emu_enable_mr(emu, req, resp);
	case VROCE_CMD_REVOKE_MR:
		if (!(emu->caps & VROCE_CAP_MR_ENABLE))
			return VROCE_CMD_BAD_OPCODE;
		return vroce_emu_revoke_mr(emu, req);
	case VROCE_CMD_CREATE_CQ:
		return vroce_emu_create_cq(emu, req, resp);
	case VROCE_CMD_DESTROY_CQ:
		return vroce_emu_destroy_cq(emu, req);
	case VROCE_CMD_CREATE_QP:
		return vroce_emu_create_qp(emu, req, resp);
	case VROCE_CMD_MODIFY_QP:
		return vroce_emu_modify_qp(emu, req);
	case VROCE_CMD_DESTROY_QP:
		return vroce_emu_destroy_qp(emu, req);
	default:
		return VROCE_CMD_BAD_OPCODE;
	}
}

/* Carry out one command; false when the ring is unusable. */
static bool vroce_emu_one_cmd(struct vroce_emu *emu,
			      const struct vroce_emu_ring *ring, u32 ci,
			      bool *complete)
{
	u8 req[VROCE_CMD_REQ_SIZE], resp[VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE];
	struct vroce_resp_hdr *rh = (void *)resp;
	const struct vroce_cmd_hdr *hdr = (void *)req;
	u32 delay = READ_ONCE(emu->delay_ms);
	bool faulty;
	u8 *p;
	u16 status;

	p = vroce_emu_ring_entry(emu, ring, ci);
	if (!p)
		return false;
	memcpy(req, p, sizeof(req));
	memset(resp, 0, sizeof(resp));

	if (delay) {
		up_write(emu->lock);
		msleep(delay);
		down_write(emu->lock);
	}

	/* The knobs apply to every command, or to one opcode only. */
	faulty = !emu->fault_opcode ||
		 le16_to_cpu(hdr->opcode) == emu->fault_opcode;
	if (faulty && emu->fail_cmds) {
		emu->fail_cmds--;
		status = emu->fail_status ?: VROCE_CMD_INTERNAL;
	} else {
		status = vroce_emu_execute(emu, req, resp);
	}

	*complete = true;
	if (faulty && emu->drop_cmds) {
		emu->drop_cmds--;
		*complete = false;
		return true;
	}

	rh->status = cpu_to_le16(status);
	rh->opcode = hdr->opcode;
	rh->token = hdr->token;
	memcpy(p + VROCE_CMD_REQ_SIZE, resp, sizeof(resp));
	return true;
}

/*
 * The command doorbell record the driver gave, or NULL when it gave none
 * (the producer index is then the CMDQ_PI register's). @*bad is set when
 * it gave one the HCA cannot reach.
 */
static struct vroce_cmdq_dbr *vroce_emu_cmdq_dbr(struct vroce_emu *emu,
						 bool *bad)
{
	u64 dbr = (u64)vroce_emu_reg(emu, VROCE_REG_CMDQ_DBR + 4) << 32 |
		  vroce_emu_reg(emu, VROCE_REG_CMDQ_DBR);
	struct vroce_cmdq_dbr *rec;

	*bad = false;
	if (!dbr)
		return NULL;
	rec = IS_ALIGNED(dbr, sizeof(u64)) ?
	      vroce_emu_dma_to_virt(vroce_emu_dev(emu), dbr, sizeof(*rec)) :
	      NULL;
	*bad = !rec;
	return rec;
}

static void vroce_emu_cmd_work(struct work_struct *work)
{
	struct vroce_emu *emu = container_of(work, struct vroce_emu, cmd_work);
	struct vroce_cmdq_dbr *dbr;
	struct vroce_emu_ring ring;
	bool complete, sane, bad;
	u32 pi, ci, ctrl;
	unsigned long flags;

	/* A hung firmware consumes nothing; the reset forgets the ring. */
	if (vroce_emu_hung(emu))
		return;
	down_write(emu->lock);
	for (;;) {
		spin_lock_irqsave(&emu->reg_lock, flags);
		ctrl = vroce_emu_reg(emu, VROCE_REG_CTRL);
		pi = vroce_emu_reg(emu, VROCE_REG_CMDQ_PI);
		ci = vroce_emu_reg(emu, VROCE_REG_CMDQ_CI);
		sane = vroce_emu_ring_from_regs(emu, VROCE_REG_CMDQ_BA,
						vroce_emu_reg(emu, VROCE_REG_CMDQ_CFG),
						VROCE_EMU_MAX_CMDQ_DEPTH_LOG2,
						VROCE_CMD_SLOT_SIZE, &ring);
		dbr = vroce_emu_cmdq_dbr(emu, &bad);
		spin_unlock_irqrestore(&emu->reg_lock, flags);
		if (!(ctrl & VROCE_CTRL_ENABLE) || !sane || bad ||
		    vroce_emu_hung(emu))
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
		if (!vroce_emu_one_cmd(emu, &ring, ci, &complete))
			break;

		/* The response is in memory before the index moves. */
		spin_lock_irqsave(&emu->reg_lock, flags);
		emu->regs[VROCE_REG_CMDQ_CI / sizeof(u32)] = ci + 1;
		spin_unlock_irqrestore(&emu->reg_lock, flags);
		/*
		 * One interrupt per completed command (coalesced while the
		 * handler has not run yet): a busy ring must not hold back
		 * the responses already written.
		 */
		if (complete)
			vroce_emu_raise_irq(emu, VROCE_IRQ_CMD,
					    VROCE_INTR_CMD_DONE);
	}

	/* Events a command wrote (MODIFY_QP to ERR flushes). */
	vroce_emu_engine_raise(emu);
	up_write(emu->lock);
}

/**
 * vroce_emu_cmd_init() - set up the command processor of a new HCA
 * @emu: the HCA
 *
 * Writing CMDQ_PI while the HCA is enabled queues its work on @emu->wq.
 */
void vroce_emu_cmd_init(struct vroce_emu *emu)
{
	INIT_WORK(&emu->cmd_work, vroce_emu_cmd_work);
}

/* ---- fault knobs ---- */

/**
 * vroce_emu_set_faults() - set the fault knobs (what debugfs sets)
 * @emu: the HCA
 * @fail_cmds: fail this many next commands
 * @fail_status: with this status (0: VROCE_CMD_INTERNAL)
 * @drop_cmds: carry out this many next commands without completing them
 * @delay_ms: delay each command by this much
 *
 * Context: process context.
 */
void vroce_emu_set_faults(struct vroce_emu *emu, u32 fail_cmds,
			  u32 fail_status, u32 drop_cmds, u32 delay_ms)
{
	down_write(emu->lock);
	emu->fail_cmds = fail_cmds;
	emu->fail_status = fail_status;
	emu->drop_cmds = drop_cmds;
	WRITE_ONCE(emu->delay_ms, delay_ms);
	up_write(emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_faults);

/**
 * vroce_emu_set_caps() - what QUERY_DEVICE offers, as another firmware would
 * @emu: the HCA
 * @caps: VROCE_CAP_* (plugging in sets VROCE_CAP_MR_ENABLE); a command of
 *	a capability not offered fails with BAD_OPCODE
 *
 * For tests of a driver meeting an HCA that lacks a capability; the driver
 * reads it at probe.
 *
 * Context: process context.
 */
void vroce_emu_set_caps(struct vroce_emu *emu, u32 caps)
{
	down_write(emu->lock);
	emu->caps = caps;
	up_write(emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_caps);

/**
 * vroce_emu_set_fault_opcode() - aim the command knobs at one opcode
 * @emu: the HCA
 * @opcode: fail_cmds and drop_cmds apply to commands of this opcode only
 *	(VROCE_CMD_*); 0 for every command
 *
 * Context: process context.
 */
void vroce_emu_set_fault_opcode(struct vroce_emu *emu, u32 opcode)
{
	down_write(emu->lock);
	emu->fault_opcode = opcode;
	up_write(emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_fault_opcode);
