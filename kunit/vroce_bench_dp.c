// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_bench_dp: data-path timings for 'make bench', vroce
 * beside the kernel's own soft-RoCE provider rxe, on the same kernel-client
 * loop. Loopback between two RC QPs of one device: RDMA WRITE and SEND of
 * 64 B and 4 KiB, message rate (a window of work requests in flight) and
 * latency (one at a time). It asserts nothing about time; it prints lines
 * starting with "vroce-bench:" and is skipped unless vroce_kunit.bench=1.
 *
 * rxe is bound to dummy0 (CONFIG_DUMMY) with an IPv4 address, the way
 * 'rdma link add rxe_bench type rxe netdev dummy0' would; rxe exports
 * nothing, so this needs rxe and these tests built in.
 */

#include <kunit/test.h>
#include <linux/if.h>
#include <linux/in.h>
#include <linux/inetdevice.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define DP_WINDOW	16
#define DP_MSGS		4000
#define DP_PINGS	1000
#define DP_TIMEOUT_NS	(10ULL * NSEC_PER_SEC)
#define DP_ROUNDS	3	/* each figure is the best of these */

#if IS_BUILTIN(CONFIG_RDMA_RXE) && IS_BUILTIN(CONFIG_VROCE_KUNIT_TEST)
#define DP_HAVE_RXE 1
int rxe_net_add(const char *ibdev_name, struct net_device *ndev);
#else
#define DP_HAVE_RXE 0
#endif

struct dp_figure {
	u64 rate_ns;		/* ns per message with a window in flight */
	u64 lat_ns;		/* ns per message, one at a time */
};

/* Issue 33: the time the client's verbs calls took, in a clocked round. */
struct dp_clock {
	u64 post_ns;		/* ib_post_send() and ib_post_recv() */
	u64 poll_ns;		/* ib_poll_cq() */
};

/* Now, when @clk clocks the round; 0 otherwise. */
static u64 dp_now(const struct dp_clock *clk)
{
	return clk ? ktime_get_ns() : 0;
}

/*
 * On each of the @nd loopback pairs @d, send @n messages of @len bytes from
 * QP 0 to QP 1 with at most @window in flight, every one signaled; for
 * SEND each has a receive posted first. The pairs are served in turn.
 * With @clk, the verbs calls are clocked too.
 */
static int dp_run(struct vroce_lb *d, int nd, enum ib_wr_opcode op, u32 len,
		  int n, int window, u64 *ns, struct dp_clock *clk)
{
	u64 t, now;
	int per = op == IB_WR_SEND ? 2 : 1, left = nd, got, i, k, err = 0;
	int *posted = kcalloc(2 * nd, sizeof(*posted), GFP_KERNEL);
	u64 t0 = ktime_get_ns();
	struct ib_wc wc[16];
	int *done = posted + nd;
	bool progress;

	if (!posted)
		return -ENOMEM;
	while (left && !err) {
		progress = false;
		for (k = 0; k < nd && !err; k++) {
			struct ib_sge ssge = { .addr = d[k].dma[0],
				.length = len, .lkey = d[k].pd->local_dma_lkey };
			struct ib_sge rsge = { .addr = d[k].dma[1],
				.length = d[k].len,
				.lkey = d[k].pd->local_dma_lkey };
			struct ib_rdma_wr wr = {
				.wr = { .opcode = op, .sg_list = &ssge,
					.num_sge = 1,
					.send_flags = IB_SEND_SIGNALED },
				.remote_addr = d[k].mr->iova,
				.rkey = d[k].mr->rkey,
			};
			struct ib_recv_wr rwr = { .sg_list = &rsge,
						  .num_sge = 1 };

			if (done[k] == n * per)
				continue;
			t = dp_now(clk);
			while (posted[k] < n &&
			       posted[k] - done[k] / per < window && !err) {
				if (op == IB_WR_SEND &&
				    ib_post_recv(d[k].qp[1], &rwr, NULL))
					err = -EIO;
				else if (ib_post_send(d[k].qp[0], &wr.wr, NULL))
					err = -EIO;
				else
					posted[k]++;
			}
			if (clk) {
				now = ktime_get_ns();
				clk->post_ns += now - t;
				t = now;
			}
			got = ib_poll_cq(d[k].cq, ARRAY_SIZE(wc), wc);
			if (clk)
				clk->poll_ns += ktime_get_ns() - t;
			for (i = 0; i < got; i++)
				if (wc[i].status != IB_WC_SUCCESS)
					err = -EIO;
			done[k] += max(got, 0);
			progress |= got > 0;
			if (done[k] == n * per)
				left--;
		}
		if (!progress && !err) {
			if (ktime_get_ns() - t0 > DP_TIMEOUT_NS)
				err = -ETIMEDOUT;
			cond_resched();	/* the device's context runs */
		}
	}
	*ns = ktime_get_ns() - t0;
	kfree(posted);
	return err;
}

