// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completer, IRN path: selective acknowledgment and retransmission.
 *
 * Go-back-N (irn_comp.c) keeps one number, the oldest unacknowledged PSN,
 * and resends everything from it on any loss; a lost packet costs a
 * window.  IRN resends only what was lost, so the completer must know
 * which PSNs arrived: acknowledgments, selective acknowledgments and read
 * or atomic responses mark PSNs delivered in the QP's scoreboard
 * (irn_sb.c); WQEs retire when all their PSNs and all before them are
 * delivered; PSNs the scoreboard finds lost are resent by the requester
 * one by one.  Read and atomic responses are placed by PSN, whichever WQE
 * they belong to, not only at the head.
 *
 * Standard peers speak only go-back-N, so both paths stay: the completer's
 * state machine calls this one for a QP with IRN on.
 */

#include <linux/bitmap.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <rdma/ib_pack.h>

#include "irn_comp_retire.h"
#include "irn_comp_sack.h"
#include "irn_compat.h"
#include "irn_dev.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_sb.h"
#include "irn_trace.h"

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

static u32 wqe_psns(const struct irn_swqe *w)
{
	return irn_psn_diff(w->last_psn, w->first_psn) + 1;
}

static bool sacked(const struct sack_view *sv, u32 psn)
{
	u32 i = (psn - sv->base - 1) & IRN_PSN_MASK;

	return i < IRN_SACK_BITS && test_bit(i, sv->bits);
}

/**
 * struct rtt_smp - an RTT sample and the path of its packet
 * @ns: the round trip, 0 for none
 * @path: the path, IRN_PATH_NONE if the packet was not sprayed
 */
struct rtt_smp {
	u64	ns;
	u32	path;
};

/*
 * Mark @psn delivered.  If that is news, *@smp becomes the sample it
 * gives, if any (irn_sb_sample(): none if it was ever resent, Karn's
 * rule, or if the acknowledgment came back on another path).
 * Return: 1 if it is news, else 0: what it adds to the packets acked.
 */
static u32 mark_one(struct irn_sb *sb, u32 psn, struct rtt_smp *smp)
{
	u32 path;
	u64 rtt;

	if (!irn_sb_mark(sb, psn))
		return 0;
	rtt = irn_sb_sample(sb, psn, &path);
	if (rtt) {
		smp->ns = rtt;
		smp->path = path;
	}
	return 1;
}

/*
 * Mark delivered the PSNs from @psn to @end, a send's or a write's, that
 * @cum passes or @sv names: the first in turn, the others by @sv's set
 * bits, so that an acknowledgment costs what it acknowledges rather than
 * every PSN in flight.
 * Return: how many PSNs this newly marked; *@smp becomes an RTT sample
 * from the newest of them that gives one, and stays if none does.
 */
static u32 mark_range(struct irn_sb *sb, u32 psn, u32 end, u32 cum,
		      const struct sack_view *sv, struct rtt_smp *smp)
{
	u32 i, n, marked = 0;

	for (; !irn_psn_after(psn, end) && !irn_psn_after(psn, cum);
	     psn = irn_psn_add(psn, 1), sb->walked++)
		marked += mark_one(sb, psn, smp);
	if (!sv || irn_psn_after(psn, end))
		return marked;
	/* Bit i is @sv->base + 1 + i; @sv->base is @cum + 1, never named. */
	i = irn_psn_after(psn, sv->base) ? irn_psn_diff(psn, sv->base) - 1 : 0;
	n = min_t(u32, irn_psn_diff(end, sv->base), IRN_SACK_BITS);
	for_each_set_bit_from(i, sv->bits, n)
		marked += mark_one(sb, irn_psn_add(sv->base, i + 1), smp);
	return marked;
}

