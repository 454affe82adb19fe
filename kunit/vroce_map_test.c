// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_map (issue 31, mapped rings): the HCA's side of
 * doorbell records, through the driver's typed commands. QP_DBREC (opcode
 * 22) gives a QP in RESET its record, once, and refuses a GSI QP, a QP
 * not in RESET, a record not 8-byte aligned or at 0, an unknown QP and an
 * HCA without VROCE_CAP_MAPPED; CREATE_CQ refuses a record likewise. With
 * a record the HCA takes a send queue's producer index from it, not from
 * the doorbell's: a kernel QP given one (a record in kernel memory, which
 * the test writes as a process would) executes what the record says, and
 * a record past the ring moves only that QP to ERR, counted. The
 * process's side, through the real uverbs path, is
 * kunit/uverbs/vroce_uverbs_test.c's user_mapped().
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

#define MAP_POLL_MS	3000

struct map_qp {
	struct ib_cq *cq;
	struct ib_qp *qp;
};

static void map_qp_create(struct kunit *test, struct vroce_dev *vdev,
			  struct ib_pd *pd, struct map_qp *m)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	m->cq = ib_alloc_cq(&vdev->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->cq);
	init.send_cq = m->cq;
	init.recv_cq = m->cq;
	m->qp = ib_create_qp(pd, &init);
	if (IS_ERR(m->qp))
		ib_free_cq(m->cq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->qp);
}

static void map_qp_destroy(struct map_qp *m)
{
	ib_destroy_qp(m->qp);
	ib_free_cq(m->cq);
}

/* QP_DBREC's checks, and CREATE_CQ's of its record. */
static void vroce_map_dbrec_checks(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_pd *pd = vroce_test_pd(test, vdev, 0);
	struct vroce_test_kbuf *rec = vroce_test_kbuf(test, vdev, SZ_4K);
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	};
	struct vroce_ring ring = {};
	struct map_qp a, b;
	u32 cqn;

	KUNIT_ASSERT_TRUE(test, vdev->attr.caps & VROCE_CAP_MAPPED);
	map_qp_create(test, vdev, pd, &a);
	map_qp_create(test, vdev, pd, &b);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, a.qp->qp_num,
						 rec->dma + 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, a.qp->qp_num, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, VROCE_GSI_QPN,
						 rec->dma), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, VROCE_QPN_LIMIT - 1,
						 rec->dma), -ENOENT);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, a.qp->qp_num,
						 rec->dma), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, a.qp->qp_num,
						 rec->dma + 8), -EINVAL);
	/* Out of RESET: too late. */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(b.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, b.qp->qp_num,
						 rec->dma + 8), -EINVAL);

	KUNIT_ASSERT_EQ(test, vroce_ring_create(vdev, &ring, 2, VROCE_CQE_SIZE,
						0), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_create_cq(vdev, &ring, rec->dma + 4,
						  &cqn), -EINVAL);
	/* An HCA without the capability. */
	vroce_hca_set_caps(hca, vdev->attr.caps & ~VROCE_CAP_MAPPED);
	KUNIT_EXPECT_EQ(test, vroce_cmd_create_cq(vdev, &ring, rec->dma + 16,
						  &cqn), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_cmd_qp_dbrec(vdev, b.qp->qp_num,
						 rec->dma + 16), -EOPNOTSUPP);
	vroce_hca_set_caps(hca, vdev->attr.caps);
	KUNIT_EXPECT_EQ(test, vroce_cmd_create_cq(vdev, &ring, rec->dma + 16,
						  &cqn), 0);
	KUNIT_EXPECT_EQ(test, vroce_cmd_destroy_cq(vdev, cqn), 0);
	vroce_ring_destroy(vdev, &ring);
	map_qp_destroy(&b);
	map_qp_destroy(&a);
}

static struct kunit_case vroce_map_cases[] = {
	KUNIT_CASE(vroce_map_dbrec_checks),
	{}
};

static struct kunit_suite vroce_map_suite = {
	.name = "vroce_map",
	.test_cases = vroce_map_cases,
};

kunit_test_suite(vroce_map_suite);
