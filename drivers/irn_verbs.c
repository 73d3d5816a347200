// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Verbs: device and port queries, user contexts, protection domains, and
 * the table of ib_device_ops that ties the object files together.
 *
 * Attributes are honest: a limit is non-zero only once the object it counts
 * can really be created.
 */

#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

#include "irn_av.h"
#include "irn_compat.h"
#include "irn_counters.h"
#include "irn_cq.h"
#include "irn_dev.h"
#include "irn_hdr.h"
#include "irn_mcast.h"
#include "irn_mr.h"
#include "irn_qp.h"
#include "irn_qp_verbs.h"
#include "irn_queue.h"
#include "irn_srq.h"
#include "irn_verbs.h"

#define IRN_MAX_CQ		SZ_64K
#define IRN_MAX_CQE		(SZ_64K - 1)
#define IRN_MAX_PD		SZ_64K
#define IRN_GID_TABLE_LEN	1024
#define IRN_VENDOR_ID		0xffffff
#define IRN_MAX_MR		(BIT(24) - 1)
#define IRN_MAX_AH		0xffff
#define IRN_MAX_FAST_REG_PAGES	512

struct irn_ucontext {
	struct ib_ucontext	ib_uctx;
};

struct irn_pd {
	struct ib_pd		ib_pd;
};

/**
 * irn_verbs_init_attr() - fill the device attributes
 * @dev: device being created, not yet registered
 *
 * Context: process context.
 */
void irn_verbs_init_attr(struct irn_dev *dev)
{
	struct ib_device_attr *attr = &dev->attr;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)IRN_VERSION_MAJOR << 32 |
		       IRN_VERSION_MINOR << 16 | IRN_VERSION_SUB;
	attr->sys_image_guid = dev->ib_dev.node_guid;
	attr->max_mr_size = ~0ULL;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = IRN_VENDOR_ID;
	attr->max_cq = IRN_MAX_CQ;
	attr->max_cqe = IRN_MAX_CQE;
	attr->max_pd = IRN_MAX_PD;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->max_qp = IRN_MAX_QP;
	attr->max_qp_wr = IRN_MAX_QP_WR;
	attr->max_send_sge = IRN_MAX_SGE;
	attr->max_recv_sge = IRN_MAX_SGE;
	attr->max_sge_rd = IRN_MAX_SGE;
	attr->max_mr = IRN_MAX_MR;
	attr->max_ah = IRN_MAX_AH;
	attr->max_mw = IRN_MAX_MR;
	attr->max_qp_rd_atom = IRN_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = IRN_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = IRN_MAX_RD_ATOMIC * IRN_MAX_QP;
	attr->max_fast_reg_page_list_len = IRN_MAX_FAST_REG_PAGES;
	attr->max_mcast_grp = IRN_MCAST_GRP_MAX;
	attr->max_mcast_qp_attach = IRN_MCAST_QP_MAX;
	attr->max_total_mcast_qp_attach = IRN_MCAST_GRP_MAX * IRN_MCAST_QP_MAX;
	attr->max_srq = IRN_MAX_SRQ;
	attr->max_srq_wr = IRN_MAX_SRQ_WR;
	attr->max_srq_sge = IRN_MAX_SRQ_SGE;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IRN_DEVICE_ATOMIC_WRITE;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
}

/**
 * irn_port_state() - port state as the netdev implies it
 * @dev: device
 *
 * Context: any.
 * Return: IB_PORT_ACTIVE when the netdev is up with carrier, else
 * IB_PORT_DOWN.
 */
enum ib_port_state irn_port_state(struct irn_dev *dev)
{
	if (netif_running(dev->ndev) && netif_carrier_ok(dev->ndev))
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

/**
 * irn_query_device() - ib_device_ops.query_device
 * @ibdev: device
 * @attr: filled with the device attributes
 * @udata: must carry no provider data (the rxe provider sends none)
 *
 * Context: process context.
 * Return: 0, or -EINVAL for unexpected provider data.
 */
static int irn_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_irn_dev(ibdev)->attr;
	return 0;
}

