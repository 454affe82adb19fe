/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce HCA data path formats, as the hardware defines them: work queue
 * entries (WQEs), completion queue entries (CQEs) and event queue entries
 * (EQEs). Data only. Documentation/datapath.rst describes the rings, the
 * doorbells and the ordering rules around them.
 *
 * All rings are power-of-two arrays in host memory described to the HCA by
 * an MTR of one region; the HCA reaches them only by DMA address. Counters
 * are free running; slot = counter & (depth - 1).
 */
#ifndef _VROCE_WQE_H_
#define _VROCE_WQE_H_

#include <linux/bits.h>
#include <linux/sizes.h>
#include <linux/types.h>

#define VROCE_MAX_QP			256
#define VROCE_MAX_CQ			256
#define VROCE_MAX_SRQ			64	/* shared receive queues */
#define VROCE_SRQN_BASE			1	/* SRQN = base + slot; 0: none */
#define VROCE_GSI_QPN			1	/* the GSI QP: QP context slot 0 */
#define VROCE_QPN_BASE			1	/* QPN = VROCE_QPN_BASE + slot */
#define VROCE_MAX_WQ_DEPTH_LOG2		12	/* 4096 WQEs per queue */
#define VROCE_MAX_CQ_DEPTH_LOG2		15	/* 32768 CQEs per CQ */
#define VROCE_EQ_DEPTH_LOG2		9	/* 512 events */
#define VROCE_MAX_MSG_SIZE		SZ_2G	/* one RC message: IBTA's 2^31 */

/* A UD send's av.dest_qpn for a multicast group (the av.dgid's). */
#define VROCE_MCAST_QPN			0xffffff

#define VROCE_MAX_UD_MSG		4096	/* one UD message: the MTU */
#define VROCE_GRH_SIZE			40	/* ahead of each UD receive */

#define VROCE_SEND_WQE_SIZE		256
#define VROCE_RECV_WQE_SIZE		64
#define VROCE_CQE_SIZE			64
#define VROCE_EQE_SIZE			8
#define VROCE_MAX_SEND_SGE		4
#define VROCE_MAX_RECV_SGE		3
#define VROCE_MAX_INLINE		64	/* bytes of inline send data */

/* Send WQE opcodes. */
enum vroce_wqe_opcode {
	VROCE_WQE_SEND		= 0,
	VROCE_WQE_SEND_IMM	= 1,
	VROCE_WQE_SEND_INV	= 2,
	VROCE_WQE_WRITE		= 3,
	VROCE_WQE_WRITE_IMM	= 4,
	VROCE_WQE_READ		= 5,
	VROCE_WQE_REG_MR	= 6,
	VROCE_WQE_LOCAL_INV	= 7,
	/* Atomics (RC only): 8 bytes at an 8-byte aligned remote address. */
	VROCE_WQE_ATOMIC_CMP_SWP	= 8,	/* swap if equal to compare */
	VROCE_WQE_ATOMIC_FETCH_ADD	= 9,	/* add */
	VROCE_WQE_ATOMIC_WRITE		= 10,	/* store the 8-byte message */
	/* Memory windows (VROCE_CAP_MW), RC and UC only. */
	VROCE_WQE_BIND_MW		= 11,
};

/* Send WQE flags. */
#define VROCE_WQE_F_SIGNALED	BIT(0)	/* complete even if not sq_sig_all */
#define VROCE_WQE_F_SOLICITED	BIT(1)	/* the receive completes solicited */
#define VROCE_WQE_F_INLINE	BIT(2)	/* data in the WQE, not behind SGEs */
#define VROCE_WQE_F_FENCE	BIT(3)	/* wait for earlier READs */

/**
 * struct vroce_wqe_sge - a scatter/gather element
 * @addr: address in the MR of @lkey
 * @length: bytes
 * @lkey: the local key
 */
struct vroce_wqe_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/**
 * struct vroce_wqe_reg - the page list of a REG_MR work request
 * @pbl: DMA address of @npages little-endian 64-bit page addresses, each
 *	aligned to 2^VROCE_FRMR_PAGE_SHIFT, in MR order
 * @npages: pages in the list, 1 to the MR's table size
 * @rsvd: zero
 *
 * The HCA reads the list when it executes the work request, not before:
 * until then the MR's table, and so any key of it, is unchanged.
 */
