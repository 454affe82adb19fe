// SPDX-License-Identifier: GPL-2.0
/*
 * vroce hardware access: the only file that reads or writes the HCA's
 * registers, rings its doorbells or connects its interrupt vectors, and
 * the only driver file that includes the register map.
 *
 * Register cycles go through the bus the HCA sits on (struct
 * vroce_bus_ops, c/ifc/vroce_bus.h): on silicon readl()/writel() on the
 * ioremapped BAR, on the emulated HCA its register decode. Each function
 * is one step of the HCA's programming model; a barrier sits next to the
 * register access it orders against memory the HCA reads or writes by DMA.
 */

#include <asm/barrier.h>
#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "vroce_hw.h"
#include "../compat/vroce_compat.h"
#include "../ifc/vroce_bus.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_regs.h"

static u32 vroce_hw_read32(struct vroce_hw *hw, u32 off)
{
	return hw->bus->read32(hw->ctx, off);
}

static void vroce_hw_write32(struct vroce_hw *hw, u32 off, u32 val)
{
	hw->bus->write32(hw->ctx, off, val);
}

/* A 64-bit register, low half first. */
static void vroce_hw_write64(struct vroce_hw *hw, u32 off, u64 val)
{
	vroce_hw_write32(hw, off, lower_32_bits(val));
	vroce_hw_write32(hw, off + 4, upper_32_bits(val));
}

/* The VROCE_RING_CFG_* value of a ring of 2^@depth_log2 entries. */
static u32 vroce_hw_ring_cfg(const struct vroce_hw_mtt *mtt, u32 depth_log2)
{
	return FIELD_PREP(VROCE_RING_CFG_DEPTH_LOG2, depth_log2) |
	       FIELD_PREP(VROCE_RING_CFG_BA_PG_SHIFT, mtt->ba_pg_shift) |
	       FIELD_PREP(VROCE_RING_CFG_BUF_PG_SHIFT, mtt->buf_pg_shift) |
	       FIELD_PREP(VROCE_RING_CFG_HOPNUM, mtt->hopnum);
}

/**
 * vroce_hw_init() - take the HCA's bus from its platform data
 * @hw: the handle to fill
 * @res: what the bus provides
 */
void vroce_hw_init(struct vroce_hw *hw, const struct vroce_hca_res *res)
{
	hw->bus = res->bus;
	hw->ctx = res->ctx;
}

/**
 * vroce_hw_version() - the HCA's version register
 * @hw: the HCA
 *
 * Context: any context.
 * Return: the version; all ones when the HCA does not answer.
 */
u32 vroce_hw_version(struct vroce_hw *hw)
{
	return vroce_hw_read32(hw, VROCE_REG_VERSION);
}

/**
 * vroce_hw_version_ok() - whether this driver knows an HCA version
 * @version: from vroce_hw_version()
 *
 * Return: true for the version this driver was written for.
 */
bool vroce_hw_version_ok(u32 version)
{
	return version == VROCE_HW_VERSION;
}

/**
 * vroce_hw_reset() - reset the HCA
 * @hw: the HCA
 *
 * When this returns the HCA has finished what it was doing, forgotten all
 * its state (MRs, PDs, CQs, QPs, rings, event queue) and touches no host
 * memory; its interrupt vectors stay connected.
 *
 * Context: process context, may sleep.
 */
void vroce_hw_reset(struct vroce_hw *hw)
{
	vroce_hw_write32(hw, VROCE_REG_CTRL, VROCE_CTRL_RESET);
}

static_assert(VROCE_HW_BEAT_MS == VROCE_HEALTH_TICK_MS);

/**
 * vroce_hw_health() - read the HCA's health register
 * @hw: the HCA
 * @beat: set to its heartbeat, which moves at least every
 *	VROCE_HW_BEAT_MS while the HCA runs and stands still when it hangs
 *
 * Context: any context.
 * Return: false when the HCA reports an internal error.
 */
bool vroce_hw_health(struct vroce_hw *hw, u32 *beat)
{
	u32 val = vroce_hw_read32(hw, VROCE_REG_HEALTH);

	*beat = val & VROCE_HEALTH_BEAT;
	return !(val & VROCE_HEALTH_FATAL);
}

