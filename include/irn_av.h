/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Address vectors and address handles: where RoCEv2 packets go.
 */
#ifndef _IRN_AV_H
#define _IRN_AV_H

#include <linux/in6.h>
#include <linux/if_ether.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

struct irn_dev;

/**
 * struct irn_av_path - one path of a QP's address vector
 * @sport: its UDP source port, network order (irn_path_sport())
 * @dst_cache: its route cache; the lookup carries @sport (a policy
 *	       rule may match it)
 */
struct irn_av_path {
	__be16			sport;
	struct dst_cache	dst_cache;
};

/**
 * struct irn_av - a resolved RoCEv2 destination
 * @family: AF_INET or AF_INET6
 * @saddr: source address (IPv4 in the mapped form)
 * @daddr: destination address (IPv4 in the mapped form)
 * @ttl: hop limit
 * @tos: traffic class (DSCP and ECN)
 * @flow_label: IPv6 flow label
 * @sport: UDP source port, in network order
 * @dst_cache: route cache, so that packets skip the route lookup
 * @npaths: entries of @paths, 0 for a vector that is not sprayed over
 * @paths: a QP's paths (irn_av_init_paths()), NULL for none
 * @pd: the protection domain of the AH this vector belongs to; NULL in a
 *	QP's own vector.  Compared only, never dereferenced: the AH, which
 *	holds the PD, is gone from the AH table before its PD can go.
 * @rcu: AH address vectors are freed after a grace period
 */
struct irn_av {
	u8			family;
	struct in6_addr		saddr;
	struct in6_addr		daddr;
	u8			ttl;
	u8			tos;
	u32			flow_label;
	__be16			sport;
	struct dst_cache	dst_cache;
	u32			npaths;
	struct irn_av_path	*paths;
	const struct ib_pd	*pd;
	struct rcu_head		rcu;
};

/**
 * struct irn_ah - an address handle
 * @ib_ah: the RDMA core's AH; must stay first
 * @av: where it points; read under rcu_read_lock() by the requester
 * @ah_num: index user space names it by in UD work requests
 */
struct irn_ah {
	struct ib_ah		ib_ah;
	struct irn_av		*av;
	u32			ah_num;
};

static inline struct irn_ah *to_irn_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct irn_ah, ib_ah);
}

int irn_av_init(struct irn_av *av, const struct rdma_ah_attr *attr,
		u32 lqpn, u32 rqpn, gfp_t gfp);
int irn_av_init_paths(struct irn_av *av, u32 n, gfp_t gfp);
void irn_av_cleanup(struct irn_av *av);
void irn_av_free(struct irn_av *av);

int irn_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int irn_ah_destroy(struct ib_ah *ibah, u32 flags);
struct irn_av *irn_ah_lookup(struct irn_dev *dev, u32 ah_num,
			     const struct ib_pd *pd);

#endif /* _IRN_AV_H */
