/* The paths of multi-path runs (see path_stats.h). */
#include "path_stats.h"

#include <math.h>
#include <string.h>

#include "fmt.h"
#include "json_value.h"
#include "md_text.h"

/* The metric column of each nb_path_col. */
static const enum nb_col path_cols[NB_PATH_NCOLS] = {
	[NB_PATH_LOSS_PCT] = NB_COL_LOSS_PCT, [NB_PATH_LOST] = NB_COL_LOST,
	[NB_PATH_JITTER_US] = NB_COL_JITTER_US, [NB_PATH_RETRANS] = NB_COL_RETRANS,
};

/* The counted run (the sum) with run_id, or NULL. */
static const struct nb_run *run_of(const struct nb_results *res, uint32_t run_id)
{
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].run_id == run_id)
			return &res->runs[i];
	return NULL;
}

static struct nb_path_stats *slot(struct nb_path_stats *out, size_t *n, size_t max, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(out[i].path, path) == 0)
			return &out[i];
	if (*n >= max)
		return NULL;
	out[*n] = (struct nb_path_stats){ .path = path };
	nb_stats_init(&out[*n].value);
	for (int k = 0; k < NB_PATH_NCOLS; k++)
		nb_stats_init(&out[*n].col[k]);
	return &out[(*n)++];
}

size_t nb_path_stats_of_case(const struct nb_results *res, size_t ci, struct nb_path_stats *out,
			size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < res->npath_runs; i++) {
		const struct nb_run *p = &res->path_runs[i];
		const struct nb_run *run = run_of(res, p->run_id);
		if (!run || run->case_idx != ci || nb_run_kind_swept(p->kind))
			continue;
		struct nb_path_stats *ps = slot(out, &n, max, p->path);
		if (!ps)
			continue;
		if (strcmp(p->status, "failed") == 0) {
			ps->n_failed++;
			ps->last_error = p->error;
		} else if (nb_run_counts(run) && nb_run_counts(p) && isfinite(p->value)) {
			nb_stats_add(&ps->value, p->value);
			for (int k = 0; k < NB_PATH_NCOLS; k++)
				nb_stats_add(&ps->col[k], p->m.v[path_cols[k]]);
		}
	}
	return n;
}

json_t *nb_path_stats_json(const struct nb_results *res, const struct nb_case_stats *c)
{
	struct nb_path_stats ps[NB_REPORT_PATHS_MAX];
	size_t n = nb_path_stats_of_case(res, (size_t)(c->pc - res->cases), ps, NB_REPORT_PATHS_MAX);
	json_t *a = json_array();
	double sum = nb_stats_mean(&c->value);
	for (size_t i = 0; a && i < n; i++) {
		const struct nb_stats *v = &ps[i].value;
		double mean = nb_stats_mean(v);
		json_array_append_new(a, json_pack("{s:s s:I s:I s:o s:o s:o s:o s:o}", "path", ps[i].path,
			"n", (json_int_t)v->n, "n_failed", (json_int_t)ps[i].n_failed,
			"mean", nb_json_number(mean), "stddev", nb_json_number(nb_stats_stddev(v)),
			"min", nb_json_number(v->n ? v->min : NAN), "max", nb_json_number(v->n ? v->max : NAN),
			"share_pct", nb_json_number(sum > 0 ? 100.0 * mean / sum : NAN)));
	}
	return a;
}

/* A loss, count, jitter or retransmit cell: "39.4 %", "1523", "0.62 µs". */
static void extra_cell(FILE *f, enum nb_path_col k, double v)
{
	if (!isfinite(v))
		fputs(" — |", f);
	else if (k == NB_PATH_LOSS_PCT)
		fprintf(f, v >= 100.0 || v == 0.0 ? " %.0f %% |" : " %.3g %% |", v);
	else if (k == NB_PATH_JITTER_US)
		nb_md_value_cell(f, v, "us");
	else
		fprintf(f, " %.0f |", v);
}

static const char *const extra_head[NB_PATH_NCOLS] = {
	[NB_PATH_LOSS_PCT] = "Loss", [NB_PATH_LOST] = "Lost", [NB_PATH_JITTER_US] = "Jitter",
	[NB_PATH_RETRANS] = "Retransmits",
};

/* The columns any path of the case measured (UDP: loss, lost, jitter; TCP: retransmits). */
static void shown(const struct nb_path_stats *ps, size_t n, bool show[NB_PATH_NCOLS])
{
	for (int k = 0; k < NB_PATH_NCOLS; k++) {
		show[k] = false;
		for (size_t i = 0; i < n && !show[k]; i++)
			show[k] = ps[i].col[k].n > 0;
	}
}

static void table_head(FILE *f, const struct nb_case_stats *c, const bool show[NB_PATH_NCOLS])
{
	fprintf(f, "### ");
	nb_md_cell(f, c->pc->case_id);
	fprintf(f, "\n\n| Path | %s (mean) | ± stddev |",
		c->metric_col >= 0 ? nb_cols[c->metric_col].label : "Headline");
	for (int k = 0; k < NB_PATH_NCOLS; k++)
		if (show[k])
			fprintf(f, " %s |", extra_head[k]);
	fprintf(f, " Share of the sum | n | Failed |\n|---|---:|---:|");
	for (int k = 0; k < NB_PATH_NCOLS; k++)
		if (show[k])
			fputs("---:|", f);
	fputs("---:|---:|---|\n", f);
}

/* One case's table: each path's mean headline, its loss, jitter or retransmits (means over
 * the same runs), its share of the sum, n and failures. */
