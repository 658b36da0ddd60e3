/* nbrun — the preflight check: does this host have what a plan needs? Congestion control
 * algorithms are tried on a real socket, pinned CPUs against the CPUs this process may use,
 * data ports by binding one in the agent's range. Each problem is one line of text; the agent
 * answers a CHECK with its lines and its limits (the client holds each case to them), the
 * client adds its own (its congestion control and CPUs). Nothing runs, so it takes moments. */
#ifndef NB_CHECK_H
#define NB_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

/** The agent's side of the check: where it binds data ports. */
struct nb_check_limits {
	const struct sockaddr_storage *bind;  /* the agent's address (its data ports bind there) */
	socklen_t bind_len;
	uint16_t data_lo, data_hi;            /* 0, 0: ephemeral ports, nothing to check */
	const struct sockaddr_storage *peer;  /* the asking client: the xdp datapath goes toward it */
	socklen_t peer_len;
};

/** Append one line ("...\n") per problem of this host with need to text (len bytes); lim NULL
 *  checks only what the client end needs (congestion control, CPUs). Returns the count. */
size_t nb_check_host(const struct nb_msg_check *need, const struct nb_check_limits *lim,
		     char *text, size_t len);
/** The xdp datapath's line for an end with roles (NB_CHECK_XDP_*) toward peer, sending at most
 *  senders flows at once: what is missing ("datapath xdp: ..."), appended to text; returns 1
 *  for a problem, 0 when it can run. */
size_t nb_check_xdp(uint8_t roles, uint32_t senders, const struct sockaddr_storage *peer,
		    socklen_t peer_len, char *text, size_t len);
/** Add a congestion control name to need (once; false when it is full). */
bool nb_check_add_cc(struct nb_msg_check *need, const char *name);
/** Add a CPU to need (once; false when it is full). */
bool nb_check_add_cpu(struct nb_msg_check *need, unsigned cpu);

#endif
