/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce: driver-internal definitions shared by the C files of the driver
 * (c/driver/). Documentation/design.rst maps the files and what each may
 * call; the HCA is reached only through c/driver/vroce_hw.h, MR/MTR state
 * only through bindings/vroce_abi.h.
 *
 * Locking
 * =======
 *
 * Locks of one device, outermost first; a lock is only taken with those
 * above it held, never the reverse:
 *
 *   vroce_eq.lock (mutex)        the consumer's: held while it consumes
 *                                the event queue and calls the consumers'
 *                                completion and event handlers; a
 *                                destroyed CQ or QP leaves &vroce_dev.cqs
 *                                or .qps under it (vroce_eq_forget()), so
 *                                a destroy in another task waits for the
 *                                handlers. Handlers may take every lock
 *                                below and may destroy CQs and QPs, their
 *                                own included: such a destroy runs in the
 *                                consumer's task, which holds the lock;
 *                                vroce_eq_in_handler() (the one test of
 *                                &vroce_eq.consumer) says so, and the
 *                                destroy then works under the lock it
 *                                holds (__vroce_eq_forget(), the deferred
 *                                vroce_eq_release_qpn()), never taking it
 *                                again. lockdep checks both answers: the
 *                                lock is asserted held on the first, and
 *                                taken (a recursion, were it held) on the
 *                                other. Handlers must not wait for another
 *                                event of this device, nor for a task that
 *                                may be waiting for this lock.
 *   vroce_mr_cache.reclaim_lock (mutex)  one registration at a time
 *                                that destroys the cache's idle entries
 *                                for their MPT slots, from
 *                                vroce_mr_cache_reclaim_begin() to
 *                                vroce_mr_cache_reclaim_end(); held across
 *                                cancelling the refill work (which never
 *                                takes it), the entries' DESTROY_MRs
 *                                (vroce_mr_cache_shrink(), with
 *                                mr_cache.lock dropped), the zombies'
 *                                reaping that follows them, and the second
 *                                CREATE_MR. Takes mr_cache.lock and
 *                                zombie_lock inside, one at a time.
 *   vroce_mr_cache.lock (mutex)  the cache's buckets, counters and PD;
 *                                held across the cache's CREATE_PD
 *                                (vroce_mr_cache_pop()) and no other
 *                                command: entries are made (CREATE_MR),
 *                                revoked and destroyed with it dropped.
 *                                Never held together with zombie_lock:
 *                                a discarded entry is parked, and the
 *                                zombies reaped, after it is dropped.
 *   vroce_cq.resize_mutex (mutex)  serialises resize_cq: held across
 *                                its RESIZE_CQ command; takes
 *                                zombie_lock (a lost RESIZE_CQ parks the
 *                                new ring) and cq.lock inside.
 *   vroce_dev.zombie_lock (mutex)  the three zombie lists; held across the
 *                                DESTROY commands vroce_mr_reap() retries.
 *   vroce_qp.state_lock (mutex)  serialises modify_qp and query_qp;
 *                                protects &vroce_qp.attr.
 *                                &vroce_qp.state is not under it alone: see
 *                                its kernel-doc.
 *   vroce_cq.lock (spinlock, irqsave)  a CQ's consumer index and entries:
 *                                polling, arming, cleaning (modify_qp to
 *                                RESET and destroy_qp clean under
 *                                state_lock or with no lock); its lists of
 *                                QPs (a dead device's software flush).
 *   vroce_wq.lock (spinlock, irqsave)  a work queue's indices and entries;
 *                                taken inside cq.lock when a polled CQE
 *                                retires WQEs (vroce_qp_retire()).
 *   vroce_srq.lock (spinlock, irqsave)  an SRQ's producer index and
 *                                entries (post_srq_recv()); taken with
 *                                no other lock of the driver held.
 *   vroce_cmdq.lock (spinlock)   the command ring's indices, tokens and
 *                                slot owners (c/driver/vroce_cmdq.c);
 *                                never held while sleeping: a submitter
 *                                drops it to wait. Commands are issued
 *                                under any of the mutexes above, never
 *                                under a spinlock.
 *
 * Below all of them are the HCA's own locks, taken inside its bus
 * callbacks (register writes); the HCA calls the driver only from its
 * interrupt vectors, outside its locks (c/hca/vroce_hca_priv.h).
 *
 * Without a lock: &vroce_dev.cqs and .qps are xarrays (their own lock); an
 * entry is live while it is in the array, and leaves only under eq.lock.
 * &vroce_dev.mem is atomics; &vroce_dev.reap_next moves by cmpxchg().
 * The MR cache's trim and refill works take mr_cache.lock and
 * zombie_lock themselves; vroce_mr_cache_drain() cancels them with no
 * lock held. rtnl_lock is taken alone, by netdev set-up.
 */
#ifndef _VROCE_H_
#define _VROCE_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "vroce_cmd.h"
#include "vroce_cmdq.h"
#include "vroce_hw.h"
#include "vroce_ring.h"
#include "../compat/vroce_compat.h"
#include "../ifc/vroce_bus.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_wqe.h"
#include "../uapi/vroce-abi.h"

#define VROCE_DRV_NAME		"vroce"
#define VROCE_NUM_PORTS		1
#define VROCE_GID_TBL_LEN	16
#define VROCE_MAX_AH		65536	/* advertised; AHs are software objects */
/* max_rd_atomic a QP takes (rxe's); the HCA keeps VROCE_MAX_RD_ATOMIC. */
#define VROCE_MAX_INIT_RD_ATOMIC	128

/**
 * struct vroce_mem_stats - accounting of the memory the MR/MTR code takes
 * @allocs: successful allocations through the vroce_core_* services
 * @frees: frees through them; equal to @allocs when nothing is held
 * @dma_bytes: bytes of DMA-coherent memory held (tables, kernel buffers)
 * @fail_nth: fault injection: when set to n > 0, the n-th injection point
 *	(vroce_inject(): every allocation through vroce_core_*, and the
 *	driver's other steps that can fail for want of memory) from then on
 *	fails (and @fail_nth drops back to 0); 0 disables it
 *
 * Atomics, no lock: allocations may run concurrently on one device.
 */
struct vroce_mem_stats {
	atomic64_t allocs;
	atomic64_t frees;
	atomic64_t dma_bytes;
	atomic_t fail_nth;
};

/* One past the highest QP number (VROCE_QPN_BASE + slot). */
#define VROCE_QPN_LIMIT		(VROCE_QPN_BASE + VROCE_MAX_QP)

/**
 * struct vroce_eq - the event queue: completion and error events from the
 *	HCA, consumed by the handler of its event vector
 * @ring: the EQEs; set before the event vector is connected, freed under
 *	@lock after it is disconnected
 * @lock: held while events are consumed and while a destroyed CQ or QP
 *	leaves its table; protects @ci and the entries of @ring
 * @consumer: the task holding @lock to consume events and call handlers,
 *	or NULL; written by that task under @lock (vroce_eq_lock() and
 *	vroce_eq_unlock()), read without it (READ_ONCE()) by
 *	vroce_eq_in_handler() only, so that a destroy a handler calls knows
 *	the lock is held, by its own task
 * @ci: events consumed (free running)
 * @qpn_release: numbers of QPs destroyed by handlers, freed by the
 *	consuming loop once the queue is empty (vroce_eq_release_qpn());
 *	under @lock
 */
struct vroce_eq {
	struct vroce_ring ring;
	struct mutex lock;	/* protects ci, ring entries, qpn_release */
	struct task_struct *consumer;
	u32 ci;
	DECLARE_BITMAP(qpn_release, VROCE_QPN_LIMIT);
};

struct vroce_pd_zombie;

/* Rights (VROCE_MR_RIGHT_*) and 2^0..2^12 pages of 4 KiB: the buckets. */
#define VROCE_MR_CACHE_RIGHTS	16
#define VROCE_MR_CACHE_ORDERS	13
/* Idle entries a bucket keeps; more are destroyed. */
#define VROCE_MR_CACHE_HIGH	16U
/*
 * Registrations an entry serves before it is destroyed: each moves its
 * slot's 8-bit key generation on, and a new entry takes a random slot.
 */
#define VROCE_MR_CACHE_USES	16

/**
 * struct vroce_mr_cache_bucket - the idle cache entries of one rights and
 *	order, under &vroce_mr_cache.lock
 * @idle: the entries (struct vroce_mr, linked by @cache)
 * @count: entries in @idle
 * @used: a registration took from it or missed in it, or a deregistration
 *	returned to it, since the last trim
 * @warm: a registration took from it or missed in it since it was last
 *	emptied: the refill keeps &vroce_mr_cache.low entries in it
 */
struct vroce_mr_cache_bucket {
	struct list_head idle;
	u32 count;
	bool used;
	bool warm;
};

/**
 * struct vroce_mr_cache - HCA MR entries kept for re-registration
 *	(c/driver/vroce_mr_cache.c)
 * @reclaim_lock: held by a registration that destroys the idle entries
 *	for MPT slots and tries CREATE_MR again, from
 *	vroce_mr_cache_reclaim_begin() to vroce_mr_cache_reclaim_end();
 *	taken before @lock
 * @lock: protects the rest; held across the cache's CREATE_PD, no other
 *	command
 * @enabled: reg_user_mr takes entries from here (module parameter mr_cache)
 * @have_pd: @pdn is the cache's own PD, where idle entries wait
 * @pd_lost: the cache's CREATE_PD timed out: the HCA may hold a PD whose
 *	number was never learnt, so the cache makes no PD again (misses take
 *	the cold path) until the HCA is reset
 * @pdn: its number
 * @pd_zombie: the record that keeps @pdn if the HCA refuses to free it
 * @bucket: the idle entries, by rights (VROCE_MR_RIGHT_*) and order
 * @low: the low water mark (module parameter mr_cache_low)
 * @reclaiming: registrations destroying idle entries for MPT slots; the
 *	refill makes no entry meanwhile
 * @idle_ms: the trim's period (module parameter mr_cache_idle_ms)
 * @trim_work: destroys the idle entries of buckets no registration used
 *	for a whole period; queued while entries are idle
 * @refill_work: makes entries for warm buckets below @low; queued, to run
 *	a jiffy later, by a registration that leaves one so
 * @hits: registrations that found an entry
 * @misses: registrations that made one
 * @recycled: deregistrations that returned one
 * @dropped: entries destroyed (bucket full, drained, trimmed, or not
 *	revoked)
 * @trimmed: of those, entries the trim destroyed
 * @reclaimed: of those, entries destroyed for their MPT slots
 *	(vroce_mr_cache_shrink())
 * @refilled: entries the refill made
 * @refill_failed: refills that stopped at a failed CREATE_MR
 */
struct vroce_mr_cache {
	struct mutex reclaim_lock;	/* one reclaim at a time */
	struct mutex lock;	/* protects everything below but the works */
	bool enabled;
	bool have_pd;
	bool pd_lost;
	u32 pdn;
	struct vroce_pd_zombie *pd_zombie;
	struct vroce_mr_cache_bucket
		bucket[VROCE_MR_CACHE_RIGHTS][VROCE_MR_CACHE_ORDERS];
	u32 low;
	u32 reclaiming;
	u32 idle_ms;
	struct delayed_work trim_work;
	struct delayed_work refill_work;
	u64 hits;
	u64 misses;
	u64 recycled;
	u64 dropped;
	u64 trimmed;
	u64 reclaimed;
	u64 refilled;
	u64 refill_failed;
};

/**
 * struct vroce_odp_work - the work that handles one fault slot's events
 * @work: on system_unbound_wq
 * @vdev: the device
 * @slot: the HCA's fault slot
 */
struct vroce_odp_work {
	struct work_struct work;
	struct vroce_dev *vdev;
	u32 slot;
};

/**
 * struct vroce_dev - one vroce HCA as the RDMA core sees it
 * @ibdev: the RDMA core's device; allocated by ib_alloc_device(), so it
 *	must stay the first member
 * @dma_dev: the device that DMA is mapped for (the HCA, emulated or real);
 *	also the parent of @ibdev
 * @mem: allocations made for MR/MTR objects of this device
 * @hw: register access to the HCA
 * @cmdq: the command ring
 * @mr_cache: idle MR entries for reg_user_mr
 * @attr: the HCA's limits, from QUERY_DEVICE
 * @zombie_lock: protects @zombies, @ring_zombies, @pd_zombies and
 *	@mw_zombies
 * @zombies: MRs whose DESTROY_MR failed: the HCA may still use their
 *	tables, so they are kept until it confirms or is reset
 * @pd_zombies: PD numbers whose DESTROY_PD failed, retried after MRs are
 *	reaped, forgotten when the HCA is reset
 * @ring_zombies: rings of CQs and QPs whose DESTROY failed, kept until the
 *	HCA is reset
 * @mw_zombies: memory windows whose DEALLOC_MW failed or whose ALLOC_MW
 *	was lost (struct vroce_mw_zombie), retried with the MRs
 * @debugfs: the driver's debugfs directory, vroce/<ibdev name>
 * @netdev: the HCA's Ethernet port, whose MAC and addresses fill the GID
 *	table
 * @link: issue 34: the netdev the bus names as the HCA's port
 *	(&vroce_hca_res.link, 'rdma link add'), which is then @netdev too;
 *	NULL: @netdev is the driver's own
 * @link_tracker: the driver's reference on @link, from probe to remove
 * @port_up: issue 34: the port state last told to the consumers
 *	(vroce_port_event())
 * @port_gone: no port event is told (the device is being unregistered);
 *	under @eq.lock
 * @name: ib_register_device()'s name: "vroce%d", or 'rdma link add''s
 * @eq: the event queue
 * @cqs: CQs by number, for events; entries are live while in the array
 * @srqs: SRQs by number, for events; entries are live while in the array
 * @qps: QPs by number, for events and CQEs; an allocating array: the
 *	driver chooses QP numbers, and a number stays taken (a NULL entry)
 *	from its QP's destroy until nothing of that QP can arrive
 * @qpn_next: where the search for a free QP number starts
 * @reap_next: when vroce_mr_reap_zombies() may retry the zombies next
 *	(jiffies)
 * @fatal_work: a dead device (vroce_cmdq_kill()): resets the HCA, then
 *	tells the RDMA core's clients and queues @flush_work
 * @flush_work: calls the completion handlers of a dead device's armed CQs
 *	(vroce_eq_flush_work()): software completions wait there
 * @health_work: polls the HCA's heartbeat (module parameter
 *	health_poll_ms) while the device is registered
 * @health_beat: the heartbeat the last poll read
 * @kunit_unpriv: KUnit only (issue 31, hca): kernel QPs created from now
 *	on are unprivileged too (CREATE_QP's VROCE_QP_F_UNPRIV), standing in
 *	for a process's, whose rings the test then writes as a process would
 * @gid_stale: (review of issue 31) bit i: emptying the HCA's GID entry i
 *	failed (vroce_del_gid()) and is done again before the next change of
 *	the table; atomic bitops (the core serialises add_gid and del_gid
 *	under its table's lock)
 * @odp_lock: (issue 33) protects @odp_mrs; held through a page fault's
 *	resolution, so that deregistration waits for it
 * @odp_mrs: ODP MRs by their HCA handle, for the page faults
 * @odp_work: one work item per HCA fault slot
 * @odp_stopping: the device stops: page faults are left alone
 * @odp_fence_lock: held for reading by an invalidation's FENCE, for
 *	writing to set @odp_quiet
 * @odp_quiet: the HCA is reset: invalidations issue no FENCE
 */

struct vroce_dev {
	struct ib_device ibdev;
	struct device *dma_dev;
	struct vroce_mem_stats mem;
	struct vroce_hw hw;
	struct vroce_cmdq cmdq;
	struct vroce_mr_cache mr_cache;
	struct vroce_dev_attr attr;
	struct mutex zombie_lock;	/* protects the four zombie lists */
	struct list_head zombies;
	struct list_head ring_zombies;
	struct list_head pd_zombies;
	struct list_head mw_zombies;
	struct dentry *debugfs;
	struct net_device *netdev;
	struct net_device *link;
	netdevice_tracker link_tracker;
	bool port_up;
	bool port_gone;
	char name[IB_DEVICE_NAME_MAX];
	struct vroce_eq eq;
	struct xarray cqs;
	struct xarray srqs;
	struct xarray qps;
	u32 qpn_next;
	unsigned long reap_next;
	struct work_struct fatal_work;
	struct work_struct flush_work;
	struct delayed_work health_work;
	u32 health_beat;
	/* issue 31, hca */
	bool kunit_unpriv;
	/* review of issue 31 */
	unsigned long gid_stale;
	/* issue 33, on-demand paging (c/driver/vroce_odp.c) */
	struct mutex odp_lock;
	struct xarray odp_mrs;
	struct vroce_odp_work odp_work[VROCE_PAGE_FAULT_SLOTS];
	bool odp_stopping;
	struct rw_semaphore odp_fence_lock;
	bool odp_quiet;
};

/**
 * vroce_dev_dead() - whether @vdev's HCA stopped answering and was reset
 * @vdev: the device
 *
 * A dead device's commands fail with -EIO and its destroys are done in
 * software (vroce_cmdq_kill()). Once its HCA is reset, which finishes the
 * QP visits in flight, nothing more is written to its CQs: from then on
 * its QPs complete every work request with IB_WC_WR_FLUSH_ERR
 * (Documentation/datapath.rst).
 *
 * Context: any context.
 * Return: true once the HCA of a dead device is reset.
 */
static inline bool vroce_dev_dead(struct vroce_dev *vdev)
{
	return completion_done(&vdev->cmdq.reset_done);
}

#if IS_ENABLED(CONFIG_KUNIT)
extern unsigned int vroce_health_poll_ms;
#endif

/* How often vroce_mr_reap_zombies() retries the zombies at most. */
#define VROCE_REAP_PERIOD	(HZ / 10)

/* issue 31: a doorbell record of a mapped ring (c/driver/vroce_dbrec.c) */
#define VROCE_DBREC_SIZE	8

/**
 * struct vroce_dbrec - a pinned user doorbell record
 * @umem: the pinned page, or NULL when unset
 * @dma: the record's DMA address, as the HCA reads it
 * @va: the record's kernel address (the driver reads it only to flush a
 *	dead device's queues in software; it trusts none of it)
 *
 * A CQ, QP or SRQ with one is mapped (issue 31): its rings are the
 * process's (a user-buffer MTR in &vroce_ring.mtr, no kernel address in
 * &vroce_ring.page), the process posts and polls them itself, and the
 * kernel never reads or writes an entry of them.
 */
struct vroce_dbrec {
	struct ib_umem *umem;
	dma_addr_t dma;
	void *va;
};

/**
 * struct vroce_cq - a completion queue
 * @ibcq: the RDMA core's CQ; allocated by the core
 * @cqn: the HCA's number for it
 * @ring: the CQEs
 * @zombie: the record that parks @ring if the HCA does not let go of it
 * @lock: protects @ci and the entries of @ring; serialises polling,
 *	arming and cleaning
 * @ci: CQEs consumed (free running)
 * @sq_qps: the QPs whose send queue completes here (&vroce_qp.sq_node),
 *	under @lock
 * @rq_qps: the QPs whose receive queue completes here (&vroce_qp.rq_node)
 * @armed: req_notify_cq() armed it and no completion event came since;
 *	on a dead device, whose HCA writes no event, the next @flush_work of
 *	&struct vroce_dev calls the handler of an armed CQ (a CQ polled
 *	directly is never armed, and never called)
 * @resize_mutex: serialises resize_cq(); taken outside @lock
 * @resizing: RESIZE_CQ is out: the HCA may be copying the ring, so
 *	polling finds nothing and no doorbell carries @ci until the new ring
 *	is taken, under @lock
 * @resize_arm: an arm asked for while @resizing, rung after it
 * @resize_clean: QPs (slot = QPN - VROCE_QPN_BASE) vroce_cq_clean() was
 *	called for while @resizing: their CQEs copied to the new ring are
 *	cleaned there too, under @lock
 * @mapped: the ring is the process's (issue 31): the kernel neither polls
 *	nor cleans it, and @ci is unused
 * @dbrec: a mapped CQ's doorbell record; unset otherwise
 */
struct vroce_cq {
	struct ib_cq ibcq;
	u32 cqn;
	struct vroce_ring ring;
	struct vroce_ring_zombie *zombie;
	spinlock_t lock;	/* protects ci, ring entries */
	u32 ci;
	struct list_head sq_qps;
	struct list_head rq_qps;
	bool armed;
	/* issue 30, cq/counters: resize_cq */
	struct mutex resize_mutex;	/* serialises resizes */
	bool resizing;
	u8 resize_arm;
	DECLARE_BITMAP(resize_clean, VROCE_MAX_QP);
	/* issue 31 */
	bool mapped;
	struct vroce_dbrec dbrec;
};

/**
 * struct vroce_wq - one work queue of a QP (send or receive)
 * @ring: the WQEs
 * @lock: protects @pi, @ci and the entries of @ring
 * @pi: WQEs posted (free running)
 * @ci: WQEs completed, as far as polled CQEs tell
 * @max_sge: SGEs a WQE takes
 */
struct vroce_wq {
	struct vroce_ring ring;
	spinlock_t lock;	/* protects pi, ci, ring entries */
	u32 pi;
	u32 ci;
	u32 max_sge;
};

/**
 * struct vroce_qp - a queue pair: RC, UD, or the GSI QP (QP1)
 * @ibqp: the RDMA core's QP; allocated by the core
 * @sq: the send queue
 * @rq: the receive queue
 * @type: enum vroce_qp_type
 * @state_lock: serialises modify_qp and query_qp; protects @attr
 * @state: the state as the driver last set it, or ERR once an error
 *	completion was polled or a fatal event came; modify_qp moves it
 *	under @state_lock with cmpxchg(), so that an ERR stored meanwhile
 *	wins over anything but RESET; pollers and the event queue store
 *	ERR without the lock (WRITE_ONCE()); read with READ_ONCE()
 * @attr: the attributes given to modify_qp, for query_qp
 * @sq_sig_all: every send work request completes
 * @max_inline: inline bytes granted (VROCE_MAX_INLINE); a user QP's
 *	inline data is copied from the process's addresses by post_send
 * @user: created through uverbs: its work requests come from user space
 * @zombie: the record that parks the rings if the HCA does not let go
 * @sq_node: in the send CQ's &vroce_cq.sq_qps, from the end of create_qp
 *	to the start of destroy_qp, under that CQ's lock
 * @rq_node: in the receive CQ's &vroce_cq.rq_qps, likewise
 * @srq: the SRQ its receives come from (then @rq has no ring), or NULL
 * @mapped: the rings are the process's (issue 31): the kernel posts
 *	nothing, and the send doorbell is a POST_SEND with no work request
 * @dbrec: a mapped QP's doorbell record; unset otherwise
 * @handoff_posts: lent posts of its RC peer (issue 31, vroce_qp_handoff())
 * @handoff_seen: @handoff_posts at its own last lent post
 * @handoff_wq: its poster waiting for the peer's next post
 */
struct vroce_qp {
	struct ib_qp ibqp;
	struct vroce_wq sq;
	struct vroce_wq rq;
	u8 type;
	struct mutex state_lock;	/* protects attr */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	bool sq_sig_all;
	u32 max_inline;
	bool user;
	struct vroce_ring_zombie *zombie;
	struct list_head sq_node;
	struct list_head rq_node;
	struct vroce_srq *srq;
	/* issue 31 */
	bool mapped;
	struct vroce_dbrec dbrec;
	/* issue 31, the hand-off */
	atomic_t handoff_posts;
	u32 handoff_seen;
	wait_queue_head_t handoff_wq;
};

/**
 * struct vroce_srq - a shared receive queue (c/driver/vroce_srq.c)
 * @ibsrq: the RDMA core's SRQ; allocated by the core
 * @srqn: the HCA's number for it
 * @ring: the receive WQEs; a slot is free while its srq_done is set
 * @lock: protects @pi and the entries of @ring (post_srq_recv)
 * @pi: WQEs posted (free running)
 * @zombie: the record that parks @ring if the HCA does not let go of it
 * @mapped: the ring is the process's (issue 31): the kernel posts nothing
 * @dbrec: a mapped SRQ's doorbell record; unset otherwise
 */
struct vroce_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	struct vroce_ring ring;
	spinlock_t lock;	/* protects pi, ring entries */
	u32 pi;
	struct vroce_ring_zombie *zombie;
	/* issue 31 */
	bool mapped;
	struct vroce_dbrec dbrec;
};

