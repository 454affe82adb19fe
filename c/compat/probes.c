// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probes of the target kernel's API (c/compat/vroce_compat.h).
 * c/compat/probe.sh compiles this file once per probe, with the
 * compiler and flags Kbuild gives the driver's objects (as for built-in
 * code: no -DMODULE) and -DVROCE_PROBE_<NAME>; a probe that compiles
 * defines VROCE_HAVE_<NAME> in the generated vroce_compat_gen.h. Each
 * probe uses the API exactly as the driver does, so that a kernel where
 * it compiles is one where the driver's use compiles.
 *
 * Keep each probe free of warnings where the API exists: the probe runs
 * with the kernel's -Werror= options and a few more (c/compat/probe.sh).
 */
#include <linux/kernel.h>
#include <linux/module.h>

#ifdef VROCE_PROBE_SANITY
/* Always compiles: the flags work (probe.sh stops otherwise). */
static int __used vroce_probe(void)
{
	return 0;
}
#endif

#ifdef VROCE_PROBE_PLATFORM_REMOVE_VOID
/* v6.11: platform_driver.remove returns void (remove_new folded in). */
#include <linux/platform_device.h>
static void vroce_probe_remove(struct platform_device *pdev)
{
}

static struct platform_driver vroce_probe_drv __used = {
	.remove = vroce_probe_remove,
};
#endif

#ifdef VROCE_PROBE_IB_ATOMIC_WRITE
/* v6.2: RDMA ATOMIC_WRITE in ib_core (IB_WR/IB_WC/IB_DEVICE_ATOMIC_WRITE). */
#include <rdma/ib_verbs.h>
static int __used vroce_probe(void)
{
	return IB_WR_ATOMIC_WRITE + IB_WC_ATOMIC_WRITE +
	       (int)(IB_DEVICE_ATOMIC_WRITE != 0);
}
#endif

#ifdef VROCE_PROBE_CREATE_CQ_ATTRS
/* v6.11: ib_device_ops.create_cq takes a uverbs_attr_bundle. */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
static int vroce_probe_create_cq(struct ib_cq *ibcq,
				 const struct ib_cq_init_attr *attr,
				 struct uverbs_attr_bundle *attrs)
{
	return attrs ? (int)attrs->driver_udata.inlen : 0;
}

static const struct ib_device_ops vroce_probe_ops __used = {
	.create_cq = vroce_probe_create_cq,
};
#endif

#ifdef VROCE_PROBE_KUNIT_STATIC_STUB
/* v6.3: KUnit static stubs (kunit/static_stub.h). */
#include <kunit/static_stub.h>
static int __used vroce_probe(int x)
{
	KUNIT_STATIC_STUB_REDIRECT(vroce_probe, x);
	return x;
}
#endif

#ifdef VROCE_PROBE_UNALIGNED_H
/* v6.12: asm/unaligned.h became linux/unaligned.h. */
#include <linux/unaligned.h>
static u32 __used vroce_probe(const void *p)
{
	return get_unaligned_le32(p);
}
#endif

#ifdef VROCE_PROBE_WORDPART_H
/* v6.10: upper_32_bits() and friends moved to linux/wordpart.h. */
#include <linux/wordpart.h>
static u32 __used vroce_probe(u64 x)
{
	return upper_32_bits(x);
}
#endif

#ifdef VROCE_PROBE_IB_DEVICE_GET_NETDEV
/* ib_device_get_netdev() for ULPs (6.1 keeps it in ib_core's core_priv.h). */
#include <rdma/ib_verbs.h>
static struct net_device * __used vroce_probe(struct ib_device *ibdev)
{
	return ib_device_get_netdev(ibdev, 1);
}
#endif

#ifdef VROCE_PROBE_KUNIT_CASE_SLOW
/* v6.6: KUNIT_CASE_SLOW(). */
#include <kunit/test.h>
static void vroce_probe_case(struct kunit *test)
{
}

static struct kunit_case vroce_probe_cases[] __used = {
	KUNIT_CASE_SLOW(vroce_probe_case),
	{}
};
#endif

#ifdef VROCE_PROBE_KUNIT_MEMEQ
/* v6.2: KUNIT_EXPECT_MEMEQ(). */
#include <kunit/test.h>
static void __used vroce_probe_case(struct kunit *test)
{
	KUNIT_EXPECT_MEMEQ(test, "a", "a", 1);
}
#endif

#ifdef VROCE_PROBE_KUNIT_ACTIONS
/* v6.5: deferred actions. */
#include <kunit/resource.h>
static void vroce_probe_action(void *ctx)
{
}

static int __used vroce_probe(struct kunit *test)
{
	kunit_remove_action(test, vroce_probe_action, NULL);
	kunit_release_action(test, vroce_probe_action, NULL);
	return kunit_add_action_or_reset(test, vroce_probe_action, NULL);
}
#endif

#ifdef VROCE_PROBE_KUNIT_ACTION_WRAPPER
/* v6.8: KUNIT_DEFINE_ACTION_WRAPPER(). */
#include <kunit/resource.h>
static void vroce_probe_free(int *p)
{
}

KUNIT_DEFINE_ACTION_WRAPPER(vroce_probe_action, vroce_probe_free, int *);
static kunit_action_t *vroce_probe_ptr __used = vroce_probe_action;
#endif

#ifdef VROCE_PROBE_KUNIT_PLATFORM_DEVICE
/* v6.9: kunit/platform_device.h. */
#include <kunit/platform_device.h>
static int __used vroce_probe(struct kunit *test)
{
	struct platform_device *pdev;

	pdev = kunit_platform_device_alloc(test, "vroce_probe", -1);
	return kunit_platform_device_add(test, pdev);
}
#endif

#ifdef VROCE_PROBE_KUNIT_VM_MMAP
/* v6.10: kunit_vm_mmap(). */
#include <kunit/test.h>
static unsigned long __used vroce_probe(struct kunit *test)
{
	return kunit_vm_mmap(test, NULL, 0, 4096, 0, 0, 0);
}
#endif
