// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sender scoreboard: loss-recovery decisions for scripted sequences of
 * acknowledgments, selective acknowledgments and timeouts.  Every script
 * runs twice: at PSN 100 and straddling the 24-bit wrap.
 */

#include <kunit/test.h>

#include "irn_kunit.h"
#include "irn_psn.h"
#include "irn_sb.h"

enum sb_op {
	END,
	MARK,		/* PSN delivered */
	REPLY,		/* PSN delivered by a read response or atomic result */
	ADVANCE,	/* cumulative point moves to PSN */
	LOST,		/* next retransmission is PSN; mark it resent */
	NONE,		/* no retransmission due */
	RECOVER,	/* a new episode starts, recovery point PSN */
	NORECOVER,	/* no new episode */
	TIMEOUT,	/* timer fired, next new PSN is PSN */
	FIRST,		/* first missing PSN is PSN */
	INREC,		/* in recovery: n */
	ISLOST,		/* irn_sb_lost(PSN) == n */
	SENT,		/* PSN sent at time n */
	CLOCK,		/* now is n, reordering window 10 */
	RIPE,		/* after NONE: the first candidate is lost at n */
	OVERTAKEN,	/* PSNs from 0 to PSN overtaken at time n */
	SEEN,		/* a SACK names the read at PSN of n PSNs */
	ANSWERED,	/* the read at PSN of n PSNs got a response */
	EXECUTED,	/* an ACK passed the atomic at PSN, at time n */
	REORDERED,	/* irn_sb_take_reordered() == !!n */
	TIMEDOUT,	/* the episode began with a timeout: n */
	REWIND,		/* go-back-N resends n PSNs from PSN */
	REPLY_RTT,	/* REPLY that measured a round trip of n */
};

struct sb_step {
	enum sb_op	op;
	u32		psn;	/* offset from the script's start */
	u32		n;
};

struct sb_script {
	const char	*name;
	struct sb_step	steps[24];
};

