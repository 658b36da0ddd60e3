/* Who counts as one source, and what kind of address one is (cidr.h): what the agent shares its
 * handshake slots by under a flood, and where it never sends (issue 29 items 2 and 4). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "cidr.h"

static struct sockaddr_storage addr_of(const char *text)
{
	struct sockaddr_storage ss = { 0 };
	if (strchr(text, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, text, &a->sin6_addr), 1, "%s", text);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, text, &a->sin_addr), 1, "%s", text);
	}
	return ss;
}

static bool same(const char *x, const char *y)
{
	struct sockaddr_storage a = addr_of(x), b = addr_of(y);
	return nb_cidr_same_source(&a, &b);
}

Test(sources, a_source_is_one_ipv4_address_or_one_ipv6_64)
{
	cr_expect(same("192.0.2.7", "192.0.2.7"));
	cr_expect_not(same("192.0.2.7", "192.0.2.8"));
	cr_expect(same("2001:db8:1:2::1", "2001:db8:1:2:ffff::9"), "one /64");
	cr_expect_not(same("2001:db8:1:2::1", "2001:db8:1:3::1"));
	cr_expect(same("::ffff:192.0.2.7", "192.0.2.7"), "IPv4-mapped is IPv4");
	cr_expect_not(same("::ffff:192.0.2.7", "::ffff:192.0.2.8"), "not a /64 of mapped addresses");
}

Test(sources, addresses_have_their_kinds)
{
	struct { const char *addr; enum nb_addr_kind k; } t[] = {
		{ "10.1.2.3", NB_ADDR_HOST }, { "127.0.0.1", NB_ADDR_LOOPBACK },
		{ "169.254.169.254", NB_ADDR_LINK_LOCAL }, { "224.0.0.251", NB_ADDR_MULTICAST },
		{ "0.0.0.0", NB_ADDR_UNSPECIFIED }, { "255.255.255.255", NB_ADDR_RESERVED },
		{ "::1", NB_ADDR_LOOPBACK }, { "fe80::1", NB_ADDR_LINK_LOCAL },
		{ "ff02::1", NB_ADDR_MULTICAST }, { "::", NB_ADDR_UNSPECIFIED },
		{ "2001:db8::1", NB_ADDR_HOST }, { "::ffff:127.0.0.2", NB_ADDR_LOOPBACK },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sockaddr_storage a = addr_of(t[i].addr);
		cr_expect_eq(nb_cidr_kind_of(&a), t[i].k, "%s", t[i].addr);
	}
}
