// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Flow policy: a fixed cap on packets in flight (IRN's BDP-FC), narrowed
 * by the QP's congestion control if it has one (a paced rate or a smaller
 * window), an RTT estimate for the retransmission timer, and the path
 * (UDP source port) of each packet when the QP sprays (irn_path.c).
 */

#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <kunit/visibility.h>
#include <net/inet_ecn.h>

#include "irn_counters.h"
#include "irn_flow.h"
#include "irn_rtt.h"
#include "irn_trace.h"

/**
 * irn_flow_init() - start a QP's flow state
 * @f: flow state
 * @cap: packets allowed in flight; 0 picks the default
 *
 * The path set is left alone: irn_flow_path_init() starts it.
 *
 * Context: any.
 */
void irn_flow_init(struct irn_flow *f, u32 cap)
{
	f->cap = cap ?: IRN_FLOW_DEFAULT_CAP;
	f->srtt_ns = 0;
	f->rttvar_ns = 0;
	minmax_reset(&f->rtt_max, jiffies, 0);
	f->reo_q = IRN_FLOW_REO_MIN_Q;
	f->reo_calm = 0;
	f->reo_grown = false;
	f->reord = false;
	f->algo = IRN_CC_NONE;
	spin_lock_init(&f->cc_lock);
	f->next_ns = 0;
	f->asked_ns = 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_init);

/**
 * irn_flow_cc_start() - give a QP its congestion control
 * @f: flow state, initialised
 * @cfg: the device's choice and parameters
 * @qpn: the QP's number
 * @now_ns: the time
 *
 * Parameters that would not make a working controller (debugfs takes any
 * number) are replaced by the defaults, with a warning.
 *
 * Context: process context, before the QP sends.
 */
void irn_flow_cc_start(struct irn_flow *f, const struct irn_cc_config *cfg,
		       u32 qpn, u64 now_ns)
{
	u32 algo = READ_ONCE(cfg->algo);

	spin_lock_bh(&f->cc_lock);
	f->qpn = qpn;
	f->next_ns = 0;
	switch (algo) {
	case IRN_CC_DCQCN:
		f->dcqcn.p = cfg->dcqcn;
		if (!irn_dcqcn_params_valid(&f->dcqcn.p)) {
			pr_warn_ratelimited("DCQCN parameters out of range: using the defaults\n");
			irn_dcqcn_params_default(&f->dcqcn.p);
		}
		irn_dcqcn_init(&f->dcqcn.st, &f->dcqcn.p, now_ns);
		break;
	case IRN_CC_DELAY:
		f->delay.p = cfg->delay;
		if (!irn_delay_params_valid(&f->delay.p)) {
			pr_warn_ratelimited("delay controller parameters out of range: using the defaults\n");
			irn_delay_params_default(&f->delay.p);
		}
		irn_delay_init(&f->delay.st, f->cap, now_ns);
		break;
	default:
		algo = IRN_CC_NONE;
		break;
	}
	WRITE_ONCE(f->algo, algo);
	spin_unlock_bh(&f->cc_lock);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_cc_start);

/* DCQCN's rate and the delay window, for the tracepoint. */
static u32 cc_rate(const struct irn_flow *f)
{
	return f->algo == IRN_CC_DCQCN ? f->dcqcn.st.rc_kbps : 0;
}

static u32 cc_cwnd(const struct irn_flow *f)
{
	return f->algo == IRN_CC_DELAY ? f->delay.st.cwnd : 0;
}

/* Under cc_lock: trace a change from @rate and @cwnd. */
static void cc_moved(const struct irn_flow *f, const char *why, u32 rate,
		     u32 cwnd)
{
	if (cc_rate(f) != rate || cc_cwnd(f) != cwnd)
		trace_irn_cc(f->qpn, why, cc_rate(f), cc_cwnd(f));
}

/**
 * irn_flow_gap_ns() - time a packet takes at a rate
 * @bytes: its size
 * @kbps: the rate in kbit/s; 0 for no limit
 *
 * Context: any.
 * Return: nanoseconds.
 */
u64 irn_flow_gap_ns(u32 bytes, u32 kbps)
{
	return kbps ? div_u64((u64)bytes * 8 * NSEC_PER_MSEC, kbps) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_gap_ns);

/**
 * irn_flow_on_sent() - a packet left
 * @f: flow state
 * @bytes: its size on the wire
 * @now_ns: the time
 *
 * Moves the pacing clock on by the packet's time at the QP's rate: from
 * the previous packet's due time, or, when that is more than one such
 * time ago, from one such time ago.  A pacing timer that fires late (by
 * up to a packet's time, as a guest's timers do) costs the QP none of
 * its rate, and a pause earns at most one packet's worth of burst
 * (beyond IRN_FLOW_PACE_SLACK_NS).  DCQCN's rate is its current rate; the
 * delay controller paces only a window under one packet, one packet per
 * srtt / window.  Requests and read responses share the clock: the rate
 * is the QP's.
 *
 * Context: the requester or the responder; takes the flow's cc_lock.
 */
