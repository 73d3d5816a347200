/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The completer's IRN path: selective acknowledgment and retransmission
 * (irn_comp_sack.c).  The completer's state machine (irn_comp.c) calls it
 * for a QP with IRN on.
 */
#ifndef _IRN_COMP_SACK_H
#define _IRN_COMP_SACK_H

#include "irn_comp_retire.h"

struct irn_pkt;
struct irn_qp;
struct sack_view;
struct sk_buff;

void irn_comp_sack_acked_before(struct irn_qp *qp, u32 psn,
				struct sack_view *sv, u32 ack_path);
enum comp_state irn_comp_sack_ack(struct irn_qp *qp, struct sk_buff *skb,
				  struct irn_pkt *pkt);
enum comp_state irn_comp_sack_read(struct irn_qp *qp, struct sk_buff *skb,
				   struct irn_pkt *pkt);
enum comp_state irn_comp_sack_atomic(struct irn_qp *qp, struct sk_buff *skb,
				     struct irn_pkt *pkt);
enum comp_state irn_comp_sack_atomic_write(struct irn_qp *qp,
					   struct irn_pkt *pkt);

#endif /* _IRN_COMP_SACK_H */
