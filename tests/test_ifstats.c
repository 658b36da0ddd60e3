/* Interface counters: sysfs parsing against a fixture tree, the real lo under a burst of
 * datagrams, and which interface carries traffic to a peer. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture_util.h"
#include "ifstats.h"

static const struct nb_ifstats sentinel = { 11, 22, 33, 44, 55 };

static const char *fixture_root(void)
{
	static char path[512];
	return nbt_fixture_path("ifstats-root", path, sizeof(path));
}

static void assert_untouched(const struct nb_ifstats *s)
{
	cr_assert_eq(memcmp(s, &sentinel, sizeof(*s)), 0, "a failed read changed its output");
}

Test(ifstats, reads_every_counter_of_a_fixture_interface)
{
	struct nb_ifstats s = sentinel;
	struct nb_error err = { "" };
	cr_assert(nb_ifstats_read(fixture_root(), "eth9", &s, &err), "%s", err.msg);
	cr_assert_eq(s.rx_packets, 123456789012ull);
	cr_assert_eq(s.tx_packets, 42);
	cr_assert_eq(s.rx_bytes, 18446744073709551615ull);
	cr_assert_eq(s.tx_bytes, 0);
	cr_assert_eq(s.rx_dropped, 7);
}

Test(ifstats, unknown_interface_fails_and_names_the_path)
{
	struct nb_ifstats s = sentinel;
	struct nb_error err = { "" };
	cr_assert_not(nb_ifstats_read(fixture_root(), "nope0", &s, &err));
	cr_assert_not_null(strstr(err.msg, "nope0/statistics/rx_packets"), "%s", err.msg);
	assert_untouched(&s);
}

Test(ifstats, a_missing_counter_file_fails)
{
	struct nb_ifstats s = sentinel;
	struct nb_error err = { "" };
	cr_assert_not(nb_ifstats_read(fixture_root(), "part0", &s, &err));
	cr_assert_not_null(strstr(err.msg, "rx_dropped"), "%s", err.msg);
	assert_untouched(&s);
}

Test(ifstats, a_non_numeric_counter_fails)
{
	struct nb_ifstats s = sentinel;
	struct nb_error err = { "" };
	cr_assert_not(nb_ifstats_read(fixture_root(), "bad0", &s, &err));
	cr_assert_not_null(strstr(err.msg, "tx_bytes: expected a decimal counter, got \"12x\""),
			   "%s", err.msg);
	assert_untouched(&s);
}

/* Table: what one counter file may hold. */
static const struct {
	const char *text;
	bool ok;
	uint64_t value;
} counter_cases[] = {
	{ "0\n", true, 0 },
	{ "5", true, 5 },
	{ "18446744073709551615\n", true, UINT64_MAX },
	{ "18446744073709551616\n", false, 0 },
	{ "-1\n", false, 0 },
	{ " 5\n", false, 0 },
	{ "\n", false, 0 },
	{ "", false, 0 },
	{ "5 6\n", false, 0 },
	{ "0x10\n", false, 0 },
};

static void write_tree(const char *root, const char *rx_packets)
{
	static const char *names[] = { "rx_packets", "tx_packets", "rx_bytes", "tx_bytes",
				       "rx_dropped" };
	char path[512];
	snprintf(path, sizeof(path), "%s/t0", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t0/statistics", root);
	mkdir(path, 0755);
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/t0/statistics/%s", root, names[i]);
		FILE *fp = fopen(path, "w");
		cr_assert_not_null(fp);
		fputs(i == 0 ? rx_packets : "1\n", fp);
		fclose(fp);
	}
}

