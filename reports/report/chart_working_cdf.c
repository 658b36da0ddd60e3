/* The CDF of each probe of a working case, idle against loaded, on one chart per probe: the
 * share of its round trips at or below each latency, from the phase histograms every run keeps
 * (latency/run-<id>-probeN.csv, working_hist.h), merged over the case's counted repetitions;
 * the p50 and p99 of each phase marked, their values on hover. */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "working_hist.h"
#include "working_lookup.h"

#define PROBES_MAX NB_WORKING_PROBE_RUNS_MAX

/* Phase `phase` of probe `part` over case ci's counted runs; false: no run kept it. */
static bool merged_phase(const char *dir, const struct nb_results *res, size_t ci,
			 const char *part, const char *phase, struct nb_hist *h)
{
	nb_hist_init(h);
	for (size_t i = 0; i < res->nruns; i++) {
		struct nb_error err = { "" }; /* an older folder keeps no phase histograms: none */
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]))
			(void)nb_working_hist_add(dir, res->runs[i].run_id, part, phase, h, &err);
	}
	return h->count > h->overflow;
}

static double bucket_mid(const struct nb_hist *h, size_t b)
{
	double lo = (double)nb_hist_bucket_lower(b);
	double hi = b + 1 < NB_HIST_BUCKETS ? (double)nb_hist_bucket_lower(b + 1) : lo;
	return fmin(fmax((lo + hi) / 2.0, (double)h->min_ns), (double)h->max_ns);
}

/* "latency_us share" at each non-empty bucket: the share of samples at or below it, ending at
 * 1 (values above the histogram's range, if any, at its max). */
static void cdf_rows(FILE *dat, const struct nb_hist *h, const char *phase)
{
	fprintf(dat, "# series: %s\n# latency_us share\n", phase);
	uint64_t cum = 0, total = h->count;
	for (size_t b = 0; b < NB_HIST_BUCKETS; b++)
		if (h->counts[b]) {
			cum += h->counts[b];
			fprintf(dat, "%.9g %.9g\n", bucket_mid(h, b) / 1e3,
				(double)cum / (double)total);
		}
	if (h->overflow)
		fprintf(dat, "%.9g 1\n", (double)h->max_ns / 1e3);
}

/* The hover points: "latency_us share "phase p50: V (of N samples)"". */
static void pct_rows(FILE *dat, const struct nb_hist *h, const char *phase)
{
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	fprintf(dat, "\n\n# hover: %s p50 p99\n# latency_us share hover\n", phase);
	const struct { const char *name; uint64_t ns; double q; } at[] = {
		{ "p50", s.p50_ns, 0.50 }, { "p99", s.p99_ns, 0.99 },
	};
	for (size_t i = 0; i < 2; i++) {
		if (at[i].q > 0.5 && s.count < 100)
			continue; /* a p99 needs 100 samples (docs/reports.md) */
		char v[48], label[128];
		nb_fmt_value((double)at[i].ns / 1e3, "us", v, sizeof(v));
		snprintf(label, sizeof(label), "%s %s: %s (of %llu samples)", phase, at[i].name, v,
			 (unsigned long long)s.count);
		fprintf(dat, "%.9g %.9g ", (double)at[i].ns / 1e3, at[i].q);
		nb_chart_dat_label(dat, label);
		fputc('\n', dat);
	}
}

static void cdf_script(FILE *gp, const struct nb_chart *ch, const struct nb_hist *const ph[2],
		       const char *const names[2])
{
	double lo = fmin((double)ph[0]->min_ns, (double)ph[1]->min_ns) / 1e3;
	double hi = fmax((double)ph[0]->max_ns, (double)ph[1]->max_ns) / 1e3;
	struct nb_scale sc = nb_fmt_scale("us", hi);
	fprintf(gp, "set xlabel \"Round-trip latency (%s)\"\nset ylabel \"Share of round trips at "
		    "or below it\"\nset yrange [0:1.02]\nset ytics 0.1\n%s", sc.unit,
		lo > 0 && hi / lo > 20 ? "set logscale x 10\n" : "");
	fprintf(gp, "plot ");
	for (size_t k = 0; k < 2; k++) {
		char xy[48];
		snprintf(xy, sizeof(xy), "($1/%.15g):2", sc.div);
		fprintf(gp, "%s\"%s.dat\" index %zu using %s with steps lt %d title \"%s\", \\\n     ",
			k ? ", \\\n     " : "", ch->name, k, xy, nb_chart_gp_style(k), names[k]);
		nb_chart_gp_hover(gp, ch->name, 2 + k, xy, 3, nb_chart_gp_style(k));
	}
	fprintf(gp, "\n");
}

static bool probe_cdf(const char *dir, const struct nb_results *res, size_t ci, const char *part,
		      struct nb_hist *const ph[2], struct nb_charts *charts, struct nb_error *err)
{
	static const char *const names[2] = { "idle", "loaded" };
	const char *id = res->cases[ci].case_id;
	const char *pid = nb_working_csv_cell(res, id, part, "part_case_id");
	if (!pid[0] || !merged_phase(dir, res, ci, part, names[0], ph[0]) ||
	    !merged_phase(dir, res, ci, part, names[1], ph[1]))
		return true;
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "working-cdf-%s-%s", id, part);
	snprintf(title, sizeof(title), "%s: CDF of %s latency, idle and loaded", id, pid);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_WORKING_CDF, stem, title, &dat,
					     &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", res->cases[ci].test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Probe %s of case %s: the share of its round trips at or below each latency, alone "
		 "before the load (idle) and beside it (loaded, its ramp left out), from every counted "
		 "repetition's samples merged; the marked points are each phase's p50 and p99, their "
		 "values on hover.", pid, id);
	cdf_rows(dat, ph[0], names[0]);
	fputs("\n\n", dat);
	cdf_rows(dat, ph[1], names[1]);
	for (size_t k = 0; k < 2; k++)
		pct_rows(dat, ph[k], names[k]);
	cdf_script(gp, ch, (const struct nb_hist *const *)ph, names);
	return nb_chart_end(charts, err);
}

bool nb_charts_working_cdf(const char *dir, const struct nb_results *res,
			   const struct nb_summary *s, struct nb_charts *c, struct nb_error *err)
{
	(void)s;
	struct nb_hist *ph[2] = { nb_hist_create(), nb_hist_create() };
	bool ok = ph[0] && ph[1];
	if (!ok)
		nb_error_set(err, "charts: out of memory");
	for (size_t i = 0; ok && i < res->ncases; i++) {
		if (!nb_working_csv_cell(res, res->cases[i].case_id, "load", "part")[0])
			continue;
		for (int p = 1; ok && p <= PROBES_MAX; p++) {
			char part[16];
			snprintf(part, sizeof(part), "probe%d", p);
			ok = probe_cdf(dir, res, i, part, ph, c, err);
		}
	}
	nb_hist_destroy(ph[0]);
	nb_hist_destroy(ph[1]);
	return ok;
}
