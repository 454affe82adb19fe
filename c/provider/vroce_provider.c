// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libvroce: the rdma-core provider for vroce devices (libvroce-rdmav34.so).
 *
 * libibverbs loads it through /etc/libibverbs.d/vroce.driver (or
 * RDMAV_DRIVERS) and hands it every RDMA device whose parent is a "vroce"
 * platform device. Every verb goes to the kernel through the uverbs
 * commands, the data path included: a user QP's rings stay in the kernel
 * and POST_SEND, POST_RECV and POLL_CQ carry work requests and
 * completions (Documentation/userspace.rst). The extended APIs
 * (ibv_create_cq_ex() polling, ibv_wr_*()) are built here over the same
 * commands. The driver-specific data of CREATE_CQ and CREATE_QP is
 * c/uapi/vroce-abi.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vroce_verbs_compat.h"
#include "../uapi/vroce-abi.h"
#include "vroce_ifc.h"

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
	/*
	 * ibv_start_poll() to ibv_end_poll(): the CQ is the caller's; @wc
	 * is the completion the ibv_wc_read_*() calls read.
	 */
	pthread_mutex_t poll_lock;
	struct ibv_wc wc;
};

struct vroce_qp {
	struct verbs_qp vqp;
	uint32_t sq_depth;
	uint32_t rq_depth;
	/*
	 * The ibv_wr_*() batch: ibv_wr_start() takes @wr_lock, each
	 * ibv_wr_<op>() fills the next of @wrs (@max_sge SGEs each in @sges),
	 * ibv_wr_complete() posts them in one POST_SEND and drops the lock;
	 * the kernel posts a user QP's chain all or nothing. @wr_err is the
	 * first error a builder met: the batch is not posted.
	 */
	pthread_mutex_t wr_lock;
	struct ibv_send_wr *wrs;
	struct ibv_sge *sges;
	uint32_t max_wr, max_sge, nwr;
	int wr_err;
	/*
	 * issue 30, cq/counters: inline data of the batch. ibv_wr_set_inline_data*()
	 * copy it here at once (the caller may reuse its buffer on return),
	 * @max_inline bytes for each request; its SGE points here and the
	 * kernel copies it in at POST_SEND.
	 */
	uint8_t *inl;
	uint32_t max_inline;
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

/*
 * issue 30: ibv_rereg_mr(). The kernel changes the MR in place under the
 * same keys, or (an MR of its MR cache) swaps a new one in under the same
 * handle; either way the response carries the keys.
 */
static int vroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
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
	ret = pthread_mutex_init(&cq->poll_lock, NULL);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		pthread_mutex_destroy(&cq->poll_lock);
		free(cq);
		errno = ret;
		return NULL;
	}
	cq->cqn = resp.drv.cqn;
	return &cq->vcq.cq;
}

static int vroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct vroce_cq *cq = container_of(ibcq, struct vroce_cq, vcq.cq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (!ret) {
		pthread_mutex_destroy(&cq->poll_lock);
		free(cq);
	}
	return ret;
}

/*
 * The extended CQ: ibv_start_poll()/ibv_next_poll() take one completion
 * each through POLL_CQ into cq->wc, which the readers return; nothing is
 * buffered past ibv_end_poll(), so ibv_poll_cq() on the same CQ loses
 * nothing.
 */
static inline struct vroce_cq *to_vcq_ex(struct ibv_cq_ex *cq_ex)
{
	return container_of(cq_ex, struct vroce_cq, vcq.cq_ex);
}

static int vroce_cq_ex_fetch(struct vroce_cq *cq)
{
	int n = ibv_cmd_poll_cq(&cq->vcq.cq, 1, &cq->wc);

	if (n < 0)
		return errno ? errno : EIO;
	if (n == 0)
		return ENOENT;
	cq->vcq.cq_ex.wr_id = cq->wc.wr_id;
	cq->vcq.cq_ex.status = cq->wc.status;
	return 0;
}

static int vroce_start_poll(struct ibv_cq_ex *cq_ex,
			    struct ibv_poll_cq_attr *attr)
{
	struct vroce_cq *cq = to_vcq_ex(cq_ex);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&cq->poll_lock);
	ret = vroce_cq_ex_fetch(cq);
	/* Only a successful start_poll is followed by end_poll. */
	if (ret)
		pthread_mutex_unlock(&cq->poll_lock);
	return ret;
}