static inline struct vroce_srq *to_vroce_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct vroce_srq, ibsrq);
}

/**
 * struct vroce_ah - an address handle: the address vector of UD sends
 * @ibah: the RDMA core's AH; allocated by the core
 * @av: the vector as a UD WQE carries it, filled at create_ah (any
 *	context: nothing is allocated, no command is issued)
 */
struct vroce_ah {
	struct ib_ah ibah;
	struct vroce_wqe_av av;
};

int vroce_dbrec_get(struct vroce_dev *vdev, u64 addr, struct vroce_dbrec *rec);
void vroce_dbrec_put(struct vroce_dev *vdev, struct vroce_dbrec *rec);
int vroce_map_check_ring(struct vroce_dev *vdev, u64 addr, u32 depth,
			 u32 entry_size, u32 asked, u32 max_log2);

/**
 * struct vroce_ucontext - a user context (no driver data yet)
 * @ibuc: the RDMA core's context; allocated by the core
 */
struct vroce_ucontext {
	struct ib_ucontext ibuc;
};

/**
 * struct vroce_pd_zombie - a PD number the HCA would not free yet (an MR
 *	or QP of the PD was still parked), retried by vroce_mr_reap()
 * @list: entry in &vroce_dev.pd_zombies
 * @pdn: the number
 * @lost: its DESTROY_PD timed out: the HCA may have carried it out and
 *	given the number to a new PD, so it is never retried (a retry could
 *	destroy that PD), only forgotten when the HCA is reset
 */
