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
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "vroce_verbs_compat.h"
#include "../uapi/vroce-abi.h"
#include "vroce_ifc.h"

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

struct vroce_device {
	struct verbs_device ibv_dev;
};

/* ---- issue 31: mapped rings (Documentation/userspace.rst) ---- */

/*
 * Barriers of the mapped rings. The HCA reads and writes the process's
 * memory as another CPU would (DMA to coherent memory): a release fence
 * orders the WQEs before the index that publishes them, an acquire fence
 * the owner byte before the rest of a CQE.
 */
#define vroce_to_device_barrier()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define vroce_from_device_barrier()	__atomic_thread_fence(__ATOMIC_ACQUIRE)

/*
 * Doorbell records: 8 bytes each, a page of them at a time. The page is
 * the system's (sysconf(_SC_PAGESIZE), read once per context): the
 * kernel's PAGE_SIZE, which it aligns, checks and pins by
 * (c/uapi/vroce-abi.h; review of issue 31).
 */
#define VROCE_DBREC_SIZE	8

struct vroce_dbrec_page {
	struct vroce_dbrec_page *next;
	uint8_t *page;
	unsigned int used;
	uint64_t free[];	/* bit set: free; page_size / 8 bits */
};

/* The highest QP number + 1: the CQ poller finds a CQE's QP by number. */
#define VROCE_QPN_TABLE		(VROCE_QPN_BASE + VROCE_MAX_QP)

struct vroce_qp;

struct vroce_context {
	struct verbs_context ibv_ctx;
	/* issue 31 */
	bool map_cq, map_wq;		/* the kernel maps; VROCE_NO_MAP unset */
	size_t page_size;		/* sysconf(_SC_PAGESIZE) */
	/*
	 * The device is dead and its HCA reset (review of issue 31): set
	 * once, by IBV_EVENT_DEVICE_FATAL, a verb that failed with EIO, or
	 * VROCE_CQ_DBREC_FATAL in a CQ's record (@fatal_rec: the kernel
	 * sets it); pollers then flush what is outstanding.
	 */
	bool fatal;
	bool fatal_rec;
	pthread_mutex_t dbrec_lock;	/* protects dbrec_pages */
	struct vroce_dbrec_page *dbrec_pages;
	pthread_mutex_t qp_lock;	/* protects the writers of qp_table */
	struct vroce_qp *qp_table[VROCE_QPN_TABLE];
};

static inline struct vroce_context *to_vctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct vroce_context, ibv_ctx.context);
}

static void vroce_set_fatal(struct vroce_context *ctx)
{
	__atomic_store_n(&ctx->fatal, true, __ATOMIC_RELEASE);
}

/*
 * Pages the HCA or the kernel may write (rings, record pages): mapped on
 * their own, not from malloc(), and given back with munmap(). The kernel
 * pins what it hands the HCA, so a page it still holds (a command whose
 * answer was lost parks it until the HCA's reset) leaves the process's
 * address space with munmap() but is never reused by it: no heap memory
 * of the process is ever one the HCA can still write (review of issue 31).
 * @bytes: whole pages. Zeroed, not forked; NULL with errno.
 */
static void *vroce_pages_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* The kernel pins the pages: a child must not get them (fork). */
	if (ibv_dontfork_range(p, bytes)) {
		munmap(p, bytes);
		return NULL;
	}
	return p;
}

static void vroce_pages_free(void *p, size_t bytes)
{
	if (!p)
		return;
	ibv_dofork_range(p, bytes);
	munmap(p, bytes);
}

/* A free record of the context's pages (zeroed), or NULL with errno. */
static void *vroce_dbrec_alloc(struct vroce_context *ctx)
{
	size_t per_page = ctx->page_size / VROCE_DBREC_SIZE;
	struct vroce_dbrec_page *p;
	unsigned int i, b;
	void *rec = NULL;

	pthread_mutex_lock(&ctx->dbrec_lock);
	for (p = ctx->dbrec_pages; p; p = p->next)
		if (p->used < per_page)
			break;
	if (!p) {
		p = calloc(1, sizeof(*p) + per_page / 8);
		if (!p)
			goto out;
		p->page = vroce_pages_alloc(ctx->page_size);
		if (!p->page) {
			free(p);
			p = NULL;
			goto out;
		}
		memset(p->free, 0xff, per_page / 8);
		p->next = ctx->dbrec_pages;
		ctx->dbrec_pages = p;
	}
	for (i = 0; i < per_page / 64; i++) {
		if (!p->free[i])
			continue;
		b = __builtin_ctzll(p->free[i]);
		p->free[i] &= ~(1ULL << b);
		p->used++;
		rec = p->page + (i * 64 + b) * VROCE_DBREC_SIZE;
		memset(rec, 0, VROCE_DBREC_SIZE);
		break;
	}
out:
	pthread_mutex_unlock(&ctx->dbrec_lock);
	return rec;
}

/* Give back a record once the kernel has let go of it (destroy done). */
static void vroce_dbrec_free(struct vroce_context *ctx, void *rec)
{
	struct vroce_dbrec_page *p;
	size_t n;

	if (!rec)
		return;
	pthread_mutex_lock(&ctx->dbrec_lock);
	for (p = ctx->dbrec_pages; p; p = p->next) {
		if ((uint8_t *)rec < p->page ||
		    (uint8_t *)rec >= p->page + ctx->page_size)
			continue;
		n = ((uint8_t *)rec - p->page) / VROCE_DBREC_SIZE;
		p->free[n / 64] |= 1ULL << (n % 64);
		p->used--;
		break;
	}
	pthread_mutex_unlock(&ctx->dbrec_lock);
}

/*
 * The depth of a mapped ring: a power of two, at least @want and two, as
 * the kernel's own rings (a ring of less than a page takes the page).
 */
static uint32_t vroce_ring_depth(uint32_t want)
{
	uint32_t depth = 2;

	while (depth < want)
		depth <<= 1;
	return depth;
}

/* The bytes a ring of @depth entries of @entry_size takes: whole pages. */
static size_t vroce_ring_bytes(struct vroce_context *ctx, uint32_t depth,
			       uint32_t entry_size)
{
	size_t bytes = (size_t)depth * entry_size;

	return (bytes + ctx->page_size - 1) & ~(ctx->page_size - 1);
}

/* A ring of @depth entries of @entry_size: vroce_pages_alloc(). */
static void *vroce_ring_alloc(struct vroce_context *ctx, uint32_t depth,
			      uint32_t entry_size)
{
	return vroce_pages_alloc(vroce_ring_bytes(ctx, depth, entry_size));
}

static void vroce_ring_free(struct vroce_context *ctx, void *ring,
			    uint32_t depth, uint32_t entry_size)
{
	vroce_pages_free(ring, vroce_ring_bytes(ctx, depth, entry_size));
}

