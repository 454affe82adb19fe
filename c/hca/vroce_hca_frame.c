// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA (issue 34): RoCE v2 packets, built and checked.
 *
 * A packet starts at its IP header (the port puts it behind an Ethernet
 * header with EtherType IPv4 or IPv6): IP, UDP to port 4791, BTH, the
 * extension headers of the opcode in the order IBTA gives them (DETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), the payload, 0-3 pad
 * bytes to a multiple of four, and the ICRC. The ICRC (IBTA Annex A17.3.3)
 * is the Ethernet CRC-32 over eight bytes of ones standing for the LRH
 * RoCE v2 has not, the IP, UDP and BTH headers with the fields routers
 * may change set to ones (IPv4 TOS, TTL and checksum; IPv6 traffic class,
 * flow label and hop limit; the UDP checksum; the BTH byte holding FECN
 * and BECN), and the rest of the packet; inverted, least significant byte
 * first on the wire, as rxe and Wireshark's dissector have it.
 *
 * Nothing a packet says is trusted: vroce_frame_parse() checks every
 * length against the bytes there are before it reads a field.
 *
 * Calls: nothing else of the HCA.
 */

#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <net/checksum.h>

#include "../compat/vroce_compat.h"
#include "vroce_hca_frame.h"

#define VROCE_IPV4_BYTES	20
#define VROCE_IPV6_BYTES	40
#define VROCE_UDP_BYTES		8
#define VROCE_MAX_MASKED	(VROCE_IPV6_BYTES + VROCE_UDP_BYTES + \
				 VROCE_BTH_BYTES)

/* The operations of each transport, by the opcode's low five bits. */
#define PL	VROCE_FX_PAYLOAD
static const u16 vroce_rc_ops[32] = {
	[VROCE_OP_SEND_FIRST] = PL,
	[VROCE_OP_SEND_MIDDLE] = PL,
	[VROCE_OP_SEND_LAST] = PL,
	[VROCE_OP_SEND_LAST_IMM] = VROCE_FX_IMM | PL,
	[VROCE_OP_SEND_ONLY] = PL,
	[VROCE_OP_SEND_ONLY_IMM] = VROCE_FX_IMM | PL,
	[VROCE_OP_WRITE_FIRST] = VROCE_FX_RETH | PL,
	[VROCE_OP_WRITE_MIDDLE] = PL,
	[VROCE_OP_WRITE_LAST] = PL,
	[VROCE_OP_WRITE_LAST_IMM] = VROCE_FX_IMM | PL,
	[VROCE_OP_WRITE_ONLY] = VROCE_FX_RETH | PL,
	[VROCE_OP_WRITE_ONLY_IMM] = VROCE_FX_RETH | VROCE_FX_IMM | PL,
	[VROCE_OP_READ_REQUEST] = VROCE_FX_RETH,
	[VROCE_OP_READ_RESPONSE_FIRST] = VROCE_FX_AETH | PL,
	[VROCE_OP_READ_RESPONSE_MIDDLE] = PL,
	[VROCE_OP_READ_RESPONSE_LAST] = VROCE_FX_AETH | PL,
	[VROCE_OP_READ_RESPONSE_ONLY] = VROCE_FX_AETH | PL,
	[VROCE_OP_ACKNOWLEDGE] = VROCE_FX_AETH,
	[VROCE_OP_ATOMIC_ACKNOWLEDGE] = VROCE_FX_AETH | VROCE_FX_ATOMIC_ACK,
	[VROCE_OP_COMPARE_SWAP] = VROCE_FX_ATOMIC,
	[VROCE_OP_FETCH_ADD] = VROCE_FX_ATOMIC,
	[VROCE_OP_SEND_LAST_INV] = VROCE_FX_IETH | PL,
	[VROCE_OP_SEND_ONLY_INV] = VROCE_FX_IETH | PL,
};

#undef PL

/* Bytes of each extension header, in the order of the VROCE_FX_* bits. */
static const u8 vroce_ext_bytes[] = { 8, 16, 28, 4, 8, 4, 4 };

