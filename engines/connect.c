/* nbrun — the connect engine: TCP handshake time to any host:port, no agent (hping3 -S,
 * tcping).
 *
 * Each attempt is a non-blocking connect() on a fresh socket; the time recorded is from the
 * attempt's start to connect completion (the SYN-ACK is in and the ACK sent), then the socket
 * is closed with SO_LINGER {1, 0}: a RST, so no TIME_WAIT piles up on either end and the
 * target's accept queue only sees a connection that is gone. A RST instead of a SYN-ACK
 * counts as refused (NB_C_REFUSED), no answer within the timeout as a timeout
 * (NB_C_TIMEOUTS); neither enters the histogram. Any other error (no route) fails the flow
 * with its reason.
 *
 * rate 0: one attempt in flight per flow, the next as soon as the last ends. rate > 0:
 * attempt k is due at t0 + k / rate; one attempt is in flight per flow, so an attempt that
 * starts late (the last one was slow) is still timed from its due time, as the latency
 * engine stamps its messages (no coordinated omission). A plain sleep to the due time ends
 * as late as the timer is (tens of microseconds in a VM), and that lateness was in every
 * sample: p50 228 us against 124 us of connect() itself. So, as icmp and latency do, the
 * sleep ends early by twice the timer's measured lateness and the last stretch is polled on
 * the clock (schedule.h); what lateness remains is the attempt's schedule lag, recorded.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "engines.h"
#include "io.h"
#include "schedule.h"
#include "sock.h"
#include "report_shapes.h"

#define DEFAULT_TIMEOUT_MS 1000u
#define MAX_RATE 100000ull     /* attempts/s per flow */
#define MIN_EARLY_NS 60000ull  /* a paced attempt's sleep ends at least this long before it is due */
#define MAX_LATE_NS 200000ull  /* a timed sleep later than this was preempted */

static bool connect_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->proto != NB_PROTO_TCP)
		return nb_error_set(err, "connect runs over TCP only");
	if (p->port == 0)
		return nb_error_set(err, "connect needs the target's port (port: 1..65535)");
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS)
		return nb_error_set(err, "flows must be 1..%d", NB_MAX_FLOWS);
	if (p->rate > MAX_RATE)
		return nb_error_set(err, "rate must be at most %llu attempts/s per flow",
				    (unsigned long long)MAX_RATE);
	return true;
}

static uint64_t timeout_ns(const struct nb_params *p)
{
	return (uint64_t)(p->timeout_ms ? p->timeout_ms : DEFAULT_TIMEOUT_MS) * 1000000ull;
}

