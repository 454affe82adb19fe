/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce_kunit_compat.h - the KUnit API the suites (kunit/) use, on the
 * kernels whose KUnit predates it: Linux 6.1's, for the suites against
 * 6.1's ib_core (VROCE_KLINE=6.1, Documentation/compat.rst). Probed like
 * the driver's differences (c/compat/probes.c); included by
 * kunit/vroce_test.h only, never by the driver.
 */
#ifndef VROCE_KUNIT_COMPAT_H
#define VROCE_KUNIT_COMPAT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vroce_compat.h"

#ifdef VROCE_HAVE_KUNIT_PLATFORM_DEVICE
#include <kunit/platform_device.h>
#endif

/*
 * v6.2: a kernel ULP's ATOMIC_WRITE. Without it the case that posts one
 * skips before it does (kunit/vroce_atomic_test.c).
 */
#ifdef VROCE_HAVE_IB_ATOMIC_WRITE
#define VROCE_IB_WR_ATOMIC_WRITE	IB_WR_ATOMIC_WRITE
#else
#define VROCE_IB_WR_ATOMIC_WRITE	IB_WR_RDMA_WRITE
#endif

/* v6.6: slow cases are marked; before, they are cases like the others. */
#ifndef VROCE_HAVE_KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#endif

/* v6.2: memory compared by KUnit itself. */
#ifndef VROCE_HAVE_KUNIT_MEMEQ
#define KUNIT_EXPECT_MEMEQ(test, left, right, size)			\
	KUNIT_EXPECT_EQ(test, memcmp(left, right, size), 0)
