/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce commands: one typed function per HCA opcode (c/driver/vroce_cmd.c),
 * over the command queue of c/driver/vroce_cmdq.h.
 */
#ifndef _VROCE_CMD_H_
#define _VROCE_CMD_H_

#include <linux/if_ether.h>
#include <linux/types.h>

#include "vroce_ring.h"
#include "../../bindings/vroce_abi.h"

struct vroce_dev;
struct vroce_mtr;

/**
 * struct vroce_dev_attr - what QUERY_DEVICE reports
 * @max_mr_size: largest MR in bytes
 * @page_size_cap: supported buffer page sizes, one bit per size
 * @max_pd: protection domains
 * @max_mr: memory regions
 * @max_fast_reg_pages: pages of a fast-register MR
 * @vendor_id: PCI-style vendor ID
 * @max_qp: queue pairs the HCA holds
 * @max_cq: completion queues the HCA holds
 * @max_wq_depth_log2: log2 of the most WQEs a send or receive queue holds
 * @max_cq_depth_log2: log2 of the most CQEs a CQ holds
 * @hw_ver: the HCA's version register (read at probe, not by QUERY_DEVICE)
 * @caps: VROCE_CAP_* the HCA offers
 * @mac: the port's Ethernet address
 */
struct vroce_dev_attr {
	u64 max_mr_size;
	u64 page_size_cap;
	u32 max_pd;
	u32 max_mr;
	u32 max_fast_reg_pages;
	u32 vendor_id;
	u32 max_qp;
	u32 max_cq;
	u32 max_wq_depth_log2;
	u32 max_cq_depth_log2;
	u32 hw_ver;
	u32 caps;
	u8 mac[ETH_ALEN];
};

/**
 * struct vroce_qp_desc - what CREATE_QP tells the HCA
 * @qpn: the QP's number, chosen by the driver (vroce_qp.c)
 * @pdn: the QP's protection domain
 * @scqn: the send queue's CQ
 * @rcqn: the receive queue's CQ
 * @sq: the send queue's ring
 * @rq: the receive queue's ring
 * @sq_sig_all: every send WQE completes
 * @type: enum vroce_qp_type
 * @srqn: the SRQ the QP takes receives from (then @rq is NULL), or 0
 * @unpriv: a process's QP: the HCA refuses its privileged work requests
 *	(VROCE_QP_F_UNPRIV; only when the HCA offers VROCE_CAP_UNPRIV_QP)
 */
struct vroce_qp_desc {
	u32 qpn;
	u32 pdn;
	u32 scqn;
	u32 rcqn;
	const struct vroce_ring *sq;
	const struct vroce_ring *rq;
	bool sq_sig_all;
	u8 type;
	u32 srqn;
	bool unpriv;	/* issue 31, hca */
};

/**
 * struct vroce_qp_modify_desc - what MODIFY_QP tells the HCA
 * @qpn: the QP
 * @state: enum vroce_qp_state
 * @dest_qpn: the peer
 * @access: VROCE_ACC_REMOTE_* the peer may use
 * @rnr_retry: RNR retries, 7 forever
 * @min_rnr_timer: this QP's RNR timer code, as responder
 * @retry_cnt: transport retries
 * @timeout: the local ack timeout code (IB: 4.096 us * 2^timeout)
 * @qkey: UD and GSI: the QP's Q_Key
 * @dmac: RC: the Ethernet address of the peer's port (from the AV)
 * @flags: issue 34: VROCE_MODIFY_F_* parts below that this modify sets,
 *	0 for an HCA without VROCE_CAP_QP_PATH
 * @sq_psn: (VROCE_MODIFY_F_SQ_PSN) the first PSN of the send queue
 * @rq_psn: (VROCE_MODIFY_F_RQ_PSN) the PSN the responder expects
 * @max_rd_atomic: (VROCE_MODIFY_F_RD_ATOMIC) outgoing READ/atomic depth
 * @max_dest_rd_atomic: (VROCE_MODIFY_F_RD_ATOMIC) incoming depth
 * @path_mtu: (VROCE_MODIFY_F_PATH) enum ib_mtu
 * @sgid_index: (VROCE_MODIFY_F_PATH) the source GID's table entry
 * @hop_limit: (VROCE_MODIFY_F_PATH) from the AV's GRH
 * @tclass: (VROCE_MODIFY_F_PATH) from the AV's GRH
 * @flow_label: (VROCE_MODIFY_F_PATH) from the AV's GRH
 * @dgid: (VROCE_MODIFY_F_PATH) the destination GID
 */
struct vroce_qp_modify_desc {
	u32 qpn;
	u32 state;
	u32 dest_qpn;
	u32 access;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 retry_cnt;
	u8 timeout;
	u32 qkey;
	u8 dmac[ETH_ALEN];
	u8 flags;
	u32 sq_psn;
	u32 rq_psn;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 path_mtu;
	u8 sgid_index;
	u8 hop_limit;
	u8 tclass;
	u32 flow_label;
	u8 dgid[16];
};

