/* nb_bench_pps — drive the pps engine through the session harness on loopback for a few
 * seconds, in-process (both sides), until `nbrun CONFIG` runs end to end. Used by
 * scripts/bench-pps.
 *
 *     nb_bench_pps [-t seconds] [-s size] [-b batch] [-f streams] [-r pps_per_flow]
 *                  [-d forward|reverse|bidir] [-g] [-w window] [-6]
 *
 * Warms up 0.5 s, measures t seconds, drains 0.3 s, and prints one line:
 * "tx_pps=N rx_pps=N lost=N snd_errs=N rcvbuf_drops=N meas_tx=N meas_rx=N
 *  [tx_per_cpu_s=N rx_per_cpu_s=N]": the last two (forward only) are packets per CPU-second of
 * the sending and the receiving flow threads over the measured window.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engines.h"
#include "session.h"

struct accept_arg {
	struct nb_session *s;
	struct nb_error err;
	bool ok;
};

static void *accept_main(void *arg)
{
	struct accept_arg *a = arg;
	a->ok = nb_session_accept(a->s, 5000, &a->err);
	return NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int parse(int argc, char **argv, struct nb_params *p, unsigned *secs, bool *v6)
{
	int opt;
	while ((opt = getopt(argc, argv, "t:s:b:f:r:d:gw:6")) != -1) {
		unsigned long v = optarg ? strtoul(optarg, NULL, 10) : 0;
		switch (opt) {
		case 't': *secs = (unsigned)v; break;
		case 's': p->size = (uint32_t)v; break;
		case 'b': p->batch = (uint32_t)v; break;
		case 'f': p->streams = (uint32_t)v; break;
		case 'r': p->rate = v; break;
		case 'w': p->window = (uint32_t)v; break;
		case 'g': p->gso = true; break;
		case '6': *v6 = true; break;
		case 'd':
			p->direction = strcmp(optarg, "reverse") == 0 ? NB_DIR_REVERSE
				       : strcmp(optarg, "bidir") == 0 ? NB_DIR_BIDIR
								      : NB_DIR_FORWARD;
			break;
		default: return -1;
		}
	}
	return *secs >= 1 && *secs <= 60 ? 0 : -1;
}

/* Sum one counter over the flows that send (tx) or receive (rx) on this side. */
static uint64_t sum(const struct nb_snapshot *s, enum nb_counter c, bool senders)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < s->nflows; i++)
		if (s->flow[i].sends == senders)
			v += s->flow[i].c[c];
	return v;
}

static uint64_t both(const struct nb_snapshot *a, const struct nb_snapshot *b,
		     enum nb_counter c, bool senders)
{
	return sum(a, c, senders) + sum(b, c, senders);
}

static int run(struct nb_params *p, unsigned secs, bool v6)
{
	struct sockaddr_storage lo = { 0 };
	socklen_t len;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&lo;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&lo;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	}
	struct nb_error err = { "" };
	if (!nb_engine_pps.validate(p, &err)) {
		fprintf(stderr, "nb_bench_pps: %s\n", err.msg);
		return 2;
	}
	uint16_t port = 0;
	struct accept_arg a = { 0 };
	a.s = nb_session_listen(&nb_engine_pps, p, (struct sockaddr *)&lo, len, 0, 0, &port, &err);
	pthread_t th;
	if (!a.s || pthread_create(&th, NULL, accept_main, &a) != 0) {
		fprintf(stderr, "nb_bench_pps: listen: %s\n", err.msg);
		return 1;
	}
	struct nb_session *c = nb_session_connect(&nb_engine_pps, p, (struct sockaddr *)&lo, len,
						  port, 5000, &err);
	pthread_join(th, NULL);
	if (!c || !a.ok || !nb_session_start(a.s, &err) || !nb_session_start(c, &err)) {
		fprintf(stderr, "nb_bench_pps: %s%s\n", err.msg, a.err.msg);
		return 1;
	}
	struct nb_snapshot *s0 = nb_snapshot_create(false), *c0 = nb_snapshot_create(false);
	struct nb_snapshot *s1 = nb_snapshot_create(false), *c1 = nb_snapshot_create(false);
	sleep_ms(500);
	nb_session_set_phase(a.s, NB_PHASE_MEASURE);
	nb_session_set_phase(c, NB_PHASE_MEASURE);
	nb_session_snapshot(a.s, s0);
	nb_session_snapshot(c, c0);
	sleep_ms(secs * 1000);
	nb_session_snapshot(a.s, s1);
	nb_session_snapshot(c, c1);
	nb_session_set_phase(a.s, NB_PHASE_DRAIN);
	nb_session_set_phase(c, NB_PHASE_DRAIN);
	nb_session_quiesce(c);
	nb_session_quiesce(a.s);
	sleep_ms(300);
	struct nb_snapshot *s2 = nb_snapshot_create(false), *c2 = nb_snapshot_create(false);
	nb_session_snapshot(a.s, s2);
	nb_session_snapshot(c, c2);
	bool ok = nb_session_stop(c, &err) && nb_session_stop(a.s, &err);
	double dt = (double)(c1->t_ns - c0->t_ns) / 1e9;
	uint64_t tx = both(s1, c1, NB_C_TX_PACKETS, true) - both(s0, c0, NB_C_TX_PACKETS, true);
	uint64_t rx = both(s1, c1, NB_C_RX_PACKETS, false) - both(s0, c0, NB_C_RX_PACKETS, false);
	printf("tx_pps=%.0f rx_pps=%.0f lost=%llu snd_errs=%llu rcvbuf_drops=%llu meas_tx=%llu "
	       "meas_rx=%llu", (double)tx / dt, (double)rx / dt,
	       (unsigned long long)both(s2, c2, NB_C_LOST, false),
	       (unsigned long long)both(s2, c2, NB_C_SND_ERRS, true),
	       (unsigned long long)both(s2, c2, NB_C_RCVBUF_DROPS, false),
	       (unsigned long long)both(s2, c2, NB_C_MEAS_TX_PACKETS, true),
	       (unsigned long long)both(s2, c2, NB_C_MEAS_RX_PACKETS, false));
	/* Forward: the client's flow threads send, the server's receive. */
	double tx_cpu = (double)(c1->engine_cpu_ns - c0->engine_cpu_ns) / 1e9;
	double rx_cpu = (double)(s1->engine_cpu_ns - s0->engine_cpu_ns) / 1e9;
	if (p->direction == NB_DIR_FORWARD)
		printf(" tx_per_cpu_s=%.0f rx_per_cpu_s=%.0f", (double)tx / tx_cpu, (double)rx / rx_cpu);
	printf("\n");
	if (!ok)
		fprintf(stderr, "nb_bench_pps: %s\n", err.msg);
	struct nb_snapshot *snaps[] = { s0, c0, s1, c1, s2, c2 };
	for (size_t i = 0; i < 6; i++)
		nb_snapshot_destroy(snaps[i]);
	nb_session_destroy(c);
	nb_session_destroy(a.s);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct nb_params p = { .engine = "pps", .proto = NB_PROTO_UDP, .size = 64, .streams = 1,
			       .tos = -1, .cookie = 0x6e6272756e707073ull };
	unsigned secs = 5;
	bool v6 = false;
	if (parse(argc, argv, &p, &secs, &v6) != 0) {
		fprintf(stderr, "usage: nb_bench_pps [-t 1..60] [-s size] [-b batch] [-f streams] "
				"[-r pps] [-d forward|reverse|bidir] [-g] [-w window] [-6]\n");
		return 2;
	}
	return run(&p, secs, v6);
}
