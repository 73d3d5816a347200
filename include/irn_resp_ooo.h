/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The responder's IRN path: out-of-order placement in the receiver window
 * (irn_resp_ooo.c).  The responder's state machine (irn_resp.c) calls it
 * for IRN requests when the QP can place out of order.
 */
#ifndef _IRN_RESP_OOO_H
#define _IRN_RESP_OOO_H

#include "irn_resp_reply.h"

struct irn_qp;

enum resp_state irn_resp_ooo_check(struct resp_ctx *c);
enum resp_state irn_resp_ooo_place(struct resp_ctx *c);
enum resp_state irn_resp_ooo_hold(struct resp_ctx *c);
void irn_resp_ooo_drain(struct resp_ctx *c);
void irn_resp_ooo_drain_resume(struct irn_qp *qp);

#endif /* _IRN_RESP_OOO_H */
