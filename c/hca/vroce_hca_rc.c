// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA (issue 34): RC over packets, the responder.
 *
 * An RC QP of a port on a netdev takes the SEND and RDMA WRITE requests
 * of its peer as IBTA 9.7 has a responder take them: in PSN order, one
 * packet at a time (FIRST, MIDDLE, LAST, ONLY), each of a message's
 * packets but the last exactly one path MTU long; an older PSN is a
 * duplicate, acknowledged again but not carried out again; a newer one a
 * sequence error, NAKed once until the expected PSN comes. Every packet
 * that asks (AckReq) is acknowledged with the PSN of the last one taken
 * and the count of messages completed (MSN). A SEND with no receive
 * posted gets an RNR NAK with the QP's min_rnr_timer, and so does a page
 * fault of an on-demand paging MR (the requester sends it again after
 * the timer); a bad R_Key or range a remote access NAK, a malformed
 * request an invalid request NAK, a bad receive WQE a remote operational
 * NAK, each moving the QP to the error state as the in-kernel wire does.
 * An RDMA READ is answered with READ RESPONSEs, an atomic (COMPARE_SWAP,
 * FETCH_ADD) with an ATOMIC ACKNOWLEDGE of the original value; the last
 * of them are kept, so that a duplicate READ is read again and a
 * duplicate atomic answered with the value it had, never carried out
 * twice.
 * Placement is the wire's (c/hca/vroce_hca_resp.c): the same key, PD,
 * range and access checks. Documentation/wire.rst has what is carried
 * over packets and what is not yet.
 *
 * Calls: the responder's placement, the link's transmit, the engine's
 * primitives.
 */

#include <linux/ipv6.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "vroce_hca_frame.h"
#include "vroce_hca_priv.h"

#define VROCE_PSN_BITS		24

/* AETH syndromes (IBTA 9.7.5.1.1): ACK, RNR NAK, NAK. */
#define VROCE_AETH_ACK		0x1f	/* an ACK, credits not used */
#define VROCE_AETH_RNR		0x20	/* | the RNR timer code */
#define VROCE_AETH_NAK_SEQ	0x60
#define VROCE_AETH_NAK_INV	0x61
#define VROCE_AETH_NAK_ACCESS	0x62
#define VROCE_AETH_NAK_OP	0x63

/*
 * An ACK, RNR NAK or NAK (@syndrome) of @psn back to the requester, or a
 * READ RESPONSE (@payload), or an ATOMIC ACKNOWLEDGE (@orig).
 */
static void vroce_hca_rc_reply(struct vroce_hca *hca,
			       const struct vroce_hca_qp *qp, u8 opcode,
			       u32 psn, u8 syndrome, const u8 *payload,
			       u32 len, u64 orig)
{
	const struct vroce_hca_qp_path *path = &qp->path;
	struct vroce_frame f = {
		.ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)path->dgid),
		.tclass = path->tclass,
		.hop_limit = path->hop_limit,
		.opcode = VROCE_OP_RC | opcode,
		.pkey = 0xffff,
		.dqpn = qp->dest_qpn & GENMASK(VROCE_PSN_BITS - 1, 0),
		.psn = psn & VROCE_PSN_MASK,
		.syndrome = syndrome,
		.msn = qp->rc.msn & VROCE_PSN_MASK,
		.orig = orig,
		.sport = vroce_hca_link_sport(qp->qpn, qp->dest_qpn),
		.payload = payload,
		.payload_len = len,
	};

	memcpy(f.sip, path->sgid, sizeof(f.sip));
	memcpy(f.dip, path->dgid, sizeof(f.dip));
	if (f.ipv6)
		f.flow_label = path->flow_label;
	vroce_hca_link_xmit(hca, &f, qp->dmac);
}

static void vroce_hca_rc_ack(struct vroce_hca *hca,
			     const struct vroce_hca_qp *qp, u32 psn,
			     u8 syndrome)
{
	if (syndrome >= VROCE_AETH_RNR && syndrome < VROCE_AETH_NAK_SEQ)
		vroce_hca_count(hca, VROCE_CNT_RNR_NAK_SENT, 1);
	vroce_hca_rc_reply(hca, qp, VROCE_OP_ACKNOWLEDGE, psn, syndrome, NULL,
			   0, 0);
}