struct vroce_pd_zombie {
	struct list_head list;
	u32 pdn;
	bool lost;
};

/**
 * struct vroce_mw_zombie - what keeps a window the HCA may still hold
 * @list: on &vroce_dev.mw_zombies
 * @obj: the window object, LOST or ZOMBIE there
 *
 * Taken with the window, so that freeing it never allocates.
 */
struct vroce_mw_zombie {
	struct list_head list;
	struct vroce_mw_obj *obj;
};

/**
 * struct vroce_mw - a memory window (issue 30)
 * @ibmw: the RDMA core's
 * @obj: its state, an object of the MR/MTR ABI
 * @zombie: the record that parks it if DEALLOC_MW is not confirmed
 */
struct vroce_mw {
	struct ib_mw ibmw;
	struct vroce_mw_obj *obj;
	struct vroce_mw_zombie *zombie;
};

static inline struct vroce_mw *to_vroce_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct vroce_mw, ibmw);
}

/**
 * struct vroce_ring_zombie - rings the HCA may still use, kept until it is
 *	reset; allocated with the CQ or QP so that parking never allocates
 * @list: entry in &vroce_dev.ring_zombies
 * @ring: the rings (a CQ's one, or a QP's two); @ring[i].mtr NULL if unused
 * @dbrec: a mapped queue's doorbell record, which the HCA may read too;
 *	unset if none (issue 31)
 */
