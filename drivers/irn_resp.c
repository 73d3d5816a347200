// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder: executes incoming requests.
 *
 * A request packet goes through a state machine whose handlers each return
 * the next state:
 *
 *   CHECK_PSN -> CHECK_SEQ -> CHECK_ACCESS -> (SEND | WRITE | READ |
 *   ATOMIC | ATOMIC_WRITE) -> COMPLETE -> ACK -> DONE
 *
 * with NAK, RNR and DROP as the ways out.  Standard RoCEv2 delivery is in
 * order: a packet past the expected PSN earns one PSN sequence NAK and is
 * dropped; a duplicate is acknowledged again (or its read or atomic reply
 * sent again).  Nothing touches memory before the key, access rights and
 * range have been checked.
 *
 * IRN requests (those carrying an irn_ixth) take their own way when this
 * QP can place out of order:
 *
 *   CHECK_PSN -> IRN_CHECK -> IRN_PLACE -> DONE, then the window drains
 *
 * A send or write is placed wherever its PSN falls in the receiver window
 * and recorded there; completions, the MSN and the expected PSN then move
 * over the window in order.  Reads, atomics and atomic writes are executed
 * in order only (they must see, or follow, every earlier write): one that
 * arrives early is held in the window, and runs when the window drains up
 * to it.  Every request that arrives out of order is answered by an ACK
 * carrying a SACK of the window; in-order requests get a plain ACK while
 * the window holds none.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>

#include "irn_av.h"
#include "irn_compat.h"
#include "irn_counters.h"
#include "irn_cq.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_rxwin.h"
#include "irn_srq.h"
#include "irn_trace.h"
#include "irn_xmit.h"

#define IRN_GRH_LEN	40

/*
 * Read responses per responder round: a large read is answered over many
 * rounds, which the engine's budget spreads over softirq and workqueue.
 */
#define IRN_READ_BATCH	16

/*
 * Requests waiting for the responder, at most.  They queue while it
 * answers a large read (or runs on another CPU); a peer must not fill
 * memory meanwhile.  Those beyond are dropped and recovered as losses.
 */
#define IRN_RESP_BACKLOG	4096

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

static void *ext_hdr(struct resp_ctx *c, u32 hdr)
{
	return c->skb->data + irn_pkt_hdr_offset(c->pkt, hdr);
}

/*
 * Build a response packet with @paylen bytes of room after the headers,
 * and the IRN header if @ext; returns the skb to fill, or NULL.  Every
 * response says whether this responder speaks IRN: that is the whole
 * negotiation (see Documentation/wire-format.rst).
 */
static struct sk_buff *new_response_ext(struct irn_qp *qp, u8 opcode, u32 psn,
					u8 syndrome, u32 paylen, bool ext,
					bool dsack)
{
	u8 pad = (4 - (paylen & 3)) & 3;
	u32 hdr_len = irn_opcode_hdr_len(opcode) +
		      (ext ? irn_ext_len(opcode) : 0);
	struct irn_bth_fields bth = {
		.opcode = opcode,
		.pad = pad,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = qp->dest_qpn,
		.psn = psn,
		.irn_cap = irn_qp_irn_responder(qp),
		.irn_ext = ext,
		.irn_dsack = dsack,
	};
	struct irn_pkt pkt = { .flags = irn_opcode_flags(opcode) };
	struct sk_buff *skb;

	skb = irn_xmit_alloc(qp->dev, hdr_len + paylen + pad, GFP_ATOMIC);
	if (!skb)
		return NULL;
	irn_bth_encode((struct irn_bth *)skb->data, &bth);
	if (pkt.flags & IRN_HDR_AETH) {
		struct irn_aeth *aeth = (void *)(skb->data +
				irn_pkt_hdr_offset(&pkt, IRN_HDR_AETH));

		aeth->smsn = cpu_to_be32((u32)syndrome << 24 |
					 (qp->resp.msn & IRN_AETH_MSN_MASK));
	}
	memset(skb->data + hdr_len + paylen, 0, pad);
	return skb;
}

/*
 * Send a response along the QP's address vector, which modify_qp may be
 * replacing meanwhile (irn_qp.h).  Read responses (@data) carry the QP's
 * data and its congestion control's traffic class, as its requests do
 * (ECN-capable under DCQCN); acknowledgments go as the address vector
 * says.
 */
static void xmit_tos(struct irn_qp *qp, struct sk_buff *skb, bool data)
{
	struct irn_av *av;

	rcu_read_lock();
	av = rcu_dereference(qp->av);
	if (av)
		irn_xmit(qp->dev, av, skb,
			 data ? irn_flow_tos(&qp->flow, av->tos) : av->tos);
	else
		kfree_skb(skb);
	rcu_read_unlock();
}

static void xmit_response(struct irn_qp *qp, struct sk_buff *skb)
{
	xmit_tos(qp, skb, false);
}

static struct sk_buff *new_response(struct irn_qp *qp, u8 opcode, u32 psn,
				    u8 syndrome, u32 paylen)
{
	return new_response_ext(qp, opcode, psn, syndrome, paylen, false,
				false);
}

/* Keep SACK bit @i alone, as IRN's NACK names one PSN (sack_single). */
static void sack_only(u32 *bits, u32 i)
{
	u32 w;

	for (w = 0; w < IRN_SACK_BITS / 32; w++)
		if (i >= IRN_SACK_BITS || w != i / 32)
			bits[w] = 0;
		else
			bits[w] &= BIT(i % 32);
}

static void send_ack(struct irn_qp *qp, u8 syndrome, u32 psn)
{
	struct sk_buff *skb = new_response(qp, IB_OPCODE_RC_ACKNOWLEDGE, psn,
					   syndrome, 0);

	if (skb)
		xmit_response(qp, skb);
}

/*
 * IRN: acknowledge up to the expected PSN, with a SACK of what follows;
 * @psn is the request that triggered it, @dsack says it was one already
 * received.  With nothing held out of order and no duplicate to report
 * the SACK would be empty: a plain ACK says the same in 132 bytes less.
 */
static void send_sack(struct irn_qp *qp, u32 psn, bool dsack)
{
	u32 epsn = qp->resp.epsn, bits[IRN_SACK_BITS / 32], i;
	struct irn_sackh *sack;
	struct sk_buff *skb;

	qp->resp.sack_owed = 0;
	if (!qp->resp.win.placed && !dsack) {
		send_ack(qp, IRN_AETH_CREDIT_INVALID, irn_psn_add(epsn, -1));
		return;
	}
	skb = new_response_ext(qp, IB_OPCODE_RC_ACKNOWLEDGE,
			       irn_psn_add(epsn, -1), IRN_AETH_CREDIT_INVALID,
			       0, true, dsack);
	if (!skb)
		return;
	sack = (void *)(skb->data + irn_opcode_hdr_len(IB_OPCODE_RC_ACKNOWLEDGE));
	irn_rxwin_sack(&qp->resp.win, epsn, bits);
	if (qp->irn.sack_single)
		sack_only(bits, irn_psn_diff(psn, epsn) - 1);
	sack->base = cpu_to_be32(epsn);
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		sack->bits[i] = cpu_to_be32(bits[i]);
	if (qp->resp.win.placed)
		irn_dev_count(qp->dev, IRN_CNT_SACK_SENT);
	xmit_response(qp, skb);
}

