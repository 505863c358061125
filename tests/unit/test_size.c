#include "size.h"
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>

START_TEST(accepts_suffixes)
{
	uint64_t v;

	ck_assert_int_eq(fslab_size_parse("20G", &v, NULL), 0);
	ck_assert_uint_eq(v, 20 * FSLAB_GiB);
	ck_assert_int_eq(fslab_size_parse("64k", &v, NULL), 0);
	ck_assert_uint_eq(v, 64 * FSLAB_KiB);
	ck_assert_int_eq(fslab_size_parse("16MiB", &v, NULL), 0);
	ck_assert_uint_eq(v, 16 * FSLAB_MiB);
	ck_assert_int_eq(fslab_size_parse("1T", &v, NULL), 0);
	ck_assert_uint_eq(v, FSLAB_TiB);
	ck_assert_int_eq(fslab_size_parse("4096", &v, NULL), 0);
	ck_assert_uint_eq(v, 4096);
}
END_TEST

START_TEST(rejects_malformed)
{
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{ "20Q", -EINVAL }, { "-5G", -EINVAL }, { "0", -ERANGE },  { "0G", -ERANGE },
		{ "99999999999T", -ERANGE }, { "", -EINVAL }, { "G", -EINVAL }, { "1.5G", -EINVAL },
		{ "20 G", -EINVAL }, { "184467440737095516160", -ERANGE },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;
		const char *why = NULL;
		int r = fslab_size_parse(bad[i].in, &v, &why);
		ck_assert_msg(r == bad[i].err, "'%s' gave %d, expected %d", bad[i].in, r, bad[i].err);
		ck_assert_msg(why && *why, "'%s' gave no reason", bad[i].in);
		ck_assert_uint_eq(v, 12345); /* untouched on error */
	}
}
END_TEST

START_TEST(ranges)
{
	uint64_t lo, hi;

	ck_assert_int_eq(fslab_size_range_parse("64K-64M", &lo, &hi, NULL), 0);
	ck_assert_uint_eq(lo, 64 * FSLAB_KiB);
	ck_assert_uint_eq(hi, 64 * FSLAB_MiB);
	ck_assert_int_eq(fslab_size_range_parse("4M", &lo, &hi, NULL), 0);
	ck_assert_uint_eq(lo, hi);
	ck_assert_int_lt(fslab_size_range_parse("64M-64K", &lo, &hi, NULL), 0);
	ck_assert_int_lt(fslab_size_range_parse("-64K", &lo, &hi, NULL), 0);
	ck_assert_int_lt(fslab_size_range_parse("64K-", &lo, &hi, NULL), 0);
}
END_TEST

START_TEST(format_round_trips)
{
	char buf[32];
	uint64_t v;
	const uint64_t samples[] = { 1, 4096, 4097, 64 * FSLAB_KiB, 1536 * FSLAB_MiB, 20 * FSLAB_GiB,
				     3 * FSLAB_TiB, 100 * FSLAB_GiB + 2 * FSLAB_MiB };

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		fslab_size_format(samples[i], buf, sizeof(buf));
		ck_assert_int_eq(fslab_size_parse(buf, &v, NULL), 0);
		ck_assert_uint_eq(v, samples[i]);
	}
	ck_assert_str_eq(fslab_size_format(20 * FSLAB_GiB, buf, sizeof(buf)), "20G");
	ck_assert_str_eq(fslab_size_human(1536 * FSLAB_MiB, buf, sizeof(buf)), "1.5 GiB");
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("size");
	TCase *tc = ft_tcase(s, "parse", 0);

	tcase_add_test(tc, accepts_suffixes);
	tcase_add_test(tc, rejects_malformed);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, format_round_trips);
	return ft_suite_run(s, argc, argv);
}
