// SPDX-License-Identifier: GPL-2.0
/*
 * vroce commands: one function per HCA opcode, with typed parameters and
 * results, over the command queue (c/driver/vroce_cmdq.c), as efa's
 * efa_com_cmd.c is over efa_com.c. Each fills its request, has
 * vroce_cmdq_exec() carry it out with the flags vroce_cmd_flags[] gives
 * its opcode, and reads its results out of the response.
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "vroce.h"
#include "vroce_cmdq.h"

/*
 * What each opcode asks of the command queue (VROCE_CMDQ_F_*); opcodes
 * not named ask nothing. The commands that let go of an object wait for a
 * slot as long as the HCA lives and, once it is dead, are done in software.
 * MODIFY_QP to RESET or ERR is done in software too: that depends on the
 * state asked for, so vroce_cmd_modify_qp() adds it.
 */
#define VROCE_CMD_TEARDOWN	(VROCE_CMDQ_F_WAIT | VROCE_CMDQ_F_SOFT)

static const u8 vroce_cmd_flags[] = {
	[VROCE_CMD_DESTROY_PD] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DESTROY_MR] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_REVOKE_MR] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DESTROY_CQ] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DESTROY_QP] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DESTROY_SRQ] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DETACH_MCAST] = VROCE_CMD_TEARDOWN,
	[VROCE_CMD_DEALLOC_MW] = VROCE_CMD_TEARDOWN,
	/*
	 * Review of issue 31: writing an entry is no teardown, emptying one
	 * is, but both share the opcode: the flags come with the call
	 * (vroce_cmd_set_gid()).
	 */
	[VROCE_CMD_SET_GID] = 0,
	/*
	 * Issue 33: a fence waits for a slot as long as the HCA lives, and a
	 * dead HCA, reset, reaches no memory: it succeeds in software.
	 */
	[VROCE_CMD_FENCE] = VROCE_CMD_TEARDOWN,
};

/*
 * Every request and response below fits its half of a command slot, and
 * every response starts with the header the queue reads the status from.
 */
#define VROCE_CMD_FITS(req, resp)					\
	static_assert(sizeof(req) <= VROCE_CMD_REQ_SIZE &&		\
		      sizeof(resp) >= sizeof(struct vroce_resp_hdr) &&	\
		      sizeof(resp) <= VROCE_CMD_RESP_SIZE)

VROCE_CMD_FITS(struct vroce_cmd_hdr, struct vroce_resp_query_device);
VROCE_CMD_FITS(struct vroce_cmd_create_pd, struct vroce_resp_create_pd);
VROCE_CMD_FITS(struct vroce_cmd_destroy_pd, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_create_mr, struct vroce_resp_create_mr);
VROCE_CMD_FITS(struct vroce_cmd_destroy_mr, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_alloc_mw, struct vroce_resp_alloc_mw);
VROCE_CMD_FITS(struct vroce_cmd_dealloc_mw, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_enable_mr, struct vroce_resp_enable_mr);
VROCE_CMD_FITS(struct vroce_cmd_revoke_mr, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_rereg_mr, struct vroce_resp_rereg_mr);
VROCE_CMD_FITS(struct vroce_cmd_create_cq, struct vroce_resp_create_cq);
VROCE_CMD_FITS(struct vroce_cmd_destroy_cq, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_create_qp, struct vroce_resp_create_qp);
VROCE_CMD_FITS(struct vroce_cmd_modify_qp, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_create_srq, struct vroce_resp_create_srq);
VROCE_CMD_FITS(struct vroce_cmd_modify_srq, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_srq, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_srq, struct vroce_resp_query_srq);
VROCE_CMD_FITS(struct vroce_cmd_destroy_qp, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_mcast, struct vroce_resp_hdr);
VROCE_CMD_FITS(struct vroce_cmd_resize_cq, struct vroce_resp_resize_cq);
VROCE_CMD_FITS(struct vroce_cmd_query_counters,
	       struct vroce_resp_query_counters);
/* issue 31, mapped rings */
VROCE_CMD_FITS(struct vroce_cmd_qp_dbrec, struct vroce_resp_hdr);
/* Review of issue 31 */
VROCE_CMD_FITS(struct vroce_cmd_set_gid, struct vroce_resp_hdr);
/* Issue 33 */
VROCE_CMD_FITS(struct vroce_cmd_page_fault, struct vroce_resp_page_fault);
VROCE_CMD_FITS(struct vroce_cmd_resume_page_fault, struct vroce_resp_hdr);
/* The interface's Ethernet addresses are the driver's. */
static_assert(sizeof_field(struct vroce_resp_query_device, mac) == ETH_ALEN);
static_assert(sizeof_field(struct vroce_cmd_modify_qp, dmac) == ETH_ALEN);
/* Issue 34: the path in the bytes an older HCA read as zero or not at all. */
static_assert(offsetof(struct vroce_cmd_modify_qp, dest_qpn) == 16 &&
	      offsetof(struct vroce_cmd_modify_qp, qkey) == 28 &&
	      offsetof(struct vroce_cmd_modify_qp, sq_psn) == 40 &&
	      offsetof(struct vroce_cmd_modify_qp, dgid) == 48 &&
	      sizeof(struct vroce_cmd_modify_qp) == VROCE_CMD_REQ_SIZE);