/**
 * vroce_frame_exts() - the extension headers of an opcode
 * @opcode: a BTH opcode
 *
 * RC has every operation; UC sends and RDMA WRITEs; UD SEND only, with
 * and without immediate data. RD, CNP and the operations IBTA added later
 * (FLUSH 0x1c, ATOMIC WRITE 0x1d) are not implemented.
 *
 * Context: any context.
 * Return: VROCE_FX_* bits with VROCE_FX_KNOWN, or 0 for an opcode not
 * implemented.
 */
u32 vroce_frame_exts(u8 opcode)
{
	u8 op = opcode & 0x1f;
	u32 x = 0;

	switch (opcode & 0xe0) {
	case VROCE_OP_RC:
		x = vroce_rc_ops[op];
		break;
	case VROCE_OP_UC:
		if (op <= VROCE_OP_WRITE_ONLY_IMM)
			x = vroce_rc_ops[op];
		break;
	case VROCE_OP_UD:
		if (op == VROCE_OP_SEND_ONLY || op == VROCE_OP_SEND_ONLY_IMM)
			x = VROCE_FX_DETH | vroce_rc_ops[op];
		break;
	}
	return x ? x | VROCE_FX_KNOWN : 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_frame_exts);

static size_t vroce_ext_len(u32 x)
{
	size_t n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(vroce_ext_bytes); i++)
		if (x & BIT(i))
			n += vroce_ext_bytes[i];
	return n;
}

static size_t vroce_l3_len(bool ipv6)
{
	return ipv6 ? VROCE_IPV6_BYTES : VROCE_IPV4_BYTES;
}

/*
 * IP (@l3 bytes of it), UDP and BTH with the ICRC's variant fields set to
 * ones. @l3 is decided once by the caller: the packet is read again here,
 * and may be in memory another party writes.
 */
static size_t vroce_frame_masked(const u8 *pkt, size_t l3, u8 *m)
{
	u8 *udp = m + l3, *bth = udp + VROCE_UDP_BYTES;

	memcpy(m, pkt, l3 + VROCE_UDP_BYTES + VROCE_BTH_BYTES);
	if (l3 == VROCE_IPV4_BYTES) {
		m[1] = 0xff;				/* TOS */
		m[8] = 0xff;				/* TTL */
		m[10] = 0xff;				/* header checksum */
		m[11] = 0xff;
	} else {
		m[0] |= 0x0f;				/* traffic class, */
		memset(m + 1, 0xff, 3);			/* flow label */
		m[7] = 0xff;				/* hop limit */
	}
	udp[6] = 0xff;					/* UDP checksum */
	udp[7] = 0xff;
	bth[4] = 0xff;					/* FECN, BECN, resv6 */
	return l3 + VROCE_UDP_BYTES + VROCE_BTH_BYTES;
}

/* The ICRC over @len bytes of a packet whose IP header is @l3 bytes. */
static u32 vroce_icrc(const u8 *pkt, size_t len, size_t l3)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	u8 masked[VROCE_MAX_MASKED];
	size_t n = vroce_frame_masked(pkt, l3, masked);
	u32 crc;

	crc = crc32_le(~0U, lrh, sizeof(lrh));
	crc = crc32_le(crc, masked, n);
	crc = crc32_le(crc, pkt + n, len - n);
	return ~crc;
}

/**
 * vroce_frame_icrc() - the ICRC of a RoCE v2 packet
 * @pkt: the packet from its IP header (version 4 or 6)
 * @len: its bytes up to the ICRC (the ICRC itself not counted)
 * @icrc: where the ICRC goes, as a number: its least significant byte
 *	goes first on the wire
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @len does not hold IP, UDP and BTH.
 */
int vroce_frame_icrc(const u8 *pkt, size_t len, u32 *icrc)
{
	size_t l3;

	if (!len)
		return -EINVAL;
	l3 = vroce_l3_len(READ_ONCE(pkt[0]) >> 4 == 6);
	if (len < l3 + VROCE_UDP_BYTES + VROCE_BTH_BYTES)
		return -EINVAL;
	*icrc = vroce_icrc(pkt, len, l3);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_frame_icrc);

/**
 * vroce_frame_len() - the bytes of the packet vroce_frame_build() makes
 * @f: the packet
 *
 * Context: any context.
 * Return: its length from the IP header to the ICRC included, or 0 for an
 * opcode not implemented or a payload too long for one IP packet.
 */
