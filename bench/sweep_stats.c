#include "sweep_stats.h"

#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool fslab_ci_within(const double *x, size_t n, double pct)
{
	double m, h;

	if (n < 2)
		return false;
	fslab_mean_ci95(x, n, &m, &h);
	return h <= pct / 100.0 * m;
}

double fslab_median(const double *x, size_t n)
{
	double small[64], *v = small, m;

	if (n == 0)
		return 0;
	if (n > sizeof(small) / sizeof(small[0])) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return x[n / 2]; /* no memory: some sample, never a crash */
	}
	memcpy(v, x, n * sizeof(*v));
	m = fslab_median_sort(v, n);
	if (v != small)
		free(v);
	return m;
}

void fslab_lat_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	unsigned sub = b & ((1u << FSLAB_LAT_SUB_BITS) - 1), exp = b >> FSLAB_LAT_SUB_BITS;
	unsigned shift;

	if (exp == 0) {
		*lo = *hi = b;
		return;
	}
	shift = exp - 1;
	*lo = ((uint64_t)((1u << FSLAB_LAT_SUB_BITS) | sub)) << shift;
	*hi = *lo + (UINT64_C(1) << shift) - 1;
}

uint64_t fslab_lat_quantile(const struct fslab_lat_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi;

	if (!h->count)
		return 0;
	if (q > 1)
		q = 1;
	/* the rank of the q quantile: ceil(q * count), at least 1 */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < FSLAB_LAT_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			fslab_lat_bucket_range(b, &lo, &hi);
			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}