/* The NAK that tells the requester of @op->status, its error. */
static u8 vroce_hca_rc_nak(const struct vroce_hca_op *op)
{
	switch (op->status) {
	case VROCE_CQE_REM_ACCESS_ERR:
		return VROCE_AETH_NAK_ACCESS;
	case VROCE_CQE_REM_INV_REQ_ERR:
		return VROCE_AETH_NAK_INV;
	default:
		return VROCE_AETH_NAK_OP;
	}
}

/* A malformed request: the QP fails, the requester is told. */
static u8 vroce_hca_rc_invalid(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	vroce_hca_qp_fatal(hca, qp);
	return VROCE_AETH_NAK_INV;
}

/* The RNR NAK: no receive (or a page fault); the requester comes back. */
static u8 vroce_hca_rc_rnr(const struct vroce_hca_qp *qp)
{
	return VROCE_AETH_RNR | (qp->min_rnr_timer & 0x1f);
}

/* No answer at all: the QP failed meanwhile (vroce_hca_rc_recv()). */
#define VROCE_RC_SILENT		0xff

/*
 * The receive @qp's message takes, the caller in its receive queue
 * (vroce_hca_rq_enter()), what was rung since taken: 0 when there is one,
 * else the answer: none posted (RNR), or the QP failed meanwhile (a
 * broken doorbell record, another engine: silence).
 */
static u8 vroce_hca_rc_recv_head(struct vroce_hca *hca,
				 struct vroce_hca_qp *qp)
{
	struct vroce_hca_wq *rq;

	vroce_hca_wq_sync(hca, qp, VROCE_HCA_RQ);
	if (!vroce_hca_qp_receives(qp))
		return VROCE_RC_SILENT;
	rq = vroce_hca_recv_wq(hca, qp);
	return rq->ci != rq->pi ? 0 : vroce_hca_rc_rnr(qp);
}

/* Where the next READ or atomic carried out is kept, over the oldest. */
static struct vroce_hca_rc_read *vroce_hca_rc_keep(struct vroce_hca_rc_resp *r)
{
	return &r->reads[r->read_next++ % VROCE_MAX_RD_ATOMIC];
}

/*
 * The @k-th newest of the QP's last READs and atomics (1: the newest): a
 * duplicate matches the newest that fits, never an older one of the same
 * PSN from before a wrap of the PSNs.
 */
static const struct vroce_hca_rc_read *
vroce_hca_rc_last(const struct vroce_hca_rc_resp *r, u32 k)
{
	return &r->reads[(u8)(r->read_next - k) % VROCE_MAX_RD_ATOMIC];
}

/* READ responses one request gets at most, at once. */
#define VROCE_HCA_RC_READ_BURST	1024

/*
 * The READ RESPONSE packets of @rd from its PSN @first on (the rest of it,
 * when the requester asks again), at most VROCE_HCA_RC_READ_BURST at once:
 * one request must not hold the receive work (and the wire's lock) for
 * millions of packets; the requester asks again for the rest. Numbered
 * FIRST/MIDDLE/LAST or ONLY from @first, as a requester that asks again
 * expects (rxe moves its first PSN there). The memory is read as it is
 * now, the key checked again; a page fault of an ODP MR or a key gone
 * meanwhile stops them (the requester asks again, or times out).
 */
