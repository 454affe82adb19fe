// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_cm: the kernel's connection manager over vroce. The
 * port gets an IPv4 address; rdma_cm resolves it (a RoCE v2 GID), ib_cm
 * carries REQ, REP, RTU and DREQ/DREP as MADs through the GSI QP that
 * ib_mad made; the RC QPs that rdma_cm connected then move data both ways
 * and disconnect cleanly: on one HCA, and between two HCAs on the
 * wire. Nothing of vroce is called directly: only
 * rdma_cm's and the verbs' public API, as a storage ULP would.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/if.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/user_namespace.h>
#include <linux/sockios.h>
#include <net/arp.h>
#include <net/neighbour.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../c/driver/vroce.h"
#include "vroce_test.h"

#define CM_ADDR		0xc0000201	/* 192.0.2.1, TEST-NET-1 */
#define CM_PORT		18515
#define CM_MSG		512
#define CM_WAIT_MS	5000

/* One side of a connection: its id, what its handler saw, its verbs. */
struct cm_side {
	struct rdma_cm_id *id;
	struct completion ev[RDMA_CM_EVENT_TIMEWAIT_EXIT + 1];
	int status[RDMA_CM_EVENT_TIMEWAIT_EXIT + 1];
	struct rdma_cm_id *child;	/* listener: the request's new id */
	struct cm_side *child_side;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct vroce_test_kbuf *buf;
};

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cm_side *s = id->context;

	if (ev->event > RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return 0;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* The new id reports to the listener's child side. */
		s->child = id;
		id->context = s->child_side;
	}
	s->status[ev->event] = ev->status;
	complete(&s->ev[ev->event]);
	return 0;
}

static void cm_side_init(struct cm_side *s)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(s->ev); i++)
		init_completion(&s->ev[i]);
}

static bool cm_wait(struct cm_side *s, enum rdma_cm_event_type ev)
{
	return wait_for_completion_timeout(&s->ev[ev],
					   msecs_to_jiffies(CM_WAIT_MS));
}

/* Give the port 192.0.2.1/24, as 'ip addr add' would. */
static int cm_set_ipv4(struct net_device *ndev, __be32 addr, __be32 mask)
{
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int err;

	strscpy(ifr.ifr_name, ndev->name, IFNAMSIZ);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	err = devinet_ioctl(dev_net(ndev), SIOCSIFADDR, &ifr);
	if (err)
		return err;
	sin->sin_addr.s_addr = mask;
	return devinet_ioctl(dev_net(ndev), SIOCSIFNETMASK, &ifr);
}

static void cm_clear_ipv4(void *data)
{
	struct net_device *ndev = data;
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	strscpy(ifr.ifr_name, ndev->name, IFNAMSIZ);
	sin->sin_family = AF_INET;
	devinet_ioctl(dev_net(ndev), SIOCSIFADDR, &ifr);
}

/* The RoCE v2 GID of @addr, once the core's GID work has added it. */
static bool cm_wait_gid(struct vroce_dev *vdev, __be32 addr)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	int i;

	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)gid.raw);
	for (i = 0; i < 100; i++) {
		attr = rdma_find_gid(&vdev->ibdev, &gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, NULL);
		if (!IS_ERR(attr)) {
			rdma_put_gid_attr(attr);
			return true;
		}
		msleep(20);
	}
	return false;
}

static void cm_destroy_id(void *data)
{
	rdma_destroy_id(data);
}

static void cm_destroy_qp(void *data)
{
	rdma_destroy_qp(data);
}

KUNIT_DEFINE_ACTION_WRAPPER(cm_free_cq, ib_free_cq, struct ib_cq *);
KUNIT_DEFINE_ACTION_WRAPPER(cm_dealloc_pd, ib_dealloc_pd, struct ib_pd *);

/* PD, CQ, an RC QP on @id, and a buffer with one receive posted. */
static void cm_verbs(struct kunit *test, struct cm_side *s,
		     struct rdma_cm_id *id)
{
	struct vroce_dev *vdev = to_vroce_dev(id->device);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_sge sge;
	struct ib_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };

	s->pd = ib_alloc_pd(id->device, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->pd);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_dealloc_pd,
							s->pd), 0);
	s->cq = ib_alloc_cq(id->device, NULL, 8, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->cq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_free_cq,
							s->cq), 0);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	KUNIT_ASSERT_EQ(test, rdma_create_qp(id, s->pd, &init), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_destroy_qp,
							id), 0);
	s->buf = vroce_test_kbuf(test, vdev, 2 * CM_MSG);
	sge = (struct ib_sge){ .addr = s->buf->dma + CM_MSG, .length = CM_MSG,
			       .lkey = s->pd->local_dma_lkey };
	KUNIT_ASSERT_EQ(test, ib_post_recv(id->qp, &wr, NULL), 0);
}

