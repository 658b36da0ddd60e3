/* nb_bench_engine — run one rr, crr or latency case through the session harness on
 * 127.0.0.1, both sides in this process, until `nbrun CONFIG` runs end to end.
 * Used by scripts/bench-rr and scripts/bench-latency.
 *
 *     nb_bench_engine [-e rr|crr|latency] [-p tcp|udp] [-w block|spin|busy-poll]
 *                     [-t seconds] [-f flows] [-r request] [-R response] [-s size]
 *                     [-q messages_per_s] [-T timeout_ms]
 *
 * Warms up 0.5 s, measures t seconds (1..60) between two snapshots, and prints one line:
 * "trans_per_s=N mean_ns=N p50_ns=N p90_ns=N p99_ns=N p999_ns=N max_ns=N timeouts=N
 *  server_trans_per_s=N" (RTTs are full round trips, in ns).
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

static enum nb_wait wait_of(const char *s)
{
	return strcmp(s, "spin") == 0 ? NB_WAIT_SPIN
	       : strcmp(s, "busy-poll") == 0 ? NB_WAIT_BUSY_POLL : NB_WAIT_BLOCK;
}

static int parse(int argc, char **argv, struct nb_params *p, unsigned *secs)
{
	int opt;
	while ((opt = getopt(argc, argv, "e:p:w:t:f:r:R:s:q:T:")) != -1) {
		unsigned long v = strtoul(optarg, NULL, 10);
		switch (opt) {
		case 'e': snprintf(p->engine, sizeof(p->engine), "%s", optarg); break;
		case 'p': p->proto = strcmp(optarg, "udp") == 0 ? NB_PROTO_UDP : NB_PROTO_TCP; break;
		case 'w': p->wait = wait_of(optarg); break;
		case 't': *secs = (unsigned)v; break;
		case 'f': p->streams = (uint32_t)v; break;
		case 'r': p->request = (uint32_t)v; break;
		case 'R': p->response = (uint32_t)v; break;
		case 's': p->size = (uint32_t)v; break;
		case 'q': p->rate = v; break;
		case 'T': p->timeout_ms = (uint32_t)v; break;
		default: return -1;
		}
	}
	return *secs >= 1 && *secs <= 60 ? 0 : -1;
}

static uint64_t sum(const struct nb_snapshot *s, enum nb_counter c)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nflows; i++)
		n += s->flow[i].c[c];
	return n;
}

/* Listen, connect, accept and start both sides; false with err set. */
static bool open_pair(const struct nb_engine *e, const struct nb_params *p,
		      struct nb_session **srv, struct nb_session **cli, struct nb_error *err)
{
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint16_t port = 0;
	struct accept_arg a = { 0 };
	a.s = nb_session_listen(e, p, (struct sockaddr *)&lo, sizeof(lo), 0, 0, &port, err);
	if (!a.s)
		return false;
	*srv = a.s;
	pthread_t th;
	if (pthread_create(&th, NULL, accept_main, &a) != 0)
		return nb_error_set(err, "pthread_create failed");
	*cli = nb_session_connect(e, p, (struct sockaddr *)&lo, sizeof(lo), port, 5000, err);
	pthread_join(th, NULL);
	if (!*cli)
		return false;
	if (!a.ok)
		return nb_error_set(err, "%s", a.err.msg);
	return nb_session_start(*srv, err) && nb_session_start(*cli, err);
}

static void print_result(struct nb_snapshot *a, struct nb_snapshot *b, uint64_t srv_trans)
{
	struct nb_hist *d = nb_hist_create();
	struct nb_hist_summary s;
	nb_hist_diff(d, b->hist, a->hist);
	nb_hist_summarize(d, &s);
	double secs = (double)(b->t_ns - a->t_ns) / 1e9;
	printf("trans_per_s=%.0f mean_ns=%.0f p50_ns=%llu p90_ns=%llu p99_ns=%llu p999_ns=%llu "
	       "max_ns=%llu timeouts=%llu server_trans_per_s=%.0f\n",
	       (double)(sum(b, NB_C_TRANSACTIONS) - sum(a, NB_C_TRANSACTIONS)) / secs, s.mean_ns,
	       (unsigned long long)s.p50_ns, (unsigned long long)s.p90_ns,
	       (unsigned long long)s.p99_ns, (unsigned long long)s.p999_ns,
	       (unsigned long long)s.max_ns,
	       (unsigned long long)(sum(b, NB_C_TIMEOUTS) - sum(a, NB_C_TIMEOUTS)),
	       (double)srv_trans / secs);
	nb_hist_destroy(d);
}

int main(int argc, char **argv)
{
	struct nb_params p = { .engine = "rr", .proto = NB_PROTO_TCP, .request = 1, .response = 1,
			       .size = 64, .streams = 1, .nodelay = true, .tos = -1,
			       .timeout_ms = 1000, .cookie = 0x62656e6368ull };
	unsigned secs = 5;
	if (parse(argc, argv, &p, &secs) < 0) {
		fprintf(stderr, "usage: nb_bench_engine [-e rr|crr|latency] [-p tcp|udp] "
				"[-w block|spin|busy-poll] [-t 1..60] [-f flows] [-r req] [-R resp] "
				"[-s size] [-q msgs/s] [-T timeout_ms]\n");
		return 2;
	}
	const struct nb_engine *e = nb_engine_find(p.engine);
	struct nb_error err = { "" };
	if (!e || !e->validate(&p, &err)) {
		fprintf(stderr, "nb_bench_engine: %s\n", e ? err.msg : "unknown engine");
		return 1;
	}
	struct nb_session *srv = NULL, *cli = NULL;
	struct nb_snapshot *a = nb_snapshot_create(true), *b = nb_snapshot_create(true);
	struct nb_snapshot *sa = nb_snapshot_create(false), *sb = nb_snapshot_create(false);
	bool ok = a && b && sa && sb && open_pair(e, &p, &srv, &cli, &err);
	if (ok) {
		sleep_ms(500);
		nb_session_snapshot(cli, a);
		nb_session_snapshot(srv, sa);
		sleep_ms(secs * 1000);
		nb_session_snapshot(cli, b);
		nb_session_snapshot(srv, sb);
		nb_session_quiesce(cli);
		ok = nb_session_stop(cli, &err) && nb_session_stop(srv, &err);
	}
	if (ok)
		print_result(a, b, sum(sb, NB_C_TRANSACTIONS) - sum(sa, NB_C_TRANSACTIONS));
	else
		fprintf(stderr, "nb_bench_engine: %s\n", err.msg);
	nb_session_destroy(cli);
	nb_session_destroy(srv);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
	nb_snapshot_destroy(sa);
	nb_snapshot_destroy(sb);
	return ok ? 0 : 1;
}
