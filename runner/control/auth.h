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
 * An agent with a secret says nothing about itself before the client's proof: its HELLO carries
 * no version (protocol 0, empty text). It compares versions once the client proved the secret
 * and answers a mismatch then with ERROR version naming both; an agent without a secret, which
 * anyone may use anyway, answers a mismatched HELLO with that ERROR at once and says its version
 * in its HELLO.
 *
 * The session key, from which each run's data key derives (nb_auth_run_key), is a keyed hash
 * of both nonces under another key derived from the master key, so neither end alone chooses
 * it and, with a secret, nobody else can compute it. It never crosses the wire. A finished
 * handshake seals the control connection under it (ctl.h): every later frame, both ways. No
 * cryptography is written here: everything is a libsodium call.
 */
#ifndef NB_AUTH_H
#define NB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"
#include "engine.h"
#include "nb_error.h"

#define NB_SECRET_MIN 16                 /* bytes a secret file must hold (trailing space aside) */
#define NB_SECRET_WEAK_BITS 48           /* a secret estimated below this is warned about */
#define NB_HANDSHAKE_FRAME_MAX 4096u     /* no handshake frame is longer */

/** A shared secret, as a master key. */
struct nb_secret {
	bool set;                            /* false: no secret (nothing is proven) */
	unsigned char key[NB_KEY_LEN];
	bool others_can_read;                /* the file's mode lets group or others read it */
	unsigned bits;                       /* a rough estimate of its strength (nb_secret_bits) */
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

/** Read a secret file; err says why not: missing, unreadable, too short, writable by group or
 *  others, or owned by someone but this user or root (anyone who can change the file can become
 *  the agent, or its client). */
bool nb_secret_load(const char *path, struct nb_secret *s, struct nb_error *err);
/** A rough estimate of a secret text's strength in bits: its length times the entropy of its own
 *  characters, a character that repeats or continues a run (aa, ab, 12) counting one bit. 16
 *  random base64 characters score 50 to 65, 44 of them (`head -c 32 /dev/urandom | base64`)
 *  about 200, `aaaaaaaaaaaaaaaa` 15 and `password12345678` 39; below NB_SECRET_WEAK_BITS nbrun
 *  warns (nonces and MACs cross in clear: a recorded handshake lets anyone try guesses
 *  offline). It warns rather than stretching a text secret with crypto_pwhash, which would
 *  cost every start of every runner and agent a second and 64 MiB and leave a random secret,
 *  the one the docs show how to make, no stronger. */
unsigned nb_secret_bits(const unsigned char *text, size_t n);
/** The secret of text, as a secret file holding it would give. */
bool nb_secret_from_text(const char *text, struct nb_secret *s, struct nb_error *err);
/** Read a secret from fd up to its first newline, one byte at a time (nothing after it is
 *  taken: `serve --secret-stdin` then watches the same stdin for its end). */
bool nb_secret_read_line(int fd, struct nb_secret *s, struct nb_error *err);
/** A random secret (the embedded agent and its client share it in memory). */
void nb_secret_random(struct nb_secret *s);
/** One end's proof of the secret (AUTH's MAC): crypto_auth over a label naming who and both
 *  HELLOs' nonces (the client's nc, the agent's na), under a crypto_kdf subkey of s. */
void nb_auth_proof(const struct nb_secret *s, enum nb_role who, const uint8_t *nc,
		   const uint8_t *na, uint8_t mac[NB_MAC_LEN]);
/** Client: HELLO, the agent's HELLO, AUTH both ways when a secret is in play; then c is sealed
 *  (ctl.h). err is one line naming peer_name (version mismatch, wrong or missing secret, no
 *  answer). */
bool nb_auth_client(struct nb_ctl *c, const struct nb_secret *s, int timeout_ms,
		    const char *peer_name, struct nb_auth *out, struct nb_error *err);
/** Agent: the same from its side, all of it by deadline_ms (nb_ctl_now_ms clock); c is sealed
 *  when it returns NB_AUTH_OK. */
enum nb_auth_verdict nb_auth_agent(struct nb_ctl *c, const struct nb_secret *s,
				   uint64_t deadline_ms, struct nb_auth *out, struct nb_error *err);
/** The data key of run run_id of a session (both ends compute it; see engine.h params.key). */
void nb_auth_run_key(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
		     unsigned char out[NB_KEY_LEN]);
/** Seal another agent's run key for run run_id of this session, bound to target (that agent's
 *  data address and port): a path between two agents hands the receiver's key to the sender
 *  this way (proto.h SETUP grant). crypto_aead_chacha20poly1305_ietf under a crypto_kdf subkey
 *  of the session key, the run id its nonce, the run id and target its additional data: only
 *  the two ends of this session can make or open one, and only for that run and that target. */
void nb_auth_grant_seal(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
			const struct nb_target *target, const unsigned char key[NB_KEY_LEN],
			unsigned char grant[NB_GRANT_LEN]);
/** Open a grant sealed by nb_auth_grant_seal: the run key into key, or false when the grant
 *  was not sealed by this session for this run and target (key is zeroed then). */
bool nb_auth_grant_open(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
			const struct nb_target *target, const unsigned char grant[NB_GRANT_LEN],
			unsigned char key[NB_KEY_LEN]);

#endif
