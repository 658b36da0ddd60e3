#include "markdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"

void nb_md_cell(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("—", f);
		return;
	}
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, f);
	}
}

void nb_md_code(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("—", f);
		return;
	}
	fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '`' ? '\'' : (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s, f);
	}
	fputc('`', f);
}

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

static void dir_name(const char *dir, char *out, size_t len)
{
	if (snprintf(out, len, "%s", dir) < 0)
		out[0] = '\0';
	size_t n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	const char *b = strrchr(out, '/');
	if (b)
		memmove(out, b + 1, strlen(b + 1) + 1);
}

static void header(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	const struct nb_meta *m = &res->meta;
	size_t failed = 0;
	for (size_t i = 0; i < res->nruns; i++)
		failed += strcmp(res->runs[i].status, "failed") == 0;
	char name[256];
	dir_name(res->dir, name, sizeof(name));
	fprintf(f, "# nbrun report: ");
	nb_md_cell(f, m->config_name ? m->config_name : name);
	fprintf(f, "\n\n- **Date (UTC):** %s → %s\n", or_unknown(m->started), or_unknown(m->finished));
	fprintf(f, "- **nbrun version:** %s\n- **Command:** ", or_unknown(m->version));
	nb_md_code(f, m->command);
	fprintf(f, "\n- **Config:** ");
	nb_md_cell(f, m->config_name);
	fprintf(f, " (sha256 ");
	nb_md_code(f, m->config_sha256);
	fprintf(f, ")\n- **Peer:** ");
	nb_md_cell(f, m->peer ? m->peer : "loopback (embedded agent)");
	fprintf(f, "\n- **Status:** %s\n",
		!m->complete_known ? "unknown (meta.json does not say whether the run finished)"
		: m->complete ? "complete"
			      : "**incomplete** — the run was interrupted; this report covers the rows "
				"that were written");
	fprintf(f, "- **Contents:** %zu cases, %zu runs (%zu failed)", s->n, res->nruns, failed);
	if (res->incomplete)
		fprintf(f, ", %zu incomplete rows skipped", res->incomplete);
	fprintf(f, "\n\n");
}

static void fact_cell(FILE *f, const struct nb_fact *x)
{
	if (!x)
		fputs("—", f);
	else if (x->ok)
		nb_md_cell(f, x->value);
	else {
		fputs("_not known: ", f);
		nb_md_cell(f, x->value);
		fputs("_", f);
	}
}

static void fact_row(FILE *f, const struct nb_fact *l, const struct nb_fact *p)
{
	const struct nb_fact *any = l ? l : p;
	fputs("| ", f);
	nb_md_cell(f, any->group);
	fputs(" | ", f);
	nb_md_cell(f, any->key);
	fputs(" | ", f);
	fact_cell(f, l);
	fputs(" | ", f);
	fact_cell(f, p);
	fputs(" |\n", f);
}

static void diff_row(void *ctx, const struct nb_fact *l, const struct nb_fact *p)
{
	fact_row(ctx, l, p);
}

