// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues.
 *
 * A user CQ is a ring of struct ib_uverbs_wc shared with the rxe provider,
 * which polls it without entering the kernel; a kernel CQ is a private ring
 * of struct ib_wc polled through irn_cq_poll().
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "irn_cq.h"
#include "irn_dev.h"

static size_t cqe_size(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static int check_cqe(struct irn_dev *dev, int cqe)
{
	if (cqe < 1 || cqe > dev->attr.max_cqe) {
		ibdev_dbg(&dev->ib_dev, "CQ size %d not in [1, %d]\n", cqe,
			  dev->attr.max_cqe);
		return -EINVAL;
	}
	return 0;
}

static enum irn_task_ret notify_task(struct irn_task *task)
{
	struct irn_cq *cq = container_of(task, struct irn_cq, notify_task);

	if (cq->ib_cq.comp_handler)
		cq->ib_cq.comp_handler(&cq->ib_cq, cq->ib_cq.cq_context);
	return IRN_TASK_IDLE;
}

/**
 * irn_cq_create() - ib_device_ops.create_cq
 * @ibcq: CQ allocated by the RDMA core
 * @attr: requested size and completion vector
 * @arg: the udata holding the rxe provider's response buffer (struct
 *	 rxe_create_cq_resp) or, from 6.11, the uverbs attribute bundle that
 *	 carries it (irn_create_cq_udata()); NULL for a kernel consumer
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct irn_create_cq_arg *arg)
{
	struct irn_dev *dev = to_irn_dev(ibcq->device);
	struct irn_cq *cq = to_irn_cq(ibcq);
	struct ib_udata *udata = irn_create_cq_udata(arg);
	struct rxe_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = check_cqe(dev, attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	spin_lock_init(&cq->lock);
	irn_task_init(&cq->notify_task, notify_task);
	cq->user = udata;
	err = irn_queue_init(&cq->queue, attr->cqe, cqe_size(cq->user),
			     cq->user);
	if (err)
		return err;

	if (cq->user) {
		err = irn_queue_map(&cq->queue, udata, &resp.mi);
		if (err)
			goto err_cleanup_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_cleanup_queue;
	}
	ibcq->cqe = irn_queue_capacity(&cq->queue);
	return 0;

err_cleanup_queue:
	irn_queue_cleanup(&cq->queue);
	return err;
}

/**
 * irn_cq_destroy() - ib_device_ops.destroy_cq
 * @ibcq: CQ; the RDMA core guarantees no QP uses it any more
 * @udata: unused
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int irn_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct irn_cq *cq = to_irn_cq(ibcq);

	irn_task_disable(&cq->notify_task);
	irn_queue_cleanup(&cq->queue);
	return 0;
}

/* Move the unconsumed entries of @cq into @nq, oldest first. */
static void cq_move_entries(struct irn_cq *cq, struct irn_queue *nq)
{
	struct irn_queue *oq = &cq->queue;
	u32 n = irn_queue_produced_count(oq);
	u32 cons = irn_queue_peer_consumer(oq);
	size_t size = cqe_size(cq->user);
	u32 i;

	for (i = 0; i < n; i++) {
		memcpy(irn_queue_slot(nq, i), irn_queue_slot(oq, cons + i),
		       size);
		irn_queue_produce_commit(nq);
	}
}

/**
 * irn_cq_resize() - ib_device_ops.resize_cq
 * @ibcq: CQ
 * @cqe: new minimum capacity; not below the completions it holds now
 * @udata: rxe provider response buffer (struct rxe_resize_cq_resp), or NULL
 *
 * A new ring replaces the old one.  The provider holds its CQ lock across
 * the call, so it neither polls the old ring nor maps the new one meanwhile.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct irn_dev *dev = to_irn_dev(ibcq->device);
	struct irn_cq *cq = to_irn_cq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct irn_queue nq, oq;
	int err;

	err = check_cqe(dev, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = irn_queue_init(&nq, cqe, cqe_size(cq->user), cq->user);
	if (err)
		return err;
	if (cq->user) {
		err = irn_queue_map(&nq, udata, &resp.mi);
		if (err)
			goto err_cleanup_new;
	}

	spin_lock_irq(&cq->lock);
	if (irn_queue_produced_count(&cq->queue) > irn_queue_capacity(&nq)) {
		spin_unlock_irq(&cq->lock);
		err = -EINVAL;
		goto err_cleanup_new;
	}
	cq_move_entries(cq, &nq);
	oq = cq->queue;
	cq->queue = nq;
	ibcq->cqe = irn_queue_capacity(&nq);
	spin_unlock_irq(&cq->lock);

	if (cq->user) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			ibdev_warn(&dev->ib_dev,
				   "CQ resized but the reply was lost\n");
	}
	irn_queue_cleanup(&oq);
	return err;

err_cleanup_new:
	irn_queue_cleanup(&nq);
	return err;
}

/**
 * irn_cq_poll() - ib_device_ops.poll_cq, for kernel CQs
 * @ibcq: CQ
 * @num_entries: room in @wc
 * @wc: filled with up to @num_entries completions, oldest first
 *
 * Context: any, does not sleep.
 * Return: the number of completions taken.
 */
int irn_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct irn_cq *cq = to_irn_cq(ibcq);
	struct irn_queue *q = &cq->queue;
	unsigned long flags;
	u32 cons;
	int n = 0;

	if (WARN_ON_ONCE(cq->user))
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	cons = q->buf->consumer_index;
	while (n < num_entries && cons != q->index) {
		memcpy(&wc[n++], irn_queue_slot(q, cons), sizeof(*wc));
		cons = (cons + 1) & q->mask;
	}
	q->buf->consumer_index = cons;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * irn_cq_req_notify() - ib_device_ops.req_notify_cq
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * Arms the CQ: the next completion of the requested kind calls the
 * consumer's completion handler once.
 *
 * Context: any, does not sleep.
 * Return: 1 if missed events were asked about and completions are already
 * waiting, else 0.
 */
int irn_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct irn_cq *cq = to_irn_cq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* Once armed for any completion, a solicited-only request is moot. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    irn_queue_produced_count(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static void to_uverbs_wc(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->port_num = wc->port_num;
}

/**
 * irn_cq_post() - add a completion
 * @cq: CQ
 * @wc: the completion; @wc->qp names the QP
 * @solicited: the message asked for a solicited event
 *
 * Wakes the consumer if the CQ is armed for this kind of completion.
 *
 * Context: any, does not sleep.
 * Return: 0, or -EBUSY if the CQ is full: the completion is lost, a CQ
 * error event is raised and the caller must move the QP to the error state.
 */
int irn_cq_post(struct irn_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_event ev = {
		.device		= cq->ib_cq.device,
		.element.cq	= &cq->ib_cq,
		.event		= IB_EVENT_CQ_ERR,
	};
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&cq->lock, flags);
	if (irn_queue_produce_full(&cq->queue)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->ib_cq.event_handler)
			cq->ib_cq.event_handler(&ev, cq->ib_cq.cq_context);
		return -EBUSY;
	}
	if (cq->user)
		to_uverbs_wc(irn_queue_slot(&cq->queue, cq->queue.index), wc);
	else
		memcpy(irn_queue_slot(&cq->queue, cq->queue.index), wc,
		       sizeof(*wc));
	irn_queue_produce_commit(&cq->queue);

	wake = cq->notify == IB_CQ_NEXT_COMP ||
	       (cq->notify == IB_CQ_SOLICITED &&
		(solicited || wc->status != IB_WC_SUCCESS));
	if (wake)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (wake)
		irn_task_sched(&cq->notify_task);
	return 0;
}
