// SPDX-License-Identifier: GPL-2.0
/*
 * vroce host harness: c/abi/vroce_mtr.c as a user-space program, in the manner
 * of tools/testing/vma. Each case builds an MTR, maps it, checks every page
 * against the HCA's walker (c/hca/vroce_hca_mtt.c) and destroys it; every
 * allocation of each case is then failed in turn. Built with ASan and
 * UBSan (kunit/host/Makefile, scripts/host-test.sh). Prints KTAP: a result
 * per case.
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vroce_host_test.h"

#define KB(n)	((u64)(n) << 10)
#define MB(n)	((u64)(n) << 20)

struct named_case {
	const char *name;
	struct vroce_host_case c;
	int want;		/* what create must return */
};

#define ATTR1(sz, hop, shift, ...) \
	{ .region = { { sz, hop } }, .region_count = 1, .page_shift = shift, \
	  __VA_ARGS__ }

#define KBUF(sz, hop, shift, ...) \
	{ .attr = ATTR1(sz, hop, shift, __VA_ARGS__), .ba_page_shift = 12 }
#define TONLY(sz, hop, bt, n, scatter) \
	{ .attr = ATTR1(sz, hop, 12, .mtt_only = true), .ba_page_shift = bt, \
	  .map_count = n, .map_seed = 7, .map_scatter = scatter }

static const struct named_case cases[] = {
	{ "kernel 1 page, direct", KBUF(KB(4), 0, 12), 0 },
	{ "kernel 5 pages, direct", KBUF(KB(20), 0, 12), 0 },
	{ "kernel 64 pages, hop 1", KBUF(KB(256), 1, 12), 0 },
	{ "kernel 600 pages, hop 2", KBUF(KB(2400), 2, 12), 0 },
	{ "kernel 600 pages, hop 3", KBUF(KB(2400), 3, 12), 0 },
	{ "kernel 2 MiB pages, hop 1", KBUF(MB(4), 1, 21), 0 },
	{ "kernel 600 pages, hop 1, root grows", KBUF(KB(2400), 1, 12), 0 },
	{ "kernel 3 regions 0/1/2",
	  { .attr = { .region = { { KB(8), 0 }, { KB(40), 1 }, { KB(2100), 2 } },
		      .region_count = 3, .page_shift = 12 },
	    .ba_page_shift = 12 }, 0 },
	{ "kernel adaptive 513 pages", KBUF(KB(2052), 0, 12, .adaptive = true), 0 },
	{ "kernel odd size 4097 bytes", KBUF(4097, 1, 12), 0 },
	{ "table-only 4096, hop 2, half mapped", TONLY(MB(16), 2, 12, 2048, true), 0 },
	{ "table-only 1000, hop 1, all mapped", TONLY(KB(4000), 1, 12, 1000, true), 0 },
	{ "table-only 300k, hop 3, 64 KiB tables",
	  TONLY(300000ULL << 12, 3, 16, 300000, true), 0 },
	{ "table-only direct, contiguous", TONLY(KB(32), 0, 12, 8, false), 0 },
	{ "table-only 2 regions hop 0/1, scattered",
	  { .attr = { .region = { { KB(16), 0 }, { KB(16), 1 } },
		      .region_count = 2, .page_shift = 12, .mtt_only = true },
	    .ba_page_shift = 12, .map_count = 8, .map_seed = 9,
	    .map_scatter = true }, 0 },
	{ "user 3 segments, adaptive",
	  { .attr = ATTR1(KB(40), 0, 21, .adaptive = true,
			  .iova = 0x7f0000001100),
	    .ba_page_shift = 12, .user = true, .user_addr = 0x7f0000001100,
	    .nseg = 3, .seg = { { 0x200001100, KB(4) - 0x100 },
				{ 0x300000000, KB(8) },
				{ 0x500000000, KB(28) + 0x100 } } }, 0 },
	{ "user 2 MiB contiguous, adaptive",
	  { .attr = ATTR1(MB(4), 0, 30, .adaptive = true, .iova = 0x40000000),
	    .ba_page_shift = 12, .user = true, .user_addr = 0x7f0000000000,
	    .nseg = 1, .seg = { { 0x800000000, MB(4) } } }, 0 },
	{ "user, 2 regions",
	  { .attr = { .region = { { KB(8), 0 }, { KB(24), 1 } },
		      .region_count = 2, .page_shift = 12, .iova = 0x10000 },
	    .ba_page_shift = 12, .user = true, .user_addr = 0x10000, .nseg = 2,
	    .seg = { { 0x900000000, KB(8) }, { 0xa00000000, KB(24) } } }, 0 },
	{ "no region", { .attr = { .region_count = 0, .page_shift = 12 },
			 .ba_page_shift = 12 }, -EINVAL },
	{ "4 regions", { .attr = { .region_count = 4, .page_shift = 12 },
			 .ba_page_shift = 12 }, -EINVAL },
	{ "page shift 11", KBUF(KB(4), 0, 11), -EINVAL },
	{ "page shift 31", KBUF(KB(4), 0, 31), -EINVAL },
	{ "BT shift 22", { .attr = ATTR1(KB(4), 1, 12), .ba_page_shift = 22 },
	  -EINVAL },
	{ "hop 4", KBUF(KB(4), 4, 12), -EINVAL },
	{ "zero size", KBUF(0, 1, 12), -EINVAL },
	{ "2^25+1 pages", TONLY(((1ULL << 25) + 1) << 12, 3, 12, 0, false),
	  -EINVAL },
	{ "size wraps", TONLY(~0ULL, 1, 12, 0, false), -EINVAL },
	{ "table-only user",
	  { .attr = ATTR1(KB(4), 1, 12, .mtt_only = true), .ba_page_shift = 12,
	    .user = true, .user_addr = 0x1000, .nseg = 1,
	    .seg = { { 0x1000000, KB(4) } } }, -EINVAL },
	{ "root does not fit", TONLY(3000000ULL << 12, 1, 12, 0, false), -ERANGE },
	{ "user hop 0 not contiguous",
	  { .attr = ATTR1(KB(8), 0, 12, .iova = 0x2000), .ba_page_shift = 12,
	    .user = true, .user_addr = 0x2000, .nseg = 2,
	    .seg = { { 0x1000000, KB(4) }, { 0x3000000, KB(4) } } }, -ENOBUFS },
};