static int cm_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(CM_WAIT_MS);
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, deadline));
	return 0;
}

/* SEND @seed's pattern from @from to @to over their connection. */
static void cm_send(struct kunit *test, struct cm_side *from,
		    struct rdma_cm_id *from_id, struct cm_side *to, u8 seed)
{
	struct ib_sge sge = { .addr = from->buf->dma, .length = CM_MSG,
			      .lkey = from->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc;

	vroce_test_fill(from->buf->va, CM_MSG, seed);
	dma_sync_single_for_device(from->buf->dev, from->buf->dma, CM_MSG,
				   DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, ib_post_send(from_id->qp, &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, cm_poll(from->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, cm_poll(to->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, CM_MSG);
	dma_sync_single_for_cpu(to->buf->dev, to->buf->dma + CM_MSG, CM_MSG,
				DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, to->buf->va + CM_MSG, from->buf->va, CM_MSG);
}

/*
 * Listen on @srv_ip in @srv_net (its port on @srv_dev), connect from
 * @cli_dev's port (source @cli_ip, or the route's when 0) in init_net,
 * accept, a SEND each way, disconnect: every event with status 0.
 */
static void cm_run(struct kunit *test, struct net *srv_net,
		   struct vroce_dev *srv_dev, __be32 srv_ip,
		   struct vroce_dev *cli_dev, __be32 cli_ip)
{
	struct cm_side *srv, *cli, *acc;
	struct sockaddr_in addr = {
		.sin_family = AF_INET, .sin_addr.s_addr = srv_ip,
		.sin_port = cpu_to_be16(CM_PORT),
	};
	struct sockaddr_in src = {
		.sin_family = AF_INET, .sin_addr.s_addr = cli_ip,
	};
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	srv = kunit_kzalloc(test, sizeof(*srv), GFP_KERNEL);
	cli = kunit_kzalloc(test, sizeof(*cli), GFP_KERNEL);
	acc = kunit_kzalloc(test, sizeof(*acc), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, srv && cli && acc);
	cm_side_init(srv);
	cm_side_init(cli);
	cm_side_init(acc);
	srv->child_side = acc;

	srv->id = rdma_create_id(srv_net, cm_handler, srv, RDMA_PS_TCP,
				 IB_QPT_RC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srv->id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_destroy_id,
							srv->id), 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(srv->id, (struct sockaddr *)&addr),
			0);
	KUNIT_EXPECT_PTR_EQ(test, srv->id->device, &srv_dev->ibdev);
	KUNIT_ASSERT_EQ(test, rdma_listen(srv->id, 4), 0);

	cli->id = rdma_create_id(&init_net, cm_handler, cli, RDMA_PS_TCP,
				 IB_QPT_RC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cli->id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_destroy_id,
							cli->id), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(cli->id,
						cli_ip ? (struct sockaddr *)&src :
						NULL,
						(struct sockaddr *)&addr,
						CM_WAIT_MS), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait(cli, RDMA_CM_EVENT_ADDR_RESOLVED));
	KUNIT_EXPECT_PTR_EQ(test, cli->id->device, &cli_dev->ibdev);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(cli->id, CM_WAIT_MS), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait(cli, RDMA_CM_EVENT_ROUTE_RESOLVED));
	cm_verbs(test, cli, cli->id);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli->id, &param), 0);

	/* The request arrived through QP1: accept it on a QP of its own. */
	KUNIT_ASSERT_TRUE(test, cm_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST));
	KUNIT_ASSERT_NOT_NULL(test, srv->child);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_destroy_id,
							srv->child), 0);
	KUNIT_EXPECT_PTR_EQ(test, srv->child->device, &srv_dev->ibdev);
	cm_verbs(test, acc, srv->child);
	rdma_lock_handler(srv->child);
	KUNIT_EXPECT_EQ(test, rdma_accept(srv->child, &param), 0);
	rdma_unlock_handler(srv->child);
	KUNIT_ASSERT_TRUE(test, cm_wait(cli, RDMA_CM_EVENT_ESTABLISHED));
	KUNIT_ASSERT_TRUE(test, cm_wait(acc, RDMA_CM_EVENT_ESTABLISHED));
	KUNIT_EXPECT_EQ(test, cli->status[RDMA_CM_EVENT_ESTABLISHED], 0);
	KUNIT_EXPECT_EQ(test, acc->status[RDMA_CM_EVENT_ESTABLISHED], 0);

	cm_send(test, cli, cli->id, acc, 1);
	cm_send(test, acc, srv->child, cli, 2);

	/* DREQ from the client; the server answers with its own DREP. */
	KUNIT_EXPECT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait(acc, RDMA_CM_EVENT_DISCONNECTED));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(srv->child), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait(cli, RDMA_CM_EVENT_DISCONNECTED));
	KUNIT_EXPECT_EQ(test, cli->status[RDMA_CM_EVENT_DISCONNECTED], 0);
	KUNIT_EXPECT_EQ(test, acc->status[RDMA_CM_EVENT_DISCONNECTED], 0);
}

