/* nbrun — compare --names A,B (neutral mode): the systems side by side in real units. One chart
 * per metric (values-METRIC.{dat,gp,png,svg}, its cases sharing one axis): for each case a bar
 * per folder at its mean with the 95 % CI of that mean, the first folder's in grey, each other's
 * in the colour of its verdict against the first, every bar's value on hover (a hypertext
 * point: report viewers that show SVG give it as the point's <title>). The title names the
 * metric, each folder's host pair and day, and the nbrun version. */
#include "compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "gnuplot.h"

#define BASE_RGB 0xb0bec5u

/* What a colour means when no side is a baseline: a direction, never a "regression". */
static const struct {
	enum nb_cmp_verdict v;
	const char *name;
} neutral_names[] = {
	{ NB_CMP_REGRESSION, "worse than %s beyond the threshold" },
	{ NB_CMP_IMPROVEMENT, "better than %s beyond the threshold" },
	{ NB_CMP_UNCHANGED, "the same as %s within the threshold" },
	{ NB_CMP_CHANGED, "different from %s beyond the threshold" },
};

static const char *neutral_name(enum nb_cmp_verdict v)
{
	for (size_t i = 0; i < sizeof(neutral_names) / sizeof(neutral_names[0]); i++)
		if (neutral_names[i].v == v)
			return neutral_names[i].name;
	return "inconclusive against %s";
}

static const struct nb_cmp_sample *side_sample(const struct nb_cmp_row *row, size_t s)
{
	return s == 0 ? &row->base : row->cells[s - 1].present ? &row->cells[s - 1].s : NULL;
}

/* "mean lo hi colour "hover"" of side s, NaN when it has no counted run. */
static void dat_side(FILE *f, const struct nb_compare *c, const struct nb_cmp_row *row, size_t s,
		     struct nb_scale sc)
{
	const struct nb_cmp_sample *x = side_sample(row, s);
	double lo = NAN, hi = NAN, m = x && x->st.n ? x->st.mean : NAN;
	if (x && x->st.n >= 2)
		nb_stats_ci95(&x->st, &lo, &hi); /* cut at 0 when it reached below */
	char v[48], hover[200];
	nb_fmt_value(m, nb_cmp_row_unit(row), v, sizeof(v));
	int n = snprintf(hover, sizeof(hover), "%s, %s: %s", c->sides[s].name, row->case_id, v);
	if (isfinite(lo) && n > 0 && (size_t)n < sizeof(hover))
		snprintf(hover + n, sizeof(hover) - (size_t)n, " (95 %% CI %.*f – %.*f %s), n = %zu",
			 nb_fmt_decimals(m / sc.div, NAN), lo / sc.div,
			 nb_fmt_decimals(m / sc.div, NAN), hi / sc.div, sc.unit, x->st.n);
	fprintf(f, " %.9g %.9g %.9g %u \"", m / sc.div, (isfinite(lo) ? lo : m) / sc.div,
		(isfinite(hi) ? hi : m) / sc.div,
		s == 0 ? BASE_RGB : nb_cmp_chart_rgb(&row->cells[s - 1]));
	nb_chart_gp_str(f, hover);
	fputc('"', f);
}

static bool of_metric(const struct nb_cmp_row *row, const char *metric)
{
	return strcmp(row->metric, metric) == 0;
}

static void gp_head(FILE *gp, const struct nb_compare *c, const char *metric, size_t n,
		    struct nb_scale sc, int col)
{
	fprintf(gp, "# nbrun compare chart: run `gnuplot values-%s.gp` in this folder.\nreset\n"
		    "set encoding utf8\nif (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		    "    set terminal pngcairo size 1280,720 noenhanced font \"DejaVu Sans,12\" "
		    "background rgb \"white\"\n} else {\n    set terminal png size 1280,720 noenhanced "
		    "background rgb \"white\"\n}\nset output \"values-%s.png\"\nset title \"", metric,
		metric);
	nb_chart_gp_str(gp, col >= 0 ? nb_cols[col].label : metric);
	fputs(": ", gp);
	for (size_t s = 0; s < c->nsides; s++) {
		fputs(s ? " vs " : "", gp);
		nb_chart_gp_str(gp, c->sides[s].name);
	}
	fputs(", mean and 95 % CI\\n", gp);
	nb_cmp_chart_context(gp, c);
	fprintf(gp, "\" font \",15\"\nset ylabel \"%s (%s)\"\nset yrange [0:*]\n"
		    "set xrange [-0.6:%zu.6]\nset border 3 lw 1.2 lc rgb \"#404040\"\n"
		    "set tics nomirror out scale 0.6\nset xtics rotate by 20 right font \",10\"\n"
		    "set grid ytics lt 1 lw 1 lc rgb \"#e6e6e6\"\nset bmargin 8\n"
		    "set key below center horizontal Left reverse nobox\n"
		    "set style fill solid 0.85 border rgb \"#505050\"\nset format y \"%%.10g\"\n",
		col >= 0 ? nb_cols[col].label : metric, sc.unit, n ? n - 1 : 0);
}

