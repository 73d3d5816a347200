/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Delay-based congestion window, in the spirit of Swift (Kumar et al.,
 * SIGCOMM 2020): the round trips the sender measures anyway say whether
 * a queue builds up, so nothing is needed from the switch.  Pure
 * arithmetic on explicit times, like irn_dcqcn.h; irn_flow.c feeds it.
 */
#ifndef _IRN_DELAY_H
#define _IRN_DELAY_H

#include <linux/types.h>

/* Windows and fractions are in units of 1/IRN_DELAY_ONE (of a packet). */
#define IRN_DELAY_ONE	1024U
/* The burst allowance is at most this many targets (irn_delay_target_ns()). */
#define IRN_DELAY_BURST_TARGETS	8

/**
 * struct irn_delay_params - delay controller parameters
 * @target_ns: queueing delay allowed above the base RTT; also what keeps
 *	       the jitter of a software path from reading as congestion
 * @ai: additive increase per round trip, in 1/1024 packets
 * @beta: gain of the decrease, in 1/1024
 * @max_mdf: largest decrease in one round trip, in 1/1024
 * @min_cwnd: smallest window, in 1/1024 packets; below one packet the
 *	      sender paces one packet per srtt / window
 * @base_window_ns: the base RTT is the smallest standing RTT of the last
 *		    one or two such periods, so that it follows a path
 *		    that became longer
 * @burst_pkts: the queue always allowed, in packets at the QP's own
 *		rate (srtt / cwnd each): what a window's bursts queue at any
 *		rate, which @target_ns alone does not cover on a slow path
 */
struct irn_delay_params {
	u64	target_ns;
	u32	ai;
	u32	beta;
	u32	max_mdf;
	u32	min_cwnd;
	u64	base_window_ns;
	u32	burst_pkts;
};

/**
 * struct irn_delay - delay controller state of one QP
 * @cwnd: congestion window, in 1/1024 packets
 * @max_cwnd: the window's ceiling, in 1/1024 packets (the QP's cap)
 * @base_ns: base RTT, 0 before the first sample
 * @next_base_ns: smallest standing RTT of the filter period in progress
 * @base_at: start of that period
 * @stand_ns: smallest sample since @stand_at, 0 for none
 * @prev_stand_ns: smallest sample of the half round trip before, 0 if
 *		   none or too old
 * @stand_at: start of the half round trip in progress
 * @spacing_ns: srtt / cwnd at the last sample: a packet's time at the
 *		QP's rate
 * @judged_ns: the standing RTT the last sample was judged by
 * @decreased_at: time of the last decrease, 0 for none
 * @decreases: how many
 */
struct irn_delay {
	u32	cwnd;
	u32	max_cwnd;
	u64	base_ns;
	u64	next_base_ns;
	u64	base_at;
	u64	stand_ns;
	u64	prev_stand_ns;
	u64	stand_at;
	u64	spacing_ns;
	u64	judged_ns;
	u64	decreased_at;
	u64	decreases;
};

void irn_delay_params_default(struct irn_delay_params *p);
bool irn_delay_params_valid(const struct irn_delay_params *p);
void irn_delay_init(struct irn_delay *d, u32 cap_pkts, u64 now_ns);
u64 irn_delay_target_ns(const struct irn_delay *d,
			const struct irn_delay_params *p);
void irn_delay_on_ack(struct irn_delay *d, const struct irn_delay_params *p,
		      u32 pkts, u64 rtt_ns, u64 srtt_ns, u64 now_ns);
void irn_delay_on_ack_unsampled(struct irn_delay *d,
				const struct irn_delay_params *p, u32 pkts);
void irn_delay_on_loss(struct irn_delay *d, const struct irn_delay_params *p,
		       u64 srtt_ns, u64 now_ns);

#endif /* _IRN_DELAY_H */
