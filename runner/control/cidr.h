/* nbrun — address ranges: who may connect to an agent at all (`nbrun serve --allow CIDR`), what
 * kind of address a peer or a target is, and which addresses count as one source. */
#ifndef NB_CIDR_H
#define NB_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "nb_error.h"

/** One range: an IPv4 or IPv6 network and its prefix length. */
struct nb_cidr {
	int family;                 /* AF_INET or AF_INET6 */
	unsigned char addr[16];     /* network bytes (4 used for IPv4) */
	unsigned prefix;            /* 0..32 or 0..128 */
};

/** Parse "10.0.0.0/8", "192.0.2.7" (a /32), "2001:db8::/32" or "::1"; err says why not. */
bool nb_cidr_parse(const char *s, struct nb_cidr *out, struct nb_error *err);
/** Whether addr (IPv4, IPv6, or IPv4-mapped IPv6 as IPv4) lies in any of the n ranges. */
bool nb_cidr_match(const struct nb_cidr *list, size_t n, const struct sockaddr_storage *addr);
/** "10.0.0.0/8" text of a range. */
void nb_cidr_str(const struct nb_cidr *c, char *out, size_t n);

/** What kind of address one is, where an agent decides whom it may send to. */
enum nb_addr_kind {
	NB_ADDR_HOST,          /* one host elsewhere */
	NB_ADDR_LOOPBACK,      /* 127.0.0.0/8, ::1: this host */
	NB_ADDR_LINK_LOCAL,    /* 169.254.0.0/16, fe80::/10: the link (a cloud's metadata service) */
	NB_ADDR_MULTICAST,     /* 224.0.0.0/4, ff00::/8 */
	NB_ADDR_UNSPECIFIED,   /* 0.0.0.0/8, :: */
	NB_ADDR_RESERVED,      /* 240.0.0.0/4 and the broadcast address */
};

/** The kind of an address's bytes: family AF_INET (4 bytes) or AF_INET6 (16; IPv4-mapped ones
 *  as IPv4). */
enum nb_addr_kind nb_cidr_kind(int family, const unsigned char *bytes);
/** The same for a socket address (NB_ADDR_RESERVED for one that is neither IPv4 nor IPv6). */
enum nb_addr_kind nb_cidr_kind_of(const struct sockaddr_storage *a);
/** Words for a kind: "a loopback address", "the unspecified address" ... */
const char *nb_cidr_kind_name(enum nb_addr_kind k);
/** Whether a and b count as one source where an agent limits what one source may hold: the same
 *  IPv4 address, or the same IPv6 /64 (one host usually owns a whole /64). */
bool nb_cidr_same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