/*
 * @nd pairs, @n messages each with @window in flight, DP_ROUNDS times:
 * the shortest round's time into @ns. One round can lose a scheduling
 * tick or two on a busy host; the best is what the code can do.
 */
static int dp_best(struct vroce_lb *d, int nd, enum ib_wr_opcode op, u32 len,
		   int n, int window, u64 *ns)
{
	u64 t;
	int r, err;

	*ns = U64_MAX;
	for (r = 0; r < DP_ROUNDS; r++) {
		err = dp_run(d, nd, op, len, n, window, &t, NULL);
		if (err)
			return err;
		*ns = min(*ns, t);
	}
	return 0;
}

static int dp_measure(struct vroce_lb *d, enum ib_wr_opcode op, u32 len,
		      struct dp_figure *f)
{
	u64 ns;
	int err;

	err = dp_best(d, 1, op, len, DP_MSGS, DP_WINDOW, &ns);
	if (err)
		return err;
	f->rate_ns = div_u64(ns, DP_MSGS);
	err = dp_best(d, 1, op, len, DP_PINGS, 1, &ns);
	if (err)
		return err;
	f->lat_ns = div_u64(ns, DP_PINGS);
	return 0;
}

#if DP_HAVE_RXE
/* dummy0, up, with 10.91.0.1: rxe's port then has an IPv4 GID. */
static struct net_device *dp_rxe_netdev(struct kunit *test)
{
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	struct net_device *ndev;
	int err;

	ndev = dev_get_by_name(&init_net, "dummy0");
	if (!ndev)
		return NULL;
	rtnl_lock();
	err = dev_open(ndev, NULL);
	rtnl_unlock();
	if (!err) {
		strscpy(ifr.ifr_name, "dummy0", sizeof(ifr.ifr_name));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(0x0a5b0001);
		err = devinet_ioctl(&init_net, SIOCSIFADDR, &ifr);
		if (err == -EEXIST)
			err = 0;
	}
	if (err) {
		kunit_info(test, "dummy0: %d", err);
		dev_put(ndev);
		return NULL;
	}
	return ndev;
}

static int dp_ipv4_gid(struct ib_device *ibdev)
{
	const struct ib_gid_attr *attr;
	int i, found = -ENOENT;

	for (i = 0; i < ibdev->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(ibdev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw))
			found = i;
		rdma_put_gid_attr(attr);
		if (found >= 0)
			break;
	}
	return found;
}
#endif

/**
 * vroce_bench_rxe() - the rxe device the benchmarks compare vroce with
 * @test: the test
 * @lb: its loopback fixture's @ibdev, @dmac and @sgid_index are filled in
 *	(an IPv4 GID on dummy0)
 *
 * Adds rxe_bench on dummy0 the first time. Release with
 * vroce_bench_rxe_put().
 *
 * Return: true when rxe is there (built in, dummy0 up, a GID found).
 */
