/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce_demo: the loopback fixture, two RC QPs of one RoCE device connected
 * to each other, for the KUnit suites, the benchmark and debugfs
 * "loopback". Only the RDMA core's kernel API is used.
 */
#ifndef _VROCE_LB_H_
#define _VROCE_LB_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/**
 * struct vroce_lb - two RC QPs of one device connected to each other
 * @ibdev: the device (in)
 * @dmac: the port's own MAC (in)
 * @sgid_index: the port's GID to connect through (in)
 * @len: bytes of each buffer (in)
 * @pd: their protection domain
 * @cq: their CQ, polled directly
 * @qp: the two QPs
 * @buf: a buffer for each
 * @dma: the buffers' DMA addresses
 * @mapped: which buffers are mapped
 * @mr: QP 1's buffer as a registered fast-register MR
 */
struct vroce_lb {
	struct ib_device *ibdev;
	const u8 *dmac;
	u8 sgid_index;
	u32 len;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	u8 *buf[2];
	u64 dma[2];
	bool mapped[2];
	struct ib_mr *mr;
};

int vroce_lb_setup(struct vroce_lb *lb);
void vroce_lb_teardown(struct vroce_lb *lb);
int vroce_lb_connect(struct ib_qp *qp, u32 dest_qpn, u8 sgid_index,
		     const u8 *dmac, u8 rnr_retry, int access);
int vroce_lb_run(struct ib_device *ibdev, u32 len, char *report, size_t size);

#endif /* _VROCE_LB_H_ */
