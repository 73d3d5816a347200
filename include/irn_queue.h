/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Rings shared with the rdma-core rxe provider (struct rxe_queue_buf), or
 * private to the kernel for kernel consumers.
 *
 * A ring has 2^n slots of 2^k bytes after a 384-byte header holding the
 * producer and consumer indices; one slot always stays empty, so full means
 * (producer + 1) & mask == consumer.  Both indices are stored masked.
 *
 * The side of a ring the kernel owns keeps its index in @index and only
 * publishes it with a store-release; the other side's index is read with a
 * load-acquire and masked before use, since user space may write anything
 * there.
 */
#ifndef _IRN_QUEUE_H
#define _IRN_QUEUE_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct ib_ucontext;
struct ib_udata;
struct vm_area_struct;
struct rdma_user_mmap_entry;

/**
 * struct irn_queue - a ring
 * @buf: header and slots; vmalloc_user() memory when mapped to user space
 * @size: bytes allocated for @buf
 * @mask: slots - 1
 * @elem_shift: log2 of the slot stride
 * @index: the kernel's own index (producer of a completion ring)
 * @mmap: user mapping handle, NULL for a kernel ring
 */
struct irn_queue {
	struct rxe_queue_buf		*buf;
	size_t				size;
	u32				mask;
	u32				elem_shift;
	u32				index;
	struct rdma_user_mmap_entry	*mmap;
};

int irn_queue_init(struct irn_queue *q, u32 capacity, size_t elem_size,
		   bool user);
int irn_queue_map(struct irn_queue *q, struct ib_udata *udata,
		  struct mminfo *mi);
void irn_queue_cleanup(struct irn_queue *q);

int irn_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void irn_queue_mmap_free(struct rdma_user_mmap_entry *entry);

static inline u32 irn_queue_capacity(const struct irn_queue *q)
{
	return q->mask;
}

static inline void *irn_queue_slot(const struct irn_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->mask) << q->elem_shift);
}

/* Consumer index of a ring the kernel produces into; written by user space. */
static inline u32 irn_queue_peer_consumer(const struct irn_queue *q)
{
	/* Pairs with the consumer's store-release: its reads are done. */
	return smp_load_acquire(&q->buf->consumer_index) & q->mask;
}

static inline u32 irn_queue_produced_count(const struct irn_queue *q)
{
	return (q->index - irn_queue_peer_consumer(q)) & q->mask;
}

static inline bool irn_queue_produce_full(const struct irn_queue *q)
{
	return ((q->index + 1) & q->mask) == irn_queue_peer_consumer(q);
}

/* Publish the slot at @index: it becomes visible to the consumer. */
static inline void irn_queue_produce_commit(struct irn_queue *q)
{
	q->index = (q->index + 1) & q->mask;
	/* Pairs with the consumer's load-acquire: the slot is written. */
	smp_store_release(&q->buf->producer_index, q->index);
}

/**
 * struct irn_wq - a work queue ring and its limits
 * @queue: ring of struct rxe_send_wqe or struct rxe_recv_wqe entries
 * @max_wr: entries the consumer asked for
 * @max_sge: SGEs per entry
 * @max_inline: inline bytes per send entry
 * @lock: kernel producers (post_send, post_recv)
 */
struct irn_wq {
	struct irn_queue	queue;
	u32			max_wr;
	u32			max_sge;
	u32			max_inline;
	spinlock_t		lock;	/* see above */
};

/* Producer index of a ring the consumer of which is the kernel. */
static inline u32 irn_wq_producer(const struct irn_wq *wq)
{
	/* Pairs with the producer's store-release: the entry is written. */
	return smp_load_acquire(&wq->queue.buf->producer_index) &
	       wq->queue.mask;
}

/* Publish the kernel's consumer index of a work queue ring. */
static inline void irn_wq_consumed(struct irn_wq *wq, u32 index)
{
	/* Pairs with the producer's load-acquire: the slot may be reused. */
	smp_store_release(&wq->queue.buf->consumer_index,
			  index & wq->queue.mask);
}

#endif /* _IRN_QUEUE_H */
