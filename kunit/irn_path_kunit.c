// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multipath: the path selector (irn_path.c), the flow's gate in front of
 * it, and the scoreboard's per-path loss rule on scripted sequences.
 */

#include <kunit/test.h>
#include <linux/delay.h>

#include "irn_flow.h"
#include "irn_kunit.h"
#include "irn_path.h"
#include "irn_psn.h"
#include "irn_rtt.h"
#include "irn_sb.h"

#define MS	1000000ULL

/* Pick @n new packets at @now; count them per path in @hits. */
static void pick_n(struct irn_path_set *s, u32 n, u64 now, u32 *hits)
{
	u32 seq;

	while (n--)
		hits[irn_path_pick(s, IRN_PATH_NONE, now, &seq)]++;
}

/* Strike path @i with @n losses of packets sent after its last probe. */
static void lose(struct irn_path_set *s, u32 i, u32 n, u64 now)
{
	while (n--)
		irn_path_on_loss(s, i, s->p[i].seq, false, now);
}

static void irn_test_path_sport(struct kunit *test)
{
	u16 ports[IRN_PATH_MAX];
	u32 i, j;

	KUNIT_EXPECT_EQ(test, irn_path_sport(0xc123, 0), 0xc123);
	for (i = 0; i < IRN_PATH_MAX; i++) {
		ports[i] = irn_path_sport(0xfffe, i);
		KUNIT_EXPECT_GE(test, ports[i], 0xc000);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ports[i], ports[j]);
	}
}

/* Equal paths take turns: every K packets visit every path once. */
static void irn_test_path_spreads(struct kunit *test)
{
	u32 hits[IRN_PATH_MAX] = {}, i, seq, prev = IRN_PATH_NONE, cur;
	struct irn_path_set s;

	irn_path_set_init(&s, 4);
	for (i = 0; i < 400; i++) {
		cur = irn_path_pick(&s, IRN_PATH_NONE, 0, &seq);
		KUNIT_EXPECT_LT(test, cur, 4U);
		KUNIT_EXPECT_NE(test, cur, prev);
		hits[cur]++;
		prev = cur;
	}
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, hits[i], 100U);
		KUNIT_EXPECT_EQ(test, s.p[i].seq, 100U);
	}
}

/*
 * Give path @i a base RTT of @base_ns and a smoothed RTT of @srtt_ns,
 * from the samples acknowledgments bring (irn_path_on_news()), steady
 * ones after the first (an rttvar near 0).
 */
static void measure(struct irn_path_set *s, u32 i, u64 base_ns, u64 srtt_ns)
{
	struct irn_path_news nw = { .any = true };
	int n;

	nw.rtt_ns[i] = base_ns;
	irn_path_on_news(s, &nw, 0);
	nw.rtt_ns[i] = srtt_ns;
	for (n = 0; n < 40; n++)
		irn_path_on_news(s, &nw, 0);
}

/*
 * A path that is merely longer keeps its full share; one whose RTT has
 * more queueing than four times the best path's RTT gets a quarter, but
 * not while that much is within its RTT's own variation.
 */
static void irn_test_path_longer_not_slower(struct kunit *test)
{
	u32 hits[IRN_PATH_MAX] = {};
	struct irn_path_set s;

	irn_path_set_init(&s, 2);
	measure(&s, 0, MS, MS);
	measure(&s, 1, 21 * MS, 22 * MS);
	pick_n(&s, 100, 0, hits);
	KUNIT_EXPECT_EQ(test, hits[0], 50U);
	KUNIT_EXPECT_EQ(test, hits[1], 50U);

	irn_path_set_init(&s, 2);
	measure(&s, 0, MS, MS);
	measure(&s, 1, 21 * MS, 30 * MS);
	memset(hits, 0, sizeof(hits));
	pick_n(&s, 100, 0, hits);
	KUNIT_EXPECT_EQ(test, hits[0], 80U);
	KUNIT_EXPECT_EQ(test, hits[1], 20U);

	s.p[1].rttvar_ns = 3 * MS;
	memset(hits, 0, sizeof(hits));
	pick_n(&s, 100, 0, hits);
	KUNIT_EXPECT_EQ(test, hits[0], 50U);
	KUNIT_EXPECT_EQ(test, hits[1], 50U);
}

