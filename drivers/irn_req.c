// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester: turns send WQEs into packets.
 *
 * Each round of irn_requester() sends at most one packet, as a small state
 * machine: find the next WQE (snapshotting and validating it the first
 * time), run it locally if it is a local operation, check that the window
 * and the read/atomic credits allow another packet, then build and send it.
 * Retransmission is the completer's decision.  Standard RoCEv2: it asks
 * through qp->rewind and the requester restarts from that PSN (go-back-N).
 * IRN: the scoreboard names the lost PSNs and the requester resends just
 * those, oldest first, before anything new; every IRN request carries an
 * irn_ixth so that the responder can place it wherever it lands.
 */

#include <linux/skbuff.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>

#include "irn_av.h"
#include "irn_compat.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mr.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_trace.h"
#include "irn_txsock.h"
#include "irn_xmit.h"

enum req_state {
	REQ_RETRANSMIT,
	REQ_NEXT_WQE,
	REQ_LOCAL_OP,
	REQ_CHECK_WINDOW,
	REQ_SEND,
	REQ_DONE_MORE,
	REQ_DONE_IDLE,
};

static const u32 ops_rc = BIT(IB_WR_RDMA_WRITE) |
	BIT(IB_WR_RDMA_WRITE_WITH_IMM) | BIT(IB_WR_SEND) |
	BIT(IB_WR_SEND_WITH_IMM) | BIT(IB_WR_RDMA_READ) |
	BIT(IB_WR_ATOMIC_CMP_AND_SWP) | BIT(IB_WR_ATOMIC_FETCH_AND_ADD) |
	BIT(IB_WR_LOCAL_INV) | BIT(IB_WR_SEND_WITH_INV) | BIT(IB_WR_BIND_MW);
static const u32 ops_uc = BIT(IB_WR_RDMA_WRITE) |
	BIT(IB_WR_RDMA_WRITE_WITH_IMM) | BIT(IB_WR_SEND) |
	BIT(IB_WR_SEND_WITH_IMM) | BIT(IB_WR_LOCAL_INV) | BIT(IB_WR_BIND_MW);
static const u32 ops_ud = BIT(IB_WR_SEND) | BIT(IB_WR_SEND_WITH_IMM);

static bool opcode_allowed(const struct irn_qp *qp, u32 opcode)
{
	u32 allowed = irn_qp_is_rc(qp) ? ops_rc :
		      irn_qp_is_ud(qp) ? ops_ud : ops_uc;

	/* REG_MR names a kernel MR by pointer: never from a user ring. */
	if (opcode == IB_WR_REG_MR)
		return !qp->user && !irn_qp_is_ud(qp);
	/*
	 * ATOMIC WRITE is RC only, and has its 8 bytes in the WQE, where the
	 * rxe provider puts them; struct ib_send_wr has no place for them.
	 */
	if (opcode == IRN_WR_ATOMIC_WRITE)
		return qp->user && irn_qp_is_rc(qp);
	return opcode < 32 && (allowed & BIT(opcode));
}

/* Requests whose reply is data: they carry no payload of their own. */
static bool is_read_or_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ ||
	       opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Requests the responder keeps a resource for (to answer a duplicate
 * without executing it again): each holds one of the QP's max_rd_atomic
 * credits until it completes, and a fenced WQE waits for them.  An
 * ATOMIC WRITE is one, as IBTA 1.5 and stock rxe have it.
 */
static bool takes_rd_credit(u32 opcode)
{
	return is_read_or_atomic(opcode) || opcode == IRN_WR_ATOMIC_WRITE;
}

/* Messages that consume a receive WQE at the responder. */
static bool uses_rwqe(u32 opcode)
{
	return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
	       opcode == IB_WR_SEND_WITH_INV ||
	       opcode == IB_WR_RDMA_WRITE_WITH_IMM;
}

static bool is_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * ATOMIC WRITE: the rxe provider writes its 8 bytes into the WQE itself,
 * where inline data goes (dma.atomic_wr in 6.2's rdma_user_rxe.h, the
 * same bytes as dma.inline_data), with dma.length 8 and no SGE.  They are
 * taken once: a retransmission sends what was posted.  The send queue's
 * slots hold at least one SGE (init_rings()), so the 8 bytes are inside
 * the slot.
 */
static enum ib_wc_status snapshot_atomic_write(const struct irn_qp *qp,
					       const struct rxe_send_wqe *slot,
					       struct irn_swqe *w)
{
	if (READ_ONCE(slot->dma.length) != IRN_ATOMIC_WRITE_LEN)
		return IB_WC_LOC_LEN_ERR;
	if (qp->sq.max_inline < IRN_ATOMIC_WRITE_LEN)
		return IB_WC_LOC_QP_OP_ERR;
	BUILD_BUG_ON(sizeof(w->aw_data) != IRN_ATOMIC_WRITE_LEN);
	memcpy(&w->aw_data, slot->dma.inline_data, IRN_ATOMIC_WRITE_LEN);
	w->length = IRN_ATOMIC_WRITE_LEN;
	return IB_WC_SUCCESS;
}

/* Sum of the SGE lengths, read from the (possibly hostile) ring once. */
static int sge_total(const struct rxe_send_wqe *slot, u32 num_sge, u32 *len)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		total += READ_ONCE(slot->dma.sge[i].length);
	if (total > SZ_2G)
		return -EINVAL;
	*len = total;
	return 0;
}

