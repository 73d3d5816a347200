// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completer: acknowledgments, read and atomic responses, timeouts.
 *
 * It retires send WQEs in order, writes their completions, and decides
 * retransmission.  Standard RoCEv2 recovery is go-back-N: a PSN sequence
 * NAK, an ACK that skips an unanswered read, a timeout or an RNR NAK makes
 * the requester resend everything from the oldest unacknowledged PSN.
 *
 * IRN recovery is selective: acknowledgments, selective acknowledgments
 * and read or atomic responses mark PSNs delivered in the QP's scoreboard;
 * WQEs retire when all their PSNs and all before them are delivered; PSNs
 * the scoreboard finds lost are resent by the requester one by one.  The
 * negotiation happens here too: an `auto` QP turns IRN on when a response
 * shows that the peer's responder speaks it.
 *
 * A response packet goes through a small state machine:
 *
 *   CHECK_PSN -> CHECK_OP -> (READ | ATOMIC | ATOMIC_WRITE | ACK | NAK)
 *   -> DONE
 *
 * each handler returning the next state.
 */

#include <linux/bitmap.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>

#include "irn_comp_retire.h"
#include "irn_comp_sack.h"
#include "irn_compat.h"
#include "irn_cq.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_sb.h"
#include "irn_trace.h"

/*
 * Responses waiting for the completer, at most: it may run late (on
 * another CPU, or deferred to the workqueue) while a peer keeps sending,
 * and a peer must not fill memory meanwhile.  Those beyond are dropped
 * and recovered as losses.
 */
#define IRN_COMP_BACKLOG	4096

/* RNR NAK timer values, IBTA table 45, in microseconds. */
static const u32 rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* Once SACKs cover all but a few, no later packet can reveal their loss. */
static bool rto_is_short(const struct irn_qp *qp)
{
	return irn_qp_outstanding(qp) <= IRN_FLOW_RTO_LOW_PKTS;
}

/*
 * Ask the requester to resend from the oldest unacknowledged PSN.  Once per
 * loss: every packet after a lost one says the same, and a second rewind
 * before any progress would only resend the same packets again.  A timeout
 * forces it.
 */
static void rewind_from(struct irn_qp *qp, bool force)
{
	if (qp->comp.rewound && !force)
		return;
	qp->comp.rewound = true;
	irn_dev_count(qp->dev, IRN_CNT_RETRANSMIT);
	irn_flow_on_loss(&qp->flow);
	atomic_set(&qp->rewind, BIT(31) | qp->comp.psn);
	irn_task_sched(&qp->req_task);
}

static void rewind(struct irn_qp *qp)
{
	rewind_from(qp, false);
}

/* Complete WQEs that were already done (local ops, UC/UD sends, errors). */
static void retire_done(struct irn_qp *qp)
{
	struct irn_swqe *w;

	while ((w = irn_comp_head_wqe(qp)) && w->state == IRN_SWQE_DONE)
		irn_comp_retire(qp, w, w->status);
}

/*
 * An ACK inside a long send or write (the requester asks for one every so
 * many packets) acknowledges its first packets: the window moves on.
 */
static void partial_ack(struct irn_qp *qp, struct irn_swqe *w, u32 psn)
{
	if (w->rd_credit || w->state == IRN_SWQE_DONE ||
	    irn_psn_before(psn, w->first_psn) ||
	    !irn_psn_before(psn, qp->req.psn) ||
	    irn_psn_before(psn, qp->comp.psn))
		return;
	irn_flow_on_ack(&qp->flow, irn_psn_diff(psn, qp->comp.psn) + 1, 0,
			IRN_PATH_NONE);
	irn_comp_progress(qp, irn_psn_add(psn, 1));
}

