// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues.
 *
 * Several QPs take receive WQEs from one SRQ.  A responder copies the WQE
 * it takes into its QP and advances the consumer index at once, under the
 * SRQ lock, so that the slot can be reused and no other QP takes it too.
 *
 * The rxe provider resizes an SRQ with a modify_srq whose request carries
 * a user address where the kernel writes the new ring's mmap offset and
 * size (struct mminfo); irn keeps that contract.
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "irn_dev.h"
#include "irn_srq.h"

static int check_attr(const struct ib_srq_attr *attr)
{
	if (!attr->max_wr || attr->max_wr > IRN_MAX_SRQ_WR ||
	    attr->max_sge > IRN_MAX_SRQ_SGE)
		return -EINVAL;
	if (attr->srq_limit > attr->max_wr)
		return -EINVAL;
	return 0;
}

/**
 * irn_srq_create() - ib_device_ops.create_srq
 * @ibsrq: SRQ allocated by the RDMA core
 * @init: type and size; the real size is written back
 * @udata: rxe provider response (struct rxe_create_srq_resp), or NULL
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct irn_srq *srq = to_irn_srq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	err = check_attr(&init->attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	spin_lock_init(&srq->rq.lock);
	srq->user = udata;
	init->attr.max_sge = max(init->attr.max_sge, 1U);
	srq->rq.max_sge = init->attr.max_sge;
	srq->rq.max_wr = init->attr.max_wr;
	srq->limit = init->attr.srq_limit;
	err = irn_queue_init(&srq->rq.queue, init->attr.max_wr,
			     irn_srq_wqe_size(srq), srq->user);
	if (err)
		return err;
	srq->rq.max_wr = irn_queue_capacity(&srq->rq.queue);
	init->attr.max_wr = srq->rq.max_wr;
	if (udata) {
		err = irn_queue_map(&srq->rq.queue, udata, &resp.mi);
		if (err)
			goto err_cleanup_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_cleanup_queue;
	}
	return 0;

err_cleanup_queue:
	irn_queue_cleanup(&srq->rq.queue);
	return err;
}

/* Move the posted, untaken entries into @nq, oldest first. */
static void move_entries(struct irn_srq *srq, struct irn_queue *nq)
{
	struct irn_queue *oq = &srq->rq.queue;
	u32 cons = oq->index;
	u32 prod = irn_wq_producer(&srq->rq);
	u32 n = 0;

	while (cons != prod && n < nq->mask) {
		memcpy(irn_queue_slot(nq, n++), irn_queue_slot(oq, cons),
		       irn_srq_wqe_size(srq));
		cons = (cons + 1) & oq->mask;
	}
	nq->buf->producer_index = n;
}

static int resize(struct irn_srq *srq, u32 max_wr, struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct irn_queue nq, oq;
	struct mminfo mi = {};
	u32 posted;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	err = irn_queue_init(&nq, max_wr, irn_srq_wqe_size(srq), srq->user);
	if (err)
		return err;
	if (udata) {
		err = irn_queue_map(&nq, udata, &mi);
		if (err)
			goto err_cleanup_new;
	}

	spin_lock_bh(&srq->rq.lock);
	posted = (irn_wq_producer(&srq->rq) - srq->rq.queue.index) &
		 srq->rq.queue.mask;
	if (posted > irn_queue_capacity(&nq)) {
		spin_unlock_bh(&srq->rq.lock);
		err = -EINVAL;
		goto err_cleanup_new;
	}
	move_entries(srq, &nq);
	oq = srq->rq.queue;
	srq->rq.queue = nq;
	srq->rq.max_wr = irn_queue_capacity(&nq);
	spin_unlock_bh(&srq->rq.lock);

	irn_queue_cleanup(&oq);
	if (udata && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				  sizeof(mi)))
		return -EFAULT;
	return 0;

err_cleanup_new:
	irn_queue_cleanup(&nq);
	return err;
}

/**
 * irn_srq_modify() - ib_device_ops.modify_srq
 * @ibsrq: SRQ
 * @attr: new size and/or limit
 * @mask: IB_SRQ_MAX_WR and/or IB_SRQ_LIMIT
 * @udata: struct rxe_modify_srq_cmd from the rxe provider, or NULL
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct irn_srq *srq = to_irn_srq(ibsrq);
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;
	if ((mask & IB_SRQ_MAX_WR) &&
	    (!attr->max_wr || attr->max_wr > IRN_MAX_SRQ_WR))
		return -EINVAL;
	if ((mask & IB_SRQ_LIMIT) &&
	    attr->srq_limit > ((mask & IB_SRQ_MAX_WR) ? attr->max_wr :
			       srq->rq.max_wr))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_bh(&srq->rq.lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->rq.lock);
	}
	return 0;
}

/**
 * irn_srq_query() - ib_device_ops.query_srq
 * @ibsrq: SRQ
 * @attr: filled with size, SGEs and limit
 *
 * Context: process context.
 * Return: 0.
 */
int irn_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct irn_srq *srq = to_irn_srq(ibsrq);

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

/**
 * irn_srq_destroy() - ib_device_ops.destroy_srq
 * @ibsrq: SRQ; the RDMA core guarantees no QP uses it any more
 * @udata: unused
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int irn_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	irn_queue_cleanup(&to_irn_srq(ibsrq)->rq.queue);
	return 0;
}

/**
 * irn_srq_post_recv() - ib_device_ops.post_srq_recv, for kernel consumers
 * @ibsrq: SRQ
 * @wr: receive work requests
 * @bad_wr: set to the first request not posted
 *
 * Context: any, does not sleep.
 * Return: 0 or a negative errno.
 */
