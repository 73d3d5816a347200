// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A QP's path set; see include/irn_path.h.
 */

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "irn_path.h"
#include "irn_rtt.h"

static const char * const state_names[] = {
	[IRN_PATH_ACTIVE]	= "active",
	[IRN_PATH_SUSPECT]	= "suspect",
	[IRN_PATH_DOWN]		= "down",
	[IRN_PATH_PROBING]	= "probing",
};

/**
 * irn_path_state_name() - name of a path state
 * @state: enum irn_path_state
 *
 * Context: any.
 * Return: a static string.
 */
const char *irn_path_state_name(u32 state)
{
	return state < ARRAY_SIZE(state_names) ? state_names[state] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_state_name);

/**
 * irn_path_sport() - the UDP source port of a path
 * @base: the QP's own source port, host order, in RoCEv2's range
 * @i: the path
 *
 * Path 0 is the base port itself.  The others keep the top two bits
 * (0xc000..0xffff, where rdma_get_udp_sport() puts every port) and move
 * the low fourteen by a multiple of an odd constant, so that no two paths
 * of a QP share a port.
 *
 * Context: any.
 * Return: the port, host order.
 */
u16 irn_path_sport(u16 base, u32 i)
{
	if (!i)
		return base;
	return IRN_PATH_SPORT_BASE |
	       ((base ^ (i * IRN_PATH_SPREAD)) & IRN_PATH_SPORT_MASK);
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_sport);

/**
 * irn_path_of_sport() - the path a UDP source port is
 * @s: path set
 * @base: the QP's own source port, host order
 * @sport: a port, host order
 *
 * Context: any.
 * Return: the path whose port @sport is, or IRN_PATH_UNKNOWN if none's.
 */
u32 irn_path_of_sport(const struct irn_path_set *s, u16 base, u16 sport)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (irn_path_sport(base, i) == sport)
			return i;
	return IRN_PATH_UNKNOWN;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_of_sport);

/**
 * irn_path_set_init() - a QP's paths, all ACTIVE and unmeasured
 * @s: path set
 * @n: paths, clamped to 1..IRN_PATH_MAX
 *
 * Context: any.
 */
void irn_path_set_init(struct irn_path_set *s, u32 n)
{
	memset(s, 0, sizeof(*s));
	s->n = clamp_t(u32, n, 1, IRN_PATH_MAX);
	s->burst = IRN_PATH_BURST;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_set_init);

/* A path's base RTT in us (irn_path_leveled_ns()), 0 before a sample. */
static u32 base_us(const struct irn_path *p)
{
	u32 b = minmax_get(&p->base);

	return b ? U32_MAX - b : 0;
}

/* The smallest base RTT of a set's paths in us, 0 if none has one. */
static u32 shortest_base_us(const struct irn_path_set *s)
{
	u32 shortest = 0, b, i;

	for (i = 0; i < s->n; i++) {
		b = base_us(&s->p[i]);
		if (b && (!shortest || b < shortest))
			shortest = b;
	}
	return shortest;
}

/*
 * A path's smoothed RTT less what its base RTT has over the shortest
 * path's: its queueing, on the shortest path's scale.  0 before its
 * first sample.
 */
static u64 leveled_srtt(const struct irn_path *p, u32 shortest)
{
	u64 extra = 0;
	u32 b = base_us(p);

	if (!p->srtt_ns)
		return 0;
	if (b && shortest && b > shortest)
		extra = (u64)(b - shortest) * NSEC_PER_USEC;
	return max(p->srtt_ns - min(p->srtt_ns, extra), 1ULL);
}

/* The shortest leveled smoothed RTT of the ACTIVE paths, 0 if none. */
static u64 best_srtt(const struct irn_path_set *s, u32 shortest)
{
	u64 best = 0, r;
	u32 i;

	for (i = 0; i < s->n; i++) {
		const struct irn_path *p = &s->p[i];

		r = leveled_srtt(p, shortest);
		if (p->state == IRN_PATH_ACTIVE && r && (!best || r < best))
			best = r;
	}
	return best;
}

/*
 * A path's share of the round-robin: an ACTIVE path's full weight, half
 * of it when its leveled RTT is over twice the best path's and a
 * quarter over four times, either by more than four of its rttvar (a
 * path that queues is used less; one that is merely longer, or whose
 * RTT only jitters, is not); a SUSPECT path's the quarter; none for the
 * others.
 */