static void vroce_hca_rc_read_send(struct vroce_hca *hca,
				   struct vroce_hca_qp *qp,
				   const struct vroce_hca_rc_read *rd, u32 first)
{
	u32 acc = vroce_hca_qp_acc(qp, VROCE_ACC_REMOTE_READ);
	u32 mtu = 128U << qp->path.mtu, skip, n, i, off, len;
	u8 code;

	skip = vroce_hca_psn_diff(first, rd->psn);
	n = rd->n - skip;
	for (i = 0; i < min(n, VROCE_HCA_RC_READ_BURST); i++) {
		if (i && !(i % 64))
			cond_resched();
		off = (skip + i) * mtu;
		len = min(rd->len - off, mtu);
		if (len && vroce_hca_mr_access_locked(hca, rd->rkey, qp->pdn,
						      qp->qpn, rd->va + off,
						      hca->rx_buf, len, acc,
						      false))
			break;
		code = n == 1 ? VROCE_OP_READ_RESPONSE_ONLY :
		       !i ? VROCE_OP_READ_RESPONSE_FIRST :
		       i == n - 1 ? VROCE_OP_READ_RESPONSE_LAST :
		       VROCE_OP_READ_RESPONSE_MIDDLE;
		vroce_hca_rc_reply(hca, qp, code, first + i, VROCE_AETH_ACK,
				   hca->rx_buf, len, 0);
		vroce_hca_count(hca, VROCE_CNT_TX_PACKETS, 1);
		vroce_hca_count(hca, VROCE_CNT_TX_BYTES, len);
	}
}

/*
 * A READ request at the expected PSN: the remote read right, and the key,
 * PD and range of the whole READ checked before any response leaves (a
 * remote access NAK, the QP to ERR, as rxe checks at the request); kept
 * among the QP's last READs for its duplicates, then answered. Return: 0,
 * or the syndrome of the NAK to send.
 */
static u8 vroce_hca_rc_read(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			    const struct vroce_frame *f)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	struct vroce_hca_rc_read *rd;
	u64 end;

	if (!(qp->access & VROCE_ACC_REMOTE_READ) || f->dma_len > SZ_2G ||
	    vroce_hca_rc_read_psns(qp, f->dma_len) > VROCE_HCA_RC_READ_PSNS)
		return vroce_hca_rc_invalid(hca, qp);
	if (f->dma_len &&
	    (check_add_overflow(f->va, (u64)f->dma_len, &end) ||
	     vroce_hca_mr_check_locked(hca, f->rkey, qp->pdn, qp->qpn, f->va,
				       f->dma_len,
				       vroce_hca_qp_acc(qp,
							VROCE_ACC_REMOTE_READ)))) {
		vroce_hca_qp_fatal(hca, qp);
		return VROCE_AETH_NAK_ACCESS;
	}
	rd = vroce_hca_rc_keep(r);
	*rd = (struct vroce_hca_rc_read){
		.op5 = VROCE_OP_READ_REQUEST,
		.psn = f->psn,
		.n = vroce_hca_rc_read_psns(qp, f->dma_len),
		.va = f->va,
		.len = f->dma_len,
		.rkey = f->rkey,
	};
	/* The MSN the responses carry counts this READ. */
	r->msn++;
	vroce_hca_rc_read_send(hca, qp, rd, rd->psn);
	return 0;
}

/*
 * A duplicate READ request: the requester lost responses and asks for the
 * rest. Only the rest of one of the QP's last READs is answered again
 * (READ has no side effect): the same key, the address and length moved
 * by whole packets; anything else is dropped, and never fails the QP.
 */
static void vroce_hca_rc_read_again(struct vroce_hca *hca,
				    struct vroce_hca_qp *qp,
				    const struct vroce_frame *f)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	u32 mtu = 128U << qp->path.mtu, k;
	const struct vroce_hca_rc_read *rd;
	s32 skip;

	for (k = 1; k <= VROCE_MAX_RD_ATOMIC; k++) {
		rd = vroce_hca_rc_last(r, k);
		skip = vroce_hca_psn_diff(f->psn, rd->psn);
		if (rd->op5 != VROCE_OP_READ_REQUEST || skip < 0 ||
		    skip >= rd->n ||
		    f->rkey != rd->rkey ||
		    f->va != rd->va + (u64)skip * mtu ||
		    f->dma_len != rd->len - (u64)skip * mtu)
			continue;
		vroce_hca_rc_read_send(hca, qp, rd, f->psn);
		return;
	}
}

/*
 * An atomic request at the expected PSN (IBTA 9.4.5): the QP's remote
 * atomic right and an 8-byte aligned address, else an invalid request
 * NAK; the key, PD, range and MR right checked as the in-kernel wire
 * checks them (a remote access NAK, the QP to ERR); a page fault of an
 * ODP MR an RNR NAK (nothing happened: the requester sends it again).
 * Carried out once: its original value kept among the QP's last READs
 * and atomics and sent in an ATOMIC ACKNOWLEDGE. Return: 0, or the
 * syndrome of the NAK to send.
 */
