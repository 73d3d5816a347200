// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pair verbs: creation, attributes and the IBTA state machine,
 * destruction, and the kernel consumers' post_send and post_recv (user
 * space writes its rings directly and only rings the send doorbell).
 */

#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "irn_av.h"
#include "irn_cq.h"
#include "irn_dev.h"
#include "irn_engine.h"
#include "irn_hdr.h"
#include "irn_mcast.h"
#include "irn_psn.h"
#include "irn_qp.h"
#include "irn_qp_verbs.h"
#include "irn_srq.h"
#include "irn_trace.h"
#include "irn_txsock.h"

#define IRN_QPN_MIN		16
/* How long destroy waits for the QP's packets in the local transmit path. */
#define IRN_DESTROY_TX_WAIT	HZ

static size_t sq_elem_size(u32 max_sge, u32 max_inline)
{
	return sizeof(struct rxe_send_wqe) +
	       max_t(size_t, max_sge * sizeof(struct rxe_sge), max_inline);
}

static size_t rq_elem_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

static int check_init(struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* With an SRQ the QP's own receive queue is a single unused slot. */
	if (init->srq) {
		cap->max_recv_wr = 1;
		cap->max_recv_sge = 1;
	}
	/* Zero-sized queues are legal: a QP that only receives or reads. */
	if (cap->max_send_wr > IRN_MAX_QP_WR ||
	    cap->max_recv_wr > IRN_MAX_QP_WR ||
	    cap->max_send_sge > IRN_MAX_SGE ||
	    cap->max_recv_sge > IRN_MAX_SGE ||
	    cap->max_inline_data > IRN_MAX_INLINE)
		return -EINVAL;
	if (udata && udata->inlen)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct rxe_create_qp_resp))
		return -EINVAL;
	return 0;
}

/*
 * Undo init_rings(), or as much of it as was done: the QP came zeroed from
 * the RDMA core, and a ring never set up, or a NULL swqe, frees nothing.
 */
static void free_rings(struct irn_qp *qp)
{
	kvfree(qp->swqe);
	irn_queue_cleanup(&qp->rq.queue);
	irn_queue_cleanup(&qp->sq.queue);
}

static int init_rings(struct irn_qp *qp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;
	struct rxe_create_qp_resp resp = {};
	size_t payload;
	int err;

	cap->max_send_sge = max(cap->max_send_sge, 1U);
	cap->max_recv_sge = max(cap->max_recv_sge, 1U);
	payload = sq_elem_size(cap->max_send_sge, cap->max_inline_data) -
		  sizeof(struct rxe_send_wqe);
	/* The rings' real room, which the provider sizes its checks by. */
	cap->max_send_sge = payload / sizeof(struct rxe_sge);
	cap->max_inline_data = payload;
	qp->sq.max_wr = cap->max_send_wr;
	qp->sq.max_sge = cap->max_send_sge;
	qp->sq.max_inline = cap->max_inline_data;
	qp->rq.max_wr = cap->max_recv_wr;
	qp->rq.max_sge = cap->max_recv_sge;

	err = irn_queue_init(&qp->sq.queue, cap->max_send_wr,
			     sizeof(struct rxe_send_wqe) + payload, qp->user);
	if (err)
		return err;
	err = irn_queue_init(&qp->rq.queue, cap->max_recv_wr,
			     rq_elem_size(cap->max_recv_sge), qp->user);
	if (err)
		goto err_free_rings;
	/* Report what the rings really hold: users fill them to that. */
	cap->max_send_wr = irn_queue_capacity(&qp->sq.queue);
	cap->max_recv_wr = irn_queue_capacity(&qp->rq.queue);
	qp->sq.max_wr = cap->max_send_wr;
	qp->rq.max_wr = cap->max_recv_wr;
	qp->swqe = kvcalloc(qp->sq.queue.mask + 1, sizeof(*qp->swqe),
			    GFP_KERNEL);
	if (!qp->swqe) {
		err = -ENOMEM;
		goto err_free_rings;
	}
	if (!udata)
		return 0;

	err = irn_queue_map(&qp->sq.queue, udata, &resp.sq_mi);
	if (err)
		goto err_free_rings;
	err = irn_queue_map(&qp->rq.queue, udata, &resp.rq_mi);
	if (err)
		goto err_free_rings;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_free_rings;
	return 0;

err_free_rings:
	free_rings(qp);
	return err;
}

