// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: the device itself, shipped in the module until
 * silicon exists (like netdevsim). This file is its bus side.
 *
 * It is a platform device whose platform data is its bus (struct
 * vroce_hca_res). It sees only what silicon would: register writes, a
 * command ring in host memory that it reads by walking the ring's MTR, and
 * the tables of the MRs, rings and event queue it is told about, by DMA
 * address. It answers in its own context (commands on an ordered
 * workqueue, each QP's engine and the timer on an unbound one; no command
 * runs beside an engine, QPs' engines run side by side) and signals
 * completions through the interrupt vectors the driver connected,
 * whose handlers run on their own workqueue, holding none of the locks of
 * the HCA's state. Nothing the driver writes is trusted.
 * c/hca/vroce_hca_priv.h lists the HCA's files by role, and its locks.
 *
 * This file: plugging HCAs in and out (platform devices "vroce.<n>"), the
 * register decode behind read32 and write32, the interrupt vectors'
 * handlers (request_irq, free_irq, and delivering what was raised), and
 * the debugfs directory with the fault knobs. Registers with an effect
 * beyond being stored (Documentation/device.rst has them all, and
 * Documentation/datapath.rst the data path):
 *   CMDQ_PI      wakes the command processor (c/hca/vroce_hca_cmd.c).
 *   DB_SQ/DB_RQ  record a QP's producer index and queue its work
 *                (c/hca/vroce_hca_sched.c), whose requester executes send
 *                WQEs against the peer QP on this HCA and writes CQEs; DB_CQ
 *                records a CQ's consumer index (for overflow) and arms it
 *                for one completion event.
 *   EQ_BA/EQ_CFG/EQ_CI  the event queue: COMP, CQ_ERR and QP_FATAL
 *                entries, signalled by VROCE_INTR_EQ. Setting
 *                VROCE_EQ_CFG_ENABLE starts it afresh at entry 0.
 *   INTR_CAUSE   cleared by reading it.
 *   CTRL RESET   finishes the command and QP visits in flight, then
 *                forgets MPT, PDs, CQs, QPs, doorbells, EQ and registers.
 *
 * Fault knobs, in debugfs under vroce_hca/<device>/ (netdevsim style), and
 * vroce_hca/new_device and del_device, which plug HCAs in and out at run
 * time: Documentation/device.rst, "Fault knobs", is their one list
 * (scripts/doc-knobs.py checks it against the files created here and in
 * c/hca/vroce_hca_mpt.c). The command knobs act in the command processor,
 * the event knobs in the engine (which also counts ud_dropped), hang and
 * fatal in both; mr_read and reg_frmr are the MPT's, which creates their
 * files.
 *
 * Calls: c/hca/vroce_hca_cmd.c, c/hca/vroce_hca_sched.c,
 * c/hca/vroce_hca_mpt.c (setting up, resetting and freeing each role),
 * c/hca/vroce_hca_core.c (fault injection).
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

static struct dentry *vroce_hca_debugfs_root;

/* ---- register decode ---- */

/* The firmware's clock: one beat per tick. */
static u32 vroce_hca_beat_now(void)
{
	return jiffies_to_msecs(jiffies) / VROCE_HEALTH_TICK_MS;
}

/* HEALTH: the heartbeat, standing still while hung; under reg_lock. */
static u32 vroce_hca_health(struct vroce_hca *hca)
{
	u32 val;

	lockdep_assert_held(&hca->reg_lock);
	val = (hca->hang || hca->fatal ? hca->beat : vroce_hca_beat_now()) &
	      VROCE_HEALTH_BEAT;
	return hca->fatal ? val | VROCE_HEALTH_FATAL : val;
}

/**
 * vroce_hca_set_health() - hang the HCA's firmware, or fail it
 * @hca: the HCA
 * @hang: from now on nothing is carried out (commands, QPs' engines,
 *	timers) and the heartbeat stands still
 * @fatal: as @hang, and HEALTH reports an internal error
 *
 * What was in flight finishes; a reset (CTRL RESET) clears both, as a
 * function-level reset recovers a hung device.
 *
 * Context: any context.
 */
void vroce_hca_set_health(struct vroce_hca *hca, bool hang, bool fatal)
{
	unsigned long flags;

	spin_lock_irqsave(&hca->reg_lock, flags);
	if (!hca->hang && !hca->fatal)
		hca->beat = vroce_hca_beat_now();
	WRITE_ONCE(hca->hang, hang);
	WRITE_ONCE(hca->fatal, fatal);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_health);

static u32 vroce_hca_read32(void *ctx, u32 off)
{
	struct vroce_hca *hca = ctx;
	unsigned long flags;
	u32 val = 0;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return ~0U;	/* what a bus returns for a bad read */

	/* Doorbells are write-only: never stored, they read as 0. */
	spin_lock_irqsave(&hca->reg_lock, flags);
	val = vroce_hca_reg(hca, off);
	if (off == VROCE_REG_HEALTH)
		val = vroce_hca_health(hca);
	if (off == VROCE_REG_INTR_CAUSE)
		hca->regs[off / sizeof(u32)] = 0;
	spin_unlock_irqrestore(&hca->reg_lock, flags);
	return val;
}

static void vroce_hca_reset(struct vroce_hca *hca)
{
	unsigned long flags;

	down_write(hca->wire_lock);
	vroce_hca_mpt_reset(hca);
	vroce_hca_engine_reset(hca);
	vroce_hca_gid_reset(hca);
	up_write(hca->wire_lock);

	spin_lock_irqsave(&hca->reg_lock, flags);
	memset(hca->regs, 0, sizeof(hca->regs));
	hca->regs[VROCE_REG_VERSION / sizeof(u32)] = VROCE_HW_VERSION;
	WRITE_ONCE(hca->hang, 0);
	WRITE_ONCE(hca->fatal, 0);
	spin_unlock_irqrestore(&hca->reg_lock, flags);
}

static void vroce_hca_write32(void *ctx, u32 off, u32 val)
{
	struct vroce_hca *hca = ctx;
	unsigned long flags;
	bool kick = false;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return;
	if (off == VROCE_REG_VERSION || off == VROCE_REG_STATUS ||
	    off == VROCE_REG_CMDQ_CI || off == VROCE_REG_INTR_CAUSE ||
	    off == VROCE_REG_HEALTH)
		return;		/* read-only */
	if (vroce_hca_doorbell(hca, off, val))
		return;
	/* The doorbell record stays where it was while the ring runs. */
	if ((off == VROCE_REG_CMDQ_DBR || off == VROCE_REG_CMDQ_DBR + 4) &&
	    (READ_ONCE(hca->regs[VROCE_REG_CTRL / sizeof(u32)]) &
	     VROCE_CTRL_ENABLE))
		return;

	if (off == VROCE_REG_CTRL && (val & VROCE_CTRL_RESET)) {
		/* Finish what is in flight, then forget everything. */
		spin_lock_irqsave(&hca->reg_lock, flags);
		hca->regs[VROCE_REG_CTRL / sizeof(u32)] = 0;
		spin_unlock_irqrestore(&hca->reg_lock, flags);
		vroce_hca_cmd_quiesce(hca);
		vroce_hca_engine_quiesce(hca);
		vroce_hca_reset(hca);
		return;
	}

	spin_lock_irqsave(&hca->reg_lock, flags);
	/* Enabling the event queue starts it afresh, at entry 0. */
	if (off == VROCE_REG_EQ_CFG && (val & VROCE_EQ_CFG_ENABLE) &&
	    !(vroce_hca_reg(hca, off) & VROCE_EQ_CFG_ENABLE))
		hca->eq_pi = 0;
	hca->regs[off / sizeof(u32)] = val;
	if (off == VROCE_REG_CTRL) {
		if (val & VROCE_CTRL_ENABLE)
			hca->regs[VROCE_REG_STATUS / sizeof(u32)] |=
				VROCE_STATUS_READY;
		else
			hca->regs[VROCE_REG_STATUS / sizeof(u32)] &=
				~VROCE_STATUS_READY;
	}
	/* CMDQ_LEND (issue 33) is a CMDQ_PI doorbell that lends the context. */
	if (off == VROCE_REG_CMDQ_LEND)
		hca->regs[VROCE_REG_CMDQ_PI / sizeof(u32)] = val;
	kick = (off == VROCE_REG_CMDQ_PI || off == VROCE_REG_CMDQ_LEND) &&
	       (vroce_hca_reg(hca, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE);
	spin_unlock_irqrestore(&hca->reg_lock, flags);

	if (kick && off == VROCE_REG_CMDQ_LEND)
		vroce_hca_cmd_lend(hca, val);
	else if (kick)
		queue_work(hca->wq, &hca->cmd_work);
}

/* ---- interrupt vectors ---- */

/* Deliver what vroce_hca_raise_irq() raised: the handler, if connected. */
static void vroce_hca_irq_work(struct work_struct *work)
{
	struct vroce_hca_irq *irq = container_of(work, struct vroce_hca_irq,
						 work);

	mutex_lock(&irq->lock);
	if (irq->handler)
		irq->handler(irq->data);
	mutex_unlock(&irq->lock);
}

static int vroce_hca_request_irq(void *ctx, unsigned int vec,
				 void (*handler)(void *data), void *data)
{
	struct vroce_hca *hca = ctx;
	struct vroce_hca_irq *irq;
	int err = 0;

	if (vec >= VROCE_NUM_IRQS)
		return -EINVAL;
	irq = &hca->irq[vec];
	mutex_lock(&irq->lock);
	if (irq->handler) {
		err = -EBUSY;
	} else {
		irq->handler = handler;
		irq->data = data;
	}
	mutex_unlock(&irq->lock);
	return err;
}

static void vroce_hca_free_irq(void *ctx, unsigned int vec)
{
	struct vroce_hca *hca = ctx;
	struct vroce_hca_irq *irq;

	if (vec >= VROCE_NUM_IRQS)
		return;
	irq = &hca->irq[vec];
	/* The handler runs under the lock, so none is running after this. */
	mutex_lock(&irq->lock);
	irq->handler = NULL;
	irq->data = NULL;
	mutex_unlock(&irq->lock);
}

static const struct vroce_bus_ops vroce_hca_bus_ops = {
	.read32 = vroce_hca_read32,
	.write32 = vroce_hca_write32,
	.request_irq = vroce_hca_request_irq,
	.free_irq = vroce_hca_free_irq,
};

/* ---- debugfs ---- */

static int vroce_hca_hang_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vroce_hca *)data)->hang);
	return 0;
}

