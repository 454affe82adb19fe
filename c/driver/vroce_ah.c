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

int vroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	/* Nothing the HCA holds: a WQE carries a copy of the vector. */
	return 0;
}
