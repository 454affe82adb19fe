// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, the responder: what a message does at the peer QP
 * (receives, RNR, RDMA at its memory), and UD/GSI delivery behind a GRH.
 */

#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "vroce_hca_priv.h"

/* ---- RDMA WRITE and READ at the peer ---- */

/* The peer QP must allow RDMA WRITE or READ at all. */
bool vroce_hca_peer_allows(struct vroce_hca *hca,
			   struct vroce_hca_op *op, u32 right)
{
	if (op->peer->access & right)
		return true;
	op->status = VROCE_CQE_REM_INV_REQ_ERR;
	vroce_hca_qp_error(op->phca, op->peer);
	return false;
}

/*
 * WRITE or READ the chunk at the peer's memory through the rkey, at the
 * chunk's offset from the remote address; length 0 needs none.
 */
bool vroce_hca_remote(struct vroce_hca *hca, struct vroce_hca_op *op,
		      u32 right, bool write)
{
	int err = -VROCE_HCA_EBOUNDS;
	u64 iova;

	if (!op->clen)
		return true;
	if (!check_add_overflow(le64_to_cpu(op->wqe.remote_addr),
				(u64)op->off, &iova))
		err = vroce_hca_mr_access_locked(op->phca,
						 le32_to_cpu(op->wqe.rkey),
						 op->peer->pdn, op->peer->qpn,
						 iova, op->buf, op->clen,
						 vroce_hca_qp_acc(op->peer,
								  right),
						 write);
	if (!err)
		return true;
	/* The responder's page fault: as an RNR NAK, the requester waits. */
	if (vroce_hca_op_paged(op, err))
		return false;
	op->status = VROCE_CQE_REM_ACCESS_ERR;
	vroce_hca_qp_fatal(op->phca, op->peer);
	return false;
}

/* ---- receives ---- */

/*
 * No receive at the peer: retry later, or give up when out of retries.
 * The wait starts under the peer's RQ lock, so that a receive rung there
 * from now on ends it.
 */
static void vroce_hca_rnr(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	struct vroce_hca_qp *qp = op->qp;

	vroce_hca_count(op->phca, VROCE_CNT_RNR_NAK_SENT, 1);
	vroce_hca_count(hca, VROCE_CNT_RNR_NAK_RCVD, 1);
	if (!qp->rnr_active) {
		qp->rnr_active = true;
		qp->rnr_left = qp->rnr_retry;
	}
	if (!qp->rnr_left) {
		op->status = VROCE_CQE_RNR_RETRY_EXC_ERR;
		return;
	}
	if (qp->rnr_left != VROCE_HCA_RNR_FOREVER)
		qp->rnr_left--;
	op->rnr = true;
	vroce_hca_rnr_wait(hca, qp, op->phca, op->peer);
	/*
	 * A receive doorbell queues the peer's work only while a wait may
	 * exist (vroce_hca_db_qp()): one rung between the look and the wait
	 * is found here, and ends the wait at once.
	 */
	smp_mb();	/* timed before the doorbell: pairs with db_qp's */
	vroce_hca_wq_sync(op->phca, op->peer, VROCE_HCA_RQ);
}

/* Receive WQE @rq->ci into @rwqe; an unreadable one fails as malformed. */
static void vroce_hca_recv_fetch(struct vroce_hca *phca,
				 const struct vroce_hca_wq *rq,
				 struct vroce_recv_wqe *rwqe)
{
	if (!vroce_hca_wq_fetch(phca, rq, rq->ci, rwqe)) {
		memset(rwqe, 0, sizeof(*rwqe));
		rwqe->num_sge = U8_MAX;
	}
}

/*
 * The peer's next receive WQE, copied into @rwqe; false when there is
 * none (RNR) or the peer failed meanwhile. The caller holds the peer's RQ
 * lock until the receive completes.
 */
static bool vroce_hca_recv_take(struct vroce_hca *hca, struct vroce_hca_op *op,
				struct vroce_recv_wqe *rwqe)
{
	struct vroce_hca_qp *peer = op->peer;
	struct vroce_hca_wq *rq = vroce_hca_recv_wq(op->phca, peer);

	/* Receives rung since the peer was last looked at count too. */
	vroce_hca_wq_sync(op->phca, peer, VROCE_HCA_RQ);
	if (!vroce_hca_qp_receives(peer)) {
		op->status = VROCE_CQE_RETRY_EXC_ERR;
		return false;
	}
	if (rq->ci == rq->pi) {
		vroce_hca_rnr(hca, op);
		return false;
	}
	vroce_hca_recv_fetch(op->phca, rq, rwqe);
	return true;
}