/* Retire sends and writes acknowledged up to @psn inclusive. */
static bool ack_until(struct irn_qp *qp, u32 psn)
{
	struct irn_swqe *w;

	while ((w = irn_comp_head_wqe(qp))) {
		if (w->state == IRN_SWQE_DONE) {
			irn_comp_retire(qp, w, w->status);
			continue;
		}
		if (w->state != IRN_SWQE_SENT ||
		    irn_psn_after(w->last_psn, psn)) {
			partial_ack(qp, w, psn);
			return true;
		}
		/*
		 * An ACK past an unanswered read or atomic: its reply is lost.
		 * Not an atomic write's: its reply carries nothing, and the
		 * responder goes in order, so the ACK says it was stored (stock
		 * rxe's completer takes it so too).
		 */
		if (w->opcode == IB_WR_RDMA_READ ||
		    (w->rd_credit && !is_atomic_write_wqe(w)))
			return false;
		/*
		 * An RTT sample only from the WQE this ACK answers: one
		 * retired by a later WQE's ACK (its own was lost) waited
		 * for that WQE too, and would swell the timeout.
		 */
		irn_flow_on_ack(&qp->flow,
				irn_psn_diff(w->last_psn, qp->comp.psn) + 1,
				w->resent || w->last_psn != psn ? 0 :
				ktime_get_ns() - w->sent_ns, IRN_PATH_NONE);
		irn_comp_progress(qp, irn_psn_add(w->last_psn, 1));
		irn_comp_retire(qp, w, IB_WC_SUCCESS);
	}
	return true;
}

static enum comp_state check_psn(struct irn_qp *qp, struct irn_pkt *pkt)
{
	/* A response for a PSN never sent, or long acknowledged: ignore. */
	if (!irn_psn_before(pkt->psn, qp->req.psn))
		return COMP_DONE;
	/* A duplicate ACK still carries news if it has a SACK. */
	if (pkt->ext_off && irn_qp_irn_on(qp) &&
	    pkt->psn == irn_psn_add(qp->comp.psn, -1))
		return COMP_CHECK_OP;
	if (irn_psn_before(pkt->psn, qp->comp.psn))
		return COMP_DONE;
	return COMP_CHECK_OP;
}

static u8 aeth_syndrome(struct sk_buff *skb, struct irn_pkt *pkt)
{
	struct irn_aeth *aeth = (void *)(skb->data +
				irn_pkt_hdr_offset(pkt, IRN_HDR_AETH));

	return be32_to_cpu(aeth->smsn) >> 24;
}

/*
 * What the response is for.  Go-back-N: a read or atomic response belongs
 * to the head WQE, found once here and passed on in @wp;
 * irn_comp_head_wqe() read again could miss it while a rewind moves the
 * requester back to it.
 */
static enum comp_state check_op(struct irn_qp *qp, struct sk_buff *skb,
				struct irn_pkt *pkt, struct irn_swqe **wp)
{
	struct irn_swqe *w = irn_comp_head_wqe(qp);

	if ((pkt->flags & IRN_HDR_AETH) &&
	    (aeth_syndrome(skb, pkt) & IRN_AETH_TYPE_MASK) != IRN_AETH_ACK)
		return COMP_NAK;
	/*
	 * IRN places responses by PSN, whichever WQE they belong to; a read
	 * response that answers an atomic write is found so
	 * (irn_comp_sack_read()).
	 */
	if (irn_qp_irn_on(qp))
		return pkt->flags & IRN_OP_READ ? COMP_READ :
		       pkt->flags & IRN_OP_ATOMIC ? COMP_ATOMIC : COMP_ACK;
	*wp = w;
	if (pkt->flags & IRN_OP_READ) {
		if (w && is_atomic_write_wqe(w))
			return COMP_ATOMIC_WRITE;
		if (!w || w->opcode != IB_WR_RDMA_READ)
			return COMP_DONE;
		return COMP_READ;
	}
	if (pkt->flags & IRN_OP_ATOMIC)
		return w && w->rd_credit ? COMP_ATOMIC : COMP_DONE;
	return COMP_ACK;
}

/*
 * An `auto` QP turns IRN on at the first response whose sender's responder
 * speaks it.  The scoreboard starts from what is acknowledged now; the
 * requester builds IRN requests from its next packet on.
 */
static void negotiate(struct irn_qp *qp, const struct irn_pkt *pkt)
{
	if (qp->irn.on || qp->irn.mode != IRN_MODE_AUTO || !pkt->irn_cap)
		return;
	spin_lock_bh(&qp->irn.sb_lock);
	irn_sb_reset(&qp->irn.sb, qp->comp.psn);
	spin_unlock_bh(&qp->irn.sb_lock);
	/* Pairs with irn_qp_irn_on(). */
	smp_store_release(&qp->irn.on, true);
	irn_dev_count(qp->dev, IRN_CNT_IRN_QPS);
}

