/* Statistics for the report: Student's t intervals (the median is
 * lib/stats.h's fslab_median_sort).  Student's t itself is lib/stats.h's
 * (the one fslab run's --until-ci stops on); every comparison is
 * infer.c's. */
#include "report_priv.h"
#include "stats.h"


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
