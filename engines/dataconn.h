/* nbrun — data connections: each flow's socket, made and proven on both ends.
 *
 * The agent binds one data port per run (nb_dataconn_bind). A TCP flow connects to it and
 * opens with a data hello (dhello.h), and sends nothing more before the agent proved the run's
 * key back. A UDP flow sends its hello there and, once the agent
 * answered from a socket of the flow's own, proves the return path by echoing the agent's
 * nonce (dhello.h says why). The agent takes a data connection or hello only from the host of
 * its authenticated control connection, and only with the run's key; anything else is closed
 * or dropped unanswered.
 *
 * No data socket sets SO_REUSEPORT, and UDP ones not SO_REUSEADDR either: no other program can
 * bind a port the agent measures on and take or inject its datagrams.
 */
#ifndef NB_DATACONN_H
#define NB_DATACONN_H

#define NB_DATACONN_BACKLOG 1024 /* a data listener's: every flow of a test at once */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"

/** The agent's side of one run's data connections. */
struct nb_dataconn_server {
	int listen_fd;                          /* TCP listener or UDP hello socket */
	enum nb_proto proto;
	const struct sockaddr_storage *local;   /* its address (UDP flow sockets bind the same host) */
	socklen_t local_len;
	const struct sockaddr_storage *peer;    /* the client: its host is the only one accepted
					   (AF_UNSPEC: any host; the key still decides) */
	uint16_t port_lo, port_hi;              /* UDP flow sockets take their ports from here (0,0: any) */
	const unsigned char *key;               /* the run's key (NB_KEY_LEN bytes) */
	uint32_t nflows;
	int *fds;                               /* out: flow i's proven socket (-1 until then) */
	uint32_t *heard;                        /* out, optional (NULL): UDP flows whose hello came,
						   proven or not (a return path that fails shows) */
};

/** Bind a socket of type on addr with a port in [lo, hi] (0,0 = ephemeral); fills *port and
 *  addr's port; a TCP socket is listening already (backlog NB_DATACONN_BACKLOG). -1 with err
 *  on failure. */
int nb_dataconn_bind(int type, struct sockaddr_storage *addr, socklen_t len, uint16_t lo, uint16_t hi,
		     uint16_t *port, struct nb_error *err);
/** Agent: take every flow's connection or proven UDP path within timeout_ms. */
bool nb_dataconn_accept(const struct nb_dataconn_server *sv, int timeout_ms, struct nb_error *err);
/** Client: flow's socket to the agent's data port `to`, hello said (UDP: path proven), options
 *  of p applied. -1 with err on failure. */
int nb_dataconn_connect(const struct sockaddr_storage *to, socklen_t len, uint32_t flow,
			const struct nb_params *p, uint64_t deadline_ns, struct nb_error *err);

#endif
