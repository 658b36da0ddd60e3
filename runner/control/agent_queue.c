/* nbrun — an authenticated connection's way into the agent's one session (see agent.h): the
 * client's QUEUE first (its batch's plan, how long it waits), then the session at once, or a
 * place in line (queue.h), told its place and the wait whenever its place changes and every
 * NB_QUEUE_UPDATE_MS, until its turn, its wait is over, it goes away (its place is freed at
 * once) or the agent stops. Only the handshake's end (agent_conn.c) leads here, so a connection
 * that has not proved the secret never holds a place. */
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "agent_int.h"
#include "ctl.h"

/* Why the session can no longer be had (under a->lock), or NULL. */
static const char *closed_why(struct nb_agent *a)
{
	if (atomic_load(&a->stopping))
		return "busy: it is stopping";
	if (a->o.once && a->sessions_begun > 0)
		return "busy: it serves one session (--once), and that has begun";
	return NULL;
}

/* c has the session (under a->lock): its number. Its companions are still to come. */
static uint64_t began(struct nb_agent *a, struct nb_agent_conn *c)
{
	c->session = true;
	c->number = ++a->sessions_begun;
	a->holder = c->number;
	a->holder_ended = false;
	a->issued = 0;
	memset(a->ticket, 0, sizeof(a->ticket));
	return c->number;
}

/* Everyone in line may have moved: wake them (under a->lock). */
static void wake_all(struct nb_agent *a)
{
	for (uint32_t i = 0; i < a->queue.n; i++) {
		uint64_t one = 1;
		ssize_t w = write(a->queue.place[i].wake_fd, &one, sizeof(one));
		(void)w;
	}
}

static void leave(struct nb_agent *a, struct nb_agent_conn *c, uint64_t ticket)
{
	pthread_mutex_lock(&a->lock);
	nb_queue_leave(&a->queue, ticket);
	c->session = false;
	wake_all(a);
	pthread_mutex_unlock(&a->lock);
}

/* An ERROR busy and its log line. */
static uint64_t refuse(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
		       const char *why)
{
	char text[NB_TEXT_MAX];
	snprintf(text, sizeof(text), "agent is %s; try again later", why);
	nb_ctl_send_error(ctl, NB_ERR_BUSY, text);
	nb_agent_log(a, 0, &c->peer, "refused: %s", why);
	return 0;
}

/* The client's QUEUE, the first frame after the handshake, or a companion's COMPANION (*ask
 * then NULL-like: position UINT32_MAX, its ticket in *ticket). */
static bool read_ask(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
		     uint64_t deadline_ms, struct nb_msg_queue *ask,
		     uint8_t ticket[NB_COMPANION_TICKET_LEN])
{
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	int r = nb_ctl_recv_by(ctl, &m, deadline_ms, NB_HANDSHAKE_FRAME_MAX, &err);
	if (r != 1) {
		nb_agent_log(a, 1, &c->peer, "no QUEUE after the handshake: %s",
			     r == 0 ? "silent" : err.msg);
		return false;
	}
	bool ok = (m.type == NB_MSG_QUEUE && m.u.queue.position == 0) || m.type == NB_MSG_COMPANION;
	if (m.type == NB_MSG_QUEUE)
		*ask = m.u.queue;
	if (m.type == NB_MSG_COMPANION) {
		ask->position = UINT32_MAX;
		memcpy(ticket, m.u.companion.ticket, NB_COMPANION_TICKET_LEN);
	}
	if (!ok)
		nb_ctl_send_error(ctl, NB_ERR_PROTOCOL, "expected QUEUE after the handshake");
	nb_msg_free(&m);
	return ok;
}

/* Tell the client where it stands; false when it cannot be told (gone). */
static bool tell(struct nb_ctl *ctl, uint32_t position, uint64_t wait_ms)
{
	struct nb_msg m = { .type = NB_MSG_QUEUE,
			    .u.queue = { .position = position, .wait_ms = wait_ms } };
	return nb_ctl_send(ctl, &m, 2000, NULL);
}

