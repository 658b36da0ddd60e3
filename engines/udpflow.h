/* nbrun — the batched UDP data path of a test flow, shared by the stream and pps engines.
 *
 * Sender (nb_udptx): each call stamps up to per_call datagrams with consecutive
 * sequence numbers, each datagram's own send time and the epoch it is sent in
 * (the udpseq header), and hands them to the kernel in one sendmmsg; stamping,
 * sending and counting run inside one epoch (epoch.h). The engine lays the
 * datagrams out (both: back to back, udpgso.h) and may replace the send call
 * (GSO: one UDP_SEGMENT buffer). What the kernel refuses (ENOBUFS, EAGAIN, or the first datagram a
 * partial sendmmsg stopped at) counts once in NB_C_SND_ERRS and keeps its
 * sequence numbers for the next call: back-pressure is never shown as loss.
 *
 * Receiver (nb_udprx): recvmmsg with MSG_WAITFORONE (sleep until one datagram is
 * there, then take whatever else is queued), SO_RCVTIMEO so the stop flag is
 * seen within NB_UDPRX_SLICE_MS, and the udpseq accounting of every datagram at
 * the time the kernel received it (SO_TIMESTAMPNS: one recvmmsg returns datagrams
 * that arrived over tens of microseconds, and one time for all of them would make
 * RFC 3550 jitter measure the batching).
 *
 * Drops of our own full receive buffer (NB_C_RCVBUF_DROPS, a receiver-CPU limit,
 * not network loss) are the socket's SO_MEMINFO counter, read by the harness at
 * every tick (nb_udpflow_kernel_counters), so a row's drops cover its own interval.
 * The counter counts from zero, that is since the harness made the socket for this
 * flow. Not since the flow's thread started: the peer's sender may start first, and
 * what our buffer drops before the receiver runs is counted lost by the sequence
 * accounting (gaps from sequence 0). Nothing else can be in the counter: the socket
 * is new, and the only datagram it takes before the test, the hello answer, meets an
 * empty queue, which a UDP socket always admits.
 */
#ifndef NB_UDPFLOW_H
#define NB_UDPFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "pace.h"
#include "udpseq.h"

#define NB_UDPRX_SLICE_MS 100u  /* a blocked receive re-checks the stop flag this often */
#define NB_UDP_DRAIN_NS 500000000ull /* the senders stopped: receivers count what is in flight */

/** The sending half of a UDP test flow. The engine fills f, msg, hdr, stride and per_call
 *  (and send, optionally) before nb_udptx_start. */
struct nb_udptx {
	struct nb_flow *f;
	struct mmsghdr *msg;    /* per_call messages for sendmmsg */
	unsigned char *hdr;     /* datagram i's header starts at hdr + i * stride */
	size_t stride;
	uint32_t per_call;      /* most datagrams per send call */
	uint64_t seq;           /* sequence number of the next datagram */
	uint64_t cookie;        /* the flow's (udpseq.h), set by nb_udptx_start */
	struct nb_pacer pacer;
	/** Optional: send the n stamped datagrams another way; returns as sendmmsg does. */
	int (*send)(struct nb_udptx *t, uint32_t n);
};

/** Ask for send errors, wake-ups without timer slack, and pace at num / den datagrams/s (num 0 =
 *  unpaced) with bursts of at most burst_ns of the schedule; false with f->err set. */
bool nb_udptx_start(struct nb_udptx *t, uint64_t num, uint64_t den, uint64_t burst_ns);
/** One batch: wait for the pacer, stamp, send and count; after a refusal wait for room.
 *  Returns 1 to go on, 0 when the flow is done, -1 on failure (f->err set). */
int nb_udptx_step(struct nb_udptx *t);
/** Stamp, send and count n datagrams the pacer released, never waiting: how many the kernel
 *  took (0: refused, wait for room), -1 on failure (f->err set), -2 when the flow is done (the
 *  peer went away as the run winds down). */
int nb_udptx_send(struct nb_udptx *t, uint32_t n);

/** The receiving half of a UDP test flow: nmsg buffers of buflen bytes (ctllen bytes of the
 *  engine's control data each, plus room for the receive time), the sequence accounting. */
struct nb_udprx {
	struct nb_flow *f;
	uint32_t nmsg;
	size_t buflen;
	size_t ctllen;
	unsigned char *buf;
	unsigned char *ctl;
	struct mmsghdr *msg;
	struct iovec *iov;
	struct nb_seqrx seq;
	/** Optional: account message i another way (GRO buffers hold several datagrams,
	 *  nb_udpgso_account); NULL = one datagram per message. */
	void (*account)(struct nb_udprx *r, uint32_t i, uint64_t now_ns);
};

/** Allocate the buffers, set the receive timeout and ask for receive times; false with f->err
 *  set (nothing to free). */
bool nb_udprx_init(struct nb_udprx *r, struct nb_flow *f, uint32_t nmsg, size_t buflen,
		   size_t ctllen);
/** Receive and account until the flow stops; 0, or -1 with f->err set. */
int nb_udprx_run(struct nb_udprx *r);
/** One recvmmsg (flags: MSG_WAITFORONE, or MSG_DONTWAIT never to wait) and its accounting:
 *  the datagrams taken (0: none there), -1 on failure (f->err set), -2 when stopped. */
int nb_udprx_once(struct nb_udprx *r, int flags);
/** Free the buffers. */
void nb_udprx_free(struct nb_udprx *r);
/** The kernel's receive time of a datagram (its SCM_TIMESTAMPNS, CLOCK_REALTIME, minus
 *  real_to_mono_ns = REALTIME - MONOTONIC), on CLOCK_MONOTONIC; fallback_ns without one. */
uint64_t nb_udprx_stamp(const struct msghdr *h, int64_t real_to_mono_ns, uint64_t fallback_ns);
/** engine.kernel_counters of the UDP engines: a receiver's SO_MEMINFO drop counter. */
void nb_udpflow_kernel_counters(struct nb_flow *f);

#endif
