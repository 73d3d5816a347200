// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Flow policy: the window, the RTT estimator and RTO selection.
 */

#include <kunit/test.h>

#include "irn_flow.h"
#include "irn_kunit.h"

#define US	1000ULL
#define MS	1000000ULL

static void irn_test_flow_default_window(struct kunit *test)
{
	struct irn_flow f;

	irn_flow_init(&f, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), IRN_FLOW_DEFAULT_CAP);
	irn_flow_init(&f, 7);
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), 7U);
}

/* Without a sample the floor (the QP's own timeout) is all we know. */
static void irn_test_flow_rto_before_samples(struct kunit *test)
{
	struct irn_flow f;

	irn_flow_init(&f, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 67 * MS, 268 * MS), 67 * MS);
	irn_flow_on_ack(&f, 3, 0, IRN_PATH_NONE);	/* a resent packet gives no sample */
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 67 * MS, 268 * MS), 67 * MS);
}

/* First sample: srtt = R, rttvar = R/2, so RTO = 3R (RFC 6298 2.2). */
static void irn_test_flow_first_sample(struct kunit *test)
{
	struct irn_flow f;

	irn_flow_init(&f, 0);
	irn_flow_on_ack(&f, 1, 40 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 1 * MS, 1000 * MS),
			120 * MS);
}

/*
 * A steady RTT converges: rttvar decays, and the RTO settles a quarter
 * above the RTT (the longest one seen), not on it.
 */
static void irn_test_flow_converges(struct kunit *test)
{
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	for (i = 0; i < 200; i++)
		irn_flow_on_ack(&f, 1, 10 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.srtt_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 0, 1000 * MS), 12500 * US);
}

/*
 * A 300 us path whose ACK came once 3 ms late (a vCPU stall): the short
 * timeout keeps covering such a stall after hundreds of calm samples,
 * where RFC 6298's estimate alone is back under 1 ms after a dozen and
 * would fire early at the next stall.
 */
static void irn_test_flow_stall_remembered(struct kunit *test)
{
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	for (i = 0; i < 200; i++)
		irn_flow_on_ack(&f, 1, 300 * US, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_flow_irn_rto_ns(&f, 1, 0, 0, 2000 * MS),
			375 * US);
	irn_flow_on_ack(&f, 1, 3 * MS, IRN_PATH_NONE);
	for (i = 0; i < 500; i++)
		irn_flow_on_ack(&f, 1, 300 * US, IRN_PATH_NONE);
	KUNIT_EXPECT_LT(test, f.srtt_ns + 2 * f.rttvar_ns, 1 * MS);
	KUNIT_EXPECT_GE(test, irn_flow_irn_rto_ns(&f, 1, 0, 0, 2000 * MS),
			3750 * US);
	KUNIT_EXPECT_GE(test, irn_flow_irn_rto_ns(&f, 100, 0, 0, 2000 * MS),
			3750 * US);
}

/* The RTO never leaves [floor, ceil], whatever the samples say. */
static void irn_test_flow_rto_clamped(struct kunit *test)
{
	struct irn_flow f;

	irn_flow_init(&f, 0);
	irn_flow_on_ack(&f, 1, 1000 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 67 * MS, 268 * MS),
			268 * MS);
	irn_flow_init(&f, 0);
	irn_flow_on_ack(&f, 1, 1 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_flow_rto_ns(&f, 67 * MS, 268 * MS), 67 * MS);
}

