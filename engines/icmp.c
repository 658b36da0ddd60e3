/* nbrun — the icmp engine: ICMP echo round trips to any host, IPv4 or IPv6, no agent (ping).
 *
 * The socket: the kernel's unprivileged ping socket (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6), which
 * any process whose group is inside net.ipv4.ping_group_range may open (the kernel fills the
 * identifier and checksum and hands back only this socket's replies); else, with CAP_NET_RAW,
 * a raw socket (we fill identifier and checksum, and skip the replies of others); else the
 * flow fails saying why neither is allowed. Which one ran is the gauge NB_G_ICMP_SOCKET.
 *
 * Every request carries, after the 8-byte ICMP header, the same 24-byte header as the latency
 * engine's messages (magic, flow, 64-bit sequence number, due time on our CLOCK_MONOTONIC), so
 * a reply is matched without any table lookup and its RTT counts from the due time. rate 0:
 * one request in flight, the next when the last is answered or timed out (ping's default but
 * back to back); rate > 0: request k is due at t0 + k / rate, sent late if need be and still
 * stamped with its due time (no coordinated omission). A request with no reply within timeout
 * of its due time is lost (NB_C_TIMEOUTS); a second reply within that time is a duplicate
 * (NB_C_DUP); a reply after it is ignored. Receive times come from the kernel
 * (SO_TIMESTAMPNS, moved onto the monotonic clock) where it gives them.
 */
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
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

#define ICMP_HDR 8u
#define HDR 24u                      /* our header after the ICMP header */
#define MAGIC 0x4e424943u            /* "NBIC" */
#define DEFAULT_TIMEOUT_MS 1000u
#define MAX_SIZE 65000u
#define WIN (1u << 16)               /* requests tracked at once per flow */
#define MAX_RATE 1000000ull
#define SPIN_NS 60000ull             /* a paced send stops sleeping at least this long before it
					is due, and at most twice MAX_LATE_NS (schedule.h) */
#define MAX_LATE_NS 200000ull        /* a timed sleep later than this was preempted */
#define RX_BUF (MAX_SIZE + 128u)

/* A slot of the in-flight window: the due time of seq, and whether its reply came. */
struct slot {
	uint64_t seq, due;
	bool answered;
};

struct icmp_flow {
	struct nb_flow *f;
	bool v6, raw;
	uint16_t ident;              /* raw sockets: our identifier; ping sockets: the kernel's */
	struct sockaddr_storage to;
	socklen_t to_len;
	uint64_t t0, tmo_ns, next, oldest, inflight;
	struct nb_sched_timer timer; /* how late its timed sleeps end (schedule.h) */
	struct slot *win;
	unsigned char *out, *in;
};

static uint64_t timeout_ns(const struct nb_params *p)
{
	return (uint64_t)(p->timeout_ms ? p->timeout_ms : DEFAULT_TIMEOUT_MS) * 1000000ull;
}

static bool icmp_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->proto != NB_PROTO_ICMP)
		return nb_error_set(err, "icmp sends ICMP echo only");
	if (p->size < HDR || p->size > MAX_SIZE)
		return nb_error_set(err, "size must be %u..%u bytes (the header takes %u)", HDR,
				    MAX_SIZE, HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS)
		return nb_error_set(err, "flows must be 1..%d", NB_MAX_FLOWS);
	if (p->rate > MAX_RATE)
		return nb_error_set(err, "rate must be at most %llu requests/s per flow",
				    (unsigned long long)MAX_RATE);
	if (p->rate * (timeout_ns(p) / 1000000ull) / 1000 >= WIN / 2)
		return nb_error_set(err, "rate x timeout is too many requests in flight (max %u)",
				    WIN / 2);
	return true;
}

/* ---- the socket ---- */

static void read_range(char *out, size_t n)
{
	FILE *fp = fopen("/proc/sys/net/ipv4/ping_group_range", "r");
	unsigned long lo, hi;
	if (fp && fscanf(fp, "%lu %lu", &lo, &hi) == 2)
		snprintf(out, n, "%lu %lu", lo, hi);
	else
		snprintf(out, n, "unreadable");
	if (fp)
		fclose(fp);
}

/* A ping socket, else a raw one; f->err says why neither when -1. */
static int open_socket(struct icmp_flow *u)
{
	int fam = u->v6 ? AF_INET6 : AF_INET, proto = u->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	int fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, proto);
	if (fd >= 0)
		return fd;
	int dgram_errno = errno;
	fd = socket(fam, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd >= 0) {
		u->raw = true;
		return fd;
	}
	char range[64];
	read_range(range, sizeof(range));
	nb_error_set(&u->f->err, "icmp: no ping socket (%s: group %u is outside "
		     "net.ipv4.ping_group_range = %s) and no raw socket (%s: needs CAP_NET_RAW)",
		     strerror(dgram_errno), (unsigned)getgid(), range, strerror(errno));
	return -1;
}

