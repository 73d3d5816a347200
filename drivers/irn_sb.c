// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sender scoreboard; see include/irn_sb.h.
 */

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "irn_psn.h"
#include "irn_sb.h"

static u32 bit(const struct irn_sb *sb, u32 psn)
{
	return psn & (sb->size - 1);
}

static bool tracked(const struct irn_sb *sb, u32 psn)
{
	return irn_psn_in_window(psn, sb->una, sb->size);
}

/*
 * Narrow the @n PSNs from *@psn to those the scoreboard tracks.  A read's
 * PSNs can number two million and each acknowledgment can name it again:
 * what the scoreboard does for it must cost at most its size.
 * Return: how many are left, from the new *@psn.
 */
static u32 clamp_tracked(const struct irn_sb *sb, u32 *psn, u32 n)
{
	u32 end = irn_psn_add(*psn, n);
	u32 lim = irn_psn_add(sb->una, sb->size);

	if (irn_psn_before(*psn, sb->una)) {
		if (!irn_psn_after(end, sb->una))
			return 0;
		*psn = sb->una;
	}
	if (!irn_psn_before(*psn, lim))
		return 0;
	if (irn_psn_after(end, lim))
		end = lim;
	return irn_psn_diff(end, *psn);
}

/*
 * The send time of a PSN a rewind will send again but has not yet: none.
 * Later than any clock, it is never before RACK's clock, never a reorder
 * window old, and never a round trip.
 */
#define UNSENT	U64_MAX

/* @psn was sent a reordering window ago (not in the future, not UNSENT). */
static bool aged(const struct irn_sb *sb, u32 psn)
{
	u64 sent = READ_ONCE(sb->sent_ns[bit(sb, psn)]);

	return sent <= sb->now_ns && sb->now_ns - sent >= sb->reo_ns;
}

/* find_next_bit() or find_next_zero_bit(), as @set says. */
static u32 find_next(const unsigned long *map, u32 lim, u32 from, bool set)
{
	return set ? find_next_bit(map, lim, from) :
		     find_next_zero_bit(map, lim, from);
}

/*
 * The first PSN from @psn on and before @end whose bit in @map is @set,
 * or @end if none: a word at a time, where a loop over PSNs would take
 * one at a time.  At most the window's size of PSNs are looked at.
 */
static u32 next_bit(const struct irn_sb *sb, const unsigned long *map,
		    u32 psn, u32 end, bool set)
{
	u32 b = bit(sb, psn), n, lim, i;

	if (!irn_psn_before(psn, end))
		return end;
	n = min_t(u32, irn_psn_diff(end, psn), sb->size);
	lim = min(sb->size, b + n);
	i = find_next(map, lim, b, set);
	if (i < lim)
		return irn_psn_add(psn, i - b);
	if (b + n <= sb->size)
		return end;
	/* The rest of the range wraps to the map's start. */
	lim = b + n - sb->size;
	i = find_next(map, lim, 0, set);
	return i < lim ? irn_psn_add(psn, sb->size - b + i) : end;
}

/* The first PSN in [@psn, @end) set in @map, or @end. */
static u32 next_set(const struct irn_sb *sb, const unsigned long *map,
		    u32 psn, u32 end)
{
	return next_bit(sb, map, psn, end, true);
}

/* The first PSN in [@psn, @end) clear in @map (a hole), or @end. */
static u32 next_clear(const struct irn_sb *sb, const unsigned long *map,
		      u32 psn, u32 end)
{
	return next_bit(sb, map, psn, end, false);
}

/* The path @psn was last sent on; IRN_PATH_NONE on one path. */
static u32 path_of(const struct irn_sb *sb, u32 psn)
{
	if (sb->npaths <= 1)
		return IRN_PATH_NONE;
	return READ_ONCE(sb->path[bit(sb, psn)]);
}

/**
 * irn_sb_init() - allocate a scoreboard
 * @sb: scoreboard
 * @size: PSNs to track, rounded up to a power of two
 * @gfp: allocation flags
 *
 * Context: any; may sleep if @gfp allows.
 * Return: 0 or -ENOMEM.
 */
