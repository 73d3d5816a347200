/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion queues.
 */
#ifndef _IRN_CQ_H
#define _IRN_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "irn_compat.h"
#include "irn_queue.h"
#include "irn_task.h"

/**
 * struct irn_cq - a completion queue
 * @ib_cq: the RDMA core's CQ; must stay first
 * @lock: serialises producers, the kernel consumer, arming and resize
 * @queue: the ring; struct ib_uverbs_wc entries for a user CQ, struct ib_wc
 *	   for a kernel CQ
 * @user: @queue is shared with user space
 * @notify: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP while armed, else 0
 * @notify_task: calls the completion handler, outside any verb's call chain
 */
struct irn_cq {
	struct ib_cq		ib_cq;
	spinlock_t		lock;	/* see above */
	struct irn_queue	queue;
	bool			user;
	u8			notify;
	struct irn_task		notify_task;
};

static inline struct irn_cq *to_irn_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct irn_cq, ib_cq);
}

int irn_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct irn_create_cq_arg *arg);
int irn_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int irn_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int irn_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int irn_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int irn_cq_post(struct irn_cq *cq, const struct ib_wc *wc, bool solicited);

#endif /* _IRN_CQ_H */