static bool setup_socket(struct icmp_flow *u)
{
	struct nb_flow *f = u->f;
	f->fd = open_socket(u);
	if (f->fd < 0)
		return false;
	int on = 1;
	(void)setsockopt(f->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)); /* best effort */
	if (f->p->tos >= 0 && !nb_sock_apply(f->fd, f->p, u->v6 ? AF_INET6 : AF_INET, &f->err))
		return false;
	nb_gauge_set(f, NB_G_ICMP_SOCKET, u->raw ? 2 : 1);
	u->ident = (uint16_t)(getpid() * 31u + f->index);
	memcpy(&u->to, &f->reach->peer, f->reach->peer_len);
	u->to_len = f->reach->peer_len;
	if (u->v6)
		((struct sockaddr_in6 *)&u->to)->sin6_port = 0; /* raw IPv6: a port means a protocol */
	else
		((struct sockaddr_in *)&u->to)->sin_port = 0;
	return true;
}

/* ---- requests ---- */

static uint16_t checksum(const unsigned char *b, size_t n)
{
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static struct slot *slot_of(const struct icmp_flow *u, uint64_t seq)
{
	return &u->win[seq % WIN];
}

static uint64_t due_of(const struct icmp_flow *u, uint64_t k)
{
	return nb_sched_due(u->t0, k, u->f->p->rate);
}

/* Build and send request u->next, due at due. */
static bool send_one(struct icmp_flow *u, uint64_t due)
{
	unsigned char *b = u->out;
	uint32_t size = u->f->p->size, m = MAGIC, fl = u->f->index;
	b[0] = u->v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
	b[1] = b[2] = b[3] = 0;
	b[4] = (unsigned char)(u->ident >> 8);
	b[5] = (unsigned char)u->ident;
	b[6] = (unsigned char)(u->next >> 8);
	b[7] = (unsigned char)u->next;
	memcpy(b + ICMP_HDR, &m, 4);
	memcpy(b + ICMP_HDR + 4, &fl, 4);
	memcpy(b + ICMP_HDR + 8, &u->next, 8);
	memcpy(b + ICMP_HDR + 16, &due, 8);
	if (u->raw && !u->v6) { /* ping sockets and ICMPv6 get theirs from the kernel */
		uint16_t c = checksum(b, ICMP_HDR + size);
		b[2] = (unsigned char)(c >> 8);
		b[3] = (unsigned char)c;
	}
	ssize_t n = sendto(u->f->fd, b, ICMP_HDR + size, MSG_DONTWAIT,
			   (const struct sockaddr *)&u->to, u->to_len);
	if (n < 0 && (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)) {
		nb_count(u->f, NB_C_SND_ERRS, 1);
		return true; /* local back-pressure: the request is lost, and counted as such */
	}
	if (n < 0)
		return nb_error_errno(&u->f->err, errno, "icmp send");
	nb_count(u->f, NB_C_TX_PACKETS, 1);
	nb_count(u->f, NB_C_TX_BYTES, size);
	return true;
}

static bool send_due(struct icmp_flow *u, uint64_t now)
{
	bool paced = u->f->p->rate > 0;
	if (nb_flow_quiet(u->f) || (paced ? due_of(u, u->next) > now : u->inflight > 0))
		return true;
	uint64_t due = paced ? due_of(u, u->next) : now;
	if (paced)
		nb_flow_lag(u->f, due, now);
	*slot_of(u, u->next) = (struct slot){ .seq = u->next, .due = due };
	u->inflight++;
	bool ok = send_one(u, due);
	u->next++;
	return ok;
}

/* ---- replies ---- */

/* Now on both clocks, read as close together as a preemption allows (so that a realtime
 * stamp moves onto the monotonic clock without the gap between two reads in it). */
static void both_clocks(uint64_t *mono, int64_t *real_ns)
{
	for (int i = 0; i < 4; i++) {
		struct timespec r;
		uint64_t m1 = nb_now_ns();
		clock_gettime(CLOCK_REALTIME, &r);
		uint64_t m2 = nb_now_ns();
		*mono = m1 + (m2 - m1) / 2;
		*real_ns = (int64_t)r.tv_sec * 1000000000ll + r.tv_nsec;
		if (m2 - m1 < 2000)
			return;
	}
}

/* The kernel's receive time of msg on our monotonic clock, or now when it gave none. */
static uint64_t rx_time(struct msghdr *msg)
{
	uint64_t now;
	int64_t real;
	both_clocks(&now, &real);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		struct timespec k;
		memcpy(&k, CMSG_DATA(c), sizeof(k));
		int64_t ago = real - ((int64_t)k.tv_sec * 1000000000ll + k.tv_nsec);
		return ago > 0 && (uint64_t)ago < now ? now - (uint64_t)ago : now;
	}
	return now;
}