static u32 weight(const struct irn_path *p, u64 best, u32 shortest)
{
	u64 r = leveled_srtt(p, shortest), noise = 4 * p->rttvar_ns;

	if (p->state == IRN_PATH_SUSPECT)
		return 1;
	if (p->state != IRN_PATH_ACTIVE)
		return 0;
	if (best && r > 4 * best + noise)
		return IRN_PATH_WEIGHT / 4;
	if (best && r > 2 * best + noise)
		return IRN_PATH_WEIGHT / 2;
	return IRN_PATH_WEIGHT;
}

/*
 * Smooth weighted round-robin (each pick adds every path's weight to its
 * current weight and takes the largest back by the total): the paths
 * interleave in proportion to their weights.  @avoid takes no part.
 * Return: the path, or IRN_PATH_NONE if no path has weight.
 */
static u32 wrr(struct irn_path_set *s, u32 avoid)
{
	u32 shortest = shortest_base_us(s);
	u64 best = best_srtt(s, shortest);
	u32 i, w, total = 0, pick = IRN_PATH_NONE;

	for (i = 0; i < s->n; i++) {
		struct irn_path *p = &s->p[i];

		w = i == avoid ? 0 : weight(p, best, shortest);
		if (!w)
			continue;
		p->cw += w;
		total += w;
		if (pick == IRN_PATH_NONE || p->cw > s->p[pick].cw)
			pick = i;
	}
	if (pick != IRN_PATH_NONE)
		s->p[pick].cw -= total;
	return pick;
}

static void probe(struct irn_path_set *s, struct irn_path *p)
{
	p->state = IRN_PATH_PROBING;
	p->epoch_seq = p->seq;
	p->probes++;
	s->changes++;
}

/*
 * No path is ACTIVE or SUSPECT.  A QP never stops for want of a path:
 * probe the DOWN path whose probe is due first, or, every path probing,
 * use the one least recently used.
 */
static u32 fallback(struct irn_path_set *s)
{
	u32 i, pick = IRN_PATH_NONE;

	for (i = 0; i < s->n; i++)
		if (s->p[i].state == IRN_PATH_DOWN &&
		    (pick == IRN_PATH_NONE ||
		     s->p[i].probe_ns < s->p[pick].probe_ns))
			pick = i;
	if (pick != IRN_PATH_NONE) {
		probe(s, &s->p[pick]);
		return pick;
	}
	pick = 0;
	for (i = 1; i < s->n; i++)
		if (s->p[i].last_ns < s->p[pick].last_ns)
			pick = i;
	return pick;
}

/* A DOWN path whose probe is due, or IRN_PATH_NONE. */
static u32 probe_due(const struct irn_path_set *s, u64 now_ns)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (s->p[i].state == IRN_PATH_DOWN &&
		    now_ns >= s->p[i].probe_ns)
			return i;
	return IRN_PATH_NONE;
}

/**
 * irn_path_pick() - the path of the next packet
 * @s: path set
 * @avoid: a resend: the path its packet was lost on, which it avoids if
 *	   any other path is ACTIVE or SUSPECT, or IRN_PATH_UNKNOWN;
 *	   IRN_PATH_NONE for a new packet
 * @now_ns: the time
 * @seq: set to the packet's sequence number on the path
 *
 * A new packet probes a DOWN path whose backoff has passed; resends are
 * never probes.  Otherwise the current burst goes on (IRN_PATH_BURST
 * packets a path) unless its path is no longer ACTIVE or SUSPECT or is
 * to be avoided, and a new burst takes the next path of the weighted
 * round-robin.
 *
 * Context: under the owner's lock.
 * Return: the path, below @s->n.
 */
u32 irn_path_pick(struct irn_path_set *s, u32 avoid, u64 now_ns, u32 *seq)
{
	u32 i = 0;

	if (s->n <= 1)
		goto out;
	if (avoid == IRN_PATH_NONE) {
		i = probe_due(s, now_ns);
		if (i != IRN_PATH_NONE) {
			probe(s, &s->p[i]);
			goto out;
		}
	}
	if (s->left && s->cur != avoid && weight(&s->p[s->cur], 0, 0)) {
		s->left--;
		i = s->cur;
		goto out;
	}
	i = wrr(s, avoid);
	if (i == IRN_PATH_NONE)
		i = wrr(s, IRN_PATH_NONE);
	if (i == IRN_PATH_NONE)
		i = fallback(s);
	s->cur = i;
	s->left = s->burst ? s->burst - 1 : 0;
out:
	s->p[i].last_ns = now_ns;
	*seq = s->p[i].seq++;
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_pick);

