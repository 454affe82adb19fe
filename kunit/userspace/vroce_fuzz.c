// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded sequence fuzzer over what a process can reach of an RDMA
 * device: random but type-correct, and deliberately malformed, sequences
 * through libibverbs and through the raw uverbs interfaces (write() of
 * legacy commands, the RDMA_VERBS_IOCTL ioctl), in the spirit of
 * syzkaller's RDMA descriptions. The kernel is the judge: run in the
 * KASAN test kernel, a splat fails the run (scripts/fuzz.sh).
 *
 * Usage: vroce_fuzz [-d DEV] [-s SEED] [-p PROCS] [-t SECONDS] [-n OPS]
 *        vroce_fuzz -g [-d DEV]
 *   Each of PROCS processes runs rounds with seeds derived from SEED (and
 *   its index) until SECONDS pass or, with -n, for OPS operations in all
 *   (a replay: the same seed and -n give the same sequence of calls).
 *   A round opens the device, makes and destroys objects in random order,
 *   modifies QPs through random transitions, posts random work requests,
 *   registers random address ranges (also memory unmapped while
 *   registered), destroys objects in use, and ends by destroying what is
 *   left, by closing the device with objects live, or (in a child) by
 *   exiting mid-sequence.
 * -g: the probe for ib_core's GET_CONTEXT leak instead: a process opens
 *   DEV, sends the RDMA_VERBS_IOCTL GET_CONTEXT a second time (refused,
 *   EINVAL) and exits; a kernel with the bug keeps its task_struct, which
 *   kmemleak then reports (scripts/fuzz.sh). Exit status 0 when the
 *   second GET_CONTEXT was refused.
 * Environment: VROCE_FUZZ_NO, operation names to leave out ("raw_ioctl
 * mr"); VROCE_FUZZ_TRACE, a file that gets one line per operation.
 * Prints the seed first; the last line: 'fuzz: N ops in S s (R ops/s) by
 * P processes, seed X, E calls refused, C processes died'. Exit status 1
 * when a fuzzing process died of a signal (a bug in user space, the
 * provider's, that the seed replays). Inline sources of IBV_SEND_INLINE
 * stay in the round's arena: the provider copies them with the CPU, and a
 * wild pointer there is the caller's fault on every provider.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "vroce_ut.h"

#define NPD	4
#define NMR	12
#define NCQ	4
#define NQP	8
#define NAH	4
#define NSGE	64
#define ARENA	(256 * 4096)

static uint64_t rng;
static const char *cur_op = "none";
static FILE *trace;	/* VROCE_FUZZ_TRACE: one line per operation */
static const char *skip_ops;	/* VROCE_FUZZ_NO: names of operations */

/* A fuzzing process that faults says where, then dies of the signal. */
static void on_fault(int sig)
{
	void *bt[32];
	int n = backtrace(bt, 32);

	dprintf(2, "fuzz: signal %d in %s\n", sig, cur_op);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t rnd(void)
{
	/* xorshift64*: the whole sequence follows from the seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* A value as fuzzers pick them: small, boundary, or anything. */
static uint64_t pick(void)
{
	static const uint64_t edge[] = {
		0, 1, 2, 7, 8, 63, 64, 255, 256, 4095, 4096, 4097, 65535,
		65536, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0xffffffffffffffffULL, 0x7fffffffffffffffULL,
		0xffff888000000000ULL, 0xffffffff81000000ULL,
	};

	switch (below(3)) {
	case 0:
		return below(16);
	case 1:
		return edge[below(ARRAY_SIZE(edge))];
	default:
		return rnd();
	}
}

struct mr_slot {
	struct ibv_mr *mr;
	void *map;		/* our own mapping, when the MR is over one */
	size_t map_len;
};

struct round {
	struct ibv_context *ctx;
	struct ibv_pd *pd[NPD];
	struct mr_slot mr[NMR];
	struct ibv_cq *cq[NCQ];
	struct ibv_qp *qp[NQP];
	struct ibv_ah *ah[NAH];
	union ibv_gid gid;
	char *arena;
	long ops, refused;
};

static void note(struct round *r, int failed)
{
	r->ops++;
	if (failed)
		r->refused++;
}

static struct ibv_pd *any_pd(struct round *r)
{
	return r->pd[below(NPD)];
}

/* An address for a registration or an SGE: ours, unmapped, or wild. */
static uint64_t any_addr(struct round *r, uint64_t *len)
{
	uint64_t a;

	switch (below(4)) {
	case 0:
	case 1:
		a = (uintptr_t)r->arena + below(ARENA);
		*len = below(3) ? below(ARENA - (a - (uintptr_t)r->arena) + 1) :
				  pick();
		return a;
	case 2:
		*len = pick();
		return pick();
	default:
		a = (uintptr_t)r->arena + below(16) * 4096;
		*len = 4096 * (1 + below(8));
		return a;
	}
}

static uint32_t any_key(struct round *r)
{
	struct ibv_mr *mr = r->mr[below(NMR)].mr;

	if (mr && below(4))
		return below(2) ? mr->lkey : mr->rkey;
	return pick();
}

static void op_pd(struct round *r)
{
	int i = below(NPD);

	if (r->pd[i]) {
		if (!ibv_dealloc_pd(r->pd[i]))
			r->pd[i] = NULL;
		else
			r->refused++;	/* in use: EBUSY */
		r->ops++;
	} else {
		r->pd[i] = ibv_alloc_pd(r->ctx);
		note(r, !r->pd[i]);
	}
}

static void op_mr(struct round *r)
{
	struct mr_slot *s = &r->mr[below(NMR)];
	struct ibv_pd *pd = any_pd(r);
	uint64_t addr, len;
	int access;

	if (s->mr) {
		note(r, ibv_dereg_mr(s->mr));
		s->mr = NULL;
		if (s->map)
			munmap(s->map, s->map_len);
		s->map = NULL;
		return;
	}
	if (!pd)
		return;
	access = below(2) ? (int)pick() :
		 (int)(IBV_ACCESS_LOCAL_WRITE | (below(2) ? IBV_ACCESS_REMOTE_WRITE : 0) |
		       (below(2) ? IBV_ACCESS_REMOTE_READ : 0));
	if (!below(4)) {
		/* Our own mapping, unmapped at once or later, registered. */
		s->map_len = 4096 * (1 + below(16));
		s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->map == MAP_FAILED) {
			s->map = NULL;
			return;
		}
		memset(s->map, 0x33, s->map_len);
		s->mr = ibv_reg_mr(pd, s->map, s->map_len, access);
		note(r, !s->mr);
		if (below(2)) {
			munmap(s->map, s->map_len);
			s->map = NULL;
		}
		return;
	}
	addr = any_addr(r, &len);
	s->mr = ibv_reg_mr(pd, (void *)(uintptr_t)addr, len, access);
	note(r, !s->mr);
}

static void op_cq(struct round *r)
{
	int i = below(NCQ);

	if (r->cq[i]) {
		if (!ibv_destroy_cq(r->cq[i]))
			r->cq[i] = NULL;
		else
			r->refused++;	/* QPs on it: EBUSY */
		r->ops++;
	} else {
		r->cq[i] = ibv_create_cq(r->ctx, below(3) ? (int)(1 + below(256)) :
					 (int)pick(), NULL, NULL, 0);
		note(r, !r->cq[i]);
	}
}

static void op_qp(struct round *r)
{
	static const int types[] = { IBV_QPT_RC, IBV_QPT_UD, IBV_QPT_UC,
				     IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND };
	struct ibv_qp_init_attr a = {};
	int i = below(NQP);
	struct ibv_pd *pd;

	if (r->qp[i]) {
		note(r, ibv_destroy_qp(r->qp[i]));
		r->qp[i] = NULL;
		return;
	}
	pd = any_pd(r);
	a.send_cq = r->cq[below(NCQ)];
	a.recv_cq = below(4) ? a.send_cq : r->cq[below(NCQ)];
	if (!pd || !a.send_cq || !a.recv_cq)
		return;
	a.qp_type = below(4) ? types[below(2)] : types[below(5)];
	a.cap.max_send_wr = below(3) ? 1 + below(64) : pick();
	a.cap.max_recv_wr = below(3) ? 1 + below(64) : pick();
	a.cap.max_send_sge = below(3) ? 1 + below(4) : pick();
	a.cap.max_recv_sge = below(3) ? 1 + below(4) : pick();
	a.cap.max_inline_data = below(2) ? 0 : pick();
	a.sq_sig_all = below(2);
	r->qp[i] = ibv_create_qp(pd, &a);
	note(r, !r->qp[i]);
}

/* Valid attributes for the next state of an RC/UD QP, or random ones. */
static void op_modify(struct round *r)
{
	struct ibv_qp *qp = r->qp[below(NQP)], *peer = r->qp[below(NQP)];
	struct ibv_qp_attr a = {};
	int mask;

	if (!qp)
		return;
	a.qp_state = below(8);
	a.port_num = below(4) ? 1 : pick();
	a.qkey = below(2) ? 0x11111111 : pick();
	a.qp_access_flags = below(2) ? IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ : pick();
	a.path_mtu = below(4) ? IBV_MTU_1024 : pick();
	a.dest_qp_num = peer && below(4) ? peer->qp_num : pick();
	a.rq_psn = pick();
	a.sq_psn = pick();
	a.max_dest_rd_atomic = below(4);
	a.max_rd_atomic = below(4);
	a.min_rnr_timer = below(32);
	a.timeout = below(32);
	a.retry_cnt = below(8);
	a.rnr_retry = below(8);
	a.ah_attr.is_global = below(4) != 0;
	a.ah_attr.grh.dgid = r->gid;
	if (!below(4))
		a.ah_attr.grh.dgid.global.interface_id = pick();
	a.ah_attr.grh.sgid_index = below(4) ? 0 : pick();
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = below(4) ? 1 : pick();
	a.ah_attr.dlid = pick();
	mask = below(3) ? (int)(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY) : 0;
	switch (a.qp_state) {
	case IBV_QPS_INIT:
		mask = qp->qp_type == IBV_QPT_UD ?
		       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY :
		       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		mask = qp->qp_type == IBV_QPT_UD ? IBV_QP_STATE :
		       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		mask = qp->qp_type == IBV_QPT_UD ? IBV_QP_STATE | IBV_QP_SQ_PSN :
		       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		       IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		mask |= IBV_QP_STATE;
	}
	if (!below(4))
		mask = (int)pick();
	note(r, ibv_modify_qp(qp, &a, mask));
}

static void op_post_send(struct round *r)
{
	static const int ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_BIND_MW,
	};
	struct ibv_qp *qp = r->qp[below(NQP)], *peer;
	struct ibv_sge sge[NSGE];
	struct ibv_send_wr wr[4] = {}, *bad;
	int i, j, n = 1 + below(4);
	uint64_t len;

	if (!qp)
		return;
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].opcode = below(8) ? ops[below(5)] :
			       below(2) ? ops[below(10)] : (int)below(32);
		wr[i].num_sge = below(4) ? (int)below(3) : (int)below(NSGE + 1);
		wr[i].sg_list = sge;
		wr[i].send_flags = below(2) ? IBV_SEND_SIGNALED : (int)pick();
		wr[i].imm_data = rnd();
		wr[i].wr.rdma.remote_addr = any_addr(r, &len);
		wr[i].wr.rdma.rkey = any_key(r);
		if (qp->qp_type == IBV_QPT_UD) {
			wr[i].wr.ud.ah = r->ah[below(NAH)];
			if (!wr[i].wr.ud.ah)
				return;
			peer = r->qp[below(NQP)];
			wr[i].wr.ud.remote_qpn = below(2) ? peer ?
				peer->qp_num : 1 : pick();
			wr[i].wr.ud.remote_qkey = below(2) ? 0x11111111 : pick();
		}
	}
	for (j = 0; j < NSGE; j++) {
		sge[j].addr = any_addr(r, &len);
		sge[j].length = below(2) ? below(8192) : len;
		sge[j].lkey = any_key(r);
	}
	/*
	 * IBV_SEND_INLINE: the provider copies the data in the caller's
	 * context, as every provider does (rxe, mlx5), so its sources must
	 * be memory the process can read (libibverbs' contract, like any
	 * buffer handed to memcpy). A wild pointer there faults in the
	 * caller, not in the kernel; the fuzzer keeps inline sources in its
	 * arena and leaves wild addresses to the SGEs the HCA reads.
	 */
	for (i = 0; i < n; i++)
		if (wr[i].send_flags & IBV_SEND_INLINE)
			break;
	for (j = 0; i < n && j < NSGE; j++) {
		len = below(ARENA);
		sge[j].addr = (uintptr_t)r->arena + len;
		if (sge[j].length > ARENA - len)
			sge[j].length = ARENA - len;
	}
	note(r, ibv_post_send(qp, wr, &bad));
}