/* rdma_cm end to end on one port's own address (loopback on one HCA). */
static void vroce_cm_connect(struct kunit *test)
{
	struct vroce_dev *vdev = vroce_test_dev(test);

	KUNIT_ASSERT_NOT_NULL(test, vdev->netdev);
	KUNIT_ASSERT_EQ(test, cm_set_ipv4(vdev->netdev, cpu_to_be32(CM_ADDR),
					  cpu_to_be32(0xffffff00)), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_clear_ipv4,
							vdev->netdev), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_gid(vdev, cpu_to_be32(CM_ADDR)));
	cm_run(test, &init_net, vdev, cpu_to_be32(CM_ADDR), vdev, 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(cm_put_net, put_net, struct net *);

/* What 'ip neigh replace @ip lladdr @mac dev @ndev nud permanent' does. */
static int cm_static_neigh(struct net_device *ndev, __be32 ip, const u8 *mac)
{
	struct neighbour *n = __neigh_lookup(&arp_tbl, &ip, ndev, true);
	int err;

	if (!n)
		return -ENOMEM;
	err = neigh_update(n, mac, NUD_PERMANENT,
			   NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	neigh_release(n);
	return err;
}

/* Move @ndev into @net and bring it up there, as 'ip link set netns'. */
static int cm_move_netdev(struct net_device *ndev, struct net *net)
{
	int err;

	rtnl_lock();
	err = dev_change_net_namespace(ndev, net, ndev->name);
	if (!err)
		err = dev_open(ndev, NULL);
	rtnl_unlock();
	return err;
}

/*
 * Two HCAs on the wire, as two hosts: the second port lives in a network
 * namespace of its own (its address would be local to the first's
 * otherwise, and rdma_cm would take the first HCA for both ends), each
 * side knows the other's MAC from a static neighbour entry (the ports'
 * netdevs carry no ARP). The client on HCA A connects to the server on
 * HCA B; CM MADs and data cross the wire between them.
 */
static void vroce_cm_two_hcas(struct kunit *test)
{
	struct vroce_dev *va = vroce_test_dev(test);
	struct vroce_dev *vb = platform_get_drvdata(vroce_test_add_pdev(test));
	__be32 ip_a = cpu_to_be32(CM_ADDR), ip_b = cpu_to_be32(CM_ADDR + 1);
	__be32 mask = cpu_to_be32(0xffffff00);
	struct net *net_b;

	KUNIT_ASSERT_NOT_NULL(test, vb);
	KUNIT_ASSERT_TRUE(test, va->netdev && vb->netdev);
	net_b = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net_b);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_put_net,
							net_b), 0);
	KUNIT_ASSERT_EQ(test, cm_move_netdev(vb->netdev, net_b), 0);

	KUNIT_ASSERT_EQ(test, cm_set_ipv4(va->netdev, ip_a, mask), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_clear_ipv4,
							va->netdev), 0);
	KUNIT_ASSERT_EQ(test, cm_set_ipv4(vb->netdev, ip_b, mask), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cm_clear_ipv4,
							vb->netdev), 0);
	KUNIT_ASSERT_EQ(test, cm_static_neigh(va->netdev, ip_b,
					      vb->netdev->dev_addr), 0);
	KUNIT_ASSERT_EQ(test, cm_static_neigh(vb->netdev, ip_a,
					      va->netdev->dev_addr), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_gid(va, ip_a));
	KUNIT_ASSERT_TRUE(test, cm_wait_gid(vb, ip_b));

	cm_run(test, net_b, vb, ip_b, va, ip_a);
}

static struct kunit_case vroce_cm_cases[] = {
	KUNIT_CASE_SLOW(vroce_cm_connect),
	KUNIT_CASE_SLOW(vroce_cm_two_hcas),
	{}
};

static struct kunit_suite vroce_cm_suite = {
	.name = "vroce_cm",
	.test_cases = vroce_cm_cases,
};

kunit_test_suite(vroce_cm_suite);
