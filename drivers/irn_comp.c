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

enum comp_state {
	COMP_CHECK_PSN,
	COMP_CHECK_OP,
	COMP_READ,
	COMP_ATOMIC,
	COMP_ATOMIC_WRITE,
	COMP_ACK,
	COMP_NAK,
	COMP_DONE,
};

/* RNR NAK timer values, IBTA table 45, in microseconds. */
static const u32 rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static bool is_atomic_wqe(const struct irn_swqe *w)
{
	return w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Its reply is an empty RDMA READ Response Only (IBTA 1.5). */
static bool is_atomic_write_wqe(const struct irn_swqe *w)
{
	return w->opcode == IRN_WR_ATOMIC_WRITE;
}

/*
 * Answered by a reply: reads, atomics and atomic writes, which the
 * responder executes in order and keeps as responder resources.  With IRN
 * on, the reply is what delivers their PSNs, and an acknowledgment that
 * passes one unanswered says its reply was lost.
 */
static bool has_reply(const struct irn_swqe *w)
{
	return w->opcode == IB_WR_RDMA_READ || is_atomic_wqe(w) ||
	       is_atomic_write_wqe(w);
}

/* Is @pkt, a read response, the reply of the atomic write @w? */
static bool aw_reply_ok(const struct irn_swqe *w, const struct irn_pkt *pkt)
{
	return pkt->opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY &&
	       !pkt->paylen && pkt->psn == w->first_psn;
}

/*
 * IBTA lets the transport timer expire between T and 4T, T being the QP's
 * local ACK timeout: within that range irn follows the measured RTT, so a
 * path slower than the application guessed does not retransmit spuriously.
 */
static u64 ib_timeout_ns(const struct irn_qp *qp)
{
	return 4096ULL << min_t(u8, qp->timeout, 31);
}

/* Once SACKs cover all but a few, no later packet can reveal their loss. */
static bool rto_is_short(const struct irn_qp *qp)
{
	return irn_qp_outstanding(qp) <= IRN_FLOW_RTO_LOW_PKTS;
}

/*
 * Go-back-N: from the RTT within [T, 4T]; IRN: short or long timeout from
 * the RTT, see irn_flow_irn_rto_ns().  Either doubles per timeout without
 * progress (RFC 6298 5.5), up to 4T.
 */
static u64 rto_ns(const struct irn_qp *qp)
{
	u64 t = ib_timeout_ns(qp);
	u64 base;

	if (!irn_qp_irn_on(qp))
		base = irn_flow_rto_ns(&qp->flow, t, 4 * t);
	else
		base = irn_flow_irn_rto_ns(&qp->flow, irn_qp_outstanding(qp),
					   qp->irn.rto_low_ns,
					   qp->irn.rto_high_ns, t);
	return min(base << qp->comp.backoff, 4 * t);
}

/*
 * The oldest WQE not completed: one the requester has finished with, or the
 * one it is still sending (whose early packets can already be answered:
 * mid-message ACKs, responses to the first requests of a large read).
 */
static struct irn_swqe *head_wqe(struct irn_qp *qp)
{
	struct irn_swqe *w = &qp->swqe[qp->comp.head & qp->sq.queue.mask];
	/* Pairs with the requester's store-release of req.next. */
	u32 next = smp_load_acquire(&qp->req.next);

	if ((s32)(next - qp->comp.head) > 0)
		return w;
	if (next == qp->comp.head && READ_ONCE(w->state) == IRN_SWQE_SENDING)
		return w;
	return NULL;
}

static enum ib_wc_opcode wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IRN_WR_ATOMIC_WRITE:
		return IRN_WC_ATOMIC_WRITE;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Report the head WQE and free its slot.  Not if the requester has gone
 * back to it (a rewind) or is still sending it: then a failure is left in
 * the WQE, for the requester to hand over once the QP is in the error
 * state, and a success waits for the acknowledgment of the resent packets.
 * Returns true if the WQE was retired.
 */
static bool retire(struct irn_qp *qp, struct irn_swqe *w,
		   enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id		= w->wr_id,
		.status		= status,
		.qp		= &qp->ib_qp,
	};

	spin_lock_bh(&qp->sq_pos_lock);
	if ((s32)(READ_ONCE(qp->req.next) - qp->comp.head) <= 0) {
		spin_unlock_bh(&qp->sq_pos_lock);
		if (status != IB_WC_SUCCESS) {
			WRITE_ONCE(w->status, status);
			irn_qp_sq_error(qp);
		}
		return false;
	}
	if (w->rd_credit)
		atomic_dec(&qp->req.rd_atomic);
	if (status != IB_WC_SUCCESS || qp->sq_sig_all ||
	    (w->send_flags & IB_SEND_SIGNALED)) {
		wc.opcode = wc_opcode(w->opcode);
		wc.byte_len = w->length;
		if (w->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
		    w->opcode == IB_WR_SEND_WITH_IMM)
			wc.wc_flags = IB_WC_WITH_IMM;
		if (irn_cq_post(qp->scq, &wc, false))
			status = IB_WC_LOC_QP_OP_ERR;
	}
	w->state = IRN_SWQE_NEW;
	qp->comp.read_offset = 0;
	/* Pairs with the requester's load-acquire of comp.head. */
	smp_store_release(&qp->comp.head, qp->comp.head + 1);
	spin_unlock_bh(&qp->sq_pos_lock);
	irn_wq_consumed(&qp->sq, qp->comp.head);
	if (status != IB_WC_SUCCESS)
		irn_qp_sq_error(qp);
	return true;
}

