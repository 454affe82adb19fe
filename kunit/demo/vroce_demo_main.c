// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_demo: a small kernel RDMA consumer for demos and tests, not for a
 * deployment build. It sees vroce devices only through the RDMA core's
 * kernel API, as an ib_client, like any in-kernel RDMA user.
 *
 * For each device the vroce driver registers it adds vroce_demo/<ibdev>/
 * to debugfs:
 *
 * kmr: write "create" to make a kernel PD (and with it the PD's DMA MR), a
 * 4-page kernel buffer filled with a known pattern, and a fast-register MR
 * mapped over that buffer; "register" to register that MR by a REG_MR
 * work request (local write, remote read); read it for their keys and
 * addresses; write "destroy" to free them. The bytes can then be read
 * back through the HCA with its own debugfs mr_read file.
 *
 * loopback: write a message length (1 to 1 MiB) to have two RC QPs of the
 * device move it by SEND, RDMA WRITE and RDMA READ through a fast-register
 * MR (vroce_lb_run()); read the report of the last run.
 *
 * It also exports the loopback fixture (vroce_lb.h) to the KUnit suites.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "vroce_lb.h"
#include "../../c/compat/vroce_compat.h"

/* The driver whose devices are served: the parent device's driver. */
#define VROCE_DEMO_DRIVER	"vroce"

#define VROCE_KMR_PAGES	4
#define VROCE_KMR_LEN	(VROCE_KMR_PAGES * SZ_4K)
#define VROCE_LB_REPORT	1024

/**
 * struct vroce_kmr - the kernel MRs behind the kmr file
 * @pd: kernel PD; its local_dma_lkey is the PD's DMA MR
 * @frmr: fast-register MR mapped over @buf
 * @buf: the buffer, VROCE_KMR_LEN bytes, page aligned
 * @dma: its DMA address for the HCA
 * @registered: a REG_MR work request for @frmr completed successfully
 */
struct vroce_kmr {
	struct ib_pd *pd;
	struct ib_mr *frmr;
	void *buf;
	u64 dma;
	bool registered;
};

/**
 * struct vroce_demo - what the demo keeps for one device
 * @ibdev: the device
 * @debugfs: its directory, vroce_demo/<ibdev name>
 * @lock: protects @kmr and @lb_report
 * @kmr: kernel MRs made through the kmr file, or NULL
 * @lb_report: what the last loopback run reported, or NULL
 */
struct vroce_demo {
	struct ib_device *ibdev;
	struct dentry *debugfs;
	struct mutex lock;	/* protects kmr and lb_report */
	struct vroce_kmr *kmr;
	char *lb_report;
};

static struct dentry *vroce_demo_root;

static void vroce_kmr_destroy(struct vroce_demo *demo)
{
	struct vroce_kmr *k = demo->kmr;

	if (!k)
		return;
	ib_dereg_mr(k->frmr);
	ib_dma_unmap_single(demo->ibdev, k->dma, VROCE_KMR_LEN,
			    DMA_BIDIRECTIONAL);
	free_pages((unsigned long)k->buf, get_order(VROCE_KMR_LEN));
	ib_dealloc_pd(k->pd);
	kfree(k);
	demo->kmr = NULL;
}

static int vroce_kmr_create(struct vroce_demo *demo)
{
	struct ib_device *ibdev = demo->ibdev;
	struct scatterlist sg;
	struct vroce_kmr *k;
	int i, n, err;

	if (demo->kmr)
		return -EEXIST;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;

	k->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(k->pd)) {
		err = PTR_ERR(k->pd);
		goto err_free_k;
	}
	k->buf = (void *)__get_free_pages(GFP_KERNEL, get_order(VROCE_KMR_LEN));
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

	demo->kmr = k;
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

/*
 * "register": what a ULP does before it hands out a fast-register MR's
 * key. A REG_MR work request goes to an RC QP of the MR's PD connected to
 * itself, and its completion is polled: from then on the HCA translates
 * through the MR (local write, remote read). The QP and CQ are gone again
 * when this returns. -EALREADY once registered; after -ETIMEDOUT whether
 * the HCA carried the request out is unknown: destroy and create again.
 */
static int vroce_kmr_register(struct vroce_demo *demo)
{
	struct ib_device *ibdev = demo->ibdev;
	struct vroce_kmr *k = demo->kmr;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ,
	};
	unsigned long deadline;
	struct net_device *netdev;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_wc wc;
	int n, err;

	if (!k)
		return -ENOENT;
	/* A second REG_MR of a valid MR under the same key would fail. */
	if (k->registered)
		return -EALREADY;
	cq = ib_alloc_cq(ibdev, NULL, 2, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(k->pd, &init);
	if (IS_ERR(qp)) {
		err = PTR_ERR(qp);
		goto out_free_cq;
	}
	netdev = vroce_ib_device_get_netdev(ibdev, 1);
	err = -ENODEV;
	if (!netdev)
		goto out_destroy_qp;
	err = vroce_lb_connect(qp, qp->qp_num, 0, netdev->dev_addr, 0, 0);
	dev_put(netdev);
	if (err)
		goto out_destroy_qp;

	wr.mr = k->frmr;
	wr.key = k->frmr->rkey;
	err = ib_post_send(qp, &wr.wr, NULL);
	if (err)
		goto out_destroy_qp;
	deadline = jiffies + HZ;
	while (!(n = ib_poll_cq(cq, 1, &wc)) && time_before(jiffies, deadline))
		usleep_range(100, 200);
	if (n != 1)
		err = n < 0 ? n : -ETIMEDOUT;
	else if (wc.status != IB_WC_SUCCESS)
		err = -EIO;
	else
		k->registered = true;
out_destroy_qp:
	ib_destroy_qp(qp);
out_free_cq:
	ib_free_cq(cq);
	return err;
}

/* What the RDMA core's API tells of them. */
static int vroce_kmr_show(struct seq_file *m, void *v)
{
	struct vroce_demo *demo = m->private;
	struct vroce_kmr *k;

	mutex_lock(&demo->lock);
	k = demo->kmr;
	if (k)
		seq_printf(m, "dma_lkey %#x buf_dma %#llx len %u frmr_key %#x frmr_iova %#llx frmr_len %llu registered %d\n",
			   k->pd->local_dma_lkey, k->dma, VROCE_KMR_LEN,
			   k->frmr->lkey, k->frmr->iova, k->frmr->length,
			   k->registered);
	else
		seq_puts(m, "none\n");
	mutex_unlock(&demo->lock);
	return 0;
}

static int vroce_kmr_open(struct inode *inode, struct file *file)
{
	return single_open(file, vroce_kmr_show, inode->i_private);
}

static ssize_t vroce_kmr_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct vroce_demo *demo = ((struct seq_file *)file->private_data)->private;
	char *cmd;
	int err;

	if (count > 16)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);

	mutex_lock(&demo->lock);
	if (sysfs_streq(cmd, "create")) {
		err = vroce_kmr_create(demo);
	} else if (sysfs_streq(cmd, "register")) {
		err = vroce_kmr_register(demo);
	} else if (sysfs_streq(cmd, "destroy")) {
		vroce_kmr_destroy(demo);
		err = 0;
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&demo->lock);
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

