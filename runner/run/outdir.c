/* nbrun — the runner's side of the results folder (see outdir.h). */
#include "outdir.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config_copy.h"
#include "param_defs.h"
#include "params.h"
#include "plan_csv.h"

void nb_outdir_utc_now(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void nb_outdir_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, data, len);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* Text cells of one plan.csv row that are not in the case itself. */
struct plan_text {
	char reps[48];
	char cells[1024]; /* the parameter rows' cells, one after another */
	char paths[NB_PATHS_MAX * 2 * NB_HOST_NAME_MAX];
};

/* The parameter rows' cells (engines/param_defs.h): each row's spelling where the case has it
 * (its engine takes it, its protocol rule holds: TCP options over TCP, gso over UDP), empty
 * elsewhere; the common rows into opt, the engine's own into own. */
static void param_cells(const struct nb_case *c, struct nb_plan_case *row, struct plan_text *t)
{
	size_t used = 0, j = 0;
	bool own;
	const struct nb_param_def *d;
	for (size_t i = 0; (d = nb_param_at(c->engine, i, &own)); i++) {
		const char *cell = "";
		if (nb_param_in_plan(d, c->engine, &c->params) && used < sizeof(t->cells)) {
			cell = nb_param_format(d, &c->params, t->cells + used, sizeof(t->cells) - used);
			used += strlen(cell) + 1;
		}
		if (!own)
			row->opt[i] = cell;
		else if (j < NB_PARAM_OWN_ROWS_MAX)
			row->own[j++] = cell;
	}
}

/* plan.csv's row of case c; t backs its text cells (repetitions: "5", or "auto:MIN..MAX:CI%").
 * Parameters an engine does not take (its traits say which) stay empty: size for a
 * request/response engine, request/response for the others, direction for the engines that
 * are not directional, and every parameter row it does not take. */
static void plan_row(const struct nb_case *c, struct nb_plan_case *row, struct plan_text *t)
{
	const struct nb_params *p = &c->params;
	bool rr = nb_engine_request_response(c->engine), dir = c->engine->traits.directional;
	if (c->reps.autorep) /* the stopping rule itself: plan_csv.c reads min, max and the target */
		snprintf(t->reps, sizeof(t->reps), "auto:%u..%u:%g%%", c->reps.min, c->reps.max,
			 c->reps.ci * 100.0);
	else
		snprintf(t->reps, sizeof(t->reps), "%u", c->reps.count);
	*row = (struct nb_plan_case){
		.case_id = c->id, .test = c->test->name, .engine = p->engine,
		.protocol = nb_proto_name(p->proto), .size = rr ? NAN : (double)p->size,
		.request = rr ? (double)p->request : NAN, .response = rr ? (double)p->response : NAN,
		.streams = p->streams, .direction = dir ? nb_dir_name(p->direction) : "",
		.rate = (double)p->rate,
		.duration_s = (double)c->timing.duration_ns / 1e9,
		.warmup_s = (double)c->timing.warmup_ns / 1e9,
		.omit_s = (double)c->timing.omit_ns / 1e9,
		.interval_s = (double)c->timing.interval_ns / 1e9,
		.repetitions = t->reps,
		.sweep = !c->sweep.enabled ? "" : c->sweep.search ? "search" : "sweep",
	};
	param_cells(c, row, t);
	row->paths = nb_config_paths_str(c->test, t->paths, sizeof(t->paths));
}

static bool write_plan(const char *dir, const struct nb_plan *plan, struct nb_error *err)
{
	struct nb_plan_case *rows = calloc(plan->ncases + 1, sizeof(*rows));
	struct plan_text *text = calloc(plan->ncases + 1, sizeof(*text));
	bool ok = rows && text;
	for (size_t i = 0; ok && i < plan->ncases; i++)
		plan_row(&plan->cases[i], &rows[i], &text[i]);
	ok = ok ? nb_plan_csv_write(dir, rows, plan->ncases, err)
		: nb_error_set(err, "%s: out of memory", NB_PLAN_CSV_FILE);
	free(rows);
	free(text);
	return ok;
}

bool nb_outdir_write(const char *dir, const struct nb_config *cfg, const struct nb_plan *plan,
		     struct nb_error *err)
{
	return nb_config_copy_write(dir, cfg->text, cfg->text_len, err) && write_plan(dir, plan, err);
}
