/* nbrun — the preflight check of a batch (nb_batch_check, batch.h), before anything runs: what
 * the plan needs (its congestion control algorithms, pinned CPUs, data port kinds, most flows)
 * asked of each of its ends, each a target's check (target_check.c): this host directly, each
 * agent with one CHECK, every case held to the limits the agent answers with, as its SETUP
 * would be, and the data path to each agent proven with a PROBE per protocol this host sends
 * it (probe.h), so a firewall between the ends is found here. */
#include <stdio.h>
#include <string.h>

#include "agent_limits.h"
#include "batch.h"
#include "check.h"
#include "params.h"
#include "target_check.h"

static void plan_needs(const struct nb_plan *plan, struct nb_msg_check *need)
{
	memset(need, 0, sizeof(*need));
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_case *c = &plan->cases[i];
		const struct nb_params *p = &c->params;
		if (p->congestion[0] && p->proto == NB_PROTO_TCP)
			nb_check_add_cc(need, p->congestion);
		for (uint32_t k = 0; k < p->ncpus; k++)
			nb_check_add_cpu(need, (unsigned)p->cpus[k]);
		need->protocols |= (uint8_t)(1u << p->proto);
		if (nb_params_nflows(p) > need->max_flows)
			need->max_flows = nb_params_nflows(p);
	}
}

size_t nb_run_note_default_limits(const struct nb_plan *plan, FILE *out)
{
	struct nb_limits lim;
	size_t n = 0;
	nb_limits_serve_defaults(&lim);
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_case *c = &plan->cases[i];
		char why[NB_TEXT_MAX];
		if (nb_engine_agentless(c->engine) ||
		    nb_check_case_within(c, &lim, "nbrun serve", why, sizeof(why)))
			continue;
		fprintf(out, "note: %s: %s (its default: start the agent with a higher one)\n", c->id,
			why);
		n++;
	}
	return n;
}

/* One host of hosts: asked what need asks, through an agent target of its own. */
static size_t check_host(struct nb_batch *b, const char *name, const struct nb_msg_check *need,
			 struct nb_error *err)
{
	struct nb_agent_target t;
	char who[96];
	snprintf(who, sizeof(who), "host %s", name);
	nb_agent_target_init(&t);
	struct nb_target_check chk = { .plan = b->plan, .need = need, .host = name, .who = who };
	size_t n = nb_reach_open(b->ends.reach, name, &t.client, err)
			   ? nb_target_check(&t.base, &chk, err) : 0;
	nb_target_close(&t.base);
	return n;
}

size_t nb_batch_check_hosts(struct nb_batch *b, const struct nb_msg_check *need,
			    struct nb_error *err)
{
	const char *names[NB_HOSTS_MAX], *peer = b->ends.peer;
	size_t n = nb_reach_plan_hosts(b->cfg, b->plan, peer, names, NB_HOSTS_MAX), problems = 0;
	if (n && !nb_ends_reach(&b->ends, err))
		return 0;
	for (size_t i = 0; i < n && !err->msg[0]; i++)
		if (!peer || strcmp(names[i], peer) != 0) /* the peer is asked already */
			problems += check_host(b, names[i], need, err);
	return problems;
}

/* This host (the local target), then every session's agent: path 0's (--peer's, or the
 * embedded one, which shares this host and so checks it once), then each other path's. */
size_t nb_batch_check(struct nb_batch *b, struct nb_error *err)
{
	struct nb_ends *e = &b->ends;
	struct nb_msg_check need;
	plan_needs(b->plan, &need);
	struct nb_target_check chk = { .plan = b->plan, .need = &need, .who = "this host" };
	if (!e->need_agent) /* agentless tests only: this host is all there is to check */
		return nb_target_check(&e->local.base, &chk, err);
	chk.who = "local";
	size_t n = e->peer ? nb_target_check(&e->local.base, &chk, err) : 0;
	char who[200];
	for (size_t i = 0; i < e->nends && !err->msg[0]; i++) {
		snprintf(who, sizeof(who), "peer %s", e->end[i].agent.client.peer_name);
		chk.who = i == 0 && !e->peer ? "this host" : who;
		n += nb_target_check(&e->end[i].agent.base, &chk, err);
	}
	if (err->msg[0])
		return 0;
	return n + (b->o->check_only ? nb_batch_check_hosts(b, &need, err) : 0);
}
