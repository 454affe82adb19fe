// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA, the requester: a QP's visit to its send queue, each
 * send WQE fetched, executed through a bounce buffer and completed.
 */

#include <linux/bitops.h>
#include <linux/etherdevice.h>
#include <linux/sched.h>
#include <linux/overflow.h>
#include <linux/semaphore.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "vroce_hca_frame.h"
#include "vroce_hca_priv.h"

/* What a send WQE's CQE says completed. */
static const u8 vroce_hca_cqe_opcode[] = {
	[VROCE_WQE_SEND]	= VROCE_CQE_SEND,
	[VROCE_WQE_SEND_IMM]	= VROCE_CQE_SEND,
	[VROCE_WQE_SEND_INV]	= VROCE_CQE_SEND,
	[VROCE_WQE_WRITE]	= VROCE_CQE_WRITE,
	[VROCE_WQE_WRITE_IMM]	= VROCE_CQE_WRITE,
	[VROCE_WQE_READ]	= VROCE_CQE_READ,
	[VROCE_WQE_REG_MR]	= VROCE_CQE_REG_MR,
	[VROCE_WQE_LOCAL_INV]	= VROCE_CQE_LOCAL_INV,
	[VROCE_WQE_ATOMIC_CMP_SWP]	= VROCE_CQE_COMP_SWAP,
	[VROCE_WQE_ATOMIC_FETCH_ADD]	= VROCE_CQE_FETCH_ADD,
	[VROCE_WQE_ATOMIC_WRITE]	= VROCE_CQE_ATOMIC_WRITE,
	[VROCE_WQE_BIND_MW]	= VROCE_CQE_BIND_MW,
};

/* ---- executing a send WQE ---- */

/*
 * Check the WQE's SGE list or inline data; sum the message length (in 64
 * bits: four u32 SGEs) and set the first chunk, at @op->off: 0, or where
 * an earlier visit stopped.
 */
static u8 vroce_hca_op_len(struct vroce_hca_op *op)
{
	const struct vroce_send_wqe *wqe = &op->wqe;
	u64 len = 0;
	u32 i;

	if (wqe->flags & VROCE_WQE_F_INLINE) {
		if (wqe->opcode == VROCE_WQE_READ ||
		    le32_to_cpu(wqe->inline_len) > VROCE_MAX_INLINE)
			return VROCE_CQE_LOC_QP_OP_ERR;
		op->len = le32_to_cpu(wqe->inline_len);
		op->off = 0;
		op->clen = op->len;
		return VROCE_CQE_OK;
	}
	if (wqe->num_sge > VROCE_MAX_SEND_SGE)
		return VROCE_CQE_LOC_QP_OP_ERR;
	for (i = 0; i < wqe->num_sge; i++)
		len += le32_to_cpu(wqe->sge[i].length);
	/* Also a WQE the consumer shortened under a message in progress. */
	if (len > VROCE_MAX_MSG_SIZE || op->off > len)
		return VROCE_CQE_LOC_LEN_ERR;
	op->len = len;
	op->clen = min_t(u32, op->len - op->off, VROCE_HCA_BOUNCE_SIZE);
	return VROCE_CQE_OK;
}

/*
 * Move on to the next chunk of the message: false when it is done, or when
 * this visit moved VROCE_HCA_VISIT_CHUNKS chunks (@op->more: the QP is
 * queued again, and the message goes on from @op->off at its next visit,
 * so that no message holds the wire's lock or a CPU for long).
 */
static bool vroce_hca_chunk_next(struct vroce_hca_op *op, u32 *chunks)
{
	op->off += op->clen;
	if (op->off >= op->len)
		return false;
	if (++*chunks >= VROCE_HCA_VISIT_CHUNKS) {
		op->more = true;
		return false;
	}
	op->clen = min_t(u32, op->len - op->off, VROCE_HCA_BOUNCE_SIZE);
	cond_resched();
	return true;
}

/*
 * Move the chunk between the bounce buffer and the WQE's own buffers:
 * gather (a local read needs no right) or, for READ, scatter (LOCAL_WRITE).
 * Each chunk checks the keys it uses again. A page fault (issue 33) stops
 * it with VROCE_CQE_OK and @op->paged set.
 */
static u8 vroce_hca_op_local(struct vroce_hca *hca, struct vroce_hca_op *op,
			     bool write)
{
	const struct vroce_send_wqe *wqe = &op->wqe;
	u32 i, len, n, skip = op->off, left = op->clen;
	u8 *buf = op->buf;
	u64 addr;
	int err;

	if (wqe->flags & VROCE_WQE_F_INLINE) {
		memcpy(buf, wqe->inline_data, op->len);
		return VROCE_CQE_OK;
	}
	/* The lengths were summed and bounded by vroce_hca_op_len(). */
	for (i = 0; i < wqe->num_sge && left; i++) {
		len = le32_to_cpu(wqe->sge[i].length);
		if (skip >= len) {
			skip -= len;
			continue;
		}
		n = min(len - skip, left);
		if (check_add_overflow(le64_to_cpu(wqe->sge[i].addr), (u64)skip,
				       &addr))
			return VROCE_CQE_LOC_PROT_ERR;
		err = vroce_hca_mr_access_locked(hca,
						 le32_to_cpu(wqe->sge[i].lkey),
						 op->qp->pdn, op->qp->qpn, addr,
						 buf, n,
						 vroce_hca_qp_acc(op->qp, write ?
							VROCE_ACC_LOCAL_WRITE : 0),
						 write);
		if (vroce_hca_op_paged(op, err))
			return VROCE_CQE_OK;
		if (err)
			return VROCE_CQE_LOC_PROT_ERR;
		skip = 0;
		buf += n;
		left -= n;
	}
	return VROCE_CQE_OK;
}

/* SEND and WRITE: the message's first chunk into the bounce buffer. */
static bool vroce_hca_gather(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	op->status = vroce_hca_op_len(op);
	if (!op->status)
		op->status = vroce_hca_op_local(hca, op, false);
	op->rlen = op->len;
	return !op->status && !op->paged;
}

/* No answer to a request: retry it, or give up when out of retries. */
static void vroce_hca_lost(struct vroce_hca_op *op)
{
	struct vroce_hca_qp *qp = op->qp;

	if (!qp->retry_active) {
		qp->retry_active = true;
		qp->retry_left = qp->retry_cnt;
	}
	if (!qp->retry_left) {
		op->status = VROCE_CQE_RETRY_EXC_ERR;
		return;
	}
	qp->retry_left--;
	op->lost = true;
}

/*
 * The peer: dest_qpn on the HCA whose port has the QP's destination MAC
 * (this one, or one across the wire), of the same type (RC or UC), ready
 * to receive, and connected back to this QP on this port (an RC
 * responder answers only the QP it is connected to; any other sender's
 * packets are dropped). Else nothing
 * answers: the request is retried after the ack timeout, retry_cnt
 * times, and then fails with RETRY_EXC_ERR. A UC message is dropped
 * instead (vroce_hca_uc_drop()).
 */
static bool vroce_hca_find_peer(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	struct vroce_hca *phca = vroce_hca_wire_find(hca, op->qp->dmac);
	struct vroce_hca_qp *peer = NULL;

	if (phca && vroce_hca_enabled(phca))
		peer = vroce_hca_qp_of(phca, op->qp->dest_qpn);
	if (peer && peer->type == op->qp->type &&
	    ether_addr_equal(peer->dmac, hca->mac) &&
	    peer->dest_qpn == op->qp->qpn && vroce_hca_qp_receives(peer)) {
		/*
		 * The rest of a message goes only to the QP it began at, not
		 * to one reset or created under its number since: that one
		 * never had the first part (an invalid request to it).
		 */
		if (op->off && (phca != op->qp->msg_phca ||
				phca->qpx[vroce_hca_qp_slot(phca, peer)].gen !=
				op->qp->msg_gen)) {
			op->status = VROCE_CQE_REM_INV_REQ_ERR;
			return false;
		}
		op->peer = peer;
		op->phca = phca;
		return true;
	}
	/* UC: no ack is missed; the message is lost where it arrived. */
	if (op->qp->type == VROCE_QPT_UC) {
		vroce_hca_uc_drop(phca && vroce_hca_enabled(phca) ? phca : hca,
				  op);
		return false;
	}
	vroce_hca_lost(op);
	if (op->lost)
		vroce_hca_count(hca, VROCE_CNT_RETRIES, 1);
	return false;
}

/*
 * A datagram to a multicast group (destination QPN VROCE_MCAST_QPN): to
 * every UD QP attached to the group of av.dgid on every HCA of the wire,
 * this one first, but never back to the sending QP; each receiver checks
 * its Q_Key and takes a receive of its own. ud_dropped counts a datagram
 * once at this HCA when it has no such group, and once at a member's HCA
 * for each member that dropped it (not ready, the wrong Q_Key, no
 * receive that fits).
 */
static void vroce_hca_do_mcast(struct vroce_hca *hca, struct vroce_hca_op *op,
			       u32 qkey)
{
	const struct vroce_hca_mcg *g;
	struct vroce_hca *phca = NULL;
	struct vroce_hca_qp *dst;
	u32 i;

	if (!vroce_hca_gid_mcast(op->wqe.av.dgid)) {
		vroce_hca_ud_drop(hca);
		return;
	}
	while ((phca = vroce_hca_wire_next(hca, phca))) {
		g = vroce_hca_enabled(phca) ?
		    vroce_hca_mcg_find(phca, op->wqe.av.dgid) : NULL;
		if (!g) {
			if (phca == hca)
				vroce_hca_ud_drop(hca);
			continue;
		}
		for (i = 0; i < g->nqp; i++) {
			dst = vroce_hca_qp_of(phca, g->qpn[i]);
			if (dst == op->qp)
				continue;
			if (!dst || !vroce_hca_qp_datagram(dst) ||
			    !vroce_hca_qp_receives(dst)) {
				vroce_hca_ud_drop(phca);
				continue;
			}
			op->phca = phca;
			op->rlen = 0;
			vroce_hca_rq_enter(phca, dst);
			vroce_hca_ud_deliver(hca, op, dst, qkey);
			vroce_hca_rq_leave(phca, dst);
			/*
			 * A member's page fault: that member loses this one
			 * (the others have theirs; no copy twice).
			 */
			if (op->paged) {
				op->paged = false;
				vroce_hca_ud_drop(phca);
			}
			/* The GRH went ahead of the message: take it off again. */
			if (op->rlen)
				memmove(op->buf, op->buf + VROCE_GRH_SIZE, op->len);
		}
		if (phca != hca) {
			vroce_hca_engine_raise(phca);
			vroce_hca_timer_arm(phca);
		}
	}
	/* Every HCA reached was told above. */
	op->phca = NULL;
	op->status = VROCE_CQE_OK;
}