struct vroce_cq {
	struct verbs_cq vcq;
	uint32_t cqn;
	/*
	 * ibv_start_poll() to ibv_end_poll(): the CQ is the caller's; @wc
	 * is the completion the ibv_wc_read_*() calls read.
	 */
	pthread_mutex_t poll_lock;
	struct ibv_wc wc;
	/*
	 * issue 31: a mapped CQ: the HCA writes @ring, the poller reads it
	 * by the owner phase and publishes @ci in @dbrec, under @lock. @lock
	 * is held only while the ring is read or swapped, never across a
	 * system call (review of issue 31): a resize takes @resize_lock for
	 * its RESIZE_CQ and marks the CQ @resizing meanwhile, and pollers
	 * find nothing then. @broken: a RESIZE_CQ whose answer was lost
	 * (ETIMEDOUT), after which the HCA may write either ring: polling
	 * fails with EIO, only the flush of a dead device still completes.
	 */
	bool mapped;
	pthread_spinlock_t lock;
	pthread_mutex_t resize_lock;	/* serialises resizes and cleans */
	bool resizing;
	bool broken;
	struct vroce_cqe *ring;
	uint32_t log2;
	uint32_t ci;
	struct vroce_cq_dbrec *dbrec;
};

/*
 * issue 31: a queue of a mapped QP: the provider writes WQEs at @pi and
 * learns from CQEs' wqe_idx how far the HCA completed (@ci); under @lock.
 */
struct vroce_uwq {
	pthread_spinlock_t lock;
	uint8_t *ring;
	uint32_t log2;
	uint32_t entry_size;
	uint32_t pi;
	uint32_t ci;
};

struct vroce_qp {
	struct verbs_qp vqp;
	uint32_t sq_depth;
	uint32_t rq_depth;
	/* issue 31: mapped rings */
	bool mapped;
	bool sq_sig_all;
	struct vroce_uwq sq;
	struct vroce_uwq rq;
	struct vroce_qp_dbrec *dbrec;
	/*
	 * An error CQE of the QP was polled: the HCA moved it to ERR, which
	 * ibv_query_qp()'s state may not show yet (review of issue 31).
	 */
	bool hw_err;
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

/*
 * issue 33: ibv_advise_mr(): the kernel maps the ranges' pages of on-demand
 * paging MRs before the HCA meets them.
 */
static int vroce_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			   uint32_t flags, struct ibv_sge *sg_list,
			   uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
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
	struct vroce_context *ctx = to_vctx(context);
	struct vroce_cq *cq;
	uint32_t depth = 0;
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
	ret = pthread_mutex_init(&cq->resize_lock, NULL);
	if (ret) {
		pthread_mutex_destroy(&cq->poll_lock);
		free(cq);
		errno = ret;
		return NULL;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	/* issue 31: the ring and its record in this process's memory. */
	if (ctx->map_cq && cqe > 0 && cqe <= (1 << VROCE_MAX_CQ_DEPTH_LOG2)) {
		depth = vroce_ring_depth(cqe);
		cq->ring = vroce_ring_alloc(ctx, depth, VROCE_CQE_SIZE);
		cq->dbrec = cq->ring ? vroce_dbrec_alloc(ctx) : NULL;
		if (!cq->dbrec)
			goto err;
		cq->log2 = __builtin_ctz(depth);
		cmd.drv.comp_mask = VROCE_CREATE_CQ_MAPPED;
		cmd.drv.buf_addr = (uintptr_t)cq->ring;
		cmd.drv.dbrec_addr = (uintptr_t)cq->dbrec;
		cmd.drv.depth = depth;
	}
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err;
	}
	cq->cqn = resp.drv.cqn;
	cq->mapped = !!depth;
	return &cq->vcq.cq;

err:
	ret = errno;
	vroce_dbrec_free(ctx, cq->dbrec);
	vroce_ring_free(ctx, cq->ring, depth, VROCE_CQE_SIZE);
	pthread_spin_destroy(&cq->lock);
	pthread_mutex_destroy(&cq->resize_lock);
	pthread_mutex_destroy(&cq->poll_lock);
	free(cq);
	errno = ret;
	return NULL;
}

static int vroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct vroce_cq *cq = container_of(ibcq, struct vroce_cq, vcq.cq);
	struct vroce_context *ctx = to_vctx(ibcq->context);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (!ret) {
		/*
		 * The kernel unpinned them (the HCA confirmed the destroy) or
		 * parked them pinned (it did not): munmap() is safe either way.
		 */
		if (cq->mapped) {
			vroce_dbrec_free(ctx, cq->dbrec);
			vroce_ring_free(ctx, cq->ring, 1U << cq->log2,
					VROCE_CQE_SIZE);
		}
		pthread_spin_destroy(&cq->lock);
		pthread_mutex_destroy(&cq->resize_lock);
		pthread_mutex_destroy(&cq->poll_lock);
		free(cq);
	}
	return ret;
}

/* ---- issue 31: polling a mapped CQ, no system call ---- */

