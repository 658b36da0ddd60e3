/* nbrun — the metric columns shared by intervals.csv, runs.csv, summary.csv and results.json:
 * a value type of engines/, which engines fill (their report op) and reports/ read.
 *
 * One table names every metric once; writers, readers, statistics and charts
 * all iterate it, so a column cannot be written under one name and read under
 * another. A value of NAN means "not applicable" and is written as an empty cell.
 */
#ifndef NB_COLS_H
#define NB_COLS_H

#include <stddef.h>

enum nb_col {
	NB_COL_DURATION_S,
	NB_COL_TX_BYTES, NB_COL_RX_BYTES, NB_COL_TX_PACKETS, NB_COL_RX_PACKETS,
	NB_COL_TX_BPS, NB_COL_RX_BPS, NB_COL_TX_PPS, NB_COL_RX_PPS,
	NB_COL_LOST, NB_COL_LOSS_PCT, NB_COL_DUP, NB_COL_REORDER, NB_COL_LATE, NB_COL_FOREIGN,
	NB_COL_JITTER_US,
	NB_COL_SND_ERRS, NB_COL_RCVBUF_DROPS,
	NB_COL_RETRANS, NB_COL_CWND, NB_COL_SRTT_US,
	NB_COL_BYTES_RETRANS, NB_COL_MIN_RTT_US, /* RFC 6349: bytes sent again, baseline RTT */
	NB_COL_TRANS, NB_COL_TRANS_PER_S, NB_COL_TIMEOUTS, NB_COL_CONNECT_US, NB_COL_REFUSED,
	NB_COL_LAT_MEAN_US, NB_COL_LAT_STDDEV_US, NB_COL_LAT_MIN_US, NB_COL_LAT_P50_US,
	NB_COL_LAT_P90_US, NB_COL_LAT_P99_US, NB_COL_LAT_P999_US, NB_COL_LAT_P9999_US,
	NB_COL_LAT_MAX_US,
	NB_COL_TARGET_RATE, NB_COL_ACHIEVED_RATE, NB_COL_MAX_BURST, NB_COL_PACE_FORGIVEN,
	NB_COL_CPU_LOCAL_PCT, NB_COL_CPU_PEER_PCT, NB_COL_HOST_CPU_LOCAL_PCT, NB_COL_HOST_CPU_PEER_PCT,
	NB_COL_IF_LOCAL_RXPCK_S, NB_COL_IF_LOCAL_TXPCK_S, NB_COL_IF_LOCAL_RXKB_S, NB_COL_IF_LOCAL_TXKB_S,
	NB_COL_IF_LOCAL_RXDROP_S,
	NB_COL_IF_PEER_RXPCK_S, NB_COL_IF_PEER_TXPCK_S, NB_COL_IF_PEER_RXKB_S, NB_COL_IF_PEER_TXKB_S,
	NB_COL_IF_PEER_RXDROP_S,
	/* the busiest single flow thread of each role on each end, % of one core: a sum of threads
	 * (cpu_*_pct) says nothing of whether one of them hit a core's limit */
	NB_COL_CPU_LOCAL_TX_THREAD_PCT, NB_COL_CPU_LOCAL_RX_THREAD_PCT,
	NB_COL_CPU_PEER_TX_THREAD_PCT, NB_COL_CPU_PEER_RX_THREAD_PCT,
	NB_COL_HOST_STEAL_LOCAL_PCT, NB_COL_HOST_STEAL_PEER_PCT,
	/* the CPU cost of the headline: its units (bits, packets, transactions) per CPU-second of
	 * each end's engine threads; empty for a lower-is-better headline (latency) */
	NB_COL_LOCAL_PER_CPU_S, NB_COL_PEER_PER_CPU_S,
	/* scheduled senders (icmp, connect, latency under load): how far behind its schedule a
	 * request left, send time - due time, p99 and max; empty for an engine with no schedule */
	NB_COL_SCHED_LAG_P99_US, NB_COL_SCHED_LAG_MAX_US,
	/* bidir: each direction's own numbers (forward = client -> agent), NB_DIR_NCOLS each, in
	 * nb_dir_base order; empty for the other directions */
	NB_COL_FWD_TX_BPS, NB_COL_FWD_RX_BPS, NB_COL_FWD_TX_PPS, NB_COL_FWD_RX_PPS,
	NB_COL_FWD_TX_PACKETS, NB_COL_FWD_RX_PACKETS, NB_COL_FWD_LOST, NB_COL_FWD_LOSS_PCT,
	NB_COL_FWD_JITTER_US, NB_COL_FWD_SND_ERRS, NB_COL_FWD_RCVBUF_DROPS, NB_COL_FWD_RETRANS,
	NB_COL_FWD_TARGET_RATE, NB_COL_FWD_ACHIEVED_RATE,
	NB_COL_REV_TX_BPS, NB_COL_REV_RX_BPS, NB_COL_REV_TX_PPS, NB_COL_REV_RX_PPS,
	NB_COL_REV_TX_PACKETS, NB_COL_REV_RX_PACKETS, NB_COL_REV_LOST, NB_COL_REV_LOSS_PCT,
	NB_COL_REV_JITTER_US, NB_COL_REV_SND_ERRS, NB_COL_REV_RCVBUF_DROPS, NB_COL_REV_RETRANS,
	NB_COL_REV_TARGET_RATE, NB_COL_REV_ACHIEVED_RATE,
	/* the loss budget of a UDP case (runner/control/metrics_loss.c): the host counters' drops
	 * in the span at the sending end(s) and the receiving end(s), what is left of `lost` for
	 * the path, and by how much the parts exceed the loss (> 0: noisy, no path figure); then
	 * what the budget covers: an interval's is the interval's tx_packets, lost, snd_errs and
	 * rcvbuf_drops, the run's the whole test's (before the first send to after the drain) */
	NB_COL_LB_TX_QDISC, NB_COL_LB_TX_IF, NB_COL_LB_RX_IF, NB_COL_LB_RX_IP, NB_COL_LB_RX_UDP,
	NB_COL_LB_PATH, NB_COL_LB_EXCESS, NB_COL_LB_SENT, NB_COL_LB_LOST, NB_COL_LB_SND_ERRS,
	NB_COL_LB_RCVBUF,
	NB_COL_COUNT
};

