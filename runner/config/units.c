/* Units of the config language. Numbers are parsed exactly as a decimal
 * mantissa and a count of fraction digits (no floating point), so "2.5G" is
 * exactly 2500000000 and "0.3K" is rejected as a fraction of a byte. */
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** A decimal number as written: value = mant / 10^frac. */
struct decimal {
	uint64_t mant;
	unsigned frac;
};

struct suffix {
	const char *text;
	uint64_t mult;
};

static const uint64_t pow10_tab[] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull,
};

/* Reads "123", "1.5", ".5" from s; returns the rest (the unit) or NULL. */
static const char *read_decimal(const char *s, struct decimal *d, const char **why)
{
	unsigned digits = 0;
	bool dot = false;
	d->mant = 0;
	d->frac = 0;
	if (*s == '-') {
		*why = "negative";
		return NULL;
	}
	if (*s == '+')
		s++;
	for (; (*s >= '0' && *s <= '9') || (*s == '.' && !dot); s++) {
		if (*s == '.') {
			dot = true;
			continue;
		}
		if (d->mant == 0 && *s == '0' && !dot)
			continue;
		if (++digits > 18) {
			*why = "too many digits";
			return NULL;
		}
		d->mant = d->mant * 10 + (uint64_t)(*s - '0');
		d->frac += dot;
	}
	return s;
}

static bool has_digit(const char *s, const char *end)
{
	for (; s < end; s++)
		if (*s >= '0' && *s <= '9')
			return true;
	return false;
}

/* value * mult exactly; whole: the result must be an integer (else round to nearest). */
static bool scale(const struct decimal *d, uint64_t mult, bool whole, uint64_t *out,
		  const char **why)
{
	if (mult && d->mant > UINT64_MAX / mult) {
		*why = "too large";
		return false;
	}
	uint64_t num = d->mant * mult, den = pow10_tab[d->frac];
	if (whole && num % den) {
		*why = "not a whole number";
		return false;
	}
	*out = num / den + (num % den >= (den + 1) / 2 && den > 1);
	return true;
}

static const struct suffix *find_suffix(const struct suffix *tab, const char *unit)
{
	for (; tab->text; tab++)
		if (strcmp(tab->text, unit) == 0)
			return tab;
	return NULL;
}

/* A decimal number at the start of s; returns where its unit begins, or NULL with *why. */
static const char *read_number(const char *s, struct decimal *d, const char **why)
{
	if (!s || !*s) {
		*why = "empty";
		return NULL;
	}
	const char *unit = read_decimal(s, d, why);
	if (unit && !has_digit(s, unit)) {
		*why = "not a number";
		return NULL;
	}
	return unit;
}

/* Number + one of tab's suffixes. */
static bool parse_with(const char *s, const struct suffix *tab, bool whole, uint64_t *out,
		       const char **why)
{
	struct decimal d;
	const char *unit = read_number(s, &d, why);
	if (!unit)
		return false;
	const struct suffix *sf = find_suffix(tab, unit);
	if (!sf) {
		*why = "unknown unit";
		return false;
	}
	return scale(&d, sf->mult, whole, out, why);
}

static const struct suffix size_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1ull << 10 }, { "k", 1ull << 10 }, { "KB", 1ull << 10 }, { "kB", 1ull << 10 },
	{ "KiB", 1ull << 10 },
	{ "M", 1ull << 20 }, { "MB", 1ull << 20 }, { "MiB", 1ull << 20 },
	{ "G", 1ull << 30 }, { "GB", 1ull << 30 }, { "GiB", 1ull << 30 },
	{ NULL, 0 },
};

bool nb_units_size(const char *s, uint64_t *out, const char **why)
{
	uint64_t v;
	if (!parse_with(s, size_units, true, &v, why))
		return false;
	*out = v;
	return true;
}

static const struct suffix si_prefixes[] = {
	{ "", 1 }, { "k", 1000ull }, { "K", 1000ull }, { "M", 1000000ull }, { "G", 1000000000ull },
	{ "T", 1000000000000ull }, { NULL, 0 },
};