static const enum ibv_wc_status vroce_wc_status[] = {
	[VROCE_CQE_OK] = IBV_WC_SUCCESS,
	[VROCE_CQE_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
	[VROCE_CQE_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
	[VROCE_CQE_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
	[VROCE_CQE_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
	[VROCE_CQE_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
	[VROCE_CQE_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
	[VROCE_CQE_REM_OP_ERR] = IBV_WC_REM_OP_ERR,
	[VROCE_CQE_RETRY_EXC_ERR] = IBV_WC_RETRY_EXC_ERR,
	[VROCE_CQE_RNR_RETRY_EXC_ERR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[VROCE_CQE_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
	[VROCE_CQE_MW_BIND_ERR] = IBV_WC_MW_BIND_ERR,
};

static const enum ibv_wc_opcode vroce_wc_opcode[] = {
	[VROCE_CQE_SEND] = IBV_WC_SEND,
	[VROCE_CQE_WRITE] = IBV_WC_RDMA_WRITE,
	[VROCE_CQE_READ] = IBV_WC_RDMA_READ,
	[VROCE_CQE_REG_MR] = IBV_WC_BIND_MW,
	[VROCE_CQE_LOCAL_INV] = IBV_WC_LOCAL_INV,
	[VROCE_CQE_RECV] = IBV_WC_RECV,
	[VROCE_CQE_RECV_WRITE_IMM] = IBV_WC_RECV_RDMA_WITH_IMM,
	[VROCE_CQE_COMP_SWAP] = IBV_WC_COMP_SWAP,
	[VROCE_CQE_FETCH_ADD] = IBV_WC_FETCH_ADD,
	[VROCE_CQE_ATOMIC_WRITE] = IBV_WC_ATOMIC_WRITE,
	[VROCE_CQE_BIND_MW] = IBV_WC_BIND_MW,
};

/* CQE @n of @cq once the HCA wrote it (the owner phase), else NULL. */
static struct vroce_cqe *vroce_cqe_written(struct vroce_cq *cq, uint32_t n)
{
	struct vroce_cqe *cqe = &cq->ring[n & ((1U << cq->log2) - 1)];
	uint8_t owner = __atomic_load_n(&cqe->owner, __ATOMIC_RELAXED);

	if ((owner & VROCE_CQE_OWNER) != !((n >> cq->log2) & 1))
		return NULL;
	/* The body was written before the owner byte. */
	vroce_from_device_barrier();
	return cqe;
}

/* A polled CQE frees its WQE's slot and those before it (as the kernel's). */
static void vroce_uwq_retire(struct vroce_uwq *wq, uint16_t wqe_idx)
{
	uint16_t ahead;

	if (!wq->ring)
		return;		/* the receives of an SRQ */
	pthread_spin_lock(&wq->lock);
	ahead = (uint16_t)(wqe_idx + 1) - (uint16_t)wq->ci;
	if (ahead <= wq->pi - wq->ci)
		wq->ci += ahead;
	pthread_spin_unlock(&wq->lock);
}

/* Turn @cqe into @wc; false to skip it (its QP is gone or not this CQ's). */
static bool vroce_cqe_to_wc(struct vroce_context *ctx, struct vroce_cq *cq,
			    const struct vroce_cqe *cqe, struct ibv_wc *wc)
{
	uint32_t qpn = le32toh(cqe->qpn);
	bool rq = cqe->flags & VROCE_CQE_F_RQ;
	struct vroce_qp *qp;

	qp = qpn < VROCE_QPN_TABLE ?
	     __atomic_load_n(&ctx->qp_table[qpn], __ATOMIC_ACQUIRE) : NULL;
	if (!qp || (rq ? qp->vqp.qp.recv_cq : qp->vqp.qp.send_cq) !=
		   &cq->vcq.cq)
		return false;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->wr_id);
	wc->qp_num = qpn;
	wc->vendor_err = cqe->status;
	wc->status = cqe->status < sizeof(vroce_wc_status) /
				   sizeof(vroce_wc_status[0]) ?
		     vroce_wc_status[cqe->status] : IBV_WC_GENERAL_ERR;
	vroce_uwq_retire(rq ? &qp->rq : &qp->sq, le16toh(cqe->wqe_idx));
	if (wc->status != IBV_WC_SUCCESS) {
		__atomic_store_n(&qp->hw_err, true, __ATOMIC_RELAXED);
		return true;
	}
	wc->opcode = cqe->opcode < sizeof(vroce_wc_opcode) /
				   sizeof(vroce_wc_opcode[0]) ?
		     vroce_wc_opcode[cqe->opcode] : IBV_WC_SEND;
	wc->byte_len = le32toh(cqe->byte_len);
	if (cqe->flags & VROCE_CQE_F_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inv;	/* as posted: big endian */
	} else if (cqe->flags & VROCE_CQE_F_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = le32toh(cqe->imm_inv);
	}
	if (rq)
		wc->src_qp = le32toh(cqe->src_qp);
	if (cqe->flags & VROCE_CQE_F_GRH) {
		wc->wc_flags |= IBV_WC_GRH;
		wc->pkey_index = le16toh(cqe->pkey_index);
	}
	return true;
}

/*
 * Whether the device is dead and its HCA reset (review of issue 31): the
 * context's flag, or the kernel's in @cq's record, which latches it. The
 * HCA wrote its last CQE before either was set.
 */
static bool vroce_cq_fatal(struct vroce_context *ctx, struct vroce_cq *cq)
{
	if (__atomic_load_n(&ctx->fatal, __ATOMIC_ACQUIRE))
		return true;
	if (!ctx->fatal_rec ||
	    !(le32toh(__atomic_load_n(&cq->dbrec->arm, __ATOMIC_ACQUIRE)) &
	      VROCE_CQ_DBREC_FATAL))
		return false;
	vroce_set_fatal(ctx);
	return true;
}

/*
 * A dead device's work requests of @qp's queue @wq, which the HCA will not
 * complete: each WQE past @wq's ci, signaled or not, completes with
 * IBV_WC_WR_FLUSH_ERR, in order, once (as the kernel's vroce_qp_flush()
 * for its own QPs). Under the CQ's lock.
 */
static int vroce_uwq_flush(struct vroce_qp *qp, struct vroce_uwq *wq, bool rq,
			   struct ibv_wc *wc, int max)
{
	const uint8_t *slot;
	uint64_t wr_id;
	int n = 0;

	if (!wq->ring)
		return 0;	/* the receives of an SRQ */
	pthread_spin_lock(&wq->lock);
	for (; n < max && wq->ci != wq->pi; n++, wq->ci++) {
		slot = wq->ring + (size_t)(wq->ci & ((1U << wq->log2) - 1)) *
				  wq->entry_size;
		wr_id = rq ? ((const struct vroce_recv_wqe *)slot)->wr_id :
			     ((const struct vroce_send_wqe *)slot)->wr_id;
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = le64toh(wr_id);
		wc[n].status = IBV_WC_WR_FLUSH_ERR;
		wc[n].vendor_err = VROCE_CQE_WR_FLUSH_ERR;
		wc[n].opcode = rq ? IBV_WC_RECV : IBV_WC_SEND;
		wc[n].qp_num = qp->vqp.qp.qp_num;
	}
	pthread_spin_unlock(&wq->lock);
	if (n)
		__atomic_store_n(&qp->hw_err, true, __ATOMIC_RELAXED);
	return n;
}

static int vroce_srq_flush(struct ibv_srq *ibsrq, uint32_t qpn,
			   struct ibv_wc *wc, int max);

/*
 * vroce_uwq_flush() of every queue completing to @cq, and the receives
 * still posted in a mapped SRQ of one of its QPs; under cq->lock.
 */
static int vroce_cq_flush(struct vroce_context *ctx, struct vroce_cq *cq,
			  struct ibv_wc *wc, int max)
{
	struct vroce_qp *qp;
	uint32_t qpn;
	int n = 0;

	for (qpn = 0; qpn < VROCE_QPN_TABLE && n < max; qpn++) {
		/* destroy_qp takes it out, then waits for cq->lock. */
		qp = __atomic_load_n(&ctx->qp_table[qpn], __ATOMIC_ACQUIRE);
		if (!qp)
			continue;
		if (qp->vqp.qp.send_cq == &cq->vcq.cq)
			n += vroce_uwq_flush(qp, &qp->sq, false, wc + n, max - n);
		if (n < max && qp->vqp.qp.recv_cq == &cq->vcq.cq)
			n += qp->vqp.qp.srq ?
			     vroce_srq_flush(qp->vqp.qp.srq, qpn, wc + n,
					     max - n) :
			     vroce_uwq_flush(qp, &qp->rq, true, wc + n, max - n);
	}
	return n;
}

/*
 * Up to @ne completions of a mapped CQ, no system call: the CQEs the HCA
 * wrote, then, once the device is dead, the software flush of what it
 * never will. 0 while a resize is out; -EIO for a broken CQ.
 */
static int vroce_poll_mapped(struct vroce_cq *cq, int ne, struct ibv_wc *wc)
{
	struct vroce_context *ctx = to_vctx(cq->vcq.cq.context);
	struct vroce_cqe *cqe;
	uint32_t start;
	bool fatal;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	/* The HCA copies the CQEs from the record's ci: none is taken now. */
	if (cq->resizing) {
		pthread_spin_unlock(&cq->lock);
		return 0;
	}
	/* Before the ring: the HCA wrote its last CQE before the flag. */
	fatal = vroce_cq_fatal(ctx, cq);
	if (!cq->broken) {
		start = cq->ci;
		while (n < ne) {
			cqe = vroce_cqe_written(cq, cq->ci);
			if (!cqe)
				break;
			cq->ci++;
			if (vroce_cqe_to_wc(ctx, cq, cqe, &wc[n]))
				n++;
		}
		/* The slots go back to the HCA once read: the reads first. */
		if (cq->ci != start)
			__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci),
					 __ATOMIC_RELEASE);
	}
	if (fatal)
		n += vroce_cq_flush(ctx, cq, wc + n, ne - n);
	else if (cq->broken)
		n = -EIO;
	pthread_spin_unlock(&cq->lock);
	return n;
}

static int vroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct vroce_cq *cq = container_of(ibcq, struct vroce_cq, vcq.cq);

	if (!cq->mapped)
		return ibv_cmd_poll_cq(ibcq, ne, wc);
	return vroce_poll_mapped(cq, ne, wc);
}

/*
 * Arming: the request goes into the record's arm word (for the reader of
 * a dump; the HCA takes the arm from REQ_NOTIFY_CQ's doorbell), then the
 * system call. A CQE the HCA wrote before the arm raises no event: as
 * with every verbs provider, the consumer polls again after arming.
 */
static int vroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct vroce_cq *cq = container_of(ibcq, struct vroce_cq, vcq.cq);
	uint32_t old, arm = htole32(solicited_only ? 2 : 1);
	uint32_t keep = htole32(VROCE_CQ_DBREC_FATAL);

	/* The kernel's VROCE_CQ_DBREC_FATAL stays. */
	if (cq->mapped) {
		old = __atomic_load_n(&cq->dbrec->arm, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&cq->dbrec->arm, &old,
						    (old & keep) | arm, false,
						    __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * Pollers skip what @cq still holds of QP @qpn (destroyed or reset). A
 * resize out is waited for: the CQEs move to the new ring meanwhile.
 */
static void vroce_cq_clean(struct vroce_cq *cq, uint32_t qpn)
{
	struct vroce_cqe *cqe;
	uint32_t n;

	if (!cq->mapped)
		return;
	pthread_mutex_lock(&cq->resize_lock);
	pthread_spin_lock(&cq->lock);
	if (cq->broken)
		goto out;	/* its rings are read no more */
	for (n = cq->ci; n - cq->ci < (1U << cq->log2); n++) {
		cqe = vroce_cqe_written(cq, n);
		if (!cqe)
			break;
		if (le32toh(cqe->qpn) == qpn)
			cqe->qpn = 0;
	}
out:
	pthread_spin_unlock(&cq->lock);
	pthread_mutex_unlock(&cq->resize_lock);
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
	int n = cq->mapped ? vroce_poll_mapped(cq, 1, &cq->wc) :
			     ibv_cmd_poll_cq(&cq->vcq.cq, 1, &cq->wc);

	if (n < 0)
		return cq->mapped ? -n : (errno ? errno : EIO);
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
	struct vroce_context *ctx = to_vctx(pd->context);
	struct vroce_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	/*
	 * issue 31: rings and record in this process's memory when the
	 * kernel maps and the CQs are mapped; not for what it refuses.
	 */
	if (ctx->map_wq && attr->send_cq && attr->recv_cq &&
	    container_of(attr->send_cq, struct vroce_cq, vcq.cq)->mapped &&
	    container_of(attr->recv_cq, struct vroce_cq, vcq.cq)->mapped &&
	    (attr->qp_type == IBV_QPT_RC || attr->qp_type == IBV_QPT_UC ||
	     attr->qp_type == IBV_QPT_UD) &&
	    attr->cap.max_send_wr <= (1U << VROCE_MAX_WQ_DEPTH_LOG2) &&
	    (attr->srq || attr->cap.max_recv_wr <= (1U << VROCE_MAX_WQ_DEPTH_LOG2))) {
		qp->mapped = true;
		qp->sq.entry_size = VROCE_SEND_WQE_SIZE;
		qp->sq.log2 = __builtin_ctz(vroce_ring_depth(attr->cap.max_send_wr));
		qp->sq.ring = vroce_ring_alloc(ctx, 1U << qp->sq.log2, VROCE_SEND_WQE_SIZE);
		if (!qp->sq.ring)
			goto err;
		if (!attr->srq) {
			qp->rq.entry_size = VROCE_RECV_WQE_SIZE;
			qp->rq.log2 = __builtin_ctz(vroce_ring_depth(attr->cap.max_recv_wr));
			qp->rq.ring = vroce_ring_alloc(ctx, 1U << qp->rq.log2, VROCE_RECV_WQE_SIZE);
			if (!qp->rq.ring)
				goto err;
			cmd.drv.rq_buf_addr = (uintptr_t)qp->rq.ring;
			cmd.drv.rq_depth = 1U << qp->rq.log2;
		}
		qp->dbrec = vroce_dbrec_alloc(ctx);
		if (!qp->dbrec)
			goto err;
		cmd.drv.comp_mask = VROCE_CREATE_QP_MAPPED;
		cmd.drv.sq_buf_addr = (uintptr_t)qp->sq.ring;
		cmd.drv.sq_depth = 1U << qp->sq.log2;
		cmd.drv.dbrec_addr = (uintptr_t)qp->dbrec;
		qp->sq_sig_all = attr->sq_sig_all;
	}
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err;
	}
	qp->sq_depth = resp.drv.sq_depth;
	qp->rq_depth = resp.drv.rq_depth;
	if (qp->mapped) {
		pthread_mutex_lock(&ctx->qp_lock);
		if (qp->vqp.qp.qp_num < VROCE_QPN_TABLE)
			__atomic_store_n(&ctx->qp_table[qp->vqp.qp.qp_num], qp,
					 __ATOMIC_RELEASE);
		pthread_mutex_unlock(&ctx->qp_lock);
	}
	return &qp->vqp.qp;

err:
	ret = errno;
	vroce_dbrec_free(ctx, qp->dbrec);
	vroce_ring_free(ctx, qp->rq.ring, 1U << qp->rq.log2, VROCE_RECV_WQE_SIZE);
	vroce_ring_free(ctx, qp->sq.ring, 1U << qp->sq.log2, VROCE_SEND_WQE_SIZE);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
	errno = ret;
	return NULL;
}

/* ---- issue 31: posting to a mapped QP ---- */

/* Every CQE of @qp in its CQs is skipped from now on. */
static void vroce_qp_clean_cqs(struct vroce_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	vroce_cq_clean(container_of(ibqp->send_cq, struct vroce_cq, vcq.cq),
		       ibqp->qp_num);
	if (ibqp->recv_cq != ibqp->send_cq)
		vroce_cq_clean(container_of(ibqp->recv_cq, struct vroce_cq,
					    vcq.cq), ibqp->qp_num);
}

struct vroce_ah {
	struct ibv_ah ibah;
	bool has_av;
	struct vroce_wqe_av av;
};

static void vroce_wqe_sges(struct vroce_wqe_sge *dst, const struct ibv_sge *src,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
}

/*
 * A receive WQE of a mapped RQ or SRQ from @wr, whose num_sge the caller
 * checked; the SRQ's srq_done mark (0 from the memset) tells the HCA the
 * slot is posted.
 */
static void vroce_recv_wqe_fill(struct vroce_recv_wqe *wqe,
				const struct ibv_recv_wr *wr)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->num_sge = wr->num_sge;
	vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
}

/*
 * What a UC QP may post (IBTA): SEND and RDMA WRITE, with or without imm,
 * and the window work requests.
 */
static bool vroce_uc_ok(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
	       op == IBV_WR_BIND_MW || op == IBV_WR_LOCAL_INV;
}

/* The window rights are the HCA's VROCE_ACC_* bits (c/ifc/vroce_cmds.h). */
static_assert(IBV_ACCESS_LOCAL_WRITE == VROCE_ACC_LOCAL_WRITE, "acc");
static_assert(IBV_ACCESS_REMOTE_WRITE == VROCE_ACC_REMOTE_WRITE, "acc");
static_assert(IBV_ACCESS_REMOTE_READ == VROCE_ACC_REMOTE_READ, "acc");
static_assert(IBV_ACCESS_REMOTE_ATOMIC == VROCE_ACC_REMOTE_ATOMIC, "acc");
#define VROCE_MW_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * issue 30: a BIND_MW. The HCA checks the binding rules (IBTA C10-72..75)
 * and completes a refused one with IBV_WC_MW_BIND_ERR; here only what
 * the WQE cannot carry: zero-based windows, unknown rights, a range with
 * no MR, a new key of another window.
 */
static int vroce_wqe_bind(struct vroce_send_wqe *wqe,
			  const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	if (!wr->bind_mw.mw || (bi->mw_access_flags & ~VROCE_MW_ACCESS) ||
	    (bi->length && !bi->mr) ||
	    ((wr->bind_mw.rkey ^ wr->bind_mw.mw->rkey) & ~0xffU))
		return EINVAL;
	wqe->fr_key = htole32(wr->bind_mw.rkey);
	wqe->fr_iova = htole64(bi->addr);
	wqe->fr_length = htole64(bi->length);
	wqe->fr_access = htole32(bi->mw_access_flags);
	wqe->bind.mr_key = htole32(bi->mr ? bi->mr->lkey : 0);
	return 0;
}

/* Write @wr as a send WQE into @wqe; EINVAL for what the HCA cannot do. */
static int vroce_wqe_build(struct vroce_qp *qp, struct vroce_send_wqe *wqe,
			   const struct ibv_send_wr *wr)
{
	enum ibv_qp_type type = qp->vqp.qp.qp_type;
	uint32_t len = 0;
	uint8_t op;
	int i;

	switch (wr->opcode) {
	case IBV_WR_SEND:
		op = VROCE_WQE_SEND;
		break;
	case IBV_WR_SEND_WITH_IMM:
		op = VROCE_WQE_SEND_IMM;
		break;
	case IBV_WR_SEND_WITH_INV:
		op = VROCE_WQE_SEND_INV;
		break;
	case IBV_WR_RDMA_WRITE:
		op = VROCE_WQE_WRITE;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		op = VROCE_WQE_WRITE_IMM;
		break;
	case IBV_WR_RDMA_READ:
		op = VROCE_WQE_READ;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		op = VROCE_WQE_ATOMIC_CMP_SWP;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		op = VROCE_WQE_ATOMIC_FETCH_ADD;
		break;
	case IBV_WR_LOCAL_INV:
		op = VROCE_WQE_LOCAL_INV;
		break;
	case IBV_WR_BIND_MW:
		op = VROCE_WQE_BIND_MW;
		break;
	default:
		return EINVAL;
	}
	if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_SEND_SGE)
		return EINVAL;
	/* ibv_wr_atomic_write(): a FETCH_AND_ADD so flagged (vroce-abi.h). */
	if (wr->send_flags & VROCE_SEND_ATOMIC_WRITE) {
		if (op != VROCE_WQE_ATOMIC_FETCH_ADD)
			return EINVAL;
		op = VROCE_WQE_ATOMIC_WRITE;
	}
	if (type == IBV_QPT_UC && !vroce_uc_ok(wr->opcode))
		return EINVAL;
	if (type == IBV_QPT_UD && op != VROCE_WQE_SEND &&
	    op != VROCE_WQE_SEND_IMM)
		return EINVAL;
	if (op >= VROCE_WQE_ATOMIC_CMP_SWP && op <= VROCE_WQE_ATOMIC_WRITE &&
	    type != IBV_QPT_RC)
		return EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->opcode = op;
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		wqe->flags |= VROCE_WQE_F_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		wqe->flags |= VROCE_WQE_F_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		wqe->flags |= VROCE_WQE_F_FENCE;
	if (type == IBV_QPT_UD) {
		struct vroce_ah *ah = wr->wr.ud.ah ?
			container_of(wr->wr.ud.ah, struct vroce_ah, ibah) : NULL;

		if (!ah || !ah->has_av || wr->wr.ud.remote_qpn > 0xffffff)
			return EINVAL;
		memcpy(&wqe->av, &ah->av, sizeof(wqe->av));
		wqe->av.dest_qpn = htole32(wr->wr.ud.remote_qpn);
		wqe->av.qkey = htole32(wr->wr.ud.remote_qkey);
	}
	switch (op) {
	case VROCE_WQE_LOCAL_INV:
		wqe->imm_inv = htole32(wr->invalidate_rkey);
		return 0;
	case VROCE_WQE_BIND_MW:
		return vroce_wqe_bind(wqe, wr);
	case VROCE_WQE_SEND_INV:
		wqe->imm_inv = htole32(wr->invalidate_rkey);
		break;
	case VROCE_WQE_SEND_IMM:
	case VROCE_WQE_WRITE_IMM:
		wqe->imm_inv = wr->imm_data;	/* as posted: big endian */
		break;
	case VROCE_WQE_WRITE:
	case VROCE_WQE_READ:
		break;
	case VROCE_WQE_ATOMIC_WRITE:
		/* The 8 bytes in memory order, carried inline. */
		wqe->remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->rkey = htole32(wr->wr.atomic.rkey);
		memcpy(wqe->inline_data, &wr->wr.atomic.swap, sizeof(uint64_t));
		wqe->inline_len = htole32(sizeof(uint64_t));
		wqe->flags |= VROCE_WQE_F_INLINE;
		return 0;
	case VROCE_WQE_ATOMIC_CMP_SWP:
	case VROCE_WQE_ATOMIC_FETCH_ADD:
		if (wr->send_flags & IBV_SEND_INLINE)
			return EINVAL;
		wqe->remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->rkey = htole32(wr->wr.atomic.rkey);
		wqe->atomic_cmp_add = htole64(wr->wr.atomic.compare_add);
		wqe->atomic_swap = htole64(wr->wr.atomic.swap);
		wqe->num_sge = wr->num_sge;
		vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
		return 0;
	}
	if (op == VROCE_WQE_WRITE || op == VROCE_WQE_WRITE_IMM ||
	    op == VROCE_WQE_READ) {
		wqe->remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->rkey = htole32(wr->wr.rdma.rkey);
	}
	if ((wr->send_flags & IBV_SEND_INLINE) && op != VROCE_WQE_READ) {
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > VROCE_MAX_INLINE - len)
				return EINVAL;
			memcpy(wqe->inline_data + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		wqe->flags |= VROCE_WQE_F_INLINE;
		wqe->inline_len = htole32(len);
		return 0;
	}
	wqe->num_sge = wr->num_sge;
	vroce_wqe_sges(wqe->sge, wr->sg_list, wr->num_sge);
	return 0;
}

/*
 * The send doorbell: uverbs POST_SEND with no work request (as rxe's),
 * once per batch; the HCA takes the producer index from the record.
 */
static int vroce_sq_doorbell(struct vroce_qp *qp)
{
	struct ibv_send_wr *bad;
	int ret = ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);

	/*
	 * EIO: the device is dead and its HCA reset (or gone): the WQEs are
	 * posted and complete in software, flushed by the pollers
	 * (vroce_poll_mapped()), as a kernel QP's (review of issue 31).
	 */
	if (ret == EIO) {
		vroce_set_fatal(to_vctx(qp->vqp.qp.context));
		return 0;
	}
	return ret;
}

/*
 * Post @wr's chain into a mapped SQ: WQEs, a release fence, the record's
 * sq_pi, one doorbell. @all: a failed request posts none of the chain
 * (ibv_wr_complete()); else those before it are posted (ibv_post_send()).
 */
static int vroce_post_send_mapped(struct vroce_qp *qp, struct ibv_send_wr *wr,
				  struct ibv_send_wr **bad_wr, bool all)
{
	struct vroce_uwq *sq = &qp->sq;
	struct ibv_send_wr *first = wr;
	enum ibv_qp_state state = qp->vqp.qp.state;
	uint32_t start;
	int err = 0, db;

	/* As the kernel's post_send: RTS, or ERR (where WQEs are flushed). */
	if (state != IBV_QPS_RTS && state != IBV_QPS_ERR) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&sq->lock);
	start = sq->pi;
	for (; wr; wr = wr->next) {
		if (sq->pi - sq->ci >= (1U << sq->log2)) {
			err = ENOMEM;
			break;
		}
		err = vroce_wqe_build(qp, (struct vroce_send_wqe *)
				      (sq->ring + (size_t)(sq->pi &
					((1U << sq->log2) - 1)) *
				       VROCE_SEND_WQE_SIZE), wr);
		if (err)
			break;
		sq->pi++;
	}
	if (err && all) {
		sq->pi = start;
		wr = first;
	}
	if (sq->pi != start) {
		/* The WQEs before the index that publishes them. */
		__atomic_store_n(&qp->dbrec->sq_pi, htole32(sq->pi),
				 __ATOMIC_RELEASE);
	}
	db = sq->pi != start;
	pthread_spin_unlock(&sq->lock);
	if (db) {
		int ret = vroce_sq_doorbell(qp);

		if (!err && ret) {
			err = ret;
			wr = NULL;
		}
	}
	if (err)
		*bad_wr = wr ? wr : first;
	return err;
}

static int vroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	struct vroce_qp *qp = container_of(ibqp, struct vroce_qp, vqp.qp);

	if (!qp->mapped)
		return ibv_cmd_post_send(ibqp, wr, bad_wr);
	return vroce_post_send_mapped(qp, wr, bad_wr, false);
}

