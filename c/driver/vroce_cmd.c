// SPDX-License-Identifier: GPL-2.0
/*
 * vroce commands: the command ring, and one function per HCA opcode.
 *
 * A command is copied into the next ring slot, the producer index goes to
 * the ring's doorbell record and, when the HCA went idle waiting for it,
 * to the doorbell register; the caller sleeps until the HCA's interrupt
 * brings the response (matched by token) or the timeout passes. Up to the
 * ring's depth of commands may be outstanding: those posted while the HCA
 * works need no doorbell of their own. HCA status becomes an errno
 * in exactly one place, vroce_cmd_errno().
 */

#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vroce.h"
#include "../../bindings/vroce_core.h"

static unsigned int cmd_timeout_ms = 2000;
module_param(cmd_timeout_ms, uint, 0444);
MODULE_PARM_DESC(cmd_timeout_ms, "how long an HCA command may take (ms), read when an HCA is probed");

/*
 * Slots of the command ring of an HCA probed from now on. A deeper ring
 * lets more submitters post at once (more commands per doorbell); each
 * command may then wait behind more others within its timeout.
 */
VISIBLE_IF_KUNIT unsigned int vroce_cmdq_depth = BIT(VROCE_CMDQ_DEPTH_LOG2);
EXPORT_SYMBOL_IF_KUNIT(vroce_cmdq_depth);
module_param_named(cmdq_depth, vroce_cmdq_depth, uint, 0444);
MODULE_PARM_DESC(cmdq_depth,
		 "command ring slots, rounded up to a power of two from 4 to 256 (default 16)");

