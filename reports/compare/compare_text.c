/* nbrun — compare: the words and numbers every writer prints (Markdown, CSV, JSON, chart,
 * stderr), so that a change reads the same everywhere. */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

const char *nb_cmp_row_unit(const struct nb_cmp_row *row)
{
	if (row->unit)
		return row->unit;
	return row->col >= 0 ? nb_cols[row->col].unit : "";
}

const char *nb_cmp_better_name(int col)
{
	enum nb_better b = col >= 0 ? nb_cols[col].better : NB_BETTER_NONE;
	return b == NB_BETTER_HIGHER ? "higher" : b == NB_BETTER_LOWER ? "lower" : "none";
}

unsigned nb_cmp_cell_shows(const struct nb_cmp_cell *cell)
{
	return cell->test == NB_CMP_TEST_RANK ? NB_CMP_SHOW_MEDIAN : NB_CMP_SHOW_MEAN;
}

unsigned nb_cmp_base_shows(const struct nb_compare *c, const struct nb_cmp_row *row)
{
	unsigned show = 0;
	for (size_t s = 1; s < c->nsides; s++)
		if (row->cells[s - 1].present)
			show |= nb_cmp_cell_shows(&row->cells[s - 1]);
	return show ? show : NB_CMP_SHOW_MEAN;
}

/* The median alone (a rank verdict), or the mean ± stddev (a verdict on means): a row never
 * shows one statistic while its change is computed on the other. */
static void fmt_centre(const struct nb_cmp_row *row, const struct nb_cmp_sample *s, bool median,
		       char *buf, size_t len)
{
	const struct nb_stats *st = &s->st;
	double centre = median ? s->median : st->mean;
	struct nb_scale sc = nb_fmt_scale(nb_cmp_row_unit(row), centre);
	double m = centre / sc.div, sd = nb_stats_stddev(st) / sc.div;
	int d = nb_fmt_decimals(m, median ? NAN : sd);
	const char *sp = *sc.unit ? " " : "";
	if (median)
		snprintf(buf, len, "median %.*f%s%s", d, m, sp, sc.unit);
	else if (st->n < 2)
		snprintf(buf, len, "%.*f%s%s", d, m, sp, sc.unit);
	else
		snprintf(buf, len, "%.*f ± %.*f%s%s", d, m, d, sd, sp, sc.unit);
}

void nb_cmp_fmt_sample(const struct nb_cmp_row *row, const struct nb_cmp_sample *s, unsigned show,
		       char *buf, size_t len)
{
	if (s->st.n == 0) {
		snprintf(buf, len, "—");
		return;
	}
	char mean[64];
	fmt_centre(row, s, (show & NB_CMP_SHOW_MEDIAN) != 0, buf, len);
	if (show != (NB_CMP_SHOW_MEAN | NB_CMP_SHOW_MEDIAN))
		return;
	fmt_centre(row, s, false, mean, sizeof(mean));
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, " · %s", mean);
}

static void pct(double v, char *buf, size_t len)
{
	if (fabs(v) < 0.0005)
		snprintf(buf, len, "0.0");
	else
		snprintf(buf, len, "%+.1f", v * 100.0);
}

void nb_cmp_fmt_change(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell, char *buf,
		       size_t len)
{
	char v[48];
	if (!cell->present || cell->verdict == NB_CMP_NODATA || isnan(cell->diff)) {
		snprintf(buf, len, "—");
	} else if (isfinite(cell->change)) {
		pct(cell->change, v, sizeof(v));
		snprintf(buf, len, "%s %%", v);
	} else {
		nb_fmt_value(fabs(cell->diff), nb_cmp_row_unit(row), v, sizeof(v));
		snprintf(buf, len, "%s%s (base 0)", cell->diff < 0 ? "-" : "+", v);
	}
}

void nb_cmp_fmt_change_ci(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell, char *buf,
			  size_t len)
{
	char ch[64], lo[24], hi[24];
	nb_cmp_fmt_change(row, cell, ch, sizeof(ch));
	if (!isfinite(cell->change) || !isfinite(cell->ch_lo) || !isfinite(cell->ch_hi) ||
	    cell->verdict == NB_CMP_NODATA) {
		snprintf(buf, len, "%s", ch);
		return;
	}
	pct(cell->ch_lo, lo, sizeof(lo));
	pct(cell->ch_hi, hi, sizeof(hi));
	snprintf(buf, len, "%s (95 %% CI %s to %s %%%s)", ch, lo, hi, cell->clipped ? ", n too small" : "");
}

static double max_cv(const struct nb_cmp_sample *a, const struct nb_cmp_sample *b)
{
	double x = nb_stats_cv(&a->st), y = nb_stats_cv(&b->st);
	return isnan(x) ? y : isnan(y) ? x : fmax(x, y);
}

static void inconclusive_reason(const struct nb_compare *c, const struct nb_cmp_row *row,
				const struct nb_cmp_cell *cell, char *buf, size_t len)
{
	if (!isfinite(cell->detectable)) {
		snprintf(buf, len, "%s", cell->reason);
		return;
	}
	double cv = max_cv(&row->base, &cell->s);
	int n = isfinite(cv) ? snprintf(buf, len, "CV %.1f %%: ", cv * 100.0) : 0;
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "changes smaller than %.1f %% cannot be detected "
			 "with n = %zu/%zu", cell->detectable * 100.0, row->base.st.n, cell->s.st.n);
	(void)c;
}

