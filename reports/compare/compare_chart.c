/* nbrun — compare: each case's change as a ratio to base (1.00 = base), one bar per NEW
 * folder drawn from 1.00 to the estimate in its verdict's colour (several folders told apart
 * by their fill), its 95 % CI as an error bar, every bar labelled with its change, the
 * threshold as a band around 1.00 named in the key (a label inside the plot would sit on a
 * bar), and the axis zoomed to the data (a 0-300 % axis would flatten a 6 % difference) but
 * never below 0: no value is negative, so neither is a ratio. Each case's label says which way
 * is better.
 * compare.dat and compare.gp are always written; gnuplot (posix_spawnp, no shell) renders
 * compare.png and compare.svg when it is on PATH. */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnuplot.h"

/* The fill of NEW folder s (1-based) when there are several: solid, then gnuplot's patterns. */
static void fill_style(char *buf, size_t len, size_t s, size_t nnew)
{
	if (nnew == 1 || s == 1)
		snprintf(buf, len, "fs solid 0.85");
	else
		snprintf(buf, len, "fs pattern %zu", (s - 2) % 7 + 1);
}

/* The y range: every estimate, CI and the threshold band, plus a margin for the labels. */
struct yrange {
	double lo, hi, pad;
};

static void widen(struct yrange *y, double v)
{
	if (isfinite(v)) {
		y->lo = fmin(y->lo, v);
		y->hi = fmax(y->hi, v);
	}
}

static struct yrange y_range(const struct nb_compare *c)
{
	struct yrange y = { 1.0 - c->threshold, 1.0 + c->threshold, 0.0 };
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_cell *cell = &c->rows[i].cells[s - 1];
			widen(&y, 1.0 + cell->change);
			widen(&y, 1.0 + cell->ch_lo);
			widen(&y, 1.0 + cell->ch_hi);
		}
	y.pad = fmax((y.hi - y.lo) * 0.12, 0.01);
	y.lo = fmax(y.lo - y.pad, 0.0);
	y.hi += y.pad;
	return y;
}

/* Each bar and its label in its verdict's colour; the key names each colour used. */
static const struct {
	enum nb_cmp_verdict v;
	unsigned rgb;
	const char *name, *neutral; /* neutral mode has no baseline to regress from */
} verdict_colours[] = {
	{ NB_CMP_REGRESSION, 0xc62828, "regression", "worse beyond the threshold" },
	{ NB_CMP_IMPROVEMENT, 0x2e7d32, "improvement", "better beyond the threshold" },
	{ NB_CMP_UNCHANGED, 0x546e7a, "unchanged", "the same within the threshold" },
	{ NB_CMP_CHANGED, 0x6a1b9a, "changed", "different beyond the threshold" },
	{ NB_CMP_INCONCLUSIVE, 0x9e9e9e, "inconclusive, no data", "inconclusive, no data" },
};
#define NVERDICT_COLOURS (sizeof(verdict_colours) / sizeof(verdict_colours[0]))

static size_t colour_index(const struct nb_cmp_cell *cell)
{
	for (size_t i = 0; i + 1 < NVERDICT_COLOURS; i++)
		if (cell->present && verdict_colours[i].v == cell->verdict)
			return i;
	return NVERDICT_COLOURS - 1;
}

unsigned nb_cmp_chart_rgb(const struct nb_cmp_cell *cell)
{
	return verdict_colours[colour_index(cell)].rgb;
}

static void dat_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.6g", v);
	else
		fprintf(f, " NaN");
}

/* One NEW cell: ratio, CI low, CI high, label y, "label", colour. */
static void dat_cell(FILE *f, const struct nb_cmp_row *row, const struct nb_cmp_cell *cell,
		     const struct yrange *y)
{
	double r = 1.0 + cell->change, lo = 1.0 + cell->ch_lo, hi = 1.0 + cell->ch_hi;
	char text[64];
	nb_cmp_fmt_change(row, cell, text, sizeof(text));
	if (!isfinite(r))
		snprintf(text, sizeof(text), "%s", cell->present ? nb_cmp_verdict_name(cell->verdict)
								: "absent");
	double top = isfinite(hi) ? hi : r, bottom = isfinite(lo) ? lo : r;
	double ly = !isfinite(r) ? 1.0 : r >= 1.0 ? top + y->pad * 0.3 : bottom - y->pad * 0.3;
	ly = fmax(ly, y->lo + y->pad * 0.3); /* a bar down to 0 keeps its label in view */
	dat_num(f, r);
	dat_num(f, lo);
	dat_num(f, hi);
	fprintf(f, " %.6g \"", ly);
	nb_chart_gp_str(f, text);
	fprintf(f, "\" %u", nb_cmp_chart_rgb(cell));
}

