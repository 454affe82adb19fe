// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the device itself, shipped in the module until
 * silicon exists (like netdevsim).
 *
 * It is a platform device whose platform data is its bus (struct
 * vroce_hca_res). It sees only what silicon would: register writes, a
 * command ring in host memory that it reads by walking the ring's MTR, and
 * the tables of the MRs, rings and event queue it is told about, by DMA
 * address. It answers in its own context (an ordered workqueue: commands,
 * the data path engine and its timer never run at the same time) and
 * signals completions through the interrupt vectors the driver connected,
 * whose handlers run on their own workqueue, outside the HCA's locks.
 * Nothing the driver writes is trusted.
 *
 * This file: register decode, the command processor (PDs, MRs, and the
 * CQ and QP commands of c/hca/vroce_hca_engine.c), the translation engine
 * (MPT, keys, fast registration), fault knobs and debugfs. The data path
 * (doorbells, work queues, completion and event queues) is
 * c/hca/vroce_hca_engine.c; Documentation/datapath.rst describes it:
 *   DB_SQ/DB_RQ  record a QP's producer index and queue the engine, which
 *                executes send WQEs against the peer QP on this HCA and
 *                writes CQEs; DB_CQ records a CQ's consumer index (for
 *                overflow) and arms it for one completion event.
 *   EQ_BA/EQ_CFG/EQ_CI  the event queue: COMP, CQ_ERR and QP_FATAL
 *                entries, signalled by VROCE_INTR_EQ. Setting
 *                VROCE_EQ_CFG_ENABLE starts it afresh at entry 0.
 *   CTRL RESET   finishes the command and engine pass in flight, then
 *                forgets MPT, PDs, CQs, QPs, doorbells, EQ and registers.
 *
 * Fault knobs, in debugfs under vroce/<device>/ (netdevsim style):
 *   fail_cmds    fail the next N commands ...
 *   fail_status  ... with this status (default VROCE_CMD_INTERNAL)
 *   drop_cmds    carry out the next N commands but never complete them
 *   delay_ms     wait this long before carrying out each command
 *   fault_opcode fail_cmds and drop_cmds count only commands of this
 *                opcode (0: every command)
 *   drop_events  lose the next N completion events: the armed CQ is
 *                disarmed but no EQE is written
 *   event_delay_ms  write each completion event this long after the CQE
 *   eq_lost      (read only) events lost to a full or disabled EQ
 *   mr_read      write "<key> <iova> <len>", read back the bytes the
 *                translation engine reads through that MR
 *   reg_frmr     write "<key> <pdn> <iova> <len> <access> <pbl> <npages>"
 *                (hex, decimal, hex, decimal, hex, hex, decimal): do what
 *                a REG_MR work request with that page list does
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

#define VROCE_EMU_VENDOR_ID		0	/* not a PCI function: no vendor */
#define VROCE_EMU_MAX_CMDQ_DEPTH_LOG2	12

static struct dentry *vroce_emu_debugfs_root;

/* ---- bus side: register decode and the interrupt line ---- */

static u32 vroce_emu_read32(void *ctx, u32 off)
{
	struct vroce_emu *emu = ctx;
	unsigned long flags;
	u32 val = 0;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return ~0U;	/* what a bus returns for a bad read */

	/* Doorbells are write-only: never stored, they read as 0. */
	spin_lock_irqsave(&emu->reg_lock, flags);
	val = vroce_emu_reg(emu, off);
	if (off == VROCE_REG_INTR_CAUSE)
		emu->regs[off / sizeof(u32)] = 0;
	spin_unlock_irqrestore(&emu->reg_lock, flags);
	return val;
}

static void vroce_emu_reset(struct vroce_emu *emu)
{
	unsigned long flags;

	mutex_lock(&emu->lock);
	vroce_emu_mpt_reset(emu);
	vroce_emu_engine_reset(emu);
	mutex_unlock(&emu->lock);

	spin_lock_irqsave(&emu->reg_lock, flags);
	memset(emu->regs, 0, sizeof(emu->regs));
	emu->regs[VROCE_REG_VERSION / sizeof(u32)] = VROCE_HW_VERSION;
	spin_unlock_irqrestore(&emu->reg_lock, flags);
}

