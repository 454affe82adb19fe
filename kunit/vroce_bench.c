// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_bench: timings of the MTR against baselines, for
 * 'make bench'. It asserts nothing about time; it prints lines starting
 * with "vroce-bench:" and is skipped unless the kernel command line has
 * vroce_kunit.bench=1.
 *
 * The same 262,144 page addresses (1 GiB of 4 KiB pages; then 512 of
 * 2 MiB, looked up 512 times over) are written and read back, a round of
 * each way in turn after the two bounds (limit, call floor), by:
 *   limit   - a plain copy of the 8-byte entries into memory already there
 *   vroce   - a table-only MTR: vroce_mtr_create() + vroce_mtr_map(),
 *             vroce_mtr_find() for every page, then 64 pages per call
 *             ("find x64"), vroce_mtr_destroy()
 *   xarray  - a page list in an xarray, xa_store()/xa_load() (rxe's way)
 *   pdir    - a fixed two-level 512 x 512 page directory of DMA-coherent
 *             pages (pvrdma's way)
 *
 * And MR registration through ib_core, MR objects of whichever side the
 * kernel was built with: ib_reg_user_mr() + ib_dereg_mr() of 4 KiB and
 * 2 MiB of user memory, cold (MR cache off: an MTR and CREATE_MR each) and
 * from the MR cache; the first burst of 8 registrations of 4 KiB held at
 * once after one registration of that size, cold, from the cache, and
 * from the cache prefilled to 8 by its refill work; ib_alloc_mr() + ib_map_mr_sg() (32 pages) +
 * ib_dereg_mr(), in registrations per second; beside them two
 * QUERY_DEVICE commands and no MR code, the baseline of the kernel
 * itself, and pinning alone: with two commands, the floor of any
 * registration.
 */

#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>

#include "../bindings/vroce_abi.h"
#include "../c/driver/vroce.h"
#include "vroce_test.h"

bool vroce_bench_enabled;
module_param_named(bench, vroce_bench_enabled, bool, 0444);
MODULE_PARM_DESC(bench, "run the vroce_bench suite (make bench)");

#define BENCH_ROUNDS	5
/* The MTR's rounds take milliseconds: more of them, a steadier best. */
#define BENCH_MTR_ROUNDS	15
#define PDIR_ENTRIES	512

enum { T_BUILD, T_FIND, T_FIND_BATCH, T_FREE, T_CREATE, T_MAP, T_NR };

/* Pages per vroce_mtr_find() call in the batched lookup. */
#define BENCH_BATCH	64
/* Lookups per round at least, whatever the table's size. */
#define BENCH_LOOKUPS	262144

struct bench_result {
	u64 ns[T_NR];		/* best of the rounds */
};

static void bench_keep_best(struct bench_result *best, const u64 *ns)
{
	int t;

	for (t = 0; t < T_NR; t++)
		if (!best->ns[t] || ns[t] < best->ns[t])
			best->ns[t] = ns[t];
}

/* A fake DMA address per page; nothing behind them is ever touched. */
static dma_addr_t *bench_pages(struct kunit *test, u64 n, u32 shift)
{
	dma_addr_t *pages = kunit_kmalloc_array(test, n, sizeof(*pages),
						GFP_KERNEL);
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < n; i++)
		pages[i] = BIT_ULL(40) + (i << shift);
	return pages;
}

/*
 * The least a find through the ABI can cost: a call, not inlined, with
 * find's arguments, that loads the page's address from a flat array and
 * stores it. vroce_mtr_find() is such a call, plus its checks and walk.
 */
static noinline int bench_floor_find(const dma_addr_t *pages, u64 offset,
				     u64 *addrs, u32 max, u64 *base_addr)
{
	addrs[0] = pages[offset >> 12];
	return 1;
}

/*
 * What one round of each way takes, the lookups repeated @reps times: a
 * table of 512 pages is looked up as often as one of 262,144, so that its
 * figures stand above the clock's resolution.
 */
struct bench_mtr_ctx {
	struct kunit *test;
	struct vroce_dev *vdev;
	const dma_addr_t *pages;
	u64 n;
	u64 reps;
	u32 shift;
	__le64 *copy;		/* the limit's destination */
};

/*
 * What a way's lookups of every page, @reps times over, must add up to:
 * checked, so that no loop is dead and none finds the wrong pages. Each
 * way sums into a local (one behind a pointer could alias the tables: a
 * load and a store a page).
 */
static void bench_expect_sum(struct bench_mtr_ctx *b, u64 sum,
			     const char *what)
{
	u64 n = b->n;

	KUNIT_EXPECT_EQ_MSG(b->test, sum,
			    b->reps * (n * b->pages[0] +
				       ((n * (n - 1) / 2) << b->shift)),
			    "%s", what);
}

static u64 bench_call_floor(struct bench_mtr_ctx *b)
{
	int (*find)(const dma_addr_t *pages, u64 offset, u64 *addrs, u32 max,
		    u64 *base_addr) = bench_floor_find;
	u64 t0, i, k, addr, sum = 0;

	/* Called through a pointer the compiler cannot see through. */
	OPTIMIZER_HIDE_VAR(find);
	t0 = ktime_get_ns();
	for (k = 0; k < b->reps; k++)
		for (i = 0; i < b->n; i++) {
			find(b->pages, i << 12, &addr, 1, NULL);
			sum += addr;
		}
	t0 = ktime_get_ns() - t0;
	bench_expect_sum(b, sum, "call floor");
	return t0;
}

/* The entries copied @reps times, as often as the lookups run. */
static u64 bench_limit(struct bench_mtr_ctx *b)
{
	u64 t0 = ktime_get_ns(), k;

	for (k = 0; k < b->reps; k++)
		memcpy(b->copy, b->pages, b->n * sizeof(*b->copy));
	return ktime_get_ns() - t0;
}

/* Every page, @max a call, into @batch; the sum of what was found. */
static u64 bench_find_batch(struct bench_mtr_ctx *b, struct vroce_mtr *mtr,
			    u64 *batch, u32 max, u64 *sum)
{
	u64 t0 = ktime_get_ns(), i, k, s = 0;
	int got, j;

	/* A local sum: *@sum might alias @batch, a load and store a page. */
	for (k = 0; k < b->reps; k++)
		for (i = 0; i < b->n; i += got) {
			got = vroce_mtr_find(b->vdev, mtr, i << b->shift, batch,
					     max, NULL);
			KUNIT_ASSERT_GT(b->test, got, 0);
			for (j = 0; j < got; j++)
				s += batch[j];
		}
	t0 = ktime_get_ns() - t0;
	*sum = s;
	return t0;
}

static void bench_vroce(struct bench_mtr_ctx *b, u64 *ns, u64 *table_bytes,
			u32 *hopnum)
{
	struct vroce_buf_attr attr = {
		.region = { { b->n << b->shift, 0 } }, .region_count = 1,
		.page_shift = b->shift, .mtt_only = true, .adaptive = true,
	};
	s64 before = atomic64_read(&b->vdev->mem.dma_bytes);
	struct kunit *test = b->test;
	u64 t0, t1, i, k, addr, sum = 0, bsum = 0, n = b->n;
	struct vroce_mtr_region rgn;
	struct vroce_mtr *mtr;
	u64 batch[BENCH_BATCH];

	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, vroce_mtr_create(b->vdev, &mtr, &attr, 12, NULL,
					       0), 0);
	t1 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, vroce_mtr_map(b->vdev, mtr, b->pages, n), 0);
	ns[T_BUILD] = ktime_get_ns() - t0;
	ns[T_CREATE] = t1 - t0;
	ns[T_MAP] = ns[T_BUILD] - ns[T_CREATE];
	*table_bytes = atomic64_read(&b->vdev->mem.dma_bytes) - before;
	KUNIT_ASSERT_EQ(test, vroce_mtr_region(mtr, 0, &rgn), 0);
	*hopnum = rgn.hopnum;

	t0 = ktime_get_ns();
	for (k = 0; k < b->reps; k++)
		for (i = 0; i < n; i++) {
			vroce_mtr_find(b->vdev, mtr, i << b->shift, &addr, 1,
				       NULL);
			sum += addr;
		}
	ns[T_FIND] = ktime_get_ns() - t0;

	ns[T_FIND_BATCH] = bench_find_batch(b, mtr, batch, BENCH_BATCH, &bsum);

	t0 = ktime_get_ns();
	vroce_mtr_destroy(b->vdev, mtr);
	ns[T_FREE] = ktime_get_ns() - t0;

	bench_expect_sum(b, sum, "find");
	bench_expect_sum(b, bsum, "find x64");
}

