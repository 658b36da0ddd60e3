/* net suite: the agent's data connections on loopback (dataconn.h, dhello.h). Only the
 * client's host with the run's key gets in; a UDP flow's path is proven before the agent
 * sends data; no other socket can share a data port; a UDP sender stops at ICMP
 * unreachable; the crr port answers only connections that prove the key. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dataconn.h"
#include "dhello.h"
#include "engines.h"
#include "nbt_pair.h"
#include "session.h"
#include "sock.h"

static const struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = 0x0100007f };

/* The agent's side of one run, accepting on its own thread. */
struct server {
	struct nb_params p;
	struct nb_session *s;
	uint16_t port;
	pthread_t th;
	bool ok;
	struct nb_error err;
};

static void *accept_main(void *arg)
{
	struct server *sv = arg;
	sv->ok = nb_session_accept(sv->s, 3000, &sv->err);
	return NULL;
}

static void server_start(struct server *sv, const struct nb_engine *e, const struct nb_params *p)
{
	*sv = (struct server){ .p = *p };
	struct nb_error err = { { 0 } };
	sv->s = nb_session_listen(e, &sv->p, (const struct sockaddr *)&lo, sizeof(lo),
				  (const struct sockaddr *)&lo, sizeof(lo), 0, 0, &sv->port, &err);
	cr_assert_not_null(sv->s, "%s", err.msg);
	cr_assert_eq(pthread_create(&sv->th, NULL, accept_main, sv), 0);
}

static struct nb_params keyed(const char *engine, enum nb_proto proto)
{
	struct nb_params p = nbt_params(engine, proto);
	p.size = 1000;
	memset(p.key, 0x5a, sizeof(p.key));
	return p;
}

/* A socket of type bound to src (127.0.0.0/8), connected to port on 127.0.0.1. */
static int socket_from(int type, const char *src, uint16_t port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	struct sockaddr_in me = { .sin_family = AF_INET }, to = lo;
	inet_pton(AF_INET, src, &me.sin_addr);
	to.sin_port = htons(port);
	cr_assert_eq(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0, "%s", strerror(errno));
	cr_assert_eq(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0, "%s", strerror(errno));
	return fd;
}

static void hello(unsigned char *b, enum nb_dhello_kind kind, uint32_t flow, unsigned char keyfill)
{
	unsigned char key[NB_KEY_LEN];
	memset(key, keyfill, sizeof(key));
	nb_dhello_put(b, &(struct nb_dhello){ .kind = kind, .flow = flow }, key);
}

/* Bytes that arrive on fd within ms (0: nothing, -1: the peer closed). */
static ssize_t arrives(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, ms) <= 0)
		return 0;
	char b[2048];
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	return n == 0 ? -1 : n < 0 ? (errno == EAGAIN ? 0 : -1) : n;
}

static void client_connects(struct server *sv, const struct nb_engine *e)
{
	struct nb_error err = { { 0 } };
	struct nb_session *c = nb_session_connect(e, &sv->p, (const struct sockaddr *)&lo, sizeof(lo),
						  sv->port, 3000, &err);
	cr_assert_not_null(c, "%s", err.msg);
	pthread_join(sv->th, NULL);
	cr_assert(sv->ok, "the client's own flows are accepted: %s", sv->err.msg);
	nb_session_destroy(c);
	nb_session_destroy(sv->s);
}

Test(dataconn, a_tcp_data_connection_from_another_host_or_with_another_key_is_closed)
{
	struct server sv;
	struct nb_params p = keyed("stream", NB_PROTO_TCP);
	server_start(&sv, &nb_engine_stream, &p);
	unsigned char b[NB_DHELLO_LEN];
	int other_host = socket_from(SOCK_STREAM, "127.0.0.2", sv.port);
	hello(b, NB_DH_HELLO, 0, 0x5a); /* the right key, from the wrong host */
	cr_assert_eq(send(other_host, b, sizeof(b), MSG_NOSIGNAL), (ssize_t)sizeof(b));
	cr_assert_eq(arrives(other_host, 3000), -1, "closed unanswered");
	int wrong_key = socket_from(SOCK_STREAM, "127.0.0.1", sv.port);
	hello(b, NB_DH_HELLO, 0, 0x5b);
	cr_assert_eq(send(wrong_key, b, sizeof(b), MSG_NOSIGNAL), (ssize_t)sizeof(b));
	cr_assert_eq(arrives(wrong_key, 3000), -1, "closed unanswered");
	client_connects(&sv, &nb_engine_stream);
	close(other_host);
	close(wrong_key);
}

