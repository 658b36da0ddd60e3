/* nbrun — request/response engines: TCP_RR and UDP_RR (nb_engine_rr), TCP_CRR (nb_engine_crr).
 *
 * Every flow has exactly one transaction in flight (netperf -b / neper -F give
 * N flows N in flight), so with N flows mean RTT ≈ N / transactions-per-second
 * (Little's law), a self-check the runner applies. The client records each
 * transaction's round trip (CLOCK_MONOTONIC, ns) into f->hist and counts it;
 * the server counts the requests it answered, so both sides' transaction
 * counts agree to within the one in flight per flow.
 *
 * UDP_RR retransmits nothing. The first 4 bytes of a request carry a sequence
 * number the server copies into its response; a response that has not come
 * back within timeout_ms counts as NB_C_TIMEOUTS and the next request goes
 * out. A late response to an old request then carries an old sequence number
 * and is discarded, never taken for the answer to the new one.
 *
 * TCP_CRR opens a connection per transaction: connect, request, response,
 * close. Ephemeral ports and TIME_WAIT: the client closes with SO_LINGER
 * {on, 0}, i.e. with a RST (as neper does), so neither side keeps a TIME_WAIT
 * entry and the ~28 k ephemeral ports never run out however long the run (the
 * alternative, SO_REUSEADDR plus an explicit port walk as netperf does, costs
 * a bind per connection and still leaves TIME_WAIT buckets behind). The server
 * closes right after its response; the client's RST then frees the server's
 * half. The RTT of a CRR transaction includes socket(), the handshake and the
 * request/response; NB_C_CONNECT_NS sums the time from connect() to established.
 * Each connection's first bytes are the flow's data hello (dhello.h), sent with the request
 * in one write: the agent answers only connections from the client's host that prove the
 * run's key, and closes any other at once.
 *
 * With `wait: block`, flows run as steps over `threads` threads per end (rr_steps.c for TCP_RR
 * and UDP_RR, crr_steps.c for TCP_CRR; flowloop.h); spin and busy-poll keep a thread per flow.
 *
 * The UDP_RR server answers only requests of the run's request size (its socket is connected
 * to the client, whose return path was proven), and stops at the first ICMP unreachable: the
 * client is gone, and whatever still arrives is not its request.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine.h"
#include "dhello.h"
#include "engines.h"
#include "io.h"
#include "sock.h"
#include "report_shapes.h"
#include "rr_int.h"
#include "schedule.h"

#define MAX_MSG (16u * 1024 * 1024)  /* TCP request/response size limit */

/* ---- shared ---- */

static bool sizes_valid(const struct nb_params *p, struct nb_error *err)
{
	uint32_t lo = p->proto == NB_PROTO_UDP ? NB_RR_SEQ_BYTES : 1;
	uint32_t hi = p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : MAX_MSG;
	if (p->request < lo || p->request > hi || p->response < lo || p->response > hi)
		return nb_error_set(err, "request and response must be %u..%u bytes%s", lo, hi,
				    p->proto == NB_PROTO_UDP ? " (UDP_RR carries a 4-byte sequence number)"
							     : "");
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS);
	return true;
}

static bool rr_validate(const struct nb_params *p, struct nb_error *err)
{
	return sizes_valid(p, err);
}

static bool crr_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->proto != NB_PROTO_TCP)
		return nb_error_set(err, "crr runs over TCP only (connect per transaction)");
	return sizes_valid(p, err);
}

#define CRR_MIN_EARLY_NS 60000ull  /* a paced transaction's sleep ends at least this early */
#define CRR_MAX_LATE_NS 200000ull  /* a timed sleep later than this was preempted */

/* One buffer for a request, preceded by room for a crr connection's data hello (wire: hello
 * and request, what a crr connection sends first), and one for a response; zero-filled. */
struct bufs {
	unsigned char *wire, *req, *resp;
};