/*
 * A send or write placed ahead of a hole is acknowledged selectively once
 * in IRN_SACK_EVERY, or at once if its sender asked (AckReq: the last
 * packet of a message, a resend, or as irn_flow_ack_every() says).  Everything
 * else that moves the window is acknowledged at once (irn_drain()): a
 * filled hole, a duplicate, a held read or atomic.  Every SACK carries
 * the whole bitmap, so the ones left out lose no information; they only
 * delay the sender's loss detection by up to IRN_SACK_EVERY - 1 packets,
 * and halve, or better, the ACKs its completer processes during recovery.
 * IRN's single-PSN NACK (sack_single) carries one PSN and cannot skip any.
 */
#define IRN_SACK_EVERY	4

static bool sack_due(struct irn_qp *qp, const struct irn_pkt *pkt)
{
	if (pkt->ack_req || qp->irn.sack_single)
		return true;
	return ++qp->resp.sack_owed >= IRN_SACK_EVERY;
}

static enum resp_state check_psn(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	s32 diff = irn_psn_diff(c->pkt->psn, qp->resp.epsn);

	if (irn_qp_is_ud(qp))
		return RESP_CHECK_SEQ;
	if (c->pkt->ext_off && irn_qp_irn_responder(qp))
		return RESP_IRN_CHECK;
	if (!irn_qp_is_rc(qp)) {
		/* UC: a gap loses the message; resynchronise on a new one. */
		if (diff && !(c->pkt->flags & IRN_OP_FIRST))
			return RESP_DROP;
		if (diff)
			qp->resp.in_msg = false;
		qp->resp.epsn = c->pkt->psn;
		return RESP_CHECK_SEQ;
	}
	if (diff > 0) {
		if (qp->resp.nak_sent)
			return RESP_DROP;
		qp->resp.nak_sent = true;
		irn_dev_count(qp->dev, IRN_CNT_SEQ_NAK_SENT);
		c->nak = IRN_NAK_PSN_SEQ;
		return RESP_NAK;
	}
	if (diff < 0) {
		irn_dev_count(qp->dev, IRN_CNT_DUP_REQ);
		return RESP_DUPLICATE;
	}
	qp->resp.nak_sent = false;
	return RESP_CHECK_SEQ;
}

static enum resp_state bad_request(struct resp_ctx *c)
{
	if (!irn_qp_is_rc(c->qp)) {
		c->qp->resp.in_msg = false;
		return RESP_DROP;
	}
	c->nak = IRN_NAK_INVALID_REQ;
	return RESP_NAK;
}

/* FIRST/MIDDLE/LAST must follow each other within one kind of message. */
static enum resp_state check_seq(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 flags = c->pkt->flags;
	u32 kind = IRN_OP_SEND | IRN_OP_WRITE;

	if (!(flags & IRN_OP_REQ))
		return RESP_DROP;
	if (qp->resp.in_msg) {
		if ((flags & IRN_OP_FIRST) ||
		    (flags & kind) != (irn_opcode_flags(qp->resp.last_opcode) &
				       kind))
			return bad_request(c);
	} else if (!(flags & IRN_OP_FIRST)) {
		return bad_request(c);
	}
	/* Full-MTU packets except the last of a message. */
	if ((flags & IRN_OP_PAYLOAD) && !(flags & IRN_OP_LAST) &&
	    c->pkt->paylen != qp->mtu)
		return bad_request(c);
	if (c->pkt->paylen > qp->mtu)
		return bad_request(c);
	return RESP_CHECK_ACCESS;
}

static enum resp_state check_access(struct resp_ctx *c)
{
	u32 flags = c->pkt->flags;
	int need = flags & IRN_OP_WRITE ? IB_ACCESS_REMOTE_WRITE :
		   flags & IRN_OP_READ ? IB_ACCESS_REMOTE_READ :
		   flags & IRN_OP_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC :
		   flags & IRN_OP_ATOMIC_WRITE ? IB_ACCESS_REMOTE_WRITE : 0;

	if (irn_qp_is_ud(c->qp)) {
		struct irn_deth *deth = ext_hdr(c, IRN_HDR_DETH);

		if (be32_to_cpu(deth->qkey) != c->qp->qkey)
			return RESP_DROP;
	}
	if ((c->qp->access & need) != need)
		return bad_request(c);
	if (flags & IRN_OP_SEND)
		return RESP_SEND;
	if (flags & IRN_OP_WRITE)
		return RESP_WRITE;
	if (!irn_qp_is_rc(c->qp))
		return RESP_DROP;
	if (flags & IRN_OP_READ)
		return RESP_READ;
	if (flags & IRN_OP_ATOMIC_WRITE)
		return RESP_ATOMIC_WRITE;
	return RESP_ATOMIC;
}

/* Take the next receive WQE for a new message. */
static bool get_rwqe(struct irn_qp *qp)
{
	if (qp->srq)
		return irn_srq_stage_get(&qp->resp.stage, qp->srq,
					 qp->resp.rsn, qp->resp.rsn);
	if (qp->resp.have_rwqe)
		return true;
	if (qp->rq.queue.index == irn_wq_producer(&qp->rq))
		return false;
	qp->resp.rwqe_index = qp->rq.queue.index;
	qp->resp.have_rwqe = true;
	return true;
}

/* The WQE being filled: a staged copy for an SRQ, else the ring slot. */
static const struct rxe_recv_wqe *cur_rwqe(const struct irn_qp *qp)
{
	if (qp->srq)
		return irn_srq_stage_head(&qp->resp.stage, qp->resp.rsn);
	return irn_qp_rq_slot(qp, qp->resp.rwqe_index);
}

static u32 rwqe_max_sge(const struct irn_qp *qp)
{
	return qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;
}

static enum ib_wc_status place_in_rwqe(struct resp_ctx *c, struct irn_copy *d,
				       u32 len)
{
	struct irn_qp *qp = c->qp;
	const struct rxe_recv_wqe *slot = cur_rwqe(qp);
	u32 num_sge = READ_ONCE(slot->dma.num_sge);
	enum ib_wc_status status;

	if (num_sge > rwqe_max_sge(qp))
		return IB_WC_LOC_QP_OP_ERR;
	status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd, slot->dma.sge,
				  num_sge, qp->resp.offset, d, len, true);
	if (status == IB_WC_SUCCESS)
		qp->resp.offset += len;
	return status;
}

/* UD receives start with 40 bytes holding the IP header, as IB's GRH. */
static enum ib_wc_status place_grh(struct resp_ctx *c)
{
	u8 grh[IRN_GRH_LEN] = {};
	struct irn_copy d = { .buf = grh };