/* A jump in RTT raises the RTO above the new RTT at once. */
static void irn_test_flow_rtt_jump(struct kunit *test)
{
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	for (i = 0; i < 50; i++)
		irn_flow_on_ack(&f, 1, 5 * MS, IRN_PATH_NONE);
	irn_flow_on_ack(&f, 1, 100 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_GT(test, irn_flow_rto_ns(&f, 0, 1000 * MS), 100 * MS);
}

/* IRN: short timeout for a tail (few in flight), long otherwise, <= 4T. */
static const struct {
	u32 inflight;
	u64 low_floor, high_floor, t, rtt, want;
} irn_rto_cases[] = {
	/* one 10 ms sample: srtt 10, rttvar 5 */
	{ 1, 1 * MS, 5 * MS, 67 * MS, 10 * MS, 20 * MS },
	{ 3, 1 * MS, 5 * MS, 67 * MS, 10 * MS, 20 * MS },
	{ 4, 1 * MS, 5 * MS, 67 * MS, 10 * MS, 30 * MS },
	{ 4, 1 * MS, 50 * MS, 67 * MS, 10 * MS, 50 * MS },	/* floor */
	{ 1, 25 * MS, 5 * MS, 67 * MS, 10 * MS, 25 * MS },	/* floor */
	{ 100, 1 * MS, 5 * MS, 4 * MS, 10 * MS, 16 * MS },	/* 4T */
	{ 1, 1 * MS, 5 * MS, 67 * MS, 0, 67 * MS },	/* no sample: T */
};

static void irn_test_flow_irn_rto(struct kunit *test)
{
	struct irn_flow f;
	int i;

	for (i = 0; i < ARRAY_SIZE(irn_rto_cases); i++) {
		typeof(irn_rto_cases[0]) *c = &irn_rto_cases[i];

		irn_flow_init(&f, 0);
		irn_flow_on_ack(&f, 1, c->rtt, IRN_PATH_NONE);
		KUNIT_EXPECT_EQ_MSG(test,
				    irn_flow_irn_rto_ns(&f, c->inflight,
							c->low_floor,
							c->high_floor, c->t),
				    c->want, "case %d", i);
	}
}

/*
 * Timeouts that fire early on a steady 10 ms path whose late packets take
 * 40 ms: each raises the short timeout until it covers them, and steady
 * samples afterwards do not bring it under them again.
 */
static void irn_test_flow_spurious_rto(struct kunit *test)
{
	struct irn_flow f;
	u64 rto, prev;
	int i, n = 0;

	irn_flow_init(&f, 0);
	for (i = 0; i < 200; i++)
		irn_flow_on_ack(&f, 1, 10 * MS, IRN_PATH_NONE);
	rto = irn_flow_irn_rto_ns(&f, 1, 1 * MS, 5 * MS, 2000 * MS);
	KUNIT_EXPECT_EQ(test, rto, 12500 * US);
	while (rto < 40 * MS) {
		prev = rto;
		/* the late ACK came at 40 ms, the duplicate's after 10 more */
		irn_flow_on_spurious_rto(&f, rto, 40 * MS - rto + 10 * MS);
		rto = irn_flow_irn_rto_ns(&f, 1, 1 * MS, 5 * MS, 2000 * MS);
		KUNIT_EXPECT_GT(test, rto, prev);
		if (++n > 6)
			break;
	}
	KUNIT_EXPECT_GE(test, rto, 40 * MS);
	KUNIT_EXPECT_LE(test, n, 6);
	for (i = 0; i < 30; i++)
		irn_flow_on_ack(&f, 1, 10 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_GE(test, irn_flow_irn_rto_ns(&f, 1, 1 * MS, 5 * MS,
						  2000 * MS), 40 * MS);
}

/* The reordering window widens on spurious resends and narrows slowly. */
static void irn_test_flow_reorder_window(struct kunit *test)
{
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	irn_flow_on_reorder(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 0ULL);
	irn_flow_on_ack(&f, 1, 8 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 10 * MS);
	irn_flow_on_spurious(&f, 1);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 12 * MS);
	/* Once per loss episode, however many duplicates it produced. */
	irn_flow_on_spurious(&f, 100);
	irn_flow_on_spurious(&f, 1);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 12 * MS);
	irn_flow_on_loss(&f);
	irn_flow_on_spurious(&f, 1);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 14 * MS);
	for (i = 0; i < 10; i++) {
		irn_flow_on_loss(&f);
		irn_flow_on_spurious(&f, 3);
	}
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 16 * MS);
	for (i = 0; i < 15; i++)
		irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 16 * MS);
	irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 14 * MS);
	for (i = 0; i < 16 * 30; i++)
		irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 10 * MS);
}

/*
 * No reordering window until the path is seen to reorder; then the
 * window stays, through any number of calm loss episodes.  Spurious
 * resends alone (a timeout's, say) widen the window it will use but do
 * not open it.
 */
static void irn_test_flow_reord(struct kunit *test)
{
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	irn_flow_on_ack(&f, 1, 8 * MS, IRN_PATH_NONE);
	for (i = 0; i < 40; i++)
		irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 0ULL);
	irn_flow_on_spurious(&f, 1);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 0ULL);
	irn_flow_on_reorder(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 12 * MS);
	for (i = 0; i < 16 * 30; i++)
		irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 10 * MS);
	/* Evidence restarts the count towards narrowing. */
	irn_flow_on_spurious(&f, 1);
	for (i = 0; i < 15; i++)
		irn_flow_on_loss(&f);
	irn_flow_on_reorder(&f);
	irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_reorder_ns(&f), 12 * MS);
}

/*
 * The window counts packets in the network; the span from the oldest
 * hole stays half a window clear of what the bitmaps track.
 */
