// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * 24-bit PSN arithmetic: ordering, distance, wrap-around at 2^24.
 */

#include <kunit/test.h>

#include "irn_kunit.h"
#include "irn_psn.h"

struct psn_diff_case {
	const char	*name;
	u32		a;
	u32		b;
	s32		diff;	/* a - b on the 24-bit circle */
};

static const struct psn_diff_case psn_diff_cases[] = {
	{ "equal",		0x000010, 0x000010, 0 },
	{ "one_ahead",		0x000011, 0x000010, 1 },
	{ "one_behind",		0x00000f, 0x000010, -1 },
	{ "ahead_across_wrap",	0x000002, 0xfffffe, 4 },
	{ "behind_across_wrap",	0xfffffe, 0x000002, -4 },
	{ "max_ahead",		0x7fffff, 0x000000, 0x7fffff },
	{ "half_is_behind",	0x800000, 0x000000, -0x800000 },
	{ "max_behind",		0x800001, 0x000000, -0x7fffff },
	{ "top_to_zero",	0x000000, 0xffffff, 1 },
	/* Bits above 24 are not part of a PSN and must not matter. */
	{ "high_bits_ignored",	0xff000005, 0x00000003, 2 },
};

static void psn_diff_case_desc(const struct psn_diff_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(psn_diff, psn_diff_cases, psn_diff_case_desc);

static void irn_test_psn_diff(struct kunit *test)
{
	const struct psn_diff_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, irn_psn_diff(c->a, c->b), c->diff);
	KUNIT_EXPECT_EQ(test, irn_psn_diff(c->b, c->a),
			c->diff == -0x800000 ? -0x800000 : -c->diff);
	KUNIT_EXPECT_EQ(test, irn_psn_before(c->a, c->b), c->diff < 0);
	KUNIT_EXPECT_EQ(test, irn_psn_after(c->a, c->b), c->diff > 0);
	KUNIT_EXPECT_EQ(test, irn_psn_max(c->a, c->b),
			c->diff > 0 ? c->a : c->b);
}

static void irn_test_psn_add_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, irn_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, irn_psn_add(0xfffff0, 0x20), 0x10U);
	KUNIT_EXPECT_EQ(test, irn_psn_add(0x000005, -6), 0xffffffU);
	KUNIT_EXPECT_EQ(test, irn_psn_add(0x123456, 0), 0x123456U);
	/* Adding then taking the distance gives back the step. */
	KUNIT_EXPECT_EQ(test, irn_psn_diff(irn_psn_add(0xfffff0, 100),
					   0xfffff0), 100);
}

static void irn_test_psn_window(struct kunit *test)
{
	/* [0xfffffe, 0xfffffe + 4) = {fffffe, ffffff, 0, 1} */
	KUNIT_EXPECT_TRUE(test, irn_psn_in_window(0xfffffe, 0xfffffe, 4));
	KUNIT_EXPECT_TRUE(test, irn_psn_in_window(0x000000, 0xfffffe, 4));
	KUNIT_EXPECT_TRUE(test, irn_psn_in_window(0x000001, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, irn_psn_in_window(0x000002, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, irn_psn_in_window(0xfffffd, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, irn_psn_in_window(0x000010, 0x000010, 0));
}

static struct kunit_case irn_psn_cases[] = {
	KUNIT_CASE_PARAM(irn_test_psn_diff, psn_diff_gen_params),
	KUNIT_CASE(irn_test_psn_add_wraps),
	KUNIT_CASE(irn_test_psn_window),
	{}
};

struct kunit_suite irn_psn_suite = {
	.name = "irn_psn",
	.test_cases = irn_psn_cases,
};
