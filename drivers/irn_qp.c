// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: lookup from the datapath and the error transition the
 * engines share.  Creation and attribute changes are in irn_qp_verbs.c.
 */

#include <linux/rcupdate.h>

#include "irn_dev.h"
#include "irn_psn.h"
#include "irn_qp.h"

/**
 * irn_qp_lookup() - find a QP by number, for the datapath
 * @dev: device
 * @qpn: QP number from the wire; 1 is the GSI QP
 *
 * Context: any, does not sleep.
 * Return: the QP with a reference held (irn_qp_put()), or NULL.
 */
struct irn_qp *irn_qp_lookup(struct irn_dev *dev, u32 qpn)
{
	struct irn_qp *qp;

	rcu_read_lock();
	if (qpn == IB_QPT_GSI)
		qp = rcu_dereference(dev->gsi);
	else
		qp = xa_load(&dev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/**
 * irn_qp_put() - drop a reference from irn_qp_lookup()
 * @qp: QP
 *
 * Context: any.
 */
void irn_qp_put(struct irn_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->done);
}

/**
 * irn_qp_wqe_in_flight() - a send WQE whose packets may be answered
 * @qp: QP
 * @i: WQE index, from comp.head up to and including @next
 * @next: the requester's req.next
 *
 * The WQE the requester is still sending (at @next) counts once it has
 * started; retired, failed and local WQEs never do.
 *
 * Context: the requester or the completer.
 * Return: the WQE, or NULL.
 */
struct irn_swqe *irn_qp_wqe_in_flight(struct irn_qp *qp, u32 i, u32 next)
{
	struct irn_swqe *w = &qp->swqe[i & qp->sq.queue.mask];
	u8 state = READ_ONCE(w->state);

	if (i == next && state != IRN_SWQE_SENDING)
		return NULL;
	if (state == IRN_SWQE_NEW || state == IRN_SWQE_DONE ||
	    irn_swqe_is_local(w))
		return NULL;
	return w;
}

/**
 * irn_qp_wqe_of_psn() - the send WQE in flight whose PSNs include @psn
 * @qp: QP
 * @psn: the PSN
 * @index: set to the WQE's index (not masked)
 *
 * Context: the requester or the completer.
 * Return: the WQE, or NULL if no WQE in flight has @psn.
 */
struct irn_swqe *irn_qp_wqe_of_psn(struct irn_qp *qp, u32 psn, u32 *index)
{
	u32 head, next, i;

	/* Pairs with the completer's store-release of comp.head. */
	head = smp_load_acquire(&qp->comp.head);
	/* Pairs with the requester's store-release of req.next. */
	next = smp_load_acquire(&qp->req.next);

	for (i = head; i != next + 1 && i - head <= qp->sq.queue.mask; i++) {
		struct irn_swqe *w = irn_qp_wqe_in_flight(qp, i, next);

		if (!w || irn_psn_before(psn, w->first_psn) ||
		    irn_psn_after(psn, w->last_psn))
			continue;
		*index = i;
		return w;
	}
	return NULL;
}

/**
 * irn_qp_error() - move a QP to the error state
 * @qp: QP
 *
 * The requester then hands its unfinished WQEs to the completer, which
 * flushes the send queue, and the responder flushes the receive queue,
 * each completion with IB_WC_WR_FLUSH_ERR.
 *
 * Context: any, does not sleep.
 */
void irn_qp_error(struct irn_qp *qp)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&qp->state_lock, flags);
	changed = qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET;
	if (changed)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!changed)
		return;
	irn_task_sched(&qp->req_task);
	irn_task_sched(&qp->comp_task);
	irn_task_sched(&qp->resp_task);
}

/**
 * irn_qp_sq_error() - a send WQE completed in error
 * @qp: QP
 *
 * An RC QP goes to the error state.  A UC or UD QP goes to the send queue
 * error state (IBTA 10.3.1): its later send WQEs are flushed while its
 * receive queue goes on working, until modify_qp takes it back to RTS (the
 * MAD layer does so for QP1).
 *
 * Context: any, does not sleep.
 */
void irn_qp_sq_error(struct irn_qp *qp)
{
	unsigned long flags;
	bool changed;

	if (irn_qp_is_rc(qp)) {
		irn_qp_error(qp);
		return;
	}
	spin_lock_irqsave(&qp->state_lock, flags);
	changed = qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD;
	if (changed)
		WRITE_ONCE(qp->state, IB_QPS_SQE);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!changed)
		return;
	irn_task_sched(&qp->req_task);
	irn_task_sched(&qp->comp_task);
}
