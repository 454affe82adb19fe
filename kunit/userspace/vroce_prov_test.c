// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_prov_test - the provider's mapped rings under faults (review of
 * issue 31), through libibverbs on a vroce device, with the HCA's debugfs
 * knobs (Documentation/device.rst, "Fault knobs"). One case per run:
 *
 *   resize-lost  RESIZE_CQ's answer dropped (drop_cmds): ETIMEDOUT; the
 *                HCA switched to the new ring and writes CQEs there. The
 *                provider must not have given that ring to malloc: the
 *                CQEs written after it must not be in the process's
 *                memory (the ring, found by its fork exclusion, is
 *                unmapped or holds none; heap blocks of its size, filled
 *                before the traffic, stay intact); the CQ's poll fails
 *                (EIO), a new resize is EIO.
 *   resize-poll  a poller thread polls while the main thread posts and
 *                resizes the CQ with each command delayed (delay_ms):
 *                every completion is seen exactly once, and no
 *                ibv_poll_cq() call waits for a RESIZE_CQ (none lasts
 *                half the command's delay).
 *   pagesize     with VROCE_UT_PAGE set, sysconf(_SC_PAGESIZE) answers it
 *                (this program interposes sysconf() for the provider):
 *                traffic and a resize work, and every range the provider
 *                excludes from fork (its rings and record pages) is whole
 *                pages of that size (at an address of the real page size,
 *                which is all mmap() gives on this kernel).
 *   fatal        sends (RNR-retrying: no receive at the peer) and
 *                receives outstanding, then the HCA made fatal: without
 *                reading async events, ibv_poll_cq() returns every one
 *                with IBV_WC_WR_FLUSH_ERR, exactly once, in order per
 *                queue, then nothing, and the receives posted in a mapped
 *                SRQ of a third QP of the CQ the same way; posting after the death works and
 *                flushes too; everything is destroyed. Kills the device:
 *                run it on one plugged in for it (new_device).
 *
 * Build: gcc -O2 -Wall -Wextra -Werror -rdynamic -o <binary> <this file>
 *        -libverbs -ldl -lpthread
 * Run: vroce_prov_test <device> <case> (the HCA's debugfs directory is
 * found from /sys/class/infiniband/<device>/device). Output: TAP. Exit: 0
 * all checks passed, 1 a check failed, 2 set-up failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "vroce_ut.h"

#define BUF		(64 * 1024)
#define DEPTH		16
#define CQE_SIZE	64	/* VROCE_CQE_SIZE, c/ifc/vroce_wqe.h */
#define RESIZE_CQ_OP	17	/* VROCE_CMD_RESIZE_CQ, c/ifc/vroce_cmds.h */
#define MAX_IDS		256

static int failed, nr;

static void check(int cond, const char *what)
{
	nr++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", nr, what);
	fflush(stdout);
	if (!cond)
		failed = 1;
}

#define SETUP_FAIL(...) do {						\
	printf("# set-up: " __VA_ARGS__);				\
	printf("\n");							\
	exit(2);							\
} while (0)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* ---- the page size the provider sees, and what it excludes from fork ---- */

static long fake_page;

long sysconf(int name)
{
	static long (*real)(int);

	if (name == _SC_PAGESIZE && fake_page)
		return fake_page;
	if (!real)
		real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	return real(name);
}

#define MAX_RANGES 64
static struct { uintptr_t addr; size_t len; } ranges[MAX_RANGES];
static int nranges;
static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;

int ibv_dontfork_range(void *base, size_t size)
{
	static int (*real)(void *, size_t);

	pthread_mutex_lock(&range_lock);
	if (nranges < MAX_RANGES) {
		ranges[nranges].addr = (uintptr_t)base;
		ranges[nranges].len = size;
		nranges++;
	}
	pthread_mutex_unlock(&range_lock);
	if (!real)
		real = (int (*)(void *, size_t))dlsym(RTLD_NEXT,
						      "ibv_dontfork_range");
	return real(base, size);
}

/* ---- the HCA's knobs ---- */

static char hca[600];

static void knob(const char *name, long val)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", hca, name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%ld\n", val) < 0 || fclose(f))
		SETUP_FAIL("write %ld to %s: %s", val, path, strerror(errno));
}

static void find_hca(const char *dev)
{
	char path[300], target[512];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		SETUP_FAIL("readlink %s: %s", path, strerror(errno));
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(hca, sizeof(hca), "/sys/kernel/debug/vroce_hca/%s",
		 base ? base + 1 : target);
}

/* ---- two RC QPs of one context, connected to each other ---- */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;
static struct ibv_mr *mr;
static char *buf;