static const struct sb_script scripts[] = {
	{ "dupthresh_single_loss", {
		{ MARK, 1 }, { MARK, 2 }, { ISLOST, 0, 0 }, { NONE },
		{ RIPE, 0, 0 }, { NORECOVER, 5 },
		{ MARK, 3 }, { ISLOST, 0, 1 }, { RECOVER, 5 }, { LOST, 0 },
		{ NONE }, { MARK, 0 }, { FIRST, 4 }, { ADVANCE, 4 },
		{ INREC, 0, 1 }, { ADVANCE, 5 }, { INREC, 0, 0 } } },
	{ "reorder_below_threshold", {
		{ MARK, 2 }, { MARK, 1 }, { NONE }, { MARK, 0 }, { FIRST, 3 },
		{ NORECOVER, 3 } } },
	{ "holes_resent_ascending", {
		{ MARK, 2 }, { MARK, 4 }, { MARK, 5 }, { MARK, 6 },
		{ MARK, 7 }, { RECOVER, 8 }, { LOST, 0 }, { LOST, 1 },
		{ LOST, 3 }, { NONE }, { FIRST, 0 } } },
	{ "once_per_episode", {
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { MARK, 4 },
		{ RECOVER, 5 }, { LOST, 0 }, { NONE }, { MARK, 6 },
		{ NONE }, { NORECOVER, 7 } } },
	{ "later_loss_in_same_episode", {
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { MARK, 4 },
		{ RECOVER, 10 }, { LOST, 0 }, { NONE },
		{ MARK, 6 }, { MARK, 7 }, { MARK, 8 }, { MARK, 9 },
		{ LOST, 5 }, { NONE } } },
	{ "timeout_resends_holes_below_high", {
		{ MARK, 2 }, { NONE }, { TIMEOUT, 8 }, { INREC, 0, 1 },
		{ LOST, 0 }, { LOST, 1 }, { NONE }, { ISLOST, 3, 0 } } },
	{ "timeout_resends_una_without_news", {
		{ TIMEOUT, 8 }, { LOST, 0 }, { NONE } } },
	{ "timeout_resends_whole_tail", {
		{ MARK, 1 }, { TIMEOUT, 3 }, { LOST, 0 }, { LOST, 2 },
		{ NONE } } },
	{ "timeout_after_resend_rearms", {
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { MARK, 4 },
		{ RECOVER, 5 }, { LOST, 0 }, { NONE }, { TIMEOUT, 5 },
		{ LOST, 0 }, { NONE } } },
	{ "tail_loss_needs_timer", {
		{ MARK, 0 }, { MARK, 1 }, { ADVANCE, 2 }, { NONE },
		{ ISLOST, 2, 0 }, { TIMEOUT, 3 }, { LOST, 2 }, { NONE },
		{ MARK, 2 }, { FIRST, 3 } } },
	{ "outside_window_ignored", {
		{ MARK, 4096 }, { FIRST, 0 }, { NONE }, { MARK, 0 },
		{ FIRST, 1 } } },
	{ "reordering_window", {
		{ SENT, 0, 100 }, { SENT, 1, 101 }, { SENT, 2, 102 },
		{ SENT, 3, 103 }, { SENT, 4, 104 },
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { MARK, 4 },
		{ CLOCK, 0, 105 }, { ISLOST, 0, 0 }, { NONE }, { RIPE, 0, 110 },
		{ NORECOVER, 5 }, { CLOCK, 0, 110 }, { ISLOST, 0, 1 },
		{ RECOVER, 5 }, { LOST, 0 }, { NONE } } },
	{ "read_responses_clock_from_overtaking", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ SENT, 4, 0 }, { SENT, 5, 0 },
		{ MARK, 0 }, { OVERTAKEN, 2, 100 }, { MARK, 2 },
		{ OVERTAKEN, 5, 103 }, { MARK, 5 }, { MARK, 7 },
		{ CLOCK, 0, 105 },
		{ ISLOST, 1, 0 }, { NONE }, { CLOCK, 0, 110 }, { ISLOST, 1, 1 },
		{ LOST, 1 }, { NONE }, { CLOCK, 0, 113 }, { LOST, 3 },
		{ LOST, 4 }, { NONE } } },
	{ "held_read_reveals_earlier_loss", {
		{ SEEN, 6, 4 }, { ISLOST, 0, 1 }, { ISLOST, 6, 0 },
		{ RECOVER, 10 }, { LOST, 0 }, { LOST, 1 }, { LOST, 2 },
		{ LOST, 3 }, { NONE }, { MARK, 0 }, { MARK, 1 }, { MARK, 2 },
		{ MARK, 3 }, { MARK, 4 }, { MARK, 5 }, { ANSWERED, 6, 4 },
		{ MARK, 6 }, { FIRST, 7 }, { MARK, 9 }, { NONE } } },
	{ "huge_held_read_marks_only_its_own", {
		/* 1000 PSNs from 6: far past the 256 tracked, whose slots
		 * those beyond the window would alias onto PSNs 0 to 5
		 */
		{ SEEN, 6, 1000 }, { ISLOST, 0, 1 }, { ISLOST, 3, 1 },
		{ ISLOST, 6, 0 }, { ISLOST, 255, 0 }, { ANSWERED, 6, 1000 },
		{ ISLOST, 0, 1 }, { ISLOST, 3, 1 } } },
	{ "late_sack_leaves_answered_read_lost", {
		{ MARK, 4 }, { SEEN, 4, 6 }, { MARK, 9 }, { ISLOST, 5, 1 },
		{ RECOVER, 10 }, { LOST, 0 }, { LOST, 1 }, { LOST, 2 },
		{ LOST, 3 }, { LOST, 5 } } },
	{ "timeout_overrides_seen", {
		{ SEEN, 4, 4 }, { TIMEOUT, 8 }, { ISLOST, 4, 1 },
		{ ISLOST, 5, 0 }, { LOST, 0 }, { LOST, 1 }, { LOST, 2 },
		{ LOST, 3 }, { LOST, 4 }, { NONE } } },
	{ "lost_retransmission_found_by_later_ack", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ SENT, 4, 0 }, { MARK, 1 }, { MARK, 2 }, { MARK, 3 },
		{ MARK, 4 }, { CLOCK, 0, 10 }, { RECOVER, 5 }, { LOST, 0 },
		{ SENT, 0, 20 }, { SENT, 5, 21 }, { CLOCK, 0, 25 }, { NONE },
		{ MARK, 5 }, { CLOCK, 0, 29 }, { NONE }, { RIPE, 0, 30 },
		{ CLOCK, 0, 30 }, { LOST, 0 }, { NONE } } },
	/*
	 * PSN 0, resent twice (at 20 and 30), is acknowledged at 32: sooner
	 * than any round trip (10), so the first copy was, and RACK's clock
	 * stays put; PSN 1's one resend (at 21) is not lost again.  A PSN
	 * never resent and sent after it (5, at 22) does find it lost.
	 */
	{ "ack_of_the_original_leaves_rack", {
		{ SENT, 0, 1 }, { SENT, 1, 1 }, { SENT, 2, 1 }, { SENT, 3, 1 },
		{ SENT, 4, 1 }, { CLOCK, 0, 11 }, { MARK, 2 }, { MARK, 3 },
		{ MARK, 4 }, { RECOVER, 5 }, { LOST, 0 }, { LOST, 1 },
		{ NONE }, { SENT, 0, 20 }, { SENT, 1, 21 }, { SENT, 0, 30 },
		{ CLOCK, 0, 32 }, { MARK, 0 }, { NONE }, { SENT, 5, 22 },
		{ CLOCK, 0, 45 }, { MARK, 5 }, { LOST, 1 } } },
	/*
	 * An atomic held (seen) ahead of a hole, then executed with its
	 * reply lost: once an ACK passes it, its reordering clock starts,
	 * once, and later deliveries find it lost.
	 */
	{ "held_atomic_reply_lost", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ SENT, 4, 0 }, { SEEN, 2, 1 }, { MARK, 3 }, { MARK, 4 },
		{ MARK, 5 }, { CLOCK, 0, 50 }, { ISLOST, 2, 0 }, { MARK, 0 },
		{ MARK, 1 }, { EXECUTED, 2, 100 }, { MARK, 6 },
		{ CLOCK, 0, 105 }, { ISLOST, 2, 0 }, { EXECUTED, 2, 108 },
		{ CLOCK, 0, 110 }, { ISLOST, 2, 1 }, { RECOVER, 7 },
		{ LOST, 2 }, { NONE } } },
	/*
	 * Reordering evidence: a PSN delivered below a later one that was
	 * never resent; a resend, even one a timeout cleared from this
	 * episode, is no evidence.
	 */
	{ "reordering_evidence", {
		{ MARK, 2 }, { REORDERED, 0, 0 }, { MARK, 1 },
		{ REORDERED, 0, 1 }, { REORDERED, 0, 0 }, { MARK, 0 },
		{ MARK, 4 }, { MARK, 5 }, { MARK, 6 }, { MARK, 7 },
		{ REORDERED, 0, 1 }, { RECOVER, 8 }, { LOST, 3 },
		{ TIMEOUT, 8 }, { MARK, 3 }, { REORDERED, 0, 0 },
		{ FIRST, 8 } } },
	/*
	 * A read held behind a lost write is answered after the writes that
	 * follow it were acknowledged: the loss of the write, not
	 * reordering.  Replies overtaking replies are reordering.
	 */
	{ "held_read_answered_late_is_no_reordering", {
		{ SEEN, 1, 4 }, { MARK, 5 }, { MARK, 6 }, { MARK, 7 },
		{ RECOVER, 8 }, { LOST, 0 }, { NONE }, { MARK, 0 },
		{ ANSWERED, 1, 4 }, { REPLY, 1 }, { REPLY, 2 }, { REPLY, 3 },
		{ REPLY, 4 }, { REORDERED, 0, 0 }, { FIRST, 8 } } },
	{ "replies_overtaking_replies", {
		{ REPLY, 0 }, { REPLY, 2 }, { REPLY, 3 }, { REORDERED, 0, 0 },
		{ REPLY, 1 }, { REORDERED, 0, 1 }, { FIRST, 4 } } },
	/* A rewind's resends are resends: their ACKs are no reordering. */
	{ "rewind_resends_are_no_reordering", {
		{ MARK, 5 }, { REORDERED, 0, 0 }, { REWIND, 0, 6 },
		{ MARK, 0 }, { MARK, 1 }, { REORDERED, 0, 0 },
		{ MARK, 7 }, { MARK, 6 }, { REORDERED, 0, 1 } } },
	/*
	 * What a rewind sent again is not lost again when a SACK that left
	 * before it arrives; only once something sent after it is
	 * acknowledged (RACK), and then every such resend at once.
	 */
	{ "rewound_psns_wait_for_rack", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { REWIND, 0, 2 },
		{ SENT, 0, 50 }, { SENT, 1, 50 }, { MARK, 2 }, { MARK, 3 },
		{ MARK, 4 }, { MARK, 5 }, { CLOCK, 0, 100 }, { RECOVER, 7 },
		{ NONE }, { SENT, 6, 60 }, { MARK, 6 }, { CLOCK, 0, 101 },
		{ LOST, 0 }, { LOST, 1 }, { NONE } } },
	/*
	 * A rewind opens no episode, yet a rewound PSN lost again is found
	 * by RACK once something sent after its resend is acknowledged,
	 * not left to the timer.
	 */
	{ "rewound_resend_lost_outside_episode", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ MARK, 0 }, { MARK, 1 }, { ADVANCE, 2 }, { REWIND, 2, 2 },
		{ SENT, 2, 50 }, { SENT, 3, 50 }, { SENT, 4, 60 },
		{ SENT, 5, 60 }, { SENT, 6, 60 }, { CLOCK, 0, 100 },
		{ MARK, 3 }, { MARK, 4 }, { MARK, 5 }, { MARK, 6 },
		{ INREC, 0, 0 }, { LOST, 2 }, { NONE } } },
	/*
	 * ... and in an episode, one past where the scan stopped: the
	 * rewind came after the cursor passed its first PSN.
	 */
	{ "rewound_resend_past_cursor", {
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { MARK, 4 },
		{ CLOCK, 0, 20 }, { RECOVER, 12 }, { LOST, 0 }, { SENT, 0, 20 },
		{ NONE }, { REWIND, 6, 2 }, { SENT, 6, 50 }, { SENT, 7, 50 },
		{ SENT, 8, 60 }, { CLOCK, 0, 100 }, { MARK, 8 }, { MARK, 9 },
		{ MARK, 10 }, { LOST, 0 }, { LOST, 5 }, { LOST, 6 },
		{ LOST, 7 }, { NONE } } },
	/*
	 * A rewind's resend lost at the tail: RACK finds it lost once a PSN
	 * sent after it is acknowledged, and it goes again at once, although
	 * fewer than IRN_SB_DUPTHRESH PSNs after it were delivered.
	 */
	{ "rack_lost_tail_resend_needs_no_dupthresh", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ MARK, 0 }, { ADVANCE, 1 }, { REWIND, 1, 3 },
		{ SENT, 1, 50 }, { SENT, 2, 50 }, { SENT, 3, 50 },
		{ SENT, 4, 60 }, { CLOCK, 0, 100 }, { MARK, 1 }, { MARK, 2 },
		{ MARK, 4 }, { ISLOST, 3, 0 }, { LOST, 3 }, { NONE },
		{ ISLOST, 3, 0 }, { ADVANCE, 3 }, { NONE } } },
	/*
	 * A re-requested read the responder holds (a SACK names it) is not
	 * found lost by RACK while held: its re-request arrived.  Executed,
	 * it waits for its replies until RACK's clock moves again, and is
	 * not forgotten behind the scan.
	 */
	{ "held_rerequest_not_racked", {
		{ SENT, 0, 0 }, { SENT, 1, 0 }, { SENT, 2, 0 }, { SENT, 3, 0 },
		{ MARK, 1 }, { MARK, 2 }, { MARK, 3 }, { CLOCK, 0, 10 },
		{ RECOVER, 6 }, { LOST, 0 }, { SENT, 0, 50 }, { SEEN, 0, 1 },
		{ SENT, 4, 60 }, { CLOCK, 0, 100 }, { MARK, 4 }, { NONE },
		{ EXECUTED, 0, 100 }, { NONE }, { SENT, 5, 70 },
		{ CLOCK, 0, 120 }, { MARK, 5 }, { LOST, 0 }, { NONE } } },
	/*
	 * A PSN the rewind has yet to send again is not found lost by RACK
	 * (it would go out twice); once sent, it is, like the rest.
	 */
	{ "rewind_pending_not_revived", {
		{ SENT, 0, 1 }, { CLOCK, 0, 21 }, { MARK, 0 }, { ADVANCE, 1 },
		{ MARK, 6 }, { MARK, 7 }, { REWIND, 1, 7 }, { SENT, 1, 50 },
		{ SENT, 2, 50 }, { CLOCK, 0, 100 }, { MARK, 2 }, { NONE },
		{ SENT, 3, 60 }, { SENT, 4, 60 }, { SENT, 5, 70 },
		{ CLOCK, 0, 150 }, { MARK, 5 }, { LOST, 1 }, { LOST, 3 },
		{ LOST, 4 }, { NONE } } },
	/*
	 * A held request's PSN is stamped when an ACK passes it; a later
	 * response overtaking it does not restart its reordering clock.
	 */
	{ "executed_stamp_stays", {
		{ SEEN, 0, 1 }, { MARK, 1 }, { MARK, 2 }, { MARK, 3 },
		{ MARK, 4 }, { CLOCK, 0, 12 }, { ISLOST, 0, 0 },
		{ EXECUTED, 0, 10 }, { OVERTAKEN, 1, 30 }, { CLOCK, 0, 35 },
		{ RECOVER, 5 }, { LOST, 0 }, { NONE } } },
	/*
	 * A read's reply moves RACK's clock when its PSN's time is a send
	 * time: the first response of a later read (its request's time)
	 * shows an earlier re-request lost ...
	 */
	{ "later_read_finds_lost_rerequest", {
		{ REPLY, 0 }, { OVERTAKEN, 2, 5 }, { REPLY, 2 }, { REPLY, 3 },
		{ REPLY, 4 }, { REPLY, 5 }, { CLOCK, 0, 20 }, { RECOVER, 12 },
		{ LOST, 1 }, { SENT, 1, 20 }, { NONE }, { SENT, 8, 30 },
		{ CLOCK, 0, 40 }, { NONE }, { REPLY_RTT, 8, 10 }, { LOST, 1 },
		{ NONE } } },
	/*
	 * ... and so does the reply to a later re-request, unless it came
	 * sooner after the re-request than a round trip (an earlier copy's).
	 */
	{ "rerequest_reply_moves_rack", {
		{ REPLY_RTT, 0, 15 }, { OVERTAKEN, 4, 5 }, { REPLY, 4 },
		{ REPLY, 5 }, { REPLY, 6 }, { REPLY, 7 }, { CLOCK, 0, 20 },
		{ RECOVER, 12 }, { LOST, 1 }, { SENT, 1, 20 }, { LOST, 2 },
		{ SENT, 2, 25 }, { LOST, 3 }, { SENT, 3, 26 }, { NONE },
		{ CLOCK, 0, 35 }, { REPLY, 2 }, { NONE }, { CLOCK, 0, 45 },
		{ REPLY, 3 }, { LOST, 1 }, { NONE } } },
	{ "timeout_flag_lasts_until_next_episode", {
		{ TIMEDOUT, 0, 0 }, { TIMEOUT, 4 }, { TIMEDOUT, 0, 1 },
		{ LOST, 0 }, { MARK, 0 }, { MARK, 1 }, { MARK, 2 },
		{ MARK, 3 }, { ADVANCE, 4 }, { INREC, 0, 0 },
		{ TIMEDOUT, 0, 1 }, { MARK, 5 }, { MARK, 6 }, { MARK, 7 },
		{ MARK, 8 }, { RECOVER, 9 }, { TIMEDOUT, 0, 0 } } },
	{ "advance_forgets", {
		{ MARK, 3 }, { MARK, 4 }, { MARK, 5 }, { MARK, 6 },
		{ ADVANCE, 7 }, { FIRST, 7 }, { NONE }, { ISLOST, 7, 0 } } },
};

