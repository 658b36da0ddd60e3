/* nbrun — what the rr engine's two files share: rr.c (its table, the blocking flow bodies, crr)
 * rr_steps.c (TCP_RR and UDP_RR as non-blocking steps, flows over threads) and crr_steps.c
 * (TCP_CRR as steps). Internal. */
#ifndef NB_RR_INT_H
#define NB_RR_INT_H

#include <string.h>

#include "engine.h"
#include "flowloop.h"
#include "hist.h"
#include "sock.h"

#define NB_RR_SEQ_BYTES 4u           /* UDP_RR: the sequence number at the start of a datagram */
#define NB_RR_DEFAULT_TIMEOUT_MS 1000u /* UDP_RR: when the case gives no timeout */

static inline uint32_t nb_rr_timeout_ms(const struct nb_params *p)
{
	return p->timeout_ms ? p->timeout_ms : NB_RR_DEFAULT_TIMEOUT_MS;
}

/* One message sent (tx) or received, of bytes. */
static inline void nb_rr_count_io(struct nb_flow *f, bool tx, size_t bytes)
{
	nb_count(f, tx ? NB_C_TX_BYTES : NB_C_RX_BYTES, bytes);
	nb_count(f, tx ? NB_C_TX_PACKETS : NB_C_RX_PACKETS, 1);
}

/* The client's transaction begun at t0 is answered: its round trip and its count. */
static inline void nb_rr_transaction_done(struct nb_flow *f, uint64_t t0)
{
	if (f->hist)
		nb_hist_record(f->hist, nb_now_ns() - t0);
	nb_count(f, NB_C_TRANSACTIONS, 1);
}

static inline void nb_rr_seq_put(unsigned char *b, uint32_t seq)
{
	memcpy(b, &seq, NB_RR_SEQ_BYTES);
}

static inline uint32_t nb_rr_seq_get(const unsigned char *b)
{
	uint32_t seq;
	memcpy(&seq, b, NB_RR_SEQ_BYTES);
	return seq;
}

/** Whether a case runs as steps: `wait: block` only. */
bool nb_rr_steps_cover(const struct nb_params *p);
/** TCP_RR and UDP_RR as steps, `wait: block` only (spin and busy-poll are ways of waiting on
 *  one socket: they keep a thread per flow). */
extern const struct nb_flow_steps nb_rr_steps;
/** TCP_CRR as steps (crr_steps.c), `wait: block` only: a connection per transaction, its
 *  connect non-blocking. */
extern const struct nb_flow_steps nb_crr_steps;

#endif