/*
 * SEND and SEND_IMM on a UD or GSI QP. The sender completes once the
 * message left, whatever happens to it: a datagram that finds no QP, the
 * wrong Q_Key, no receive posted, or a receive too small for the GRH and
 * the message is dropped (ud_dropped counts it) and leaves the receiver
 * alone: its receive stays posted and its QP in its state, so that no
 * sender can fail another's QP (the GSI QP above all) by its size.
 */
static void vroce_hca_do_ud_send(struct vroce_hca *hca,
				 struct vroce_hca_op *op)
{
	u32 qkey = le32_to_cpu(op->wqe.av.qkey);
	struct vroce_hca_qp *dst;

	/*
	 * Review of issue 31: the kernel's AV holds a GID the port had when
	 * the AH was made; gone from the table since (an address removed),
	 * the datagram is lost, never sent from an address not the port's.
	 */
	if (!vroce_hca_sgid_ok(hca, op->wqe.av.sgid)) {
		vroce_hca_count(hca, VROCE_CNT_SGID_REFUSED, 1);
		return;
	}
	/* One MTU at most, checked before a byte is read. */
	op->status = vroce_hca_op_len(op);
	if (!op->status && op->len > VROCE_MAX_UD_MSG)
		op->status = VROCE_CQE_LOC_LEN_ERR;
	/* Whole: one chunk (op->off is 0: a UD send never goes on). */
	if (!op->status)
		op->status = vroce_hca_op_local(hca, op, false);
	if (op->status || op->paged)
		return;
	/* Bit 31 set: the sending QP's own Q_Key (IB spec 10.2.5). */
	if (qkey & BIT(31))
		qkey = op->qp->qkey;
	if (le32_to_cpu(op->wqe.av.dest_qpn) == VROCE_MCAST_QPN) {
		vroce_hca_do_mcast(hca, op, qkey);
		return;
	}
	/* Issue 34: to another port over the link, as a packet. */
	if (hca->linked && !ether_addr_equal(op->wqe.av.dmac, hca->mac)) {
		vroce_hca_link_send_ud(hca, op, qkey);
		return;
	}
	dst = vroce_hca_ud_dest(hca, op, &op->wqe.av);
	if (!dst) {
		/* Counted where it was lost: at the receiver, if any. */
		vroce_hca_ud_drop(hca);
		return;
	}
	vroce_hca_rq_enter(op->phca, dst);
	vroce_hca_ud_deliver(hca, op, dst, qkey);
	vroce_hca_rq_leave(op->phca, dst);
}

/*
 * SEND, SEND_IMM, WRITE and WRITE_IMM on a UC QP. There are no acks: the
 * requester completes once the message left, whatever the responder did
 * with it (vroce_hca_uc_drop()); only its own errors (a bad local key, a
 * message too long) fail it. A UC message is one bounce buffer at most
 * (VROCE_HCA_BOUNCE_SIZE): the UC responder places a message whole, and a
 * longer one completes with LOC_LEN_ERR.
 */
static void vroce_hca_do_uc(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	u8 opcode = op->wqe.opcode;

	op->status = vroce_hca_op_len(op);
	if (!op->status && op->len > VROCE_HCA_BOUNCE_SIZE)
		op->status = VROCE_CQE_LOC_LEN_ERR;
	if (op->status || !vroce_hca_gather(hca, op) ||
	    !vroce_hca_find_peer(hca, op))
		return;
	vroce_hca_rq_enter(op->phca, op->peer);
	if (opcode == VROCE_WQE_SEND || opcode == VROCE_WQE_SEND_IMM)
		vroce_hca_uc_send_deliver(hca, op);
	else
		vroce_hca_uc_write_deliver(hca, op);
	vroce_hca_rq_leave(op->phca, op->peer);
}

/*
 * A message that takes a receive of an SRQ moves in one visit of its QP:
 * VROCE_HCA_VISIT_CHUNKS bounce buffers (8 MiB) at most. Between visits
 * another QP could take the SRQ's head receive it is being placed in, and
 * moving more in one visit would hold the wire's lock too long. A longer
 * one is an invalid request: the peer's QP fails, its receives stay.
 */
static bool vroce_hca_srq_fits(struct vroce_hca_op *op)
{
	if (!op->peer->srqn ||
	    op->len <= (u64)VROCE_HCA_VISIT_CHUNKS * VROCE_HCA_BOUNCE_SIZE)
		return true;
	op->status = VROCE_CQE_REM_INV_REQ_ERR;
	vroce_hca_qp_error(op->phca, op->peer);
	return false;
}

/*
 * The message goes a chunk at a time: each is gathered (from the next
 * local byte) and placed (at the peer's next byte), every key checked
 * again. A failure part way completes as it would at the first chunk;
 * what earlier chunks placed stays (a responder that took some packets of
 * a message before a protection error holds them too). A message into a
 * receive of an SRQ is one visit's chunks at most (vroce_hca_srq_fits()).
 */
static void vroce_hca_do_send(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	u32 chunks = 0;

	if (!vroce_hca_gather(hca, op) || !vroce_hca_find_peer(hca, op) ||
	    !vroce_hca_srq_fits(op))
		return;
	vroce_hca_rq_enter(op->phca, op->peer);
	do {
		/* The receive completes with the last chunk. */
		vroce_hca_send_deliver(hca, op);
		if (op->status || op->rnr || op->paged ||
		    !vroce_hca_chunk_next(op, &chunks))
			break;
		op->status = vroce_hca_op_local(hca, op, false);
	} while (!op->status && !op->paged);
	vroce_hca_rq_leave(op->phca, op->peer);
}

/* WRITE, WRITE_IMM (which also consumes a receive). */
static void vroce_hca_do_write(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	bool imm = op->wqe.opcode == VROCE_WQE_WRITE_IMM;
	u32 chunks = 0;

	if (!vroce_hca_gather(hca, op) || !vroce_hca_find_peer(hca, op) ||
	    !vroce_hca_peer_allows(hca, op, VROCE_ACC_REMOTE_WRITE) ||
	    (imm && !vroce_hca_srq_fits(op)))
		return;
	if (imm)
		vroce_hca_rq_enter(op->phca, op->peer);
	do {
		/* WRITE_IMM's receive completes with the last chunk. */
		if (imm)
			vroce_hca_write_imm_deliver(hca, op);
		else
			vroce_hca_remote(hca, op, VROCE_ACC_REMOTE_WRITE, true);
		if (op->status || op->rnr || op->paged ||
		    !vroce_hca_chunk_next(op, &chunks))
			break;
		op->status = vroce_hca_op_local(hca, op, false);
	} while (!op->status && !op->paged);
	if (imm)
		vroce_hca_rq_leave(op->phca, op->peer);
}

/*
 * READ: the peer's memory into the WQE's own buffers, a chunk at a time
 * (the responses of one chunk: the bounce buffer, not the path MTU, sizes
 * what moves at once).
 */
static void vroce_hca_do_read(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	u32 chunks = 0;

	op->status = vroce_hca_op_len(op);
	if (op->status || !vroce_hca_find_peer(hca, op) ||
	    !vroce_hca_peer_allows(hca, op, VROCE_ACC_REMOTE_READ))
		return;
	do {
		if (!vroce_hca_remote(hca, op, VROCE_ACC_REMOTE_READ, false))
			break;
		op->status = vroce_hca_op_local(hca, op, true);
	} while (!op->status && !op->paged &&
		 vroce_hca_chunk_next(op, &chunks));
}

/*
 * ATOMIC_CMP_SWP, ATOMIC_FETCH_ADD (IBTA 9.4.5) and ATOMIC_WRITE (oA19-28):
 * 8 bytes at an 8-byte aligned address of the peer. The local buffers
 * hold exactly 8 bytes: the original value lands there (LOCAL_WRITE), or
 * ATOMIC_WRITE's value comes from there. A misaligned target is an
 * invalid request; a key, PD, range or MR right the peer refuses, a
 * remote access error (vroce_hca_remote()'s rule).
 */