/*
 * Carry out @req as its opcode's flags (vroce_cmd_flags[]) say, and
 * @extra; the response goes to @resp.
 */
static int vroce_cmd_exec(struct vroce_dev *vdev, void *req, size_t req_len,
			  void *resp, size_t resp_len, u8 extra)
{
	u16 opcode = le16_to_cpu(((struct vroce_cmd_hdr *)req)->opcode);
	u8 flags = opcode < ARRAY_SIZE(vroce_cmd_flags) ?
		   vroce_cmd_flags[opcode] : 0;

	return vroce_cmdq_exec(vdev, req, req_len, resp, resp_len,
			       flags | extra);
}

/*
 * A ring, or an MR's table, as CREATE_* commands describe it; returns the
 * pages behind the table.
 */
static u64 vroce_cmd_mtt(const struct vroce_mtr *mtr, __le64 *root_ba,
			 __le32 *cfg)
{
	struct vroce_hw_mtt mtt;

	vroce_ring_mtt(mtr, &mtt);
	*root_ba = cpu_to_le64(mtt.root_ba);
	*cfg = cpu_to_le32(FIELD_PREP(VROCE_MTT_BA_PG_SHIFT, mtt.ba_pg_shift) |
			   FIELD_PREP(VROCE_MTT_BUF_PG_SHIFT, mtt.buf_pg_shift) |
			   FIELD_PREP(VROCE_MTT_HOPNUM, mtt.hopnum));
	return mtt.page_count;
}

static void vroce_cmd_ring(struct vroce_cmd_ring *ring,
			   const struct vroce_ring *r)
{
	ring->page_count = cpu_to_le32(vroce_cmd_mtt(r->mtr, &ring->root_ba,
						     &ring->cfg));
}

/**
 * vroce_cmd_query_device() - QUERY_DEVICE: the HCA's limits
 * @vdev: the device
 * @attr: where they are returned
 *
 * Context: process context, may sleep.
 * Return: 0, an errno from vroce_cmd_errno(), -EAGAIN (no free slot in
 * time: not posted) or -ETIMEDOUT.
 */
int vroce_cmd_query_device(struct vroce_dev *vdev, struct vroce_dev_attr *attr)
{
	struct vroce_cmd_hdr req = { .opcode = cpu_to_le16(VROCE_CMD_QUERY_DEVICE) };
	struct vroce_resp_query_device resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (err)
		return err;
	attr->max_mr_size = le64_to_cpu(resp.max_mr_size);
	attr->page_size_cap = le64_to_cpu(resp.page_size_cap);
	attr->max_pd = le32_to_cpu(resp.max_pd);
	attr->max_mr = le32_to_cpu(resp.max_mr);
	attr->max_fast_reg_pages = le32_to_cpu(resp.max_fast_reg_pages);
	attr->vendor_id = le32_to_cpu(resp.vendor_id);
	attr->max_qp = le32_to_cpu(resp.max_qp);
	attr->max_cq = le32_to_cpu(resp.max_cq);
	attr->max_wq_depth_log2 = le32_to_cpu(resp.max_wq_depth_log2);
	attr->max_cq_depth_log2 = le32_to_cpu(resp.max_cq_depth_log2);
	attr->caps = resp.caps | (u32)resp.caps_hi << 8;
	memcpy(attr->mac, resp.mac, ETH_ALEN);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_query_device);

/**
 * vroce_cmd_create_pd() - CREATE_PD
 * @vdev: the device
 * @pdn: where the new PD's number is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM when the HCA has no PD left, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not
 * posted) or -ETIMEDOUT.
 */
int vroce_cmd_create_pd(struct vroce_dev *vdev, u32 *pdn)
{
	struct vroce_cmd_create_pd req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_PD),
	};
	struct vroce_resp_create_pd resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err)
		*pdn = le32_to_cpu(resp.pdn);
	return err;
}

/**
 * vroce_cmd_destroy_pd() - DESTROY_PD
 * @vdev: the device
 * @pdn: the PD
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown PD, -EBUSY while an MR or a QP uses
 * it, another errno from vroce_cmd_errno(), or -ETIMEDOUT (a
 * destroy waits for a free slot as long as it takes).
 */
int vroce_cmd_destroy_pd(struct vroce_dev *vdev, u32 pdn)
{
	struct vroce_cmd_destroy_pd req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_PD),
		.pdn = cpu_to_le32(pdn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_destroy_pd);

