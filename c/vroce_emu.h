/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce emulated HCA: what the device model offers. The model sees only
 * what silicon would: values programmed into it and DMA addresses.
 */
#ifndef _VROCE_EMU_H_
#define _VROCE_EMU_H_

#include <linux/types.h>

struct device;

#define VROCE_EMU_MAX_REGIONS	3

/**
 * struct vroce_emu_region - one region of a translation, as programmed
 * @offset: index of the region's first page
 * @count: pages in the region
 * @hopnum: table levels in front of the region, 0 to 3
 */
struct vroce_emu_region {
	u64 offset;
	u64 count;
	u32 hopnum;
};

/**
 * struct vroce_emu_mtt - a memory translation as the HCA is programmed
 * @root_ba: DMA address of the root table page, or of the first page when
 *	every region is hop 0
 * @ba_pg_shift: table page shift
 * @buf_pg_shift: buffer page shift
 * @region_count: regions in use, 1 to VROCE_EMU_MAX_REGIONS
 * @region: the regions, in page order
 */
struct vroce_emu_mtt {
	u64 root_ba;
	u32 ba_pg_shift;
	u32 buf_pg_shift;
	u32 region_count;
	struct vroce_emu_region region[VROCE_EMU_MAX_REGIONS];
};

int vroce_emu_mtt_translate(struct device *dma_dev,
			    const struct vroce_emu_mtt *mtt, u64 page,
			    u64 *addr, u64 *table);
void *vroce_emu_dma_to_virt(struct device *dma_dev, u64 dma, size_t len);

#endif /* _VROCE_EMU_H_ */
