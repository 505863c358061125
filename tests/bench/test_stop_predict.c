/* The ETA's forecast of the decided rule's trials (bench/stop_predict.h,
 * bench/run_predict.c) on synthetic spreads: data that decide at once are
 * forecast to stop at the minimum, close or noisy data to run longer, an
 * open borderline test to run near the cap; and over a sweep's first
 * trial, the noise read off the neighbouring cells.  Fixed seeds,
 * deterministic, well under a second. */
#include "testutil.h"

#include "engine/engine.h"
#include "run_int.h"
#include "stats.h"
#include "stop_predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct fslab_stop_params params = {
	.alpha = FSLAB_FAMILY_ALPHA,
	.delta = FSLAB_EQUIVALENCE_DEFAULT,
	.futility = FSLAB_STOP_FUTILITY,
	.min_trials = 3,
	.max_trials = 10,
};

#define REPS 400

/* The mean forecast trials of a test of 2 filesystems measured nk times:
 * the second `ratio` times the first, each trial off its truth by
 * +-sigma (alternating, so the data's spread is sigma), over REPS
 * continuations; *at_cap gets the share of them that reach the cap. */
static double forecast_mean(double ratio, double sigma, size_t nk, double *at_cap)
{
	double y[2 * 16], sum = 0;
	uint64_t rng = 12345;
	unsigned cap = 0;

	for (size_t k = 0; k < nk; k++) {
		double z = (k % 2 ? 1 : -1) * sigma;

		y[k] = log(1000.0) + z;
		y[nk + k] = log(1000.0 * ratio) - z;
	}
	for (int r = 0; r < REPS; r++) {
		unsigned n = fslab_stop_simulate(&params, y, 2, nk, NULL, (unsigned)nk, NULL, sigma, &rng);

		ck_assert_uint_ge(n, params.min_trials);
		ck_assert_uint_le(n, params.max_trials);
		sum += n;
		cap += n == params.max_trials;
	}
	if (at_cap)
		*at_cap = (double)cap / REPS;
	return sum / REPS;
}

/* Filesystems 30% apart at 1% noise: every look decides; the forecast
 * after one trial is the minimum. */
START_TEST(tight_different_data_stops_at_the_minimum)
{
	double m = forecast_mean(1.3, 0.01, 1, NULL);

	ck_assert_msg(m <= 3.05, "forecast %.2f trials for a 30%% difference at 1%% noise (3 expected)", m);
}
END_TEST

/* Equal filesystems at 2% noise: the rule needs several looks to call
 * them equivalent (or give up): well past the minimum. */
START_TEST(close_noisy_data_runs_longer)
{
	double tight = forecast_mean(1.3, 0.01, 1, NULL), close = forecast_mean(1.0, 0.02, 1, NULL);

	ck_assert_msg(close >= 5 && close <= 7, "forecast %.2f trials for equal filesystems at 2%% noise", close);
	ck_assert_double_gt(close, tight + 1.5);
}
END_TEST

/* Still open after 7 trials with a difference on the margin (5%) at 2%
 * noise: the forecast goes on to near the cap, a good share of it to
 * the cap itself. */
START_TEST(open_borderline_test_runs_near_the_cap)
{
	double cap, m = forecast_mean(1.05, 0.02, 7, &cap);

	ck_assert_msg(m >= 8.5, "forecast %.2f trials for a borderline test open after 7", m);
	ck_assert_double_ge(cap, 0.1);
}
END_TEST

/* A pair decided at an earlier look stands: a test whose every pair is
 * decided stops at its first look; no data stops at once; a cap beyond
 * what is forecast gives no forecast (0). */
START_TEST(decisions_stand_and_limits)
{
	double y[2 * 4] = { 1, 1.2, 0.9, 1.1, 1, 1.3, 0.8, 1.1 }; /* equal and very noisy */
	unsigned char words[1] = { FSLAB_RATIO_EQUIVALENT };
	struct fslab_stop_params big = params;
	uint64_t rng = 1;

	ck_assert_uint_eq(fslab_stop_simulate(&params, y, 2, 4, words, 4, NULL, 0.2, &rng), 4);
	ck_assert_uint_eq(fslab_stop_simulate(&params, NULL, 0, 0, NULL, 1, NULL, 0.2, &rng), 3);
	big.max_trials = FSLAB_STOP_PREDICT_TRIALS_MAX + 1;
	ck_assert_uint_eq(fslab_stop_simulate(&big, y, 2, 4, NULL, 4, NULL, 0.2, &rng), 0);
}
END_TEST

