// SPDX-License-Identifier: GPL-2.0
/*
 * irn_wirefuzz - send mutated RoCEv2 packets with valid ICRCs, fast.
 *
 * The C counterpart of "irn_pktgen.py --fuzz", with its flags, its packet
 * classes and its closing line: every RC, UC and UD opcode with the
 * extension headers it should have (and now and then a random opcode),
 * live and random QPNs, payloads up to beyond the path MTU, bad pad
 * counts, P_Keys and transport versions, the IRN bits of BTH byte 4 with
 * IXTH and SACK headers, headers cut short, trailing garbage and, in 3%
 * of the packets, one flipped ICRC bit.  Every other ICRC is correct.
 *
 * Speed: a pool of --pool packets is built first and renewed in part as
 * it is used (2% of the sends build a new packet).  A send copies the 40
 * bytes of IPv4, UDP and BTH headers of a pool packet, gives them a new
 * IPv4 identification and a new PSN (under the live rules below), and
 * computes the ICRC from those 40 bytes alone: each pool packet keeps the
 * CRC of its body (everything between the BTH and the ICRC), and CRC-32
 * is linear, so with R(s, M) the CRC register after M from the register s,
 *
 *	R(s, H | B) = R(s, H) * x^(8 * len(B)) mod P  ^  R(0, B)
 *
 * The message handed to the kernel points at the new headers, the pool
 * packet's body and the new ICRC; sendmmsg() takes up to --batch of them.
 *
 * ICRC (RoCEv2, as irn_pktgen.py computes it): CRC-32 with the reflected
 * polynomial 0xEDB88320 from the register 0xDEBB20E3 (eight 0xff bytes,
 * for the masked LRH, from the usual all-ones start) over the IPv4 header
 * with TOS, TTL and header checksum set to ones, the UDP header with its
 * checksum set to ones, the BTH with byte 4 (FECN, BECN and resv6, where
 * IRN keeps its bits) set to ones, and the rest of the packet up to the
 * ICRC; inverted and stored little endian.
 *
 * Live QPs (--targets: the qps table of the target's irn debugfs, read
 * again every second) only get packets no correct transport may act on.
 * Whatever QPN a packet carries, if that QP is in the table when the
 * packet is sent, its PSN is put 2^21 to 2^22 ahead of the QP's expected
 * PSN (requests) or next PSN (responses), and a read request becomes a
 * write: a duplicate read would rightly be executed again.  (A later
 * version may aim read requests just behind the window on purpose, to
 * test duplicate reads; this one keeps avoiding them as the Python does.)
 * A packet aimed at a live QP whose QP has gone keeps its PSN; any other
 * packet gets a random one on every send.
 *
 * Unlike the Python, which sends its pool packets again unchanged and
 * applies the live rules only when it builds a packet (and only to the
 * QP it picked, not to a live neighbour its QPN offset lands on), every
 * send here is checked against the table read last.  A --seed repeats
 * this program's packets (given the same QP tables), not the Python's.
 *
 * The raw socket (IPPROTO_RAW, so IP_HDRINCL) blocks while its send
 * buffer is full, which paces the generator to what the link and the
 * receiver take; IP_RECVERR makes the stack report a packet its queue
 * dropped (ENOBUFS) instead of hiding it, so that only packets the stack
 * took count as sent.
 *
 * --selftest checks the CRC code, the ICRC against packets captured from
 * stock rdma_rxe (testdata/rxe-icrc-vectors.txt next to the binary, the
 * file irn_pktgen.py --selftest reads) and a dry fuzz run against a made
 * up QP table; --dry-run builds and checks packets without sending them.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define ROCE_V2_PORT	4791
#define UDP_SPORT	0xc000
#define ICRC_SEED	0xdebb20e3u
#define CRC_POLY	0xedb88320u
#define DEFAULT_PKEY	0xffff
#define PSN_MASK	0xffffffu
#define QPN_MASK	0xffffffu

#define IPV4_HDR_LEN	20
#define UDP_HDR_LEN	8
#define BTH_LEN		12
#define ICRC_LEN	4
#define HDRS_LEN	(IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN)
/* longest fuzz packet: 40 + 28 (AtomicETH) + 132 (SACK) + 1200 + 63 + 4 */
#define PKT_MAX		1472

/* offsets in the IPv4 datagram */
#define OFF_IP_ID	4
#define OFF_IP_CSUM	10
#define OFF_UDP_CSUM	26
#define OFF_BTH		28
#define OFF_BTH_B4	(OFF_BTH + 4)
#define OFF_BTH_QPN	(OFF_BTH + 5)
#define OFF_BTH_PSN	(OFF_BTH + 9)

#define OP_RC_SEND_ONLY		0x04
#define OP_RC_WRITE_ONLY	0x0a
#define OP_RC_READ_REQ		0x0c
#define OP_RC_ACK		0x11
#define OP_RC_ATOMIC_ACK	0x12
#define OP_UD_SEND_ONLY		0x64
#define GSI_QKEY		0x80010000u

/* BTH byte 4 (Documentation/wire-format.rst) */
#define IRN_CAP		0x20
#define IRN_EXT		0x10
#define IRN_DSACK	0x08
#define IXTH_LEN	20
#define SACK_LEN	132

/* a live QP's packets go this far ahead of its window, and up to twice */
#define LIVE_AHEAD	0x200000u	/* 2^21 */

#define DEFAULT_POOL	4096
#define DEFAULT_MAX_LEN	1500
#define DEFAULT_BATCH	32
#define MAX_BATCH	1024
#define NEW_PKT_CHANCE	0.02
#define REFUSED_PAUSE	0.0002
#define PACE_PAUSE	0.001
#define REFUSED_FOR	60.0	/* give up when nothing goes out for so long */
#define SEND_TIMEOUT_S	1	/* a send blocked so long is refused */
#define RELOAD_EVERY	1.0
#define PROGRESS_EVERY	10.0
#define SELFTEST_PKTS	200000

/* what a packet is, for the counts in the closing lines */
enum fuzz_class {
	FZ_LIVE,	/* aimed at a live QP when built */
	FZ_TO_LIVE,	/* its QPN was a live QP's when sent */
	FZ_RANDOM_QPN,	/* a random QPN */
	FZ_RANDOP,	/* a random opcode */
	FZ_IRN_BITS,	/* IRN bits set in BTH byte 4 */
	FZ_IRN_HDR,	/* EXT set: an IXTH or SACK header follows */
	FZ_BAD_PAD,	/* PadCnt other than the payload's */
	FZ_BAD_TVER,	/* TVer 1 */
	FZ_BAD_PKEY,	/* a P_Key other than the default */
	FZ_OVER_MTU,	/* a payload beyond the path MTU (1024) */
	FZ_CUT,		/* cut inside the headers or payload */
	FZ_TRAILING,	/* garbage after the payload */
	FZ_BAD_ICRC,	/* one ICRC bit flipped */
	FZ_NR
};