size_t vroce_frame_len(const struct vroce_frame *f)
{
	u32 x = vroce_frame_exts(f->opcode);
	size_t payload = x & VROCE_FX_PAYLOAD ? f->payload_len : 0, len;

	/* (Before ALIGN(), which a 32-bit size_t could wrap.) */
	if (!x || payload > U16_MAX)
		return 0;
	len = vroce_l3_len(f->ipv6) + VROCE_UDP_BYTES + VROCE_BTH_BYTES +
	      vroce_ext_len(x) + ALIGN(payload, 4) + VROCE_ICRC_BYTES;
	/* IPv4's total length, IPv6's payload length: 16 bits. */
	if (len - (f->ipv6 ? VROCE_IPV6_BYTES : 0) > U16_MAX)
		return 0;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_frame_len);

static u8 *vroce_put_ip(const struct vroce_frame *f, u8 *b, size_t len)
{
	if (f->ipv6) {
		put_unaligned_be32(6U << 28 | (u32)f->tclass << 20 |
				   (f->flow_label & 0xfffff), b);
		put_unaligned_be16(len - VROCE_IPV6_BYTES, b + 4);
		b[6] = IPPROTO_UDP;
		b[7] = f->hop_limit;
		memcpy(b + 8, f->sip, 16);
		memcpy(b + 24, f->dip, 16);
		return b + VROCE_IPV6_BYTES;
	}
	b[0] = 0x45;
	b[1] = f->tclass;
	put_unaligned_be16(len, b + 2);
	put_unaligned_be16(0, b + 4);			/* identification */
	put_unaligned_be16(IP_DF, b + 6);
	b[8] = f->hop_limit;
	b[9] = IPPROTO_UDP;
	put_unaligned_be16(0, b + 10);
	memcpy(b + 12, f->sip + 12, 4);
	memcpy(b + 16, f->dip + 12, 4);
	/* Computed over the header as it stands, checksum field zero. */
	put_unaligned((__force __sum16)ip_fast_csum(b, 5), (__sum16 *)(b + 10));
	return b + VROCE_IPV4_BYTES;
}

static u8 *vroce_put_bth(const struct vroce_frame *f, u8 *b)
{
	b[0] = f->opcode;
	b[1] = (f->se ? BIT(7) : 0) | (f->mig ? BIT(6) : 0) |
	       (f->pad & 3) << 4;			/* TVer 0 */
	put_unaligned_be16(f->pkey, b + 2);
	put_unaligned_be32((f->fecn ? BIT(31) : 0) | (f->becn ? BIT(30) : 0) |
			   (f->dqpn & 0xffffff), b + 4);
	put_unaligned_be32((f->ackreq ? BIT(31) : 0) | (f->psn & 0xffffff),
			   b + 8);
	return b + VROCE_BTH_BYTES;
}

static u8 *vroce_put_exts(const struct vroce_frame *f, u32 x, u8 *b)
{
	if (x & VROCE_FX_DETH) {
		put_unaligned_be32(f->qkey, b);
		put_unaligned_be32(f->sqpn & 0xffffff, b + 4);
		b += 8;
	}
	if (x & (VROCE_FX_RETH | VROCE_FX_ATOMIC)) {
		put_unaligned_be64(f->va, b);
		put_unaligned_be32(f->rkey, b + 8);
		b += 12;
		if (x & VROCE_FX_RETH) {
			put_unaligned_be32(f->dma_len, b);
			b += 4;
		} else {
			put_unaligned_be64(f->swap_add, b);
			put_unaligned_be64(f->compare, b + 8);
			b += 16;
		}
	}
	if (x & VROCE_FX_AETH) {
		put_unaligned_be32((u32)f->syndrome << 24 | (f->msn & 0xffffff),
				   b);
		b += 4;
	}
	if (x & VROCE_FX_ATOMIC_ACK) {
		put_unaligned_be64(f->orig, b);
		b += 8;
	}
	if (x & VROCE_FX_IMM) {
		memcpy(b, &f->imm, 4);
		b += 4;
	}
	if (x & VROCE_FX_IETH) {
		put_unaligned_be32(f->inv_rkey, b);
		b += 4;
	}
	return b;
}

