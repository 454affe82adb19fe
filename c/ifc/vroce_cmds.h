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
	/* Shared receive queues (VROCE_CAP_SRQ). */
	VROCE_CMD_CREATE_SRQ	= 13,
	VROCE_CMD_MODIFY_SRQ	= 14,
	VROCE_CMD_DESTROY_SRQ	= 15,
	VROCE_CMD_QUERY_SRQ	= 16,
	/* RESIZE_CQ and QUERY_COUNTERS (issue 30). */
	VROCE_CMD_RESIZE_CQ	= 17,
	VROCE_CMD_QUERY_COUNTERS = 18,
	/* UD multicast: struct vroce_cmd_mcast, VROCE_CAP_MCAST. */
	VROCE_CMD_ATTACH_MCAST	= 19,
	VROCE_CMD_DETACH_MCAST	= 20,
	/* REREG_MR (issue 30): 21; 22 spare. */
	VROCE_CMD_REREG_MR	= 21,
	/* issue 31, mapped rings: a QP's doorbell record (VROCE_CAP_MAPPED) */
	VROCE_CMD_QP_DBREC	= 22,
	/* Memory windows (issue 30, VROCE_CAP_MW): struct vroce_cmd_*_mw. */
	VROCE_CMD_ALLOC_MW	= 23,
	VROCE_CMD_DEALLOC_MW	= 24,
	/* Review of issue 31: the port's GID table (VROCE_CAP_GID_TABLE). */
	VROCE_CMD_SET_GID	= 25,
	/* Issue 33, on-demand paging (VROCE_CAP_ODP). */
	VROCE_CMD_QUERY_PAGE_FAULT = 26,
	VROCE_CMD_RESUME_PAGE_FAULT = 27,
	VROCE_CMD_FENCE		= 28,
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
#define VROCE_MR_KIND_ODP	3	/* MTT whose empty entries fault (issue 33) */

/* MR access rights, as the HCA checks them (same bits as IB_ACCESS_*). */
#define VROCE_ACC_LOCAL_WRITE	BIT(0)
#define VROCE_ACC_REMOTE_WRITE	BIT(1)
#define VROCE_ACC_REMOTE_READ	BIT(2)
#define VROCE_ACC_REMOTE_ATOMIC	BIT(3)
#define VROCE_ACC_MW_BIND	BIT(4)	/* memory windows may be bound to it */
#define VROCE_ACC_MASK		GENMASK(4, 0)
/* The rights a memory window grants: remote ones only. */
#define VROCE_ACC_MW_MASK	(VROCE_ACC_REMOTE_WRITE | VROCE_ACC_REMOTE_READ | \
				 VROCE_ACC_REMOTE_ATOMIC)

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

/* What REREG_MR changes: VROCE_REREG_* in struct vroce_cmd_rereg_mr.flags. */
#define VROCE_REREG_PD		BIT(0)
#define VROCE_REREG_ACCESS	BIT(1)
#define VROCE_REREG_TRANS	BIT(2)
#define VROCE_REREG_MASK	GENMASK(2, 0)

/**
 * struct vroce_cmd_rereg_mr - REREG_MR: change an MTT MR in place
 * @hdr: the command header
 * @handle: the MR, by the handle CREATE_MR returned
 * @flags: VROCE_REREG_*, at least one
 * @pdn: VROCE_REREG_PD: the new protection domain
 * @access: VROCE_REREG_ACCESS: the new VROCE_ACC_* rights
 * @cfg: VROCE_REREG_TRANS: VROCE_MTT_* of the new table
 * @rsvd: zero
 * @iova: VROCE_REREG_TRANS: the new first address
 * @length: VROCE_REREG_TRANS: the new length in bytes
 * @root_ba: VROCE_REREG_TRANS: the new table's root
 * @page_count: VROCE_REREG_TRANS: pages behind the new table
 *
 * Only a registered MTT MR is changed: of CREATE_MR, or of ENABLE_MR but
 * for its translation (VROCE_REREG_TRANS), which its page list loads.
 * Every field is checked first, as CREATE_MR checks it, and
 * then all of them change at once: no work request sees part of the change
 * (they run with no command in), and a refused command changes nothing.
 * The key stays the same (hns' rereg keeps it too): work requests posted
 * with it after the response reach the new PD, rights and pages; the old
 * table is the driver's again once the response is written.
 */
