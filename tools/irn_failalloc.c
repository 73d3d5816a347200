// SPDX-License-Identifier: GPL-2.0
/*
 * irn_failalloc - fail every slab allocation of every verb, one at a time.
 *
 * Systematic fault injection through failslab and the per-thread
 * /proc/thread-self/fail-nth knob: writing N there makes the N-th
 * fault-injection point this thread reaches fail (a kmalloc() or
 * kmem_cache_alloc() of the uverbs layer, the RDMA core or the driver,
 * in process context).  For each operation below, and for N = 1, 2, ...,
 * the program prepares the operation's preconditions with no fault armed,
 * arms the N-th failure, runs the operation (one verb, or one post and
 * its doorbell), disarms, waits for what the operation must produce (a
 * completion within WAIT_MS, the data at the target), undoes everything
 * and goes on with N + 1, until the operation runs through without
 * reaching its N-th allocation: then every allocation on its path has
 * failed once.
 *
 * A failed operation must return an error (or give an error completion)
 * and leave nothing behind that cannot be destroyed.  A misbehaviour,
 * which makes the exit status 1, is: an operation that fails although no
 * fault was injected, a posted work request without a completion within
 * WAIT_MS, a successful RDMA WRITE, READ or SEND whose bytes did not
 * arrive, a destroy that still fails once the faults are off, or a final
 * clean round (all operations, nothing injected) that does not pass.
 * What the kernel itself must not do (crash, leak, report) is checked by
 * the caller, from dmesg.
 *
 * Needs root, CONFIG_FAULT_INJECTION and failslab with GFP_KERNEL
 * allocations not ignored (debugfs failslab/ignore-gfp-wait = N, and
 * probability 0 so that only fail-nth injects).  The program locks its
 * memory first so that no page fault of its own (a network root file
 * system) meets an injected failure.
 *
 * With -t SECONDS it does not inject anything itself: it repeats the
 * operations that move data for that long, while the caller makes
 * allocations fail in every context (failslab's probability and cache
 * filter), and checks the same: a completion for every request, the
 * bytes of every successful one.
 *
 *   irn_failalloc -d DEV [-g GID_INDEX] [-m MAX_NTH | -t SECONDS] [-v]
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "irn_tool.h"

#define BUF_LEN		(256 * 1024)
#define XFER_LEN	(64 * 1024)
#define SMALL_LEN	4096
#define UD_LEN		256	/* within any path MTU */
#define FIND_TRIES	50
#define WAIT_MS		10000
#define UD_RECV_MS	1000
#define MAX_CQES	2	/* an operation waits for a send and its receive */
#define DEPTH		32
#define MAX_NTH_DFLT	400
#define UD_QKEY		0x1a2b3c4d
#define GRH_LEN		40
#define HEAP_RESERVE	(32 << 20)
#define N_ERRS		8
#define N_STATUS	32

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What a test is made of; all of it is created and destroyed per trial. */
struct scene {
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	struct ibv_ah *ah;
	struct ibv_mw *mw;
};

struct fa {
	const char *dev_name;
	int gid_idx;
	int max_nth;
	int verbose;
	int nth_fd;

	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	struct ibv_pd *pd;		/* lives for the whole run */
	struct ibv_mr *mr;		/* on buf, every access right */
	unsigned char *buf;
	unsigned char *pat;		/* the pattern moved by every transfer */

	int soak_secs;			/* -t: repeat the transfers this long */

	int bad;			/* misbehaviours */
	long trials, injected;
	long verified, cqe_errors;
	long status[N_STATUS];		/* error completions by status */
};

/*
 * One operation under test.  prep and undo run with no fault armed; run is
 * the operation itself, armed, and returns 0 or an errno; settle (no fault
 * armed) waits for and checks what a successful run must produce, and
 * returns 0, or -1 for a misbehaviour it has reported.
 */
struct op {
	const char *name;
	int (*prep)(struct fa *fa, struct scene *s);
	int (*run)(struct fa *fa, struct scene *s);
	int (*settle)(struct fa *fa, struct scene *s);
	long ok, failed, hit;
	int errs[N_ERRS], nerrs;
};

