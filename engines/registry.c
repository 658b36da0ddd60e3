/* The static list of engines, looked up by name, and the questions about an engine
 * that its traits answer.
 *
 * Adding an engine: its own file exporting one `const struct nb_engine` table with its
 * traits filled, that file in meson.build, its `extern` in engines.h, one line in the
 * array below, and its section in docs/engines.md. Nothing outside engines/ names an
 * engine: the config language, the plan, the metrics and the report all read the traits.
 * (An engine that needs a config key no engine has yet also needs that key in the runner's
 * key table and a field in struct nb_params.) */
#include <string.h>

#include "engine.h"
#include "engines.h"

static const struct nb_engine *const engines[] = {
	&nb_engine_stream,
	&nb_engine_pps,
	&nb_engine_rr,
	&nb_engine_crr,
	&nb_engine_latency,
	&nb_engine_icmp,
	&nb_engine_connect,
	NULL,
};

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

uint64_t nb_engine_drain_ns(const struct nb_engine *e, const struct nb_params *p)
{
	return e && e->drain_ns ? e->drain_ns(p) : 0;
}

bool nb_engine_runs_over(const struct nb_engine *e, enum nb_proto proto)
{
	return e && (e->traits.protocols & (1u << proto));
}

bool nb_engine_has_key(const struct nb_engine *e, const char *key)
{
	for (size_t i = 0; e && e->traits.keys && e->traits.keys[i]; i++)
		if (strcmp(e->traits.keys[i], key) == 0)
			return true;
	return false;
}

bool nb_engine_request_response(const struct nb_engine *e)
{
	return e && e->traits.default_request > 0;
}

bool nb_engine_agentless(const struct nb_engine *e)
{
	return e && e->traits.agentless;
}

bool nb_engine_closed_loop(const struct nb_engine *e, uint64_t rate)
{
	return e && (e->traits.loop == NB_LOOP_CLOSED ||
		     (e->traits.loop == NB_LOOP_CLOSED_UNPACED && rate == 0));
}
