// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DCQCN reaction point (Zhu et al., SIGCOMM 2015, section 3.1).
 *
 * A CNP cuts the current rate RC by alpha/2 and remembers the rate before
 * the cut as the target RT; alpha, the congestion estimate, moves towards
 * 1 with every CNP and decays towards 0 once per period K without one:
 *
 *   CNP:           RT = RC;  RC = RC * (1 - alpha / 2);
 *                  alpha = (1 - g) * alpha + g
 *   K without CNP: alpha = (1 - g) * alpha
 *
 * The rate recovers at each expiry of a timer (period T) and of a byte
 * counter (every B bytes sent), both restarted by a CNP.  Each expiry
 * sets RC = (RT + RC) / 2; first RT stays (fast recovery, while neither
 * counter has passed F expiries), then it grows by AI (additive increase,
 * one counter past F) or by i * HAI (hyper increase, both past F, i the
 * smaller count minus F).
 *
 * A QP whose rate has recovered to the line rate is no longer limited:
 * like a first one, its next CNP finds alpha at its initial 1 and halves
 * the rate (the hardware releases the flow's rate limiter there and sets
 * up a new one, with rp_initial_alpha_value, at the next CNP).  Else the
 * alpha that decayed to 0 over a quiet spell would let a new incast's
 * first CNPs cut next to nothing.
 *
 * A CNP within the monitor period of the last cut is ignored, as the
 * hardware ignores it (rp_rate_reduce_monitor_period): a peer that
 * sends CNPs faster than its notification point should (stock
 * implementations differ in their intervals) cuts once per period, not
 * once per CNP.
 *
 * The timers are not armed: the periods that elapsed are applied when
 * the rate is next looked at, so an idle QP costs nothing.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "irn_dcqcn.h"

/**
 * irn_dcqcn_params_default() - the reaction point's default parameters
 * @p: filled in
 *
 * mlx5's defaults for the rate steps, the increase periods, the cut
 * floor and the monitor period; the paper's g (1/256) and K (55 us);
 * 1 Gbit/s as the line rate, which a QP under QEMU TCG does not reach
 * (Documentation/ops-guide.rst says how to set the real one).
 *
 * Context: any.
 */
void irn_dcqcn_params_default(struct irn_dcqcn_params *p)
{
	p->max_kbps = 1000000;
	p->min_kbps = 1000;
	p->ai_kbps = 5000;
	p->hai_kbps = 50000;
	p->g = 4;
	p->alpha_ns = 55 * NSEC_PER_USEC;
	p->timer_ns = 300 * NSEC_PER_USEC;
	p->bytes = 32767;
	p->threshold = 1;
	p->min_dec_pct = 50;
	p->cut_ns = 4 * NSEC_PER_USEC;
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_params_default);

/**
 * irn_dcqcn_params_valid() - whether parameters make a working controller
 * @p: parameters
 *
 * Context: any.
 * Return: true if every period is at least a microsecond or a kilobyte,
 * the rates are ordered and the fractions are fractions.
 */
bool irn_dcqcn_params_valid(const struct irn_dcqcn_params *p)
{
	return p->min_kbps && p->min_kbps <= p->max_kbps &&
	       p->g && p->g <= IRN_DCQCN_ONE &&
	       p->alpha_ns >= NSEC_PER_USEC && p->timer_ns >= NSEC_PER_USEC &&
	       p->bytes >= 1024 && p->min_dec_pct <= 100;
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_params_valid);

/**
 * irn_dcqcn_init() - a QP starts at the line rate
 * @d: state
 * @p: parameters
 * @now_ns: the time
 *
 * alpha starts at 1, as in the paper and mlx5 (rp_initial_alpha_value).
 *
 * Context: any.
 */
void irn_dcqcn_init(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		    u64 now_ns)
{
	d->rc_kbps = p->max_kbps;
	d->rt_kbps = p->max_kbps;
	d->alpha = IRN_DCQCN_ONE;
	d->alpha_at = now_ns;
	d->timer_at = now_ns;
	d->byte_acc = 0;
	d->timer_count = 0;
	d->byte_count = 0;
	d->cut_at = 0;
	d->cuts = 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_init);

/* alpha = (1 - g) * alpha, rounded down: it reaches 0. */
static u32 alpha_decay(u32 alpha, u32 g)
{
	return (u64)alpha * (IRN_DCQCN_ONE - g) / IRN_DCQCN_ONE;
}