static int vroce_hca_hang_set(void *data, u64 val)
{
	struct vroce_hca *hca = data;

	vroce_hca_set_health(hca, val, READ_ONCE(hca->fatal));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vroce_hca_hang_fops, vroce_hca_hang_get,
			 vroce_hca_hang_set, "%llu\n");

static int vroce_hca_fatal_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vroce_hca *)data)->fatal);
	return 0;
}

static int vroce_hca_fatal_set(void *data, u64 val)
{
	struct vroce_hca *hca = data;

	vroce_hca_set_health(hca, READ_ONCE(hca->hang), val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vroce_hca_fatal_fops, vroce_hca_fatal_get,
			 vroce_hca_fatal_set, "%llu\n");

static void vroce_hca_debugfs_init(struct vroce_hca *hca)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(vroce_hca_debugfs_root))
		return;
	d = debugfs_create_dir(dev_name(vroce_hca_dev(hca)),
			       vroce_hca_debugfs_root);
	hca->debugfs = d;
	debugfs_create_u32("fail_cmds", 0600, d, &hca->fail_cmds);
	debugfs_create_u32("fail_status", 0600, d, &hca->fail_status);
	debugfs_create_u32("drop_cmds", 0600, d, &hca->drop_cmds);
	debugfs_create_u32("delay_ms", 0600, d, &hca->delay_ms);
	debugfs_create_u32("fault_opcode", 0600, d, &hca->fault_opcode);
	debugfs_create_u32("drop_events", 0600, d, &hca->drop_events);
	debugfs_create_u32("event_delay_ms", 0600, d, &hca->event_delay_ms);
	debugfs_create_u32("ud_dropped", 0400, d, &hca->ud_dropped);
	debugfs_create_u32("uc_dropped", 0400, d, &hca->uc_dropped);
	debugfs_create_u32("eq_lost", 0400, d, &hca->eq_lost);
	debugfs_create_file_unsafe("hang", 0600, d, hca, &vroce_hca_hang_fops);
	debugfs_create_file_unsafe("fatal", 0600, d, hca, &vroce_hca_fatal_fops);
	vroce_hca_mpt_debugfs_init(hca, d);
}

