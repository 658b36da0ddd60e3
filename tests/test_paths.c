/* Several paths in one case: the result over all paths from each path's own (counts and rates
 * add exactly, host-wide readings take the largest, jitter averages, ratios are recomputed,
 * latency from the merged histograms), the clock exchange's arithmetic, and the meeting points
 * that hold the paths together (a path that leaves holds no one back). */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>

#include "clock.h"
#include "engines.h"
#include "metrics.h"
#include "pathsync.h"

static struct nb_metrics part(double rx_bps, double tx_packets, double lost)
{
	struct nb_metrics m;
	nb_metrics_clear(&m);
	m.v[NB_COL_RX_BPS] = rx_bps;
	m.v[NB_COL_TX_PACKETS] = tx_packets;
	m.v[NB_COL_RX_PACKETS] = tx_packets - lost;
	m.v[NB_COL_TX_BYTES] = tx_packets * 1000;
	m.v[NB_COL_LOST] = lost;
	m.v[NB_COL_LOSS_PCT] = 100.0 * lost / tx_packets;
	m.v[NB_COL_DURATION_S] = 1.0;
	return m;
}

Test(paths, counts_and_rates_add_exactly)
{
	struct nb_metrics parts[3] = { part(1e9, 1000, 10), part(2e9, 3000, 0), part(5e8, 500, 5) };
	struct nb_metrics sum;
	nb_metrics_sum_paths(nb_engine_find("stream"), parts, 3, NULL, &sum);
	cr_assert_eq(sum.v[NB_COL_RX_BPS], 3.5e9);
	cr_assert_eq(sum.v[NB_COL_TX_PACKETS], 4500);
	cr_assert_eq(sum.v[NB_COL_RX_PACKETS], 4485);
	cr_assert_eq(sum.v[NB_COL_TX_BYTES], 4500000);
	cr_assert_eq(sum.v[NB_COL_LOST], 15);
	cr_assert_eq(sum.v[NB_COL_DURATION_S], 1.0);
}

Test(paths, loss_percent_is_the_sums_not_the_mean_of_the_paths)
{
	struct nb_metrics parts[2] = { part(1e9, 1000, 100), part(1e9, 9000, 0) };
	struct nb_metrics sum;
	nb_metrics_sum_paths(nb_engine_find("stream"), parts, 2, NULL, &sum);
	cr_assert_float_eq(sum.v[NB_COL_LOSS_PCT], 1.0, 1e-12); /* 100 of 10000, not (10 % + 0) / 2 */
}

Test(paths, host_readings_take_the_largest_and_jitter_averages)
{
	struct nb_metrics parts[2] = { part(1, 1, 0), part(1, 1, 0) };
	parts[0].v[NB_COL_HOST_CPU_LOCAL_PCT] = 40;
	parts[1].v[NB_COL_HOST_CPU_LOCAL_PCT] = 42;
	parts[0].v[NB_COL_IF_LOCAL_TXPCK_S] = 1000;
	parts[1].v[NB_COL_IF_LOCAL_TXPCK_S] = 990;
	parts[0].v[NB_COL_JITTER_US] = 10;
	parts[1].v[NB_COL_JITTER_US] = 30;
	parts[0].v[NB_COL_CPU_LOCAL_PCT] = 20;
	parts[1].v[NB_COL_CPU_LOCAL_PCT] = 30;
	struct nb_metrics sum;
	nb_metrics_sum_paths(nb_engine_find("stream"), parts, 2, NULL, &sum);
	cr_assert_eq(sum.v[NB_COL_HOST_CPU_LOCAL_PCT], 42);
	cr_assert_eq(sum.v[NB_COL_IF_LOCAL_TXPCK_S], 1000);
	cr_assert_eq(sum.v[NB_COL_JITTER_US], 20);
	cr_assert_eq(sum.v[NB_COL_CPU_LOCAL_PCT], 50); /* each path's own engine threads */
}

