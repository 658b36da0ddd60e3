/* nbrun — the agent's insides, shared by agent.c (the agent's life), agent_accept.c (who gets
 * a thread), agent_conn.c (a connection's thread), agent_session.c (a session's tests) and
 * agent_log.c (its log lines). */
#ifndef NB_AGENT_INT_H
#define NB_AGENT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent.h"
#include "auth.h"
#include "ctl.h"
#include "queue.h"
#include "ratelog.h"

/** One accepted connection and its thread: a handshake, and maybe then the session. */
struct nb_agent_conn {
	struct nb_agent *a;
	bool used;                      /* the slot is taken (under a->lock, as are the next two) */
	bool done;                      /* its thread has finished: join it, close fd */
	bool session;                   /* it holds the session slot or a place in line for it */
	bool proven;                    /* its handshake is over (a session, or about to be one) */
	bool evicted;                   /* it gave way to a newcomer: it never becomes a session */
	bool companion;                 /* its session is a companion of the one that holds the
					   agent (proto.h COMPANION), not the holder */
	uint64_t number;                /* its session's number (a companion: its holder's) */
	int fd;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint64_t since_ms;              /* accepted then (nb_ctl_now_ms clock) */
	pthread_t thread;
};

/** A connection that has said nothing yet: the acceptor's, no thread. */
struct nb_agent_pending {
	int fd;
	struct sockaddr_storage peer;
	socklen_t len;
	uint64_t since_ms;
	uint64_t order;                 /* the acceptor's count at its accept: older is smaller */
	uint32_t same;                  /* the silent connections of its source, itself included */
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
	struct nb_agent_pending pending[NB_AGENT_PENDING]; /* the acceptor's own, no lock */
	size_t npending;
	uint64_t accepted;              /* connections taken into pending so far (their order) */
	struct nb_ratelog full_log;     /* "handshake slots full" */
	struct nb_ratelog refused_log;  /* refused handshakes (wrong secret, busy, version) */
	struct nb_queue queue;          /* the session slot and the line for it (queue.h) */
	uint64_t sessions_begun, sessions_ended;
	/* The holder's companions (proto.h COMPANION): the tickets it was given, used or not, and
	 * how many companions run; the next in line waits for the holder and all of them. */
	struct {
		uint8_t ticket[NB_COMPANION_TICKET_LEN];
		bool valid;
	} ticket[NB_COMPANIONS_MAX];
	uint64_t holder;                /* the number of the session that holds the agent, 0 none */
	uint32_t companions;            /* companion sessions running */
	uint32_t issued;                /* tickets the holder was given (NB_COMPANIONS_MAX at most) */
	bool holder_ended;              /* the holder is over; its companions still run */
	uint32_t running_flows;         /* the flows of the tests running now (a holder's and its
					   companions'): --max-streams and --max-rate hold their sum */
	double running_bps;
	int lifeline_fd;                /* nb_agent_stop_on_eof: its end stops the agent; -1 none */
	struct nb_ratelog not_allowed;  /* clients refused by --allow: a line each, then counts */
	pthread_t thread;               /* local mode */
	bool have_thread;
};

/** Log one line about a peer when the agent's verbosity is at least level (agent_log.c). */
void nb_agent_log(const struct nb_agent *a, int level, const struct sockaddr_storage *peer,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** Say what each rate-limited log line held in its interval, once that is over (now UINT64_MAX:
 *  all, at the end; agent_log.c). */
void nb_agent_log_summaries(struct nb_agent *a, uint64_t now);
/** The thread body of one connection (agent_conn.c): its handshake, then maybe the session. */
void *nb_agent_conn_main(void *arg);
/** Join finished connection threads and close their sockets (all of them when `all`, after
 *  shutting the live ones down); waiting connections are closed too when all. */
void nb_agent_reap(struct nb_agent *a, bool all);
/** After c's handshake (its control connection ctl, sealed): its QUEUE, then the session at
 *  once or after waiting in line, until deadline_ms for the QUEUE (agent_queue.c). The session's
 *  number (1 for the agent's first), or 0: c did not get it (refused, gone, gave up, the agent
 *  stops); its log line is said. */
uint64_t nb_agent_admit(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
			uint64_t deadline_ms);
/** A companion ticket for c's session (proto.h COMPANION), when c holds the agent (not a
 *  companion itself) and has had fewer than NB_COMPANIONS_MAX; else false and why. */
bool nb_agent_companion_ticket(struct nb_agent *a, const struct nb_agent_conn *c,
			       uint8_t ticket[NB_COMPANION_TICKET_LEN], const char **why);
/** c's session is over: the first in line may take it (once the holder's companions are over
 *  too). */
void nb_agent_release(struct nb_agent *a, struct nb_agent_conn *c);
/** Serve an authenticated client's session on c (its control connection ctl, sealed) until BYE,
 *  an error or a stop request; the tests it asked for. */
uint32_t nb_agent_session_serve(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
				const struct nb_auth *auth);

#endif