static void vroce_emu_write32(void *ctx, u32 off, u32 val)
{
	struct vroce_emu *emu = ctx;
	unsigned long flags;
	bool kick = false;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return;
	if (off == VROCE_REG_VERSION || off == VROCE_REG_STATUS ||
	    off == VROCE_REG_CMDQ_CI || off == VROCE_REG_INTR_CAUSE)
		return;		/* read-only */
	if (vroce_emu_doorbell(emu, off, val))
		return;

	if (off == VROCE_REG_CTRL && (val & VROCE_CTRL_RESET)) {
		/* Finish what is in flight, then forget everything. */
		spin_lock_irqsave(&emu->reg_lock, flags);
		emu->regs[VROCE_REG_CTRL / sizeof(u32)] = 0;
		spin_unlock_irqrestore(&emu->reg_lock, flags);
		flush_work(&emu->cmd_work);
		vroce_emu_engine_quiesce(emu);
		vroce_emu_reset(emu);
		return;
	}

	spin_lock_irqsave(&emu->reg_lock, flags);
	/* Enabling the event queue starts it afresh, at entry 0. */
	if (off == VROCE_REG_EQ_CFG && (val & VROCE_EQ_CFG_ENABLE) &&
	    !(vroce_emu_reg(emu, off) & VROCE_EQ_CFG_ENABLE))
		emu->eq_pi = 0;
	emu->regs[off / sizeof(u32)] = val;
	if (off == VROCE_REG_CTRL) {
		if (val & VROCE_CTRL_ENABLE)
			emu->regs[VROCE_REG_STATUS / sizeof(u32)] |=
				VROCE_STATUS_READY;
		else
			emu->regs[VROCE_REG_STATUS / sizeof(u32)] &=
				~VROCE_STATUS_READY;
	}
	kick = off == VROCE_REG_CMDQ_PI &&
	       (vroce_emu_reg(emu, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE);
	spin_unlock_irqrestore(&emu->reg_lock, flags);

	if (kick)
		queue_work(emu->wq, &emu->cmd_work);
}

static void vroce_emu_irq_work(struct work_struct *work)
{
	struct vroce_emu_irq *irq = container_of(work, struct vroce_emu_irq,
						 work);

	mutex_lock(&irq->lock);
	if (irq->handler)
		irq->handler(irq->data);
	mutex_unlock(&irq->lock);
}

static int vroce_emu_request_irq(void *ctx, unsigned int vec,
				 void (*handler)(void *data), void *data)
{
	struct vroce_emu *emu = ctx;
	struct vroce_emu_irq *irq;
	int err = 0;

	if (vec >= VROCE_NUM_IRQS)
		return -EINVAL;
	irq = &emu->irq[vec];
	mutex_lock(&irq->lock);
	if (irq->handler) {
		err = -EBUSY;
	} else {
		irq->handler = handler;
		irq->data = data;
	}
	mutex_unlock(&irq->lock);
	return err;
}

static void vroce_emu_free_irq(void *ctx, unsigned int vec)
{
	struct vroce_emu *emu = ctx;
	struct vroce_emu_irq *irq;

	if (vec >= VROCE_NUM_IRQS)
		return;
	irq = &emu->irq[vec];
	/* The handler runs under the lock, so none is running after this. */
	mutex_lock(&irq->lock);
	irq->handler = NULL;
	irq->data = NULL;
	mutex_unlock(&irq->lock);
}

static const struct vroce_bus_ops vroce_emu_bus_ops = {
	.read32 = vroce_emu_read32,
	.write32 = vroce_emu_write32,
	.request_irq = vroce_emu_request_irq,
	.free_irq = vroce_emu_free_irq,
};

/* ---- command processor ---- */

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
	return VROCE_CMD_OK;
}

/* Every request and response fits its half of a slot. */
static_assert(sizeof(struct vroce_cmd_create_mr) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_cq) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_create_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_cmd_modify_qp) <= VROCE_CMD_REQ_SIZE);
static_assert(sizeof(struct vroce_resp_query_device) <=
	      VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE);

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
		mutex_unlock(&emu->lock);
		msleep(delay);
		mutex_lock(&emu->lock);
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

