// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder, IRN path: out-of-order placement.
 *
 * Go-back-N (irn_resp.c) takes requests at the expected PSN only, and
 * answers one past it with a PSN sequence NAK.  IRN requests (those
 * carrying an irn_ixth) are placed wherever their PSN falls in the QP's
 * receiver window (irn_rxwin.c): a send or write is placed and recorded
 * there at once; a read, atomic or atomic write that arrives early is held
 * there, to run in order.  After each request the window drains:
 * completions, the MSN and the expected PSN move over it in order, held
 * requests run, and the requester hears of what arrived out of order by
 * an ACK carrying a SACK of the window.
 *
 * Standard peers speak only go-back-N, so both paths stay: the responder's
 * state machine (irn_resp.c) calls this one for IRN requests when the QP
 * can place out of order.
 */

#include <linux/skbuff.h>
#include <rdma/ib_pack.h>

#include "irn_compat.h"
#include "irn_counters.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_resp_ooo.h"
#include "irn_resp_reply.h"
#include "irn_rxwin.h"
#include "irn_srq.h"
#include "irn_trace.h"

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
		irn_resp_send_ack(qp, IRN_AETH_CREDIT_INVALID,
				  irn_psn_add(epsn, -1));
		return;
	}
	skb = irn_resp_new_response_ext(qp, IB_OPCODE_RC_ACKNOWLEDGE,
					irn_psn_add(epsn, -1),
					IRN_AETH_CREDIT_INVALID, 0, true,
					dsack);
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
	irn_resp_xmit_ack(qp, skb);
}

/*
 * A send or write placed ahead of a hole is acknowledged selectively once
 * in IRN_SACK_EVERY, or at once if its sender asked (AckReq: the last
 * packet of a message, a resend, or as irn_flow_ack_every() says).
 * Everything else that moves the window is acknowledged at once
 * (irn_resp_ooo_drain()): a filled hole, a duplicate, a held read or
 * atomic.  Every SACK carries
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

/*
 * IRN.  A request that cannot be executed: in order, it fails the QP as
 * in standard RoCEv2; early, it is dropped, and will be judged again when
 * it is resent in order.
 */
static enum resp_state reject(struct resp_ctx *c, u8 nak)
{
	if (c->pkt->psn != c->qp->resp.epsn) {
		irn_dev_count(c->qp->dev, IRN_CNT_OOO_DROPPED);
		return RESP_DROP;
	}
	c->nak = nak;
	return RESP_NAK;
}

/**
 * irn_resp_ooo_check() - judge an IRN request against the receiver window
 * @c: the request, at the IRN_CHECK state
 *
 * A send or write duplicate, or already placed, is answered with a
 * D-SACK; a read or atomic duplicate goes to the standard duplicate
 * handling, one at the expected PSN to the standard checks; one ahead is
 * held; a send or write ahead or in order is placed.
 *
 * Context: the QP's responder.
 * Return: the next state.
 */
enum resp_state irn_resp_ooo_check(struct resp_ctx *c)
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
		return reject(c, IRN_NAK_INVALID_REQ);
	if ((qp->access & need) != need)
		return reject(c, IRN_NAK_INVALID_REQ);
	return RESP_IRN_PLACE;
}

/*
 * The receive WQE of message @rsn, if the consumer has posted it; with an
 * SRQ taken now, with those of the messages before it.
 */
static const struct rxe_recv_wqe *rwqe(struct irn_qp *qp, u32 rsn)
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
static enum resp_state send_error(struct resp_ctx *c, u32 rsn,
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
		return reject(c, IRN_NAK_INVALID_REQ);
	wc.wr_id = READ_ONCE(wqe->wr_id);
	irn_resp_finish_recv(qp, &wc, false);
	c->nak = IRN_NAK_INVALID_REQ;
	return RESP_NAK;
}

static enum ib_wc_status place_send(struct resp_ctx *c,
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

static enum resp_state place_write(struct resp_ctx *c,
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
		return reject(c, IRN_NAK_REM_ACCESS);
	err = irn_mr_copy_from_skb(mr, va, c->skb, c->pkt->hdr_len,
				   c->pkt->paylen);
	irn_mr_put(mr);
	return err ? reject(c, IRN_NAK_INVALID_REQ) : RESP_IRN_PLACE;
}

static u32 slot_flags(const struct irn_pkt *pkt, bool recv)
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

/**
 * irn_resp_ooo_place() - place a send or write wherever its PSN falls
 * @c: the request, at the IRN_PLACE state
 *
 * Put a send or write where it belongs and remember it in the window.
 *
 * Context: the QP's responder.
 * Return: the next state.
 */
enum resp_state irn_resp_ooo_place(struct resp_ctx *c)
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
			return reject(c, IRN_NAK_INVALID_REQ);
		wqe = rwqe(qp, slot.rsn);
		if (!wqe) {
			if (now)
				return RESP_RNR;
			irn_dev_count(qp->dev, IRN_CNT_OOO_DROPPED);
			return RESP_DROP;
		}
	}
	if (pkt->flags & IRN_OP_SEND) {
		status = place_send(c, wqe, get_unaligned_be32(&x->offset));
		if (status != IB_WC_SUCCESS)
			return send_error(c, slot.rsn, wqe, status);
	} else {
		next = place_write(c, x);
		if (next != RESP_IRN_PLACE)
			return next;
	}
	slot.flags = slot_flags(pkt, recv);
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
		return irn_resp_atomic_write_value(c, &slot->swap_add);
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

