/* nbrun — socket options, CPU pinning, and stop-aware blocking I/O for engines. */
#include "sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/errqueue.h>
#include <linux/sock_diag.h> /* SK_MEMINFO_DROPS */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif

static bool set_int(int fd, int level, int name, int v, const char *what, struct nb_error *err)
{
	if (setsockopt(fd, level, name, &v, sizeof(v)) < 0)
		return nb_error_errno(err, errno, "setsockopt %s=%d", what, v);
	return true;
}

bool nb_sock_apply(int fd, const struct nb_params *p, int family, struct nb_error *err)
{
	if (p->window) {
		if (!set_int(fd, SOL_SOCKET, SO_SNDBUF, (int)p->window, "SO_SNDBUF", err) ||
		    !set_int(fd, SOL_SOCKET, SO_RCVBUF, (int)p->window, "SO_RCVBUF", err))
			return false;
	}
	if (p->tos >= 0) {
		bool v6 = family == AF_INET6;
		if (!set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, p->tos,
			     v6 ? "IPV6_TCLASS" : "IP_TOS", err))
			return false;
	}
	if (p->proto != NB_PROTO_TCP)
		return true;
	if (p->nodelay && !set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err))
		return false;
	if (p->mss && !set_int(fd, IPPROTO_TCP, TCP_MAXSEG, (int)p->mss, "TCP_MAXSEG", err))
		return false;
	if (!p->congestion[0])
		return true;
	if (!nb_sock_cc_allowed(p->congestion, err))
		return false;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion, (socklen_t)strlen(p->congestion)) < 0)
		return nb_error_errno(err, errno, "congestion control '%s'", p->congestion);
	return true;
}

bool nb_sock_apply_wait(int fd, enum nb_wait wait, struct nb_error *err)
{
	if (wait == NB_WAIT_SPIN) {
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return nb_error_errno(err, errno, "O_NONBLOCK");
		return true;
	}
	if (wait == NB_WAIT_BUSY_POLL) {
		if (!set_int(fd, SOL_SOCKET, SO_BUSY_POLL, 50, "SO_BUSY_POLL", err))
			return false;
		/* Best effort: older kernels lack it, and it only matters with NAPI. */
		int one = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one));
	}
	return true;
}

bool nb_sock_pin_flow(const struct nb_params *p, uint32_t flow, struct nb_error *err)
{
	if (p->ncpus == 0)
		return true;
	cpu_set_t set;
	CPU_ZERO(&set);
	int cpu = p->cpus[flow % p->ncpus];
	CPU_SET(cpu, &set);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc != 0)
		return nb_error_errno(err, rc, "pin flow %u to CPU %d", flow, cpu);
	return true;
}

int nb_sock_wait(int fd, bool for_write, const struct nb_flow *f)
{
	struct pollfd pfd = { .fd = fd, .events = for_write ? POLLOUT : POLLIN };
	while (!nb_flow_stopping(f)) {
		int n = poll(&pfd, 1, 100);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* An error after the flow was told to quiesce is the end of the run, not a failure. */
static bool io_failed(struct nb_flow *f, int e, const char *what)
{
	if (!nb_flow_quiet(f))
		nb_error_errno(&f->err, e, "flow %u: %s", f->index, what);
	return false;
}

bool nb_sock_send_all(struct nb_flow *f, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = send(f->fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = nb_sock_wait(f->fd, true, f);
			if (w > 0)
				continue;
			return w == 0 ? false : io_failed(f, errno, "send");
		}
		return io_failed(f, n < 0 ? errno : EPIPE, "send");
	}
	return true;
}

bool nb_sock_recv_all(struct nb_flow *f, void *buf, size_t len)
{
	char *p = buf;
	while (len > 0) {
		ssize_t n = recv(f->fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return nb_flow_stopping(f) ? false : io_failed(f, ECONNRESET, "peer closed");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int w = nb_sock_wait(f->fd, false, f);
			if (w > 0)
				continue;
			return w == 0 ? false : io_failed(f, errno, "recv");
		}
		return io_failed(f, errno, "recv");
	}
	return true;
}

bool nb_sock_udp_send_errors(int fd, struct nb_error *err)
{
	struct sockaddr_storage me = { 0 };
	socklen_t len = sizeof(me);
	getsockname(fd, (struct sockaddr *)&me, &len);
	bool v6 = me.ss_family == AF_INET6;
	return set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_RECVERR : IP_RECVERR, 1,
		       "IP_RECVERR", err);
}

#define UDP_RCVBUF (4 << 20)

