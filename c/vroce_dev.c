// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the driver's device object, a wrapper around the RDMA core's
 * struct ib_device.
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/string.h>

#include "vroce.h"

static const struct ib_device_ops vroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = VROCE_UVERBS_ABI_VER,
};

/**
 * vroce_dev_create() - allocate and set up the RDMA device of one HCA
 * @dma_dev: the HCA's device, with its DMA mask already set; DMA for the
 *	RDMA device is mapped against it and it becomes the parent
 *
 * The device is not registered with the RDMA core.
 *
 * Context: process context, may sleep.
 * Return: the new device, to be freed with vroce_dev_destroy(), or
 * ERR_PTR(-ENOMEM) if it cannot be allocated.
 */
struct vroce_dev *vroce_dev_create(struct device *dma_dev)
{
	struct vroce_dev *vdev;
	struct ib_device *ibdev;

	KUNIT_STATIC_STUB_REDIRECT(vroce_dev_create, dma_dev);

	vdev = ib_alloc_device(vroce_dev, ibdev);
	if (!vdev)
		return ERR_PTR(-ENOMEM);

	vdev->dma_dev = dma_dev;

	ibdev = &vdev->ibdev;
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = VROCE_NUM_PORTS;
	ibdev->num_comp_vectors = 1;
	ibdev->dev.parent = dma_dev;
	/* ib_umem maps user memory for the HCA even before registration. */
	ibdev->dma_device = dma_dev;
	strscpy(ibdev->node_desc, "vroce HCA", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &vroce_dev_ops);

	return vdev;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_dev_create);

/**
 * vroce_dev_destroy() - free a device made by vroce_dev_create()
 * @vdev: the device; it must not be registered with the RDMA core
 *
 * Context: process context, may sleep.
 */
void vroce_dev_destroy(struct vroce_dev *vdev)
{
	ib_dealloc_device(&vdev->ibdev);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_dev_destroy);
