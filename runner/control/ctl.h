/* nbrun — control connection I/O: frames over a TCP socket with deadlines.
 *
 * A control connection is a struct nb_ctl: its socket and, once the handshake is over, the keys
 * that seal every frame (nb_ctl_seal, called by the handshake itself, auth.h). Until then frames
 * go as they are: HELLO and AUTH prove what they prove by their own MACs. From then on each
 * frame, both ways, is libsodium's crypto_aead_chacha20poly1305_ietf under a key of its own
 * direction (crypto_kdf of the session key), the nonce its sequence number in that direction
 * and the additional data its length prefix: a frame changed, cut, dropped, replayed, reordered
 * or made up on the way fails to open, and so does every frame after it (the connection is
 * marked altered and nothing more is read from it). Message codecs (proto.h) never see any of
 * it: what is sealed is the encoded body.
 *
 * Without a secret on either end the session key is still computed from both HELLOs' nonces,
 * so frames are sealed the same way; but anyone who saw the handshake can compute it too: then
 * the seal catches corruption, not an attacker on the path (docs/agent.md, the threat model).
 */
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
#define NB_CTL_TAG_LEN 16              /* what sealing adds to a frame's body */
/** The one line of an integrity failure (err of nb_ctl_recv, and what both ends log). */
#define NB_CTL_ALTERED "the control connection was altered in transit"

/** One end of a control connection (see above). */
struct nb_ctl {
	int fd;                              /* the socket (or ssh's pipe); -1: closed */
	bool sealed;                         /* the handshake is over: every frame is sealed */
	bool altered;                        /* a frame failed to open: nothing more is read */
	uint64_t tx_seq, rx_seq;             /* frames sealed and opened so far: the next nonces */
	unsigned char tx_key[NB_KEY_LEN];    /* this end's direction */
	unsigned char rx_key[NB_KEY_LEN];    /* the peer's */
};

/** A control connection on fd, its frames not sealed yet. */
void nb_ctl_init(struct nb_ctl *c, int fd);
/** From now on seal every frame under keys derived from session_key; role is this end's. */
void nb_ctl_seal(struct nb_ctl *c, const unsigned char session_key[NB_KEY_LEN], enum nb_role role);
/** Wipe the keys (the socket is the caller's to close). */
void nb_ctl_forget(struct nb_ctl *c);
/** Send one message (blocking up to timeout_ms). */
bool nb_ctl_send(struct nb_ctl *c, const struct nb_msg *m, int timeout_ms, struct nb_error *err);
/** Send one encoded frame as it is (its length prefix and body, as nb_msg_encode writes them, or
 *  any bytes a test makes up), sealed when c is: what nb_ctl_send does after encoding. */
bool nb_ctl_send_frame(struct nb_ctl *c, const uint8_t *frame, size_t len, int timeout_ms,
		       struct nb_error *err);
/** Receive one message: 1 received, 0 nothing within timeout_ms (nothing consumed),
 *  -1 closed, garbage, I/O error or a frame that fails to open (err says which: then
 *  NB_CTL_ALTERED, and c->altered). A frame that has begun must be whole within
 *  NB_CTL_FRAME_MS, however long timeout_ms. */
int nb_ctl_recv(struct nb_ctl *c, struct nb_msg *m, int timeout_ms, struct nb_error *err);
/** Receive one message of at most max_len bytes that is whole by deadline_ms (nb_ctl_now_ms
 *  clock): the handshake's bounded wait. Returns as nb_ctl_recv. */
int nb_ctl_recv_by(struct nb_ctl *c, struct nb_msg *m, uint64_t deadline_ms, uint32_t max_len,
		   struct nb_error *err);
/** CLOCK_MONOTONIC in milliseconds. */
uint64_t nb_ctl_now_ms(void);
/** Send an ERROR frame with code and text (best effort). */
void nb_ctl_send_error(struct nb_ctl *c, enum nb_err_code code, const char *text);
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
/** The address of a SETUP target; false with err for one an agent never sends to: unspecified,
 *  multicast, reserved or broadcast, and (unless local_ok: its runner is on this host's
 *  loopback itself) loopback or link-local (a cloud's metadata service). */
bool nb_ctl_target_get(const struct nb_target *t, bool local_ok, struct sockaddr_storage *addr,
		       socklen_t *len, struct nb_error *err);
/** "ADDR:PORT" text of an address (nb_sock_addr_str). */
void nb_ctl_addr_str(const struct sockaddr_storage *addr, char *out, size_t n);

#endif
