/* nbrun — the agent's line of clients waiting for its one session: first come, first served,
 * bounded, and the wait each is told (the running batch's plan, less what it has used, and the
 * plans of those ahead). Pure bookkeeping: the caller holds the lock and does the sockets
 * (agent_queue.c). Batches take turns at their ends only: a session is a batch, and none is
 * admitted while another runs.
 */
#ifndef NB_QUEUE_H
#define NB_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

/** One client waiting: its ticket (the order it came in), what its batch plans to take, its
 *  host, and the caller's handle to wake it (an eventfd; -1 none). */
struct nb_queue_place {
	uint64_t ticket;
	uint64_t plan_ms;                 /* 0 = unknown */
	struct sockaddr_storage peer;
	int wake_fd;
};

struct nb_queue {
	uint32_t max;                     /* places (0: no queue: a client finding the session
					     taken is told busy at once) */
	uint32_t per_host;                /* places one host may hold (0: any number) */
	uint32_t n;
	struct nb_queue_place place[NB_QUEUE_PLACES_MAX]; /* in line, first at 0 */
	uint64_t next_ticket;
	bool running;                     /* a session holds the agent */
	uint64_t run_since_ms, run_plan_ms; /* when it began, what it planned (0 = unknown) */
};

enum nb_queue_join {
	NB_QUEUE_JOINED,
	NB_QUEUE_FULL,                    /* max places taken */
	NB_QUEUE_HOST_FULL,               /* per_host places of this host taken */
};

/** An empty line of at most max (≤ NB_QUEUE_PLACES_MAX) places, per_host of them per host. */
void nb_queue_init(struct nb_queue *q, uint32_t max, uint32_t per_host);
/** The session, at once, for a client when nothing runs and nobody waits (true); now_ms and
 *  plan_ms date and size it for the estimates of those who come after. */
bool nb_queue_take(struct nb_queue *q, uint64_t plan_ms, uint64_t now_ms);
/** A place at the end of the line; *ticket names it. */
enum nb_queue_join nb_queue_join(struct nb_queue *q, uint64_t plan_ms,
				 const struct sockaddr_storage *peer, int wake_fd, uint64_t *ticket);
/** The session for ticket when it is first in line and nothing runs: it leaves the line. */
bool nb_queue_admit(struct nb_queue *q, uint64_t ticket, uint64_t now_ms);
/** Ticket leaves the line (gone, gave up); those behind move up. No-op when not in it. */
void nb_queue_leave(struct nb_queue *q, uint64_t ticket);
/** The running session is over: the first in line may take it. */
void nb_queue_end(struct nb_queue *q);
/** Ticket's place, 1 = next; 0 when not in line. */
uint32_t nb_queue_position(const struct nb_queue *q, uint64_t ticket);
/** The wait ticket is told, in ms: what the running batch planned less what it has used, plus
 *  each plan ahead in line; NB_QUEUE_UNKNOWN when any of them did not say, or the running
 *  batch is past its plan (nobody can tell when it ends). */
uint64_t nb_queue_wait_ms(const struct nb_queue *q, uint64_t ticket, uint64_t now_ms);

/** "st", "nd", "rd" or "th": the suffix of n's place ("1st", "2nd", "11th"). */
const char *nb_queue_ordinal(uint32_t n);

#endif