/* Splits "2.5Gbps" into the prefix part and the kind of unit. */
static enum nb_rate_unit rate_kind(const char *unit, size_t *prefix_len)
{
	static const struct {
		const char *tail;
		enum nb_rate_unit kind;
	} tails[] = {
		{ "pps", NB_RATE_PPS }, { "bps", NB_RATE_BITS }, { "bit/s", NB_RATE_BITS },
		{ "b/s", NB_RATE_BITS },
	};
	size_t n = strlen(unit);
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		size_t t = strlen(tails[i].tail);
		if (n >= t && strcmp(unit + n - t, tails[i].tail) == 0) {
			*prefix_len = n - t;
			return tails[i].kind;
		}
	}
	*prefix_len = n;
	return NB_RATE_BARE;
}

bool nb_units_rate(const char *s, uint64_t *out, enum nb_rate_unit *unit, const char **why)
{
	struct decimal d;
	const char *u = read_number(s, &d, why);
	if (!u)
		return false;
	size_t plen;
	enum nb_rate_unit kind = rate_kind(u, &plen);
	char prefix[8];
	if (plen >= sizeof(prefix)) {
		*why = "unknown unit";
		return false;
	}
	memcpy(prefix, u, plen);
	prefix[plen] = '\0';
	const struct suffix *sf = find_suffix(si_prefixes, prefix);
	uint64_t v;
	if (!sf) {
		*why = "unknown unit";
		return false;
	}
	if (!scale(&d, sf->mult, false, &v, why))
		return false;
	*out = v;
	*unit = kind;
	return true;
}

static const struct suffix time_units[] = {
	{ "", 1000000000ull }, { "s", 1000000000ull }, { "ns", 1 }, { "us", 1000ull },
	{ "ms", 1000000ull }, { "m", 60000000000ull }, { "min", 60000000000ull },
	{ "h", 3600000000000ull }, { NULL, 0 },
};

bool nb_units_duration(const char *s, uint64_t *ns, const char **why)
{
	uint64_t v;
	if (!parse_with(s, time_units, false, &v, why))
		return false;
	*ns = v;
	return true;
}

bool nb_units_percent(const char *s, double *ratio, const char **why)
{
	struct decimal d;
	const char *u = read_number(s, &d, why);
	if (!u)
		return false;
	if (strcmp(u, "%") != 0) {
		*why = "missing '%'";
		return false;
	}
	double v = (double)d.mant / (double)pow10_tab[d.frac] / 100.0;
	if (v > 1.0) {
		*why = "over 100%";
		return false;
	}
	*ratio = v;
	return true;
}

bool nb_units_uint(const char *s, uint64_t *out, const char **why)
{
	static const struct suffix none[] = { { "", 1 }, { NULL, 0 } };
	for (const char *p = s ? s : ""; *p; p++)
		if (*p == '.') {
			*why = "not a whole number";
			return false;
		}
	return parse_with(s, none, true, out, why);
}

char *nb_units_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "G", "M", "K" };
	static const unsigned shifts[] = { 30, 20, 10 };
	for (size_t i = 0; i < 3; i++) {
		uint64_t m = 1ull << shifts[i];
		if (bytes && bytes % m == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(bytes / m), units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

char *nb_units_fmt_si(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "T", "G", "M", "k" };
	static const uint64_t mults[] = { 1000000000000ull, 1000000000ull, 1000000ull, 1000ull };
	for (size_t i = 0; i < 4; i++) {
		uint64_t m = mults[i];
		if (v < m || v % (m / 1000))
			continue;
		uint64_t whole = v / m, milli = (v % m) / (m / 1000);
		if (milli == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)whole, units[i]);
		} else {
			char frac[8];
			snprintf(frac, sizeof(frac), "%03u", (unsigned)milli);
			for (size_t e = strlen(frac); e > 0 && frac[e - 1] == '0'; e--)
				frac[e - 1] = '\0';
			snprintf(buf, len, "%llu.%s%s", (unsigned long long)whole, frac, units[i]);
		}
		return buf;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

char *nb_units_fmt_duration(double seconds, char *buf, size_t len)
{
	if (seconds < 0)
		seconds = 0;
	unsigned long long s = (unsigned long long)(seconds + 0.5);
	if (seconds < 10 && seconds != (double)(unsigned long long)seconds)
		snprintf(buf, len, "%.1fs", seconds);
	else if (s < 60)
		snprintf(buf, len, "%llus", s);
	else if (s < 3600)
		snprintf(buf, len, "%llum %02llus", s / 60, s % 60);
	else
		snprintf(buf, len, "%lluh %02llum", (s + 30) / 3600, (s + 30) / 60 % 60);
	return buf;
}
