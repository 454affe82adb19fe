/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce HCA register file and command formats, as the hardware defines
 * them. Data only: offsets, field masks and wire structures.
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
#define VROCE_BAR_SIZE		0x80

#define VROCE_HW_VERSION	0x00010000

#define VROCE_CTRL_ENABLE	BIT(0)	/* start processing the command ring */
#define VROCE_CTRL_RESET	BIT(1)	/* self-clearing: forget all state */

#define VROCE_STATUS_READY	BIT(0)	/* enabled, ring configured */

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

/* Event queue layout: VROCE_RING_CFG_*, like the command ring, and: */
#define VROCE_EQ_CFG_ENABLE		BIT(31)

/* One command slot: the request, then the response the HCA writes back. */
#define VROCE_CMD_SLOT_SIZE	128
#define VROCE_CMD_REQ_SIZE	64

enum vroce_cmd_opcode {
	VROCE_CMD_QUERY_DEVICE	= 1,
	VROCE_CMD_CREATE_PD	= 2,
	VROCE_CMD_DESTROY_PD	= 3,
	VROCE_CMD_CREATE_MR	= 4,
	VROCE_CMD_DESTROY_MR	= 5,
	VROCE_CMD_CREATE_CQ	= 6,
	VROCE_CMD_DESTROY_CQ	= 7,
	VROCE_CMD_CREATE_QP	= 8,
	VROCE_CMD_MODIFY_QP	= 9,
	VROCE_CMD_DESTROY_QP	= 10,
};

/* Status the HCA returns in a response. */
enum vroce_cmd_status {
	VROCE_CMD_OK		= 0,
	VROCE_CMD_BAD_OPCODE	= 1,
	VROCE_CMD_BAD_PARAM	= 2,
	VROCE_CMD_NO_RESOURCE	= 3,
	VROCE_CMD_BAD_HANDLE	= 4,
	VROCE_CMD_BUSY		= 5,
	VROCE_CMD_INTERNAL	= 6,
};

/*
 * MR keys: the consumer owns the low byte (ib_update_fast_reg_key()); the
 * MPT index and a generation the HCA bumps at every CREATE_MR of the slot
 * make up the rest. A key works only while all three match the entry.
 */
#define VROCE_KEY_TAG		GENMASK(7, 0)
#define VROCE_KEY_INDEX		GENMASK(23, 8)
#define VROCE_KEY_GEN		GENMASK(31, 24)
/* An MR's handle: the same index and generation, no consumer byte. */
#define VROCE_MR_HANDLE_INDEX	GENMASK(15, 0)
#define VROCE_MR_HANDLE_GEN	GENMASK(23, 16)

/*
 * Fast-register MRs map 4 KiB pages, whatever the CPU's page size; REG_MR
 * carries their list (struct vroce_wqe_reg), at most the MR's table size.
 */
#define VROCE_FRMR_PAGE_SHIFT	12

/* CREATE_MR kinds. */
#define VROCE_MR_KIND_DMA	0	/* iova is a bus address, no table */
#define VROCE_MR_KIND_MTT	1	/* pages behind an MTR */
#define VROCE_MR_KIND_FRMR	2	/* MTR filled later; invalid until then */

/* MR access rights, as the HCA checks them (same bits as IB_ACCESS_*). */
#define VROCE_ACC_LOCAL_WRITE	BIT(0)
#define VROCE_ACC_REMOTE_WRITE	BIT(1)
#define VROCE_ACC_REMOTE_READ	BIT(2)
#define VROCE_ACC_REMOTE_ATOMIC	BIT(3)
#define VROCE_ACC_MASK		GENMASK(3, 0)

/* MTR description in an MR command: VROCE_MTT_* fields in @cfg. */
#define VROCE_MTT_BA_PG_SHIFT	GENMASK(4, 0)
#define VROCE_MTT_BUF_PG_SHIFT	GENMASK(12, 8)
#define VROCE_MTT_HOPNUM	GENMASK(17, 16)

struct vroce_cmd_hdr {
	__le16 opcode;
	__le16 rsvd;
	__le32 token;
};

