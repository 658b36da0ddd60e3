/* netns suite: the agent as a reflector, tried with forged packets. Each test runs in a
 * network namespace of its own (unshare: only its loopback, gone with the test process) and
 * forges UDP packets with a raw socket: a data hello with someone else's source address, and
 * UDP_RR requests after the client has gone. The agent must send nothing to anyone but its
 * authenticated client. Needs root; skipped without it. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "auth.h"
#include "client.h"
#include "ctl.h"
#include "dataconn.h"
#include "dhello.h"
#include "engines.h"
#include "nbt_agent.h"
#include "nbt_pair.h"
#include "session.h"
#include "sock.h"

/* A namespace of our own with its loopback up; false (the test skips) without root. */
static bool own_netns(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0)
		return false;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	bool ok = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
	ifr.ifr_flags |= IFF_UP;
	ok = ok && ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
	close(fd);
	return ok;
}

#define NEED_NETNS()                                                                       \
	do {                                                                               \
		if (!own_netns())                                                          \
			cr_skip_test("needs root for a network namespace");                \
	} while (0)

/* Send one UDP datagram with any source address (a raw socket writes the IP header). */
static void forge_udp(const char *src, uint16_t sport, const char *dst, uint16_t dport,
		      const void *payload, size_t len)
{
	unsigned char pkt[2048] = { 0 };
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *udp = (struct udphdr *)(pkt + sizeof(*ip));
	*ip = (struct iphdr){ .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP };
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	udp->source = htons(sport);
	udp->dest = htons(dport);
	udp->len = htons((uint16_t)(sizeof(*udp) + len));
	memcpy(pkt + sizeof(*ip) + sizeof(*udp), payload, len);
	size_t total = sizeof(*ip) + sizeof(*udp) + len;
	ip->tot_len = htons((uint16_t)total);
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	cr_assert_geq(fd, 0, "raw socket: %s", strerror(errno));
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = ip->daddr };
	cr_assert_eq(sendto(fd, pkt, total, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)total,
		     "%s", strerror(errno));
	close(fd);
}

/* A UDP socket bound to addr:port that a victim would have. */
static int victim(const char *addr, uint16_t port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, addr, &a.sin_addr);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	return fd;
}

/* Datagrams that reach fd within ms; the largest one's size in *biggest. */
static int datagrams(int fd, int ms, ssize_t *biggest)
{
	int n = 0;
	*biggest = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char b[65536];
	while (poll(&p, 1, ms) > 0) {
		ssize_t got = recv(fd, b, sizeof(b), MSG_DONTWAIT);
		if (got < 0)
			break;
		n++;
		*biggest = got > *biggest ? got : *biggest;
	}
	return n;
}

TestSuite(reflection, .timeout = 60);

Test(reflection, a_forged_source_data_hello_gets_no_traffic_toward_the_forged_address)
{
	NEED_NETNS();
	/* The attacker is a client the agent served: it knows the session key. */
	struct nb_client c;
	struct nb_error err = { { 0 } };
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ 0 }, NULL, &c);
	struct nb_msg m = { .type = NB_MSG_SETUP };
	m.u.setup = (struct nb_msg_setup){ .run_id = 1, .duration_ns = 3000000000ull,
					   .interval_ns = 1000000000ull };
	m.u.setup.params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_UDP,
					       .direction = NB_DIR_REVERSE, .size = 1400, .streams = 1,
					       .rate = 100000000ull, .tos = -1 };
	cr_assert(nb_ctl_send(&c.ctl, &m, 2000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&c.ctl, &m, 5000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_READY);
	uint16_t port = m.u.ready.port;
	unsigned char key[NB_KEY_LEN], hello[NB_DHELLO_LEN];
	nb_auth_run_key(c.session_key, 1, key);
	nb_dhello_put(hello, &(struct nb_dhello){ .kind = NB_DH_HELLO, .flow = 0 }, key);
	int far = victim("127.0.0.9", 4444), near = victim("127.0.0.1", 4445);
	for (int i = 0; i < 3; i++) {
		forge_udp("127.0.0.9", 4444, "127.0.0.1", port, hello, sizeof(hello));
		forge_udp("127.0.0.1", 4445, "127.0.0.1", port, hello, sizeof(hello));
	}
	struct nb_msg start = { .type = NB_MSG_START };
	nb_ctl_send(&c.ctl, &start, 2000, &err);
	ssize_t big_far, big_near;
	int n_far = datagrams(far, 2000, &big_far), n_near = datagrams(near, 500, &big_near);
	cr_assert_eq(n_far, 0, "another host gets nothing (got %d, up to %zd bytes)", n_far, big_far);
	cr_assert_leq(big_near, NB_DHELLO_LEN, "the client's host: at most challenges, no data");
	cr_assert_leq(n_near, 3, "one challenge per hello at most");
	nb_client_close(&c);
	nb_agent_destroy(a);
	close(far);
	close(near);
}

/* SETUP of a 3 s forward UDP stream to c's agent, taking data from any host that proves the run
 * key; the agent's answer's type (its data port in *port when READY). */