/* Side s's bars at x + dx, its CIs and hover points (columns 2 + 5s ...); then the key. */
static void gp_plot(FILE *gp, const struct nb_compare *c, const char *metric, const bool *used)
{
	double w = 0.8 / (double)c->nsides;
	fprintf(gp, "plot \"values-%s.dat\" using 0:(NaN):xtic(1) notitle", metric);
	for (size_t s = 0; s < c->nsides; s++) {
		size_t k = 2 + 5 * s;
		double dx = ((double)s - (double)(c->nsides - 1) / 2.0) * w;
		fprintf(gp, ", \\\n     '' using ($0%+.4f):%zu:(%.4f):%zu with boxes lc rgb variable "
			    "notitle, \\\n     '' using ($0%+.4f):%zu:%zu:%zu with yerrorbars lc rgb "
			    "\"#202020\" pt 7 ps 0.4 notitle, \\\n     '' using ($0%+.4f):%zu:(stringcolumn(%zu)) "
			    "with labels hypertext point pt 7 ps 0.8 lc rgb \"#202020\" notitle",
			dx, k, w * 0.9, k + 3, dx, k, k + 1, k + 2, dx, k, k + 4);
	}
	fprintf(gp, ", \\\n     NaN with boxes lc rgb \"#%06x\" title \"", BASE_RGB);
	nb_chart_gp_str(gp, c->sides[0].name);
	fputs("\"", gp);
	for (size_t v = 0; v < NB_CMP_NVERDICTS; v++)
		if (used[v]) {
			char name[160];
			int len = snprintf(name, sizeof(name), neutral_name((enum nb_cmp_verdict)v),
					   c->sides[0].name);
			if (len > 0 && (size_t)len < sizeof(name) && v != NB_CMP_INCONCLUSIVE)
				snprintf(name + len, sizeof(name) - (size_t)len, " (±%.4g %%)",
					 c->threshold * 100.0);
			struct nb_cmp_cell probe = { .present = true, .verdict = (enum nb_cmp_verdict)v };
			fprintf(gp, ", \\\n     NaN with boxes lc rgb \"#%06x\" title \"",
				nb_cmp_chart_rgb(&probe));
			nb_chart_gp_str(gp, name);
			fputs("\"", gp);
		}
	fputs(", \\\n     NaN with yerrorbars lc rgb \"#202020\" pt 7 ps 0.4 title \"95 % CI of the "
	      "mean\"\nset terminal svg size 1280,720 dynamic noenhanced font \"DejaVu Sans,12\" "
	      "background rgb \"white\"\n", gp);
	fprintf(gp, "set output \"values-%s.svg\"\nreplot\nunset output\n", metric);
}

static bool one_metric(const struct nb_compare *c, const char *dir, const char *metric,
		       bool *rendered, struct nb_error *err)
{
	double mag = 0;
	size_t n = 0;
	int col = -1;
	bool used[NB_CMP_NVERDICTS] = { false };
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		if (!of_metric(row, metric))
			continue;
		n++;
		col = row->unit ? -1 : row->col;
		for (size_t s = 0; s < c->nsides; s++) {
			const struct nb_cmp_sample *x = side_sample(row, s);
			if (x && x->st.n)
				mag = fmax(mag, x->st.mean);
			if (s && row->cells[s - 1].present)
				used[row->cells[s - 1].verdict] = true;
		}
	}
	struct nb_scale sc = nb_fmt_scale(col >= 0 ? nb_cols[col].unit : "", mag);
	char path[4300];
	snprintf(path, sizeof(path), "%s/values-%s.dat", dir, metric);
	FILE *dat = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/values-%s.gp", dir, metric);
	FILE *gp = dat ? fopen(path, "w") : NULL;
	if (!gp) {
		if (dat)
			fclose(dat);
		return nb_error_set(err, "cannot write %s", path);
	}
	fputs("# case, then per folder: mean ci95_lo ci95_hi colour hover\n", dat);
	for (size_t i = 0; i < c->nrows; i++)
		if (of_metric(&c->rows[i], metric)) {
			fputc('"', dat);
			nb_chart_gp_str(dat, c->rows[i].case_id);
			fputc('"', dat);
			for (size_t s = 0; s < c->nsides; s++)
				dat_side(dat, c, &c->rows[i], s, sc);
			fputc('\n', dat);
		}
	gp_head(gp, c, metric, n, sc, col);
	gp_plot(gp, c, metric, used);
	bool ok = !ferror(dat) && !ferror(gp);
	ok = (fclose(dat) == 0) & (fclose(gp) == 0) && ok;
	if (!ok)
		return nb_error_set(err, "%s: cannot write the chart files", dir);
	char script[160], log[4300], png[4300];
	snprintf(script, sizeof(script), "values-%s.gp", metric);
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	snprintf(png, sizeof(png), "%s/values-%s.png", dir, metric);
	*rendered = nb_chart_gnuplot_available() && nb_chart_gnuplot_run(dir, script, log, err) &&
		    access(png, F_OK) == 0;
	return true;
}

bool nb_compare_chart_values(const struct nb_compare *c, const char *dir, struct nb_error *err)
{
	for (size_t i = 0; i < c->nrows; i++) {
		size_t k = 0;
		while (k < i && strcmp(c->rows[k].metric, c->rows[i].metric) != 0)
			k++;
		bool rendered;
		if (k == i && *c->rows[i].metric && !one_metric(c, dir, c->rows[i].metric, &rendered, err))
			return false;
	}
	return true;
}
