/* nbrun — the control handshake (see auth.h). */
#include "auth.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "nb_config.h"
#include "proto.h"
#include "text.h"

#define SECRET_FILE_MAX 4096
#define LABEL_LEN 16
#define KDF_CONTEXT "nbrun v3"    /* crypto_kdf context of the master key's subkeys: 8 bytes */
#define RUN_CONTEXT "nbrunrun"    /* ... and of a session key's run keys */
#define GRANT_CONTEXT "nbgrant2"  /* ... and of the key that seals a grant (nb_auth_grant_seal) */

enum { KDF_AUTH = 1, KDF_SESSION = 2 };

static const unsigned char no_secret[NB_KEY_LEN];

unsigned nb_secret_bits(const unsigned char *text, size_t n)
{
	unsigned count[256] = { 0 };
	for (size_t i = 0; i < n; i++)
		count[text[i]]++;
	double h = 0, bits = 0;
	for (int c = 0; c < 256; c++)
		if (count[c])
			h -= (double)count[c] / (double)n * log2((double)count[c] / (double)n);
	for (size_t i = 0; i < n; i++)
		bits += i && abs((int)text[i] - (int)text[i - 1]) <= 1 ? 1.0 : h;
	return (unsigned)bits;
}

/* The master key of a secret's text (trailing white space aside); err when too short or long. */
static bool secret_of(const unsigned char *buf, ssize_t n, const char *what, struct nb_secret *s,
		      struct nb_error *err)
{
	while (n > 0 && isspace(buf[n - 1]))
		n--;
	bool ok = n >= NB_SECRET_MIN && n <= SECRET_FILE_MAX;
	if (ok) {
		crypto_generichash(s->key, NB_KEY_LEN, buf, (size_t)n, NULL, 0);
		s->bits = nb_secret_bits(buf, (size_t)n);
	}
	if (!ok)
		return nb_error_set(err, "%s: %zd bytes (expected %d to %d, e.g. from "
				    "`head -c 32 /dev/urandom | base64`)", what, n, NB_SECRET_MIN,
				    SECRET_FILE_MAX);
	s->set = true;
	return true;
}

/* Whether only this user (or root) can change the file: anyone else who can could put their own
 * secret in it and become the agent, or its client. */
static bool safe_file(const char *path, const struct stat *st, struct nb_error *err)
{
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return nb_error_set(err, "secret file %s can be changed by %s: refusing it (chmod 600 %s)",
				    path, st->st_mode & S_IWOTH ? "other users" : "its group", path);
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return nb_error_set(err, "secret file %s belongs to uid %u, not to this user (uid %u) or "
				    "root: refusing it", path, (unsigned)st->st_uid, (unsigned)geteuid());
	return true;
}

