// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the driver's device object, a wrapper around the RDMA core's
 * struct ib_device, and bringing the HCA up and down under it.
 */

#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/string.h>

#include "vroce.h"

/*
 * Tests: when n > 0, the n-th fault injection point (vroce_inject()) of the
 * next probe fails; the probe takes it over and resets it.
 */
VISIBLE_IF_KUNIT int vroce_probe_fail_nth;
EXPORT_SYMBOL_IF_KUNIT(vroce_probe_fail_nth);

VISIBLE_IF_KUNIT unsigned int vroce_health_poll_ms = 1000;
EXPORT_SYMBOL_IF_KUNIT(vroce_health_poll_ms);
module_param_named(health_poll_ms, vroce_health_poll_ms, uint, 0644);
MODULE_PARM_DESC(health_poll_ms,
		 "how often the HCA's heartbeat is checked (ms, 0: only when a command is late)");

/*
 * The device is dead (vroce_cmdq_kill()): reset the HCA, after which it
 * touches no memory and the commands waiting for that may free it; put
 * every QP in ERR, free the MR cache's idle entries, tell the RDMA core's
 * clients, and let the handler of every armed CQ find the flushed work
 * requests.
 */
static void vroce_dev_fatal_work(struct work_struct *work)
{
	struct vroce_dev *vdev = container_of(work, struct vroce_dev,
					      fatal_work);
	struct ib_event ev = {
		.device = &vdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = 1,
	};
	struct vroce_qp *qp;
	unsigned long n;

	vroce_hw_reset(&vdev->hw);
	complete_all(&vdev->cmdq.reset_done);
	dev_err(vdev->dma_dev,
		"HCA reset: commands fail with -EIO, work requests flush\n");
	/* Every QP is in error; QPs leave their table under eq.lock. */
	mutex_lock(&vdev->eq.lock);
	xa_for_each(&vdev->qps, n, qp)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	mutex_unlock(&vdev->eq.lock);
	/* Idle MR entries can be of no use again: their memory goes. */
	vroce_mr_cache_drain(vdev);
	/* Not for a device that dies in its probe, never registered. */
	if (device_is_registered(&vdev->ibdev.dev))
		ib_dispatch_event(&ev);
	queue_work(system_unbound_wq, &vdev->flush_work);
}

/* Queue the next health poll: a period away, at least ten beats. */
static void vroce_dev_health_next(struct vroce_dev *vdev)
{
	unsigned int ms = READ_ONCE(vroce_health_poll_ms);

	queue_delayed_work(system_unbound_wq, &vdev->health_work,
			   msecs_to_jiffies(max(ms ?: 1000,
						10 * VROCE_HW_BEAT_MS)));
}

/*
 * The health poll: an HCA that reports a fatal error, or whose heartbeat
 * stood still for a whole period, is dead.
 */
static void vroce_dev_health_work(struct work_struct *work)
{
	struct vroce_dev *vdev = container_of(to_delayed_work(work),
					      struct vroce_dev, health_work);
	unsigned int ms = READ_ONCE(vroce_health_poll_ms);
	bool ok;
	u32 beat;

	if (vroce_dev_dead(vdev))
		return;
	ok = vroce_hw_health(&vdev->hw, &beat);
	/* Polling off (0): looked at again in a second, judged then. */
	if (ms && (!ok || beat == vdev->health_beat)) {
		dev_err(vdev->dma_dev, "HCA %s\n",
			ok ? "heartbeat stopped" : "reports a fatal error");
		vroce_cmdq_kill(vdev);
		return;
	}
	vdev->health_beat = beat;
	vroce_dev_health_next(vdev);
}

