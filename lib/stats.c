/* Student's t from the regularized incomplete beta function:
 * P(|T| >= t) = I_x(df/2, 1/2) with x = df / (df + t^2).  I_x is evaluated by
 * its continued fraction (modified Lentz), the quantile found by Newton's
 * method kept inside a shrinking bracket (a bisection step whenever Newton
 * would leave it), so no table limits the degrees of freedom. */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double fslab_log_var_centred(double s2, double df)
{
	return log(s2) - fslab_digamma(df / 2) + log(df / 2);
}

/* v * v / df, 0 when df is infinite or v is 0 */
static double st_welch_term(double v, double df)
{
	return v == 0 || isinf(df) ? 0 : v * v / df;
}

void fslab_welch(double a, double dfa, double b, double dfb, double *var, double *df)
{
	double den = st_welch_term(a, dfa) + st_welch_term(b, dfb);

	*var = a + b;
	*df = den > 0 ? (a + b) * (a + b) / den : INFINITY;
}

double fslab_df_scaled(double df, double fvar)
{
	return fvar > 0 ? 2 / (2 / df + fvar) : df;
}

void fslab_log_ratio_test(double dl, double se, double df, double alpha, double *lo, double *hi,
			  double *p)
{
	if (!(se > 0)) {
		*lo = *hi = exp(dl);
		*p = dl == 0 ? 1.0 : 0.0;
		return;
	}
	fslab_log_ratio_interval(dl, se, df, alpha, lo, hi);
	*p = fslab_t_two_sided_p(fabs(dl) / se, df);
}

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
	if (df > 1e7) /* the normal limit (the continued fraction would need ~sqrt(df) terms) */
		return erfc(fabs(t) / sqrt(2.0));
	return st_ibeta(df / 2, 0.5, df / (df + t * t));
}

/* The density of |T| at t >= 0 (twice Student's density): minus the
 * derivative of fslab_t_two_sided_p, Newton's slope. */
static double st_abs_t_density(double t, double df)
{
	if (df > 1e7)
		return 2 * exp(-t * t / 2) / sqrt(2 * M_PI);
	double logc = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);

	return 2 * exp(logc - (df + 1) / 2 * log1p(t * t / df));
}

double fslab_t_quantile(double alpha, double df)
{
	double lo = 0, hi = 2, t;

	if (!(df > 0) || !(alpha > 0) || !(alpha < 1))
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

/* Recurrence up to x >= 8, then the asymptotic series (error < 1e-12). */
double fslab_digamma(double x)
{
	double r = 0, f;

	if (!(x > 0) || isinf(x))
		return isinf(x) && x > 0 ? INFINITY : NAN;
	for (; x < 8; x++)
		r -= 1 / x;
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double fslab_trigamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	if (isinf(x))
		return 0;
	for (; x < 8; x++)
		r += 1 / (x * x);
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5 / 66))));
}

/* The derivative of the trigamma function, for Newton's step below. */
static double st_tetragamma(double x)
{
	double r = 0, f;

	for (; x < 8; x++)
		r -= 2 / (x * x * x);
	f = 1 / (x * x);
	return r - f - f / x -
	       f * f * (0.5 - f * (1.0 / 6 - f * (1.0 / 6 - f * (3.0 / 10 - f * 5 / 6))));
}

/* The x with trigamma(x) = y > 0: Newton's method from 0.5 + 1/y, which
 * approaches the root from below for every y (Smyth 2004). */
static double st_trigamma_inverse(double y)
{
	double x;

	if (y > 1e7)
		return 1 / sqrt(y);
	if (y < 1e-6)
		return 1 / y;
	x = 0.5 + 1 / y;
	for (int i = 0; i < 50; i++) {
		double tri = fslab_trigamma(x), step = tri * (1 - tri / y) / st_tetragamma(x);

		x += step;
		if (-step / x < 1e-8)
			break;
	}
	return x;
}