/*
 * Mark the send and write PSNs up to @cum delivered, and those after it
 * that @sv names, by an acknowledgment that came back on @ack_path
 * (irn_sb_ack_path()).  Reads and atomics are left to their responses;
 * a read or atomic request @sv names is only seen (the responder holds
 * it), and one that @cum passes has been executed, its replies sent.
 * Return: how many PSNs this newly marked delivered, each counted here
 * once; *@smp becomes an RTT sample from the newest of them that gives
 * one, and stays if none does.
 */
static u32 mark_acked(struct irn_qp *qp, u32 cum, const struct sack_view *sv,
		      u32 ack_path, struct rtt_smp *smp)
{
	struct irn_sb *sb = &qp->irn.sb;
	/* Pairs with the requester's store-release of req.next. */
	u32 next = smp_load_acquire(&qp->req.next);
	u32 sent = READ_ONCE(qp->req.psn);
	u32 i, end, marked = 0;
	u64 now;

	/* irn_sb_mark() compares send times with this time. */
	irn_qp_sb_clock(qp);
	irn_sb_ack_path(sb, ack_path);
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
		marked += mark_range(sb, irn_sb_acked_from(sb, w->first_psn),
				     end, cum, sv, smp);
	}
	irn_sb_acked_to(sb, cum);
	return marked;
}

static void sack_progress(struct irn_qp *qp, u32 psn)
{
	spin_lock_bh(&qp->irn.sb_lock);
	irn_sb_advance(&qp->irn.sb, psn);
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_comp_progress(qp, psn);
}

/* Retire every WQE whose PSNs, and all before them, are delivered. */
static void advance(struct irn_qp *qp)
{
	struct irn_swqe *w;
	u32 delivered;

	while ((w = irn_comp_head_wqe(qp))) {
		if (w->state == IRN_SWQE_DONE) {
			irn_comp_retire(qp, w, w->status);
			continue;
		}
		spin_lock_bh(&qp->irn.sb_lock);
		delivered = irn_sb_first_missing(&qp->irn.sb);
		spin_unlock_bh(&qp->irn.sb_lock);
		if (w->state == IRN_SWQE_SENT &&
		    irn_psn_after(delivered, w->last_psn)) {
			/*
			 * A WQE retires when the holes before it fill, not
			 * when its own packets arrive: sends and writes are
			 * counted and sampled per acknowledgment
			 * (mark_acked()), reads per response (their first
			 * one samples: deliver_reply()).  Atomics and atomic
			 * writes are counted here, with the only sample they
			 * have.
			 */
			if (is_atomic_wqe(w) || is_atomic_write_wqe(w))
				irn_flow_on_ack(&qp->flow, wqe_psns(w),
						w->resent ? 0 :
						ktime_get_ns() - w->sent_ns,
						IRN_PATH_NONE);
			sack_progress(qp, irn_psn_add(w->last_psn, 1));
			irn_comp_retire(qp, w, w->status);
			continue;
		}
		if (irn_psn_after(delivered, qp->comp.psn))
			sack_progress(qp, delivered);
		break;
	}
}

/*
 * The path reorders: loss detection waits a reordering window from now on,
 * on this QP and on the device's QPs created later (irn_dev.reord, a path
 * memory like the window's width): a young QP would otherwise resend
 * spuriously for the round trip its first evidence takes to come back.
 */
static void reordered(struct irn_qp *qp, const char *why, u32 psn)
{
	trace_irn_reordering(irn_qp_num(qp), why, psn, qp->irn.sb.una,
			     qp->irn.sb.high);
	if (!qp->flow.reord)
		irn_dev_count(qp->dev, IRN_CNT_REORDER_SEEN);
	irn_flow_on_reorder(&qp->flow);
	if (!READ_ONCE(qp->dev->reord))
		WRITE_ONCE(qp->dev->reord, true);
}

/*
 * Open a recovery episode if the scoreboard now sees a loss.  A QP that
 * sprays first tells its paths what the acknowledgments said of each:
 * the RTT samples they carry set the cross-path window of the decision.
 */
