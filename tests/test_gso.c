/* net suite: UDP GSO and GRO in the stream engine end to end (agent, control protocol, client,
 * real sockets). A GSO run counts every datagram exactly: over the whole flow the datagrams
 * sent are those received plus those dropped, where the drops are the receiver's full buffer
 * (SO_MEMINFO) and, in a namespace of the test's own, an nftables rule that drops every tenth
 * datagram; and a path that refuses GSO gets sendmmsg and says so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbt_pair.h"
#include "nbt_stream.h"
#include "udpgso.h"

TestSuite(gso, .timeout = 120);

/* Over the whole flow (final counters, after the drain): sent = received + dropped, dropped
 * being the receiver's buffer drops plus `dropped` more; nothing received twice. */
static void assert_flow_exact(const struct nbt_capture *cap, uint64_t dropped)
{
	const struct nb_flow_snap *tx = &cap->l.flow[0], *rx = &cap->p.flow[0];
	cr_assert_gt(tx->c[NB_C_TX_PACKETS], 0);
	cr_expect_eq(tx->c[NB_C_TX_PACKETS], rx->c[NB_C_RX_PACKETS] + rx->c[NB_C_RCVBUF_DROPS] + dropped,
		     "sent %llu, received %llu, buffer drops %llu, dropped by the test %llu",
		     (unsigned long long)tx->c[NB_C_TX_PACKETS],
		     (unsigned long long)rx->c[NB_C_RX_PACKETS],
		     (unsigned long long)rx->c[NB_C_RCVBUF_DROPS], (unsigned long long)dropped);
	cr_expect_eq(rx->c[NB_C_DUP], 0);
	cr_expect_eq(rx->c[NB_C_RX_BYTES], rx->c[NB_C_RX_PACKETS] * cap->su->params.size);
}

/* A 1-stream forward UDP stream case of size-byte datagrams at rate (0 = unpaced) with gso on,
 * run end to end; its rows hold their identities and its sender used GSO as `gso` says. */
static void run_gso(uint32_t size, uint64_t rate, enum nb_gso gso, struct nbt_capture *cap,
		    struct nb_test_result *res)
{
	static struct nb_msg_setup su;
	su = nbt_stream_setup(NB_PROTO_UDP, NB_DIR_FORWARD, 1, size, rate);
	su.params.gso = true;
	nbt_stream_open();
	cr_assert_eq(nbt_stream_run(&su, cap, res), NB_OUT_OK, "%s", res->error);
	nbt_stream_close();
	nbt_stream_assert_udp_rows(cap, res);
	cr_expect_eq(cap->l.flow[0].g[NB_G_GSO], gso, "gso=%s", nb_gso_name(cap->l.flow[0].g[NB_G_GSO]));
}

/* Unpaced on loopback: GSO sends, a GRO receiver (loopback never cuts the buffers, so they
 * arrive coalesced and are split by their UDP_GRO size, every datagram counted by its header).
 * The only loss is the receiver's full buffer, which drops whole coalesced buffers and counts
 * each once: rcvbuf_drops then counts buffers, so over the flow sent - received lies between
 * the drops and 46 x the drops (every send is 46 datagrams, unpaced). */
Test(gso, an_unpaced_gso_run_counts_every_datagram_through_gro)
{
	struct nbt_capture cap;
	struct nb_test_result res;
	run_gso(1400, 0, NB_GSO_ON, &cap, &res);
	cr_expect_eq(cap.p.flow[0].g[NB_G_GRO], NB_GRO_ON);
	cr_expect_eq(cap.p.flow[0].g[NB_G_GSO], NB_GSO_NONE, "the receiver sends nothing");
	const struct nb_flow_snap *tx = &cap.l.flow[0], *rx = &cap.p.flow[0];
	uint64_t missing = tx->c[NB_C_TX_PACKETS] - rx->c[NB_C_RX_PACKETS];
	cr_assert_gt(rx->c[NB_C_RX_PACKETS], 0);
	cr_expect_eq(rx->c[NB_C_RX_BYTES], 1400 * rx->c[NB_C_RX_PACKETS], "datagrams, not buffers");
	cr_expect_eq(rx->c[NB_C_DUP], 0);
	cr_expect_geq(missing, rx->c[NB_C_RCVBUF_DROPS]);
	cr_expect_leq(missing, nb_udpgso_segs(1400) * rx->c[NB_C_RCVBUF_DROPS], "missing %llu, drops %llu",
		      (unsigned long long)missing, (unsigned long long)rx->c[NB_C_RCVBUF_DROPS]);
}

