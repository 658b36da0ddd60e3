/* nbrun — the line of clients waiting for the agent's session (see queue.h). */
#include "queue.h"

#include <string.h>

#include "sock.h"

void nb_queue_init(struct nb_queue *q, uint32_t max, uint32_t per_host)
{
	memset(q, 0, sizeof(*q));
	q->max = max < NB_QUEUE_PLACES_MAX ? max : NB_QUEUE_PLACES_MAX;
	q->per_host = per_host;
	q->next_ticket = 1;
}

static void begin(struct nb_queue *q, uint64_t plan_ms, uint64_t now_ms)
{
	q->running = true;
	q->run_since_ms = now_ms;
	q->run_plan_ms = plan_ms;
}

bool nb_queue_take(struct nb_queue *q, uint64_t plan_ms, uint64_t now_ms)
{
	if (q->running || q->n)
		return false;
	begin(q, plan_ms, now_ms);
	return true;
}

enum nb_queue_join nb_queue_join(struct nb_queue *q, uint64_t plan_ms,
				 const struct sockaddr_storage *peer, int wake_fd, uint64_t *ticket)
{
	if (q->n >= q->max)
		return NB_QUEUE_FULL;
	uint32_t same = 0;
	for (uint32_t i = 0; i < q->n; i++)
		same += nb_sock_same_host(&q->place[i].peer, peer);
	if (q->per_host && same >= q->per_host)
		return NB_QUEUE_HOST_FULL;
	*ticket = q->next_ticket++;
	q->place[q->n++] = (struct nb_queue_place){ .ticket = *ticket, .plan_ms = plan_ms,
						    .peer = *peer, .wake_fd = wake_fd };
	return NB_QUEUE_JOINED;
}

void nb_queue_leave(struct nb_queue *q, uint64_t ticket)
{
	uint32_t at = nb_queue_position(q, ticket);
	if (!at)
		return;
	memmove(&q->place[at - 1], &q->place[at], (q->n - at) * sizeof(q->place[0]));
	q->n--;
}

bool nb_queue_admit(struct nb_queue *q, uint64_t ticket, uint64_t now_ms)
{
	if (q->running || nb_queue_position(q, ticket) != 1)
		return false;
	uint64_t plan = q->place[0].plan_ms;
	nb_queue_leave(q, ticket);
	begin(q, plan, now_ms);
	return true;
}

void nb_queue_end(struct nb_queue *q)
{
	q->running = false;
}

uint32_t nb_queue_position(const struct nb_queue *q, uint64_t ticket)
{
	for (uint32_t i = 0; i < q->n; i++)
		if (q->place[i].ticket == ticket)
			return i + 1;
	return 0;
}

uint64_t nb_queue_wait_ms(const struct nb_queue *q, uint64_t ticket, uint64_t now_ms)
{
	uint32_t at = nb_queue_position(q, ticket);
	uint64_t wait = 0;
	if (!at)
		return NB_QUEUE_UNKNOWN;
	if (q->running) {
		uint64_t used = now_ms > q->run_since_ms ? now_ms - q->run_since_ms : 0;
		if (!q->run_plan_ms || used >= q->run_plan_ms)
			return NB_QUEUE_UNKNOWN;
		wait = q->run_plan_ms - used;
	}
	for (uint32_t i = 0; i + 1 < at; i++) {
		if (!q->place[i].plan_ms)
			return NB_QUEUE_UNKNOWN;
		wait += q->place[i].plan_ms;
	}
	return wait;
}

const char *nb_queue_ordinal(uint32_t n)
{
	uint32_t t = n % 100;
	if (t >= 11 && t <= 13)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}