static void init_engines(struct irn_qp *qp)
{
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	irn_task_init(&qp->req_task, irn_requester);
	irn_task_init(&qp->resp_task, irn_responder);
	irn_task_init(&qp->comp_task, irn_completer);
	hrtimer_init(&qp->comp.rto, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->comp.rto.function = irn_comp_rto_expired;
	hrtimer_init(&qp->comp.rnr_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_SOFT);
	qp->comp.rnr_timer.function = irn_comp_rnr_expired;
	hrtimer_init(&qp->irn.reo_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->irn.reo_timer.function = irn_req_reo_expired;
	hrtimer_init(&qp->req.pace_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	qp->req.pace_timer.function = irn_req_pace_expired;
	hrtimer_init(&qp->resp.pace_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	qp->resp.pace_timer.function = irn_resp_pace_expired;
	atomic_set(&qp->rewind, 0);
	atomic_set(&qp->comp.timeout, 0);
	atomic_set(&qp->req.rd_atomic, 0);
}

static int publish_qpn(struct irn_dev *dev, struct irn_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->ib_qp.qp_type == IB_QPT_GSI) {
		if (rcu_access_pointer(dev->gsi))
			return -EBUSY;
		qp->ib_qp.qp_num = 1;
		rcu_assign_pointer(dev->gsi, qp);
		return 0;
	}
	err = xa_alloc_cyclic(&dev->qps, &qpn, qp,
			      XA_LIMIT(IRN_QPN_MIN, IRN_MAX_QP + IRN_QPN_MIN),
			      &dev->qp_next, GFP_KERNEL);
	if (err < 0)
		return err;
	qp->ib_qp.qp_num = qpn;
	return 0;
}

/*
 * IRN settings of a new QP, from the device's knobs at this moment.  Only
 * RC QPs speak IRN; a forced `irn` QP speaks it from its first packet.
 */
static void init_irn(struct irn_qp *qp, const struct irn_tunables *tun)
{
	u32 mode = READ_ONCE(tun->mode);

	qp->irn.mode = irn_qp_is_rc(qp) && mode <= IRN_MODE_IRN ? mode :
		       IRN_MODE_GBN;
	qp->irn.on = qp->irn.mode == IRN_MODE_IRN;
	qp->irn.rto_low_ns = READ_ONCE(tun->rto_low_us) * NSEC_PER_USEC;
	qp->irn.rto_high_ns = READ_ONCE(tun->rto_high_us) * NSEC_PER_USEC;
	qp->irn.sack_single = READ_ONCE(tun->sack_single);
	spin_lock_init(&qp->irn.sb_lock);
	irn_flow_init(&qp->flow, clamp_t(u32, READ_ONCE(tun->cap),
					 IRN_CAP_MIN, IRN_CAP_MAX));
	qp->flow.reo_q = clamp_t(u32, READ_ONCE(qp->dev->reo_q),
				 IRN_FLOW_REO_MIN_Q, IRN_FLOW_REO_MAX_Q);
	if (READ_ONCE(qp->dev->reord))
		irn_flow_on_reorder(&qp->flow);
	/*
	 * Only a QP that can speak IRN may spray; it does once IRN is on
	 * (irn_flow_path_pick()).  The others have the base port alone.
	 */
	irn_flow_path_init(&qp->flow, qp->irn.mode != IRN_MODE_GBN ?
			   READ_ONCE(tun->paths) : 1, qp->dev->stats);
}

/**
 * irn_qp_create() - ib_device_ops.create_qp
 * @ibqp: QP allocated by the RDMA core
 * @init: type, CQs and capabilities; the real capabilities are written back
 * @udata: rxe provider response (struct rxe_create_qp_resp), or NULL
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct irn_dev *dev = to_irn_dev(ibqp->device);
	struct irn_qp *qp = to_irn_qp(ibqp);
	int err;

	err = check_init(init, udata);
	if (err)
		return err;
	qp->dev = dev;
	qp->user = udata;
	qp->scq = to_irn_cq(init->send_cq);
	qp->rcq = to_irn_cq(init->recv_cq);
	qp->srq = init->srq ? to_irn_srq(init->srq) : NULL;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->state = IB_QPS_RESET;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_256);
	refcount_set(&qp->refs, 1);
	init_completion(&qp->done);
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_pos_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	init_engines(qp);
	init_irn(qp, &dev->tun);

	if (irn_qp_is_rc(qp)) {
		/*
		 * The window counts packets in the network, not the span
		 * from una (irn_flow_window_open()): leave room for losses,
		 * eight windows (design.rst, Window sizes).
		 */
		err = irn_sb_init(&qp->irn.sb,
				  min(8 * qp->flow.cap, 2 * IRN_CAP_MAX),
				  GFP_KERNEL);
		if (err)
			return err;
		err = irn_sb_paths_init(&qp->irn.sb, irn_flow_paths(&qp->flow),
					GFP_KERNEL);
		if (err)
			goto err_free_sb;
		if (qp->irn.mode != IRN_MODE_GBN) {
			/* A SACK reports the whole window (irn_hdr.h). */
			BUILD_BUG_ON(IRN_SACK_BITS < 2 * IRN_CAP_MAX - 1);
			err = irn_rxwin_init(&qp->resp.win, 2 * IRN_CAP_MAX,
					     GFP_KERNEL);
			if (err)
				goto err_free_sb;
		}
	}
	qp->resp.res = kcalloc(IRN_MAX_RD_ATOMIC, sizeof(*qp->resp.res),
			       GFP_KERNEL);
	if (!qp->resp.res) {
		err = -ENOMEM;
		goto err_free_rxwin;
	}
	if (qp->srq) {
		/*
		 * Placing out of order takes WQEs ahead (irn_srq_stage): as
		 * many messages as the receiver window has PSNs.
		 */
		err = irn_srq_stage_init(&qp->resp.stage, qp->srq,
					 qp->resp.win.got ?
					 qp->resp.win.size : 1);
		if (err)
			goto err_free_res;
	}
	err = init_rings(qp, init, udata);
	if (err)
		goto err_free_stage;
	err = irn_txsock_create(qp);
	if (err)
		goto err_free_rings;
	if (ibqp->qp_type == IB_QPT_GSI)
		qp->qkey = IB_QP1_QKEY;
	err = publish_qpn(dev, qp);
	if (err)
		goto err_release_sock;
	/* Congestion control names the QP in its tracepoint. */
	if (irn_qp_is_rc(qp))
		irn_flow_cc_start(&qp->flow, &dev->tun.cc, irn_qp_num(qp),
				  ktime_get_ns());
	return 0;

err_release_sock:
	irn_txsock_release(qp);
err_free_rings:
	free_rings(qp);
err_free_stage:
	irn_srq_stage_free(&qp->resp.stage);
err_free_res:
	kfree(qp->resp.res);
err_free_rxwin:
	irn_rxwin_free(&qp->resp.win);
err_free_sb:
	irn_sb_free(&qp->irn.sb);
	return err;
}

/*
 * Stop the engines and their timers.  A timer that fired before it was
 * cancelled, a packet received or a transmitted packet freed meanwhile can
 * still have asked for an engine run: flush_engines() waits for those once
 * nothing can ask any more.
 */
static void cancel_timers(struct irn_qp *qp)
{
	hrtimer_cancel(&qp->comp.rto);
	hrtimer_cancel(&qp->comp.rnr_timer);
	hrtimer_cancel(&qp->irn.reo_timer);
	hrtimer_cancel(&qp->req.pace_timer);
	hrtimer_cancel(&qp->resp.pace_timer);
}

static void stop_engines(struct irn_qp *qp)
{
	irn_task_disable(&qp->req_task);
	irn_task_disable(&qp->comp_task);
	irn_task_disable(&qp->resp_task);
	cancel_timers(qp);
}

static void flush_engines(struct irn_qp *qp)
{
	irn_task_flush(&qp->req_task);
	irn_task_flush(&qp->comp_task);
	irn_task_flush(&qp->resp_task);
	/* A straggling run may have armed one again. */
	cancel_timers(qp);
}

/*
 * Back to a freshly created QP: rings empty, engines idle.  The QP is in
 * the reset state already, so the receive path no longer queues packets
 * for it once the readers that saw the old state are gone.
 */
static void reset_qp(struct irn_qp *qp)
{
	stop_engines(qp);
	/* Receivers that saw the old state have queued what they had. */
	synchronize_rcu();
	flush_engines(qp);
	skb_queue_purge(&qp->resp_pkts);
	skb_queue_purge(&qp->comp_pkts);
	memset(&qp->req, 0, sizeof(qp->req));
	qp->comp.head = 0;
	qp->comp.read_offset = 0;
	qp->comp.backoff = 0;
	qp->comp.rto_spent_ns = 0;
	memset(&qp->resp, 0, offsetof(typeof(qp->resp), res));
	/* res, stage and win stay allocated; what a reset drops is lost. */
	memset(qp->resp.res, 0, IRN_MAX_RD_ATOMIC * sizeof(*qp->resp.res));
	qp->resp.stage.count = 0;
	memset(qp->swqe, 0, (qp->sq.queue.mask + 1) * sizeof(*qp->swqe));
	qp->sq.queue.index = 0;
	qp->rq.queue.index = 0;
	qp->sq.queue.buf->producer_index = 0;
	qp->sq.queue.buf->consumer_index = 0;
	qp->rq.queue.buf->producer_index = 0;
	qp->rq.queue.buf->consumer_index = 0;
	irn_flow_init(&qp->flow, qp->flow.cap);
	irn_flow_path_reset(&qp->flow);
	if (irn_qp_is_rc(qp))
		irn_flow_cc_start(&qp->flow, &qp->dev->tun.cc,
				  irn_qp_num(qp), ktime_get_ns());
	qp->irn.on = qp->irn.mode == IRN_MODE_IRN;
	if (qp->irn.sb.got)
		irn_sb_reset(&qp->irn.sb, 0);
	if (qp->resp.win.got)
		irn_rxwin_reset(&qp->resp.win);
	/* Last: the engines may run again from here on. */
	init_engines(qp);
}

/*
 * A new address vector replaces the old one whole: the engines and the
 * receive path may be using the old one (an SQD QP keeps receiving and
 * responding), and free it only after a grace period.
 */
static int apply_av(struct irn_qp *qp, struct ib_qp_attr *attr, int mask)
{
	u32 rqpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num : qp->dest_qpn;
	struct irn_av *av, *old;
	int err;

	lockdep_assert_held(&qp->modify_lock);
	av = kmalloc(sizeof(*av), GFP_KERNEL);
	if (!av)
		return -ENOMEM;
	err = irn_av_init(av, &attr->ah_attr, irn_qp_num(qp), rqpn,
			  GFP_KERNEL);
	if (err) {
		kfree(av);
		return err;
	}
	/* A route cache per path: each lookup carries its path's port. */
	err = irn_av_init_paths(av, irn_flow_paths(&qp->flow), GFP_KERNEL);
	if (err) {
		irn_av_cleanup(av);
		kfree(av);
		return err;
	}
	old = rcu_replace_pointer(qp->av, av,
				  lockdep_is_held(&qp->modify_lock));
	if (old)
		irn_av_free(old);
	return 0;
}

static void apply_attrs(struct irn_qp *qp, struct ib_qp_attr *attr, int mask)
{
	enum ib_mtu port_mtu = irn_mtu_from_netdev(READ_ONCE(qp->dev->ndev->mtu));

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	/* UD messages are bounded by the port MTU, there is no path MTU. */
	if (irn_qp_is_ud(qp))
		qp->mtu = ib_mtu_enum_to_int(port_mtu);
	else if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(min(attr->path_mtu, port_mtu));
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT) {
		qp->retry_cnt = attr->retry_cnt;
		qp->comp.retry_left = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		qp->rnr_retry = attr->rnr_retry;
		qp->comp.rnr_left = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_RQ_PSN) {
		qp->resp.epsn = attr->rq_psn & IRN_PSN_MASK;
		if (qp->resp.win.got)
			irn_rxwin_reset(&qp->resp.win);
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->req.psn = attr->sq_psn & IRN_PSN_MASK;
		qp->req.high = qp->req.psn;
		/* No blind resend yet (resent_blindly() in irn_comp.c). */
		qp->req.rewind_end = qp->req.psn;
		qp->comp.rto_end = qp->req.psn;
		qp->comp.psn = qp->req.psn;
		if (qp->irn.sb.got)
			irn_sb_reset(&qp->irn.sb, qp->req.psn);
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = clamp_t(u8, attr->max_rd_atomic, 1,
					    IRN_MAX_RD_ATOMIC);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = min_t(u8, attr->max_dest_rd_atomic,
					       IRN_MAX_RD_ATOMIC);
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num & IRN_PSN_MASK;
}

/*
 * Move from @cur to @state, unless an engine has failed the QP since
 * modify_qp read @cur: the error stands (a reset always succeeds).
 */
static void set_state(struct irn_qp *qp, enum ib_qp_state cur,
		      enum ib_qp_state state)
{
	spin_lock_irq(&qp->state_lock);
	if (state == IB_QPS_RESET || qp->state == cur ||
	    (qp->state != IB_QPS_ERR && qp->state != IB_QPS_SQE))
		WRITE_ONCE(qp->state, state);
	spin_unlock_irq(&qp->state_lock);
}

static int modify_locked(struct irn_qp *qp, struct ib_qp_attr *attr,
			 int mask)
{
	enum ib_qp_state cur = irn_qp_state(qp);
	enum ib_qp_state next = mask & IB_QP_STATE ? attr->qp_state : cur;
	int err;

	lockdep_assert_held(&qp->modify_lock);
	if (mask & IB_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	if (!ib_modify_qp_is_ok(cur, next, qp->ib_qp.qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != IRN_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_LOCAL_WRITE)))
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV) {
		err = apply_av(qp, attr, mask);
		if (err)
			return err;
	}
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET) {
		/* Packets are refused from here on; then the QP is emptied. */
		set_state(qp, cur, IB_QPS_RESET);
		reset_qp(qp);
	}
	/* The attributes first: a packet taken in the new state uses them. */
	apply_attrs(qp, attr, mask);
	if (next == IB_QPS_ERR)
		irn_qp_error(qp);
	else
		set_state(qp, cur, next);
	if (next == IB_QPS_RTS)
		irn_task_run(&qp->req_task);
	return 0;
}

