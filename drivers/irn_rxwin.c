// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receiver window; see include/irn_rxwin.h.
 */

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "irn_hdr.h"
#include "irn_psn.h"
#include "irn_rxwin.h"

static u32 idx(const struct irn_rxwin *w, u32 psn)
{
	return psn & (w->size - 1);
}

/**
 * irn_rxwin_init() - allocate a receiver window
 * @w: window
 * @size: PSNs to track, rounded up to a power of two
 * @gfp: allocation flags
 *
 * Context: any; may sleep if @gfp allows.
 * Return: 0 or -ENOMEM.
 */
int irn_rxwin_init(struct irn_rxwin *w, u32 size, gfp_t gfp)
{
	memset(w, 0, sizeof(*w));
	w->size = roundup_pow_of_two(max(size, 64U));
	w->got = bitmap_zalloc(w->size, gfp);
	w->slot = kvcalloc(w->size, sizeof(*w->slot), gfp);
	if (!w->got || !w->slot) {
		irn_rxwin_free(w);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_init);

/**
 * irn_rxwin_free() - free a receiver window
 * @w: window, possibly never initialised past the memset
 *
 * Context: process context (kvfree).
 */
void irn_rxwin_free(struct irn_rxwin *w)
{
	bitmap_free(w->got);
	kvfree(w->slot);
	w->got = NULL;
	w->slot = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_free);

/**
 * irn_rxwin_reset() - forget every placed packet
 * @w: window
 *
 * Context: the responder, or modify_qp with the responder stopped.
 */
void irn_rxwin_reset(struct irn_rxwin *w)
{
	bitmap_zero(w->got, w->size);
	w->placed = 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_reset);

/**
 * irn_rxwin_check() - classify a request at or after the expected PSN
 * @w: window
 * @epsn: expected PSN
 * @psn: the request's PSN, not before @epsn
 *
 * Context: the responder.
 * Return: enum irn_rx_place.
 */
enum irn_rx_place irn_rxwin_check(const struct irn_rxwin *w, u32 epsn,
				  u32 psn)
{
	if (!irn_psn_in_window(psn, epsn, w->size))
		return IRN_RXW_OUTSIDE;
	return test_bit(idx(w, psn), w->got) ? IRN_RXW_DUP : IRN_RXW_NEW;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_check);

/**
 * irn_rxwin_put() - record a placed packet
 * @w: window
 * @psn: its PSN, for which irn_rxwin_check() said IRN_RXW_NEW
 * @slot: what completing it will need
 *
 * Context: the responder.
 */
void irn_rxwin_put(struct irn_rxwin *w, u32 psn,
		   const struct irn_rx_slot *slot)
{
	w->slot[idx(w, psn)] = *slot;
	__set_bit(idx(w, psn), w->got);
	w->placed++;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_put);

/**
 * irn_rxwin_pop() - take the packet at the expected PSN, if placed
 * @w: window
 * @epsn: expected PSN
 * @slot: filled with what was recorded
 *
 * Context: the responder.
 * Return: true if @epsn was placed; the caller then advances its epsn.
 */
bool irn_rxwin_pop(struct irn_rxwin *w, u32 epsn, struct irn_rx_slot *slot)
{
	if (!test_bit(idx(w, epsn), w->got))
		return false;
	__clear_bit(idx(w, epsn), w->got);
	*slot = w->slot[idx(w, epsn)];
	w->placed--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_pop);

/**
 * irn_rxwin_skip() - forget PSNs the expected PSN jumped over
 * @w: window
 * @psn: first of them
 * @n: how many
 *
 * An in-order read or atomic moves the expected PSN by itself; whatever a
 * (misbehaving) peer placed at the PSNs it covers must not resurface a
 * window later.
 *
 * Context: the responder.
 */
void irn_rxwin_skip(struct irn_rxwin *w, u32 psn, u32 n)
{
	if (!w->placed)
		return;
	for (n = min(n, w->size); n; n--, psn = irn_psn_add(psn, 1)) {
		if (__test_and_clear_bit(idx(w, psn), w->got))
			w->placed--;
	}
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_skip);

/* Ring bits [@from, @to) of @w->got become SACK bits from @first on. */
static void sack_run(const struct irn_rxwin *w, u32 from, u32 to, u32 first,
		     u32 *bits)
{
	u32 b = from, i;

	for_each_set_bit_from(b, w->got, to) {
		i = first + b - from;
		bits[i / 32] |= BIT(i % 32);
	}
}

/**
 * irn_rxwin_sack() - selective acknowledgment bits after the expected PSN
 * @w: window
 * @epsn: expected PSN (the SACK base)
 * @bits: IRN_SACK_BITS / 32 words; bit i is PSN @epsn + 1 + i
 *
 * Context: the responder.
 */
void irn_rxwin_sack(const struct irn_rxwin *w, u32 epsn, u32 *bits)
{
	u32 n = min_t(u32, IRN_SACK_BITS, w->size - 1);
	u32 start = idx(w, epsn + 1);
	u32 head = min(n, w->size - start);	/* bits before the ring wraps */

	memset(bits, 0, IRN_SACK_BITS / 8);
	if (!w->placed)
		return;
	sack_run(w, start, start + head, 0, bits);
	sack_run(w, 0, n - head, head, bits);
}
EXPORT_SYMBOL_IF_KUNIT(irn_rxwin_sack);