static void copy_wr(struct irn_swqe *w, const struct rxe_send_wr *wr)
{
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	w->ex = wr->ex.invalidate_rkey;
	switch (w->opcode) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
		w->rkey = wr->wr.atomic.rkey;
		break;
	case IB_WR_REG_MR:
		w->reg_mr = (struct irn_mr *)wr->wr.reg.mr;
		w->reg_key = wr->wr.reg.key;
		w->reg_access = wr->wr.reg.access;
		break;
	case IB_WR_BIND_MW:
		w->mw_addr = wr->wr.mw.addr;
		w->mw_length = wr->wr.mw.length;
		w->mw_mr_lkey = wr->wr.mw.mr_lkey;
		w->mw_rkey = wr->wr.mw.mw_rkey;
		w->mw_new_rkey = wr->wr.mw.rkey;
		w->mw_access = wr->wr.mw.access;
		break;
	default:
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
		w->ud_qpn = wr->wr.ud.remote_qpn;
		w->ud_qkey = wr->wr.ud.remote_qkey;
		w->ah_num = wr->wr.ud.ah_num;
		break;
	}
}

/*
 * Take the WQE at @index out of the ring and check it.  Everything in a
 * user ring is hostile: opcode, counts and lengths are bounded here, keys
 * and addresses when packets are built.
 */
static enum ib_wc_status snapshot(struct irn_qp *qp, u32 index,
				  struct irn_swqe *w)
{
	const struct rxe_send_wqe *slot = irn_qp_sq_slot(qp, index);
	struct rxe_send_wr wr;
	u32 num_sge;

	memcpy(&wr, &slot->wr, sizeof(wr));
	memset(w, 0, sizeof(*w));
	copy_wr(w, &wr);
	w->state = IRN_SWQE_SENDING;
	if (!opcode_allowed(qp, w->opcode))
		return IB_WC_LOC_QP_OP_ERR;
	if (w->opcode == IRN_WR_ATOMIC_WRITE)
		return snapshot_atomic_write(qp, slot, w);

	num_sge = READ_ONCE(slot->dma.num_sge);
	if (w->send_flags & IB_SEND_INLINE) {
		w->length = READ_ONCE(slot->dma.length);
		if (w->length > qp->sq.max_inline)
			return IB_WC_LOC_LEN_ERR;
	} else {
		if (num_sge > qp->sq.max_sge)
			return IB_WC_LOC_QP_OP_ERR;
		w->num_sge = num_sge;
		if (sge_total(slot, num_sge, &w->length))
			return IB_WC_LOC_LEN_ERR;
	}
	if (is_atomic(w->opcode) &&
	    (w->length < sizeof(u64) || (w->remote_addr & 7)))
		return IB_WC_LOC_LEN_ERR;
	if (irn_qp_is_ud(qp) && w->length > qp->mtu)
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_SUCCESS;
}

static u32 wqe_packets(const struct irn_qp *qp, const struct irn_swqe *w)
{
	if (is_atomic(w->opcode) || w->opcode == IRN_WR_ATOMIC_WRITE ||
	    irn_swqe_is_local(w))
		return 1;
	return max_t(u32, DIV_ROUND_UP(w->length, qp->mtu), 1);
}

static void fail_wqe(struct irn_qp *qp, struct irn_swqe *w,
		     enum ib_wc_status status)
{
	w->status = status;
	w->state = IRN_SWQE_DONE;
}

/* Publish that WQEs before @next are ready for the completer. */
static void advance_next(struct irn_qp *qp)
{
	qp->req.offset = 0;
	/* Pairs with the completer's load-acquire of req.next. */
	smp_store_release(&qp->req.next, qp->req.next + 1);
}

/*
 * Go back to the PSN the completer asked for.  Under sq_pos_lock: the
 * completer cannot retire the WQE chosen here before req.next points at
 * it, after which it no longer retires it (see retire() in irn_comp.c).
 */
static void check_rewind(struct irn_qp *qp)
{
	int rewind = atomic_xchg(&qp->rewind, 0);
	u32 psn = rewind & IRN_PSN_MASK, una;
	struct irn_swqe *w;
	u32 i;

	if (!rewind)
		return;
	spin_lock_bh(&qp->sq_pos_lock);
	/* ACKs may have come since the completer asked: not before them. */
	una = READ_ONCE(qp->comp.psn);
	if (irn_psn_before(psn, una))
		psn = una;
	/* Up to and including the WQE being sent, if one is. */
	w = irn_qp_wqe_of_psn(qp, psn, &i);
	if (w) {
		bool irn = irn_qp_irn_on(qp);

		trace_irn_rewind(irn_qp_num(qp), psn, qp->req.psn, irn);
		/*
		 * All that was sent goes again, up to req.high: req.psn is
		 * behind it when a rewind comes during an earlier one.
		 */
		if (irn) {
			spin_lock_bh(&qp->irn.sb_lock);
			irn_sb_rewound(&qp->irn.sb, psn, qp->req.high);
			spin_unlock_bh(&qp->irn.sb_lock);
		}
		/* Read by the completer: its D-SACKs are no reordering. */
		WRITE_ONCE(qp->req.rewind_end, qp->req.high);
		WRITE_ONCE(qp->req.next, i);
		qp->req.psn = psn;
		qp->req.offset = irn_psn_diff(psn, w->first_psn) * qp->mtu;
		w->state = IRN_SWQE_SENDING;
		w->resent = true;
	}
	spin_unlock_bh(&qp->sq_pos_lock);
}

