/* nbrun — the agent (`nbrun serve`, and the embedded agent of local mode).
 *
 * Anyone may knock; few get in. A connection from outside the --allow ranges is told so in one
 * frame, unread, and closed at once (a line in the log each, NB_AGENT_REFUSED_BURST a minute, then
 * a count). A connection that has said nothing yet costs a file descriptor and no thread: up to
 * NB_AGENT_PENDING of them (NB_AGENT_PER_ADDR per source) wait in the acceptor for their first
 * bytes, each NB_AGENT_FIRST_BYTES_MS at most, and when they are all taken the oldest silent one
 * of the source holding the most makes room for the newcomer, if that source holds more than
 * the newcomer's would (else the newcomer is told the agent is saturated). One that spoke gets
 * a thread to shake hands in, one of NB_AGENT_CONNS (NB_AGENT_PER_ADDR per source),
 * NB_AGENT_HANDSHAKE_MS from its accept to finish
 * (auth.h); when they are all taken, the oldest handshake of the source holding the most of them
 * gives way, if that source holds at least two more than the newcomer's, else the newcomer is told
 * the agent is saturated. A source is an IPv4 address or an IPv6 /64. So a flood holds no slot an
 * honest client needs unless it comes from as many sources as there are slots, and even then an
 * honest client is told why. Only a client that finished the handshake (proved the secret, when
 * the agent has one) may take the one session slot, or wait in line for it (agent_queue.c,
 * queue.h): first come first served, at most --max-queue waiting (without a secret,
 * NB_AGENT_QUEUE_PER_HOST of them from one host), each told its place and the wait as they
 * change, and nothing else about the others. Each test is checked against the limits (agent_limits.h), and its data
 * connections are accepted from the client's host only, UDP ones after a return-path check
 * (dataconn.h): the agent sends to no address but its client's. Its log says "handshake slots
 * full" at most once per NB_AGENT_LOG_INTERVAL_MS and refused handshakes NB_AGENT_LOG_BURST times
 * per interval, each followed by how many more (ratelog.h). */
#ifndef NB_AGENT_H
#define NB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "auth.h"
#include "cidr.h"
#include "nb_error.h"
#include "agent_limits.h"

#define NB_AGENT_CONNS 64            /* connections being served at once, the session included */
#define NB_AGENT_PER_ADDR 8          /* silent connections, and handshakes, at once from one source */
#define NB_AGENT_PENDING 256         /* connections that have said nothing yet */
#define NB_AGENT_FIRST_BYTES_MS 1000 /* from accept to the first bytes of the client's HELLO */
#define NB_AGENT_HANDSHAKE_MS 2000   /* from accept to the end of the handshake */
#define NB_AGENT_LOG_INTERVAL_MS 10000 /* a flood's log lines: a summary per interval */
#define NB_AGENT_LOG_BURST 5         /* refused handshakes logged per interval before the summary */
#define NB_AGENT_SENDER_GRACE_S 5    /* a run's senders stop this long after its end without STOP */
/** What a client whose connection found no slot is told. */
#define NB_AGENT_SATURATED "agent is saturated: every handshake slot is taken (a flood of " \
			   "connections?); try again later"
#define NB_AGENT_REFUSED_BURST 10    /* clients outside --allow logged in full per window ... */
#define NB_AGENT_REFUSED_WINDOW_MS 60000 /* ... then counted, the count said once it is over */
#define NB_AGENT_QUEUE_DEFAULT 8      /* `nbrun serve`'s --max-queue */
#define NB_AGENT_QUEUE_PER_HOST 4     /* without a secret: places in line one host may hold */
#define NB_AGENT_QUEUE_GRACE_MS 2000  /* a waiter is dropped this long after the wait it asked
					 for (it gives up itself at its end) */
#define NB_AGENT_STDIO_HANDSHAKE_MS 15000 /* the same over ssh: the client waits for the agent's
					     start line first (sshlaunch.h), and nobody else can
					     reach this connection */

struct nb_agent_opts {
	const char *bind;            /* control/data address; NULL = all (IPv6 dual-stack or IPv4) */
	uint16_t port;               /* control port; 0 = ephemeral */
	uint16_t data_lo, data_hi;   /* data port range; 0,0 = ephemeral */
	bool once;                   /* exit after the first session */
	bool stdio;                  /* no control port: only the connection nb_agent_adopt gives
					(serve --stdio); bind must name the data address */
	struct nb_limits limits;     /* what one test may ask (zero fields: no limit) */
	uint32_t idle_timeout_s;     /* an idle control connection is closed after this */
	uint32_t max_queue;          /* clients that may wait for the session (0: none, a second
					client is told busy at once); at most NB_QUEUE_PLACES_MAX */
	int verbosity;               /* -1 silent, 0 refusals and warnings, 1+ every connection */
	bool collect_facts;          /* read this host's environment for FACTS */
	const struct nb_secret *secret; /* NULL or unset: no authentication (anyone may use it) */
	const struct nb_cidr *allow; /* who may connect at all; nallow 0 = anyone */
	size_t nallow;
};

struct nb_agent;

/** Bind the control port (none with o->stdio); NULL with err on failure. */
struct nb_agent *nb_agent_create(const struct nb_agent_opts *o, struct nb_error *err);
/** The bound control port (0 with stdio). */
uint16_t nb_agent_port(const struct nb_agent *a);
/** Serve until stopped (or after one session with once); returns false on a fatal error. */
bool nb_agent_run(struct nb_agent *a, struct nb_error *err);
/** Serve fd, a connected control stream, as a connection accepted from peer (the address
 *  the session's data connections must come from); the agent closes it. False with err when
 *  no thread could start (fd is closed then too). */
bool nb_agent_adopt(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
		    socklen_t len, struct nb_error *err);
/** Run nb_agent_run on a background thread (local mode). */
bool nb_agent_start_thread(struct nb_agent *a, struct nb_error *err);
/** Ask a running agent to stop (safe from a signal handler). */
void nb_agent_request_stop(struct nb_agent *a);
/** Stop the agent when fd reaches its end (nb_agent_run polls it): `serve --secret-stdin` under
 *  ssh ends with its ssh connection, so no agent outlives the runner that started it. */
void nb_agent_stop_on_eof(struct nb_agent *a, int fd);
/** Stop, join and free; NULL is a no-op. */
void nb_agent_destroy(struct nb_agent *a);
/** Tests run so far (for tests). */
uint64_t nb_agent_tests_run(const struct nb_agent *a);

#endif
