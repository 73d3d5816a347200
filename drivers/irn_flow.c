// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Default flow policy: a fixed cap on packets in flight (IRN's BDP-FC), no
 * pacing, and an RTT estimate for the retransmission timer.
 */

#include <linux/kernel.h>
#include <kunit/visibility.h>

#include "irn_flow.h"

/**
 * irn_flow_init() - start a QP's flow state
 * @f: flow state
 * @cap: packets allowed in flight; 0 picks the default
 *
 * Context: any.
 */
void irn_flow_init(struct irn_flow *f, u32 cap)
{
	f->cap = cap ?: IRN_FLOW_DEFAULT_CAP;
	f->srtt_ns = 0;
	f->rttvar_ns = 0;
	f->reo_q = IRN_FLOW_REO_MIN_Q;
	f->reo_calm = 0;
	f->reo_grown = false;
	f->reord = false;
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_init);

/**
 * irn_flow_window() - packets the requester may have in flight
 * @f: flow state
 *
 * Context: any.
 * Return: the window in packets, at least 1.
 */
u32 irn_flow_window(const struct irn_flow *f)
{
	return max(f->cap, 1U);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_window);

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
 * Return: 0, meaning now: the default policy does not pace.
 */
ktime_t irn_flow_next_send(const struct irn_flow *f)
{
	return 0;
}

/**
 * irn_flow_on_ack() - packets were acknowledged
 * @f: flow state
 * @pkts: packets newly acknowledged
 * @rtt_ns: RTT measured on a packet sent once (Karn), or 0 for none
 *
 * Context: the completer.
 */
void irn_flow_on_ack(struct irn_flow *f, u32 pkts, u64 rtt_ns)
{
	u64 err;

	if (!rtt_ns)
		return;
	if (!f->srtt_ns) {
		f->srtt_ns = rtt_ns;
		f->rttvar_ns = rtt_ns / 2;
		return;
	}
	err = rtt_ns > f->srtt_ns ? rtt_ns - f->srtt_ns : f->srtt_ns - rtt_ns;
	/* RFC 6298: beta = 1/4, alpha = 1/8. */
	f->rttvar_ns = f->rttvar_ns - (f->rttvar_ns >> 2) + (err >> 2);
	f->srtt_ns = f->srtt_ns - (f->srtt_ns >> 3) + (rtt_ns >> 3);
}
EXPORT_SYMBOL_IF_KUNIT(irn_flow_on_ack);

/**
 * irn_flow_on_loss() - the completer decided a packet was lost
 * @f: flow state
 *
 * The default policy keeps its cap.  After 16 loss episodes without a
 * spurious resend the reordering window narrows by a quarter RTT, back
 * towards 1.25 srtt (RACK's decay, RFC 8985 6.2).
 *
 * Context: the completer.
 */
void irn_flow_on_loss(struct irn_flow *f)
{
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
	irn_flow_on_ack(f, 0, rto_ns + since_ns / 2);
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

/**
 * irn_flow_rto_ns() - retransmission timeout from the RTT estimate
 * @f: flow state
 * @floor_ns: shortest timeout allowed
 * @ceil_ns: longest timeout allowed
 *
 * Context: any.
 * Return: srtt + 4 * rttvar clamped to [@floor_ns, @ceil_ns]; @floor_ns
 * before the first RTT sample.
 */
u64 irn_flow_rto_ns(const struct irn_flow *f, u64 floor_ns, u64 ceil_ns)
{
	if (!f->srtt_ns)
		return floor_ns;
	return clamp(f->srtt_ns + 4 * f->rttvar_ns, floor_ns, ceil_ns);
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
 * timeout is the usual srtt + 4 * rttvar.  Neither goes beyond 4T, the
 * longest IBTA allows; before the first RTT sample both are T.
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
	return min(rto, 4 * ib_t_ns);
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
