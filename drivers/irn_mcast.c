// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD multicast groups.
 *
 * A group is a multicast GID (an IPv4-mapped or IPv6 multicast address)
 * and the numbers of the UD QPs of this device attached to it.  The
 * receive path looks a group up under RCU for every packet sent to the
 * multicast QPN and hands each attached QP a copy.  Attach and detach are
 * rare, so a group is never changed in place: each change publishes a new
 * copy and frees the old one after a grace period.
 *
 * Joining a group also makes the netdev receive it: its MAC goes into the
 * netdev's filter and the address into the IP layer's membership of the
 * interface (IGMP or MLD), which is what lets the IP layer pass the
 * datagrams up.  rdma_cm joins the IP group itself as well; both counts
 * are references, so either order of leaving is fine.
 *
 * Locking: dev->mcast_lock (a mutex) serialises writers and is taken
 * before RTNL; readers take rcu_read_lock() only.
 */

#include <linux/etherdevice.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "irn_dev.h"
#include "irn_mcast.h"
#include "irn_qp.h"

/**
 * struct irn_mcg - one multicast group of a device
 * @list: on irn_dev.mcgs
 * @mgid: the group
 * @nqps: attached QPs, at most IRN_MCAST_QP_MAX
 * @qpn: their numbers
 * @rcu: frees a replaced copy
 */
struct irn_mcg {
	struct list_head	list;
	union ib_gid		mgid;
	unsigned int		nqps;
	u32			qpn[IRN_MCAST_QP_MAX];
	struct rcu_head		rcu;
};

static bool mgid_is_v4(const union ib_gid *mgid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw);
}

static bool mgid_valid(const union ib_gid *mgid)
{
	if (mgid_is_v4(mgid))
		return ipv4_is_multicast(*(const __be32 *)&mgid->raw[12]);
	return ipv6_addr_is_multicast((const struct in6_addr *)mgid->raw);
}

/*
 * Make the netdev receive the group (@join) or stop it.  Called when a
 * group is created or removed, in process context.
 */
static void netdev_membership(struct irn_dev *dev, const union ib_gid *mgid,
			      bool join)
{
	struct net_device *ndev = dev->ndev;
	u8 mac[ETH_ALEN];

	if (mgid_is_v4(mgid)) {
		__be32 addr = *(const __be32 *)&mgid->raw[12];
		struct in_device *in_dev;

		ip_eth_mc_map(addr, mac);
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev && join)
			ip_mc_inc_group(in_dev, addr);
		else if (in_dev)
			ip_mc_dec_group(in_dev, addr);
		rtnl_unlock();
	} else {
		const struct in6_addr *addr = (const void *)mgid->raw;

		ipv6_eth_mc_map(addr, (char *)mac);
		if (join)
			ipv6_dev_mc_inc(ndev, addr);
		else
			ipv6_dev_mc_dec(ndev, addr);
	}
	if (join)
		dev_mc_add(ndev, mac);
	else
		dev_mc_del(ndev, mac);
}

static struct irn_mcg *find_mcg(struct irn_dev *dev, const union ib_gid *mgid)
{
	struct irn_mcg *g;

	list_for_each_entry_rcu(g, &dev->mcgs, list,
				lockdep_is_held(&dev->mcast_lock))
		if (!memcmp(g->mgid.raw, mgid->raw, sizeof(g->mgid.raw)))
			return g;
	return NULL;
}

/* Publish @new in place of @old (either may be NULL). */
static void replace_mcg(struct irn_dev *dev, struct irn_mcg *old,
			struct irn_mcg *new)
{
	lockdep_assert_held(&dev->mcast_lock);
	if (old && new) {
		list_replace_rcu(&old->list, &new->list);
	} else if (new) {
		list_add_tail_rcu(&new->list, &dev->mcgs);
		dev->n_mcgs++;
	} else if (old) {
		list_del_rcu(&old->list);
		dev->n_mcgs--;
	}
	if (old)
		kfree_rcu(old, rcu);
}

static int find_qpn(const struct irn_mcg *g, u32 qpn)
{
	unsigned int i;

	for (i = 0; i < g->nqps; i++)
		if (g->qpn[i] == qpn)
			return i;
	return -1;
}

/*
 * Remove @qpn from @g: publishes a smaller copy, or drops the group (and
 * the netdev's membership) with its last QP.  Without memory for the copy
 * the number is removed in place, so that a detach never fails: a packet
 * received meanwhile may then miss, or reach twice, the QP moved into
 * the hole, which UD allows.
 */
static int remove_qpn(struct irn_dev *dev, struct irn_mcg *g, u32 qpn)
{
	struct irn_mcg *new = NULL;
	int i = find_qpn(g, qpn);

	lockdep_assert_held(&dev->mcast_lock);
	if (i < 0)
		return -EINVAL;
	if (g->nqps > 1) {
		new = kmemdup(g, sizeof(*g), GFP_KERNEL);
		if (!new) {
			WRITE_ONCE(g->qpn[i], g->qpn[g->nqps - 1]);
			WRITE_ONCE(g->nqps, g->nqps - 1);
			return 0;
		}
		new->qpn[i] = new->qpn[--new->nqps];
	}
	/* before the group is unpublished: @g may be freed after that */
	if (!new)
		netdev_membership(dev, &g->mgid, false);
	replace_mcg(dev, g, new);
	return 0;
}

