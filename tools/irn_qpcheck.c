// SPDX-License-Identifier: GPL-2.0
/*
 * irn_qpcheck - queue pair corner cases and races on one RDMA device.
 *
 * Every QP lives on the one device named with -d and addresses its peer
 * through the device's own RoCE v2 GID (index -g, default the first RoCE
 * v2 entry): the packets loop back through the driver, as they do on
 * stock rxe.  Each step builds and destroys its own objects and prints
 * "ok STEP" or "FAIL STEP: reason"; the exit status is 1 if any step
 * failed.  Every wait has a deadline (WAIT_MS for a completion), so a
 * lost completion is a failure, not a hang.
 *
 * zero-rq
 *	An RC QP created with max_recv_wr = max_recv_sge = 0 and one
 *	created with max_send_wr = max_send_sge = 0 are legal verbs
 *	objects (a pure initiator and a pure target).  The QP without a
 *	receive queue reads 64 KiB from the other's memory and writes
 *	4 KiB to it; the QP without a send queue stays in RTR, which is all
 *	a responder needs.  A driver that sizes rings, arms tasks or
 *	indexes arrays from the capacities must cope with zero.
 *
 * ah-foreign-pd
 *	An address handle belongs to a protection domain, and a UD send may
 *	only use an AH of its QP's PD (IBTA; stock rxe checks it when it
 *	looks the AH up).  A UD send through an AH of another PD must
 *	complete in error (or be refused when posted) and must not reach
 *	the receiver.  A control send through an AH of the right PD, on
 *	fresh QPs, must arrive, so that the step cannot pass only because
 *	UD is broken.
 *
 * ud-error-sqe
 *	A UD send whose SGE names an invalid lkey completes in error, and
 *	the IBTA moves a UD QP whose send fails to SQE (Send Queue Error),
 *	not ERR: the receive side is unaffected and SQE -> RTS resumes the
 *	QP.  The step checks the state, resumes the QP and sends a good
 *	message that must arrive.
 *
 * modify-av-race
 *	An RC pair A, B; B is moved RTS -> SQD and, once drained, two
 *	threads replace B's primary address vector over and over (SQD ->
 *	SQD with IBV_QP_AV, -n times each) while A keeps up to 16 RDMA
 *	WRITEs in flight to B, so that B's responder keeps sending ACKs
 *	through the address vector being replaced (for at most
 *	RACE_MAX_MS).  The tool checks only the statuses and the data; the
 *	race itself is for a debug kernel (KASAN, DEBUG_OBJECTS, lockdep)
 *	to catch.
 *
 * destroy-busy
 *	-n times: an RC pair with the shortest retransmission timeout
 *	(timeout = 1, so the timer fires often), 32 RDMA WRITEs of 64 KiB
 *	posted without waiting, a random pause of 0 to 500 us, then A, B,
 *	the CQs, the MRs and the PD are destroyed while the traffic, its
 *	timers and its deferred work are still live.  ibv_destroy_qp()
 *	must succeed; use-after-free at destroy is again the debug
 *	kernel's to find.
 *
 * rnr-wait
 *	An RC send to a QP with no receive posted is answered with RNR
 *	NAKs; with rnr_retry = 7 the sender retries for ever (IBTA), and
 *	the transport's retry count (retry_cnt, local ACK timeout T) is not
 *	spent meanwhile: the peer answers.  A sends 64 bytes to B with
 *	T = 67 ms, B posts its receive only RNR_WAIT_MS (about 45 T)
 *	later; the send must then complete with success, not with
 *	"transport retry counter exceeded", and the data must arrive.
 *
 *   irn_qpcheck -d DEV [-g GID_INDEX] [-s STEP[,STEP...]] [-n N] [-v]
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define PORT		1
#define WAIT_MS		5000	/* longest wait for one completion */
#define QUIET_MS	1000	/* a receiver that must get nothing */
#define READ_LEN	(64 * 1024)
#define WRITE_LEN	4096
#define UD_LEN		256	/* within any path MTU */
#define GRH_LEN		40
#define UD_SLOT		(GRH_LEN + UD_LEN)
#define UD_RECVS	4
#define UD_QKEY		0x11111111
#define RACE_DEPTH	16
#define RACE_MAX_MS	60000	/* longest modify-av-race run */
#define BUSY_WRS	32
#define BUSY_LEN	(64 * 1024)
#define BUSY_PAUSE_US	500
#define RNR_LEN		64
#define RNR_WAIT_MS	3000	/* about 45 local ACK timeouts of 67 ms */
#define PSN_A		0x1234
#define PSN_B		0x5678
#define WHY_LEN		512
#define RC_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_WRITE)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct qpcheck {
	const char *dev_name;
	int gid_idx;			/* -1 until chosen */
	int iters;			/* -n; 0: each step's default */
	int verbose;
	unsigned int seed;		/* destroy-busy's pauses */

	struct ibv_device **list;
	struct ibv_context *ctx;
	union ibv_gid gid;
	char why[WHY_LEN];		/* the running step's first failure */
	int failed;
};

/* Memory and its registration. */
struct region {
	unsigned char *buf;
	size_t len;
	struct ibv_mr *mr;
};

/* Two RC QPs connected to each other, each with its own CQ and memory. */
struct rc_pair {
	struct ibv_pd *pd;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct region ra, rb;
};

struct rc_cfg {
	const char *name_a, *name_b;
	struct ibv_qp_cap cap_a, cap_b;
	size_t len_a, len_b;
	int cqe;
	__u8 timeout;			/* A's and B's local ACK timeout */
	enum ibv_qp_state state_b;	/* RTR or RTS */
};

/* A UD sender s and receiver r with receives posted; the PD is not ours. */
struct ud_pair {
	struct ibv_cq *cq_s, *cq_r;
	struct ibv_qp *s, *r;
	struct region rs, rr;
};

/* One of modify-av-race's threads. */
struct racer {
	pthread_t tid;
	struct ibv_qp *qp;
	struct ibv_qp_attr attr;
	int n;
	atomic_int *stop;
	atomic_int *finished;
	int done;			/* modify_qp calls made */
	int failed;			/* ... that failed */
	int first_err;
};

