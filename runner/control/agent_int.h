/* nbrun — the agent's insides, shared by agent.c (connections) and agent_session.c (a
 * session's tests). */
#ifndef NB_AGENT_INT_H
#define NB_AGENT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent.h"
#include "auth.h"
#include "queue.h"
#include "ratelog.h"

/** One accepted connection and its thread: a handshake, and maybe then the session. */
struct nb_agent_conn {
	struct nb_agent *a;
	bool used;                      /* the slot is taken (under a->lock, as are the next two) */
	bool done;                      /* its thread has finished: join it, close fd */
	bool session;                   /* it holds the session slot or a place in line for it
					   (authenticated: no handshake of its host's, agent.c) */
	int fd;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	pthread_t thread;
};

struct nb_agent {
	struct nb_agent_opts o;
	int listen_fd;
	int wake[2];                    /* self-pipe: stop requests */
	struct sockaddr_storage addr;   /* the bound control address; data sockets use its host */
	socklen_t addr_len;
	atomic_bool stopping;
	atomic_uint_fast64_t tests;
	pthread_mutex_t lock;
	struct nb_agent_conn conns[NB_AGENT_CONNS];
	struct nb_queue queue;          /* the session slot and the line for it (queue.h) */
	uint64_t sessions_begun, sessions_ended;
	int lifeline_fd;                /* nb_agent_stop_on_eof: its end stops the agent; -1 none */
	struct nb_ratelog not_allowed;  /* clients refused by --allow: a line each, then counts */
	pthread_t thread;               /* local mode */
	bool have_thread;
};

/** Log one line about a peer when the agent's verbosity is at least level. */
void nb_agent_log(const struct nb_agent *a, int level, const struct sockaddr_storage *peer,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** After c's handshake: its QUEUE, then the session at once or after waiting in line, until
 *  deadline_ms for the QUEUE (agent_queue.c). The session's number (1 for the agent's first),
 *  or 0: c did not get it (refused, gone, gave up, the agent stops); its log line is said. */
uint64_t nb_agent_admit(struct nb_agent *a, struct nb_agent_conn *c, uint64_t deadline_ms);
/** c's session is over: the first in line may take it. */
void nb_agent_release(struct nb_agent *a, struct nb_agent_conn *c);
/** Serve an authenticated client's session on c until BYE, an error or a stop request; the
 *  tests it asked for. */
uint32_t nb_agent_session_serve(struct nb_agent *a, struct nb_agent_conn *c,
				const struct nb_auth *auth);

#endif
