// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCEv2 transport headers: the opcode table, BTH encode/decode, the
 * validation every received packet goes through before anything else looks
 * at it, and the IB MTU whose packets a netdev's MTU has room for.
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <asm/byteorder.h>
#include <kunit/visibility.h>

#include "irn_hdr.h"

struct irn_opcode_info {
	const char	*name;
	u32		flags;
};

#define SEND_FIRST	(IRN_OP_REQ | IRN_OP_SEND | IRN_OP_PAYLOAD | IRN_OP_FIRST)
#define SEND_MIDDLE	(IRN_OP_REQ | IRN_OP_SEND | IRN_OP_PAYLOAD | IRN_OP_MIDDLE)
#define SEND_LAST	(IRN_OP_REQ | IRN_OP_SEND | IRN_OP_PAYLOAD | IRN_OP_LAST)
#define SEND_ONLY	(IRN_OP_REQ | IRN_OP_SEND | IRN_OP_PAYLOAD | IRN_OP_ONLY)
#define WRITE_FIRST	(IRN_OP_REQ | IRN_OP_WRITE | IRN_OP_PAYLOAD | IRN_OP_FIRST)
#define WRITE_MIDDLE	(IRN_OP_REQ | IRN_OP_WRITE | IRN_OP_PAYLOAD | IRN_OP_MIDDLE)
#define WRITE_LAST	(IRN_OP_REQ | IRN_OP_WRITE | IRN_OP_PAYLOAD | IRN_OP_LAST)
#define WRITE_ONLY	(IRN_OP_REQ | IRN_OP_WRITE | IRN_OP_PAYLOAD | IRN_OP_ONLY)
#define READ_RESP	(IRN_OP_RESP | IRN_OP_READ | IRN_OP_PAYLOAD)

/* Operations RC and UC share: sends and RDMA writes, opcodes 0x00..0x0b. */
#define IRN_CONNECTED_OPS(t)						\
	[IB_OPCODE_ ## t ## _SEND_FIRST] = {				\
		#t "_SEND_FIRST", SEND_FIRST },				\
	[IB_OPCODE_ ## t ## _SEND_MIDDLE] = {				\
		#t "_SEND_MIDDLE", SEND_MIDDLE },			\
	[IB_OPCODE_ ## t ## _SEND_LAST] = {				\
		#t "_SEND_LAST", SEND_LAST },				\
	[IB_OPCODE_ ## t ## _SEND_LAST_WITH_IMMEDIATE] = {		\
		#t "_SEND_LAST_WITH_IMMEDIATE",				\
		SEND_LAST | IRN_HDR_IMMDT },				\
	[IB_OPCODE_ ## t ## _SEND_ONLY] = {				\
		#t "_SEND_ONLY", SEND_ONLY },				\
	[IB_OPCODE_ ## t ## _SEND_ONLY_WITH_IMMEDIATE] = {		\
		#t "_SEND_ONLY_WITH_IMMEDIATE",				\
		SEND_ONLY | IRN_HDR_IMMDT },				\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_FIRST] = {			\
		#t "_RDMA_WRITE_FIRST", WRITE_FIRST | IRN_HDR_RETH },	\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_MIDDLE] = {			\
		#t "_RDMA_WRITE_MIDDLE", WRITE_MIDDLE },		\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_LAST] = {			\
		#t "_RDMA_WRITE_LAST", WRITE_LAST },			\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_LAST_WITH_IMMEDIATE] = {	\
		#t "_RDMA_WRITE_LAST_WITH_IMMEDIATE",			\
		WRITE_LAST | IRN_HDR_IMMDT },				\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_ONLY] = {			\
		#t "_RDMA_WRITE_ONLY", WRITE_ONLY | IRN_HDR_RETH },	\
	[IB_OPCODE_ ## t ## _RDMA_WRITE_ONLY_WITH_IMMEDIATE] = {	\
		#t "_RDMA_WRITE_ONLY_WITH_IMMEDIATE",			\
		WRITE_ONLY | IRN_HDR_RETH | IRN_HDR_IMMDT }

static const struct irn_opcode_info irn_opcodes[256] = {
	IRN_CONNECTED_OPS(RC),
	[IB_OPCODE_RC_RDMA_READ_REQUEST] = {
		"RC_RDMA_READ_REQUEST",
		IRN_OP_REQ | IRN_OP_READ | IRN_OP_ONLY | IRN_HDR_RETH },
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST] = {
		"RC_RDMA_READ_RESPONSE_FIRST",
		READ_RESP | IRN_OP_FIRST | IRN_HDR_AETH },
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE] = {
		"RC_RDMA_READ_RESPONSE_MIDDLE", READ_RESP | IRN_OP_MIDDLE },
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST] = {
		"RC_RDMA_READ_RESPONSE_LAST",
		READ_RESP | IRN_OP_LAST | IRN_HDR_AETH },
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY] = {
		"RC_RDMA_READ_RESPONSE_ONLY",
		READ_RESP | IRN_OP_ONLY | IRN_HDR_AETH },
	[IB_OPCODE_RC_ACKNOWLEDGE] = {
		"RC_ACKNOWLEDGE",
		IRN_OP_RESP | IRN_OP_ACK | IRN_OP_ONLY | IRN_HDR_AETH },
	[IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE] = {
		"RC_ATOMIC_ACKNOWLEDGE",
		IRN_OP_RESP | IRN_OP_ATOMIC | IRN_OP_ONLY |
		IRN_HDR_AETH | IRN_HDR_ATMACK },
	[IB_OPCODE_RC_COMPARE_SWAP] = {
		"RC_COMPARE_SWAP",
		IRN_OP_REQ | IRN_OP_ATOMIC | IRN_OP_ONLY | IRN_HDR_ATMETH },
	[IB_OPCODE_RC_FETCH_ADD] = {
		"RC_FETCH_ADD",
		IRN_OP_REQ | IRN_OP_ATOMIC | IRN_OP_ONLY | IRN_HDR_ATMETH },
	[IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE] = {
		"RC_SEND_LAST_WITH_INVALIDATE", SEND_LAST | IRN_HDR_IETH },
	[IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE] = {
		"RC_SEND_ONLY_WITH_INVALIDATE", SEND_ONLY | IRN_HDR_IETH },
	/* its 8 bytes are a payload, a single packet's */
	[IRN_OPCODE_RC_ATOMIC_WRITE] = {
		"RC_ATOMIC_WRITE",
		IRN_OP_REQ | IRN_OP_ATOMIC_WRITE | IRN_OP_PAYLOAD | IRN_OP_ONLY |
		IRN_HDR_RETH },

	IRN_CONNECTED_OPS(UC),

	[IB_OPCODE_UD_SEND_ONLY] = {
		"UD_SEND_ONLY", SEND_ONLY | IRN_HDR_DETH },
	[IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE] = {
		"UD_SEND_ONLY_WITH_IMMEDIATE",
		SEND_ONLY | IRN_HDR_DETH | IRN_HDR_IMMDT },

	/* its 16 reserved bytes are its payload */
	[IRN_OPCODE_CNP] = {
		"CNP", IRN_OP_CNP | IRN_OP_PAYLOAD | IRN_OP_ONLY },
};

