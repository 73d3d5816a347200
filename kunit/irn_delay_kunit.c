// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Delay-based window: scripted RTT samples against the target, worked
 * out by hand.
 */

#include <kunit/test.h>

#include "irn_delay.h"
#include "irn_kunit.h"

#define US	1000ULL
#define ONE	IRN_DELAY_ONE

static void irn_test_delay_defaults_valid(struct kunit *test)
{
	struct irn_delay_params p;

	irn_delay_params_default(&p);
	KUNIT_EXPECT_TRUE(test, irn_delay_params_valid(&p));
	p.max_mdf = ONE;
	KUNIT_EXPECT_FALSE(test, irn_delay_params_valid(&p));
	irn_delay_params_default(&p);
	p.min_cwnd = 0;
	KUNIT_EXPECT_FALSE(test, irn_delay_params_valid(&p));
	irn_delay_params_default(&p);
	p.burst_pkts = 65;
	KUNIT_EXPECT_FALSE(test, irn_delay_params_valid(&p));
	irn_delay_params_default(&p);
	p.target_ns = U64_MAX;
	KUNIT_EXPECT_FALSE(test, irn_delay_params_valid(&p));
}

/* Below the target a round trip's worth of ACKs adds AI (one packet). */
static void irn_test_delay_grows_below_target(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 8, 0);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * ONE);
	irn_delay_on_loss(&d, &p, 100 * US, 0);
	KUNIT_EXPECT_EQ(test, d.cwnd, 4 * ONE);
	irn_delay_on_ack(&d, &p, 4, 100 * US, 100 * US, 10 * US);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 1100 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 5 * ONE);
	/* never past the cap */
	irn_delay_on_ack(&d, &p, 1000, 100 * US, 100 * US, 20 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * ONE);
	/* no sample, no change */
	irn_delay_on_loss(&d, &p, 100 * US, 1000 * US);
	irn_delay_on_ack(&d, &p, 4, 0, 100 * US, 1100 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 4 * ONE);
}

/*
 * Packets acknowledged without a sample of their own grow the window as
 * the latest sample was judged: by its standing RTT.  From 4 packets, a
 * sample at 100 us and one packet take it to 4352 / 1024, four more
 * without a sample to 5315.  A sample 5 ms late within half a round trip
 * of one at 100 us is jitter: judged at 100 us, its packet and the ones
 * after it grow the window.  A standing RTT above the target, or none at
 * all, changes nothing: no decrease on old evidence, and the base RTT
 * stays.
 */
static void irn_test_delay_unsampled(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;
	u32 w;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 8, 0);
	irn_delay_on_loss(&d, &p, 100 * US, 0);
	irn_delay_on_ack_unsampled(&d, &p, 4);
	KUNIT_EXPECT_EQ(test, d.cwnd, 4 * ONE);
	irn_delay_on_ack(&d, &p, 1, 100 * US, 100 * US, 10 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 4352U);
	irn_delay_on_ack_unsampled(&d, &p, 4);
	KUNIT_EXPECT_EQ(test, d.cwnd, 5315U);
	irn_delay_on_ack_unsampled(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.cwnd, 5315U);
	irn_delay_on_ack(&d, &p, 1, 5000 * US, 100 * US, 20 * US);
	KUNIT_EXPECT_EQ(test, d.judged_ns, 100 * US);
	w = d.cwnd;
	KUNIT_EXPECT_GT(test, w, 5315U);
	irn_delay_on_ack_unsampled(&d, &p, 4);
	KUNIT_EXPECT_GT(test, d.cwnd, w);
	/* standing at 5 ms: one decrease when it comes, none after */
	irn_delay_on_ack(&d, &p, 1, 5000 * US, 100 * US, 300 * US);
	KUNIT_EXPECT_EQ(test, d.judged_ns, 5000 * US);
	KUNIT_EXPECT_EQ(test, d.decreases, 2ULL);
	w = d.cwnd;
	irn_delay_on_ack_unsampled(&d, &p, 4);
	KUNIT_EXPECT_EQ(test, d.cwnd, w);
	KUNIT_EXPECT_EQ(test, d.decreases, 2ULL);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 1100 * US);
	/* never past the cap */
	irn_delay_on_ack(&d, &p, 1, 100 * US, 100 * US, 500 * US);
	irn_delay_on_ack_unsampled(&d, &p, 1000);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * ONE);
}

/*
 * Above the target the window shrinks by BETA * (rtt - target) / rtt:
 * 2.2 ms against 1.1 is 819 / 2 = 409 of 1024, so 8 packets become
 * 8 * 615 / 1024.  Once a round trip only; a far larger delay, standing
 * alone (half a round trip after the last sample), cuts by MAX_MDF (a
 * half) and no more.
 */
static void irn_test_delay_shrinks_above_target(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 8, 0);
	irn_delay_on_ack(&d, &p, 1, 100 * US, 100 * US, 0);
	irn_delay_on_ack(&d, &p, 1, 2200 * US, 500 * US, 1000 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * 615U);
	irn_delay_on_ack(&d, &p, 1, 2200 * US, 500 * US, 1499 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * 615U);
	irn_delay_on_ack(&d, &p, 1, 100000 * US, 500 * US, 2000 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * 615U / 2);
	KUNIT_EXPECT_EQ(test, d.decreases, 2ULL);
}