	if (c->skb->protocol == htons(ETH_P_IP))
		memcpy(grh + 20, ip_hdr(c->skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(c->skb), sizeof(struct ipv6hdr));
	return place_in_rwqe(c, &d, IRN_GRH_LEN);
}

static enum resp_state do_send(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_copy d = { .skb = c->skb, .skb_off = c->pkt->hdr_len };

	if (!get_rwqe(qp))
		return irn_qp_is_rc(qp) ? RESP_RNR : RESP_DROP;
	if (c->pkt->flags & IRN_OP_FIRST)
		qp->resp.offset = 0;
	if (irn_qp_is_ud(qp))
		c->status = place_grh(c);
	if (c->status == IB_WC_SUCCESS)
		c->status = place_in_rwqe(c, &d, c->pkt->paylen);
	if (c->status != IB_WC_SUCCESS) {
		/* The message ends here: report it and refuse the rest. */
		if (irn_qp_is_rc(qp))
			c->nak = IRN_NAK_INVALID_REQ;
		return RESP_COMPLETE;
	}
	qp->resp.in_msg = !(c->pkt->flags & IRN_OP_LAST);
	qp->resp.last_opcode = c->pkt->opcode;
	return c->pkt->flags & IRN_OP_LAST ? RESP_COMPLETE : RESP_ACK;
}

static enum resp_state rkey_error(struct resp_ctx *c)
{
	if (!irn_qp_is_rc(c->qp))
		return RESP_DROP;
	c->nak = IRN_NAK_REM_ACCESS;
	return RESP_NAK;
}

/* The MR an rkey (of an MR or a window) grants this access to, or NULL. */
static struct irn_mr *get_rkey(struct irn_qp *qp, u32 rkey, int access,
			       u64 va, u64 len)
{
	return irn_mr_lookup_remote(qp->dev, rkey, qp->ib_qp.pd,
				    irn_qp_num(qp), access, va, len);
}

static enum resp_state do_write(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 flags = c->pkt->flags;
	struct irn_mr *mr;
	u64 va;
	int err;

	/* Nothing changes before a write with immediate has its WQE. */
	if ((flags & IRN_OP_LAST) && (flags & IRN_HDR_IMMDT) &&
	    !get_rwqe(qp))
		return irn_qp_is_rc(qp) ? RESP_RNR : RESP_DROP;
	if (flags & IRN_OP_FIRST) {
		struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);

		qp->resp.va = be64_to_cpu(reth->va);
		qp->resp.rkey = be32_to_cpu(reth->rkey);
		qp->resp.resid = be32_to_cpu(reth->len);
		qp->resp.offset = 0;
	}
	if (c->pkt->paylen > qp->resp.resid ||
	    ((flags & IRN_OP_LAST) && c->pkt->paylen != qp->resp.resid))
		return bad_request(c);
	va = qp->resp.va + qp->resp.offset;
	if (c->pkt->paylen) {
		mr = get_rkey(qp, qp->resp.rkey, IB_ACCESS_REMOTE_WRITE, va,
			      c->pkt->paylen);
		if (!mr)
			return rkey_error(c);
		err = irn_mr_copy_from_skb(mr, va, c->skb, c->pkt->hdr_len,
					   c->pkt->paylen);
		irn_mr_put(mr);
		if (err)
			return bad_request(c);
	}
	qp->resp.offset += c->pkt->paylen;
	qp->resp.resid -= c->pkt->paylen;
	qp->resp.in_msg = !(flags & IRN_OP_LAST);
	qp->resp.last_opcode = c->pkt->opcode;
	if ((flags & IRN_OP_LAST) && (flags & IRN_HDR_IMMDT))
		return RESP_COMPLETE;
	return RESP_ACK;
}

static u8 read_resp_opcode(u32 i, u32 npkts)
{
	if (npkts == 1)
		return IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY;
	if (!i)
		return IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	if (i == npkts - 1)
		return IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST;
	return IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;
}

static u32 read_psns(const struct irn_qp *qp, u32 len)
{
	return max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);
}

static bool read_pending(const struct irn_qp *qp)
{
	return qp->resp.rd.npkts;
}

/*
 * The QP's rate covers its read responses as well as its requests: the
 * flow paces both (a DCQCN reaction point limits all the QP sends).  Not
 * due yet: the pacing timer runs the responder again then.
 */
static bool read_paced(struct irn_qp *qp, u64 now)
{
	return irn_flow_hold(&qp->flow, &qp->resp.pace_timer, now);
}

/**
 * irn_resp_pace_expired() - a paced QP's next read response is due
 * @timer: the QP's resp.pace_timer
 *
 * Context: softirq (HRTIMER_MODE_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart irn_resp_pace_expired(struct hrtimer *timer)
{
	struct irn_qp *qp = container_of(timer, struct irn_qp,
					 resp.pace_timer);

	irn_task_sched(&qp->resp_task);
	return HRTIMER_NORESTART;
}

/*
 * Send the next IRN_READ_BATCH responses of the read being answered, or
 * fewer if the QP's pacing says wait.  The key is looked up again for
 * each batch: a pending read holds no MR, so a deregistration never waits
 * for it; a key gone meanwhile ends the read with a remote access NAK.
 * Return: true if the read waits for the pacing timer.
 */
static bool read_continue(struct irn_qp *qp)
{
	typeof(qp->resp.rd) *rd = &qp->resp.rd;
	u32 end = min(rd->next + IRN_READ_BATCH, rd->npkts);
	u64 off = (u64)rd->next * rd->mtu;
	struct irn_mr *mr = NULL;
	u64 now = ktime_get_ns();
	bool wait = false;

	/* Woken by a request while the read waits: no key lookup for that. */
	if (read_paced(qp, now))
		return true;
	if (rd->len) {
		mr = get_rkey(qp, rd->rkey, IB_ACCESS_REMOTE_READ,
			      rd->va + off, rd->len - off);
		if (!mr) {
			rd->npkts = 0;
			send_ack(qp, IRN_AETH_NAK | IRN_NAK_REM_ACCESS,
				 irn_psn_add(rd->psn, rd->next));
			irn_qp_error(qp);
			return false;
		}
	}
	for (; rd->next < end; rd->next++, off += rd->mtu) {
		u32 n = min_t(u64, rd->len - off, rd->mtu);
		u8 opcode = read_resp_opcode(rd->next, rd->npkts);
		struct sk_buff *skb;

		wait = read_paced(qp, now);
		if (wait)
			break;
		skb = new_response(qp, opcode, irn_psn_add(rd->psn, rd->next),
				   IRN_AETH_CREDIT_INVALID, n);
		if (!skb) {
			rd->next = rd->npkts;	/* the requester asks again */
			break;
		}
		if (n)
			irn_mr_copy(mr, rd->va + off,
				    skb->data + irn_opcode_hdr_len(opcode), n,
				    false);
		irn_flow_on_sent(&qp->flow, skb->len, now);
		xmit_tos(qp, skb, true);
	}
	if (mr)
		irn_mr_put(mr);
	if (rd->next == rd->npkts)
		rd->npkts = 0;
	return wait;
}

/*
 * Answer a read of @len bytes at @va, its first response at @psn.  The
 * key is checked for the whole range now; the responses go out
 * IRN_READ_BATCH per responder round (read_continue()), so that one
 * request of 2 GiB does not hold the CPU for two million packets.  The
 * responder takes no other request until the last one is out: a later
 * write must not change what the read returns.
 * Return: false if @rkey grants no such read.
 */
static bool read_start(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
		       u32 psn)
{
	typeof(qp->resp.rd) *rd = &qp->resp.rd;
	struct irn_mr *mr;

	if (len) {
		mr = get_rkey(qp, rkey, IB_ACCESS_REMOTE_READ, va, len);
		if (!mr)
			return false;
		irn_mr_put(mr);
	}
	rd->va = va;
	rd->rkey = rkey;
	rd->len = len;
	rd->psn = psn;
	rd->mtu = qp->mtu;
	rd->npkts = read_psns(qp, len);
	rd->next = 0;
	rd->drain = false;
	read_continue(qp);
	return true;
}

/*
 * Responder resources: the last max_dest_rd_atomic reads and atomics, the
 * only ones a duplicate request is answered from, as the IBTA describes.
 */
static u32 resources(const struct irn_qp *qp)
{
	return max_t(u32, qp->max_dest_rd_atomic, 1);
}

static struct irn_resp_res *new_resource(struct irn_qp *qp)
{
	return &qp->resp.res[qp->resp.res_head++ % resources(qp)];
}

/*
 * Keep a read as a responder resource, for its duplicates.  A request
 * that continues the newest read (the requester splits a large read into
 * several, read_chunk() in irn_req.c) extends it: one resource per read
 * work request, as the requester counts its credits.
 */