Test(ifstats, counter_text_is_strictly_decimal)
{
	char root[64];
	cr_assert(nbt_tmpdir("ifstats", root, sizeof(root)));
	for (size_t i = 0; i < sizeof(counter_cases) / sizeof(counter_cases[0]); i++) {
		write_tree(root, counter_cases[i].text);
		struct nb_ifstats s = sentinel;
		struct nb_error err = { "" };
		bool ok = nb_ifstats_read(root, "t0", &s, &err);
		cr_expect_eq(ok, counter_cases[i].ok, "case \"%s\": %s", counter_cases[i].text, err.msg);
		if (ok)
			cr_expect_eq(s.rx_packets, counter_cases[i].value, "case \"%s\"",
				     counter_cases[i].text);
		else
			assert_untouched(&s);
	}
	nbt_rmtree(root);
}

Test(ifstats, interface_names_that_escape_the_root_are_refused)
{
	static const char *bad[] = { "", ".", "..", "../eth9", "a/b", "0123456789abcdefXYZ" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nb_ifstats s = sentinel;
		struct nb_error err = { "" };
		cr_expect_not(nb_ifstats_read(fixture_root(), bad[i], &s, &err), "\"%s\"", bad[i]);
		cr_expect_not_null(strstr(err.msg, "bad interface name"), "%s", err.msg);
		assert_untouched(&s);
	}
}

/* Loopback counts every datagram once as tx and once as rx; other traffic on lo only adds. */
Test(ifstats, lo_counters_grow_by_at_least_a_burst_of_real_datagrams)
{
	enum { N = 500, PAYLOAD = 100 };
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int big = 4 << 20;
	setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	cr_assert_eq(bind(rx, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(rx, (struct sockaddr *)&a, &alen), 0);
	cr_assert_eq(connect(tx, (struct sockaddr *)&a, sizeof(a)), 0);
	struct nb_ifstats before, after;
	struct nb_error err = { "" };
	cr_assert(nb_ifstats_read(NULL, "lo", &before, &err), "%s", err.msg);
	char buf[PAYLOAD] = { 0 };
	for (int i = 0; i < N; i++)
		cr_assert_eq(send(tx, buf, sizeof(buf), 0), PAYLOAD);
	cr_assert(nb_ifstats_read(NULL, "lo", &after, &err), "%s", err.msg);
	cr_expect_geq(after.tx_packets - before.tx_packets, N);
	cr_expect_geq(after.rx_packets - before.rx_packets, N);
	cr_expect_geq(after.tx_bytes - before.tx_bytes, (uint64_t)N * (PAYLOAD + 8 + 20));
	cr_expect_geq(after.rx_bytes - before.rx_bytes, (uint64_t)N * (PAYLOAD + 8 + 20));
	cr_expect_geq(after.rx_dropped, before.rx_dropped);
	close(tx);
	close(rx);
}

static void route_of(const char *text, int family, char *name, size_t n, bool expect_ok)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, text, &in->sin_addr), 1);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
		len = sizeof(*in6);
	}
	struct nb_error err = { "" };
	bool ok = nb_ifstats_route_ifname((struct sockaddr *)&ss, len, name, n, &err);
	cr_assert_eq(ok, expect_ok, "%s: %s", text, err.msg);
}

Test(ifstats, loopback_peers_are_carried_by_lo)
{
	static const struct { const char *addr; int family; } cases[] = {
		{ "127.0.0.1", AF_INET }, { "127.3.2.1", AF_INET }, { "::1", AF_INET6 },
		{ "::ffff:127.0.0.1", AF_INET6 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[IFNAMSIZ] = "sentinel";
		route_of(cases[i].addr, cases[i].family, name, sizeof(name), true);
		cr_expect_str_eq(name, "lo", "%s", cases[i].addr);
	}
}

/* One of this host's non-loopback IPv4 addresses (the last listed); skips the test when none. */
static struct sockaddr_in own_ipv4(void)
{
	struct ifaddrs *list = NULL;
	cr_assert_eq(getifaddrs(&list), 0);
	struct sockaddr_in own = { 0 };
	for (struct ifaddrs *i = list; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK))
			own = *(struct sockaddr_in *)i->ifa_addr;
	freeifaddrs(list);
	if (own.sin_family != AF_INET)
		cr_skip_test("no non-loopback IPv4 address on this host");
	return own;
}