/* "loopback": write a message length, read what vroce_lb_run() reported. */
static ssize_t vroce_lb_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct vroce_demo *demo = file->private_data;
	char *report;
	u32 len;
	int err;

	err = kstrtou32_from_user(ubuf, count, 0, &len);
	if (err)
		return err;
	report = kzalloc(VROCE_LB_REPORT, GFP_KERNEL);
	if (!report)
		return -ENOMEM;
	err = vroce_lb_run(demo->ibdev, len, report, VROCE_LB_REPORT);
	mutex_lock(&demo->lock);
	kfree(demo->lb_report);
	demo->lb_report = report;
	mutex_unlock(&demo->lock);
	return err ?: count;
}

static ssize_t vroce_lb_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct vroce_demo *demo = file->private_data;
	ssize_t ret = 0;

	mutex_lock(&demo->lock);
	if (demo->lb_report)
		ret = simple_read_from_buffer(ubuf, count, ppos,
					      demo->lb_report,
					      strlen(demo->lb_report));
	mutex_unlock(&demo->lock);
	return ret;
}

static const struct file_operations vroce_lb_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vroce_lb_read,
	.write = vroce_lb_write,
	.llseek = default_llseek,
};

static struct ib_client vroce_demo_client;

/* A vroce device: its parent is the HCA the vroce driver is bound to. */
static bool vroce_demo_serves(struct ib_device *ibdev)
{
	struct device *parent = ibdev->dev.parent;

	return parent && !strcmp(dev_driver_string(parent), VROCE_DEMO_DRIVER);
}

