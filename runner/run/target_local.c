/* nbrun — the local target (see target.h): an agentless engine's flows reach their target by
 * themselves, on this host's clock alone; no control session, no agent. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ifstats.h"
#include "target.h"
#include "target_int.h"

static enum nb_outcome local_run(struct nb_run_target *t, struct nb_target_run *r,
				 struct nb_test_result *res, struct nb_error *err)
{
	struct nb_local_target *l = (struct nb_local_target *)t;
	struct nb_test_sink sink = nb_target_test_sink(r);
	r->nparts = 0;
	return nb_solo_test_path(&l->to, r->su, r->group, &sink, res, err);
}

/* Nothing to stop early: the test watches the interrupt only (the run ends within its slice). */
static void local_abort(struct nb_run_target *t)
{
	(void)t;
}

static const struct nb_run_target_impl local_target_impl = {
	.kind = "local",
	.check = nb_local_target_check,
	.run = local_run,
	.abort = local_abort,
};

bool nb_local_target_open(struct nb_local_target *t, const char *host,
			  const atomic_bool *interrupt, struct nb_error *err)
{
	struct nb_solo_target *to = &t->to;
	t->base = (struct nb_run_target){ .impl = &local_target_impl, .peer = "?", .npaths = 1 };
	if (!nb_ctl_resolve(host, NB_DEFAULT_CONTROL_PORT, &to->addr, &to->addr_len, err))
		return false;
	if (!nb_ifstats_route_ifname((const struct sockaddr *)&to->addr, to->addr_len, to->ifname,
				     sizeof(to->ifname), NULL))
		to->ifname[0] = '\0';
	to->interrupt = interrupt;
	return true;
}
