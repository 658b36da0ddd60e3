/* nbrun — epochs: which interval a datagram belongs to, on both ends (see engine.h).
 *
 * The sender tags each datagram with the epoch it is sent in and counts it in that epoch's
 * slot once the kernel took it; the receiver counts each distinct datagram in its epoch's slot.
 * The tick that opens epoch e first waits out a batch that read an older epoch (nb_epoch_quiet),
 * then settles: a sender adds every epoch below e to NB_C_TX_SETTLED, a receiver every epoch
 * below e - lag to NB_C_RX_SETTLED and closes them (a datagram of a settled epoch counts
 * NB_C_LATE instead). A receiver keeps an epoch open for `lag` more ticks because what was
 * sent just before the sender's tick is still on its way and the two ends' ticks are a
 * control one-way delay apart; the runner makes lag ticks span the drain (500 ms for UDP), so
 * "late" means later than the drain would have waited at the end of the run. The slots hold
 * epochs e - lag .. e + NB_EPOCH_SLOTS - lag - 2: a sender may run that far ahead of its
 * receiver's clock (62 intervals at lag 1); further counts late too. Batches that read the new
 * epoch may run while the tick reads: they only touch its slot, which no settled count includes.
 */
#ifndef NB_EPOCH_H
#define NB_EPOCH_H

#include <stdint.h>

#include "engine.h"

/** Sender, between nb_flow_enter (which gave ep) and nb_flow_leave: n datagrams of ep left. */
void nb_epoch_sent(struct nb_flow *f, uint32_t ep, uint64_t n);
/** Receiver, between nb_flow_enter (which gave cur) and nb_flow_leave: one distinct datagram of
 *  epoch ep arrived. Counts it in ep's slot, or NB_C_LATE when ep is settled or out of reach. */
void nb_epoch_count(struct nb_flow *f, uint32_t ep, uint32_t cur);
/** Harness: wait until the flow is not inside a batch that may have read an older epoch. */
void nb_epoch_quiet(struct nb_flow *f);
/** Harness, after nb_epoch_quiet at the tick that opened `epoch`: settle what can be (above). */
void nb_epoch_settle(struct nb_flow *f, uint32_t epoch);

#endif
