/* nbrun — latency histogram: log-linear buckets, single writer, mergeable.
 *
 * Why this bucket layout: round trips span six orders of magnitude (a few µs
 * on loopback with busy polling, tens of ms behind a stalled server), and a
 * percentile is only useful if its error is relative, not absolute. Values
 * below 128 ns get one bucket each (exact). From 2^7 up, every power of two
 * [2^k, 2^(k+1)) is cut into 64 equal sub-buckets of width 2^(k-6), so a
 * bucket is at most 1/64 of its lower bound wide and its midpoint is within
 * 1/128 (0.78 %) of any value in it. The bucket of a value is found with one
 * bit scan and one shift, so recording is O(1) and the memory fixed (2048
 * counters cover 1 ns .. 2^37 ns ≈ 137 s; the range is cut at 100 s).
 *
 * Why relaxed load + store instead of fetch_add: exactly one thread records
 * into a histogram, so an increment needs no locked instruction; readers may
 * see a snapshot that is a few values behind, never a torn counter.
 */
#include "hist.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#define LINEAR (1u << NB_HIST_SUB_BITS)          /* 128 exact buckets */
#define HALF_BITS (NB_HIST_SUB_BITS - 1)          /* 64 sub-buckets per power of two */
#define HALF (1u << HALF_BITS)

static inline uint64_t ld(const _Atomic uint64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

static inline void st(_Atomic uint64_t *a, uint64_t v)
{
	atomic_store_explicit(a, v, memory_order_relaxed);
}

static inline void add(_Atomic uint64_t *a, uint64_t v)
{
	st(a, ld(a) + v);
}

size_t nb_hist_bucket_of(uint64_t ns)
{
	if (ns < LINEAR)
		return (size_t)ns;
	if (ns > NB_HIST_MAX_NS)
		ns = NB_HIST_MAX_NS;
	unsigned k = 63u - (unsigned)__builtin_clzll(ns); /* ns in [2^k, 2^(k+1)), k >= 7 */
	unsigned sub = (unsigned)(ns >> (k - HALF_BITS)) & (HALF - 1);
	return LINEAR + (size_t)(k - NB_HIST_SUB_BITS) * HALF + sub;
}

/* Width of bucket i in ns. */
static uint64_t bucket_width(size_t i)
{
	if (i < LINEAR)
		return 1;
	unsigned k = NB_HIST_SUB_BITS + (unsigned)((i - LINEAR) / HALF);
	return 1ull << (k - HALF_BITS);
}

uint64_t nb_hist_bucket_lower(size_t i)
{
	if (i < LINEAR)
		return i;
	unsigned k = NB_HIST_SUB_BITS + (unsigned)((i - LINEAR) / HALF);
	uint64_t sub = (i - LINEAR) % HALF;
	return (HALF + sub) << (k - HALF_BITS);
}

/* The value a bucket stands for: its midpoint (exact for width-1 buckets). */
static uint64_t bucket_mid(size_t i)
{
	return nb_hist_bucket_lower(i) + bucket_width(i) / 2;
}

void nb_hist_init(struct nb_hist *h)
{
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		st(&h->counts[i], 0);
	st(&h->count, 0);
	st(&h->overflow, 0);
	st(&h->sum_ns, 0);
	st(&h->min_ns, UINT64_MAX);
	st(&h->max_ns, 0);
}

struct nb_hist *nb_hist_create(void)
{
	struct nb_hist *h = malloc(sizeof(*h));
	if (h)
		nb_hist_init(h);
	return h;
}

void nb_hist_destroy(struct nb_hist *h)
{
	free(h);
}

/* Saturating add, so an absurd value cannot wrap the sum around. */
static void add_sum(_Atomic uint64_t *sum, uint64_t v)
{
	uint64_t s = ld(sum);
	st(sum, s + v < s ? UINT64_MAX : s + v);
}

void nb_hist_record(struct nb_hist *h, uint64_t ns)
{
	if (ns > NB_HIST_MAX_NS)
		add(&h->overflow, 1);
	else
		add(&h->counts[nb_hist_bucket_of(ns)], 1);
	add_sum(&h->sum_ns, ns);
	if (ns < ld(&h->min_ns))
		st(&h->min_ns, ns);
	if (ns > ld(&h->max_ns))
		st(&h->max_ns, ns);
	add(&h->count, 1);
}

void nb_hist_copy(struct nb_hist *dst, const struct nb_hist *src)
{
	st(&dst->count, ld(&src->count));
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		st(&dst->counts[i], ld(&src->counts[i]));
	st(&dst->overflow, ld(&src->overflow));
	st(&dst->sum_ns, ld(&src->sum_ns));
	st(&dst->min_ns, ld(&src->min_ns));
	st(&dst->max_ns, ld(&src->max_ns));
}

void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src)
{
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		add(&dst->counts[i], ld(&src->counts[i]));
	add(&dst->count, ld(&src->count));
	add(&dst->overflow, ld(&src->overflow));
	add_sum(&dst->sum_ns, ld(&src->sum_ns));
	if (ld(&src->min_ns) < ld(&dst->min_ns))
		st(&dst->min_ns, ld(&src->min_ns));
	if (ld(&src->max_ns) > ld(&dst->max_ns))
		st(&dst->max_ns, ld(&src->max_ns));
}

