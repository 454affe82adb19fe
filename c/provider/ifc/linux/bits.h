/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What c/ifc/ (the HCA's formats, written for the kernel) takes from the
 * kernel's <linux/bits.h>, for the provider, which includes those formats
 * through c/provider/vroce_ifc.h.
 */
#ifndef _VROCE_PROVIDER_LINUX_BITS_H_
#define _VROCE_PROVIDER_LINUX_BITS_H_

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define GENMASK(h, l)	(((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (63 - (h))))

#endif
