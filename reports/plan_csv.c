/* plan.csv (see plan_csv.h): written through the CSV writer, read into nb_results.cases. */
#include "plan_csv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "results_int.h"

static const char *const header[] = {
	"case_id", "test", "engine", "protocol", "size", "request", "response", "streams",
	"direction", "rate", "wait", "duration_s", "warmup_s", "omit_s", "interval_s", "repetitions",
	"sweep", "window", "mss", "nodelay", "congestion", "tos", "gso", "batch", "timeout_ms", "cpus",
	"paths",
};
#define NCOLS (sizeof(header) / sizeof(header[0]))

/* A size, count or rate: an integer, or an empty cell when it does not apply (NAN). */
static void count(struct nb_csv *c, double v)
{
	if (isfinite(v) && v >= 0)
		nb_csv_u64(c, (uint64_t)v);
	else
		nb_csv_str(c, NULL);
}

static void write_row(struct nb_csv *c, const struct nb_plan_case *p)
{
	nb_csv_str(c, p->case_id);
	nb_csv_str(c, p->test);
	nb_csv_str(c, p->engine);
	nb_csv_str(c, p->protocol);
	count(c, p->size);
	count(c, p->request);
	count(c, p->response);
	count(c, p->streams);
	nb_csv_str(c, p->direction);
	count(c, p->rate);
	nb_csv_str(c, p->wait);
	nb_csv_printf(c, "%g", p->duration_s);
	nb_csv_printf(c, "%g", p->warmup_s);
	nb_csv_printf(c, "%g", p->omit_s);
	nb_csv_printf(c, "%g", p->interval_s);
	nb_csv_str(c, p->repetitions);
	nb_csv_str(c, p->sweep);
	count(c, p->window);
	count(c, p->mss);
	nb_csv_str(c, p->nodelay);
	nb_csv_str(c, p->congestion);
	count(c, p->tos);
	nb_csv_str(c, p->gso);
	count(c, p->batch);
	count(c, p->timeout_ms);
	nb_csv_str(c, p->cpus);
	nb_csv_str(c, p->paths);
	nb_csv_end(c);
}

bool nb_plan_csv_write(const char *dir, const struct nb_plan_case *rows, size_t n,
		       struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_PLAN_CSV_FILE, dir);
	struct nb_csv *c = nb_csv_create(path, header, NCOLS, err);
	if (!c)
		return false;
	for (size_t i = 0; i < n; i++)
		write_row(c, &rows[i]);
	return nb_csv_finish(c, err);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* "auto", "auto:3..30:2%", "auto(min 3, max 30, ci 2%)": integers give min then max,
 * a number followed by '%' gives the CI target. */
static void parse_reps(struct nb_plan_case *c)
{
	c->rep_min = 3;
	c->rep_max = 30;
	c->ci_target = 0.02;
	c->autorep = strncmp(c->repetitions, "auto", 4) == 0;
	if (!c->autorep) {
		long n = strtol(c->repetitions, NULL, 10);
		c->rep_min = c->rep_max = n > 0 ? (uint32_t)n : 1;
		return;
	}
	int k = 0;
	for (const char *p = c->repetitions + 4; *p;) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !isdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*end == '%')
			c->ci_target = v / 100.0;
		else if (k++ == 0)
			c->rep_min = (uint32_t)v;
		else
			c->rep_max = (uint32_t)v;
		p = end;
	}
}

static bool names_a_sweep(const char *s)
{
	static const char *const none[] = { "", "no", "none", "false", "0", "-" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strcmp(s, none[i]) == 0)
			return false;
	return true;
}

static void read_row(const struct nb_csv_table *t, size_t r, struct nb_plan_case *c)
{
#define S(f) c->f = nb_csv_cell(t, r, nb_csv_col(t, #f))
#define N(f) c->f = nb_csv_num_cell(t, r, nb_csv_col(t, #f))
	S(case_id); S(test); S(engine); S(protocol); S(direction); S(wait); S(repetitions); S(sweep);
	N(size); N(request); N(response); N(streams); N(rate);
	N(duration_s); N(warmup_s); N(omit_s); N(interval_s);
	N(window); N(mss); N(tos); N(batch); N(timeout_ms);
	S(nodelay); S(congestion); S(gso); S(cpus); S(paths);
#undef S
#undef N
	c->eng = nb_engine_find(c->engine);
	parse_reps(c);
	c->swept = names_a_sweep(c->sweep);
}

bool nb_plan_csv_load(struct nb_results *res, size_t extra)
{
	size_t n = res->plan_t.nrows;
	res->cases = calloc(n + extra + 1, sizeof(*res->cases));
	if (!res->cases)
		return false;
	for (size_t r = 0; r < n; r++) {
		read_row(&res->plan_t, r, &res->cases[res->ncases]);
		if (*res->cases[res->ncases].case_id)
			res->ncases++;
	}
	return true;
}

size_t nb_plan_csv_case_for_run(struct nb_results *res, const struct nb_run *run)
{
	size_t i = nb_results_case(res, run->case_id);
	if (i != (size_t)-1)
		return i;
	struct nb_plan_case *c = &res->cases[res->ncases];
	*c = (struct nb_plan_case){
		.case_id = run->case_id, .test = run->test, .engine = run->engine,
		.eng = nb_engine_find(run->engine), .protocol = run->protocol, .direction = "",
		.wait = "", .repetitions = "", .sweep = "",
		.size = NAN, .request = NAN, .response = NAN, .streams = NAN, .rate = NAN,
		.duration_s = NAN, .warmup_s = NAN, .omit_s = NAN, .interval_s = NAN,
		.window = NAN, .mss = NAN, .tos = NAN, .batch = NAN, .timeout_ms = NAN,
		.nodelay = "", .congestion = "", .gso = "", .cpus = "", .paths = "",
		.rep_min = 1, .rep_max = 1, .ci_target = 0.02,
		.swept = strcmp(run->kind, "trial") == 0,
	};
	return res->ncases++;
}
