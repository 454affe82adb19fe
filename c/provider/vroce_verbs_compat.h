/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of libibverbs' provider interface (IBVERBS_PRIVATE_34, rdma-core
 * 44 as Debian 12 ships it) that the vroce provider uses. rdma-core does
 * not install its driver.h, so this header declares what the provider
 * needs, written for vroce: the layouts must be those libibverbs.so.1 was
 * built with, and the static_asserts below pin them.
 *
 * How the layout of struct verbs_context_ops was established: it is not
 * public, but verbs_set_ops() (exported) copies every op of it, in member
 * order, into the context, and most ops also into a public slot of struct
 * verbs_context or struct ibv_context_ops whose name the installed
 * <infiniband/verbs.h> gives. Disassembling verbs_set_ops() of
 * libibverbs.so.1 44.0-2 gave 76 members of 8 bytes (0x0 to 0x258) and,
 * for each with a public slot, its name; the members kept only in the
 * library's private copy sit between named ones in alphabetical order
 * (the structure is kept sorted), which names them. Every op the provider
 * sets has a public slot except free_context (between detach_mcast and
 * free_dm) and query_port (after query_ece, before query_qp). The ops the
 * provider sets, their offsets and public slots:
 *   alloc_pd 0x28, create_ah 0x68, create_cq 0x78, create_cq_ex 0x80
 *   (private: the public slot gets a library wrapper), create_qp 0x98,
 *   create_qp_ex 0xa0, dealloc_pd 0xd0, dereg_mr 0xe0, destroy_ah 0xe8,
 *   destroy_cq 0xf8, destroy_qp 0x110,
 *   free_context 0x138, modify_qp 0x178, poll_cq 0x1a8, post_recv 0x1b0,
 *   post_send 0x1b8, query_device_ex 0x1d0, query_port 0x1e0,
 *   query_qp 0x1e8, reg_mr 0x220, req_notify_cq 0x228;
 *   attach_mcast 0x48, detach_mcast 0x130.
 *   query_qp 0x1e8, reg_mr 0x220, req_notify_cq 0x228; for SRQs
 *   create_srq 0xb0, destroy_srq 0x120, modify_srq 0x188,
 *   post_srq_recv 0x1c8, query_srq 0x200.
 *   query_qp 0x1e8, reg_mr 0x220, req_notify_cq 0x228, rereg_mr 0x230
 *   (public slot _compat_rereg_mr); for memory windows alloc_mw 0x10,
 *   bind_mw 0x50, dealloc_mw 0xc8.
 * scripts/provider-abi.py repeats the disassembly check against the
 * installed library in make check.
 */
#ifndef _VROCE_VERBS_COMPAT_H_
#define _VROCE_VERBS_COMPAT_H_

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* The library's doubly linked list node (two pointers). */
struct vroce_list_node {
	struct vroce_list_node *next, *prev;
};

/* A device libibverbs found in sysfs; the provider only passes it on. */
struct verbs_sysfs_dev;

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

/* One entry of a provider's match table. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;	/* fnmatch() pattern of device/modalias */
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;		/* VERBS_MATCH_* */
};

struct verbs_device;

/* What a provider registers with verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* The library's device; a provider allocates it (first in its own). */
struct verbs_device {
	struct ibv_device device;	/* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct vroce_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* The library's MR, CQ and QP, which the ibv_cmd_*() helpers fill. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	int mr_type;		/* enum ibv_mr_type */
	int access;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;	/* VERBS_QP_* */
	void *xrcd;
};

/*
 * ibv_qp_to_qp_ex() (exported) returns &qp_ex when this bit of the
 * comp_mask above is set; the provider sets it for a QP with the
 * ibv_wr_*() API. provider-abi.py reads bit and offset from the library.
 */
enum {
	VERBS_QP_EX = 1 << 1,
};

static_assert(offsetof(struct verbs_qp, comp_mask) == 0x160,
	      "verbs_qp.comp_mask is not where libibverbs 44 reads it");