struct vroce_cmd_rereg_mr {
	struct vroce_cmd_hdr hdr;
	__le32 handle;
	__le32 flags;
	__le32 pdn;
	__le32 access;
	__le32 cfg;
	__le32 rsvd;
	__le64 iova;
	__le64 length;
	__le64 root_ba;
	__le64 page_count;
};

struct vroce_cmd_ring {
	__le64 root_ba;
	__le32 cfg;		/* VROCE_MTT_* */
	__le32 page_count;
};

/**
 * struct vroce_cmd_create_cq - CREATE_CQ: a CQ over a ring of CQEs
 * @hdr: VROCE_CMD_CREATE_CQ
 * @depth_log2: CQEs = 2^n, 1 to VROCE_MAX_CQ_DEPTH_LOG2
 * @rsvd: zero
 * @ring: the CQEs
 * @dbrec: (issue 31, VROCE_CAP_MAPPED) 0, or the DMA address of the CQ's
 *	doorbell record (struct vroce_ifc_cq_dbrec), 8-byte aligned: the
 *	HCA then takes the consumer index from its @ci, never from DB_CQ's
 *	(DB_CQ only arms). BAD_PARAM for an address not aligned or not
 *	memory. A driver before it leaves it 0 (the slot is zeroed).
 */
struct vroce_cmd_create_cq {
	struct vroce_cmd_hdr hdr;
	__le32 depth_log2;
	__le32 rsvd;
	struct vroce_cmd_ring ring;
	__le64 dbrec;
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
	VROCE_QPT_UC	= 3,	/* unreliable connected (VROCE_CAP_UC) */
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
	/*
	 * RC and UD: 0, or the SRQ (VROCE_SRQN_BASE + slot) the QP takes its
	 * receives from; the QP then has no receive ring (@rq and
	 * @rq_depth_log2 zero).
	 */
	__le32 srqn;
};

/*
 * issue 31, hca: CREATE_QP's flags, in the byte of @sq_sig_all (the
 * mailbox is full), which is bit 0 of it. VROCE_QP_F_UNPRIV: the QP is a
 * process's (created with udata), and the HCA trusts none of its WQEs:
 * it refuses at execution every work request a process must not post
 * (REG_MR, LOCAL_INV) and every key of a DMA MR, which reaches all of
 * memory, with an error CQE and the QP to ERR (Documentation/datapath.rst,
 * "Work requests of a process"). Only for an HCA that offers
 * VROCE_CAP_UNPRIV_QP: one before it takes any byte but 0 as sq_sig_all.
 */
#define VROCE_QP_F_SIG_ALL	BIT(0)
#define VROCE_QP_F_UNPRIV	BIT(7)

/* QP states as the HCA knows them. */
enum vroce_qp_state {
	VROCE_QPS_RESET	= 0,	/* rings forgotten; counters back to 0 */
	VROCE_QPS_INIT	= 1,	/* RQ accepts WQEs, nothing executes */
	VROCE_QPS_RTR	= 2,	/* receives */
	VROCE_QPS_RTS	= 3,	/* sends */
	VROCE_QPS_ERR	= 4,	/* every WQE completes with a flush error */
};