#define KUNIT_EXPECT_MEMEQ_MSG(test, left, right, size, fmt, ...)	\
	KUNIT_EXPECT_EQ_MSG(test, memcmp(left, right, size), 0,	\
			    fmt, ##__VA_ARGS__)
#endif

/* v6.3: static stubs. Without them a case that needs one is skipped. */
#ifndef VROCE_HAVE_KUNIT_STATIC_STUB
#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) \
	do {								\
		(void)(real_fn_addr);					\
		(void)(replacement_addr);				\
		kunit_skip(test, "no KUnit static stubs (v6.3)");	\
	} while (0)
#define kunit_deactivate_static_stub(test, real_fn_addr)		\
	((void)(test), (void)(real_fn_addr))
#endif

/*
 * v6.5: deferred actions, built here on the resources 6.1's KUnit has:
 * each action is a resource whose free function calls it, released in
 * reverse order at the end of the case like any resource.
 */
#ifndef VROCE_HAVE_KUNIT_ACTIONS
typedef void (kunit_action_t)(void *);
#endif

/* The emulations' actions (deferred actions, platform devices). */
struct vroce_kunit_action {
	kunit_action_t *action;
	void *ctx;
	const char *tag;
	bool cancelled;
};

static inline int vroce_kunit_action_init(struct kunit_resource *res,
					  void *context)
{
	res->data = kmemdup(context, sizeof(struct vroce_kunit_action),
			    GFP_KERNEL);
	return res->data ? 0 : -ENOMEM;
}

static inline void vroce_kunit_action_free(struct kunit_resource *res)
{
	struct vroce_kunit_action *a = res->data;

	if (!a->cancelled)
		a->action(a->ctx);
	kfree(a);
}

/*
 * An action's resource is known by its name, not by its free function:
 * each file that includes this header has a copy of that function.
 */
#define VROCE_KUNIT_ACTION "vroce-kunit-action"

static inline bool vroce_kunit_action_match(struct kunit *test,
					    struct kunit_resource *res,
					    void *match_data)
{
	struct vroce_kunit_action *want = match_data, *a = res->data;

	return res->name && !strcmp(res->name, VROCE_KUNIT_ACTION) &&
	       a->action == want->action && a->ctx == want->ctx;
}

#ifndef VROCE_HAVE_KUNIT_ACTIONS
static inline int kunit_add_action_or_reset(struct kunit *test,
					    kunit_action_t *action, void *ctx)
{
	struct vroce_kunit_action a = { .action = action, .ctx = ctx };
	struct kunit_resource *res;

	res = kunit_alloc_and_get_resource(test, vroce_kunit_action_init,
					   vroce_kunit_action_free,
					   GFP_KERNEL, &a);
	if (!res) {
		action(ctx);
		return -ENOMEM;
	}
	res->name = VROCE_KUNIT_ACTION;
	kunit_put_resource(res);
	return 0;
}

/* Run the last matching action now, not at the end. */
static inline void kunit_release_action(struct kunit *test,
					kunit_action_t *action, void *ctx)
{
	struct vroce_kunit_action a = { .action = action, .ctx = ctx };

	kunit_destroy_resource(test, vroce_kunit_action_match, &a);
}

/* Forget the last matching action: it is never called. */
static inline void kunit_remove_action(struct kunit *test,
				       kunit_action_t *action, void *ctx)
{
	struct vroce_kunit_action a = { .action = action, .ctx = ctx };
	struct kunit_resource *res;

	res = kunit_find_resource(test, vroce_kunit_action_match, &a);
	if (!res)
		return;
	((struct vroce_kunit_action *)res->data)->cancelled = true;
	kunit_remove_resource(test, res);
	kunit_put_resource(res);
}
#endif

/* v6.8: a function of one pointer argument as an action. */
#ifndef VROCE_HAVE_KUNIT_ACTION_WRAPPER
#define KUNIT_DEFINE_ACTION_WRAPPER(wrapper, orig, arg_type)		\
	static void wrapper(void *in)					\
	{								\
		orig((arg_type)in);					\
	}
#endif

/*
 * v6.9: platform devices that the end of the case unregisters. As in
 * KUnit since: the allocation's action (put) becomes unregister when the
 * device is added, in its place; found by its tag and device, since each
 * file has its own copy of the wrappers below.
 */
#ifndef VROCE_HAVE_KUNIT_PLATFORM_DEVICE
#define VROCE_KUNIT_PDEV "vroce-kunit-pdev"

KUNIT_DEFINE_ACTION_WRAPPER(vroce_kunit_pdev_put, platform_device_put,
			    struct platform_device *);
KUNIT_DEFINE_ACTION_WRAPPER(vroce_kunit_pdev_unregister,
			    platform_device_unregister,
			    struct platform_device *);

static inline bool vroce_kunit_pdev_match(struct kunit *test,
					  struct kunit_resource *res,
					  void *match_data)
{
	struct vroce_kunit_action *a = res->data;

	return res->name && !strcmp(res->name, VROCE_KUNIT_ACTION) &&
	       a->tag && !strcmp(a->tag, VROCE_KUNIT_PDEV) &&
	       a->ctx == match_data;
}

static inline struct platform_device *
kunit_platform_device_alloc(struct kunit *test, const char *name, int id)
{
	struct vroce_kunit_action a = { .action = vroce_kunit_pdev_put,
					.tag = VROCE_KUNIT_PDEV };
	struct kunit_resource *res;

	a.ctx = platform_device_alloc(name, id);
	if (!a.ctx)
		return ERR_PTR(-ENOMEM);
	res = kunit_alloc_and_get_resource(test, vroce_kunit_action_init,
					   vroce_kunit_action_free,
					   GFP_KERNEL, &a);
	if (!res) {
		platform_device_put(a.ctx);
		return ERR_PTR(-ENOMEM);
	}
	res->name = VROCE_KUNIT_ACTION;
	kunit_put_resource(res);
	return a.ctx;
}

static inline int kunit_platform_device_add(struct kunit *test,
					    struct platform_device *pdev)
{
	struct kunit_resource *res;
	int err;

	res = kunit_find_resource(test, vroce_kunit_pdev_match, pdev);
	if (!res)
		return -ENOENT;
	err = platform_device_add(pdev);
	if (!err)
		((struct vroce_kunit_action *)res->data)->action =
			vroce_kunit_pdev_unregister;
	kunit_put_resource(res);
	return err;
}
#endif

/*
 * v6.10: user memory for a case. The case's kthread gets an mm of its
 * own, attached the way KUnit attaches it since; the mm goes when the
 * kthread exits. Unlike there, 6.1's KUnit runs a case's cleanup in the
 * case's thread, the mm still attached (Documentation/compat.rst).
 */
#ifndef VROCE_HAVE_KUNIT_VM_MMAP
static inline unsigned long kunit_vm_mmap(struct kunit *test,
					  struct file *file,
					  unsigned long addr,
					  unsigned long len,
					  unsigned long prot,
					  unsigned long flag,
					  unsigned long offset)
{
	struct mm_struct *mm;

	if (!current->mm) {
		mm = mm_alloc();
		if (!mm)
			return 0;
		mm->task_size = TASK_SIZE;
		arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
		kthread_use_mm(mm);
	}
	addr = vm_mmap(file, addr, len, prot, flag, offset);
	return IS_ERR_VALUE(addr) ? 0 : addr;
}
#endif

#endif /* VROCE_KUNIT_COMPAT_H */
