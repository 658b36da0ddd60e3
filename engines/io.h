/* nbrun — wait-mode aware send/receive for the request/response engines (rr, crr, latency).
 *
 * A requester waits for its answer in one of three ways (enum nb_wait): in the
 * kernel (block), by polling a non-blocking socket in user space (spin), or in
 * the kernel with SO_BUSY_POLL (busy-poll). These helpers give every engine the
 * same loop: a call that would block returns to look at the stop flag at least
 * every NB_IO_SLICE_MS and at an optional absolute deadline (UDP timeouts), so
 * no flow ever hangs. Blocking sockets get SO_RCVTIMEO/SO_SNDTIMEO of one slice,
 * which costs no syscall per transaction (a poll() before each recv would).
 */
#ifndef NB_IO_H
#define NB_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define NB_IO_SLICE_MS 100u

/** What a send or receive came to. */
enum nb_io {
	NB_IO_OK,      /* done */
	NB_IO_STOP,    /* the flow is stopping */
	NB_IO_TIMEOUT, /* the deadline passed first */
	NB_IO_CLOSED,  /* the peer closed or reset the connection */
	NB_IO_ERROR,   /* any other error (errno kept) */
};

/** Prepare a connected data socket for its wait mode; slice_ms bounds a blocked call (0 = NB_IO_SLICE_MS). */
bool nb_io_setup(int fd, enum nb_wait w, uint32_t slice_ms, struct nb_error *err);
/** Receive once (at most len bytes, one datagram on UDP) before deadline_ns (0 = none); *got = bytes. */
enum nb_io nb_io_recv(const struct nb_flow *f, int fd, void *buf, size_t len, uint64_t deadline_ns,
		      size_t *got);
/** Receive exactly len bytes from a stream socket (no deadline). */
enum nb_io nb_io_recv_all(const struct nb_flow *f, int fd, void *buf, size_t len);
/** Send all of buf (one datagram on UDP). */
enum nb_io nb_io_send_all(const struct nb_flow *f, int fd, const void *buf, size_t len);
/** Wait for fd to become readable (or writable) in the flow's wait mode, up to deadline_ns (0 = none). */
enum nb_io nb_io_wait(const struct nb_flow *f, int fd, bool for_write, uint64_t deadline_ns);
/** Called on every empty poll of a spinning loop: now and then gives the CPU to another thread. */
void nb_io_spin_pause(void);
/** One turn of a loop that may never block (an unpaced sender on an always-writable socket):
 *  under a real-time policy (chrt -f) the thread gives its CPU away every few turns, since no
 *  thread of its own priority would ever run on that CPU again (the controller whose timer ends
 *  the run, its signal handler). A normal thread is preempted by the scheduler: no call. */
void nb_io_rt_turn(void);
/** Record an I/O failure in f->err unless the flow is stopping; returns -1, or 0 when stopping. */
int nb_io_fail(struct nb_flow *f, enum nb_io r, const char *what);
/** A non-blocking call that found nothing to do now (errno e: EAGAIN, EINTR). */
bool nb_io_again(int e);
/** A stream socket, never blocking (steps, flowloop.h): move the rest of buf (len bytes, *off
 *  moved so far) on fd; 1 when all of it moved (*off back to 0), 0 when the socket has no room
 *  or no data now, -1 on an end (errno ECONNRESET) or an error (errno). */
int nb_io_move(int fd, unsigned char *buf, size_t len, size_t *off, bool tx);

#endif