/* The peer acknowledged up to @psn: reset the retry budget and the RTO. */
static void progress(struct irn_qp *qp, u32 psn)
{
	WRITE_ONCE(qp->comp.psn, psn);
	qp->comp.progress_ns = ktime_get_ns();
	qp->comp.backoff = 0;
	qp->comp.rewound = false;
	qp->comp.retry_left = qp->retry_cnt;
	qp->comp.rnr_left = qp->rnr_retry;
	if (!qp->timeout)
		return;
	if (psn == READ_ONCE(qp->req.psn)) {
		hrtimer_try_to_cancel(&qp->comp.rto);
		/*
		 * Pairs with the barrier in irn_comp_arm_rto(): a packet
		 * sent meanwhile either saw the timer cancelled and armed
		 * it, or is seen here.
		 */
		smp_mb();
		if (psn == READ_ONCE(qp->req.psn))
			return;
	}
	hrtimer_start(&qp->comp.rto, ns_to_ktime(rto_ns(qp)),
		      HRTIMER_MODE_REL_SOFT);
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

	while ((w = head_wqe(qp)) && w->state == IRN_SWQE_DONE)
		retire(qp, w, w->status);
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
	irn_flow_on_ack(&qp->flow, irn_psn_diff(psn, qp->comp.psn) + 1, 0);
	progress(qp, irn_psn_add(psn, 1));
}

