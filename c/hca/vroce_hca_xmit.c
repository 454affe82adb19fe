// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA (issue 34): packets out of a port on a netdev.
 *
 * What the link's datagrams and the RC requester's and responder's
 * packets have in common: a struct vroce_frame built behind an Ethernet
 * header and handed to the netdev (dev_queue_xmit()), or lost as on any
 * link; and the datagrams themselves.
 *
 * Calls: the packet codec.
 */

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "vroce_hca_frame.h"
#include "vroce_hca_priv.h"

/**
 * vroce_hca_link_sport() - the UDP source port of a pair of QPs
 * @sqpn: the sending QP
 * @dqpn: the destination QP
 *
 * Entropy for ECMP from the two QPs, in the range IBTA gives RoCE v2
 * (0xC000 and up), fixed for a pair of QPs.
 *
 * Return: the port.
 */
u16 vroce_hca_link_sport(u32 sqpn, u32 dqpn)
{
	return 0xc000 | (jhash_2words(sqpn, dqpn, 0) & 0x3fff);
}

/**
 * vroce_hca_link_xmit() - put a packet on the port's link
 * @hca: the sending HCA, cabled to a netdev
 * @f: the packet
 * @dmac: the Ethernet destination
 *
 * A packet that cannot be built or sent (no memory, longer than the
 * link's MTU, the link down or the cable pulled) is lost, as on any link,
 * and counted in VROCE_CNT_TX_DISCARDS; one handed to the netdev in
 * VROCE_CNT_TX_FRAMES (what its qdisc then does is the link's business).
 *
 * Context: the engine or the receive work, @hca->wire_lock read-held;
 * does not sleep, allocates without waiting (the engine may serve
 * reclaim for on-demand paging).
 * Return: 0 when the packet went to the netdev, -ENOLINK when it was lost.
 */
int vroce_hca_link_xmit(struct vroce_hca *hca, const struct vroce_frame *f,
			const u8 *dmac)
{
	struct net_device *ndev = hca->link;
	struct sk_buff *skb = NULL;
	size_t len;

	/* The cable was pulled (the netdev is going): lost. */
	if (!ndev)
		goto lost;
	len = vroce_frame_len(f);
	if (!len || len > READ_ONCE(ndev->mtu) || !netif_running(ndev))
		goto lost;
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + len + ndev->needed_tailroom,
			GFP_NOWAIT | __GFP_NOWARN);
	if (!skb)
		goto lost;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	skb_reset_network_header(skb);
	if (vroce_frame_build(f, skb_put(skb, len), len) != len)
		goto lost;
	skb->dev = ndev;
	skb->protocol = htons(f->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	skb->priority = f->tclass >> 5;
	if (dev_hard_header(skb, ndev, ntohs(skb->protocol), dmac, hca->mac,
			    skb->len) < 0)
		goto lost;
	vroce_hca_count(hca, VROCE_CNT_TX_FRAMES, 1);
	dev_queue_xmit(skb);
	return 0;

lost:
	kfree_skb(skb);
	vroce_hca_count(hca, VROCE_CNT_TX_DISCARDS, 1);
	return -ENOLINK;
}

/**
 * vroce_hca_link_send_ud() - put a datagram on the port's link
 * @hca: the sending HCA, cabled to a netdev
 * @op: the UD or GSI SEND, its message in @op->buf
 * @qkey: the Q_Key it carries
 *
 * The sender completes once the packet left: a packet that cannot be
 * built or sent is lost (vroce_hca_link_xmit()), and not counted as sent
 * (@op->unsent).
 *
 * Context: the engine, @hca->wire_lock read-held; does not sleep.
 */
void vroce_hca_link_send_ud(struct vroce_hca *hca, struct vroce_hca_op *op,
			    u32 qkey)
{
	const struct vroce_wqe_av *av = &op->wqe.av;
	u32 dqpn = le32_to_cpu(av->dest_qpn) & GENMASK(23, 0);
	struct vroce_frame f = {
		.ipv6 = vroce_hca_net_type(av) == VROCE_NET_IPV6,
		.tclass = av->traffic_class,
		.hop_limit = av->hop_limit,
		.opcode = VROCE_OP_UD | (op->wqe.opcode == VROCE_WQE_SEND_IMM ?
					 VROCE_OP_SEND_ONLY_IMM :
					 VROCE_OP_SEND_ONLY),
		.se = !!(op->wqe.flags & VROCE_WQE_F_SOLICITED),
		.pkey = 0xffff,
		.dqpn = dqpn,
		.psn = op->idx & GENMASK(23, 0),
		.qkey = qkey,
		.sqpn = op->qp->qpn,
		.imm = (__force __be32)op->wqe.imm_inv,
		.payload = op->buf,
		.payload_len = op->len,
	};

	memcpy(f.sip, av->sgid, 16);
	memcpy(f.dip, av->dgid, 16);
	if (f.ipv6)
		f.flow_label = le32_to_cpu(av->flow_label) & GENMASK(19, 0);
	f.sport = vroce_hca_link_sport(f.sqpn, dqpn);
	if (vroce_hca_link_xmit(hca, &f, av->dmac))
		op->unsent = true;
}
