/* nbrun — the UDP test datagram header and the receiver's sequence accounting,
 * shared by the stream and pps engines.
 *
 * Every test datagram starts with a 24-byte header (big-endian): sequence
 * number (u64), the sender's CLOCK_MONOTONIC send time of that datagram (u64 ns),
 * a magic (u32) and the epoch it was sent in (u32, see epoch.h). The receiver
 * counts what it got against the sequence: a gap is counted lost at once and
 * taken back when the missing datagram arrives late (then it is a reorder); a
 * sequence number seen twice inside the last NB_SEQ_WINDOW is a duplicate; one
 * older than that cannot be told from a duplicate and counts late, touching
 * nothing else. Each distinct datagram is counted in its epoch (nb_epoch_count),
 * so a row's loss is exactly: datagrams sent in the interval − those of them received.
 * Jitter is RFC 3550's interarrival jitter: J += (|D| − J) / 16 with D the
 * change in transit time (receive time: the kernel's stamp of the datagram); the
 * clocks' offset cancels in D. Under GRO only the first datagram of a coalesced buffer has a
 * stamp of its own, so only it enters the jitter (udpgso.h).
 */
#ifndef NB_UDPSEQ_H
#define NB_UDPSEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#define NB_DGRAM_HDR 24u
#define NB_DGRAM_MAGIC 0x4e425544u /* "NBUD" */
#define NB_SEQ_WINDOW 4096u

/** Write the header into buf (at least NB_DGRAM_HDR bytes). */
void nb_dgram_put(unsigned char *buf, uint64_t seq, uint64_t send_ns, uint32_t epoch);

/** Receiver state of one flow (owned by the flow's thread). */
struct nb_seqrx {
	uint64_t next;                            /* highest sequence seen + 1 */
	uint64_t seen[NB_SEQ_WINDOW / 64];        /* bitmap of the last NB_SEQ_WINDOW sequences */
	uint32_t cur;                             /* the receiving end's epoch (nb_flow_enter) */
	bool have_transit;
	int64_t last_transit_ns;
	double jitter_ns;
};

/** Reset the receiver state. */
void nb_seqrx_init(struct nb_seqrx *r);
/** Account one received datagram of len bytes at recv_ns into f's counters; false if it is not a
 *  test datagram (wrong magic or too short), which is then ignored and not counted. recv_ns 0:
 *  the datagram has no receive time of its own (a later one of a GRO buffer): it counts in
 *  everything but the jitter. */
bool nb_seqrx_account(struct nb_seqrx *r, struct nb_flow *f, const unsigned char *buf, size_t len,
		      uint64_t recv_ns);

#endif