/* A malformed receive WQE: the responder's status (0 when it is sound). */
static u8 vroce_hca_recv_check(struct vroce_hca_op *op,
			       const struct vroce_recv_wqe *rwqe)
{
	if (rwqe->num_sge <= VROCE_MAX_RECV_SGE)
		return VROCE_CQE_OK;
	op->status = VROCE_CQE_REM_OP_ERR;
	return VROCE_CQE_LOC_QP_OP_ERR;
}

/* Bytes the receive WQE's buffers hold. */
static u64 vroce_hca_recv_room(const struct vroce_recv_wqe *rwqe)
{
	u64 room = 0;
	u32 i;

	for (i = 0; i < min_t(u32, rwqe->num_sge, VROCE_MAX_RECV_SGE); i++)
		room += le32_to_cpu(rwqe->sge[i].length);
	return room;
}

/*
 * Place the chunk in the receive WQE's buffers at its offset in the
 * message (@op->rlen bytes in all): the responder's status.
 */
static u8 vroce_hca_recv_scatter(struct vroce_hca *hca, struct vroce_hca_op *op,
				 const struct vroce_recv_wqe *rwqe)
{
	u32 left = op->clen, skip = op->off, i, len;
	const struct vroce_wqe_sge *sge;
	u8 *buf = op->buf;
	u64 addr;
	int err;

	if (op->rlen > vroce_hca_recv_room(rwqe)) {
		op->status = VROCE_CQE_REM_INV_REQ_ERR;
		return VROCE_CQE_LOC_LEN_ERR;
	}
	for (i = 0; i < rwqe->num_sge && left; i++) {
		sge = &rwqe->sge[i];
		len = le32_to_cpu(sge->length);
		if (skip >= len) {
			skip -= len;
			continue;
		}
		len = min(left, len - skip);
		err = -VROCE_HCA_EBOUNDS;
		if (!check_add_overflow(le64_to_cpu(sge->addr), (u64)skip,
					&addr))
			err = vroce_hca_mr_access_locked(op->phca,
							 le32_to_cpu(sge->lkey),
							 vroce_hca_recv_pdn(op->phca,
									    op->peer),
							 op->peer->qpn, addr,
							 buf, len,
							 vroce_hca_qp_acc(op->peer,
									  VROCE_ACC_LOCAL_WRITE),
							 true);
		/* A page fault: the receive stays posted, the sender waits. */
		if (vroce_hca_op_paged(op, err))
			return VROCE_CQE_OK;
		if (err) {
			op->status = VROCE_CQE_REM_OP_ERR;
			return VROCE_CQE_LOC_PROT_ERR;
		}
		skip = 0;
		buf += len;
		left -= len;
	}
	return VROCE_CQE_OK;
}

/* The chunk in the bounce buffer is the message's last. */
static bool vroce_hca_last_chunk(const struct vroce_hca_op *op)
{
	return op->off + op->clen >= op->len;
}

/*
 * Complete the peer's receive WQE @idx of its queue: the head, taken now,
 * or (@held) one taken out of an SRQ before (struct vroce_hca_rc_resp's
 * srq_wqe); an error fails the peer.
 */
static void vroce_hca_recv_complete_at(struct vroce_hca *hca,
				       struct vroce_hca_op *op,
				       const struct vroce_recv_wqe *rwqe,
				       u8 status, u32 idx, bool held)
{
	struct vroce_hca_qp *peer = op->peer;
	u8 opcode = op->wqe.opcode;
	struct vroce_cqe cqe = {
		.wr_id = rwqe->wr_id,
		.qpn = cpu_to_le32(peer->qpn),
		.byte_len = cpu_to_le32(op->rlen),
		.src_qp = cpu_to_le32(op->qp ? op->qp->qpn : op->sqpn),
		.wqe_idx = cpu_to_le16((u16)idx),
		.opcode = opcode == VROCE_WQE_WRITE_IMM ?
			  VROCE_CQE_RECV_WRITE_IMM : VROCE_CQE_RECV,
		.status = status,
		.flags = VROCE_CQE_F_RQ,
	};

	if (op->wqe.flags & VROCE_WQE_F_SOLICITED)
		cqe.flags |= VROCE_CQE_F_SOLICITED;
	if (vroce_hca_qp_datagram(peer)) {
		cqe.flags |= VROCE_CQE_F_GRH;
		cqe.net_type = vroce_hca_net_type(&op->wqe.av);
		memcpy(cqe.smac, op->smac ?: hca->mac, ETH_ALEN);
	}
	if (opcode == VROCE_WQE_SEND_IMM || opcode == VROCE_WQE_WRITE_IMM) {
		cqe.flags |= VROCE_CQE_F_IMM;
		cqe.imm_inv = op->wqe.imm_inv;	/* as posted */
	} else if (opcode == VROCE_WQE_SEND_INV && status == VROCE_CQE_OK) {
		cqe.flags |= VROCE_CQE_F_INV;
		cqe.imm_inv = op->wqe.imm_inv;
	}
	if (!held)
		vroce_hca_recv_taken(op->phca, peer);
	vroce_hca_cq_post(op->phca, peer, peer->rcqn, &cqe);
	if (status != VROCE_CQE_OK)
		vroce_hca_qp_error(op->phca, peer);
}

