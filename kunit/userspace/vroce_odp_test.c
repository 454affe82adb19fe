// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 33, item 3: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) under the
 * changes a process makes to its address space, through the provider, on
 * the device named by argv[1]. Each case moves data with RDMA WRITE or
 * READ between a pinned buffer and an ODP MR and checks the bytes:
 *
 *   first touch   pages never touched, written by the HCA, read back
 *   dontneed      MADV_DONTNEED: the process and the HCA see new zero
 *                 pages, never the old bytes; a WRITE lands in them
 *   fork          after fork() the HCA writes the parent's pages; the
 *                 child keeps the bytes it had (copy on write)
 *   mremap        the mapping moves: the old addresses fail
 *                 (IBV_WC_REM_ACCESS_ERR), the moved bytes stay
 *   pageout       a shared file mapping paged out (MADV_PAGEOUT): the HCA
 *                 reads the bytes back from the file
 *   kill          a process killed while its WRITEs into an ODP MR run:
 *                 the device goes on (a new process's ODP WRITE works)
 *
 * A device without ODP for RC WRITE and READ (6.12's rxe) is a skip: exit
 * status 3. Prints a line per check and "1..N"; exit 1 if one failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vroce_ut.h"

#define PG		4096
#define LEN		(16 * PG)
#define ACC		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static int failed, nr;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;

static void check(int cond, const char *what)
{
	nr++;
	printf("%s %d %s\n", cond ? "ok" : "not ok", nr, what);
	if (!cond)
		failed++;
}

/* Two RC QPs connected to each other, on a CQ of their own. */
struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	char *buf;		/* pinned, LEN bytes */
	struct ibv_mr *mr;
};

static int pair_make(struct pair *p)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	p->buf = aligned_alloc(PG, LEN);
	if (!p->cq || !p->buf)
		return -1;
	p->mr = ibv_reg_mr(pd, p->buf, LEN, ACC);
	attr.send_cq = p->cq;
	attr.recv_cq = p->cq;
	for (i = 0; i < 2; i++)
		p->qp[i] = ibv_create_qp(pd, &attr);
	if (!p->mr || !p->qp[0] || !p->qp[1])
		return -1;
	for (i = 0; i < 2; i++)
		if (vroce_ut_connect(p->qp[i], p->qp[!i]->qp_num, &gid, ACC, 1))
			return -1;
	return 0;
}

static void pair_free(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	free(p->buf);
}

/*
 * One signaled RDMA @op of @len bytes between the pinned buffer at @off
 * and @raddr through @rkey; the completion's status, or -1 when none
 * came within 10 s.
 */
static int xfer(struct pair *p, enum ibv_wr_opcode op, size_t off,
		uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p->buf + off, .length = len,
			       .lkey = p->mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = op, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(p->qp[0], &wr, &bad))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(p->cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!n && t.tv_sec - t0.tv_sec < 10);
	return n == 1 ? (int)wc.status : -1;
}

static void fill(char *b, size_t n, int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (char)(i * 7 + seed);
}

static char *anon(size_t n)
{
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

/* First touch, then MADV_DONTNEED: never the old bytes. */
static void first_touch_dontneed(void)
{
	char *m = anon(LEN), *zero = calloc(1, LEN);
	struct ibv_mr *odp;
	struct pair p;

	if (pair_make(&p) || !m || !zero) {
		check(0, "first touch: set up");
		return;
	}
	odp = ibv_reg_mr(pd, m, LEN, ACC | IBV_ACCESS_ON_DEMAND);
	check(!!odp, "first touch: ibv_reg_mr(IBV_ACCESS_ON_DEMAND)");
	if (!odp)
		goto out;
	fill(p.buf, LEN, 1);
	check(xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey, LEN) ==
	      IBV_WC_SUCCESS && !memcmp(m, p.buf, LEN),
	      "first touch: a WRITE into pages never touched lands");
	memset(p.buf, 0, LEN);
	check(xfer(&p, IBV_WR_RDMA_READ, 0, (uintptr_t)m + PG, odp->rkey,
		   LEN - PG) == IBV_WC_SUCCESS &&
	      !memcmp(p.buf, m + PG, LEN - PG),
	      "first touch: READ gives them back");

	check(!madvise(m, LEN, MADV_DONTNEED) && !memcmp(m, zero, LEN),
	      "dontneed: the process sees zero pages");
	fill(p.buf, LEN, 9);
	check(xfer(&p, IBV_WR_RDMA_READ, 0, (uintptr_t)m, odp->rkey, LEN) ==
	      IBV_WC_SUCCESS && !memcmp(p.buf, zero, LEN),
	      "dontneed: the HCA reads the new zero pages, not the old bytes");
	fill(p.buf, LEN, 3);
	check(xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey, LEN) ==
	      IBV_WC_SUCCESS && !memcmp(m, p.buf, LEN),
	      "dontneed: a WRITE then lands where the process reads");
	check(!ibv_dereg_mr(odp), "first touch: ibv_dereg_mr");