bool vroce_bench_rxe(struct kunit *test, struct vroce_lb *lb)
{
#if DP_HAVE_RXE
	struct net_device *ndev = dp_rxe_netdev(test);
	struct ib_device *ibdev;
	int gid;

	if (!ndev)
		return false;
	ibdev = ib_device_get_by_name("rxe_bench", RDMA_DRIVER_RXE);
	if (!ibdev && !rxe_net_add("rxe_bench", ndev))
		ibdev = ib_device_get_by_name("rxe_bench", RDMA_DRIVER_RXE);
	gid = ibdev ? dp_ipv4_gid(ibdev) : -ENODEV;
	if (gid < 0) {
		if (ibdev)
			ib_device_put(ibdev);
		dev_put(ndev);
		return false;
	}
	lb->ibdev = ibdev;
	lb->sgid_index = gid;
	/* dummy0 stays registered for as long as the kernel runs. */
	lb->dmac = ndev->dev_addr;
	dev_put(ndev);
	return true;
#else
	return false;
#endif
}

/**
 * vroce_bench_rxe_put() - drop what vroce_bench_rxe() took
 * @lb: the fixture it filled in
 */
void vroce_bench_rxe_put(struct vroce_lb *lb)
{
	ib_device_put(lb->ibdev);
	lb->ibdev = NULL;
}

static void dp_row(const char *what, const struct dp_figure *v,
		   const struct dp_figure *r)
{
	char rate[16], lat[16];
	u64 vr = div64_u64(NSEC_PER_SEC, v->rate_ns ?: 1);

	if (!r) {
		pr_info("vroce-bench: dp %-16s vroce %8llu msg/s %7llu ns/msg latency %7llu ns\n",
			what, vr, v->rate_ns, v->lat_ns);
		return;
	}
	vroce_bench_ratio(rate, sizeof(rate), r->rate_ns, v->rate_ns);
	vroce_bench_ratio(lat, sizeof(lat), r->lat_ns, v->lat_ns);
	pr_info("vroce-bench: dp %-16s vroce %8llu msg/s %7llu ns latency | rxe %8llu msg/s %7llu ns latency | rate vroce/rxe %s latency rxe/vroce %s\n",
		what, vr, v->lat_ns, div64_u64(NSEC_PER_SEC, r->rate_ns ?: 1),
		r->lat_ns, rate, lat);
}

/* Counter @c (enum vroce_counter) of vroce device @ibdev. */
static u64 dp_counter(struct ib_device *ibdev, u32 c)
{
	struct rdma_hw_stats *stats = vroce_alloc_hw_port_stats(ibdev, 1);
	u64 v = 0;

	if (stats && vroce_get_hw_stats(ibdev, stats, 1, 0) > c)
		v = stats->value[c];
	if (stats)
		rdma_free_hw_stats_struct(stats);
	return v;
}

/* One stage's row: ns per message and its share of @total. */
static void dp_stage_row(const char *what, u64 ns, u64 msgs, u64 total)
{
	u64 per = div64_u64(ns * 10, msgs ?: 1);

	pr_info("vroce-bench: stage   %-34s %5llu.%llu ns %3llu%%\n", what,
		per / 10, per % 10, div64_u64(ns * 100, total ?: 1));
}

/*
 * Issue 33, item 6: where the time of a message goes. DP_ROUNDS more
 * rounds of @what's message rate on @d, with the client's calls and the
 * HCA's engine clocked (vroce_hca_stage_clock()), the fastest kept: in
 * some rounds UML's scheduler lets the engine's work item wait some 40 us
 * per visit while the client polls, as the unclocked rounds' best hides
 * too. The clocks cost time of their own, so the round's total is printed
 * beside the unclocked best.
 */
