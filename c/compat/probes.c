// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probes of the target kernel's API (c/compat/vroce_compat.h).
 * c/compat/probe.sh compiles this file once per probe, with the
 * module's own flags and -DVROCE_PROBE_<NAME>; a probe that compiles
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
/* Always compiles: the flags work (compat-probe.sh stops otherwise). */
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

#ifdef VROCE_PROBE_WORDPART_H
/* v6.10: upper_32_bits() and friends moved to linux/wordpart.h. */
#include <linux/wordpart.h>
static u32 __used vroce_probe(u64 x)
{
	return upper_32_bits(x);
}
#endif