/* A listener that takes data from any host proving the key (a path between two agents, or a
 * control session over ssh) says which host the data came from: the agent reads the counters
 * of the interface toward it. */
Test(dataconn, a_listener_for_any_host_names_the_host_its_data_came_from)
{
	struct server sv = { .p = keyed("stream", NB_PROTO_TCP) };
	sv.p.streams = 1;
	struct sockaddr_storage any = { .ss_family = AF_UNSPEC }, from;
	struct nb_error err = { { 0 } };
	sv.s = nb_session_listen(&nb_engine_stream, &sv.p, (const struct sockaddr *)&lo, sizeof(lo),
				 (const struct sockaddr *)&any, sizeof(any), 0, 0, &sv.port, &err);
	cr_assert_not_null(sv.s, "%s", err.msg);
	socklen_t len;
	cr_assert_not(nb_session_data_peer(sv.s, &from, &len), "no data peer before accept");
	cr_assert_eq(pthread_create(&sv.th, NULL, accept_main, &sv), 0);
	int sender = socket_from(SOCK_STREAM, "127.0.0.3", sv.port); /* another host, the key */
	unsigned char b[NB_DHELLO_LEN];
	hello(b, NB_DH_HELLO, 0, 0x5a);
	cr_assert_eq(send(sender, b, sizeof(b), MSG_NOSIGNAL), (ssize_t)sizeof(b));
	pthread_join(sv.th, NULL);
	cr_assert(sv.ok, "any host proving the key gets in: %s", sv.err.msg);
	struct sockaddr_in me;
	socklen_t mlen = sizeof(me);
	cr_assert_eq(getsockname(sender, (struct sockaddr *)&me, &mlen), 0);
	cr_assert(nb_session_data_peer(sv.s, &from, &len));
	const struct sockaddr_in *f = (const struct sockaddr_in *)&from;
	cr_assert_eq(f->sin_family, AF_INET);
	cr_assert_eq(f->sin_addr.s_addr, htonl(0x7f000003), "the sender's host, 127.0.0.3");
	cr_assert_eq(f->sin_port, me.sin_port, "the sender's own port");
	close(sender);
	nb_session_destroy(sv.s);
}

Test(dataconn, a_udp_hello_from_another_host_or_with_another_key_gets_no_answer)
{
	struct server sv;
	struct nb_params p = keyed("stream", NB_PROTO_UDP);
	p.direction = NB_DIR_REVERSE; /* the agent would send */
	server_start(&sv, &nb_engine_stream, &p);
	unsigned char b[NB_DHELLO_LEN];
	int other_host = socket_from(SOCK_DGRAM, "127.0.0.2", sv.port);
	int wrong_key = socket_from(SOCK_DGRAM, "127.0.0.1", sv.port);
	for (int i = 0; i < 5; i++) {
		hello(b, NB_DH_HELLO, 0, 0x5a);
		cr_assert_eq(send(other_host, b, sizeof(b), 0), (ssize_t)sizeof(b));
		hello(b, NB_DH_HELLO, 0, 0x5b);
		cr_assert_eq(send(wrong_key, b, sizeof(b), 0), (ssize_t)sizeof(b));
	}
	cr_assert_eq(arrives(other_host, 300), 0, "not even a challenge to another host");
	cr_assert_eq(arrives(wrong_key, 300), 0, "nor to a hello without the key");
	client_connects(&sv, &nb_engine_stream);
	cr_assert_eq(arrives(other_host, 0), 0);
	close(other_host);
	close(wrong_key);
}

