/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receive: validation of every RoCEv2 packet and dispatch to its QP.
 */
#ifndef _IRN_RECV_H
#define _IRN_RECV_H

struct irn_dev;
struct sk_buff;

void irn_recv(struct irn_dev *dev, struct sk_buff *skb);

#endif /* _IRN_RECV_H */