/**
 * irn_query_port() - ib_device_ops.query_port
 * @ibdev: device
 * @port_num: always 1
 * @attr: zeroed by the RDMA core, filled here from the netdev's state
 *
 * Context: process context, may sleep (the link speed query takes RTNL).
 * Return: 0 or a negative errno.
 */
static int irn_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct irn_dev *dev = to_irn_dev(ibdev);
	int err;

	/* The RDMA core zeroed @attr. */
	attr->state = irn_port_state(dev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(dev->ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = irn_mtu_from_netdev(READ_ONCE(dev->ndev->mtu));
	attr->gid_tbl_len = IRN_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = IRN_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	attr->subnet_timeout = 18;

	err = ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			       &attr->active_width);
	return err;
}

/**
 * irn_query_pkey() - ib_device_ops.query_pkey
 * @ibdev: device
 * @port_num: always 1
 * @index: P_Key table index; the table holds the default P_Key only
 * @pkey: filled with the P_Key
 *
 * Context: any.
 * Return: 0, or -EINVAL for an index past the table.
 */
static int irn_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/**
 * irn_get_port_immutable() - ib_device_ops.get_port_immutable
 * @ibdev: device
 * @port_num: always 1
 * @immutable: filled with the port's fixed properties: RoCEv2
 *
 * Context: process context, during registration.
 * Return: 0.
 */
static int irn_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = IRN_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/**
 * irn_get_link_layer() - ib_device_ops.get_link_layer
 * @ibdev: device
 * @port_num: always 1
 *
 * Context: any.
 * Return: IB_LINK_LAYER_ETHERNET.
 */
static enum rdma_link_layer irn_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/**
 * irn_alloc_ucontext() - ib_device_ops.alloc_ucontext
 * @ibuc: context allocated by the RDMA core
 * @udata: the rxe provider sends no request and expects no reply
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
static int irn_alloc_ucontext(struct ib_ucontext *ibuc,
			      struct ib_udata *udata)
{
	return 0;
}

/**
 * irn_dealloc_ucontext() - ib_device_ops.dealloc_ucontext
 * @ibuc: context; its mappings were removed by the RDMA core
 *
 * Context: process context, may sleep.
 */
static void irn_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * irn_disassociate_ucontext() - ib_device_ops.disassociate_ucontext
 * @ibuc: context of a process that still has the device open, while the
 *	  device is unregistered or moved to another network namespace
 *
 * Having this op is what lets the RDMA core revoke a user context instead
 * of waiting for the process to close it (`rdma link delete`, netdev
 * removal, module unload), and what `rdma dev set DEV netns NS` requires.
 * There is nothing left to do by the time it is called:
 *
 * - The core has published the device as gone and waited (SRCU) for every
 *   verb in progress on the uverbs file, mmap() included; from then on
 *   every verb that enters the kernel fails with -EIO (destroying an object
 *   succeeds without reaching irn), so no user thread is inside an irn op,
 *   and none gets in.
 * - It has destroyed every object of the context (RDMA_REMOVE_DRIVER_REMOVE)
 *   through the same destroy ops as a process exit: QPs stop their
 *   engines, timers and tasks, wait for packets being received, and detach
 *   those still being sent (irn_txsock.c); CQs disable their notify task;
 *   MRs wait for the packets using them.  Each ring's mmap entry is removed
 *   and frees the ring at once, since irn's mappings hold no entry.
 * - What the process may still have mapped are rings of vmalloc_user()
 *   pages, mapped by remap_vmalloc_range(): each page table entry holds a
 *   reference to its page, so a ring's vfree() leaves the pages to the
 *   process until it unmaps them (or exits), and no kernel code reads or
 *   writes them any more.  Being memory rather than device registers, they
 *   need no zapping: the process sees rings that no longer move.  The
 *   mappings' vm_ops are the core's (irn's pages are not tracked in its
 *   umap list), so they use no irn code once the module is unloaded.
 *
 * Context: process context, may sleep.  Called by the RDMA core with the
 * uverbs file's hw_destroy_rwsem held for writing, after the context's
 * objects are destroyed and before dealloc_ucontext.
 */