Test(dataconn, a_udp_hello_gets_one_challenge_the_size_of_the_hello_and_no_data_without_the_echo)
{
	struct server sv;
	struct nb_params p = keyed("stream", NB_PROTO_UDP);
	p.direction = NB_DIR_REVERSE;
	server_start(&sv, &nb_engine_stream, &p);
	unsigned char b[NB_DHELLO_LEN], got[2048];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0); /* unconnected: hears the flow port */
	struct sockaddr_in to = lo;
	to.sin_port = htons(sv.port);
	hello(b, NB_DH_HELLO, 0, 0x5a);
	cr_assert_eq(sendto(fd, b, sizeof(b), 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(b));
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	cr_assert_eq(poll(&pf, 1, 3000), 1, "a challenge comes");
	ssize_t n = recvfrom(fd, got, sizeof(got), 0, (struct sockaddr *)&from, &fl);
	struct nb_dhello ch;
	cr_assert_eq(n, NB_DHELLO_LEN, "the challenge is the hello's size");
	cr_assert(nb_dhello_get(got, (size_t)n, NB_DH_CHALLENGE, p.key, &ch));
	cr_assert_neq(ntohs(from.sin_port), sv.port, "from the flow's own port");
	cr_assert_eq(arrives(fd, 500), 0, "and nothing more until the echo");
	pthread_join(sv.th, NULL);
	cr_assert_not(sv.ok, "without the echo the flow never starts");
	cr_assert_not_null(strstr(sv.err.msg, "only 0 of 1"), "%s", sv.err.msg);
	nb_session_destroy(sv.s);
	close(fd);
}

Test(dataconn, no_other_socket_can_share_a_udp_data_port)
{
	struct server sv;
	struct nb_params p = keyed("stream", NB_PROTO_UDP);
	server_start(&sv, &nb_engine_stream, &p);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	struct sockaddr_in a = lo;
	a.sin_port = htons(sv.port);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), -1, "the hello port is the agent's alone");
	cr_assert_eq(errno, EADDRINUSE);
	close(fd);
	client_connects(&sv, &nb_engine_stream);
}

Test(dataconn, a_udp_sender_stops_at_icmp_unreachable)
{
	struct server sv;
	struct nb_params p = keyed("stream", NB_PROTO_UDP);
	p.direction = NB_DIR_REVERSE;
	p.rate = 20000000;
	server_start(&sv, &nb_engine_stream, &p);
	struct nb_error err = { { 0 } };
	struct nb_session *c = nb_session_connect(&nb_engine_stream, &sv.p, (const struct sockaddr *)&lo,
						  sizeof(lo), sv.port, 3000, &err);
	cr_assert_not_null(c, "%s", err.msg);
	pthread_join(sv.th, NULL);
	cr_assert(sv.ok, "%s", sv.err.msg);
	cr_assert(nb_session_start(sv.s, &err), "%s", err.msg);
	nbt_sleep_ms(200);
	nb_session_destroy(c); /* the client's port closes: the agent's datagrams meet ICMP */
	struct nb_snapshot *a = nb_snapshot_create(false), *b = nb_snapshot_create(false);
	nbt_sleep_ms(500);
	nb_session_snapshot(sv.s, a);
	nbt_sleep_ms(500);
	nb_session_snapshot(sv.s, b);
	cr_assert_gt(nbt_sum(a, NB_C_TX_PACKETS), 0, "it sent before");
	cr_assert_eq(nbt_sum(b, NB_C_TX_PACKETS), nbt_sum(a, NB_C_TX_PACKETS), "and stopped");
	cr_assert_not(nb_session_stop(sv.s, &err));
	cr_assert_not_null(strstr(err.msg, "Connection refused"), "%s", err.msg);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
	nb_session_destroy(sv.s);
}

/* One crr transaction by hand from src: hello (with keyfill), request; bytes of response that
 * came (-1: closed unanswered). */
static ssize_t crr_by_hand(const char *src, uint16_t port, const struct nb_params *p,
			   unsigned char keyfill)
{
	unsigned char b[NB_DHELLO_LEN + 32] = { 0 };
	hello(b, NB_DH_CRR, 0, keyfill);
	int fd = socket_from(SOCK_STREAM, src, port);
	cr_assert_eq(send(fd, b, NB_DHELLO_LEN + p->request, MSG_NOSIGNAL), (ssize_t)(NB_DHELLO_LEN + p->request));
	ssize_t n = arrives(fd, 3000);
	close(fd);
	return n;
}

