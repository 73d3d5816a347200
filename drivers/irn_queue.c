// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ring allocation and mapping into user space.
 *
 * User rings are mapped through the RDMA core's rdma_user_mmap_entry
 * machinery: each ring gets an entry whose offset and page-rounded size are
 * handed to the provider in a struct mminfo.  The provider mmaps that exact
 * range on the uverbs file; irn_queue_mmap() maps the vmalloc_user() pages.
 * A mapping holds references on the pages, so a ring freed while still
 * mapped stays valid for the process until it unmaps it.  The same makes
 * revoking a user context safe (irn_disassociate_ucontext()): the RDMA
 * core zaps only the mappings on its umap list, which rdma_user_mmap_io()
 * fills for device memory and irn never does, so a revoked process keeps
 * its rings' pages, which no kernel code touches any more, until it unmaps
 * them.
 *
 * A mapped ring's buffer belongs to its mmap entry and is freed with it,
 * when the last reference goes: an mmap() that found the entry just before
 * destroy removed it still maps the ring, never freed (or reused) memory.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "irn_queue.h"

struct irn_mmap_entry {
	struct rdma_user_mmap_entry	rdma;
	void				*buf;
};

/* Slots are at least a cache line, so the provider's stride is sane. */
#define IRN_QUEUE_MIN_STRIDE	64

/**
 * irn_queue_init() - allocate a ring
 * @q: ring to set up
 * @capacity: entries it must hold; the ring may hold more.  Zero is a
 *	      ring of one slot that holds nothing: the send queue of a
 *	      receive-only QP, or the receive queue of a QP that only reads.
 * @elem_size: bytes per entry
 * @user: the ring will be mapped to user space
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM, -EINVAL for an impossible size.
 */
int irn_queue_init(struct irn_queue *q, u32 capacity, size_t elem_size,
		   bool user)
{
	size_t stride = roundup_pow_of_two(max_t(size_t, elem_size,
						 IRN_QUEUE_MIN_STRIDE));
	u32 slots;

	if (capacity > SZ_1M || elem_size > SZ_64K)
		return -EINVAL;
	slots = roundup_pow_of_two(capacity + 1);

	q->size = sizeof(*q->buf) + ((size_t)slots << ilog2(stride));
	q->buf = user ? vmalloc_user(q->size) : vzalloc(q->size);
	if (!q->buf)
		return -ENOMEM;
	q->mask = slots - 1;
	q->elem_shift = ilog2(stride);
	q->index = 0;
	q->mmap = NULL;
	q->buf->log2_elem_size = q->elem_shift;
	q->buf->index_mask = q->mask;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_queue_init);

/**
 * irn_queue_map() - make a ring mappable by one user context
 * @q: ring from irn_queue_init() with @user set
 * @udata: the verb's user data, naming the context whose uverbs file
 *	   will map it
 * @mi: filled with the offset and size the provider passes to mmap()
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_queue_map(struct irn_queue *q, struct ib_udata *udata,
		  struct mminfo *mi)
{
	struct ib_ucontext *uctx =
		rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct irn_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->buf = q->buf;
	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma, q->size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap = &entry->rdma;
	mi->offset = rdma_user_mmap_get_offset(q->mmap);
	mi->size = PAGE_ALIGN(q->size);
	return 0;
}

/**
 * irn_queue_cleanup() - free a ring
 * @q: ring; user mappings that still exist keep their pages
 *
 * Context: process context.
 */
void irn_queue_cleanup(struct irn_queue *q)
{
	/* The entry frees the buffer once no mmap() is using it. */
	if (q->mmap)
		rdma_user_mmap_entry_remove(q->mmap);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(irn_queue_cleanup);

/**
 * irn_queue_mmap() - ib_device_ops.mmap
 * @uctx: the user context of the uverbs file
 * @vma: the mapping asked for; must match one ring exactly
 *
 * Context: process context, mmap lock held.
 * Return: 0 or a negative errno.
 */
int irn_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct irn_mmap_entry *entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = container_of(rdma_entry, struct irn_mmap_entry, rdma);
	err = remap_vmalloc_range(vma, entry->buf, 0);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * irn_queue_mmap_free() - ib_device_ops.mmap_free
 * @rdma_entry: entry whose last reference went away, with its ring
 *
 * Context: process context.
 */
void irn_queue_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct irn_mmap_entry *entry =
		container_of(rdma_entry, struct irn_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
