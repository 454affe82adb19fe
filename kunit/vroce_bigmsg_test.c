// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_bigmsg: RC messages above the HCA's 1 MiB bounce
 * buffer, up to IBTA's 2^31 bytes, between two loopback QPs. The UML test
 * kernel has 1 GiB of memory: a 2 GiB user MR is a small shmem file mapped
 * again and again (as the registration bench does), so the message's
 * bytes land on the same pages many times; the two MRs repeat with
 * different periods, so the bytes each page holds at the end say at which
 * offset of the message they were written, and from where they were read.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mman.h>
#include <linux/netdevice.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/ifc/vroce_wqe.h"
#include "demo/vroce_lb.h"
#include "vroce_test.h"

#define BIG_LEN		((u64)SZ_2G)
#define BIG_PERIOD_A	SZ_16M		/* divides 2 GiB */
#define BIG_PERIOD_B	(SZ_8M + SZ_4M)	/* does not */
#define BIG_POLL_MS	600000
#define BIG_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

struct big_pair {
	struct vroce_dev *vdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
};

KUNIT_DEFINE_ACTION_WRAPPER(big_free_cq, ib_free_cq, struct ib_cq *);
KUNIT_DEFINE_ACTION_WRAPPER(big_destroy_qp, ib_destroy_qp, struct ib_qp *);
KUNIT_DEFINE_ACTION_WRAPPER(big_dereg_mr, ib_dereg_mr, struct ib_mr *);
KUNIT_DEFINE_ACTION_WRAPPER(big_fput, fput, struct file *);

static struct big_pair *big_pair_on(struct kunit *test, struct vroce_dev *vdev)
{
	struct big_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = VROCE_MAX_SEND_SGE,
			.max_recv_sge = VROCE_MAX_RECV_SGE,
		},
	};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->vdev = vdev;
	p->pd = vroce_test_pd(test, p->vdev, 0);
	p->cq = ib_alloc_cq(&p->vdev->ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, big_free_cq,
							p->cq), 0);
	init.send_cq = p->cq;
	init.recv_cq = p->cq;
	for (i = 0; i < 2; i++) {
		p->qp[i] = ib_create_qp(p->pd, &init);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->qp[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								big_destroy_qp,
								p->qp[i]), 0);
	}
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[i],
						       p->qp[!i]->qp_num, 0,
						       p->vdev->netdev->dev_addr,
						       7, BIG_ACCESS), 0);
	return p;
}

static struct big_pair *big_pair(struct kunit *test)
{
	return big_pair_on(test, vroce_test_dev(test));
}

/* One completion within BIG_POLL_MS, or none (@wc->status untouched). */
static int big_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(BIG_POLL_MS);
	int ret;

	while (time_before(jiffies, deadline)) {
		ret = ib_poll_cq(cq, 1, wc);
		if (ret)
			return ret;
		msleep(20);
	}
	return 0;
}

static int big_post(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		    struct ib_sge *sge, int n, u64 raddr, u32 rkey)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = sge,
			.num_sge = n, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

/*
 * BIG_LEN bytes of user address space over a shmem file of @period bytes
 * mapped again and again; the file's byte i is vroce_test_pattern(i, @seed),
 * or 0 for a @seed of 0.
 */
static unsigned long big_mem(struct kunit *test, u32 period, u8 seed)
{
	u8 *page = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	unsigned long base, addr;
	struct file *file;
	u64 off, n;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, page);
	file = shmem_file_setup("vroce-bigmsg", period, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, big_fput, file),
			0);
	base = kunit_vm_mmap(test, NULL, 0, BIG_LEN, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(base));
	for (off = 0; off < BIG_LEN; off += period) {
		n = min_t(u64, period, BIG_LEN - off);
		addr = kunit_vm_mmap(test, file, base + off, n,
				     PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_FIXED, 0);
		KUNIT_ASSERT_EQ(test, addr, base + off);
	}
	for (off = 0; off < period; off += SZ_4K) {
		for (i = 0; i < SZ_4K; i++)
			page[i] = seed ? vroce_test_pattern(off + i, seed) : 0;
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(base + off),
						   page, SZ_4K), 0);
	}
	return base;
}

static struct ib_mr *big_mr(struct kunit *test, struct big_pair *p,
			    unsigned long base)
{
	struct ib_mr *mr = ib_reg_user_mr(p->pd, base, BIG_LEN, base,
					  BIG_ACCESS);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, big_dereg_mr, mr),
			0);
	return mr;
}

