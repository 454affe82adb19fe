/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce emulated HCA: what the device model offers. The model sees only
 * what silicon would: values programmed into it and DMA addresses.
 */
#ifndef _VROCE_HCA_H_
#define _VROCE_HCA_H_

#include <linux/types.h>

struct device;
struct platform_device;
struct vroce_hca;

#define VROCE_HCA_MAX_REGIONS	3

/**
 * struct vroce_hca_region - one region of a translation, as programmed
 * @offset: index of the region's first page
 * @count: pages in the region
 * @hopnum: table levels in front of the region, 0 to 3
 */
struct vroce_hca_region {
	u64 offset;
	u64 count;
	u32 hopnum;
};

/**
 * struct vroce_hca_mtt - a memory translation as the HCA is programmed
 * @root_ba: DMA address of the root table page, or of the first page when
 *	every region is hop 0
 * @ba_pg_shift: table page shift
 * @buf_pg_shift: buffer page shift
 * @region_count: regions in use, 1 to VROCE_HCA_MAX_REGIONS
 * @region: the regions, in page order
 */
struct vroce_hca_mtt {
	u64 root_ba;
	u32 ba_pg_shift;
	u32 buf_pg_shift;
	u32 region_count;
	struct vroce_hca_region region[VROCE_HCA_MAX_REGIONS];
};

/*
 * Errors of the translation engine, as the data path will turn them into
 * completion statuses.
 */
#define VROCE_HCA_EKEY		ENOKEY	/* no valid MR with this key */
#define VROCE_HCA_EPD		EPERM	/* the MR belongs to another PD */
#define VROCE_HCA_EBOUNDS	ERANGE	/* outside the MR */
#define VROCE_HCA_EACCESS	EACCES	/* the MR does not grant the access */
/* Issue 33: a page of an on-demand paging MR has no entry: wait for it */
#define VROCE_HCA_EPAGE		EAGAIN

/* Any protection domain (device-internal readers such as debugfs). */
#define VROCE_HCA_ANY_PD	U32_MAX
/* Any QP: a type 2 memory window's QP is not checked (the same readers). */
#define VROCE_HCA_ANY_QP	U32_MAX

/**
 * struct vroce_hca_qp_path - an RC or UC QP's path and PSNs (issue 34)
 * @set: VROCE_MODIFY_F_* parts MODIFY_QP has set since the last RESET
 * @mtu: IB MTU code (VROCE_MODIFY_F_PATH)
 * @hop_limit: IP TTL or hop limit
 * @tclass: IP traffic class
 * @flow_label: IPv6 flow label
 * @sgid: the source GID, copied from the GID table at MODIFY_QP
 * @dgid: the destination GID
 * @sq_psn: the PSN of the next request (VROCE_MODIFY_F_SQ_PSN)
 * @rq_psn: the PSN the responder expects (VROCE_MODIFY_F_RQ_PSN)
 * @max_rd_atomic: READ/atomic requests outstanding from this QP
 * @max_dest_rd_atomic: ... and towards it (VROCE_MODIFY_F_RD_ATOMIC)
 */
struct vroce_hca_qp_path {
	u8 set;
	u8 mtu;
	u8 hop_limit;
	u8 tclass;
	u32 flow_label;
	u8 sgid[16];
	u8 dgid[16];
	u32 sq_psn;
	u32 rq_psn;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
};

struct net_device;

struct vroce_hca *vroce_hca_add(int id);
struct vroce_hca *vroce_hca_add_link(int id, struct net_device *link);
void vroce_hca_del(struct vroce_hca *hca);
struct platform_device *vroce_hca_pdev(struct vroce_hca *hca);
void vroce_hca_port_mac(struct vroce_hca *hca, u8 *mac);
int vroce_hca_qp_path(struct vroce_hca *hca, u32 qpn,
		      struct vroce_hca_qp_path *path);
int vroce_hca_mr_access(struct vroce_hca *hca, u32 key, u32 pdn, u64 iova,
			void *buf, u64 len, u32 access, bool write);
