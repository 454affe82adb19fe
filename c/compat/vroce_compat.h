/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce_compat.h - the one place where vroce adapts to the kernel it is
 * built against (Debian 12's 6.1 and 6.12 lines; Documentation/compat.rst
 * lists every difference). What the target kernel has is probed at build
 * time: Kbuild compiles each probe of c/compat/probes.c with the flags of
 * the driver's objects and writes the result into vroce_compat_gen.h
 * (c/compat/probe.sh). No version numbers, and no #ifdef in the .c
 * files: they call the wrappers below.
 */
#ifndef VROCE_COMPAT_H
#define VROCE_COMPAT_H

#include <linux/kernel.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* Not "": in an O= build a stale one beside this file must not win. */
#include <vroce_compat_gen.h>

#ifdef VROCE_HAVE_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#ifdef VROCE_HAVE_WORDPART_H
#include <linux/wordpart.h>
#endif

#ifdef VROCE_HAVE_KUNIT_STATIC_STUB
#include <kunit/static_stub.h>
#else
/* No KUnit static stubs (before v6.3): nothing redirects the call. */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) ((void)(real_fn_name))
#endif

/*
 * VROCE_DEFINE_PLATFORM_REMOVE(fn) - the platform driver's remove method
 * fn_op(), calling void @fn(pdev): it returns void since v6.11, int before.
 */
#ifdef VROCE_HAVE_PLATFORM_REMOVE_VOID
#define VROCE_DEFINE_PLATFORM_REMOVE(fn)				\
static void fn##_op(struct platform_device *pdev)			\
{									\
	fn(pdev);							\
}
#else
#define VROCE_DEFINE_PLATFORM_REMOVE(fn)				\
static int fn##_op(struct platform_device *pdev)			\
{									\
	fn(pdev);							\
	return 0;							\
}
#endif

/*
 * VROCE_DEFINE_CREATE_CQ(fn) - ib_device_ops.create_cq fn_op(), calling
 * @fn(ibcq, attr, udata): the method takes a uverbs_attr_bundle since
 * v6.11 (its driver_udata is the udata), the udata itself before.
 */
#ifdef VROCE_HAVE_CREATE_CQ_ATTRS
#define VROCE_DEFINE_CREATE_CQ(fn)					\
static int fn##_op(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, \
		struct uverbs_attr_bundle *attrs)			\
{									\
	return fn(ibcq, attr, attrs ? &attrs->driver_udata : NULL);	\
}
#else
#define VROCE_DEFINE_CREATE_CQ(fn)					\
static int fn##_op(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr, \
		struct ib_udata *udata)					\
{									\
	return fn(ibcq, attr, udata);					\
}
#endif

/*
 * RDMA ATOMIC_WRITE (v6.2). Without it in ib_core no kernel consumer can
 * post one and uverbs has no opcode for it: the device does not report
 * it, and a kernel work request's opcode never maps to it (a process
 * still asks for it with VROCE_SEND_ATOMIC_WRITE, c/uapi/vroce-abi.h,
 * and reads its completion from its own CQ ring).
 */
#ifdef VROCE_HAVE_IB_ATOMIC_WRITE
#define VROCE_IB_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#define VROCE_IB_WC_ATOMIC_WRITE	IB_WC_ATOMIC_WRITE
static inline bool vroce_ib_wr_atomic_write(enum ib_wr_opcode op)
{
	return op == IB_WR_ATOMIC_WRITE;
}
#else
#define VROCE_IB_DEVICE_ATOMIC_WRITE	0
/* A user CQ polled by the kernel (cmd_path): RDMA_WRITE is the nearest. */
#define VROCE_IB_WC_ATOMIC_WRITE	IB_WC_RDMA_WRITE
static inline bool vroce_ib_wr_atomic_write(enum ib_wr_opcode op)
{
	return false;
}
#endif

/*
 * vroce_ib_device_get_netdev() - the net device of @port of @ibdev, held
 * (dev_put() it), or NULL: ib_device_get_netdev() where ib_core exports it
 * (6.12 does; 6.1 keeps it to itself), else the net device of the port's
 * default GID, the same device for a RoCE port.
 */
#ifdef VROCE_HAVE_IB_DEVICE_GET_NETDEV
static inline struct net_device *
vroce_ib_device_get_netdev(struct ib_device *ibdev, u32 port)
{
	return ib_device_get_netdev(ibdev, port);
}
#else
static inline struct net_device *
vroce_ib_device_get_netdev(struct ib_device *ibdev, u32 port)
{
	const struct ib_gid_attr *attr = rdma_get_gid_attr(ibdev, port, 0);
	struct net_device *ndev;

	if (IS_ERR(attr))
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return ndev;
}
#endif

#endif /* VROCE_COMPAT_H */
