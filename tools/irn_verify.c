// SPDX-License-Identifier: GPL-2.0
/*
 * irn_verify - end-to-end data, completion and error-path checks for a
 * RoCEv2 RDMA device driven through libibverbs.
 *
 *   server: irn_verify -d DEV -g GIDIDX [-p PORT]
 *   client: irn_verify -d DEV -g GIDIDX [-p PORT] [options] SERVER_IP
 *
 * The two processes meet over TCP (like ibv_rc_pingpong) and exchange QP
 * numbers, PSNs, GIDs, rkeys and addresses.  The client owns the test
 * list: for each test it sends a descriptor to the server, then both sides
 * build fresh CQs, QPs and MRs for that test, run it in lock step and tear
 * everything down again.  The client is the requester, the server the
 * responder.
 *
 * Every message carries bytes from a PRNG keyed by (seed, message number,
 * byte offset), and every destination buffer is filled beforehand with a
 * different "poison" pattern, so a corrupted, shifted, truncated, stale or
 * stray byte anywhere in the buffer is caught.  Every completion is checked
 * field by field (status, opcode, byte_len, imm_data, wc_flags, qp_num,
 * src_qp, wr_id order).
 *
 * Error tests use fresh QPs, check the exact completion status, that the
 * QP is in the ERR state afterwards, that later WRs complete with
 * IBV_WC_WR_FLUSH_ERR and that the target memory is unchanged byte for
 * byte.
 *
 * Output: "ok TEST/CHECK", "FAIL TEST/CHECK: expected X got Y",
 * "skip TEST: reason", "# note" lines, then a summary.  Exit status 0 if
 * nothing failed on either side, 1 on a failed check, 2 on a usage or
 * protocol error.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <linux/types.h>

#include "irn_tool.h"

#define DEFAULT_PORT	"18515"
#define MAX_TESTS	1024
#define MAX_SIZES	32
#define GRH_LEN		40
#define UD_QKEY		0x11111111
#define ATOMIC_OFF	64
#define MAX_FAIL_LINES	8
#define SIZE_INLINE_MAX	UINT64_MAX
#define INLINE_BUF	4096
#define ERR_LEN		64
#define TOO_LONG_RECV	64
#define TOO_LONG_SEND	128
#define RECV_ID_BASE	1000
#define MW_BIND_ID	2000
#define MW_INV_ID	2001
#define MW_WIN_OFF	1024	/* err.write_mw_out_of_window: the window */
#define MW_WIN_LEN	1024
/*
 * The kernel's IB_WC_WITH_INVALIDATE: rxe and irn copy the kernel's
 * wc_flags to userspace, where this bit is IBV_WC_IP_CSUM_OK.
 */
#define KERNEL_WC_WITH_INV	0x4
#define UC_SETTLE_MS	3000

#define TF_SGE3		0x1
#define TF_INLINE	0x2
#define TF_ERROR	0x4
#define TF_SRQ		0x8	/* receives come from a shared receive queue */

enum op {
	OP_SEND,
	OP_SEND_IMM,
	OP_SEND_INV,
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_CAS,
	OP_FAA,
	ERR_BAD_RKEY,
	ERR_WRITE_OOB,
	ERR_NO_WRITE,
	ERR_NO_READ,
	ERR_MISALIGNED,
	ERR_BAD_LKEY,
	ERR_TOO_LONG,
	ERR_RNR,
	ERR_RETRY,
	ERR_OTHER_PD,
	ERR_DEREG_WRITE,
	ERR_DEREG_READ,
	ERR_MW_DEALLOC,
	ERR_MW_NO_READ,
	ERR_MW_OOB,
	ERR_MW_LOCAL_INV,
	ERR_MW_SEND_INV,
	ERR_MW_OTHER_QP,
	ERR_MW_UNBOUND,
	ERR_BIND_NO_BIND,
	ERR_BIND_NO_LWRITE,
	ERR_BIND_OOB,
	ERR_BIND_BOUND,
	OP_COUNT
};

static const char * const op_names[OP_COUNT] = {
	[OP_SEND] = "send",
	[OP_SEND_IMM] = "send_imm",
	[OP_SEND_INV] = "send_inv",
	[OP_WRITE] = "write",
	[OP_WRITE_IMM] = "write_imm",
	[OP_READ] = "read",
	[OP_CAS] = "atomic_cas",
	[OP_FAA] = "atomic_faa",
	[ERR_BAD_RKEY] = "err.write_bad_rkey",
	[ERR_WRITE_OOB] = "err.write_out_of_bounds",
	[ERR_NO_WRITE] = "err.write_no_remote_write",
	[ERR_NO_READ] = "err.read_no_remote_read",
	[ERR_MISALIGNED] = "err.atomic_misaligned",
	[ERR_BAD_LKEY] = "err.send_bad_lkey",
	[ERR_TOO_LONG] = "err.send_too_long",
	[ERR_RNR] = "err.rnr_retry_exceeded",
	[ERR_RETRY] = "err.retry_exceeded",
	[ERR_OTHER_PD] = "err.write_other_pd",
	[ERR_DEREG_WRITE] = "err.write_deregistered",
	[ERR_DEREG_READ] = "err.read_deregistered",
	[ERR_MW_DEALLOC] = "err.write_deallocated_mw",
	[ERR_MW_NO_READ] = "err.read_mw_no_remote_read",
	[ERR_MW_OOB] = "err.write_mw_out_of_window",
	[ERR_MW_LOCAL_INV] = "err.write_mw_local_inv",
	[ERR_MW_SEND_INV] = "err.write_mw_send_inv",
	[ERR_MW_OTHER_QP] = "err.write_mw_other_qp",
	[ERR_MW_UNBOUND] = "err.write_mw_unbound",
	[ERR_BIND_NO_BIND] = "err.bind_mw_no_mw_bind",
	[ERR_BIND_NO_LWRITE] = "err.bind_mw_no_local_write",
	[ERR_BIND_OOB] = "err.bind_mw_out_of_bounds",
	[ERR_BIND_BOUND] = "err.bind_mw_type2_bound",
};

/* A test as the client sends it to the server (same host ABI both ends). */
struct tdesc {
	char name[80];
	__u32 qp_type;
	__u32 op;
	__u32 flags;
	__u32 iters;
	__u64 size;
	__u64 seed;
	__u64 msg_base;
	__u32 timeout_ms;
	__u32 end;
};

/* What each side tells the other about its QP and memory. */
struct qpinfo {
	__u32 ok;
	__u32 qpn;
	__u32 psn;
	__u32 rkey;
	__u32 alt_rkey;
	__u32 max_inline;
	__u64 addr;
	__u64 alt_addr;
	__u64 len;
	__u64 alt_len;
	__u8 gid[16];
};

struct seg {
	size_t off;
	size_t len;
};

/* Where the bytes of one message sit inside a buffer slot, in order. */
struct layout {
	int n;
	struct seg s[3];
};

struct res {
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_qp *qp2;	/* err.write_mw_other_qp: binds the window */
	struct ibv_srq *srq;	/* TF_SRQ */
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_mr *alt;
	struct ibv_mw *mw;	/* memory-window tests */
	unsigned char *buf;
	unsigned char *alt_buf;
	unsigned char *snap;
	unsigned char *alt_snap;
	unsigned char *exp;
	size_t len;
	size_t alt_len;
	size_t stride;
	size_t size;
	unsigned int nslots;
	struct qpinfo me;
	struct qpinfo peer;
};

struct verify {
	const char *dev_name;
	int gid_idx;
	const char *port;
	const char *server;
	unsigned int types;
	__u64 sizes[MAX_SIZES];
	int n_sizes;
	unsigned int iters;
	__u64 seed;
	const char *only;
	const char *known;
	int list;
	int data_only;
	int errors_only;
	int srq;
	unsigned int timeout_ms;
	unsigned int ack_timeout;	/* the RC QPs' local ACK timeout */
	int is_server;

	int sock;
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *pd2;	/* for MRs the QPs must not reach */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	unsigned int mtu;

	const char *test;
	int test_fails;
	int group_fails;
	int group_known;
	int known_fails;
	int ok_checks;
	int failed_checks;
	int skipped;

	struct tdesc tests[MAX_TESTS];
	int n_tests;
};

#define TYPE_RC		0x1
#define TYPE_UC		0x2
#define TYPE_UD		0x4

enum sync_tag {
	TAG_READY = 0x52454459,
	TAG_DONE = 0x444f4e45,
	TAG_START = 0x53545254,
	TAG_INVALIDATED = 0x494e5644,
};

/* ------------------------------------------------------------------ */
/* results */