/*
 * After a 2^31-byte message from memory of period @from (pattern @seed)
 * into memory of period @to, byte i of the latter holds what the last
 * write there carried: message byte x, the largest x below 2^31 with
 * x = i (mod @to), which is source byte x mod @from.
 */
static void big_expect(struct kunit *test, unsigned long base, u32 to,
		       u32 from, u8 seed)
{
	u8 *page = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	u32 i, bad = 0;
	u64 off, x;

	KUNIT_ASSERT_NOT_NULL(test, page);
	for (off = 0; off < to; off += SZ_4K) {
		KUNIT_ASSERT_EQ(test, copy_from_user(page,
						     (void __user *)(base + off),
						     SZ_4K), 0);
		for (i = 0; i < SZ_4K; i++) {
			x = off + i;
			x += (BIG_LEN - 1 - x) / to * to;
			if (page[i] != vroce_test_pattern(x % from, seed) &&
			    !bad++)
				KUNIT_FAIL(test, "byte %llu of %u: %#x, not %#x",
					   off + i, to, page[i],
					   vroce_test_pattern(x % from, seed));
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/*
 * After a 2^31-byte READ of B (period BIG_PERIOD_B) into A (period
 * BIG_PERIOD_A), byte i of A holds message byte x, the last x = i (mod
 * BIG_PERIOD_A), which is B's byte x mod BIG_PERIOD_B: sampled.
 */
static void big_expect_read(struct kunit *test, unsigned long a,
			    unsigned long b)
{
	u8 *pa = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	u32 i, bad = 0;
	u64 off, x;
	u8 v;

	KUNIT_ASSERT_NOT_NULL(test, pa);
	for (off = 0; off < BIG_PERIOD_A; off += 61 * SZ_4K) {
		KUNIT_ASSERT_EQ(test, copy_from_user(pa, (void __user *)(a + off),
						     SZ_4K), 0);
		for (i = 0; i < SZ_4K; i += 127) {
			x = off + i + BIG_LEN - BIG_PERIOD_A;
			KUNIT_ASSERT_EQ(test,
					copy_from_user(&v, (void __user *)
						       (b + x % BIG_PERIOD_B),
						       1), 0);
			if (pa[i] != v)
				bad++;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void big_expect_wc(struct kunit *test, struct ib_cq *cq, u64 wr_id,
			  enum ib_wc_status status, u32 byte_len)
{
	struct ib_wc wc = {};

	KUNIT_ASSERT_EQ(test, big_poll(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, status);
	if (status == IB_WC_SUCCESS)
		KUNIT_EXPECT_EQ(test, wc.byte_len, byte_len);
}

/* The port offers IBTA's largest message. */
static void vroce_bigmsg_port(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_port_attr attr;

	KUNIT_ASSERT_EQ(test, ib_query_port(&vdev->ibdev, 1, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.max_msg_sz, (u32)SZ_2G);
}

/* WRITE 2^31 bytes, READ them back, then SEND them: exactly the limit. */
static void vroce_bigmsg_2g(struct kunit *test)
{
	struct big_pair *p = big_pair(test);
	unsigned long a = big_mem(test, BIG_PERIOD_A, 21);
	unsigned long b = big_mem(test, BIG_PERIOD_B, 0);
	struct ib_mr *ma = big_mr(test, p, a), *mb = big_mr(test, p, b);
	struct ib_sge sa = { .addr = a, .length = BIG_LEN, .lkey = ma->lkey };
	struct ib_sge sb = { .addr = b, .length = BIG_LEN, .lkey = mb->lkey };
	u8 *zero = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	ktime_t t0;
	u64 off;

	KUNIT_ASSERT_NOT_NULL(test, zero);
	t0 = ktime_get();
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_RDMA_WRITE, 1, &sa, 1,
				       b, mb->rkey), 0);
	big_expect_wc(test, p->cq, 1, IB_WC_SUCCESS, BIG_LEN);
	kunit_info(test, "WRITE of 2^31 bytes: %lld ms\n",
		   ktime_ms_delta(ktime_get(), t0));
	big_expect(test, b, BIG_PERIOD_B, BIG_PERIOD_A, 21);

	/* READ B into A, A zeroed first: A's bytes come from B's. */
	for (off = 0; off < BIG_PERIOD_A; off += SZ_4K)
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(a + off),
						   zero, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_RDMA_READ, 2, &sa, 1,
				       b, mb->rkey), 0);
	big_expect_wc(test, p->cq, 2, IB_WC_SUCCESS, BIG_LEN);
	big_expect_read(test, a, b);

	/* SEND A (its pattern again) into a receive over B. */
	for (off = 0; off < BIG_PERIOD_A; off += SZ_4K) {
		u8 page[64];
		u32 i, j;

		for (j = 0; j < SZ_4K; j += sizeof(page)) {
			for (i = 0; i < sizeof(page); i++)
				page[i] = vroce_test_pattern(off + j + i, 22);
			KUNIT_ASSERT_EQ(test,
					copy_to_user((void __user *)(a + off + j),
						     page, sizeof(page)), 0);
		}
	}
	{
		struct ib_recv_wr rwr = { .wr_id = 3, .sg_list = &sb,
					  .num_sge = 1 };

		KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	}
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_SEND, 4, &sa, 1, 0, 0),
			0);
	{
		struct ib_wc wc[2] = {};
		int got = big_poll(p->cq, &wc[0]);

		if (got)
			got += big_poll(p->cq, &wc[1]);
		KUNIT_ASSERT_EQ(test, got, 2);
		KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc[0].byte_len, (u32)BIG_LEN);
		KUNIT_EXPECT_EQ(test, wc[1].byte_len, (u32)BIG_LEN);
	}
	big_expect(test, b, BIG_PERIOD_B, BIG_PERIOD_A, 22);
}

/* 2^31 + 1 bytes: IB_WC_LOC_LEN_ERR before a byte moves, for each opcode. */
static void vroce_bigmsg_too_long(struct kunit *test)
{
	static const enum ib_wr_opcode ops[] = { IB_WR_SEND, IB_WR_RDMA_WRITE,
						 IB_WR_RDMA_READ };
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_test_kbuf *buf;
	struct big_pair *p;
	struct ib_sge sge[2];
	u32 i;

	/* A QP pair each: the error moves the QP to ERR. */
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		p = big_pair_on(test, vdev);
		buf = vroce_test_kbuf(test, p->vdev, SZ_4K);
		sge[0] = (struct ib_sge){ .addr = buf->dma, .length = SZ_2G,
					  .lkey = p->pd->local_dma_lkey };
		sge[1] = (struct ib_sge){ .addr = buf->dma, .length = 1,
					  .lkey = p->pd->local_dma_lkey };
		KUNIT_ASSERT_EQ(test, big_post(p->qp[0], ops[i], 10 + i, sge,
					       2, buf->dma, 0), 0);
		big_expect_wc(test, p->cq, 10 + i, IB_WC_LOC_LEN_ERR, 0);
	}
}

