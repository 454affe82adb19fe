/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce emulated HCA, inside: the device state its files share, and the
 * rules for touching it. The driver never sees this; it sees c/ifc/.
 *
 * Files by role (c/hca/), each calling only files listed after it, so
 * the calls form a DAG (scripts/calls.py c/hca/vroce_hca_*.o checks it
 * after a build):
 *   vroce_hca_bus.c     the platform device and plugging HCAs in, register
 *                       decode (read32, write32, CTRL reset), interrupt
 *                       vectors (request, free, delivery), the debugfs
 *                       directory and knob files
 *   vroce_hca_cmd.c     the command processor: the command ring, the
 *                       fail/drop/delay knobs, QUERY_DEVICE, PD commands
 *   vroce_hca_sched.c   the data path's scheduling: doorbells, the QPs'
 *                       and the timer's work items, the event and hold
 *                       knobs, the engine's life cycle
 *   vroce_hca_ctx.c     QP, CQ and SRQ contexts: their commands
 *   vroce_hca_req.c     the requester: a QP's send queue, each send WQE
 *                       executed through a bounce buffer and completed
 *   vroce_hca_resp.c    the responder: receive WQEs, RNR, RDMA at the
 *                       peer's memory, UD and GSI delivery, the GRH
 *   vroce_hca_comp.c    what the data path's roles share: QP lookups and
 *                       state, writing CQEs and events (the event
 *                       interrupt), RNR and retry waits, the timer
 *   vroce_hca_mpt.c     MPT and PD table, the translation engine, fast
 *                       registration, MR commands
 *   vroce_hca_core.c    what all of them use: the fault injection
 *                       countdown, raising an interrupt, rings in host
 *                       memory
 *   vroce_hca_mtt.c     the table walker (also built by the host harness)
 * Calls: bus -> cmd, sched, mpt, core; cmd -> ctx, comp, mpt, core, mtt;
 * sched -> req, comp, core; ctx -> req, comp, mpt, core; req -> resp, comp,
 * mpt, core; resp -> comp, mpt, core; comp -> core; mpt -> core, mtt;
 * core -> mtt. MODIFY_QP to ERR flushes through the requester, and both
 * sides change QP state: so the commands sit above the requester, and the
 * QP state below the responder.
 *
 * Locking
 * -------
 * @reg_lock, a spinlock taken irqsave (doorbells and register reads may
 *   come from any context), protects the register file regs[], the
 *   doorbell records qp_db[] and cq_db[], the event queue's producer count
 *   eq_pi and the events it writes, and the counters and knobs any engine
 *   changes: eq_lost, ud_dropped, uc_dropped, drop_events.
 *   vroce_hca_reg() asserts it.
 *   It is the innermost lock: under it the HCA takes only the workqueue's
 *   own (a doorbell queues its QP's work under it, so that the CTRL reset
 *   that disabled the HCA flushes that work).
 *
 * @wire_lock, a rw_semaphore (the wire's: every HCA on it shares it), splits
 *   the HCA in two. Held for writing: the command processor, the knobs
 *   (vroce_hca_set_*()) and a reset, which change the MPT, max_mr, the PD
 *   table, and the QP and CQ contexts (their valid slots and attributes);
 *   they run with no engine in (the multicast groups mcg[] too: ATTACH_MCAST,
 *   DETACH_MCAST and DESTROY_QP change them; the GID table gid[] and
 *   gid_valid too: SET_GID and a reset). Held for reading: the data path, which
 *   runs a QP at a time on each CPU, one work item per QP, and reads those
 *   as fixed while it holds it (its own changes take the locks below);
 *   vroce_hca_mr_access() and the vroce_hca_frmr_*() calls read-lock too.
 *   The command processor drops it while it sleeps delay_ms before a
 *   command (engines run then), and the debugfs knob files read and write
 *   their u32 without it, a plain store racing the HCA's own updates
 *   (hence READ_ONCE() of delay_ms and event_delay_ms).
 *
 * Under @wire_lock read-held, the data path's own locks, never two of a
 * kind but the MPT's (below):
 * - qpx[].lock, a mutex per QP slot, protects the QP's receive queue (pi,
 *   ci, and a receive WQE from the moment it is looked at until its CQE
 *   is written). A requester takes its peer's, never its own beside it.
 * - srq_lock[], a mutex per SRQ slot, protects the SRQ's queue (pi, ci,
 *   the limit, a WQE from the look until its CQE is written) for every
 *   QP attached to it, on any engine. Taken only by
 *   vroce_hca_rq_enter() right after the attached QP's qpx[].lock, and
 *   dropped with it: an SRQ is the receive queue of each of its QPs.
 *   A QP's send queue, RNR and retry counts belong to its work item, which
 *   never runs beside itself. Its state moves to ERR by xchg() from any
 *   engine; to anything else only by command.
 * - mpt_lock[], mutexes shared by MPT entries @VROCE_HCA_MPT_LOCKS apart,
 *   protect an entry from the check of a key to the end of the copy, the
 *   REG_MR table load or the invalidation (c/hca/vroce_hca_mpt.c). A
 *   memory window's access and a BIND_MW hold two: the window's and its
 *   MR's, taken in address order, the second with mutex_lock_nested()
 *   (SINGLE_DEPTH_NESTING), one only when both entries share it; no other
 *   path holds two, so engines cannot deadlock on them.
 * - cq_lock[], a spinlock per CQ slot, protects its producer count, ring
 *   and overflow flag.
 * - @timer_lock, a spinlock, protects the RNR waits (a QP's rnr_wait,
 *   rnr_peer, rnr_deadline), the delayed events (a CQ's event_pending,
 *   event_due) and @timed.
 * Nesting: qpx[].lock -> srq_lock[] -> mpt_lock[] -> cq_lock[] ->
 * @timer_lock -> @reg_lock; each may be skipped.
 *
 * qpx[].run, a mutex per QP slot, outside @wire_lock (issue 31, lend):
 *   one engine at a time in a QP's send queue, its work item or a context
 *   a DB_LEND write lent (c/hca/vroce_hca_sched.c). The work item takes
 *   it and then @wire_lock for reading; a lent context only tries both
 *   (mutex_trylock(), down_read_trylock()) and, when either is taken,
 *   leaves the QP to its work item. Never two of them at once.
 *
 * cmd_run, a mutex, outside @wire_lock (issue 33): one command processor
 *   at a time, cmd_work or a context a CMDQ_LEND write lent, which only
 *   tries it (mutex_trylock()) and, when it is taken, leaves the commands
 *   to cmd_work. A CTRL reset waits for it (vroce_hca_cmd_quiesce()).
 *
 * @wq, an ordered workqueue, runs cmd_work; @qp_wq, unbound, runs the
 *   QPs' work items and timer_work. Both are flushed, cancelled
 *   or disabled only without @wire_lock held (CTRL reset,
 *   vroce_hca_engine_quiesce() and _stop(), vroce_hca_del()).
 *
 * Interrupts: vroce_hca_raise_irq() sets the cause under @reg_lock and
 *   queues the vector's work on @irq_wq; it never waits, so the command
 *   processor and the engine raise interrupts with @wire_lock held. Each
 *   vector's irq[].lock, a mutex, protects its handler and data and is
 *   held while the handler runs, so that free_irq waits for a running
 *   handler. The HCA holds no other lock when it takes irq[].lock, and
 *   takes none under it; but the driver's handler uses the bus (it reads
 *   CMDQ_CI, writes EQ_CI and doorbells: @reg_lock; a CTRL reset would
 *   take @wire_lock), so irq[].lock nests outside both. @irq_wq is not ordered:
 *   an event handler may wait for a command, whose response comes on the
 *   other vector (the bus contract, c/ifc/vroce_bus.h).
 *
 * Order: irq[].lock -> qpx[].run or cmd_run -> @wire_lock -> @reg_lock. Leaves, taken with nothing
 * else held: an open mr_read file's lock (c/hca/vroce_hca_mpt.c). The
 * list of plugged-in HCAs and the debugfs root belong to module init and
 * exit (c/hca/vroce_hca_bus.c).
 *
 * Issue 34, a port on a netdev (c/hca/vroce_hca_link.c): the RTNL ->
 * @wire_lock (the cable attached and pulled, the MAC and the link state
 * followed, all under the RTNL; the netdev notifier runs under it);
 * vroce_hca_plug_lock -> the RTNL ('rdma link add'); the list of linked
 * HCAs has a spinlock of its own, a leaf (taken under the RTNL, under a
 * device's lock by the bus notifier, or alone). @rx_queue's lock is the
 * rx_handler's (softirq), taken alone. The receive work runs under
 * @wire_lock read-held, like a QP's visit, and is cancelled under the
 * RTNL without it.
 */
#ifndef _VROCE_HCA_PRIV_H_
#define _VROCE_HCA_PRIV_H_

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/if_ether.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>

#include "vroce_hca.h"
#include "../ifc/vroce_bus.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_regs.h"
#include "../ifc/vroce_wqe.h"

struct dentry;

/* What the HCA offers (QUERY_DEVICE); the QP and CQ limits are c/ifc/'s. */
#define VROCE_HCA_MAX_PD		1024
#define VROCE_HCA_MAX_MR		4096
#define VROCE_HCA_MAX_MR_SIZE		BIT_ULL(37)	/* 128 GiB */
#define VROCE_HCA_PAGE_SIZE_CAP		GENMASK_ULL(30, 12)
#define VROCE_HCA_MAX_FRMR_PAGES	4096

/*
 * QP visits executing send WQEs at once, each with its buffer: a visit
 * keeps it from one message to the next while they are at most
 * VROCE_HCA_BOUNCE_KEEP bytes (some microseconds each).
 */
#define VROCE_HCA_BOUNCES		4
#define VROCE_HCA_BOUNCE_KEEP		SZ_64K
/*
 * A bounce buffer's bytes: a message moves through it a chunk at a time,
 * and at most VROCE_HCA_VISIT_CHUNKS chunks in one visit of its QP.
 */
#define VROCE_HCA_BOUNCE_SIZE		SZ_1M
#define VROCE_HCA_VISIT_CHUNKS		8
/* MPT entry locks, shared by entries a multiple of this apart. */
#define VROCE_HCA_MPT_LOCKS		64

enum vroce_hca_mr_state {
	VROCE_HCA_MR_FREE = 0,		/* slot unused */
	VROCE_HCA_MR_VALID,		/* translates */
	VROCE_HCA_MR_FRMR_INVALID,	/* fast-reg MR not registered yet */
	VROCE_HCA_MW_UNBOUND,		/* a type 2 window bound to nothing */
};

/*
 * The kind of an MPT entry that is a memory window (issue 30): not one of
 * CREATE_MR's VROCE_MR_KIND_*, so that no MR path takes it for an MR.
 */
#define VROCE_HCA_KIND_MW		0xff

/* One memory protection table entry. */
struct vroce_hca_mpt {
	enum vroce_hca_mr_state state;
	u8 tag;			/* the consumer's key byte */
	u8 gen;			/* CREATE_MR's, in the handle */
	u8 kgen;		/* in the key: bumped by CREATE_MR and ENABLE_MR */
	bool enabled;		/* made a user MR by ENABLE_MR */
	u32 pdn;
	u32 access;
	u32 kind;
	u64 iova;
	u64 length;
	struct vroce_hca_mtt mtt;
	/* Windows (kind VROCE_HCA_KIND_MW): access, iova, length as bound. */
	u8 mw_type;		/* VROCE_MW_TYPE_* */
	u32 mw_mr_key;		/* the full key of the MR it is bound to */
	u32 mw_qpn;		/* type 2: the QP it is bound to */
};

/**
 * struct vroce_hca_ring - a ring in host memory, as the HCA reaches it
 * @mtt: its translation, one region
 * @depth_log2: entries = 2^n
 * @entry_size: bytes per entry, a power of two no larger than a page
 */
struct vroce_hca_ring {
	struct vroce_hca_mtt mtt;
	u32 depth_log2;
	u32 entry_size;
};

/**
 * struct vroce_hca_wq - the HCA's side of a send or receive queue
 * @ring: the WQEs
 * @pi: producer count as far as doorbells told, widened to 32 bits
 * @ci: consumer count: WQEs the HCA has completed
 */
struct vroce_hca_wq {
	struct vroce_hca_ring ring;
	u32 pi;
	u32 ci;
};

/* Doorbell record and queue index of a QP's send and receive queue. */
#define VROCE_HCA_SQ		0
#define VROCE_HCA_RQ		1

/*
 * Issue 34: the headers around a RoCE v2 packet's payload at most (IPv6,
 * UDP, BTH, the largest extension headers, ICRC), as iboe_get_mtu().
 */
#define VROCE_HCA_ROCE_HDRS	(40 + 8 + 12 + 4 + 28 + 4)

/* Issue 34: @a - @b in PSN space (24 bits): negative when @a is older. */
static inline s32 vroce_hca_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/* PSNs a READ may take: far below half the PSN space. */
#define VROCE_HCA_RC_READ_PSNS	BIT(22)

/* Issue 34: an RC requester's window over packets (rxe's is 128 PSNs). */
#define VROCE_HCA_RC_WQES	16	/* send WQEs outstanding */
#define VROCE_HCA_RC_PSNS	128	/* PSNs not acknowledged */
#define VROCE_HCA_RC_RESP_QUEUE	512	/* READ responses waiting for a visit */

/* What the QP's timer waits for (struct vroce_hca_rc_req's @wait). */
enum vroce_hca_rc_wait {
	VROCE_HCA_RC_WAIT_NONE = 0,
	VROCE_HCA_RC_WAIT_ACK,		/* the local ack timeout */
	VROCE_HCA_RC_WAIT_RNR,		/* an RNR NAK's timer */
};

/**
 * struct vroce_hca_rc_sent - what completes a send WQE sent as packets
 * @wr_id: the WQE's
 * @len: its message length
 * @imm_inv: its immediate data, as posted
 * @opcode: its VROCE_WQE_* opcode
 * @flags: its VROCE_WQE_F_* flags
 *
 * Kept from its first packet on: the ring's copy may change meanwhile.
 */
struct vroce_hca_rc_sent {
	__le64 wr_id;
	u32 len;
	__le32 imm_inv;
	u8 opcode;
	u8 flags;
};

/**
 * struct vroce_hca_rc_req - an RC QP's requester over packets (issue 34)
 * @psn: the PSN of the next packet to send
 * @una: the oldest PSN not acknowledged (@psn when none is outstanding)
 * @end: one past the newest PSN sent since @una (a rewind lowers @psn,
 *	not @end: an ACK of what was sent before it still counts)
 * @tx_idx: the send WQE being sent (an SQ count: the consumer index
 *	moves only when a WQE completes)
 * @tx_off: bytes of it sent
 * @first: first PSN of each outstanding WQE, by SQ count modulo
 *	VROCE_HCA_RC_WQES
 * @last: last PSN of each, likewise
 * @sent: what completes each, likewise
 * @wait: enum vroce_hca_rc_wait: what the QP's timer (rnr_wait and
 *	rnr_deadline) stands for; the timer ended it when rnr_wait is clear
 * @retry_left: retries left after the ack timeout or a sequence NAK
 * @rnr_left: retries left after RNR NAKs (rnr_retry 7: forever)
 * @gap: READ responses were found lost at @una, and asked for again
 *
 * Touched by the QP's visits only (qpx[].run held, @hca->wire_lock
 * read-held) and by MODIFY_QP (write-held); acknowledgements come
 * through the slot's inbox (struct vroce_hca_qp_exec).
 */
struct vroce_hca_rc_req {
	u32 psn;
	u32 una;
	u32 end;
	u32 tx_idx;
	u32 tx_off;
	u32 first[VROCE_HCA_RC_WQES];
	u32 last[VROCE_HCA_RC_WQES];
	struct vroce_hca_rc_sent sent[VROCE_HCA_RC_WQES];
	u8 wait;
	u8 retry_left;
	u8 rnr_left;
	bool gap;
};

/*
 * A READ or atomic request the responder carried out (struct
 * vroce_hca_rc_resp): @op5 its opcode (VROCE_OP_READ_REQUEST,
 * VROCE_OP_COMPARE_SWAP or VROCE_OP_FETCH_ADD), @orig an atomic's
 * original value, which its duplicates are answered with.
 */
struct vroce_hca_rc_read {
	u8 op5;
	u32 psn;
	u32 n;
	u64 va;
	u32 len;
	u32 rkey;
	u64 orig;
};

/**
 * struct vroce_hca_rc_resp - an RC QP's responder over packets (issue 34)
 * @psn: the PSN expected next
 * @ack_psn: the last PSN of a SEND or WRITE carried out: what a duplicate
 *	is acknowledged with (never a READ's, which only its responses end)
 * @msn: messages completed (24 bits), for the AETH
 * @nak_sent: a sequence-error NAK told the requester of this gap already
 * @busy: a message is in progress (its FIRST packet taken)
 * @send: ... and it is a SEND, else an RDMA WRITE
 * @off: its bytes placed so far
 * @va: RDMA WRITE: the RETH's address
 * @rkey: RDMA WRITE: the RETH's R_Key
 * @resid: RDMA WRITE: bytes of the RETH's length still to come
 * @recv_ci: SEND: the consumer index of the receive its first packet
 *	took (the receive queue's, or the SRQ's)
 * @srq_held: a SEND of several packets to a QP on an SRQ holds @srq_wqe,
 *	the copy of the receive its first packet took out of the SRQ (whose
 *	slot went back to the driver at once, as rxe's srq_wqe), until its
 *	last packet completes it; under the QP's receive queue lock
 *	(vroce_hca_rq_enter()), which the QP's flush in ERR takes too
 * @srq_wqe: that copy
 * @reads: the last READ and atomic requests carried out,
 *	VROCE_MAX_RD_ATOMIC of them (a requester has no more outstanding):
 *	their first PSN, PSNs, address, length and R_Key, which a duplicate
 *	must match, and an atomic's original value
 * @read_next: where the next goes in @reads
 *
 * Touched by the link's receive work only (@hca->wire_lock read-held;
 * one work per HCA) and by MODIFY_QP (write-held).
 */
struct vroce_hca_rc_resp {
	u32 psn;
	u32 ack_psn;
	u32 msn;
	bool nak_sent;
	bool busy;
	bool send;
	u32 off;
	u64 va;
	u32 rkey;
	u32 resid;
	u32 recv_ci;
	bool srq_held;
	struct vroce_recv_wqe srq_wqe;
	struct vroce_hca_rc_read reads[VROCE_MAX_RD_ATOMIC];
	u8 read_next;
};

/**
 * struct vroce_hca_qp - a queue pair context
 * @valid: the slot holds a QP
 * @type: enum vroce_qp_type
 * @qpn: its number, VROCE_QPN_BASE + slot (slot 0: the GSI QP)
 * @pdn: its protection domain
 * @scqn: CQ of the send queue
 * @rcqn: CQ of the receive queue
 * @sq_sig_all: every send WQE completes
 * @state: enum vroce_qp_state
 * @dest_qpn: the peer
 * @access: VROCE_ACC_REMOTE_* the peer may use on this QP
 * @rnr_retry: RNR retries of each send, 7: forever
 * @min_rnr_timer: IB_RNR_TIMER_* code a requester waits after an RNR here
 * @retry_cnt: transport retries of a request nothing answers
 * @timeout: local ack timeout code: 4.096 us * 2^timeout between them
 * @qkey: UD and GSI: the Q_Key a message must carry to be received here
 * @dmac: RC: the Ethernet address of the peer's port (this HCA's for
 *	loopback, another's across the wire)
 * @wq: the send (VROCE_HCA_SQ) and receive (VROCE_HCA_RQ) queue
 * @rnr_active: the head send WQE met an empty receive queue
 * @rnr_wait: ... and waits for @rnr_deadline or a receive at @rnr_peer
 *	(also while it waits the ack timeout after no answer)
 * @rnr_left: RNR retries left for the head send WQE
 * @rnr_peer: slot of the QP on this HCA whose receive queue it waits for,
 *	U32_MAX when only the timer ends the wait
 * @rnr_deadline: jiffies of the next retry
 * @retry_active: the head send WQE found no answer
 * @retry_left: transport retries left for it
 * @srqn: the SRQ the QP takes receives from, 0: its own receive queue
 * @last_wqe: the LAST_WQE event of an attached QP in ERR was written
 *	(under the QP's RQ lock; cleared by RESET)
 * @msg_off: bytes of the head send WQE's message moved in earlier visits
 *	(a message above VROCE_HCA_VISIT_CHUNKS bounce buffers), else 0
 * @msg_gen: with @msg_off: the generation of the peer's slot (struct
 *	vroce_hca_qp_exec) the message began at
 * @msg_phca: with @msg_off: the peer's HCA (compared, never followed)
 * @unpriv: a process's QP (CREATE_QP's VROCE_QP_F_UNPRIV): its WQEs may
 *	name no privileged work request or key (vroce_hca_req.c)
 * @msg_opcode: with @msg_off: the opcode of the message in progress, which
 *	a WQE fetched again at a later visit must still carry
 * @dbrec: DMA address of the QP's doorbell record (QP_DBREC), 0: none;
 *	the producer indexes then come from it, not from DB_SQ and DB_RQ
 * @path: issue 34 (VROCE_CAP_QP_PATH): what packets of an RC or UC QP
 *	carry, and its PSNs, as MODIFY_QP set them; zero after RESET
 * @rc: issue 34: the responder's state over packets
 * @rcreq: issue 34: the requester's state over packets
 */
struct vroce_hca_qp {
	bool valid;
	u8 type;
	u32 qpn;
	u32 pdn;
	u32 scqn;
	u32 rcqn;
	bool sq_sig_all;
	u32 state;
	u32 dest_qpn;
	u32 access;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 retry_cnt;
	u8 timeout;
	u32 qkey;
	u8 dmac[ETH_ALEN];
	struct vroce_hca_wq wq[2];
	bool rnr_active;
	bool rnr_wait;
	u8 rnr_left;
	u32 rnr_peer;
	unsigned long rnr_deadline;
	bool retry_active;
	u8 retry_left;
	u32 srqn;
	bool last_wqe;
	/* issue 30, big messages */
	u32 msg_off;
	u32 msg_gen;
	const struct vroce_hca *msg_phca;
	/* issue 31, hca: a process's QP */
	bool unpriv;
	u8 msg_opcode;
	/* issue 31, mapped rings: see vroce_hca_dbrec_read() */
	u64 dbrec;
	struct vroce_hca_qp_path path;
	struct vroce_hca_rc_resp rc;
	struct vroce_hca_rc_req rcreq;
};

/* Issue 34: the PSNs a READ of @len bytes takes: one per response packet. */
static inline u32 vroce_hca_rc_read_psns(const struct vroce_hca_qp *qp,
					 u32 len)
{
	u32 mtu = 128U << qp->path.mtu;

	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/**
 * struct vroce_hca_srq - a shared receive queue context
 * @valid: the slot holds an SRQ
 * @srqn: its number, VROCE_SRQN_BASE + slot
 * @pdn: its protection domain: receive SGEs are checked against it
 * @wq: its receive WQEs; pi and ci under the slot's srq_lock
 * @limit: armed limit, 0: not armed; under the slot's srq_lock
 * @users: QPs attached (commands only)
 * @dbrec: DMA address of the SRQ's doorbell record, 0: none (DB_SRQ)
 */
struct vroce_hca_srq {
	bool valid;
	u32 srqn;
	u32 pdn;
	struct vroce_hca_wq wq;
	u32 limit;
	u32 users;
	u64 dbrec;
};

/**
 * struct vroce_hca_cq - a completion queue context
 * @valid: the slot holds a CQ
 * @ring: the CQEs
 * @pi: producer count: CQEs written
 * @users: send and receive queues completing here
 * @overflowed: a CQE was lost (reported once)
 * @event_pending: a delayed completion event is due at @event_due
 * @event_due: jiffies
 * @dbrec: DMA address of the CQ's doorbell record, 0: none (the consumer
 *	index comes by DB_CQ)
 */
struct vroce_hca_cq {
	bool valid;
	struct vroce_hca_ring ring;
	u32 pi;
	u32 users;
	bool overflowed;
	bool event_pending;
	unsigned long event_due;
	u64 dbrec;
};

/**
 * struct vroce_hca_qp_db - the doorbell record of a QP
 * @pi: the last producer index rung, per queue (VROCE_HCA_SQ/RQ)
 */
struct vroce_hca_qp_db {
	u16 pi[2];
};

/**
 * struct vroce_hca_cq_db - the doorbell record of a CQ
 * @ci: the last consumer index rung
 * @arm: VROCE_DB_CQ_CMD_ARM_NEXT or _ARM_SOL while armed, else 0
 */
struct vroce_hca_cq_db {
	u16 ci;
	u8 arm;
};

/**
 * struct vroce_hca_irq - one interrupt vector
 * @hca: the HCA
 * @lock: protects @handler and @data; held while the handler runs
 * @handler: the driver's handler, NULL when none is connected
 * @data: its argument
 * @work: delivers the interrupt, on &vroce_hca.irq_wq
 */
struct vroce_hca_irq {
	struct vroce_hca *hca;
	struct mutex lock;	/* protects handler, data */
	void (*handler)(void *data);
	void *data;
	struct work_struct work;
};

/**
 * struct vroce_hca_qp_exec - what runs a QP, kept across its contexts
 * @hca: the HCA
 * @work: visits the QP (vroce_hca_sched.c), on &vroce_hca.qp_wq; a work
 *	item never runs beside itself, so a QP's WQEs execute in order
 * @lock: protects the QP's receive queue: its pi and ci, and a receive
 *	WQE from the moment it is looked at until it completes
 * @gen: bumped by every CREATE_QP of the slot and every move to RESET
 *	(commands only): a message resumed at a later visit is still for
 *	the QP it began at only if the generation is the same
 * @run: (issue 31, lend) held by whatever executes the QP's send queue:
 *	its work item, or a context lent by a DB_LEND write; so that the
 *	QP's WQEs run in one context at a time, in order
 * @rung_ns: (issue 33) while the stage clock runs, when the first doorbell
 *	the next visit answers was rung; 0: none since the last visit began
 * @ack_lock: (issue 34) protects the inbox of the RC requester over
 *	packets: what the link's receive work found for the QP, for its
 *	next visit (vroce_hca_rc_ack_in())
 * @ack_new: an ACK came since the last visit
 * @ack_psn: ... the newest PSN ACKs covered
 * @nak_new: an RNR NAK or NAK came since the last visit
 * @nak_psn: ... the PSN of the last one
 * @nak_syndrome: ... and its AETH syndrome
 * @win_una: the PSNs an ACK or NAK may name, [@win_una, @win_end): sent
 *	and not acknowledged, as the visits last said
 * @win_end: ... the end
 * @resp_q: READ responses the receive work found for the QP, for its
 *	next visit (vroce_hca_rc_resp_in()); its own lock
 */
struct vroce_hca_qp_exec {
	struct vroce_hca *hca;
	struct work_struct work;
	struct mutex lock;	/* protects the RQ */
	u32 gen;
	struct mutex run;	/* one engine in the SQ at a time */
	u64 rung_ns;
	spinlock_t ack_lock;	/* protects the inbox below */
	bool ack_new;
	u32 ack_psn;
	bool nak_new;
	u32 nak_psn;
	u8 nak_syndrome;
	u32 win_una;
	u32 win_end;
	struct sk_buff_head resp_q;
};

/**
 * struct vroce_hca_mcg - a multicast group: the UD QPs a datagram to @gid
 *	reaches on this HCA
 * @gid: the group's multicast GID
 * @nqp: QPs in @qpn; 0: the entry is free
 * @qpn: the QPs attached, in the order they were
 */
struct vroce_hca_mcg {
	u8 gid[16];
	u32 nqp;
	u32 qpn[VROCE_MAX_MCG_QP];
};

/*
 * With the VROCE_ACC_* rights asked of vroce_hca_mr_access_locked() and
 * vroce_hca_mr_atomic_locked(): the key comes from a WQE of an
 * unprivileged QP, and a DMA MR (all of memory, by bus address) refuses
 * it as another PD's MR does (-VROCE_HCA_EPD).
 */
#define VROCE_HCA_ACC_UNPRIV		BIT(31)

/*
 * Review of issue 31: how often the timer work looks at the receive
 * record of a mapped QP in ERR (vroce_hca_qp_err_scan()).
 */
#define VROCE_HCA_ERR_SCAN_JIFFIES	max(1UL, msecs_to_jiffies(10))

/*
 * A QP in ERR whose receives a process posts by its record alone (mapped,
 * no SRQ): the timer work watches that record to flush what comes.
 * Context: @hca->timer_lock held (the state may move to ERR beside it).
 */
static inline bool vroce_hca_qp_err_scan(const struct vroce_hca_qp *qp)
{
	return qp->valid && qp->dbrec && !qp->srqn &&
	       READ_ONCE(qp->state) == VROCE_QPS_ERR;
}

/* The rights @access asked for a key taken from a WQE of @qp. */
static inline u32 vroce_hca_qp_acc(const struct vroce_hca_qp *qp, u32 access)
{
	return qp->unpriv ? access | VROCE_HCA_ACC_UNPRIV : access;
}

/* A UD or GSI QP: it sends and receives datagrams. */
static inline bool vroce_hca_qp_datagram(const struct vroce_hca_qp *qp)
{
	return qp->type == VROCE_QPT_UD || qp->type == VROCE_QPT_GSI;
}

/* RoCE v2 over IPv4 when both GIDs are IPv4-mapped, else over IPv6. */
static inline u8 vroce_hca_net_type(const struct vroce_wqe_av *av)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)av->sgid) &&
	       ipv6_addr_v4mapped((const struct in6_addr *)av->dgid) ?
	       VROCE_NET_IPV4 : VROCE_NET_IPV6;
}

