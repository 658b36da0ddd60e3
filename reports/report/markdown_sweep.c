/* report.md: a swept case's section — the search's sentence per loss goal, and a row per
 * trial (on several paths, then each trial's paths). */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

/* A sweep's rates: packets/s for a packet-rate engine, else bit/s (also for an engine this
 * build does not know: its trials are then read from the bit-rate columns). */
static bool packet_rates(const struct nb_plan_case *p)
{
	return p->eng && p->eng->traits.rate == NB_RATE_KIND_PACKETS;
}

static const char *rate_unit(const struct nb_plan_case *p)
{
	return p->eng && p->eng->traits.rate_unit ? p->eng->traits.rate_unit : "bit/s";
}

/* Where every attempt fell short: a limit of the generator (host-bound) only when nothing
 * ever sent as much; else no limit is claimed. Then what held the sender back. */
static void sweep_short(FILE *f, const struct nb_sweep_result *sw, const char *u)
{
	char a[64], b[64];
	bool short_ = sw->status && (strcmp(sw->status, "sender-short") == 0 ||
				     strcmp(sw->status, "incomplete") == 0);
	if (short_ && isfinite(sw->unreached) && !isfinite(sw->host_bound_above)) {
		nb_fmt_value(sw->unreached, u, a, sizeof(a));
		fprintf(f, " Every attempt at %s fell short, though the sender had sent", a);
		if (isfinite(sw->sender_max)) {
			nb_fmt_value(sw->sender_max, u, b, sizeof(b));
			fprintf(f, " %s", b);
		}
		fputs(" in this search, so the threshold is a lower bound and no limit of the sender "
		      "is claimed", f);
	} else if (isfinite(sw->host_bound_above)) {
		nb_fmt_value(sw->host_bound_above, u, a, sizeof(a));
		fprintf(f, " The sender could not offer more than %s (host-bound): every attempt above "
			   "it fell short and no trial sent as much", a);
	} else {
		return;
	}
	if (sw->limit) {
		fputs(" — ", f);
		nb_md_text(f, sw->limit);
	}
	fputs(".", f);
}

/* What the search's status adds to its threshold, in words. */
static void sweep_status(FILE *f, const struct nb_sweep_result *sw, const char *u)
{
	if (!sw->status)
		return;
	if (strcmp(sw->status, "at-or-above-to") == 0)
		fputs(" No trial lost more than that up to the sweep's `to`: the threshold is at or "
		      "above it.", f);
	else if (strcmp(sw->status, "below-from") == 0)
		fputs(" Loss exceeded the goal even at the sweep's `from`.", f);
	sweep_short(f, sw, u);
}

/* One sentence per loss goal (NDR, PDR ...) of a searched case. */
static void sweep_sentence(FILE *f, const struct nb_results *res, const struct nb_case_stats *c)
{
	struct nb_sweep_result sw;
	const char *u = rate_unit(c->pc);
	char a[64], b[64];
	size_t g = 0;
	for (; nb_sweeps_json_goal(res, c->pc->case_id, g, &sw); g++) {
		if (!sw.search && !isfinite(sw.loss_target)) { /* a plain sweep: no goal to state */
			nb_md_cell(f, sw.sentence ? sw.sentence : "A plain sweep of rates.");
			fputs("\n\n", f);
			continue;
		}
		if (!isfinite(sw.threshold)) {
			fprintf(f, "No rate kept loss ≤ %g %% in every trial.", sw.loss_target * 100.0);
		} else {
			nb_fmt_value(sw.threshold, u, a, sizeof(a));
			fprintf(f, "Highest offered rate with loss ≤ %g %% in every trial: **%s**",
				sw.loss_target * 100.0, a);
			if (isfinite(sw.lowest_fail)) {
				nb_fmt_value(sw.lowest_fail, u, b, sizeof(b));
				fprintf(f, " (lowest failing rate %s)", b);
			}
			fprintf(f, "; %zu trials", c->n_trials);
			if (sw.retries > 0)
				fprintf(f, ", %.0f of them retries of a trial whose sender fell short",
					sw.retries);
			fputs(".", f);
		}
		sweep_status(f, &sw, u);
		if (sw.complete_known && !sw.complete)
			fprintf(f, " **The search %s** before it finished.",
				sw.interrupted ? "was interrupted" : sw.trial_limit ? "used every trial "
				"it was allowed" : "stopped");
		fputs("\n\n", f);
	}
	if (g == 0)
		fprintf(f, "No threshold was recorded for this case (a plain sweep).\n\n");
}