static u8 vroce_hca_rc_atomic(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      const struct vroce_frame *f)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	bool cas = (f->opcode & 0x1f) == VROCE_OP_COMPARE_SWAP;
	struct vroce_hca_rc_read *rd;
	u64 orig;
	int err;

	if (!(qp->access & VROCE_ACC_REMOTE_ATOMIC) ||
	    !IS_ALIGNED(f->va, sizeof(u64)))
		return vroce_hca_rc_invalid(hca, qp);
	err = vroce_hca_mr_atomic_locked(hca, f->rkey, qp->pdn, qp->qpn, f->va,
					 vroce_hca_qp_acc(qp,
							  VROCE_ACC_REMOTE_ATOMIC),
					 cas ? VROCE_WQE_ATOMIC_CMP_SWP :
					 VROCE_WQE_ATOMIC_FETCH_ADD,
					 cas ? f->compare : f->swap_add,
					 f->swap_add, &orig);
	if (err == -VROCE_HCA_EPAGE)
		return vroce_hca_rc_rnr(qp);
	if (err) {
		vroce_hca_qp_fatal(hca, qp);
		return VROCE_AETH_NAK_ACCESS;
	}
	rd = vroce_hca_rc_keep(r);
	*rd = (struct vroce_hca_rc_read){
		.op5 = f->opcode & 0x1f,
		.psn = f->psn,
		.n = 1,
		.va = f->va,
		.len = sizeof(u64),
		.rkey = f->rkey,
		.orig = orig,
	};
	r->msn++;
	vroce_hca_rc_reply(hca, qp, VROCE_OP_ATOMIC_ACKNOWLEDGE, f->psn,
			   VROCE_AETH_ACK, NULL, 0, orig);
	vroce_hca_count(hca, VROCE_CNT_TX_PACKETS, 1);
	vroce_hca_count(hca, VROCE_CNT_TX_BYTES, sizeof(orig));
	return 0;
}

/*
 * A duplicate atomic request: its ATOMIC ACKNOWLEDGE was lost. Answered
 * again with the original value it had when one of the QP's last atomics
 * has its PSN, opcode, address and R_Key; anything else is dropped (the
 * atomic never runs twice), and never fails the QP.
 */
static void vroce_hca_rc_atomic_again(struct vroce_hca *hca,
				      struct vroce_hca_qp *qp,
				      const struct vroce_frame *f)
{
	const struct vroce_hca_rc_read *rd;
	u32 k;

	for (k = 1; k <= VROCE_MAX_RD_ATOMIC; k++) {
		rd = vroce_hca_rc_last(&qp->rc, k);
		if (rd->op5 != (f->opcode & 0x1f) || rd->psn != f->psn ||
		    rd->va != f->va || rd->rkey != f->rkey)
			continue;
		vroce_hca_rc_reply(hca, qp, VROCE_OP_ATOMIC_ACKNOWLEDGE,
				   f->psn, VROCE_AETH_ACK, NULL, 0, rd->orig);
		return;
	}
}

/* A READ or atomic: answered by its responses, never by an ACK. */
static bool vroce_hca_rc_answered(u8 op5)
{
	return op5 == VROCE_OP_READ_REQUEST || op5 == VROCE_OP_COMPARE_SWAP ||
	       op5 == VROCE_OP_FETCH_ADD;
}

/*
 * A SEND packet: its payload into the head receive, at the message's
 * offset; the receive completes with the last packet. Return: 0 (taken)
 * or the syndrome of the RNR NAK or NAK to send.
 */