/**
 * irn_qp_modify() - ib_device_ops.modify_qp
 * @ibqp: QP
 * @attr: new attributes
 * @mask: IB_QP_* attributes to change
 * @udata: the rxe provider sends none
 *
 * Context: process context, may sleep.  Takes the QP's modify_lock.
 * Return: 0 or a negative errno; on error nothing changed.
 */
int irn_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	int err;

	mutex_lock(&qp->modify_lock);
	err = modify_locked(qp, attr, mask);
	mutex_unlock(&qp->modify_lock);
	return err;
}

/**
 * irn_qp_query() - ib_device_ops.query_qp
 * @ibqp: QP
 * @attr: filled with the current attributes
 * @mask: attributes asked for; all are filled
 * @init: filled with the creation attributes
 *
 * Context: process context.
 * Return: 0.
 */
int irn_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct irn_qp *qp = to_irn_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = irn_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(qp->mtu);
	attr->qp_access_flags = qp->access;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->resp.epsn;
	attr->sq_psn = qp->req.psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->port_num = IRN_PORT;
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_recv_wr = qp->rq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

/**
 * irn_qp_destroy() - ib_device_ops.destroy_qp
 * @ibqp: QP
 * @udata: unused
 *
 * Unpublishes the QP number, stops the engines and timers, then waits for
 * packets still being received, and at most IRN_DESTROY_TX_WAIT for those
 * still being transmitted: these do not hold the QP (irn_txsock.c).
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int irn_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	struct irn_dev *dev = qp->dev;
	struct irn_av *av;
	int queued;

	if (ibqp->qp_type == IB_QPT_GSI)
		RCU_INIT_POINTER(dev->gsi, NULL);
	else
		xa_erase(&dev->qps, irn_qp_num(qp));
	irn_mcast_detach_qp(qp);
	/* Lookups that found the QP before it left the table are done. */
	synchronize_rcu();
	stop_engines(qp);
	/*
	 * Packets in the transmit path get a moment to leave; those that
	 * stay (a stopped queue) hold the socket and the module, not the QP.
	 */
	queued = irn_txsock_drain(qp, IRN_DESTROY_TX_WAIT);
	trace_irn_qp_destroy(irn_qp_num(qp), queued);
	irn_txsock_detach(qp);
	/* Packets received before the lookup ended are queued or dropped. */
	irn_qp_put(qp);
	wait_for_completion(&qp->done);
	/* Packets freed before the detach are done with the QP. */
	synchronize_rcu();
	/* Nothing schedules the engines now: wait for those scheduled. */
	flush_engines(qp);
	skb_queue_purge(&qp->resp_pkts);
	skb_queue_purge(&qp->comp_pkts);
	av = rcu_dereference_protected(qp->av, true);
	if (av)
		irn_av_free(av);
	irn_txsock_release(qp);
	free_rings(qp);
	irn_srq_stage_free(&qp->resp.stage);
	kfree(qp->resp.res);
	irn_rxwin_free(&qp->resp.win);
	irn_sb_free(&qp->irn.sb);
	mutex_destroy(&qp->modify_lock);
	return 0;
}