void nb_sock_udp_rcvbuf(int fd, const struct nb_params *p)
{
	int v = UDP_RCVBUF;
	if (p->window)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

bool nb_sock_prepare_udp(int fd, const struct nb_params *p, bool sends, struct nb_error *err)
{
	(void)err;
	if (!sends && p->proto == NB_PROTO_UDP)
		nb_sock_udp_rcvbuf(fd, p);
	return true;
}

/* SO_MEMINFO's word `which`; false when the kernel's answer does not reach it. */
static bool meminfo(int fd, int which, uint32_t *out)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) != 0 ||
	    len <= (socklen_t)(which * sizeof(uint32_t)))
		return false;
	*out = mem[which];
	return true;
}

bool nb_sock_rcv_drops(int fd, uint32_t *drops)
{
	return meminfo(fd, SK_MEMINFO_DROPS, drops);
}

uint64_t nb_sock_rmem_alloc(int fd)
{
	uint32_t v;
	return meminfo(fd, SK_MEMINFO_RMEM_ALLOC, &v) ? v : UINT64_MAX;
}

void nb_sock_drain_errqueue(int fd)
{
	char buf[256], ctl[512];
	for (int i = 0; i < 64; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
	}
}

/* An ICMP (v4 type 3, v6 type 1) destination unreachable in one error-queue message. */
static bool unreachable_in(struct msghdr *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		      (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
			continue;
		struct sock_extended_err e;
		memcpy(&e, CMSG_DATA(c), sizeof(e));
		if ((e.ee_origin == SO_EE_ORIGIN_ICMP && e.ee_type == 3) ||
		    (e.ee_origin == SO_EE_ORIGIN_ICMP6 && e.ee_type == 1))
			return true;
	}
	return false;
}

bool nb_sock_peer_unreachable(int fd)
{
	char buf[256], ctl[512];
	bool gone = false;
	for (int i = 0; i < 64; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		gone = gone || unreachable_in(&m);
	}
	return gone;
}

bool nb_sock_set_rcvtimeo(int fd, uint32_t ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0;
}

int nb_sock_family(const struct sockaddr_storage *ss)
{
	return ss->ss_family;
}

/* The host part of an address as bytes: IPv4 (or IPv4-mapped IPv6) as 4 bytes, else 16. */
static size_t host_bytes(const struct sockaddr_storage *ss, const unsigned char **out)
{
	if (ss->ss_family == AF_INET) {
		*out = (const unsigned char *)&((const struct sockaddr_in *)ss)->sin_addr;
		return 4;
	}
	if (ss->ss_family != AF_INET6)
		return 0;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	*out = a6->s6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a6)) {
		*out += 12;
		return 4;
	}
	return 16;
}

bool nb_sock_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const unsigned char *x = NULL, *y = NULL;
	size_t n = host_bytes(a, &x);
	return n > 0 && n == host_bytes(b, &y) && memcmp(x, y, n) == 0;
}

bool nb_sock_from_allowed(const struct sockaddr_storage *peer, const struct sockaddr_storage *from)
{
	return peer->ss_family == AF_UNSPEC || nb_sock_same_host(from, peer);
}

void nb_sock_addr_str(const struct sockaddr_storage *addr, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	const unsigned char *b = NULL;
	size_t len = host_bytes(addr, &b);
	uint16_t port = ntohs(addr->ss_family == AF_INET ? ((const struct sockaddr_in *)addr)->sin_port
							 : ((const struct sockaddr_in6 *)addr)->sin6_port);
	if (len)
		inet_ntop(len == 4 ? AF_INET : AF_INET6, b, host, sizeof(host));
	snprintf(out, n, len == 16 ? "[%s]:%u" : "%s:%u", host, port);
}

#define CC_ALLOWED "/proc/sys/net/ipv4/tcp_allowed_congestion_control"

bool nb_sock_cc_allowed(const char *name, struct nb_error *err)
{
	char list[512] = "", words[512];
	FILE *f = fopen(CC_ALLOWED, "r");
	if (!f)
		return nb_error_errno(err, errno, "congestion control '%s': cannot read %s", name, CC_ALLOWED);
	if (!fgets(list, sizeof(list), f))
		list[0] = '\0';
	fclose(f);
	list[strcspn(list, "\n")] = '\0';
	memcpy(words, list, sizeof(words));
	for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (strcmp(w, name) == 0)
			return true;
	return nb_error_set(err, "congestion control '%s' is not in net.ipv4.tcp_allowed_congestion_control "
			    "(%s)", name, list[0] ? list : "empty");
}