static void dp_stages(struct kunit *test, struct vroce_lb *d,
		      const char *what, enum ib_wr_opcode op, u32 len,
		      u64 best_ns)
{
	struct vroce_hca *hca = vroce_test_hca(test);
	struct vroce_hca_stage_clock hc, rhc;
	struct dp_clock clk = {}, rclk;
	u64 ns = U64_MAX, engine = 0, rest, rnr, t;
	int err, i, r;

	rnr = dp_counter(d->ibdev, VROCE_CNT_RNR_NAK_SENT);
	for (r = 0; r < DP_ROUNDS; r++) {
		rclk = (struct dp_clock){};
		vroce_hca_stage_clock(hca, true);
		err = dp_run(d, 1, op, len, DP_MSGS, DP_WINDOW, &t, &rclk);
		vroce_hca_stage_clock(hca, false);
		vroce_hca_stage_read(hca, &rhc);
		KUNIT_ASSERT_EQ(test, err, 0);
		/* Every message was executed in a clocked visit. */
		KUNIT_EXPECT_EQ(test, rhc.wqes, DP_MSGS);
		KUNIT_EXPECT_GT(test, rhc.visits, 0);
		if (t < ns) {
			ns = t;
			hc = rhc;
			clk = rclk;
		}
	}
	rnr = dp_counter(d->ibdev, VROCE_CNT_RNR_NAK_SENT) - rnr;

	pr_info("vroce-bench: stages of %s, %d messages, %d in flight, best of %d clocked rounds: %llu ns per message clocked, %llu unclocked; %llu.%llu messages per engine visit, %llu RNR waits in the %d rounds\n",
		what, DP_MSGS, DP_WINDOW, DP_ROUNDS, div_u64(ns, DP_MSGS), best_ns,
		div64_u64(hc.wqes, hc.visits ?: 1),
		div64_u64(hc.wqes * 10, hc.visits ?: 1) % 10, rnr, DP_ROUNDS);
	dp_stage_row("client: post_send (and recv)", clk.post_ns, DP_MSGS, ns);
	dp_stage_row("engine: visit (locks, raise)",
		     hc.ns[VROCE_HCA_STAGE_VISIT], DP_MSGS, ns);
	dp_stage_row("engine: producer indexes",
		     hc.ns[VROCE_HCA_STAGE_SYNC], DP_MSGS, ns);
	dp_stage_row("engine: WQE fetch and check",
		     hc.ns[VROCE_HCA_STAGE_FETCH], DP_MSGS, ns);
	dp_stage_row("engine: execute (keys, copy, peer)",
		     hc.ns[VROCE_HCA_STAGE_EXEC], DP_MSGS, ns);
	dp_stage_row("engine: requester CQE",
		     hc.ns[VROCE_HCA_STAGE_COMPLETE], DP_MSGS, ns);
	dp_stage_row("client: poll_cq", clk.poll_ns, DP_MSGS, ns);
	for (i = VROCE_HCA_STAGE_VISIT; i < VROCE_HCA_STAGES; i++)
		engine += hc.ns[i];
	rest = ns - min(ns, clk.post_ns + clk.poll_ns + engine);
	dp_stage_row("rest: switches, wake-ups, the loop", rest, DP_MSGS, ns);
	/* Latency, overlapping the rest: not part of the sum. */
	pr_info("vroce-bench: stage   (doorbell to visit start, latency: %llu ns per visit)\n",
		div64_u64(hc.ns[VROCE_HCA_STAGE_WAKE], hc.visits ?: 1));
}

