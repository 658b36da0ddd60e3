/* nbrun — proving the data path before a batch (proto.h PROBE).
 *
 * CHECK asks each end what it has; it cannot see a firewall between them. So before any folder
 * exists the client opens, once per protocol its plan uses, the one data connection (TCP) or
 * UDP data hello (hello, challenge, echo, ACK) a run opens first, to a data port the agent binds
 * for it as a run would, and the agent says what came: a dropped data port is one line naming
 * the protocol, the port range and what to open, in seconds, not a failed run after 10 s.
 *
 * The agent takes a probe only inside an authenticated session, at most NB_PROBES_MAX of them
 * per session, holds its data port for at most NB_PROBE_AGENT_MS, and sends nothing but the UDP
 * challenge and ACK of dhello.h, to the source that proved the probe's key from the client's
 * host (a session over ssh: from any host that proves it, as its runs take data). The key is
 * derived from the session key and the probe's number (1, 2 ... in the session, counted alike at
 * both ends) under a context of its own, so it is never a run's key.
 */
#ifndef NB_PROBE_H
#define NB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "nb_error.h"
#include "proto.h"

#define NB_PROBES_MAX 8          /* probes one session may ask */
#define NB_PROBE_CLIENT_MS 1500  /* the client's attempt: a TCP handshake (one SYN retransmitted
				    after 1 s still makes it) or UDP hellos every 100 ms */
#define NB_PROBE_AGENT_MS 1800   /* the agent waits this long after READY: the client's attempt
				    and the way there */

struct nb_agent;
struct nb_agent_conn;
struct nb_client;
struct nb_ctl;

/** The data key of probe n of a session (both ends compute it; never a run's key). */
void nb_probe_key(const unsigned char session_key[NB_KEY_LEN], uint32_t n,
		  unsigned char out[NB_KEY_LEN]);
/** "TCP" or "UDP", as a firewall rule names it. */
const char *nb_probe_proto(enum nb_proto proto);
/** Client: prove proto's data path to c's agent (TCP or UDP). problem gets one line saying what
 *  blocked it, or "" when the path works. False with err only when the session is lost. */
bool nb_client_probe(struct nb_client *c, enum nb_proto proto, char *problem, size_t len,
		     struct nb_error *err);
/** Agent: answer probe q, the session's n-th (its key derived from session_key), of client conn
 *  on its sealed control connection ctl: READY with a data port, then CHECK_RESULT with what
 *  came; or CHECK_RESULT alone when no data port is free. */
void nb_agent_probe(struct nb_agent *a, const struct nb_agent_conn *conn, struct nb_ctl *ctl,
		    const unsigned char session_key[NB_KEY_LEN], uint32_t n,
		    const struct nb_msg_probe *q);

#endif