/* Receives into a mapped RQ: WQEs, a release fence, rq_pi; no system call. */
static int vroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	struct vroce_qp *qp = container_of(ibqp, struct vroce_qp, vqp.qp);
	struct vroce_uwq *rq = &qp->rq;
	struct vroce_recv_wqe *wqe;
	uint32_t start;
	int err = 0, db;

	if (!qp->mapped)
		return ibv_cmd_post_recv(ibqp, wr, bad_wr);
	/* Its receives are the SRQ's; none in RESET, as the kernel's. */
	if (!rq->ring || qp->vqp.qp.state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&rq->lock);
	start = rq->pi;
	for (; wr; wr = wr->next) {
		if (rq->pi - rq->ci >= (1U << rq->log2)) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_RECV_SGE) {
			err = EINVAL;
			break;
		}
		wqe = (struct vroce_recv_wqe *)(rq->ring + (size_t)(rq->pi &
			((1U << rq->log2) - 1)) * VROCE_RECV_WQE_SIZE);
		vroce_recv_wqe_fill(wqe, wr);
		rq->pi++;
	}
	if (rq->pi != start)
		__atomic_store_n(&qp->dbrec->rq_pi, htole32(rq->pi),
				 __ATOMIC_RELEASE);
	db = rq->pi != start;
	pthread_spin_unlock(&rq->lock);
	/*
	 * In ERR the receives must complete with a flush error (a drain of
	 * the RQ waits for that), but the HCA reads rq_pi only when a
	 * message needs a receive or the QP's work runs: the send doorbell
	 * makes it run, and its visit flushes the RQ (review of issue 31).
	 */
	if (db && (qp->vqp.qp.state == IBV_QPS_ERR ||
		   __atomic_load_n(&qp->hw_err, __ATOMIC_RELAXED)))
		(void)vroce_sq_doorbell(qp);	/* the WQEs are posted anyway */
	if (err)
		*bad_wr = wr;
	return err;
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
 * With the memory windows of issue 30: bind, local invalidate and
 * send-with-invalidate (of the peer's type 2 windows).
 */
#define VROCE_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			IBV_QP_EX_WITH_RDMA_WRITE |				\
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			IBV_QP_EX_WITH_RDMA_READ |				\
			VROCE_SEND_OPS_ATOMIC | VROCE_SEND_OPS_MW)
