/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * DCQCN reaction point: the sending rate of one QP, cut by Congestion
 * Notification Packets and recovered by a timer and a byte counter
 * (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015).  Pure arithmetic on explicit times, so that KUnit can
 * drive it with scripted events; irn_flow.c feeds it and turns its rate
 * into pacing.
 */
#ifndef _IRN_DCQCN_H
#define _IRN_DCQCN_H

#include <linux/types.h>

/* alpha and g are fractions in units of 1/IRN_DCQCN_ONE. */
#define IRN_DCQCN_ONE		1024U

/*
 * Periods an update applies one by one at most: a QP idle for longer has
 * recovered its full rate and forgotten its congestion, whatever happened
 * in between (the additive step alone covers 20 Gbit/s in 4096 periods).
 */
#define IRN_DCQCN_MAX_STEPS	4096U

/**
 * struct irn_dcqcn_params - reaction point parameters (mlx5's names)
 * @max_kbps: the rate a QP starts at and never exceeds (rp_max_rate)
 * @min_kbps: the rate no cut goes below (rp_min_rate)
 * @ai_kbps: additive increase step of the target rate (rp_ai_rate)
 * @hai_kbps: hyper increase step (rp_hai_rate)
 * @g: weight of a new congestion signal in alpha, in 1/1024
 * @alpha_ns: alpha decays once per this long without a CNP (K)
 * @timer_ns: rate increase timer period (rp_time_reset, T)
 * @bytes: rate increase byte counter period (rp_byte_reset, B)
 * @threshold: increase events of fast recovery (rp_threshold, F)
 * @min_dec_pct: a cut keeps at least this percentage of the current
 *		 rate (rp_min_dec_fac)
 * @cut_ns: a CNP within this long of the last cut is ignored
 *	    (rp_rate_reduce_monitor_period); 0: every CNP cuts
 */
struct irn_dcqcn_params {
	u32	max_kbps;
	u32	min_kbps;
	u32	ai_kbps;
	u32	hai_kbps;
	u32	g;
	u64	alpha_ns;
	u64	timer_ns;
	u32	bytes;
	u32	threshold;
	u32	min_dec_pct;
	u64	cut_ns;
};

/**
 * struct irn_dcqcn - reaction point state of one QP
 * @rc_kbps: current rate
 * @rt_kbps: target rate, what the rate recovers towards
 * @alpha: congestion estimate, in 1/1024
 * @alpha_at: start of the current alpha period
 * @timer_at: start of the current rate increase timer period
 * @byte_acc: bytes sent in the current byte counter period
 * @timer_count: timer periods since the last cut
 * @byte_count: byte counter periods since the last cut
 * @cut_at: the time of the last cut, if @cuts
 * @cuts: CNPs that cut the rate
 */
struct irn_dcqcn {
	u32	rc_kbps;
	u32	rt_kbps;
	u32	alpha;
	u64	alpha_at;
	u64	timer_at;
	u32	byte_acc;
	u32	timer_count;
	u32	byte_count;
	u64	cut_at;
	u64	cuts;
};

void irn_dcqcn_params_default(struct irn_dcqcn_params *p);
bool irn_dcqcn_params_valid(const struct irn_dcqcn_params *p);
void irn_dcqcn_init(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		    u64 now_ns);
void irn_dcqcn_advance(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		       u64 now_ns);
bool irn_dcqcn_on_cnp(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		      u64 now_ns);
void irn_dcqcn_on_sent(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		       u32 bytes);

#endif /* _IRN_DCQCN_H */