static const char *arrow(int col)
{
	enum nb_better b = col >= 0 ? nb_cols[col].better : NB_BETTER_NONE;
	return b == NB_BETTER_HIGHER ? " (↑ better)" : b == NB_BETTER_LOWER ? " (↓ better)" : "";
}

/* Columns: case (with its better direction), then per NEW folder: ratio lo hi label_y label
 * colour. */
static void write_dat(const struct nb_compare *c, FILE *f)
{
	struct yrange y = y_range(c);
	fprintf(f, "# nbrun compare: ratio to base and its 95 %% CI per NEW folder\n# case");
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(f, " \"%s\" lo hi label_y label colour", c->sides[s].name);
	fprintf(f, "\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		fprintf(f, "\"");
		nb_chart_gp_str(f, row->case_id);
		nb_chart_gp_str(f, arrow(row->col));
		fprintf(f, "\"");
		for (size_t s = 1; s < c->nsides; s++)
			dat_cell(f, row, &row->cells[s - 1], &y);
		fprintf(f, "\n");
	}
}

/* Every case compared on the same column gets it in the title. */
static const char *common_metric(const struct nb_compare *c)
{
	for (size_t i = 1; i < c->nrows; i++)
		if (strcmp(c->rows[i].metric, c->rows[0].metric) != 0)
			return NULL;
	return c->nrows ? c->rows[0].metric : NULL;
}

/* Each folder's host pair and day, and the version: "A: vm1 → 10.0.0.2, 2024-06-01 · ...". */
void nb_cmp_chart_context(FILE *gp, const struct nb_compare *c)
{
	for (size_t s = 0; s < c->nsides; s++) {
		const struct nb_results *r = &c->sides[s].res;
		const char *h = nb_facts_value(&r->local, "host", "hostname");
		char line[256];
		snprintf(line, sizeof(line), "%s%s: %s → %s, %.10s", s ? " · " : "", c->sides[s].name,
			 h ? h : "local", r->meta.peer ? r->meta.peer : "embedded agent",
			 r->meta.started ? r->meta.started : "date unknown");
		nb_chart_gp_str(gp, line);
	}
	const char *v = c->sides[0].res.meta.version;
	fputs(" · nbrun ", gp);
	nb_chart_gp_str(gp, v ? v : "(version unknown)");
}

static void gp_terminal(const struct nb_compare *c, FILE *f)
{
	int w = (int)(c->nrows * (c->nsides + 1) * 34 + 300);
	w = w < 1280 ? 1280 : w > 4000 ? 4000 : w;
	size_t longest = 0;
	for (size_t i = 0; i < c->nrows; i++)
		longest = strlen(c->rows[i].case_id) > longest ? strlen(c->rows[i].case_id) : longest;
	double bm = 3.0 + (double)(longest + 12) * 0.2, lm = (double)(longest + 12) * 0.45;
	bm = bm < 5.0 ? 5.0 : bm > 20.0 ? 20.0 : bm;
	lm = lm < 12.0 ? 12.0 : lm > 40.0 ? 40.0 : lm;
	fprintf(f, "# nbrun compare chart: run `gnuplot compare.gp` in this folder.\n"
		   "reset\nset encoding utf8\n"
		   "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		   "    set terminal pngcairo size %d,%d noenhanced font \"DejaVu Sans,12\" "
		   "background rgb \"white\"\n"
		   "} else {\n    set terminal png size %d,%d noenhanced background rgb \"white\"\n}\n"
		   "set output \"compare.png\"\nset bmargin %.1f\nset lmargin %.1f\n", w,
		600 + (int)(bm * 12), w, 600 + (int)(bm * 12), bm, lm);
	const char *m = common_metric(c);
	fprintf(f, "set title \"");
	nb_chart_gp_str(f, m ? m : "Headline metric of each case");
	fprintf(f, ": ratio to ");
	nb_chart_gp_str(f, c->sides[0].name);
	fprintf(f, " (1.00 = no change), 95 %% CI\\n");
	nb_cmp_chart_context(f, c);
	fprintf(f, "\" font \",15\"\n");
}