/* Size of each extended header, indexed by its IRN_HDR_* bit number. */
static const u8 irn_ext_hdr_len[] = {
	sizeof(struct irn_rdeth),
	sizeof(struct irn_deth),
	sizeof(struct irn_reth),
	sizeof(struct irn_atmeth),
	sizeof(struct irn_aeth),
	sizeof(struct irn_atmack),
	sizeof(struct irn_immdt),
	sizeof(struct irn_ieth),
};

static unsigned int ext_hdrs_len(u32 hdrs)
{
	unsigned int len = 0;
	unsigned long bits = hdrs & IRN_HDR_ALL;
	unsigned int bit;

	for_each_set_bit(bit, &bits, ARRAY_SIZE(irn_ext_hdr_len))
		len += irn_ext_hdr_len[bit];
	return len;
}

/**
 * irn_opcode_flags() - enum irn_op_flags of a BTH opcode
 * @opcode: BTH opcode
 *
 * Context: any.
 * Return: the flags, or 0 for an opcode irn does not speak.
 */
u32 irn_opcode_flags(u8 opcode)
{
	return irn_opcodes[opcode].flags;
}
EXPORT_SYMBOL_IF_KUNIT(irn_opcode_flags);

/**
 * irn_opcode_name() - printable name of a BTH opcode
 * @opcode: BTH opcode
 *
 * Context: any.
 * Return: a static string; "UNKNOWN" for opcodes irn does not speak.
 */
const char *irn_opcode_name(u8 opcode)
{
	return irn_opcodes[opcode].name ?: "UNKNOWN";
}

/**
 * irn_opcode_hdr_len() - BTH plus extended headers of an opcode
 * @opcode: BTH opcode
 *
 * Context: any.
 * Return: the length in bytes, or 0 for an opcode irn does not speak.
 */