/**
 * vroce_dev_create() - allocate and set up the RDMA device of one HCA
 * @dma_dev: the HCA's device, with its DMA mask already set; DMA for the
 *	RDMA device is mapped against it and it becomes the parent
 *
 * The device is neither started nor registered with the RDMA core.
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

	/* Fault injection from the very first step of the probe. */
	atomic_set(&vdev->mem.fail_nth, xchg(&vroce_probe_fail_nth, 0));
	vdev->dma_dev = dma_dev;
	strscpy(vdev->name, "vroce%d", sizeof(vdev->name));
	mutex_init(&vdev->zombie_lock);
	INIT_LIST_HEAD(&vdev->zombies);
	INIT_LIST_HEAD(&vdev->ring_zombies);
	INIT_LIST_HEAD(&vdev->pd_zombies);
	INIT_LIST_HEAD(&vdev->mw_zombies);
	vroce_mr_cache_init(vdev);
	xa_init(&vdev->cqs);
	xa_init(&vdev->srqs);
	xa_init_flags(&vdev->qps, XA_FLAGS_ALLOC);
	vdev->reap_next = jiffies;
	mutex_init(&vdev->eq.lock);
	INIT_WORK(&vdev->fatal_work, vroce_dev_fatal_work);
	INIT_WORK(&vdev->flush_work, vroce_eq_flush_work);
	INIT_DELAYED_WORK(&vdev->health_work, vroce_dev_health_work);
	vroce_odp_init(vdev);

	ibdev = &vdev->ibdev;
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = VROCE_NUM_PORTS;
	ibdev->num_comp_vectors = 1;
	ibdev->dev.parent = dma_dev;
	/* ib_umem maps user memory for the HCA even before registration. */
	ibdev->dma_device = dma_dev;
	ibdev->node_guid = cpu_to_be64(0x02f0000000000000ULL | get_random_u32());
	strscpy(ibdev->node_desc, "vroce HCA", sizeof(ibdev->node_desc));
	/*
	 * User QPs and CQs keep their rings in the kernel: work requests,
	 * polling and arming come through these uverbs commands.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	/* And an SRQ's receives (c/driver/vroce_srq.c). */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV);
	ib_set_device_ops(ibdev, &vroce_dev_ops);

	return vdev;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_dev_create);

/**
 * vroce_dev_destroy() - free a device made by vroce_dev_create()
 * @vdev: the device; it must be stopped
 *
 * By now the HCA is reset (or was never started) and every MR, ring and
 * PD of the device is freed, zombies included: what the core services
 * still count as allocated is a leak, and warned about.
 *
 * Context: process context, may sleep.
 */
void vroce_dev_destroy(struct vroce_dev *vdev)
{
	s64 live = atomic64_read(&vdev->mem.allocs) -
		   atomic64_read(&vdev->mem.frees);
	s64 dma = atomic64_read(&vdev->mem.dma_bytes);

	WARN(live || dma,
	     "vroce: device freed with %lld allocations and %lld DMA bytes held\n",
	     live, dma);
	/* Numbers of QPs whose CREATE or DESTROY was lost: the HCA is reset. */
	xa_destroy(&vdev->qps);
	xa_destroy(&vdev->odp_mrs);
	ib_dealloc_device(&vdev->ibdev);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_dev_destroy);

static void vroce_dev_cmd_irq(void *data)
{
	vroce_cmdq_irq(data);
}

static void vroce_dev_eq_irq(void *data)
{
	vroce_eq_irq(data);
}

/*
 * Stop the HCA and disconnect its vectors: from then on it touches no
 * memory and no handler runs, so rings and tables may be freed. A death
 * (vroce_cmdq_kill()) is dealt with first; no command follows.
 */
static void vroce_dev_quiesce(struct vroce_dev *vdev, bool eq_connected)
{
	flush_work(&vdev->fatal_work);
	/* ib_dispatch_event() delivers from ib_wq, naming the device. */
	flush_workqueue(ib_wq);
	cancel_work_sync(&vdev->flush_work);
	vroce_hw_reset(&vdev->hw);
	vroce_hw_free_irq(&vdev->hw, VROCE_IRQ_CMD);
	if (eq_connected)
		vroce_hw_free_irq(&vdev->hw, VROCE_IRQ_EQ);
}