static int vroce_next_poll(struct ibv_cq_ex *cq_ex)
{
	return vroce_cq_ex_fetch(to_vcq_ex(cq_ex));
}

static void vroce_end_poll(struct ibv_cq_ex *cq_ex)
{
	pthread_mutex_unlock(&to_vcq_ex(cq_ex)->poll_lock);
}

static enum ibv_wc_opcode vroce_read_opcode(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.opcode;
}

static uint32_t vroce_read_vendor_err(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.vendor_err;
}

static uint32_t vroce_read_byte_len(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.byte_len;
}

static __be32 vroce_read_imm_data(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.imm_data;
}

static uint32_t vroce_read_qp_num(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.qp_num;
}

static uint32_t vroce_read_src_qp(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.src_qp;
}

static unsigned int vroce_read_wc_flags(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.wc_flags;
}

static uint32_t vroce_read_slid(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.slid;
}

static uint8_t vroce_read_sl(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.sl;
}

static uint8_t vroce_read_dlid_path_bits(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->wc.dlid_path_bits;
}

/*
 * ibv_create_cq_ex(): the fields of struct ibv_wc and nothing else (no
 * timestamps, VLAN, flow tag or tag matching); the single-threaded hint
 * is taken, other flags and a parent domain are not.
 */
static struct ibv_cq_ex *vroce_create_cq_ex(struct ibv_context *context,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq_ex;
	struct ibv_cq *ibcq;

	if ((attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ibcq = vroce_create_cq(context, attr->cqe, attr->channel,
			       attr->comp_vector);
	if (!ibcq)
		return NULL;
	cq_ex = &container_of(ibcq, struct vroce_cq, vcq.cq)->vcq.cq_ex;
	cq_ex->start_poll = vroce_start_poll;
	cq_ex->next_poll = vroce_next_poll;
	cq_ex->end_poll = vroce_end_poll;
	cq_ex->read_opcode = vroce_read_opcode;
	cq_ex->read_vendor_err = vroce_read_vendor_err;
	cq_ex->read_wc_flags = vroce_read_wc_flags;
	cq_ex->read_byte_len = vroce_read_byte_len;
	cq_ex->read_imm_data = vroce_read_imm_data;
	cq_ex->read_qp_num = vroce_read_qp_num;
	cq_ex->read_src_qp = vroce_read_src_qp;
	cq_ex->read_slid = vroce_read_slid;
	cq_ex->read_sl = vroce_read_sl;
	cq_ex->read_dlid_path_bits = vroce_read_dlid_path_bits;
	return cq_ex;
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
 * ibv_create_qp_ex(): an RC, UC or UD QP with the attributes of ibv_create_qp(),
 * which begin struct ibv_qp_init_attr_ex as they begin struct
 * ibv_qp_init_attr (libibverbs passes one as the other itself), and
 * optionally the ibv_wr_*() API for the send operations the HCA has.
 * Create flags, TSO, RSS and XRC are not there.
 */
static_assert(offsetof(struct ibv_qp_init_attr_ex, send_cq) ==
	      offsetof(struct ibv_qp_init_attr, send_cq), "send_cq");
static_assert(offsetof(struct ibv_qp_init_attr_ex, cap) ==
	      offsetof(struct ibv_qp_init_attr, cap), "cap");
static_assert(offsetof(struct ibv_qp_init_attr_ex, sq_sig_all) ==
	      offsetof(struct ibv_qp_init_attr, sq_sig_all), "sq_sig_all");

/*
 * Not send-with-invalidate: a process has no memory a peer may invalidate
 * (no memory windows, no fast-register MRs), so it could only fail.
 */
#define VROCE_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			IBV_QP_EX_WITH_RDMA_WRITE |				\
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			IBV_QP_EX_WITH_RDMA_READ |				\
			VROCE_SEND_OPS_ATOMIC)
/* The atomics (datapath.rst): through the kernel's POST_SEND. */
#define VROCE_SEND_OPS_ATOMIC (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
			       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |	\
			       IBV_QP_EX_WITH_ATOMIC_WRITE)

/* Most requests in one ibv_wr_*() batch; see vroce_qp_ex_init(). */
#define VROCE_WR_BATCH_MAX 128

static inline struct vroce_qp *to_vqp_ex(struct ibv_qp_ex *qp_ex)
{
	return container_of(qp_ex, struct vroce_qp, vqp.qp_ex);
}

static void vroce_wr_start(struct ibv_qp_ex *qp_ex)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);

	pthread_mutex_lock(&qp->wr_lock);
	qp->nwr = 0;
	qp->wr_err = 0;
}