static void op_post_recv(struct round *r)
{
	struct ibv_qp *qp = r->qp[below(NQP)];
	struct ibv_sge sge[NSGE];
	struct ibv_recv_wr wr = {}, *bad;
	uint64_t len;
	int j;

	if (!qp)
		return;
	for (j = 0; j < NSGE; j++) {
		sge[j].addr = any_addr(r, &len);
		sge[j].length = below(2) ? below(8192) : len;
		sge[j].lkey = any_key(r);
	}
	wr.wr_id = rnd();
	wr.sg_list = sge;
	wr.num_sge = below(4) ? (int)below(3) : (int)below(NSGE + 1);
	note(r, ibv_post_recv(qp, &wr, &bad));
}

static void op_poll(struct round *r)
{
	struct ibv_cq *cq = r->cq[below(NCQ)];
	struct ibv_wc wc[64];

	if (!cq)
		return;
	if (below(4))
		note(r, ibv_poll_cq(cq, below(65), wc) < 0);
	else
		note(r, ibv_req_notify_cq(cq, below(2)));
}

static void op_ah(struct round *r)
{
	struct ibv_ah_attr a = {};
	int i = below(NAH);
	struct ibv_pd *pd = any_pd(r);

	if (r->ah[i]) {
		note(r, ibv_destroy_ah(r->ah[i]));
		r->ah[i] = NULL;
		return;
	}
	if (!pd)
		return;
	a.is_global = below(4) != 0;
	a.grh.dgid = r->gid;
	if (!below(3))
		memset(&a.grh.dgid, (int)rnd(), sizeof(a.grh.dgid));
	a.grh.sgid_index = below(4) ? 0 : pick();
	a.grh.hop_limit = pick();
	a.grh.traffic_class = pick();
	a.grh.flow_label = pick();
	a.port_num = below(4) ? 1 : pick();
	a.dlid = pick();
	a.sl = pick();
	r->ah[i] = ibv_create_ah(pd, &a);
	note(r, !r->ah[i]);
}

