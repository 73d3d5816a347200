/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Queue pairs: the object the three engines share.
 *
 * Ownership of the fields, which is what makes the engines lock-free with
 * respect to each other:
 *
 *  - @req is written by the requester only; @req.next is published with a
 *    store-release once the snapshots before it are complete, and the
 *    completer reads it with a load-acquire.
 *  - @comp is written by the completer only; @comp.head likewise.
 *  - @req.next moving back (a rewind) and @comp.head moving on (a WQE
 *    retired) happen under @sq_pos_lock, and the completer retires only
 *    WQEs before @req.next: @comp.head never passes @req.next, so the
 *    completer never reports a WQE the requester has gone back to or not
 *    finished.  In the error state the requester hands its unfinished
 *    WQEs over, flushed, by moving @req.next past them.
 *  - @resp is the responder's alone.
 *  - A retransmission is asked of the requester through @rewind (written by
 *    the completer, consumed by the requester with xchg()).
 *  - modify_qp runs under @modify_lock, one at a time per QP (uverbs takes
 *    only a shared lock on the QP).  @state changes under @state_lock, in
 *    modify_qp or when an engine moves the QP to an error state.
 *  - @av is replaced by modify_qp under @modify_lock and read under
 *    rcu_read_lock() by whoever sends: the requester, the responder and
 *    the receive path's source check.  An old vector and its route cache
 *    are freed after a grace period.
 *  - IRN: @irn.on is set once, by the completer, with a store-release after
 *    it has reset @irn.sb; the requester reads it with a load-acquire.  The
 *    scoreboard is written by the completer and read and marked (resent
 *    PSNs) by the requester, both under @irn.sb_lock, which nests inside
 *    @sq_pos_lock (a rewind marks the PSNs it sends again).  @resp.win and
 *    @resp.stage are the responder's alone.
 */
#ifndef _IRN_QP_H
#define _IRN_QP_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "irn_av.h"
#include "irn_dev.h"
#include "irn_flow.h"
#include "irn_psn.h"
#include "irn_queue.h"
#include "irn_rxwin.h"
#include "irn_sb.h"
#include "irn_srq.h"
#include "irn_task.h"

struct irn_cq;
struct irn_mr;

/* Progress of a send WQE. */
enum irn_swqe_state {
	IRN_SWQE_NEW,		/* not looked at by the requester yet */
	IRN_SWQE_SENDING,	/* some packets sent */
	IRN_SWQE_SENT,		/* all sent; waiting for the response */
	IRN_SWQE_DONE,		/* completed or failed; completer reports it */
};

/**
 * struct irn_swqe - a send WQE as the engines know it
 *
 * Snapshot of the ring entry, taken once by the requester and validated
 * then; the ring entry itself is never trusted again, except for the SGE
 * list and inline bytes, which are re-read (and re-checked) each time a
 * packet is built.
 */
struct irn_swqe {
	u64		wr_id;
	u32		opcode;		/* IB_WR_* */
	u32		send_flags;	/* IB_SEND_* */
	u32		ex;		/* immediate (wire order) or inv. rkey */
	u32		rkey;
	u64		remote_addr;
	union {
		u64	compare_add;
		u64	aw_data;	/* ATOMIC WRITE: its bytes, as posted */
	};
	u64		swap;
	u32		ud_qpn;
	u32		ud_qkey;
	u32		ah_num;
	u32		length;
	u32		num_sge;
	u32		first_psn;
	u32		last_psn;
	u32		rsn;		/* receive sequence number (IRN) */
	u64		sent_ns;	/* when its last packet first left */
	bool		resent;		/* some packet went out twice */
	u8		state;		/* enum irn_swqe_state */
	u8		status;		/* enum ib_wc_status */
	bool		rd_credit;	/* holds a read/atomic credit */
	struct irn_mr	*reg_mr;	/* REG_MR (kernel QPs only) */
	u32		reg_key;
	int		reg_access;
	u64		mw_addr;	/* BIND_MW */
	u64		mw_length;
	u32		mw_mr_lkey;
	u32		mw_rkey;
	u32		mw_new_rkey;
	u32		mw_access;
};

/*
 * Responder resource: a read, atomic or atomic write kept for duplicate
 * requests.
 */
struct irn_resp_res {
	u8		opcode;		/* request opcode, 0 if unused */
	u32		first_psn;
	u32		last_psn;
	u64		va;
	u32		rkey;
	u32		length;
	u64		atomic_orig;
};

/**
 * struct irn_qp - a queue pair
 */
struct irn_qp {
	struct ib_qp		ib_qp;
	struct irn_dev		*dev;
	refcount_t		refs;		/* table + datapath users */
	struct completion	done;		/* last datapath user gone */
	struct mutex		modify_lock;	/* see the top of this file */
	spinlock_t		state_lock;	/* see the top of this file */
	enum ib_qp_state	state;
	spinlock_t		sq_pos_lock;	/* see the top of this file */
	bool			user;
	bool			sq_sig_all;

