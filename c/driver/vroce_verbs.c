// SPDX-License-Identifier: GPL-2.0
/*
 * vroce verbs: device and port queries, user contexts and protection
 * domains, and the table of operations the RDMA core calls.
 *
 * The port is RoCE v2 (UDP encapsulation) and carries MADs: ib_mad creates
 * its GSI QP (QP1) through create_qp, and ib_cm and rdma_cm use it. No
 * process_mad is needed on RoCE (rxe has none either).
 */

#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"

static int vroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *props,
			      struct ib_udata *uhw)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);

	if (uhw && (uhw->inlen || uhw->outlen))
		return -EINVAL;

	props->fw_ver = 1;
	props->sys_image_guid = ibdev->node_guid;
	props->vendor_id = vdev->attr.vendor_id;
	props->hw_ver = vdev->attr.hw_ver;
	props->max_mr_size = vdev->attr.max_mr_size;
	props->page_size_cap = vdev->attr.page_size_cap;
	props->max_pd = vdev->attr.max_pd;
	props->max_mr = vdev->attr.max_mr;
	props->max_fast_reg_page_list_len = vdev->attr.max_fast_reg_pages;
	props->max_pi_fast_reg_page_list_len = 0;
	props->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
				  IB_DEVICE_RC_RNR_NAK_GEN;
	props->max_qp = vdev->attr.max_qp;
	props->max_cq = vdev->attr.max_cq;
	props->max_qp_wr = BIT(vdev->attr.max_wq_depth_log2);
	props->max_cqe = BIT(vdev->attr.max_cq_depth_log2);
	props->max_send_sge = VROCE_MAX_SEND_SGE;
	props->max_recv_sge = VROCE_MAX_RECV_SGE;
	props->max_sge_rd = VROCE_MAX_SEND_SGE;
	/*
	 * READs and atomics a QP answers at once; those it may have
	 * outstanding as the initiator may be set as high as rxe's (a peer's
	 * max_dest_rd_atomic, which perftest gives it): the HCA keeps at most
	 * VROCE_MAX_RD_ATOMIC outstanding all the same (issue 34).
	 */
	props->max_qp_rd_atom = VROCE_MAX_RD_ATOMIC;
	props->max_qp_init_rd_atom = VROCE_MAX_INIT_RD_ATOMIC;
	props->max_res_rd_atom = VROCE_MAX_RD_ATOMIC * vdev->attr.max_qp;
	/*
	 * The HCA executes an atomic as one CPU atomic instruction on the
	 * target (c/hca/vroce_hca_mpt.c): atomic against every HCA and the
	 * CPU. No masked atomics.
	 */
	if (vdev->attr.caps & VROCE_CAP_ATOMIC) {
		props->atomic_cap = IB_ATOMIC_GLOB;
		props->device_cap_flags |= VROCE_IB_DEVICE_ATOMIC_WRITE;
	}
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	/* Issue 33: explicit on-demand paging MRs (c/driver/vroce_odp.c). */
	vroce_odp_caps(vdev, props);
	/*
	 * Memory windows (issue 30): type 1, and type 2B (bound to a QP and
	 * checked against its PD too). They share the MPT with MRs.
	 */
	if (vdev->attr.caps & VROCE_CAP_MW) {
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					   IB_DEVICE_MEM_WINDOW_TYPE_2B;
		props->max_mw = vdev->attr.max_mr;
	}
	props->max_pkeys = 1;
	props->max_ah = VROCE_MAX_AH;
	/* UD multicast: the HCA's groups (ATTACH_MCAST). */
	if (vdev->attr.caps & VROCE_CAP_MCAST) {
		props->max_mcast_grp = VROCE_MAX_MCG;
		props->max_mcast_qp_attach = VROCE_MAX_MCG_QP;
		props->max_total_mcast_qp_attach = VROCE_MAX_MCG *
						   VROCE_MAX_MCG_QP;
	}
	props->local_ca_ack_delay = 15;
	/* Shared receive queues (c/driver/vroce_srq.c). */
	if (vdev->attr.caps & VROCE_CAP_SRQ) {
		props->max_srq = VROCE_MAX_SRQ;
		props->max_srq_wr = BIT(vdev->attr.max_wq_depth_log2);
		props->max_srq_sge = VROCE_MAX_RECV_SGE;
	}
	return 0;
}

static int vroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *props)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);
	struct net_device *link = vdev->link;

	/* The core has zeroed @props. */
	props->state = IB_PORT_ACTIVE;
	props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = IB_MTU_4096;
	/*
	 * Issue 34: a port on a netdev is as up as the netdev, and a packet
	 * fits its MTU (the HCA drops a longer one).
	 */
	if (link) {
		int mtu = iboe_get_mtu(READ_ONCE(link->mtu));

		props->active_mtu = mtu ? min_t(int, mtu, IB_MTU_4096) :
				    IB_MTU_256;
		if (!vroce_port_up(vdev)) {
			props->state = IB_PORT_DOWN;
			props->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		}
	}
	props->gid_tbl_len = VROCE_GID_TBL_LEN;
	props->pkey_tbl_len = 1;
	props->max_msg_sz = VROCE_MAX_MSG_SIZE;
	props->port_cap_flags = IB_PORT_CM_SUP;
	props->active_width = IB_WIDTH_4X;
	props->active_speed = IB_SPEED_EDR;
	return 0;
}

static int vroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer vroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int vroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/*
 * The context's response tells the provider what it may map (issue 31):
 * rings in its own memory with doorbell records, when the HCA reads
 * them, and how to ring a send doorbell. A provider that reads no
 * response maps nothing.
 */