struct sb_param {
	const struct sb_script	*script;
	u32			start;
};

static struct sb_param sb_params[ARRAY_SIZE(scripts) * 2];

static const void *sb_gen_params(const void *prev, char *desc)
{
	const struct sb_param *p = prev;
	size_t i = p ? p - sb_params + 1 : 0;

	if (i >= ARRAY_SIZE(sb_params))
		return NULL;
	sb_params[i].script = &scripts[i / 2];
	sb_params[i].start = i % 2 ? IRN_PSN_MASK - 2 : 100;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s@%#x",
		 sb_params[i].script->name, sb_params[i].start);
	return &sb_params[i];
}

static void irn_test_sb_script(struct kunit *test)
{
	const struct sb_param *p = test->param_value;
	const struct sb_step *s;
	struct irn_sb sb;
	u32 psn;
	int i;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 256, GFP_KERNEL), 0);
	irn_sb_reset(&sb, p->start);
	for (i = 0, s = p->script->steps; s->op != END; i++, s++) {
		u32 at = irn_psn_add(p->start, s->psn);

		switch (s->op) {
		case MARK:
			irn_sb_mark(&sb, at);
			break;
		case REPLY:
			KUNIT_EXPECT_TRUE_MSG(test, irn_sb_mark_reply(&sb, at, 0),
					      "step %d", i);
			break;
		case ADVANCE:
			irn_sb_advance(&sb, at);
			break;
		case LOST:
			KUNIT_ASSERT_TRUE_MSG(test, irn_sb_next_lost(&sb, &psn),
					      "step %d", i);
			KUNIT_EXPECT_EQ_MSG(test, psn, at, "step %d", i);
			irn_sb_mark_resent(&sb, psn, 1);
			break;
		case NONE:
			KUNIT_EXPECT_FALSE_MSG(test,
					       irn_sb_next_lost(&sb, &psn),
					       "step %d psn %#x", i, psn);
			break;
		case RECOVER:
			KUNIT_EXPECT_TRUE_MSG(test,
					      irn_sb_start_recovery(&sb, at),
					      "step %d", i);
			break;
		case NORECOVER:
			KUNIT_EXPECT_FALSE_MSG(test,
					       irn_sb_start_recovery(&sb, at),
					       "step %d", i);
			break;
		case TIMEOUT:
			irn_sb_timeout(&sb, at, false, 0);
			break;
		case FIRST:
			KUNIT_EXPECT_EQ_MSG(test, irn_sb_first_missing(&sb), at,
					    "step %d", i);
			break;
		case INREC:
			KUNIT_EXPECT_EQ_MSG(test, sb.in_recovery, !!s->n,
					    "step %d", i);
			break;
		case ISLOST:
			KUNIT_EXPECT_EQ_MSG(test, irn_sb_lost(&sb, at), !!s->n,
					    "step %d", i);
			break;
		case SENT:
			irn_sb_sent(&sb, at, s->n);
			break;
		case CLOCK:
			irn_sb_clock(&sb, s->n, 10);
			break;
		case RIPE:
			KUNIT_EXPECT_EQ_MSG(test, sb.ripe_ns, (u64)s->n,
					    "step %d", i);
			break;
		case OVERTAKEN:
			irn_sb_overtaken(&sb, p->start, at, s->n);
			break;
		case SEEN:
			irn_sb_seen(&sb, at, s->n, true);
			break;
		case ANSWERED:
			irn_sb_seen(&sb, at, s->n, false);
			break;
		case EXECUTED:
			irn_sb_executed(&sb, at, 1, s->n);
			break;
		case REORDERED:
			KUNIT_EXPECT_EQ_MSG(test, irn_sb_take_reordered(&sb),
					    !!s->n, "step %d", i);
			break;
		case REWIND:
			irn_sb_rewound(&sb, at, irn_psn_add(at, s->n));
			break;
		case REPLY_RTT:
			KUNIT_EXPECT_TRUE_MSG(test,
					      irn_sb_mark_reply(&sb, at, s->n),
					      "step %d", i);
			break;
		case TIMEDOUT:
			KUNIT_EXPECT_EQ_MSG(test, sb.timed_out, !!s->n,
					    "step %d", i);
			break;
		case END:
			break;
		}
	}
	irn_sb_free(&sb);
}