out:
	pair_free(&p);
	munmap(m, LEN);
	free(zero);
}

/* fork(): the HCA writes the parent's pages, the child keeps its own. */
static void forked(void)
{
	char *m = anon(LEN), *want = malloc(LEN), go;
	int to_child[2], status = -1;
	struct ibv_mr *odp = NULL;
	struct pair p;
	pid_t pid;

	if (pair_make(&p) || !m || !want || pipe(to_child)) {
		check(0, "fork: set up");
		return;
	}
	odp = ibv_reg_mr(pd, m, LEN, ACC | IBV_ACCESS_ON_DEMAND);
	fill(p.buf, LEN, 5);
	check(odp && xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey,
			  LEN) == IBV_WC_SUCCESS && !memcmp(m, p.buf, LEN),
	      "fork: the parent's ODP pages written before fork()");
	if (!odp)
		goto out;
	memcpy(want, m, LEN);
	pid = fork();
	if (!pid) {
		/* The child: wait for the parent's WRITE, keep its bytes. */
		close(to_child[1]);
		if (read(to_child[0], &go, 1) != 1)
			_exit(2);
		_exit(memcmp(m, want, LEN) ? 1 : 0);
	}
	close(to_child[0]);
	fill(p.buf, LEN, 6);
	check(pid > 0 && xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m,
			      odp->rkey, LEN) == IBV_WC_SUCCESS &&
	      !memcmp(m, p.buf, LEN),
	      "fork: a WRITE after fork() lands in the parent's pages");
	if (pid > 0) {
		go = 1;
		if (write(to_child[1], &go, 1) != 1)
			kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fork: the child's copy kept the bytes it had");
	close(to_child[1]);
	ibv_dereg_mr(odp);
out:
	pair_free(&p);
	munmap(m, LEN);
	free(want);
}

/* mremap: the MR stays at the old addresses, which are gone. */
static void remapped(void)
{
	char *m = anon(LEN), *dst = anon(LEN), *n;
	struct ibv_mr *odp = NULL;
	struct pair p;

	if (pair_make(&p) || !m || !dst) {
		check(0, "mremap: set up");
		return;
	}
	odp = ibv_reg_mr(pd, m, LEN, ACC | IBV_ACCESS_ON_DEMAND);
	fill(p.buf, LEN, 7);
	check(odp && xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey,
			  LEN) == IBV_WC_SUCCESS,
	      "mremap (the move): ODP pages written");
	if (!odp)
		goto out;
	n = mremap(m, LEN, LEN, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	check(n == dst && !memcmp(n, p.buf, LEN),
	      "mremap: the bytes moved with the mapping");
	check(xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey, 64) ==
	      IBV_WC_REM_ACCESS_ERR,
	      "mremap (the move): a WRITE to the old addresses is IBV_WC_REM_ACCESS_ERR");
	check(!memcmp(dst, p.buf, LEN), "mremap: the moved bytes untouched");
	ibv_dereg_mr(odp);
	m = dst;
out:
	pair_free(&p);
	munmap(m, LEN);
}

