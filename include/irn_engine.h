/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The three engines of a QP.  Each runs as an irn_task, one instance at a
 * time; see Documentation/design.rst for how they hand work to each other.
 */
#ifndef _IRN_ENGINE_H
#define _IRN_ENGINE_H

#include <linux/hrtimer.h>

#include "irn_task.h"

struct irn_qp;
struct sk_buff;

/* AETH syndromes (IBTA 9.7.5.1.1). */
#define IRN_AETH_TYPE_MASK	0xe0
#define IRN_AETH_ACK		0x00
#define IRN_AETH_RNR_NAK	0x20
#define IRN_AETH_NAK		0x60
#define IRN_AETH_CREDIT_INVALID	0x1f
#define IRN_NAK_PSN_SEQ		0x00
#define IRN_NAK_INVALID_REQ	0x01
#define IRN_NAK_REM_ACCESS	0x02
#define IRN_NAK_REM_OP		0x03
#define IRN_AETH_MSN_MASK	0x00ffffff

/* requester: irn_req.c */
enum irn_task_ret irn_requester(struct irn_task *task);
enum hrtimer_restart irn_req_reo_expired(struct hrtimer *timer);
enum hrtimer_restart irn_req_pace_expired(struct hrtimer *timer);

/* completer: irn_comp.c */
enum irn_task_ret irn_completer(struct irn_task *task);
void irn_comp_queue(struct irn_qp *qp, struct sk_buff *skb);
enum hrtimer_restart irn_comp_rto_expired(struct hrtimer *timer);
enum hrtimer_restart irn_comp_rnr_expired(struct hrtimer *timer);
void irn_comp_arm_rto(struct irn_qp *qp);
void irn_comp_restart_rto(struct irn_qp *qp);

/* responder: irn_resp.c */
enum irn_task_ret irn_responder(struct irn_task *task);
void irn_resp_queue(struct irn_qp *qp, struct sk_buff *skb);
enum hrtimer_restart irn_resp_pace_expired(struct hrtimer *timer);

#endif /* _IRN_ENGINE_H */