/* The one mapping from HCA status to errno. */
static int vroce_cmd_errno(u16 status)
{
	switch (status) {
	case VROCE_CMD_OK:
		return 0;
	case VROCE_CMD_BAD_OPCODE:
		return -EOPNOTSUPP;
	case VROCE_CMD_BAD_PARAM:
		return -EINVAL;
	case VROCE_CMD_BAD_HANDLE:
		return -ENOENT;
	case VROCE_CMD_NO_RESOURCE:
		return -ENOMEM;
	case VROCE_CMD_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static void *vroce_cmdq_slot(struct vroce_cmdq *q, u32 index)
{
	return vroce_ring_slot(&q->ring, index);
}

/*
 * Hand every response the HCA has written since the last call to the
 * submitter of its slot, and free those slots. Called by the interrupt
 * handler, and by submitters that find the ring full (a command the HCA
 * carried out without completing raises no interrupt).
 */
static void vroce_cmdq_collect(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	const struct vroce_resp_hdr *rh;
	struct vroce_cmd_ctx *ctx;
	u32 hw_ci, c;

	lockdep_assert_held(&q->lock);
	hw_ci = vroce_hw_cmdq_ci(&vdev->hw);
	/* An index beyond what was posted is not believed. */
	if (hw_ci - q->ci > q->pi - q->ci)
		return;
	for (c = q->ci; c != hw_ci; c++) {
		ctx = q->owner[c & (q->depth - 1)];
		q->owner[c & (q->depth - 1)] = NULL;
		rh = vroce_cmdq_slot(q, c) + VROCE_CMD_REQ_SIZE;
		if (ctx && le32_to_cpu(rh->token) == ctx->token) {
			memcpy(ctx->resp, rh, sizeof(ctx->resp));
			complete(&ctx->done);
		}
	}
	q->ci = hw_ci;
}

/* Whether a slot is free, collecting what the HCA finished if not. */
static bool vroce_cmdq_has_space(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	bool space;

	spin_lock(&q->lock);
	if (q->pi - q->ci >= q->depth)
		vroce_cmdq_collect(vdev);
	space = q->pi - q->ci < q->depth;
	spin_unlock(&q->lock);
	return space;
}

/**
 * vroce_cmdq_irq() - the HCA's command interrupt: hand out responses
 * @vdev: the device
 *
 * The handler of the HCA's command vector (c/driver/vroce_dev.c).
 *
 * Context: the HCA's interrupt context (process context, may not block on
 * the command ring).
 */
void vroce_cmdq_irq(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;

	spin_lock(&q->lock);
	vroce_cmdq_collect(vdev);
	spin_unlock(&q->lock);
	wake_up(&q->space);
}

/* Jiffies left until @deadline, 0 once it has passed. */
static unsigned long vroce_cmd_left(unsigned long deadline)
{
	return time_before(jiffies, deadline) ? deadline - jiffies : 0;
}

/*
 * What a command's caller needs of the ring, by opcode:
 * VROCE_CMD_F_WAIT: the command lets go of an object and its caller
 *	cannot fail: it waits for a slot as long as the HCA is alive (not
 *	posting it would keep an object the HCA never heard of).
 * VROCE_CMD_F_SOFT: once the device is dead the command is done in
 *	software: it succeeds when the HCA's reset has made it touch no
 *	memory (vroce_cmdq_kill()). Also MODIFY_QP to RESET or ERR.
 * Every other command of a dead device fails with -EIO.
 */
#define VROCE_CMD_F_WAIT	BIT(0)
#define VROCE_CMD_F_SOFT	BIT(1)
#define VROCE_CMD_F_TEARDOWN	(VROCE_CMD_F_WAIT | VROCE_CMD_F_SOFT)

/*
 * Deadlines in a row a command of VROCE_CMD_F_WAIT waits for a slot while
 * the HCA consumes nothing, its heartbeat moving or not, before the HCA
 * counts as dead: a command processor stuck behind a live heartbeat
 * must not hold destroys, and unbinding, for good.
 */
#define VROCE_CMD_STALLS	4

static const u8 vroce_cmd_flags[] = {
	[VROCE_CMD_DESTROY_PD] = VROCE_CMD_F_TEARDOWN,
	[VROCE_CMD_DESTROY_MR] = VROCE_CMD_F_TEARDOWN,
	[VROCE_CMD_REVOKE_MR] = VROCE_CMD_F_TEARDOWN,
	[VROCE_CMD_DESTROY_CQ] = VROCE_CMD_F_TEARDOWN,
	[VROCE_CMD_DESTROY_QP] = VROCE_CMD_F_TEARDOWN,
};

/*
 * Whether the HCA's firmware runs: HEALTH shows no fatal error and its
 * heartbeat moves within two ticks. A slow HCA is alive; one that hangs
 * or failed is not. Called when a deadline passed, never in a hot path.
 */
static bool vroce_cmd_hca_alive(struct vroce_dev *vdev)
{
	u32 first, now;

	if (!vroce_hw_health(&vdev->hw, &first))
		return false;
	msleep(2 * VROCE_HW_BEAT_MS);
	return vroce_hw_health(&vdev->hw, &now) && now != first;
}

/**
 * vroce_cmdq_kill() - the HCA stopped answering: the device is dead
 * @vdev: the device
 *
 * From now on every command fails at once with -EIO, but those done in
 * software (VROCE_CMD_F_SOFT), which succeed once the HCA is reset;
 * submitters waiting for a slot or a response are woken to that answer.
 * &vroce_dev.fatal_work resets the HCA, completes @reset_done and tells
 * the RDMA core's clients (IB_EVENT_DEVICE_FATAL). Idempotent.
 *
 * Context: any context but the command vector's handler.
 */
void vroce_cmdq_kill(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	struct vroce_cmd_ctx *ctx;
	u32 i;

	spin_lock(&q->lock);
	if (q->dead) {
		spin_unlock(&q->lock);
		return;
	}
	WRITE_ONCE(q->dead, true);
	for (i = 0; i < q->depth; i++) {
		ctx = q->owner[i];
		if (!ctx)
			continue;
		q->owner[i] = NULL;
		ctx->killed = true;
		complete(&ctx->done);
	}
	spin_unlock(&q->lock);
	wake_up_all(&q->space);
	dev_err(vdev->dma_dev, "HCA stopped answering: device dead\n");
	queue_work(system_unbound_wq, &vdev->fatal_work);
}

/* What a command of a dead device returns, once the HCA is reset. */
static int vroce_cmd_dead(struct vroce_dev *vdev, u8 flags)
{
	wait_for_completion(&vdev->cmdq.reset_done);
	return flags & VROCE_CMD_F_SOFT ? 0 : -EIO;
}

/* Whether a slot is free or the device died, collecting what is done. */
static bool vroce_cmdq_can_post(struct vroce_dev *vdev)
{
	return vroce_cmdq_has_space(vdev) || READ_ONCE(vdev->cmdq.dead);
}

/*
 * Post @req (its header's token is filled in) and wait for the response,
 * copied to @resp. Waiting for a free slot and for the response share one
 * deadline of timeout_ms: a command that finds no slot by then is not
 * posted (-EAGAIN: the HCA never saw it), except one of VROCE_CMD_F_WAIT,
 * which waits on while the HCA is alive; one posted gets at least a
 * quarter of timeout_ms per 16 slots of the ring for its response. When
 * a deadline passes and the HCA's heartbeat stands still, or it reports a
 * fatal error, the device is dead (vroce_cmdq_kill()).
 * Return: the HCA's status as an errno, -EAGAIN, -ETIMEDOUT, or for a dead
 * device 0 (@flags has VROCE_CMD_F_SOFT) or -EIO.
 */
static int __vroce_cmd_exec(struct vroce_dev *vdev, void *req, size_t req_len,
			    void *resp, size_t resp_len, u8 flags)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	unsigned long deadline = jiffies + msecs_to_jiffies(q->timeout_ms);
	struct vroce_cmd_hdr *hdr = req;
	u16 opcode = le16_to_cpu(hdr->opcode);
	u32 seen_ci = 0, hw_ci, stalls = 0;
	struct vroce_cmd_ctx ctx;
	unsigned long left;
	bool killed;
	u32 index;
	u8 *slot;
	int err;

	might_sleep();
	if (READ_ONCE(q->dead))
		return vroce_cmd_dead(vdev, flags);
	init_completion(&ctx.done);
	ctx.killed = false;
	spin_lock(&q->lock);
	/*
	 * All slots are out: wait until the HCA consumed one and its response
	 * went to its owner. Poll now and then: a command the HCA carried out
	 * without completing raises no interrupt.
	 */
	if (q->pi - q->ci >= q->depth) {
		q->full_waits++;
		seen_ci = vroce_hw_cmdq_ci(&vdev->hw);
	}
	while (q->pi - q->ci >= q->depth && !q->dead) {
		vroce_cmdq_collect(vdev);
		if (q->pi - q->ci < q->depth)
			break;
		spin_unlock(&q->lock);
		if (!vroce_cmd_left(deadline)) {
			hw_ci = vroce_hw_cmdq_ci(&vdev->hw);
			stalls = hw_ci == seen_ci ? stalls + 1 : 0;
			seen_ci = hw_ci;
			/*
			 * Dead: its heartbeat stands still, or it consumed no
			 * command for VROCE_CMD_STALLS deadlines in a row.
			 */
			if (!vroce_cmd_hca_alive(vdev) ||
			    stalls >= VROCE_CMD_STALLS) {
				vroce_cmdq_kill(vdev);
				return vroce_cmd_dead(vdev, flags);
			}
			if (!(flags & VROCE_CMD_F_WAIT)) {
				dev_warn_ratelimited(vdev->dma_dev,
						     "command %u found no free slot\n",
						     opcode);
				return -EAGAIN;
			}
			/* Alive and consuming, but slow: another timeout. */
			deadline = jiffies + msecs_to_jiffies(q->timeout_ms);
		}
		wait_event_timeout(q->space, vroce_cmdq_can_post(vdev),
				   clamp(vroce_cmd_left(deadline), 1UL,
					 msecs_to_jiffies(10)));
		spin_lock(&q->lock);
		/* Still full: wake the HCA, should it have missed a doorbell. */
		if (q->pi - q->ci >= q->depth && !q->dead)
			vroce_hw_cmdq_kick(&vdev->hw, q->pi);
	}
	if (q->dead) {
		spin_unlock(&q->lock);
		return vroce_cmd_dead(vdev, flags);
	}
	index = q->pi;
	WARN_ON_ONCE(q->owner[index & (q->depth - 1)]);
	q->owner[index & (q->depth - 1)] = &ctx;
	ctx.token = q->next_token++;
	if (!q->next_token)
		q->next_token = 1;	/* 0 marks an empty response */
	hdr->token = cpu_to_le32(ctx.token);

	slot = vroce_cmdq_slot(q, index);
	memset(slot, 0, VROCE_CMD_SLOT_SIZE);
	memcpy(slot, req, req_len);
	q->pi++;
	if (vroce_hw_cmdq_doorbell(&vdev->hw, q->dbr, q->pi))
		q->doorbells++;
	spin_unlock(&q->lock);

	/*
	 * Posted, it may be behind depth - 1 others: at least a quarter of
	 * the timeout per 16 slots for its response.
	 */
	left = wait_for_completion_timeout(&ctx.done,
					   max(vroce_cmd_left(deadline),
					       msecs_to_jiffies(q->timeout_ms) / 4 *
					       max(1U, q->depth >>
						       VROCE_CMDQ_DEPTH_LOG2)));

	spin_lock(&q->lock);
	killed = ctx.killed;
	/* A response that raced with the timeout still counts. */
	if (killed) {
		err = 0;
	} else if (left || completion_done(&ctx.done)) {
		memcpy(resp, ctx.resp, resp_len);
		err = vroce_cmd_errno(le16_to_cpu(((struct vroce_resp_hdr *)resp)->status));
	} else {
		/* The slot stays taken until the HCA moves past it. */
		if (q->owner[index & (q->depth - 1)] == &ctx)
			q->owner[index & (q->depth - 1)] = NULL;
		/* Should the HCA have missed a doorbell, later ones still run. */
		vroce_hw_cmdq_kick(&vdev->hw, q->pi);
		err = -ETIMEDOUT;
	}
	spin_unlock(&q->lock);
	if (killed)
		return vroce_cmd_dead(vdev, flags);
	if (err == -ETIMEDOUT) {
		/* Dead meanwhile: its reset may have revived the heartbeat. */
		if (READ_ONCE(q->dead) || !vroce_cmd_hca_alive(vdev)) {
			vroce_cmdq_kill(vdev);
			return vroce_cmd_dead(vdev, flags);
		}
		dev_warn_ratelimited(vdev->dma_dev, "command %u timed out\n",
				     opcode);
	}
	return err;
}

/* A command as its opcode's flags (vroce_cmd_flags[]) say. */
static int vroce_cmd_exec(struct vroce_dev *vdev, void *req, size_t req_len,
			  void *resp, size_t resp_len)
{
	u16 opcode = le16_to_cpu(((struct vroce_cmd_hdr *)req)->opcode);

	return __vroce_cmd_exec(vdev, req, req_len, resp, resp_len,
				opcode < ARRAY_SIZE(vroce_cmd_flags) ?
				vroce_cmd_flags[opcode] : 0);
}

/**
 * vroce_cmdq_init() - allocate the command ring
 * @vdev: the device
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int vroce_cmdq_init(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	unsigned int want = READ_ONCE(vroce_cmdq_depth);
	int err;

	q->depth_log2 = clamp_t(u32, order_base_2(want ?: 1),
				VROCE_CMDQ_MIN_DEPTH_LOG2,
				VROCE_CMDQ_MAX_DEPTH_LOG2);
	q->depth = BIT(q->depth_log2);
	if (q->depth != want)
		dev_warn(vdev->dma_dev, "cmdq_depth %u: %u command slots\n",
			 want, q->depth);
	q->timeout_ms = cmd_timeout_ms;
	q->next_token = 1;
	q->dead = false;
	init_completion(&q->reset_done);
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->space);

	q->owner = vroce_core_zalloc(vdev, array_size(q->depth,
						      sizeof(*q->owner)));
	if (!q->owner)
		return -ENOMEM;
	q->dbr = vroce_core_dma_alloc(vdev, sizeof(*q->dbr), &q->dbr_dma);
	if (!q->dbr) {
		err = -ENOMEM;
		goto err_owner;
	}
	/* One table level in front of the slots, as the HCA walks it. */
	err = vroce_ring_create(vdev, &q->ring, q->depth_log2,
				VROCE_CMD_SLOT_SIZE, 1);
	if (err)
		goto err_dbr;
	return 0;

err_dbr:
	vroce_core_dma_free(vdev, sizeof(*q->dbr), q->dbr, q->dbr_dma);
err_owner:
	vroce_core_free(vdev, q->owner);
	return err;
}