/* An rnr_retry of this retries forever. */
#define VROCE_HCA_RNR_FOREVER		7

/* One send WQE on its way through the engine. */
struct vroce_hca_op {
	struct vroce_hca_qp *qp;
	struct vroce_hca_qp *peer;
	struct vroce_hca *phca;		/* the peer's HCA: this one, or across the wire */
	struct vroce_send_wqe wqe;	/* the HCA's own copy */
	u8 *buf;			/* the message: a bounce buffer */
	u32 idx;			/* its SQ count */
	u32 len;			/* message length */
	u32 rlen;			/* bytes placed at the receiver */
	u8 status;			/* the requester's completion */
	bool rnr;			/* no receive: retry later */
	bool lost;			/* no answer: retry after the ack timeout */
	bool paged;			/* issue 33: a page fault: run it again */
	bool unsent;			/* issue 34: a datagram lost at the link */
	/* issue 30, big messages: the chunk in the bounce buffer */
	u32 off;			/* its first byte in the message */
	u32 clen;			/* its bytes */
	bool more;			/* the message goes on at the next visit */
	/* issue 34: a datagram off the link (@qp is NULL): its sender */
	u32 sqpn;			/* the source QP (DETH) */
	const u8 *smac;			/* the Ethernet source */
};

/* States of a fault slot (c/hca/vroce_hca_odp.c). */
enum vroce_hca_pf_state {
	VROCE_HCA_PF_FREE = 0,
	VROCE_HCA_PF_PENDING,	/* raised, not ended by the driver */
	VROCE_HCA_PF_FAILED,	/* ended unresolved: fails the next access */
};

