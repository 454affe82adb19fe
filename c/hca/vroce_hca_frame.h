/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce emulated HCA (issue 34): RoCE v2 packets as IBTA Annex A17 puts
 * them on Ethernet: an IPv4 or IPv6 header, UDP to port 4791, the base
 * transport header (BTH), the extension headers the opcode calls for,
 * the payload, its pad, and the invariant CRC (ICRC). Built and checked
 * here from and into a struct vroce_frame; Documentation/wire.rst has
 * the layout, and what of the transport is implemented.
 */
#ifndef _VROCE_HCA_FRAME_H_
#define _VROCE_HCA_FRAME_H_

#include <linux/types.h>

/* RoCE v2's UDP destination port (IANA). */
#define VROCE_ROCE_V2_PORT	4791

#define VROCE_BTH_BYTES		12
#define VROCE_ICRC_BYTES	4

/* The extension headers an opcode carries, in packet order. */
#define VROCE_FX_DETH		BIT(0)	/* UD: Q_Key, source QP */
#define VROCE_FX_RETH		BIT(1)	/* VA, R_Key, DMA length */
#define VROCE_FX_ATOMIC		BIT(2)	/* AtomicETH */
#define VROCE_FX_AETH		BIT(3)	/* syndrome, MSN */
#define VROCE_FX_ATOMIC_ACK	BIT(4)	/* AtomicAckETH: the original data */
#define VROCE_FX_IMM		BIT(5)	/* ImmDt */
#define VROCE_FX_IETH		BIT(6)	/* the R_Key to invalidate */
#define VROCE_FX_PAYLOAD	BIT(7)	/* a payload (maybe empty) and pad */
#define VROCE_FX_KNOWN		BIT(8)	/* the opcode is one of the table */

/* Opcodes (IBTA 9.2, table 38): transport in bits 7-5, operation 4-0. */
#define VROCE_OP_RC		0x00
#define VROCE_OP_UC		0x20
#define VROCE_OP_UD		0x60
#define VROCE_OP_SEND_FIRST			0x00
#define VROCE_OP_SEND_MIDDLE			0x01
#define VROCE_OP_SEND_LAST			0x02
#define VROCE_OP_SEND_LAST_IMM			0x03
#define VROCE_OP_SEND_ONLY			0x04
#define VROCE_OP_SEND_ONLY_IMM			0x05
#define VROCE_OP_WRITE_FIRST			0x06
#define VROCE_OP_WRITE_MIDDLE			0x07
#define VROCE_OP_WRITE_LAST			0x08
#define VROCE_OP_WRITE_LAST_IMM			0x09
#define VROCE_OP_WRITE_ONLY			0x0a
#define VROCE_OP_WRITE_ONLY_IMM			0x0b
#define VROCE_OP_READ_REQUEST			0x0c
#define VROCE_OP_READ_RESPONSE_FIRST		0x0d
#define VROCE_OP_READ_RESPONSE_MIDDLE		0x0e
#define VROCE_OP_READ_RESPONSE_LAST		0x0f
#define VROCE_OP_READ_RESPONSE_ONLY		0x10
#define VROCE_OP_ACKNOWLEDGE			0x11
#define VROCE_OP_ATOMIC_ACKNOWLEDGE		0x12
#define VROCE_OP_COMPARE_SWAP			0x13
#define VROCE_OP_FETCH_ADD			0x14
#define VROCE_OP_SEND_LAST_INV			0x16
#define VROCE_OP_SEND_ONLY_INV			0x17

/**
 * struct vroce_frame - one RoCE v2 packet, its fields in host order
 * @ipv6: an IPv6 header, else IPv4
 * @sip: source address; IPv4 in the last four bytes of an IPv4-mapped
 *	IPv6 address (::ffff:a.b.c.d), as in a RoCE v2 GID
 * @dip: destination address, likewise
 * @tclass: IPv4 TOS or IPv6 traffic class (DSCP and ECN)
 * @hop_limit: IPv4 TTL or IPv6 hop limit
 * @flow_label: IPv6 flow label (20 bits); IPv4: 0
 * @sport: UDP source port (entropy for ECMP; the destination is 4791)
 * @opcode: BTH opcode
 * @se: BTH solicited event
 * @mig: BTH MigReq
 * @pad: BTH pad count, 0-3: bytes after the payload to a multiple of 4
 * @pkey: BTH P_Key
 * @fecn: BTH FECN (not covered by the ICRC)
 * @becn: BTH BECN (not covered by the ICRC)
 * @dqpn: BTH destination QP (24 bits)
 * @ackreq: BTH AckReq
 * @psn: BTH PSN (24 bits)
 * @qkey: DETH Q_Key
 * @sqpn: DETH source QP
 * @va: RETH or AtomicETH virtual address
 * @rkey: RETH or AtomicETH R_Key
 * @dma_len: RETH DMA length
 * @swap_add: AtomicETH swap (or add) data
 * @compare: AtomicETH compare data
 * @syndrome: AETH syndrome
 * @msn: AETH MSN (24 bits)
 * @orig: AtomicAckETH original remote data
 * @imm: ImmDt, as the bytes on the wire (big-endian)
 * @inv_rkey: IETH R_Key
 * @payload: the payload; after vroce_frame_parse(), inside the packet
 * @payload_len: its length
 *
 * Fields of extension headers the opcode does not carry are ignored by
 * vroce_frame_build() and left zero by vroce_frame_parse().
 */
struct vroce_frame {
	bool ipv6;
	u8 sip[16];
	u8 dip[16];
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	u16 sport;

	u8 opcode;
	bool se;
	bool mig;
	u8 pad;
	u16 pkey;
	bool fecn;
	bool becn;
	u32 dqpn;
	bool ackreq;
	u32 psn;

	u32 qkey;
	u32 sqpn;
	u64 va;
	u32 rkey;
	u32 dma_len;
	u64 swap_add;
	u64 compare;
	u8 syndrome;
	u32 msn;
	u64 orig;
	__be32 imm;
	u32 inv_rkey;

	const u8 *payload;
	u32 payload_len;
};

u32 vroce_frame_exts(u8 opcode);
size_t vroce_frame_len(const struct vroce_frame *f);
ssize_t vroce_frame_build(const struct vroce_frame *f, u8 *buf, size_t cap);
int vroce_frame_parse(const u8 *pkt, size_t len, struct vroce_frame *f);
int vroce_frame_icrc(const u8 *pkt, size_t len, u32 *icrc);

#endif /* _VROCE_HCA_FRAME_H_ */
