// SPDX-License-Identifier: GPL-2.0
/*
 * irn_ringfuzz: write garbage straight into the mmapped send and receive
 * rings of a verbs QP and ring the doorbell, bypassing every check the
 * rxe provider makes.  Each case must end in a completion (normally an
 * error one) or in the QP going to the error state, within a deadline;
 * the kernel must neither crash nor touch memory outside the rings, which
 * the debug kernel's KASAN checks.  At the end the device must still move
 * verified data.
 *
 *   irn_ringfuzz -d DEV [-g GID_INDEX] [-n CASES] [-s SEED] [-v]
 *
 * The QP is RC and connected to itself (loopback), so every message stays
 * on one device.  The rings are found in /proc/self/maps (mappings of the
 * uverbs character device) by their header: the send ring is the one with
 * the send WQE stride, the receive ring the one with the receive stride.
 * The doorbell is the uverbs POST_SEND / POST_RECV command with no work
 * requests, exactly what the provider sends.
 *
 * Exit status 0 when every case ended properly and the final transfer
 * verified, 1 otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "irn_tool.h"

#define RING_HDR	384	/* struct rxe_queue_buf */
#define PROD_OFF	128
#define CONS_OFF	256
#define SQ_DEPTH	64
#define RQ_DEPTH	16
#define BUF_SIZE	65536
#define DEADLINE_MS	4000

/* struct rxe_send_wqe and struct rxe_recv_wqe offsets (rxe-abi) */
#define WQE_WR_ID	0
#define WQE_OPCODE	12
#define WQE_FLAGS	16
#define WQE_RADDR	24
#define WQE_RKEY	32
#define WQE_DMA		184
#define RWQE_DMA	16
#define DMA_LENGTH	0
#define DMA_RESID	4
#define DMA_NUM_SGE	12
#define DMA_SGE		24
#define SGE_ADDR	0
#define SGE_LEN		8
#define SGE_LKEY	12

struct ring {
	uint8_t		*base;
	uint32_t	stride;
	uint32_t	mask;
};

struct fuzz {
	struct ibv_context	*ctx;
	struct ibv_pd		*pd;
	struct ibv_cq		*cq;
	struct ibv_mr		*mr;
	struct ibv_qp		*qp;
	uint8_t			*buf;
	union ibv_gid		gid;
	int			gid_idx;
	struct ring		sq, rq;
	bool			verbose;
	unsigned long		cases, completed, qp_errors, failures;
	unsigned long		by_status[32];
};

static unsigned long long rnd_state;
static struct ibv_wc wc_sink;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from -s */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "irn_ringfuzz: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A mapping of the uverbs device whose ring header has @log2 and @mask. */
static uint8_t *find_ring(uint32_t log2, uint32_t mask)
{
	char line[512], path[256];
	unsigned long lo, hi;
	uint8_t *found = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		uint8_t *p;

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi,
			   path) < 2)
			continue;
		if (!strstr(path, "/dev/infiniband/uverbs") ||
		    hi - lo < RING_HDR)
			continue;
		p = (uint8_t *)lo;
		if (get32(p) == log2 && get32(p + 4) == mask)
			found = p;
	}
	fclose(f);
	return found;
}

static uint32_t ring_log2(uint32_t bytes)
{
	uint32_t l = 6;

	while ((1U << l) < bytes)
		l++;
	return l;
}

static uint32_t slots(uint32_t depth)
{
	uint32_t n = 1;

	while (n < depth + 1)
		n <<= 1;
	return n;
}