static void op_query(struct round *r)
{
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct ibv_qp *qp = r->qp[below(NQP)];
	union ibv_gid gid;

	switch (below(4)) {
	case 0:
		note(r, ibv_query_device_ex(r->ctx, NULL, &dattr));
		break;
	case 1:
		note(r, ibv_query_port(r->ctx, below(4) ? 1 : pick(), &pattr));
		break;
	case 2:
		note(r, ibv_query_gid(r->ctx, 1, below(4) ? (int)below(4) : (int)pick(),
				      &gid));
		break;
	default:
		if (qp)
			note(r, ibv_query_qp(qp, &qattr, (int)pick(), &init));
	}
}

/* A legacy write() command, its header real, the rest random. */
static void op_raw_write(struct round *r)
{
	uint64_t buf[32];
	struct ib_uverbs_cmd_hdr *h = (void *)buf;
	size_t len;
	unsigned int i;

	for (i = 0; i < 32; i++)
		buf[i] = below(2) ? pick() : (uintptr_t)r->arena + below(ARENA);
	h->command = below(8) ? below(64) : pick();
	h->in_words = below(4) ? below(32) : pick();
	h->out_words = below(4) ? below(32) : pick();
	/* GET_CONTEXT would only be refused; spare its busy lookups. */
	if (h->command == IB_USER_VERBS_CMD_GET_CONTEXT)
		h->command = IB_USER_VERBS_CMD_QUERY_DEVICE;
	len = below(4) ? h->in_words * 4 + sizeof(*h) : below(sizeof(buf) + 1);
	if (len > sizeof(buf))
		len = sizeof(buf);
	note(r, write(r->ctx->cmd_fd, buf, len) < 0);
}

