// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: lookup from the datapath and the error transition the
 * engines share.  Creation and attribute changes are in irn_qp_verbs.c.
 */

#include <linux/rcupdate.h>

#include "irn_dev.h"
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
 * irn_qp_error() - move a QP to the error state
 * @qp: QP
 *
 * The completer then flushes the send queue and the responder the receive
 * queue, each completion with IB_WC_WR_FLUSH_ERR.
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
	irn_task_sched(&qp->comp_task);
	irn_task_sched(&qp->resp_task);
}
