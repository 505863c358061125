/* How many trials the decided rule (stop_rule.h) will give a test: its
 * forecast, for fslab run's ETA (bench/run_predict.c applies it to the
 * sweep).  Pure functions of the numbers given, so
 * tests/bench/test_stop_predict.c drives them with synthetic spreads.
 *
 * The forecast continues a test's trials so far by simulation and feeds
 * each continuation through the rule's own judgement (fslab_stop_judge) at
 * every look still to come: each filesystem's true log score is drawn
 * around its mean so far (its standard error), each trial to come around
 * that with the test's noise, and the trial count is the look at which
 * the judgement first stops (or the cap). */
#ifndef FSLAB_BENCH_STOP_PREDICT_H
#define FSLAB_BENCH_STOP_PREDICT_H

#include "stop_rule.h"

#include <stdint.h>

/* The largest trial cap forecast (a continuation is judged at each of its
 * looks); a run with a higher --max-trials shows the range up to it. */
#define FSLAB_STOP_PREDICT_TRIALS_MAX 64
/* ... and filesystems (FSLAB_MAX_FS, lib/spec.h). */
#define FSLAB_STOP_TRUTH_MAX 16

/* Where the true scores of a test's filesystems lie (log scale): about
 * centre[e] each, with this standard deviation.  The forecast's caller
 * shrinks each filesystem's mean so far towards what the test shows on
 * the other cells (stop_predict.c: a test still open is one whose
 * difference looked promising so far, and the truth is mostly less so). */
struct fslab_stop_truth {
	double centre[FSLAB_STOP_TRUTH_MAX];
	double sd;
};

/* The trials at which one continuation of y (ne filesystems x nk trials
 * of log scores, row-major, as fslab_stop_judge takes them; words as
 * there, not changed) stops, looking at first_look (>= nk; a look at nk
 * judges the trials so far alone) and at each trial after it up to the
 * cap; sigma is the standard deviation of one trial's log score; the
 * true scores are drawn from truth, or with truth NULL around each
 * filesystem's mean so far to its standard error.  ne == 0
 * (no data) stops at the first look.  *rng is the generator's state
 * (any value; advanced).  0 when the cap is above
 * FSLAB_STOP_PREDICT_TRIALS_MAX or nk above the cap: no forecast. */
unsigned fslab_stop_simulate(const struct fslab_stop_params *p, const double *y, size_t ne, size_t nk,
			     const unsigned char *words, unsigned first_look, const struct fslab_stop_truth *truth,
			     double sigma, uint64_t *rng);

/* A standard normal deviate from *rng (splitmix64, Box-Muller). */
double fslab_stop_normal(uint64_t *rng);

#endif