static void bench_xarray(struct bench_mtr_ctx *b, u64 *ns)
{
	struct kunit *test = b->test;
	u64 t0, i, k, sum = 0;
	struct xarray xa;

	xa_init(&xa);
	t0 = ktime_get_ns();
	for (i = 0; i < b->n; i++)
		KUNIT_ASSERT_FALSE(test,
				   xa_is_err(xa_store(&xa, i,
						      xa_mk_value(b->pages[i] >> 12),
						      GFP_KERNEL)));
	ns[T_BUILD] = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	for (k = 0; k < b->reps; k++)
		for (i = 0; i < b->n; i++)
			sum += xa_to_value(xa_load(&xa, i)) << 12;
	ns[T_FIND] = ktime_get_ns() - t0;
	bench_expect_sum(b, sum, "xa_load");

	t0 = ktime_get_ns();
	xa_destroy(&xa);
	ns[T_FREE] = ktime_get_ns() - t0;
}

/* pvrdma-style: a directory page of PDIR_ENTRIES table pages. */
static void bench_pdir(struct bench_mtr_ctx *b, u64 *ns)
{
	struct { u64 *va; dma_addr_t dma; } dir, *tables;
	struct device *dma_dev = b->vdev->dma_dev;
	struct kunit *test = b->test;
	u64 t0, i, k, ntables, sum = 0;

	ntables = DIV_ROUND_UP_ULL(b->n, PDIR_ENTRIES);
	KUNIT_ASSERT_LE(test, ntables, PDIR_ENTRIES);
	tables = kunit_kcalloc(test, ntables, sizeof(*tables), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tables);

	t0 = ktime_get_ns();
	dir.va = dma_alloc_coherent(dma_dev, PAGE_SIZE, &dir.dma, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dir.va);
	for (i = 0; i < ntables; i++) {
		tables[i].va = dma_alloc_coherent(dma_dev, PAGE_SIZE,
						  &tables[i].dma, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, tables[i].va);
		dir.va[i] = tables[i].dma;
	}
	for (i = 0; i < b->n; i++)
		tables[i / PDIR_ENTRIES].va[i % PDIR_ENTRIES] = b->pages[i];
	ns[T_BUILD] = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	for (k = 0; k < b->reps; k++)
		for (i = 0; i < b->n; i++)
			sum += tables[i / PDIR_ENTRIES].va[i % PDIR_ENTRIES];
	ns[T_FIND] = ktime_get_ns() - t0;
	bench_expect_sum(b, sum, "page directory");

	t0 = ktime_get_ns();
	for (i = 0; i < ntables; i++)
		dma_free_coherent(dma_dev, PAGE_SIZE, tables[i].va,
				  tables[i].dma);
	dma_free_coherent(dma_dev, PAGE_SIZE, dir.va, dir.dma);
	ns[T_FREE] = ktime_get_ns() - t0;
	kunit_kfree(test, tables);
}