static void vroce_hca_do_atomic(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	const struct vroce_send_wqe *wqe = &op->wqe;
	bool awrite = wqe->opcode == VROCE_WQE_ATOMIC_WRITE;
	u32 right = awrite ? VROCE_ACC_REMOTE_WRITE : VROCE_ACC_REMOTE_ATOMIC;
	u64 addr = le64_to_cpu(wqe->remote_addr);
	u64 swap = le64_to_cpu(wqe->atomic_swap);
	u64 orig;
	int err;

	/* A result cannot land in inline data. */
	if (!awrite && (wqe->flags & VROCE_WQE_F_INLINE)) {
		op->status = VROCE_CQE_LOC_QP_OP_ERR;
		return;
	}
	op->status = vroce_hca_op_len(op);
	if (!op->status && op->len != sizeof(u64))
		op->status = VROCE_CQE_LOC_LEN_ERR;
	if (!op->status && awrite) {
		op->status = vroce_hca_op_local(hca, op, false);
		/* The message's bytes, stored as they are. */
		memcpy(&swap, op->buf, sizeof(swap));
	}
	/*
	 * Issue 33: the result's page is made present before the atomic
	 * happens (an atomic runs once): zeroes stored there, never another
	 * message's bytes from the bounce buffer.
	 */
	if (!op->status && !awrite) {
		memset(op->buf, 0, sizeof(u64));
		op->status = vroce_hca_op_local(hca, op, true);
	}
	if (op->status || op->paged || !vroce_hca_find_peer(hca, op) ||
	    !vroce_hca_peer_allows(hca, op, right))
		return;
	if (!IS_ALIGNED(addr, sizeof(u64))) {
		op->status = VROCE_CQE_REM_INV_REQ_ERR;
		vroce_hca_qp_error(op->phca, op->peer);
		return;
	}
	/*
	 * A page fault at the target (issue 33) comes before the operation:
	 * nothing happened there, the WQE runs again.
	 */
	err = vroce_hca_mr_atomic_locked(op->phca, le32_to_cpu(wqe->rkey),
					 op->peer->pdn, op->peer->qpn, addr,
					 vroce_hca_qp_acc(op->peer, right),
					 wqe->opcode,
					 le64_to_cpu(wqe->atomic_cmp_add), swap,
					 &orig);
	if (vroce_hca_op_paged(op, err))
		return;
	if (err) {
		op->status = VROCE_CQE_REM_ACCESS_ERR;
		vroce_hca_qp_fatal(op->phca, op->peer);
		return;
	}
	op->rlen = sizeof(u64);
	if (awrite)
		return;
	memcpy(op->buf, &orig, sizeof(orig));
	op->status = vroce_hca_op_local(hca, op, true);
	/*
	 * The result's page went since the probe (unmapped under the WQE):
	 * the atomic happened and cannot run again.
	 */
	if (op->paged) {
		op->paged = false;
		op->status = VROCE_CQE_LOC_PROT_ERR;
	}
}

/* ---- what a send WQE may ask (issue 31: a process writes them) ---- */

#define VROCE_HCA_WQE_FLAGS	(VROCE_WQE_F_SIGNALED | VROCE_WQE_F_SOLICITED | \
				 VROCE_WQE_F_INLINE | VROCE_WQE_F_FENCE)

/*
 * The fields of the HCA's copy of a send WQE that decide what executes,
 * checked before anything does: a status, 0 when sound. Each bad value is
 * a local QP operation error (IBTA: a work request the QP cannot carry
 * out as posted), the QP to ERR. Unprivileged QPs (a process's) may post
 * no REG_MR (its page list is DMA addresses); their LOCAL_INV may unbind
 * their own type 2 memory windows only (vroce_hca_key_invalidate_locked()).
 * The rest is checked where it is used: lengths by vroce_hca_op_len(), every
 * key by the MPT against the QP's PD (a DMA MR refuses an unprivileged
 * QP's key: vroce_hca_qp_acc()), a remote address by the peer. The
 * table of fields and results is Documentation/datapath.rst's.
 */
static u8 vroce_hca_wqe_check(struct vroce_hca *hca,
			      const struct vroce_hca_op *op)
{
	const struct vroce_send_wqe *wqe = &op->wqe;
	const struct vroce_hca_qp *qp = op->qp;

	if (wqe->opcode >= ARRAY_SIZE(vroce_hca_cqe_opcode) ||
	    (wqe->flags & ~VROCE_HCA_WQE_FLAGS))
		return VROCE_CQE_LOC_QP_OP_ERR;
	/*
	 * A QP with a doorbell record is a process's too, whose WQEs the
	 * kernel never sees (an MR of the MR cache is a fast-register entry
	 * of the process's PD: invalidated, then registered again with a
	 * page list of its choosing, it would reach any page).
	 */
	if ((qp->unpriv || qp->dbrec) && wqe->opcode == VROCE_WQE_REG_MR)
		return VROCE_CQE_LOC_QP_OP_ERR;
	if ((wqe->flags & VROCE_WQE_F_INLINE) ?
	    le32_to_cpu(wqe->inline_len) > VROCE_MAX_INLINE :
	    wqe->num_sge > VROCE_MAX_SEND_SGE)
		return VROCE_CQE_LOC_QP_OP_ERR;
	/* QP numbers are 24 bits on the wire (VROCE_MCAST_QPN among them). */
	if (vroce_hca_qp_datagram(qp) &&
	    le32_to_cpu(wqe->av.dest_qpn) > VROCE_MCAST_QPN)
		return VROCE_CQE_LOC_QP_OP_ERR;
	/*
	 * Review of issue 31: a process writes its own address vectors; a
	 * source GID that is not one of the port's would show in the
	 * receiver's GRH as a forged address (a kernel QP's is dropped:
	 * vroce_hca_do_ud_send()).
	 */
	if (vroce_hca_qp_datagram(qp) && (qp->unpriv || qp->dbrec) &&
	    !vroce_hca_sgid_ok(hca, wqe->av.sgid)) {
		vroce_hca_count(hca, VROCE_CNT_SGID_REFUSED, 1);
		return VROCE_CQE_LOC_QP_OP_ERR;
	}
	/*
	 * Fetched again for a message in progress: still that message's, and
	 * not inline (vroce_hca_op_len() would take it as a new message from
	 * offset 0, past the check that the rest goes only to the QP the
	 * message began at: review of issue 31).
	 */
	if (op->off && (wqe->opcode != qp->msg_opcode ||
			(wqe->flags & VROCE_WQE_F_INLINE)))
		return VROCE_CQE_LOC_QP_OP_ERR;
	return VROCE_CQE_OK;
}

static void vroce_hca_exec(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	const struct vroce_send_wqe *wqe = &op->wqe;
	u32 pdn = op->qp->pdn;

	/* A UD or GSI QP sends datagrams and nothing else. */
	if (vroce_hca_qp_datagram(op->qp)) {
		if (wqe->opcode == VROCE_WQE_SEND ||
		    wqe->opcode == VROCE_WQE_SEND_IMM)
			vroce_hca_do_ud_send(hca, op);
		else
			op->status = VROCE_CQE_LOC_QP_OP_ERR;
		return;
	}

	/* A UC QP: SEND, WRITE, with immediate data or not, and local work. */
	if (op->qp->type == VROCE_QPT_UC) {
		switch (wqe->opcode) {
		case VROCE_WQE_SEND:
		case VROCE_WQE_SEND_IMM:
		case VROCE_WQE_WRITE:
		case VROCE_WQE_WRITE_IMM:
			vroce_hca_do_uc(hca, op);
			return;
		case VROCE_WQE_REG_MR:
		case VROCE_WQE_LOCAL_INV:
		case VROCE_WQE_BIND_MW:
			break;
		default:
			op->status = VROCE_CQE_LOC_QP_OP_ERR;
			return;
		}
	}

	switch (wqe->opcode) {
	case VROCE_WQE_SEND:
	case VROCE_WQE_SEND_IMM:
	case VROCE_WQE_SEND_INV:
		vroce_hca_do_send(hca, op);
		break;
	case VROCE_WQE_WRITE:
	case VROCE_WQE_WRITE_IMM:
		vroce_hca_do_write(hca, op);
		break;
	case VROCE_WQE_READ:
		vroce_hca_do_read(hca, op);
		break;
	case VROCE_WQE_ATOMIC_CMP_SWP:
	case VROCE_WQE_ATOMIC_FETCH_ADD:
	case VROCE_WQE_ATOMIC_WRITE:
		vroce_hca_do_atomic(hca, op);
		break;
	case VROCE_WQE_REG_MR:
		if (vroce_hca_frmr_register_locked(hca, le32_to_cpu(wqe->fr_key),
						   pdn, le64_to_cpu(wqe->fr_iova),
						   le64_to_cpu(wqe->fr_length),
						   le32_to_cpu(wqe->fr_access),
						   le64_to_cpu(wqe->reg.pbl),
						   le32_to_cpu(wqe->reg.npages)))
			op->status = VROCE_CQE_LOC_QP_OP_ERR;
		break;
	case VROCE_WQE_LOCAL_INV:
		if (vroce_hca_key_invalidate_locked(hca,
						    le32_to_cpu(wqe->imm_inv),
						    op->qp, false))
			op->status = VROCE_CQE_LOC_QP_OP_ERR;
		break;
	case VROCE_WQE_BIND_MW:
		op->status = vroce_hca_mw_bind_locked(hca, op->qp, wqe);
		break;
	default:
		op->status = VROCE_CQE_LOC_QP_OP_ERR;
		break;
	}
}

/*
 * Count a message that went through: payload out of the port that sent
 * it, into the one that took it (for READ the other way round). A
 * datagram no QP took counts as sent only (ud_dropped at the receiver).
 */
static void vroce_hca_count_op(struct vroce_hca *hca, struct vroce_hca_op *op)
{
	struct vroce_hca *from = hca, *to = op->phca;
	u64 pkts = vroce_hca_packets(op->len);

	switch (op->wqe.opcode) {
	case VROCE_WQE_READ:
		from = op->phca;
		to = hca;
		break;
	case VROCE_WQE_REG_MR:
	case VROCE_WQE_LOCAL_INV:
	case VROCE_WQE_BIND_MW:
		return;
	}
	/* Issue 34: lost at the link, counted in link_tx_discards only. */
	if (from && !op->unsent) {
		vroce_hca_count(from, VROCE_CNT_TX_PACKETS, pkts);
		vroce_hca_count(from, VROCE_CNT_TX_BYTES, op->len);
	}
	if (to && op->peer) {
		vroce_hca_count(to, VROCE_CNT_RX_PACKETS, pkts);
		vroce_hca_count(to, VROCE_CNT_RX_BYTES, op->len);
	}
}