/**
 * vroce_hw_cmdq_start() - give the HCA its command ring and enable it
 * @hw: the HCA, reset
 * @mtt: the ring's translation
 * @depth_log2: slots = 2^@depth_log2
 * @dbr_dma: DMA address of the ring's doorbell record (struct
 *	vroce_cmdq_dbr), zeroed
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when @depth_log2 does not fit CMDQ_CFG, or -EIO when
 * the HCA does not report itself ready.
 */
int vroce_hw_cmdq_start(struct vroce_hw *hw, const struct vroce_hw_mtt *mtt,
			u32 depth_log2, u64 dbr_dma)
{
	if (WARN_ON_ONCE(depth_log2 > FIELD_MAX(VROCE_RING_CFG_DEPTH_LOG2)))
		return -EINVAL;
	vroce_hw_write64(hw, VROCE_REG_CMDQ_DBR, dbr_dma);
	vroce_hw_write64(hw, VROCE_REG_CMDQ_BA, mtt->root_ba);
	vroce_hw_write32(hw, VROCE_REG_CMDQ_CFG,
			 vroce_hw_ring_cfg(mtt, depth_log2));
	vroce_hw_write32(hw, VROCE_REG_CTRL, VROCE_CTRL_ENABLE);
	if (!(vroce_hw_read32(hw, VROCE_REG_STATUS) & VROCE_STATUS_READY))
		return -EIO;
	return 0;
}

/**
 * vroce_hw_cmdq_doorbell() - tell the HCA that commands up to @pi are posted
 * @hw: the HCA
 * @dbr: the ring's doorbell record
 * @pi: the new producer index (free running), one more than the last call's
 * @lend: the caller lends its context (issue 33, VROCE_CAP_CMD_LEND)
 *
 * The index goes to the doorbell record; the HCA must hear of it only when
 * it went idle waiting for the command before @pi (see struct
 * vroce_cmdq_dbr). Then the CMDQ_PI register is written, or with @lend
 * nothing yet: the caller writes CMDQ_LEND once it may sleep
 * (vroce_hw_cmdq_lend()). The caller serialises calls.
 *
 * Context: any context.
 * Return: whether the HCA had to hear of @pi.
 */
bool vroce_hw_cmdq_doorbell(struct vroce_hw *hw, struct vroce_cmdq_dbr *dbr,
			    u32 pi, bool lend)
{
	/* The slots must be in memory before the HCA hears of them. */
	dma_wmb();
	WRITE_ONCE(dbr->pi, cpu_to_le32(pi));
	/* pi before event: pairs with the HCA's event before pi. */
	mb();
	if (le32_to_cpu(READ_ONCE(dbr->event)) != pi - 1)
		return false;
	if (!lend)
		vroce_hw_write32(hw, VROCE_REG_CMDQ_PI, pi);
	return true;
}

/**
 * vroce_hw_cmdq_lend() - the command doorbell that lends the caller's
 *	context to the HCA's command processor (issue 33)
 * @hw: the HCA, with VROCE_CAP_CMD_LEND
 * @pi: the producer index (the HCA reads the doorbell record's)
 *
 * After vroce_hw_cmdq_doorbell() with @lend returned true. The HCA carries
 * out the posted commands before this returns, when it can, and raises
 * no interrupt for those: the caller collects their responses.
 *
 * Context: process context, no spinlock held, may sleep.
 */
void vroce_hw_cmdq_lend(struct vroce_hw *hw, u32 pi)
{
	might_sleep();
	vroce_hw_write32(hw, VROCE_REG_CMDQ_LEND, pi);
}

/**
 * vroce_hw_cmdq_kick() - write the doorbell register whatever the record says
 * @hw: the HCA
 * @pi: the producer index
 *
 * For a submitter that waits too long (a slot, or its response): should
 * the HCA ever have missed a doorbell, it wakes now rather than never.
 *
 * Context: any context.
 */
void vroce_hw_cmdq_kick(struct vroce_hw *hw, u32 pi)
{
	vroce_hw_write32(hw, VROCE_REG_CMDQ_PI, pi);
}