/* ns per page, with two decimals, as "12.34". */
static void bench_fmt(char *buf, size_t len, u64 ns, u64 n)
{
	u64 centi = div64_u64(ns * 100, n);

	snprintf(buf, len, "%llu.%02llu", centi / 100, centi % 100);
}

/* a / b, with two decimals; "-" when b is 0. */
/**
 * vroce_bench_ratio() - @a over @b as "1.23x", for the benchmarks' tables
 * @buf: where the text goes
 * @len: its room
 * @a: the figure on top
 * @b: the figure below
 *
 * A zero figure is one not measured (or below the clock's resolution):
 * the ratio is then "-".
 */
void vroce_bench_ratio(char *buf, size_t len, u64 a, u64 b)
{
	u64 centi;

	if (!a || !b) {
		strscpy(buf, "-", len);
		return;
	}
	centi = div64_u64(a * 100, b);
	snprintf(buf, len, "%llu.%02llux", centi / 100, centi % 100);
}

static void bench_row(const char *what, u64 ns, u64 n, u64 limit,
		      u64 xarray, u64 pdir)
{
	char v[24], l[24], x[24], p[24];

	bench_fmt(v, sizeof(v), ns, n);
	vroce_bench_ratio(l, sizeof(l), ns, limit);
	vroce_bench_ratio(x, sizeof(x), xarray, ns);
	vroce_bench_ratio(p, sizeof(p), pdir, ns);
	pr_info("vroce-bench: %-22s %10s %10s %12s %12s\n", what, v, l, x, p);
}

