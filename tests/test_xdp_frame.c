/* The AF_XDP path's frames and checksums (engines/xdp/xdp_frame.h), against frames computed
 * independently with python's struct (tests/tools/xdp_frames_ref.py prints them): what we build
 * is those bytes exactly, what we parse gives back their fields, and every corruption a receiver
 * must notice is rejected with its reason. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "xdp_frame.h"

struct ref {
	const char *name;
	bool v6;
	const char *src, *dst;
	uint16_t sport, dport;
	uint16_t plen;
	uint8_t tos;
	const char *hex; /* xdp_frames_ref.py */
};

static const struct ref refs[] = {
	{ "v4_64", false, "10.233.0.1", "10.233.0.2", 40000, 7600, 64, 0,
	  "02000000000b02000000000a08004500005c00004000401124bd0ae900010ae900029c401db00048a12a030a11"
	  "181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e45"
	  "4c535a61686f767d848b9299a0a7aeb5bc" },
	{ "v4_odd_1", false, "192.0.2.1", "198.51.100.7", 1, 65535, 1, 0,
	  "02000000000b02000000000a08004500001d0000400040114e94c0000201c63364070001ffff0009109f03" },
	{ "v4_odd_63", false, "10.233.0.1", "10.233.0.2", 40000, 7600, 63, 0xb8,
	  "02000000000b02000000000a080045b8005b00004000401124060ae900010ae900029c401db00047a1e8030a11"
	  "181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e45"
	  "4c535a61686f767d848b9299a0a7aeb5" },
	{ "v4_empty", false, "10.0.0.1", "10.0.0.2", 9, 9, 0, 0,
	  "02000000000b02000000000a08004500001c00004000401126cf0a0000010a000002000900090008ebc9" },
	{ "v6_64", true, "fd00::1", "fd00::2", 40000, 7600, 64, 0,
	  "02000000000b02000000000a86dd6000000000481140fd000000000000000000000000000001fd000000000000"
	  "0000000000000000029c401db00048bcfa030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0"
	  "c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bc" },
	{ "v6_odd_3", true, "2001:db8::a", "fe80::1:2:3:4", 5353, 7601, 3, 0x2e,
	  "02000000000b02000000000a86dd62e00000000b114020010db800000000000000000000000afe8000000000000"
	  "0000100020003000414e91db1000b8ce6030a11" },
};
#define NREFS (sizeof(refs) / sizeof(refs[0]))

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static void ends(const struct ref *r, struct nb_frame_end *s, struct nb_frame_end *d)
{
	static const uint8_t smac[6] = { 2, 0, 0, 0, 0, 0x0a }, dmac[6] = { 2, 0, 0, 0, 0, 0x0b };
	memset(s, 0, sizeof(*s));
	memset(d, 0, sizeof(*d));
	memcpy(s->mac, smac, 6);
	memcpy(d->mac, dmac, 6);
	cr_assert_eq(inet_pton(r->v6 ? AF_INET6 : AF_INET, r->src, s->ip), 1);
	cr_assert_eq(inet_pton(r->v6 ? AF_INET6 : AF_INET, r->dst, d->ip), 1);
	s->port = r->sport;
	d->port = r->dport;
}

/* The reference payload: byte i is (7i + 3) mod 256. */
static void payload(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + 3);
}

Test(xdp_csum, rfc1071_worked_example_and_odd_lengths)
{
	/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2; the checksum is ~0xddf2. */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	cr_expect_eq(nb_csum_add(0, b, sizeof(b)), 0xddf2);
	cr_expect_eq(nb_csum_fold(nb_csum_add(0, b, sizeof(b))), 0x220d);
	/* An odd last byte is the high half of a word: 00 01 f2 -> 0x0001 + 0xf200. */
	cr_expect_eq(nb_csum_add(0, b, 3), 0xf201);
	/* A sum may be taken in pieces as long as only the last is odd. */
	cr_expect_eq(nb_csum_add(nb_csum_add(0, b, 4), b + 4, 3), nb_csum_add(0, b, 7));
	/* Carries wrap around: ffff + 0001 = 0001 (ones' complement). */
	static const uint8_t c[] = { 0xff, 0xff, 0x00, 0x01 };
	cr_expect_eq(nb_csum_add(0, c, 4), 0x0001);
	cr_expect_eq(nb_csum_fold(0xffff), 0);
}

Test(xdp_csum, ip4_header_checksum_of_every_reference_frame)
{
	for (size_t i = 0; i < NREFS; i++) {
		if (refs[i].v6)
			continue;
		uint8_t f[256];
		unhex(refs[i].hex, f);
		uint16_t want = (uint16_t)(f[NB_ETH_HLEN + 10] << 8 | f[NB_ETH_HLEN + 11]);
		cr_expect_eq(nb_csum_ip4(f + NB_ETH_HLEN, NB_IP4_HLEN), want, "%s: %04x, want %04x",
			     refs[i].name, nb_csum_ip4(f + NB_ETH_HLEN, NB_IP4_HLEN), want);
	}
}

