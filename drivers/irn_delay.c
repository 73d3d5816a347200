// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Delay-based congestion window (after Swift, Kumar et al., SIGCOMM 2020,
 * section 3).
 *
 * Each RTT sample is compared with a target: the base RTT (the path
 * without queues) plus the queueing delay allowed.  What is compared is
 * the standing RTT, the smallest sample of the last half to whole round
 * trip (Copa's RTTstanding, Arun and Balakrishnan, NSDI 2018): a queue
 * lasts, a late packet does not, and a software host's jitter (a vCPU
 * descheduled for milliseconds) would otherwise read as congestion once
 * a round trip, whatever the target.  The base RTT is the smallest
 * standing RTT of the last while, not the smallest sample: the luckiest
 * of thousands of samples sits below what a few samples' minimum ever
 * reaches on a jittery host, by more than the target.
 * Below the target the window grows by AI packets a round trip; above
 * it, it shrinks in proportion to how far above, at most once a round
 * trip and by at most MAX_MDF:
 *
 *   rtt <= target: cwnd += AI * acked / cwnd   (cwnd >= 1)
 *                  cwnd += AI * acked          (cwnd < 1)
 *   rtt >  target: cwnd *= 1 - min(BETA * (rtt - target) / rtt, MAX_MDF)
 *   loss:          cwnd *= 1 - MAX_MDF
 *
 * Each acknowledged packet counts once in "acked", whether or not its
 * acknowledgment brought a sample; one that did not is judged as the
 * latest sample was, for the increase only (irn_delay_on_ack_unsampled()).
 *
 * A window under one packet is kept by pacing: one packet every
 * srtt / cwnd.  The base RTT comes from the samples themselves, so a
 * path that is merely long (or a software peer that is merely slow) is
 * not taken for a congested one; the standing RTT, not the target,
 * absorbs the jitter of a software path.
 */

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "irn_delay.h"

/* RTT samples beyond this (three days) are taken as this. */
#define RTT_CLAMP_NS	BIT_ULL(48)

/**
 * irn_delay_params_default() - the delay controller's default parameters
 * @p: filled in
 *
 * Swift's gains (AI one packet a round trip, BETA 0.8, MAX_MDF 0.5); a
 * target a millisecond above the base RTT, which QEMU TCG's jitter needs
 * (a hardware path would use tens of microseconds); the base RTT
 * forgotten after 10 to 20 s.  The window stays at a packet or more:
 * Swift's windows of a fraction of a packet serve incasts of thousands
 * of flows, and paced that slowly a QP's packets outlive its
 * retransmission timer.
 *
 * Context: any.
 */
void irn_delay_params_default(struct irn_delay_params *p)
{
	p->target_ns = 1000 * NSEC_PER_USEC;
	p->ai = IRN_DELAY_ONE;
	p->beta = 819;
	p->max_mdf = 512;
	p->min_cwnd = IRN_DELAY_ONE;
	p->base_window_ns = 10 * NSEC_PER_SEC;
	p->burst_pkts = 4;
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_params_default);

/**
 * irn_delay_params_valid() - whether parameters make a working controller
 * @p: parameters
 *
 * Context: any.
 * Return: true if the gains are fractions, a decrease leaves something,
 * the smallest window is at most a packet, the burst allowance at most
 * 64 packets and the target no more than an RTT sample can be.
 */
bool irn_delay_params_valid(const struct irn_delay_params *p)
{
	return p->ai && p->ai <= 64 * IRN_DELAY_ONE &&
	       p->beta <= IRN_DELAY_ONE && p->max_mdf < IRN_DELAY_ONE &&
	       p->min_cwnd && p->min_cwnd <= IRN_DELAY_ONE &&
	       p->base_window_ns >= NSEC_PER_MSEC && p->burst_pkts <= 64 &&
	       p->target_ns <= RTT_CLAMP_NS;
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_params_valid);

/**
 * irn_delay_init() - a QP starts with its whole window
 * @d: state
 * @cap_pkts: the QP's cap on packets in flight, the window's ceiling
 * @now_ns: the time
 *
 * Context: any.
 */
