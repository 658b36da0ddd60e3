/* report.md: the result columns a results table adds beside the headline for some cases —
 * each direction of a bidir case, and what a UDP rate hides (loss, drops, send errors,
 * jitter). Means over the counted repetitions; a bidir case shows "forward / reverse". */
#include "markdown.h"

#include <math.h>
#include <string.h>

#include "fmt.h"

static bool bidir(const struct nb_case_stats *c)
{
	return strcmp(c->pc->direction, "bidir") == 0;
}

static bool udp_directional(const struct nb_case_stats *c)
{
	return c->pc->eng && c->pc->eng->traits.directional && strcmp(c->pc->protocol, "udp") == 0;
}

/* Three significant digits, without an exponent for large values. */
static void sig3(FILE *f, double v)
{
	if (fabs(v) >= 100.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.3g", v);
}

static void whole(FILE *f, double v)
{
	fprintf(f, "%.0f", v);
}

/* Mean of column base, or of each direction's ("a / b") for a bidir case. */
static void pair(FILE *f, const struct nb_case_stats *c, enum nb_col base,
		 void (*put)(FILE *, double), const char *unit)
{
	double v[2] = { c->metric_mean[base], NAN };
	int n = 1;
	if (bidir(c)) {
		v[0] = c->metric_mean[nb_col_dir(base, NB_COL_DIR_FWD)];
		v[1] = c->metric_mean[nb_col_dir(base, NB_COL_DIR_REV)];
		n = 2;
	}
	fputc(' ', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(" / ", f);
		if (isfinite(v[i]))
			put(f, v[i]);
		else
			fputs("—", f);
	}
	fprintf(f, "%s |", isfinite(v[0]) || isfinite(v[1]) ? unit : "");
}

static void direction_cell(FILE *f, const struct nb_case_stats *c, enum nb_col_dir d,
			   struct nb_scale sc)
{
	int col = c->metric_col >= 0 ? nb_col_dir((enum nb_col)c->metric_col, d) : -1;
	double v = col >= 0 && bidir(c) ? c->metric_mean[col] / sc.div : NAN;
	if (isfinite(v))
		fprintf(f, " %.*f |", nb_fmt_decimals(v, NAN), v);
	else
		fputs(" — |", f);
}

/* The headline per fully busy core of one end's engine threads (k 7: client, 8: agent). */
static enum nb_col cost_col(size_t k)
{
	return k == 7 ? NB_COL_LOCAL_PER_CPU_S : NB_COL_PEER_PER_CPU_S;
}

bool nb_md_extra_has(size_t k, const struct nb_case_stats *c)
{
	if (k >= 7)
		return isfinite(c->metric_mean[cost_col(k)]);
	if (k < 2)
		return bidir(c) && c->metric_col >= 0 && nb_col_dir((enum nb_col)c->metric_col, 0) >= 0;
	return udp_directional(c);
}

void nb_md_extra_head(FILE *f, size_t k, const char *unit)
{
	static const char *const heads[NB_MD_NEXTRA] = {
		"Forward (client → agent)", "Reverse (agent → client)", "Loss", "Lost",
		"Receive-buffer drops", "Send errors", "Jitter", "Per client core", "Per agent core",
	};
	if (k < 2 || k >= 7)
		fprintf(f, " %s, %s |", heads[k], unit);
	else
		fprintf(f, " %s |", heads[k]);
}

void nb_md_extra_cell(FILE *f, size_t k, const struct nb_case_stats *c, struct nb_scale sc)
{
	if (k < 2) {
		direction_cell(f, c, (enum nb_col_dir)k, sc);
		return;
	}
	if (k >= 7) {
		double v = c->metric_mean[cost_col(k)] / sc.div;
		if (isfinite(v))
			fprintf(f, " %.*f |", nb_fmt_decimals(v, NAN), v);
		else
			fputs(" — |", f);
		return;
	}
	if (!udp_directional(c)) {
		fputs(" — |", f);
		return;
	}
	static const enum nb_col cols[NB_MD_NEXTRA] = {
		0, 0, NB_COL_LOSS_PCT, NB_COL_LOST, NB_COL_RCVBUF_DROPS, NB_COL_SND_ERRS, NB_COL_JITTER_US,
		0, 0,
	};
	static const char *const units[NB_MD_NEXTRA] = { "", "", " %", "", "", "", " µs", "", "" };
	pair(f, c, cols[k], k == 2 || k == 6 ? sig3 : whole, units[k]);
}
