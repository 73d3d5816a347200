// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * BTH encode/decode and header validation.
 */

#include <kunit/test.h>

#include "irn_hdr.h"
#include "irn_kunit.h"

static const struct irn_bth_fields bth_cases[] = {
	{ .opcode = IB_OPCODE_RC_SEND_ONLY, .pkey = 0xffff, .qpn = 0x11,
	  .psn = 0x123456, .ack_req = true },
	{ .opcode = IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, .se = true,
	  .mig = true, .pad = 3, .pkey = 0x8001, .qpn = 0xffffff,
	  .psn = 0xffffff, .fecn = true, .becn = true },
	{ .opcode = IB_OPCODE_RC_ACKNOWLEDGE, .qpn = 0, .psn = 0 },
	{ .opcode = IRN_OPCODE_RC_ATOMIC_WRITE, .pkey = 0xffff, .qpn = 0x12,
	  .psn = 0xabcdef, .ack_req = true },
	{ .opcode = 0xff, .tver = 0xf, .pad = 1, .qpn = 0x800000,
	  .psn = 0x800000 },
};

static void bth_case_desc(const struct irn_bth_fields *f, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode_%#x_qpn_%#x", f->opcode,
		 f->qpn);
}

KUNIT_ARRAY_PARAM(bth, bth_cases, bth_case_desc);

static void irn_test_bth_round_trip(struct kunit *test)
{
	const struct irn_bth_fields *in = test->param_value;
	struct irn_bth_fields out;
	struct irn_bth bth;

	irn_bth_encode(&bth, in);
	irn_bth_decode(&bth, &out);
	KUNIT_EXPECT_EQ(test, out.opcode, in->opcode);
	KUNIT_EXPECT_EQ(test, out.se, in->se);
	KUNIT_EXPECT_EQ(test, out.mig, in->mig);
	KUNIT_EXPECT_EQ(test, out.pad, in->pad);
	KUNIT_EXPECT_EQ(test, out.tver, in->tver);
	KUNIT_EXPECT_EQ(test, out.pkey, in->pkey);
	KUNIT_EXPECT_EQ(test, out.fecn, in->fecn);
	KUNIT_EXPECT_EQ(test, out.becn, in->becn);
	KUNIT_EXPECT_EQ(test, out.qpn, in->qpn);
	KUNIT_EXPECT_EQ(test, out.ack_req, in->ack_req);
	KUNIT_EXPECT_EQ(test, out.psn, in->psn);
}

/* The layout on the wire, byte by byte (IBTA 9.2, figure 87). */
static void irn_test_bth_wire_layout(struct kunit *test)
{
	const struct irn_bth_fields f = {
		.opcode = 0x0a, .se = true, .pad = 2, .pkey = 0xabcd,
		.becn = true, .qpn = 0x123456, .ack_req = true,
		.psn = 0x654321,
	};
	const u8 want[] = { 0x0a, 0xa0, 0xab, 0xcd, 0x40, 0x12, 0x34, 0x56,
			    0x80, 0x65, 0x43, 0x21 };
	struct irn_bth bth;

	irn_bth_encode(&bth, &f);
	KUNIT_EXPECT_EQ(test, memcmp(&bth, want, sizeof(want)), 0);
}

/* Encoding truncates oversized values to their field instead of leaking. */
static void irn_test_bth_encode_truncates(struct kunit *test)
{
	const struct irn_bth_fields f = {
		.opcode = IB_OPCODE_RC_SEND_ONLY, .pad = 7, .tver = 0x1f,
		.qpn = 0x1ffffff, .psn = 0x1000001,
	};
	struct irn_bth_fields out;
	struct irn_bth bth;

	irn_bth_encode(&bth, &f);
	irn_bth_decode(&bth, &out);
	KUNIT_EXPECT_EQ(test, out.pad, 3);
	KUNIT_EXPECT_EQ(test, out.tver, 0xf);
	KUNIT_EXPECT_EQ(test, out.qpn, 0xffffffU);
	KUNIT_EXPECT_EQ(test, out.psn, 1U);
	KUNIT_EXPECT_FALSE(test, out.fecn);
	KUNIT_EXPECT_FALSE(test, out.ack_req);
}

struct parse_case {
	const char		*name;
	u8			opcode;
	u8			tver;
	u8			pad;
	unsigned int		len;	/* BTH to end of ICRC */
	enum irn_rx_verdict	verdict;
	u32			paylen;
};