static uint64_t sub_floor0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* An interval's min and max are only known to bucket precision: the lowest and
 * highest non-empty buckets, narrowed by the cumulative min and max. */
static void diff_bounds(struct nb_hist *dst, const struct nb_hist *now)
{
	size_t lo = NB_HIST_BUCKETS, hi = 0;
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		if (ld(&dst->counts[i]) == 0)
			continue;
		if (lo == NB_HIST_BUCKETS)
			lo = i;
		hi = i;
	}
	uint64_t min = UINT64_MAX, max = 0;
	if (lo < NB_HIST_BUCKETS) {
		min = nb_hist_bucket_lower(lo);
		max = nb_hist_bucket_lower(hi) + bucket_width(hi) - 1;
		if (min < ld(&now->min_ns))
			min = ld(&now->min_ns);
		if (max > ld(&now->max_ns))
			max = ld(&now->max_ns);
	}
	if (ld(&dst->overflow) > 0) {
		max = ld(&now->max_ns);
		if (min == UINT64_MAX)
			min = NB_HIST_MAX_NS + 1;
	}
	st(&dst->min_ns, min);
	st(&dst->max_ns, max);
}

void nb_hist_diff(struct nb_hist *dst, const struct nb_hist *now, const struct nb_hist *before)
{
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		st(&dst->counts[i], sub_floor0(ld(&now->counts[i]), ld(&before->counts[i])));
	st(&dst->count, sub_floor0(ld(&now->count), ld(&before->count)));
	st(&dst->overflow, sub_floor0(ld(&now->overflow), ld(&before->overflow)));
	st(&dst->sum_ns, sub_floor0(ld(&now->sum_ns), ld(&before->sum_ns)));
	diff_bounds(dst, now);
}

/* Values actually held: the buckets plus the overflow (a snapshot taken while
 * the writer runs may have `count` a step ahead of the buckets). */
static uint64_t held(const struct nb_hist *h)
{
	uint64_t n = ld(&h->overflow);
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		n += ld(&h->counts[i]);
	return n;
}

static uint64_t clamp_to(uint64_t v, const struct nb_hist *h)
{
	if (v < ld(&h->min_ns))
		v = ld(&h->min_ns);
	if (v > ld(&h->max_ns))
		v = ld(&h->max_ns);
	return v;
}

/* Nearest-rank quantile over `total` held values: the value of rank ceil(q * total). */
static uint64_t quantile_of(const struct nb_hist *h, double q, uint64_t total)
{
	if (total == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	double r = ceil(q * (double)total - 1e-9);
	uint64_t rank = r < 1 ? 1 : (r > (double)total ? total : (uint64_t)r);
	uint64_t cum = 0;
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		cum += ld(&h->counts[i]);
		if (cum >= rank)
			return clamp_to(bucket_mid(i), h);
	}
	return ld(&h->max_ns); /* the rank lies in the overflow */
}

uint64_t nb_hist_quantile(const struct nb_hist *h, double q)
{
	return quantile_of(h, q, held(h));
}

/* Standard deviation over bucket midpoints (overflow values stand at max):
 * within 1 % of the exact one, and exactly 0 for a single repeated value. */
static double stddev_of(const struct nb_hist *h, uint64_t total)
{
	if (total < 2)
		return 0;
	double s = 0, s2 = 0;
	uint64_t ov = ld(&h->overflow);
	double maxv = (double)ld(&h->max_ns);
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		uint64_t c = ld(&h->counts[i]);
		if (c)
			s += (double)c * (double)clamp_to(bucket_mid(i), h);
	}
	double mean = (s + (double)ov * maxv) / (double)total;
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		uint64_t c = ld(&h->counts[i]);
		if (!c)
			continue;
		double d = (double)clamp_to(bucket_mid(i), h) - mean;
		s2 += (double)c * d * d;
	}
	s2 += (double)ov * (maxv - mean) * (maxv - mean);
	return sqrt(s2 / (double)total);
}

void nb_hist_summarize(const struct nb_hist *h, struct nb_hist_summary *s)
{
	*s = (struct nb_hist_summary){ 0 };
	uint64_t total = held(h);
	uint64_t count = ld(&h->count);
	if (total == 0 || count == 0)
		return;
	s->count = count;
	s->mean_ns = (double)ld(&h->sum_ns) / (double)count;
	s->stddev_ns = stddev_of(h, total);
	s->min_ns = ld(&h->min_ns);
	s->max_ns = ld(&h->max_ns);
	s->p50_ns = quantile_of(h, 0.50, total);
	s->p90_ns = quantile_of(h, 0.90, total);
	s->p99_ns = quantile_of(h, 0.99, total);
	s->p999_ns = quantile_of(h, 0.999, total);
	s->p9999_ns = quantile_of(h, 0.9999, total);
}
