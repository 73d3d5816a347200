// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receive: everything that arrives on UDP port 4791 is hostile until proven
 * otherwise.  Each check below either passes the packet on or drops it and
 * bumps the counter that names the reason, so an operator can tell from
 * `rdma statistic` what a peer or an attacker is sending.
 *
 * Order of the checks: lengths and BTH (cheap, no state), destination GID,
 * ICRC (touches every byte), then the QP: it must exist, be of the
 * packet's transport class, be able to receive, and (for connected QPs)
 * be connected to the sender.  Then requests go to the QP's responder and
 * responses to its completer; a request or response marked CE makes the QP send a CNP
 * (irn_cnp.c), and a CNP goes to the QP's flow (irn_flow_on_cnp()).
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "irn_cnp.h"
#include "irn_counters.h"
#include "irn_dev.h"
#include "irn_hdr.h"
#include "irn_icrc.h"
#include "irn_engine.h"
#include "irn_mcast.h"
#include "irn_qp.h"
#include "irn_recv.h"

static const enum irn_counter verdict_counter[] = {
	[IRN_RX_TRUNCATED]	= IRN_CNT_DROP_TRUNCATED,
	[IRN_RX_BAD_VERSION]	= IRN_CNT_DROP_BAD_VERSION,
	[IRN_RX_BAD_OPCODE]	= IRN_CNT_DROP_BAD_OPCODE,
	[IRN_RX_BAD_LENGTH]	= IRN_CNT_DROP_BAD_LENGTH,
	[IRN_RX_BAD_EXT]	= IRN_CNT_DROP_BAD_HEADER,
};

/* Network header checks the IP layer leaves to us: RoCEv2 has no options. */
static bool ip_hdr_ok(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->ihl == 5;
	return skb->protocol == htons(ETH_P_IPV6) &&
	       ipv6_hdr(skb)->nexthdr == IPPROTO_UDP;
}

/* The destination must be one of our GIDs, or a multicast group. */
static bool dgid_ok(struct irn_dev *dev, const struct sk_buff *skb)
{
	const struct ib_gid_attr *attr;
	union ib_gid dgid;

	if (skb->protocol == htons(ETH_P_IP)) {
		if (ipv4_is_multicast(ip_hdr(skb)->daddr))
			return true;
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)&dgid);
	} else {
		if (ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr))
			return true;
		memcpy(&dgid, &ipv6_hdr(skb)->daddr, sizeof(dgid));
	}
	attr = rdma_find_gid_by_port(&dev->ib_dev, &dgid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, IRN_PORT,
				     dev->ndev);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * Validate @skb, whose data starts at the UDP header.  On success the
 * parsed headers are in irn_skb_pkt(skb), skb->data is at the BTH and the
 * BTH and extended headers are linear.
 */
static enum irn_counter validate(struct irn_dev *dev, struct sk_buff *skb)
{
	struct irn_pkt *pkt = irn_skb_pkt(skb);
	enum irn_rx_verdict verdict;
	unsigned int hdr_len;

	if (!ip_hdr_ok(skb))
		return IRN_CNT_DROP_BAD_HEADER;
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(struct irn_bth)))
		return IRN_CNT_DROP_TRUNCATED;
	/* UDP has checked its length field against the datagram. */
	__skb_pull(skb, sizeof(struct udphdr));

	hdr_len = irn_bth_hdr_len((struct irn_bth *)skb->data);
	if (hdr_len && !pskb_may_pull(skb, min(hdr_len, skb->len)))
		return IRN_CNT_DROP_TRUNCATED;
	verdict = irn_hdr_parse(pkt, skb->data, skb->len);
	if (verdict != IRN_RX_OK)
		return verdict_counter[verdict];

	if (!dgid_ok(dev, skb))
		return IRN_CNT_DROP_BAD_DGID;
	if (!irn_icrc_valid(skb))
		return IRN_CNT_DROP_BAD_ICRC;
	return IRN_NUM_COUNTERS;
}

static bool class_matches(const struct irn_qp *qp, u8 opcode)
{
	/* A CNP names the QP whose requests it is about: an RC one. */
	if (opcode == IRN_OPCODE_CNP)
		return irn_qp_is_rc(qp);
	switch (opcode >> 5) {
	case IRN_CLASS_RC:
		return irn_qp_is_rc(qp);
	case IRN_CLASS_UC:
		return qp->ib_qp.qp_type == IB_QPT_UC;
	case IRN_CLASS_UD:
		return irn_qp_is_ud(qp);
	default:
		return false;
	}
}

/*
 * Connected QPs take packets from their peer's address only.  Called in
 * the UDP receive path, under rcu_read_lock(), which keeps the QP's
 * address vector alive.
 */
static bool source_ok(const struct irn_qp *qp, const struct sk_buff *skb)
{
	const struct irn_av *av;
	struct in6_addr saddr;

	if (irn_qp_is_ud(qp))
		return true;
	av = rcu_dereference(qp->av);
	if (!av)
		return false;
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &saddr);
	else
		saddr = ipv6_hdr(skb)->saddr;
	return ipv6_addr_equal(&saddr, &av->daddr);
}

