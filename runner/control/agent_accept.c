/* nbrun — the agent's acceptor: who may connect, who waits for its first bytes, who gets a
 * thread to shake hands in, and who gives way in a flood (see agent.h). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"
#include "cidr.h"
#include "ctl.h"

/* ---- the log of a flood ---- */

/* A connection was closed for want of a slot (the acceptor's or a handshake's). */
static void note_full(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	uint64_t now = nb_ctl_now_ms();
	nb_agent_log_summaries(a, now); /* an interval that is over says its count first */
	if (nb_ratelog_event(&a->full_log, now))
		nb_agent_log(a, 0, peer, "handshake slots full: closed to make room or for want of it "
			     "(more in the next %d s are counted, not shown)",
			     NB_AGENT_LOG_INTERVAL_MS / 1000);
}

/* Tell fd why it found no slot (one small frame to a fresh socket never blocks), close it. */
static void saturated(struct nb_agent *a, int fd, const struct sockaddr_storage *peer)
{
	struct nb_ctl c;
	nb_ctl_init(&c, fd);
	nb_ctl_send_error(&c, NB_ERR_BUSY, NB_AGENT_SATURATED);
	close(fd);
	note_full(a, peer);
}

/* A client outside --allow: one ERROR frame saying so, sent without waiting, and the close;
 * nothing of it is read, and nothing else is said (not the ranges). */
static void refuse_not_allowed(struct nb_agent *a, int fd, const struct sockaddr_storage *peer)
{
	struct nb_msg m = { .type = NB_MSG_ERROR, .u.error.code = NB_ERR_AUTH };
	struct nb_buf b = { 0 };
	snprintf(m.u.error.text, sizeof(m.u.error.text), "refused: this client's address is not in "
		 "the agent's --allow list");
	if (nb_msg_encode(&m, &b, NULL))
		(void)send(fd, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL);
	nb_buf_free(&b);
	close(fd);
	uint64_t now = nb_ctl_now_ms();
	nb_agent_log_summaries(a, now);
	if (nb_ratelog_event(&a->not_allowed, now))
		nb_agent_log(a, 0, peer, "refused: not in --allow");
}

/* ---- handshake threads ---- */

void nb_agent_reap(struct nb_agent *a, bool all)
{
	for (int i = 0; i < NB_AGENT_CONNS; i++) {
		struct nb_agent_conn *c = &a->conns[i];
		pthread_mutex_lock(&a->lock);
		bool used = c->used, done = c->done;
		if (used && !done && all)
			shutdown(c->fd, SHUT_RDWR);
		pthread_mutex_unlock(&a->lock);
		if (!used || (!done && !all))
			continue;
		pthread_join(c->thread, NULL);
		close(c->fd);
		pthread_mutex_lock(&a->lock);
		c->used = c->done = false;
		pthread_mutex_unlock(&a->lock);
	}
	for (size_t i = 0; all && i < a->npending; i++)
		close(a->pending[i].fd);
	if (all)
		a->npending = 0;
}

/* A connection still shaking hands (not the session, not about to be one). */
static bool shaking(const struct nb_agent_conn *c)
{
	return c->used && !c->done && !c->session && !c->proven;
}

/* How many handshakes the source of peer holds (under a->lock). */
static int held_by(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	int n = 0;
	for (int i = 0; i < NB_AGENT_CONNS; i++)
		n += shaking(&a->conns[i]) && nb_cidr_same_source(&a->conns[i].peer, peer);
	return n;
}

/* The handshake to give way to a newcomer from peer when every slot is taken: the oldest of the
 * source holding the most, if that source holds at least two more than the newcomer's (else
 * giving way would only swap equals). NULL: none (under a->lock). */
static struct nb_agent_conn *heaviest(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	struct nb_agent_conn *top = NULL;
	int most = 0;
	for (int i = 0; i < NB_AGENT_CONNS; i++) {
		int n = shaking(&a->conns[i]) ? held_by(a, &a->conns[i].peer) : 0;
		if (n > most) {
			most = n;
			top = &a->conns[i];
		}
	}
	if (!top || most < held_by(a, peer) + 2)
		return NULL;
	for (int i = 0; i < NB_AGENT_CONNS; i++) {
		struct nb_agent_conn *c = &a->conns[i];
		if (shaking(c) && nb_cidr_same_source(&c->peer, &top->peer) && c->since_ms < top->since_ms)
			top = c;
	}
	return top;
}

/* A slot for a newcomer from peer (under a->lock): a free one; or, every one taken, the slot of
 * the handshake that gives way, shut down here (its thread sees it at once, and can no longer
 * become a session: evicted) and *victim set; NULL when peer's source has its share or none
 * gives way. */
