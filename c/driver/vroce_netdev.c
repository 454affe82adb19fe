// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the HCA's Ethernet port as a net_device.
 *
 * A RoCE port takes its GID table from a netdev: its MAC gives the default
 * link-local GID and its IP addresses the others, and the RDMA core checks
 * every address vector against that table. A converged NIC has such a
 * netdev from its Ethernet driver; so does an HCA whose port the bus
 * names a netdev (issue 34: the emulated HCA cabled to one by 'rdma link
 * add', Documentation/wire.rst): that one is used. An HCA on the
 * in-kernel wire has no Ethernet side, so vroce registers a small netdev
 * with the port's MAC (QUERY_DEVICE), whose transmit drops frames: RDMA
 * traffic never goes through it, the HCA delivers by destination MAC
 * (Documentation/datapath.rst).
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"

static netdev_tx_t vroce_netdev_xmit(struct sk_buff *skb,
				     struct net_device *ndev)
{
	dev_core_stats_tx_dropped_inc(ndev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops vroce_netdev_ops = {
	.ndo_start_xmit = vroce_netdev_xmit,
	.ndo_validate_addr = eth_validate_addr,
};

/**
 * vroce_netdev_init() - register the port's netdev and tie it to the port
 * @vdev: the device, not yet registered with the RDMA core
 *
 * Context: process context, may sleep; takes the RTNL.
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int vroce_netdev_init(struct vroce_dev *vdev)
{
	struct net_device *ndev;
	int err;

	/* Issue 34: the port is a netdev already; its addresses are ours. */
	if (vdev->link) {
		WRITE_ONCE(vdev->port_up, vroce_port_up(vdev));
		err = vroce_inject(vdev) ? -ENOMEM :
		      ib_device_set_netdev(&vdev->ibdev, vdev->link, 1);
		if (!err)
			vdev->netdev = vdev->link;
		return err;
	}
	ndev = vroce_inject(vdev) ? NULL : alloc_etherdev(0);
	if (!ndev)
		return -ENOMEM;
	strscpy(ndev->name, "vroce%d", sizeof(ndev->name));
	SET_NETDEV_DEV(ndev, vdev->dma_dev);
	ndev->netdev_ops = &vroce_netdev_ops;
	ndev->flags |= IFF_NOARP;
	/* The port's own address, as the HCA reports it. */
	eth_hw_addr_set(ndev, vdev->attr.mac);

	err = vroce_inject(vdev) ? -ENOMEM : register_netdev(ndev);
	if (err)
		goto err_free;
	rtnl_lock();
	err = dev_open(ndev, NULL);
	rtnl_unlock();
	if (err)
		goto err_unregister;
	err = vroce_inject(vdev) ? -ENOMEM :
	      ib_device_set_netdev(&vdev->ibdev, ndev, 1);
	if (err)
		goto err_unregister;
	vdev->netdev = ndev;
	return 0;

err_unregister:
	unregister_netdev(ndev);
err_free:
	free_netdev(ndev);
	return err;
}

/**
 * vroce_port_up() - whether the port's link is up
 * @vdev: the device
 *
 * A port on a netdev (issue 34) is up while the netdev runs and has a
 * carrier; one on the in-kernel wire always.
 *
 * Return: whether the port is up.
 */
bool vroce_port_up(const struct vroce_dev *vdev)
{
	const struct net_device *link = vdev->link;

	return !link || (netif_running(link) && netif_carrier_ok(link));
}

/**
 * vroce_port_event() - a VROCE_EQE_PORT_CHANGE event: tell the consumers
 * @vdev: the device
 * @port: the port the HCA names
 *
 * IB_EVENT_PORT_ACTIVE or IB_EVENT_PORT_ERR when the port's state differs
 * from the one last told (the HCA writes an event for each change of the
 * netdev's state, carrier or flags; one that finds the state as told says
 * nothing, and a quick down and up may come as two that find it up).
 *
 * Context: the event queue's consumer (eq->lock held).
 */
void vroce_port_event(struct vroce_dev *vdev, u32 port)
{
	struct ib_event ev = {
		.device = &vdev->ibdev,
		.element.port_num = 1,
	};
	bool up;

	lockdep_assert_held(&vdev->eq.lock);
	/* Unregistering: no event queued for a device about to go. */
	if (port != 1 || !vdev->link || vdev->port_gone)
		return;
	up = vroce_port_up(vdev);
	if (up == READ_ONCE(vdev->port_up))
		return;
	WRITE_ONCE(vdev->port_up, up);
	ev.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	if (device_is_registered(&vdev->ibdev.dev))
		ib_dispatch_event(&ev);
}

/**
 * vroce_port_events_off() - no port event is told from now on
 * @vdev: the device, about to be unregistered
 *
 * Taken under the event queue's lock: a consumer telling one finished,
 * and its ib_dispatch_event() work is flushed with the device's others.
 *
 * Context: process context, may sleep.
 */
void vroce_port_events_off(struct vroce_dev *vdev)
{
	mutex_lock(&vdev->eq.lock);
	vdev->port_gone = true;
	mutex_unlock(&vdev->eq.lock);
}

/**
 * vroce_netdev_exit() - untie and unregister the port's netdev
 * @vdev: the device, unregistered from the RDMA core
 *
 * Context: process context, may sleep; takes the RTNL.
 */
void vroce_netdev_exit(struct vroce_dev *vdev)
{
	ib_device_set_netdev(&vdev->ibdev, NULL, 1);
	if (vdev->link) {
		vdev->netdev = NULL;
		return;
	}
	unregister_netdev(vdev->netdev);
	free_netdev(vdev->netdev);
	vdev->netdev = NULL;
}