/**
 * vroce_cmd_create_mr() - CREATE_MR: enter an MR in the HCA's MPT
 * @vdev: the device
 * @desc: the MR
 * @key: where its key (lkey and rkey) is returned
 * @handle: where the handle to destroy it by is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when the HCA refuses the description, -ENOENT for an
 * unknown PD, -ENOMEM when its MPT is full, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not
 * posted) or -ETIMEDOUT.
 */
int vroce_cmd_create_mr(struct vroce_dev *vdev, const struct vroce_mr_desc *desc,
			u32 *key, u32 *handle)
{
	struct vroce_cmd_create_mr req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_MR),
		.pdn = cpu_to_le32(desc->pdn),
		.access = cpu_to_le32(desc->access),
		.kind = cpu_to_le32(desc->kind),
		.iova = cpu_to_le64(desc->iova),
		.length = cpu_to_le64(desc->length),
	};
	struct vroce_resp_create_mr resp;
	int err;

	if (desc->mtr) {
		req.page_count = cpu_to_le64(vroce_cmd_mtt(desc->mtr,
							   &req.root_ba,
							   &req.cfg));
	}

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err) {
		*key = le32_to_cpu(resp.key);
		*handle = le32_to_cpu(resp.handle);
	}
	return err;
}

/**
 * vroce_cmd_destroy_mr() - DESTROY_MR: take an MR out of the HCA's MPT
 * @vdev: the device
 * @handle: the MR's handle from CREATE_MR (not its key: the consumer may
 *	have changed the key's low byte)
 *
 * Only after this succeeds may the MR's tables and pages be freed.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT when the HCA holds no MR under @handle, another errno
 * from vroce_cmd_errno(), or -ETIMEDOUT (a
 * destroy waits for a free slot as long as it takes).
 */
int vroce_cmd_destroy_mr(struct vroce_dev *vdev, u32 handle)
{
	struct vroce_cmd_destroy_mr req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_MR),
		.handle = cpu_to_le32(handle),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_destroy_mr);

/**
 * vroce_cmd_alloc_mw() - ALLOC_MW: enter a memory window in the HCA's MPT
 * @vdev: the device
 * @desc: the window's PD and type
 * @key: where its R_Key is returned
 * @handle: where the handle to deallocate it by is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a type the HCA refuses, -ENOENT for an unknown
 * PD, -ENOMEM when its MPT is full, -EOPNOTSUPP from an HCA without
 * windows, another errno from vroce_cmd_errno(), -EAGAIN (no free slot in
 * time: not posted) or -ETIMEDOUT.
 */
int vroce_cmd_alloc_mw(struct vroce_dev *vdev, const struct vroce_mw_desc *desc,
		       u32 *key, u32 *handle)
{
	struct vroce_cmd_alloc_mw req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_ALLOC_MW),
		.pdn = cpu_to_le32(desc->pdn),
		.type = cpu_to_le32(desc->type),
	};
	struct vroce_resp_alloc_mw resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err) {
		*key = le32_to_cpu(resp.key);
		*handle = le32_to_cpu(resp.handle);
	}
	return err;
}

/**
 * vroce_cmd_dealloc_mw() - DEALLOC_MW: take a window out of the HCA's MPT
 * @vdev: the device
 * @handle: the window's handle from ALLOC_MW
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT when the HCA holds no window under @handle, another
 * errno from vroce_cmd_errno(), or -ETIMEDOUT.
 */
int vroce_cmd_dealloc_mw(struct vroce_dev *vdev, u32 handle)
{
	struct vroce_cmd_dealloc_mw req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DEALLOC_MW),
		.handle = cpu_to_le32(handle),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/**
 * vroce_cmd_rereg_mr() - REREG_MR: change an MR's PD, rights and/or
 *	translation in place, under the same key
 * @vdev: the device
 * @handle: the MR's handle from CREATE_MR
 * @flags: VROCE_REREG_*: what changes
 * @desc: the new @pdn (VROCE_REREG_PD), @access (VROCE_REREG_ACCESS), and
 *	@iova, @length and @mtr (VROCE_REREG_TRANS); the rest is ignored
 * @key: where the MR's key is returned
 *
 * Only after this succeeds may the MR's old table and pages be freed; a
 * refused command changed nothing.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown MR or PD, -EINVAL when the HCA refuses
 * the change, another errno from vroce_cmd_errno(), -EAGAIN (no free slot
 * in time: not posted) or -ETIMEDOUT (the HCA may have made the change).
 */