int irn_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct irn_srq *srq = to_irn_srq(ibsrq);
	struct irn_queue *q = &srq->rq.queue;
	unsigned long flags;
	int err = 0;
	int i;

	if (srq->user)
		return -EINVAL;
	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		u32 prod = q->buf->producer_index;
		struct rxe_recv_wqe *wqe = irn_queue_slot(q, prod);

		if (((prod + 1) & q->mask) == q->index ||
		    wr->num_sge > srq->rq.max_sge) {
			err = wr->num_sge > srq->rq.max_sge ? -EINVAL :
							      -ENOMEM;
			*bad_wr = wr;
			break;
		}
		wqe->wr_id = wr->wr_id;
		wqe->dma.num_sge = wr->num_sge;
		wqe->dma.length = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			wqe->dma.length += wr->sg_list[i].length;
		}
		/* Pairs with the responders' load-acquire of the producer. */
		smp_store_release(&q->buf->producer_index,
				  (prod + 1) & q->mask);
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_post_recv);

static void limit_event(struct irn_srq *srq)
{
	struct ib_event ev = {
		.device		= srq->ib_srq.device,
		.element.srq	= &srq->ib_srq,
		.event		= IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ib_srq.event_handler)
		srq->ib_srq.event_handler(&ev, srq->ib_srq.srq_context);
}

/**
 * irn_srq_take() - take the oldest receive WQE for a new message
 * @srq: SRQ
 * @wqe: room for irn_srq_wqe_size() bytes; filled with a copy
 *
 * Context: softirq or process context.
 * Return: true if a WQE was taken.
 */
bool irn_srq_take(struct irn_srq *srq, struct rxe_recv_wqe *wqe)
{
	struct irn_queue *q = &srq->rq.queue;
	bool fire = false;
	u32 left;

	spin_lock_bh(&srq->rq.lock);
	if (q->index == irn_wq_producer(&srq->rq)) {
		spin_unlock_bh(&srq->rq.lock);
		return false;
	}
	memcpy(wqe, irn_queue_slot(q, q->index), irn_srq_wqe_size(srq));
	q->index = (q->index + 1) & q->mask;
	irn_wq_consumed(&srq->rq, q->index);
	left = (irn_wq_producer(&srq->rq) - q->index) & q->mask;
	if (srq->limit && left < srq->limit) {
		srq->limit = 0;
		fire = true;
	}
	spin_unlock_bh(&srq->rq.lock);
	if (fire)
		limit_event(srq);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_take);

/**
 * irn_srq_stage_init() - room for the WQEs one QP may take ahead
 * @st: the QP's stage
 * @srq: the QP's SRQ
 * @depth: messages the QP may take WQEs for at once, a power of two; fewer
 *	   if their copies would exceed IRN_SRQ_STAGE_BYTES
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int irn_srq_stage_init(struct irn_srq_stage *st, const struct irn_srq *srq,
		       u32 depth)
{
	size_t size = irn_srq_wqe_size(srq);

	depth = min_t(u32, depth, max_t(size_t, IRN_SRQ_STAGE_BYTES / size, 1));
	depth = rounddown_pow_of_two(depth);
	st->wqes = kvcalloc(depth, size, GFP_KERNEL);
	if (!st->wqes)
		return -ENOMEM;
	st->size = size;
	st->mask = depth - 1;
	st->count = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_stage_init);

/**
 * irn_srq_stage_free() - free what irn_srq_stage_init() allocated
 * @st: stage; the WQEs still in it are dropped
 *
 * Context: any.
 */
void irn_srq_stage_free(struct irn_srq_stage *st)
{
	kvfree(st->wqes);
	st->wqes = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_stage_free);

static struct rxe_recv_wqe *stage_slot(const struct irn_srq_stage *st,
				       u32 rsn)
{
	return st->wqes + (rsn & st->mask) * st->size;
}

/**
 * irn_srq_stage_get() - the WQE of a message, taken from the SRQ if need be
 * @st: the QP's stage
 * @srq: the QP's SRQ
 * @head: number of the oldest message not completed (its WQE is first)
 * @rsn: number of the message wanted, at or after @head
 *
 * WQEs are taken in message order, so a message that arrives early takes
 * the WQEs of the messages before it too, which keep them.
 *
 * Context: the QP's responder.
 * Return: the WQE for message @rsn, or NULL if @rsn is beyond the stage
 * or the SRQ ran out first (the WQEs taken before stay staged).
 */
struct rxe_recv_wqe *irn_srq_stage_get(struct irn_srq_stage *st,
				       struct irn_srq *srq, u32 head, u32 rsn)
{
	u32 k = rsn - head;

	if (k > st->mask)
		return NULL;
	while (st->count <= k) {
		if (!irn_srq_take(srq, stage_slot(st, head + st->count)))
			return NULL;
		st->count++;
	}
	return stage_slot(st, rsn);
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_stage_get);

/**
 * irn_srq_stage_head() - the WQE of the oldest message, if taken
 * @st: the QP's stage
 * @head: number of the oldest message not completed
 *
 * Context: the QP's responder.
 * Return: the WQE, or NULL if none is staged.
 */
struct rxe_recv_wqe *irn_srq_stage_head(const struct irn_srq_stage *st,
					u32 head)
{
	return st->count ? stage_slot(st, head) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_stage_head);

/**
 * irn_srq_stage_pop() - the oldest message is done with its WQE
 * @st: the QP's stage, with a WQE staged
 *
 * Context: the QP's responder, which then moves its head on by one.
 */
void irn_srq_stage_pop(struct irn_srq_stage *st)
{
	if (!WARN_ON_ONCE(!st->count))
		st->count--;
}
EXPORT_SYMBOL_IF_KUNIT(irn_srq_stage_pop);
