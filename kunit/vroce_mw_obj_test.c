// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_mw_obj: the memory-window object of the MR/MTR ABI
 * (bindings/vroce_abi.h, "Memory windows") through the ABI alone, so the
 * same cases hold for the C (c/abi/vroce_mw_obj.c) and the Rust
 * (rust/mw.rs) implementation, whichever the kernel has: every call in
 * every state with its exact result, info() in each state, bad creations,
 * what destroy frees and what it refuses, allocation faults; and the MR
 * rights of IB_ACCESS_MW_BIND, which windows are bound under.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#include "../bindings/vroce_abi.h"
#include "../bindings/vroce_core.h"
#include "../c/driver/vroce.h"
#include "vroce_test.h"

#define MW_PDN		7
#define MW_KEY		0x12345678
#define MW_HANDLE	0x9a

/* What a call of vroce_mw_obj_destroy() reported (the static stub). */
static struct {
	int calls;
	u32 state;
} mw_warned;

static void mw_warn_stub(u32 state)
{
	mw_warned.calls++;
	mw_warned.state = state;
}

/* The warning a refused destroy gives is counted here, not printed. */
static void mw_count_warnings(struct kunit *test)
{
	mw_warned.calls = 0;
	mw_warned.state = U32_MAX;
	kunit_activate_static_stub(test, vroce_core_warn_mr_leak,
				   mw_warn_stub);
}

static const char *const mw_state_name[] = {
	[VROCE_MR_STATE_NEW] = "NEW",
	[VROCE_MR_STATE_LIVE] = "LIVE",
	[VROCE_MR_STATE_ZOMBIE] = "ZOMBIE",
	[VROCE_MR_STATE_LOST] = "LOST",
	[VROCE_MR_STATE_GONE] = "GONE",
};

/* @mw's info() is @state, with the key and handle that state shows. */
static void mw_expect_state(struct kunit *test, const struct vroce_mw_obj *mw,
			    u32 type, u32 state, const char *what)
{
	bool held = state == VROCE_MR_STATE_LIVE ||
		    state == VROCE_MR_STATE_ZOMBIE;
	struct vroce_mw_info info;

	memset(&info, 0xa5, sizeof(info));
	vroce_mw_obj_info(mw, &info);
	KUNIT_EXPECT_EQ_MSG(test, info.state, state, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, info.type, type, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, info.pdn, MW_PDN, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, info.key, held ? MW_KEY : 0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, info.handle, held ? MW_HANDLE : 0, "%s",
			    what);
}

/* A new object of @type (MW_PDN) moved to @state by the calls that lead there. */
static struct vroce_mw_obj *mw_in_state(struct kunit *test,
					struct vroce_dev *vdev, u32 type,
					u32 state)
{
	struct vroce_mw_obj *mw = NULL;

	KUNIT_ASSERT_EQ(test, vroce_mw_obj_create(vdev, type, MW_PDN, &mw), 0);
	KUNIT_ASSERT_NOT_NULL(test, mw);
	switch (state) {
	case VROCE_MR_STATE_NEW:
		break;
	case VROCE_MR_STATE_LOST:
		KUNIT_ASSERT_TRUE(test, vroce_mw_obj_alloc_failed(mw, -ETIMEDOUT));
		break;
	default:
		KUNIT_ASSERT_EQ(test, vroce_mw_obj_allocated(mw, MW_KEY,
							     MW_HANDLE), 0);
		if (state == VROCE_MR_STATE_ZOMBIE)
			KUNIT_ASSERT_EQ(test, vroce_mw_obj_parked(mw), 0);
		if (state == VROCE_MR_STATE_GONE)
			KUNIT_ASSERT_EQ(test, vroce_mw_obj_released(mw, false), 0);
		break;
	}
	mw_expect_state(test, mw, type, state, "set up");
	return mw;
}

/* Let the HCA go (a reset) if it may hold @mw, and free it. */
static void mw_finish(struct kunit *test, struct vroce_dev *vdev,
		      struct vroce_mw_obj *mw)
{
	struct vroce_mw_info info;

	vroce_mw_obj_info(mw, &info);
	if (info.state != VROCE_MR_STATE_NEW &&
	    info.state != VROCE_MR_STATE_GONE)
		KUNIT_EXPECT_EQ(test, vroce_mw_obj_released(mw, true), 0);
	vroce_mw_obj_destroy(vdev, mw);
}