/* ---- the device ---- */

/**
 * vroce_hca_add() - plug in an emulated HCA
 * @id: platform device id (PLATFORM_DEVID_AUTO for any)
 *
 * Adds platform device "vroce.<id>"; the vroce driver binds to it when
 * registered.
 *
 * Context: process context, may sleep.
 * Return: the HCA, or an ERR_PTR().
 */
struct vroce_hca *vroce_hca_add(int id)
{
	return vroce_hca_add_link(id, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_add);

/**
 * vroce_hca_add_link() - plug in an emulated HCA whose port is cabled to
 *	a netdev
 * @id: platform device id (PLATFORM_DEVID_AUTO for any)
 * @link: the netdev the port sends and receives RoCE v2 packets on (its
 *	MAC becomes the port's), or NULL for a port on the in-kernel wire
 *
 * Context: process context, may sleep; not with the RTNL held.
 * Return: the HCA, or an ERR_PTR(): vroce_hca_link_attach()'s errors,
 * -ENODEV for a netdev being unregistered, -ENOMEM.
 */
struct vroce_hca *vroce_hca_add_link(int id, struct net_device *link)
{
	struct vroce_hca_res res = { .bus = &vroce_hca_bus_ops, .link = link };
	struct vroce_hca *hca;
	int err = -ENOMEM;
	unsigned int i;

