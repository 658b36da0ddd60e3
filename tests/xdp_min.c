/* nb_xdp_min — the least AF_XDP loop there is, the anchor scripts/bench-pps measures nbrun's
 * xdp path against: libxdp alone (its own default redirect program, no nbrun code), one socket
 * on queue 0, copy or zero-copy as the driver allows, need_wakeup honoured, batches of 64.
 *
 *   nb_xdp_min rx IFNAME SECS [spin|nap]   count every frame queue 0 receives for SECS (spin:
 *                                          an empty ring is looked at again until 200 us
 *                                          after its last frame before poll, as nbrun's
 *                                          `wait: spin`; nap: while frames came in the last
 *                                          10 ms, an empty ring is slept on for 200 us with
 *                                          nanosleep, not poll, as nbrun's `wait: block` at
 *                                          rates below ~2.5 Mpps, where its nap is 200 us)
 *   nb_xdp_min tx IFNAME SECS DST_MAC      send the same UDP frame (10.0.0.1 -> 10.0.0.2,
 *                 [SIZE]                   SIZE bytes of payload, default 64) for SECS
 *
 * The sender writes its frame into every UMEM frame once and then only moves descriptors; the
 * receiver only counts (no parsing, no sequence numbers). Prints one line: "rx=N pps=N cpu_s=S"
 * or "tx=N pps=N cpu_s=S", pps over the span from the first frame to the last, cpu_s this
 * process's user+system time.
 */
#include <errno.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xdp/xsk.h>

#define FRAMES 4096u
#define FSIZE 2048u
#define RING 2048u
#define BATCH 64u

struct xs {
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	unsigned char *area;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "nb_xdp_min: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	return 1;
}