static u8 vroce_hca_rc_send(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			    const struct vroce_frame *f, bool first,
			    bool last)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	u8 op5 = f->opcode & 0x1f;
	struct vroce_hca_op op = {
		.peer = qp,
		.phca = hca,
		.sqpn = qp->dest_qpn,
		.buf = (u8 *)f->payload,
		.clen = f->payload_len,
		.off = first ? 0 : r->off,
	};
	u8 rstatus;

	if (op5 == VROCE_OP_SEND_LAST_IMM || op5 == VROCE_OP_SEND_ONLY_IMM) {
		op.wqe.opcode = VROCE_WQE_SEND_IMM;
		op.wqe.imm_inv = (__force __le32)f->imm;
	} else if (op5 == VROCE_OP_SEND_LAST_INV ||
		   op5 == VROCE_OP_SEND_ONLY_INV) {
		op.wqe.opcode = VROCE_WQE_SEND_INV;
		op.wqe.imm_inv = cpu_to_le32(f->inv_rkey);
	} else {
		op.wqe.opcode = VROCE_WQE_SEND;
	}
	if (f->se)
		op.wqe.flags |= VROCE_WQE_F_SOLICITED;

	/* IBTA's largest message is 2^31 bytes. */
	if ((u64)op.off + op.clen > SZ_2G)
		return vroce_hca_rc_invalid(hca, qp);
	vroce_hca_rq_enter(hca, qp);
	/*
	 * On an SRQ, the rest of a message goes into the copy of the receive
	 * its first packet took out of it (other QPs take the next ones
	 * meanwhile); gone when the QP's flush in ERR took it.
	 */
	if (qp->srqn && !first) {
		if (!r->srq_held || !vroce_hca_qp_receives(qp)) {
			vroce_hca_rq_leave(hca, qp);
			return VROCE_RC_SILENT;
		}
		goto place;
	}
	rstatus = vroce_hca_rc_recv_head(hca, qp);
	if (rstatus) {
		vroce_hca_rq_leave(hca, qp);
		/* The receive a message began in went (a flush): it fails. */
		if (!first && rstatus != VROCE_RC_SILENT) {
			vroce_hca_qp_fatal(hca, qp);
			return VROCE_AETH_NAK_OP;
		}
		return rstatus;
	}
	/* The rest of a message goes into the receive its first packet took. */
	if (!first && vroce_hca_recv_wq(hca, qp)->ci != r->recv_ci) {
		vroce_hca_rq_leave(hca, qp);
		vroce_hca_qp_fatal(hca, qp);
		return VROCE_AETH_NAK_OP;
	}
	r->recv_ci = vroce_hca_recv_wq(hca, qp)->ci;
place:
	rstatus = vroce_hca_link_recv_place(hca, &op, last);
	vroce_hca_rq_leave(hca, qp);
	if (op.paged)
		return vroce_hca_rc_rnr(qp);
	if (rstatus) {
		r->busy = false;
		return vroce_hca_rc_nak(&op);
	}
	r->busy = !last;
	r->send = true;
	r->off = last ? 0 : op.off + op.clen;
	if (last)
		r->msn++;
	return 0;
}

/**
 * vroce_hca_rc_resp_end() - the responder's message in progress is given up
 * @hca: the HCA
 * @qp: the QP, leaving RTR/RTS (RESET, ERR), going, or taking a new RQ PSN
 * @flush: the QP goes to ERR
 *
 * A SEND of several packets to a QP on an SRQ holds the receive its first
 * packet took out of the SRQ: with @flush it completes with a flush error
 * (as the QP's own receives do), else it is dropped uncompleted
 * (vroce_hca_link_recv_drop()).
 *
 * Context: MODIFY_QP or DESTROY_QP, @hca->wire_lock held for writing.
 */
void vroce_hca_rc_resp_end(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			   bool flush)
{
	vroce_hca_link_recv_drop(hca, qp, flush);
	qp->rc.busy = false;
}

/*
 * An RDMA WRITE packet: its payload at the RETH's address plus the
 * message's offset, through its R_Key; with immediate data the last
 * completes a receive. Return: as vroce_hca_rc_send().
 */
