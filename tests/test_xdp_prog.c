/* The XDP program itself (engines/xdp/xdp_redirect.bpf.c), run by the kernel on frames of our
 * own (BPF_PROG_TEST_RUN, no interface): it picks the test's UDP flows — IPv4 and IPv6, by
 * destination port inside the loader's range — and nothing else. Its verdict on every frame is
 * XDP_PASS (no socket is in the XSKMAP here), and its counters say which it picked: a test frame
 * counts no_socket (it would have been redirected), anything else counts passed. Needs root
 * (CAP_BPF); skipped otherwise. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <linux/bpf.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "xdp_frame.h"
#include "xdp_prog.h"

static struct nb_xdp_prog *prog;

static void setup(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to load a BPF program");
	struct nb_xdp_prog_config cfg = { .port_lo = 7600, .port_hi = 7609, .queues = 4 };
	struct nb_error err = { { 0 } };
	cr_assert(nb_xdp_prog_load(&cfg, &prog, &err), "%s", err.msg);
}

static void teardown(void)
{
	nb_xdp_prog_detach(prog);
	prog = NULL;
}

TestSuite(xdp_prog, .init = setup, .fini = teardown);

/* A UDP frame to dport, IPv6 when v6, with 64 bytes of payload; its length. */
static size_t udp_frame(uint8_t *f, bool v6, uint16_t dport)
{
	struct nb_frame_end s = { .mac = { 2, 0, 0, 0, 0, 1 }, .port = 40000 };
	struct nb_frame_end d = { .mac = { 2, 0, 0, 0, 0, 2 }, .port = dport };
	inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? "fd00::1" : "10.0.0.1", s.ip);
	inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? "fd00::2" : "10.0.0.2", d.ip);
	struct nb_frame_tmpl t;
	cr_assert(nb_frame_tmpl_init(&t, &s, &d, v6, 64, 0, NULL));
	memset(f + t.hdr_len, 0, 64);
	return nb_frame_finish(&t, f);
}

/* Run the program on the frame: 1 when it picked it (no_socket grew), 0 when it passed it. */
static int picked(const uint8_t *f, size_t len)
{
	uint64_t before[NB_XDP_STAT_N], after[NB_XDP_STAT_N];
	struct nb_error err = { { 0 } };
	uint32_t action = 0;
	cr_assert(nb_xdp_prog_stats(prog, before, &err), "%s", err.msg);
	cr_assert(nb_xdp_prog_run(prog, f, (uint32_t)len, &action, &err), "%s", err.msg);
	cr_assert(nb_xdp_prog_stats(prog, after, &err), "%s", err.msg);
	cr_assert_eq(action, XDP_PASS, "never a drop: %u", action);
	uint64_t p = after[NB_XDP_STAT_NO_SOCKET] - before[NB_XDP_STAT_NO_SOCKET];
	uint64_t q = after[NB_XDP_STAT_PASSED] - before[NB_XDP_STAT_PASSED];
	cr_assert_eq(p + q, 1, "each frame counts once: picked %llu, passed %llu",
		     (unsigned long long)p, (unsigned long long)q);
	cr_assert_eq(after[NB_XDP_STAT_REDIRECTED], before[NB_XDP_STAT_REDIRECTED]);
	return (int)p;
}

static void fix_ip4_csum(uint8_t *f)
{
	f[24] = f[25] = 0;
	uint16_t c = nb_csum_ip4(f + NB_ETH_HLEN, NB_IP4_HLEN);
	f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
}

Test(xdp_prog, picks_the_test_ports_over_ipv4_and_ipv6_and_only_them)
{
	static const struct { bool v6; uint16_t port; int want; } cases[] = {
		{ false, 7600, 1 }, { false, 7609, 1 }, { false, 7605, 1 }, { false, 7599, 0 },
		{ false, 7610, 0 }, { false, 22, 0 },   { false, 7575, 0 }, { true, 7600, 1 },
		{ true, 7609, 1 },  { true, 7610, 0 },  { true, 53, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[256];
		size_t n = udp_frame(f, cases[i].v6, cases[i].port);
		cr_expect_eq(picked(f, n), cases[i].want, "IPv%d port %u", cases[i].v6 ? 6 : 4,
			     cases[i].port);
	}
}

Test(xdp_prog, tcp_fragments_extension_headers_arp_and_runts_pass)
{
	uint8_t f[256];
	size_t n = udp_frame(f, false, 7600);
	f[23] = 6; /* TCP to the test port: the control connection's kind of traffic */
	fix_ip4_csum(f);
	cr_expect_eq(picked(f, n), 0, "TCP");
	n = udp_frame(f, false, 7600);
	f[20] |= 0x20; /* more fragments */
	fix_ip4_csum(f);
	cr_expect_eq(picked(f, n), 0, "a first fragment");
	n = udp_frame(f, false, 7600);
	f[21] = 0x10; /* a later fragment: offset 16 */
	fix_ip4_csum(f);
	cr_expect_eq(picked(f, n), 0, "a later fragment");
	n = udp_frame(f, true, 7600);
	f[20] = 0; /* IPv6 next header: hop-by-hop options */
	cr_expect_eq(picked(f, n), 0, "an IPv6 extension header");
	n = udp_frame(f, false, 7600);
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	cr_expect_eq(picked(f, n), 0, "ARP");
	n = udp_frame(f, false, 7600);
	cr_expect_eq(picked(f, NB_ETH_HLEN + 10), 0, "cut inside the IP header");
	cr_expect_eq(picked(f, NB_ETH_HLEN + NB_IP4_HLEN + 4), 0, "cut inside the UDP header");
	cr_expect_eq(picked(f, n), 1, "the same frame whole");
}

Test(xdp_prog, a_vlan_tag_and_ipv4_options_are_looked_through)
{
	uint8_t f[256], g[256];
	size_t n = udp_frame(f, false, 7601);
	memcpy(g, f, 12);
	g[12] = 0x81, g[13] = 0x00, g[14] = 0x00, g[15] = 0x0a; /* 802.1Q, VLAN 10 */
	memcpy(g + 16, f + 12, n - 12);
	cr_expect_eq(picked(g, n + 4), 1, "802.1Q");
	g[12] = 0x88, g[13] = 0xa8;
	cr_expect_eq(picked(g, n + 4), 1, "802.1ad");
	/* IHL 6: four bytes of options (NOPs) before the UDP header. */
	memcpy(g, f, NB_ETH_HLEN + NB_IP4_HLEN);
	memset(g + NB_ETH_HLEN + NB_IP4_HLEN, 1, 4);
	memcpy(g + NB_ETH_HLEN + NB_IP4_HLEN + 4, f + NB_ETH_HLEN + NB_IP4_HLEN,
	       n - NB_ETH_HLEN - NB_IP4_HLEN);
	g[NB_ETH_HLEN] = 0x46;
	cr_expect_eq(picked(g, n + 4), 1, "IPv4 with options");
}