static void misbehaves(struct fa *fa, const struct op *op, int nth,
		       const char *fmt, ...)
{
	va_list ap;

	fa->bad++;
	printf("BAD %s nth %d: ", op->name, nth);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* fail-nth */

/* Arm: the nth fault-injection point this thread reaches fails. */
static int arm(struct fa *fa, int nth)
{
	char s[16];
	int n = snprintf(s, sizeof(s), "%d", nth);

	return pwrite(fa->nth_fd, s, n, 0) == n ? 0 : -1;
}

/* Disarm; returns 1 if the armed failure was injected, 0 if not, -1. */
static int disarm(struct fa *fa)
{
	char s[16] = "";
	ssize_t n;

	n = pread(fa->nth_fd, s, sizeof(s) - 1, 0);
	if (n <= 0 || pwrite(fa->nth_fd, "0", 1, 0) != 1)
		return -1;
	return atoi(s) == 0;
}

/* ------------------------------------------------------------------ */
/* building blocks, used unarmed by prep and undo and armed by run */

static int errno_or(int fallback)
{
	return errno ? errno : fallback;
}

static struct ibv_qp *make_qp(struct fa *fa, struct scene *s,
			      enum ibv_qp_type type, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = s->cq;
	a.recv_cq = s->cq;
	a.srq = srq;
	a.qp_type = type;
	a.cap.max_send_wr = DEPTH;
	a.cap.max_recv_wr = srq ? 0 : DEPTH;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 2;
	a.cap.max_inline_data = 64;
	return ibv_create_qp(s->pd ? s->pd : fa->pd, &a);
}

static void fill_ah(struct fa *fa, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = fa->gid;
	ah->grh.sgid_index = fa->gid_idx;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

/* INIT, RTR, RTS: RC to dest_qpn on this device, or UD. */
static int connect_qp(struct fa *fa, struct ibv_qp *qp, __u32 dest_qpn)
{
	int rc_qp = qp->qp_type == IBV_QPT_RC, mask;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (rc_qp) {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	} else {
		a.qkey = UD_QKEY;
		mask |= IBV_QP_QKEY;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return errno_or(EIO);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (rc_qp) {
		a.path_mtu = fa->pattr.active_mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 0x100;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		fill_ah(fa, &a.ah_attr);
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return errno_or(EIO);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x100;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc_qp) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask) ? errno_or(EIO) : 0;
}

/* Destroy, unarmed, everything in the scene. */
static int undo(struct fa *fa, struct scene *s)
{
	int i, err = 0;

	if (s->mw && ibv_dealloc_mw(s->mw))
		err = errno_or(EIO);
	if (s->ah && ibv_destroy_ah(s->ah))
		err = errno_or(EIO);
	for (i = 0; i < 2; i++)
		if (s->qp[i] && ibv_destroy_qp(s->qp[i]))
			err = errno_or(EIO);
	if (s->srq && ibv_destroy_srq(s->srq))
		err = errno_or(EIO);
	if (s->cq && ibv_destroy_cq(s->cq))
		err = errno_or(EIO);
	if (s->mr && ibv_dereg_mr(s->mr))
		err = errno_or(EIO);
	if (s->pd && ibv_dealloc_pd(s->pd))
		err = errno_or(EIO);
	memset(s, 0, sizeof(*s));
	(void)fa;
	return err;
}

static int prep_cq(struct fa *fa, struct scene *s)
{
	s->cq = ibv_create_cq(fa->ctx, 2 * DEPTH, NULL, NULL, 0);
	return s->cq ? 0 : errno_or(EIO);
}

/* Two RC QPs connected to each other, receiving through the SRQ. */
static int prep_pair(struct fa *fa, struct scene *s)
{
	struct ibv_srq_init_attr sa;
	int i, err;

	err = prep_cq(fa, s);
	if (err)
		return err;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = DEPTH;
	sa.attr.max_sge = 2;
	s->srq = ibv_create_srq(fa->pd, &sa);
	if (!s->srq)
		return errno_or(EIO);
	for (i = 0; i < 2; i++) {
		s->qp[i] = make_qp(fa, s, IBV_QPT_RC, s->srq);
		if (!s->qp[i])
			return errno_or(EIO);
	}
	for (i = 0; i < 2; i++) {
		err = connect_qp(fa, s->qp[i], s->qp[!i]->qp_num);
		if (err)
			return err;
	}
	return 0;
}

static int post(struct ibv_qp *qp, enum ibv_wr_opcode opc,
		struct ibv_mr *mr, size_t src, size_t dst, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr + src,
		.length = len,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = opc;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opc;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + dst;
	wr.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(qp, &wr, &bad) ? errno_or(EIO) : 0;
}

/*
 * Wait for n completions (at most MAX_CQES), ms at most; returns how many
 * succeeded, or -1 if fewer than n arrived.
 */
static int wait_cqes(struct fa *fa, struct ibv_cq *cq, int n,
		     unsigned int ms)
{
	struct ibv_wc wc[MAX_CQES];
	int got, good = 0, i;

	got = irn_tool_poll_cq(cq, wc, n < MAX_CQES ? n : MAX_CQES, ms);
	if (got < 0)
		return -1;
	for (i = 0; i < got; i++) {
		good += wc[i].status == IBV_WC_SUCCESS;
		if (wc[i].status != IBV_WC_SUCCESS) {
			fa->cqe_errors++;
			fa->status[wc[i].status % N_STATUS]++;
		}
	}
	return got < n ? -1 : good;
}

/* Fill the source range with the pattern and clear the target range. */
static void stage(struct fa *fa, size_t src, size_t dst, size_t len)
{
	memcpy(fa->buf + src, fa->pat, len);
	memset(fa->buf + dst, 0, len);
}

static int landed(struct fa *fa, size_t dst, size_t len)
{
	if (memcmp(fa->buf + dst, fa->pat, len))
		return 0;
	fa->verified += len;
	return 1;
}

/* ------------------------------------------------------------------ */
/* the operations */

static int run_alloc_pd(struct fa *fa, struct scene *s)
{
	s->pd = ibv_alloc_pd(fa->ctx);
	return s->pd ? 0 : errno_or(EIO);
}

static int run_reg_mr(struct fa *fa, struct scene *s)
{
	s->mr = ibv_reg_mr(fa->pd, fa->buf + BUF_LEN / 2, BUF_LEN / 2,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
	return s->mr ? 0 : errno_or(EIO);
}

static int run_create_cq(struct fa *fa, struct scene *s)
{
	return prep_cq(fa, s);
}

static int prep_small_cq(struct fa *fa, struct scene *s)
{
	s->cq = ibv_create_cq(fa->ctx, 4, NULL, NULL, 0);
	return s->cq ? 0 : errno_or(EIO);
}

static int run_resize_cq(struct fa *fa, struct scene *s)
{
	(void)fa;
	return ibv_resize_cq(s->cq, 4 * DEPTH) ? errno_or(EIO) : 0;
}

static int run_create_srq(struct fa *fa, struct scene *s)
{
	struct ibv_srq_init_attr sa;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = DEPTH;
	sa.attr.max_sge = 2;
	s->srq = ibv_create_srq(fa->pd, &sa);
	return s->srq ? 0 : errno_or(EIO);
}

static int run_create_qp(struct fa *fa, struct scene *s)
{
	s->qp[0] = make_qp(fa, s, IBV_QPT_RC, NULL);
	return s->qp[0] ? 0 : errno_or(EIO);
}

static int prep_two_qps(struct fa *fa, struct scene *s)
{
	int i, err = prep_cq(fa, s);

	for (i = 0; i < 2 && !err; i++) {
		s->qp[i] = make_qp(fa, s, IBV_QPT_RC, NULL);
		if (!s->qp[i])
			err = errno_or(EIO);
	}
	return err;
}

static int run_connect(struct fa *fa, struct scene *s)
{
	int err = connect_qp(fa, s->qp[0], s->qp[1]->qp_num);

	return err ? err : connect_qp(fa, s->qp[1], s->qp[0]->qp_num);
}

/* A connected pair; the pattern at 0, the range after it cleared. */
static int prep_xfer(struct fa *fa, struct scene *s)
{
	stage(fa, 0, XFER_LEN, XFER_LEN);
	return prep_pair(fa, s);
}

/* WRITE the pattern from 0 to XFER_LEN. */
static int run_write(struct fa *fa, struct scene *s)
{
	return post(s->qp[0], IBV_WR_RDMA_WRITE, fa->mr, 0, XFER_LEN,
		    XFER_LEN);
}

/* READ the pattern at 0 into XFER_LEN. */
static int run_read(struct fa *fa, struct scene *s)
{
	return post(s->qp[0], IBV_WR_RDMA_READ, fa->mr, XFER_LEN, 0,
		    XFER_LEN);
}

/* The write or read completes; if it succeeded, the pattern arrived. */
static int settle_xfer(struct fa *fa, struct scene *s)
{
	int good = wait_cqes(fa, s->cq, 1, WAIT_MS);

	if (good < 0)
		return -1;
	return good && !landed(fa, XFER_LEN, XFER_LEN) ? -2 : 0;
}

static int prep_send(struct fa *fa, struct scene *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)fa->buf + XFER_LEN,
		.length = SMALL_LEN,
		.lkey = fa->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int err;

	stage(fa, 0, XFER_LEN, SMALL_LEN);
	err = prep_pair(fa, s);
	if (!err && ibv_post_srq_recv(s->srq, &wr, &bad))
		err = errno_or(EIO);
	return err;
}

static int run_send(struct fa *fa, struct scene *s)
{
	return post(s->qp[0], IBV_WR_SEND, fa->mr, 0, 0, SMALL_LEN);
}

/* The send and its receive: both complete, and the bytes arrived. */
static int settle_send(struct fa *fa, struct scene *s)
{
	int good = wait_cqes(fa, s->cq, 2, WAIT_MS);

	if (good < 0)
		return -1;
	return good == 2 && !landed(fa, XFER_LEN, SMALL_LEN) ? -2 : 0;
}

static int prep_bind(struct fa *fa, struct scene *s)
{
	int err = prep_pair(fa, s);

	if (err)
		return err;
	s->mw = ibv_alloc_mw(fa->pd, IBV_MW_TYPE_1);
	return s->mw ? 0 : errno_or(EIO);
}

static int run_bind(struct fa *fa, struct scene *s)
{
	struct ibv_mw_bind bind;

	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 1;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = fa->mr;
	bind.bind_info.addr = (uintptr_t)fa->buf;
	bind.bind_info.length = SMALL_LEN;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	return ibv_bind_mw(s->qp[0], s->mw, &bind) ? errno_or(EIO) : 0;
}

static int settle_one(struct fa *fa, struct scene *s)
{
	(void)fa;
	return wait_cqes(fa, s->cq, 1, WAIT_MS) < 0 ? -1 : 0;
}

static int run_alloc_mw(struct fa *fa, struct scene *s)
{
	s->mw = ibv_alloc_mw(fa->pd, IBV_MW_TYPE_2);
	return s->mw ? 0 : errno_or(EIO);
}

static int run_create_ah(struct fa *fa, struct scene *s)
{
	struct ibv_ah_attr ah;

	fill_ah(fa, &ah);
	s->ah = ibv_create_ah(fa->pd, &ah);
	return s->ah ? 0 : errno_or(EIO);
}

/* A UD QP sending to itself, a receive posted. */
static int prep_ud(struct fa *fa, struct scene *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)fa->buf + XFER_LEN - GRH_LEN,
		.length = GRH_LEN + UD_LEN,
		.lkey = fa->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int err;

	stage(fa, 0, XFER_LEN, UD_LEN);
	err = prep_cq(fa, s);
	if (!err)
		err = run_create_ah(fa, s);
	if (err)
		return err;
	s->qp[0] = make_qp(fa, s, IBV_QPT_UD, NULL);
	if (!s->qp[0])
		return errno_or(EIO);
	err = connect_qp(fa, s->qp[0], 0);
	if (!err && ibv_post_recv(s->qp[0], &wr, &bad))
		err = errno_or(EIO);
	return err;
}

static int run_ud_send(struct fa *fa, struct scene *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)fa->buf,
		.length = UD_LEN,
		.lkey = fa->mr->lkey,
	};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = s->ah;
	wr.wr.ud.remote_qpn = s->qp[0]->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	return ibv_post_send(s->qp[0], &wr, &bad) ? errno_or(EIO) : 0;
}