/* Note why the running step failed (the first reason wins); returns -1. */
static int fail(struct qpcheck *qc, const char *fmt, ...)
{
	va_list ap;

	if (qc->why[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(qc->why, sizeof(qc->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* The same for a verb that failed with the positive errno @err. */
static int fail_err(struct qpcheck *qc, int err, const char *fmt, ...)
{
	char what[WHY_LEN / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return fail(qc, "%s: errno %d (%s)", what, err, strerror(err));
}

/* Add to the reason of a failure already noted. */
static void why_append(struct qpcheck *qc, const char *fmt, ...)
{
	size_t used = strlen(qc->why);
	va_list ap;

	if (!used || used >= sizeof(qc->why) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(qc->why + used, sizeof(qc->why) - used, fmt, ap);
	va_end(ap);
}

static void note(const struct qpcheck *qc, const char *fmt, ...)
{
	va_list ap;

	if (!qc->verbose)
		return;
	fputs("  ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Errors from verbs that return NULL come back in errno, maybe as 0. */
static int errno_or_eio(void)
{
	return errno ? errno : EIO;
}

/* Verbs that return an int give a positive errno, or -1 with errno. */
static int verb_err(int ret)
{
	return ret > 0 ? ret : errno_or_eio();
}

static __u64 now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const char *qp_state_str(enum ibv_qp_state s)
{
	static const char * const names[] = {
		[IBV_QPS_RESET] = "RESET",
		[IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR",
		[IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD",
		[IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if ((unsigned int)s < ARRAY_SIZE(names) && names[s])
		return names[s];
	return "unknown";
}

/* A byte pattern that differs for every @seed and every offset. */
static void fill(unsigned char *p, size_t len, __u32 seed)
{
	__u32 x = seed * 2654435761u + 0x9e37u;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = x >> 16;
	}
}

/* The offset of the first byte that is not fill(@seed)'s, or -1. */
static long check(const unsigned char *p, size_t len, __u32 seed)
{
	__u32 x = seed * 2654435761u + 0x9e37u;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		if (p[i] != (unsigned char)(x >> 16))
			return (long)i;
	}
	return -1;
}

static int region_get(struct qpcheck *qc, struct ibv_pd *pd,
		      struct region *r, size_t len, int access)
{
	void *buf;
	int err;

	err = posix_memalign(&buf, 4096, len);
	if (err)
		return fail_err(qc, err, "allocate %zu bytes", len);
	memset(buf, 0, len);
	r->buf = buf;
	r->len = len;
	r->mr = ibv_reg_mr(pd, buf, len, access);
	if (!r->mr)
		return fail_err(qc, errno_or_eio(), "ibv_reg_mr of %zu bytes",
				len);
	return 0;
}

/* Destroy *@qp if there is one; a failure is reported as @what. */
static int qp_put(struct qpcheck *qc, struct ibv_qp **qp, const char *what)
{
	int err = *qp ? ibv_destroy_qp(*qp) : 0;

	*qp = NULL;
	return err ? fail_err(qc, verb_err(err), "destroy %s", what) : 0;
}

static int cq_put(struct qpcheck *qc, struct ibv_cq **cq, const char *what)
{
	int err = *cq ? ibv_destroy_cq(*cq) : 0;

	*cq = NULL;
	return err ? fail_err(qc, verb_err(err), "destroy %s", what) : 0;
}

static int region_put(struct qpcheck *qc, struct region *r)
{
	int ret = 0, err;

	if (r->mr) {
		err = ibv_dereg_mr(r->mr);
		if (err)
			ret = fail_err(qc, verb_err(err), "ibv_dereg_mr");
		r->mr = NULL;
	}
	free(r->buf);
	r->buf = NULL;
	return ret;
}

/*
 * Wait up to @ms for completions on @cq, at most @max of them.  Returns
 * how many came (then at once), 0 if none did, or -1 if polling failed.
 * Yield first, then sleep: a busy loop would starve a one-CPU guest's
 * softirqs, which are what produces the completions.
 */
static int poll_wait(struct ibv_cq *cq, struct ibv_wc *wc, int max,
		     unsigned int ms)
{
	__u64 end = now_us() + ms * 1000ULL;
	unsigned int idle = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, max, wc);
		if (n)
			return n < 0 ? -1 : n;
		if (now_us() >= end)
			return 0;
		if (++idle < 64)
			sched_yield();
		else
			sleep_us(50);
	}
}

/* One completion of @what with @wr_id and IBV_WC_SUCCESS within WAIT_MS. */
static int expect_wc(struct qpcheck *qc, struct ibv_cq *cq, __u64 wr_id,
		     const char *what, struct ibv_wc *wc)
{
	int n = poll_wait(cq, wc, 1, WAIT_MS);

	if (n < 0)
		return fail(qc, "%s: ibv_poll_cq failed", what);
	if (!n)
		return fail(qc, "%s: no completion within %d ms", what,
			    WAIT_MS);
	if (wc->status != IBV_WC_SUCCESS)
		return fail(qc, "%s: completed with %s (%d), vendor_err 0x%x",
			    what, ibv_wc_status_str(wc->status), wc->status,
			    wc->vendor_err);
	if (wc->wr_id != wr_id)
		return fail(qc, "%s: completion for wr_id %llu, expected %llu",
			    what, (unsigned long long)wc->wr_id,
			    (unsigned long long)wr_id);
	return 0;
}

static void av_fill(const struct qpcheck *qc, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = PORT;
	ah->grh.dgid = qc->gid;
	ah->grh.sgid_index = qc->gid_idx;
	ah->grh.hop_limit = 64;
}

static struct ibv_qp *qp_new(struct qpcheck *qc, struct ibv_pd *pd,
			     struct ibv_cq *cq, enum ibv_qp_type type,
			     const struct ibv_qp_cap *cap, const char *name)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = *cap,
		.qp_type = type,
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp(pd, &init);
	if (!qp)
		fail_err(qc, errno_or_eio(),
			 "create QP %s (send %u/%u, recv %u/%u wr/sge)", name,
			 cap->max_send_wr, cap->max_send_sge,
			 cap->max_recv_wr, cap->max_recv_sge);
	return qp;
}

static int qp_query(struct qpcheck *qc, struct ibv_qp *qp,
		    struct ibv_qp_attr *attr, const char *name)
{
	struct ibv_qp_init_attr init;
	int ret;

	ret = ibv_query_qp(qp, attr, IBV_QP_STATE, &init);
	if (ret)
		return fail_err(qc, verb_err(ret), "query QP %s", name);
	return 0;
}

/*
 * Take the RC QP @qp through INIT and RTR to @state (RTR or RTS), talking
 * to QP @dest on this device.  @rq_psn is the first PSN the peer sends,
 * @sq_psn the first @qp sends.
 */
static int rc_connect(struct qpcheck *qc, struct ibv_qp *qp, const char *name,
		      __u32 dest, __u32 rq_psn, __u32 sq_psn, __u8 timeout,
		      enum ibv_qp_state state)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qp_access_flags = RC_ACCESS,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return fail_err(qc, verb_err(ret), "QP %s RESET->INIT", name);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	av_fill(qc, &a.ah_attr);
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return fail_err(qc, verb_err(ret), "QP %s INIT->RTR", name);
	if (state == IBV_QPS_RTR)
		return 0;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return fail_err(qc, verb_err(ret), "QP %s RTR->RTS", name);
	return 0;
}

/*
 * Destroy what pair_setup() made, A first: also after a failed or partial
 * setup.  Returns -1 if a destroy failed.
 */
static int pair_teardown(struct qpcheck *qc, struct rc_pair *p)
{
	int ret = 0, err;

	if (qp_put(qc, &p->a, "QP A"))
		ret = -1;
	if (qp_put(qc, &p->b, "QP B"))
		ret = -1;
	if (cq_put(qc, &p->cq_a, "A's CQ"))
		ret = -1;
	if (cq_put(qc, &p->cq_b, "B's CQ"))
		ret = -1;
	if (region_put(qc, &p->ra))
		ret = -1;
	if (region_put(qc, &p->rb))
		ret = -1;
	if (p->pd) {
		err = ibv_dealloc_pd(p->pd);
		if (err)
			ret = fail_err(qc, verb_err(err), "dealloc PD");
		p->pd = NULL;
	}
	return ret;
}

/* Build and connect an RC pair; on failure pair_teardown() undoes it. */
static int pair_setup(struct qpcheck *qc, struct rc_pair *p,
		      const struct rc_cfg *cfg)
{
	memset(p, 0, sizeof(*p));
	p->pd = ibv_alloc_pd(qc->ctx);
	if (!p->pd)
		return fail_err(qc, errno_or_eio(), "ibv_alloc_pd");
	p->cq_a = ibv_create_cq(qc->ctx, cfg->cqe, NULL, NULL, 0);
	p->cq_b = ibv_create_cq(qc->ctx, cfg->cqe, NULL, NULL, 0);
	if (!p->cq_a || !p->cq_b)
		return fail_err(qc, errno_or_eio(), "ibv_create_cq");
	if (region_get(qc, p->pd, &p->ra, cfg->len_a, RC_ACCESS) ||
	    region_get(qc, p->pd, &p->rb, cfg->len_b, RC_ACCESS))
		return -1;
	p->a = qp_new(qc, p->pd, p->cq_a, IBV_QPT_RC, &cfg->cap_a,
		      cfg->name_a);
	if (!p->a)
		return -1;
	p->b = qp_new(qc, p->pd, p->cq_b, IBV_QPT_RC, &cfg->cap_b,
		      cfg->name_b);
	if (!p->b)
		return -1;
	note(qc, "QP %s is %u, QP %s is %u", cfg->name_a, p->a->qp_num,
	     cfg->name_b, p->b->qp_num);
	if (rc_connect(qc, p->a, cfg->name_a, p->b->qp_num, PSN_B, PSN_A,
		       cfg->timeout, IBV_QPS_RTS) ||
	    rc_connect(qc, p->b, cfg->name_b, p->a->qp_num, PSN_A, PSN_B,
		       cfg->timeout, cfg->state_b))
		return -1;
	return 0;
}

/* Post one signalled RDMA READ or WRITE from @qp; 0 or a positive errno. */
static int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op,
		     const struct region *loc, size_t loff,
		     const struct region *rem, size_t roff, __u32 len,
		     __u64 wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)loc->buf + loff,
		.length = len,
		.lkey = loc->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)rem->buf + roff,
			.rkey = rem->mr->rkey,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	ret = ibv_post_send(qp, &wr, &bad);
	return ret ? verb_err(ret) : 0;
}

/* Step zero-rq: see the top of the file. */
static int step_zero_rq(struct qpcheck *qc, int iters)
{
	const struct rc_cfg cfg = {
		.name_a = "A (no RQ)",
		.name_b = "B (no SQ)",
		.cap_a = { .max_send_wr = 4, .max_send_sge = 1 },
		.cap_b = { .max_recv_wr = 4, .max_recv_sge = 1 },
		.len_a = READ_LEN + WRITE_LEN,
		.len_b = READ_LEN,
		.cqe = 8,
		.timeout = 14,
		.state_b = IBV_QPS_RTR,
	};
	struct rc_pair p;
	struct ibv_wc wc;
	int ret = -1, err;
	long bad;

	(void)iters;
	if (pair_setup(qc, &p, &cfg))
		goto out;

	fill(p.rb.buf, READ_LEN, 1);
	err = post_rdma(p.a, IBV_WR_RDMA_READ, &p.ra, 0, &p.rb, 0, READ_LEN,
			1);
	if (err) {
		fail_err(qc, err, "post RDMA READ of %d bytes", READ_LEN);
		goto out;
	}
	if (expect_wc(qc, p.cq_a, 1, "RDMA READ", &wc))
		goto out;
	bad = check(p.ra.buf, READ_LEN, 1);
	if (bad >= 0) {
		fail(qc, "RDMA READ: byte %ld of %d is wrong", bad, READ_LEN);
		goto out;
	}
	note(qc, "RDMA READ of %d bytes: data ok", READ_LEN);

	fill(p.ra.buf + READ_LEN, WRITE_LEN, 2);
	err = post_rdma(p.a, IBV_WR_RDMA_WRITE, &p.ra, READ_LEN, &p.rb, 0,
			WRITE_LEN, 2);
	if (err) {
		fail_err(qc, err, "post RDMA WRITE of %d bytes", WRITE_LEN);
		goto out;
	}
	if (expect_wc(qc, p.cq_a, 2, "RDMA WRITE", &wc))
		goto out;
	bad = check(p.rb.buf, WRITE_LEN, 2);
	if (bad >= 0) {
		fail(qc, "RDMA WRITE: byte %ld of %d is wrong", bad,
		     WRITE_LEN);
		goto out;
	}
	note(qc, "RDMA WRITE of %d bytes: data ok", WRITE_LEN);
	ret = 0;
out:
	if (pair_teardown(qc, &p))
		ret = -1;
	return ret;
}

static struct ibv_ah *ah_new(struct qpcheck *qc, struct ibv_pd *pd,
			     const char *what)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	av_fill(qc, &attr);
	ah = ibv_create_ah(pd, &attr);
	if (!ah)
		fail_err(qc, errno_or_eio(), "ibv_create_ah (%s)", what);
	return ah;
}

static int ah_put(struct qpcheck *qc, struct ibv_ah *ah)
{
	int err;

	if (!ah)
		return 0;
	err = ibv_destroy_ah(ah);
	return err ? fail_err(qc, verb_err(err), "ibv_destroy_ah") : 0;
}

static int ud_ready(struct qpcheck *qc, struct ibv_qp *qp, const char *name)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qkey = UD_QKEY,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (ret)
		return fail_err(qc, verb_err(ret), "UD QP %s RESET->INIT",
				name);
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret)
		return fail_err(qc, verb_err(ret), "UD QP %s INIT->RTR", name);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN_A;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (ret)
		return fail_err(qc, verb_err(ret), "UD QP %s RTR->RTS", name);
	return 0;
}

static int ud_teardown(struct qpcheck *qc, struct ud_pair *u)
{
	int ret = 0;

	if (qp_put(qc, &u->s, "UD QP s"))
		ret = -1;
	if (qp_put(qc, &u->r, "UD QP r"))
		ret = -1;
	if (cq_put(qc, &u->cq_s, "s's CQ"))
		ret = -1;
	if (cq_put(qc, &u->cq_r, "r's CQ"))
		ret = -1;
	if (region_put(qc, &u->rs))
		ret = -1;
	if (region_put(qc, &u->rr))
		ret = -1;
	return ret;
}

/*
 * UD QPs s and r in RTS on @pd, with UD_RECVS receives posted on r (each
 * slot starts with the GRH_LEN bytes of the GRH); on failure
 * ud_teardown() undoes it.
 */
static int ud_setup(struct qpcheck *qc, struct ud_pair *u, struct ibv_pd *pd)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 4,
		.max_recv_wr = UD_RECVS,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	struct ibv_sge sge = { .length = UD_SLOT };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int i, ret;

	memset(u, 0, sizeof(*u));
	u->cq_s = ibv_create_cq(qc->ctx, 2 * UD_RECVS, NULL, NULL, 0);
	u->cq_r = ibv_create_cq(qc->ctx, 2 * UD_RECVS, NULL, NULL, 0);
	if (!u->cq_s || !u->cq_r)
		return fail_err(qc, errno_or_eio(), "ibv_create_cq");
	if (region_get(qc, pd, &u->rs, UD_LEN, IBV_ACCESS_LOCAL_WRITE) ||
	    region_get(qc, pd, &u->rr, UD_RECVS * UD_SLOT,
		       IBV_ACCESS_LOCAL_WRITE))
		return -1;
	u->s = qp_new(qc, pd, u->cq_s, IBV_QPT_UD, &cap, "s");
	if (!u->s)
		return -1;
	u->r = qp_new(qc, pd, u->cq_r, IBV_QPT_UD, &cap, "r");
	if (!u->r)
		return -1;
	if (ud_ready(qc, u->s, "s") || ud_ready(qc, u->r, "r"))
		return -1;
	sge.lkey = u->rr.mr->lkey;
	for (i = 0; i < UD_RECVS; i++) {
		wr.wr_id = i;
		sge.addr = (uintptr_t)u->rr.buf + i * UD_SLOT;
		ret = ibv_post_recv(u->r, &wr, &bad);
		if (ret)
			return fail_err(qc, verb_err(ret), "post receive %d",
					i);
	}
	note(qc, "UD QP s is %u, UD QP r is %u", u->s->qp_num, u->r->qp_num);
	return 0;
}

