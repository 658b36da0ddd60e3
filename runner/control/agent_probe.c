/* nbrun — the agent's side of PROBE (see probe.h): a data port bound as for a run, READY, one
 * data connection or UDP data hello taken as a run takes it, and what came. */
#include "probe.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_int.h"
#include "ctl.h"
#include "dataconn.h"

/* The data ports a firewall must let in: the agent's range, or the one port it took. */
static void ports_text(const struct nb_agent *a, uint16_t port, char *out, size_t n)
{
	if (a->o.data_lo)
		snprintf(out, n, "%u-%u", a->o.data_lo, a->o.data_hi);
	else
		snprintf(out, n, "%u", port);
}

/* Take the probe's one flow within NB_PROBE_AGENT_MS: true when it came; *heard says whether a
 * UDP hello came at all (its return path is what failed). */
static bool take(const struct nb_agent *a, const struct nb_agent_conn *conn, int fd,
		 const struct sockaddr_storage *local, const struct nb_msg_probe *q,
		 const unsigned char *key, uint32_t *heard)
{
	static const struct sockaddr_storage any = { .ss_family = AF_UNSPEC };
	int flow = -1;
	struct nb_dataconn_server sv = {
		.listen_fd = fd, .proto = (enum nb_proto)q->proto, .local = local,
		.local_len = a->addr_len, .peer = q->any_source ? &any : &conn->peer,
		.port_lo = a->o.data_lo, .port_hi = a->o.data_hi, .key = key, .nflows = 1,
		.fds = &flow, .heard = heard,
	};
	struct nb_error err = { { 0 } };
	bool ok = nb_dataconn_accept(&sv, NB_PROBE_AGENT_MS, &err);
	if (flow >= 0)
		close(flow);
	return ok;
}

/* What did not come, and what to open for it; "" when it all came. */
static void verdict(const struct nb_agent *a, const struct nb_msg_probe *q, uint16_t port,
		    bool came, uint32_t heard, char *out, size_t n)
{
	const char *name = nb_probe_proto((enum nb_proto)q->proto);
	char ports[16];
	ports_text(a, port, ports, sizeof(ports));
	out[0] = '\0';
	if (came)
		return;
	if (q->proto == NB_PROTO_UDP && heard)
		snprintf(out, n, "UDP data port %u: the hello came, the echo of this host's challenge "
			 "did not within %u ms: the client's end must let in UDP from this host's "
			 "ports %s\n", port, NB_PROBE_AGENT_MS, ports);
	else
		snprintf(out, n, "%s data port %u: no %s came from the client within %u ms (a "
			 "firewall drops it?): open %s %s to this host\n", name, port,
			 q->proto == NB_PROTO_UDP ? "data hello" : "data connection", NB_PROBE_AGENT_MS,
			 name, ports);
}

void nb_agent_probe(struct nb_agent *a, const struct nb_agent_conn *conn, struct nb_ctl *ctl,
		    const unsigned char session_key[NB_KEY_LEN], uint32_t n,
		    const struct nb_msg_probe *q)
{
	struct nb_msg m = { .type = NB_MSG_CHECK_RESULT };
	struct sockaddr_storage local = a->addr;
	struct nb_error err = { { 0 } };
	uint16_t port = 0;
	bool udp = q->proto == NB_PROTO_UDP;
	int fd = nb_dataconn_bind(udp ? SOCK_DGRAM : SOCK_STREAM, &local, a->addr_len, a->o.data_lo,
				  a->o.data_hi, &port, &err);
	if (fd < 0) { /* the verdict alone: there is nothing to connect to */
		snprintf(m.u.check_result.text, sizeof(m.u.check_result.text), "%s data port: %s\n",
			 nb_probe_proto((enum nb_proto)q->proto), err.msg);
		nb_ctl_send(ctl, &m, 5000, NULL);
		return;
	}
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port };
	unsigned char key[NB_KEY_LEN];
	uint32_t heard = 0;
	nb_probe_key(session_key, n, key);
	bool came = nb_ctl_send(ctl, &ready, 5000, NULL) &&
		    take(a, conn, fd, &local, q, key, &heard);
	sodium_memzero(key, sizeof(key));
	close(fd);
	verdict(a, q, port, came, heard, m.u.check_result.text, sizeof(m.u.check_result.text));
	nb_ctl_send(ctl, &m, 5000, NULL);
	nb_agent_log(a, 0, &conn->peer, "check: %s data path: %s", nb_probe_proto((enum nb_proto)q->proto),
		     came ? "ok" : udp && heard ? "no echo of the challenge" : "nothing came");
}