static const char * const class_names[FZ_NR] = {
	[FZ_LIVE] = "live-target",
	[FZ_TO_LIVE] = "to-live-qpn",
	[FZ_RANDOM_QPN] = "random-qpn",
	[FZ_RANDOP] = "random-opcode",
	[FZ_IRN_BITS] = "irn-bits",
	[FZ_IRN_HDR] = "irn-header",
	[FZ_BAD_PAD] = "bad-pad",
	[FZ_BAD_TVER] = "bad-tver",
	[FZ_BAD_PKEY] = "bad-pkey",
	[FZ_OVER_MTU] = "over-mtu",
	[FZ_CUT] = "cut",
	[FZ_TRAILING] = "trailing",
	[FZ_BAD_ICRC] = "bad-icrc",
};

/* RC, UC and UD opcodes and the length of their extension headers */
static const struct {
	__u8 op;
	__u8 ext;
} fuzz_ops[] = {
	{ 0x00, 0 }, { 0x01, 0 }, { 0x02, 0 }, { 0x03, 4 }, { 0x04, 0 },
	{ 0x05, 4 }, { 0x06, 16 }, { 0x07, 0 }, { 0x08, 0 }, { 0x09, 4 },
	{ 0x0a, 16 }, { 0x0b, 20 }, { 0x0c, 16 }, { 0x0d, 4 }, { 0x0e, 0 },
	{ 0x0f, 4 }, { 0x10, 4 }, { 0x11, 4 }, { 0x12, 12 }, { 0x13, 28 },
	{ 0x14, 28 }, { 0x16, 4 }, { 0x17, 4 }, { 0x1d, 16 },
	{ 0x20, 0 }, { 0x24, 0 }, { 0x26, 16 }, { 0x2a, 16 }, { 0x64, 8 },
	{ 0x65, 12 }, { 0x81, 16 },
};

static const __u8 irn_bit_sets[] = {
	IRN_CAP, IRN_EXT, IRN_EXT | IRN_CAP, IRN_EXT | IRN_DSACK, 0x38
};

static const int qpn_offsets[] = { 0, 0, 0, 1, -1, 2 };

/* 1028, 1100 and 1200: beyond the path MTU (1024), within the link's */
static const unsigned int payload_lens[] = {
	0, 0, 4, 16, 64, 256, 1024, 1028, 1100, 1200
};

struct target {
	__u32 qpn;
	__u32 una;
	__u32 nxt;
	__u32 epsn;
};

struct pkt {
	unsigned int len;	/* IPv4 datagram, ICRC included */
	unsigned int classes;	/* 1 << enum fuzz_class */
	__u32 body_crc;		/* R(0, body) */
	__u32 body_shift;	/* x^(8 * body length) mod P */
	__u32 icrc_xor;		/* flipped ICRC bits */
	__u8 data[PKT_MAX];
};

/* one message of a batch: fresh headers and ICRC around a pool body */
struct slot {
	__u8 hdrs[HDRS_LEN];
	__u8 icrc[ICRC_LEN];
	unsigned int classes;
	struct pkt *pkt;
};

struct wirefuzz {
	/* options */
	unsigned long long count;
	unsigned long long seed;
	const char *dst_name;
	const char *src_name;
	const char *targets_path;
	const char *vectors;
	unsigned int pool_max;
	unsigned int max_len;
	unsigned int pace;
	unsigned int batch;
	double rate;
	double time_limit;
	bool dry_run;
	bool hex;
	bool verbose;
	bool quiet;

	struct sockaddr_in dst;
	__u32 src_addr;		/* network order */
	int sock;
	__u64 rng;
	__u16 ident;

	struct target *tgt;
	unsigned int n_tgt;
	unsigned int ever_tgt;
	unsigned long long reloads;

	struct pkt *store;
	struct pkt **pool;
	unsigned int pool_n;
	struct pkt **spare;
	unsigned int spare_n;
	struct pkt **retired;
	unsigned int retired_n;

	struct slot *slots;
	struct mmsghdr *msgs;
	struct iovec *iovs;

	double credit;		/* --rate tokens */
	double credit_at;
	unsigned long long paced_at;

	unsigned long long sent;
	unsigned long long refused;
	unsigned long long built;
	unsigned long long too_long;
	unsigned long long bad;
	unsigned long long classes[FZ_NR];
	double refused_since;	/* first refusal since the stack took one */
	int last_errno;
	bool timed_out;
};

static int stop_signal;

static __u32 crc_table[8][256];
static __u32 x2n_table[32];	/* x^(2^n) mod P */

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("irn_wirefuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void put16(__u8 *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(__u8 *p, __u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static void put_le32(__u8 *p, __u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static unsigned int get16(const __u8 *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static __u32 get24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

static __u32 get_le32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

/* ---- CRC-32 ------------------------------------------------------------ */

/*
 * Polynomials mod P in the reflected order of the CRC register: bit 31
 * holds the coefficient of x^0, bit 0 that of x^31.  gf2_mul() is their
 * product mod P.
 */
static __u32 gf2_mul(__u32 a, __u32 b)
{
	__u32 prod = 0;
	int i;

	for (i = 0; i < 32; i++) {
		if (a & (0x80000000u >> i))
			prod ^= b;
		/* b *= x */
		b = (b & 1) ? (b >> 1) ^ CRC_POLY : b >> 1;
	}
	return prod;
}

/* x^(8 * nbytes) mod P: moves a CRC register past nbytes zero bytes */
static __u32 x_pow_bytes(size_t nbytes)
{
	__u32 r = 0x80000000u;	/* 1 */
	int k = 3;		/* 8 = 2^3 */

	while (nbytes) {
		if (nbytes & 1)
			r = gf2_mul(r, x2n_table[k]);
		nbytes >>= 1;
		k++;
	}
	return r;
}

static void crc_init(void)
{
	unsigned int i, k;
	__u32 c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC_POLY : c >> 1;
		crc_table[0][i] = c;
	}
	/* crc_table[k][i]: byte i followed by k zero bytes */
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++) {
			c = crc_table[k - 1][i];
			crc_table[k][i] = (c >> 8) ^ crc_table[0][c & 0xff];
		}
	x2n_table[0] = 0x40000000u;	/* x */
	for (k = 1; k < 32; k++)
		x2n_table[k] = gf2_mul(x2n_table[k - 1], x2n_table[k - 1]);
}