/*
 * Post a UD SEND of UD_LEN bytes of fill(@seed) from s to r through @ah,
 * the SGE with @lkey.  Returns 0 or the positive errno of the post.
 */
static int ud_post(struct ud_pair *u, struct ibv_ah *ah, __u32 lkey,
		   __u32 seed, __u64 wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)u->rs.buf,
		.length = UD_LEN,
		.lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = {
			.ah = ah,
			.remote_qpn = u->r->qp_num,
			.remote_qkey = UD_QKEY,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	fill(u->rs.buf, UD_LEN, seed);
	ret = ibv_post_send(u->s, &wr, &bad);
	return ret ? verb_err(ret) : 0;
}

/* r must receive fill(@seed) from s within WAIT_MS. */
static int ud_expect_recv(struct qpcheck *qc, struct ud_pair *u, __u32 seed,
			  const char *what)
{
	struct ibv_wc wc;
	long bad;
	int n;

	n = poll_wait(u->cq_r, &wc, 1, WAIT_MS);
	if (n < 0)
		return fail(qc, "%s: polling r's CQ failed", what);
	if (!n)
		return fail(qc, "%s: r received nothing within %d ms", what,
			    WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		return fail(qc, "%s: r's receive completed with %s (%d)", what,
			    ibv_wc_status_str(wc.status), wc.status);
	if (wc.wr_id >= UD_RECVS)
		return fail(qc, "%s: r's completion has wr_id %llu", what,
			    (unsigned long long)wc.wr_id);
	/* byte_len counts the GRH */
	if (wc.byte_len != UD_SLOT)
		return fail(qc, "%s: r got %u bytes, not %d", what,
			    wc.byte_len, UD_SLOT);
	if (wc.src_qp != u->s->qp_num)
		return fail(qc, "%s: source QP %u, expected %u", what,
			    wc.src_qp, u->s->qp_num);
	bad = check(u->rr.buf + wc.wr_id * UD_SLOT + GRH_LEN, UD_LEN, seed);
	if (bad >= 0)
		return fail(qc, "%s: received byte %ld of %d is wrong", what,
			    bad, UD_LEN);
	note(qc, "%s: r received %d bytes, data ok", what, UD_LEN);
	return 0;
}

/* r must receive nothing for QUIET_MS. */
static int ud_expect_quiet(struct qpcheck *qc, struct ud_pair *u,
			   const char *what)
{
	struct ibv_wc wc;
	int n;

	n = poll_wait(u->cq_r, &wc, 1, QUIET_MS);
	if (n < 0)
		return fail(qc, "%s: polling r's CQ failed", what);
	if (n)
		return fail(qc, "%s: r got a message (%s, %u bytes)", what,
			    ibv_wc_status_str(wc.status), wc.byte_len);
	return 0;
}

/* Step ah-foreign-pd: see the top of the file. */
static int step_ah_foreign_pd(struct qpcheck *qc, int iters)
{
	const char *what = "UD SEND through an AH of another PD";
	struct ibv_ah *ah_bad = NULL, *ah_good = NULL;
	struct ibv_pd *pd1, *pd2 = NULL;
	struct ud_pair u = {};
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	int ret = -1, err, n;

	(void)iters;
	pd1 = ibv_alloc_pd(qc->ctx);
	if (!pd1)
		return fail_err(qc, errno_or_eio(), "ibv_alloc_pd (pd1)");
	pd2 = ibv_alloc_pd(qc->ctx);
	if (!pd2) {
		fail_err(qc, errno_or_eio(), "ibv_alloc_pd (pd2)");
		goto dealloc_pds;
	}

	if (ud_setup(qc, &u, pd1))
		goto teardown;
	ah_bad = ah_new(qc, pd2, "pd2");
	if (!ah_bad)
		goto teardown;
	err = ud_post(&u, ah_bad, u.rs.mr->lkey, 1, 1);
	if (err) {
		note(qc, "%s: refused at post time: errno %d (%s)", what, err,
		     strerror(err));
	} else {
		n = poll_wait(u.cq_s, &wc, 1, WAIT_MS);
		if (n < 0) {
			fail(qc, "%s: polling s's CQ failed", what);
			goto teardown;
		}
		if (!n) {
			fail(qc, "%s: no send completion within %d ms", what,
			     WAIT_MS);
			goto teardown;
		}
		if (wc.status == IBV_WC_SUCCESS) {
			fail(qc, "%s completed successfully", what);
			goto teardown;
		}
		note(qc, "%s: completed with %s (%d)", what,
		     ibv_wc_status_str(wc.status), wc.status);
	}
	if (ud_expect_quiet(qc, &u, what))
		goto teardown;
	if (!qp_query(qc, u.s, &attr, "s"))
		note(qc, "s is in %s after it", qp_state_str(attr.qp_state));

	/* the control, on fresh QPs */
	if (ud_teardown(qc, &u))
		goto teardown;
	err = ah_put(qc, ah_bad);
	ah_bad = NULL;
	if (err || ud_setup(qc, &u, pd1))
		goto teardown;
	ah_good = ah_new(qc, pd1, "pd1");
	if (!ah_good)
		goto teardown;
	err = ud_post(&u, ah_good, u.rs.mr->lkey, 2, 2);
	if (err) {
		fail_err(qc, err, "control: post UD SEND through an AH of pd1");
		goto teardown;
	}
	if (expect_wc(qc, u.cq_s, 2, "control: UD SEND through an AH of pd1",
		      &wc) ||
	    ud_expect_recv(qc, &u, 2, "control"))
		goto teardown;
	ret = 0;
teardown:
	if (ud_teardown(qc, &u))
		ret = -1;
	if (ah_put(qc, ah_bad))
		ret = -1;
	if (ah_put(qc, ah_good))
		ret = -1;
dealloc_pds:
	err = pd2 ? ibv_dealloc_pd(pd2) : 0;
	if (err)
		ret = fail_err(qc, verb_err(err), "dealloc pd2");
	err = ibv_dealloc_pd(pd1);
	if (err)
		ret = fail_err(qc, verb_err(err), "dealloc pd1");
	return ret;
}

/* Step ud-error-sqe: see the top of the file. */
static int step_ud_error_sqe(struct qpcheck *qc, int iters)
{
	const char *what = "UD SEND with an invalid lkey";
	struct ibv_ah *ah = NULL;
	struct ud_pair u = {};
	struct ibv_qp_attr attr;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	int ret = -1, err, n;
	__u32 bad_lkey;
	__u64 end;

	(void)iters;
	pd = ibv_alloc_pd(qc->ctx);
	if (!pd)
		return fail_err(qc, errno_or_eio(), "ibv_alloc_pd");
	if (ud_setup(qc, &u, pd))
		goto teardown;
	ah = ah_new(qc, pd, "own PD");
	if (!ah)
		goto teardown;

	/* the right MR index with the wrong key, or at least no MR of ours */
	bad_lkey = u.rs.mr->lkey ^ 0x80;
	if (bad_lkey == u.rr.mr->lkey)
		bad_lkey = u.rs.mr->lkey ^ 0x8000;
	note(qc, "lkey 0x%x, sending with 0x%x", u.rs.mr->lkey, bad_lkey);
	err = ud_post(&u, ah, bad_lkey, 1, 1);
	if (err) {
		fail_err(qc, err, "%s: refused at post time", what);
		goto teardown;
	}
	n = poll_wait(u.cq_s, &wc, 1, WAIT_MS);
	if (n < 0) {
		fail(qc, "%s: polling s's CQ failed", what);
		goto teardown;
	}
	if (!n) {
		fail(qc, "%s: no send completion within %d ms", what, WAIT_MS);
		goto teardown;
	}
	if (wc.status == IBV_WC_SUCCESS) {
		fail(qc, "%s completed successfully", what);
		goto teardown;
	}
	note(qc, "%s: completed with %s (%d)", what,
	     ibv_wc_status_str(wc.status), wc.status);

	/* the state may change just after the completion is visible */
	end = now_us() + QUIET_MS * 1000ULL;
	for (;;) {
		if (qp_query(qc, u.s, &attr, "s"))
			goto teardown;
		if (attr.qp_state != IBV_QPS_RTS || now_us() >= end)
			break;
		sleep_us(1000);
	}
	if (attr.qp_state != IBV_QPS_SQE) {
		fail(qc, "after the error completion s is in %s (%d), not SQE",
		     qp_state_str(attr.qp_state), attr.qp_state);
		goto teardown;
	}
	note(qc, "s is in SQE");

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(u.s, &attr, IBV_QP_STATE);
	if (err) {
		fail_err(qc, verb_err(err), "modify s SQE->RTS");
		goto teardown;
	}
	err = ud_post(&u, ah, u.rs.mr->lkey, 2, 2);
	if (err) {
		fail_err(qc, err, "post a good UD SEND after SQE->RTS");
		goto teardown;
	}
	if (expect_wc(qc, u.cq_s, 2, "good UD SEND after SQE->RTS", &wc) ||
	    ud_expect_recv(qc, &u, 2, "good UD SEND after SQE->RTS"))
		goto teardown;
	ret = 0;
teardown:
	if (ud_teardown(qc, &u))
		ret = -1;
	if (ah_put(qc, ah))
		ret = -1;
	err = ibv_dealloc_pd(pd);
	if (err)
		ret = fail_err(qc, verb_err(err), "ibv_dealloc_pd");
	return ret;
}

/* modify-av-race: replace the QP's AV (SQD -> SQD) n times. */
static void *racer_run(void *arg)
{
	struct racer *rc = arg;
	int i, err;

	for (i = 0; i < rc->n && !atomic_load(rc->stop); i++) {
		err = ibv_modify_qp(rc->qp, &rc->attr,
				    IBV_QP_STATE | IBV_QP_AV);
		rc->done++;
		if (!err)
			continue;
		if (!rc->failed++)
			rc->first_err = verb_err(err);
	}
	atomic_fetch_add(rc->finished, 1);
	return NULL;
}

/* Move B to SQD and wait until its send queue is drained. */
static int sqd_enter(struct qpcheck *qc, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_SQD };
	__u64 end = now_us() + WAIT_MS * 1000ULL;
	int err;

	err = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (err)
		return fail_err(qc, verb_err(err), "modify B RTS->SQD");
	for (;;) {
		if (qp_query(qc, qp, &attr, "B"))
			return -1;
		if (attr.qp_state != IBV_QPS_SQD)
			return fail(qc, "B is in %s after RTS->SQD",
				    qp_state_str(attr.qp_state));
		if (!attr.sq_draining)
			return 0;
		if (now_us() >= end)
			return fail(qc, "B's SQ still draining after %d ms",
				    WAIT_MS);
		sleep_us(1000);
	}
}