int irn_sb_init(struct irn_sb *sb, u32 size, gfp_t gfp)
{
	memset(sb, 0, sizeof(*sb));
	sb->size = roundup_pow_of_two(max(size, 64U));
	sb->got = bitmap_zalloc(sb->size, gfp);
	sb->seen = bitmap_zalloc(sb->size, gfp);
	sb->resent = bitmap_zalloc(sb->size, gfp);
	sb->rexmit = bitmap_zalloc(sb->size, gfp);
	sb->racked = bitmap_zalloc(sb->size, gfp);
	sb->sent_ns = kcalloc(sb->size, sizeof(*sb->sent_ns), gfp);
	if (!sb->got || !sb->seen || !sb->resent || !sb->rexmit ||
	    !sb->racked || !sb->sent_ns) {
		irn_sb_free(sb);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_init);

/**
 * irn_sb_free() - free a scoreboard's bitmaps
 * @sb: scoreboard, possibly never initialised past the memset
 *
 * Context: any.
 */
void irn_sb_free(struct irn_sb *sb)
{
	bitmap_free(sb->got);
	bitmap_free(sb->seen);
	bitmap_free(sb->resent);
	bitmap_free(sb->rexmit);
	bitmap_free(sb->racked);
	kfree(sb->sent_ns);
	kfree(sb->path);
	kfree(sb->pseq);
	sb->path = NULL;
	sb->pseq = NULL;
	sb->npaths = 0;
	sb->got = NULL;
	sb->seen = NULL;
	sb->resent = NULL;
	sb->rexmit = NULL;
	sb->racked = NULL;
	sb->sent_ns = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_free);

/**
 * irn_sb_reset() - forget everything; nothing is in flight before @psn
 * @sb: scoreboard
 * @psn: next PSN to send
 *
 * Context: any.
 */
void irn_sb_reset(struct irn_sb *sb, u32 psn)
{
	bitmap_zero(sb->got, sb->size);
	bitmap_zero(sb->seen, sb->size);
	bitmap_zero(sb->resent, sb->size);
	bitmap_zero(sb->rexmit, sb->size);
	bitmap_zero(sb->racked, sb->size);
	/* No time of an earlier connection (or UNSENT) outlives it. */
	memset(sb->sent_ns, 0, sb->size * sizeof(*sb->sent_ns));
	sb->una = psn;
	sb->high = psn;
	sb->reply_high = psn;
	sb->lost_until = psn;
	sb->cursor = psn;
	sb->stamp_from = psn;
	sb->executed_to = psn;
	sb->acked_to = psn;
	sb->recover = psn;
	sb->in_recovery = false;
	sb->timed_out = false;
	WRITE_ONCE(sb->sacked, 0);
	sb->rack_ns = 0;
	sb->min_rtt_ns = 0;
	sb->rack_seen_ns = 0;
	memset(sb->phigh, 0, sizeof(sb->phigh));
	memset(sb->prack_ns, 0, sizeof(sb->prack_ns));
	memset(&sb->news, 0, sizeof(sb->news));
	sb->ack_path = IRN_PATH_UNKNOWN;
	sb->timing = 0;
	if (sb->npaths > 1) {
		memset(sb->path, IRN_PATH_NONE, sb->size);
		memset(sb->pseq, 0, sb->size * sizeof(*sb->pseq));
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_reset);

/**
 * irn_sb_paths_init() - the scoreboard of a QP that sprays
 * @sb: scoreboard, from irn_sb_init(), not in use yet
 * @n: paths; up to 1 nothing changes
 * @gfp: allocation flags
 *
 * Context: any; may sleep if @gfp allows.
 * Return: 0 or -ENOMEM (the scoreboard stays as it was).
 */
int irn_sb_paths_init(struct irn_sb *sb, u32 n, gfp_t gfp)
{
	if (n <= 1)
		return 0;
	sb->path = kmalloc(sb->size, gfp);
	sb->pseq = kcalloc(sb->size, sizeof(*sb->pseq), gfp);
	if (!sb->path || !sb->pseq) {
		kfree(sb->path);
		kfree(sb->pseq);
		sb->path = NULL;
		sb->pseq = NULL;
		return -ENOMEM;
	}
	memset(sb->path, IRN_PATH_NONE, sb->size);
	sb->npaths = min_t(u32, n, IRN_PATH_MAX);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_paths_init);

/*
 * Multipath: @psn, sent once, on path @a, was delivered.  Its path's
 * highest delivered sequence number moves; below it, it was overtaken on
 * its own path, which is reordering.  Other paths' packets overtaking it
 * say nothing: paths differ in delay.  A PSN sent twice is not credited
 * to any path: its record names the resend's path, and which copy
 * arrived is unknown (Karn).
 */
static void path_delivered(struct irn_sb *sb, u32 psn, u32 a)
{
	u32 seq = READ_ONCE(sb->pseq[bit(sb, psn)]);

	if (test_bit(bit(sb, psn), sb->rexmit))
		return;
	if ((s32)(seq - sb->phigh[a]) >= 0) {
		sb->phigh[a] = seq + 1;
	} else {
		sb->reordered = true;
		sb->reordered_psn = psn;
	}
	sb->news.acked[a]++;
	sb->news.high_seq[a] = sb->phigh[a];
	sb->news.any = true;
}

/*
 * @psn was delivered; @order is one past the highest PSN of its kind
 * delivered so far.  Delivered below that although never resent, it was
 * overtaken, not lost: the path reorders.
 */
static bool deliver(struct irn_sb *sb, u32 psn, u32 *order)
{
	u32 a;

	if (!tracked(sb, psn) || test_bit(bit(sb, psn), sb->got))
		return false;
	__set_bit(bit(sb, psn), sb->got);
	/* Read without the lock by irn_sb_weight(). */
	WRITE_ONCE(sb->sacked, sb->sacked + 1);
	a = path_of(sb, psn);
	/* @order may be @high itself: compare before moving either. */
	if (!irn_psn_before(psn, *order)) {
		*order = irn_psn_add(psn, 1);
	} else if (a == IRN_PATH_NONE &&
		   !test_bit(bit(sb, psn), sb->rexmit)) {
		sb->reordered = true;
		sb->reordered_psn = psn;
	}
	if (a != IRN_PATH_NONE)
		path_delivered(sb, psn, a);
	if (!irn_psn_before(psn, sb->high))
		sb->high = irn_psn_add(psn, 1);
	return true;
}

/* A round trip measured from a PSN never resent: keep the shortest. */
static void min_rtt_sample(struct irn_sb *sb, u64 rtt_ns)
{
	if (rtt_ns && (!sb->min_rtt_ns || rtt_ns < sb->min_rtt_ns))
		sb->min_rtt_ns = rtt_ns;
}

/*
 * RACK's clock (RACK.xmit_ts) moves to the last send time of @psn, just
 * delivered, unless it was resent and delivered sooner after that send
 * than any round trip took, or before a round trip was measured: then an
 * earlier copy was delivered, not the last (RFC 8985, 6.2 step 2).
 * Taking the last copy's time would find every PSN resent before it lost
 * again although its resend is on its way: a timeout's resends of
 * resends then made each later hole go out twice.
 */
static void rack_advance(struct irn_sb *sb, u32 psn)
{
	u64 sent = READ_ONCE(sb->sent_ns[bit(sb, psn)]);
	u32 a = path_of(sb, psn);

	/* Sent after the clock was read, or UNSENT: no time to go by. */
	if (sent > sb->now_ns)
		return;
	if (test_bit(bit(sb, psn), sb->rexmit) &&
	    (!sb->min_rtt_ns || sb->now_ns - sent < sb->min_rtt_ns))
		return;
	if (sent > sb->rack_ns)
		sb->rack_ns = sent;
	if (a != IRN_PATH_NONE && sent > sb->prack_ns[a])
		sb->prack_ns[a] = sent;
}

/**
 * irn_sb_mark_reply() - a read response or atomic result was delivered
 * @sb: scoreboard
 * @psn: the PSN; ignored outside [una, una + size)
 * @rtt_ns: the round trip this reply measured (a read's first response,
 *	    not overtaken, from its request), 0 for none
 *
 * A reply delivered below a later reply, never re-requested, sets
 * @sb->reordered.  Replies are compared with replies only: a request the
 * responder held behind a hole is answered after later requests were
 * acknowledged, and that is the loss of the hole, not reordering.
 *
 * A reply moves RACK's clock when the time kept for its PSN is a send
 * time: a measured first response (its request's) or the reply to a
 * re-request (the re-request's, by irn_sb_mark()'s rule).  The time kept
 * for the other PSNs of a read is when they were first overtaken.  The
 * responder answers requests in the order they arrive, so a reply to a
 * request sent after a re-request shows the re-request or its reply lost.
 *
 * Context: the completer, under the QP's scoreboard lock, after
 * irn_sb_clock().
 * Return: true if it was not known to be delivered before.
 */
bool irn_sb_mark_reply(struct irn_sb *sb, u32 psn, u64 rtt_ns)
{
	if (!deliver(sb, psn, &sb->reply_high))
		return false;
	if (!test_bit(bit(sb, psn), sb->rexmit)) {
		if (!rtt_ns)
			return true;
		min_rtt_sample(sb, rtt_ns);
	}
	rack_advance(sb, psn);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_mark_reply);

/*
 * Whether an acknowledgment measures the round trip of a packet sent on
 * path @a: it came back on @a, or on a path that cannot be told
 * (irn_sb_ack_path()).  One that came back on another path measured
 * half of each.  A PSN of no path measures the QP, not a path.
 */
static bool own_path(const struct irn_sb *sb, u32 a)
{
	return a == IRN_PATH_NONE || sb->ack_path == IRN_PATH_UNKNOWN ||
	       a == sb->ack_path;
}

/**
 * irn_sb_mark() - a PSN was acknowledged
 * @sb: scoreboard
 * @psn: the PSN; ignored outside [una, una + size)
 *
 * A PSN acknowledged below a later one (@high), never resent, sets
 * @sb->reordered.  Its send time advances RACK's clock (rack_advance()),
 * and if it was never resent it measures the shortest round trip, and
 * its path's if the acknowledgment came back on that path (own_path()).
 *
 * Context: the completer, under the QP's scoreboard lock, after
 * irn_sb_clock().
 * Return: true if it was not known to be delivered before.
 */
bool irn_sb_mark(struct irn_sb *sb, u32 psn)
{
	u64 sent;
	u32 a;

	if (!deliver(sb, psn, &sb->high))
		return false;
	sent = READ_ONCE(sb->sent_ns[bit(sb, psn)]);
	if (!test_bit(bit(sb, psn), sb->rexmit) && sent && sent < sb->now_ns) {
		min_rtt_sample(sb, sb->now_ns - sent);
		a = path_of(sb, psn);
		if (a != IRN_PATH_NONE && own_path(sb, a))
			sb->news.rtt_ns[a] = sb->now_ns - sent;
	}
	rack_advance(sb, psn);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_mark);

/**
 * irn_sb_test() - is a PSN known to be delivered
 * @sb: scoreboard
 * @psn: the PSN
 *
 * Context: under the QP's scoreboard lock.
 * Return: true if delivered (everything before una counts as delivered).
 */
bool irn_sb_test(const struct irn_sb *sb, u32 psn)
{
	if (irn_psn_before(psn, sb->una))
		return true;
	return tracked(sb, psn) && test_bit(bit(sb, psn), sb->got);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_test);

static bool is_seen(const struct irn_sb *sb, u32 psn)
{
	return tracked(sb, psn) && test_bit(bit(sb, psn), sb->seen);
}

/*
 * Clear the seen marks of @n tracked PSNs from @psn a word at a time:
 * each response of a read clears its whole request's.
 */
static void clear_seen(struct irn_sb *sb, u32 psn, u32 n)
{
	u32 first = bit(sb, psn), part = min(n, sb->size - first);

	bitmap_clear(sb->seen, first, part);
	bitmap_clear(sb->seen, 0, n - part);
}

/**
 * irn_sb_seen() - the responder holds a read request, or answered it
 * @sb: scoreboard
 * @psn: the read's first PSN
 * @n: its PSNs
 * @seen: true when a SACK names its request (ignored once a response of
 *	  it was delivered), false at its first response
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_seen(struct irn_sb *sb, u32 psn, u32 n, bool seen)
{
	u32 p = psn, i;

	n = clamp_tracked(sb, &p, n);
	if (!seen) {
		clear_seen(sb, p, n);
		return;
	}
	/* Executed already: a SACK older than the ACK that said so. */
	if (n && irn_psn_before(p, sb->executed_to))
		return;
	/* Already seen: every SACK of a held read names it again. */
	if (n && is_seen(sb, p) && is_seen(sb, irn_psn_add(p, n - 1)))
		return;
	/* A late SACK must not hide the loss of responses already flowing. */
	for (i = 0; i < n; i++, sb->walked++)
		if (irn_sb_test(sb, irn_psn_add(p, i)))
			return;
	for (; n; n--, p = irn_psn_add(p, 1), sb->walked++)
		__set_bit(bit(sb, p), sb->seen);
	if (tracked(sb, psn) && !irn_psn_before(psn, sb->high))
		sb->high = irn_psn_add(psn, 1);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_seen);

/**
 * irn_sb_executed() - the responder executed a held read or atomic request
 * @sb: scoreboard
 * @psn: the request's first PSN
 * @n: its PSNs
 * @now_ns: when that became known
 *
 * An acknowledgment passed the request, so the responder has sent all of
 * its replies.  The PSNs that were only seen (held) and have no reply yet
 * are no longer waiting on the responder: their replies were lost or are
 * late, and their reordering clock starts now, after which the usual
 * rules find them lost.  Each is stamped once: its seen mark goes, and
 * irn_sb_overtaken() stamps nothing before the request's end again.  A
 * PSN re-requested keeps its re-request's time, a send time.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_executed(struct irn_sb *sb, u32 psn, u32 n, u64 now_ns)
{
	u32 end = irn_psn_add(psn, n);

	/* Every later acknowledgment passes it again: walk it once. */
	if (!irn_psn_after(end, sb->executed_to))
		return;
	if (irn_psn_before(psn, sb->executed_to)) {
		n = irn_psn_diff(end, sb->executed_to);
		psn = sb->executed_to;
	}
	sb->executed_to = end;
	n = clamp_tracked(sb, &psn, n);
	for (; n; n--, psn = irn_psn_add(psn, 1), sb->walked++) {
		if (!is_seen(sb, psn) || irn_sb_test(sb, psn))
			continue;
		__clear_bit(bit(sb, psn), sb->seen);
		if (!test_bit(bit(sb, psn), sb->rexmit))
			WRITE_ONCE(sb->sent_ns[bit(sb, psn)], now_ns);
	}
	/* Stamped: a response overtaking them later does not restart it. */
	if (irn_psn_after(end, sb->stamp_from))
		sb->stamp_from = end;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_executed);