static void check_loss(struct irn_qp *qp, const char *why)
{
	struct irn_sb *sb = &qp->irn.sb;
	struct irn_path_news news;
	bool started;

	spin_lock_bh(&qp->irn.sb_lock);
	if (irn_sb_take_reordered(sb))
		reordered(qp, "overtaken", sb->reordered_psn);
	irn_sb_take_path_news(sb, &news);
	irn_flow_on_path_news(&qp->flow, &news);
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

/* The path an ACK came back on: irn_flow_ack_path() of its source port. */
static u32 ack_path(struct irn_qp *qp, struct sk_buff *skb)
{
	u32 path = IRN_PATH_UNKNOWN;
	struct irn_av *av;

	rcu_read_lock();
	av = rcu_dereference(qp->av);
	if (av)
		path = irn_flow_ack_path(&qp->flow, ntohs(av->sport),
					 ntohs(udp_hdr(skb)->source));
	rcu_read_unlock();
	return path;
}

/**
 * irn_comp_sack_acked_before() - mark delivered what a response acknowledges
 * @qp: RC QP with IRN on
 * @psn: the responder received every PSN before this one
 * @sv: the PSNs it received after, NULL for none
 * @ack_path: the path the response came back on (irn_flow_ack_path());
 *	      IRN_PATH_NONE for a NAK, which leaves from the base port
 *	      whatever asked for it
 *
 * Everything before @psn was received: requests are processed in order.
 *
 * Context: the QP's completer, IRN on; takes the QP's sb_lock.
 */
void irn_comp_sack_acked_before(struct irn_qp *qp, u32 psn,
				struct sack_view *sv, u32 ack_path)
{
	struct rtt_smp smp = { .path = IRN_PATH_NONE };
	struct irn_sb *sb = &qp->irn.sb;
	u32 acked;
	u64 timed;

	spin_lock_bh(&qp->irn.sb_lock);
	irn_qp_sb_clock(qp);
	irn_sb_ack_path(sb, ack_path);
	timed = irn_sb_take_timed(sb, irn_psn_add(psn, -1),
				  sv ? irn_psn_add(sv->base, 1) : 0,
				  sv ? sv->bits : NULL, IRN_SACK_BITS,
				  4 * ib_timeout_ns(qp));
	/* Only the news is left to walk. */
	if (sv)
		irn_sb_drop_known(sb, irn_psn_add(sv->base, 1), sv->bits,
				  IRN_SACK_BITS);
	acked = mark_acked(qp, irn_psn_add(psn, -1), sv, ack_path, &smp);
	spin_unlock_bh(&qp->irn.sb_lock);
	/* A packet it delivered measured it; else its path's timed one. */
	if (!smp.ns && timed) {
		smp.ns = timed;
		smp.path = ack_path;
	}
	/*
	 * Per acknowledgment, not per WQE (a 1 MiB write is one WQE): the
	 * PSNs it newly delivered, with its sample.
	 */
	irn_flow_on_ack(&qp->flow, acked, smp.ns, smp.path);
	advance(qp);
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

/**
 * irn_comp_sack_ack() - take an ACK, with its SACK or D-SACK if any
 * @qp: RC QP with IRN on
 * @skb: the response
 * @pkt: its parsed headers
 *
 * Context: the QP's completer, IRN on; takes the QP's sb_lock.
 * Return: the completer's next state.
 */
enum comp_state irn_comp_sack_ack(struct irn_qp *qp, struct sk_buff *skb,
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
			reordered(qp, "dsack", pkt->psn);
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
	irn_comp_sack_acked_before(qp, irn_psn_add(pkt->psn, 1), svp,
				   ack_path(qp, skb));
	check_loss(qp, "sack");
	return COMP_DONE;
}

/*
 * Place the reply to @psn (a read response or an atomic's original value)
 * at @offset of its WQE's buffers, once, and count the PSN delivered.  An
 * atomic write's reply has nothing to place: @data is NULL.
 */
static void deliver_reply(struct irn_qp *qp, struct irn_swqe *w,
			  u32 index, u32 psn, struct irn_copy *data,
			  u32 offset, u32 len)
{
	enum ib_wc_status status;
	struct rtt_smp passed = { .path = IRN_PATH_NONE };
	u64 rtt = 0;
	bool dup;
	u32 acked;

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
	if (data) {
		status = irn_mr_copy_sges(qp->dev, qp->ib_qp.pd,
					  irn_qp_sq_slot(qp, index)->dma.sge,
					  w->num_sge, offset, data, len, true);
		if (status != IB_WC_SUCCESS)
			w->status = status;
	}
	spin_lock_bh(&qp->irn.sb_lock);
	/*
	 * The responder executed everything before the read or atomic.  The
	 * sends and writes this passes waited for the reply too: no sample.
	 */
	acked = mark_acked(qp, irn_psn_add(w->first_psn, -1), NULL,
			   IRN_PATH_NONE, &passed);
	if (has_reply(w))
		irn_sb_seen(&qp->irn.sb, w->first_psn, wqe_psns(w), false);
	if (w->opcode == IB_WR_RDMA_READ)
		irn_sb_overtaken(&qp->irn.sb, w->first_psn, psn,
				 ktime_get_ns());
	/* A read response is a packet; an atomic's counts in advance(). */
	if (irn_sb_mark_reply(&qp->irn.sb, psn, rtt) &&
	    w->opcode == IB_WR_RDMA_READ)
		acked++;
	spin_unlock_bh(&qp->irn.sb_lock);
	irn_flow_on_ack(&qp->flow, acked, rtt, IRN_PATH_NONE);
	advance(qp);
	check_loss(qp, "sack");
}

/**
 * irn_comp_sack_read() - take a read response
 * @qp: RC QP with IRN on
 * @skb: the response
 * @pkt: its parsed headers
 *
 * Place a read response wherever it falls in its WQE.
 *
 * Context: the QP's completer, IRN on; takes the QP's sb_lock.
 * Return: the completer's next state: COMP_ATOMIC_WRITE if @pkt answers an
 * atomic write.
 */
enum comp_state irn_comp_sack_read(struct irn_qp *qp, struct sk_buff *skb,
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
	deliver_reply(qp, w, index, pkt->psn, &data, offset, pkt->paylen);
	return COMP_DONE;
}

/**
 * irn_comp_sack_atomic() - take an atomic response
 * @qp: RC QP with IRN on
 * @skb: the response
 * @pkt: its parsed headers
 *
 * Context: the QP's completer, IRN on; takes the QP's sb_lock.
 * Return: the completer's next state.
 */
enum comp_state irn_comp_sack_atomic(struct irn_qp *qp, struct sk_buff *skb,
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
	deliver_reply(qp, w, index, pkt->psn, &data, 0, sizeof(orig));
	return COMP_DONE;
}

/**
 * irn_comp_sack_atomic_write() - take an atomic write's reply
 * @qp: RC QP with IRN on
 * @pkt: the reply's parsed headers
 *
 * An atomic write's reply, an empty RDMA READ Response Only at its PSN:
 * the write is done, the WQE retires once the holes before it fill.
 *
 * Context: the QP's completer, IRN on; takes the QP's sb_lock.
 * Return: the completer's next state.
 */
enum comp_state irn_comp_sack_atomic_write(struct irn_qp *qp,
					   struct irn_pkt *pkt)
{
	struct irn_swqe *w;
	u32 index;

	w = irn_qp_wqe_of_psn(qp, pkt->psn, &index);
	if (!w || !is_atomic_write_wqe(w) || !aw_reply_ok(w, pkt))
		return COMP_DONE;
	deliver_reply(qp, w, index, pkt->psn, NULL, 0, 0);
	return COMP_DONE;
}
