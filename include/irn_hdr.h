/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 transport headers: wire layouts, the opcode table and the parsed
 * form of a received packet.
 *
 * Every field on the wire is big-endian and declared __be so that sparse
 * catches a missing conversion.  Nothing here touches a device or a QP: this
 * is the bottom layer of the driver and is tested on its own by KUnit.
 */
#ifndef _IRN_HDR_H
#define _IRN_HDR_H

#include <linux/types.h>
#include <linux/build_bug.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

/* Base Transport Header, 12 bytes. */
struct irn_bth {
	u8	opcode;
	u8	flags;		/* SE:1 M:1 PadCnt:2 TVer:4 */
	__be16	pkey;
	__be32	qpn;		/* FECN:1 BECN:1 resv6:6 DestQP:24 */
	__be32	apsn;		/* AckReq:1 resv7:7 PSN:24 */
};

#define IRN_BTH_SE		0x80
#define IRN_BTH_MIG		0x40
#define IRN_BTH_PAD_SHIFT	4
#define IRN_BTH_PAD_MASK	0x30
#define IRN_BTH_TVER_MASK	0x0f
#define IRN_BTH_FECN		0x80000000U
#define IRN_BTH_BECN		0x40000000U
#define IRN_BTH_RESV8A_MASK	0xff000000U
/*
 * IRN uses two of the six reserved bits after FECN/BECN; stock RoCEv2
 * transmits them as 0 and ignores them on receipt, and the ICRC masks them.
 * Documentation/wire-format.rst has the whole story.
 */
#define IRN_BTH_IRN_CAP		0x20000000U	/* sender speaks IRN */
#define IRN_BTH_IRN_EXT		0x10000000U	/* an IRN header follows */
#define IRN_BTH_IRN_DSACK	0x08000000U	/* ACK of a duplicate request */
#define IRN_BTH_QPN_MASK	0x00ffffffU
#define IRN_BTH_ACKREQ		0x80000000U
#define IRN_BTH_PSN_MASK	0x00ffffffU

/* Extended headers, in the order they appear on the wire. */
struct irn_rdeth {
	__be32	een;
};

struct irn_deth {
	__be32	qkey;
	__be32	sqp;		/* resv8:8 SrcQP:24 */
};

struct irn_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

struct irn_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

struct irn_aeth {
	__be32	smsn;		/* Syndrome:8 MSN:24 */
};

struct irn_atmack {
	__be64	orig;
} __packed;

struct irn_immdt {
	__be32	imm;
};

struct irn_ieth {
	__be32	rkey;
};

/*
 * IRN extended transport header: after the standard extended headers of
 * every request of an IRN QP, so that any packet can be placed on its own.
 * @va and @rkey are the write target of this packet's payload; @offset is
 * its byte offset within the message; @rsn numbers the messages that
 * consume a receive WQE (sends and writes with immediate).
 */
struct irn_ixth {
	__be64	va;
	__be32	rkey;
	__be32	offset;
	__be32	rsn;
} __packed;

/*
 * IRN selective acknowledgment: after the AETH of an ACK.  The BTH PSN
 * acknowledges everything before @base (the oldest PSN missing); bit i of
 * @bits (word i / 32, bit i % 32) says PSN @base + 1 + i has arrived.
 * The bitmap spans a responder's whole window (twice the largest cap):
 * a narrower one hides what arrived beyond it, and the sender would count
 * those packets in flight until the hole is filled.
 */
#define IRN_SACK_BITS	1024

struct irn_sackh {
	__be32	base;
	__be32	bits[IRN_SACK_BITS / 32];
};

#define IRN_ICRC_LEN	4

/*
 * IB MTU for a netdev MTU: the largest IB MTU that fits once IPv6, UDP,
 * BTH, the largest extended header a data packet carries (RETH) and ICRC
 * are added.  Stock rxe uses the same headroom, so both pick the same MTU.
 */
#define IRN_MTU_HEADROOM	80

/*
 * RoCEv2 Congestion Notification Packet (IBTA annex A17): BTH opcode
 * 0x81 with BECN set, to the QP whose packets arrived marked CE, then 16
 * reserved bytes and the ICRC.
 */
#define IRN_OPCODE_CNP	0x81
#define IRN_CNP_RSVD_LEN	16

/*
 * RC ATOMIC WRITE (IBTA 1.5): a RETH for 8 bytes, then those 8 bytes as
 * payload, stored at once; answered like a read, by an empty RDMA READ
 * Response Only.  The kernel's name for it (IB_OPCODE_RC_ATOMIC_WRITE)
 * arrived in 6.2; the wire value is the standard's.
 */
#define IRN_OPCODE_RC_ATOMIC_WRITE	(IB_OPCODE_RC | 0x1d)
#define IRN_ATOMIC_WRITE_LEN		8

/*
 * Per-opcode flags.  The IRN_HDR_* bits name the extended headers present;
 * their numeric order is their order on the wire, which is how
 * irn_pkt_hdr_offset() finds them.
 */
enum irn_op_flags {
	IRN_HDR_RDETH	= BIT(0),
	IRN_HDR_DETH	= BIT(1),
	IRN_HDR_RETH	= BIT(2),
	IRN_HDR_ATMETH	= BIT(3),
	IRN_HDR_AETH	= BIT(4),
	IRN_HDR_ATMACK	= BIT(5),
	IRN_HDR_IMMDT	= BIT(6),
	IRN_HDR_IETH	= BIT(7),
	IRN_HDR_ALL	= GENMASK(7, 0),

