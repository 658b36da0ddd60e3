/* nbrun — the preflight check of a batch (nb_batch_check, batch.h), before anything runs: what
 * the plan needs (its congestion control algorithms, pinned CPUs, data port kinds, most flows)
 * asked of each agent with one CHECK and of this host directly; every case held to the limits
 * the agent answers with, as its SETUP would be; and the data path to each agent proven with a
 * PROBE per protocol this host sends it (probe.h), so a firewall between the ends is found here. */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "check.h"
#include "agent_limits.h"
#include "params.h"
#include "probe.h"
#include "run_int.h"

#define LIMIT_LINES_MAX 8 /* cases named per agent beyond its limits; then how many more */

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

/* Each line of text on stderr as "nbrun: check: WHO: LINE"; returns how many. */
static size_t print_lines(const char *who, const char *text)
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

/* Whether case c keeps within lim (held by who) as its SETUP will be judged; else why. A swept
 * case as its longest trial at its highest rate. */
static bool within(const struct nb_case *c, const struct nb_limits *lim, const char *who, char *why,
		   size_t n)
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

size_t nb_run_note_default_limits(const struct nb_plan *plan, FILE *out)
{
	struct nb_limits lim;
	size_t n = 0;
	nb_limits_serve_defaults(&lim);
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_case *c = &plan->cases[i];
		char why[NB_TEXT_MAX];
		if (nb_engine_agentless(c->engine) || within(c, &lim, "nbrun serve", why, sizeof(why)))
			continue;
		fprintf(out, "note: %s: %s (its default: start the agent with a higher one)\n", c->id,
			why);
		n++;
	}
	return n;
}

/* Every case of the agent's held to its limits, as its SETUP will be: one line per case. */
static size_t check_limits(const struct nb_batch *b, const struct nb_limits *lim, const char *host,
			   const char *who)
{
	size_t n = 0;
	for (size_t i = 0; i < b->plan->ncases; i++) {
		const struct nb_case *c = &b->plan->cases[i];
		char why[NB_TEXT_MAX];
		bool here;
		if (!on_agent(c, host, &here) || within(c, lim, "this agent", why, sizeof(why)))
			continue;
		if (n++ < LIMIT_LINES_MAX)
			fprintf(stderr, "nbrun: check: %s: %s: %s\n", who, c->id, why);
	}
	if (n > LIMIT_LINES_MAX)
		fprintf(stderr, "nbrun: check: %s: %zu more cases beyond its limits\n", who,
			n - LIMIT_LINES_MAX);
	return n;
}

/* The data path to the agent: one PROBE per protocol of the cases this host sends it. */
static size_t check_path(const struct nb_batch *b, struct nb_client *c, const char *host,
			 const char *who, struct nb_error *err)
{
	unsigned protos = 0;
	for (size_t i = 0; i < b->plan->ncases; i++) {
		bool here;
		if (on_agent(&b->plan->cases[i], host, &here) && here)
			protos |= 1u << b->plan->cases[i].params.proto;
	}
	size_t n = 0;
	for (int p = NB_PROTO_TCP; p <= NB_PROTO_UDP && !err->msg[0]; p++) {
		char problem[NB_CHECK_TEXT_MAX + 1];
		if ((protos >> p & 1u) && nb_client_probe(c, (enum nb_proto)p, problem, sizeof(problem), err))
			n += print_lines(who, problem);
	}
	return n;
}

/* One agent (of host, NULL: --peer's or the embedded one) asked what need asks, its limits held
 * against its cases, its data path proven; the problems printed, each naming who. */
static size_t check_agent(const struct nb_batch *b, struct nb_client *c, const char *host,
			  const struct nb_msg_check *need, const char *who, struct nb_error *err)
{
	char text[NB_CHECK_TEXT_MAX + 1];
	struct nb_limits lim;
	if (!nb_client_check(c, need, text, sizeof(text), &lim, err))
		return 0;
	size_t n = print_lines(who, text) + check_limits(b, &lim, host, who);
	return n + check_path(b, c, host, who, err);
}

/* One host of hosts: asked what need asks, through a session of its own. */
static size_t check_host(struct nb_batch *b, const char *name, const struct nb_msg_check *need,
			 struct nb_error *err)
{
	struct nb_client c = { .ctl.fd = -1 };
	char who[96];
	snprintf(who, sizeof(who), "host %s", name);
	nb_facts_init(&c.peer_facts);
	size_t n = nb_reach_open(b->reach, name, &c, err) ? check_agent(b, &c, name, need, who, err) : 0;
	nb_client_close(&c);
	return n;
}

size_t nb_batch_check_hosts(struct nb_batch *b, const struct nb_msg_check *need,
			    struct nb_error *err)
{
	const char *names[NB_HOSTS_MAX];
	size_t n = nb_reach_plan_hosts(b->cfg, b->plan, b->peer, names, NB_HOSTS_MAX), problems = 0;
	if (n && !nb_batch_reach(b, err))
		return 0;
	for (size_t i = 0; i < n && !err->msg[0]; i++)
		if (!b->peer || strcmp(names[i], b->peer) != 0) /* the peer is asked already */
			problems += check_host(b, names[i], need, err);
	return problems;
}

size_t nb_batch_check(struct nb_batch *b, struct nb_error *err)
{
	struct nb_msg_check need;
	char local[NB_CHECK_TEXT_MAX];
	plan_needs(b->plan, &need);
	local[0] = '\0';
	if (b->peer) /* an embedded agent shares this host: it checks it once */
		nb_check_host(&need, NULL, local, sizeof(local));
	if (!b->need_agent) { /* agentless tests only: this host is all there is to check */
		nb_check_host(&need, NULL, local, sizeof(local));
		return print_lines("this host", local);
	}
	char who[200];
	snprintf(who, sizeof(who), "peer %s", b->client.peer_name);
	size_t n = print_lines("local", local) +
		   check_agent(b, &b->client, NULL, &need, b->peer ? who : "this host", err);
	for (size_t i = 1; i < b->npaths && !err->msg[0]; i++) { /* every other path's agent */
		struct nb_client *c = b->paths[i].client;
		snprintf(who, sizeof(who), "peer %s", c->peer_name);
		n += check_agent(b, c, NULL, &need, who, err);
	}
	if (err->msg[0])
		return 0;
	return n + (b->o->check_only ? nb_batch_check_hosts(b, &need, err) : 0);
}