/*
 * The QP is in the error state, or (UC, UD) the send queue error state:
 * hand every WQE not yet finished to the completer, as flushed unless the
 * completer already failed it, and let it report them.  Only the
 * requester moves req.next, so no WQE is missed or handed over twice.
 */
static void flush_unsent(struct irn_qp *qp)
{
	u32 index = qp->req.next;
	struct irn_swqe *w;

	atomic_set(&qp->rewind, 0);
	/* The state was read before the failure the completer left. */
	smp_rmb();
	/* The ring is walked up to the producer, never past a full ring. */
	while ((index & qp->sq.queue.mask) != irn_wq_producer(&qp->sq) &&
	       index - READ_ONCE(qp->comp.head) <= qp->sq.queue.mask) {
		w = &qp->swqe[index & qp->sq.queue.mask];
		if (w->state == IRN_SWQE_NEW) {
			memset(w, 0, sizeof(*w));
			w->wr_id = READ_ONCE(irn_qp_sq_slot(qp, index)->wr.wr_id);
		}
		if (!READ_ONCE(w->status))
			w->status = IB_WC_WR_FLUSH_ERR;
		w->state = IRN_SWQE_DONE;
		advance_next(qp);
		index++;
	}
	irn_task_run(&qp->comp_task);
}

static enum req_state next_wqe(struct irn_qp *qp, struct irn_swqe **wp)
{
	u32 index = qp->req.next;
	struct irn_swqe *w;
	enum ib_wc_status status;

	if ((index & qp->sq.queue.mask) == irn_wq_producer(&qp->sq) ||
	    index - qp->comp.head > qp->sq.queue.mask)
		return REQ_DONE_IDLE;
	w = &qp->swqe[index & qp->sq.queue.mask];
	*wp = w;
	if (w->state != IRN_SWQE_NEW) {
		/*
		 * Walked again after a go-back-N rewind to an earlier WQE:
		 * it is being sent again, as the rewind's own WQE is.  Left
		 * SENT, the completer (head_wqe()) and the resends
		 * (irn_qp_wqe_of_psn()) would not see it while req.next
		 * points at it: its lost packets were neither timed out nor
		 * resent, and the QP hung.  retire() leaves it alone.
		 */
		if (w->state == IRN_SWQE_SENT)
			WRITE_ONCE(w->state, IRN_SWQE_SENDING);
		return irn_swqe_is_local(w) ? REQ_LOCAL_OP : REQ_CHECK_WINDOW;
	}

	status = snapshot(qp, index, w);
	w->first_psn = qp->req.psn;
	if (status != IB_WC_SUCCESS) {
		fail_wqe(qp, w, status);
		advance_next(qp);
		irn_task_run(&qp->comp_task);
		return REQ_DONE_IDLE;
	}
	w->last_psn = irn_psn_add(w->first_psn, wqe_packets(qp, w) - 1);
	w->rsn = qp->req.rsn;
	if (uses_rwqe(w->opcode))
		qp->req.rsn++;
	return irn_swqe_is_local(w) ? REQ_LOCAL_OP : REQ_CHECK_WINDOW;
}

static enum ib_wc_status bind_mw(struct irn_qp *qp, struct irn_swqe *w)
{
	struct rxe_send_wr wr = { .opcode = IB_WR_BIND_MW };

	wr.wr.mw.addr = w->mw_addr;
	wr.wr.mw.length = w->mw_length;
	wr.wr.mw.mr_lkey = w->mw_mr_lkey;
	wr.wr.mw.mw_rkey = w->mw_rkey;
	wr.wr.mw.rkey = w->mw_new_rkey;
	wr.wr.mw.access = w->mw_access;
	return irn_mw_bind(qp->dev, qp->ib_qp.pd, irn_qp_num(qp), &wr);
}

static enum req_state local_op(struct irn_qp *qp, struct irn_swqe *w)
{
	enum ib_wc_status status;

	/*
	 * Walked again after a go-back-N rewind to an earlier WQE: it was
	 * executed already and only waits to complete in order.
	 */
	if (w->state == IRN_SWQE_DONE) {
		advance_next(qp);
		return REQ_DONE_MORE;
	}
	/*
	 * LOCAL_INV, BIND_MW and fenced WQEs wait for every earlier WQE to
	 * complete.  An unfenced REG_MR runs in posting order without
	 * waiting (as rxe does): it can only make an invalid MR valid, so
	 * earlier WQEs cannot notice; its completion still comes in order,
	 * the completer retires DONE WQEs behind the unacknowledged ones.
	 * Waiting for the ACK of every earlier send cost a round trip per
	 * fast registration (NVMe-oF reads: REG_MR then the command SEND).
	 */
	if (qp->comp.head != qp->req.next &&
	    (w->opcode != IB_WR_REG_MR || (w->send_flags & IB_SEND_FENCE)))
		return REQ_DONE_IDLE;
	if (w->opcode == IB_WR_LOCAL_INV)
		status = irn_mr_invalidate(qp->dev, w->ex, qp->ib_qp.pd) ?
			 IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	else if (w->opcode == IB_WR_BIND_MW)
		status = bind_mw(qp, w);
	else
		status = irn_mr_fast_register(w->reg_mr, w->reg_key,
					      w->reg_access) ?
			 IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	fail_wqe(qp, w, status);
	advance_next(qp);
	irn_task_run(&qp->comp_task);
	return REQ_DONE_MORE;
}

