// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: module init/exit and the platform driver that binds to the HCA.
 *
 * Until silicon is attached the HCA is the emulated one shipped in this
 * module; the module adds it as platform device "vroce.0" at load time, and
 * the driver binds to it like to any other device.
 */

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "vroce.h"

static struct platform_device *vroce_pdev;

static int vroce_probe(struct platform_device *pdev)
{
	struct vroce_dev *vdev;
	int err;

	/* The HCA masters 64-bit bus addresses, like a PCIe function. */
	err = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		return err;

	vdev = vroce_dev_create(&pdev->dev);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);

	platform_set_drvdata(pdev, vdev);
	return 0;
}

static void vroce_remove(struct platform_device *pdev)
{
	vroce_dev_destroy(platform_get_drvdata(pdev));
}

static struct platform_driver vroce_pdrv = {
	.driver = {
		.name = VROCE_DRV_NAME,
	},
	.probe = vroce_probe,
	.remove = vroce_remove,
};

static int __init vroce_init(void)
{
	int err;

	err = platform_driver_register(&vroce_pdrv);
	if (err)
		return err;

	vroce_pdev = platform_device_register_simple(VROCE_DRV_NAME, 0, NULL, 0);
	if (IS_ERR(vroce_pdev)) {
		err = PTR_ERR(vroce_pdev);
		goto err_unregister_driver;
	}

	return 0;

err_unregister_driver:
	platform_driver_unregister(&vroce_pdrv);
	return err;
}

static void __exit vroce_exit(void)
{
	platform_device_unregister(vroce_pdev);
	platform_driver_unregister(&vroce_pdrv);
}

module_init(vroce_init);
module_exit(vroce_exit);

MODULE_DESCRIPTION("vroce RoCE-style HCA driver with an emulated device");
MODULE_LICENSE("GPL");
