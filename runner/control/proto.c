/* nbrun — control protocol encoder and strict decoder (see proto.h). */
#include "proto.h"
#include "proto_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "lossstats.h"
#include "param_defs.h"
#include "params.h"
#include "text.h"

void nb_buf_free(struct nb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- hello ---- */

static void enc_hello(struct nb_buf *b, const struct nb_msg_hello *h)
{
	put_u16(b, h->proto_version);
	put_str(b, h->version);
	put_u8(b, h->role);
	put_u8(b, h->auth);
	put(b, h->nonce, NB_NONCE_LEN);
}

static void dec_hello(struct rd *r, struct nb_msg_hello *h)
{
	h->proto_version = (uint16_t)get_uint(r, 2);
	get_str(r, h->version, sizeof(h->version) - 1, "version string too long or not text");
	h->role = (uint8_t)get_range(r, 1, 0, NB_ROLE_AGENT, "unknown role");
	h->auth = (uint8_t)get_range(r, 1, 0, NB_AUTH_MAC, "unknown auth mode");
	get_bytes(r, h->nonce, NB_NONCE_LEN);
}

/* ---- facts ---- */

static void enc_facts(struct nb_buf *b, const struct nb_msg_facts *f)
{
	put_u32(b, f->nkv);
	for (uint32_t i = 0; i < f->nkv; i++) {
		put_str(b, f->kv[i].k);
		put_str(b, f->kv[i].v);
	}
}

static void dec_facts(struct rd *r, struct nb_msg_facts *f)
{
	f->nkv = (uint32_t)get_range(r, 4, 0, NB_KV_MAX, "too many facts");
	if (r->bad || f->nkv == 0)
		return;
	f->kv = calloc(f->nkv, sizeof(*f->kv));
	if (!f->kv)
		return (void)fail(r, "out of memory");
	for (uint32_t i = 0; i < f->nkv && !r->bad; i++) {
		get_str(r, f->kv[i].k, NB_KV_KEY_MAX, "fact key too long or not text");
		get_str(r, f->kv[i].v, NB_KV_VAL_MAX, "fact value too long or not text");
	}
}

/* ---- snapshots ---- */

_Static_assert(NB_L_COUNT != NB_SNAP_LAG_TAG, "a loss block must not read as a lag section");

/* The sending end's schedule lag (protocol 9), last in a snapshot whose flows record it: a tag,
 * the totals, then only the buckets that hold a count (index ascending, each once). */
static void enc_lag(struct nb_buf *b, const struct nb_hist *h)
{
	/* The sender records while this encodes: one reading of every bucket, and the total and
	 * the extremes made to agree with it, so that what is sent adds up. */
	static _Thread_local uint64_t c[NB_HIST_BUCKETS];
	uint64_t overflow = atomic_load(&h->overflow), total = overflow;
	uint16_t used = 0;
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		c[i] = atomic_load(&h->counts[i]);
		total += c[i];
		used += c[i] != 0;
	}
	uint64_t min = atomic_load(&h->min_ns), max = atomic_load(&h->max_ns);
	if (total && min > max)
		min = max;
	put_u8(b, NB_SNAP_LAG_TAG);
	put_u64(b, total);
	put_u64(b, overflow);
	put_u64(b, atomic_load(&h->sum_ns));
	put_u64(b, min);
	put_u64(b, max);
	put_u16(b, used);
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		if (c[i]) {
			put_u16(b, i);
			put_u64(b, c[i]);
		}
}

/* What enc_lag wrote, checked: buckets in range and ascending, their counts and the overflow
 * adding up to the total without wrapping, min <= max when anything was recorded. */
static void dec_lag(struct rd *r, struct nb_snapshot *s)
{
	get_range(r, 1, NB_SNAP_LAG_TAG, NB_SNAP_LAG_TAG, "unknown snapshot section");
	if (r->bad)
		return;
	struct nb_hist *h = s->lag = nb_hist_create();
	if (!h) {
		fail(r, "out of memory");
		return;
	}
	uint64_t count = get_uint(r, 8), overflow = get_uint(r, 8);
	atomic_store(&h->sum_ns, get_uint(r, 8));
	uint64_t min = get_uint(r, 8), max = get_uint(r, 8);
	size_t used = (size_t)get_range(r, 2, 0, NB_HIST_BUCKETS, "lag bucket count");
	uint64_t total = overflow;
	for (size_t k = 0, last = 0; k < used && !r->bad; k++) {
		size_t i = (size_t)get_range(r, 2, k ? last + 1 : 0, NB_HIST_BUCKETS - 1, "lag bucket");
		uint64_t n = get_range(r, 8, 1, UINT64_MAX - total, "lag bucket counts overflow");
		atomic_store(&h->counts[i], n);
		total += n;
		last = i;
	}
	if (!r->bad && (total != count || (count && min > max)))
		fail(r, "lag histogram does not add up");
	atomic_store(&h->count, count);
	atomic_store(&h->overflow, overflow);
	atomic_store(&h->min_ns, min);
	atomic_store(&h->max_ns, max);
}