bool nb_secret_load(const char *path, struct nb_secret *s, struct nb_error *err)
{
	memset(s, 0, sizeof(*s));
	if (sodium_init() < 0)
		return nb_error_set(err, "libsodium failed to initialise");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nb_error_errno(err, errno, "secret file %s", path);
	unsigned char buf[SECRET_FILE_MAX + 1];
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && safe_file(path, &st, err) ? read(fd, buf, sizeof(buf)) : -2;
	int e = errno;
	close(fd);
	if (n == -2)
		return false;
	if (n < 0)
		return nb_error_errno(err, e, "secret file %s", path);
	char what[600];
	snprintf(what, sizeof(what), "secret file %s", path);
	bool ok = secret_of(buf, n, what, s, err);
	sodium_memzero(buf, sizeof(buf));
	s->others_can_read = ok && (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
	return ok;
}

bool nb_secret_from_text(const char *text, struct nb_secret *s, struct nb_error *err)
{
	memset(s, 0, sizeof(*s));
	if (sodium_init() < 0)
		return nb_error_set(err, "libsodium failed to initialise");
	size_t n = strlen(text);
	if (n > SECRET_FILE_MAX)
		return nb_error_set(err, "secret: %zu bytes (expected at most %d)", n, SECRET_FILE_MAX);
	return secret_of((const unsigned char *)text, (ssize_t)n, "secret", s, err);
}

bool nb_secret_read_line(int fd, struct nb_secret *s, struct nb_error *err)
{
	unsigned char buf[SECRET_FILE_MAX + 1];
	ssize_t n = 0, r = 1;
	memset(s, 0, sizeof(*s));
	if (sodium_init() < 0)
		return nb_error_set(err, "libsodium failed to initialise");
	while (n < (ssize_t)sizeof(buf) && (r = read(fd, buf + n, 1)) == 1 && buf[n] != '\n')
		n++;
	bool ok = r >= 0 || nb_error_errno(err, errno, "secret on standard input");
	ok = ok && secret_of(buf, n, "secret on standard input", s, err);
	sodium_memzero(buf, sizeof(buf));
	return ok;
}

void nb_secret_random(struct nb_secret *s)
{
	memset(s, 0, sizeof(*s));
	if (sodium_init() >= 0) {
		randombytes_buf(s->key, sizeof(s->key));
		s->set = true;
	}
}

static void subkey(const struct nb_secret *s, uint64_t id, unsigned char out[NB_KEY_LEN])
{
	crypto_kdf_derive_from_key(out, NB_KEY_LEN, id, KDF_CONTEXT, s && s->set ? s->key : no_secret);
}

void nb_auth_proof(const struct nb_secret *s, enum nb_role who, const uint8_t *nc,
		   const uint8_t *na, uint8_t mac[NB_MAC_LEN])
{
	unsigned char msg[LABEL_LEN + 2 * NB_NONCE_LEN] = { 0 }, k[NB_KEY_LEN];
	const char *label = who == NB_ROLE_CLIENT ? "nbrun v3 client" : "nbrun v3 agent";
	memcpy(msg, label, strlen(label));
	memcpy(msg + LABEL_LEN, nc, NB_NONCE_LEN);
	memcpy(msg + LABEL_LEN + NB_NONCE_LEN, na, NB_NONCE_LEN);
	subkey(s, KDF_AUTH, k);
	crypto_auth(mac, msg, sizeof(msg), k);
	sodium_memzero(k, sizeof(k));
}

static bool proof_ok(const struct nb_secret *s, enum nb_role who, const uint8_t *nc,
		     const uint8_t *na, const uint8_t mac[NB_MAC_LEN])
{
	uint8_t want[NB_MAC_LEN];
	nb_auth_proof(s, who, nc, na, want);
	return sodium_memcmp(want, mac, NB_MAC_LEN) == 0;
}

static void session_key(const struct nb_secret *s, const uint8_t *nc, const uint8_t *na,
			unsigned char out[NB_KEY_LEN])
{
	unsigned char k[NB_KEY_LEN], in[2 * NB_NONCE_LEN];
	memcpy(in, nc, NB_NONCE_LEN);
	memcpy(in + NB_NONCE_LEN, na, NB_NONCE_LEN);
	subkey(s, KDF_SESSION, k);
	crypto_generichash(out, NB_KEY_LEN, in, sizeof(in), k, sizeof(k));
	sodium_memzero(k, sizeof(k));
}

void nb_auth_run_key(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
		     unsigned char out[NB_KEY_LEN])
{
	crypto_kdf_derive_from_key(out, NB_KEY_LEN, run_id, RUN_CONTEXT, session_key);
}

_Static_assert(NB_GRANT_LEN == NB_KEY_LEN + crypto_aead_chacha20poly1305_ietf_ABYTES, "grant size");

/* What a grant is bound to (its additional data): the run and the target, as on the wire. */
static size_t grant_ad(uint32_t run_id, const struct nb_target *t, unsigned char ad[32])
{
	size_t n = 0;
	memcpy(ad, "nbgrant", 7);
	n = 7;
	for (int i = 3; i >= 0; i--)
		ad[n++] = (unsigned char)(run_id >> (8 * i));
	ad[n++] = t->family;
	memcpy(ad + n, t->addr, sizeof(t->addr));
	n += sizeof(t->addr);
	ad[n++] = (unsigned char)(t->port >> 8);
	ad[n++] = (unsigned char)t->port;
	return n;
}

/* The grant key of a session and the nonce of a run (run ids of a session never repeat). */
static void grant_key(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
		      unsigned char k[NB_KEY_LEN],
		      unsigned char nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES])
{
	crypto_kdf_derive_from_key(k, NB_KEY_LEN, 1, GRANT_CONTEXT, session_key);
	memset(nonce, 0, crypto_aead_chacha20poly1305_ietf_NPUBBYTES);
	for (int i = 0; i < 4; i++)
		nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES - 1 - i] = (unsigned char)(run_id >> (8 * i));
}

void nb_auth_grant_seal(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
			const struct nb_target *target, const unsigned char key[NB_KEY_LEN],
			unsigned char grant[NB_GRANT_LEN])
{
	unsigned char k[NB_KEY_LEN], nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES], ad[32];
	unsigned long long n = 0;
	grant_key(session_key, run_id, k, nonce);
	crypto_aead_chacha20poly1305_ietf_encrypt(grant, &n, key, NB_KEY_LEN, ad,
						  grant_ad(run_id, target, ad), NULL, nonce, k);
	sodium_memzero(k, sizeof(k));
}

