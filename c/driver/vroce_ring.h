/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce rings: the arrays of fixed-size entries the driver and the HCA
 * share (command ring, event queue, CQs, send and receive queues)
 * (c/driver/vroce_ring.c).
 *
 * A ring is a kernel-buffer MTR of one region, which the HCA reaches by
 * DMA address. The CPU reaches an entry by inline arithmetic over the
 * kernel address of each page, cached when the ring is created: the hot
 * path makes no call into the MTR (which may be Rust, behind an FFI call).
 */
#ifndef _VROCE_RING_H_
#define _VROCE_RING_H_

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/page.h>

#include "../ifc/vroce_wqe.h"

struct vroce_dev;
struct vroce_hw_mtt;
struct vroce_mtr;

/**
 * struct vroce_ring - a ring of 2^@log2 entries of 2^@entry_shift bytes
 * @mtr: the memory, as the HCA reaches it
 * @page: kernel address of each PAGE_SIZE page of the ring
 * @log2: entries = 2^log2
 * @entry_shift: bytes per entry = 2^entry_shift, at most PAGE_SIZE
 *
 * Set by vroce_ring_create() and constant until vroce_ring_destroy(); the
 * entries are protected by whoever owns the ring (the queue's lock).
 */
struct vroce_ring {
	struct vroce_mtr *mtr;
	void **page;
	u32 log2;
	u32 entry_shift;
};

/**
 * vroce_ring_slot() - kernel address of the @n-th entry
 * @r: the ring
 * @n: a free-running counter; the slot is n mod 2^log2
 *
 * Context: any context.
 * Return: the entry.
 */
static inline void *vroce_ring_slot(const struct vroce_ring *r, u32 n)
{
	unsigned long off = (unsigned long)(n & (BIT(r->log2) - 1)) <<
			    r->entry_shift;

	return r->page[off >> PAGE_SHIFT] + (off & ~PAGE_MASK);
}

/**
 * vroce_ring_written() - the @n-th entry of a ring the HCA writes, once
 *	the HCA has written it
 * @r: a ring of CQEs or EQEs
 * @n: a free-running counter
 *
 * The HCA writes an entry's owner byte last, with the phase of the lap it
 * writes: VROCE_CQE_OWNER (and VROCE_EQE_OWNER, the same bit) is 1 on the
 * first lap, 0 on the second, and so on. When the phase matches, the rest
 * of the entry may be read once this returns.
 *
 * Context: any context.
 * Return: the entry, or NULL when the HCA has not written it yet.
 */
static inline void *vroce_ring_written(const struct vroce_ring *r, u32 n)
{
	u8 *entry = vroce_ring_slot(r, n);
	u8 owner = READ_ONCE(entry[BIT(r->entry_shift) - 1]);

	if ((owner & VROCE_CQE_OWNER) != !((n >> r->log2) & 1))
		return NULL;
	/* The body was written before the owner byte. */
	dma_rmb();
	return entry;
}

int vroce_ring_create(struct vroce_dev *vdev, struct vroce_ring *r,
		      u32 log2, u32 entry_size, u32 hopnum);
void vroce_ring_destroy(struct vroce_dev *vdev, struct vroce_ring *r);
struct ib_udata;
int vroce_ring_create_user(struct vroce_dev *vdev, struct vroce_ring *r,
			   u32 log2, u32 entry_size, struct ib_udata *udata,
			   u64 addr);
void vroce_ring_mtt(const struct vroce_mtr *mtr, struct vroce_hw_mtt *mtt);

#endif /* _VROCE_RING_H_ */