static void bench_mtr(struct kunit *test, u64 n, u32 shift)
{
	struct bench_mtr_ctx b = {
		.test = test, .vdev = vroce_test_dev(test), .n = n,
		.shift = shift, .reps = max_t(u64, 1, BENCH_LOOKUPS / n),
	};
	struct bench_result v = {}, x = {}, d = {};
	u64 limit = 0, floor = 0, table_bytes = 0, centi, ns[T_NR];
	char bpp[24];
	u32 hop = 0;
	int r;

	b.pages = bench_pages(test, n, shift);
	b.copy = kunit_kmalloc_array(test, n, sizeof(*b.copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.copy);
	memset(b.copy, 0, n * sizeof(*b.copy));	/* fault it in first */

	/*
	 * The bounds first, each round after round: the copy's destination
	 * and the pages stay in the caches, the least either can take.
	 */
	for (r = 0; r < BENCH_MTR_ROUNDS; r++) {
		limit = min_not_zero(limit, bench_limit(&b));
		floor = min_not_zero(floor, bench_call_floor(&b));
	}
	/*
	 * Then round by round, every way in turn: a slow spell of the
	 * machine falls on all of them, not on one way's rounds.
	 */
	for (r = 0; r < BENCH_MTR_ROUNDS; r++) {
		memset(ns, 0, sizeof(ns));
		bench_vroce(&b, ns, &table_bytes, &hop);
		bench_keep_best(&v, ns);
		memset(ns, 0, sizeof(ns));
		bench_xarray(&b, ns);
		bench_keep_best(&x, ns);
		memset(ns, 0, sizeof(ns));
		bench_pdir(&b, ns);
		bench_keep_best(&d, ns);
	}
	/* Lookups and copies per page: per one, as the other rows. */
	limit = div64_u64(limit, b.reps);
	floor = div64_u64(floor, b.reps);
	v.ns[T_FIND] = div64_u64(v.ns[T_FIND], b.reps);
	v.ns[T_FIND_BATCH] = div64_u64(v.ns[T_FIND_BATCH], b.reps);
	x.ns[T_FIND] = div64_u64(x.ns[T_FIND], b.reps);
	d.ns[T_FIND] = div64_u64(d.ns[T_FIND], b.reps);

	pr_info("vroce-bench: %llu pages of %lu KiB (%llu MiB), hop %u, best of %d rounds, lookups x%llu, MTR in %s\n",
		n, BIT(shift) / SZ_1K, (n << shift) / SZ_1M, hop,
		BENCH_MTR_ROUNDS,
		b.reps, IS_ENABLED(CONFIG_VROCE_ABI_RUST) ? "Rust" : "C");
	pr_info("vroce-bench: %-22s %10s %10s %12s %12s\n", "operation",
		"ns/page", "vs limit", "xarray/this", "pdir/this");
	bench_row("limit (copy entries)", limit, n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("vroce create+map", v.ns[T_BUILD], n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("vroce (create)", v.ns[T_CREATE], n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("vroce (map)", v.ns[T_MAP], n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("vroce find", v.ns[T_FIND], n, limit, x.ns[T_FIND],
		  d.ns[T_FIND]);
	bench_row("vroce find x64", v.ns[T_FIND_BATCH], n, limit,
		  x.ns[T_FIND], d.ns[T_FIND]);
	bench_row("call floor (no walk)", floor, n, limit, x.ns[T_FIND],
		  d.ns[T_FIND]);
	bench_row("vroce destroy", v.ns[T_FREE], n, limit, x.ns[T_FREE],
		  d.ns[T_FREE]);
	bench_row("xarray xa_store", x.ns[T_BUILD], n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("xarray xa_load", x.ns[T_FIND], n, limit, x.ns[T_FIND],
		  d.ns[T_FIND]);
	bench_row("xarray destroy", x.ns[T_FREE], n, limit, x.ns[T_FREE],
		  d.ns[T_FREE]);
	bench_row("pdir build", d.ns[T_BUILD], n, limit, x.ns[T_BUILD],
		  d.ns[T_BUILD]);
	bench_row("pdir find", d.ns[T_FIND], n, limit, x.ns[T_FIND],
		  d.ns[T_FIND]);
	bench_row("pdir destroy", d.ns[T_FREE], n, limit, x.ns[T_FREE],
		  d.ns[T_FREE]);

	centi = div64_u64(table_bytes * 100, n);
	snprintf(bpp, sizeof(bpp), "%llu.%02llu", centi / 100, centi % 100);
	pr_info("vroce-bench: vroce table bytes per mapped page: %s (%llu bytes of tables for %llu entries)\n",
		bpp, table_bytes, n);
}

static void vroce_bench_mtr_4k(struct kunit *test)
{
	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	bench_mtr(test, 262144, 12);
}

static void vroce_bench_mtr_2m(struct kunit *test)
{
	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	/* The same 1 GiB in 2 MiB pages: 512 entries instead of 262,144. */
	bench_mtr(test, 512, 21);
}

/* Best of the rounds of @iters registrations of @len bytes at @uaddr. */
static u64 bench_reg_user(struct kunit *test, struct ib_pd *pd,
			  unsigned long uaddr, u64 len, int iters)
{
	u64 best = U64_MAX, t;
	struct ib_mr *mr;
	int r, i;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < iters; i++) {
			mr = ib_reg_user_mr(pd, uaddr, len, uaddr,
					    IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_READ);
			KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
			KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr), 0);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return div_u64(best, iters);
}

/* MRs of a burst, and the MR cache's low water mark (mr_cache_low's default) */
#define BENCH_BURST	8

/*
 * The first burst after one registration of a size: BENCH_BURST MRs of
 * 4 KiB registered and held, then deregistered, the cache drained before
 * each round and prefilled to @low (0: not) after the one registration.
 * Best of the rounds, ns per registration; @hits gets the last burst's.
 */
static u64 bench_burst(struct kunit *test, struct vroce_dev *vdev,
		       struct ib_pd *pd, unsigned long uaddr, u32 low,
		       u64 *hits)
{
	struct vroce_mr_cache *c = &vdev->mr_cache;
	struct ib_mr *mr[BENCH_BURST];
	u64 best = U64_MAX, t, h = 0;
	int r, i;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		vroce_mr_cache_drain(vdev);
		c->low = low;
		mr[0] = ib_reg_user_mr(pd, uaddr, SZ_4K, uaddr,
				       IB_ACCESS_LOCAL_WRITE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mr[0]));
		KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr[0]), 0);
		flush_delayed_work(&c->refill_work);
		h = c->hits;
		t = ktime_get_ns();
		for (i = 0; i < BENCH_BURST; i++) {
			mr[i] = ib_reg_user_mr(pd, uaddr + i * SZ_4K, SZ_4K,
					       uaddr + i * SZ_4K,
					       IB_ACCESS_LOCAL_WRITE);
			KUNIT_ASSERT_FALSE(test, IS_ERR(mr[i]));
		}
		best = min(best, ktime_get_ns() - t);
		h = c->hits - h;
		for (i = 0; i < BENCH_BURST; i++)
			KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr[i]), 0);
	}
	flush_delayed_work(&c->refill_work);
	c->low = 0;
	*hits = h;
	return div_u64(best, BENCH_BURST);
}

