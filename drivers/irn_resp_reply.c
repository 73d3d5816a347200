// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder, what go-back-N and IRN share: building and sending
 * acknowledgments, NAKs and responses, answering reads (in batches, paced
 * by the QP's flow), executing atomics and atomic writes, keeping both as
 * responder resources for their duplicates, and finishing receive WQEs.
 * The engine (irn_resp.c) and its IRN path (irn_resp_ooo.c) both stand
 * on it.
 */

#include <linux/ktime.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>

#include "irn_av.h"
#include "irn_compat.h"
#include "irn_cq.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_resp_reply.h"
#include "irn_srq.h"
#include "irn_xmit.h"

/*
 * Read responses per responder round: a large read is answered over many
 * rounds, which the engine's budget spreads over softirq and workqueue.
 */
#define IRN_READ_BATCH	16

/**
 * irn_resp_new_response_ext() - build a response packet
 * @qp: RC QP
 * @opcode: the response's opcode
 * @psn: its PSN
 * @syndrome: the AETH syndrome, if @opcode has an AETH
 * @paylen: payload bytes
 * @ext: with the IRN header
 * @dsack: with the BTH's D-SACK flag
 *
 * Build a response packet with @paylen bytes of room after the headers,
 * and the IRN header if @ext; returns the skb to fill, or NULL.  Every
 * response says whether this responder speaks IRN: that is the whole
 * negotiation (see Documentation/wire-format.rst).
 *
 * Context: the QP's responder.
 * Return: the skb to fill, NULL if none could be allocated.
 */
struct sk_buff *irn_resp_new_response_ext(struct irn_qp *qp, u8 opcode,
					  u32 psn, u8 syndrome, u32 paylen,
					  bool ext, bool dsack)
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
 * replacing meanwhile (irn_qp.h): from the base port, or with @sport (an
 * IRN request's, resp.ack_sport) from the path that request came on
 * (irn_flow_reply_path()).  Read responses (@data) carry the QP's data
 * and its congestion control's traffic class, as its requests do
 * (ECN-capable under DCQCN); acknowledgments go as the address vector
 * says.
 */
static void xmit_tos(struct irn_qp *qp, struct sk_buff *skb, bool data,
		     u16 sport)
{
	u32 path = IRN_PATH_NONE;
	struct irn_av *av;

	rcu_read_lock();
	av = rcu_dereference(qp->av);
	if (!av) {
		kfree_skb(skb);
		goto unlock;
	}
	if (sport)
		path = irn_flow_reply_path(&qp->flow, ntohs(av->sport), sport);
	irn_xmit_path(qp->dev, av, skb,
		      data ? irn_flow_tos(&qp->flow, av->tos) : av->tos, path);
unlock:
	rcu_read_unlock();
}

/**
 * irn_resp_xmit_response() - send a NAK or an atomic reply
 * @qp: RC QP
 * @skb: built by irn_resp_new_response_ext(); consumed
 *
 * It goes from the base port, as read responses do: a NAK or a reply must
 * not overtake the replies sent before it (a NAK that arrived before an
 * earlier read's responses would fail that read's WQE).
 *
 * Context: the QP's responder.
 */
void irn_resp_xmit_response(struct irn_qp *qp, struct sk_buff *skb)
{
	xmit_tos(qp, skb, false, 0);
}

/**
 * irn_resp_xmit_ack() - send an acknowledgment
 * @qp: RC QP
 * @skb: an ACK, with or without a SACK, from irn_resp_new_response_ext();
 *	 consumed
 *
 * It goes back on the path of the IRN request it answers, the QP's
 * resp.ack_sport (irn_flow_reply_path()); the requester takes
 * acknowledgments in any order.
 *
 * Context: the QP's responder.
 */
void irn_resp_xmit_ack(struct irn_qp *qp, struct sk_buff *skb)
{
	xmit_tos(qp, skb, false, qp->resp.ack_sport);
}

static struct sk_buff *new_response(struct irn_qp *qp, u8 opcode, u32 psn,
				    u8 syndrome, u32 paylen)
{
	return irn_resp_new_response_ext(qp, opcode, psn, syndrome, paylen,
					 false, false);
}

/**
 * irn_resp_send_ack() - send an ACK or a NAK
 * @qp: RC QP
 * @syndrome: AETH syndrome (IRN_AETH_*, with a NAK code)
 * @psn: the PSN it answers
 *
 * An ACK goes back on its request's path (irn_resp_xmit_ack()), a NAK
 * from the base port behind the replies before it
 * (irn_resp_xmit_response()).
 *
 * Context: the QP's responder.
 */
void irn_resp_send_ack(struct irn_qp *qp, u8 syndrome, u32 psn)
{
	struct sk_buff *skb = new_response(qp, IB_OPCODE_RC_ACKNOWLEDGE, psn,
					   syndrome, 0);

	if (!skb)
		return;
	if ((syndrome & IRN_AETH_TYPE_MASK) == IRN_AETH_ACK)
		irn_resp_xmit_ack(qp, skb);
	else
		irn_resp_xmit_response(qp, skb);
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
 * irn_resp_read_continue() - send the next responses of the read answered
 * @qp: RC QP with a read pending (read_pending())
 *
 * Send the next IRN_READ_BATCH responses of the read being answered, or
 * fewer if the QP's pacing says wait.  The key is looked up again for
 * each batch: a pending read holds no MR, so a deregistration never waits
 * for it; a key gone meanwhile ends the read with a remote access NAK.
 *
 * Context: the QP's responder.
 * Return: true if the read waits for the pacing timer.
 */
bool irn_resp_read_continue(struct irn_qp *qp)
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
			irn_resp_send_ack(qp, IRN_AETH_NAK | IRN_NAK_REM_ACCESS,
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
		xmit_tos(qp, skb, true, 0);
	}
	if (mr)
		irn_mr_put(mr);
	if (rd->next == rd->npkts)
		rd->npkts = 0;
	return wait;
}

/**
 * irn_resp_read_start() - answer a read
 * @qp: RC QP
 * @va: the read's address
 * @rkey: its key
 * @len: its length in bytes
 * @psn: its first response's PSN
 *
 * Answer a read of @len bytes at @va, its first response at @psn.  The
 * key is checked for the whole range now; the responses go out
 * IRN_READ_BATCH per responder round (irn_resp_read_continue()), so that
 * one request of 2 GiB does not hold the CPU for two million packets.  The
 * responder takes no other request until the last one is out: a later
 * write must not change what the read returns.
 *
 * Context: the QP's responder.
 * Return: false if @rkey grants no such read.
 */
bool irn_resp_read_start(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
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
	irn_resp_read_continue(qp);
	return true;
}

static struct irn_resp_res *new_resource(struct irn_qp *qp)
{
	return &qp->resp.res[qp->resp.res_head++ % resources(qp)];
}

/**
 * irn_resp_read_resource() - keep a read as a responder resource
 * @qp: RC QP
 * @va: the read's address
 * @rkey: its key
 * @len: its length in bytes
 * @psn: its first response's PSN
 *
 * Keep a read as a responder resource, for its duplicates.  A request
 * that continues the newest read (the requester splits a large read into
 * several, read_chunk() in irn_req.c) extends it: one resource per read
 * work request, as the requester counts its credits.
 *
 * Context: the QP's responder.
 */
void irn_resp_read_resource(struct irn_qp *qp, u64 va, u32 rkey, u32 len,
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

/**
 * irn_resp_send_atomic_ack() - send an atomic's reply
 * @qp: RC QP
 * @psn: the atomic's PSN
 * @orig: the 8 bytes it found
 *
 * Context: the QP's responder.
 */
void irn_resp_send_atomic_ack(struct irn_qp *qp, u32 psn, u64 orig)
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
	irn_resp_xmit_response(qp, skb);
}

/*
 * The aligned 8 bytes at @va that @rkey grants @access to, with a reference
 * on their MR in *@mrp; ERR_PTR(-EINVAL) if @va (or where it lands in the
 * MR's pages) is misaligned, ERR_PTR(-EACCES) if @rkey grants no such
 * access.  The atomics and the atomic write share it.
 */
static u64 *atomic_target(struct irn_qp *qp, u32 rkey, int access, u64 va,
			  struct irn_mr **mrp)
{
	struct irn_mr *mr;
	u64 *addr;

	if (va & 7)
		return ERR_PTR(-EINVAL);
	mr = get_rkey(qp, rkey, access, va, sizeof(*addr));
	if (!mr)
		return ERR_PTR(-EACCES);
	addr = irn_mr_atomic_addr(mr, va);
	if (!addr || !IS_ALIGNED((uintptr_t)addr, sizeof(*addr))) {
		irn_mr_put(mr);
		return ERR_PTR(addr ? -EINVAL : -EACCES);
	}
	*mrp = mr;
	return addr;
}

/**
 * irn_resp_execute_atomic() - execute an atomic and send its reply
 * @qp: RC QP
 * @psn: the atomic's PSN
 * @opcode: IB_OPCODE_RC_COMPARE_SWAP or IB_OPCODE_RC_FETCH_ADD
 * @rkey: the key
 * @va: the address
 * @swap_add: the value to swap in or to add
 * @compare: the value to compare with
 *
 * Execute the atomic at @psn: @opcode (IB_OPCODE_RC_COMPARE_SWAP or
 * FETCH_ADD) on the 8 bytes at @va that @rkey must grant atomic access to;
 * keep the original value for a duplicate of the request, and send it.
 * The caller has counted the request in the MSN.
 *
 * Context: the QP's responder; takes the device's atomic_lock.
 * Return: 0, -EINVAL if @va is misaligned, -EACCES if @rkey grants no
 * such access.
 */
int irn_resp_execute_atomic(struct irn_qp *qp, u32 psn, u8 opcode, u32 rkey,
			    u64 va, u64 swap_add, u64 compare)
{
	struct irn_resp_res *res;
	struct irn_mr *mr;
	u64 *addr, orig;

	addr = atomic_target(qp, rkey, IB_ACCESS_REMOTE_ATOMIC, va, &mr);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
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
	irn_resp_send_atomic_ack(qp, psn, orig);
	return 0;
}

/**
 * irn_resp_send_atomic_write_reply() - send an atomic write's reply
 * @qp: RC QP
 * @psn: the atomic write's PSN
 *
 * An atomic write's reply: an RDMA READ Response Only without payload, as
 * IBTA 1.5 has it and stock rxe sends and expects.
 *
 * Context: the QP's responder.
 */
void irn_resp_send_atomic_write_reply(struct irn_qp *qp, u32 psn)
{
	struct sk_buff *skb;

	skb = new_response(qp, IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY, psn,
			   IRN_AETH_CREDIT_INVALID, 0);
	if (skb)
		irn_resp_xmit_response(qp, skb);
}

/**
 * irn_resp_execute_atomic_write() - store an atomic write and send its reply
 * @qp: RC QP
 * @psn: the atomic write's PSN
 * @rkey: the key
 * @va: the address
 * @value: the 8 bytes to store
 *
 * Execute the atomic write at @psn: store @value, the request's 8 bytes
 * as they came, at @va, which @rkey must grant remote write access to
 * (the access stock rxe asks too); keep it as a responder resource, so
 * that a duplicate is answered without storing again, and send its reply.
 * The store is one aligned 64-bit store: a reader sees the old 8 bytes or
 * the new ones, never a mix; it is a release, ordered after every earlier
 * request's data; and it takes the atomics' lock, so that it never lands
 * inside a compare-and-swap or fetch-and-add on the same word.  The caller
 * has counted the request in the MSN.
 *
 * Context: the QP's responder; takes the device's atomic_lock.
 * Return: 0, -EINVAL if @va is misaligned, -EACCES if @rkey grants no
 * such access.
 */
int irn_resp_execute_atomic_write(struct irn_qp *qp, u32 psn, u32 rkey,
				  u64 va, u64 value)
{
	struct irn_resp_res *res;
	struct irn_mr *mr;
	u64 *addr;

	BUILD_BUG_ON(sizeof(*addr) != IRN_ATOMIC_WRITE_LEN);
	addr = atomic_target(qp, rkey, IB_ACCESS_REMOTE_WRITE, va, &mr);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	spin_lock_bh(&qp->dev->atomic_lock);
	/* Release: whatever was placed before it is visible first. */
	smp_store_release(addr, value);
	spin_unlock_bh(&qp->dev->atomic_lock);
	irn_mr_put(mr);

	res = new_resource(qp);
	res->opcode = IRN_OPCODE_RC_ATOMIC_WRITE;
	res->first_psn = psn;
	res->last_psn = psn;
	irn_resp_send_atomic_write_reply(qp, psn);
	return 0;
}

/**
 * irn_resp_atomic_write_value() - check an atomic write request's shape
 * @c: the request
 * @value: its 8 bytes, as they came
 *
 * The shape of an atomic write: a RETH for exactly 8 bytes and those 8
 * bytes, unpadded, as payload.  Their value, as they came, in @value.
 *
 * Context: the QP's responder.
 * Return: false if the request is malformed.
 */
bool irn_resp_atomic_write_value(struct resp_ctx *c, u64 *value)
{
	struct irn_reth *reth = ext_hdr(c, IRN_HDR_RETH);

	BUILD_BUG_ON(sizeof(*value) != IRN_ATOMIC_WRITE_LEN);
	return be32_to_cpu(reth->len) == IRN_ATOMIC_WRITE_LEN &&
	       c->pkt->paylen == IRN_ATOMIC_WRITE_LEN && !c->pkt->pad &&
	       !skb_copy_bits(c->skb, c->pkt->hdr_len, value,
			      IRN_ATOMIC_WRITE_LEN);
}

/**
 * irn_resp_finish_recv() - complete the receive WQE being filled
 * @qp: QP whose oldest receive WQE (or staged SRQ WQE) @wc completes
 * @wc: its completion
 * @se: solicited event
 *
 * A receive WQE is done: free its slot and report it.
 *
 * Context: the QP's responder.
 */
void irn_resp_finish_recv(struct irn_qp *qp, struct ib_wc *wc, bool se)
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