void fslab_var_prior(const double *s2, const double *df, size_t n, double z, double *d0,
		     double *s02)
{
	double sum = 0, sum2 = 0, tri = 0;
	size_t m = 0;

	*d0 = 0;
	*s02 = NAN;
	/* e = log s2 - digamma(df/2) + log(df/2) has mean log s02 -
	 * digamma(d0/2) + log(d0/2) and variance trigamma(df/2) +
	 * trigamma(d0/2): the scatter beyond the sampling noise is the prior's */
	for (size_t i = 0; i < n; i++) {
		if (!(s2[i] > 0) || !isfinite(s2[i]) || !(df[i] >= 1))
			continue;
		double e = fslab_log_var_centred(s2[i], df[i]);

		sum += e;
		sum2 += e * e;
		tri += fslab_trigamma(df[i] / 2);
		m++;
	}
	if (m < 3)
		return;
	double mean = sum / (double)m;
	double var = (sum2 - (double)m * mean * mean) / (double)(m - 1);
	/* the sample variance's standard error is about var sqrt(2 / (m - 1)) */
	double excess = var * (1 + z * sqrt(2.0 / (double)(m - 1))) - tri / (double)m;
	if (excess > 0) {
		*d0 = 2 * st_trigamma_inverse(excess);
		*s02 = exp(mean + fslab_digamma(*d0 / 2) - log(*d0 / 2));
	} else {
		*d0 = INFINITY;
		*s02 = exp(mean);
	}
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
		*half = n >= 2 ? fslab_t_quantile(0.05, (double)(n - 1)) * sd / sqrt((double)n) : NAN;
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

enum fslab_ratio_word fslab_ratio_word_of(double lo, double hi, double delta)
{
	if (isnan(lo) || isnan(hi))
		return FSLAB_RATIO_UNTESTED;
	if (hi < 1)
		return FSLAB_RATIO_SLOWER;
	if (lo > 1)
		return FSLAB_RATIO_FASTER;
	if (lo >= 1 - delta && hi <= 1 + delta)
		return FSLAB_RATIO_EQUIVALENT;
	return FSLAB_RATIO_INCONCLUSIVE;
}

void fslab_log_ratio_interval(double dl, double se, double df, double p, double *lo, double *hi)
{
	double crit;

	*lo = *hi = NAN;
	if (!isfinite(dl) || !(se >= 0) || !(df > 0) || !(p > 0 && p < 1))
		return;
	if (se == 0) {
		*lo = *hi = exp(dl);
		return;
	}
	crit = fslab_t_quantile(p, df);
	if (!isfinite(crit))
		return;
	*lo = exp(dl - crit * se);
	*hi = exp(dl + crit * se);
}

double fslab_twoway_resid_ss(const double *y, size_t ne, size_t nk, double *row_ss)
{
	double grand = 0, ss = 0;

	if (ne < 2 || nk < 2)
		return NAN;
	for (size_t i = 0; i < ne * nk; i++)
		grand += y[i];
	grand /= (double)(ne * nk);
	for (size_t e = 0; e < ne; e++) {
		double row = 0;

		for (size_t k = 0; k < nk; k++)
			row += y[e * nk + k];
		row /= (double)nk;
		if (row_ss)
			row_ss[e] = 0;
		for (size_t k = 0; k < nk; k++) {
			double col = 0, r;

			for (size_t f = 0; f < ne; f++)
				col += y[f * nk + k];
			r = y[e * nk + k] - row - col / (double)ne + grand;
			ss += r * r;
			if (row_ss)
				row_ss[e] += r * r;
		}
	}
	return ss;
}

/* Lan and DeMets's Pocock-type alpha-spending function (Lan & DeMets
 * 1983, Biometrika 70(3):659-663): the error spent by information
 * fraction t, alpha ln(1 + (e - 1) t). */
static double st_spend_pocock(double alpha, double t)
{
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return alpha;
	return alpha * log1p((M_E - 1) * t);
}

/* ---- trials: the stopping rule's statistics ---- */

bool fslab_ci_within(const double *x, size_t n, double pct)
{
	double m, h;

	if (n < 2)
		return false;
	fslab_mean_ci95(x, n, &m, &h);
	return h <= pct / 100.0 * m;
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

void fslab_lat_quantiles(const struct fslab_lat_hist *h, double out[FSLAB_LAT_N])
{
	static const double q[FSLAB_LAT_MAX] = { 0.50, 0.99, 0.999, 0.9999 };
	static const uint64_t need[FSLAB_LAT_MAX] = { 1, 1, 1000, 10000 };

	for (int i = 0; i < FSLAB_LAT_MAX; i++)
		out[i] = h->count >= need[i] ? (double)fslab_lat_quantile(h, q[i]) : -1;
	out[FSLAB_LAT_MAX] = (double)h->max_ns;
}

/* The decided stopping rule's judgement of a test (fslab run --stop
 * decided): it is the report's inference on one cell's trials: log scores, the trials as
 * blocks (lib/stats.h fslab_twoway_resid_ss), one pooled variance for the
 * test's filesystems, Student's t intervals of the ratios (lib/stats.h
 * fslab_log_ratio_interval) and the report's words (fslab_ratio_word_of).
 * What differs is the level: each look spends part of the error (Lan and
 * DeMets's Pocock-type function), so looking after every trial keeps the
 * chance of any false "slower"/"faster" (or "equivalent" for a real
 * difference) over all the looks at alpha or below.  A comparison whose
 * conditional power (sr_futile) is too low is given up as undecidable:
 * non-binding futility, which only takes chances of a false call away. */
double fslab_stop_look_alpha(const struct fslab_stop_params *p, unsigned n)
{
	double nmax = p->max_trials;

	if (n < p->min_trials || n > p->max_trials || p->max_trials == 0)
		return 0;
	if (n == p->min_trials)
		return st_spend_pocock(p->alpha, n / nmax);
	return st_spend_pocock(p->alpha, n / nmax) - st_spend_pocock(p->alpha, (n - 1) / nmax);
}

/* The mean of n > 0 log scores (fslab_mean_sd's). */
static double sr_mean(const double *y, size_t n)
{
	double m, sd;

	fslab_mean_sd(y, n, &m, &sd);
	return m;
}

/* Is the interval of dl (standard error se on df degrees of freedom at
 * level p) decided? */
static enum fslab_ratio_word sr_word(double dl, double se, double df, double p, double delta)
{
	double lo, hi;

	fslab_log_ratio_interval(dl, se, df, p, &lo, &hi);
	return fslab_ratio_word_of(lo, hi, delta);
}

static bool sr_decided(enum fslab_ratio_word w)
{
	return w == FSLAB_RATIO_SLOWER || w == FSLAB_RATIO_FASTER || w == FSLAB_RATIO_EQUIVALENT;
}

/* P(X <= x) for X = centre + scale T, T Student's t on df degrees of
 * freedom (scale > 0). */
static double sr_t_cdf(double x, double centre, double scale, double df)
{
	double z = (x - centre) / scale, tail = fslab_t_two_sided_p(fabs(z), df) / 2;

	return z >= 0 ? 1 - tail : tail;
}

/* The chance that a look whose interval has half-width h (log scale)
 * decides a ratio whose log there is centre + scale T (T on df degrees of
 * freedom): it excludes 1 outside [-h, h], and is equivalent inside
 * [log(1 - delta) + h, log(1 + delta) - h]. */
static double sr_p_decide(double centre, double scale, double df, double h, double delta)
{
	double a = fmax(log1p(-delta) + h, -h), b = fmin(log1p(delta) - h, h);
	double p = 1 - (sr_t_cdf(h, centre, scale, df) - sr_t_cdf(-h, centre, scale, df));

	if (a < b)
		p += sr_t_cdf(b, centre, scale, df) - sr_t_cdf(a, centre, scale, df);
	return p;
}

/* A look still to come: its trials, and its interval's half-width per
 * unit of standard deviation. */
struct sr_look {
	unsigned m;
	double crit;
};

/* The looks still to come after look n that the futility judgement
 * weighs: every one up to the cap, or with more than FSLAB_STOP_LOOKS_MAX
 * to come that many evenly spaced, the cap's included.  For each, its
 * trials and its interval's half-width per unit of standard deviation
 * (the t quantile at its level over the family of m_pairs comparisons, on
 * its degrees of freedom, times sqrt(2 / m): the standard error of a
 * difference of two means of m).  They depend on no data, so a test's
 * pairs share them.  Returns how many. */
static size_t sr_future_looks(const struct fslab_stop_params *p, size_t ne, double m_pairs, unsigned n,
			      struct sr_look looks[FSLAB_STOP_LOOKS_MAX])
{
	unsigned left = p->max_trials > n ? p->max_trials - n : 0;
	unsigned step = (left + FSLAB_STOP_LOOKS_MAX - 1) / FSLAB_STOP_LOOKS_MAX;
	size_t k = 0;

	for (unsigned m = p->max_trials; m > n && k < FSLAB_STOP_LOOKS_MAX;
	     m = m - n > step ? m - step : n, k++) {
		looks[k].m = m;
		looks[k].crit = fslab_t_quantile(fslab_stop_look_alpha(p, m) / m_pairs,
						 (double)(ne - 1) * (double)(m - 1)) *
				sqrt(2.0 / m);
	}
	return k;
}

/* Futility (non-binding): could a look after n still decide a ratio now
 * estimated at dl, with residual variance s2 on df degrees of freedom?
 * Its conditional power: at a later look m the difference of means is
 * (n dl + (m - n) f) / m, f the mean of the trials still to come, which
 * under the present estimate (the observed difference and variance taken
 * for the true ones) spreads around dl with variance 2 s2 (m - n) / m^2
 * (Student's t on df: the variance is estimated); the look's interval has
 * half-width crit sqrt(s2).  The best single look's chance of a decision
 * (a lower bound of the chance of one at any look) below p->futility:
 * undecidable. */
static bool sr_futile(const struct fslab_stop_params *p, double dl, double s2, double df, unsigned n,
		      const struct sr_look *looks, size_t n_looks)
{
	for (size_t k = 0; k < n_looks; k++) {
		unsigned m = looks[k].m;
		double h = looks[k].crit * sqrt(s2), scale = sqrt(2 * s2 * (m - n)) / m;

		if (isfinite(h) && sr_p_decide(dl, scale, df, h, p->delta) >= p->futility)
			return false;
	}
	return true;
}

/* One filesystem: its own interval must lie inside 1 +- delta / 2 of its
 * score (the interval of exp(mean log) over its geometric mean), now, or
 * by the cap on the present standard deviation. */
static void sr_judge_one(const struct fslab_stop_params *p, const double *y, size_t n,
			 unsigned look, struct fslab_stop_tally *t)
{
	double m, sd, crit, half = log1p(p->delta / 2);

	fslab_mean_sd(y, n, &m, &sd);
	t->pairs = 1;
	crit = fslab_t_quantile(fslab_stop_look_alpha(p, look), (double)n - 1);
	if (sd == 0 || crit * sd / sqrt((double)n) <= half) {
		t->decided = 1;
		return;
	}
	if (look >= p->max_trials)
		return;
	crit = fslab_t_quantile(fslab_stop_look_alpha(p, p->max_trials), (double)p->max_trials - 1);
	if (crit * sd / sqrt((double)p->max_trials) > half)
		t->undecidable = 1;
}

/* Every pair of ne >= 2 filesystems: decided at an earlier look (words,
 * when given), decided now at this look's level (then kept in words), or
 * (when not) judged futile by the looks still to come (sr_futile), on the
 * present variance with (ne - 1)(n - 1) degrees of freedom. */
static void sr_judge_pairs(const struct fslab_stop_params *p, const double *y, size_t ne, size_t n,
			   unsigned look, unsigned char *words, struct fslab_stop_tally *t)
{
	double df = (double)(ne - 1) * (double)(n - 1), s2 = fslab_twoway_resid_ss(y, ne, n, NULL) / df;
	double m = (double)ne * (double)(ne - 1) / 2, level = fslab_stop_look_alpha(p, look) / m;
	double se = sqrt(2 * s2 / (double)n);
	struct sr_look looks[FSLAB_STOP_LOOKS_MAX];
	size_t n_looks = look < p->max_trials ? sr_future_looks(p, ne, m, look, looks) : 0;

	for (size_t i = 0; i < ne; i++)
		for (size_t j = i + 1; j < ne; j++) {
			double dl = sr_mean(y + i * n, n) - sr_mean(y + j * n, n);
			enum fslab_ratio_word w;

			if (words && sr_decided((enum fslab_ratio_word)words[t->pairs])) {
				t->decided++;
				t->wrong_way += words[t->pairs++] != FSLAB_RATIO_EQUIVALENT;
				continue;
			}
			w = sr_word(dl, se, df, level, p->delta);
			if (words)
				words[t->pairs] = (unsigned char)w;
			t->pairs++;
			if (sr_decided(w)) {
				t->decided++;
				t->wrong_way += w != FSLAB_RATIO_EQUIVALENT;
				continue;
			}
			if (look < p->max_trials && sr_futile(p, dl, s2, df, look, looks, n_looks))
				t->undecidable++;
		}
}

enum fslab_stop_why fslab_stop_judge(const struct fslab_stop_params *p, const double *y, size_t ne,
				     size_t nk, unsigned char *words, struct fslab_stop_tally *t)
{
	struct fslab_stop_tally local;

	if (!t)
		t = &local;
	memset(t, 0, sizeof(*t));
	if (ne == 0 || nk == 0)
		return t->why = FSLAB_STOP_NO_DATA;
	if (nk < 2 || nk < p->min_trials)
		return t->why = nk >= p->max_trials ? FSLAB_STOP_MAX_TRIALS : FSLAB_STOP_OPEN;
	/* more trials than the cap (a cap lowered since): the cap's look */
	unsigned look = nk > p->max_trials ? p->max_trials : (unsigned)nk;
	if (ne == 1)
		sr_judge_one(p, y, nk, look, t);
	else
		sr_judge_pairs(p, y, ne, nk, look, words, t);
	if (t->decided == t->pairs)
		t->why = FSLAB_STOP_DECIDED;
	else if (t->decided + t->undecidable == t->pairs)
		t->why = FSLAB_STOP_UNDECIDABLE;
	else
		t->why = look >= p->max_trials ? FSLAB_STOP_MAX_TRIALS : FSLAB_STOP_OPEN;
	return t->why;
}