/* The trial's notes (runs.csv flags), ", " between them. */
static void notes_cell(FILE *f, const char *flags)
{
	char buf[512];
	size_t n = 0;
	for (const char *p = flags ? flags : ""; *p && n + 3 < sizeof(buf); p++) {
		if (*p == ';')
			buf[n++] = ',', buf[n++] = ' ';
		else
			buf[n++] = *p;
	}
	buf[n] = '\0';
	fputc(' ', f);
	nb_md_cell(f, buf);
	fputs(" |", f);
}

static void rate_cell(FILE *f, double v, const char *unit)
{
	char buf[64];
	nb_fmt_value(v, unit, buf, sizeof(buf));
	fprintf(f, " %s |", buf);
}

/* A trial row's cells from Sent on: sent, received, loss, status, notes; then the line's end. */
static void trial_cells(FILE *f, const struct nb_run *r, bool pps, const char *u)
{
	rate_cell(f, r->m.v[pps ? NB_COL_TX_PPS : NB_COL_TX_BPS], u);
	rate_cell(f, r->m.v[pps ? NB_COL_RX_PPS : NB_COL_RX_BPS], u);
	if (isfinite(r->m.v[NB_COL_LOSS_PCT]))
		fprintf(f, " %.3g %% |", r->m.v[NB_COL_LOSS_PCT]);
	else
		fputs(" — |", f);
	fputc(' ', f);
	nb_md_cell(f, r->status);
	fputs(" |", f);
	notes_cell(f, r->flags);
	fputs("\n", f);
}

/* The first run id of the sweep's recorded attempt: a resumed batch ran it again, and the
 * trials of the attempt a signal cut stay in runs.csv before it (0: show every trial). */
static uint32_t attempt_start(const struct nb_results *res, const struct nb_case_stats *c)
{
	struct nb_sweep_result sw;
	return nb_sweeps_json_find(res, c->pc->case_id, &sw) ? sw.first_run_id : 0;
}

/* On several paths: each trial's part on each path (runs.csv's rows of that trial with a path),
 * so the trial at the threshold shows which path lost. Trials are numbered as above. */
static void path_parts(FILE *f, const struct nb_results *res, size_t ci, uint32_t first, bool pps,
		       const char *u)
{
	bool any = false;
	for (size_t i = 0, k = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || r->run_id < first || strcmp(r->kind, "trial") != 0)
			continue;
		k++;
		for (size_t j = 0; j < res->npath_runs; j++) {
			const struct nb_run *p = &res->path_runs[j];
			if (p->run_id != r->run_id || strcmp(p->kind, "trial") != 0)
				continue;
			if (!any)
				fputs("Each trial on each path (every flow of every path offered the rate):\n\n"
				      "| Trial | Path | Sent | Received | Loss | Status | Notes |\n"
				      "|--:|---|--:|--:|--:|---|---|\n", f);
			any = true;
			fprintf(f, "| %zu | ", k);
			nb_md_cell(f, p->path);
			fputs(" |", f);
			trial_cells(f, p, pps, u);
		}
	}
	if (any)
		fputs("\n", f);
}

void nb_md_sweep_table(FILE *f, const struct nb_results *res, const struct nb_case_stats *c)
{
	size_t ci = (size_t)(c->pc - res->cases), earlier = 0;
	uint32_t first = attempt_start(res, c);
	bool pps = packet_rates(c->pc);
	const char *u = rate_unit(c->pc);
	fputs("### Sweep ", f);
	nb_md_code(f, c->pc->case_id);
	fputs("\n\n", f);
	sweep_sentence(f, res, c);
	nb_md_sweep_goals(f, res, c, u);
	nb_md_sweep_latency(f, res, c, u);
	fputs("| Trial | Offered | Sent | Received | Loss | Status | Notes |\n"
	      "|--:|--:|--:|--:|--:|---|---|\n", f);
	for (size_t i = 0, k = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || strcmp(r->kind, "trial") != 0 ||
		    (r->run_id < first && ++earlier))
			continue;
		fprintf(f, "| %zu |", ++k);
		rate_cell(f, r->offered_rate, u);
		trial_cells(f, r, pps, u);
	}
	fputs("\n", f);
	if (earlier)
		fprintf(f, "%zu trial%s of an earlier, interrupted attempt %s in runs.csv, not above.\n\n",
			earlier, earlier == 1 ? "" : "s", earlier == 1 ? "is" : "are");
	path_parts(f, res, ci, first, pps, u);
}

