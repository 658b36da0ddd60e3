/* nbrun — a log line that may come thousands of times a second (a wrong secret from every
 * address of a flood, connections refused for a full handshake table): at most `burst` lines
 * of it per interval are printed; the rest are counted, and each interval that held any ends
 * with one summary line of how many (nb_ratelog_flush). A flood that goes on is one summary
 * line per interval, and a quiet spell lets the next event through at once. Thread-safe: the
 * agent's connection threads take events while its acceptor flushes. */
#ifndef NB_RATELOG_H
#define NB_RATELOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct nb_ratelog {
	pthread_mutex_t lock;
	uint32_t burst;            /* lines printed per interval */
	uint64_t interval_ms;
	uint64_t start_ms;         /* the current interval began (nb_ctl_now_ms clock) */
	uint32_t shown;            /* lines printed in it */
	uint64_t held;             /* events of it counted, not printed */
};

/** At most burst lines per interval_ms. */
void nb_ratelog_init(struct nb_ratelog *r, uint32_t burst, uint64_t interval_ms, uint64_t now_ms);
/** Free the lock. */
void nb_ratelog_destroy(struct nb_ratelog *r);
/** One event now: true when its line is to be printed, false when it is only counted. */
bool nb_ratelog_take(struct nb_ratelog *r, uint64_t now_ms);
/** Once the current interval is over: how many events it held (0: nothing to say), and a new
 *  interval begins; until then 0. When it held some, the new interval prints none either (a
 *  flood that goes on is one summary line per interval). */
uint64_t nb_ratelog_flush(struct nb_ratelog *r, uint64_t now_ms);

#endif