struct vroce_ring_zombie {
	struct list_head list;
	struct vroce_ring ring[2];
	struct vroce_dbrec dbrec;
};

/**
 * struct vroce_pd - a protection domain
 * @ibpd: the RDMA core's PD; allocated by the core
 * @pdn: the HCA's number for it
 * @zombie: the record that keeps @pdn if DESTROY_PD is refused; taken at
 *	alloc_pd so that deallocating never allocates
 */
struct vroce_pd {
	struct ib_pd ibpd;
	u32 pdn;
	struct vroce_pd_zombie *zombie;
};

/**
 * struct vroce_mr - a memory region
 * @ibmr: the RDMA core's MR
 * @obj: its lifecycle state, behind the MR/MTR ABI (bindings/vroce_abi.h):
 *	rights, tables, fast-register page list, key, handle, state
 * @type: VROCE_MR_TYPE_*, copied from the object at registration
 * @mtr: its MTR (NULL for a DMA MR), copied likewise; owned by the object
 * @zombie: entry in &vroce_dev.zombies while the HCA may hold the MR
 * @umem: the pinned pages of a user MR made from a cache entry, released
 *	once the HCA revoked the MR
 * @cache: entry in the idle list of a bucket of &vroce_dev.mr_cache
 * @cache_rights: the cache bucket's rights (VROCE_MR_RIGHT_*)
 * @cache_order: the bucket's order: the entry's table has 2^order pages
 * @cache_uses: registrations the entry served (VROCE_MR_CACHE_USES at most)
 * @cached: a cache entry, now a user MR (enabled)
 * @user_start: a user MR's address in its owner's memory (rereg_mr)
 * @user_access: a user MR's IB_ACCESS_* flags (rereg_mr)
 * @res_mtt: @mtr's table as the HCA was told it, for restrack dumps,
 *	which must not reach @mtr: rereg_mr frees the MTR it replaces
 * @odp: (issue 33) an ODP MR's implicit root umem (no pages, no notifier)
 * @odp_chunks: an ODP MR's child umems by 2 MiB chunk of its pages, made
 *	when a page of the chunk first faults; each has a notifier
 * @odp_mutex: an ODP MR's: serialises the calls on its object, which the
 *	chunks make under their own umem mutexes (taken inside those)
 * @odp_chunk_lock: an ODP MR's: held while a chunk's umem is made
 * @odp_users: an ODP MR's faults being resolved; deregistration waits
 *	for none
 * @odp_handle: an ODP MR's HCA handle, which faults name
 *
 * The copies never change after registration (but for @mtr, @res_mtt,
 * @ibmr's iova and length when rereg_mr changes the translation in place:
 * a restrack dump racing a rereg may print either): restrack dumps read
 * them at any time, while the object is the verbs' to serialise (the rest,
 * the HCA's handle included, is read from the object).
 */
