/* The decided rule's forecast (stop_predict.h): a continuation of a
 * test's trials, judged at every look as the sweep judges it. */
#include "stop_predict.h"

#include "bench_int.h"

#include <math.h>
#include <string.h>

_Static_assert(FSLAB_STOP_PREDICT_TRIALS_MAX >= 2, "a forecast needs two trials");
_Static_assert(FSLAB_STOP_TRUTH_MAX >= FSLAB_MAX_FS, "a truth for each filesystem");

static uint64_t sp_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

double fslab_stop_normal(uint64_t *rng)
{
	double u = ((double)(sp_next(rng) >> 11) + 0.5) / 9007199254740992.0;
	double v = ((double)(sp_next(rng) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

unsigned fslab_stop_simulate(const struct fslab_stop_params *p, const double *y, size_t ne, size_t nk,
			     const unsigned char *words, unsigned first_look, const struct fslab_stop_truth *truth,
			     double sigma, uint64_t *rng)
{
	double series[FSLAB_MAX_FS][FSLAB_STOP_PREDICT_TRIALS_MAX];
	double packed[FSLAB_MAX_FS * FSLAB_STOP_PREDICT_TRIALS_MAX];
	unsigned char w[FSLAB_STOP_PAIRS_MAX];
	unsigned cap = p->max_trials;
	size_t pairs = ne * (ne > 0 ? ne - 1 : 0) / 2;

	if (cap > FSLAB_STOP_PREDICT_TRIALS_MAX || nk > cap)
		return 0;
	if (first_look < nk)
		first_look = (unsigned)nk;
	if (first_look < p->min_trials)
		first_look = p->min_trials;
	if (ne == 0 || first_look >= cap || ne > FSLAB_MAX_FS || pairs > FSLAB_STOP_PAIRS_MAX)
		return first_look < cap ? first_look : cap;
	if (!(sigma >= 0))
		sigma = 0;
	if (words)
		memcpy(w, words, pairs);
	else
		memset(w, 0, sizeof(w));
	/* each filesystem's true score drawn around the caller's centre (or
	 * its mean so far, to its standard error), then the trials to come
	 * around it */
	for (size_t e = 0; e < ne; e++) {
		double m = 0, mu;

		for (size_t k = 0; k < nk; k++)
			m += series[e][k] = y[e * nk + k];
		if (truth)
			mu = truth->centre[e] + truth->sd * fslab_stop_normal(rng);
		else
			mu = nk ? m / (double)nk + sigma / sqrt((double)nk) * fslab_stop_normal(rng) : 0;
		for (size_t k = nk; k < cap; k++)
			series[e][k] = mu + sigma * fslab_stop_normal(rng);
	}
	for (unsigned n = first_look; n <= cap; n++) {
		if (n < 2)
			continue;
		for (size_t e = 0; e < ne; e++)
			memcpy(packed + e * n, series[e], n * sizeof(double));
		if (fslab_stop_judge(p, packed, ne, n, w, NULL) != FSLAB_STOP_OPEN)
			return n;
	}
	return cap;
}