static bool bufs_alloc(struct nb_flow *f, struct bufs *b)
{
	b->wire = calloc(1, NB_DHELLO_LEN + (size_t)f->p->request + 1); /* + 1: see udp_rr_server */
	b->req = b->wire ? b->wire + NB_DHELLO_LEN : NULL;
	b->resp = calloc(1, f->p->response);
	if (!b->wire || !b->resp) {
		free(b->wire);
		free(b->resp);
		return nb_error_set(&f->err, "out of memory");
	}
	return true;
}

static void bufs_free(struct bufs *b)
{
	free(b->wire);
	free(b->resp);
}

/* ---- TCP_RR ---- */

/* One request and its response; with_hello (crr): the data hello goes out with the request. */
static enum nb_io tcp_exchange(struct nb_flow *f, int fd, struct bufs *b, bool with_hello)
{
	size_t hl = with_hello ? NB_DHELLO_LEN : 0;
	enum nb_io r = nb_io_send_all(f, fd, b->req - hl, hl + f->p->request);
	if (r != NB_IO_OK)
		return r;
	nb_rr_count_io(f, true, f->p->request);
	r = nb_io_recv_all(f, fd, b->resp, f->p->response);
	if (r == NB_IO_OK)
		nb_rr_count_io(f, false, f->p->response);
	return r;
}

static int tcp_rr_client(struct nb_flow *f, struct bufs *b)
{
	while (!nb_flow_quiet(f)) {
		uint64_t t0 = nb_now_ns();
		enum nb_io r = tcp_exchange(f, f->fd, b, false);
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "TCP_RR transaction");
		nb_rr_transaction_done(f, t0);
	}
	return 0;
}

/* Answer one request on fd; the server counts a transaction when its response is out. With
 * with_hello (crr) the request must follow a data hello of the run: else no answer. */
static enum nb_io serve_one(struct nb_flow *f, int fd, struct bufs *b, bool with_hello)
{
	size_t hl = with_hello ? NB_DHELLO_LEN : 0;
	struct nb_dhello h;
	enum nb_io r = nb_io_recv_all(f, fd, b->req - hl, hl + f->p->request);
	if (r != NB_IO_OK)
		return r;
	if (with_hello && !nb_dhello_get(b->wire, NB_DHELLO_LEN, NB_DH_CRR, f->p->key, &h))
		return NB_IO_CLOSED;
	nb_rr_count_io(f, false, f->p->request);
	r = nb_io_send_all(f, fd, b->resp, f->p->response);
	if (r != NB_IO_OK)
		return r;
	nb_rr_count_io(f, true, f->p->response);
	nb_count(f, NB_C_TRANSACTIONS, 1);
	return NB_IO_OK;
}

static int tcp_rr_server(struct nb_flow *f, struct bufs *b)
{
	for (;;) {
		enum nb_io r = serve_one(f, f->fd, b, false);
		if (r == NB_IO_CLOSED)
			return 0; /* the client ended the run (it reports its own failures) */
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "TCP_RR server");
	}
}

/* ---- UDP_RR ---- */

/* Send request `seq` and wait for its response; stale responses are read and dropped. */
static enum nb_io udp_exchange(struct nb_flow *f, struct bufs *b, uint32_t seq)
{
	nb_rr_seq_put(b->req, seq);
	enum nb_io r = nb_io_send_all(f, f->fd, b->req, f->p->request);
	if (r != NB_IO_OK)
		return r;
	nb_rr_count_io(f, true, f->p->request);
	uint64_t deadline = nb_now_ns() + (uint64_t)nb_rr_timeout_ms(f->p) * 1000000ull;
	for (;;) {
		size_t got;
		r = nb_io_recv(f, f->fd, b->resp, f->p->response, deadline, &got);
		if (r != NB_IO_OK)
			return r;
		nb_rr_count_io(f, false, got);
		if (got >= NB_RR_SEQ_BYTES && nb_rr_seq_get(b->resp) == seq)
			return NB_IO_OK;
	}
}

static int udp_rr_client(struct nb_flow *f, struct bufs *b)
{
	for (uint32_t seq = 1; !nb_flow_quiet(f); seq++) {
		uint64_t t0 = nb_now_ns();
		enum nb_io r = udp_exchange(f, b, seq);
		if (r == NB_IO_TIMEOUT) {
			nb_count(f, NB_C_TIMEOUTS, 1);
			continue;
		}
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "UDP_RR transaction");
		nb_rr_transaction_done(f, t0);
	}
	return 0;
}