struct vroce_mr {
	struct ib_mr ibmr;
	struct vroce_mr_obj *obj;
	u32 type;
	const struct vroce_mtr *mtr;
	struct list_head zombie;
	struct ib_umem *umem;
	struct list_head cache;
	u8 cache_rights;
	u8 cache_order;
	u8 cache_uses;
	bool cached;
	/* issue 30, rereg_mr: what a rereg without IB_MR_REREG_TRANS keeps */
	u64 user_start;
	int user_access;
	struct vroce_hw_mtt res_mtt;
	struct ib_umem_odp *odp;
	struct xarray odp_chunks;
	struct mutex odp_mutex;		/* see @odp_mutex above */
	struct mutex odp_chunk_lock;	/* see @odp_chunk_lock above */
	atomic_t odp_users;
	u32 odp_handle;
};

static inline struct vroce_pd *to_vroce_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct vroce_pd, ibpd);
}

static inline struct vroce_mr *to_vroce_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct vroce_mr, ibmr);
}

static inline struct vroce_cq *to_vroce_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct vroce_cq, ibcq);
}

static inline struct vroce_ah *to_vroce_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct vroce_ah, ibah);
}

static inline struct vroce_qp *to_vroce_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct vroce_qp, ibqp);
}

static inline struct vroce_dev *to_vroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vroce_dev, ibdev);
}

