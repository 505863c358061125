/* lib/progress: the ETA arithmetic setup's preconditioning relies on
 * (work in bytes, an estimated rate before anything is measured), the
 * planned job's range and share fslab run sets (set_left: never 0:00
 * with work left, the range shown as lo..hi, a share that never goes
 * back) and the duration format its progress line and plan print. */
#include "progress.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

START_TEST(eta_from_the_estimate_before_any_work)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "precondition", true);

	ck_assert_ptr_nonnull(p);
	fslab_progress_set_work(p, 2.0 * 1048576 * 1024, 0);  /* 2 GiB */
	ck_assert(fslab_progress_eta(p) < 0);                  /* nothing known yet */
	fslab_progress_set_estimate(p, 1.0 / (500.0 * 1048576)); /* 500 MiB/s */
	ck_assert(fabs(fslab_progress_eta(p) - 2048.0 / 500.0) < 1e-9);
	fslab_progress_set_pipeline(p, 0, 60, 60);                /* a minute after it */
	ck_assert(fabs(fslab_progress_eta(p) - (2048.0 / 500.0 + 60)) < 1e-9);
	fslab_progress_free(p);
}
END_TEST

START_TEST(eta_none_left_once_all_work_is_done)
{
	struct fslab_progress *p = fslab_progress_new(NULL, NULL, true);

	fslab_progress_set_work(p, 1000, 0);
	fslab_progress_set_estimate(p, 0.5);
	fslab_progress_add_work(p, 1000);
	ck_assert(fabs(fslab_progress_eta(p)) < 1e-9);
	fslab_progress_free(p);
}
END_TEST

START_TEST(durations)
{
	char b[32];

	ck_assert_str_eq(fslab_progress_format_duration(4194.3, b, sizeof(b)), "1:09:54");
	ck_assert_str_eq(fslab_progress_format_duration(4.1, b, sizeof(b)), "0:04");
	ck_assert_str_eq(fslab_progress_format_duration(-1, b, sizeof(b)), "?");
}
END_TEST

/* Off a terminal, draw prints nothing (a log gets the notes only). */
START_TEST(draw_is_silent_off_a_terminal)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct fslab_progress *p = fslab_progress_new(f, "precondition", false);

	ck_assert(!fslab_progress_is_tty(p));
	fslab_progress_set_work(p, 100, 0);
	fslab_progress_draw(p, "1 MiB/2 MiB  50%", true);
	fflush(f);
	ck_assert_str_eq(buf, "");
	fslab_progress_free(p);
	fclose(f);
}
END_TEST

/* A planned job whose estimate says "nothing left" while its work is not
 * done still shows time left; at the end it shows none. */
START_TEST(eta_never_zero_with_work_left)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);
	double lo, hi, pt;
	char b[64];

	fslab_progress_set_left(p, 0, 0, 0, 0.9);
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_ge(pt, FSLAB_PROGRESS_MIN_LEFT_S);
	ck_assert_double_ge(lo, FSLAB_PROGRESS_MIN_LEFT_S);
	ck_assert_double_ge(fslab_progress_eta(p), FSLAB_PROGRESS_MIN_LEFT_S);
	ck_assert_str_ne(fslab_progress_format_eta(p, b, sizeof(b)), "0:00");
	/* the pipeline's later stages count too */
	fslab_progress_set_pipeline(p, 0, 30, 90);
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_ge(lo, 30 + FSLAB_PROGRESS_MIN_LEFT_S);
	ck_assert_double_ge(hi, 90 + FSLAB_PROGRESS_MIN_LEFT_S);
	fslab_progress_set_pipeline(p, 0, 0, 0);
	fslab_progress_set_left(p, 0, 0, 0, 1);
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_eq(lo, 0);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "0:00");
	fslab_progress_free(p);
}
END_TEST

/* The range is shown as lo..hi while it is one (with the figure expected
 * first when the caller has one), and narrows to one figure as the
 * caller narrows it. */
START_TEST(range_shown_and_narrowed)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);
	double lo, hi, pt, w0, w1;
	char b[64];

	ck_assert(!fslab_progress_eta_range(p, &lo, &pt, &hi)); /* no plan yet */
	fslab_progress_set_left(p, 600, -1, 2400, 0.1);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "10:00..40:00");
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_lt(pt, 0); /* no figure: the range alone */
	w0 = hi - lo;
	fslab_progress_set_left(p, 500, 700, 900, 0.3);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "11:40 (8:20..15:00)");
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_eq_tol(fslab_progress_eta(p), pt, 0.5); /* the clock moved */
	w1 = hi - lo;
	ck_assert_double_lt(w1, w0);
	/* a figure outside its range is brought inside it */
	fslab_progress_set_left(p, 500, 1000, 900, 0.3);
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_le(pt, hi);
	fslab_progress_set_left(p, 400, 400, 400, 0.5);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "6:40");
	fslab_progress_set_left(p, -1, -1, 0, 0); /* cleared: the work-rate ETA again */
	ck_assert(!fslab_progress_eta_range(p, &lo, &pt, &hi));
	fslab_progress_free(p);
}
END_TEST

/* The share of the plan done never goes back, whatever the caller says. */
START_TEST(percentage_is_monotonic)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);
	const double said[] = { 0.1, 0.25, 0.2, 0.6, 0.59, 1.2 };
	double last = 0;

	ck_assert_double_lt(fslab_progress_done_pct(p), 0); /* no plan yet */
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		fslab_progress_set_left(p, 10, 15, 20, said[i]);
		ck_assert_double_ge(fslab_progress_done_pct(p), last);
		last = fslab_progress_done_pct(p);
	}
	ck_assert_double_eq(last, 100);
	fslab_progress_free(p);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("progress");
	TCase *tc = ft_tcase(s, "progress", 0);

	tcase_add_test(tc, eta_from_the_estimate_before_any_work);
	tcase_add_test(tc, eta_none_left_once_all_work_is_done);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, draw_is_silent_off_a_terminal);
	tcase_add_test(tc, eta_never_zero_with_work_left);
	tcase_add_test(tc, range_shown_and_narrowed);
	tcase_add_test(tc, percentage_is_monotonic);
	return ft_suite_run(s, argc, argv);
}
