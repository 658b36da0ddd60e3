/* nbrun — flows over threads: one thread's epoll loop over its flows (see flowloop.h). */
#include "flowloop.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "sock.h"

#define EVENTS_MAX 64

uint32_t nb_flow_cpus(const struct nb_params *p)
{
	if (p->ncpus)
		return p->ncpus;
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	int n = CPU_COUNT(&set);
	return n > 0 ? (uint32_t)n : 1;
}

uint32_t nb_flow_threads(const struct nb_engine *e, const struct nb_params *p, uint32_t nflows)
{
	if (!e->steps || nflows == 0 || (e->steps->covers && !e->steps->covers(p)))
		return nflows;
	uint32_t t = p->threads ? p->threads : nb_flow_cpus(p);
	return t == 0 ? 1 : t < nflows ? t : nflows;
}

void nb_flow_block(uint32_t t, uint32_t nthreads, uint32_t nflows, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)((uint64_t)t * nflows / nthreads);
	*hi = (uint32_t)((uint64_t)(t + 1) * nflows / nthreads);
}

/* One thread's flows: what each waits for, what epoll watches of it, whether it is done. */
struct loop {
	const struct nb_flow_steps *ops;
	struct nb_flow *flows;
	uint32_t n, live;
	int ep;
	struct nb_flow_wants *w;
	uint32_t *watched;      /* the events epoll has for flow i */
	int *fds;               /* what epoll watches for flow i (steps' fd, else f->fd) */
	bool *done;
};

static void finish(struct loop *l, uint32_t i)
{
	epoll_ctl(l->ep, EPOLL_CTL_DEL, l->fds[i], NULL);
	l->ops->close(&l->flows[i]);
	l->done[i] = true;
	l->live--;
}

/* Keep epoll's events for flow i what its step asked for. */
static void watch(struct loop *l, uint32_t i)
{
	if (l->w[i].events == l->watched[i])
		return;
	struct epoll_event ev = { .events = l->w[i].events, .data.u32 = i };
	if (epoll_ctl(l->ep, EPOLL_CTL_MOD, l->fds[i], &ev) == 0)
		l->watched[i] = l->w[i].events;
}

static void step(struct loop *l, uint32_t i, uint32_t events, uint64_t now)
{
	struct nb_flow *f = &l->flows[i];
	int rc = l->ops->step(f, events, now, &l->w[i]);
	if (rc < 0 && !f->err.msg[0])
		nb_error_set(&f->err, "flow %u failed", f->index);
	if (rc <= 0)
		finish(l, i);
	else
		watch(l, i);
}

/* Step every flow whose time came (all of them at a slice's end); the earliest time left. */
static uint64_t step_due(struct loop *l, bool slice, uint64_t now)
{
	uint64_t next = now + NB_FLOWLOOP_SLICE_NS;
	for (uint32_t i = 0; i < l->n; i++) {
		if (!l->done[i] && (slice || (l->w[i].at_ns && l->w[i].at_ns <= now)))
			step(l, i, 0, now);
		if (!l->done[i] && l->w[i].at_ns && l->w[i].at_ns < next)
			next = l->w[i].at_ns;
	}
	return next;
}

/* Wait until deadline (CLOCK_MONOTONIC) or an event: epoll_pwait2's ns timeout; a kernel
 * without it (before 5.11) waits in whole milliseconds, rounded up (a paced flow then wakes up
 * to 1 ms late: its pacer sends what is due, at most its burst). */
static int wait_events(int ep, struct epoll_event *ev, uint64_t deadline)
{
	static atomic_bool no_pwait2;
	uint64_t now = nb_now_ns();
	uint64_t d = deadline > now ? deadline - now : 0;
	if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
		struct timespec ts = { .tv_sec = (time_t)(d / 1000000000ull),
				       .tv_nsec = (long)(d % 1000000000ull) };
		int n = epoll_pwait2(ep, ev, EVENTS_MAX, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		atomic_store(&no_pwait2, true);
	}
	return epoll_wait(ep, ev, EVENTS_MAX, (int)((d + 999999) / 1000000));
}

static bool open_all(struct loop *l)
{
	for (uint32_t i = 0; i < l->n; i++) {
		struct nb_flow *f = &l->flows[i];
		l->done[i] = true;
		if (!l->ops->open(f, &l->w[i]))
			continue;
		l->fds[i] = l->ops->fd ? l->ops->fd(f) : f->fd;
		struct epoll_event ev = { .events = l->w[i].events, .data.u32 = i };
		if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->fds[i], &ev) < 0) {
			nb_error_errno(&f->err, errno, "flow %u: epoll_ctl", f->index);
			l->ops->close(f);
			continue;
		}
		l->watched[i] = l->w[i].events;
		l->done[i] = false;
		l->live++;
	}
	return l->live > 0;
}

static void run(struct loop *l, const atomic_bool *stop)
{
	struct epoll_event ev[EVENTS_MAX];
	uint64_t sliced = nb_now_ns();
	while (l->live && !atomic_load_explicit(stop, memory_order_relaxed)) {
		nb_io_rt_turn(); /* a loop whose flows are always ready never blocks */
		uint64_t now = nb_now_ns();
		/* Every flow is stepped at least once a slice, so each sees quiet and stop. */
		bool slice = now - sliced >= NB_FLOWLOOP_SLICE_NS;
		if (slice)
			sliced = now;
		uint64_t next = step_due(l, slice, now);
		if (!l->live)
			break;
		if (next > sliced + NB_FLOWLOOP_SLICE_NS)
			next = sliced + NB_FLOWLOOP_SLICE_NS;
		int n = wait_events(l->ep, ev, next);
		if (n < 0 && errno != EINTR) {
			for (uint32_t i = 0; i < l->n; i++)
				if (!l->done[i]) {
					nb_error_errno(&l->flows[i].err, errno, "flow %u: epoll_wait",
						       l->flows[i].index);
					finish(l, i);
				}
			break;
		}
		now = nb_now_ns();
		for (int k = 0; k < n; k++) {
			uint32_t i = ev[k].data.u32;
			if (i < l->n && !l->done[i])
				step(l, i, ev[k].events, now);
		}
	}
	for (uint32_t i = 0; i < l->n; i++)
		if (!l->done[i])
			finish(l, i);
}

void nb_flowloop_run(const struct nb_flow_steps *ops, struct nb_flow *flows, uint32_t n,
		     const atomic_bool *stop)
{
	struct loop l = { .ops = ops, .flows = flows, .n = n };
	l.w = calloc(n, sizeof(*l.w));
	l.watched = calloc(n, sizeof(*l.watched));
	l.done = calloc(n, sizeof(*l.done));
	l.fds = calloc(n, sizeof(*l.fds));
	l.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!l.w || !l.watched || !l.done || !l.fds || l.ep < 0) {
		for (uint32_t i = 0; i < n; i++)
			nb_error_set(&flows[i].err, "flow %u: out of memory or epoll", flows[i].index);
	} else if (open_all(&l)) {
		run(&l, stop);
	}
	if (l.ep >= 0)
		close(l.ep);
	free(l.w);
	free(l.watched);
	free(l.done);
	free(l.fds);
}
