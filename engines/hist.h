/* nbrun — latency histogram (HDR-style log-linear buckets).
 *
 * Values are nanoseconds from 1 ns to 100 s. Below 2^NB_HIST_SUB_BITS every
 * value has its own bucket; above, each power of two is split into
 * 2^(NB_HIST_SUB_BITS-1) equal sub-buckets, so a bucket's width is at most
 * 1/64 of its lower bound (relative error < 1 %). Memory is fixed, record is
 * O(1) (a bit scan and a shift), and two histograms merge by adding counts.
 *
 * Concurrency: one thread records (single writer, relaxed atomic stores, no
 * locked instructions); any thread may take a snapshot at any time. Counts are
 * cumulative, so an interval's histogram is the difference of two snapshots.
 */
#ifndef NB_HIST_H
#define NB_HIST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define NB_HIST_SUB_BITS 7
#define NB_HIST_MAX_NS 100000000000ull /* 100 s; larger values count as overflow */
#define NB_HIST_BUCKETS 2048 /* 128 exact + 30 powers of two (2^7 .. 2^36) x 64 */

struct nb_hist {
	_Atomic uint64_t counts[NB_HIST_BUCKETS];
	_Atomic uint64_t count;    /* values recorded, overflow included */
	_Atomic uint64_t overflow; /* values > NB_HIST_MAX_NS (counted in max, not in buckets) */
	_Atomic uint64_t sum_ns;   /* exact sum, for the mean */
	_Atomic uint64_t min_ns;   /* UINT64_MAX when empty */
	_Atomic uint64_t max_ns;   /* exact */
};

/** Percentiles and moments of a histogram; all 0 when count == 0. */
struct nb_hist_summary {
	uint64_t count;
	double mean_ns, stddev_ns;
	uint64_t min_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns;
};

/** Reset to empty (does not allocate). */
void nb_hist_init(struct nb_hist *h);
/** Allocate an empty histogram; NULL on out of memory. */
struct nb_hist *nb_hist_create(void);
/** Free; NULL is a no-op. */
void nb_hist_destroy(struct nb_hist *h);
/** Record one value (single writer). */
void nb_hist_record(struct nb_hist *h, uint64_t ns);
/** Copy src into dst (dst may be read by nobody else meanwhile). */
void nb_hist_copy(struct nb_hist *dst, const struct nb_hist *src);
/** Add src's counts into dst. */
void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src);
/** dst = now - before (both cumulative snapshots of one histogram); min/max come from the buckets. */
void nb_hist_diff(struct nb_hist *dst, const struct nb_hist *now, const struct nb_hist *before);
/** Value at quantile q in [0,1] (upper-inclusive bucket midpoint, clamped to [min,max]); 0 when empty. */
uint64_t nb_hist_quantile(const struct nb_hist *h, double q);
/** Fill s from h. */
void nb_hist_summarize(const struct nb_hist *h, struct nb_hist_summary *s);
/** Bucket index for a value (exposed for tests and for writing the histogram out). */
size_t nb_hist_bucket_of(uint64_t ns);
/** Lowest value that falls into bucket i. */
uint64_t nb_hist_bucket_lower(size_t i);

#endif