	struct irn_wq		sq;
	struct irn_wq		rq;
	struct irn_swqe		*swqe;		/* one per SQ slot */
	struct irn_cq		*scq;
	struct irn_cq		*rcq;
	struct irn_srq		*srq;

	/* Attributes from modify_qp. */
	u32			dest_qpn;
	u32			qkey;
	u32			mtu;		/* path MTU in bytes */
	int			access;		/* remote access allowed */
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	u8			retry_cnt;
	u8			rnr_retry;
	u8			min_rnr_timer;
	u8			timeout;
	struct irn_av __rcu	*av;		/* NULL until modify sets it */
	struct irn_flow		flow;		/* RTT: the completer's; cc: cc_lock */

	struct {
		u8		mode;		/* enum irn_mode, fixed at create */
		bool		on;		/* the requester speaks IRN */
		bool		sack_single;	/* one SACKed PSN per ACK */
		u32		rto_low_ns;
		u32		rto_high_ns;
		spinlock_t	sb_lock;	/* protects sb */
		struct irn_sb	sb;
		struct hrtimer	reo_timer;	/* a loss ripens: look again */
	} irn;

	struct {
		u32		psn;		/* next new PSN */
		u32		next;		/* next WQE to start */
		u32		offset;		/* bytes of it already sent */
		u32		high;		/* PSN after the highest sent */
		u32		rewind_end;	/* @high at the last rewind */
		u32		rsn;		/* messages using a receive WQE */
		atomic_t	rd_atomic;	/* reads/atomics outstanding */
		struct hrtimer	pace_timer;	/* paced: the next packet is due */
	} req;

	struct {
		u32		psn;		/* oldest unacknowledged PSN */
		u32		head;		/* oldest WQE not completed */
		u32		read_offset;	/* bytes of that read placed */
		u32		rto_end;	/* next new PSN at the last IRN RTO */
		u64		progress_ns;	/* last acknowledgment progress */
		u64		rto_spent_ns;	/* the IRN timeout that last fired */
		u64		rto_fired_ns;	/* ... and when it was handled */
		u64		rto_expired_ns;	/* the timer's last expiry */
		u8		backoff;	/* IRN timeouts without progress */
		u8		retry_left;
		u8		rnr_left;
		bool		rewound;	/* asked, no progress since */
		struct hrtimer	rto;
		struct hrtimer	rnr_timer;
		atomic_t	timeout;	/* RTO fired, for the completer */
	} comp;

	/* Retransmit from this PSN (valid when bit 31 set), from the completer. */
	atomic_t		rewind;

	struct {
		u32		epsn;		/* next expected PSN */
		u32		msn;		/* messages completed */
		bool		nak_sent;	/* PSN sequence NAK outstanding */
		bool		in_msg;		/* inside a multi-packet message */
		u8		last_opcode;
		bool		have_rwqe;	/* RQ: rwqe_index taken */
		u32		rwqe_index;
		u32		offset;		/* bytes of the message placed */
		u64		va;		/* RDMA write target */
		u32		rkey;
		u32		resid;
		u32		res_head;
		u32		rsn;		/* receive WQEs completed */
		u8		sack_owed;	/* placed early, not SACKed */
		bool		last_wqe;	/* SRQ: Last WQE Reached sent */
		atomic64_t	cnp_ns;		/* when the last CNP went */
		u16		ack_sport;	/* the IRN request's UDP port, or 0 */
		struct {			/* the read being answered */
			u64	va;
			u32	rkey;
			u32	len;
			u32	psn;		/* of its first response */
			u32	mtu;
			u32	npkts;		/* 0: no read pending */
			u32	next;		/* responses sent */
			bool	drain;		/* IRN drain stopped behind it */
		} rd;
		struct hrtimer	pace_timer;	/* paced: the next response due */
		/* Not cleared by a reset from here on. */
		struct irn_resp_res *res;	/* IRN_MAX_RD_ATOMIC entries */
		struct irn_srq_stage stage;	/* SRQ: WQEs taken */
		struct irn_rxwin win;		/* IRN requests placed */
	} resp;

	struct socket		*tx_sock;	/* owns the requester's skbs */
	atomic_t		tx_inflight;	/* of them not yet freed */

	struct sk_buff_head	resp_pkts;
	struct sk_buff_head	comp_pkts;
	struct irn_task		req_task;
	struct irn_task		resp_task;
	struct irn_task		comp_task;
};

static inline struct irn_qp *to_irn_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct irn_qp, ib_qp);
}