static struct nb_agent_conn *slot_for(struct nb_agent *a, const struct sockaddr_storage *peer,
				      struct nb_agent_conn **victim)
{
	*victim = NULL;
	if (held_by(a, peer) >= NB_AGENT_PER_ADDR)
		return NULL;
	for (int i = 0; i < NB_AGENT_CONNS; i++)
		if (!a->conns[i].used)
			return &a->conns[i];
	if ((*victim = heaviest(a, peer)) != NULL) {
		(*victim)->evicted = true;
		shutdown((*victim)->fd, SHUT_RDWR);
	}
	return *victim;
}

/* Take a slot for fd and start its thread: 0; -1 when there is no slot (fd is the caller's
 * still); else pthread_create's error (fd closed). */
static int start_conn(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
		      socklen_t len, uint64_t since_ms)
{
	struct nb_agent_conn *victim;
	pthread_mutex_lock(&a->lock);
	struct nb_agent_conn *c = slot_for(a, peer, &victim);
	pthread_mutex_unlock(&a->lock);
	if (!c)
		return -1;
	if (victim) { /* its thread ends at once: join it, reuse its slot */
		pthread_join(victim->thread, NULL);
		close(victim->fd);
		note_full(a, &victim->peer);
	}
	pthread_mutex_lock(&a->lock);
	*c = (struct nb_agent_conn){ .a = a, .used = true, .fd = fd, .peer = *peer, .peer_len = len,
				     .since_ms = since_ms };
	int rc = pthread_create(&c->thread, NULL, nb_agent_conn_main, c);
	if (rc != 0)
		c->used = false;
	pthread_mutex_unlock(&a->lock);
	if (rc != 0)
		close(fd);
	return rc;
}

bool nb_agent_adopt(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
		    socklen_t len, struct nb_error *err)
{
	int rc = start_conn(a, fd, peer, len, nb_ctl_now_ms());
	if (rc == -1)
		close(fd);
	if (rc > 0)
		return nb_error_errno(err, rc, "pthread_create");
	return rc == 0 || nb_error_set(err, "no free connection slot");
}

/* ---- connections that have said nothing yet ---- */

static void drop_pending(struct nb_agent *a, size_t i)
{
	for (size_t j = 0; j < a->npending; j++)
		if (j != i && nb_cidr_same_source(&a->pending[j].peer, &a->pending[i].peer))
			a->pending[j].same--;
	a->pending[i] = a->pending[--a->npending];
}

static void add_pending(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
			socklen_t len)
{
	uint32_t same = 1;
	for (size_t j = 0; j < a->npending; j++)
		if (nb_cidr_same_source(&a->pending[j].peer, peer)) {
			a->pending[j].same++;
			same++;
		}
	a->pending[a->npending++] = (struct nb_agent_pending){ .fd = fd, .peer = *peer, .len = len,
								.since_ms = nb_ctl_now_ms(),
								.order = a->accepted++, .same = same };
}

/* Pending connection i spoke (or hung up): a thread for its handshake, or why not. One that
 * only hung up needs no thread. */
static void promote(struct nb_agent *a, size_t i)
{
	struct nb_agent_pending p = a->pending[i];
	drop_pending(a, i);
	char b;
	ssize_t n = recv(p.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		nb_agent_log(a, 1, &p.peer, "hung up before its HELLO: closed");
		close(p.fd);
		return;
	}
	int rc = start_conn(a, p.fd, &p.peer, p.len, p.since_ms);
	if (rc == -1)
		saturated(a, p.fd, &p.peer);
	else if (rc > 0)
		nb_agent_log(a, 0, &p.peer, "%s: closed", strerror(rc));
}

/* Close the connections silent past their first bytes' deadline. */
static void expire_pending(struct nb_agent *a, uint64_t now)
{
	for (size_t i = a->npending; i-- > 0;) {
		if (now - a->pending[i].since_ms < NB_AGENT_FIRST_BYTES_MS)
			continue;
		nb_agent_log(a, 1, &a->pending[i].peer, "silent for %d ms: closed",
			     NB_AGENT_FIRST_BYTES_MS);
		close(a->pending[i].fd);
		drop_pending(a, i);
	}
}

/* The waiting connections of peer's source that spoke or hung up since the last round go on
 * now: a source's share counts only the silent. */
static void reclaim(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	for (size_t i = a->npending; i-- > 0;) {
		struct pollfd p = { .fd = a->pending[i].fd, .events = POLLIN };
		if (nb_cidr_same_source(&a->pending[i].peer, peer) && poll(&p, 1, 0) > 0)
			promote(a, i);
	}
}

static size_t silent_from(const struct nb_agent *a, const struct sockaddr_storage *peer)
{
	size_t same = 0;
	for (size_t i = 0; i < a->npending; i++)
		same += nb_cidr_same_source(&a->pending[i].peer, peer);
	return same;
}