static const struct parse_case parse_cases[] = {
	{ "send_only_empty", IB_OPCODE_RC_SEND_ONLY, 0, 0, 16, IRN_RX_OK, 0 },
	{ "send_only_100", IB_OPCODE_RC_SEND_ONLY, 0, 0, 116, IRN_RX_OK, 100 },
	{ "send_last_padded", IB_OPCODE_RC_SEND_LAST, 0, 3, 116, IRN_RX_OK,
	  97 },
	{ "write_only_reth", IB_OPCODE_RC_RDMA_WRITE_ONLY, 0, 0, 32 + 64,
	  IRN_RX_OK, 64 },
	{ "read_request", IB_OPCODE_RC_RDMA_READ_REQUEST, 0, 0, 32, IRN_RX_OK,
	  0 },
	{ "atomic_ack", IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0, 0, 12 + 4 + 8 + 4,
	  IRN_RX_OK, 0 },
	{ "cmp_swap", IB_OPCODE_RC_COMPARE_SWAP, 0, 0, 12 + 28 + 4, IRN_RX_OK,
	  0 },
	{ "atomic_write", IRN_OPCODE_RC_ATOMIC_WRITE, 0, 0, 12 + 16 + 8 + 4,
	  IRN_RX_OK, 8 },
	{ "cnp", IRN_OPCODE_CNP, 0, 0, 12 + 16 + 4, IRN_RX_OK, 16 },
	{ "cnp_short", IRN_OPCODE_CNP, 0, 0, 12 + 4, IRN_RX_BAD_LENGTH, 0 },
	{ "cnp_long", IRN_OPCODE_CNP, 0, 0, 12 + 20 + 4, IRN_RX_BAD_LENGTH, 0 },
	{ "cnp_padded", IRN_OPCODE_CNP, 0, 2, 12 + 16 + 4, IRN_RX_BAD_LENGTH,
	  0 },
	{ "ud_send_imm", IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, 0, 0,
	  12 + 8 + 4 + 40 + 4, IRN_RX_OK, 40 },
	{ "send_first_full_mtu", IB_OPCODE_UC_SEND_FIRST, 0, 0, 12 + 1024 + 4,
	  IRN_RX_OK, 1024 },
	{ "shorter_than_bth", IB_OPCODE_RC_SEND_ONLY, 0, 0, 11,
	  IRN_RX_TRUNCATED },
	{ "bth_without_icrc", IB_OPCODE_RC_SEND_ONLY, 0, 0, 12,
	  IRN_RX_TRUNCATED },
	{ "reth_cut_short", IB_OPCODE_RC_RDMA_WRITE_ONLY, 0, 0, 12 + 8 + 4,
	  IRN_RX_TRUNCATED },
	{ "atmeth_cut_short", IB_OPCODE_RC_FETCH_ADD, 0, 0, 12 + 27 + 4,
	  IRN_RX_TRUNCATED },
	{ "atomic_write_reth_cut_short", IRN_OPCODE_RC_ATOMIC_WRITE, 0, 0,
	  12 + 10 + 4, IRN_RX_TRUNCATED },
	{ "pad_beyond_packet", IB_OPCODE_RC_SEND_LAST, 0, 3, 18,
	  IRN_RX_TRUNCATED },
	{ "version_1", IB_OPCODE_RC_SEND_ONLY, 1, 0, 16, IRN_RX_BAD_VERSION },
	{ "version_15", IB_OPCODE_RC_ACKNOWLEDGE, 15, 0, 20,
	  IRN_RX_BAD_VERSION },
	{ "opcode_rc_0x15", 0x15, 0, 0, 16, IRN_RX_BAD_OPCODE },
	{ "opcode_0x1f", 0x1f, 0, 0, 16, IRN_RX_BAD_OPCODE },
	{ "opcode_rc_flush", 0x1c, 0, 0, 12 + 16 + 4 + 4, IRN_RX_BAD_OPCODE },
	{ "opcode_uc_atomic_write", IB_OPCODE_UC | 0x1d, 0, 0, 12 + 16 + 8 + 4,
	  IRN_RX_BAD_OPCODE },
	{ "opcode_uc_read", IB_OPCODE_UC | IB_OPCODE_RDMA_READ_REQUEST, 0, 0,
	  32, IRN_RX_BAD_OPCODE },
	{ "opcode_rd_send", 0x44, 0, 0, 24, IRN_RX_BAD_OPCODE },
	{ "opcode_ud_write", IB_OPCODE_UD | IB_OPCODE_RDMA_WRITE_ONLY, 0, 0,
	  40, IRN_RX_BAD_OPCODE },
	{ "opcode_0xff", 0xff, 0, 0, 16, IRN_RX_BAD_OPCODE },
	{ "ack_with_payload", IB_OPCODE_RC_ACKNOWLEDGE, 0, 0, 12 + 4 + 4 + 4,
	  IRN_RX_BAD_LENGTH },
	{ "read_request_with_pad", IB_OPCODE_RC_RDMA_READ_REQUEST, 0, 1, 33,
	  IRN_RX_BAD_LENGTH },
	{ "middle_padded", IB_OPCODE_RC_SEND_MIDDLE, 0, 2, 12 + 1026 + 4,
	  IRN_RX_BAD_LENGTH },
	{ "middle_tiny", IB_OPCODE_RC_RDMA_WRITE_MIDDLE, 0, 0, 12 + 8 + 4,
	  IRN_RX_BAD_LENGTH },
	{ "first_unaligned", IB_OPCODE_RC_SEND_FIRST, 0, 0, 12 + 1023 + 4,
	  IRN_RX_BAD_LENGTH },
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void irn_test_hdr_parse(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct irn_bth_fields f = {
		.opcode = c->opcode, .tver = c->tver, .pad = c->pad,
		.qpn = 0x4242, .psn = 0x777, .pkey = 0xffff,
	};
	struct irn_pkt pkt = {};
	u8 *buf;

	buf = kunit_kzalloc(test, max(c->len, 12U), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	irn_bth_encode((struct irn_bth *)buf, &f);

	KUNIT_EXPECT_EQ(test, irn_hdr_parse(&pkt, buf, c->len), c->verdict);
	if (c->verdict != IRN_RX_OK)
		return;
	KUNIT_EXPECT_EQ(test, pkt.opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, pkt.paylen, c->paylen);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len + pkt.paylen + pkt.pad + 4, c->len);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0x4242U);
	KUNIT_EXPECT_EQ(test, pkt.psn, 0x777U);
	KUNIT_EXPECT_EQ(test, pkt.flags, irn_opcode_flags(c->opcode));
}