	IRN_OP_PAYLOAD	= BIT(8),	/* carries (possibly empty) payload */
	IRN_OP_REQ	= BIT(9),	/* requester to responder */
	IRN_OP_RESP	= BIT(10),	/* responder to requester */
	IRN_OP_FIRST	= BIT(11),
	IRN_OP_MIDDLE	= BIT(12),
	IRN_OP_LAST	= BIT(13),
	IRN_OP_SEND	= BIT(14),
	IRN_OP_WRITE	= BIT(15),
	IRN_OP_READ	= BIT(16),
	IRN_OP_ATOMIC	= BIT(17),
	IRN_OP_ACK	= BIT(18),
	IRN_OP_CNP	= BIT(19),	/* congestion notification */
	IRN_OP_ATOMIC_WRITE = BIT(20),
};

/*
 * Requests the responder executes in order and keeps as a responder
 * resource, and answers with a reply rather than an acknowledgment.
 */
#define IRN_OP_RD_ATOMIC	(IRN_OP_READ | IRN_OP_ATOMIC | IRN_OP_ATOMIC_WRITE)

#define IRN_OP_ONLY	(IRN_OP_FIRST | IRN_OP_LAST)

/* Transport class of an opcode: bits 7:5 of the opcode byte. */
enum irn_op_class {
	IRN_CLASS_RC = IB_OPCODE_RC >> 5,
	IRN_CLASS_UC = IB_OPCODE_UC >> 5,
	IRN_CLASS_UD = IB_OPCODE_UD >> 5,
};

/**
 * struct irn_pkt - a received packet after irn_hdr_parse()
 * @flags: enum irn_op_flags of @opcode
 * @opcode: BTH opcode
 * @hdr_len: BTH plus extended headers, in bytes
 * @pad: BTH pad count
 * @bth_flags: BTH SE/M/pad/TVer byte
 * @pkey: partition key
 * @qpn: destination QP number
 * @psn: packet sequence number
 * @ack_req: BTH AckReq bit
 * @becn: BTH BECN bit (congestion seen by the peer's receiver)
 * @irn_cap: the sender speaks IRN
 * @dsack: an ACK answering a request the responder already had
 * @ext_off: offset of the IRN header (struct irn_ixth or irn_sackh) from
 *	     the BTH, 0 if there is none; @hdr_len includes it
 * @paylen: payload bytes, pad and ICRC excluded
 *
 * Kept in skb->cb, so it must fit in 48 bytes.
 */
struct irn_pkt {
	u32	flags;
	u8	opcode;
	u8	hdr_len;
	u8	pad;
	u8	bth_flags;
	u16	pkey;
	bool	ack_req;
	bool	becn;
	bool	irn_cap;
	bool	dsack;
	u8	ext_off;
	u32	qpn;
	u32	psn;
	u32	paylen;
};

static inline struct irn_pkt *irn_skb_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct irn_pkt) > sizeof_field(struct sk_buff, cb));
	return (struct irn_pkt *)skb->cb;
}

/**
 * enum irn_rx_verdict - what header validation decided about a packet
 * @IRN_RX_OK: headers are well formed
 * @IRN_RX_TRUNCATED: shorter than its opcode's headers, pad and ICRC
 * @IRN_RX_BAD_VERSION: BTH transport version is not 0
 * @IRN_RX_BAD_OPCODE: opcode that RoCEv2 does not define or irn does not speak
 * @IRN_RX_BAD_LENGTH: payload length impossible for the opcode
 * @IRN_RX_BAD_EXT: IRN header on an opcode that cannot carry one
 */
enum irn_rx_verdict {
	IRN_RX_OK,
	IRN_RX_TRUNCATED,
	IRN_RX_BAD_VERSION,
	IRN_RX_BAD_OPCODE,
	IRN_RX_BAD_LENGTH,
	IRN_RX_BAD_EXT,
};

/**
 * struct irn_bth_fields - the BTH in host order
 * @opcode: operation and transport class
 * @se: solicited event
 * @mig: migration state
 * @pad: pad bytes after the payload, 0..3
 * @tver: transport header version, 0
 * @pkey: partition key
 * @fecn: forward congestion notification
 * @becn: backward congestion notification
 * @qpn: destination QP, 24 bits
 * @ack_req: acknowledgment requested
 * @psn: packet sequence number, 24 bits
 * @irn_cap: IRN capability bit
 * @irn_ext: an IRN header follows the standard ones
 * @irn_dsack: this ACK answers a duplicate request
 */
struct irn_bth_fields {
	u8	opcode;
	bool	se;
	bool	mig;
	u8	pad;
	u8	tver;
	u16	pkey;
	bool	fecn;
	bool	becn;
	u32	qpn;
	bool	ack_req;
	u32	psn;
	bool	irn_cap;
	bool	irn_ext;
	bool	irn_dsack;
};

void irn_bth_encode(struct irn_bth *bth, const struct irn_bth_fields *f);
void irn_bth_decode(const struct irn_bth *bth, struct irn_bth_fields *f);

u32 irn_opcode_flags(u8 opcode);
const char *irn_opcode_name(u8 opcode);
unsigned int irn_opcode_hdr_len(u8 opcode);
unsigned int irn_ext_len(u8 opcode);
unsigned int irn_bth_hdr_len(const struct irn_bth *bth);

enum irn_rx_verdict irn_hdr_parse(struct irn_pkt *pkt, const void *bth,
				  unsigned int len);

unsigned int irn_pkt_hdr_offset(const struct irn_pkt *pkt, u32 hdr);

enum ib_mtu irn_mtu_from_netdev(unsigned int ndev_mtu);

#endif /* _IRN_HDR_H */
