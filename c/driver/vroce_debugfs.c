// SPDX-License-Identifier: GPL-2.0
/*
 * vroce debugfs: vroce/<ibdev>/ is the driver's directory; fail_nth arms
 * the driver's fault injection (vroce_inject()) from user space, cmdq
 * shows the command ring's counters and mr_cache the MR cache's. The
 * emulated HCA has its own directory, vroce_hca/<platform device>/ (fault
 * knobs, mr_read, reg_frmr), and the demo module (kunit/demo/) its own,
 * vroce_demo/<ibdev>/ (kmr, loopback).
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "vroce.h"

static struct dentry *vroce_debugfs_root;

/**
 * vroce_debugfs_register() - create the driver's debugfs root, vroce/
 *
 * Context: module init.
 */
void vroce_debugfs_register(void)
{
	vroce_debugfs_root = debugfs_create_dir(VROCE_DRV_NAME, NULL);
}

/**
 * vroce_debugfs_unregister() - remove the driver's debugfs root
 *
 * Context: module exit, after every device is gone.
 */
void vroce_debugfs_unregister(void)
{
	debugfs_remove_recursive(vroce_debugfs_root);
	vroce_debugfs_root = NULL;
}

/* Commands posted, doorbells rung, waits for a free slot. */
static int vroce_cmdq_show(struct seq_file *m, void *unused)
{
	struct vroce_dev *vdev = m->private;
	struct vroce_cmdq *q = &vdev->cmdq;
	u64 rung, waits;
	u32 posted;

	spin_lock(&q->lock);
	posted = q->pi;
	rung = q->doorbells;
	waits = q->full_waits;
	spin_unlock(&q->lock);
	seq_printf(m, "posted %u\ndoorbells %llu\nfull_waits %llu\n", posted,
		   rung, waits);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vroce_cmdq);

/**
 * vroce_debugfs_init() - add the device's debugfs directory
 * @vdev: a registered device
 *
 * Context: process context.
 */
void vroce_debugfs_init(struct vroce_dev *vdev)
{
	/* Without debugfs the root is an ERR_PTR: nothing to add. */
	if (IS_ERR_OR_NULL(vroce_debugfs_root))
		return;
	vdev->debugfs = debugfs_create_dir(dev_name(&vdev->ibdev.dev),
					   vroce_debugfs_root);
	/* Fault injection for user-space tests: see vroce_inject(). */
	debugfs_create_atomic_t("fail_nth", 0600, vdev->debugfs,
				&vdev->mem.fail_nth);
	debugfs_create_file("cmdq", 0400, vdev->debugfs, vdev,
			    &vroce_cmdq_fops);
	vroce_mr_cache_debugfs(vdev, vdev->debugfs);
}

/**
 * vroce_debugfs_exit() - remove the device's debugfs directory
 * @vdev: the device, before it is unregistered
 *
 * Context: process context.
 */
void vroce_debugfs_exit(struct vroce_dev *vdev)
{
	debugfs_remove_recursive(vdev->debugfs);
	vdev->debugfs = NULL;
}