/* An RDMA_VERBS_IOCTL with random objects, methods and attributes. */
static void op_raw_ioctl(struct round *r)
{
	uint64_t raw[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      16 * sizeof(struct ib_uverbs_attr)) / 8];
	struct ib_uverbs_ioctl_hdr *h = (void *)raw;
	uint64_t data[16];
	unsigned int i, n = below(17);
	uint64_t len;

	memset(raw, 0, sizeof(raw));
	for (i = 0; i < 16; i++)
		data[i] = pick();
	h->length = sizeof(*h) + n * sizeof(h->attrs[0]);
	if (!below(8))
		h->length = pick();
	h->object_id = below(8) ? below(32) : pick();
	h->method_id = below(8) ? below(16) : pick();
	/*
	 * A second GET_CONTEXT is refused by ib_init_ucontext(), and on
	 * that path ib_core (6.1 to at least 6.12) frees the context without
	 * dropping the task reference restrack took: a leak in the core, not
	 * in the driver (see -g). Spare it so that kmemleak speaks of vroce.
	 */
	if (h->object_id == UVERBS_OBJECT_DEVICE &&
	    h->method_id == UVERBS_METHOD_GET_CONTEXT)
		h->method_id = UVERBS_METHOD_QUERY_CONTEXT;
	h->num_attrs = n;
	h->driver_id = below(8) ? 0 : pick();
	for (i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];

		a->attr_id = below(2) ? below(16) : below(4) ? 0x1000 + below(8) :
			     pick();
		a->len = below(2) ? 8 * below(9) : pick();
		a->flags = below(2) ? UVERBS_ATTR_F_MANDATORY : pick();
		switch (below(4)) {
		case 0:
			a->data = (uintptr_t)data;
			break;
		case 1:
			a->data = any_addr(r, &len);
			break;
		case 2:
			a->data = below(64);	/* an object handle */
			break;
		default:
			a->data = pick();
		}
	}
	note(r, ioctl(r->ctx->cmd_fd, RDMA_VERBS_IOCTL, h) < 0);
}

