/* nbrun — the client's control session: connect (or take a connected stream), shake hands, read the agent's facts, CHECK,
 * and BYE (see client.h); a test's run is client.c. */
#include "client.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "hello_facts.h"
#include "ifstats.h"
#include "text.h"

#define HANDSHAKE_MS 10000

/* The agent's FACTS once the session is ours, or its ERROR (busy). */
static bool read_facts(struct nb_client *c, struct nb_error *err)
{
	struct nb_msg m;
	char text[NB_TEXT_MAX + 1];
	int r = nb_ctl_recv(&c->ctl, &m, HANDSHAKE_MS, err);
	if (r == 0)
		return nb_error_set(err, "peer %s did not answer the handshake within %d s", c->peer_name,
				    HANDSHAKE_MS / 1000);
	if (r < 0)
		return nb_error_set(err, "peer %s: %s", c->peer_name, nb_text_sanitize(text, sizeof(text),
												err->msg));
	bool ok = m.type == NB_MSG_FACTS;
	if (ok)
		nb_hello_facts_read(&m.u.facts, &c->peer_facts);
	const struct nb_fact *version = ok ? nb_facts_get(&c->peer_facts, "nbrun", "version") : NULL;
	if (version && version->ok) /* an agent with a secret says it only now; else its HELLO did */
		nb_text_sanitize(c->peer_version, sizeof(c->peer_version), version->value);
	else if (m.type == NB_MSG_ERROR)
		nb_error_set(err, "peer %s: %s", c->peer_name,
			     nb_text_sanitize(text, sizeof(text), m.u.error.text));
	else if (!ok)
		nb_error_set(err, "peer %s: expected FACTS, got %s", c->peer_name, nb_msg_name(m.type));
	nb_msg_free(&m);
	return ok;
}

bool nb_client_open_fd(struct nb_client *c, const char *peer_name, int fd,
		       const struct sockaddr_storage *data_addr, socklen_t len,
		       const struct nb_secret *secret, struct nb_error *err)
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
	if (!ok || !read_facts(c, err)) {
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
		    socklen_t len, const struct nb_secret *secret, struct nb_error *err)
{
	int fd = nb_ctl_connect(addr, len, HANDSHAKE_MS, err);
	if (fd >= 0)
		return nb_client_open_fd(c, peer_name, fd, addr, len, secret, err);
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
