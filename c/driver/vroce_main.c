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

#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <rdma/rdma_netlink.h>

#include "vroce.h"
#include "../ifc/vroce_bus.h"

/*
 * Issue 34: the 'rdma link add' in progress, under vroce_link_lock: the
 * task that runs it (the HCA's probe runs in it: probing is synchronous),
 * its netdev, the name it gives the device its HCA's probe registers, and
 * the probe's result (the bus adds a device whose probe failed all the
 * same).
 */
static DEFINE_MUTEX(vroce_link_lock);
static struct {
	const struct task_struct *task;
	const struct net_device *ndev;
	const char *name;
	int err;
} vroce_link_pending;

static int vroce_probe(struct platform_device *pdev)
{
	const struct vroce_hca_res *res = dev_get_platdata(&pdev->dev);
	struct vroce_dev *vdev;
	bool pending;
	int err;

	if (!res)
		return -ENODEV;
	/*
	 * Only 'rdma link add' sets it. A port on a netdev is bound then
	 * only, by the task adding it: bound from sysfs (meanwhile, or
	 * again), its netdev may be gone already.
	 */
	pending = res->link &&
		  READ_ONCE(vroce_link_pending.task) == current &&
		  vroce_link_pending.ndev == res->link;
	if (res->link && !pending)
		return -ENODEV;

	/* The HCA masters 64-bit bus addresses, like a PCIe function. */
	err = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto out;

	vdev = vroce_dev_create(&pdev->dev);
	if (IS_ERR(vdev)) {
		err = PTR_ERR(vdev);
		goto out;
	}
	vroce_hw_init(&vdev->hw, res);
	/*
	 * The driver's own reference: the port's state is read from it
	 * until the HCA is stopped, after the HCA's went (the cable pulled).
	 */
	vdev->link = res->link;
	if (vdev->link)
		netdev_hold(vdev->link, &vdev->link_tracker, GFP_KERNEL);
	if (pending)
		strscpy(vdev->name, vroce_link_pending.name, sizeof(vdev->name));

	err = vroce_dev_start(vdev);
	if (err) {
		netdev_put(vdev->link, &vdev->link_tracker);
		vroce_dev_destroy(vdev);
		goto out;
	}
	platform_set_drvdata(pdev, vdev);
out:
	if (pending)
		vroce_link_pending.err = err;
	return err;
}

/*
 * Whether an RDMA device with RoCE ports has one tied to @ndev (an iWARP
 * device, siw, on it is no rival: its traffic is TCP).
 */
static bool vroce_roce_on(struct net_device *ndev)
{
	struct ib_device *other;
	bool roce = false;
	u32 port;

	/* rxe by name: another device (siw) may be found first below. */
	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!other)
		other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	if (!other)
		return false;
	rdma_for_each_port(other, port)
		roce |= rdma_protocol_roce(other, port);
	ib_device_put(other);
	return roce;
}

/*
 * 'rdma link add NAME type vroce netdev DEV': an emulated HCA whose port
 * is cabled to DEV (Documentation/wire.rst), registered as NAME. It goes
 * when DEV is unregistered, its driver unbound or the module unloaded
 * ('rdma link delete' is not offered: ib_core would free the device under
 * its bound driver).
 * -EEXIST when DEV has a RoCE provider already (vroce's port, rxe, a
 * RoCE NIC's own),
 * -EBUSY when another rx_handler holds it (a bridge, a bond); the
 * probe's error (-ENFILE: NAME is taken) with nothing left behind.
 */
VISIBLE_IF_KUNIT int vroce_newlink(const char *ibdev_name,
				   struct net_device *ndev)
{
	int err;

	/*
	 * One RoCE provider per netdev: rxe's socket, or a RoCE NIC's port
	 * (which takes its packets before the netdev), would see nothing.
	 */
	if (vroce_roce_on(ndev))
		return -EEXIST;
	mutex_lock(&vroce_link_lock);
	vroce_link_pending.name = ibdev_name;
	vroce_link_pending.err = -ENODEV;
	vroce_link_pending.ndev = ndev;
	WRITE_ONCE(vroce_link_pending.task, current);
	err = vroce_hca_plug_link(ndev);
	WRITE_ONCE(vroce_link_pending.task, NULL);
	/* The probe's own error, where it failed (the HCA is unplugged). */
	if (err == -EIO && vroce_link_pending.err)
		err = vroce_link_pending.err;
	mutex_unlock(&vroce_link_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_newlink);

static struct rdma_link_ops vroce_link_ops = {
	.type = "vroce",
	.newlink = vroce_newlink,
};

static void vroce_remove(struct platform_device *pdev)
{
	struct vroce_dev *vdev = platform_get_drvdata(pdev);

	vroce_dev_stop(vdev);
	netdev_put(vdev->link, &vdev->link_tracker);
	vroce_dev_destroy(vdev);
}

VROCE_DEFINE_PLATFORM_REMOVE(vroce_remove)

static struct platform_driver vroce_pdrv = {
	.driver = {
		.name = VROCE_DRV_NAME,
		/* A port on a netdev is probed in its 'rdma link add'. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
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
	rdma_link_register(&vroce_link_ops);
	return 0;

err_unregister:
	platform_driver_unregister(&vroce_pdrv);
err_debugfs:
	vroce_debugfs_unregister();
	return err;
}

static void __exit vroce_exit(void)
{
	/* No 'rdma link add' runs once this returns. */
	rdma_link_unregister(&vroce_link_ops);
	vroce_hca_unplug();
	platform_driver_unregister(&vroce_pdrv);
	vroce_debugfs_unregister();
}

module_init(vroce_init);
module_exit(vroce_exit);

MODULE_DESCRIPTION("vroce RoCE-style HCA driver with an emulated device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("vroce");