/* Retire sends and writes acknowledged up to @psn inclusive. */
static bool ack_until(struct irn_qp *qp, u32 psn)
{
	struct irn_swqe *w;

	while ((w = head_wqe(qp))) {
		if (w->state == IRN_SWQE_DONE) {
			retire(qp, w, w->status);
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
				ktime_get_ns() - w->sent_ns);
		progress(qp, irn_psn_add(w->last_psn, 1));
		retire(qp, w, IB_WC_SUCCESS);
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
 * to the head WQE, found once here and passed on in @wp; head_wqe() read
 * again could miss it while a rewind moves the requester back to it.
 */
static enum comp_state check_op(struct irn_qp *qp, struct sk_buff *skb,
				struct irn_pkt *pkt, struct irn_swqe **wp)
{
	struct irn_swqe *w = head_wqe(qp);

	if ((pkt->flags & IRN_HDR_AETH) &&
	    (aeth_syndrome(skb, pkt) & IRN_AETH_TYPE_MASK) != IRN_AETH_ACK)
		return COMP_NAK;
	/*
	 * IRN places responses by PSN, whichever WQE they belong to; a read
	 * response that answers an atomic write is found so (irn_do_read()).
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
 * IRN bookkeeping.  A PSN is delivered when the responder has it (sends
 * and writes: cumulative or selective acknowledgment) or when its
 * response is placed here (reads and atomics).
 */

/**
 * struct sack_view - a received SACK in host order
 * @base: oldest PSN the responder misses
 * @bits: bit i is PSN @base + 1 + i
 */
struct sack_view {
	u32	base;
	DECLARE_BITMAP(bits, IRN_SACK_BITS);
};

static u32 wqe_psns(const struct irn_swqe *w)
{
	return irn_psn_diff(w->last_psn, w->first_psn) + 1;
}

static bool sacked(const struct sack_view *sv, u32 psn)
{
	u32 i = (psn - sv->base - 1) & IRN_PSN_MASK;

	return i < IRN_SACK_BITS && test_bit(i, sv->bits);
}

/*
 * Mark delivered the PSNs from @psn to @end, a send's or a write's, that
 * @cum passes or @sv names: the first in turn, the others by @sv's set
 * bits, so that an acknowledgment costs what it acknowledges rather than
 * every PSN in flight.
 * Return: an RTT sample from the newest PSN this newly marked, 0 for none.
 */
static u64 mark_range(struct irn_sb *sb, u32 psn, u32 end, u32 cum,
		      const struct sack_view *sv)
{
	u64 rtt = 0;
	u32 i, n;

	for (; !irn_psn_after(psn, end) && !irn_psn_after(psn, cum);
	     psn = irn_psn_add(psn, 1), sb->walked++)
		if (irn_sb_mark(sb, psn))
			rtt = irn_sb_rtt(sb, psn, sb->now_ns) ?: rtt;
	if (!sv || irn_psn_after(psn, end))
		return rtt;
	/* Bit i is @sv->base + 1 + i; @sv->base is @cum + 1, never named. */
	i = irn_psn_after(psn, sv->base) ? irn_psn_diff(psn, sv->base) - 1 : 0;
	n = min_t(u32, irn_psn_diff(end, sv->base), IRN_SACK_BITS);
	for_each_set_bit_from(i, sv->bits, n)
		if (irn_sb_mark(sb, irn_psn_add(sv->base, i + 1)))
			rtt = irn_sb_rtt(sb, irn_psn_add(sv->base, i + 1),
					 sb->now_ns) ?: rtt;
	return rtt;
}

/*
 * Mark the send and write PSNs up to @cum delivered, and those after it
 * that @sv names.  Reads and atomics are left to their responses; a read
 * or atomic request @sv names is only seen (the responder holds it), and
 * one that @cum passes has been executed, its replies sent.
 * Return: an RTT sample from the newest PSN this newly marked, 0 for none.
 */
static u64 mark_acked(struct irn_qp *qp, u32 cum, const struct sack_view *sv)
{
	struct irn_sb *sb = &qp->irn.sb;
	/* Pairs with the requester's store-release of req.next. */
	u32 next = smp_load_acquire(&qp->req.next);
	u32 sent = READ_ONCE(qp->req.psn);
	u64 rtt = 0, now;
	u32 i, end;

	/* irn_sb_mark() compares send times with this time. */
	irn_qp_sb_clock(qp);
	now = sb->now_ns;
	for (i = qp->comp.head; i != next + 1; i++) {
		struct irn_swqe *w = irn_qp_wqe_in_flight(qp, i, next);

		/* A request is seen only if it was sent at all. */
		if (w && has_reply(w) &&
		    sv && irn_psn_before(w->first_psn, sent) &&
		    sacked(sv, w->first_psn))
			irn_sb_seen(sb, w->first_psn,
				    irn_psn_before(w->last_psn, sent) ?
				    wqe_psns(w) : irn_psn_diff(sent, w->first_psn),
				    true);
		if (w && has_reply(w) && !irn_psn_after(w->last_psn, cum))
			irn_sb_executed(sb, w->first_psn, wqe_psns(w), now);
		if (!w || w->rd_credit)
			continue;
		end = irn_psn_before(w->last_psn, sent) ? w->last_psn :
							  irn_psn_add(sent, -1);
		rtt = mark_range(sb, irn_sb_acked_from(sb, w->first_psn), end,
				 cum, sv) ?: rtt;
	}
	irn_sb_acked_to(sb, cum);
	return rtt;
}

static void irn_progress(struct irn_qp *qp, u32 psn)
{
	spin_lock_bh(&qp->irn.sb_lock);
	irn_sb_advance(&qp->irn.sb, psn);
	spin_unlock_bh(&qp->irn.sb_lock);
	progress(qp, psn);
}

/* Retire every WQE whose PSNs, and all before them, are delivered. */
static void irn_advance(struct irn_qp *qp)
{
	struct irn_swqe *w;
	u32 delivered;

	while ((w = head_wqe(qp))) {
		if (w->state == IRN_SWQE_DONE) {
			retire(qp, w, w->status);
			continue;
		}
		spin_lock_bh(&qp->irn.sb_lock);
		delivered = irn_sb_first_missing(&qp->irn.sb);
		spin_unlock_bh(&qp->irn.sb_lock);
		if (w->state == IRN_SWQE_SENT &&
		    irn_psn_after(delivered, w->last_psn)) {
			/*
			 * A WQE retires when the holes before it fill, not
			 * when its own packets arrive: reads sample at their
			 * first response, sends and writes per
			 * acknowledgment (irn_deliver_reply(), mark_acked()).
			 * Atomics and atomic writes have no other sample than
			 * this one.
			 */
			irn_flow_on_ack(&qp->flow,
					irn_psn_diff(w->last_psn,
						     qp->comp.psn) + 1,
					(is_atomic_wqe(w) ||
					 is_atomic_write_wqe(w)) &&
					!w->resent ?
					ktime_get_ns() - w->sent_ns : 0);
			irn_progress(qp, irn_psn_add(w->last_psn, 1));
			retire(qp, w, w->status);
			continue;
		}
		if (irn_psn_after(delivered, qp->comp.psn))
			irn_progress(qp, delivered);
		break;
	}
}

/*
 * The path reorders: loss detection waits a reordering window from now on,
 * on this QP and on the device's QPs created later (irn_dev.reord, a path
 * memory like the window's width): a young QP would otherwise resend
 * spuriously for the round trip its first evidence takes to come back.
 */
static void irn_reordered(struct irn_qp *qp, const char *why, u32 psn)
{
	trace_irn_reordering(irn_qp_num(qp), why, psn, qp->irn.sb.una,
			     qp->irn.sb.high);
	if (!qp->flow.reord)
		irn_dev_count(qp->dev, IRN_CNT_REORDER_SEEN);
	irn_flow_on_reorder(&qp->flow);
	if (!READ_ONCE(qp->dev->reord))
		WRITE_ONCE(qp->dev->reord, true);
}

/* Open a recovery episode if the scoreboard now sees a loss. */
static void irn_check_loss(struct irn_qp *qp, const char *why)
{
	struct irn_sb *sb = &qp->irn.sb;
	bool started;

	spin_lock_bh(&qp->irn.sb_lock);
	if (irn_sb_take_reordered(sb))
		irn_reordered(qp, "overtaken", sb->reordered_psn);
	irn_qp_sb_clock(qp);
	started = irn_sb_start_recovery(sb, READ_ONCE(qp->req.psn));
	if (started)
		trace_irn_recovery(irn_qp_num(qp), why, sb->una, sb->high,
				   sb->recover, qp->flow.srtt_ns, sb->reo_ns);
	spin_unlock_bh(&qp->irn.sb_lock);
	if (started) {
		irn_dev_count(qp->dev, IRN_CNT_RECOVERY);
		irn_flow_on_loss(&qp->flow);
		WRITE_ONCE(qp->dev->reo_q, qp->flow.reo_q);
	}
}

/* Everything before @psn was received: requests are processed in order. */
static void irn_acked_before(struct irn_qp *qp, u32 psn,
			     struct sack_view *sv)
{
	u64 rtt;

	spin_lock_bh(&qp->irn.sb_lock);
	/* Only the news is left to walk. */
	if (sv)
		irn_sb_drop_known(&qp->irn.sb, irn_psn_add(sv->base, 1),
				  sv->bits, IRN_SACK_BITS);
	rtt = mark_acked(qp, irn_psn_add(psn, -1), sv);
	spin_unlock_bh(&qp->irn.sb_lock);
	/* Per acknowledgment, not per WQE: a 1 MiB write is one WQE. */
	irn_flow_on_ack(&qp->flow, 0, rtt);
	irn_advance(qp);
}

/*
 * The peer got a packet twice since the last timeout, and @psn, what this
 * D-SACK acknowledges, is no news: the original's acknowledgment came
 * after the timeout, so the timeout fired early.  (Had the D-SACK been
 * the first word of the PSN, the acknowledgment was lost instead, and
 * the resend was what recovered it.)  Once per timeout: teach the RTT
 * estimate (irn_flow_on_spurious_rto()) and drop the backoff, which only
 * a lost resend would justify.
 */
static void spurious_timeout(struct irn_qp *qp, u32 psn)
{
	if (!qp->comp.rto_spent_ns ||
	    irn_psn_after(irn_psn_add(psn, 1), qp->comp.psn))
		return;
	irn_dev_count(qp->dev, IRN_CNT_SPURIOUS_RTO);
	irn_flow_on_spurious_rto(&qp->flow, qp->comp.rto_spent_ns,
				 ktime_get_ns() - qp->comp.rto_fired_ns);
	qp->comp.rto_spent_ns = 0;
	qp->comp.backoff = 0;
}

/*
 * A timeout and a go-back-N rewind (a sequence or RNR NAK, or a standard
 * responder at the start of an auto connection) resend what they resend
 * whether or not it arrived, all of it before the next new PSN of the
 * time (@end).  The responder acknowledges a duplicate of those with less
 * than @end, and within a window of it: such a D-SACK says nothing about
 * reordering, however late it comes (under TCG a round trip can take 50
 * ms) and whatever episode has begun since.  The window bound keeps an
 * old @end from matching again once the PSNs wrap.
 */
static bool short_of(const struct irn_qp *qp, u32 psn, u32 end)
{
	s32 d = irn_psn_diff(end, psn);

	return d > 0 && d <= qp->irn.sb.size;
}

static bool resent_blindly(const struct irn_qp *qp, u32 psn)
{
	/* Pairs with the requester's WRITE_ONCE() in check_rewind(). */
	return short_of(qp, psn, READ_ONCE(qp->req.rewind_end)) ||
	       short_of(qp, psn, qp->comp.rto_end);
}

static enum comp_state irn_do_ack(struct irn_qp *qp, struct sk_buff *skb,
				  struct irn_pkt *pkt)
{
	struct irn_sackh *sack = (void *)(skb->data + pkt->ext_off);
	struct sack_view sv, *svp = NULL;
	u32 words[IRN_SACK_BITS / 32];
	u32 i, any = 0;

	/*
	 * D-SACK: the responder got a request twice.  Network duplicates
	 * aside, a resend of ours was needless: the path reorders more than
	 * the window allowed.
	 */
	if (pkt->dsack) {
		irn_dev_count(qp->dev, IRN_CNT_SPURIOUS);
		irn_flow_on_spurious(&qp->flow, 1);
		WRITE_ONCE(qp->dev->reo_q, qp->flow.reo_q);
		/*
		 * A timeout's resends are needless on a slow path too, and a
		 * rewind's whether or not the path reorders.
		 */
		if (READ_ONCE(qp->irn.sb.timed_out))
			spurious_timeout(qp, pkt->psn);
		else if (!resent_blindly(qp, pkt->psn))
			irn_reordered(qp, "dsack", pkt->psn);
	}
	/*
	 * The SACK must start right after what the ACK acknowledges.  An
	 * empty one (nothing out of order: every ACK of a lossless run)
	 * says no more than the ACK, and is not walked.
	 */
	if (pkt->ext_off &&
	    be32_to_cpu(sack->base) == irn_psn_add(pkt->psn, 1)) {
		for (i = 0; i < ARRAY_SIZE(words); i++) {
			words[i] = be32_to_cpu(sack->bits[i]);
			any |= words[i];
		}
	}
	if (any) {
		sv.base = be32_to_cpu(sack->base);
		bitmap_from_arr32(sv.bits, words, IRN_SACK_BITS);
		svp = &sv;
		irn_dev_count(qp->dev, IRN_CNT_SACK_RCVD);
	}
	irn_acked_before(qp, irn_psn_add(pkt->psn, 1), svp);
	irn_check_loss(qp, "sack");
	return COMP_DONE;
}

/*
 * Place the reply to @psn (a read response or an atomic's original value)
 * at @offset of its WQE's buffers, once, and count the PSN delivered.  An
 * atomic write's reply has nothing to place: @data is NULL.
 */
static void irn_deliver_reply(struct irn_qp *qp, struct irn_swqe *w,
			      u32 index, u32 psn, struct irn_copy *data,
			      u32 offset, u32 len)
{
	enum ib_wc_status status;
	u64 rtt = 0;
	bool dup;

	spin_lock_bh(&qp->irn.sb_lock);
	dup = irn_sb_test(&qp->irn.sb, psn);
	/*
	 * The first response of a read, not overtaken by a later one (which
	 * would have restamped it), is a round trip from the request.
	 */
	if (!dup && psn == w->first_psn && w->opcode == IB_WR_RDMA_READ &&
	    !irn_psn_after(qp->irn.sb.stamp_from, psn))
		rtt = irn_sb_rtt(&qp->irn.sb, psn, ktime_get_ns());
	spin_unlock_bh(&qp->irn.sb_lock);
	if (dup)
		return;
	irn_flow_on_ack(&qp->flow, 0, rtt);
	if (data) {
		status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd,
					  irn_qp_sq_slot(qp, index)->dma.sge,
					  w->num_sge, offset, data, len, true);
		if (status != IB_WC_SUCCESS)
			w->status = status;
	}
	spin_lock_bh(&qp->irn.sb_lock);
	/* The responder executed everything before the read or atomic. */
	mark_acked(qp, irn_psn_add(w->first_psn, -1), NULL);
	if (has_reply(w))
		irn_sb_seen(&qp->irn.sb, w->first_psn, wqe_psns(w), false);
	if (w->opcode == IB_WR_RDMA_READ)
		irn_sb_overtaken(&qp->irn.sb, w->first_psn, psn,
				 ktime_get_ns());
	irn_sb_mark_reply(&qp->irn.sb, psn, rtt);
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_advance(qp);
	irn_check_loss(qp, "sack");
}

/* Place a read response wherever it falls in its WQE. */
static enum comp_state irn_do_read(struct irn_qp *qp, struct sk_buff *skb,
				   struct irn_pkt *pkt)
{
	struct irn_copy data = { .skb = skb, .skb_off = pkt->hdr_len };
	struct irn_swqe *w;
	u32 index, offset;

	w = irn_qp_wqe_of_psn(qp, pkt->psn, &index);
	if (w && is_atomic_write_wqe(w))
		return COMP_ATOMIC_WRITE;
	if (!w || w->opcode != IB_WR_RDMA_READ)
		return COMP_DONE;
	offset = irn_psn_diff(pkt->psn, w->first_psn) * qp->mtu;
	if (pkt->paylen != min(w->length - offset, qp->mtu))
		return COMP_DONE;
	irn_deliver_reply(qp, w, index, pkt->psn, &data, offset, pkt->paylen);
	return COMP_DONE;
}

static enum comp_state irn_do_atomic(struct irn_qp *qp, struct sk_buff *skb,
				     struct irn_pkt *pkt)
{
	struct irn_atmack *ack = (void *)(skb->data +
				 irn_pkt_hdr_offset(pkt, IRN_HDR_ATMACK));
	u64 orig = get_unaligned_be64(&ack->orig);
	struct irn_copy data = { .buf = &orig };
	struct irn_swqe *w;
	u32 index;

	w = irn_qp_wqe_of_psn(qp, pkt->psn, &index);
	if (!w || !is_atomic_wqe(w))
		return COMP_DONE;
	irn_deliver_reply(qp, w, index, pkt->psn, &data, 0, sizeof(orig));
	return COMP_DONE;
}

/*
 * An atomic write's reply, an empty RDMA READ Response Only at its PSN:
 * the write is done, the WQE retires once the holes before it fill.
 */
static enum comp_state irn_do_atomic_write(struct irn_qp *qp,
					   struct irn_pkt *pkt)
{
	struct irn_swqe *w;
	u32 index;

	w = irn_qp_wqe_of_psn(qp, pkt->psn, &index);
	if (!w || !is_atomic_write_wqe(w) || !aw_reply_ok(w, pkt))
		return COMP_DONE;
	irn_deliver_reply(qp, w, index, pkt->psn, NULL, 0, 0);
	return COMP_DONE;
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
		retire(qp, w, IB_WC_SUCCESS);
		return COMP_DONE;
	}
	if (pkt->psn != expect) {
		rewind(qp);
		return COMP_DONE;
	}
	if (qp->comp.read_offset + pkt->paylen > w->length) {
		retire(qp, w, IB_WC_LOC_LEN_ERR);
		return COMP_DONE;
	}
	status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd,
				  irn_qp_sq_slot(qp, index)->dma.sge,
				  w->num_sge, qp->comp.read_offset, &data,
				  pkt->paylen, true);
	if (status != IB_WC_SUCCESS) {
		retire(qp, w, status);
		return COMP_DONE;
	}
	qp->comp.read_offset += pkt->paylen;
	progress(qp, irn_psn_add(pkt->psn, 1));
	/* Large reads go out as several requests: done when all is here. */
	if (qp->comp.read_offset == w->length)
		retire(qp, w, IB_WC_SUCCESS);
	else if ((pkt->flags & IRN_OP_LAST) &&
		 qp->comp.read_offset % qp->mtu)
		retire(qp, w, IB_WC_LOC_LEN_ERR);
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
	progress(qp, irn_psn_add(pkt->psn, 1));
	retire(qp, w, status);
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
	progress(qp, irn_psn_add(pkt->psn, 1));
	retire(qp, w, IB_WC_SUCCESS);
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
		irn_acked_before(qp, pkt->psn, NULL);
	} else if (!ack_until(qp, irn_psn_add(pkt->psn, -1))) {
		rewind(qp);
		return COMP_DONE;
	}
	w = head_wqe(qp);
	if (!w)
		return COMP_DONE;
	switch (syndrome & IRN_AETH_TYPE_MASK) {
	case IRN_AETH_RNR_NAK:
		irn_dev_count(qp->dev, IRN_CNT_RNR_NAK_RCVD);
		if (qp->rnr_retry != 7 && !qp->comp.rnr_left--) {
			retire(qp, w, IB_WC_RNR_RETRY_EXC_ERR);
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
			retire(qp, w, nak_status(syndrome & 0x1f));
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
			state = irn_qp_irn_on(qp) ? irn_do_read(qp, skb, pkt) :
						    do_read(qp, w, skb, pkt);
			break;
		case COMP_ATOMIC:
			state = irn_qp_irn_on(qp) ?
				irn_do_atomic(qp, skb, pkt) :
				do_atomic(qp, w, skb, pkt);
			break;
		case COMP_ATOMIC_WRITE:
			state = irn_qp_irn_on(qp) ?
				irn_do_atomic_write(qp, pkt) :
				do_atomic_write(qp, w, pkt);
			break;
		case COMP_ACK:
			state = irn_qp_irn_on(qp) ? irn_do_ack(qp, skb, pkt) :
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
 * The timer expired.  An acknowledgment that was late, not lost, may
 * have been processed since (the completer takes queued packets before
 * the timeout): if it moved the cumulative point after the expiry,
 * progress() restarted the timer for what is left, and this timeout is
 * stale.
 */
static void handle_timeout(struct irn_qp *qp)
{
	struct irn_swqe *w = head_wqe(qp);
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
			retire(qp, w, IB_WC_RETRY_EXC_ERR);
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
	qp->comp.rto_spent_ns = rto_ns(qp);
	qp->comp.rto_fired_ns = ktime_get_ns();
	qp->comp.rto_end = READ_ONCE(qp->req.psn);
	if (qp->comp.backoff < 8)
		qp->comp.backoff++;
	spin_lock_bh(&qp->irn.sb_lock);
	irn_sb_timeout(&qp->irn.sb, qp->comp.rto_end,
		       irn_flow_narrowed(&qp->flow));
	trace_irn_recovery(irn_qp_num(qp), short_rto ? "rto_short" :
			   "rto_long", qp->irn.sb.una, qp->irn.sb.high,
			   qp->irn.sb.recover, qp->flow.srtt_ns,
			   qp->irn.sb.reo_ns);
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_dev_count(qp->dev, IRN_CNT_RECOVERY);
	irn_flow_on_loss(&qp->flow);
	/* Restart the timer: the requester sends from its own context. */
	hrtimer_start(&qp->comp.rto, ns_to_ktime(rto_ns(qp)),
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
	if (!retire(qp, w, READ_ONCE(w->status) ?: IB_WC_WR_FLUSH_ERR))
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
	/* The new req.psn before the timer's state: see progress(). */
	smp_mb();
	if (hrtimer_is_queued(&qp->comp.rto))
		return;
	hrtimer_start(&qp->comp.rto, ns_to_ktime(rto_ns(qp)),
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
		hrtimer_start(&qp->comp.rto, ns_to_ktime(rto_ns(qp)),
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

