// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the primitives every role of the HCA shares, so that
 * the roles call down to them and never into each other:
 *  - the wire every HCA is plugged into: its lock and its list,
 *  - the fault injection countdown of plugging an HCA in (KUnit),
 *  - raising an interrupt: the cause bit and, unless it is masked, the
 *    vector's delivery work (which c/hca/vroce_hca_bus.c runs),
 *  - rings in host memory (command ring, work queues, CQs, event queue),
 *    described from registers and reached entry by entry through their
 *    tables.
 *
 * Calls: the table walker (c/hca/vroce_hca_mtt.c).
 */

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/math.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

/* ---- the wire (Documentation/device.rst, "The wire") ---- */

/*
 * One Ethernet segment joins every emulated HCA, as netdevsim links its
 * devices: a frame goes to the port whose MAC it names. Its lock is every
 * HCA's state lock (&vroce_hca.wire_lock, a rw_semaphore), so an engine holding
 * it for reading delivers into another HCA exactly as into its own, under
 * that HCA's object locks: messages of different QPs cross side by side,
 * each whole, and those of one QP in order.
 */
static DECLARE_RWSEM(vroce_wire_lock);
static LIST_HEAD(vroce_wire_hcas);

/**
 * vroce_hca_wire_lock() - the lock of the wire and of every HCA on it
 *
 * Return: the rw_semaphore, which each HCA keeps in &vroce_hca.wire_lock.
 */
struct rw_semaphore *vroce_hca_wire_lock(void)
{
	return &vroce_wire_lock;
}

/**
 * vroce_hca_wire_join() - plug @hca's port into the wire
 * @hca: a set-up HCA
 *
 * Context: process context; takes the wire's lock.
 */
void vroce_hca_wire_join(struct vroce_hca *hca)
{
	down_write(&vroce_wire_lock);
	list_add_tail(&hca->wire_node, &vroce_wire_hcas);
	up_write(&vroce_wire_lock);
}

/**
 * vroce_hca_wire_leave() - unplug @hca's port: nothing reaches it after
 * @hca: an HCA on the wire
 *
 * Context: process context; takes the wire's lock.
 */
void vroce_hca_wire_leave(struct vroce_hca *hca)
{
	down_write(&vroce_wire_lock);
	list_del_init(&hca->wire_node);
	up_write(&vroce_wire_lock);
}

/**
 * vroce_hca_wire_find() - the HCA whose port has MAC @mac
 * @hca: the HCA sending (found first: loopback never crosses the wire)
 * @mac: a destination MAC
 *
 * Context: the wire's lock held.
 * Return: the HCA, or NULL when no port on the wire has @mac (for a port
 * cabled to a netdev, whose wire is that link: any MAC but its own).
 */
struct vroce_hca *vroce_hca_wire_find(struct vroce_hca *hca, const u8 *mac)
{
	struct vroce_hca *e;

	lockdep_assert_held(&vroce_wire_lock);
	if (ether_addr_equal(mac, hca->mac))
		return hca;
	/* Issue 34: a port cabled to a netdev reaches others by packets. */
	if (hca->linked)
		return NULL;
	list_for_each_entry(e, &vroce_wire_hcas, wire_node)
		if (ether_addr_equal(mac, e->mac))
			return e;
	return NULL;
}

/**
 * vroce_hca_wire_next() - every HCA on the wire in turn, @hca first
 * @hca: the HCA sending
 * @prev: the HCA returned last, NULL to start
 *
 * Context: the wire's lock held.
 * Return: the next HCA, or NULL after the last (@hca alone for a port
 * cabled to a netdev).
 */
struct vroce_hca *vroce_hca_wire_next(struct vroce_hca *hca,
				      struct vroce_hca *prev)
{
	struct list_head *pos;
	struct vroce_hca *e;

	lockdep_assert_held(&vroce_wire_lock);
	if (!prev)
		return hca;
	if (hca->linked)
		return NULL;
	pos = prev == hca ? vroce_wire_hcas.next : prev->wire_node.next;
	for (; pos != &vroce_wire_hcas; pos = pos->next) {
		e = list_entry(pos, struct vroce_hca, wire_node);
		if (e != hca)
			return e;
	}
	return NULL;
}

/*
 * Tests: when n > 0, the n-th allocation of plugging in an HCA from then
 * on fails (vroce_hca_inject()), and the count drops back to 0.
 */
VISIBLE_IF_KUNIT atomic_t vroce_hca_fail_nth = ATOMIC_INIT(0);
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_fail_nth);

/**
 * vroce_hca_inject() - a fault injection point of the HCA's own setup
 *
 * Context: any context.
 * Return: true when this allocation must fail (see vroce_hca_fail_nth).
 */
bool vroce_hca_inject(void)
{
	int old = atomic_read(&vroce_hca_fail_nth);

	do {
		if (old <= 0)
			return false;
	} while (!atomic_try_cmpxchg(&vroce_hca_fail_nth, &old, old - 1));
	return old == 1;
}

/* ---- the interrupt line ---- */

/**
 * vroce_hca_raise_irq() - signal an interrupt
 * @hca: the HCA
 * @vec: the vector, VROCE_IRQ_*
 * @cause: the VROCE_INTR_* bit it stands for
 *
 * Sets @cause and, unless it is masked, has the vector's handler called
 * soon, in its own context: never under a lock of the HCA.
 *
 * Context: any context.
 */