int vroce_cmd_rereg_mr(struct vroce_dev *vdev, u32 handle, u32 flags,
		       const struct vroce_mr_desc *desc, u32 *key)
{
	struct vroce_cmd_rereg_mr req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_REREG_MR),
		.handle = cpu_to_le32(handle),
		.flags = cpu_to_le32(flags),
		.pdn = cpu_to_le32(desc->pdn),
		.access = cpu_to_le32(desc->access),
	};
	struct vroce_resp_rereg_mr resp;
	int err;

	if ((flags & VROCE_REREG_TRANS) && desc->mtr) {
		req.iova = cpu_to_le64(desc->iova);
		req.length = cpu_to_le64(desc->length);
		req.page_count = cpu_to_le64(vroce_cmd_mtt(desc->mtr,
							   &req.root_ba,
							   &req.cfg));
	}
	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err)
		*key = le32_to_cpu(resp.key);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_rereg_mr);

/**
 * vroce_cmd_enable_mr() - ENABLE_MR: an idle fast-register entry becomes a
 *	user MR
 * @vdev: the device
 * @desc: the entry's @handle, and the MR: @pdn, @access, @iova, @length,
 *	and the page list (@pbl, @npages) the HCA copies into its table
 * @key: where the MR's new key (lkey and rkey) is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown entry or PD, -EINVAL when the entry is
 * not idle or the HCA refuses the description, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not posted) or
 * -ETIMEDOUT (the HCA may have enabled it).
 */
int vroce_cmd_enable_mr(struct vroce_dev *vdev,
			const struct vroce_cmd_enable_desc *desc, u32 *key)
{
	struct vroce_cmd_enable_mr req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_ENABLE_MR),
		.handle = cpu_to_le32(desc->handle),
		.pdn = cpu_to_le32(desc->pdn),
		.access = cpu_to_le32(desc->access),
		.npages = cpu_to_le32(desc->npages),
		.iova = cpu_to_le64(desc->iova),
		.length = cpu_to_le64(desc->length),
		.pbl = cpu_to_le64(desc->pbl),
	};
	struct vroce_resp_enable_mr resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err)
		*key = le32_to_cpu(resp.key);
	return err;
}

/**
 * vroce_cmd_revoke_mr() - REVOKE_MR: an MR ENABLE_MR made stops translating
 * @vdev: the device
 * @handle: the entry
 * @pdn: the PD it waits under, idle
 *
 * Only after this succeeds may the MR's pages be let go; its table stays
 * the HCA's.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown entry or PD, -EINVAL when ENABLE_MR did
 * not make it, another errno from vroce_cmd_errno(), or -ETIMEDOUT (it
 * waits for a free slot as long as it takes).
 */
int vroce_cmd_revoke_mr(struct vroce_dev *vdev, u32 handle, u32 pdn)
{
	struct vroce_cmd_revoke_mr req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_REVOKE_MR),
		.handle = cpu_to_le32(handle),
		.pdn = cpu_to_le32(pdn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/**
 * vroce_cmd_create_cq() - CREATE_CQ: give the HCA a CQE ring
 * @vdev: the device
 * @ring: the CQEs
 * @dbrec: DMA address of the CQ's doorbell record (a mapped ring), or 0
 * @cqn: where the CQ's number is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM when the HCA has no CQ left, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not
 * posted) or -ETIMEDOUT.
 */
int vroce_cmd_create_cq(struct vroce_dev *vdev, const struct vroce_ring *ring,
			u64 dbrec, u32 *cqn)
{
	struct vroce_cmd_create_cq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_CQ),
		.depth_log2 = cpu_to_le32(ring->log2),
		.dbrec = cpu_to_le64(dbrec),
	};
	struct vroce_resp_create_cq resp;
	int err;

	vroce_cmd_ring(&req.ring, ring);
	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err)
		*cqn = le32_to_cpu(resp.cqn);
	return err;
}

/**
 * vroce_cmd_destroy_cq() - DESTROY_CQ: the HCA lets go of a CQE ring
 * @vdev: the device
 * @cqn: the CQ
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown CQ, -EBUSY while a QP uses it,
 * another errno from vroce_cmd_errno(), or -ETIMEDOUT (a
 * destroy waits for a free slot as long as it takes).
 */
int vroce_cmd_destroy_cq(struct vroce_dev *vdev, u32 cqn)
{
	return vroce_cmd_destroy_cq_fenced(vdev, cqn, false);
}

/*
 * vroce_cmd_destroy_cq() of a mapped CQ (@fence): a slow HCA's response is
 * waited for (VROCE_CMDQ_F_FENCE): the process reuses the ring at once.
 */
int vroce_cmd_destroy_cq_fenced(struct vroce_dev *vdev, u32 cqn, bool fence)
{
	struct vroce_cmd_destroy_cq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_CQ),
		.cqn = cpu_to_le32(cqn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			      fence ? VROCE_CMDQ_F_FENCE : 0);
}