struct vroce_cmd_create_pd {
	struct vroce_cmd_hdr hdr;
};

struct vroce_cmd_destroy_pd {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
};

struct vroce_cmd_create_mr {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 access;		/* VROCE_ACC_* */
	__le32 kind;		/* VROCE_MR_KIND_* */
	__le32 cfg;		/* VROCE_MTT_*, not for DMA MRs */
	__le64 iova;
	__le64 length;
	__le64 root_ba;
	__le64 page_count;	/* pages behind the table */
};

struct vroce_cmd_destroy_mr {
	struct vroce_cmd_hdr hdr;
	__le32 handle;		/* from CREATE_MR, never the consumer's key */
};

/* A ring (CQ, SQ, RQ) as the HCA reaches it: an MTR of one region. */
struct vroce_cmd_ring {
	__le64 root_ba;
	__le32 cfg;		/* VROCE_MTT_* */
	__le32 page_count;
};

struct vroce_cmd_create_cq {
	struct vroce_cmd_hdr hdr;
	__le32 depth_log2;	/* CQEs = 2^n, 1 to VROCE_MAX_CQ_DEPTH_LOG2 */
	__le32 rsvd;
	struct vroce_cmd_ring ring;
};

struct vroce_cmd_destroy_cq {
	struct vroce_cmd_hdr hdr;
	__le32 cqn;
};

struct vroce_cmd_create_qp {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 scqn;		/* CQ of the send queue */
	__le32 rcqn;		/* CQ of the receive queue */
	u8 sq_depth_log2;	/* WQEs = 2^n, 1 to VROCE_MAX_WQ_DEPTH_LOG2 */
	u8 rq_depth_log2;
	u8 sq_sig_all;		/* every send WQE completes */
	u8 rsvd;
	struct vroce_cmd_ring sq;
	struct vroce_cmd_ring rq;
};

/* QP states as the HCA knows them. */
enum vroce_qp_state {
	VROCE_QPS_RESET	= 0,	/* rings forgotten; counters back to 0 */
	VROCE_QPS_INIT	= 1,	/* RQ accepts WQEs, nothing executes */
	VROCE_QPS_RTR	= 2,	/* receives */
	VROCE_QPS_RTS	= 3,	/* sends */
	VROCE_QPS_ERR	= 4,	/* every WQE completes with a flush error */
};

struct vroce_cmd_modify_qp {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
	__le32 state;		/* enum vroce_qp_state */
	__le32 dest_qpn;	/* the peer, from RTR on */
	__le32 access;		/* VROCE_ACC_REMOTE_*: what the peer may do */
	u8 rnr_retry;		/* RNR retries, 7: forever */
	u8 min_rnr_timer;	/* IB_RNR_TIMER_* code of this QP as responder */
	u8 retry_cnt;
	u8 loopback;		/* 1: the peer is on this HCA */
};

struct vroce_cmd_destroy_qp {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
};

struct vroce_resp_hdr {
	__le16 status;		/* enum vroce_cmd_status */
	__le16 opcode;
	__le32 token;		/* the request's token */
};

struct vroce_resp_query_device {
	struct vroce_resp_hdr hdr;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 max_pd;
	__le32 max_mr;
	__le32 max_fast_reg_pages;
	__le32 vendor_id;
	__le32 max_qp;
	__le32 max_cq;
	__le32 max_wq_depth_log2;
	__le32 max_cq_depth_log2;
};

struct vroce_resp_create_pd {
	struct vroce_resp_hdr hdr;
	__le32 pdn;
};

struct vroce_resp_create_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;		/* lkey and rkey: VROCE_KEY_* */
	__le32 handle;		/* for DESTROY_MR: VROCE_MR_HANDLE_* */
};

struct vroce_resp_create_cq {
	struct vroce_resp_hdr hdr;
	__le32 cqn;
};

struct vroce_resp_create_qp {
	struct vroce_resp_hdr hdr;
	__le32 qpn;
};

#include "vroce_wqe.h"

#endif /* _VROCE_REGS_H_ */