static int glob_list_match(const char *list, const char *name)
{
	char pat[512], *p, *save = NULL;

	snprintf(pat, sizeof(pat), "%s", list);
	for (p = strtok_r(pat, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!fnmatch(p, name, 0))
			return 1;
	return 0;
}

static void fail(struct verify *v, const char *what, const char *fmt, ...)
{
	char full[160];
	va_list ap;

	snprintf(full, sizeof(full), "%s/%s", v->test, what);
	if (v->known && glob_list_match(v->known, full)) {
		/* a documented deviation (--known): reported, not counted */
		v->group_known++;
		v->known_fails++;
		printf("xfail %s: ", full);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(" (known deviation)\n");
		return;
	}
	v->group_fails++;
	v->test_fails++;
	if (v->test_fails > MAX_FAIL_LINES) {
		if (v->test_fails == MAX_FAIL_LINES + 1)
			printf("FAIL %s: more failures, not shown\n", v->test);
		return;
	}
	printf("FAIL %s/%s: ", v->test, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void note(struct verify *v, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", v->test ? v->test : "irn_verify");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void group_begin(struct verify *v)
{
	v->group_fails = 0;
	v->group_known = 0;
}

static void group_end(struct verify *v, const char *what)
{
	if (v->group_fails) {
		v->failed_checks++;
		return;
	}
	v->ok_checks++;
	if (v->group_known)
		printf("ok %s/%s (with %d known deviations)\n", v->test, what,
		       v->group_known);
	else
		printf("ok %s/%s\n", v->test, what);
	fflush(stdout);
}

static void expect_u64(struct verify *v, const char *what, __u64 exp,
		       __u64 got)
{
	if (exp != got)
		fail(v, what, "expected %#llx got %#llx",
		     (unsigned long long)exp, (unsigned long long)got);
}

static void expect_status(struct verify *v, const char *what,
			  enum ibv_wc_status exp, enum ibv_wc_status got)
{
	if (exp != got)
		fail(v, what, "expected %s got %s (%d)",
		     ibv_wc_status_str(exp), ibv_wc_status_str(got), got);
}

/* ------------------------------------------------------------------ */
/* data patterns */

static __u64 mix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static __u64 hash_str(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* buf[i] = byte (off0 + i) of message msg */
static void fill_pat(unsigned char *buf, size_t len, __u64 seed,
		     __u64 msg, __u64 off0)
{
	__u64 key = mix64(seed ^ mix64(msg));
	__u64 off = off0, blk = 0;
	size_t i;

	for (i = 0; i < len; i++, off++) {
		if (i == 0 || !(off & 7))
			blk = mix64(key ^ (off >> 3));
		buf[i] = blk >> ((off & 7) * 8);
	}
}

static __u64 poison_of(__u64 msg_base)
{
	return ~msg_base;
}

static __u32 imm_of(__u64 msg)
{
	return (__u32)mix64(msg ^ 0x494d4d);
}

static void make_layout(struct layout *l, size_t len, int sge3, int variant)
{
	size_t a, b;

	memset(l, 0, sizeof(*l));
	if (!sge3) {
		l->n = len ? 1 : 0;
		l->s[0].off = 3;
		l->s[0].len = len;
		return;
	}
	/* three segments of odd lengths (as far as len allows), with gaps */
	if (variant) {
		a = (len / 5) | 1;
		b = ((len - a) / 3) | 1;
	} else {
		a = (len / 3) | 1;
		b = ((len - a) / 2) | 1;
	}
	l->n = 3;
	l->s[0].off = 5;
	l->s[0].len = a;
	l->s[1].off = l->s[0].off + a + 7;
	l->s[1].len = b;
	l->s[2].off = l->s[1].off + b + 9;
	l->s[2].len = len - a - b;
}

static void layout_fill(unsigned char *slot, const struct layout *l,
			__u64 seed, __u64 msg)
{
	__u64 m = 0;
	int i;

	for (i = 0; i < l->n; i++) {
		fill_pat(slot + l->s[i].off, l->s[i].len, seed, msg, m);
		m += l->s[i].len;
	}
}

static void layout_sges(struct ibv_sge *sge, const struct layout *l,
			unsigned char *slot, __u32 lkey)
{
	int i;

	for (i = 0; i < l->n; i++) {
		sge[i].addr = (uintptr_t)(slot + l->s[i].off);
		sge[i].length = l->s[i].len;
		sge[i].lkey = lkey;
	}
}

static void poison_buf(struct res *r, const struct tdesc *t)
{
	fill_pat(r->buf, r->len, t->seed, poison_of(t->msg_base), 0);
	fill_pat(r->alt_buf, r->alt_len, t->seed,
		 poison_of(t->msg_base) ^ 1, 0);
}

/* Compare len bytes; report the first difference and how many differ. */
static int compare(struct verify *v, const char *what,
		   const unsigned char *got, const unsigned char *exp,
		   size_t len)
{
	size_t i, first = 0, bad = 0;

	if (!memcmp(got, exp, len))
		return 0;
	for (i = 0; i < len; i++) {
		if (got[i] == exp[i])
			continue;
		if (!bad++)
			first = i;
	}
	fail(v, what, "byte %zu: expected %#04x got %#04x (%zu of %zu bytes differ)",
	     first, exp[first], got[first], bad, len);
	return -1;
}

/*
 * The expected content of slot i: the poison pattern, and message
 * msg_base + i where layout l puts it (if i < nmsg).
 */
static void expected_slot(struct res *r, const struct tdesc *t,
			  unsigned int i, unsigned int nmsg,
			  const struct layout *l)
{
	fill_pat(r->exp, r->stride, t->seed, poison_of(t->msg_base),
		 (__u64)i * r->stride);
	if (i < nmsg)
		layout_fill(r->exp, l, t->seed, t->msg_base + i);
}

/* Check every slot of the main buffer; returns 0 if all match. */
static int verify_slots(struct verify *v, struct res *r,
			const struct tdesc *t, unsigned int nmsg,
			const struct layout *l, int report)
{
	char what[64];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < r->nslots; i++) {
		expected_slot(r, t, i, nmsg, l);
		if (!report) {
			if (memcmp(r->buf + (size_t)i * r->stride, r->exp,
				   r->stride))
				return -1;
			continue;
		}
		snprintf(what, sizeof(what), "data[%u]", i);
		if (compare(v, what, r->buf + (size_t)i * r->stride, r->exp,
			    r->stride))
			bad = -1;
	}
	return bad;
}

/* ------------------------------------------------------------------ */
/* control connection */

static int xwrite(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n) {
		k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= k;
	}
	return 0;
}

static int xread(int fd, void *p, size_t n)
{
	char *c = p;
	ssize_t k;

	while (n) {
		k = read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= k;
	}
	return 0;
}

static void proto_die(struct verify *v, const char *what)
{
	fprintf(stderr, "irn_verify: control connection: %s failed (%s) in %s\n",
		what, strerror(errno), v->test ? v->test : "setup");
	printf("FAIL %s/protocol: lost the control connection to the peer (%s)\n",
	       v->test ? v->test : "setup", what);
	exit(2);
}

static __u32 xchg_u32(struct verify *v, __u32 val)
{
	__u32 peer;

	if (xwrite(v->sock, &val, sizeof(val)))
		proto_die(v, "write");
	if (xread(v->sock, &peer, sizeof(peer)))
		proto_die(v, "read");
	return peer;
}

static void xsync(struct verify *v, __u32 tag)
{
	__u32 peer = xchg_u32(v, tag);

	if (peer != tag) {
		errno = EPROTO;
		proto_die(v, "sync");
	}
}

static int tcp_server(struct verify *v)
{
	struct addrinfo hints = {
		.ai_family = AF_INET,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE,
	};
	struct addrinfo *ai;
	int fd, cfd, one = 1;

	if (getaddrinfo(NULL, v->port, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0) {
		freeaddrinfo(ai);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1)) {
		perror("irn_verify: bind/listen");
		freeaddrinfo(ai);
		close(fd);
		return -1;
	}
	freeaddrinfo(ai);
	printf("# listening on TCP port %s\n", v->port);
	fflush(stdout);
	cfd = accept(fd, NULL, NULL);
	close(fd);
	return cfd;
}

static int tcp_client(struct verify *v)
{
	struct addrinfo hints = {
		.ai_family = AF_INET,
		.ai_socktype = SOCK_STREAM,
	};
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	struct addrinfo *ai;
	int fd, i;

	if (getaddrinfo(v->server, v->port, &hints, &ai)) {
		fprintf(stderr, "irn_verify: cannot resolve %s\n", v->server);
		return -1;
	}
	/* the server may not be listening yet: retry for a minute */
	for (i = 0; i < 300; i++) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			break;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			freeaddrinfo(ai);
			return fd;
		}
		close(fd);
		nanosleep(&ts, NULL);
	}
	freeaddrinfo(ai);
	perror("irn_verify: connect");
	return -1;
}

/* ------------------------------------------------------------------ */
/* completions */

struct wc_exp {
	enum ibv_wc_status status;
	int opcode;		/* -1: do not check */
	__u64 wr_id;
	long long byte_len;	/* -1: do not check */
	int recv;		/* a receive completion: check wc_flags */
	unsigned int flags;	/* expected IBV_WC_WITH_IMM / IBV_WC_WITH_INV */
	__u32 imm;		/* host order */
	__u32 inv_rkey;
	__u32 qp_num;
	long long src_qp;	/* -1: do not check */
};

static void check_wc(struct verify *v, const char *side, int i,
		     const struct ibv_wc *wc, const struct wc_exp *e)
{
	const unsigned int fmask = IBV_WC_WITH_IMM | IBV_WC_WITH_INV;
	char what[64];

	snprintf(what, sizeof(what), "%s[%d].wr_id", side, i);
	expect_u64(v, what, e->wr_id, wc->wr_id);
	snprintf(what, sizeof(what), "%s[%d].status", side, i);
	expect_status(v, what, e->status, wc->status);
	snprintf(what, sizeof(what), "%s[%d].qp_num", side, i);
	expect_u64(v, what, e->qp_num, wc->qp_num);
	/* the other fields are undefined in an error completion */
	if (wc->status != IBV_WC_SUCCESS || e->status != IBV_WC_SUCCESS)
		return;
	if (e->opcode >= 0) {
		snprintf(what, sizeof(what), "%s[%d].opcode", side, i);
		expect_u64(v, what, e->opcode, wc->opcode);
	}
	if (e->byte_len >= 0) {
		snprintf(what, sizeof(what), "%s[%d].byte_len", side, i);
		expect_u64(v, what, e->byte_len, wc->byte_len);
	}
	/* wc_flags are defined for receive completions only */
	if (!e->recv)
		return;
	snprintf(what, sizeof(what), "%s[%d].wc_flags", side, i);
	expect_u64(v, what, e->flags, wc->wc_flags & fmask);
	if (e->flags & IBV_WC_WITH_IMM) {
		snprintf(what, sizeof(what), "%s[%d].imm_data", side, i);
		expect_u64(v, what, e->imm, be32toh(wc->imm_data));
	}
	if (e->flags & IBV_WC_WITH_INV) {
		snprintf(what, sizeof(what), "%s[%d].invalidated_rkey", side,
			 i);
		expect_u64(v, what, e->inv_rkey, wc->invalidated_rkey);
	}
	if (e->src_qp >= 0) {
		snprintf(what, sizeof(what), "%s[%d].src_qp", side, i);
		expect_u64(v, what, e->src_qp, wc->src_qp);
		snprintf(what, sizeof(what), "%s[%d].wc_flags.GRH", side, i);
		expect_u64(v, what, IBV_WC_GRH, wc->wc_flags & IBV_WC_GRH);
	}
}

/*
 * Poll exactly n completions from cq, check each against e[] (in posting
 * order), then check that no further completion is queued.  Completions
 * are returned in wc (n entries) if wc is not NULL.
 */
static int expect_cqes(struct verify *v, const char *side, struct ibv_cq *cq,
		       int n, const struct wc_exp *e, unsigned int ms,
		       struct ibv_wc *out)
{
	struct ibv_wc *wc, extra;
	char what[64];
	int got, i;

	wc = calloc(n + 1, sizeof(*wc));
	if (!wc)
		abort();
	group_begin(v);
	got = n ? irn_tool_poll_cq(cq, wc, n, ms) : 0;
	if (got < n)
		fail(v, side, "expected %d completions got %d within %u ms",
		     n, got < 0 ? 0 : got, ms);
	for (i = 0; i < got; i++)
		check_wc(v, side, i, &wc[i], &e[i]);
	if (ibv_poll_cq(cq, 1, &extra) > 0) {
		snprintf(what, sizeof(what), "%s.extra", side);
		fail(v, what, "expected no further completion got wr_id %llu status %s",
		     (unsigned long long)extra.wr_id,
		     ibv_wc_status_str(extra.status));
	}
	group_end(v, side);
	if (out)
		memcpy(out, wc, n * sizeof(*wc));
	free(wc);
	return got == n ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* resources */

static int qp_access(__u32 qp_type)
{
	if (qp_type == IBV_QPT_RC)
		return IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		       IBV_ACCESS_REMOTE_ATOMIC;
	if (qp_type == IBV_QPT_UC)
		return IBV_ACCESS_REMOTE_WRITE;
	return 0;
}

/* Error tests reaching the server's alternate MR through a memory window */
static int is_mw_remote(__u32 op)
{
	return op >= ERR_MW_NO_READ && op <= ERR_MW_UNBOUND;
}

/* Error tests where the client's bind of a memory window must fail */
static int is_bind_err(__u32 op)
{
	return op >= ERR_BIND_NO_BIND && op <= ERR_BIND_BOUND;
}

/* The type of the window a side allocates for a test, 0 for none. */
static int mw_type(__u32 op, int is_server)
{
	if (is_server && (op == ERR_MW_OOB || op == ERR_MW_UNBOUND))
		return IBV_MW_TYPE_1;
	if (is_server ? is_mw_remote(op) : is_bind_err(op))
		return IBV_MW_TYPE_2;
	return 0;
}

/*
 * The alternate MR grants no remote access of its own where a window
 * reaches it; the bind tests each lack one right a bind needs.
 */
static int alt_access(__u32 op)
{
	if (op == ERR_NO_WRITE)
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	if (op == ERR_NO_READ)
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (op == ERR_BIND_NO_LWRITE)
		return IBV_ACCESS_MW_BIND;
	if (op != ERR_BIND_NO_BIND &&
	    (op == ERR_MW_DEALLOC || is_mw_remote(op) || is_bind_err(op)))
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	       IBV_ACCESS_REMOTE_READ;
}

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static void *page_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, round_up(len ? len : 1, 4096)))
		return NULL;
	return p;
}