/* Complete the peer's head receive WQE; an error fails the peer. */
static void vroce_hca_recv_complete(struct vroce_hca *hca,
				    struct vroce_hca_op *op,
				    const struct vroce_recv_wqe *rwqe,
				    u8 status)
{
	vroce_hca_recv_complete_at(hca, op, rwqe, status,
				   vroce_hca_recv_wq(op->phca, op->peer)->ci,
				   false);
}

/* ---- datagrams (UD and GSI QPs) ---- */

/*
 * The VROCE_GRH_SIZE bytes placed ahead of a datagram: the packet's IPv6
 * header, or 20 bytes left zero and its IPv4 header (with checksum).
 */
static void vroce_hca_grh(u8 *grh, const struct vroce_wqe_av *av, u32 len)
{
	/* UDP header, BTH, DETH, the payload, ICRC. */
	u32 l4 = 8 + 12 + 8 + len + 4;

	memset(grh, 0, VROCE_GRH_SIZE);
	if (vroce_hca_net_type(av) == VROCE_NET_IPV4) {
		struct iphdr *ip = (struct iphdr *)(grh + 20);

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = av->traffic_class;
		ip->tot_len = htons(sizeof(*ip) + l4);
		ip->frag_off = htons(IP_DF);
		ip->ttl = av->hop_limit;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, &av->sgid[12], 4);
		memcpy(&ip->daddr, &av->dgid[12], 4);
		ip->check = ip_fast_csum(ip, ip->ihl);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;
		u32 fl = le32_to_cpu(av->flow_label) & GENMASK(19, 0);

		*(__be32 *)ip6 = cpu_to_be32(6 << 28 | av->traffic_class << 20 |
					     fl);
		ip6->payload_len = htons(l4);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = av->hop_limit;
		memcpy(&ip6->saddr, av->sgid, sizeof(ip6->saddr));
		memcpy(&ip6->daddr, av->dgid, sizeof(ip6->daddr));
	}
}

/*
 * The UD or GSI QP a datagram for @av reaches, on the port its MAC names
 * (this HCA's or one across the wire); @op->phca is set to its HCA.
 */
struct vroce_hca_qp *vroce_hca_ud_dest(struct vroce_hca *hca,
				       struct vroce_hca_op *op,
				       const struct vroce_wqe_av *av)
{
	op->phca = vroce_hca_wire_find(hca, av->dmac);
	if (!op->phca || !vroce_hca_enabled(op->phca))
		return NULL;
	return vroce_hca_ud_qp(op->phca, le32_to_cpu(av->dest_qpn));
}

/* QP @qpn of @hca when it is a UD or GSI QP ready to receive, else NULL. */
struct vroce_hca_qp *vroce_hca_ud_qp(struct vroce_hca *hca, u32 qpn)
{
	struct vroce_hca_qp *dst = vroce_hca_qp_of(hca, qpn);

	if (!dst || !vroce_hca_qp_datagram(dst) || !vroce_hca_qp_receives(dst))
		return NULL;
	return dst;
}

/* A datagram lost at @hca's port. */
void vroce_hca_ud_drop(struct vroce_hca *hca)
{
	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->ud_dropped++;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}