/**
 * struct vroce_cmd_enable_desc - what ENABLE_MR tells the HCA
 * @handle: the idle fast-register entry, from CREATE_MR
 * @pdn: the MR's protection domain
 * @access: VROCE_ACC_* rights
 * @npages: 4 KiB pages in the list
 * @iova: the MR's first address
 * @length: bytes
 * @pbl: DMA address of the page list (little-endian addresses)
 */
struct vroce_cmd_enable_desc {
	u32 handle;
	u32 pdn;
	u32 access;
	u32 npages;
	u64 iova;
	u64 length;
	u64 pbl;
};

/**
 * vroce_cmd_let_go() - whether a DESTROY left the HCA without the object
 * @err: what the DESTROY command returned
 *
 * Success, or BAD_HANDLE (-ENOENT: the HCA holds no such object): either
 * way what the object's memory the HCA could reach may be freed. Any other
 * error, a timeout included, means the HCA may still use it.
 *
 * Return: true when the object's memory may go.
 */
static inline bool vroce_cmd_let_go(int err)
{
	return !err || err == -ENOENT;
}

int vroce_cmd_query_device(struct vroce_dev *vdev, struct vroce_dev_attr *attr);
int vroce_cmd_create_pd(struct vroce_dev *vdev, u32 *pdn);
int vroce_cmd_destroy_pd(struct vroce_dev *vdev, u32 pdn);
int vroce_cmd_create_mr(struct vroce_dev *vdev, const struct vroce_mr_desc *desc,
			u32 *key, u32 *handle);
int vroce_cmd_destroy_mr(struct vroce_dev *vdev, u32 handle);
int vroce_cmd_alloc_mw(struct vroce_dev *vdev, const struct vroce_mw_desc *desc,
		       u32 *key, u32 *handle);
int vroce_cmd_dealloc_mw(struct vroce_dev *vdev, u32 handle);
int vroce_cmd_rereg_mr(struct vroce_dev *vdev, u32 handle, u32 flags,
		       const struct vroce_mr_desc *desc, u32 *key);
int vroce_cmd_enable_mr(struct vroce_dev *vdev,
			const struct vroce_cmd_enable_desc *desc, u32 *key);
int vroce_cmd_revoke_mr(struct vroce_dev *vdev, u32 handle, u32 pdn);
int vroce_cmd_create_cq(struct vroce_dev *vdev, const struct vroce_ring *ring,
			u64 dbrec, u32 *cqn);
int vroce_cmd_destroy_cq(struct vroce_dev *vdev, u32 cqn);
int vroce_cmd_destroy_cq_fenced(struct vroce_dev *vdev, u32 cqn, bool fence);
int vroce_cmd_create_qp(struct vroce_dev *vdev,
			const struct vroce_qp_desc *desc);
int vroce_cmd_modify_qp(struct vroce_dev *vdev,
			const struct vroce_qp_modify_desc *desc);
int vroce_cmd_destroy_qp(struct vroce_dev *vdev, u32 qpn);
int vroce_cmd_destroy_qp_fenced(struct vroce_dev *vdev, u32 qpn, bool fence);
int vroce_cmd_attach_mcast(struct vroce_dev *vdev, u32 qpn, const u8 *gid);
int vroce_cmd_detach_mcast(struct vroce_dev *vdev, u32 qpn, const u8 *gid);
int vroce_cmd_resize_cq(struct vroce_dev *vdev, u32 cqn,
			const struct vroce_ring *ring, u32 ci, u32 *copied);
int vroce_cmd_resize_cq_want(struct vroce_dev *vdev, u32 cqn,
			     const struct vroce_ring *ring, u32 ci, u32 want,
			     u32 *copied);
int vroce_cmd_query_counters(struct vroce_dev *vdev, u64 *value);
int vroce_cmd_create_srq(struct vroce_dev *vdev, u32 pdn,
			 const struct vroce_ring *ring, u32 limit, u64 dbrec,
			 u32 *srqn);
/* issue 31, mapped rings */
int vroce_cmd_qp_dbrec(struct vroce_dev *vdev, u32 qpn, u64 dbrec);
/* review of issue 31 */
int vroce_cmd_set_gid(struct vroce_dev *vdev, u32 index, const u8 *gid);

/**
 * struct vroce_page_fault - what QUERY_PAGE_FAULT says of a fault (issue 33)
 * @handle: the MR's handle
 * @write: the access stores
 * @iova: the first address without an entry
 * @len: bytes from @iova the access needs
 */
struct vroce_page_fault {
	u32 handle;
	bool write;
	u64 iova;
	u64 len;
};

int vroce_cmd_query_page_fault(struct vroce_dev *vdev, u32 slot,
			       struct vroce_page_fault *fault);
int vroce_cmd_resume_page_fault(struct vroce_dev *vdev, u32 slot, u32 handle,
				u32 status);
int vroce_cmd_fence(struct vroce_dev *vdev);
int vroce_cmd_modify_srq(struct vroce_dev *vdev, u32 srqn, u32 limit);
int vroce_cmd_destroy_srq(struct vroce_dev *vdev, u32 srqn);
int vroce_cmd_destroy_srq_fenced(struct vroce_dev *vdev, u32 srqn, bool fence);
int vroce_cmd_query_srq(struct vroce_dev *vdev, u32 srqn, u32 *limit,
			u32 *posted);

#endif /* _VROCE_CMD_H_ */