#define VROCE_SEND_OPS_MW (IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV | \
			   IBV_QP_EX_WITH_SEND_WITH_INV)
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

/* issue 30: the window work requests of the ibv_wr_*() API. */
static void vroce_wr_send_inv(struct ibv_qp_ex *qp_ex, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void vroce_wr_local_inv(struct ibv_qp_ex *qp_ex,
			       uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, IBV_WR_LOCAL_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void vroce_wr_bind_mw(struct ibv_qp_ex *qp_ex, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = vroce_wr_new(qp_ex, IBV_WR_BIND_MW);

	if (!wr)
		return;
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
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
		/* issue 31: all or nothing, one doorbell. */
		ret = qp->mapped ?
		      vroce_post_send_mapped(qp, qp->wrs, &bad, true) :
		      ibv_cmd_post_send(&qp->vqp.qp, qp->wrs, &bad);
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
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qp_ex->wr_send_inv = vroce_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qp_ex->wr_local_inv = vroce_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qp_ex->wr_bind_mw = vroce_wr_bind_mw;
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
	struct vroce_qp *vqp = container_of(qp, struct vroce_qp, vqp.qp);
	struct ibv_modify_qp cmd = { 0 };
	int ret;

	ret = ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
	/*
	 * issue 31: RESET forgets the queues' progress, in the HCA and here:
	 * the counts and the record start again from 0, and the CQEs left
	 * of the QP are skipped (as the kernel cleans its own rings).
	 */
	if (!ret && vqp->mapped && (attr_mask & IBV_QP_STATE) &&
	    attr->qp_state == IBV_QPS_RESET) {
		vroce_qp_clean_cqs(vqp);
		pthread_spin_lock(&vqp->sq.lock);
		vqp->sq.pi = 0;
		vqp->sq.ci = 0;
		__atomic_store_n(&vqp->dbrec->sq_pi, 0, __ATOMIC_RELEASE);
		pthread_spin_unlock(&vqp->sq.lock);
		pthread_spin_lock(&vqp->rq.lock);
		vqp->rq.pi = 0;
		vqp->rq.ci = 0;
		__atomic_store_n(&vqp->dbrec->rq_pi, 0, __ATOMIC_RELEASE);
		pthread_spin_unlock(&vqp->rq.lock);
		__atomic_store_n(&vqp->hw_err, false, __ATOMIC_RELAXED);
	}
	return ret;
}

static int vroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct vroce_qp *qp = container_of(ibqp, struct vroce_qp, vqp.qp);
	struct vroce_context *ctx = to_vctx(ibqp->context);
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	/*
	 * issue 31: out of the table, then its CQEs cleaned under each CQ's
	 * lock (a poller that found it is done), then the rings, which the
	 * kernel unpinned once the HCA let go of them.
	 */
	if (qp->mapped) {
		pthread_mutex_lock(&ctx->qp_lock);
		if (ibqp->qp_num < VROCE_QPN_TABLE &&
		    ctx->qp_table[ibqp->qp_num] == qp)
			__atomic_store_n(&ctx->qp_table[ibqp->qp_num], NULL,
					 __ATOMIC_RELEASE);
		pthread_mutex_unlock(&ctx->qp_lock);
		vroce_qp_clean_cqs(qp);
		vroce_dbrec_free(ctx, qp->dbrec);
		vroce_ring_free(ctx, qp->rq.ring, 1U << qp->rq.log2, VROCE_RECV_WQE_SIZE);
		vroce_ring_free(ctx, qp->sq.ring, 1U << qp->sq.log2, VROCE_SEND_WQE_SIZE);
	}
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
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
	/*
	 * issue 31: a mapped SRQ: the provider writes receive WQEs at @pi
	 * into slots the HCA marked taken (srq_done) and publishes @pi in
	 * @dbrec; under @lock.
	 */
	bool mapped;
	pthread_spinlock_t lock;
	struct vroce_recv_wqe *ring;
	uint32_t log2;
	uint32_t pi;
	struct vroce_srq_dbrec *dbrec;
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
	struct vroce_context *ctx = to_vctx(pd->context);
	uint32_t i, depth = 0;
	int ret;

	if (!srq)
		return NULL;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	/* issue 31: every slot marked free (srq_done) before the HCA sees it. */
	if (ctx->map_wq && attr->attr.max_wr &&
	    attr->attr.max_wr <= (1U << VROCE_MAX_WQ_DEPTH_LOG2)) {
		depth = vroce_ring_depth(attr->attr.max_wr);
		srq->ring = vroce_ring_alloc(ctx, depth, VROCE_RECV_WQE_SIZE);
		srq->dbrec = srq->ring ? vroce_dbrec_alloc(ctx) : NULL;
		if (!srq->dbrec)
			goto err;
		for (i = 0; i < depth; i++)
			srq->ring[i].srq_done = 1;
		srq->log2 = __builtin_ctz(depth);
		cmd.drv.comp_mask = VROCE_CREATE_SRQ_MAPPED;
		cmd.drv.buf_addr = (uintptr_t)srq->ring;
		cmd.drv.dbrec_addr = (uintptr_t)srq->dbrec;
		cmd.drv.depth = depth;
	}
	ret = ibv_cmd_create_srq(pd, &srq->ibsrq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err;
	}
	srq->srqn = resp.drv.srqn;
	srq->depth = resp.drv.depth;
	srq->mapped = !!depth;
	return &srq->ibsrq;

err:
	ret = errno;
	vroce_dbrec_free(ctx, srq->dbrec);
	vroce_ring_free(ctx, srq->ring, depth, VROCE_RECV_WQE_SIZE);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * issue 31: receives into a mapped SRQ, no system call. The HCA takes
 * WQEs in ring order and marks each taken (srq_done): the slot at @pi is
 * free once marked; the WQEs, a release fence, then the record's pi.
 */
static int vroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	struct vroce_srq *srq = container_of(ibsrq, struct vroce_srq, ibsrq);
	struct vroce_recv_wqe *wqe;
	uint32_t start;
	int err = 0;

	if (!srq->mapped)
		return ibv_cmd_post_srq_recv(ibsrq, wr, bad_wr);
	pthread_spin_lock(&srq->lock);
	start = srq->pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > VROCE_MAX_RECV_SGE) {
			err = EINVAL;
			break;
		}
		wqe = &srq->ring[srq->pi & ((1U << srq->log2) - 1)];
		/* Taken in order: a slot still posted means all are. */
		if (!__atomic_load_n(&wqe->srq_done, __ATOMIC_ACQUIRE)) {
			err = ENOMEM;
			break;
		}
		vroce_recv_wqe_fill(wqe, wr);
		srq->pi++;
	}
	if (srq->pi != start)
		__atomic_store_n(&srq->dbrec->pi, htole32(srq->pi),
				 __ATOMIC_RELEASE);
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * A dead device's receives still posted in a mapped SRQ (not marked
 * srq_done): IBV_WC_WR_FLUSH_ERR each, in ring order, in the CQ of the
 * first of its QPs polled (@qpn), once: each is marked taken. Under that
 * CQ's lock (its QP keeps the SRQ: destroy_srq is EBUSY meanwhile).
 */
