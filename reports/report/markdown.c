#include "markdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "path_stats.h"

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
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

static size_t runs_with(const struct nb_results *res, const char *status)
{
	size_t n = 0;
	for (size_t i = 0; i < res->nruns; i++)
		n += strcmp(res->runs[i].status, status) == 0;
	return n;
}

static void status_text(FILE *f, const struct nb_meta *m)
{
	if (!m->complete_known)
		fputs("unknown (meta.json does not say whether the batch finished)", f);
	else if (m->complete)
		fputs("complete", f);
	else if (m->stopped) {
		fputs("**incomplete** — interrupted by ", f);
		nb_md_text(f, m->stopped);
		fputs("; this report covers the rows that were written, and `nbrun resume` runs the "
		      "rest", f);
	}
	else
		fputs("**incomplete** — the batch stopped early; this report covers the rows that were "
		      "written, and `nbrun resume` runs the rest", f);
}

static void title(FILE *f, const struct nb_results *res)
{
	const struct nb_meta *m = &res->meta;
	char name[256];
	dir_name(res->dir, name, sizeof(name));
	fprintf(f, "# nbrun report: ");
	nb_md_cell(f, m->config_name ? m->config_name : name);
	fputs("\n\n", f);
	nb_md_text(f, or_unknown(m->started));
	fputs(" → ", f);
	nb_md_text(f, or_unknown(m->finished));
	fputs(" UTC · peer ", f);
	nb_md_cell(f, m->peer ? m->peer : "loopback (embedded agent)");
	fprintf(f, " · ");
	status_text(f, m);
	fprintf(f, "\n\n");
}

/* Cases with a spread above the instability threshold; *spread: cases with a spread at all. */
static size_t unstable_cases(const struct nb_summary *s, size_t *spread)
{
	size_t n = 0;
	*spread = 0;
	for (size_t i = 0; i < s->n; i++) {
		*spread += s->c[i].value.n >= 2;
		n += s->c[i].value.n >= 2 && nb_stats_cv(&s->c[i].value) > NB_PITFALLS_CV_DEFAULT;
	}
	return n;
}

static void verdict_warnings(FILE *f, const struct nb_pitfalls *pf)
{
	struct nb_pitfall_group *g;
	size_t n;
	if (!pf || pf->n == 0 || !nb_pitfalls_group(pf, &g, &n)) {
		fputs(" No pitfall was found in the environment or the results.", f);
		return;
	}
	fprintf(f, " %zu pitfall%s (", n, plural(n));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", g[i].first->code);
	fputs(") — read the warnings before quoting a number.", f);
	nb_pitfalls_groups_free(g, n);
}