static int vroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibuc->device);
	struct vroce_alloc_ucontext_resp resp = {
		.db_method = VROCE_DB_SYSCALL,
	};

	if (vdev->attr.caps & VROCE_CAP_MAPPED)
		resp.flags = VROCE_UCTX_F_MAPPED_CQ | VROCE_UCTX_F_MAPPED_WQ |
			     VROCE_UCTX_F_FATAL_REC;
	return vroce_udata_out(udata, &resp, sizeof(resp));
}

static void vroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device goes while a process holds it (hot unplug): uverbs has
 * destroyed the process's objects through the usual destroy verbs and
 * zapped its rdma_user_mmap entries; its later calls fail with EIO.
 * vroce maps nothing else into a process, so nothing is left to cut off.
 * Having this op is what lets ib_unregister_device() return without
 * waiting for the process to close the device.
 */
static void vroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int vroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_pd *pd = to_vroce_pd(ibpd);

	return vroce_pd_create(to_vroce_dev(ibpd->device), &pd->pdn,
			       &pd->zombie);
}

static int vroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);
	struct vroce_pd *pd = to_vroce_pd(ibpd);
	int err;

	/* Refused while an MR or QP of it is parked: the number is kept. */
	err = vroce_pd_destroy(vdev, pd->pdn, pd->zombie);
	if (err)
		ibdev_warn_ratelimited(&vdev->ibdev, "DESTROY_PD %u failed (%d)\n",
				       pd->pdn, err);
	return 0;
}

/* What 'rdma res show mr -dd' adds for a vroce MR. */
static int vroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	struct vroce_hw_mtt mtt;
	struct nlattr *table;

	/* Only what never changes: map_mr_sg may be running. */
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (!mr->mtr) {
		if (rdma_nl_put_driver_string(msg, "kind", "dma"))
			goto err_cancel;
		goto out;
	}
	/* What the HCA was told at CREATE_MR (or REREG_MR). */
	mtt = mr->res_mtt;
	if (rdma_nl_put_driver_string(msg, "kind",
				      mr->type == VROCE_MR_TYPE_FRMR ?
				      "fast-reg" : "user") ||
	    rdma_nl_put_driver_u32(msg, "hop_num", mtt.hopnum) ||
	    rdma_nl_put_driver_u32(msg, "ba_pg_shift", mtt.ba_pg_shift) ||
	    rdma_nl_put_driver_u32(msg, "buf_pg_shift", mtt.buf_pg_shift) ||
	    rdma_nl_put_driver_u64(msg, "page_count", mtt.page_count) ||
	    rdma_nl_put_driver_u64_hex(msg, "root_ba", mtt.root_ba))
		goto err_cancel;
out:
	nla_nest_end(msg, table);
	return 0;

err_cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

VROCE_DEFINE_CREATE_CQ(vroce_create_cq)

const struct ib_device_ops vroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = VROCE_UVERBS_ABI_VERSION,

	.query_device = vroce_query_device,
	.query_port = vroce_query_port,
	.query_pkey = vroce_query_pkey,
	.get_link_layer = vroce_get_link_layer,
	.get_port_immutable = vroce_get_port_immutable,
	.alloc_ucontext = vroce_alloc_ucontext,
	.dealloc_ucontext = vroce_dealloc_ucontext,
	.disassociate_ucontext = vroce_disassociate_ucontext,
	.alloc_pd = vroce_alloc_pd,
	.dealloc_pd = vroce_dealloc_pd,
	.get_dma_mr = vroce_get_dma_mr,
	.reg_user_mr = vroce_reg_user_mr,
	.alloc_mr = vroce_alloc_mr,
	.map_mr_sg = vroce_map_mr_sg,
	.dereg_mr = vroce_dereg_mr,
	/* issue 33: prefetch of on-demand paging MRs */
	.advise_mr = vroce_advise_mr,
	.alloc_mw = vroce_alloc_mw,
	.dealloc_mw = vroce_dealloc_mw,
	/* issue 30, rereg_mr */
	.rereg_user_mr = vroce_rereg_user_mr,
	.fill_res_mr_entry = vroce_fill_res_mr_entry,
	.create_cq = vroce_create_cq_op,
	.destroy_cq = vroce_destroy_cq,
	.pre_destroy_cq = vroce_pre_destroy_cq,
	.post_destroy_cq = vroce_post_destroy_cq,
	.poll_cq = vroce_poll_cq,
	.req_notify_cq = vroce_req_notify_cq,
	.create_qp = vroce_create_qp,
	.modify_qp = vroce_modify_qp,
	.query_qp = vroce_query_qp,
	.destroy_qp = vroce_destroy_qp,
	.post_send = vroce_post_send,
	.post_recv = vroce_post_recv,
	.create_ah = vroce_create_ah,
	.create_user_ah = vroce_create_ah,
	.destroy_ah = vroce_destroy_ah,
	/* review of issue 31: the port's GID table, in the HCA */
	.add_gid = vroce_add_gid,
	.del_gid = vroce_del_gid,
	/* UD multicast */
	.attach_mcast = vroce_attach_mcast,
	.detach_mcast = vroce_detach_mcast,
	/* issue 30, cq/counters */
	.resize_cq = vroce_resize_cq,
	.alloc_hw_port_stats = vroce_alloc_hw_port_stats,
	.get_hw_stats = vroce_get_hw_stats,
	/* Shared receive queues. */
	.create_srq = vroce_create_srq,
	.modify_srq = vroce_modify_srq,
	.query_srq = vroce_query_srq,
	.destroy_srq = vroce_destroy_srq,
	.post_srq_recv = vroce_post_srq_recv,

	INIT_RDMA_OBJ_SIZE(ib_ah, vroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_pd, vroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, vroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, vroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_srq, vroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_mw, vroce_mw, ibmw),
};