/*
 * Packets in the network as the flow's window counts them.  Under a
 * window that congestion control narrowed (irn_flow_narrowed()), those a
 * timeout found lost and that are not resent yet have left it (RFC
 * 6675's pipe); their resends enter it as they go.
 */
static u32 pipe(struct irn_qp *qp)
{
	u32 n = irn_qp_outstanding(qp), lost;

	if (!irn_qp_irn_on(qp) || !irn_flow_narrowed(&qp->flow))
		return n;
	spin_lock_bh(&qp->irn.sb_lock);
	lost = irn_sb_lost_waiting(&qp->irn.sb);
	spin_unlock_bh(&qp->irn.sb_lock);
	return n - min(n, lost);
}

/*
 * The flow window is full.  After a rewind the next PSN can lie a little
 * behind una (ACKs that crossed it): irn_qp_inflight() counts that as 0,
 * so those packets are resent as duplicates, never waited for.  With IRN
 * the window counts packets in the network, and the span from una stays
 * within what the scoreboard tracks.
 */
static bool window_full(struct irn_qp *qp)
{
	bool irn = irn_qp_irn_on(qp);

	return !irn_flow_window_open(&qp->flow, pipe(qp), irn_qp_inflight(qp),
				     irn ? qp->irn.sb.size : U32_MAX);
}

static enum req_state check_window(struct irn_qp *qp, struct irn_swqe *w)
{
	bool first = qp->req.offset == 0;

	if (irn_txsock_full(qp))
		return REQ_DONE_IDLE;
	if (!irn_qp_is_rc(qp))
		return REQ_SEND;
	if (window_full(qp))
		return REQ_DONE_IDLE;
	if (first && (w->send_flags & IB_SEND_FENCE) &&
	    atomic_read(&qp->req.rd_atomic) && !w->rd_credit)
		return REQ_DONE_IDLE;
	if (takes_rd_credit(w->opcode) && !w->rd_credit) {
		if (atomic_read(&qp->req.rd_atomic) >= qp->max_rd_atomic)
			return REQ_DONE_IDLE;
		atomic_inc(&qp->req.rd_atomic);
		w->rd_credit = true;
	}
	return REQ_SEND;
}

static u8 wire_opcode(const struct irn_qp *qp, const struct irn_swqe *w,
		      bool first, bool last)
{
	u8 base = irn_qp_is_rc(qp) ? IB_OPCODE_RC :
		  irn_qp_is_ud(qp) ? IB_OPCODE_UD : IB_OPCODE_UC;
	u8 pos = first && last ? 0 : first ? 1 : last ? 2 : 3;
	static const u8 send[] = { IB_OPCODE_SEND_ONLY, IB_OPCODE_SEND_FIRST,
				   IB_OPCODE_SEND_LAST,
				   IB_OPCODE_SEND_MIDDLE };
	static const u8 write[] = { IB_OPCODE_RDMA_WRITE_ONLY,
				    IB_OPCODE_RDMA_WRITE_FIRST,
				    IB_OPCODE_RDMA_WRITE_LAST,
				    IB_OPCODE_RDMA_WRITE_MIDDLE };

	switch (w->opcode) {
	case IB_WR_SEND_WITH_IMM:
		if (last)
			return base | (first ?
				IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE :
				IB_OPCODE_SEND_LAST_WITH_IMMEDIATE);
		return base | send[pos];
	case IB_WR_SEND_WITH_INV:
		if (last)
			return base | (first ?
				IB_OPCODE_SEND_ONLY_WITH_INVALIDATE :
				IB_OPCODE_SEND_LAST_WITH_INVALIDATE);
		return base | send[pos];
	case IB_WR_RDMA_WRITE:
		return base | write[pos];
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (last)
			return base | (first ?
				IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
				IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE);
		return base | write[pos];
	case IB_WR_RDMA_READ:
		return base | IB_OPCODE_RDMA_READ_REQUEST;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return base | IB_OPCODE_COMPARE_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return base | IB_OPCODE_FETCH_ADD;
	case IRN_WR_ATOMIC_WRITE:
		return IRN_OPCODE_RC_ATOMIC_WRITE;
	default:
		return base | send[pos];
	}
}

/* Extended headers of a request packet, after the BTH. */
static void fill_ext_hdrs(struct irn_qp *qp, const struct irn_swqe *w,
			  u32 flags, u8 *hdr, u32 offset, u32 read_len)
{
	struct irn_pkt pkt = { .flags = flags };

	if (flags & IRN_HDR_DETH) {
		struct irn_deth *deth = (void *)(hdr +
				irn_pkt_hdr_offset(&pkt, IRN_HDR_DETH));
		u32 qkey = (w->ud_qkey & BIT(31)) ? qp->qkey : w->ud_qkey;

		deth->qkey = cpu_to_be32(qkey);
		deth->sqp = cpu_to_be32(irn_qp_num(qp));
	}
	if (flags & IRN_HDR_RETH) {
		struct irn_reth *reth = (void *)(hdr +
				irn_pkt_hdr_offset(&pkt, IRN_HDR_RETH));

		reth->va = cpu_to_be64(w->remote_addr + offset);
		reth->rkey = cpu_to_be32(w->rkey);
		reth->len = cpu_to_be32(read_len ?: w->length - offset);
	}
	if (flags & IRN_HDR_ATMETH) {
		struct irn_atmeth *atm = (void *)(hdr +
				irn_pkt_hdr_offset(&pkt, IRN_HDR_ATMETH));

		put_unaligned_be64(w->remote_addr, &atm->va);
		put_unaligned_be32(w->rkey, &atm->rkey);
		if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			put_unaligned_be64(w->swap, &atm->swap_add);
			put_unaligned_be64(w->compare_add, &atm->compare);
		} else {
			put_unaligned_be64(w->compare_add, &atm->swap_add);
			put_unaligned_be64(0, &atm->compare);
		}
	}
	if (flags & IRN_HDR_IMMDT)
		((struct irn_immdt *)(hdr + irn_pkt_hdr_offset(&pkt,
			IRN_HDR_IMMDT)))->imm = (__force __be32)w->ex;
	if (flags & IRN_HDR_IETH)
		((struct irn_ieth *)(hdr + irn_pkt_hdr_offset(&pkt,
			IRN_HDR_IETH)))->rkey = cpu_to_be32(w->ex);
}

