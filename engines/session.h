/* nbrun — the data-plane harness: sets up one connection per flow, runs one
 * thread per flow (or, for an engine with steps, `threads` threads each driving a block of the
 * flows: flowloop.h), and exposes cumulative counters for the runner to sample.
 *
 * Server (agent):  nb_session_listen -> (tell the client the port) -> nb_session_accept
 *                  -> nb_session_start -> ... -> nb_session_stop -> nb_session_destroy
 * Client:          nb_session_connect -> nb_session_start -> ... -> nb_session_stop
 *
 * Every data connection proves the run's key and comes from the client's host; a UDP flow
 * proves its return path before the agent sends it anything (dataconn.h, dhello.h).
 */
#ifndef NB_SESSION_H
#define NB_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "lossstats.h"

struct nb_session;

/** One side's cumulative counters of every flow at one instant. */
struct nb_flow_snap {
	uint64_t c[NB_C_COUNT];
	uint64_t g[NB_G_COUNT];
	uint64_t own[NB_OWN_COUNTERS_MAX];    /* the engine's own counters; the client's only: the
						 wire does not carry them (engine.h counters) */
	bool sends;
	uint64_t cpu_ns;                      /* CPU time of this flow's thread (user + system);
						 a thread of several flows: its first flow's */
};

struct nb_snapshot {
	uint64_t t_ns;                        /* CLOCK_MONOTONIC when taken */
	uint64_t engine_cpu_ns;               /* CPU time of all flow threads (user + system) */
	uint64_t host_busy_ticks;             /* /proc/stat: all CPUs, non-idle, steal not included */
	uint64_t host_steal_ticks;            /* /proc/stat: all CPUs, stolen by the hypervisor */
	uint64_t host_total_ticks;            /* /proc/stat: all CPUs, all states */
	bool has_if;                          /* interface counters below are valid (nb_ifstats_fill_snapshot) */
	uint64_t if_stats[5];                 /* rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped */
	uint32_t nflows;
	struct nb_flow_snap flow[NB_MAX_FLOWS];
	struct nb_hist *hist;                 /* merged RTT histogram of all flows, or NULL */
	struct nb_hist *lag;                  /* the flows' schedule lag (send time - due
						 time, schedule.h) merged; never on the wire */
	bool has_loss;                        /* the loss budget's counters below were read */
	uint32_t loss_ok;                     /* bit i: loss[i] could be read (lossstats.h) */
	uint64_t loss[NB_L_COUNT];            /* the host's drop counters, enum nb_loss_counter */
};

/** Whether any of s's flows records its schedule lag (a paced sender of this end,
 *  nb_case_records_lag): its snapshots then want a lag histogram. */
bool nb_session_records_lag(const struct nb_session *s);
/** Allocate a snapshot (with the RTT and lag histograms when with_hist); NULL on out of memory. */
struct nb_snapshot *nb_snapshot_create(bool with_hist);
/** Allocate a snapshot with the RTT histogram when with_hist, the lag histogram when with_lag
 *  (a paced sender's schedule lag: nb_case_records_lag). */
struct nb_snapshot *nb_snapshot_create_with(bool with_hist, bool with_lag);
/** A copy of s, its histogram too (NULL for NULL or on out of memory). */
struct nb_snapshot *nb_snapshot_dup(const struct nb_snapshot *s);
/** Free; NULL is a no-op. */
void nb_snapshot_destroy(struct nb_snapshot *s);

/** Server: bind a data port in [port_lo, port_hi] (0,0 = ephemeral) on bind_addr; fills *port.
 *  Data connections are taken from peer's host only (the authenticated control peer); a peer
 *  of family AF_UNSPEC takes them from any host that proves the run's key (the sender is
 *  another agent, on its client's authenticated request). */
struct nb_session *nb_session_listen(const struct nb_engine *e, const struct nb_params *p,
				     const struct sockaddr *bind_addr, socklen_t bind_len,
				     const struct sockaddr *peer, socklen_t peer_len, uint16_t port_lo,
				     uint16_t port_hi, uint16_t *port, struct nb_error *err);
/** Server: wait until every flow has connected and said hello (or timeout_ms passes). */
bool nb_session_accept(struct nb_session *s, int timeout_ms, struct nb_error *err);
/** Server, after accept: the address the data came from (flow 0's peer: with a listener that
 *  takes any host proving the key, the sender, which may not be the control peer). False
 *  before accept and for engines that connect per transaction. */
bool nb_session_data_peer(const struct nb_session *s, struct sockaddr_storage *out, socklen_t *len);
/** Client: connect every flow to peer:port and say hello. */
struct nb_session *nb_session_connect(const struct nb_engine *e, const struct nb_params *p,
				      const struct sockaddr *peer, socklen_t peer_len, uint16_t port,
				      int timeout_ms, struct nb_error *err);
/** Start the flow threads: one per flow, or nb_flow_threads of them (flowloop.h). */
bool nb_session_start(struct nb_session *s, struct nb_error *err);
/** Before nb_session_start: receivers settle epoch e at their tick e + lag (clamped to
 *  1 .. NB_EPOCH_LAG_MAX; 1 without this call). Both ends of a run use the same lag. */
void nb_session_set_lag(struct nb_session *s, uint32_t lag);
/** Client, before nb_session_start: the run's window [start_ns, end_ns) on CLOCK_MONOTONIC, for
 *  engines that count it by due time (their set_window op; nothing for the others). */
void nb_session_set_window(struct nb_session *s, uint64_t start_ns, uint64_t end_ns);
/** Open `epoch` at this end's tick (epoch k + 1 at tick k): senders tag what they send next with
 *  it; once no flow is still counting a batch of an older epoch, the senders' epochs below it
 *  and the receivers' below epoch - lag are settled (engine.h, epoch.h), so a reading right
 *  after is exact. */
void nb_session_tick(struct nb_session *s, uint32_t epoch);
/** Read every flow's cumulative counters now (and, through the engine, the kernel's). */
void nb_session_snapshot(struct nb_session *s, struct nb_snapshot *out);
/** The window's RTT histogram of all flows (engines with a window_hist op) into out. */
void nb_session_window_hist(struct nb_session *s, struct nb_hist *out);
/** Ask the senders to stop sending (receivers keep counting until nb_session_stop). */
void nb_session_quiesce(struct nb_session *s);
/** The end of a run, once both ends closed their last tick: senders stop, receivers count on for
 *  drain_ns (the ticks after it settle what arrived). */
void nb_session_drain(struct nb_session *s, uint64_t drain_ns);
/** Stop every flow and join its thread; returns false with the first flow error, if any. */
bool nb_session_stop(struct nb_session *s, struct nb_error *err);
/** Close every socket and free; NULL is a no-op. */
void nb_session_destroy(struct nb_session *s);
/** Number of flows. */
uint32_t nb_session_nflows(const struct nb_session *s);

#endif
