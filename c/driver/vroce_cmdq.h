/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce command queue: the command ring, its slots and tokens, submitters
 * waiting for a slot or a response, and a device that stopped answering
 * (c/driver/vroce_cmdq.c). The typed commands over it, one function per
 * opcode, are c/driver/vroce_cmd.[ch]; only they call vroce_cmdq_exec().
 */
#ifndef _VROCE_CMDQ_H_
#define _VROCE_CMDQ_H_

#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "vroce_ring.h"
#include "../ifc/vroce_cmds.h"

struct vroce_dev;

/* Command ring slots: 16 unless module parameter cmdq_depth says more. */
#define VROCE_CMDQ_DEPTH_LOG2		4
#define VROCE_CMDQ_MIN_DEPTH_LOG2	2
#define VROCE_CMDQ_MAX_DEPTH_LOG2	8

#if IS_ENABLED(CONFIG_KUNIT)
extern unsigned int vroce_cmdq_depth;
extern bool vroce_cmd_lend;
#endif

/*
 * What a command's caller needs of the queue (vroce_cmdq_exec()); which
 * opcodes ask for what is vroce_cmd_flags[] in c/driver/vroce_cmd.c.
 * VROCE_CMDQ_F_WAIT: the command lets go of an object and its caller
 *	cannot fail: it waits for a slot as long as the HCA is alive (not
 *	posting it would keep an object the HCA never heard of).
 * VROCE_CMDQ_F_SOFT: once the device is dead the command is done in
 *	software: it succeeds when the HCA's reset has made it touch no
 *	memory (vroce_cmdq_kill()).
 * Every other command of a dead device fails with -EIO.
 */
#define VROCE_CMDQ_F_WAIT	BIT(0)
#define VROCE_CMDQ_F_SOFT	BIT(1)
/*
 * VROCE_CMDQ_F_FENCE: the command lets go of memory a process will reuse
 *	once it returns (a mapped ring's destroy or resize, issue 31): past
 *	its deadline it waits on for the response while the HCA is alive
 *	and has not moved past it, so that a slow HCA is not taken for one
 *	that let go. A response the HCA carried out and never wrote
 *	(drop_cmds) still ends in -ETIMEDOUT.
 */
#define VROCE_CMDQ_F_FENCE	BIT(2)

/**
 * struct vroce_cmdq_ctx - one posted command waiting for its response; on
 *	the submitter's stack
 * @done: completed once the response is copied into @resp
 * @token: the token the response must carry
 * @resp: the response, copied out of the ring: the slot's response half
 * @killed: the device died while it waited (vroce_cmdq_kill()): no
 *	response comes
 */
struct vroce_cmdq_ctx {
	struct completion done;
	bool killed;
	u32 token;
	u8 resp[VROCE_CMD_RESP_SIZE];
};

/**
 * struct vroce_cmdq - the command ring
 * @ring: the slots (VROCE_CMD_SLOT_SIZE bytes: request, then response)
 * @depth: number of slots, a power of two (module parameter cmdq_depth)
 * @depth_log2: its log2
 * @lock: protects @pi, @ci, @next_token, @owner, @full_waits, @doorbells,
 *	@lending and the doorbell record
 * @pi: next slot to post (free-running)
 * @ci: responses collected (free-running); moves only in
 *	vroce_cmdq_collect(), never ahead of what was collected
 * @next_token: token of the next command
 * @owner: per slot, the submitter waiting for that slot's response, or
 *	NULL once it was delivered or its submitter gave up
 * @space: woken when slots may have been freed
 * @full_waits: submitters that found every slot out and waited
 * @dbr: the doorbell record (DMA-coherent), where @pi goes
 * @dbr_dma: its DMA address
 * @doorbells: CMDQ_PI and CMDQ_LEND doorbells rung; @pi less this is the
 *	commands that found the HCA busy and needed none (those posted while
 *	a lend was pending ring CMDQ_PI whether it was busy or not)
 * @lending: a submitter found the HCA idle and is about to lend it its
 *	context (issue 33): those posting meanwhile ring CMDQ_PI themselves
 * @timeout_ms: how long a command may take, waiting for a slot included
 * @dead: the HCA stopped answering (vroce_cmdq_kill()); set once, under
 *	@lock, read with READ_ONCE()
 * @reset_done: completed once a dead device's HCA is reset and touches
 *	no memory
 *
 * A slot is reused only once @ci has passed it: the HCA has consumed the
 * command and its response, if any, went to its own submitter.
 */
struct vroce_cmdq {
	struct vroce_ring ring;
	u32 depth;
	u32 depth_log2;
	spinlock_t lock;	/* protects the counters, owner, dbr */
	u32 pi;
	u32 ci;
	u32 next_token;
	struct vroce_cmdq_ctx **owner;
	wait_queue_head_t space;
	u64 full_waits;
	struct vroce_cmdq_dbr *dbr;
	dma_addr_t dbr_dma;
	u64 doorbells;
	bool lending;
	unsigned int timeout_ms;
	bool dead;
	struct completion reset_done;
};

int vroce_cmdq_init(struct vroce_dev *vdev);
int vroce_cmdq_start(struct vroce_dev *vdev);
void vroce_cmdq_exit(struct vroce_dev *vdev);
void vroce_cmdq_irq(struct vroce_dev *vdev);
void vroce_cmdq_kill(struct vroce_dev *vdev);
int vroce_cmdq_exec(struct vroce_dev *vdev, void *req, size_t req_len,
		    void *resp, size_t resp_len, u8 flags);

#endif /* _VROCE_CMDQ_H_ */