static void qp_to_rts(struct fuzz *z)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(z->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = z->qp->qp_num;
	a.rq_psn = 0;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = z->gid;
	a.ah_attr.grh.sgid_index = z->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	if (ibv_modify_qp(z->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;		/* 4 ms */
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(z->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

static void new_qp(struct fuzz *z)
{
	struct ibv_qp_init_attr ia;

	if (z->qp && ibv_destroy_qp(z->qp))
		die("destroy_qp: %s", strerror(errno));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = z->cq;
	ia.recv_cq = z->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = SQ_DEPTH;
	ia.cap.max_recv_wr = RQ_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	z->qp = ibv_create_qp(z->pd, &ia);
	if (!z->qp)
		die("create_qp: %s", strerror(errno));
	z->sq.stride = 1U << ring_log2(208 + 16);
	z->sq.mask = slots(SQ_DEPTH) - 1;
	z->sq.base = find_ring(ring_log2(208 + 16), z->sq.mask);
	z->rq.stride = 1U << ring_log2(40 + 16);
	z->rq.mask = slots(RQ_DEPTH) - 1;
	z->rq.base = find_ring(ring_log2(40 + 16), z->rq.mask);
	if (!z->sq.base || !z->rq.base)
		die("cannot find the QP's rings in /proc/self/maps");
	qp_to_rts(z);
}

/* The uverbs doorbell: POST_SEND or POST_RECV with no work request. */
static void doorbell(struct fuzz *z, bool recv)
{
	struct {
		struct ib_uverbs_cmd_hdr	hdr;
		union {
			struct ib_uverbs_post_send	s;
			struct ib_uverbs_post_recv	r;
		};
	} cmd;
	struct ib_uverbs_post_send_resp resp;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.command = recv ? IB_USER_VERBS_CMD_POST_RECV :
				 IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	if (recv) {
		cmd.r.response = (uintptr_t)&resp;
		cmd.r.qp_handle = z->qp->handle;
		cmd.r.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	} else {
		cmd.s.response = (uintptr_t)&resp;
		cmd.s.qp_handle = z->qp->handle;
		cmd.s.wqe_size = sizeof(struct ib_uverbs_send_wr);
	}
	/* a refused doorbell is fine: the kernel may have failed the QP */
	if (write(z->ctx->cmd_fd, &cmd, sizeof(cmd)) < 0 && z->verbose)
		fprintf(stderr, "uverbs post: %s\n", strerror(errno));
}

/* Produce one slot of @r filled by @fill, with a hostile producer index. */
static void produce(struct ring *r, uint32_t prod, bool wild_index)
{
	uint32_t next = (prod + 1) & r->mask;

	if (wild_index)
		next |= (uint32_t)rnd() & ~r->mask;	/* kernel must mask */
	__atomic_store_n((uint32_t *)(r->base + PROD_OFF), next,
			 __ATOMIC_RELEASE);
}

static uint32_t producer(const struct ring *r)
{
	return __atomic_load_n((uint32_t *)(r->base + PROD_OFF),
			       __ATOMIC_ACQUIRE) & r->mask;
}

static uint8_t *slot(const struct ring *r, uint32_t i)
{
	return r->base + RING_HDR + (size_t)(i & r->mask) * r->stride;
}

enum kind {
	K_RANDOM,		/* the whole slot random */
	K_BAD_OPCODE,		/* kernel-only, unknown, reserved */
	K_HUGE_SGE,		/* num_sge beyond the QP's */
	K_BAD_LKEY,		/* SGE with a key nobody has */
	K_HUGE_LEN,		/* SGE length past its MR */
	K_INLINE_LONG,		/* inline length beyond the slot */
	K_BAD_RKEY,		/* RDMA write with a random rkey */
	K_ATOMIC_ODD,		/* atomic to an unaligned address */
	K_ATOMIC_WRITE,		/* atomic write, its length, address or key odd */
	K_RECV_GARBAGE,		/* random receive WQE, then a send */
	K_SCRIBBLE,		/* valid write, SGEs rewritten meanwhile */
	K_NKINDS,
};

static const char * const kind_name[K_NKINDS] = {
	"random", "bad_opcode", "huge_sge", "bad_lkey", "huge_len",
	"inline_long", "bad_rkey", "atomic_odd", "atomic_write",
	"recv_garbage", "scribble",
};

/* A plausible send WQE: @opcode, one SGE over our buffer. */
static void valid_wqe(struct fuzz *z, uint8_t *w, uint32_t opcode,
		      uint32_t len)
{
	memset(w, 0, z->sq.stride);
	put64(w + WQE_WR_ID, z->cases);
	put32(w + WQE_OPCODE, opcode);
	put32(w + WQE_FLAGS, IBV_SEND_SIGNALED);
	put64(w + WQE_RADDR, (uintptr_t)z->buf + BUF_SIZE / 2);
	put32(w + WQE_RKEY, z->mr->rkey);
	put32(w + WQE_DMA + DMA_LENGTH, len);
	put32(w + WQE_DMA + DMA_RESID, len);
	put32(w + WQE_DMA + DMA_NUM_SGE, 1);
	put64(w + WQE_DMA + DMA_SGE + SGE_ADDR, (uintptr_t)z->buf);
	put32(w + WQE_DMA + DMA_SGE + SGE_LEN, len);
	put32(w + WQE_DMA + DMA_SGE + SGE_LKEY, z->mr->lkey);
}

static void random_bytes(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

static const uint32_t bad_opcodes[] = {
	0x20 /* IB_WR_REG_MR */, 10 /* TSO */, 11, 12, 13, 14,
	31, 32, 0xff, 0xffffffff,
};

static void build(struct fuzz *z, enum kind k, uint8_t *w)
{
	switch (k) {
	case K_RANDOM:
		random_bytes(w, z->sq.stride);
		break;
	case K_BAD_OPCODE:
		valid_wqe(z, w, bad_opcodes[rnd() % (sizeof(bad_opcodes) /
						     sizeof(bad_opcodes[0]))],
			  64);
		break;
	case K_HUGE_SGE:
		valid_wqe(z, w, IBV_WR_RDMA_WRITE, 64);
		put32(w + WQE_DMA + DMA_NUM_SGE,
		      rnd() % 2 ? 0xffffffff : 2 + rnd() % 1000);
		break;
	case K_BAD_LKEY:
		valid_wqe(z, w, IBV_WR_RDMA_WRITE, 64);
		put32(w + WQE_DMA + DMA_SGE + SGE_LKEY, (uint32_t)rnd());
		break;
	case K_HUGE_LEN:
		valid_wqe(z, w, IBV_WR_RDMA_WRITE, 64);
		put32(w + WQE_DMA + DMA_SGE + SGE_LEN,
		      rnd() % 2 ? 0xffffffff : BUF_SIZE + 1 + rnd() % 4096);
		put32(w + WQE_DMA + DMA_LENGTH, get32(w + WQE_DMA +
						      DMA_SGE + SGE_LEN));
		break;
	case K_INLINE_LONG:
		valid_wqe(z, w, IBV_WR_SEND, 64);
		put32(w + WQE_FLAGS, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
		put32(w + WQE_DMA + DMA_LENGTH,
		      rnd() % 2 ? 0xffffffff : z->sq.stride + rnd() % 65536);
		break;
	case K_BAD_RKEY:
		valid_wqe(z, w, IBV_WR_RDMA_WRITE, 64);
		put32(w + WQE_RKEY, (uint32_t)rnd());
		break;
	case K_ATOMIC_ODD:
		valid_wqe(z, w, IBV_WR_ATOMIC_FETCH_AND_ADD, 8);
		put64(w + WQE_RADDR, (uintptr_t)z->buf + 3);
		break;
	case K_ATOMIC_WRITE:
		/* its 8 bytes where the SGE list starts, as the provider has */
		valid_wqe(z, w, 15 /* IBV_WR_ATOMIC_WRITE */, 8);
		put32(w + WQE_DMA + DMA_NUM_SGE, 0);
		random_bytes(w + WQE_DMA + DMA_SGE, 8);
		switch (rnd() % 4) {
		case 0:		/* well formed */
			break;
		case 1:
			put64(w + WQE_RADDR, (uintptr_t)z->buf + BUF_SIZE / 2 +
			      1 + rnd() % 7);
			break;
		case 2:
			put32(w + WQE_DMA + DMA_LENGTH, (uint32_t)rnd());
			break;
		default:
			put32(w + WQE_RKEY, (uint32_t)rnd());
			break;
		}
		break;
	case K_SCRIBBLE:
		valid_wqe(z, w, IBV_WR_RDMA_WRITE, 4096);
		break;
	case K_RECV_GARBAGE:
	case K_NKINDS:
		break;
	}
}

struct scribbler {
	uint8_t		*w;
	bool		stop;	/* __atomic */
};

/* Rewrite a WQE's SGEs while the kernel may be reading them. */
static void *scribble(void *arg)
{
	struct scribbler *s = arg;
	uint64_t x = 0x243f6a8885a308d3ULL;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put32(s->w + WQE_DMA + DMA_SGE + SGE_LEN, (uint32_t)x);
		put32(s->w + WQE_DMA + DMA_NUM_SGE, (uint32_t)(x >> 32) & 3);
		put32(s->w + WQE_DMA + DMA_SGE + SGE_LKEY, (uint32_t)(x >> 8));
	}
	return NULL;
}

/* Wait for the case's outcome: a completion or the QP in error. */
static bool settle(struct fuzz *z, enum kind k)
{
	__u64 end = irn_tool_now_ms() + DEADLINE_MS;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	int n;

	while (irn_tool_now_ms() < end) {
		n = ibv_poll_cq(z->cq, 1, &wc);
		if (n < 0)
			die("poll_cq: %s", strerror(errno));
		if (n) {
			z->completed++;
			z->by_status[wc.status < 32 ? wc.status : 31]++;
			if (z->verbose)
				printf("case %lu %s: completion %s\n",
				       z->cases, kind_name[k],
				       ibv_wc_status_str(wc.status));
			return true;
		}
		if (!ibv_query_qp(z->qp, &a, IBV_QP_STATE, &ia) &&
		    a.qp_state == IBV_QPS_ERR) {
			z->qp_errors++;
			if (z->verbose)
				printf("case %lu %s: QP in error\n", z->cases,
				       kind_name[k]);
			return true;
		}
		usleep(1000);
	}
	return false;
}

static void one_case(struct fuzz *z)
{
	enum kind k = rnd() % K_NKINDS;
	bool wild = rnd() % 4 == 0;
	struct scribbler sc = { .stop = false };
	pthread_t t;
	uint8_t *w;
	uint32_t p;

	z->cases++;
	if (k == K_RECV_GARBAGE) {
		p = producer(&z->rq);
		random_bytes(slot(&z->rq, p), z->rq.stride);
		produce(&z->rq, p, wild);
		doorbell(z, true);
		/* a send consumes it: its SGEs decide what happens */
		w = slot(&z->sq, producer(&z->sq));
		valid_wqe(z, w, IBV_WR_SEND, 64);
		produce(&z->sq, producer(&z->sq), false);
		doorbell(z, false);
	} else {
		p = producer(&z->sq);
		w = slot(&z->sq, p);
		build(z, k, w);
		sc.w = w;
		if (k == K_SCRIBBLE && pthread_create(&t, NULL, scribble, &sc))
			die("pthread_create: %s", strerror(errno));
		produce(&z->sq, p, wild);
		doorbell(z, false);
		if (k == K_SCRIBBLE) {
			usleep(20000);
			__atomic_store_n(&sc.stop, true, __ATOMIC_RELAXED);
			pthread_join(t, NULL);
		}
	}
	if (!settle(z, k)) {
		z->failures++;
		fprintf(stderr,
			"case %lu (%s): no completion and QP not in error after %d ms\n",
			z->cases, kind_name[k], DEADLINE_MS);
	}
	/* every case starts from a fresh QP: rings, indices and state */
	new_qp(z);
	while (ibv_poll_cq(z->cq, 1, &wc_sink) > 0)
		;
}

/* After all that, an ordinary RDMA write must still arrive intact. */
static bool final_check(struct fuzz *z)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)z->buf, .length = 4096, .lkey = z->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int i, n;

	for (i = 0; i < 4096; i++) {
		z->buf[i] = (uint8_t)(i * 7 + 3);
		z->buf[BUF_SIZE / 2 + i] = 0;
	}
	wr.wr.rdma.remote_addr = (uintptr_t)z->buf + BUF_SIZE / 2;
	wr.wr.rdma.rkey = z->mr->rkey;
	if (ibv_post_send(z->qp, &wr, &bad))
		return false;
	n = irn_tool_poll_cq(z->cq, &wc, 1, DEADLINE_MS);
	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "final write: %s\n",
			n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
		return false;
	}
	return !memcmp(z->buf, z->buf + BUF_SIZE / 2, 4096);
}

int main(int argc, char **argv)
{
	struct fuzz z = { .gid_idx = 1 };
	struct ibv_device **list;
	const char *dev = NULL;
	static const char * const verdict[] = { "FAILED", "verified" };
	unsigned long n = 500, seed = 1;
	int c, i;
	bool ok;

	while ((c = getopt(argc, argv, "d:g:n:s:v")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			z.gid_idx = atoi(optarg);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			z.verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s -d DEV [-g GID_INDEX] [-n CASES] [-s SEED] [-v]\n",
				argv[0]);
			return 1;
		}
	}
	if (!dev)
		die("-d DEV is required");
	rnd_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			z.ctx = ibv_open_device(list[i]);
	if (!z.ctx)
		die("cannot open device %s", dev);
	if (ibv_query_gid(z.ctx, 1, z.gid_idx, &z.gid))
		die("query_gid %d: %s", z.gid_idx, strerror(errno));
	z.pd = ibv_alloc_pd(z.ctx);
	z.cq = z.pd ? ibv_create_cq(z.ctx, 256, NULL, NULL, 0) : NULL;
	z.buf = aligned_alloc(4096, BUF_SIZE);
	if (!z.cq || !z.buf)
		die("pd/cq/buffer: %s", strerror(errno));
	z.mr = ibv_reg_mr(z.pd, z.buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC);
	if (!z.mr)
		die("reg_mr: %s", strerror(errno));
	new_qp(&z);
	while (z.cases < n)
		one_case(&z);
	ok = final_check(&z);
	/* scripts/tests/ring_fuzz.sh parses this line */
	printf("cases %lu completions %lu qp_errors %lu failures %lu final %s\n",
	       z.cases, z.completed, z.qp_errors, z.failures, verdict[ok]);
	printf("completion status counts:");
	for (i = 0; i < 32; i++)
		if (z.by_status[i])
			printf(" %s=%lu", ibv_wc_status_str(i), z.by_status[i]);
	printf("\n");
	ibv_destroy_qp(z.qp);
	ibv_dereg_mr(z.mr);
	ibv_destroy_cq(z.cq);
	ibv_dealloc_pd(z.pd);
	ibv_close_device(z.ctx);
	ibv_free_device_list(list);
	return ok && !z.failures ? 0 : 1;
}
