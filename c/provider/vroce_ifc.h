/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HCA's data path formats (c/ifc/vroce_wqe.h: WQEs, CQEs; rights from
 * c/ifc/vroce_cmds.h) for the
 * provider, which writes WQEs into and reads CQEs from mapped rings
 * (issue 31). The formats are the hardware's, written once, for the
 * kernel: this header gives them the kernel's type names, and the
 * Makefile puts c/provider/ifc/ (<linux/bits.h>, <linux/sizes.h>) first
 * on the include path.
 */
#ifndef _VROCE_PROVIDER_IFC_H_
#define _VROCE_PROVIDER_IFC_H_

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#include "../ifc/vroce_wqe.h"
/* The MR and window rights a BIND_MW carries (issue 30). */
#include "../ifc/vroce_cmds.h"

#endif