static void enc_snap(struct nb_buf *b, const struct nb_msg_snap *m)
{
	const struct nb_snapshot *s = m->snap;
	put_u32(b, (uint32_t)m->index);
	put_u64(b, m->t_ns);
	put_u64(b, s->engine_cpu_ns);
	put_u64(b, s->host_busy_ticks);
	put_u64(b, s->host_steal_ticks);
	put_u64(b, s->host_total_ticks);
	put_u8(b, s->has_if);
	for (int i = 0; i < 5; i++)
		put_u64(b, s->if_stats[i]);
	put_u16(b, s->nflows);
	put_u8(b, NB_C_COUNT);
	put_u8(b, NB_G_COUNT);
	for (uint32_t f = 0; f < s->nflows; f++) {
		put_u8(b, s->flow[f].sends);
		for (int c = 0; c < NB_C_COUNT; c++)
			put_u64(b, s->flow[f].c[c]);
		for (int g = 0; g < NB_G_COUNT; g++)
			put_u64(b, s->flow[f].g[g]);
		put_u64(b, s->flow[f].cpu_ns);
	}
	/* the loss budget's counters (protocol 7): only when read, at the end, so a snapshot
	 * without them keeps its bytes; a RESULT's are the end's reading before START (its last
	 * tick's are after the drain: the run's budget is the whole test's, metrics_loss.c) */
	if (s->has_loss) {
		put_u8(b, NB_L_COUNT);
		put_u32(b, s->loss_ok);
		for (int i = 0; i < NB_L_COUNT; i++)
			put_u64(b, s->loss[i]);
	}
	if (s->lag)
		enc_lag(b, s->lag);
}

static void dec_snap(struct rd *r, struct nb_msg_snap *m)
{
	m->index = (int32_t)(uint32_t)get_uint(r, 4);
	m->t_ns = get_uint(r, 8);
	if (r->bad)
		return;
	struct nb_snapshot *s = m->snap = nb_snapshot_create(false);
	if (!s)
		return (void)fail(r, "out of memory");
	s->t_ns = m->t_ns; /* the sender's clock: only differences between its snapshots matter */
	s->engine_cpu_ns = get_uint(r, 8);
	s->host_busy_ticks = get_uint(r, 8);
	s->host_steal_ticks = get_uint(r, 8);
	s->host_total_ticks = get_uint(r, 8);
	s->has_if = get_range(r, 1, 0, 1, "interface flag");
	for (int i = 0; i < 5; i++)
		s->if_stats[i] = get_uint(r, 8);
	s->nflows = (uint32_t)get_range(r, 2, 0, NB_MAX_FLOWS, "flow count");
	get_range(r, 1, NB_C_COUNT, NB_C_COUNT, "counter count differs from this version");
	get_range(r, 1, NB_G_COUNT, NB_G_COUNT, "gauge count differs from this version");
	for (uint32_t f = 0; f < s->nflows && !r->bad; f++) {
		s->flow[f].sends = get_range(r, 1, 0, 1, "sends flag");
		for (int c = 0; c < NB_C_COUNT; c++)
			s->flow[f].c[c] = get_uint(r, 8);
		for (int g = 0; g < NB_G_COUNT; g++)
			s->flow[f].g[g] = get_uint(r, 8);
		s->flow[f].cpu_ns = get_uint(r, 8);
	}
	if (r->bad || r->off == r->len)
		return;
	if (r->p[r->off] != NB_SNAP_LAG_TAG) {
		get_range(r, 1, NB_L_COUNT, NB_L_COUNT, "loss counter count differs from this version");
		s->loss_ok = (uint32_t)get_range(r, 4, 0, (1u << NB_L_COUNT) - 1, "loss counter mask");
		for (int i = 0; i < NB_L_COUNT; i++)
			s->loss[i] = get_uint(r, 8);
		s->has_loss = !r->bad;
	}
	if (!r->bad && r->off < r->len)
		dec_lag(r, s);
}

/* ---- check ---- */

static void enc_check(struct nb_buf *b, const struct nb_msg_check *c)
{
	put_u8(b, c->ncc);
	for (uint8_t i = 0; i < c->ncc; i++)
		put_str(b, c->cc[i]);
	put_u16(b, c->ncpus);
	for (uint16_t i = 0; i < c->ncpus; i++)
		put_u16(b, c->cpus[i]);
	put_u8(b, c->protocols);
	put_u32(b, c->max_flows);
	put_u8(b, c->xdp);
	put_u16(b, c->xdp_senders);
}