static void vroce_bench_dp_loopback(struct kunit *test)
{
	static const struct {
		const char *what;
		enum ib_wr_opcode op;
		u32 len;
	} cases[] = {
		{ "RDMA WRITE 64 B", IB_WR_RDMA_WRITE, 64 },
		{ "RDMA WRITE 4 KiB", IB_WR_RDMA_WRITE, SZ_4K },
		{ "SEND 64 B", IB_WR_SEND, 64 },
		{ "SEND 4 KiB", IB_WR_SEND, SZ_4K },
	};
	struct dp_figure v[ARRAY_SIZE(cases)] = {}, r[ARRAY_SIZE(cases)] = {};
	struct vroce_lb vd = { .len = SZ_4K }, rd = { .len = SZ_4K };
	struct vroce_dev *vdev;
	bool have_rxe = false;
	int i;

	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");

	vdev = vroce_test_dev(test);
	vd.ibdev = &vdev->ibdev;
	vd.dmac = vdev->netdev->dev_addr;
	KUNIT_EXPECT_EQ(test, vroce_lb_setup(&vd), 0);
	for (i = 0; i < ARRAY_SIZE(cases) && test->status == KUNIT_SUCCESS;
	     i++)
		KUNIT_EXPECT_EQ(test, dp_measure(&vd, cases[i].op, cases[i].len,
						 &v[i]), 0);
	/* Issue 33, item 6: the 64 B rows, stage by stage. */
	for (i = 0; i < ARRAY_SIZE(cases) && test->status == KUNIT_SUCCESS;
	     i++)
		if (cases[i].len == 64)
			dp_stages(test, &vd, cases[i].what, cases[i].op,
				  cases[i].len, v[i].rate_ns);
	vroce_lb_teardown(&vd);
	KUNIT_ASSERT_EQ(test, test->status, KUNIT_SUCCESS);

	if (vroce_bench_rxe(test, &rd)) {
		have_rxe = !vroce_lb_setup(&rd);
		for (i = 0; have_rxe && i < ARRAY_SIZE(cases); i++)
			have_rxe = !dp_measure(&rd, cases[i].op, cases[i].len,
					       &r[i]);
		vroce_lb_teardown(&rd);
		vroce_bench_rxe_put(&rd);
	}
	if (!have_rxe)
		kunit_info(test, "rxe not available: vroce figures only");
	pr_info("vroce-bench: data path, loopback RC, %d messages with %d in flight, %d one at a time, signaled, best of %d rounds\n",
		DP_MSGS, DP_WINDOW, DP_PINGS, DP_ROUNDS);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (have_rxe)
			dp_row(cases[i].what, &v[i], &r[i]);
		else
			dp_row(cases[i].what, &v[i], NULL);
	}
}

#define DP_QPS		16
#define DP_QPS_MSGS	(4 * DP_MSGS)

/*
 * Messages per second over DP_QPS loopback pairs of @proto's device at
 * once, DP_QPS_MSGS in all, DP_WINDOW in flight on each; 0 when the pairs
 * cannot be set up.
 */
static u64 dp_many(struct kunit *test, const struct vroce_lb *proto,
		   enum ib_wr_opcode op, u32 len)
{
	struct vroce_lb *d = kunit_kcalloc(test, DP_QPS, sizeof(*d),
					   GFP_KERNEL);
	int i, err = 0;
	u64 ns = 0;

	KUNIT_ASSERT_NOT_NULL(test, d);
	for (i = 0; i < DP_QPS && !err; i++) {
		d[i] = (struct vroce_lb){ .ibdev = proto->ibdev,
			.dmac = proto->dmac, .sgid_index = proto->sgid_index,
			.len = SZ_4K };
		err = vroce_lb_setup(&d[i]);
	}
	if (!err)
		err = dp_best(d, DP_QPS, op, len, DP_QPS_MSGS / DP_QPS,
			      DP_WINDOW, &ns);
	for (i = 0; i < DP_QPS; i++)
		vroce_lb_teardown(&d[i]);
	if (err)
		kunit_info(test, "%s, %d QPs: %d", dev_name(&proto->ibdev->dev),
			   DP_QPS, err);
	return err ? 0 : div64_u64((u64)DP_QPS_MSGS * NSEC_PER_SEC, ns ?: 1);
}

/*
 * The message rate with one QP pair and with DP_QPS pairs at once: each
 * QP has an engine of its own (a work item), which UML's one CPU runs in
 * turn; on more CPUs they run side by side.
 */