/*
 * Ten PSNs in flight from 100, 104 delivered.  A timeout with @all finds
 * the nine others lost, where without it only those below 105 are; the
 * lost ones not yet resent leave the pipe, one by one as they go again.
 */
static void irn_test_sb_timeout_all(struct kunit *test)
{
	struct irn_sb sb;
	u32 psn, i;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 64, GFP_KERNEL), 0);
	irn_sb_reset(&sb, 100);
	for (i = 0; i < 10; i++)
		irn_sb_sent(&sb, 100 + i, 1000);
	irn_sb_mark(&sb, 104);
	irn_sb_clock(&sb, 2000, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 0U);

	irn_sb_timeout(&sb, 110, false, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 4U);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(&sb, 105));

	irn_sb_timeout(&sb, 110, true, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 9U);
	for (i = 0; i < 9; i++) {
		KUNIT_ASSERT_TRUE(test, irn_sb_next_lost(&sb, &psn));
		KUNIT_EXPECT_EQ(test, psn, i < 4 ? 100 + i : 101 + i);
		irn_sb_mark_resent(&sb, psn, 1);
		KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 8 - i);
	}
	KUNIT_EXPECT_FALSE(test, irn_sb_next_lost(&sb, &psn));
	irn_sb_free(&sb);
}

/*
 * Ten PSNs in flight from 100, none delivered: 100-104 sent at 1000,
 * 105-109 at 8000.  A timeout at 10000 that waited 5000 for una finds
 * 100-104 lost too (their acknowledgments are as late as una's), not
 * 105-109; without its wait only una is.  A delivered PSN inside the run
 * does not end it.
 */
