/* nbrun — the columns of the shapes several engines share, as report ops (engine.h `report`):
 * each fills the columns of the flows [lo, hi) over the span (see report_shapes.c). */
#ifndef NB_REPORT_SHAPES_H
#define NB_REPORT_SHAPES_H

#include "engine.h"
#include "span.h"

/** stream, pps: bytes, packets and rates from each flow's sender and receiver; UDP loss, late,
 *  duplicates, reordering, jitter, pacing; TCP retransmits, cwnd, srtt; target and achieved. */
void nb_report_directional(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m);
/** rr, crr, latency, icmp, connect: the client's bytes, packets, transactions, UDP timeouts,
 *  connect time, target and achieved rate. */
void nb_report_round_trips(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m);

#endif
