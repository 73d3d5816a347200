// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Congestion Notification Packets (RoCEv2, IBTA annex A17): the
 * notification point of DCQCN.
 *
 * A request or read response that arrives marked CE (a switch's queue was
 * filling) is answered with a CNP to the QP that sent it: at most one per QP every
 * cnp_interval_us, at DSCP cnp_dscp, whatever congestion control this
 * QP runs itself.  What the sender makes of it is its own affair
 * (irn_flow_on_cnp(): DCQCN cuts its rate; stock rxe drops it).  A peer
 * gets no CNP unless its packets said they were ECN-capable, since a
 * switch only marks those, so plain RoCEv2 peers never see one.
 */

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <net/inet_ecn.h>
#include <rdma/ib_mad.h>

#include "irn_cnp.h"
#include "irn_counters.h"
#include "irn_dev.h"
#include "irn_hdr.h"
#include "irn_qp.h"
#include "irn_xmit.h"

/* Claim the QP's next CNP: false if one went less than an interval ago. */
static bool cnp_due(struct irn_qp *qp, u64 now_ns)
{
	u64 gap = (u64)READ_ONCE(qp->dev->tun.cnp_interval_us) * NSEC_PER_USEC;
	s64 last = atomic64_read(&qp->resp.cnp_ns);

	if (last && now_ns - last < gap)
		return false;
	/* Another CPU's packet of the same QP may have claimed it. */
	return atomic64_cmpxchg(&qp->resp.cnp_ns, last, now_ns) == last;
}

/**
 * irn_cnp_notify() - a request or response for @qp arrived marked CE
 * @qp: the RC QP it was addressed to, connected to its sender
 *
 * Context: softirq, the receive path, holding a reference on @qp.
 */
void irn_cnp_notify(struct irn_qp *qp)
{
	struct irn_bth_fields f = {
		.opcode = IRN_OPCODE_CNP,
		.becn = true,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = qp->dest_qpn,
	};
	struct irn_dev *dev = qp->dev;
	struct sk_buff *skb;
	struct irn_av *av;
	u8 tos;

	irn_dev_count(dev, IRN_CNT_ECN_MARKED);
	if (!cnp_due(qp, ktime_get_ns()))
		return;
	skb = irn_xmit_alloc(dev, sizeof(struct irn_bth) + IRN_CNP_RSVD_LEN,
			     GFP_ATOMIC);
	if (!skb)
		return;
	irn_bth_encode((struct irn_bth *)skb->data, &f);
	memset(skb->data + sizeof(struct irn_bth), 0, IRN_CNP_RSVD_LEN);
	tos = (READ_ONCE(dev->tun.cnp_dscp) & 0x3f) << 2 | INET_ECN_ECT_0;
	rcu_read_lock();
	av = rcu_dereference(qp->av);
	if (av && !irn_xmit(dev, av, skb, tos))
		irn_dev_count(dev, IRN_CNT_CNP_SENT);
	else if (!av)
		kfree_skb(skb);
	rcu_read_unlock();
}
