/* nbrun — the control protocol's buffer writer and strict reader, shared by its codecs (proto.c,
 * proto_setup.c); internal to runner/control. */
#ifndef NB_PROTO_INT_H
#define NB_PROTO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "text.h"

/* ---- writing ---- */

static inline void put(struct nb_buf *b, const void *src, size_t n)
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

static inline void put_uint(struct nb_buf *b, uint64_t v, int bytes)
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

static inline void put_str(struct nb_buf *b, const char *s)
{
	size_t n = strlen(s);
	put_u16(b, n);
	put(b, s, n);
}

/* ---- reading: every getter fails the whole decode once anything is wrong ---- */

struct rd {
	const uint8_t *p;
	size_t len, off;
	struct nb_error *err;
	bool bad;
};

static inline bool fail(struct rd *r, const char *what)
{
	if (!r->bad)
		nb_error_set(r->err, "bad frame: %s (at byte %zu)", what, r->off);
	r->bad = true;
	return false;
}

static inline uint64_t get_uint(struct rd *r, int bytes)
{
	if (r->bad || r->len - r->off < (size_t)bytes)
		return fail(r, "truncated"), 0;
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->off++];
	return v;
}

/* An unsigned integer in [lo, hi]. */
static inline uint64_t get_range(struct rd *r, int bytes, uint64_t lo, uint64_t hi, const char *what)
{
	uint64_t v = get_uint(r, bytes);
	if (!r->bad && (v < lo || v > hi))
		fail(r, what);
	return v;
}

/* A string of at most max bytes: clean text, or (lines) clean lines each ending in '\n'. */
static inline void get_text(struct rd *r, char *dst, size_t max, bool lines, const char *what)
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

static inline void get_str(struct rd *r, char *dst, size_t max, const char *what)
{
	get_text(r, dst, max, false, what);
}

static inline void get_bytes(struct rd *r, uint8_t *dst, size_t n)
{
	if (r->bad || r->len - r->off < n)
		return (void)fail(r, "truncated");
	memcpy(dst, r->p + r->off, n);
	r->off += n;
}

/* SETUP's body (proto_setup.c): the run, the case's parameters, the timing and the end. */
void nb_proto_enc_setup(struct nb_buf *b, const struct nb_msg_setup *s);
void nb_proto_dec_setup(struct rd *r, struct nb_msg_setup *s);

#endif
