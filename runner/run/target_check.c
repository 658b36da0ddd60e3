/* nbrun — what --check asks of each kind of target (see target.h), and the two helpers the
 * batch's preflight (preflight.c) shares with them: a problem per line on stderr, and a case
 * held to an agent's limits as its SETUP will be. */
#include <stdio.h>
#include <string.h>

#include "agent_limits.h"
#include "check.h"
#include "params.h"
#include "probe.h"
#include "run_int.h"
#include "target.h"
#include "target_check.h"

#define LIMIT_LINES_MAX 8 /* cases named per agent beyond its limits; then how many more */

size_t nb_check_print(const char *who, const char *text)
{
	size_t n = 0;
	for (const char *s = text; *s;) {
		size_t len = strcspn(s, "\n");
		fprintf(stderr, "nbrun: check: %s: %.*s\n", who, (int)len, s);
		n++;
		s += len + (s[len] == '\n');
	}
	return n;
}

bool nb_check_case_within(const struct nb_case *c, const struct nb_limits *lim, const char *who,
			  char *why, size_t n)
{
	struct nb_msg_setup su;
	nb_run_build_setup(c, 0, &su);
	if (c->sweep.enabled) {
		su.duration_ns = c->sweep.trial_ns;
		su.params.rate = c->sweep.to;
		for (uint32_t i = 0; i < c->sweep.nsteps; i++)
			su.params.rate = c->sweep.steps[i] > su.params.rate ? c->sweep.steps[i] : su.params.rate;
	}
	return nb_limits_check_as(lim, c->engine, &su, who, why, n);
}

/* Whether case c runs on the agent of host (NULL: the agent of --peer, or the embedded one,
 * which runs every case without paths:), and (*from_here) whether this host sends it data. */
static bool on_agent(const struct nb_case *c, const char *host, bool *from_here)
{
	const struct nb_test *t = c->test;
	*from_here = false;
	if (nb_engine_agentless(c->engine))
		return false;
	if (!host)
		return *from_here = t->npaths == 0;
	bool on = false;
	for (uint32_t k = 0; k < t->npaths; k++) {
		bool to = strcmp(t->paths[k].to, host) == 0;
		*from_here = *from_here || (to && strcmp(t->paths[k].from, NB_HOST_LOCAL) == 0);
		on = on || to || strcmp(t->paths[k].from, host) == 0;
	}
	return on;
}

/* Every case of the agent's held to its limits, as its SETUP will be: one line per case. */
static size_t check_limits(const struct nb_target_check *chk, const struct nb_limits *lim)
{
	size_t n = 0;
	for (size_t i = 0; i < chk->plan->ncases; i++) {
		const struct nb_case *c = &chk->plan->cases[i];
		char why[NB_TEXT_MAX];
		bool here;
		if (!on_agent(c, chk->host, &here) ||
		    nb_check_case_within(c, lim, "this agent", why, sizeof(why)))
			continue;
		if (n++ < LIMIT_LINES_MAX)
			fprintf(stderr, "nbrun: check: %s: %s: %s\n", chk->who, c->id, why);
	}
	if (n > LIMIT_LINES_MAX)
		fprintf(stderr, "nbrun: check: %s: %zu more cases beyond its limits\n", chk->who,
			n - LIMIT_LINES_MAX);
	return n;
}

/* The data path to the agent: one PROBE per protocol of the cases this host sends it. */
static size_t check_path(const struct nb_target_check *chk, struct nb_client *c,
			 struct nb_error *err)
{
	unsigned protos = 0;
	for (size_t i = 0; i < chk->plan->ncases; i++) {
		bool here;
		if (on_agent(&chk->plan->cases[i], chk->host, &here) && here)
			protos |= 1u << chk->plan->cases[i].params.proto;
	}
	size_t n = 0;
	for (int p = NB_PROTO_TCP; p <= NB_PROTO_UDP && !err->msg[0]; p++) {
		char problem[NB_CHECK_TEXT_MAX + 1];
		if ((protos >> p & 1u) && nb_client_probe(c, (enum nb_proto)p, problem, sizeof(problem), err))
			n += nb_check_print(chk->who, problem);
	}
	return n;
}

/* The roles of both ends on the xdp datapath (NB_CHECK_XDP_*) in the cases this host runs
 * with the agent, and the most flows one case sends from each: the agent's into its CHECK,
 * this host's into *here and *here_senders. */
static void xdp_roles(const struct nb_target_check *chk, struct nb_msg_check *agent,
		      uint8_t *here, uint32_t *here_senders)
{
	agent->xdp = *here = 0;
	agent->xdp_senders = 0;
	*here_senders = 0;
	for (size_t i = 0; i < chk->plan->ncases; i++) {
		const struct nb_case *c = &chk->plan->cases[i];
		const struct nb_params *p = &c->params;
		bool from_here;
		if (p->datapath != NB_PKT_XDP || !on_agent(c, chk->host, &from_here) || !from_here)
			continue;
		uint32_t mine = 0, theirs = 0;
		for (uint32_t f = 0; f < nb_params_nflows(p); f++) {
			bool sends = nb_params_client_sends(p, f);
			*here |= sends ? NB_CHECK_XDP_TX : NB_CHECK_XDP_RX;
			agent->xdp |= sends ? NB_CHECK_XDP_RX : NB_CHECK_XDP_TX;
			mine += sends;
			theirs += !sends;
		}
		*here_senders = mine > *here_senders ? mine : *here_senders;
		agent->xdp_senders = theirs > agent->xdp_senders ? (uint16_t)theirs : agent->xdp_senders;
	}
}

size_t nb_agent_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
			     struct nb_error *err)
{
	struct nb_client *c = &((struct nb_agent_target *)t)->client;
	char text[NB_CHECK_TEXT_MAX + 1];
	struct nb_limits lim;
	struct nb_msg_check need = *chk->need;
	uint8_t here;
	uint32_t here_senders;
	xdp_roles(chk, &need, &here, &here_senders);
	if (!nb_client_check(c, &need, text, sizeof(text), &lim, err))
		return 0;
	size_t n = nb_check_print(chk->who, text) + check_limits(chk, &lim);
	char mine[NB_CHECK_TEXT_MAX + 1] = "";
	/* the embedded agent is this host: the same line once */
	if (nb_check_xdp(here, here_senders, &c->addr, c->addr_len, mine, sizeof(mine)) &&
	    !strstr(text, mine))
		n += nb_check_print("this host", mine);
	return n + check_path(chk, c, err);
}

size_t nb_local_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
			     struct nb_error *err)
{
	char text[NB_CHECK_TEXT_MAX];
	(void)t, (void)err;
	text[0] = '\0';
	nb_check_host(chk->need, NULL, text, sizeof(text));
	return nb_check_print(chk->who, text);
}