/**
 * struct vroce_hca_pf - a fault slot: a page fault of an ODP MR (issue 33)
 * @state: enum vroce_hca_pf_state
 * @write: the access stores
 * @qpn: the QP of this HCA whose access raised it (VROCE_HCA_ANY_QP: a
 *	reader of the HCA's own); a failure fails that QP's access only
 * @handle: the MR's handle
 * @iova: the first address without an entry
 * @len: bytes from @iova the access needs
 * @since: jiffies when raised or ended
 */
struct vroce_hca_pf {
	u8 state;
	bool write;
	u32 qpn;
	u32 handle;
	u64 iova;
	u64 len;
	unsigned long since;
};

/*
 * Issue 33: @err, from the translation engine, is a page fault: the op
 * stops, nothing failed, and its WQE runs again (vroce_hca_odp_wait()).
 */
static inline bool vroce_hca_op_paged(struct vroce_hca_op *op, int err)
{
	if (err != -VROCE_HCA_EPAGE)
		return false;
	op->paged = true;
	return true;
}

struct vroce_hca {
	struct platform_device *pdev;
	u8 mac[ETH_ALEN];		/* the port's, random, set at plug-in */

	spinlock_t reg_lock;		/* protects regs[] to eq_pi */
	u32 regs[VROCE_BAR_SIZE / sizeof(u32)];
	struct vroce_hca_qp_db qp_db[VROCE_MAX_QP];
	struct vroce_hca_cq_db cq_db[VROCE_MAX_CQ];
	u16 srq_db[VROCE_MAX_SRQ];	/* the last SRQ producer index rung */
	u32 eq_pi;			/* event queue producer count */

