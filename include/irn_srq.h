/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared receive queues.
 */
#ifndef _IRN_SRQ_H
#define _IRN_SRQ_H

#include <rdma/ib_verbs.h>

#include "irn_queue.h"

#define IRN_MAX_SRQ		SZ_64K
#define IRN_MAX_SRQ_WR		16384
#define IRN_MAX_SRQ_SGE		32

/**
 * struct irn_srq - a shared receive queue
 * @ib_srq: the RDMA core's SRQ; must stay first
 * @rq: the ring of struct rxe_recv_wqe, and its lock, which here also
 *	serialises the responders of all QPs taking entries from it
 * @user: the ring is shared with user space
 * @limit: armed limit; an IB_EVENT_SRQ_LIMIT_REACHED fires once when fewer
 *	   entries remain, 0 when disarmed
 */
struct irn_srq {
	struct ib_srq		ib_srq;
	struct irn_wq		rq;
	bool			user;
	u32			limit;
};

static inline struct irn_srq *to_irn_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct irn_srq, ib_srq);
}

static inline size_t irn_srq_wqe_size(const struct irn_srq *srq)
{
	return sizeof(struct rxe_recv_wqe) +
	       srq->rq.max_sge * sizeof(struct rxe_sge);
}

int irn_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int irn_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int irn_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int irn_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int irn_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
bool irn_srq_take(struct irn_srq *srq, struct rxe_recv_wqe *wqe);

#endif /* _IRN_SRQ_H */
