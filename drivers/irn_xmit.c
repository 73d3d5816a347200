// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Building and sending RoCEv2 packets.
 *
 * A packet is allocated with room for the link, IP and UDP headers in
 * front; the engines fill the BTH, extended headers and payload; irn_xmit()
 * routes it (through the address vector's route cache), pushes UDP and IP
 * headers, computes the ICRC over the final IP header and hands it to
 * ip_local_out() or ip6_local_out().  Routing and output are the device's
 * network namespace's (irn_dev.net), whichever process or kernel consumer
 * posted the work.
 *
 * A QP that sprays its requests (irn_path.h) sends each from one of its
 * paths' source ports, with that path's route cache, the route looked up
 * with the path's UDP ports.  The host does not spread the paths: every
 * lookup is bound to the device's netdev (flowi4_oif, flowi6_oif), and
 * for such a lookup the kernel takes the first next hop on that netdev
 * without the multipath hash (fib_select_path(), fib6_select_path()), so
 * a multipath route sends every path the same way.  The spreading is
 * done past the netdev by whatever hashes the UDP source port: the
 * switches' ECMP, or a bond with xmit_hash_policy layer3+4 as in the
 * two-cable test bed.  Everything else goes from the address vector's
 * own port, its route looked up without ports.
 *
 * The ICRC covers the UDP source port (only the UDP checksum is masked
 * there, irn_icrc.c), so it is computed after push_udp() has written the
 * path's port: each packet's ICRC is that of its own path.  The IPv6 flow
 * label is the address vector's on every path (push_ip6()): a switch that
 * hashes the flow label instead of the ports sees one flow.
 *
 * Packets between two addresses of the same host go through the loopback
 * device of the namespace like any local traffic and come back in through
 * the namespace's UDP port; the receive side finds the device from the
 * destination address.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/lockdep.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dst_cache.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>

#include "irn_av.h"
#include "irn_dev.h"
#include "irn_hdr.h"
#include "irn_icrc.h"
#include "irn_path.h"
#include "irn_xmit.h"

#define IRN_XMIT_HEADROOM	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/**
 * irn_xmit_alloc() - allocate a packet
 * @dev: device
 * @len: BTH, extended headers, payload and pad; the ICRC is added here
 * @gfp: allocation flags
 *
 * The headroom fits IPv4 and IPv6: the destination is chosen when the
 * packet is sent (a QP's address vector can change in between).
 *
 * Context: any; sleeps only if @gfp allows.
 * Return: a linear skb whose data (@len + ICRC bytes) starts at the BTH,
 * or NULL.
 */
struct sk_buff *irn_xmit_alloc(struct irn_dev *dev, unsigned int len,
			       gfp_t gfp)
{
	unsigned int headroom = LL_RESERVED_SPACE(dev->ndev) +
				IRN_XMIT_HEADROOM;
	struct sk_buff *skb;

	skb = alloc_skb(headroom + len + IRN_ICRC_LEN +
			dev->ndev->needed_tailroom, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	skb_put(skb, len + IRN_ICRC_LEN);
	return skb;
}

/**
 * struct xmit_path - where a packet leaves from
 * @sport: its UDP source port, network order
 * @cache: the route cache to use
 * @ports: look the route up with the UDP ports (a path of a QP that
 *	   sprays); without them, as for any unsprayed packet
 */
struct xmit_path {
	__be16			sport;
	struct dst_cache	*cache;
	bool			ports;
};

static struct dst_entry *route4(struct irn_dev *dev,
				const struct xmit_path *xp,
				__be32 saddr, __be32 daddr)
{
	struct dst_entry *dst;
	struct flowi4 fl = {
		.flowi4_oif	= dev->ndev->ifindex,
		.flowi4_proto	= IPPROTO_UDP,
		.saddr		= saddr,
		.daddr		= daddr,
	};
	struct rtable *rt;

	/* dst_cache's per-CPU slot: bottom halves off (irn_xmit()) */
	lockdep_assert_in_softirq();
	dst = dst_cache_get(xp->cache);
	if (dst)
		return dst;
	if (xp->ports) {
		fl.fl4_sport = xp->sport;
		fl.fl4_dport = htons(ROCE_V2_UDP_DPORT);
	}
	rt = ip_route_output_key(dev->net, &fl);
	if (IS_ERR(rt))
		return NULL;
	dst_cache_set_ip4(xp->cache, &rt->dst, saddr);
	return &rt->dst;
}

static struct dst_entry *route6(struct irn_dev *dev,
				const struct xmit_path *xp,
				const struct irn_av *av)
{
	struct dst_entry *dst;
	struct flowi6 fl = {
		.flowi6_oif	= dev->ndev->ifindex,
		.flowi6_proto	= IPPROTO_UDP,
		.saddr		= av->saddr,
		.daddr		= av->daddr,
	};

	/* dst_cache's per-CPU slot: bottom halves off (irn_xmit()) */
	lockdep_assert_in_softirq();
	dst = dst_cache_get(xp->cache);
	if (dst)
		return dst;
	if (xp->ports) {
		fl.fl6_sport = xp->sport;
		fl.fl6_dport = htons(ROCE_V2_UDP_DPORT);
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(dev->net, NULL, &fl, NULL);
	if (IS_ERR(dst))
		return NULL;
	dst_cache_set_ip6(xp->cache, dst, &av->saddr);
	return dst;
}

/*
 * The route to @av in the device's namespace, or NULL.  A netdev that has
 * moved to another namespace took its device down (NETDEV_UNREGISTER); the
 * device sends nothing until it is gone, since its netdev's interface
 * index may name another netdev of dev->net by now.
 */
static struct dst_entry *route(struct irn_dev *dev, const struct irn_av *av,
			       const struct xmit_path *xp)
{
	struct dst_entry *dst;

	if (unlikely(!net_eq(dev_net(dev->ndev), dev->net)))
		return NULL;
	local_bh_disable();
	if (av->family == AF_INET)
		dst = route4(dev, xp, av->saddr.s6_addr32[3],
			     av->daddr.s6_addr32[3]);
	else
		dst = route6(dev, xp, av);
	local_bh_enable();
	return dst;
}

static void push_udp(struct sk_buff *skb, __be16 sport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = sport;
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	/* RoCEv2 sends no UDP checksum: the ICRC covers the packet. */
	uh->check = 0;
}

static void push_ip4(struct net *net, struct sk_buff *skb,
		     const struct irn_av *av, u8 tos)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.s6_addr32[3];
	iph->daddr = av->daddr.s6_addr32[3];
	__ip_select_ident(net, iph, 1);
	iph->check = 0;
}

static void push_ip6(struct sk_buff *skb, const struct irn_av *av, u8 tos)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->ttl;
	ip6h->saddr = av->saddr;
	ip6h->daddr = av->daddr;
}

/**
 * irn_xmit_path() - send a packet on one of a QP's paths
 * @dev: device
 * @av: destination; its route cache is updated
 * @skb: from irn_xmit_alloc(), transport headers and payload filled;
 *	 consumed
 * @tos: the IP header's traffic class: @av's, or with its ECN field set
 *	 (ECN-capable data, CNPs at their own DSCP); the ICRC does not
 *	 cover it
 * @path: the path (irn_flow_path_pick()), below @av->npaths; anything
 *	  else, IRN_PATH_NONE among them, sends from @av's own port as
 *	  irn_xmit() does
 *
 * The requester sends from process context and the responder from
 * softirq, both through a QP's one address vector: the route cache's
 * per-CPU slot is used with bottom halves disabled, as dst_cache wants.
 *
 * Context: process or softirq context, under rcu_read_lock() if @av is a
 * QP's or an AH's (irn_av_free()).
 * Return: 0, or a negative errno if the packet was dropped locally (the
 * transport recovers it like a loss).
 */
int irn_xmit_path(struct irn_dev *dev, struct irn_av *av, struct sk_buff *skb,
		  u8 tos, u32 path)
{
	struct xmit_path xp = {
		.sport = av->sport,
		.cache = &av->dst_cache,
	};
	struct dst_entry *dst;
	int err;

	if (path < av->npaths) {
		xp.sport = av->paths[path].sport;
		xp.cache = &av->paths[path].dst_cache;
		xp.ports = true;
	}
	dst = route(dev, av, &xp);
	skb->protocol = av->family == AF_INET ? htons(ETH_P_IP) :
						htons(ETH_P_IPV6);
	if (!dst) {
		irn_dev_count(dev, IRN_CNT_SEND_DROPPED);
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	skb_dst_set(skb, dst);
	skb->dev = dst->dev;

	push_udp(skb, xp.sport);
	if (av->family == AF_INET)
		push_ip4(dev->net, skb, av, tos);
	else
		push_ip6(skb, av, tos);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	/* After push_udp(): the ICRC covers the path's source port. */
	irn_icrc_fill(skb);

	irn_dev_count(dev, IRN_CNT_SENT_PKTS);
	if (av->family == AF_INET)
		err = ip_local_out(dev->net, skb->sk, skb);
	else
		err = ip6_local_out(dev->net, skb->sk, skb);
	if (!net_xmit_eval(err))
		return 0;
	irn_dev_count(dev, IRN_CNT_SEND_DROPPED);
	return -EAGAIN;
}

/**
 * irn_xmit() - send a packet from the address vector's own port
 * @dev: device
 * @av: destination; its route cache is updated
 * @skb: from irn_xmit_alloc(), transport headers and payload filled;
 *	 consumed
 * @tos: the IP header's traffic class (irn_xmit_path())
 *
 * Context: as irn_xmit_path().
 * Return: as irn_xmit_path().
 */
int irn_xmit(struct irn_dev *dev, struct irn_av *av, struct sk_buff *skb,
	     u8 tos)
{
	return irn_xmit_path(dev, av, skb, tos, IRN_PATH_NONE);
}
