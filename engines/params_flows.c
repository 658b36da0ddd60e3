/* nbrun — a case's flow layout (see params.h): how many flows it runs and which end sends on
 * each. Kept apart from the enum names (params.c): this asks the registry for the engine's
 * traits, the registry uses param_defs.c, and param_defs.c uses the enum names. */
#include "params.h"

/* The engines whose flows have one sender each, so that forward / reverse / bidir apply. The
 * one place the flow layout asks what an engine is. */
/* One sender per flow, as the engine's traits say. */
static bool is_directional(const struct nb_params *p)
{
	const struct nb_engine *e = nb_engine_find(p->engine);
	return e && e->traits.directional;
}

uint32_t nb_params_nflows(const struct nb_params *p)
{
	if (is_directional(p) && p->direction == NB_DIR_BIDIR)
		return 2 * p->streams;
	return p->streams;
}

bool nb_params_client_sends(const struct nb_params *p, uint32_t flow)
{
	return !is_directional(p) || nb_params_dir_client_sends(p, flow);
}
