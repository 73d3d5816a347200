// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completer, what go-back-N and IRN share: the oldest WQE not completed,
 * retiring it with its completion, moving the cumulative point, and the
 * retransmission timeout that point restarts.  The engine (irn_comp.c)
 * and its IRN path (irn_comp_sack.c) both stand on it.
 */

#include <linux/hrtimer.h>
#include <linux/ktime.h>

#include "irn_comp_retire.h"
#include "irn_cq.h"
#include "irn_psn.h"
#include "irn_qp.h"

/**
 * irn_comp_rto_ns() - the retransmission timeout to arm now
 * @qp: RC QP
 *
 * Go-back-N: from the RTT within [T, 4T]; IRN: short or long timeout from
 * the RTT, see irn_flow_irn_rto_ns().  Either doubles per timeout without
 * progress (RFC 6298 5.5), up to 4T.
 *
 * Context: any.
 * Return: the timeout in nanoseconds.
 */
u64 irn_comp_rto_ns(const struct irn_qp *qp)
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

/**
 * irn_comp_head_wqe() - the oldest WQE not completed
 * @qp: QP
 *
 * The oldest WQE not completed: one the requester has finished with, or the
 * one it is still sending (whose early packets can already be answered:
 * mid-message ACKs, responses to the first requests of a large read).
 *
 * Context: the QP's completer.
 * Return: the WQE, NULL if there is none.
 */
struct irn_swqe *irn_comp_head_wqe(struct irn_qp *qp)
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

/**
 * irn_comp_retire() - complete the head WQE
 * @qp: QP
 * @w: its head WQE, from irn_comp_head_wqe()
 * @status: the completion's status
 *
 * Report the head WQE and free its slot.  Not if the requester has gone
 * back to it (a rewind) or is still sending it: then a failure is left in
 * the WQE, for the requester to hand over once the QP is in the error
 * state, and a success waits for the acknowledgment of the resent packets.
 *
 * Context: the QP's completer; takes sq_pos_lock.
 * Return: true if the WQE was retired.
 */
bool irn_comp_retire(struct irn_qp *qp, struct irn_swqe *w,
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

/**
 * irn_comp_progress() - move the cumulative point
 * @qp: RC QP
 * @psn: the oldest PSN not acknowledged now
 *
 * The peer acknowledged up to @psn: reset the retry budget and the RTO.
 *
 * Context: the QP's completer.
 */
void irn_comp_progress(struct irn_qp *qp, u32 psn)
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
	hrtimer_start(&qp->comp.rto, ns_to_ktime(irn_comp_rto_ns(qp)),
		      HRTIMER_MODE_REL_SOFT);
}