	/*
	 * The wire's lock (vroce_hca_wire_lock()), shared by every HCA on
	 * the wire: it protects mpt to mcg of all of them, so that
	 * an engine may deliver into another HCA's QPs, MRs and CQs.
	 */
	struct rw_semaphore *wire_lock;
	struct list_head wire_node;	/* on the wire's list, under wire_lock */
	/* MPT and PDs (c/hca/vroce_hca_mpt.c; PDs made by vroce_hca_cmd.c). */
	struct vroce_hca_mpt *mpt;
	struct mutex mpt_lock[VROCE_HCA_MPT_LOCKS];	/* entry i: [i % n] */
	u32 max_mr;			/* MPT entries in use, VROCE_HCA_MAX_MR at most */
	unsigned long *pd_map;
	/* Command knobs (c/hca/vroce_hca_cmd.c), also set by debugfs. */
	u32 fail_cmds;
	u32 fail_status;
	u32 drop_cmds;
	u32 delay_ms;
	u32 fault_opcode;		/* fail/drop only this opcode; 0: any */
	u32 caps;			/* VROCE_CAP_* QUERY_DEVICE offers */
	/*
	 * Health knobs (also set by debugfs): the firmware hangs (nothing is
	 * carried out, the heartbeat stands at @beat) or fails (HEALTH's
	 * FATAL too); under reg_lock, cleared by reset.
	 */
	u32 hang;
	u32 fatal;
	u32 beat;

