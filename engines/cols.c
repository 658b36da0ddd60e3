#include "cols.h"

#include <math.h>
#include <string.h>

#define COL(id, n, u, l, b) [id] = { .name = n, .unit = u, .label = l, .better = b }
#define HI NB_BETTER_HIGHER
#define LO NB_BETTER_LOWER
#define NO NB_BETTER_NONE

const struct nb_col_def nb_cols[NB_COL_COUNT] = {
	COL(NB_COL_DURATION_S, "duration_s", "s", "Measured time", NO),
	COL(NB_COL_TX_BYTES, "tx_bytes", "B", "Bytes sent", NO),
	COL(NB_COL_RX_BYTES, "rx_bytes", "B", "Bytes received", NO),
	COL(NB_COL_TX_PACKETS, "tx_packets", "", "Packets sent", NO),
	COL(NB_COL_RX_PACKETS, "rx_packets", "", "Packets received", NO),
	COL(NB_COL_TX_BPS, "tx_bps", "bit/s", "Send rate", HI),
	COL(NB_COL_RX_BPS, "rx_bps", "bit/s", "Throughput (received)", HI),
	COL(NB_COL_TX_PPS, "tx_pps", "pkt/s", "Packets sent per second", HI),
	COL(NB_COL_RX_PPS, "rx_pps", "pkt/s", "Packets received per second", HI),
	COL(NB_COL_LOST, "lost", "", "Datagrams lost", LO),
	COL(NB_COL_LOSS_PCT, "loss_pct", "%", "Loss", LO),
	COL(NB_COL_DUP, "dup", "", "Duplicates", LO),
	COL(NB_COL_REORDER, "reorder", "", "Out of order", LO),
	COL(NB_COL_LATE, "late", "", "Too late to count (after its interval, or to tell from a duplicate)", LO),
	COL(NB_COL_FOREIGN, "foreign", "", "Datagrams not of the run (no run cookie, or out of the sender's reach)", LO),
	COL(NB_COL_JITTER_US, "jitter_us", "us", "Jitter (RFC 3550)", LO),
	COL(NB_COL_SND_ERRS, "snd_errs", "", "Send back-pressure (ENOBUFS)", LO),
	COL(NB_COL_RCVBUF_DROPS, "rcvbuf_drops", "", "Receiver socket-buffer drops", LO),
	COL(NB_COL_RETRANS, "retrans", "", "TCP retransmits", LO),
	COL(NB_COL_CWND, "cwnd", "seg", "TCP cwnd", NO),
	COL(NB_COL_SRTT_US, "srtt_us", "us", "TCP smoothed RTT", LO),
	COL(NB_COL_BYTES_RETRANS, "bytes_retrans", "B", "TCP bytes retransmitted", LO),
	COL(NB_COL_MIN_RTT_US, "min_rtt_us", "us", "TCP lowest RTT (baseline)", LO),
	COL(NB_COL_TRANS, "trans", "", "Transactions", NO),
	COL(NB_COL_TRANS_PER_S, "trans_per_s", "trans/s", "Transactions per second", HI),
	COL(NB_COL_TIMEOUTS, "timeouts", "", "Timeouts", LO),
	COL(NB_COL_CONNECT_US, "connect_us", "us", "Connect time (mean)", LO),
	COL(NB_COL_REFUSED, "refused", "", "Connection attempts refused (RST)", LO),
	COL(NB_COL_LAT_MEAN_US, "lat_mean_us", "us", "Latency mean", LO),
	COL(NB_COL_LAT_STDDEV_US, "lat_stddev_us", "us", "Latency stddev", LO),
	COL(NB_COL_LAT_MIN_US, "lat_min_us", "us", "Latency min", LO),
	COL(NB_COL_LAT_P50_US, "lat_p50_us", "us", "Latency p50", LO),
	COL(NB_COL_LAT_P90_US, "lat_p90_us", "us", "Latency p90", LO),
	COL(NB_COL_LAT_P99_US, "lat_p99_us", "us", "Latency p99", LO),
	COL(NB_COL_LAT_P999_US, "lat_p999_us", "us", "Latency p99.9", LO),
	COL(NB_COL_LAT_P9999_US, "lat_p9999_us", "us", "Latency p99.99", LO),
	COL(NB_COL_LAT_MAX_US, "lat_max_us", "us", "Latency max", LO),
	COL(NB_COL_TARGET_RATE, "target_rate", "", "Target rate (engine unit)", NO),
	COL(NB_COL_ACHIEVED_RATE, "achieved_rate", "", "Achieved send rate (engine unit)", NO),
	COL(NB_COL_MAX_BURST, "max_burst", "pkt", "Largest pacer burst", NO),
	COL(NB_COL_PACE_FORGIVEN, "pace_forgiven", "pkt", "Send times the pacer forgave (sender late)", NO),
	COL(NB_COL_CPU_LOCAL_PCT, "cpu_local_pct", "%", "Engine CPU, client (% of one core)", LO),
	COL(NB_COL_CPU_PEER_PCT, "cpu_peer_pct", "%", "Engine CPU, agent (% of one core)", LO),
	COL(NB_COL_HOST_CPU_LOCAL_PCT, "host_cpu_local_pct", "%", "Host CPU busy, client", LO),
	COL(NB_COL_HOST_CPU_PEER_PCT, "host_cpu_peer_pct", "%", "Host CPU busy, agent", LO),
	COL(NB_COL_IF_LOCAL_RXPCK_S, "if_local_rxpck_s", "pkt/s", "Interface rxpck/s, client", NO),
	COL(NB_COL_IF_LOCAL_TXPCK_S, "if_local_txpck_s", "pkt/s", "Interface txpck/s, client", NO),
	COL(NB_COL_IF_LOCAL_RXKB_S, "if_local_rxkB_s", "kB/s", "Interface rxkB/s (sar's kB = 1024 B), client", NO),
	COL(NB_COL_IF_LOCAL_TXKB_S, "if_local_txkB_s", "kB/s", "Interface txkB/s (sar's kB = 1024 B), client", NO),
	COL(NB_COL_IF_LOCAL_RXDROP_S, "if_local_rxdrop_s", "pkt/s", "Interface rx drops/s, client", LO),
	COL(NB_COL_IF_PEER_RXPCK_S, "if_peer_rxpck_s", "pkt/s", "Interface rxpck/s, agent", NO),
	COL(NB_COL_IF_PEER_TXPCK_S, "if_peer_txpck_s", "pkt/s", "Interface txpck/s, agent", NO),
	COL(NB_COL_IF_PEER_RXKB_S, "if_peer_rxkB_s", "kB/s", "Interface rxkB/s (sar's kB = 1024 B), agent", NO),
	COL(NB_COL_IF_PEER_TXKB_S, "if_peer_txkB_s", "kB/s", "Interface txkB/s (sar's kB = 1024 B), agent", NO),
	COL(NB_COL_IF_PEER_RXDROP_S, "if_peer_rxdrop_s", "pkt/s", "Interface rx drops/s, agent", LO),
	COL(NB_COL_CPU_LOCAL_TX_THREAD_PCT, "cpu_local_tx_thread_pct", "%",
	    "Busiest sender/requester thread, client (% of one core)", LO),
	COL(NB_COL_CPU_LOCAL_RX_THREAD_PCT, "cpu_local_rx_thread_pct", "%",
	    "Busiest receiver/responder thread, client (% of one core)", LO),
	COL(NB_COL_CPU_PEER_TX_THREAD_PCT, "cpu_peer_tx_thread_pct", "%",
	    "Busiest sender/requester thread, agent (% of one core)", LO),
	COL(NB_COL_CPU_PEER_RX_THREAD_PCT, "cpu_peer_rx_thread_pct", "%",
	    "Busiest receiver/responder thread, agent (% of one core)", LO),
	COL(NB_COL_HOST_STEAL_LOCAL_PCT, "host_steal_local_pct", "%", "Host CPU stolen by the hypervisor, client", LO),
	COL(NB_COL_HOST_STEAL_PEER_PCT, "host_steal_peer_pct", "%", "Host CPU stolen by the hypervisor, agent", LO),
	COL(NB_COL_LOCAL_PER_CPU_S, "local_per_cpu_s", "/cpu-s", "Headline per CPU-second of the client's engine threads", HI),
	COL(NB_COL_PEER_PER_CPU_S, "peer_per_cpu_s", "/cpu-s", "Headline per CPU-second of the agent's engine threads", HI),
	COL(NB_COL_SCHED_LAG_P99_US, "sched_lag_p99_us", "us", "Schedule lag p99 (send time - due time)", LO),
	COL(NB_COL_SCHED_LAG_MAX_US, "sched_lag_max_us", "us", "Schedule lag max (send time - due time)", LO),
#define FWD_SFX ", forward (client to agent)"
#define REV_SFX ", reverse (agent to client)"
#define DIRCOLS(D, pre, sfx)                                                                       \
	COL(NB_COL_##D##_TX_BPS, pre "tx_bps", "bit/s", "Send rate" sfx, HI),                      \
	COL(NB_COL_##D##_RX_BPS, pre "rx_bps", "bit/s", "Throughput (received)" sfx, HI),          \
	COL(NB_COL_##D##_TX_PPS, pre "tx_pps", "pkt/s", "Packets sent per second" sfx, HI),        \
	COL(NB_COL_##D##_RX_PPS, pre "rx_pps", "pkt/s", "Packets received per second" sfx, HI),    \
	COL(NB_COL_##D##_TX_PACKETS, pre "tx_packets", "", "Packets sent" sfx, NO),                \
	COL(NB_COL_##D##_RX_PACKETS, pre "rx_packets", "", "Packets received" sfx, NO),            \
	COL(NB_COL_##D##_LOST, pre "lost", "", "Datagrams lost" sfx, LO),                          \
	COL(NB_COL_##D##_LOSS_PCT, pre "loss_pct", "%", "Loss" sfx, LO),                           \
	COL(NB_COL_##D##_JITTER_US, pre "jitter_us", "us", "Jitter (RFC 3550)" sfx, LO),           \
	COL(NB_COL_##D##_SND_ERRS, pre "snd_errs", "", "Send back-pressure (ENOBUFS)" sfx, LO),     \
	COL(NB_COL_##D##_RCVBUF_DROPS, pre "rcvbuf_drops", "", "Receiver socket-buffer drops" sfx, LO), \
	COL(NB_COL_##D##_RETRANS, pre "retrans", "", "TCP retransmits" sfx, LO),                   \
	COL(NB_COL_##D##_TARGET_RATE, pre "target_rate", "", "Target rate (engine unit)" sfx, NO), \
	COL(NB_COL_##D##_ACHIEVED_RATE, pre "achieved_rate", "", "Achieved send rate (engine unit)" sfx, NO)
	DIRCOLS(FWD, "fwd_", FWD_SFX),
	DIRCOLS(REV, "rev_", REV_SFX),
	COL(NB_COL_LB_TX_QDISC, "lb_tx_qdisc_drops", "", "Sender's root qdisc drops", LO),
	COL(NB_COL_LB_TX_IF, "lb_tx_if_drops", "", "Sender's interface tx drops and errors", LO),
	COL(NB_COL_LB_RX_IF, "lb_rx_if_drops", "", "Receiver's interface rx drops, missed and errors", LO),
	COL(NB_COL_LB_RX_IP, "lb_rx_ip_drops", "", "Receiver's IP input drops", LO),
	COL(NB_COL_LB_RX_UDP, "lb_rx_udp_errs", "", "Receiver's UDP input errors (not buffer)", LO),
	COL(NB_COL_LB_PATH, "lb_path", "", "Lost on the path (unaccounted at both ends)", LO),
	COL(NB_COL_LB_EXCESS, "lb_excess", "", "Drops counted beyond the loss (noisy budget)", NO),
	COL(NB_COL_LB_SENT, "lb_sent", "", "Datagrams the loss budget covers (run: the whole test)", NO),
	COL(NB_COL_LB_LOST, "lb_lost", "", "Of them lost (what the budget's parts add up to)", LO),
	COL(NB_COL_LB_SND_ERRS, "lb_snd_errs", "", "Sends refused over the budget's span", LO),
	COL(NB_COL_LB_RCVBUF, "lb_rcvbuf_drops", "", "Receiver socket-buffer drops over the budget's span", LO),
};

const enum nb_col nb_dir_base[NB_DIR_NCOLS] = {
	NB_COL_TX_BPS, NB_COL_RX_BPS, NB_COL_TX_PPS, NB_COL_RX_PPS, NB_COL_TX_PACKETS,
	NB_COL_RX_PACKETS, NB_COL_LOST, NB_COL_LOSS_PCT, NB_COL_JITTER_US, NB_COL_SND_ERRS,
	NB_COL_RCVBUF_DROPS, NB_COL_RETRANS, NB_COL_TARGET_RATE, NB_COL_ACHIEVED_RATE,
};

int nb_col_dir(enum nb_col base, enum nb_col_dir d)
{
	for (int i = 0; i < NB_DIR_NCOLS; i++)
		if (nb_dir_base[i] == base)
			return NB_COL_FWD_TX_BPS + (d == NB_COL_DIR_REV ? NB_DIR_NCOLS : 0) + i;
	return -1;
}

int nb_col_find(const char *name)
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		if (strcmp(nb_cols[i].name, name) == 0)
			return i;
	return -1;
}

void nb_metrics_clear(struct nb_metrics *m)
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		m->v[i] = NAN;
	for (int i = 0; i < NB_OWN_COLS_MAX; i++)
		m->own[i] = NAN;
	m->own_of = NULL;
}