/**
 * irn_mcast_init() - a device without groups
 * @dev: device being created
 *
 * Context: process context.
 */
void irn_mcast_init(struct irn_dev *dev)
{
	mutex_init(&dev->mcast_lock);
	INIT_LIST_HEAD(&dev->mcgs);
	dev->n_mcgs = 0;
}

/**
 * irn_mcast_cleanup() - free the groups of a device going away
 * @dev: device; its QPs are destroyed, and detached with that
 *
 * Context: process context, may sleep.
 */
void irn_mcast_cleanup(struct irn_dev *dev)
{
	struct irn_mcg *g, *tmp;

	mutex_lock(&dev->mcast_lock);
	WARN_ON(!list_empty(&dev->mcgs));
	list_for_each_entry_safe(g, tmp, &dev->mcgs, list) {
		netdev_membership(dev, &g->mgid, false);
		replace_mcg(dev, g, NULL);
	}
	mutex_unlock(&dev->mcast_lock);
	mutex_destroy(&dev->mcast_lock);
}

/**
 * irn_mcast_attach() - ib_device_ops.attach_mcast
 * @ibqp: a UD QP
 * @mgid: multicast GID, IPv4-mapped or IPv6
 * @mlid: unused on RoCE
 *
 * Attaching a QP that is attached already succeeds and changes nothing.
 *
 * Context: process context, may sleep; takes RTNL.
 * Return: 0, -EINVAL for a QP that is not UD or a GID that is not
 * multicast, -ENOMEM when a limit (IRN_MCAST_GRP_MAX groups,
 * IRN_MCAST_QP_MAX QPs in a group) or memory runs out.
 */
int irn_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	struct irn_dev *dev = qp->dev;
	struct irn_mcg *g, *new;
	int err = 0;

	if (!irn_qp_is_ud(qp) || !mgid_valid(mgid))
		return -EINVAL;
	mutex_lock(&dev->mcast_lock);
	g = find_mcg(dev, mgid);
	if (g && find_qpn(g, irn_qp_num(qp)) >= 0)
		goto out_unlock;
	if ((g && g->nqps == IRN_MCAST_QP_MAX) ||
	    (!g && dev->n_mcgs == IRN_MCAST_GRP_MAX)) {
		err = -ENOMEM;
		goto out_unlock;
	}
	new = g ? kmemdup(g, sizeof(*g), GFP_KERNEL) :
		  kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new) {
		err = -ENOMEM;
		goto out_unlock;
	}
	new->mgid = *mgid;
	new->qpn[new->nqps++] = irn_qp_num(qp);
	if (!g)
		netdev_membership(dev, mgid, true);
	replace_mcg(dev, g, new);
out_unlock:
	mutex_unlock(&dev->mcast_lock);
	return err;
}

/**
 * irn_mcast_detach() - ib_device_ops.detach_mcast
 * @ibqp: QP
 * @mgid: group it is attached to
 * @mlid: unused on RoCE
 *
 * Context: process context, may sleep; takes RTNL.
 * Return: 0, or -EINVAL if @ibqp is not attached to @mgid.
 */
int irn_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	struct irn_dev *dev = qp->dev;
	struct irn_mcg *g;
	int err = -EINVAL;

	mutex_lock(&dev->mcast_lock);
	g = find_mcg(dev, mgid);
	if (g)
		err = remove_qpn(dev, g, irn_qp_num(qp));
	mutex_unlock(&dev->mcast_lock);
	return err;
}

/**
 * irn_mcast_detach_qp() - detach a QP being destroyed from every group
 * @qp: UD QP, already out of the device's QP table
 *
 * The RDMA core detaches user QPs before destroying them; a kernel
 * consumer might not, and a later QP with the same number must not
 * inherit the attachments.
 *
 * Context: process context, may sleep; takes RTNL.
 */
void irn_mcast_detach_qp(struct irn_qp *qp)
{
	struct irn_dev *dev = qp->dev;
	struct irn_mcg *g, *tmp;

	if (!irn_qp_is_ud(qp))
		return;
	mutex_lock(&dev->mcast_lock);
	list_for_each_entry_safe(g, tmp, &dev->mcgs, list)
		remove_qpn(dev, g, irn_qp_num(qp));
	mutex_unlock(&dev->mcast_lock);
}

/**
 * irn_mcast_qpns() - the QPs attached to a group
 * @dev: device
 * @mgid: the group, from a packet's destination address
 * @qpns: filled with their numbers
 *
 * Context: any; takes rcu_read_lock().
 * Return: how many there are, 0 for a group nobody here joined.
 */
unsigned int irn_mcast_qpns(struct irn_dev *dev, const union ib_gid *mgid,
			    u32 qpns[IRN_MCAST_QP_MAX])
{
	const struct irn_mcg *g;
	unsigned int n = 0;

	rcu_read_lock();
	g = find_mcg(dev, mgid);
	if (g) {
		n = min_t(unsigned int, READ_ONCE(g->nqps), IRN_MCAST_QP_MAX);
		memcpy(qpns, g->qpn, n * sizeof(*qpns));
	}
	rcu_read_unlock();
	return n;
}