static int udp_rr_server(struct nb_flow *f, struct bufs *b)
{
	for (;;) {
		size_t got;
		/* One byte more than a request: a longer datagram shows as the wrong size. */
		enum nb_io r = nb_io_recv(f, f->fd, b->req, f->p->request + 1u, 0, &got);
		if (r == NB_IO_CLOSED)
			return 0; /* ICMP unreachable from an earlier answer: the client is gone */
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "UDP_RR server");
		nb_rr_count_io(f, false, got);
		if (got != f->p->request)
			continue;
		nb_rr_seq_put(b->resp, nb_rr_seq_get(b->req));
		r = nb_io_send_all(f, f->fd, b->resp, f->p->response);
		if (r == NB_IO_CLOSED)
			return 0;
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "UDP_RR server");
		nb_rr_count_io(f, true, f->p->response);
		nb_count(f, NB_C_TRANSACTIONS, 1);
	}
}

/* ---- flow bodies ---- */

static int rr_flow(struct nb_flow *f, bool client)
{
	const struct nb_params *p = f->p;
	uint32_t slice = p->proto == NB_PROTO_UDP ? nb_rr_timeout_ms(p) : 0;
	if (!nb_io_setup(f->fd, p->wait, slice, &f->err))
		return -1;
	struct bufs b;
	if (!bufs_alloc(f, &b))
		return -1;
	int rc;
	if (p->proto == NB_PROTO_UDP)
		rc = client ? udp_rr_client(f, &b) : udp_rr_server(f, &b);
	else
		rc = client ? tcp_rr_client(f, &b) : tcp_rr_server(f, &b);
	bufs_free(&b);
	return rc;
}

static int rr_client_flow(struct nb_flow *f)
{
	return rr_flow(f, true);
}

static int rr_server_flow(struct nb_flow *f)
{
	return rr_flow(f, false);
}

/* ---- TCP_CRR ---- */

/* A blocking connect returns EINPROGRESS when its SO_SNDTIMEO slice passes; a
 * non-blocking one (spin) at once. Wait for the outcome, stop-aware. */
static enum nb_io crr_connect_wait(struct nb_flow *f, int fd)
{
	enum nb_io r = nb_io_wait(f, fd, true, 0);
	int e = 0;
	socklen_t el = sizeof(e);
	if (r == NB_IO_OK && (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0)) {
		errno = e ? e : errno;
		r = errno == ECONNREFUSED ? NB_IO_CLOSED : NB_IO_ERROR;
	}
	return r;
}

/* A fresh socket to f->reach->peer, established; -1 with *r set on failure. Blocking (with
 * 100 ms SO_SNDTIMEO/SO_RCVTIMEO slices) in block and busy-poll modes: on loopback
 * the handshake completes inside connect(), so no poll() per connection. */
static int crr_connect(struct nb_flow *f, enum nb_io *r)
{
	const struct nb_params *p = f->p;
	int family = nb_sock_family(&f->reach->peer);
	bool spin = p->wait == NB_WAIT_SPIN;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | (spin ? SOCK_NONBLOCK : 0), 0);
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	*r = NB_IO_ERROR;
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst)) < 0 ||
	    !nb_sock_apply(fd, p, family, &f->err) || (!spin && !nb_io_setup(fd, p->wait, 0, &f->err)))
		goto fail;
	uint64_t t0 = nb_now_ns();
	*r = NB_IO_OK;
	if (connect(fd, (const struct sockaddr *)&f->reach->peer, f->reach->peer_len) < 0) {
		if (errno == EINPROGRESS || errno == EINTR || errno == EAGAIN)
			*r = crr_connect_wait(f, fd);
		else
			*r = errno == ECONNREFUSED ? NB_IO_CLOSED : NB_IO_ERROR;
	}
	if (*r != NB_IO_OK)
		goto fail;
	nb_count(f, NB_C_CONNECTS, 1);
	nb_count(f, NB_C_CONNECT_NS, nb_now_ns() - t0);
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