static void res_free(struct res *r)
{
	/* a bound window would keep its MR (and QP) from going */
	if (r->mw)
		ibv_dealloc_mw(r->mw);
	if (r->ah)
		ibv_destroy_ah(r->ah);
	if (r->qp2)
		ibv_destroy_qp(r->qp2);
	if (r->qp)
		ibv_destroy_qp(r->qp);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->scq)
		ibv_destroy_cq(r->scq);
	if (r->rcq)
		ibv_destroy_cq(r->rcq);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->alt)
		ibv_dereg_mr(r->alt);
	free(r->buf);
	free(r->alt_buf);
	free(r->snap);
	free(r->alt_snap);
	free(r->exp);
	memset(r, 0, sizeof(*r));
}

static int create_qp(struct verify *v, const struct tdesc *t, struct res *r)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = t->iters + 8, .max_sge = 3 },
	};
	struct ibv_qp_init_attr ia;
	unsigned int inl = 512;

	if (t->flags & TF_SRQ) {
		r->srq = ibv_create_srq(v->pd, &sa);
		if (!r->srq) {
			fail(v, "setup", "ibv_create_srq: %s", strerror(errno));
			return -1;
		}
	}
	for (;;) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = r->scq;
		ia.recv_cq = r->rcq;
		ia.qp_type = t->qp_type;
		ia.srq = r->srq;
		ia.cap.max_send_wr = t->iters + 8;
		ia.cap.max_recv_wr = t->iters + 8;
		ia.cap.max_send_sge = 3;
		ia.cap.max_recv_sge = 3;
		ia.cap.max_inline_data = inl;
		r->qp = ibv_create_qp(v->pd, &ia);
		if (r->qp)
			break;
		if (!inl) {
			fail(v, "setup", "ibv_create_qp: %s", strerror(errno));
			return -1;
		}
		inl /= 2;
		if (inl < 16)
			inl = 0;
	}
	r->me.max_inline = ia.cap.max_inline_data;
	return 0;
}