static void vroce_emu_cmd_work(struct work_struct *work)
{
	struct vroce_emu *emu = container_of(work, struct vroce_emu, cmd_work);
	struct vroce_emu_ring ring;
	bool complete;
	u32 pi, ci, ctrl;
	unsigned long flags;

	mutex_lock(&emu->lock);
	for (;;) {
		spin_lock_irqsave(&emu->reg_lock, flags);
		ctrl = vroce_emu_reg(emu, VROCE_REG_CTRL);
		pi = vroce_emu_reg(emu, VROCE_REG_CMDQ_PI);
		ci = vroce_emu_reg(emu, VROCE_REG_CMDQ_CI);
		spin_unlock_irqrestore(&emu->reg_lock, flags);
		if (!(ctrl & VROCE_CTRL_ENABLE) || pi == ci ||
		    !vroce_emu_ring_from_regs(emu, VROCE_REG_CMDQ_BA,
					      vroce_emu_reg(emu, VROCE_REG_CMDQ_CFG),
					      VROCE_EMU_MAX_CMDQ_DEPTH_LOG2,
					      VROCE_CMD_SLOT_SIZE, &ring) ||
		    pi - ci > BIT(ring.depth_log2))
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
	mutex_unlock(&emu->lock);
}

/* ---- fault knobs and debugfs ---- */

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
	mutex_lock(&emu->lock);
	emu->fail_cmds = fail_cmds;
	emu->fail_status = fail_status;
	emu->drop_cmds = drop_cmds;
	WRITE_ONCE(emu->delay_ms, delay_ms);
	mutex_unlock(&emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_faults);

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
	mutex_lock(&emu->lock);
	emu->fault_opcode = opcode;
	mutex_unlock(&emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_fault_opcode);

/**
 * vroce_emu_set_event_faults() - set the completion event knobs (what
 *	debugfs sets)
 * @emu: the HCA
 * @drop_events: lose this many next completion events: the armed CQ is
 *	disarmed, no EQE is written, no interrupt raised
 * @event_delay_ms: write each completion event this long after the CQE
 *	that caused it (0: at once)
 *
 * Context: process context.
 */
void vroce_emu_set_event_faults(struct vroce_emu *emu, u32 drop_events,
				u32 event_delay_ms)
{
	mutex_lock(&emu->lock);
	emu->drop_events = drop_events;
	WRITE_ONCE(emu->event_delay_ms, event_delay_ms);
	mutex_unlock(&emu->lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_event_faults);

static void vroce_emu_debugfs_init(struct vroce_emu *emu)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(vroce_emu_debugfs_root))
		return;
	d = debugfs_create_dir(dev_name(vroce_emu_dev(emu)),
			       vroce_emu_debugfs_root);
	emu->debugfs = d;
	debugfs_create_u32("fail_cmds", 0600, d, &emu->fail_cmds);
	debugfs_create_u32("fail_status", 0600, d, &emu->fail_status);
	debugfs_create_u32("drop_cmds", 0600, d, &emu->drop_cmds);
	debugfs_create_u32("delay_ms", 0600, d, &emu->delay_ms);
	debugfs_create_u32("fault_opcode", 0600, d, &emu->fault_opcode);
	debugfs_create_u32("drop_events", 0600, d, &emu->drop_events);
	debugfs_create_u32("event_delay_ms", 0600, d, &emu->event_delay_ms);
	debugfs_create_u32("eq_lost", 0400, d, &emu->eq_lost);
	vroce_emu_mpt_debugfs_init(emu, d);
}

/* ---- the device ---- */

/**
 * vroce_emu_add() - plug in an emulated HCA
 * @id: platform device id (PLATFORM_DEVID_AUTO for any)
 *
 * Adds platform device "vroce.<id>"; the vroce driver binds to it when
 * registered.
 *
 * Context: process context, may sleep.
 * Return: the HCA, or an ERR_PTR().
 */
struct vroce_emu *vroce_emu_add(int id)
{
	struct vroce_hca_res res = { .bus = &vroce_emu_bus_ops };
	struct vroce_emu *emu;
	int err = -ENOMEM;
	unsigned int i;

