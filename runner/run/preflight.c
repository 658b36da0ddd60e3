/* nbrun — the preflight check of a batch (nb_batch_check, batch.h): what the plan needs (its
 * congestion control algorithms, pinned CPUs, data port kinds, longest run, most flows) asked
 * of the agent with one CHECK, and of this host directly, before anything runs. */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "check.h"
#include "params.h"

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

/* One host of hosts: asked what need asks, through a session of its own. */
static size_t check_host(struct nb_batch *b, const char *name, const struct nb_msg_check *need,
			 struct nb_error *err)
{
	struct nb_client c = { .fd = -1 };
	char text[NB_CHECK_TEXT_MAX + 1], who[96];
	nb_facts_init(&c.peer_facts);
	bool ok = nb_reach_open(b->reach, name, &c, err) &&
		  nb_client_check(&c, need, text, sizeof(text), err);
	nb_client_close(&c);
	snprintf(who, sizeof(who), "host %s", name);
	return ok ? print_lines(who, text) : 0;
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
	char local[NB_CHECK_TEXT_MAX], peer[NB_CHECK_TEXT_MAX + 1];
	plan_needs(b->plan, &need);
	local[0] = '\0';
	if (b->peer) /* an embedded agent shares this host: it checks it once */
		nb_check_host(&need, NULL, local, sizeof(local));
	if (!b->need_agent) { /* agentless tests only: this host is all there is to check */
		nb_check_host(&need, NULL, local, sizeof(local));
		return print_lines("this host", local);
	}
	if (!nb_client_check(&b->client, &need, peer, sizeof(peer), err))
		return 0;
	char who[200];
	snprintf(who, sizeof(who), "peer %s", b->client.peer_name);
	size_t n = print_lines("local", local) + print_lines(b->peer ? who : "this host", peer);
	for (size_t i = 1; i < b->npaths; i++) { /* every other path's agent, the same way */
		struct nb_client *c = b->paths[i].client;
		if (!nb_client_check(c, &need, peer, sizeof(peer), err))
			return 0;
		snprintf(who, sizeof(who), "peer %s", c->peer_name);
		n += print_lines(who, peer);
	}
	return n + (b->o->check_only ? nb_batch_check_hosts(b, &need, err) : 0);
}