static void gp_preamble(const struct nb_compare *c, FILE *f)
{
	struct yrange y = y_range(c);
	gp_terminal(c, f);
	fprintf(f, "set ylabel \"ratio to ");
	nb_chart_gp_str(f, c->sides[0].name);
	fprintf(f, "\"\nset border 3 lw 1.2 lc rgb \"#404040\"\n"
		   "set tics nomirror out scale 0.6 textcolor rgb \"#303030\"\n"
		   "set xtics rotate by 30 right font \",10\"\n"
		   "set grid ytics lt 1 lw 1 lc rgb \"#e6e6e6\"\n"
		   "set key outside right top vertical Left reverse samplen 2 width 1 nobox\n"
		   "set style fill solid 0.85 border rgb \"#505050\"\n"
		   "set yrange [%.6g:%.6g]\nset format y \"%%.2f\"\n"
		   "set xrange [-0.6:%zu.6]\n", y.lo, y.hi, c->nrows ? c->nrows - 1 : 0);
	double t = c->threshold;
	fprintf(f, "set object 1 rectangle from graph 0, first %.6g to graph 1, first %.6g "
		   "fillcolor rgb \"#fdf1d8\" fillstyle solid 1.0 noborder behind\n"
		   "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead "
		   "lc rgb \"#707070\" dt 2 lw 1.2 front\n",
		1.0 - t, 1.0 + t);
}

/* The key: the threshold band, each verdict colour the bars use, each folder's fill. */
static void gp_key(const struct nb_compare *c, FILE *f)
{
	bool used[NVERDICT_COLOURS] = { false };
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++)
			used[colour_index(&c->rows[i].cells[s - 1])] = true;
	fprintf(f, ", \\\n     NaN with boxes fs solid 1.0 border rgb \"#d9b45f\" "
		   "lc rgb \"#fdf1d8\" title \"±%.4g %% threshold\"", c->threshold * 100.0);
	for (size_t k = 0; k < NVERDICT_COLOURS; k++)
		if (used[k])
			fprintf(f, ", \\\n     NaN with boxes fs solid 0.85 lc rgb \"#%06x\" title \"%s\"",
				verdict_colours[k].rgb,
				c->neutral ? verdict_colours[k].neutral : verdict_colours[k].name);
	for (size_t s = 1; c->nsides > 2 && s < c->nsides; s++) {
		char fill[32];
		fill_style(fill, sizeof(fill), s, c->nsides - 1);
		fprintf(f, ", \\\n     NaN with boxes %s lc rgb \"#505050\" title \"", fill);
		nb_chart_gp_str(f, c->sides[s].name);
		fprintf(f, "\"");
	}
}

/* Bar s of N sits at x + dx, dx = (s - 1 - (N - 1) / 2) * width. */
static void gp_plot(const struct nb_compare *c, FILE *f)
{
	size_t nnew = c->nsides - 1;
	double width = 0.8 / (double)nnew, half = width * 0.42;
	fprintf(f, "plot 'compare.dat' using 0:(NaN):xtic(1) notitle");
	for (size_t s = 1; s < c->nsides; s++) {
		size_t k = 6 * (s - 1) + 2;
		double dx = ((double)(s - 1) - (double)(nnew - 1) / 2.0) * width;
		char fill[32];
		fill_style(fill, sizeof(fill), s, nnew);
		fprintf(f, ", \\\n     '' using ($0%+.4f):(($%zu+1)/2):($0%+.4f):($0%+.4f):(1):%zu:%zu "
			   "with boxxyerror %s lc rgb variable notitle", dx, k, dx - half, dx + half, k,
			k + 5, fill);
		fprintf(f, ", \\\n     '' using ($0%+.4f):%zu:(0):($%zu-$%zu) with vectors heads "
			   "size screen 0.006,90 lc rgb \"#202020\" lw 1.3 notitle", dx, k + 1, k + 2,
			k + 1);
		fprintf(f, ", \\\n     '' using ($0%+.4f):%zu:%zu:%zu with labels font \",10\" "
			   "tc rgb variable notitle", dx, k + 3, k + 4, k + 5);
	}
	gp_key(c, f);
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

void nb_compare_chart_dir(const char *out, char *dir, size_t len)
{
	const char *slash = strrchr(out, '/'), *name = slash ? slash + 1 : out;
	const char *dot = strrchr(name, '.');
	size_t stem = dot && dot != name ? (size_t)(dot - out) : strlen(out);
	snprintf(dir, len, "%.*s-charts", (int)stem, out);
}
