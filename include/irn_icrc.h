/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 invariant CRC.
 */
#ifndef _IRN_ICRC_H
#define _IRN_ICRC_H

#include <linux/types.h>

struct sk_buff;

u32 irn_icrc_compute(const struct sk_buff *skb);
bool irn_icrc_valid(const struct sk_buff *skb);
void irn_icrc_fill(struct sk_buff *skb);

#endif /* _IRN_ICRC_H */
