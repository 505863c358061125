#include "spec.h"
#include "size.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

START_TEST(default_is_the_2023_layout)
{
	struct fslab_spec s;
	static const char *const names[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };

	fslab_spec_default(&s);
	ck_assert_uint_eq(s.n_fs, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_str_eq(s.fs[i].name, names[i]);
		ck_assert_uint_eq(s.fs[i].size, 20 * FSLAB_GiB);
	}
	ck_assert_uint_eq(fslab_spec_layout_bytes(&s), 100 * FSLAB_GiB);
	ck_assert_uint_eq(s.disk.alignment, FSLAB_MiB);
	ck_assert_uint_eq(s.sweep.set, 0);
}
END_TEST

START_TEST(print_then_parse_round_trips)
{
	struct fslab_spec s, back;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fslab_spec_default(&s);
	ck_assert_int_eq(fslab_spec_write(f, &s), 0);
	fclose(f);
	ck_assert_msg(fslab_spec_parse_string(text, "printed", &back, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(back.n_fs, s.n_fs);
	for (size_t i = 0; i < s.n_fs; i++) {
		ck_assert_str_eq(back.fs[i].name, s.fs[i].name);
		ck_assert_int_eq(back.fs[i].type, s.fs[i].type);
		ck_assert_uint_eq(back.fs[i].size, s.fs[i].size);
	}
	ck_assert_uint_eq(back.sweep.set, 0);
	free(text);
}
END_TEST

START_TEST(parses_a_small_spec_with_sweep)
{
	struct fslab_spec s;
	char err[512];
	const char *text = "[fs a]\ntype = ext4\nsize = 32M\nmount_options = noatime\n"
			   "[fs fat32]\nsize = 40M\n"
			   "[sweep]\nfile_sizes = 64K-4M\ntests = write,read\ntrials = 3\ncache = cold\n";

	ck_assert_msg(fslab_spec_parse_string(text, "t", &s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(s.n_fs, 2);
	ck_assert_int_eq(s.fs[1].type, FSLAB_FS_FAT32); /* type defaults to the name */
	ck_assert_str_eq(s.fs[0].mount_options, "noatime");
	ck_assert_uint_eq(s.sweep.file_max, 4 * FSLAB_MiB);
	ck_assert_uint_eq(s.sweep.tests, (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_READ));
	ck_assert_uint_eq(s.sweep.trials, 3);
	ck_assert_int_eq(s.sweep.cache, FSLAB_CACHE_COLD);
	ck_assert(s.sweep.set & FSLAB_SWEEP_SET_CACHE);
	ck_assert(!(s.sweep.set & FSLAB_SWEEP_SET_RECORD_SIZES));
}
END_TEST

START_TEST(bad_specs_name_the_problem)
{
	static const struct {
		const char *text;
		const char *phrase;
	} bad[] = {
		{ "[disk]\nlabel = gpt\n[bogus]\nx = 1\n[fs a]\ntype=ext4\nsize=1G\n", "unknown section [bogus]" },
		{ "[fs a]\ntype = ext4\nsize = 1G\ncolour = red\n", "unknown key 'colour' in [fs a]" },
		{ "[fs a]\ntype = reiserfs\nsize = 1G\n", "unknown filesystem type" },
		{ "[fs a]\ntype = ext4\nsize = 1G\n[fs a]\ntype = xfs\nsize = 1G\n", "appears twice" },
		{ "[fs a]\ntype = ext4\nsize = 20Q\n", "unknown unit" },
		{ "[fs a]\ntype = ext4\n", "has no size" },
		{ "[fs data]\nsize = 1G\n", "has no type" },
		{ "[disk]\nlabel = dos\n[fs a]\ntype=ext4\nsize=1G\n", "GPT only" },
		{ "[sweep]\ntrials = 1\n", "no [fs NAME] section" },
		{ "[fs a/b]\ntype = ext4\nsize = 1G\n", "filesystem name" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ntests = write,nope\n", "unknown test 'nope'" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\nfile_sizes = 64K-3M\n", "powers of two" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ncache = lukewarm\n", "warm, fsync, direct or cold" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ntrials = 0\n", "from 1 to" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ndevice = /dev/sda\n", "unknown key 'device'" },
		{ "[fs a]\ntype=ext4\nsize=1G\nthis is not ini\n", "t.ini:4:" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fslab_spec s;
		char err[512] = "";
		ck_assert_msg(fslab_spec_parse_string(bad[i].text, "t.ini", &s, err, sizeof(err)) < 0,
			      "case %zu accepted", i);
		ck_assert_msg(strstr(err, bad[i].phrase), "case %zu: '%s' lacks '%s'", i, err,
			      bad[i].phrase);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("spec");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, default_is_the_2023_layout);
	tcase_add_test(tc, print_then_parse_round_trips);
	tcase_add_test(tc, parses_a_small_spec_with_sweep);
	tcase_add_test(tc, bad_specs_name_the_problem);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
