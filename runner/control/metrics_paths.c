/* The result of a case over all its paths, from each path's own result (see metrics.h).
 *
 * What a path counts adds: bytes, packets, rates, losses, transactions, each path's own engine
 * threads' CPU. What every path reads of the same host is the host's, not the path's: host CPU,
 * steal and interface rates are the largest of the paths' readings (the same host's counters,
 * read at the same ticks), as is the busiest thread. Averages stay averages: jitter, smoothed
 * RTT and connect time are the mean over the paths that have them; the lowest RTT is the
 * lowest of theirs. Ratios are recomputed from
 * the sums (loss %, the headline per CPU-second), and latency comes from the paths' histograms
 * merged (every request's RTT counted once), never from averaged percentiles. */
#include "metrics.h"

#include <math.h>

enum how { SUM, MAX, MIN, MEAN, RATIO, LATENCY, NONE };

static enum how how_of(int c)
{
	static const enum nb_col max[] = {
		NB_COL_DURATION_S, NB_COL_MAX_BURST, NB_COL_HOST_CPU_LOCAL_PCT,
		NB_COL_HOST_CPU_PEER_PCT, NB_COL_CPU_LOCAL_TX_THREAD_PCT,
		NB_COL_CPU_LOCAL_RX_THREAD_PCT, NB_COL_CPU_PEER_TX_THREAD_PCT,
		NB_COL_CPU_PEER_RX_THREAD_PCT, NB_COL_HOST_STEAL_LOCAL_PCT, NB_COL_HOST_STEAL_PEER_PCT,
		NB_COL_SCHED_LAG_P99_US, NB_COL_SCHED_LAG_MAX_US, /* the path that fell furthest behind */
	};
	static const enum nb_col mean[] = {
		NB_COL_JITTER_US, NB_COL_FWD_JITTER_US, NB_COL_REV_JITTER_US, NB_COL_SRTT_US,
		NB_COL_CONNECT_US,
	};
	static const enum nb_col ratio[] = {
		NB_COL_LOSS_PCT, NB_COL_FWD_LOSS_PCT, NB_COL_REV_LOSS_PCT, NB_COL_LOCAL_PER_CPU_S,
		NB_COL_PEER_PER_CPU_S,
	};
	for (size_t i = 0; i < sizeof(max) / sizeof(max[0]); i++)
		if (c == (int)max[i])
			return MAX;
	if (c == NB_COL_MIN_RTT_US)
		return MIN;
	for (size_t i = 0; i < sizeof(mean) / sizeof(mean[0]); i++)
		if (c == (int)mean[i])
			return MEAN;
	for (size_t i = 0; i < sizeof(ratio) / sizeof(ratio[0]); i++)
		if (c == (int)ratio[i])
			return RATIO;
	if (c >= NB_COL_IF_LOCAL_RXPCK_S && c <= NB_COL_IF_PEER_RXDROP_S)
		return MAX;
	if (c >= NB_COL_LAT_MEAN_US && c <= NB_COL_LAT_MAX_US)
		return LATENCY;
	/* every path reads the local host's drop counters: a sum would count them once per path,
	 * a largest would hide a peer's; each path's own row has its budget */
	if (c >= NB_COL_LB_TX_QDISC && c <= NB_COL_LB_RCVBUF)
		return NONE;
	return SUM;
}

/* Column c over the parts that have it (NAN when none does). */
static double combine(enum how how, const struct nb_metrics *parts, size_t n, int c)
{
	double acc = NAN;
	size_t have = 0;
	for (size_t i = 0; i < n; i++) {
		double v = parts[i].v[c];
		if (!isfinite(v))
			continue;
		acc = have++ == 0 ? v : how == MAX ? fmax(acc, v) : how == MIN ? fmin(acc, v) : acc + v;
	}
	return how == MEAN && have ? acc / (double)have : acc;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

/* loss % from the summed lost and sent packets, and the headline per CPU-second. */
static void ratios(const struct nb_engine *e, const struct nb_metrics *parts, size_t n,
		   struct nb_metrics *out)
{
	const enum nb_col loss[3][3] = {
		{ NB_COL_LOSS_PCT, NB_COL_LOST, NB_COL_TX_PACKETS },
		{ NB_COL_FWD_LOSS_PCT, NB_COL_FWD_LOST, NB_COL_FWD_TX_PACKETS },
		{ NB_COL_REV_LOSS_PCT, NB_COL_REV_LOST, NB_COL_REV_TX_PACKETS },
	};
	for (int i = 0; i < 3; i++)
		if (isfinite(combine(SUM, parts, n, loss[i][0])))
			out->v[loss[i][0]] = pct(out->v[loss[i][1]], out->v[loss[i][2]]);
	double head = out->v[nb_metrics_headline(e)];
	const enum nb_col cpu[2] = { NB_COL_CPU_LOCAL_PCT, NB_COL_CPU_PEER_PCT };
	const enum nb_col cost[2] = { NB_COL_LOCAL_PER_CPU_S, NB_COL_PEER_PER_CPU_S };
	for (int k = 0; k < 2; k++)
		if (isfinite(combine(SUM, parts, n, cost[k])) && out->v[cpu[k]] > 0)
			out->v[cost[k]] = head / (out->v[cpu[k]] / 100.0);
}

void nb_metrics_sum_paths(const struct nb_engine *e, const struct nb_metrics *parts, size_t n,
			  const struct nb_hist *merged, struct nb_metrics *out)
{
	nb_metrics_clear(out);
	for (int c = 0; c < NB_COL_COUNT; c++) {
		enum how how = how_of(c);
		if (how != RATIO && how != LATENCY && how != NONE)
			out->v[c] = combine(how, parts, n, c);
	}
	ratios(e, parts, n, out);
	/* an engine's own columns add over the paths, like its counts */
	out->own_of = n ? parts[0].own_of : NULL;
	for (int i = 0; i < NB_OWN_COLS_MAX; i++)
		for (size_t k = 0; k < n; k++)
			if (isfinite(parts[k].own[i]))
				out->own[i] = isfinite(out->own[i]) ? out->own[i] + parts[k].own[i]
								    : parts[k].own[i];
	if (merged)
		nb_metrics_latency(merged, out);
}
