/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce HCA command interface, as the hardware defines it: the command
 * slot, opcodes and status, MR keys and rights, and the request and
 * response formats. Data only; shared by the driver's command layer and
 * the HCA's command processor.
 */
#ifndef _VROCE_CMDS_H_
#define _VROCE_CMDS_H_

#include <linux/bits.h>
#include <linux/types.h>

/* One command slot: the request, then the response the HCA writes back. */
#define VROCE_CMD_SLOT_SIZE	128
#define VROCE_CMD_REQ_SIZE	64
#define VROCE_CMD_RESP_SIZE	(VROCE_CMD_SLOT_SIZE - VROCE_CMD_REQ_SIZE)

/**
 * struct vroce_cmdq_dbr - the command ring's doorbell record, in host memory
 * @pi: the producer index (free running), written by the driver after the
 *	slots up to it
 * @event: the consumer index at which the HCA last went idle, written by
 *	the HCA: only the command at this index needs the CMDQ_PI doorbell
 *
 * When VROCE_REG_CMDQ_DBR holds its address (8-byte aligned) the HCA takes
 * the producer index from @pi, and the CMDQ_PI register only wakes it.
 * Before it goes idle the HCA writes @event, then reads @pi again; the
 * driver writes @pi, then reads @event. Each side orders its write before
 * its read, so either the HCA sees a command posted while it went idle or
 * the driver sees that the HCA waits for it and rings. Commands posted
 * while the HCA is busy need no doorbell: submitters that arrive together
 * ring once (virtio's event index, NVMe's shadow doorbells).
 */
struct vroce_cmdq_dbr {
	__le32 pi;
	__le32 event;
};

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
	VROCE_CMD_ENABLE_MR	= 11,
	VROCE_CMD_REVOKE_MR	= 12,
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
 * MPT index and a generation the HCA bumps at every CREATE_MR and
 * ENABLE_MR of the slot make up the rest. A key works only while all
 * three match the entry.
 */
#define VROCE_KEY_TAG		GENMASK(7, 0)
#define VROCE_KEY_INDEX		GENMASK(23, 8)
#define VROCE_KEY_GEN		GENMASK(31, 24)
/*
 * An MR's handle: the index and the generation CREATE_MR gave it, no
 * consumer byte; it stays the same through ENABLE_MR and REVOKE_MR.
 */
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
/*
 * ENABLE_MR: make an idle fast-register entry (CREATE_MR of kind FRMR,
 * never registered, or revoked) a user MR: the HCA copies @npages 4 KiB
 * page addresses from the list at @pbl into the entry's table, gives it
 * the PD, rights and range, and a new key. The entry translates as an
 * MTT MR from then on: no work request can register or invalidate it.
 */
struct vroce_cmd_enable_mr {
	struct vroce_cmd_hdr hdr;
	__le32 handle;
	__le32 pdn;
	__le32 access;
	__le32 npages;
	__le64 iova;
	__le64 length;
	__le64 pbl;
};

/*
 * REVOKE_MR: an MR ENABLE_MR made stops translating; once the response is
 * written no work request reaches its pages. The entry and its table stay,
 * idle, under the PD @pdn (the driver's own), ready for ENABLE_MR.
 */
struct vroce_cmd_revoke_mr {
	struct vroce_cmd_hdr hdr;
	__le32 handle;
	__le32 pdn;
};

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

/* QP transport types. */
enum vroce_qp_type {
	VROCE_QPT_RC	= 0,	/* reliable connected */
	VROCE_QPT_UD	= 1,	/* unreliable datagram */
	VROCE_QPT_GSI	= 2,	/* the GSI QP (UD, number VROCE_GSI_QPN), one */
};

struct vroce_cmd_create_qp {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 scqn;		/* CQ of the send queue */
	__le32 rcqn;		/* CQ of the receive queue */
	u8 sq_depth_log2;	/* WQEs = 2^n, 1 to VROCE_MAX_WQ_DEPTH_LOG2 */
	u8 rq_depth_log2;
	u8 sq_sig_all;		/* every send WQE completes */
	u8 type;		/* enum vroce_qp_type */
	struct vroce_cmd_ring sq;
	struct vroce_cmd_ring rq;
	__le32 qpn;		/* chosen by the driver: VROCE_QPN_BASE + slot */
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
	u8 timeout;		/* local ack timeout code, 0 to 31 */
	__le32 qkey;		/* UD and GSI: the Q_Key receives must carry */
	u8 dmac[6];		/* RC, from RTR on: the peer port's MAC */
	u8 rsvd1[2];
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
	u8 mac[6];		/* the port's Ethernet address */
	u8 caps;		/* VROCE_CAP_*: 0 from an HCA before them */
	u8 rsvd;
};

/* What QUERY_DEVICE's caps say the HCA does beyond the base commands. */
#define VROCE_CAP_MR_ENABLE	BIT(0)	/* ENABLE_MR and REVOKE_MR */
/* ATOMIC_CMP_SWP, _FETCH_ADD, _WRITE WQEs, atomic against the CPU too. */
#define VROCE_CAP_ATOMIC	BIT(2)

struct vroce_resp_create_pd {
	struct vroce_resp_hdr hdr;
	__le32 pdn;
};

struct vroce_resp_create_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;		/* lkey and rkey: VROCE_KEY_* */
	__le32 handle;		/* for DESTROY_MR: VROCE_MR_HANDLE_* */
};

struct vroce_resp_enable_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;		/* the MR's new lkey and rkey */
};

struct vroce_resp_create_cq {
	struct vroce_resp_hdr hdr;
	__le32 cqn;
};

struct vroce_resp_create_qp {
	struct vroce_resp_hdr hdr;
	__le32 qpn;
};

#endif /* _VROCE_CMDS_H_ */