/* The requester's CQE: when signaled, and always for an error. */
static void vroce_hca_sq_complete(struct vroce_hca *hca,
				  struct vroce_hca_op *op)
{
	struct vroce_hca_qp *qp = op->qp;
	u8 opcode = op->wqe.opcode;
	struct vroce_cqe cqe = {
		.wr_id = op->wqe.wr_id,
		.qpn = cpu_to_le32(qp->qpn),
		.byte_len = cpu_to_le32(op->len),
		.wqe_idx = cpu_to_le16((u16)op->idx),
		.status = op->status,
	};

	if (opcode < ARRAY_SIZE(vroce_hca_cqe_opcode))
		cqe.opcode = vroce_hca_cqe_opcode[opcode];
	if (opcode == VROCE_WQE_SEND_IMM || opcode == VROCE_WQE_WRITE_IMM) {
		cqe.flags = VROCE_CQE_F_IMM;
		cqe.imm_inv = op->wqe.imm_inv;
	}
	if (op->status != VROCE_CQE_OK || qp->sq_sig_all ||
	    (op->wqe.flags & VROCE_WQE_F_SIGNALED))
		vroce_hca_cq_post(hca, qp, qp->scqn, &cqe);
	if (op->status != VROCE_CQE_OK)
		vroce_hca_qp_error(hca, qp);
}

/* ---- bounce buffers ---- */

/* A bounce buffer of @hca's, waiting for one when all are in use. */
static u32 vroce_hca_bounce_get(struct vroce_hca *hca)
{
	u32 i = 0;

	down(&hca->bounce_sem);
	while (test_and_set_bit_lock(i, &hca->bounce_busy))
		i = (i + 1) % VROCE_HCA_BOUNCES;
	return i;
}

static void vroce_hca_bounce_put(struct vroce_hca *hca, u32 i)
{
	clear_bit_unlock(i, &hca->bounce_busy);
	up(&hca->bounce_sem);
}

/*
 * A visit's buffer *@b back, if it holds one (VROCE_HCA_BOUNCES: none);
 * it holds none after.
 */
static void vroce_hca_bounce_drop(struct vroce_hca *hca, u32 *b)
{
	if (*b == VROCE_HCA_BOUNCES)
		return;
	vroce_hca_bounce_put(hca, *b);
	*b = VROCE_HCA_BOUNCES;
}

/* ---- a QP's visit: the send queue, flushing ---- */

/*
 * The message in progress goes on at @op->off at a later visit, to the
 * peer it began at (its HCA and the generation of its QP slot).
 */
static void vroce_hca_msg_save(struct vroce_hca_qp *qp,
			       const struct vroce_hca_op *op)
{
	if (!qp->msg_off) {
		qp->msg_opcode = op->wqe.opcode;
		qp->msg_phca = op->phca;
		qp->msg_gen = op->phca->qpx[vroce_hca_qp_slot(op->phca,
							     op->peer)].gen;
	}
	qp->msg_off = op->off;
}

/*
 * Execute the WQE at the head of the SQ; false when it must wait. *@b is
 * the bounce buffer the visit holds, VROCE_HCA_BOUNCES while it holds
 * none: taken for the first WQE and kept for the next ones (issue 33: one
 * semaphore round trip per visit, not per message), but given back after
 * a message above VROCE_HCA_BOUNCE_KEEP bytes, so that other QPs' visits
 * waiting for one get it between big messages as before.
 */
static bool vroce_hca_sq_exec_one(struct vroce_hca *hca,
				  struct vroce_hca_qp *qp, u32 *b)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_op op = { .qp = qp, .idx = sq->ci, .off = qp->msg_off };
	u64 t = vroce_hca_stage_now(hca);

	if (*b == VROCE_HCA_BOUNCES)
		*b = vroce_hca_bounce_get(hca);
	op.buf = hca->bounce[*b];
	/* One copy of the WQE: the ring may change under it from now on. */
	if (!vroce_hca_wq_fetch(hca, sq, op.idx, &op.wqe))
		op.status = VROCE_CQE_LOC_QP_OP_ERR;	/* no wr_id to tell */
	else
		op.status = vroce_hca_wqe_check(hca, &op);
	vroce_hca_stage_add(hca, VROCE_HCA_STAGE_FETCH, &t);
	if (!op.status)
		vroce_hca_exec(hca, &op);
	if (op.len > VROCE_HCA_BOUNCE_KEEP)
		vroce_hca_bounce_drop(hca, b);
	vroce_hca_stage_add(hca, VROCE_HCA_STAGE_EXEC, &t);
	/* The peer's HCA learns of what was delivered there at once. */
	if (op.phca && op.phca != hca) {
		vroce_hca_engine_raise(op.phca);
		vroce_hca_timer_arm(op.phca);	/* a delayed event there */
	}
	/* The wait began where the peer's receive queue was found empty. */
	if (op.rnr)
		return false;
	/*
	 * Issue 33, a page fault: the WQE waits and runs again from the
	 * chunk that met it (what earlier chunks moved stays: the same
	 * bytes to the same place, the same receive still at the head).
	 */
	if (op.paged && !op.status) {
		/*
		 * Not into an SRQ's receive: between visits another QP may
		 * take it, and the message would go on in the next one. Such
		 * a message (one visit's chunks at most) starts over.
		 */
		if (op.off > qp->msg_off && !op.peer->srqn)
			vroce_hca_msg_save(qp, &op);
		vroce_hca_odp_wait(hca, qp);
		return false;
	}
	if (op.lost) {
		vroce_hca_retry_wait(hca, qp);
		return false;
	}
	qp->rnr_active = false;
	qp->retry_active = false;
	/* A big message goes on at the next visit, behind the other QPs. */
	if (op.more && !op.status) {
		vroce_hca_msg_save(qp, &op);
		vroce_hca_qp_kick(hca, qp);
		return false;
	}
	qp->msg_off = 0;
	sq->ci++;
	if (!op.status)
		vroce_hca_count_op(hca, &op);
	vroce_hca_sq_complete(hca, &op);
	if (t) {
		vroce_hca_stage_add(hca, VROCE_HCA_STAGE_COMPLETE, &t);
		atomic64_inc(&hca->stage_wqes);
	}
	return true;
}

/* ---- issue 34: RC over packets, the requester and its completer ---- */

/* COMPARE_SWAP or FETCH_ADD: over packets (ATOMIC_WRITE is not). */
static bool vroce_hca_rc_wqe_atomic(u8 opcode)
{
	return opcode == VROCE_WQE_ATOMIC_CMP_SWP ||
	       opcode == VROCE_WQE_ATOMIC_FETCH_ADD;
}

/* A READ or an atomic: completed by its responses, never by an ACK. */
static bool vroce_hca_rc_wqe_answered(u8 opcode)
{
	return opcode == VROCE_WQE_READ || vroce_hca_rc_wqe_atomic(opcode);
}

/* AETH syndromes' kinds (IBTA 9.7.5.1.1). */
#define VROCE_AETH_KIND		0xe0
#define VROCE_AETH_KIND_ACK	0x00
#define VROCE_AETH_KIND_RNR	0x20
#define VROCE_AETH_KIND_NAK	0x60

/*
 * An RC QP of a port on a netdev whose path MODIFY_QP set: its send queue
 * goes out as packets (a linked port reaches no peer on the wire), but to
 * its own port's MAC (loopback, as a NIC and rxe loop back).
 */
static bool vroce_hca_rc_packets(const struct vroce_hca *hca,
				 const struct vroce_hca_qp *qp)
{
	return hca->linked && qp->type == VROCE_QPT_RC &&
	       (qp->path.set & VROCE_MODIFY_F_PATH) &&
	       !ether_addr_equal(qp->dmac, hca->mac);
}

/**
 * vroce_hca_rc_req_reset() - start a QP's requester over packets afresh
 * @hca: the HCA
 * @qp: the QP, whose SQ PSN MODIFY_QP set
 *
 * Context: MODIFY_QP, @hca->wire_lock held for writing (no visit runs).
 */
void vroce_hca_rc_req_reset(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	struct vroce_hca_qp_exec *x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];
	struct vroce_hca_rc_req *r = &qp->rcreq;

	memset(r, 0, sizeof(*r));
	r->psn = qp->path.sq_psn;
	r->una = r->psn;
	r->end = r->psn;
	r->tx_idx = qp->wq[VROCE_HCA_SQ].ci;
	r->retry_left = qp->retry_cnt;
	r->rnr_left = qp->rnr_retry;
	spin_lock(&x->ack_lock);
	x->ack_new = false;
	x->nak_new = false;
	x->win_una = r->una;
	x->win_end = r->end;
	spin_unlock(&x->ack_lock);
	skb_queue_purge(&x->resp_q);
}

/*
 * Tell the receive work which PSNs an ACK or NAK may name: those sent and
 * not acknowledged, [una, end). Before a packet leaves, so that its ACK
 * is never taken for a stranger's.
 */
static void vroce_hca_rc_window(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	struct vroce_hca_qp_exec *x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];

	spin_lock(&x->ack_lock);
	x->win_una = qp->rcreq.una;
	x->win_end = qp->rcreq.end;
	spin_unlock(&x->ack_lock);
}

/* What sq_complete() needs of outstanding WQE @idx, kept when it was sent. */
static void vroce_hca_rc_op(struct vroce_hca_qp *qp, u32 idx, u8 status,
			    struct vroce_hca_op *op)
{
	const struct vroce_hca_rc_sent *s;

	s = &qp->rcreq.sent[idx % VROCE_HCA_RC_WQES];
	*op = (struct vroce_hca_op){ .qp = qp, .idx = idx, .status = status,
				     .len = s->len };
	op->wqe.wr_id = s->wr_id;
	op->wqe.opcode = s->opcode;
	op->wqe.flags = s->flags;
	op->wqe.imm_inv = s->imm_inv;
}

/*
 * Complete the head WQE with @op (an error fails the QP, which flushes
 * the rest); nothing is outstanding after an error.
 */