/* A 2 MiB SEND between ordinary kernel buffers of three SGEs. */
static void vroce_bigmsg_send_2m(struct kunit *test)
{
	struct big_pair *p = big_pair(test);
	struct vroce_test_kbuf *src = vroce_test_kbuf(test, p->vdev, SZ_2M);
	struct vroce_test_kbuf *dst = vroce_test_kbuf(test, p->vdev,
						      SZ_2M + SZ_4K);
	u32 lkey = p->pd->local_dma_lkey;
	struct ib_sge s[3] = {
		{ .addr = src->dma, .length = 12345, .lkey = lkey },
		{ .addr = src->dma + 12345, .length = SZ_1M + 7, .lkey = lkey },
		{ .addr = src->dma + 12345 + SZ_1M + 7,
		  .length = SZ_2M - 12345 - SZ_1M - 7, .lkey = lkey },
	};
	struct ib_sge r[2] = {
		{ .addr = dst->dma, .length = SZ_1M - 3, .lkey = lkey },
		{ .addr = dst->dma + SZ_1M, .length = SZ_1M + SZ_4K,
		  .lkey = lkey },
	};
	struct ib_recv_wr rwr = { .wr_id = 5, .sg_list = r, .num_sge = 2 };
	u8 *va = dst->va;
	struct ib_wc wc[2] = {};

	vroce_test_fill(src->va, SZ_2M, 23);
	dma_sync_single_for_device(src->dev, src->dma, SZ_2M,
				   DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_SEND, 6, s, 3, 0, 0),
			0);
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc[0]), 1);
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc[1]), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, SZ_2M);
	KUNIT_EXPECT_EQ(test, wc[1].byte_len, SZ_2M);
	dma_sync_single_for_cpu(dst->dev, dst->dma, SZ_2M + SZ_4K,
				DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, va, src->va, SZ_1M - 3);
	KUNIT_EXPECT_MEMEQ(test, va + SZ_1M, (u8 *)src->va + SZ_1M - 3,
			   SZ_1M + 3);
}