/* Place a datagram at @dst, whose RQ lock is held. */
void vroce_hca_ud_deliver(struct vroce_hca *hca,
			  struct vroce_hca_op *op,
			  struct vroce_hca_qp *dst, u32 qkey)
{
	const struct vroce_wqe_av *av = &op->wqe.av;
	struct vroce_hca_wq *rq = vroce_hca_recv_wq(op->phca, dst);
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	vroce_hca_wq_sync(op->phca, dst, VROCE_HCA_RQ);
	if (dst->qkey != qkey || READ_ONCE(dst->state) == VROCE_QPS_ERR ||
	    rq->ci == rq->pi) {
		vroce_hca_ud_drop(op->phca);
		return;
	}
	vroce_hca_recv_fetch(op->phca, rq, &rwqe);
	if (rwqe.num_sge <= VROCE_MAX_RECV_SGE &&
	    vroce_hca_recv_room(&rwqe) < op->len + VROCE_GRH_SIZE) {
		vroce_hca_ud_drop(op->phca);
		return;
	}
	op->peer = dst;
	memmove(op->buf + VROCE_GRH_SIZE, op->buf, op->len);
	vroce_hca_grh(op->buf, av, op->len);
	op->rlen = op->len + VROCE_GRH_SIZE;
	/* One chunk: the datagram behind its GRH. */
	op->off = 0;
	op->clen = op->rlen;
	rstatus = vroce_hca_recv_check(op, &rwqe);
	if (!rstatus)
		rstatus = vroce_hca_recv_scatter(hca, op, &rwqe);
	/* No ack: what the receiver met stays there. */
	op->status = VROCE_CQE_OK;
	/* A page fault: the receive stays posted for the datagram again. */
	if (op->paged)
		return;
	vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
}

/**
 * vroce_hca_ud_dropped() - datagrams no QP took so far (no such QP, the
 *	wrong Q_Key, no receive posted)
 * @hca: the HCA
 *
 * Context: process context.
 * Return: the count, which only grows until a reset.
 */
u32 vroce_hca_ud_dropped(struct vroce_hca *hca)
{
	u32 n;

	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	n = hca->ud_dropped;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_ud_dropped);

/* ---- SEND and WRITE_IMM at an RC peer ---- */

/*
 * SEND, SEND_IMM, SEND_INV at the peer, whose RQ lock is held: the chunk
 * in the bounce buffer. The head receive is the message's until its last
 * chunk completes it (an RC peer takes messages from this QP only).
 */
void vroce_hca_send_deliver(struct vroce_hca *hca,
			    struct vroce_hca_op *op)
{
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	if (!vroce_hca_recv_take(hca, op, &rwqe))
		return;
	rstatus = vroce_hca_recv_check(op, &rwqe);
	if (!rstatus)
		rstatus = vroce_hca_recv_scatter(hca, op, &rwqe);
	if (!rstatus && (op->paged || !vroce_hca_last_chunk(op)))
		return;
	if (!rstatus && op->wqe.opcode == VROCE_WQE_SEND_INV &&
	    vroce_hca_key_invalidate_locked(op->phca,
					    le32_to_cpu(op->wqe.imm_inv),
					    op->peer, true)) {
		op->status = VROCE_CQE_REM_INV_REQ_ERR;
		rstatus = VROCE_CQE_LOC_PROT_ERR;
	}
	vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
}

/* WRITE_IMM at the peer, whose RQ lock is held. */
void vroce_hca_write_imm_deliver(struct vroce_hca *hca,
				 struct vroce_hca_op *op)
{
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	/* With immediate data a receive must be there before any byte moves. */
	if (!vroce_hca_recv_take(hca, op, &rwqe))
		return;
	rstatus = vroce_hca_recv_check(op, &rwqe);
	if (!rstatus && !vroce_hca_remote(hca, op, VROCE_ACC_REMOTE_WRITE, true))
		return;
	/* The receive completes with the message's last chunk. */
	if (!rstatus && !vroce_hca_last_chunk(op))
		return;
	vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
}

/* ---- issue 34: RC over packets, at the responder ---- */

/**
 * vroce_hca_link_recv_place() - place a SEND packet in a receive
 * @hca: the responder's HCA, cabled to a netdev; the QP's RQ lock held
 * @op: the packet: @op->peer the QP, @op->phca @hca, @op->sqpn its peer;
 *	@op->buf and @op->clen the payload, at @op->off of the message;
 *	@op->wqe's opcode (SEND, SEND_IMM, SEND_INV), imm_inv and flags the
 *	message's
 * @last: the message's last packet: the receive completes
 *
 * The same placement as a SEND from the wire (the receive's SGEs, their
 * keys and room, the invalidation of SEND_INV), one packet at a time, in
 * the head receive, posted (rung or in the record); on a QP on an SRQ,
 * a message's first packet that is not its last takes that receive out
 * of the SRQ (its slot the driver's again at once) and the QP holds a
 * copy of it (@op->peer->rc.srq_wqe) for the message's next packets,
 * which go into the copy.
 *
 * Context: the link's receive work, @hca->wire_lock read-held.
 * Return: VROCE_CQE_OK when placed (the receive completed with @last) or
 * when a page fault stopped it (@op->paged: nothing completed, nothing
 * taken); else the receive's error status, with which it completed, the
 * QP failed and @op->status the requester's (the NAK's).
 */
