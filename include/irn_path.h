/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A QP's path set: the UDP source ports its requests are sprayed over,
 * and what each path has shown.
 *
 * RoCEv2 switches and hosts spread flows over equal-cost paths by hashing
 * the UDP source port among other fields, so a QP that varies the port
 * per packet uses several paths at once.  Path i is the source port
 * irn_path_sport(base, i), base being the QP's own (path 0 is the base).
 * Each path has a state:
 *
 *  - ACTIVE: used with full weight;
 *  - SUSPECT: lost packets lately; used with a quarter of the weight;
 *  - DOWN: lost more, or timed out again; not used, except for a probe
 *    once its backoff has passed;
 *  - PROBING: one packet was sent on it as a probe; its delivery makes
 *    the path ACTIVE again, its loss makes it DOWN with a longer backoff.
 *
 * A loss adds a strike (a timeout IRN_PATH_TIMEOUT_STRIKES), and
 * IRN_PATH_CLEAN_ACKS deliveries in a row clear the strikes; enough
 * strikes make a path SUSPECT, then DOWN.  Losses of packets sent before
 * a probe are stale: they say nothing of the path since then.
 *
 * Pure bookkeeping, tested by KUnit: the flow (irn_flow.c) owns a QP's
 * set, takes the lock, and reports to the counters and tracepoints.
 */
#ifndef _IRN_PATH_H
#define _IRN_PATH_H

#include <linux/types.h>
#include <linux/win_minmax.h>

/* Paths a QP may spray over; the `paths` knob is 1..IRN_PATH_MAX. */
#define IRN_PATH_MAX		8
/* The value the documentation suggests for the `paths` knob. */
#define IRN_PATH_SUGGESTED	4
/* No path: the base source port, unsprayed; to avoid: a new packet. */
#define IRN_PATH_NONE		0xff
/*
 * To avoid: a resend whose packet's path is not known (none to avoid).
 * An acknowledgment's path: one that cannot be told (irn_sb.h).
 */
#define IRN_PATH_UNKNOWN	0xfe

/*
 * Odd, about 2^14 / golden ratio: i * it modulo 2^14 differs for every i
 * below 2^14 and spreads the first few ports over the range.
 */
#define IRN_PATH_SPREAD		0x278d
/* RoCEv2's source ports (rdma_get_udp_sport()): 0xc000..0xffff. */
#define IRN_PATH_SPORT_BASE	0xc000
#define IRN_PATH_SPORT_MASK	0x3fff

/* Weight of an ACTIVE path in the weighted round-robin; SUSPECT has 1. */
#define IRN_PATH_WEIGHT		4
#define IRN_PATH_SUSPECT_STRIKES 2
#define IRN_PATH_DOWN_STRIKES	4
#define IRN_PATH_TIMEOUT_STRIKES 2
#define IRN_PATH_CLEAN_ACKS	16
/* A DOWN path is probed after IRN_PATH_PROBE_NS << backoff. */
#define IRN_PATH_PROBE_NS	(10ULL * 1000 * 1000)
#define IRN_PATH_BACKOFF_MAX	7
/*
 * How long a path remembers its shortest RTT: 10 to 20 s, as the delay
 * controller's default (irn_delay_params.base_window_ns) remembers the
 * QP's.  A queue that stands longer than that reads as length.
 */
#define IRN_PATH_BASE_WIN	(10 * HZ)
/* Packets sent on a path before the next goes to another. */
#define IRN_PATH_BURST		1

/**
 * enum irn_path_state - what a path has shown
 * @IRN_PATH_ACTIVE: used with full weight
 * @IRN_PATH_SUSPECT: lost packets lately; used less
 * @IRN_PATH_DOWN: not used until its probe is due
 * @IRN_PATH_PROBING: a probe is on its way
 * @IRN_PATH_NR_STATES: how many
 */
