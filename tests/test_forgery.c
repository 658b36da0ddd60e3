/* netns suite: a UDP test's datagrams cannot be forged by someone off the path (issue 29 item
 * 3). During a paced forward UDP run between a client and an agent in this process, a raw
 * socket sends 400 datagrams with the client's own 4-tuple, the test header's layout and a
 * huge sequence number (what turned a 20 Mbit/s run into "loss 60 %, late 43169, ok" before):
 * none of them carries the run's cookie, so each is counted `foreign` and none touches the
 * sequence accounting: loss, late and the received rate are those of the real datagrams. Each
 * test runs in a network namespace of its own (its loopback only). Needs root; skipped without
 * it. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "client.h"
#include "ctl.h"
#include "nbt_agent.h"
#include "nbt_pair.h"

#define DATA_LO 7600
#define DATA_HI 7699
#define FORGED 400

/* The client's UDP flow socket and the agent's flow port it is connected to, from
 * /proc/net/udp: the connected socket whose own port is outside the agent's range. */
static bool client_tuple(uint16_t *cport, uint16_t *aport)
{
	FILE *f = fopen("/proc/net/udp", "r");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned la, lp, ra, rp, st;
		if (sscanf(line, " %*d: %x:%x %x:%x %x", &la, &lp, &ra, &rp, &st) == 5 && st == 1 &&
		    (lp < DATA_LO || lp > DATA_HI) && rp >= DATA_LO && rp <= DATA_HI) {
			*cport = (uint16_t)lp;
			*aport = (uint16_t)rp;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* One UDP datagram from 127.0.0.1:sport to 127.0.0.1:dport, written whole by a raw socket. */
static void forge(int raw, uint16_t sport, uint16_t dport, const unsigned char *payload, size_t len)
{
	unsigned char pkt[2048] = { 0 };
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *udp = (struct udphdr *)(pkt + sizeof(*ip));
	size_t total = sizeof(*ip) + sizeof(*udp) + len;
	*ip = (struct iphdr){ .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP,
			      .tot_len = htons((uint16_t)total),
			      .saddr = htonl(INADDR_LOOPBACK), .daddr = htonl(INADDR_LOOPBACK) };
	udp->source = htons(sport);
	udp->dest = htons(dport);
	udp->len = htons((uint16_t)(sizeof(*udp) + len));
	memcpy(pkt + sizeof(*ip) + sizeof(*udp), payload, len);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = ip->daddr };
	cr_assert_eq(sendto(raw, pkt, total, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)total,
		     "%s", strerror(errno));
}

/* The forger: once the run is under way, FORGED datagrams in the test header's old layout
 * (sequence, send time, "NBUD", epoch) with sequence numbers far ahead of the real ones. */
static void *forger(void *arg)
{
	int *sent = arg;
	uint16_t cport = 0, aport = 0;
	for (int i = 0; i < 50 && !client_tuple(&cport, &aport); i++)
		nbt_sleep_ms(20);
	nbt_sleep_ms(1200); /* inside the measured window */
	int raw = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	unsigned char b[1000] = { 0 };
	for (int i = 0; cport && raw >= 0 && i < FORGED; i++) {
		uint64_t seq = (1ull << 40) + (uint64_t)i * 97;
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(seq >> (56 - 8 * k));
		memcpy(b + 16, "NBUD", 4);
		b[23] = 1;
		forge(raw, cport, aport, b, sizeof(b));
		(*sent)++;
	}
	if (raw >= 0)
		close(raw);
	return NULL;
}

static void collect(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *h)
{
	(void)ctx, (void)k, (void)span, (void)h;
}

TestSuite(forgery, .timeout = 60);

Test(forgery, datagrams_forged_with_the_clients_four_tuple_are_foreign_and_change_no_count)
{
	if (!nbt_private_lo(NULL))
		cr_skip_test("needs root for a network namespace");
	struct nb_client c;
	struct nb_error err = { { 0 } };
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ .data_lo = DATA_LO,
									.data_hi = DATA_HI },
					       NULL, &c);
	struct nb_msg_setup su = { .run_id = 1, .duration_ns = 3000000000ull,
				   .interval_ns = 1000000000ull, .drain_ns = 500000000ull };
	snprintf(su.case_id, sizeof(su.case_id), "forged");
	su.params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_UDP, .size = 1000,
					.streams = 1, .rate = 20000000ull, .tos = -1 };
	int sent = 0;
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, forger, &sent), 0);
	struct nb_test_sink sink = { .interval = collect };
	struct nb_test_result res;
	enum nb_outcome out = nb_client_test(&c, &su, &sink, &res, &err);
	pthread_join(th, NULL);
	cr_assert_eq(out, NB_OUT_OK, "%s %s", res.error, err.msg);
	cr_assert_eq(sent, FORGED, "the forger found the client's flow and sent them all");
	double drops = res.m.v[NB_COL_RCVBUF_DROPS];
	cr_expect_leq(res.m.v[NB_COL_LOST], drops, "no datagram lost but those our own buffer "
		      "dropped: lost %.0f, drops %.0f", res.m.v[NB_COL_LOST], drops);
	cr_expect_eq(res.m.v[NB_COL_LATE], 0, "late %.0f", res.m.v[NB_COL_LATE]);
	cr_expect_eq(res.m.v[NB_COL_TX_PACKETS], res.m.v[NB_COL_RX_PACKETS] + res.m.v[NB_COL_LOST]);
	double foreign = res.m.v[NB_COL_FOREIGN];
	cr_expect(foreign <= FORGED && foreign + drops >= FORGED, "foreign %.0f of %d (drops %.0f)",
		  foreign, FORGED, drops);
	nb_test_result_free(&res);
	nb_client_close(&c);
	nb_agent_destroy(a);
}
