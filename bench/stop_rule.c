/* The stopping rules of fslab run (stop_rule.h).  The judgement of a test
 * is the report's inference on one cell's trials: log scores, the trials as
 * blocks (lib/stats.h fslab_twoway_resid_ss), one pooled variance for the
 * test's filesystems, Student's t intervals of the ratios (lib/stats.h
 * fslab_log_ratio_interval) and the report's words (fslab_ratio_word_of).
 * What differs is the level: each look spends part of the error (Lan and
 * DeMets's Pocock-type function), so looking after every trial keeps the
 * chance of any false "slower"/"faster" (or "equivalent" for a real
 * difference) over all the looks at alpha or below.  A comparison whose
 * conditional power (sr_futile) is too low is given up as undecidable:
 * non-binding futility, which only takes chances of a false call away. */
#include "stop_rule.h"

#include "names.h"
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const char *const stop_rule_names[FSLAB_STOP_RULE_MAX] = {
	[FSLAB_STOP_RULE_DECIDED] = "decided",
	[FSLAB_STOP_RULE_CI] = "ci",
	[FSLAB_STOP_RULE_FIXED] = "fixed",
};

static const char *const stop_why_names[FSLAB_STOP_WHY_MAX] = {
	[FSLAB_STOP_OPEN] = "open",
	[FSLAB_STOP_DECIDED] = "decided",
	[FSLAB_STOP_UNDECIDABLE] = "undecidable",
	[FSLAB_STOP_MAX_TRIALS] = "max_trials",
	[FSLAB_STOP_NO_DATA] = "no_data",
};

const char *fslab_stop_rule_to_string(enum fslab_stop_rule r)
{
	return r >= 0 && r < FSLAB_STOP_RULE_MAX ? stop_rule_names[r] : "?";
}

enum fslab_stop_rule fslab_stop_rule_from_string(const char *s)
{
	return (enum fslab_stop_rule)fslab_name_index(stop_rule_names, FSLAB_STOP_RULE_MAX, s);
}

const char *fslab_stop_why_to_string(enum fslab_stop_why w)
{
	return w >= 0 && w < FSLAB_STOP_WHY_MAX ? stop_why_names[w] : "?";
}

double fslab_stop_look_alpha(const struct fslab_stop_params *p, unsigned n)
{
	double nmax = p->max_trials;

	if (n < p->min_trials || n > p->max_trials || p->max_trials == 0)
		return 0;
	if (n == p->min_trials)
		return fslab_spend_pocock(p->alpha, n / nmax);
	return fslab_spend_pocock(p->alpha, n / nmax) - fslab_spend_pocock(p->alpha, (n - 1) / nmax);
}

static double sr_mean(const double *y, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += y[i];
	return s / (double)n;
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
	double m = sr_mean(y, n), ss = 0, sd, crit, half = log1p(p->delta / 2);

	for (size_t k = 0; k < n; k++)
		ss += (y[k] - m) * (y[k] - m);
	sd = sqrt(ss / (double)(n - 1));
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
