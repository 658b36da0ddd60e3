/* nbrun — the SETUP of a case for one run (see run_int.h). Kept apart from the run loop
 * (run.c), so that a file the run loop calls (the checks before a batch) can build a case's
 * SETUP too without the two using each other. */
#include <stdio.h>
#include <string.h>

#include "run_int.h"

void nb_run_build_setup(const struct nb_case *c, uint32_t run_id, struct nb_msg_setup *su)
{
	memset(su, 0, sizeof(*su));
	su->run_id = run_id;
	snprintf(su->case_id, sizeof(su->case_id), "%s", c->id);
	su->params = c->params;
	su->warmup_ns = c->timing.warmup_ns;
	su->omit_ns = c->timing.omit_ns;
	su->cooldown_ns = c->timing.cooldown_ns;
	su->duration_ns = c->timing.duration_ns;
	su->interval_ns = c->timing.interval_ns;
	su->drain_ns = nb_engine_drain_ns(c->engine, &c->params);
}