/* IRN's BTH bits and header: who may carry one, where it sits. */
static const struct {
	const char		*name;
	u8			opcode;
	bool			cap, ext;
	unsigned int		len;
	enum irn_rx_verdict	verdict;
	u8			ext_off;
	u8			hdr_len;
} irn_ext_cases[] = {
	{ "cap_only", IB_OPCODE_RC_SEND_ONLY, true, false, 12 + 8 + 4,
	  IRN_RX_OK, 0, 12 },
	{ "send_ixth", IB_OPCODE_RC_SEND_ONLY, true, true, 12 + 20 + 100 + 4,
	  IRN_RX_OK, 12, 32 },
	{ "write_first_ixth", IB_OPCODE_RC_RDMA_WRITE_FIRST, false, true,
	  12 + 16 + 20 + 1024 + 4, IRN_RX_OK, 28, 48 },
	{ "read_req_ixth", IB_OPCODE_RC_RDMA_READ_REQUEST, true, true,
	  12 + 16 + 20 + 4, IRN_RX_OK, 28, 48 },
	{ "atomic_write_ixth", IRN_OPCODE_RC_ATOMIC_WRITE, true, true,
	  12 + 16 + 20 + 8 + 4, IRN_RX_OK, 28, 48 },
	{ "ack_sack", IB_OPCODE_RC_ACKNOWLEDGE, true, true, 12 + 4 + 132 + 4,
	  IRN_RX_OK, 16, 148 },
	{ "ack_sack_cut_short", IB_OPCODE_RC_ACKNOWLEDGE, true, true,
	  12 + 4 + 20 + 4, IRN_RX_TRUNCATED },
	{ "ixth_cut_short", IB_OPCODE_RC_RDMA_WRITE_ONLY, true, true,
	  12 + 16 + 10 + 4, IRN_RX_TRUNCATED },
	{ "read_resp_ext", IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY, true, true,
	  12 + 4 + 20 + 4, IRN_RX_BAD_EXT },
	{ "atomic_ack_ext", IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, true, true,
	  12 + 4 + 8 + 36 + 4, IRN_RX_BAD_EXT },
	{ "uc_send_ext", IB_OPCODE_UC_SEND_ONLY, true, true, 12 + 20 + 4,
	  IRN_RX_BAD_EXT },
	{ "ud_send_ext", IB_OPCODE_UD_SEND_ONLY, true, true,
	  12 + 8 + 20 + 4, IRN_RX_BAD_EXT },
};

