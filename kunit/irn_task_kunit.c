// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Engine scheduling: how long one run keeps its caller's context.
 */

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>

#include "irn_kunit.h"
#include "irn_task.h"

/*
 * An engine that does nothing but count its rounds; until @ask_until
 * rounds it asks for another (as a transmit completion or a timer does
 * while it runs) and returns @ret.
 */
struct task_probe {
	struct irn_task		task;
	int			rounds;
	int			ask_until;
	enum irn_task_ret	ret;
};

static enum irn_task_ret probe_fn(struct irn_task *task)
{
	struct task_probe *p = container_of(task, struct task_probe, task);

	if (++p->rounds >= p->ask_until)
		return IRN_TASK_IDLE;
	if (p->ret == IRN_TASK_IDLE)
		irn_task_sched(task);
	return p->ret;
}

/* A probe off the stack: its work item may be queued (ODEBUG). */
static struct task_probe *new_probe(struct kunit *test, int ask_until,
				    enum irn_task_ret ret)
{
	struct task_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->ask_until = ask_until;
	p->ret = ret;
	irn_task_init(&p->task, probe_fn);
	return p;
}

/* Run @p from a softirq-like context; the rounds it took there. */
static int run_inline(struct task_probe *p)
{
	int rounds;

	local_bh_disable();
	irn_task_run(&p->task);
	rounds = READ_ONCE(p->rounds);
	local_bh_enable();
	return rounds;
}

/* Let the workqueue finish what the inline run left, then stop. */
static void finish(struct kunit *test, struct task_probe *p)
{
	int i;

	for (i = 0; i < 500 && READ_ONCE(p->rounds) < p->ask_until; i++)
		usleep_range(5000, 10000);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->rounds), p->ask_until);
	irn_task_disable(&p->task);
}

/* Rounds with more to do yield to the workqueue after the budget. */
static void irn_test_task_budget_more(struct kunit *test)
{
	struct task_probe *p = new_probe(test, 4 * IRN_TASK_BUDGET,
					 IRN_TASK_MORE);

	KUNIT_EXPECT_EQ(test, run_inline(p), IRN_TASK_BUDGET);
	finish(test, p);
}

/*
 * Idle rounds asked for again each time: an engine that sends, returns
 * IDLE, and hears from its packets' destructor before it releases the
 * run.  They count against the same budget, or the caller's softirq
 * never ends.
 */
static void irn_test_task_budget_idle_again(struct kunit *test)
{
	struct task_probe *p = new_probe(test, 4 * IRN_TASK_BUDGET,
					 IRN_TASK_IDLE);

	KUNIT_EXPECT_LE(test, run_inline(p), IRN_TASK_BUDGET);
	finish(test, p);
}

/* One request during a run: one more round, inline, and the run ends. */
static void irn_test_task_again_once(struct kunit *test)
{
	struct task_probe *p = new_probe(test, 2, IRN_TASK_IDLE);

	KUNIT_EXPECT_EQ(test, run_inline(p), 2);
	KUNIT_EXPECT_FALSE(test, work_pending(&p->task.work));
	irn_task_disable(&p->task);
	KUNIT_EXPECT_EQ(test, p->rounds, 2);
}

static struct kunit_case irn_task_cases[] = {
	KUNIT_CASE(irn_test_task_budget_more),
	KUNIT_CASE(irn_test_task_budget_idle_again),
	KUNIT_CASE(irn_test_task_again_once),
	{}
};

struct kunit_suite irn_task_suite = {
	.name = "irn_task",
	.test_cases = irn_task_cases,
};
