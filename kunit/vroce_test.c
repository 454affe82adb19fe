// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the vroce KUnit suites.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "vroce_test.h"

/* What a test's device held when the test got it. */
struct vroce_test_ctx {
	struct vroce_hca *hca;
	s64 allocs;
	s64 frees;
};

KUNIT_DEFINE_ACTION_WRAPPER(vroce_test_hca_del, vroce_hca_del,
			    struct vroce_hca *);

/**
 * vroce_test_add_hca() - plug in an emulated HCA for one test
 * @test: the test; KUnit unplugs the HCA when it ends
 *
 * The driver binds to it at once (unless a stub makes the probe fail).
 *
 * Return: the HCA.
 */
struct vroce_hca *vroce_test_add_hca(struct kunit *test)
{
	struct vroce_hca *hca = vroce_hca_add(PLATFORM_DEVID_AUTO);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hca);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vroce_test_hca_del,
							hca), 0);
	return hca;
}

/**
 * vroce_test_add_pdev() - the platform device of a new emulated HCA
 * @test: the test; KUnit unplugs the HCA when it ends
 *
 * Return: the platform device.
 */
struct platform_device *vroce_test_add_pdev(struct kunit *test)
{
	return vroce_hca_pdev(vroce_test_add_hca(test));
}

/**
 * vroce_test_dev() - a freshly probed vroce device for one test
 * @test: the test; KUnit unplugs the HCA when it ends
 *
 * Its allocation counters are remembered, for vroce_test_allocs() and
 * vroce_test_expect_no_memory_held(); vroce_test_hca() returns its HCA.
 * Its MR cache makes no entries in the background (mr_cache.low is 0).
 *
 * Return: the driver's device, started and registered.
 */
struct vroce_dev *vroce_test_dev(struct kunit *test)
{
	struct vroce_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						   GFP_KERNEL);
	struct vroce_dev *vdev;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->hca = vroce_test_add_hca(test);
	vdev = platform_get_drvdata(vroce_hca_pdev(ctx->hca));
	KUNIT_ASSERT_NOT_NULL(test, vdev);
	test->priv = ctx;
	/*
	 * No MR cache prefill: a background CREATE_MR would take a fault
	 * armed for the test's own, and change counts tests expect.
	 */
	vdev->mr_cache.low = 0;
	vroce_test_rebase(test, vdev);
	return vdev;
}

/**
 * vroce_test_rebase() - count allocations from now on
 * @test: the test
 * @vdev: its device, from vroce_test_dev()
 *
 * For objects a test sets up once and keeps (a PD and its DMA MR).
 */
void vroce_test_rebase(struct kunit *test, struct vroce_dev *vdev)
{
	struct vroce_test_ctx *ctx = test->priv;

	ctx->allocs = atomic64_read(&vdev->mem.allocs);
	ctx->frees = atomic64_read(&vdev->mem.frees);
}

/**
 * vroce_test_hca() - the HCA behind the test's vroce_test_dev()
 * @test: the test
 *
 * Return: the HCA.
 */
struct vroce_hca *vroce_test_hca(struct kunit *test)
{
	struct vroce_test_ctx *ctx = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	return ctx->hca;
}

/**
 * vroce_test_allocs() - allocations made since vroce_test_dev()
 * @test: the test
 * @vdev: its device
 *
 * Return: the number of accounted allocations since the test got @vdev.
 */
s64 vroce_test_allocs(struct kunit *test, struct vroce_dev *vdev)
{
	struct vroce_test_ctx *ctx = test->priv;

	return atomic64_read(&vdev->mem.allocs) - ctx->allocs;
}

/**
 * vroce_test_expect_no_memory_held() - everything allocated since
 *	vroce_test_dev() was freed, once the MR cache is drained
 * @test: the test
 * @vdev: its device
 */
void vroce_test_expect_no_memory_held(struct kunit *test,
				      struct vroce_dev *vdev)
{
	struct vroce_test_ctx *ctx = test->priv;

	/* The MR cache's idle entries and PD are the device's, not held. */
	vroce_mr_cache_drain(vdev);
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.allocs) - ctx->allocs,
			atomic64_read(&vdev->mem.frees) - ctx->frees);
}

/**
 * vroce_test_pattern() - byte @off of the test pattern for @seed
 * @off: offset into the buffer
 * @seed: which pattern
 *
 * No two 4 KiB pages of a pattern are alike, so a page put in the wrong
 * place shows.
 *
 * Return: the byte.
 */
u8 vroce_test_pattern(size_t off, u8 seed)
{
	return (u8)(((u32)off * 2654435761U) >> 24) ^ (u8)(off >> 12) ^ seed;
}

/**
 * vroce_test_fill() - fill a buffer with the test pattern
 * @buf: the buffer
 * @len: its length
 * @seed: which pattern
 */
