/* nbrun — a runner waiting in a busy agent's line (see waiting.h). */
#include "waiting.h"

#include <stdio.h>
#include <string.h>

static void told(void *ctx, const struct nb_client *c, uint32_t position, uint64_t wait_ms)
{
	struct nb_waiting *wt = ctx;
	char where[96], line[sizeof(wt->said)];
	nb_client_wait_str(position, wait_ms, where, sizeof(where));
	snprintf(line, sizeof(line), "waiting for the agent at %s: %s", c->peer_name, where);
	if (wt->verbosity < 0 || strcmp(line, wt->said) == 0)
		return;
	snprintf(wt->said, sizeof(wt->said), "%s", line);
	fprintf(stderr, "nbrun: %s\n", line);
}

void nb_waiting_init(struct nb_waiting *wt, double plan_s, uint32_t timeout_ms, int verbosity,
		     const atomic_bool *interrupt)
{
	memset(wt, 0, sizeof(*wt));
	wt->verbosity = verbosity;
	wt->w = (struct nb_client_wait){ .plan_ms = plan_s > 0 ? (uint64_t)(plan_s * 1000) : 0,
					 .timeout_ms = timeout_ms, .interrupt = interrupt,
					 .told = told, .ctx = wt };
	if (wt->w.plan_ms > NB_QUEUE_MS_MAX) /* beyond what a QUEUE says: nobody can tell */
		wt->w.plan_ms = 0;
}
