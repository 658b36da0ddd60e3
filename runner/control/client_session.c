/* nbrun — the client's control session: connect (or take a connected stream), shake hands,
 * take the session (waiting in the agent's line when it is another's), read the agent's facts,
 * CHECK, and BYE (see client.h); a test's run is client.c. */
#include "client.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "hello_facts.h"
#include "ifstats.h"
#include "queue.h"
#include "text.h"

#define HANDSHAKE_MS 10000

/* A wait as a person says it: "about 45 s" (up to the next 5 s), "about 3 min", "about 1 h 20
 * min" (to the nearest minute). */
static void about(uint64_t ms, char *out, size_t n)
{
	uint64_t s = (ms + 999) / 1000, min = (s + 30) / 60;
	if (s < 60)
		snprintf(out, n, "about %llu s", (unsigned long long)((s + 4) / 5 * 5));
	else if (min < 60)
		snprintf(out, n, "about %llu min", (unsigned long long)min);
	else if (min % 60 == 0)
		snprintf(out, n, "about %llu h", (unsigned long long)(min / 60));
	else
		snprintf(out, n, "about %llu h %llu min", (unsigned long long)(min / 60),
			 (unsigned long long)(min % 60));
}

void nb_client_wait_str(uint32_t position, uint64_t wait_ms, char *out, size_t n)
{
	char est[48] = "wait unknown";
	if (wait_ms != NB_QUEUE_UNKNOWN)
		about(wait_ms, est, sizeof(est));
	snprintf(out, n, "%u%s in line, %s", position, nb_queue_ordinal(position), est);
}

/* The agent's first word after the handshake and each while we wait: FACTS (the session is
 * ours: 1), QUEUE (our place: 0, told to w), or anything else (-1, err says it). */
static int session_frame(struct nb_client *c, struct nb_msg *m, const struct nb_client_wait *w,
			 uint32_t *position, struct nb_error *err)
{
	char text[NB_TEXT_MAX + 1];
	if (m->type == NB_MSG_FACTS) {
		nb_hello_facts_read(&m->u.facts, &c->peer_facts);
		const struct nb_fact *version = nb_facts_get(&c->peer_facts, "nbrun", "version");
		if (version && version->ok) /* an agent with a secret says it only now; else its HELLO did */
			nb_text_sanitize(c->peer_version, sizeof(c->peer_version), version->value);
		return 1;
	}
	if (m->type == NB_MSG_QUEUE && m->u.queue.position > 0) {
		*position = m->u.queue.position;
		if (w && w->told)
			w->told(w->ctx, c, *position, m->u.queue.wait_ms);
		return 0;
	}
	if (m->type == NB_MSG_ERROR) {
		c->busy = m->u.error.code == NB_ERR_BUSY;
		nb_error_set(err, "peer %s: %s", c->peer_name,
			     nb_text_sanitize(text, sizeof(text), m->u.error.text));
	} else {
		nb_error_set(err, "peer %s: expected FACTS, got %s", c->peer_name, nb_msg_name(m->type));
	}
	return -1;
}

/* Ask for the session (QUEUE: our plan, how long we wait), then wait for FACTS, in line as
 * long as w allows: our end gives up at its timeout, the agent a little later. */
static bool take_session(struct nb_client *c, const struct nb_client_wait *w, struct nb_error *err)
{
	struct nb_msg m = { .type = NB_MSG_QUEUE };
	m.u.queue = (struct nb_msg_queue){ .plan_ms = w ? w->plan_ms : 0,
					   .wait_ms = w ? w->timeout_ms : 0 };
	if (w && w->companion) { /* beside the session that holds the agent: no line */
		m.type = NB_MSG_COMPANION;
		memcpy(m.u.companion.ticket, w->companion, NB_COMPANION_TICKET_LEN);
	}
	bool sent = nb_ctl_send(&c->ctl, &m, 5000, err);
	sodium_memzero(&m, sizeof(m));
	m.type = NB_MSG_QUEUE;
	if (!sent)
		return nb_error_set(err, "peer %s: %s", c->peer_name, err->msg);
	uint64_t start = nb_ctl_now_ms(), heard = start;
	uint64_t give_up = start + (w ? w->timeout_ms : 0);
	uint32_t position = 0;
	for (;;) {
		uint64_t now = nb_ctl_now_ms();
		uint64_t silent = position ? 3 * NB_QUEUE_UPDATE_MS : HANDSHAKE_MS;
		if (position && now >= give_up) {
			c->busy = true;
			return nb_error_set(err, "gave up waiting for peer %s after %.0f s "
					    "(--queue-timeout): %u%s in line", c->peer_name,
					    (double)(now - start) / 1000, position, nb_queue_ordinal(position));
		}
		if (w && w->interrupt && atomic_load(w->interrupt))
			return nb_error_set(err, "interrupted while waiting for peer %s", c->peer_name);
		if (now - heard >= silent)
			return nb_error_set(err, "peer %s %s within %llu s", c->peer_name, position ?
					    "said nothing while we waited in its line" :
					    "did not answer the handshake", (unsigned long long)(silent / 1000));
		int r = nb_ctl_recv(&c->ctl, &m, 250, err);
		if (r < 0) {
			char text[NB_TEXT_MAX + 1];
			return nb_error_set(err, "peer %s: %s", c->peer_name,
					    nb_text_sanitize(text, sizeof(text), err->msg));
		}
		if (r == 0)
			continue;
		heard = nb_ctl_now_ms();
		int got = session_frame(c, &m, w, &position, err);
		nb_msg_free(&m);
		if (got)
			return got > 0;
	}
}

