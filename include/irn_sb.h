/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Sender scoreboard: which PSNs in flight have been delivered, which are
 * lost, and which have been retransmitted in the current recovery episode.
 *
 * Pure bookkeeping over a circular bitmap indexed by PSN, tested by KUnit;
 * the completer feeds it (cumulative and selective acknowledgments, read
 * responses, timeouts) and the requester asks it what to resend.
 *
 * A PSN is lost when it is not delivered and either a timeout declared it
 * so or a PSN at least IRN_SB_DUPTHRESH after it has been delivered and it
 * was (last) sent at least the reordering window ago, as in RACK (RFC
 * 8985): reordering by fewer packets or by less time than that window
 * does not trigger a retransmission.  Lost PSNs are resent in
 * ascending order, the oldest unacknowledged first, each once per episode;
 * an episode ends when the cumulative point passes the PSN that was next
 * to send when it began.
 *
 * A retransmission can be lost too.  As in RACK, a PSN resent in this
 * episode is lost again once a packet sent after the retransmission has
 * been acknowledged and the reordering window has passed since it went
 * out; it is then resent again.  A read response counts as such a
 * packet when the time kept for it is a send time: the reply to a
 * re-request, or a first response that measured its request's round trip.
 *
 * Read requests are answered by responses, not acknowledged, so a read
 * request that arrived early sits at the responder until the hole before
 * it is filled; the responder's SACK says so.  Such PSNs are "seen": they
 * count as evidence against earlier holes (they raise @high) but are not
 * delivered, and are neither lost nor resent until their first response
 * arrives or a timeout declares them lost.
 *
 * A QP that sprays its packets over several paths (irn_path.h) records
 * each send or write PSN's path and its sequence number on that path.
 * Paths differ in delay, so a PSN overtaken by packets of other paths is
 * not lost for that: the duplicate threshold and RACK's rule count only
 * deliveries of packets sent later on the PSN's own path, and evidence of
 * reordering too.  A PSN passed by IRN_SB_DUPTHRESH PSNs of any path is
 * lost once it was sent the cross-path window ago (the slowest live
 * path's srtt + 4 * rttvar, irn_sb_clock_paths()): what recovers the
 * packets of a path that died before the timer would.  Reads and atomics,
 * whose replies the responder orders, keep the single-path rules.
 *
 * An IRN responder acknowledges from the port of the request that asked,
 * so a path's round trip is measured by acknowledgments that came back
 * on it: of the PSNs one delivers, those of its own path
 * (irn_sb_ack_path()), and a packet that asked for it, timed one at a
 * time per path (irn_sb_asked()) since a faster path's acknowledgments
 * often deliver it first (irn_sb_take_timed()).
 *
 * The scoreboard also gathers evidence that the path reorders, which
 * decides whether loss detection waits a reordering window at all (RACK's
 * reord flag): a PSN acknowledged after a later one (below @high) although
 * it was never resent arrived late, not lost.  Replies are compared with
 * replies only, since the responder answers a held request late.
 */
#ifndef _IRN_SB_H
#define _IRN_SB_H

#include <linux/types.h>

#include "irn_path.h"

#define IRN_SB_DUPTHRESH	3
#define IRN_SB_TAIL		3
/*
 * With several paths losses are not monotone in PSN order: the scans for
 * a loss look past this many PSNs that are neither delivered nor lost.
 */
#define IRN_SB_LOOKAHEAD	128

/**
 * struct irn_sb - scoreboard of one QP
 * @size: PSNs tracked from @una on, a power of two
 * @una: oldest PSN not delivered
 * @high: one past the highest PSN delivered, or @una
 * @reply_high: one past the highest PSN delivered by a reply (a read
 *		response or atomic result), or @una
 * @lost_until: PSNs before this are lost (set by a timeout)
 * @cursor: no retransmission is due before this PSN
 * @stamp_from: read responses before this have been stamped as overtaken
 * @executed_to: held reads and atomics before this were found executed
 *		 (irn_sb_executed()): no acknowledgment walks them again
 * @acked_to: the PSNs of sends and writes before this were marked by a
 *	      cumulative acknowledgment (irn_sb_acked_to())
 * @recover: the episode ends when @una reaches this
 * @in_recovery: an episode is running
 * @timed_out: the running episode began with a timeout, whose resends
 *	       may be needless without any reordering (a late ACK)
 * @reordered: a PSN was acknowledged after a later one without being
 *	       resent, since irn_sb_take_reordered() last looked
 * @reordered_psn: the latest such PSN (for the irn_reordering tracepoint)
 * @sacked: PSNs after @una delivered
 * @rack_ns: latest send time of an acknowledged PSN (RACK.xmit_ts)
 * @min_rtt_ns: shortest time from a send to its acknowledgment (or from a
 *		read request to its first response) seen, 0 before the
 *		first (of PSNs never resent: no ambiguity)
 * @rack_seen_ns: @rack_ns when resent PSNs were last checked against it
 * @now_ns: the time decisions are taken at, from irn_sb_clock()
 * @reo_ns: reordering window, 0 for dup-threshold alone
 * @ripe_ns: set by irn_sb_next_lost() when it found nothing due but a PSN
 *	     that only waits for the reordering window: when it will be
 *	     lost; 0 otherwise
 * @got: delivered PSNs
 * @seen: read PSNs whose request the responder holds, not yet answered
 * @resent: PSNs retransmitted in this episode
 * @rexmit: PSNs retransmitted at all since they entered the window
 * @racked: resends RACK found lost, due again whatever follows them
 * @sent_ns: when each PSN was last sent
 * @walked: PSNs the acknowledgment walks visited one by one: what the
 *	    peer's acknowledgments and replies cost (debugfs)
 * @npaths: paths the QP sprays over; up to 1, none of the per-path state
 *	    below is allocated and the single-path rules apply
 * @path: per PSN, the path it was last sent on; IRN_PATH_NONE for reads
 *	  and atomics, judged by the single-path rules
 * @pseq: per PSN, its sequence number on that path
 * @phigh: per path, one past the highest sequence number delivered
 * @prack_ns: per path, latest send time of an acknowledged PSN sent on it
 * @xreo_ns: cross-path window (irn_sb_clock_paths())
 * @ack_path: the path the acknowledgment being taken came back on
 *	      (irn_sb_ack_path())
 * @timing: per path (bit), a packet that asked for an acknowledgment is
 *	    being timed
 * @timed_psn: per path, its PSN
 * @timed_ns: per path, when it was sent
 * @news: per path, what deliveries said since irn_sb_take_path_news()
 */
struct irn_sb {
	u32		size;
	u32		una;
	u32		high;
	u32		reply_high;
	u32		lost_until;
	u32		cursor;
	u32		stamp_from;
	u32		executed_to;
	u32		acked_to;
	u32		recover;
	bool		in_recovery;
	bool		timed_out;
	bool		reordered;
	u32		reordered_psn;
	u32		sacked;
	u64		rack_ns;
	u64		min_rtt_ns;
	u64		rack_seen_ns;
	u64		now_ns;
	u64		reo_ns;
	u64		ripe_ns;
	unsigned long	*got;
	unsigned long	*seen;
	unsigned long	*resent;
	unsigned long	*rexmit;
	unsigned long	*racked;
	u64		*sent_ns;
	u64		walked;
	u32		npaths;
	u8		*path;
	u32		*pseq;
	u32		phigh[IRN_PATH_MAX];
	u64		prack_ns[IRN_PATH_MAX];
	u64		xreo_ns;
	u32		ack_path;
	u32		timing;
	u32		timed_psn[IRN_PATH_MAX];
	u64		timed_ns[IRN_PATH_MAX];
	struct irn_path_news news;
};

int irn_sb_init(struct irn_sb *sb, u32 size, gfp_t gfp);
void irn_sb_free(struct irn_sb *sb);
void irn_sb_reset(struct irn_sb *sb, u32 psn);
bool irn_sb_mark(struct irn_sb *sb, u32 psn);
bool irn_sb_mark_reply(struct irn_sb *sb, u32 psn, u64 rtt_ns);
bool irn_sb_test(const struct irn_sb *sb, u32 psn);
void irn_sb_seen(struct irn_sb *sb, u32 psn, u32 n, bool seen);
void irn_sb_executed(struct irn_sb *sb, u32 psn, u32 n, u64 now_ns);
u32 irn_sb_acked_from(const struct irn_sb *sb, u32 psn);
void irn_sb_acked_to(struct irn_sb *sb, u32 cum);
void irn_sb_drop_known(const struct irn_sb *sb, u32 psn, unsigned long *bits,
		       u32 nbits);
u32 irn_sb_first_missing(const struct irn_sb *sb);
void irn_sb_advance(struct irn_sb *sb, u32 psn);
bool irn_sb_lost(const struct irn_sb *sb, u32 psn);
bool irn_sb_next_lost(struct irn_sb *sb, u32 *psn);
void irn_sb_mark_resent(struct irn_sb *sb, u32 psn, u32 n);
bool irn_sb_start_recovery(struct irn_sb *sb, u32 nxt);
void irn_sb_timeout(struct irn_sb *sb, u32 nxt, bool all, u64 wait_ns);
u32 irn_sb_lost_waiting(const struct irn_sb *sb);
void irn_sb_rewound(struct irn_sb *sb, u32 from, u32 to);
bool irn_sb_take_reordered(struct irn_sb *sb);
u32 irn_sb_weight(const struct irn_sb *sb);
void irn_sb_clock(struct irn_sb *sb, u64 now_ns, u64 reo_ns);
void irn_sb_sent(struct irn_sb *sb, u32 psn, u64 now_ns);
u64 irn_sb_rtt(const struct irn_sb *sb, u32 psn, u64 now_ns);
void irn_sb_ack_path(struct irn_sb *sb, u32 path);
u64 irn_sb_sample(const struct irn_sb *sb, u32 psn, u32 *path);
void irn_sb_asked(struct irn_sb *sb, u32 psn, u32 path, u64 now_ns);
u64 irn_sb_take_timed(struct irn_sb *sb, u32 cum, u32 psn,
		      const unsigned long *bits, u32 nbits, u64 max_ns);
void irn_sb_overtaken(struct irn_sb *sb, u32 from, u32 to, u64 now_ns);
int irn_sb_paths_init(struct irn_sb *sb, u32 n, gfp_t gfp);
void irn_sb_sent_path(struct irn_sb *sb, u32 psn, u32 path, u32 seq);
u32 irn_sb_path(const struct irn_sb *sb, u32 psn, u32 *seq);
u32 irn_sb_loss_path(const struct irn_sb *sb, u32 psn, u32 *seq);
void irn_sb_clock_paths(struct irn_sb *sb, u64 xreo_ns);
void irn_sb_take_path_news(struct irn_sb *sb, struct irn_path_news *out);

#endif /* _IRN_SB_H */
