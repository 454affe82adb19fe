// SPDX-License-Identifier: GPL-2.0
/*
 * vroce debugfs: kernel MRs on demand, for demos and user-space tests.
 *
 * vroce/<ibdev>/ is the driver's directory; fail_nth arms the driver's
 * fault injection (vroce_inject()) from user space. The emulated HCA has
 * its own directory, vroce_hca/<platform device>/ (fault knobs, mr_read).
 *
 * vroce/<ibdev>/kmr: write "create" to make a kernel PD (and with it the
 * PD's DMA MR), a 4-page kernel buffer filled with a known pattern, and a
 * fast-register MR mapped over that buffer; read it for their keys and
 * addresses; write "destroy" to free them. Everything goes through the
 * RDMA core's kernel API, like any in-kernel RDMA user. The bytes can then
 * be read back through the HCA with its own debugfs mr_read file.
 */

#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vroce.h"

#define VROCE_KMR_PAGES	4
#define VROCE_KMR_LEN	(VROCE_KMR_PAGES * SZ_4K)

/**
 * struct vroce_kmr - the kernel MRs behind the kmr file
 * @pd: kernel PD; its local_dma_lkey is the PD's DMA MR
 * @frmr: fast-register MR mapped over @buf
 * @buf: the buffer, VROCE_KMR_LEN bytes, page aligned
 * @dma: its DMA address for the HCA
 */
struct vroce_kmr {
	struct ib_pd *pd;
	struct ib_mr *frmr;
	void *buf;
	u64 dma;
};

static void vroce_kmr_destroy(struct vroce_dev *vdev)
{
	struct vroce_kmr *k = vdev->kmr;

	if (!k)
		return;
	ib_dereg_mr(k->frmr);
	ib_dma_unmap_single(&vdev->ibdev, k->dma, VROCE_KMR_LEN,
			    DMA_BIDIRECTIONAL);
	free_pages((unsigned long)k->buf, get_order(VROCE_KMR_LEN));
	ib_dealloc_pd(k->pd);
	kfree(k);
	vdev->kmr = NULL;
}

static int vroce_kmr_create(struct vroce_dev *vdev)
{
	struct ib_device *ibdev = &vdev->ibdev;
	struct scatterlist sg;
	struct vroce_kmr *k;
	int i, n, err;

	if (vdev->kmr)
		return -EEXIST;
	k = vroce_inject(vdev) ? NULL : kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;

	k->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(k->pd)) {
		err = PTR_ERR(k->pd);
		goto err_free_k;
	}
	k->buf = vroce_inject(vdev) ? NULL :
		 (void *)__get_free_pages(GFP_KERNEL, get_order(VROCE_KMR_LEN));
	err = -ENOMEM;
	if (!k->buf)
		goto err_dealloc_pd;
	/* 64-byte text lines, so that the bytes read back are readable. */
	for (i = 0; i < VROCE_KMR_LEN; i += 64) {
		char line[65];

		snprintf(line, sizeof(line), "vroce kernel buffer, byte %5d%32s\n",
			 i, "");
		memcpy(k->buf + i, line, 64);
	}
	k->dma = ib_dma_map_single(ibdev, k->buf, VROCE_KMR_LEN,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, k->dma))
		goto err_free_buf;

	k->frmr = ib_alloc_mr(k->pd, IB_MR_TYPE_MEM_REG, VROCE_KMR_PAGES);
	if (IS_ERR(k->frmr)) {
		err = PTR_ERR(k->frmr);
		goto err_unmap;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = k->dma;
	sg_dma_len(&sg) = VROCE_KMR_LEN;
	n = ib_map_mr_sg(k->frmr, &sg, 1, NULL, SZ_4K);
	if (n != 1) {
		err = n < 0 ? n : -EINVAL;
		goto err_dereg;
	}

	vdev->kmr = k;
	return 0;

err_dereg:
	ib_dereg_mr(k->frmr);
err_unmap:
	ib_dma_unmap_single(ibdev, k->dma, VROCE_KMR_LEN, DMA_BIDIRECTIONAL);
err_free_buf:
	free_pages((unsigned long)k->buf, get_order(VROCE_KMR_LEN));
err_dealloc_pd:
	ib_dealloc_pd(k->pd);
err_free_k:
	kfree(k);
	return err;
}