int vroce_hca_frmr_register(struct vroce_hca *hca, u32 key, u32 pdn, u64 iova,
			    u64 length, u32 access, u64 pbl, u32 npages);
int vroce_hca_frmr_invalidate(struct vroce_hca *hca, u32 key);
void vroce_hca_set_faults(struct vroce_hca *hca, u32 fail_cmds,
			  u32 fail_status, u32 drop_cmds, u32 delay_ms);
void vroce_hca_set_max_mr(struct vroce_hca *hca, u32 max_mr);
u32 vroce_hca_set_free_mr(struct vroce_hca *hca, u32 free);
void vroce_hca_set_fault_opcode(struct vroce_hca *hca, u32 opcode);
void vroce_hca_set_caps(struct vroce_hca *hca, u32 caps);
void vroce_hca_set_health(struct vroce_hca *hca, bool hang, bool fatal);
void vroce_hca_set_event_faults(struct vroce_hca *hca, u32 drop_events,
				u32 event_delay_ms);
u32 vroce_hca_ud_dropped(struct vroce_hca *hca);
u32 vroce_hca_uc_dropped(struct vroce_hca *hca);
void vroce_hca_hold_qp(struct vroce_hca *hca, u32 qpn);
/* issue 31, lend */
void vroce_hca_busy_qp(struct vroce_hca *hca, u32 qpn, bool busy);

/*
 * Issue 33, item 6: where a QP work item's time goes, for 'make bench'
 * (c/hca/vroce_hca_sched.c). Nanoseconds summed over every QP visit of
 * the engine's work items while the stage clock runs (lent contexts are
 * not clocked):
 * @VROCE_HCA_STAGE_WAKE: from the first doorbell a QP's work item was
 *	queued for to the visit's start (latency: the CPU may run others)
 * @VROCE_HCA_STAGE_VISIT: the work items' own part of a visit: the locks,
 *	the timer and the event interrupt (not the queues, below: a visit
 *	lets the CPU go between WQEs, and that time is not the engine's)
 * @VROCE_HCA_STAGE_SYNC: the queues' producer indexes, doorbell records
 * @VROCE_HCA_STAGE_FETCH: a send WQE's bounce buffer, fetch and check
 * @VROCE_HCA_STAGE_EXEC: its execution: keys, translation, copy, the
 *	responder's side (a SEND's receive and CQE)
 * @VROCE_HCA_STAGE_COMPLETE: the counters and the requester's CQE
 */
enum vroce_hca_stage {
	VROCE_HCA_STAGE_WAKE,
	VROCE_HCA_STAGE_VISIT,
	VROCE_HCA_STAGE_SYNC,
	VROCE_HCA_STAGE_FETCH,
	VROCE_HCA_STAGE_EXEC,
	VROCE_HCA_STAGE_COMPLETE,
	VROCE_HCA_STAGES
};

/**
 * struct vroce_hca_stage_clock - what the stage clock measured
 * @ns: nanoseconds per stage (enum vroce_hca_stage)
 * @visits: QP visits clocked
 * @wqes: send WQEs executed in them
 */
struct vroce_hca_stage_clock {
	u64 ns[VROCE_HCA_STAGES];
	u64 visits;
	u64 wqes;
};

void vroce_hca_stage_clock(struct vroce_hca *hca, bool on);
void vroce_hca_stage_read(struct vroce_hca *hca,
			  struct vroce_hca_stage_clock *clock);

int vroce_hca_mtt_translate(struct device *dma_dev,
			    const struct vroce_hca_mtt *mtt, u64 page,
			    u64 *addr, u64 *table);
int vroce_hca_mtt_store_run(struct device *dma_dev,
			    const struct vroce_hca_mtt *mtt, u64 page,
			    const __le64 *src, u32 n);
void *vroce_hca_dma_to_virt(struct device *dma_dev, u64 dma, size_t len);

#if IS_ENABLED(CONFIG_KUNIT)
extern atomic_t vroce_hca_fail_nth;
#endif

#endif /* _VROCE_HCA_H_ */