static void read_resource(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
			  u32 psn)
{
	u32 last = irn_psn_add(psn, read_psns(qp, len) - 1);
	struct irn_resp_res *res;

	res = &qp->resp.res[(qp->resp.res_head - 1) % resources(qp)];
	if (qp->resp.res_head && len && res->length &&
	    res->opcode == IB_OPCODE_RC_RDMA_READ_REQUEST &&
	    res->rkey == rkey && res->va + res->length == va &&
	    irn_psn_add(res->last_psn, 1) == psn && !(res->length % qp->mtu) &&
	    read_psns(qp, res->length) ==
	    irn_psn_diff(res->last_psn, res->first_psn) + 1 &&
	    len <= IRN_MAX_MSG_SZ - res->length) {
		res->length += len;
		res->last_psn = last;
		return;
	}
	res = new_resource(qp);
	res->opcode = IB_OPCODE_RC_RDMA_READ_REQUEST;
	res->first_psn = psn;
	res->last_psn = last;
	res->va = va;
	res->rkey = rkey;
	res->length = len;
}

static enum resp_state send_read(struct resp_ctx *c, u64 va, u32 rkey,
				 u32 len, u32 psn)
{
	if (!read_start(c->qp, va, rkey, len, psn))
		return rkey_error(c);
	return RESP_DONE;
}

static enum resp_state do_read(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);
	u32 len = be32_to_cpu(reth->len);
	u32 npkts = read_psns(qp, len);
	enum resp_state next;

	if (!qp->max_dest_rd_atomic || len > IRN_MAX_MSG_SZ)
		return bad_request(c);
	/* The read's PSNs are its responses'; count them before replying. */
	qp->resp.epsn = irn_psn_add(c->pkt->psn, npkts);
	qp->resp.msn++;
	next = send_read(c, be64_to_cpu(reth->va), be32_to_cpu(reth->rkey),
			 len, c->pkt->psn);
	if (next != RESP_DONE) {
		qp->resp.epsn = c->pkt->psn;
		qp->resp.msn--;
		return next;
	}
	read_resource(qp, be64_to_cpu(reth->va), be32_to_cpu(reth->rkey), len,
		      c->pkt->psn);
	return next;
}

static void send_atomic_ack(struct irn_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb;
	struct irn_pkt pkt = {
		.flags = irn_opcode_flags(IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE),
	};

	skb = new_response(qp, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, psn,
			   IRN_AETH_CREDIT_INVALID, 0);
	if (!skb)
		return;
	put_unaligned_be64(orig, skb->data +
			   irn_pkt_hdr_offset(&pkt, IRN_HDR_ATMACK));
	xmit_response(qp, skb);
}

/*
 * Execute the atomic at @psn: @opcode (IB_OPCODE_RC_COMPARE_SWAP or
 * FETCH_ADD) on the 8 bytes at @va that @rkey must grant atomic access to;
 * keep the original value for a duplicate of the request, and send it.
 * The caller has counted the request in the MSN.
 * Return: 0, -EINVAL if @va is misaligned, -EACCES if @rkey grants no
 * such access.
 */
static int execute_atomic(struct irn_qp *qp, u32 psn, u8 opcode, u32 rkey,
			  u64 va, u64 swap_add, u64 compare)
{
	struct irn_resp_res *res;
	struct irn_mr *mr;
	u64 *addr, orig;

	if (va & 7)
		return -EINVAL;
	mr = get_rkey(qp, rkey, IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (!mr)
		return -EACCES;
	addr = irn_mr_atomic_addr(mr, va);
	if (!addr) {
		irn_mr_put(mr);
		return -EACCES;
	}
	spin_lock_bh(&qp->dev->atomic_lock);
	orig = *addr;
	if (opcode == IB_OPCODE_RC_COMPARE_SWAP) {
		if (orig == compare)
			*addr = swap_add;
	} else {
		*addr = orig + swap_add;
	}
	spin_unlock_bh(&qp->dev->atomic_lock);
	irn_mr_put(mr);

	/* Kept so that a duplicate request gets the same answer. */
	res = new_resource(qp);
	res->opcode = opcode;
	res->first_psn = psn;
	res->atomic_orig = orig;
	send_atomic_ack(qp, psn, orig);
	return 0;
}

static enum resp_state do_atomic(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_atmeth *atm = ext_hdr(c, IRN_HDR_ATMETH);
	int err;

	if (!qp->max_dest_rd_atomic)
		return bad_request(c);
	qp->resp.epsn = irn_psn_add(c->pkt->psn, 1);
	qp->resp.msn++;
	err = execute_atomic(qp, c->pkt->psn, c->pkt->opcode,
			     get_unaligned_be32(&atm->rkey),
			     get_unaligned_be64(&atm->va),
			     get_unaligned_be64(&atm->swap_add),
			     get_unaligned_be64(&atm->compare));
	if (!err)
		return RESP_DONE;
	qp->resp.epsn = c->pkt->psn;
	qp->resp.msn--;
	return err == -EINVAL ? bad_request(c) : rkey_error(c);
}

/*
 * An atomic write's reply: an RDMA READ Response Only without payload, as
 * IBTA 1.5 has it and stock rxe sends and expects.
 */
static void send_atomic_write_reply(struct irn_qp *qp, u32 psn)
{
	struct sk_buff *skb;

	skb = new_response(qp, IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY, psn,
			   IRN_AETH_CREDIT_INVALID, 0);
	if (skb)
		xmit_response(qp, skb);
}

/*
 * Execute the atomic write at @psn: store @value, the request's 8 bytes
 * as they came, at @va, which @rkey must grant remote write access to
 * (the access stock rxe asks too); keep it as a responder resource, so
 * that a duplicate is answered without storing again, and send its reply.
 * The store is one aligned 64-bit store: a reader sees the old 8 bytes or
 * the new ones, never a mix; it is a release, ordered after every earlier
 * request's data; and it takes the atomics' lock, so that it never lands
 * inside a compare-and-swap or fetch-and-add on the same word.  The caller
 * has counted the request in the MSN.
 * Return: 0, -EINVAL if @va is misaligned, -EACCES if @rkey grants no
 * such access.
 */
static int execute_atomic_write(struct irn_qp *qp, u32 psn, u32 rkey, u64 va,
				u64 value)
{
	struct irn_resp_res *res;
	struct irn_mr *mr;
	u64 *addr;

	if (va & 7)
		return -EINVAL;
	mr = get_rkey(qp, rkey, IB_ACCESS_REMOTE_WRITE, va,
		      IRN_ATOMIC_WRITE_LEN);
	if (!mr)
		return -EACCES;
	addr = irn_mr_atomic_addr(mr, va);
	if (!addr || !IS_ALIGNED((uintptr_t)addr, sizeof(*addr))) {
		irn_mr_put(mr);
		return addr ? -EINVAL : -EACCES;
	}
	spin_lock_bh(&qp->dev->atomic_lock);
	/* Release: whatever was placed before it is visible first. */
	smp_store_release(addr, value);
	spin_unlock_bh(&qp->dev->atomic_lock);
	irn_mr_put(mr);

	res = new_resource(qp);
	res->opcode = IRN_OPCODE_RC_ATOMIC_WRITE;
	res->first_psn = psn;
	res->last_psn = psn;
	send_atomic_write_reply(qp, psn);
	return 0;
}

/*
 * The shape of an atomic write: a RETH for exactly 8 bytes and those 8
 * bytes, unpadded, as payload.  Their value, as they came, in @value.
 */
static bool atomic_write_value(struct resp_ctx *c, u64 *value)
{
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);

	BUILD_BUG_ON(sizeof(*value) != IRN_ATOMIC_WRITE_LEN);
	return be32_to_cpu(reth->len) == IRN_ATOMIC_WRITE_LEN &&
	       c->pkt->paylen == IRN_ATOMIC_WRITE_LEN && !c->pkt->pad &&
	       !skb_copy_bits(c->skb, c->pkt->hdr_len, value,
			      IRN_ATOMIC_WRITE_LEN);
}

