/* nb_burst — the largest burst on the wire, for scripts/bench-pacing: sniffs one interface
 * (AF_PACKET, kernel receive times) for UDP datagrams of at least SIZE payload bytes (the test's
 * data, not its control traffic) and counts the longest run of datagrams each arriving less than
 * GAP ns after the one before. A veth hands a GSO send on uncut: one frame of k datagrams of
 * SIZE bytes (the last may be shorter), which left back to back and counts as k of them (a NIC
 * cutting it would send them at line rate); counting it as one datagram hid GSO bursts.
 * Usage: nb_burst IFNAME SIZE GAP_NS SECONDS   prints "packets N largest_burst B drops D" */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define NB_BURST_BATCH 64

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_sniffer(const char *ifname)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
				   .sll_ifindex = (int)if_nametoindex(ifname) };
	int one = 1, buf = 32 << 20;
	struct timeval tv = { .tv_usec = 100000 };
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The kernel's receive time of one message, or 0. */
static uint64_t stamp_of(struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
	return 0;
}

/* How many of the test's datagrams of size bytes a frame holds: 0 for anything else (control
 * traffic, a short datagram), k for an uncut GSO frame of k; len is what was captured. */
static uint64_t datagrams_in(const unsigned char *b, size_t len, size_t size)
{
	const struct iphdr *ip = (const void *)b;
	if (len < sizeof(*ip) || ip->protocol != IPPROTO_UDP || len < ip->ihl * 4u + 8u)
		return 0;
	const struct udphdr *u = (const void *)(b + ip->ihl * 4);
	size_t ulen = ntohs(u->len); /* a GSO frame's UDP length is all of its segments' */
	if (ulen < size + 8u)
		return 0;
	size_t payload = ulen - 8u;
	return (payload + size - 1) / size;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: nb_burst IFNAME SIZE GAP_NS SECONDS\n");
		return 2;
	}
	size_t size = strtoul(argv[2], NULL, 10);
	uint64_t gap = strtoull(argv[3], NULL, 10), end = now_ns() + strtoull(argv[4], NULL, 10) * 1000000000ull;
	if (size == 0) {
		fprintf(stderr, "nb_burst: SIZE must be at least 1 byte\n");
		return 2;
	}
	int fd = open_sniffer(argv[1]);
	if (fd < 0) {
		perror("nb_burst: AF_PACKET");
		return 1;
	}
	static unsigned char buf[NB_BURST_BATCH][128];
	static char ctl[NB_BURST_BATCH][64];
	struct mmsghdr m[NB_BURST_BATCH];
	struct iovec iov[NB_BURST_BATCH];
	uint64_t packets = 0, last = 0, run = 0, best = 0;
	while (now_ns() < end) {
		for (int i = 0; i < NB_BURST_BATCH; i++) {
			iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
			m[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1,
							.msg_control = ctl[i], .msg_controllen = sizeof(ctl[i]) };
		}
		int n = recvmmsg(fd, m, NB_BURST_BATCH, MSG_WAITFORONE, NULL);
		for (int i = 0; i < n; i++) {
			uint64_t k = datagrams_in(buf[i], m[i].msg_len, size);
			if (k == 0)
				continue;
			uint64_t t = stamp_of(&m[i].msg_hdr);
			run = packets && t - last < gap ? run + k : k;
			best = run > best ? run : best;
			last = t;
			packets += k;
		}
	}
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	memset(&st, 0, sizeof(st));
	getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
	printf("packets %llu largest_burst %llu drops %u\n", (unsigned long long)packets,
	       (unsigned long long)best, st.tp_drops);
	return 0;
}