/* The IRN header: where this packet goes, on its own. */
static void fill_ixth(const struct irn_swqe *w, struct irn_ixth *ixth,
		      u32 offset)
{
	bool write = w->opcode == IB_WR_RDMA_WRITE ||
		     w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;

	put_unaligned_be64(write ? w->remote_addr + offset : 0, &ixth->va);
	put_unaligned_be32(write ? w->rkey : 0, &ixth->rkey);
	put_unaligned_be32(offset, &ixth->offset);
	put_unaligned_be32(w->rsn, &ixth->rsn);
}

static enum ib_wc_status fill_payload(struct irn_qp *qp, u32 index,
				      const struct irn_swqe *w, u8 *buf,
				      u32 offset, u32 len)
{
	const struct rxe_send_wqe *slot = irn_qp_sq_slot(qp, index);
	struct irn_copy data = { .buf = buf };

	if (w->opcode == IRN_WR_ATOMIC_WRITE) {
		memcpy(buf, &w->aw_data, len);
		return IB_WC_SUCCESS;
	}
	if (w->send_flags & IB_SEND_INLINE) {
		memcpy(buf, slot->dma.inline_data + offset, len);
		return IB_WC_SUCCESS;
	}
	return irn_mr_copy_sges(qp->dev, qp->ib_qp.pd, slot->dma.sge,
				w->num_sge, offset, &data, len, false);
}

/*
 * Destination of a packet: the QP's address vector, or the AH a UD QP
 * names by number.  Either is freed only after an RCU grace period, so the
 * caller holds rcu_read_lock() from here until the packet is sent.
 */
static struct irn_av *packet_av(struct irn_qp *qp, const struct irn_swqe *w)
{
	if (!irn_qp_is_ud(qp))
		return rcu_dereference(qp->av);
	return irn_ah_lookup(qp->dev, w->ah_num, qp->ib_qp.pd);
}

/*
 * Bytes the next request of a READ asks for.  A large read goes out as
 * several requests of at most half the window each: the responder answers
 * a request in one burst, and only the requester's window keeps such
 * bursts from overrunning the path.
 */
static u32 read_chunk(const struct irn_qp *qp, const struct irn_swqe *w,
		      u32 offset)
{
	u32 chunk_pkts = max(irn_flow_window(&qp->flow) / 2, 1U);
	u32 done_pkts = offset / qp->mtu;

	/*
	 * Chunks have fixed boundaries: a request resent from the middle of
	 * one (after a loss) ends where the original did, as IBTA expects of
	 * a retried read, so the responder sees an exact duplicate.
	 */
	chunk_pkts -= done_pkts % chunk_pkts;
	return min_t(u64, w->length - offset, (u64)chunk_pkts * qp->mtu);
}

/**
 * struct req_pos - which packet to build
 * @index: WQE index (not masked)
 * @psn: its PSN
 * @offset: bytes of the message before it
 * @resend_pkts: 0 for a new packet; for a retransmission, the PSNs it may
 *		 cover (a re-requested read asks for no more than that)
 * @avoid: IRN_PATH_NONE for a new packet; for a retransmission, the path
 *	   its packet was lost on, or IRN_PATH_UNKNOWN (irn_flow_path_pick())
 */
struct req_pos {
	u32	index;
	u32	psn;
	u32	offset;
	u32	resend_pkts;
	u32	avoid;
};

/* Move the requester past a packet it has just built for the first time. */
static void advance_pos(struct irn_qp *qp, struct irn_swqe *w, u32 paylen,
			u32 chunk, bool last, u64 now)
{
	bool read = w->opcode == IB_WR_RDMA_READ;

	/*
	 * A read request takes the PSNs of all its responses; the chunks of
	 * a read cover exactly the PSNs recorded for it, so a read resent
	 * from its middle (after a rewind) ends at the same last PSN and the
	 * WQEs after it keep theirs.  An atomic takes one.
	 */
	if (read)
		qp->req.psn = irn_psn_add(qp->req.psn,
					  max_t(u32, DIV_ROUND_UP(chunk,
								  qp->mtu), 1));
	else if (is_read_or_atomic(w->opcode))
		qp->req.psn = irn_psn_add(w->last_psn, 1);
	else
		qp->req.psn = irn_psn_add(qp->req.psn, 1);
	qp->req.offset += paylen + chunk;
	if (irn_psn_after(qp->req.psn, qp->req.high))
		qp->req.high = qp->req.psn;
	if (last) {
		w->sent_ns = now;
		w->state = irn_qp_is_rc(qp) ? IRN_SWQE_SENT : IRN_SWQE_DONE;
		advance_next(qp);
	}
}