/**
 * vroce_cmd_resize_cq_want() - RESIZE_CQ: move a CQ to a new ring
 * @vdev: the device
 * @cqn: the CQ
 * @ring: the new ring
 * @ci: the CQEs polled from the old ring (the consumer's count)
 * @want: 0, or the CQEs asked (more outstanding is -EINVAL; issue 31)
 * @copied: where the count of unpolled CQEs the HCA copied to the start
 *	of @ring is returned
 *
 * Context: process context, may sleep.
 * Return: 0 (the HCA no longer uses the old ring), -EINVAL when more CQEs
 * are outstanding than @ring holds (or a bad ring), -ENOENT for an
 * unknown CQ, -EOPNOTSUPP from an HCA without the command, another errno
 * from vroce_cmd_errno(), -EAGAIN (no free slot in time: not posted), or
 * -ETIMEDOUT: the HCA may have switched or not.
 */
int vroce_cmd_resize_cq_want(struct vroce_dev *vdev, u32 cqn,
			     const struct vroce_ring *ring, u32 ci, u32 want,
			     u32 *copied)
{
	struct vroce_cmd_resize_cq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_RESIZE_CQ),
		.cqn = cpu_to_le32(cqn),
		.depth_log2 = cpu_to_le32(ring->log2),
		.ci = cpu_to_le32(ci),
		.want = cpu_to_le32(want),
	};
	struct vroce_resp_resize_cq resp;
	int err;

	/*
	 * Only a mapped CQ's resize asks a count (vroce_resize_cq_mapped()):
	 * the process frees the ring the HCA let go of once it returns.
	 */
	vroce_cmd_ring(&req.ring, ring);
	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			     want ? VROCE_CMDQ_F_FENCE : 0);
	if (!err)
		*copied = le32_to_cpu(resp.copied);
	return err;
}

/* vroce_cmd_resize_cq_want() with no count asked: the ring's depth. */
int vroce_cmd_resize_cq(struct vroce_dev *vdev, u32 cqn,
			const struct vroce_ring *ring, u32 ci, u32 *copied)
{
	return vroce_cmd_resize_cq_want(vdev, cqn, ring, ci, 0, copied);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_resize_cq);

/**
 * vroce_cmd_query_counters() - QUERY_COUNTERS: the port's counters
 * @vdev: the device
 * @value: VROCE_CNT_NUM counts, indexed by enum vroce_counter
 *
 * One command per VROCE_CNT_PER_CMD counters; counters of a later HCA
 * past VROCE_CNT_NUM are not read.
 *
 * Context: process context, may sleep.
 * Return: 0, -EOPNOTSUPP from an HCA without the command, -EIO when the
 * HCA has fewer counters, another errno from vroce_cmd_errno(), -EAGAIN
 * or -ETIMEDOUT. On error @value is partly filled.
 */
int vroce_cmd_query_counters(struct vroce_dev *vdev, u64 *value)
{
	struct vroce_cmd_query_counters req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_QUERY_COUNTERS),
	};
	struct vroce_resp_query_counters resp;
	u32 first, i;
	int err;

	for (first = 0; first < VROCE_CNT_NUM; first += VROCE_CNT_PER_CMD) {
		req.first = cpu_to_le32(first);
		err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp,
				     sizeof(resp), 0);
		if (err)
			return err;
		if (le32_to_cpu(resp.num) < VROCE_CNT_NUM)
			return -EIO;
		for (i = 0; i < VROCE_CNT_PER_CMD && first + i < VROCE_CNT_NUM; i++)
			value[first + i] = le64_to_cpu(resp.value[i]);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_query_counters);

/**
 * vroce_cmd_create_qp() - CREATE_QP: give the HCA a QP's rings
 * @vdev: the device
 * @desc: the QP, with the number the driver chose for it
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when the HCA refuses the description or the number,
 * -ENOENT for an unknown PD or CQ, -EBUSY when the number's context is in
 * use, another errno from vroce_cmd_errno(), -EAGAIN (no free slot in
 * time: not posted) or -ETIMEDOUT.
 */
int vroce_cmd_create_qp(struct vroce_dev *vdev,
			const struct vroce_qp_desc *desc)
{
	struct vroce_cmd_create_qp req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_QP),
		.qpn = cpu_to_le32(desc->qpn),
		.pdn = cpu_to_le32(desc->pdn),
		.scqn = cpu_to_le32(desc->scqn),
		.rcqn = cpu_to_le32(desc->rcqn),
		.sq_depth_log2 = desc->sq->log2,
		.sq_sig_all = (desc->sq_sig_all ? VROCE_QP_F_SIG_ALL : 0) |
			      (desc->unpriv ? VROCE_QP_F_UNPRIV : 0),
		.type = desc->type,
		.srqn = cpu_to_le32(desc->srqn),
	};
	struct vroce_resp_create_qp resp;

	vroce_cmd_ring(&req.sq, desc->sq);
	/* A QP attached to an SRQ has no receive ring. */
	if (desc->rq) {
		req.rq_depth_log2 = desc->rq->log2;
		vroce_cmd_ring(&req.rq, desc->rq);
	}
	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/**
 * vroce_cmd_modify_qp() - MODIFY_QP: a QP's state and connection
 * @vdev: the device
 * @desc: the new state and attributes
 *
 * Moving to VROCE_QPS_ERR makes the HCA flush the QP's queues; moving to
 * VROCE_QPS_RESET makes it forget their progress. With @desc->flags
 * (VROCE_CAP_QP_PATH, issue 34) it also sets the parts of the QP's path
 * and PSNs they name.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown QP, -EINVAL for a bad attribute or
 * transition, -EBUSY when the HCA moved the QP to ERR first, another
 * errno from vroce_cmd_errno(), -EAGAIN (no free slot in time: not
 * posted) or -ETIMEDOUT.
 */
