// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_fault: every fault injection point of the probe and of
 * plugging in an HCA failed in turn, and every command a verb issues
 * failed with each HCA status and lost once, with the documented result
 * and nothing held afterwards (KASAN and kmemleak watch what the counters
 * cannot see).
 */

#include <kunit/test.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

/* Fail each injection point of a probe in turn, until the probe binds. */
static void vroce_fault_probe(struct kunit *test)
{
	struct platform_device *pdev = vroce_test_add_pdev(test);
	int n;

	for (n = 1; n < 100; n++) {
		device_release_driver(&pdev->dev);
		vroce_probe_fail_nth = n;
		if (device_attach(&pdev->dev) == 1)
			break;
		KUNIT_EXPECT_NULL(test, pdev->dev.driver);
		KUNIT_EXPECT_NULL(test, platform_get_drvdata(pdev));
	}
	vroce_probe_fail_nth = 0;
	kunit_info(test, "%d injection points in a probe, each failed once",
		   n - 1);
	/* Command ring and event queue tables, netdev, RDMA device. */
	KUNIT_EXPECT_GE(test, n - 1, 8);
	KUNIT_EXPECT_LT(test, n, 100);
	KUNIT_EXPECT_NOT_NULL(test, platform_get_drvdata(pdev));
}

/*
 * Each allocation of ib_alloc_pd() in turn: the record that parks the PD's
 * number, then those of get_dma_mr() for the PD's DMA MR (its MR object).
 */
static void vroce_fault_alloc_pd(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct ib_pd *pd;
	int n;

	for (n = 1; n < 20; n++) {
		atomic_set(&vdev->mem.fail_nth, n);
		pd = ib_alloc_pd(&vdev->ibdev, 0);
		if (!IS_ERR(pd))
			break;
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(pd), -ENOMEM, "point %d", n);
		KUNIT_EXPECT_EQ(test, atomic_read(&vdev->mem.fail_nth), 0);
		vroce_test_expect_no_memory_held(test, vdev);
	}
	atomic_set(&vdev->mem.fail_nth, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	kunit_info(test, "%d injection points in ib_alloc_pd()", n - 1);
	KUNIT_EXPECT_GE(test, n - 1, 2);
	ib_dealloc_pd(pd);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Fail each allocation of plugging in an HCA in turn. */
static void vroce_fault_hca_add(struct kunit *test)
{
	struct vroce_hca *hca;
	int n;

	for (n = 1; n < 100; n++) {
		atomic_set(&vroce_hca_fail_nth, n);
		hca = vroce_hca_add(PLATFORM_DEVID_AUTO);
		if (!IS_ERR(hca))
			break;
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(hca), -ENOMEM, "point %d", n);
	}
	atomic_set(&vroce_hca_fail_nth, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(hca));
	kunit_info(test, "%d injection points in plugging in an HCA", n - 1);
	KUNIT_EXPECT_GE(test, n - 1, 9);
	/* The last one bound the driver as usual. */
	KUNIT_EXPECT_NOT_NULL(test, platform_get_drvdata(vroce_hca_pdev(hca)));
	vroce_hca_del(hca);
}

/* The verbs, each with the command it issues that the case fails. */
enum fault_verb {
	FV_ALLOC_PD,		/* CREATE_PD */
	FV_PD_DMA_MR,		/* ib_alloc_pd's DMA MR: CREATE_MR */
	FV_DEALLOC_PD,		/* DESTROY_PD */
	FV_ALLOC_MR,		/* CREATE_MR */
	FV_REG_USER_MR,		/* CREATE_MR */
	FV_DEREG_MR,		/* DESTROY_MR */
	FV_ENABLE_MR,		/* reg_user_mr from the MR cache: ENABLE_MR */
	FV_REVOKE_MR,		/* dereg_mr of such an MR: REVOKE_MR */
	FV_CREATE_CQ,		/* CREATE_CQ */
	FV_DESTROY_CQ,		/* DESTROY_CQ */
	FV_CREATE_QP,		/* CREATE_QP */
	FV_MODIFY_QP,		/* MODIFY_QP */
	FV_DESTROY_QP,		/* DESTROY_QP */
	FV_NR
};

static const char * const fault_verb_name[FV_NR] = {
	"alloc_pd", "alloc_pd's DMA MR", "dealloc_pd", "alloc_mr",
	"reg_user_mr", "dereg_mr", "cached reg_user_mr", "cached dereg_mr",
	"create_cq", "destroy_cq", "create_qp",
	"modify_qp", "destroy_qp",
};

static const u32 fault_verb_opcode[FV_NR] = {
	VROCE_CMD_CREATE_PD, VROCE_CMD_CREATE_MR, VROCE_CMD_DESTROY_PD,
	VROCE_CMD_CREATE_MR, VROCE_CMD_CREATE_MR, VROCE_CMD_DESTROY_MR,
	VROCE_CMD_ENABLE_MR, VROCE_CMD_REVOKE_MR,
	VROCE_CMD_CREATE_CQ, VROCE_CMD_DESTROY_CQ, VROCE_CMD_CREATE_QP,
	VROCE_CMD_MODIFY_QP, VROCE_CMD_DESTROY_QP,
};