static enum comp_state do_ack(struct irn_qp *qp, struct irn_pkt *pkt)
{
	if (!ack_until(qp, pkt->psn))
		rewind(qp);
	return COMP_DONE;
}

/* Read responses arrive in order; anything else means a loss. */
static enum comp_state do_read(struct irn_qp *qp, struct irn_swqe *w,
			       struct sk_buff *skb, struct irn_pkt *pkt)
{
	u32 index = qp->comp.head & qp->sq.queue.mask;
	struct irn_copy data = { .skb = skb, .skb_off = pkt->hdr_len };
	u32 expect = irn_psn_add(w->first_psn,
				 qp->comp.read_offset / qp->mtu);
	enum ib_wc_status status;

	if (!ack_until(qp, irn_psn_add(w->first_psn, -1)))
		return COMP_DONE;
	/* All here already; its retire lost a race with a rewind. */
	if (qp->comp.read_offset == w->length && w->length) {
		irn_comp_retire(qp, w, IB_WC_SUCCESS);
		return COMP_DONE;
	}
	if (pkt->psn != expect) {
		rewind(qp);
		return COMP_DONE;
	}
	if (qp->comp.read_offset + pkt->paylen > w->length) {
		irn_comp_retire(qp, w, IB_WC_LOC_LEN_ERR);
		return COMP_DONE;
	}
	status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd,
				  irn_qp_sq_slot(qp, index)->dma.sge,
				  w->num_sge, qp->comp.read_offset, &data,
				  pkt->paylen, true);
	if (status != IB_WC_SUCCESS) {
		irn_comp_retire(qp, w, status);
		return COMP_DONE;
	}
	qp->comp.read_offset += pkt->paylen;
	irn_comp_progress(qp, irn_psn_add(pkt->psn, 1));
	/* Large reads go out as several requests: done when all is here. */
	if (qp->comp.read_offset == w->length)
		irn_comp_retire(qp, w, IB_WC_SUCCESS);
	else if ((pkt->flags & IRN_OP_LAST) &&
		 qp->comp.read_offset % qp->mtu)
		irn_comp_retire(qp, w, IB_WC_LOC_LEN_ERR);
	return COMP_DONE;
}

static enum comp_state do_atomic(struct irn_qp *qp, struct irn_swqe *w,
				 struct sk_buff *skb, struct irn_pkt *pkt)
{
	u32 index = qp->comp.head & qp->sq.queue.mask;
	struct irn_atmack *ack = (void *)(skb->data +
				 irn_pkt_hdr_offset(pkt, IRN_HDR_ATMACK));
	u64 orig = get_unaligned_be64(&ack->orig);
	struct irn_copy data = { .buf = &orig };
	enum ib_wc_status status;

	if (!ack_until(qp, irn_psn_add(w->first_psn, -1)))
		return COMP_DONE;
	if (pkt->psn != w->first_psn || !is_atomic_wqe(w))
		return COMP_DONE;
	status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd,
				  irn_qp_sq_slot(qp, index)->dma.sge,
				  w->num_sge, 0, &data, sizeof(orig), true);
	irn_comp_progress(qp, irn_psn_add(pkt->psn, 1));
	irn_comp_retire(qp, w, status);
	return COMP_DONE;
}

/*
 * Go-back-N: the reply of the atomic write at the head completes it, as
 * an ACK at or past its PSN does (ack_until()).
 */
static enum comp_state do_atomic_write(struct irn_qp *qp, struct irn_swqe *w,
				       struct irn_pkt *pkt)
{
	if (!ack_until(qp, irn_psn_add(w->first_psn, -1)))
		return COMP_DONE;
	if (!is_atomic_write_wqe(w) || !aw_reply_ok(w, pkt))
		return COMP_DONE;
	irn_comp_progress(qp, irn_psn_add(pkt->psn, 1));
	irn_comp_retire(qp, w, IB_WC_SUCCESS);
	return COMP_DONE;
}

