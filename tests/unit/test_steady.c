/* The PTS steady-state rule (lib/steady.h) on series worked out by hand.
 * Window of 5 rounds x = 1..5: mean of x 3, sum of (x - 3)^2 = 10, so the
 * least-squares slope is sum((x - 3) * y) / 10 and the slope excursion
 * |slope| * 4; steady needs range <= 0.20 * mean and excursion <= 0.10 *
 * mean. */
#include "testutil.h"

#include "settings.h"
#include "steady.h"

#include <math.h>
#include <string.h>

/* The first round (1-based) whose window ending there is steady, looking
 * at no more than FSLAB_STEADY_ROUNDS_MAX values, as fslab run's phase
 * looks after each round (bench/run_steady.c); 0 when none is.  *w gets
 * that window, or the last one looked at. */
static unsigned steady_reached(const double *v, size_t n, struct fslab_steady_window *w)
{
	if (n > FSLAB_STEADY_ROUNDS_MAX)
		n = FSLAB_STEADY_ROUNDS_MAX;
	memset(w, 0, sizeof(*w));
	for (size_t end = FSLAB_STEADY_WINDOW; end <= n; end++)
		if (fslab_steady_check(v, end, w))
			return (unsigned)end;
	return 0;
}

/* 100 102 98 101 99: mean 500/5 = 100; range 102 - 98 = 4 <= 20;
 * sum((x-3) y) = -200 - 102 + 0 + 101 + 198 = -3, slope -0.3, excursion
 * 1.2 <= 10: steady at round 5, the first window there is. */
START_TEST(converges_at_round_5)
{
	const double v[] = { 100, 102, 98, 101, 99 };
	struct fslab_steady_window w;

	ck_assert_uint_eq(steady_reached(v, 5, &w), 5);
	ck_assert_uint_eq(w.first, 1);
	ck_assert_uint_eq(w.last, 5);
	ck_assert_double_eq_tol(w.mean, 100, 1e-9);
	ck_assert_double_eq_tol(w.slope, -0.3, 1e-9);
	ck_assert_double_eq(w.min, 98);
	ck_assert_double_eq(w.max, 102);
	/* four rounds are no window */
	ck_assert_uint_eq(steady_reached(v, 4, &w), 0);
	ck_assert_uint_eq(w.last, 0);
}
END_TEST

/* A fresh drive slowing down, then flat:
 * 400 350 300 250 200 150 120 100 100 98 101 99.
 * Windows ending at 5..10 span at least 150 -> 98 (range 52 against a
 * mean of at most 0.2 * 113.6 = 22.7): not steady.  Ending at 11 (120 100
 * 100 98 101): mean 519/5 = 103.8, range 22 > 20.76: not steady.  Ending
 * at 12 (100 100 98 101 99): mean 498/5 = 99.6, range 3 <= 19.92;
 * sum((x-3) y) = -200 - 100 + 0 + 101 + 198 = -1, slope -0.1, excursion
 * 0.4 <= 9.96: steady at round 12, window 8-12. */
START_TEST(converges_at_round_12)
{
	const double v[] = { 400, 350, 300, 250, 200, 150, 120, 100, 100, 98, 101, 99 };
	struct fslab_steady_window w;

	ck_assert_uint_eq(steady_reached(v, 12, &w), 12);
	ck_assert_uint_eq(w.first, 8);
	ck_assert_uint_eq(w.last, 12);
	ck_assert_double_eq_tol(w.mean, 99.6, 1e-9);
	ck_assert_double_eq_tol(w.slope, -0.1, 1e-9);
	ck_assert(!fslab_steady_check(v, 11, &w));
	ck_assert(!w.range_ok);
	ck_assert_double_eq_tol(w.mean, 103.8, 1e-9);
}
END_TEST

/* 100 150 100 150 ... for 25 rounds: every window holds both 100 and 150,
 * range 50 against 0.2 * 120 = 24 (or 0.2 * 130 = 26): never steady; a
 * 26th round is not looked at even when it would make a steady window. */
START_TEST(never_within_25_rounds)
{
	double v[30];
	struct fslab_steady_window w;

	for (size_t i = 0; i < 25; i++)
		v[i] = i % 2 ? 150 : 100;
	for (size_t i = 25; i < 30; i++)
		v[i] = 100;
	ck_assert_uint_eq(steady_reached(v, 25, &w), 0);
	ck_assert_uint_eq(w.first, 21);
	ck_assert_uint_eq(w.last, 25);
	ck_assert(!w.range_ok);
	ck_assert_uint_eq(steady_reached(v, 30, &w), 0);
	ck_assert_uint_eq(w.last, 25);
}
END_TEST