/**
 * vroce_frame_build() - write a RoCE v2 packet
 * @f: the packet; @f->pad is computed, not taken; an opcode without a
 *	payload sends none whatever @f->payload_len says
 * @buf: where it goes, from the IP header
 * @cap: bytes at @buf
 *
 * The IPv4 header has no options, DF set, identification 0 and its
 * checksum; the UDP checksum is 0 (none), as RoCE v2 allows.
 *
 * Context: any context.
 * Return: the packet's length, -EOPNOTSUPP for an opcode not implemented,
 * -EINVAL for a payload too long for one IP packet, or -ENOSPC when @cap
 * is too small.
 */
ssize_t vroce_frame_build(const struct vroce_frame *f, u8 *buf, size_t cap)
{
	u32 x = vroce_frame_exts(f->opcode);
	struct vroce_frame g = *f;
	size_t len, plen;
	u8 *b;

	if (!x)
		return -EOPNOTSUPP;
	plen = x & VROCE_FX_PAYLOAD ? f->payload_len : 0;
	g.payload_len = plen;
	g.pad = -plen & 3;
	len = vroce_frame_len(&g);
	if (!len)
		return -EINVAL;
	if (len > cap)
		return -ENOSPC;

	b = vroce_put_ip(&g, buf, len);
	put_unaligned_be16(g.sport, b);
	put_unaligned_be16(VROCE_ROCE_V2_PORT, b + 2);
	put_unaligned_be16(len - (b - buf), b + 4);
	put_unaligned_be16(0, b + 6);
	b = vroce_put_bth(&g, b + VROCE_UDP_BYTES);
	b = vroce_put_exts(&g, x, b);
	if (plen)
		memcpy(b, g.payload, plen);
	memset(b + plen, 0, g.pad);
	b += plen + g.pad;
	put_unaligned_le32(vroce_icrc(buf, b - buf, vroce_l3_len(g.ipv6)), b);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_frame_build);

/*
 * The IP header: its length, or 0 when it is not one vroce takes. Its
 * first byte is read once: which header it is decides every length after.
 */
static size_t vroce_get_ip(const u8 *pkt, size_t *len, struct vroce_frame *f)
{
	size_t tot;
	u8 v;

	if (*len < 1)
		return 0;
	v = READ_ONCE(pkt[0]);
	if (v >> 4 == 6) {
		if (*len < VROCE_IPV6_BYTES || pkt[6] != IPPROTO_UDP)
			return 0;
		tot = VROCE_IPV6_BYTES + get_unaligned_be16(pkt + 4);
		if (tot > *len)
			return 0;
		f->ipv6 = true;
		f->tclass = get_unaligned_be32(pkt) >> 20;
		f->flow_label = get_unaligned_be32(pkt) & 0xfffff;
		f->hop_limit = pkt[7];
		memcpy(f->sip, pkt + 8, 16);
		memcpy(f->dip, pkt + 24, 16);
		*len = tot;
		return VROCE_IPV6_BYTES;
	}
	/* IPv4 without options, not a fragment, its checksum right. */
	if (*len < VROCE_IPV4_BYTES || v != 0x45 ||
	    pkt[9] != IPPROTO_UDP || ip_fast_csum(pkt, 5) ||
	    (get_unaligned_be16(pkt + 6) & (IP_MF | IP_OFFSET)))
		return 0;
	tot = get_unaligned_be16(pkt + 2);
	if (tot < VROCE_IPV4_BYTES || tot > *len)
		return 0;
	f->tclass = pkt[1];
	f->hop_limit = pkt[8];
	f->sip[10] = 0xff;
	f->sip[11] = 0xff;
	memcpy(f->sip + 12, pkt + 12, 4);
	f->dip[10] = 0xff;
	f->dip[11] = 0xff;
	memcpy(f->dip + 12, pkt + 16, 4);
	*len = tot;
	return VROCE_IPV4_BYTES;
}

