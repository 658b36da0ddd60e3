/* nbrun — plan.csv: one row per case of the plan with its resolved parameters, written once
 * when a batch starts and read back by the report. */
#ifndef NB_PLAN_CSV_H
#define NB_PLAN_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "nb_error.h"
#include "param_defs.h"

#define NB_PLAN_CSV_FILE "plan.csv"

/** One row of plan.csv. The writer writes the columns (case_id .. rate, the parameter rows
 *  beside the axes (wait), duration_s .. sweep, the other parameter rows (window .. cpus), paths,
 *  then the own rows of each engine the plan has a case of; a NAN number or a NULL string is an
 *  empty cell, sizes and rates are written as integers, durations with %g); the reader fills
 *  them (strings point into the loaded table, "" for a column an older plan.csv lacks) and
 *  derives the fields after them. A case seen only in runs.csv (plan.csv lost) is made up from
 *  its runs. */
struct nb_plan_case {
	const char *case_id, *test, *engine, *protocol, *direction, *repetitions, *sweep;
	double size, request, response, streams, rate;            /* NAN = not in the plan */
	double duration_s, warmup_s, omit_s, interval_s;
	/* The cells of the parameter rows (engines/param_defs.h) as nb_param_format spells them:
	 * opt[i] of row i of nb_param_defs, own[i] of row i of the engine's own rows; "" or NULL =
	 * does not apply (nb_plan_case_param finds one by its key). */
	const char *opt[NB_PARAM_ROWS_MAX];
	const char *own[NB_PARAM_OWN_ROWS_MAX];
	const char *paths;                           /* "local->vm1;vm2->vm3", "" = none given */
	/* derived by the reader: */
	const struct nb_engine *eng; /* engine's table (nb_engine_find); NULL = unknown to this build */
	bool autorep;            /* repetitions: auto... */
	uint32_t rep_min, rep_max;
	double ci_target;        /* auto: relative CI half-width (0.02) */
	bool swept;              /* the sweep column names a sweep or search */
};

/** The cell of parameter key in row c: a common row's, or its engine's own; "" when none. */
const char *nb_plan_case_param(const struct nb_plan_case *c, const char *key);
/** Write DIR/plan.csv (replacing it): a header and one row per case. */
bool nb_plan_csv_write(const char *dir, const struct nb_plan_case *rows, size_t n,
		       struct nb_error *err);

#endif