static void irn_test_sb_timeout_overdue(struct kunit *test)
{
	struct irn_sb sb;
	u32 i;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 64, GFP_KERNEL), 0);
	irn_sb_reset(&sb, 100);
	for (i = 0; i < 10; i++)
		irn_sb_sent(&sb, 100 + i, i < 5 ? 1000 : 8000);
	irn_sb_clock(&sb, 10000, 0);
	irn_sb_timeout(&sb, 110, false, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 1U);
	irn_sb_timeout(&sb, 110, false, 5000);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 5U);
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(&sb, 104));
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(&sb, 105));

	irn_sb_mark(&sb, 102);
	irn_sb_timeout(&sb, 110, false, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 2U);
	irn_sb_timeout(&sb, 110, false, 5000);
	KUNIT_EXPECT_EQ(test, irn_sb_lost_waiting(&sb), 4U);
	KUNIT_EXPECT_FALSE(test, irn_sb_lost(&sb, 102));
	KUNIT_EXPECT_TRUE(test, irn_sb_lost(&sb, 103));
	irn_sb_free(&sb);
}

/* Delivered PSNs before una count as delivered; marks are idempotent. */
static void irn_test_sb_mark_semantics(struct kunit *test)
{
	struct irn_sb sb;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 100, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, sb.size, 128U);
	irn_sb_reset(&sb, 0);
	KUNIT_EXPECT_TRUE(test, irn_sb_mark(&sb, 5));
	KUNIT_EXPECT_FALSE(test, irn_sb_mark(&sb, 5));
	KUNIT_EXPECT_EQ(test, irn_sb_weight(&sb), 1U);
	irn_sb_advance(&sb, 10);
	KUNIT_EXPECT_TRUE(test, irn_sb_test(&sb, 3));
	KUNIT_EXPECT_FALSE(test, irn_sb_test(&sb, 10));
	KUNIT_EXPECT_EQ(test, irn_sb_weight(&sb), 0U);
	KUNIT_EXPECT_FALSE(test, irn_sb_mark(&sb, 9));
	KUNIT_EXPECT_TRUE(test, irn_sb_mark_reply(&sb, 11, 0));
	KUNIT_EXPECT_EQ(test, irn_sb_weight(&sb), 1U);
	irn_sb_advance(&sb, 11);
	/* RTT samples: from the send time, none for a resent PSN (Karn) */
	irn_sb_sent(&sb, 12, 1000);
	irn_sb_sent(&sb, 13, 1000);
	irn_sb_mark_resent(&sb, 13, 1);
	KUNIT_EXPECT_EQ(test, irn_sb_rtt(&sb, 12, 1700), 700ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_rtt(&sb, 13, 1700), 0ULL);
	/* ... nor after a timeout opens a new episode: which copy is unknown */
	irn_sb_rewound(&sb, 14, 15);
	irn_sb_sent(&sb, 14, 1200);
	irn_sb_timeout(&sb, 15, false, 0);
	KUNIT_EXPECT_EQ(test, irn_sb_rtt(&sb, 13, 1700), 0ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_rtt(&sb, 14, 1700), 0ULL);
	KUNIT_EXPECT_EQ(test, irn_sb_rtt(&sb, 12, 1700), 700ULL);
	irn_sb_free(&sb);
}