static const struct {
	u32 cap, pipe, span, span_max;
	bool open;
} window_cases[] = {
	{ 128, 0, 0, 512, true },
	{ 128, 127, 127, 512, true },
	{ 128, 128, 128, 512, false },		/* window full */
	{ 128, 100, 300, 512, true },		/* SACKed packets left */
	{ 128, 100, 447, 512, true },
	{ 128, 100, 448, 512, false },		/* room for the hole */
	{ 128, 127, 127, U32_MAX, true },	/* go-back-N */
	{ 128, 128, 128, U32_MAX, false },
	{ 4, 3, 60, 64, true },
	{ 4, 3, 62, 64, false },
};

static void irn_test_flow_window_open(struct kunit *test)
{
	struct irn_flow f;
	int i;

	for (i = 0; i < ARRAY_SIZE(window_cases); i++) {
		typeof(window_cases[0]) *c = &window_cases[i];

		irn_flow_init(&f, c->cap);
		KUNIT_EXPECT_EQ_MSG(test,
				    irn_flow_window_open(&f, c->pipe, c->span,
							 c->span_max),
				    c->open, "case %d", i);
	}
}

/* A packet's time at a rate: 1000 B at 100 Mbit/s take 80 us. */
static void irn_test_flow_gap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, irn_flow_gap_ns(1000, 100000), 80 * US);
	KUNIT_EXPECT_EQ(test, irn_flow_gap_ns(4096, 1000000), 32768ULL);
	KUNIT_EXPECT_EQ(test, irn_flow_gap_ns(1000, 0), 0ULL);
}

/*
 * DCQCN's rate paces the QP.  A packet may go IRN_FLOW_PACE_SLACK_NS
 * (200 us) before it is due, so the QP sends that much at once and then
 * waits.  A CNP (alpha still 1) halves the rate, doubling the spacing; a
 * second later the rate is back, and the pause earned one packet's time
 * (80 us at 100 Mbit/s) and no more.
 */
static void irn_test_flow_pacing(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 0);
	irn_cc_config_default(&cfg, IRN_CC_DCQCN);
	cfg.dcqcn.max_kbps = 100000;
	irn_flow_cc_start(&f, &cfg, 1, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), 0);
	for (i = 0; i < 2; i++)
		irn_flow_on_sent(&f, 1000, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), 0);	/* due at 160 */
	for (i = 0; i < 3; i++)
		irn_flow_on_sent(&f, 1000, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), (ktime_t)(200 * US));
	KUNIT_EXPECT_TRUE(test, irn_flow_on_cnp(&f, 0));
	KUNIT_EXPECT_EQ(test, irn_flow_rate_kbps(&f, 0), 50000U);
	irn_flow_on_sent(&f, 1000, 0);			/* due at 560 */
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), (ktime_t)(360 * US));
	irn_flow_on_sent(&f, 1000, 1000 * MS);
	KUNIT_EXPECT_EQ(test, irn_flow_rate_kbps(&f, 1000 * MS), 100000U);
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f),
			(ktime_t)(1000 * MS - 200 * US));
}

/*
 * A pacing timer that fires late costs no rate: at 100 Mbit/s a
 * 1000-byte packet is due every 80 us, and packets sent 50 us after
 * they were due keep every later packet on its own schedule.  A packet
 * later than one packet's time starts the clock again from one packet's
 * time ago.
 */
static void irn_test_flow_pacing_late(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;
	u64 due = 0;
	int i;

	irn_flow_init(&f, 0);
	irn_cc_config_default(&cfg, IRN_CC_DCQCN);
	cfg.dcqcn.max_kbps = 100000;
	irn_flow_cc_start(&f, &cfg, 1, 0);
	for (i = 0; i < 100; i++) {
		irn_flow_on_sent(&f, 1000, due + 50 * US);
		due += 80 * US;
		KUNIT_EXPECT_EQ(test, READ_ONCE(f.next_ns), due);
	}
	irn_flow_on_sent(&f, 1000, due + 300 * US);
	KUNIT_EXPECT_EQ(test, READ_ONCE(f.next_ns), due + 300 * US);
}

/* The delay controller narrows the window and ignores CNPs. */
static void irn_test_flow_delay_window(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;

	irn_flow_init(&f, 8);
	irn_cc_config_default(&cfg, IRN_CC_DELAY);
	irn_flow_cc_start(&f, &cfg, 1, 0);
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), 8U);
	irn_flow_on_loss(&f);
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), 4U);
	KUNIT_EXPECT_FALSE(test, irn_flow_on_cnp(&f, 0));
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), 0);
}