/* HCA statuses, then 0 for a lost command (the verb times out). */
static const u16 fault_status[] = {
	VROCE_CMD_BAD_OPCODE, VROCE_CMD_BAD_PARAM, VROCE_CMD_BAD_HANDLE,
	VROCE_CMD_NO_RESOURCE, VROCE_CMD_BUSY, VROCE_CMD_INTERNAL, 0,
};

static const int fault_errno[] = {
	-EOPNOTSUPP, -EINVAL, -ENOENT, -ENOMEM, -EBUSY, -EIO, -ETIMEDOUT,
};

#define FAULT_CASES	(FV_NR * ARRAY_SIZE(fault_status))

static const int fault_case_ids[FAULT_CASES] = { [0 ... FAULT_CASES - 1] = 0 };

static void fault_case_desc(const int *p, char *desc)
{
	int i = p - fault_case_ids;
	u16 st = fault_status[i % ARRAY_SIZE(fault_status)];

	if (st)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, status %u",
			 fault_verb_name[i / ARRAY_SIZE(fault_status)], st);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, lost",
			 fault_verb_name[i / ARRAY_SIZE(fault_status)]);
}

KUNIT_ARRAY_PARAM(fault_case, fault_case_ids, fault_case_desc);

/* Allocations made since the last rebase and not freed. */
static s64 fault_held(struct kunit *test, struct vroce_dev *vdev, s64 frees0)
{
	/* Idle MR cache entries and the cache's PD are not held by a verb. */
	vroce_mr_cache_drain(vdev);
	return vroce_test_allocs(test, vdev) -
	       (atomic64_read(&vdev->mem.frees) - frees0);
}

static struct ib_qp *fault_qp(struct ib_pd *pd, struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ib_create_qp(pd, &init);
}

/*
 * One verb, its command failed with one status or lost. Creating verbs
 * return the status's errno and hold nothing, except what a lost command
 * may have left with the HCA (kept until its reset); destroying verbs
 * succeed for the caller and keep what the HCA may still use.
 */
