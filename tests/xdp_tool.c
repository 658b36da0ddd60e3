/* nb_xdp_tool — the AF_XDP data path's modules (engines/xdp/) as a program, for the netns tests
 * (tests/netns/xdp_path.sh) and scripts/bench-pps: each end in its own namespace, as the pps
 * engine's flows will use them once wired (engines/xdp/xdp_path.h).
 *
 *   nb_xdp_tool rx PEER PORT [options]    attach, print "ready ...", receive one flow on PORT
 *                                         until --count datagrams or --secs, print the counts
 *   nb_xdp_tool tx PEER PORT [options]    send --count datagrams (or for --secs) to PEER:PORT
 *   nb_xdp_tool hold PEER PORT [options]  attach, print "ready ...", wait for SIGTERM/SIGINT
 *   nb_xdp_tool check PEER PORT [--tx]    could this end run it (nb_xdp_path_check): "ok ..."
 *
 * Options: --count N, --secs S, --size B (payload, default 64), --sport P (default 40000),
 * --queue Q (tx: the queue to send on, default 0),
 * --batch N (default 64), --mode auto|driver|generic, --attach link|netlink,
 * --copy auto|zerocopy|copy, --busy-poll US, --no-csum-check, --tx (check a sender).
 * rx prints "rx=N lost=N dup=N reorder=N late=N rejected=N redirected=N no_socket=N passed=N
 * sock_dropped=N secs=S cpu_s=S queues=N,N..." (sock_dropped: the sockets' XDP_STATISTICS
 * drops; queues: the frames of each queue's socket); tx prints "tx=N snd_errs=N secs=S
 * cpu_s=S"; errors: one line, exit 1.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sock.h"
#include "xdp_path.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct opts {
	const char *cmd, *peer;
	uint16_t port, sport;
	uint64_t count;
	double secs;
	uint32_t size, batch, busy_us, queue;
	bool csum, tx_check;
	enum nb_xdp_mode mode;
	enum nb_xdp_attach attach;
	enum nb_xsk_copy copy;
};

static int usage(const char *why)
{
	fprintf(stderr, "nb_xdp_tool: %s\nusage: nb_xdp_tool rx|tx|hold|check PEER PORT [--count N] "
		"[--secs S] [--size B] [--sport P] [--queue Q] [--batch N] [--mode auto|driver|generic] "
		"[--attach link|netlink] [--copy auto|zerocopy|copy] [--busy-poll US] "
		"[--no-csum-check] [--tx]\n", why);
	return 2;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static bool parse(int argc, char **argv, struct opts *o)
{
	static const char *const modes[] = { "auto", "driver", "generic" };
	static const char *const attach[] = { "link", "netlink" };
	static const char *const copy[] = { "auto", "zerocopy", "copy" };
	if (argc < 4)
		return false;
	*o = (struct opts){ .cmd = argv[1], .peer = argv[2], .port = (uint16_t)atoi(argv[3]),
			    .sport = 40000, .size = 64, .batch = 64, .csum = true, .secs = 0 };
	for (int i = 4; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int m;
		if (!strcmp(k, "--no-csum-check") || !strcmp(k, "--tx")) {
			o->csum = o->csum && strcmp(k, "--no-csum-check");
			o->tx_check = o->tx_check || !strcmp(k, "--tx");
			continue;
		}
		if (!v)
			return false;
		i++;
		if (!strcmp(k, "--count"))
			o->count = strtoull(v, NULL, 10);
		else if (!strcmp(k, "--secs"))
			o->secs = atof(v);
		else if (!strcmp(k, "--size"))
			o->size = (uint32_t)atoi(v);
		else if (!strcmp(k, "--sport"))
			o->sport = (uint16_t)atoi(v);
		else if (!strcmp(k, "--batch"))
			o->batch = (uint32_t)atoi(v);
		else if (!strcmp(k, "--queue"))
			o->queue = (uint32_t)atoi(v);
		else if (!strcmp(k, "--busy-poll"))
			o->busy_us = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mode") && (m = pick(v, modes, 3)) >= 0)
			o->mode = (enum nb_xdp_mode)m;
		else if (!strcmp(k, "--attach") && (m = pick(v, attach, 2)) >= 0)
			o->attach = (enum nb_xdp_attach)m;
		else if (!strcmp(k, "--copy") && (m = pick(v, copy, 3)) >= 0)
			o->copy = (enum nb_xsk_copy)m;
		else
			return false;
	}
	return o->port > 0 && o->batch > 0 && o->batch <= NB_XSK_BATCH_MAX;
}

static bool peer_addr(const char *s, uint16_t port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return true;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return true;
	}
	return false;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static uint64_t c(struct nb_flow *f, enum nb_counter k)
{
	return atomic_load(&f->c[k]);
}

static bool time_up(uint64_t t0, double secs)
{
	return secs > 0 && (double)(nb_now_ns() - t0) / 1e9 >= secs;
}

static int run_tx(const struct opts *o, struct nb_xdp_path *p, struct nb_flow *f)
{
	struct nb_xdp_tx t;
	struct nb_error err;
	if (!nb_xdp_tx_init(&t, p, o->queue, f, o->sport, o->port, o->size, &err))
		return fprintf(stderr, "nb_xdp_tool: %s\n", err.msg), 1;
	uint64_t t0 = nb_now_ns();
	while (!stop && !time_up(t0, o->secs) && (!o->count || t.seq < o->count)) {
		uint64_t n = o->batch;
		if (o->count && o->count - t.seq < n)
			n = o->count - t.seq;
		if (nb_xdp_tx_step(&t, (uint32_t)n) < 0)
			return fprintf(stderr, "nb_xdp_tool: %s\n", f->err.msg), 1;
	}
	double secs = (double)(nb_now_ns() - t0) / 1e9;
	if (!nb_xdp_tx_drain(&t, 1000))
		fprintf(stderr, "nb_xdp_tool: %u frames not completed after 1 s\n",
			nb_xsk_tx_pending(t.x));
	printf("tx=%llu snd_errs=%llu secs=%.3f cpu_s=%.3f\n",
	       (unsigned long long)c(f, NB_C_TX_PACKETS), (unsigned long long)c(f, NB_C_SND_ERRS),
	       secs, cpu_s());
	return 0;
}

static int run_rx(const struct opts *o, struct nb_xdp_path *p, struct nb_flow *f)
{
	uint32_t nq = nb_xdp_path_queues(p);
	struct nb_xdp_rxflow *fl = calloc(nq, sizeof(*fl));
	struct nb_xdp_rx *rx = calloc(nq, sizeof(*rx));
	struct nb_error err;
	for (uint32_t q = 0; q < nq; q++) {
		fl[q].f = f; /* one flow, whichever queue its frames land on */
		nb_seqrx_init(&fl[q].seq, f);
		rx[q] = (struct nb_xdp_rx){ .x = nb_xdp_path_sock(p, q), .port_lo = o->port,
					    .nflows = 1, .flows = &fl[q], .check_udp = o->csum,
					    .nap = true };
	}
	uint64_t start = nb_now_ns(), t0 = 0, last = 0, seen = 0;
	int rc = 0;
	while (!stop && !time_up(start, o->secs) &&
	       (!o->count || c(f, NB_C_RX_PACKETS) < o->count) && rc >= 0) {
		for (uint32_t q = 0; q < nq && rc >= 0; q++)
			rc = nb_xdp_rx_step(&rx[q], nq > 1 ? 0 : 100, &err);
		uint64_t now_seen = c(f, NB_C_RX_PACKETS);
		if (!t0 && now_seen)
			t0 = nb_now_ns(); /* the clock runs from the first datagram to the last */
		if (now_seen != seen)
			last = nb_now_ns();
		seen = now_seen;
	}
	if (rc < 0)
		return fprintf(stderr, "nb_xdp_tool: %s\n", err.msg), 1;
	uint64_t rej = 0, st[NB_XDP_STAT_N] = { 0 }, dropped = 0;
	for (uint32_t q = 0; q < nq; q++) {
		struct nb_xsk_stats xs;
		for (int v = 0; v <= NB_FRAME_BAD_UDP; v++)
			rej += rx[q].rejected[v];
		if (nb_xsk_stats(rx[q].x, &xs, &err))
			dropped += xs.rx_dropped + xs.rx_ring_full; /* disjoint; fill_empty overlaps */
	}
	if (!nb_xdp_prog_stats(nb_xdp_path_prog(p), st, &err))
		fprintf(stderr, "nb_xdp_tool: %s\n", err.msg);
	printf("rx=%llu lost=%llu dup=%llu reorder=%llu late=%llu rejected=%llu redirected=%llu "
	       "no_socket=%llu passed=%llu sock_dropped=%llu secs=%.3f cpu_s=%.3f queues=",
	       (unsigned long long)c(f, NB_C_RX_PACKETS), (unsigned long long)c(f, NB_C_LOST),
	       (unsigned long long)c(f, NB_C_DUP), (unsigned long long)c(f, NB_C_REORDER),
	       (unsigned long long)c(f, NB_C_LATE), (unsigned long long)rej,
	       (unsigned long long)st[NB_XDP_STAT_REDIRECTED],
	       (unsigned long long)st[NB_XDP_STAT_NO_SOCKET], (unsigned long long)st[NB_XDP_STAT_PASSED],
	       (unsigned long long)dropped, (double)(last - t0) / 1e9, cpu_s());
	for (uint32_t q = 0; q < nq; q++)
		printf("%s%llu", q ? "," : "", (unsigned long long)rx[q].frames);
	printf("\n");
	free(rx);
	free(fl);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (!parse(argc, argv, &o))
		return usage("bad arguments");
	bool tx = !strcmp(o.cmd, "tx"), rx = !strcmp(o.cmd, "rx"), hold = !strcmp(o.cmd, "hold");
	bool check = !strcmp(o.cmd, "check");
	if (!tx && !rx && !hold && !check)
		return usage("the command is rx, tx, hold or check");
	struct sockaddr_storage peer;
	socklen_t plen;
	if (!peer_addr(o.peer, o.port, &peer, &plen))
		return usage("PEER must be an IPv4 or IPv6 address");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	static atomic_bool fstop, fquiet;
	static _Atomic uint32_t epoch;
	static struct nb_flow f;
	static struct nb_params params;
	params.tos = -1;
	f = (struct nb_flow){ .p = &params, .fd = -1, .lag = 1, .stop = &fstop, .quiesce = &fquiet,
			      .epoch = &epoch };
	struct nb_xdp_path_config cfg = {
		.peer = (struct sockaddr *)&peer, .peer_len = plen, .rx = !tx, .tx = tx,
		.port_lo = o.port, .port_hi = o.port, .mode = o.mode, .attach = o.attach,
		.copy = o.copy, .queues = tx ? o.queue + 1 : 0, .busy_poll_us = o.busy_us,
	};
	struct nb_xdp_path *p;
	struct nb_error err;
	char what[128];
	if (check) {
		cfg.tx = o.tx_check;
		cfg.rx = !o.tx_check;
		if (!nb_xdp_path_check(&cfg, what, sizeof(what), &err))
			return fprintf(stderr, "nb_xdp_tool: %s\n", err.msg), 1;
		return printf("ok %s\n", what), 0;
	}
	if (!nb_xdp_path_open(&cfg, &p, &err))
		return fprintf(stderr, "nb_xdp_tool: %s\n", err.msg), 1;
	nb_xdp_path_describe(p, what, sizeof(what));
	printf("ready %s\n", what);
	fflush(stdout);
	int rc = 0;
	if (tx)
		rc = run_tx(&o, p, &f);
	else if (rx)
		rc = run_rx(&o, p, &f);
	else
		while (!stop)
			pause();
	nb_xdp_path_close(p);
	if (hold)
		printf("closed\n");
	return rc;
}