/* The batch fails with the first error a builder met. */
static void vroce_wr_fail(struct vroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* The next work request of the batch, or NULL (and the batch fails). */
static struct ibv_send_wr *vroce_wr_new(struct ibv_qp_ex *qp_ex,
					enum ibv_wr_opcode opcode)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr *wr;

	if (qp->nwr == qp->max_wr) {
		vroce_wr_fail(qp, ENOMEM);
		return NULL;
	}
	wr = &qp->wrs[qp->nwr];
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = &qp->sges[(size_t)qp->nwr * qp->max_sge];
	wr->wr_id = qp_ex->wr_id;
	wr->send_flags = qp_ex->wr_flags;
	wr->opcode = opcode;
	qp->nwr++;
	return wr;
}

/* The request the ibv_wr_set_*() calls complete, or NULL. */
static struct ibv_send_wr *vroce_wr_cur(struct vroce_qp *qp)
{
	if (!qp->nwr) {
		vroce_wr_fail(qp, EINVAL);
		return NULL;
	}
	return &qp->wrs[qp->nwr - 1];
}

static void vroce_wr_send(struct ibv_qp_ex *qp_ex)
{
	vroce_wr_new(qp_ex, IBV_WR_SEND);
}

static void vroce_wr_send_imm(struct ibv_qp_ex *qp_ex, __be32 imm_data)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void vroce_wr_rdma(struct ibv_qp_ex *qp_ex, enum ibv_wr_opcode op,
			  uint32_t rkey, uint64_t addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, op);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = addr;
	wr->imm_data = imm_data;
}