/* A shared file mapping paged out: the HCA reads the file's bytes. */
static void paged_out(void)
{
	char path[] = "/var/tmp/vroce-odp.XXXXXX", *m;
	struct ibv_mr *odp = NULL;
	int fd = mkstemp(path);
	struct pair p;

	if (pair_make(&p) || fd < 0 || ftruncate(fd, LEN)) {
		check(0, "pageout: set up");
		return;
	}
	unlink(path);
	m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		check(0, "pageout: mmap");
		goto out;
	}
	odp = ibv_reg_mr(pd, m, LEN, ACC | IBV_ACCESS_ON_DEMAND);
	fill(p.buf, LEN, 11);
	check(odp && xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey,
			  LEN) == IBV_WC_SUCCESS && !msync(m, LEN, MS_SYNC),
	      "pageout: a WRITE into a shared file mapping, synced");
	/* MADV_PAGEOUT (21) may be refused by an older kernel: no matter. */
	madvise(m, LEN, 21);
	memset(p.buf, 0, LEN);
	check(odp && xfer(&p, IBV_WR_RDMA_READ, 0, (uintptr_t)m, odp->rkey,
			  LEN) == IBV_WC_SUCCESS && !memcmp(p.buf, m, LEN) &&
	      p.buf[5] == (char)(5 * 7 + 11),
	      "pageout: READ after MADV_PAGEOUT gives the file's bytes");
	if (odp)
		ibv_dereg_mr(odp);
	munmap(m, LEN);
out:
	close(fd);
	pair_free(&p);
}

/* A process killed mid-transfer; the device serves the next one. */
static void sigkill_case(const char *name)
{
	int status = 0, ok;
	pid_t pid = fork();

	if (!pid) {
		/* A process of its own: its context, PD, QPs, ODP MR. */
		char *m = anon(256 * PG);
		struct ibv_mr *odp;
		struct pair p;
		int i;

		ctx = vroce_ut_open(name);
		pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		if (!pd || !m || pair_make(&p))
			_exit(2);
		odp = ibv_reg_mr(pd, m, 256 * PG, ACC | IBV_ACCESS_ON_DEMAND);
		if (!odp)
			_exit(2);
		for (;;)
			for (i = 0; i < 256; i += 16)
				xfer(&p, IBV_WR_RDMA_WRITE, 0,
				     (uintptr_t)m + i * PG, odp->rkey, LEN);
	}
	usleep(300000);
	ok = pid > 0 && !waitpid(pid, &status, WNOHANG);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	check(ok && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "kill (SIGKILL): a process writing into its ODP MR is killed");
}

static void after_kill(void)
{
	char *m = anon(LEN);
	struct ibv_mr *odp = NULL;
	struct pair p;

	if (pair_make(&p) || !m) {
		check(0, "kill: set up again");
		return;
	}
	odp = ibv_reg_mr(pd, m, LEN, ACC | IBV_ACCESS_ON_DEMAND);
	fill(p.buf, LEN, 13);
	check(odp && xfer(&p, IBV_WR_RDMA_WRITE, 0, (uintptr_t)m, odp->rkey,
			  LEN) == IBV_WC_SUCCESS && !memcmp(m, p.buf, LEN),
	      "kill: the device goes on: an ODP WRITE of another process");
	if (odp)
		ibv_dereg_mr(odp);
	pair_free(&p);
	munmap(m, LEN);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "vroce0";
	struct ibv_device_attr_ex attr = {};
	uint32_t want = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;

	ctx = vroce_ut_open(name);
	if (!ctx) {
		fprintf(stderr, "vroce_odp_test: cannot open %s\n", name);
		return 2;
	}
	if (ibv_query_device_ex(ctx, NULL, &attr) ||
	    !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (attr.odp_caps.per_transport_caps.rc_odp_caps & want) != want) {
		printf("# SKIP %s: no ODP for RC WRITE and READ (odp_caps %#llx, rc %#x)\n",
		       name, (unsigned long long)attr.odp_caps.general_caps,
		       attr.odp_caps.per_transport_caps.rc_odp_caps);
		return 3;
	}
	pd = ibv_alloc_pd(ctx);
	check(pd && !ibv_query_gid(ctx, 1, 0, &gid), "PD, GID 0");
	if (failed)
		return 1;
	first_touch_dontneed();
	forked();
	remapped();
	paged_out();
	sigkill_case(name);
	after_kill();
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("1..%d\n", nr);
	return failed ? 1 : 0;
}