/* UD may drop: both complete, or only the send; no data check. */
static int settle_ud(struct fa *fa, struct scene *s)
{
	int good = wait_cqes(fa, s->cq, 1, WAIT_MS);

	if (good < 0)
		return -1;
	wait_cqes(fa, s->cq, 1, UD_RECV_MS);
	return 0;
}

static int run_destroy_qp(struct fa *fa, struct scene *s)
{
	(void)fa;
	if (ibv_destroy_qp(s->qp[0]))
		return errno_or(EIO);
	s->qp[0] = NULL;
	return 0;
}

/* A connected pair with a receive posted: going to ERR flushes it. */
static int run_modify_err(struct fa *fa, struct scene *s)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	(void)fa;
	return ibv_modify_qp(s->qp[0], &a, IBV_QP_STATE) ? errno_or(EIO) : 0;
}

static int settle_flush(struct fa *fa, struct scene *s)
{
	/* the send posted by the (unarmed) prep is flushed or completes */
	return settle_one(fa, s);
}

static int prep_flush(struct fa *fa, struct scene *s)
{
	int err = prep_pair(fa, s);

	/* receiver-not-ready forever: the send waits in RNR retries */
	if (!err)
		err = run_send(fa, s);
	return err;
}

#define OP(n, p, r, s) { .name = n, .prep = p, .run = r, .settle = s }

