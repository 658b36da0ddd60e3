/* nbrun — address ranges (see cidr.h). */
#include "cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool nb_cidr_parse(const char *s, struct nb_cidr *out, struct nb_error *err)
{
	char host[64];
	const char *slash = strchr(s, '/');
	size_t hn = slash ? (size_t)(slash - s) : strlen(s);
	struct nb_cidr c = { 0 };
	if (hn == 0 || hn >= sizeof(host))
		return nb_error_set(err, "--allow '%s': expected ADDRESS[/PREFIX], e.g. 10.0.0.0/8", s);
	memcpy(host, s, hn);
	host[hn] = '\0';
	c.family = strchr(host, ':') ? AF_INET6 : AF_INET;
	unsigned max = c.family == AF_INET ? 32 : 128;
	c.prefix = max;
	if (inet_pton(c.family, host, c.addr) != 1)
		return nb_error_set(err, "--allow '%s': '%s' is no IP address", s, host);
	if (slash) {
		char *end;
		unsigned long v = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || slash[1] == '-' || v > max)
			return nb_error_set(err, "--allow '%s': prefix length must be 0..%u", s, max);
		c.prefix = (unsigned)v;
	}
	*out = c;
	return true;
}

/* The address's bytes and family, an IPv4-mapped IPv6 address as IPv4. */
static int addr_bytes(const struct sockaddr_storage *a, const unsigned char **b)
{
	if (a->ss_family == AF_INET) {
		*b = (const unsigned char *)&((const struct sockaddr_in *)a)->sin_addr;
		return AF_INET;
	}
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
	*b = a6->s6_addr + (IN6_IS_ADDR_V4MAPPED(a6) ? 12 : 0);
	return IN6_IS_ADDR_V4MAPPED(a6) ? AF_INET : AF_INET6;
}

static bool in_range(const struct nb_cidr *c, int family, const unsigned char *b)
{
	if (c->family != family)
		return false;
	unsigned whole = c->prefix / 8, rest = c->prefix % 8;
	if (memcmp(c->addr, b, whole) != 0)
		return false;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return rest == 0 || ((c->addr[whole] ^ b[whole]) & mask) == 0;
}

bool nb_cidr_match(const struct nb_cidr *list, size_t n, const struct sockaddr_storage *addr)
{
	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return false;
	const unsigned char *b;
	int family = addr_bytes(addr, &b);
	for (size_t i = 0; i < n; i++)
		if (in_range(&list[i], family, b))
			return true;
	return false;
}

void nb_cidr_str(const struct nb_cidr *c, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	inet_ntop(c->family, c->addr, host, sizeof(host));
	snprintf(out, n, "%s/%u", host, c->prefix);
}

static enum nb_addr_kind kind4(const unsigned char *b)
{
	if (b[0] == 0)
		return NB_ADDR_UNSPECIFIED;
	if (b[0] == 127)
		return NB_ADDR_LOOPBACK;
	if (b[0] == 169 && b[1] == 254)
		return NB_ADDR_LINK_LOCAL;
	if (b[0] >= 224 && b[0] < 240)
		return NB_ADDR_MULTICAST;
	return b[0] >= 240 ? NB_ADDR_RESERVED : NB_ADDR_HOST;
}

enum nb_addr_kind nb_cidr_kind(int family, const unsigned char *b)
{
	static const unsigned char zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };
	if (family == AF_INET)
		return kind4(b);
	if (family != AF_INET6)
		return NB_ADDR_RESERVED;
	if (memcmp(b, mapped, sizeof(mapped)) == 0)
		return kind4(b + 12);
	if (memcmp(b, zero, 16) == 0)
		return NB_ADDR_UNSPECIFIED;
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return NB_ADDR_LOOPBACK;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return NB_ADDR_LINK_LOCAL;
	return b[0] == 0xff ? NB_ADDR_MULTICAST : NB_ADDR_HOST;
}

enum nb_addr_kind nb_cidr_kind_of(const struct sockaddr_storage *a)
{
	if (a->ss_family != AF_INET && a->ss_family != AF_INET6)
		return NB_ADDR_RESERVED;
	const unsigned char *b;
	int family = addr_bytes(a, &b);
	return nb_cidr_kind(family, b);
}

const char *nb_cidr_kind_name(enum nb_addr_kind k)
{
	static const char *const names[] = { "a host address", "a loopback address",
					     "a link-local address", "a multicast address",
					     "the unspecified address", "a reserved or broadcast address" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "address";
}

bool nb_cidr_same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if ((a->ss_family != AF_INET && a->ss_family != AF_INET6) ||
	    (b->ss_family != AF_INET && b->ss_family != AF_INET6))
		return false;
	const unsigned char *x, *y;
	int fx = addr_bytes(a, &x), fy = addr_bytes(b, &y);
	return fx == fy && memcmp(x, y, fx == AF_INET ? 4 : 8) == 0;
}
