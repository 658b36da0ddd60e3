/* nbrun — the targets over agents' control sessions (see target.h): an agent target is one
 * session, this host at the other end of its data path; a relay target is a path between two
 * agents' sessions, neither end this host. Both can run as a composite's child (r->group). */
#include <stdatomic.h>

#include "target.h"
#include "target_int.h"

static enum nb_outcome agent_run(struct nb_run_target *t, struct nb_target_run *r,
				 struct nb_test_result *res, struct nb_error *err)
{
	struct nb_agent_target *a = (struct nb_agent_target *)t;
	struct nb_test_sink sink = nb_target_test_sink(r);
	r->nparts = 0;
	return nb_client_test_path_after(&a->client, r->su, r->group, r->start_after_ns, &sink, res,
					 err);
}

static void agent_abort(struct nb_run_target *t)
{
	atomic_store(&((struct nb_agent_target *)t)->client.abort, true);
}

static void agent_close(struct nb_run_target *t)
{
	nb_client_close(&((struct nb_agent_target *)t)->client);
}

static const struct nb_run_target_impl agent_target_impl = {
	.kind = "agent",
	.check = nb_agent_target_check,
	.run = agent_run,
	.abort = agent_abort,
	.close = agent_close,
};

void nb_agent_target_init(struct nb_agent_target *t)
{
	t->base = (struct nb_run_target){ .impl = &agent_target_impl, .peer = t->client.peer_name,
				      .npaths = 1 };
	t->client.ctl.fd = -1;
	nb_facts_init(&t->client.peer_facts);
}

static enum nb_outcome relay_run(struct nb_run_target *t, struct nb_target_run *r,
				 struct nb_test_result *res, struct nb_error *err)
{
	struct nb_relay_target *y = (struct nb_relay_target *)t;
	struct nb_test_sink sink = nb_target_test_sink(r);
	r->nparts = 0;
	return nb_client_test_relay(y->src, y->dst, r->su, r->group, &sink, res, err);
}

/* Both sessions stop: each end waits on its own session's flag. */
static void relay_abort(struct nb_run_target *t)
{
	struct nb_relay_target *y = (struct nb_relay_target *)t;
	atomic_store(&y->src->abort, true);
	atomic_store(&y->dst->abort, true);
}

/* The sessions are the agent targets' (the batch's ends close them). */
static const struct nb_run_target_impl relay_target_impl = {
	.kind = "relay",
	.burst_run_id = true,
	.run = relay_run,
	.abort = relay_abort,
};

void nb_relay_target_init(struct nb_relay_target *t, struct nb_client *src, struct nb_client *dst)
{
	*t = (struct nb_relay_target){ .base = { .impl = &relay_target_impl, .peer = dst->peer_name,
						 .npaths = 1 },
				       .src = src, .dst = dst };
}