/* Paced: GSO sends of the pacer's batches, no GRO (every datagram keeps its receive stamp for
 * the jitter), and no burst longer than the pacer's bound. */
Test(gso, a_paced_gso_run_keeps_gro_off_and_its_burst_bound)
{
	struct nbt_capture cap;
	struct nb_test_result res;
	run_gso(1400, 400000000, NB_GSO_ON, &cap, &res);
	cr_expect_eq(cap.p.flow[0].g[NB_G_GRO], NB_GRO_OFF);
	cr_expect_leq(res.m.v[NB_COL_MAX_BURST], 4, "100 us of 400 Mbit/s of 1400 B: 4 datagrams");
	assert_flow_exact(&cap, 0);
}

/* The packets an nftables rule counted: "counter packets N" of chain inet nbt in. */
static uint64_t nft_dropped(void)
{
	FILE *p = popen("nft list chain inet nbt in 2>/dev/null", "r");
	cr_assert_not_null(p);
	char line[512];
	uint64_t n = UINT64_MAX;
	while (fgets(line, sizeof(line), p)) {
		const char *c = strstr(line, "counter packets ");
		if (c)
			n = strtoull(c + strlen("counter packets "), NULL, 10);
	}
	pclose(p);
	cr_assert_neq(n, UINT64_MAX, "no counter in the nft chain");
	return n;
}

/* In a namespace of our own: lo cuts GSO buffers into datagrams itself (tx-udp-segmentation
 * off, like a NIC without UDP segmentation offload), and the input hook drops every tenth test
 * datagram (UDP length 1008: 1000 B of payload). Every datagram the rule dropped is lost,
 * and nothing else is but what the receiver's buffer dropped. */
Test(gso, a_gso_run_loses_exactly_the_datagrams_a_firewall_rule_drops)
{
	if (!nbt_private_lo("ethtool -K lo tx-udp-segmentation off && nft add table inet nbt && "
			    "nft add chain inet nbt in '{ type filter hook input priority 0; }' && "
			    "nft add rule inet nbt in udp length 1008 numgen inc mod 10 == 9 "
			    "counter drop"))
		cr_skip_test("needs root, a network namespace, ethtool and nft");
	struct nbt_capture cap;
	struct nb_test_result res;
	run_gso(1000, 0, NB_GSO_ON, &cap, &res);
	uint64_t dropped = nft_dropped(), sent = cap.l.flow[0].c[NB_C_TX_PACKETS];
	cr_expect_eq(dropped, sent / 10, "every tenth of %llu datagrams: %llu",
		     (unsigned long long)sent, (unsigned long long)dropped);
	assert_flow_exact(&cap, dropped);
	cr_expect_gt(res.m.v[NB_COL_LOST], 0, "the run's row shows the loss");
}

/* lo with an MTU of 1200 cannot carry 1400 B segments: the kernel refuses the GSO send
 * (EINVAL), the sender goes on with sendmmsg (IP fragments), and says gso=unsupported. */
Test(gso, a_path_that_refuses_gso_gets_sendmmsg_and_says_unsupported)
{
	if (!nbt_private_lo("ip link set lo mtu 1200"))
		cr_skip_test("needs root, a network namespace and ip");
	struct nbt_capture cap;
	struct nb_test_result res;
	run_gso(1400, 0, NB_GSO_UNSUPPORTED, &cap, &res);
	assert_flow_exact(&cap, 0);
}
