/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Engine scheduling: each QP engine (requester, responder, completer) is a
 * task that runs one instance at a time.
 *
 * irn_task_run() runs the engine in the caller's context (the doorbell
 * syscall, or the softirq that received a packet) when it is idle, which is
 * the fast path; if the engine is already running somewhere, that instance
 * is asked to go round once more.  An engine that has done a budget's worth
 * of work yields to a high-priority unbound workqueue instead of hogging a
 * softirq, and timers only ever schedule.  High-priority kworkers run at
 * nice -20, so a process busy-polling the only CPU cannot starve them the
 * way it starves ksoftirqd.
 */
#ifndef _IRN_TASK_H
#define _IRN_TASK_H

#include <linux/atomic.h>
#include <linux/workqueue.h>

struct irn_task;

/*
 * Engine rounds one run takes in its caller's context (or one work item)
 * before it yields to the workqueue: rounds that found more to do, and
 * rounds that found none but were asked for again meanwhile.
 */
#define IRN_TASK_BUDGET		64

/*
 * An engine returns IRN_TASK_MORE while it has work it could still do, and
 * IRN_TASK_IDLE when it has nothing left (or must wait for an event that
 * will schedule it again).
 */
enum irn_task_ret {
	IRN_TASK_IDLE,
	IRN_TASK_MORE,
};

typedef enum irn_task_ret (*irn_task_fn)(struct irn_task *task);

/**
 * struct irn_task - one engine of one QP
 * @state: IRN_TASK_* run state
 * @work: deferred runs
 * @fn: the engine
 * @disabled: no new runs start (QP being destroyed)
 */
struct irn_task {
	atomic_t		state;
	struct work_struct	work;
	irn_task_fn		fn;
	bool			disabled;
};

int irn_task_module_init(void);
void irn_task_module_exit(void);

void irn_task_init(struct irn_task *task, irn_task_fn fn);
void irn_task_run(struct irn_task *task);
void irn_task_sched(struct irn_task *task);
void irn_task_disable(struct irn_task *task);
void irn_task_flush(struct irn_task *task);

#endif /* _IRN_TASK_H */