static int vroce_srq_flush(struct ibv_srq *ibsrq, uint32_t qpn,
			   struct ibv_wc *wc, int max)
{
	struct vroce_srq *srq = container_of(ibsrq, struct vroce_srq, ibsrq);
	uint32_t depth = 1U << srq->log2, i;
	struct vroce_recv_wqe *wqe;
	int n = 0;

	if (!srq->mapped)
		return 0;
	pthread_spin_lock(&srq->lock);
	/* The slots posted last, oldest first: the HCA takes them in order. */
	for (i = srq->pi - depth; i != srq->pi && n < max; i++) {
		wqe = &srq->ring[i & (depth - 1)];
		if (__atomic_load_n(&wqe->srq_done, __ATOMIC_ACQUIRE))
			continue;
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = le64toh(wqe->wr_id);
		wc[n].status = IBV_WC_WR_FLUSH_ERR;
		wc[n].vendor_err = VROCE_CQE_WR_FLUSH_ERR;
		wc[n].opcode = IBV_WC_RECV;
		wc[n].qp_num = qpn;
		__atomic_store_n(&wqe->srq_done, 1, __ATOMIC_RELEASE);
		n++;
	}
	pthread_spin_unlock(&srq->lock);
	return n;
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
	struct vroce_context *ctx = to_vctx(ibsrq->context);
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	/* The kernel unpinned them: the HCA confirmed the destroy. */
	if (srq->mapped) {
		vroce_dbrec_free(ctx, srq->dbrec);
		vroce_ring_free(ctx, srq->ring, 1U << srq->log2,
				VROCE_RECV_WQE_SIZE);
	}
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

static void vroce_free_context(struct ibv_context *ibctx)
{
	struct vroce_context *ctx = container_of(ibctx, struct vroce_context,
						 ibv_ctx.context);
	struct vroce_dbrec_page *p;

	while ((p = ctx->dbrec_pages)) {
		ctx->dbrec_pages = p->next;
		vroce_pages_free(p->page, ctx->page_size);
		free(p);
	}
	pthread_mutex_destroy(&ctx->dbrec_lock);
	pthread_mutex_destroy(&ctx->qp_lock);
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
	struct {
		struct ib_uverbs_create_ah_resp ibv_resp;
		struct vroce_create_ah_resp drv;
	} resp = { 0 };
	struct vroce_ah *ah = calloc(1, sizeof(*ah));
	int ret;

	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	/* issue 31: the vector a mapped UD QP's WQEs carry. */
	if (resp.drv.comp_mask & VROCE_CREATE_AH_AV) {
		memcpy(&ah->av, resp.drv.av, sizeof(ah->av));
		ah->has_av = true;
	}
	return &ah->ibah;
}

static int vroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(container_of(ibah, struct vroce_ah, ibah));
	return 0;
}