static void vroce_hca_rc_complete(struct vroce_hca *hca,
				  struct vroce_hca_qp *qp,
				  struct vroce_hca_op *op)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_rc_req *r = &qp->rcreq;

	sq->ci++;
	if (r->tx_idx == op->idx) {
		r->tx_idx = sq->ci;
		r->tx_off = 0;
	}
	if (op->status) {
		r->una = r->psn;
		if (r->wait) {
			vroce_hca_rc_timer_stop(hca, qp);
			r->wait = VROCE_HCA_RC_WAIT_NONE;
		}
	} else {
		vroce_hca_count_op(hca, op);
	}
	vroce_hca_sq_complete(hca, op);
}

/* The head WQE, sent, fails with @status. */
static void vroce_hca_rc_fail(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      u8 status)
{
	struct vroce_hca_op op;

	vroce_hca_rc_op(qp, qp->wq[VROCE_HCA_SQ].ci, status, &op);
	vroce_hca_rc_complete(hca, qp, &op);
}

/*
 * Send again from @psn, which was sent and not acknowledged: the WQE it
 * belongs to and the offset in its message (every packet before the last
 * carries one path MTU).
 */
static void vroce_hca_rc_rewind(struct vroce_hca_qp *qp, u32 psn)
{
	struct vroce_hca_rc_req *r = &qp->rcreq;
	u32 k, end = r->tx_idx + (r->tx_off ? 1 : 0), slot;

	for (k = qp->wq[VROCE_HCA_SQ].ci; k != end; k++) {
		slot = k % VROCE_HCA_RC_WQES;
		if (vroce_hca_psn_diff(psn, r->first[slot]) < 0)
			break;
		if (k + 1 != end || !r->tx_off) {
			if (vroce_hca_psn_diff(psn, r->last[slot]) > 0)
				continue;
		}
		r->tx_idx = k;
		r->tx_off = vroce_hca_psn_diff(psn, r->first[slot]) <<
			    (7 + qp->path.mtu);
		r->psn = psn;
		return;
	}
}

/*
 * Send again from @psn (go-back-N), counted as one of retry_cnt retries,
 * the ack timer started again with it; out of retries the head WQE
 * completes with RETRY_EXC_ERR. Return: false when it did.
 */
static bool vroce_hca_rc_retry(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       u32 psn)
{
	struct vroce_hca_rc_req *r = &qp->rcreq;

	if (!r->retry_left) {
		vroce_hca_rc_fail(hca, qp, VROCE_CQE_RETRY_EXC_ERR);
		return false;
	}
	r->retry_left--;
	vroce_hca_count(hca, VROCE_CNT_RETRIES, 1);
	vroce_hca_rc_rewind(qp, psn);
	if (r->wait == VROCE_HCA_RC_WAIT_ACK) {
		vroce_hca_rc_timer_stop(hca, qp);
		r->wait = VROCE_HCA_RC_WAIT_NONE;
	}
	return true;
}

/*
 * READ responses were lost (one came past a gap, or an ACK past the
 * READ): ask again from the first missing, once per gap, counted as a
 * retry; out of retries, RETRY_EXC_ERR.
 */
static void vroce_hca_rc_read_gap(struct vroce_hca *hca,
				  struct vroce_hca_qp *qp)
{
	struct vroce_hca_rc_req *r = &qp->rcreq;

	if (!r->gap && vroce_hca_rc_retry(hca, qp, r->una))
		r->gap = true;
}

/*
 * An ACK of @psn: every WQE whose last packet it covers completes, in
 * order; a retry count starts afresh. A PSN not sent, or acknowledged
 * already, changes nothing. Return: true when it says the responses of
 * the READ or atomic at the head were lost (asked again).
 */
static bool vroce_hca_rc_acked(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       u32 psn)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_rc_req *r = &qp->rcreq;
	struct vroce_hca_op op;
	bool lost = false;
	u32 slot, una;

	if (vroce_hca_psn_diff(psn, r->una) < 0 ||
	    vroce_hca_psn_diff(psn, r->end) >= 0)
		return false;
	/*
	 * Sent before a rewind, acknowledged after it: what is sent again
	 * from now on is acknowledged again (the responder's duplicates).
	 */
	if (vroce_hca_psn_diff(psn, r->psn) >= 0) {
		if (r->psn == r->una)
			return false;
		psn = (r->psn - 1) & VROCE_PSN_MASK;
	}
	una = (psn + 1) & VROCE_PSN_MASK;
	while (sq->ci != r->tx_idx) {
		slot = sq->ci % VROCE_HCA_RC_WQES;
		/*
		 * A READ or atomic completes by its responses alone, and the
		 * oldest PSN not acknowledged stays at the first not come;
		 * an ACK past its last says they were lost.
		 */
		if (vroce_hca_rc_wqe_answered(r->sent[slot].opcode)) {
			lost = vroce_hca_psn_diff(psn, r->last[slot]) >= 0;
			if (vroce_hca_psn_diff(r->una, r->first[slot]) < 0)
				una = r->first[slot];
			else
				una = r->una;
			break;
		}
		if (vroce_hca_psn_diff(r->last[slot], psn) > 0)
			break;
		vroce_hca_rc_op(qp, sq->ci, VROCE_CQE_OK, &op);
		vroce_hca_rc_complete(hca, qp, &op);
	}
	if (una != r->una) {
		r->una = una;
		r->retry_left = qp->retry_cnt;
		r->rnr_left = qp->rnr_retry;
		r->gap = false;
		/* The ack timer runs again from now for what is left. */
		if (r->wait == VROCE_HCA_RC_WAIT_ACK && r->una != r->psn)
			vroce_hca_rc_timer(hca, qp, vroce_hca_ack_timeout(qp));
	}
	if (lost)
		vroce_hca_rc_read_gap(hca, qp);
	return lost;
}

/* An RNR NAK or NAK (@syndrome) of @psn. */
static void vroce_hca_rc_naked(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       u32 psn, u8 syndrome)
{
	struct vroce_hca_rc_req *r = &qp->rcreq;
	u32 code = syndrome & 0x1f;

	if (vroce_hca_psn_diff(psn, r->una) < 0 ||
	    vroce_hca_psn_diff(psn, r->psn) >= 0)
		return;
	/*
	 * It acknowledges every packet before its own; when that says a
	 * READ's or atomic's responses were lost, they are asked for again
	 * and the NAK is not acted on (as rxe's completer): it comes again
	 * after them if it still holds. Else an atomic that ran would fail
	 * with a later WQE's error.
	 */
	if (psn != r->una &&
	    vroce_hca_rc_acked(hca, qp, (psn - 1) & VROCE_PSN_MASK))
		return;
	if (READ_ONCE(qp->state) != VROCE_QPS_RTS)
		return;
	switch (syndrome & VROCE_AETH_KIND) {
	case VROCE_AETH_KIND_RNR:
		vroce_hca_count(hca, VROCE_CNT_RNR_NAK_RCVD, 1);
		if (qp->rnr_retry != VROCE_HCA_RNR_FOREVER) {
			if (!r->rnr_left) {
				vroce_hca_rc_fail(hca, qp,
						  VROCE_CQE_RNR_RETRY_EXC_ERR);
				return;
			}
			r->rnr_left--;
		}
		vroce_hca_rc_rewind(qp, psn);
		vroce_hca_rc_timer(hca, qp,
				   usecs_to_jiffies(vroce_hca_rnr_usecs[code]));
		r->wait = VROCE_HCA_RC_WAIT_RNR;
		break;
	case VROCE_AETH_KIND_NAK:
		switch (code) {
		case 0:		/* PSN sequence error: from its PSN again */
			vroce_hca_rc_retry(hca, qp, psn);
			break;
		case 1:
			vroce_hca_rc_fail(hca, qp, VROCE_CQE_REM_INV_REQ_ERR);
			break;
		case 2:
			vroce_hca_rc_fail(hca, qp, VROCE_CQE_REM_ACCESS_ERR);
			break;
		default:	/* remote operational error, and reserved codes */
			vroce_hca_rc_fail(hca, qp, VROCE_CQE_REM_OP_ERR);
			break;
		}
		break;
	default:	/* reserved AETH syndromes (0x40-0x5f, 0x80 up), as rxe */
		vroce_hca_rc_fail(hca, qp, VROCE_CQE_REM_OP_ERR);
		break;
	}
}

/* What the link's receive work left in a QP's inbox, taken out at once. */
struct vroce_hca_rc_mail {
	bool ack;
	bool nak;
	u32 apsn;
	u32 npsn;
	u8 syndrome;
};

static void vroce_hca_rc_inbox(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       struct vroce_hca_rc_mail *m)
{
	struct vroce_hca_qp_exec *x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];

	spin_lock(&x->ack_lock);
	m->ack = x->ack_new;
	m->apsn = x->ack_psn;
	m->nak = x->nak_new;
	m->npsn = x->nak_psn;
	m->syndrome = x->nak_syndrome;
	x->ack_new = false;
	x->nak_new = false;
	spin_unlock(&x->ack_lock);
}

/*
 * The RC QP of this HCA in RTS sending as packets that @f, from its
 * peer's address to its own, is for; NULL (and a discard counted) if none.
 */
static struct vroce_hca_qp *vroce_hca_rc_for(struct vroce_hca *hca,
					     const struct vroce_frame *f)
{
	struct vroce_hca_qp *qp = vroce_hca_qp_of(hca, f->dqpn);

	if (!qp || !vroce_hca_rc_packets(hca, qp) ||
	    READ_ONCE(qp->state) != VROCE_QPS_RTS ||
	    memcmp(f->sip, qp->path.dgid, sizeof(f->sip)) ||
	    memcmp(f->dip, qp->path.sgid, sizeof(f->dip))) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return NULL;
	}
	return qp;
}

