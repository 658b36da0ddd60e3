/* nb_bench_mmsg — the kernel's small-packet limit on this machine: the least code that
 * moves UDP datagrams over loopback with sendmmsg/recvmmsg, one sender and one receiver
 * thread per flow, no headers, no accounting. scripts/bench-pps compares nbrun with it.
 *
 *     nb_bench_mmsg [-t seconds] [-s size] [-b batch] [-f flows] [-r rcvbuf_bytes]
 *
 * Prints one line: "tx_pps=N rx_pps=N tx_per_cpu_s=N rx_per_cpu_s=N": packets per second
 * over the run, and packets per CPU-second of the sending and receiving threads (under
 * contention from other work these compare implementations better than wall-clock rates).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define MAX_FLOWS 64

struct bench_flow {
	int tx_fd, rx_fd;
	unsigned size, batch;
	atomic_bool *stop;
	unsigned long long tx, rx;
	unsigned long long tx_cpu_ns, rx_cpu_ns; /* each thread's own CPU time */
	pthread_t tx_thread, rx_thread;
};

static unsigned long long clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void *sender(void *arg)
{
	struct bench_flow *b = arg;
	static _Thread_local char buf[65536];
	struct mmsghdr m[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	memset(m, 0, sizeof(m));
	for (unsigned i = 0; i < b->batch; i++) {
		iov[i] = (struct iovec){ buf, b->size };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	while (!atomic_load_explicit(b->stop, memory_order_relaxed)) {
		int n = sendmmsg(b->tx_fd, m, b->batch, MSG_DONTWAIT);
		if (n > 0)
			b->tx += (unsigned)n;
		else if (errno == EAGAIN || errno == ENOBUFS)
			sched_yield();
	}
	b->tx_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void *receiver(void *arg)
{
	struct bench_flow *b = arg;
	static _Thread_local char buf[MAX_BATCH][2048];
	struct mmsghdr m[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	memset(m, 0, sizeof(m));
	for (unsigned i = 0; i < b->batch; i++) {
		iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	struct timeval tv = { 0, 100000 };
	setsockopt(b->rx_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!atomic_load_explicit(b->stop, memory_order_relaxed)) {
		int n = recvmmsg(b->rx_fd, m, b->batch, MSG_WAITFORONE, NULL);
		if (n > 0)
			b->rx += (unsigned)n;
	}
	b->rx_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static int open_pair(struct bench_flow *b, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	b->rx_fd = socket(AF_INET, SOCK_DGRAM, 0);
	b->tx_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (b->rx_fd < 0 || b->tx_fd < 0)
		return -1;
	if (rcvbuf > 0)
		setsockopt(b->rx_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(b->rx_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(b->rx_fd, (struct sockaddr *)&a, &alen) != 0 ||
	    connect(b->tx_fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		return -1;
	return 0;
}

static int parse_args(int argc, char **argv, unsigned *secs, unsigned *size, unsigned *batch,
		      unsigned *flows, int *rcvbuf)
{
	int opt;
	while ((opt = getopt(argc, argv, "t:s:b:f:r:")) != -1) {
		unsigned long v = strtoul(optarg, NULL, 10);
		switch (opt) {
		case 't': *secs = (unsigned)v; break;
		case 's': *size = (unsigned)v; break;
		case 'b': *batch = (unsigned)v; break;
		case 'f': *flows = (unsigned)v; break;
		case 'r': *rcvbuf = (int)v; break;
		default: return -1;
		}
	}
	if (*secs < 1 || *secs > 60 || *size < 1 || *size > 1472 || *batch < 1 ||
	    *batch > MAX_BATCH || *flows < 1 || *flows > MAX_FLOWS)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned secs = 5, size = 64, batch = 64, flows = 1;
	int rcvbuf = 4 << 20;
	if (parse_args(argc, argv, &secs, &size, &batch, &flows, &rcvbuf) != 0) {
		fprintf(stderr, "usage: nb_bench_mmsg [-t 1..60] [-s 1..1472] [-b 1..%d] [-f 1..%d] "
				"[-r rcvbuf]\n", MAX_BATCH, MAX_FLOWS);
		return 2;
	}
	static struct bench_flow fl[MAX_FLOWS];
	atomic_bool stop = false;
	for (unsigned i = 0; i < flows; i++) {
		fl[i] = (struct bench_flow){ .size = size, .batch = batch, .stop = &stop };
		if (open_pair(&fl[i], rcvbuf) != 0) {
			perror("nb_bench_mmsg: socket setup");
			return 1;
		}
	}
	unsigned long long t0 = clock_ns(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < flows; i++) {
		pthread_create(&fl[i].rx_thread, NULL, receiver, &fl[i]);
		pthread_create(&fl[i].tx_thread, NULL, sender, &fl[i]);
	}
	sleep(secs);
	atomic_store(&stop, true);
	unsigned long long tx = 0, rx = 0, tx_cpu = 0, rx_cpu = 0;
	for (unsigned i = 0; i < flows; i++) {
		pthread_join(fl[i].tx_thread, NULL);
		pthread_join(fl[i].rx_thread, NULL);
		tx += fl[i].tx;
		rx += fl[i].rx;
		tx_cpu += fl[i].tx_cpu_ns;
		rx_cpu += fl[i].rx_cpu_ns;
	}
	double s = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	printf("tx_pps=%.0f rx_pps=%.0f tx_per_cpu_s=%.0f rx_per_cpu_s=%.0f\n", (double)tx / s,
	       (double)rx / s, (double)tx * 1e9 / (double)(tx_cpu ? tx_cpu : 1),
	       (double)rx * 1e9 / (double)(rx_cpu ? rx_cpu : 1));
	return 0;
}