/* The echo reply in b (ICMP header first), if it is one of ours: its sequence number. */
static bool parse_reply(const struct icmp_flow *u, const unsigned char *b, size_t n, uint64_t *seq)
{
	uint32_t m, fl;
	if (n < ICMP_HDR + HDR || b[0] != (u->v6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY))
		return false;
	if (u->raw && (uint16_t)(b[4] << 8 | b[5]) != u->ident)
		return false;
	memcpy(&m, b + ICMP_HDR, 4);
	memcpy(&fl, b + ICMP_HDR + 4, 4);
	memcpy(seq, b + ICMP_HDR + 8, 8);
	return m == MAGIC && fl == u->f->index;
}

static void on_reply(struct icmp_flow *u, const unsigned char *b, size_t n, uint64_t at)
{
	uint64_t seq;
	if (!parse_reply(u, b, n, &seq) || seq < u->oldest || seq >= u->next)
		return; /* not ours, or already counted lost */
	struct slot *s = slot_of(u, seq);
	if (s->answered) {
		nb_count(u->f, NB_C_DUP, 1);
		return;
	}
	s->answered = true;
	u->inflight--;
	nb_count(u->f, NB_C_RX_PACKETS, 1);
	nb_count(u->f, NB_C_RX_BYTES, n - ICMP_HDR);
	nb_count(u->f, NB_C_TRANSACTIONS, 1);
	if (u->f->hist)
		nb_hist_record(u->f->hist, at > s->due ? at - s->due : 0);
}

/* Read every reply that is in, without waiting. */
static bool recv_ready(struct icmp_flow *u)
{
	for (;;) {
		char ctl[256];
		struct iovec iov = { .iov_base = u->in, .iov_len = RX_BUF };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				      .msg_controllen = sizeof(ctl) };
		ssize_t n = recvmsg(u->f->fd, &msg, MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
			       nb_error_errno(&u->f->err, errno, "icmp receive");
		uint64_t at = rx_time(&msg);
		size_t skip = 0;
		if (u->raw && !u->v6 && n > 0) /* raw IPv4 hands us the IP header too */
			skip = (size_t)(u->in[0] & 0x0f) * 4;
		if ((size_t)n > skip)
			on_reply(u, u->in + skip, (size_t)n - skip, at);
	}
}

/* Resolve the requests whose time is up: unanswered ones are lost. */
static void expire(struct icmp_flow *u, uint64_t now)
{
	while (u->oldest < u->next && slot_of(u, u->oldest)->due + u->tmo_ns <= now) {
		if (!slot_of(u, u->oldest)->answered) {
			nb_count(u->f, NB_C_TIMEOUTS, 1);
			u->inflight--;
		}
		u->oldest++;
	}
}

/* Sleep until the next send, the oldest expiry or a reply (at most one slice). */
static void wait_next(struct icmp_flow *u, uint64_t now)
{
	uint64_t wake = now + NB_IO_SLICE_MS * 1000000ull;
	if (!nb_flow_quiet(u->f) && u->f->p->rate) {
		/* a late timer would count in the RTT (stamped from the due time): wake early by twice
		 * the timer's measured lateness and poll the last stretch (schedule.h) */
		uint64_t at = nb_sched_wake_at(&u->timer, now, due_of(u, u->next));
		if (at <= now)
			return; /* due, or nearly: go round without sleeping */
		if (at < wake)
			wake = at;
	}
	/* An unanswered request's time-out (an answered one's passes harmlessly at the next wake:
	 * it must not hold the sender to the timer's lateness). */
	if (u->oldest < u->next && !slot_of(u, u->oldest)->answered &&
	    slot_of(u, u->oldest)->due + u->tmo_ns < wake)
		wake = slot_of(u, u->oldest)->due + u->tmo_ns;
	if (wake <= now || (!u->f->p->rate && !nb_flow_quiet(u->f) && u->inflight == 0))
		return; /* due, or (rate 0) the last request is resolved: send the next now */
	uint64_t ns = wake - now;
	struct pollfd pfd = { .fd = u->f->fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };
	if (ppoll(&pfd, 1, &ts, NULL) != 0)
		return; /* a reply (or a signal): says nothing of the timer */
	nb_sched_learn(&u->timer, ns, nb_now_ns() - now);
}

