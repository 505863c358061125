/* Statistics for the report: Student's t intervals, Welch's test (the
 * median is lib/stats.h's fslab_median_sort).
 * Student's t itself is lib/stats.h's (the one fslab run's --until-ci
 * stops on), which takes Welch's fractional degrees of freedom too. */
#include "report_priv.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>

void rp_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	fslab_mean_sd(v, n, mean, sd);
}

double rp_ci95(const double *v, size_t n)
{
	double half;

	fslab_mean_ci95(v, n, NULL, &half);
	return half;
}

double rp_welch_p(const double *a, size_t na, const double *b, size_t nb, double *dfp)
{
	double ma, sa, mb, sb, va, vb, se2, t, df;

	if (dfp)
		*dfp = NAN;
	if (na < 2 || nb < 2)
		return NAN;
	rp_mean_sd(a, na, &ma, &sa);
	rp_mean_sd(b, nb, &mb, &sb);
	va = sa * sa / (double)na;
	vb = sb * sb / (double)nb;
	se2 = va + vb;
	if (se2 <= 0)
		return ma == mb ? 1.0 : 0.0; /* no noise at all: any difference is real */
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	if (dfp)
		*dfp = df;
	return fslab_t_two_sided_p(fabs(t), df);
}