/* One path: the base port, always; the flow does not even ask. */
static void irn_test_path_one(struct kunit *test)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct irn_path_set s;
	u32 seq;

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_path_set_init(&s, 1);
	KUNIT_EXPECT_EQ(test, irn_path_pick(&s, IRN_PATH_NONE, 0, &seq), 0U);
	irn_flow_init(f, 0);
	irn_flow_path_init(f, 1, NULL);
	KUNIT_EXPECT_EQ(test, irn_flow_path_pick(f, true, IRN_PATH_NONE, 0,
						 &seq), IRN_PATH_NONE);
	irn_flow_path_init(f, 4, NULL);
	KUNIT_EXPECT_EQ(test, irn_flow_path_pick(f, false, IRN_PATH_NONE, 0,
						 &seq), IRN_PATH_NONE);
	KUNIT_EXPECT_LT(test, irn_flow_path_pick(f, true, IRN_PATH_NONE, 0,
						 &seq), 4U);
}

/* Losses make a path SUSPECT (a quarter of the weight), then DOWN. */
static void irn_test_path_suspect_then_down(struct kunit *test)
{
	u32 hits[IRN_PATH_MAX] = {};
	struct irn_path_set s;

	irn_path_set_init(&s, 4);
	lose(&s, 3, IRN_PATH_SUSPECT_STRIKES, 0);
	KUNIT_EXPECT_EQ(test, s.p[3].state, IRN_PATH_SUSPECT);
	pick_n(&s, 130, 0, hits);
	KUNIT_EXPECT_EQ(test, hits[3], 10U);
	KUNIT_EXPECT_EQ(test, hits[0], 40U);
	lose(&s, 3, IRN_PATH_DOWN_STRIKES - IRN_PATH_SUSPECT_STRIKES, 0);
	KUNIT_EXPECT_EQ(test, s.p[3].state, IRN_PATH_DOWN);
	memset(hits, 0, sizeof(hits));
	pick_n(&s, 300, IRN_PATH_PROBE_NS - 1, hits);
	KUNIT_EXPECT_EQ(test, hits[3], 0U);
	KUNIT_EXPECT_EQ(test, hits[0], 100U);
	KUNIT_EXPECT_EQ(test, s.changes, 2ULL);
}

/* Deliveries in a row clear the strikes: SUSPECT is ACTIVE again. */
static void irn_test_path_clean_run(struct kunit *test)
{
	struct irn_path_news nw = { .any = true };
	struct irn_path_set s;

	irn_path_set_init(&s, 2);
	lose(&s, 1, IRN_PATH_SUSPECT_STRIKES, 0);
	nw.acked[1] = IRN_PATH_CLEAN_ACKS - 1;
	nw.high_seq[1] = 1;
	irn_path_on_news(&s, &nw, 0);
	KUNIT_EXPECT_EQ(test, s.p[1].state, IRN_PATH_SUSPECT);
	nw.acked[1] = 1;
	irn_path_on_news(&s, &nw, 0);
	KUNIT_EXPECT_EQ(test, s.p[1].state, IRN_PATH_ACTIVE);
	KUNIT_EXPECT_EQ(test, s.p[1].strikes, 0);
	KUNIT_EXPECT_EQ(test, s.p[1].acked, (u64)IRN_PATH_CLEAN_ACKS);
}

/*
 * A DOWN path is probed once its backoff has passed, by a new packet
 * only; a failed probe doubles the backoff, a delivered one revives it,
 * and losses of packets sent before the probe do not count against it.
 */
static void irn_test_path_probe(struct kunit *test)
{
	struct irn_path_news nw = { .any = true };
	struct irn_path_set s;
	u64 t = 5 * MS;
	u32 seq;

	irn_path_set_init(&s, 3);
	lose(&s, 2, IRN_PATH_DOWN_STRIKES, t);
	KUNIT_EXPECT_EQ(test, s.p[2].probe_ns, t + IRN_PATH_PROBE_NS);
	t += IRN_PATH_PROBE_NS;
	/* A resend is no probe. */
	KUNIT_EXPECT_NE(test, irn_path_pick(&s, 0, t, &seq), 2U);
	KUNIT_EXPECT_EQ(test, irn_path_pick(&s, IRN_PATH_NONE, t, &seq), 2U);
	KUNIT_EXPECT_EQ(test, s.p[2].state, IRN_PATH_PROBING);
	KUNIT_EXPECT_EQ(test, s.p[2].probes, 1ULL);
	/* The probe is lost: down for twice as long. */
	irn_path_on_loss(&s, 2, seq, false, t);
	KUNIT_EXPECT_EQ(test, s.p[2].state, IRN_PATH_DOWN);
	KUNIT_EXPECT_EQ(test, s.p[2].probe_ns, t + 2 * IRN_PATH_PROBE_NS);
	KUNIT_EXPECT_NE(test, irn_path_pick(&s, IRN_PATH_NONE,
					    t + IRN_PATH_PROBE_NS, &seq), 2U);
	t += 2 * IRN_PATH_PROBE_NS;
	KUNIT_EXPECT_EQ(test, irn_path_pick(&s, IRN_PATH_NONE, t, &seq), 2U);
	/* An older packet's loss says nothing of the path since the probe. */
	irn_path_on_loss(&s, 2, seq - 1, false, t);
	KUNIT_EXPECT_EQ(test, s.p[2].state, IRN_PATH_PROBING);
	/* The probe arrives. */
	nw.acked[2] = 1;
	nw.high_seq[2] = seq + 1;
	irn_path_on_news(&s, &nw, 0);
	KUNIT_EXPECT_EQ(test, s.p[2].state, IRN_PATH_ACTIVE);
}

