// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA (issue 34): the port on an Ethernet netdev.
 *
 * An HCA plugged in by vroce_hca_add_link() has its port cabled to a
 * netdev (a veth end, a dummy, a NIC), as a RoCE NIC's port is its
 * Ethernet MAC: datagrams to another MAC leave as RoCE v2 packets
 * (c/hca/vroce_hca_frame.c) behind an Ethernet header, sent with
 * dev_queue_xmit(); an rx_handler on the netdev takes the UDP packets to
 * port 4791 addressed to the port's MAC before the IP stack sees them,
 * and the HCA's receive work carries them out. Such an HCA is not on the
 * in-kernel wire: it reaches other ports only through packets.
 *
 * What is carried over packets so far: UD and GSI SEND and SEND with
 * immediate, both ways, IPv4 and IPv6; RC SEND and RDMA WRITE requests
 * to this port's responder (c/hca/vroce_hca_rc.c). Documentation/wire.rst
 * has the rest.
 *
 * Calls: the packet codec and transmit (c/hca/vroce_hca_xmit.c), the
 * responder's datagram delivery (c/hca/vroce_hca_resp.c), the RC
 * responder, and the engine's primitives.
 */

#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "vroce_hca_frame.h"
#include "vroce_hca_priv.h"

/* Packets waiting for the receive work; more are dropped and counted. */
#define VROCE_HCA_RX_QUEUE	1024
/* Packets one run of the receive work carries out before it yields. */
#define VROCE_HCA_RX_BUDGET	64
/*
 * The longest packet a non-linear skb may bring: copied whole into the
 * receive work's buffer (no allocation per packet). IPv6 and UDP headers,
 * BTH, DETH, ImmDt, padding and ICRC around one MTU of payload.
 */
#define VROCE_HCA_RX_PKT	(VROCE_MAX_UD_MSG + 128)

/* A datagram taken: one packet of payload in. */
static void vroce_hca_count_rx(struct vroce_hca *hca, u32 len)
{
	vroce_hca_count(hca, VROCE_CNT_RX_PACKETS, 1);
	vroce_hca_count(hca, VROCE_CNT_RX_BYTES, len);
}

/* ---- receive ---- */

/*
 * A datagram the packet carries, to a UD or GSI QP of this HCA: placed as
 * one the wire brought (vroce_hca_ud_deliver()), the packet's addresses
 * as its GRH and the Ethernet source as the completion's SMAC.
 */
static void vroce_hca_link_recv_ud(struct vroce_hca *hca,
				   const struct vroce_frame *f,
				   const u8 *smac)
{
	struct vroce_hca_op op = {
		.phca = hca,
		.sqpn = f->sqpn,
		.smac = smac,
		.buf = hca->rx_buf,
		.len = f->payload_len,
	};
	struct vroce_wqe_av *av = &op.wqe.av;
	struct vroce_hca_qp *dst;

	if (f->payload_len > VROCE_MAX_UD_MSG) {
		vroce_hca_ud_drop(hca);
		return;
	}
	dst = vroce_hca_ud_qp(hca, f->dqpn);
	if (!dst) {
		vroce_hca_ud_drop(hca);
		return;
	}
	memcpy(av->sgid, f->sip, 16);
	memcpy(av->dgid, f->dip, 16);
	av->hop_limit = f->hop_limit;
	av->traffic_class = f->tclass;
	av->flow_label = cpu_to_le32(f->flow_label);
	op.wqe.opcode = (f->opcode & 0x1f) == VROCE_OP_SEND_ONLY_IMM ?
			VROCE_WQE_SEND_IMM : VROCE_WQE_SEND;
	op.wqe.imm_inv = (__force __le32)f->imm;
	if (f->se)
		op.wqe.flags |= VROCE_WQE_F_SOLICITED;
	memcpy(op.buf, f->payload, f->payload_len);

	vroce_hca_rq_enter(hca, dst);
	vroce_hca_ud_deliver(hca, &op, dst, f->qkey);
	vroce_hca_rq_leave(hca, dst);
	/* A page fault in the receive buffer: this datagram is lost. */
	if (op.paged)
		vroce_hca_ud_drop(hca);
	else if (op.peer)
		vroce_hca_count_rx(hca, f->payload_len);
}