/**
 * struct vroce_cmd_modify_qp - MODIFY_QP: a QP's state and attributes
 * @hdr: the header
 * @qpn: the QP
 * @state: enum vroce_qp_state
 * @path_mtu: (VROCE_MODIFY_F_PATH) IB MTU code, VROCE_IB_MTU_256 (1) to
 *	VROCE_IB_MTU_4096 (5), as enum ib_mtu
 * @sgid_index: (VROCE_MODIFY_F_PATH) the entry of the port's GID table
 *	(SET_GID) the QP's packets leave from; the HCA copies the GID now
 * @flags: VROCE_MODIFY_F_*: which of the parts below this modify sets;
 *	the others keep what the QP had
 * @dest_qpn: the peer, from RTR on
 * @access: VROCE_ACC_REMOTE_*: what the peer may do
 * @max_rd_atomic: (VROCE_MODIFY_F_RD_ATOMIC, RC) READ and atomic requests
 *	this QP may have outstanding, at most VROCE_MAX_RD_ATOMIC
 * @max_dest_rd_atomic: (VROCE_MODIFY_F_RD_ATOMIC, RC) those the peer may
 *	have outstanding here, at most VROCE_MAX_RD_ATOMIC
 * @hop_limit: (VROCE_MODIFY_F_PATH) the packets' IP TTL or hop limit
 * @rnr_retry: RNR retries, 7: forever
 * @min_rnr_timer: IB_RNR_TIMER_* code of this QP as responder
 * @retry_cnt: transport retries, 0 to 7
 * @timeout: local ack timeout code, 0 to 31
 * @qkey: UD and GSI: the Q_Key receives must carry; RC and UC with
 *	VROCE_MODIFY_F_PATH: the IPv6 flow label, 20 bits
 * @dmac: RC and UC, from RTR on: the peer port's MAC
 * @tclass: (VROCE_MODIFY_F_PATH) the packets' IP traffic class (DSCP, ECN)
 * @rsvd: zero
 * @sq_psn: (VROCE_MODIFY_F_SQ_PSN) the PSN of the next request, 24 bits
 * @rq_psn: (VROCE_MODIFY_F_RQ_PSN, RC and UC) the PSN the responder
 *	expects next, 24 bits
 * @dgid: (VROCE_MODIFY_F_PATH) the peer port's GID: the packets'
 *	destination address
 *
 * @state and @access were 32-bit fields holding small numbers (an HCA
 * without VROCE_CAP_QP_PATH still reads them so, and refuses a request
 * whose upper bytes are not zero); their upper bytes, and the bytes after
 * @dmac, carry the path of issue 34 (Documentation/wire.rst, "RC over
 * packets"). A driver sends it only to an HCA that offers VROCE_CAP_QP_PATH;
 * a request of an older driver, all zero there, sets none of it. The
 * driver sends every attribute on each modify, so the flags keep an RTS to
 * RTS change of @timeout from moving a PSN. Status: BAD_HANDLE, BUSY (the
 * QP is in ERR), BAD_PARAM (a field out of range, an unknown flag, a flag
 * the QP's type does not take, a GID table entry that is empty).
 */
struct vroce_cmd_modify_qp {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
	u8 state;
	u8 path_mtu;
	u8 sgid_index;
	u8 flags;
	__le32 dest_qpn;
	u8 access;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 hop_limit;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 retry_cnt;
	u8 timeout;
	__le32 qkey;
	u8 dmac[6];
	u8 tclass;
	u8 rsvd;
	__le32 sq_psn;
	__le32 rq_psn;
	u8 dgid[16];
};

/* MODIFY_QP's flags (VROCE_CAP_QP_PATH): the parts a modify sets. */
#define VROCE_MODIFY_F_SQ_PSN	BIT(0)	/* any QP type */
#define VROCE_MODIFY_F_RQ_PSN	BIT(1)	/* RC and UC */
#define VROCE_MODIFY_F_PATH	BIT(2)	/* RC and UC: GIDs, MTU, IP fields */
#define VROCE_MODIFY_F_RD_ATOMIC BIT(3)	/* RC */
#define VROCE_MODIFY_F_ALL	GENMASK(3, 0)

/* MODIFY_QP's path MTU codes: IBTA's, as enum ib_mtu. */
#define VROCE_IB_MTU_256	1
#define VROCE_IB_MTU_4096	5

/* A PSN is 24 bits; a flow label 20. */
#define VROCE_PSN_MASK		GENMASK(23, 0)
#define VROCE_FLOW_LABEL_MASK	GENMASK(19, 0)
/* READ and atomic requests outstanding per QP, each way. */
#define VROCE_MAX_RD_ATOMIC	16

struct vroce_cmd_destroy_qp {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
};

/* Multicast groups of an HCA, and UD QPs attached to each group. */
#define VROCE_MAX_MCG		64
#define VROCE_MAX_MCG_QP	8

/**
 * struct vroce_cmd_mcast - ATTACH_MCAST and DETACH_MCAST
 * @hdr: the header
 * @qpn: a UD QP of this HCA
 * @rsvd: zero
 * @gid: the group: a multicast GID, IPv6 (ff00::/8) or IPv4-mapped
 *	(::ffff:224.0.0.0/100)
 *
 * ATTACH_MCAST adds @qpn to the group of @gid, creating the group if it is
 * new; a UD send to @gid with destination QPN VROCE_MCAST_QPN then reaches
 * the QP (c/ifc/vroce_wqe.h). DETACH_MCAST takes it out; the group goes
 * with its last QP. DESTROY_QP takes a QP out of every group. Status:
 * BAD_HANDLE (no such QP), BAD_PARAM (not a UD QP, not a multicast GID,
 * attached already, or not attached), NO_RESOURCE (VROCE_MAX_MCG groups,
 * or VROCE_MAX_MCG_QP QPs in the group, already), BAD_OPCODE without
 * VROCE_CAP_MCAST.
 */