static enum resp_state do_atomic_write(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);
	u64 value;
	int err;

	if (!qp->max_dest_rd_atomic || !atomic_write_value(c, &value))
		return bad_request(c);
	qp->resp.epsn = irn_psn_add(c->pkt->psn, 1);
	qp->resp.msn++;
	err = execute_atomic_write(qp, c->pkt->psn, be32_to_cpu(reth->rkey),
				   be64_to_cpu(reth->va), value);
	if (!err)
		return RESP_DONE;
	qp->resp.epsn = c->pkt->psn;
	qp->resp.msn--;
	return err == -EINVAL ? bad_request(c) : rkey_error(c);
}

/*
 * A duplicate atomic or atomic write is answered again only from the
 * responder resource it left, never executed twice: the same request
 * (opcode and PSN) gets the same reply.  One no resource holds any more
 * is dropped; its requester has already had its reply.
 */
static enum resp_state duplicate_atomic(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 i;

	for (i = 0; i < resources(qp); i++) {
		const struct irn_resp_res *res = &qp->resp.res[i];

		/* Reads are resources too: the same request only. */
		if (res->opcode != c->pkt->opcode ||
		    res->first_psn != c->pkt->psn)
			continue;
		if (res->opcode == IRN_OPCODE_RC_ATOMIC_WRITE)
			send_atomic_write_reply(qp, res->first_psn);
		else
			send_atomic_ack(qp, res->first_psn, res->atomic_orig);
		return RESP_DONE;
	}
	return RESP_DROP;
}

/*
 * A duplicate read is answered only if it repeats (the rest of) a read
 * kept as a responder resource: same key, the address and length that its
 * PSN gives within that read.  Anything else costs the peer a packet and
 * us nothing.
 */
static enum resp_state duplicate_read(struct resp_ctx *c)
{
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);
	u64 va = be64_to_cpu(reth->va);
	u32 rkey = be32_to_cpu(reth->rkey);
	u32 len = be32_to_cpu(reth->len);
	struct irn_qp *qp = c->qp;
	u32 i;

	for (i = 0; i < resources(qp); i++) {
		const struct irn_resp_res *res = &qp->resp.res[i];
		u64 off;

		if (res->opcode != IB_OPCODE_RC_RDMA_READ_REQUEST ||
		    irn_psn_before(c->pkt->psn, res->first_psn) ||
		    irn_psn_after(c->pkt->psn, res->last_psn))
			continue;
		off = (u64)irn_psn_diff(c->pkt->psn, res->first_psn) * qp->mtu;
		if (rkey != res->rkey || off > res->length ||
		    va != res->va + off || len > res->length - off)
			break;
		return send_read(c, va, rkey, len, c->pkt->psn);
	}
	irn_dev_count(qp->dev, IRN_CNT_DUP_DROPPED);
	return RESP_DROP;
}

static enum resp_state do_duplicate(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;

	if (c->pkt->flags & IRN_OP_READ)
		return duplicate_read(c);
	if (c->pkt->flags & (IRN_OP_ATOMIC | IRN_OP_ATOMIC_WRITE))
		return duplicate_atomic(c);
	send_ack(qp, IRN_AETH_CREDIT_INVALID,
		 irn_psn_add(qp->resp.epsn, -1));
	return RESP_DONE;
}

/* A receive WQE is done: free its slot and report it. */
static void finish_recv(struct irn_qp *qp, struct ib_wc *wc, bool se)
{
	qp->resp.have_rwqe = false;
	qp->resp.in_msg = false;
	qp->resp.rsn++;
	if (qp->srq) {
		irn_srq_stage_pop(&qp->resp.stage);
	} else {
		qp->rq.queue.index = (qp->rq.queue.index + 1) &
				     qp->rq.queue.mask;
		irn_wq_consumed(&qp->rq, qp->rq.queue.index);
	}
	if (irn_cq_post(qp->rcq, wc, se))
		irn_qp_error(qp);
}

/*
 * IRN.  A request that cannot be executed: in order, it fails the QP as
 * in standard RoCEv2; early, it is dropped, and will be judged again when
 * it is resent in order.
 */
static enum resp_state irn_reject(struct resp_ctx *c, u8 nak)
{
	if (c->pkt->psn != c->qp->resp.epsn) {
		irn_dev_count(c->qp->dev, IRN_CNT_OOO_DROPPED);
		return RESP_DROP;
	}
	c->nak = nak;
	return RESP_NAK;
}

static enum resp_state irn_check(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_pkt *pkt = c->pkt;
	s32 diff = irn_psn_diff(pkt->psn, qp->resp.epsn);
	int need = pkt->flags & IRN_OP_WRITE ? IB_ACCESS_REMOTE_WRITE : 0;

	c->irn = true;
	if (diff < 0) {
		irn_dev_count(qp->dev, IRN_CNT_DUP_REQ);
		if (pkt->flags & IRN_OP_RD_ATOMIC)
			return RESP_DUPLICATE;
		irn_dev_count(qp->dev, IRN_CNT_IRN_DUP);
		c->sack = true;
		c->dsack = true;
		return RESP_DONE;
	}
	if (pkt->flags & IRN_OP_RD_ATOMIC && !diff)
		return RESP_CHECK_ACCESS;
	switch (irn_rxwin_check(&qp->resp.win, qp->resp.epsn, pkt->psn)) {
	case IRN_RXW_OUTSIDE:
		irn_dev_count(qp->dev, IRN_CNT_OOO_DROPPED);
		return RESP_DROP;
	case IRN_RXW_DUP:
		irn_dev_count(qp->dev, IRN_CNT_IRN_DUP);
		c->sack = true;
		c->dsack = true;
		return RESP_DONE;
	case IRN_RXW_NEW:
		break;
	}
	if (pkt->flags & IRN_OP_RD_ATOMIC)
		return RESP_IRN_HOLD;
	/* Full-MTU packets except the last of a message. */
	if (pkt->paylen > qp->mtu ||
	    (!(pkt->flags & IRN_OP_LAST) && pkt->paylen != qp->mtu))
		return irn_reject(c, IRN_NAK_INVALID_REQ);
	if ((qp->access & need) != need)
		return irn_reject(c, IRN_NAK_INVALID_REQ);
	return RESP_IRN_PLACE;
}

/*
 * The receive WQE of message @rsn, if the consumer has posted it; with an
 * SRQ taken now, with those of the messages before it.
 */
static const struct rxe_recv_wqe *irn_rwqe(struct irn_qp *qp, u32 rsn)
{
	u32 k = rsn - qp->resp.rsn;
	u32 posted;

	if (qp->srq)
		return irn_srq_stage_get(&qp->resp.stage, qp->srq,
					 qp->resp.rsn, rsn);
	posted = (irn_wq_producer(&qp->rq) - qp->rq.queue.index) &
		 qp->rq.queue.mask;
	if (k >= posted)
		return NULL;
	return irn_qp_rq_slot(qp, qp->rq.queue.index + k);
}

