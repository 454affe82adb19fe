// SPDX-License-Identifier: GPL-2.0
/*
 * vroce address handles: the address vector of UD and GSI sends, kept in
 * software and copied into every UD WQE (struct vroce_wqe_av).
 *
 * ib_cm creates AHs with a spinlock held (no RDMA_CREATE_AH_SLEEPABLE), so
 * create_ah neither sleeps, nor allocates (the core allocated the AH), nor
 * issues a command: the HCA learns an address vector only from the WQE.
 * A user AH (ibv_create_ah()) is the same object; uverbs hands the kernel
 * AH to post_send of a user UD QP, never a user pointer.
 *
 * The port's GID table (review of issue 31): the RDMA core calls add_gid
 * and del_gid as the netdev's addresses come and go, and the driver
 * writes each change into the HCA's table (SET_GID), against which the
 * HCA checks every datagram's source GID, as mlx5 and hns program theirs.
 */

#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>

#include "vroce.h"

/**
 * vroce_av_from_attr() - the HCA's address vector of a RoCE v2 AH
 * @av: filled in; the destination QP and Q_Key come from each send
 * @attr: an address vector the core has resolved: source GID entry held,
 *	destination MAC set
 *
 * Context: any context.
 * Return: 0, or -EINVAL for what the port cannot send to: not RoCE, no
 * GRH, another port, or a source GID that is not RoCE v2.
 */
int vroce_av_from_attr(struct vroce_wqe_av *av,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid = grh->sgid_attr;
	if (!sgid || sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->sgid, sgid->gid.raw, sizeof(av->sgid));
	ether_addr_copy(av->dmac, attr->roce.dmac);
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = cpu_to_le32(grh->flow_label);
	return 0;
}

int vroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct vroce_ah *ah = to_vroce_ah(ibah);
	struct vroce_create_ah_resp uresp = { .comp_mask = VROCE_CREATE_AH_AV };
	int err;

	/* The provider passes no driver data. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	err = vroce_av_from_attr(&ah->av, init->ah_attr);
	if (err || !udata)
		return err;
	/* issue 31: a mapped QP's provider writes the vector itself. */
	memcpy(uresp.av, &ah->av, sizeof(uresp.av));
	return vroce_udata_out(udata, &uresp, sizeof(uresp));
}

static_assert(sizeof_field(struct vroce_create_ah_resp, av) ==
	      sizeof(struct vroce_wqe_av));

static_assert(VROCE_GID_TBL_LEN == VROCE_MAX_GID);

/*
 * Empty the HCA's entries whose emptying failed before (vroce_del_gid()):
 * called before every change, so that an address removed is not left
 * usable in the HCA longer than the next change of the table.
 */
static void vroce_gid_flush_stale(struct vroce_dev *vdev)
{
	unsigned long i;

	for_each_set_bit(i, &vdev->gid_stale, VROCE_MAX_GID)
		if (!vroce_cmd_set_gid(vdev, i, NULL))
			clear_bit(i, &vdev->gid_stale);
}

/**
 * vroce_add_gid() - the RDMA core adds a GID to the port's table
 * @attr: the entry: its index, GID and type
 * @context: unused
 *
 * Context: process context, may sleep; the core holds its table's lock.
 * Return: 0, or the errno of SET_GID (the core then keeps no entry, and
 * the HCA's is emptied: vroce_gid_flush_stale()).
 */
int vroce_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct vroce_dev *vdev = to_vroce_dev(attr->device);
	int err;

	if (!(vdev->attr.caps & VROCE_CAP_GID_TABLE))
		return 0;
	if (attr->index >= VROCE_MAX_GID)
		return -EINVAL;
	vroce_gid_flush_stale(vdev);
	err = vroce_cmd_set_gid(vdev, attr->index, attr->gid.raw);
	if (!err) {
		clear_bit(attr->index, &vdev->gid_stale);
		return 0;
	}
	/*
	 * The core keeps no entry; a command that timed out may still have
	 * written the HCA's: empty it (now, or at the next change).
	 */
	set_bit(attr->index, &vdev->gid_stale);
	vroce_gid_flush_stale(vdev);
	return err;
}

/**
 * vroce_del_gid() - the RDMA core removes a GID from the port's table
 * @attr: the entry
 * @context: unused
 *
 * From the response on, no datagram leaves with the GID as its source
 * (WQEs the HCA executed before went with it). The core ignores a
 * failure; the entry is then emptied at the next change of the table, or
 * by the reset that ends a dead HCA (vroce_gid_flush_stale()).
 *
 * Context: process context, may sleep; the core holds its table's lock.
 * Return: 0, or the errno of SET_GID.
 */
int vroce_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct vroce_dev *vdev = to_vroce_dev(attr->device);
	int err;

	if (!(vdev->attr.caps & VROCE_CAP_GID_TABLE) ||
	    attr->index >= VROCE_MAX_GID)
		return 0;
	err = vroce_cmd_set_gid(vdev, attr->index, NULL);
	if (err) {
		set_bit(attr->index, &vdev->gid_stale);
		ibdev_warn_ratelimited(attr->device,
				       "SET_GID %u (empty) failed (%d): retried at the next change\n",
				       attr->index, err);
	}
	vroce_gid_flush_stale(vdev);
	return err;
}

int vroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	/* Nothing the HCA holds: a WQE carries a copy of the vector. */
	return 0;
}
