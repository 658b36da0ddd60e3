/* nbrun — one connection's thread (see agent.h): its handshake, then, for a client that proved
 * itself, the one session slot at once or after waiting in line (agent_queue.c), and the session
 * (agent_session.c). Each session's first and last lines are said while it holds the agent,
 * numbered: their order in the log shows that no two sessions ran at once. */
#include <pthread.h>
#include <sodium.h>

#include "agent_int.h"
#include "ctl.h"

/* A refusal worth a line: a few per interval, then counted (a flood of wrong secrets); an
 * interval that is over says its count first (ratelog.h). */
static void refused(struct nb_agent *a, const struct sockaddr_storage *peer, const char *why)
{
	uint64_t now = nb_ctl_now_ms();
	nb_agent_log_summaries(a, now);
	if (nb_ratelog_event(&a->refused_log, now))
		nb_agent_log(a, 0, peer, "refused: %s", why);
}

/* The handshake is over: the connection may become the session, unless it was made to give way
 * to a newcomer meanwhile (agent_accept.c). */
static bool proven(struct nb_agent *a, struct nb_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	bool ok = !c->evicted;
	c->proven = ok;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

void *nb_agent_conn_main(void *arg)
{
	struct nb_agent_conn *c = arg;
	struct nb_agent *a = c->a;
	struct nb_auth auth;
	struct nb_error err = { { 0 } };
	struct nb_ctl ctl;
	uint64_t session;
	nb_ctl_init(&ctl, c->fd);
	uint64_t deadline = c->since_ms +
			    (a->o.stdio ? NB_AGENT_STDIO_HANDSHAKE_MS : NB_AGENT_HANDSHAKE_MS);
	enum nb_auth_verdict v = nb_auth_agent(&ctl, a->o.secret, deadline, &auth, &err);
	if (v == NB_AUTH_REFUSED) {
		refused(a, &c->peer, err.msg);
	} else if (v == NB_AUTH_GONE || !proven(a, c)) {
		nb_agent_log(a, 1, &c->peer, "no handshake: %s", v == NB_AUTH_GONE ? err.msg : "gave way");
	} else if ((session = nb_agent_admit(a, c, &ctl, deadline)) != 0) {
		char who[80];
		nb_ctl_addr_str(&c->peer, who, sizeof(who));
		const char *of = c->companion ? "companion of " : "";
		nb_agent_log(a, 0, NULL, "session from %s (nbrun %s), %s#%llu", who, auth.peer_version,
			     of, (unsigned long long)session);
		uint32_t runs = nb_agent_session_serve(a, c, &ctl, &auth);
		nb_agent_log(a, 0, &c->peer, "%ssession #%llu ended after %u run%s",
			     c->companion ? "companion of " : "", (unsigned long long)session, runs,
			     runs == 1 ? "" : "s");
		nb_agent_release(a, c);
	}
	sodium_memzero(&auth, sizeof(auth));
	nb_ctl_forget(&ctl);
	pthread_mutex_lock(&a->lock);
	c->done = true;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}