struct vroce_cmd_mcast {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
	__le32 rsvd;
	u8 gid[16];
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
	u8 caps_hi;		/* VROCE_CAP_* bits 8-15 (was reserved, zero) */
};

/* What QUERY_DEVICE's caps say the HCA does beyond the base commands. */
#define VROCE_CAP_MR_ENABLE	BIT(0)	/* ENABLE_MR and REVOKE_MR */
#define VROCE_CAP_SRQ		BIT(1)	/* the SRQ commands, CREATE_QP's srqn */
/* ATOMIC_CMP_SWP, _FETCH_ADD, _WRITE WQEs, atomic against the CPU too. */
#define VROCE_CAP_ATOMIC	BIT(2)
/* UC QPs (VROCE_QPT_UC) and UD multicast (ATTACH_MCAST, DETACH_MCAST). */
#define VROCE_CAP_UC		BIT(3)
#define VROCE_CAP_MCAST		BIT(4)
/* issue 31, hca: CREATE_QP's VROCE_QP_F_UNPRIV (a process's QP) */
#define VROCE_CAP_UNPRIV_QP	BIT(6)
/*
 * issue 31: rings in a process's memory with doorbell records: CREATE_CQ's
 * and CREATE_SRQ's @dbrec, QP_DBREC.
 */
#define VROCE_CAP_MAPPED	BIT(5)

/**
 * struct vroce_ifc_cq_dbrec - a CQ's doorbell record, as the HCA reads it
 * @ci: CQEs consumed (free running), written by the consumer
 * @arm: the consumer's, the HCA never reads it (an arm comes by DB_CQ)
 *
 * The HCA reads @ci once per use: before it writes a CQE into a ring that
 * looks full, and refuses (CQ_ERR, VROCE_CNT_DBREC_ERR) one that is ahead
 * of its producer count or more than the depth behind it.
 */
struct vroce_ifc_cq_dbrec {
	__le32 ci;
	__le32 arm;
};

/**
 * struct vroce_ifc_qp_dbrec - a QP's doorbell record, as the HCA reads it
 * @sq_pi: send WQEs posted (free running): read at each DB_SQ, whose
 *	index the HCA then ignores, and at each DB_LEND (issue 31: for such
 *	a QP a send doorbell too)
 * @rq_pi: receive WQEs posted: read when a message needs a receive (no
 *	DB_RQ rings for such a QP)
 *
 * An index more than the ring's depth ahead of the HCA's consumer count,
 * or behind the producer count read before, moves the QP to ERR and is
 * counted in VROCE_CNT_DBREC_ERR. An SRQ's record is one __le32, its
 * producer count, read like @rq_pi.
 */
struct vroce_ifc_qp_dbrec {
	__le32 sq_pi;
	__le32 rq_pi;
};

/**
 * struct vroce_cmd_qp_dbrec - QP_DBREC: give a QP a doorbell record
 * @hdr: VROCE_CMD_QP_DBREC
 * @qpn: an RC, UC or UD QP in RESET that has no record yet
 * @rsvd: zero
 * @dbrec: DMA address of its struct vroce_ifc_qp_dbrec, 8-byte aligned
 *
 * CREATE_QP's request has no room left, so the record comes in a command
 * of its own, before the QP leaves RESET; it stays until DESTROY_QP, a
 * RESET keeps it. Status: BAD_HANDLE (no such QP), BAD_PARAM (a GSI QP,
 * not in RESET, a record already, an address not aligned or not memory),
 * BAD_OPCODE without VROCE_CAP_MAPPED.
 */
struct vroce_cmd_qp_dbrec {
	struct vroce_cmd_hdr hdr;
	__le32 qpn;
	__le32 rsvd;
	__le64 dbrec;
};

/*
 * issue 31: writes to VROCE_REG_DB_LEND run send WQEs in the writer's
 * context; for a QP with a doorbell record the write is its send doorbell
 * too (what the lent context does not run, the engine runs).
 */
#define VROCE_CAP_LEND		BIT(7)

/*
 * Memory windows (issue 30): ALLOC_MW, DEALLOC_MW and BIND_MW work
 * requests; windows of type 1 and type 2B (bound to a QP and its PD).
 * A window takes an MPT entry, as an MR does: its key has the same
 * layout (VROCE_KEY_*), its handle an MR handle's (VROCE_MR_HANDLE_*).
 */
