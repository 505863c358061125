/* Confidence intervals for --until-ci: Student's t, two-sided 95%. */
#ifndef FSLAB_BENCH_STATS_H
#define FSLAB_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* t quantile (0.975) for df degrees of freedom (df >= 1). */
double fslab_t975(unsigned df);

/* Mean and 95% CI half-width of n samples (n >= 2; half = 0 for n < 2). */
void fslab_ci95(const double *x, size_t n, double *mean, double *half);

/* True when n >= 2 and half <= pct/100 * mean. */
bool fslab_ci_within(const double *x, size_t n, double pct);

#endif
