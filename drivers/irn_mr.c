// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions.
 *
 * A key is (index << 8) | tag: the index finds the MR in the device's key
 * table (an xarray), the 8-bit tag is what fast registration changes so that
 * a stale key stops working.  Lookups from the datapath are lockless: RCU
 * protects the table and a reference keeps the MR until the packet is done;
 * deregistration removes the key, waits for those references and frees the
 * MR after a grace period.
 *
 * All memory is reached through kernel virtual addresses: pinned user pages
 * through page_address() (no highmem on the 64-bit kernels irn supports),
 * DMA and fast-registered MRs directly, since irn registers without a DMA
 * device and so kernel consumers hand it virtual addresses.
 */

#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "irn_dev.h"
#include "irn_mr.h"

#define IRN_MR_MAX_INDEX	(BIT(24) - 1)
#define IRN_MR_ALL_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND)

static struct irn_mr *mr_create(struct ib_pd *pd, enum irn_mr_kind kind,
				int access)
{
	struct irn_dev *dev = to_irn_dev(pd->device);
	struct irn_mr *mr;
	u32 index;
	int err;

	/* Optional flags (relaxed ordering) are hints irn may ignore. */
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~(IRN_MR_ALL_ACCESS | IB_ACCESS_HUGETLB))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = xa_alloc_cyclic(&dev->mr_keys, &index, &mr->key,
			      XA_LIMIT(1, IRN_MR_MAX_INDEX), &dev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		kfree(mr);
		return ERR_PTR(err == -EBUSY ? -ENOMEM : err);
	}
	mr->kind = kind;
	mr->key.kind = kind;
	mr->access = access;
	mr->ib_mr.lkey = index << 8 | get_random_u8();
	/* A remote key exists only if remote access was asked for. */
	if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
		      IB_ACCESS_REMOTE_ATOMIC))
		mr->ib_mr.rkey = mr->ib_mr.lkey;
	refcount_set(&mr->key.refs, 1);
	init_completion(&mr->key.done);
	return mr;
}

static void mr_destroy(struct irn_dev *dev, struct irn_mr *mr)
{
	xa_erase(&dev->mr_keys, mr->ib_mr.lkey >> 8);
	irn_mr_put(mr);
	wait_for_completion(&mr->key.done);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->map.pages);
	kvfree(mr->staged.pages);
	kfree_rcu(mr, rcu);
}

/**
 * irn_mr_get_dma() - ib_device_ops.get_dma_mr
 * @pd: protection domain
 * @access: IB_ACCESS_* flags
 *
 * Context: process context, may sleep.
 * Return: an MR covering all kernel memory, or an ERR_PTR.
 */
struct ib_mr *irn_mr_get_dma(struct ib_pd *pd, int access)
{
	struct irn_mr *mr = mr_create(pd, IRN_MR_DMA, access);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ib_mr.length = U64_MAX;
	mr->map.length = U64_MAX;
	mr->valid = true;
	return &mr->ib_mr;
}

static int map_umem(struct irn_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	u32 i = 0;

	mr->max_pages = ib_umem_num_pages(umem);
	mr->map.pages = kvcalloc(mr->max_pages, sizeof(u64), GFP_KERNEL);
	if (!mr->map.pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (WARN_ON_ONCE(i >= mr->max_pages))
			return -EFAULT;
		mr->map.pages[i++] =
			(u64)page_address(sg_page_iter_page(&iter));
	}
	mr->map.npages = i;
	mr->map.page_shift = PAGE_SHIFT;
	mr->map.offset = ib_umem_offset(umem);
	return 0;
}

/**
 * irn_mr_reg_user() - ib_device_ops.reg_user_mr
 * @pd: protection domain
 * @start: user virtual address of the memory
 * @length: bytes
 * @iova: address the peer and work requests use for @start
 * @access: IB_ACCESS_* flags
 * @udata: the rxe provider sends no request and expects no reply
 *
 * Context: process context, may sleep.
 * Return: the MR or an ERR_PTR.
 */
struct ib_mr *irn_mr_reg_user(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct irn_dev *dev = to_irn_dev(pd->device);
	struct irn_mr *mr;
	int err;

	if (!length || iova + length < iova)
		return ERR_PTR(-EINVAL);
	mr = mr_create(pd, IRN_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_destroy_mr;
	}
	err = map_umem(mr);
	if (err)
		goto err_destroy_mr;
	mr->ib_mr.iova = iova;
	mr->ib_mr.length = length;
	mr->map.iova = iova;
	mr->map.length = length;
	mr->valid = true;
	return &mr->ib_mr;

err_destroy_mr:
	mr_destroy(dev, mr);
	return ERR_PTR(err);
}