static void start_rnr_wait(struct irn_qp *qp, u8 syndrome)
{
	u32 us = rnr_timer_us[syndrome & 0x1f];

	hrtimer_start(&qp->comp.rnr_timer, ns_to_ktime((u64)us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

static enum ib_wc_status nak_status(u8 code)
{
	switch (code) {
	case IRN_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case IRN_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

static enum comp_state do_nak(struct irn_qp *qp, struct sk_buff *skb,
			      struct irn_pkt *pkt)
{
	u8 syndrome = aeth_syndrome(skb, pkt);
	struct irn_swqe *w;

	/* Everything before the NAKed PSN was received. */
	if (irn_qp_irn_on(qp)) {
		irn_comp_sack_acked_before(qp, pkt->psn, NULL, IRN_PATH_NONE);
	} else if (!ack_until(qp, irn_psn_add(pkt->psn, -1))) {
		rewind(qp);
		return COMP_DONE;
	}
	w = irn_comp_head_wqe(qp);
	if (!w)
		return COMP_DONE;
	switch (syndrome & IRN_AETH_TYPE_MASK) {
	case IRN_AETH_RNR_NAK:
		irn_dev_count(qp->dev, IRN_CNT_RNR_NAK_RCVD);
		if (qp->rnr_retry != 7 && !qp->comp.rnr_left--) {
			irn_comp_retire(qp, w, IB_WC_RNR_RETRY_EXC_ERR);
			break;
		}
		/*
		 * The peer is there and answers: the RNR retry count, not
		 * the transport's, measures its wait (seven: for ever), so
		 * no timeout runs while the RNR timer does, and one that
		 * expired before this NAK is stale (handle_timeout()).
		 */
		qp->comp.progress_ns = ktime_get_ns();
		hrtimer_try_to_cancel(&qp->comp.rto);
		start_rnr_wait(qp, syndrome);
		break;
	case IRN_AETH_NAK:
		if ((syndrome & 0x1f) == IRN_NAK_PSN_SEQ) {
			irn_dev_count(qp->dev, IRN_CNT_SEQ_NAK_RCVD);
			/*
			 * A NAK acknowledges the sends and writes before it;
			 * a read's responses are its only acknowledgment.
			 */
			if (!w->rd_credit && !irn_qp_irn_on(qp))
				WRITE_ONCE(qp->comp.psn, pkt->psn);
			/* The responder NAKs each gap once: always act on it. */
			rewind_from(qp, true);
		} else {
			irn_comp_retire(qp, w, nak_status(syndrome & 0x1f));
		}
		break;
	}
	return COMP_DONE;
}

static void handle_response(struct irn_qp *qp, struct sk_buff *skb)
{
	struct irn_pkt *pkt = irn_skb_pkt(skb);
	enum comp_state state = COMP_CHECK_PSN;
	struct irn_swqe *w = NULL;

	negotiate(qp, pkt);
	while (state != COMP_DONE) {
		switch (state) {
		case COMP_CHECK_PSN:
			state = check_psn(qp, pkt);
			break;
		case COMP_CHECK_OP:
			state = check_op(qp, skb, pkt, &w);
			break;
		case COMP_READ:
			state = irn_qp_irn_on(qp) ? irn_comp_sack_read(qp, skb, pkt) :
						    do_read(qp, w, skb, pkt);
			break;
		case COMP_ATOMIC:
			state = irn_qp_irn_on(qp) ?
				irn_comp_sack_atomic(qp, skb, pkt) :
				do_atomic(qp, w, skb, pkt);
			break;
		case COMP_ATOMIC_WRITE:
			state = irn_qp_irn_on(qp) ?
				irn_comp_sack_atomic_write(qp, pkt) :
				do_atomic_write(qp, w, pkt);
			break;
		case COMP_ACK:
			state = irn_qp_irn_on(qp) ? irn_comp_sack_ack(qp, skb, pkt) :
						    do_ack(qp, pkt);
			break;
		case COMP_NAK:
			state = do_nak(qp, skb, pkt);
			break;
		case COMP_DONE:
			break;
		}
	}
}

/*
 * A QP that sprays charges an IRN timeout to the path of the oldest
 * unacknowledged PSN, whose packet the timer waited for.
 */
static void timed_out_path(struct irn_qp *qp)
{
	u32 path, seq;

	if (irn_flow_paths(&qp->flow) <= 1)
		return;
	spin_lock_bh(&qp->irn.sb_lock);
	path = irn_sb_path(&qp->irn.sb, irn_sb_first_missing(&qp->irn.sb),
			   &seq);
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_flow_on_path_loss(&qp->flow, path, seq, true, ktime_get_ns());
}

/*
 * The timer expired.  An acknowledgment that was late, not lost, may
 * have been processed since (the completer takes queued packets before
 * the timeout): if it moved the cumulative point after the expiry,
 * irn_comp_progress() restarted the timer for what is left, and this timeout is
 * stale.
 */
static void handle_timeout(struct irn_qp *qp)
{
	struct irn_swqe *w = irn_comp_head_wqe(qp);
	bool short_rto;

	if (!w || w->state == IRN_SWQE_DONE)
		return;
	if ((s64)(qp->comp.progress_ns -
		  READ_ONCE(qp->comp.rto_expired_ns)) > 0)
		return;
	irn_dev_count(qp->dev, IRN_CNT_RTO);
	/*
	 * The retry count is of IBTA timeouts: periods of T without
	 * progress.  IRN's shorter timers do not use it up faster.  Unlike
	 * the RNR retry count, 7 means seven, not forever: a peer that went
	 * away fails the QP instead of hanging it.
	 */
	if (ktime_get_ns() - qp->comp.progress_ns >= ib_timeout_ns(qp)) {
		qp->comp.progress_ns = ktime_get_ns();
		if (!qp->comp.retry_left--) {
			irn_dev_count(qp->dev, IRN_CNT_RETRY_EXCEEDED);
			irn_comp_retire(qp, w, IB_WC_RETRY_EXC_ERR);
			return;
		}
	}
	if (!irn_qp_irn_on(qp)) {
		/*
		 * A peer too slow to answer a window of resends within T
		 * would see every one of them again after each timeout; a
		 * longer wait lets it catch up before the retries run out.
		 */
		if (qp->comp.backoff < 8)
			qp->comp.backoff++;
		rewind_from(qp, true);
		return;
	}
	short_rto = rto_is_short(qp);
	irn_dev_count(qp->dev, short_rto ? IRN_CNT_RTO_SHORT :
					   IRN_CNT_RTO_LONG);
	timed_out_path(qp);
	qp->comp.rto_spent_ns = irn_comp_rto_ns(qp);
	qp->comp.rto_fired_ns = ktime_get_ns();
	qp->comp.rto_end = READ_ONCE(qp->req.psn);
	if (qp->comp.backoff < 8)
		qp->comp.backoff++;
	spin_lock_bh(&qp->irn.sb_lock);
	irn_qp_sb_clock(qp);
	irn_sb_timeout(&qp->irn.sb, qp->comp.rto_end,
		       irn_flow_narrowed(&qp->flow), qp->comp.rto_spent_ns);
	trace_irn_recovery(irn_qp_num(qp), short_rto ? "rto_short" :
			   "rto_long", qp->irn.sb.una, qp->irn.sb.high,
			   qp->irn.sb.recover, qp->flow.srtt_ns,
			   qp->irn.sb.reo_ns);
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_dev_count(qp->dev, IRN_CNT_RECOVERY);
	irn_flow_on_loss(&qp->flow);
	/* Restart the timer: the requester sends from its own context. */
	hrtimer_start(&qp->comp.rto, ns_to_ktime(irn_comp_rto_ns(qp)),
		      HRTIMER_MODE_REL_SOFT);
	irn_task_sched(&qp->req_task);
}

/*
 * In the error state, and in the send queue error state of UC and UD QPs,
 * every outstanding WQE completes as flushed, or with the error it failed
 * with.  The requester hands over the WQEs it had not
 * finished (flush_unsent() in irn_req.c) and runs this engine again.
 */
static enum irn_task_ret flush(struct irn_qp *qp)
{
	struct irn_swqe *w;

	skb_queue_purge(&qp->comp_pkts);
	hrtimer_try_to_cancel(&qp->comp.rto);
	/* Not the WQE the requester still holds: it hands that over. */
	if ((s32)(smp_load_acquire(&qp->req.next) - qp->comp.head) <= 0)
		return IRN_TASK_IDLE;
	w = &qp->swqe[qp->comp.head & qp->sq.queue.mask];
	if (!irn_comp_retire(qp, w, READ_ONCE(w->status) ?: IB_WC_WR_FLUSH_ERR))
		return IRN_TASK_IDLE;
	return IRN_TASK_MORE;
}

/**
 * irn_completer() - completer engine
 * @task: the QP's comp_task
 *
 * Context: softirq, process context or the irn workqueue; one instance per
 * QP at a time.
 * Return: IRN_TASK_MORE while packets or flushes remain.
 */
enum irn_task_ret irn_completer(struct irn_task *task)
{
	struct irn_qp *qp = container_of(task, struct irn_qp, comp_task);
	enum ib_qp_state state = irn_qp_state(qp);
	struct sk_buff *skb;

	if (state == IB_QPS_ERR || state == IB_QPS_SQE)
		return flush(qp);

	skb = skb_dequeue(&qp->comp_pkts);
	if (!skb) {
		/* After the queued packets: see handle_timeout(). */
		if (atomic_xchg(&qp->comp.timeout, 0))
			handle_timeout(qp);
		retire_done(qp);
		return IRN_TASK_IDLE;
	}
	handle_response(qp, skb);
	kfree_skb(skb);
	retire_done(qp);
	irn_task_run(&qp->req_task);
	return IRN_TASK_MORE;
}

/**
 * irn_comp_queue() - hand a response packet to the completer
 * @qp: QP, referenced by the caller
 * @skb: validated response; consumed
 *
 * Context: softirq.
 */
void irn_comp_queue(struct irn_qp *qp, struct sk_buff *skb)
{
	/* Recovered as a loss; see IRN_COMP_BACKLOG. */
	if (skb_queue_len(&qp->comp_pkts) >= IRN_COMP_BACKLOG) {
		irn_dev_count(qp->dev, IRN_CNT_DROP_BACKLOG);
		kfree_skb(skb);
		return;
	}
	skb_queue_tail(&qp->comp_pkts, skb);
	irn_task_run(&qp->comp_task);
}

/**
 * irn_comp_arm_rto() - start the retransmission timer if it is not running
 * @qp: RC QP that just sent a packet
 *
 * The timeout is the QP's: 4.096 us * 2^timeout; 0 means none.  A timer
 * whose callback is running counts as not running: the callback may have
 * found nothing outstanding just before this packet went out, and would
 * leave it without a timer.
 *
 * Context: any.
 */
void irn_comp_arm_rto(struct irn_qp *qp)
{
	if (!qp->timeout)
		return;
	/* The new req.psn before the timer's state: see irn_comp_progress(). */
	smp_mb();
	if (hrtimer_is_queued(&qp->comp.rto))
		return;
	hrtimer_start(&qp->comp.rto, ns_to_ktime(irn_comp_rto_ns(qp)),
		      HRTIMER_MODE_REL_SOFT);
}

/**
 * irn_comp_restart_rto() - restart the retransmission timer from now
 * @qp: RC QP that just resent its oldest unacknowledged PSN
 *
 * As Linux TCP does when it retransmits the head of its queue: the resent
 * packet deserves a full timeout before the timer resends it again.
 *
 * Context: any.
 */
void irn_comp_restart_rto(struct irn_qp *qp)
{
	if (qp->timeout)
		hrtimer_start(&qp->comp.rto, ns_to_ktime(irn_comp_rto_ns(qp)),
			      HRTIMER_MODE_REL_SOFT);
}

/**
 * irn_comp_rto_expired() - retransmission timer callback
 * @timer: the QP's comp.rto
 *
 * Context: softirq (HRTIMER_MODE_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart irn_comp_rto_expired(struct hrtimer *timer)
{
	struct irn_qp *qp = container_of(timer, struct irn_qp, comp.rto);

	/* Something is unacknowledged, possibly of the WQE being sent. */
	if (READ_ONCE(qp->comp.psn) != READ_ONCE(qp->req.psn)) {
		WRITE_ONCE(qp->comp.rto_expired_ns, ktime_get_ns());
		/* The time before the flag: see handle_timeout(). */
		smp_mb__before_atomic();
		atomic_set(&qp->comp.timeout, 1);
		irn_task_sched(&qp->comp_task);
	}
	return HRTIMER_NORESTART;
}

/**
 * irn_comp_rnr_expired() - RNR wait over: resend
 * @timer: the QP's comp.rnr_timer
 *
 * Context: softirq (HRTIMER_MODE_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart irn_comp_rnr_expired(struct hrtimer *timer)
{
	struct irn_qp *qp = container_of(timer, struct irn_qp,
					 comp.rnr_timer);

	atomic_set(&qp->rewind, BIT(31) | READ_ONCE(qp->comp.psn));
	irn_task_sched(&qp->req_task);
	return HRTIMER_NORESTART;
}
