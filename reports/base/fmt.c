#include "fmt.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cols.h"

struct step {
	double min, div;
	const char *unit;
};

struct family {
	const char *unit;
	struct step steps[4]; /* largest first; the last has min 0 */
};

static const struct family families[] = {
	{ "bit/s", { { 1e9, 1e9, "Gbit/s" }, { 1e6, 1e6, "Mbit/s" }, { 1e3, 1e3, "kbit/s" },
		     { 0, 1, "bit/s" } } },
	{ "pkt/s", { { 1e6, 1e6, "Mpps" }, { 1e3, 1e3, "kpps" }, { 0, 1, "pps" }, { 0, 1, "pps" } } },
	{ "us", { { 1e4, 1e3, "ms" }, { 0, 1, "µs" }, { 0, 1, "µs" }, { 0, 1, "µs" } } },
	{ "B", { { 1e9, 1e9, "GB" }, { 1e6, 1e6, "MB" }, { 1e3, 1e3, "kB" }, { 0, 1, "B" } } },
	/* sar's kB is 1024 bytes (the if_*kB_s columns): its multiples are binary too */
	{ "kB/s", { { 1048576, 1048576, "GiB/s" }, { 1024, 1024, "MiB/s" }, { 0, 1, "kB/s" },
		    { 0, 1, "kB/s" } } },
};

struct nb_scale nb_fmt_scale(const char *unit, double mag)
{
	if (!unit)
		unit = "";
	mag = fabs(mag);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (strcmp(families[i].unit, unit) != 0)
			continue;
		for (size_t k = 0; k < 4; k++)
			if (!(mag < families[i].steps[k].min))
				return (struct nb_scale){ families[i].steps[k].div, families[i].steps[k].unit };
	}
	return (struct nb_scale){ 1.0, unit };
}

int nb_fmt_decimals(double mean, double sd)
{
	double m = fabs(mean);
	int d = m >= 100.0 ? 0 : m >= 10.0 ? 1 : 2;
	if (isfinite(sd) && sd > 0.0) {
		int ds = 1 - (int)floor(log10(sd));
		if (ds > d)
			d = ds;
	}
	return d < 0 ? 0 : d > 3 ? 3 : d;
}

void nb_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "—");
		return;
	}
	struct nb_scale s = nb_fmt_scale(unit, v);
	double x = v / s.div;
	snprintf(buf, len, "%.*f%s%s", nb_fmt_decimals(x, NAN), x, *s.unit ? " " : "", s.unit);
}

const char *nb_fmt_metric_unit(const char *metric)
{
	int c = metric ? nb_col_find(metric) : -1;
	return c < 0 ? "" : nb_cols[c].unit;
}

/* From the digits of "%.14e" (rounded once, by the C library) to plain decimal: the digits
 * placed around the decimal point by the exponent, padded with zeros, trailing zeros cut. */
void nb_fmt_num(double v, char *buf, size_t len)
{
	if (len == 0)
		return;
	buf[0] = '\0';
	if (!isfinite(v))
		return;
	char e[48], digits[NB_FMT_DIGITS + 1];
	snprintf(e, sizeof(e), "%.*e", NB_FMT_DIGITS - 1, v);
	size_t nd = 0;
	const char *p = e + (e[0] == '-');
	for (; *p && *p != 'e' && nd < NB_FMT_DIGITS; p++)
		if (isdigit((unsigned char)*p))
			digits[nd++] = *p;
	int exp = *p == 'e' ? atoi(p + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (nd == 1 && digits[0] == '0') { /* 0 and -0 */
		snprintf(buf, len, "0");
		return;
	}
	size_t n = 0;
#define PUT(ch) do { if (n + 1 < len) buf[n++] = (ch); } while (0)
	if (v < 0)
		PUT('-');
	if (exp < 0) {
		PUT('0');
		PUT('.');
		for (int z = 0; z < -exp - 1; z++)
			PUT('0');
		for (size_t i = 0; i < nd; i++)
			PUT(digits[i]);
	} else {
		for (size_t i = 0; i <= (size_t)exp; i++)
			PUT(i < nd ? digits[i] : '0');
		if (nd > (size_t)exp + 1)
			PUT('.');
		for (size_t i = (size_t)exp + 1; i < nd; i++)
			PUT(digits[i]);
	}
#undef PUT
	buf[n] = '\0';
}