static struct ibv_qp *create_qp(void)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static void setup(const char *dev, int cqe)
{
	union ibv_gid gid;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	ctx = vroce_ut_open(dev);
	if (!ctx)
		SETUP_FAIL("no device %s", dev);
	if (posix_memalign((void **)&buf, 4096, BUF))
		SETUP_FAIL("no buffer");
	memset(buf, 0, BUF);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, BUF, access) : NULL;
	cq = mr ? ibv_create_cq(ctx, cqe, NULL, NULL, 0) : NULL;
	qa = cq ? create_qp() : NULL;
	qb = qa ? create_qp() : NULL;
	if (!qb)
		SETUP_FAIL("pd/mr/cq/qp: %s", strerror(errno));
	if (ibv_query_gid(ctx, 1, 0, &gid))
		SETUP_FAIL("query_gid: %s", strerror(errno));
	/* RNR NAKs (case fatal) asking for 491 ms: few retries. */
	if (vroce_ut_connect(qa, qb->qp_num, &gid, access, 31) ||
	    vroce_ut_connect(qb, qa->qp_num, &gid, access, 31))
		SETUP_FAIL("connect: %s", strerror(errno));
}

static void teardown(void)
{
	check(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) &&
	      !ibv_destroy_cq(cq) && !ibv_dereg_mr(mr) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "everything is destroyed without error");
	free(buf);
}

/* A signaled RDMA WRITE of 64 bytes from @qp, or a SEND with @send. */
static int post(struct ibv_qp *qp, uint64_t wr_id, int send)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + (wr_id % 64) * 64, .length = 64,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = (uintptr_t)buf + BUF / 2 +
				       (wr_id % 64) * 64,
		.wr.rdma.rkey = mr->rkey,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + BUF / 4, .length = 64,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Polls @want successful completions within 5 s; how many came. */
static int poll_ok(int want)
{
	long long end = now_ms() + 5000;
	struct ibv_wc wc;
	int got = 0, n;

	while (got < want && now_ms() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (n == 1 && wc.status == IBV_WC_SUCCESS)
			got++;
		else if (n == 1)
			printf("# completion %llu: %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
	}
	return got;
}

/* ---- resize-lost ---- */

#define HEAP_BLOCKS 64

static void case_resize_lost(void)
{
	size_t bytes = 64 * CQE_SIZE;
	void *blk[HEAP_BLOCKS];
	struct ibv_wc wc;
	int i, ret, n, intact = 1, posted = 0, first;
	unsigned char *ring = NULL;
	size_t ring_len = 0;
	long long t;

	check(!post(qa, 1, 0) && poll_ok(1) == 1, "a WRITE completes before");
	knob("fault_opcode", RESIZE_CQ_OP);
	knob("drop_cmds", 1);
	t = now_ms();
	first = nranges;
	ret = ibv_resize_cq(cq, 64);
	/* The new ring: the range the provider excluded from fork for it. */
	if (nranges > first) {
		ring = (unsigned char *)ranges[first].addr;
		ring_len = ranges[first].len;
	}
	knob("drop_cmds", 0);
	knob("fault_opcode", 0);
	printf("# resize with its answer dropped: %s after %lld ms\n",
	       strerror(ret), now_ms() - t);
	check(ret == ETIMEDOUT, "RESIZE_CQ whose answer is lost: ETIMEDOUT");
	/*
	 * The HCA switched to the new ring. Blocks of its size from the
	 * heap, which would be that ring had it been freed to malloc.
	 */
	for (i = 0; i < HEAP_BLOCKS; i++) {
		if (posix_memalign(&blk[i], 4096, bytes))
			SETUP_FAIL("no heap block");
		memset(blk[i], 0x5a, bytes);
	}
	for (i = 0; i < 8; i++)
		posted += !post(qa, 100 + i, 0);
	usleep(300000);		/* the HCA writes its CQEs */
	for (i = 0; i < HEAP_BLOCKS; i++) {
		const unsigned char *p = blk[i];
		size_t j;

		for (j = 0; j < bytes; j++)
			if (p[j] != 0x5a)
				break;
		if (j < bytes) {
			printf("# heap block %d (%p) changed at byte %zu\n",
			       i, blk[i], j);
			intact = 0;
		}
	}
	/*
	 * The new ring, which the HCA now writes: still mapped, it is the
	 * process's memory (the heap, had it gone back to malloc()).
	 */
	if (ring && !msync(ring, ring_len, MS_ASYNC)) {
		size_t j;

		for (j = CQE_SIZE; j < ring_len; j++)
			if (ring[j])
				break;
		if (j < ring_len) {
			printf("# CQEs in the lost ring %p, the process's memory (byte %zu)\n",
			       ring, j);
			intact = 0;
		}
	}
	printf("# %d WRITEs posted after the lost resize; the lost ring %p %s\n",
	       posted, ring, !ring ? "not seen" :
	       msync(ring, ring_len, MS_ASYNC) ? "unmapped" : "mapped");
	check(posted == 8 && intact && ring,
	      "no CQE lands in the process's heap after the lost resize");
	for (i = 0; i < HEAP_BLOCKS; i++)
		free(blk[i]);
	n = ibv_poll_cq(cq, 1, &wc);
	check(n < 0, "the CQ of the lost resize: ibv_poll_cq() fails");
	n = ibv_poll_cq(cq, 1, &wc);
	check(n < 0, "... and again (no ring is read)");
	check(ibv_resize_cq(cq, 32) == EIO, "... and a new resize is EIO");
}

/* ---- resize-poll ---- */

static atomic_int seen[MAX_IDS], seen_total, bad_status, stop;
static atomic_llong longest;

static void *poller(void *arg)
{
	struct ibv_wc wc[8];
	long long t, dt;
	int n, i;

	(void)arg;
	while (!atomic_load(&stop)) {
		t = now_ms();
		n = ibv_poll_cq(cq, 8, wc);
		dt = now_ms() - t;
		if (dt > atomic_load(&longest))
			atomic_store(&longest, dt);
		if (n < 0) {
			atomic_fetch_add(&bad_status, 1);
			break;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id >= MAX_IDS)
				atomic_fetch_add(&bad_status, 1);
			else
				atomic_fetch_add(&seen[wc[i].wr_id], 1);
			atomic_fetch_add(&seen_total, 1);
		}
	}
	return NULL;
}

