// SPDX-License-Identifier: GPL-2.0
/*
 * vroce doorbell records of mapped rings (issue 31): 8 bytes of the
 * process's memory, pinned, that the HCA reads by DMA address
 * (Documentation/userspace.rst, "Mapped rings").
 */

#include <linux/align.h>
#include <linux/bits.h>
#include <linux/log2.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>

#include "vroce.h"
#include "../../bindings/vroce_core.h"

/**
 * vroce_dbrec_get() - pin a user doorbell record
 * @vdev: the device
 * @addr: the record's address in the calling process
 * @rec: filled: the pinned page and the record's DMA address and kernel
 *	address
 *
 * Pins the page that holds the record, writable, in the calling process's
 * memory (ib_umem_get(): current->mm). Each record pins its page on its
 * own; records sharing a page pin it once each.
 *
 * Context: process context, may sleep; the uverbs command of the process
 *	that owns @addr.
 * Return: 0; -EINVAL when @addr is 0 or not 8-byte aligned; an error of
 *	ib_umem_get() unchanged (-EFAULT for an address not mapped writable,
 *	-ENOMEM past RLIMIT_MEMLOCK or when injected).
 */
int vroce_dbrec_get(struct vroce_dev *vdev, u64 addr, struct vroce_dbrec *rec)
{
	struct ib_umem *umem;
	struct scatterlist *sg;

	if (!addr || !IS_ALIGNED(addr, VROCE_DBREC_SIZE))
		return -EINVAL;
	umem = vroce_core_umem_get(vdev, addr & PAGE_MASK, PAGE_SIZE,
				   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	sg = umem->sgt_append.sgt.sgl;
	rec->umem = umem;
	rec->dma = sg_dma_address(sg) + offset_in_page(addr);
	rec->va = page_address(sg_page(sg)) + offset_in_page(addr);
	return 0;
}

/**
 * vroce_dbrec_put() - unpin a record from vroce_dbrec_get()
 * @vdev: the device
 * @rec: the record, which the HCA no longer reads (its queue's destroy
 *	confirmed, or the queue parked with its record); may be unset
 *
 * Context: process context, may sleep.
 */
void vroce_dbrec_put(struct vroce_dev *vdev, struct vroce_dbrec *rec)
{
	vroce_core_umem_release(vdev, rec->umem);
	rec->umem = NULL;
	rec->va = NULL;
	rec->dma = 0;
}

/* ---- issue 31, map: the rings beside the records ---- */

/**
 * vroce_map_check_ring() - check a mapped ring a process describes
 * @vdev: the device
 * @addr: its address in the process
 * @depth: its entries, as the provider chose them
 * @entry_size: bytes per entry
 * @asked: entries the verb asked for at least
 * @max_log2: the HCA's deepest ring
 *
 * A ring smaller than a page takes its page whole (the HCA reaches it
 * through an MTR of pages): vroce_ring_create_user() pins the page.
 *
 * Context: any context.
 * Return: 0, or -EINVAL: @addr 0 or not page aligned, @depth not a power
 * of two, below 2 or @asked, or above the HCA's most.
 */
int vroce_map_check_ring(struct vroce_dev *vdev, u64 addr, u32 depth,
			 u32 entry_size, u32 asked, u32 max_log2)
{
	if (!addr || !PAGE_ALIGNED(addr) || !is_power_of_2(depth) ||
	    depth < 2 || depth < asked || depth > BIT(max_log2))
		return -EINVAL;
	return 0;
}