static void vroce_fault_cmd(struct kunit *test)
{
	int i = (const int *)test->param_value - fault_case_ids;
	enum fault_verb v = i / ARRAY_SIZE(fault_status);
	u16 status = fault_status[i % ARRAY_SIZE(fault_status)];
	int want = fault_errno[i % ARRAY_SIZE(fault_status)];
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_hca *hca = vroce_test_hca(test);
	struct ib_cq_init_attr cqa = { .cqe = 8 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_pd *pd = NULL;
	struct ib_cq *cq = NULL;
	struct ib_qp *qp = NULL;
	struct ib_mr *mr = NULL;
	unsigned long uaddr = 0;
	bool lost = !status, parked;
	s64 frees0;
	int got = 0, fails;

	if ((v == FV_ENABLE_MR || v == FV_REVOKE_MR) && !vdev->mr_cache.enabled)
		kunit_skip(test, "the MR cache is off (vroce.mr_cache=0)");
	vroce_test_faults_off(test, hca);
	vroce_test_cmd_timeout(test, vdev, 100);

	/* What the verb needs, made before the fault is armed. */
	if (v != FV_ALLOC_PD && v != FV_PD_DMA_MR) {
		pd = ib_alloc_pd(&vdev->ibdev, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	}
	if (v == FV_REG_USER_MR || v == FV_ENABLE_MR || v == FV_REVOKE_MR)
		uaddr = vroce_test_user_mem(test, SZ_16K, 3);
	if (v == FV_REVOKE_MR) {
		mr = ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr,
				    IB_ACCESS_LOCAL_WRITE);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	}
	if (v == FV_DEREG_MR) {
		mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	}
	if (v >= FV_DESTROY_CQ) {
		cq = ib_create_cq(&vdev->ibdev, NULL, NULL, NULL, &cqa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	}
	if (v >= FV_MODIFY_QP) {
		qp = fault_qp(pd, cq);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	}
	vroce_test_rebase(test, vdev);
	frees0 = atomic64_read(&vdev->mem.frees);

	/*
	 * With the MR cache on, reg_user_mr's first CREATE_MR is the
	 * cache's (a miss); when it fails, the cold path's is the second.
	 */
	fails = v == FV_REG_USER_MR && vdev->mr_cache.enabled ? 2 : 1;
	vroce_hca_set_fault_opcode(hca, fault_verb_opcode[v]);
	vroce_hca_set_faults(hca, lost ? 0 : fails, status, lost ? 1 : 0, 0);
	switch (v) {
	case FV_ALLOC_PD:
	case FV_PD_DMA_MR:
		pd = ib_alloc_pd(&vdev->ibdev, 0);
		got = PTR_ERR_OR_ZERO(pd);
		if (got)
			pd = NULL;
		break;
	case FV_DEALLOC_PD:
		ib_dealloc_pd(pd);
		pd = NULL;
		break;
	case FV_ALLOC_MR:
		mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
		got = PTR_ERR_OR_ZERO(mr);
		break;
	case FV_REG_USER_MR:
	case FV_ENABLE_MR:
		mr = ib_reg_user_mr(pd, uaddr, SZ_16K, uaddr,
				    IB_ACCESS_LOCAL_WRITE);
		got = PTR_ERR_OR_ZERO(mr);
		break;
	case FV_DEREG_MR:
	case FV_REVOKE_MR:
		got = ib_dereg_mr(mr);
		mr = NULL;
		break;
	case FV_CREATE_CQ:
		cq = ib_create_cq(&vdev->ibdev, NULL, NULL, NULL, &cqa);
		got = PTR_ERR_OR_ZERO(cq);
		break;
	case FV_DESTROY_CQ:
		got = ib_destroy_cq_user(cq, NULL);
		cq = NULL;
		break;
	case FV_CREATE_QP:
		qp = fault_qp(pd, cq);
		got = PTR_ERR_OR_ZERO(qp);
		break;
	case FV_MODIFY_QP:
		got = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
		break;
	case FV_DESTROY_QP:
		got = ib_destroy_qp(qp);
		qp = NULL;
		break;
	default:
		break;
	}
	vroce_hca_faults_clear(hca);

	/*
	 * Destroying verbs cannot fail for their caller. A create whose
	 * command the HCA failed, or a destroy it confirmed, holds nothing;
	 * a lost create or a failed destroy parks what the HCA may use.
	 */
	switch (v) {
	case FV_DEALLOC_PD:
	case FV_DEREG_MR:
	case FV_REVOKE_MR:
	case FV_DESTROY_CQ:
	case FV_DESTROY_QP:
		KUNIT_EXPECT_EQ(test, got, 0);
		/*
		 * BAD_HANDLE: the HCA holds no such object, nothing to keep.
		 * A cached MR that was not revoked is destroyed instead.
		 */
		parked = status != VROCE_CMD_BAD_HANDLE && v != FV_REVOKE_MR;
		if (v == FV_DEALLOC_PD)
			break;
		/* Kept: nothing freed; gone: freed, the count drops. */
		if (parked)
			KUNIT_EXPECT_EQ(test, fault_held(test, vdev, frees0), 0);
		else
			KUNIT_EXPECT_LT(test, fault_held(test, vdev, frees0), 0);
		break;
	case FV_ENABLE_MR:
		if (lost) {
			/* Followed by a DESTROY_MR that works: nothing kept. */
			KUNIT_EXPECT_EQ(test, got, -ETIMEDOUT);
			KUNIT_EXPECT_EQ(test, fault_held(test, vdev, frees0), 0);
			break;
		}
		/* The cache's failure: the cold path registers the MR. */
		KUNIT_EXPECT_EQ(test, got, 0);
		if (!got)
			KUNIT_EXPECT_FALSE(test, to_vroce_mr(mr)->cached);
		break;
	default:
		/* BUSY to MODIFY_QP: the HCA found an error first (-EINVAL). */
		if (v == FV_MODIFY_QP && status == VROCE_CMD_BUSY)
			want = -EINVAL;
		KUNIT_EXPECT_EQ(test, got, want);
		/*
		 * A lost CREATE_MR (with tables), CREATE_CQ or CREATE_QP may
		 * have given the HCA memory; a lost DMA MR has none, but the
		 * HCA may hold it in the PD, whose number is then kept.
		 */
		parked = lost && (v == FV_ALLOC_MR || v == FV_REG_USER_MR ||
				  v == FV_CREATE_CQ || v == FV_CREATE_QP ||
				  v == FV_PD_DMA_MR);
		if (parked)
			KUNIT_EXPECT_GT(test, fault_held(test, vdev, frees0), 0);
		else
			KUNIT_EXPECT_EQ(test, fault_held(test, vdev, frees0), 0);
		break;
	}

	/* The device still works: what is left goes the normal way. */
	if (qp && !IS_ERR(qp))
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	if (cq && !IS_ERR(cq))
		KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(cq, NULL), 0);
	if (mr && !IS_ERR(mr))
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	if (pd && !IS_ERR(pd))
		ib_dealloc_pd(pd);
}

static struct kunit_case vroce_fault_cases[] = {
	KUNIT_CASE(vroce_fault_probe),
	KUNIT_CASE(vroce_fault_hca_add),
	KUNIT_CASE(vroce_fault_alloc_pd),
	KUNIT_CASE_PARAM(vroce_fault_cmd, fault_case_gen_params),
	{}
};

static struct kunit_suite vroce_fault_suite = {
	.name = "vroce_fault",
	.test_cases = vroce_fault_cases,
};

kunit_test_suite(vroce_fault_suite);