static void enc_check_result(struct nb_buf *b, const char *text, const struct nb_limits *l)
{
	put_str(b, text);
	put_u64(b, l->max_rate);
	put_u32(b, l->max_flows);
	put_u32(b, l->max_duration_s);
	put_u32(b, l->max_message);
}

static void dec_check_result(struct rd *r, char *text, struct nb_limits *l)
{
	get_text(r, text, NB_CHECK_TEXT_MAX, true, "check result text");
	l->max_rate = get_range(r, 8, 0, NB_RATE_MAX, "rate limit");
	l->max_flows = (uint32_t)get_uint(r, 4);
	l->max_duration_s = (uint32_t)get_uint(r, 4);
	l->max_message = (uint32_t)get_uint(r, 4);
}

/* ---- probe ---- */

static void dec_queue(struct rd *r, struct nb_msg_queue *q)
{
	q->position = (uint32_t)get_range(r, 4, 0, NB_QUEUE_PLACES_MAX, "queue position");
	q->plan_ms = get_range(r, 8, 0, NB_QUEUE_MS_MAX, "queue plan");
	q->wait_ms = get_uint(r, 8);
	if (!r->bad && q->wait_ms > NB_QUEUE_MS_MAX && q->wait_ms != NB_QUEUE_UNKNOWN)
		fail(r, "queue wait");
}

static void dec_probe(struct rd *r, struct nb_msg_probe *q)
{
	q->proto = (uint8_t)get_range(r, 1, NB_PROTO_TCP, NB_PROTO_UDP, "probe protocol");
	q->any_source = (uint8_t)get_range(r, 1, 0, 1, "any-source flag");
}

static void dec_check(struct rd *r, struct nb_msg_check *c)
{
	c->ncc = (uint8_t)get_range(r, 1, 0, NB_CHECK_MAX_CC, "too many congestion controls");
	for (uint8_t i = 0; i < c->ncc && !r->bad; i++)
		get_str(r, c->cc[i], sizeof(c->cc[i]) - 1, "congestion control name");
	c->ncpus = (uint16_t)get_range(r, 2, 0, NB_CHECK_MAX_CPUS, "too many CPUs");
	for (uint16_t i = 0; i < c->ncpus && !r->bad; i++)
		c->cpus[i] = (uint16_t)get_range(r, 2, 0, 4095, "cpu number");
	c->protocols = (uint8_t)get_range(r, 1, 0, 3, "protocol mask");
	c->max_flows = (uint32_t)get_uint(r, 4);
	c->xdp = (uint8_t)get_range(r, 1, 0, NB_CHECK_XDP_RX | NB_CHECK_XDP_TX, "xdp roles");
	c->xdp_senders = (uint16_t)get_range(r, 2, 0, NB_MAX_FLOWS, "xdp senders");
}

/* ---- frames ---- */

static void enc_body(struct nb_buf *b, const struct nb_msg *m)
{
	switch (m->type) {
	case NB_MSG_HELLO: enc_hello(b, &m->u.hello); break;
	case NB_MSG_AUTH: put(b, m->u.auth.mac, NB_MAC_LEN); break;
	case NB_MSG_FACTS: enc_facts(b, &m->u.facts); break;
	case NB_MSG_SETUP: nb_proto_enc_setup(b, &m->u.setup); break;
	case NB_MSG_READY: put_u16(b, m->u.ready.port); break;
	case NB_MSG_INTERVAL: enc_snap(b, &m->u.interval); break;
	case NB_MSG_RESULT:
		put_u8(b, m->u.result.ok);
		put_str(b, m->u.result.text);
		enc_snap(b, &m->u.result.s);
		break;
	case NB_MSG_ERROR:
		put_u16(b, m->u.error.code);
		put_str(b, m->u.error.text);
		break;
	case NB_MSG_CHECK: enc_check(b, &m->u.check); break;
	case NB_MSG_CHECK_RESULT:
		enc_check_result(b, m->u.check_result.text, &m->u.check_result.limits);
		break;
	case NB_MSG_PROBE:
		put_u8(b, m->u.probe.proto);
		put_u8(b, m->u.probe.any_source);
		break;
	case NB_MSG_QUEUE:
		put_u32(b, m->u.queue.position);
		put_u64(b, m->u.queue.plan_ms);
		put_u64(b, m->u.queue.wait_ms);
		break;
	case NB_MSG_COMPANION:
		put(b, m->u.companion.ticket, NB_COMPANION_TICKET_LEN);
		break;
	case NB_MSG_TIME:
		put_u64(b, m->u.time.t1);
		put_u64(b, m->u.time.t2);
		put_u64(b, m->u.time.t3);
		break;
	case NB_MSG_START:
	case NB_MSG_STOP:
	case NB_MSG_BYE:
		break;
	}
}

