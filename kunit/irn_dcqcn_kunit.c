// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DCQCN reaction point: scripted CNPs, timer periods and bytes sent give
 * the rates and alphas of the paper's update rules, worked out by hand.
 */

#include <kunit/test.h>

#include "irn_dcqcn.h"
#include "irn_kunit.h"

#define US	1000ULL
#define GBIT	1000000U	/* in kbit/s */

/*
 * The defaults, with room above the rates the scripts reach, and every
 * CNP cutting (the scripts send several at once; the monitor period has
 * a test of its own).
 */
static void params(struct irn_dcqcn_params *p)
{
	irn_dcqcn_params_default(p);
	p->max_kbps = 10 * GBIT;
	p->cut_ns = 0;
}

static void irn_test_dcqcn_defaults_valid(struct kunit *test)
{
	struct irn_dcqcn_params p;

	irn_dcqcn_params_default(&p);
	KUNIT_EXPECT_TRUE(test, irn_dcqcn_params_valid(&p));
	p.bytes = 100;
	KUNIT_EXPECT_FALSE(test, irn_dcqcn_params_valid(&p));
	irn_dcqcn_params_default(&p);
	p.min_kbps = p.max_kbps + 1;
	KUNIT_EXPECT_FALSE(test, irn_dcqcn_params_valid(&p));
	irn_dcqcn_params_default(&p);
	p.g = 0;
	KUNIT_EXPECT_FALSE(test, irn_dcqcn_params_valid(&p));
}

/* alpha starts at 1: the first CNP halves the rate and RT keeps the old. */
static void irn_test_dcqcn_first_cnp_halves(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 10 * GBIT);
	irn_dcqcn_on_cnp(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 10 * GBIT);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 5 * GBIT);
	/* (1 - 4/1024) * 1024 + 4 */
	KUNIT_EXPECT_EQ(test, d.alpha, 1024U);
	KUNIT_EXPECT_EQ(test, d.cuts, 1ULL);
}

/* Once per K without a CNP: alpha = (1 - g) * alpha, rounded down. */
static void irn_test_dcqcn_alpha_decay(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_advance(&d, &p, 54 * US);
	KUNIT_EXPECT_EQ(test, d.alpha, 1024U);
	irn_dcqcn_advance(&d, &p, 55 * US);
	KUNIT_EXPECT_EQ(test, d.alpha, 1020U);	/* 1024 * 1020 / 1024 */
	irn_dcqcn_advance(&d, &p, 82 * US);
	KUNIT_EXPECT_EQ(test, d.alpha, 1020U);	/* half a period: nothing */
	irn_dcqcn_advance(&d, &p, 165 * US);
	KUNIT_EXPECT_EQ(test, d.alpha, 1012U);	/* 1016, then 1012 */
	/* Long enough and it is gone, in a bounded number of steps. */
	irn_dcqcn_advance(&d, &p, 3600ULL * 1000000 * US);
	KUNIT_EXPECT_EQ(test, d.alpha, 0U);
}

/* RC = RC * (1 - alpha / 2) with alpha = 1/2, then alpha moves up by g. */
static void irn_test_dcqcn_cut_by_alpha(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	d.rc_kbps = 8 * GBIT;	/* limited: alpha is the QP's own */
	d.alpha = 512;
	irn_dcqcn_on_cnp(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 6 * GBIT);
	KUNIT_EXPECT_EQ(test, d.alpha, 514U);	/* 512 * 1020 / 1024 + 4 */
}

/* No cut goes below min_dec_pct of the rate, nor below the minimum. */
static void irn_test_dcqcn_cut_floors(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	p.min_dec_pct = 60;
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 6 * GBIT);
	d.rc_kbps = 1500;
	irn_dcqcn_on_cnp(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, p.min_kbps);
}

/*
 * Two CNPs leave RT = 5 Gbit/s and RC = 2.5.  Each timer period then
 * averages RC with RT; the first (F = 1) is fast recovery, the later
 * ones add AI to RT first.
 */
static void irn_test_dcqcn_timer_increase(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5 * GBIT);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 2500000U);
	irn_dcqcn_advance(&d, &p, 299 * US);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 2500000U);
	irn_dcqcn_advance(&d, &p, 300 * US);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5 * GBIT);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 3750000U);
	irn_dcqcn_advance(&d, &p, 600 * US);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5005000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4377500U);
	irn_dcqcn_advance(&d, &p, 900 * US);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5010000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4693750U);
}

/*
 * The byte counter counts like the timer; with both past F the target
 * grows by i * HAI, i the smaller count minus F.
 */
static void irn_test_dcqcn_hyper_increase(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_sent(&d, &p, p.bytes - 1);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 2500000U);
	irn_dcqcn_on_sent(&d, &p, 1);		/* bytes 1: fast recovery */
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 3750000U);
	irn_dcqcn_on_sent(&d, &p, p.bytes);	/* bytes 2: additive */
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5005000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4377500U);
	irn_dcqcn_advance(&d, &p, 300 * US);	/* timer 1: additive */
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5010000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4693750U);
	irn_dcqcn_advance(&d, &p, 600 * US);	/* timer 2: hyper, i = 1 */
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5060000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4876875U);
	irn_dcqcn_on_sent(&d, &p, p.bytes);	/* bytes 3: i = 1 */
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5110000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 4993438U);	/* rounded up */
	irn_dcqcn_advance(&d, &p, 900 * US);	/* timer 3: i = 2 */
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5210000U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 5101719U);
}