static struct op ops[] = {
	OP("alloc_pd", NULL, run_alloc_pd, NULL),
	OP("reg_mr", NULL, run_reg_mr, NULL),
	OP("create_cq", NULL, run_create_cq, NULL),
	OP("resize_cq", prep_small_cq, run_resize_cq, NULL),
	OP("create_srq", NULL, run_create_srq, NULL),
	OP("create_qp", prep_cq, run_create_qp, NULL),
	OP("connect_rc", prep_two_qps, run_connect, NULL),
	OP("rdma_write", prep_xfer, run_write, settle_xfer),
	OP("rdma_read", prep_xfer, run_read, settle_xfer),
	OP("send_srq", prep_send, run_send, settle_send),
	OP("bind_mw", prep_bind, run_bind, settle_one),
	OP("alloc_mw", NULL, run_alloc_mw, NULL),
	OP("create_ah", NULL, run_create_ah, NULL),
	OP("ud_send", prep_ud, run_ud_send, settle_ud),
	OP("modify_err", prep_flush, run_modify_err, settle_flush),
	OP("destroy_qp", prep_two_qps, run_destroy_qp, NULL),
};

#define N_OPS	ARRAY_SIZE(ops)

/* ------------------------------------------------------------------ */

static void note_errno(struct op *op, int err)
{
	int i;

	for (i = 0; i < op->nerrs; i++)
		if (op->errs[i] == err)
			return;
	if (op->nerrs < N_ERRS)
		op->errs[op->nerrs++] = err;
}

