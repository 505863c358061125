/* lib/progress: the ETA arithmetic setup's preconditioning relies on
 * (work in bytes, an estimated rate before anything is measured), the
 * range and share fslab run sets (never 0:00 with work left, the range
 * shown as lo..hi, a share that never goes back), the line off a terminal
 * at least every beat, and the duration format its progress line and plan
 * print. */
#include "progress.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* A job whose estimate says "nothing left" while its work is not done
 * still shows time left; at the end it shows none. */
START_TEST(eta_never_zero_with_work_left)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);
	double lo, hi, pt;
	char b[64];

	fslab_progress_set_work(p, 100, 0);
	fslab_progress_set_estimate(p, 1e-4); /* 0.01 s of work left */
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
	fslab_progress_add_work(p, 100);
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_eq(lo, 0);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "0:00");
	fslab_progress_free(p);
}
END_TEST

/* The figure comes with the range the work total may end in (a stopping
 * rule's trials), one figure when there is none. */
START_TEST(range_shown_and_narrowed)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);
	double lo, hi, pt;
	char b[64];

	ck_assert(!fslab_progress_eta_range(p, &lo, &pt, &hi)); /* no work yet */
	fslab_progress_set_work(p, 1000, 0);
	ck_assert(!fslab_progress_eta_range(p, &lo, &pt, &hi)); /* no rate yet */
	fslab_progress_set_estimate(p, 1);
	fslab_progress_set_work_range(p, 800, 2000);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "16:40 (13:20..33:20)");
	ck_assert(fslab_progress_eta_range(p, &lo, &pt, &hi));
	ck_assert_double_eq_tol(fslab_progress_eta(p), pt, 1e-9);
	fslab_progress_set_work_range(p, 1000, 1000);
	ck_assert_str_eq(fslab_progress_format_eta(p, b, sizeof(b)), "16:40");
	fslab_progress_free(p);
}
END_TEST

/* The share of the work done never goes back, even when the work ahead
 * grows (a trial past the minimum), and stops at 100. */
START_TEST(percentage_is_monotonic)
{
	struct fslab_progress *p = fslab_progress_new(NULL, "run", true);

	ck_assert_double_lt(fslab_progress_done_pct(p), 0); /* no work yet */
	fslab_progress_set_work(p, 100, 0);
	fslab_progress_add_work(p, 30);
	ck_assert_double_eq_tol(fslab_progress_done_pct(p), 30, 1e-9);
	fslab_progress_set_work(p, 300, 30);
	fslab_progress_add_work(p, 10);
	ck_assert_double_eq_tol(fslab_progress_done_pct(p), 30, 1e-9);
	fslab_progress_add_work(p, 500);
	ck_assert_double_eq(fslab_progress_done_pct(p), 100);
	fslab_progress_free(p);
}
END_TEST

/* Off a terminal a line comes at least every beat, also while the caller
 * prints nothing (a long cell), and none while it does. */
START_TEST(beat_prints_off_a_terminal)
{
	char buf[1024] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct fslab_progress *p = fslab_progress_new(f, "run", false);

	fslab_progress_set_work(p, 100, 0);
	fslab_progress_set_estimate(p, 1);
	fslab_progress_beat(p, 1);
	ck_assert_int_eq(usleep(3600000), 0);
	fslab_progress_free(p);
	fclose(f);
	/* a beat each second: two lines at least, even if one wake is late */
	ck_assert_msg(strstr(buf, "run: elapsed 0:0") && strstr(strstr(buf, "run: elapsed 0:0") + 1, "run: elapsed 0:0"),
		      "%s", buf);
	f = fmemopen(buf, sizeof(buf), "w");
	p = fslab_progress_new(f, "run", false);
	fslab_progress_beat(p, 5); /* far beyond the notes' gaps, also under valgrind */
	for (int i = 0; i < 6; i++) {
		fslab_progress_note(p, "note %d", i);
		ck_assert_int_eq(usleep(400000), 0);
	}
	fslab_progress_free(p);
	fclose(f);
	ck_assert_msg(!strstr(buf, "elapsed"), "%s", buf);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("progress");
	TCase *tc = ft_tcase(s, "progress", 0);

	tcase_set_timeout(tc, 30); /* the beat's test waits for it */

	tcase_add_test(tc, eta_from_the_estimate_before_any_work);
	tcase_add_test(tc, eta_none_left_once_all_work_is_done);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, draw_is_silent_off_a_terminal);
	tcase_add_test(tc, eta_never_zero_with_work_left);
	tcase_add_test(tc, range_shown_and_narrowed);
	tcase_add_test(tc, percentage_is_monotonic);
	tcase_add_test(tc, beat_prints_off_a_terminal);
	return ft_suite_run(s, argc, argv);
}
