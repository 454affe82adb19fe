// SPDX-License-Identifier: GPL-2.0
/*
 * vroce command queue: the command ring, after efa_com.c (the typed
 * commands over it are c/driver/vroce_cmd.c, as efa_com_cmd.c is over
 * efa_com.c).
 *
 * A command is copied into the next ring slot, the producer index goes to
 * the ring's doorbell record and, when the HCA went idle waiting for it,
 * to the doorbell register; the caller sleeps until the HCA's interrupt
 * brings the response (matched by token) or the timeout passes. An HCA
 * with VROCE_CAP_CMD_LEND (issue 33) may instead carry the command out in
 * the context that writes the doorbell (CMDQ_LEND), raising no interrupt:
 * that submitter then collects its response and sleeps for none. Up to the
 * ring's depth of commands may be outstanding: those posted while the HCA
 * works need no doorbell of their own. HCA status becomes an errno
 * in exactly one place, vroce_cmd_errno(). A device whose HCA stops
 * answering is dead (vroce_cmdq_kill()): its commands fail at once, or
 * are done in software, as their flags (VROCE_CMDQ_F_*) say.
 */

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "vroce.h"
#include "vroce_cmdq.h"
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

/*
 * Issue 33: lend a submitter's context to the HCA's command processor
 * (VROCE_CAP_CMD_LEND): Documentation/device.rst, "Lent command doorbells".
 */
VISIBLE_IF_KUNIT bool vroce_cmd_lend = true;
EXPORT_SYMBOL_IF_KUNIT(vroce_cmd_lend);
module_param_named(cmd_lend, vroce_cmd_lend, bool, 0644);
MODULE_PARM_DESC(cmd_lend, "carry out HCA commands in the submitter's context when the HCA can (default: on)");

/*
 * Whether the submitter may lend its context (review of issue 33): its
 * command then holds the HCA's command processor and the wire's lock, in
 * the submitter's context. A task the scheduler serves less than the
 * HCA's own work (SCHED_IDLE, a positive nice value), preempted there,
 * would hold up every HCA on the wire: its commands go to that work.
 */
static bool vroce_cmdq_may_lend(void)
{
	return current->policy != SCHED_IDLE && task_nice(current) <= 0;
}

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
	struct vroce_cmdq_ctx *ctx;
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
 * The handler of the HCA's command vector (c/driver/vroce_dev.c); and what
 * a submitter does after a lent doorbell (issue 33), whose commands raised
 * no interrupt.
 *
 * Context: the HCA's interrupt context, or a submitter's (process context,
 * may not block on the command ring).
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
 * Deadlines in a row a command of VROCE_CMDQ_F_WAIT waits for a slot while
 * the HCA consumes nothing, its heartbeat moving or not, before the HCA
 * counts as dead: a command processor stuck behind a live heartbeat
 * must not hold destroys, and unbinding, for good.
 */
#define VROCE_CMD_STALLS	4

/*
 * How often a submitter waiting for a slot looks at the ring at the
 * latest: a command the HCA carried out without completing raises no
 * interrupt.
 */
#define VROCE_CMDQ_POLL_MS	10

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
 * software (VROCE_CMDQ_F_SOFT), which succeed once the HCA is reset;
 * submitters waiting for a slot or a response are woken to that answer.
 * &vroce_dev.fatal_work resets the HCA, completes @reset_done and tells
 * the RDMA core's clients (IB_EVENT_DEVICE_FATAL). Idempotent.
 *
 * Context: any context but the command vector's handler.
 */
void vroce_cmdq_kill(struct vroce_dev *vdev)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	struct vroce_cmdq_ctx *ctx;
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
	return flags & VROCE_CMDQ_F_SOFT ? 0 : -EIO;
}

/* Whether a slot is free or the device died, collecting what is done. */
static bool vroce_cmdq_can_post(struct vroce_dev *vdev)
{
	return vroce_cmdq_has_space(vdev) || READ_ONCE(vdev->cmdq.dead);
}

