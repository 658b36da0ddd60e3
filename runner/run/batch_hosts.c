/* nbrun — a batch's hosts of `hosts:` (issue 17): --peer NAME reached through hosts_reach.h.
 * The multi-path run itself is not here; --check of every host is preflight.c. */
#include "batch.h"

bool nb_batch_reach(struct nb_batch *b, struct nb_error *err)
{
	struct nb_reach_opts ro = { .cfg = b->cfg, .secret = b->o->secret, .push = b->o->push,
				    .interrupt = b->o->interrupt, .verbosity = b->o->verbosity,
				    .wait = &b->waiting.w };
	if (!b->reach)
		b->reach = nb_reach_create(&ro);
	return b->reach || nb_error_set(err, "out of memory");
}

enum nb_run_exit nb_batch_connect_host(struct nb_batch *b, const struct nb_host *h,
				       struct nb_error *err)
{
	if (!nb_batch_reach(b, err) || !nb_reach_open(b->reach, h->name, &b->client, err))
		return b->client.busy ? NB_EXIT_BUSY : NB_EXIT_PEER;
	return NB_EXIT_OK;
}
