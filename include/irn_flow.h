/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Flow interface: how much a QP may have in flight, and when it may send.
 *
 * The engines ask and report through these few calls only, so that
 * congestion control (ECN/CNP, delay based) and multipath can replace the
 * policy without touching them:
 *
 *  - irn_flow_window(): packets the requester may have in flight;
 *  - irn_flow_window_open(): may it send one more now;
 *  - irn_flow_next_send(): earliest time for the next packet (pacing);
 *  - irn_flow_on_ack(): packets newly acknowledged, with an RTT sample;
 *  - irn_flow_on_loss(): the completer decided a packet was lost;
 *  - irn_flow_on_spurious(): ... and it was not;
 *  - irn_flow_on_spurious_rto(): a timeout fired before the ACK was due;
 *  - irn_flow_on_reorder(): the path was seen to reorder.
 *
 * The default policy is IRN's BDP-FC: a fixed cap on packets in flight and
 * no pacing.  The RTT estimate (RFC 6298 smoothing) lives here too, since
 * congestion control needs it as much as the retransmission timer does.
 */
#ifndef _IRN_FLOW_H
#define _IRN_FLOW_H

#include <linux/ktime.h>
#include <linux/types.h>

#define IRN_FLOW_DEFAULT_CAP	128

/**
 * struct irn_flow - flow state of one QP
 * @cap: packets allowed in flight
 * @srtt_ns: smoothed RTT, 0 before the first sample
 * @rttvar_ns: RTT variation
 * @reo_q: reordering window, in quarters of @srtt_ns
 * @reo_calm: loss episodes since the window last grew
 * @reo_grown: the window grew in the current loss episode
 * @reord: the path was seen to reorder; until then loss detection does
 *	   not wait a reordering window (RACK's reord flag, RFC 8985 6.2)
 */
struct irn_flow {
	u32	cap;
	u64	srtt_ns;
	u64	rttvar_ns;
	u32	reo_q;
	u32	reo_calm;
	bool	reo_grown;
	bool	reord;
};

/* Reordering window: 1.25 srtt, up to 2 srtt after spurious resends. */
#define IRN_FLOW_REO_MIN_Q	5
#define IRN_FLOW_REO_MAX_Q	8

void irn_flow_init(struct irn_flow *f, u32 cap);
u32 irn_flow_window(const struct irn_flow *f);
bool irn_flow_window_open(const struct irn_flow *f, u32 pipe, u32 span,
			  u32 span_max);
ktime_t irn_flow_next_send(const struct irn_flow *f);
void irn_flow_on_ack(struct irn_flow *f, u32 pkts, u64 rtt_ns);
void irn_flow_on_loss(struct irn_flow *f);
void irn_flow_on_spurious(struct irn_flow *f, u32 n);
void irn_flow_on_spurious_rto(struct irn_flow *f, u64 rto_ns, u64 since_ns);
void irn_flow_on_reorder(struct irn_flow *f);
u64 irn_flow_rto_ns(const struct irn_flow *f, u64 floor_ns, u64 ceil_ns);

/* IRN's short timeout applies with this many packets in flight or fewer. */
#define IRN_FLOW_RTO_LOW_PKTS	3

u64 irn_flow_reorder_ns(const struct irn_flow *f);
u64 irn_flow_irn_rto_ns(const struct irn_flow *f, u32 inflight,
			u64 low_floor_ns, u64 high_floor_ns, u64 ib_t_ns);

#endif /* _IRN_FLOW_H */
