/* nbrun — socket and clock helpers shared by the engines. */
#ifndef NB_SOCK_H
#define NB_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "engine.h"

/** CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t nb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** Apply the case's socket options (buffers, MSS, no-delay, congestion control, TOS). */
bool nb_sock_apply(int fd, const struct nb_params *p, int family, struct nb_error *err);
/** Apply wait-mode options: SO_BUSY_POLL (+ SO_PREFER_BUSY_POLL) for busy-poll; O_NONBLOCK for spin. */
bool nb_sock_apply_wait(int fd, enum nb_wait wait, struct nb_error *err);
/** Pin the calling thread to the flow's CPU (params.cpus[i % ncpus]); true when not pinned. */
bool nb_sock_pin_flow(const struct nb_params *p, uint32_t flow, struct nb_error *err);
/** Wait until fd is readable (or writable when for_write) or stop is set; poll in 100 ms slices.
 *  Returns 1 ready, 0 stopped, -1 error (errno). */
int nb_sock_wait(int fd, bool for_write, const struct nb_flow *f);
/** Send all of buf on a stream socket, waiting as needed; false when stopped or on error (f->err set on error). */
bool nb_sock_send_all(struct nb_flow *f, const void *buf, size_t len);
/** Receive exactly len bytes on a stream socket; false when stopped, closed or on error. */
bool nb_sock_recv_all(struct nb_flow *f, void *buf, size_t len);
/** UDP sender: ask for send errors (IP_RECVERR / IPV6_RECVERR). Without it the kernel turns a
 *  UDP send refused with ENOBUFS into success, and the datagram would vanish as "loss". */
bool nb_sock_udp_send_errors(int fd, struct nb_error *err);
/** UDP receiver: a 4 MiB SO_RCVBUF when the case sets no window (SO_RCVBUFFORCE when allowed,
 *  else capped by net.core.rmem_max), so a receiver hiccup does not become drops. */
void nb_sock_udp_rcvbuf(int fd, const struct nb_params *p);
/** engine.prepare_socket for UDP engines: receivers get nb_sock_udp_rcvbuf. */
bool nb_sock_prepare_udp(int fd, const struct nb_params *p, bool sends, struct nb_error *err);
/** The socket's cumulative count of datagrams dropped for a full receive buffer (SO_MEMINFO;
 *  cheaper than SO_RXQ_OVFL, which builds a control message for every datagram). */
bool nb_sock_rcv_drops(int fd, uint32_t *drops);
/** The memory a socket holds for received data, in order or not (SO_MEMINFO's rmem_alloc);
 *  UINT64_MAX when the kernel does not say. */
uint64_t nb_sock_rmem_alloc(int fd);
/** Drop the ICMP errors IP_RECVERR queued, so the error queue holds no buffer memory. */
void nb_sock_drain_errqueue(int fd);
/** Whether the error queue (IP_RECVERR) held an ICMP destination unreachable: the peer's port
 *  or host is gone. Drains the queue. A partial sendmmsg returns its count and loses the
 *  error that stopped it, so a UDP sender asks this after one. */
bool nb_sock_peer_unreachable(int fd);
/** Set a socket's receive timeout in ms (0 = none). */
bool nb_sock_set_rcvtimeo(int fd, uint32_t ms);
/** Address family of a sockaddr length pair's address. */
int nb_sock_family(const struct sockaddr_storage *ss);
/** Whether a and b are the same host address (ports ignored; an IPv4-mapped IPv6 address is
 *  its IPv4 address). */
bool nb_sock_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/** Whether a data connection or datagram from `from` may be taken for a run whose data comes
 *  from peer's host: that host only, or (peer of family AF_UNSPEC: the data comes from another
 *  agent, or over ssh from wherever the runner is) any host; the run's key, proven next, decides
 *  either way. */
bool nb_sock_from_allowed(const struct sockaddr_storage *peer, const struct sockaddr_storage *from);
/** "ADDR:PORT" ("[V6ADDR]:PORT") text of an address, for messages; an IPv4-mapped IPv6 address
 *  is shown as its IPv4 address. */
void nb_sock_addr_str(const struct sockaddr_storage *addr, char *out, size_t n);
/** Whether name is listed in net.ipv4.tcp_allowed_congestion_control: the only algorithms nbrun
 *  sets, so that TCP_CONGESTION never makes a privileged process load a kernel module. */
bool nb_sock_cc_allowed(const char *name, struct nb_error *err);

#endif