struct vroce_wqe_reg {
	__le64 pbl;
	__le32 npages;
	__le32 rsvd;
};

/**
 * struct vroce_wqe_bind - what a BIND_MW work request binds a window to
 * @mr_key: the lkey of the MR, of the window's PD and with
 *	VROCE_ACC_MW_BIND; ignored for a zero-length bind of a type 1 window
 *	(which unbinds it)
 * @rsvd: zero
 */
struct vroce_wqe_bind {
	__le32 mr_key;
	u8 rsvd[12];
};

/* Network header of a RoCE v2 packet (UDP over IPv4 or IPv6). */
enum vroce_net_type {
	VROCE_NET_IPV6	= 0,
	VROCE_NET_IPV4	= 1,	/* both GIDs IPv4-mapped (::ffff:a.b.c.d) */
};

/**
 * struct vroce_wqe_av - the address vector of a UD send
 * @dgid: destination GID (an IPv6 address, or IPv4-mapped)
 * @sgid: source GID, one of the port's
 * @dmac: destination port's Ethernet address (the wire delivers by it)
 * @hop_limit: IPv6 hop limit or IPv4 TTL
 * @traffic_class: IPv6 traffic class or IPv4 TOS
 * @rsvd0: zero
 *
 * The packet is UDP over IPv4 when both GIDs are IPv4-mapped, else over
 * IPv6 (RoCE v2).
 * @dest_qpn: the destination QP (24 bits)
 * @qkey: the Q_Key to send with; with bit 31 set the QP's own is used
 * @flow_label: IPv6 flow label (20 bits)
 * @rsvd1: zero
 */
struct vroce_wqe_av {
	u8 dgid[16];
	u8 sgid[16];
	u8 dmac[6];
	u8 hop_limit;
	u8 traffic_class;
	u8 rsvd0[4];
	__le32 dest_qpn;
	__le32 qkey;
	__le32 flow_label;
	u8 rsvd1[8];
};

/**
 * struct vroce_send_wqe - an SQ entry, VROCE_SEND_WQE_SIZE bytes
 * @wr_id: the consumer's cookie, returned in the CQE
 * @opcode: enum vroce_wqe_opcode
 * @flags: VROCE_WQE_F_*
 * @num_sge: SGEs in @sge, up to VROCE_MAX_SEND_SGE (not with F_INLINE)
 * @rsvd0: zero
 * @imm_inv: immediate data as posted (big endian), or for SEND_INV and
 *	LOCAL_INV the key to invalidate
 * @remote_addr: WRITE/READ: address at the peer
 * @rkey: WRITE/READ: the peer's key
 * @inline_len: F_INLINE: bytes in @inline_data
 * @fr_iova: REG_MR: first address of the MR
 * @fr_length: REG_MR: bytes
 * @atomic_cmp_add: ATOMIC_CMP_SWP: the compare operand; ATOMIC_FETCH_ADD:
 *	the addend (shares bytes with @fr_iova)
 * @atomic_swap: ATOMIC_CMP_SWP: the value stored when the compare matched
 *	(shares bytes with @fr_length)
 * @fr_key: REG_MR: the key to register the MR under; BIND_MW: the
 *	window's new key (its index and generation, the tag the consumer
 *	chose)
 * @fr_access: REG_MR: VROCE_ACC_*; BIND_MW: the window's rights,
 *	VROCE_ACC_*, of which it keeps the remote ones (VROCE_ACC_MW_MASK)
 * @rsvd1: zero
 * @sge: the local buffers
 * @inline_data: the data itself, with F_INLINE
 * @reg: REG_MR: the MR's new pages, which the HCA copies into its table
 * @bind: BIND_MW: the MR the window is bound to
 * @av: UD and GSI QPs: where the message goes
 * @rsvd2: zero
 *
 * An atomic (ATOMIC_CMP_SWP, ATOMIC_FETCH_ADD) names the 8-byte target by
 * @remote_addr and @rkey and takes its operands from @atomic_cmp_add and
 * @atomic_swap (CPU values, little endian here); the target's original
 * value lands in the local buffers, which must hold exactly 8 bytes.
 * ATOMIC_WRITE stores its message, exactly 8 bytes from the SGEs or the
 * inline data, at @remote_addr as one 64-bit store.
 *
 * BIND_MW binds the window @fr_key names to [@fr_iova, @fr_iova +
 * @fr_length) of the MR @bind.mr_key names, with the rights @fr_access,
 * under @fr_key; a type 2 window is bound to this QP too. LOCAL_INV and
 * SEND_INV with a type 2 window's key unbind it. Documentation/datapath.rst
 * lists the rules (IBTA C10-72..75, o10-36, o10-37) and the completions.
 */