/* The RACE_DEPTH slots of 4 KiB at A and B and what was last sent. */
struct race_io {
	struct rc_pair *p;
	__u64 next;			/* the next WRITE's number */
	__u64 last[RACE_DEPTH];		/* + 1; 0: slot never written */
	int outstanding;
	__u64 completed;
};

/* Reap what A's CQ holds now; -1 on a failed WRITE. */
static int race_reap(struct qpcheck *qc, struct race_io *io, int *got)
{
	struct ibv_wc wc[RACE_DEPTH];
	int n, i;

	n = ibv_poll_cq(io->p->cq_a, RACE_DEPTH, wc);
	if (n < 0)
		return fail(qc, "ibv_poll_cq on A's CQ failed");
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return fail(qc, "WRITE %llu completed with %s (%d)",
				    (unsigned long long)wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status),
				    wc[i].status);
		io->outstanding--;
		io->completed++;
	}
	*got = n;
	return 0;
}

static int race_post(struct qpcheck *qc, struct race_io *io)
{
	size_t off = (io->next % RACE_DEPTH) * WRITE_LEN;
	int err, got;

	fill(io->p->ra.buf + off, WRITE_LEN, io->next + 1000);
	err = post_rdma(io->p->a, IBV_WR_RDMA_WRITE, &io->p->ra, off,
			&io->p->rb, off, WRITE_LEN, io->next);
	if (err) {
		/* an error completion may say why: let it be the reason */
		race_reap(qc, io, &got);
		return fail_err(qc, err, "post RDMA WRITE %llu",
				(unsigned long long)io->next);
	}
	io->last[io->next % RACE_DEPTH] = io->next + 1;
	io->next++;
	io->outstanding++;
	return 0;
}

