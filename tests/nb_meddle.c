/* nb_meddle — an on-path relay of nbrun's control connection, for tests/netns/integrity.sh: it
 * takes connections on 127.0.0.1:LISTEN, passes each through to AGENT_HOST:AGENT_PORT byte for
 * byte, and in the agent's direction flips one bit of one frame: byte BYTE of the body of frame
 * FRAME, counting from 0 only the frames whose body is at least MINLEN bytes (by their 4-byte
 * length prefixes: FACTS and the interval counters, not the short answers around them). FRAME -1
 * changes nothing (the relay shows it is itself transparent). Each frame it passed is logged on
 * stderr ("a2c frame N: L bytes", N counting every frame). Serves one connection at a time until
 * killed.
 * Usage: nb_meddle LISTEN AGENT_HOST AGENT_PORT FRAME BYTE MINLEN */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Where the agent-to-client stream is: which frame, and how far into it. */
struct parse {
	long frame;            /* index of the frame being passed */
	long big;              /* frames of at least minlen bytes passed before it */
	uint32_t minlen;
	uint32_t off;          /* bytes of it passed so far, its length prefix included */
	uint8_t hdr[4];
	uint32_t len;          /* its body length, once the prefix is in */
	long target, byte;     /* the bit to flip: body byte `byte` of frame `target` */
};

static int tcp_listen(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 8) < 0) {
		perror("nb_meddle: listen");
		exit(2);
	}
	return fd;
}

static int tcp_connect(const char *host, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1 || fd < 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("nb_meddle: connect to the agent");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Walk the agent's bytes frame by frame, flipping the target bit on the way. */
static void meddle(struct parse *p, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p->off < 4) {
			p->hdr[p->off] = b[i];
			if (p->off == 3)
				p->len = (uint32_t)p->hdr[0] << 24 | (uint32_t)p->hdr[1] << 16 |
					 (uint32_t)p->hdr[2] << 8 | p->hdr[3];
		} else if (p->len >= p->minlen && p->big == p->target && (long)(p->off - 4) == p->byte) {
			b[i] ^= 0x10;
			fprintf(stderr, "nb_meddle: flipped a bit of byte %ld of frame %ld\n", p->byte,
				p->frame);
		}
		p->off++;
		if (p->off >= 4 && p->off == 4 + p->len) {
			fprintf(stderr, "a2c frame %ld: %u bytes\n", p->frame, p->len);
			p->big += p->len >= p->minlen;
			p->frame++;
			p->off = 0;
		}
	}
}

static bool pass(int from, int to, struct parse *p)
{
	uint8_t b[65536];
	ssize_t n = recv(from, b, sizeof(b), 0);
	if (n <= 0)
		return false;
	if (p)
		meddle(p, b, (size_t)n);
	for (ssize_t off = 0; off < n;) {
		ssize_t w = send(to, b + off, (size_t)(n - off), MSG_NOSIGNAL);
		if (w <= 0)
			return false;
		off += w;
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: nb_meddle LISTEN AGENT_HOST AGENT_PORT FRAME BYTE MINLEN\n");
		return 2;
	}
	int lfd = tcp_listen((uint16_t)atoi(argv[1]));
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		int a = tcp_connect(argv[2], (uint16_t)atoi(argv[3]));
		struct parse p = { .target = atol(argv[4]), .byte = atol(argv[5]),
				   .minlen = (uint32_t)atol(argv[6]) };
		while (a >= 0) {
			struct pollfd f[2] = { { .fd = c, .events = POLLIN }, { .fd = a, .events = POLLIN } };
			if (poll(f, 2, -1) < 0)
				break;
			if (f[0].revents && !pass(c, a, NULL))
				break;
			if (f[1].revents && !pass(a, c, &p))
				break;
		}
		close(c);
		if (a >= 0)
			close(a);
	}
}