/*
 * The delay window grows from the acknowledgments an IRN completer gives:
 * each packet once, with the acknowledgment that first delivered it
 * (mark_acked()'s count with its sample, a read response alone, an
 * atomic at its retirement), and packets whose acknowledgment measured
 * nothing (resent ones, sends a read response passed) judged by the
 * latest sample.  Below the target (200 us base + 1 ms) 4 + 4 packets
 * take 8 to 9185 / 1024, 16 more without a sample to 10862; a 5 ms
 * sample halves it (MAX_MDF), after which packets without a sample
 * leave it be, until a sample below the target again, with no packets
 * of its own, lets 16 grow it from 5431 to 7960.  Only the fresh samples
 * reach srtt.  The 5 ms sample comes after a quiet round trip (the
 * test runs faster than its RTTs): it stands alone, as a queue does.
 */
static void irn_test_flow_delay_grows_on_acks(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;
	int i;

	irn_flow_init(&f, 16);
	irn_cc_config_default(&cfg, IRN_CC_DELAY);
	irn_flow_cc_start(&f, &cfg, 1, 0);
	f.delay.st.cwnd = 8 * IRN_DELAY_ONE;
	/* Nothing to judge packets by before the first sample. */
	irn_flow_on_ack(&f, 8, 0, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 8 * IRN_DELAY_ONE);
	KUNIT_EXPECT_EQ(test, f.srtt_ns, 0ULL);
	irn_flow_on_ack(&f, 4, 200 * US, IRN_PATH_NONE);
	irn_flow_on_ack(&f, 4, 200 * US, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 9185U);
	for (i = 0; i < 16; i++)
		irn_flow_on_ack(&f, 1, 0, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 10862U);
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), 10U);
	KUNIT_EXPECT_EQ(test, f.srtt_ns, 200 * US);

	f.delay.st.stand_ns = 0;
	irn_flow_on_ack(&f, 1, 5 * MS, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 5431U);
	for (i = 0; i < 16; i++)
		irn_flow_on_ack(&f, 1, 0, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 5431U);
	irn_flow_on_ack(&f, 0, 300 * US, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 5431U);
	for (i = 0; i < 16; i++)
		irn_flow_on_ack(&f, 1, 0, IRN_PATH_NONE);
	KUNIT_EXPECT_EQ(test, f.delay.st.cwnd, 7960U);
	KUNIT_EXPECT_EQ(test, f.delay.st.decreases, 1ULL);
	/* 200, 200, 5000, 300 us: RFC 6298's 1/8 steps, nothing more. */
	KUNIT_EXPECT_EQ(test, f.srtt_ns, 737500ULL);
}

/*
 * A window narrower than the ACK interval asks for ACKs within itself:
 * at one packet, every packet asks (else it waits for the timer).
 */
static void irn_test_flow_ack_every(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;

	irn_flow_init(&f, IRN_FLOW_DEFAULT_CAP);
	KUNIT_EXPECT_EQ(test, irn_flow_ack_every(&f), IRN_FLOW_ACK_EVERY);
	irn_flow_init(&f, 10);
	KUNIT_EXPECT_EQ(test, irn_flow_ack_every(&f), 5U);
	irn_flow_init(&f, 8);
	irn_cc_config_default(&cfg, IRN_CC_DELAY);
	irn_flow_cc_start(&f, &cfg, 1, 0);
	KUNIT_EXPECT_FALSE(test, irn_flow_narrowed(&f));
	f.delay.st.cwnd = 3 * IRN_DELAY_ONE / 2;	/* one and a half */
	KUNIT_ASSERT_EQ(test, irn_flow_window(&f), 1U);
	KUNIT_EXPECT_TRUE(test, irn_flow_narrowed(&f));
	KUNIT_EXPECT_EQ(test, irn_flow_ack_every(&f), 1U);
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 1, IRN_PATH_NONE,
						 1, 0));

	/*
	 * Under a narrowed window every packet asks, whatever its place:
	 * the window may narrow behind any of them.
	 */
	f.delay.st.cwnd = 5 * IRN_DELAY_ONE;
	KUNIT_ASSERT_EQ(test, irn_flow_ack_every(&f), 2U);
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 3, IRN_PATH_NONE,
						 1, 0));

	/*
	 * Under the cap alone (10: an interval of 5), the third packet of a
	 * message asks only if it fills the window.
	 */
	irn_flow_init(&f, 10);
	KUNIT_EXPECT_FALSE(test, irn_flow_ask_ack(&f, false, 3, IRN_PATH_NONE,
						  9, 0));
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 3, IRN_PATH_NONE,
						 10, 0));
}