/*
 * A resend avoids the path its packet was lost on while another path
 * has weight, and takes it when no other has.
 */
static void irn_test_path_resend_avoids(struct kunit *test)
{
	struct irn_path_set s;
	u32 i, seq;

	irn_path_set_init(&s, 4);
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_NE(test, irn_path_pick(&s, 1, 0, &seq), 1U);
	lose(&s, 0, IRN_PATH_DOWN_STRIKES, 0);
	lose(&s, 2, IRN_PATH_DOWN_STRIKES, 0);
	lose(&s, 3, IRN_PATH_DOWN_STRIKES, 0);
	KUNIT_EXPECT_EQ(test, irn_path_pick(&s, 1, 0, &seq), 1U);
}

/* Every path DOWN: the QP still sends, probing the earliest due. */
static void irn_test_path_all_down(struct kunit *test)
{
	struct irn_path_set s;
	u32 seq;

	irn_path_set_init(&s, 2);
	lose(&s, 1, IRN_PATH_DOWN_STRIKES, 0);
	lose(&s, 0, IRN_PATH_DOWN_STRIKES, MS);
	KUNIT_EXPECT_EQ(test, irn_path_pick(&s, IRN_PATH_NONE, 2 * MS, &seq),
			1U);
	KUNIT_EXPECT_EQ(test, s.p[1].state, IRN_PATH_PROBING);
}

/*
 * The cross-path window follows the slowest live path, and doubles while
 * a path that has sent is not measured yet.
 */
static void irn_test_path_window(struct kunit *test)
{
	struct irn_path_news nw = { .any = true };
	u32 hits[IRN_PATH_MAX] = {};
	struct irn_path_set s;

	irn_path_set_init(&s, 3);
	KUNIT_EXPECT_EQ(test, irn_path_window_ns(&s), 0ULL);
	nw.rtt_ns[0] = 100000;
	nw.rtt_ns[1] = 400000;
	irn_path_on_news(&s, &nw, 0);
	/* First samples: srtt + 4 * srtt / 2. */
	KUNIT_EXPECT_EQ(test, irn_path_window_ns(&s), 1200000ULL);
	pick_n(&s, 3, 0, hits);
	KUNIT_EXPECT_EQ(test, irn_path_window_ns(&s), 2400000ULL);
	lose(&s, 2, IRN_PATH_DOWN_STRIKES, 0);
	lose(&s, 1, IRN_PATH_DOWN_STRIKES, 0);
	KUNIT_EXPECT_EQ(test, irn_path_window_ns(&s), 300000ULL);
}

/*
 * Scoreboard of two paths: PSN 100 + i goes on path i % 2 as its
 * (i / 2)th packet, sent at time i.  Reordering window 0, cross-path
 * window 1000.
 */
static struct irn_sb *two_paths(struct kunit *test, u32 n)
{
	struct irn_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	KUNIT_ASSERT_EQ(test, irn_sb_init(sb, 64, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, irn_sb_paths_init(sb, 2, GFP_KERNEL), 0);
	irn_sb_reset(sb, 100);
	for (i = 0; i < n; i++) {
		irn_sb_sent(sb, 100 + i, i + 1);
		irn_sb_sent_path(sb, 100 + i, i % 2, i / 2);
	}
	irn_sb_clock(sb, 50, 0);
	irn_sb_clock_paths(sb, 1000);
	return sb;
}

/*
 * Path 1 is slow: path 0's packets overtake its PSN 101 by far, which is
 * not lost for that until the cross-path window has passed; its own
 * path's later packets passing it make it lost at once.
 */
static void irn_test_path_sb_other_path_no_loss(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 12);
	u32 psn;

