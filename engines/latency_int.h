/* nbrun — the latency engine's window by due time, shared by its two files: latency.c runs the
 * flows, latency_window.c keeps each client flow's window behind f->priv (its flow_init op),
 * sets it, merges its round trips and makes the run's result from its counts. Internal to
 * those two files. */
#ifndef NB_LATENCY_INT_H
#define NB_LATENCY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/** A latency flow's own state: the run's window by due time and its round trips. */
struct nb_latency_flow {
	uint64_t win_start_ns, win_end_ns; /* [start, end) on CLOCK_MONOTONIC; 0, 0 = none */
	struct nb_hist *win_hist;          /* client: round-trip times of the window's messages */
};

static inline const struct nb_latency_flow *nb_latency_of(const struct nb_flow *f)
{
	return f->priv;
}

/** Whether a message due (ping-pong: sent) at due_ns belongs to the run's window. */
static inline bool nb_latency_in_window(const struct nb_flow *f, uint64_t due_ns)
{
	const struct nb_latency_flow *l = nb_latency_of(f);
	return due_ns >= l->win_start_ns && due_ns < l->win_end_ns;
}

/** The engine's ops over that state (latency_window.c; see engine.h). */
bool nb_latency_flow_init(struct nb_flow *f, struct nb_error *err);
void nb_latency_flow_fini(struct nb_flow *f);
void nb_latency_set_window(struct nb_flow *f, uint64_t start_ns, uint64_t end_ns);
void nb_latency_window_hist(const struct nb_flow *f, struct nb_hist *out);
void nb_latency_report_run(const struct nb_snapshot *lfinal, struct nb_metrics *out);

#endif
