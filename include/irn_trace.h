/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints for IRN's loss-recovery decisions, congestion control and a
 * QP's teardown:
 *
 *   perf trace -e 'irn:*'   or   /sys/kernel/tracing/events/irn/
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irn

#if !defined(_IRN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IRN_TRACE_H

#include <linux/tracepoint.h>

#include "irn_compat.h"
#include "irn_path.h"

#define IRN_TRACE_PATH_STATES					\
	{ IRN_PATH_ACTIVE, "active" }, { IRN_PATH_SUSPECT, "suspect" },	\
	{ IRN_PATH_DOWN, "down" }, { IRN_PATH_PROBING, "probing" }

/* The requester resent @pkts PSNs from @psn (a read re-request spans many). */
TRACE_EVENT(irn_retransmit,
	TP_PROTO(u32 qpn, u32 psn, u32 pkts, u32 una, u32 nxt),
	TP_ARGS(qpn, psn, pkts, una, nxt),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, pkts)
		__field(u32, una)
		__field(u32, nxt)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->pkts = pkts;
		__entry->una = una;
		__entry->nxt = nxt;
	),
	TP_printk("qpn=%u psn=%u pkts=%u una=%u nxt=%u", __entry->qpn,
		  __entry->psn, __entry->pkts, __entry->una, __entry->nxt)
);

/*
 * The completer declared losses: @why is "sack" (dup-threshold passed),
 * "rto_short" or "rto_long" (timer expired); with the RTT estimate and the
 * reordering window in force.
 */
TRACE_EVENT(irn_recovery,
	TP_PROTO(u32 qpn, const char *why, u32 una, u32 high, u32 nxt,
		 u64 srtt_ns, u64 reo_ns),
	TP_ARGS(qpn, why, una, high, nxt, srtt_ns, reo_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__string(why, why)
		__field(u32, una)
		__field(u32, high)
		__field(u32, nxt)
		__field(u64, srtt_ns)
		__field(u64, reo_ns)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		irn_assign_str(why, why);
		__entry->una = una;
		__entry->high = high;
		__entry->nxt = nxt;
		__entry->srtt_ns = srtt_ns;
		__entry->reo_ns = reo_ns;
	),
	TP_printk("qpn=%u why=%s una=%u high=%u nxt=%u srtt_ns=%llu reo_ns=%llu",
		  __entry->qpn, __get_str(why), __entry->una, __entry->high,
		  __entry->nxt, __entry->srtt_ns, __entry->reo_ns)
);

/*
 * The requester went back to @psn, go-back-N (a PSN sequence or RNR NAK,
 * or a timeout of a QP without IRN): everything from @psn to @nxt goes
 * out again; @irn says whether the QP had IRN on.
 */
TRACE_EVENT(irn_rewind,
	TP_PROTO(u32 qpn, u32 psn, u32 nxt, bool irn),
	TP_ARGS(qpn, psn, nxt, irn),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, nxt)
		__field(bool, irn)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->nxt = nxt;
		__entry->irn = irn;
	),
	TP_printk("qpn=%u psn=%u nxt=%u irn=%d", __entry->qpn, __entry->psn,
		  __entry->nxt, __entry->irn)
);

/*
 * The completer found evidence that the path reorders (reordered() in
 * irn_comp_sack.c): @why is "overtaken" (@psn was delivered after a later
 * PSN although it was never resent) or "dsack" (the responder got a
 * resend of ours twice and no timeout or rewind caused it; @psn is the
 * ACK's).  From then on loss detection waits a reordering window.
 */
TRACE_EVENT(irn_reordering,
	TP_PROTO(u32 qpn, const char *why, u32 psn, u32 una, u32 high),
	TP_ARGS(qpn, why, psn, una, high),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__string(why, why)
		__field(u32, psn)
		__field(u32, una)
		__field(u32, high)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		irn_assign_str(why, why);
		__entry->psn = psn;
		__entry->una = una;
		__entry->high = high;
	),
	TP_printk("qpn=%u why=%s psn=%u una=%u high=%u", __entry->qpn,
		  __get_str(why), __entry->psn, __entry->una, __entry->high)
);