/*
 * Keep RACE_DEPTH WRITEs in flight from A to B until both racers are done
 * (or RACE_MAX_MS passed: then stop them).  Returns -1 on a failure.
 */
static int race_traffic(struct qpcheck *qc, struct race_io *io,
			atomic_int *stop, atomic_int *finished)
{
	__u64 start = now_us(), progress = start, t;
	int got;

	while (atomic_load(finished) < 2) {
		if (race_reap(qc, io, &got))
			return -1;
		t = now_us();
		if (got)
			progress = t;
		else if (io->outstanding && t - progress > WAIT_MS * 1000ULL)
			return fail(qc, "%d WRITEs, none done in %d ms",
				    io->outstanding, WAIT_MS);
		if (t - start > RACE_MAX_MS * 1000ULL && !atomic_load(stop)) {
			note(qc, "stopping the racers after %d ms",
			     RACE_MAX_MS);
			atomic_store(stop, 1);
		}
		while (io->outstanding < RACE_DEPTH)
			if (race_post(qc, io))
				return -1;
		if (!got)
			sched_yield();
	}
	return 0;
}

/* Wait for the WRITEs still in flight. */
static int race_drain(struct qpcheck *qc, struct race_io *io)
{
	__u64 progress = now_us();
	int got;

	while (io->outstanding) {
		if (race_reap(qc, io, &got))
			return -1;
		if (got)
			progress = now_us();
		else if (now_us() - progress > WAIT_MS * 1000ULL)
			return fail(qc, "%d WRITEs, none done in %d ms",
				    io->outstanding, WAIT_MS);
		else
			sleep_us(50);
	}
	return 0;
}

