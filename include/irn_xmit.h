/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Building and sending RoCEv2 packets.
 */
#ifndef _IRN_XMIT_H
#define _IRN_XMIT_H

#include <linux/types.h>

struct irn_av;
struct irn_dev;
struct sk_buff;

struct sk_buff *irn_xmit_alloc(struct irn_dev *dev, unsigned int len,
			       gfp_t gfp);
int irn_xmit(struct irn_dev *dev, struct irn_av *av, struct sk_buff *skb,
	     u8 tos);
int irn_xmit_path(struct irn_dev *dev, struct irn_av *av, struct sk_buff *skb,
		  u8 tos, u32 path);

#endif /* _IRN_XMIT_H */