int vroce_cmd_modify_qp(struct vroce_dev *vdev,
			const struct vroce_qp_modify_desc *desc)
{
	struct vroce_cmd_modify_qp req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_MODIFY_QP),
		.qpn = cpu_to_le32(desc->qpn),
		.state = desc->state,
		.flags = desc->flags,
		.dest_qpn = cpu_to_le32(desc->dest_qpn),
		.access = desc->access,
		.rnr_retry = desc->rnr_retry,
		.min_rnr_timer = desc->min_rnr_timer,
		.retry_cnt = desc->retry_cnt,
		.timeout = desc->timeout,
		.qkey = cpu_to_le32(desc->qkey),
	};
	struct vroce_resp_hdr resp;

	memcpy(req.dmac, desc->dmac, ETH_ALEN);
	/* Issue 34: the parts of the path the flags name, the rest zero. */
	if (desc->flags & VROCE_MODIFY_F_SQ_PSN)
		req.sq_psn = cpu_to_le32(desc->sq_psn);
	if (desc->flags & VROCE_MODIFY_F_RQ_PSN)
		req.rq_psn = cpu_to_le32(desc->rq_psn);
	if (desc->flags & VROCE_MODIFY_F_RD_ATOMIC) {
		req.max_rd_atomic = desc->max_rd_atomic;
		req.max_dest_rd_atomic = desc->max_dest_rd_atomic;
	}
	if (desc->flags & VROCE_MODIFY_F_PATH) {
		req.path_mtu = desc->path_mtu;
		req.sgid_index = desc->sgid_index;
		req.hop_limit = desc->hop_limit;
		req.tclass = desc->tclass;
		req.qkey = cpu_to_le32(desc->flow_label);
		memcpy(req.dgid, desc->dgid, sizeof(req.dgid));
	}
	/* A dead HCA's QPs are in error: RESET and ERR are done in software. */
	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			      desc->state == VROCE_QPS_RESET ||
			      desc->state == VROCE_QPS_ERR ?
			      VROCE_CMDQ_F_SOFT : 0);
}

/**
 * vroce_cmd_destroy_qp() - DESTROY_QP: the HCA lets go of a QP's rings
 * @vdev: the device
 * @qpn: the QP
 *
 * Once this succeeds the HCA neither reads the QP's rings nor writes
 * completions for it.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown QP, another errno from
 * vroce_cmd_errno(), or -ETIMEDOUT (a
 * destroy waits for a free slot as long as it takes).
 */
int vroce_cmd_destroy_qp(struct vroce_dev *vdev, u32 qpn)
{
	return vroce_cmd_destroy_qp_fenced(vdev, qpn, false);
}

/* vroce_cmd_destroy_qp() of a mapped QP (@fence), as destroy_cq_fenced. */
int vroce_cmd_destroy_qp_fenced(struct vroce_dev *vdev, u32 qpn, bool fence)
{
	struct vroce_cmd_destroy_qp req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_QP),
		.qpn = cpu_to_le32(qpn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			      fence ? VROCE_CMDQ_F_FENCE : 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_destroy_qp);

/**
 * vroce_cmd_qp_dbrec() - QP_DBREC: give a QP in RESET its doorbell record
 * @vdev: the device
 * @qpn: the QP, just created
 * @dbrec: the record's DMA address
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when the HCA refuses the QP's type or state or the
 * address, -ENOENT for an unknown QP, -EOPNOTSUPP from an HCA without
 * VROCE_CAP_MAPPED, another errno from vroce_cmd_errno(), -EAGAIN (no
 * free slot in time: not posted) or -ETIMEDOUT.
 */
int vroce_cmd_qp_dbrec(struct vroce_dev *vdev, u32 qpn, u64 dbrec)
{
	struct vroce_cmd_qp_dbrec req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_QP_DBREC),
		.qpn = cpu_to_le32(qpn),
		.dbrec = cpu_to_le64(dbrec),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_qp_dbrec);