static void vroce_bench_dp_qps(struct kunit *test)
{
	static const struct {
		const char *what;
		enum ib_wr_opcode op;
		u32 len;
	} cases[] = {
		{ "RDMA WRITE 64 B", IB_WR_RDMA_WRITE, 64 },
		{ "SEND 64 B", IB_WR_SEND, 64 },
	};
	u64 v[ARRAY_SIZE(cases)][2] = {}, r[ARRAY_SIZE(cases)][2] = {};
	struct vroce_lb vd = {}, rd = {};
	char x[4][16];
	struct vroce_dev *vdev;
	bool have_rxe;
	int i, k;

	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	vdev = vroce_test_dev(test);
	vd.ibdev = &vdev->ibdev;
	vd.dmac = vdev->netdev->dev_addr;
	have_rxe = vroce_bench_rxe(test, &rd);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (k = 0; k < 2; k++) {
			struct dp_figure f = {};
			struct vroce_lb *p = k ? &rd : &vd;
			u64 *out = k ? r[i] : v[i];
			struct vroce_lb one;

			if (k && !have_rxe)
				continue;
			one = (struct vroce_lb){ .ibdev = p->ibdev,
				.dmac = p->dmac, .sgid_index = p->sgid_index,
				.len = SZ_4K };
			if (!vroce_lb_setup(&one) &&
			    !dp_measure(&one, cases[i].op, cases[i].len, &f))
				out[0] = div64_u64(NSEC_PER_SEC,
						   f.rate_ns ?: 1);
			vroce_lb_teardown(&one);
			out[1] = dp_many(test, p, cases[i].op, cases[i].len);
			KUNIT_EXPECT_NE(test, out[0], 0);
			KUNIT_EXPECT_NE(test, out[1], 0);
		}
	}
	if (have_rxe)
		vroce_bench_rxe_put(&rd);
	pr_info("vroce-bench: qps messages per second, 1 and %d loopback RC pairs at once, %d in flight on each, best of %d rounds\n",
		DP_QPS, DP_WINDOW, DP_ROUNDS);
	pr_info("vroce-bench: qps %-16s %9s %9s %6s | %9s %9s %6s | %7s %7s\n",
		"operation", "vroce 1", "vroce 16", "16/1", "rxe 1", "rxe 16",
		"16/1", "v/r 1", "v/r 16");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		vroce_bench_ratio(x[0], sizeof(x[0]), v[i][1], v[i][0]);
		vroce_bench_ratio(x[1], sizeof(x[1]), r[i][1], r[i][0]);
		vroce_bench_ratio(x[2], sizeof(x[2]), v[i][0], r[i][0]);
		vroce_bench_ratio(x[3], sizeof(x[3]), v[i][1], r[i][1]);
		pr_info("vroce-bench: qps %-16s %9llu %9llu %6s | %9llu %9llu %6s | %7s %7s\n",
			cases[i].what, v[i][0], v[i][1], x[0], r[i][0], r[i][1],
			x[1], x[2], x[3]);
	}
}

/* ---- issue 33: on-demand paging MRs ---- */

#define DP_ODP_ACC	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)
#define DP_ODP_FRESH	(16 * SZ_1M)	/* memory no one touched yet */
#define DP_ODP_INVAL	256		/* munmaps timed */

KUNIT_DEFINE_ACTION_WRAPPER(dp_dereg, ib_dereg_mr, struct ib_mr *);
KUNIT_DEFINE_ACTION_WRAPPER(dp_lb_teardown, vroce_lb_teardown,
			    struct vroce_lb *);

/* An MR over user memory, deregistered when the test ends. */
static struct ib_mr *dp_user_mr(struct kunit *test, struct ib_pd *pd, u64 va,
				u64 len, int access)
{
	struct ib_mr *mr = ib_reg_user_mr(pd, va, len, va, access);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dp_dereg, mr), 0);
	return mr;
}

/*
 * @n WRITEs of @len bytes from @d's buffer into @mr, one at a time, the
 * i-th at @va + i * @stride: their time in @ns.
 */