#define VROCE_CAP_MW		BIT(8)

/*
 * Review of issue 31: the port has a GID table, which SET_GID writes; a
 * datagram's source GID (struct vroce_wqe_av's sgid) must be one of it.
 */
#define VROCE_CAP_GID_TABLE	BIT(9)

/*
 * Issue 33: a write to VROCE_REG_CMDQ_LEND is a CMDQ_PI doorbell that also
 * lends the writing context to the command processor: unless it or the
 * wire is busy elsewhere or a fault knob is armed, the commands before
 * the value written (the writer's own) are carried out before the write
 * returns, and raise no CMD_DONE interrupt: the writer reads CMDQ_CI
 * afterwards and hands out the response. The rest run as after a CMDQ_PI
 * write, with their interrupts. The write may sleep
 * (Documentation/device.rst, "Lent command doorbells").
 */
#define VROCE_CAP_CMD_LEND	BIT(10)

/*
 * Issue 33, on-demand paging: CREATE_MR of kind VROCE_MR_KIND_ODP. Where
 * such an MR's tables have no entry for a page an access needs, the HCA
 * holds the work request that needs it (the requester's, whichever end
 * the MR is at) and writes a VROCE_EQE_PAGE_FAULT event naming a fault
 * slot: QUERY_PAGE_FAULT says what faulted, RESUME_PAGE_FAULT ends it
 * (the entries written, or not resolvable: the access then fails as a
 * protection error once). A held request runs again when a fault is
 * resumed, or after VROCE_PAGE_FAULT_RETRY_MS at the latest. FENCE
 * returns once no access through entries read before it is in flight.
 */
#define VROCE_CAP_ODP		BIT(11)

/*
 * Issue 34: MODIFY_QP carries an RC or UC QP's path (GIDs, MTU, IP
 * fields), its PSNs and its READ/atomic depths (struct
 * vroce_cmd_modify_qp, VROCE_MODIFY_F_*).
 */
#define VROCE_CAP_QP_PATH	BIT(12)

/* Fault slots of an HCA: faults pending at once. */
#define VROCE_PAGE_FAULT_SLOTS	16
#define VROCE_PAGE_FAULT_RETRY_MS	10

/**
 * struct vroce_cmd_page_fault - QUERY_PAGE_FAULT: what fault slot @slot holds
 * @hdr: the command header
 * @slot: from the VROCE_EQE_PAGE_FAULT event
 */
struct vroce_cmd_page_fault {
	struct vroce_cmd_hdr hdr;
	__le32 slot;
};

/* struct vroce_resp_page_fault flags */
#define VROCE_PAGE_FAULT_F_WRITE	BIT(0)	/* the access stores */

/**
 * struct vroce_resp_page_fault - QUERY_PAGE_FAULT's response
 * @hdr: the response header; BAD_HANDLE when the slot holds no fault
 * @handle: the MR's handle (VROCE_MR_HANDLE_*), never its key
 * @flags: VROCE_PAGE_FAULT_F_*
 * @iova: the first address the access needs that has no entry
 * @len: bytes from @iova the access needs, at least 1
 */
struct vroce_resp_page_fault {
	struct vroce_resp_hdr hdr;
	__le32 handle;
	__le32 flags;
	__le64 iova;
	__le64 len;
};

/* RESUME_PAGE_FAULT's status. */
#define VROCE_PAGE_FAULT_RESOLVED	0	/* the entries are written */
#define VROCE_PAGE_FAULT_FAILED		1	/* the access fails, once */

/**
 * struct vroce_cmd_resume_page_fault - RESUME_PAGE_FAULT: end a fault
 * @hdr: the command header
 * @slot: the fault slot
 * @handle: the MR QUERY_PAGE_FAULT named (a slot reused since: BAD_HANDLE)
 * @status: VROCE_PAGE_FAULT_RESOLVED or _FAILED
 */
struct vroce_cmd_resume_page_fault {
	struct vroce_cmd_hdr hdr;
	__le32 slot;
	__le32 handle;
	__le32 status;
};

/* Entries of the port's GID table (the RDMA core's gid_tbl_len). */
#define VROCE_MAX_GID		16

/* SET_GID's flags. */
#define VROCE_SET_GID_F_VALID	BIT(0)	/* the entry holds @gid; else empty */