/*
 * One trial: op with its nth allocation failing.  Returns 1 when the
 * failure was injected (try nth + 1 next), 0 when the operation ran
 * without reaching it (done), -1 when the trial could not be run.
 */
static int trial(struct fa *fa, struct op *op, int nth)
{
	struct scene s;
	int err, hit, st;

	memset(&s, 0, sizeof(s));
	err = op->prep ? op->prep(fa, &s) : 0;
	if (err) {
		misbehaves(fa, op, nth, "preparation failed unarmed: %s",
			   strerror(err));
		undo(fa, &s);
		return -1;
	}
	errno = 0;
	if (arm(fa, nth)) {
		misbehaves(fa, op, nth, "cannot arm fail-nth: %s",
			   strerror(errno));
		undo(fa, &s);
		return -1;
	}
	err = op->run(fa, &s);
	hit = disarm(fa);
	if (hit < 0)
		misbehaves(fa, op, nth, "cannot read fail-nth: %s",
			   strerror(errno));
	fa->trials++;
	fa->injected += hit == 1;
	op->hit += hit == 1;
	if (err) {
		op->failed++;
		note_errno(op, err);
		if (hit == 0)
			misbehaves(fa, op, nth, "failed with nothing injected: %s",
				   strerror(err));
	} else {
		op->ok++;
	}
	/* a posted request must complete, however the doorbell went */
	st = op->settle && !err ? op->settle(fa, &s) : 0;
	if (st == -1)
		misbehaves(fa, op, nth, "no completion within %d ms", WAIT_MS);
	if (st == -2)
		misbehaves(fa, op, nth, "completed successfully, data wrong");
	err = undo(fa, &s);
	if (err)
		misbehaves(fa, op, nth, "destroy failed unarmed: %s",
			   strerror(err));
	if (fa->verbose)
		printf("  %s nth %d: %s%s\n", op->name, nth,
		       hit == 1 ? "injected, " : "", err ? "error" : "ok");
	return hit;
}

