/* Typed values with locations: each helper checks one node and, on a bad
 * value, says where, what was written and what was expected. Outputs are
 * left alone on failure. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_int.h"

bool nb_cfg_scalar(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *what)
{
	if (v->kind != NB_Y_SCALAR)
		return nb_yerror(c->err, v, "expected %s, got %s", what, nb_ynode_kind_name(v));
	if (nb_ynode_is_null(v))
		return nb_yerror(c->err, v, "missing value (expected %s)", what);
	return true;
}

bool nb_cfg_uint(struct nb_cfg_ctx *c, const struct nb_ynode *v, uint64_t lo, uint64_t hi,
		 uint64_t *out)
{
	char what[64];
	snprintf(what, sizeof(what), "an integer from %llu to %llu", (unsigned long long)lo,
		 (unsigned long long)hi);
	if (!nb_cfg_scalar(c, v, what))
		return false;
	uint64_t x;
	const char *why;
	if (!nb_units_uint(v->str, &x, &why))
		return nb_yerror(c->err, v, "'%s' is %s (expected %s)", v->str,
				 strcmp(why, "negative") == 0 ? "negative" : "not an integer", what);
	if (x < lo || x > hi)
		return nb_yerror(c->err, v, "%s is out of range (expected %s)", v->str, what);
	*out = x;
	return true;
}

bool nb_cfg_duration(struct nb_cfg_ctx *c, const struct nb_ynode *v, uint64_t *ns)
{
	static const char what[] = "a duration such as 500ms, 10s or 2m";
	if (!nb_cfg_scalar(c, v, what))
		return false;
	uint64_t x;
	const char *why;
	if (!nb_units_duration(v->str, &x, &why)) {
		if (strcmp(why, "negative") == 0)
			return nb_yerror(c->err, v, "negative duration '%s' (expected %s)", v->str,
					 what);
		return nb_yerror(c->err, v, "bad duration '%s': %s (expected %s)", v->str, why,
				 what);
	}
	if (x > 24 * 3600ull * 1000000000ull)
		return nb_yerror(c->err, v, "duration '%s' is too long (expected at most 24h)", v->str);
	*ns = x;
	return true;
}

bool nb_cfg_percent(struct nb_cfg_ctx *c, const struct nb_ynode *v, double lo, double hi,
		    double *out)
{
	char what[64];
	snprintf(what, sizeof(what), "a percentage from %g%% to %g%% such as 0.1%%", lo * 100,
		 hi * 100);
	if (!nb_cfg_scalar(c, v, what))
		return false;
	double x;
	const char *why;
	if (!nb_units_percent(v->str, &x, &why))
		return nb_yerror(c->err, v, "bad percentage '%s': %s (expected %s)", v->str, why, what);
	if (x < lo || x > hi)
		return nb_yerror(c->err, v, "%s is out of range (expected %s)", v->str, what);
	*out = x;
	return true;
}

bool nb_cfg_bool(struct nb_cfg_ctx *c, const struct nb_ynode *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
	if (!nb_cfg_scalar(c, v, "true or false"))
		return false;
	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(v->str, yes[i]) == 0 || strcasecmp(v->str, no[i]) == 0) {
			*out = strcasecmp(v->str, yes[i]) == 0;
			return true;
		}
	}
	return nb_yerror(c->err, v, "'%s' is not a boolean (expected true or false)", v->str);
}

void nb_cfg_join_or(const char *const *names, size_t n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

bool nb_cfg_enum(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *const *names,
		 size_t n, int *out)
{
	char what[128];
	nb_cfg_join_or(names, n, what, sizeof(what));
	if (!nb_cfg_scalar(c, v, what))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v->str, names[i]) == 0) {
			*out = (int)i;
			return true;
		}
	}
	const char *near = nb_cfg_suggest(v->str, names, n);
	if (near)
		return nb_yerror(c->err, v, "unknown value '%s' (expected %s; did you mean '%s'?)",
				 v->str, what, near);
	return nb_yerror(c->err, v, "unknown value '%s' (expected %s)", v->str, what);
}

bool nb_cfg_rate(struct nb_cfg_ctx *c, const struct nb_ynode *v, const struct nb_engine *e,
		 uint64_t *out, bool *pps)
{
	bool bits = e->traits.rate == NB_RATE_KIND_BITS;
	const char *what = bits ? "a rate in bit/s such as 100M, 2.5G or 1Gbps, or a packet rate "
				  "such as 500kpps"
				: "a packet rate such as 500kpps, 500k or 1000";
	if (!nb_cfg_scalar(c, v, what))
		return false;
	uint64_t x;
	enum nb_rate_unit unit;
	const char *why;
	if (!nb_units_rate(v->str, &x, &unit, &why))
		return nb_yerror(c->err, v, "bad rate '%s': %s (expected %s)", v->str, why, what);
	if (!bits && unit == NB_RATE_BITS)
		return nb_yerror(c->err, v,
				 "'%s' is a bit rate but engine %s paces packets (expected %s)",
				 v->str, e->name, what);
	*out = x;
	*pps = unit == NB_RATE_PPS;
	return true;
}

const struct nb_ynode *nb_cfg_item(const struct nb_ynode *v, size_t i)
{
	return v->kind == NB_Y_SEQ ? v->kids[i] : v;
}

size_t nb_cfg_nitems(const struct nb_ynode *v)
{
	return v->kind == NB_Y_SEQ ? v->nkids : 1;
}