	irn_sb_mark(sb, 100);
	irn_sb_mark(sb, 102);
	irn_sb_mark(sb, 104);
	irn_sb_mark(sb, 106);
	irn_sb_mark(sb, 108);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(sb, 101));
	KUNIT_EXPECT_FALSE(test, irn_sb_start_recovery(sb, 112));
	KUNIT_EXPECT_FALSE(test, irn_sb_next_lost(sb, &psn));
	/* Sent at 2: lost at 2 + 1000 unless its path shows up first. */
	KUNIT_EXPECT_EQ(test, sb->ripe_ns, 1002ULL);
	KUNIT_EXPECT_FALSE(test, irn_sb_take_reordered(sb));
	/* Path 1's packets 2 to 5 arrive: 0 and 1 were lost. */
	irn_sb_mark(sb, 105);
	irn_sb_mark(sb, 107);
	irn_sb_mark(sb, 109);
	irn_sb_mark(sb, 111);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 101));
	KUNIT_EXPECT_TRUE(test, irn_sb_start_recovery(sb, 112));
	KUNIT_EXPECT_TRUE(test, irn_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 101U);
	irn_sb_mark_resent(sb, psn, 1);
	KUNIT_EXPECT_TRUE(test, irn_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 103U);
	irn_sb_free(sb);
}

/*
 * Acknowledgments come back on the path of the packet that asked: a
 * packet's round trip is its path's sample only when its acknowledgment
 * came back on that path.  Path 1 acknowledges PSNs 100 (path 0, sent at
 * 1) and 101 (path 1, sent at 2) at 50: only path 1 hears of a sample.
 */
static void irn_test_path_sb_ack_path(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 6);
	struct irn_path_news nw;
	u32 path;

	irn_sb_ack_path(sb, 1);
	irn_sb_mark(sb, 100);
	irn_sb_mark(sb, 101);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_EQ(test, nw.acked[0], 1U);
	KUNIT_EXPECT_EQ(test, nw.acked[1], 1U);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[0], 0ULL);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[1], 48ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_sample(sb, 102, &path), 0ULL);
	KUNIT_EXPECT_EQ(test, path, 0U);
	KUNIT_EXPECT_EQ(test, irn_sb_sample(sb, 103, &path), 46ULL);
	KUNIT_EXPECT_EQ(test, path, 1U);
	/* A reply measures no path; a port not told, every PSN's own. */
	irn_sb_ack_path(sb, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_sb_sample(sb, 103, &path), 0ULL);
	irn_sb_ack_path(sb, IRN_PATH_UNKNOWN);
	KUNIT_EXPECT_EQ(test, irn_sb_sample(sb, 102, &path), 47ULL);
	irn_sb_mark(sb, 102);
	irn_sb_mark(sb, 103);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[0], 47ULL);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[1], 46ULL);
	irn_sb_free(sb);
}

/*
 * A path times one packet that asked for an acknowledgment at a time.
 * Path 1's PSN 101 (sent at 2) asked; path 0's acknowledgment delivers
 * it first, which times nothing; path 1's, naming it in its selective
 * bits though it is no news, times it: 48, once.  The bits are numbered
 * as the completer passes them: bit i is PSN @cum + 2 + i (the SACK's
 * base, @cum + 1, is never named).  A resend of a packet of the path, a
 * rewind, or a round trip over the ceiling ends a timing with no sample.
 */
static void irn_test_path_sb_timed(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 8);
	unsigned long bits[1] = { BIT(0) };	/* PSN 99 + 2 */
	struct irn_path_news nw;

	irn_sb_asked(sb, 101, 1, 2);
	irn_sb_asked(sb, 103, 1, 4);		/* path 1 is timing 101 */
	irn_sb_asked(sb, 100, 0, 1);
	irn_sb_ack_path(sb, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 99, 101, bits, 64, MS),
			0ULL);
	irn_sb_mark(sb, 101);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[1], 0ULL);
	irn_sb_ack_path(sb, 1);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 99, 101, bits, 64, MS),
			48ULL);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[1], 48ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 101, 103, NULL, 0, MS),
			0ULL);
	/* not named: still timing; named cumulatively */
	irn_sb_asked(sb, 103, 1, 4);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 102, 104, NULL, 0, MS),
			0ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 103, 105, NULL, 0, MS),
			46ULL);
	/* path 0 still times 100: over the ceiling, no sample, and done */
	irn_sb_ack_path(sb, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 100, 102, NULL, 0, 40),
			0ULL);
	irn_sb_asked(sb, 102, 0, 3);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 102, 104, NULL, 0, MS),
			47ULL);
	/* a resend on the path ends it; so does a rewind */
	irn_sb_ack_path(sb, 1);
	irn_sb_asked(sb, 105, 1, 6);
	irn_sb_mark_resent(sb, 107, 1);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 107, 109, NULL, 0, MS),
			0ULL);
	irn_sb_asked(sb, 105, 1, 6);
	irn_sb_rewound(sb, 104, 106);
	KUNIT_EXPECT_EQ(test, irn_sb_take_timed(sb, 107, 109, NULL, 0, MS),
			0ULL);
	irn_sb_free(sb);
}

