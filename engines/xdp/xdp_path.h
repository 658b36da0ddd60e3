/* nbrun — the AF_XDP data path of one end: the interface toward the peer, the XDP program (on
 * a receiving end), one AF_XDP socket per queue, and the flows' frames on them.
 *
 * This is the whole of the data path that does not depend on the harness; pps' `datapath: xdp`
 * (pps_xdp.h) uses it so:
 *   - each end opens one nb_xdp_path per case (before its flow threads start: prepare), with
 *     the peer's address, the case's data ports as the receive range, rx and/or tx as the
 *     direction says; nb_xdp_path_describe gives the row's `xdp=zerocopy|copy`, driver or
 *     generic, and the queue count;
 *   - a sending flow sends on queue (flow index) with its frame template (nb_xdp_tx_init);
 *     nb_xdp_tx_step sends for a caller without udpflow.c (nb_xdp_tool), the engine sends
 *     through udpflow.c's sender with a send op of its own (the same pacer and burst);
 *   - a receiving end runs nb_xdp_rx_step over every queue (one reader thread per queue, or
 *     a reader for several), which demultiplexes by destination port into each flow's counters with the socket path's own accounting
 *     (nb_seqrx_account, epochs), so loss, duplicates, reordering and late stay exact;
 *   - a receiving socket's XDP_STATISTICS drops (rx_dropped + rx_ring_full, nb_xsk_stats) are
 *     the xdp path's NB_C_RCVBUF_DROPS: frames our own receiver was too slow for, read at every
 *     tick by the engine's kernel_counters op (per queue: exact per flow when each flow has
 *     its queue);
 *   - the path is closed after the drain; the program leaves the interface with it (and with
 *     the process, whatever ends it).
 * Memory: each socket has its own UMEM, NB_XSK_FRAMES x NB_XSK_FRAME_SIZE (8 MiB), so an end
 * with many queues wants cfg.queues limited to the queues its flows use.
 * Threads: a queue's nb_xdp_tx is one thread's, its nb_xdp_rx one thread's (the same or
 * another: the socket's send and receive halves share nothing, xdp_sock.h).
 *
 * Receive times: AF_XDP in copy mode gives no per-frame kernel timestamp, so the datagrams are
 * accounted without one (nb_seqrx_account's recv_ns 0): the xdp path has no jitter to report,
 * and its jitter column must stay empty, not 0.
 */
#ifndef NB_XDP_PATH_H
#define NB_XDP_PATH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "udpseq.h"
#include "xdp_frame.h"
#include "xdp_neigh.h"
#include "xdp_prog.h"
#include "xdp_sock.h"

/** What one end opens. */
struct nb_xdp_path_config {
	const struct sockaddr *peer;    /* the peer's address (IPv4 or IPv6) */
	socklen_t peer_len;
	bool rx, tx;                    /* this end receives (program, fill ring) / sends (MAC) */
	uint16_t port_lo, port_hi;      /* rx: the UDP destination ports of the test's flows */
	const uint16_t *ports;          /* rx, optional: exactly these ports of the range */
	uint32_t nports;
	enum nb_xdp_mode mode;
	enum nb_xdp_attach attach;
	enum nb_xsk_copy copy;
	uint32_t queues;                /* sockets on queues 0..queues-1; 0: every queue */
	uint32_t busy_poll_us;          /* 0: none */
	int resolve_ms;                 /* how long the next hop's MAC may take; 0: 3000 */
};

struct nb_xdp_path;

/** Find the interface, resolve the next hop (tx), attach the program (rx), open the sockets.
 *  False with err naming what is missing; nothing is left attached then. */
bool nb_xdp_path_open(const struct nb_xdp_path_config *cfg, struct nb_xdp_path **out,
		      struct nb_error *err);
/** Whether this end could open cfg's path, changing nothing on the interface: the route and
 *  interface (up, Ethernet), the next hop's MAC already known or resolvable (tx), that the
 *  program loads (rx: CAP_BPF, CAP_NET_ADMIN) and that an AF_XDP socket can be made
 *  (CAP_NET_RAW). Attaching is left to the run: on some NICs it resets the link. On success
 *  what says what was found ("veth0 queues=1"). False with err naming what is missing. */
bool nb_xdp_path_check(const struct nb_xdp_path_config *cfg, char *what, size_t n,
		       struct nb_error *err);
