/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce HCA register file and command formats, as the hardware defines
 * them. Data only: offsets, field masks and wire structures.
 */
#ifndef _VROCE_REGS_H_
#define _VROCE_REGS_H_

#include <linux/bits.h>
#include <linux/types.h>

/* Register file (BAR 0), 32-bit registers unless noted. */
#define VROCE_REG_VERSION	0x00	/* RO: VROCE_HW_VERSION */
#define VROCE_REG_CTRL		0x04	/* RW: VROCE_CTRL_* */
#define VROCE_REG_STATUS	0x08	/* RO: VROCE_STATUS_* */
#define VROCE_REG_CMDQ_BA	0x10	/* RW, 64-bit: command ring root BA */
#define VROCE_REG_CMDQ_CFG	0x18	/* RW: VROCE_CMDQ_CFG_* */
#define VROCE_REG_CMDQ_PI	0x1c	/* WO doorbell: producer index */
#define VROCE_REG_CMDQ_CI	0x20	/* RO: consumer index */
#define VROCE_REG_INTR_CAUSE	0x24	/* RO, cleared on read: VROCE_INTR_* */
#define VROCE_REG_INTR_MASK	0x28	/* RW: 1 masks the cause */
#define VROCE_BAR_SIZE		0x40

#define VROCE_HW_VERSION	0x00010000

#define VROCE_CTRL_ENABLE	BIT(0)	/* start processing the command ring */
#define VROCE_CTRL_RESET	BIT(1)	/* self-clearing: forget all state */

#define VROCE_STATUS_READY	BIT(0)	/* enabled, ring configured */

/* Command ring layout: the ring is an MTR of one region. */
#define VROCE_CMDQ_CFG_DEPTH_LOG2	GENMASK(4, 0)	/* slots = 2^n */
#define VROCE_CMDQ_CFG_BA_PG_SHIFT	GENMASK(12, 8)
#define VROCE_CMDQ_CFG_BUF_PG_SHIFT	GENMASK(20, 16)
#define VROCE_CMDQ_CFG_HOPNUM		GENMASK(25, 24)

#define VROCE_INTR_CMD_DONE	BIT(0)

/* One command slot: the request, then the response the HCA writes back. */
#define VROCE_CMD_SLOT_SIZE	128
#define VROCE_CMD_REQ_SIZE	64

enum vroce_cmd_opcode {
	VROCE_CMD_QUERY_DEVICE	= 1,
	VROCE_CMD_CREATE_PD	= 2,
	VROCE_CMD_DESTROY_PD	= 3,
	VROCE_CMD_CREATE_MR	= 4,
	VROCE_CMD_DESTROY_MR	= 5,
};

/* Status the HCA returns in a response. */
enum vroce_cmd_status {
	VROCE_CMD_OK		= 0,
	VROCE_CMD_BAD_OPCODE	= 1,
	VROCE_CMD_BAD_PARAM	= 2,
	VROCE_CMD_NO_RESOURCE	= 3,
	VROCE_CMD_BAD_HANDLE	= 4,
	VROCE_CMD_BUSY		= 5,
	VROCE_CMD_INTERNAL	= 6,
};

/* CREATE_MR kinds. */
#define VROCE_MR_KIND_DMA	0	/* iova is a bus address, no table */
#define VROCE_MR_KIND_MTT	1	/* pages behind an MTR */
#define VROCE_MR_KIND_FRMR	2	/* MTR filled later; invalid until then */

/* MR access rights, as the HCA checks them (same bits as IB_ACCESS_*). */
#define VROCE_ACC_LOCAL_WRITE	BIT(0)
#define VROCE_ACC_REMOTE_WRITE	BIT(1)
#define VROCE_ACC_REMOTE_READ	BIT(2)
#define VROCE_ACC_REMOTE_ATOMIC	BIT(3)
#define VROCE_ACC_MASK		GENMASK(3, 0)

/* MTR description in an MR command: VROCE_MTT_* fields in @cfg. */
#define VROCE_MTT_BA_PG_SHIFT	GENMASK(4, 0)
#define VROCE_MTT_BUF_PG_SHIFT	GENMASK(12, 8)
#define VROCE_MTT_HOPNUM	GENMASK(17, 16)

struct vroce_cmd_hdr {
	__le16 opcode;
	__le16 rsvd;
	__le32 token;
};

struct vroce_cmd_create_pd {
	struct vroce_cmd_hdr hdr;
};

struct vroce_cmd_destroy_pd {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
};

struct vroce_cmd_create_mr {
	struct vroce_cmd_hdr hdr;
	__le32 pdn;
	__le32 access;		/* VROCE_ACC_* */
	__le32 kind;		/* VROCE_MR_KIND_* */
	__le32 cfg;		/* VROCE_MTT_*, not for DMA MRs */
	__le64 iova;
	__le64 length;
	__le64 root_ba;
	__le64 page_count;	/* pages behind the table */
};

struct vroce_cmd_destroy_mr {
	struct vroce_cmd_hdr hdr;
	__le32 key;
};

struct vroce_resp_hdr {
	__le16 status;		/* enum vroce_cmd_status */
	__le16 opcode;
	__le32 token;		/* the request's token */
};

struct vroce_resp_query_device {
	struct vroce_resp_hdr hdr;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 max_pd;
	__le32 max_mr;
	__le32 max_fast_reg_pages;
	__le32 vendor_id;
};

struct vroce_resp_create_pd {
	struct vroce_resp_hdr hdr;
	__le32 pdn;
};

struct vroce_resp_create_mr {
	struct vroce_resp_hdr hdr;
	__le32 key;		/* lkey and rkey */
};

#endif /* _VROCE_REGS_H_ */