/*
 * A read among sprayed writes: its PSNs (no path) are passed only by the
 * writes' acknowledgments, which come back on the writes' paths, and wait
 * the cross-path window, not the reordering window (0 here).
 */
static void irn_test_path_sb_read_waits(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 12);
	u32 psn;

	irn_sb_sent_path(sb, 104, IRN_PATH_NONE, 0);
	irn_sb_sent_path(sb, 105, IRN_PATH_NONE, 0);
	for (psn = 100; psn < 112; psn++)
		if (psn != 104 && psn != 105)
			irn_sb_mark(sb, psn);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(sb, 104));
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(sb, 105));
	KUNIT_EXPECT_FALSE(test, irn_sb_next_lost(sb, &psn));
	irn_sb_clock(sb, 1006, 0);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 104));
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 105));
	irn_sb_free(sb);
}

/* A path that died: its PSNs are lost once the cross-path window passed. */
static void irn_test_path_sb_dead_path(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 10);
	u32 psn;

	irn_sb_mark(sb, 100);
	irn_sb_mark(sb, 102);
	irn_sb_mark(sb, 104);
	irn_sb_mark(sb, 106);
	irn_sb_mark(sb, 108);
	irn_sb_clock(sb, 1001, 0);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(sb, 101));
	irn_sb_clock(sb, 1002, 0);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 101));
	KUNIT_EXPECT_TRUE(test, irn_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 101U);
	irn_sb_free(sb);
}

/*
 * Losses are not monotone across paths: path 0's PSN 102 is lost while
 * path 1's PSN 101, before it, is still on its way.  The resend scan
 * finds 102 and keeps its cursor on 101.
 */
static void irn_test_path_sb_not_monotone(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 12);
	u32 psn;

	irn_sb_mark(sb, 100);
	irn_sb_mark(sb, 104);
	irn_sb_mark(sb, 106);
	irn_sb_mark(sb, 108);
	irn_sb_mark(sb, 110);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(sb, 101));
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 102));
	KUNIT_EXPECT_TRUE(test, irn_sb_start_recovery(sb, 112));
	KUNIT_EXPECT_TRUE(test, irn_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 102U);
	irn_sb_mark_resent(sb, psn, 1);
	KUNIT_EXPECT_FALSE(test, irn_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, sb->cursor, 101U);
	irn_sb_free(sb);
}

/*
 * Reordering is a packet overtaken on its own path; another path's being
 * faster is not.  What the deliveries said of each path is gathered.
 */
static void irn_test_path_sb_reorder_and_news(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 8);
	struct irn_path_news nw;

	irn_sb_mark(sb, 102);
	irn_sb_mark(sb, 101);
	KUNIT_EXPECT_FALSE(test, irn_sb_take_reordered(sb));
	irn_sb_mark(sb, 100);
	KUNIT_EXPECT_TRUE(test, irn_sb_take_reordered(sb));
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_TRUE(test, nw.any);
	KUNIT_EXPECT_EQ(test, nw.acked[0], 2U);
	KUNIT_EXPECT_EQ(test, nw.high_seq[0], 2U);
	KUNIT_EXPECT_EQ(test, nw.acked[1], 1U);
	/* Sent at 2, acknowledged at 50. */
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[1], 48ULL);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_FALSE(test, nw.any);
	KUNIT_EXPECT_EQ(test, irn_sb_path(sb, 105, &nw.high_seq[0]), 1U);
	KUNIT_EXPECT_EQ(test, nw.high_seq[0], 2U);
	irn_sb_free(sb);
}

/*
 * A resend moves its PSN to another path.  The original, delivered late
 * on its own path, says nothing of the resend's: no path is credited
 * with a PSN sent twice.
 */