/**
 * vroce_cmdq_start() - give the HCA its command ring and enable it
 * @vdev: the device, its HCA reset and its command vector connected
 *
 * Context: process context, may sleep.
 * Return: 0, or -EIO when the HCA does not come up.
 */
int vroce_cmdq_start(struct vroce_dev *vdev)
{
	struct vroce_hw_mtt mtt;

	vroce_ring_mtt(vdev->cmdq.ring.mtr, &mtt);
	return vroce_hw_cmdq_start(&vdev->hw, &mtt, vdev->cmdq.depth_log2,
				   vdev->cmdq.dbr_dma);
}

/**
 * vroce_cmdq_exit() - free the command ring
 * @vdev: the device; its HCA reset (it touches no memory) and its command
 *	vector disconnected
 *
 * Context: process context, may sleep.
 */
void vroce_cmdq_exit(struct vroce_dev *vdev)
{
	vroce_ring_destroy(vdev, &vdev->cmdq.ring);
	vroce_core_dma_free(vdev, sizeof(*vdev->cmdq.dbr), vdev->cmdq.dbr,
			    vdev->cmdq.dbr_dma);
	vroce_core_free(vdev, vdev->cmdq.owner);
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

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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
	attr->caps = resp.caps;
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

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
}
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_destroy_mr);

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

	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
}