bool nb_msg_encode(const struct nb_msg *m, struct nb_buf *out, struct nb_error *err)
{
	size_t start = out->len;
	put_u32(out, 0); /* length, patched below */
	put_u16(out, m->type);
	enc_body(out, m);
	if (out->oom)
		return nb_error_set(err, "out of memory encoding %s", nb_msg_name(m->type));
	size_t body = out->len - start - 4;
	if (body > NB_FRAME_MAX)
		return nb_error_set(err, "%s frame too large (%zu bytes)", nb_msg_name(m->type), body);
	for (int i = 0; i < 4; i++)
		out->p[start + (size_t)i] = (uint8_t)(body >> (24 - 8 * i));
	return true;
}

static void dec_body(struct rd *r, struct nb_msg *m)
{
	switch (m->type) {
	case NB_MSG_HELLO: dec_hello(r, &m->u.hello); break;
	case NB_MSG_AUTH: get_bytes(r, m->u.auth.mac, NB_MAC_LEN); break;
	case NB_MSG_FACTS: dec_facts(r, &m->u.facts); break;
	case NB_MSG_SETUP: nb_proto_dec_setup(r, &m->u.setup); break;
	case NB_MSG_READY: m->u.ready.port = (uint16_t)get_uint(r, 2); break; /* 0: a CONNECT end */
	case NB_MSG_INTERVAL: dec_snap(r, &m->u.interval); break;
	case NB_MSG_RESULT:
		m->u.result.ok = (uint8_t)get_range(r, 1, 0, 1, "result flag");
		get_str(r, m->u.result.text, NB_TEXT_MAX, "result text");
		dec_snap(r, &m->u.result.s);
		break;
	case NB_MSG_ERROR:
		m->u.error.code = (uint16_t)get_range(r, 2, 1, NB_ERR_CODE_MAX, "error code");
		get_str(r, m->u.error.text, NB_TEXT_MAX, "error text");
		break;
	case NB_MSG_CHECK: dec_check(r, &m->u.check); break;
	case NB_MSG_CHECK_RESULT:
		dec_check_result(r, m->u.check_result.text, &m->u.check_result.limits);
		break;
	case NB_MSG_PROBE: dec_probe(r, &m->u.probe); break;
	case NB_MSG_QUEUE: dec_queue(r, &m->u.queue); break;
	case NB_MSG_COMPANION: get_bytes(r, m->u.companion.ticket, NB_COMPANION_TICKET_LEN); break;
	case NB_MSG_TIME:
		m->u.time.t1 = get_uint(r, 8);
		m->u.time.t2 = get_uint(r, 8);
		m->u.time.t3 = get_uint(r, 8);
		break;
	case NB_MSG_START:
	case NB_MSG_STOP:
	case NB_MSG_BYE:
		break;
	}
}

bool nb_msg_decode(const uint8_t *body, size_t len, struct nb_msg *m, struct nb_error *err)
{
	memset(m, 0, sizeof(*m));
	struct rd r = { .p = body, .len = len, .err = err };
	m->type = (enum nb_msg_type)get_range(&r, 2, 1, NB_MSG_TYPE_MAX, "unknown message type");
	if (!r.bad)
		dec_body(&r, m);
	if (!r.bad && r.off != r.len)
		fail(&r, "trailing bytes");
	if (r.bad) {
		nb_msg_free(m);
		memset(m, 0, sizeof(*m));
		return false;
	}
	return true;
}

void nb_msg_free(struct nb_msg *m)
{
	switch (m->type) {
	case NB_MSG_FACTS:
		free(m->u.facts.kv);
		m->u.facts.kv = NULL;
		break;
	case NB_MSG_INTERVAL:
		nb_snapshot_destroy(m->u.interval.snap);
		m->u.interval.snap = NULL;
		break;
	case NB_MSG_RESULT:
		nb_snapshot_destroy(m->u.result.s.snap);
		m->u.result.s.snap = NULL;
		break;
	default:
		break;
	}
}

bool nb_frame_len(const uint8_t hdr[4], uint32_t *len, struct nb_error *err)
{
	uint32_t n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n < 2 || n > NB_FRAME_MAX)
		return nb_error_set(err, "bad frame: length %u out of range 2..%u", n, NB_FRAME_MAX);
	*len = n;
	return true;
}

const char *nb_msg_name(int type)
{
	static const char *const names[] = { "?",     "HELLO",    "AUTH", "SETUP",  "READY", "START",
					     "INTERVAL", "STOP", "RESULT", "ERROR", "BYE", "CHECK",
					     "CHECK_RESULT", "FACTS", "TIME", "PROBE", "QUEUE",
					     "COMPANION" };
	return type >= 1 && type <= NB_MSG_TYPE_MAX ? names[type] : "unknown";
}
