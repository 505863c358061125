/* The stopping rules of fslab run (stop_rule.h).  The judgement of a test
 * is the report's inference on one cell's trials: log scores, the trials as
 * blocks (lib/stats.h fslab_twoway_resid_ss), one pooled variance for the
 * test's filesystems, Student's t intervals of the ratios (lib/stats.h
 * fslab_log_ratio_interval) and the report's words (fslab_ratio_word_of).
 * What differs is the level: each look spends part of the error (Lan and
 * DeMets's Pocock-type function), so looking after every trial keeps the
 * chance of any false "slower"/"faster" (or "equivalent" for a real
 * difference) over all the looks at alpha or below. */
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

/* Could the cap's look decide a ratio now estimated at dl (standard error
 * se)?  Its interval has half-width crit(level_max, df_max) se_max; its
 * centre is taken anywhere in dl +- se (the present estimate give or take
 * one standard error).  Decidable when some centre there gives an interval
 * that excludes 1 or lies inside the margin. */
static bool sr_decidable(double dl, double se, double se_max, double df_max, double level_max,
			 double delta)
{
	double h = fslab_t_quantile(level_max, df_max) * se_max;
	double far = fabs(dl) + se, near = fabs(dl) > se ? fabs(dl) - se : 0;

	if (!isfinite(h))
		return false;
	/* excludes 1: |centre| > h; inside the margin: the interval of the
	 * nearest centre within [1 - delta, 1 + delta] */
	return far > h || sr_decided(sr_word(near, se_max, df_max, level_max, delta));
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

/* Every pair of ne >= 2 filesystems: decided now at this look's level, or
 * (when not) decidable by the cap: the interval the cap's look would draw
 * around the present ratio with the present variance, (ne - 1)(cap - 1)
 * degrees of freedom and the cap's level. */
static void sr_judge_pairs(const struct fslab_stop_params *p, const double *y, size_t ne, size_t n,
			   unsigned look, struct fslab_stop_tally *t)
{
	double df = (double)(ne - 1) * (double)(n - 1), s2 = fslab_twoway_resid_ss(y, ne, n, NULL) / df;
	double m = (double)ne * (double)(ne - 1) / 2, nmax = p->max_trials;
	double level = fslab_stop_look_alpha(p, look) / m;
	double level_max = fslab_stop_look_alpha(p, p->max_trials) / m;
	double df_max = (double)(ne - 1) * (nmax - 1), se = sqrt(2 * s2 / (double)n);

	for (size_t i = 0; i < ne; i++)
		for (size_t j = i + 1; j < ne; j++) {
			double dl = sr_mean(y + i * n, n) - sr_mean(y + j * n, n);
			enum fslab_ratio_word w = sr_word(dl, se, df, level, p->delta);

			t->pairs++;
			if (sr_decided(w)) {
				t->decided++;
				t->wrong_way += w != FSLAB_RATIO_EQUIVALENT;
				continue;
			}
			if (look >= p->max_trials)
				continue;
			if (!sr_decidable(dl, se, sqrt(2 * s2 / nmax), df_max, level_max, p->delta))
				t->undecidable++;
		}
}

enum fslab_stop_why fslab_stop_judge(const struct fslab_stop_params *p, const double *y, size_t ne,
				     size_t nk, struct fslab_stop_tally *t)
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
		sr_judge_pairs(p, y, ne, nk, look, t);
	if (t->decided == t->pairs)
		t->why = FSLAB_STOP_DECIDED;
	else if (t->decided + t->undecidable == t->pairs)
		t->why = FSLAB_STOP_UNDECIDABLE;
	else
		t->why = look >= p->max_trials ? FSLAB_STOP_MAX_TRIALS : FSLAB_STOP_OPEN;
	return t->why;
}