/*
 * issue 30, cq/counters: the CQ's ring is the kernel's; no driver data.
 * issue 31: a mapped CQ's new ring is this process's: the HCA copies the
 * CQEs not consumed to its start and sets the record's ci to 0; pollers
 * find nothing meanwhile (@resizing; no thread spins across the system
 * call) and start again from 0 on the new ring.
 * Review of issue 31: an error other than ETIMEDOUT means the HCA kept
 * the old ring (the kernel's checks, the HCA's refusal, no command slot)
 * or, EIO, is dead and reset; ETIMEDOUT means its answer was lost and it
 * may write either ring: the CQ is broken (vroce_poll_mapped()). The
 * ring given back is unmapped, never handed to malloc() (vroce_pages_alloc()).
 */
static int vroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct vroce_cq *cq = container_of(ibcq, struct vroce_cq, vcq.cq);
	struct vroce_context *ctx = to_vctx(ibcq->context);
	struct ib_uverbs_resize_cq_resp resp;
	struct {
		struct ibv_resize_cq ibv_cmd;
		struct vroce_resize_cq drv;
	} mcmd = { 0 };
	struct ibv_resize_cq cmd;
	uint32_t depth, old_depth;
	void *ring, *old;
	int ret;

	if (!cq->mapped)
		return ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp,
					 sizeof(resp));
	if (cqe < 1 || cqe > (1 << VROCE_MAX_CQ_DEPTH_LOG2))
		return EINVAL;
	pthread_mutex_lock(&cq->resize_lock);
	if (cq->broken) {
		ret = EIO;
		goto out_unlock;
	}
	depth = vroce_ring_depth(cqe);
	ring = vroce_ring_alloc(ctx, depth, VROCE_CQE_SIZE);
	if (!ring) {
		ret = errno;
		goto out_unlock;
	}
	mcmd.drv.comp_mask = VROCE_RESIZE_CQ_MAPPED;
	mcmd.drv.buf_addr = (uintptr_t)ring;
	mcmd.drv.depth = depth;
	/* The record's ci is the pollers' last: the HCA copies from it. */
	pthread_spin_lock(&cq->lock);
	cq->resizing = true;
	pthread_spin_unlock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &mcmd.ibv_cmd, sizeof(mcmd), &resp,
				sizeof(resp));
	pthread_spin_lock(&cq->lock);
	if (!ret) {
		/* The kernel unpinned the old ring: the HCA let go of it. */
		old = cq->ring;
		old_depth = 1U << cq->log2;
		cq->ring = ring;
		cq->log2 = __builtin_ctz(depth);
		cq->ci = 0;
		ring = old;
		depth = old_depth;
	} else if (ret == ETIMEDOUT) {
		cq->broken = true;
	}
	cq->resizing = false;
	pthread_spin_unlock(&cq->lock);
	if (ret == EIO)
		vroce_set_fatal(ctx);
	/* The old ring, or the new one the kernel unpinned or parked. */
	vroce_ring_free(ctx, ring, depth, VROCE_CQE_SIZE);
