/* The static list of engines, looked up by name. Adding an engine = one line here. */
#include <string.h>

#include "engine.h"
#include "engines.h"

static const struct nb_engine *const engines[] = {
	&nb_engine_stream,
	&nb_engine_pps,
	&nb_engine_rr,
	&nb_engine_crr,
	&nb_engine_latency,
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

static bool is_directional(const struct nb_params *p)
{
	return strcmp(p->engine, "stream") == 0 || strcmp(p->engine, "pps") == 0;
}

uint32_t nb_params_nflows(const struct nb_params *p)
{
	if (is_directional(p) && p->direction == NB_DIR_BIDIR)
		return 2 * p->streams;
	return p->streams;
}

bool nb_params_client_sends(const struct nb_params *p, uint32_t flow)
{
	if (!is_directional(p))
		return true;
	switch (p->direction) {
	case NB_DIR_FORWARD:
		return true;
	case NB_DIR_REVERSE:
		return false;
	case NB_DIR_BIDIR:
		return flow < p->streams;
	}
	return true;
}