/* Best of the rounds of @iters ib_umem_get() + ib_umem_release(). */
static u64 bench_pin(struct kunit *test, struct ib_device *ibdev,
		     unsigned long uaddr, u64 len, int iters)
{
	u64 best = U64_MAX, t;
	struct ib_umem *umem;
	int r, i;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < iters; i++) {
			umem = ib_umem_get(ibdev, uaddr, len,
					   IB_ACCESS_LOCAL_WRITE |
					   IB_ACCESS_REMOTE_READ);
			KUNIT_ASSERT_FALSE(test, IS_ERR(umem));
			ib_umem_release(umem);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return div_u64(best, iters);
}

/* Best of the rounds of @iters fast-register MRs mapped over @b's pages. */
static u64 bench_frmr(struct kunit *test, struct ib_pd *pd,
		      struct vroce_test_kbuf *b, u32 npages, int iters)
{
	struct scatterlist sg;
	u64 best = U64_MAX, t;
	unsigned int off;
	struct ib_mr *mr;
	int r, i;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < iters; i++) {
			mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, npages);
			KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
			sg_init_table(&sg, 1);
			sg_dma_address(&sg) = b->dma;
			sg_dma_len(&sg) = npages * SZ_4K;
			off = 0;
			KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, &off,
							   SZ_4K), 1);
			KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr), 0);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return div_u64(best, iters);
}