static void vroce_get_exts(const u8 *b, u32 x, struct vroce_frame *f)
{
	if (x & VROCE_FX_DETH) {
		f->qkey = get_unaligned_be32(b);
		f->sqpn = get_unaligned_be32(b + 4) & 0xffffff;
		b += 8;
	}
	if (x & (VROCE_FX_RETH | VROCE_FX_ATOMIC)) {
		f->va = get_unaligned_be64(b);
		f->rkey = get_unaligned_be32(b + 8);
		b += 12;
		if (x & VROCE_FX_RETH) {
			f->dma_len = get_unaligned_be32(b);
			b += 4;
		} else {
			f->swap_add = get_unaligned_be64(b);
			f->compare = get_unaligned_be64(b + 8);
			b += 16;
		}
	}
	if (x & VROCE_FX_AETH) {
		f->syndrome = b[0];
		f->msn = get_unaligned_be32(b) & 0xffffff;
		b += 4;
	}
	if (x & VROCE_FX_ATOMIC_ACK) {
		f->orig = get_unaligned_be64(b);
		b += 8;
	}
	if (x & VROCE_FX_IMM) {
		memcpy(&f->imm, b, 4);
		b += 4;
	}
	if (x & VROCE_FX_IETH)
		f->inv_rkey = get_unaligned_be32(b);
}

/**
 * vroce_frame_parse() - check a received RoCE v2 packet and read it
 * @pkt: the packet from its IP header
 * @len: the bytes received from there; bytes after the IP packet's own
 *	length (Ethernet's padding of short frames) are not part of it
 * @f: where its fields go; @f->payload points into @pkt
 *
 * The ICRC is checked as soon as the IP and UDP headers say where it is,
 * before anything of the transport headers is believed.
 *
 * Context: any context.
 * Return: 0; -EINVAL for a packet that is not well formed (not IPv4 or
 * IPv6 with UDP to port 4791, IP options or a fragment, a bad IPv4
 * checksum, lengths that disagree or do not fit, a transport header
 * version other than 0, a pad count that does not fit the payload);
 * -EBADMSG for a wrong ICRC; -EOPNOTSUPP for an opcode not implemented.
 */
int vroce_frame_parse(const u8 *pkt, size_t len, struct vroce_frame *f)
{
	size_t l3, hdr, plen;
	const u8 *udp, *bth;
	u8 opcode, b1;
	u32 x, v;

	memset(f, 0, sizeof(*f));
	l3 = vroce_get_ip(pkt, &len, f);
	if (!l3 || len < l3 + VROCE_UDP_BYTES + VROCE_BTH_BYTES +
			 VROCE_ICRC_BYTES)
		return -EINVAL;
	udp = pkt + l3;
	bth = udp + VROCE_UDP_BYTES;
	if (get_unaligned_be16(udp + 2) != VROCE_ROCE_V2_PORT ||
	    get_unaligned_be16(udp + 4) != len - l3)
		return -EINVAL;
	/*
	 * Before anything the transport headers say: a packet damaged on
	 * the way is dropped silently, never answered (a NAK for an opcode
	 * that was line noise).
	 */
	if (get_unaligned_le32(pkt + len - VROCE_ICRC_BYTES) !=
	    vroce_icrc(pkt, len - VROCE_ICRC_BYTES, l3))
		return -EBADMSG;
	/* Each read once: the lengths below follow from them. */
	opcode = READ_ONCE(bth[0]);
	b1 = READ_ONCE(bth[1]);
	if (b1 & 0x0f)
		return -EINVAL;
	x = vroce_frame_exts(opcode);
	if (!x)
		return -EOPNOTSUPP;
	hdr = l3 + VROCE_UDP_BYTES + VROCE_BTH_BYTES + vroce_ext_len(x);
	if (hdr + VROCE_ICRC_BYTES > len)
		return -EINVAL;
	plen = len - hdr - VROCE_ICRC_BYTES;
	f->pad = (b1 >> 4) & 3;
	if (x & VROCE_FX_PAYLOAD ? plen % 4 || f->pad > plen : plen || f->pad)
		return -EINVAL;

	f->sport = get_unaligned_be16(udp);
	f->opcode = opcode;
	f->se = b1 & BIT(7);
	f->mig = b1 & BIT(6);
	f->pkey = get_unaligned_be16(bth + 2);
	v = get_unaligned_be32(bth + 4);
	f->fecn = v & BIT(31);
	f->becn = v & BIT(30);
	f->dqpn = v & 0xffffff;
	v = get_unaligned_be32(bth + 8);
	f->ackreq = v & BIT(31);
	f->psn = v & 0xffffff;
	vroce_get_exts(bth + VROCE_BTH_BYTES, x, f);
	f->payload = pkt + hdr;
	f->payload_len = plen - f->pad;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_frame_parse);
