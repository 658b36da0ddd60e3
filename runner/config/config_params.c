/* A parameter row's value (engines/param_defs.h) into a test: read by the row's kind with the
 * typed value helpers, checked against its range, said wrong in its own words, stored in its
 * field of the test's parameters. No parameter has a handler of its own. */
#include <string.h>
#include <strings.h>

#include "config_int.h"
#include "param_defs.h"

/* The name of the value in messages: the row's word for it, else its key. */
static const char *what(const struct nb_param_def *d)
{
	return d->what ? d->what : d->key;
}

/* A boolean, or (gso) a word of the row's own for false or true: a mode. */
static bool param_bool(struct nb_cfg_ctx *c, const struct nb_param_def *d,
		       const struct nb_ynode *v, struct nb_params *p)
{
	bool b;
	for (unsigned i = 0; d->names && v->kind == NB_Y_SCALAR && i < 2; i++)
		if (strcasecmp(v->str, d->names[i]) == 0)
			return nb_param_set(d, p, i), true;
	if (v->kind == NB_Y_SCALAR && d->names && !nb_cfg_bool(c, v, &b))
		return nb_yerror(c->err, v, "'%s' is not a %s mode (expected %s)", v->str, what(d),
				 d->expect);
	if (!nb_cfg_bool(c, v, &b))
		return false;
	nb_param_set(d, p, b);
	return true;
}

/* A name of [a-z0-9_] that fits the field with its NUL. */
static bool param_name(struct nb_cfg_ctx *c, const struct nb_param_def *d,
		       const struct nb_ynode *v, struct nb_params *p)
{
	if (!nb_cfg_scalar(c, v, d->expect))
		return false;
	size_t n = strlen(v->str);
	if (n >= d->size || strspn(v->str, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return nb_yerror(c->err, v, "bad %s '%s' (expected %s)", what(d), v->str, d->expect);
	memcpy(nb_param_field(d, p), v->str, n + 1);
	return true;
}

/* Bytes with K, M or G, in the row's range. */
static bool param_size(struct nb_cfg_ctx *c, const struct nb_param_def *d,
		       const struct nb_ynode *v, struct nb_params *p)
{
	uint64_t x;
	const char *why;
	if (!nb_cfg_scalar(c, v, d->expect))
		return false;
	if (!nb_units_size(v->str, &x, &why))
		return nb_cfg_size_error(c, v, what(d), why, d->expect);
	if (x > d->max)
		return nb_yerror(c->err, v, "%s %s is too large (expected %s)", what(d), v->str,
				 d->expect);
	if (x < d->min)
		return nb_yerror(c->err, v, "%s %s is too small (expected %s)", what(d), v->str,
				 d->expect);
	nb_param_set(d, p, (int64_t)x);
	return true;
}

/* A bit rate ("1G", "100Mbit/s"), in the row's range; a packet rate is not one. */
static bool param_rate(struct nb_cfg_ctx *c, const struct nb_param_def *d,
		       const struct nb_ynode *v, struct nb_params *p)
{
	uint64_t x;
	enum nb_rate_unit unit;
	const char *why;
	if (!nb_cfg_scalar(c, v, d->expect))
		return false;
	if (!nb_units_rate(v->str, &x, &unit, &why))
		return nb_yerror(c->err, v, "bad %s '%s': %s (expected %s)", what(d), v->str, why,
				 d->expect);
	if (unit == NB_RATE_PPS)
		return nb_yerror(c->err, v, "%s '%s' is a packet rate (expected %s)", what(d), v->str,
				 d->expect);
	if (x < d->min || x > d->max)
		return nb_yerror(c->err, v, "%s '%s' is out of range (expected %s)", what(d), v->str,
				 d->expect);
	nb_param_set(d, p, (int64_t)x);
	return true;
}

/* A duration, in the row's range of its unit (ns_per: 1000000 ms, 1000 us), stored in that
 * unit; a duration finer than the unit is not one the field holds. */
static bool param_duration(struct nb_cfg_ctx *c, const struct nb_param_def *d,
			   const struct nb_ynode *v, uint64_t ns_per, struct nb_params *p)
{
	uint64_t ns;
	if (!nb_cfg_duration(c, v, &ns))
		return false;
	if (ns < d->min * ns_per || ns > d->max * ns_per)
		return nb_yerror(c->err, v, "%s '%s' is out of range (expected %s)", what(d), v->str,
				 d->expect);
	if (ns % ns_per)
		return nb_yerror(c->err, v, "%s '%s' is finer than %s (expected %s)", what(d), v->str,
				 ns_per == 1000 ? "a microsecond" : "a millisecond", d->expect);
	nb_param_set(d, p, (int64_t)(ns / ns_per));
	return true;
}

/* cpus: 2, cpus: 0-3,8 or cpus: [0-3, 8]: CPU numbers and ranges, each CPU once. */
static bool param_cpus(struct nb_cfg_ctx *c, const struct nb_param_def *d,
		       const struct nb_ynode *v, struct nb_params *p)
{
	if (v->kind == NB_Y_MAP)
		return nb_yerror(c->err, v, "expected CPU numbers or ranges such as 0-3,8, got a mapping");
	if (v->kind == NB_Y_SEQ && v->nkids == 0)
		return nb_yerror(c->err, v, "empty list (expected CPU numbers or ranges such as 0-3,8)");
	int16_t cpus[NB_MAX_CPUS];
	uint32_t n = 0;
	for (size_t i = 0; i < nb_cfg_nitems(v); i++)
		if (!nb_cfg_cpulist(c, nb_cfg_item(v, i), cpus, &n))
			return false;
	unsigned char *f = nb_param_field(d, p);
	memcpy(f, &n, sizeof(n));
	memcpy(f + sizeof(n), cpus, n * sizeof(cpus[0]));
	return true;
}

/* The kinds whose helper says everything itself: an integer, a TOS byte, an enum. */
static bool param_plain(struct nb_cfg_ctx *c, const struct nb_param_def *d,
			const struct nb_ynode *v, struct nb_params *p)
{
	uint64_t x;
	int i;
	switch (d->kind) {
	case NB_PK_UINT:
		if (!nb_cfg_uint(c, v, d->min, d->max, &x))
			return false;
		nb_param_set(d, p, (int64_t)x);
		return true;
	case NB_PK_TOS:
		if (!nb_cfg_tos(c, v, &i))
			return false;
		nb_param_set(d, p, i);
		return true;
	default:
		if (!nb_cfg_enum(c, v, d->names, d->nnames, &i))
			return false;
		nb_param_set(d, p, i);
		return true;
	}
}

bool nb_cfg_apply_param(struct nb_cfg_ctx *c, const struct nb_param_def *d,
			const struct nb_ynode *v, struct nb_test *t)
{
	switch (d->kind) {
	case NB_PK_BOOL: return param_bool(c, d, v, &t->base);
	case NB_PK_NAME: return param_name(c, d, v, &t->base);
	case NB_PK_SIZE: return param_size(c, d, v, &t->base);
	case NB_PK_RATE: return param_rate(c, d, v, &t->base);
	case NB_PK_DURATION_MS: return param_duration(c, d, v, 1000000ull, &t->base);
	case NB_PK_DURATION_US: return param_duration(c, d, v, 1000ull, &t->base);
	case NB_PK_CPUS: return param_cpus(c, d, v, &t->base);
	default: return param_plain(c, d, v, &t->base);
	}
}