/* A drift only the slope half catches: 100 104 108 112 116: mean 108,
 * range 16 <= 21.6 (the range half holds); slope 4 (sum((x-3) y) = -200
 * - 104 + 0 + 112 + 232 = 40), excursion 16 > 10.8: not steady.  Then flat
 * at 116: ending at 6 (104 108 112 116 116): mean 111.2, range 12 <=
 * 22.24, sum = -208 - 108 + 0 + 116 + 232 = 32, slope 3.2, excursion 12.8
 * > 11.12: not steady; ending at 7 (108 112 116 116 116): mean 113.6,
 * sum = -216 - 112 + 0 + 116 + 232 = 20, slope 2, excursion 8 <= 11.36:
 * steady at round 7 (the range alone would have said 5). */
START_TEST(drift_caught_by_the_slope)
{
	const double v[] = { 100, 104, 108, 112, 116, 116, 116 };
	struct fslab_steady_window w;

	ck_assert(!fslab_steady_check(v, 5, &w));
	ck_assert(w.range_ok);
	ck_assert(!w.slope_ok);
	ck_assert_double_eq_tol(w.slope, 4, 1e-9);
	ck_assert(!fslab_steady_check(v, 6, &w));
	ck_assert(w.range_ok && !w.slope_ok);
	ck_assert_double_eq_tol(w.slope, 3.2, 1e-9);
	ck_assert_uint_eq(steady_reached(v, 7, &w), 7);
	ck_assert_double_eq_tol(w.slope, 2, 1e-9);
}
END_TEST

/* A device that wrote nothing (all zeros) has a range of 0 but is no
 * steady state. */
START_TEST(zero_is_not_steady)
{
	const double v[] = { 0, 0, 0, 0, 0 };
	struct fslab_steady_window w;

	ck_assert_uint_eq(steady_reached(v, 5, &w), 0);
}
END_TEST

START_TEST(mode_names)
{
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_STEADY, "auto"), FSLAB_STEADY_AUTO);
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_STEADY, "on"), FSLAB_STEADY_ON);
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_STEADY, "off"), FSLAB_STEADY_OFF);
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_STEADY, "yes"), -1);
	ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_STEADY, FSLAB_STEADY_ON), "on");
}
END_TEST

/* The tracking file: min(free/4, 4 rounds, 4G) in whole MiB, at least
 * 16M, never more than a quarter of the free space. */
START_TEST(file_is_a_few_rounds_not_half_the_disk)
{
	const unsigned long long M = 1ull << 20, G = 1ull << 30;

	/* the default round (256M) on a 20G filesystem: 1G, not the 10G
	 * half of the free space it used to be */
	ck_assert_uint_eq(fslab_steady_file_bytes(20 * G, 256 * M), 1 * G);
	/* a large round: the 4G cap */
	ck_assert_uint_eq(fslab_steady_file_bytes(500 * G, 2 * G), 4 * G);
	ck_assert_uint_eq(fslab_steady_file_bytes(500 * G, ~0ull / 2), 4 * G);
	/* a small filesystem: a quarter of its free space */
	ck_assert_uint_eq(fslab_steady_file_bytes(400 * M, 256 * M), 100 * M);
	/* small rounds: the 16M floor, where a quarter of the free space holds it */
	ck_assert_uint_eq(fslab_steady_file_bytes(110 * M, 1 * M), 16 * M);
	ck_assert_uint_eq(fslab_steady_file_bytes(63 * M, 1 * M), 0);
	ck_assert_uint_eq(fslab_steady_file_bytes(0, 256 * M), 0);
	/* whole MiB */
	ck_assert_uint_eq(fslab_steady_file_bytes(4 * (100 * M + 12345), 256 * M), 100 * M);
}
END_TEST

/* The phase's longest time: a 1G file and 25 rounds of 256M + 256M at
 * 512 MiB/s and 50 us a 4K write: 2 s of fill, 25 x (1 s + 65536 writes x
 * 50 us = 3.2768 s); no rate, no estimate. */
START_TEST(estimate_is_the_fill_and_every_round)
{
	const double M = 1 << 20;

	ck_assert_double_eq_tol(fslab_steady_estimate_s(1ull << 30, 256ull << 20, 512 * M, 50e-6),
				2 + 25 * (1 + 65536 * 50e-6), 1e-9);
	ck_assert_double_eq(fslab_steady_estimate_s(1ull << 30, 256ull << 20, 0, 50e-6), -1);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("steady");
	TCase *tc = ft_tcase(s, "rule", 0);

	tcase_add_test(tc, converges_at_round_5);
	tcase_add_test(tc, converges_at_round_12);
	tcase_add_test(tc, never_within_25_rounds);
	tcase_add_test(tc, drift_caught_by_the_slope);
	tcase_add_test(tc, zero_is_not_steady);
	tcase_add_test(tc, mode_names);
	tcase_add_test(tc, file_is_a_few_rounds_not_half_the_disk);
	tcase_add_test(tc, estimate_is_the_fill_and_every_round);
	return ft_suite_run(s, argc, argv);
}
