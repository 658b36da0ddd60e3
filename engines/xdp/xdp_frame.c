/* nbrun — Ethernet/IPv4/IPv6/UDP frames and their checksums (see xdp_frame.h). */
#include "xdp_frame.h"

#include <arpa/inet.h>
#include <string.h>

#include "engine.h" /* nb_error_set */

#define ETH_P_IP4 0x0800u
#define ETH_P_IP6 0x86ddu
#define ETH_P_VLAN 0x8100u
#define ETH_P_QINQ 0x88a8u
#define IPPROTO_UDP_ 17u

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* ---- checksums ---- */

/* Four bytes at a time: a big-endian 32-bit word is two 16-bit ones, and 2^16 = 1 modulo
 * 0xffff, so summing 32-bit words and folding gives the same ones' complement sum. */
uint32_t nb_csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t s = sum;
	for (; len >= 4; b += 4, len -= 4) {
		uint32_t w;
		memcpy(&w, b, 4);
		s += ntohl(w);
	}
	if (len >= 2) {
		s += (uint32_t)b[0] << 8 | b[1];
		b += 2, len -= 2;
	}
	if (len)
		s += (uint32_t)b[0] << 8;
	while (s >> 16) /* end-around carry: a 16-bit partial sum, safe to add to */
		s = (s & 0xffffu) + (s >> 16);
	return (uint32_t)s;
}

uint16_t nb_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t nb_csum_ip4(const uint8_t *hdr, size_t hlen)
{
	/* The checksum field (bytes 10-11) counts as zero. */
	uint32_t s = nb_csum_add(0, hdr, 10);
	return nb_csum_fold(nb_csum_add(s, hdr + 12, hlen - 12));
}

/* The pseudo-header (addresses, protocol, UDP length) and the datagram, its checksum field as
 * zero; the wire's 0 means "no checksum", so a computed 0 goes out as 0xffff. */
static uint16_t csum_udp(const uint8_t *src, const uint8_t *dst, size_t alen, const uint8_t *udp,
			 size_t len)
{
	uint32_t s = nb_csum_add(0, src, alen);
	s = nb_csum_add(s, dst, alen);
	s += IPPROTO_UDP_ + (uint32_t)(len & 0xffff) + (uint32_t)(len >> 16);
	s = nb_csum_add(s, udp, 6);
	if (len > NB_UDP_HLEN)
		s = nb_csum_add(s, udp + NB_UDP_HLEN, len - NB_UDP_HLEN);
	uint16_t c = nb_csum_fold(s);
	return c ? c : 0xffff;
}

uint16_t nb_csum_udp4(const uint8_t *src, const uint8_t *dst, const uint8_t *udp, size_t len)
{
	return csum_udp(src, dst, 4, udp, len);
}

uint16_t nb_csum_udp6(const uint8_t *src, const uint8_t *dst, const uint8_t *udp, size_t len)
{
	return csum_udp(src, dst, 16, udp, len);
}

/* ---- building ---- */

static uint8_t *put_eth(uint8_t *p, const struct nb_frame_end *src, const struct nb_frame_end *dst,
			bool v6)
{
	memcpy(p, dst->mac, 6);
	memcpy(p + 6, src->mac, 6);
	put16(p + 12, v6 ? ETH_P_IP6 : ETH_P_IP4);
	return p + NB_ETH_HLEN;
}

static uint8_t *put_ip4(uint8_t *p, const struct nb_frame_end *src, const struct nb_frame_end *dst,
			uint16_t udp_len, uint8_t tos)
{
	memset(p, 0, NB_IP4_HLEN);
	p[0] = 0x45;
	p[1] = tos;
	put16(p + 2, (uint16_t)(NB_IP4_HLEN + udp_len));
	put16(p + 6, 0x4000); /* DF, id 0: the header, and so its checksum, is the same every frame */
	p[8] = NB_FRAME_TTL;
	p[9] = IPPROTO_UDP_;
	memcpy(p + 12, src->ip, 4);
	memcpy(p + 16, dst->ip, 4);
	put16(p + 10, nb_csum_ip4(p, NB_IP4_HLEN));
	return p + NB_IP4_HLEN;
}

static uint8_t *put_ip6(uint8_t *p, const struct nb_frame_end *src, const struct nb_frame_end *dst,
			uint16_t udp_len, uint8_t tclass)
{
	p[0] = (uint8_t)(0x60 | tclass >> 4);
	p[1] = (uint8_t)(tclass << 4);
	p[2] = p[3] = 0; /* flow label */
	put16(p + 4, udp_len);
	p[6] = IPPROTO_UDP_;
	p[7] = NB_FRAME_TTL;
	memcpy(p + 8, src->ip, 16);
	memcpy(p + 24, dst->ip, 16);
	return p + NB_IP6_HLEN;
}

