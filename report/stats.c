/* Statistics for the report: medians, Student's t intervals, Welch's test.
 * The t distribution comes from the regularized incomplete beta function
 * (continued fraction, modified Lentz), so no table limits the degrees of
 * freedom and Welch's fractional df work too. */
#include "report_priv.h"

#include <math.h>
#include <stdlib.h>

static int st_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rp_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), st_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rp_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m = n ? m / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/* Continued fraction of the incomplete beta function. */
static double st_betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double st_ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return bt * st_betacf(a, b, x) / a;
	return 1 - bt * st_betacf(b, a, 1 - x) / b;
}

/* Two-sided p value of |T| >= t for Student's t with df degrees. */
static double st_t_p2(double t, double df)
{
	return st_ibeta(df / 2, 0.5, df / (df + t * t));
}

double rp_t975(double df)
{
	double lo = 0, hi = 1000;

	if (!(df > 0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (st_t_p2(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double rp_ci95(const double *v, size_t n)
{
	double m, sd;

	if (n < 2)
		return NAN;
	rp_mean_sd(v, n, &m, &sd);
	return rp_t975((double)(n - 1)) * sd / sqrt((double)n);
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
	return st_t_p2(fabs(t), df);
}
