#include "stats.h"

#include <math.h>

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
