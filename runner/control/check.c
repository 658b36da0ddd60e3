/* The preflight check (see check.h). */
#include "check.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "pps_xdp.h"
#include "sock.h"

#define AVAILABLE_CC "/proc/sys/net/ipv4/tcp_available_congestion_control"

static size_t line(char *text, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append one line to text; returns 1 (a problem counted). */
static size_t line(char *text, size_t len, const char *fmt, ...)
{
	size_t used = strlen(text);
	va_list ap;
	va_start(ap, fmt);
	if (used < len)
		vsnprintf(text + used, len - used, fmt, ap);
	va_end(ap);
	used = strlen(text);
	if (used + 1 < len)
		snprintf(text + used, len - used, "\n");
	return 1;
}

/* The algorithms the kernel lists as available, for the message. */
static void available_cc(char *out, size_t n)
{
	FILE *f = fopen(AVAILABLE_CC, "r");
	out[0] = '\0';
	if (f && fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Setting it on a socket is the real test of what the kernel has (as root it may load the
 * module on demand); a run also wants it in the allowed list (nb_sock_cc_allowed), so that
 * TCP_CONGESTION never loads a module for a client. */
static size_t check_cc(const struct nb_msg_check *need, char *text, size_t len)
{
	size_t n = 0;
	for (uint8_t i = 0; i < need->ncc; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
		const char *cc = need->cc[i];
		int rc = fd < 0 ? -1 : setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc));
		int e = errno;
		if (fd >= 0)
			close(fd);
		struct nb_error why = { { 0 } };
		if (rc == 0 && !nb_sock_cc_allowed(cc, &why)) /* root may set it; a run never does */
			n += line(text, len, "%s: add it there, or choose one listed", why.msg);
		if (rc == 0)
			continue;
		char avail[256];
		available_cc(avail, sizeof(avail));
		n += line(text, len, "congestion control '%s' is not available (%s; available: %s)", cc,
			  strerror(e), avail[0] ? avail : "unknown");
	}
	return n;
}

static size_t check_cpus(const struct nb_msg_check *need, char *text, size_t len)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	size_t n = 0;
	for (uint16_t i = 0; i < need->ncpus; i++)
		if (need->cpus[i] >= CPU_SETSIZE || !CPU_ISSET(need->cpus[i], &set))
			n += line(text, len, "CPU %u does not exist or is not one this process may use "
				  "(%d CPUs available)", need->cpus[i], CPU_COUNT(&set));
	return n;
}

static void set_port(struct sockaddr_storage *a, uint16_t port)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

/* Whether some port of lo..hi can be bound for this socket type right now. */
static bool free_port(const struct nb_check_limits *lim, int type)
{
	struct sockaddr_storage a = *lim->bind;
	for (uint32_t p = lim->data_lo; p <= lim->data_hi; p++) {
		int fd = socket(a.ss_family, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return false;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		set_port(&a, (uint16_t)p);
		int rc = bind(fd, (struct sockaddr *)&a, lim->bind_len);
		close(fd);
		if (rc == 0)
			return true;
	}
	return false;
}

static size_t check_limits(const struct nb_msg_check *need, const struct nb_check_limits *lim,
			   char *text, size_t len)
{
	size_t n = 0;
	static const char *const names[2] = { "TCP", "UDP" };
	for (int p = 0; p < 2 && lim->bind && lim->data_hi; p++)
		if ((need->protocols >> p & 1u) && !free_port(lim, p ? SOCK_DGRAM : SOCK_STREAM))
			n += line(text, len, "no free %s data port in %u-%u", names[p], lim->data_lo,
				  lim->data_hi);
	if (need->max_flows > NB_MAX_FLOWS)
		n += line(text, len, "a run has %u flows, above this build's %d", need->max_flows,
			  NB_MAX_FLOWS);
	return n;
}

size_t nb_check_xdp(uint8_t roles, uint32_t senders, const struct sockaddr_storage *peer,
		    socklen_t peer_len, char *text, size_t len)
{
	char what[128];
	struct nb_error why = { { 0 } };
	if (!roles || nb_pps_xdp_check((const struct sockaddr *)peer, peer_len,
				       roles & NB_CHECK_XDP_RX, roles & NB_CHECK_XDP_TX, senders,
				       what, sizeof(what), &why))
		return 0;
	const char *m = strncmp(why.msg, "xdp: ", 5) == 0 ? why.msg + 5 : why.msg;
	return line(text, len, "datapath xdp: %s", m);
}

size_t nb_check_host(const struct nb_msg_check *need, const struct nb_check_limits *lim,
		     char *text, size_t len)
{
	size_t n = check_cc(need, text, len) + check_cpus(need, text, len);
	if (lim && lim->peer)
		n += nb_check_xdp(need->xdp, need->xdp_senders, lim->peer, lim->peer_len, text, len);
	return lim ? n + check_limits(need, lim, text, len) : n;
}

bool nb_check_add_cc(struct nb_msg_check *need, const char *name)
{
	for (uint8_t i = 0; i < need->ncc; i++)
		if (strcmp(need->cc[i], name) == 0)
			return true;
	if (need->ncc >= NB_CHECK_MAX_CC)
		return false;
	snprintf(need->cc[need->ncc++], sizeof(need->cc[0]), "%s", name);
	return true;
}

bool nb_check_add_cpu(struct nb_msg_check *need, unsigned cpu)
{
	for (uint16_t i = 0; i < need->ncpus; i++)
		if (need->cpus[i] == cpu)
			return true;
	if (need->ncpus >= NB_CHECK_MAX_CPUS)
		return false;
	need->cpus[need->ncpus++] = (uint16_t)cpu;
	return true;
}