	/* Data path (c/hca/vroce_hca_sched.c and the files it calls). */
	struct vroce_hca_qp *qps;	/* VROCE_MAX_QP slots */
	struct vroce_hca_cq *cqs;	/* VROCE_MAX_CQ slots */
	struct vroce_hca_qp_exec *qpx;	/* VROCE_MAX_QP: work and RQ lock */
	struct vroce_hca_srq *srqs;	/* VROCE_MAX_SRQ slots */
	struct mutex *srq_lock;		/* VROCE_MAX_SRQ: protects an SRQ's queue */
	spinlock_t *cq_lock;		/* VROCE_MAX_CQ: protects a CQ's ring */
	spinlock_t timer_lock;		/* protects the waits and timed */
	struct semaphore bounce_sem;	/* bounce buffers free */
	unsigned long bounce_busy;	/* bit per bounce buffer taken */
	void *bounce[VROCE_HCA_BOUNCES];	/* VROCE_HCA_BOUNCE_SIZE each */
	atomic_t eq_raise;		/* EQEs written since the last interrupt */
	bool timed;			/* an RNR wait or delayed event may exist */
	u32 drop_events;		/* event knobs, also set by debugfs */
	u32 event_delay_ms;
	u32 eq_lost;			/* events the EQ could not take */
	u32 hold_qpn;			/* knob: this QP's engine waits */
	wait_queue_head_t hold_wq;	/* ... here, until it changes */
	/* Issue 33: page faults of ODP MRs (c/hca/vroce_hca_odp.c). */
	spinlock_t pf_lock;		/* protects pf[] */
	struct vroce_hca_pf pf[VROCE_PAGE_FAULT_SLOTS];
	u32 ud_dropped;			/* UD messages no QP took */
	u32 uc_dropped;			/* UC messages the responder dropped */
	/* Multicast groups (ATTACH_MCAST), under wire_lock like the QPs. */
	struct vroce_hca_mcg mcg[VROCE_MAX_MCG];
	/*
	 * Review of issue 31: the port's GID table (SET_GID), under
	 * wire_lock like the QPs: bit i of gid_valid says gid[i] holds one.
	 */
	u8 gid[VROCE_MAX_GID][16];
	u32 gid_valid;
	/* The port's counters (enum vroce_counter), atomic: no lock. */
	atomic64_t cnt[VROCE_CNT_NUM];
	/*
	 * issue 31: CQs with a record armed by DB_CQ, whose unread CQEs the
	 * timer work checks (vroce_hca_cq_arm_checks()); atomic bitops.
	 */
	DECLARE_BITMAP(cq_arm_check, VROCE_MAX_CQ);

