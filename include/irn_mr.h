/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Memory regions: keys, access checks and copies to and from registered
 * memory.
 */
#ifndef _IRN_MR_H
#define _IRN_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct irn_dev;
struct sk_buff;

enum irn_mr_kind {
	IRN_MR_USER,	/* pinned user pages, ib_umem */
	IRN_MR_DMA,	/* all kernel memory, addressed by kernel VA */
	IRN_MR_FAST,	/* fast registration: pages set by a REG_MR WQE */
	IRN_MW,		/* memory window onto another MR */
};

/**
 * struct irn_key - what the device's key table holds: an MR or an MW
 * @kind: enum irn_mr_kind; IRN_MW for windows
 * @refs: one for the key table, one per datapath user
 * @done: completed when the last datapath user is gone
 */
struct irn_key {
	enum irn_mr_kind	kind;
	refcount_t		refs;
	struct completion	done;
};

/**
 * struct irn_mr_map - what an MR's addresses translate to
 * @iova: first byte
 * @length: bytes
 * @pages: kernel virtual address of each page (user and fast MRs)
 * @npages: pages in use
 * @page_shift: log2 of the page size of @pages
 * @offset: offset of @iova in the first page
 */
struct irn_mr_map {
	u64			iova;
	u64			length;
	u64			*pages;
	u32			npages;
	u32			page_shift;
	u32			offset;
};

/**
 * struct irn_mr - a memory region
 * @ib_mr: the RDMA core's MR; lkey, rkey, pd, and the iova and length a
 *	   consumer maps a fast MR to (not what keys reach: see @map)
 * @kind: what backs it
 * @valid: keys may be used; cleared by invalidation (fast MRs)
 * @access: IB_ACCESS_* granted
 * @umem: pinned user memory (user MRs)
 * @map: what the keys reach while @valid
 * @staged: a fast MR's pages as irn_mr_map_sg() left them, which the
 *	    next REG_MR work request makes @map: mapping pages changes
 *	    nothing that a key reaches, as on a NIC
 * @max_pages: room in @map.pages and @staged.pages
 * @key: key table entry; its kind is never IRN_MW
 * @windows: memory windows bound to this MR
 * @rcu: the MR is freed after a grace period, as lookups are lockless
 */
struct irn_mr {
	struct ib_mr		ib_mr;
	struct irn_key		key;
	atomic_t		windows;
	enum irn_mr_kind	kind;
	bool			valid;
	int			access;
	struct ib_umem		*umem;
	struct irn_mr_map	map;
	struct irn_mr_map	staged;
	u32			max_pages;
	struct rcu_head		rcu;
};

/**
 * struct irn_mw - a memory window
 * @ib_mw: the RDMA core's MW; rkey, type, pd
 * @key: key table entry, kind IRN_MW
 * @lock: serialises bind and invalidation against each other
 * @mr: MR the window is bound to, referenced; NULL while @valid is false
 * @addr: first byte of the window
 * @length: bytes in the window
 * @access: remote access the window grants
 * @qpn: QP a type 2 window is bound to
 * @valid: the window grants access
 */
struct irn_mw {
	struct ib_mw		ib_mw;
	struct irn_key		key;
	spinlock_t		lock;	/* see above */
	struct irn_mr		*mr;
	u64			addr;
	u64			length;
	int			access;
	u32			qpn;
	bool			valid;
};

static inline struct irn_mw *to_irn_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct irn_mw, ib_mw);
}

static inline struct irn_mr *to_irn_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct irn_mr, ib_mr);
}

struct ib_mr *irn_mr_get_dma(struct ib_pd *pd, int access);
struct ib_mr *irn_mr_reg_user(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *irn_mr_alloc(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int irn_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int irn_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);

struct irn_mr *irn_mr_lookup(struct irn_dev *dev, u32 key, bool remote);
struct irn_mr *irn_mr_lookup_remote(struct irn_dev *dev, u32 rkey,
				    struct ib_pd *pd, u32 qpn, int access,
				    u64 va, u64 len);
void irn_mr_put(struct irn_mr *mr);
enum ib_wc_status irn_mr_check(struct irn_mr *mr, struct ib_pd *pd,
			       int access, u64 iova, u64 len);

void irn_mr_copy(struct irn_mr *mr, u64 iova, void *buf, u32 len,
		 bool to_mr);
int irn_mr_copy_from_skb(struct irn_mr *mr, u64 iova,
			 const struct sk_buff *skb, int offset, u32 len);
u64 *irn_mr_atomic_addr(struct irn_mr *mr, u64 iova);

/**
 * struct irn_copy - one side of a copy to or from an SGE list
 * @buf: kernel buffer, or NULL
 * @skb: packet to copy from (into SGEs only), when @buf is NULL
 * @skb_off: payload offset in @skb
 */
struct irn_copy {
	void			*buf;
	const struct sk_buff	*skb;
	int			skb_off;
};

enum ib_wc_status irn_mr_copy_sges(struct irn_dev *dev, struct ib_pd *pd,
				   const struct rxe_sge *sges, u32 num_sge,
				   u32 offset, struct irn_copy *data, u32 len,
				   bool to_sges);

int irn_mr_fast_register(struct irn_mr *mr, u32 key, int access);
int irn_mr_invalidate(struct irn_dev *dev, u32 key, struct ib_pd *pd);

int irn_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata);
int irn_mw_dealloc(struct ib_mw *ibmw);
enum ib_wc_status irn_mw_bind(struct irn_dev *dev, struct ib_pd *pd,
			      u32 qpn, const struct rxe_send_wr *wr);

#endif /* _IRN_MR_H */