static int run_flow(struct icmp_flow *u)
{
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	u->t0 = nb_now_ns();
	/* until measured: a VM timer is often ~100 us late */
	u->timer = (struct nb_sched_timer){ .late_ns = MAX_LATE_NS / 2, .min_early_ns = SPIN_NS,
					    .max_late_ns = MAX_LATE_NS };
	while (!nb_flow_stopping(u->f)) {
		if (!send_due(u, nb_now_ns()) || !recv_ready(u))
			return -1;
		uint64_t now = nb_now_ns();
		expire(u, now);
		if (nb_flow_quiet(u->f) && u->inflight == 0)
			break;
		wait_next(u, now);
	}
	return 0;
}

static int icmp_client_flow(struct nb_flow *f)
{
	struct icmp_flow u = { .f = f, .v6 = f->reach->peer.ss_family == AF_INET6, .tmo_ns = timeout_ns(f->p) };
	u.win = calloc(WIN, sizeof(*u.win));
	u.out = calloc(1, ICMP_HDR + f->p->size);
	u.in = malloc(RX_BUF);
	int rc = -1;
	if (!u.win || !u.out || !u.in)
		nb_error_set(&f->err, "out of memory");
	else if (setup_socket(&u))
		rc = run_flow(&u);
	free(u.win);
	free(u.out);
	free(u.in);
	return rc; /* the harness closes f->fd */
}

/* The config keys that mean something to icmp beyond the common ones. */
static const char *const icmp_keys[] = { "size", "rate", "timeout", NULL };

/* Every echo answered or lost (a timeout): loss is the timeouts over the echoes sent. */
static void icmp_report(const struct nb_engine *e, const struct nb_params *p,
			const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	nb_report_round_trips(e, p, s, lo, hi, m);
	const struct nb_snapshot *a = s->l0, *b = s->l1;
	double lost = nb_span_sum(a, b, lo, hi, NB_C_TIMEOUTS);
	m->v[NB_COL_TIMEOUTS] = lost;
	m->v[NB_COL_LOST] = lost;
	m->v[NB_COL_LOSS_PCT] = nb_span_pct(lost, lost + m->v[NB_COL_TRANS]);
	m->v[NB_COL_DUP] = nb_span_sum(a, b, lo, hi, NB_C_DUP);
	m->v[NB_COL_SND_ERRS] = nb_span_sum(a, b, lo, hi, NB_C_SND_ERRS);
}

const struct nb_engine nb_engine_icmp = {
	.name = "icmp",                       /* ping */
	.summary = "ICMP echo round-trip time to any host, IPv4 or IPv6 (no agent)",
	.traits = {
		.directional = false,                   /* we ask, the target's kernel answers */
		.loop = NB_LOOP_CLOSED_UNPACED,         /* rate 0: one in flight; rate > 0: a schedule */
		.rate = NB_RATE_KIND_PACKETS,           /* requests/s per flow */
		.rate_unit = "req/s",
		.protocols = 1u << NB_PROTO_ICMP,
		.default_proto = NB_PROTO_ICMP,
		.default_size = { [NB_PROTO_ICMP] = 56 }, /* ping's default payload */
		.min_size = { [NB_PROTO_ICMP] = HDR },  /* our header */
		.default_request = 0,
		.default_response = 0,
		.protocols_note = "sends ICMP echo only",
		.keys = icmp_keys,
		.headline = { "lat_p50_us", "us", false }, /* median round trip */
		.caveat = { "icmp-kernel",
			    "an ICMP echo is answered by the target's kernel in softirq: the round "
			    "trip leaves out the socket, the scheduler and any application (measure "
			    "those with engine latency or connect)" },
		.loss_cause = { "icmp-ratelimit",
				"targets rate-limit ICMP replies (Linux: net.ipv4.icmp_ratelimit and "
				"icmp_msgs_per_sec, 1000/s by default; cloud hosts and load balancers "
				"often fewer): replies missing at a steady pace are the target's limit, "
				"not the network's loss; lower the rate or measure with engine connect" },
		.records_latency = true,                 /* round trips from the due time */
	},
	.datapath = NB_DATAPATH_OWN, /* each flow opens its own socket to reach->peer */
	.validate = icmp_validate,            /* size >= 24, rate x timeout, flows */
	.client_flow = icmp_client_flow,      /* ping socket, else raw */
	.report = icmp_report,                /* echoes answered, lost, duplicated */
	.prepare_socket = NULL,
};