static void count(u32 *c, u64 n)
{
	*c = min_t(u64, (u64)*c + n, U32_MAX);
}

/* One expiry of the timer or the byte counter. */
static void increase(struct irn_dcqcn *d, const struct irn_dcqcn_params *p)
{
	u32 f = p->threshold;
	u64 rt = d->rt_kbps;

	if (d->timer_count > f && d->byte_count > f)
		rt += (u64)(min(d->timer_count, d->byte_count) - f) *
		      p->hai_kbps;
	else if (d->timer_count > f || d->byte_count > f)
		rt += p->ai_kbps;
	d->rt_kbps = min_t(u64, rt, p->max_kbps);
	/* rounded up, so that RC reaches RT */
	d->rc_kbps = DIV_ROUND_UP((u64)d->rt_kbps + d->rc_kbps, 2);
}

/* @n expiries of the counter @c. */
static void expire(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		   u32 *c, u64 n)
{
	if (d->rc_kbps >= p->max_kbps || n > IRN_DCQCN_MAX_STEPS) {
		count(c, n);
		d->rc_kbps = p->max_kbps;
		d->rt_kbps = p->max_kbps;
		return;
	}
	while (n--) {
		count(c, 1);
		increase(d, p);
	}
}

/**
 * irn_dcqcn_advance() - apply the periods that elapsed up to now
 * @d: state
 * @p: parameters
 * @now_ns: the time, not before the last call's
 *
 * Context: under the owner's lock.
 */
void irn_dcqcn_advance(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		       u64 now_ns)
{
	u64 n;

	if (now_ns > d->alpha_at) {
		n = div64_u64(now_ns - d->alpha_at, p->alpha_ns);
		d->alpha_at += n * p->alpha_ns;
		/* at most IRN_DCQCN_ONE steps: each takes at least 1 off */
		for (; n && d->alpha; n--)
			d->alpha = alpha_decay(d->alpha, p->g);
	}
	if (now_ns > d->timer_at) {
		n = div64_u64(now_ns - d->timer_at, p->timer_ns);
		d->timer_at += n * p->timer_ns;
		expire(d, p, &d->timer_count, n);
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_advance);

/**
 * irn_dcqcn_on_cnp() - a CNP arrived for the QP
 * @d: state
 * @p: parameters
 * @now_ns: the time
 *
 * Context: under the owner's lock.
 * Return: true if the CNP cut the rate, false if it came within the
 * monitor period of the last cut.
 */
bool irn_dcqcn_on_cnp(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		      u64 now_ns)
{
	u64 cut, floor;

	/* any cut_ns debugfs takes: no sum to overflow */
	if (d->cuts && now_ns - d->cut_at < p->cut_ns)
		return false;
	irn_dcqcn_advance(d, p, now_ns);
	if (d->rc_kbps >= p->max_kbps)
		d->alpha = IRN_DCQCN_ONE;
	d->rt_kbps = d->rc_kbps;
	cut = (u64)d->rc_kbps * (2 * IRN_DCQCN_ONE - d->alpha) /
	      (2 * IRN_DCQCN_ONE);
	floor = (u64)d->rc_kbps * p->min_dec_pct / 100;
	d->rc_kbps = max3(cut, floor, (u64)p->min_kbps);
	d->alpha = min(alpha_decay(d->alpha, p->g) + p->g, IRN_DCQCN_ONE);
	d->alpha_at = now_ns;
	d->timer_at = now_ns;
	d->byte_acc = 0;
	d->timer_count = 0;
	d->byte_count = 0;
	d->cut_at = now_ns;
	d->cuts++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_on_cnp);

/**
 * irn_dcqcn_on_sent() - the QP sent a packet
 * @d: state
 * @p: parameters
 * @bytes: its size on the wire
 *
 * Context: under the owner's lock.
 */
void irn_dcqcn_on_sent(struct irn_dcqcn *d, const struct irn_dcqcn_params *p,
		       u32 bytes)
{
	u64 n = div_u64_rem((u64)d->byte_acc + bytes, p->bytes, &d->byte_acc);

	expire(d, p, &d->byte_count, n);
}
EXPORT_SYMBOL_IF_KUNIT(irn_dcqcn_on_sent);