void vroce_hca_raise_irq(struct vroce_hca *hca, unsigned int vec, u32 cause)
{
	unsigned long flags;
	bool call;

	spin_lock_irqsave(&hca->reg_lock, flags);
	hca->regs[VROCE_REG_INTR_CAUSE / sizeof(u32)] |= cause;
	call = !(vroce_hca_reg(hca, VROCE_REG_INTR_MASK) & cause);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	if (call)
		queue_work(hca->irq_wq, &hca->irq[vec].work);
}

/* ---- rings in host memory ---- */

/**
 * vroce_hca_ring_from_regs() - a ring the driver programmed in registers
 * @hca: the HCA
 * @ba_reg: the register pair holding the root BA (low half first)
 * @cfg: the ring's VROCE_RING_CFG_* register value
 * @max_log2: the most entries the ring may have, as a shift
 * @entry_size: bytes per entry
 * @ring: where the ring is described
 *
 * Context: any context, @hca->reg_lock held.
 * Return: false when the depth or the buffer page shift is out of range.
 */
bool vroce_hca_ring_from_regs(struct vroce_hca *hca, u32 ba_reg, u32 cfg,
			      u32 max_log2, u32 entry_size,
			      struct vroce_hca_ring *ring)
{
	struct vroce_hca_mtt *mtt = &ring->mtt;
	u64 bytes;

	memset(ring, 0, sizeof(*ring));
	ring->depth_log2 = FIELD_GET(VROCE_RING_CFG_DEPTH_LOG2, cfg);
	ring->entry_size = entry_size;
	mtt->root_ba = (u64)vroce_hca_reg(hca, ba_reg + 4) << 32 |
		       vroce_hca_reg(hca, ba_reg);
	mtt->ba_pg_shift = FIELD_GET(VROCE_RING_CFG_BA_PG_SHIFT, cfg);
	mtt->buf_pg_shift = FIELD_GET(VROCE_RING_CFG_BUF_PG_SHIFT, cfg);
	mtt->region_count = 1;
	mtt->region[0].hopnum = FIELD_GET(VROCE_RING_CFG_HOPNUM, cfg);
	if (ring->depth_log2 < 1 || ring->depth_log2 > max_log2 ||
	    mtt->buf_pg_shift < 12 || mtt->buf_pg_shift > 30)
		return false;
	bytes = (u64)entry_size << ring->depth_log2;
	mtt->region[0].count = DIV_ROUND_UP_ULL(bytes, BIT_ULL(mtt->buf_pg_shift));
	return true;
}

/**
 * vroce_hca_ring_entry() - the entry for count @count of @ring
 * @hca: the HCA
 * @ring: the ring
 * @count: a free-running count; the slot is @count modulo the depth
 *
 * Context: any context.
 * Return: the entry's bytes, reached through the ring's tables, or NULL
 * when the tables lead nowhere.
 */
void *vroce_hca_ring_entry(struct vroce_hca *hca,
			   const struct vroce_hca_ring *ring, u32 count)
{
	const struct vroce_hca_mtt *mtt = &ring->mtt;
	u64 off = (u64)(count & (BIT(ring->depth_log2) - 1)) * ring->entry_size;
	u64 addr;

	if (vroce_hca_mtt_translate(vroce_hca_dev(hca), mtt,
				    off >> mtt->buf_pg_shift, &addr, NULL))
		return NULL;
	return vroce_hca_dma_to_virt(vroce_hca_dev(hca),
				     addr + (off & (BIT_ULL(mtt->buf_pg_shift) - 1)),
				     ring->entry_size);
}

/* ---- issue 31: doorbell records in a process's memory ---- */

/**
 * vroce_hca_dbrec_ok() - whether a command's doorbell record is usable
 * @hca: the HCA
 * @dbrec: its DMA address
 *
 * Context: any context.
 * Return: true for an 8-byte aligned address of memory the HCA reaches.
 */
bool vroce_hca_dbrec_ok(struct vroce_hca *hca, u64 dbrec)
{
	return dbrec && IS_ALIGNED(dbrec, 8) &&
	       vroce_hca_dma_to_virt(vroce_hca_dev(hca), dbrec, 8);
}

/**
 * vroce_hca_dbrec_write() - write one word of a doorbell record
 * @hca: the HCA
 * @dbrec: the record's DMA address, checked by vroce_hca_dbrec_ok()
 * @word: the __le32 word (0 or 1)
 * @val: its new value
 *
 * Only RESIZE_CQ writes a record (its consumer index back to 0).
 *
 * Context: any context.
 */
void vroce_hca_dbrec_write(struct vroce_hca *hca, u64 dbrec, u32 word,
			   u32 val)
{
	__le32 *p = vroce_hca_dma_to_virt(vroce_hca_dev(hca),
					  dbrec + word * sizeof(__le32),
					  sizeof(__le32));

	if (p)
		WRITE_ONCE(*p, cpu_to_le32(val));
}

/**
 * vroce_hca_dbrec_read() - read one word of a doorbell record
 * @hca: the HCA
 * @dbrec: the record's DMA address, checked by vroce_hca_dbrec_ok()
 * @word: the __le32 word to read (0 or 1)
 * @val: where its value goes
 *
 * The process writes the record whenever it likes: the word is read once,
 * here, and the caller checks the value it got, never reading it again.
 *
 * Context: any context.
 * Return: true, or false when the address no longer leads to memory.
 */
bool vroce_hca_dbrec_read(struct vroce_hca *hca, u64 dbrec, u32 word,
			  u32 *val)
{
	__le32 *p = vroce_hca_dma_to_virt(vroce_hca_dev(hca),
					  dbrec + word * sizeof(__le32),
					  sizeof(__le32));

	if (!p)
		return false;
	*val = le32_to_cpu(READ_ONCE(*p));
	return true;
}