static int copy_kernel_sges(struct rxe_dma_info *dma, const struct ib_sge *sg,
			    int num_sge, u32 max_sge)
{
	int i;

	if (num_sge > max_sge)
		return -EINVAL;
	dma->num_sge = num_sge;
	dma->length = 0;
	for (i = 0; i < num_sge; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
		dma->length += sg[i].length;
	}
	dma->resid = dma->length;
	return 0;
}

static int copy_inline(struct irn_qp *qp, struct rxe_send_wqe *wqe,
		       const struct ib_send_wr *wr)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > qp->sq.max_inline - len)
			return -EINVAL;
		memcpy(wqe->dma.inline_data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	wqe->dma.length = len;
	return 0;
}

static void fill_wr(struct rxe_send_wr *out, const struct ib_send_wr *wr)
{
	out->wr_id = wr->wr_id;
	out->opcode = wr->opcode;
	out->send_flags = wr->send_flags;
	out->ex.imm_data = wr->ex.imm_data;
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		out->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		out->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		out->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		out->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		out->wr.atomic.swap = atomic_wr(wr)->swap;
		out->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_LOCAL_INV:
	case IB_WR_SEND_WITH_INV:
		out->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		out->wr.reg.mr = reg_wr(wr)->mr;
		out->wr.reg.key = reg_wr(wr)->key;
		out->wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
}

