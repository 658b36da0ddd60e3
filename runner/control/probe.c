/* nbrun — the client's side of PROBE, and the key both ends derive (see probe.h). */
#include "probe.h"

#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "ctl.h"
#include "dataconn.h"
#include "sock.h"
#include "text.h"

#define PROBE_CONTEXT "nbprobe1"  /* crypto_kdf context of a session key's probe keys */
#define ANSWER_MS 5000            /* a control frame's way back, beyond the agent's own wait */

void nb_probe_key(const unsigned char session_key[NB_KEY_LEN], uint32_t n,
		  unsigned char out[NB_KEY_LEN])
{
	crypto_kdf_derive_from_key(out, NB_KEY_LEN, n, PROBE_CONTEXT, session_key);
}

const char *nb_probe_proto(enum nb_proto proto)
{
	return proto == NB_PROTO_UDP ? "UDP" : "TCP";
}

/* The agent's next frame: READY (*port), CHECK_RESULT (its verdict, into problem) or ERROR
 * (why it refused, into problem); 1 for READY, 0 for the others, -1 with err when the session
 * is lost or the frame is something else. */
static int answer(struct nb_client *c, int timeout_ms, uint16_t *port, char *problem, size_t len,
		  struct nb_error *err)
{
	struct nb_msg m;
	int r = nb_ctl_recv(&c->ctl, &m, timeout_ms, err);
	if (r == 0)
		nb_error_set(err, "peer %s did not answer the data path probe within %d s",
			     c->peer_name, timeout_ms / 1000);
	if (r != 1)
		return -1;
	int got = m.type == NB_MSG_READY ? 1 : 0;
	char text[NB_CHECK_TEXT_MAX + 1];
	if (m.type == NB_MSG_READY)
		*port = m.u.ready.port;
	else if (m.type == NB_MSG_CHECK_RESULT)
		snprintf(text, sizeof(text), "%s", m.u.check_result.text);
	else if (m.type == NB_MSG_ERROR)
		nb_text_sanitize(text, sizeof(text), m.u.error.text);
	else
		got = -1, nb_error_set(err, "peer %s answered the data path probe with %s",
				       c->peer_name, nb_msg_name(m.type));
	if (got == 0) {
		text[strcspn(text, "\n")] = '\0'; /* one line: the first */
		snprintf(problem, len, "%s", text);
	}
	nb_msg_free(&m);
	return got;
}

/* One data connection or UDP data hello to the agent's data port, as a run's first flow. */
static bool attempt(const struct nb_client *c, enum nb_proto proto, uint16_t port, uint32_t n,
		    struct nb_error *err)
{
	struct nb_params p = { .proto = proto, .streams = 1, .tos = -1 };
	struct sockaddr_storage to = c->addr;
	if (to.ss_family == AF_INET)
		((struct sockaddr_in *)&to)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&to)->sin6_port = htons(port);
	nb_probe_key(c->session_key, n, p.key);
	int fd = nb_dataconn_connect(&to, c->addr_len, 0, &p,
				     nb_now_ns() + NB_PROBE_CLIENT_MS * 1000000ull, err);
	sodium_memzero(p.key, sizeof(p.key));
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

bool nb_client_probe(struct nb_client *c, enum nb_proto proto, char *problem, size_t len,
		     struct nb_error *err)
{
	struct nb_msg q = { .type = NB_MSG_PROBE, .u.probe = { (uint8_t)proto, c->any_source } };
	uint16_t port = 0;
	problem[0] = '\0';
	if (!nb_ctl_send(&c->ctl, &q, ANSWER_MS, err))
		return false;
	uint32_t n = ++c->probes; /* the agent counts the same */
	int r = answer(c, ANSWER_MS, &port, problem, len, err);
	if (r <= 0)
		return r == 0;
	struct nb_error mine = { { 0 } };
	bool came = attempt(c, proto, port, n, &mine);
	char verdict[NB_CHECK_TEXT_MAX + 1] = "";
	if (answer(c, NB_PROBE_AGENT_MS + ANSWER_MS, &port, verdict, sizeof(verdict), err) != 0)
		return false; /* a second READY is as wrong as a lost session */
	if (verdict[0]) /* the agent saw what did not come: its words name the ports to open */
		snprintf(problem, len, "%s", verdict);
	else if (!came) /* the agent saw it all; what it sent back did not reach us */
		snprintf(problem, len, "%s data port %u: %s", nb_probe_proto(proto), port, mine.msg);
	return true;
}
