/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce HCA register file (BAR 0), as the hardware defines it: offsets and
 * field masks. Data only.
 *
 * Only the two ends of the register bus include this header: the driver's
 * hardware-access file (c/driver/vroce_hw.c) and the HCA's register decode.
 * Everything else in the driver goes through the typed functions of
 * c/driver/vroce_hw.h (scripts/layers.py checks this).
 */
#ifndef _VROCE_REGS_H_
#define _VROCE_REGS_H_

#include <linux/bits.h>
#include <linux/types.h>

/* Register file (BAR 0), 32-bit registers unless noted. */
#define VROCE_REG_VERSION	0x00	/* RO: VROCE_HW_VERSION */
#define VROCE_REG_CTRL		0x04	/* RW: VROCE_CTRL_* */
#define VROCE_REG_STATUS	0x08	/* RO: VROCE_STATUS_* */
#define VROCE_REG_CMDQ_BA	0x10	/* RW, 64-bit: command ring root BA */
#define VROCE_REG_CMDQ_CFG	0x18	/* RW: VROCE_RING_CFG_* */
#define VROCE_REG_CMDQ_PI	0x1c	/* WO doorbell: producer index */
#define VROCE_REG_CMDQ_CI	0x20	/* RO: consumer index */
#define VROCE_REG_INTR_CAUSE	0x24	/* RO, cleared on read: VROCE_INTR_* */
#define VROCE_REG_INTR_MASK	0x28	/* RW: 1 masks the cause */
#define VROCE_REG_DB_SQ		0x2c	/* WO doorbell: VROCE_DB_QPN | VROCE_DB_PI */
#define VROCE_REG_DB_RQ		0x30	/* WO doorbell: VROCE_DB_QPN | VROCE_DB_PI */
#define VROCE_REG_DB_CQ		0x34	/* WO doorbell: VROCE_DB_CQ_* */
#define VROCE_REG_EQ_BA		0x38	/* RW, 64-bit: event queue root BA */
#define VROCE_REG_EQ_CFG	0x40	/* RW: VROCE_RING_CFG_*, ENABLE */
#define VROCE_REG_EQ_CI		0x44	/* RW: event queue consumer index */
#define VROCE_REG_CMDQ_DBR	0x48	/* RW, 64-bit: command doorbell record, 0: none */
#define VROCE_REG_HEALTH	0x50	/* RO: VROCE_HEALTH_* */
#define VROCE_REG_DB_SRQ	0x58	/* WO doorbell: VROCE_DB_SRQN | VROCE_DB_PI */
/* issue 31, ringing-context execution (VROCE_CAP_LEND) */
#define VROCE_REG_DB_LEND	0x5c	/* WO: the QPN; see VROCE_CAP_LEND */
/* issue 33, the command processor in the writer's context */
#define VROCE_REG_CMDQ_LEND	0x60	/* WO: as CMDQ_PI; see VROCE_CAP_CMD_LEND */
#define VROCE_BAR_SIZE		0x80

#define VROCE_HW_VERSION	0x00010000

#define VROCE_CTRL_ENABLE	BIT(0)	/* start processing the command ring */
#define VROCE_CTRL_RESET	BIT(1)	/* self-clearing: forget all state */

#define VROCE_STATUS_READY	BIT(0)	/* enabled, ring configured */

/*
 * HEALTH: the firmware's heartbeat counts up at least once every
 * VROCE_HEALTH_TICK_MS while the HCA runs, and stands still when it hangs;
 * FATAL is set when an internal error stopped it. Reset clears both.
 */
#define VROCE_HEALTH_BEAT	GENMASK(30, 0)
#define VROCE_HEALTH_FATAL	BIT(31)
#define VROCE_HEALTH_TICK_MS	10

/*
 * Layout of a ring the driver programs through registers (command ring,
 * event queue): an MTR of one region.
 */
#define VROCE_RING_CFG_DEPTH_LOG2	GENMASK(4, 0)	/* entries = 2^n */
#define VROCE_RING_CFG_BA_PG_SHIFT	GENMASK(12, 8)
#define VROCE_RING_CFG_BUF_PG_SHIFT	GENMASK(20, 16)
#define VROCE_RING_CFG_HOPNUM		GENMASK(25, 24)

#define VROCE_INTR_CMD_DONE	BIT(0)
#define VROCE_INTR_EQ		BIT(1)	/* new entries in the event queue */

/*
 * SQ and RQ doorbells: one 32-bit write tells the HCA that WQEs up to the
 * producer index PI (the low 16 bits of the driver's free-running count)
 * are in the ring of queue pair QPN.
 */
#define VROCE_DB_QPN		GENMASK(31, 16)
#define VROCE_DB_PI		GENMASK(15, 0)
/* SRQ doorbell: WQEs up to PI are in the ring of SRQ number SRQN. */
#define VROCE_DB_SRQN		GENMASK(31, 16)

/*
 * CQ doorbell: the consumer index CI (low 16 bits of the driver's count of
 * polled CQEs) of CQ number CQN, and optionally an arm request. The HCA
 * uses CI to detect overflow; an arm makes the next CQE (any, or solicited
 * and error ones) write a completion event, once.
 */
#define VROCE_DB_CQ_CQN		GENMASK(31, 20)
#define VROCE_DB_CQ_CMD		GENMASK(19, 18)
#define VROCE_DB_CQ_CI		GENMASK(15, 0)
#define VROCE_DB_CQ_CMD_CI		0	/* consumer index only */
#define VROCE_DB_CQ_CMD_ARM_NEXT	1	/* and arm for the next CQE */
#define VROCE_DB_CQ_CMD_ARM_SOL		2	/* and arm for a solicited one */

/*
 * issue 31: lending the writer's context (VROCE_CAP_LEND). A write of a
 * QPN to DB_LEND, after that QP's SQ doorbell, lends the writing context
 * to the HCA: it executes up to a few of the QP's send WQEs before the
 * write returns, and leaves the rest, or all of them when the QP's engine
 * is busy, held or the HCA is in a command, to its own engine, as the SQ
 * doorbell asked. The write may sleep: the driver makes it only from a
 * context that may (Documentation/device.rst, "Lent doorbells"). A QPN
 * with no QP, or a QP with nothing to send, makes it do nothing.
 */
#define VROCE_DB_LEND_QPN		GENMASK(15, 0)

/* Event queue layout: VROCE_RING_CFG_*, like the command ring, and: */
#define VROCE_EQ_CFG_ENABLE		BIT(31)

#endif /* _VROCE_REGS_H_ */