/* Destroy what is left, children before parents; errors are counted. */
static void teardown(struct round *r)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (r->qp[i])
			note(r, ibv_destroy_qp(r->qp[i]));
	for (i = 0; i < NAH; i++)
		if (r->ah[i])
			note(r, ibv_destroy_ah(r->ah[i]));
	for (i = 0; i < NCQ; i++)
		if (r->cq[i])
			note(r, ibv_destroy_cq(r->cq[i]));
	for (i = 0; i < NMR; i++) {
		if (r->mr[i].mr)
			note(r, ibv_dereg_mr(r->mr[i].mr));
		if (r->mr[i].map)
			munmap(r->mr[i].map, r->mr[i].map_len);
	}
	for (i = 0; i < NPD; i++)
		if (r->pd[i])
			note(r, ibv_dealloc_pd(r->pd[i]));
}

/*
 * One round on a fresh context: @budget operations, then an ending.
 * Returns the operations done; *@refused gets the calls refused.
 */
static long round_run(const char *dev, uint64_t seed, long budget,
		      long *refused, int may_exit)
{
	static void (*const ops[])(struct round *) = {
		op_pd, op_mr, op_mr, op_cq, op_qp, op_qp, op_modify, op_modify,
		op_modify, op_post_send, op_post_send, op_post_recv, op_poll,
		op_poll, op_ah, op_query, op_raw_write, op_raw_ioctl,
	};
	static const char *const names[] = {
		"pd", "mr", "mr", "cq", "qp", "qp", "modify", "modify",
		"modify", "post_send", "post_send", "post_recv", "poll",
		"poll", "ah", "query", "raw_write", "raw_ioctl",
	};
	struct round r = {};
	long i;

	rng = seed ? seed : 1;
	r.ctx = vroce_ut_open(dev);
	if (!r.ctx)
		return -1;
	ibv_query_gid(r.ctx, 1, 0, &r.gid);
	r.arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r.arena == MAP_FAILED)
		exit(2);
	memset(r.arena, 0x5a, ARENA);
	for (i = 0; i < budget; i++) {
		unsigned int k = below(ARRAY_SIZE(ops));

		cur_op = names[k];
		/* VROCE_FUZZ_NO: operations left out, to narrow a finding. */
		if (skip_ops && strstr(skip_ops, cur_op))
			continue;
		if (trace) {
			struct timespec ts;

			clock_gettime(CLOCK_BOOTTIME, &ts);
			fprintf(trace, "%d %ld.%03ld %ld %s\n", getpid(),
				(long)ts.tv_sec, ts.tv_nsec / 1000000, i, cur_op);
			fflush(trace);
		}
		ops[k](&r);
	}
	cur_op = "ending";

	switch (below(4)) {
	case 0:
		/* Exit with everything live: the kernel cleans up. */
		if (may_exit)
			_exit(0);
		ibv_close_device(r.ctx);
		break;
	case 1:
		/* Close the device with objects live. */
		ibv_close_device(r.ctx);
		break;
	default:
		teardown(&r);
		ibv_close_device(r.ctx);
	}
	munmap(r.arena, ARENA);
	*refused = r.refused;
	return r.ops;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * One fuzzing process: rounds until @secs pass or @ops operations are
 * done; every few rounds in a child that may exit mid-round. Reports its
 * counts through the pipe @fd.
 */