static void go_down(struct irn_path_set *s, struct irn_path *p, u64 now_ns)
{
	p->state = IRN_PATH_DOWN;
	p->strikes = 0;
	p->probe_ns = now_ns + (IRN_PATH_PROBE_NS << p->backoff);
	s->changes++;
}

/**
 * irn_path_on_loss() - a packet sent on a path was lost
 * @s: path set
 * @i: the path
 * @seq: the packet's sequence number on it
 * @timeout: the retransmission timer found it lost
 * @now_ns: the time
 *
 * The packet counts as lost or timed out whatever it says of the path.
 * A packet sent before the path's last probe says nothing of it since.
 * Otherwise it strikes an ACTIVE or SUSPECT path, which is SUSPECT from
 * IRN_PATH_SUSPECT_STRIKES strikes on and DOWN from IRN_PATH_DOWN_STRIKES
 * on, and fails a probe: DOWN again, with twice the backoff.
 *
 * Context: under the owner's lock.
 */
void irn_path_on_loss(struct irn_path_set *s, u32 i, u32 seq, bool timeout,
		      u64 now_ns)
{
	struct irn_path *p;

	if (i >= s->n)
		return;
	p = &s->p[i];
	if (timeout)
		p->timeouts++;
	else
		p->lost++;
	if ((s32)(seq - p->epoch_seq) < 0)
		return;
	p->clean = 0;
	p->lost_ns = now_ns ?: 1;
	switch (p->state) {
	case IRN_PATH_ACTIVE:
	case IRN_PATH_SUSPECT:
		p->strikes = min_t(u32, p->strikes +
				   (timeout ? IRN_PATH_TIMEOUT_STRIKES : 1),
				   U8_MAX);
		if (p->strikes >= IRN_PATH_DOWN_STRIKES) {
			go_down(s, p, now_ns);
		} else if (p->strikes >= IRN_PATH_SUSPECT_STRIKES &&
			   p->state == IRN_PATH_ACTIVE) {
			p->state = IRN_PATH_SUSPECT;
			s->changes++;
		}
		break;
	case IRN_PATH_PROBING:
		p->backoff = min_t(u32, p->backoff + 1, IRN_PATH_BACKOFF_MAX);
		go_down(s, p, now_ns);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_on_loss);

/**
 * irn_path_loss_local() - is a path's loss its own
 * @s: path set
 * @i: the path that lost a packet (irn_path_on_loss() told first)
 * @now_ns: the time
 * @window_ns: how recent another path's loss must be for the two to be
 *	       one event
 *
 * A loss belongs to its path, and not to a bottleneck the paths share,
 * while another path is ACTIVE and has lost nothing for @window_ns: the
 * path's own state answers it (used less, then not at all).  Losses on
 * every path in use, or on the only one, are congestion.
 *
 * Context: under the owner's lock.
 * Return: true if a path other than @i is ACTIVE and was clean that long.
 */
bool irn_path_loss_local(const struct irn_path_set *s, u32 i, u64 now_ns,
			 u64 window_ns)
{
	const struct irn_path *p;
	u32 j;

	for (j = 0; j < s->n; j++) {
		p = &s->p[j];
		if (j == i || p->state != IRN_PATH_ACTIVE)
			continue;
		if (!p->lost_ns || now_ns - p->lost_ns > window_ns)
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_loss_local);

/*
 * Feed a sample to a path's base RTT filter; return the base in us.  The
 * kernel exports the windowed max filter only: the min of the samples is
 * the complement of the max of their complements, and a path without
 * samples reads 0.
 */
static u32 base_filter(struct irn_path *p, u64 rtt_ns, u32 now)
{
	u32 us = max_t(u64, min_t(u64, div_u64(rtt_ns, NSEC_PER_USEC),
				  U32_MAX - 1), 1);

	if (!minmax_get(&p->base))
		minmax_reset(&p->base, now, U32_MAX - us);
	return U32_MAX - minmax_running_max(&p->base, IRN_PATH_BASE_WIN, now,
					    U32_MAX - us);
}

/**
 * irn_path_leveled_ns() - an RTT sample as if its path were the shortest
 * @s: path set
 * @i: the path the sampled packet took
 * @rtt_ns: the sample (Karn's: a packet sent once), not 0
 * @now: the time, in jiffies
 *
 * A path's base RTT is the smallest sample of its last IRN_PATH_BASE_WIN,
 * this one included: its length.  What a sample has above its path's
 * base is the queueing it met; on the shortest path's base it reads as
 * a sample of that path would, so that a delay controller fed samples of
 * paths of different lengths takes no length for a queue.
 *
 * Context: under the owner's lock.
 * Return: @rtt_ns less its path's base RTT plus the smallest base of the
 * set's paths, in ns.
 */
u64 irn_path_leveled_ns(struct irn_path_set *s, u32 i, u64 rtt_ns, u32 now)
{
	u32 base = base_filter(&s->p[i], rtt_ns, now);

	return rtt_ns - min_t(u64, rtt_ns, (u64)(base - shortest_base_us(s)) *
			      NSEC_PER_USEC);
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_leveled_ns);

/**
 * irn_path_on_news() - packets sent on the paths were delivered
 * @s: path set
 * @nw: per path, packets delivered, the highest delivered and an RTT
 * @now: the time, in jiffies
 *
 * Each path's RTT sample feeds its smoothed RTT and its base RTT
 * (irn_path_leveled_ns()).  A probing path whose probe (or a later packet) was delivered is ACTIVE
 * again.  IRN_PATH_CLEAN_ACKS deliveries in a row clear an ACTIVE or
 * SUSPECT path's strikes and its probe backoff, and make it ACTIVE.  A
 * DOWN path waits for its probe whatever late packets of it arrive.
 *
 * Context: under the owner's lock.
 */
void irn_path_on_news(struct irn_path_set *s, const struct irn_path_news *nw,
		      u32 now)
{
	u32 i;

	for (i = 0; i < s->n; i++) {
		struct irn_path *p = &s->p[i];

		if (nw->rtt_ns[i]) {
			irn_rtt_update(&p->srtt_ns, &p->rttvar_ns,
				       nw->rtt_ns[i]);
			base_filter(p, nw->rtt_ns[i], now);
		}
		if (!nw->acked[i])
			continue;
		p->acked += nw->acked[i];
		switch (p->state) {
		case IRN_PATH_PROBING:
			if ((s32)(nw->high_seq[i] - p->epoch_seq) <= 0)
				break;
			p->state = IRN_PATH_ACTIVE;
			p->strikes = 0;
			p->clean = 0;
			s->changes++;
			break;
		case IRN_PATH_ACTIVE:
		case IRN_PATH_SUSPECT:
			p->clean = min_t(u32, p->clean + nw->acked[i], U16_MAX);
			if (p->clean < IRN_PATH_CLEAN_ACKS)
				break;
			p->strikes = 0;
			p->backoff = 0;
			if (p->state == IRN_PATH_SUSPECT) {
				p->state = IRN_PATH_ACTIVE;
				s->changes++;
			}
			break;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_on_news);

/**
 * irn_path_srtt_ns() - the longest smoothed RTT of the live paths
 * @s: path set
 *
 * A window spread over paths of different lengths has been answered in
 * full, every path's share of it, after the longest path's round trip.
 *
 * Context: under the owner's lock.
 * Return: the longest srtt of the paths not DOWN, 0 before any sample.
 */
u64 irn_path_srtt_ns(const struct irn_path_set *s)
{
	u64 srtt = 0;
	u32 i;

	for (i = 0; i < s->n; i++)
		if (s->p[i].state != IRN_PATH_DOWN)
			srtt = max(srtt, s->p[i].srtt_ns);
	return srtt;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_srtt_ns);

/**
 * irn_path_window_ns() - how long packets of one path may trail another's
 * @s: path set
 *
 * A packet overtaken by packets of other paths only is lost once it was
 * sent this long ago: the longest of the live paths' srtt + 4 * rttvar,
 * by which its acknowledgment would have come on its own path.  A live
 * path that has sent packets but has no sample yet may be the slowest:
 * while one has, the window is twice that.  DOWN paths do not count: what
 * is in flight on them is given the live paths' window.
 *
 * Context: under the owner's lock.
 * Return: the window in ns; 0 before any path has an RTT sample.
 */
u64 irn_path_window_ns(const struct irn_path_set *s)
{
	bool unmeasured = false;
	u64 w = 0;
	u32 i;

	for (i = 0; i < s->n; i++) {
		const struct irn_path *p = &s->p[i];

		if (p->state == IRN_PATH_DOWN)
			continue;
		if (p->srtt_ns)
			w = max(w, p->srtt_ns + 4 * p->rttvar_ns);
		else if (p->seq)
			unmeasured = true;
	}
	return unmeasured ? 2 * w : w;
}
EXPORT_SYMBOL_IF_KUNIT(irn_path_window_ns);
