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
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "vroce_hca_priv.h"

static struct dentry *vroce_emu_debugfs_root;

/* ---- register decode ---- */

/* The firmware's clock: one beat per tick. */
static u32 vroce_emu_beat_now(void)
{
	return jiffies_to_msecs(jiffies) / VROCE_HEALTH_TICK_MS;
}

/* HEALTH: the heartbeat, standing still while hung; under reg_lock. */
static u32 vroce_emu_health(struct vroce_emu *emu)
{
	u32 val;

	lockdep_assert_held(&emu->reg_lock);
	val = (emu->hang || emu->fatal ? emu->beat : vroce_emu_beat_now()) &
	      VROCE_HEALTH_BEAT;
	return emu->fatal ? val | VROCE_HEALTH_FATAL : val;
}

/**
 * vroce_emu_set_health() - hang the HCA's firmware, or fail it
 * @emu: the HCA
 * @hang: from now on nothing is carried out (commands, QPs' engines,
 *	timers) and the heartbeat stands still
 * @fatal: as @hang, and HEALTH reports an internal error
 *
 * What was in flight finishes; a reset (CTRL RESET) clears both, as a
 * function-level reset recovers a hung device.
 *
 * Context: any context.
 */
void vroce_emu_set_health(struct vroce_emu *emu, bool hang, bool fatal)
{
	unsigned long flags;

	spin_lock_irqsave(&emu->reg_lock, flags);
	if (!emu->hang && !emu->fatal)
		emu->beat = vroce_emu_beat_now();
	WRITE_ONCE(emu->hang, hang);
	WRITE_ONCE(emu->fatal, fatal);
	spin_unlock_irqrestore(&emu->reg_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_set_health);

static u32 vroce_emu_read32(void *ctx, u32 off)
{
	struct vroce_emu *emu = ctx;
	unsigned long flags;
	u32 val = 0;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return ~0U;	/* what a bus returns for a bad read */

	/* Doorbells are write-only: never stored, they read as 0. */
	spin_lock_irqsave(&emu->reg_lock, flags);
	val = vroce_emu_reg(emu, off);
	if (off == VROCE_REG_HEALTH)
		val = vroce_emu_health(emu);
	if (off == VROCE_REG_INTR_CAUSE)
		emu->regs[off / sizeof(u32)] = 0;
	spin_unlock_irqrestore(&emu->reg_lock, flags);
	return val;
}

static void vroce_emu_reset(struct vroce_emu *emu)
{
	unsigned long flags;

	down_write(emu->lock);
	vroce_emu_mpt_reset(emu);
	vroce_emu_engine_reset(emu);
	up_write(emu->lock);

	spin_lock_irqsave(&emu->reg_lock, flags);
	memset(emu->regs, 0, sizeof(emu->regs));
	emu->regs[VROCE_REG_VERSION / sizeof(u32)] = VROCE_HW_VERSION;
	WRITE_ONCE(emu->hang, 0);
	WRITE_ONCE(emu->fatal, 0);
	spin_unlock_irqrestore(&emu->reg_lock, flags);
}

static void vroce_emu_write32(void *ctx, u32 off, u32 val)
{
	struct vroce_emu *emu = ctx;
	unsigned long flags;
	bool kick = false;

	if (off >= VROCE_BAR_SIZE || off % sizeof(u32))
		return;
	if (off == VROCE_REG_VERSION || off == VROCE_REG_STATUS ||
	    off == VROCE_REG_CMDQ_CI || off == VROCE_REG_INTR_CAUSE ||
	    off == VROCE_REG_HEALTH)
		return;		/* read-only */
	if (vroce_emu_doorbell(emu, off, val))
		return;
	/* The doorbell record stays where it was while the ring runs. */
	if ((off == VROCE_REG_CMDQ_DBR || off == VROCE_REG_CMDQ_DBR + 4) &&
	    (READ_ONCE(emu->regs[VROCE_REG_CTRL / sizeof(u32)]) &
	     VROCE_CTRL_ENABLE))
		return;

	if (off == VROCE_REG_CTRL && (val & VROCE_CTRL_RESET)) {
		/* Finish what is in flight, then forget everything. */
		spin_lock_irqsave(&emu->reg_lock, flags);
		emu->regs[VROCE_REG_CTRL / sizeof(u32)] = 0;
		spin_unlock_irqrestore(&emu->reg_lock, flags);
		flush_work(&emu->cmd_work);
		vroce_emu_engine_quiesce(emu);
		vroce_emu_reset(emu);
		return;
	}

	spin_lock_irqsave(&emu->reg_lock, flags);
	/* Enabling the event queue starts it afresh, at entry 0. */
	if (off == VROCE_REG_EQ_CFG && (val & VROCE_EQ_CFG_ENABLE) &&
	    !(vroce_emu_reg(emu, off) & VROCE_EQ_CFG_ENABLE))
		emu->eq_pi = 0;
	emu->regs[off / sizeof(u32)] = val;
	if (off == VROCE_REG_CTRL) {
		if (val & VROCE_CTRL_ENABLE)
			emu->regs[VROCE_REG_STATUS / sizeof(u32)] |=
				VROCE_STATUS_READY;
		else
			emu->regs[VROCE_REG_STATUS / sizeof(u32)] &=
				~VROCE_STATUS_READY;
	}
	kick = off == VROCE_REG_CMDQ_PI &&
	       (vroce_emu_reg(emu, VROCE_REG_CTRL) & VROCE_CTRL_ENABLE);
	spin_unlock_irqrestore(&emu->reg_lock, flags);

	if (kick)
		queue_work(emu->wq, &emu->cmd_work);
}

/* ---- interrupt vectors ---- */

/* Deliver what vroce_emu_raise_irq() raised: the handler, if connected. */
static void vroce_emu_irq_work(struct work_struct *work)
{
	struct vroce_emu_irq *irq = container_of(work, struct vroce_emu_irq,
						 work);

	mutex_lock(&irq->lock);
	if (irq->handler)
		irq->handler(irq->data);
	mutex_unlock(&irq->lock);
}

static int vroce_emu_request_irq(void *ctx, unsigned int vec,
				 void (*handler)(void *data), void *data)
{
	struct vroce_emu *emu = ctx;
	struct vroce_emu_irq *irq;
	int err = 0;

	if (vec >= VROCE_NUM_IRQS)
		return -EINVAL;
	irq = &emu->irq[vec];
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

static void vroce_emu_free_irq(void *ctx, unsigned int vec)
{
	struct vroce_emu *emu = ctx;
	struct vroce_emu_irq *irq;

	if (vec >= VROCE_NUM_IRQS)
		return;
	irq = &emu->irq[vec];
	/* The handler runs under the lock, so none is running after this. */
	mutex_lock(&irq->lock);
	irq->handler = NULL;
	irq->data = NULL;
	mutex_unlock(&irq->lock);
}

static const struct vroce_bus_ops vroce_emu_bus_ops = {
	.read32 = vroce_emu_read32,
	.write32 = vroce_emu_write32,
	.request_irq = vroce_emu_request_irq,
	.free_irq = vroce_emu_free_irq,
};

/* ---- debugfs ---- */

static int vroce_emu_hang_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vroce_emu *)data)->hang);
	return 0;
}