static int post_one_send(struct irn_qp *qp, const struct ib_send_wr *wr)
{
	struct irn_queue *q = &qp->sq.queue;
	struct rxe_send_wqe *wqe;

	if (((q->buf->producer_index + 1) & q->mask) ==
	    (qp->comp.head & q->mask))
		return -ENOMEM;
	wqe = irn_qp_sq_slot(qp, q->buf->producer_index);
	memset(wqe, 0, sizeof(*wqe));
	fill_wr(&wqe->wr, wr);
	if (irn_qp_is_ud(qp)) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.ah_num = to_irn_ah(ud_wr(wr)->ah)->ah_num;
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		if (copy_inline(qp, wqe, wr))
			return -EINVAL;
	} else if (copy_kernel_sges(&wqe->dma, wr->sg_list, wr->num_sge,
				    qp->sq.max_sge)) {
		return -EINVAL;
	}
	/* Pairs with the requester's load-acquire of the producer. */
	smp_store_release(&q->buf->producer_index,
			  (q->buf->producer_index + 1) & q->mask);
	return 0;
}

/*
 * Get new send WQEs going: the requester sends them, or in the error state
 * hands them to the completer to flush.  Kernel consumers may post with interrupts
 * disabled (the MAD layer does, under its queue lock): the transmit path
 * must not run there, so the engine runs from the workqueue instead.
 */
