// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_demo: kernel loopback between two RC QPs of one device, as a kernel
 * ULP would set it up, through the RDMA core's kernel API only.
 * vroce_lb_connect() is the connection step (the KUnit suites and the
 * benchmark use it, on vroce and on rxe); vroce_lb_run() is what debugfs
 * "loopback" runs for 'make demo': SEND, RDMA WRITE and RDMA READ of a
 * pattern through a fast-register MR, compared byte for byte.
 */

#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "vroce_lb.h"
#include "../../c/compat/vroce_compat.h"

/**
 * vroce_lb_connect() - take an RC QP from RESET to RTS towards a peer
 * @qp: the QP, in RESET
 * @dest_qpn: the peer QP's number
 * @sgid_index: the port's GID to use as source and destination
 * @dmac: the destination MAC: the port's own for loopback
 * @rnr_retry: RNR retries, 7 for forever
 * @access: IB_ACCESS_* the peer may use on this QP
 *
 * Context: process context, may sleep.
 * Return: 0 or the error of the failing ib_modify_qp() or GID lookup.
 */
int vroce_lb_connect(struct ib_qp *qp, u32 dest_qpn, u8 sgid_index,
		     const u8 *dmac, u8 rnr_retry, int access)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};
	union ib_gid gid;
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	err = rdma_query_gid(qp->device, 1, sgid_index, &gid);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_4096;
	attr.dest_qp_num = dest_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 1;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, sgid_index, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, dmac);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = rnr_retry;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}
EXPORT_SYMBOL_GPL(vroce_lb_connect);

#define VROCE_LB_DEPTH	64	/* WQEs per queue */
#define VROCE_LB_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* Wait for @n completions, all successful, within a second. */
static int vroce_lb_wait(struct vroce_lb *lb, int n)
{
	unsigned long deadline = jiffies + HZ;
	struct ib_wc wc;
	int got;

	while (n) {
		got = ib_poll_cq(lb->cq, 1, &wc);
		if (got == 1) {
			if (wc.status != IB_WC_SUCCESS)
				return -EIO;
			n--;
			continue;
		}
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		schedule_timeout_uninterruptible(1);
	}
	return 0;
}

static int vroce_lb_create(struct vroce_lb *lb)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = VROCE_LB_DEPTH,
			 .max_recv_wr = VROCE_LB_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i, err;

	lb->pd = ib_alloc_pd(lb->ibdev, 0);
	if (IS_ERR(lb->pd))
		return PTR_ERR(lb->pd);
	/* Room for a completion of every send and receive in flight. */
	lb->cq = ib_alloc_cq(lb->ibdev, NULL, 4 * VROCE_LB_DEPTH, 0,
			     IB_POLL_DIRECT);
	if (IS_ERR(lb->cq))
		return PTR_ERR(lb->cq);
	init.send_cq = lb->cq;
	init.recv_cq = lb->cq;
	for (i = 0; i < 2; i++) {
		lb->qp[i] = ib_create_qp(lb->pd, &init);
		if (IS_ERR(lb->qp[i]))
			return PTR_ERR(lb->qp[i]);
		lb->buf[i] = kzalloc(lb->len, GFP_KERNEL);
		if (!lb->buf[i])
			return -ENOMEM;
		lb->dma[i] = ib_dma_map_single(lb->ibdev, lb->buf[i], lb->len,
					       DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(lb->ibdev, lb->dma[i]))
			return -ENOMEM;
		lb->mapped[i] = true;
	}
	for (i = 0; i < 2; i++) {
		err = vroce_lb_connect(lb->qp[i], lb->qp[!i]->qp_num,
				       lb->sgid_index, lb->dmac, 7,
				       VROCE_LB_ACCESS);
		if (err)
			return err;
	}
	return 0;
}

/**
 * vroce_lb_teardown() - free what vroce_lb_setup() made, even in part
 * @lb: the loopback pair
 *
 * Context: process context, may sleep.
 */
void vroce_lb_teardown(struct vroce_lb *lb)
{
	int i;

	if (!IS_ERR_OR_NULL(lb->mr))
		ib_dereg_mr(lb->mr);
	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(lb->qp[i]))
			ib_destroy_qp(lb->qp[i]);
		if (lb->mapped[i])
			ib_dma_unmap_single(lb->ibdev, lb->dma[i], lb->len,
					    DMA_BIDIRECTIONAL);
		kfree(lb->buf[i]);
	}
	if (!IS_ERR_OR_NULL(lb->cq))
		ib_free_cq(lb->cq);
	if (!IS_ERR_OR_NULL(lb->pd))
		ib_dealloc_pd(lb->pd);
}
EXPORT_SYMBOL_GPL(vroce_lb_teardown);

/* QP 1 registers its buffer as a fast-register MR with a REG_MR request. */
static int vroce_lb_reg_mr(struct vroce_lb *lb)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	int n;

	n = DIV_ROUND_UP(lb->len + offset_in_page(lb->dma[1]), SZ_4K);
	lb->mr = ib_alloc_mr(lb->pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(lb->mr))
		return PTR_ERR(lb->mr);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = lb->dma[1];
	sg_dma_len(&sg) = lb->len;
	if (ib_map_mr_sg(lb->mr, &sg, 1, NULL, SZ_4K) != 1)
		return -EINVAL;
	ib_update_fast_reg_key(lb->mr, ib_inc_rkey(lb->mr->rkey));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = lb->mr;
	wr.key = lb->mr->rkey;
	wr.access = VROCE_LB_ACCESS;
	n = ib_post_send(lb->qp[1], &wr.wr, NULL);
	return n ?: vroce_lb_wait(lb, 1);
}