/* The silent connection to give way to a newcomer whose source holds `held` of them when all
 * are taken: the oldest of the source holding the most, if that is more than the newcomer's
 * would hold (so a source of many never pushes out one of few, and when every source holds one
 * the oldest of all goes); -1 when none gives way. */
static ssize_t giving_way(const struct nb_agent *a, size_t held)
{
	size_t top = 0;
	for (size_t i = 1; i < a->npending; i++) {
		const struct nb_agent_pending *p = &a->pending[i], *t = &a->pending[top];
		if (p->same > t->same || (p->same == t->same && p->order < t->order))
			top = i;
	}
	return a->npending && a->pending[top].same > held ? (ssize_t)top : -1;
}

/* Room among the silent for one more from peer: its source has fewer than its share, and when
 * all are taken one gives way (giving_way). False: no room for it. */
static bool pending_room(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	size_t held = silent_from(a, peer);
	if (held >= NB_AGENT_PER_ADDR) {
		reclaim(a, peer);
		if ((held = silent_from(a, peer)) >= NB_AGENT_PER_ADDR)
			return false;
	}
	if (a->npending < NB_AGENT_PENDING)
		return true;
	ssize_t v = giving_way(a, held);
	if (v < 0)
		return false;
	struct nb_agent_pending p = a->pending[v];
	drop_pending(a, (size_t)v);
	saturated(a, p.fd, &p.peer);
	return true;
}

static void on_accept(struct nb_agent *a, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	if (a->o.nallow && !nb_cidr_match(a->o.allow, a->o.nallow, peer)) {
		refuse_not_allowed(a, fd, peer);
		return;
	}
	if (!pending_room(a, peer)) {
		saturated(a, fd, peer);
		return;
	}
	add_pending(a, fd, peer, len);
}

/* ---- the loop ---- */

/* Done: --once after its session; stdio once its one connection is over (reaped). */
static bool finished(struct nb_agent *a)
{
	pthread_mutex_lock(&a->lock);
	bool busy = false;
	for (int i = 0; a->o.stdio && i < NB_AGENT_CONNS; i++)
		busy = busy || a->conns[i].used;
	bool done = (a->o.once && a->sessions_ended > 0) || (a->o.stdio && !busy);
	pthread_mutex_unlock(&a->lock);
	return done;
}

/* The lifeline is readable: its end (or an error) stops the agent; anything else is ignored. */
static void on_lifeline(struct nb_agent *a)
{
	char buf[256];
	ssize_t n = read(a->lifeline_fd, buf, sizeof(buf));
	if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
		return;
	nb_agent_log(a, 0, NULL, "standard input closed: stopping");
	a->lifeline_fd = -1;
	atomic_store(&a->stopping, true);
}

/* Take every connection waiting, so a burst never fills the listen backlog. */
static void accept_all(struct nb_agent *a)
{
	for (int n = 0; n < NB_AGENT_PENDING; n++) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		int fd = accept4(a->listen_fd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
		if (fd < 0)
			break;
		on_accept(a, fd, &peer, len);
	}
}

/* One round: wait for the listener, the stop pipe, the lifeline and every silent connection
 * (at most 200 ms, or until the next one's deadline); then those that spoke get their thread
 * before newcomers are taken. */
static void one_round(struct nb_agent *a)
{
	struct pollfd p[3 + NB_AGENT_PENDING];
	p[0] = (struct pollfd){ .fd = a->listen_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = a->wake[0], .events = POLLIN };
	p[2] = (struct pollfd){ .fd = a->lifeline_fd, .events = POLLIN };
	size_t n = a->npending;
	for (size_t i = 0; i < n; i++)
		p[3 + i] = (struct pollfd){ .fd = a->pending[i].fd, .events = POLLIN };
	int wait = n ? NB_AGENT_FIRST_BYTES_MS / 10 : 200;
	if (poll(p, 3 + n, wait) <= 0)
		return;
	if (p[2].revents)
		on_lifeline(a);
	for (size_t i = n; i-- > 0;) /* from the end: dropping i moves the last one into it */
		if (p[3 + i].revents)
			promote(a, i);
	if (p[0].revents & POLLIN)
		accept_all(a);
}

bool nb_agent_run(struct nb_agent *a, struct nb_error *err)
{
	(void)err;
	while (!atomic_load(&a->stopping) && !finished(a)) {
		nb_agent_reap(a, false);
		expire_pending(a, nb_ctl_now_ms());
		nb_agent_log_summaries(a, nb_ctl_now_ms());
		one_round(a);
	}
	nb_agent_reap(a, true);
	nb_agent_log_summaries(a, UINT64_MAX);
	return true;
}
