/* nbrun — data connections (see dataconn.h). */
#include "dataconn.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dhello.h"
#include "sock.h"

/* A data connection's source: the client's host, or any (nb_sock_from_allowed). */
static bool from_allowed(const struct nb_dataconn_server *sv, const struct sockaddr_storage *from)
{
	return nb_sock_from_allowed(sv->peer, from);
}

#define TCP_HELLO_NS 2000000000ull /* a TCP data connection has this long to say hello */
#define UDP_RETRY_NS 100000000ull  /* a UDP hello or echo still unanswered is sent again */

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = nb_now_ns();
	return now >= deadline ? 0 : (int)((deadline - now) / 1000000ull) + 1;
}

static bool wait_readable(int fd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ms;
	while ((ms = remaining_ms(deadline)) > 0) {
		int n = poll(&pfd, 1, ms);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
	return false;
}

static void set_port(struct sockaddr_storage *a, uint16_t port)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

int nb_dataconn_bind(int type, struct sockaddr_storage *addr, socklen_t len, uint16_t lo, uint16_t hi,
		     uint16_t *port, struct nb_error *err)
{
	int last = 0;
	for (uint32_t pt = lo; pt <= hi; pt++) {
		int fd = socket(addr->ss_family, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return nb_error_errno(err, errno, "socket"), -1;
		int one = 1;
		if (type == SOCK_STREAM) /* a listener may reuse a port an earlier run left in TIME_WAIT */
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		set_port(addr, (uint16_t)pt);
		/* TCP listens here: two agents on one host (a host at two paths' ends) may both bind
		 * a free port before either listens (SO_REUSEADDR allows it), and the second's listen
		 * then fails with EADDRINUSE: that port is taken, try the next */
		bool ok = bind(fd, (struct sockaddr *)addr, len) == 0 &&
			  (type != SOCK_STREAM || listen(fd, NB_DATACONN_BACKLOG) == 0);
		if (ok) {
			socklen_t l = len;
			getsockname(fd, (struct sockaddr *)addr, &l);
			*port = ntohs(addr->ss_family == AF_INET ? ((struct sockaddr_in *)addr)->sin_port
								: ((struct sockaddr_in6 *)addr)->sin6_port);
			return fd;
		}
		last = errno;
		close(fd);
		if (lo == 0)
			break;
	}
	nb_error_errno(err, last, "no free data port in %u-%u", lo, hi);
	return -1;
}

/* ---- agent: TCP ---- */

/* Accept one connection and read its hello: its fd, -1 if none came, -2 to ignore this one. */
static int tcp_accept_one(const struct nb_dataconn_server *sv, uint64_t deadline, uint32_t *flow)
{
	if (!wait_readable(sv->listen_fd, deadline))
		return -1;
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	int fd = accept4(sv->listen_fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
	if (fd < 0)
		return -2;
	unsigned char b[NB_DHELLO_LEN];
	size_t got = 0;
	uint64_t hello_deadline = nb_now_ns() + TCP_HELLO_NS;
	while (from_allowed(sv, &from) && got < sizeof(b) &&
	       wait_readable(fd, hello_deadline < deadline ? hello_deadline : deadline)) {
		ssize_t n = recv(fd, b + got, sizeof(b) - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	struct nb_dhello h;
	if (!from_allowed(sv, &from) || !nb_dhello_get(b, got, NB_DH_HELLO, sv->key, &h) ||
	    h.flow >= sv->nflows || sv->fds[h.flow] >= 0) {
		close(fd);
		return -2;
	}
	/* Our proof of the run's key, over the hello's nonce: the connecting end sends nothing
	 * before it. */
	h.kind = NB_DH_ACK;
	nb_dhello_put(b, &h, sv->key);
	if (send(fd, b, sizeof(b), MSG_NOSIGNAL) != (ssize_t)sizeof(b)) {
		close(fd);
		return -2;
	}
	*flow = h.flow;
	return fd;
}

static bool tcp_accept(const struct nb_dataconn_server *sv, uint64_t deadline, uint32_t *have)
{
	while (*have < sv->nflows) {
		uint32_t flow = 0;
		int fd = tcp_accept_one(sv, deadline, &flow);
		if (fd == -1)
			return false;
		if (fd >= 0) {
			sv->fds[flow] = fd;
			(*have)++;
		}
	}
	return true;
}

/* ---- agent: UDP, the return-path check ---- */

/* One UDP flow as the agent sees it while its path is checked. */
struct udp_state {
	int fd;                                 /* its own socket, connected to from; -1: no hello yet */
	bool proven;                            /* its echo came back */
	struct sockaddr_storage from;
	socklen_t from_len;
	unsigned char nonce[NB_DHELLO_NONCE];
	uint32_t answers;                       /* challenges and acks sent to from */
	uint64_t last_ns;                       /* when the last of them went */
};

/* The run's flows while their paths are checked, and its answers in all. */
struct udp_run {
	struct udp_state *st;
	uint32_t answers, max_answers;
};

/* Answer flow u (its challenge or ack), within the run's bounds and, unless its source just
 * echoed our nonce (echoed: the answer goes where the nonce went, no reflection), the flow's
 * (dhello.h). */
static void udp_say(struct udp_run *run, struct udp_state *u, enum nb_dhello_kind kind,
		    uint32_t flow, bool echoed, const unsigned char *key)
{
	uint64_t now = nb_now_ns();
	bool flow_ok = echoed || (u->answers < NB_DH_ANSWERS_PER_FLOW &&
				  (!u->answers || now - u->last_ns >= NB_DH_ANSWER_GAP_MS * 1000000ull));
	if (!flow_ok || run->answers >= run->max_answers)
		return;
	u->answers++;
	run->answers++;
	u->last_ns = now;
	struct nb_dhello h = { .kind = kind, .flow = flow };
	memcpy(h.nonce, u->nonce, NB_DHELLO_NONCE);
	unsigned char b[NB_DHELLO_LEN];
	nb_dhello_put(b, &h, key);
	(void)send(u->fd, b, sizeof(b), MSG_DONTWAIT);
}

/* A socket for one flow: the agent's host, a port of the range, connected to from. */
static int udp_flow_socket(const struct nb_dataconn_server *sv, const struct sockaddr_storage *from,
			   socklen_t fl)
{
	struct sockaddr_storage a = *sv->local;
	uint16_t port;
	int fd = nb_dataconn_bind(SOCK_DGRAM, &a, sv->local_len, sv->port_lo, sv->port_hi, &port, NULL);
	if (fd >= 0 && connect(fd, (const struct sockaddr *)from, fl) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A datagram on the hello socket: a HELLO from the client's host starts a flow's check, or has
 * its answer repeated (to the same source only). Everything else is dropped unanswered. */
static void udp_on_hello(const struct nb_dataconn_server *sv, struct udp_run *run)
{
	unsigned char b[NB_DHELLO_LEN + 1];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	struct nb_dhello h;
	ssize_t n = recvfrom(sv->listen_fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (n < 0 || !from_allowed(sv, &from) ||
	    !nb_dhello_get(b, (size_t)n, NB_DH_HELLO, sv->key, &h) || h.flow >= sv->nflows)
		return;
	struct udp_state *u = &run->st[h.flow];
	if (u->fd >= 0) {
		if (fl == u->from_len && memcmp(&from, &u->from, fl) == 0)
			udp_say(run, u, u->proven ? NB_DH_ACK : NB_DH_CHALLENGE, h.flow, false, sv->key);
		return;
	}
	if ((u->fd = udp_flow_socket(sv, &from, fl)) < 0)
		return;
	if (sv->heard)
		(*sv->heard)++;
	u->from = from;
	u->from_len = fl;
	randombytes_buf(u->nonce, sizeof(u->nonce));
	udp_say(run, u, NB_DH_CHALLENGE, h.flow, false, sv->key);
}

/* A datagram on a flow's socket (connected: from the hello's source only): the echo of its
 * nonce proves the path; a repeated echo (our ACK was lost) is acknowledged again. */
static void udp_on_echo(const struct nb_dataconn_server *sv, struct udp_run *run, uint32_t flow,
			uint32_t *have)
{
	struct udp_state *u = &run->st[flow];
	unsigned char b[NB_DHELLO_LEN + 1];
	struct nb_dhello h;
	ssize_t n = recv(u->fd, b, sizeof(b), MSG_DONTWAIT);
	if (n < 0 || !nb_dhello_get(b, (size_t)n, NB_DH_ECHO, sv->key, &h) || h.flow != flow ||
	    sodium_memcmp(h.nonce, u->nonce, NB_DHELLO_NONCE) != 0)
		return;
	if (!u->proven)
		(*have)++;
	u->proven = true;
	udp_say(run, u, NB_DH_ACK, flow, true, sv->key);
}

/* One poll over the hello socket and every flow socket made so far. */
static bool udp_round(const struct nb_dataconn_server *sv, struct udp_run *run, struct pollfd *pf,
		      uint32_t *idx, uint64_t deadline, uint32_t *have)
{
	struct udp_state *st = run->st;
	nfds_t n = 1;
	pf[0] = (struct pollfd){ .fd = sv->listen_fd, .events = POLLIN };
	for (uint32_t i = 0; i < sv->nflows; i++) {
		if (st[i].fd >= 0) {
			idx[n] = i;
			pf[n++] = (struct pollfd){ .fd = st[i].fd, .events = POLLIN };
		}
	}
	int r = poll(pf, n, remaining_ms(deadline));
	if (r < 0)
		return errno == EINTR;
	if (pf[0].revents)
		udp_on_hello(sv, run);
	for (nfds_t k = 1; k < n; k++)
		if (pf[k].revents)
			udp_on_echo(sv, run, idx[k], have);
	return true;
}

static bool udp_accept(const struct nb_dataconn_server *sv, uint64_t deadline, uint32_t *have)
{
	struct udp_state *st = calloc(sv->nflows, sizeof(*st));
	struct pollfd *pf = calloc(sv->nflows + 1, sizeof(*pf));
	uint32_t *idx = calloc(sv->nflows + 1, sizeof(*idx));
	for (uint32_t i = 0; st && i < sv->nflows; i++)
		st[i].fd = -1;
	struct udp_run run = { .st = st, .max_answers = 2 * sv->nflows + NB_DH_ANSWERS_SPARE };
	while (st && pf && idx && *have < sv->nflows && remaining_ms(deadline) > 0 &&
	       udp_round(sv, &run, pf, idx, deadline, have))
		;
	for (uint32_t i = 0; st && i < sv->nflows; i++) {
		if (st[i].proven)
			sv->fds[i] = st[i].fd;
		else if (st[i].fd >= 0)
			close(st[i].fd);
	}
	bool ok = st && pf && idx;
	free(st);
	free(pf);
	free(idx);
	return ok && *have == sv->nflows;
}

bool nb_dataconn_accept(const struct nb_dataconn_server *sv, int timeout_ms, struct nb_error *err)
{
	uint64_t deadline = nb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint32_t have = 0;
	bool ok = sv->proto == NB_PROTO_UDP ? udp_accept(sv, deadline, &have)
					    : tcp_accept(sv, deadline, &have);
	if (!ok)
		return nb_error_set(err, "only %u of %u data connections arrived within %d ms%s", have,
				    sv->nflows, timeout_ms,
				    sv->proto == NB_PROTO_UDP ? " (UDP: hello and return-path check)" : "");
	return true;
}

/* ---- client ---- */

static int connect_timeout(const struct sockaddr_storage *to, socklen_t len, uint64_t deadline,
			   const struct nb_params *p, struct nb_error *err)
{
	int fd = socket(to->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "socket"), -1;
	if (!nb_sock_apply(fd, p, to->ss_family, err)) {
		close(fd);
		return -1;
	}
	char where[64];
	nb_sock_addr_str(to, where, sizeof(where));
	if (connect(fd, (const struct sockaddr *)to, len) < 0 && errno != EINPROGRESS) {
		nb_error_errno(err, errno, "connect to TCP data port %s", where);
		close(fd);
		return -1;
	}
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int e = 0;
	socklen_t el = sizeof(e);
	if (poll(&pfd, 1, remaining_ms(deadline)) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
		nb_error_errno(err, e ? e : ETIMEDOUT, "connect to TCP data port %s", where);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* The accepting end's ACK of our hello (nonce h's) by the deadline: its proof of the run's key. */
static bool tcp_proven(int fd, const struct nb_dhello *h, const unsigned char *key, uint64_t deadline)
{
	unsigned char b[NB_DHELLO_LEN];
	size_t got = 0;
	while (got < sizeof(b) && wait_readable(fd, deadline)) {
		ssize_t n = recv(fd, b + got, sizeof(b) - got, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return false;
		if (n > 0)
			got += (size_t)n;
	}
	struct nb_dhello ack;
	return nb_dhello_get(b, got, NB_DH_ACK, key, &ack) && ack.flow == h->flow &&
	       sodium_memcmp(ack.nonce, h->nonce, NB_DHELLO_NONCE) == 0;
}

/* Connect, say hello with a fresh nonce, and wait for the other end's proof of the run's key
 * before anything else goes out: a listener that is not the run's other end (a grant aimed
 * elsewhere) gets the hello and nothing more. */
static int tcp_connect(const struct sockaddr_storage *to, socklen_t len, uint32_t flow,
		       const struct nb_params *p, uint64_t deadline, struct nb_error *err)
{
	int fd = connect_timeout(to, len, deadline, p, err);
	if (fd < 0)
		return -1;
	unsigned char b[NB_DHELLO_LEN];
	struct nb_dhello h = { .kind = NB_DH_HELLO, .flow = flow };
	randombytes_buf(h.nonce, sizeof(h.nonce));
	nb_dhello_put(b, &h, p->key);
	if (send(fd, b, sizeof(b), MSG_NOSIGNAL) != (ssize_t)sizeof(b)) {
		nb_error_errno(err, errno, "send hello");
		close(fd);
		return -1;
	}
	if (!tcp_proven(fd, &h, p->key, deadline)) {
		nb_error_set(err, "the data port did not prove the run's key (it is not the run's "
			     "other end)");
		close(fd);
		return -1;
	}
	return fd;
}

/* Send msg (to `to`, or on the connected socket when to is NULL) until a datagram of kind for
 * flow comes back from the agent's host; true with it in *got and its source in *from. */
static bool udp_ask(int fd, const unsigned char *msg, const struct sockaddr_storage *to, socklen_t len,
		    enum nb_dhello_kind kind, uint32_t flow, const struct nb_params *p,
		    uint64_t deadline, struct nb_dhello *got, struct sockaddr_storage *from)
{
	unsigned char b[NB_DHELLO_LEN + 1];
	while (remaining_ms(deadline) > 0) {
		(void)sendto(fd, msg, NB_DHELLO_LEN, 0, (const struct sockaddr *)to, to ? len : 0);
		uint64_t retry = nb_now_ns() + UDP_RETRY_NS;
		while (wait_readable(fd, retry < deadline ? retry : deadline)) {
			socklen_t fl = sizeof(*from);
			ssize_t n = recvfrom(fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)from, &fl);
			if (n > 0 && (!to || nb_sock_same_host(from, to)) &&
			    nb_dhello_get(b, (size_t)n, kind, p->key, got) && got->flow == flow)
				return true;
		}
	}
	return false;
}

/* HELLO to the data port until the agent's challenge comes from the flow's own port; then,
 * connected to that port, ECHO its nonce until the ACK. */
static int udp_connect(const struct sockaddr_storage *to, socklen_t len, uint32_t flow,
		       const struct nb_params *p, uint64_t deadline, struct nb_error *err)
{
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "socket"), -1;
	unsigned char msg[NB_DHELLO_LEN];
	struct nb_dhello h = { .kind = NB_DH_HELLO, .flow = flow }, got = { .kind = NB_DH_HELLO };
	struct sockaddr_storage from;
	nb_dhello_put(msg, &h, p->key);
	bool ok = nb_sock_apply(fd, p, to->ss_family, err);
	char where[64];
	nb_sock_addr_str(to, where, sizeof(where));
	if (ok && !udp_ask(fd, msg, to, len, NB_DH_CHALLENGE, flow, p, deadline, &got, &from))
		ok = nb_error_set(err, "no answer to the UDP data hello to %s (a firewall on the way?)",
				  where);
	if (ok)
		nb_sock_addr_str(&from, where, sizeof(where)); /* the flow's own port at the agent */
	if (ok && connect(fd, (struct sockaddr *)&from, len) < 0)
		ok = nb_error_errno(err, errno, "connect to UDP data port %s", where);
	h = (struct nb_dhello){ .kind = NB_DH_ECHO, .flow = flow };
	memcpy(h.nonce, got.nonce, NB_DHELLO_NONCE);
	nb_dhello_put(msg, &h, p->key);
	if (ok && (!udp_ask(fd, msg, NULL, 0, NB_DH_ACK, flow, p, deadline, &got, &from) ||
		   sodium_memcmp(got.nonce, h.nonce, NB_DHELLO_NONCE) != 0))
		ok = nb_error_set(err, "no answer to the UDP return-path check with %s (a firewall "
				  "that lets in no UDP from the agent's data ports?)", where);
	if (!ok)
		close(fd);
	return ok ? fd : -1;
}

int nb_dataconn_connect(const struct sockaddr_storage *to, socklen_t len, uint32_t flow,
			const struct nb_params *p, uint64_t deadline_ns, struct nb_error *err)
{
	return p->proto == NB_PROTO_UDP ? udp_connect(to, len, flow, p, deadline_ns, err)
					: tcp_connect(to, len, flow, p, deadline_ns, err);
}
