/* nbrun — control connection I/O: frames over a TCP socket with deadlines. */
#ifndef NB_CTL_H
#define NB_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

#define NB_DEFAULT_CONTROL_PORT 7575   /* nbrun serve's control port */
#define NB_DEFAULT_DATA_LO 7600        /* and its data port range */
#define NB_DEFAULT_DATA_HI 7699
#define NB_CTL_FRAME_MS 5000           /* a frame that has begun must be whole this soon */

/** Send one message (blocking up to timeout_ms). */
bool nb_ctl_send(int fd, const struct nb_msg *m, int timeout_ms, struct nb_error *err);
/** Receive one message: 1 received, 0 nothing within timeout_ms (nothing consumed),
 *  -1 closed, garbage or I/O error (err says which). A frame that has begun must be whole
 *  within NB_CTL_FRAME_MS, however long timeout_ms. */
int nb_ctl_recv(int fd, struct nb_msg *m, int timeout_ms, struct nb_error *err);
/** Receive one message of at most max_len bytes that is whole by deadline_ms (nb_ctl_now_ms
 *  clock): the handshake's bounded wait. Returns as nb_ctl_recv. */
int nb_ctl_recv_by(int fd, struct nb_msg *m, uint64_t deadline_ms, uint32_t max_len,
		   struct nb_error *err);
/** CLOCK_MONOTONIC in milliseconds. */
uint64_t nb_ctl_now_ms(void);
/** Send an ERROR frame with code and text (best effort). */
void nb_ctl_send_error(int fd, enum nb_err_code code, const char *text);
/** Check the form of "HOST[:PORT]" / "[V6]:PORT" without resolving it: host and port out. */
bool nb_ctl_parse_peer(const char *host_port, uint16_t default_port, char *host, size_t hn,
		       uint16_t *port, struct nb_error *err);
/** Resolve "HOST[:PORT]" / "[V6]:PORT" (numeric addresses always work; names via getaddrinfo). */
bool nb_ctl_resolve(const char *host_port, uint16_t default_port, struct sockaddr_storage *addr,
		    socklen_t *len, struct nb_error *err);
/** Connect a control connection within timeout_ms. -1 on error. */
int nb_ctl_connect(const struct sockaddr_storage *addr, socklen_t len, int timeout_ms,
		   struct nb_error *err);
/** Listen on addr (port 0 = ephemeral; the bound port is written back into addr). -1 on error. */
int nb_ctl_listen(struct sockaddr_storage *addr, socklen_t len, struct nb_error *err);
/** A SETUP target from addr's host and port (nothing for an address that is not IPv4/IPv6). */
bool nb_ctl_target_put(const struct sockaddr_storage *addr, uint16_t port, struct nb_target *t);
/** The address of a SETUP target; false with err for one an agent never sends to (unspecified,
 *  multicast, broadcast). */
bool nb_ctl_target_get(const struct nb_target *t, struct sockaddr_storage *addr, socklen_t *len,
		       struct nb_error *err);
/** "ADDR:PORT" text of an address (nb_sock_addr_str). */
void nb_ctl_addr_str(const struct sockaddr_storage *addr, char *out, size_t n);

#endif