/**
 * struct vroce_cmd_set_gid - SET_GID: write one entry of the GID table
 * @hdr: VROCE_CMD_SET_GID
 * @index: the entry, below VROCE_MAX_GID
 * @flags: VROCE_SET_GID_F_*
 * @gid: with VROCE_SET_GID_F_VALID, the GID (IPv6, or IPv4-mapped); zero
 *	without it
 *
 * The table starts empty and a reset empties it. Once the response is
 * written, every UD or GSI send WQE the HCA executes is checked against
 * the new table: a WQE of a process's QP (VROCE_QP_F_UNPRIV, or one with
 * a doorbell record) whose sgid is in no valid entry completes with
 * LOC_QP_OP_ERR and its QP moves to ERR; a kernel QP's datagram is
 * dropped (its WQE completes, as a datagram lost on the wire). Both are
 * counted in VROCE_CNT_SGID_REFUSED. WQEs executed before the response
 * went out with the old table. Status: BAD_PARAM (an @index past the
 * table, an unknown flag, a nonzero @gid without VROCE_SET_GID_F_VALID,
 * a zero @gid with it), BAD_OPCODE without VROCE_CAP_GID_TABLE.
 */
struct vroce_cmd_set_gid {
	struct vroce_cmd_hdr hdr;
	__le32 index;
	__le32 flags;
	u8 gid[16];
};

/* Memory window types (IBTA; the values of IB_MW_TYPE_*). */
#define VROCE_MW_TYPE_1		1
#define VROCE_MW_TYPE_2		2

/**
 * struct vroce_cmd_alloc_mw - ALLOC_MW: a memory window of a PD
 * @hdr: the command header
 * @pdn: the window's protection domain
 * @type: VROCE_MW_TYPE_*
 *
 * A type 1 window is valid from here and grants nothing until a bind
 * gives it a range; a type 2 window is free (its key works nowhere) until
 * a BIND_MW work request binds it to the QP posting it.
 */
struct vroce_cmd_alloc_mw {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 type;
};

/**
 * struct vroce_resp_alloc_mw - ALLOC_MW's response
 * @hdr: the response header
 * @key: the window's R_Key (VROCE_KEY_*)
 * @handle: for DEALLOC_MW (VROCE_MR_HANDLE_*)
 */
struct vroce_resp_alloc_mw {
	struct vroce_resp_hdr hdr;
	__le32 key;
	__le32 handle;
};

/**
 * struct vroce_cmd_dealloc_mw - DEALLOC_MW: free a window, bound or not
 * @hdr: the command header
 * @handle: what ALLOC_MW returned
 *
 * Once the response is written no access goes through the window.
 */
struct vroce_cmd_dealloc_mw {
	struct vroce_cmd_hdr hdr;
	__le32 handle;
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

struct vroce_resp_enable_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;		/* the MR's new lkey and rkey */
};

/**
 * struct vroce_resp_rereg_mr - REREG_MR's response
 * @hdr: the response header
 * @key: the MR's lkey and rkey, unchanged by REREG_MR
 */
struct vroce_resp_rereg_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;
};

struct vroce_resp_create_cq {
	struct vroce_resp_hdr hdr;
	__le32 cqn;
};

struct vroce_resp_create_qp {
	struct vroce_resp_hdr hdr;
	__le32 qpn;
};

/* ---- issue 30, cq/counters: RESIZE_CQ and QUERY_COUNTERS ---- */

/**
 * struct vroce_cmd_resize_cq - RESIZE_CQ: move a CQ to a new ring
 * @hdr: VROCE_CMD_RESIZE_CQ
 * @cqn: the CQ
 * @depth_log2: CQEs of the new ring = 2^n, 1 to VROCE_MAX_CQ_DEPTH_LOG2
 * @ci: the consumer's count on the old ring: the CQEs it has polled
 * @want: (issue 31) 0, or the CQEs the consumer asked the new ring to
 *	hold at least: BAD_PARAM when more are outstanding (a mapped CQ's
 *	ring may be deeper than asked, whole pages)
 * @ring: the new ring, an MTR of one region, as CREATE_CQ's
 *
 * The HCA copies the CQEs written and not yet polled (counts @ci up to
 * its producer count) to the new ring's first entries, in order, then
 * writes every later CQE there: the new ring's counts start at 0, the
 * copied CQEs are counts 0 to n - 1, the consumer's count is 0 and the
 * producer's n. Nothing else of the CQ changes (its number, arming, the
 * QPs completing to it). Once the response is written the HCA neither
 * reads nor writes the old ring; a CQ with a doorbell record (issue 31)
 * gets 0 in the record's consumer index as the switch happens, before any
 * CQE of the new ring. BAD_PARAM, and nothing changes, when
 * @ci is not a count between the producer's less the old depth and the
 * producer's, when more CQEs are outstanding than the new ring holds, or
 * for a bad depth or ring.
 */