static bool qp_takes(const struct irn_qp *qp, struct sk_buff *skb)
{
	const struct irn_pkt *pkt = irn_skb_pkt(skb);
	enum ib_qp_state state = irn_qp_state(qp);

	/* In SQE (UC and UD only) the receive queue goes on working. */
	return class_matches(qp, pkt->opcode) && source_ok(qp, skb) &&
	       (state == IB_QPS_RTR || state == IB_QPS_RTS ||
		state == IB_QPS_SQD || state == IB_QPS_SQE) &&
	       !((pkt->flags & IRN_OP_RESP) && state == IB_QPS_RTR);
}

/* The group a packet is addressed to, as a GID. */
static void skb_mgid(const struct sk_buff *skb, union ib_gid *mgid)
{
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid->raw);
	else
		memcpy(mgid->raw, &ipv6_hdr(skb)->daddr, sizeof(mgid->raw));
}

static bool skb_is_mcast(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * A UD send to the multicast QPN: a copy for every QP of the device
 * attached to the destination group.  Counted as dropped only if no QP
 * took it.
 */
static enum irn_counter dispatch_mcast(struct irn_dev *dev,
				       struct sk_buff *skb)
{
	u32 qpns[IRN_MCAST_QP_MAX];
	struct sk_buff *copy;
	unsigned int i, n;
	union ib_gid mgid;
	struct irn_qp *qp;
	bool taken = false;

	if (!skb_is_mcast(skb) ||
	    (irn_skb_pkt(skb)->opcode >> 5) != IRN_CLASS_UD)
		return IRN_CNT_DROP_BAD_QP;
	skb_mgid(skb, &mgid);
	n = irn_mcast_qpns(dev, &mgid, qpns);
	for (i = 0; i < n; i++) {
		qp = irn_qp_lookup(dev, qpns[i]);
		if (!qp)
			continue;
		if (qp_takes(qp, skb)) {
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy) {
				irn_resp_queue(qp, copy);
				taken = true;
			}
		}
		irn_qp_put(qp);
	}
	if (!taken)
		return IRN_CNT_DROP_UNKNOWN_QPN;
	consume_skb(skb);
	return IRN_NUM_COUNTERS;
}

/* The IP header says a switch marked the packet Congestion Experienced. */
static bool skb_ce(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/* A CNP for a QP that has sent: its rate, if it has one, goes down. */
static void take_cnp(struct irn_qp *qp, struct sk_buff *skb)
{
	irn_dev_count(qp->dev, IRN_CNT_CNP_RCVD);
	if (irn_flow_on_cnp(&qp->flow, ktime_get_ns()))
		irn_dev_count(qp->dev, IRN_CNT_RATE_CUTS);
	consume_skb(skb);
}

static enum irn_counter dispatch(struct irn_dev *dev, struct sk_buff *skb)
{
	struct irn_pkt *pkt = irn_skb_pkt(skb);
	struct irn_qp *qp;

	if (pkt->qpn == IB_MULTICAST_QPN)
		return dispatch_mcast(dev, skb);
	qp = irn_qp_lookup(dev, pkt->qpn);
	if (!qp)
		return IRN_CNT_DROP_UNKNOWN_QPN;
	if (!qp_takes(qp, skb)) {
		irn_qp_put(qp);
		return IRN_CNT_DROP_BAD_QP;
	}
	if (pkt->flags & IRN_OP_CNP) {
		take_cnp(qp, skb);
		irn_qp_put(qp);
		return IRN_NUM_COUNTERS;
	}
	/* Requests and read responses: the peer's data either way. */
	if (irn_qp_is_rc(qp) && pkt->flags & (IRN_OP_REQ | IRN_OP_READ) &&
	    skb_ce(skb))
		irn_cnp_notify(qp);
	if (pkt->flags & IRN_OP_REQ)
		irn_resp_queue(qp, skb);
	else
		irn_comp_queue(qp, skb);
	irn_qp_put(qp);
	return IRN_NUM_COUNTERS;
}

/**
 * irn_recv() - take a RoCEv2 packet from the UDP tunnel
 * @dev: device bound to the netdev the packet arrived on
 * @skb: the packet, data at the UDP header; consumed
 *
 * Context: softirq, from the UDP encapsulation hook.
 */
void irn_recv(struct irn_dev *dev, struct sk_buff *skb)
{
	enum irn_counter drop;

	irn_dev_count(dev, IRN_CNT_RCVD_PKTS);
	drop = validate(dev, skb);
	if (drop == IRN_NUM_COUNTERS)
		drop = dispatch(dev, skb);
	if (drop == IRN_NUM_COUNTERS)
		return;
	irn_dev_count(dev, drop);
	kfree_skb(skb);
}