static int vroce_emu_hang_set(void *data, u64 val)
{
	struct vroce_emu *emu = data;

	vroce_emu_set_health(emu, val, READ_ONCE(emu->fatal));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vroce_emu_hang_fops, vroce_emu_hang_get,
			 vroce_emu_hang_set, "%llu\n");

static int vroce_emu_fatal_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vroce_emu *)data)->fatal);
	return 0;
}

static int vroce_emu_fatal_set(void *data, u64 val)
{
	struct vroce_emu *emu = data;

	vroce_emu_set_health(emu, READ_ONCE(emu->hang), val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vroce_emu_fatal_fops, vroce_emu_fatal_get,
			 vroce_emu_fatal_set, "%llu\n");

static void vroce_emu_debugfs_init(struct vroce_emu *emu)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(vroce_emu_debugfs_root))
		return;
	d = debugfs_create_dir(dev_name(vroce_emu_dev(emu)),
			       vroce_emu_debugfs_root);
	emu->debugfs = d;
	debugfs_create_u32("fail_cmds", 0600, d, &emu->fail_cmds);
	debugfs_create_u32("fail_status", 0600, d, &emu->fail_status);
	debugfs_create_u32("drop_cmds", 0600, d, &emu->drop_cmds);
	debugfs_create_u32("delay_ms", 0600, d, &emu->delay_ms);
	debugfs_create_u32("fault_opcode", 0600, d, &emu->fault_opcode);
	debugfs_create_u32("drop_events", 0600, d, &emu->drop_events);
	debugfs_create_u32("event_delay_ms", 0600, d, &emu->event_delay_ms);
	debugfs_create_u32("ud_dropped", 0400, d, &emu->ud_dropped);
	debugfs_create_u32("eq_lost", 0400, d, &emu->eq_lost);
	debugfs_create_file_unsafe("hang", 0600, d, emu, &vroce_emu_hang_fops);
	debugfs_create_file_unsafe("fatal", 0600, d, emu, &vroce_emu_fatal_fops);
	vroce_emu_mpt_debugfs_init(emu, d);
}