	hca = vroce_hca_inject() ? NULL : kzalloc(sizeof(*hca), GFP_KERNEL);
	if (!hca)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&hca->reg_lock);
	hca->wire_lock = vroce_hca_wire_lock();
	INIT_LIST_HEAD(&hca->wire_node);
	INIT_LIST_HEAD(&hca->link_node);
	/* Locally administered, unicast, as netdevsim's and rxe's peers. */
	eth_random_addr(hca->mac);
	hca->caps = VROCE_CAP_MR_ENABLE | VROCE_CAP_SRQ | VROCE_CAP_ATOMIC |
		    VROCE_CAP_UC | VROCE_CAP_MCAST | VROCE_CAP_UNPRIV_QP |
		    VROCE_CAP_MAPPED;
	hca->caps |= VROCE_CAP_LEND;	/* issue 31 */
	hca->caps |= VROCE_CAP_MW;	/* issue 30: memory windows */
	hca->caps |= VROCE_CAP_GID_TABLE;	/* review of issue 31 */
	hca->caps |= VROCE_CAP_CMD_LEND;	/* issue 33 */
	hca->caps |= VROCE_CAP_ODP;		/* issue 33 */
	hca->caps |= VROCE_CAP_QP_PATH;	/* issue 34 */
	vroce_hca_cmd_init(hca);
	for (i = 0; i < VROCE_NUM_IRQS; i++) {
		hca->irq[i].hca = hca;
		mutex_init(&hca->irq[i].lock);
		INIT_WORK(&hca->irq[i].work, vroce_hca_irq_work);
	}

	err = vroce_hca_mpt_alloc(hca);
	if (err)
		goto err_free_hca;
	err = vroce_hca_engine_alloc(hca);
	if (err)
		goto err_free_mpt;
	err = -ENOMEM;
	/*
	 * Issue 33: an ODP MR's invalidation, which reclaim may run, waits
	 * for a FENCE command and its interrupt: both queues have a rescuer,
	 * not a worker made from the memory being reclaimed.
	 */
	hca->wq = vroce_hca_inject() ? NULL :
		  alloc_ordered_workqueue("vroce_hca", WQ_MEM_RECLAIM);
	if (!hca->wq)
		goto err_free_engine;
	hca->irq_wq = vroce_hca_inject() ? NULL :
		      alloc_workqueue("vroce_irq", WQ_MEM_RECLAIM, 0);
	if (!hca->irq_wq)
		goto err_destroy_wq;
	vroce_hca_reset(hca);
	if (link) {
		err = vroce_hca_link_attach(hca, link);
		if (err)
			goto err_destroy_irq_wq;
	}