/**
 * irn_resp_ooo_hold() - hold an early read, atomic or atomic write
 * @c: the request, at the IRN_HOLD state
 *
 * A read, atomic or atomic write request ahead of a hole: keep it in the
 * window, to run in order when the hole is filled (it must see, or follow,
 * every earlier write), and let the SACK tell the requester that it
 * arrived.
 *
 * Context: the QP's responder.
 * Return: the next state.
 */
enum resp_state irn_resp_ooo_hold(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 flags = c->pkt->flags;
	int need = flags & IRN_OP_READ ? IB_ACCESS_REMOTE_READ :
		   flags & IRN_OP_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC :
					   IB_ACCESS_REMOTE_WRITE;
	struct irn_rx_slot slot = {};

	if (!qp->max_dest_rd_atomic || !(qp->access & need) ||
	    !held_request(c, &slot))
		return reject(c, IRN_NAK_INVALID_REQ);
	irn_rxwin_put(&qp->resp.win, c->pkt->psn, &slot);
	irn_dev_count(qp->dev, IRN_CNT_OOO_PLACED);
	trace_irn_ooo_placed(irn_qp_num(qp), c->pkt->psn,
			     irn_psn_diff(c->pkt->psn, qp->resp.epsn));
	c->sack = true;
	return RESP_DONE;
}

/* A held read request is next in order: answer it now. */
static void run_read(struct irn_qp *qp, const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	u32 npkts = read_psns(qp, slot->len);

	irn_rxwin_skip(&qp->resp.win, qp->resp.epsn, npkts - 1);
	qp->resp.epsn = irn_psn_add(psn, npkts);
	qp->resp.msn++;
	if (!irn_resp_read_start(qp, slot->va, slot->ex, slot->len, psn)) {
		irn_resp_send_ack(qp, IRN_AETH_NAK | IRN_NAK_REM_ACCESS, psn);
		irn_qp_error(qp);
		return;
	}
	irn_resp_read_resource(qp, slot->va, slot->ex, slot->len, psn);
}

/*
 * A held atomic or atomic write failed to execute (@err from
 * irn_resp_execute_atomic() or irn_resp_execute_atomic_write()): the NAK
 * it would have earned in order, and the QP fails.
 */
static void held_failed(struct irn_qp *qp, u32 psn, int err)
{
	irn_resp_send_ack(qp, IRN_AETH_NAK |
			  (err == -EINVAL ? IRN_NAK_INVALID_REQ :
					    IRN_NAK_REM_ACCESS), psn);
	irn_qp_error(qp);
}

/* A held atomic request is next in order: execute it now. */
static void run_atomic(struct irn_qp *qp, const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	u8 opcode = slot->flags & IRN_RX_CAS ? IB_OPCODE_RC_COMPARE_SWAP :
					       IB_OPCODE_RC_FETCH_ADD;
	int err;

	qp->resp.msn++;
	err = irn_resp_execute_atomic(qp, psn, opcode, slot->ex, slot->va,
				      slot->swap_add, slot->compare);
	if (err)
		held_failed(qp, psn, err);
}

/* A held atomic write is next in order: store it now. */
static void run_atomic_write(struct irn_qp *qp,
			     const struct irn_rx_slot *slot)
{
	u32 psn = irn_psn_add(qp->resp.epsn, -1);
	int err;

	qp->resp.msn++;
	err = irn_resp_execute_atomic_write(qp, psn, slot->ex, slot->va,
					    slot->swap_add);
	if (err)
		held_failed(qp, psn, err);
}

/* The message ending at @slot has arrived, and all before it: report it. */
static void ooo_complete_recv(struct irn_qp *qp,
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
		wqe = rwqe(qp, slot->rsn);
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
	irn_resp_finish_recv(qp, &wc, slot->flags & IRN_RX_SE);
}

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
			run_read(qp, &slot);
			continue;
		}
		if (slot.flags & IRN_RX_ATOMIC) {
			run_atomic(qp, &slot);
			continue;
		}
		if (slot.flags & IRN_RX_ATOMIC_WRITE) {
			run_atomic_write(qp, &slot);
			continue;
		}
		if (!(slot.flags & IRN_RX_LAST))
			continue;
		qp->resp.msn++;
		if (slot.flags & IRN_RX_RECV)
			ooo_complete_recv(qp, &slot);
	}
	return n;
}

/**
 * irn_resp_ooo_drain() - move over what is now in order, and acknowledge
 * @c: the IRN request just handled
 *
 * Move the expected PSN over every placed request that is now in order,
 * completing messages as their last packets go by; then acknowledge if
 * asked, if a hole was filled or if holes remain.
 *
 * Context: the QP's responder.
 */
void irn_resp_ooo_drain(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 n = drain_window(qp);

	if (read_pending(qp)) {
		/* Acknowledged when the drain ends (irn_resp_ooo_drain_resume()). */
		qp->resp.rd.drain = true;
		return;
	}
	if (irn_qp_state(qp) == IB_QPS_ERR)
		return;
	if (c->sack || n > 1 || (n && (c->pkt->ack_req || qp->resp.win.placed)))
		send_sack(qp, c->pkt->psn, c->dsack);
}

/**
 * irn_resp_ooo_drain_resume() - go on with a drain a read stopped
 * @qp: RC QP whose read, which stopped a drain, is answered
 *
 * The read that stopped a drain is answered: go on, and acknowledge.
 *
 * Context: the QP's responder.
 */
void irn_resp_ooo_drain_resume(struct irn_qp *qp)
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