	/* Set up by vroce_hca_add(), unchanged until vroce_hca_del(). */
	struct workqueue_struct *wq;	/* ordered: one work item at a time */
	struct workqueue_struct *irq_wq;	/* interrupt delivery */
	struct vroce_hca_irq irq[VROCE_NUM_IRQS];
	struct workqueue_struct *qp_wq;	/* unbound: each QP's work */
	struct work_struct cmd_work;
	/*
	 * Issue 33: held by whatever carries out commands, cmd_work or a
	 * context lent by CMDQ_LEND (which only tries it); outside @wire_lock.
	 */
	struct mutex cmd_run;
	/* Issue 33: the stage clock runs, its sums (vroce_hca_stage_clock()). */
	bool stage_on;
	atomic64_t stage_ns[VROCE_HCA_STAGES];
	atomic64_t stage_visits;
	atomic64_t stage_wqes;
	struct delayed_work timer_work;	/* RNR retries, delayed events */
	struct dentry *debugfs;
	bool stopped;			/* vroce_hca_engine_stop() began */

	/*
	 * Issue 34: the netdev the port is cabled to (vroce_hca_link.c), or
	 * NULL: the port is on the in-kernel wire. Set before the HCA is
	 * plugged in; cleared under @wire_lock for writing with the RTNL
	 * held, read by the engine under @wire_lock.
	 */
	struct net_device *link;
	/*
	 * Set with @link, never cleared: the port reaches others by packets
	 * only, also once the cable was pulled (a datagram is then lost).
	 */
	bool linked;
	netdevice_tracker link_tracker;
	struct sk_buff_head rx_queue;	/* packets for @rx_work, its own lock */
	struct work_struct rx_work;	/* carries packets out, on qp_wq */
	u8 *rx_buf;			/* @rx_work's message buffer */
	u8 *rx_pkt;			/* @rx_work's copy of a fragmented packet */
	struct list_head link_node;	/* on the board's list of linked HCAs */
	struct work_struct unplug_work;	/* the link went away: unplug */
};

/*
 * Queue engine work on @qp_wq: a QP's visit (@w) or the timer (after
 * @delay jiffies); nothing once vroce_hca_engine_stop() began, so that
 * it can stop work that queues other work (it cancels twice).
 */
static inline void vroce_hca_queue(struct vroce_hca *hca, struct work_struct *w)
{
	if (!READ_ONCE(hca->stopped))
		queue_work(hca->qp_wq, w);
}

static inline void vroce_hca_timer(struct vroce_hca *hca, unsigned long delay)
{
	if (!READ_ONCE(hca->stopped))
		mod_delayed_work(hca->qp_wq, &hca->timer_work, delay);
}

static inline struct device *vroce_hca_dev(struct vroce_hca *hca)
{
	return &hca->pdev->dev;
}

/* A register's value; the caller holds @reg_lock. */
/* The firmware hangs or failed (health knobs): it carries nothing out. */
static inline bool vroce_hca_hung(struct vroce_hca *hca)
{
	return READ_ONCE(hca->hang) || READ_ONCE(hca->fatal);
}

static inline u32 vroce_hca_reg(struct vroce_hca *hca, u32 off)
{
	lockdep_assert_held(&hca->reg_lock);
	return hca->regs[off / sizeof(u32)];
}

/* Now, for @hca's stage clock (issue 33); 0 while it stops. */
static inline u64 vroce_hca_stage_now(struct vroce_hca *hca)
{
	return unlikely(READ_ONCE(hca->stage_on)) ? ktime_get_ns() : 0;
}

/* Add the time since *@t (when clocked) to @stage; *@t becomes now. */
static inline void vroce_hca_stage_add(struct vroce_hca *hca,
				       enum vroce_hca_stage stage, u64 *t)
{
	u64 now;

	if (!*t)
		return;
	now = ktime_get_ns();
	atomic64_add(now - *t, &hca->stage_ns[stage]);
	*t = now;
}

/* Count @n events of counter @c (enum vroce_counter); any context. */
static inline void vroce_hca_count(struct vroce_hca *hca, u32 c, u64 n)
{
	atomic64_add(n, &hca->cnt[c]);
}

/*
 * Review of issue 31: whether @sgid, a datagram's source GID, is one of
 * the port's (SET_GID); always true for an HCA without a GID table.
 * Context: @hca->wire_lock held (for reading at least).
 */
static inline bool vroce_hca_sgid_ok(const struct vroce_hca *hca,
				     const u8 *sgid)
{
	u32 i;

	if (!(hca->caps & VROCE_CAP_GID_TABLE))
		return true;
	for (i = 0; i < VROCE_MAX_GID; i++)
		if ((hca->gid_valid & BIT(i)) && !memcmp(hca->gid[i], sgid, 16))
			return true;
	return false;
}

