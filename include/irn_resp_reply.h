/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the responder's two paths stand on (irn_resp_reply.c): the request
 * state machine's states and context, which the engine (irn_resp.c) runs
 * and the IRN path's handlers (irn_resp_ooo.c) take and return, the small
 * helpers both paths ask, and building and sending responses, answering
 * reads, executing atomics, keeping responder resources and finishing
 * receive WQEs.  Private to the responder.
 */
#ifndef _IRN_RESP_REPLY_H
#define _IRN_RESP_REPLY_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_qp.h"

struct sk_buff;

enum resp_state {
	RESP_CHECK_PSN,
	RESP_IRN_CHECK,
	RESP_IRN_PLACE,
	RESP_IRN_HOLD,
	RESP_CHECK_SEQ,
	RESP_CHECK_ACCESS,
	RESP_SEND,
	RESP_WRITE,
	RESP_READ,
	RESP_ATOMIC,
	RESP_ATOMIC_WRITE,
	RESP_DUPLICATE,
	RESP_COMPLETE,
	RESP_ACK,
	RESP_NAK,
	RESP_RNR,
	RESP_DROP,
	RESP_DONE,
};

struct resp_ctx {
	struct irn_qp		*qp;
	struct sk_buff		*skb;
	struct irn_pkt		*pkt;
	u8			nak;		/* NAK code for RESP_NAK */
	enum ib_wc_status	status;		/* receive completion status */
	bool			irn;		/* took the IRN way */
	bool			sack;		/* answer with a SACK */
	bool			dsack;		/* ... of a duplicate */
};

static inline void *ext_hdr(struct resp_ctx *c, u32 hdr)
{
	return c->skb->data + irn_pkt_hdr_offset(c->pkt, hdr);
}

static inline u32 rwqe_max_sge(const struct irn_qp *qp)
{
	return qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;
}

/* The MR an rkey (of an MR or a window) grants this access to, or NULL. */
static inline struct irn_mr *get_rkey(struct irn_qp *qp, u32 rkey,
				      int access, u64 va, u64 len)
{
	return irn_mr_lookup_remote(qp->dev, rkey, qp->ib_qp.pd,
				    irn_qp_num(qp), access, va, len);
}

static inline u32 read_psns(const struct irn_qp *qp, u32 len)
{
	return max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);
}

static inline bool read_pending(const struct irn_qp *qp)
{
	return qp->resp.rd.npkts;
}

/*
 * Responder resources: the last max_dest_rd_atomic reads and atomics, the
 * only ones a duplicate request is answered from, as the IBTA describes.
 */
static inline u32 resources(const struct irn_qp *qp)
{
	return max_t(u32, qp->max_dest_rd_atomic, 1);
}

struct sk_buff *irn_resp_new_response_ext(struct irn_qp *qp, u8 opcode,
					  u32 psn, u8 syndrome, u32 paylen,
					  bool ext, bool dsack);
void irn_resp_xmit_response(struct irn_qp *qp, struct sk_buff *skb);
void irn_resp_xmit_ack(struct irn_qp *qp, struct sk_buff *skb);
void irn_resp_send_ack(struct irn_qp *qp, u8 syndrome, u32 psn);
bool irn_resp_read_continue(struct irn_qp *qp);
bool irn_resp_read_start(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
			 u32 psn);
void irn_resp_read_resource(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
			    u32 psn);
void irn_resp_send_atomic_ack(struct irn_qp *qp, u32 psn, u64 orig);
int irn_resp_execute_atomic(struct irn_qp *qp, u32 psn, u8 opcode, u32 rkey,
			    u64 va, u64 swap_add, u64 compare);
void irn_resp_send_atomic_write_reply(struct irn_qp *qp, u32 psn);
int irn_resp_execute_atomic_write(struct irn_qp *qp, u32 psn, u32 rkey,
				  u64 va, u64 value);
bool irn_resp_atomic_write_value(struct resp_ctx *c, u64 *value);
void irn_resp_finish_recv(struct irn_qp *qp, struct ib_wc *wc, bool se);

#endif /* _IRN_RESP_REPLY_H */