static void irn_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * irn_alloc_pd() - ib_device_ops.alloc_pd
 * @ibpd: PD allocated by the RDMA core
 * @udata: user data, or NULL for a kernel consumer; no payload either way
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
static int irn_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

/**
 * irn_dealloc_pd() - ib_device_ops.dealloc_pd
 * @ibpd: PD; the RDMA core guarantees nothing uses it any more
 * @udata: unused
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
static int irn_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

/**
 * irn_get_hw_stats() - ib_device_ops.get_hw_stats
 * @ibdev: device
 * @stats: filled with the current sums
 * @port_num: port, always 1
 * @index: counter asked for; all are refreshed together
 *
 * Context: process context, may sleep.
 * Return: the number of counters filled in.
 */
static int irn_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port_num,
			    int index)
{
	return irn_counters_fill_hw_stats(to_irn_dev(ibdev)->stats, stats);
}

/*
 * Every op here follows the RDMA core's locking contract
 * (Documentation/infiniband/core_locking.rst); each function says in its
 * kernel-doc whether it may sleep.
 */
const struct ib_device_ops irn_verbs_ops = {
	.alloc_hw_port_stats	= irn_counters_alloc_port_stats,
	.alloc_mr		= irn_mr_alloc,
	.alloc_mw		= irn_mw_alloc,
	.alloc_pd		= irn_alloc_pd,
	.alloc_ucontext		= irn_alloc_ucontext,
	.attach_mcast		= irn_mcast_attach,
	.create_ah		= irn_ah_create,
	.create_cq		= irn_cq_create,
	.create_qp		= irn_qp_create,
	.create_srq		= irn_srq_create,
	.create_user_ah		= irn_ah_create,
	.dealloc_mw		= irn_mw_dealloc,
	.dealloc_pd		= irn_dealloc_pd,
	.dealloc_ucontext	= irn_dealloc_ucontext,
	.dereg_mr		= irn_mr_dereg,
	.destroy_ah		= irn_ah_destroy,
	.destroy_cq		= irn_cq_destroy,
	.destroy_qp		= irn_qp_destroy,
	.destroy_srq		= irn_srq_destroy,
	.detach_mcast		= irn_mcast_detach,
	.disassociate_ucontext	= irn_disassociate_ucontext,
	.get_dma_mr		= irn_mr_get_dma,
	.get_hw_stats		= irn_get_hw_stats,
	.get_link_layer		= irn_get_link_layer,
	.get_port_immutable	= irn_get_port_immutable,
	.map_mr_sg		= irn_mr_map_sg,
	.mmap			= irn_queue_mmap,
	.mmap_free		= irn_queue_mmap_free,
	.modify_qp		= irn_qp_modify,
	.modify_srq		= irn_srq_modify,
	.poll_cq		= irn_cq_poll,
	.post_recv		= irn_qp_post_recv,
	.post_send		= irn_qp_post_send,
	.post_srq_recv		= irn_srq_post_recv,
	.query_device		= irn_query_device,
	.query_pkey		= irn_query_pkey,
	.query_port		= irn_query_port,
	.query_qp		= irn_qp_query,
	.query_srq		= irn_srq_query,
	.reg_user_mr		= irn_mr_reg_user,
	.req_notify_cq		= irn_cq_req_notify,
	.resize_cq		= irn_cq_resize,

	INIT_RDMA_OBJ_SIZE(ib_ah, irn_ah, ib_ah),
	INIT_RDMA_OBJ_SIZE(ib_cq, irn_cq, ib_cq),
	INIT_RDMA_OBJ_SIZE(ib_mw, irn_mw, ib_mw),
	INIT_RDMA_OBJ_SIZE(ib_pd, irn_pd, ib_pd),
	INIT_RDMA_OBJ_SIZE(ib_qp, irn_qp, ib_qp),
	INIT_RDMA_OBJ_SIZE(ib_srq, irn_srq, ib_srq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, irn_ucontext, ib_uctx),
};
