/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the vroce KUnit suites.
 */
#ifndef _VROCE_TEST_H_
#define _VROCE_TEST_H_

#include <kunit/test.h>
#include <linux/completion.h>

#include "../c/compat/vroce_kunit_compat.h"

struct device;
struct ib_cq;
struct ib_mr;
struct ib_mw;
struct ib_pd;
struct ib_wc;
struct platform_device;
struct vroce_dev;
struct vroce_hca;
struct vroce_lb;
struct vroce_mr_info;

/**
 * struct vroce_test_kbuf - kernel memory mapped for the HCA
 * @dev: the device it is mapped for
 * @va: its kernel address
 * @dma: its DMA address
 * @len: its size
 */
struct vroce_test_kbuf {
	struct device *dev;
	void *va;
	dma_addr_t dma;
	size_t len;
};

/**
 * struct vroce_test_busy - a thread of vroce_test_fill_ring()
 * @vdev: the device it issues its command to
 * @done: completed when the command returned
 * @err: what it returned
 */
struct vroce_test_busy {
	struct vroce_dev *vdev;
	struct completion done;
	int err;
};

/* vroce_kunit.bench=1: run the vroce_bench* suites ('make bench'). */
extern bool vroce_bench_enabled;
bool vroce_bench_rxe(struct kunit *test, struct vroce_lb *lb);
void vroce_bench_rxe_put(struct vroce_lb *lb);
void vroce_bench_ratio(char *buf, size_t len, u64 a, u64 b);

struct vroce_hca *vroce_test_add_hca(struct kunit *test);
struct platform_device *vroce_test_add_pdev(struct kunit *test);
struct vroce_dev *vroce_test_dev(struct kunit *test);
struct vroce_hca *vroce_test_hca(struct kunit *test);
void vroce_test_rebase(struct kunit *test, struct vroce_dev *vdev);
s64 vroce_test_allocs(struct kunit *test, struct vroce_dev *vdev);
u8 vroce_test_pattern(size_t off, u8 seed);
void vroce_test_fill(u8 *buf, size_t len, u8 seed);
int vroce_test_poll(struct ib_cq *cq, struct ib_wc *wc, int n, unsigned int ms);
unsigned long vroce_test_user_mem(struct kunit *test, size_t len, u8 seed);
int vroce_test_mw(struct kunit *test, struct ib_pd *pd, int type,
		  struct ib_mw **mwp);
void vroce_test_dealloc_mw(void *mw);
struct ib_pd *vroce_test_pd(struct kunit *test, struct vroce_dev *vdev,
			    unsigned int flags);
struct vroce_test_kbuf *vroce_test_kbuf(struct kunit *test,
					struct vroce_dev *vdev, size_t len);
void vroce_test_expect_no_memory_held(struct kunit *test,
				      struct vroce_dev *vdev);
void vroce_test_cmd_timeout(struct kunit *test, struct vroce_dev *vdev,
			    unsigned int ms);
void vroce_test_faults_off(struct kunit *test, struct vroce_hca *hca);
void vroce_test_cmdq_depth(struct kunit *test, unsigned int depth);
void vroce_test_free_mr(struct kunit *test, u32 n);
void vroce_test_mr_info(struct ib_mr *mr, struct vroce_mr_info *info);
void vroce_hca_faults_clear(struct vroce_hca *hca);
struct vroce_test_busy *vroce_test_fill_ring(struct kunit *test,
					     struct vroce_dev *vdev);
void vroce_test_ring_wait(const struct vroce_dev *vdev,
			  struct vroce_test_busy *b);

#endif /* _VROCE_TEST_H_ */
