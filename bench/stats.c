#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double fslab_t975(unsigned df)
{
	static const double t[] = {
		0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080,  2.074,  2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df == 0)
		return INFINITY;
	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	if (df <= 40)
		return 2.021;
	if (df <= 60)
		return 2.000;
	if (df <= 120)
		return 1.980;
	return 1.960;
}

void fslab_ci95(const double *x, size_t n, double *mean, double *half)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m = n ? m / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*half = n >= 2 ? fslab_t975((unsigned)(n - 1)) * sqrt(ss / (double)(n - 1)) / sqrt((double)n)
		       : 0;
}

bool fslab_ci_within(const double *x, size_t n, double pct)
{
	double m, h;

	if (n < 2)
		return false;
	fslab_ci95(x, n, &m, &h);
	return h <= pct / 100.0 * m;
}

static int stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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
	qsort(v, n, sizeof(*v), stats_cmp);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