static int dp_odp_writes(struct vroce_lb *d, struct ib_mr *mr, u64 va,
			 u32 len, u64 stride, int n, u64 *ns)
{
	struct ib_sge sge = { .addr = d->dma[0], .length = len,
			      .lkey = d->pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.rkey = mr->rkey,
	};
	u64 t0 = ktime_get_ns();
	struct ib_wc wc;
	int i, got;

	for (i = 0; i < n; i++) {
		wr.remote_addr = va + i * stride;
		if (ib_post_send(d->qp[0], &wr.wr, NULL))
			return -EIO;
		while (!(got = ib_poll_cq(d->cq, 1, &wc))) {
			if (ktime_get_ns() - t0 > DP_TIMEOUT_NS)
				return -ETIMEDOUT;
			cond_resched();
		}
		if (got < 0 || wc.status != IB_WC_SUCCESS)
			return -EIO;
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

/* The page faults @ibdev's HCA raised so far. */
static u64 dp_faults(struct kunit *test, struct vroce_dev *vdev)
{
	u64 v[VROCE_CNT_NUM];

	KUNIT_ASSERT_EQ(test, vroce_cmd_query_counters(vdev, v), 0);
	return v[VROCE_CNT_PAGE_FAULTS];
}

/*
 * First touches of @fresh bytes of memory nobody touched, through an ODP
 * MR: WRITEs of @len every @stride bytes, then the same again with the
 * pages present. Prints the difference per @what and per fault.
 */
static void dp_odp_touch(struct kunit *test, struct vroce_lb *d,
			 const char *what, u32 len, u64 stride)
{
	struct vroce_dev *vdev = to_vroce_dev(d->ibdev);
	unsigned long va = kunit_vm_mmap(test, NULL, 0, DP_ODP_FRESH,
					 PROT_READ | PROT_WRITE,
					 MAP_ANONYMOUS | MAP_PRIVATE, 0);
	int n = DP_ODP_FRESH / stride, per = stride / len;
	u64 cold, warm, faults;
	struct ib_mr *mr;

	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(va));
	mr = dp_user_mr(test, d->pd, va, DP_ODP_FRESH,
			DP_ODP_ACC | IB_ACCESS_ON_DEMAND);
	faults = dp_faults(test, vdev);
	KUNIT_ASSERT_EQ(test, dp_odp_writes(d, mr, va, len, len, n * per,
					    &cold), 0);
	faults = dp_faults(test, vdev) - faults;
	KUNIT_ASSERT_EQ(test, dp_odp_writes(d, mr, va, len, len, n * per,
					    &warm), 0);
	pr_info("vroce-bench: odp first touch per %s: %llu ns (%llu ns cold, %llu ns present, %d x %u B WRITEs over %d MiB); %llu faults, %llu ns each\n",
		what, div_u64(cold > warm ? cold - warm : 0, n),
		div_u64(cold, n), div_u64(warm, n), n * per, len,
		DP_ODP_FRESH / SZ_1M, faults,
		div64_u64(cold > warm ? cold - warm : 0, faults ?: 1));
}

/*
 * Average time of DP_ODP_INVAL munmaps of a 4 KiB page at @va, mapped
 * again after each: with @mr, the HCA has the page mapped first (a WRITE
 * into it), and the munmap waits for the invalidation and its fence.
 */
static u64 dp_odp_munmap(struct kunit *test, struct vroce_lb *d,
			 struct ib_mr *mr, unsigned long va, u64 *cmds)
{
	struct vroce_dev *vdev = to_vroce_dev(d->ibdev);
	u64 sum = 0, t, ns;
	u32 one = 1, pi;
	int i;

	*cmds = 0;

	for (i = 0; i < DP_ODP_INVAL; i++) {
		if (mr)
			KUNIT_ASSERT_EQ(test, dp_odp_writes(d, mr, va, 64, 0, 1,
							    &ns), 0);
		else
			KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)va,
							   &one, sizeof(one)),
					0);
		pi = READ_ONCE(vdev->cmdq.pi);
		t = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, vm_munmap(va, SZ_4K), 0);
		sum += ktime_get_ns() - t;
		*cmds += (u32)(READ_ONCE(vdev->cmdq.pi) - pi);
		KUNIT_ASSERT_EQ(test, vm_mmap(NULL, va, SZ_4K,
					      PROT_READ | PROT_WRITE,
					      MAP_ANONYMOUS | MAP_PRIVATE |
					      MAP_FIXED, 0), va);
	}
	return div_u64(sum, DP_ODP_INVAL);
}