static void nodata_reason(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell,
			  char *buf, size_t len)
{
	const struct nb_cmp_sample *x = row->base.st.n == 0 ? &row->base : &cell->s;
	const char *side = x == &row->base ? "base" : "new";
	if (x->runs == 0)
		snprintf(buf, len, "no run in %s", side);
	else if (x->failed == x->runs)
		snprintf(buf, len, "all %zu runs failed in %s%s%.150s", x->runs, side,
			 x->error ? ": " : "", x->error ? x->error : "");
	else
		snprintf(buf, len, "no %s in %s", row->metric, side);
}

void nb_cmp_fmt_reason(const struct nb_compare *c, const struct nb_cmp_row *row,
		       const struct nb_cmp_cell *cell, char *buf, size_t len)
{
	double t = c->threshold * 100.0;
	if (!cell->present)
		snprintf(buf, len, "not in this folder");
	else if (cell->verdict == NB_CMP_NODATA)
		nodata_reason(row, cell, buf, len);
	else if (cell->verdict == NB_CMP_DIFFERENT)
		snprintf(buf, len, "parameters differ: %s", cell->param_diff);
	else if (cell->verdict == NB_CMP_INCONCLUSIVE)
		inconclusive_reason(c, row, cell, buf, len);
	else if (!isfinite(cell->change))
		snprintf(buf, len, "%s", cell->reason);
	else if (cell->verdict == NB_CMP_UNCHANGED)
		snprintf(buf, len, "95 %% CI within ±%.4g %%", t);
	else
		snprintf(buf, len, "whole 95 %% CI beyond %s%.4g %%", cell->change < 0 ? "-" : "+", t);
}

/* "faster"/"slower" for rates and times, "higher"/"lower" for the rest. */
static const char *word(const struct nb_cmp_row *row, bool up)
{
	const char *u = nb_cmp_row_unit(row);
	size_t n = strlen(u);
	if (strcmp(u, "us") == 0)
		return up ? "slower" : "faster";
	if (n > 2 && strcmp(u + n - 2, "/s") == 0)
		return up ? "faster" : "slower";
	return up ? "higher" : "lower";
}

static bool rate_or_time(const struct nb_cmp_row *row)
{
	return strcmp(word(row, true), "higher") != 0;
}

void nb_cmp_fmt_verdict(const struct nb_compare *c, size_t side, const struct nb_cmp_row *row,
			const struct nb_cmp_cell *cell, char *buf, size_t len)
{
	enum nb_cmp_verdict v = cell->present ? cell->verdict : NB_CMP_NODATA;
	if (!c->neutral || v >= NB_CMP_INCONCLUSIVE)
		snprintf(buf, len, "%s", cell->present ? nb_cmp_verdict_name(v) : "not in this folder");
	else if (v == NB_CMP_UNCHANGED)
		snprintf(buf, len, "same");
	else
		snprintf(buf, len, "%s %s", c->sides[side].name, word(row, cell->diff > 0));
}

/* "6.0–7.6 %" when the CI lies on the side of the change, else from its low end to its high
 * end: "9.0 % slower to 1.2 % faster" (a rate), "1.2 % faster to 2.0 % slower" (a time). */
static void ci_words(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell, char *buf,
		     size_t len)
{
	double lo = cell->ch_lo * 100.0, hi = cell->ch_hi * 100.0;
	if (lo >= 0.0 || hi <= 0.0)
		snprintf(buf, len, "%.1f–%.1f %%", fmin(fabs(lo), fabs(hi)), fmax(fabs(lo), fabs(hi)));
	else
		snprintf(buf, len, "%.1f %% %s to %.1f %% %s", -lo, word(row, false), hi,
			 word(row, true));
}

static void sentence_tail(const struct nb_compare *c, const struct nb_cmp_cell *cell, char *buf,
			  size_t len)
{
	if (cell->verdict == NB_CMP_UNCHANGED)
		snprintf(buf, len, ": within ±%.4g %%", c->threshold * 100.0);
	else if (cell->verdict == NB_CMP_INCONCLUSIVE)
		snprintf(buf, len, ": inconclusive at this noise");
	else
		buf[0] = '\0';
}