static void irn_test_path_sb_resend_credit(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 8);
	struct irn_path_news nw;

	irn_sb_mark_resent(sb, 101, 1);
	irn_sb_sent(sb, 101, 20);
	irn_sb_sent_path(sb, 101, 0, 4);
	irn_sb_mark(sb, 101);
	irn_sb_take_path_news(sb, &nw);
	KUNIT_EXPECT_EQ(test, nw.acked[0], 0U);
	KUNIT_EXPECT_EQ(test, nw.acked[1], 0U);
	KUNIT_EXPECT_EQ(test, nw.rtt_ns[0], 0ULL);
	/* Path 0's next packet is not taken as overtaken by the resend. */
	irn_sb_mark(sb, 100);
	KUNIT_EXPECT_FALSE(test, irn_sb_take_reordered(sb));
	irn_sb_free(sb);
}

/*
 * What a timeout declares lost says nothing of the PSNs' paths (the
 * timeout itself is charged once, to una's path): a PSN below the
 * timeout's mark has no loss path, one found lost by its own path's
 * later packets has.
 */
static void irn_test_path_sb_timeout_no_path(struct kunit *test)
{
	struct irn_sb *sb = two_paths(test, 12);
	u32 seq;

	irn_sb_mark(sb, 100);
	irn_sb_mark(sb, 105);
	irn_sb_timeout(sb, 112, false, 0);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 101));
	KUNIT_EXPECT_EQ(test, irn_sb_loss_path(sb, 101, &seq), IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_sb_path(sb, 101, &seq), 1U);
	irn_sb_mark(sb, 107);
	irn_sb_mark(sb, 109);
	irn_sb_mark(sb, 111);
	irn_sb_clock(sb, 2000, 0);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(sb, 106));
	KUNIT_EXPECT_EQ(test, irn_sb_loss_path(sb, 106, &seq), 0U);
	KUNIT_EXPECT_EQ(test, seq, 3U);
	irn_sb_free(sb);
}

/*
 * Before any path has an RTT sample the cross-path window is the floor
 * the caller gives (the long timeout's), not 0: a PSN overtaken by
 * another path on the first acknowledgment is not lost at once.
 */
static void irn_test_path_window_unmeasured(struct kunit *test)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct irn_path_news nw = { .any = true };

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_flow_init(f, 0);
	irn_flow_path_init(f, 2, NULL);
	KUNIT_EXPECT_EQ(test, irn_flow_path_window_ns(f, 5 * MS), 5 * MS);
	nw.rtt_ns[0] = MS;
	irn_flow_on_path_news(f, &nw);
	KUNIT_EXPECT_EQ(test, irn_flow_path_window_ns(f, 5 * MS), 3 * MS);
}

/*
 * Acknowledgments go back on their requests' paths: with one path from
 * the base port; with several, a request from path i's port (both ends
 * share the base port) is answered from path i's, one from the base port
 * from the base port; a port foreign to the set, from some path, always
 * the same, and the foreign ports reach every path.
 */
static void irn_test_path_reply(struct kunit *test)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 hits[IRN_PATH_MAX] = {};
	u32 base, i, p;

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_flow_init(f, 0);
	irn_flow_path_init(f, 1, NULL);
	KUNIT_EXPECT_EQ(test, irn_flow_reply_path(f, 0xc000, 0xc123),
			IRN_PATH_NONE);
	irn_flow_path_init(f, 4, NULL);
	for (base = 0xc000; base <= 0xffff; base += 0x100) {
		KUNIT_EXPECT_EQ(test, irn_flow_reply_path(f, base, base),
				IRN_PATH_NONE);
		for (i = 1; i < 4; i++) {
			u16 sport = irn_path_sport(base, i);

			KUNIT_EXPECT_EQ(test, irn_flow_reply_path(f, base, sport),
					i);
		}
		/* a base port one end of the connection does not share */
		for (i = 0; i < 4; i++) {
			u16 sport = irn_path_sport(base ^ 0x1555, i);

			p = irn_flow_reply_path(f, base, sport);
			KUNIT_ASSERT_LT(test, p, 4U);
			KUNIT_EXPECT_EQ(test, irn_flow_reply_path(f, base, sport), p);
			hits[p]++;
		}
	}
	/* 64 bases, 256 foreign ports: no path gets under half its share */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_GE(test, hits[i], 32U);
}

/*
 * The requester tells an acknowledgment's path by its port: any of its
 * paths', the base port being path 0's once an acknowledgment came from
 * another path's (before, it may be a responder of one path's only
 * port).  With one path, or from a port none of its paths has, it cannot
 * tell.
 */
