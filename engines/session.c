/* nbrun — the data-plane harness (see session.h). */
#include "session.h"
#include "session_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataconn.h"
#include "params.h"
#include "sock.h"

/* ---- lifetime ---- */

static struct nb_session *session_new(const struct nb_engine *e, const struct nb_params *p,
				      enum nb_side side, struct nb_error *err)
{
	struct nb_session *s = calloc(1, sizeof(*s));
	if (!s) {
		nb_error_set(err, "out of memory");
		return NULL;
	}
	s->e = e;
	s->p = *p;
	s->side = side;
	s->nflows = nb_params_nflows(p);
	s->listen_fd = -1;
	s->reach.listen_fd = -1;
	s->flows = calloc(s->nflows, sizeof(*s->flows));
	s->threads = calloc(s->nflows, sizeof(*s->threads));
	s->clocks = calloc(s->nflows, sizeof(*s->clocks));
	s->done = calloc(s->nflows, sizeof(*s->done));
	if (!s->flows || !s->threads || !s->clocks || !s->done) {
		nb_session_destroy(s);
		nb_error_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct nb_flow *f = &s->flows[i];
		f->p = &s->p;
		f->index = i;
		f->side = side;
		bool cs = nb_params_client_sends(p, i);
		f->sends = side == NB_SIDE_CLIENT ? cs : !cs;
		f->fd = -1;
		f->reach = &s->reach;
		f->stop = &s->stop;
		f->quiesce = &s->quiesce;
		f->epoch = &s->epoch;
		f->lag = 1;
		s->clocks[i] = (clockid_t)-1; /* no thread yet; a thread's other flows never get one */
		bool client = side == NB_SIDE_CLIENT;
		if ((client && nb_case_records_latency(e, p) && !(f->hist = nb_hist_create())) ||
		    ((client || f->sends) && nb_case_records_lag(e, p) &&
		     !(f->lag_hist = nb_hist_create()))) {
			nb_session_destroy(s);
			nb_error_set(err, "out of memory");
			return NULL;
		}
	}
	for (; e->flow_init && s->ninit < s->nflows; s->ninit++)
		if (!e->flow_init(&s->flows[s->ninit], err)) {
			nb_session_destroy(s);
			return NULL;
		}
	return s;
}