struct vroce_send_wqe {
	__le64 wr_id;
	u8 opcode;
	u8 flags;
	u8 num_sge;
	u8 rsvd0;
	__le32 imm_inv;
	__le64 remote_addr;
	__le32 rkey;
	__le32 inline_len;
	union {
		struct {
			__le64 fr_iova;
			__le64 fr_length;
		};
		/* Atomics: the operands, where REG_MR has its range. */
		struct {
			__le64 atomic_cmp_add;
			__le64 atomic_swap;
		};
	};
	__le32 fr_key;
	__le32 fr_access;
	u8 rsvd1[8];
	union {
		struct vroce_wqe_sge sge[VROCE_MAX_SEND_SGE];
		u8 inline_data[VROCE_MAX_INLINE];
		struct vroce_wqe_reg reg;
		struct vroce_wqe_bind bind;
	};
	struct vroce_wqe_av av;
	u8 rsvd2[64];
};

/**
 * struct vroce_recv_wqe - an RQ entry, VROCE_RECV_WQE_SIZE bytes
 * @wr_id: the consumer's cookie, returned in the CQE
 * @num_sge: SGEs in @sge, up to VROCE_MAX_RECV_SGE
 * @srq_done: in an SRQ's ring only: 0 while the WQE is posted, set to 1
 *	by the HCA once it took (copied) it; the driver may then reuse the
 *	slot. Zero in an RQ's ring.
 * @rsvd: zero
 * @sge: where a received message lands, in order
 */
struct vroce_recv_wqe {
	__le64 wr_id;
	u8 num_sge;
	u8 srq_done;
	u8 rsvd[6];
	struct vroce_wqe_sge sge[VROCE_MAX_RECV_SGE];
};

/* CQE opcodes: what completed. */
enum vroce_cqe_opcode {
	VROCE_CQE_SEND		= 0,	/* SEND, SEND_IMM, SEND_INV */
	VROCE_CQE_WRITE		= 1,	/* WRITE, WRITE_IMM */
	VROCE_CQE_READ		= 2,
	VROCE_CQE_REG_MR	= 3,
	VROCE_CQE_LOCAL_INV	= 4,
	VROCE_CQE_RECV		= 5,	/* a SEND* arrived */
	VROCE_CQE_RECV_WRITE_IMM = 6,	/* a WRITE_IMM arrived */
	/* Atomics, at the requester. */
	VROCE_CQE_COMP_SWAP	= 7,	/* ATOMIC_CMP_SWP */
	VROCE_CQE_FETCH_ADD	= 8,	/* ATOMIC_FETCH_ADD */
	VROCE_CQE_ATOMIC_WRITE	= 9,	/* ATOMIC_WRITE */
	VROCE_CQE_BIND_MW	= 10,	/* BIND_MW */
};

/* CQE status; each maps to one enum ib_wc_status. */
enum vroce_cqe_status {
	VROCE_CQE_OK			= 0,
	VROCE_CQE_LOC_LEN_ERR		= 1,
	VROCE_CQE_LOC_QP_OP_ERR		= 2,
	VROCE_CQE_LOC_PROT_ERR		= 3,
	VROCE_CQE_WR_FLUSH_ERR		= 4,
	VROCE_CQE_REM_INV_REQ_ERR	= 5,
	VROCE_CQE_REM_ACCESS_ERR	= 6,
	VROCE_CQE_REM_OP_ERR		= 7,
	VROCE_CQE_RETRY_EXC_ERR		= 8,
	VROCE_CQE_RNR_RETRY_EXC_ERR	= 9,
	VROCE_CQE_LOC_ACCESS_ERR	= 10,
	VROCE_CQE_MW_BIND_ERR		= 11,	/* a BIND_MW the rules refuse */
};