void vroce_test_fill(u8 *buf, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = vroce_test_pattern(i, seed);
}

/**
 * vroce_test_dealloc_mw() - free a window of vroce_test_mw() (a KUnit action)
 * @mw: the window
 */
void vroce_test_dealloc_mw(void *mw)
{
	struct ib_mw *ibmw = mw;

	ibmw->device->ops.dealloc_mw(ibmw);
	kfree(ibmw);
}

/**
 * vroce_test_mw() - a memory window from the driver's alloc_mw, as uverbs
 *	makes one (the RDMA core's kernel API has none)
 * @test: the test; the window is deallocated when it ends, or earlier by
 *	kunit_release_action(test, vroce_test_dealloc_mw, *@mwp)
 * @pd: its PD
 * @type: IB_MW_TYPE_1 or IB_MW_TYPE_2 (or a bad one)
 * @mwp: where the window goes, on success
 *
 * Return: 0, or what alloc_mw returned.
 */
int vroce_test_mw(struct kunit *test, struct ib_pd *pd, int type,
		  struct ib_mw **mwp)
{
	struct ib_device *dev = pd->device;
	struct ib_mw *mw = rdma_zalloc_drv_obj(dev, ib_mw);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, mw);
	mw->device = dev;
	mw->pd = pd;
	mw->type = type;
	err = dev->ops.alloc_mw(mw, NULL);
	if (err) {
		kfree(mw);
		return err;
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_dealloc_mw,
							mw), 0);
	*mwp = mw;
	return 0;
}

/**
 * vroce_test_user_mem() - user memory in the test's own address space
 * @test: the test; KUnit unmaps the memory when it ends
 * @len: bytes
 * @seed: the pattern it is filled with (vroce_test_fill())
 *
 * Return: its user address.
 */
unsigned long vroce_test_user_mem(struct kunit *test, size_t len, u8 seed)
{
	u8 *pattern = kunit_kzalloc(test, len, GFP_KERNEL);
	unsigned long uaddr;

	KUNIT_ASSERT_NOT_NULL(test, pattern);
	uaddr = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(uaddr), "mmap: %ld",
			       (long)uaddr);
	vroce_test_fill(pattern, len, seed);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)uaddr, pattern, len),
			0);
	return uaddr;
}

struct vroce_test_timeout {
	struct vroce_dev *vdev;
	unsigned int ms;
};

static void vroce_test_timeout_restore(void *data)
{
	struct vroce_test_timeout *t = data;

	t->vdev->cmdq.timeout_ms = t->ms;
}

/**
 * vroce_test_cmd_timeout() - shorten (or lengthen) the command timeout
 * @test: the test; the timeout the device had is restored when it ends
 * @vdev: the device
 * @ms: the new timeout
 */
void vroce_test_cmd_timeout(struct kunit *test, struct vroce_dev *vdev,
			    unsigned int ms)
{
	struct vroce_test_timeout *t = kunit_kzalloc(test, sizeof(*t),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->vdev = vdev;
	t->ms = vdev->cmdq.timeout_ms;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_timeout_restore,
							t), 0);
	vdev->cmdq.timeout_ms = ms;
}

/**
 * vroce_hca_faults_clear() - turn every command fault knob off
 * @hca: the HCA
 */
void vroce_hca_faults_clear(struct vroce_hca *hca)
{
	vroce_hca_set_faults(hca, 0, 0, 0, 0);
	vroce_hca_set_fault_opcode(hca, 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(vroce_test_faults_clear, vroce_hca_faults_clear,
			    struct vroce_hca *);

/**
 * vroce_test_faults_off() - turn the command fault knobs off when the test
 *	ends, whatever it set
 * @test: the test
 * @hca: the HCA
 */
void vroce_test_faults_off(struct kunit *test, struct vroce_hca *hca)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_faults_clear,
							hca), 0);
}

static void vroce_test_free_mr_restore(void *hca)
{
	vroce_hca_set_max_mr(hca, U32_MAX);
}

/**
 * vroce_test_free_mr() - room for @n more MRs on the test's HCA
 * @test: the test; the whole MPT comes back when it ends
 * @n: MPT entries new MRs may take, at least 1: vroce_hca_set_free_mr(),
 *	which must find them
 */
void vroce_test_free_mr(struct kunit *test, u32 n)
{
	struct vroce_hca *hca = vroce_test_hca(test);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_free_mr_restore,
							hca), 0);
	KUNIT_ASSERT_EQ(test, vroce_hca_set_free_mr(hca, n), n);
}

static void vroce_test_cmdq_depth_restore(void *depth)
{
	vroce_cmdq_depth = (uintptr_t)depth;
}

/**
 * vroce_test_cmdq_depth() - the module parameter cmdq_depth for HCAs the
 *	test plugs in from now on
 * @test: the test; the value it had is restored when it ends
 * @depth: the value
 */