static inline u32 irn_qp_num(const struct irn_qp *qp)
{
	return qp->ib_qp.qp_num;
}

static inline bool irn_qp_is_rc(const struct irn_qp *qp)
{
	return qp->ib_qp.qp_type == IB_QPT_RC;
}

static inline bool irn_qp_is_ud(const struct irn_qp *qp)
{
	return qp->ib_qp.qp_type == IB_QPT_UD ||
	       qp->ib_qp.qp_type == IB_QPT_GSI;
}

/* Local operations take no PSN, though their first_psn is set. */
static inline bool irn_swqe_is_local(const struct irn_swqe *w)
{
	return w->opcode == IB_WR_LOCAL_INV || w->opcode == IB_WR_REG_MR ||
	       w->opcode == IB_WR_BIND_MW;
}

struct irn_qp *irn_qp_lookup(struct irn_dev *dev, u32 qpn);
struct irn_swqe *irn_qp_wqe_in_flight(struct irn_qp *qp, u32 i, u32 next);
struct irn_swqe *irn_qp_wqe_of_psn(struct irn_qp *qp, u32 psn, u32 *index);
void irn_qp_put(struct irn_qp *qp);
void irn_qp_error(struct irn_qp *qp);
void irn_qp_sq_error(struct irn_qp *qp);

/*
 * Can this QP's responder place IRN requests out of order?  Not in gbn
 * mode; such a QP answers IRN requests the standard way.  With an SRQ it
 * can: it stages the WQEs of messages that arrive early (irn_srq_stage).
 */
static inline bool irn_qp_irn_responder(const struct irn_qp *qp)
{
	return irn_qp_is_rc(qp) && qp->resp.win.got &&
	       qp->irn.mode != IRN_MODE_GBN;
}

/*
 * Reordering window of the QP's loss detection: from its RTT once the
 * path was seen to reorder, none before; and before the first RTT sample
 * (a young QP's whole transfer may fit in its first RTT, and nothing
 * could show reordering yet) the floor of the long timeout.
 */
static inline u64 irn_qp_reorder_ns(const struct irn_qp *qp)
{
	if (!qp->flow.srtt_ns)
		return qp->irn.rto_high_ns;
	return irn_flow_reorder_ns(&qp->flow);
}

/*
 * Set the scoreboard's clock for the decisions about to be taken under
 * the scoreboard lock: now, and the reordering window.
 */
static inline void irn_qp_sb_clock(struct irn_qp *qp)
{
	lockdep_assert_held(&qp->irn.sb_lock);
	irn_sb_clock(&qp->irn.sb, ktime_get_ns(), irn_qp_reorder_ns(qp));
	/*
	 * Several paths: how long a PSN passed by other paths' only waits;
	 * never less than the reordering window (ripe_at() in irn_sb.c).
	 */
	if (qp->irn.sb.npaths > 1)
		irn_sb_clock_paths(&qp->irn.sb,
				   irn_flow_path_window_ns(&qp->flow, qp->irn.rto_high_ns));
}

/* Does the requester send IRN requests and recover selectively? */
static inline bool irn_qp_irn_on(const struct irn_qp *qp)
{
	/* Pairs with the completer's store-release. */
	return smp_load_acquire(&qp->irn.on);
}

/* PSNs sent and not cumulatively acknowledged: the span from una. */
static inline u32 irn_qp_inflight(const struct irn_qp *qp)
{
	/* negative for a moment after a rewind behind crossing ACKs */
	return max(irn_psn_diff(READ_ONCE(qp->req.psn),
				READ_ONCE(qp->comp.psn)), 0);
}

/*
 * Packets in the network as far as the requester knows: sent and not
 * acknowledged, cumulatively or (IRN) selectively.  Lock free: the
 * scoreboard's count is read racily, good enough for a window or a timer.
 */
static inline u32 irn_qp_outstanding(const struct irn_qp *qp)
{
	u32 n = irn_qp_inflight(qp);

	if (!irn_qp_irn_on(qp))
		return n;
	return n - min(n, irn_sb_weight(&qp->irn.sb));
}

static inline enum ib_qp_state irn_qp_state(const struct irn_qp *qp)
{
	return READ_ONCE(qp->state);
}

static inline struct rxe_send_wqe *irn_qp_sq_slot(const struct irn_qp *qp,
						  u32 index)
{
	return irn_queue_slot(&qp->sq.queue, index);
}

static inline struct rxe_recv_wqe *irn_qp_rq_slot(const struct irn_qp *qp,
						  u32 index)
{
	return irn_queue_slot(&qp->rq.queue, index);
}

#define IRN_MAX_RD_ATOMIC	16
/* Largest message, as the device reports it (max_msg_sz). */
#define IRN_MAX_MSG_SZ		SZ_2G

#endif /* _IRN_QP_H */
