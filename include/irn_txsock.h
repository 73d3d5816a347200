/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Ownership of a QP's packets in the local transmit path.
 */
#ifndef _IRN_TXSOCK_H
#define _IRN_TXSOCK_H

#include <linux/types.h>

struct irn_qp;
struct sk_buff;

int irn_txsock_create(struct irn_qp *qp);
void irn_txsock_own(struct irn_qp *qp, struct sk_buff *skb);
bool irn_txsock_full(const struct irn_qp *qp);
int irn_txsock_queued(const struct irn_qp *qp);
int irn_txsock_drain(struct irn_qp *qp, long timeout);
void irn_txsock_detach(struct irn_qp *qp);
void irn_txsock_release(struct irn_qp *qp);
void irn_txsock_wait_all(void);

#endif /* _IRN_TXSOCK_H */