/* A send that does not fit its receive WQE, found in order: report it. */
static enum resp_state irn_send_error(struct resp_ctx *c, u32 rsn,
				      const struct rxe_recv_wqe *wqe,
				      enum ib_wc_status status)
{
	struct irn_qp *qp = c->qp;
	struct ib_wc wc = {
		.status		= status,
		.qp		= &qp->ib_qp,
		.port_num	= IRN_PORT,
		.opcode		= IB_WC_RECV,
	};

	if (c->pkt->psn != qp->resp.epsn || rsn != qp->resp.rsn)
		return irn_reject(c, IRN_NAK_INVALID_REQ);
	wc.wr_id = READ_ONCE(wqe->wr_id);
	finish_recv(qp, &wc, false);
	c->nak = IRN_NAK_INVALID_REQ;
	return RESP_NAK;
}

static enum ib_wc_status irn_place_send(struct resp_ctx *c,
					const struct rxe_recv_wqe *wqe,
					u32 offset)
{
	struct irn_qp *qp = c->qp;
	u32 num_sge = READ_ONCE(wqe->dma.num_sge);
	struct irn_copy d = { .skb = c->skb, .skb_off = c->pkt->hdr_len };

	if (num_sge > rwqe_max_sge(qp))
		return IB_WC_LOC_QP_OP_ERR;
	return irn_mr_copy_sges(qp->dev, qp->ib_qp.pd, wqe->dma.sge, num_sge,
				offset, &d, c->pkt->paylen, true);
}

static enum resp_state irn_place_write(struct resp_ctx *c,
				       const struct irn_ixth *x)
{
	u64 va = get_unaligned_be64(&x->va);
	struct irn_mr *mr;
	int err;

	if (!c->pkt->paylen)
		return RESP_IRN_PLACE;
	mr = get_rkey(c->qp, get_unaligned_be32(&x->rkey),
		      IB_ACCESS_REMOTE_WRITE, va, c->pkt->paylen);
	if (!mr)
		return irn_reject(c, IRN_NAK_REM_ACCESS);
	err = irn_mr_copy_from_skb(mr, va, c->skb, c->pkt->hdr_len,
				   c->pkt->paylen);
	irn_mr_put(mr);
	return err ? irn_reject(c, IRN_NAK_INVALID_REQ) : RESP_IRN_PLACE;
}

static u32 irn_slot_flags(const struct irn_pkt *pkt, bool recv)
{
	u32 flags = recv ? IRN_RX_RECV : 0;

	if (pkt->flags & IRN_OP_LAST)
		flags |= IRN_RX_LAST;
	if (pkt->flags & IRN_OP_WRITE)
		flags |= IRN_RX_WRITE;
	if (pkt->flags & IRN_HDR_IMMDT)
		flags |= IRN_RX_IMM;
	if (pkt->flags & IRN_HDR_IETH)
		flags |= IRN_RX_INV;
	if (pkt->bth_flags & IRN_BTH_SE)
		flags |= IRN_RX_SE;
	return flags;
}

/* Put a send or write where it belongs and remember it in the window. */
static enum resp_state irn_place(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	struct irn_pkt *pkt = c->pkt;
	const struct irn_ixth *x = (void *)(c->skb->data + pkt->ext_off);
	bool now = pkt->psn == qp->resp.epsn;
	bool recv = (pkt->flags & IRN_OP_SEND) ||
		    ((pkt->flags & IRN_OP_LAST) && (pkt->flags & IRN_HDR_IMMDT));
	struct irn_rx_slot slot = {
		.rsn = get_unaligned_be32(&x->rsn),
		.len = get_unaligned_be32(&x->offset) + pkt->paylen,
	};
	const struct rxe_recv_wqe *wqe = NULL;
	enum ib_wc_status status;
	enum resp_state next;

	if (recv) {
		/*
		 * Every message not completed before this one still has its
		 * last packet between the expected PSN and this one.
		 */
		if (slot.rsn - qp->resp.rsn >
		    (u32)irn_psn_diff(pkt->psn, qp->resp.epsn))
			return irn_reject(c, IRN_NAK_INVALID_REQ);
		wqe = irn_rwqe(qp, slot.rsn);
		if (!wqe) {
			if (now)
				return RESP_RNR;
			irn_dev_count(qp->dev, IRN_CNT_OOO_DROPPED);
			return RESP_DROP;
		}
	}
	if (pkt->flags & IRN_OP_SEND) {
		status = irn_place_send(c, wqe, get_unaligned_be32(&x->offset));
		if (status != IB_WC_SUCCESS)
			return irn_send_error(c, slot.rsn, wqe, status);
	} else {
		next = irn_place_write(c, x);
		if (next != RESP_IRN_PLACE)
			return next;
	}
	slot.flags = irn_slot_flags(pkt, recv);
	if (pkt->flags & IRN_HDR_IMMDT)
		slot.ex = (__force u32)((struct irn_immdt *)
					ext_hdr(c, IRN_HDR_IMMDT))->imm;
	if (pkt->flags & IRN_HDR_IETH)
		slot.ex = be32_to_cpu(((struct irn_ieth *)
				       ext_hdr(c, IRN_HDR_IETH))->rkey);
	irn_rxwin_put(&qp->resp.win, pkt->psn, &slot);
	if (!now) {
		irn_dev_count(qp->dev, IRN_CNT_OOO_PLACED);
		trace_irn_ooo_placed(irn_qp_num(qp), pkt->psn,
				     irn_psn_diff(pkt->psn, qp->resp.epsn));
		c->sack = sack_due(qp, pkt);
	}
	return RESP_DONE;
}

/*
 * What a read, atomic or atomic write request ahead of a hole needs to run
 * later.  Return: false if the request is malformed.
 */
static bool held_request(struct resp_ctx *c, struct irn_rx_slot *slot)
{
	struct irn_atmeth *atm;

	if (c->pkt->flags & IRN_OP_READ) {
		struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);

		slot->flags = IRN_RX_READ;
		slot->ex = be32_to_cpu(reth->rkey);
		slot->va = be64_to_cpu(reth->va);
		slot->len = be32_to_cpu(reth->len);
		return slot->len <= IRN_MAX_MSG_SZ;
	}
	if (c->pkt->flags & IRN_OP_ATOMIC_WRITE) {
		struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);

		slot->flags = IRN_RX_ATOMIC_WRITE;
		slot->ex = be32_to_cpu(reth->rkey);
		slot->va = be64_to_cpu(reth->va);
		return atomic_write_value(c, &slot->swap_add);
	}
	atm = ext_hdr(c, IRN_HDR_ATMETH);
	slot->flags = IRN_RX_ATOMIC;
	if (c->pkt->opcode == IB_OPCODE_RC_COMPARE_SWAP)
		slot->flags |= IRN_RX_CAS;
	slot->ex = get_unaligned_be32(&atm->rkey);
	slot->va = get_unaligned_be64(&atm->va);
	slot->swap_add = get_unaligned_be64(&atm->swap_add);
	slot->compare = get_unaligned_be64(&atm->compare);
	return true;
}

/*
 * A read, atomic or atomic write request ahead of a hole: keep it in the
 * window, to run in order when the hole is filled (it must see, or follow,
 * every earlier write), and let the SACK tell the requester that it
 * arrived.
 */