u8 vroce_hca_link_recv_place(struct vroce_hca *hca, struct vroce_hca_op *op,
			     bool last)
{
	struct vroce_hca_rc_resp *r = &op->peer->rc;
	bool held = r->srq_held;
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	if (held)
		rwqe = r->srq_wqe;
	else
		vroce_hca_recv_fetch(hca, vroce_hca_recv_wq(hca, op->peer),
				     &rwqe);
	op->rlen = op->off + op->clen;
	rstatus = vroce_hca_recv_check(op, &rwqe);
	if (!rstatus)
		rstatus = vroce_hca_recv_scatter(hca, op, &rwqe);
	if (!rstatus && (op->paged || !last)) {
		if (!op->paged && !held && op->peer->srqn) {
			r->srq_wqe = rwqe;
			r->srq_held = true;
			vroce_hca_recv_taken(hca, op->peer);
		}
		return VROCE_CQE_OK;
	}
	if (!rstatus && op->wqe.opcode == VROCE_WQE_SEND_INV &&
	    vroce_hca_key_invalidate_locked(hca, le32_to_cpu(op->wqe.imm_inv),
					    op->peer, true)) {
		op->status = VROCE_CQE_REM_INV_REQ_ERR;
		rstatus = VROCE_CQE_LOC_PROT_ERR;
	}
	r->srq_held = false;
	vroce_hca_recv_complete_at(hca, op, &rwqe, rstatus,
				   held ? r->recv_ci :
				   vroce_hca_recv_wq(hca, op->peer)->ci, held);
	return rstatus;
}

/**
 * vroce_hca_link_recv_drop() - the receive a QP on an SRQ holds for a
 *	message that will not come to its end (issue 34)
 * @hca: the HCA
 * @qp: the QP (struct vroce_hca_rc_resp's srq_held; none: nothing)
 * @flush: complete it with a flush error (the QP is in ERR); else drop it
 *	uncompleted (RESET, DESTROY_QP, a new RQ PSN), as the QP's own
 *	receives are then
 *
 * Context: the QP's RQ lock held, or @hca->wire_lock held for writing.
 */
void vroce_hca_link_recv_drop(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      bool flush)
{
	struct vroce_hca_rc_resp *r = &qp->rc;
	struct vroce_cqe cqe = {
		.wr_id = r->srq_wqe.wr_id,
		.qpn = cpu_to_le32(qp->qpn),
		.wqe_idx = cpu_to_le16((u16)r->recv_ci),
		.status = VROCE_CQE_WR_FLUSH_ERR,
		.flags = VROCE_CQE_F_RQ,
	};

	if (!r->srq_held)
		return;
	r->srq_held = false;
	if (flush)
		vroce_hca_cq_post(hca, qp, qp->rcqn, &cqe);
}

/**
 * vroce_hca_link_recv_imm() - complete the head receive for a WRITE's
 *	immediate data
 * @hca: as for vroce_hca_link_recv_place()
 * @op: the message: @op->rlen its bytes, @op->wqe.imm_inv the immediate
 *
 * Context: as for vroce_hca_link_recv_place().
 * Return: VROCE_CQE_OK, or the receive's error status (a malformed
 * receive WQE), as vroce_hca_link_recv_place().
 */
u8 vroce_hca_link_recv_imm(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	vroce_hca_recv_fetch(hca, vroce_hca_recv_wq(hca, op->peer), &rwqe);
	rstatus = vroce_hca_recv_check(op, &rwqe);
	vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
	return rstatus;
}

/* ---- UC: no acks, so what the responder cannot take it drops ---- */

/**
 * vroce_hca_uc_drop() - a UC message lost: the responder drops it
 * @hca: the HCA where it was lost (the responder's, or the sender's when
 *	no port or QP answers)
 * @op: the message; its requester completes successfully all the same
 *
 * A UC requester is never told: UC has no acknowledgements, so no retry
 * and no RNR wait either. The responder's QP stays in its state and its
 * receive, if any, stays posted. uc_dropped counts it (debugfs).
 */