static int vroce_kmr_show(struct seq_file *m, void *v)
{
	struct vroce_dev *vdev = m->private;
	struct vroce_kmr *k;

	mutex_lock(&vdev->kmr_lock);
	k = vdev->kmr;
	if (k)
		seq_printf(m, "pdn %u dma_lkey %#x buf_dma %#llx len %u frmr_key %#x frmr_iova %#llx frmr_len %llu frmr_pbl %#llx frmr_npages %u\n",
			   to_vroce_pd(k->pd)->pdn, k->pd->local_dma_lkey,
			   k->dma, VROCE_KMR_LEN, k->frmr->lkey,
			   k->frmr->iova, k->frmr->length,
			   (u64)to_vroce_mr(k->frmr)->pbl_dma,
			   to_vroce_mr(k->frmr)->npages);
	else
		seq_puts(m, "none\n");
	mutex_unlock(&vdev->kmr_lock);
	return 0;
}

static int vroce_kmr_open(struct inode *inode, struct file *file)
{
	return single_open(file, vroce_kmr_show, inode->i_private);
}

static ssize_t vroce_kmr_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct vroce_dev *vdev = ((struct seq_file *)file->private_data)->private;
	char *cmd;
	int err;

	if (count > 16)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);

	mutex_lock(&vdev->kmr_lock);
	if (sysfs_streq(cmd, "create")) {
		err = vroce_kmr_create(vdev);
	} else if (sysfs_streq(cmd, "destroy")) {
		vroce_kmr_destroy(vdev);
		err = 0;
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&vdev->kmr_lock);
	kfree(cmd);
	return err ?: count;
}

static const struct file_operations vroce_kmr_fops = {
	.owner = THIS_MODULE,
	.open = vroce_kmr_open,
	.read = seq_read,
	.write = vroce_kmr_write,
	.llseek = seq_lseek,
	.release = single_release,
};

#define VROCE_LB_REPORT	1024

/* "loopback": write a message length, read what vroce_lb_run() reported. */
static ssize_t vroce_lb_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct vroce_dev *vdev = file->private_data;
	char *report;
	u32 len;
	int err;

	err = kstrtou32_from_user(ubuf, count, 0, &len);
	if (err)
		return err;
	report = vroce_inject(vdev) ? NULL : kzalloc(VROCE_LB_REPORT, GFP_KERNEL);
	if (!report)
		return -ENOMEM;
	err = vroce_lb_run(vdev, len, report, VROCE_LB_REPORT);
	mutex_lock(&vdev->kmr_lock);
	kfree(vdev->lb_report);
	vdev->lb_report = report;
	mutex_unlock(&vdev->kmr_lock);
	return err ?: count;
}

static ssize_t vroce_lb_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct vroce_dev *vdev = file->private_data;
	ssize_t ret = 0;

	mutex_lock(&vdev->kmr_lock);
	if (vdev->lb_report)
		ret = simple_read_from_buffer(ubuf, count, ppos,
					      vdev->lb_report,
					      strlen(vdev->lb_report));
	mutex_unlock(&vdev->kmr_lock);
	return ret;
}

static const struct file_operations vroce_lb_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vroce_lb_read,
	.write = vroce_lb_write,
	.llseek = default_llseek,
};

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
	debugfs_create_file("kmr", 0600, vdev->debugfs, vdev, &vroce_kmr_fops);
	debugfs_create_file("loopback", 0600, vdev->debugfs, vdev,
			    &vroce_lb_fops);
	/* Fault injection for user-space tests: see vroce_inject(). */
	debugfs_create_atomic_t("fail_nth", 0600, vdev->debugfs,
				&vdev->mem.fail_nth);
}

/**
 * vroce_debugfs_exit() - remove the directory and what its files created
 * @vdev: the device, before it is unregistered
 *
 * Context: process context.
 */
void vroce_debugfs_exit(struct vroce_dev *vdev)
{
	/* No file operation runs once the directory is gone. */
	debugfs_remove_recursive(vdev->debugfs);
	vdev->debugfs = NULL;
	mutex_lock(&vdev->kmr_lock);
	vroce_kmr_destroy(vdev);
	kfree(vdev->lb_report);
	vdev->lb_report = NULL;
	mutex_unlock(&vdev->kmr_lock);
}
