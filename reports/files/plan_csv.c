/* plan.csv (see plan_csv.h): written through the CSV writer, read into nb_results.cases. */
#include "plan_csv.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "results_int.h"

/* The columns that are not parameter rows, in order; the parameter rows' columns come after
 * "rate" (the rows beside the axes: wait) and after "sweep" (the others), each engine's own
 * rows after "paths". */
enum cell { STR, COUNT, SECS };
enum rows_after { NO_ROWS, AXES_ROWS, OPTION_ROWS };
#define AT(f) offsetof(struct nb_plan_case, f)
static const struct fixed {
	const char *name;
	enum cell cell;
	size_t at;
	enum rows_after then;
} fixed[] = {
	{ "case_id", STR, AT(case_id), NO_ROWS }, { "test", STR, AT(test), NO_ROWS },
	{ "engine", STR, AT(engine), NO_ROWS }, { "protocol", STR, AT(protocol), NO_ROWS },
	{ "size", COUNT, AT(size), NO_ROWS }, { "request", COUNT, AT(request), NO_ROWS },
	{ "response", COUNT, AT(response), NO_ROWS }, { "streams", COUNT, AT(streams), NO_ROWS },
	{ "direction", STR, AT(direction), NO_ROWS }, { "rate", COUNT, AT(rate), AXES_ROWS },
	{ "duration_s", SECS, AT(duration_s), NO_ROWS }, { "warmup_s", SECS, AT(warmup_s), NO_ROWS },
	{ "omit_s", SECS, AT(omit_s), NO_ROWS }, { "interval_s", SECS, AT(interval_s), NO_ROWS },
	{ "repetitions", STR, AT(repetitions), NO_ROWS }, { "sweep", STR, AT(sweep), OPTION_ROWS },
	{ "paths", STR, AT(paths), NO_ROWS },
};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))
#define MAX_COLS (NFIXED + NB_PARAM_ROWS_MAX + 64)

/* One column of the file: a fixed one, a common row's (opt), or an own row of engine e. */
struct col {
	const char *name;
	const struct fixed *f;
	int opt, own;
	const struct nb_engine *e;
};

struct cols {
	struct col v[MAX_COLS];
	const char *names[MAX_COLS];
	size_t n;
};

static void add(struct cols *c, struct col col)
{
	if (c->n < MAX_COLS) {
		c->names[c->n] = col.name;
		c->v[c->n++] = col;
	}
}

/* The common rows with a column, beside the axes or not. */
static void add_rows(struct cols *c, bool axes)
{
	for (int i = 0; nb_param_defs[i].key; i++) {
		bool beside = (nb_param_defs[i].flags & NB_PF_AXES) != 0;
		if (nb_param_defs[i].column && beside == axes)
			add(c, (struct col){ .name = nb_param_defs[i].column, .opt = i, .own = -1 });
	}
}

static bool has_case_of(const struct nb_engine *e, const struct nb_plan_case *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].engine && strcmp(rows[i].engine, e->name) == 0)
			return true;
	return false;
}

/* The columns of a plan of rows: the fixed and common ones always (the same bytes whatever the
 * plan), an engine's own only when the plan has a case of it. */
static void plan_cols(struct cols *c, const struct nb_plan_case *rows, size_t n)
{
	c->n = 0;
	for (size_t i = 0; i < NFIXED; i++) {
		add(c, (struct col){ .name = fixed[i].name, .f = &fixed[i], .opt = -1, .own = -1 });
		if (fixed[i].then != NO_ROWS)
			add_rows(c, fixed[i].then == AXES_ROWS);
	}
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		if (!(*e)->params || !has_case_of(*e, rows, n))
			continue;
		for (int j = 0; (*e)->params[j].key; j++)
			if ((*e)->params[j].column)
				add(c, (struct col){ .name = (*e)->params[j].column, .opt = -1, .own = j,
						     .e = *e });
	}
}

/* A size, count or rate: an integer, or an empty cell when it does not apply (NAN). */
static void count(struct nb_csv *c, double v)
{
	if (isfinite(v) && v >= 0)
		nb_csv_u64(c, (uint64_t)v);
	else
		nb_csv_str(c, NULL);
}

static void fixed_cell(struct nb_csv *c, const struct fixed *f, const struct nb_plan_case *p)
{
	const char *at = (const char *)p + f->at, *str;
	double v;
	if (f->cell == STR) {
		memcpy(&str, at, sizeof(str));
		nb_csv_str(c, str);
		return;
	}
	memcpy(&v, at, sizeof(v));
	if (f->cell == COUNT)
		count(c, v);
	else
		nb_csv_printf(c, "%g", v);
}

static void write_row(struct nb_csv *c, const struct cols *cols, const struct nb_plan_case *p)
{
	for (size_t i = 0; i < cols->n; i++) {
		const struct col *col = &cols->v[i];
		if (col->f)
			fixed_cell(c, col->f, p);
		else if (col->opt >= 0)
			nb_csv_str(c, p->opt[col->opt]);
		else
			nb_csv_str(c, p->engine && strcmp(p->engine, col->e->name) == 0
					      ? p->own[col->own] : NULL);
	}
	nb_csv_end(c);
}

bool nb_plan_csv_write(const char *dir, const struct nb_plan_case *rows, size_t n,
		       struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_PLAN_CSV_FILE, dir);
	struct cols *cols = malloc(sizeof(*cols));
	if (!cols)
		return nb_error_set(err, "%s: out of memory", path);
	plan_cols(cols, rows, n);
	struct nb_csv *c = nb_csv_create(path, cols->names, cols->n, err);
	for (size_t i = 0; c && i < n; i++)
		write_row(c, cols, &rows[i]);
	free(cols);
	return c && nb_csv_finish(c, err);
}

const char *nb_plan_case_param(const struct nb_plan_case *c, const char *key)
{
	const struct nb_engine *e = c->eng ? c->eng : c->engine ? nb_engine_find(c->engine) : NULL;
	const struct nb_param_def *d = nb_param_find(key);
	const char *cell = d ? c->opt[d - nb_param_defs] : NULL;
	for (int j = 0; !d && e && e->params && e->params[j].key; j++)
		if (strcmp(e->params[j].key, key) == 0)
			cell = c->own[j];
	return cell ? cell : "";
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
	for (size_t i = 0; i < NFIXED; i++) {
		char *at = (char *)c + fixed[i].at;
		int col = nb_csv_col(t, fixed[i].name);
		double v = nb_csv_num_cell(t, r, col);
		const char *s = nb_csv_cell(t, r, col);
		if (fixed[i].cell == STR)
			memcpy(at, &s, sizeof(s));
		else
			memcpy(at, &v, sizeof(v));
	}
	for (int i = 0; nb_param_defs[i].key; i++)
		c->opt[i] = nb_csv_cell(t, r, nb_param_defs[i].column
					    ? nb_csv_col(t, nb_param_defs[i].column) : -1);
	c->eng = nb_engine_find(c->engine);
	for (int j = 0; c->eng && c->eng->params && c->eng->params[j].key; j++)
		c->own[j] = nb_csv_cell(t, r, c->eng->params[j].column
					    ? nb_csv_col(t, c->eng->params[j].column) : -1);
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
		.repetitions = "", .sweep = "",
		.size = NAN, .request = NAN, .response = NAN, .streams = NAN, .rate = NAN,
		.duration_s = NAN, .warmup_s = NAN, .omit_s = NAN, .interval_s = NAN, .paths = "",
		.rep_min = 1, .rep_max = 1, .ci_target = 0.02,
		.swept = nb_run_kind_swept(run->kind),
	};
	return res->ncases++;
}
