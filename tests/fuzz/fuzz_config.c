/* Fuzz harness: the config loader, YAML text -> config -> plan (config.c, plan.c), as
 * `nbrun validate` runs it on a file. */
#include "config.h"
#include "fuzz.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nb_config cfg;
	struct nb_plan plan = { 0 };
	struct nb_error err;
	if (size > 65536 || !nb_config_load_text("fuzz.yaml", (const char *)data, size, NULL, 0, &cfg, &err))
		return 0;
	if (nb_plan_build(&cfg, NULL, 0, &plan, &err))
		nb_plan_free(&plan);
	nb_config_free(&cfg);
	return 0;
}