/**
 * irn_mr_alloc() - ib_device_ops.alloc_mr, for fast registration
 * @pd: protection domain
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: most pages a registration may map
 *
 * Context: process context, may sleep.
 * Return: an MR whose keys are invalid until a REG_MR work request, or an
 * ERR_PTR.
 */
struct ib_mr *irn_mr_alloc(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct irn_dev *dev = to_irn_dev(pd->device);
	struct irn_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > dev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	mr = mr_create(pd, IRN_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->map.pages = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->staged.pages = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->map.pages || !mr->staged.pages) {
		mr_destroy(dev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	mr->ib_mr.rkey = mr->ib_mr.lkey;
	return &mr->ib_mr;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_alloc);

static int set_page(struct ib_mr *ibmr, u64 addr)
{
	struct irn_mr *mr = to_irn_mr(ibmr);

	if (mr->staged.npages >= mr->max_pages)
		return -ENOMEM;
	mr->staged.pages[mr->staged.npages++] = addr;
	return 0;
}

/**
 * irn_mr_map_sg() - ib_device_ops.map_mr_sg
 * @ibmr: fast-registration MR
 * @sg: scatterlist of kernel memory
 * @sg_nents: entries in @sg
 * @sg_offset: offset into the first entry, updated
 *
 * The pages are staged for the next REG_MR: consumers map an MR while its
 * previous registration is still valid (rdma_rw posts the invalidation
 * in the same chain as the registration), and keys keep reaching the
 * pages they were registered with until then.
 *
 * Context: any, does not sleep.
 * Return: entries mapped.
 */
int irn_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct irn_mr *mr = to_irn_mr(ibmr);
	int n;

	mr->staged.npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, set_page);
	mr->staged.page_shift = ilog2(ibmr->page_size);
	mr->staged.offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_map_sg);

/**
 * irn_mr_dereg() - ib_device_ops.dereg_mr
 * @ibmr: MR
 * @udata: unused
 *
 * Waits for packets still copying to or from the MR.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EBUSY while memory windows are bound to it.
 */
int irn_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct irn_mr *mr = to_irn_mr(ibmr);

	if (atomic_read(&mr->windows))
		return -EBUSY;
	mr_destroy(to_irn_dev(ibmr->device), mr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_dereg);

/**
 * irn_mr_lookup() - find an MR by key, for the datapath
 * @dev: device
 * @key: lkey or rkey
 * @remote: @key is an rkey from the wire
 *
 * Context: any, does not sleep.
 * Return: the MR with a reference held (irn_mr_put()), or NULL if no MR has
 * this exact key.
 */
struct irn_mr *irn_mr_lookup(struct irn_dev *dev, u32 key, bool remote)
{
	struct irn_key *k;
	struct irn_mr *mr = NULL;

	rcu_read_lock();
	k = xa_load(&dev->mr_keys, key >> 8);
	if (k && k->kind != IRN_MW) {
		mr = container_of(k, struct irn_mr, key);
		if ((remote ? mr->ib_mr.rkey : mr->ib_mr.lkey) != key ||
		    !refcount_inc_not_zero(&k->refs))
			mr = NULL;
	}
	rcu_read_unlock();
	return mr;
}

static struct irn_mw *mw_lookup(struct irn_dev *dev, u32 rkey)
{
	struct irn_key *k;
	struct irn_mw *mw = NULL;

	rcu_read_lock();
	k = xa_load(&dev->mr_keys, rkey >> 8);
	if (k && k->kind == IRN_MW) {
		mw = container_of(k, struct irn_mw, key);
		if (mw->ib_mw.rkey != rkey || !refcount_inc_not_zero(&k->refs))
			mw = NULL;
	}
	rcu_read_unlock();
	return mw;
}

static void mw_put(struct irn_mw *mw)
{
	if (refcount_dec_and_test(&mw->key.refs))
		complete(&mw->key.done);
}

/*
 * Detach a window from its MR, under the window's lock: an invalid window
 * is bound to no MR, which may then be deregistered.  Return: the MR, for
 * mw_release_mr() once the lock is dropped, or NULL.
 */
