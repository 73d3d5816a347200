/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receiver window: IRN requests placed in memory but not yet completed.
 *
 * The responder places every IRN request it can as soon as it arrives,
 * in order or not, and records it here; completions and the cumulative
 * acknowledgment then move over the window strictly in PSN order, so
 * receive completions appear only when a message and every message before
 * it has fully arrived.  Read and atomic requests wait here too, and run
 * when the window reaches them.  Pure bookkeeping, tested by KUnit.
 */
#ifndef _IRN_RXWIN_H
#define _IRN_RXWIN_H

#include <linux/types.h>

/* What the responder remembers of a placed packet until it completes. */
enum irn_rx_slot_flags {
	IRN_RX_LAST	= BIT(0),	/* last packet of its message */
	IRN_RX_RECV	= BIT(1),	/* the message consumes a receive WQE */
	IRN_RX_WRITE	= BIT(2),	/* ... as a write with immediate */
	IRN_RX_IMM	= BIT(3),	/* @ex is immediate data */
	IRN_RX_INV	= BIT(4),	/* @ex is an rkey to invalidate */
	IRN_RX_SE	= BIT(5),	/* solicited event */
	IRN_RX_READ	= BIT(6),	/* a read request, executed in order */
	IRN_RX_ATOMIC	= BIT(7),	/* an atomic request, likewise */
	IRN_RX_CAS	= BIT(8),	/* ... a compare-and-swap */
	IRN_RX_ATOMIC_WRITE = BIT(9),	/* an atomic write, likewise */
};

/**
 * struct irn_rx_slot - a placed packet, or a held read, atomic or atomic
 *	write request
 * @flags: enum irn_rx_slot_flags
 * @ex: immediate data (wire order), rkey to invalidate, or a read's,
 *	atomic's or atomic write's rkey
 * @va: a read's, atomic's or atomic write's address
 * @len: message length so far, i.e. offset + payload of this packet; or
 *	 a read's length
 * @rsn: receive sequence number of its message
 * @swap_add: an atomic's swap or add operand; an atomic write's 8 bytes,
 *	      as they came
 * @compare: a compare-and-swap's compare operand
 */
struct irn_rx_slot {
	u32	flags;
	u32	ex;
	u64	va;
	union {
		struct {
			u32	len;
			u32	rsn;
		};
		u64	swap_add;
	};
	u64	compare;
};

/**
 * struct irn_rxwin - receiver window of one QP
 * @size: PSNs tracked after the expected PSN, a power of two
 * @placed: slots in use
 * @got: placed PSNs
 * @slot: one per PSN, indexed by PSN modulo @size
 */
struct irn_rxwin {
	u32			size;
	u32			placed;
	unsigned long		*got;
	struct irn_rx_slot	*slot;
};

/**
 * enum irn_rx_place - where a request falls in the window
 * @IRN_RXW_NEW: not seen yet: place it
 * @IRN_RXW_DUP: already placed
 * @IRN_RXW_OUTSIDE: beyond the window: drop it
 */
enum irn_rx_place {
	IRN_RXW_NEW,
	IRN_RXW_DUP,
	IRN_RXW_OUTSIDE,
};

int irn_rxwin_init(struct irn_rxwin *w, u32 size, gfp_t gfp);
void irn_rxwin_free(struct irn_rxwin *w);
void irn_rxwin_reset(struct irn_rxwin *w);
enum irn_rx_place irn_rxwin_check(const struct irn_rxwin *w, u32 epsn,
				  u32 psn);
void irn_rxwin_put(struct irn_rxwin *w, u32 psn,
		   const struct irn_rx_slot *slot);
bool irn_rxwin_pop(struct irn_rxwin *w, u32 epsn, struct irn_rx_slot *slot);
void irn_rxwin_skip(struct irn_rxwin *w, u32 psn, u32 n);
void irn_rxwin_sack(const struct irn_rxwin *w, u32 epsn, u32 *bits);

#endif /* _IRN_RXWIN_H */