/**
 * irn_sb_acked_from() - where a cumulative acknowledgment's walk starts
 * @sb: scoreboard
 * @psn: first PSN of a send or write
 *
 * Context: the completer, under the QP's scoreboard lock.
 * Return: the first of its PSNs that no cumulative acknowledgment marked.
 */
u32 irn_sb_acked_from(const struct irn_sb *sb, u32 psn)
{
	return irn_psn_max(psn, sb->acked_to);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_acked_from);

/**
 * irn_sb_acked_to() - a cumulative acknowledgment was walked
 * @sb: scoreboard
 * @cum: the PSN it acknowledges
 *
 * The sends and writes up to @cum are marked: the next acknowledgment
 * walks from after it, so that a run of them behind an unanswered read
 * costs what each acknowledges, not every PSN since the read.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_acked_to(struct irn_sb *sb, u32 cum)
{
	cum = irn_psn_add(cum, 1);
	if (irn_psn_after(cum, sb->acked_to))
		sb->acked_to = cum;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_acked_to);

/*
 * BITS_PER_LONG bits of @map from the one of @psn on, round the ring: bit
 * i of the result is that of @psn + i.
 */
static unsigned long ring_word(const struct irn_sb *sb,
			       const unsigned long *map, u32 psn)
{
	u32 b = bit(sb, psn), w = b / BITS_PER_LONG, r = b % BITS_PER_LONG;
	unsigned long v = map[w] >> r;

	if (r)
		v |= map[(w + 1) % BITS_TO_LONGS(sb->size)] <<
		     (BITS_PER_LONG - r);
	return v;
}