#define ROUNDS		6
#define PER_ROUND	10
#define DELAY_MS	400

static void case_resize_poll(void)
{
	static const int sizes[] = { 32, 64, 16 };
	int r, i, id = 0, resized = 0, once = 1;
	pthread_t thr;
	long long end;

	if (pthread_create(&thr, NULL, poller, NULL))
		SETUP_FAIL("pthread_create");
	knob("delay_ms", DELAY_MS);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < PER_ROUND; i++)
			if (post(qa, id++, 0))
				printf("# post %d: %s\n", id - 1,
				       strerror(errno));
		/* Completions wait unpolled while the command is out. */
		resized += !ibv_resize_cq(cq, sizes[r % 3]);
		end = now_ms() + 10000;
		while (atomic_load(&seen_total) < id && now_ms() < end)
			usleep(1000);
	}
	knob("delay_ms", 0);
	usleep(100000);		/* nothing more comes */
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	for (i = 0; i < id; i++)
		if (atomic_load(&seen[i]) != 1) {
			printf("# wr_id %d seen %d times\n", i,
			       atomic_load(&seen[i]));
			once = 0;
		}
	printf("# %d resizes of %d done, %d completions of %d, longest poll %lld ms\n",
	       resized, ROUNDS, atomic_load(&seen_total), id,
	       atomic_load(&longest));
	check(resized == ROUNDS, "every resize under the poller succeeds");
	check(once && atomic_load(&seen_total) == id &&
	      !atomic_load(&bad_status),
	      "a poller during resizes sees every completion exactly once");
	check(atomic_load(&longest) < DELAY_MS / 2,
	      "no ibv_poll_cq() call waits for a RESIZE_CQ (spins on none)");
}

/* ---- pagesize ---- */

static void case_pagesize(void)
{
	int i, whole = 1, seen_rings = 0;

	check(!post(qa, 1, 0) && !post(qa, 2, 0) && poll_ok(2) == 2,
	      "WRITEs complete with the provider's page size");
	check(!ibv_resize_cq(cq, 64) && !post(qa, 3, 0) && poll_ok(1) == 1,
	      "a resize, then a WRITE completes");
	pthread_mutex_lock(&range_lock);
	for (i = 0; i < nranges; i++) {
		/* The MR's buffer is libibverbs', not the provider's. */
		if (ranges[i].addr >= (uintptr_t)buf &&
		    ranges[i].addr < (uintptr_t)buf + BUF)
			continue;
		seen_rings++;
		/*
		 * mmap() aligns to the real page (getpagesize(), which is not
		 * interposed); a kernel of the faked size would align to it.
		 */
		if (ranges[i].addr % getpagesize() ||
		    ranges[i].len % fake_page) {
			printf("# range %#lx + %zu: not whole pages of %ld\n",
			       (unsigned long)ranges[i].addr, ranges[i].len,
			       fake_page);
			whole = 0;
		}
	}
	pthread_mutex_unlock(&range_lock);
	printf("# %d ranges of the provider, page %ld\n", seen_rings,
	       fake_page);
	/* CQ ring, record page, 2 QPs' SQ and RQ, the resized ring. */
	check(seen_rings >= 6 && whole,
	      "the provider's rings and record pages are whole system pages");
}

/* ---- fatal ---- */

