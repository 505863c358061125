/* The verdict harness's quick version (tests/report/verdict_harness.c
 * prints the full figures): synthetic experiments with a known truth
 * through the real report code, fixed seeds so the counts are exact.
 * - no ranked cell shows an interval that disagrees with its word;
 * - A/A: equal filesystems are rarely called different (the family-wise
 *   rate the method promises is 5%);
 * - a 10% slowdown at 2% trial CV with 3 trials is called.
 * A method that called everything, or nothing, fails one of these. */
#include "synth.h"
#include "testutil.h"

#include <stdlib.h>

static const char *tmpdir(void)
{
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

START_TEST(t_aa_no_disagreement_few_false_alarms)
{
	struct synth_cfg c = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .cv_hi = 0.08 };
	struct synth_tally t = { 0 };

	ck_assert_int_eq(synth_run(&c, 60, 7, tmpdir(), &t), 0);
	ck_assert_uint_eq(t.experiments, 60);
	ck_assert_uint_eq(t.cells, 60 * 13 * 4);
	ck_assert_msg(t.disagree == 0, "%lu of %lu cells disagree with their interval", t.disagree,
		      t.cells);
	/* at most 5% expected: 3 of 60 is its mean; 8 would be far beyond */
	ck_assert_msg(t.fw_false <= 7, "%lu of 60 A/A experiments called a difference", t.fw_false);
	/* and the method is not silent about equal filesystems: at 1% CV with
	 * 5 trials most pairs are called equivalent within 5% */
	struct synth_cfg q = { .n_fs = 5, .n_tests = 13, .trials = 5, .cv = 0.01 };
	t = (struct synth_tally){ 0 };
	ck_assert_int_eq(synth_run(&q, 20, 9, tmpdir(), &t), 0);
	ck_assert_uint_eq(t.disagree, 0);
	ck_assert_msg(t.equivalent * 2 > t.null_cmp, "%lu of %lu equal pairs called equivalent",
		      t.equivalent, t.null_cmp);
}
END_TEST

START_TEST(t_power_for_a_known_slowdown)
{
	struct synth_cfg c = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .n_slow = 1, .slowdown = 0.10 };
	struct synth_tally t = { 0 };

	ck_assert_int_eq(synth_run(&c, 30, 11, tmpdir(), &t), 0);
	ck_assert_uint_eq(t.slow_cmp + 0, 30 * 13);
	ck_assert_msg(t.disagree == 0, "%lu cells disagree", t.disagree);
	ck_assert_msg(t.slow_hits * 100 >= t.slow_cmp * 80, "10%% slowdown called in %lu of %lu",
		      t.slow_hits, t.slow_cmp);
	/* heavy tails and hiccups: still no disagreement */
	struct synth_cfg h = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .n_slow = 1,
			       .slowdown = 0.10, .tails = SYNTH_T3, .outlier_p = 0.05, .outlier = 0.7,
			       .drift = 0.02, .noisy = 2 };
	t = (struct synth_tally){ 0 };
	ck_assert_int_eq(synth_run(&h, 20, 13, tmpdir(), &t), 0);
	ck_assert_uint_eq(t.disagree, 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_synth");
	TCase *tc = ft_tcase(s, "core", 0);

	tcase_add_test(tc, t_aa_no_disagreement_few_false_alarms);
	tcase_add_test(tc, t_power_for_a_known_slowdown);
	return ft_suite_run(s, argc, argv);
}