Test(xdp_csum, udp_checksum_over_the_pseudo_header_v4_and_v6)
{
	for (size_t i = 0; i < NREFS; i++) {
		const struct ref *r = &refs[i];
		uint8_t f[256];
		size_t n = unhex(r->hex, f);
		size_t ip = NB_ETH_HLEN, udp = ip + (r->v6 ? NB_IP6_HLEN : NB_IP4_HLEN);
		uint16_t want = (uint16_t)(f[udp + 6] << 8 | f[udp + 7]);
		uint16_t got = r->v6 ? nb_csum_udp6(f + ip + 8, f + ip + 24, f + udp, n - udp)
				     : nb_csum_udp4(f + ip + 12, f + ip + 16, f + udp, n - udp);
		cr_expect_eq(got, want, "%s: %04x, want %04x", r->name, got, want);
	}
}

Test(xdp_csum, a_sum_of_zero_goes_out_as_ffff)
{
	/* With payload word w the sum grows by w: w = the checksum at w = 0 makes the sum 0xffff,
	 * whose complement 0 would mean "no checksum" over IPv4 (and is illegal over IPv6). */
	uint8_t src[16] = { 10, 0, 0, 1 }, dst[16] = { 10, 0, 0, 2 };
	uint8_t udp[10] = { 0x12, 0x34, 0x1d, 0xb0, 0x00, 0x0a, 0, 0, 0, 0 };
	for (int v6 = 0; v6 < 2; v6++) {
		uint16_t c0 = v6 ? nb_csum_udp6(src, dst, udp, 10) : nb_csum_udp4(src, dst, udp, 10);
		udp[8] = (uint8_t)(c0 >> 8);
		udp[9] = (uint8_t)c0;
		uint16_t c = v6 ? nb_csum_udp6(src, dst, udp, 10) : nb_csum_udp4(src, dst, udp, 10);
		cr_expect_eq(c, 0xffff, "v6=%d: %04x", v6, c);
		udp[8] = udp[9] = 0;
	}
}

Test(xdp_frame, built_frames_are_the_reference_bytes)
{
	for (size_t i = 0; i < NREFS; i++) {
		const struct ref *r = &refs[i];
		struct nb_frame_end s, d;
		struct nb_frame_tmpl t;
		struct nb_error err = { { 0 } };
		ends(r, &s, &d);
		cr_assert(nb_frame_tmpl_init(&t, &s, &d, r->v6, r->plen, r->tos, &err), "%s", err.msg);
		uint8_t want[256], got[256];
		size_t n = unhex(r->hex, want);
		memset(got, 0xee, sizeof(got));
		payload(got + t.hdr_len, r->plen);
		cr_assert_eq(nb_frame_finish(&t, got), n, "%s: length", r->name);
		cr_expect_eq(memcmp(got, want, n), 0, "%s: bytes differ", r->name);
		cr_expect_eq(got[n], 0xee, "%s: wrote past the frame", r->name);
	}
}

Test(xdp_frame, parsed_frames_give_back_their_fields)
{
	for (size_t i = 0; i < NREFS; i++) {
		const struct ref *r = &refs[i];
		uint8_t f[256], pl[64];
		size_t n = unhex(r->hex, f);
		struct nb_frame_view v;
		enum nb_frame_verdict got = nb_frame_parse(f, n, true, &v);
		cr_assert_eq(got, NB_FRAME_OK, "%s: %s", r->name, nb_frame_verdict_name(got));
		struct nb_frame_end s, d;
		ends(r, &s, &d);
		cr_expect_eq(v.v6, r->v6);
		cr_expect_eq(memcmp(v.src_ip, s.ip, r->v6 ? 16 : 4), 0, "%s", r->name);
		cr_expect_eq(memcmp(v.dst_ip, d.ip, r->v6 ? 16 : 4), 0, "%s", r->name);
		cr_expect_eq(v.src_port, r->sport);
		cr_expect_eq(v.dst_port, r->dport);
		cr_expect_eq(v.payload_len, r->plen, "%s", r->name);
		payload(pl, r->plen);
		cr_expect_eq(memcmp(v.payload, pl, r->plen), 0, "%s: payload", r->name);
	}
}

/* A corruption of the v4_64 or v6_64 frame and the verdict it must get. */
struct bad {
	const char *what;
	int ref;                /* index into refs */
	int at;                 /* byte to change; -1: none */
	uint8_t xor_;
	int cut;                /* bytes cut off the end */
	enum nb_frame_verdict want;
};

static const struct bad bads[] = {
	{ "a payload bit flipped", 0, 60, 0x01, 0, NB_FRAME_BAD_UDP },
	{ "a payload bit flipped (v6)", 4, 100, 0x80, 0, NB_FRAME_BAD_UDP },
	{ "the TTL changed: IPv4 header checksum", 0, 22, 0x01, 0, NB_FRAME_BAD_IP },
	{ "one byte short of the IP total length", 0, -1, 0, 1, NB_FRAME_SHORT },
	{ "one byte short (v6)", 4, -1, 0, 1, NB_FRAME_SHORT },
	{ "cut inside the Ethernet header", 0, -1, 0, 100, NB_FRAME_SHORT },
	{ "TCP, not UDP (v6 next header)", 4, 20, 17 ^ 6, 0, NB_FRAME_NOT_UDP },
	{ "an IPv6 extension header (hop-by-hop)", 4, 20, 17, 0, NB_FRAME_NOT_UDP },
	{ "version 5 in an IPv4 ethertype", 0, 14, 0x45 ^ 0x55, 0, NB_FRAME_BAD_IP },
	{ "UDP length beyond the IP payload (v6)", 4, 58, 0x01, 0, NB_FRAME_BAD_UDP },
};