/**
 * vroce_hw_cmdq_ci() - how far the HCA has consumed the command ring
 * @hw: the HCA
 *
 * The responses of every command before the returned index may be read
 * once this returns.
 *
 * Context: any context.
 * Return: the consumer index (free running).
 */
u32 vroce_hw_cmdq_ci(struct vroce_hw *hw)
{
	u32 ci = vroce_hw_read32(hw, VROCE_REG_CMDQ_CI);

	/* Responses up to ci were written before the HCA moved it. */
	dma_rmb();
	return ci;
}

/**
 * vroce_hw_eq_start() - give the HCA its event queue, starting at entry 0
 * @hw: the HCA
 * @mtt: the queue's translation
 * @depth_log2: entries = 2^@depth_log2
 *
 * Context: process context, may sleep.
 */
void vroce_hw_eq_start(struct vroce_hw *hw, const struct vroce_hw_mtt *mtt,
		       u32 depth_log2)
{
	vroce_hw_write64(hw, VROCE_REG_EQ_BA, mtt->root_ba);
	vroce_hw_write32(hw, VROCE_REG_EQ_CI, 0);
	vroce_hw_write32(hw, VROCE_REG_EQ_CFG,
			 vroce_hw_ring_cfg(mtt, depth_log2) |
			 VROCE_EQ_CFG_ENABLE);
}

/**
 * vroce_hw_eq_set_ci() - hand consumed event queue entries back
 * @hw: the HCA
 * @ci: events consumed (free running)
 *
 * Context: any context.
 */
void vroce_hw_eq_set_ci(struct vroce_hw *hw, u32 ci)
{
	vroce_hw_write32(hw, VROCE_REG_EQ_CI, ci);
}

/* SQ and RQ doorbells: one register write each, no command. */
static void vroce_hw_wq_doorbell(struct vroce_hw *hw, u32 reg, u32 qpn, u32 pi)
{
	/* The WQEs are in memory before the HCA hears of them. */
	dma_wmb();
	vroce_hw_write32(hw, reg, FIELD_PREP(VROCE_DB_QPN, qpn) |
			 FIELD_PREP(VROCE_DB_PI, pi & 0xffff));
}

/**
 * vroce_hw_sq_doorbell() - tell the HCA of send WQEs up to @pi
 * @hw: the HCA
 * @qpn: the QP
 * @pi: the send queue's producer index (free running)
 *
 * Context: any context.
 */
void vroce_hw_sq_doorbell(struct vroce_hw *hw, u32 qpn, u32 pi)
{
	vroce_hw_wq_doorbell(hw, VROCE_REG_DB_SQ, qpn, pi);
}

/**
 * vroce_hw_rq_doorbell() - tell the HCA of receive WQEs up to @pi
 * @hw: the HCA
 * @qpn: the QP
 * @pi: the receive queue's producer index (free running)
 *
 * Context: any context.
 */
void vroce_hw_rq_doorbell(struct vroce_hw *hw, u32 qpn, u32 pi)
{
	vroce_hw_wq_doorbell(hw, VROCE_REG_DB_RQ, qpn, pi);
}

/**
 * vroce_hw_qp_lend() - lend the calling context to the HCA for a QP's
 *	send queue (issue 31, VROCE_CAP_LEND)
 * @hw: the HCA
 * @qpn: the QP, whose SQ doorbell was rung before, or which has a
 *	doorbell record (then this is its send doorbell)
 *
 * The HCA may execute some of the QP's send WQEs before this returns
 * (VROCE_REG_DB_LEND); the rest, and all of them when it cannot run the
 * QP at once, are left to its own engine, as a doorbell asks.
 *
 * Context: process context, no spinlock held: the HCA may sleep here.
 */
void vroce_hw_qp_lend(struct vroce_hw *hw, u32 qpn)
{
	might_sleep();
	/*
	 * For a QP with a doorbell record the lend is the send doorbell:
	 * the WQEs and the record are in memory before the HCA hears of
	 * them. The QPN is the whole value: one with bits beyond
	 * VROCE_DB_LEND_QPN names no QP, and the HCA ignores it.
	 */
	dma_wmb();
	vroce_hw_write32(hw, VROCE_REG_DB_LEND, qpn);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hw_qp_lend);

