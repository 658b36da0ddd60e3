/* nbrun — address ranges: who may connect to an agent at all (`nbrun serve --allow CIDR`). */
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

#endif
