/* nbrun — an agent's clock against ours, over its control connection.
 *
 * The client sends TIME with t1 (its CLOCK_REALTIME); the agent stamps t2 when the request
 * arrives and t3 when it answers; the client stamps t4 when the answer arrives. As in NTP:
 * round trip = (t4 - t1) - (t3 - t2), offset = ((t2 - t1) + (t3 - t4)) / 2, the agent's clock
 * minus ours, true within half the round trip. Of several exchanges the one with the shortest
 * round trip is kept (the least queueing, the tightest bound). The offset says how far apart
 * the ends' own timestamps are; the paths of a case do not need it to start together (each
 * path's ticks run from this host's one clock, and an agent's from its own START). */
#ifndef NB_CLOCK_H
#define NB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_error.h"

struct nb_ctl;

#define NB_CLOCK_ROUNDS 8

struct nb_clock {
	bool known;          /* measured */
	int64_t offset_ns;   /* the agent's clock minus ours */
	uint64_t rtt_ns;     /* the control connection's round trip (the exchange kept) */
};

/** CLOCK_REALTIME in ns. */
uint64_t nb_clock_now(void);
/** One exchange's offset and round trip from its four stamps. */
void nb_clock_calc(uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4, int64_t *offset_ns,
		   uint64_t *rtt_ns);
/** rounds TIME exchanges on control connection c (between tests); the tightest into out. */
bool nb_clock_measure(struct nb_ctl *c, uint32_t rounds, struct nb_clock *out, struct nb_error *err);

#endif
