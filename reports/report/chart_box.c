/* The box plot of one test: each case's headline over its counted repetitions, one box per
 * case (quartiles, the median's line, whiskers to 1.5 IQR) and every repetition a point on
 * it, whose value shows on hover — the spread a mean ± stddev summarizes, and flent's view of
 * repeated runs. */
#include "chart_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static bool boxed(const struct nb_case_stats *c, const char *test)
{
	return strcmp(c->pc->test, test) == 0 && c->metric_col >= 0 && c->value.n > 0 &&
	       c->n_trials == 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of n sorted values, linear between the order statistics (R's type 7): defined
 * for any n >= 1, where gnuplot's own boxplot draws nothing for two points. */
static double sorted_quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	return lo + 1 < n ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* The box of case x: "x min q1 median q3 max", whiskers to the furthest value within 1.5 IQR. */
static void box_row(FILE *dat, const struct nb_results *res, size_t ci, size_t x, struct nb_scale sc)
{
	double v[512];
	size_t n = 0;
	for (size_t i = 0; i < res->nruns && n < sizeof(v) / sizeof(v[0]); i++)
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]) &&
		    isfinite(res->runs[i].value))
			v[n++] = res->runs[i].value / sc.div;
	nb_chart_box_dat(dat, v, n, x);
}

void nb_chart_box_dat(FILE *dat, double *v, size_t n, size_t x)
{
	if (n == 0)
		return;
	qsort(v, n, sizeof(v[0]), cmp_double);
	double q1 = sorted_quantile(v, n, 0.25), q3 = sorted_quantile(v, n, 0.75);
	double lo = q1, hi = q3;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= q1 - 1.5 * (q3 - q1) && v[i] <= q3 + 1.5 * (q3 - q1)) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	fprintf(dat, "%zu %.9g %.9g %.9g %.9g %.9g\n", x, lo, q1, sorted_quantile(v, n, 0.5), q3, hi);
}

/* One block per case: "x value "repetition R: V"" for each counted run. */
static void box_block(FILE *dat, const struct nb_results *res, size_t ci, size_t x,
		      const struct nb_case_stats *c, struct nb_scale sc)
{
	fprintf(dat, "%s# series: %s\n# x value hover\n", x ? "\n\n" : "", c->pc->case_id);
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || !nb_run_counts(r) || !isfinite(r->value))
			continue;
		char v[64], label[160];
		nb_fmt_value(r->value, nb_cols[c->metric_col].unit, v, sizeof(v));
		snprintf(label, sizeof(label), "%s, repetition %u: %s", nb_chart_short_label(c->pc),
			 (unsigned)r->rep, v);
		fprintf(dat, "%zu %.9g ", x, r->value / sc.div);
		nb_chart_dat_label(dat, label);
		fputc('\n', dat);
	}
}

static void box_axes(FILE *gp, const struct nb_summary *s, const char *test, size_t n, int col,
		     struct nb_scale sc)
{
	fprintf(gp, "set xrange [-0.6:%zu.6]\nset xtics (", n - 1);
	size_t x = 0;
	for (size_t i = 0; i < s->n; i++)
		if (boxed(&s->c[i], test)) {
			fprintf(gp, "%s\"", x ? ", " : "");
			nb_chart_gp_str(gp, nb_chart_short_label(s->c[i].pc));
			fprintf(gp, "\" %zu", x++);
		}
	fprintf(gp, ")%s\nset xlabel \"Case\"\nset ylabel \"%s (%s)\"\nset yrange [0:*]\n"
		    "set grid noxtics\nset boxwidth 0.5\nset bars 0.5\n",
		n > 3 ? "\nset xtics rotate by -20 left" : "", nb_cols[col].label, sc.unit);
}

static bool box_chart(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		      const char *test, struct nb_charts *charts, struct nb_error *err)
{
	size_t n = 0, first = 0;
	double mag = 0;
	for (size_t i = 0; i < s->n; i++)
		if (boxed(&s->c[i], test)) {
			first = n++ ? first : i;
			mag = fmax(mag, s->c[i].value.max);
		}
	if (n == 0)
		return true;
	int col = s->c[first].metric_col;
	struct nb_scale sc = nb_fmt_scale(nb_cols[col].unit, mag);
	char stem[160], title[256];
	snprintf(stem, sizeof(stem), "%s-repetitions", test);
	snprintf(title, sizeof(title), "%s: %s over the repetitions", test, nb_cols[col].label);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_BOX, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "%s of every counted repetition of each case of test %s (a point each, its value on "
		 "hover in report.html); the box spans the middle half of the repetitions, its line is "
		 "their median and the whiskers reach the furthest repetition within 1.5 × the box.",
		 nb_cols[col].label, test);
	size_t x = 0;
	for (size_t i = 0; i < s->n; i++)
		if (boxed(&s->c[i], test))
			box_block(dat, res, (size_t)(s->c[i].pc - res->cases), x++, &s->c[i], sc);
	fprintf(dat, "\n\n# the boxes\n# x whisker_lo q1 median q3 whisker_hi\n");
	x = 0;
	for (size_t i = 0; i < s->n; i++)
		if (boxed(&s->c[i], test))
			box_row(dat, res, (size_t)(s->c[i].pc - res->cases), x++, sc);
	box_axes(gp, s, test, n, col, sc);
	nb_chart_box_plot(gp, ch->name, n);
	return nb_chart_end(charts, err);
}

void nb_chart_box_plot(FILE *gp, const char *name, size_t n)
{
	fprintf(gp, "plot \"%s.dat\" index %zu using 1:3:2:6:5 with candlesticks whiskerbars lt 8 "
		    "lw 1.4 fs solid 0.15 title \"box: middle half of the repetitions, whiskers to 1.5 "
		    "× the box\", \\\n     \"%s.dat\" index %zu using 1:4:4:4:4 with candlesticks lt 8 "
		    "lw 2.4 title \"median\"", name, n, name, n);
	for (size_t k = 0; k < n; k++) {
		fputs(", \\\n     ", gp);
		nb_chart_gp_hover(gp, name, k, "1:2", 3, nb_chart_gp_style(k));
	}
	fprintf(gp, ", \\\n     NaN with points lt 8 pt 7 title \"point: one repetition (its value "
		    "on hover)\"\n");
}

bool nb_charts_box(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		   struct nb_charts *c, struct nb_error *err)
{
	for (size_t i = 0; i < s->n; i++)
		if (nb_chart_first_of_test(s, i) && !box_chart(dir, res, s, s->c[i].pc->test, c, err))
			return false;
	return true;
}
