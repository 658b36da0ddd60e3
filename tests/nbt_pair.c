/* Helpers for the net tests of the rr, crr and latency engines (see nbt_pair.h). */
#include "nbt_pair.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct accept_arg {
	struct nb_session *s;
	struct nb_error err;
	bool ok;
};

static void *accept_main(void *arg)
{
	struct accept_arg *a = arg;
	a->ok = nb_session_accept(a->s, 5000, &a->err);
	return NULL;
}

void nbt_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

struct nb_params nbt_params(const char *name, enum nb_proto proto)
{
	struct nb_params p = { .proto = proto, .request = 32, .response = 128, .size = 64,
			       .streams = 1, .nodelay = true, .tos = -1, .wait = NB_WAIT_BLOCK,
			       .timeout_ms = 200 };
	snprintf(p.engine, sizeof(p.engine), "%s", name);
	return p;
}

void nbt_pair_open(struct nbt_pair *pr, const struct nb_engine *e, const struct nb_params *p)
{
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nb_error err = { "" };
	pr->e = e;
	pr->p = *p;
	cr_assert(e->validate(&pr->p, &err), "%s", err.msg);
	uint16_t port = 0;
	struct accept_arg a = { 0 };
	a.s = nb_session_listen(e, &pr->p, (struct sockaddr *)&lo, sizeof(lo), (struct sockaddr *)&lo,
				sizeof(lo), 0, 0, &port, &err);
	cr_assert_not_null(a.s, "%s", err.msg);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, accept_main, &a), 0);
	pr->cli = nb_session_connect(e, &pr->p, (struct sockaddr *)&lo, sizeof(lo), port, 5000, &err);
	pthread_join(th, NULL);
	cr_assert_not_null(pr->cli, "%s", err.msg);
	cr_assert(a.ok, "%s", a.err.msg);
	pr->srv = a.s;
	pr->port = port;
}

void nbt_pair_start(struct nbt_pair *pr, const struct nb_engine *e, const struct nb_params *p)
{
	struct nb_error err = { "" };
	nbt_pair_open(pr, e, p);
	cr_assert(nb_session_start(pr->srv, &err), "%s", err.msg);
	cr_assert(nb_session_start(pr->cli, &err), "%s", err.msg);
	nb_session_tick(pr->srv, 1);
	nb_session_tick(pr->cli, 1);
}

void nbt_pair_stop(struct nbt_pair *pr, struct nb_snapshot *cli, struct nb_snapshot *srv)
{
	struct nb_error err = { "" };
	nb_session_quiesce(pr->cli);
	/* Long enough for every client flow to have its last answer or its timeout. */
	nbt_sleep_ms(pr->p.timeout_ms + 100);
	bool cok = nb_session_stop(pr->cli, &err);
	cr_assert(cok, "client: %s", err.msg);
	nb_session_snapshot(pr->cli, cli);
	bool sok = nb_session_stop(pr->srv, &err);
	cr_assert(sok, "server: %s", err.msg);
	nb_session_snapshot(pr->srv, srv);
	nb_session_destroy(pr->cli);
	nb_session_destroy(pr->srv);
	pr->cli = pr->srv = NULL;
}

uint64_t nbt_sum(const struct nb_snapshot *s, enum nb_counter c)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nflows; i++)
		n += s->flow[i].c[c];
	return n;
}

struct solo_start {
	struct nbt_solo *s;
	const struct nb_engine *e;
};

static void *solo_run(void *arg)
{
	struct nbt_solo *s = ((struct solo_start *)arg)->s;
	const struct nb_engine *e = ((struct solo_start *)arg)->e;
	free(arg);
	s->rc = e->client_flow(&s->f);
	return NULL;
}

void nbt_solo_start(struct nbt_solo *s, const struct nb_engine *e, const struct nb_params *p, int fd)
{
	nbt_solo_start_window(s, e, p, fd, 0, 0);
}

void nbt_solo_start_window(struct nbt_solo *s, const struct nb_engine *e, const struct nb_params *p,
			   int fd, uint64_t start_ns, uint64_t end_ns)
{
	memset(s, 0, sizeof(*s));
	s->e = e;
	s->p = *p;
	s->f.p = &s->p;
	s->f.side = NB_SIDE_CLIENT;
	s->f.sends = true;
	s->f.fd = fd;
	s->f.stop = &s->stop;
	s->f.quiesce = &s->quiesce;
	s->f.epoch = &s->epoch;
	s->f.hist = nb_hist_create();
	cr_assert_not_null(s->f.hist);
	struct nb_error err = { "" };
	cr_assert(e->validate(p, &err), "%s", err.msg);
	cr_assert(!e->flow_init || e->flow_init(&s->f, &err), "%s", err.msg);
	if (e->set_window)
		e->set_window(&s->f, start_ns, end_ns);
	struct solo_start *a = malloc(sizeof(*a));
	*a = (struct solo_start){ s, e };
	cr_assert_eq(pthread_create(&s->th, NULL, solo_run, a), 0);
}

int nbt_solo_stop(struct nbt_solo *s)
{
	atomic_store(&s->quiesce, true);
	nbt_sleep_ms(s->p.timeout_ms + 100); /* the last answers or timeouts */
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	close(s->f.fd);
	if (s->e->window_hist && (s->win = nb_hist_create()))
		s->e->window_hist(&s->f, s->win);
	if (s->e->flow_fini)
		s->e->flow_fini(&s->f);
	return s->rc;
}

int nbt_bind_lo(int type, uint16_t *port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, l), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	*port = ntohs(a.sin_port);
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(fd, 16), 0);
	return fd;
}

int nbt_connect_lo(int type, uint16_t port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

bool nbt_private_lo(const char *setup)
{
	if (unshare(CLONE_NEWNET) != 0)
		return false;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr = { 0 };
	strcpy(ifr.ifr_name, "lo");
	bool up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
		  (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) == 0);
	if (fd >= 0)
		close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1", setup ? setup : "true");
	return up && system(cmd) == 0;
}