/*
 * Jitter is not a queue: samples 3 ms late every other packet (a
 * descheduled vCPU) between ones at the base RTT leave the window be,
 * since the standing RTT (the smallest of the last half to whole round
 * trip) stays at the base.  The same 3 ms held for a round trip is a
 * queue and shrinks it.
 */
static void irn_test_delay_jitter_is_no_queue(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;
	u64 t;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 8, 0);
	for (t = 0; t < 100; t++)
		irn_delay_on_ack(&d, &p, 1, t % 2 ? 3100 * US : 100 * US,
				 1000 * US, t * 100 * US);
	KUNIT_EXPECT_EQ(test, d.decreases, 0ULL);
	KUNIT_EXPECT_EQ(test, d.cwnd, 8 * ONE);
	for (t = 100; t < 112; t++)
		irn_delay_on_ack(&d, &p, 1, 3100 * US, 1000 * US,
				 t * 100 * US);
	KUNIT_EXPECT_EQ(test, d.decreases, 1ULL);
	KUNIT_EXPECT_LT(test, d.cwnd, 8 * ONE);
}

/*
 * Under one packet the window still moves: it never goes below
 * min_cwnd, and grows by AI per packet acknowledged.
 */
static void irn_test_delay_sub_packet(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;
	int i;

	irn_delay_params_default(&p);
	p.min_cwnd = 8;
	irn_delay_init(&d, 4, 0);
	for (i = 1; i <= 20; i++)
		irn_delay_on_loss(&d, &p, 100 * US, i * 100 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, p.min_cwnd);
	irn_delay_on_ack(&d, &p, 1, 100 * US, 100 * US, 2100 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, p.min_cwnd + ONE);
}

/*
 * The base RTT follows a path that became longer: after a filter period
 * and the next the old, short samples are forgotten and 5 ms no longer
 * reads as congestion (without the burst allowance, which the next test
 * takes).
 */
static void irn_test_delay_base_follows_path(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;
	u64 t;

	irn_delay_params_default(&p);
	p.burst_pkts = 0;
	irn_delay_init(&d, 8, 0);
	irn_delay_on_ack(&d, &p, 1, 100 * US, 100 * US, 0);
	for (t = 1; t < 25; t++)
		irn_delay_on_ack(&d, &p, 1, 5000 * US, 5000 * US,
				 t * 1000000 * US);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 6000 * US);
	d.cwnd = 4 * ONE;
	irn_delay_on_ack(&d, &p, 4, 5000 * US, 5000 * US, 25000000 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 5 * ONE);
}

/*
 * The queue a window's bursts make is allowed at the QP's rate: 4
 * packets over a 4 ms round trip are 1 ms apart, so 4 packets of queue
 * are 4 ms and a standing 2 ms over the base is no congestion; at 32
 * packets (0.125 ms apart, 0.5 ms for 4, under the 1 ms target) the
 * same 2 ms is, and the window shrinks.  The allowance grows as the
 * window narrows but never past eight targets: one packet over 20 ms
 * would allow 80.
 */
static void irn_test_delay_burst_allowance(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 32, 0);
	d.cwnd = 4 * ONE;
	irn_delay_on_ack(&d, &p, 1, 4000 * US, 4000 * US, 0);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 8000 * US);
	irn_delay_on_ack(&d, &p, 1, 6000 * US, 4000 * US, 10000 * US);
	KUNIT_EXPECT_EQ(test, d.decreases, 0ULL);

	irn_delay_init(&d, 32, 0);
	irn_delay_on_ack(&d, &p, 1, 4000 * US, 4000 * US, 0);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 5000 * US);
	irn_delay_on_ack(&d, &p, 1, 6000 * US, 4000 * US, 10000 * US);
	KUNIT_EXPECT_EQ(test, d.decreases, 1ULL);

	irn_delay_init(&d, 32, 0);
	d.cwnd = ONE;
	irn_delay_on_ack(&d, &p, 0, 20000 * US, 20000 * US, 0);
	KUNIT_EXPECT_EQ(test, irn_delay_target_ns(&d, &p), 28000 * US);
}

/* Before the first RTT sample one loss counts, however many follow. */
static void irn_test_delay_no_sample_one_cut(struct kunit *test)
{
	struct irn_delay_params p;
	struct irn_delay d;

	irn_delay_params_default(&p);
	irn_delay_init(&d, 8, 0);
	irn_delay_on_loss(&d, &p, 0, 0);
	irn_delay_on_loss(&d, &p, 0, 300000 * US);
	irn_delay_on_loss(&d, &p, 0, 600000 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 4 * ONE);
	irn_delay_on_loss(&d, &p, 100 * US, 700000 * US);
	KUNIT_EXPECT_EQ(test, d.cwnd, 2 * ONE);
}

static struct kunit_case irn_delay_cases[] = {
	KUNIT_CASE(irn_test_delay_defaults_valid),
	KUNIT_CASE(irn_test_delay_grows_below_target),
	KUNIT_CASE(irn_test_delay_unsampled),
	KUNIT_CASE(irn_test_delay_shrinks_above_target),
	KUNIT_CASE(irn_test_delay_jitter_is_no_queue),
	KUNIT_CASE(irn_test_delay_sub_packet),
	KUNIT_CASE(irn_test_delay_base_follows_path),
	KUNIT_CASE(irn_test_delay_burst_allowance),
	KUNIT_CASE(irn_test_delay_no_sample_one_cut),
	{}
};

struct kunit_suite irn_delay_suite = {
	.name = "irn_delay",
	.test_cases = irn_delay_cases,
};