static u8 vroce_hca_rc_write(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			     const struct vroce_frame *f, bool first,
			     bool last)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	u8 op5 = f->opcode & 0x1f;
	bool imm = op5 == VROCE_OP_WRITE_LAST_IMM ||
		   op5 == VROCE_OP_WRITE_ONLY_IMM;
	struct vroce_hca_op op = {
		.peer = qp,
		.phca = hca,
		.sqpn = qp->dest_qpn,
		.buf = (u8 *)f->payload,
		.clen = f->payload_len,
	};
	u8 rstatus = 0;

	if (first) {
		if (!(qp->access & VROCE_ACC_REMOTE_WRITE))
			return vroce_hca_rc_invalid(hca, qp);
		r->va = f->va;
		r->rkey = f->rkey;
		r->resid = f->dma_len;
		r->off = 0;
	}
	/* The RETH's length, exactly. */
	if (f->payload_len > r->resid || (last && f->payload_len != r->resid))
		return vroce_hca_rc_invalid(hca, qp);
	/*
	 * With immediate data a receive must be there before any byte of the
	 * last packet moves; it stays the head until it completes (the
	 * queue held throughout).
	 */
	if (imm && last) {
		vroce_hca_rq_enter(hca, qp);
		rstatus = vroce_hca_rc_recv_head(hca, qp);
		if (rstatus) {
			vroce_hca_rq_leave(hca, qp);
			return rstatus;
		}
	}
	op.off = r->off;
	op.wqe.remote_addr = cpu_to_le64(r->va);
	op.wqe.rkey = cpu_to_le32(r->rkey);
	if (!vroce_hca_remote(hca, &op, VROCE_ACC_REMOTE_WRITE, true)) {
		if (imm && last)
			vroce_hca_rq_leave(hca, qp);
		if (op.paged)
			return vroce_hca_rc_rnr(qp);
		r->busy = false;
		return vroce_hca_rc_nak(&op);
	}
	r->off += f->payload_len;
	r->resid -= f->payload_len;
	r->busy = !last;
	r->send = false;
	if (!last)
		return 0;
	if (imm) {
		op.wqe.opcode = VROCE_WQE_WRITE_IMM;
		op.wqe.imm_inv = (__force __le32)f->imm;
		op.rlen = r->off;
		if (f->se)
			op.wqe.flags |= VROCE_WQE_F_SOLICITED;
		rstatus = vroce_hca_link_recv_imm(hca, &op);
		vroce_hca_rq_leave(hca, qp);
	}
	r->off = 0;
	if (rstatus)
		return vroce_hca_rc_nak(&op);
	r->msn++;
	return 0;
}

/*
 * The packet at the expected PSN: its opcode in sequence with the message
 * in progress, its length the path MTU's (FIRST, MIDDLE) or at most it
 * (LAST, ONLY), then carried out. Return: as vroce_hca_rc_send().
 */
static u8 vroce_hca_rc_exec(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			    const struct vroce_frame *f, u32 *psns)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	u32 mtu = 128U << qp->path.mtu;
	bool first, last, send;

	switch (f->opcode & 0x1f) {
	case VROCE_OP_SEND_FIRST:
		first = true, last = false, send = true;
		break;
	case VROCE_OP_SEND_MIDDLE:
		first = false, last = false, send = true;
		break;
	case VROCE_OP_SEND_LAST:
	case VROCE_OP_SEND_LAST_IMM:
	case VROCE_OP_SEND_LAST_INV:
		first = false, last = true, send = true;
		break;
	case VROCE_OP_SEND_ONLY:
	case VROCE_OP_SEND_ONLY_IMM:
	case VROCE_OP_SEND_ONLY_INV:
		first = true, last = true, send = true;
		break;
	case VROCE_OP_WRITE_FIRST:
		first = true, last = false, send = false;
		break;
	case VROCE_OP_WRITE_MIDDLE:
		first = false, last = false, send = false;
		break;
	case VROCE_OP_WRITE_LAST:
	case VROCE_OP_WRITE_LAST_IMM:
		first = false, last = true, send = false;
		break;
	case VROCE_OP_WRITE_ONLY:
	case VROCE_OP_WRITE_ONLY_IMM:
		first = true, last = true, send = false;
		break;
	case VROCE_OP_READ_REQUEST:
		if (r->busy)
			return vroce_hca_rc_invalid(hca, qp);
		*psns = vroce_hca_rc_read_psns(qp, f->dma_len);
		return vroce_hca_rc_read(hca, qp, f);
	case VROCE_OP_COMPARE_SWAP:
	case VROCE_OP_FETCH_ADD:
		if (r->busy)
			return vroce_hca_rc_invalid(hca, qp);
		return vroce_hca_rc_atomic(hca, qp, f);
	default:
		return vroce_hca_rc_invalid(hca, qp);
	}
	/* A FIRST or ONLY while a message is in progress, or none before. */
	if (first == r->busy || (r->busy && send != r->send))
		return vroce_hca_rc_invalid(hca, qp);
	if (f->payload_len > mtu || (!last && f->payload_len != mtu))
		return vroce_hca_rc_invalid(hca, qp);
	return send ? vroce_hca_rc_send(hca, qp, f, first, last) :
		      vroce_hca_rc_write(hca, qp, f, first, last);
}

