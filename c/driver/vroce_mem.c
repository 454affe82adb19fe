// SPDX-License-Identifier: GPL-2.0
/*
 * vroce core services for the MR/MTR implementation: accounted allocations
 * with fault injection (bindings/vroce_core.h).
 */

#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>

#include "vroce.h"
#include "../../bindings/vroce_core.h"

/**
 * vroce_inject() - a fault injection point of the driver
 * @dev: the device
 *
 * Every allocation through the vroce_core_* services is one, and so is
 * each other step of the driver that can fail for want of memory (netdev
 * and RDMA device registration, xarray inserts). Tests set
 * &vroce_mem_stats.fail_nth to n and the n-th point reached from then on
 * fails, once.
 *
 * Context: any context.
 * Return: true when this point must fail.
 */
bool vroce_inject(struct vroce_dev *dev)
{
	atomic_t *nth = &dev->mem.fail_nth;
	int old = atomic_read(nth);

	do {
		if (old <= 0)
			return false;
	} while (!atomic_try_cmpxchg(nth, &old, old - 1));

	return old == 1;
}

void vroce_mem_account(struct vroce_dev *dev, bool alloc)
{
	atomic64_inc(alloc ? &dev->mem.allocs : &dev->mem.frees);
}

struct device *vroce_core_dma_device(struct vroce_dev *dev)
{
	return dev->dma_dev;
}

void *vroce_core_zalloc(struct vroce_dev *dev, size_t size)
{
	void *ptr;

	if (vroce_inject(dev))
		return NULL;
	ptr = kvzalloc(size, GFP_KERNEL);
	if (ptr)
		vroce_mem_account(dev, true);
	return ptr;
}

void vroce_core_free(struct vroce_dev *dev, const void *ptr)
{
	if (!ptr)
		return;
	kvfree(ptr);
	vroce_mem_account(dev, false);
}

void *vroce_core_dma_alloc(struct vroce_dev *dev, size_t size, dma_addr_t *dma)
{
	void *va;

	if (vroce_inject(dev))
		return NULL;
	/* Sizes come from user requests: a failure is an errno, not a splat. */
	va = dma_alloc_coherent(dev->dma_dev, size, dma,
				GFP_KERNEL | __GFP_NOWARN);
	if (va) {
		vroce_mem_account(dev, true);
		atomic64_add(size, &dev->mem.dma_bytes);
	}
	return va;
}

void vroce_core_dma_free(struct vroce_dev *dev, size_t size, void *va,
			 dma_addr_t dma)
{
	if (!va)
		return;
	dma_free_coherent(dev->dma_dev, size, va, dma);
	vroce_mem_account(dev, false);
	atomic64_sub(size, &dev->mem.dma_bytes);
}

struct ib_umem *vroce_core_umem_get(struct vroce_dev *dev, unsigned long addr,
				    size_t size, int access)
{
	struct ib_umem *umem;

	if (vroce_inject(dev))
		return ERR_PTR(-ENOMEM);
	umem = ib_umem_get(&dev->ibdev, addr, size, access);
	if (!IS_ERR(umem))
		vroce_mem_account(dev, true);
	return umem;
}

void vroce_core_umem_release(struct vroce_dev *dev, struct ib_umem *umem)
{
	if (!umem)
		return;
	ib_umem_release(umem);
	vroce_mem_account(dev, false);
}

/**
 * vroce_mem_odp_release() - let an ODP MR's memory go (issue 33)
 * @vdev: the device
 * @root: the MR's implicit root umem
 * @chunks: its chunks' child umems (c/driver/vroce_odp.c), emptied
 *
 * The chunks' notifiers go (no invalidation runs after) and the pages
 * they mapped are unmapped, then the root and the mm it held. The HCA no
 * longer holds the MR; its object, which the notifiers used, goes after.
 * Here with the other umem services, below the MR's freeing
 * (c/driver/vroce_zombie.c).
 *
 * Context: process context, may sleep.
 */
void vroce_mem_odp_release(struct vroce_dev *vdev, struct ib_umem_odp *root,
			   struct xarray *chunks)
{
	struct ib_umem_odp *child;
	unsigned long c;

	xa_for_each(chunks, c, child) {
		ib_umem_odp_release(child);
		vroce_mem_account(vdev, false);
		cond_resched();	/* 512 chunks a GiB */
	}
	xa_destroy(chunks);
	mmdrop(root->umem.owning_mm);
	ib_umem_odp_release(root);
	vroce_mem_account(vdev, false);
}

unsigned long vroce_core_umem_page_size(struct ib_umem *umem, u32 min_shift,
					u32 max_shift, u64 iova)
{
	if (min_shift > max_shift || max_shift >= BITS_PER_LONG)
		return 0;
	return ib_umem_find_best_pgsz(umem, GENMASK(max_shift, min_shift), iova);
}

u64 vroce_core_umem_block_count(struct ib_umem *umem, unsigned long pgsz)
{
	return ib_umem_num_dma_blocks(umem, pgsz);
}

u64 vroce_core_umem_dma_blocks(struct ib_umem *umem, unsigned long pgsz,
			       dma_addr_t *pages, u64 max)
{
	struct ib_block_iter biter;
	u64 n = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (n == max)
			break;
		pages[n++] = rdma_block_iter_dma_address(&biter);
	}
	return n;
}

void vroce_core_resched(void)
{
	cond_resched();
}

void vroce_core_dma_wmb(void)
{
	dma_wmb();
}

void vroce_core_warn_mr_leak(u32 state)
{
	/* The window-object suite counts the reports instead of splatting. */
	KUNIT_STATIC_STUB_REDIRECT(vroce_core_warn_mr_leak, state);
	WARN_ONCE(1, "vroce: MR object freed in state %u: leaked instead\n",
		  state);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_core_warn_mr_leak);
