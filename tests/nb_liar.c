/* nb_liar — an agent that lies about its counters, for the tests of issue 28 item 9.
 *
 *   nb_liar PORT MODE
 *
 * Speaks the control protocol on 127.0.0.1:PORT through the same public calls the real agent
 * uses (nb_auth_agent for the handshake, nb_ctl_send and nb_ctl_recv for every frame), runs
 * each test's data plane for real (nb_session_listen: the client's data connections connect,
 * prove the run's key and carry traffic), and reads its counters at its ticks as the agent
 * does, but before each INTERVAL and the RESULT it changes what it read, by MODE:
 *   honest     nothing (the control: the same path without a lie)
 *   inflate    every flow's rx_bytes x 2000, in every reading (3e12 bytes "received" of 1.4e9)
 *   backwards  every flow's rx_bytes 1 GB lower from tick 3 on (the counter goes back)
 *   frozen     every flow's rx_bytes 0 (nothing received while gigabytes were sent)
 *   udp-extra  every flow's settled datagrams doubled (more received than were sent)
 * It answers the batch's data path probe (probe.h) honestly. One session at a time, until killed. Prints "nb_liar ready" on stderr once it listens.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "clock.h"
#include "ctl.h"
#include "dataconn.h"
#include "probe.h"
#include "proto.h"
#include "session.h"
#include "sock.h"
#include "timeline.h"

enum lie { HONEST, INFLATE, BACKWARDS, FROZEN, UDP_EXTRA };

static enum lie mode;

/* What MODE makes of the reading of tick k (k < 0: the RESULT's, after every tick). */
static void lie(struct nb_snapshot *s, int32_t k)
{
	for (uint32_t f = 0; f < s->nflows; f++) {
		uint64_t *rx = &s->flow[f].c[NB_C_RX_BYTES];
		if (mode == INFLATE)
			*rx *= 2000;
		else if (mode == BACKWARDS && (k < 0 || k >= 3))
			*rx = *rx > 1000000000ull ? *rx - 1000000000ull : 0;
		else if (mode == FROZEN)
			*rx = 0;
		else if (mode == UDP_EXTRA)
			s->flow[f].c[NB_C_RX_SETTLED] *= 2;
	}
}

static void send_snap(struct nb_ctl *ctl, enum nb_msg_type type, int32_t k, uint64_t t0, struct nb_snapshot *s)
{
	struct nb_msg m = { .type = type };
	struct nb_msg_snap *ms = type == NB_MSG_RESULT ? &m.u.result.s : &m.u.interval;
	lie(s, type == NB_MSG_RESULT ? -1 : k);
	ms->index = type == NB_MSG_RESULT ? -1 : k;
	ms->t_ns = s->t_ns - t0;
	ms->snap = s;
	if (type == NB_MSG_RESULT)
		m.u.result.ok = 1;
	nb_ctl_send(ctl, &m, 5000, NULL);
}

static void tick(struct nb_ctl *ctl, struct nb_session *s, struct nb_snapshot *snap, uint32_t k, uint64_t t0)
{
	nb_session_tick(s, k + 1);
	nb_session_snapshot(s, snap);
	send_snap(ctl, NB_MSG_INTERVAL, (int32_t)k, t0, snap);
}

/* The run's timeline until the client's STOP, then the drain and the settling ticks, as the
 * agent's (runner/control/agent_session.c); false when the client went away. */
static bool timeline(struct nb_ctl *ctl, struct nb_session *s, const struct nb_msg_setup *su,
		     struct nb_snapshot *snap, uint32_t lag, uint64_t *t0)
{
	struct nb_timeline tl;
	*t0 = nb_now_ns();
	nb_timeline_init(&tl, *t0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	for (;;) {
		uint32_t k;
		while (nb_timeline_take(&tl, nb_now_ns(), &k) != NB_TL_NONE)
			tick(ctl, s, snap, k, *t0);
		uint64_t next = nb_timeline_next(&tl), now = nb_now_ns();
		int ms = next == UINT64_MAX ? 1000 : (int)((next > now ? next - now : 0) / 1000000) + 1;
		struct nb_msg m;
		struct nb_error err;
		int r = nb_ctl_recv(ctl, &m, ms, &err);
		if (r < 0)
			return false;
		if (r == 0)
			continue;
		bool stop = m.type == NB_MSG_STOP;
		nb_msg_free(&m);
		if (!stop)
			return false;
		nb_session_drain(s, su->drain_ns);
		for (uint32_t j = tl.nticks + 1; j <= tl.nticks + lag; j++)
			tick(ctl, s, snap, j, *t0);
		return true;
	}
}

static void run_test(struct nb_ctl *ctl, const struct sockaddr_storage *peer, socklen_t plen,
		     const unsigned char *session_key, struct nb_msg_setup *su)
{
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	struct sockaddr_in bind_addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nb_error err = { { 0 } };
	uint16_t port = 0;
	nb_auth_run_key(session_key, su->run_id, su->params.key);
	struct nb_session *s = e ? nb_session_listen(e, &su->params, (struct sockaddr *)&bind_addr,
						     sizeof(bind_addr), (const struct sockaddr *)peer,
						     plen, 0, 0, &port, &err) : NULL;
	if (!s) {
		nb_ctl_send_error(ctl, NB_ERR_SETUP, e ? err.msg : "no such engine");
		return;
	}
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	uint32_t lag = nb_timeline_settle_lag(&tl, su->drain_ns);
	nb_session_set_lag(s, lag);
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port }, m;
	struct nb_snapshot *snap = nb_snapshot_create(false);
	uint64_t t0 = 0;
	if (snap && nb_ctl_send(ctl, &ready, 5000, &err) && nb_session_accept(s, 10000, &err) &&
	    nb_ctl_recv(ctl, &m, 10000, &err) == 1) {
		bool start = m.type == NB_MSG_START;
		nb_msg_free(&m);
		if (start && nb_session_start(s, &err) && timeline(ctl, s, su, snap, lag, &t0)) {
			nb_session_snapshot(s, snap);
			nb_session_stop(s, &err);
			send_snap(ctl, NB_MSG_RESULT, -1, t0, snap);
		}
	}
	nb_snapshot_destroy(snap);
	nb_session_destroy(s);
}