void vroce_test_cmdq_depth(struct kunit *test, unsigned int depth)
{
	void *old = (void *)(uintptr_t)vroce_cmdq_depth;
	int err;

	err = kunit_add_action_or_reset(test, vroce_test_cmdq_depth_restore,
					old);
	KUNIT_ASSERT_EQ(test, err, 0);
	vroce_cmdq_depth = depth;
}

MODULE_DESCRIPTION("KUnit tests for the vroce driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

KUNIT_DEFINE_ACTION_WRAPPER(vroce_test_dealloc_pd, ib_dealloc_pd,
			    struct ib_pd *);

/**
 * vroce_test_pd() - a kernel PD of @vdev, deallocated when the test ends
 * @test: the test
 * @vdev: the device
 * @flags: ib_alloc_pd() flags
 *
 * The allocation counters are rebased after it (its DMA MR lives as long).
 *
 * Return: the PD; the test fails if it cannot be allocated.
 */
struct ib_pd *vroce_test_pd(struct kunit *test, struct vroce_dev *vdev,
			    unsigned int flags)
{
	struct ib_pd *pd = ib_alloc_pd(&vdev->ibdev, flags);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_dealloc_pd,
							pd), 0);
	/* The PD's own DMA MR lives as long as the PD: count from here. */
	vroce_test_rebase(test, vdev);
	return pd;
}

static void vroce_test_kbuf_free(void *data)
{
	struct vroce_test_kbuf *b = data;

	dma_unmap_single(b->dev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
}

/**
 * vroce_test_poll() - poll @n completions of @cq, waiting up to @ms
 * @cq: a CQ polled directly (IB_POLL_DIRECT)
 * @wc: room for @n completions
 * @n: completions wanted
 * @ms: how long to wait for them, sleeping between polls so that the
 *	HCA's engines run
 *
 * Return: how many came, or ib_poll_cq()'s error.
 */
int vroce_test_poll(struct ib_cq *cq, struct ib_wc *wc, int n, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);
	int got = 0, ret;

	while (got < n && time_before(jiffies, deadline)) {
		ret = ib_poll_cq(cq, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got < n)
			usleep_range(1000, 2000);
	}
	return got;
}

/**
 * vroce_test_kbuf() - zeroed kernel memory mapped for @vdev's HCA
 * @test: the test; unmapped and freed when it ends
 * @vdev: the device
 * @len: bytes
 *
 * Return: the buffer; the test fails if it cannot be made.
 */
struct vroce_test_kbuf *vroce_test_kbuf(struct kunit *test,
					struct vroce_dev *vdev, size_t len)
{
	struct vroce_test_kbuf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->dev = vdev->dma_dev;
	b->len = len;
	b->va = kzalloc(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->va);
	b->dma = dma_map_single(b->dev, b->va, len, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(b->dev, b->dma));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							vroce_test_kbuf_free,
							b), 0);
	return b;
}

/**
 * vroce_test_mr_info() - what the MR object of a vroce MR holds
 * @mr: an MR of a vroce device
 * @info: where it is written (the handle, the page list's address, ...)
 */
void vroce_test_mr_info(struct ib_mr *mr, struct vroce_mr_info *info)
{
	vroce_mr_obj_info(to_vroce_mr(mr)->obj, info);
}

static int vroce_test_busy_fn(void *data)
{
	struct vroce_test_busy *b = data;
	struct vroce_dev_attr attr;

	b->err = vroce_cmd_query_device(b->vdev, &attr);
	complete(&b->done);
	return 0;
}

/**
 * vroce_test_fill_ring() - take every slot of a device's command ring
 * @test: the test
 * @vdev: the device
 *
 * A thread per slot of @vdev's ring, each issuing one QUERY_DEVICE, and
 * 20 ms for them to post it: with a slow HCA the ring is then full. The
 * caller waits for them with vroce_test_ring_wait().
 *
 * Return: the threads' records, one per slot.
 */
struct vroce_test_busy *vroce_test_fill_ring(struct kunit *test,
					     struct vroce_dev *vdev)
{
	u32 depth = vdev->cmdq.depth, i;
	struct vroce_test_busy *b = kunit_kcalloc(test, depth, sizeof(*b),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < depth; i++) {
		b[i].vdev = vdev;
		init_completion(&b[i].done);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(vroce_test_busy_fn,
							    &b[i],
							    "vroce_busy_%u",
							    i)));
	}
	msleep(20);
	return b;
}

/**
 * vroce_test_ring_wait() - wait for the threads of vroce_test_fill_ring()
 * @vdev: the device
 * @b: their records
 */
void vroce_test_ring_wait(const struct vroce_dev *vdev,
			  struct vroce_test_busy *b)
{
	u32 i;

	for (i = 0; i < vdev->cmdq.depth; i++)
		wait_for_completion(&b[i].done);
}
