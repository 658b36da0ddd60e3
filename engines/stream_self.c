/* nbrun — self probes of a TCP stream (see stream_self.h): the framed sender, the parsing
 * receiver, and the requester on the client, one thread per flow over poll(). */
#include "stream_self.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cols.h"
#include "param_defs.h"
#include "sock.h"
#include "session.h"
#include "span.h"

NB_PARAM_OWN_FITS(struct nb_stream_own);

const struct nb_param_def nb_stream_params[] = {
	{ .key = "self", .kind = NB_PK_UINT, .flags = NB_PF_TCP,
	  .offset = NB_PARAM_OWN(struct nb_stream_own, self_rate), .size = sizeof(uint32_t),
	  .max = NB_SELF_RATE_MAX, .unit = "req/s", .wire = 4, .column = "self",
	  .expect = "0 to 1000 requests per second such as 10",
	  .doc_value = "0..1000 requests/s per flow, 0 = none",
	  .doc = "TCP: self probes, round trips multiplexed on each flow's own connection "
		 "(docs/engines.md, \"Self probes\")" },
	{ .key = NULL },
};

enum { SELF_SENT, SELF_ANSWERED };
const struct nb_counter_def nb_stream_counters[] = {
	[SELF_SENT] = { "self_sent", "self requests written into the socket" },
	[SELF_ANSWERED] = { "self_answered", "self responses read" },
	{ NULL, NULL },
};

const struct nb_col_def nb_stream_columns[] = {
	{ .name = "self_sent", .unit = "", .label = "Self probes sent", .better = NB_BETTER_NONE },
	{ .name = "self_answered", .unit = "", .label = "Self probes answered",
	  .better = NB_BETTER_NONE },
	{ .name = "self_waiting", .unit = "", .label = "Self probes waiting for their answer at the "
	  "row's end", .better = NB_BETTER_NONE },
	{ .name = NULL },
};

uint32_t nb_stream_self_rate(const struct nb_params *p)
{
	struct nb_stream_own o;
	memcpy(&o, p->own, sizeof(o));
	return o.self_rate;
}

bool nb_stream_self_on(const struct nb_params *p)
{
	return p->proto == NB_PROTO_TCP && nb_stream_self_rate(p) > 0;
}

bool nb_stream_self_validate(const struct nb_params *p, struct nb_error *err)
{
	if (!nb_stream_self_rate(p))
		return true;
	if (p->proto != NB_PROTO_TCP)
		return nb_error_set(err, "self probes run over TCP only (expected no self: over UDP)");
	if (p->size < 2 * NB_SELF_HDR)
		return nb_error_set(err, "self probes need a size of %u bytes at least (two frame "
				    "headers), got %u", 2 * NB_SELF_HDR, p->size);
	return true;
}

/* Waiting at the span's end: the client's requests written and not yet answered. */
static double waiting(const struct nb_snapshot *b, uint32_t lo, uint32_t hi)
{
	double w = 0;
	for (uint32_t f = lo; f < hi && f < b->nflows; f++) {
		uint64_t s = b->flow[f].own[SELF_SENT], a = b->flow[f].own[SELF_ANSWERED];
		w += s > a ? (double)(s - a) : 0; /* two loads: an answer may be read after */
	}
	return w;
}

void nb_stream_self_report(const struct nb_params *p, const struct nb_span *s, uint32_t lo,
			   uint32_t hi, struct nb_metrics *m)
{
	if (!nb_stream_self_on(p) || !s->l1)
		return;
	m->own[0] = nb_span_own_sum(s->l0, s->l1, lo, hi, SELF_SENT);
	m->own[1] = nb_span_own_sum(s->l0, s->l1, lo, hi, SELF_ANSWERED);
	m->own[2] = waiting(s->l1, lo, hi);
}

/* ---- frames ---- */

