// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ICRC: against packets stock rdma_rxe put on the wire, and the masking
 * rules that let routers rewrite some fields without breaking it.
 */

#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include "irn_compat.h"
#include "irn_hdr.h"
#include "irn_icrc.h"
#include "irn_kunit.h"
#include "irn_icrc_vectors.h"

static int skb_resource_init(struct kunit_resource *res, void *skb)
{
	res->data = skb;
	return 0;
}

static void skb_resource_free(struct kunit_resource *res)
{
	kfree_skb(res->data);
}

/*
 * An skb holding @len bytes of @pkt (IPv4 header first), laid out as the
 * receive path sees it.  With @frag_at non-zero, bytes from @frag_at on go
 * into a page fragment, as a NIC with header split would deliver them.
 */
static struct sk_buff *make_skb(struct kunit *test, const u8 *pkt,
				size_t len, size_t frag_at)
{
	size_t head = frag_at ?: len;
	struct sk_buff *skb;
	struct page *page;

	skb = alloc_skb(head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	/* Freed when the test ends, even when an assertion aborts it. */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test,
							 skb_resource_init,
							 skb_resource_free,
							 GFP_KERNEL, skb));
	skb_put_data(skb, pkt, head);
	if (frag_at) {
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), pkt + frag_at, len - frag_at);
		skb_add_rx_frag(skb, 0, page, 0, len - frag_at, PAGE_SIZE);
	}
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, ip_hdrlen(skb));
	skb->protocol = htons(ETH_P_IP);
	return skb;
}

static u32 wire_icrc(const u8 *pkt, size_t len)
{
	return get_unaligned_le32(pkt + len - IRN_ICRC_LEN);
}

static void icrc_vector_desc(const struct irn_icrc_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc_vector, irn_icrc_vectors, icrc_vector_desc);

/* The ICRC irn computes is the one stock rxe sent. */
static void irn_test_icrc_matches_rxe(struct kunit *test)
{
	const struct irn_icrc_vector *v = test->param_value;
	struct sk_buff *skb = make_skb(test, v->pkt, v->len, 0);

	KUNIT_EXPECT_EQ(test, irn_icrc_compute(skb), wire_icrc(v->pkt, v->len));
	KUNIT_EXPECT_TRUE(test, irn_icrc_valid(skb));
}

/* Payload split across a page fragment gives the same ICRC. */
static void irn_test_icrc_fragmented(struct kunit *test)
{
	const struct irn_icrc_vector *v = &irn_icrc_vectors[0];
	size_t split;

	for (split = 20 + 8 + 12 + 1; split < v->len; split += 7) {
		struct sk_buff *skb = make_skb(test, v->pkt, v->len, split);

		KUNIT_EXPECT_TRUE_MSG(test, irn_icrc_valid(skb),
				      "split at %zu", split);
	}
}

struct mutation {
	const char	*name;
	size_t		offset;		/* from the IPv4 header */
	u8		xor;
	bool		covered;	/* does the ICRC protect this byte */
};

static const struct mutation mutations[] = {
	{ "ipv4_tos",		1,  0xfc, false },
	{ "ipv4_ttl",		8,  0x3f, false },
	{ "ipv4_checksum",	10, 0x5a, false },
	{ "udp_checksum",	26, 0x12, false },
	{ "bth_fecn_becn",	32, 0xc0, false },
	{ "ipv4_total_length",	3,  0x01, true },
	{ "ipv4_id",		5,  0x80, true },
	{ "ipv4_daddr",		19, 0x01, true },
	{ "udp_sport",		21, 0x01, true },
	{ "bth_opcode",		28, 0x01, true },
	{ "bth_pkey",		31, 0x01, true },
	{ "bth_dest_qp",	35, 0x01, true },
	{ "bth_psn",		39, 0x01, true },
	{ "first_after_bth",	40, 0x80, true },
	{ "icrc_itself",	0,  0x01, true },	/* offset 0: last byte */
};

static void mutation_desc(const struct mutation *m, char *desc)
{
	strscpy(desc, m->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mutation, mutations, mutation_desc);

/* Routers may rewrite masked fields; anything else breaks the ICRC. */
static void irn_test_icrc_masking(struct kunit *test)
{
	const struct irn_icrc_vector *v = &irn_icrc_vectors[0];
	const struct mutation *m = test->param_value;
	size_t off = m->offset ?: v->len - 1;
	struct sk_buff *skb;
	u8 *pkt;

	KUNIT_ASSERT_LT(test, off, v->len);
	pkt = kunit_kmalloc(test, v->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	memcpy(pkt, v->pkt, v->len);
	pkt[off] ^= m->xor;

	skb = make_skb(test, pkt, v->len, 0);
	KUNIT_EXPECT_EQ(test, irn_icrc_valid(skb), !m->covered);
}

/* The seed stands for 8 bytes of ones in place of the LRH (IBTA A17). */
static void irn_test_icrc_seed(struct kunit *test)
{
	static const u8 ones[8] = { 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff };
	const struct irn_icrc_vector *v = &irn_icrc_vectors[0];
	size_t body = v->len - IRN_ICRC_LEN;
	u8 *masked;
	u32 crc;

	/* Recompute the first vector the long way: LRH, masked fields, rest. */
	masked = kunit_kmalloc(test, body, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, masked);
	memcpy(masked, v->pkt, body);
	masked[1] = 0xff;			/* TOS */
	masked[8] = 0xff;			/* TTL */
	masked[10] = 0xff;			/* checksum */
	masked[11] = 0xff;
	masked[26] = 0xff;			/* UDP checksum */
	masked[27] = 0xff;
	masked[32] = 0xff;			/* BTH resv8a */
	crc = crc32_le(~0U, ones, sizeof(ones));
	crc = crc32_le(crc, masked, body);
	KUNIT_EXPECT_EQ(test, ~crc, wire_icrc(v->pkt, v->len));
}

/* irn_icrc_fill() writes what irn_icrc_valid() accepts. */
static void irn_test_icrc_fill(struct kunit *test)
{
	const struct irn_icrc_vector *v = &irn_icrc_vectors[0];
	struct sk_buff *skb = make_skb(test, v->pkt, v->len, 0);

	memset(skb_tail_pointer(skb) - IRN_ICRC_LEN, 0, IRN_ICRC_LEN);
	KUNIT_EXPECT_FALSE(test, irn_icrc_valid(skb));
	irn_icrc_fill(skb);
	KUNIT_EXPECT_TRUE(test, irn_icrc_valid(skb));
	KUNIT_EXPECT_EQ(test, memcmp(skb->data, v->pkt, v->len), 0);
}

static struct kunit_case irn_icrc_cases[] = {
	KUNIT_CASE_PARAM(irn_test_icrc_matches_rxe, icrc_vector_gen_params),
	KUNIT_CASE(irn_test_icrc_fragmented),
	KUNIT_CASE_PARAM(irn_test_icrc_masking, mutation_gen_params),
	KUNIT_CASE(irn_test_icrc_seed),
	KUNIT_CASE(irn_test_icrc_fill),
	{}
};

struct kunit_suite irn_icrc_suite = {
	.name = "irn_icrc",
	.test_cases = irn_icrc_cases,
};