static int qp_to_rts(struct verify *v, const struct tdesc *t, struct res *r,
		     struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (t->qp_type == IBV_QPT_UD) {
		a.qkey = UD_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = qp_access(t->qp_type);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, mask)) {
		fail(v, "setup", "modify_qp INIT: %s", strerror(errno));
		return -1;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t->qp_type != IBV_QPT_UD) {
		a.path_mtu = v->pattr.active_mtu;
		a.dest_qp_num = r->peer.qpn;
		a.rq_psn = r->peer.psn;
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, r->peer.gid, 16);
		a.ah_attr.grh.sgid_index = v->gid_idx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (t->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(qp, &a, mask)) {
		fail(v, "setup", "modify_qp RTR: %s", strerror(errno));
		return -1;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r->me.psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t->qp_type == IBV_QPT_RC) {
		a.timeout = v->ack_timeout;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		if (t->op == ERR_RNR)
			a.rnr_retry = 0;
		if (t->op == ERR_RETRY) {
			a.timeout = 10;
			a.retry_cnt = 1;
		}
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(qp, &a, mask)) {
		fail(v, "setup", "modify_qp RTS: %s", strerror(errno));
		return -1;
	}
	if (t->qp_type == IBV_QPT_UD) {
		struct ibv_ah_attr ah;

		memset(&ah, 0, sizeof(ah));
		ah.is_global = 1;
		memcpy(ah.grh.dgid.raw, r->peer.gid, 16);
		ah.grh.sgid_index = v->gid_idx;
		ah.grh.hop_limit = 64;
		ah.port_num = 1;
		r->ah = ibv_create_ah(v->pd, &ah);
		if (!r->ah) {
			fail(v, "setup", "ibv_create_ah: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int res_alloc(struct verify *v, const struct tdesc *t, struct res *r)
{
	int cqe = 2 * t->iters + 16, acc;
	size_t size = t->size;

	if (size == SIZE_INLINE_MAX)
		size = INLINE_BUF;
	if (t->flags & TF_ERROR)
		size = TOO_LONG_SEND;
	r->stride = round_up(size + 128, 64);
	r->nslots = t->iters < 2 ? 2 : t->iters;
	r->len = r->stride * r->nslots;
	r->alt_len = 4096;
	r->buf = page_alloc(r->len);
	r->alt_buf = page_alloc(r->alt_len);
	r->snap = malloc(r->len);
	r->alt_snap = malloc(r->alt_len);
	r->exp = malloc(r->stride);
	if (!r->buf || !r->alt_buf || !r->snap || !r->alt_snap || !r->exp) {
		fail(v, "setup", "out of memory");
		return -1;
	}
	acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	      IBV_ACCESS_REMOTE_READ;
	if (v->dattr.atomic_cap != IBV_ATOMIC_NONE)
		acc |= IBV_ACCESS_REMOTE_ATOMIC;
	r->mr = ibv_reg_mr(v->pd, r->buf, r->len, acc);
	/* err.write_other_pd: a fully accessible MR, but of another PD */
	r->alt = ibv_reg_mr(t->op == ERR_OTHER_PD ? v->pd2 : v->pd, r->alt_buf,
			    r->alt_len, alt_access(t->op));
	if (!r->mr || !r->alt) {
		fail(v, "setup", "ibv_reg_mr: %s", strerror(errno));
		return -1;
	}
	if (mw_type(t->op, v->is_server)) {
		r->mw = ibv_alloc_mw(v->pd, mw_type(t->op, v->is_server));
		if (!r->mw) {
			fail(v, "setup", "ibv_alloc_mw: %s", strerror(errno));
			return -1;
		}
	}
	r->scq = ibv_create_cq(v->ctx, cqe, NULL, NULL, 0);
	r->rcq = ibv_create_cq(v->ctx, cqe, NULL, NULL, 0);
	if (!r->scq || !r->rcq) {
		fail(v, "setup", "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	if (create_qp(v, t, r))
		return -1;
	r->me.qpn = r->qp->qp_num;
	/* start close to the 24-bit PSN wrap so that long tests cross it */
	r->me.psn = (0xffffff - 300 - (mix64(t->msg_base ^ v->is_server) &
					0xff)) & 0xffffff;
	r->me.rkey = r->mr->rkey;
	r->me.alt_rkey = r->alt->rkey;
	r->me.addr = (uintptr_t)r->buf;
	r->me.alt_addr = (uintptr_t)r->alt_buf;
	r->me.len = r->len;
	r->me.alt_len = r->alt_len;
	memcpy(r->me.gid, v->gid.raw, 16);
	return 0;
}

/* Both sides build their resources and get to RTS, or both give up. */
static int setup(struct verify *v, const struct tdesc *t, struct res *r)
{
	__u32 ok;

	memset(r, 0, sizeof(*r));
	group_begin(v);
	r->me.ok = !res_alloc(v, t, r);
	if (xwrite(v->sock, &r->me, sizeof(r->me)))
		proto_die(v, "write");
	if (xread(v->sock, &r->peer, sizeof(r->peer)))
		proto_die(v, "read");
	ok = r->me.ok && r->peer.ok;
	if (ok)
		ok = !qp_to_rts(v, t, r, r->qp);
	ok = xchg_u32(v, ok) && ok;
	if (!ok && !v->group_fails)
		fail(v, "setup", "the peer could not set up its side");
	if (v->group_fails)
		v->failed_checks++;
	r->size = t->size;
	if (t->size == SIZE_INLINE_MAX) {
		r->size = r->me.max_inline < r->peer.max_inline ?
			  r->me.max_inline : r->peer.max_inline;
		if (t->qp_type == IBV_QPT_UD && r->size > v->mtu)
			r->size = v->mtu;
		if (r->size > INLINE_BUF)
			r->size = INLINE_BUF;
	}
	return ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* data tests */

static enum ibv_wr_opcode wr_opcode(__u32 op)
{
	switch (op) {
	case OP_SEND_IMM:
		return IBV_WR_SEND_WITH_IMM;
	case OP_SEND_INV:
		return IBV_WR_SEND_WITH_INV;
	case OP_WRITE:
		return IBV_WR_RDMA_WRITE;
	case OP_WRITE_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case OP_READ:
		return IBV_WR_RDMA_READ;
	case OP_CAS:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	case OP_FAA:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	default:
		return IBV_WR_SEND;
	}
}

static int post_send(struct verify *v, struct res *r, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err;

	if (r->ah) {
		wr->wr.ud.ah = r->ah;
		wr->wr.ud.remote_qpn = r->peer.qpn;
		wr->wr.ud.remote_qkey = UD_QKEY;
	}
	err = ibv_post_send(r->qp, wr, &bad);
	if (err)
		fail(v, "post_send", "wr_id %llu: expected success got %s",
		     (unsigned long long)wr->wr_id, strerror(err));
	return err;
}

static int post_recv(struct verify *v, struct res *r, __u64 wr_id,
		     struct ibv_sge *sge, int nsge)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = nsge,
	};
	struct ibv_recv_wr *bad = NULL;
	int err;

	if (r->srq)
		err = ibv_post_srq_recv(r->srq, &wr, &bad);
	else
		err = ibv_post_recv(r->qp, &wr, &bad);
	if (err)
		fail(v, "post_recv", "wr_id %llu: expected success got %s",
		     (unsigned long long)wr_id, strerror(err));
	return err;
}

/* UD: the 40-byte GRH area holds the IPv4 header in its last 20 bytes. */
static void check_grh(struct verify *v, struct res *r, unsigned int i,
		      const unsigned char *g)
{
	static const unsigned char v4map[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char what[64];

	if (!memcmp(r->peer.gid, v4map, 12)) {
		const unsigned char *ip = g + 20;

		snprintf(what, sizeof(what), "grh[%u].ipv4.version_ihl", i);
		expect_u64(v, what, 0x45, ip[0]);
		snprintf(what, sizeof(what), "grh[%u].ipv4.protocol", i);
		expect_u64(v, what, 17, ip[9]);
		snprintf(what, sizeof(what), "grh[%u].ipv4.saddr", i);
		expect_u64(v, what, be32toh(*(__u32 *)(r->peer.gid + 12)),
			   ((__u32)ip[12] << 24) | (ip[13] << 16) |
			   (ip[14] << 8) | ip[15]);
		snprintf(what, sizeof(what), "grh[%u].ipv4.daddr", i);
		expect_u64(v, what, be32toh(*(__u32 *)(r->me.gid + 12)),
			   ((__u32)ip[16] << 24) | (ip[17] << 16) |
			   (ip[18] << 8) | ip[19]);
		return;
	}
	snprintf(what, sizeof(what), "grh[%u].ipv6.version", i);
	expect_u64(v, what, 6, g[0] >> 4);
	snprintf(what, sizeof(what), "grh[%u].sgid", i);
	compare(v, what, g + 8, r->peer.gid, 16);
	snprintf(what, sizeof(what), "grh[%u].dgid", i);
	compare(v, what, g + 24, r->me.gid, 16);
}

static void send_server(struct verify *v, const struct tdesc *t,
			struct res *r)
{
	int ud = t->qp_type == IBV_QPT_UD;
	unsigned int i, n = t->iters;
	struct ibv_sge sge[3];
	struct wc_exp *e;
	struct layout l;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	if (ud)
		make_layout(&l, r->size + GRH_LEN, 0, 0);
	else
		make_layout(&l, r->size, t->flags & TF_SGE3, 1);
	for (i = 0; i < n; i++) {
		layout_sges(sge, &l, r->buf + (size_t)i * r->stride,
			    r->mr->lkey);
		post_recv(v, r, RECV_ID_BASE + i, sge, l.n);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = IBV_WC_RECV;
		e[i].recv = 1;
		e[i].wr_id = RECV_ID_BASE + i;
		e[i].byte_len = r->size + (ud ? GRH_LEN : 0);
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = ud ? (long long)r->peer.qpn : -1;
		if (t->op == OP_SEND_IMM) {
			e[i].flags = IBV_WC_WITH_IMM;
			e[i].imm = imm_of(t->msg_base + i);
		}
	}
	xsync(v, TAG_READY);
	expect_cqes(v, "recv-cqe", r->rcq, n, e, t->timeout_ms, NULL);

	group_begin(v);
	if (ud) {
		/* GRH area: checked field by field, not as data */
		for (i = 0; i < n; i++) {
			unsigned char *g = r->buf + (size_t)i * r->stride + 3;

			check_grh(v, r, i, g);
		}
		group_end(v, "grh");
		group_begin(v);
		for (i = 0; i < r->nslots; i++) {
			unsigned char *s = r->buf + (size_t)i * r->stride;
			struct layout d;
			char what[32];

			make_layout(&d, r->size, 0, 0);
			d.s[0].off += GRH_LEN;
			expected_slot(r, t, i, n, &d);
			if (i < n)
				memcpy(r->exp + 3, s + 3, GRH_LEN);
			snprintf(what, sizeof(what), "data[%u]", i);
			compare(v, what, s, r->exp, r->stride);
		}
	} else {
		verify_slots(v, r, t, n, &l, 1);
	}
	group_end(v, "data");
	xsync(v, TAG_DONE);
	free(e);
}

static void send_client(struct verify *v, const struct tdesc *t,
			struct res *r)
{
	unsigned int i, n = t->iters;
	struct ibv_sge sge[3];
	struct wc_exp *e;
	struct layout l;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	make_layout(&l, r->size, t->flags & TF_SGE3, 0);
	for (i = 0; i < n; i++)
		layout_fill(r->buf + (size_t)i * r->stride, &l, t->seed,
			    t->msg_base + i);
	xsync(v, TAG_READY);
	for (i = 0; i < n; i++) {
		unsigned char *slot = r->buf + (size_t)i * r->stride;
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		layout_sges(sge, &l, slot, r->mr->lkey);
		wr.wr_id = i;
		wr.sg_list = sge;
		wr.num_sge = l.n;
		wr.opcode = wr_opcode(t->op);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (t->flags & TF_INLINE)
			wr.send_flags |= IBV_SEND_INLINE;
		if (t->op == OP_SEND_IMM)
			wr.imm_data = htobe32(imm_of(t->msg_base + i));
		if (t->op == OP_SEND_INV)
			wr.invalidate_rkey = r->peer.alt_rkey;
		post_send(v, r, &wr);
		/* inline data is copied at post time: the buffer is free */
		if (t->flags & TF_INLINE)
			fill_pat(slot, r->stride, t->seed, t->msg_base ^ 0x77,
				 0);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = IBV_WC_SEND;
		e[i].wr_id = i;
		e[i].byte_len = -1;
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = -1;
	}
	expect_cqes(v, "send-cqe", r->scq, n, e, t->timeout_ms, NULL);
	xsync(v, TAG_DONE);
	free(e);
}

/*
 * Send with Invalidate.  User space can only name keys of plain MRs, which
 * IBTA does not allow a remote peer to invalidate (only memory windows and
 * fast-register MRs, neither of which user space can create here), so the
 * invalidation itself cannot be exercised.  The key used is a real rkey of
 * the receiver (its second MR).  Accepted: the receive completes
 * successfully with IBV_WC_WITH_INV and the key in invalidated_rkey and the
 * data intact, or the receive completes in error (the key may not be
 * invalidated); the outcome is printed as a note.
 */
static void send_inv_server(struct verify *v, const struct tdesc *t,
			    struct res *r)
{
	struct ibv_sge sge[3];
	struct ibv_wc wc;
	struct layout l;
	int got;

	poison_buf(r, t);
	make_layout(&l, r->size, 0, 1);
	layout_sges(sge, &l, r->buf, r->mr->lkey);
	post_recv(v, r, RECV_ID_BASE, sge, l.n);
	xsync(v, TAG_READY);
	group_begin(v);
	got = irn_tool_poll_cq(r->rcq, &wc, 1, t->timeout_ms);
	if (got != 1) {
		fail(v, "recv-cqe", "expected 1 completion got 0 within %u ms",
		     t->timeout_ms);
	} else if (wc.status == IBV_WC_SUCCESS) {
		struct wc_exp e = {
			.status = IBV_WC_SUCCESS,
			.opcode = IBV_WC_RECV,
			.recv = 1,
			.wr_id = RECV_ID_BASE,
			.byte_len = r->size,
			.flags = IBV_WC_WITH_INV,
			.inv_rkey = r->me.alt_rkey,
			.qp_num = r->me.qpn,
			.src_qp = -1,
		};

		check_wc(v, "recv-cqe", 0, &wc, &e);
		verify_slots(v, r, t, 1, &l, 1);
		note(v, "receive ok, IBV_WC_WITH_INV, invalidated_rkey %#x (plain MR)",
		     wc.invalidated_rkey);
	} else {
		expect_u64(v, "recv-cqe.wr_id", RECV_ID_BASE, wc.wr_id);
		note(v, "receive completed with %s: a plain MR's key (accepted)",
		     ibv_wc_status_str(wc.status));
	}
	group_end(v, "recv-cqe");
	xsync(v, TAG_DONE);
}

static void send_inv_client(struct verify *v, const struct tdesc *t,
			    struct res *r)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge[3];
	struct ibv_wc wc;
	struct layout l;

	poison_buf(r, t);
	make_layout(&l, r->size, 0, 0);
	layout_fill(r->buf, &l, t->seed, t->msg_base);
	xsync(v, TAG_READY);
	memset(&wr, 0, sizeof(wr));
	layout_sges(sge, &l, r->buf, r->mr->lkey);
	wr.wr_id = 0;
	wr.sg_list = sge;
	wr.num_sge = l.n;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = r->peer.alt_rkey;
	group_begin(v);
	if (!post_send(v, r, &wr)) {
		if (irn_tool_poll_cq(r->scq, &wc, 1, t->timeout_ms) != 1)
			fail(v, "send-cqe", "expected 1 completion got 0 within %u ms",
			     t->timeout_ms);
		else if (wc.status == IBV_WC_SUCCESS)
			expect_u64(v, "send-cqe.opcode", IBV_WC_SEND,
				   wc.opcode);
		else
			note(v, "sender completed with %s (accepted, see the receiver)",
			     ibv_wc_status_str(wc.status));
	}
	group_end(v, "send-cqe");
	xsync(v, TAG_DONE);
}

static void write_server(struct verify *v, const struct tdesc *t,
			 struct res *r)
{
	int imm = t->op == OP_WRITE_IMM;
	unsigned int i, n = t->iters;
	struct wc_exp *e;
	struct layout l;
	__u64 end;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	for (i = 0; imm && i < n; i++) {
		post_recv(v, r, RECV_ID_BASE + i, NULL, 0);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		e[i].recv = 1;
		e[i].wr_id = RECV_ID_BASE + i;
		e[i].byte_len = r->size;
		e[i].flags = IBV_WC_WITH_IMM;
		e[i].imm = imm_of(t->msg_base + i);
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = -1;
	}
	xsync(v, TAG_READY);
	if (imm)
		expect_cqes(v, "recv-cqe", r->rcq, n, e, t->timeout_ms, NULL);
	xsync(v, TAG_DONE);
	make_layout(&l, r->size, 0, 0);
	/* UC: the requester completes on transmission; give it a moment */
	end = irn_tool_now_ms() + UC_SETTLE_MS;
	while (t->qp_type == IBV_QPT_UC && !imm &&
	       verify_slots(v, r, t, n, &l, 0) && irn_tool_now_ms() < end)
		usleep(10000);
	group_begin(v);
	verify_slots(v, r, t, n, &l, 1);
	group_end(v, "data");
	free(e);
}

static void write_client(struct verify *v, const struct tdesc *t,
			 struct res *r)
{
	unsigned int i, n = t->iters;
	struct ibv_sge sge[3];
	struct wc_exp *e;
	struct layout l;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	make_layout(&l, r->size, t->flags & TF_SGE3, 0);
	for (i = 0; i < n; i++)
		layout_fill(r->buf + (size_t)i * r->stride, &l, t->seed,
			    t->msg_base + i);
	memcpy(r->snap, r->buf, r->len);
	xsync(v, TAG_READY);
	for (i = 0; i < n; i++) {
		unsigned char *slot = r->buf + (size_t)i * r->stride;
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		layout_sges(sge, &l, slot, r->mr->lkey);
		wr.wr_id = i;
		wr.sg_list = sge;
		wr.num_sge = l.n;
		wr.opcode = wr_opcode(t->op);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (t->flags & TF_INLINE)
			wr.send_flags |= IBV_SEND_INLINE;
		if (t->op == OP_WRITE_IMM)
			wr.imm_data = htobe32(imm_of(t->msg_base + i));
		wr.wr.rdma.remote_addr = r->peer.addr +
					 (__u64)i * r->stride + 3;
		wr.wr.rdma.rkey = r->peer.rkey;
		post_send(v, r, &wr);
		if (t->flags & TF_INLINE)
			fill_pat(slot, r->stride, t->seed, t->msg_base ^ 0x77,
				 0);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = IBV_WC_RDMA_WRITE;
		e[i].wr_id = i;
		e[i].byte_len = -1;
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = -1;
	}
	expect_cqes(v, "send-cqe", r->scq, n, e, t->timeout_ms, NULL);
	if (!(t->flags & TF_INLINE)) {
		group_begin(v);
		compare(v, "source", r->buf, r->snap, r->len);
		group_end(v, "source-unchanged");
	}
	xsync(v, TAG_DONE);
	free(e);
}

static void read_server(struct verify *v, const struct tdesc *t,
			struct res *r)
{
	unsigned int i;
	struct layout l;

	poison_buf(r, t);
	make_layout(&l, r->size, 0, 0);
	for (i = 0; i < t->iters; i++)
		layout_fill(r->buf + (size_t)i * r->stride, &l, t->seed,
			    t->msg_base + i);
	memcpy(r->snap, r->buf, r->len);
	xsync(v, TAG_READY);
	xsync(v, TAG_DONE);
	group_begin(v);
	compare(v, "source", r->buf, r->snap, r->len);
	group_end(v, "source-unchanged");
}

static void read_client(struct verify *v, const struct tdesc *t,
			struct res *r)
{
	unsigned int i, n = t->iters;
	struct ibv_sge sge[3];
	struct wc_exp *e;
	struct layout l;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	make_layout(&l, r->size, t->flags & TF_SGE3, 0);
	xsync(v, TAG_READY);
	for (i = 0; i < n; i++) {
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		layout_sges(sge, &l, r->buf + (size_t)i * r->stride,
			    r->mr->lkey);
		wr.wr_id = i;
		wr.sg_list = sge;
		wr.num_sge = l.n;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->peer.addr +
					 (__u64)i * r->stride + 3;
		wr.wr.rdma.rkey = r->peer.rkey;
		post_send(v, r, &wr);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = IBV_WC_RDMA_READ;
		e[i].wr_id = i;
		e[i].byte_len = r->size;
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = -1;
	}
	expect_cqes(v, "send-cqe", r->scq, n, e, t->timeout_ms, NULL);
	group_begin(v);
	verify_slots(v, r, t, n, &l, 1);
	group_end(v, "data");
	xsync(v, TAG_DONE);
	free(e);
}

/*
 * Atomics: all iterations hit the same 8-byte word of the server at
 * ATOMIC_OFF, starting from v0.  FETCH_AND_ADD adds add(i) and must
 * return the running sum; CMP_AND_SWP alternates a matching compare (the
 * swap happens) and a mismatching one (it does not), and always returns
 * the current value.
 */
static __u64 atomic_v0(const struct tdesc *t)
{
	return mix64(t->seed ^ t->msg_base ^ 0x41544f4d);
}

static __u64 atomic_arg(const struct tdesc *t, unsigned int i)
{
	return mix64(t->msg_base + 0x1000 + i);
}

/* Value before iteration i (i == iters: the final value). */
static __u64 atomic_value(const struct tdesc *t, unsigned int i)
{
	__u64 cur = atomic_v0(t);
	unsigned int k;

	for (k = 0; k < i; k++) {
		if (t->op == OP_FAA)
			cur += atomic_arg(t, k);
		else if (!(k & 1))
			cur = atomic_arg(t, k);
	}
	return cur;
}

static void atomic_server(struct verify *v, const struct tdesc *t,
			  struct res *r)
{
	__u64 fin = atomic_value(t, t->iters), v0 = atomic_v0(t), got;

	poison_buf(r, t);
	memcpy(r->buf + ATOMIC_OFF, &v0, 8);
	memcpy(r->snap, r->buf, r->len);
	xsync(v, TAG_READY);
	xsync(v, TAG_DONE);
	group_begin(v);
	memcpy(&got, r->buf + ATOMIC_OFF, 8);
	expect_u64(v, "final-value", fin, got);
	memcpy(r->snap + ATOMIC_OFF, &fin, 8);
	compare(v, "around-target", r->buf, r->snap, r->len);
	group_end(v, "remote-value");
}

static void atomic_client(struct verify *v, const struct tdesc *t,
			  struct res *r)
{
	unsigned int i, n = t->iters;
	struct ibv_sge sge;
	struct wc_exp *e;
	char what[64];
	__u64 got;

	e = calloc(n, sizeof(*e));
	if (!e)
		abort();
	poison_buf(r, t);
	memcpy(r->snap, r->buf, r->len);
	xsync(v, TAG_READY);
	for (i = 0; i < n; i++) {
		struct ibv_send_wr wr;
		__u64 cur = atomic_value(t, i);

		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)(r->buf + (size_t)i * r->stride + 8);
		sge.length = 8;
		sge.lkey = r->mr->lkey;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = wr_opcode(t->op);
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = r->peer.addr + ATOMIC_OFF;
		wr.wr.atomic.rkey = r->peer.rkey;
		if (t->op == OP_FAA) {
			wr.wr.atomic.compare_add = atomic_arg(t, i);
		} else {
			wr.wr.atomic.compare_add = (i & 1) ? ~cur : cur;
			wr.wr.atomic.swap = atomic_arg(t, i);
		}
		post_send(v, r, &wr);
		e[i].status = IBV_WC_SUCCESS;
		e[i].opcode = t->op == OP_FAA ? IBV_WC_FETCH_ADD :
						IBV_WC_COMP_SWAP;
		e[i].wr_id = i;
		e[i].byte_len = 8;
		e[i].qp_num = r->me.qpn;
		e[i].src_qp = -1;
	}
	expect_cqes(v, "send-cqe", r->scq, n, e, t->timeout_ms, NULL);
	group_begin(v);
	for (i = 0; i < n; i++) {
		size_t off = (size_t)i * r->stride + 8;
		__u64 want = atomic_value(t, i);

		memcpy(&got, r->buf + off, 8);
		snprintf(what, sizeof(what), "original[%u]", i);
		expect_u64(v, what, want, got);
		memcpy(r->snap + off, &want, 8);
	}
	compare(v, "around-results", r->buf, r->snap, r->len);
	group_end(v, "returned-values");
	xsync(v, TAG_DONE);
	free(e);
}

/* ------------------------------------------------------------------ */
/* error paths */

static const char *err_expect_str(__u32 op)
{
	switch (op) {
	case ERR_MISALIGNED:
		return "post rejected, REM_INV_REQ_ERR or REM_ACCESS_ERR";
	default:
		return NULL;
	}
}

static enum ibv_wc_status err_status(__u32 op)
{
	switch (op) {
	case ERR_BAD_LKEY:
		return IBV_WC_LOC_PROT_ERR;
	case ERR_TOO_LONG:
	case ERR_MISALIGNED:
		return IBV_WC_REM_INV_REQ_ERR;
	case ERR_RNR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case ERR_RETRY:
		return IBV_WC_RETRY_EXC_ERR;
	case ERR_BIND_NO_BIND:
	case ERR_BIND_NO_LWRITE:
	case ERR_BIND_OOB:
	case ERR_BIND_BOUND:
		return IBV_WC_MW_BIND_ERR;
	default:
		return IBV_WC_REM_ACCESS_ERR;
	}
}

/*
 * err.write_deallocated_mw: bind a type 1 memory window over the alternate
 * MR (which itself allows no remote access), check the bind completed,
 * deallocate the window and return its now stale rkey (0 on failure).
 */
static __u32 mw_stale_rkey(struct verify *v, struct res *r)
{
	struct ibv_mw_bind bind;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	__u32 rkey = 0;

	group_begin(v);
	mw = ibv_alloc_mw(v->pd, IBV_MW_TYPE_1);
	if (!mw) {
		fail(v, "alloc_mw", "ibv_alloc_mw: %s", strerror(errno));
		goto out;
	}
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = MW_BIND_ID;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = r->alt;
	bind.bind_info.addr = (uintptr_t)r->alt_buf;
	bind.bind_info.length = r->alt_len;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_bind_mw(r->qp, mw, &bind))
		fail(v, "bind_mw", "ibv_bind_mw: %s", strerror(errno));
	else if (irn_tool_poll_cq(r->scq, &wc, 1, 5000) != 1)
		fail(v, "bind_mw", "no completion for the bind");
	else if (wc.status != IBV_WC_SUCCESS || wc.wr_id != MW_BIND_ID)
		fail(v, "bind_mw", "bind completed with %s (wr_id %llu)",
		     ibv_wc_status_str(wc.status),
		     (unsigned long long)wc.wr_id);
	else
		rkey = mw->rkey;
	if (ibv_dealloc_mw(mw))
		fail(v, "dealloc_mw", "ibv_dealloc_mw: %s", strerror(errno));
out:
	group_end(v, "mw-bind-dealloc");
	return rkey;
}

/* A BIND_MW work request giving a type 2 window the next key. */
static void mw_bind_wr(struct ibv_send_wr *wr, struct ibv_mw *mw,
		       const struct ibv_mw_bind_info *info, __u64 wr_id)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = IBV_WR_BIND_MW;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr->bind_mw.bind_info = *info;
}

/* Wait for the completion of a local operation on the send queue. */
static int local_cqe(struct verify *v, struct res *r, __u64 wr_id,
		     const char *what)
{
	struct ibv_wc wc;

	if (irn_tool_poll_cq(r->scq, &wc, 1, 5000) != 1) {
		fail(v, what, "no completion");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id) {
		fail(v, what, "completed with %s (wr_id %llu)",
		     ibv_wc_status_str(wc.status),
		     (unsigned long long)wc.wr_id);
		return -1;
	}
	return 0;
}

/*
 * Bind r->mw through qp to [off, off + len) of the alternate MR: a type 1
 * window with ibv_bind_mw(), a type 2 window with a BIND_MW work request
 * (the application then owns the new key, as the provider does for type
 * 1).  A zero length unbinds a type 1 window.  Return: 0 once the bind
 * completed, or -1 (a failed check).
 */
static int mw_bind(struct verify *v, struct res *r, struct ibv_qp *qp,
		   size_t off, size_t len, unsigned int access)
{
	struct ibv_mw_bind_info info = {
		.mr = r->alt,
		.addr = (uintptr_t)r->alt_buf + off,
		.length = len,
		.mw_access_flags = access,
	};
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_mw_bind bind;
	int err;

	if (r->mw->type == IBV_MW_TYPE_1) {
		memset(&bind, 0, sizeof(bind));
		bind.wr_id = MW_BIND_ID;
		bind.send_flags = IBV_SEND_SIGNALED;
		bind.bind_info = info;
		err = ibv_bind_mw(qp, r->mw, &bind);
	} else {
		mw_bind_wr(&wr, r->mw, &info, MW_BIND_ID);
		err = ibv_post_send(qp, &wr, &bad);
		if (!err)
			r->mw->rkey = wr.bind_mw.rkey;
	}
	if (err) {
		fail(v, "bind_mw", "posting the bind: %s", strerror(err));
		return -1;
	}
	return local_cqe(v, r, MW_BIND_ID, "bind_mw");
}

/* err.write_mw_local_inv: the server invalidates its type 2 window. */
static int mw_local_inv(struct verify *v, struct res *r)
{
	struct ibv_send_wr wr, *bad = NULL;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = MW_INV_ID;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = r->mw->rkey;
	err = ibv_post_send(r->qp, &wr, &bad);
	if (err) {
		fail(v, "local_inv", "ibv_post_send: %s", strerror(err));
		return -1;
	}
	return local_cqe(v, r, MW_INV_ID, "local_inv");
}

/*
 * err.write_mw_other_qp: a second QP of the same PD, connected like the
 * first, through which the server binds its type 2 window.
 */
static struct ibv_qp *binder_qp(struct verify *v, const struct tdesc *t,
				struct res *r)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = r->scq;
	ia.recv_cq = r->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	r->qp2 = ibv_create_qp(v->pd, &ia);
	if (!r->qp2) {
		fail(v, "qp2", "ibv_create_qp: %s", strerror(errno));
		return NULL;
	}
	return qp_to_rts(v, t, r, r->qp2) ? NULL : r->qp2;
}

