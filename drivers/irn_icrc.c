// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCEv2 invariant CRC (IBTA Annex A17.3.3).
 *
 * The ICRC is CRC-32 (the reflected Ethernet polynomial, i.e. crc32_le) over
 * the packet from the IP header to the end of the payload and pad, with the
 * fields a router may change replaced by ones:
 *
 *  - IPv4: type of service, TTL and header checksum;
 *  - IPv6: traffic class, flow label and hop limit;
 *  - UDP: checksum;
 *  - BTH: the reserved byte holding FECN and BECN.
 *
 * InfiniBand also covers 8 bytes of (masked) LRH in front, which RoCEv2
 * lacks; IBTA replaces them by 8 bytes of ones, which is where the seed
 * comes from.  The result is inverted and sent least significant byte
 * first.
 *
 * The payload may sit in page fragments: __skb_checksum() walks them with
 * crc32_le as its update function, so receive never linearises.
 */

#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <kunit/visibility.h>

#include "irn_compat.h"
#include "irn_hdr.h"
#include "irn_icrc.h"

/* crc32_le(~0, 8 bytes of 0xff): the CRC state after the absent LRH. */
#define IRN_ICRC_SEED	0xdebb20e3U

static __wsum icrc_update(const void *mem, int len, __wsum crc)
{
	return (__force __wsum)crc32_le((__force u32)crc, mem, len);
}

static __wsum icrc_combine(__wsum crc, __wsum crc2, int offset, int len)
{
	return (__force __wsum)crc32_le_combine((__force u32)crc,
						(__force u32)crc2, len);
}

static const struct skb_checksum_ops icrc_ops = {
	.update		= icrc_update,
	.combine	= icrc_combine,
};

static u32 icrc_ipv4(u32 crc, const struct iphdr *ip)
{
	struct iphdr masked = *ip;

	masked.tos = 0xff;
	masked.ttl = 0xff;
	masked.check = (__force __sum16)0xffff;
	return crc32_le(crc, (const u8 *)&masked, sizeof(masked));
}

static u32 icrc_ipv6(u32 crc, const struct ipv6hdr *ip6)
{
	struct ipv6hdr masked = *ip6;

	masked.priority = 0xf;
	memset(masked.flow_lbl, 0xff, sizeof(masked.flow_lbl));
	masked.hop_limit = 0xff;
	return crc32_le(crc, (const u8 *)&masked, sizeof(masked));
}

/**
 * irn_icrc_compute() - ICRC a RoCEv2 packet should carry
 * @skb: packet with its network and transport (UDP) header offsets set; the
 *	 IP, UDP and BTH headers are linear and the packet ends with the 4
 *	 ICRC bytes at skb->len
 *
 * IPv4 headers with options are not RoCEv2 and must be refused before.
 *
 * Context: any.
 * Return: the ICRC in host order, as it is stored little-endian on the wire.
 */
u32 irn_icrc_compute(const struct sk_buff *skb)
{
	struct udphdr uh = *udp_hdr(skb);
	struct irn_bth bth;
	int bth_off = skb_transport_offset(skb) + sizeof(struct udphdr);
	int rest_off = bth_off + sizeof(struct irn_bth);
	u32 crc = IRN_ICRC_SEED;

	if (ip_hdr(skb)->version == 4)
		crc = icrc_ipv4(crc, ip_hdr(skb));
	else
		crc = icrc_ipv6(crc, ipv6_hdr(skb));

	uh.check = (__force __sum16)0xffff;
	crc = crc32_le(crc, (const u8 *)&uh, sizeof(uh));

	memcpy(&bth, skb->data + bth_off, sizeof(bth));
	bth.qpn |= cpu_to_be32(IRN_BTH_RESV8A_MASK);
	crc = crc32_le(crc, (const u8 *)&bth, sizeof(bth));

	crc = (__force u32)__skb_checksum(skb, rest_off,
					  skb->len - rest_off - IRN_ICRC_LEN,
					  (__force __wsum)crc, &icrc_ops);
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(irn_icrc_compute);

/**
 * irn_icrc_valid() - does a received packet carry the right ICRC
 * @skb: as for irn_icrc_compute()
 *
 * Context: any.
 * Return: true if the trailing 4 bytes match.
 */
bool irn_icrc_valid(const struct sk_buff *skb)
{
	__le32 wire;

	if (skb_copy_bits(skb, skb->len - IRN_ICRC_LEN, &wire, sizeof(wire)))
		return false;
	return le32_to_cpu(wire) == irn_icrc_compute(skb);
}
EXPORT_SYMBOL_IF_KUNIT(irn_icrc_valid);

/**
 * irn_icrc_fill() - write the ICRC into the last 4 bytes of a packet
 * @skb: as for irn_icrc_compute(), fully linear at the tail
 *
 * Context: any.
 */
void irn_icrc_fill(struct sk_buff *skb)
{
	put_unaligned_le32(irn_icrc_compute(skb),
			   skb_tail_pointer(skb) - IRN_ICRC_LEN);
}
EXPORT_SYMBOL_IF_KUNIT(irn_icrc_fill);
