/* nbrun — compare: grouped bar chart of each case relative to base (base = 100 %),
 * one bar per folder, error bars = stddev, the threshold drawn as a band around 100 %.
 * compare.dat and compare.gp are always written; gnuplot (posix_spawnp, no shell)
 * renders compare.png and compare.svg when it is on PATH. */
#include "compare_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart.h"

extern char **environ;

static const char *const bar_colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define NCOLORS (sizeof(bar_colors) / sizeof(bar_colors[0]))

static void rel(FILE *f, const struct nb_stats *st, double base)
{
	if (st->n == 0 || !(base != 0.0) || !isfinite(base)) {
		fprintf(f, " NaN NaN");
		return;
	}
	double sd = nb_stats_stddev(st);
	fprintf(f, " %.6g %.6g", st->mean / fabs(base) * 100.0,
		isfinite(sd) ? sd / fabs(base) * 100.0 : 0.0);
}

/* The change printed over a NEW bar that got a verdict, in the verdict's colour. */
static void verdict_label(FILE *f, const struct nb_cmp_cell *cell)
{
	bool bad = cell->verdict == NB_CMP_REGRESSION, good = cell->verdict == NB_CMP_IMPROVEMENT;
	if (!cell->present || !(bad || good || cell->verdict == NB_CMP_CHANGED) ||
	    !isfinite(cell->change)) {
		fprintf(f, " \"\" 0");
		return;
	}
	fprintf(f, " \"%+.0f%%\" %d", cell->change * 100.0,
		bad ? 0xc62828 : good ? 0x2e7d32 : 0x555555);
}

/* Columns: case, base %, base sd %, then per NEW folder: %, sd %, label, label colour. */
static void write_dat(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "# nbrun compare: mean relative to base (%%) and stddev (%%) per folder\n# case base sd");
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(f, " \"%s\" sd label colour", c->sides[s].label);
	fprintf(f, "\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		fprintf(f, "\"");
		nb_chart_gp_str(f, row->case_id);
		fprintf(f, "\"");
		rel(f, &row->base, row->base.mean);
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			struct nb_stats none = { 0 };
			rel(f, cell->present ? &cell->st : &none, row->base.mean);
			verdict_label(f, cell);
		}
		fprintf(f, "\n");
	}
}

/* Every case compared on the same column gets it in the title. */
static const char *common_metric(const struct nb_compare *c)
{
	if (c->metric)
		return c->metric;
	for (size_t i = 1; i < c->nrows; i++)
		if (strcmp(c->rows[i].metric, c->rows[0].metric) != 0)
			return NULL;
	return c->nrows ? c->rows[0].metric : NULL;
}

static void gp_terminal(const struct nb_compare *c, FILE *f)
{
	int w = (int)(c->nrows * (c->nsides + 1) * 34 + 300);
	w = w < 1280 ? 1280 : w > 4000 ? 4000 : w;
	size_t longest = 0;
	for (size_t i = 0; i < c->nrows; i++)
		longest = strlen(c->rows[i].case_id) > longest ? strlen(c->rows[i].case_id) : longest;
	double bm = 3.0 + (double)longest * 0.2;
	bm = bm < 5.0 ? 5.0 : bm > 18.0 ? 18.0 : bm;
	fprintf(f, "# nbrun compare chart: run `gnuplot compare.gp` in this folder.\n"
		   "reset\nset encoding utf8\n"
		   "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		   "    set terminal pngcairo size %d,%d noenhanced font \"DejaVu Sans,12\" "
		   "background rgb \"white\"\n"
		   "} else {\n    set terminal png size %d,%d noenhanced background rgb \"white\"\n}\n"
		   "set output \"compare.png\"\nset bmargin %.1f\n", w, 600 + (int)(bm * 12), w,
		600 + (int)(bm * 12), bm);
	const char *m = common_metric(c);
	fprintf(f, "set title \"");
	nb_chart_gp_str(f, m ? m : "Headline metric of each case");
	fprintf(f, " relative to base (base = 100 %%)\" font \",17\"\n");
}