static void irn_test_hdr_irn_ext(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct irn_pkt pkt;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(irn_ext_cases); i++) {
		struct irn_bth_fields f = {
			.opcode = irn_ext_cases[i].opcode,
			.irn_cap = irn_ext_cases[i].cap,
			.irn_ext = irn_ext_cases[i].ext,
			.qpn = 0x17,
		};
		struct irn_bth_fields out;

		irn_bth_encode((struct irn_bth *)buf, &f);
		irn_bth_decode((struct irn_bth *)buf, &out);
		KUNIT_EXPECT_EQ(test, out.qpn, 0x17U);
		KUNIT_EXPECT_EQ(test, out.irn_cap, f.irn_cap);
		KUNIT_EXPECT_EQ(test, out.irn_ext, f.irn_ext);
		memset(&pkt, 0, sizeof(pkt));
		KUNIT_EXPECT_EQ_MSG(test, irn_hdr_parse(&pkt, buf,
							irn_ext_cases[i].len),
				    irn_ext_cases[i].verdict, "%s",
				    irn_ext_cases[i].name);
		if (irn_ext_cases[i].verdict != IRN_RX_OK)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, pkt.ext_off, irn_ext_cases[i].ext_off,
				    "%s", irn_ext_cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, pkt.hdr_len, irn_ext_cases[i].hdr_len,
				    "%s", irn_ext_cases[i].name);
		KUNIT_EXPECT_EQ(test, pkt.irn_cap, f.irn_cap);
		KUNIT_EXPECT_EQ(test, irn_bth_hdr_len((struct irn_bth *)buf),
				(unsigned int)irn_ext_cases[i].hdr_len);
	}
	/* The ICRC-masked byte is where both bits live. */
	KUNIT_EXPECT_EQ(test, IRN_BTH_IRN_CAP & ~IRN_BTH_RESV8A_MASK, 0U);
	KUNIT_EXPECT_EQ(test, IRN_BTH_IRN_EXT & ~IRN_BTH_RESV8A_MASK, 0U);
	KUNIT_EXPECT_EQ(test, IRN_BTH_IRN_DSACK & ~IRN_BTH_RESV8A_MASK, 0U);
	KUNIT_EXPECT_EQ(test, sizeof(struct irn_ixth), 20U);
	KUNIT_EXPECT_EQ(test, sizeof(struct irn_sackh), 132U);
}

/* Extended headers are found where IBTA puts them, whatever else is there. */
static void irn_test_hdr_offsets(struct kunit *test)
{
	struct irn_pkt pkt = {};

	pkt.flags = irn_opcode_flags(IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_RETH), 12U);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_IMMDT), 28U);

	pkt.flags = irn_opcode_flags(IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_AETH), 12U);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_ATMACK), 16U);

	pkt.flags = irn_opcode_flags(IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_DETH), 12U);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_IMMDT), 20U);

	pkt.flags = irn_opcode_flags(IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_IETH), 12U);

	pkt.flags = irn_opcode_flags(IRN_OPCODE_RC_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, irn_pkt_hdr_offset(&pkt, IRN_HDR_RETH), 12U);
	KUNIT_EXPECT_EQ(test,
			irn_opcode_hdr_len(IRN_OPCODE_RC_ATOMIC_WRITE), 28U);

	KUNIT_EXPECT_EQ(test,
			irn_opcode_hdr_len(IB_OPCODE_RC_COMPARE_SWAP), 40U);
	KUNIT_EXPECT_EQ(test,
			irn_opcode_hdr_len(IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE),
			12U);
	KUNIT_EXPECT_EQ(test, irn_opcode_hdr_len(0x15), 0U);
}

/*
 * An ATOMIC WRITE as a requester builds it (BTH, RETH for 8 bytes, the 8
 * bytes) parses back to the same fields: a request of its own kind, neither
 * an RDMA WRITE nor an atomic, whose RETH and payload are where the
 * responder reads them.
 */