/* Step modify-av-race: see the top of the file. */
static int step_modify_av_race(struct qpcheck *qc, int iters)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = RACE_DEPTH,
		.max_recv_wr = 1,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	const struct rc_cfg cfg = {
		.name_a = "A",
		.name_b = "B",
		.cap_a = cap,
		.cap_b = cap,
		.len_a = RACE_DEPTH * WRITE_LEN,
		.len_b = RACE_DEPTH * WRITE_LEN,
		.cqe = 2 * RACE_DEPTH,
		.timeout = 14,
		.state_b = IBV_QPS_RTS,
	};
	atomic_int stop = 0, finished = 0;
	struct racer rc[2] = {};
	struct race_io io = {};
	struct rc_pair p;
	int ret = -1, i, err, started = 0, failed = 0, first = 0;
	long bad;

	if (pair_setup(qc, &p, &cfg) || sqd_enter(qc, p.b))
		goto out;
	io.p = &p;
	while (io.outstanding < RACE_DEPTH)
		if (race_post(qc, &io))
			goto out;

	for (i = 0; i < 2; i++) {
		rc[i].qp = p.b;
		rc[i].n = iters;
		rc[i].stop = &stop;
		rc[i].finished = &finished;
		rc[i].attr.qp_state = IBV_QPS_SQD;
		av_fill(qc, &rc[i].attr.ah_attr);
		err = pthread_create(&rc[i].tid, NULL, racer_run, &rc[i]);
		if (err) {
			fail_err(qc, err, "pthread_create");
			atomic_store(&stop, 1);
			break;
		}
		started++;
	}
	/* a thread that was never started counts as finished */
	atomic_fetch_add(&finished, 2 - started);
	if (race_traffic(qc, &io, &stop, &finished))
		atomic_store(&stop, 1);
	for (i = 0; i < started; i++)
		pthread_join(rc[i].tid, NULL);
	for (i = 0; i < 2; i++) {
		if (rc[i].failed && !failed)
			first = rc[i].first_err;
		failed += rc[i].failed;
	}
	note(qc, "%d + %d SQD->SQD modifies with AV, %llu WRITEs", rc[0].done,
	     rc[1].done, (unsigned long long)io.completed);
	if (qc->why[0] || race_drain(qc, &io))
		goto out;
	if (failed) {
		fail_err(qc, first, "%d of %d AV modifies failed, the first",
			 failed, rc[0].done + rc[1].done);
		goto out;
	}
	for (i = 0; i < RACE_DEPTH; i++) {
		if (!io.last[i])
			continue;
		bad = check(p.rb.buf + i * WRITE_LEN, WRITE_LEN,
			    io.last[i] - 1 + 1000);
		if (bad >= 0) {
			fail(qc, "WRITE %llu: byte %ld of %d at B is wrong",
			     (unsigned long long)io.last[i] - 1, bad,
			     WRITE_LEN);
			goto out;
		}
	}
	ret = 0;