static int vroce_demo_add(struct ib_device *ibdev)
{
	struct vroce_demo *demo;

	/* Without debugfs there is nothing to offer. */
	if (IS_ERR_OR_NULL(vroce_demo_root) || !vroce_demo_serves(ibdev))
		return -EOPNOTSUPP;
	demo = kzalloc(sizeof(*demo), GFP_KERNEL);
	if (!demo)
		return -ENOMEM;
	demo->ibdev = ibdev;
	mutex_init(&demo->lock);
	demo->debugfs = debugfs_create_dir(dev_name(&ibdev->dev),
					   vroce_demo_root);
	debugfs_create_file("kmr", 0600, demo->debugfs, demo, &vroce_kmr_fops);
	debugfs_create_file("loopback", 0600, demo->debugfs, demo,
			    &vroce_lb_fops);
	ib_set_client_data(ibdev, &vroce_demo_client, demo);
	return 0;
}

/* Before the device goes: what the files made goes first. */
static void vroce_demo_remove(struct ib_device *ibdev, void *client_data)
{
	struct vroce_demo *demo = client_data;

	/* Waits for file operations in progress; none starts after it. */
	debugfs_remove_recursive(demo->debugfs);
	mutex_lock(&demo->lock);
	vroce_kmr_destroy(demo);
	kfree(demo->lb_report);
	demo->lb_report = NULL;
	mutex_unlock(&demo->lock);
	mutex_destroy(&demo->lock);
	kfree(demo);
}

/* The directory follows the device's name ('rdma dev set ... name'). */
static void vroce_demo_rename(struct ib_device *ibdev, void *client_data)
{
	struct vroce_demo *demo = client_data;
	char name[IB_DEVICE_NAME_MAX];

	/* A copy: without debugfs the stub takes a char *. */
	strscpy(name, dev_name(&ibdev->dev), sizeof(name));
	debugfs_rename(vroce_demo_root, demo->debugfs, vroce_demo_root, name);
}

static struct ib_client vroce_demo_client = {
	.name = "vroce_demo",
	.add = vroce_demo_add,
	.remove = vroce_demo_remove,
	.rename = vroce_demo_rename,
};

static int __init vroce_demo_init(void)
{
	int err;

	vroce_demo_root = debugfs_create_dir("vroce_demo", NULL);
	err = ib_register_client(&vroce_demo_client);
	if (err)
		debugfs_remove_recursive(vroce_demo_root);
	return err;
}

static void __exit vroce_demo_exit(void)
{
	ib_unregister_client(&vroce_demo_client);
	debugfs_remove_recursive(vroce_demo_root);
}

module_init(vroce_demo_init);
module_exit(vroce_demo_exit);

MODULE_DESCRIPTION("vroce demo and test ULP: kernel MRs and QP loopback through debugfs");
MODULE_LICENSE("GPL");
