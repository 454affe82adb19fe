// SPDX-License-Identifier: GPL-2.0
/*
 * A process that holds an RDMA device while the device goes away under
 * it: hot unplug (the driver is unbound) or death (the HCA stops
 * answering). Run by scripts/unplug-guest.sh, which does the unbinding or
 * hangs the HCA once this program says it is ready.
 *
 * Usage: vroce_unplug_test DEV MODE READY
 *   DEV    the device (vroce0)
 *   MODE   "unplug": the device is removed; "dead": its HCA hangs;
 *          "traffic": nothing happens to it, the traffic runs 2 s
 *   (environment UNPLUG_WAIT_S: how long to wait for the device to go,
 *   default 30 s)
 *   READY  a file created once the objects exist and traffic runs
 *
 * It makes a PD, an MR, a CQ and two RC QPs connected to each other, and
 * runs RDMA WRITEs between them until the device goes. Then it expects:
 * IBV_EVENT_DEVICE_FATAL on the async event queue within 10 s, new verbs
 * failing (a PD, an MR), and every object it holds still destroyed
 * without error, then the device closed. Exit status 0 when all of that
 * held; the last line says what it saw.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vroce_ut.h"

#define BUF_LEN		0x100000
#define MSG_LEN		4096

static atomic_int fatal_seen;
static atomic_long fatal_ms;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void *async_thread(void *arg)
{
	struct ibv_context *ctx = arg;
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		int type = ev.event_type;

		ibv_ack_async_event(&ev);
		if (type == IBV_EVENT_DEVICE_FATAL) {
			atomic_store(&fatal_ms, now_ms());
			atomic_store(&fatal_seen, 1);
			break;	/* the end of the event stream */
		}
		fprintf(stderr, "async event %s\n", ibv_event_type_str(type));
	}
	return NULL;
}

#define FAIL(...) do {				\
		fprintf(stderr, __VA_ARGS__);		\
		fputc('\n', stderr);			\
		exit(1);				\
	} while (0)

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const char *wait_s = getenv("UNPLUG_WAIT_S");
	long limit = wait_s ? atol(wait_s) * 1000 : 30000;
	long writes = 0, gone_ms = 0, start, t;
	int post_err = 0, poll_err = 0, status = -1, i, n, bad = 0;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	union ibv_gid gid;
	pthread_t thr;
	struct ibv_wc wc;
	const char *mode;
	char *buf;
	FILE *f;

	if (argc != 4)
		FAIL("usage: %s DEV unplug|dead|traffic READY", argv[0]);
	mode = argv[2];
	ctx = vroce_ut_open(argv[1]);
	if (!ctx)
		FAIL("no device %s", argv[1]);
	if (ibv_query_gid(ctx, 1, 0, &gid))
		FAIL("query_gid: %s", strerror(errno));
	buf = aligned_alloc(4096, BUF_LEN);
	if (!buf)
		FAIL("no memory");
	memset(buf, 0x5a, BUF_LEN);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd || !mr || !cq)
		FAIL("pd/mr/cq: %s", strerror(errno));
	qia.send_cq = cq;
	qia.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		qp[i] = ibv_create_qp(pd, &qia);
		if (!qp[i])
			FAIL("create_qp: %s", strerror(errno));
	}
	for (i = 0; i < 2; i++)
		if (vroce_ut_connect(qp[i], qp[!i]->qp_num, &gid,
				     IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_LOCAL_WRITE, 12))
			FAIL("connect: %s", strerror(errno));
	if (pthread_create(&thr, NULL, async_thread, ctx))
		FAIL("pthread_create");

	f = fopen(argv[3], "w");
	if (!f)
		FAIL("%s: %s", argv[3], strerror(errno));
	fclose(f);

	/* Writes from qp0 into the second half of the buffer, one by one. */
	start = now_ms();
	for (;;) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf + (writes % 64) * MSG_LEN,
			.length = MSG_LEN, .lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = writes, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma.remote_addr = (uintptr_t)buf + BUF_LEN / 2 +
					       (writes % 64) * MSG_LEN,
			.wr.rdma.rkey = mr->rkey,
		}, *badwr;

		if (!strcmp(mode, "traffic") && now_ms() - start > 2000)
			break;
		if (now_ms() - start > limit)
			FAIL("the device did not go within %ld ms (%ld writes)",
			     limit, writes);
		post_err = ibv_post_send(qp[0], &wr, &badwr);
		if (post_err)
			break;
		t = now_ms();
		do {
			n = ibv_poll_cq(cq, 1, &wc);
		} while (!n && now_ms() - t < 5000);
		if (n < 0) {
			poll_err = n;
			break;
		}
		if (!n)
			continue;	/* lost: a dead HCA may lose one */
		if (wc.status != IBV_WC_SUCCESS) {
			status = wc.status;
			break;
		}
		writes++;
	}
	gone_ms = now_ms();

	if (!strcmp(mode, "traffic")) {
		if (writes < 10)
			FAIL("only %ld writes in 2 s", writes);
		pthread_cancel(thr);
	} else {
		/* The device went: the event stream ends with its death. */
		for (t = now_ms(); !atomic_load(&fatal_seen) &&
		     now_ms() - t < 10000;)
			usleep(10000);
		if (!atomic_load(&fatal_seen)) {
			fprintf(stderr, "no IBV_EVENT_DEVICE_FATAL\n");
			bad++;
		}
		/* New verbs fail. */
		if (ibv_alloc_pd(ctx)) {
			fprintf(stderr, "alloc_pd worked on a device gone\n");
			bad++;
		}
		if (ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE)) {
			fprintf(stderr, "reg_mr worked on a device gone\n");
			bad++;
		}
	}
	pthread_join(thr, NULL);

	/* What the process holds still goes, without error. */
	for (i = 0; i < 2; i++)
		if (ibv_destroy_qp(qp[i])) {
			fprintf(stderr, "destroy_qp: %s\n", strerror(errno));
			bad++;
		}
	if (ibv_destroy_cq(cq)) {
		fprintf(stderr, "destroy_cq: %s\n", strerror(errno));
		bad++;
	}
	if (ibv_dereg_mr(mr)) {
		fprintf(stderr, "dereg_mr: %s\n", strerror(errno));
		bad++;
	}
	if (ibv_dealloc_pd(pd)) {
		fprintf(stderr, "dealloc_pd: %s\n", strerror(errno));
		bad++;
	}
	if (ibv_close_device(ctx)) {
		fprintf(stderr, "close_device: %s\n", strerror(errno));
		bad++;
	}
	free(buf);
	printf("%s: %ld writes; ended by %s%s%s; DEVICE_FATAL %s",
	       mode, writes,
	       post_err ? "post_send " : poll_err ? "poll_cq " :
	       status >= 0 ? "completion " : "time",
	       post_err ? strerror(post_err) : poll_err ? "error" : "",
	       status >= 0 ? ibv_wc_status_str(status) : "",
	       atomic_load(&fatal_seen) ? "" : "not seen");
	if (atomic_load(&fatal_seen))
		printf("%ld ms after the last good write",
		       atomic_load(&fatal_ms) - gone_ms > 0 ?
		       atomic_load(&fatal_ms) - gone_ms : 0);
	printf("; %s\n", bad ? "FAIL" : "ok");
	return bad ? 1 : 0;
}