/**
 * vroce_udata_in() - the driver's request of a uverbs command
 * @udata: the command's driver data
 * @req: where the request goes; zero-filled first, so that a provider
 *	that sends less (or none) gets the defaults
 * @len: its size
 *
 * Context: process context (the command's), may sleep.
 * Return: 0; -EOPNOTSUPP when the provider sent more than @len bytes and
 * the rest is not zero (something this driver does not know); -EFAULT.
 */
static inline int vroce_udata_in(struct ib_udata *udata, void *req,
				 size_t len)
{
	memset(req, 0, len);
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return ib_copy_from_udata(req, udata, min(udata->inlen, len));
}

/**
 * vroce_udata_out() - the driver's response of a uverbs command
 * @udata: the command's driver data
 * @resp: the response
 * @len: its size; cut to the room the provider gave
 *
 * Context: process context (the command's), may sleep.
 * Return: 0 or -EFAULT.
 */
static inline int vroce_udata_out(struct ib_udata *udata, void *resp,
				  size_t len)
{
	return ib_copy_to_udata(udata, resp, min(udata->outlen, len));
}

bool vroce_inject(struct vroce_dev *vdev);
void vroce_mem_account(struct vroce_dev *dev, bool alloc);
void vroce_mem_odp_release(struct vroce_dev *vdev, struct ib_umem_odp *root,
			   struct xarray *chunks);