	err = -ENOMEM;
	hca->pdev = vroce_hca_inject() ? NULL :
		    platform_device_alloc("vroce", id);
	if (!hca->pdev)
		goto err_detach;
	res.ctx = hca;
	err = vroce_hca_inject() ? -ENOMEM :
	      platform_device_add_data(hca->pdev, &res, sizeof(res));
	if (err)
		goto err_put_pdev;
	err = vroce_hca_inject() ? -ENOMEM : platform_device_add(hca->pdev);
	if (err)
		goto err_put_pdev;

	vroce_hca_debugfs_init(hca);
	/* Issue 34: a port on a netdev reaches others through it only. */
	if (!link)
		vroce_hca_wire_join(hca);
	return hca;

err_put_pdev:
	platform_device_put(hca->pdev);
err_detach:
	if (link) {
		rtnl_lock();
		vroce_hca_link_detach(hca);
		rtnl_unlock();
		vroce_hca_link_free(hca);
	}
err_destroy_irq_wq:
	destroy_workqueue(hca->irq_wq);
err_destroy_wq:
	destroy_workqueue(hca->wq);
err_free_engine:
	vroce_hca_engine_free(hca);
err_free_mpt:
	vroce_hca_mpt_free(hca);
err_free_hca:
	kfree(hca);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_add_link);

/**
 * vroce_hca_del() - unplug an emulated HCA
 * @hca: the HCA from vroce_hca_add()
 *
 * The driver is unbound first (its reset quiesces the data path), then
 * the engine is stopped for good and the device's memory goes.
 *
 * Context: process context, may sleep.
 */
void vroce_hca_del(struct vroce_hca *hca)
{
	debugfs_remove_recursive(hca->debugfs);
	platform_device_unregister(hca->pdev);
	/* Off the wire: no other HCA's engine delivers here from now on. */
	vroce_hca_wire_leave(hca);
	/* Off its link (unless the netdev went first): no packet comes. */
	rtnl_lock();
	vroce_hca_link_detach(hca);
	rtnl_unlock();
	vroce_hca_link_free(hca);
	/* A QP a test left held must not keep the engine from stopping. */
	vroce_hca_hold_qp(hca, 0);
	/* No RNR retry or delayed event may fire into a freed HCA. */
	vroce_hca_engine_stop(hca);
	destroy_workqueue(hca->wq);
	destroy_workqueue(hca->irq_wq);
	vroce_hca_engine_free(hca);
	vroce_hca_mpt_free(hca);
	kfree(hca);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_del);

/**
 * vroce_hca_pdev() - the platform device of an emulated HCA
 * @hca: the HCA
 *
 * Return: its platform device.
 */
struct platform_device *vroce_hca_pdev(struct vroce_hca *hca)
{
	return hca->pdev;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_pdev);

static unsigned int num_hcas = 1;
module_param(num_hcas, uint, 0444);
MODULE_PARM_DESC(num_hcas, "emulated HCAs to plug in at load time (0-8)");

#define VROCE_HCA_MAX_PLUGGED	8

/*
 * HCAs plugged in by id ("vroce.<id>"), under vroce_hca_plug_lock;
 * VROCE_HCA_UNPLUGGING while one is being unplugged, so that its id is not
 * given again before the old device is gone.
 */
static DEFINE_MUTEX(vroce_hca_plug_lock);
static struct vroce_hca *vroce_hca_plugged[VROCE_HCA_MAX_PLUGGED];
#define VROCE_HCA_UNPLUGGING	ERR_PTR(-EBUSY)

/*
 * Plug HCA @id in: -EINVAL past the ids, -EEXIST when it is in, -EBUSY
 * while it is being unplugged.
 */
