/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * 24-bit packet sequence number arithmetic.
 *
 * PSNs live in a 24-bit circle.  Two PSNs are ordered by the sign of their
 * difference taken modulo 2^24: a PSN up to 2^23 - 1 ahead of another is
 * "after" it, anything further is "before".  Windows (the in-flight cap,
 * SACK bitmaps) are always far smaller than 2^23, so the order is never
 * ambiguous inside them.
 */
#ifndef _IRN_PSN_H
#define _IRN_PSN_H

#include <linux/types.h>

#define IRN_PSN_BITS	24
#define IRN_PSN_MASK	((1U << IRN_PSN_BITS) - 1)

/* irn_psn_add() - @psn advanced by @n (which may be negative), wrapped. */
static inline u32 irn_psn_add(u32 psn, s32 n)
{
	return (psn + (u32)n) & IRN_PSN_MASK;
}

/*
 * irn_psn_diff() - signed distance from @b to @a, in [-2^23, 2^23 - 1].
 * Positive when @a is after @b.
 */
static inline s32 irn_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - IRN_PSN_BITS)) >> (32 - IRN_PSN_BITS);
}

static inline bool irn_psn_before(u32 a, u32 b)
{
	return irn_psn_diff(a, b) < 0;
}

static inline bool irn_psn_after(u32 a, u32 b)
{
	return irn_psn_diff(a, b) > 0;
}

/* irn_psn_max() - the later of @a and @b. */
static inline u32 irn_psn_max(u32 a, u32 b)
{
	return irn_psn_after(a, b) ? a : b;
}

/* irn_psn_in_window() - @psn lies in [@start, @start + @len). */
static inline bool irn_psn_in_window(u32 psn, u32 start, u32 len)
{
	return ((psn - start) & IRN_PSN_MASK) < len;
}

#endif /* _IRN_PSN_H */