static void gp_preamble(const struct nb_compare *c, FILE *f)
{
	gp_terminal(c, f);
	fprintf(f, "set ylabel \"%% of the base mean (error bars: stddev)\"\n"
		   "set border 3 lw 1.2 lc rgb \"#404040\"\n"
		   "set tics nomirror out scale 0.6 textcolor rgb \"#303030\"\n"
		   "set xtics rotate by 30 right font \",10\"\n"
		   "set grid ytics lt 1 lw 1 lc rgb \"#e6e6e6\"\n"
		   "set key top right horizontal box lc rgb \"#d0d0d0\" opaque samplen 2 width 1\n"
		   "set style data histograms\n"
		   "set style histogram errorbars gap 1.5 lw 1.2\n"
		   "set style fill solid 0.85 border rgb \"#505050\"\n"
		   "set boxwidth 0.9\nset yrange [0:*]\nset offsets 0, 0, graph 0.12, 0\n"
		   "set xrange [-0.6:%zu.6]\nset lmargin 12\n", c->nrows ? c->nrows - 1 : 0);
	double t = c->threshold * 100.0;
	fprintf(f, "set object 1 rectangle from graph 0, first %.6g to graph 1, first %.6g "
		   "fillcolor rgb \"#fdf1d8\" fillstyle solid 1.0 noborder behind\n"
		   "set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead "
		   "lc rgb \"#707070\" dt 2 lw 1.2 front\n"
		   "set label 1 \"±%.4g %% threshold\" at graph 0.005, first %.6g left "
		   "font \",10\" textcolor rgb \"#8a6d3b\" front\n",
		100.0 - t, 100.0 + t, t, 100.0 + t + 1.5);
}

/* Bar j of N in a cluster (gap g) sits at x + (j - (N - 1) / 2) / (N + g). */
static void gp_plot(const struct nb_compare *c, FILE *f)
{
	size_t nbars = c->nsides;
	const char *label = c->sides[0].label;
	fprintf(f, "plot 'compare.dat' using 2:3:xtic(1) title \"");
	nb_chart_gp_str(f, label);
	fprintf(f, "%s\" lc rgb \"#a8a8a8\"", strcmp(label, "base") ? " (base)" : "");
	for (size_t s = 1; s < c->nsides; s++) {
		size_t k = 4 * (s - 1) + 4;
		fprintf(f, ", \\\n     '' using %zu:%zu title \"", k, k + 1);
		nb_chart_gp_str(f, c->sides[s].label);
		fprintf(f, "\" lc rgb \"%s\"", bar_colors[(s - 1) % NCOLORS]);
	}
	for (size_t s = 1; s < c->nsides; s++) {
		size_t k = 4 * (s - 1) + 4;
		double dx = ((double)s - (double)(nbars - 1) / 2.0) / ((double)nbars + 1.5);
		fprintf(f, ", \\\n     '' using ($0%+.4f):($%zu+$%zu):%zu:%zu with labels offset 0,0.8 "
			   "font \",10\" tc rgb variable notitle", dx, k, k + 1, k + 2, k + 3);
	}
	fprintf(f, "\nset terminal svg size 1280,760 dynamic noenhanced font \"DejaVu Sans,12\" "
		   "background rgb \"white\"\nset output \"compare.svg\"\nreplot\nunset output\n");
}

static bool write_files(const struct nb_compare *c, const char *dir, struct nb_error *err)
{
	char dat[4200], gp[4200];
	snprintf(dat, sizeof(dat), "%s/compare.dat", dir);
	snprintf(gp, sizeof(gp), "%s/compare.gp", dir);
	FILE *fd = fopen(dat, "w");
	FILE *fg = fd ? fopen(gp, "w") : NULL;
	if (!fg) {
		int e = errno;
		if (fd)
			fclose(fd);
		return nb_error_errno(err, e, "cannot write %s", fd ? gp : dat);
	}
	write_dat(c, fd);
	gp_preamble(c, fg);
	gp_plot(c, fg);
	bool ok = !ferror(fd) && !ferror(fg);
	ok = fclose(fd) == 0 && ok;
	ok = fclose(fg) == 0 && ok;
	return ok ? true : nb_error_set(err, "%s: cannot write the chart files", dir);
}

bool nb_compare_chart(const struct nb_compare *c, const char *dir, bool *rendered,
		      struct nb_error *err)
{
	*rendered = false;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return nb_error_errno(err, errno, "cannot create %s", dir);
	if (!write_files(c, dir, err))
		return false;
	if (!nb_chart_gnuplot_available())
		return true;
	char png[4200], log[4200];
	snprintf(png, sizeof(png), "%s/compare.png", dir);
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	remove(log);
	*rendered = nb_chart_gnuplot_run(dir, "compare.gp", log, err) && access(png, F_OK) == 0;
	return true;
}
