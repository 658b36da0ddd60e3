/* The static list of engines, looked up by name (the questions about one engine that its
 * table answers are in traits.c).
 *
 * Adding an engine: its own file exporting one `const struct nb_engine` table with its
 * traits filled, that file in meson.build, its `extern` in engines.h, one line in the
 * array below, and its section in docs/engines.md. Nothing outside engines/ names an
 * engine: the config language, the plan, the metrics and the report all read the traits.
 * A config key of its own is a row of its table's params (param_defs.h); a key several
 * engines share is a row of param_defs.c and a field of struct nb_params.
 *
 * A test registers an engine of its own after these with nb_engine_register. */
#include <string.h>

#include "cols.h"
#include "engine.h"
#include "engines.h"
#include "param_defs.h"

#define MAX_ENGINES 32

static const struct nb_engine *engines[MAX_ENGINES + 1] = {
	&nb_engine_stream,
	&nb_engine_pps,
	&nb_engine_rr,
	&nb_engine_crr,
	&nb_engine_latency,
	&nb_engine_icmp,
	&nb_engine_connect,
	NULL,
};

/* Own rows that are few enough, each well formed, inside params.own and not named like a
 * common parameter (which would shadow it in the config). */
static bool own_rows_fit(const struct nb_engine *e, struct nb_error *err)
{
	size_t n = 0;
	for (const struct nb_param_def *d = e->params; d && d->key; d++, n++) {
		if (n == NB_PARAM_OWN_ROWS_MAX)
			return nb_error_set(err, "engine %s: more than %d own parameters", e->name,
					    NB_PARAM_OWN_ROWS_MAX);
		if (!nb_param_def_check(d, true, err))
			return false;
		if (nb_param_find(d->key) || (d->alias && nb_param_find(d->alias)))
			return nb_error_set(err, "engine %s: its parameter %s is a common one",
					    e->name, d->key);
	}
	return true;
}

/* How many own columns e has, and whether any is named like a base column, `path` or another
 * registered engine's own column (a CSV header names each once). */
static bool own_columns_fit(const struct nb_engine *e, size_t *n, struct nb_error *err)
{
	for (*n = 0; e->columns && e->columns[*n].name; (*n)++) {
		const char *name = e->columns[*n].name;
		if (*n == NB_OWN_COLS_MAX)
			return nb_error_set(err, "engine %s: more than %d own columns", e->name,
					    NB_OWN_COLS_MAX);
		if (nb_col_find(name) >= 0 || strcmp(name, "path") == 0)
			return nb_error_set(err, "engine %s: its column %s is a base one", e->name, name);
		for (size_t k = 0; engines[k]; k++)
			for (const struct nb_col_def *d = engines[k]->columns; d && d->name; d++)
				if (strcmp(d->name, name) == 0)
					return nb_error_set(err, "engine %s: its column %s is engine %s's",
							    e->name, name, engines[k]->name);
	}
	return true;
}

/* Own counters and columns that fit: few enough, and the columns' names free. */
static bool own_numbers_fit(const struct nb_engine *e, struct nb_error *err)
{
	size_t nc = 0, ncols = 0, all = 0;
	while (e->counters && e->counters[nc].name)
		if (++nc > NB_OWN_COUNTERS_MAX)
			return nb_error_set(err, "engine %s: more than %d own counters", e->name,
					    NB_OWN_COUNTERS_MAX);
	if (!own_columns_fit(e, &ncols, err))
		return false;
	for (size_t k = 0; engines[k]; k++)
		for (const struct nb_col_def *d = engines[k]->columns; d && d->name; d++)
			all++;
	if (all + ncols > NB_OWN_COLS_ALL_MAX)
		return nb_error_set(err, "engine %s: more than %d own columns in all engines", e->name,
				    NB_OWN_COLS_ALL_MAX);
	return true;
}

bool nb_engine_register(const struct nb_engine *e, struct nb_error *err)
{
	size_t n = 0;
	while (engines[n])
		n++;
	if (nb_engine_find(e->name))
		return nb_error_set(err, "engine %s: the name is taken", e->name);
	if (n == MAX_ENGINES)
		return nb_error_set(err, "engine %s: the registry is full (%d engines)", e->name,
				    MAX_ENGINES);
	if (!e->client_flow || !e->report)
		return nb_error_set(err, "engine %s: no client_flow or no report op", e->name);
	if (!own_rows_fit(e, err) || !own_numbers_fit(e, err))
		return false;
	engines[n] = e;
	return true;
}

const struct nb_engine *const *nb_engine_list(void)
{
	return engines;
}

const struct nb_engine *nb_engine_find(const char *name)
{
	for (size_t i = 0; engines[i]; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

const struct nb_engine *nb_engine_udp_probe(void)
{
	for (size_t i = 0; engines[i]; i++) {
		const struct nb_engine *e = engines[i];
		if (e->traits.records_latency && e->datapath == NB_DATAPATH_CONNECTED &&
		    nb_engine_runs_over(e, NB_PROTO_UDP) && e->traits.rate == NB_RATE_KIND_PACKETS &&
		    e->traits.loop == NB_LOOP_CLOSED_UNPACED)
			return e;
	}
	return NULL;
}