static struct irn_mr *mw_detach_mr(struct irn_mw *mw)
{
	struct irn_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->valid = false;
	return mr;
}

/* Drop the hold a window had on @mr (from mw_detach_mr()), if any. */
static void mw_release_mr(struct irn_mr *mr)
{
	if (!mr)
		return;
	atomic_dec(&mr->windows);
	irn_mr_put(mr);
}

/*
 * The MR behind a window, if the window grants this access to this range
 * through this QP, and the MR still holds that range: a fast-registration
 * MR under a bound window can be invalidated or registered again with
 * other pages, which the window does not see.
 */
static struct irn_mr *mw_resolve(struct irn_mw *mw, struct ib_pd *pd,
				 u32 qpn, int access, u64 va, u64 len)
{
	struct irn_mr *mr = NULL;

	spin_lock_bh(&mw->lock);
	if (mw->valid && mw->ib_mw.pd == pd &&
	    (mw->ib_mw.type == IB_MW_TYPE_1 || mw->qpn == qpn) &&
	    (mw->access & access) == access && va >= mw->addr &&
	    len <= mw->length && va - mw->addr <= mw->length - len &&
	    refcount_inc_not_zero(&mw->mr->key.refs))
		mr = mw->mr;
	spin_unlock_bh(&mw->lock);
	if (mr && irn_mr_check(mr, pd, 0, va, len) != IB_WC_SUCCESS) {
		irn_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/**
 * irn_mr_lookup_remote() - the MR an rkey from the wire grants access to
 * @dev: device
 * @rkey: rkey of an MR or of a memory window
 * @pd: protection domain of the QP the request arrived on
 * @qpn: that QP's number (type 2 windows are bound to one QP)
 * @access: IB_ACCESS_REMOTE_* needed
 * @va: first byte
 * @len: bytes
 *
 * Context: any, does not sleep.
 * Return: the MR holding the memory, referenced, with the access checked;
 * or NULL if the key does not grant it.
 */
struct irn_mr *irn_mr_lookup_remote(struct irn_dev *dev, u32 rkey,
				    struct ib_pd *pd, u32 qpn, int access,
				    u64 va, u64 len)
{
	struct irn_mw *mw;
	struct irn_mr *mr;

	mr = irn_mr_lookup(dev, rkey, true);
	if (mr) {
		if (irn_mr_check(mr, pd, access, va, len) == IB_WC_SUCCESS)
			return mr;
		irn_mr_put(mr);
		return NULL;
	}
	mw = mw_lookup(dev, rkey);
	if (!mw)
		return NULL;
	mr = mw_resolve(mw, pd, qpn, access, va, len);
	mw_put(mw);
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_lookup_remote);

/**
 * irn_mr_put() - drop a reference from irn_mr_lookup()
 * @mr: MR
 *
 * Context: any.
 */
void irn_mr_put(struct irn_mr *mr)
{
	if (refcount_dec_and_test(&mr->key.refs))
		complete(&mr->key.done);
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_put);

/**
 * irn_mr_check() - may this access use this MR
 * @mr: MR from irn_mr_lookup()
 * @pd: protection domain of the QP doing the access
 * @access: IB_ACCESS_* needed; 0 for a local read
 * @iova: first byte
 * @len: bytes
 *
 * Context: any.
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_PROT_ERR / IB_WC_REM_ACCESS_ERR style
 * status: the caller maps it for local or remote use.
 */
enum ib_wc_status irn_mr_check(struct irn_mr *mr, struct ib_pd *pd,
			       int access, u64 iova, u64 len)
{
	u64 start = mr->map.iova;

	if (!READ_ONCE(mr->valid) || mr->ib_mr.pd != pd)
		return IB_WC_LOC_PROT_ERR;
	if ((mr->access & access) != access)
		return IB_WC_LOC_PROT_ERR;
	if (mr->kind == IRN_MR_DMA)
		return IB_WC_SUCCESS;
	/* Written so that no sum can overflow. */
	if (iova < start || len > mr->map.length ||
	    iova - start > mr->map.length - len)
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

/* Kernel address of @iova and how many bytes follow it in the same page. */
static void *mr_addr(struct irn_mr *mr, u64 iova, u32 *room)
{
	u64 off, page_size;
	u32 idx;

	if (mr->kind == IRN_MR_DMA) {
		*room = U32_MAX;
		return (void *)(uintptr_t)iova;
	}
	page_size = 1ULL << mr->map.page_shift;
	off = iova - mr->map.iova + mr->map.offset;
	idx = off >> mr->map.page_shift;
	off &= page_size - 1;
	if (WARN_ON_ONCE(idx >= mr->map.npages)) {
		*room = 0;
		return NULL;
	}
	*room = page_size - off;
	return (void *)(uintptr_t)(mr->map.pages[idx] + off);
}

/**
 * irn_mr_copy() - copy between an MR and a kernel buffer
 * @mr: MR; irn_mr_check() has accepted the range
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: copy @buf into the MR, else the MR into @buf
 *
 * Context: any.
 */
void irn_mr_copy(struct irn_mr *mr, u64 iova, void *buf, u32 len, bool to_mr)
{
	while (len) {
		u32 room;
		void *addr = mr_addr(mr, iova, &room);
		u32 n = min(len, room);

		if (!addr)
			return;
		if (to_mr)
			memcpy(addr, buf, n);
		else
			memcpy(buf, addr, n);
		iova += n;
		buf += n;
		len -= n;
	}
}

/**
 * irn_mr_copy_from_skb() - place packet payload into an MR
 * @mr: MR; irn_mr_check() has accepted the range
 * @iova: first byte in the MR
 * @skb: packet; its payload may be in fragments
 * @offset: payload offset from skb->data
 * @len: bytes
 *
 * Context: any.
 * Return: 0, or -EFAULT if @skb is shorter than promised.
 */
int irn_mr_copy_from_skb(struct irn_mr *mr, u64 iova,
			 const struct sk_buff *skb, int offset, u32 len)
{
	while (len) {
		u32 room;
		void *addr = mr_addr(mr, iova, &room);
		u32 n = min(len, room);

		if (!addr || skb_copy_bits(skb, offset, addr, n))
			return -EFAULT;
		iova += n;
		offset += n;
		len -= n;
	}
	return 0;
}

/**
 * irn_mr_atomic_addr() - kernel address of an 8-byte atomic target
 * @mr: MR; irn_mr_check() has accepted 8 bytes at @iova
 * @iova: 8-byte aligned address
 *
 * Context: any.
 * Return: the address, or NULL if @iova is not 8-byte aligned.
 */
u64 *irn_mr_atomic_addr(struct irn_mr *mr, u64 iova)
{
	u32 room;

	if (iova & 7)
		return NULL;
	return mr_addr(mr, iova, &room);
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_atomic_addr);

static enum ib_wc_status copy_sge(struct irn_dev *dev, struct ib_pd *pd,
				  const struct rxe_sge *sge, u32 sge_off,
				  struct irn_copy *data, u32 n, bool to_sge)
{
	u64 addr = sge->addr + sge_off;
	enum ib_wc_status status;
	struct irn_mr *mr;

	mr = irn_mr_lookup(dev, sge->lkey, false);
	if (!mr)
		return IB_WC_LOC_PROT_ERR;
	status = irn_mr_check(mr, pd, to_sge ? IB_ACCESS_LOCAL_WRITE : 0,
			      addr, n);
	if (status == IB_WC_SUCCESS) {
		if (data->buf) {
			irn_mr_copy(mr, addr, data->buf, n, to_sge);
			data->buf += n;
		} else if (irn_mr_copy_from_skb(mr, addr, data->skb,
						data->skb_off, n)) {
			status = IB_WC_LOC_LEN_ERR;
		} else {
			data->skb_off += n;
		}
	}
	irn_mr_put(mr);
	return status;
}

/**
 * irn_mr_copy_sges() - copy between an SGE list and a buffer or packet
 * @dev: device
 * @pd: protection domain of the QP; every lkey must belong to it
 * @sges: SGE list; may be in a ring user space writes, so each entry is
 *	  read once and checked
 * @num_sge: entries in @sges
 * @offset: byte offset into the list where the copy starts
 * @data: the other side, advanced past what was copied
 * @len: bytes
 * @to_sges: copy into the SGEs (needs IB_ACCESS_LOCAL_WRITE)
 *
 * Context: any, does not sleep.
 * Return: IB_WC_SUCCESS; IB_WC_LOC_PROT_ERR for a bad key, access or range;
 * IB_WC_LOC_LEN_ERR if the list is shorter than @offset + @len.
 */
enum ib_wc_status irn_mr_copy_sges(struct irn_dev *dev, struct ib_pd *pd,
				   const struct rxe_sge *sges, u32 num_sge,
				   u32 offset, struct irn_copy *data, u32 len,
				   bool to_sges)
{
	enum ib_wc_status status;
	struct rxe_sge sge;
	u32 i, n;

	for (i = 0; i < num_sge && len; i++) {
		memcpy(&sge, &sges[i], sizeof(sge));
		sge.length = READ_ONCE(sge.length);
		if (offset >= sge.length) {
			offset -= sge.length;
			continue;
		}
		n = min(len, sge.length - offset);
		status = copy_sge(dev, pd, &sge, offset, data, n, to_sges);
		if (status != IB_WC_SUCCESS)
			return status;
		offset = 0;
		len -= n;
	}
	return len ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

/**
 * irn_mr_fast_register() - execute a REG_MR work request
 * @mr: fast-registration MR with pages mapped by irn_mr_map_sg()
 * @key: new key; only its low 8 bits may differ from the current one
 * @access: IB_ACCESS_* flags
 *
 * Context: any; from the requester.
 * Return: 0, or -EINVAL (also for an MR still valid or under a window: it
 * must be invalidated, and its windows unbound, first).
 */
int irn_mr_fast_register(struct irn_mr *mr, u32 key, int access)
{
	if (mr->kind != IRN_MR_FAST || (key >> 8) != (mr->ib_mr.lkey >> 8) ||
	    (access & ~IRN_MR_ALL_ACCESS))
		return -EINVAL;
	/*
	 * Only an invalid MR with no window registers again: a window
	 * bound to it would otherwise reach the new pages with its old key.
	 */
	if (READ_ONCE(mr->valid) || atomic_read(&mr->windows))
		return -EINVAL;
	mr->access = access;
	mr->ib_mr.lkey = key;
	mr->ib_mr.rkey = key;
	memcpy(mr->map.pages, mr->staged.pages,
	       mr->staged.npages * sizeof(u64));
	mr->map.npages = mr->staged.npages;
	mr->map.page_shift = mr->staged.page_shift;
	mr->map.offset = mr->staged.offset;
	mr->map.iova = mr->ib_mr.iova;
	mr->map.length = mr->ib_mr.length;
	/* Publish the new state before the key becomes usable. */
	smp_store_release(&mr->valid, true);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_fast_register);

/**
 * irn_mr_invalidate() - LOCAL_INV, or SEND_WITH_INV from the peer
 * @dev: device
 * @key: key to invalidate
 * @pd: protection domain of the QP asking
 *
 * An invalidated window is bound to no MR any more: it lets go of its MR,
 * which may then be deregistered.
 *
 * Context: any.
 * Return: 0, or -EINVAL if @key names no fast-registration MR or type 2
 * window of @pd, or an MR that windows are bound to.
 */
int irn_mr_invalidate(struct irn_dev *dev, u32 key, struct ib_pd *pd)
{
	struct irn_mr *mr = irn_mr_lookup(dev, key, false);
	struct irn_mr *old = NULL;
	struct irn_mw *mw;
	int err = -EINVAL;

	if (!mr) {
		/* Only type 2 windows can be invalidated. */
		mw = mw_lookup(dev, key);
		if (!mw)
			return err;
		spin_lock_bh(&mw->lock);
		if (mw->ib_mw.type == IB_MW_TYPE_2 && mw->ib_mw.pd == pd) {
			old = mw_detach_mr(mw);
			err = 0;
		}
		spin_unlock_bh(&mw->lock);
		mw_release_mr(old);
		mw_put(mw);
		return err;
	}
	/* Not under a bound window, which would outlive the mapping. */
	if (mr->kind == IRN_MR_FAST && mr->ib_mr.pd == pd &&
	    !atomic_read(&mr->windows)) {
		WRITE_ONCE(mr->valid, false);
		err = 0;
	}
	irn_mr_put(mr);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mr_invalidate);

/**
 * irn_mw_alloc() - ib_device_ops.alloc_mw
 * @ibmw: MW allocated by the RDMA core; type set
 * @udata: the rxe provider sends no request and expects no reply
 *
 * The window starts unbound; its rkey works once a BIND_MW binds it.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct irn_dev *dev = to_irn_dev(ibmw->device);
	struct irn_mw *mw = to_irn_mw(ibmw);
	u32 index;
	int err;

	spin_lock_init(&mw->lock);
	mw->key.kind = IRN_MW;
	refcount_set(&mw->key.refs, 1);
	init_completion(&mw->key.done);
	err = xa_alloc_cyclic(&dev->mr_keys, &index, &mw->key,
			      XA_LIMIT(1, IRN_MR_MAX_INDEX), &dev->mr_next,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	ibmw->rkey = index << 8 | get_random_u8();
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mw_alloc);

/**
 * irn_mw_dealloc() - ib_device_ops.dealloc_mw
 * @ibmw: MW
 *
 * Waits for packets using the window; the RDMA core frees it afterwards.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int irn_mw_dealloc(struct ib_mw *ibmw)
{
	struct irn_dev *dev = to_irn_dev(ibmw->device);
	struct irn_mw *mw = to_irn_mw(ibmw);

	xa_erase(&dev->mr_keys, ibmw->rkey >> 8);
	synchronize_rcu();
	mw_put(mw);
	wait_for_completion(&mw->key.done);
	mw_release_mr(mw->mr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mw_dealloc);

static bool bind_allowed(struct irn_mw *mw, struct irn_mr *mr,
			 struct ib_pd *pd, const struct rxe_send_wr *wr)
{
	u64 addr = wr->wr.mw.addr, len = wr->wr.mw.length;
	int access = wr->wr.mw.access;

	if (mw->ib_mw.pd != pd || mr->ib_mr.pd != pd ||
	    !(mr->access & IB_ACCESS_MW_BIND) || !READ_ONCE(mr->valid))
		return false;
	/* Local write means nothing for a window; providers pass it along. */
	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		       IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ZERO_BASED))
		return false;
	/* Writes through the window need the MR to be locally writable. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return false;
	if ((access & IB_ZERO_BASED) || mr->kind == IRN_MR_DMA)
		return false;
	if (irn_mr_check(mr, pd, 0, addr, len) != IB_WC_SUCCESS)
		return false;
	/* A type 2 window binds only while invalid, with a new key. */
	if (mw->ib_mw.type == IB_MW_TYPE_2 &&
	    (mw->valid || (wr->wr.mw.rkey >> 8) != (mw->ib_mw.rkey >> 8)))
		return false;
	return true;
}

/**
 * irn_mw_bind() - execute a BIND_MW work request
 * @dev: device
 * @pd: protection domain of the QP
 * @qpn: the QP's number
 * @wr: the request, snapshotted from the send queue
 *
 * A zero-length bind unbinds a type 1 window: it then holds no MR, and the
 * MR it was bound to may be deregistered.
 *
 * Context: any; from the requester.
 * Return: IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.
 */
enum ib_wc_status irn_mw_bind(struct irn_dev *dev, struct ib_pd *pd,
			      u32 qpn, const struct rxe_send_wr *wr)
{
	struct irn_mw *mw = mw_lookup(dev, wr->wr.mw.mw_rkey);
	struct irn_mr *mr, *old;
	enum ib_wc_status status = IB_WC_MW_BIND_ERR;

	if (!mw)
		return status;
	mr = irn_mr_lookup(dev, wr->wr.mw.mr_lkey, false);
	if (!mr)
		goto out_put_mw;
	spin_lock_bh(&mw->lock);
	if (!bind_allowed(mw, mr, pd, wr)) {
		spin_unlock_bh(&mw->lock);
		irn_mr_put(mr);
		goto out_put_mw;
	}
	old = mw_detach_mr(mw);
	mw->addr = wr->wr.mw.addr;
	mw->length = wr->wr.mw.length;
	mw->access = wr->wr.mw.access;
	mw->qpn = qpn;
	mw->ib_mw.rkey = (mw->ib_mw.rkey & ~0xffU) | (wr->wr.mw.rkey & 0xff);
	/* A zero-length bind unbinds: the window then holds no MR. */
	if (mw->length) {
		mw->mr = mr;	/* the lookup's reference moves to the MW */
		atomic_inc(&mr->windows);
		mw->valid = true;
		mr = NULL;
	}
	spin_unlock_bh(&mw->lock);
	if (mr)
		irn_mr_put(mr);
	mw_release_mr(old);
	status = IB_WC_SUCCESS;
out_put_mw:
	mw_put(mw);
	return status;
}
EXPORT_SYMBOL_IF_KUNIT(irn_mw_bind);