/**
 * vroce_dev_start() - bring the HCA up and register the RDMA device
 * @vdev: the device, its hardware handle set
 *
 * The HCA's interrupt vectors are dispatched here: the command vector to
 * the command layer, the event vector to the event queue.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENODEV when the HCA is not one this driver knows; an error
 * of setting up the command ring or the event queue, of connecting a
 * vector, of QUERY_DEVICE or of ib_register_device().
 */
int vroce_dev_start(struct vroce_dev *vdev)
{
	u32 version;
	int err;

	version = vroce_hw_version(&vdev->hw);
	if (!vroce_hw_version_ok(version)) {
		dev_err(vdev->dma_dev, "unknown HCA version %#x\n", version);
		return -ENODEV;
	}
	vroce_hw_reset(&vdev->hw);

	err = vroce_cmdq_init(vdev);
	if (err)
		return err;
	err = vroce_hw_request_irq(&vdev->hw, VROCE_IRQ_CMD, vroce_dev_cmd_irq,
				   vdev);
	if (err)
		goto err_cmdq_exit;
	err = vroce_cmdq_start(vdev);
	if (err)
		goto err_quiesce_cmd;
	err = vroce_cmd_query_device(vdev, &vdev->attr);
	if (err)
		goto err_quiesce_cmd;
	vdev->attr.hw_ver = version;
	err = vroce_eq_init(vdev);
	if (err)
		goto err_quiesce_cmd;
	err = vroce_hw_request_irq(&vdev->hw, VROCE_IRQ_EQ, vroce_dev_eq_irq,
				   vdev);
	if (err)
		goto err_eq_exit;
	vroce_eq_start(vdev);
	err = vroce_netdev_init(vdev);
	if (err)
		goto err_quiesce;
	err = vroce_inject(vdev) ? -ENOMEM :
	      ib_register_device(&vdev->ibdev, vdev->name, vdev->dma_dev);
	if (err)
		goto err_netdev_exit;

	vroce_debugfs_init(vdev);
	vroce_hw_health(&vdev->hw, &vdev->health_beat);
	vroce_dev_health_next(vdev);
	return 0;

err_netdev_exit:
	/* Clients that came and went during registration left entries. */
	vroce_mr_cache_drain(vdev);
	vroce_netdev_exit(vdev);
err_quiesce:
	/* The HCA must be quiet before the event queue goes. */
	vroce_odp_stop(vdev, false);
	vroce_dev_quiesce(vdev, true);
	vroce_odp_stop(vdev, true);
	vroce_eq_exit(vdev);
	vroce_cmdq_exit(vdev);
	/* What RDMA clients made and could not destroy, before it failed. */
	vroce_ring_reap(vdev);
	vroce_mr_reap(vdev, true);
	return err;
err_eq_exit:
	vroce_eq_exit(vdev);
err_quiesce_cmd:
	vroce_dev_quiesce(vdev, false);
	vroce_cmdq_exit(vdev);
	return err;
err_cmdq_exit:
	vroce_cmdq_exit(vdev);
	return err;
}

/**
 * vroce_dev_stop() - unregister the RDMA device and stop the HCA
 * @vdev: a device started by vroce_dev_start()
 *
 * Unregistering destroys every MR, and the MR cache's idle entries go;
 * the HCA is then reset, after which the tables of MRs it never let go of
 * can be freed. A dead device unregisters the same way: its destroys are
 * done in software.
 *
 * Context: process context, may sleep.
 */
void vroce_dev_stop(struct vroce_dev *vdev)
{
	cancel_delayed_work_sync(&vdev->health_work);
	vroce_debugfs_exit(vdev);
	vroce_port_events_off(vdev);
	ib_unregister_device(&vdev->ibdev);
	/* Every MR is deregistered: the idle entries go, then the PD. */
	vroce_mr_cache_drain(vdev);
	vroce_netdev_exit(vdev);
	/* No fault handled from here: no MR is left to fault on. */
	vroce_odp_stop(vdev, false);
	vroce_dev_quiesce(vdev, true);
	vroce_odp_stop(vdev, true);
	vroce_eq_exit(vdev);
	vroce_cmdq_exit(vdev);
	vroce_ring_reap(vdev);
	vroce_mr_reap(vdev, true);
}