static enum resp_state irn_hold(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 flags = c->pkt->flags;
	int need = flags & IRN_OP_READ ? IB_ACCESS_REMOTE_READ :
		   flags & IRN_OP_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC :
					   IB_ACCESS_REMOTE_WRITE;
	struct irn_rx_slot slot = {};

	if (!qp->max_dest_rd_atomic || !(qp->access & need) ||
	    !held_request(c, &slot))
		return irn_reject(c, IRN_NAK_INVALID_REQ);
	irn_rxwin_put(&qp->resp.win, c->pkt->psn, &slot);
	irn_dev_count(qp->dev, IRN_CNT_OOO_PLACED);
	trace_irn_ooo_placed(irn_qp_num(qp), c->pkt->psn,
			     irn_psn_diff(c->pkt->psn, qp->resp.epsn));
	c->sack = true;
	return RESP_DONE;
}

/* A held read request is next in order: answer it now. */
static void irn_run_read(struct irn_qp *qp, const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	u32 npkts = read_psns(qp, slot->len);

	irn_rxwin_skip(&qp->resp.win, qp->resp.epsn, npkts - 1);
	qp->resp.epsn = irn_psn_add(psn, npkts);
	qp->resp.msn++;
	if (!read_start(qp, slot->va, slot->ex, slot->len, psn)) {
		send_ack(qp, IRN_AETH_NAK | IRN_NAK_REM_ACCESS, psn);
		irn_qp_error(qp);
		return;
	}
	read_resource(qp, slot->va, slot->ex, slot->len, psn);
}

/*
 * A held atomic or atomic write failed to execute (@err from
 * execute_atomic() or execute_atomic_write()): the NAK it would have
 * earned in order, and the QP fails.
 */
static void irn_held_failed(struct irn_qp *qp, u32 psn, int err)
{
	send_ack(qp, IRN_AETH_NAK | (err == -EINVAL ? IRN_NAK_INVALID_REQ :
						      IRN_NAK_REM_ACCESS), psn);
	irn_qp_error(qp);
}

/* A held atomic request is next in order: execute it now. */
static void irn_run_atomic(struct irn_qp *qp, const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	u8 opcode = slot->flags & IRN_RX_CAS ? IB_OPCODE_RC_COMPARE_SWAP :
					       IB_OPCODE_RC_FETCH_ADD;
	int err;

	qp->resp.msn++;
	err = execute_atomic(qp, psn, opcode, slot->ex, slot->va,
			     slot->swap_add, slot->compare);
	if (err)
		irn_held_failed(qp, psn, err);
}

/* A held atomic write is next in order: store it now. */
static void irn_run_atomic_write(struct irn_qp *qp,
				 const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	int err;

	qp->resp.msn++;
	err = execute_atomic_write(qp, psn, slot->ex, slot->va, slot->swap_add);
	if (err)
		irn_held_failed(qp, psn, err);
}

