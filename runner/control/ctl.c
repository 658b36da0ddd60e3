/* nbrun — control connection I/O (see ctl.h). */
#include "ctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cidr.h"
#include "sock.h"

uint64_t nb_ctl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

static int left_ms(uint64_t deadline)
{
	uint64_t n = nb_ctl_now_ms();
	return n >= deadline ? 0 : (int)(deadline - n);
}

/* Wait for fd; 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	for (;;) {
		int n = poll(&p, 1, left_ms(deadline));
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* ---- sealing (see ctl.h) ---- */

#define SEAL_CONTEXT "nbctl v6" /* crypto_kdf context of a session key's frame keys: 8 bytes */
enum { KDF_TO_AGENT = 1, KDF_TO_CLIENT = 2 };

_Static_assert(NB_KEY_LEN == crypto_aead_chacha20poly1305_ietf_KEYBYTES, "frame key size");
_Static_assert(NB_CTL_TAG_LEN == crypto_aead_chacha20poly1305_ietf_ABYTES, "frame tag size");

void nb_ctl_init(struct nb_ctl *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
}

void nb_ctl_seal(struct nb_ctl *c, const unsigned char session_key[NB_KEY_LEN], enum nb_role role)
{
	bool client = role == NB_ROLE_CLIENT;
	crypto_kdf_derive_from_key(c->tx_key, NB_KEY_LEN, client ? KDF_TO_AGENT : KDF_TO_CLIENT,
				   SEAL_CONTEXT, session_key);
	crypto_kdf_derive_from_key(c->rx_key, NB_KEY_LEN, client ? KDF_TO_CLIENT : KDF_TO_AGENT,
				   SEAL_CONTEXT, session_key);
	c->tx_seq = c->rx_seq = 0;
	c->sealed = true;
}

void nb_ctl_forget(struct nb_ctl *c)
{
	sodium_memzero(c->tx_key, sizeof(c->tx_key));
	sodium_memzero(c->rx_key, sizeof(c->rx_key));
	c->sealed = false;
}

/* The nonce of a direction's seq-th frame: each key seals each sequence number once. */
static void frame_nonce(uint64_t seq, unsigned char n[crypto_aead_chacha20poly1305_ietf_NPUBBYTES])
{
	memset(n, 0, crypto_aead_chacha20poly1305_ietf_NPUBBYTES);
	for (int i = 0; i < 8; i++)
		n[crypto_aead_chacha20poly1305_ietf_NPUBBYTES - 1 - i] = (unsigned char)(seq >> (8 * i));
}

static void put_len(uint8_t hdr[4], size_t n)
{
	for (int i = 0; i < 4; i++)
		hdr[i] = (uint8_t)(n >> (24 - 8 * i));
}

/* frame (length prefix and body, as encoded) sealed into out: a new prefix, the sealed body. */
static bool seal_frame(struct nb_ctl *c, const uint8_t *frame, size_t len, struct nb_buf *out,
		       struct nb_error *err)
{
	if (len < 4)
		return nb_error_set(err, "a frame of %zu bytes has no length prefix", len);
	size_t body = len - 4, sealed = body + NB_CTL_TAG_LEN;
	out->p = malloc(4 + sealed);
	if (!out->p)
		return nb_error_set(err, "out of memory sealing a frame");
	out->len = out->cap = 4 + sealed;
	put_len(out->p, sealed);
	unsigned char nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	frame_nonce(c->tx_seq++, nonce);
	unsigned long long clen = 0;
	crypto_aead_chacha20poly1305_ietf_encrypt(out->p + 4, &clen, frame + 4, body, out->p, 4,
						  NULL, nonce, c->tx_key);
	return true;
}

/* ---- frames ---- */