/* The packets a message of @len bytes is cut into by a 4096-byte MTU. */
static inline u64 vroce_hca_packets(u64 len)
{
	return len ? DIV_ROUND_UP_ULL(len, VROCE_MAX_UD_MSG) : 1;
}

/* c/hca/vroce_hca_link.c */
int vroce_hca_link_attach(struct vroce_hca *hca, struct net_device *ndev);
void vroce_hca_link_detach(struct vroce_hca *hca);
void vroce_hca_link_mac(struct vroce_hca *hca);
void vroce_hca_link_state(struct vroce_hca *hca);
struct vroce_hca *vroce_hca_link_of(const struct net_device *ndev);
void vroce_hca_link_free(struct vroce_hca *hca);
/* issue 34: c/hca/vroce_hca_xmit.c */
struct vroce_frame;
u16 vroce_hca_link_sport(u32 sqpn, u32 dqpn);
int vroce_hca_link_xmit(struct vroce_hca *hca, const struct vroce_frame *f,
			const u8 *dmac);
void vroce_hca_link_send_ud(struct vroce_hca *hca, struct vroce_hca_op *op,
			    u32 qkey);
/* issue 34: c/hca/vroce_hca_req.c, the RC requester over packets */
void vroce_hca_rc_ack_in(struct vroce_hca *hca, const struct vroce_frame *f);
bool vroce_hca_rc_resp_in(struct vroce_hca *hca, const struct vroce_frame *f,
			  struct sk_buff *skb);
void vroce_hca_rc_req_reset(struct vroce_hca *hca, struct vroce_hca_qp *qp);
/* issue 34: c/hca/vroce_hca_rc.c, the RC responder over packets */
void vroce_hca_rc_recv(struct vroce_hca *hca, const struct vroce_frame *f);
void vroce_hca_rc_resp_end(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			   bool flush);

/* c/hca/vroce_hca_cmd.c */
void vroce_hca_cmd_init(struct vroce_hca *hca);
void vroce_hca_cmd_lend(struct vroce_hca *hca, u32 end);
void vroce_hca_cmd_quiesce(struct vroce_hca *hca);
void vroce_hca_gid_reset(struct vroce_hca *hca);

/* c/hca/vroce_hca_sched.c */
int vroce_hca_engine_alloc(struct vroce_hca *hca);
void vroce_hca_engine_free(struct vroce_hca *hca);
void vroce_hca_engine_quiesce(struct vroce_hca *hca);
void vroce_hca_engine_stop(struct vroce_hca *hca);
void vroce_hca_engine_reset(struct vroce_hca *hca);
bool vroce_hca_doorbell(struct vroce_hca *hca, u32 off, u32 val);

/* c/hca/vroce_hca_ctx.c */
bool vroce_hca_pd_busy(struct vroce_hca *hca, u32 pdn);
u16 vroce_hca_create_cq(struct vroce_hca *hca,
			const struct vroce_cmd_create_cq *cmd,
			struct vroce_resp_create_cq *resp);
u16 vroce_hca_destroy_cq(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_cq *cmd);
u16 vroce_hca_resize_cq(struct vroce_hca *hca,
			const struct vroce_cmd_resize_cq *cmd,
			struct vroce_resp_resize_cq *resp);
u16 vroce_hca_create_qp(struct vroce_hca *hca,
			const struct vroce_cmd_create_qp *cmd,
			struct vroce_resp_create_qp *resp);
u16 vroce_hca_modify_qp(struct vroce_hca *hca,
			const struct vroce_cmd_modify_qp *cmd);
u16 vroce_hca_destroy_qp(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_qp *cmd);
u16 vroce_hca_attach_mcast(struct vroce_hca *hca,
			   const struct vroce_cmd_mcast *cmd);
u16 vroce_hca_detach_mcast(struct vroce_hca *hca,
			   const struct vroce_cmd_mcast *cmd);
u16 vroce_hca_create_srq(struct vroce_hca *hca,
			 const struct vroce_cmd_create_srq *cmd,
			 struct vroce_resp_create_srq *resp);
u16 vroce_hca_modify_srq(struct vroce_hca *hca,
			 const struct vroce_cmd_modify_srq *cmd);
u16 vroce_hca_destroy_srq(struct vroce_hca *hca,
			  const struct vroce_cmd_srq *cmd);
u16 vroce_hca_query_srq(struct vroce_hca *hca, const struct vroce_cmd_srq *cmd,
			struct vroce_resp_query_srq *resp);
u16 vroce_hca_qp_dbrec(struct vroce_hca *hca,
		       const struct vroce_cmd_qp_dbrec *cmd);

/* c/hca/vroce_hca_req.c */
void vroce_hca_qp_run(struct vroce_hca *hca, struct vroce_hca_qp *qp,
		      u32 budget);

/* c/hca/vroce_hca_resp.c */
bool vroce_hca_peer_allows(struct vroce_hca *hca, struct vroce_hca_op *op,
			   u32 right);
bool vroce_hca_remote(struct vroce_hca *hca, struct vroce_hca_op *op,
		      u32 right, bool write);
struct vroce_hca_qp *vroce_hca_ud_qp(struct vroce_hca *hca, u32 qpn);
struct vroce_hca_qp *vroce_hca_ud_dest(struct vroce_hca *hca,
				       struct vroce_hca_op *op,
				       const struct vroce_wqe_av *av);
void vroce_hca_ud_drop(struct vroce_hca *hca);
void vroce_hca_ud_deliver(struct vroce_hca *hca, struct vroce_hca_op *op,
			  struct vroce_hca_qp *dst, u32 qkey);
void vroce_hca_send_deliver(struct vroce_hca *hca, struct vroce_hca_op *op);
u8 vroce_hca_link_recv_place(struct vroce_hca *hca, struct vroce_hca_op *op,
			     bool last);
void vroce_hca_link_recv_drop(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			      bool flush);
u8 vroce_hca_link_recv_imm(struct vroce_hca *hca, struct vroce_hca_op *op);
void vroce_hca_write_imm_deliver(struct vroce_hca *hca,
				 struct vroce_hca_op *op);
void vroce_hca_uc_drop(struct vroce_hca *hca, struct vroce_hca_op *op);
void vroce_hca_uc_send_deliver(struct vroce_hca *hca, struct vroce_hca_op *op);
void vroce_hca_uc_write_deliver(struct vroce_hca *hca,
				struct vroce_hca_op *op);

/* c/hca/vroce_hca_comp.c */
/* Microseconds of each IB_RNR_TIMER_* code. */
extern const u32 vroce_hca_rnr_usecs[32];
bool vroce_hca_enabled(struct vroce_hca *hca);
u32 vroce_hca_qpn_slot(u32 qpn);
struct vroce_hca_qp *vroce_hca_qp_of(struct vroce_hca *hca, u32 qpn);
u32 vroce_hca_qp_slot(struct vroce_hca *hca, const struct vroce_hca_qp *qp);
bool vroce_hca_wq_fetch(struct vroce_hca *hca, const struct vroce_hca_wq *wq,
			u32 count, void *wqe);