void irn_delay_init(struct irn_delay *d, u32 cap_pkts, u64 now_ns)
{
	d->max_cwnd = max(cap_pkts, 1U) * IRN_DELAY_ONE;
	d->cwnd = d->max_cwnd;
	d->base_ns = 0;
	d->next_base_ns = 0;
	d->base_at = now_ns;
	d->stand_ns = 0;
	d->prev_stand_ns = 0;
	d->stand_at = now_ns;
	d->spacing_ns = 0;
	d->judged_ns = 0;
	d->decreased_at = 0;
	d->decreases = 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_init);

/**
 * irn_delay_target_ns() - the RTT above which the window shrinks
 * @d: state
 * @p: parameters
 *
 * The allowed queueing delay is target_ns, or burst_pkts packets at the
 * QP's rate if that is longer, up to IRN_DELAY_BURST_TARGETS targets: a
 * window sender's packets leave in bursts (on a software host more than
 * anywhere), and a burst of a few packets queues for a few packets' time
 * whatever the rate.  At 10 Mbit/s a kilobyte packet takes 0.8 ms, and a
 * millisecond's target would read a QP's own second packet as
 * congestion; on a fast path with a window of more than a few packets
 * the term is far below target_ns.  The QP's rate comes from srtt, which
 * holds the queue too, so under a few packets the allowance would grow
 * with the queue it allows: the bound keeps it finite.
 *
 * Context: any.
 * Return: base RTT plus the allowed queueing delay.
 */
u64 irn_delay_target_ns(const struct irn_delay *d,
			const struct irn_delay_params *p)
{
	u64 burst = min(p->burst_pkts * d->spacing_ns,
			IRN_DELAY_BURST_TARGETS * p->target_ns);

	return d->base_ns + max(p->target_ns, burst);
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_target_ns);

/* The base RTT: the smallest standing RTT of this period and the last. */
static void filter_base(struct irn_delay *d, const struct irn_delay_params *p,
			u64 rtt_ns, u64 now_ns)
{
	if (!d->base_ns || rtt_ns < d->base_ns)
		d->base_ns = rtt_ns;
	if (!d->next_base_ns || rtt_ns < d->next_base_ns)
		d->next_base_ns = rtt_ns;
	if (now_ns >= d->base_at && now_ns - d->base_at >= p->base_window_ns) {
		d->base_ns = d->next_base_ns;
		d->next_base_ns = 0;
		d->base_at = now_ns;
	}
}

/*
 * The standing RTT: the smallest sample of the half round trip in
 * progress and of the one before, if that ended less than half a round
 * trip ago.  Before the first srtt every sample stands alone.
 */
static u64 standing(struct irn_delay *d, u64 rtt_ns, u64 srtt_ns,
		    u64 now_ns)
{
	u64 half = srtt_ns / 2, age;

	age = now_ns >= d->stand_at ? now_ns - d->stand_at : U64_MAX;
	if (!d->stand_ns || age >= half) {
		d->prev_stand_ns = age < 2 * half ? d->stand_ns : 0;
		d->stand_ns = rtt_ns;
		d->stand_at = now_ns;
	} else if (rtt_ns < d->stand_ns) {
		d->stand_ns = rtt_ns;
	}
	if (d->prev_stand_ns && d->prev_stand_ns < d->stand_ns)
		return d->prev_stand_ns;
	return d->stand_ns;
}

/*
 * At most one decrease a round trip; before the first RTT sample, one in
 * all: the timeouts of a QP that has no sample yet come back to back, and
 * would take the window down to nothing before it learnt anything.
 */
static bool may_decrease(const struct irn_delay *d, u64 srtt_ns, u64 now_ns)
{
	if (!srtt_ns)
		return !d->decreases;
	return !d->decreases ||
	       (now_ns >= d->decreased_at && now_ns - d->decreased_at >= srtt_ns);
}

static void decrease(struct irn_delay *d, const struct irn_delay_params *p,
		     u32 mdf, u64 now_ns)
{
	u32 w = (u64)d->cwnd * (IRN_DELAY_ONE - mdf) / IRN_DELAY_ONE;

	d->cwnd = max(w, p->min_cwnd);
	d->decreased_at = now_ns;
	d->decreases++;
}