static void irn_test_path_ack_path(struct kunit *test)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 base, i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_flow_init(f, 0);
	irn_flow_path_init(f, 1, NULL);
	KUNIT_EXPECT_EQ(test, irn_flow_ack_path(f, 0xc000, 0xc000),
			IRN_PATH_UNKNOWN);
	irn_flow_path_init(f, 4, NULL);
	/* the base port: path 0's, or a responder of one path's? */
	KUNIT_EXPECT_EQ(test, irn_flow_ack_path(f, 0xc000, 0xc000),
			IRN_PATH_UNKNOWN);
	KUNIT_EXPECT_EQ(test,
			irn_flow_ack_path(f, 0xc000, irn_path_sport(0xc000, 3)),
			3U);
	for (base = 0xc000; base <= 0xffff; base += 0x100) {
		KUNIT_EXPECT_EQ(test, irn_flow_ack_path(f, base, base), 0U);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_EQ(test,
					irn_flow_ack_path(f, base,
							  irn_path_sport(base, i)),
					i);
		KUNIT_EXPECT_EQ(test,
				irn_flow_ack_path(f, base,
						  irn_path_sport(base, 4)),
				IRN_PATH_UNKNOWN);
	}
}

/*
 * Each path asks for its own ACKs, every irn_flow_ack_every() of its
 * packets (8 under a cap of 16), its count starting half an interval on
 * for the second of two paths: over 32 packets taking turns, each path
 * asks twice, and no two asks are next to each other.
 */
static void irn_test_path_ask_ack(struct kunit *test)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 asks[2] = {}, j, last = 0;

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_flow_init(f, 16);
	irn_flow_path_init(f, 2, NULL);
	KUNIT_ASSERT_EQ(test, irn_flow_ack_every(f), 8U);
	for (j = 1; j <= 32; j++) {
		if (!irn_flow_ask_ack(f, false, (j + 1) / 2, j % 2, 1, 0))
			continue;
		asks[j % 2]++;
		KUNIT_EXPECT_GT(test, j - last, 1U);
		last = j;
	}
	KUNIT_EXPECT_EQ(test, asks[0], 2U);
	KUNIT_EXPECT_EQ(test, asks[1], 2U);
}

/*
 * A QP of @paths paths with the delay controller, srtt 1 ms, which sent
 * a packet on one of them if @spray.
 */
static struct irn_flow *cc_flow(struct kunit *test, u32 paths, bool spray)
{
	struct irn_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct irn_cc_config cfg;
	u32 seq;

	KUNIT_ASSERT_NOT_NULL(test, f);
	irn_flow_init(f, 16);
	irn_cc_config_default(&cfg, IRN_CC_DELAY);
	irn_flow_cc_start(f, &cfg, 1, 0);
	irn_flow_path_init(f, paths, NULL);
	f->srtt_ns = MS;
	irn_flow_path_pick(f, spray, IRN_PATH_NONE, 0, &seq);
	return f;
}

/* A loss as the completer (its episode) and the requester (its path). */
static void cc_lose(struct irn_flow *f, u32 path, u64 now)
{
	irn_flow_on_loss(f);
	irn_flow_on_path_loss(f, path, f->paths.p[path].seq, false, now);
}

/*
 * Losses on one path of a sprayed QP are the path's, while another path
 * stays clean: the delay window keeps its 16 packets however many there
 * are.  A loss on the other path within two round trips makes them one
 * congestion event: the window halves.  With the clean path DOWN the
 * losing path is the only one, and its loss is congestion too.
 */
static void irn_test_path_cc_loss(struct kunit *test)
{
	struct irn_flow *f = cc_flow(test, 2, true);
	int i;

	for (i = 0; i < 8; i++)
		cc_lose(f, 1, 10 * MS + i * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 16U);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 0ULL);
	KUNIT_EXPECT_EQ(test, f->paths.p[1].state, (u8)IRN_PATH_DOWN);

	f = cc_flow(test, 2, true);
	cc_lose(f, 1, 10 * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 16U);
	cc_lose(f, 0, 11 * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 8U);

	f = cc_flow(test, 2, true);
	lose(&f->paths, 0, IRN_PATH_DOWN_STRIKES, 0);
	KUNIT_ASSERT_EQ(test, f->paths.p[0].state, (u8)IRN_PATH_DOWN);
	cc_lose(f, 1, 100 * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 8U);

	/* A QP that never sprayed: every loss episode is congestion. */
	f = cc_flow(test, 2, false);
	irn_flow_on_loss(f);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 8U);
}