/* PROBE, the session's n-th: a data port, READY, the one flow taken as the agent takes it, and
 * CHECK_RESULT empty when it came (the data path is not what this harness lies about). */
static void probe(struct nb_ctl *ctl, const struct sockaddr_storage *peer, const unsigned char *session_key,
		  uint32_t n, const struct nb_msg_probe *q)
{
	struct nb_msg m = { .type = NB_MSG_CHECK_RESULT };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage local;
	memcpy(&local, &a, sizeof(a));
	struct nb_error err = { { 0 } };
	uint16_t port = 0;
	bool udp = q->proto == NB_PROTO_UDP;
	int lfd = nb_dataconn_bind(udp ? SOCK_DGRAM : SOCK_STREAM, &local, sizeof(a), 0, 0, &port, &err);
	if (lfd >= 0) { /* a TCP one listens already (dataconn.h) */
		struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port };
		unsigned char key[NB_KEY_LEN];
		nb_probe_key(session_key, n, key);
		int flow = -1;
		struct nb_dataconn_server sv = {
			.listen_fd = lfd, .proto = (enum nb_proto)q->proto, .local = &local,
			.local_len = sizeof(a), .peer = peer, .key = key, .nflows = 1, .fds = &flow,
		};
		if (!nb_ctl_send(ctl, &ready, 5000, &err) || !nb_dataconn_accept(&sv, NB_PROBE_AGENT_MS, &err))
			snprintf(m.u.check_result.text, sizeof(m.u.check_result.text), "probe: %s\n", err.msg);
		if (flow >= 0)
			close(flow);
	} else {
		snprintf(m.u.check_result.text, sizeof(m.u.check_result.text), "probe: %s\n", err.msg);
	}
	if (lfd >= 0)
		close(lfd);
	nb_ctl_send(ctl, &m, 5000, NULL);
}

/* Between tests: CHECK finds nothing, PROBE proves the data path, TIME tells the clock, SETUP
 * runs a test, BYE ends. */
static void serve(int fd, const struct sockaddr_storage *peer, socklen_t plen)
{
	struct nb_ctl c, *ctl = &c;
	nb_ctl_init(ctl, fd);
	struct nb_secret none = { .set = false };
	struct nb_auth auth;
	struct nb_error err = { { 0 } };
	if (nb_auth_agent(ctl, &none, nb_ctl_now_ms() + 5000, &auth, &err) != NB_AUTH_OK)
		return;
	struct nb_msg facts = { .type = NB_MSG_FACTS };
	if (!nb_ctl_send(ctl, &facts, 5000, &err))
		return;
	struct nb_msg m;
	uint32_t probes = 0;
	while (nb_ctl_recv(ctl, &m, 60000, &err) == 1) {
		struct nb_msg answer = { .type = m.type };
		bool go = m.type != NB_MSG_BYE;
		if (m.type == NB_MSG_SETUP) {
			run_test(ctl, peer, plen, auth.session_key, &m.u.setup);
		} else if (m.type == NB_MSG_PROBE) {
			probe(ctl, peer, auth.session_key, ++probes, &m.u.probe);
		} else if (m.type == NB_MSG_CHECK) {
			answer.type = NB_MSG_CHECK_RESULT;
			nb_ctl_send(ctl, &answer, 5000, NULL);
		} else if (m.type == NB_MSG_TIME) {
			answer.u.time = (struct nb_msg_time){ m.u.time.t1, nb_clock_now(), nb_clock_now() };
			nb_ctl_send(ctl, &answer, 5000, NULL);
		}
		nb_msg_free(&m);
		if (!go)
			break;
	}
	nb_ctl_forget(ctl);
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "honest", "inflate", "backwards", "frozen", "udp-extra" };
	int i = 0;
	while (argc == 3 && i < 5 && strcmp(argv[2], modes[i]) != 0)
		i++;
	if (argc != 3 || i == 5) {
		fprintf(stderr, "usage: nb_liar PORT honest|inflate|backwards|frozen|udp-extra\n");
		return 2;
	}
	mode = (enum lie)i;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage addr;
	memcpy(&addr, &a, sizeof(a));
	struct nb_error err = { { 0 } };
	int lfd = nb_ctl_listen(&addr, sizeof(a), &err);
	if (lfd < 0) {
		fprintf(stderr, "nb_liar: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "nb_liar ready\n");
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept(lfd, (struct sockaddr *)&peer, &plen);
		if (fd < 0)
			continue;
		serve(fd, &peer, plen);
		close(fd);
	}
}