/*
 * One packet off the link, its IP header at @data (@len bytes), counted
 * once: what the transport takes in VROCE_CNT_RX_FRAMES (a datagram no QP
 * takes then counts as ud_dropped too), a wrong ICRC in
 * VROCE_CNT_RX_ICRC_ERR, and in VROCE_CNT_RX_DISCARDS a packet that does
 * not parse otherwise, one to an address not in the port's GID table,
 * with another P_Key, or an opcode not carried over packets yet.
 * Return: true when a QP keeps @skb (a READ response or ATOMIC ACKNOWLEDGE,
 * for its visit).
 */
static bool vroce_hca_link_recv(struct vroce_hca *hca, struct sk_buff *skb,
				const u8 *data, u32 len)
{
	struct vroce_frame f;
	int err;

	err = vroce_frame_parse(data, len, &f);
	if (err) {
		vroce_hca_count(hca, err == -EBADMSG ?
				VROCE_CNT_RX_ICRC_ERR : VROCE_CNT_RX_DISCARDS,
				1);
		return false;
	}
	if (!vroce_hca_sgid_ok(hca, f.dip) ||
	    (f.pkey & 0x7fff) != 0x7fff) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return false;
	}
	switch (f.opcode) {
	case VROCE_OP_UD | VROCE_OP_SEND_ONLY:
	case VROCE_OP_UD | VROCE_OP_SEND_ONLY_IMM:
		vroce_hca_count(hca, VROCE_CNT_RX_FRAMES, 1);
		vroce_hca_link_recv_ud(hca, &f, eth_hdr(skb)->h_source);
		break;
	/* RC requests, to the responder ... */
	case VROCE_OP_RC | VROCE_OP_SEND_FIRST ...
	     VROCE_OP_RC | VROCE_OP_READ_REQUEST:
	case VROCE_OP_RC | VROCE_OP_COMPARE_SWAP:
	case VROCE_OP_RC | VROCE_OP_FETCH_ADD:
	case VROCE_OP_RC | VROCE_OP_SEND_LAST_INV:
	case VROCE_OP_RC | VROCE_OP_SEND_ONLY_INV:
		vroce_hca_rc_recv(hca, &f);
		break;
	/* ... and what answers this port's RC requests. */
	case VROCE_OP_RC | VROCE_OP_ACKNOWLEDGE:
		vroce_hca_rc_ack_in(hca, &f);
		break;
	case VROCE_OP_RC | VROCE_OP_READ_RESPONSE_FIRST ...
	     VROCE_OP_RC | VROCE_OP_READ_RESPONSE_ONLY:
	case VROCE_OP_RC | VROCE_OP_ATOMIC_ACKNOWLEDGE:
		return vroce_hca_rc_resp_in(hca, &f, skb);
	default:
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		break;
	}
	return false;
}

/*
 * The receive work: the packets the rx_handler queued, in order, under
 * the wire's lock like a QP's visit; a disabled HCA drops them. A packet
 * in fragments is copied into @hca->rx_pkt first (no allocation here).
 */
static void vroce_hca_link_rx_work(struct work_struct *work)
{
	struct vroce_hca *hca = container_of(work, struct vroce_hca, rx_work);
	struct sk_buff *skb;
	u32 n = 0;

	down_read(hca->wire_lock);
	while (n++ < VROCE_HCA_RX_BUDGET &&
	       (skb = skb_dequeue(&hca->rx_queue))) {
		const u8 *data = skb->data;

		if (skb_is_nonlinear(skb)) {
			data = hca->rx_pkt;
			if (skb->len > VROCE_HCA_RX_PKT ||
			    skb_copy_bits(skb, 0, hca->rx_pkt, skb->len))
				data = NULL;
		}
		if (!vroce_hca_enabled(hca) || !data)
			vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		else if (vroce_hca_link_recv(hca, skb, data, skb->len))
			continue;	/* a QP's now (a READ response) */
		consume_skb(skb);
	}
	vroce_hca_timer_arm(hca);
	vroce_hca_engine_raise(hca);
	up_read(hca->wire_lock);
	if (!skb_queue_empty_lockless(&hca->rx_queue))
		vroce_hca_queue(hca, &hca->rx_work);
}

/* Whether @addr is one of @dev's IPv4 addresses. Context: RCU. */
static bool vroce_hca_link_ipv4_ours(struct net_device *dev, __be32 addr)
{
	const struct in_device *in_dev = __in_dev_get_rcu(dev);
	const struct in_ifaddr *ifa;

	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == addr)
			return true;
	return false;
}

