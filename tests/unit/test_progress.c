/* lib/progress: the ETA arithmetic setup's preconditioning relies on
 * (work in bytes, an estimated rate before anything is measured) and the
 * duration format its progress line and plan print. */
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

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("progress");
	TCase *tc = ft_tcase(s, "progress", 0);

	tcase_add_test(tc, eta_from_the_estimate_before_any_work);
	tcase_add_test(tc, eta_none_left_once_all_work_is_done);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, draw_is_silent_off_a_terminal);
	return ft_suite_run(s, argc, argv);
}