static bool send_bytes(int fd, const uint8_t *p, size_t len, int timeout_ms, struct nb_error *err)
{
	uint64_t deadline = nb_ctl_now_ms() + (uint64_t)timeout_ms;
	size_t off = 0;
	while (off < len) {
		ssize_t n = send(fd, p + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(fd, POLLOUT, deadline) <= 0)
				return nb_error_set(err, "control connection: send timed out");
		} else {
			return nb_error_errno(err, errno, "control connection: send");
		}
	}
	return true;
}

bool nb_ctl_send_frame(struct nb_ctl *c, const uint8_t *frame, size_t len, int timeout_ms,
		       struct nb_error *err)
{
	if (!c->sealed)
		return send_bytes(c->fd, frame, len, timeout_ms, err);
	struct nb_buf sealed = { 0 };
	bool ok = seal_frame(c, frame, len, &sealed, err) &&
		  send_bytes(c->fd, sealed.p, sealed.len, timeout_ms, err);
	nb_buf_free(&sealed);
	return ok;
}

bool nb_ctl_send(struct nb_ctl *c, const struct nb_msg *m, int timeout_ms, struct nb_error *err)
{
	struct nb_buf b = { 0 };
	bool ok = nb_msg_encode(m, &b, err) && nb_ctl_send_frame(c, b.p, b.len, timeout_ms, err);
	nb_buf_free(&b);
	return ok;
}

/* Read exactly n bytes by the deadline: 1 ok, 0 timeout, -1 closed/error. */
static int read_full(int fd, uint8_t *dst, size_t n, uint64_t deadline, struct nb_error *err)
{
	size_t off = 0;
	while (off < n) {
		int w = wait_fd(fd, POLLIN, deadline);
		if (w <= 0)
			return w == 0 ? 0 : (nb_error_errno(err, errno, "control connection"), -1);
		ssize_t r = recv(fd, dst + off, n - off, MSG_DONTWAIT);
		if (r > 0)
			off += (size_t)r;
		else if (r == 0)
			return nb_error_set(err, "control connection closed by the peer"), -1;
		else if (errno != EAGAIN && errno != EINTR)
			return nb_error_errno(err, errno, "control connection"), -1;
	}
	return 1;
}

/* The body length a frame's prefix promises, checked: sealed, a body of 2 .. max_len bytes and
 * its tag. */
static bool frame_len(const struct nb_ctl *c, const uint8_t hdr[4], uint32_t max_len, uint32_t *len,
		      struct nb_error *err)
{
	uint32_t n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	uint32_t extra = c->sealed ? NB_CTL_TAG_LEN : 0;
	if (n < 2 + extra || n - extra > NB_FRAME_MAX)
		return nb_error_set(err, "bad frame: length %u out of range %u..%u", n, 2 + extra,
				    NB_FRAME_MAX + extra);
	if (n - extra > max_len)
		return nb_error_set(err, "bad frame: length %u above %u here", n - extra, max_len);
	*len = n;
	return true;
}

/* A sealed body opened into its plain body (len - NB_CTL_TAG_LEN bytes at plain); false when it
 * does not open: the connection was altered, and is marked so. */
static bool open_frame(struct nb_ctl *c, const uint8_t hdr[4], const uint8_t *body, uint32_t len,
		       uint8_t *plain, struct nb_error *err)
{
	unsigned char nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	unsigned long long plen = 0;
	frame_nonce(c->rx_seq, nonce);
	if (crypto_aead_chacha20poly1305_ietf_decrypt(plain, &plen, NULL, body, len, hdr, 4, nonce,
						      c->rx_key) != 0) {
		c->altered = true;
		return nb_error_set(err, "%s", NB_CTL_ALTERED);
	}
	c->rx_seq++;
	return true;
}

/* Wait for a frame until wait_deadline; once it has begun, it must be whole by the earlier of
 * now + NB_CTL_FRAME_MS and frame_cap, and at most max_len bytes long (before sealing). */
