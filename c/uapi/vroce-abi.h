/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * vroce user-space ABI: the driver-specific data of the uverbs commands,
 * shared by the kernel driver (c/driver/) and the rdma-core provider. Plain
 * fixed-size structures of __u32/__u64, no pointers, no padding.
 *
 * Rules for both sides (Documentation/userspace.rst):
 *   - a request shorter than its structure is zero-filled by the kernel
 *     (an older provider); bytes beyond the structure must be zero, or the
 *     command fails with EOPNOTSUPP (a newer provider asking for more);
 *   - comp_mask of a request names optional fields the provider filled;
 *     the kernel refuses bits it does not know with EOPNOTSUPP;
 *   - reserved fields are zero (EINVAL otherwise);
 *   - a response is cut to the length the provider gave; comp_mask of a
 *     response names the optional fields the kernel filled.
 */
#ifndef _VROCE_ABI_USER_H_
#define _VROCE_ABI_USER_H_

#include <linux/types.h>

/* The uverbs ABI version of the device (ibv_device's abi_version). */
#define VROCE_UVERBS_ABI_VERSION	1

/*
 * Mapped rings (issue 31). The provider allocates a queue's ring and its
 * doorbell record in its own memory and passes their addresses; the kernel
 * pins them and describes them to the HCA by a user-buffer MTR, and from
 * then on the process and the HCA share them with no system call between:
 *   - a ring is 2^n entries of the HCA's format (c/ifc/vroce_wqe.h), page
 *     aligned, exactly depth * entry size bytes, writable; "page" is the
 *     kernel's PAGE_SIZE, which a process reads as sysconf(_SC_PAGESIZE):
 *     the kernel refuses a ring not aligned to it (EINVAL) and pins the
 *     whole pages a ring or a record lies in;
 *   - a doorbell record is 8 bytes, 8-byte aligned, in writable memory,
 *     little endian; the HCA reads it (and trusts none of it);
 *   - the provider maps only when the context's response has the flag,
 *     and asks per queue through comp_mask; without it the queue is the
 *     kernel's, as before (older providers, or a kernel without it).
 * Documentation/userspace.rst describes the protocol and the bad inputs.
 */

/* Flags of struct vroce_alloc_ucontext_resp. */
#define VROCE_UCTX_F_MAPPED_CQ	0x00000001U	/* CQ rings may be mapped */
#define VROCE_UCTX_F_MAPPED_WQ	0x00000002U	/* SQ, RQ and SRQ rings may be */
/* issue 31, review: the kernel marks a dead device in the CQ records */
#define VROCE_UCTX_F_FATAL_REC	0x00000004U

/* How the provider rings a send doorbell (@db_method). */
#define VROCE_DB_SYSCALL	0	/* uverbs POST_SEND carrying no WR */

/**
 * struct vroce_alloc_ucontext_resp - driver data of GET_CONTEXT's response
 * @comp_mask: optional fields filled; none yet
 * @flags: VROCE_UCTX_F_*: what this kernel and HCA can map
 * @db_method: VROCE_DB_*: how a send doorbell reaches the HCA
 * @reserved: 0
 */
struct vroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 flags;
	__u32 db_method;
	__u32 reserved;
};

/**
 * struct vroce_cq_dbrec - a mapped CQ's doorbell record
 * @ci: CQEs the process has consumed (free running); the HCA reads it to
 *	know which slots are free again
 * @arm: written by the provider before ibv_req_notify_cq()'s system call
 *	(see Documentation/userspace.rst), in its low bits; bit 31
 *	(VROCE_CQ_DBREC_FATAL) is the kernel's (VROCE_UCTX_F_FATAL_REC)
 */
struct vroce_cq_dbrec {
	__u32 ci;
	__u32 arm;
};

/*
 * Set by the kernel in @arm of every mapped CQ's record once the device is
 * dead and its HCA reset (it writes no CQE from then on): the provider
 * completes the work requests still outstanding in software. The
 * provider keeps the bit when it writes @arm.
 */
#define VROCE_CQ_DBREC_FATAL	0x80000000U

/**
 * struct vroce_qp_dbrec - a mapped QP's doorbell record
 * @sq_pi: send WQEs posted (free running); the HCA reads it when the send
 *	doorbell rings
 * @rq_pi: receive WQEs posted (free running); the HCA reads it when a
 *	message needs a receive: posting a receive makes no system call
 */
struct vroce_qp_dbrec {
	__u32 sq_pi;
	__u32 rq_pi;
};

/**
 * struct vroce_srq_dbrec - a mapped SRQ's doorbell record
 * @pi: receive WQEs posted (free running)
 * @reserved: 0
 */
struct vroce_srq_dbrec {
	__u32 pi;
	__u32 reserved;
};

/* comp_mask of struct vroce_create_cq and of its response */
#define VROCE_CREATE_CQ_MAPPED	0x00000001U	/* @buf_addr to @depth valid */

/**
 * struct vroce_create_cq - driver data of CREATE_CQ
 * @comp_mask: VROCE_CREATE_CQ_*: optional fields filled
 * @reserved: must be 0
 * @buf_addr: (MAPPED) the ring: @depth CQEs, page aligned
 * @dbrec_addr: (MAPPED) the struct vroce_cq_dbrec
 * @depth: (MAPPED) CQEs in the ring, a power of two the provider chose
 * @reserved2: must be 0
 */
struct vroce_create_cq {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 buf_addr;
	__aligned_u64 dbrec_addr;
	__u32 depth;
	__u32 reserved2;
};

/**
 * struct vroce_create_cq_resp - driver data of CREATE_CQ's response
 * @comp_mask: optional fields filled; none yet
 * @cqn: the HCA's number of the CQ
 */
struct vroce_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
};