/* One window through the life ALLOC_MW and DEALLOC_MW give it. */
static void vroce_mw_obj_lifecycle(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mw_desc desc;
	struct vroce_mw_obj *mw = NULL;

	KUNIT_ASSERT_EQ(test, vroce_mw_obj_create(vdev, VROCE_MW_OBJ_TYPE_2,
						  MW_PDN, &mw), 0);
	KUNIT_ASSERT_NOT_NULL(test, mw);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), 1);
	mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_2, VROCE_MR_STATE_NEW,
			"created");
	memset(&desc, 0xa5, sizeof(desc));
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_describe(mw, &desc), 0);
	KUNIT_EXPECT_EQ(test, desc.pdn, MW_PDN);
	KUNIT_EXPECT_EQ(test, desc.type, VROCE_MW_OBJ_TYPE_2);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_describe(mw, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_describe(NULL, &desc), -EINVAL);

	KUNIT_EXPECT_EQ(test, vroce_mw_obj_allocated(mw, MW_KEY, MW_HANDLE), 0);
	mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_2, VROCE_MR_STATE_LIVE,
			"allocated");
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_parked(mw), 0);
	mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_2, VROCE_MR_STATE_ZOMBIE,
			"parked");
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_released(mw, false), 0);
	mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_2, VROCE_MR_STATE_GONE,
			"released");
	vroce_mw_obj_destroy(vdev, mw);
	vroce_test_expect_no_memory_held(test, vdev);

	/* A type 1 window, released straight from LIVE. */
	mw = mw_in_state(test, vdev, VROCE_MW_OBJ_TYPE_1, VROCE_MR_STATE_LIVE);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_released(mw, false), 0);
	mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_1, VROCE_MR_STATE_GONE,
			"LIVE released");
	vroce_mw_obj_destroy(vdev, mw);
	vroce_mw_obj_destroy(vdev, NULL);
	vroce_test_expect_no_memory_held(test, vdev);
}

/* The calls that report a command's outcome, in any state. */
enum mw_call {
	MW_DESCRIBE,
	MW_ALLOCATED,
	MW_FAILED_EIO,
	MW_FAILED_TIMEOUT,
	MW_PARKED,
	MW_RELEASED,
	MW_RELEASED_RESET,
	MW_CALLS
};

static const char *const mw_call_name[MW_CALLS] = {
	[MW_DESCRIBE] = "describe",
	[MW_ALLOCATED] = "allocated",
	[MW_FAILED_EIO] = "alloc_failed(-EIO)",
	[MW_FAILED_TIMEOUT] = "alloc_failed(-ETIMEDOUT)",
	[MW_PARKED] = "parked",
	[MW_RELEASED] = "released(false)",
	[MW_RELEASED_RESET] = "released(true)",
};

/*
 * What each call returns in each state (alloc_failed: 1 for true, 0 for
 * false) and the state it leaves, by the contract's diagram.
 */