/* ---- the device ---- */

/**
 * vroce_emu_add() - plug in an emulated HCA
 * @id: platform device id (PLATFORM_DEVID_AUTO for any)
 *
 * Adds platform device "vroce.<id>"; the vroce driver binds to it when
 * registered.
 *
 * Context: process context, may sleep.
 * Return: the HCA, or an ERR_PTR().
 */
struct vroce_emu *vroce_emu_add(int id)
{
	struct vroce_hca_res res = { .bus = &vroce_emu_bus_ops };
	struct vroce_emu *emu;
	int err = -ENOMEM;
	unsigned int i;

	emu = vroce_emu_inject() ? NULL : kzalloc(sizeof(*emu), GFP_KERNEL);
	if (!emu)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&emu->reg_lock);
	emu->lock = vroce_emu_wire_lock();
	INIT_LIST_HEAD(&emu->wire_node);
	/* Locally administered, unicast, as netdevsim's and rxe's peers. */
	eth_random_addr(emu->mac);
	emu->caps = VROCE_CAP_MR_ENABLE;
	vroce_emu_cmd_init(emu);
	for (i = 0; i < VROCE_NUM_IRQS; i++) {
		emu->irq[i].emu = emu;
		mutex_init(&emu->irq[i].lock);
		INIT_WORK(&emu->irq[i].work, vroce_emu_irq_work);
	}

	err = vroce_emu_mpt_alloc(emu);
	if (err)
		goto err_free_emu;
	err = vroce_emu_engine_alloc(emu);
	if (err)
		goto err_free_mpt;
	err = -ENOMEM;
	emu->wq = vroce_emu_inject() ? NULL :
		  alloc_ordered_workqueue("vroce_emu", 0);
	if (!emu->wq)
		goto err_free_engine;
	emu->irq_wq = vroce_emu_inject() ? NULL :
		      alloc_workqueue("vroce_irq", 0, 0);
	if (!emu->irq_wq)
		goto err_destroy_wq;
	vroce_emu_reset(emu);

	emu->pdev = vroce_emu_inject() ? NULL :
		    platform_device_alloc("vroce", id);
	if (!emu->pdev)
		goto err_destroy_irq_wq;
	res.ctx = emu;
	err = vroce_emu_inject() ? -ENOMEM :
	      platform_device_add_data(emu->pdev, &res, sizeof(res));
	if (err)
		goto err_put_pdev;
	err = vroce_emu_inject() ? -ENOMEM : platform_device_add(emu->pdev);
	if (err)
		goto err_put_pdev;

	vroce_emu_debugfs_init(emu);
	vroce_emu_wire_join(emu);
	return emu;

err_put_pdev:
	platform_device_put(emu->pdev);
err_destroy_irq_wq:
	destroy_workqueue(emu->irq_wq);
err_destroy_wq:
	destroy_workqueue(emu->wq);
err_free_engine:
	vroce_emu_engine_free(emu);
err_free_mpt:
	vroce_emu_mpt_free(emu);
err_free_emu:
	kfree(emu);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_add);

/**
 * vroce_emu_del() - unplug an emulated HCA
 * @emu: the HCA from vroce_emu_add()
 *
 * The driver is unbound first (its reset quiesces the data path), then
 * the engine is stopped for good and the device's memory goes.
 *
 * Context: process context, may sleep.
 */
void vroce_emu_del(struct vroce_emu *emu)
{
	debugfs_remove_recursive(emu->debugfs);
	platform_device_unregister(emu->pdev);
	/* Off the wire: no other HCA's engine delivers here from now on. */
	vroce_emu_wire_leave(emu);
	/* A QP a test left held must not keep the engine from stopping. */
	vroce_emu_hold_qp(emu, 0);
	/* No RNR retry or delayed event may fire into a freed HCA. */
	vroce_emu_engine_stop(emu);
	destroy_workqueue(emu->wq);
	destroy_workqueue(emu->irq_wq);
	vroce_emu_engine_free(emu);
	vroce_emu_mpt_free(emu);
	kfree(emu);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_del);

/**
 * vroce_emu_pdev() - the platform device of an emulated HCA
 * @emu: the HCA
 *
 * Return: its platform device.
 */