/*
 * The server's window for the memory-window tests, over the alternate MR
 * (which grants no remote access itself): bound with remote write only,
 * over part of the MR, through another QP, then invalidated or unbound, as
 * the test says.  Return: the rkey for the client, 0 on failure.
 */
static __u32 mw_prepare(struct verify *v, const struct tdesc *t,
			struct res *r)
{
	unsigned int acc = IBV_ACCESS_REMOTE_WRITE;
	size_t off = 0, len = r->alt_len;
	struct ibv_qp *qp = r->qp;
	int err;

	group_begin(v);
	if (t->op == ERR_MW_OOB) {
		off = MW_WIN_OFF;
		len = MW_WIN_LEN;
		acc |= IBV_ACCESS_REMOTE_READ;
	}
	if (t->op == ERR_MW_OTHER_QP)
		qp = binder_qp(v, t, r);
	err = !qp || mw_bind(v, r, qp, off, len, acc);
	if (!err && t->op == ERR_MW_LOCAL_INV)
		err = mw_local_inv(v, r);
	/* the zero-length bind gives the window a new key: the client
	 * uses that one, so only the unbinding can stop it
	 */
	if (!err && t->op == ERR_MW_UNBOUND)
		err = mw_bind(v, r, qp, 0, 0, acc);
	/* a zero-length send: the main MR stays as it is */
	if (!err && t->op == ERR_MW_SEND_INV)
		err = post_recv(v, r, RECV_ID_BASE, NULL, 0);
	group_end(v, "mw-setup");
	return err ? 0 : r->mw->rkey;
}