/* One paragraph: is the batch whole, did every case measure, is it stable, what to watch. */
static void verdict(FILE *f, const struct nb_results *res, const struct nb_summary *s,
		    const struct nb_pitfalls *pf)
{
	size_t measured = 0, failed = runs_with(res, "failed"), cut = runs_with(res, "interrupted");
	for (size_t i = 0; i < s->n; i++)
		measured += s->c[i].value.n > 0 || s->c[i].n_trials > 0;
	fprintf(f, "**Verdict:** %zu of %zu case%s measured in %zu run%s", measured, s->n, plural(s->n),
		res->nruns, plural(res->nruns));
	if (failed && cut)
		fprintf(f, " (%zu failed, %zu interrupted)", failed, cut);
	else if (failed || cut)
		fprintf(f, " (%zu %s)", failed + cut, failed ? "failed" : "interrupted");
	fputs(res->meta.complete_known && !res->meta.complete ? "; the batch is incomplete." : ".", f);
	size_t spread, unstable = unstable_cases(s, &spread);
	if (unstable)
		fprintf(f, " %zu case%s by more than %g %% (CV) between repetitions.", unstable,
			unstable == 1 ? " varies" : "s vary", NB_PITFALLS_CV_DEFAULT * 100.0);
	else if (spread)
		fprintf(f, " Every case with repetitions varies by at most %g %% (CV).",
			NB_PITFALLS_CV_DEFAULT * 100.0);
	else
		fputs(" No case has two repetitions, so no spread is known.", f);
	verdict_warnings(f, pf);
	if (res->incomplete)
		fprintf(f, " %zu incomplete row%s skipped.", res->incomplete, plural(res->incomplete));
	fputs("\n\n", f);
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

static void differences(FILE *f, const struct nb_facts *l, const struct nb_facts *p)
{
	fprintf(f, "### Differences between the ends\n\n");
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

/* One row of the differences between hosts: the fact, then each host's value. */
struct host_rows {
	FILE *f;
	size_t n;
};

static void host_row(void *ctx, const struct nb_fact *x, const struct nb_fact *const *each)
{
	struct host_rows *r = ctx;
	char name[sizeof(x->group) + sizeof(x->key) + 1];
	snprintf(name, sizeof(name), "%s.%s", x->group, x->key);
	fputs("| ", r->f);
	nb_md_cell(r->f, name);
	for (size_t i = 0; i < r->n; i++) {
		fputs(" | ", r->f);
		fact_cell(r->f, each[i]);
	}
	fputs(" |\n", r->f);
}

/* Local and every agent host: one column each, only the facts that differ (env.json has all). */
static void host_differences(FILE *f, const struct nb_results *res)
{
	const struct nb_env_hosts *h = &res->hosts;
	const struct nb_facts **sets = calloc(h->n + 1, sizeof(*sets));
	char *buf = NULL;
	size_t len = 0, n = 0;
	bool nomem = !sets;
	FILE *mem = sets ? open_memstream(&buf, &len) : NULL;
	struct host_rows rows = { mem, h->n + 1 };
	for (size_t i = 0; mem && i <= h->n; i++)
		sets[i] = i ? &h->facts[i - 1] : &res->local;
	if (mem) {
		n = nb_facts_diff_hosts(sets, h->n + 1, host_row, &rows, &nomem);
		fclose(mem);
	}
	fprintf(f, "### Differences between hosts\n\n");
	if (!mem || nomem)
		fprintf(f, "The differences could not be listed (out of memory); env.json has them.\n\n");
	else if (n == 0)
		fprintf(f, "No differences in the recorded facts.\n\n");
	else {
		fprintf(f, "| Fact | local");
		for (size_t i = 0; i < h->n; i++) {
			fputs(" | ", f);
			nb_md_cell(f, h->names[i]);
		}
		fprintf(f, " |\n|---|---");
		for (size_t i = 0; i < h->n; i++)
			fputs("|---", f);
		fprintf(f, "|\n%s\n", buf);
	}
	free(buf);
	free(sets);
}

/* "**Hosts:** local (runner); agents: `A`, `B`." when env.json names its hosts. */
static void host_names(FILE *f, const struct nb_env_hosts *h)
{
	if (h->n == 0)
		return;
	fprintf(f, "**Hosts:** local (runner); agent%s: ", plural(h->n));
	for (size_t i = 0; i < h->n; i++) {
		fputs(i ? ", " : "", f);
		nb_md_code(f, h->names[i]);
	}
	fputs(".\n\n", f);
}

/* The differences stay in view; the full table of local and path 0's agent is folded (with
 * more agent hosts, every host's full facts are in env.json). */
static void environment(FILE *f, const struct nb_results *res)
{
	fprintf(f, "## Environment\n\n");
	if (!res->have_env) {
		fprintf(f, "The environment facts were not recorded (no readable env.json).\n\n");
		return;
	}
	const struct nb_facts *l = &res->local, *p = &res->peer;
	host_names(f, &res->hosts);
	if (res->hosts.n > 1)
		host_differences(f, res);
	else
		differences(f, l, p);
	if (res->hosts.n > 1)
		fprintf(f, "<details>\n<summary>Every fact of local and the first path's agent (%zu; "
			   "every host's are in env.json)</summary>\n\n", l->n);
	else
		fprintf(f, "<details>\n<summary>Every fact of both ends (%zu)</summary>\n\n", l->n);
	fprintf(f, "| Group | Fact | Local (client) | Peer (agent) |\n|---|---|---|---|\n");
	for (size_t i = 0; i < l->n; i++)
		fact_row(f, &l->v[i], nb_facts_get(p, l->v[i].group, l->v[i].key));
	for (size_t i = 0; i < p->n; i++)
		if (!nb_facts_get(l, p->v[i].group, p->v[i].key))
			fact_row(f, NULL, &p->v[i]);
	fprintf(f, "\n</details>\n\n");
}

static void warning_line(FILE *f, const struct nb_pitfall_group *g)
{
	fprintf(f, "- ⚠️ **");
	nb_md_cell(f, g->first->code);
	fprintf(f, "**");
	for (size_t k = 0; k < g->ncases; k++) {
		fputs(k ? ", " : " (", f);
		nb_md_code(f, g->cases[k]);
	}
	fprintf(f, "%s: ", g->ncases ? ")" : "");
	nb_md_cell(f, g->first->text);
	char more[48];
	if (nb_pitfalls_more(g, more, sizeof(more))[0])
		fprintf(f, " (%s; each is in results.json)", more);
	fprintf(f, "\n");
	for (size_t k = 0; k < g->nalso; k++) { /* the same case's other end or direction */
		fputs("  - ", f);
		nb_md_cell(f, g->also[k]->text);
		fputc('\n', f);
	}
}

static void warnings(FILE *f, const struct nb_pitfalls *pf)
{
	fprintf(f, "## Warnings\n\n");
	struct nb_pitfall_group *g = NULL;
	size_t n = 0;
	if (!pf || pf->n == 0 || !nb_pitfalls_group(pf, &g, &n)) {
		fprintf(f, "No pitfall was found in the environment or the results.\n\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
		warning_line(f, &g[i]);
	fprintf(f, "\n");
	nb_pitfalls_groups_free(g, n);
}

static void batch(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	const struct nb_meta *m = &res->meta;
	fputs("## Batch\n\n- **nbrun version:** ", f);
	nb_md_text(f, or_unknown(m->version));
	fputs("\n- **Command:** ", f);
	nb_md_code(f, m->command);
	fprintf(f, "\n- **Config:** ");
	nb_md_cell(f, m->config_name);
	fprintf(f, " (sha256 ");
	nb_md_code(f, m->config_sha256);
	fprintf(f, ")\n- **Status:** ");
	status_text(f, m);
	if (m->resumed) {
		fputs(" (resumed ", f);
		nb_md_text(f, m->resumed);
		fputs(")", f);
	}
	size_t failed = runs_with(res, "failed");
	fprintf(f, "\n- **Contents:** %zu case%s, %zu run%s (%zu failed)", s->n, plural(s->n),
		res->nruns, plural(res->nruns), failed);
	if (res->incomplete)
		fprintf(f, ", %zu incomplete row%s skipped", res->incomplete, plural(res->incomplete));
	fprintf(f, "\n\n");
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
	fprintf(f, "## Method\n\n");
	if (nb_md_timing_common(s))
		fputs("- **Timing and repetitions:** the same for every case, as Conditions says.\n", f);
	else
		fputs("| Test | Engine | Duration | Warm-up | Omitted | Interval | Repetitions |\n"
		      "|---|---|---|---|---|---|---|\n", f);
	for (size_t i = 0; i < s->n && !nb_md_timing_common(s); i++) {
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(s->c[k].pc->test, s->c[i].pc->test) != 0;
		if (first)
			method_row(f, s->c[i].pc);
	}
	fputs(nb_md_timing_common(s) ? "- **Run order:** " : "\n- **Run order:** ", f);
	nb_md_text(f, res->meta.order ? res->meta.order : "unknown");
	fputs(".\n", f);
	fprintf(f, "- **Statistics:** each result is the mean of independent repetitions (a repetition "
		   "is one full run: warm-up, then the measured duration; omitted intervals are "
		   "excluded). stddev is the sample standard deviation (n − 1), CV = stddev / mean, and "
		   "the 95 %% confidence interval of the mean uses Student's t with n − 1 degrees of "
		   "freedom, mean ± t(0.975, n − 1) · stddev / √n; no measured value can be negative, so "
		   "an interval reaching below 0 is cut at 0 and marked *n too small* (cutting it keeps "
		   "its 95 %% coverage). Intervals and packets of one run are never treated as independent samples. "
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
	title(f, res);
	nb_md_key_numbers(f, res, s);
	verdict(f, res, s, pf);
	nb_md_working(f, res);
	nb_md_conditions(f, res, s);
	nb_md_results(f, res, s);
	nb_md_loss_budget(f, res, s);
	nb_md_ip_capacity(f, res, s);
	nb_md_rfc6349(f, res, s);
	nb_path_stats_md(f, res, s);
	warnings(f, pf);
	nb_md_charts(f, charts);
	environment(f, res);
	batch(f, res, s);
	method(f, res, s);
	return nb_afile_commit(&a, err);
}