/** Columns a bidir case also has per direction (fwd_NAME, rev_NAME). */
#define NB_DIR_NCOLS 14
/** The two directions of a bidir case, as its per-direction columns name them. */
enum nb_col_dir { NB_COL_DIR_FWD, NB_COL_DIR_REV };

/** The base column of each per-direction column, in enum order. */
extern const enum nb_col nb_dir_base[NB_DIR_NCOLS];
/** The per-direction column of base for direction d, or -1 when base has none. */
int nb_col_dir(enum nb_col base, enum nb_col_dir d);

/** Which direction of change is worse (for compare and pitfalls). */
enum nb_better { NB_BETTER_NONE, NB_BETTER_HIGHER, NB_BETTER_LOWER };

struct nb_col_def {
	const char *name;      /* CSV header, e.g. "rx_bps" */
	const char *unit;      /* "bit/s", "us", "%", "" ... */
	const char *label;     /* human label for reports, e.g. "Throughput (received)" */
	enum nb_better better;
};

/** The definition of every column, indexed by enum nb_col. */
extern const struct nb_col_def nb_cols[NB_COL_COUNT];

/** Column index by CSV name, or -1. */
int nb_col_find(const char *name);

/** The `path` of a run's (or interval's) result over all its paths: every single-path row, and
 *  the sum row of a multi-path run, whose per-path rows name their path ("local->HOST"). */
#define NB_PATH_ALL "all"

/** An engine's own columns at most (its columns table, engine.h). */
#define NB_OWN_COLS_MAX 4
/** Own columns of all registered engines together at most (the registry refuses more). */
#define NB_OWN_COLS_ALL_MAX 16

struct nb_engine;

/** A row of metric values; NAN = not applicable. */
struct nb_metrics {
	double v[NB_COL_COUNT];
	/* the own columns of engine own_of (its columns table, row i in own[i]); NULL = none:
	 * written after `path` in runs.csv and intervals.csv, not read back */
	double own[NB_OWN_COLS_MAX];
	const struct nb_engine *own_of;
};

/** Set every value to NAN, and own_of to NULL. */
void nb_metrics_clear(struct nb_metrics *m);

#endif