void irn_flow_on_sent(struct irn_flow *f, u32 bytes, u64 now_ns)
{
	u64 gap = 0;
	u32 rate;

	if (READ_ONCE(f->algo) == IRN_CC_NONE)
		return;
	spin_lock_bh(&f->cc_lock);
	switch (f->algo) {
	case IRN_CC_DCQCN:
		rate = f->dcqcn.st.rc_kbps;
		irn_dcqcn_on_sent(&f->dcqcn.st, &f->dcqcn.p, bytes);
		irn_dcqcn_advance(&f->dcqcn.st, &f->dcqcn.p, now_ns);
		cc_moved(f, "increase", rate, 0);
		gap = irn_flow_gap_ns(bytes, f->dcqcn.st.rc_kbps);
		break;
	case IRN_CC_DELAY:
		if (f->delay.st.cwnd < IRN_DELAY_ONE)
			gap = div_u64(READ_ONCE(f->srtt_ns) * IRN_DELAY_ONE,
				      f->delay.st.cwnd);
		break;
	}
	if (gap)
		gap += max(f->next_ns, now_ns - min(now_ns, gap));
	WRITE_ONCE(f->next_ns, gap);
	spin_unlock_bh(&f->cc_lock);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_sent);

/**
 * irn_flow_on_cnp() - the peer reported congestion on the QP's path
 * @f: flow state
 * @now_ns: the time
 *
 * Only DCQCN reacts, at most once per monitor period; the other
 * algorithms ignore CNPs.
 *
 * Context: the receive path.
 * Return: true if the rate was cut.
 */
bool irn_flow_on_cnp(struct irn_flow *f, u64 now_ns)
{
	bool cut;

	if (READ_ONCE(f->algo) != IRN_CC_DCQCN)
		return false;
	spin_lock_bh(&f->cc_lock);
	cut = irn_dcqcn_on_cnp(&f->dcqcn.st, &f->dcqcn.p, now_ns);
	if (cut)
		trace_irn_cc(f->qpn, "cnp", f->dcqcn.st.rc_kbps, 0);
	spin_unlock_bh(&f->cc_lock);
	return cut;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_cnp);

/**
 * irn_flow_rate_kbps() - the QP's current DCQCN rate
 * @f: flow state
 * @now_ns: the time
 *
 * Context: any.
 * Return: kbit/s; 0 when the QP is not rate controlled.
 */
u32 irn_flow_rate_kbps(struct irn_flow *f, u64 now_ns)
{
	u32 rate;

	if (READ_ONCE(f->algo) != IRN_CC_DCQCN)
		return 0;
	spin_lock_bh(&f->cc_lock);
	irn_dcqcn_advance(&f->dcqcn.st, &f->dcqcn.p, now_ns);
	rate = f->dcqcn.st.rc_kbps;
	spin_unlock_bh(&f->cc_lock);
	return rate;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_rate_kbps);

/**
 * irn_flow_tos() - traffic class of the QP's requests
 * @f: flow state
 * @tos: the address vector's
 *
 * DCQCN needs the switches to mark rather than drop: its QPs' packets
 * say they are ECN-capable (ECT(0)).  The others' go as the address
 * vector says, as stock rxe's do.
 *
 * Context: any.
 * Return: the traffic class byte for the IP header.
 */