unsigned int irn_opcode_hdr_len(u8 opcode)
{
	u32 flags = irn_opcodes[opcode].flags;

	return flags ? sizeof(struct irn_bth) + ext_hdrs_len(flags) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_opcode_hdr_len);

/**
 * irn_ext_len() - size of the IRN header an opcode may carry
 * @opcode: BTH opcode
 *
 * RC requests carry a struct irn_ixth, RC ACKs a struct irn_sackh; no
 * other opcode carries either.
 *
 * Context: any.
 * Return: the size in bytes, 0 if @opcode cannot carry one.
 */
unsigned int irn_ext_len(u8 opcode)
{
	u32 flags = irn_opcodes[opcode].flags;

	if (opcode >> 5 != IRN_CLASS_RC)
		return 0;
	if (flags & IRN_OP_REQ)
		return sizeof(struct irn_ixth);
	if (opcode == IB_OPCODE_RC_ACKNOWLEDGE)
		return sizeof(struct irn_sackh);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(irn_ext_len);

/**
 * irn_bth_hdr_len() - all headers of a packet, as its BTH announces them
 * @bth: the packet's BTH
 *
 * Context: any.
 * Return: BTH, extended and IRN headers in bytes; 0 for an unknown opcode.
 */
unsigned int irn_bth_hdr_len(const struct irn_bth *bth)
{
	unsigned int len = irn_opcode_hdr_len(bth->opcode);

	if (len && (be32_to_cpu(bth->qpn) & IRN_BTH_IRN_EXT))
		len += irn_ext_len(bth->opcode);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(irn_bth_hdr_len);

/**
 * irn_pkt_hdr_offset() - where an extended header starts
 * @pkt: parsed packet
 * @hdr: one IRN_HDR_* bit, which must be present in @pkt->flags
 *
 * Context: any.
 * Return: offset of the header from the start of the BTH.
 */
unsigned int irn_pkt_hdr_offset(const struct irn_pkt *pkt, u32 hdr)
{
	return sizeof(struct irn_bth) + ext_hdrs_len(pkt->flags & (hdr - 1));
}
EXPORT_SYMBOL_IF_KUNIT(irn_pkt_hdr_offset);

/**
 * irn_bth_encode() - write a BTH from host-order fields
 * @bth: destination
 * @f: fields; out-of-range values are truncated to their field width
 *
 * Context: any.
 */
void irn_bth_encode(struct irn_bth *bth, const struct irn_bth_fields *f)
{
	u32 qpn = f->qpn & IRN_BTH_QPN_MASK;
	u32 apsn = f->psn & IRN_BTH_PSN_MASK;

	bth->opcode = f->opcode;
	bth->flags = (f->se ? IRN_BTH_SE : 0) | (f->mig ? IRN_BTH_MIG : 0) |
		     ((f->pad << IRN_BTH_PAD_SHIFT) & IRN_BTH_PAD_MASK) |
		     (f->tver & IRN_BTH_TVER_MASK);
	bth->pkey = cpu_to_be16(f->pkey);
	if (f->fecn)
		qpn |= IRN_BTH_FECN;
	if (f->becn)
		qpn |= IRN_BTH_BECN;
	if (f->irn_cap)
		qpn |= IRN_BTH_IRN_CAP;
	if (f->irn_ext)
		qpn |= IRN_BTH_IRN_EXT;
	if (f->irn_dsack)
		qpn |= IRN_BTH_IRN_DSACK;
	bth->qpn = cpu_to_be32(qpn);
	if (f->ack_req)
		apsn |= IRN_BTH_ACKREQ;
	bth->apsn = cpu_to_be32(apsn);
}
EXPORT_SYMBOL_IF_KUNIT(irn_bth_encode);

/**
 * irn_bth_decode() - read a BTH into host-order fields
 * @bth: source
 * @f: destination
 *
 * Context: any.
 */
void irn_bth_decode(const struct irn_bth *bth, struct irn_bth_fields *f)
{
	u32 qpn = be32_to_cpu(bth->qpn);
	u32 apsn = be32_to_cpu(bth->apsn);

	f->opcode = bth->opcode;
	f->se = bth->flags & IRN_BTH_SE;
	f->mig = bth->flags & IRN_BTH_MIG;
	f->pad = (bth->flags & IRN_BTH_PAD_MASK) >> IRN_BTH_PAD_SHIFT;
	f->tver = bth->flags & IRN_BTH_TVER_MASK;
	f->pkey = be16_to_cpu(bth->pkey);
	f->fecn = qpn & IRN_BTH_FECN;
	f->becn = qpn & IRN_BTH_BECN;
	f->irn_cap = qpn & IRN_BTH_IRN_CAP;
	f->irn_ext = qpn & IRN_BTH_IRN_EXT;
	f->irn_dsack = qpn & IRN_BTH_IRN_DSACK;
	f->qpn = qpn & IRN_BTH_QPN_MASK;
	f->ack_req = apsn & IRN_BTH_ACKREQ;
	f->psn = apsn & IRN_BTH_PSN_MASK;
}
EXPORT_SYMBOL_IF_KUNIT(irn_bth_decode);

/* Payload rules per opcode (IBTA 9.6.1.x): what sizes are possible at all. */
static bool payload_len_ok(u32 flags, unsigned int paylen, u8 pad)
{
	if (flags & IRN_OP_CNP)
		return paylen == IRN_CNP_RSVD_LEN && pad == 0;
	if (!(flags & IRN_OP_PAYLOAD))
		return paylen == 0 && pad == 0;
	/* Pad only exists to round a message's last payload up to 4 bytes. */
	if (pad && !(flags & IRN_OP_LAST))
		return false;
	/* FIRST and MIDDLE packets are full path-MTU packets, never empty. */
	if ((flags & (IRN_OP_FIRST | IRN_OP_MIDDLE)) && !(flags & IRN_OP_LAST))
		return paylen >= ib_mtu_enum_to_int(IB_MTU_256) && !(paylen & 3);
	return true;
}

/**
 * irn_hdr_parse() - validate the transport headers of a received packet
 * @pkt: filled in on success
 * @bth: the packet from its BTH onwards; at least @len bytes of headers
 *	 are readable (payload bytes need not be)
 * @len: bytes from the start of the BTH to the end of the ICRC
 *
 * Checks what can be checked without knowing the QP: transport version,
 * opcode, header and pad lengths.  The caller has already made the BTH and
 * extended headers linear, as far as @len allows.
 *
 * Context: any.
 * Return: IRN_RX_OK, or why the packet must be dropped.
 */
enum irn_rx_verdict irn_hdr_parse(struct irn_pkt *pkt, const void *bth,
				  unsigned int len)
{
	struct irn_bth_fields f;
	unsigned int hdr_len;
	u32 flags;

	if (len < sizeof(struct irn_bth) + IRN_ICRC_LEN)
		return IRN_RX_TRUNCATED;
	irn_bth_decode(bth, &f);
	if (f.tver)
		return IRN_RX_BAD_VERSION;
	flags = irn_opcode_flags(f.opcode);
	if (!flags)
		return IRN_RX_BAD_OPCODE;
	hdr_len = irn_opcode_hdr_len(f.opcode);
	pkt->ext_off = 0;
	if (f.irn_ext) {
		if (!irn_ext_len(f.opcode))
			return IRN_RX_BAD_EXT;
		pkt->ext_off = hdr_len;
		hdr_len += irn_ext_len(f.opcode);
	}
	if (len < hdr_len + f.pad + IRN_ICRC_LEN)
		return IRN_RX_TRUNCATED;

	pkt->paylen = len - hdr_len - f.pad - IRN_ICRC_LEN;
	if (!payload_len_ok(flags, pkt->paylen, f.pad))
		return IRN_RX_BAD_LENGTH;

	pkt->flags = flags;
	pkt->opcode = f.opcode;
	pkt->hdr_len = hdr_len;
	pkt->pad = f.pad;
	pkt->bth_flags = ((const struct irn_bth *)bth)->flags;
	pkt->pkey = f.pkey;
	pkt->ack_req = f.ack_req;
	pkt->becn = f.becn;
	pkt->irn_cap = f.irn_cap;
	pkt->dsack = f.irn_dsack && pkt->ext_off &&
		     f.opcode == IB_OPCODE_RC_ACKNOWLEDGE;
	pkt->qpn = f.qpn;
	pkt->psn = f.psn;
	return IRN_RX_OK;
}
EXPORT_SYMBOL_IF_KUNIT(irn_hdr_parse);

/**
 * irn_mtu_from_netdev() - IB MTU usable on a netdev
 * @ndev_mtu: the netdev's MTU
 *
 * Context: any.
 * Return: the largest IB MTU whose packets fit, at least IB_MTU_256.
 */
enum ib_mtu irn_mtu_from_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + IRN_MTU_HEADROOM <= ndev_mtu)
			break;
	return mtu;
}