/*
 * err.write_mw_send_inv: the client invalidates the server's window with
 * a zero-length SEND_WITH_INV, and both wait until the server's receive
 * completed with IBV_WC_WITH_INV, before the client writes through it.
 */
static void mw_send_inv_client(struct verify *v, struct res *r, __u32 rkey)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = MW_INV_ID;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	group_begin(v);
	if (!post_send(v, r, &wr))
		local_cqe(v, r, MW_INV_ID, "send_inv");
	group_end(v, "send-inv");
	xsync(v, TAG_INVALIDATED);
}

/*
 * The receive says that it invalidated the window, in IBV_WC_WITH_INV or
 * in the kernel's bit for it, which soft RoCE drivers pass through.
 */
static void check_inv_flag(struct verify *v, const struct ibv_wc *wc,
			   __u32 rkey)
{
	if (!(wc->wc_flags & (IBV_WC_WITH_INV | KERNEL_WC_WITH_INV))) {
		fail(v, "recv-cqe[0].wc_flags",
		     "expected IBV_WC_WITH_INV got %#x", wc->wc_flags);
		return;
	}
	if (!(wc->wc_flags & IBV_WC_WITH_INV))
		note(v, "wc_flags %#x: the kernel's IB_WC_WITH_INVALIDATE bit, not IBV_WC_WITH_INV",
		     wc->wc_flags);
	expect_u64(v, "recv-cqe[0].invalidated_rkey", rkey,
		   wc->invalidated_rkey);
}

static void mw_send_inv_server(struct verify *v, const struct tdesc *t,
			       struct res *r, __u32 rkey)
{
	struct wc_exp e = {
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.wr_id = RECV_ID_BASE,
		.byte_len = 0,
		.qp_num = r->me.qpn,
		.src_qp = -1,
	};
	struct ibv_wc wc;

	group_begin(v);
	if (irn_tool_poll_cq(r->rcq, &wc, 1, t->timeout_ms) != 1) {
		fail(v, "recv-cqe", "expected 1 completion got 0 within %u ms",
		     t->timeout_ms);
	} else {
		check_wc(v, "recv-cqe", 0, &wc, &e);
		if (wc.status == IBV_WC_SUCCESS)
			check_inv_flag(v, &wc, rkey);
	}
	group_end(v, "send-inv-recv-cqe");
	xsync(v, TAG_INVALIDATED);
}

/*
 * An invalidated or unbound window is bound to no MR: the alternate MR
 * must deregister while the window still exists.
 */
static void mr_dereg_unbound(struct verify *v, struct res *r)
{
	int err;

	group_begin(v);
	err = ibv_dereg_mr(r->alt);
	if (err)
		fail(v, "dereg", "ibv_dereg_mr with its window invalid: %s",
		     strerror(err));
	else
		r->alt = NULL;
	group_end(v, "dereg-unbound-mr");
}

static void error_server(struct verify *v, const struct tdesc *t,
			 struct res *r)
{
	__u32 mw_rkey = 0;
	struct ibv_sge sge;
	struct wc_exp e[2];
	struct ibv_wc wc;
	size_t skip = 0;
	int i, nrecv = 0;

	poison_buf(r, t);
	fill_pat(r->buf, r->len, t->seed, t->msg_base, 0);
	fill_pat(r->alt_buf, r->alt_len, t->seed, t->msg_base ^ 2, 0);
	memcpy(r->snap, r->buf, r->len);
	memcpy(r->alt_snap, r->alt_buf, r->alt_len);
	if (t->op == ERR_TOO_LONG)
		nrecv = 2;
	if (t->op == ERR_BAD_LKEY)
		nrecv = 1;
	memset(e, 0, sizeof(e));
	for (i = 0; i < nrecv; i++) {
		sge.addr = (uintptr_t)(r->buf + (size_t)i * r->stride);
		sge.length = TOO_LONG_RECV;
		sge.lkey = r->mr->lkey;
		post_recv(v, r, RECV_ID_BASE + i, &sge, 1);
		e[i].wr_id = RECV_ID_BASE + i;
		e[i].qp_num = r->me.qpn;
		e[i].status = i ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_LEN_ERR;
	}
	if (t->op == ERR_RETRY) {
		/* the client now sends to a QP that no longer exists */
		ibv_destroy_qp(r->qp);
		r->qp = NULL;
	}
	if (t->op == ERR_DEREG_WRITE || t->op == ERR_DEREG_READ) {
		/* the client has its rkey; the memory stays mapped */
		if (ibv_dereg_mr(r->alt))
			fail(v, "dereg", "ibv_dereg_mr: %s", strerror(errno));
		r->alt = NULL;
	}
	if (t->op == ERR_MW_DEALLOC)
		mw_rkey = mw_stale_rkey(v, r);
	if (is_mw_remote(t->op))
		mw_rkey = mw_prepare(v, t, r);
	xsync(v, TAG_READY);
	if (t->op == ERR_MW_DEALLOC || is_mw_remote(t->op))
		xchg_u32(v, mw_rkey);
	if (t->op == ERR_MW_SEND_INV)
		mw_send_inv_server(v, t, r, mw_rkey);
	xsync(v, TAG_DONE);
	if (t->op == ERR_TOO_LONG) {
		expect_cqes(v, "recv-cqe", r->rcq, 2, e, t->timeout_ms, NULL);
		/* IBTA: the receive buffer is undefined after LOC_LEN_ERR */
		skip = TOO_LONG_RECV;
	} else {
		group_begin(v);
		if (irn_tool_poll_cq(r->rcq, &wc, 1, 100) > 0)
			fail(v, "recv-cqe", "expected no completion got wr_id %llu status %s",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
		group_end(v, "no-recv-cqe");
	}
	group_begin(v);
	compare(v, "main-mr", r->buf + skip, r->snap + skip, r->stride - skip);
	compare(v, "main-mr", r->buf + r->stride + skip,
		r->snap + r->stride + skip, r->len - r->stride - skip);
	compare(v, "alt-mr", r->alt_buf, r->alt_snap, r->alt_len);
	group_end(v, "target-unchanged");
	if (t->op == ERR_MW_LOCAL_INV || t->op == ERR_MW_SEND_INV ||
	    t->op == ERR_MW_UNBOUND)
		mr_dereg_unbound(v, r);
}

/* The client's bind that must fail: each breaks one rule of binding. */
static void bind_err_wr(const struct tdesc *t, struct res *r,
			struct ibv_send_wr *wr)
{
	struct ibv_mw_bind_info info = {
		.mr = r->alt,
		.addr = (uintptr_t)r->alt_buf,
		.length = r->alt_len,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	/* the window must lie within the MR */
	if (t->op == ERR_BIND_OOB) {
		info.addr += r->alt_len - ERR_LEN / 2;
		info.length = ERR_LEN;
	}
	mw_bind_wr(wr, r->mw, &info, 1);
}

static void error_wr(const struct tdesc *t, struct res *r,
		     struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)r->buf;
	sge->length = ERR_LEN;
	sge->lkey = r->mr->lkey;
	wr->wr_id = 1;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->wr.rdma.remote_addr = r->peer.addr + 3;
	wr->wr.rdma.rkey = r->peer.rkey;
	switch (t->op) {
	case ERR_BAD_RKEY:
		wr->wr.rdma.rkey = r->peer.rkey ^ 0x80;
		break;
	case ERR_WRITE_OOB:
		wr->wr.rdma.remote_addr = r->peer.addr + r->peer.len -
					  ERR_LEN / 2;
		break;
	case ERR_NO_WRITE:
	case ERR_OTHER_PD:
	case ERR_DEREG_WRITE:
	case ERR_MW_DEALLOC:
	case ERR_MW_LOCAL_INV:
	case ERR_MW_SEND_INV:
	case ERR_MW_OTHER_QP:
	case ERR_MW_UNBOUND:
		wr->wr.rdma.remote_addr = r->peer.alt_addr;
		wr->wr.rdma.rkey = r->peer.alt_rkey;
		break;
	case ERR_MW_OOB:
		/* straddles the end of the window, inside the MR */
		wr->wr.rdma.remote_addr = r->peer.alt_addr + MW_WIN_OFF +
					  MW_WIN_LEN - ERR_LEN / 2;
		break;
	case ERR_NO_READ:
	case ERR_DEREG_READ:
	case ERR_MW_NO_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = r->peer.alt_addr;
		wr->wr.rdma.rkey = r->peer.alt_rkey;
		break;
	case ERR_MISALIGNED:
		sge->length = 8;
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.remote_addr = r->peer.addr + ATOMIC_OFF + 4;
		wr->wr.atomic.rkey = r->peer.rkey;
		wr->wr.atomic.compare_add = 1;
		break;
	case ERR_BAD_LKEY:
		wr->opcode = IBV_WR_SEND;
		sge->lkey = r->mr->lkey ^ 0x80;
		break;
	case ERR_TOO_LONG:
		wr->opcode = IBV_WR_SEND;
		sge->length = TOO_LONG_SEND;
		break;
	case ERR_RNR:
		wr->opcode = IBV_WR_SEND;
		break;
	default:
		if (is_bind_err(t->op))
			bind_err_wr(t, r, wr);
		break;
	}
}

/* A harmless RDMA WRITE of 8 bytes into the peer's main MR. */
static void follow_wr(struct res *r, __u64 wr_id, struct ibv_send_wr *wr,
		      struct ibv_sge *sge)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)(r->buf + r->stride);
	sge->length = 8;
	sge->lkey = r->mr->lkey;
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->wr.rdma.remote_addr = r->peer.addr + r->stride;
	wr->wr.rdma.rkey = r->peer.rkey;
}