/* AI for each window's worth of @pkts acknowledged, up to the ceiling. */
static void increase(struct irn_delay *d, const struct irn_delay_params *p,
		     u32 pkts)
{
	u64 w;

	pkts = min(pkts, 65536U);
	if (d->cwnd >= IRN_DELAY_ONE)
		w = d->cwnd + div_u64((u64)p->ai * pkts * IRN_DELAY_ONE,
				      d->cwnd);
	else
		w = d->cwnd + (u64)p->ai * pkts;
	d->cwnd = min_t(u64, w, d->max_cwnd);
}

/**
 * irn_delay_on_ack() - packets were acknowledged, with an RTT sample
 * @d: state
 * @p: parameters
 * @pkts: how many; 0 when the sample comes without news of packets,
 *	  which then only filters the base RTT and may shrink the window
 * @rtt_ns: an RTT sample, 0 for none (nothing changes then)
 * @srtt_ns: the round trip: the spacing of decreases, the standing RTT's
 *	     window and the burst allowance's packet spacing (the owner's
 *	     smoothed RTT; a QP spraying over paths of different lengths
 *	     gives its longest path's)
 * @now_ns: the time
 *
 * Context: under the owner's lock.
 */
void irn_delay_on_ack(struct irn_delay *d, const struct irn_delay_params *p,
		      u32 pkts, u64 rtt_ns, u64 srtt_ns, u64 now_ns)
{
	u64 target, mdf;

	if (!rtt_ns)
		return;
	rtt_ns = min(rtt_ns, RTT_CLAMP_NS);
	rtt_ns = standing(d, rtt_ns, srtt_ns, now_ns);
	d->judged_ns = rtt_ns;
	filter_base(d, p, rtt_ns, now_ns);
	d->spacing_ns = min(div_u64(min(srtt_ns, RTT_CLAMP_NS) * IRN_DELAY_ONE,
				    max(d->cwnd, 1U)), RTT_CLAMP_NS);
	target = irn_delay_target_ns(d, p);
	if (rtt_ns <= target) {
		increase(d, p, pkts);
		return;
	}
	if (!may_decrease(d, srtt_ns, now_ns))
		return;
	mdf = div64_u64(p->beta * (rtt_ns - target), rtt_ns);
	decrease(d, p, min_t(u64, mdf, p->max_mdf), now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_on_ack);

/**
 * irn_delay_on_ack_unsampled() - packets were acknowledged, without a sample
 * @d: state
 * @p: parameters
 * @pkts: how many
 *
 * Acknowledgments of resent packets (Karn's rule), and of packets whose
 * acknowledgment came back on another path, still report packets
 * delivered.  They grow the window as the latest sample was judged: by
 * the standing RTT it gave (@d->judged_ns), by AI for each window's
 * worth of them if that was at or below the target.  A sample's jitter
 * grows the window for its own packets; it holds back no others.  They
 * never shrink it: a standing RTT above the target was acted on when it
 * came, and taking it again would cut the window on no new evidence.
 * Nor do they move the base RTT, which fresh samples alone filter.
 * Before the first sample they change nothing.
 *
 * Context: under the owner's lock.
 */
void irn_delay_on_ack_unsampled(struct irn_delay *d,
				const struct irn_delay_params *p, u32 pkts)
{
	if (!d->judged_ns || !pkts ||
	    d->judged_ns > irn_delay_target_ns(d, p))
		return;
	increase(d, p, pkts);
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_on_ack_unsampled);

/**
 * irn_delay_on_loss() - the sender decided a packet was lost
 * @d: state
 * @p: parameters
 * @srtt_ns: the round trip, the spacing of decreases (irn_delay_on_ack())
 * @now_ns: the time
 *
 * Context: under the owner's lock.
 */
void irn_delay_on_loss(struct irn_delay *d, const struct irn_delay_params *p,
		       u64 srtt_ns, u64 now_ns)
{
	if (may_decrease(d, srtt_ns, now_ns))
		decrease(d, p, p->max_mdf, now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_delay_on_loss);