static void put_be(unsigned char *b, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static uint64_t get_be(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

void nb_self_put(unsigned char *b, enum nb_self_type t, uint32_t len, uint64_t seq)
{
	memcpy(b, "NBS", 3);
	b[3] = (unsigned char)t;
	put_be(b + 4, len, 4);
	put_be(b + 8, seq, 8);
}

bool nb_self_get(const unsigned char *b, enum nb_self_type *t, uint32_t *len, uint64_t *seq)
{
	if (memcmp(b, "NBS", 3) != 0)
		return false;
	*t = (enum nb_self_type)b[3];
	*len = (uint32_t)get_be(b + 4, 4);
	*seq = get_be(b + 8, 8);
	if (*t == NB_SELF_DATA)
		return *len >= 1 && *len <= NB_SELF_REC_MAX - NB_SELF_HDR;
	return (*t == NB_SELF_REQ || *t == NB_SELF_RESP) && *len == 0;
}

/* ---- one flow's state ---- */

#define RING 256u
#define SLICE_MS 100
#define RX_BUF (128 * 1024)

struct self {
	struct nb_flow *f;
	int fd;
	/* the requester (the client): its schedule, and each unanswered request's write time */
	bool asks;
	uint64_t period_ns, next_ns;
	uint64_t sent, answered;          /* requests written; responses read (in order) */
	uint64_t sent_at[RING];
	bool req_due;                     /* a request's time came; not yet in a frame */
	/* the framed bulk sender */
	unsigned char *buf;
	size_t len, off, rec;             /* the write's bytes: whole DATA frames of rec bytes */
	unsigned char pf[NB_SELF_HDR];    /* a REQ / RESP frame going out between two DATA frames */
	uint32_t pf_off, pf_len;
	bool pf_req;                      /* pf is a request: stamp it when written */
	uint64_t resp_q;                  /* download, the agent: requests read, not yet answered */
	uint64_t asked;                   /* the responder: requests read so far (their seq) */
	/* the parsing receiver, and the idle direction's frames */
	unsigned char hdr[NB_SELF_HDR];
	uint32_t got;
	uint64_t skip;                    /* payload bytes left of the current DATA frame */
	unsigned char out[RING * NB_SELF_HDR]; /* frames going out on the idle direction */
	size_t out_len;
	bool out_req;                     /* out holds a request: stamp it when written */
};

static int fail(struct self *s, const char *what)
{
	nb_error_set(&s->f->err, "flow %u: self probes: %s", s->f->index, what);
	return -1;
}

static int fail_errno(struct self *s, int e, const char *what)
{
	if (nb_flow_stopping(s->f))
		return 0;
	nb_error_errno(&s->f->err, e, "flow %u: %s", s->f->index, what);
	return -1;
}

static bool would_block(ssize_t n)
{
	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

/* The request's last byte is in the socket: its round trip starts now. */
static void stamp(struct self *s)
{
	s->sent_at[s->sent % RING] = nb_now_ns();
	s->sent++;
	nb_count_own(s->f, SELF_SENT, 1);
}

/* A response arrived: it must be the oldest unanswered request's. */
static int answer(struct self *s, uint64_t seq)
{
	if (!s->asks || seq != s->answered || s->answered >= s->sent)
		return fail(s, "a response out of order");
	uint64_t now = nb_now_ns();
	if (s->f->hist)
		nb_hist_record(s->f->hist, now - s->sent_at[seq % RING]);
	s->answered++;
	nb_count_own(s->f, SELF_ANSWERED, 1);
	return 1;
}

/* A request arrived (the agent): it must be the next one. */
static int asked(struct self *s, uint64_t seq)
{
	if (s->asks || seq != s->asked)
		return fail(s, "a request out of order");
	s->asked++;
	return 1;
}

/* The requester's clock: a request's time came (never two at once after a stall). */
static void tick(struct self *s, uint64_t now)
{
	if (!s->asks || nb_flow_quiet(s->f) || now < s->next_ns)
		return;
	s->next_ns += s->period_ns;
	if (s->next_ns <= now)
		s->next_ns = now + s->period_ns;
	if (s->sent - s->answered < RING)
		s->req_due = true;
}

static int wait_ms(const struct self *s, uint64_t now)
{
	if (!s->asks || nb_flow_quiet(s->f))
		return SLICE_MS;
	uint64_t left = s->next_ns > now ? s->next_ns - now : 0;
	uint64_t ms = (left + 999999) / 1000000;
	return ms < SLICE_MS ? (int)ms : SLICE_MS;
}

/* ---- the idle direction: whole header-only frames ---- */

static int out_flush(struct self *s)
{
	while (s->out_len) {
		ssize_t n = send(s->fd, s->out, s->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (would_block(n))
			return 1;
		if (n <= 0)
			return fail_errno(s, n < 0 ? errno : EPIPE, "send (self frames)");
		memmove(s->out, s->out + n, s->out_len - (size_t)n);
		s->out_len -= (size_t)n;
	}
	if (s->out_req) {
		s->out_req = false;
		stamp(s);
	}
	return 1;
}

static int out_frame(struct self *s, enum nb_self_type t, uint64_t seq)
{
	if (s->out_len + NB_SELF_HDR > sizeof(s->out))
		return fail(s, "more than 256 frames wait on the idle direction");
	nb_self_put(s->out + s->out_len, t, 0, seq);
	s->out_len += NB_SELF_HDR;
	return out_flush(s);
}

/* One frame header complete: what it says. */
static int on_header(struct self *s, bool stream)
{
	enum nb_self_type t;
	uint32_t len;
	uint64_t seq;
	if (!nb_self_get(s->hdr, &t, &len, &seq) || (!stream && t == NB_SELF_DATA))
		return fail(s, "a frame that is not one (the peer sends no self frames, or another "
			    "version's)");
	s->got = 0;
	if (t == NB_SELF_DATA) {
		s->skip = len;
		return 1;
	}
	if (t == NB_SELF_RESP)
		return answer(s, seq);
	if (asked(s, seq) < 0)
		return -1;
	if (stream) /* upload, the agent: answer on the idle direction at once */
		return out_frame(s, NB_SELF_RESP, seq);
	s->resp_q++; /* download, the agent: answer between two DATA frames */
	return 1;
}

/* Bytes read: frames (stream: DATA among them; the idle direction: headers only). */
static int parse(struct self *s, const unsigned char *b, size_t n, bool stream)
{
	while (n) {
		if (s->skip) {
			size_t k = s->skip < n ? (size_t)s->skip : n;
			s->skip -= k, b += k, n -= k;
			continue;
		}
		size_t k = NB_SELF_HDR - s->got < n ? NB_SELF_HDR - s->got : n;
		memcpy(s->hdr + s->got, b, k);
		s->got += (uint32_t)k, b += k, n -= k;
		if (s->got == NB_SELF_HDR && on_header(s, stream) < 0)
			return -1;
	}
	return 1;
}

static int read_some(struct self *s, unsigned char *b, size_t cap, bool stream)
{
	for (int k = 0; k < 4; k++) {
		ssize_t n = recv(s->fd, b, cap, MSG_DONTWAIT);
		if (would_block(n))
			return 1;
		if (n == 0)
			return 0; /* the peer closed */
		if (n < 0)
			return fail_errno(s, errno, "recv");
		if (parse(s, b, (size_t)n, stream) < 0)
			return -1;
	}
	return 1;
}

/* ---- the framed bulk sender ---- */

static bool at_boundary(const struct self *s)
{
	return s->off % s->rec == 0 && s->pf_off == s->pf_len;
}

/* At a boundary: the next REQ or RESP into pf, if one waits. */
static void load_frame(struct self *s)
{
	if (!at_boundary(s))
		return;
	if (s->resp_q) {
		nb_self_put(s->pf, NB_SELF_RESP, 0, s->asked - s->resp_q);
		s->resp_q--;
	} else if (s->req_due) {
		s->req_due = false;
		nb_self_put(s->pf, NB_SELF_REQ, 0, s->sent);
		s->pf_req = true;
	} else {
		return;
	}
	s->pf_off = 0;
	s->pf_len = NB_SELF_HDR;
}

/* Whether the sender has bytes to write: a frame, the rest of a DATA frame, a response, or
 * (until quiet) the next DATA frame. After quiet it ends its DATA frame and answers what was
 * asked, so the stream stays whole and no request goes unanswered for want of a frame. */
static bool has_out(const struct self *s)
{
	return s->pf_off < s->pf_len || s->off % s->rec || s->resp_q || !nb_flow_quiet(s->f);
}

static int write_some(struct self *s)
{
	for (int k = 0; k < 4; k++) {
		load_frame(s);
		const unsigned char *b;
		size_t want;
		if (s->pf_off < s->pf_len) {
			b = s->pf + s->pf_off, want = s->pf_len - s->pf_off;
		} else if (s->off % s->rec || !nb_flow_quiet(s->f)) {
			/* a frame waiting, or quiet: only to the end of this DATA frame */
			bool stop_at = s->resp_q || s->req_due || nb_flow_quiet(s->f);
			size_t end = stop_at ? (s->off / s->rec + 1) * s->rec : s->len;
			b = s->buf + s->off, want = end - s->off;
		} else {
			return 1;
		}
		ssize_t n = send(s->fd, b, want, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (would_block(n))
			return 1;
		if (n <= 0)
			return fail_errno(s, n < 0 ? errno : EPIPE, "send");
		if (s->pf_off < s->pf_len) {
			s->pf_off += (uint32_t)n;
			if (s->pf_off == s->pf_len && s->pf_req) {
				s->pf_req = false;
				stamp(s);
			}
		} else {
			s->off = (s->off + (size_t)n) % s->len;
		}
		if ((size_t)n < want)
			return 1;
	}
	return 1;
}

static bool sender_init(struct self *s)
{
	uint32_t size = s->f->p->size;
	s->rec = size < NB_SELF_REC_MAX ? size : NB_SELF_REC_MAX;
	s->len = (size / s->rec) * s->rec;
	if (!(s->buf = calloc(1, s->len)))
		return false;
	for (size_t o = 0; o < s->len; o += s->rec)
		nb_self_put(s->buf + o, NB_SELF_DATA, (uint32_t)(s->rec - NB_SELF_HDR), 0);
	return true;
}

/* One round of either role: wait for the socket or the next request, then move bytes. */
static int round_of(struct self *s, unsigned char *rx, bool sender)
{
	uint64_t now = nb_now_ns();
	tick(s, now);
	if (!sender && s->req_due && !s->out_len) { /* download, the client: ask upstream */
		s->req_due = false;
		s->out_req = true;
		if (out_frame(s, NB_SELF_REQ, s->sent) < 0)
			return -1;
	}
	short ev = POLLIN;
	if (sender ? has_out(s) : s->out_len > 0)
		ev |= POLLOUT;
	struct pollfd pfd = { .fd = s->fd, .events = ev };
	int r = poll(&pfd, 1, wait_ms(s, now));
	if (r < 0)
		return errno == EINTR ? 1 : fail_errno(s, errno, "poll");
	int rc = 1;
	if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
		rc = read_some(s, rx, sender ? sizeof(s->out) : RX_BUF, !sender);
	if (rc > 0 && (pfd.revents & POLLOUT))
		rc = sender ? write_some(s) : out_flush(s);
	return rc;
}

int nb_stream_self_flow(struct nb_flow *f)
{
	struct self *s = calloc(1, sizeof(*s));
	unsigned char *rx = malloc(RX_BUF);
	int rc = 1;
	if (!s || !rx || (f->sends && !(s->f = f, sender_init(s)))) {
		nb_error_set(&f->err, "out of memory");
		rc = -1;
	}
	if (rc > 0) {
		s->f = f;
		s->fd = f->fd;
		s->asks = f->side == NB_SIDE_CLIENT;
		s->period_ns = 1000000000ull / nb_stream_self_rate(f->p);
		s->next_ns = nb_now_ns() + s->period_ns;
		int one = 1; /* the idle direction's frames leave at once */
		if (!f->sends)
			setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	while (rc > 0 && !nb_flow_stopping(f))
		rc = round_of(s, rx, f->sends);
	if (s)
		free(s->buf);
	free(s);
	free(rx);
	return rc < 0 ? -1 : 0;
}