enum line_end { LINE_IN, LINE_GONE, LINE_OVER, LINE_CLOSED };

/* Wait in line until the session is ours (*session its number) or the wait ends otherwise. */
static enum line_end in_line(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
			     uint64_t ticket, int wake, uint64_t give_up_ms, uint64_t *session)
{
	uint32_t told = 0;
	uint64_t next_tell = 0;
	for (;;) {
		uint64_t now = nb_ctl_now_ms();
		pthread_mutex_lock(&a->lock);
		bool closed = closed_why(a) != NULL;
		bool in = !closed && nb_queue_admit(&a->queue, ticket, now);
		if (in)
			*session = began(a, c);
		uint32_t pos = nb_queue_position(&a->queue, ticket);
		uint64_t wait = nb_queue_wait_ms(&a->queue, ticket, now);
		pthread_mutex_unlock(&a->lock);
		if (in)
			return LINE_IN;
		if (closed)
			return LINE_CLOSED;
		if (now >= give_up_ms)
			return LINE_OVER;
		if (pos != told || now >= next_tell) {
			if (!tell(ctl, pos, wait))
				return LINE_GONE;
			told = pos;
			next_tell = now + NB_QUEUE_UPDATE_MS;
		}
		uint64_t until = next_tell < give_up_ms ? next_tell : give_up_ms;
		/* a stop request sets a flag only: look at it at least every 250 ms */
		int ms = (int)(until - now < 250 ? until - now : 250);
		struct pollfd p[2] = { { .fd = c->fd, .events = POLLIN }, { .fd = wake, .events = POLLIN } };
		if (poll(p, 2, ms) > 0 && p[0].revents)
			return LINE_GONE; /* a waiting client says nothing: anything is its end */
		uint64_t n;
		if (p[1].revents && read(wake, &n, sizeof(n)) < 0)
			continue;
	}
}

/* A place in line for c and the wait in it: the session's number, or 0. */
static uint64_t wait_in_line(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
			     const struct nb_msg_queue *ask)
{
	int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake < 0)
		return refuse(a, c, ctl, "busy with another client (and cannot queue: eventfd failed)");
	uint64_t ticket = 0, session = 0;
	pthread_mutex_lock(&a->lock);
	enum nb_queue_join j = nb_queue_join(&a->queue, ask->plan_ms, &c->peer, wake, &ticket);
	c->session = j == NB_QUEUE_JOINED;
	uint32_t pos = nb_queue_position(&a->queue, ticket);
	pthread_mutex_unlock(&a->lock);
	char why[96];
	if (j != NB_QUEUE_JOINED) {
		close(wake);
		snprintf(why, sizeof(why), "busy with another client, and %s", j == NB_QUEUE_FULL ?
			 "its queue is full (--max-queue)" : "this host holds all its places in line");
		return refuse(a, c, ctl, why);
	}
	char plan[32] = "unknown";
	if (ask->plan_ms)
		snprintf(plan, sizeof(plan), "%llu s", (unsigned long long)(ask->plan_ms + 999) / 1000);
	nb_agent_log(a, 0, &c->peer, "queued: %u%s in line (its plan: %s)", pos, nb_queue_ordinal(pos), plan);
	uint64_t give_up = nb_ctl_now_ms() + ask->wait_ms + NB_AGENT_QUEUE_GRACE_MS;
	enum line_end e = in_line(a, c, ctl, ticket, wake, give_up, &session);
	if (e != LINE_IN)
		leave(a, c, ticket);
	close(wake);
	if (e == LINE_GONE)
		nb_agent_log(a, 0, &c->peer, "left the queue: gone");
	else if (e == LINE_OVER)
		return refuse(a, c, ctl, "busy with another client, and the wait this client asked for is over");
	else if (e == LINE_CLOSED)
		return refuse(a, c, ctl, "busy: it is stopping, or has served its one session");
	return e == LINE_IN ? session : 0;
}