static void kick(struct irn_qp *qp)
{
	if (irqs_disabled())
		irn_task_sched(&qp->req_task);
	else
		irn_task_run(&qp->req_task);
}

/**
 * irn_qp_post_send() - ib_device_ops.post_send
 * @ibqp: QP
 * @wr: work requests of a kernel consumer; NULL for the user doorbell
 * @bad_wr: set to the first request not posted
 *
 * Runs the requester right away, unless interrupts are disabled.
 *
 * Context: any, does not sleep.
 * Return: 0 or a negative errno.
 */
int irn_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		if (irn_qp_state(qp) < IB_QPS_RTS)
			return -EINVAL;
		kick(qp);
		return 0;
	}
	if (irn_qp_state(qp) < IB_QPS_RTS) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	kick(qp);
	return err;
}

/**
 * irn_qp_post_recv() - ib_device_ops.post_recv, for kernel consumers
 * @ibqp: QP
 * @wr: receive work requests
 * @bad_wr: set to the first request not posted
 *
 * Context: any, does not sleep.
 * Return: 0 or a negative errno.
 */
int irn_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct irn_qp *qp = to_irn_qp(ibqp);
	struct irn_queue *q = &qp->rq.queue;
	struct rxe_recv_wqe *wqe;
	unsigned long flags;
	int err = 0;

	if (qp->user)
		return -EINVAL;
	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		u32 prod = q->buf->producer_index;
		u32 cons;

		/* Pairs with the responder's release of the consumer. */
		cons = smp_load_acquire(&q->buf->consumer_index) & q->mask;
		if (((prod + 1) & q->mask) == cons) {
			err = -ENOMEM;
		} else {
			wqe = irn_qp_rq_slot(qp, prod);
			wqe->wr_id = wr->wr_id;
			err = copy_kernel_sges(&wqe->dma, wr->sg_list,
					       wr->num_sge, qp->rq.max_sge);
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		/* Pairs with the responder's load-acquire of the producer. */
		smp_store_release(&q->buf->producer_index,
				  (prod + 1) & q->mask);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (irn_qp_state(qp) == IB_QPS_ERR)
		irn_task_sched(&qp->resp_task);
	return err;
}