out:
	if (pair_teardown(qc, &p))
		ret = -1;
	return ret;
}

/* One round of destroy-busy; -1 on a failure. */
static int busy_round(struct qpcheck *qc, struct rc_pair *p,
		      const struct rc_cfg *cfg)
{
	unsigned int pause;
	int i, err, ret = 0;

	if (pair_setup(qc, p, cfg))
		goto teardown;
	for (i = 0; i < BUSY_WRS; i++) {
		err = post_rdma(p->a, IBV_WR_RDMA_WRITE, &p->ra, 0, &p->rb, 0,
				BUSY_LEN, i);
		if (err) {
			ret = fail_err(qc, err, "post RDMA WRITE %d", i);
			goto teardown;
		}
	}
	pause = rand_r(&qc->seed) % (BUSY_PAUSE_US + 1);
	if (pause)
		sleep_us(pause);
teardown:
	if (pair_teardown(qc, p))
		ret = -1;
	return qc->why[0] ? -1 : ret;
}

/* Step destroy-busy: see the top of the file. */
static int step_destroy_busy(struct qpcheck *qc, int iters)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = BUSY_WRS,
		.max_recv_wr = 1,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	const struct rc_cfg cfg = {
		.name_a = "A",
		.name_b = "B",
		.cap_a = cap,
		.cap_b = cap,
		.len_a = BUSY_LEN,
		.len_b = BUSY_LEN,
		.cqe = 2 * BUSY_WRS,
		.timeout = 1,
		.state_b = IBV_QPS_RTS,
	};
	int verbose = qc->verbose, i, ret = 0;
	struct rc_pair p;

	note(qc, "seed %u", qc->seed);
	/* the QP numbers of every round would drown the log */
	qc->verbose = 0;
	for (i = 0; i < iters; i++) {
		if (busy_round(qc, &p, &cfg)) {
			why_append(qc, " (round %d of %d)", i + 1, iters);
			ret = -1;
			break;
		}
	}
	qc->verbose = verbose;
	note(qc, "%d of %d rounds done", ret ? i : iters, iters);
	return ret;
}

/* Step rnr-wait: see the top of the file. */
static int step_rnr_wait(struct qpcheck *qc, int iters)
{
	const struct rc_cfg cfg = {
		.name_a = "A",
		.name_b = "B (receives late)",
		.cap_a = { .max_send_wr = 4, .max_send_sge = 1,
			   .max_recv_wr = 1, .max_recv_sge = 1 },
		.cap_b = { .max_send_wr = 1, .max_send_sge = 1,
			   .max_recv_wr = 4, .max_recv_sge = 1 },
		.len_a = RNR_LEN,
		.len_b = RNR_LEN,
		.cqe = 8,
		.timeout = 14,
		.state_b = IBV_QPS_RTS,
	};
	struct ibv_sge sa = { .length = RNR_LEN }, sb = { .length = RNR_LEN };
	struct ibv_send_wr swr = {
		.wr_id = 1, .sg_list = &sa, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sb, .num_sge = 1 };
	struct ibv_send_wr *bad_s;
	struct ibv_recv_wr *bad_r;
	struct rc_pair p;
	struct ibv_wc wc;
	int ret = -1, err, n;
	long bad;

	(void)iters;
	if (pair_setup(qc, &p, &cfg))
		goto out;
	sa.addr = (uintptr_t)p.ra.buf;
	sa.lkey = p.ra.mr->lkey;
	sb.addr = (uintptr_t)p.rb.buf;
	sb.lkey = p.rb.mr->lkey;
	fill(p.ra.buf, RNR_LEN, 3);
	err = ibv_post_send(p.a, &swr, &bad_s);
	if (err) {
		fail_err(qc, verb_err(err), "post SEND");
		goto out;
	}
	/* B is not ready: nothing may complete, whatever the wait. */
	n = poll_wait(p.cq_a, &wc, 1, RNR_WAIT_MS);
	if (n < 0) {
		fail(qc, "ibv_poll_cq failed during the RNR wait");
		goto out;
	}
	if (n) {
		fail(qc, "SEND completed with %s (%d) before B posted a receive",
		     ibv_wc_status_str(wc.status), wc.status);
		goto out;
	}
	note(qc, "no completion in %d ms of RNR NAKs", RNR_WAIT_MS);
	err = ibv_post_recv(p.b, &rwr, &bad_r);
	if (err) {
		fail_err(qc, verb_err(err), "post RECV");
		goto out;
	}
	if (expect_wc(qc, p.cq_a, 1, "SEND after the RNR wait", &wc) ||
	    expect_wc(qc, p.cq_b, 2, "RECV after the RNR wait", &wc))
		goto out;
	bad = check(p.rb.buf, RNR_LEN, 3);
	if (bad >= 0) {
		fail(qc, "SEND: byte %ld of %d is wrong", bad, RNR_LEN);
		goto out;
	}
	ret = 0;
out:
	if (pair_teardown(qc, &p))
		ret = -1;
	return ret;
}

struct step {
	const char *name;
	int (*run)(struct qpcheck *qc, int iters);
	int iters;			/* default for -n */
};

static const struct step steps[] = {
	{ "zero-rq", step_zero_rq, 1 },
	{ "ah-foreign-pd", step_ah_foreign_pd, 1 },
	{ "ud-error-sqe", step_ud_error_sqe, 1 },
	{ "modify-av-race", step_modify_av_race, 2000 },
	{ "destroy-busy", step_destroy_busy, 200 },
	{ "rnr-wait", step_rnr_wait, 1 },
};

