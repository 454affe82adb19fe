/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce hardware access: the only way the driver touches the HCA's
 * registers, doorbells and interrupt vectors (c/driver/vroce_hw.c). Every
 * function here is one step the HCA defines; none takes a register
 * offset. The register map itself (c/ifc/vroce_regs.h) is included by
 * vroce_hw.c alone.
 */
#ifndef _VROCE_HW_H_
#define _VROCE_HW_H_

#include <linux/types.h>

struct vroce_bus_ops;
struct vroce_hca_res;

/**
 * struct vroce_hw - the driver's handle on the HCA's bus
 * @bus: register cycles and the interrupt vectors
 * @ctx: the bus's cookie
 */
struct vroce_hw {
	const struct vroce_bus_ops *bus;
	void *ctx;
};

/**
 * struct vroce_hw_mtt - a translation (an MTR) as the HCA is told of it,
 *	in CREATE_* commands and in the ring registers
 * @root_ba: DMA address of the root table, or of the first page when the
 *	region is direct
 * @ba_pg_shift: table page shift
 * @buf_pg_shift: buffer page shift
 * @hopnum: table levels in front of the pages of region 0
 * @page_count: pages behind the table
 *
 * Filled from an MTR by vroce_ring_mtt() (c/driver/vroce_ring.c), the one
 * place that reads an MTR's layout for the HCA.
 */
struct vroce_hw_mtt {
	u64 root_ba;
	u32 ba_pg_shift;
	u32 buf_pg_shift;
	u32 hopnum;
	u64 page_count;
};

/* What a CQ doorbell asks for besides the new consumer index. */
enum vroce_hw_cq_arm {
	VROCE_HW_CQ_NO_ARM,		/* the consumer index only */
	VROCE_HW_CQ_ARM_NEXT,		/* an event for the next CQE */
	VROCE_HW_CQ_ARM_SOLICITED,	/* for the next solicited or error one */
};

struct vroce_cmdq_dbr;

void vroce_hw_init(struct vroce_hw *hw, const struct vroce_hca_res *res);
u32 vroce_hw_version(struct vroce_hw *hw);
bool vroce_hw_version_ok(u32 version);
void vroce_hw_reset(struct vroce_hw *hw);
/* The HCA's heartbeat moves at least this often while it runs. */
#define VROCE_HW_BEAT_MS	10
bool vroce_hw_health(struct vroce_hw *hw, u32 *beat);
int vroce_hw_cmdq_start(struct vroce_hw *hw, const struct vroce_hw_mtt *mtt,
			u32 depth_log2, u64 dbr_dma);
bool vroce_hw_cmdq_doorbell(struct vroce_hw *hw, struct vroce_cmdq_dbr *dbr,
			    u32 pi, bool lend);
void vroce_hw_cmdq_lend(struct vroce_hw *hw, u32 pi);
void vroce_hw_cmdq_kick(struct vroce_hw *hw, u32 pi);
u32 vroce_hw_cmdq_ci(struct vroce_hw *hw);
void vroce_hw_eq_start(struct vroce_hw *hw, const struct vroce_hw_mtt *mtt,
		       u32 depth_log2);
void vroce_hw_eq_set_ci(struct vroce_hw *hw, u32 ci);
void vroce_hw_sq_doorbell(struct vroce_hw *hw, u32 qpn, u32 pi);
void vroce_hw_rq_doorbell(struct vroce_hw *hw, u32 qpn, u32 pi);
void vroce_hw_srq_doorbell(struct vroce_hw *hw, u32 srqn, u32 pi);
/* issue 31, lend */
void vroce_hw_qp_lend(struct vroce_hw *hw, u32 qpn);
void vroce_hw_cq_doorbell(struct vroce_hw *hw, u32 cqn, u32 ci,
			  enum vroce_hw_cq_arm arm);
void vroce_hw_irq_mask(struct vroce_hw *hw, unsigned int vec, bool masked);
int vroce_hw_request_irq(struct vroce_hw *hw, unsigned int vec,
			 void (*handler)(void *data), void *data);
void vroce_hw_free_irq(struct vroce_hw *hw, unsigned int vec);

#endif /* _VROCE_HW_H_ */