/* A CNP restarts both counters: the next expiry is fast recovery. */
static void irn_test_dcqcn_cnp_restarts(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;
	u32 rc, rt;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_sent(&d, &p, p.bytes - 10);
	irn_dcqcn_advance(&d, &p, 900 * US);
	KUNIT_EXPECT_EQ(test, d.timer_count, 3U);
	irn_dcqcn_on_cnp(&d, &p, 1000 * US);
	rc = d.rc_kbps;
	rt = d.rt_kbps;
	KUNIT_EXPECT_EQ(test, rt, 4693750U);
	KUNIT_EXPECT_LT(test, rc, rt);
	KUNIT_EXPECT_EQ(test, d.timer_count, 0U);
	KUNIT_EXPECT_EQ(test, d.byte_count, 0U);
	KUNIT_EXPECT_EQ(test, d.byte_acc, 0U);
	irn_dcqcn_on_sent(&d, &p, 10);		/* the old bytes are gone */
	KUNIT_EXPECT_EQ(test, d.byte_count, 0U);
	/* 1299 us: not yet a period since the CNP */
	irn_dcqcn_advance(&d, &p, 1299 * US);
	KUNIT_EXPECT_EQ(test, d.timer_count, 0U);
	irn_dcqcn_advance(&d, &p, 1300 * US);
	KUNIT_EXPECT_EQ(test, d.timer_count, 1U);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, rt);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, DIV_ROUND_UP(rt + rc, 2));
}

/* An idle hour later the QP is back at the line rate. */
static void irn_test_dcqcn_idle_recovers(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;

	params(&p);
	irn_dcqcn_init(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_on_cnp(&d, &p, 0);
	irn_dcqcn_advance(&d, &p, 3600ULL * 1000000 * US);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, p.max_kbps);
	KUNIT_EXPECT_EQ(test, d.rt_kbps, p.max_kbps);
	KUNIT_EXPECT_EQ(test, d.alpha, 0U);
	/* back at the line rate, the next CNP halves it, as the first did */
	irn_dcqcn_on_cnp(&d, &p, 3600ULL * 1000000 * US);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, p.max_kbps / 2);
	KUNIT_EXPECT_EQ(test, d.alpha, IRN_DCQCN_ONE);
	/* and a hundred periods do it step by step, RC halving the gap */
	d.rc_kbps = GBIT;
	irn_dcqcn_advance(&d, &p, 3600ULL * 1000000 * US + 3 * 300 * US);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 8875000U);	/* 5.5, 7.75, 8.875 */
	irn_dcqcn_advance(&d, &p, 3600ULL * 1000000 * US + 100 * 300 * US);
	KUNIT_EXPECT_EQ(test, d.timer_count, 100U);
	KUNIT_EXPECT_EQ(test, d.rc_kbps, p.max_kbps);
}

/*
 * With the default monitor period (4 us), CNPs 1 and 3 us after a cut
 * change nothing; one 4 us after it cuts again, by the alpha the first
 * cut left.
 */
static void irn_test_dcqcn_monitor_period(struct kunit *test)
{
	struct irn_dcqcn_params p;
	struct irn_dcqcn d;
	u32 alpha;

	irn_dcqcn_params_default(&p);
	p.max_kbps = 10 * GBIT;
	irn_dcqcn_init(&d, &p, 0);
	KUNIT_EXPECT_TRUE(test, irn_dcqcn_on_cnp(&d, &p, 0));
	alpha = d.alpha;
	KUNIT_EXPECT_FALSE(test, irn_dcqcn_on_cnp(&d, &p, 1 * US));
	KUNIT_EXPECT_FALSE(test, irn_dcqcn_on_cnp(&d, &p, 3 * US));
	KUNIT_EXPECT_EQ(test, d.rc_kbps, 5 * GBIT);
	KUNIT_EXPECT_EQ(test, d.alpha, alpha);
	KUNIT_EXPECT_EQ(test, d.cuts, 1ULL);
	KUNIT_EXPECT_TRUE(test, irn_dcqcn_on_cnp(&d, &p, 4 * US));
	KUNIT_EXPECT_EQ(test, d.rt_kbps, 5 * GBIT);
	KUNIT_EXPECT_EQ(test, d.rc_kbps,
			(u32)((u64)5 * GBIT * (2048 - alpha) / 2048));
	KUNIT_EXPECT_EQ(test, d.cuts, 2ULL);
}

static struct kunit_case irn_dcqcn_cases[] = {
	KUNIT_CASE(irn_test_dcqcn_defaults_valid),
	KUNIT_CASE(irn_test_dcqcn_first_cnp_halves),
	KUNIT_CASE(irn_test_dcqcn_alpha_decay),
	KUNIT_CASE(irn_test_dcqcn_cut_by_alpha),
	KUNIT_CASE(irn_test_dcqcn_cut_floors),
	KUNIT_CASE(irn_test_dcqcn_timer_increase),
	KUNIT_CASE(irn_test_dcqcn_hyper_increase),
	KUNIT_CASE(irn_test_dcqcn_cnp_restarts),
	KUNIT_CASE(irn_test_dcqcn_idle_recovers),
	KUNIT_CASE(irn_test_dcqcn_monitor_period),
	{}
};

struct kunit_suite irn_dcqcn_suite = {
	.name = "irn_dcqcn",
	.test_cases = irn_dcqcn_cases,
};