/* A companion with its ticket (under no lock): beside the holder at once, or refused. A ticket
 * opens once, only while its holder holds the agent. */
static uint64_t join_companion(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
			       const uint8_t ticket[NB_COMPANION_TICKET_LEN])
{
	static const uint8_t zero[NB_COMPANION_TICKET_LEN];
	uint64_t holder = 0;
	pthread_mutex_lock(&a->lock);
	bool open = !atomic_load(&a->stopping) && a->holder && !a->holder_ended &&
		    sodium_memcmp(ticket, zero, NB_COMPANION_TICKET_LEN) != 0;
	for (size_t i = 0; open && !holder && i < NB_COMPANIONS_MAX; i++) {
		if (!a->ticket[i].valid ||
		    sodium_memcmp(a->ticket[i].ticket, ticket, NB_COMPANION_TICKET_LEN) != 0)
			continue;
		a->ticket[i].valid = false;
		sodium_memzero(a->ticket[i].ticket, NB_COMPANION_TICKET_LEN);
		holder = a->holder;
		a->companions++;
		c->session = true;
		c->companion = true;
		c->number = holder;
	}
	pthread_mutex_unlock(&a->lock);
	if (!holder)
		return refuse(a, c, ctl, "busy with another client (this companion ticket opens no "
				  "session: used, made up, or its session is over)");
	return holder;
}

bool nb_agent_companion_ticket(struct nb_agent *a, const struct nb_agent_conn *c,
			       uint8_t ticket[NB_COMPANION_TICKET_LEN], const char **why)
{
	*why = NULL;
	pthread_mutex_lock(&a->lock);
	if (c->companion || a->holder != c->number || a->holder_ended)
		*why = "only the session that holds the agent has companions";
	else if (a->issued >= NB_COMPANIONS_MAX)
		*why = "limit: a session has at most 8 companions";
	for (size_t i = 0; !*why && i < NB_COMPANIONS_MAX; i++) {
		if (a->ticket[i].valid)
			continue;
		randombytes_buf(a->ticket[i].ticket, NB_COMPANION_TICKET_LEN);
		memcpy(ticket, a->ticket[i].ticket, NB_COMPANION_TICKET_LEN);
		a->ticket[i].valid = true;
		a->issued++;
		break;
	}
	pthread_mutex_unlock(&a->lock);
	return !*why;
}

uint64_t nb_agent_admit(struct nb_agent *a, struct nb_agent_conn *c, struct nb_ctl *ctl,
			uint64_t deadline_ms)
{
	struct nb_msg_queue ask;
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
	if (!read_ask(a, c, ctl, deadline_ms, &ask, ticket))
		return 0;
	if (ask.position == UINT32_MAX) {
		uint64_t holder = join_companion(a, c, ctl, ticket);
		sodium_memzero(ticket, sizeof(ticket));
		return holder;
	}
	pthread_mutex_lock(&a->lock);
	const char *closed = closed_why(a);
	uint64_t session = 0;
	if (!closed && nb_queue_take(&a->queue, ask.plan_ms, nb_ctl_now_ms()))
		session = began(a, c);
	pthread_mutex_unlock(&a->lock);
	if (session)
		return session;
	if (closed)
		return refuse(a, c, ctl, closed);
	if (!ask.wait_ms || !a->queue.max)
		return refuse(a, c, ctl, "busy with another client");
	return wait_in_line(a, c, ctl, &ask);
}

void nb_agent_release(struct nb_agent *a, struct nb_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	if (c->companion)
		a->companions--;
	else {
		a->holder_ended = true; /* its tickets open nothing any more */
		memset(a->ticket, 0, sizeof(a->ticket));
	}
	c->session = false;
	if (a->holder_ended && !a->companions) { /* the holder and its companions are all over */
		a->holder = 0;
		nb_queue_end(&a->queue);
		a->sessions_ended++;
		wake_all(a);
	}
	pthread_mutex_unlock(&a->lock);
}