static const struct {
	int ret;
	u32 next;
} mw_expect[5][MW_CALLS] = {
	[VROCE_MR_STATE_NEW] = {
		[MW_DESCRIBE] = { 0, VROCE_MR_STATE_NEW },
		[MW_ALLOCATED] = { 0, VROCE_MR_STATE_LIVE },
		[MW_FAILED_EIO] = { 0, VROCE_MR_STATE_NEW },
		[MW_FAILED_TIMEOUT] = { 1, VROCE_MR_STATE_LOST },
		[MW_PARKED] = { -EINVAL, VROCE_MR_STATE_NEW },
		[MW_RELEASED] = { -EINVAL, VROCE_MR_STATE_NEW },
		[MW_RELEASED_RESET] = { -EINVAL, VROCE_MR_STATE_NEW },
	},
	[VROCE_MR_STATE_LIVE] = {
		[MW_DESCRIBE] = { -EINVAL, VROCE_MR_STATE_LIVE },
		[MW_ALLOCATED] = { -EINVAL, VROCE_MR_STATE_LIVE },
		[MW_FAILED_EIO] = { 1, VROCE_MR_STATE_LIVE },
		[MW_FAILED_TIMEOUT] = { 1, VROCE_MR_STATE_LIVE },
		[MW_PARKED] = { 0, VROCE_MR_STATE_ZOMBIE },
		[MW_RELEASED] = { 0, VROCE_MR_STATE_GONE },
		[MW_RELEASED_RESET] = { 0, VROCE_MR_STATE_GONE },
	},
	[VROCE_MR_STATE_ZOMBIE] = {
		[MW_DESCRIBE] = { -EINVAL, VROCE_MR_STATE_ZOMBIE },
		[MW_ALLOCATED] = { -EINVAL, VROCE_MR_STATE_ZOMBIE },
		[MW_FAILED_EIO] = { 1, VROCE_MR_STATE_ZOMBIE },
		[MW_FAILED_TIMEOUT] = { 1, VROCE_MR_STATE_ZOMBIE },
		[MW_PARKED] = { -EINVAL, VROCE_MR_STATE_ZOMBIE },
		[MW_RELEASED] = { 0, VROCE_MR_STATE_GONE },
		[MW_RELEASED_RESET] = { 0, VROCE_MR_STATE_GONE },
	},
	[VROCE_MR_STATE_LOST] = {
		[MW_DESCRIBE] = { -EINVAL, VROCE_MR_STATE_LOST },
		[MW_ALLOCATED] = { -EINVAL, VROCE_MR_STATE_LOST },
		[MW_FAILED_EIO] = { 1, VROCE_MR_STATE_LOST },
		[MW_FAILED_TIMEOUT] = { 1, VROCE_MR_STATE_LOST },
		[MW_PARKED] = { -EINVAL, VROCE_MR_STATE_LOST },
		[MW_RELEASED] = { -EINVAL, VROCE_MR_STATE_LOST },
		[MW_RELEASED_RESET] = { 0, VROCE_MR_STATE_GONE },
	},
	[VROCE_MR_STATE_GONE] = {
		[MW_DESCRIBE] = { -EINVAL, VROCE_MR_STATE_GONE },
		[MW_ALLOCATED] = { -EINVAL, VROCE_MR_STATE_GONE },
		[MW_FAILED_EIO] = { 1, VROCE_MR_STATE_GONE },
		[MW_FAILED_TIMEOUT] = { 1, VROCE_MR_STATE_GONE },
		[MW_PARKED] = { -EINVAL, VROCE_MR_STATE_GONE },
		[MW_RELEASED] = { -EINVAL, VROCE_MR_STATE_GONE },
		[MW_RELEASED_RESET] = { -EINVAL, VROCE_MR_STATE_GONE },
	},
};

static int mw_do(struct vroce_mw_obj *mw, enum mw_call call)
{
	struct vroce_mw_desc desc;

	switch (call) {
	case MW_DESCRIBE:
		return vroce_mw_obj_describe(mw, &desc);
	case MW_ALLOCATED:
		return vroce_mw_obj_allocated(mw, MW_KEY, MW_HANDLE);
	case MW_FAILED_EIO:
		return vroce_mw_obj_alloc_failed(mw, -EIO);
	case MW_FAILED_TIMEOUT:
		return vroce_mw_obj_alloc_failed(mw, -ETIMEDOUT);
	case MW_PARKED:
		return vroce_mw_obj_parked(mw);
	case MW_RELEASED:
		return vroce_mw_obj_released(mw, false);
	case MW_RELEASED_RESET:
		return vroce_mw_obj_released(mw, true);
	default:
		return INT_MIN;	/* no such call: fails every expectation */
	}
}

/*
 * Every call in every state, each on a fresh object of both types: its
 * exact return, the state it leaves (info()), and a refused call changes
 * nothing.
 */
static void vroce_mw_obj_transitions(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mw_obj *mw;
	char what[64];
	u32 type, state;
	int call;

	for (type = VROCE_MW_OBJ_TYPE_1; type <= VROCE_MW_OBJ_TYPE_2; type++)
		for (state = 0; state < ARRAY_SIZE(mw_expect); state++)
			for (call = 0; call < MW_CALLS; call++) {
				snprintf(what, sizeof(what), "type %u, %s, %s",
					 type, mw_state_name[state],
					 mw_call_name[call]);
				mw = mw_in_state(test, vdev, type, state);
				KUNIT_EXPECT_EQ_MSG(test, mw_do(mw, call),
						    mw_expect[state][call].ret,
						    "%s", what);
				mw_expect_state(test, mw, type,
						mw_expect[state][call].next,
						what);
				mw_finish(test, vdev, mw);
			}
	vroce_test_expect_no_memory_held(test, vdev);
}