/*
 * A SACK's bits keep only the PSNs not yet delivered, read from the ring a
 * word at a time: at PSN 100 the words straddle the ring's end, at
 * 0xfffffd the PSNs wrap too.
 */
static void irn_test_sb_drop_known(struct kunit *test)
{
	static const u32 starts[] = { 100, 0xfffffd };
	static const u32 got[] = { 1, 60, 64, 100, 127 };
	DECLARE_BITMAP(bits, 256);
	struct irn_sb sb;
	u32 k, i, j;
	bool known;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 128, GFP_KERNEL), 0);
	for (k = 0; k < ARRAY_SIZE(starts); k++) {
		irn_sb_reset(&sb, starts[k]);
		for (j = 0; j < ARRAY_SIZE(got); j++)
			irn_sb_mark(&sb, irn_psn_add(starts[k], got[j]));
		bitmap_fill(bits, 256);
		/* Bit i is PSN start + 1 + i; tracked up to start + 127. */
		irn_sb_drop_known(&sb, irn_psn_add(starts[k], 1), bits, 256);
		for (i = 0; i < 127; i++) {
			for (known = false, j = 0; j < ARRAY_SIZE(got); j++)
				known |= got[j] == i + 1;
			KUNIT_EXPECT_EQ_MSG(test, test_bit(i, bits), !known,
					    "start %#x bit %u", starts[k], i);
		}
	}
	irn_sb_free(&sb);
}