static void run_op(struct fa *fa, struct op *op)
{
	int nth, r = 1;

	for (nth = 1; nth <= fa->max_nth && r == 1; nth++)
		r = trial(fa, op, nth);
	if (r == 1)
		misbehaves(fa, op, nth, "still allocating after %d failures",
			   fa->max_nth);
}

static void report(struct fa *fa)
{
	unsigned int i;
	int j;

	printf("%-12s %8s %8s %8s  %s\n", "operation", "trials",
	       "injected", "errors", "errors returned");
	for (i = 0; i < N_OPS; i++) {
		printf("%-12s %8ld %8ld %8ld ", ops[i].name,
		       ops[i].ok + ops[i].failed, ops[i].hit, ops[i].failed);
		for (j = 0; j < ops[i].nerrs; j++)
			printf(" %s", strerrorname_np(ops[i].errs[j]) ?:
			       "?");
		putchar('\n');
	}
	for (j = 0; j < N_STATUS; j++)
		if (fa->status[j])
			printf("error completions %s: %ld\n",
			       ibv_wc_status_str(j), fa->status[j]);
	printf("%ld bytes verified, %ld error completions\n", fa->verified,
	       fa->cqe_errors);
	printf("%ld trials, %ld allocations failed, %d misbehaviours\n",
	       fa->trials, fa->injected, fa->bad);
}

/*
 * -t: the operations that move data, round after round, nothing armed,
 * while the caller makes allocations fail some other way (failslab's
 * probability on the skb cache, say): each ends in a completion, good or
 * bad, and a good one delivered its bytes.
 */
static void run_soak(struct fa *fa)
{
	__u64 end = irn_tool_now_ms() + 1000ULL * fa->soak_secs;
	unsigned int i;
	struct scene s;
	int err, st;

	while (irn_tool_now_ms() < end) {
		for (i = 0; i < N_OPS; i++) {
			if (!ops[i].settle)
				continue;
			memset(&s, 0, sizeof(s));
			err = ops[i].prep(fa, &s);
			if (err) {
				misbehaves(fa, &ops[i], 0, "soak: preparation: %s",
					   strerror(err));
				undo(fa, &s);
				continue;
			}
			err = ops[i].run(fa, &s);
			fa->trials++;
			if (err) {
				ops[i].failed++;
				note_errno(&ops[i], err);
			} else {
				ops[i].ok++;
			}
			st = err ? 0 : ops[i].settle(fa, &s);
			if (st)
				misbehaves(fa, &ops[i], 0, "soak: %s",
					   st == -1 ? "no completion" :
					   "completed successfully, data wrong");
			if (undo(fa, &s))
				misbehaves(fa, &ops[i], 0, "soak: destroy");
		}
	}
}

/* The clean round: every operation once, nothing armed, all must pass. */
static void clean_round(struct fa *fa)
{
	unsigned int i;
	struct scene s;
	int err, st;

	for (i = 0; i < N_OPS; i++) {
		memset(&s, 0, sizeof(s));
		err = ops[i].prep ? ops[i].prep(fa, &s) : 0;
		if (!err)
			err = ops[i].run(fa, &s);
		st = !err && ops[i].settle ? ops[i].settle(fa, &s) : 0;
		if (err || st)
			misbehaves(fa, &ops[i], 0, "clean round: %s",
				   err ? strerror(err) : "completion or data");
		if (undo(fa, &s))
			misbehaves(fa, &ops[i], 0, "clean round: destroy");
	}
}

