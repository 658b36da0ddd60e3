/* nbrun — control protocol encoder and strict decoder (see proto.h). */
#include "proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "param_defs.h"
#include "params.h"
#include "text.h"

/* ---- writing ---- */

static void put(struct nb_buf *b, const void *src, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_uint(struct nb_buf *b, uint64_t v, int bytes)
{
	uint8_t tmp[8];
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		tmp[i] = (uint8_t)v;
	put(b, tmp, (size_t)bytes);
}

#define put_u8(b, v) put_uint(b, (uint64_t)(v), 1)
#define put_u16(b, v) put_uint(b, (uint64_t)(v), 2)
#define put_u32(b, v) put_uint(b, (uint64_t)(v), 4)
#define put_u64(b, v) put_uint(b, (uint64_t)(v), 8)

static void put_str(struct nb_buf *b, const char *s)
{
	size_t n = strlen(s);
	put_u16(b, n);
	put(b, s, n);
}

void nb_buf_free(struct nb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- reading: every getter fails the whole decode once anything is wrong ---- */

struct rd {
	const uint8_t *p;
	size_t len, off;
	struct nb_error *err;
	bool bad;
};

static bool fail(struct rd *r, const char *what)
{
	if (!r->bad)
		nb_error_set(r->err, "bad frame: %s (at byte %zu)", what, r->off);
	r->bad = true;
	return false;
}

static uint64_t get_uint(struct rd *r, int bytes)
{
	if (r->bad || r->len - r->off < (size_t)bytes)
		return fail(r, "truncated"), 0;
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->off++];
	return v;
}

/* An unsigned integer in [lo, hi]. */
static uint64_t get_range(struct rd *r, int bytes, uint64_t lo, uint64_t hi, const char *what)
{
	uint64_t v = get_uint(r, bytes);
	if (!r->bad && (v < lo || v > hi))
		fail(r, what);
	return v;
}

/* A string of at most max bytes: clean text, or (lines) clean lines each ending in '\n'. */
static void get_text(struct rd *r, char *dst, size_t max, bool lines, const char *what)
{
	size_t n = (size_t)get_uint(r, 2);
	dst[0] = '\0';
	if (r->bad)
		return;
	if (n > max || r->len - r->off < n)
		return (void)fail(r, what);
	const char *s = (const char *)r->p + r->off;
	if (!(lines ? nb_text_clean_lines(s, n) : nb_text_clean(s, n)))
		return (void)fail(r, what);
	memcpy(dst, r->p + r->off, n);
	dst[n] = '\0';
	r->off += n;
}

static void get_str(struct rd *r, char *dst, size_t max, const char *what)
{
	get_text(r, dst, max, false, what);
}

static void get_bytes(struct rd *r, uint8_t *dst, size_t n)
{
	if (r->bad || r->len - r->off < n)
		return (void)fail(r, "truncated");
	memcpy(dst, r->p + r->off, n);
	r->off += n;
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

/* ---- setup: the resolved case parameters ---- */

/* The engine, the seven axes in a fixed order, then every parameter row (engines/param_defs.h)
 * that travels, in table order: the common rows, then the engine's own. */

/* A row's value as its kind travels: an integer of d->wire bytes, a TOS + 1, a name, CPUs. */
static void enc_param(struct nb_buf *b, const struct nb_param_def *d, const struct nb_params *p)
{
	const unsigned char *f = nb_param_cfield(d, p);
	uint32_t n;
	switch (d->kind) {
	case NB_PK_NAME:
		n = (uint32_t)strnlen((const char *)f, d->size - 1);
		put_u16(b, n);
		put(b, f, n);
		break;
	case NB_PK_CPUS:
		memcpy(&n, f, 4);
		put_u32(b, n);
		for (uint32_t i = 0; i < n && i < (d->size - 4) / 2; i++) {
			int16_t cpu;
			memcpy(&cpu, f + 4 + 2 * i, 2);
			put_u16(b, (uint16_t)cpu);
		}
		break;
	case NB_PK_TOS: put_uint(b, (uint64_t)(nb_param_get(d, p) + 1), (int)d->wire); break;
	default: put_uint(b, (uint64_t)nb_param_get(d, p), (int)d->wire); break;
	}
}

static void enc_params(struct nb_buf *b, const struct nb_params *p)
{
	put_str(b, p->engine);
	put_u8(b, p->proto);
	put_u8(b, p->direction);
	put_u32(b, p->size);
	put_u32(b, p->request);
	put_u32(b, p->response);
	put_u32(b, p->streams);
	put_u64(b, p->rate);
	const struct nb_engine *e = nb_engine_find(p->engine);
	const struct nb_param_def *d;
	bool own;
	for (size_t i = 0; (d = nb_param_at(e, i, &own)); i++)
		if (!(d->flags & NB_PF_LOCAL))
			enc_param(b, d, p);
}

/* A name row: a string of the field's size at most, of [a-z0-9_] only. */
static void dec_name(struct rd *r, const struct nb_param_def *d, struct nb_params *p,
		     const char *what)
{
	char msg[64];
	snprintf(msg, sizeof(msg), "%s name", what);
	char *f = nb_param_field(d, p);
	get_str(r, f, d->size - 1, msg);
	if (strspn(f, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(f))
		fail(r, msg);
}

/* A CPU row: a count the field holds, then each CPU in 0 .. d->max. */
static void dec_cpus(struct rd *r, const struct nb_param_def *d, struct nb_params *p)
{
	unsigned char *f = nb_param_field(d, p);
	uint32_t n = (uint32_t)get_range(r, 4, 0, (d->size - 4) / 2, "cpu count");
	memcpy(f, &n, 4);
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		int16_t cpu = (int16_t)get_range(r, 2, 0, d->max, "cpu number");
		memcpy(f + 4 + 2 * i, &cpu, 2);
	}
}

static void dec_param(struct rd *r, const struct nb_param_def *d, struct nb_params *p)
{
	const char *what = d->what ? d->what : d->key;
	uint64_t v;
	switch (d->kind) {
	case NB_PK_NAME: dec_name(r, d, p, what); break;
	case NB_PK_CPUS: dec_cpus(r, d, p); break;
	case NB_PK_TOS: /* on the wire tos + 1 (0 = leave it): subtract only a value that passed */
		v = get_range(r, (int)d->wire, 0, nb_param_wire_max(d), what);
		nb_param_set(d, p, r->bad ? -1 : (int64_t)v - 1);
		break;
	default:
		nb_param_set(d, p, (int64_t)get_range(r, (int)d->wire, 0, nb_param_wire_max(d), what));
		break;
	}
}

static void dec_params(struct rd *r, struct nb_params *p)
{
	get_str(r, p->engine, sizeof(p->engine) - 1, "engine name");
	p->proto = (enum nb_proto)get_range(r, 1, 0, NB_PROTO_UDP, "protocol");
	p->direction = (enum nb_dir)get_range(r, 1, 0, NB_DIR_BIDIR, "direction");
	p->size = (uint32_t)get_range(r, 4, 0, 1u << 30, "size");
	p->request = (uint32_t)get_range(r, 4, 0, 1u << 30, "request size");
	p->response = (uint32_t)get_range(r, 4, 0, 1u << 30, "response size");
	p->streams = (uint32_t)get_range(r, 4, 1, NB_MAX_FLOWS, "streams");
	p->rate = get_range(r, 8, 0, NB_RATE_MAX, "rate");
	const struct nb_engine *e = nb_engine_find(p->engine);
	const struct nb_param_def *d;
	bool own;
	for (size_t i = 0; !r->bad && (d = nb_param_at(e, i, &own)); i++)
		if (!(d->flags & NB_PF_LOCAL))
			dec_param(r, d, p);
	if (!r->bad && nb_params_nflows(p) > NB_MAX_FLOWS)
		fail(r, "too many flows");
}

static void enc_setup(struct nb_buf *b, const struct nb_msg_setup *s)
{
	put_u32(b, s->run_id);
	put_str(b, s->case_id);
	enc_params(b, &s->params);
	put_u64(b, s->warmup_ns);
	put_u64(b, s->omit_ns);
	put_u64(b, s->duration_ns);
	put_u64(b, s->interval_ns);
	put_u64(b, s->drain_ns);
	put_u8(b, s->end);
	put_u8(b, s->any_source);
	put_u8(b, s->target.family);
	put(b, s->target.addr, sizeof(s->target.addr));
	put_u16(b, s->target.port);
	put(b, s->grant, sizeof(s->grant));
}

/* A CONNECT end has a target (an address and a port) and takes no data from others; a LISTEN
 * end has no target and no grant (all zero). */
static void dec_end(struct rd *r, struct nb_msg_setup *s)
{
	s->end = (uint8_t)get_range(r, 1, NB_END_LISTEN, NB_END_CONNECT, "end");
	s->any_source = (uint8_t)get_range(r, 1, 0, 1, "any-source flag");
	s->target.family = (uint8_t)get_uint(r, 1);
	get_bytes(r, s->target.addr, sizeof(s->target.addr));
	s->target.port = (uint16_t)get_uint(r, 2);
	get_bytes(r, s->grant, sizeof(s->grant));
	if (r->bad)
		return;
	bool connect = s->end == NB_END_CONNECT;
	if (connect && ((s->target.family != 4 && s->target.family != 6) || !s->target.port ||
			s->any_source))
		fail(r, "a connecting end needs a target address and port, and takes no data");
	static const uint8_t zero[NB_GRANT_LEN];
	if (!connect && (s->target.family || s->target.port ||
			 memcmp(s->target.addr, zero, sizeof(s->target.addr)) != 0 ||
			 memcmp(s->grant, zero, sizeof(s->grant)) != 0))
		fail(r, "a listening end has no target and no grant");
}

static void dec_setup(struct rd *r, struct nb_msg_setup *s)
{
	const uint64_t day = 86400ull * 1000000000ull;
	s->run_id = (uint32_t)get_uint(r, 4);
	get_str(r, s->case_id, sizeof(s->case_id) - 1, "case id");
	dec_params(r, &s->params);
	s->warmup_ns = get_range(r, 8, 0, day, "warm-up");
	s->omit_ns = get_range(r, 8, 0, day, "omit");
	s->duration_ns = get_range(r, 8, 1, day, "duration");
	s->interval_ns = get_range(r, 8, 1000000, day, "interval");
	s->drain_ns = get_range(r, 8, 0, 60ull * 1000000000ull, "drain");
	dec_end(r, s);
}

/* ---- snapshots ---- */

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
}

/* ---- frames ---- */

static void enc_body(struct nb_buf *b, const struct nb_msg *m)
{
	switch (m->type) {
	case NB_MSG_HELLO: enc_hello(b, &m->u.hello); break;
	case NB_MSG_AUTH: put(b, m->u.auth.mac, NB_MAC_LEN); break;
	case NB_MSG_FACTS: enc_facts(b, &m->u.facts); break;
	case NB_MSG_SETUP: enc_setup(b, &m->u.setup); break;
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
	case NB_MSG_SETUP: dec_setup(r, &m->u.setup); break;
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