struct vroce_cmd_resize_cq {
	struct vroce_cmd_hdr hdr;
	__le32 cqn;
	__le32 depth_log2;
	__le32 ci;
	__le32 want;
	struct vroce_cmd_ring ring;
};

/**
 * struct vroce_resp_resize_cq - RESIZE_CQ's response
 * @hdr: the status
 * @copied: CQEs copied: the new ring's producer count
 */
struct vroce_resp_resize_cq {
	struct vroce_resp_hdr hdr;
	__le32 copied;
};

/*
 * The port's counters, as QUERY_COUNTERS numbers them. Free running
 * 64-bit counts since the HCA was plugged in (a reset keeps them). The
 * HCA moves whole messages; it counts the packets a 4096-byte MTU
 * (VROCE_MAX_UD_MSG) would cut each into, one at least, and the bytes of
 * the messages' payload (no headers, no acks).
 */
enum vroce_counter {
	VROCE_CNT_TX_PACKETS		= 0,	/* request payload sent, READ responses */
	VROCE_CNT_TX_BYTES		= 1,
	VROCE_CNT_RX_PACKETS		= 2,	/* request payload taken, READ responses */
	VROCE_CNT_RX_BYTES		= 3,
	VROCE_CNT_RETRIES		= 4,	/* a request sent again after no answer */
	VROCE_CNT_RNR_NAK_SENT		= 5,	/* a responder had no receive */
	VROCE_CNT_RNR_NAK_RCVD		= 6,	/* a requester was told so */
	VROCE_CNT_UD_DROPPED		= 7,	/* datagrams no QP took */
	/* Error CQEs written, one counter per status. */
	VROCE_CNT_LOC_LEN_ERR		= 8,
	VROCE_CNT_LOC_QP_OP_ERR		= 9,
	VROCE_CNT_LOC_PROT_ERR		= 10,
	VROCE_CNT_REM_ACCESS_ERR	= 11,
	VROCE_CNT_REM_INV_REQ_ERR	= 12,
	VROCE_CNT_REM_OP_ERR		= 13,
	VROCE_CNT_RETRY_EXC_ERR		= 14,
	VROCE_CNT_RNR_RETRY_EXC_ERR	= 15,
	VROCE_CNT_WR_FLUSH_ERR		= 16,
	VROCE_CNT_LOC_ACCESS_ERR	= 17,
	/*
	 * issue 31, hca: WQEs of an unprivileged QP (VROCE_QP_F_UNPRIV) the
	 * HCA refused: a privileged work request or key, or a malformed field
	 */
	VROCE_CNT_UNPRIV_REFUSED	= 18,
	/*
	 * issue 31, mapped rings: a doorbell record held an index the HCA
	 * refused (a producer more than the depth ahead of the consumer, or
	 * behind it; a CQ consumer ahead of the producer or more than the
	 * depth behind): its QP went to ERR, or its CQ reported CQ_ERR.
	 */
	VROCE_CNT_DBREC_ERR		= 19,
	/* issue 31, lend: VROCE_REG_DB_LEND */
	VROCE_CNT_LENT_WQES		= 20,	/* send WQEs completed in a lent context */
	VROCE_CNT_LEND_DEFERRED		= 21,	/* lends left to the QP's engine */
	/*
	 * Review of issue 31: datagrams whose source GID is in no entry of
	 * the port's GID table (VROCE_CAP_GID_TABLE), refused or dropped
	 */
	VROCE_CNT_SGID_REFUSED		= 22,
	/* Issue 33: page faults raised (VROCE_EQE_PAGE_FAULT events) */
	VROCE_CNT_PAGE_FAULTS		= 23,
	/*
	 * Issue 34: a port cabled to a netdev (Documentation/wire.rst): RoCE
	 * v2 packets it sent and took, and those it dropped: a wrong ICRC;
	 * one that does not parse, is not to one of its GIDs, carries another
	 * P_Key or an opcode not carried over packets, or found the receive
	 * queue full; one it could not send (no memory, longer than the
	 * link's MTU, the link down)
	 */
	VROCE_CNT_TX_FRAMES		= 24,
	VROCE_CNT_RX_FRAMES		= 25,
	VROCE_CNT_RX_ICRC_ERR		= 26,
	VROCE_CNT_RX_DISCARDS		= 27,
	VROCE_CNT_TX_DISCARDS		= 28,
	VROCE_CNT_NUM			= 29,
};