void nb_cmp_sentence(const struct nb_compare *c, size_t side, const struct nb_cmp_row *row,
		     const struct nb_cmp_cell *cell, char *buf, size_t len)
{
	const char *a = c->sides[0].name, *b = c->sides[side].name;
	char ci[96], tail[64], reason[320];
	if (!cell->present || cell->verdict >= NB_CMP_NODATA || !isfinite(cell->change)) {
		nb_cmp_fmt_reason(c, row, cell, reason, sizeof(reason));
		snprintf(buf, len, "%s and %s cannot be compared on %s: %s", b, a, row->metric, reason);
		return;
	}
	const char *w = word(row, cell->change > 0), *how = cell->test == NB_CMP_TEST_RANK
								    ? " in the median" : "";
	sentence_tail(c, cell, tail, sizeof(tail));
	if (isfinite(cell->ch_lo) && isfinite(cell->ch_hi))
		ci_words(row, cell, ci, sizeof(ci));
	else
		snprintf(ci, sizeof(ci), "no CI: one run each");
	if (fabs(cell->change) < 0.0005)
		snprintf(buf, len, "%s is within 0.1 %% of %s%s (95 %% CI %s)%s", b, a, how, ci, tail);
	else if (rate_or_time(row))
		snprintf(buf, len, "%s is %.1f %% %s than %s%s (95 %% CI %s)%s", b,
			 fabs(cell->change) * 100.0, w, a, how, ci, tail);
	else
		snprintf(buf, len, "%s's %s is %.1f %% %s than %s's%s (95 %% CI %s)%s", b, row->metric,
			 fabs(cell->change) * 100.0, w, a, how, ci, tail);
}

struct tally {
	size_t n, up, down, same, unsure;
	double lo_up, hi_up, lo_down, hi_down;
};

static void tally_cell(struct tally *t, const struct nb_cmp_cell *cell)
{
	double m = fabs(cell->change) * 100.0;
	t->n++;
	if (cell->verdict == NB_CMP_UNCHANGED) {
		t->same++;
	} else if (cell->verdict == NB_CMP_INCONCLUSIVE || !isfinite(cell->change) ||
		   cell->verdict >= NB_CMP_NODATA) {
		t->unsure++;
	} else if (cell->change > 0) {
		t->lo_up = t->up++ ? fmin(t->lo_up, m) : m;
		t->hi_up = fmax(t->hi_up, m);
	} else {
		t->lo_down = t->down++ ? fmin(t->lo_down, m) : m;
		t->hi_down = fmax(t->hi_down, m);
	}
}

/* "slower than A in 2 (by 6.1–7.3 %)" */
static int group(char *buf, size_t len, const char *w, const char *than, size_t n, double lo,
		 double hi)
{
	if (n == 0)
		return snprintf(buf, len, "%s%s in none", w, than);
	if (n == 1)
		return snprintf(buf, len, "%s%s in 1 (by %.1f %%)", w, than, lo);
	return snprintf(buf, len, "%s%s in %zu (by %.1f–%.1f %%)", w, than, n, lo, hi);
}

void nb_cmp_metric_sentence(const struct nb_compare *c, size_t side, const char *metric,
			    char *buf, size_t len)
{
	struct tally t = { 0 };
	const struct nb_cmp_row *one = NULL;
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].metric, metric) == 0 && c->rows[i].cells[side - 1].present) {
			one = &c->rows[i];
			tally_cell(&t, &one->cells[side - 1]);
		}
	if (!one) {
		snprintf(buf, len, "no case of %s to compare", metric);
		return;
	}
	if (t.n == 1) {
		nb_cmp_sentence(c, side, one, &one->cells[side - 1], buf, len);
		return;
	}
	char than[80];
	snprintf(than, sizeof(than), " than %s", c->sides[0].name);
	int n = snprintf(buf, len, "over %zu cases, %s is ", t.n, c->sides[side].name);
	n += n >= 0 && (size_t)n < len ? group(buf + n, len - (size_t)n, word(one, false), than,
					       t.down, t.lo_down, t.hi_down) : 0;
	n += n >= 0 && (size_t)n < len ? snprintf(buf + n, len - (size_t)n, ", ") : 0;
	n += n >= 0 && (size_t)n < len ? group(buf + n, len - (size_t)n, word(one, true), "", t.up,
					       t.lo_up, t.hi_up) : 0;
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", the same within ±%.4g %% in %zu and not "
			 "distinguishable in %zu", c->threshold * 100.0, t.same, t.unsure);
}

void nb_cmp_fmt_diff(const struct nb_cmp_diff *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s: %s → %s", d->where, *d->where ? " " : "", d->key, d->from, d->to);
}

void nb_cmp_fmt_counts(const struct nb_compare *c, const size_t count[NB_CMP_NVERDICTS], char *buf,
		       size_t len)
{
	if (!c->neutral) {
		nb_cmp_summary_line(count, buf, len);
		return;
	}
	size_t beyond = count[NB_CMP_REGRESSION] + count[NB_CMP_IMPROVEMENT] + count[NB_CMP_CHANGED];
	double t = c->threshold * 100.0;
	int n = snprintf(buf, len, "%zu different beyond ±%.4g %%, %zu the same within ±%.4g %%", beyond,
			 t, count[NB_CMP_UNCHANGED], t);
	static const enum nb_cmp_verdict rest[] = { NB_CMP_INCONCLUSIVE, NB_CMP_NODATA,
						    NB_CMP_DIFFERENT };
	for (size_t k = 0; k < sizeof(rest) / sizeof(rest[0]); k++)
		if (n > 0 && (size_t)n < len && count[rest[k]])
			n += snprintf(buf + n, len - (size_t)n, ", %zu %s", count[rest[k]],
				      nb_cmp_verdict_name(rest[k]));
}