/**
 * vroce_cmd_create_cq() - CREATE_CQ: give the HCA a CQE ring
 * @vdev: the device
 * @ring: the CQEs
 * @cqn: where the CQ's number is returned
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM when the HCA has no CQ left, another errno from
 * vroce_cmd_errno(), -EAGAIN (no free slot in time: not
 * posted) or -ETIMEDOUT.
 */
int vroce_cmd_create_cq(struct vroce_dev *vdev, const struct vroce_ring *ring,
			u32 *cqn)
{
	struct vroce_cmd_create_cq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_CREATE_CQ),
		.depth_log2 = cpu_to_le32(ring->log2),
	};
	struct vroce_resp_create_cq resp;
	int err;

	vroce_cmd_ring(&req.ring, ring);
	err = vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
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
	struct vroce_cmd_destroy_cq req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_CQ),
		.cqn = cpu_to_le32(cqn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
}

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
		.rq_depth_log2 = desc->rq->log2,
		.sq_sig_all = desc->sq_sig_all,
		.type = desc->type,
	};
	struct vroce_resp_create_qp resp;

	vroce_cmd_ring(&req.sq, desc->sq);
	vroce_cmd_ring(&req.rq, desc->rq);
	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
}

/**
 * vroce_cmd_modify_qp() - MODIFY_QP: a QP's state and connection
 * @vdev: the device
 * @desc: the new state and attributes
 *
 * Moving to VROCE_QPS_ERR makes the HCA flush the QP's queues; moving to
 * VROCE_QPS_RESET makes it forget their progress.
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
		.state = cpu_to_le32(desc->state),
		.dest_qpn = cpu_to_le32(desc->dest_qpn),
		.access = cpu_to_le32(desc->access),
		.rnr_retry = desc->rnr_retry,
		.min_rnr_timer = desc->min_rnr_timer,
		.retry_cnt = desc->retry_cnt,
		.timeout = desc->timeout,
		.qkey = cpu_to_le32(desc->qkey),
	};
	struct vroce_resp_hdr resp;

	memcpy(req.dmac, desc->dmac, ETH_ALEN);
	/* A dead HCA's QPs are in error: RESET and ERR are done in software. */
	return __vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp),
				desc->state == VROCE_QPS_RESET ||
				desc->state == VROCE_QPS_ERR ?
				VROCE_CMD_F_SOFT : 0);
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
	struct vroce_cmd_destroy_qp req = {
		.hdr.opcode = cpu_to_le16(VROCE_CMD_DESTROY_QP),
		.qpn = cpu_to_le32(qpn),
	};
	struct vroce_resp_hdr resp;

	return vroce_cmd_exec(vdev, &req, sizeof(req), &resp, sizeof(resp));
}
