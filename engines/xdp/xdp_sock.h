/* nbrun — one AF_XDP socket on one queue of an interface, with a UMEM of its own.
 *
 * The UMEM is `frames` buffers of frame_size bytes: the first half feeds the fill ring (the
 * kernel writes received frames there), the second half is the sender's pool (a frame goes
 * out through the TX ring and comes back on the completion ring). Rings hold `ring`
 * descriptors each. Zero-copy is asked for first (the driver DMAs into the UMEM); where the
 * driver cannot (veth, any driver without AF_XDP support, generic XDP), the socket is bound in
 * copy mode and says so. need_wakeup is always asked for: the kernel sets a flag when it needs
 * a syscall to go on (a sendto to transmit, a poll to refill), and only then do we make one.
 * Busy polling (busy_poll_us > 0) sets SO_PREFER_BUSY_POLL, SO_BUSY_POLL and the budget, and the
 * receiver then drives the queue's NAPI with a non-blocking recvfrom instead of sleeping.
 *
 * Batches: nb_xsk_tx_get hands out up to n free frames (reclaiming completions first),
 * nb_xsk_tx_send puts the written ones on the TX ring and kicks the kernel if it asks;
 * nb_xsk_rx_peek gives up to n received frames, nb_xsk_rx_release returns them to the fill
 * ring. Nothing here is locked: one thread sends (tx_get, tx_send, tx_flush, tx_pending: the
 * TX and completion rings, the send half) and one receives (rx_peek, rx_release, rx_wait: the
 * fill and RX rings, the receive half); the two touch nothing of each other's, so a sender
 * and a reader may share a socket (bidir).
 */
#ifndef NB_XDP_SOCK_H
#define NB_XDP_SOCK_H

#include <stdbool.h>
#include <stdint.h>

struct nb_error; /* the caller's error text (engine.h) */

#define NB_XSK_FRAMES 4096u       /* UMEM frames: half receive, half send */
#define NB_XSK_FRAME_SIZE 2048u   /* one frame: a 1500-byte MTU and headroom */
#define NB_XSK_RING 2048u         /* descriptors per ring */
#define NB_XSK_BATCH_MAX 256u     /* most frames one call hands over */

/** Zero-copy or not. */
enum nb_xsk_copy {
	NB_XSK_COPY_AUTO,       /* zero-copy where the driver has it, else copy */
	NB_XSK_ZEROCOPY,        /* zero-copy only: refuse where the driver has none */
	NB_XSK_COPY,            /* copy mode only */
};

struct nb_xsk_config {
	const char *ifname;
	uint32_t queue;
	uint32_t frames;        /* 0: NB_XSK_FRAMES (a power of two, at least 2 * ring) */
	uint32_t ring;          /* 0: NB_XSK_RING (a power of two) */
	enum nb_xsk_copy copy;
	uint32_t busy_poll_us;  /* 0: no busy polling */
	uint32_t busy_budget;   /* frames per busy poll; 0: 64 */
};

/** The socket's kernel counters (XDP_STATISTICS). */
struct nb_xsk_stats {
	uint64_t rx_dropped;            /* frames the kernel dropped for this socket */
	uint64_t rx_ring_full;          /* of which: the RX ring was full (the reader fell behind) */
	uint64_t rx_fill_empty;         /* no free frame in the fill ring */
	uint64_t rx_invalid;            /* bad descriptors */
	uint64_t tx_invalid;
	uint64_t tx_ring_empty;
};

struct nb_xsk;

/** Create the UMEM and the socket, bind it (zero-copy first unless told), fill the fill ring.
 *  False with err naming what is missing. */
bool nb_xsk_open(const struct nb_xsk_config *cfg, struct nb_xsk **out, struct nb_error *err);
/** Close and free; NULL is a no-op. */
void nb_xsk_close(struct nb_xsk *x);
/** The socket's file descriptor (for the XSKMAP and poll). */
int nb_xsk_fd(const struct nb_xsk *x);
/** True when bound in zero-copy mode. */
bool nb_xsk_zerocopy(const struct nb_xsk *x);
/** The queue it is bound to. */
uint32_t nb_xsk_queue(const struct nb_xsk *x);

/** Up to n (at most NB_XSK_BATCH_MAX) free frames of NB_XSK_FRAME_SIZE bytes to write,
 *  reserved on the TX ring, into frames[]; returns how many (0: the ring or the pool is full:
 *  completions are pending). */
uint32_t nb_xsk_tx_get(struct nb_xsk *x, uint8_t **frames, uint32_t n);
/** Send the first n frames nb_xsk_tx_get gave, of lens[i] bytes each (the rest go back to the
 *  pool unsent), and kick the kernel when it asks. False with err on a hard error (the
 *  interface went down); a busy device is not an error: the frames go at the next kick. */
bool nb_xsk_tx_send(struct nb_xsk *x, const uint32_t *lens, uint32_t n, struct nb_error *err);
/** Frames handed to the kernel and not yet completed. */
uint32_t nb_xsk_tx_pending(const struct nb_xsk *x);
/** Reclaim completions and kick the kernel if it asks: for the end of a run, until pending is 0. */
bool nb_xsk_tx_flush(struct nb_xsk *x, struct nb_error *err);

/** Up to n received frames into data[] and lens[] (pointers into the UMEM, valid until
 *  nb_xsk_rx_release); returns how many. */
uint32_t nb_xsk_rx_peek(struct nb_xsk *x, const uint8_t **data, uint32_t *lens, uint32_t n);
/** Give the n frames of the last peek back to the fill ring. */
void nb_xsk_rx_release(struct nb_xsk *x, uint32_t n);
/** Wait up to timeout_ms for a frame (poll; with busy polling, one non-blocking recvfrom that
 *  drives the queue). False with err on a hard error. */
bool nb_xsk_rx_wait(struct nb_xsk *x, int timeout_ms, struct nb_error *err);
/** Sleep ns without joining the socket's wait queue (so no frame's arrival wakes anyone: the
 *  sender's kernel path skips the wake-up), after giving the fill ring its frames and waking a
 *  driver that asks for it. */
bool nb_xsk_rx_nap(struct nb_xsk *x, uint64_t ns, struct nb_error *err);

/** The kernel's counters of the socket; false with err. */
bool nb_xsk_stats(const struct nb_xsk *x, struct nb_xsk_stats *s, struct nb_error *err);

#endif