/**
 * vroce_cmd_create_srq() - CREATE_SRQ: give the HCA a shared receive ring
 * @vdev: the device
 * @pdn: the SRQ's protection domain
 * @ring: the receive WQEs, every slot marked free (srq_done)
 * @limit: the limit to arm, 0: none
 * @dbrec: DMA address of the SRQ's doorbell record (a mapped ring), or 0
 * @srqn: where the SRQ's number is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when the HCA refuses the description, -ENOENT for an
 * unknown PD, -ENOMEM when the HCA has no SRQ left, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not posted) or
 * -ETIMEDOUT.
 */
int vroce_cmd_create_srq(struct vroce_dev *vdev, u32 pdn,
			 const struct vroce_ring *ring, u32 limit, u64 dbrec,
			 u32 *srqn)
{
	struct vroce_cmd_create_srq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_SRQ),
		.pdn = cpu_to_le32(pdn),
		.depth_log2 = cpu_to_le32(ring->log2),
		.limit = cpu_to_le32(limit),
		.dbrec = cpu_to_le64(dbrec),
	};
	struct vroce_resp_create_srq resp;
	int err;

	vroce_cmd_ring(&req.ring, ring);
	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err)
		*srqn = le32_to_cpu(resp.srqn);
	return err;
}

/**
 * vroce_cmd_modify_srq() - MODIFY_SRQ: arm an SRQ's limit event
 * @vdev: the device
 * @srqn: the SRQ
 * @limit: the limit, 0 disarms
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown SRQ, -EINVAL for a limit beyond its
 * depth, another errno from vroce_cmd_errno(), -EAGAIN (no free slot in
 * time: not posted) or -ETIMEDOUT.
 */
int vroce_cmd_modify_srq(struct vroce_dev *vdev, u32 srqn, u32 limit)
{
	struct vroce_cmd_modify_srq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_MODIFY_SRQ),
		.srqn = cpu_to_le32(srqn),
		.limit = cpu_to_le32(limit),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/**
 * vroce_cmd_destroy_srq() - DESTROY_SRQ: the HCA lets go of an SRQ's ring
 * @vdev: the device
 * @srqn: the SRQ
 *
 * Once this succeeds the HCA neither reads the ring nor writes an event
 * for the SRQ.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown SRQ, -EBUSY while a QP is attached,
 * another errno from vroce_cmd_errno(), or -ETIMEDOUT (a destroy waits
 * for a free slot as long as it takes).
 */
int vroce_cmd_destroy_srq(struct vroce_dev *vdev, u32 srqn)
{
	return vroce_cmd_destroy_srq_fenced(vdev, srqn, false);
}

/* vroce_cmd_destroy_srq() of a mapped SRQ (@fence), as destroy_cq_fenced. */
int vroce_cmd_destroy_srq_fenced(struct vroce_dev *vdev, u32 srqn, bool fence)
{
	struct vroce_cmd_srq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_SRQ),
		.srqn = cpu_to_le32(srqn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			      fence ? VROCE_CMDQ_F_FENCE : 0);
}

/**
 * vroce_cmd_query_srq() - QUERY_SRQ: an SRQ's armed limit and fill
 * @vdev: the device
 * @srqn: the SRQ
 * @limit: where the armed limit (0: none) is returned
 * @posted: where the count of WQEs the HCA has not taken is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT for an unknown SRQ, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not posted) or
 * -ETIMEDOUT.
 */
int vroce_cmd_query_srq(struct vroce_dev *vdev, u32 srqn, u32 *limit,
			u32 *posted)
{
	struct vroce_cmd_srq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_QUERY_SRQ),
		.srqn = cpu_to_le32(srqn),
	};
	struct vroce_resp_query_srq resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (!err) {
		*limit = le32_to_cpu(resp.limit);
		*posted = le32_to_cpu(resp.posted);
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_query_srq);

static int vroce_cmd_mcast(struct vroce_dev *vdev, u16 opcode, u32 qpn,
			   const u8 *gid)
{
	struct vroce_cmd_mcast req = {
		.hdr.opcode = cpu_to_le16(opcode),
		.qpn = cpu_to_le32(qpn),
	};
	struct vroce_resp_hdr resp;

	memcpy(req.gid, gid, sizeof(req.gid));
	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}

/**
 * vroce_cmd_attach_mcast() - ATTACH_MCAST: a UD QP joins a multicast group
 * @vdev: the device
 * @qpn: the QP
 * @gid: the group's GID, 16 bytes
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (not a UD QP, not a multicast GID, attached already),
 * -ENOMEM (no room in the HCA's groups), -ENOENT (no such QP) or another
 * errno from vroce_cmd_errno(); -EAGAIN or -ETIMEDOUT as every command.
 */
int vroce_cmd_attach_mcast(struct vroce_dev *vdev, u32 qpn, const u8 *gid)
{
	return vroce_cmd_mcast(vdev, VROCE_CMD_ATTACH_MCAST, qpn, gid);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_attach_mcast);