enum irn_path_state {
	IRN_PATH_ACTIVE,
	IRN_PATH_SUSPECT,
	IRN_PATH_DOWN,
	IRN_PATH_PROBING,
	IRN_PATH_NR_STATES,
};

/**
 * struct irn_path - one path of a QP
 * @state: enum irn_path_state
 * @strikes: losses (a timeout counts IRN_PATH_TIMEOUT_STRIKES) since the
 *	     last clean run
 * @backoff: a DOWN path's probe waits IRN_PATH_PROBE_NS << @backoff
 * @clean: deliveries since the last loss
 * @cw: current weight of the smooth weighted round-robin
 * @seq: packets sent on the path: the sequence number of the next one
 * @epoch_seq: losses of packets sent before this one are stale
 * @acked: packets delivered
 * @lost: packets lost
 * @timeouts: retransmission timeouts charged to the path
 * @probes: probes sent
 * @srtt_ns: smoothed RTT of the path, 0 before its first sample
 * @rttvar_ns: its variation
 * @last_ns: when the path was last picked
 * @probe_ns: DOWN: when the next probe is due
 * @lost_ns: when it last lost a packet sent since its last probe, 0 for
 *	     never (irn_path_loss_local())
 * @base: its base RTT: the smallest sample of the last IRN_PATH_BASE_WIN,
 *	  as U32_MAX less it in us (a windowed max filter over jiffies of
 *	  the complements; 0 before the first sample)
 */
struct irn_path {
	u8	state;
	u8	strikes;
	u8	backoff;
	u16	clean;
	s32	cw;
	u32	seq;
	u32	epoch_seq;
	u64	acked;
	u64	lost;
	u64	timeouts;
	u64	probes;
	u64	srtt_ns;
	u64	rttvar_ns;
	u64	last_ns;
	u64	probe_ns;
	u64	lost_ns;
	struct minmax base;
};

/**
 * struct irn_path_set - a QP's paths
 * @n: how many, 1..IRN_PATH_MAX; 1 is the base port alone
 * @burst: packets sent on a path before the next goes to another
 * @left: packets left in the current burst
 * @cur: the path of the current burst
 * @changes: state changes of its paths
 * @p: the paths
 */
struct irn_path_set {
	u8		n;
	u8		burst;
	u8		left;
	u8		cur;
	u64		changes;
	struct irn_path	p[IRN_PATH_MAX];
};

/**
 * struct irn_path_news - what acknowledgments said of each path
 * @acked: packets sent on it newly delivered
 * @high_seq: one past the highest sequence number delivered on it;
 *	      meaningful where @acked is not 0
 * @rtt_ns: the latest RTT sample of a packet sent on it, 0 for none
 * @any: some entry is set
 *
 * The scoreboard gathers it (irn_sb.c) and the flow applies it.
 */
struct irn_path_news {
	u32	acked[IRN_PATH_MAX];
	u32	high_seq[IRN_PATH_MAX];
	u64	rtt_ns[IRN_PATH_MAX];
	bool	any;
};

u16 irn_path_sport(u16 base, u32 i);
u32 irn_path_of_sport(const struct irn_path_set *s, u16 base, u16 sport);
void irn_path_set_init(struct irn_path_set *s, u32 n);
u32 irn_path_pick(struct irn_path_set *s, u32 avoid, u64 now_ns, u32 *seq);
void irn_path_on_loss(struct irn_path_set *s, u32 i, u32 seq, bool timeout,
		      u64 now_ns);
void irn_path_on_news(struct irn_path_set *s, const struct irn_path_news *nw,
		      u32 now);
bool irn_path_loss_local(const struct irn_path_set *s, u32 i, u64 now_ns,
			 u64 window_ns);
u64 irn_path_window_ns(const struct irn_path_set *s);
u64 irn_path_srtt_ns(const struct irn_path_set *s);
u64 irn_path_leveled_ns(struct irn_path_set *s, u32 i, u64 rtt_ns, u32 now);
const char *irn_path_state_name(u32 state);

#endif /* _IRN_PATH_H */
