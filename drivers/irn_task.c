// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Engine scheduling; see irn_task.h for the model.
 *
 * The run state is a small lock-free state machine:
 *
 *   IDLE    --run/sched-->  BUSY
 *   BUSY    --run/sched-->  AGAIN     (the running instance loops again)
 *   AGAIN   --loop-->       BUSY
 *   BUSY    --engine idle-> IDLE
 *
 * Only the caller that moves IDLE to BUSY executes the engine, so one
 * instance runs at a time without a lock, and a request that arrives while
 * it runs is never lost.
 */

#include <linux/sched.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "irn_task.h"

enum {
	RUN_IDLE,
	RUN_BUSY,
	RUN_AGAIN,
};

static struct workqueue_struct *irn_wq;

/* Returns true if the caller now owns the run. */
static bool task_claim(struct irn_task *task)
{
	int old = atomic_read(&task->state);

	for (;;) {
		int new = old == RUN_IDLE ? RUN_BUSY : RUN_AGAIN;

		if (atomic_try_cmpxchg(&task->state, &old, new))
			return old == RUN_IDLE;
	}
}

/* Returns true if the run ended; false if someone asked for another. */
static bool task_release(struct irn_task *task)
{
	int old = RUN_BUSY;

	if (atomic_try_cmpxchg(&task->state, &old, RUN_IDLE))
		return true;
	/* old is AGAIN: go round again. */
	atomic_set(&task->state, RUN_BUSY);
	return false;
}

static void task_do_run(struct irn_task *task)
{
	int budget = IRN_TASK_BUDGET;

	for (;;) {
		while (!READ_ONCE(task->disabled) &&
		       task->fn(task) == IRN_TASK_MORE) {
			if (--budget)
				continue;
			/* Keep BUSY: the work item owns the run now. */
			queue_work(irn_wq, &task->work);
			return;
		}
		if (task_release(task))
			return;
		/*
		 * Asked again while the engine found nothing to do: that
		 * round is on the budget too, or whoever keeps asking (a
		 * transmit completion, another CPU) keeps this context here.
		 */
		if (!--budget) {
			queue_work(irn_wq, &task->work);
			return;
		}
	}
}

static void task_work(struct work_struct *work)
{
	task_do_run(container_of(work, struct irn_task, work));
}

/**
 * irn_task_init() - set up an engine task
 * @task: task
 * @fn: engine
 *
 * Context: any.
 */
void irn_task_init(struct irn_task *task, irn_task_fn fn)
{
	atomic_set(&task->state, RUN_IDLE);
	INIT_WORK(&task->work, task_work);
	task->fn = fn;
	task->disabled = false;
}
EXPORT_SYMBOL_IF_KUNIT(irn_task_init);

/**
 * irn_task_run() - run the engine now, here, unless it is running already
 * @task: task
 *
 * Context: process or softirq context; no irn locks held.
 */
void irn_task_run(struct irn_task *task)
{
	if (!READ_ONCE(task->disabled) && task_claim(task))
		task_do_run(task);
}
EXPORT_SYMBOL_IF_KUNIT(irn_task_run);

/**
 * irn_task_sched() - run the engine soon, from the workqueue
 * @task: task
 *
 * Context: any, including hard interrupts.
 */
void irn_task_sched(struct irn_task *task)
{
	if (!READ_ONCE(task->disabled) && task_claim(task))
		queue_work(irn_wq, &task->work);
}
EXPORT_SYMBOL_IF_KUNIT(irn_task_sched);

/**
 * irn_task_flush() - wait for the runs and work items a task still has
 * @task: disabled task
 *
 * A caller that found @task enabled just before irn_task_disable() can
 * still start a run or queue the work item after it.  Once nothing that
 * schedules @task is left (timers cancelled, packets gone), this waits
 * for such stragglers, so that @task's memory can be freed or set up
 * again.
 *
 * Context: process context, may sleep.
 */
void irn_task_flush(struct irn_task *task)
{
	WARN_ON_ONCE(!READ_ONCE(task->disabled));
	flush_work(&task->work);
	/* A run inline in another context ends at its next round. */
	while (atomic_read(&task->state) != RUN_IDLE)
		cond_resched();
	flush_work(&task->work);
}
EXPORT_SYMBOL_IF_KUNIT(irn_task_flush);

/**
 * irn_task_disable() - stop the engine for good
 * @task: task
 *
 * Waits for a run in progress; later irn_task_run() or irn_task_sched()
 * calls do nothing, except those racing with this one: irn_task_flush().
 *
 * Context: process context, may sleep.
 */
void irn_task_disable(struct irn_task *task)
{
	WRITE_ONCE(task->disabled, true);
	/* The flag before the state: pairs with the claims' cmpxchg. */
	smp_mb();
	irn_task_flush(task);
}
EXPORT_SYMBOL_IF_KUNIT(irn_task_disable);

/**
 * irn_task_module_init() - create the engines' workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int irn_task_module_init(void)
{
	irn_wq = alloc_workqueue("irn", WQ_HIGHPRI | WQ_UNBOUND |
				 WQ_MEM_RECLAIM, 0);
	return irn_wq ? 0 : -ENOMEM;
}

/**
 * irn_task_module_exit() - destroy the engines' workqueue
 *
 * Context: module exit; every task is disabled.
 */
void irn_task_module_exit(void)
{
	destroy_workqueue(irn_wq);
}
