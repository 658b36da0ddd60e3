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
