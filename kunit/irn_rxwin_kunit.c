// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receiver window: placement bookkeeping, SACK bits and in-order
 * completion whatever the arrival order.
 */

#include <kunit/test.h>

#include "irn_hdr.h"
#include "irn_kunit.h"
#include "irn_psn.h"
#include "irn_rxwin.h"

static void irn_test_rxwin_classify(struct kunit *test)
{
	struct irn_rx_slot slot = { .len = 7 };
	struct irn_rxwin w;
	u32 epsn = IRN_PSN_MASK;	/* straddles the wrap */

	KUNIT_ASSERT_EQ(test, irn_rxwin_init(&w, 1024, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, irn_rxwin_check(&w, epsn, epsn), IRN_RXW_NEW);
	KUNIT_EXPECT_EQ(test, irn_rxwin_check(&w, epsn, irn_psn_add(epsn, 1023)),
			IRN_RXW_NEW);
	KUNIT_EXPECT_EQ(test, irn_rxwin_check(&w, epsn, irn_psn_add(epsn, 1024)),
			IRN_RXW_OUTSIDE);
	irn_rxwin_put(&w, 2, &slot);
	KUNIT_EXPECT_EQ(test, irn_rxwin_check(&w, epsn, 2), IRN_RXW_DUP);
	KUNIT_EXPECT_EQ(test, w.placed, 1U);
	KUNIT_EXPECT_FALSE(test, irn_rxwin_pop(&w, epsn, &slot));
	irn_rxwin_free(&w);
}

/*
 * SACK bits follow the expected PSN, across the end of the window's ring,
 * up to IRN_SACK_BITS or the window's size, whichever ends first.
 */
static void irn_test_rxwin_sack_bits(struct kunit *test)
{
	const u32 last = IRN_SACK_BITS / 32 - 1;
	struct irn_rx_slot slot = {};
	u32 bits[IRN_SACK_BITS / 32];
	u32 epsn, i, rest = 0;
	struct irn_rxwin w;

	/* A window wider than a SACK: the SACK stops at its last bit. */
	KUNIT_ASSERT_EQ(test, irn_rxwin_init(&w, 2 * IRN_SACK_BITS,
					     GFP_KERNEL), 0);
	epsn = w.size - 20;	/* the bits cross the ring's end */
	irn_rxwin_put(&w, epsn + 1 + 1, &slot);
	irn_rxwin_put(&w, epsn + 1 + 4, &slot);
	irn_rxwin_put(&w, epsn + 1 + 40, &slot);
	irn_rxwin_put(&w, epsn + 1 + IRN_SACK_BITS - 1, &slot);
	irn_rxwin_put(&w, epsn + 1 + IRN_SACK_BITS, &slot);	/* beyond */
	irn_rxwin_sack(&w, epsn, bits);
	KUNIT_EXPECT_EQ(test, bits[0], (u32)(BIT(1) | BIT(4)));
	KUNIT_EXPECT_EQ(test, bits[1], (u32)BIT(8));
	KUNIT_EXPECT_EQ(test, bits[last], (u32)BIT(31));
	for (i = 2; i < last; i++)
		rest |= bits[i];
	KUNIT_EXPECT_EQ(test, rest, 0U);
	irn_rxwin_free(&w);

	/* A window narrower than a SACK: its last PSN is the last bit. */
	KUNIT_ASSERT_EQ(test, irn_rxwin_init(&w, IRN_SACK_BITS / 2,
					     GFP_KERNEL), 0);
	epsn = IRN_PSN_MASK - 5;	/* across the PSN wrap too */
	irn_rxwin_put(&w, irn_psn_add(epsn, 1), &slot);
	irn_rxwin_put(&w, irn_psn_add(epsn, w.size - 1), &slot);
	irn_rxwin_sack(&w, epsn, bits);
	KUNIT_EXPECT_EQ(test, bits[0], (u32)BIT(0));
	i = w.size - 2;
	KUNIT_EXPECT_EQ(test, bits[i / 32], (u32)BIT(i % 32));
	irn_rxwin_free(&w);
}

/*
 * An in-order read moves the expected PSN over its responses' PSNs: what
 * was placed there is forgotten, what lies beyond is kept, and a held
 * read keeps its address, key and length, a held compare-and-swap its
 * address, key and both operands.
 */
static void irn_test_rxwin_skip(struct kunit *test)
{
	struct irn_rx_slot slot = { .flags = IRN_RX_READ, .ex = 0x1234,
				    .len = 5000, .va = 0xfeedface0000ULL };
	struct irn_rx_slot cas = { .flags = IRN_RX_ATOMIC | IRN_RX_CAS,
				   .ex = 0x5678, .va = 0xfeedface0008ULL,
				   .swap_add = 0x0123456789abcdefULL,
				   .compare = 0xfedcba9876543210ULL };
	u32 epsn = irn_psn_add(IRN_PSN_MASK, -1);
	struct irn_rx_slot out;
	struct irn_rxwin w;

	KUNIT_ASSERT_EQ(test, irn_rxwin_init(&w, 64, GFP_KERNEL), 0);
	irn_rxwin_put(&w, irn_psn_add(epsn, 1), &slot);
	irn_rxwin_put(&w, irn_psn_add(epsn, 2), &slot);
	irn_rxwin_put(&w, irn_psn_add(epsn, 3), &slot);
	irn_rxwin_put(&w, irn_psn_add(epsn, 4), &cas);
	irn_rxwin_skip(&w, epsn, 3);
	KUNIT_EXPECT_EQ(test, w.placed, 2U);
	KUNIT_EXPECT_EQ(test, irn_rxwin_check(&w, epsn, irn_psn_add(epsn, 2)),
			IRN_RXW_NEW);
	KUNIT_EXPECT_TRUE(test, irn_rxwin_pop(&w, irn_psn_add(epsn, 3), &out));
	KUNIT_EXPECT_EQ(test, out.flags, (u32)IRN_RX_READ);
	KUNIT_EXPECT_EQ(test, out.ex, 0x1234U);
	KUNIT_EXPECT_EQ(test, out.len, 5000U);
	KUNIT_EXPECT_EQ(test, out.va, 0xfeedface0000ULL);
	KUNIT_EXPECT_TRUE(test, irn_rxwin_pop(&w, irn_psn_add(epsn, 4), &out));
	KUNIT_EXPECT_EQ(test, out.flags, (u32)(IRN_RX_ATOMIC | IRN_RX_CAS));
	KUNIT_EXPECT_EQ(test, out.ex, 0x5678U);
	KUNIT_EXPECT_EQ(test, out.va, 0xfeedface0008ULL);
	KUNIT_EXPECT_EQ(test, out.swap_add, 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, out.compare, 0xfedcba9876543210ULL);
	/* Skipping a window or more forgets everything. */
	irn_rxwin_put(&w, irn_psn_add(epsn, 70), &slot);
	irn_rxwin_skip(&w, epsn, 1000);
	KUNIT_EXPECT_EQ(test, w.placed, 0U);
	irn_rxwin_free(&w);
}

/*
 * Four messages of 3, 1, 4 and 2 packets arrive in a scrambled order; the
 * drain after each arrival must complete messages in order, each exactly
 * when it and every earlier one has fully arrived.
 */
static const u8 msg_len[] = { 3, 1, 4, 2 };
static const u8 arrival[][10] = {
	{ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 },
	{ 3, 0, 5, 1, 9, 2, 4, 8, 6, 7 },
	{ 1, 2, 0, 4, 5, 6, 3, 8, 7, 9 },
};

static void irn_test_rxwin_in_order_completion(struct kunit *test)
{
	struct irn_rx_slot slot;
	struct irn_rxwin w;
	bool arrived[10];
	u32 a, i, m, psn, epsn, done, base = IRN_PSN_MASK - 4;

	KUNIT_ASSERT_EQ(test, irn_rxwin_init(&w, 64, GFP_KERNEL), 0);
	for (a = 0; a < ARRAY_SIZE(arrival); a++) {
		irn_rxwin_reset(&w);
		memset(arrived, 0, sizeof(arrived));
		epsn = base;
		done = 0;
		for (i = 0; i < 10; i++) {
			u32 p = arrival[a][i], first = 0, complete = 0;

			/* message of packet p, and its slot */
			for (m = 0; p >= first + msg_len[m]; m++)
				first += msg_len[m];
			slot = (struct irn_rx_slot) {
				.flags = p == first + msg_len[m] - 1 ?
					 IRN_RX_LAST | IRN_RX_RECV : 0,
				.rsn = m,
			};
			irn_rxwin_put(&w, irn_psn_add(base, p), &slot);
			arrived[p] = true;
			while (irn_rxwin_pop(&w, epsn, &slot)) {
				epsn = irn_psn_add(epsn, 1);
				if (slot.flags & IRN_RX_LAST) {
					KUNIT_EXPECT_EQ(test, slot.rsn, done);
					done++;
				}
			}
			/* what should be complete: the in-order prefix */
			for (psn = 0, first = 0, m = 0; m < ARRAY_SIZE(msg_len);
			     first += msg_len[m++]) {
				for (psn = first; psn < first + msg_len[m] &&
				     arrived[psn]; psn++)
					;
				if (psn < first + msg_len[m])
					break;
				complete++;
			}
			KUNIT_EXPECT_EQ_MSG(test, done, complete,
					    "order %u after %u arrivals", a,
					    i + 1);
		}
		KUNIT_EXPECT_EQ(test, epsn, irn_psn_add(base, 10));
		KUNIT_EXPECT_EQ(test, w.placed, 0U);
	}
	irn_rxwin_free(&w);
}

static struct kunit_case irn_rxwin_cases[] = {
	KUNIT_CASE(irn_test_rxwin_classify),
	KUNIT_CASE(irn_test_rxwin_sack_bits),
	KUNIT_CASE(irn_test_rxwin_skip),
	KUNIT_CASE(irn_test_rxwin_in_order_completion),
	{}
};

struct kunit_suite irn_rxwin_suite = {
	.name = "irn_rxwin",
	.test_cases = irn_rxwin_cases,
};