/* Traffic to one of our own (non-loopback) addresses never leaves the host: lo carries it. */
Test(ifstats, our_own_address_is_carried_by_lo)
{
	struct sockaddr_in own = own_ipv4();
	char addr[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &own.sin_addr, addr, sizeof(addr));
	char name[IFNAMSIZ] = "sentinel";
	route_of(addr, AF_INET, name, sizeof(name), true);
	cr_assert_str_eq(name, "lo", "%s", addr);
}

Test(ifstats, a_name_buffer_too_small_is_an_error)
{
	char name[2] = "x";
	route_of("127.0.0.1", AF_INET, name, sizeof(name), false);
	cr_assert_str_eq(name, "x");
}

Test(ifstats, a_peer_that_is_not_ip_is_refused)
{
	struct sockaddr sa = { .sa_family = AF_UNIX };
	char name[IFNAMSIZ] = "";
	struct nb_error err = { "" };
	cr_assert_not(nb_ifstats_route_ifname(&sa, sizeof(sa), name, sizeof(name), &err));
	cr_assert_str_eq(err.msg, "route lookup: not an IPv4 or IPv6 address");
}

Test(ifstats, the_route_to_ipv6_loopback_is_lo_from_its_own_address)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct nb_ifstats_route r;
	struct nb_error err = { "" };
	if (!nb_ifstats_route((struct sockaddr *)&a, sizeof(a), &r, &err))
		cr_skip_test("no IPv6 loopback here: %s", err.msg);
	cr_expect_str_eq(r.ifname, "lo");
	cr_expect_str_eq(r.local, "::1");
}

/* The route to our own address names that address as the source and lo's MTU as the path's:
 * what env.json records is the loopback path, not the interface holding the address. */
Test(ifstats, the_route_to_our_own_address_is_the_loopback_path)
{
	struct sockaddr_in own = own_ipv4();
	struct nb_ifstats_route r, lo;
	struct nb_error err = { "" };
	struct sockaddr_in loop = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert(nb_ifstats_route((struct sockaddr *)&own, sizeof(own), &r, &err), "%s", err.msg);
	cr_assert(nb_ifstats_route((struct sockaddr *)&loop, sizeof(loop), &lo, &err), "%s", err.msg);
	char addr[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &own.sin_addr, addr, sizeof(addr));
	cr_expect_str_eq(r.ifname, "lo");
	cr_expect_str_eq(r.local, addr);
	cr_expect_eq(r.path_mtu, lo.path_mtu, "path MTU %d, lo's %d", r.path_mtu, lo.path_mtu);
}

/* A dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d: the route to that form is the
 * route to a.b.c.d, named by its IPv4 source address (no interface holds the mapped form). */
Test(ifstats, an_ipv4_mapped_peer_is_routed_as_its_ipv4_address)
{
	struct sockaddr_in own = own_ipv4();
	struct sockaddr_in6 mapped = { .sin6_family = AF_INET6 };
	mapped.sin6_addr.s6_addr[10] = mapped.sin6_addr.s6_addr[11] = 0xff;
	memcpy(mapped.sin6_addr.s6_addr + 12, &own.sin_addr, 4);
	struct nb_ifstats_route r, v4;
	struct nb_error err = { "" };
	cr_assert(nb_ifstats_route((struct sockaddr *)&own, sizeof(own), &v4, &err), "%s", err.msg);
	cr_assert(nb_ifstats_route((struct sockaddr *)&mapped, sizeof(mapped), &r, &err), "%s", err.msg);
	cr_expect_str_eq(r.ifname, v4.ifname);
	cr_expect_str_eq(r.local, v4.local);
	cr_expect_eq(r.path_mtu, v4.path_mtu);
}