/*
 * RoCE v2: UDP to port 4791, right behind an IPv4 or IPv6 header, to an
 * address of the port's netdev (as its GID table has them). One to
 * another address is the IP stack's, not the port's: routed through the
 * host, or to another interface's address (another RoCE provider's).
 * Read through skb_header_pointer(): the skb is not changed (nor cloned)
 * for a packet that is not the port's.
 * Context: the rx_handler, under rcu_read_lock().
 */
static bool vroce_hca_link_roce(struct sk_buff *skb)
{
	struct udphdr _uh;
	const struct udphdr *uh;
	unsigned int off;

	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		struct iphdr _ip;
		const struct iphdr *ip;

		ip = skb_header_pointer(skb, 0, sizeof(_ip), &_ip);
		if (!ip || ip->protocol != IPPROTO_UDP || ip->ihl < 5 ||
		    ip_is_fragment(ip))
			return false;
		off = ip->ihl * 4;
		uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
		return uh && uh->dest == htons(VROCE_ROCE_V2_PORT) &&
		       vroce_hca_link_ipv4_ours(skb->dev, ip->daddr);
	}
	case htons(ETH_P_IPV6): {
		struct ipv6hdr _ip6;
		const struct ipv6hdr *ip6;

		/* IPv6 disabled at boot: no address table to look in. */
		if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_mod_enabled())
			return false;
		ip6 = skb_header_pointer(skb, 0, sizeof(_ip6), &_ip6);
		if (!ip6 || ip6->nexthdr != IPPROTO_UDP)
			return false;
		uh = skb_header_pointer(skb, sizeof(*ip6), sizeof(_uh), &_uh);
		return uh && uh->dest == htons(VROCE_ROCE_V2_PORT) &&
		       ipv6_chk_addr(dev_net(skb->dev), &ip6->daddr, skb->dev,
				     1);
	}
	default:
		return false;
	}
}

/*
 * The netdev's rx_handler: RoCE v2 packets to the port's MAC are the
 * HCA's, taken before the IP stack; everything else passes.
 */
static rx_handler_result_t vroce_hca_link_rx(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct vroce_hca *hca = rcu_dereference(skb->dev->rx_handler_data);

	/* No VLANs on the port yet: a tagged packet is not the port's. */
	if (skb->pkt_type != PACKET_HOST || skb_vlan_tag_present(skb) ||
	    !vroce_hca_link_roce(skb))
		return RX_HANDLER_PASS;
	/* The port's: its own copy, to queue (a tap may hold a clone). */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		return RX_HANDLER_CONSUMED;
	}
	*pskb = skb;
	/*
	 * Packets UDP GRO merged (only with rx-udp-gro-forwarding or
	 * rx-gro-list on) would fail their ICRC as one: dropped, counted.
	 */
	if (skb_is_gso(skb) ||
	    skb_queue_len_lockless(&hca->rx_queue) >= VROCE_HCA_RX_QUEUE) {
		vroce_hca_count(hca, VROCE_CNT_RX_DISCARDS, 1);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	skb_queue_tail(&hca->rx_queue, skb);
	vroce_hca_queue(hca, &hca->rx_work);
	return RX_HANDLER_CONSUMED;
}

/**
 * vroce_hca_link_attach() - cable @hca's port to @ndev
 * @hca: an HCA being plugged in, not yet on any wire
 * @ndev: an Ethernet netdev, whose MAC the port takes
 *
 * Context: process context, may sleep; takes the RTNL.
 * Return: 0; -EINVAL for a netdev that is not Ethernet; -ENODEV for one
 * being unregistered; -EEXIST when another vroce port is on it; -EBUSY
 * when the netdev has another rx_handler (a bridge, a bond); -ENOMEM.
 */