static void worker(const char *dev, uint64_t seed, double secs, long ops,
		   int fd)
{
	long done = 0, refused = 0, n, rf;
	double end = now_s() + secs;
	uint64_t round_seed;
	int dead = 0, k = 0, status;
	pid_t pid;
	long out[3];

	rng = seed;
	while (ops ? done < ops : now_s() < end) {
		long budget = 50 + (long)(rnd() % 400);

		round_seed = rnd();
		if (ops && budget > ops - done)
			budget = ops - done;
		if (k++ % 4 == 3) {
			pid = fork();
			if (pid == 0) {
				rf = 0;
				round_run(dev, round_seed, budget, &rf, 1);
				_exit(0);
			}
			if (pid > 0 && waitpid(pid, &status, 0) == pid &&
			    WIFSIGNALED(status)) {
				fprintf(stderr, "fuzz: round seed %#llx died of signal %d\n",
					(unsigned long long)round_seed,
					WTERMSIG(status));
				dead++;
			}
			done += budget;
		} else {
			rf = 0;
			n = round_run(dev, round_seed, budget, &rf, 0);
			if (n < 0) {
				fprintf(stderr, "fuzz: cannot open %s\n", dev);
				exit(2);
			}
			done += n;
			refused += rf;
		}
		rng = round_seed ^ 0x9e3779b97f4a7c15ULL;
	}
	out[0] = done;
	out[1] = refused;
	out[2] = dead;
	if (write(fd, out, sizeof(out)) != sizeof(out))
		exit(2);
	exit(0);
}

/* -g: a second GET_CONTEXT on an open context, in a process of its own. */
static int probe_get_context(const char *dev)
{
	struct ib_uverbs_ioctl_hdr h = {
		.length = sizeof(h),
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_GET_CONTEXT,
	};
	struct ibv_context *ctx;
	int status, ret;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		ctx = vroce_ut_open(dev);
		if (!ctx)
			_exit(2);
		ret = ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &h);
		printf("fuzz: %s: a second GET_CONTEXT: %s\n", dev,
		       ret ? strerror(errno) : "accepted");
		fflush(stdout);
		ibv_close_device(ctx);
		_exit(ret && errno == EINVAL ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *dev = "vroce0";
	uint64_t seed = 0;
	double secs = 60, t0;
	long ops = 0, total = 0, refused = 0, in[3];
	int procs = 4, dead = 0, probe = 0, c, i, status, fds[2];
	pid_t pid;

	while ((c = getopt(argc, argv, "d:s:p:t:n:g")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			ops = atol(optarg);
			break;
		case 'g':
			probe = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-d DEV] [-s SEED] [-p N] [-t SECONDS] [-n OPS] | -g [-d DEV]\n",
				argv[0]);
			return 2;
		}
	}
	if (probe)
		return probe_get_context(dev);
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003ULL ^ ts.tv_nsec ^ getpid();
	}
	printf("fuzz: seed %#llx (replay: -s %#llx -p %d%s)\n",
	       (unsigned long long)seed, (unsigned long long)seed, procs,
	       ops ? " -n ..." : "");
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGSEGV, on_fault);
	skip_ops = getenv("VROCE_FUZZ_NO");
	if (getenv("VROCE_FUZZ_TRACE"))
		trace = fopen(getenv("VROCE_FUZZ_TRACE"), "a");
	signal(SIGBUS, on_fault);
	if (pipe(fds))
		return 2;
	t0 = now_s();
	for (i = 0; i < procs; i++) {
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			worker(dev, seed + i * 0x100000001ULL, secs,
			       ops ? ops / procs : 0, fds[1]);
		}
	}
	close(fds[1]);
	for (i = 0; i < procs; i++) {
		if (read(fds[0], in, sizeof(in)) != sizeof(in)) {
			dead++;	/* a worker died before reporting */
			continue;
		}
		total += in[0];
		refused += in[1];
		dead += in[2];
	}
	while (wait(&status) > 0)
		if (WIFSIGNALED(status))
			dead++;
	t0 = now_s() - t0;
	printf("fuzz: %ld ops in %.1f s (%.0f ops/s) by %d processes, ",
	       total, t0, total / t0, procs);
	printf("seed %#llx, %ld calls refused, %d processes died\n",
	       (unsigned long long)seed, refused, dead);
	return dead ? 1 : 0;
}