static int vroce_hca_plug_one(unsigned int id)
{
	struct vroce_hca *hca;
	int err = 0;

	if (id >= VROCE_HCA_MAX_PLUGGED)
		return -EINVAL;
	mutex_lock(&vroce_hca_plug_lock);
	if (vroce_hca_plugged[id]) {
		err = vroce_hca_plugged[id] == VROCE_HCA_UNPLUGGING ? -EBUSY :
		      -EEXIST;
		goto out;
	}
	hca = vroce_hca_add(id);
	if (IS_ERR(hca))
		err = PTR_ERR(hca);
	else
		vroce_hca_plugged[id] = hca;
out:
	mutex_unlock(&vroce_hca_plug_lock);
	return err;
}

/*
 * Unplug HCA @id: -EINVAL past the ids, -ENOENT when it is not in, -EBUSY
 * while another write unplugs it.
 */
static int vroce_hca_unplug_one(unsigned int id)
{
	struct vroce_hca *hca;

	if (id >= VROCE_HCA_MAX_PLUGGED)
		return -EINVAL;
	mutex_lock(&vroce_hca_plug_lock);
	hca = vroce_hca_plugged[id];
	if (hca && hca != VROCE_HCA_UNPLUGGING)
		vroce_hca_plugged[id] = VROCE_HCA_UNPLUGGING;
	mutex_unlock(&vroce_hca_plug_lock);
	if (!hca)
		return -ENOENT;
	if (hca == VROCE_HCA_UNPLUGGING)
		return -EBUSY;
	/* Unbinding may wait for RDMA users: not under the lock. */
	vroce_hca_del(hca);
	mutex_lock(&vroce_hca_plug_lock);
	vroce_hca_plugged[id] = NULL;
	mutex_unlock(&vroce_hca_plug_lock);
	return 0;
}

/*
 * Issue 34: HCAs cabled to a netdev by vroce_hca_plug_link() ('rdma link
 * add NAME type vroce netdev DEV'), on vroce_hca_links once their driver
 * took them. The list has its own spinlock, a leaf, which the notifiers
 * take: the netdev notifier under the RTNL, the bus notifier under the
 * device's lock. Plugging in and out holds vroce_hca_plug_lock, which
 * nests outside a device's lock, which nests outside the RTNL (as in a
 * probe). An HCA leaves the list once, by whoever takes
 * it off (the netdev going, its driver unbound, module unload), and that
 * one unplugs it.
 */
static DEFINE_SPINLOCK(vroce_hca_links_lock);
static LIST_HEAD(vroce_hca_links);
static struct workqueue_struct *vroce_hca_unplug_wq;

/* Take @hca off the list; true when it was on it (and so is the caller's). */
static bool vroce_hca_links_take(struct vroce_hca *hca)
{
	bool listed;

	spin_lock(&vroce_hca_links_lock);
	listed = !list_empty(&hca->link_node);
	list_del_init(&hca->link_node);
	spin_unlock(&vroce_hca_links_lock);
	return listed;
}

/*
 * The cable was pulled, or the driver let go of the HCA: unplug it. Not
 * under vroce_hca_plug_lock: unbinding may wait for RDMA users, and only
 * an HCA that was on the list, whole, comes here.
 */
static void vroce_hca_unplug_work(struct work_struct *work)
{
	struct vroce_hca *hca = container_of(work, struct vroce_hca,
					     unplug_work);

	vroce_hca_del(hca);
}

/**
 * vroce_hca_plug_link() - plug in an HCA whose port is cabled to @ndev
 * @ndev: an Ethernet netdev, held by the caller
 *
 * The HCA's platform device is added, and the driver bound to it, before
 * this returns. It is unplugged when @ndev is unregistered (or moved to
 * another namespace), when its driver is unbound, or at module unload.
 *
 * Context: process context, may sleep; not with the RTNL held.
 * Return: 0 or the error of vroce_hca_add_link(); -ENODEV when the board
 * is not set up (module load or unload), or when @ndev went meanwhile;
 * -EIO when no driver took the HCA (its probe failed): it is unplugged
 * again, the netdev left as it was.
 */