static int open_xs(struct xs *x, const char *ifname, int rx)
{
	x->area = mmap(NULL, (size_t)FRAMES * FSIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED)
		return -errno;
	struct xsk_umem_config uc = { 2 * RING, RING, FSIZE, 0, 0 }; /* fill: room for every frame */
	int rc = xsk_umem__create(&x->umem, x->area, (size_t)FRAMES * FSIZE, &x->fill, &x->comp, &uc);
	if (rc)
		return rc;
	struct xsk_socket_config sc = { .rx_size = RING, .tx_size = RING,
					.libxdp_flags = rx ? 0 : XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
					.bind_flags = XDP_USE_NEED_WAKEUP };
	rc = xsk_socket__create(&x->sock, ifname, 0, x->umem, &x->rx, &x->tx, &sc);
	if (rc)
		return rc;
	uint32_t idx;
	if (xsk_ring_prod__reserve(&x->fill, RING, &idx) != RING)
		return -ENOSPC;
	for (uint32_t i = 0; i < RING; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = (uint64_t)i * FSIZE;
	xsk_ring_prod__submit(&x->fill, RING);
	return 0;
}

static int do_rx(struct xs *x, double secs, int spin, int nap)
{
	unsigned long long n = 0;
	double t0 = 0, last = 0, end = now_s() + secs;
	struct pollfd p = { .fd = xsk_socket__fd(x->sock), .events = POLLIN };
	while (now_s() < end) {
		uint32_t idx, fidx;
		uint32_t got = xsk_ring_cons__peek(&x->rx, BATCH, &idx);
		if (!got) {
			double idle = now_s() - last;
			if (spin && idle <= 200e-6)
				continue;
			if (nap && last > 0 && idle <= 10e-3)
				nanosleep(&(struct timespec){ 0, 200000 }, NULL);
			else
				poll(&p, 1, 100);
			continue;
		}
		if (xsk_ring_prod__reserve(&x->fill, got, &fidx) != got)
			return fail("fill ring", ENOSPC);
		for (uint32_t i = 0; i < got; i++)
			*xsk_ring_prod__fill_addr(&x->fill, fidx + i) =
				xsk_ring_cons__rx_desc(&x->rx, idx + i)->addr & ~(uint64_t)(FSIZE - 1);
		xsk_ring_cons__release(&x->rx, got);
		xsk_ring_prod__submit(&x->fill, got);
		last = now_s();
		if (!n)
			t0 = last;
		n += got;
	}
	printf("rx=%llu pps=%.0f cpu_s=%.3f\n", n, last > t0 ? (double)n / (last - t0) : 0.0, cpu_s());
	return 0;
}

/* One Ethernet/IPv4/UDP frame, IPv4 header checksum computed, UDP checksum 0 (none). */
static size_t frame(unsigned char *f, const unsigned char *dst, const unsigned char *src, size_t size)
{
	static const unsigned char ip[20] = { 0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0,
					      10, 0, 0, 1, 10, 0, 0, 2 };
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08, f[13] = 0x00;
	memcpy(f + 14, ip, 20);
	f[16] = (unsigned char)((28 + size) >> 8), f[17] = (unsigned char)(28 + size);
	unsigned s = 0;
	for (int i = 0; i < 20; i += 2)
		s += (unsigned)f[14 + i] << 8 | f[15 + i];
	s = (s & 0xffff) + (s >> 16);
	s = ~((s & 0xffff) + (s >> 16)) & 0xffff;
	f[24] = (unsigned char)(s >> 8), f[25] = (unsigned char)s;
	unsigned char udp[8] = { 0x9c, 0x40, 0x1d, 0xb0, (unsigned char)((8 + size) >> 8),
				 (unsigned char)(8 + size), 0, 0 };
	memcpy(f + 34, udp, 8);
	memset(f + 42, 0xa5, size);
	return 42 + size;
}

static int do_tx(struct xs *x, const char *ifname, double secs, const char *mac, size_t size)
{
	unsigned char dst[6], src[6];
	if (sscanf(mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst[0], &dst[1], &dst[2], &dst[3], &dst[4],
		   &dst[5]) != 6)
		return fail("DST_MAC", EINVAL);
	struct ifreq ifr = { 0 };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		return fail("SIOCGIFHWADDR", errno);
	close(fd);
	memcpy(src, ifr.ifr_hwaddr.sa_data, 6);
	size_t len = 0;
	for (uint32_t i = 0; i < FRAMES; i++)
		len = frame(x->area + (size_t)i * FSIZE, dst, src, size);
	unsigned long long n = 0, done = 0;
	uint32_t next = RING, inflight = 0; /* frames RING.. are the sender's */
	double t0 = now_s(), end = t0 + secs;
	while (now_s() < end) {
		uint32_t idx, cidx;
		uint32_t c = xsk_ring_cons__peek(&x->comp, RING, &cidx);
		if (c) {
			xsk_ring_cons__release(&x->comp, c);
			inflight -= c;
			done += c;
		}
		uint32_t want = RING - inflight < BATCH ? RING - inflight : BATCH;
		if (want && xsk_ring_prod__reserve(&x->tx, want, &idx) == want) {
			for (uint32_t i = 0; i < want; i++, next = next + 1 < FRAMES ? next + 1 : RING) {
				struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
				d->addr = (uint64_t)next * FSIZE;
				d->len = (uint32_t)len;
			}
			xsk_ring_prod__submit(&x->tx, want);
			inflight += want;
			n += want;
		}
		if (xsk_ring_prod__needs_wakeup(&x->tx))
			sendto(xsk_socket__fd(x->sock), NULL, 0, MSG_DONTWAIT, NULL, 0);
	}
	double span = now_s() - t0;
	printf("tx=%llu pps=%.0f completed=%llu cpu_s=%.3f\n", n, (double)n / span, done, cpu_s());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "rx") && strcmp(argv[1], "tx")) ||
	    (!strcmp(argv[1], "tx") && argc < 5)) {
		fprintf(stderr, "usage: nb_xdp_min rx IFNAME SECS | tx IFNAME SECS DST_MAC [SIZE]\n");
		return 2;
	}
	int rx = !strcmp(argv[1], "rx");
	struct xs x = { 0 };
	int rc = open_xs(&x, argv[2], rx);
	if (rc)
		return fail("open the AF_XDP socket", rc);
	rc = rx ? do_rx(&x, atof(argv[3]), argc > 4 && !strcmp(argv[4], "spin"),
			argc > 4 && !strcmp(argv[4], "nap"))
		: do_tx(&x, argv[2], atof(argv[3]), argv[4], argc > 5 ? (size_t)atoi(argv[5]) : 64);
	xsk_socket__delete(x.sock); /* and libxdp's program with it */
	xsk_umem__delete(x.umem);
	return rc;
}
