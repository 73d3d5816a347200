// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SRQ: the limit event, and the stage of WQEs a QP takes for messages
 * that arrive early (in message order, bounded by the stage and by what
 * was posted, kept until their messages complete).
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include "irn_kunit.h"
#include "irn_srq.h"

static struct irn_srq *make_srq(struct kunit *test, u32 max_wr, u32 max_sge)
{
	struct irn_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, srq);
	spin_lock_init(&srq->rq.lock);
	srq->rq.max_sge = max_sge;
	KUNIT_ASSERT_EQ(test, irn_queue_init(&srq->rq.queue, max_wr,
					     irn_srq_wqe_size(srq), false), 0);
	return srq;
}

static void post(struct kunit *test, struct irn_srq *srq, u64 wr_id, u32 n)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};

	for (; n; n--, wr_id++) {
		wr.wr_id = wr_id;
		KUNIT_ASSERT_EQ(test, irn_srq_post_recv(&srq->ib_srq, &wr, &bad),
				0);
	}
}

static u32 left(struct irn_srq *srq)
{
	return (irn_wq_producer(&srq->rq) - srq->rq.queue.index) &
	       srq->rq.queue.mask;
}

/* wr_id of the WQE staged for message @rsn, or 0 if there is none. */
static u64 got(struct irn_srq_stage *st, struct irn_srq *srq, u32 head,
	       u32 rsn)
{
	struct rxe_recv_wqe *wqe = irn_srq_stage_get(st, srq, head, rsn);

	return wqe ? wqe->wr_id : 0;
}

/* wr_id of the oldest message's WQE, or 0 if none is staged. */
static u64 head_id(struct irn_srq_stage *st, u32 head)
{
	struct rxe_recv_wqe *wqe = irn_srq_stage_head(st, head);

	return wqe ? wqe->wr_id : 0;
}

static int limit_events;

static void count_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		limit_events++;
}

/* The limit event fires once, when fewer than the limit remain. */
static void irn_test_srq_limit(struct kunit *test)
{
	struct irn_srq *srq = make_srq(test, 8, 1);
	struct irn_srq_stage st;

	KUNIT_ASSERT_EQ(test, irn_srq_stage_init(&st, srq, 8), 0);
	srq->ib_srq.event_handler = count_event;
	srq->limit = 2;
	limit_events = 0;
	post(test, srq, 1, 4);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 1), 2ULL);	/* 2 left */
	KUNIT_EXPECT_EQ(test, limit_events, 0);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 2), 3ULL);	/* 1 left */
	KUNIT_EXPECT_EQ(test, limit_events, 1);
	KUNIT_EXPECT_EQ(test, srq->limit, 0U);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 3), 4ULL);
	KUNIT_EXPECT_EQ(test, limit_events, 1);
	irn_srq_stage_free(&st);
	irn_queue_cleanup(&srq->rq.queue);
}

/*
 * A message that arrives early takes the WQEs of those before it too, in
 * order; the oldest is completed first; message numbers wrap.
 */
static void irn_test_srq_stage_order(struct kunit *test)
{
	struct irn_srq *srq = make_srq(test, 8, 1);
	u32 head = U32_MAX - 1;
	struct irn_srq_stage st;

	KUNIT_ASSERT_EQ(test, irn_srq_stage_init(&st, srq, 4), 0);
	KUNIT_ASSERT_EQ(test, st.mask, 3U);
	post(test, srq, 100, 6);
	KUNIT_EXPECT_EQ(test, head_id(&st, head), 0ULL);
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head + 2), 102ULL);
	KUNIT_EXPECT_EQ(test, st.count, 3U);
	KUNIT_EXPECT_EQ(test, left(srq), 3U);
	/* Taken already: nothing more leaves the SRQ. */
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head), 100ULL);
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head + 1), 101ULL);
	KUNIT_EXPECT_EQ(test, left(srq), 3U);
	KUNIT_EXPECT_EQ(test, head_id(&st, head), 100ULL);

	irn_srq_stage_pop(&st);
	head++;
	KUNIT_EXPECT_EQ(test, head_id(&st, head), 101ULL);
	/* Across the wrap of the message numbers, up to the stage's end. */
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head + 3), 104ULL);
	KUNIT_EXPECT_EQ(test, st.count, 4U);
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head + 2), 103ULL);
	/* Beyond the stage: refused, and nothing is taken. */
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head + 4), 0ULL);
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head - 1), 0ULL);
	KUNIT_EXPECT_EQ(test, left(srq), 1U);
	while (irn_srq_stage_head(&st, head)) {
		irn_srq_stage_pop(&st);
		head++;
	}
	KUNIT_EXPECT_EQ(test, head, 3U);
	KUNIT_EXPECT_EQ(test, got(&st, srq, head, head), 105ULL);
	irn_srq_stage_free(&st);
	irn_queue_cleanup(&srq->rq.queue);
}

/* The SRQ runs dry: what was taken stays staged, the rest comes later. */
static void irn_test_srq_stage_dry(struct kunit *test)
{
	struct irn_srq *srq = make_srq(test, 8, 1);
	struct irn_srq_stage st;

	KUNIT_ASSERT_EQ(test, irn_srq_stage_init(&st, srq, 8), 0);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 0), 0ULL);
	post(test, srq, 10, 2);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 3), 0ULL);
	KUNIT_EXPECT_EQ(test, st.count, 2U);
	KUNIT_EXPECT_EQ(test, left(srq), 0U);
	post(test, srq, 12, 2);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 3), 13ULL);
	KUNIT_EXPECT_EQ(test, got(&st, srq, 0, 0), 10ULL);
	irn_srq_stage_free(&st);
	irn_queue_cleanup(&srq->rq.queue);
}

/* The stage is a power of two, within its byte budget, at least one. */
static void irn_test_srq_stage_size(struct kunit *test)
{
	struct irn_srq *srq = make_srq(test, 8, IRN_MAX_SRQ_SGE);
	size_t size = irn_srq_wqe_size(srq);
	struct irn_srq_stage st;
	u32 n;

	KUNIT_ASSERT_EQ(test, irn_srq_stage_init(&st, srq, 4096), 0);
	n = st.mask + 1;
	KUNIT_EXPECT_TRUE(test, is_power_of_2(n));
	KUNIT_EXPECT_LE(test, n * size, (size_t)IRN_SRQ_STAGE_BYTES);
	KUNIT_EXPECT_GT(test, 2 * n * size, (size_t)IRN_SRQ_STAGE_BYTES);
	irn_srq_stage_free(&st);
	KUNIT_ASSERT_EQ(test, irn_srq_stage_init(&st, srq, 1), 0);
	KUNIT_EXPECT_EQ(test, st.mask, 0U);
	irn_srq_stage_free(&st);
	irn_queue_cleanup(&srq->rq.queue);
}

static struct kunit_case irn_srq_cases[] = {
	KUNIT_CASE(irn_test_srq_limit),
	KUNIT_CASE(irn_test_srq_stage_order),
	KUNIT_CASE(irn_test_srq_stage_dry),
	KUNIT_CASE(irn_test_srq_stage_size),
	{}
};

struct kunit_suite irn_srq_suite = {
	.name = "irn_srq",
	.test_cases = irn_srq_cases,
};