/*
 * A held read of 1000 PSNs at 0x1000 (or straddling the wrap), writes of
 * 200 after it, and a thousand acknowledgments that pass the read while
 * its responses are missing: the scoreboard walks each of the read's
 * PSNs once, not once per acknowledgment (a peer repeating ACKs must not
 * buy a walk of the whole window each time), and an older SACK naming
 * the read after it was executed leaves its marks alone.
 */
static void irn_test_sb_walk_once(struct kunit *test)
{
	static const u32 starts[] = { 0x1000, 0xfffe00 };
	struct irn_sb sb;
	u32 k, i, rd;

	KUNIT_ASSERT_EQ(test, irn_sb_init(&sb, 2048, GFP_KERNEL), 0);
	for (k = 0; k < ARRAY_SIZE(starts); k++) {
		rd = starts[k];
		irn_sb_reset(&sb, rd);
		sb.walked = 0;
		irn_sb_seen(&sb, rd, 1000, true);
		irn_sb_seen(&sb, rd, 1000, true);
		KUNIT_EXPECT_LE(test, sb.walked, 2000ULL);
		for (i = 1; i <= 1000; i++) {
			u32 wr = irn_psn_add(rd, 1000);

			irn_sb_executed(&sb, rd, 1000, 5000 + i);
			KUNIT_EXPECT_EQ(test, irn_sb_acked_from(&sb, wr),
					i == 1 ? wr : irn_psn_add(wr, 200));
			irn_sb_acked_to(&sb, irn_psn_add(rd, 1199));
			irn_sb_seen(&sb, rd, 1000, true);
		}
		KUNIT_EXPECT_LE_MSG(test, sb.walked, 3000ULL,
				    "start %#x: %llu PSNs walked", rd, sb.walked);
		/* Executed once, at 5001: the reordering clock of each. */
		KUNIT_EXPECT_EQ(test, sb.sent_ns[(rd + 999) & (sb.size - 1)],
				5001ULL);
		irn_sb_advance(&sb, irn_psn_add(rd, 1500));
		KUNIT_EXPECT_EQ(test, sb.executed_to, irn_psn_add(rd, 1500));
		KUNIT_EXPECT_EQ(test, sb.acked_to, irn_psn_add(rd, 1500));
	}
	irn_sb_free(&sb);
}

static struct kunit_case irn_sb_cases[] = {
	KUNIT_CASE_PARAM(irn_test_sb_script, sb_gen_params),
	KUNIT_CASE(irn_test_sb_mark_semantics),
	KUNIT_CASE(irn_test_sb_timeout_all),
	KUNIT_CASE(irn_test_sb_timeout_overdue),
	KUNIT_CASE(irn_test_sb_drop_known),
	KUNIT_CASE(irn_test_sb_walk_once),
	{}
};

struct kunit_suite irn_sb_suite = {
	.name = "irn_sb",
	.test_cases = irn_sb_cases,
};