/* the register after p[0..n) from crc: one byte at a time */
static __u32 crc_bytewise(__u32 crc, const __u8 *p, size_t n)
{
	while (n--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* the same, eight bytes at a time */
static __u32 crc_update(__u32 crc, const __u8 *p, size_t n)
{
	__u32 lo, hi;

	while (n >= 8) {
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo = le32toh(lo) ^ crc;
		hi = le32toh(hi);
		crc = crc_table[7][lo & 0xff] ^
		      crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^
		      crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^
		      crc_table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	return crc_bytewise(crc, p, n);
}

/* R(ICRC_SEED, masked IPv4 + UDP + BTH) */
static __u32 icrc_hdrs(const __u8 *hdrs)
{
	__u8 m[HDRS_LEN];

	memcpy(m, hdrs, HDRS_LEN);
	m[1] = 0xff;				/* TOS (DSCP, ECN) */
	m[8] = 0xff;				/* TTL */
	m[OFF_IP_CSUM] = 0xff;
	m[OFF_IP_CSUM + 1] = 0xff;
	m[OFF_UDP_CSUM] = 0xff;
	m[OFF_UDP_CSUM + 1] = 0xff;
	m[OFF_BTH_B4] = 0xff;			/* FECN, BECN, resv6 */
	return crc_update(ICRC_SEED, m, HDRS_LEN);
}

/* the ICRC of an IPv4 datagram of len bytes, ICRC excluded, in one pass */
static __u32 icrc_full(const __u8 *pkt, size_t len)
{
	return ~crc_update(icrc_hdrs(pkt), pkt + HDRS_LEN, len - HDRS_LEN);
}

/* the ICRC from headers and a body known by its CRC and shift */
static __u32 icrc_split(const __u8 *hdrs, __u32 body_crc, __u32 body_shift)
{
	return ~(gf2_mul(icrc_hdrs(hdrs), body_shift) ^ body_crc);
}

static unsigned int ip_checksum(const __u8 *hdr)
{
	__u32 sum = 0;
	int i;

	for (i = 0; i < IPV4_HDR_LEN; i += 2)
		sum += get16(hdr + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* ---- packets ----------------------------------------------------------- */

struct ip_fields {
	__u32 src;		/* network order */
	__u32 dst;
	unsigned int ident;
	unsigned int tos;
	unsigned int ttl;
	unsigned int flags_frag;
	unsigned int sport;
};

static void put_ip_udp(__u8 *p, const struct ip_fields *f, size_t total)
{
	p[0] = 0x45;
	p[1] = f->tos;
	put16(p + 2, total);
	put16(p + OFF_IP_ID, f->ident);
	put16(p + 6, f->flags_frag);
	p[8] = f->ttl;
	p[9] = IPPROTO_UDP;
	put16(p + OFF_IP_CSUM, 0);
	memcpy(p + 12, &f->src, 4);
	memcpy(p + 16, &f->dst, 4);
	put16(p + OFF_IP_CSUM, ip_checksum(p));
	put16(p + 20, f->sport);
	put16(p + 22, ROCE_V2_PORT);
	put16(p + 24, total - IPV4_HDR_LEN);
	put16(p + OFF_UDP_CSUM, 0);
}

static void put_bth(__u8 *b, unsigned int op, unsigned int flags,
		    unsigned int pkey, unsigned int byte4, __u32 qpn,
		    bool ackreq, __u32 psn)
{
	b[0] = op;
	b[1] = flags;		/* SE, M, PadCnt, TVer */
	put16(b + 2, pkey);
	b[4] = byte4;
	put24(b + 5, qpn & QPN_MASK);
	b[8] = ackreq ? 0x80 : 0;
	put24(b + 9, psn & PSN_MASK);
}

/*
 * A whole datagram: IPv4, UDP, the 12-byte BTH in bth, body (extension
 * headers, payload, pad) and the ICRC.  Returns its length.
 */
static size_t build_datagram(__u8 *p, const struct ip_fields *f,
			     const __u8 *bth, const __u8 *body, size_t blen,
			     __u32 icrc_xor)
{
	size_t total = HDRS_LEN + blen + ICRC_LEN;

	put_ip_udp(p, f, total);
	memcpy(p + OFF_BTH, bth, BTH_LEN);
	memcpy(p + HDRS_LEN, body, blen);
	put_le32(p + total - ICRC_LEN, icrc_full(p, total - ICRC_LEN) ^ icrc_xor);
	return total;
}

/* ---- randomness (splitmix64) ---------------------------------------- */

static __u64 rnd_next(struct wirefuzz *wf)
{
	__u64 z = (wf->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n <= 2^32 */
static __u32 rnd_below(struct wirefuzz *wf, __u64 n)
{
	return (__u32)(((rnd_next(wf) >> 32) * n) >> 32);
}

static bool rnd_chance(struct wirefuzz *wf, double p)
{
	return (rnd_next(wf) >> 11) * (1.0 / 9007199254740992.0) < p;
}

static void rnd_bytes(struct wirefuzz *wf, __u8 *p, size_t n)
{
	__u64 r;

	while (n) {
		size_t k = n < 8 ? n : 8;

		r = rnd_next(wf);
		memcpy(p, &r, k);
		p += k;
		n -= k;
	}
}

/* ---- live QP targets ------------------------------------------------- */

static bool parse_u32(const char *s, __u32 *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT_MAX)
		return false;
	*v = x;
	return true;
}

static int cmp_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	return x->qpn < y->qpn ? -1 : x->qpn > y->qpn;
}

/*
 * Read the qps table of the irn debugfs ("qpn mode irn state una nxt cap
 * sack recov epsn ..."): lines of ten words or more that start with a
 * number.  Returns the number of QPs, or -1 if the file cannot be read.
 * An empty table leaves the old one in place (the target's QPs come and
 * go; aim at the last ones seen).
 */
static int load_targets(struct wirefuzz *wf)
{
	struct target *t = NULL;
	unsigned int n = 0, cap = 0;
	char line[512];
	FILE *f;

	f = fopen(wf->targets_path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *w[10], *save = NULL, *tok;
		struct target x;
		int nw = 0;

		for (tok = strtok_r(line, " \t\r\n", &save); tok && nw < 10;
		     tok = strtok_r(NULL, " \t\r\n", &save))
			w[nw++] = tok;
		if (nw < 10 || !parse_u32(w[0], &x.qpn) ||
		    !parse_u32(w[4], &x.una) || !parse_u32(w[5], &x.nxt) ||
		    !parse_u32(w[9], &x.epsn))
			continue;
		x.qpn &= QPN_MASK;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			t = realloc(t, cap * sizeof(*t));
			if (!t)
				die("out of memory for %u targets", cap);
		}
		t[n++] = x;
	}
	fclose(f);
	if (!n) {
		free(t);
		return 0;
	}
	qsort(t, n, sizeof(*t), cmp_target);
	free(wf->tgt);
	wf->tgt = t;
	wf->n_tgt = n;
	if (n > wf->ever_tgt)
		wf->ever_tgt = n;
	wf->reloads++;
	return n;
}

static const struct target *target_find(const struct wirefuzz *wf, __u32 qpn)
{
	struct target key = { .qpn = qpn };

	if (!wf->n_tgt)
		return NULL;
	return bsearch(&key, wf->tgt, wf->n_tgt, sizeof(key), cmp_target);
}

static bool is_response(unsigned int op)
{
	return op >= 0x0d && op <= OP_RC_ATOMIC_ACK;
}

/* the window a live QP checks this opcode's PSN against starts here */
static __u32 target_base(const struct target *t, unsigned int op)
{
	return is_response(op) ? t->nxt : t->epsn;
}

static __u32 live_psn(struct wirefuzz *wf, const struct target *t,
		      unsigned int op)
{
	return (target_base(t, op) + LIVE_AHEAD + rnd_below(wf, LIVE_AHEAD)) &
	       PSN_MASK;
}

/* ---- the fuzz packets ------------------------------------------------ */

/* the destination QP and PSN of a new packet; may change op */
static void fuzz_aim(struct wirefuzz *wf, unsigned int *op, __u32 *qpn,
		     __u32 *psn, unsigned int *classes)
{
	const struct target *t, *same;

	if (wf->n_tgt && rnd_chance(wf, 0.6)) {
		t = &wf->tgt[rnd_below(wf, wf->n_tgt)];
		*qpn = (t->qpn + qpn_offsets[rnd_below(wf, ARRAY_SIZE(qpn_offsets))]) &
		       QPN_MASK;
		/* a neighbour may be live too: then its PSNs count */
		same = target_find(wf, *qpn);
		if (same)
			t = same;
		if (*op == OP_RC_READ_REQ)
			*op = OP_RC_WRITE_ONLY;
		*psn = live_psn(wf, t, *op);
		*classes |= 1u << FZ_LIVE;
		return;
	}
	switch (rnd_below(wf, 3)) {
	case 0:
		*qpn = rnd_below(wf, 1u << 24);
		break;
	case 1:
		*qpn = 2 + rnd_below(wf, 62);
		break;
	default:
		*qpn = 1;
		break;
	}
	*psn = rnd_below(wf, 1u << 24);
	*classes |= 1u << FZ_RANDOM_QPN;
}

/* A new mutated packet, irn_pktgen.py's fuzz_packet() and build(). */
static void fuzz_build(struct wirefuzz *wf, struct pkt *p)
{
	unsigned int k = rnd_below(wf, ARRAY_SIZE(fuzz_ops));
	unsigned int op = fuzz_ops[k].op, ext = fuzz_ops[k].ext;
	unsigned int plen, pad, padcnt, flags, pkey, byte4 = 0, classes = 0;
	__u8 *body = p->data + HDRS_LEN;
	struct ip_fields f = {
		.src = wf->src_addr, .dst = wf->dst.sin_addr.s_addr,
		.ident = 0, .ttl = 64, .flags_frag = 0x4000, .sport = UDP_SPORT,
	};
	size_t blen, n;
	bool ackreq;
	__u32 qpn, psn;
	double r;

	if (rnd_chance(wf, 0.05)) {
		op = rnd_below(wf, 256);
		classes |= 1u << FZ_RANDOP;
	}
	fuzz_aim(wf, &op, &qpn, &psn, &classes);
	plen = payload_lens[rnd_below(wf, ARRAY_SIZE(payload_lens))];
	if (plen > 1024)
		classes |= 1u << FZ_OVER_MTU;
	pad = -plen & 3;
	padcnt = rnd_chance(wf, 0.2) ? rnd_below(wf, 4) : pad;
	if (padcnt != pad)
		classes |= 1u << FZ_BAD_PAD;
	flags = (rnd_chance(wf, 0.1) ? 0x80 : 0) | padcnt << 4;
	ackreq = rnd_chance(wf, 0.5);
	if (rnd_chance(wf, 0.02)) {
		flags |= 1;
		classes |= 1u << FZ_BAD_TVER;
	}
	pkey = rnd_chance(wf, 0.9) ? DEFAULT_PKEY : rnd_below(wf, 1u << 16);
	if (pkey != DEFAULT_PKEY)
		classes |= 1u << FZ_BAD_PKEY;

	rnd_bytes(wf, body, ext);
	blen = ext;
	if (rnd_chance(wf, 0.5)) {
		byte4 = irn_bit_sets[rnd_below(wf, ARRAY_SIZE(irn_bit_sets))];
		classes |= 1u << FZ_IRN_BITS;
		if (byte4 & IRN_EXT) {
			n = (op == OP_RC_ACK || op == OP_RC_ATOMIC_ACK) ?
				SACK_LEN : IXTH_LEN;
			rnd_bytes(wf, body + blen, n);
			blen += n;
			classes |= 1u << FZ_IRN_HDR;
		}
	}
	memset(body + blen, 0, plen + pad);
	blen += plen + pad;
	r = (rnd_next(wf) >> 11) * (1.0 / 9007199254740992.0);
	if (r < 0.1) {
		blen = rnd_below(wf, blen + 1);
		classes |= 1u << FZ_CUT;
	} else if (r < 0.15) {
		n = rnd_below(wf, 64);
		rnd_bytes(wf, body + blen, n);
		blen += n;
		classes |= 1u << FZ_TRAILING;
	}
	p->icrc_xor = 0;
	if (rnd_chance(wf, 0.03)) {
		p->icrc_xor = 1u << rnd_below(wf, 32);
		classes |= 1u << FZ_BAD_ICRC;
	}

	p->len = HDRS_LEN + blen + ICRC_LEN;
	p->classes = classes;
	put_ip_udp(p->data, &f, p->len);
	put_bth(p->data + OFF_BTH, op, flags, pkey, byte4, qpn, ackreq, psn);
	p->body_crc = crc_update(0, body, blen);
	p->body_shift = x_pow_bytes(blen);
}

/*
 * The headers and ICRC of one send of pool packet p into slot s: a new
 * IPv4 identification (never 0, which the kernel would fill in), the live
 * rules if the QPN is a live QP's now, else a new random PSN for a packet
 * that was not aimed at a live QP (fresh ones keep the PSN just drawn).
 */
static void fuzz_prepare(struct wirefuzz *wf, struct slot *s, struct pkt *p,
			 bool fresh)
{
	__u8 *h = s->hdrs;
	const struct target *t;

	memcpy(h, p->data, HDRS_LEN);
	s->pkt = p;
	s->classes = p->classes;
	put16(h + OFF_IP_ID, wf->ident);
	wf->ident = wf->ident % 0xfffe + 1;
	t = target_find(wf, get24(h + OFF_BTH_QPN));
	if (t) {
		if (h[OFF_BTH] == OP_RC_READ_REQ)
			h[OFF_BTH] = OP_RC_WRITE_ONLY;
		put24(h + OFF_BTH_PSN, live_psn(wf, t, h[OFF_BTH]));
		s->classes |= 1u << FZ_TO_LIVE;
	} else if (!fresh && !(p->classes & (1u << FZ_LIVE))) {
		put24(h + OFF_BTH_PSN, rnd_below(wf, 1u << 24));
	}
	put16(h + OFF_IP_CSUM, 0);
	put16(h + OFF_IP_CSUM, ip_checksum(h));
	put_le32(s->icrc, icrc_split(h, p->body_crc, p->body_shift) ^ p->icrc_xor);
}

/* ---- the pool ---------------------------------------------------------- */

static void pool_init(struct wirefuzz *wf)
{
	unsigned int n = wf->pool_max + wf->batch + 1, i;

	wf->store = zalloc((size_t)n * sizeof(*wf->store));
	wf->pool = zalloc((size_t)wf->pool_max * sizeof(*wf->pool));
	wf->spare = zalloc((size_t)n * sizeof(*wf->spare));
	wf->retired = zalloc((size_t)(wf->batch + 1) * sizeof(*wf->retired));
	for (i = 0; i < n; i++)
		wf->spare[wf->spare_n++] = &wf->store[i];
	wf->slots = zalloc((size_t)wf->batch * sizeof(*wf->slots));
	wf->msgs = zalloc((size_t)wf->batch * sizeof(*wf->msgs));
	wf->iovs = zalloc((size_t)wf->batch * 3 * sizeof(*wf->iovs));
}

static void pool_free(struct wirefuzz *wf)
{
	free(wf->store);
	free(wf->pool);
	free(wf->spare);
	free(wf->retired);
	free(wf->slots);
	free(wf->msgs);
	free(wf->iovs);
	free(wf->tgt);
}

/*
 * Put a new packet in the pool: while it fills up at its end, then in
 * place of a random one, which may still be in the batch being filled
 * and is kept until that is sent.
 */
static void pool_add(struct wirefuzz *wf, struct pkt *p)
{
	unsigned int i;

	if (wf->pool_n < wf->pool_max) {
		wf->pool[wf->pool_n++] = p;
		return;
	}
	i = rnd_below(wf, wf->pool_max);
	wf->retired[wf->retired_n++] = wf->pool[i];
	wf->pool[i] = p;
}

static void pool_release_retired(struct wirefuzz *wf)
{
	while (wf->retired_n)
		wf->spare[wf->spare_n++] = wf->retired[--wf->retired_n];
}

/* ---- checks (dry run, selftest) ---------------------------------------- */

static size_t slot_assemble(const struct slot *s, __u8 *out)
{
	const struct pkt *p = s->pkt;
	size_t blen = p->len - HDRS_LEN - ICRC_LEN;

	memcpy(out, s->hdrs, HDRS_LEN);
	memcpy(out + HDRS_LEN, p->data + HDRS_LEN, blen);
	memcpy(out + HDRS_LEN + blen, s->icrc, ICRC_LEN);
	return p->len;
}

static void print_hex(const __u8 *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[129];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		buf[k++] = digits[p[i] >> 4];
		buf[k++] = digits[p[i] & 15];
		if (k == sizeof(buf) - 1) {
			fwrite(buf, 1, k, stdout);
			k = 0;
		}
	}
	buf[k++] = '\n';
	fwrite(buf, 1, k, stdout);
}

/*
 * Check one packet as it would go out, with the one-pass ICRC: right
 * unless a bit was meant to be flipped, lengths and IPv4 checksum right,
 * and the live rules kept.  Returns NULL or what is wrong.
 */
static const char *check_packet(const struct wirefuzz *wf, const __u8 *pkt,
				size_t len, __u32 icrc_xor)
{
	const struct target *t;
	unsigned int op = pkt[OFF_BTH];
	__u32 d;

	if (len < HDRS_LEN + ICRC_LEN || len > PKT_MAX)
		return "length out of range";
	if ((get_le32(pkt + len - ICRC_LEN) ^ icrc_full(pkt, len - ICRC_LEN)) !=
	    icrc_xor)
		return "ICRC";
	if (ip_checksum(pkt) != 0)
		return "IPv4 header checksum";
	if (get16(pkt + 2) != len || get16(pkt + 24) != len - IPV4_HDR_LEN)
		return "IPv4 or UDP length";
	if (len > wf->max_len)
		return "longer than --max-len";
	t = target_find(wf, get24(pkt + OFF_BTH_QPN));
	if (!t)
		return NULL;
	if (op == OP_RC_READ_REQ)
		return "read request to a live QP";
	d = (get24(pkt + OFF_BTH_PSN) - target_base(t, op)) & PSN_MASK;
	if (d < LIVE_AHEAD || d >= 2 * LIVE_AHEAD)
		return "PSN near a live QP's window";
	return NULL;
}

/* ---- sending ----------------------------------------------------------- */

static void count_sent(struct wirefuzz *wf, const struct slot *s)
{
	int c;

	wf->sent++;
	for (c = 0; c < FZ_NR; c++)
		if (s->classes & (1u << c))
			wf->classes[c]++;
}

static void flush_dry(struct wirefuzz *wf, unsigned int n)
{
	__u8 pkt[PKT_MAX];
	const char *why;
	unsigned int i;
	size_t len;

	for (i = 0; i < n; i++) {
		len = slot_assemble(&wf->slots[i], pkt);
		if (wf->hex)
			print_hex(pkt, len);
		why = check_packet(wf, pkt, len, wf->slots[i].pkt->icrc_xor);
		if (why) {
			if (wf->bad++ < 10) {
				printf("irn_wirefuzz: bad packet %llu: %s: ",
				       wf->sent, why);
				print_hex(pkt, len);
			}
		}
		count_sent(wf, &wf->slots[i]);
	}
}

static void flush_sock(struct wirefuzz *wf, unsigned int n)
{
	unsigned int i = 0, k;
	__u8 pkt[PKT_MAX];
	double now;
	int ret;

	if (wf->hex)
		for (k = 0; k < n; k++)
			print_hex(pkt, slot_assemble(&wf->slots[k], pkt));
	while (i < n) {
		ret = sendmmsg(wf->sock, wf->msgs + i, n - i, 0);
		if (ret > 0) {
			for (k = 0; k < (unsigned int)ret; k++)
				count_sent(wf, &wf->slots[i + k]);
			i += ret;
			wf->refused_since = 0;
			continue;
		}
		if (ret < 0 && errno == EINTR) {
			if (__atomic_load_n(&stop_signal, __ATOMIC_RELAXED))
				return;
			continue;
		}
		/*
		 * ENOBUFS: the device queue is full (EAGAIN: the send buffer
		 * stayed full for SEND_TIMEOUT_S).  Only packets the stack
		 * took count as sent; pause, then go on with the next one.
		 */
		wf->last_errno = ret < 0 ? errno : EAGAIN;
		wf->refused++;
		i++;
		now = now_s();
		if (!wf->refused_since)
			wf->refused_since = now;
		else if (now - wf->refused_since > REFUSED_FOR)
			die("sendmmsg to %s: no packet taken for %.0f s, %llu refused: %s",
			    wf->dst_name, REFUSED_FOR, wf->refused,
			    strerror(wf->last_errno));
		sleep_s(REFUSED_PAUSE);
	}
}

static void batch_fill_msgs(struct wirefuzz *wf, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct slot *s = &wf->slots[i];
		struct iovec *iov = &wf->iovs[3 * i];
		struct msghdr *mh = &wf->msgs[i].msg_hdr;

		iov[0].iov_base = s->hdrs;
		iov[0].iov_len = HDRS_LEN;
		iov[1].iov_base = s->pkt->data + HDRS_LEN;
		iov[1].iov_len = s->pkt->len - HDRS_LEN - ICRC_LEN;
		iov[2].iov_base = s->icrc;
		iov[2].iov_len = ICRC_LEN;
		memset(mh, 0, sizeof(*mh));
		mh->msg_name = &wf->dst;
		mh->msg_namelen = sizeof(wf->dst);
		mh->msg_iov = iov;
		mh->msg_iovlen = 3;
	}
}

/*
 * How many packets the next batch may hold: --batch, what is left of
 * --fuzz, up to the next --pace pause and the --rate tokens.  Returns 0
 * after sleeping for a token.
 */
static unsigned int batch_room(struct wirefuzz *wf, double now)
{
	unsigned long long room = wf->count - wf->sent;

	if (room > wf->batch)
		room = wf->batch;
	if (wf->pace && room > wf->pace - wf->sent % wf->pace)
		room = wf->pace - wf->sent % wf->pace;
	if (wf->rate > 0) {
		wf->credit += (now - wf->credit_at) * wf->rate;
		wf->credit_at = now;
		/* no bursts to catch up on a stall: at most one batch */
		if (wf->credit > wf->batch)
			wf->credit = wf->batch;
		if (wf->credit < 1) {
			sleep_s((1 - wf->credit) / wf->rate);
			return 0;
		}
		if (room > (unsigned long long)wf->credit)
			room = (unsigned long long)wf->credit;
	}
	return room;
}

/* One batch: pool packets, some new, prepared and sent (or checked). */
static void fuzz_batch(struct wirefuzz *wf, unsigned int room)
{
	unsigned long long before = wf->sent + wf->refused;
	unsigned int n = 0;
	struct pkt *p;
	bool fresh;

	while (n < room) {
		fresh = wf->pool_n < wf->pool_max ||
			rnd_chance(wf, NEW_PKT_CHANCE);
		if (fresh) {
			p = wf->spare[--wf->spare_n];
			fuzz_build(wf, p);
			wf->built++;
			/* the stack refuses what the link cannot carry */
			if (p->len > wf->max_len) {
				wf->too_long++;
				wf->spare[wf->spare_n++] = p;
				continue;
			}
			pool_add(wf, p);
		} else {
			p = wf->pool[rnd_below(wf, wf->pool_n)];
		}
		fuzz_prepare(wf, &wf->slots[n++], p, fresh);
	}
	if (wf->dry_run) {
		flush_dry(wf, n);
	} else {
		batch_fill_msgs(wf, n);
		flush_sock(wf, n);
	}
	pool_release_retired(wf);
	if (wf->rate > 0)
		wf->credit -= wf->sent + wf->refused - before;
	if (wf->pace && wf->sent % wf->pace == 0 && wf->paced_at != wf->sent) {
		wf->paced_at = wf->sent;
		sleep_s(PACE_PAUSE);
	}
}

static void print_classes(const struct wirefuzz *wf)
{
	int c;

	printf("irn_wirefuzz: classes sent:");
	for (c = 0; c < FZ_NR; c++)
		printf("%s %s %llu", c ? "," : "", class_names[c],
		       wf->classes[c]);
	printf("\n");
}

static void print_summary(struct wirefuzz *wf, double secs)
{
	const char *verb = wf->dry_run ? "checked" : "sent";

	/* the line wire_fuzz.sh greps, as irn_pktgen.py prints it */
	printf("irn_wirefuzz: fuzz %s %llu packets (%llu sends refused) ",
	       verb, wf->sent, wf->refused);
	printf("to %s in %.1f s, up to %u live QP targets, seed %llu\n",
	       wf->dst_name, secs, wf->ever_tgt, wf->seed);
	printf("irn_wirefuzz: %.0f packets/s; %llu built ",
	       secs > 0 ? wf->sent / secs : 0.0, wf->built);
	printf("(%llu longer than --max-len %u), pool %u, batch %u, %llu target table reads\n",
	       wf->too_long, wf->max_len, wf->pool_max, wf->batch,
	       wf->reloads);
	print_classes(wf);
	if (wf->refused)
		printf("irn_wirefuzz: last refusal: %s\n",
		       strerror(wf->last_errno));
	if (wf->timed_out)
		printf("irn_wirefuzz: time limit of %.0f s reached: sent %llu of %llu packets\n",
		       wf->time_limit, wf->sent, wf->count);
	if (__atomic_load_n(&stop_signal, __ATOMIC_RELAXED))
		printf("irn_wirefuzz: stopped by signal %d after %llu of %llu packets\n",
		       stop_signal, wf->sent, wf->count);
	if (wf->dry_run)
		printf("irn_wirefuzz: dry run: %llu bad packets\n", wf->bad);
	fflush(stdout);
}

static void fuzz_run(struct wirefuzz *wf)
{
	double t0, now, reload_at, progress_at;

	pool_init(wf);
	t0 = now_s();
	reload_at = t0;
	progress_at = t0;
	wf->credit_at = t0;
	wf->credit = 1;
	while (wf->sent < wf->count &&
	       !__atomic_load_n(&stop_signal, __ATOMIC_RELAXED)) {
		unsigned int room;

		now = now_s();
		if (wf->targets_path && now > reload_at + RELOAD_EVERY) {
			/* the target's QPs come and go: aim at the current ones */
			load_targets(wf);
			reload_at = now;
		}
		if (wf->time_limit > 0 && now - t0 >= wf->time_limit) {
			wf->timed_out = true;
			break;
		}
		if (wf->verbose && now > progress_at + PROGRESS_EVERY) {
			printf("irn_wirefuzz: %llu sent (%llu refused) in %.0f s, ",
			       wf->sent, wf->refused, now - t0);
			printf("%.0f/s, %u live QP targets\n",
			       wf->sent / (now - t0), wf->n_tgt);
			fflush(stdout);
			progress_at = now;
		}
		room = batch_room(wf, now);
		if (room)
			fuzz_batch(wf, room);
	}
	if (!wf->quiet)
		print_summary(wf, now_s() - t0);
	pool_free(wf);
}

/* ---- selftest ---------------------------------------------------------- */

struct selftest {
	int checks;
	int failed;
	bool verbose;
};

static void st_result(struct selftest *st, bool ok, const char *fmt, ...)
{
	va_list ap;

	st->checks++;
	if (!ok)
		st->failed++;
	printf("%s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* slice-by-8 and the header/body split against the bytewise CRC */
static void selftest_crc(struct selftest *st)
{
	static const __u8 ffs[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	struct wirefuzz rw = { .rng = 12345 };
	__u8 buf[PKT_MAX + 8];
	int i, bad = 0;

	st_result(st, crc_bytewise(0xffffffffu, ffs, 8) == ICRC_SEED,
		  "seed: crc32(8 x 0xff) == ~0xDEBB20E3");
	for (i = 0; i < 2000; i++) {
		size_t len = rnd_below(&rw, PKT_MAX), off = rnd_below(&rw, 8);
		__u32 s = rnd_next(&rw), whole, split;

		rnd_bytes(&rw, buf, sizeof(buf));
		whole = crc_bytewise(s, buf + off, len);
		if (crc_update(s, buf + off, len) != whole)
			bad++;
		split = gf2_mul(s, x_pow_bytes(len)) ^
			crc_update(0, buf + off, len);
		if (split != whole)
			bad++;
	}
	st_result(st, !bad,
		  "crc: slice-by-8 and the header/body split agree with the bytewise CRC (%d mismatches in 2000 cases)",
		  bad);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the RoCEv2 datagram in l3 (IPv4, UDP port 4791); its length or 0 */
static size_t roce_len(const __u8 *l3, size_t n)
{
	size_t tot;

	if (n < IPV4_HDR_LEN || l3[0] != 0x45 || l3[9] != IPPROTO_UDP)
		return 0;
	tot = get16(l3 + 2);
	if (tot < n)
		n = tot;
	if (n < HDRS_LEN + ICRC_LEN || get16(l3 + 22) != ROCE_V2_PORT)
		return 0;
	return n;
}

/* one captured datagram: its ICRC, and our builder's copy of it */
static void selftest_vector(struct selftest *st, const char *name,
			    const __u8 *l3, size_t n)
{
	__u8 rebuilt[2048];
	struct ip_fields f;
	__u32 stored, calc;
	size_t len = roce_len(l3, n), rlen;
	bool same;

	if (!len || len > sizeof(rebuilt)) {
		st_result(st, false, "%s: not an IPv4 RoCEv2 packet", name);
		return;
	}
	stored = get_le32(l3 + len - ICRC_LEN);
	calc = icrc_full(l3, len - ICRC_LEN);
	f.tos = l3[1];
	f.ident = get16(l3 + OFF_IP_ID);
	f.flags_frag = get16(l3 + 6);
	f.ttl = l3[8];
	memcpy(&f.src, l3 + 12, 4);
	memcpy(&f.dst, l3 + 16, 4);
	f.sport = get16(l3 + 20);
	rlen = build_datagram(rebuilt, &f, l3 + OFF_BTH, l3 + HDRS_LEN,
			      len - HDRS_LEN - ICRC_LEN, 0);
	same = rlen == len && !memcmp(rebuilt, l3, len);
	st_result(st, calc == stored && same,
		  "%s: opcode 0x%02x qpn 0x%06x len %zu icrc stored %08x computed %08x%s",
		  name, l3[OFF_BTH], get24(l3 + OFF_BTH_QPN), n, stored, calc,
		  same ? "" : " (rebuilt packet differs)");
	if (st->verbose && !same) {
		printf("  captured ");
		print_hex(l3, len);
		printf("  rebuilt  ");
		print_hex(rebuilt, rlen);
	}
}

static void selftest_vectors(struct selftest *st, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	static char line[8192];
	__u8 l3[4096];
	int lineno = 0, found = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		die("test vectors %s missing: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char name[256], *c = strchr(line, '#');
		size_t n = 0, i;

		lineno++;
		if (c)
			*c = '\0';
		for (i = 0; line[i]; i++) {
			int hi, lo;

			if (line[i] == ' ' || line[i] == '\t' ||
			    line[i] == '\r' || line[i] == '\n')
				continue;
			hi = hexval(line[i]);
			lo = line[i + 1] ? hexval(line[i + 1]) : -1;
			if (hi < 0 || lo < 0 || n == sizeof(l3))
				die("%s:%d: bad hex", path, lineno);
			l3[n++] = hi << 4 | lo;
			i++;
		}
		if (!n)
			continue;
		snprintf(name, sizeof(name), "%s:%d", base, lineno);
		selftest_vector(st, name, l3, n);
		found++;
	}
	fclose(f);
	if (!found)
		die("selftest: no packets to check in %s", path);
}

/* our builder's packets pass our check, and a flipped bit does not */
static void selftest_builder(struct selftest *st)
{
	struct ip_fields f = {
		.ident = 0x1234, .ttl = 64, .flags_frag = 0x4000,
		.sport = UDP_SPORT,
	};
	__u8 bth[BTH_LEN], body[8 + 256], pkt[512];
	size_t len;
	int i;

	inet_pton(AF_INET, "10.77.0.2", &f.src);
	inet_pton(AF_INET, "10.77.0.1", &f.dst);
	for (i = 0; i < 16; i++)
		body[i] = i * 7 + 1;
	put_bth(bth, OP_RC_SEND_ONLY, 0, DEFAULT_PKEY, 0, 0x11, true, 0x123456);
	len = build_datagram(pkt, &f, bth, body, 16, 0);
	st_result(st, icrc_full(pkt, len - 4) == get_le32(pkt + len - 4),
		  "builder valid");
	len = build_datagram(pkt, &f, bth, body, 16, 1);
	st_result(st, icrc_full(pkt, len - 4) != get_le32(pkt + len - 4),
		  "builder bad-icrc");
	put_bth(bth, OP_UD_SEND_ONLY, 0, DEFAULT_PKEY, 0, 1, false, 0x123456);
	memset(body, 0, sizeof(body));
	put32(body, GSI_QKEY);
	put32(body + 4, 1);
	len = build_datagram(pkt, &f, bth, body, sizeof(body), 0);
	st_result(st, icrc_full(pkt, len - 4) == get_le32(pkt + len - 4),
		  "builder valid-ud");
}

/* a dry fuzz run against a made-up QP table near the PSN wrap */
static void selftest_fuzz(struct selftest *st)
{
	static struct target tgt[] = {
		{ 17, 0xfffe10, 0xfffe40, 0xffff80 },
		{ 18, 0x000010, 0x000020, 0xfffff0 },
		{ 19, 0x7ffff0, 0x800010, 0x100000 },
		{ 40, 0x200000, 0x200000, 0xfff000 },
	};
	struct wirefuzz wf = {
		.count = SELFTEST_PKTS, .seed = 7, .rng = 7,
		.dst_name = "10.77.0.2", .pool_max = 512,
		.max_len = DEFAULT_MAX_LEN, .batch = DEFAULT_BATCH,
		.dry_run = true, .quiet = true, .ident = 1,
	};
	unsigned int missing = 0;
	int c;

	wf.tgt = malloc(sizeof(tgt));
	if (!wf.tgt)
		die("out of memory");
	memcpy(wf.tgt, tgt, sizeof(tgt));
	wf.n_tgt = ARRAY_SIZE(tgt);
	wf.ever_tgt = wf.n_tgt;
	wf.dst.sin_family = AF_INET;
	inet_pton(AF_INET, "10.77.0.2", &wf.dst.sin_addr);
	inet_pton(AF_INET, "10.77.0.1", &wf.src_addr);
	fuzz_run(&wf);
	for (c = 0; c < FZ_NR; c++)
		if (!wf.classes[c])
			missing |= 1u << c;
	st_result(st, !wf.bad && wf.sent == SELFTEST_PKTS,
		  "fuzz: %llu packets checked: %llu with a wrong ICRC, length, checksum or live-QP PSN",
		  wf.sent, wf.bad);
	st_result(st, !missing, "fuzz: every class sent (missing: 0x%x)",
		  missing);
}

static int selftest_all(const char *vectors, bool verbose)
{
	struct selftest st = { .verbose = verbose };

	selftest_crc(&st);
	selftest_vectors(&st, vectors);
	selftest_builder(&st);
	selftest_fuzz(&st);
	printf("selftest: %d checks, %d failed\n", st.checks, st.failed);
	return st.failed ? 1 : 0;
}

/* ---- setup ------------------------------------------------------------- */

static void on_signal(int sig)
{
	__atomic_store_n(&stop_signal, sig, __ATOMIC_RELAXED);
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: a blocked send ends */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* the source address the route to dst would use */
static void route_src(struct wirefuzz *wf)
{
	struct sockaddr_in a = wf->dst;
	socklen_t alen = sizeof(a);
	int s;

	a.sin_port = htons(ROCE_V2_PORT);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		die("socket: %s", strerror(errno));
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &alen))
		die("no route to %s: %s", wf->dst_name, strerror(errno));
	close(s);
	wf->src_addr = a.sin_addr.s_addr;
}

static void open_raw(struct wirefuzz *wf)
{
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_S };
	int on = 1;

	wf->sock = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (wf->sock < 0) {
		if (errno == EPERM || errno == EACCES)
			die("raw socket: permission denied (need root / CAP_NET_RAW)");
		die("raw socket: %s", strerror(errno));
	}
	/* report queue drops (ENOBUFS) instead of hiding them */
	if (setsockopt(wf->sock, IPPROTO_IP, IP_RECVERR, &on, sizeof(on)))
		die("IP_RECVERR: %s", strerror(errno));
	/* a send never blocks for good: the time limit must be checked */
	if (setsockopt(wf->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("SO_SNDTIMEO: %s", strerror(errno));
}

/* testdata/rxe-icrc-vectors.txt in the directory of this program */
static const char *default_vectors(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	char *slash;

	if (n <= 0)
		return "testdata/rxe-icrc-vectors.txt";
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "testdata/rxe-icrc-vectors.txt");
	return path;
}

static unsigned long long parse_num(const char *opt, const char *s,
				    unsigned long long min,
				    unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		die("%s %s: want a number from %llu to %llu", opt, s, min, max);
	return v;
}

static double parse_real(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		die("%s %s: want a number of 0 or more", opt, s);
	return v;
}

static void help(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s --fuzz N --dst IPV4 [--src IPV4] [--targets FILE]\n"
		"          [--seed S] [--pool P] [--max-len BYTES] [--pace K]\n"
		"          [--rate PPS] [--time-limit SEC] [--batch B]\n"
		"          [--dry-run] [--hex] [-v]\n"
		"       %s --selftest [--vectors FILE] [-v]\n"
		"  --fuzz N          send N mutated RoCEv2 packets to --dst\n"
		"  --dst IPV4        destination (UDP port 4791)\n"
		"  --src IPV4        source address (default: the route's)\n"
		"  --targets FILE    the target's irn debugfs qps table, read\n"
		"                    every second, to aim at live QPs safely\n"
		"  --seed S          random seed (default 1)\n"
		"  --pool P          distinct packets kept (default 4096)\n"
		"  --max-len BYTES   longest IPv4 packet, the link's MTU\n"
		"                    (default 1500)\n"
		"  --pace K          sleep 1 ms every K packets\n"
		"  --rate PPS        send at most PPS packets a second\n"
		"  --time-limit SEC  stop after SEC seconds even if fewer than\n"
		"                    N packets were sent (and say so)\n"
		"  --batch B         packets per sendmmsg() (default 32)\n"
		"  --dry-run         build and check the packets, send nothing\n"
		"  --hex             print every packet in hex\n"
		"  --selftest        check the ICRC code against captured rxe\n"
		"                    packets (--vectors, default\n"
		"                    testdata/rxe-icrc-vectors.txt beside this\n"
		"                    program) and a dry fuzz run\n"
		"  -v, --verbose     progress every 10 s; selftest details\n",
		prog, prog);
}

enum {
	OPT_FUZZ = 256, OPT_DST, OPT_SRC, OPT_TARGETS, OPT_SEED, OPT_POOL,
	OPT_MAX_LEN, OPT_PACE, OPT_RATE, OPT_TIME_LIMIT, OPT_BATCH,
	OPT_DRY_RUN, OPT_HEX, OPT_SELFTEST, OPT_VECTORS,
};

static const struct option long_opts[] = {
	{ "fuzz", required_argument, NULL, OPT_FUZZ },
	{ "dst", required_argument, NULL, OPT_DST },
	{ "src", required_argument, NULL, OPT_SRC },
	{ "targets", required_argument, NULL, OPT_TARGETS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "pool", required_argument, NULL, OPT_POOL },
	{ "max-len", required_argument, NULL, OPT_MAX_LEN },
	{ "pace", required_argument, NULL, OPT_PACE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "hex", no_argument, NULL, OPT_HEX },
	{ "selftest", no_argument, NULL, OPT_SELFTEST },
	{ "vectors", required_argument, NULL, OPT_VECTORS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static bool parse_args(struct wirefuzz *wf, int argc, char **argv)
{
	bool self = false;
	int c;

	while ((c = getopt_long(argc, argv, "vh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_FUZZ:
			wf->count = parse_num("--fuzz", optarg, 1, ULLONG_MAX);
			break;
		case OPT_DST:
			wf->dst_name = optarg;
			break;
		case OPT_SRC:
			wf->src_name = optarg;
			break;
		case OPT_TARGETS:
			wf->targets_path = optarg;
			break;
		case OPT_SEED:
			wf->seed = parse_num("--seed", optarg, 0, ULLONG_MAX);
			break;
		case OPT_POOL:
			wf->pool_max = parse_num("--pool", optarg, 1, 1u << 20);
			break;
		case OPT_MAX_LEN:
			wf->max_len = parse_num("--max-len", optarg, 64, 65535);
			break;
		case OPT_PACE:
			wf->pace = parse_num("--pace", optarg, 0, UINT_MAX);
			break;
		case OPT_RATE:
			wf->rate = parse_real("--rate", optarg);
			break;
		case OPT_TIME_LIMIT:
			wf->time_limit = parse_real("--time-limit", optarg);
			break;
		case OPT_BATCH:
			wf->batch = parse_num("--batch", optarg, 1, MAX_BATCH);
			break;
		case OPT_DRY_RUN:
			wf->dry_run = true;
			break;
		case OPT_HEX:
			wf->hex = true;
			break;
		case OPT_SELFTEST:
			self = true;
			break;
		case OPT_VECTORS:
			wf->vectors = optarg;
			break;
		case 'v':
			wf->verbose = true;
			break;
		case 'h':
			help(stdout, argv[0]);
			exit(0);
		default:
			help(stderr, argv[0]);
			exit(2);
		}
	}
	if (optind != argc) {
		help(stderr, argv[0]);
		exit(2);
	}
	return self;
}

int main(int argc, char **argv)
{
	struct wirefuzz wf = {
		.seed = 1, .pool_max = DEFAULT_POOL, .max_len = DEFAULT_MAX_LEN,
		.batch = DEFAULT_BATCH, .sock = -1, .ident = 1,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	if (parse_args(&wf, argc, argv))
		return selftest_all(wf.vectors ? wf.vectors : default_vectors(),
				wf.verbose);
	if (!wf.count || !wf.dst_name) {
		fprintf(stderr, "irn_wirefuzz: --fuzz N and --dst are required (or --selftest)\n");
		return 2;
	}
	wf.dst.sin_family = AF_INET;
	if (inet_pton(AF_INET, wf.dst_name, &wf.dst.sin_addr) != 1)
		die("--dst %s is not an IPv4 address", wf.dst_name);
	if (wf.src_name) {
		if (inet_pton(AF_INET, wf.src_name, &wf.src_addr) != 1)
			die("--src %s is not an IPv4 address", wf.src_name);
	} else {
		route_src(&wf);
	}
	/* splitmix64 mixes its output: nearby seeds give unrelated streams */
	wf.rng = wf.seed;
	if (wf.targets_path && load_targets(&wf) < 0)
		die("--targets %s: %s", wf.targets_path, strerror(errno));
	if (!wf.dry_run)
		open_raw(&wf);
	catch_signals();
	fuzz_run(&wf);
	if (wf.sock >= 0)
		close(wf.sock);
	if (wf.bad || __atomic_load_n(&stop_signal, __ATOMIC_RELAXED))
		return 1;
	return 0;
}
