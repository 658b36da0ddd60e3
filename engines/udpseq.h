/* nbrun — the UDP test datagram header and the receiver's sequence accounting,
 * shared by the stream and pps engines.
 *
 * Every test datagram starts with a 28-byte header (big-endian): sequence
 * number (u64), the sender's CLOCK_MONOTONIC send time of that datagram (u64 ns),
 * the flow's cookie (8 bytes) and the epoch it was sent in (u32, see epoch.h). The
 * cookie is keyed (crypto_kdf of the run's data key and the flow: one constant per
 * run and flow, so it costs a store per datagram sent and a compare per datagram
 * received): someone who did not take part in the run's handshake cannot make a
 * datagram the receiver counts, even with the flow's own 4-tuple. A datagram
 * without it (someone else's, forged, or truncated) counts NB_C_FOREIGN and
 * touches nothing else; so does one whose sequence number is beyond what the
 * sender can have reached since the last one counted (twice the flow's rate over
 * the time since, plus 100 ms of it and the reorder window: a huge sequence
 * number from someone who saw a cookie on the path would otherwise count a
 * flood of losses). A data hello of the run (dhello.h: a late answer of the
 * return-path check) is neither. The receiver
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

#define NB_DGRAM_HDR 28u
#define NB_SEQ_WINDOW 4096u
#define NB_SEQ_PPS_CEILING 200000000.0 /* an unpaced flow's reach: 100 Gbit/s of the smallest datagrams */

/** The cookie of flow `flow` of the run whose data key is key: its 8 bytes as they go on the
 *  wire, held in a uint64_t (so that writing and checking one is one 8-byte store and load). */
uint64_t nb_dgram_cookie(const unsigned char key[NB_KEY_LEN], uint32_t flow);
/** Write the header into buf (at least NB_DGRAM_HDR bytes). */
void nb_dgram_put(unsigned char *buf, uint64_t seq, uint64_t send_ns, uint64_t cookie, uint32_t epoch);

/** Receiver state of one flow (owned by the flow's thread). */
struct nb_seqrx {
	uint64_t cookie;                          /* the flow's (nb_dgram_cookie) */
	const unsigned char *key;                 /* the run's data key (a late data hello is ours) */
	double reach_pps;                         /* datagrams/s the sender can send (nb_seqrx_set_rate) */
	uint64_t last_ns;                         /* when the last datagram counted arrived */
	uint64_t next;                            /* highest sequence seen + 1 */
	uint64_t seen[NB_SEQ_WINDOW / 64];        /* bitmap of the last NB_SEQ_WINDOW sequences */
	uint32_t cur;                             /* the receiving end's epoch (nb_flow_enter) */
	bool have_transit;
	int64_t last_transit_ns;
	double jitter_ns;
};

/** Reset the receiver state of flow f (its cookie, an unpaced sender's reach, the time now). */
void nb_seqrx_init(struct nb_seqrx *r, const struct nb_flow *f);
/** The sender's rate, datagrams/s (0: unpaced): how far ahead a sequence number may be. */
void nb_seqrx_set_rate(struct nb_seqrx *r, double pps);
/** Account one received datagram of len bytes at recv_ns into f's counters; false if it is not a
 *  test datagram of this flow (no cookie, too short, or out of the sender's reach), which then
 *  counts NB_C_FOREIGN only. recv_ns 0: the datagram has no receive time of its own (a later
 *  one of a GRO buffer): it counts in everything but the jitter. */
bool nb_seqrx_account(struct nb_seqrx *r, struct nb_flow *f, const unsigned char *buf, size_t len,
		      uint64_t recv_ns);

#endif