/* comp_mask of struct vroce_create_qp and of its response */
#define VROCE_CREATE_QP_MAPPED	0x00000001U	/* @sq_buf_addr to @rq_depth */

/**
 * struct vroce_create_qp - driver data of CREATE_QP
 * @comp_mask: VROCE_CREATE_QP_*: optional fields filled
 * @reserved: must be 0
 * @sq_buf_addr: (MAPPED) the send ring: @sq_depth send WQEs, page aligned
 * @rq_buf_addr: (MAPPED) the receive ring: @rq_depth receive WQEs, page
 *	aligned; 0 for a QP on an SRQ
 * @dbrec_addr: (MAPPED) the struct vroce_qp_dbrec
 * @sq_depth: (MAPPED) send WQEs, a power of two the provider chose
 * @rq_depth: (MAPPED) receive WQEs, a power of two; 0 on an SRQ
 */
struct vroce_create_qp {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 sq_buf_addr;
	__aligned_u64 rq_buf_addr;
	__aligned_u64 dbrec_addr;
	__u32 sq_depth;
	__u32 rq_depth;
};

/**
 * struct vroce_create_qp_resp - driver data of CREATE_QP's response
 * @comp_mask: optional fields filled; none yet
 * @qpn: the QP's number (as in the uverbs response)
 * @sq_depth: send WQEs the queue holds (a power of two)
 * @rq_depth: receive WQEs the queue holds (a power of two)
 *
 * A user QP is granted max_inline_data 64 (issue 30): the kernel copies
 * an IBV_SEND_INLINE request's data from the process's addresses at
 * POST_SEND; more than 64 bytes is EINVAL, an unreadable address EFAULT.
 */
struct vroce_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_depth;
	__u32 rq_depth;
};

/* comp_mask of struct vroce_create_srq and of its response */
#define VROCE_CREATE_SRQ_MAPPED	0x00000001U	/* @buf_addr to @depth valid */

/**
 * struct vroce_create_srq - driver data of CREATE_SRQ
 * @comp_mask: VROCE_CREATE_SRQ_*: optional fields filled
 * @reserved: must be 0
 * @buf_addr: (MAPPED) the ring: @depth receive WQEs, page aligned
 * @dbrec_addr: (MAPPED) the struct vroce_srq_dbrec
 * @depth: (MAPPED) receive WQEs, a power of two the provider chose
 * @reserved2: must be 0
 */
struct vroce_create_srq {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 buf_addr;
	__aligned_u64 dbrec_addr;
	__u32 depth;
	__u32 reserved2;
};

/**
 * struct vroce_create_srq_resp - driver data of CREATE_SRQ's response
 * @comp_mask: optional fields filled; none yet
 * @srqn: the HCA's number of the SRQ
 * @depth: receive WQEs the SRQ holds (a power of two)
 * @reserved: 0
 *
 * A user SRQ's ring stays in the kernel: receives are posted through
 * the POST_SRQ_RECV uverbs command.
 */
struct vroce_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 depth;
	__u32 reserved;
};

/*
 * Atomics. uverbs' POST_SEND carries no ATOMIC_WRITE work request, so the
 * provider posts ibv_wr_atomic_write() as IBV_WR_ATOMIC_FETCH_AND_ADD with
 * this send flag (one of the bits the verbs leave to drivers) and the 8
 * bytes, in memory order, in wr.atomic.swap; the kernel turns it into an
 * ATOMIC_WRITE. The flag on any other opcode fails the post with EINVAL.
 */
#define VROCE_SEND_ATOMIC_WRITE		0x04000000U	/* bit 26 */

/* ---- issue 31, map: appended for mapped rings ---- */

/*
 * A ring's depth is a power of two, 2 at least, at least what the verb
 * asked, at most the HCA's; a ring of less than a page is pinned with its
 * whole page, which must be writable too.
 */

/* comp_mask of struct vroce_resize_cq */
#define VROCE_RESIZE_CQ_MAPPED	0x00000001U	/* @buf_addr, @depth valid */

/**
 * struct vroce_resize_cq - driver data of RESIZE_CQ (a mapped CQ only)
 * @comp_mask: VROCE_RESIZE_CQ_MAPPED: required for a mapped CQ
 * @reserved: 0
 * @buf_addr: the new ring, as struct vroce_create_cq's
 * @depth: its CQEs, as struct vroce_create_cq's, at least what is asked
 * @reserved2: 0
 *
 * The HCA copies the CQEs not yet consumed (from the record's ci) to the
 * start of the new ring and sets the record's ci to 0 as it switches;
 * the provider, which polls nothing meanwhile, starts again from 0 on
 * the new ring, and may free the old one once the command returned 0.
 * ETIMEDOUT: the HCA may have switched or not, and may write either ring
 * (the kernel keeps both pinned): the CQ cannot be polled any more. Any
 * other error: the HCA kept the old ring.
 */
struct vroce_resize_cq {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 buf_addr;
	__u32 depth;
	__u32 reserved2;
};

/* comp_mask of struct vroce_create_ah_resp */
#define VROCE_CREATE_AH_AV	0x00000001U	/* @av filled */

/**
 * struct vroce_create_ah_resp - driver data of CREATE_AH's response
 * @comp_mask: VROCE_CREATE_AH_*: what the kernel filled
 * @reserved: 0
 * @av: the address vector as a UD send WQE carries it (struct
 *	vroce_wqe_av of c/ifc/vroce_wqe.h, little endian), destination QP
 *	and Q_Key zero: the provider of a mapped QP copies it into each UD
 *	WQE it writes and sets those two. The kernel resolved the MAC.
 */
struct vroce_create_ah_resp {
	__u32 comp_mask;
	__u32 reserved;
	__u8 av[64];
};

#endif /* _VROCE_ABI_USER_H_ */