static void case_table(FILE *f, const struct nb_case_stats *c, const struct nb_path_stats *ps,
		       size_t n)
{
	const char *unit = c->metric_col >= 0 ? nb_cols[c->metric_col].unit : "";
	double sum = nb_stats_mean(&c->value);
	bool show[NB_PATH_NCOLS];
	shown(ps, n, show);
	table_head(f, c, show);
	for (size_t i = 0; i < n; i++) {
		double mean = nb_stats_mean(&ps[i].value);
		fprintf(f, "| ");
		nb_md_cell(f, ps[i].path);
		fprintf(f, " |");
		nb_md_value_cell(f, mean, unit);
		nb_md_value_cell(f, ps[i].value.n >= 2 ? nb_stats_stddev(&ps[i].value) : NAN, unit);
		for (int k = 0; k < NB_PATH_NCOLS; k++)
			if (show[k])
				extra_cell(f, (enum nb_path_col)k, nb_stats_mean(&ps[i].col[k]));
		if (sum > 0 && isfinite(mean))
			fprintf(f, " %.1f %% |", 100.0 * mean / sum);
		else
			fputs(" — |", f);
		fprintf(f, " %zu | ", ps[i].value.n);
		if (ps[i].n_failed) {
			fprintf(f, "%zu: ", ps[i].n_failed);
			nb_md_cell(f, ps[i].last_error ? ps[i].last_error : "");
		}
		fprintf(f, " |\n");
	}
	fprintf(f, "| **all (the sum)** |");
	nb_md_value_cell(f, sum, unit);
	nb_md_value_cell(f, c->value.n >= 2 ? nb_stats_stddev(&c->value) : NAN, unit);
	for (int k = 0; k < NB_PATH_NCOLS; k++)
		if (show[k])
			extra_cell(f, (enum nb_path_col)k, c->metric_mean[path_cols[k]]);
	fprintf(f, " 100 %% | %zu | %zu |\n\n", c->value.n, c->n_failed);
}

/* Each agent's clock against the runner's, as measured when the batch began. */
static void clocks(FILE *f, const struct nb_meta *m)
{
	fprintf(f, "Each agent's clock against the runner's, over its control connection when the "
		   "batch began (of several exchanges, the one with the shortest round trip):\n\n"
		   "| Path | Clock offset | Control round trip |\n|---|---:|---:|\n");
	for (size_t i = 0; i < m->npaths; i++) {
		fprintf(f, "| ");
		nb_md_cell(f, m->paths[i].name ? m->paths[i].name : "?");
		fprintf(f, " |");
		nb_md_value_cell(f, m->paths[i].clock_offset_us, "us");
		nb_md_value_cell(f, m->paths[i].control_rtt_us, "us");
		fputc('\n', f);
	}
	fputc('\n', f);
}

void nb_path_stats_md(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		struct nb_path_stats ps[NB_REPORT_PATHS_MAX];
		size_t n = nb_path_stats_of_case(res, i, ps, NB_REPORT_PATHS_MAX);
		if (n == 0)
			continue;
		if (!any)
			fprintf(f, "## Paths\n\nEvery path of a case started at the same instant and stopped "
				   "together; a case's result (above) is the sum over its paths. Each "
				   "path's own headline:\n\n");
		any = true;
		case_table(f, &s->c[i], ps, n);
	}
	if (any && res->meta.npaths > 1)
		clocks(f, &res->meta);
}

/* The paths of one case that lost least and most (mean loss % over its counted runs). */
static bool loss_extremes(const struct nb_path_stats *ps, size_t n, size_t *lo, size_t *hi)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!ps[i].col[NB_PATH_LOSS_PCT].n)
			continue;
		double v = nb_stats_mean(&ps[i].col[NB_PATH_LOSS_PCT]);
		if (!any || v < nb_stats_mean(&ps[*lo].col[NB_PATH_LOSS_PCT]))
			*lo = i;
		if (!any || v > nb_stats_mean(&ps[*hi].col[NB_PATH_LOSS_PCT]))
			*hi = i;
		any = true;
	}
	return any && *lo != *hi;
}

bool nb_path_stats_pitfalls(const struct nb_results *res, const struct nb_summary *s,
			    struct nb_pitfalls *out)
{
	for (size_t i = 0; i < s->n; i++) {
		struct nb_path_stats ps[NB_REPORT_PATHS_MAX];
		size_t n = nb_path_stats_of_case(res, i, ps, NB_REPORT_PATHS_MAX), lo = 0, hi = 0;
		if (n < 2 || !loss_extremes(ps, n, &lo, &hi))
			continue;
		double a = nb_stats_mean(&ps[lo].col[NB_PATH_LOSS_PCT]);
		double b = nb_stats_mean(&ps[hi].col[NB_PATH_LOSS_PCT]);
		if (!(b >= 2.0 * a && b - a >= 0.1))
			continue;
		char text[sizeof(out->v->text)];
		snprintf(text, sizeof(text), "path %s lost %.3g %% of its datagrams, path %s %.3g %% "
			 "(means over the runs): the case's %.3g %% is their sum, the loss is on one "
			 "path; look for the bottleneck on %s", ps[hi].path, b, ps[lo].path, a,
			 s->c[i].metric_mean[NB_COL_LOSS_PCT], ps[hi].path);
		if (!nb_pitfalls_add_text(out, "path-loss", s->c[i].pc->case_id, text))
			return false;
	}
	return true;
}