bool nb_frame_tmpl_init(struct nb_frame_tmpl *t, const struct nb_frame_end *src,
			const struct nb_frame_end *dst, bool v6, uint16_t payload_len, uint8_t tos,
			struct nb_error *err)
{
	uint32_t max = 65535u - NB_UDP_HLEN - (v6 ? 0 : NB_IP4_HLEN);
	if (payload_len > max)
		return nb_error_set(err, "a UDP payload of %u bytes does not fit an IPv%d datagram "
				    "(%u at most)", payload_len, v6 ? 6 : 4, max);
	memset(t, 0, sizeof(*t));
	uint16_t udp_len = (uint16_t)(NB_UDP_HLEN + payload_len);
	uint8_t *p = put_eth(t->hdr, src, dst, v6);
	p = v6 ? put_ip6(p, src, dst, udp_len, tos) : put_ip4(p, src, dst, udp_len, tos);
	t->udp_off = (uint16_t)(p - t->hdr);
	put16(p, src->port);
	put16(p + 2, dst->port);
	put16(p + 4, udp_len);
	put16(p + 6, 0);
	t->hdr_len = (uint16_t)(t->udp_off + NB_UDP_HLEN);
	t->payload_len = payload_len;
	t->v6 = v6;
	size_t alen = v6 ? 16 : 4;
	uint32_t s = nb_csum_add(0, src->ip, alen);
	s = nb_csum_add(s, dst->ip, alen);
	s += IPPROTO_UDP_ + udp_len;
	t->csum_base = nb_csum_add(s, p, NB_UDP_HLEN);
	return true;
}

size_t nb_frame_finish(const struct nb_frame_tmpl *t, uint8_t *frame)
{
	memcpy(frame, t->hdr, t->hdr_len);
	uint16_t c = nb_csum_fold(nb_csum_add(t->csum_base, frame + t->hdr_len, t->payload_len));
	put16(frame + t->udp_off + 6, c ? c : 0xffff);
	return nb_frame_len(t);
}

/* ---- parsing ---- */

static enum nb_frame_verdict parse_udp(const uint8_t *udp, size_t room, bool check,
				       struct nb_frame_view *v)
{
	if (room < NB_UDP_HLEN)
		return NB_FRAME_SHORT;
	uint16_t ulen = get16(udp + 4);
	if (ulen < NB_UDP_HLEN || ulen > room)
		return NB_FRAME_BAD_UDP;
	uint16_t sum = get16(udp + 6);
	if (check && (sum != 0 || v->v6)) {
		uint16_t want = v->v6 ? nb_csum_udp6(v->src_ip, v->dst_ip, udp, ulen)
				      : nb_csum_udp4(v->src_ip, v->dst_ip, udp, ulen);
		if (sum != want)
			return NB_FRAME_BAD_UDP;
	}
	v->src_port = get16(udp);
	v->dst_port = get16(udp + 2);
	v->payload = udp + NB_UDP_HLEN;
	v->payload_len = ulen - NB_UDP_HLEN;
	return NB_FRAME_OK;
}

static enum nb_frame_verdict parse_ip4(const uint8_t *ip, size_t room, bool check,
				       struct nb_frame_view *v)
{
	if (room < NB_IP4_HLEN)
		return NB_FRAME_SHORT;
	size_t hlen = (size_t)(ip[0] & 0x0f) * 4;
	uint16_t total = get16(ip + 2);
	if ((ip[0] >> 4) != 4 || hlen < NB_IP4_HLEN || total < hlen)
		return NB_FRAME_BAD_IP;
	if (total > room)
		return NB_FRAME_SHORT;
	if (nb_csum_ip4(ip, hlen) != get16(ip + 10))
		return NB_FRAME_BAD_IP;
	if (ip[9] != IPPROTO_UDP_ || (get16(ip + 6) & 0x3fff)) /* another protocol, a fragment */
		return NB_FRAME_NOT_UDP;
	v->v6 = false;
	v->src_ip = ip + 12;
	v->dst_ip = ip + 16;
	return parse_udp(ip + hlen, total - hlen, check, v);
}

static enum nb_frame_verdict parse_ip6(const uint8_t *ip, size_t room, bool check,
				       struct nb_frame_view *v)
{
	if (room < NB_IP6_HLEN)
		return NB_FRAME_SHORT;
	if ((ip[0] >> 4) != 6)
		return NB_FRAME_BAD_IP;
	size_t plen = get16(ip + 4);
	if (plen > room - NB_IP6_HLEN)
		return NB_FRAME_SHORT;
	if (ip[6] != IPPROTO_UDP_)
		return NB_FRAME_NOT_UDP;
	v->v6 = true;
	v->src_ip = ip + 8;
	v->dst_ip = ip + 24;
	return parse_udp(ip + NB_IP6_HLEN, plen, check, v);
}

enum nb_frame_verdict nb_frame_parse(const uint8_t *frame, size_t len, bool check_udp,
				     struct nb_frame_view *v)
{
	if (len < NB_ETH_HLEN)
		return NB_FRAME_SHORT;
	size_t off = NB_ETH_HLEN;
	uint16_t type = get16(frame + 12);
	if (type == ETH_P_VLAN || type == ETH_P_QINQ) {
		if (len < NB_ETH_HLEN + 4)
			return NB_FRAME_SHORT;
		type = get16(frame + 16);
		off += 4;
	}
	struct nb_frame_view out;
	enum nb_frame_verdict r;
	if (type == ETH_P_IP4)
		r = parse_ip4(frame + off, len - off, check_udp, &out);
	else if (type == ETH_P_IP6)
		r = parse_ip6(frame + off, len - off, check_udp, &out);
	else
		return NB_FRAME_NOT_IP;
	if (r == NB_FRAME_OK)
		*v = out;
	return r;
}

const char *nb_frame_verdict_name(enum nb_frame_verdict v)
{
	static const char *const names[] = {
		[NB_FRAME_OK] = "ok",           [NB_FRAME_SHORT] = "short",
		[NB_FRAME_NOT_IP] = "not-ip",   [NB_FRAME_NOT_UDP] = "not-udp",
		[NB_FRAME_BAD_IP] = "bad-ip",   [NB_FRAME_BAD_UDP] = "bad-udp",
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