void vroce_hca_uc_drop(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	unsigned long flags;

	op->status = VROCE_CQE_OK;
	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->uc_dropped++;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}

/**
 * vroce_hca_uc_dropped() - UC messages dropped at @hca so far
 * @hca: the HCA
 *
 * Context: process context.
 * Return: the count, which only grows.
 */
u32 vroce_hca_uc_dropped(struct vroce_hca *hca)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&hca->reg_lock, flags);
	n = hca->uc_dropped;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_uc_dropped);

/*
 * The UC peer's next receive into @rwqe, whose RQ lock is held; false when
 * there is none: then the message is dropped (no RNR in UC).
 */
static bool vroce_hca_uc_recv_take(struct vroce_hca *hca,
				   struct vroce_hca_op *op,
				   struct vroce_recv_wqe *rwqe)
{
	struct vroce_hca_qp *peer = op->peer;
	struct vroce_hca_wq *rq = &peer->wq[VROCE_HCA_RQ];

	vroce_hca_wq_sync(op->phca, peer, VROCE_HCA_RQ);
	if (!vroce_hca_qp_receives(peer) || rq->ci == rq->pi) {
		vroce_hca_uc_drop(op->phca, op);
		return false;
	}
	vroce_hca_recv_fetch(op->phca, rq, rwqe);
	return true;
}

/**
 * vroce_hca_uc_send_deliver() - SEND or SEND_IMM at a UC peer
 * @hca: the requester's HCA
 * @op: the message, its peer found; the peer's RQ lock is held
 *
 * No receive posted, or one too small (IBTA class D, as rxe): the message
 * is dropped and the receive stays posted. A malformed receive WQE or a
 * bad key in it is the responder's own error: it completes in error and
 * the responder's QP fails, as on RC. The requester completes
 * successfully whatever happened here.
 */
void vroce_hca_uc_send_deliver(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	struct vroce_recv_wqe rwqe;
	u8 rstatus;

	if (!vroce_hca_uc_recv_take(hca, op, &rwqe))
		return;
	rstatus = vroce_hca_recv_check(op, &rwqe);
	if (!rstatus && op->rlen > vroce_hca_recv_room(&rwqe)) {
		vroce_hca_uc_drop(op->phca, op);
		return;
	}
	if (!rstatus)
		rstatus = vroce_hca_recv_scatter(hca, op, &rwqe);
	op->status = VROCE_CQE_OK;
	if (op->paged)
		return;
	vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
}

/**
 * vroce_hca_uc_write_deliver() - WRITE or WRITE_IMM at a UC peer
 * @hca: the requester's HCA
 * @op: the message, its peer found; the peer's RQ lock is held
 *
 * A peer that allows no remote write, a bad rkey or range, or (WRITE_IMM)
 * no receive posted: the message is dropped, no byte placed, the peer's
 * QP left in its state and its receive posted.
 */
void vroce_hca_uc_write_deliver(struct vroce_hca *hca,
				struct vroce_hca_op *op)
{
	bool imm = op->wqe.opcode == VROCE_WQE_WRITE_IMM;
	struct vroce_recv_wqe rwqe;
	u8 rstatus = VROCE_CQE_OK;
	int err;

	if (!(op->peer->access & VROCE_ACC_REMOTE_WRITE)) {
		vroce_hca_uc_drop(op->phca, op);
		return;
	}
	/* With immediate data a receive must be there before any byte moves. */
	if (imm) {
		if (!vroce_hca_uc_recv_take(hca, op, &rwqe))
			return;
		rstatus = vroce_hca_recv_check(op, &rwqe);
	}
	if (!rstatus && op->len) {
		err = vroce_hca_mr_access_locked(op->phca,
						 le32_to_cpu(op->wqe.rkey),
						 op->peer->pdn, op->peer->qpn,
						 le64_to_cpu(op->wqe.remote_addr),
						 op->buf, op->len,
						 vroce_hca_qp_acc(op->peer,
								  VROCE_ACC_REMOTE_WRITE),
						 true);
		/* A page fault: the message waits (as on RC), no drop. */
		if (vroce_hca_op_paged(op, err))
			return;
		if (err) {
			vroce_hca_uc_drop(op->phca, op);
			return;
		}
	}
	if (imm)
		vroce_hca_recv_complete(hca, op, &rwqe, rstatus);
	op->status = VROCE_CQE_OK;
}