/**
 * vroce_hca_rc_recv() - an RC request packet off the link
 * @hca: the HCA, cabled to a netdev
 * @f: the packet, parsed and to an address of the port's GID table
 *
 * To an RC QP of this HCA that receives (RTR or RTS), whose path
 * MODIFY_QP set and whose peer's and own addresses the packet carries (an
 * RC responder answers the QP it is connected to only); otherwise dropped
 * and counted in VROCE_CNT_RX_DISCARDS, as are duplicates (acknowledged
 * again) and packets past a gap (the first NAKed). A packet at the
 * expected PSN counts in VROCE_CNT_RX_FRAMES, carried out or answered
 * with an RNR NAK or NAK.
 *
 * Context: the link's receive work, @hca->wire_lock read-held.
 */
void vroce_hca_rc_recv(struct vroce_hca *hca, const struct vroce_frame *f)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, f->dqpn);
	struct vroce_hca_rc_resp *r;
	u32 psns = 1;
	u8 syndrome;
	s32 diff;

	if (!qp || qp->type != VROCE_QPT_RC || !vroce_hca_qp_receives(qp) ||
	    !(qp->path.set & VROCE_MODIFY_F_PATH) ||
	    memcmp(f->sip, qp->path.dgid, sizeof(f->sip)) ||
	    memcmp(f->dip, qp->path.sgid, sizeof(f->dip))) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return;
	}
	r = &qp->rc;
	diff = vroce_hca_psn_diff(f->psn, r->psn);
	if (diff > 0) {
		/* A gap: told once, until the expected PSN comes. */
		if (!r->nak_sent)
			vroce_hca_rc_ack(hca, qp, r->psn, VROCE_AETH_NAK_SEQ);
		r->nak_sent = true;
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return;
	}
	if (diff < 0) {
		/*
		 * Carried out before: a READ is read again, an atomic
		 * answered with the value it had; anything else acknowledged
		 * again up to the last, asked or not (C9-105: the requester
		 * may be retrying).
		 */
		if ((f->opcode & 0x1f) == VROCE_OP_READ_REQUEST)
			vroce_hca_rc_read_again(hca, qp, f);
		else if (vroce_hca_rc_answered(f->opcode & 0x1f))
			vroce_hca_rc_atomic_again(hca, qp, f);
		else
			vroce_hca_rc_ack(hca, qp, r->ack_psn, VROCE_AETH_ACK);
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return;
	}
	r->nak_sent = false;
	vroce_hca_count(hca, VROCE_CNT_RX_FRAMES, 1);
	syndrome = vroce_hca_rc_exec(hca, qp, f, &psns);
	if (syndrome == VROCE_RC_SILENT)
		return;
	if (syndrome) {
		/* The PSN of the request it is about; the PSN does not move. */
		vroce_hca_rc_ack(hca, qp, f->psn, syndrome);
		return;
	}
	vroce_hca_count(hca, VROCE_CNT_RX_PACKETS, 1);
	vroce_hca_count(hca, VROCE_CNT_RX_BYTES, f->payload_len);
	r->psn = (r->psn + psns) & VROCE_PSN_MASK;
	/* A READ's responses are its answer, an atomic's its ACKNOWLEDGE. */
	if (vroce_hca_rc_answered(f->opcode & 0x1f))
		return;
	r->ack_psn = f->psn;
	if (f->ackreq)
		vroce_hca_rc_ack(hca, qp, f->psn, VROCE_AETH_ACK);
}