/* Run @c in a child, so that an abort in one case does not end the rest. */
static int run_child(const struct vroce_host_case *c, int *ret)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(vroce_host_run(c) & 0xff);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	/* Errnos of create are small: the exit status is their low byte. */
	*ret = (signed char)WEXITSTATUS(status);
	return 0;
}

int main(void)
{
	unsigned int fail = 0, i, n, injected = 0;
	struct vroce_host_case c;
	bool crashed;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = cases[i].c;
		ret = 0;
		if (run_child(&c, &ret) || ret != cases[i].want) {
			printf("# %s: create %d, want %d\n", cases[i].name, ret,
			       cases[i].want);
			printf("not ok %u %s\n", i + 1, cases[i].name);
			fail++;
			continue;
		}
		/* Every allocation of create, failed in turn: -ENOMEM, no leak. */
		crashed = false;
		for (n = 1; !cases[i].want; n++) {
			c.fail_nth = n;
			if (run_child(&c, &ret)) {
				printf("# %s: allocation %u failed: crashed\n",
				       cases[i].name, n);
				crashed = true;
				break;
			}
			if (!ret)
				break;	/* fewer than n allocations */
			injected++;
		}
		if (crashed) {
			printf("not ok %u %s\n", i + 1, cases[i].name);
			fail++;
			continue;
		}
		if (n > 1)
			printf("# %s: %u allocations failed in turn\n",
			       cases[i].name, n - 1);
		printf("ok %u %s\n", i + 1, cases[i].name);
	}
	printf("# %u allocation failures injected\n", injected);
	printf("# Totals: pass:%zu fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       ARRAY_SIZE(cases) - fail, fail);
	return fail ? 1 : 0;
}