/* Whether @psn is one the QP sent and has no answer to yet. */
static bool vroce_hca_rc_in_window(struct vroce_hca_qp_exec *x, u32 psn)
{
	lockdep_assert_held(&x->ack_lock);
	return vroce_hca_psn_diff(psn, x->win_una) >= 0 &&
	       vroce_hca_psn_diff(psn, x->win_end) < 0;
}

/**
 * vroce_hca_rc_resp_in() - a READ response or ATOMIC ACKNOWLEDGE off the link
 * @hca: the HCA, cabled to a netdev
 * @f: the packet (READ RESPONSE FIRST, MIDDLE, LAST or ONLY, or ATOMIC
 *	ACKNOWLEDGE), parsed
 * @skb: the packet's buffer
 *
 * For an RC QP as vroce_hca_rc_ack_in() takes ACKs, of a PSN in its
 * window: @skb is queued for the QP's visit (at most
 * VROCE_HCA_RC_RESP_QUEUE), which places the payload. Otherwise dropped
 * and counted in VROCE_CNT_RX_DISCARDS.
 *
 * Context: the link's receive work, @hca->wire_lock read-held.
 * Return: true when @skb is kept (the caller no longer owns it).
 */
bool vroce_hca_rc_resp_in(struct vroce_hca *hca, const struct vroce_frame *f,
			  struct sk_buff *skb)
{
	struct vroce_hca_qp *qp = vroce_hca_rc_for(hca, f);
	struct vroce_hca_qp_exec *x;
	bool ok;

	if (!qp)
		return false;
	x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];
	spin_lock(&x->ack_lock);
	ok = vroce_hca_rc_in_window(x, f->psn);
	spin_unlock(&x->ack_lock);
	/* In one piece for the visit, which reads it again. */
	if (!ok || skb_queue_len(&x->resp_q) >= VROCE_HCA_RC_RESP_QUEUE ||
	    skb_linearize(skb)) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return false;
	}
	skb_queue_tail(&x->resp_q, skb);
	vroce_hca_count(hca, VROCE_CNT_RX_FRAMES, 1);
	vroce_hca_qp_kick(hca, qp);
	return true;
}

/*
 * Send WQE @idx of @qp into @op, with its status: checked as a new one
 * (@off and msg_opcode are the in-kernel wire's resumed messages, not the
 * packet window's).
 */
static void vroce_hca_rc_fetch(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			       u32 idx, struct vroce_hca_op *op)
{
	*op = (struct vroce_hca_op){ .qp = qp, .idx = idx };
	if (!vroce_hca_wq_fetch(hca, &qp->wq[VROCE_HCA_SQ], idx, &op->wqe))
		op->status = VROCE_CQE_LOC_QP_OP_ERR;
	else
		op->status = vroce_hca_wqe_check(hca, op);
}

/*
 * A READ response or ATOMIC ACKNOWLEDGE of @psn, at the visit: in order
 * (the oldest PSN not acknowledged; it acknowledges every packet before
 * it), its opcode and length the READ's at that PSN, or the atomic's
 * there, placed through the WQE's SGEs with the local write right (an
 * atomic's original value, 8 bytes in the host's order, as the in-kernel
 * wire stores it); the last completes the READ, the one the atomic. One
 * past a gap asks again from the gap (vroce_hca_rc_read_gap()); anything
 * else is dropped.
 */
static void vroce_hca_rc_read_in(struct vroce_hca *hca,
				 struct vroce_hca_qp *qp,
				 const struct vroce_frame *f)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_rc_req *r = &qp->rcreq;
	u32 mtu = 128U << qp->path.mtu, slot, n, len, plen;
	u8 code = f->opcode & 0x1f, sent;
	const u8 *payload = f->payload;
	struct vroce_hca_op op;
	u64 orig = f->orig;
	bool ok;
	s32 i;

	if (vroce_hca_psn_diff(f->psn, r->una) < 0 ||
	    vroce_hca_psn_diff(f->psn, r->end) >= 0)
		return;
	if (f->psn != r->una)
		vroce_hca_rc_acked(hca, qp, (f->psn - 1) & VROCE_PSN_MASK);
	if (READ_ONCE(qp->state) != VROCE_QPS_RTS || sq->ci == r->tx_idx)
		return;
	slot = sq->ci % VROCE_HCA_RC_WQES;
	sent = r->sent[slot].opcode;
	if (f->psn != r->una) {
		/* Responses before it were lost. */
		if (vroce_hca_rc_wqe_answered(sent))
			vroce_hca_rc_read_gap(hca, qp);
		return;
	}
	if (!vroce_hca_rc_wqe_answered(sent))
		return;
	i = vroce_hca_psn_diff(f->psn, r->first[slot]);
	n = vroce_hca_psn_diff(r->last[slot], r->first[slot]) + 1;
	len = r->sent[slot].len;
	/* An AETH (all but a MIDDLE carry one) that is not an ACK: dropped. */
	if (i < 0 || i >= n ||
	    (f->syndrome & VROCE_AETH_KIND) != VROCE_AETH_KIND_ACK)
		return;
	if (vroce_hca_rc_wqe_atomic(sent)) {
		ok = code == VROCE_OP_ATOMIC_ACKNOWLEDGE;
		payload = (const u8 *)&orig;
		plen = sizeof(orig);
	} else {
		/*
		 * The last response is a LAST or an ONLY, the others a
		 * FIRST or a MIDDLE: a responder asked again for the rest
		 * numbers it from there (vroce, or rxe which replays MIDDLE
		 * and LAST). The PSN places it.
		 */
		if (i == n - 1)
			ok = code == VROCE_OP_READ_RESPONSE_LAST ||
			     code == VROCE_OP_READ_RESPONSE_ONLY;
		else
			ok = code == VROCE_OP_READ_RESPONSE_FIRST ||
			     code == VROCE_OP_READ_RESPONSE_MIDDLE;
		plen = f->payload_len;
		ok = ok && plen == (i == n - 1 ? len - i * mtu : mtu);
	}
	if (!ok)
		return;

	/* The WQE as it was sent: a process's QP may have changed it. */
	vroce_hca_rc_fetch(hca, qp, sq->ci, &op);
	if (!op.status)
		op.status = vroce_hca_op_len(&op);
	if (!op.status && (op.wqe.opcode != sent || op.len != len ||
			   (vroce_hca_rc_wqe_atomic(sent) &&
			    (op.wqe.flags & VROCE_WQE_F_INLINE))))
		op.status = VROCE_CQE_LOC_QP_OP_ERR;
	if (!op.status) {
		op.off = i * mtu;
		op.clen = plen;
		op.buf = (u8 *)payload;
		op.status = vroce_hca_op_local(hca, &op, true);
	}
	if (op.status) {
		vroce_hca_rc_complete(hca, qp, &op);
		return;
	}
	/* A page fault: asked again from here once it is resumed. */
	if (op.paged) {
		vroce_hca_rc_rewind(qp, r->una);
		vroce_hca_odp_wait(hca, qp);
		r->wait = VROCE_HCA_RC_WAIT_RNR;
		return;
	}
	r->una = (f->psn + 1) & VROCE_PSN_MASK;
	r->retry_left = qp->retry_cnt;
	r->gap = false;
	vroce_hca_count(hca, VROCE_CNT_RX_PACKETS, 1);
	vroce_hca_count(hca, VROCE_CNT_RX_BYTES, plen);
	if (i == n - 1) {
		vroce_hca_rc_op(qp, sq->ci, VROCE_CQE_OK, &op);
		vroce_hca_rc_complete(hca, qp, &op);
	}
	if (r->wait == VROCE_HCA_RC_WAIT_ACK && r->una != r->psn)
		vroce_hca_rc_timer(hca, qp, vroce_hca_ack_timeout(qp));
}

/* The READ responses and ATOMIC ACKs the receive work queued, in order. */
static void vroce_hca_rc_resps(struct vroce_hca *hca, struct vroce_hca_qp *qp)
{
	struct vroce_hca_qp_exec *x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];
	struct vroce_frame f;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&x->resp_q))) {
		if (!vroce_frame_parse(skb->data, skb->len, &f) &&
		    READ_ONCE(qp->state) == VROCE_QPS_RTS)
			vroce_hca_rc_read_in(hca, qp, &f);
		consume_skb(skb);
	}
}

/**
 * vroce_hca_rc_ack_in() - an ACK, RNR NAK or NAK off the link
 * @hca: the HCA, cabled to a netdev
 * @f: the packet (ACKNOWLEDGE), parsed and to an address of the port
 *
 * For an RC QP of this HCA in RTS that sends as packets, from its peer's
 * address to its own, of a PSN sent and not acknowledged: into the QP's
 * inbox for its next visit, which it queues (the requester's state is its
 * visits'); an ACK keeps the newest PSN, a NAK the last one. Otherwise
 * dropped, in VROCE_CNT_RX_DISCARDS.
 *
 * Context: the link's receive work, @hca->wire_lock read-held.
 */
void vroce_hca_rc_ack_in(struct vroce_hca *hca, const struct vroce_frame *f)
{
	struct vroce_hca_qp *qp = vroce_hca_rc_for(hca, f);
	struct vroce_hca_qp_exec *x;

	if (!qp)
		return;
	x = &hca->qpx[vroce_hca_qp_slot(hca, qp)];
	spin_lock(&x->ack_lock);
	/* Only a PSN sent and not acknowledged: no stranger hides the rest. */
	if (!vroce_hca_rc_in_window(x, f->psn)) {
		spin_unlock(&x->ack_lock);
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return;
	}
	if ((f->syndrome & VROCE_AETH_KIND) == VROCE_AETH_KIND_ACK) {
		if (!x->ack_new || vroce_hca_psn_diff(f->psn, x->ack_psn) > 0)
			x->ack_psn = f->psn;
		x->ack_new = true;
	} else {
		x->nak_psn = f->psn;
		x->nak_syndrome = f->syndrome;
		x->nak_new = true;
	}
	spin_unlock(&x->ack_lock);
	vroce_hca_count(hca, VROCE_CNT_RX_FRAMES, 1);
	vroce_hca_qp_kick(hca, qp);
}