static int crr_client_flow(struct nb_flow *f)
{
	struct bufs b;
	if (!bufs_alloc(f, &b))
		return -1;
	nb_dhello_put(b.wire, &(struct nb_dhello){ .kind = NB_DH_CRR, .flow = f->index }, f->p->key);
	int rc = 0;
	/* at a rate (a working case's probe): transaction k due at start + k / rate, timed from its
	 * due time and its lateness recorded, as connect's attempts (schedule.h) */
	struct nb_sched_timer tm = { .late_ns = CRR_MAX_LATE_NS / 2, .min_early_ns = CRR_MIN_EARLY_NS,
				     .max_late_ns = CRR_MAX_LATE_NS };
	uint64_t start = nb_now_ns(), rate = f->p->rate;
	for (uint64_t k = 0; !nb_flow_quiet(f); k++) {
		uint64_t t0 = rate ? nb_sched_due(start, k, rate) : nb_now_ns();
		if (rate) {
			nb_sched_wait(f, &tm, t0);
			if (nb_flow_quiet(f))
				break;
			nb_flow_lag(f, t0, nb_now_ns());
		}
		enum nb_io r;
		int fd = crr_connect(f, &r);
		if (fd >= 0) {
			r = tcp_exchange(f, fd, &b, true);
			close(fd); /* SO_LINGER {1, 0}: a RST, no TIME_WAIT */
		}
		if (r != NB_IO_OK) {
			rc = f->err.msg[0] ? -1 : nb_io_fail(f, r, "TCP_CRR connect/transaction");
			break;
		}
		nb_rr_transaction_done(f, t0);
	}
	bufs_free(&b);
	return rc;
}

/* Take one connection off the shared listener; -1 when none came (or stopping), or it came
 * from a host the run takes no data from (reach->peer's, or any when it is AF_UNSPEC: a
 * session over ssh or from another agent; closed at once; the CRR hello's key decides next). In block and busy-poll modes
 * accept() blocks for one slice (the listener's SO_RCVTIMEO) and the harness's shutdown of the
 * listener wakes it at the stop. */
static int crr_accept(struct nb_flow *f, enum nb_io *r)
{
	bool spin = f->p->wait == NB_WAIT_SPIN;
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	int fd = accept4(f->reach->listen_fd, (struct sockaddr *)&from, &fl,
			 SOCK_CLOEXEC | (spin ? SOCK_NONBLOCK : 0));
	*r = NB_IO_OK;
	if (fd >= 0 && !nb_sock_from_allowed(&f->reach->peer, &from)) {
		close(fd);
		return -1;
	}
	if (fd >= 0)
		return fd;
	if (nb_flow_stopping(f))
		*r = NB_IO_STOP;
	else if ((errno == EAGAIN || errno == EWOULDBLOCK) && spin)
		nb_io_spin_pause();
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		 errno != ECONNABORTED && errno != EMFILE && errno != ENFILE)
		*r = NB_IO_ERROR;
	return -1;
}

/* The listener is shared by every server flow (so this runs once per flow: idempotent).
 * Accepted sockets inherit its timeouts and busy-poll setting. */