/*
 * Issue 33's ODP table: 64 KiB WRITE bandwidth into an ODP MR with its
 * pages present against a pinned MR over the same memory (goal: at least
 * 90%), first touches per 4 KiB page and per 2 MiB, and the latency an
 * invalidation adds to a munmap. vroce only: 6.12's rxe has no ODP.
 */
static void vroce_bench_dp_odp(struct kunit *test)
{
	struct vroce_lb *vd = kunit_kzalloc(test, sizeof(*vd), GFP_KERNEL);
	struct ib_mr *pinned, *odp, *keep;
	u64 ns[2], mbs[2], inval[2], cmds[2];
	unsigned long user, page;
	struct vroce_dev *vdev;
	char ratio[16];
	int i;

	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	KUNIT_ASSERT_NOT_NULL(test, vd);
	vdev = vroce_test_dev(test);
	vd->len = SZ_64K;
	vd->ibdev = &vdev->ibdev;
	vd->dmac = vdev->netdev->dev_addr;
	/* Torn down at the end, after the MRs made below: LIFO. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dp_lb_teardown,
							vd), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_setup(vd), 0);
	keep = vd->mr;

	user = vroce_test_user_mem(test, SZ_64K, 3);
	pinned = dp_user_mr(test, vd->pd, user, SZ_64K, DP_ODP_ACC);
	odp = dp_user_mr(test, vd->pd, user, SZ_64K,
			 DP_ODP_ACC | IB_ACCESS_ON_DEMAND);
	for (i = 0; i < 2 && test->status == KUNIT_SUCCESS; i++) {
		vd->mr = i ? odp : pinned;
		/* One WRITE first: an ODP MR's pages become present. */
		KUNIT_EXPECT_EQ(test, dp_odp_writes(vd, vd->mr, user, SZ_64K,
						    0, 1, &ns[i]), 0);
		KUNIT_EXPECT_EQ(test, dp_best(vd, 1, IB_WR_RDMA_WRITE, SZ_64K,
					      DP_MSGS / 4, DP_WINDOW, &ns[i]),
				0);
		mbs[i] = div64_u64((u64)DP_MSGS / 4 * SZ_64K * 1000, ns[i] ?: 1);
	}
	vd->mr = keep;
	dp_odp_touch(test, vd, "4 KiB page", SZ_4K, SZ_4K);
	dp_odp_touch(test, vd, "2 MiB", SZ_64K, SZ_2M);

	page = vroce_test_user_mem(test, 2 * SZ_4K, 5);
	inval[0] = dp_odp_munmap(test, vd, NULL, page, &cmds[0]);
	odp = dp_user_mr(test, vd->pd, page, 2 * SZ_4K,
			 DP_ODP_ACC | IB_ACCESS_ON_DEMAND);
	inval[1] = dp_odp_munmap(test, vd, odp, page, &cmds[1]);

	vroce_bench_ratio(ratio, sizeof(ratio), mbs[1], mbs[0]);
	pr_info("vroce-bench: odp WRITE 64 KiB, %d with %d in flight, best of %d: pinned %llu MB/s, on demand (pages present) %llu MB/s: %s (goal: at least 0.90x)\n",
		DP_MSGS / 4, DP_WINDOW, DP_ROUNDS, mbs[0], mbs[1], ratio);
	pr_info("vroce-bench: odp invalidation: munmap of a 4 KiB page %llu ns with the HCA's entry and fence (%llu commands in %d munmaps), %llu ns with no MR (%llu commands)\n",
		inval[1], cmds[1], DP_ODP_INVAL, inval[0], cmds[0]);
}

static struct kunit_case vroce_bench_dp_cases[] = {
	KUNIT_CASE_SLOW(vroce_bench_dp_loopback),
	KUNIT_CASE_SLOW(vroce_bench_dp_qps),
	KUNIT_CASE_SLOW(vroce_bench_dp_odp),
	{}
};

static struct kunit_suite vroce_bench_dp_suite = {
	.name = "vroce_bench_dp",
	.test_cases = vroce_bench_dp_cases,
};

kunit_test_suite(vroce_bench_dp_suite);
