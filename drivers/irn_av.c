// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address vectors and address handles.
 *
 * An address vector is built from the RDMA core's rdma_ah_attr, whose
 * source GID attribute the core has resolved (it names the netdev and says
 * whether the GID is an IPv4-mapped or an IPv6 RoCEv2 address).  RoCE v1
 * GIDs are refused: irn only speaks RoCEv2.
 *
 * User AHs are named in UD work requests by a number (ah_num) the rxe
 * provider got from create_ah; the number indexes the device's AH table.
 */

#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "irn_av.h"
#include "irn_dev.h"
#include "irn_path.h"

#define IRN_MAX_AH_NUM	0xffff

/**
 * irn_av_init() - resolve an address vector
 * @av: filled in
 * @attr: RoCE address with GRH and resolved source GID attribute
 * @lqpn: local QP number, for the UDP source port hash
 * @rqpn: remote QP number, for the same
 * @gfp: allocation flags for the route cache
 *
 * Context: any; sleeps only if @gfp allows.
 * Return: 0, -EINVAL for a non-RoCEv2 address, or -ENOMEM.
 */
int irn_av_init(struct irn_av *av, const struct rdma_ah_attr *attr,
		u32 lqpn, u32 rqpn, gfp_t gfp)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	bool v4;
	int err;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid ||
	    sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, offsetof(struct irn_av, rcu));
	av->family = ipv6_addr_v4mapped((struct in6_addr *)&sgid->gid) ?
		     AF_INET : AF_INET6;
	memcpy(&av->saddr, &sgid->gid, sizeof(av->saddr));
	memcpy(&av->daddr, &grh->dgid, sizeof(av->daddr));
	/* Both ends IPv4 (mapped) or both IPv6. */
	v4 = av->family == AF_INET;
	if (ipv6_addr_v4mapped(&av->daddr) != v4)
		return -EINVAL;
	av->ttl = grh->hop_limit ?: 64;
	av->tos = grh->traffic_class;
	av->flow_label = grh->flow_label;
	av->sport = htons(rdma_get_udp_sport(grh->flow_label, lqpn, rqpn));
	err = dst_cache_init(&av->dst_cache, gfp);
	return err;
}

static void free_paths(struct irn_av *av, u32 n)
{
	while (n--)
		dst_cache_destroy(&av->paths[n].dst_cache);
	kfree(av->paths);
	av->paths = NULL;
	av->npaths = 0;
}

/**
 * irn_av_init_paths() - the paths of a QP's address vector
 * @av: from irn_av_init()
 * @n: paths the QP may spray over; up to 1 there are none
 * @gfp: allocation flags
 *
 * Path i sends from irn_path_sport() of the vector's own port and i, with
 * a route cache of its own: path 0's port is the vector's, but its route
 * is looked up with the ports, as every path's is.
 *
 * Context: any; sleeps only if @gfp allows.
 * Return: 0 or -ENOMEM.
 */
int irn_av_init_paths(struct irn_av *av, u32 n, gfp_t gfp)
{
	u32 i;
	int err;

	if (n <= 1)
		return 0;
	av->paths = kcalloc(n, sizeof(*av->paths), gfp);
	if (!av->paths)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		av->paths[i].sport = htons(irn_path_sport(ntohs(av->sport), i));
		err = dst_cache_init(&av->paths[i].dst_cache, gfp);
		if (err) {
			free_paths(av, i);
			return err;
		}
	}
	av->npaths = n;
	return 0;
}

/**
 * irn_av_cleanup() - release an address vector
 * @av: from irn_av_init()
 *
 * Context: any.
 */
void irn_av_cleanup(struct irn_av *av)
{
	dst_cache_destroy(&av->dst_cache);
	if (av->paths)
		free_paths(av, av->npaths);
}

static void free_av_rcu(struct rcu_head *rcu)
{
	struct irn_av *av = container_of(rcu, struct irn_av, rcu);

	irn_av_cleanup(av);
	kfree(av);
}

/**
 * irn_av_free() - free a kmalloc'ed address vector after a grace period
 * @av: from irn_av_init(); senders may be using it under rcu_read_lock()
 *
 * Context: any.  Module exit waits for the callbacks (rcu_barrier()).
 */
void irn_av_free(struct irn_av *av)
{
	call_rcu(&av->rcu, free_av_rcu);
}

/**
 * irn_ah_create() - ib_device_ops.create_ah and create_user_ah
 * @ibah: AH allocated by the RDMA core
 * @init: address and flags; without RDMA_CREATE_AH_SLEEPABLE this runs in
 *	  atomic context (the MAD and CM layers create AHs so)
 * @udata: rxe provider response (struct rxe_create_ah_resp), or NULL
 *
 * Context: atomic unless RDMA_CREATE_AH_SLEEPABLE is set.
 * Return: 0 or a negative errno.
 */
int irn_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct irn_dev *dev = to_irn_dev(ibah->device);
	struct irn_ah *ah = to_irn_ah(ibah);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	struct rxe_create_ah_resp resp = {};
	unsigned long irqflags;
	int err;

	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	ah->av = kzalloc(sizeof(*ah->av), gfp);
	if (!ah->av)
		return -ENOMEM;
	err = irn_av_init(ah->av, init->ah_attr, 0, 0, gfp);
	if (err)
		goto err_free_av;
	ah->av->pd = ibah->pd;
	xa_lock_irqsave(&dev->ahs, irqflags);
	err = __xa_alloc_cyclic(&dev->ahs, &ah->ah_num, ah->av,
				XA_LIMIT(1, IRN_MAX_AH_NUM), &dev->ah_next, gfp);
	xa_unlock_irqrestore(&dev->ahs, irqflags);
	if (err < 0)
		goto err_cleanup_av;
	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase_ah;
	}
	return 0;

err_erase_ah:
	xa_lock_irqsave(&dev->ahs, irqflags);
	__xa_erase(&dev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&dev->ahs, irqflags);
err_cleanup_av:
	irn_av_cleanup(ah->av);
err_free_av:
	kfree(ah->av);
	return err;
}

/**
 * irn_ah_destroy() - ib_device_ops.destroy_ah
 * @ibah: AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0
 *
 * Context: atomic unless RDMA_DESTROY_AH_SLEEPABLE is set.
 * Return: 0.
 */
int irn_ah_destroy(struct ib_ah *ibah, u32 flags)
{
	struct irn_dev *dev = to_irn_dev(ibah->device);
	struct irn_ah *ah = to_irn_ah(ibah);
	unsigned long irqflags;

	xa_lock_irqsave(&dev->ahs, irqflags);
	__xa_erase(&dev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&dev->ahs, irqflags);
	/* The requester may still be sending to it. */
	irn_av_free(ah->av);
	return 0;
}

/**
 * irn_ah_lookup() - address vector of an AH, by number
 * @dev: device
 * @ah_num: number from a UD work request
 * @pd: protection domain of the sending QP
 *
 * The table holds address vectors rather than AHs because the RDMA core
 * frees an AH as soon as it is destroyed, while its address vector lives
 * until the requesters that may be using it are done.  AH numbers are
 * small and handed out in sequence, and a user ring names any of them: an
 * AH of another protection domain (another process's, or the kernel CM's)
 * is not found.
 *
 * Context: under rcu_read_lock(), which keeps the AH's address vector
 * (not the AH itself) alive.
 * Return: the address vector, or NULL.
 */
struct irn_av *irn_ah_lookup(struct irn_dev *dev, u32 ah_num,
			     const struct ib_pd *pd)
{
	struct irn_av *av = xa_load(&dev->ahs, ah_num);

	return av && av->pd == pd ? av : NULL;
}
