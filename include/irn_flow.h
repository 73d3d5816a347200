/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Flow interface: how much a QP may have in flight, and when it may send.
 *
 * The engines ask and report through these few calls only, so that
 * congestion control (ECN/CNP, delay based) and multipath can replace the
 * policy without touching them:
 *
 *  - irn_flow_window(): packets the requester may have in flight;
 *  - irn_flow_window_open(): may it send one more now;
 *  - irn_flow_ask_ack(): should a packet ask for an ACK;
 *  - irn_flow_narrowed(): does loss recovery count the pipe (RFC 6675);
 *  - irn_flow_next_send(): earliest time for the next packet (pacing);
 *  - irn_flow_on_ack(): packets newly acknowledged, each once, and an RTT
 *    sample if the acknowledgment gave one;
 *  - irn_flow_on_loss(): the completer decided a packet was lost;
 *  - irn_flow_on_spurious(): ... and it was not;
 *  - irn_flow_on_spurious_rto(): a timeout fired before the ACK was due;
 *  - irn_flow_on_reorder(): the path was seen to reorder;
 *  - irn_flow_on_sent(): a packet left (pacing, DCQCN's byte counter);
 *  - irn_flow_on_cnp(): the peer reported congestion (a RoCEv2 CNP);
 *  - irn_flow_path_pick(): which path (UDP source port) the next packet
 *    takes, irn_flow_on_path_loss() and irn_flow_on_path_news(): what
 *    the packets sent on each path became, and irn_flow_ack_path(): which
 *    path an acknowledgment came back on (multipath, irn_path.h).
 *
 * The default policy is IRN's BDP-FC: a fixed cap on packets in flight and
 * no pacing.  Congestion control (enum irn_cc) narrows it: DCQCN's rate,
 * kept by pacing, or a delay-based window.  The RTT estimate (RFC 6298
 * smoothing) lives here too, since congestion control needs it as much as
 * the retransmission timer does.
 */
#ifndef _IRN_FLOW_H
#define _IRN_FLOW_H

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/win_minmax.h>

#include "irn_cc.h"
#include "irn_path.h"

struct irn_counters;

#define IRN_FLOW_DEFAULT_CAP	128

/* A long message asks for an ACK this often, at most (irn_flow_ack_every()). */
#define IRN_FLOW_ACK_EVERY	32

/*
 * A paced QP may send this early, and after a pause it may send this
 * much at once: a timer wakes it at most once per such period rather
 * than once a packet.
 */
#define IRN_FLOW_PACE_SLACK_NS	(200 * NSEC_PER_USEC)

/**
 * struct irn_flow - flow state of one QP
 * @cap: packets allowed in flight
 * @srtt_ns: smoothed RTT, 0 before the first sample
 * @rttvar_ns: RTT variation
 * @rtt_max: the longest RTT, in us, of the last IRN_FLOW_RTT_MAX_WIN
 *	     (a windowed max filter over jiffies)
 * @reo_q: reordering window, in quarters of @srtt_ns
 * @reo_calm: loss episodes since the window last grew
 * @reo_grown: the window grew in the current loss episode
 * @reord: the path was seen to reorder; until then loss detection does
 *	   not wait a reordering window (RACK's reord flag, RFC 8985 6.2)
 * @algo: the QP's enum irn_cc
 * @qpn: the QP's number, for the tracepoints
 * @cc_lock: protects @next_ns and @dcqcn or @delay, which the requester
 *	     and the responder (packets sent), the completer (ACKs, losses)
 *	     and the receive path (CNPs) all move
 * @next_ns: pacing: when the next packet is due; 0 when not paced
 * @asked_ns: when the requester last asked for an ACK (its own)
 * @dcqcn: DCQCN's state and parameters
 * @delay: the delay controller's state and parameters
 * @path_lock: protects @paths, which the requester (picks, losses) and
 *	       the completer (deliveries, timeouts) move; taken inside the
 *	       scoreboard lock where both are held, never with @cc_lock
 * @paths: the QP's path set; one path unless it sprays
 * @sprayed: the QP sent a packet on one of its paths: its losses reach
 *	     congestion control through their paths (irn_flow_on_path_loss())
 * @acks_by_path: an acknowledgment came from a path's port other than the
 *		  base port: the peer answers by path (irn_flow_ack_path()),
 *		  the completer's alone
 * @stats: the device's counters, for the path counters; NULL for none
 */
struct irn_flow {
	u32	cap;
	u64	srtt_ns;
	u64	rttvar_ns;
	struct minmax rtt_max;
	u32	reo_q;
	u32	reo_calm;
	bool	reo_grown;
	bool	reord;
	u32		algo;
	u32		qpn;
	spinlock_t	cc_lock;	/* see above */
	u64		next_ns;
	u64		asked_ns;
	union {
		struct {
			struct irn_dcqcn	st;
			struct irn_dcqcn_params	p;
		} dcqcn;
		struct {
			struct irn_delay	st;
			struct irn_delay_params	p;
		} delay;
	};
	spinlock_t		path_lock;	/* see above */
	struct irn_path_set	paths;
	bool			sprayed;
	bool			acks_by_path;
	struct irn_counters __percpu *stats;
};

/*
 * How long a QP remembers its longest RTT (see irn_flow_irn_rto_ns()):
 * the stalls of a virtual machine's vCPU, which make an ACK late, recur
 * over seconds.
 */
#define IRN_FLOW_RTT_MAX_WIN	(10 * HZ)

/*
 * Two paths' losses this close, or two round trips if longer, are one
 * event (irn_flow_on_path_loss()).
 */
#define IRN_FLOW_SHARED_LOSS_NS	NSEC_PER_MSEC

/* Reordering window: 1.25 srtt, up to 2 srtt after spurious resends. */
#define IRN_FLOW_REO_MIN_Q	5
#define IRN_FLOW_REO_MAX_Q	8

void irn_flow_init(struct irn_flow *f, u32 cap);
u32 irn_flow_window(const struct irn_flow *f);
u32 irn_flow_ack_every(const struct irn_flow *f);
bool irn_flow_narrowed(const struct irn_flow *f);
bool irn_flow_ask_ack(struct irn_flow *f, bool must, u32 nth, u32 path,
		      u32 inflight, u64 now_ns);
bool irn_flow_window_open(const struct irn_flow *f, u32 pipe, u32 span,
			  u32 span_max);
ktime_t irn_flow_next_send(const struct irn_flow *f);
bool irn_flow_hold(const struct irn_flow *f, struct hrtimer *timer, u64 now_ns);
void irn_flow_on_ack(struct irn_flow *f, u32 pkts, u64 rtt_ns, u32 path);
void irn_flow_on_loss(struct irn_flow *f);
void irn_flow_on_spurious(struct irn_flow *f, u32 n);
void irn_flow_on_spurious_rto(struct irn_flow *f, u64 rto_ns, u64 since_ns);
void irn_flow_on_reorder(struct irn_flow *f);
u64 irn_flow_rto_ns(const struct irn_flow *f, u64 floor_ns, u64 ceil_ns);

/* IRN's short timeout applies with this many packets in flight or fewer. */
#define IRN_FLOW_RTO_LOW_PKTS	3

u64 irn_flow_reorder_ns(const struct irn_flow *f);

void irn_flow_cc_start(struct irn_flow *f, const struct irn_cc_config *cfg,
		       u32 qpn, u64 now_ns);
u64 irn_flow_gap_ns(u32 bytes, u32 kbps);
void irn_flow_on_sent(struct irn_flow *f, u32 bytes, u64 now_ns);
bool irn_flow_on_cnp(struct irn_flow *f, u64 now_ns);
u32 irn_flow_rate_kbps(struct irn_flow *f, u64 now_ns);
u8 irn_flow_tos(const struct irn_flow *f, u8 tos);
u64 irn_flow_irn_rto_ns(const struct irn_flow *f, u32 inflight,
			u64 low_floor_ns, u64 high_floor_ns, u64 ib_t_ns);

void irn_flow_path_init(struct irn_flow *f, u32 n,
			struct irn_counters __percpu *stats);
void irn_flow_path_reset(struct irn_flow *f);
u32 irn_flow_paths(const struct irn_flow *f);
u32 irn_flow_reply_path(const struct irn_flow *f, u16 base, u16 sport);
u32 irn_flow_ack_path(struct irn_flow *f, u16 base, u16 sport);
u32 irn_flow_path_pick(struct irn_flow *f, bool spray, u32 avoid, u64 now_ns,
		       u32 *seq);
void irn_flow_on_path_loss(struct irn_flow *f, u32 path, u32 seq,
			   bool timeout, u64 now_ns);
void irn_flow_on_path_news(struct irn_flow *f, const struct irn_path_news *nw);
u64 irn_flow_path_window_ns(struct irn_flow *f, u64 floor_ns);
void irn_flow_path_snapshot(struct irn_flow *f, struct irn_path_set *out);

#endif /* _IRN_FLOW_H */
