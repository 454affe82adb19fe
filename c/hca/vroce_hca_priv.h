/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce emulated HCA, inside: the device state shared by the register
 * decode, command processor and translation engine (c/vroce_emu.c) and the
 * data path engine (c/hca/vroce_hca_engine.c). The driver never sees this.
 *
 * Locking: @reg_lock (a spinlock, always taken irqsave: doorbells come from
 * any context) protects the register file and the doorbell records; @lock
 * (a mutex) protects everything else and is held by the command processor
 * and the engine for as long as they run. @lock nests outside @reg_lock.
 * Each interrupt vector's @lock (struct vroce_emu_irq) is held while its
 * handler runs, and never with @lock or @reg_lock: the HCA only queues
 * its interrupts, as silicon only signals them.
 */
#ifndef _VROCE_HCA_PRIV_H_
#define _VROCE_HCA_PRIV_H_

#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "vroce_emu.h"
#include "../ifc/vroce_bus.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_regs.h"
#include "../ifc/vroce_wqe.h"

struct dentry;

/* What the HCA offers (QUERY_DEVICE); the QP and CQ limits are c/ifc/'s. */
#define VROCE_EMU_MAX_PD		1024
#define VROCE_EMU_MAX_MR		4096
#define VROCE_EMU_MAX_MR_SIZE		BIT_ULL(37)	/* 128 GiB */
#define VROCE_EMU_PAGE_SIZE_CAP		GENMASK_ULL(30, 12)
#define VROCE_EMU_MAX_FRMR_PAGES	4096

enum vroce_emu_mr_state {
	VROCE_EMU_MR_FREE = 0,		/* slot unused */
	VROCE_EMU_MR_VALID,		/* translates */
	VROCE_EMU_MR_FRMR_INVALID,	/* fast-reg MR not registered yet */
};

/* One memory protection table entry. */
struct vroce_emu_mpt {
	enum vroce_emu_mr_state state;
	u8 tag;			/* the consumer's key byte */
	u8 gen;			/* bumped at every CREATE_MR of this slot */
	u32 pdn;
	u32 access;
	u32 kind;
	u64 iova;
	u64 length;
	struct vroce_emu_mtt mtt;
};

/**
 * struct vroce_emu_ring - a ring in host memory, as the HCA reaches it
 * @mtt: its translation, one region
 * @depth_log2: entries = 2^n
 * @entry_size: bytes per entry, a power of two no larger than a page
 */
struct vroce_emu_ring {
	struct vroce_emu_mtt mtt;
	u32 depth_log2;
	u32 entry_size;
};

/**
 * struct vroce_emu_wq - the HCA's side of a send or receive queue
 * @ring: the WQEs
 * @pi: producer count as far as doorbells told, widened to 32 bits
 * @ci: consumer count: WQEs the HCA has completed
 */
struct vroce_emu_wq {
	struct vroce_emu_ring ring;
	u32 pi;
	u32 ci;
};

/* Doorbell record and queue index of a QP's send and receive queue. */
#define VROCE_EMU_SQ		0
#define VROCE_EMU_RQ		1

/**
 * struct vroce_emu_qp - a queue pair context
 * @valid: the slot holds a QP
 * @qpn: its number, VROCE_QPN_BASE + slot
 * @pdn: its protection domain
 * @scqn: CQ of the send queue
 * @rcqn: CQ of the receive queue
 * @sq_sig_all: every send WQE completes
 * @state: enum vroce_qp_state
 * @dest_qpn: the peer
 * @access: VROCE_ACC_REMOTE_* the peer may use on this QP
 * @rnr_retry: RNR retries of each send, 7: forever
 * @min_rnr_timer: IB_RNR_TIMER_* code a requester waits after an RNR here
 * @retry_cnt: transport retries (kept; a lost packet fails at once)
 * @loopback: the peer is on this HCA
 * @wq: the send (VROCE_EMU_SQ) and receive (VROCE_EMU_RQ) queue
 * @rnr_active: the head send WQE met an empty receive queue
 * @rnr_wait: ... and waits for @rnr_deadline or a receive at @rnr_peer
 * @rnr_left: RNR retries left for the head send WQE
 * @rnr_peer: slot of the QP whose receive queue it waits for
 * @rnr_deadline: jiffies of the next retry
 */
