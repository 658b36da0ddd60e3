/* The questions about one engine that its table answers: its traits, its own keys, its drain
 * op. Kept apart from the registry (registry.c): the registry checks an engine's own parameter
 * rows with param_defs.c, and param_defs.c asks these questions, so neither uses the other. */
#include <string.h>

#include "engine.h"
#include "param_defs.h"

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
	for (const struct nb_param_def *d = e ? e->params : NULL; d && d->key; d++)
		if (strcmp(d->key, key) == 0)
			return true;
	return false;
}

bool nb_engine_request_response(const struct nb_engine *e)
{
	return e && e->traits.default_request > 0;
}

bool nb_engine_agentless(const struct nb_engine *e)
{
	return e && e->datapath == NB_DATAPATH_OWN;
}

bool nb_engine_records_latency(const struct nb_engine *e)
{
	return e && e->traits.records_latency;
}

bool nb_case_records_latency(const struct nb_engine *e, const struct nb_params *p)
{
	return nb_engine_records_latency(e) || (e && e->records_latency && e->records_latency(p));
}

bool nb_case_records_lag(const struct nb_engine *e, const struct nb_params *p)
{
	return nb_case_records_latency(e, p) ||
	       (e && p->rate > 0 && p->proto == NB_PROTO_UDP && e->traits.rate != NB_RATE_KIND_NONE);
}

bool nb_engine_due_window(const struct nb_engine *e)
{
	return e && e->set_window;
}

bool nb_engine_closed_loop(const struct nb_engine *e, uint64_t rate)
{
	return e && (e->traits.loop == NB_LOOP_CLOSED ||
		     (e->traits.loop == NB_LOOP_CLOSED_UNPACED && rate == 0));
}