/* The packet of @op's chunk (@first and @last of its message) at r->psn. */
static void vroce_hca_rc_packet(struct vroce_hca *hca, struct vroce_hca_qp *qp,
				const struct vroce_hca_op *op, bool first,
				bool last)
{
	const struct vroce_hca_qp_path *path = &qp->path;
	u8 opc = op->wqe.opcode, code;
	bool imm = opc == VROCE_WQE_SEND_IMM || opc == VROCE_WQE_WRITE_IMM;
	bool inv = opc == VROCE_WQE_SEND_INV;
	u32 psn = qp->rcreq.psn;
	struct vroce_frame f = {
		.ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)path->dgid),
		.tclass = path->tclass,
		.hop_limit = path->hop_limit,
		/* Solicited: a message that completes a receive. */
		.se = last && (op->wqe.flags & VROCE_WQE_F_SOLICITED) &&
		      opc != VROCE_WQE_WRITE,
		.pkey = 0xffff,
		.dqpn = qp->dest_qpn & VROCE_PSN_MASK,
		/* The last of a message, and one in 16, ask for an ACK. */
		.ackreq = last || (psn & 15) == 15,
		.psn = psn,
		.va = le64_to_cpu(op->wqe.remote_addr),
		.rkey = le32_to_cpu(op->wqe.rkey),
		.dma_len = op->len,
		.imm = (__force __be32)op->wqe.imm_inv,
		.inv_rkey = le32_to_cpu(op->wqe.imm_inv),
		.payload = op->buf,
		.payload_len = op->clen,
		.sport = vroce_hca_link_sport(qp->qpn, qp->dest_qpn),
	};

	if (opc == VROCE_WQE_READ) {
		/* The rest of the READ, from its offset on. */
		code = VROCE_OP_READ_REQUEST;
		f.va += op->off;
		f.dma_len = op->len - op->off;
		f.ackreq = true;
		f.se = false;
	} else if (vroce_hca_rc_wqe_atomic(opc)) {
		/* AtomicETH: the swap (or add) value, the compare value. */
		if (opc == VROCE_WQE_ATOMIC_CMP_SWP) {
			code = VROCE_OP_COMPARE_SWAP;
			f.swap_add = le64_to_cpu(op->wqe.atomic_swap);
			f.compare = le64_to_cpu(op->wqe.atomic_cmp_add);
		} else {
			code = VROCE_OP_FETCH_ADD;
			f.swap_add = le64_to_cpu(op->wqe.atomic_cmp_add);
		}
		f.ackreq = true;
		f.se = false;
	} else if (opc == VROCE_WQE_WRITE || opc == VROCE_WQE_WRITE_IMM) {
		code = first && last ? (imm ? VROCE_OP_WRITE_ONLY_IMM :
					VROCE_OP_WRITE_ONLY) :
		       first ? VROCE_OP_WRITE_FIRST :
		       last ? (imm ? VROCE_OP_WRITE_LAST_IMM :
			       VROCE_OP_WRITE_LAST) :
		       VROCE_OP_WRITE_MIDDLE;
	} else {
		code = first && last ? (imm ? VROCE_OP_SEND_ONLY_IMM :
					inv ? VROCE_OP_SEND_ONLY_INV :
					VROCE_OP_SEND_ONLY) :
		       first ? VROCE_OP_SEND_FIRST :
		       last ? (imm ? VROCE_OP_SEND_LAST_IMM :
			       inv ? VROCE_OP_SEND_LAST_INV :
			       VROCE_OP_SEND_LAST) :
		       VROCE_OP_SEND_MIDDLE;
	}
	f.opcode = VROCE_OP_RC | code;
	memcpy(f.sip, path->sgid, sizeof(f.sip));
	memcpy(f.dip, path->dgid, sizeof(f.dip));
	if (f.ipv6)
		f.flow_label = path->flow_label;
	/* Lost at the link: the ack timeout sends it again. */
	vroce_hca_link_xmit(hca, &f, qp->dmac);
}

/* The send WQE @r->tx_idx is one a requester over packets sends. */
static bool vroce_hca_rc_sends(u8 opcode)
{
	switch (opcode) {
	case VROCE_WQE_SEND:
	case VROCE_WQE_SEND_IMM:
	case VROCE_WQE_SEND_INV:
	case VROCE_WQE_WRITE:
	case VROCE_WQE_WRITE_IMM:
	case VROCE_WQE_READ:
	case VROCE_WQE_ATOMIC_CMP_SWP:
	case VROCE_WQE_ATOMIC_FETCH_ADD:
		return true;
	}
	return false;
}

/* READs and atomics outstanding (sent, their responses not all in). */
static u32 vroce_hca_rc_reads(const struct vroce_hca_qp *qp)
{
	const struct vroce_hca_rc_req *r = &qp->rcreq;
	u32 k, n = 0;

	for (k = qp->wq[VROCE_HCA_SQ].ci; k != r->tx_idx; k++)
		n += vroce_hca_rc_wqe_answered(r->sent[k % VROCE_HCA_RC_WQES].opcode);
	return n;
}

/*
 * Whether @qp has as many READs and atomics outstanding as its
 * max_rd_atomic allows.
 */
static bool vroce_hca_rc_reads_full(const struct vroce_hca_qp *qp)
{
	return vroce_hca_rc_reads(qp) >= max_t(u32, qp->path.max_rd_atomic, 1);
}

/*
 * The WQE @op fetched at @r->tx_idx, checked as a new one: one whose
 * message is in progress (@r->tx_off) must still be that message (the
 * ring's copy may change: a process's QP).
 */
static u8 vroce_hca_rc_same(const struct vroce_hca_qp *qp,
			    const struct vroce_hca_op *op)
{
	const struct vroce_hca_rc_sent *s;

	if (!qp->rcreq.tx_off)
		return VROCE_CQE_OK;
	s = &qp->rcreq.sent[op->idx % VROCE_HCA_RC_WQES];
	if (op->wqe.opcode != s->opcode || op->len != s->len ||
	    (op->wqe.flags & VROCE_WQE_F_INLINE))
		return VROCE_CQE_LOC_QP_OP_ERR;
	return VROCE_CQE_OK;
}

/*
 * Send packets from @r->tx_idx, @r->tx_off while the window allows, at
 * most @budget. Work requests that send nothing (REG_MR, LOCAL_INV,
 * BIND_MW) run at the head with nothing outstanding; an error found
 * before a packet leaves completes the WQE once the WQEs before it have
 * (its own packets sent so far need no answer): completions stay in
 * order.
 */
static void vroce_hca_rc_send(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      u32 budget)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_rc_req *r = &qp->rcreq;
	u32 mtu = 128U << qp->path.mtu, b, slot, next, n;
	struct vroce_hca_rc_sent *s;
	struct vroce_hca_op op;
	bool first, last;

	while (r->tx_idx != sq->pi && READ_ONCE(qp->state) == VROCE_QPS_RTS) {
		if (!budget--) {
			vroce_hca_qp_kick(hca, qp);
			return;
		}
		/* The window: ACKs open it again. */
		if (r->tx_idx - sq->ci >= VROCE_HCA_RC_WQES ||
		    vroce_hca_psn_diff(r->psn, r->una) >= VROCE_HCA_RC_PSNS)
			return;
		vroce_hca_rc_fetch(hca, qp, r->tx_idx, &op);
		/* Sends nothing: at the head alone, this copy of it. */
		if (!op.status && !vroce_hca_rc_sends(op.wqe.opcode) &&
		    !r->tx_off) {
			if (r->tx_idx != sq->ci || r->psn != r->una)
				return;
			switch (op.wqe.opcode) {
			case VROCE_WQE_REG_MR:
			case VROCE_WQE_LOCAL_INV:
			case VROCE_WQE_BIND_MW:
				vroce_hca_exec(hca, &op);
				break;
			default:
				/* ATOMIC_WRITE: not over packets yet. */
				op.status = VROCE_CQE_LOC_QP_OP_ERR;
				break;
			}
			vroce_hca_rc_complete(hca, qp, &op);
			continue;
		}
		if (!op.status && !vroce_hca_rc_sends(op.wqe.opcode))
			op.status = VROCE_CQE_LOC_QP_OP_ERR;
		if (!op.status)
			op.status = vroce_hca_op_len(&op);
		if (!op.status)
			op.status = vroce_hca_rc_same(qp, &op);
		op.off = r->tx_off;
		/*
		 * A fenced WQE waits for the READs and atomics before it
		 * (their data).
		 */
		if (!op.status && !op.off &&
		    (op.wqe.flags & VROCE_WQE_F_FENCE) && vroce_hca_rc_reads(qp))
			return;
		if (!op.status && op.wqe.opcode == VROCE_WQE_READ &&
		    vroce_hca_rc_read_psns(qp, op.len) > VROCE_HCA_RC_READ_PSNS)
			op.status = VROCE_CQE_LOC_LEN_ERR;
		/* An atomic's 8 bytes, landing in memory (not inline data). */
		if (!op.status && vroce_hca_rc_wqe_atomic(op.wqe.opcode)) {
			if (op.wqe.flags & VROCE_WQE_F_INLINE)
				op.status = VROCE_CQE_LOC_QP_OP_ERR;
			else if (op.len != sizeof(u64))
				op.status = VROCE_CQE_LOC_LEN_ERR;
		}
		/*
		 * A READ: one request for the rest of it, a PSN per response;
		 * an atomic: one request, one PSN.
		 */
		if (!op.status && vroce_hca_rc_wqe_answered(op.wqe.opcode)) {
			if (!op.off && vroce_hca_rc_reads_full(qp))
				return;
			slot = op.idx % VROCE_HCA_RC_WQES;
			if (!op.off) {
				n = op.wqe.opcode == VROCE_WQE_READ ?
				    vroce_hca_rc_read_psns(qp, op.len) : 1;
				r->first[slot] = r->psn;
				r->last[slot] = (r->psn + n - 1) & VROCE_PSN_MASK;
				s = &r->sent[slot];
				s->wr_id = op.wqe.wr_id;
				s->len = op.len;
				s->imm_inv = 0;
				s->opcode = op.wqe.opcode;
				s->flags = op.wqe.flags;
			}
			op.clen = 0;
			next = (r->last[slot] + 1) & VROCE_PSN_MASK;
			if (vroce_hca_psn_diff(next, r->end) > 0) {
				r->end = next;
				vroce_hca_rc_window(hca, qp);
			}
			vroce_hca_rc_packet(hca, qp, &op, true, true);
			r->psn = next;
			r->tx_idx++;
			r->tx_off = 0;
			continue;
		}
		if (!op.status) {
			op.clen = min(op.len - op.off, mtu);
			b = vroce_hca_bounce_get(hca);
			op.buf = hca->bounce[b];
			op.status = vroce_hca_op_local(hca, &op, false);
			if (!op.status && !op.paged) {
				first = !op.off;
				last = op.off + op.clen >= op.len;
				slot = op.idx % VROCE_HCA_RC_WQES;
				if (first) {
					r->first[slot] = r->psn;
					s = &r->sent[slot];
					s->wr_id = op.wqe.wr_id;
					s->len = op.len;
					s->imm_inv = op.wqe.imm_inv;
					s->opcode = op.wqe.opcode;
					s->flags = op.wqe.flags;
				}
				if (vroce_hca_psn_diff(r->psn, r->end) >= 0) {
					r->end = (r->psn + 1) & VROCE_PSN_MASK;
					vroce_hca_rc_window(hca, qp);
				}
				vroce_hca_rc_packet(hca, qp, &op, first, last);
			}
			vroce_hca_bounce_put(hca, b);
		}
		if (op.status) {
			/* After the WQEs before it, whose ACKs are asked for. */
			if (r->tx_idx != sq->ci)
				return;
			vroce_hca_rc_complete(hca, qp, &op);
			return;
		}
		/* A page fault: on from here once it is resumed. */
		if (op.paged) {
			vroce_hca_odp_wait(hca, qp);
			r->wait = VROCE_HCA_RC_WAIT_RNR;
			return;
		}
		if (last) {
			r->last[op.idx % VROCE_HCA_RC_WQES] = r->psn;
			r->tx_idx++;
			r->tx_off = 0;
		} else {
			r->tx_off += op.clen;
		}
		r->psn = (r->psn + 1) & VROCE_PSN_MASK;
	}
}