struct vroce_dev *vroce_dev_create(struct device *dma_dev);
void vroce_dev_destroy(struct vroce_dev *vdev);
int vroce_dev_start(struct vroce_dev *vdev);
void vroce_dev_stop(struct vroce_dev *vdev);

extern const struct ib_device_ops vroce_dev_ops;

struct ib_mr *vroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);
struct ib_mr *vroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int vroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int vroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int vroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vroce_dealloc_mw(struct ib_mw *ibmw);
void vroce_mw_park(struct vroce_dev *vdev, struct vroce_mw *mw);
struct ib_mr *vroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *new_pd, struct ib_udata *udata);

/* c/driver/vroce_mr_entry.c */
struct vroce_mr *vroce_mr_new_dma(struct vroce_dev *vdev, int access,
				  bool allow_remote);
struct vroce_mr *vroce_mr_new_user(struct vroce_dev *vdev,
				   const struct vroce_mr_user_attr *attr,
				   struct ib_udata *udata);
struct vroce_mr *vroce_mr_new_frmr(struct vroce_dev *vdev, u32 max_pages,
				   u32 limit);
struct vroce_mr *vroce_mr_new_odp(struct vroce_dev *vdev,
				  const struct vroce_mr_user_attr *attr);
int vroce_mr_create_hw(struct vroce_dev *vdev, struct vroce_mr *mr, u32 pdn,
		       bool keep_if_full);
bool vroce_mr_destroy_hw(struct vroce_dev *vdev, struct vroce_mr *mr);

/* c/driver/vroce_odp.c (issue 33) */
bool vroce_odp_supported(const struct vroce_dev *vdev);
void vroce_odp_caps(const struct vroce_dev *vdev, struct ib_device_attr *props);
void vroce_odp_event(struct vroce_dev *vdev, u32 slot);
struct ib_mr *vroce_odp_reg_user_mr(struct ib_pd *ibpd,
				    const struct vroce_mr_user_attr *attr);
bool vroce_odp_dereg(struct vroce_dev *vdev, struct vroce_mr *mr);
int vroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);
void vroce_odp_init(struct vroce_dev *vdev);
void vroce_odp_stop(struct vroce_dev *vdev, bool quiet);

/* c/driver/vroce_zombie.c */
void vroce_mr_free(struct vroce_dev *vdev, struct vroce_mr *mr);
void vroce_mr_set_mtr(struct vroce_mr *mr, const struct vroce_mtr *mtr);
void vroce_mr_park(struct vroce_dev *vdev, struct vroce_mr *mr);
void vroce_mr_reap(struct vroce_dev *vdev, bool hca_reset);
void vroce_mr_reap_zombies(struct vroce_dev *vdev);
int vroce_pd_create(struct vroce_dev *vdev, u32 *pdn,
		    struct vroce_pd_zombie **zombie);
int vroce_pd_destroy(struct vroce_dev *vdev, u32 pdn,
		     struct vroce_pd_zombie *zombie);
struct vroce_ring_zombie *vroce_ring_zombie_alloc(struct vroce_dev *vdev);
void vroce_ring_zombie_free(struct vroce_dev *vdev,
			    struct vroce_ring_zombie *z);
void vroce_ring_zombie(struct vroce_dev *vdev, struct vroce_ring_zombie *z,
		       const struct vroce_ring *a, const struct vroce_ring *b);
void vroce_ring_reap(struct vroce_dev *vdev);

struct dentry;

/* c/driver/vroce_mr_cache.c */
void vroce_mr_cache_init(struct vroce_dev *vdev);
bool vroce_mr_cache_fits(struct vroce_dev *vdev,
			 const struct vroce_mr_user_attr *attr, u32 *rights,
			 u32 *order);
struct ib_mr *vroce_mr_cache_take(struct vroce_dev *vdev, struct ib_pd *ibpd,
				  const struct vroce_mr_user_attr *attr,
				  u32 rights, u32 order);
bool vroce_mr_cache_put(struct vroce_dev *vdev, struct vroce_mr *mr);
void vroce_mr_cache_drain(struct vroce_dev *vdev);
void vroce_mr_cache_trim(struct vroce_dev *vdev);
void vroce_mr_cache_shrink(struct vroce_dev *vdev);
u64 vroce_mr_cache_reclaim_mark(struct vroce_dev *vdev);
bool vroce_mr_cache_reclaim_begin(struct vroce_dev *vdev, u64 mark);
void vroce_mr_cache_reclaim_end(struct vroce_dev *vdev);
void vroce_mr_cache_refill(struct vroce_dev *vdev);
void vroce_mr_cache_debugfs(struct vroce_dev *vdev, struct dentry *dir);

