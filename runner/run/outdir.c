/* nbrun — the runner's side of the results folder (see outdir.h). */
#include "outdir.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config_copy.h"
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
	char cpus[NB_MAX_CPUS * 6];
	char paths[NB_PATHS_MAX * 2 * NB_HOST_NAME_MAX];
};

static const char *on_off(bool applies, bool on)
{
	return !applies ? "" : on ? "on" : "off";
}

static void cpu_list(const struct nb_params *p, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < p->ncpus && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%d", i ? "," : "", p->cpus[i]);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* The socket and engine options of the row: the TCP ones only over TCP, an engine's own ones
 * (gso, batch, timeout) only when its traits list them (gso over UDP only); what does not
 * apply stays empty. */
static void plan_options(const struct nb_case *c, struct nb_plan_case *row, struct plan_text *t)
{
	const struct nb_params *p = &c->params;
	bool tcp = p->proto == NB_PROTO_TCP;
	row->window = (double)p->window;
	row->mss = tcp ? (double)p->mss : NAN;
	row->nodelay = on_off(tcp, p->nodelay);
	row->congestion = tcp ? p->congestion : "";
	row->tos = p->tos >= 0 ? (double)p->tos : NAN;
	row->gso = on_off(!tcp && nb_engine_has_key(c->engine, "gso"), p->gso); /* UDP only */
	row->batch = nb_engine_has_key(c->engine, "batch") ? (double)p->batch : NAN;
	row->timeout_ms = nb_engine_has_key(c->engine, "timeout") ? (double)p->timeout_ms : NAN;
	cpu_list(p, t->cpus, sizeof(t->cpus));
	row->cpus = t->cpus;
}

/* plan.csv's row of case c; t backs its text cells (repetitions: "5", or "auto:MIN..MAX:CI%").
 * Parameters an engine does not take (its traits say which) stay empty: size for a
 * request/response engine, request/response for the others, direction for the engines that
 * are not directional, wait for those that take none. */
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
		.wait = nb_engine_has_key(c->engine, "wait") ? nb_wait_name(p->wait) : "",
		.duration_s = (double)c->timing.duration_ns / 1e9,
		.warmup_s = (double)c->timing.warmup_ns / 1e9,
		.omit_s = (double)c->timing.omit_ns / 1e9,
		.interval_s = (double)c->timing.interval_ns / 1e9,
		.repetitions = t->reps,
		.sweep = !c->sweep.enabled ? "" : c->sweep.search ? "search" : "sweep",
	};
	plan_options(c, row, t);
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