static void error_client(struct verify *v, const struct tdesc *t,
			 struct res *r)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct wc_exp e[2];
	struct ibv_wc wc[2];
	struct ibv_sge sge;
	int err;

	fill_pat(r->buf, r->len, t->seed, t->msg_base ^ 3, 0);
	fill_pat(r->alt_buf, r->alt_len, t->seed, t->msg_base ^ 4, 0);
	memcpy(r->snap, r->buf, r->len);
	xsync(v, TAG_READY);

	if (t->op == ERR_BIND_BOUND) {
		/* a bound type 2 window must be invalidated before a bind */
		group_begin(v);
		mw_bind(v, r, r->qp, 0, r->alt_len, IBV_ACCESS_REMOTE_WRITE);
		group_end(v, "mw-setup");
	}
	error_wr(t, r, &wr, &sge);
	if (t->op == ERR_MW_DEALLOC || is_mw_remote(t->op))
		wr.wr.rdma.rkey = xchg_u32(v, 0);
	if (t->op == ERR_MW_SEND_INV)
		mw_send_inv_client(v, r, wr.wr.rdma.rkey);
	err = ibv_post_send(r->qp, &wr, &bad);
	if (err) {
		group_begin(v);
		if (t->op != ERR_MISALIGNED)
			fail(v, "post_send", "expected success got %s",
			     strerror(err));
		else
			note(v, "the provider rejected the WR at post time (%s); IBTA allows it",
			     strerror(err));
		group_end(v, "status");
		goto out;
	}
	follow_wr(r, 2, &wr, &sge);
	post_send(v, r, &wr);
	memset(e, 0, sizeof(e));
	e[0].wr_id = 1;
	e[0].status = err_status(t->op);
	e[0].qp_num = r->me.qpn;
	e[1].wr_id = 2;
	e[1].status = IBV_WC_WR_FLUSH_ERR;
	e[1].qp_num = r->me.qpn;
	if (t->op == ERR_MISALIGNED) {
		/* IBTA: a misaligned atomic is an invalid request (9.4.5);
		 * a remote access error is tolerated and noted
		 */
		group_begin(v);
		if (irn_tool_poll_cq(r->scq, wc, 1, t->timeout_ms) != 1) {
			fail(v, "send-cqe[0]", "expected %s got no completion",
			     err_expect_str(t->op));
		} else {
			expect_u64(v, "send-cqe[0].wr_id", 1, wc[0].wr_id);
			if (wc[0].status != IBV_WC_REM_INV_REQ_ERR &&
			    wc[0].status != IBV_WC_REM_ACCESS_ERR)
				fail(v, "send-cqe[0].status", "expected %s got %s",
				     err_expect_str(t->op),
				     ibv_wc_status_str(wc[0].status));
			else
				note(v, "misaligned atomic completed with %s",
				     ibv_wc_status_str(wc[0].status));
		}
		group_end(v, "status");
		expect_cqes(v, "send-cqe-flush", r->scq, 1, &e[1],
			    t->timeout_ms, NULL);
	} else {
		expect_cqes(v, "send-cqe", r->scq, 2, e, t->timeout_ms, NULL);
	}

	group_begin(v);
	memset(&qa, 0, sizeof(qa));
	if (ibv_query_qp(r->qp, &qa, IBV_QP_STATE, &ia))
		fail(v, "qp-state", "ibv_query_qp: %s", strerror(errno));
	else
		expect_u64(v, "qp-state", IBV_QPS_ERR, qa.qp_state);
	group_end(v, "qp-state");

	/* a WR posted to a QP in the error state is flushed */
	follow_wr(r, 3, &wr, &sge);
	e[0].wr_id = 3;
	e[0].status = IBV_WC_WR_FLUSH_ERR;
	group_begin(v);
	err = ibv_post_send(r->qp, &wr, &bad);
	if (err)
		fail(v, "post_send", "expected success (then WR_FLUSH_ERR) got %s",
		     strerror(err));
	group_end(v, "post-in-error");
	if (!err)
		expect_cqes(v, "flush-cqe", r->scq, 1, e, t->timeout_ms, NULL);
out:
	group_begin(v);
	compare(v, "local-mr", r->buf, r->snap, r->len);
	group_end(v, "local-unchanged");
	xsync(v, TAG_DONE);
}

/* ------------------------------------------------------------------ */
/* test table */

static const char *type_name(__u32 qp_type)
{
	return qp_type == IBV_QPT_RC ? "rc" :
	       qp_type == IBV_QPT_UC ? "uc" : "ud";
}

static int selected(struct verify *v, const char *name)
{
	return !v->only || glob_list_match(v->only, name);
}

static void add_test(struct verify *v, __u32 qp_type, __u32 op,
		     __u32 flags, __u64 size)
{
	struct tdesc *t;
	char sz[32];

	if (v->n_tests >= MAX_TESTS)
		return;
	if (size == SIZE_INLINE_MAX)
		snprintf(sz, sizeof(sz), ".max");
	else if (flags & TF_ERROR || op == OP_CAS || op == OP_FAA)
		sz[0] = 0;
	else
		snprintf(sz, sizeof(sz), ".%llu", (unsigned long long)size);
	if (v->srq)
		flags |= TF_SRQ;
	t = &v->tests[v->n_tests];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s.%s%s%s%s%s", type_name(qp_type),
		 op_names[op], flags & TF_INLINE ? "_inline" : "",
		 flags & TF_SGE3 ? ".sge3" : "", sz,
		 flags & TF_SRQ ? ".srq" : "");
	if (!selected(v, t->name))
		return;
	t->qp_type = qp_type;
	t->op = op;
	t->flags = flags;
	t->size = size;
	t->iters = v->iters;
	if (flags & TF_ERROR || op == OP_SEND_INV)
		t->iters = 1;
	t->seed = v->seed;
	t->msg_base = mix64(hash_str(t->name)) & 0xffffffff00000000ULL;
	t->timeout_ms = v->timeout_ms;
	v->n_tests++;
}

static void build_tests(struct verify *v, unsigned int ud_max)
{
	static const __u32 qtypes[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	static const __u32 tbits[] = { TYPE_RC, TYPE_UC, TYPE_UD };
	static const __u64 inl[] = { 1, 63, SIZE_INLINE_MAX };
	__u32 q, op, sge;
	int i, k;

	for (k = 0; k < 3; k++) {
		q = qtypes[k];
		if (!(v->types & tbits[k]))
			continue;
		for (i = 0; i < v->n_sizes && !v->errors_only; i++) {
			__u64 s = v->sizes[i];

			if (q == IBV_QPT_UD && s > ud_max)
				continue;
			for (sge = 0; sge <= TF_SGE3; sge += TF_SGE3) {
				if (sge && s < 3)
					continue;
				add_test(v, q, OP_SEND, sge, s);
				if (!sge)
					add_test(v, q, OP_SEND_IMM, sge, s);
				if (q == IBV_QPT_UD)
					continue;
				add_test(v, q, OP_WRITE, sge, s);
				if (!sge)
					add_test(v, q, OP_WRITE_IMM, sge, s);
				if (q == IBV_QPT_RC)
					add_test(v, q, OP_READ, sge, s);
			}
		}
		for (i = 0; i < 3 && !v->errors_only; i++) {
			add_test(v, q, OP_SEND, TF_INLINE, inl[i]);
			if (q != IBV_QPT_UD)
				add_test(v, q, OP_WRITE, TF_INLINE, inl[i]);
		}
		if (q != IBV_QPT_RC)
			continue;
		if (!v->errors_only) {
			add_test(v, q, OP_CAS, 0, 8);
			add_test(v, q, OP_FAA, 0, 8);
			add_test(v, q, OP_SEND_INV, 0, 64);
		}
		for (op = ERR_BAD_RKEY; op < OP_COUNT && !v->data_only; op++)
			add_test(v, q, op, TF_ERROR, ERR_LEN);
	}
}

/* ------------------------------------------------------------------ */

static const char *skip_reason(struct verify *v, const struct tdesc *t)
{
	unsigned int type2 = IBV_DEVICE_MEM_WINDOW_TYPE_2A |
			     IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	int mw = t->op == ERR_MW_DEALLOC || is_mw_remote(t->op) ||
		 is_bind_err(t->op);

	if (mw && !(v->dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW))
		return "device has no memory windows";
	if ((mw_type(t->op, 0) == IBV_MW_TYPE_2 ||
	     mw_type(t->op, 1) == IBV_MW_TYPE_2) &&
	    !(v->dattr.device_cap_flags & type2))
		return "device has no type 2 memory windows";
	if ((t->op == OP_CAS || t->op == OP_FAA || t->op == ERR_MISALIGNED) &&
	    v->dattr.atomic_cap == IBV_ATOMIC_NONE)
		return "device has no atomics (atomic_cap NONE)";
	if (t->qp_type == IBV_QPT_UD && t->size != SIZE_INLINE_MAX &&
	    t->size > v->mtu)
		return "larger than the path MTU";
	return NULL;
}

static void run_test(struct verify *v, const struct tdesc *t)
{
	const char *why = skip_reason(v, t);
	__u32 peer_skip;
	struct res r;

	v->test = t->name;
	v->test_fails = 0;
	peer_skip = xchg_u32(v, !!why);
	if (why || peer_skip) {
		printf("skip %s: %s\n", t->name, why ? why : "skipped by the peer");
		v->skipped++;
		return;
	}
	if (setup(v, t, &r))
		goto out;
	if (t->flags & TF_INLINE) {
		if (!r.size && t->size == SIZE_INLINE_MAX) {
			printf("skip %s: max_inline_data is 0\n", t->name);
			v->skipped++;
			goto out;
		}
		if (t->size != SIZE_INLINE_MAX &&
		    (t->size > r.me.max_inline || t->size > r.peer.max_inline)) {
			printf("skip %s: above max_inline_data %u/%u\n",
			       t->name, r.me.max_inline, r.peer.max_inline);
			v->skipped++;
			goto out;
		}
		if (t->size == SIZE_INLINE_MAX && !v->is_server)
			note(v, "max_inline_data %zu", r.size);
	}
	switch (t->op) {
	case OP_SEND:
	case OP_SEND_IMM:
		if (v->is_server)
			send_server(v, t, &r);
		else
			send_client(v, t, &r);
		break;
	case OP_SEND_INV:
		if (v->is_server)
			send_inv_server(v, t, &r);
		else
			send_inv_client(v, t, &r);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		if (v->is_server)
			write_server(v, t, &r);
		else
			write_client(v, t, &r);
		break;
	case OP_READ:
		if (v->is_server)
			read_server(v, t, &r);
		else
			read_client(v, t, &r);
		break;
	case OP_CAS:
	case OP_FAA:
		if (v->is_server)
			atomic_server(v, t, &r);
		else
			atomic_client(v, t, &r);
		break;
	default:
		if (v->is_server)
			error_server(v, t, &r);
		else
			error_client(v, t, &r);
		break;
	}
out:
	res_free(&r);
	/* both sides finish (and free) before the next test starts */
	xsync(v, TAG_START);
}

static int open_device(struct verify *v)
{
	char gs[INET6_ADDRSTRLEN];
	int i, n;

	v->devs = ibv_get_device_list(&n);
	if (!v->devs) {
		perror("irn_verify: ibv_get_device_list");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(v->devs[i]), v->dev_name))
			break;
	if (i == n) {
		fprintf(stderr, "irn_verify: no device %s\n", v->dev_name);
		return -1;
	}
	v->ctx = ibv_open_device(v->devs[i]);
	if (!v->ctx || ibv_query_device(v->ctx, &v->dattr) ||
	    ibv_query_port(v->ctx, 1, &v->pattr) ||
	    ibv_query_gid(v->ctx, 1, v->gid_idx, &v->gid)) {
		perror("irn_verify: open/query device");
		return -1;
	}
	v->pd = ibv_alloc_pd(v->ctx);
	v->pd2 = ibv_alloc_pd(v->ctx);
	if (!v->pd || !v->pd2) {
		perror("irn_verify: ibv_alloc_pd");
		return -1;
	}
	v->mtu = 128U << v->pattr.active_mtu;
	inet_ntop(AF_INET6, v->gid.raw, gs, sizeof(gs));
	printf("# %s: %s port 1 %s, active_mtu %u, gid[%d] %s\n",
	       v->is_server ? "server" : "client", v->dev_name,
	       ibv_port_state_str(v->pattr.state), v->mtu, v->gid_idx, gs);
	printf("# atomic_cap %d, max_sge %d, max_qp_wr %d, max_qp_rd_atom %d\n",
	       v->dattr.atomic_cap, v->dattr.max_sge, v->dattr.max_qp_wr,
	       v->dattr.max_qp_rd_atom);
	return 0;
}