/**
 * vroce_lb_setup() - two connected RC QPs and a fast-register MR
 * @lb: the pair; @ibdev, @dmac, @sgid_index and @len filled in, the rest
 *	zero
 *
 * Makes a PD, a CQ (IB_POLL_DIRECT), two QPs connected to each other
 * through the port's GID @sgid_index towards @dmac, a DMA-mapped buffer of
 * @len bytes each, and registers QP 1's buffer as a fast-register MR (local
 * and remote read and write) with a REG_MR work request. Works on any RoCE
 * device (the benchmark uses it on rxe too). On failure, and when done,
 * vroce_lb_teardown() frees what was made.
 *
 * Context: process context, may sleep.
 * Return: 0 or the first error.
 */
int vroce_lb_setup(struct vroce_lb *lb)
{
	return vroce_lb_create(lb) ?: vroce_lb_reg_mr(lb);
}
EXPORT_SYMBOL_GPL(vroce_lb_setup);

static int vroce_lb_post(struct vroce_lb *lb, enum ib_wr_opcode op, int from,
			 int to)
{
	struct ib_sge sge = { .addr = lb->dma[from], .length = lb->len,
			      .lkey = lb->pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .opcode = op, .sg_list = &sge, .num_sge = 1 },
		.remote_addr = lb->mr->iova,
		.rkey = lb->mr->rkey,
	};
	struct ib_sge rsge = { .addr = lb->dma[to], .length = lb->len,
			       .lkey = lb->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	int err;

	if (op == IB_WR_SEND) {
		err = ib_post_recv(lb->qp[to], &rwr, NULL);
		if (err)
			return err;
	}
	err = ib_post_send(lb->qp[from], &wr.wr, NULL);
	return err ?: vroce_lb_wait(lb, op == IB_WR_SEND ? 2 : 1);
}

static void vroce_lb_fill(u8 *buf, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(i * 7 + seed + (i >> 8));
}

/* One step: clear the target, move the bytes, compare, report. */
static int vroce_lb_step(struct vroce_lb *lb, struct seq_buf *s,
			 const char *what, enum ib_wr_opcode op, u8 seed)
{
	/* READ pulls QP 1's buffer into QP 0's; the others push 0 to 1. */
	int from = op == IB_WR_RDMA_READ ? 1 : 0, to = !from;
	int err, i;

	vroce_lb_fill(lb->buf[from], lb->len, seed);
	memset(lb->buf[to], 0, lb->len);
	for (i = 0; i < 2; i++)
		ib_dma_sync_single_for_device(lb->ibdev, lb->dma[i], lb->len,
					      DMA_BIDIRECTIONAL);
	err = vroce_lb_post(lb, op, 0, 1);
	for (i = 0; i < 2; i++)
		ib_dma_sync_single_for_cpu(lb->ibdev, lb->dma[i], lb->len,
					   DMA_BIDIRECTIONAL);
	if (!err && memcmp(lb->buf[0], lb->buf[1], lb->len))
		err = -EILSEQ;
	seq_buf_printf(s, "%-10s %u bytes QP %u -> QP %u: %s (%d)\n", what,
		       lb->len, lb->qp[from]->qp_num, lb->qp[to]->qp_num,
		       err ? "FAILED" : "bytes match", err);
	return err;
}

/**
 * vroce_lb_run() - move bytes between two QPs of @ibdev, and report
 * @ibdev: the device; port 1 is used, through its GID 0 towards the MAC
 *	of its net device
 * @len: bytes per message, 1 to 1 MiB
 * @report: where the report is written
 * @size: room in @report
 *
 * Sets up a vroce_lb pair (vroce_lb_setup()), has QP 0 SEND to QP 1, RDMA
 * WRITE into QP 1's fast-register MR and RDMA READ it back, compares the
 * bytes after each step, writes a line per step to @report and tears the
 * pair down.
 *
 * Context: process context, may sleep.
 * Return: 0 when every step moved the bytes intact; -EINVAL for a @len out
 * of range, -ENODEV when port 1 has no net device, else the first error.
 */
int vroce_lb_run(struct ib_device *ibdev, u32 len, char *report, size_t size)
{
	struct vroce_lb lb = {
		.ibdev = ibdev,
		.len = len,
	};
	struct net_device *ndev;
	struct seq_buf s;
	int err;

	seq_buf_init(&s, report, size);
	if (!len || len > SZ_1M)
		return -EINVAL;
	/* Held until the pair is gone: lb.dmac points into it. */
	ndev = vroce_ib_device_get_netdev(ibdev, 1);
	if (!ndev) {
		/* Not seq_buf_puts(): 6.1 does not export it. */
		seq_buf_printf(&s, "no net device on port 1\n");
		return -ENODEV;
	}
	lb.dmac = ndev->dev_addr;
	err = vroce_lb_setup(&lb);
	if (err) {
		seq_buf_printf(&s, "setup failed (%d)\n", err);
		goto out;
	}
	seq_buf_printf(&s, "QP %u <-> QP %u, RC, loopback on %s; fast-reg MR rkey %#x iova %#llx\n",
		       lb.qp[0]->qp_num, lb.qp[1]->qp_num, ndev->name,
		       lb.mr->rkey, lb.mr->iova);
	err = vroce_lb_step(&lb, &s, "SEND", IB_WR_SEND, 1) ?:
	      vroce_lb_step(&lb, &s, "RDMA WRITE", IB_WR_RDMA_WRITE, 2) ?:
	      vroce_lb_step(&lb, &s, "RDMA READ", IB_WR_RDMA_READ, 3);
out:
	vroce_lb_teardown(&lb);
	dev_put(ndev);
	return err;
}
EXPORT_SYMBOL_GPL(vroce_lb_run);