/*
 * A visit of an RC QP that sends as packets: the ACKs and NAKs that came,
 * the timer's end (the ack timeout: from the oldest unacknowledged PSN
 * again, retry_cnt times, then RETRY_EXC_ERR; an RNR NAK's wait: on from
 * its PSN), then packets while the window allows; the ack timer runs
 * while anything is outstanding.
 */
static void vroce_hca_rc_run(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			     u32 budget)
{
	struct vroce_hca_rc_req *r = &qp->rcreq;
	struct vroce_hca_rc_mail m;
	u8 wait;

	if (READ_ONCE(qp->state) != VROCE_QPS_RTS)
		return;
	/*
	 * The inbox as it is now, then the READ responses and ATOMIC ACKs
	 * (every one the receive work queued before those ACKs and NAKs),
	 * then the ACKs and NAKs: one that came after a response must not
	 * find its READ or atomic unanswered.
	 */
	vroce_hca_rc_inbox(hca, qp, &m);
	vroce_hca_rc_resps(hca, qp);
	if (m.ack)
		vroce_hca_rc_acked(hca, qp, m.apsn);
	if (m.nak)
		vroce_hca_rc_naked(hca, qp, m.npsn, m.syndrome);
	if (READ_ONCE(qp->state) != VROCE_QPS_RTS)
		return;
	if (r->wait && !READ_ONCE(qp->rnr_wait)) {
		wait = r->wait;
		r->wait = VROCE_HCA_RC_WAIT_NONE;
		if (wait == VROCE_HCA_RC_WAIT_ACK && r->psn != r->una &&
		    !vroce_hca_rc_retry(hca, qp, r->una))
			return;
	}
	if (r->wait == VROCE_HCA_RC_WAIT_RNR)
		return;
	vroce_hca_rc_send(hca, qp, budget);
	if (READ_ONCE(qp->state) != VROCE_QPS_RTS)
		return;
	if (r->wait == VROCE_HCA_RC_WAIT_RNR)
		return;
	if (r->psn != r->una && r->wait == VROCE_HCA_RC_WAIT_NONE) {
		vroce_hca_rc_timer(hca, qp, vroce_hca_ack_timeout(qp));
		r->wait = VROCE_HCA_RC_WAIT_ACK;
	} else if (r->psn == r->una && r->wait == VROCE_HCA_RC_WAIT_ACK) {
		vroce_hca_rc_timer_stop(hca, qp);
		r->wait = VROCE_HCA_RC_WAIT_NONE;
	}
}

/* Complete the WQE at the head of queue @q of @qp with a flush error. */
static void vroce_hca_flush_one(struct vroce_hca *hca, struct vroce_hca_qp *qp,
				int q)
{
	struct vroce_hca_wq *wq = &qp->wq[q];
	struct vroce_send_wqe wqe = {};	/* big enough for either kind */
	struct vroce_cqe cqe = {
		.qpn = cpu_to_le32(qp->qpn),
		.wqe_idx = cpu_to_le16((u16)wq->ci),
		.status = VROCE_CQE_WR_FLUSH_ERR,
	};

	/* wr_id leads both kinds of WQE; an unreadable one completes as 0. */
	if (vroce_hca_wq_fetch(hca, wq, wq->ci, &wqe))
		cqe.wr_id = wqe.wr_id;
	if (q == VROCE_HCA_RQ)
		cqe.flags = VROCE_CQE_F_RQ;
	else if (wqe.opcode < ARRAY_SIZE(vroce_hca_cqe_opcode))
		cqe.opcode = vroce_hca_cqe_opcode[wqe.opcode];
	if (q == VROCE_HCA_SQ)
		qp->msg_off = 0;	/* a message in progress ends here */
	wq->ci++;
	vroce_hca_cq_post(hca, qp, q == VROCE_HCA_RQ ? qp->rcqn : qp->scqn,
			  &cqe);
}

/*
 * What the doorbells and the QP's state allow, in queue order: at most
 * @budget send WQEs executed (flushes are not counted); a QP with more to
 * do is kicked again, behind the others.
 */
void vroce_hca_qp_run(struct vroce_hca *hca, struct vroce_hca_qp *qp,
		      u32 budget)
{
	struct vroce_hca_wq *sq = &qp->wq[VROCE_HCA_SQ];
	struct vroce_hca_wq *rq = &qp->wq[VROCE_HCA_RQ];
	u64 t = vroce_hca_stage_now(hca);
	u32 b = VROCE_HCA_BOUNCES;
	bool packets;
	u32 state;

	if (READ_ONCE(qp->state) == VROCE_QPS_RESET)
		return;
	vroce_hca_rq_enter(hca, qp);
	vroce_hca_wq_sync(hca, qp, VROCE_HCA_RQ);
	vroce_hca_rq_leave(hca, qp);
	vroce_hca_wq_sync(hca, qp, VROCE_HCA_SQ);
	vroce_hca_stage_add(hca, VROCE_HCA_STAGE_SYNC, &t);
	/* Issue 34: an RC QP of a port on a netdev sends packets. */
	packets = vroce_hca_rc_packets(hca, qp);
	if (packets)
		vroce_hca_rc_run(hca, qp, budget);
	while (sq->ci != sq->pi) {
		/* Another engine may fail this QP at any time. */
		state = READ_ONCE(qp->state);
		if (state == VROCE_QPS_ERR) {
			/* Flushing moves no bytes: the buffer goes back. */
			vroce_hca_bounce_drop(hca, &b);
			vroce_hca_flush_one(hca, qp, VROCE_HCA_SQ);
		} else if (packets) {
			break;
		} else if (!budget--) {
			vroce_hca_qp_kick(hca, qp);
			break;
		} else if (state != VROCE_QPS_RTS || READ_ONCE(qp->rnr_wait) ||
			   !vroce_hca_sq_exec_one(hca, qp, &b)) {
			break;
		}
		/* Another engine may want the buffer while this one waits. */
		if (need_resched())
			vroce_hca_bounce_drop(hca, &b);
		cond_resched();
	}
	vroce_hca_bounce_drop(hca, &b);
	if (READ_ONCE(qp->state) != VROCE_QPS_ERR)
		return;
	/* Issue 34: READ responses no one takes any more. */
	if (packets)
		skb_queue_purge(&hca->qpx[vroce_hca_qp_slot(hca, qp)].resp_q);
	/*
	 * A process posts receives by its record alone, without a doorbell:
	 * while its QP is in ERR the timer work watches the record and
	 * flushes what it finds (vroce_hca_timers_expire()).
	 */
	if (qp->dbrec && !qp->srqn) {
		spin_lock(&hca->timer_lock);
		WRITE_ONCE(hca->timed, true);
		spin_unlock(&hca->timer_lock);
	}
	vroce_hca_rq_enter(hca, qp);
	/*
	 * An SRQ's WQEs are others' too: an attached QP flushes none, but
	 * the one a message over a link took out of it (issue 34).
	 */
	vroce_hca_link_recv_drop(hca, qp, true);
	while (rq->ci != rq->pi) {
		vroce_hca_flush_one(hca, qp, VROCE_HCA_RQ);
		cond_resched();
	}
	vroce_hca_last_wqe(hca, qp);
	vroce_hca_rq_leave(hca, qp);
}
