/* Statistics of the sweep: the --until-ci stopping rule, medians (the
 * disturbed-cell check), and the per-cell latency histogram of --latency.
 * Student's t and the interval itself are lib/stats.h's, shared with the
 * report. */
#ifndef FSLAB_BENCH_SWEEP_STATS_H
#define FSLAB_BENCH_SWEEP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --until-ci's stopping rule: true when n >= 2 and the half-width of the
 * 95% interval (fslab_mean_ci95, the one the report draws) is at most
 * pct/100 * mean. */
bool fslab_ci_within(const double *x, size_t n, double pct);

/* Median of n samples (the mean of the middle two for even n); 0 for n = 0.
 * x is left unchanged. */
double fslab_median(const double *x, size_t n);

/* A cell took more than FSLAB_DISTURBED_FACTOR x the median of its trials:
 * its timing was disturbed (the machine, not the filesystem), so it is
 * redone rather than kept. */
#define FSLAB_DISTURBED_FACTOR 10.0

/* Latency histogram of one timed pass: log-linear buckets (8 per power of
 * two, so a bucket is at most 12.5% wide), fixed size, no allocation.  The
 * timed loop only reads the clock and increments a bucket.  Values are in
 * the caller's clock units (the engine uses time-stamp counter ticks and
 * converts the quantiles to time once, after the pass). */
#define FSLAB_LAT_SUB_BITS 3
#define FSLAB_LAT_BUCKETS (64 << FSLAB_LAT_SUB_BITS)

struct fslab_lat_hist {
	uint64_t count;
	uint64_t max_ns; /* the largest value added (clock units, named for ns) */
	uint32_t bucket[FSLAB_LAT_BUCKETS];
};

/* Bucket of a latency in nanoseconds: values below 8 ns have their own
 * bucket each; above, the power of two and the 3 bits below the top one. */
static inline unsigned fslab_lat_bucket(uint64_t ns)
{
	unsigned top;

	if (ns < (1u << FSLAB_LAT_SUB_BITS))
		return (unsigned)ns;
	top = 63u - (unsigned)__builtin_clzll(ns);
	return ((top - FSLAB_LAT_SUB_BITS + 1) << FSLAB_LAT_SUB_BITS) |
	       (unsigned)((ns >> (top - FSLAB_LAT_SUB_BITS)) & ((1u << FSLAB_LAT_SUB_BITS) - 1));
}

static inline void fslab_lat_add(struct fslab_lat_hist *h, uint64_t ns)
{
	h->bucket[fslab_lat_bucket(ns)]++;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
}

/* The smallest and largest latency a bucket holds. */
void fslab_lat_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* The q quantile (0 < q <= 1) in the values' units: the upper edge of the bucket
 * that holds it (capped at the maximum seen), so it overstates by less than
 * one bucket (12.5%).  0 when the histogram is empty. */
uint64_t fslab_lat_quantile(const struct fslab_lat_hist *h, double q);

#endif
