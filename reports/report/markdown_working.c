/* nbrun — report.md's section on latency under working conditions (working.csv, docs/reports.md):
 * per working case, first the answer — the worst probe's latency inflation at p50 and RPM (TCP)
 * beside the idle RPM — then the load's throughput and fairness, then a row per probe with its
 * idle and loaded percentiles. Means over the counted runs. Every quoted text is inert. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "markdown.h"
#include "md_text.h"
#include "working_lookup.h"

#define PROBES_MAX NB_WORKING_PROBE_RUNS_MAX

static double mean(const struct nb_results *res, const char *id, const char *part,
		   const char *phase, const char *col)
{
	return nb_working_csv_mean(res, id, part, phase, col, NULL);
}

static void value(FILE *f, double v, const char *unit)
{
	char buf[64];
	nb_fmt_value(v, unit, buf, sizeof(buf));
	fputs(buf, f);
}

/* The probe with the largest loaded-minus-idle p50 ("" when none has both phases). */
static void worst_probe(const struct nb_results *res, const char *id, char *part, size_t n)
{
	double worst = -INFINITY;
	part[0] = '\0';
	for (int i = 1; i <= PROBES_MAX; i++) {
		char p[16];
		snprintf(p, sizeof(p), "probe%d", i);
		double v = mean(res, id, p, "loaded", "inflation_p50_us");
		if (isfinite(v) && v > worst) {
			worst = v;
			snprintf(part, n, "%s", p);
		}
	}
}

static void rpm_sentence(FILE *f, const struct nb_results *res, const char *id)
{
	double rpm = mean(res, id, "case", "", "rpm_tcp"), idle = mean(res, id, "case", "", "idle_rpm_tcp");
	if (isfinite(rpm)) {
		fprintf(f, "; RPM (TCP, not HTTP RPM) %.0f, idle %.0f", rpm, idle);
		return;
	}
	fputs("; no RPM (TCP): it needs connect and crr probes beside a TCP latency probe", f);
}

static void answer(FILE *f, const struct nb_results *res, const char *id)
{
	char part[16];
	worst_probe(res, id, part, sizeof(part));
	fputs("**Under working conditions** ", f);
	nb_md_code(f, id);
	if (part[0]) {
		fputs(": latency +", f);
		value(f, mean(res, id, part, "loaded", "inflation_p50_us"), "us");
		fprintf(f, " at p50 (×%.3g) under the load, on ", mean(res, id, part, "loaded", "inflation_ratio"));
		nb_md_code(f, nb_working_csv_cell(res, id, part, "part_case_id"));
		fputs(" (idle ", f);
		value(f, mean(res, id, part, "idle", "p50_us"), "us");
		fputs(", loaded ", f);
		value(f, mean(res, id, part, "loaded", "p50_us"), "us");
		fputs(")", f);
	} else {
		fputs(": no probe measured both phases", f);
	}
	rpm_sentence(f, res, id);
	fputs(". The load: ", f);
	value(f, mean(res, id, "load", "", "up_bps"), "bit/s");
	fputs(" up, ", f);
	value(f, mean(res, id, "load", "", "down_bps"), "bit/s");
	fprintf(f, " down, Jain's index %.3f over its flows, congestion control ",
		mean(res, id, "load", "", "jain"));
	nb_md_code(f, nb_working_csv_cell(res, id, "load", "congestion"));
	fputs(".\n\n", f);
}

/* Whether a probe run of case id names its path (the case ran on several paths). */
static bool on_paths(const struct nb_results *res, const char *id)
{
	for (int i = 1; i <= PROBES_MAX; i++) {
		char p[16];
		snprintf(p, sizeof(p), "probe%d", i);
		if (nb_working_csv_cell(res, id, p, "path")[0])
			return true;
	}
	return false;
}

/* A row per probe run; on several paths each names the path it ran on. */
static void probe_rows(FILE *f, const struct nb_results *res, const char *id)
{
	bool paths = on_paths(res, id);
	fprintf(f, "| Probe |%s Idle p50 | Idle p99 | Loaded p50 | Loaded p90 | Loaded p99 | "
		"Loaded p99.9 | Inflation p50 | ×p50 |\n|---|%s---|---|---|---|---|---|---|---|\n",
		paths ? " Path |" : "", paths ? "---|" : "");
	for (int i = 1; i <= PROBES_MAX; i++) {
		char p[16];
		snprintf(p, sizeof(p), "probe%d", i);
		const char *pid = nb_working_csv_cell(res, id, p, "part_case_id");
		if (!pid[0])
			continue;
		fputs("| ", f);
		nb_md_code(f, pid);
		if (paths) {
			fputs(" | ", f);
			nb_md_code(f, nb_working_csv_cell(res, id, p, "path"));
		}
		const struct { const char *phase, *col; } cells[] = {
			{ "idle", "p50_us" }, { "idle", "p99_us" }, { "loaded", "p50_us" },
			{ "loaded", "p90_us" }, { "loaded", "p99_us" }, { "loaded", "p999_us" },
			{ "loaded", "inflation_p50_us" },
		};
		for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
			fputs(" | ", f);
			value(f, mean(res, id, p, cells[k].phase, cells[k].col), "us");
		}
		fprintf(f, " | %.3g |\n", mean(res, id, p, "loaded", "inflation_ratio"));
	}
	fputs("\n", f);
}

void nb_md_working(FILE *f, const struct nb_results *res)
{
	bool any = false;
	for (size_t i = 0; i < res->ncases; i++) {
		const char *id = res->cases[i].case_id;
		if (!nb_working_csv_cell(res, id, "load", "part")[0])
			continue;
		if (!any)
			fputs("## Latency under working conditions\n\n", f);
		any = true;
		answer(f, res, id);
		probe_rows(f, res, id);
	}
	if (any)
		fputs("Idle: the probes alone before the load; loaded: beside it, its ramp (omit) left "
		      "out; inflation: loaded − idle. RPM (TCP) is draft-ietf-ippm-responsiveness's "
		      "TCP-only formula over this tool's probes (docs/reports.md), not HTTP RPM.\n\n", f);
}