bool nb_auth_grant_open(const unsigned char session_key[NB_KEY_LEN], uint32_t run_id,
			const struct nb_target *target, const unsigned char grant[NB_GRANT_LEN],
			unsigned char key[NB_KEY_LEN])
{
	unsigned char k[NB_KEY_LEN], nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES], ad[32];
	unsigned long long n = 0;
	grant_key(session_key, run_id, k, nonce);
	bool ok = crypto_aead_chacha20poly1305_ietf_decrypt(key, &n, NULL, grant, NB_GRANT_LEN, ad,
							     grant_ad(run_id, target, ad), nonce, k) == 0;
	sodium_memzero(k, sizeof(k));
	if (!ok)
		sodium_memzero(key, NB_KEY_LEN);
	return ok;
}

/* Our HELLO. An agent with a secret tells nothing of its version before the client's proof. */
static void hello_init(struct nb_msg *m, enum nb_role role, const struct nb_secret *s)
{
	bool quiet = role == NB_ROLE_AGENT && s && s->set;
	*m = (struct nb_msg){ .type = NB_MSG_HELLO };
	m->u.hello.proto_version = quiet ? 0 : NB_PROTO_VERSION;
	snprintf(m->u.hello.version, sizeof(m->u.hello.version), "%s", quiet ? "" : NB_VERSION);
	m->u.hello.role = (uint8_t)role;
	m->u.hello.auth = s && s->set ? NB_AUTH_MAC : NB_AUTH_NONE;
	randombytes_buf(m->u.hello.nonce, NB_NONCE_LEN);
}

static bool send_auth(struct nb_ctl *c, const struct nb_secret *s, enum nb_role who,
		      const uint8_t *nc, const uint8_t *na, struct nb_error *err)
{
	struct nb_msg m = { .type = NB_MSG_AUTH };
	nb_auth_proof(s, who, nc, na, m.u.auth.mac);
	return nb_ctl_send(c, &m, 2000, err);
}

/* ---- agent ---- */

/* Tell the client why (the text is also the agent's log line) and refuse. */
static enum nb_auth_verdict refuse(struct nb_ctl *c, enum nb_err_code code, const char *text,
				   struct nb_error *err)
{
	nb_ctl_send_error(c, code, text);
	nb_error_set(err, "%s", text);
	return NB_AUTH_REFUSED;
}

/* Receive the next handshake frame by the deadline; a malformed one is answered with why. */
static int recv_step(struct nb_ctl *c, struct nb_msg *m, uint64_t deadline_ms, struct nb_error *err)
{
	int r = nb_ctl_recv_by(c, m, deadline_ms, NB_HANDSHAKE_FRAME_MAX, err);
	if (r < 0 && strstr(err->msg, "bad frame"))
		nb_ctl_send_error(c, NB_ERR_PROTOCOL, err->msg);
	if (r == 0)
		nb_error_set(err, "no handshake within its deadline");
	return r;
}

/* The client's HELLO, checked: NB_AUTH_OK with it in *m (nothing to free). Its version is
 * compared only after its proof (versions_differ). */
static enum nb_auth_verdict agent_hello(struct nb_ctl *c, uint64_t deadline_ms, struct nb_msg *m,
					struct nb_error *err)
{
	if (recv_step(c, m, deadline_ms, err) != 1)
		return NB_AUTH_GONE;
	if (m->type != NB_MSG_HELLO || m->u.hello.role != NB_ROLE_CLIENT) {
		nb_msg_free(m);
		return refuse(c, NB_ERR_PROTOCOL, "expected the client's HELLO", err);
	}
	return NB_AUTH_OK;
}

/* The client speaks another protocol: say so, naming both versions (the client proved the
 * secret, or this agent has none). */
static enum nb_auth_verdict versions_differ(struct nb_ctl *c, const struct nb_msg_hello *h,
					    struct nb_error *err)
{
	char text[200], version[sizeof(h->version)];
	snprintf(text, sizeof(text),
		 "protocol version mismatch: agent nbrun %s speaks v%d, client nbrun %s speaks v%u",
		 NB_VERSION, NB_PROTO_VERSION, nb_text_sanitize(version, sizeof(version), h->version),
		 h->proto_version);
	return refuse(c, NB_ERR_VERSION, text, err);
}

