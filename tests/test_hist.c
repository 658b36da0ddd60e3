/* The latency histogram: percentiles within 1 % of the exact ones for known
 * distributions, bucket bounds, merge, interval diffs, overflow and the edges. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define N 200000

/* splitmix64: a fixed-seed PRNG so every run sees the same values. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_unit(void) /* (0, 1] */
{
	return ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The exact nearest-rank percentile num/den of sorted v[0..n). */
static uint64_t exact_q(const uint64_t *v, size_t n, uint64_t num, uint64_t den)
{
	uint64_t rank = (num * n + den - 1) / den;
	return v[rank == 0 ? 0 : rank - 1];
}

static void exact_moments(const uint64_t *v, size_t n, double *mean, double *sd)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		s2 += ((double)v[i] - *mean) * ((double)v[i] - *mean);
	*sd = sqrt(s2 / (double)n);
}

static void assert_within_1pct(uint64_t got, uint64_t want, const char *what)
{
	double err = fabs((double)got - (double)want);
	cr_assert_leq(err, (double)want * 0.01, "%s: got %llu, exact %llu", what,
		      (unsigned long long)got, (unsigned long long)want);
}

/* Record v into a fresh histogram and check every summary field against exact values. */
static void check_distribution(uint64_t *v, size_t n)
{
	struct nb_hist *h = nb_hist_create();
	cr_assert_not_null(h);
	for (size_t i = 0; i < n; i++)
		nb_hist_record(h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	cr_assert_eq(s.count, n);
	cr_assert_eq(s.min_ns, v[0]);
	cr_assert_eq(s.max_ns, v[n - 1]);
	assert_within_1pct(s.p50_ns, exact_q(v, n, 50, 100), "p50");
	assert_within_1pct(s.p90_ns, exact_q(v, n, 90, 100), "p90");
	assert_within_1pct(s.p99_ns, exact_q(v, n, 99, 100), "p99");
	assert_within_1pct(s.p999_ns, exact_q(v, n, 999, 1000), "p99.9");
	assert_within_1pct(s.p9999_ns, exact_q(v, n, 9999, 10000), "p99.99");
	double mean, sd;
	exact_moments(v, n, &mean, &sd);
	cr_assert_float_eq(s.mean_ns, mean, mean * 1e-9, "mean %f vs %f", s.mean_ns, mean);
	cr_assert_leq(fabs(s.stddev_ns - sd), sd * 0.01 + 1e-9, "stddev %f vs %f", s.stddev_ns, sd);
	nb_hist_destroy(h);
}

static uint64_t *values(void)
{
	uint64_t *v = malloc(N * sizeof(*v));
	cr_assert_not_null(v);
	return v;
}

Test(hist, uniform_percentiles_within_1pct)
{
	uint64_t *v = values();
	rng_state = 1;
	for (size_t i = 0; i < N; i++)
		v[i] = 1000 + rng_next() % 999001; /* 1 us .. 1 ms */
	check_distribution(v, N);
	free(v);
}

Test(hist, exponential_percentiles_within_1pct)
{
	uint64_t *v = values();
	rng_state = 42;
	for (size_t i = 0; i < N; i++)
		v[i] = 5000 + (uint64_t)(-log(rng_unit()) * 50000.0); /* 5 us + exp(mean 50 us) */
	check_distribution(v, N);
	free(v);
}

Test(hist, bimodal_percentiles_within_1pct)
{
	uint64_t *v = values();
	rng_state = 7;
	for (size_t i = 0; i < N; i++) {
		uint64_t base = (rng_next() & 1) ? 5000000 : 10000; /* 10 us or 5 ms */
		v[i] = base + rng_next() % (base / 10);
	}
	check_distribution(v, N);
	free(v);
}

Test(hist, single_value_is_exact_everywhere)
{
	struct nb_hist *h = nb_hist_create();
	for (int i = 0; i < 1000; i++)
		nb_hist_record(h, 12345);
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	cr_assert_eq(s.count, 1000);
	cr_assert_eq(s.min_ns, 12345);
	cr_assert_eq(s.max_ns, 12345);
	cr_assert_eq(s.p50_ns, 12345);
	cr_assert_eq(s.p9999_ns, 12345);
	cr_assert_float_eq(s.mean_ns, 12345.0, 1e-9);
	cr_assert_float_eq(s.stddev_ns, 0.0, 1e-9);
	nb_hist_destroy(h);
}

Test(hist, small_values_are_exact)
{
	struct nb_hist *h = nb_hist_create();
	for (uint64_t x = 0; x < 128; x++)
		nb_hist_record(h, x);
	for (uint64_t x = 0; x < 128; x++)
		cr_assert_eq(nb_hist_quantile(h, ((double)x + 1) / 128.0), x);
	nb_hist_destroy(h);
}

Test(hist, zero_and_one_ns_have_their_own_buckets)
{
	cr_assert_eq(nb_hist_bucket_of(0), 0);
	cr_assert_eq(nb_hist_bucket_of(1), 1);
	struct nb_hist *h = nb_hist_create();
	nb_hist_record(h, 0);
	nb_hist_record(h, 1);
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	cr_assert_eq(s.count, 2);
	cr_assert_eq(s.min_ns, 0);
	cr_assert_eq(s.max_ns, 1);
	cr_assert_eq(s.p50_ns, 0);
	cr_assert_eq(s.p99_ns, 1);
	nb_hist_destroy(h);
}

Test(hist, bucket_bounds_are_monotonic_and_narrow)
{
	size_t last = nb_hist_bucket_of(NB_HIST_MAX_NS); /* buckets above it stay unused */
	cr_assert_lt(last, NB_HIST_BUCKETS);
	cr_assert_gt(nb_hist_bucket_lower(last + 1), NB_HIST_MAX_NS);
	for (size_t i = 0; i < last; i++) {
		uint64_t lo = nb_hist_bucket_lower(i), next = nb_hist_bucket_lower(i + 1);
		cr_assert_gt(next, lo, "bucket %zu", i);
		cr_assert_eq(nb_hist_bucket_of(lo), i, "lower bound of bucket %zu", i);
		cr_assert_eq(nb_hist_bucket_of(next - 1), i, "upper bound of bucket %zu", i);
		/* Width at most 1/64 of the lower bound: the midpoint is within 1/128 of any value. */
		if (lo >= 128)
			cr_assert_leq((next - lo) * 64, lo, "bucket %zu [%llu, %llu)", i,
				      (unsigned long long)lo, (unsigned long long)next);
		else
			cr_assert_eq(next - lo, 1);
	}
}

Test(hist, every_value_in_range_is_reported_within_1pct)
{
	rng_state = 99;
	for (int i = 0; i < 100000; i++) {
		uint64_t x = (rng_next() % NB_HIST_MAX_NS) >> (rng_next() % 36);
		struct nb_hist h;
		nb_hist_init(&h);
		nb_hist_record(&h, x);
		nb_hist_record(&h, NB_HIST_MAX_NS); /* so the clamp to max does not hide the error */
		nb_hist_record(&h, 0);              /* nor the clamp to min */
		uint64_t got = nb_hist_quantile(&h, 0.5);
		cr_assert_leq(fabs((double)got - (double)x), (double)x * 0.01, "%llu -> %llu",
			      (unsigned long long)x, (unsigned long long)got);
	}
}

Test(hist, overflow_counts_in_max_not_in_buckets)
{
	struct nb_hist *h = nb_hist_create();
	nb_hist_record(h, 1000);
	nb_hist_record(h, 200000000000ull); /* 200 s */
	cr_assert_eq(atomic_load(&h->count), 2);
	cr_assert_eq(atomic_load(&h->overflow), 1);
	uint64_t in_buckets = 0;
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		in_buckets += atomic_load(&h->counts[i]);
	cr_assert_eq(in_buckets, 1);
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	cr_assert_eq(s.max_ns, 200000000000ull);
	assert_within_1pct(s.p50_ns, 1000, "p50");
	cr_assert_eq(s.p99_ns, 200000000000ull);
	cr_assert_float_eq(s.mean_ns, (1000.0 + 2e11) / 2, 1.0);
	nb_hist_destroy(h);
}

Test(hist, empty_summary_is_all_zero)
{
	struct nb_hist *h = nb_hist_create();
	struct nb_hist_summary s;
	memset(&s, 0xab, sizeof(s));
	nb_hist_summarize(h, &s);
	struct nb_hist_summary zero = { 0 };
	cr_assert_eq(memcmp(&s, &zero, sizeof(s)), 0);
	cr_assert_eq(nb_hist_quantile(h, 0.5), 0);
	nb_hist_destroy(h);
}

static void assert_same(const struct nb_hist *a, const struct nb_hist *b)
{
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		cr_assert_eq(atomic_load(&a->counts[i]), atomic_load(&b->counts[i]), "bucket %zu", i);
	cr_assert_eq(atomic_load(&a->count), atomic_load(&b->count));
	cr_assert_eq(atomic_load(&a->overflow), atomic_load(&b->overflow));
	cr_assert_eq(atomic_load(&a->sum_ns), atomic_load(&b->sum_ns));
}

Test(hist, merge_equals_recording_everything_in_one)
{
	struct nb_hist *all = nb_hist_create(), *merged = nb_hist_create(), *part[4];
	for (int k = 0; k < 4; k++)
		part[k] = nb_hist_create();
	rng_state = 5;
	for (int i = 0; i < 50000; i++) {
		uint64_t x = rng_next() % 100000000; /* up to 100 ms */
		nb_hist_record(all, x);
		nb_hist_record(part[i % 4], x);
	}
	nb_hist_record(part[3], 150000000000ull);
	nb_hist_record(all, 150000000000ull);
	for (int k = 0; k < 4; k++)
		nb_hist_merge(merged, part[k]);
	assert_same(merged, all);
	cr_assert_eq(atomic_load(&merged->min_ns), atomic_load(&all->min_ns));
	cr_assert_eq(atomic_load(&merged->max_ns), atomic_load(&all->max_ns));
	struct nb_hist_summary a, m;
	nb_hist_summarize(all, &a);
	nb_hist_summarize(merged, &m);
	cr_assert_eq(memcmp(&a, &m, sizeof(a)), 0);
	for (int k = 0; k < 4; k++)
		nb_hist_destroy(part[k]);
	nb_hist_destroy(all);
	nb_hist_destroy(merged);
}

Test(hist, diff_of_snapshots_is_the_interval)
{
	struct nb_hist *h = nb_hist_create(), *before = nb_hist_create(), *now = nb_hist_create();
	struct nb_hist *interval = nb_hist_create(), *only = nb_hist_create();
	for (uint64_t x = 1; x <= 1000; x++)
		nb_hist_record(h, x * 7);          /* before: 7 .. 7000 */
	nb_hist_copy(before, h);
	for (uint64_t x = 0; x < 500; x++) {
		nb_hist_record(h, 20000 + x * 31); /* the interval: 20000 .. 35469 */
		nb_hist_record(only, 20000 + x * 31);
	}
	nb_hist_copy(now, h);
	nb_hist_diff(interval, now, before);
	assert_same(interval, only);
	/* min/max of an interval are known to bucket precision only. */
	uint64_t mn = atomic_load(&interval->min_ns), mx = atomic_load(&interval->max_ns);
	cr_assert_leq(mn, 20000);
	cr_assert_geq(mn, 20000 - 20000 / 64);
	cr_assert_geq(mx, 35469);
	cr_assert_leq(mx, 35469 + 35469 / 64);
	struct nb_hist_summary s;
	nb_hist_summarize(interval, &s);
	cr_assert_eq(s.count, 500);
	assert_within_1pct(s.p50_ns, 20000 + 249 * 31, "interval p50");
	nb_hist_destroy(h);
	nb_hist_destroy(before);
	nb_hist_destroy(now);
	nb_hist_destroy(interval);
	nb_hist_destroy(only);
}

Test(hist, diff_of_an_idle_interval_is_empty)
{
	struct nb_hist *h = nb_hist_create(), *a = nb_hist_create(), *d = nb_hist_create();
	nb_hist_record(h, 5000);
	nb_hist_copy(a, h);
	nb_hist_diff(d, a, a);
	struct nb_hist_summary s;
	nb_hist_summarize(d, &s);
	cr_assert_eq(s.count, 0);
	cr_assert_eq(s.p99_ns, 0);
	cr_assert_eq(s.max_ns, 0);
	nb_hist_destroy(h);
	nb_hist_destroy(a);
	nb_hist_destroy(d);
}
