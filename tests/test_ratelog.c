/* A flood's log lines (ratelog.h) and who counts as one source (cidr.h): the pieces the agent
 * keeps its log and its handshake slots with under a flood (issue 29 items 4 and 6). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "cidr.h"
#include "ratelog.h"

Test(ratelog, a_burst_is_shown_then_counted_then_summed_once_per_interval)
{
	struct nb_ratelog r;
	nb_ratelog_init(&r, 3, 1000, 0);
	int shown = 0;
	for (int i = 0; i < 10; i++)
		shown += nb_ratelog_take(&r, 100);
	cr_expect_eq(shown, 3, "the first three lines");
	cr_expect_eq(nb_ratelog_flush(&r, 900), 0, "nothing said before the interval is over");
	cr_expect_eq(nb_ratelog_flush(&r, 1000), 7, "then how many were held");
	for (int i = 0; i < 5; i++)
		shown += nb_ratelog_take(&r, 1500);
	cr_expect_eq(shown, 3, "a flood that goes on shows no new line");
	cr_expect_eq(nb_ratelog_flush(&r, 2000), 5, "only its summary");
	cr_expect_eq(nb_ratelog_flush(&r, 3000), 0, "a quiet interval says nothing");
	cr_expect(nb_ratelog_take(&r, 4500), "and after it the next event is shown at once");
	nb_ratelog_destroy(&r);
}

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

Test(ratelog, a_source_is_one_ipv4_address_or_one_ipv6_64)
{
	cr_expect(same("192.0.2.7", "192.0.2.7"));
	cr_expect_not(same("192.0.2.7", "192.0.2.8"));
	cr_expect(same("2001:db8:1:2::1", "2001:db8:1:2:ffff::9"), "one /64");
	cr_expect_not(same("2001:db8:1:2::1", "2001:db8:1:3::1"));
	cr_expect(same("::ffff:192.0.2.7", "192.0.2.7"), "IPv4-mapped is IPv4");
	cr_expect_not(same("::ffff:192.0.2.7", "::ffff:192.0.2.8"), "not a /64 of mapped addresses");
}

Test(ratelog, addresses_have_their_kinds)
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
