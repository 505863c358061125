/* Student's t from the regularized incomplete beta function:
 * P(|T| >= t) = I_x(df/2, 1/2) with x = df / (df + t^2).  I_x is evaluated by
 * its continued fraction (modified Lentz), the quantile found by Newton's
 * method kept inside a shrinking bracket (a bisection step whenever Newton
 * would leave it), so no table limits the degrees of freedom. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#define ST_TINY 1e-300
#define ST_EPS 1e-15
#define ST_MAX_TERMS 20000 /* enough for df ~ 1e8; convergence is ~sqrt(df) */

/* Lentz's guard: a denominator that reached 0 is nudged off it. */
static double st_nonzero(double v)
{
	return fabs(v) < ST_TINY ? ST_TINY : v;
}

/* The continued fraction of I_x(a, b) (without its prefactor); converges
 * fast for x < (a + 1) / (a + b + 2). */
static double st_beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 / st_nonzero(1 - (a + b) * x / (a + 1)), f = d;

	for (int m = 1; m <= ST_MAX_TERMS; m++) {
		double even = m * (b - m) * x / ((a + 2.0 * m - 1) * (a + 2.0 * m));
		double odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1));
		double step;

		d = 1 / st_nonzero(1 + even * d);
		c = st_nonzero(1 + even / c);
		f *= c * d;
		d = 1 / st_nonzero(1 + odd * d);
		c = st_nonzero(1 + odd / c);
		step = c * d;
		f *= step;
		if (fabs(step - 1) < ST_EPS)
			break;
	}
	return f;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double st_ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * st_beta_cf(a, b, x) / a;
	return 1 - front * st_beta_cf(b, a, 1 - x) / b;
}

double fslab_t_two_sided_p(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	return st_ibeta(df / 2, 0.5, df / (df + t * t));
}

/* The density of |T| at t >= 0 (twice Student's density): minus the
 * derivative of fslab_t_two_sided_p, Newton's slope. */
static double st_abs_t_density(double t, double df)
{
	double logc = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);

	return 2 * exp(logc - (df + 1) / 2 * log1p(t * t / df));
}

double fslab_t975(double df)
{
	const double alpha = 0.05;
	double lo = 0, hi = 2, t;

	if (!(df > 0))
		return NAN;
	/* bracket: the tail falls as t grows; df = 1 needs hi = 16 */
	while (fslab_t_two_sided_p(hi, df) > alpha && hi < 1e12) {
		lo = hi;
		hi *= 2;
	}
	t = (lo + hi) / 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double excess = fslab_t_two_sided_p(t, df) - alpha, next;

		if (excess > 0)
			lo = t; /* tail too heavy: the quantile is further out */
		else
			hi = t;
		next = t + excess / st_abs_t_density(t, df);
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - t) < 1e-13 * t)
			return next;
		t = next;
	}
	return t;
}

void fslab_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m = n ? m / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*sd = n >= 2 ? sqrt(ss / (double)(n - 1)) : NAN;
}

void fslab_mean_ci95(const double *x, size_t n, double *mean, double *half)
{
	double m, sd;

	fslab_mean_sd(x, n, &m, &sd);
	if (mean)
		*mean = m;
	if (half)
		*half = n >= 2 ? fslab_t975((double)(n - 1)) * sd / sqrt((double)n) : NAN;
}

static int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fslab_median_sort(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