/*
 * The device by name.  Listing devices takes netlink messages, which fail
 * too while the caller makes skb allocations fail (-t): try again.
 */
static struct ibv_device *find_device(struct fa *fa)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	int i, n, tries;

	for (tries = 0; tries < FIND_TRIES; tries++) {
		if (fa->list)
			ibv_free_device_list(fa->list);
		fa->list = ibv_get_device_list(&n);
		for (i = 0; fa->list && i < n; i++)
			if (!strcmp(ibv_get_device_name(fa->list[i]),
				    fa->dev_name))
				return fa->list[i];
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "irn_failalloc: no RDMA device %s\n", fa->dev_name);
	return NULL;
}

static int open_device(struct fa *fa)
{
	struct ibv_device *dev = find_device(fa);
	int i;

	if (!dev)
		return -1;
	fa->ctx = ibv_open_device(dev);
	if (!fa->ctx || ibv_query_port(fa->ctx, 1, &fa->pattr) ||
	    ibv_query_gid(fa->ctx, 1, fa->gid_idx, &fa->gid)) {
		perror("irn_failalloc: open/query device");
		return -1;
	}
	fa->pd = ibv_alloc_pd(fa->ctx);
	fa->buf = aligned_alloc(4096, BUF_LEN);
	fa->pat = malloc(XFER_LEN);
	if (!fa->pd || !fa->buf || !fa->pat)
		return -1;
	for (i = 0; i < XFER_LEN; i++)
		fa->pat[i] = (unsigned char)(i * 131 + (i >> 8) + 7);
	fa->mr = ibv_reg_mr(fa->pd, fa->buf, BUF_LEN,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
	if (!fa->mr) {
		perror("irn_failalloc: ibv_reg_mr");
		return -1;
	}
	return 0;
}

/*
 * From here on, no page fault and no heap growth may need the kernel to
 * allocate: an injected failure there would kill the program instead of
 * failing a verb.
 */
static int pin_memory(void)
{
	void *p;

	mallopt(M_MMAP_THRESHOLD, HEAP_RESERVE * 2);
	mallopt(M_TRIM_THRESHOLD, HEAP_RESERVE * 2);
	p = malloc(HEAP_RESERVE);
	if (!p)
		return -1;
	memset(p, 0, HEAP_RESERVE);
	free(p);
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("irn_failalloc: mlockall");
		return -1;
	}
	return 0;
}

static void print_usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: %s -d DEV [-g GID_INDEX] [-m MAX_NTH | -t SECONDS] [-v]\n",
		program_invocation_short_name);
	exit(rc);
}

int main(int argc, char **argv)
{
	struct fa fa = { .gid_idx = 1, .max_nth = MAX_NTH_DFLT };
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "d:g:m:t:vh")) != -1) {
		switch (c) {
		case 'd':
			fa.dev_name = optarg;
			break;
		case 'g':
			fa.gid_idx = atoi(optarg);
			break;
		case 'm':
			fa.max_nth = atoi(optarg);
			break;
		case 't':
			fa.soak_secs = atoi(optarg);
			break;
		case 'v':
			fa.verbose = 1;
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(2);
		}
	}
	if (!fa.dev_name || fa.max_nth < 1)
		print_usage(2);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fa.nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fa.nth_fd < 0) {
		perror("irn_failalloc: /proc/thread-self/fail-nth (needs CONFIG_FAULT_INJECTION)");
		return 2;
	}
	if (open_device(&fa) || pin_memory())
		return 2;
	if (fa.soak_secs > 0) {
		run_soak(&fa);
	} else {
		for (i = 0; i < N_OPS; i++)
			run_op(&fa, &ops[i]);
	}
	clean_round(&fa);
	report(&fa);
	return fa.bad ? 1 : 0;
}