int vroce_hca_link_attach(struct vroce_hca *hca, struct net_device *ndev)
{
	int err;

	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EINVAL;
	skb_queue_head_init(&hca->rx_queue);
	INIT_WORK(&hca->rx_work, vroce_hca_link_rx_work);
	hca->rx_buf = vroce_hca_inject() ? NULL :
		      kmalloc(VROCE_MAX_UD_MSG + VROCE_GRH_SIZE, GFP_KERNEL);
	hca->rx_pkt = vroce_hca_inject() ? NULL :
		      kmalloc(VROCE_HCA_RX_PKT, GFP_KERNEL);
	if (!hca->rx_buf || !hca->rx_pkt) {
		vroce_hca_link_free(hca);
		return -ENOMEM;
	}
	hca->linked = true;
	rtnl_lock();
	ether_addr_copy(hca->mac, ndev->dev_addr);
	if (ndev->reg_state != NETREG_REGISTERED)
		err = -ENODEV;
	else if (rcu_access_pointer(ndev->rx_handler) == vroce_hca_link_rx)
		err = -EEXIST;
	else
		err = vroce_hca_inject() ? -ENOMEM :
		      netdev_rx_handler_register(ndev, vroce_hca_link_rx, hca);
	if (!err) {
		netdev_hold(ndev, &hca->link_tracker, GFP_KERNEL);
		hca->link = ndev;
	}
	rtnl_unlock();
	if (err)
		vroce_hca_link_free(hca);
	return err;
}

/**
 * vroce_hca_link_of() - the HCA whose port is cabled to @ndev
 * @ndev: a netdev
 *
 * Context: the RTNL held (the cable is attached and pulled under it).
 * Return: the HCA, or NULL when no vroce port is on @ndev.
 */
struct vroce_hca *vroce_hca_link_of(const struct net_device *ndev)
{
	ASSERT_RTNL();
	if (rtnl_dereference(ndev->rx_handler) != vroce_hca_link_rx)
		return NULL;
	return rtnl_dereference(ndev->rx_handler_data);
}

/**
 * vroce_hca_link_state() - tell the driver the port's link may have
 *	changed
 * @hca: an HCA cabled to a netdev that went up or down, or whose carrier
 *	or flags changed
 *
 * Writes a VROCE_EQE_PORT_CHANGE event (port 1): the driver reads the
 * state (the netdev running, with a carrier) as query_port does, and tells
 * its consumers only a state that differs from the one it told last.
 * Nothing while the HCA is disabled: the driver reads the state when it
 * starts.
 *
 * Context: process context; the RTNL held.
 */
void vroce_hca_link_state(struct vroce_hca *hca)
{
	ASSERT_RTNL();
	if (!hca->link)
		return;
	down_read(hca->wire_lock);
	if (vroce_hca_enabled(hca)) {
		vroce_hca_eq_post(hca, VROCE_EQE_PORT_CHANGE, 1);
		vroce_hca_engine_raise(hca);
	}
	up_read(hca->wire_lock);
}

/**
 * vroce_hca_link_mac() - the port's MAC follows its netdev's
 * @hca: an HCA cabled to a netdev whose address changed
 *
 * Context: process context; the RTNL held.
 */
void vroce_hca_link_mac(struct vroce_hca *hca)
{
	ASSERT_RTNL();
	down_write(hca->wire_lock);
	if (hca->link)
		ether_addr_copy(hca->mac, hca->link->dev_addr);
	up_write(hca->wire_lock);
}

/**
 * vroce_hca_port_mac() - the port's MAC, for tests
 * @hca: the HCA
 * @mac: ETH_ALEN bytes, filled
 */
void vroce_hca_port_mac(struct vroce_hca *hca, u8 *mac)
{
	down_read(hca->wire_lock);
	ether_addr_copy(mac, hca->mac);
	up_read(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_port_mac);

/**
 * vroce_hca_link_detach() - pull the cable: no packet goes or comes after
 * @hca: an HCA cabled by vroce_hca_link_attach()
 *
 * Context: process context, may sleep; the RTNL held.
 */
void vroce_hca_link_detach(struct vroce_hca *hca)
{
	struct net_device *ndev = hca->link;
	u32 i;

	ASSERT_RTNL();
	if (!ndev)
		return;
	down_write(hca->wire_lock);
	hca->link = NULL;
	up_write(hca->wire_lock);
	netdev_rx_handler_unregister(ndev);
	cancel_work_sync(&hca->rx_work);
	skb_queue_purge(&hca->rx_queue);
	/* The netdev's packets the QPs had not taken yet go with it. */
	for (i = 0; i < VROCE_MAX_QP; i++)
		skb_queue_purge(&hca->qpx[i].resp_q);
	netdev_put(ndev, &hca->link_tracker);
}

/**
 * vroce_hca_link_free() - free what the link left after it was detached
 * @hca: the HCA being deleted
 */
void vroce_hca_link_free(struct vroce_hca *hca)
{
	kfree(hca->rx_buf);
	hca->rx_buf = NULL;
	kfree(hca->rx_pkt);
	hca->rx_pkt = NULL;
}