static void print_usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: irn_verify -d DEV -g GIDIDX [-p PORT] [options] [SERVER_IP]\n"
		"  without SERVER_IP: serve (run what the client asks for)\n"
		"  -t, --type LIST      rc,uc,ud (default all)\n"
		"  -s, --sizes LIST     message sizes (default 0,1,3,4,63,1024,1025,4096,65536,1048576)\n"
		"  -n, --iters N        messages per test (default 4)\n"
		"      --seed N         PRNG seed of the data patterns (default 1)\n"
		"      --only GLOBS     run tests whose name matches one of the\n"
		"                       comma-separated fnmatch globs\n"
		"      --known GLOBS    failed checks (TEST/CHECK) matching these globs\n"
		"                       are known deviations: reported as xfail,\n"
		"                       not counted (each side takes its own)\n"
		"      --list           print the test names and exit\n"
		"      --data-only      skip the error-path tests\n"
		"      --errors-only    only the error-path tests\n"
		"      --srq            receive through a shared receive queue\n"
		"                       (client side; needs --data-only)\n"
		"      --timeout SEC    per completion batch (default 30)\n"
		"      --ack-timeout N  RC local ACK timeout, 4.096 us * 2^N\n"
		"                       (default 14; 7 retries of it without\n"
		"                       progress fail a request)\n"
		"      --ud-max N       UD size limit for --list (default 1024)\n");
	exit(rc);
}

static int parse_sizes(struct verify *v, const char *s)
{
	char buf[512], *p, *save = NULL, *end;

	snprintf(buf, sizeof(buf), "%s", s);
	v->n_sizes = 0;
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (v->n_sizes >= MAX_SIZES)
			return -1;
		v->sizes[v->n_sizes++] = strtoull(p, &end, 0);
		if (*end || v->sizes[v->n_sizes - 1] > (1ULL << 30))
			return -1;
	}
	return v->n_sizes ? 0 : -1;
}

static int parse_types(struct verify *v, const char *s)
{
	char buf[64], *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	v->types = 0;
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(p, "rc"))
			v->types |= TYPE_RC;
		else if (!strcasecmp(p, "uc"))
			v->types |= TYPE_UC;
		else if (!strcasecmp(p, "ud"))
			v->types |= TYPE_UD;
		else if (!strcasecmp(p, "all"))
			v->types |= TYPE_RC | TYPE_UC | TYPE_UD;
		else
			return -1;
	}
	return v->types ? 0 : -1;
}

static void parse_args(struct verify *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "type", required_argument, NULL, 't' },
		{ "sizes", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "only", required_argument, NULL, 'o' },
		{ "known", required_argument, NULL, 'K' },
		{ "list", no_argument, NULL, 'l' },
		{ "data-only", no_argument, NULL, 'D' },
		{ "errors-only", no_argument, NULL, 'E' },
		{ "srq", no_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "ack-timeout", required_argument, NULL, 'A' },
		{ "ud-max", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	v->gid_idx = -1;
	v->port = DEFAULT_PORT;
	v->types = TYPE_RC | TYPE_UC | TYPE_UD;
	v->iters = 4;
	v->seed = 1;
	v->timeout_ms = 30000;
	v->ack_timeout = 14;
	v->mtu = 1024;
	parse_sizes(v, "0,1,3,4,63,1024,1025,4096,65536,1048576");
	while ((c = getopt_long(argc, argv, "d:g:p:t:s:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			v->dev_name = optarg;
			break;
		case 'g':
			v->gid_idx = atoi(optarg);
			break;
		case 'p':
			v->port = optarg;
			break;
		case 't':
			if (parse_types(v, optarg))
				print_usage(2);
			break;
		case 's':
			if (parse_sizes(v, optarg))
				print_usage(2);
			break;
		case 'n':
			v->iters = strtoul(optarg, NULL, 0);
			if (!v->iters || v->iters > 64)
				print_usage(2);
			break;
		case 'S':
			v->seed = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			v->only = optarg;
			break;
		case 'K':
			v->known = optarg;
			break;
		case 'l':
			v->list = 1;
			break;
		case 'D':
			v->data_only = 1;
			break;
		case 'E':
			v->errors_only = 1;
			break;
		case 'R':
			v->srq = 1;
			break;
		case 'T':
			v->timeout_ms = strtoul(optarg, NULL, 0) * 1000;
			break;
		case 'A':
			v->ack_timeout = strtoul(optarg, NULL, 0);
			if (v->ack_timeout < 1 || v->ack_timeout > 31)
				print_usage(2);
			break;
		case 'U':
			v->mtu = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(2);
		}
	}
	if (optind < argc)
		v->server = argv[optind++];
	if (optind < argc)
		print_usage(2);
	v->is_server = !v->server;
	if (!v->list && (!v->dev_name || v->gid_idx < 0))
		print_usage(2);
	/* The error tests count on receives that belong to the QP. */
	if (v->srq && !v->data_only)
		print_usage(2);
}

static int run_client(struct verify *v)
{
	struct tdesc end;
	__u32 peer_fails;
	int i;

	for (i = 0; i < v->n_tests; i++) {
		if (xwrite(v->sock, &v->tests[i], sizeof(v->tests[i])))
			proto_die(v, "write");
		run_test(v, &v->tests[i]);
	}
	v->test = NULL;
	memset(&end, 0, sizeof(end));
	end.end = 1;
	if (xwrite(v->sock, &end, sizeof(end)))
		proto_die(v, "write");
	peer_fails = xchg_u32(v, v->failed_checks);
	printf("# client: %d tests, %d ok, %d failed, %d skipped, %d xfail; server: %u failed\n",
	       v->n_tests, v->ok_checks, v->failed_checks, v->skipped,
	       v->known_fails, peer_fails);
	return v->failed_checks || peer_fails;
}

static int run_server(struct verify *v)
{
	struct tdesc t;
	int n = 0;

	for (;;) {
		if (xread(v->sock, &t, sizeof(t)))
			proto_die(v, "read");
		if (t.end)
			break;
		t.name[sizeof(t.name) - 1] = 0;
		if (t.op >= OP_COUNT || !t.iters || t.iters > 64 ||
		    ((t.flags & TF_SRQ) && (t.flags & TF_ERROR)) ||
		    (t.size > (1ULL << 30) && t.size != SIZE_INLINE_MAX)) {
			errno = EPROTO;
			proto_die(v, "test descriptor");
		}
		run_test(v, &t);
		n++;
	}
	v->test = NULL;
	xchg_u32(v, v->failed_checks);
	printf("# server: %d tests, %d ok, %d failed, %d skipped, %d xfail\n",
	       n, v->ok_checks, v->failed_checks, v->skipped, v->known_fails);
	return !!v->failed_checks;
}

int main(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = 300 };
	static struct verify v;
	int one = 1, rc, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(&v, argc, argv);
	if (v.list || !v.is_server) {
		if (!v.list && open_device(&v))
			return 2;
		build_tests(&v, v.mtu);
		if (v.list) {
			for (i = 0; i < v.n_tests; i++)
				printf("%s\n", v.tests[i].name);
			return 0;
		}
		if (!v.n_tests) {
			fprintf(stderr, "irn_verify: no test selected\n");
			return 2;
		}
	} else if (open_device(&v)) {
		return 2;
	}
	v.sock = v.is_server ? tcp_server(&v) : tcp_client(&v);
	if (v.sock < 0)
		return 2;
	setsockopt(v.sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(v.sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rc = v.is_server ? run_server(&v) : run_client(&v);
	close(v.sock);
	ibv_dealloc_pd(v.pd2);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	ibv_free_device_list(v.devs);
	return rc;
}
