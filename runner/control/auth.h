/* nbrun — the control handshake: versions, the shared secret, the session key.
 *
 * Both ends may hold a secret (`--secret-file`: any text of at least 16 bytes, hashed into a
 * 32-byte master key). Each HELLO carries a fresh random nonce (randombytes) and says whether
 * its sender requires the secret. When either does, both prove it, client first: AUTH is
 * libsodium's crypto_auth (HMAC-SHA-512-256) under a key derived from the master key
 * (crypto_kdf), over a label naming the side and both nonces; the agent's proof also shows the
 * client it reached the right agent. A wrong or missing secret ends the handshake with
 * ERROR auth; nothing else is said or run. Without a secret on either end nothing is proven:
 * anyone who reaches the agent can use it.
 *
 * The session key, from which each run's data key derives (nb_auth_run_key), is a keyed hash
 * of both nonces under another key derived from the master key, so neither end alone chooses
 * it and, with a secret, nobody else can compute it. It never crosses the wire. No
 * cryptography is written here: everything is a libsodium call.
 */
#ifndef NB_AUTH_H
#define NB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "nb_error.h"

#define NB_SECRET_MIN 16                 /* bytes a secret file must hold (trailing space aside) */
#define NB_HANDSHAKE_FRAME_MAX 4096u     /* no handshake frame is longer */

/** A shared secret, as a master key. */
struct nb_secret {
	bool set;                            /* false: no secret (nothing is proven) */
	unsigned char key[NB_KEY_LEN];
	bool others_can_read;                /* the file's mode lets group or others read it */
};

/** What a finished handshake leaves. */
struct nb_auth {
	unsigned char session_key[NB_KEY_LEN];
	char peer_version[33];               /* the peer's nbrun version (clean text) */
};

/** What the agent's side of a handshake came to. */
enum nb_auth_verdict {
	NB_AUTH_OK,          /* proven (or no secret on either end): the session may begin */
	NB_AUTH_REFUSED,     /* refused for a reason worth a log line (err): version, secret */
	NB_AUTH_GONE,        /* closed, silent past the deadline, or garbage */
};

/** Read a secret file; err says why not (missing, unreadable, too short). */
bool nb_secret_load(const char *path, struct nb_secret *s, struct nb_error *err);
/** The secret of text, as a secret file holding it would give. */
bool nb_secret_from_text(const char *text, struct nb_secret *s, struct nb_error *err);
/** Read a secret from fd up to its first newline, one byte at a time (nothing after it is
 *  taken: `serve --secret-stdin` then watches the same stdin for its end). */
bool nb_secret_read_line(int fd, struct nb_secret *s, struct nb_error *err);
/** A random secret (the embedded agent and its client share it in memory). */
void nb_secret_random(struct nb_secret *s);
/** Client: HELLO, the agent's HELLO, AUTH both ways when a secret is in play. err is one line
 *  naming peer_name (version mismatch, wrong or missing secret, no answer). */
bool nb_auth_client(int fd, const struct nb_secret *s, int timeout_ms, const char *peer_name,
		    struct nb_auth *out, struct nb_error *err);
/** Agent: the same from its side, all of it by deadline_ms (nb_ctl_now_ms clock). */
enum nb_auth_verdict nb_auth_agent(int fd, const struct nb_secret *s, uint64_t deadline_ms,
				   struct nb_auth *out, struct nb_error *err);
/** The data key of run run_id of a session (both ends compute it; see engine.h params.key). */
void nb_auth_run_key(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
		     unsigned char out[NB_KEY_LEN]);
/** Seal (or open: the same operation) another agent's run key for run run_id of this session:
 *  a path between two agents hands the receiver's key to the sender this way (proto.h SETUP
 *  grant); only the two ends of this session can open it, and only for that run. */
void nb_auth_grant(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
		   const unsigned char in[NB_KEY_LEN], unsigned char out[NB_KEY_LEN]);

#endif
