/* nbrun — wait-mode aware send/receive for the request/response engines (see io.h). */
#include "io.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "sock.h"

bool nb_io_setup(int fd, enum nb_wait w, uint32_t slice_ms, struct nb_error *err)
{
	if (!nb_sock_apply_wait(fd, w, err))
		return false;
	if (w == NB_WAIT_SPIN)
		return true;
	if (slice_ms == 0 || slice_ms > NB_IO_SLICE_MS)
		slice_ms = NB_IO_SLICE_MS;
	struct timeval tv = { .tv_sec = 0, .tv_usec = (suseconds_t)slice_ms * 1000 };
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return nb_error_errno(err, errno, "SO_RCVTIMEO/SO_SNDTIMEO");
	return true;
}

/* A spinning thread gives its CPU away every SPIN_YIELD_EVERY empty polls: when the
 * threads outnumber the CPUs (a 2-vCPU VM running both ends, or anything else
 * running), a pure spin holds the CPU for a whole time slice (milliseconds) while
 * the peer it waits for cannot run. sched_yield returns at once when nothing else
 * is runnable, so a lone spinner loses nothing. */
#define SPIN_YIELD_EVERY 64u

void nb_io_spin_pause(void)
{
	static _Thread_local unsigned spins;
	if (++spins % SPIN_YIELD_EVERY == 0)
		sched_yield();
}

/* Under SCHED_FIFO / SCHED_RR a thread is never preempted by one of its own priority: a sender
 * that never blocks would starve the controller waiting on the same CPU for good (the run never
 * ends; seen with `taskset -c 0 chrt -f 20 nbrun` on an unpaced UDP stream). sched_yield
 * returns at once when nothing else of its priority is runnable there. */
#define RT_YIELD_EVERY 16u

void nb_io_rt_turn(void)
{
	static _Thread_local int rt = -1;
	static _Thread_local unsigned turns;
	if (rt < 0) {
		int pol = sched_getscheduler(0);
		rt = pol == SCHED_FIFO || pol == SCHED_RR;
	}
	if (rt && ++turns % RT_YIELD_EVERY == 0)
		sched_yield();
}

/* Sleep in ppoll until fd is ready, one slice passes or the deadline comes. */
static enum nb_io poll_slice(int fd, bool for_write, uint64_t deadline_ns, int *ready)
{
	uint64_t wait = NB_IO_SLICE_MS * 1000000ull;
	if (deadline_ns) {
		uint64_t now = nb_now_ns();
		if (now >= deadline_ns)
			return NB_IO_TIMEOUT;
		if (deadline_ns - now < wait)
			wait = deadline_ns - now;
	}
	struct pollfd pfd = { .fd = fd, .events = for_write ? POLLOUT : POLLIN };
	struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000ull),
			       .tv_nsec = (long)(wait % 1000000000ull) };
	int n = ppoll(&pfd, 1, &ts, NULL);
	if (n < 0 && errno != EINTR)
		return NB_IO_ERROR;
	*ready = n > 0;
	return NB_IO_OK;
}

enum nb_io nb_io_wait(const struct nb_flow *f, int fd, bool for_write, uint64_t deadline_ns)
{
	struct pollfd pfd = { .fd = fd, .events = for_write ? POLLOUT : POLLIN };
	for (;;) {
		if (nb_flow_stopping(f))
			return NB_IO_STOP;
		int ready = 0;
		if (f->p->wait == NB_WAIT_SPIN) {
			if (deadline_ns && nb_now_ns() >= deadline_ns)
				return NB_IO_TIMEOUT;
			ready = poll(&pfd, 1, 0) > 0;
			if (!ready)
				nb_io_spin_pause();
		} else {
			enum nb_io r = poll_slice(fd, for_write, deadline_ns, &ready);
			if (r != NB_IO_OK)
				return r;
		}
		if (ready)
			return NB_IO_OK;
	}
}

/* A call found nothing to do: stop, time out, or wait a little and let the caller retry. */
static enum nb_io wait_more(const struct nb_flow *f, int fd, bool for_write, uint64_t deadline_ns)
{
	if (nb_flow_stopping(f))
		return NB_IO_STOP;
	if (deadline_ns && nb_now_ns() >= deadline_ns)
		return NB_IO_TIMEOUT;
	if (f->p->wait == NB_WAIT_SPIN) {
		nb_io_spin_pause();
		return NB_IO_OK;
	}
	int ready = 0;
	return poll_slice(fd, for_write, deadline_ns, &ready);
}

static enum nb_io classify(int e)
{
	return e == ECONNRESET || e == EPIPE || e == ECONNREFUSED || e == ENOTCONN ? NB_IO_CLOSED
										  : NB_IO_ERROR;
}

enum nb_io nb_io_recv(const struct nb_flow *f, int fd, void *buf, size_t len, uint64_t deadline_ns,
		      size_t *got)
{
	*got = 0;
	for (;;) {
		ssize_t n = recv(fd, buf, len, 0);
		if (n > 0) {
			*got = (size_t)n;
			return NB_IO_OK;
		}
		if (n == 0)
			return nb_flow_stopping(f) ? NB_IO_STOP : NB_IO_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return nb_flow_stopping(f) ? NB_IO_STOP : classify(errno);
		enum nb_io r = wait_more(f, fd, false, deadline_ns);
		if (r != NB_IO_OK)
			return r;
	}
}

enum nb_io nb_io_recv_all(const struct nb_flow *f, int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len > 0) {
		size_t got;
		enum nb_io r = nb_io_recv(f, fd, p, len, 0, &got);
		if (r != NB_IO_OK)
			return r;
		p += got;
		len -= got;
	}
	return NB_IO_OK;
}

enum nb_io nb_io_send_all(const struct nb_flow *f, int fd, const void *buf, size_t len)
{
	const char *p = buf;
	do {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n >= 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
			return nb_flow_stopping(f) ? NB_IO_STOP : classify(errno);
		enum nb_io r = wait_more(f, fd, true, 0);
		if (r != NB_IO_OK)
			return r;
	} while (len > 0);
	return NB_IO_OK;
}

int nb_io_fail(struct nb_flow *f, enum nb_io r, const char *what)
{
	int e = errno;
	if (r == NB_IO_STOP || nb_flow_quiet(f))
		return 0;
	if (r == NB_IO_CLOSED)
		nb_error_set(&f->err, "flow %u: %s: the peer closed or refused the connection",
			     f->index, what);
	else if (r == NB_IO_TIMEOUT)
		nb_error_set(&f->err, "flow %u: %s: timed out", f->index, what);
	else
		nb_error_errno(&f->err, e, "flow %u: %s", f->index, what);
	return -1;
}

bool nb_io_again(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

int nb_io_move(int fd, unsigned char *buf, size_t len, size_t *off, bool tx)
{
	while (*off < len) {
		ssize_t n = tx ? send(fd, buf + *off, len - *off, MSG_DONTWAIT | MSG_NOSIGNAL)
			       : recv(fd, buf + *off, len - *off, MSG_DONTWAIT);
		if (n > 0) {
			*off += (size_t)n;
			continue;
		}
		if (n < 0 && nb_io_again(errno))
			return 0;
		if (n == 0)
			errno = ECONNRESET;
		return -1;
	}
	*off = 0;
	return 1;
}
