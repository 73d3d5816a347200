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
 *
 * This file holds the state machine, which alone chooses between the two
 * ways, and go-back-N; the IRN way is irn_resp_ooo.c, and what both stand
 * on (responses, reads, atomics, responder resources, finishing receive
 * WQEs) irn_resp_reply.c.
 */

#include <linux/hrtimer.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>

#include "irn_compat.h"
#include "irn_counters.h"
#include "irn_cq.h"
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

#define IRN_GRH_LEN	40

/*
 * Requests waiting for the responder, at most.  They queue while it
 * answers a large read (or runs on another CPU); a peer must not fill
 * memory meanwhile.  Those beyond are dropped and recovered as losses.
 */
#define IRN_RESP_BACKLOG	4096

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

static enum resp_state send_read(struct resp_ctx *c, u64 va, u32 rkey,
				 u32 len, u32 psn)
{
	if (!irn_resp_read_start(c->qp, va, rkey, len, psn))
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
	irn_resp_read_resource(qp, be64_to_cpu(reth->va),
			       be32_to_cpu(reth->rkey), len, c->pkt->psn);
	return next;
}

/*
 * An atomic or atomic write is counted in the MSN before it executes, as
 * its reply carries the MSN; one that fails is taken back out, and NAKed.
 */
static void atomic_begin(struct resp_ctx *c)
{
	c->qp->resp.epsn = irn_psn_add(c->pkt->psn, 1);
	c->qp->resp.msn++;
}

static enum resp_state atomic_end(struct resp_ctx *c, int err)
{
	if (!err)
		return RESP_DONE;
	c->qp->resp.epsn = c->pkt->psn;
	c->qp->resp.msn--;
	return err == -EINVAL ? bad_request(c) : rkey_error(c);
}

static enum resp_state do_atomic(struct resp_ctx *c)
{
	struct irn_atmeth *atm = ext_hdr(c, IRN_HDR_ATMETH);

	if (!c->qp->max_dest_rd_atomic)
		return bad_request(c);
	atomic_begin(c);
	return atomic_end(c, irn_resp_execute_atomic(c->qp, c->pkt->psn,
				c->pkt->opcode,
				get_unaligned_be32(&atm->rkey),
				get_unaligned_be64(&atm->va),
				get_unaligned_be64(&atm->swap_add),
				get_unaligned_be64(&atm->compare)));
}

static enum resp_state do_atomic_write(struct resp_ctx *c)
{
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);
	u64 value;

	if (!c->qp->max_dest_rd_atomic ||
	    !irn_resp_atomic_write_value(c, &value))
		return bad_request(c);
	atomic_begin(c);
	return atomic_end(c, irn_resp_execute_atomic_write(c->qp, c->pkt->psn,
				be32_to_cpu(reth->rkey),
				be64_to_cpu(reth->va), value));
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
			irn_resp_send_atomic_write_reply(qp, res->first_psn);
		else
			irn_resp_send_atomic_ack(qp, res->first_psn,
						 res->atomic_orig);
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
	irn_resp_send_ack(qp, IRN_AETH_CREDIT_INVALID,
			  irn_psn_add(qp->resp.epsn, -1));
	return RESP_DONE;
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
	irn_resp_finish_recv(qp, &wc, c->pkt->bth_flags & IRN_BTH_SE);
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
		irn_resp_send_ack(qp, IRN_AETH_CREDIT_INVALID, c->pkt->psn);
	return RESP_DONE;
}

static enum resp_state do_nak(struct resp_ctx *c)
{
	struct irn_qp *qp = c->qp;
	u32 psn = c->nak == IRN_NAK_PSN_SEQ ? qp->resp.epsn : c->pkt->psn;

	irn_resp_send_ack(qp, IRN_AETH_NAK | c->nak, psn);
	if (c->nak != IRN_NAK_PSN_SEQ)
		irn_qp_error(qp);
	return RESP_DONE;
}

static enum resp_state do_rnr(struct resp_ctx *c)
{
	irn_dev_count(c->qp->dev, IRN_CNT_RNR_NAK_SENT);
	irn_resp_send_ack(c->qp,
			  IRN_AETH_RNR_NAK | (c->qp->min_rnr_timer & 0x1f),
			  c->pkt->psn);
	return RESP_DONE;
}

/*
 * The port the acknowledgments of this request go back from
 * (irn_resp_xmit_ack()): an IRN request's own, which may be any of its
 * sender's paths'; 0 for the base port.
 */
static u16 ack_sport(const struct irn_qp *qp, struct sk_buff *skb)
{
	if (!irn_skb_pkt(skb)->ext_off || !irn_qp_irn_responder(qp))
		return 0;
	return ntohs(udp_hdr(skb)->source);
}

static void handle_request(struct irn_qp *qp, struct sk_buff *skb)
{
	struct resp_ctx c = {
		.qp = qp, .skb = skb, .pkt = irn_skb_pkt(skb),
		.status = IB_WC_SUCCESS,
	};
	enum resp_state state = RESP_CHECK_PSN;
	u32 epsn = qp->resp.epsn;

	qp->resp.ack_sport = ack_sport(qp, skb);
	while (state != RESP_DONE) {
		switch (state) {
		case RESP_CHECK_PSN:
			state = check_psn(&c);
			break;
		case RESP_IRN_CHECK:
			state = irn_resp_ooo_check(&c);
			break;
		case RESP_IRN_PLACE:
			state = irn_resp_ooo_place(&c);
			break;
		case RESP_IRN_HOLD:
			state = irn_resp_ooo_hold(&c);
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
		irn_resp_ooo_drain(&c);
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
		if (irn_resp_read_continue(qp))
			return IRN_TASK_IDLE;
		if (!read_pending(qp) && qp->resp.rd.drain)
			irn_resp_ooo_drain_resume(qp);
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