static bool crr_listener_setup(struct nb_flow *f)
{
	if (f->p->wait != NB_WAIT_SPIN)
		return nb_io_setup(f->reach->listen_fd, f->p->wait, 0, &f->err);
	int fl = fcntl(f->reach->listen_fd, F_GETFL);
	if (fl < 0 || fcntl(f->reach->listen_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return nb_error_errno(&f->err, errno, "listener O_NONBLOCK");
	return true;
}

static int crr_server_flow(struct nb_flow *f)
{
	struct bufs b;
	if (!crr_listener_setup(f) || !bufs_alloc(f, &b))
		return -1;
	int rc = 0;
	while (rc == 0) {
		enum nb_io r;
		int fd = crr_accept(f, &r);
		if (fd >= 0) {
			r = serve_one(f, fd, &b, true);
			close(fd);
			if (r == NB_IO_CLOSED || r == NB_IO_ERROR)
				r = NB_IO_OK; /* one client's broken connection is not the run's */
		}
		if (r == NB_IO_STOP)
			break;
		if (r != NB_IO_OK)
			rc = nb_io_fail(f, r, "TCP_CRR accept");
	}
	bufs_free(&b);
	return rc;
}

/* The config keys that mean something to rr and crr beyond the common ones (no timeout for
 * crr: it runs over TCP only, where an answer is never lost). */
static const char *const rr_keys[] = { "request", "response", "wait", "timeout", "threads",
					NULL };
static const char *const crr_keys[] = { "request", "response", "wait", "rate", "threads", NULL };

const struct nb_engine nb_engine_rr = {
	.name = "rr",                     /* TCP_RR / UDP_RR by params.proto */
	.summary = "request/response transactions per second (TCP_RR, UDP_RR) with RTT percentiles",
	.traits = {
		.directional = false,                   /* the client requests, the agent answers */
		.loop = NB_LOOP_CLOSED,                 /* one request in flight per flow */
		.rate = NB_RATE_KIND_NONE,              /* no `rate`: as fast as answers come */
		.rate_unit = NULL,
		.protocols = 1u << NB_PROTO_TCP | 1u << NB_PROTO_UDP,
		.default_proto = NB_PROTO_TCP,
		.default_size = { 0, 0 },               /* no `size`: request and response instead */
		.min_size = { 0, 0 },
		.default_request = 32,                  /* netperf's TCP_RR 32/128 routine */
		.default_response = 128,
		.protocols_note = NULL,                 /* runs over both */
		.keys = rr_keys,
		.headline = { "trans_per_s", "trans/s", true }, /* transactions per second */
		.records_latency = true,                 /* client: each transaction's RTT */
		.rpm = NB_RPM_RR,
	},
	.datapath = NB_DATAPATH_CONNECTED, /* one long-lived connection per flow */
	.validate = rr_validate,          /* request/response sizes, flows */
	.client_flow = rr_client_flow,    /* one request in flight per flow */
	.server_flow = rr_server_flow,    /* answers each request with `response` bytes */
	.report = nb_report_round_trips,  /* the client's transactions, bytes, UDP timeouts */
	.steps = &nb_rr_steps,            /* flows over threads (threads:), wait: block */
};

const struct nb_engine nb_engine_crr = {
	.name = "crr",                    /* TCP_CRR */
	.summary = "connect/request/response/close transactions per second (TCP_CRR)",
	.traits = {
		.directional = false,                   /* the client requests, the agent answers */
		.loop = NB_LOOP_CLOSED_UNPACED,         /* rate 0: one transaction in flight per flow, as
							   fast as answers come; rate > 0: a schedule */
		.rate = NB_RATE_KIND_PACKETS,           /* transactions/s per flow */
		.rate_unit = "trans/s",
		.protocols = 1u << NB_PROTO_TCP,
		.default_proto = NB_PROTO_TCP,
		.default_size = { 0, 0 },               /* no `size`: request and response instead */
		.min_size = { 0, 0 },
		.default_request = 32,                  /* netperf's TCP_CRR 32/128 routine */
		.default_response = 128,
		.protocols_note = "connects per transaction over TCP only",
		.keys = crr_keys,
		.headline = { "trans_per_s", "trans/s", true }, /* transactions per second */
		.records_latency = true,                 /* client: each transaction's RTT, connect included */
		.rpm = NB_RPM_NEW_RR,
	},
	.datapath = NB_DATAPATH_PER_CONNECTION, /* client flows connect to reach->peer per transaction */
	.validate = crr_validate,         /* TCP only; request/response sizes, flows */
	.client_flow = crr_client_flow,   /* closes with RST: no TIME_WAIT, no port exhaustion */
	.server_flow = crr_server_flow,   /* accepts from the shared listener, answers, closes */
	.report = nb_report_round_trips,  /* the client's transactions, connect time */
	.steps = &nb_crr_steps,           /* flows over threads (threads:), wait: block */
};
