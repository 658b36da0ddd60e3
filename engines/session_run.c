/* nbrun — the data-plane harness, running: one thread per flow or threads over blocks of the
 * flows (flowloop.h), the ticks that open epochs
 * and read every flow's counters, the drain and the stop (see session.h, engine.h). */
#include "session.h"
#include "session_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epoch.h"
#include "flowloop.h"
#include "sock.h"

/* A thread's flows: [lo, hi) of the session's, thread t (one flow per thread: hi = lo + 1). */
struct flow_start {
	struct nb_session *s;
	uint32_t t, lo, hi;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *flow_main(void *arg)
{
	struct nb_session *s = ((struct flow_start *)arg)->s;
	uint32_t i = ((struct flow_start *)arg)->lo;
	free(arg);
	struct nb_flow *f = &s->flows[i];
	if (nb_sock_pin_flow(&s->p, i, &f->err)) {
		int (*body)(struct nb_flow *) = s->side == NB_SIDE_CLIENT ? s->e->client_flow
									  : s->e->server_flow;
		if (body(f) != 0 && !f->err.msg[0])
			nb_error_set(&f->err, "flow %u failed", i);
	}
	atomic_store(&f->cpu_ns, thread_cpu_ns());
	atomic_store(&s->done[i], true);
	return NULL;
}

/* Several flows on one thread, as steps (flowloop.h); the thread's CPU time is its first flow's. */
static void *group_main(void *arg)
{
	struct flow_start g = *(struct flow_start *)arg;
	free(arg);
	struct nb_session *s = g.s;
	if (nb_sock_pin_flow(&s->p, g.t, &s->flows[g.lo].err))
		nb_flowloop_run(s->e->steps, &s->flows[g.lo], g.hi - g.lo, &s->stop);
	atomic_store(&s->flows[g.lo].cpu_ns, thread_cpu_ns());
	for (uint32_t i = g.lo; i < g.hi; i++)
		atomic_store(&s->done[i], true);
	return NULL;
}

bool nb_session_start(struct nb_session *s, struct nb_error *err)
{
	/* A first reading of the kernel's counts before any data: what later readings start from
	 * (a TCP receiver's out-of-order estimate needs the start, tcprx.h). */
	for (uint32_t i = 0; i < s->nflows; i++)
		if (s->e->kernel_counters && s->flows[i].fd >= 0)
			s->e->kernel_counters(&s->flows[i]);
	uint32_t nt = nb_flow_threads(s->e, &s->p, s->nflows);
	for (uint32_t t = 0; t < nt; t++) {
		struct flow_start *fs = malloc(sizeof(*fs));
		if (!fs)
			return nb_error_set(err, "out of memory");
		*fs = (struct flow_start){ .s = s, .t = t };
		nb_flow_block(t, nt, s->nflows, &fs->lo, &fs->hi);
		uint32_t lead = fs->lo;
		int rc = pthread_create(&s->threads[t], NULL, nt == s->nflows ? flow_main : group_main,
					fs);
		if (rc != 0) {
			free(fs);
			nb_session_stop(s, NULL);
			return nb_error_errno(err, rc, "pthread_create for flow thread %u", t);
		}
		s->nthreads = t + 1;
		if (pthread_getcpuclockid(s->threads[t], &s->clocks[lead]) != 0)
			s->clocks[lead] = (clockid_t)-1;
	}
	s->started = true;
	return true;
}

void nb_session_set_lag(struct nb_session *s, uint32_t lag)
{
	lag = lag < 1 ? 1 : lag > NB_EPOCH_LAG_MAX ? NB_EPOCH_LAG_MAX : lag;
	for (uint32_t i = 0; i < s->nflows; i++)
		s->flows[i].lag = lag;
}

void nb_session_set_window(struct nb_session *s, uint64_t start_ns, uint64_t end_ns)
{
	for (uint32_t i = 0; s->e->set_window && i < s->nflows; i++)
		s->e->set_window(&s->flows[i], start_ns, end_ns);
}

void nb_session_tick(struct nb_session *s, uint32_t epoch)
{
	atomic_store(&s->epoch, epoch); /* seq_cst, before each flow's busy count is read */
	for (uint32_t i = 0; i < s->nflows; i++) {
		nb_epoch_quiet(&s->flows[i]);
		nb_epoch_settle(&s->flows[i], epoch);
	}
}

/* busy excludes steal: time the hypervisor gave another guest is not this host's work, and a
 * report must say it apart (a VM at 60 % busy and 30 % steal is short of CPU, not busy). */
static void host_ticks(uint64_t *busy, uint64_t *steal, uint64_t *total)
{
	*busy = *steal = *total = 0;
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return;
	unsigned long long v[10] = { 0 };
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			*total += v[i];
		*steal = v[7];
		*busy = *total - v[3] - v[4] - v[7]; /* minus idle, iowait and steal */
	}
	fclose(f);
}

