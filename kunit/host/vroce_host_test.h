/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce host harness: what the harness, the fuzzer and the services in
 * vroce_host.c share.
 */
#ifndef _VROCE_HOST_TEST_H_
#define _VROCE_HOST_TEST_H_

#include "vroce_host.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

/**
 * struct vroce_dev - what the services account, per device
 * @allocs: allocations made (memory, DMA memory, pinned buffers)
 * @frees: allocations freed
 * @dma_bytes: DMA bytes held
 * @fail_nth: when n > 0, the n-th allocation from now fails
 */
struct vroce_dev {
	long allocs;
	long frees;
	long dma_bytes;
	long fail_nth;
};

#define VROCE_HOST_MAX_SEGS	16

/**
 * struct vroce_host_seg - a DMA-contiguous piece of a made-up user buffer
 * @dma: its DMA address (the first may start inside a page)
 * @len: bytes
 */
struct vroce_host_seg {
	u64 dma;
	u64 len;
};

void vroce_host_set_umem(u64 addr, const struct vroce_host_seg *seg, u32 nseg);

/**
 * struct vroce_host_case - one MTR to build, map, walk and destroy
 * @attr: the buffer's layout
 * @ba_page_shift: the BT page shift asked for
 * @user: a user buffer, made of @seg (otherwise kernel or table-only)
 * @user_addr: its address
 * @nseg: segments in @seg
 * @seg: the user buffer's DMA segments
 * @map_count: table-only: pages to map (0: none)
 * @map_seed: table-only: seeds the page addresses
 * @map_scatter: table-only: pages scattered rather than contiguous
 * @fail_nth: fail the n-th allocation of vroce_mtr_create() (0: none)
 */
struct vroce_host_case {
	struct vroce_buf_attr attr;
	u32 ba_page_shift;
	bool user;
	u64 user_addr;
	u32 nseg;
	struct vroce_host_seg seg[VROCE_HOST_MAX_SEGS];
	u64 map_count;
	u64 map_seed;
	bool map_scatter;
	u32 fail_nth;
};

/*
 * Run one case; every check that fails aborts (the fuzzer sees a crash).
 * Returns what vroce_mtr_create() returned.
 */
int vroce_host_run(const struct vroce_host_case *c);

#endif /* _VROCE_HOST_TEST_H_ */
