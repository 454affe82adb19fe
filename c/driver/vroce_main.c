// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: module init/exit and the platform driver that binds to the HCA.
 *
 * Until silicon is attached the HCA is the emulated one shipped in this
 * module (c/hca/, CONFIG_VROCE_HCA); vroce_hca_plug() plugs its HCAs in as
 * platform devices "vroce.0", "vroce.1", ... at load time, and the driver
 * binds to each like to any other device: its platform data is the bus the
 * HCA sits on (c/ifc/vroce_bus.h).
 */

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "vroce.h"
#include "../ifc/vroce_bus.h"

static int vroce_probe(struct platform_device *pdev)
{
	const struct vroce_hca_res *res = dev_get_platdata(&pdev->dev);
	struct vroce_dev *vdev;
	int err;

	if (!res)
		return -ENODEV;

	/* The HCA masters 64-bit bus addresses, like a PCIe function. */
	err = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		return err;

	vdev = vroce_dev_create(&pdev->dev);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	vroce_hw_init(&vdev->hw, res);

	err = vroce_dev_start(vdev);
	if (err) {
		vroce_dev_destroy(vdev);
		return err;
	}
	platform_set_drvdata(pdev, vdev);
	return 0;
}

static void vroce_remove(struct platform_device *pdev)
{
	struct vroce_dev *vdev = platform_get_drvdata(pdev);

	vroce_dev_stop(vdev);
	vroce_dev_destroy(vdev);
}

VROCE_DEFINE_PLATFORM_REMOVE(vroce_remove)

static struct platform_driver vroce_pdrv = {
	.driver = {
		.name = VROCE_DRV_NAME,
	},
	.probe = vroce_probe,
	.remove = vroce_remove_op,
};

static int __init vroce_init(void)
{
	int err;

	vroce_debugfs_register();
	err = platform_driver_register(&vroce_pdrv);
	if (err)
		goto err_debugfs;
	err = vroce_hca_plug();
	if (err)
		goto err_unregister;
	return 0;

err_unregister:
	platform_driver_unregister(&vroce_pdrv);
err_debugfs:
	vroce_debugfs_unregister();
	return err;
}

static void __exit vroce_exit(void)
{
	vroce_hca_unplug();
	platform_driver_unregister(&vroce_pdrv);
	vroce_debugfs_unregister();
}

module_init(vroce_init);
module_exit(vroce_exit);

MODULE_DESCRIPTION("vroce RoCE-style HCA driver with an emulated device");
MODULE_LICENSE("GPL");