/* Counters in one QUERY_COUNTERS response. */
#define VROCE_CNT_PER_CMD	6

/**
 * struct vroce_cmd_query_counters - QUERY_COUNTERS: read the port's counters
 * @hdr: VROCE_CMD_QUERY_COUNTERS
 * @first: the first counter wanted (enum vroce_counter)
 * @rsvd: zero
 */
struct vroce_cmd_query_counters {
	struct vroce_cmd_hdr hdr;
	__le32 first;
	__le32 rsvd;
};

/**
 * struct vroce_resp_query_counters - QUERY_COUNTERS' response
 * @hdr: the status; BAD_PARAM for @first not below @num
 * @num: counters the HCA has (VROCE_CNT_NUM, or more from a later HCA)
 * @rsvd: zero
 * @value: counters @first to @first + VROCE_CNT_PER_CMD - 1, 0 past @num
 */
struct vroce_resp_query_counters {
	struct vroce_resp_hdr hdr;
	__le32 num;
	__le32 rsvd;
	__le64 value[VROCE_CNT_PER_CMD];
};

/* ---- shared receive queues (VROCE_CAP_SRQ) ---- */

/**
 * struct vroce_cmd_create_srq - CREATE_SRQ: a shared receive queue
 * @hdr: the header
 * @pdn: its protection domain: receive SGEs are checked against it
 * @depth_log2: receive WQEs = 2^n, 1 to VROCE_MAX_WQ_DEPTH_LOG2
 * @limit: arm the limit event at this count of posted WQEs (0: not armed)
 * @rsvd: zero
 * @ring: the receive WQEs (struct vroce_recv_wqe), each with srq_done set
 *	while the slot is free
 *
 * @dbrec: (issue 31, VROCE_CAP_MAPPED) 0, or the DMA address of the
 *	SRQ's doorbell record (a __le32 producer count, 8-byte aligned):
 *	the HCA takes the producer index from it, never from DB_SRQ
 *
 * The HCA takes the SRQ's WQEs in ring order, for any QP attached to it,
 * and sets a WQE's srq_done once it copied it: the driver may reuse the
 * slot from then on. When a take leaves fewer posted WQEs than an armed
 * @limit, the HCA writes one VROCE_EQE_SRQ_LIMIT event and disarms.
 */
struct vroce_cmd_create_srq {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 depth_log2;
	__le32 limit;
	__le32 rsvd;
	struct vroce_cmd_ring ring;
	__le64 dbrec;
};

/**
 * struct vroce_resp_create_srq - CREATE_SRQ's response
 * @hdr: the header
 * @srqn: the SRQ's number, VROCE_SRQN_BASE + slot
 */
struct vroce_resp_create_srq {
	struct vroce_resp_hdr hdr;
	__le32 srqn;
};

/**
 * struct vroce_cmd_modify_srq - MODIFY_SRQ: arm (or disarm) the limit
 * @hdr: the header
 * @srqn: the SRQ
 * @limit: the new limit, at most the depth; 0 disarms
 */
struct vroce_cmd_modify_srq {
	struct vroce_cmd_hdr hdr;
	__le32 srqn;
	__le32 limit;
};

/**
 * struct vroce_cmd_srq - DESTROY_SRQ and QUERY_SRQ
 * @hdr: the header
 * @srqn: the SRQ
 *
 * DESTROY_SRQ is refused (BUSY) while a QP is attached; once it succeeds
 * the HCA neither reads the SRQ's ring nor writes an event for it.
 */
struct vroce_cmd_srq {
	struct vroce_cmd_hdr hdr;
	__le32 srqn;
};

/**
 * struct vroce_resp_query_srq - QUERY_SRQ's response
 * @hdr: the header
 * @limit: the armed limit, 0 when not armed (or fired)
 * @posted: WQEs posted and not yet taken, up to the producer index
 *	posted when the command runs (DB_SRQ's, or the doorbell record's of
 *	a mapped SRQ; review of issue 31: before, only as far as the data
 *	path last looked)
 */
struct vroce_resp_query_srq {
	struct vroce_resp_hdr hdr;
	__le32 limit;
	__le32 posted;
};

#endif /* _VROCE_CMDS_H_ */