#define SENDS	4
#define RECVS	5
#define SRECVS	3

static void case_fatal(void)
{
	int sends = 0, recvs = 0, n, i, got = 0, in_order = 1, more = 0;
	uint64_t next_send = 200, next_recv = 300, next_srecv = 500;
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
	};
	struct ibv_qp_init_attr qattr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + BUF / 4, .length = 64,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_srq *srq;
	struct ibv_qp *qc;
	struct ibv_wc wc[4];
	long long end;

	/* A third QP, on an SRQ with receives posted (it stays in RESET). */
	srq = ibv_create_srq(pd, &sattr);
	qattr.srq = srq;
	qc = srq ? ibv_create_qp(pd, &qattr) : NULL;
	if (!qc)
		SETUP_FAIL("srq/qp: %s", strerror(errno));
	for (i = 0; i < SRECVS; i++) {
		rwr.wr_id = 500 + i;
		if (ibv_post_srq_recv(srq, &rwr, &rbad))
			SETUP_FAIL("post_srq_recv: %s", strerror(errno));
	}

	/* qb has no receive: qa's SENDs retry RNR NAKs for ever. */
	for (i = 0; i < SENDS; i++)
		sends += !post(qa, 200 + i, 1);
	for (i = 0; i < RECVS; i++)
		recvs += !post_recv(qa, 300 + i);
	check(sends == SENDS && recvs == RECVS,
	      "SENDs (RNR: no receive at the peer) and receives posted");
	usleep(200000);
	n = ibv_poll_cq(cq, 4, wc);
	check(n == 0, "nothing completes while the HCA lives");
	knob("fatal", 1);
	end = now_ms() + 15000;
	while (got < SENDS + RECVS + SRECVS && now_ms() < end) {
		n = ibv_poll_cq(cq, 4, wc);
		if (n < 0) {
			printf("# poll: %d\n", n);
			break;
		}
		if (!n) {
			usleep(10000);
			continue;
		}
		for (i = 0; i < n; i++, got++) {
			uint64_t *next = wc[i].qp_num == qc->qp_num ?
					 &next_srecv :
					 wc[i].opcode == IBV_WC_RECV ?
					 &next_recv : &next_send;

			if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
			    (wc[i].qp_num != qa->qp_num &&
			     wc[i].qp_num != qc->qp_num) ||
			    wc[i].wr_id != (*next)++) {
				printf("# completion %llu: %s, qp %u\n",
				       (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status),
				       wc[i].qp_num);
				in_order = 0;
			}
		}
	}
	printf("# %d flushed completions\n", got);
	check(got == SENDS + RECVS + SRECVS && in_order &&
	      next_send == 200 + SENDS && next_recv == 300 + RECVS,
	      "dead device: every outstanding WR of the mapped QP flushes, in order");
	check(next_srecv == 500 + SRECVS,
	      "... and the receives posted in its mapped SRQ, in order");
	for (i = 0; i < 20; i++) {
		n = ibv_poll_cq(cq, 4, wc);
		more += n;
		usleep(10000);
	}
	check(more == 0, "... exactly once: then the CQ is empty");
	check(!post(qa, 400, 1) && !post_recv(qb, 401),
	      "posting after the death is taken");
	got = 0;
	end = now_ms() + 2000;
	while (got < 2 && now_ms() < end) {
		n = ibv_poll_cq(cq, 4, wc);
		for (i = 0; i < n; i++)
			got += wc[i].status == IBV_WC_WR_FLUSH_ERR &&
			       (wc[i].wr_id == 400 || wc[i].wr_id == 401);
	}
	check(got == 2, "... and flushes");
	check(!ibv_destroy_qp(qc) && !ibv_destroy_srq(srq),
	      "the SRQ and its QP are destroyed without error");
}

int main(int argc, char **argv)
{
	const char *dev, *what, *page;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <device> resize-lost|resize-poll|pagesize|fatal\n",
			argv[0]);
		return 2;
	}
	dev = argv[1];
	what = argv[2];
	page = getenv("VROCE_UT_PAGE");
	if (!strcmp(what, "pagesize"))
		fake_page = page ? atol(page) : 16384;
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_hca(dev);
	printf("TAP version 13\n# %s on %s (%s)\n", what, dev, hca);
	setup(dev, strcmp(what, "fatal") ? DEPTH : 64);
	if (!strcmp(what, "resize-lost"))
		case_resize_lost();
	else if (!strcmp(what, "resize-poll"))
		case_resize_poll();
	else if (!strcmp(what, "pagesize"))
		case_pagesize();
	else if (!strcmp(what, "fatal"))
		case_fatal();
	else
		SETUP_FAIL("no case %s", what);
	teardown();
	printf("1..%d\n", nr);
	return failed;
}