Test(dataconn, the_crr_port_answers_only_connections_that_prove_the_key)
{
	struct nb_params p = keyed("crr", NB_PROTO_TCP);
	p.request = 32;
	p.response = 128;
	struct server sv;
	server_start(&sv, &nb_engine_crr, &p);
	pthread_join(sv.th, NULL);
	struct nb_error err = { { 0 } };
	cr_assert(nb_session_start(sv.s, &err), "%s", err.msg);
	cr_assert_eq(crr_by_hand("127.0.0.1", sv.port, &p, 0x5b), -1, "another key: closed unanswered");
	cr_assert_eq(crr_by_hand("127.0.0.2", sv.port, &p, 0x5a), -1, "another host: closed unanswered");
	cr_assert_eq(crr_by_hand("127.0.0.1", sv.port, &p, 0x5a), 128, "the run's key: answered");
	struct nb_snapshot *s = nb_snapshot_create(false);
	for (int i = 0; i < 100; i++) { /* the server counts once its answer is out */
		nb_session_snapshot(sv.s, s);
		if (nbt_sum(s, NB_C_TRANSACTIONS) > 0)
			break;
		nbt_sleep_ms(20);
	}
	cr_assert_eq(nbt_sum(s, NB_C_TRANSACTIONS), 1, "the answered one only");
	nb_snapshot_destroy(s);
	nb_session_destroy(sv.s);
}

/* A session over ssh (or a path from another agent) takes data from any host that proves the
 * run's key: its crr port too answers such a host, and still nobody without the key (issue 27:
 * every crr connection of an ssh host was closed, the source check always false). */
Test(dataconn, the_crr_port_for_any_host_answers_each_host_that_proves_the_key)
{
	struct nb_params p = keyed("crr", NB_PROTO_TCP);
	p.request = 32;
	p.response = 128;
	struct server sv = { .p = p };
	struct sockaddr_storage any = { .ss_family = AF_UNSPEC };
	struct nb_error err = { { 0 } };
	sv.s = nb_session_listen(&nb_engine_crr, &sv.p, (const struct sockaddr *)&lo, sizeof(lo),
				 (const struct sockaddr *)&any, sizeof(any), 0, 0, &sv.port, &err);
	cr_assert_not_null(sv.s, "%s", err.msg);
	cr_assert(nb_session_accept(sv.s, 1000, &err), "%s", err.msg);
	cr_assert(nb_session_start(sv.s, &err), "%s", err.msg);
	cr_expect_eq(crr_by_hand("127.0.0.3", sv.port, &p, 0x5a), 128, "another host, the key");
	cr_expect_eq(crr_by_hand("127.0.0.1", sv.port, &p, 0x5a), 128, "this host, the key");
	cr_expect_eq(crr_by_hand("127.0.0.3", sv.port, &p, 0x5b), -1, "another key: unanswered");
	nb_session_destroy(sv.s);
}

/* A free port on 127.0.0.1 for type: bound and closed again (nothing listens there after). */
static uint16_t closed_port(int type)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = lo;
	socklen_t len = sizeof(a);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

/* A data connection that cannot be made says to which address and port, whole: the user opens
 * exactly that in a firewall. */
Test(dataconn, a_data_connection_that_fails_names_the_address_and_port)
{
	static const struct { enum nb_proto proto; const char *want; } cases[] = {
		{ NB_PROTO_TCP, "connect to TCP data port 127.0.0.1:%u: Connection refused" },
		{ NB_PROTO_UDP, "no answer to the UDP data hello to 127.0.0.1:%u (a firewall on the way?)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_params p = keyed("stream", cases[i].proto);
		uint16_t port = closed_port(cases[i].proto == NB_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM);
		struct sockaddr_storage to = { 0 };
		memcpy(&to, &lo, sizeof(lo));
		((struct sockaddr_in *)&to)->sin_port = htons(port);
		struct nb_error err = { { 0 } };
		char want[160];
		snprintf(want, sizeof(want), cases[i].want, port);
		cr_assert_eq(nb_dataconn_connect(&to, sizeof(lo), 0, &p, nb_now_ns() + 300000000ull, &err),
			     -1);
		cr_expect_str_eq(err.msg, want);
	}
}