/**
 * vroce_hw_srq_doorbell() - tell the HCA of SRQ receive WQEs up to @pi
 * @hw: the HCA
 * @srqn: the SRQ
 * @pi: the SRQ's producer index (free running)
 *
 * Context: any context.
 */
void vroce_hw_srq_doorbell(struct vroce_hw *hw, u32 srqn, u32 pi)
{
	/* The WQEs are in memory before the HCA hears of them. */
	dma_wmb();
	vroce_hw_write32(hw, VROCE_REG_DB_SRQ,
			 FIELD_PREP(VROCE_DB_SRQN, srqn) |
			 FIELD_PREP(VROCE_DB_PI, pi & 0xffff));
}

/**
 * vroce_hw_cq_doorbell() - a CQ's consumer index, and optionally an arm
 * @hw: the HCA
 * @cqn: the CQ
 * @ci: CQEs polled (free running); the HCA uses it to detect overflow
 * @arm: whether the next CQE (or the next solicited one) raises an event
 *
 * Context: any context.
 */
void vroce_hw_cq_doorbell(struct vroce_hw *hw, u32 cqn, u32 ci,
			  enum vroce_hw_cq_arm arm)
{
	static const u32 cmd[] = {
		[VROCE_HW_CQ_NO_ARM] = VROCE_DB_CQ_CMD_CI,
		[VROCE_HW_CQ_ARM_NEXT] = VROCE_DB_CQ_CMD_ARM_NEXT,
		[VROCE_HW_CQ_ARM_SOLICITED] = VROCE_DB_CQ_CMD_ARM_SOL,
	};

	vroce_hw_write32(hw, VROCE_REG_DB_CQ,
			 FIELD_PREP(VROCE_DB_CQ_CQN, cqn) |
			 FIELD_PREP(VROCE_DB_CQ_CMD, cmd[arm]) |
			 FIELD_PREP(VROCE_DB_CQ_CI, ci & 0xffff));
}

/**
 * vroce_hw_irq_mask() - mask or unmask one interrupt vector
 * @hw: the HCA
 * @vec: VROCE_IRQ_CMD or VROCE_IRQ_EQ
 * @masked: true to hold the vector's interrupts back
 *
 * What happens while a vector is masked is not lost: the handler runs for
 * it at the next interrupt after unmasking (or when called directly).
 *
 * Context: any context.
 */
void vroce_hw_irq_mask(struct vroce_hw *hw, unsigned int vec, bool masked)
{
	static const u32 cause[VROCE_NUM_IRQS] = {
		[VROCE_IRQ_CMD] = VROCE_INTR_CMD_DONE,
		[VROCE_IRQ_EQ] = VROCE_INTR_EQ,
	};
	u32 mask;

	if (WARN_ON_ONCE(vec >= VROCE_NUM_IRQS))
		return;
	mask = vroce_hw_read32(hw, VROCE_REG_INTR_MASK);
	mask = masked ? mask | cause[vec] : mask & ~cause[vec];
	vroce_hw_write32(hw, VROCE_REG_INTR_MASK, mask);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hw_irq_mask);

/**
 * vroce_hw_request_irq() - connect one of the HCA's interrupt vectors
 * @hw: the HCA
 * @vec: VROCE_IRQ_CMD or VROCE_IRQ_EQ
 * @handler: called in process context when the HCA raises @vec, with no
 *	lock of the HCA held
 * @data: passed to @handler
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an unknown vector, or -EBUSY when a handler is
 * already connected to it.
 */
int vroce_hw_request_irq(struct vroce_hw *hw, unsigned int vec,
			 void (*handler)(void *data), void *data)
{
	return hw->bus->request_irq(hw->ctx, vec, handler, data);
}

/**
 * vroce_hw_free_irq() - disconnect one of the HCA's interrupt vectors
 * @hw: the HCA
 * @vec: the vector
 *
 * No call of its handler runs once this returns.
 *
 * Context: process context, may sleep.
 */
void vroce_hw_free_irq(struct vroce_hw *hw, unsigned int vec)
{
	hw->bus->free_irq(hw->ctx, vec);
}