static int listen_for_any(struct nb_client *c, uint16_t *port)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	struct nb_error err = { { 0 } };
	m.u.setup = (struct nb_msg_setup){ .run_id = 1, .duration_ns = 3000000000ull,
					   .interval_ns = 1000000000ull, .any_source = 1 };
	m.u.setup.params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_UDP,
					       .size = 1400, .streams = 1, .rate = 100000000ull,
					       .tos = -1 };
	cr_assert(nb_ctl_send(&c->ctl, &m, 2000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&c->ctl, &m, 5000, &err), 1, "%s", err.msg);
	*port = m.type == NB_MSG_READY ? m.u.ready.port : 0;
	return m.type;
}

Test(reflection, twelve_hundred_forged_hellos_get_a_few_challenges_toward_the_forged_address)
{
	NEED_NETNS();
	struct nb_secret s = { .set = true };
	memset(s.key, 0x55, sizeof(s.key));
	struct nb_client c;
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ .secret = &s }, &s, &c);
	uint16_t port;
	cr_assert_eq(listen_for_any(&c, &port), NB_MSG_READY);
	unsigned char key[NB_KEY_LEN], hello[NB_DHELLO_LEN];
	nb_auth_run_key(c.session_key, 1, key);
	nb_dhello_put(hello, &(struct nb_dhello){ .kind = NB_DH_HELLO, .flow = 0 }, key);
	int far = victim("127.0.0.9", 4444);
	for (int i = 0; i < 1200; i++) { /* over 2.4 s, as a patient attacker would */
		forge_udp("127.0.0.9", 4444, "127.0.0.1", port, hello, sizeof(hello));
		usleep(2000);
	}
	ssize_t big;
	int n = datagrams(far, 500, &big);
	cr_assert_leq(n, NB_DH_ANSWERS_PER_FLOW, "%d challenges toward the forged source", n);
	cr_assert_leq(big, NB_DHELLO_LEN);
	nb_client_close(&c);
	nb_agent_destroy(a);
	close(far);
}

Test(reflection, an_agent_without_a_secret_takes_data_from_its_client_only)
{
	NEED_NETNS();
	struct nb_client c;
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ 0 }, NULL, &c);
	uint16_t port;
	cr_assert_eq(listen_for_any(&c, &port), NB_MSG_ERROR, "any_source for an anonymous client");
	nb_client_close(&c);
	nb_agent_destroy(a);
}

Test(reflection, udp_rr_answers_no_forged_request_once_its_client_is_gone)
{
	NEED_NETNS();
	struct nb_params p = nbt_params("rr", NB_PROTO_UDP);
	const struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nb_error err = { { 0 } };
	uint16_t port;
	struct nb_session *s = nb_session_listen(&nb_engine_rr, &p, (const struct sockaddr *)&lo, sizeof(lo),
						 (const struct sockaddr *)&lo, sizeof(lo), 0, 0, &port, &err);
	cr_assert_not_null(s, "%s", err.msg);
	/* The client's flow, made by hand so that the test knows its port. */
	struct sockaddr_storage to;
	memcpy(&to, &lo, sizeof(lo));
	((struct sockaddr_in *)&to)->sin_port = htons(port);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t child = fork();
	if (child == 0) { /* the client end, in a child: the parent accepts */
		close(fds[0]);
		int fd = nb_dataconn_connect(&to, sizeof(struct sockaddr_in), 0, &p,
					     nb_now_ns() + 3000000000ull, &err);
		struct sockaddr_in me = { 0 }, agent = { 0 };
		socklen_t ml = sizeof(me), al = sizeof(agent);
		getsockname(fd, (struct sockaddr *)&me, &ml);
		getpeername(fd, (struct sockaddr *)&agent, &al); /* the flow's own port on the agent */
		uint16_t ports[2] = { fd >= 0 ? ntohs(me.sin_port) : 0, ntohs(agent.sin_port) };
		(void)!write(fds[1], ports, sizeof(ports));
		_exit(0); /* its socket closes: the client is gone */
	}
	close(fds[1]);
	cr_assert(nb_session_accept(s, 3000, &err), "%s", err.msg);
	cr_assert(nb_session_start(s, &err), "%s", err.msg);
	uint16_t ports[2] = { 0, 0 }, cport, fport;
	cr_assert_eq(read(fds[0], ports, sizeof(ports)), (ssize_t)sizeof(ports));
	cport = ports[0];
	fport = ports[1];
	cr_assert_neq(cport, 0, "the client proved its path");
	cr_assert_eq(waitpid(child, NULL, 0), child); /* the client is gone, and its port with it */
	unsigned char req[32] = { 0, 0, 0, 1 };
	forge_udp("127.0.0.1", cport, "127.0.0.1", fport, req, sizeof(req)); /* answered: ICMP back */
	nbt_sleep_ms(300);
	int watcher = victim("127.0.0.1", cport);
	for (int i = 0; i < 5; i++)
		forge_udp("127.0.0.1", cport, "127.0.0.1", fport, req, sizeof(req));
	ssize_t big;
	cr_assert_eq(datagrams(watcher, 1000, &big), 0, "after the ICMP unreachable, no answer");
	struct nb_snapshot *sn = nb_snapshot_create(false);
	nb_session_snapshot(s, sn);
	cr_assert_eq(nbt_sum(sn, NB_C_TRANSACTIONS), 1, "the one answer that met the ICMP");
	nb_snapshot_destroy(sn);
	cr_assert(nb_session_stop(s, &err), "the client going away is no failure: %s", err.msg);
	nb_session_destroy(s);
	close(watcher);
}