static int recv_frame(struct nb_ctl *c, struct nb_msg *m, uint64_t wait_deadline, uint64_t frame_cap,
		      uint32_t max_len, struct nb_error *err)
{
	uint8_t hdr[4];
	if (c->altered)
		return nb_error_set(err, "%s", NB_CTL_ALTERED), -1;
	int w = wait_fd(c->fd, POLLIN, wait_deadline);
	if (w == 0 || (w < 0 && errno == EINTR))
		return 0;
	uint64_t frame_deadline = nb_ctl_now_ms() + NB_CTL_FRAME_MS;
	if (frame_deadline > frame_cap)
		frame_deadline = frame_cap;
	int r = read_full(c->fd, hdr, 4, frame_deadline, err);
	if (r <= 0)
		return r == 0 ? (nb_error_set(err, "control connection: partial frame"), -1) : -1;
	uint32_t len = 0;
	if (!frame_len(c, hdr, max_len, &len, err))
		return -1;
	uint8_t *body = malloc(len), *plain = c->sealed ? malloc(len - NB_CTL_TAG_LEN) : body;
	bool ok = body && plain;
	r = ok ? read_full(c->fd, body, len, frame_deadline, err) : -1;
	if (!ok)
		nb_error_set(err, "out of memory");
	else if (r == 0)
		nb_error_set(err, "control connection: partial frame");
	ok = r > 0 && (!c->sealed || open_frame(c, hdr, body, len, plain, err)) &&
	     nb_msg_decode(plain, c->sealed ? len - NB_CTL_TAG_LEN : len, m, err);
	if (plain != body)
		free(plain);
	free(body);
	return ok ? 1 : -1;
}

int nb_ctl_recv(struct nb_ctl *c, struct nb_msg *m, int timeout_ms, struct nb_error *err)
{
	uint64_t wait = nb_ctl_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	return recv_frame(c, m, wait, UINT64_MAX, NB_FRAME_MAX, err);
}

int nb_ctl_recv_by(struct nb_ctl *c, struct nb_msg *m, uint64_t deadline_ms, uint32_t max_len,
		   struct nb_error *err)
{
	return recv_frame(c, m, deadline_ms, deadline_ms, max_len, err);
}

void nb_ctl_send_error(struct nb_ctl *c, enum nb_err_code code, const char *text)
{
	struct nb_msg m = { .type = NB_MSG_ERROR };
	m.u.error.code = (uint16_t)code;
	snprintf(m.u.error.text, sizeof(m.u.error.text), "%s", text);
	nb_ctl_send(c, &m, 2000, NULL);
}

static bool split_host_port(const char *s, char *host, size_t hn, char *port, size_t pn)
{
	const char *colon;
	port[0] = '\0';
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (size_t)(end - s - 1) >= hn)
			return false;
		snprintf(host, hn, "%.*s", (int)(end - s - 1), s + 1);
		if (end[1] == ':')
			snprintf(port, pn, "%s", end + 2);
		else if (end[1])
			return false;
		return true;
	}
	colon = strchr(s, ':');
	if (colon && strchr(colon + 1, ':')) /* bare IPv6 without port */
		colon = NULL;
	if (colon) {
		snprintf(host, hn, "%.*s", (int)(colon - s), s);
		snprintf(port, pn, "%s", colon + 1);
	} else {
		snprintf(host, hn, "%s", s);
	}
	return host[0] != '\0';
}

bool nb_ctl_parse_peer(const char *host_port, uint16_t default_port, char *host, size_t hn,
		       uint16_t *port, struct nb_error *err)
{
	char ps[16];
	if (!split_host_port(host_port, host, hn, ps, sizeof(ps)))
		return nb_error_set(err, "peer '%s': expected HOST, HOST:PORT or [V6ADDR]:PORT", host_port);
	char *end;
	unsigned long pt = ps[0] ? strtoul(ps, &end, 10) : default_port;
	if (ps[0] && (*end || pt == 0 || pt > 65535))
		return nb_error_set(err, "peer '%s': bad port '%s'", host_port, ps);
	*port = (uint16_t)pt;
	return true;
}