static uint64_t flow_cpu_ns(struct nb_session *s, uint32_t i)
{
	struct timespec ts;
	if (!atomic_load(&s->done[i]) && s->clocks[i] != (clockid_t)-1 &&
	    clock_gettime(s->clocks[i], &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return atomic_load(&s->flows[i].cpu_ns);
}

/* Every flow's counters (and the kernel's, through the engine) in one tight pass, stamped with
 * the middle of it: what the rates divide by is the time the counts were read, not the time
 * the reading began (with many flows, reading their CPU clocks and histograms takes longer). */
static void read_counters(struct nb_session *s, struct nb_snapshot *out)
{
	uint64_t t0 = nb_now_ns();
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct nb_flow *f = &s->flows[i];
		if (s->e->kernel_counters && f->fd >= 0)
			s->e->kernel_counters(f);
		for (int c = 0; c < NB_C_COUNT; c++)
			out->flow[i].c[c] = atomic_load_explicit(&f->c[c], memory_order_relaxed);
		for (int g = 0; g < NB_G_COUNT; g++)
			out->flow[i].g[g] = atomic_load_explicit(&f->g[g], memory_order_relaxed);
		for (int o = 0; o < NB_OWN_COUNTERS_MAX; o++)
			out->flow[i].own[o] = atomic_load_explicit(&f->own[o], memory_order_relaxed);
		out->flow[i].sends = f->sends;
	}
	uint64_t t1 = nb_now_ns();
	out->t_ns = t0 + (t1 - t0) / 2;
}

void nb_session_snapshot(struct nb_session *s, struct nb_snapshot *out)
{
	out->nflows = s->nflows;
	read_counters(s, out);
	out->engine_cpu_ns = 0;
	if (out->hist)
		nb_hist_init(out->hist);
	if (out->lag)
		nb_hist_init(out->lag);
	for (uint32_t i = 0; i < s->nflows; i++) {
		out->flow[i].cpu_ns = flow_cpu_ns(s, i); /* a thread's first flow's: flowloop.h */
		out->engine_cpu_ns += out->flow[i].cpu_ns;
		if (out->hist && s->flows[i].hist)
			nb_hist_merge(out->hist, s->flows[i].hist);
		if (out->lag && s->flows[i].lag_hist)
			nb_hist_merge(out->lag, s->flows[i].lag_hist);
	}
	host_ticks(&out->host_busy_ticks, &out->host_steal_ticks, &out->host_total_ticks);
}

bool nb_session_records_lag(const struct nb_session *s)
{
	for (uint32_t i = 0; i < s->nflows; i++)
		if (s->flows[i].lag_hist)
			return true;
	return false;
}

void nb_session_window_hist(struct nb_session *s, struct nb_hist *out)
{
	nb_hist_init(out);
	for (uint32_t i = 0; s->e->window_hist && i < s->nflows; i++)
		s->e->window_hist(&s->flows[i], out);
}

void nb_session_quiesce(struct nb_session *s)
{
	atomic_store(&s->quiesce, true);
}

void nb_session_drain(struct nb_session *s, uint64_t drain_ns)
{
	nb_session_quiesce(s);
	struct timespec ts = { .tv_sec = (time_t)(drain_ns / 1000000000ull),
			       .tv_nsec = (long)(drain_ns % 1000000000ull) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool nb_session_stop(struct nb_session *s, struct nb_error *err)
{
	atomic_store(&s->quiesce, true);
	atomic_store(&s->stop, true);
	/* Wake threads blocked in send/recv/accept. */
	for (uint32_t i = 0; i < s->nflows; i++)
		if (s->flows[i].fd >= 0)
			shutdown(s->flows[i].fd, SHUT_RDWR);
	if (s->listen_fd >= 0 && s->e->datapath == NB_DATAPATH_PER_CONNECTION)
		shutdown(s->listen_fd, SHUT_RDWR);
	bool ok = true;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		int rc = pthread_join(s->threads[i], NULL);
		if (rc != 0 && ok) {
			nb_error_errno(err, rc, "pthread_join flow thread %u", i);
			ok = false;
		}
	}
	for (uint32_t i = 0; ok && s->nthreads && i < s->nflows; i++)
		if (s->flows[i].err.msg[0]) {
			nb_error_set(err, "%s", s->flows[i].err.msg);
			ok = false;
		}
	s->started = false;
	s->nthreads = 0;
	return ok;
}

struct nb_snapshot *nb_snapshot_create_with(bool with_hist, bool with_lag)
{
	struct nb_snapshot *s = calloc(1, sizeof(*s));
	if (s && ((with_hist && !(s->hist = nb_hist_create())) ||
		  (with_lag && !(s->lag = nb_hist_create())))) {
		nb_snapshot_destroy(s);
		return NULL;
	}
	return s;
}

struct nb_snapshot *nb_snapshot_create(bool with_hist)
{
	return nb_snapshot_create_with(with_hist, with_hist);
}

struct nb_snapshot *nb_snapshot_dup(const struct nb_snapshot *s)
{
	struct nb_snapshot *d = s ? nb_snapshot_create_with(s->hist != NULL, s->lag != NULL) : NULL;
	if (!d)
		return NULL;
	struct nb_hist *h = d->hist, *lag = d->lag;
	*d = *s;
	d->hist = h;
	d->lag = lag;
	if (h)
		nb_hist_copy(h, s->hist);
	if (lag && s->lag)
		nb_hist_copy(lag, s->lag);
	else if (lag)
		nb_hist_init(lag);
	return d;
}

void nb_snapshot_destroy(struct nb_snapshot *s)
{
	if (!s)
		return;
	nb_hist_destroy(s->hist);
	nb_hist_destroy(s->lag);
	free(s);
}