/**
 * vroce_cmd_detach_mcast() - DETACH_MCAST: a UD QP leaves a multicast group
 * @vdev: the device
 * @qpn: the QP
 * @gid: the group's GID, 16 bytes
 *
 * Once this succeeds no datagram to the group reaches the QP. It waits
 * for a slot as long as the HCA lives, and succeeds in software once it
 * is dead (vroce_cmd_flags[]).
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (not attached), -ENOENT or another errno from
 * vroce_cmd_errno(); -ETIMEDOUT.
 */
int vroce_cmd_detach_mcast(struct vroce_dev *vdev, u32 qpn, const u8 *gid)
{
	return vroce_cmd_mcast(vdev, VROCE_CMD_DETACH_MCAST, qpn, gid);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_detach_mcast);

/**
 * vroce_cmd_set_gid() - SET_GID: write or empty one entry of the port's
 *	GID table
 * @vdev: the device
 * @index: the entry, below VROCE_MAX_GID
 * @gid: the GID, 16 bytes, nonzero; NULL empties the entry
 *
 * Once this succeeds, the HCA checks every datagram's source GID against
 * the new table. Emptying an entry waits for a slot as long as the HCA
 * lives and succeeds in software once it is dead (a reset empties the
 * table), as every teardown.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (a bad index or GID), -EOPNOTSUPP (an HCA without
 * VROCE_CAP_GID_TABLE) or another errno from vroce_cmd_errno(); -EAGAIN
 * (writing only) or -ETIMEDOUT as every command.
 */
int vroce_cmd_set_gid(struct vroce_dev *vdev, u32 index, const u8 *gid)
{
	struct vroce_cmd_set_gid req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_SET_GID),
		.index = cpu_to_le32(index),
		.flags = cpu_to_le32(gid ? VROCE_SET_GID_F_VALID : 0),
	};
	struct vroce_resp_hdr resp;

	if (gid)
		memcpy(req.gid, gid, sizeof(req.gid));
	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
			      gid ? 0 : VROCE_CMD_TEARDOWN);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_set_gid);

/**
 * vroce_cmd_query_page_fault() - QUERY_PAGE_FAULT: what a fault slot holds
 * @vdev: the device
 * @slot: the slot a VROCE_EQE_PAGE_FAULT event named
 * @fault: where the fault goes
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOENT when the slot holds no pending fault (ended, or its
 * MR destroyed); -EINVAL for a slot out of range; another errno from
 * vroce_cmd_errno(); -EAGAIN or -ETIMEDOUT as every command.
 */
int vroce_cmd_query_page_fault(struct vroce_dev *vdev, u32 slot,
			       struct vroce_page_fault *fault)
{
	struct vroce_cmd_page_fault req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_QUERY_PAGE_FAULT),
		.slot = cpu_to_le32(slot),
	};
	struct vroce_resp_page_fault resp;
	int err;

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
	if (err)
		return err;
	fault->handle = le32_to_cpu(resp.handle);
	fault->write = le32_to_cpu(resp.flags) & VROCE_PAGE_FAULT_F_WRITE;
	fault->iova = le64_to_cpu(resp.iova);
	fault->len = le64_to_cpu(resp.len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_query_page_fault);

/**
 * vroce_cmd_resume_page_fault() - RESUME_PAGE_FAULT: end a page fault
 * @vdev: the device
 * @slot: the fault slot
 * @handle: the MR QUERY_PAGE_FAULT named
 * @status: VROCE_PAGE_FAULT_RESOLVED (the entries are written) or
 *	VROCE_PAGE_FAULT_FAILED (the access that faulted fails)
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOENT when the slot holds no pending fault of @handle;
 * another errno from vroce_cmd_errno(); -EAGAIN or -ETIMEDOUT.
 */
int vroce_cmd_resume_page_fault(struct vroce_dev *vdev, u32 slot, u32 handle,
				u32 status)
{
	struct vroce_cmd_resume_page_fault req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_RESUME_PAGE_FAULT),
		.slot = cpu_to_le32(slot),
		.handle = cpu_to_le32(handle),
		.status = cpu_to_le32(status),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_resume_page_fault);

/**
 * vroce_cmd_fence() - FENCE: no access through table entries read before
 *	it is in flight once it returns
 * @vdev: the device
 *
 * What an invalidation waits for after it emptied an ODP MR's entries.
 * It waits for a slot as long as the HCA lives, and succeeds in software
 * once it is dead (a reset HCA reaches no memory).
 *
 * Context: process context, may sleep.
 * Return: 0, or -ETIMEDOUT (the HCA did not answer in time: it may still
 * be inside an access) or another errno from vroce_cmd_errno().
 */
int vroce_cmd_fence(struct vroce_dev *vdev)
{
	struct vroce_cmd_hdr req = {
		.opcode = cpu_to_le16(VROCE_CMD_FENCE),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp), 0);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_fence);