/* The client's AUTH, checked against the secret; then its version; then the agent's own proof. */
static enum nb_auth_verdict agent_prove(struct nb_ctl *c, const struct nb_secret *s,
					const struct nb_msg_hello *theirs, const uint8_t *na,
					uint64_t deadline_ms, struct nb_error *err)
{
	struct nb_msg m;
	const uint8_t *nc = theirs->nonce;
	if (recv_step(c, &m, deadline_ms, err) != 1)
		return NB_AUTH_GONE;
	bool is_auth = m.type == NB_MSG_AUTH;
	bool ok = is_auth && proof_ok(s, NB_ROLE_CLIENT, nc, na, m.u.auth.mac);
	nb_msg_free(&m);
	if (!is_auth)
		return refuse(c, NB_ERR_PROTOCOL, "expected AUTH", err);
	if (!ok)
		return refuse(c, NB_ERR_AUTH, "authentication failed: the client's secret is not this "
			      "agent's (--secret-file)", err);
	if (theirs->proto_version != NB_PROTO_VERSION)
		return versions_differ(c, theirs, err);
	return send_auth(c, s, NB_ROLE_AGENT, nc, na, err) ? NB_AUTH_OK : NB_AUTH_GONE;
}

enum nb_auth_verdict nb_auth_agent(struct nb_ctl *c, const struct nb_secret *s,
				   uint64_t deadline_ms, struct nb_auth *out, struct nb_error *err)
{
	struct nb_msg theirs, mine;
	if (sodium_init() < 0)
		return nb_error_set(err, "libsodium failed to initialise"), NB_AUTH_GONE;
	enum nb_auth_verdict v = agent_hello(c, deadline_ms, &theirs, err);
	if (v != NB_AUTH_OK)
		return v;
	nb_text_sanitize(out->peer_version, sizeof(out->peer_version), theirs.u.hello.version);
	bool want = s && s->set, they_want = theirs.u.hello.auth == NB_AUTH_MAC;
	if (!want && theirs.u.hello.proto_version != NB_PROTO_VERSION) /* an open agent: say it now */
		return versions_differ(c, &theirs.u.hello, err);
	hello_init(&mine, NB_ROLE_AGENT, s);
	if (!nb_ctl_send(c, &mine, 2000, err))
		return NB_AUTH_GONE;
	const uint8_t *nc = theirs.u.hello.nonce, *na = mine.u.hello.nonce;
	if (want && !they_want)
		return refuse(c, NB_ERR_AUTH, "this agent requires a shared secret: give the client "
			      "--secret-file FILE (or NBRUN_SECRET_FILE)", err);
	if (!want && they_want) /* the client requires a proof this agent cannot give */
		return nb_error_set(err, "the client requires a shared secret; this agent has none "
				    "(--secret-file)"), NB_AUTH_REFUSED;
	if (want && (v = agent_prove(c, s, &theirs.u.hello, na, deadline_ms, err)) != NB_AUTH_OK)
		return v;
	session_key(s, nc, na, out->session_key);
	nb_ctl_seal(c, out->session_key, NB_ROLE_AGENT);
	return NB_AUTH_OK;
}

/* ---- client ---- */

/* err's message, led by the peer's name. */
static bool peer_error(struct nb_error *err, const char *peer)
{
	return nb_error_set(err, "peer %s: %s", peer, err->msg);
}

/* What came back to HELLO is no nbrun frame (an HTTP server answers "HTTP", read as a length). */
static bool not_nbrun(const struct nb_ctl *c, const char *peer, struct nb_error *err)
{
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	char where[80];
	if (getpeername(c->fd, (struct sockaddr *)&addr, &len) == 0 &&
	    (addr.ss_family == AF_INET || addr.ss_family == AF_INET6)) /* not over ssh's pipes */
		nb_ctl_addr_str(&addr, where, sizeof(where));
	else
		snprintf(where, sizeof(where), "%s", peer);
	return nb_error_set(err, "the peer at %s does not speak the nbrun protocol", where);
}

/* The agent's answer to our HELLO: its HELLO, checked. Protocol 0 is an agent with a secret
 * that says its version only after our proof (and names a mismatch then, as ERROR version). */
