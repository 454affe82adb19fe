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

/**
 * struct vroce_create_cq - driver data of CREATE_CQ
 * @comp_mask: optional fields; none yet, must be 0
 * @reserved: must be 0
 */
struct vroce_create_cq {
	__u32 comp_mask;
	__u32 reserved;
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

/**
 * struct vroce_create_qp - driver data of CREATE_QP
 * @comp_mask: optional fields; none yet, must be 0
 * @reserved: must be 0
 */
struct vroce_create_qp {
	__u32 comp_mask;
	__u32 reserved;
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

/**
 * struct vroce_create_srq - driver data of CREATE_SRQ
 * @comp_mask: optional fields; none yet, must be 0
 * @reserved: must be 0
 */
struct vroce_create_srq {
	__u32 comp_mask;
	__u32 reserved;
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

#endif /* _VROCE_ABI_USER_H_ */