/*
 * Two commands and no MR code (QUERY_DEVICE twice; a registration is
 * CREATE_MR and DESTROY_MR): the Rust/C ratio of the kernels themselves.
 */
static u64 bench_cmds(struct kunit *test, struct vroce_dev *vdev, int iters)
{
	struct vroce_dev_attr attr;
	u64 best = U64_MAX, t;
	int r, i;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < iters; i++) {
			KUNIT_ASSERT_EQ(test,
					vroce_cmd_query_device(vdev, &attr), 0);
			KUNIT_ASSERT_EQ(test,
					vroce_cmd_query_device(vdev, &attr), 0);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return div_u64(best, iters);
}

static void bench_mr_row(const char *what, u64 ns)
{
	pr_info("vroce-bench: mr %-30s %10llu %12llu\n", what, ns,
		ns ? div64_u64(NSEC_PER_SEC, ns) : 0);
}

static void vroce_bench_mr_reg(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd;
	static const struct {
		const char *name;
		u64 len;
		int iters;
	} size[] = { { "4 KiB", SZ_4K, 200 }, { "2 MiB", SZ_2M, 50 } };
	u64 cmds, cold[ARRAY_SIZE(size)], cached[ARRAY_SIZE(size)];
	u64 pin[ARRAY_SIZE(size)], burst[3], hits[3];
	struct vroce_test_kbuf *b;
	unsigned long uaddr;
	char what[48];
	int i;

	if (!vroce_bench_enabled)
		kunit_skip(test, "run by 'make bench' (vroce_kunit.bench=1)");
	pd = vroce_test_pd(test, vdev, 0);
	b = vroce_test_kbuf(test, vdev, 32 * SZ_4K);
	uaddr = vroce_test_user_mem(test, SZ_2M, 1);

	pr_info("vroce-bench: MR registration, best of %d rounds, MR objects in %s\n",
		BENCH_ROUNDS, IS_ENABLED(CONFIG_VROCE_ABI_RUST) ? "Rust" : "C");
	pr_info("vroce-bench: mr %-30s %10s %12s\n", "operation", "ns/op",
		"per second");
	cmds = bench_cmds(test, vdev, 200);
	bench_mr_row("baseline: 2 commands", cmds);
	/* Cold: an MTR and CREATE_MR for each; then from the MR cache. */
	for (i = 0; i < ARRAY_SIZE(size); i++) {
		vdev->mr_cache.enabled = false;
		snprintf(what, sizeof(what), "reg_user_mr+dereg %s",
			 size[i].name);
		cold[i] = bench_reg_user(test, pd, uaddr, size[i].len,
					 size[i].iters);
		bench_mr_row(what, cold[i]);
		vdev->mr_cache.enabled = true;
		snprintf(what, sizeof(what), "cached reg_user_mr+dereg %s",
			 size[i].name);
		cached[i] = bench_reg_user(test, pd, uaddr, size[i].len,
					   size[i].iters);
		bench_mr_row(what, cached[i]);
	}
	/* A burst: cache off, on without the prefill, on with it. */
	vdev->mr_cache.enabled = false;
	burst[0] = bench_burst(test, vdev, pd, uaddr, 0, &hits[0]);
	vdev->mr_cache.enabled = true;
	burst[1] = bench_burst(test, vdev, pd, uaddr, 0, &hits[1]);
	burst[2] = bench_burst(test, vdev, pd, uaddr, BENCH_BURST, &hits[2]);
	bench_mr_row("burst of 8 4 KiB, cold", burst[0]);
	bench_mr_row("burst of 8 4 KiB, cache", burst[1]);
	bench_mr_row("burst of 8 4 KiB, prefilled", burst[2]);
	bench_mr_row("alloc_mr+map_mr_sg+dereg 32p",
		     bench_frmr(test, pd, b, 32, 200));
	/*
	 * What a registration must do however its tables are found: pin
	 * the pages, and two commands (one to make the key valid, one to
	 * revoke it before the pages are let go). An MR cache saves the
	 * rest at most.
	 */
	for (i = 0; i < ARRAY_SIZE(size); i++) {
		snprintf(what, sizeof(what), "pin+unpin %s", size[i].name);
		pin[i] = bench_pin(test, &vdev->ibdev, uaddr, size[i].len,
				   size[i].iters);
		bench_mr_row(what, pin[i]);
	}
	for (i = 0; i < ARRAY_SIZE(size); i++)
		pr_info("vroce-bench: cache %s: cold %llu ns, cached %llu ns: %llu.%02llux\n",
			size[i].name, cold[i], cached[i],
			div64_u64(cold[i], cached[i] ?: 1),
			div64_u64(cold[i] * 100, cached[i] ?: 1) % 100);
	pr_info("vroce-bench: burst of %d: cold %llu ns, cache %llu ns (%llu hits), prefilled to %d %llu ns (%llu hits): %llu.%02llux and %llu.%02llux cold\n",
		BENCH_BURST, burst[0], burst[1], hits[1], BENCH_BURST,
		burst[2], hits[2], div64_u64(burst[0], burst[1] ?: 1),
		div64_u64(burst[0] * 100, burst[1] ?: 1) % 100,
		div64_u64(burst[0], burst[2] ?: 1),
		div64_u64(burst[0] * 100, burst[2] ?: 1) % 100);
	for (i = 0; i < ARRAY_SIZE(size); i++)
		pr_info("vroce-bench: floor %s: pin + 2 commands %llu ns, reg_user_mr+dereg %llu ns: a cache saves at most %llu%% (%llu.%02llux)\n",
			size[i].name, pin[i] + cmds, cold[i],
			cold[i] > pin[i] + cmds ?
			div64_u64((cold[i] - pin[i] - cmds) * 100, cold[i]) : 0,
			div64_u64(cold[i], pin[i] + cmds),
			div64_u64(cold[i] * 100, pin[i] + cmds) % 100);
}

static struct kunit_case vroce_bench_cases[] = {
	KUNIT_CASE_SLOW(vroce_bench_mtr_4k),
	KUNIT_CASE_SLOW(vroce_bench_mtr_2m),
	KUNIT_CASE_SLOW(vroce_bench_mr_reg),
	{}
};

static struct kunit_suite vroce_bench_suite = {
	.name = "vroce_bench",
	.test_cases = vroce_bench_cases,
};

kunit_test_suite(vroce_bench_suite);