static bool client_hello(struct nb_ctl *c, uint64_t deadline_ms, const char *peer,
			 struct nb_msg *m, struct nb_error *err)
{
	int r = nb_ctl_recv_by(c, m, deadline_ms, NB_HANDSHAKE_FRAME_MAX, err);
	char text[NB_TEXT_MAX + 1];
	if (r == 0)
		return nb_error_set(err, "peer %s did not answer the handshake in time", peer);
	if (r < 0 && strncmp(err->msg, "bad frame", 9) == 0)
		return not_nbrun(c, peer, err);
	if (r < 0 && (strstr(err->msg, "closed by the peer") || strstr(err->msg, "reset by peer")))
		return nb_error_set(err, "peer %s closed the connection before answering the handshake "
				    "(an agent saturated by other connections: try again; or one whose "
				    "--allow does not take this host)", peer);
	if (r < 0)
		return peer_error(err, peer);
	if (m->type == NB_MSG_ERROR)
		return nb_error_set(err, "peer %s: %s", peer,
				    nb_text_sanitize(text, sizeof(text), m->u.error.text));
	if (m->type != NB_MSG_HELLO || m->u.hello.role != NB_ROLE_AGENT) {
		nb_msg_free(m);
		return nb_error_set(err, "peer %s is no nbrun agent (it answered %s to HELLO)", peer,
				    nb_msg_name(m->type));
	}
	bool later = m->u.hello.proto_version == 0 && m->u.hello.auth == NB_AUTH_MAC;
	if (m->u.hello.proto_version != NB_PROTO_VERSION && !later)
		return nb_error_set(err, "peer %s: protocol version mismatch (agent nbrun %s speaks v%u, "
				    "we speak v%d)", peer, nb_text_sanitize(text, sizeof(text),
				    m->u.hello.version), m->u.hello.proto_version, NB_PROTO_VERSION);
	return true;
}

/* Our proof, then the agent's: it must know the secret too. */
static bool client_prove(struct nb_ctl *c, const struct nb_secret *s, const uint8_t *nc,
			 const uint8_t *na, uint64_t deadline_ms, const char *peer, struct nb_error *err)
{
	struct nb_msg m;
	char text[NB_TEXT_MAX + 1];
	if (!send_auth(c, s, NB_ROLE_CLIENT, nc, na, err))
		return peer_error(err, peer);
	int r = nb_ctl_recv_by(c, &m, deadline_ms, NB_HANDSHAKE_FRAME_MAX, err);
	if (r == 0)
		return nb_error_set(err, "peer %s did not finish the handshake in time", peer);
	if (r < 0)
		return peer_error(err, peer);
	if (m.type == NB_MSG_ERROR)
		return nb_error_set(err, "peer %s: %s", peer,
				    nb_text_sanitize(text, sizeof(text), m.u.error.text));
	bool ok = m.type == NB_MSG_AUTH && proof_ok(s, NB_ROLE_AGENT, nc, na, m.u.auth.mac);
	nb_msg_free(&m);
	if (!ok)
		return nb_error_set(err, "peer %s failed to prove the shared secret: not the agent "
				    "meant, refusing it", peer);
	return true;
}

bool nb_auth_client(struct nb_ctl *c, const struct nb_secret *s, int timeout_ms,
		    const char *peer, struct nb_auth *out, struct nb_error *err)
{
	struct nb_msg mine, theirs;
	if (sodium_init() < 0)
		return nb_error_set(err, "libsodium failed to initialise");
	uint64_t deadline = nb_ctl_now_ms() + (uint64_t)timeout_ms;
	hello_init(&mine, NB_ROLE_CLIENT, s);
	if (!nb_ctl_send(c, &mine, timeout_ms, err))
		return peer_error(err, peer);
	if (!client_hello(c, deadline, peer, &theirs, err))
		return false;
	nb_text_sanitize(out->peer_version, sizeof(out->peer_version), theirs.u.hello.version);
	const uint8_t *nc = mine.u.hello.nonce, *na = theirs.u.hello.nonce;
	bool want = s && s->set, they_want = theirs.u.hello.auth == NB_AUTH_MAC;
	if (they_want && !want)
		return nb_error_set(err, "peer %s requires a shared secret: give --secret-file FILE (or "
				    "NBRUN_SECRET_FILE) with the agent's secret", peer);
	if (want && !they_want) {
		nb_ctl_send_error(c, NB_ERR_AUTH, "this client requires a shared secret; the agent has none");
		return nb_error_set(err, "peer %s has no shared secret (start it with --secret-file); "
				    "refusing to run unauthenticated", peer);
	}
	if (want && !client_prove(c, s, nc, na, deadline, peer, err))
		return false;
	session_key(s, nc, na, out->session_key);
	nb_ctl_seal(c, out->session_key, NB_ROLE_CLIENT);
	return true;
}