/** Close the sockets and detach the program; NULL is a no-op. */
void nb_xdp_path_close(struct nb_xdp_path *p);
/** The number of queues with a socket. */
uint32_t nb_xdp_path_queues(const struct nb_xdp_path *p);
/** The socket of queue q (< nb_xdp_path_queues). */
struct nb_xsk *nb_xdp_path_sock(struct nb_xdp_path *p, uint32_t q);
/** The interface and addresses. */
const struct nb_xdp_hop *nb_xdp_path_hop(const struct nb_xdp_path *p);
/** Whether every socket is zero-copy. */
bool nb_xdp_path_zerocopy(const struct nb_xdp_path *p);
/** The program (NULL on an end that only sends). */
const struct nb_xdp_prog *nb_xdp_path_prog(const struct nb_xdp_path *p);
/** One line for the row's flags and logs: "xdp=copy driver veth0 queues=1" (a sending-only end
 *  says "tx-only" for the mode). */
void nb_xdp_path_describe(const struct nb_xdp_path *p, char *buf, size_t n);

/** A sending flow on one queue: the udpseq header in every frame, as the socket path. */
struct nb_xdp_tx {
	struct nb_flow *f;
	struct nb_xsk *x;
	struct nb_frame_tmpl tmpl;
	uint64_t seq;                   /* the next datagram's sequence number */
	uint64_t cookie;                /* the flow's keyed cookie (udpseq.h), in every datagram */
};

/** Lay out flow f's frames from src_port to the peer's dst_port with size bytes of payload
 *  (at least NB_DGRAM_HDR), on queue q. False with err. */
bool nb_xdp_tx_init(struct nb_xdp_tx *t, struct nb_xdp_path *p, uint32_t q, struct nb_flow *f,
		    uint16_t src_port, uint16_t dst_port, uint32_t size, struct nb_error *err);
/** Stamp (sequence, send time, epoch), build and send up to n frames inside one epoch, and count
 *  them (NB_C_TX_PACKETS, NB_C_TX_BYTES of payload, the epoch's slot). Returns how many went
 *  (0: the ring is full: NB_C_SND_ERRS + 1, never loss), or -1 with f->err set. */
int nb_xdp_tx_step(struct nb_xdp_tx *t, uint32_t n);
/** After the last step: kick until the kernel completed every frame or timeout_ms passed. */
bool nb_xdp_tx_drain(struct nb_xdp_tx *t, int timeout_ms);

/** The receiving flows of one queue: flows[i] receives on port port_lo + i. Several queues'
 *  readers (threads) may share one array: each flow then has a lock, which a reader holds from
 *  the first of the flow's frames in its batch to the batch's end (with the flow's
 *  nb_flow_enter), so a flow's accounting and counters keep one writer at a time. */
struct nb_xdp_rxflow {
	struct nb_flow *f;              /* NULL: no flow on that port */
	struct nb_seqrx seq;
	bool entered;                   /* one reader (held NULL): inside the batch's nb_flow_enter */
	pthread_mutex_t *lock;          /* shared by several readers; NULL: one reader */
};

struct nb_xdp_rx {
	struct nb_xsk *x;
	uint16_t port_lo;
	uint32_t nflows;
	struct nb_xdp_rxflow *flows;
	const uint16_t *slot;           /* optional: port - port_lo -> flows[] index + 1 (0: none),
					   for flows on ports far apart; NULL: flows[port - port_lo] */
	uint32_t nslots;                /* slot's entries */
	bool *held;                     /* shared flows: this reader's "inside the flow's
					   nb_flow_enter and lock" (nflows); NULL: flows[i].entered */
	bool check_udp;                 /* verify every UDP checksum (a bad one is not counted) */
	uint32_t spin_us;               /* wait: spin: an empty ring is looked at again, with no
					   syscall, until this long after its last frame; 0: the
					   reader sleeps at once */
	bool nap;                       /* while frames flow, an empty ring is slept on with a
					   timer, not on the socket's wait queue (see nb_xdp_rx_step) */
	bool flowing;                   /* the last look at the ring found frames */
	uint64_t last_ns;               /* when the ring was found empty after its last frames
					   (no clock read per batch) */
	uint64_t nap_at, nap_frames;    /* the last nap's time and frames, the rate's estimate */
	uint64_t frames;                /* frames this queue's socket received */
	uint64_t rejected[NB_FRAME_BAD_UDP + 1]; /* frames the socket got that are not test
						    datagrams, by verdict; [NB_FRAME_OK]: a port
						    with no flow, or no udpseq header */
};

/** Receive one batch on r's queue and account each test datagram into its flow. An empty ring
 *  (timeout_ms > 0) is looked at again at once while spin_us says so; then, with nap and the
 *  ring found empty after frames in the last 10 ms, slept on for the time a quarter of the ring takes to fill at the rate
 *  seen (20..200 us); else waited on in poll up to timeout_ms. Returns how many frames arrived,
 *  or -1 with err set. */
int nb_xdp_rx_step(struct nb_xdp_rx *r, int timeout_ms, struct nb_error *err);

#endif