/* The message ending at @slot has arrived, and all before it: report it. */
static void irn_complete_recv(struct irn_qp *qp,
			      const struct irn_rx_slot *slot)
{
	struct ib_wc wc = {
		.status		= IB_WC_SUCCESS,
		.qp		= &qp->ib_qp,
		.byte_len	= slot->len,
		.port_num	= IRN_PORT,
		.wc_flags	= IB_WC_GRH,
		.opcode		= slot->flags & IRN_RX_WRITE ?
				  IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
	};
	const struct rxe_recv_wqe *wqe = NULL;

	/* Message numbers are the peer's word: they must come in order. */
	if (slot->rsn == qp->resp.rsn)
		wqe = irn_rwqe(qp, slot->rsn);
	if (!wqe) {
		irn_qp_error(qp);
		return;
	}
	wc.wr_id = READ_ONCE(wqe->wr_id);
	if (slot->flags & IRN_RX_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = (__force __be32)slot->ex;
	}
	if (slot->flags & IRN_RX_INV) {
		wc.ex.invalidate_rkey = slot->ex;
		if (irn_mr_invalidate(qp->dev, slot->ex, qp->ib_qp.pd))
			wc.status = IB_WC_REM_INV_REQ_ERR;
		else
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	finish_recv(qp, &wc, slot->flags & IRN_RX_SE);
}

/*
 * Move the expected PSN over every placed request that is now in order,
 * completing messages as their last packets go by; then acknowledge if
 * asked, if a hole was filled or if holes remain.
 */
/*
 * Take what is in order from the window.  Stops behind a read still being
 * answered: the requests after it wait for its last response.
 * Return: the PSNs taken.
 */
static u32 drain_window(struct irn_qp *qp)
{
	struct irn_rx_slot slot;
	u32 n = 0;

	while (!read_pending(qp) && irn_qp_state(qp) != IB_QPS_ERR &&
	       irn_rxwin_pop(&qp->resp.win, qp->resp.epsn, &slot)) {
		qp->resp.epsn = irn_psn_add(qp->resp.epsn, 1);
		n++;
		if (slot.flags & IRN_RX_READ) {
			irn_run_read(qp, &slot);
			continue;
		}
		if (slot.flags & IRN_RX_ATOMIC) {
			irn_run_atomic(qp, &slot);
			continue;
		}
		if (slot.flags & IRN_RX_ATOMIC_WRITE) {
			irn_run_atomic_write(qp, &slot);
			continue;
		}
		if (!(slot.flags & IRN_RX_LAST))
			continue;
		qp->resp.msn++;
		if (slot.flags & IRN_RX_RECV)
			irn_complete_recv(qp, &slot);
	}
	return n;
}

static void irn_drain(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 n = drain_window(qp);

	if (read_pending(qp)) {
		/* Acknowledged when the drain ends (drain_resume()). */
		qp->resp.rd.drain = true;
		return;
	}
	if (irn_qp_state(qp) == IB_QPS_ERR)
		return;
	if (c->sack || n > 1 || (n && (c->pkt->ack_req || qp->resp.win.placed)))
		send_sack(qp, c->pkt->psn, c->dsack);
}

/* The read that stopped a drain is answered: go on, and acknowledge. */
static void drain_resume(struct irn_qp *qp)
{
	qp->resp.rd.drain = false;
	drain_window(qp);
	if (read_pending(qp)) {
		qp->resp.rd.drain = true;
		return;
	}
	if (irn_qp_state(qp) != IB_QPS_ERR)
		send_sack(qp, irn_psn_add(qp->resp.epsn, -1), false);
}

static enum resp_state complete_recv(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	const struct rxe_recv_wqe *slot = cur_rwqe(qp);
	struct ib_wc wc = {
		.wr_id		= READ_ONCE(slot->wr_id),
		.status		= c->status,
		.qp		= &qp->ib_qp,
		.byte_len	= qp->resp.offset,
		.port_num	= IRN_PORT,
		.wc_flags	= IB_WC_GRH,
		.opcode		= IB_WC_RECV,
	};
	u32 flags = c->pkt->flags;

	if (flags & IRN_OP_WRITE) {
		wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc.byte_len = qp->resp.offset;
	}
	if (flags & IRN_HDR_IMMDT) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = ((struct irn_immdt *)
				  ext_hdr(c, IRN_HDR_IMMDT))->imm;
	}
	if (flags & IRN_HDR_IETH) {
		wc.ex.invalidate_rkey =
			be32_to_cpu(((struct irn_ieth *)
				     ext_hdr(c, IRN_HDR_IETH))->rkey);
		if (irn_mr_invalidate(qp->dev, wc.ex.invalidate_rkey,
				      qp->ib_qp.pd))
			wc.status = IB_WC_REM_INV_REQ_ERR;
		else
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (irn_qp_is_ud(qp)) {
		struct irn_deth *deth = ext_hdr(c, IRN_HDR_DETH);

		wc.src_qp = be32_to_cpu(deth->sqp) & IRN_BTH_QPN_MASK;
		wc.network_hdr_type = c->skb->protocol == htons(ETH_P_IP) ?
				      RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
		wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
	finish_recv(qp, &wc, c->pkt->bth_flags & IRN_BTH_SE);
	if (c->status != IB_WC_SUCCESS) {
		if (c->nak)
			return RESP_NAK;
		return RESP_DROP;
	}
	return RESP_ACK;
}

static enum resp_state do_ack(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;

	qp->resp.epsn = irn_psn_add(c->pkt->psn, 1);
	if (c->pkt->flags & IRN_OP_LAST)
		qp->resp.msn++;
	if (irn_qp_is_rc(qp) && c->pkt->ack_req)
		send_ack(qp, IRN_AETH_CREDIT_INVALID, c->pkt->psn);
	return RESP_DONE;
}

static enum resp_state do_nak(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 psn = c->nak == IRN_NAK_PSN_SEQ ? qp->resp.epsn : c->pkt->psn;

	send_ack(qp, IRN_AETH_NAK | c->nak, psn);
	if (c->nak != IRN_NAK_PSN_SEQ)
		irn_qp_error(qp);
	return RESP_DONE;
}

static enum resp_state do_rnr(struct resp_ctx *c)
{
	irn_dev_count(c->qp->dev, IRN_CNT_RNR_NAK_SENT);
	send_ack(c->qp, IRN_AETH_RNR_NAK | (c->qp->min_rnr_timer & 0x1f),
		 c->pkt->psn);
	return RESP_DONE;
}

static void handle_request(struct irn_qp *qp, struct sk_buff *skb)
{
	struct resp_ctx c = {
		.qp = qp, .skb = skb, .pkt = irn_skb_pkt(skb),
		.status = IB_WC_SUCCESS,
	};
	enum resp_state state = RESP_CHECK_PSN;
	u32 epsn = qp->resp.epsn;

	while (state != RESP_DONE) {
		switch (state) {
		case RESP_CHECK_PSN:
			state = check_psn(&c);
			break;
		case RESP_IRN_CHECK:
			state = irn_check(&c);
			break;
		case RESP_IRN_PLACE:
			state = irn_place(&c);
			break;
		case RESP_IRN_HOLD:
			state = irn_hold(&c);
			break;
		case RESP_CHECK_SEQ:
			state = check_seq(&c);
			break;
		case RESP_CHECK_ACCESS:
			state = check_access(&c);
			break;
		case RESP_SEND:
			state = do_send(&c);
			break;
		case RESP_WRITE:
			state = do_write(&c);
			break;
		case RESP_READ:
			state = do_read(&c);
			break;
		case RESP_ATOMIC:
			state = do_atomic(&c);
			break;
		case RESP_ATOMIC_WRITE:
			state = do_atomic_write(&c);
			break;
		case RESP_DUPLICATE:
			state = do_duplicate(&c);
			break;
		case RESP_COMPLETE:
			state = complete_recv(&c);
			break;
		case RESP_ACK:
			state = do_ack(&c);
			break;
		case RESP_NAK:
			state = do_nak(&c);
			break;
		case RESP_RNR:
			state = do_rnr(&c);
			break;
		case RESP_DROP:
		case RESP_DONE:
			state = RESP_DONE;
			break;
		}
	}
	/*
	 * An in-order read or atomic moved epsn over its own PSNs, or a
	 * plain RoCEv2 packet moved it (a peer mixing both kinds): what was
	 * placed at those PSNs must not resurface a window later.
	 */
	if (qp->resp.win.got && irn_psn_after(qp->resp.epsn, epsn))
		irn_rxwin_skip(&qp->resp.win, epsn,
			       irn_psn_diff(qp->resp.epsn, epsn));
	if (c.irn)
		irn_drain(&c);
}

/*
 * A QP with an SRQ in the error state takes no more of its WQEs: tell the
 * consumer, once, that it may destroy the QP without losing any (IBTA's
 * Last WQE Reached event; kernel consumers wait for it before draining).
 */
static void last_wqe_reached(struct irn_qp *qp)
{
	struct ib_event ev = {
		.device		= qp->ib_qp.device,
		.element.qp	= &qp->ib_qp,
		.event		= IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->resp.last_wqe)
		return;
	qp->resp.last_wqe = true;
	if (qp->ib_qp.event_handler)
		qp->ib_qp.event_handler(&ev, qp->ib_qp.qp_context);
}

/*
 * In the error state every posted receive completes as flushed.  With an
 * SRQ only the ones this QP took (staged for messages it had begun or
 * placed early) are its own; the rest stay in the SRQ for its other QPs.
 */
static enum irn_task_ret flush(struct irn_qp *qp)
{
	struct ib_wc wc = {
		.status	= IB_WC_WR_FLUSH_ERR,
		.qp	= &qp->ib_qp,
	};
	const struct rxe_recv_wqe *wqe;

	skb_queue_purge(&qp->resp_pkts);
	if (qp->srq) {
		wqe = irn_srq_stage_head(&qp->resp.stage, qp->resp.rsn);
		if (!wqe) {
			last_wqe_reached(qp);
			return IRN_TASK_IDLE;
		}
		wc.wr_id = wqe->wr_id;
		irn_srq_stage_pop(&qp->resp.stage);
		qp->resp.rsn++;
		irn_cq_post(qp->rcq, &wc, false);
		return IRN_TASK_MORE;
	}
	if (qp->rq.queue.index == irn_wq_producer(&qp->rq))
		return IRN_TASK_IDLE;
	wc.wr_id = READ_ONCE(irn_qp_rq_slot(qp, qp->rq.queue.index)->wr_id);
	qp->rq.queue.index = (qp->rq.queue.index + 1) & qp->rq.queue.mask;
	irn_wq_consumed(&qp->rq, qp->rq.queue.index);
	qp->resp.have_rwqe = false;
	if (irn_cq_post(qp->rcq, &wc, false))
		return IRN_TASK_IDLE;
	return IRN_TASK_MORE;
}

/**
 * irn_responder() - responder engine
 * @task: the QP's resp_task
 *
 * Context: softirq, process context or the irn workqueue; one instance per
 * QP at a time.
 * Return: IRN_TASK_MORE while packets or flushes remain.
 */
enum irn_task_ret irn_responder(struct irn_task *task)
{
	struct irn_qp *qp = container_of(task, struct irn_qp, resp_task);
	struct sk_buff *skb;

	if (irn_qp_state(qp) == IB_QPS_ERR)
		return flush(qp);
	if (read_pending(qp)) {
		if (read_continue(qp))
			return IRN_TASK_IDLE;
		if (!read_pending(qp) && qp->resp.rd.drain)
			drain_resume(qp);
		return IRN_TASK_MORE;
	}
	skb = skb_dequeue(&qp->resp_pkts);
	if (!skb)
		return IRN_TASK_IDLE;
	handle_request(qp, skb);
	kfree_skb(skb);
	return IRN_TASK_MORE;
}

/**
 * irn_resp_queue() - hand a request packet to the responder
 * @qp: QP, referenced by the caller
 * @skb: validated request; consumed
 *
 * Context: softirq.
 */
void irn_resp_queue(struct irn_qp *qp, struct sk_buff *skb)
{
	/* Recovered as a loss; see IRN_RESP_BACKLOG. */
	if (skb_queue_len(&qp->resp_pkts) >= IRN_RESP_BACKLOG) {
		irn_dev_count(qp->dev, IRN_CNT_DROP_BACKLOG);
		kfree_skb(skb);
		return;
	}
	skb_queue_tail(&qp->resp_pkts, skb);
	irn_task_run(&qp->resp_task);
}