static void irn_test_atomic_write_round_trip(struct kunit *test)
{
	const u8 value[IRN_ATOMIC_WRITE_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const struct irn_bth_fields f = {
		.opcode = IRN_OPCODE_RC_ATOMIC_WRITE, .pkey = 0xffff,
		.qpn = 0x99, .psn = 0x123, .ack_req = true,
	};
	unsigned int len = 12 + 16 + IRN_ATOMIC_WRITE_LEN + IRN_ICRC_LEN;
	struct irn_pkt pkt = {};
	struct irn_reth *reth;
	u8 *buf;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	irn_bth_encode((struct irn_bth *)buf, &f);
	reth = (struct irn_reth *)(buf + sizeof(struct irn_bth));
	reth->va = cpu_to_be64(0x7f0012345678ULL);
	reth->rkey = cpu_to_be32(0xabcd01);
	reth->len = cpu_to_be32(IRN_ATOMIC_WRITE_LEN);
	memcpy(buf + 28, value, sizeof(value));

	KUNIT_ASSERT_EQ(test, irn_hdr_parse(&pkt, buf, len), IRN_RX_OK);
	KUNIT_EXPECT_EQ(test, pkt.opcode, IRN_OPCODE_RC_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, pkt.paylen, (u32)IRN_ATOMIC_WRITE_LEN);
	KUNIT_EXPECT_EQ(test, pkt.pad, 0);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, 28);
	KUNIT_EXPECT_TRUE(test, pkt.ack_req);
	KUNIT_EXPECT_EQ(test, pkt.flags & (IRN_OP_REQ | IRN_OP_ATOMIC_WRITE |
					   IRN_OP_PAYLOAD | IRN_OP_ONLY |
					   IRN_HDR_RETH),
			(u32)(IRN_OP_REQ | IRN_OP_ATOMIC_WRITE |
			      IRN_OP_PAYLOAD | IRN_OP_ONLY | IRN_HDR_RETH));
	KUNIT_EXPECT_EQ(test, pkt.flags & (IRN_OP_WRITE | IRN_OP_ATOMIC |
					   IRN_OP_READ | IRN_OP_SEND |
					   IRN_HDR_ATMETH), 0U);
	KUNIT_EXPECT_TRUE(test, pkt.flags & IRN_OP_RD_ATOMIC);
	reth = (struct irn_reth *)(buf + irn_pkt_hdr_offset(&pkt,
							    IRN_HDR_RETH));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(reth->va), 0x7f0012345678ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(reth->rkey), 0xabcd01U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(reth->len), (u32)IRN_ATOMIC_WRITE_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(buf + pkt.hdr_len, value, sizeof(value)),
			0);
	/* An IRN QP's atomic write carries an IXTH, like any RC request. */
	KUNIT_EXPECT_EQ(test, irn_ext_len(IRN_OPCODE_RC_ATOMIC_WRITE),
			(unsigned int)sizeof(struct irn_ixth));
}

/* Every opcode is either unknown or a request xor a response. */
static void irn_test_opcode_table_sane(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		u32 flags = irn_opcode_flags(op);

		if (!flags)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, !!(flags & IRN_OP_REQ) +
				    !!(flags & IRN_OP_RESP) +
				    !!(flags & IRN_OP_CNP), 1,
				    "opcode %#x", op);
		KUNIT_EXPECT_TRUE_MSG(test, flags & (IRN_OP_FIRST |
						     IRN_OP_MIDDLE |
						     IRN_OP_LAST),
				      "opcode %#x has no position", op);
	}
}

static struct kunit_case irn_hdr_cases[] = {
	KUNIT_CASE_PARAM(irn_test_bth_round_trip, bth_gen_params),
	KUNIT_CASE(irn_test_bth_wire_layout),
	KUNIT_CASE(irn_test_bth_encode_truncates),
	KUNIT_CASE_PARAM(irn_test_hdr_parse, parse_gen_params),
	KUNIT_CASE(irn_test_hdr_offsets),
	KUNIT_CASE(irn_test_hdr_irn_ext),
	KUNIT_CASE(irn_test_atomic_write_round_trip),
	KUNIT_CASE(irn_test_opcode_table_sane),
	{}
};

struct kunit_suite irn_hdr_suite = {
	.name = "irn_hdr",
	.test_cases = irn_hdr_cases,
};