/*
 * A paced QP asks for an ACK a quarter of srtt after the last packet
 * that asked, however few packets that is; an unpaced one every
 * irn_flow_ack_every() packets of a message, and on its last.
 */
static void irn_test_flow_ask_ack_paced(struct kunit *test)
{
	const u64 us = NSEC_PER_USEC;
	struct irn_cc_config cfg;
	struct irn_flow f;

	irn_flow_init(&f, IRN_FLOW_DEFAULT_CAP);
	irn_flow_on_ack(&f, 1, 1000 * us, IRN_PATH_NONE);
	KUNIT_EXPECT_FALSE(test, irn_flow_ask_ack(&f, false, 1, IRN_PATH_NONE,
						  1, 300 * us));
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, true, 2, IRN_PATH_NONE,
						 1, 310 * us));
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 32, IRN_PATH_NONE,
						 1, 320 * us));

	irn_flow_init(&f, IRN_FLOW_DEFAULT_CAP);
	irn_cc_config_default(&cfg, IRN_CC_DCQCN);
	irn_flow_cc_start(&f, &cfg, 1, 0);
	irn_flow_on_ack(&f, 1, 1000 * us, IRN_PATH_NONE);
	irn_flow_on_sent(&f, 1000, 0);
	KUNIT_ASSERT_NE(test, f.next_ns, 0ULL);
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 1, IRN_PATH_NONE,
						 1, 300 * us));
	KUNIT_EXPECT_FALSE(test, irn_flow_ask_ack(&f, false, 2, IRN_PATH_NONE,
						  1, 400 * us));
	KUNIT_EXPECT_FALSE(test, irn_flow_ask_ack(&f, false, 3, IRN_PATH_NONE,
						  1, 540 * us));
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 4, IRN_PATH_NONE,
						 1, 560 * us));
	KUNIT_EXPECT_TRUE(test, irn_flow_ask_ack(&f, false, 32, IRN_PATH_NONE,
						 1, 570 * us));
}

/* Without congestion control nothing is paced or narrowed. */
static void irn_test_flow_cc_none(struct kunit *test)
{
	struct irn_cc_config cfg;
	struct irn_flow f;

	irn_flow_init(&f, 8);
	irn_cc_config_default(&cfg, IRN_CC_NONE);
	irn_flow_cc_start(&f, &cfg, 1, 0);
	irn_flow_on_sent(&f, 1000, 0);
	irn_flow_on_loss(&f);
	KUNIT_EXPECT_FALSE(test, irn_flow_on_cnp(&f, 0));
	KUNIT_EXPECT_EQ(test, irn_flow_window(&f), 8U);
	KUNIT_EXPECT_EQ(test, irn_flow_next_send(&f), 0);
	KUNIT_EXPECT_EQ(test, irn_cc_parse("dcqcn\n"), IRN_CC_DCQCN);
	KUNIT_EXPECT_LT(test, irn_cc_parse("dctcp"), 0);
}

static struct kunit_case irn_flow_cases[] = {
	KUNIT_CASE(irn_test_flow_gap),
	KUNIT_CASE(irn_test_flow_pacing),
	KUNIT_CASE(irn_test_flow_pacing_late),
	KUNIT_CASE(irn_test_flow_delay_window),
	KUNIT_CASE(irn_test_flow_delay_grows_on_acks),
	KUNIT_CASE(irn_test_flow_ack_every),
	KUNIT_CASE(irn_test_flow_ask_ack_paced),
	KUNIT_CASE(irn_test_flow_cc_none),
	KUNIT_CASE(irn_test_flow_window_open),
	KUNIT_CASE(irn_test_flow_reord),
	KUNIT_CASE(irn_test_flow_reorder_window),
	KUNIT_CASE(irn_test_flow_irn_rto),
	KUNIT_CASE(irn_test_flow_spurious_rto),
	KUNIT_CASE(irn_test_flow_default_window),
	KUNIT_CASE(irn_test_flow_rto_before_samples),
	KUNIT_CASE(irn_test_flow_first_sample),
	KUNIT_CASE(irn_test_flow_converges),
	KUNIT_CASE(irn_test_flow_stall_remembered),
	KUNIT_CASE(irn_test_flow_rto_clamped),
	KUNIT_CASE(irn_test_flow_rtt_jump),
	{}
};

struct kunit_suite irn_flow_suite = {
	.name = "irn_flow",
	.test_cases = irn_flow_cases,
};