out_unlock:
	pthread_mutex_unlock(&cq->resize_lock);
	return ret;
}

/* IBV_EVENT_DEVICE_FATAL, as ibv_get_async_event() returns it: latched. */
static void vroce_async_event(struct ibv_context *context,
			      struct ibv_async_event *event)
{
	if (event->event_type == IBV_EVENT_DEVICE_FATAL)
		vroce_set_fatal(to_vctx(context));
}

/* ---- issue 30: memory windows ---- */

static struct ibv_mw *vroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int vroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

/*
 * ibv_bind_mw() of a type 1 window (libibverbs checked the type and the
 * PDs): a BIND_MW through the mapped send queue under the next key, which
 * is the window's from now on. A QP on the command path cannot carry it
 * (uverbs' POST_SEND has no bind).
 */
static int vroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
			 struct ibv_mw_bind *mw_bind)
{
	struct vroce_qp *qp = container_of(ibqp, struct vroce_qp, vqp.qp);
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	if (!qp->mapped)
		return EOPNOTSUPP;
	ret = vroce_post_send_mapped(qp, &wr, &bad, true);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

static const struct verbs_context_ops vroce_ctx_ops = {
	.query_device_ex = vroce_query_device_ex,
	.query_port = vroce_query_port,
	.alloc_pd = vroce_alloc_pd,
	.dealloc_pd = vroce_dealloc_pd,
	.reg_mr = vroce_reg_mr,
	.dereg_mr = vroce_dereg_mr,
	.advise_mr = vroce_advise_mr,
	/* issue 30, rereg_mr */
	.rereg_mr = vroce_rereg_mr,
	.create_cq = vroce_create_cq,
	.create_cq_ex = vroce_create_cq_ex,
	.poll_cq = vroce_poll_cq,
	.req_notify_cq = vroce_req_notify_cq,
	.destroy_cq = vroce_destroy_cq,
	.create_qp = vroce_create_qp,
	.create_qp_ex = vroce_create_qp_ex,
	.query_qp = vroce_query_qp,
	.modify_qp = vroce_modify_qp,
	.destroy_qp = vroce_destroy_qp,
	.post_send = vroce_post_send,
	.post_recv = vroce_post_recv,
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
	.post_srq_recv = vroce_post_srq_recv,
	.free_context = vroce_free_context,
	/* issue 30, cq/counters */
	.resize_cq = vroce_resize_cq,
	/* review of issue 31: the fatal state */
	.async_event = vroce_async_event,
	/* issue 30, memory windows */
	.alloc_mw = vroce_alloc_mw,
	.dealloc_mw = vroce_dealloc_mw,
	.bind_mw = vroce_bind_mw,
};

static struct verbs_context *vroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct {
		struct ib_uverbs_get_context_resp ibv_resp;
		struct vroce_alloc_ucontext_resp drv;
	} resp = { 0 };
	struct ibv_get_context cmd;
	struct vroce_context *ctx;
	const char *no_map;
	long page_size;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct vroce_context *)NULL)->ibv_ctx,
					    0 /* RDMA_DRIVER_UNKNOWN */);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		return NULL;
	}
	pthread_mutex_init(&ctx->dbrec_lock, NULL);
	pthread_mutex_init(&ctx->qp_lock, NULL);
	/* The kernel's PAGE_SIZE (c/uapi/vroce-abi.h), at least a record's. */
	page_size = sysconf(_SC_PAGESIZE);
	ctx->page_size = page_size > 0 ? (size_t)page_size : 0;
	/*
	 * issue 31: map what the kernel says it can, with the doorbell it
	 * names; VROCE_NO_MAP=1 keeps every queue the kernel's (a fallback,
	 * and the baseline of a comparison).
	 */
	no_map = getenv("VROCE_NO_MAP");
	if ((!no_map || strcmp(no_map, "1")) &&
	    resp.drv.db_method == VROCE_DB_SYSCALL && ctx->page_size >= 4096 &&
	    !(ctx->page_size & (ctx->page_size - 1))) {
		ctx->map_cq = resp.drv.flags & VROCE_UCTX_F_MAPPED_CQ;
		ctx->map_wq = ctx->map_cq &&
			      (resp.drv.flags & VROCE_UCTX_F_MAPPED_WQ);
		ctx->fatal_rec = resp.drv.flags & VROCE_UCTX_F_FATAL_REC;
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
