/* nbrun — the data hello: how a data connection or datagram proves it belongs to the run.
 *
 * 56 bytes, big-endian: magic u32 (which message), flow u32, nonce[16], tag[32], where the tag
 * is libsodium's crypto_auth (HMAC-SHA-512-256) of the first 24 bytes under the run's key
 * (params.key: both ends derive it from the control session's handshake; it never crosses
 * the wire). Only someone who took part in that handshake can make one.
 *
 * TCP data connections and every crr connection open with a HELLO (crr: a CRR message). A TCP
 * data connection's HELLO carries a fresh nonce and the accepting end answers it with an ACK of
 * the same nonce: the connecting end sends no payload before that proof of the run's key, so a
 * listener that is not the run's other end gets the hello and nothing more. A UDP
 * flow checks the return path before any data goes out: the client sends HELLO to the data
 * port; the agent answers from a new socket, connected to the hello's source, with a CHALLENGE
 * carrying a fresh random nonce; the client echoes the nonce (ECHO) from the same source; the
 * agent's ACK ends the exchange. A hello forged with someone else's source address therefore
 * gets challenges of the hello's own size, never a stream; and the agent answers each flow's
 * hellos at most once per NB_DH_ANSWER_GAP_MS and NB_DH_ANSWERS_PER_FLOW times in all (an ack
 * to an echo of its nonce goes where the nonce went: not counted there), the whole run at most
 * 2 per flow and NB_DH_ANSWERS_SPARE more: however many hellos someone forges with a
 * bystander's source (a client of the run knows the key), the bystander gets a few datagrams.
 */
#ifndef NB_DHELLO_H
#define NB_DHELLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define NB_DHELLO_LEN 56
#define NB_DHELLO_NONCE 16
#define NB_DH_ANSWER_GAP_MS 100      /* a flow's challenges and acks at most this often */
#define NB_DH_ANSWERS_PER_FLOW 8     /* ... and this many in all */
#define NB_DH_ANSWERS_SPARE 32       /* a run's in all: 2 per flow and these (lost ones resent) */

enum nb_dhello_kind {
	NB_DH_HELLO,      /* client: a TCP connection's first bytes, or a UDP flow's first datagram */
	NB_DH_CHALLENGE,  /* agent, UDP: from the flow's own socket, with a fresh nonce */
	NB_DH_ECHO,       /* client, UDP: the challenge's nonce, back from the hello's source */
	NB_DH_ACK,        /* agent, UDP: the return path is proven; TCP: the accepting end's proof */
	NB_DH_CRR,        /* client, crr: the first bytes of each connection */
	NB_DH_KIND_N
};

/** One data hello, decoded. */
struct nb_dhello {
	enum nb_dhello_kind kind;
	uint32_t flow;
	unsigned char nonce[NB_DHELLO_NONCE];   /* zero in a UDP HELLO and in CRR */
};

/** Encode h with its tag under key. */
void nb_dhello_put(unsigned char out[NB_DHELLO_LEN], const struct nb_dhello *h,
		   const unsigned char key[NB_KEY_LEN]);
/** Whether buf is a data hello of the run whose key is key, of any kind (its tag is valid). */
bool nb_dhello_of_run(const unsigned char *buf, size_t len, const unsigned char key[NB_KEY_LEN]);
/** Decode buf: true only for exactly NB_DHELLO_LEN bytes of kind with a valid tag under key. */
bool nb_dhello_get(const unsigned char *buf, size_t len, enum nb_dhello_kind kind,
		   const unsigned char key[NB_KEY_LEN], struct nb_dhello *out);

#endif