/**
 * vroce_mr_create_hw_reclaim() - vroce_mr_create_hw(), reclaiming the MPT
 *	slots of idle cache entries when the MPT is full
 * @vdev: the device
 * @mr: an MR whose object is NEW
 * @pdn: its PD
 *
 * When CREATE_MR finds the MPT full, the MR cache destroys its idle
 * entries, which hold slots no user has (vroce_mr_cache_reclaim_begin()),
 * and CREATE_MR is tried once more if the cache destroyed an entry since
 * the first try. For every MR the driver enters in the HCA but the
 * refill's: the verbs' MRs that take no cache entry, and the cache's
 * misses. Inline, for both to call down: the verbs do not hand their MRs
 * to the cache, and the cache does not call back into the verbs.
 *
 * Context: process context, may sleep.
 * Return: 0, or an error of vroce_mr_create_hw(), which then undid @mr.
 */
static inline int vroce_mr_create_hw_reclaim(struct vroce_dev *vdev,
					     struct vroce_mr *mr, u32 pdn)
{
	u64 mark = vroce_mr_cache_reclaim_mark(vdev);
	int err;

	err = vroce_mr_create_hw(vdev, mr, pdn, true);
	if (err != -ENOMEM)
		return err;
	if (vroce_mr_cache_reclaim_begin(vdev, mark))
		err = vroce_mr_create_hw(vdev, mr, pdn, false);
	else
		vroce_mr_free(vdev, mr);
	vroce_mr_cache_reclaim_end(vdev);
	return err;
}

int vroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int vroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vroce_pre_destroy_cq(struct ib_cq *ibcq);
void vroce_post_destroy_cq(struct ib_cq *ibcq);
int vroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void vroce_cq_clean(struct vroce_cq *cq, u32 qpn);

/**
 * vroce_cq_mark_dead() - tell a mapped CQ's process that the device died
 * @cq: a CQ of a dead device, its HCA reset
 *
 * issue 31, review: the process polls its ring without a system call, and
 * the kernel, which never saw its WQEs, flushes none of them. It learns
 * the death from VROCE_CQ_DBREC_FATAL in the record's arm word, set here
 * (the process writes the word's low bits by compare-and-swap and keeps
 * it), and completes its outstanding work requests in software. Nothing
 * for a kernel CQ, which vroce_poll_cq() flushes.
 *
 * Inline: the event queue's flush work calls it, and ``eq`` calls no
 * function of the CQ's file (Documentation/design.rst).
 *
 * Context: any context; the CQ is in &vroce_dev.cqs under the event
 * queue's lock (its record stays pinned meanwhile).
 */
static inline void vroce_cq_mark_dead(struct vroce_cq *cq)
{
	struct vroce_cq_dbrec *rec = cq->dbrec.va;

	if (!cq->mapped)
		return;
	/* An OR, not a store: the process's arm bits beside it stay. */
	atomic_or((__force int)cpu_to_le32(VROCE_CQ_DBREC_FATAL),
		  (atomic_t *)&rec->arm);
}

int vroce_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata);
struct rdma_hw_stats *vroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int vroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

int vroce_eq_init(struct vroce_dev *vdev);
void vroce_eq_start(struct vroce_dev *vdev);
void vroce_eq_exit(struct vroce_dev *vdev);
void vroce_eq_irq(struct vroce_dev *vdev);
void vroce_eq_release_qpn(struct vroce_dev *vdev, u32 qpn);
void vroce_eq_flush_work(struct work_struct *work);
void vroce_eq_forget(struct vroce_dev *vdev, struct xarray *xa,
		     unsigned long num);

int vroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vroce_add_gid(const struct ib_gid_attr *attr, void **context);
int vroce_del_gid(const struct ib_gid_attr *attr, void **context);
int vroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int vroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
/* issue 31, lend (c/driver/vroce_qp.c) */
extern bool vroce_lend;
extern unsigned int vroce_handoff_us;
#if IS_ENABLED(CONFIG_KUNIT)
bool vroce_qp_lend(struct vroce_dev *vdev, struct vroce_qp *qp);
int vroce_qp_handoff(struct vroce_dev *vdev, struct vroce_qp *qp);
#endif
int vroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
void vroce_qp_retire(struct vroce_qp *qp, bool rq, u16 wqe_idx, bool error);
int vroce_qp_flush(struct vroce_qp *qp, bool rq, struct ib_wc *wc, int max);
int vroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int vroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int vroce_av_from_attr(struct vroce_wqe_av *av,
		       const struct rdma_ah_attr *attr);

/* c/driver/vroce_srq.c */
int vroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int vroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#if IS_ENABLED(CONFIG_KUNIT)
int vroce_newlink(const char *ibdev_name, struct net_device *ndev);
#endif
int vroce_netdev_init(struct vroce_dev *vdev);
void vroce_netdev_exit(struct vroce_dev *vdev);
bool vroce_port_up(const struct vroce_dev *vdev);
void vroce_port_event(struct vroce_dev *vdev, u32 port);
void vroce_port_events_off(struct vroce_dev *vdev);

void vroce_debugfs_register(void);
void vroce_debugfs_unregister(void);
void vroce_debugfs_init(struct vroce_dev *vdev);
void vroce_debugfs_exit(struct vroce_dev *vdev);

#if IS_ENABLED(CONFIG_KUNIT)
extern bool vroce_allow_remote_dma_mr;
extern bool vroce_odp;
extern int vroce_probe_fail_nth;
/* issue 30, cq/counters: the two halves of a resize around RESIZE_CQ. */
u32 vroce_cq_resize_begin(struct vroce_cq *cq);
void vroce_cq_resize_end(struct vroce_cq *cq, struct vroce_ring *ring,
			 bool taken);
#endif

#endif /* _VROCE_H_ */
