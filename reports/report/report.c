#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "html.h"
#include "json.h"
#include "markdown.h"
#include "path_stats.h"
#include "pitfalls.h"
#include "pitfalls_runs.h"
#include "results.h"
#include "summary.h"

static bool check_pitfalls(const struct nb_results *res, const struct nb_summary *s,
			   struct nb_pitfalls *pf)
{
	struct nb_pitfall_case *cases = calloc(s->n + 1, sizeof(*cases));
	char (*variants)[64] = calloc(s->n + 1, sizeof(*variants));
	bool ok = cases && variants;
	if (ok) {
		nb_summary_pitfall_cases(s, cases, variants);
		/* several agent hosts: each by its name, not path 0's host as "the peer" */
		const struct nb_env_hosts *h = &res->hosts;
		struct nb_pitfall_host *hosts = h->n >= 2 ? calloc(h->n, sizeof(*hosts)) : NULL;
		ok = (h->n < 2 || hosts) &&
		     nb_pitfalls_check(&res->local, !hosts && res->peer.n ? &res->peer : NULL, cases,
				       s->n, NB_PITFALLS_CV_DEFAULT, pf);
		for (size_t i = 0; hosts && i < h->n; i++)
			hosts[i] = (struct nb_pitfall_host){ h->names[i], &h->facts[i] };
		if (ok && hosts)
			ok = nb_pitfalls_check_hosts(&res->local, hosts, h->n, pf);
		ok = ok && nb_path_stats_pitfalls(res, s, pf);
		ok = ok && nb_pitfalls_check_runs(res, pf);
		free(hosts);
	}
	free(cases);
	free(variants);
	return ok;
}

static void fill_info(struct nb_report_info *info, const struct nb_results *res,
		      const struct nb_charts *ch, const struct nb_pitfalls *pf)
{
	info->cases = res->ncases;
	info->runs = res->nruns;
	for (size_t i = 0; i < res->nruns; i++)
		info->failed_runs += strcmp(res->runs[i].status, "failed") == 0;
	info->incomplete_rows = res->incomplete;
	info->charts = ch->n;
	info->charts_rendered = ch->rendered;
	info->gnuplot = ch->gnuplot;
	info->warnings = pf->n;
	struct nb_pitfall_group *g;
	if (nb_pitfalls_group(pf, &g, &info->warning_codes))
		nb_pitfalls_groups_free(g, info->warning_codes);
	const char *note = res->nproblems ? res->problems[0] : ch->problem;
	snprintf(info->note, sizeof(info->note), "%s", note);
}

static bool write_all(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		      struct nb_pitfalls *pf, struct nb_charts *ch, struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/" NB_SUMMARY_CSV_FILE, dir);
	if (!nb_summary_write_csv(res, s, path, err))
		return false;
	if (!check_pitfalls(res, s, pf))
		return nb_error_set(err, "pitfall checks: out of memory");
	if (!nb_charts_write(dir, res, s, ch, err))
		return false;
	nb_charts_render(dir, ch);
	snprintf(path, sizeof(path), "%s/" NB_MARKDOWN_FILE, dir);
	if (!nb_markdown_write(path, res, s, pf, ch, err))
		return false;
	char html[4096];
	size_t drawn;
	snprintf(html, sizeof(html), "%s/" NB_HTML_FILE, dir);
	if (!nb_html_write(dir, path, html, &drawn, err))
		return false;
	snprintf(path, sizeof(path), "%s/" NB_JSON_FILE, dir);
	return nb_json_write(path, res, s, pf, err);
}

bool nb_report_build(const char *dir, struct nb_report_info *info, struct nb_error *err)
{
	return nb_report_build_warn(dir, info, NULL, err);
}

bool nb_report_build_warn(const char *dir, struct nb_report_info *info, FILE *warnings,
			  struct nb_error *err)
{
	memset(info, 0, sizeof(*info));
	struct nb_results res;
	if (!nb_results_load(dir, &res, err))
		return false;
	struct nb_summary s;
	if (!nb_summary_compute(&res, &s, err)) {
		nb_results_free(&res);
		return false;
	}
	struct nb_pitfalls pf = { 0 };
	struct nb_charts ch = { 0 };
	bool ok = write_all(dir, &res, &s, &pf, &ch, err);
	fill_info(info, &res, &ch, &pf);
	if (warnings)
		nb_pitfalls_print(&pf, warnings);
	nb_charts_free(&ch);
	nb_pitfalls_free(&pf);
	nb_summary_free(&s);
	nb_results_free(&res);
	return ok;
}