int vroce_hca_plug_link(struct net_device *ndev)
{
	bool listed = false;
	struct vroce_hca *hca;
	int err = 0;

	mutex_lock(&vroce_hca_plug_lock);
	if (!vroce_hca_unplug_wq) {
		err = -ENODEV;
		goto out;
	}
	hca = vroce_hca_add_link(PLATFORM_DEVID_AUTO, ndev);
	if (IS_ERR(hca)) {
		err = PTR_ERR(hca);
		goto out;
	}
	INIT_WORK(&hca->unplug_work, vroce_hca_unplug_work);
	/*
	 * Decided and listed under the device's lock and the RTNL (the
	 * probe's order), which the bus notifier (an unbind) and the netdev
	 * notifier hold: each either ran before, and left the driver gone
	 * or the cable pulled (@hca->link NULL, found by the netdev's
	 * rx_handler from the moment the cable was attached), or runs
	 * after and finds the HCA listed. Once listed, the HCA is theirs to
	 * unplug, and may be gone as soon as the locks are dropped.
	 */
	device_lock(&hca->pdev->dev);
	rtnl_lock();
	if (!hca->pdev->dev.driver) {
		err = -EIO;	/* a card no driver took: its probe failed */
	} else if (!hca->link) {
		err = -ENODEV;
	} else {
		spin_lock(&vroce_hca_links_lock);
		list_add_tail(&hca->link_node, &vroce_hca_links);
		spin_unlock(&vroce_hca_links_lock);
		listed = true;
	}
	rtnl_unlock();
	device_unlock(&hca->pdev->dev);
	if (!listed)
		vroce_hca_del(hca);
out:
	mutex_unlock(&vroce_hca_plug_lock);
	return err;
}

/*
 * The netdev a port is cabled to changed. Its address: the port's follows.
 * Its state: the driver is told. It is going (unregistered, or moved to
 * another namespace): pull the cable now (under the RTNL, so that the
 * netdev's last reference can go) and unplug the HCA in a work item
 * (unbinding the driver may take the RTNL), unless it is not listed yet:
 * vroce_hca_plug_link() then finds the cable pulled.
 */
static int vroce_hca_link_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct vroce_hca *hca;

	switch (event) {
	case NETDEV_UNREGISTER:
	case NETDEV_CHANGEADDR:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		break;
	default:
		return NOTIFY_DONE;
	}
	hca = vroce_hca_link_of(ndev);
	if (!hca)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_CHANGEADDR:
		vroce_hca_link_mac(hca);
		break;
	case NETDEV_UNREGISTER:
		vroce_hca_link_detach(hca);
		if (vroce_hca_links_take(hca))
			queue_work(vroce_hca_unplug_wq, &hca->unplug_work);
		break;
	default:
		vroce_hca_link_state(hca);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block vroce_hca_link_nb = {
	.notifier_call = vroce_hca_link_event,
};

/*
 * A linked HCA whose driver was unbound (through sysfs) goes: it could
 * not be bound again (its probe takes it only from 'rdma link add'), and
 * its port would hold the netdev's RoCE packets for nobody.
 */
static int vroce_hca_bus_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	struct device *dev = ptr;
	struct vroce_hca *hca, *found = NULL;

	if (event != BUS_NOTIFY_UNBOUND_DRIVER)
		return NOTIFY_DONE;
	spin_lock(&vroce_hca_links_lock);
	list_for_each_entry(hca, &vroce_hca_links, link_node)
		if (&hca->pdev->dev == dev) {
			found = hca;
			list_del_init(&hca->link_node);
			break;
		}
	spin_unlock(&vroce_hca_links_lock);
	if (!found)
		return NOTIFY_DONE;
	queue_work(vroce_hca_unplug_wq, &found->unplug_work);
	return NOTIFY_OK;
}

static struct notifier_block vroce_hca_bus_nb = {
	.notifier_call = vroce_hca_bus_event,
};

