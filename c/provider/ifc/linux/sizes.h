/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What c/ifc/ takes from the kernel's <linux/sizes.h>, for the provider. */
#ifndef _VROCE_PROVIDER_LINUX_SIZES_H_
#define _VROCE_PROVIDER_LINUX_SIZES_H_

#define SZ_1K	0x00000400
#define SZ_4K	0x00001000
#define SZ_64K	0x00010000
#define SZ_1M	0x00100000
#define SZ_2G	0x80000000U

#endif