void nb_session_destroy(struct nb_session *s)
{
	if (!s)
		return;
	if (s->nthreads) {
		struct nb_error ignored;
		nb_session_stop(s, &ignored);
	}
	for (uint32_t i = 0; s->e->flow_fini && i < s->ninit; i++)
		s->e->flow_fini(&s->flows[i]);
	for (uint32_t i = 0; s->flows && i < s->nflows; i++) {
		if (s->flows[i].fd >= 0)
			close(s->flows[i].fd);
		nb_hist_destroy(s->flows[i].hist);
		nb_hist_destroy(s->flows[i].lag_hist);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	free(s->flows);
	free(s->threads);
	free(s->clocks);
	free(s->done);
	free(s);
}

uint32_t nb_session_nflows(const struct nb_session *s)
{
	return s->nflows;
}

/* ---- server side ---- */

struct nb_session *nb_session_listen(const struct nb_engine *e, const struct nb_params *p,
				     const struct sockaddr *bind_addr, socklen_t bind_len,
				     const struct sockaddr *peer, socklen_t peer_len, uint16_t port_lo,
				     uint16_t port_hi, uint16_t *port, struct nb_error *err)
{
	if (!e->server_flow) {
		nb_error_set(err, "engine %s has no agent side", e->name);
		return NULL;
	}
	struct nb_session *s = session_new(e, p, NB_SIDE_SERVER, err);
	if (!s)
		return NULL;
	memcpy(&s->local, bind_addr, bind_len);
	s->local_len = bind_len;
	memcpy(&s->peer, peer, peer_len);
	s->port_lo = port_lo;
	s->port_hi = port_hi;
	int type = p->proto == NB_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	struct sockaddr_storage a = s->local;
	s->listen_fd = nb_dataconn_bind(type, &a, bind_len, port_lo, port_hi, port, err);
	if (s->listen_fd < 0) { /* a TCP one listens already (dataconn.h) */
		nb_session_destroy(s);
		return NULL;
	}
	if (e->datapath == NB_DATAPATH_PER_CONNECTION) {
		s->reach.listen_fd = s->listen_fd;
		memcpy(&s->reach.peer, peer, peer_len); /* the only host it accepts */
		s->reach.peer_len = peer_len;
	}
	return s;
}

/* Options on every flow's socket once all are in; the hello socket or listener is closed then:
 * nothing more may arrive on it. */
static bool prepare_flows(struct nb_session *s, const int *fds, struct nb_error *err)
{
	for (uint32_t i = 0; i < s->nflows; i++)
		s->flows[i].fd = fds[i];
	close(s->listen_fd);
	s->listen_fd = -1;
	for (uint32_t i = 0; i < s->nflows; i++) {
		int fd = s->flows[i].fd;
		if (!nb_sock_apply(fd, &s->p, s->local.ss_family, err) ||
		    (s->e->prepare_socket && !s->e->prepare_socket(fd, &s->p, s->flows[i].sends, err)))
			return false;
	}
	return !s->e->prepare_flows || s->e->prepare_flows(s->flows, s->nflows, err);
}

bool nb_session_accept(struct nb_session *s, int timeout_ms, struct nb_error *err)
{
	if (s->e->datapath != NB_DATAPATH_CONNECTED)
		return true;
	int *fds = malloc(s->nflows * sizeof(*fds));
	if (!fds)
		return nb_error_set(err, "out of memory");
	for (uint32_t i = 0; i < s->nflows; i++)
		fds[i] = -1;
	struct nb_dataconn_server sv = {
		.listen_fd = s->listen_fd, .proto = s->p.proto, .local = &s->local,
		.local_len = s->local_len, .peer = &s->peer, .port_lo = s->port_lo,
		.port_hi = s->port_hi, .key = s->p.key, .nflows = s->nflows, .fds = fds,
	};
	bool ok = nb_dataconn_accept(&sv, timeout_ms, err);
	if (ok)
		ok = prepare_flows(s, fds, err);
	for (uint32_t i = 0; !ok && i < s->nflows; i++) {
		if (fds[i] >= 0 && s->flows[i].fd != fds[i])
			close(fds[i]);
	}
	free(fds);
	return ok;
}

bool nb_session_data_peer(const struct nb_session *s, struct sockaddr_storage *out, socklen_t *len)
{
	*len = sizeof(*out);
	return s->side == NB_SIDE_SERVER && s->nflows && s->flows[0].fd >= 0 && s->listen_fd < 0 &&
	       getpeername(s->flows[0].fd, (struct sockaddr *)out, len) == 0;
}

/* ---- client side ---- */

struct nb_session *nb_session_connect(const struct nb_engine *e, const struct nb_params *p,
				      const struct sockaddr *peer, socklen_t peer_len, uint16_t port,
				      int timeout_ms, struct nb_error *err)
{
	struct nb_session *s = session_new(e, p, NB_SIDE_CLIENT, err);
	if (!s)
		return NULL;
	struct sockaddr_storage to;
	memcpy(&to, peer, peer_len);
	if (to.ss_family == AF_INET)
		((struct sockaddr_in *)&to)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&to)->sin6_port = htons(port);
	memcpy(&s->reach.peer, &to, peer_len);
	s->reach.peer_len = peer_len;
	if (e->datapath != NB_DATAPATH_CONNECTED)
		return s; /* each flow reaches s->reach.peer itself */
	uint64_t deadline = nb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct nb_flow *f = &s->flows[i];
		f->fd = nb_dataconn_connect(&to, peer_len, i, p, deadline, err);
		if (f->fd < 0 || (e->prepare_socket && !e->prepare_socket(f->fd, p, f->sends, err))) {
			nb_session_destroy(s);
			return NULL;
		}
	}
	if (e->prepare_flows && !e->prepare_flows(s->flows, s->nflows, err)) {
		nb_session_destroy(s);
		return NULL;
	}
	return s;
}