/* CQE flags. */
#define VROCE_CQE_F_RQ		BIT(0)	/* completes an RQ WQE */
#define VROCE_CQE_F_IMM		BIT(1)	/* @imm_inv holds immediate data */
#define VROCE_CQE_F_INV		BIT(2)	/* @imm_inv holds an invalidated key */
#define VROCE_CQE_F_SOLICITED	BIT(3)
#define VROCE_CQE_F_GRH		BIT(4)	/* UD receive: a GRH leads the data */

#define VROCE_CQE_OWNER		BIT(0)	/* in @owner */

/**
 * struct vroce_cqe - a CQ entry, VROCE_CQE_SIZE bytes
 * @wr_id: the completed WQE's cookie
 * @qpn: the QP the WQE belongs to
 * @byte_len: bytes received (RQ), read (READ) or sent
 * @imm_inv: immediate data (big endian, as posted) or the invalidated key
 * @src_qp: RQ completions: the sending QP
 * @wqe_idx: the completed WQE's index in its queue (low 16 bits of the
 *	count); an SQ completion also retires the unsignaled WQEs before it
 * @opcode: enum vroce_cqe_opcode; undefined unless @status is OK
 * @status: enum vroce_cqe_status
 * @flags: VROCE_CQE_F_*
 * @net_type: with VROCE_CQE_F_GRH: enum vroce_net_type of the packet
 * @smac: with VROCE_CQE_F_GRH: the sending port's Ethernet address
 * @pkey_index: UD receives: the P_Key index the packet matched (0)
 * @rsvd: zero
 * @owner: VROCE_CQE_OWNER is the phase: 1 on the ring's first lap, 0 on
 *	the second, and so on; the HCA writes this byte last
 *
 * A UD receive's @byte_len counts the VROCE_GRH_SIZE bytes of GRH the HCA
 * wrote ahead of the message: for IPv6 the IPv6 header, for IPv4 20 zero
 * bytes and then the IPv4 header.
 */
struct vroce_cqe {
	__le64 wr_id;
	__le32 qpn;
	__le32 byte_len;
	__le32 imm_inv;
	__le32 src_qp;
	__le16 wqe_idx;
	u8 opcode;
	u8 status;
	u8 flags;
	u8 net_type;
	u8 smac[6];
	__le16 pkey_index;
	u8 rsvd[25];
	u8 owner;
};

/* EQE types. */
enum vroce_eqe_type {
	VROCE_EQE_COMP		= 0,	/* an armed CQ got a CQE: @num is the CQN */
	VROCE_EQE_CQ_ERR	= 1,	/* CQ @num overflowed; CQEs were lost */
	VROCE_EQE_QP_FATAL	= 2,	/* QP @num hit an error as responder */
	/* SRQ @num: a take left fewer WQEs than its armed limit (disarmed) */
	VROCE_EQE_SRQ_LIMIT	= 3,
	/* QP @num, attached to an SRQ, is in ERR and takes no more from it */
	VROCE_EQE_QP_LAST_WQE	= 4,
	/* Issue 33: fault slot @num holds a page fault (VROCE_CAP_ODP) */
	VROCE_EQE_PAGE_FAULT	= 5,
	/*
	 * Issue 34: port @num's link may have gone up or down (a port cabled
	 * to a netdev: its running and carrier state); query the port for
	 * which
	 */
	VROCE_EQE_PORT_CHANGE	= 6,
};

#define VROCE_EQE_OWNER		BIT(0)	/* in @owner, as in struct vroce_cqe */

/**
 * struct vroce_eqe - an event queue entry, VROCE_EQE_SIZE bytes
 * @num: the CQ or QP number the event is about
 * @type: enum vroce_eqe_type
 * @rsvd: zero
 * @owner: the phase, written last (see struct vroce_cqe)
 */
struct vroce_eqe {
	__le32 num;
	u8 type;
	u8 rsvd[2];
	u8 owner;
};

#endif /* _VROCE_WQE_H_ */