struct vroce_emu_qp {
	bool valid;
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
	bool loopback;
	struct vroce_emu_wq wq[2];
	bool rnr_active;
	bool rnr_wait;
	u8 rnr_left;
	u32 rnr_peer;
	unsigned long rnr_deadline;
};

/**
 * struct vroce_emu_cq - a completion queue context
 * @valid: the slot holds a CQ
 * @ring: the CQEs
 * @pi: producer count: CQEs written
 * @users: send and receive queues completing here
 * @overflowed: a CQE was lost (reported once)
 * @event_pending: a delayed completion event is due at @event_due
 * @event_due: jiffies
 */
struct vroce_emu_cq {
	bool valid;
	struct vroce_emu_ring ring;
	u32 pi;
	u32 users;
	bool overflowed;
	bool event_pending;
	unsigned long event_due;
};

/**
 * struct vroce_emu_qp_db - the doorbell record of a QP
 * @pi: the last producer index rung, per queue (VROCE_EMU_SQ/RQ)
 */
struct vroce_emu_qp_db {
	u16 pi[2];
};

/**
 * struct vroce_emu_cq_db - the doorbell record of a CQ
 * @ci: the last consumer index rung
 * @arm: VROCE_DB_CQ_CMD_ARM_NEXT or _ARM_SOL while armed, else 0
 */
struct vroce_emu_cq_db {
	u16 ci;
	u8 arm;
};

/**
 * struct vroce_emu_irq - one interrupt vector
 * @emu: the HCA
 * @lock: protects @handler and @data; held while the handler runs
 * @handler: the driver's handler, NULL when none is connected
 * @data: its argument
 * @work: delivers the interrupt, on &vroce_emu.irq_wq
 */
struct vroce_emu_irq {
	struct vroce_emu *emu;
	struct mutex lock;	/* protects handler, data */
	void (*handler)(void *data);
	void *data;
	struct work_struct work;
};

struct vroce_emu {
	struct platform_device *pdev;

	spinlock_t reg_lock;		/* protects regs[] and the doorbell records */
	u32 regs[VROCE_BAR_SIZE / sizeof(u32)];
	struct vroce_emu_qp_db qp_db[VROCE_MAX_QP];
	struct vroce_emu_cq_db cq_db[VROCE_MAX_CQ];
	DECLARE_BITMAP(db_pending, VROCE_MAX_QP);	/* rung since last look */
	u32 eq_pi;			/* event queue producer count */

	struct mutex lock;		/* protects everything below */
	struct vroce_emu_mpt *mpt;
	u32 max_mr;			/* MPT entries in use, VROCE_EMU_MAX_MR at most */
	unsigned long *pd_map;
	u32 fail_cmds;
	u32 fail_status;
	u32 drop_cmds;
	u32 delay_ms;
	u32 fault_opcode;		/* fail/drop only this opcode; 0: any */

	/* Data path (c/hca/vroce_hca_engine.c). */
	struct vroce_emu_qp *qps;	/* VROCE_MAX_QP slots */
	struct vroce_emu_cq *cqs;	/* VROCE_MAX_CQ slots */
	DECLARE_BITMAP(run_map, VROCE_MAX_QP);	/* QPs the engine must visit */
	void *bounce;			/* one message, VROCE_MAX_MSG_SIZE */
	bool eq_raise;			/* EQEs written since the last interrupt */
	bool timed;			/* an RNR wait or delayed event may exist */
	u32 drop_events;
	u32 event_delay_ms;
	u32 eq_lost;			/* events the EQ could not take */

	struct workqueue_struct *wq;	/* ordered: one work item at a time */
	struct workqueue_struct *irq_wq;	/* interrupt delivery */
	struct vroce_emu_irq irq[VROCE_NUM_IRQS];
	struct work_struct cmd_work;
	struct work_struct engine_work;
	struct delayed_work timer_work;	/* RNR retries, delayed events */
	struct dentry *debugfs;
};