/* Bad creations: -EINVAL, *mw untouched, nothing allocated. */
static void vroce_mw_obj_bad_create(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mw_obj *sentinel = (struct vroce_mw_obj *)0x5a5a;
	struct vroce_mw_obj *mw = sentinel;
	static const u32 bad_types[] = { 0, 3, 0x100, U32_MAX };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad_types); i++) {
		KUNIT_EXPECT_EQ_MSG(test, vroce_mw_obj_create(vdev, bad_types[i],
							      MW_PDN, &mw),
				    -EINVAL, "type %u", bad_types[i]);
		KUNIT_EXPECT_PTR_EQ(test, mw, sentinel);
	}
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_create(NULL, VROCE_MW_OBJ_TYPE_1,
						  MW_PDN, &mw), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, mw, sentinel);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_create(vdev, VROCE_MW_OBJ_TYPE_1,
						  MW_PDN, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_create(NULL, 0, MW_PDN, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), 0);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Destroy frees a NEW or GONE object. In LIVE, ZOMBIE or LOST (the HCA
 * may hold its MPT entry) it frees nothing and warns once per call: the
 * object stays readable, and goes once the HCA lets go. The warning is
 * counted through a static stub: a real WARN would fail the run.
 */
static void vroce_mw_obj_destroy_states(struct kunit *test)
{
	static const u32 held[] = { VROCE_MR_STATE_LIVE, VROCE_MR_STATE_ZOMBIE,
				    VROCE_MR_STATE_LOST };
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mw_obj *mw;
	s64 frees;
	int i;

	mw_count_warnings(test);
	mw = mw_in_state(test, vdev, VROCE_MW_OBJ_TYPE_1, VROCE_MR_STATE_NEW);
	vroce_mw_obj_destroy(vdev, mw);
	vroce_test_expect_no_memory_held(test, vdev);
	mw = mw_in_state(test, vdev, VROCE_MW_OBJ_TYPE_2, VROCE_MR_STATE_GONE);
	vroce_mw_obj_destroy(vdev, mw);
	vroce_test_expect_no_memory_held(test, vdev);
	KUNIT_EXPECT_EQ(test, mw_warned.calls, 0);

	for (i = 0; i < ARRAY_SIZE(held); i++) {
		mw = mw_in_state(test, vdev, VROCE_MW_OBJ_TYPE_2, held[i]);
		frees = atomic64_read(&vdev->mem.frees);
		mw_warned.calls = 0;
		vroce_mw_obj_destroy(vdev, mw);
		KUNIT_EXPECT_EQ_MSG(test, mw_warned.calls, 1, "%s",
				    mw_state_name[held[i]]);
		KUNIT_EXPECT_EQ_MSG(test, mw_warned.state, held[i], "%s",
				    mw_state_name[held[i]]);
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&vdev->mem.frees), frees,
				    "%s", mw_state_name[held[i]]);
		/* Still there, as it was: the HCA lets go, then it is freed. */
		mw_expect_state(test, mw, VROCE_MW_OBJ_TYPE_2, held[i],
				"after the refused destroy");
		mw_finish(test, vdev, mw);
		KUNIT_EXPECT_EQ_MSG(test, mw_warned.calls, 1, "%s",
				    mw_state_name[held[i]]);
	}
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * Every allocation of a create fails in turn (fail_nth): -ENOMEM, *mw
 * untouched, the fault consumed, nothing held.
 */
static void vroce_mw_obj_alloc_faults(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	struct vroce_mw_obj *sentinel = (struct vroce_mw_obj *)0x5a5a;
	struct vroce_mw_obj *mw = NULL;
	s64 allocs;
	int n;

	KUNIT_ASSERT_EQ(test, vroce_mw_obj_create(vdev, VROCE_MW_OBJ_TYPE_1,
						  MW_PDN, &mw), 0);
	allocs = vroce_test_allocs(test, vdev);
	vroce_mw_obj_destroy(vdev, mw);
	KUNIT_ASSERT_GT(test, allocs, 0);

	for (n = 1; n <= allocs; n++) {
		mw = sentinel;
		atomic_set(&vdev->mem.fail_nth, n);
		KUNIT_EXPECT_EQ_MSG(test,
				    vroce_mw_obj_create(vdev, VROCE_MW_OBJ_TYPE_2,
							MW_PDN, &mw),
				    -ENOMEM, "allocation %d", n);
		KUNIT_EXPECT_PTR_EQ(test, mw, sentinel);
		KUNIT_EXPECT_EQ(test, atomic_read(&vdev->mem.fail_nth), 0);
		vroce_test_expect_no_memory_held(test, vdev);
	}
	atomic_set(&vdev->mem.fail_nth, 0);

	/* One past the last: the create succeeds. */
	atomic_set(&vdev->mem.fail_nth, allocs + 1);
	KUNIT_EXPECT_EQ(test, vroce_mw_obj_create(vdev, VROCE_MW_OBJ_TYPE_2,
						  MW_PDN, &mw), 0);
	atomic_set(&vdev->mem.fail_nth, 0);
	if (mw != sentinel)
		vroce_mw_obj_destroy(vdev, mw);
	vroce_test_expect_no_memory_held(test, vdev);
}

