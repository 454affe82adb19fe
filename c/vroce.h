/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce: driver-internal definitions shared by the C files of the module.
 *
 * MR/MTR state is not reached through this header: see bindings/vroce_abi.h.
 */
#ifndef _VROCE_H_
#define _VROCE_H_

#include <linux/device.h>
#include <rdma/ib_verbs.h>

#define VROCE_DRV_NAME		"vroce"
#define VROCE_NUM_PORTS		1
#define VROCE_UVERBS_ABI_VER	1

/**
 * struct vroce_dev - one vroce HCA as the RDMA core sees it
 * @ibdev: the RDMA core's device; allocated by ib_alloc_device(), so it
 *	must stay the first member
 * @dma_dev: the device that DMA is mapped for (the HCA, emulated or real);
 *	also the parent of @ibdev
 */
struct vroce_dev {
	struct ib_device ibdev;
	struct device *dma_dev;
};

static inline struct vroce_dev *to_vroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vroce_dev, ibdev);
}

struct vroce_dev *vroce_dev_create(struct device *dma_dev);
void vroce_dev_destroy(struct vroce_dev *vdev);

#endif /* _VROCE_H_ */
