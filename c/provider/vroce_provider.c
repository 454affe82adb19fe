// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libvroce: the rdma-core provider for vroce devices (libvroce-rdmav34.so).
 *
 * libibverbs loads it through /etc/libibverbs.d/vroce.driver (or
 * RDMAV_DRIVERS) and hands it every RDMA device whose parent is a "vroce"
 * platform device. Every verb goes to the kernel through the uverbs
 * commands, the data path included: a user QP's rings stay in the kernel
 * and POST_SEND, POST_RECV and POLL_CQ carry work requests and
 * completions (Documentation/userspace.rst). The driver-specific data of
 * CREATE_CQ and CREATE_QP is c/uapi/vroce-abi.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vroce_verbs_compat.h"
#include "../uapi/vroce-abi.h"

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

struct vroce_device {
	struct verbs_device ibv_dev;
};

struct vroce_context {
	struct verbs_context ibv_ctx;
};

struct vroce_cq {
	struct verbs_cq vcq;
	uint32_t cqn;
};

struct vroce_qp {
	struct verbs_qp vqp;
	uint32_t sq_depth;
	uint32_t rq_depth;
};

static int vroce_query_device_ex(struct ibv_context *context,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%llu", (unsigned long long)resp.base.fw_ver);
	return 0;
}

static int vroce_query_port(struct ibv_context *context, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *vroce_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int vroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *vroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int vroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_cq *vroce_create_cq(struct ibv_context *context, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector)
{
	struct {
		struct ibv_create_cq ibv_cmd;
		struct vroce_create_cq drv;
	} cmd = { 0 };
	struct {
		struct ib_uverbs_create_cq_resp ibv_resp;
		struct vroce_create_cq_resp drv;
	} resp = { 0 };
	struct vroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	cq->cqn = resp.drv.cqn;
	return &cq->vcq.cq;
}

static int vroce_destroy_cq(struct ibv_cq *ibcq)
{
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (!ret)
		free(container_of(ibcq, struct vroce_cq, vcq.cq));
	return ret;
}

static struct ibv_qp *vroce_create_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr)
{
	struct {
		struct ibv_create_qp ibv_cmd;
		struct vroce_create_qp drv;
	} cmd = { 0 };
	struct {
		struct ib_uverbs_create_qp_resp ibv_resp;
		struct vroce_create_qp_resp drv;
	} resp = { 0 };
	struct vroce_qp *qp;
	int ret;

	/* The kernel reads no inline data of a user QP (userspace.rst). */
	if (attr->cap.max_inline_data) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->sq_depth = resp.drv.sq_depth;
	qp->rq_depth = resp.drv.rq_depth;
	return &qp->vqp.qp;
}

/*
 * ibv_create_qp_ex(): an RC QP with the attributes of ibv_create_qp(),
 * which begin struct ibv_qp_init_attr_ex as they begin struct
 * ibv_qp_init_attr (libibverbs passes one as the other itself); the
 * extensions (send ops, create flags, TSO, RSS, XRC) are not there.
 */
static_assert(offsetof(struct ibv_qp_init_attr_ex, send_cq) ==
	      offsetof(struct ibv_qp_init_attr, send_cq), "send_cq");
static_assert(offsetof(struct ibv_qp_init_attr_ex, cap) ==
	      offsetof(struct ibv_qp_init_attr, cap), "cap");
static_assert(offsetof(struct ibv_qp_init_attr_ex, sq_sig_all) ==
	      offsetof(struct ibv_qp_init_attr, sq_sig_all), "sq_sig_all");

static struct ibv_qp *vroce_create_qp_ex(struct ibv_context *context,
					 struct ibv_qp_init_attr_ex *attr)
{
	(void)context;
	if (attr->comp_mask & ~IBV_QP_INIT_ATTR_PD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	return vroce_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
}

static int vroce_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int vroce_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask)
{
	struct ibv_modify_qp cmd = { 0 };

	return ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
}

static int vroce_destroy_qp(struct ibv_qp *ibqp)
{
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (!ret)
		free(container_of(ibqp, struct vroce_qp, vqp.qp));
	return ret;
}

static void vroce_free_context(struct ibv_context *ibctx)
{
	struct vroce_context *ctx = container_of(ibctx, struct vroce_context,
						 ibv_ctx.context);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops vroce_ctx_ops = {
	.query_device_ex = vroce_query_device_ex,
	.query_port = vroce_query_port,
	.alloc_pd = vroce_alloc_pd,
	.dealloc_pd = vroce_dealloc_pd,
	.reg_mr = vroce_reg_mr,
	.dereg_mr = vroce_dereg_mr,
	.create_cq = vroce_create_cq,
	.poll_cq = ibv_cmd_poll_cq,
	.req_notify_cq = ibv_cmd_req_notify_cq,
	.destroy_cq = vroce_destroy_cq,
	.create_qp = vroce_create_qp,
	.create_qp_ex = vroce_create_qp_ex,
	.query_qp = vroce_query_qp,
	.modify_qp = vroce_modify_qp,
	.destroy_qp = vroce_destroy_qp,
	.post_send = ibv_cmd_post_send,
	.post_recv = ibv_cmd_post_recv,
	.free_context = vroce_free_context,
};

static struct verbs_context *vroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct ib_uverbs_get_context_resp resp;
	struct ibv_get_context cmd;
	struct vroce_context *ctx;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct vroce_context *)NULL)->ibv_ctx,
					    0 /* RDMA_DRIVER_UNKNOWN */);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd), &resp,
				sizeof(resp))) {
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		return NULL;
	}
	verbs_set_ops(&ctx->ibv_ctx, &vroce_ctx_ops);
	return &ctx->ibv_ctx;
}

static struct verbs_device *vroce_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	struct vroce_device *dev;

	(void)sysfs;
	dev = calloc(1, sizeof(*dev));
	return dev ? &dev->ibv_dev : NULL;
}

static void vroce_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct vroce_device, ibv_dev));
}

/* The HCA's platform device: its driver binds "vroce" devices. */
static const struct verbs_match_ent vroce_match[] = {
	{ .u.modalias = "platform:vroce", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops vroce_dev_ops = {
	.name = "vroce",
	.match_min_abi_version = VROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = VROCE_UVERBS_ABI_VERSION,
	.match_table = vroce_match,
	.alloc_device = vroce_alloc_device,
	.uninit_device = vroce_uninit_device,
	.alloc_context = vroce_alloc_context,
};

static void __attribute__((constructor)) vroce_register_driver(void)
{
	verbs_register_driver_34(&vroce_dev_ops);
}