/**
 * struct req_pkt - the shape of one request packet
 * @opcode: its BTH opcode
 * @flags: the headers after the BTH and the operation (irn_opcode_flags())
 * @hdr_len: bytes of the BTH and the extended headers, the IRN header not
 *	     included
 * @paylen: payload bytes
 * @pad: bytes that pad the payload to a multiple of four
 * @chunk: for a read request, the bytes it asks for
 * @read: an RDMA READ request
 * @last: the last packet of its message
 * @irn: the packet carries the IRN header
 */
struct req_pkt {
	u8	opcode;
	u32	flags;
	u32	hdr_len;
	u32	paylen;
	u8	pad;
	u32	chunk;
	bool	read;
	bool	last;
	bool	irn;
};

/* What the packet at @pos carries, from its WQE and the path MTU. */
static void plan_packet(const struct irn_qp *qp, const struct irn_swqe *w,
			const struct req_pos *pos, struct req_pkt *pkt)
{
	bool reads = is_read_or_atomic(w->opcode);
	u32 offset = pos->offset;

	pkt->read = w->opcode == IB_WR_RDMA_READ;
	pkt->chunk = pkt->read ? read_chunk(qp, w, offset) : 0;
	if (pkt->read && pos->resend_pkts)
		pkt->chunk = min(pkt->chunk, pos->resend_pkts * qp->mtu);
	pkt->paylen = reads ? 0 : min(w->length - offset, qp->mtu);
	pkt->pad = (4 - (pkt->paylen & 3)) & 3;
	pkt->last = (reads && !pkt->read) ||
		    offset + pkt->paylen + pkt->chunk >= w->length;
	pkt->opcode = wire_opcode(qp, w, offset == 0, pkt->last);
	pkt->flags = irn_opcode_flags(pkt->opcode);
	pkt->hdr_len = irn_opcode_hdr_len(pkt->opcode);
	pkt->irn = irn_qp_irn_on(qp);
}

/*
 * The packet's BTH, for @path (@seq its number there).  Whether it asks
 * for an ACK is the flow's choice (irn_flow_ask_ack()), which notes the
 * time of the asking.  A sprayed packet counts its place on its path,
 * not in its message: each path asks for acknowledgments of its own,
 * which come back on it (irn_flow_reply_path()) and measure its round
 * trip alone (irn_flow_ack_path()).  Counted by message, two paths taking
 * turns would have one of them ask every time and the other never.
 */
static void fill_bth_fields(struct irn_qp *qp, const struct irn_swqe *w,
			    const struct req_pos *pos,
			    const struct req_pkt *pkt, u32 path, u32 seq,
			    u64 now, struct irn_bth_fields *bth)
{
	u32 nth = path < IRN_PATH_MAX ? seq + 1 : pos->psn - w->first_psn + 1;

	*bth = (struct irn_bth_fields) {
		.opcode = pkt->opcode,
		.se = pkt->last && (w->send_flags & IB_SEND_SOLICITED) &&
		      (pkt->flags & (IRN_OP_SEND | IRN_HDR_IMMDT)),
		.pad = pkt->pad,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = irn_qp_is_ud(qp) ? w->ud_qpn : qp->dest_qpn,
		.psn = pos->psn,
		.irn_cap = qp->irn.mode != IRN_MODE_GBN,
		.irn_ext = pkt->irn,
	};
	bth->ack_req = irn_qp_is_rc(qp) &&
		       irn_flow_ask_ack(&qp->flow,
					pkt->last || pos->resend_pkts, nth,
					path, irn_qp_outstanding(qp) + 1, now);
}

/* Bytes of the packet's headers, from the BTH, the IRN header included. */
static u32 packet_hdr_len(const struct req_pkt *pkt)
{
	return pkt->hdr_len + (pkt->irn ? sizeof(struct irn_ixth) : 0);
}

/*
 * Headers and payload into @skb, from irn_xmit_alloc() for the packet.
 * Return: IB_WC_SUCCESS, or why the payload cannot be read.
 */
static enum ib_wc_status build_packet(struct irn_qp *qp,
				      const struct irn_swqe *w,
				      const struct req_pos *pos,
				      const struct req_pkt *pkt,
				      const struct irn_bth_fields *bth,
				      struct sk_buff *skb)
{
	u32 hdr_len = packet_hdr_len(pkt);
	enum ib_wc_status status;

	irn_bth_encode((struct irn_bth *)skb->data, bth);
	fill_ext_hdrs(qp, w, pkt->flags, skb->data, pos->offset, pkt->chunk);
	if (pkt->irn)
		fill_ixth(w, (struct irn_ixth *)(skb->data + pkt->hdr_len),
			  pos->offset);
	status = fill_payload(qp, pos->index & qp->sq.queue.mask, w,
			      skb->data + hdr_len, pos->offset, pkt->paylen);
	if (status != IB_WC_SUCCESS)
		return status;
	memset(skb->data + hdr_len + pkt->paylen, 0, pkt->pad);
	return IB_WC_SUCCESS;
}

/*
 * A packet about to be sent on @path (@seq its number there; a read's or
 * an atomic's request has none), which asks for an ACK if @asks: the
 * scoreboard learns its PSNs, and may time a new one that asks
 * (irn_sb_asked()); a resent one is counted, and a first one moves the
 * requester past it.
 */