/* A sweep's first trial on 2 filesystems (files 64K-1M, records 4K-1M:
 * 35 cells, all 13 tests): a smooth throughput surface, the second
 * filesystem `ratio` times the first, each cell off it by log-normal
 * noise of `cv`.  Returns the forecast's mean trials per test (over its
 * replicates, cells and tests). */
static double sweep_forecast(double ratio, double cv, uint64_t seed)
{
	struct fslab_sweep_spec sw;
	struct fslab_plan plan;
	struct fslab_run_ctx *c = calloc(1, sizeof(*c));
	struct run_fs_state fst[2];
	struct run_forecast *fc;
	double sum = 0;
	size_t n = 0;

	ck_assert_ptr_nonnull(c);
	memset(fst, 0, sizeof(fst));
	fslab_sweep_defaults(&sw);
	sw.file_min = 64 * 1024;
	sw.file_max = 1024 * 1024;
	sw.record_min = 4096;
	sw.record_max = 1024 * 1024;
	sw.trials = 3;
	ck_assert_int_eq(fslab_plan_build(&sw, &plan), 0);
	ck_assert_uint_eq(plan.n, 35);
	c->sweep = sw;
	c->n_fs = 2;
	c->max_trials = 10;
	c->stop_rule = FSLAB_STOP_RULE_DECIDED;
	ck_assert_int_eq(run_stop_begin(c, &plan), 0);
	for (size_t i = 0; i < plan.n; i++)
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			if (!(sw.tests & (1u << t)))
				continue;
			uint64_t f = plan.cells[i].file_bytes / 1024, r = plan.cells[i].record_bytes / 1024;
			/* slowly moving with the record and file, different per test */
			double base = 1e5 * (1 + t) * pow((double)r, 0.3) * pow((double)f, 0.1);

			for (size_t e = 0; e < 2; e++)
				ck_assert_int_eq(fslab_done_add(&fst[e].done,
								&(struct fslab_cell_key){ .test = (enum fslab_test)t,
											  .file_kib = f, .record_kib = r,
											  .iodepth = 1, .jobs = 1, .trial = 1 },
								true, base * (e ? ratio : 1) * exp(cv * fslab_stop_normal(&seed))),
						 0);
		}
	fc = run_forecast_make(c, fst, 1);
	ck_assert_ptr_nonnull(fc);
	for (unsigned r = 0; r < run_forecast_reps(fc); r++)
		for (size_t i = 0; i < plan.n; i++)
			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				unsigned g = run_forecast_trials(fc, r, i, t);

				if (!(sw.tests & (1u << t))) {
					ck_assert_uint_eq(g, 0); /* not in the sweep */
					continue;
				}
				n++;

				ck_assert_uint_ge(g, 3);
				ck_assert_uint_le(g, 10);
				ck_assert_uint_le(g, run_forecast_trials(fc, r, i, FSLAB_TEST_MAX));
				ck_assert_uint_le(run_forecast_trials(fc, r, i, FSLAB_TEST_MAX), run_forecast_passes(fc, r));
				sum += g;
			}
	run_forecast_free(fc);
	run_stop_end(c);
	fslab_done_free(&fst[0].done);
	fslab_done_free(&fst[1].done);
	fslab_plan_free(&plan);
	free(c);
	return sum / (double)n;
}

/* After the first trial there is no residual yet: the noise comes from
 * the neighbouring cells.  Tight data 30% apart: about the minimum; the
 * same surface equal on both and noisy: well past it. */
START_TEST(first_trial_forecast_reads_the_noise_off_neighbours)
{
	double tight = sweep_forecast(1.3, 0.005, 7), noisy = sweep_forecast(1.0, 0.03, 7);

	ck_assert_msg(tight <= 3.3, "forecast %.2f trials per test for tight data 30%% apart", tight);
	ck_assert_msg(noisy >= 4.3, "forecast %.2f trials per test for equal, noisy data", noisy);
	/* no forecast without the decided rule's record, or before a trial */
	struct fslab_run_ctx *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_null(run_forecast_make(c, NULL, 1));
	free(c);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("stop_predict");
	TCase *tc = ft_tcase(s, "forecast", 0);

	tcase_add_test(tc, tight_different_data_stops_at_the_minimum);
	tcase_add_test(tc, close_noisy_data_runs_longer);
	tcase_add_test(tc, open_borderline_test_runs_near_the_cap);
	tcase_add_test(tc, decisions_stand_and_limits);
	tcase_add_test(tc, first_trial_forecast_reads_the_noise_off_neighbours);
	return ft_suite_run(s, argc, argv);
}
