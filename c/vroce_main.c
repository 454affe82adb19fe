// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: module init/exit and the platform driver that binds to the HCA.
 *
 * Until silicon is attached the HCA is the emulated one shipped in this
 * module (c/vroce_emu.c); the module plugs num_hcas (default 1) in as
 * platform devices "vroce.0", "vroce.1", ... at load time, and the driver
 * binds to each like to any other device: its platform data is the bus the
 * HCA sits on.
 */

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "vroce.h"
#include "vroce_emu.h"

static unsigned int num_hcas = 1;
module_param(num_hcas, uint, 0444);
MODULE_PARM_DESC(num_hcas, "emulated HCAs to plug in at load time (0-8)");

#define VROCE_MAX_HCAS	8

static struct vroce_emu *vroce_emus[VROCE_MAX_HCAS];

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

static struct platform_driver vroce_pdrv = {
	.driver = {
		.name = VROCE_DRV_NAME,
	},
	.probe = vroce_probe,
	.remove = vroce_remove,
};

static int __init vroce_init(void)
{
	unsigned int i;
	int err;

	if (num_hcas > VROCE_MAX_HCAS)
		return -EINVAL;

	vroce_emu_init();
	err = platform_driver_register(&vroce_pdrv);
	if (err)
		goto err_emu_exit;

	for (i = 0; i < num_hcas; i++) {
		vroce_emus[i] = vroce_emu_add(i);
		if (IS_ERR(vroce_emus[i])) {
			err = PTR_ERR(vroce_emus[i]);
			goto err_del_hcas;
		}
	}
	return 0;

err_del_hcas:
	while (i--)
		vroce_emu_del(vroce_emus[i]);
	platform_driver_unregister(&vroce_pdrv);
err_emu_exit:
	vroce_emu_exit();
	return err;
}

static void __exit vroce_exit(void)
{
	unsigned int i = num_hcas;

	while (i--)
		vroce_emu_del(vroce_emus[i]);
	platform_driver_unregister(&vroce_pdrv);
	vroce_emu_exit();
}

module_init(vroce_init);
module_exit(vroce_exit);

MODULE_DESCRIPTION("vroce RoCE-style HCA driver with an emulated device");
MODULE_LICENSE("GPL");
