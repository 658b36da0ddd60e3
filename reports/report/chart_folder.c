/* nbrun — the charts of a results folder (see chart.h): every kind's charts written into
 * charts/, then rendered with gnuplot. Kept apart from the helpers every kind uses (chart.c),
 * as this calls the kinds. */
#include "chart.h"
#include "chart_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "vm → 10.0.0.2 · 2024-05-01 · nbrun 0.1.0": the hosts, the day and the version every title
 * names, so that a chart copied into a slide still says what it measured. */
static void context(const struct nb_results *res, char *out, size_t len)
{
	const struct nb_meta *m = &res->meta;
	const char *local = nb_facts_value(&res->local, "host", "hostname");
	char peer[96];
	if (res->hosts.n > 1)
		snprintf(peer, sizeof(peer), "%zu agent hosts", res->hosts.n);
	else
		snprintf(peer, sizeof(peer), "%s", m->peer ? m->peer : "embedded agent");
	snprintf(out, len, "%s → %s · %.10s · nbrun %s", local ? local : "local", peer,
		 m->started ? m->started : "date unknown", m->version ? m->version : "(version unknown)");
}

bool nb_charts_write(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *out, struct nb_error *err)
{
	memset(out, 0, sizeof(*out));
	char path[4096];
	snprintf(path, sizeof(path), "%s/" NB_CHART_DIR, dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return nb_error_errno(err, errno, "cannot create %s", path);
	context(res, out->context, sizeof(out->context));
	return nb_charts_xy(dir, res, s, out, err) && nb_charts_box(dir, res, s, out, err) &&
	       nb_charts_latency(dir, res, s, out, err) &&
	       nb_charts_sweep(dir, res, s, out, err) && nb_charts_timeseries(dir, res, s, out, err) &&
	       nb_charts_paths(dir, res, s, out, err) && nb_charts_working(dir, res, s, out, err) &&
	       nb_charts_working_cdf(dir, res, s, out, err) &&
	       nb_charts_working_box(dir, res, s, out, err);
}

void nb_charts_free(struct nb_charts *c)
{
	free(c->open);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void nb_charts_render(const char *dir, struct nb_charts *charts)
{
	charts->gnuplot = nb_chart_gnuplot_available();
	if (!charts->gnuplot)
		return;
	char log[4096], workdir[4096];
	snprintf(log, sizeof(log), "%s/charts/gnuplot.log", dir);
	snprintf(workdir, sizeof(workdir), "%s/charts", dir);
	remove(log);
	for (size_t i = 0; i < charts->n; i++) {
		struct nb_chart *ch = &charts->v[i];
		char script[160], png[4096];
		struct nb_error err = { "" };
		snprintf(script, sizeof(script), "%s.gp", ch->name);
		snprintf(png, sizeof(png), "%s/charts/%s.png", dir, ch->name);
		ch->rendered = nb_chart_gnuplot_run(workdir, script, log, &err) &&
			       access(png, F_OK) == 0;
		charts->rendered += ch->rendered;
		if (!ch->rendered && !charts->problem[0])
			snprintf(charts->problem, sizeof(charts->problem), "%s",
				 *err.msg ? err.msg : "gnuplot wrote no PNG");
	}
}