	emu = vroce_emu_inject() ? NULL : kzalloc(sizeof(*emu), GFP_KERNEL);
	if (!emu)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&emu->reg_lock);
	mutex_init(&emu->lock);
	INIT_WORK(&emu->cmd_work, vroce_emu_cmd_work);
	for (i = 0; i < VROCE_NUM_IRQS; i++) {
		emu->irq[i].emu = emu;
		mutex_init(&emu->irq[i].lock);
		INIT_WORK(&emu->irq[i].work, vroce_emu_irq_work);
	}

	err = vroce_emu_mpt_alloc(emu);
	if (err)
		goto err_free_emu;
	err = vroce_emu_engine_alloc(emu);
	if (err)
		goto err_free_mpt;
	err = -ENOMEM;
	emu->wq = vroce_emu_inject() ? NULL :
		  alloc_ordered_workqueue("vroce_emu", 0);
	if (!emu->wq)
		goto err_free_engine;
	emu->irq_wq = vroce_emu_inject() ? NULL :
		      alloc_workqueue("vroce_irq", 0, 0);
	if (!emu->irq_wq)
		goto err_destroy_wq;
	vroce_emu_reset(emu);

	emu->pdev = vroce_emu_inject() ? NULL :
		    platform_device_alloc("vroce", id);
	if (!emu->pdev)
		goto err_destroy_irq_wq;
	res.ctx = emu;
	err = vroce_emu_inject() ? -ENOMEM :
	      platform_device_add_data(emu->pdev, &res, sizeof(res));
	if (err)
		goto err_put_pdev;
	err = vroce_emu_inject() ? -ENOMEM : platform_device_add(emu->pdev);
	if (err)
		goto err_put_pdev;

	vroce_emu_debugfs_init(emu);
	return emu;

err_put_pdev:
	platform_device_put(emu->pdev);
err_destroy_irq_wq:
	destroy_workqueue(emu->irq_wq);
err_destroy_wq:
	destroy_workqueue(emu->wq);
err_free_engine:
	vroce_emu_engine_free(emu);
err_free_mpt:
	vroce_emu_mpt_free(emu);
err_free_emu:
	kfree(emu);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_add);

/**
 * vroce_emu_del() - unplug an emulated HCA
 * @emu: the HCA from vroce_emu_add()
 *
 * The driver is unbound first (its reset quiesces the data path), then
 * the engine is stopped for good and the device's memory goes.
 *
 * Context: process context, may sleep.
 */
void vroce_emu_del(struct vroce_emu *emu)
{
	debugfs_remove_recursive(emu->debugfs);
	platform_device_unregister(emu->pdev);
	/* No RNR retry or delayed event may fire into a freed HCA. */
	vroce_emu_engine_stop(emu);
	destroy_workqueue(emu->wq);
	destroy_workqueue(emu->irq_wq);
	vroce_emu_engine_free(emu);
	vroce_emu_mpt_free(emu);
	kfree(emu);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_del);

/**
 * vroce_emu_pdev() - the platform device of an emulated HCA
 * @emu: the HCA
 *
 * Return: its platform device.
 */
struct platform_device *vroce_emu_pdev(struct vroce_emu *emu)
{
	return emu->pdev;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_pdev);

static unsigned int num_hcas = 1;
module_param(num_hcas, uint, 0444);
MODULE_PARM_DESC(num_hcas, "emulated HCAs to plug in at load time (0-8)");

#define VROCE_EMU_MAX_PLUGGED	8

static struct vroce_emu *vroce_emu_plugged[VROCE_EMU_MAX_PLUGGED];
static unsigned int vroce_emu_nplugged;

/**
 * vroce_hca_plug() - plug the emulated HCAs in, as platform devices
 *	"vroce.0", "vroce.1", ... (num_hcas of them)
 *
 * Context: module init, after the driver is registered.
 * Return: 0, -EINVAL for more than 8 HCAs, or the error of adding one (the
 * ones added before are removed).
 */
int vroce_hca_plug(void)
{
	struct vroce_emu *emu;
	unsigned int i;

	if (num_hcas > VROCE_EMU_MAX_PLUGGED)
		return -EINVAL;
	vroce_emu_debugfs_root = debugfs_create_dir("vroce_hca", NULL);
	for (i = 0; i < num_hcas; i++) {
		emu = vroce_emu_add(i);
		if (IS_ERR(emu)) {
			vroce_hca_unplug();
			return PTR_ERR(emu);
		}
		vroce_emu_plugged[vroce_emu_nplugged++] = emu;
	}
	return 0;
}

/**
 * vroce_hca_unplug() - unplug what vroce_hca_plug() plugged in
 *
 * Context: module exit (or a failed init), before the driver is
 * unregistered.
 */
void vroce_hca_unplug(void)
{
	while (vroce_emu_nplugged)
		vroce_emu_del(vroce_emu_plugged[--vroce_emu_nplugged]);
	debugfs_remove_recursive(vroce_emu_debugfs_root);
	vroce_emu_debugfs_root = NULL;
}
