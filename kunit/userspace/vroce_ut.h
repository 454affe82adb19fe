/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user-space test programs of kunit/userspace/:
 * opening a device by name, and connecting an RC QP to another on the
 * same port.
 */
#ifndef _VROCE_UT_H_
#define _VROCE_UT_H_

#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

/**
 * vroce_ut_open() - open an RDMA device by name
 * @name: the device (vroce0, rxe0)
 *
 * Return: its context, or NULL when there is no such device or it does
 * not open.
 */
static inline struct ibv_context *vroce_ut_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/**
 * vroce_ut_connect() - RESET to RTS, towards QP @dest through port 1
 * @qp: an RC QP in RESET
 * @dest: the peer QP's number
 * @gid: the peer's GID (index 0 of the same port, for a loopback)
 * @access: the QP's access flags (IBV_ACCESS_*)
 * @min_rnr_timer: the RNR NAK timer it asks of its requesters
 *
 * Path MTU 1024, PSNs 0, one outstanding READ each way, 7 retries of
 * each kind, ack timeout 14.
 *
 * Return: 0, or the error of the first modify that failed.
 */
static inline int vroce_ut_connect(struct ibv_qp *qp, uint32_t dest,
				   const union ibv_gid *gid, int access,
				   uint8_t min_rnr_timer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif /* _VROCE_UT_H_ */