/**
 * irn_sb_drop_known() - keep the PSNs of a selective ack not known delivered
 * @sb: scoreboard
 * @psn: the PSN of bit 0 of @bits
 * @bits: PSNs a selective acknowledgment names; bit i is @psn + i
 * @nbits: bits in @bits, a multiple of BITS_PER_LONG
 *
 * Every SACK names all that the responder holds, so during recovery an
 * acknowledgment repeats hundreds of PSNs it named before.  Clearing them
 * a word at a time leaves only the news for the caller to walk.  A bit
 * for a PSN the scoreboard does not track may go either way: marking
 * ignores those.
 *
 * Context: under the QP's scoreboard lock.
 */
void irn_sb_drop_known(const struct irn_sb *sb, u32 psn, unsigned long *bits,
		       u32 nbits)
{
	u32 i;

	for (i = 0; i < nbits / BITS_PER_LONG; i++) {
		bits[i] &= ~ring_word(sb, sb->got, psn);
		psn = irn_psn_add(psn, BITS_PER_LONG);
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_drop_known);

/**
 * irn_sb_first_missing() - the end of the delivered run that starts at una
 * @sb: scoreboard
 *
 * Context: under the QP's scoreboard lock.
 * Return: the oldest PSN not delivered, at or after una.
 */
u32 irn_sb_first_missing(const struct irn_sb *sb)
{
	u32 psn = sb->una;

	while (irn_psn_before(psn, sb->high) && irn_sb_test(sb, psn))
		psn = irn_psn_add(psn, 1);
	return psn;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_first_missing);

/**
 * irn_sb_advance() - move the cumulative point
 * @sb: scoreboard
 * @psn: new una; PSNs before it are delivered and forgotten
 *
 * Ends the recovery episode once @psn reaches its recovery point.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_advance(struct irn_sb *sb, u32 psn)
{
	while (irn_psn_before(sb->una, psn)) {
		if (__test_and_clear_bit(bit(sb, sb->una), sb->got))
			WRITE_ONCE(sb->sacked, sb->sacked - 1);
		__clear_bit(bit(sb, sb->una), sb->seen);
		__clear_bit(bit(sb, sb->una), sb->resent);
		__clear_bit(bit(sb, sb->una), sb->rexmit);
		__clear_bit(bit(sb, sb->una), sb->racked);
		sb->una = irn_psn_add(sb->una, 1);
	}
	if (irn_psn_before(sb->high, sb->una))
		sb->high = sb->una;
	if (irn_psn_before(sb->reply_high, sb->una))
		sb->reply_high = sb->una;
	if (irn_psn_before(sb->lost_until, sb->una))
		sb->lost_until = sb->una;
	if (irn_psn_before(sb->cursor, sb->una))
		sb->cursor = sb->una;
	if (irn_psn_before(sb->stamp_from, sb->una))
		sb->stamp_from = sb->una;
	if (irn_psn_before(sb->executed_to, sb->una))
		sb->executed_to = sb->una;
	if (irn_psn_before(sb->acked_to, sb->una))
		sb->acked_to = sb->una;
	if (sb->in_recovery && !irn_psn_before(sb->una, sb->recover))
		sb->in_recovery = false;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_advance);

/*
 * Multipath: when @psn, not delivered, is lost for having been passed;
 * UNSENT if it has not been.  Passed by IRN_SB_DUPTHRESH packets sent
 * after it on its own path, it is lost a reordering window after it was
 * sent, as on a single path; passed only by other paths' PSNs, the
 * cross-path window after (at least the reordering window).  A read's or
 * an atomic's PSN has no path and is passed only by other paths' news:
 * its replies come from the responder's base port, and the ACKs of the
 * sprayed requests after it come back on their own paths
 * (irn_flow_reply_path()), so it takes the cross-path window too.
 */
static u64 ripe_at(const struct irn_sb *sb, u32 psn)
{
	u32 b = bit(sb, psn), a = path_of(sb, psn);
	u64 sent = READ_ONCE(sb->sent_ns[b]);

	if (sent == UNSENT)
		return UNSENT;
	if (a != IRN_PATH_NONE &&
	    (s32)(sb->phigh[a] - READ_ONCE(sb->pseq[b])) > IRN_SB_DUPTHRESH)
		return sent + sb->reo_ns;
	if (irn_psn_diff(sb->high, psn) <= IRN_SB_DUPTHRESH)
		return UNSENT;
	return sent + max(sb->xreo_ns, sb->reo_ns);
}

/**
 * irn_sb_lost() - is a PSN considered lost
 * @sb: scoreboard
 * @psn: the PSN
 *
 * Context: under the QP's scoreboard lock.
 * Return: true if not delivered and either timed out, or not seen while
 * RACK found its resend lost, or while a PSN at least IRN_SB_DUPTHRESH
 * after it was delivered (or seen) and it was sent a reordering window
 * ago.  With several paths, the passing PSNs are its own path's, or the
 * window is the cross-path one (ripe_at()).
 */
bool irn_sb_lost(const struct irn_sb *sb, u32 psn)
{
	if (irn_sb_test(sb, psn))
		return false;
	if (irn_psn_before(psn, sb->lost_until))
		return true;
	if (is_seen(sb, psn))
		return false;
	/*
	 * RACK's rule has no duplicate threshold (RFC 8985): a lost resend
	 * at a burst's tail goes again without waiting for the timer.
	 */
	if (tracked(sb, psn) && test_bit(bit(sb, psn), sb->racked))
		return true;
	if (sb->npaths > 1)
		return tracked(sb, psn) && ripe_at(sb, psn) <= sb->now_ns;
	return irn_psn_diff(sb->high, psn) > IRN_SB_DUPTHRESH && aged(sb, psn);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_lost);

/*
 * When the resend of @p, sent at @sent, is lost for having been passed by
 * a later send's acknowledgment (RACK.xmit_ts); UNSENT if it has not
 * been.  With several paths, a later send of its own path passing it
 * takes the reordering window, one of another path only the cross-path
 * window.
 */
static u64 resend_ripe(const struct irn_sb *sb, u32 p, u64 sent)
{
	u32 a = path_of(sb, p);

	if (sent >= sb->rack_ns)
		return UNSENT;
	if (a == IRN_PATH_NONE || sent < sb->prack_ns[a])
		return sent + sb->reo_ns;
	return sent + max(sb->xreo_ns, sb->reo_ns);
}

/*
 * RACK for retransmissions: a PSN resent in this episode (or by a
 * go-back-N rewind, which opens no episode), not delivered, sent before
 * the latest acknowledged send and a reordering window ago, was lost
 * again: make it due once more (@sb->racked: at once, with no duplicate
 * threshold to pass, until it is resent).  Only when RACK's clock moved since the
 * last look, or a candidate was still waiting for the window.
 * Return: when the next waiting candidate ripens, 0 for none.
 */
static u64 rack_rescan(struct irn_sb *sb)
{
	u64 sent, due, ripe = 0;
	u32 end, p;

	if (sb->rack_ns <= sb->rack_seen_ns)
		return 0;
	/* Nothing resent: the usual case outside an episode. */
	if (bitmap_empty(sb->resent, sb->size)) {
		sb->rack_seen_ns = sb->rack_ns;
		return 0;
	}
	/*
	 * A rewind's resends may lie past the cursor.  Up to where the
	 * cursor was, or high if further: the cursor moves back to the
	 * first found.
	 */
	end = irn_psn_max(sb->high, sb->cursor);
	for (p = next_set(sb, sb->resent, sb->una, end); p != end;
	     p = next_set(sb, sb->resent, irn_psn_add(p, 1), end)) {
		/* A re-request the responder holds arrived. */
		if (irn_sb_test(sb, p) || is_seen(sb, p))
			continue;
		sent = READ_ONCE(sb->sent_ns[bit(sb, p)]);
		due = resend_ripe(sb, p, sent);
		if (due == UNSENT)
			continue;
		/* RACK's clock is a past send time: @sent < now. */
		if (sb->now_ns < due) {
			if (!ripe || due < ripe)
				ripe = due;
			continue;
		}
		__clear_bit(bit(sb, p), sb->resent);
		__set_bit(bit(sb, p), sb->racked);
		if (irn_psn_before(p, sb->cursor))
			sb->cursor = p;
	}
	if (!ripe)
		sb->rack_seen_ns = sb->rack_ns;
	return ripe;
}

/* A PSN the resend scans pass over: delivered, resent, or held. */
static bool skipped(const struct irn_sb *sb, u32 p)
{
	return irn_sb_test(sb, p) || test_bit(bit(sb, p), sb->resent) ||
	       (is_seen(sb, p) && !irn_psn_before(p, sb->lost_until));
}

/*
 * irn_sb_next_lost() with several paths: a PSN of a slow path may still
 * be on its way while later ones of another path are lost, so the scan
 * goes past PSNs that are not lost (up to IRN_SB_LOOKAHEAD of them) and
 * leaves the cursor at the first of them.  @sb->ripe_ns is the earliest
 * time one of those will be lost.
 */
static bool next_lost_paths(struct irn_sb *sb, u32 end, u32 *psn)
{
	u32 p, first = end, looked = 0;
	bool lost = false;
	u64 due;

	for (p = next_clear(sb, sb->got, sb->cursor, end); p != end;
	     p = next_clear(sb, sb->got, irn_psn_add(p, 1), end)) {
		if (skipped(sb, p))
			continue;
		if (irn_sb_lost(sb, p)) {
			*psn = p;
			lost = true;
			break;
		}
		due = ripe_at(sb, p);
		if (due != UNSENT && (!sb->ripe_ns || due < sb->ripe_ns))
			sb->ripe_ns = due;
		if (first == end)
			first = p;
		if (++looked >= IRN_SB_LOOKAHEAD)
			break;
	}
	sb->cursor = first != end ? first : p;
	return lost;
}

/**
 * irn_sb_next_lost() - the next PSN to retransmit
 * @sb: scoreboard
 * @psn: set to the PSN when there is one
 *
 * Lost PSNs come out in ascending order, each once per episode (the caller
 * marks what it resent with irn_sb_mark_resent()) unless RACK finds the
 * retransmission lost too (rack_rescan()).  Losses are monotone (a
 * PSN before a lost one is lost too, unless delivered or seen), so the
 * scan stops at the first PSN that is neither delivered, seen, resent nor
 * lost.
 *
 * When the first candidate is passed by enough PSNs (or a retransmission
 * by a later acknowledged send) but was sent less than a reordering
 * window ago, @sb->ripe_ns says when it will be lost, so that the caller
 * can look again then even if nothing else happens.  With several paths
 * losses are not monotone and the scan goes on (next_lost_paths()).
 *
 * Context: under the QP's scoreboard lock.
 * Return: true if @psn is due for retransmission.
 */
bool irn_sb_next_lost(struct irn_sb *sb, u32 *psn)
{
	u32 end = irn_psn_max(sb->lost_until, sb->high);
	u64 rack_ripe = rack_rescan(sb), sent;
	bool lost = false;
	u32 p;

	sb->ripe_ns = 0;
	if (sb->npaths > 1) {
		lost = next_lost_paths(sb, end, psn);
		goto out;
	}
	for (p = sb->cursor; irn_psn_before(p, end); p = irn_psn_add(p, 1)) {
		if (irn_sb_test(sb, p) || test_bit(bit(sb, p), sb->resent) ||
		    (is_seen(sb, p) && !irn_psn_before(p, sb->lost_until)))
			continue;
		sent = READ_ONCE(sb->sent_ns[bit(sb, p)]);
		lost = irn_sb_lost(sb, p);
		if (lost)
			*psn = p;
		else if (irn_psn_diff(sb->high, p) > IRN_SB_DUPTHRESH &&
			 sent != UNSENT)
			sb->ripe_ns = sent + sb->reo_ns;
		break;
	}
	sb->cursor = p;
out:
	if (rack_ripe && (!sb->ripe_ns || rack_ripe < sb->ripe_ns))
		sb->ripe_ns = rack_ripe;
	return lost;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_next_lost);

/**
 * irn_sb_mark_resent() - PSNs went out again in this episode
 * @sb: scoreboard
 * @psn: first of them
 * @n: how many (a re-requested read covers several)
 *
 * Context: the requester, under the QP's scoreboard lock.
 */
void irn_sb_mark_resent(struct irn_sb *sb, u32 psn, u32 n)
{
	u32 a;

	for (; n; n--, psn = irn_psn_add(psn, 1)) {
		if (!tracked(sb, psn))
			continue;
		/*
		 * A path that loses stops its timing: the timed packet's
		 * acknowledgment may be lost with the path, and one that
		 * comes much later would time the outage.
		 */
		a = path_of(sb, psn);
		if (a < IRN_PATH_MAX)
			sb->timing &= ~BIT(a);
		__set_bit(bit(sb, psn), sb->resent);
		__set_bit(bit(sb, psn), sb->rexmit);
		__clear_bit(bit(sb, psn), sb->racked);
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_mark_resent);

/*
 * Several paths: is any PSN lost, looking past up to IRN_SB_LOOKAHEAD
 * that are not (losses are not monotone).  The walk of
 * next_lost_paths(), from una: it passes over and counts the same PSNs.
 */
static bool any_lost(const struct irn_sb *sb)
{
	u32 end = irn_psn_max(sb->lost_until, sb->high), p, looked = 0;

	for (p = next_clear(sb, sb->got, sb->una, end); p != end;
	     p = next_clear(sb, sb->got, irn_psn_add(p, 1), end)) {
		if (skipped(sb, p))
			continue;
		if (irn_sb_lost(sb, p))
			return true;
		if (++looked >= IRN_SB_LOOKAHEAD)
			break;
	}
	return false;
}

/**
 * irn_sb_start_recovery() - open an episode if something is lost
 * @sb: scoreboard
 * @nxt: next new PSN the requester would send: the recovery point
 *
 * Context: the completer, under the QP's scoreboard lock.
 * Return: true if a new episode began.
 */
bool irn_sb_start_recovery(struct irn_sb *sb, u32 nxt)
{
	if (sb->in_recovery)
		return false;
	if (sb->npaths > 1 ? !any_lost(sb) :
	    !irn_sb_lost(sb, irn_sb_first_missing(sb)))
		return false;
	sb->in_recovery = true;
	sb->timed_out = false;
	sb->recover = nxt;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_start_recovery);

/**
 * irn_sb_rewound() - the requester goes back to @from (go-back-N)
 * @sb: scoreboard
 * @from: first PSN it sends again
 * @to: one past the last PSN it had sent
 *
 * A PSN sequence NAK or RNR NAK rewinds an IRN QP too, and at the start of
 * an ``auto`` connection the responder may still be standard: the PSNs
 * between @from and @to go out again whether or not they arrived.  They
 * count as resent in this episode: a SACK that was on its way before
 * them does not find them lost again (only RACK does, once something
 * sent after them is acknowledged), their acknowledgments give no RTT
 * sample, and late ones are no evidence of reordering.  Until the rewind
 * sends each again (irn_sb_sent()) it has no send time, so that RACK
 * does not find it lost and resend it ahead of the rewind.  No path
 * times a packet across it (irn_sb_asked()): the timed one may be sent
 * again, and the rewind may wait out an RNR timer first.
 *
 * Context: the requester, under the QP's scoreboard lock.
 */
void irn_sb_rewound(struct irn_sb *sb, u32 from, u32 to)
{
	u32 p;

	sb->timing = 0;

	for (p = from; irn_psn_before(p, to); p = irn_psn_add(p, 1))
		if (tracked(sb, p)) {
			__set_bit(bit(sb, p), sb->resent);
			__set_bit(bit(sb, p), sb->rexmit);
			__clear_bit(bit(sb, p), sb->racked);
			WRITE_ONCE(sb->sent_ns[bit(sb, p)], UNSENT);
		}
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_rewound);

/*
 * One past the run of PSNs from @p on, before @nxt, each delivered or
 * sent at least @wait_ns before the scoreboard's clock: at most the
 * scoreboard's size looked at, once per timeout.
 */
static u32 overdue_until(const struct irn_sb *sb, u32 p, u32 nxt,
			 u64 wait_ns)
{
	u64 sent;

	for (; irn_psn_before(p, nxt) && tracked(sb, p); p = irn_psn_add(p, 1)) {
		if (irn_sb_test(sb, p))
			continue;
		sent = READ_ONCE(sb->sent_ns[bit(sb, p)]);
		if (sent > sb->now_ns || sb->now_ns - sent < wait_ns)
			break;
	}
	return p;
}

/**
 * irn_sb_timeout() - the retransmission timer expired
 * @sb: scoreboard, its clock set (irn_sb_clock())
 * @nxt: next new PSN the requester would send
 * @all: everything in flight is lost
 * @wait_ns: how long the timer waited for una; 0 if unknown
 *
 * A new episode starts from una, in which what was already resent may be
 * resent again.  With IRN_SB_TAIL packets in flight or fewer (a tail, too
 * short for later packets to reveal its losses), or with @all, all of
 * them are lost.  Otherwise the oldest is, every hole before the highest
 * delivered PSN, and the run from una on of PSNs sent at least @wait_ns
 * ago: their acknowledgments are as late as una's, as RACK marks on a
 * timeout (RFC 8985, 6.3).  The rest is left to the acknowledgments that
 * follow.  The caller sets @all when no later packet will follow to
 * reveal the rest (a congestion window that holds less than what is in
 * flight: RFC 6675's and RFC 5681's timeout).  Until the next episode
 * @sb->timed_out says the resends may be needless for another reason
 * than reordering: a path slower than the timeout.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_timeout(struct irn_sb *sb, u32 nxt, bool all, u64 wait_ns)
{
	bitmap_zero(sb->resent, sb->size);
	if (all || irn_psn_diff(nxt, sb->una) <= IRN_SB_TAIL)
		sb->lost_until = nxt;
	else if (irn_psn_after(sb->high, sb->una))
		sb->lost_until = sb->high;
	else
		sb->lost_until = irn_psn_add(sb->una, 1);
	if (wait_ns && irn_psn_before(sb->lost_until, nxt))
		sb->lost_until = irn_psn_max(sb->lost_until,
					     overdue_until(sb, sb->una, nxt,
							   wait_ns));
	sb->cursor = sb->una;
	sb->in_recovery = true;
	sb->timed_out = true;
	sb->recover = nxt;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_timeout);

/**
 * irn_sb_lost_waiting() - PSNs a timeout found lost, not resent yet
 * @sb: scoreboard
 *
 * They have left the network: RFC 6675's pipe does not count them, and
 * counts their resends once they go.  Losses found by later deliveries
 * (duplicate threshold, RACK) are not counted: their resends go at once,
 * as many as were lost.
 *
 * Context: under the QP's scoreboard lock.
 * Return: PSNs from the resend cursor up to @sb->lost_until neither
 * delivered nor resent in this episode; at most the scoreboard's size.
 */
u32 irn_sb_lost_waiting(const struct irn_sb *sb)
{
	u32 p = irn_psn_max(sb->cursor, sb->una), n = 0;

	if (!tracked(sb, p))
		return 0;
	for (; irn_psn_before(p, sb->lost_until) && tracked(sb, p);
	     p = irn_psn_add(p, 1))
		if (!test_bit(bit(sb, p), sb->got) &&
		    !test_bit(bit(sb, p), sb->resent))
			n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_lost_waiting);

/**
 * irn_sb_take_reordered() - evidence of reordering gathered since last time
 * @sb: scoreboard
 *
 * Context: the completer, under the QP's scoreboard lock.
 * Return: true if a PSN was delivered after a later one without having
 * been resent since the previous call.
 */
bool irn_sb_take_reordered(struct irn_sb *sb)
{
	bool seen = sb->reordered;

	sb->reordered = false;
	return seen;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_take_reordered);

/**
 * irn_sb_weight() - PSNs after una known to be delivered
 * @sb: scoreboard
 *
 * Context: any (a racy read is a good enough estimate for choosing the
 * timeout and for debugfs).
 * Return: the count.
 */
u32 irn_sb_weight(const struct irn_sb *sb)
{
	return READ_ONCE(sb->sacked);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_weight);

/**
 * irn_sb_clock() - the time and reordering window of the next decisions
 * @sb: scoreboard
 * @now_ns: current time
 * @reo_ns: reordering window; 0 leaves loss detection to dup-threshold
 *
 * Context: under the QP's scoreboard lock.
 */
void irn_sb_clock(struct irn_sb *sb, u64 now_ns, u64 reo_ns)
{
	sb->now_ns = now_ns;
	sb->reo_ns = reo_ns;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_clock);

/**
 * irn_sb_sent() - a PSN left, for the first time or again
 * @sb: scoreboard
 * @psn: the PSN
 * @now_ns: when
 *
 * Context: the requester; no lock (a torn or stale time only shifts one
 * loss decision).
 */
void irn_sb_sent(struct irn_sb *sb, u32 psn, u64 now_ns)
{
	WRITE_ONCE(sb->sent_ns[bit(sb, psn)], now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_sent);

/**
 * irn_sb_rtt() - RTT sample from a PSN just acknowledged
 * @sb: scoreboard
 * @psn: the PSN, a send or write (a read response's time is not its own)
 * @now_ns: when it was acknowledged
 *
 * Context: the completer, under the QP's scoreboard lock, before una
 * passes @psn.
 * Return: the time since it was sent, or 0 if it was ever resent (Karn:
 * which copy was acknowledged is unknown).  Not only in this episode: a
 * timeout, or RACK finding a resend lost, forgets that it was resent in
 * the episode, not that two copies may be on their way.
 */
u64 irn_sb_rtt(const struct irn_sb *sb, u32 psn, u64 now_ns)
{
	u64 sent;

	if (!tracked(sb, psn) || test_bit(bit(sb, psn), sb->rexmit))
		return 0;
	sent = READ_ONCE(sb->sent_ns[bit(sb, psn)]);
	return sent && sent < now_ns ? now_ns - sent : 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_rtt);

/**
 * irn_sb_ack_path() - the path of the acknowledgment about to be taken
 * @sb: scoreboard
 * @path: the path it came back on (irn_flow_ack_path()); IRN_PATH_UNKNOWN
 *	  if that cannot be told; IRN_PATH_NONE for a reply, which passes
 *	  sends and writes that waited for it and measures no path
 *
 * A sprayed PSN's round trip is a sample of its path only when its
 * acknowledgment came back on the same path: the paths' lengths differ
 * one way as the other, and a packet of a long path acknowledged on a
 * short one would read as half of each.  irn_sb_mark() and
 * irn_sb_sample() take PSNs' samples by this until the next call.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_ack_path(struct irn_sb *sb, u32 path)
{
	sb->ack_path = path;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_ack_path);

/**
 * irn_sb_sample() - the RTT sample a PSN just acknowledged gives
 * @sb: scoreboard
 * @psn: the PSN, a send or write
 * @path: set to the path it was sent on (irn_sb_path())
 *
 * Context: the completer, under the QP's scoreboard lock, after
 * irn_sb_clock() and irn_sb_ack_path(), before una passes @psn.
 * Return: irn_sb_rtt() at the scoreboard's clock if the acknowledgment
 * came back on @psn's path or @psn was not sprayed, else 0.
 */
u64 irn_sb_sample(const struct irn_sb *sb, u32 psn, u32 *path)
{
	u32 seq;

	*path = irn_sb_path(sb, psn, &seq);
	return own_path(sb, *path) ? irn_sb_rtt(sb, psn, sb->now_ns) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_sample);

/**
 * irn_sb_asked() - a new packet of a path asked for an acknowledgment
 * @sb: scoreboard
 * @psn: its PSN, a send's or a write's
 * @path: the path it was sent on
 * @now_ns: when
 *
 * The path times it unless it times another already: one packet a
 * round trip, as TCP timed one segment before timestamps.  A resend
 * asks too, but is never timed (Karn); a resend on the timed packet's
 * path ends the timing (irn_sb_mark_resent()), as a rewind ends every
 * path's (irn_sb_rewound()).
 *
 * Context: the requester, under the QP's scoreboard lock, before the
 * packet leaves.
 */
void irn_sb_asked(struct irn_sb *sb, u32 psn, u32 path, u64 now_ns)
{
	if (path >= sb->npaths || (sb->timing & BIT(path)))
		return;
	sb->timing |= BIT(path);
	sb->timed_psn[path] = psn;
	sb->timed_ns[path] = now_ns;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_asked);

/**
 * irn_sb_take_timed() - the round trip of a path's timed packet, if this
 *			 acknowledgment answers it
 * @sb: scoreboard
 * @cum: the acknowledgment says every PSN up to this one was received
 * @psn: the PSN of bit 0 of @bits
 * @bits: PSNs after @cum it says were received, NULL for none
 * @nbits: bits in @bits
 * @max_ns: the longest round trip to believe: the QP's longest timeout
 *
 * The acknowledgment came back on the path irn_sb_ack_path() named.  If
 * it names that path's timed packet, delivered or not before (a faster
 * path's acknowledgments often deliver it first), the timing ends, and
 * the packet's round trip is the path's sample: its news gets it.  None
 * if the packet was sent again meanwhile (Karn), or if the round trip is
 * longer than @max_ns: then the packet's own acknowledgment was lost and
 * this one answers a packet sent after an idle time or an outage of the
 * path's way back.
 *
 * Context: the completer, under the QP's scoreboard lock, after
 * irn_sb_clock() and irn_sb_ack_path(), before irn_sb_drop_known().
 * Return: the round trip, or 0 if this acknowledgment gives none.
 */
u64 irn_sb_take_timed(struct irn_sb *sb, u32 cum, u32 psn,
		      const unsigned long *bits, u32 nbits, u64 max_ns)
{
	u32 a = sb->ack_path, t, i;
	u64 rtt;

	if (a >= sb->npaths || !(sb->timing & BIT(a)))
		return 0;
	t = sb->timed_psn[a];
	if (irn_psn_after(t, cum)) {
		i = irn_psn_diff(t, psn);
		if (!bits || i >= nbits || !test_bit(i, bits))
			return 0;
	}
	sb->timing &= ~BIT(a);
	if (sb->timed_ns[a] >= sb->now_ns ||
	    (tracked(sb, t) && test_bit(bit(sb, t), sb->rexmit)))
		return 0;
	rtt = sb->now_ns - sb->timed_ns[a];
	if (rtt > max_ns)
		return 0;
	sb->news.rtt_ns[a] = rtt;
	sb->news.any = true;
	return rtt;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_take_timed);

/**
 * irn_sb_overtaken() - read responses were overtaken by a later one
 * @sb: scoreboard
 * @from: first PSN of the read
 * @to: the PSN that arrived; the ones before it are overtaken
 * @now_ns: when
 *
 * A read's responses stream out over a long time after its one request,
 * so the request's send time says nothing of when a response is late.
 * Their reordering clock starts instead when a later response arrives:
 * each missing one is stamped the first time it is overtaken.  A PSN
 * already re-requested keeps its re-request's time, a send time that
 * irn_sb_mark_reply() may take for RACK's clock.
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_overtaken(struct irn_sb *sb, u32 from, u32 to, u64 now_ns)
{
	u32 psn = irn_psn_max(from, sb->stamp_from);
	u32 n = irn_psn_before(psn, to) ? irn_psn_diff(to, psn) : 0;

	n = clamp_tracked(sb, &psn, n);
	for (; n; n--, psn = irn_psn_add(psn, 1), sb->walked++)
		if (!irn_sb_test(sb, psn) &&
		    !test_bit(bit(sb, psn), sb->rexmit))
			WRITE_ONCE(sb->sent_ns[bit(sb, psn)], now_ns);
	if (irn_psn_after(to, sb->stamp_from))
		sb->stamp_from = to;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_overtaken);

/**
 * irn_sb_sent_path() - the path a PSN just left on
 * @sb: scoreboard
 * @psn: the PSN
 * @path: its path, IRN_PATH_NONE for a read's or an atomic's PSN (or an
 *	  unsprayed one), judged by the single-path rules
 * @seq: its sequence number on the path (irn_flow_path_pick())
 *
 * Every PSN sent is recorded, so that none keeps the path of the PSN
 * the ring slot held before.  Nothing is kept with one path.
 *
 * Context: the requester, beside irn_sb_sent(); no lock (a stale path
 * shifts one loss decision, as a stale time does).
 */
void irn_sb_sent_path(struct irn_sb *sb, u32 psn, u32 path, u32 seq)
{
	if (sb->npaths <= 1)
		return;
	WRITE_ONCE(sb->pseq[bit(sb, psn)], seq);
	WRITE_ONCE(sb->path[bit(sb, psn)], path < sb->npaths ? path :
					   IRN_PATH_NONE);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_sent_path);

/**
 * irn_sb_path() - the path a PSN was last sent on
 * @sb: scoreboard
 * @psn: the PSN
 * @seq: set to its sequence number on the path
 *
 * Context: under the QP's scoreboard lock.
 * Return: the path, or IRN_PATH_NONE (one path, a read's or an atomic's
 * PSN, or one not tracked).
 */
u32 irn_sb_path(const struct irn_sb *sb, u32 psn, u32 *seq)
{
	*seq = 0;
	if (sb->npaths <= 1 || !tracked(sb, psn))
		return IRN_PATH_NONE;
	*seq = READ_ONCE(sb->pseq[bit(sb, psn)]);
	return path_of(sb, psn);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_path);

/**
 * irn_sb_loss_path() - the path a lost PSN's loss is evidence against
 * @sb: scoreboard
 * @psn: a PSN irn_sb_next_lost() returned
 * @seq: set to its sequence number on the path
 *
 * A PSN found lost by the deliveries that passed it (or by RACK, for a
 * resend) was lost on the path it was last sent on.  One a timeout
 * declared lost (below @sb->lost_until) may be anywhere, still on its
 * way: it says nothing of its path, and the timeout is charged once, to
 * the path of the PSN the timer waited for.
 *
 * Context: under the QP's scoreboard lock.
 * Return: the path, or IRN_PATH_NONE (found lost by the timer, or as
 * irn_sb_path()).
 */
u32 irn_sb_loss_path(const struct irn_sb *sb, u32 psn, u32 *seq)
{
	if (irn_psn_before(psn, sb->lost_until)) {
		*seq = 0;
		return IRN_PATH_NONE;
	}
	return irn_sb_path(sb, psn, seq);
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_loss_path);

/**
 * irn_sb_clock_paths() - the cross-path window of the next decisions
 * @sb: scoreboard
 * @xreo_ns: how long a PSN passed by other paths' only is given
 *	     (irn_path_window_ns()); the reordering window if longer
 *
 * Context: under the QP's scoreboard lock, with irn_sb_clock().
 */
void irn_sb_clock_paths(struct irn_sb *sb, u64 xreo_ns)
{
	sb->xreo_ns = xreo_ns;
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_clock_paths);

/**
 * irn_sb_take_path_news() - what deliveries said of each path, since last
 * @sb: scoreboard
 * @out: filled in; @out->any is false if there is nothing
 *
 * Context: the completer, under the QP's scoreboard lock.
 */
void irn_sb_take_path_news(struct irn_sb *sb, struct irn_path_news *out)
{
	if (!sb->news.any) {
		out->any = false;
		return;
	}
	*out = sb->news;
	memset(&sb->news, 0, sizeof(sb->news));
}
EXPORT_SYMBOL_IF_KUNIT(irn_sb_take_path_news);
