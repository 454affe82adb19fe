// SPDX-License-Identifier: GPL-2.0
/*
 * vroce hardware access: the only file that reads or writes the HCA's
 * registers, rings its doorbells or connects its interrupt.
 *
 * Register cycles go through the bus the HCA sits on (struct
 * vroce_bus_ops): on silicon readl()/writel() on the ioremapped BAR, on the
 * emulated HCA its register decode.
 */

#include <asm/barrier.h>
#include <kunit/visibility.h>
#include <linux/wordpart.h>

#include "../ifc/vroce_bus.h"
#include "vroce_hw.h"
#include "../ifc/vroce_cmds.h"
#include "../ifc/vroce_regs.h"
#include "../ifc/vroce_wqe.h"

/**
 * vroce_hw_init() - take the HCA's bus from its platform data
 * @hw: the handle to fill
 * @res: what the bus provides
 */
void vroce_hw_init(struct vroce_hw *hw, const struct vroce_hca_res *res)
{
	hw->bus = res->bus;
	hw->ctx = res->ctx;
}

/**
 * vroce_hw_read32() - read a register
 * @hw: the HCA
 * @off: register offset (VROCE_REG_*)
 *
 * Return: the value; all ones when the HCA does not answer.
 */
u32 vroce_hw_read32(struct vroce_hw *hw, u32 off)
{
	return hw->bus->read32(hw->ctx, off);
}

/**
 * vroce_hw_write32() - write a register
 * @hw: the HCA
 * @off: register offset (VROCE_REG_*)
 * @val: the value
 */
void vroce_hw_write32(struct vroce_hw *hw, u32 off, u32 val)
{
	hw->bus->write32(hw->ctx, off, val);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hw_write32);

/**
 * vroce_hw_write64() - write a 64-bit register, low half first
 * @hw: the HCA
 * @off: register offset (VROCE_REG_*)
 * @val: the value
 */
void vroce_hw_write64(struct vroce_hw *hw, u32 off, u64 val)
{
	hw->bus->write32(hw->ctx, off, lower_32_bits(val));
	hw->bus->write32(hw->ctx, off + 4, upper_32_bits(val));
}

/**
 * vroce_hw_ring_cmdq() - tell the HCA that commands up to @pi are posted
 * @hw: the HCA
 * @pi: the new producer index
 *
 * Context: any context.
 */
void vroce_hw_ring_cmdq(struct vroce_hw *hw, u32 pi)
{
	/* The slots must be in memory before the HCA hears of them. */
	dma_wmb();
	hw->bus->write32(hw->ctx, VROCE_REG_CMDQ_PI, pi);
}

/**
 * vroce_hw_request_irq() - connect one of the HCA's interrupt vectors
 * @hw: the HCA
 * @vec: VROCE_IRQ_CMD or VROCE_IRQ_EQ
 * @handler: called in process context when the HCA raises @vec, with no
 *	lock of the HCA held
 * @data: passed to @handler
 *
 * Return: 0, -EINVAL for an unknown vector, or -EBUSY when a handler is
 * already connected to it.
 */
int vroce_hw_request_irq(struct vroce_hw *hw, unsigned int vec,
			 void (*handler)(void *data), void *data)
{
	return hw->bus->request_irq(hw->ctx, vec, handler, data);
}

/**
 * vroce_hw_free_irq() - disconnect one of the HCA's interrupt vectors
 * @hw: the HCA
 * @vec: the vector
 *
 * No call of its handler runs once this returns.
 */
void vroce_hw_free_irq(struct vroce_hw *hw, unsigned int vec)
{
	hw->bus->free_irq(hw->ctx, vec);
}