/*
 * A SEND of 2^31 bytes takes 256 visits of its QP, and a command runs
 * only between visits (it holds the wire's lock for writing): its peer
 * moved to ERR while the message is under way is moved between two of
 * them. Reset and connected again while the requester retries, the peer
 * must not get the rest of the message in its new receive, which never
 * had the first part: the requester completes with IB_WC_REM_INV_REQ_ERR.
 */
static void vroce_bigmsg_peer_reset(struct kunit *test)
{
	struct big_pair *p = big_pair(test);
	unsigned long a = big_mem(test, BIG_PERIOD_A, 23);
	unsigned long b = big_mem(test, BIG_PERIOD_B, 0);
	struct ib_mr *ma = big_mr(test, p, a), *mb = big_mr(test, p, b);
	struct ib_sge sa = { .addr = a, .length = BIG_LEN, .lkey = ma->lkey };
	struct ib_sge sb = { .addr = b, .length = BIG_LEN, .lkey = mb->lkey };
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &sb, .num_sge = 1 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_SEND, 10, &sa, 1, 0, 0),
			0);
	msleep(50);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	/* The receive flushed, or the whole message came before the ERR. */
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
	if (wc.status == IB_WC_SUCCESS)
		kunit_skip(test, "the message ended before the peer's ERR");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[1], p->qp[0]->qp_num, 0,
					       p->vdev->netdev->dev_addr, 7,
					       BIG_ACCESS), 0);
	rwr.wr_id = 2;
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 10);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_INV_REQ_ERR);
	/* The new receive got nothing: it flushes with the peer's QP. */
	msleep(100);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
}

/*
 * Review of issue 31: as peer_reset, but the requester's WQE (a process
 * writes its own on a mapped QP) is rewritten between the visits with
 * VROCE_WQE_F_INLINE and 16 bytes of inline data, the opcode kept. The
 * HCA must not take it as a new message from offset 0: that skips the
 * check that the rest of a message goes only to the QP it began at, and
 * the peer's new receive completes with a message it never had the start
 * of. Expected: IB_WC_LOC_QP_OP_ERR or IB_WC_REM_INV_REQ_ERR at the
 * requester, nothing at the new receive.
 */
static void vroce_bigmsg_resume_inline(struct kunit *test)
{
	struct big_pair *p = big_pair(test);
	unsigned long a = big_mem(test, BIG_PERIOD_A, 23);
	unsigned long b = big_mem(test, BIG_PERIOD_B, 0);
	struct ib_mr *ma = big_mr(test, p, a), *mb = big_mr(test, p, b);
	struct ib_sge sa = { .addr = a, .length = BIG_LEN, .lkey = ma->lkey };
	struct ib_sge sb = { .addr = b, .length = BIG_LEN, .lkey = mb->lkey };
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &sb, .num_sge = 1 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct vroce_send_wqe *w;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, big_post(p->qp[0], IB_WR_SEND, 10, &sa, 1, 0, 0),
			0);
	msleep(50);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
	if (wc.status == IB_WC_SUCCESS)
		kunit_skip(test, "the message ended before the peer's ERR");
	/* The requester's SEND, rewritten as its owner may on a mapped ring. */
	w = vroce_ring_slot(&to_vroce_qp(p->qp[0])->sq.ring, 0);
	memset(w->inline_data, 0x5a, 16);
	WRITE_ONCE(w->inline_len, cpu_to_le32(16));
	WRITE_ONCE(w->flags, w->flags | VROCE_WQE_F_INLINE);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, vroce_lb_connect(p->qp[1], p->qp[0]->qp_num, 0,
					       p->vdev->netdev->dev_addr, 7,
					       BIG_ACCESS), 0);
	rwr.wr_id = 2;
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, big_poll(p->cq, &wc), 1);
	kunit_info(test, "first completion: wr_id %llu status %d",
		   (unsigned long long)wc.wr_id, wc.status);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 10);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	msleep(100);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
}

static struct kunit_case vroce_bigmsg_cases[] = {
	KUNIT_CASE(vroce_bigmsg_port),
	KUNIT_CASE(vroce_bigmsg_send_2m),
	KUNIT_CASE(vroce_bigmsg_too_long),
	KUNIT_CASE(vroce_bigmsg_peer_reset),
	KUNIT_CASE(vroce_bigmsg_resume_inline),
	KUNIT_CASE_SLOW(vroce_bigmsg_2g),
	{}
};

static struct kunit_suite vroce_bigmsg_suite = {
	.name = "vroce_bigmsg",
	.test_cases = vroce_bigmsg_cases,
};

kunit_test_suite(vroce_bigmsg_suite);
