/* Typed values with locations: each helper checks one node and, on a bad
 * value, says where, what was written and what was expected. Outputs are
 * left alone on failure. */
#include <stdio.h>
#include <stdlib.h>
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

bool nb_cfg_size_error(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *key,
		       const char *why, const char *expected)
{
	const char *unit = v->str + strspn(v->str, "+0123456789.");
	if (strcmp(why, "unknown unit") != 0)
		return nb_yerror(c->err, v, "bad %s '%s': %s (expected %s)", key, v->str, why, expected);
	if (strpbrk(unit, "b") || strcasestr(unit, "bit") || strcasestr(unit, "ps"))
		return nb_yerror(c->err, v, "bad %s '%s': '%s' reads as bits, but a %s is bytes "
				 "(expected %s; K, M and G are KiB, MiB and GiB)", key, v->str, unit, key,
				 expected);
	return nb_yerror(c->err, v, "bad %s '%s': unknown unit '%s' (expected %s, with K, M or G)",
			 key, v->str, unit, expected);
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
				: "a packet rate such as 500kpps or 1000pps";
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
	if (!bits && unit == NB_RATE_BARE && x != 0)
		return nb_yerror(c->err, v, "rate '%s' has no unit: engine %s paces in %s, where a "
				 "bare number is ambiguous (expected %spps)", v->str, e->name,
				 e->traits.rate_unit, v->str);
	*out = x;
	*pps = unit == NB_RATE_PPS;
	return true;
}

/* A DSCP name's code point: ef, le, csN (8N), afXY (8X + 2Y); -1 when s names none. */
static int dscp(const char *s)
{
	if (strcasecmp(s, "ef") == 0)
		return 46;
	if (strcasecmp(s, "le") == 0)
		return 1;
	if (strncasecmp(s, "cs", 2) == 0 && s[2] >= '0' && s[2] <= '7' && !s[3])
		return 8 * (s[2] - '0');
	if (strncasecmp(s, "af", 2) == 0 && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3' &&
	    !s[4])
		return 8 * (s[2] - '0') + 2 * (s[3] - '0');
	return -1;
}

bool nb_cfg_tos(struct nb_cfg_ctx *c, const struct nb_ynode *v, int *out)
{
	static const char what[] = "a TOS byte 0..255 or 0x00..0xff, or a DSCP name such as ef, "
				   "af41 or cs1";
	if (!nb_cfg_scalar(c, v, what))
		return false;
	char *end;
	int d = dscp(v->str);
	bool hex = strncasecmp(v->str, "0x", 2) == 0;
	unsigned long x = d >= 0 ? (unsigned long)d << 2 : strtoul(v->str, &end, hex ? 16 : 10);
	if (d < 0 && (!(v->str[0] >= '0' && v->str[0] <= '9') || *end || end == v->str + 2 * hex))
		return nb_yerror(c->err, v, "bad tos '%s': neither a number nor a DSCP name (expected "
				 "%s)", v->str, what);
	if (x > 255)
		return nb_yerror(c->err, v, "tos %s is out of range (expected %s)", v->str, what);
	*out = (int)x;
	return true;
}

/* "a" or "a-b" at s: the range, its end in *rest; false when malformed. */
static bool cpu_range(const char *s, unsigned long *a, unsigned long *b, const char **rest)
{
	char *end;
	if (!(*s >= '0' && *s <= '9'))
		return false;
	*a = *b = strtoul(s, &end, 10);
	if (*end == '-') {
		s = end + 1;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		*b = strtoul(s, &end, 10);
	}
	*rest = end;
	return *end == '\0' || *end == ',';
}

static bool add_cpu(struct nb_cfg_ctx *c, const struct nb_ynode *v, unsigned long cpu,
		    int16_t *cpus, uint32_t *n)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((unsigned long)cpus[i] == cpu)
			return nb_yerror(c->err, v, "CPU %lu is listed twice in '%s' (expected each "
					 "CPU once)", cpu, v->str);
	if (*n >= NB_MAX_CPUS)
		return nb_yerror(c->err, v, "more than %d CPUs (expected at most %d)", NB_MAX_CPUS,
				 NB_MAX_CPUS);
	cpus[(*n)++] = (int16_t)cpu;
	return true;
}

bool nb_cfg_cpulist(struct nb_cfg_ctx *c, const struct nb_ynode *v, int16_t *cpus, uint32_t *n)
{
	static const char what[] = "CPU numbers or ranges such as 0-3,8";
	if (v->kind != NB_Y_SCALAR || !nb_cfg_scalar(c, v, what))
		return v->kind == NB_Y_SCALAR ? false
			: nb_yerror(c->err, v, "expected %s, got %s", what, nb_ynode_kind_name(v));
	for (const char *s = v->str; *s; s += *s == ',') {
		unsigned long a, b;
		if (!cpu_range(s, &a, &b, &s))
			return nb_yerror(c->err, v, "bad CPU list '%s' (expected %s)", v->str, what);
		if (b < a || b > 4095)
			return nb_yerror(c->err, v, "CPU range in '%s' is %s (expected CPUs 0 to 4095, "
					 "low-high)", v->str, b < a ? "backwards" : "out of range");
		for (unsigned long cpu = a; cpu <= b; cpu++)
			if (!add_cpu(c, v, cpu, cpus, n))
				return false;
	}
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