/*
 * IB_ACCESS_MW_BIND: a right of user and fast-register MRs
 * (VROCE_MR_RIGHT_MW_BIND), never of a DMA MR.
 */
static void vroce_mw_obj_mr_rights(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);
	unsigned long uaddr = vroce_test_user_mem(test, SZ_16K, 0);
	struct vroce_mr_user_attr attr = {
		.start = uaddr,
		.length = SZ_4K,
		.iova = uaddr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND,
		.max_length = vdev->attr.max_mr_size,
	};
	struct vroce_mr_obj *mr = NULL;
	struct vroce_mr_desc desc;
	u32 rights;

	rights = U32_MAX;
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_MW_BIND, &rights), 0);
	KUNIT_EXPECT_EQ(test, rights, VROCE_MR_RIGHT_MW_BIND);
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_LOCAL_WRITE |
					      IB_ACCESS_REMOTE_READ |
					      IB_ACCESS_MW_BIND |
					      IB_ACCESS_RELAXED_ORDERING,
					      &rights), 0);
	KUNIT_EXPECT_EQ(test, rights, VROCE_MR_RIGHT_LOCAL_WRITE |
				      VROCE_MR_RIGHT_REMOTE_READ |
				      VROCE_MR_RIGHT_MW_BIND);
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_LOCAL_WRITE, &rights), 0);
	KUNIT_EXPECT_EQ(test, rights, VROCE_MR_RIGHT_LOCAL_WRITE);

	/* The other rules hold with MW_BIND too; nothing written on error. */
	rights = U32_MAX;
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_MW_BIND |
					      IB_ACCESS_REMOTE_WRITE, &rights),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_MW_BIND |
					      IB_ZERO_BASED, &rights),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rights, U32_MAX);
	KUNIT_EXPECT_EQ(test, vroce_mr_rights(IB_ACCESS_MW_BIND, NULL), -EINVAL);

	/* No window on a DMA MR, whatever else it asks or is allowed. */
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_MW_BIND,
						      false, &mr), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_MW_BIND |
						      IB_ACCESS_LOCAL_WRITE,
						      true, &mr), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_create_dma(vdev, IB_ACCESS_MW_BIND |
						      IB_ACCESS_REMOTE_READ,
						      true, &mr), -EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, vroce_test_allocs(test, vdev), 0);

	/* A user MR takes it: CREATE_MR is told VROCE_MR_RIGHT_MW_BIND. */
	KUNIT_ASSERT_EQ(test, vroce_mr_obj_create_user(vdev, &attr, NULL, &mr),
			0);
	KUNIT_EXPECT_EQ(test, vroce_mr_obj_describe(mr, MW_PDN, &desc), 0);
	KUNIT_EXPECT_EQ(test, desc.access, VROCE_MR_RIGHT_LOCAL_WRITE |
					   VROCE_MR_RIGHT_MW_BIND);
	KUNIT_EXPECT_EQ(test, desc.kind, VROCE_MR_TYPE_USER);
	vroce_mr_obj_destroy(vdev, mr);
	vroce_test_expect_no_memory_held(test, vdev);
}

static struct kunit_case vroce_mw_obj_cases[] = {
	KUNIT_CASE(vroce_mw_obj_lifecycle),
	KUNIT_CASE(vroce_mw_obj_transitions),
	KUNIT_CASE(vroce_mw_obj_bad_create),
	KUNIT_CASE(vroce_mw_obj_destroy_states),
	KUNIT_CASE(vroce_mw_obj_alloc_faults),
	KUNIT_CASE(vroce_mw_obj_mr_rights),
	{}
};

static struct kunit_suite vroce_mw_obj_suite = {
	.name = "vroce_mw_obj",
	.test_cases = vroce_mw_obj_cases,
};

kunit_test_suite(vroce_mw_obj_suite);