static void vroce_wr_rdma_write(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				uint64_t addr)
{
	vroce_wr_rdma(qp_ex, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void vroce_wr_rdma_write_imm(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				    uint64_t addr, __be32 imm_data)
{
	vroce_wr_rdma(qp_ex, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm_data);
}

static void vroce_wr_rdma_read(struct ibv_qp_ex *qp_ex, uint32_t rkey,
			       uint64_t addr)
{
	vroce_wr_rdma(qp_ex, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void vroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (!wr)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare;
	wr->wr.atomic.swap = swap;
}

static void vroce_wr_atomic_fetch_add(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex,
					      IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (!wr)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = add;
}

/*
 * uverbs' POST_SEND has no ATOMIC_WRITE: it goes as a FETCH_AND_ADD the
 * kernel knows by VROCE_SEND_ATOMIC_WRITE, the 8 bytes in swap
 * (vroce-abi.h). It has no SGE.
 */
static void vroce_wr_atomic_write(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex,
					      IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (!wr)
		return;
	wr->send_flags |= VROCE_SEND_ATOMIC_WRITE;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	memcpy(&wr->wr.atomic.swap, atomic_wr, sizeof(wr->wr.atomic.swap));
}

static void vroce_wr_set_sge_list(struct ibv_qp_ex *qp_ex, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr *wr = vroce_wr_cur(qp);

	if (!wr)
		return;
	if (num_sge > qp->max_sge) {
		vroce_wr_fail(qp, EINVAL);
		return;
	}
	memcpy(wr->sg_list, sg_list, num_sge * sizeof(*sg_list));
	wr->num_sge = num_sge;
}

/* A UD request's destination: the AH (by its handle), QPN and Q_Key. */
static void vroce_wr_set_ud_addr(struct ibv_qp_ex *qp_ex, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = vroce_wr_cur(to_vqp_ex(qp_ex));

	if (!wr)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void vroce_wr_set_sge(struct ibv_qp_ex *qp_ex, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	vroce_wr_set_sge_list(qp_ex, 1, &sge);
}

/*
 * Inline data: copied now into the request's @max_inline bytes of @inl,
 * which its one SGE names; more than the QP's max_inline_data fails the
 * batch with EINVAL.
 */
static void vroce_wr_set_inline_data_list(struct ibv_qp_ex *qp_ex,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr *wr = vroce_wr_cur(qp);
	uint8_t *data;
	size_t i, len = 0;

	if (!wr)
		return;
	data = qp->inl + (size_t)(qp->nwr - 1) * qp->max_inline;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline - len) {
			vroce_wr_fail(qp, EINVAL);
			return;
		}
		memcpy(data + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	wr->sg_list[0].addr = (uintptr_t)data;
	wr->sg_list[0].length = len;
	wr->sg_list[0].lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void vroce_wr_set_inline_data(struct ibv_qp_ex *qp_ex, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	vroce_wr_set_inline_data_list(qp_ex, 1, &buf);
}

static int vroce_wr_complete(struct ibv_qp_ex *qp_ex)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr *bad;
	uint32_t i;
	int ret = qp->wr_err;

	if (!ret && qp->nwr) {
		for (i = 0; i + 1 < qp->nwr; i++)
			qp->wrs[i].next = &qp->wrs[i + 1];
		ret = ibv_cmd_post_send(&qp->vqp.qp, qp->wrs, &bad);
	}
	qp->nwr = 0;
	pthread_mutex_unlock(&qp->wr_lock);
	return ret;
}

static void vroce_wr_abort(struct ibv_qp_ex *qp_ex)
{
	struct vroce_qp *qp = to_vqp_ex(qp_ex);

	qp->nwr = 0;
	pthread_mutex_unlock(&qp->wr_lock);
}

/* Sets up the ibv_wr_*() API of @qp for @ops (IBV_QP_EX_WITH_*). */
static int vroce_qp_ex_init(struct vroce_qp *qp, uint64_t ops,
			    const struct ibv_qp_cap *cap)
{
	struct ibv_qp_ex *qp_ex = &qp->vqp.qp_ex;
	int ret;

	/*
	 * ibv_cmd_post_send() builds the command on the stack (alloca):
	 * a batch is kept to VROCE_WR_BATCH_MAX requests.
	 */
	qp->max_wr = cap->max_send_wr < VROCE_WR_BATCH_MAX ?
		     cap->max_send_wr : VROCE_WR_BATCH_MAX;
	qp->max_sge = cap->max_send_sge ? cap->max_send_sge : 1;
	qp->wrs = calloc(qp->max_wr ? qp->max_wr : 1, sizeof(*qp->wrs));
	qp->sges = calloc((size_t)(qp->max_wr ? qp->max_wr : 1) * qp->max_sge,
			  sizeof(*qp->sges));
	qp->max_inline = cap->max_inline_data;
	qp->inl = calloc((size_t)(qp->max_wr ? qp->max_wr : 1) *
			 (qp->max_inline ? qp->max_inline : 1), 1);
	ret = pthread_mutex_init(&qp->wr_lock, NULL);
	if (!qp->wrs || !qp->sges || !qp->inl || ret) {
		if (!ret)
			pthread_mutex_destroy(&qp->wr_lock);
		free(qp->wrs);
		free(qp->sges);
		free(qp->inl);
		qp->wrs = NULL;
		qp->sges = NULL;
		qp->inl = NULL;
		return ret ? ret : ENOMEM;
	}
	qp_ex->wr_start = vroce_wr_start;
	qp_ex->wr_complete = vroce_wr_complete;
	qp_ex->wr_abort = vroce_wr_abort;
	qp_ex->wr_set_sge = vroce_wr_set_sge;
	qp_ex->wr_set_ud_addr = vroce_wr_set_ud_addr;
	qp_ex->wr_set_sge_list = vroce_wr_set_sge_list;
	qp_ex->wr_set_inline_data = vroce_wr_set_inline_data;
	qp_ex->wr_set_inline_data_list = vroce_wr_set_inline_data_list;
	if (ops & IBV_QP_EX_WITH_SEND)
		qp_ex->wr_send = vroce_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qp_ex->wr_send_imm = vroce_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qp_ex->wr_rdma_write = vroce_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qp_ex->wr_rdma_write_imm = vroce_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qp_ex->wr_rdma_read = vroce_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qp_ex->wr_atomic_cmp_swp = vroce_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qp_ex->wr_atomic_fetch_add = vroce_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qp_ex->wr_atomic_write = vroce_wr_atomic_write;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	return 0;
}

static struct ibv_qp *vroce_create_qp_ex(struct ibv_context *context,
					 struct ibv_qp_init_attr_ex *attr)
{
	uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	uint64_t ops = 0;
	struct ibv_qp *ibqp;
	struct vroce_qp *qp;
	int ret;

	(void)context;
	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		if (ops & ~(uint64_t)VROCE_SEND_OPS) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		if (!ops) {
			errno = EINVAL;
			return NULL;
		}
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	/* A UC QP has no RDMA READ (nor atomics): IBTA. */
	if (attr->qp_type == IBV_QPT_UC && (ops & IBV_QP_EX_WITH_RDMA_READ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ibqp = vroce_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	if (!ibqp || !(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return ibqp;
	qp = container_of(ibqp, struct vroce_qp, vqp.qp);
	ret = vroce_qp_ex_init(qp, ops, &attr->cap);
	if (ret) {
		/* Kept if the kernel still has it: it names qp in events. */
		if (!ibv_cmd_destroy_qp(ibqp))
			free(qp);
		errno = ret;
		return NULL;
	}
	return ibqp;
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
	struct vroce_qp *qp = container_of(ibqp, struct vroce_qp, vqp.qp);
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	if (qp->vqp.comp_mask & VERBS_QP_EX) {
		pthread_mutex_destroy(&qp->wr_lock);
		free(qp->wrs);
		free(qp->sges);
		free(qp->inl);
	}
	free(qp);
	return 0;
}

/*
 * Shared receive queues: the ring stays in the kernel like a QP's, and
 * receives are posted through POST_SRQ_RECV (ibv_cmd_post_srq_recv()).
 */
struct vroce_srq {
	struct ibv_srq ibsrq;
	uint32_t srqn;
	uint32_t depth;
};

static struct ibv_srq *vroce_create_srq(struct ibv_pd *pd,
					struct ibv_srq_init_attr *attr)
{
	struct {
		struct ibv_create_srq ibv_cmd;
		struct vroce_create_srq drv;
	} cmd = { 0 };
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct vroce_create_srq_resp drv;
	} resp = { 0 };
	struct vroce_srq *srq = calloc(1, sizeof(*srq));
	int ret;

	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->ibsrq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(srq);
		errno = ret;
		return NULL;
	}
	srq->srqn = resp.drv.srqn;
	srq->depth = resp.drv.depth;
	return &srq->ibsrq;
}

static int vroce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int vroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int vroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct vroce_srq *srq = container_of(ibsrq, struct vroce_srq, ibsrq);
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	free(srq);
	return 0;
}

static void vroce_free_context(struct ibv_context *ibctx)
{
	struct vroce_context *ctx = container_of(ibctx, struct vroce_context,
						 ibv_ctx.context);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

/*
 * Address handles of UD QPs: the kernel's (create_ah resolves the MAC and
 * keeps the vector); a UD work request names the AH by its handle, which
 * ibv_cmd_post_send() passes, and the kernel copies the vector into the
 * WQE.
 */
static struct ibv_ah *vroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct ib_uverbs_create_ah_resp resp;
	struct ibv_ah *ah = calloc(1, sizeof(*ah));
	int ret;

	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, ah, attr, &resp, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	return ah;
}

static int vroce_destroy_ah(struct ibv_ah *ah)
{
	int ret = ibv_cmd_destroy_ah(ah);

	if (ret)
		return ret;
	free(ah);
	return 0;
}

/* issue 30, cq/counters: the CQ's ring is the kernel's; no driver data. */
static int vroce_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct ib_uverbs_resize_cq_resp resp;
	struct ibv_resize_cq cmd;

	return ibv_cmd_resize_cq(cq, cqe, &cmd, sizeof(cmd), &resp,
				 sizeof(resp));
}

static const struct verbs_context_ops vroce_ctx_ops = {
	.query_device_ex = vroce_query_device_ex,
	.query_port = vroce_query_port,
	.alloc_pd = vroce_alloc_pd,
	.dealloc_pd = vroce_dealloc_pd,
	.reg_mr = vroce_reg_mr,
	.dereg_mr = vroce_dereg_mr,
	/* issue 30, rereg_mr */
	.rereg_mr = vroce_rereg_mr,
	.create_cq = vroce_create_cq,
	.create_cq_ex = vroce_create_cq_ex,
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
	.create_ah = vroce_create_ah,
	.destroy_ah = vroce_destroy_ah,
	/* UD multicast */
	.attach_mcast = ibv_cmd_attach_mcast,
	.detach_mcast = ibv_cmd_detach_mcast,
	/* Shared receive queues. */
	.create_srq = vroce_create_srq,
	.modify_srq = vroce_modify_srq,
	.query_srq = vroce_query_srq,
	.destroy_srq = vroce_destroy_srq,
	.post_srq_recv = ibv_cmd_post_srq_recv,
	.free_context = vroce_free_context,
	/* issue 30, cq/counters */
	.resize_cq = vroce_resize_cq,
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