/*
 * The delay controller's next sample stands alone, as after a quiet half
 * round trip (irn_delay.c's standing RTT): the tests run faster than
 * their scripted RTTs.
 */
static void stand_alone(struct irn_flow *f)
{
	f->delay.st.stand_ns = 0;
}

/*
 * Paths of different lengths: samples of a 1 ms path and of a 5 ms one,
 * neither queueing, leave the delay window whole (the 5 ms would be 3 ms
 * above a 1 ms base and its 1 ms target); 3 ms of queue on the long path
 * narrows it.  An unsprayed sample is read as it is.
 */
static void irn_test_path_cc_lengths(struct kunit *test)
{
	struct irn_flow *f = cc_flow(test, 2, true);
	int i;

	for (i = 0; i < 32; i++) {
		irn_flow_on_ack(f, 1, MS, 0);
		stand_alone(f);
		irn_flow_on_ack(f, 1, 5 * MS, 1);
	}
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 0ULL);
	KUNIT_EXPECT_EQ(test, irn_flow_window(f), 16U);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 8 * MS, 1);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 1ULL);
	KUNIT_EXPECT_LT(test, irn_flow_window(f), 16U);

	f = cc_flow(test, 2, true);
	irn_flow_on_ack(f, 1, MS, 0);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 5 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 1ULL);
}

/*
 * A sprayed QP times its delay decisions by its longest path's round
 * trip: with a 500 ms path beside a QP srtt of a few ms, a second queue
 * 20 ms after the first cut is not cut again (the long path has not
 * shown the first cut yet); the QP's srtt alone would allow it.  (20 ms
 * of queue: over the burst allowance, eight targets at most.)
 */
static void irn_test_path_cc_round_trip(struct kunit *test)
{
	struct irn_flow *f = cc_flow(test, 2, true);

	irn_rtt_update(&f->paths.p[1].srtt_ns, &f->paths.p[1].rttvar_ns,
		       500 * MS);
	irn_flow_on_ack(f, 1, MS, 0);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 20 * MS, 0);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 1ULL);
	msleep(20);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 20 * MS, 0);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 1ULL);
	/* the same without the long path's srtt: cut again */
	f = cc_flow(test, 2, true);
	irn_flow_on_ack(f, 1, MS, 0);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 20 * MS, 0);
	msleep(20);
	stand_alone(f);
	irn_flow_on_ack(f, 1, 20 * MS, 0);
	KUNIT_EXPECT_EQ(test, f->delay.st.decreases, 2ULL);
}

static struct kunit_case irn_path_cases[] = {
	KUNIT_CASE(irn_test_path_sport),
	KUNIT_CASE(irn_test_path_spreads),
	KUNIT_CASE(irn_test_path_longer_not_slower),
	KUNIT_CASE(irn_test_path_one),
	KUNIT_CASE(irn_test_path_reply),
	KUNIT_CASE(irn_test_path_ack_path),
	KUNIT_CASE(irn_test_path_ask_ack),
	KUNIT_CASE(irn_test_path_cc_loss),
	KUNIT_CASE(irn_test_path_cc_lengths),
	KUNIT_CASE(irn_test_path_cc_round_trip),
	KUNIT_CASE(irn_test_path_suspect_then_down),
	KUNIT_CASE(irn_test_path_clean_run),
	KUNIT_CASE(irn_test_path_probe),
	KUNIT_CASE(irn_test_path_resend_avoids),
	KUNIT_CASE(irn_test_path_all_down),
	KUNIT_CASE(irn_test_path_window),
	KUNIT_CASE(irn_test_path_sb_other_path_no_loss),
	KUNIT_CASE(irn_test_path_sb_dead_path),
	KUNIT_CASE(irn_test_path_sb_read_waits),
	KUNIT_CASE(irn_test_path_sb_not_monotone),
	KUNIT_CASE(irn_test_path_sb_reorder_and_news),
	KUNIT_CASE(irn_test_path_sb_ack_path),
	KUNIT_CASE(irn_test_path_sb_timed),
	KUNIT_CASE(irn_test_path_sb_resend_credit),
	KUNIT_CASE(irn_test_path_sb_timeout_no_path),
	KUNIT_CASE(irn_test_path_window_unmeasured),
	{}
};

struct kunit_suite irn_path_suite = {
	.name = "irn_path",
	.test_cases = irn_path_cases,
};
