/* nbrun — control connection I/O (see ctl.h). */
#include "ctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

bool nb_ctl_send(int fd, const struct nb_msg *m, int timeout_ms, struct nb_error *err)
{
	struct nb_buf b = { 0 };
	if (!nb_msg_encode(m, &b, err)) {
		nb_buf_free(&b);
		return false;
	}
	uint64_t deadline = nb_ctl_now_ms() + (uint64_t)timeout_ms;
	size_t off = 0;
	bool ok = true;
	while (ok && off < b.len) {
		ssize_t n = send(fd, b.p + off, b.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(fd, POLLOUT, deadline) <= 0)
				ok = nb_error_set(err, "control connection: send timed out");
		} else {
			ok = nb_error_errno(err, errno, "control connection: send");
		}
	}
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

/* Wait for a frame until wait_deadline; once it has begun, it must be whole by the earlier of
 * now + NB_CTL_FRAME_MS and frame_cap, and at most max_len bytes long. */
static int recv_frame(int fd, struct nb_msg *m, uint64_t wait_deadline, uint64_t frame_cap,
		      uint32_t max_len, struct nb_error *err)
{
	uint8_t hdr[4];
	int w = wait_fd(fd, POLLIN, wait_deadline);
	if (w == 0 || (w < 0 && errno == EINTR))
		return 0;
	uint64_t frame_deadline = nb_ctl_now_ms() + NB_CTL_FRAME_MS;
	if (frame_deadline > frame_cap)
		frame_deadline = frame_cap;
	int r = read_full(fd, hdr, 4, frame_deadline, err);
	if (r <= 0)
		return r == 0 ? (nb_error_set(err, "control connection: partial frame"), -1) : -1;
	uint32_t len;
	if (!nb_frame_len(hdr, &len, err))
		return -1;
	if (len > max_len)
		return nb_error_set(err, "bad frame: length %u above %u here", len, max_len), -1;
	uint8_t *body = malloc(len);
	if (!body)
		return nb_error_set(err, "out of memory"), -1;
	r = read_full(fd, body, len, frame_deadline, err);
	if (r == 0)
		nb_error_set(err, "control connection: partial frame");
	bool ok = r > 0 && nb_msg_decode(body, len, m, err);
	free(body);
	return ok ? 1 : -1;
}

int nb_ctl_recv(int fd, struct nb_msg *m, int timeout_ms, struct nb_error *err)
{
	uint64_t wait = nb_ctl_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	return recv_frame(fd, m, wait, UINT64_MAX, NB_FRAME_MAX, err);
}

int nb_ctl_recv_by(int fd, struct nb_msg *m, uint64_t deadline_ms, uint32_t max_len,
		   struct nb_error *err)
{
	return recv_frame(fd, m, deadline_ms, deadline_ms, max_len, err);
}

void nb_ctl_send_error(int fd, enum nb_err_code code, const char *text)
{
	struct nb_msg m = { .type = NB_MSG_ERROR };
	m.u.error.code = (uint16_t)code;
	snprintf(m.u.error.text, sizeof(m.u.error.text), "%s", text);
	nb_ctl_send(fd, &m, 2000, NULL);
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

/* An address no agent sends a stream to: nobody in particular, or everybody. */
static bool not_a_host(const struct nb_target *t)
{
	static const uint8_t zero[16];
	if (t->family == 4)
		return memcmp(t->addr, zero, 4) == 0 || t->addr[0] >= 224;
	return memcmp(t->addr, zero, 16) == 0 || t->addr[0] == 0xff;
}

bool nb_ctl_target_get(const struct nb_target *t, struct sockaddr_storage *addr, socklen_t *len,
		       struct nb_error *err)
{
	memset(addr, 0, sizeof(*addr));
	if ((t->family != 4 && t->family != 6) || !t->port || not_a_host(t))
		return nb_error_set(err, "target is no single host's address");
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