Test(paths, a_column_no_path_has_stays_empty_and_a_missing_one_is_skipped)
{
	struct nb_metrics parts[2] = { part(1e9, 1000, 0), part(NAN, 1000, 0) };
	struct nb_metrics sum;
	nb_metrics_sum_paths(nb_engine_find("stream"), parts, 2, NULL, &sum);
	cr_assert_eq(sum.v[NB_COL_RX_BPS], 1e9);
	cr_assert(isnan(sum.v[NB_COL_RETRANS]));
	cr_assert(isnan(sum.v[NB_COL_LAT_P50_US]));
}

Test(paths, latency_comes_from_the_merged_histogram)
{
	struct nb_hist *a = nb_hist_create(), *b = nb_hist_create(), *m = nb_hist_create();
	for (int i = 0; i < 99; i++)
		nb_hist_record(a, 10000);  /* 10 us */
	nb_hist_record(b, 1000000);        /* 1 ms: one slow request on the other path */
	nb_hist_merge(m, a);
	nb_hist_merge(m, b);
	struct nb_metrics parts[2] = { part(1, 1, 0), part(1, 1, 0) };
	struct nb_metrics sum;
	nb_metrics_sum_paths(nb_engine_find("rr"), parts, 2, m, &sum);
	cr_assert_float_eq(sum.v[NB_COL_LAT_MIN_US], 10.0, 0.5);
	cr_assert_float_eq(sum.v[NB_COL_LAT_MAX_US], 1000.0, 10.0);
	cr_assert_float_eq(sum.v[NB_COL_LAT_MEAN_US], (99 * 10.0 + 1000.0) / 100, 1.0);
	nb_hist_destroy(a);
	nb_hist_destroy(b);
	nb_hist_destroy(m);
}

Test(paths, clock_offset_and_round_trip_as_ntp_computes_them)
{
	int64_t off;
	uint64_t rtt;
	/* agent 5 ms ahead, 100 us each way, 20 us between its two stamps */
	uint64_t t1 = 1000000000ull;
	nb_clock_calc(t1, t1 + 100000 + 5000000, t1 + 120000 + 5000000, t1 + 220000, &off, &rtt);
	cr_assert_eq(off, 5000000);
	cr_assert_eq(rtt, 200000);
	/* an agent behind ours */
	nb_clock_calc(t1, t1 - 3000000 + 50, t1 - 3000000 + 60, t1 + 110, &off, &rtt);
	cr_assert_eq(off, -3000000);
	cr_assert_eq(rtt, 100);
}

struct walker {
	struct nb_pathsync *g;
	bool leave_early;
	bool passed;
	uint64_t t0;
};

static void *walk(void *arg)
{
	struct walker *w = arg;
	if (w->leave_early) {
		nb_pathsync_leave(w->g);
		return NULL;
	}
	w->passed = nb_pathsync_wait(w->g, NB_SYNC_START, NULL, NULL, &w->t0) &&
		    nb_pathsync_wait(w->g, NB_SYNC_CLOSED, NULL, NULL, NULL);
	nb_pathsync_leave(w->g);
	return NULL;
}

Test(paths, every_path_gets_the_same_start_and_a_path_that_left_holds_no_one_back)
{
	struct nb_pathsync g;
	cr_assert(nb_pathsync_init(&g, 3));
	struct walker w[3] = { { &g, false, false, 0 }, { &g, true, false, 0 }, { &g, false, false, 0 } };
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, walk, &w[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	cr_assert(w[0].passed);
	cr_assert(w[2].passed);
	cr_assert_neq(w[0].t0, 0);
	cr_assert_eq(w[0].t0, w[2].t0);
	nb_pathsync_destroy(&g);
}

Test(paths, a_stop_ends_the_wait)
{
	struct nb_pathsync g;
	cr_assert(nb_pathsync_init(&g, 2));
	atomic_bool stop = true;
	cr_assert_not(nb_pathsync_wait(&g, NB_SYNC_START, &stop, NULL, NULL));
	nb_pathsync_destroy(&g);
}