u8 irn_flow_tos(const struct irn_flow *f, u8 tos)
{
	if (READ_ONCE(f->algo) != IRN_CC_DCQCN)
		return tos;
	return (tos & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_tos);

/**
 * irn_flow_window() - packets the requester may have in flight
 * @f: flow state
 *
 * Context: any.
 * Return: the window in packets, at least 1.
 */
u32 irn_flow_window(const struct irn_flow *f)
{
	u32 w = f->cap;

	if (READ_ONCE(f->algo) == IRN_CC_DELAY)
		w = min(w, READ_ONCE(f->delay.st.cwnd) / IRN_DELAY_ONE);
	return max(w, 1U);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_window);

/**
 * irn_flow_narrowed() - congestion control holds the window below the cap
 * @f: flow state
 *
 * Then a loss recovery follows RFC 6675's pipe: a timeout finds all that
 * is in flight lost (no later packet will follow to reveal which), lost
 * packets leave the pipe and resends enter it, and a resend waits for
 * the window as a new packet does.  Under the cap alone IRN keeps its
 * own rules: a timeout resends the oldest packet and the holes below
 * the highest delivered one, and resends go at once.
 *
 * Context: any.
 * Return: true if the window is narrower than the cap.
 */
bool irn_flow_narrowed(const struct irn_flow *f)
{
	return irn_flow_window(f) < f->cap;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_narrowed);

/**
 * irn_flow_ack_every() - how often a long message asks for an ACK
 * @f: flow state
 *
 * Context: any.
 * Return: every IRN_FLOW_ACK_EVERY packets, or every half window when
 * the window is smaller; at least every packet.
 */
u32 irn_flow_ack_every(const struct irn_flow *f)
{
	return clamp(irn_flow_window(f) / 2, 1U, IRN_FLOW_ACK_EVERY);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_ack_every);

/**
 * irn_flow_ask_ack() - should the packet about to leave ask for an ACK
 * @f: flow state
 * @must: it asks anyway (a message's last packet, a resend)
 * @nth: its place in its message, from 1; for a sprayed packet its place
 *	 on its path, from 1
 * @path: the path it takes (irn_flow_path_pick()), IRN_PATH_NONE if it
 *	  is not sprayed
 * @inflight: packets in flight once it left, itself included
 * @now_ns: the time
 *
 * The responder acknowledges only what asks for it (and what moves its
 * window).  Beside a message's last packet, a packet asks every
 * irn_flow_ack_every() packets of the message, or a sprayed one of its
 * path (each path asks for ACKs that come back on it and measure it
 * alone, irn_flow_ack_path(); path i's count starts i / paths of an
 * interval on, so that paths taking turns do not ask together), when it
 * fills the window,
 * on a paced QP when a quarter of srtt passed since the last one that
 * asked, and always under a window congestion control narrowed: such a
 * window can narrow behind packets that left at a wider one's interval,
 * to as few as are in flight without asking.  That window, or a rate
 * that spreads the interval over more than the retransmission timeout,
 * would otherwise be reopened only by the timer, one packet per timeout.
 *
 * Context: the requester.
 * Return: true if the packet asks for an ACK.
 */
bool irn_flow_ask_ack(struct irn_flow *f, bool must, u32 nth, u32 path,
		      u32 inflight, u64 now_ns)
{
	u64 srtt = READ_ONCE(f->srtt_ns);
	u32 every = irn_flow_ack_every(f);

	if (path < f->paths.n)
		nth += path * every / f->paths.n;
	if (!must && nth % every &&
	    inflight < irn_flow_window(f) && !irn_flow_narrowed(f) &&
	    (!READ_ONCE(f->next_ns) || !srtt ||
	     now_ns - f->asked_ns < srtt / 4))
		return false;
	f->asked_ns = now_ns;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_ask_ack);

/**
 * irn_flow_window_open() - may the requester send one more new packet
 * @f: flow state
 * @pipe: packets sent and not acknowledged, cumulatively or selectively
 * @span: packets sent since the oldest not cumulatively acknowledged
 * @span_max: PSNs the sender's and receiver's bitmaps can track
 *
 * The window counts packets in the network (@pipe), as IRN's BDP-FC
 * does: packets the peer selectively acknowledged have left the path,
 * so a loss does not stall new data for the round trips its recovery
 * takes.  The span from the oldest hole keeps half a window of room
 * below @span_max for the resends and acknowledgments of the hole.
 * Without selective acknowledgments @pipe and @span are the same and
 * @span_max is unbounded: a go-back-N window.
 *
 * Context: any.
 * Return: true if a new packet may go.
 */
bool irn_flow_window_open(const struct irn_flow *f, u32 pipe, u32 span,
			  u32 span_max)
{
	u32 w = irn_flow_window(f);

	return pipe < w && (u64)span + w / 2 < span_max;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_window_open);

/**
 * irn_flow_next_send() - earliest time the next packet may leave
 * @f: flow state
 *
 * Context: any.
 * Return: a CLOCK_MONOTONIC time in ns; 0, meaning now, when the QP is
 * not paced.
 */
ktime_t irn_flow_next_send(const struct irn_flow *f)
{
	u64 next = READ_ONCE(f->next_ns);

	return next > IRN_FLOW_PACE_SLACK_NS ? next - IRN_FLOW_PACE_SLACK_NS :
					       0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_next_send);

/**
 * irn_flow_hold() - hold a paced sender until its next packet is due
 * @f: flow state
 * @timer: the sender's pacing timer (HRTIMER_MODE_ABS_SOFT), whose
 *	   callback runs the sender again
 * @now_ns: the time
 *
 * The requester and the responder (read responses) share the QP's
 * pacing clock, each with a timer of its own.
 *
 * Context: the sender's engine.
 * Return: true if the next packet is not due yet (@timer is armed for
 * it), false if it may go now.
 */
bool irn_flow_hold(const struct irn_flow *f, struct hrtimer *timer,
		   u64 now_ns)
{
	u64 due = irn_flow_next_send(f);

	if (!due || due <= now_ns)
		return false;
	if (!hrtimer_is_queued(timer))
		hrtimer_start(timer, ns_to_ktime(due), HRTIMER_MODE_ABS_SOFT);
	return true;
}

/* RFC 6298's estimator, and the longest RTT of the last while. */
static void rtt_sample(struct irn_flow *f, u64 rtt_ns)
{
	minmax_running_max(&f->rtt_max, IRN_FLOW_RTT_MAX_WIN, jiffies,
			   min_t(u64, div_u64(rtt_ns, NSEC_PER_USEC), U32_MAX));
	irn_rtt_update(&f->srtt_ns, &f->rttvar_ns, rtt_ns);
}

/*
 * The round trip the delay controller times its decisions by (a decrease
 * a round trip, the standing RTT's window, the burst allowance's
 * spacing): the QP's smoothed RTT, or once it sprays the longer of that
 * and its longest live path's (irn_path_srtt_ns()), after which every
 * path has answered a change of the window.  Timed by the QP's, which the short paths'
 * samples make, a QP cut its window again before the long path could
 * show the last cut, and took a burst's queue, which the long path's
 * acknowledgments release all at once, for a standing one.
 */
static u64 cc_round_trip(struct irn_flow *f)
{
	lockdep_assert_held(&f->path_lock);
	return max(READ_ONCE(f->srtt_ns), irn_path_srtt_ns(&f->paths));
}

/*
 * A sample as the delay controller reads it: on a QP that sprays, leveled
 * to its shortest path (irn_path_leveled_ns()), so that a longer path's
 * length is not taken for a queue; *@rt_ns its round trip
 * (cc_round_trip()).  Other QPs need nothing here: the paths' base RTTs,
 * which the path choice levels by too, are fed from every sample by
 * irn_path_on_news().
 */
static u64 delay_sample(struct irn_flow *f, u64 rtt_ns, u32 path, u64 *rt_ns)
{
	*rt_ns = READ_ONCE(f->srtt_ns);
	if (READ_ONCE(f->algo) != IRN_CC_DELAY || !READ_ONCE(f->sprayed))
		return rtt_ns;
	spin_lock_bh(&f->path_lock);
	if (path < f->paths.n)
		rtt_ns = irn_path_leveled_ns(&f->paths, path, rtt_ns,
					     jiffies);
	*rt_ns = cc_round_trip(f);
	spin_unlock_bh(&f->path_lock);
	return rtt_ns;
}

/**
 * irn_flow_on_ack() - packets were acknowledged
 * @f: flow state
 * @pkts: packets newly acknowledged, each counted by one call only
 * @rtt_ns: RTT measured on a packet sent once (Karn), or 0 for none
 * @path: the path of the packet @rtt_ns measured; IRN_PATH_NONE if it
 *	  was not sprayed, or for no sample
 *
 * A fresh sample (@rtt_ns) feeds the RTT estimate and the delay
 * controller, which grows the window for @pkts if the sample, leveled to
 * the QP's shortest path, is at or below its target and may shrink it if
 * above, whatever @pkts.  Packets acknowledged without a fresh sample
 * (all of them resent, acknowledged on another path than theirs, or
 * delivered by a go-back-N partial ACK or by a read response that
 * measured nothing) are judged as the latest fresh sample was: they grow
 * the window if it was at or below the target, and change nothing if it
 * was above or before the first sample (irn_delay_on_ack_unsampled()).
 * Only fresh samples reach the RTT estimate.
 *
 * Context: the completer.
 */
void irn_flow_on_ack(struct irn_flow *f, u32 pkts, u64 rtt_ns, u32 path)
{
	u64 decreases, rt_ns = 0;
	u32 cwnd;

	if (rtt_ns) {
		rtt_sample(f, rtt_ns);
		rtt_ns = delay_sample(f, rtt_ns, path, &rt_ns);
	} else if (!pkts) {
		return;
	}
	if (READ_ONCE(f->algo) != IRN_CC_DELAY)
		return;
	spin_lock_bh(&f->cc_lock);
	cwnd = f->delay.st.cwnd;
	decreases = f->delay.st.decreases;
	if (rtt_ns)
		irn_delay_on_ack(&f->delay.st, &f->delay.p, pkts, rtt_ns,
				 rt_ns, ktime_get_ns());
	if (rtt_ns && f->delay.st.decreases != decreases)
		trace_irn_delay_cut(f->qpn, rtt_ns, f->delay.st.judged_ns,
				    f->delay.st.base_ns,
				    irn_delay_target_ns(&f->delay.st,
							&f->delay.p),
				    cwnd, f->delay.st.cwnd);
	if (!rtt_ns)
		irn_delay_on_ack_unsampled(&f->delay.st, &f->delay.p, pkts);
	cc_moved(f, "delay", 0, cwnd);
	spin_unlock_bh(&f->cc_lock);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_ack);

/*
 * A loss that is congestion: the delay controller's decrease, at most
 * one each @rt_ns (cc_round_trip()).
 */
static void delay_loss(struct irn_flow *f, const char *why, u64 rt_ns)
{
	u32 cwnd;

	if (READ_ONCE(f->algo) != IRN_CC_DELAY)
		return;
	spin_lock_bh(&f->cc_lock);
	cwnd = f->delay.st.cwnd;
	irn_delay_on_loss(&f->delay.st, &f->delay.p, rt_ns, ktime_get_ns());
	cc_moved(f, why, 0, cwnd);
	spin_unlock_bh(&f->cc_lock);
}

/**
 * irn_flow_on_loss() - the completer decided a packet was lost
 * @f: flow state
 *
 * The cap stays; the delay controller halves its window (at most once a
 * round trip), unless the QP sprays: then the lost packets' paths judge
 * (irn_flow_on_path_loss()).  After 16 loss episodes without a spurious
 * resend the reordering window narrows by a quarter RTT, back towards
 * 1.25 srtt (RACK's decay, RFC 8985 6.2).
 *
 * Context: the completer.
 */
void irn_flow_on_loss(struct irn_flow *f)
{
	if (!READ_ONCE(f->sprayed))
		delay_loss(f, "loss", READ_ONCE(f->srtt_ns));
	f->reo_grown = false;
	if (++f->reo_calm < 16)
		return;
	f->reo_calm = 0;
	if (f->reo_q > IRN_FLOW_REO_MIN_Q)
		f->reo_q--;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_loss);

/**
 * irn_flow_on_spurious() - resends turned out to be needless
 * @f: flow state
 * @n: how many
 *
 * The path reorders more than the window allowed (the peer acknowledged a
 * duplicate: D-SACK): widen it by a quarter RTT, once per loss episode
 * however many duplicates the episode produced, up to 2 srtt.  RACK (RFC
 * 8985 6.2) stops at one srtt; irn allows a little more for software
 * peers whose RTT jitters, but no more: a window near the retransmission
 * timeout would leave every loss to the timer.
 *
 * Context: the completer.
 */
void irn_flow_on_spurious(struct irn_flow *f, u32 n)
{
	if (!n)
		return;
	f->reo_calm = 0;
	if (f->reo_grown)
		return;
	f->reo_grown = true;
	f->reo_q = min_t(u32, f->reo_q + 1, IRN_FLOW_REO_MAX_Q);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_spurious);

/**
 * irn_flow_on_spurious_rto() - a timeout fired before the ACK was due
 * @f: flow state
 * @rto_ns: the timeout that expired
 * @since_ns: time from the timeout to the peer's report of the duplicate
 *
 * The original packet was late, not lost: its acknowledgment came after
 * @rto_ns, and before the duplicate's came back, @since_ns after the
 * timeout.  Karn's rule keeps exactly such round trips out of the
 * estimate, which then never learns the tail of a jittery path and keeps
 * firing early.  The middle of that interval is taken as a sample, so
 * rttvar grows (by about a quarter per early timeout) until the timeouts
 * stop being early; normal samples shrink it again.  Eifel (RFC 4015)
 * adapts the timer to late packets the same way.
 *
 * Context: the completer.
 */
void irn_flow_on_spurious_rto(struct irn_flow *f, u64 rto_ns, u64 since_ns)
{
	rtt_sample(f, rto_ns + since_ns / 2);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_spurious_rto);

/**
 * irn_flow_on_reorder() - the path was seen to reorder
 * @f: flow state
 *
 * A packet was acknowledged after a later one although it was never
 * resent, or the peer acknowledged a duplicate of a resend that no
 * timeout caused.  From now on loss detection waits the reordering
 * window.  As in Linux's RACK the knowledge does not decay: a path that
 * reorders once will again, and the window alone adapts.
 *
 * Context: the completer.
 */
void irn_flow_on_reorder(struct irn_flow *f)
{
	f->reord = true;
	f->reo_calm = 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_reorder);

/*
 * A quarter more than the longest RTT of the last IRN_FLOW_RTT_MAX_WIN.
 * RFC 6298's rttvar forgets a late ACK within a few calm samples, so on
 * a host whose vCPUs stall now and then, each stall would fire a timeout
 * early: a timeout shorter than an RTT the path has just shown resends a
 * packet that is merely late.
 */
static u64 rtt_tail_ns(const struct irn_flow *f)
{
	u64 max_ns = (u64)minmax_get(&f->rtt_max) * NSEC_PER_USEC;

	return max_ns + max_ns / 4;
}

/**
 * irn_flow_rto_ns() - retransmission timeout from the RTT estimate
 * @f: flow state
 * @floor_ns: shortest timeout allowed
 * @ceil_ns: longest timeout allowed
 *
 * Context: any.
 * Return: srtt + 4 * rttvar, or 1.25 times the longest RTT of the last
 * IRN_FLOW_RTT_MAX_WIN if that is longer, clamped to [@floor_ns,
 * @ceil_ns]; @floor_ns before the first RTT sample.
 */
u64 irn_flow_rto_ns(const struct irn_flow *f, u64 floor_ns, u64 ceil_ns)
{
	if (!f->srtt_ns)
		return floor_ns;
	return clamp(max(f->srtt_ns + 4 * f->rttvar_ns, rtt_tail_ns(f)),
		     floor_ns, ceil_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_rto_ns);

/**
 * irn_flow_irn_rto_ns() - IRN's retransmission timeout
 * @f: flow state
 * @inflight: packets unacknowledged
 * @low_floor_ns: floor of the short timeout
 * @high_floor_ns: floor of the long timeout
 * @ib_t_ns: the QP's IBTA local ACK timeout T
 *
 * With IRN_FLOW_RTO_LOW_PKTS or fewer packets in flight no later packet
 * can reveal a loss, so a short timeout (srtt + 2 * rttvar) recovers the
 * tail; otherwise the selective acknowledgments do the work and the
 * timeout is the usual srtt + 4 * rttvar.  Neither is shorter than 1.25
 * times the longest RTT of the last IRN_FLOW_RTT_MAX_WIN, nor longer
 * than 4T, the longest IBTA allows; before the first RTT sample both
 * are T.
 *
 * Context: any.
 * Return: the timeout in ns.
 */
u64 irn_flow_irn_rto_ns(const struct irn_flow *f, u32 inflight,
			u64 low_floor_ns, u64 high_floor_ns, u64 ib_t_ns)
{
	u64 rto;

	if (!f->srtt_ns)
		return ib_t_ns;
	if (inflight <= IRN_FLOW_RTO_LOW_PKTS)
		rto = max(low_floor_ns, f->srtt_ns + 2 * f->rttvar_ns);
	else
		rto = max(high_floor_ns, f->srtt_ns + 4 * f->rttvar_ns);
	return min(max(rto, rtt_tail_ns(f)), 4 * ib_t_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_irn_rto_ns);

/**
 * irn_flow_reorder_ns() - how late a packet may be before it counts as lost
 * @f: flow state
 *
 * A packet overtaken by later ones is declared lost only once it was sent
 * this long ago: 1.25 smoothed RTTs, by which time its acknowledgment
 * would have come had it merely been reordered (RACK's RTT plus a quarter),
 * widened by irn_flow_on_spurious() on paths that reorder more.  Until
 * the path is seen to reorder (irn_flow_on_reorder()) there is no window:
 * a packet passed by IRN_SB_DUPTHRESH later ones is lost at once, which
 * is what recovers losses quickly on an ordinary, in-order path.
 *
 * Context: any.
 * Return: the window in ns; 0 before the first RTT sample or before any
 * reordering was seen.
 */
u64 irn_flow_reorder_ns(const struct irn_flow *f)
{
	if (!f->reord)
		return 0;
	return f->srtt_ns * f->reo_q / 4;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_reorder_ns);

/**
 * irn_flow_path_init() - start a QP's path set
 * @f: flow state
 * @n: paths the QP may spray over (the device's ``paths`` knob); 1 for a
 *     QP that never sprays
 * @stats: the device's counters, or NULL
 *
 * Context: any, before the QP sends.
 */
void irn_flow_path_init(struct irn_flow *f, u32 n,
			struct irn_counters __percpu *stats)
{
	spin_lock_init(&f->path_lock);
	irn_path_set_init(&f->paths, n);
	f->acks_by_path = false;
	f->stats = stats;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_path_init);

/**
 * irn_flow_path_reset() - a reset QP's paths: as many, all new
 * @f: flow state, from irn_flow_path_init()
 *
 * Context: process; takes the flow's path_lock (the completer and a
 * debugfs reader may still look at the set).
 */
void irn_flow_path_reset(struct irn_flow *f)
{
	spin_lock_bh(&f->path_lock);
	irn_path_set_init(&f->paths, f->paths.n);
	spin_unlock_bh(&f->path_lock);
	WRITE_ONCE(f->sprayed, false);
	WRITE_ONCE(f->acks_by_path, false);
}

/**
 * irn_flow_paths() - paths the QP may spray over
 * @f: flow state
 *
 * Context: any.
 * Return: 1..IRN_PATH_MAX, fixed from irn_flow_path_init() on.
 */
u32 irn_flow_paths(const struct irn_flow *f)
{
	return f->paths.n;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_paths);

/**
 * irn_flow_reply_path() - the path an acknowledgment takes
 * @f: flow state of the QP that acknowledges
 * @base: this QP's base source port, host order
 * @sport: the UDP source port, host order, of the request it answers
 *
 * The acknowledgment goes back on the request's path: from the same port,
 * which the two ends of a connection share path by path (both derive
 * their base port from the QP numbers, or from the same flow label), so
 * that a fabric hashing the ports symmetrically, as ECMP and bonds do,
 * carries it over the links the request took.  A path that fails takes
 * its own acknowledgments with it and no others, and the requester's
 * evidence per path stays per path.  A request from a port that is none
 * of this QP's paths' (the ends disagree on the base port) is answered on
 * the path its port hashes to: spread all the same.
 *
 * Context: any.
 * Return: the path, or IRN_PATH_NONE (the base port) with one path or
 * for a request that came from the base port.
 */
u32 irn_flow_reply_path(const struct irn_flow *f, u16 base, u16 sport)
{
	u32 i;

	if (f->paths.n <= 1 || sport == base)
		return IRN_PATH_NONE;
	i = irn_path_of_sport(&f->paths, base, sport);
	if (i != IRN_PATH_UNKNOWN)
		return i;
	return reciprocal_scale(hash_32(sport, 32), f->paths.n);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_reply_path);

/**
 * irn_flow_ack_path() - the path an acknowledgment came back on
 * @f: flow state of the QP whose requests it answers
 * @base: this QP's base source port, host order
 * @sport: the acknowledgment's UDP source port, host order
 *
 * An IRN responder that sprays too answers from the port of the request
 * that asked (irn_flow_reply_path()), so an acknowledgment from path i's
 * port crossed the fabric on path i both ways: the round trip of path
 * i's packet that asked for it is path i's alone.  Packets of other
 * paths it acknowledges came one way on their path and back on this one:
 * no sample of either (irn_sb_sample()).  A responder of one path
 * answers everything from the base port, which is path 0's too: the base
 * port names path 0 only once an acknowledgment came from another
 * path's port (@f->acks_by_path).
 *
 * Context: the completer.
 * Return: the path; IRN_PATH_UNKNOWN for a QP of one path, for a port
 * none of its paths has (a responder that does not answer so), or for
 * the base port before the responder showed it answers by path: every
 * packet's round trip then counts for its own path.
 */
u32 irn_flow_ack_path(struct irn_flow *f, u16 base, u16 sport)
{
	u32 i;

	if (f->paths.n <= 1)
		return IRN_PATH_UNKNOWN;
	i = irn_path_of_sport(&f->paths, base, sport);
	if (i && i != IRN_PATH_UNKNOWN && !f->acks_by_path)
		WRITE_ONCE(f->acks_by_path, true);
	if (!i && !f->acks_by_path)
		return IRN_PATH_UNKNOWN;
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_ack_path);

static void count(struct irn_flow *f, enum irn_counter idx)
{
	if (f->stats)
		irn_counter_inc(f->stats, idx);
}

/*
 * Under path_lock: count and trace the paths whose state differs from
 * @was, a copy taken before the change.
 */
static void paths_moved(struct irn_flow *f, const u8 *was, const char *why)
{
	u32 i;

	lockdep_assert_held(&f->path_lock);
	for (i = 0; i < f->paths.n; i++) {
		const struct irn_path *p = &f->paths.p[i];

		if (p->state == was[i])
			continue;
		trace_irn_path(f->qpn, i, why, was[i], p->state, p->srtt_ns);
		count(f, IRN_CNT_PATH_CHANGES);
		if (p->state == IRN_PATH_DOWN)
			count(f, IRN_CNT_PATHS_DOWN);
		else if (p->state == IRN_PATH_PROBING)
			count(f, IRN_CNT_PATH_PROBES);
	}
}

static void paths_states(const struct irn_flow *f, u8 *was)
{
	u32 i;

	for (i = 0; i < f->paths.n; i++)
		was[i] = f->paths.p[i].state;
}

/**
 * irn_flow_path_pick() - the path of the packet about to leave
 * @f: flow state
 * @spray: the packet may take any path: an RC request of a QP that
 *	   speaks IRN, whose peer places out of order
 * @avoid: for a resend, the path its packet was lost on
 *	   (irn_path_pick()); IRN_PATH_NONE for a new packet
 * @now_ns: the time
 * @seq: set to the packet's sequence number on its path, for the
 *	 scoreboard (per-path loss detection)
 *
 * A QP with one path, or a packet that may not spray, takes the base
 * source port: the packet is what it would be without multipath.
 *
 * Context: the requester; takes the flow's path_lock.
 * Return: the path, or IRN_PATH_NONE for the base port unsprayed.
 */
u32 irn_flow_path_pick(struct irn_flow *f, bool spray, u32 avoid, u64 now_ns,
		       u32 *seq)
{
	u8 was[IRN_PATH_MAX];
	u32 i;

	*seq = 0;
	if (!spray || f->paths.n <= 1)
		return IRN_PATH_NONE;
	if (!READ_ONCE(f->sprayed))
		WRITE_ONCE(f->sprayed, true);
	spin_lock_bh(&f->path_lock);
	paths_states(f, was);
	i = irn_path_pick(&f->paths, avoid, now_ns, seq);
	paths_moved(f, was, "probe");
	spin_unlock_bh(&f->path_lock);
	if (avoid < f->paths.n && i != avoid)
		count(f, IRN_CNT_PATH_RESENDS_MOVED);
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_path_pick);

/**
 * irn_flow_on_path_loss() - a packet sent on a path was lost
 * @f: flow state
 * @path: its path; IRN_PATH_NONE (unsprayed) is ignored
 * @seq: its sequence number on the path
 * @timeout: the retransmission timer found it lost
 * @now_ns: the time
 *
 * The path hears of it first.  Then the loss is congestion, and the
 * delay controller decreases, unless it is the path's own: another path
 * in use lost nothing for two round trips (irn_path_loss_local()).  A
 * path that loses at random is used less, and does not hold the QP's
 * window down; a bottleneck all paths share makes them all lose.
 *
 * Context: the requester (losses it resends) or the completer (timeouts);
 * takes the flow's path_lock, and its cc_lock after it.
 */
void irn_flow_on_path_loss(struct irn_flow *f, u32 path, u32 seq,
			   bool timeout, u64 now_ns)
{
	u64 window_ns = max_t(u64, 2 * READ_ONCE(f->srtt_ns),
			      IRN_FLOW_SHARED_LOSS_NS);
	u8 was[IRN_PATH_MAX];
	bool local;
	u64 rt_ns;

	if (path >= f->paths.n || f->paths.n <= 1)
		return;
	spin_lock_bh(&f->path_lock);
	paths_states(f, was);
	irn_path_on_loss(&f->paths, path, seq, timeout, now_ns);
	local = irn_path_loss_local(&f->paths, path, now_ns, window_ns);
	paths_moved(f, was, timeout ? "timeout" : "loss");
	rt_ns = cc_round_trip(f);
	spin_unlock_bh(&f->path_lock);
	if (!local)
		delay_loss(f, timeout ? "path_timeout" : "path_loss", rt_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_path_loss);

/**
 * irn_flow_on_path_news() - packets sent on the paths were delivered
 * @f: flow state
 * @nw: what the scoreboard gathered (irn_sb_take_path_news())
 *
 * Context: the completer, under the QP's scoreboard lock; takes the
 * flow's path_lock.
 */
void irn_flow_on_path_news(struct irn_flow *f, const struct irn_path_news *nw)
{
	u8 was[IRN_PATH_MAX];

	if (!nw->any || f->paths.n <= 1)
		return;
	spin_lock_bh(&f->path_lock);
	paths_states(f, was);
	irn_path_on_news(&f->paths, nw, jiffies);
	paths_moved(f, was, "ack");
	spin_unlock_bh(&f->path_lock);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_path_news);

/**
 * irn_flow_path_window_ns() - how long a packet may trail other paths'
 * @f: flow state
 * @floor_ns: the window before any path has an RTT sample (the long
 *	      timeout's floor): the first acknowledgment of a fast path
 *	      must not find a slow path's packets lost
 *
 * Context: any; takes the flow's path_lock (inside the scoreboard lock).
 * Return: irn_path_window_ns() of the QP's paths, @floor_ns while it is
 * 0; 0 with one path.
 */
u64 irn_flow_path_window_ns(struct irn_flow *f, u64 floor_ns)
{
	u64 w;

	if (f->paths.n <= 1)
		return 0;
	spin_lock_bh(&f->path_lock);
	w = irn_path_window_ns(&f->paths);
	spin_unlock_bh(&f->path_lock);
	return w ?: floor_ns;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_path_window_ns);

/**
 * irn_flow_path_snapshot() - a copy of the QP's path set, for debugfs
 * @f: flow state
 * @out: filled in
 *
 * Context: any but hard interrupt; takes the flow's path_lock.
 */
void irn_flow_path_snapshot(struct irn_flow *f, struct irn_path_set *out)
{
	spin_lock_bh(&f->path_lock);
	*out = f->paths;
	spin_unlock_bh(&f->path_lock);
}
