/* nbrun — a log line per event at first, then a count: what an agent says of clients it
 * refuses. Anyone can knock on a public agent thousands of times a second; a line per knock
 * would fill a disk and bury the lines that matter. So each window (window_ms) says its first
 * `burst` events in full and only counts the rest; once the window is over, the count is said
 * in one line ("and 312 more in the last 60 s"). One nb_ratelog per kind of event; thread-safe.
 * The clock is the caller's (milliseconds), so a test can drive it. */
#ifndef NB_RATELOG_H
#define NB_RATELOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct nb_ratelog {
	uint32_t burst;           /* events said in full per window */
	uint64_t window_ms;
	uint64_t start_ms;        /* the current window's start (0: none yet) */
	uint32_t said, held;      /* events of the current window said in full, and counted */
	pthread_mutex_t lock;
};

/** Ready r: burst lines in full per window_ms, then counts. */
void nb_ratelog_init(struct nb_ratelog *r, uint32_t burst, uint64_t window_ms);
/** Free what r holds. */
void nb_ratelog_finish(struct nb_ratelog *r);
/** An event at now_ms: true when it is to be said in full, false when it was counted. */
bool nb_ratelog_event(struct nb_ratelog *r, uint64_t now_ms);
/** Whether a window that counted events is over at now_ms (or, with now_ms UINT64_MAX, any
 *  count at all: at the end); then *held gets the count, *window_ms its window, and the count
 *  starts again. Call it before nb_ratelog_event and now and then (the summary's line). */
bool nb_ratelog_due(struct nb_ratelog *r, uint64_t now_ms, uint32_t *held, uint64_t *window_ms);

#endif