static void account_packet(struct irn_qp *qp, struct irn_swqe *w,
			   const struct req_pos *pos,
			   const struct req_pkt *pkt, u64 now, u32 path,
			   u32 seq, bool asks)
{
	bool resent = pos->resend_pkts ||
		      irn_psn_before(pos->psn, qp->req.high);

	if (pkt->irn) {
		u32 n = pkt->read ?
			max_t(u32, DIV_ROUND_UP(pkt->chunk, qp->mtu), 1) : 1;
		u32 p;

		while (n--) {
			p = irn_psn_add(pos->psn, n);
			irn_sb_sent(&qp->irn.sb, p, now);
			irn_sb_sent_path(&qp->irn.sb, p, path, seq);
		}
		if (asks && path < IRN_PATH_MAX && !resent) {
			spin_lock_bh(&qp->irn.sb_lock);
			irn_sb_asked(&qp->irn.sb, pos->psn, path, now);
			spin_unlock_bh(&qp->irn.sb_lock);
		}
	}
	if (resent) {
		w->resent = true;
		irn_dev_count(qp->dev, IRN_CNT_RETX_PKTS);
	}
	if (!pos->resend_pkts)
		advance_pos(qp, w, pkt->paylen, pkt->chunk, pkt->last, now);
}

static enum ib_wc_status build_and_send(struct irn_qp *qp,
					struct irn_swqe *w,
					const struct req_pos *pos)
{
	struct irn_bth_fields bth;
	enum ib_wc_status status;
	struct req_pkt pkt;
	struct sk_buff *skb;
	struct irn_av *av;
	u32 path, seq;
	u64 now;

	plan_packet(qp, w, pos, &pkt);
	rcu_read_lock();
	av = packet_av(qp, w);
	if (!av) {
		rcu_read_unlock();
		return IB_WC_LOC_QP_OP_ERR;
	}
	/* Without memory the packet is retried like a lost one. */
	skb = irn_xmit_alloc(qp->dev,
			     packet_hdr_len(&pkt) + pkt.paylen + pkt.pad,
			     GFP_ATOMIC);
	if (!skb) {
		rcu_read_unlock();
		return IB_WC_SUCCESS;
	}
	now = ktime_get_ns();
	/*
	 * The path: the base port unless the QP sprays, which it does only
	 * with IRN on (the peer places out of order), and only sends and
	 * writes.  A read's or an atomic's request stays on the base port:
	 * the responder answers them in order, and the scoreboard judges
	 * their replies by the single-path rules.
	 */
	path = irn_flow_path_pick(&qp->flow,
				  pkt.irn && !takes_rd_credit(w->opcode),
				  pos->avoid, now, &seq);
	fill_bth_fields(qp, w, pos, &pkt, path, seq, now, &bth);
	status = build_packet(qp, w, pos, &pkt, &bth, skb);
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		rcu_read_unlock();
		return status;
	}
	/*
	 * Account for the packet before sending it: its response can come
	 * back before irn_xmit() returns (a local peer is processed in the
	 * softirq run when the transmit path re-enables bottom halves).
	 */
	account_packet(qp, w, pos, &pkt, now, path, seq, bth.ack_req);
	if (irn_qp_is_rc(qp))
		irn_comp_arm_rto(qp);
	irn_flow_on_sent(&qp->flow, skb->len, now);
	irn_txsock_own(qp, skb);
	irn_xmit_path(qp->dev, av, skb, irn_flow_tos(&qp->flow, av->tos),
		      path);
	rcu_read_unlock();
	if (pkt.last && !irn_qp_is_rc(qp))
		irn_task_run(&qp->comp_task);
	return IB_WC_SUCCESS;
}

static enum req_state send_packet(struct irn_qp *qp, struct irn_swqe *w)
{
	struct req_pos pos = {
		.index = qp->req.next,
		.psn = qp->req.psn,
		.offset = qp->req.offset,
		.avoid = IRN_PATH_NONE,
	};
	enum ib_wc_status status = build_and_send(qp, w, &pos);

	if (status == IB_WC_SUCCESS)
		return REQ_DONE_MORE;
	fail_wqe(qp, w, status);
	advance_next(qp);
	irn_task_run(&qp->comp_task);
	return REQ_DONE_IDLE;
}

/* PSNs from @psn on, up to @max, not yet delivered. */
static u32 missing_run(struct irn_qp *qp, u32 psn, s32 max)
{
	u32 n = 1;

	while (n < max && !irn_sb_test(&qp->irn.sb, irn_psn_add(psn, n)))
		n++;
	return n;
}

/*
 * IRN loss recovery: resend the oldest lost PSN, if the scoreboard has
 * one.  A lost read response is asked for again from that PSN, for the
 * run of responses still missing, and no further.
 */
static enum req_state retransmit(struct irn_qp *qp)
{
	struct req_pos pos = { .resend_pkts = 1 };
	u32 lost_path = IRN_PATH_NONE, blame = IRN_PATH_NONE, lost_seq;
	struct irn_swqe *w;
	u64 ripe_ns;
	bool lost;

