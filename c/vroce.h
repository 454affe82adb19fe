/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce: driver-internal definitions shared by the C files of the module.
 *
 * MR/MTR state is not reached through this header: see bindings/vroce_abi.h.
 */
#ifndef _VROCE_H_
#define _VROCE_H_

#include <linux/atomic.h>
#include <linux/device.h>
#include <rdma/ib_verbs.h>

#define VROCE_DRV_NAME		"vroce"
#define VROCE_NUM_PORTS		1
#define VROCE_UVERBS_ABI_VER	1

/**
 * struct vroce_mem_stats - accounting of the memory the MR/MTR code takes
 * @allocs: successful allocations through the vroce_core_* services
 * @frees: frees through them; equal to @allocs when nothing is held
 * @dma_bytes: bytes of DMA-coherent memory held (tables, kernel buffers)
 * @fail_nth: fault injection: when set to n > 0, the n-th allocation from
 *	then on fails (and @fail_nth drops back to 0); 0 disables it
 *
 * Atomics, no lock: allocations may run concurrently on one device.
 */
struct vroce_mem_stats {
	atomic64_t allocs;
	atomic64_t frees;
	atomic64_t dma_bytes;
	atomic_t fail_nth;
};

/**
 * struct vroce_dev - one vroce HCA as the RDMA core sees it
 * @ibdev: the RDMA core's device; allocated by ib_alloc_device(), so it
 *	must stay the first member
 * @dma_dev: the device that DMA is mapped for (the HCA, emulated or real);
 *	also the parent of @ibdev
 * @mem: allocations made for MR/MTR objects of this device
 */
struct vroce_dev {
	struct ib_device ibdev;
	struct device *dma_dev;
	struct vroce_mem_stats mem;
};

static inline struct vroce_dev *to_vroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vroce_dev, ibdev);
}

struct vroce_dev *vroce_dev_create(struct device *dma_dev);
void vroce_dev_destroy(struct vroce_dev *vdev);

#endif /* _VROCE_H_ */