/* A fresh non-blocking socket that closes with a RST. */
static int attempt_socket(struct nb_flow *f)
{
	int fd = socket(f->reach->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(&f->err, errno, "socket"), -1;
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst)) < 0 ||
	    !nb_sock_apply(fd, f->p, f->reach->peer.ss_family, &f->err)) {
		if (!f->err.msg[0])
			nb_error_errno(&f->err, errno, "SO_LINGER");
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for the handshake on fd until deadline; the connect's outcome as an errno (0 = up). */
static int handshake(const struct nb_flow *f, int fd, uint64_t deadline)
{
	if (connect(fd, (const struct sockaddr *)&f->reach->peer, f->reach->peer_len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	uint64_t now;
	while ((now = nb_now_ns()) < deadline && !nb_flow_stopping(f)) {
		uint64_t ms = (deadline - now + 999999) / 1000000ull;
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int n = poll(&pfd, 1, (int)(ms < NB_IO_SLICE_MS ? ms : NB_IO_SLICE_MS));
		if (n < 0 && errno != EINTR)
			return errno;
		if (n > 0) {
			int e = 0;
			socklen_t el = sizeof(e);
			return getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 ? errno : e;
		}
	}
	return nb_flow_stopping(f) ? EINTR : ETIMEDOUT;
}

/* One attempt due at due_ns (paced: its schedule lag recorded): counted as connected, refused
 * or timed out; false on any other error (f->err set). */
static bool attempt(struct nb_flow *f, uint64_t due_ns, bool paced)
{
	int fd = attempt_socket(f);
	if (fd < 0)
		return false;
	uint64_t start = nb_now_ns();
	if (paced)
		nb_flow_lag(f, due_ns, start);
	int e = handshake(f, fd, start + timeout_ns(f->p));
	uint64_t end = nb_now_ns();
	close(fd); /* SO_LINGER {1, 0}: a RST, no TIME_WAIT */
	nb_count(f, NB_C_TX_PACKETS, 1);
	if (e == 0) {
		nb_count(f, NB_C_TRANSACTIONS, 1);
		nb_count(f, NB_C_CONNECTS, 1);
		nb_count(f, NB_C_CONNECT_NS, end - start);
		nb_count(f, NB_C_RX_PACKETS, 1);
		if (f->hist)
			nb_hist_record(f->hist, end - due_ns);
		return true;
	}
	if (e == ECONNREFUSED) {
		nb_count(f, NB_C_REFUSED, 1);
		nb_count(f, NB_C_RX_PACKETS, 1);
		return true;
	}
	if (e == ETIMEDOUT) {
		nb_count(f, NB_C_TIMEOUTS, 1);
		return true;
	}
	if (e == EINTR)
		return true; /* stopped mid-attempt: not counted */
	return nb_error_errno(&f->err, e, "connect");
}

static int connect_client_flow(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	/* timer slack would make every wake-up up to 50 us late */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	struct nb_sched_timer tm = { .late_ns = MAX_LATE_NS / 2, .min_early_ns = MIN_EARLY_NS,
				     .max_late_ns = MAX_LATE_NS };
	uint64_t t0 = nb_now_ns();
	for (uint64_t k = 0; !nb_flow_quiet(f); k++) {
		uint64_t due = nb_now_ns();
		if (p->rate) {
			due = nb_sched_due(t0, k, p->rate);
			nb_sched_wait(f, &tm, due);
			if (nb_flow_quiet(f))
				break;
		}
		if (!attempt(f, due, p->rate > 0))
			return -1;
	}
	return 0;
}

/* A run in which no attempt connected has no handshake time to report: it failed, saying what
 * the attempts met. Some refused among connected ones is the report's warning (pitfalls). */
static bool connect_judge(const struct nb_params *p, const uint64_t sum[NB_C_COUNT],
			  const char *target, struct nb_error *err)
{
	unsigned long long refused = sum[NB_C_REFUSED], lost = sum[NB_C_TIMEOUTS];
	unsigned long long tried = sum[NB_C_CONNECTS] + refused + lost;
	if (sum[NB_C_CONNECTS] || !tried)
		return true;
	if (refused == tried)
		return nb_error_set(err, "all %llu attempts refused: nothing listens on %s", tried,
				    target);
	if (lost == tried)
		return nb_error_set(err, "all %llu attempts timed out after %u ms: nothing answers on %s "
				    "(a firewall drops the SYNs?)", tried,
				    (unsigned)(timeout_ns(p) / 1000000ull), target);
	return nb_error_set(err, "none of %llu attempts connected to %s: %llu refused, %llu timed out",
			    tried, target, refused, lost);
}

/* The config keys that mean something to connect beyond the common ones. */
static const char *const connect_keys[] = { "rate", "timeout", "port", NULL };

/* Every attempt connected (a transaction), refused (a RST) or unanswered (a timeout). */
static void connect_report(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	nb_report_round_trips(e, p, s, lo, hi, m);
	m->v[NB_COL_TIMEOUTS] = nb_span_sum(s->l0, s->l1, lo, hi, NB_C_TIMEOUTS);
	m->v[NB_COL_REFUSED] = nb_span_sum(s->l0, s->l1, lo, hi, NB_C_REFUSED);
}

const struct nb_engine nb_engine_connect = {
	.name = "connect",                    /* hping3 -S, tcping */
	.summary = "TCP handshake time to any host:port (no agent): connected, refused, timed out",
	.traits = {
		.directional = false,                   /* the client connects; the target answers */
		.loop = NB_LOOP_CLOSED_UNPACED,         /* rate 0: back to back; rate > 0: a schedule */
		.rate = NB_RATE_KIND_PACKETS,           /* attempts/s per flow */
		.rate_unit = "conn/s",
		.protocols = 1u << NB_PROTO_TCP,
		.default_proto = NB_PROTO_TCP,
		.default_size = { 0 },                  /* no payload */
		.min_size = { 0 },
		.default_request = 0,
		.default_response = 0,
		.protocols_note = "opens TCP connections only",
		.keys = connect_keys,
		.headline = { "lat_p50_us", "us", false }, /* median handshake time */
		.records_latency = true,                 /* client: handshake time of each connected attempt */
		.rpm = NB_RPM_HANDSHAKE,
	},
	.datapath = NB_DATAPATH_OWN, /* client flows connect to reach->peer per attempt */
	.validate = connect_validate,         /* TCP, a port, rate, flows */
	.client_flow = connect_client_flow,   /* connect, time it, close with RST */
	.report = connect_report,             /* attempts connected, refused, unanswered */
	.prepare_socket = NULL,
	.judge = connect_judge,               /* no attempt connected: the run failed */
};