/* The responder placed a request @ahead PSNs after the expected one. */
TRACE_EVENT(irn_ooo_placed,
	TP_PROTO(u32 qpn, u32 psn, u32 ahead),
	TP_ARGS(qpn, psn, ahead),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, ahead)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->ahead = ahead;
	),
	TP_printk("qpn=%u psn=%u ahead=%u", __entry->qpn, __entry->psn,
		  __entry->ahead)
);

/*
 * A QP was destroyed with @queued of its packets still in the local
 * transmit path; they keep the module loaded until the stack frees them.
 */
TRACE_EVENT(irn_qp_destroy,
	TP_PROTO(u32 qpn, int queued),
	TP_ARGS(qpn, queued),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, queued)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->queued = queued;
	),
	TP_printk("qpn=%u queued=%d", __entry->qpn, __entry->queued)
);

/*
 * A QP's congestion control moved: @why is "cnp" (DCQCN cut its rate),
 * "increase" (DCQCN's timer or byte counter raised it), "delay" (an RTT
 * sample moved the delay controller's window) or "loss" (a loss halved
 * it).  @rate_kbps is DCQCN's rate, @cwnd the window in 1/1024 packets
 * (0 where the algorithm has none).
 */
TRACE_EVENT(irn_cc,
	TP_PROTO(u32 qpn, const char *why, u32 rate_kbps, u32 cwnd),
	TP_ARGS(qpn, why, rate_kbps, cwnd),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__string(why, why)
		__field(u32, rate_kbps)
		__field(u32, cwnd)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		irn_assign_str(why, why);
		__entry->rate_kbps = rate_kbps;
		__entry->cwnd = cwnd;
	),
	TP_printk("qpn=%u why=%s rate_kbps=%u cwnd=%u", __entry->qpn,
		  __get_str(why), __entry->rate_kbps, __entry->cwnd)
);

/*
 * The delay controller shrank a QP's window on an RTT sample: @rtt_ns
 * as the controller read it (leveled to the shortest path on a QP that
 * sprays), @judged_ns the standing RTT it was judged by, @base_ns and
 * @target_ns what that was compared with, @from and @to the window in
 * 1/1024 packets.
 */
TRACE_EVENT(irn_delay_cut,
	TP_PROTO(u32 qpn, u64 rtt_ns, u64 judged_ns, u64 base_ns,
		 u64 target_ns, u32 from, u32 to),
	TP_ARGS(qpn, rtt_ns, judged_ns, base_ns, target_ns, from, to),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, rtt_ns)
		__field(u64, judged_ns)
		__field(u64, base_ns)
		__field(u64, target_ns)
		__field(u32, from)
		__field(u32, to)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->rtt_ns = rtt_ns;
		__entry->judged_ns = judged_ns;
		__entry->base_ns = base_ns;
		__entry->target_ns = target_ns;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("qpn=%u rtt_ns=%llu judged_ns=%llu base_ns=%llu target_ns=%llu cwnd=%u->%u",
		  __entry->qpn, __entry->rtt_ns, __entry->judged_ns,
		  __entry->base_ns, __entry->target_ns, __entry->from,
		  __entry->to)
);

/*
 * A path of a QP that sprays changed state (irn_path.h): @why is "loss"
 * (a packet sent on it was lost), "timeout" (the retransmission timer
 * charged it), "ack" (deliveries cleared it, or its probe arrived) or
 * "probe" (a packet went out on it as a probe); @from and @to are enum
 * irn_path_state, @srtt_ns the path's own smoothed RTT.
 */
TRACE_EVENT(irn_path,
	TP_PROTO(u32 qpn, u32 path, const char *why, u32 from, u32 to,
		 u64 srtt_ns),
	TP_ARGS(qpn, path, why, from, to, srtt_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, path)
		__string(why, why)
		__field(u32, from)
		__field(u32, to)
		__field(u64, srtt_ns)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->path = path;
		irn_assign_str(why, why);
		__entry->from = from;
		__entry->to = to;
		__entry->srtt_ns = srtt_ns;
	),
	TP_printk("qpn=%u path=%u why=%s from=%s to=%s srtt_ns=%llu",
		  __entry->qpn, __entry->path, __get_str(why),
		  __print_symbolic(__entry->from, IRN_TRACE_PATH_STATES),
		  __print_symbolic(__entry->to, IRN_TRACE_PATH_STATES),
		  __entry->srtt_ns)
);

#endif /* _IRN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE irn_trace
#include <trace/define_trace.h>