bool nb_ctl_resolve(const char *host_port, uint16_t default_port, struct sockaddr_storage *addr,
		    socklen_t *len, struct nb_error *err)
{
	char host[256];
	uint16_t pt;
	if (!nb_ctl_parse_peer(host_port, default_port, host, sizeof(host), &pt, err))
		return false;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char ps[8];
	snprintf(ps, sizeof(ps), "%u", pt);
	int rc = getaddrinfo(host, ps, &hints, &res);
	if (rc != 0)
		return nb_error_set(err, "peer '%s': %s", host, gai_strerror(rc));
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return true;
}

int nb_ctl_connect(const struct sockaddr_storage *addr, socklen_t len, int timeout_ms,
		   struct nb_error *err)
{
	char name[80];
	nb_ctl_addr_str(addr, name, sizeof(name));
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "socket"), -1;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)addr, len) < 0 && errno != EINPROGRESS) {
		nb_error_errno(err, errno, "cannot reach agent at %s", name);
		close(fd);
		return -1;
	}
	int e = 0;
	socklen_t el = sizeof(e);
	int w = wait_fd(fd, POLLOUT, nb_ctl_now_ms() + (uint64_t)timeout_ms);
	if (w <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
		nb_error_errno(err, w == 0 ? ETIMEDOUT : e, "cannot reach agent at %s (is `nbrun serve` running?)",
			       name);
		close(fd);
		return -1;
	}
	return fd;
}

int nb_ctl_listen(struct sockaddr_storage *addr, socklen_t len, struct nb_error *err)
{
	char name[80];
	nb_ctl_addr_str(addr, name, sizeof(name));
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "socket"), -1;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)addr, len) < 0 || listen(fd, 128) < 0) {
		nb_error_errno(err, errno, "cannot listen on %s", name);
		close(fd);
		return -1;
	}
	socklen_t l = len;
	getsockname(fd, (struct sockaddr *)addr, &l);
	return fd;
}

void nb_ctl_addr_str(const struct sockaddr_storage *addr, char *out, size_t n)
{
	nb_sock_addr_str(addr, out, n);
}

bool nb_ctl_target_put(const struct sockaddr_storage *addr, uint16_t port, struct nb_target *t)
{
	memset(t, 0, sizeof(*t));
	t->port = port;
	if (addr->ss_family == AF_INET) {
		t->family = 4;
		memcpy(t->addr, &((const struct sockaddr_in *)addr)->sin_addr, 4);
	} else if (addr->ss_family == AF_INET6) {
		t->family = 6;
		memcpy(t->addr, &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
	}
	return t->family != 0;
}

bool nb_ctl_target_get(const struct nb_target *t, bool local_ok, struct sockaddr_storage *addr,
		       socklen_t *len, struct nb_error *err)
{
	memset(addr, 0, sizeof(*addr));
	if ((t->family != 4 && t->family != 6) || !t->port)
		return nb_error_set(err, "target is no single host's address");
	enum nb_addr_kind k = nb_cidr_kind(t->family == 4 ? AF_INET : AF_INET6, t->addr);
	bool local = k == NB_ADDR_LOOPBACK || k == NB_ADDR_LINK_LOCAL;
	if (k != NB_ADDR_HOST && !(local && local_ok))
		return nb_error_set(err, "target is %s: an agent sends %s", nb_cidr_kind_name(k),
				    local ? "there only for a runner on its own loopback"
					  : "to one host at a time");
	if (t->family == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)addr;
		a->sin_family = AF_INET;
		a->sin_port = htons(t->port);
		memcpy(&a->sin_addr, t->addr, 4);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)addr;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(t->port);
		memcpy(&a->sin6_addr, t->addr, 16);
		*len = sizeof(*a);
	}
	return true;
}
