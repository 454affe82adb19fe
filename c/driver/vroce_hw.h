/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce hardware access: the only way the driver touches the HCA's
 * registers, doorbells and interrupt line (c/vroce_hw.c).
 */
#ifndef _VROCE_HW_H_
#define _VROCE_HW_H_

#include <linux/types.h>

struct vroce_bus_ops;
struct vroce_hca_res;

/**
 * struct vroce_hw - the driver's handle on the HCA's bus
 * @bus: register cycles and the interrupt line
 * @ctx: the bus's cookie
 */
struct vroce_hw {
	const struct vroce_bus_ops *bus;
	void *ctx;
};

void vroce_hw_init(struct vroce_hw *hw, const struct vroce_hca_res *res);
u32 vroce_hw_read32(struct vroce_hw *hw, u32 off);
void vroce_hw_write32(struct vroce_hw *hw, u32 off, u32 val);
void vroce_hw_write64(struct vroce_hw *hw, u32 off, u64 val);
void vroce_hw_ring_cmdq(struct vroce_hw *hw, u32 pi);
int vroce_hw_request_irq(struct vroce_hw *hw, unsigned int vec,
			 void (*handler)(void *data), void *data);
void vroce_hw_free_irq(struct vroce_hw *hw, unsigned int vec);

#endif /* _VROCE_HW_H_ */