static void run_step(struct qpcheck *qc, const struct step *st)
{
	int iters = qc->iters ? qc->iters : st->iters;
	__u64 t0 = now_us();
	int ret;

	qc->why[0] = '\0';
	if (st->iters > 1)
		note(qc, "%s: %d iterations", st->name, iters);
	ret = st->run(qc, iters);
	note(qc, "%s: %.2f s", st->name, (now_us() - t0) / 1e6);
	if (!ret && !qc->why[0]) {
		printf("ok %s\n", st->name);
		return;
	}
	printf("FAIL %s: %s\n", st->name,
	       qc->why[0] ? qc->why : "failed without a reason");
	qc->failed++;
}

static const char *gid_type_str(enum ibv_gid_type t)
{
	switch (t) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown";
	}
}

/* The GID of -g, which must be RoCE v2, or the first RoCE v2 entry. */
static int pick_gid(struct qpcheck *qc)
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry e, *tbl;
	char buf[40];
	ssize_t n, i;
	int ret;

	if (qc->gid_idx >= 0) {
		ret = ibv_query_gid_ex(qc->ctx, PORT, qc->gid_idx, &e, 0);
		if (ret)
			return fail_err(qc, ret < 0 ? -ret : ret,
					"ibv_query_gid_ex index %d",
					qc->gid_idx);
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			return fail(qc, "GID index %d is %s, not RoCE v2",
				    qc->gid_idx, gid_type_str(e.gid_type));
	} else {
		ret = ibv_query_port(qc->ctx, PORT, &pattr);
		if (ret)
			return fail_err(qc, verb_err(ret), "ibv_query_port");
		if (pattr.gid_tbl_len <= 0)
			return fail(qc, "port %d has no GID table", PORT);
		tbl = calloc(pattr.gid_tbl_len, sizeof(*tbl));
		if (!tbl)
			return fail_err(qc, ENOMEM, "GID table");
		n = ibv_query_gid_table(qc->ctx, tbl, pattr.gid_tbl_len, 0);
		for (i = 0; i < n; i++)
			if (tbl[i].port_num == PORT &&
			    tbl[i].gid_type == IBV_GID_TYPE_ROCE_V2)
				break;
		if (n >= 0 && i < n)
			e = tbl[i];
		free(tbl);
		if (n < 0)
			return fail_err(qc, (int)-n, "ibv_query_gid_table");
		if (i == n)
			return fail(qc, "no RoCE v2 GID among %zd entries", n);
		qc->gid_idx = e.gid_index;
	}
	qc->gid = e.gid;
	for (i = 0; i < 16; i += 2)
		snprintf(buf + i / 2 * 5, sizeof(buf) - i / 2 * 5, "%02x%02x%s",
			 e.gid.raw[i], e.gid.raw[i + 1], i < 14 ? ":" : "");
	note(qc, "GID index %d: %s", qc->gid_idx, buf);
	return 0;
}

static int open_device(struct qpcheck *qc)
{
	int i, n;

	qc->list = ibv_get_device_list(&n);
	if (!qc->list)
		return fail_err(qc, errno_or_eio(), "ibv_get_device_list");
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(qc->list[i]), qc->dev_name))
			continue;
		qc->ctx = ibv_open_device(qc->list[i]);
		if (!qc->ctx)
			return fail_err(qc, errno_or_eio(), "open %s",
					qc->dev_name);
		return 0;
	}
	return fail(qc, "no device named %s among %d", qc->dev_name, n);
}

static void help(FILE *f, const char *prog)
{
	size_t i;

	fprintf(f,
		"usage: %s -d DEV [-g GIDX] [-s STEPS] [-n N] [-v]\n"
		"  -d, --device DEV      RDMA device name (e.g. irn0)\n"
		"  -g, --gid-index N     RoCE v2 GID to talk to (default: the\n"
		"                        first RoCE v2 entry of port 1)\n"
		"  -s, --steps LIST      only these steps, comma separated\n"
		"                        (default: all)\n"
		"  -n, --iterations N    iterations of the stress steps\n"
		"                        (default: per step, below)\n"
		"  -v, --verbose         say what each step saw\n"
		"steps:\n", prog);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].iters > 1)
			fprintf(f, "  %-16s (-n %d)\n", steps[i].name,
				steps[i].iters);
		else
			fprintf(f, "  %s\n", steps[i].name);
	}
}

/* Mark the steps named in @list; -1 for a name that is not a step. */
static int select_steps(char *list, int *want)
{
	char *tok, *save = NULL;
	size_t i;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(steps); i++)
			if (!strcmp(steps[i].name, tok))
				break;
		if (i == ARRAY_SIZE(steps)) {
			fprintf(stderr, "unknown step '%s'\n", tok);
			return -1;
		}
		want[i] = 1;
	}
	return 0;
}

static int parse_count(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0 || v > 1000000000)
		return -1;
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "steps", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct qpcheck qc = { .gid_idx = -1 };
	int want[ARRAY_SIZE(steps)] = {}, any = 0, n_run = 0, c, ret;
	size_t i;

	while ((c = getopt_long(argc, argv, "d:g:s:n:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			qc.dev_name = optarg;
			break;
		case 'g':
			if (parse_count(optarg, &qc.gid_idx)) {
				fprintf(stderr, "bad GID index '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (select_steps(optarg, want))
				return 2;
			any = 1;
			break;
		case 'n':
			if (parse_count(optarg, &qc.iters) || !qc.iters) {
				fprintf(stderr, "bad iteration count '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			qc.verbose = 1;
			break;
		case 'h':
			help(stdout, argv[0]);
			return 0;
		default:
			help(stderr, argv[0]);
			return 2;
		}
	}
	if (!qc.dev_name || optind != argc) {
		help(stderr, argv[0]);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	qc.seed = (unsigned int)now_us() ^ (unsigned int)getpid();
	if (open_device(&qc) || pick_gid(&qc)) {
		printf("FAIL setup: %s\n", qc.why);
		qc.failed++;
	} else {
		for (i = 0; i < ARRAY_SIZE(steps); i++) {
			if (any && !want[i])
				continue;
			run_step(&qc, &steps[i]);
			n_run++;
		}
	}
	ret = qc.ctx ? ibv_close_device(qc.ctx) : 0;
	if (ret) {
		printf("FAIL close_device: %s\n", strerror(verb_err(ret)));
		qc.failed++;
	}
	if (qc.list)
		ibv_free_device_list(qc.list);

	printf("irn_qpcheck %s: %d failure(s) in %d of %zu steps run\n",
	       qc.dev_name, qc.failed, n_run, ARRAY_SIZE(steps));
	return qc.failed ? 1 : 0;
}