static void environment(FILE *f, const struct nb_results *res)
{
	fprintf(f, "## Environment\n\n");
	if (!res->have_env) {
		fprintf(f, "The environment facts were not recorded (no readable env.json).\n\n");
		return;
	}
	const struct nb_facts *l = &res->local, *p = &res->peer;
	fprintf(f, "| Group | Fact | Local (client) | Peer (agent) |\n|---|---|---|---|\n");
	for (size_t i = 0; i < l->n; i++)
		fact_row(f, &l->v[i], nb_facts_get(p, l->v[i].group, l->v[i].key));
	for (size_t i = 0; i < p->n; i++)
		if (!nb_facts_get(l, p->v[i].group, p->v[i].key))
			fact_row(f, NULL, &p->v[i]);
	fprintf(f, "\n### Differences between the ends\n\n");
	if (p->n == 0) {
		fprintf(f, "The peer's facts were not recorded, so the ends cannot be compared.\n\n");
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	size_t n = mem ? nb_facts_diff(l, p, diff_row, mem) : 0;
	if (mem)
		fclose(mem);
	if (n == 0)
		fprintf(f, "The two ends agree on every comparable fact.\n\n");
	else
		fprintf(f, "| Group | Fact | Local (client) | Peer (agent) |\n|---|---|---|---|\n%s\n", buf);
	free(buf);
}

static void warnings(FILE *f, const struct nb_pitfalls *pf)
{
	fprintf(f, "## Warnings\n\n");
	if (!pf || pf->n == 0) {
		fprintf(f, "No pitfall was found in the environment or the results.\n\n");
		return;
	}
	for (size_t i = 0; i < pf->n; i++) {
		fprintf(f, "- ⚠️ **");
		nb_md_cell(f, pf->v[i].code);
		fprintf(f, "**");
		if (pf->v[i].case_id[0]) {
			fprintf(f, " (");
			nb_md_code(f, pf->v[i].case_id);
			fprintf(f, ")");
		}
		fprintf(f, ": ");
		nb_md_cell(f, pf->v[i].text);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static void seconds(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%g s", v);
	else
		fputs("—", f);
}

static void method_row(FILE *f, const struct nb_plan_case *p)
{
	fputs("| ", f);
	nb_md_cell(f, p->test);
	fputs(" | ", f);
	nb_md_cell(f, p->engine);
	fputs(" | ", f);
	seconds(f, p->duration_s);
	fputs(" | ", f);
	seconds(f, p->warmup_s);
	fputs(" | ", f);
	seconds(f, p->omit_s);
	fputs(" | ", f);
	seconds(f, p->interval_s);
	fputs(" | ", f);
	if (p->autorep)
		fprintf(f, "auto: %u–%u, until the 95 %% CI is within ±%g %%", (unsigned)p->rep_min,
			(unsigned)p->rep_max, p->ci_target * 100.0);
	else
		nb_md_cell(f, p->repetitions);
	fputs(" |\n", f);
}

static void method(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	fprintf(f, "## Method\n\n| Test | Engine | Duration | Warm-up | Omitted | Interval | Repetitions |\n"
		   "|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < s->n; i++) {
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(s->c[k].pc->test, s->c[i].pc->test) != 0;
		if (first)
			method_row(f, s->c[i].pc);
	}
	fprintf(f, "\n- **Run order:** %s.\n", res->meta.order ? res->meta.order : "unknown");
	fprintf(f, "- **Statistics:** each result is the mean of independent repetitions (a repetition "
		   "is one full run: warm-up, then the measured duration; omitted intervals are "
		   "excluded). stddev is the sample standard deviation (n − 1), CV = stddev / mean, and "
		   "the 95 %% confidence interval of the mean uses Student's t with n − 1 degrees of "
		   "freedom. Intervals and packets of one run are never treated as independent samples. "
		   "Runs beyond 1.5 × IQR are flagged as outliers and kept. With n = 1 no spread is "
		   "reported.\n");
	fprintf(f, "- **Units:** throughput is payload received per second (Gbit/s = 10⁹ bit/s); "
		   "latency is the full round trip, measured in ns from the intended send time, and "
		   "its percentiles come from log-linear histograms (≤ 1 %% relative error) of all "
		   "repetitions merged.\n");
	for (size_t i = 0; i < res->nproblems; i++) {
		fprintf(f, "- **Note:** ");
		nb_md_cell(f, res->problems[i]);
		fprintf(f, "\n");
	}
	fprintf(f, "\n---\nGenerated by nbrun from the CSV files of this folder; `nbrun report DIR` "
		   "rebuilds it.\n");
}

bool nb_markdown_write(const char *path, const struct nb_results *res, const struct nb_summary *s,
		       const struct nb_pitfalls *pf, const struct nb_charts *charts,
		       struct nb_error *err)
{
	struct nb_afile a;
	if (!nb_afile_open(&a, path, err))
		return false;
	FILE *f = a.f;
	header(f, res, s);
	environment(f, res);
	warnings(f, pf);
	nb_md_results(f, res, s);
	nb_md_charts(f, charts);
	method(f, res, s);
	return nb_afile_commit(&a, err);
}
