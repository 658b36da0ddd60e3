/* nbrun — the control protocol's SETUP: the run, every parameter row that travels (engines/
 * param_defs.h), the timing and the end, encoded and strictly decoded (see proto.h). */
#include "proto_int.h"

#include <stdio.h>

#include "param_defs.h"
#include "params.h"

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

void nb_proto_enc_setup(struct nb_buf *b, const struct nb_msg_setup *s)
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

void nb_proto_dec_setup(struct rd *r, struct nb_msg_setup *s)
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