	if (!irn_qp_irn_on(qp) || irn_txsock_full(qp))
		return REQ_NEXT_WQE;
	/*
	 * Under a narrowed window a resend waits for room like a new
	 * packet (the span from una does not grow with it).
	 */
	if (irn_flow_narrowed(&qp->flow) &&
	    !irn_flow_window_open(&qp->flow, pipe(qp), 0, U32_MAX))
		return REQ_NEXT_WQE;
	spin_lock_bh(&qp->irn.sb_lock);
	irn_qp_sb_clock(qp);
	lost = irn_sb_next_lost(&qp->irn.sb, &pos.psn);
	if (lost) {
		w = irn_qp_wqe_of_psn(qp, pos.psn, &pos.index);
		/* A read's later chunks may not have been asked for yet. */
		if (w && w->opcode == IB_WR_RDMA_READ) {
			s32 left = min(irn_psn_diff(w->last_psn, pos.psn) + 1,
				       irn_psn_diff(qp->req.psn, pos.psn));

			pos.resend_pkts = missing_run(qp, pos.psn, left);
		}
		lost_path = irn_sb_path(&qp->irn.sb, pos.psn, &lost_seq);
		blame = irn_sb_loss_path(&qp->irn.sb, pos.psn, &lost_seq);
		irn_sb_mark_resent(&qp->irn.sb, pos.psn, pos.resend_pkts);
	}
	ripe_ns = qp->irn.sb.ripe_ns;
	spin_unlock_bh(&qp->irn.sb_lock);
	/*
	 * The path it was lost on hears of it, unless a timeout found it
	 * lost (charged once, by the completer); the resend avoids the
	 * path it was sent on either way.
	 */
	if (blame != IRN_PATH_NONE)
		irn_flow_on_path_loss(&qp->flow, blame, lost_seq, false,
				      ktime_get_ns());
	pos.avoid = lost_path != IRN_PATH_NONE ? lost_path : IRN_PATH_UNKNOWN;
	/* A loss waiting for the reordering window: look again then. */
	if (ripe_ns)
		hrtimer_start(&qp->irn.reo_timer, ns_to_ktime(ripe_ns),
			      HRTIMER_MODE_ABS_SOFT);
	if (!lost)
		return REQ_NEXT_WQE;
	/*
	 * Gone, or not sent since a rewind began (a timeout during one
	 * finds everything lost): the rewind sends it, a read's request too.
	 */
	if (!w || !irn_psn_before(pos.psn, qp->req.psn))
		return REQ_DONE_MORE;
	pos.offset = irn_psn_diff(pos.psn, w->first_psn) * qp->mtu;
	if (is_atomic(w->opcode))
		pos.offset = 0;
	irn_dev_count(qp->dev, IRN_CNT_SEL_RETX);
	trace_irn_retransmit(irn_qp_num(qp), pos.psn, pos.resend_pkts,
			     READ_ONCE(qp->comp.psn), qp->req.psn);
	if (build_and_send(qp, w, &pos) == IB_WC_SUCCESS &&
	    pos.psn == READ_ONCE(qp->comp.psn))
		irn_comp_restart_rto(qp);
	return REQ_DONE_MORE;
}

/*
 * The flow paces the QP and its next packet is not due yet: look again
 * then, on the pacing timer.
 */
static bool pace_wait(struct irn_qp *qp)
{
	return irn_flow_hold(&qp->flow, &qp->req.pace_timer, ktime_get_ns());
}

/**
 * irn_req_pace_expired() - a paced QP's next packet is due
 * @timer: the QP's req.pace_timer
 *
 * Context: softirq (HRTIMER_MODE_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart irn_req_pace_expired(struct hrtimer *timer)
{
	struct irn_qp *qp = container_of(timer, struct irn_qp, req.pace_timer);

	irn_task_sched(&qp->req_task);
	return HRTIMER_NORESTART;
}

/**
 * irn_req_reo_expired() - a PSN has waited out the reordering window
 * @timer: the QP's irn.reo_timer
 *
 * Context: softirq (HRTIMER_MODE_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart irn_req_reo_expired(struct hrtimer *timer)
{
	struct irn_qp *qp = container_of(timer, struct irn_qp, irn.reo_timer);

	irn_task_sched(&qp->req_task);
	return HRTIMER_NORESTART;
}

/**
 * irn_requester() - requester engine
 * @task: the QP's req_task
 *
 * Context: process or softirq context, or the irn workqueue; one instance
 * per QP at a time.
 * Return: IRN_TASK_MORE after sending a packet, else IRN_TASK_IDLE.
 */
enum irn_task_ret irn_requester(struct irn_task *task)
{
	struct irn_qp *qp = container_of(task, struct irn_qp, req_task);
	enum ib_qp_state qp_state = irn_qp_state(qp);
	enum req_state state = REQ_RETRANSMIT;
	struct irn_swqe *w = NULL;

	if (qp_state == IB_QPS_ERR || qp_state == IB_QPS_SQE) {
		flush_unsent(qp);
		return IRN_TASK_IDLE;
	}
	check_rewind(qp);
	if (irn_qp_state(qp) != IB_QPS_RTS || pace_wait(qp))
		return IRN_TASK_IDLE;

	for (;;) {
		switch (state) {
		case REQ_RETRANSMIT:
			state = retransmit(qp);
			break;
		case REQ_NEXT_WQE:
			state = next_wqe(qp, &w);
			break;
		case REQ_LOCAL_OP:
			state = local_op(qp, w);
			break;
		case REQ_CHECK_WINDOW:
			state = check_window(qp, w);
			break;
		case REQ_SEND:
			state = send_packet(qp, w);
			break;
		case REQ_DONE_MORE:
			return IRN_TASK_MORE;
		case REQ_DONE_IDLE:
			return IRN_TASK_IDLE;
		}
	}
}