void vroce_hca_eq_post(struct vroce_hca *hca, u8 type, u32 num);
void vroce_hca_engine_raise(struct vroce_hca *hca);
void vroce_hca_qp_kick(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_rc_timer(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			unsigned long delay);
void vroce_hca_rc_timer_stop(struct vroce_hca *hca, struct vroce_hca_qp *qp);
unsigned long vroce_hca_ack_timeout(const struct vroce_hca_qp *qp);
void vroce_hca_rq_enter(struct vroce_hca *hca, const struct vroce_hca_qp *qp);
void vroce_hca_rq_leave(struct vroce_hca *hca, const struct vroce_hca_qp *qp);
bool vroce_hca_qp_receives(const struct vroce_hca_qp *qp);
bool vroce_hca_qp_error(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_qp_fatal(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_rnr_wake(struct vroce_hca *hca, u32 slot);
bool vroce_hca_wq_rung(struct vroce_hca *hca, const struct vroce_hca_qp *qp,
		       int q, u32 *pi);
bool vroce_hca_wq_sync(struct vroce_hca *hca, struct vroce_hca_qp *qp, int q);
struct vroce_hca_srq *vroce_hca_srq_of(struct vroce_hca *hca, u32 srqn);
struct vroce_hca_wq *vroce_hca_recv_wq(struct vroce_hca *hca,
				       struct vroce_hca_qp *qp);
u32 vroce_hca_recv_pdn(struct vroce_hca *hca, const struct vroce_hca_qp *qp);
void vroce_hca_recv_taken(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_last_wqe(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_cq_post(struct vroce_hca *hca, struct vroce_hca_qp *qp,
		       u32 cqn, struct vroce_cqe *cqe);
void vroce_hca_rnr_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp,
			struct vroce_hca *phca,
			const struct vroce_hca_qp *peer);
void vroce_hca_retry_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_odp_wait(struct vroce_hca *hca, struct vroce_hca_qp *qp);
void vroce_hca_odp_wake(struct vroce_hca *hca);
void vroce_hca_timer_arm(struct vroce_hca *hca);
bool vroce_hca_gid_mcast(const u8 *gid);
void vroce_hca_cq_arm_checks(struct vroce_hca *hca);
struct vroce_hca_mcg *vroce_hca_mcg_find(struct vroce_hca *hca, const u8 *gid);

/* c/hca/vroce_hca_odp.c */
int vroce_hca_odp_fault(struct vroce_hca *hca, const struct vroce_hca_mpt *mr,
			u32 qpn, u64 iova, u64 len, bool write);
void vroce_hca_odp_mr_gone(struct vroce_hca *hca, u32 handle);
u16 vroce_hca_query_page_fault(struct vroce_hca *hca,
			       const struct vroce_cmd_page_fault *cmd,
			       struct vroce_resp_page_fault *resp);
u16 vroce_hca_resume_page_fault(struct vroce_hca *hca,
				const struct vroce_cmd_resume_page_fault *cmd);

/* c/hca/vroce_hca_mpt.c */
int vroce_hca_mpt_alloc(struct vroce_hca *hca);
void vroce_hca_mpt_free(struct vroce_hca *hca);
void vroce_hca_mpt_reset(struct vroce_hca *hca);
void vroce_hca_mpt_debugfs_init(struct vroce_hca *hca, struct dentry *dir);
bool vroce_hca_pd_valid(struct vroce_hca *hca, u32 pdn);
bool vroce_hca_pd_has_mr(struct vroce_hca *hca, u32 pdn);
u16 vroce_hca_create_mr(struct vroce_hca *hca,
			const struct vroce_cmd_create_mr *cmd,
			struct vroce_resp_create_mr *resp);
u16 vroce_hca_enable_mr(struct vroce_hca *hca,
			const struct vroce_cmd_enable_mr *cmd,
			struct vroce_resp_enable_mr *resp);
u16 vroce_hca_revoke_mr(struct vroce_hca *hca,
			const struct vroce_cmd_revoke_mr *cmd);
u16 vroce_hca_destroy_mr(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_mr *cmd);
u16 vroce_hca_rereg_mr(struct vroce_hca *hca,
		       const struct vroce_cmd_rereg_mr *cmd,
		       struct vroce_resp_rereg_mr *resp);
int vroce_hca_mr_access_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			       u32 qpn, u64 iova, void *buf, u64 len,
			       u32 access, bool write);
int vroce_hca_mr_check_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			      u32 qpn, u64 iova, u64 len, u32 access);
int vroce_hca_mr_atomic_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			       u32 qpn, u64 iova, u32 access, u8 opcode,
			       u64 cmp_add, u64 swap, u64 *orig);
int vroce_hca_frmr_register_locked(struct vroce_hca *hca, u32 key, u32 pdn,
				   u64 iova, u64 length, u32 access, u64 pbl,
				   u32 npages);
int vroce_hca_key_invalidate_locked(struct vroce_hca *hca, u32 key,
				    const struct vroce_hca_qp *qp, bool remote);
u8 vroce_hca_mw_bind_locked(struct vroce_hca *hca,
			    const struct vroce_hca_qp *qp,
			    const struct vroce_send_wqe *wqe);
void vroce_hca_mw_qp_gone(struct vroce_hca *hca, u32 qpn);
u16 vroce_hca_alloc_mw(struct vroce_hca *hca,
		       const struct vroce_cmd_alloc_mw *cmd,
		       struct vroce_resp_alloc_mw *resp);
u16 vroce_hca_dealloc_mw(struct vroce_hca *hca,
			 const struct vroce_cmd_dealloc_mw *cmd);

/* c/hca/vroce_hca_core.c */
struct rw_semaphore *vroce_hca_wire_lock(void);
void vroce_hca_wire_join(struct vroce_hca *hca);
void vroce_hca_wire_leave(struct vroce_hca *hca);
struct vroce_hca *vroce_hca_wire_find(struct vroce_hca *hca, const u8 *mac);
struct vroce_hca *vroce_hca_wire_next(struct vroce_hca *hca,
				      struct vroce_hca *prev);
bool vroce_hca_inject(void);
void vroce_hca_raise_irq(struct vroce_hca *hca, unsigned int vec, u32 cause);
bool vroce_hca_ring_from_regs(struct vroce_hca *hca, u32 ba_reg, u32 cfg,
			      u32 max_log2, u32 entry_size,
			      struct vroce_hca_ring *ring);
void *vroce_hca_ring_entry(struct vroce_hca *hca,
			   const struct vroce_hca_ring *ring, u32 count);
bool vroce_hca_dbrec_ok(struct vroce_hca *hca, u64 dbrec);
bool vroce_hca_dbrec_read(struct vroce_hca *hca, u64 dbrec, u32 word,
			  u32 *val);
void vroce_hca_dbrec_write(struct vroce_hca *hca, u64 dbrec, u32 word,
			   u32 val);

#endif /* _VROCE_HCA_PRIV_H_ */
