/* nbrun — the frames of the AF_XDP data path: Ethernet, IPv4 or IPv6, UDP, built and parsed
 * here because no kernel stack does it for us, with the Internet checksums they carry.
 *
 * Sending: the headers of a flow never change but for the UDP checksum, so they are laid out
 * once into a template (nb_frame_tmpl_init: addresses, ports, the payload length; IPv4 with
 * DF set and id 0, so its header checksum is fixed too) together with the partial sum of the
 * pseudo-header and the UDP header. Each frame copies the template and adds its payload's sum
 * (nb_frame_finish). Receiving: nb_frame_parse checks every length against the frame, the
 * IPv4 header checksum and (when asked) the UDP checksum, and says why it rejects a frame.
 *
 * The checksums are pure functions (RFC 1071: a ones' complement sum of 16-bit big-endian
 * words, an odd last byte padded with zero; RFC 768 / RFC 8200: UDP over a pseudo-header, a
 * computed 0 sent as 0xffff). Everything is big-endian on the wire; ports here are host order.
 */
#ifndef NB_XDP_FRAME_H
#define NB_XDP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nb_error; /* the caller's error text (engine.h) */

#define NB_ETH_HLEN 14u
#define NB_IP4_HLEN 20u
#define NB_IP6_HLEN 40u
#define NB_UDP_HLEN 8u
#define NB_FRAME_HDR_MAX (NB_ETH_HLEN + NB_IP6_HLEN + NB_UDP_HLEN)
#define NB_FRAME_TTL 64u

/** Add len bytes at buf to a running ones' complement sum (not folded; an odd last byte is
 *  padded with zero, so only the last piece of a sum may be odd). */
uint32_t nb_csum_add(uint32_t sum, const void *buf, size_t len);
/** Fold a running sum to 16 bits and complement it: the checksum field's value (host order). */
uint16_t nb_csum_fold(uint32_t sum);
/** The IPv4 header checksum of hdr (hlen bytes, its checksum field read as zero). */
uint16_t nb_csum_ip4(const uint8_t *hdr, size_t hlen);
/** The UDP checksum of the datagram udp (len bytes: header and payload, its checksum field read
 *  as zero) between src and dst (4 bytes each); 0xffff where the sum is 0. */
uint16_t nb_csum_udp4(const uint8_t *src, const uint8_t *dst, const uint8_t *udp, size_t len);
/** The same over IPv6 (src and dst 16 bytes each). */
uint16_t nb_csum_udp6(const uint8_t *src, const uint8_t *dst, const uint8_t *udp, size_t len);

/** One end of a flow as the wire sees it. */
struct nb_frame_end {
	uint8_t mac[6];
	uint8_t ip[16];         /* IPv4: the first 4 bytes */
	uint16_t port;          /* host order */
};

/** The fixed part of one flow's frames (see above). */
struct nb_frame_tmpl {
	uint8_t hdr[NB_FRAME_HDR_MAX];
	uint16_t hdr_len;       /* 42 (IPv4) or 62 (IPv6): the payload starts here */
	uint16_t payload_len;
	uint16_t udp_off;       /* where the UDP header starts */
	uint32_t csum_base;     /* pseudo-header + UDP header, checksum field zero */
	bool v6;
};

/** Lay out the headers of frames from src to dst with payload_len bytes of payload, over IPv6
 *  when v6; tos is the IPv4 TOS / IPv6 traffic class. False with err when the frame would not
 *  fit an IP datagram. */
bool nb_frame_tmpl_init(struct nb_frame_tmpl *t, const struct nb_frame_end *src,
			const struct nb_frame_end *dst, bool v6, uint16_t payload_len, uint8_t tos,
			struct nb_error *err);
/** The frame's length (headers and payload). */
static inline size_t nb_frame_len(const struct nb_frame_tmpl *t)
{
	return (size_t)t->hdr_len + t->payload_len;
}
/** Complete a frame whose payload is already at frame + t->hdr_len: copy the headers in and
 *  set the UDP checksum. Returns the frame's length. */
size_t nb_frame_finish(const struct nb_frame_tmpl *t, uint8_t *frame);

/** Why nb_frame_parse took or left a frame. */
enum nb_frame_verdict {
	NB_FRAME_OK,
	NB_FRAME_SHORT,         /* shorter than the headers it announces */
	NB_FRAME_NOT_IP,        /* not IPv4 or IPv6 (ARP, LLDP ...) */
	NB_FRAME_NOT_UDP,       /* another protocol, an IPv6 extension header, or a fragment */
	NB_FRAME_BAD_IP,        /* IPv4 header length, total length or checksum wrong */
	NB_FRAME_BAD_UDP,       /* UDP length beyond the IP payload, or the checksum wrong */
};

/** A parsed frame: pointers into it. */
struct nb_frame_view {
	bool v6;
	const uint8_t *src_ip, *dst_ip; /* 4 or 16 bytes */
	uint16_t src_port, dst_port;    /* host order */
	const uint8_t *payload;
	size_t payload_len;             /* from the UDP header (Ethernet padding left out) */
};

/** Parse an Ethernet frame of len bytes (one VLAN tag allowed). With check_udp, a UDP checksum
 *  that does not match is NB_FRAME_BAD_UDP (a zero one over IPv4 means "none" and passes). *v
 *  is filled only for NB_FRAME_OK. */
enum nb_frame_verdict nb_frame_parse(const uint8_t *frame, size_t len, bool check_udp,
				     struct nb_frame_view *v);
/** A verdict's name ("ok", "short", ...). */
const char *nb_frame_verdict_name(enum nb_frame_verdict v);

#endif