Test(xdp_frame, corruptions_are_rejected_with_their_reason_and_leave_the_view_alone)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		uint8_t f[256];
		size_t n = unhex(refs[b->ref].hex, f);
		if (b->at >= 0)
			f[b->at] ^= b->xor_;
		struct nb_frame_view v, sentinel;
		memset(&v, 0x5a, sizeof(v));
		memcpy(&sentinel, &v, sizeof(v));
		enum nb_frame_verdict got = nb_frame_parse(f, n - (size_t)b->cut, true, &v);
		cr_expect_eq(got, b->want, "%s: %s, want %s", b->what, nb_frame_verdict_name(got),
			     nb_frame_verdict_name(b->want));
		cr_expect_eq(memcmp(&v, &sentinel, sizeof(v)), 0, "%s: view written", b->what);
	}
}

Test(xdp_frame, not_ip_a_fragment_and_tcp_are_told_apart)
{
	uint8_t f[256];
	size_t n = unhex(refs[0].hex, f);
	struct nb_frame_view v;
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	cr_expect_eq(nb_frame_parse(f, n, true, &v), NB_FRAME_NOT_IP);
	n = unhex(refs[0].hex, f);
	/* More fragments: fix the header checksum so only the fragment bit speaks. */
	f[NB_ETH_HLEN + 6] |= 0x20;
	uint16_t c = nb_csum_ip4(f + NB_ETH_HLEN, NB_IP4_HLEN);
	f[NB_ETH_HLEN + 10] = (uint8_t)(c >> 8), f[NB_ETH_HLEN + 11] = (uint8_t)c;
	cr_expect_eq(nb_frame_parse(f, n, true, &v), NB_FRAME_NOT_UDP);
	n = unhex(refs[0].hex, f);
	f[NB_ETH_HLEN + 9] = 6; /* TCP */
	c = nb_csum_ip4(f + NB_ETH_HLEN, NB_IP4_HLEN);
	f[NB_ETH_HLEN + 10] = (uint8_t)(c >> 8), f[NB_ETH_HLEN + 11] = (uint8_t)c;
	cr_expect_eq(nb_frame_parse(f, n, true, &v), NB_FRAME_NOT_UDP);
}

Test(xdp_frame, vlan_tag_padding_and_a_zero_ipv4_checksum)
{
	uint8_t f[256], g[256];
	size_t n = unhex(refs[1].hex, f); /* 43 bytes: a real NIC pads it to 60 */
	struct nb_frame_view v;
	memset(f + n, 0, 60 - n);
	cr_assert_eq(nb_frame_parse(f, 60, true, &v), NB_FRAME_OK);
	cr_expect_eq(v.payload_len, 1, "Ethernet padding is not payload");
	/* One 802.1Q tag between the MACs and the ethertype. */
	memcpy(g, f, 12);
	g[12] = 0x81, g[13] = 0x00, g[14] = 0x00, g[15] = 0x64;
	memcpy(g + 16, f + 12, n - 12);
	cr_assert_eq(nb_frame_parse(g, n + 4, true, &v), NB_FRAME_OK);
	cr_expect_eq(v.dst_port, 65535);
	/* IPv4 UDP checksum 0: none sent, none checked. */
	f[NB_ETH_HLEN + NB_IP4_HLEN + 6] = f[NB_ETH_HLEN + NB_IP4_HLEN + 7] = 0;
	cr_expect_eq(nb_frame_parse(f, n, true, &v), NB_FRAME_OK);
	/* Without the check a wrong checksum passes (the receiver asked not to pay for it). */
	f[NB_ETH_HLEN + NB_IP4_HLEN + 7] = 1;
	cr_expect_eq(nb_frame_parse(f, n, false, &v), NB_FRAME_OK);
	cr_expect_eq(nb_frame_parse(f, n, true, &v), NB_FRAME_BAD_UDP);
}

Test(xdp_frame, a_payload_too_large_for_an_ip_datagram_is_refused)
{
	struct nb_frame_end s = { .port = 1 }, d = { .port = 2 };
	struct nb_frame_tmpl t;
	struct nb_error err = { { 0 } };
	cr_expect(nb_frame_tmpl_init(&t, &s, &d, false, 65507, 0, &err));
	cr_expect_not(nb_frame_tmpl_init(&t, &s, &d, false, 65508, 0, &err));
	cr_expect(strstr(err.msg, "65508") && strstr(err.msg, "65507"), "%s", err.msg);
	cr_expect(nb_frame_tmpl_init(&t, &s, &d, true, 65527, 0, &err));
	cr_expect_not(nb_frame_tmpl_init(&t, &s, &d, true, 65528, 0, &err));
}