/**
 * vroce_cmdq_exec() - carry out one command
 * @vdev: the device
 * @req: the request, a command header first; its token is filled in
 * @req_len: its size, at most VROCE_CMD_REQ_SIZE
 * @resp: where the response goes, a response header first
 * @resp_len: its size, from that header's to VROCE_CMD_RESP_SIZE
 * @flags: VROCE_CMDQ_F_*, as vroce_cmd_flags[] says of the opcode
 *
 * Post @req and wait for the response, copied to @resp. Waiting for a
 * free slot and for the response share one deadline of timeout_ms: a
 * command that finds no slot by then is not posted (-EAGAIN: the HCA
 * never saw it), except one of VROCE_CMDQ_F_WAIT, which waits on while
 * the HCA is alive; one posted gets at least a quarter of timeout_ms per
 * 16 slots of the ring for its response. When a deadline passes and the
 * HCA's heartbeat stands still, or it reports a fatal error, the device
 * is dead (vroce_cmdq_kill()). For the typed commands of
 * c/driver/vroce_cmd.c only.
 *
 * Context: process context, may sleep; no spinlock held.
 * Return: the HCA's status as an errno (vroce_cmd_errno()), -EAGAIN,
 * -ETIMEDOUT, or for a dead device 0 (@flags has VROCE_CMDQ_F_SOFT) or
 * -EIO.
 */
int vroce_cmdq_exec(struct vroce_dev *vdev, void *req, size_t req_len,
		    void *resp, size_t resp_len, u8 flags)
{
	struct vroce_cmdq *q = &vdev->cmdq;
	unsigned long deadline = jiffies + msecs_to_jiffies(q->timeout_ms);
	struct vroce_cmd_hdr *hdr = req;
	u16 opcode = le16_to_cpu(hdr->opcode);
	u32 seen_ci = 0, hw_ci, stalls = 0;
	struct vroce_cmdq_ctx ctx;
	unsigned long left;
	bool killed, lend;
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
			if (!(flags & VROCE_CMDQ_F_WAIT)) {
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
					 msecs_to_jiffies(VROCE_CMDQ_POLL_MS)));
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
	/*
	 * Issue 33: lend this context when the HCA went idle, unless another
	 * submitter is about to; then the doorbell register is ours to
	 * write, as the HCA may have seen nothing yet.
	 */
	lend = READ_ONCE(vroce_cmd_lend) && !q->lending &&
	       (vdev->attr.caps & VROCE_CAP_CMD_LEND) && vroce_cmdq_may_lend();
	if (vroce_hw_cmdq_doorbell(&vdev->hw, q->dbr, q->pi, lend)) {
		q->doorbells++;
	} else {
		lend = false;
		if (q->lending) {
			vroce_hw_cmdq_kick(&vdev->hw, q->pi);
			q->doorbells++;
		}
	}
	q->lending |= lend;
	spin_unlock(&q->lock);

	/*
	 * The HCA carries out our command here, or leaves it to its work.
	 * A command carried out here raised no interrupt: collect.
	 */
	if (lend) {
		vroce_hw_cmdq_lend(&vdev->hw, index + 1);
		spin_lock(&q->lock);
		q->lending = false;
		vroce_cmdq_collect(vdev);
		spin_unlock(&q->lock);
		wake_up(&q->space);
		/*
		 * A submitter that waited for its response let others run;
		 * one whose command ran here has not: a caller issuing
		 * commands in a loop must not keep the HCA's engines and
		 * every other task off a CPU that does not preempt
		 * (vroce_resize.under_traffic polled 0 CQEs in 18 M resizes).
		 */
		cond_resched();
	}

	/*
	 * Posted, it may be behind depth - 1 others: at least a quarter of
	 * the timeout per 16 slots for its response.
	 */
wait:
	left = wait_for_completion_timeout(&ctx.done,
					   max(vroce_cmd_left(deadline),
					       msecs_to_jiffies(q->timeout_ms) / 4 *
					       max(1U, q->depth >>
						       VROCE_CMDQ_DEPTH_LOG2)));

	/*
	 * A fenced command the HCA has not reached yet: wait on while it
	 * lives (review of issue 31: the process reuses the memory at once).
	 */
	if (!left && (flags & VROCE_CMDQ_F_FENCE) && !completion_done(&ctx.done) &&
	    !READ_ONCE(q->dead) && !READ_ONCE(ctx.killed) &&
	    (s32)(vroce_hw_cmdq_ci(&vdev->hw) - index) <= 0) {
		if (!vroce_cmd_hca_alive(vdev)) {
			vroce_cmdq_kill(vdev);
		} else {
			dev_warn_ratelimited(vdev->dma_dev,
					     "command %u late: waiting on\n",
					     opcode);
			deadline = jiffies + msecs_to_jiffies(q->timeout_ms);
		}
		goto wait;
	}

	spin_lock(&q->lock);
	/* A response in the ring not handed out yet counts too. */
	if (!left && !ctx.killed)
		vroce_cmdq_collect(vdev);
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
