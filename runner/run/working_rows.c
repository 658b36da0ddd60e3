/* nbrun — a working run's rows of working.csv (see run_int.h, working_csv.h): per probe one
 * row per phase it has samples in, the loaded row with its inflation over idle; the load's
 * row; the case's row with RPM (TCP), loaded and idle; and each probe's phase histograms
 * (latency/run-<id>-probeN.csv) for the report's CDF. */
#include <math.h>
#include <string.h>

#include "params.h"
#include "run_int.h"
#include "working_csv.h"
#include "working_hist.h"

static double us(double ns)
{
	return ns / 1e3;
}

/* A row's phase and its percentiles. */
static void phase_cells(struct nb_working_row *r, enum nb_phase p, const struct nb_hist_summary *s,
			double tm_ns)
{
	r->phase = nb_phase_name(p);
	r->samples = s->count;
	r->p50_us = us((double)s->p50_ns);
	r->p90_us = us((double)s->p90_ns);
	r->p99_us = us((double)s->p99_ns);
	r->p999_us = us((double)s->p999_ns);
	r->tm95_us = us(tm_ns);
}

/* Probe i's row of phase p, or nothing when the phase saw no sample. */
static void probe_row(struct nb_csv *csv, struct nb_working_row base, const struct nb_working_out *w,
		      uint32_t i, enum nb_phase p)
{
	const struct nb_hist_summary *s = &w->probe[i].phase[p];
	if (!s->count)
		return;
	char part[16];
	snprintf(part, sizeof(part), "probe%u", i + 1);
	const struct nb_case *pc = w->probe[i].c;
	base.part = part;
	base.part_case_id = pc->id;
	base.path = w->probe[i].path;
	base.engine = pc->params.engine;
	base.protocol = nb_proto_name(pc->params.proto);
	phase_cells(&base, p, s, w->probe[i].tm_ns[p]);
	if (p == NB_PHASE_LOADED) {
		base.inflation_p50_us = us(w->probe[i].pp.inflation_p50_ns);
		base.inflation_p99_us = us(w->probe[i].pp.inflation_p99_ns);
		base.inflation_ratio = w->probe[i].pp.ratio_p50;
	}
	nb_working_csv_write(csv, &base);
}

/* The load's self probes' row of phase p (part "self": the load's case; no idle phase, so no
 * inflation of its own), or nothing when the phase saw no sample. */
static void self_row(struct nb_csv *csv, struct nb_working_row base, const struct nb_case *c,
		     const struct nb_working_out *w, enum nb_phase p)
{
	const struct nb_hist_summary *s = &w->self.phase[p];
	if (!w->has_self || !s->count)
		return;
	base.part = "self";
	base.part_case_id = c->id;
	base.engine = c->params.engine;
	base.protocol = nb_proto_name(c->params.proto);
	phase_cells(&base, p, s, w->self.tm_ns[p]);
	nb_working_csv_write(csv, &base);
}

/* Probe i's phase histograms, kept on disk beside its rows. */
static void probe_hist(struct nb_batch *b, uint32_t run_id, const struct nb_working_out *w,
		       uint32_t i)
{
	const char *name[NB_PHASES];
	const struct nb_hist *h[NB_PHASES];
	for (int p = 0; p < NB_PHASES; p++) {
		name[p] = p == NB_PHASE_OUTSIDE ? NULL : nb_phase_name((enum nb_phase)p);
		h[p] = w->probe[i].hist[p];
	}
	char part[16];
	snprintf(part, sizeof(part), "probe%u", i + 1);
	struct nb_error err = { { 0 } };
	if (!nb_working_hist_write(b->dir, run_id, part, name, h, NB_PHASES, &err))
		nb_rows_failed(&b->rows, &err);
}

void nb_working_out_free(struct nb_working_out *w)
{
	for (uint32_t i = 0; w->done && i < w->nprobes; i++)
		for (int p = 0; p < NB_PHASES; p++) {
			nb_hist_destroy(w->probe[i].hist[p]);
			w->probe[i].hist[p] = NULL;
		}
}

void nb_working_rows_write(struct nb_batch *b, const struct nb_case *c, uint32_t run_id,
			   uint32_t rep, const struct nb_working_out *w)
{
	struct nb_error err = { { 0 } };
	if (!b->rows.working && !(b->rows.working = nb_working_csv_open(b->dir, &err))) {
		nb_rows_failed(&b->rows, &err);
		return;
	}
	struct nb_csv *csv = b->rows.working;
	struct nb_working_row none = {
		.run_id = run_id, .rep = rep, .case_id = c->id, .p50_us = NAN, .p90_us = NAN,
		.p99_us = NAN, .p999_us = NAN, .tm95_us = NAN, .inflation_p50_us = NAN,
		.inflation_p99_us = NAN, .inflation_ratio = NAN, .up_bps = NAN, .down_bps = NAN,
		.jain = NAN, .rpm_tcp = NAN, .idle_rpm_tcp = NAN,
		.idle_s = (double)c->test->working->idle_ns / 1e9,
	};
	static const enum nb_phase phases[] = { NB_PHASE_IDLE, NB_PHASE_RAMP, NB_PHASE_LOADED,
						NB_PHASE_AFTER };
	for (uint32_t i = 0; i < w->nprobes; i++) {
		for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++)
			probe_row(csv, none, w, i, phases[p]);
		probe_hist(b, run_id, w, i);
	}
	for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++)
		self_row(csv, none, c, w, phases[p]);
	struct nb_working_row load = none;
	load.part = "load";
	load.part_case_id = c->id;
	load.engine = c->params.engine;
	load.protocol = nb_proto_name(c->params.proto);
	load.up_bps = w->up_bps;
	load.down_bps = w->down_bps;
	load.jain = w->jain;
	load.congestion = w->congestion;
	nb_working_csv_write(csv, &load);
	struct nb_working_row all = none;
	all.part = "case";
	all.part_case_id = c->id;
	all.engine = "";
	all.protocol = "";
	all.rpm_tcp = w->rpm.rpm;
	all.idle_rpm_tcp = w->idle_rpm.rpm;
	all.rpm_self = !isfinite(w->rpm.loaded) ? "" : w->rpm.self ? "self" : "standin";
	nb_working_csv_write(csv, &all);
	nb_rows_check(&b->rows);
	if (!nb_csv_ok(csv, &err))
		nb_rows_failed(&b->rows, &err);
}