struct platform_device *vroce_emu_pdev(struct vroce_emu *emu)
{
	return emu->pdev;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_emu_pdev);

static unsigned int num_hcas = 1;
module_param(num_hcas, uint, 0444);
MODULE_PARM_DESC(num_hcas, "emulated HCAs to plug in at load time (0-8)");

#define VROCE_EMU_MAX_PLUGGED	8

/*
 * HCAs plugged in by id ("vroce.<id>"), under vroce_emu_plug_lock;
 * VROCE_EMU_UNPLUGGING while one is being unplugged, so that its id is not
 * given again before the old device is gone.
 */
static DEFINE_MUTEX(vroce_emu_plug_lock);
static struct vroce_emu *vroce_emu_plugged[VROCE_EMU_MAX_PLUGGED];
#define VROCE_EMU_UNPLUGGING	ERR_PTR(-EBUSY)

/*
 * Plug HCA @id in: -EINVAL past the ids, -EEXIST when it is in, -EBUSY
 * while it is being unplugged.
 */
static int vroce_emu_plug_one(unsigned int id)
{
	struct vroce_emu *emu;
	int err = 0;

	if (id >= VROCE_EMU_MAX_PLUGGED)
		return -EINVAL;
	mutex_lock(&vroce_emu_plug_lock);
	if (vroce_emu_plugged[id]) {
		err = vroce_emu_plugged[id] == VROCE_EMU_UNPLUGGING ? -EBUSY :
		      -EEXIST;
		goto out;
	}
	emu = vroce_emu_add(id);
	if (IS_ERR(emu))
		err = PTR_ERR(emu);
	else
		vroce_emu_plugged[id] = emu;
out:
	mutex_unlock(&vroce_emu_plug_lock);
	return err;
}

/*
 * Unplug HCA @id: -EINVAL past the ids, -ENOENT when it is not in, -EBUSY
 * while another write unplugs it.
 */
static int vroce_emu_unplug_one(unsigned int id)
{
	struct vroce_emu *emu;

	if (id >= VROCE_EMU_MAX_PLUGGED)
		return -EINVAL;
	mutex_lock(&vroce_emu_plug_lock);
	emu = vroce_emu_plugged[id];
	if (emu && emu != VROCE_EMU_UNPLUGGING)
		vroce_emu_plugged[id] = VROCE_EMU_UNPLUGGING;
	mutex_unlock(&vroce_emu_plug_lock);
	if (!emu)
		return -ENOENT;
	if (emu == VROCE_EMU_UNPLUGGING)
		return -EBUSY;
	/* Unbinding may wait for RDMA users: not under the lock. */
	vroce_emu_del(emu);
	mutex_lock(&vroce_emu_plug_lock);
	vroce_emu_plugged[id] = NULL;
	mutex_unlock(&vroce_emu_plug_lock);
	return 0;
}

/* new_device and del_device: one id, in decimal, per write. */
static ssize_t vroce_emu_plug_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	bool plug = file->private_data == &vroce_emu_plugged;
	unsigned int id;
	int err;

	err = kstrtouint_from_user(ubuf, len, 10, &id);
	if (err)
		return err;
	err = plug ? vroce_emu_plug_one(id) : vroce_emu_unplug_one(id);
	return err ?: len;
}

static const struct file_operations vroce_emu_plug_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vroce_emu_plug_write,
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

	if (num_hcas > VROCE_EMU_MAX_PLUGGED)
		return -EINVAL;
	vroce_emu_debugfs_root = debugfs_create_dir("vroce_hca", NULL);
	for (i = 0; i < num_hcas; i++) {
		err = vroce_emu_plug_one(i);
		if (err) {
			vroce_hca_unplug();
			return err;
		}
	}
	/* &vroce_emu_plugged tells new_device from del_device. */
	debugfs_create_file("new_device", 0200, vroce_emu_debugfs_root,
			    &vroce_emu_plugged, &vroce_emu_plug_fops);
	debugfs_create_file("del_device", 0200, vroce_emu_debugfs_root,
			    NULL, &vroce_emu_plug_fops);
	return 0;
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

	debugfs_lookup_and_remove("new_device", vroce_emu_debugfs_root);
	debugfs_lookup_and_remove("del_device", vroce_emu_debugfs_root);
	for (i = 0; i < VROCE_EMU_MAX_PLUGGED; i++)
		vroce_emu_unplug_one(i);
	debugfs_remove_recursive(vroce_emu_debugfs_root);
	vroce_emu_debugfs_root = NULL;
}
