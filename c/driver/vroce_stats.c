// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the port's hardware counters (`rdma statistic show link
 * vroce0/1`, /sys/class/infiniband/vroce0/ports/1/hw_counters/). They live
 * in the HCA, which counts where the events happen, and are read by the
 * QUERY_COUNTERS command (c/ifc/vroce_cmds.h, enum vroce_counter), as
 * silicon's are; the driver keeps none of its own.
 *
 * There is no sequence error counter: the HCA moves whole messages over a
 * wire that loses nothing, with no packet sequence numbers, so nothing can
 * arrive out of sequence; a request nothing answers is a transport retry.
 */

#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"

/* Names, indexed by enum vroce_counter. */
static const struct rdma_stat_desc vroce_stat_descs[] = {
	[VROCE_CNT_TX_PACKETS].name = "tx_packets",
	[VROCE_CNT_TX_BYTES].name = "tx_bytes",
	[VROCE_CNT_RX_PACKETS].name = "rx_packets",
	[VROCE_CNT_RX_BYTES].name = "rx_bytes",
	[VROCE_CNT_RETRIES].name = "transport_retries",
	[VROCE_CNT_RNR_NAK_SENT].name = "tx_rnr_nak",
	[VROCE_CNT_RNR_NAK_RCVD].name = "rx_rnr_nak",
	[VROCE_CNT_UD_DROPPED].name = "ud_dropped",
	[VROCE_CNT_LOC_LEN_ERR].name = "cqe_loc_len_err",
	[VROCE_CNT_LOC_QP_OP_ERR].name = "cqe_loc_qp_op_err",
	[VROCE_CNT_LOC_PROT_ERR].name = "cqe_loc_prot_err",
	[VROCE_CNT_REM_ACCESS_ERR].name = "cqe_rem_access_err",
	[VROCE_CNT_REM_INV_REQ_ERR].name = "cqe_rem_inv_req_err",
	[VROCE_CNT_REM_OP_ERR].name = "cqe_rem_op_err",
	[VROCE_CNT_RETRY_EXC_ERR].name = "cqe_retry_exc_err",
	[VROCE_CNT_RNR_RETRY_EXC_ERR].name = "cqe_rnr_retry_exc_err",
	[VROCE_CNT_WR_FLUSH_ERR].name = "cqe_wr_flush_err",
	[VROCE_CNT_LOC_ACCESS_ERR].name = "cqe_loc_access_err",
	/* issue 31, hca */
	[VROCE_CNT_UNPRIV_REFUSED].name = "unpriv_wqe_refused",
	/* issue 31, mapped rings */
	[VROCE_CNT_DBREC_ERR].name = "dbrec_err",
	/* issue 31, lend */
	[VROCE_CNT_LENT_WQES].name = "lent_wqes",
	[VROCE_CNT_LEND_DEFERRED].name = "lend_deferred",
	/* review of issue 31: the port's GID table */
	[VROCE_CNT_SGID_REFUSED].name = "sgid_refused",
	[VROCE_CNT_PAGE_FAULTS].name = "page_faults",
	/* Issue 34: the port on a netdev. */
	[VROCE_CNT_TX_FRAMES].name = "link_tx_frames",
	[VROCE_CNT_RX_FRAMES].name = "link_rx_frames",
	[VROCE_CNT_RX_ICRC_ERR].name = "link_rx_icrc_err",
	[VROCE_CNT_RX_DISCARDS].name = "link_rx_discards",
	[VROCE_CNT_TX_DISCARDS].name = "link_tx_discards",
};

static_assert(ARRAY_SIZE(vroce_stat_descs) == VROCE_CNT_NUM);

/**
 * vroce_alloc_hw_port_stats() - the counters' names and room for them
 * @ibdev: the device
 * @port_num: the port (only 1 exists)
 *
 * Context: process context (device registration).
 * Return: the core's structure, or NULL when memory runs out.
 */
struct rdma_hw_stats *vroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(vroce_stat_descs, VROCE_CNT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * vroce_get_hw_stats() - read the port's counters from the HCA
 * @ibdev: the device
 * @stats: from vroce_alloc_hw_port_stats()
 * @port_num: the port
 * @index: a counter the core asks for; all are read
 *
 * Context: process context, may sleep (the core holds @stats->lock).
 * Return: the number of counters, or an error of QUERY_COUNTERS
 * (vroce_cmd_query_counters()): @stats is then unchanged.
 */
int vroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);
	u64 value[VROCE_CNT_NUM];
	int err, i;

	if (port_num != 1 || stats->num_counters != VROCE_CNT_NUM)
		return -EINVAL;
	err = vroce_cmd_query_counters(vdev, value);
	if (err)
		return err;
	for (i = 0; i < VROCE_CNT_NUM; i++)
		stats->value[i] = value[i];
	return VROCE_CNT_NUM;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_get_hw_stats);