static inline struct device *vroce_emu_dev(struct vroce_emu *emu)
{
	return &emu->pdev->dev;
}

/* A register's value; the caller holds @reg_lock. */
static inline u32 vroce_emu_reg(struct vroce_emu *emu, u32 off)
{
	lockdep_assert_held(&emu->reg_lock);
	return emu->regs[off / sizeof(u32)];
}

/* c/hca/vroce_hca_cmd.c */
void vroce_emu_cmd_init(struct vroce_emu *emu);

/* c/hca/vroce_hca_core.c */
bool vroce_emu_inject(void);
void vroce_emu_raise_irq(struct vroce_emu *emu, unsigned int vec, u32 cause);
bool vroce_emu_ring_from_regs(struct vroce_emu *emu, u32 ba_reg, u32 cfg,
			      u32 max_log2, u32 entry_size,
			      struct vroce_emu_ring *ring);
void *vroce_emu_ring_entry(struct vroce_emu *emu,
			   const struct vroce_emu_ring *ring, u32 count);

/* c/hca/vroce_hca_mpt.c */
int vroce_emu_mpt_alloc(struct vroce_emu *emu);
void vroce_emu_mpt_free(struct vroce_emu *emu);
void vroce_emu_mpt_reset(struct vroce_emu *emu);
void vroce_emu_mpt_debugfs_init(struct vroce_emu *emu, struct dentry *dir);
bool vroce_emu_pd_valid(struct vroce_emu *emu, u32 pdn);
bool vroce_emu_pd_has_mr(struct vroce_emu *emu, u32 pdn);
u16 vroce_emu_create_mr(struct vroce_emu *emu,
			const struct vroce_cmd_create_mr *cmd,
			struct vroce_resp_create_mr *resp);
u16 vroce_emu_destroy_mr(struct vroce_emu *emu,
			 const struct vroce_cmd_destroy_mr *cmd);
int vroce_emu_mr_access_locked(struct vroce_emu *emu, u32 key, u32 pdn,
			       u64 iova, void *buf, u64 len, u32 access,
			       bool write);
int vroce_emu_frmr_register_locked(struct vroce_emu *emu, u32 key, u32 pdn,
				   u64 iova, u64 length, u32 access, u64 pbl,
				   u32 npages);
int vroce_emu_frmr_invalidate_locked(struct vroce_emu *emu, u32 key, u32 pdn);

/* c/hca/vroce_hca_engine.c */
int vroce_emu_engine_alloc(struct vroce_emu *emu);
void vroce_emu_engine_free(struct vroce_emu *emu);
void vroce_emu_engine_quiesce(struct vroce_emu *emu);
void vroce_emu_engine_stop(struct vroce_emu *emu);
void vroce_emu_engine_reset(struct vroce_emu *emu);
void vroce_emu_engine_raise(struct vroce_emu *emu);
bool vroce_emu_doorbell(struct vroce_emu *emu, u32 off, u32 val);
bool vroce_emu_pd_busy(struct vroce_emu *emu, u32 pdn);
u16 vroce_emu_create_cq(struct vroce_emu *emu,
			const struct vroce_cmd_create_cq *cmd,
			struct vroce_resp_create_cq *resp);
u16 vroce_emu_destroy_cq(struct vroce_emu *emu,
			 const struct vroce_cmd_destroy_cq *cmd);
u16 vroce_emu_create_qp(struct vroce_emu *emu,
			const struct vroce_cmd_create_qp *cmd,
			struct vroce_resp_create_qp *resp);
u16 vroce_emu_modify_qp(struct vroce_emu *emu,
			const struct vroce_cmd_modify_qp *cmd);
u16 vroce_emu_destroy_qp(struct vroce_emu *emu,
			 const struct vroce_cmd_destroy_qp *cmd);

#endif /* _VROCE_HCA_PRIV_H_ */
