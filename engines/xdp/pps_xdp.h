/* nbrun — the pps engine's xdp datapath (`datapath: xdp`): its flows' frames on AF_XDP sockets
 * instead of the kernel's UDP sockets.
 *
 * The harness still makes and proves one connected UDP socket per flow (dataconn.h): that is
 * how both ends agree on the flows' 5-tuples and prove the run's key, and it keeps the
 * control side of a run as it is for the socket path. Once every flow of an end has its socket
 * (the engine's prepare_flows op, before any flow thread starts), the end opens one
 * nb_xdp_path (xdp_path.h) toward the peer: on the receiving end the XDP program redirects
 * exactly the receiving flows' local UDP ports and passes everything else (the control
 * connection, SSH, any other port); on the sending end the next hop's MAC is resolved. The
 * kernel's sockets then carry nothing more: every test datagram travels as a frame we build.
 *
 * Sending: the end's i-th sending flow sends on queue i (one AF_XDP socket per queue), with
 * udpflow.c's sender over a send op of its own: the same pacer and burst, the same udpseq
 * header (sequence, send time, the flow's keyed cookie, the epoch), the same counting of what
 * the ring refused as NB_C_SND_ERRS (back-pressure, never loss). So the receiver's loss,
 * duplicates, reordering and late counts are exact as on the socket path.
 * Receiving: one reader thread per queue: receiving flow k's thread reads queues k, k + nrx,
 * ... (all of them when one flow receives; more flows than queues: the extra ones' threads only
 * wait for the stop) and accounts each datagram into its flow by destination port, whichever
 * flow it is (a flow's frames may land on any queue: RSS). With several readers each flow has a
 * lock, held from its first frame of a reader's batch to the batch's end, so each flow's
 * counters keep one writer at a time; a reader never waits for a lock while holding another.
 * Before the first frame each receiving flow's thread reads what its kernel socket took before
 * the program was attached (the peer may start on START while this end attaches), and no
 * reader starts before all have: nothing is lost to the attach. The sockets' XDP_STATISTICS drops (our receiver fell behind) and what the flows'
 * kernel sockets dropped before the attach (SO_MEMINFO) are the receiving end's
 * NB_C_RCVBUF_DROPS, on its first receiving flow: so over the whole run, what the receiving
 * interface took of the test's frames is the end's received plus these drops, exactly.
 *
 * The row: every flow's NB_G_XDP gauge says its socket's mode and the queues (below), and the
 * runner writes it as facts of the row (`xdp=copy xdp_attach=driver xdp_queues=2
 * xdp_used=0,1 xdp_rx_threads=2`: the threads that read queues, NB_XDP_G_READER). The program leaves the interface with the path: at flow_fini, and with the
 * process on any exit (a BPF link, xdp_prog.h).
 *
 * bidir: an end both sends and receives. Its senders take queues 0, 1, ... in flow order (the
 * agent's send as flows N..2N-1), and a queue's socket then has two threads: the sender's on
 * its TX and completion rings and the send half of its UMEM, the reader's on its fill and RX
 * rings and the receive half; the halves share nothing (xdp_sock.h).
 */
#ifndef NB_PPS_XDP_H
#define NB_PPS_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* NB_G_XDP: bit 0 on the xdp datapath, bit 1 its socket is in copy mode (else zero-copy), bit 2
 * the end's program runs in the driver, bit 3 generic (a sending-only end has no program:
 * neither), bits 8..15 the end's queue count, bits 16..47 the queues (0..31) that carried this
 * flow's frames. Bits that say a weaker mode are set, so an OR over flows and ends says the
 * weakest (copy if any end copies). */
#define NB_XDP_G_ON 1u
#define NB_XDP_G_COPY 2u
#define NB_XDP_G_DRIVER 4u
#define NB_XDP_G_GENERIC 8u
#define NB_XDP_G_READER 16u /* this receiving flow's thread reads queues (one or more) */
#define NB_XDP_G_QUEUES(v) ((uint32_t)((v) >> 8) & 0xffu)
#define NB_XDP_G_USED(v) ((uint32_t)((v) >> 16))

/** Whether this build has the xdp datapath (libxdp, libbpf and clang at build time; a static
 *  build leaves it out). */
bool nb_pps_xdp_built(void);
/** What a build without it says: one line. */
const char *nb_pps_xdp_missing(void);
/** Parameters the xdp datapath cannot run (gso, a size beyond a UMEM frame); false with err. */
bool nb_pps_xdp_validate(const struct nb_params *p, struct nb_error *err);
/** flow_init: the flow's private state (its end is opened by nb_pps_xdp_prepare). */
bool nb_pps_xdp_flow_init(struct nb_flow *f, struct nb_error *err);
/** flow_fini: free it; the end's first flow closes the path (the program leaves). */
void nb_pps_xdp_flow_fini(struct nb_flow *f);
/** prepare_flows: open the end's path over the flows' sockets' addresses (see above). */
bool nb_pps_xdp_prepare(struct nb_flow *flows, uint32_t n, struct nb_error *err);
/** A flow's thread body. */
int nb_pps_xdp_flow(struct nb_flow *f);
/** kernel_counters: the receiving end's sockets' drops, on its first receiving flow. */
void nb_pps_xdp_kernel_counters(struct nb_flow *f);
/** Whether this host could run the xdp datapath toward peer (receiving and/or sending, at most
 *  senders flows at once: one per queue): what is missing into err, else what it found
 *  ("veth0 queues=1") into what. Changes nothing. */
bool nb_pps_xdp_check(const struct sockaddr *peer, socklen_t peer_len, bool rx, bool tx,
		      uint32_t senders, char *what, size_t n, struct nb_error *err);
/** The row's facts of a NB_G_XDP value (the flows' and ends' OR, the queue count their
 *  largest) and of readers (the flows with NB_XDP_G_READER: threads that read queues), as
 *  words into buf; nothing when g is 0. */
void nb_pps_xdp_facts(uint64_t g, uint32_t readers, char *buf, size_t n);

#endif