bool nb_client_open_fd(struct nb_client *c, const char *peer_name, int fd,
		       const struct sockaddr_storage *data_addr, socklen_t len,
		       const struct nb_secret *secret, const struct nb_client_wait *w,
		       struct nb_error *err)
{
	memset(c, 0, sizeof(*c));
	nb_facts_init(&c->peer_facts);
	snprintf(c->peer_name, sizeof(c->peer_name), "%s", peer_name);
	c->addr = *data_addr;
	c->addr_len = len;
	nb_ctl_init(&c->ctl, fd);
	struct nb_auth auth;
	bool ok = nb_auth_client(&c->ctl, secret, HANDSHAKE_MS, peer_name, &auth, err);
	if (ok)
		snprintf(c->peer_version, sizeof(c->peer_version), "%s", auth.peer_version);
	if (!ok || !take_session(c, w, err)) {
		close(fd);
		nb_ctl_forget(&c->ctl);
		c->ctl.fd = -1;
		sodium_memzero(&auth, sizeof(auth));
		return false;
	}
	memcpy(c->session_key, auth.session_key, NB_KEY_LEN);
	c->proven = secret && secret->set; /* else the agent has none: it would require it */
	sodium_memzero(&auth, sizeof(auth));
	if (!nb_ifstats_route_ifname((const struct sockaddr *)data_addr, len, c->ifname,
				     sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	return true;
}

bool nb_client_open(struct nb_client *c, const char *peer_name, const struct sockaddr_storage *addr,
		    socklen_t len, const struct nb_secret *secret, const struct nb_client_wait *w,
		    struct nb_error *err)
{
	int fd = nb_ctl_connect(addr, len, HANDSHAKE_MS, err);
	if (fd >= 0)
		return nb_client_open_fd(c, peer_name, fd, addr, len, secret, w, err);
	memset(c, 0, sizeof(*c));
	nb_facts_init(&c->peer_facts);
	c->ctl.fd = -1;
	return false;
}

void nb_client_close(struct nb_client *c)
{
	if (c->ctl.fd >= 0) {
		struct nb_msg bye = { .type = NB_MSG_BYE };
		nb_ctl_send(&c->ctl, &bye, 1000, NULL);
		close(c->ctl.fd);
		c->ctl.fd = -1;
	}
	nb_ctl_forget(&c->ctl);
	sodium_memzero(c->session_key, sizeof(c->session_key));
	nb_facts_free(&c->peer_facts);
}

bool nb_client_companion_ticket(struct nb_client *holder, uint8_t ticket[NB_COMPANION_TICKET_LEN],
				struct nb_error *err)
{
	struct nb_msg m = { .type = NB_MSG_COMPANION };
	if (!nb_ctl_send(&holder->ctl, &m, 5000, err))
		return false;
	int r = nb_ctl_recv(&holder->ctl, &m, HANDSHAKE_MS, err);
	if (r == 0)
		nb_error_set(err, "peer %s gave no companion ticket within %d s", holder->peer_name,
			     HANDSHAKE_MS / 1000);
	if (r != 1)
		return false;
	bool ok = m.type == NB_MSG_COMPANION;
	if (ok)
		memcpy(ticket, m.u.companion.ticket, NB_COMPANION_TICKET_LEN);
	else if (m.type == NB_MSG_ERROR) {
		char text[NB_TEXT_MAX + 1];
		nb_error_set(err, "peer %s gives no companion session: %s", holder->peer_name,
			     nb_text_sanitize(text, sizeof(text), m.u.error.text));
	}
	else
		nb_error_set(err, "peer %s answered COMPANION with %s", holder->peer_name,
			     nb_msg_name(m.type));
	sodium_memzero(&m, sizeof(m));
	return ok;
}

bool nb_client_check(struct nb_client *c, const struct nb_msg_check *need, char *problems,
		     size_t len, struct nb_limits *limits, struct nb_error *err)
{
	struct nb_msg m = { .type = NB_MSG_CHECK };
	m.u.check = *need;
	problems[0] = '\0';
	if (!nb_ctl_send(&c->ctl, &m, 5000, err))
		return false;
	int r = nb_ctl_recv(&c->ctl, &m, HANDSHAKE_MS, err);
	if (r == 0)
		nb_error_set(err, "peer %s did not answer the check within %d s", c->peer_name,
			     HANDSHAKE_MS / 1000);
	if (r != 1)
		return false;
	bool ok = m.type == NB_MSG_CHECK_RESULT;
	if (ok) {
		snprintf(problems, len, "%s", m.u.check_result.text);
		*limits = m.u.check_result.limits;
	}
	else if (m.type == NB_MSG_ERROR)
		nb_error_set(err, "peer %s cannot check: %s", c->peer_name, m.u.error.text);
	else
		nb_error_set(err, "peer %s answered the check with %s", c->peer_name,
			     nb_msg_name(m.type));
	nb_msg_free(&m);
	return ok;
}