/* Module unload: every HCA still cabled goes. */
static void vroce_hca_unplug_links(void)
{
	struct vroce_hca *hca;

	bus_unregister_notifier(&platform_bus_type, &vroce_hca_bus_nb);
	unregister_netdevice_notifier(&vroce_hca_link_nb);
	/* No 'rdma link add' runs now: the list is this loop's alone. */
	for (;;) {
		spin_lock(&vroce_hca_links_lock);
		hca = list_first_entry_or_null(&vroce_hca_links,
					       struct vroce_hca, link_node);
		if (hca)
			list_del_init(&hca->link_node);
		spin_unlock(&vroce_hca_links_lock);
		if (!hca)
			break;
		vroce_hca_del(hca);
	}
	/* HCAs whose netdev or driver went meanwhile: their works end here. */
	destroy_workqueue(vroce_hca_unplug_wq);
	vroce_hca_unplug_wq = NULL;
}

/* new_device and del_device: one id, in decimal, per write. */
static ssize_t vroce_hca_plug_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	bool plug = file->private_data == &vroce_hca_plugged;
	unsigned int id;
	int err;

	err = kstrtouint_from_user(ubuf, len, 10, &id);
	if (err)
		return err;
	err = plug ? vroce_hca_plug_one(id) : vroce_hca_unplug_one(id);
	return err ?: len;
}

static const struct file_operations vroce_hca_plug_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vroce_hca_plug_write,
};

/**
 * vroce_hca_plug() - plug the emulated HCAs in, as platform devices
 *	"vroce.0", "vroce.1", ... (num_hcas of them)
 *
 * Creates vroce_hca/ in debugfs, with new_device and del_device, through
 * which HCAs are plugged in and out at run time.
 *
 * Context: module init, after the driver is registered.
 * Return: 0, -EINVAL for more than 8 HCAs, or the error of adding one (the
 * ones added before are removed).
 */
int vroce_hca_plug(void)
{
	unsigned int i;
	int err;

	if (num_hcas > VROCE_HCA_MAX_PLUGGED)
		return -EINVAL;
	vroce_hca_unplug_wq = alloc_ordered_workqueue("vroce_hca_unplug", 0);
	if (!vroce_hca_unplug_wq)
		return -ENOMEM;
	err = register_netdevice_notifier(&vroce_hca_link_nb);
	if (err)
		goto err_destroy_wq;
	err = bus_register_notifier(&platform_bus_type, &vroce_hca_bus_nb);
	if (err)
		goto err_unregister_netdev_nb;
	vroce_hca_debugfs_root = debugfs_create_dir("vroce_hca", NULL);
	for (i = 0; i < num_hcas; i++) {
		err = vroce_hca_plug_one(i);
		if (err) {
			vroce_hca_unplug();
			return err;
		}
	}
	/* &vroce_hca_plugged tells new_device from del_device. */
	debugfs_create_file("new_device", 0200, vroce_hca_debugfs_root,
			    &vroce_hca_plugged, &vroce_hca_plug_fops);
	debugfs_create_file("del_device", 0200, vroce_hca_debugfs_root,
			    NULL, &vroce_hca_plug_fops);
	return 0;

err_unregister_netdev_nb:
	unregister_netdevice_notifier(&vroce_hca_link_nb);
err_destroy_wq:
	destroy_workqueue(vroce_hca_unplug_wq);
	vroce_hca_unplug_wq = NULL;
	return err;
}

/**
 * vroce_hca_unplug() - unplug every HCA plugged in, at load time or since
 *
 * new_device and del_device go first: no write plugs one in meanwhile.
 *
 * Context: module exit (or a failed init), before the driver is
 * unregistered.
 */
void vroce_hca_unplug(void)
{
	unsigned int i;

	debugfs_lookup_and_remove("new_device", vroce_hca_debugfs_root);
	debugfs_lookup_and_remove("del_device", vroce_hca_debugfs_root);
	for (i = 0; i < VROCE_HCA_MAX_PLUGGED; i++)
		vroce_hca_unplug_one(i);
	vroce_hca_unplug_links();
	debugfs_remove_recursive(vroce_hca_debugfs_root);
	vroce_hca_debugfs_root = NULL;
}