/*
 * Every op a provider can give, in the library's (sorted) order. Ops the
 * vroce provider does not set are declared untyped: only their place
 * matters.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	void (*alloc_dm)(void);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	void (*alloc_null_mr)(void);
	void (*alloc_parent_domain)(void);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	void (*alloc_td)(void);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	void (*attach_counters_point_flow)(void);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	void (*close_xrcd)(void);
	void (*cq_event)(void);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	void (*create_counters)(void);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	void (*create_flow)(void);
	void (*create_flow_action_esp)(void);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	void (*create_rwq_ind_table)(void);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	void (*create_srq_ex)(void);
	void (*create_wq)(void);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	void (*dealloc_td)(void);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	void (*destroy_counters)(void);
	int (*destroy_cq)(struct ibv_cq *cq);
	void (*destroy_flow)(void);
	void (*destroy_flow_action)(void);
	int (*destroy_qp)(struct ibv_qp *qp);
	void (*destroy_rwq_ind_table)(void);
	int (*destroy_srq)(struct ibv_srq *srq);
	void (*destroy_wq)(void);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	void (*free_dm)(void);
	void (*get_srq_num)(void);
	void (*import_dm)(void);
	void (*import_mr)(void);
	void (*import_pd)(void);
	void (*modify_cq)(void);
	void (*modify_flow_action_esp)(void);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	void (*modify_qp_rate_limit)(void);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	void (*modify_wq)(void);
	void (*open_qp)(void);
	void (*open_xrcd)(void);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	void (*post_srq_ops)(void);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	void (*query_ece)(void);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	void (*query_qp_data_in_order)(void);
	void (*query_rt_values)(void);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	void (*read_counters)(void);
	void (*reg_dm_mr)(void);
	void (*reg_dmabuf_mr)(void);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	void (*set_ece)(void);
	void (*unimport_dm)(void);
	void (*unimport_mr)(void);
	void (*unimport_pd)(void);
};

#define VROCE_OP_AT(op, off)						\
	static_assert(offsetof(struct verbs_context_ops, op) == (off),	\
		      "verbs_context_ops." #op " is not where libibverbs 44 has it")
VROCE_OP_AT(alloc_pd, 0x28);
VROCE_OP_AT(create_ah, 0x68);
VROCE_OP_AT(create_cq, 0x78);
VROCE_OP_AT(create_cq_ex, 0x80);
VROCE_OP_AT(create_qp, 0x98);
VROCE_OP_AT(create_qp_ex, 0xa0);
VROCE_OP_AT(dealloc_pd, 0xd0);
VROCE_OP_AT(dereg_mr, 0xe0);
VROCE_OP_AT(destroy_ah, 0xe8);
VROCE_OP_AT(destroy_cq, 0xf8);
VROCE_OP_AT(destroy_qp, 0x110);
VROCE_OP_AT(free_context, 0x138);
VROCE_OP_AT(modify_qp, 0x178);
VROCE_OP_AT(poll_cq, 0x1a8);
VROCE_OP_AT(post_recv, 0x1b0);
VROCE_OP_AT(post_send, 0x1b8);
VROCE_OP_AT(query_device_ex, 0x1d0);
VROCE_OP_AT(query_port, 0x1e0);
VROCE_OP_AT(query_qp, 0x1e8);
VROCE_OP_AT(reg_mr, 0x220);
VROCE_OP_AT(req_notify_cq, 0x228);
/* UD multicast */
VROCE_OP_AT(attach_mcast, 0x48);
VROCE_OP_AT(detach_mcast, 0x130);
/* issue 30, cq/counters */
VROCE_OP_AT(resize_cq, 0x238);
/* Shared receive queues. */
VROCE_OP_AT(create_srq, 0xb0);
VROCE_OP_AT(destroy_srq, 0x120);
VROCE_OP_AT(modify_srq, 0x188);
VROCE_OP_AT(post_srq_recv, 0x1c8);
VROCE_OP_AT(query_srq, 0x200);
/* issue 30, rereg_mr */
VROCE_OP_AT(rereg_mr, 0x230);
/* issue 30, memory windows */
VROCE_OP_AT(alloc_mw, 0x10);
VROCE_OP_AT(bind_mw, 0x50);
VROCE_OP_AT(dealloc_mw, 0xc8);
/* issue 31, review: the fatal state (public slot _compat_async_event) */
VROCE_OP_AT(async_event, 0x38);
static_assert(sizeof(struct verbs_context_ops) == 0x260,
	      "verbs_context_ops is not the size libibverbs 44 has");

/*
 * Command buffers of the legacy write() commands as the ibv_cmd_*()
 * helpers take them: the uverbs header, then the kernel's request
 * structure (<rdma/ib_user_verbs.h>); a provider's own driver data
 * follows directly.
 */
#define VROCE_WRITE_CMD(name, core)					\
	struct name {							\
		struct ib_uverbs_cmd_hdr hdr;				\
		struct core core_payload;				\
	}

VROCE_WRITE_CMD(ibv_get_context, ib_uverbs_get_context);
VROCE_WRITE_CMD(ibv_query_port, ib_uverbs_query_port);
VROCE_WRITE_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
VROCE_WRITE_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
VROCE_WRITE_CMD(ibv_create_cq, ib_uverbs_create_cq);
VROCE_WRITE_CMD(ibv_create_qp, ib_uverbs_create_qp);
VROCE_WRITE_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
VROCE_WRITE_CMD(ibv_query_qp, ib_uverbs_query_qp);
/* issue 30, cq/counters */
VROCE_WRITE_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
VROCE_WRITE_CMD(ibv_create_srq, ib_uverbs_create_srq);
VROCE_WRITE_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
VROCE_WRITE_CMD(ibv_query_srq, ib_uverbs_query_srq);
/* issue 30, rereg_mr */
VROCE_WRITE_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);
/* issue 30, memory windows */
VROCE_WRITE_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);

/* The private functions of libibverbs.so.1 (IBVERBS_PRIVATE_34) used. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* issue 33, on-demand paging: prefetch */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
/* issue 30, memory windows */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
/* issue 30, rereg_mr */
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
/* UD multicast */
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
/* issue 31, mapped rings: libibverbs' driver.h, exported (IBVERBS_1.1). */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
/* issue 30, cq/counters */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);

#endif /* _VROCE_VERBS_COMPAT_H_ */
