#include "results.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static char *dir;

static void setup(void)
{
	dir = ft_mkdtemp("fslab-results");
	ck_assert_ptr_nonnull(dir);
}

static void teardown(void)
{
	ft_rm_rf(dir);
	free(dir);
}

static char *path_in(const char *name)
{
	char *p;
	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

START_TEST(write_then_read_back)
{
	char *p = path_in("ext4.csv"), err[512];
	FILE *f = fopen(p, "w");
	struct fslab_result_row in = {
		.filesystem = "ext4", .test = FSLAB_TEST_RANDOM_READ, .file_kib = 65536,
		.record_kib = 64, .trial = 2, .throughput_kib_s = 1234567, .elapsed_s = 0.5,
		.cache = FSLAB_CACHE_COLD, .status = "failed: No space left, on device",
		.flag = "page-cache",
	}, out;
	struct fslab_results_reader *rd;

	ck_assert_int_eq(fslab_results_write_header(f), 0);
	ck_assert_int_eq(fslab_results_write_row(f, &in), 0);
	fclose(f);
	ck_assert_msg(fslab_results_open(p, &rd, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(fslab_results_next(rd, &out, err, sizeof(err)) == 1, "%s", err);
	ck_assert_str_eq(out.filesystem, "ext4");
	ck_assert_int_eq(out.test, FSLAB_TEST_RANDOM_READ);
	ck_assert_uint_eq(out.file_kib, 65536);
	ck_assert_uint_eq(out.record_kib, 64);
	ck_assert_uint_eq(out.trial, 2);
	ck_assert_double_eq(out.throughput_kib_s, 1234567);
	ck_assert_double_eq_tol(out.elapsed_s, 0.5, 1e-9);
	ck_assert_int_eq(out.cache, FSLAB_CACHE_COLD);
	ck_assert_str_eq(out.status, in.status);
	ck_assert_str_eq(out.flag, "page-cache");
	ck_assert_int_eq(fslab_results_next(rd, &out, err, sizeof(err)), 0);
	fslab_results_close(rd);
	free(p);
}
END_TEST

static void expect_error(const char *content, const char *phrase)
{
	char *p = path_in("bad.csv"), err[512] = "";
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	int r;

	ck_assert_int_eq(ft_write_file(p, content), 0);
	r = fslab_results_open(p, &rd, err, sizeof(err));
	if (r == 0)
		while ((r = fslab_results_next(rd, &row, err, sizeof(err))) == 1)
			;
	fslab_results_close(rd);
	ck_assert_msg(r < 0, "accepted: %s", content);
	ck_assert_msg(strstr(err, phrase), "'%s' lacks '%s'", err, phrase);
	ck_assert_msg(strstr(err, "bad.csv:"), "'%s' does not name the file", err);
	free(p);
}

START_TEST(bad_files_name_file_and_line)
{
	expect_error("", "bad.csv:1: empty file");
	expect_error("fs,test,file_size_kib,record_size_kib,trial,throughput_kib_s\n", "column 1 is 'fs'");
	expect_error(FSLAB_RESULTS_HEADER "\next4,write,64,4,1,100,0.1,warm,ok,\next4,read,64,4,1,1",
		     ":3: the last line has no newline");
	expect_error(FSLAB_RESULTS_HEADER "\next4,write,64,4,1,fast,0.1,warm,ok,\n", ":2: column 'throughput_kib_s'");
	expect_error(FSLAB_RESULTS_HEADER "\next4,writ,64,4,1,1,0.1,warm,ok,\n", "unknown test");
	expect_error(FSLAB_RESULTS_HEADER "\next4,write,64,4,1\n", ":2: 5 fields");
}
END_TEST

START_TEST(extra_columns_are_tolerated)
{
	char *p = path_in("x.csv"), err[512];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;

	ck_assert_int_eq(ft_write_file(p, "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,note\n"
					  "xfs,fread,128,8,1,99,hello\n"), 0);
	ck_assert_msg(fslab_results_open(p, &rd, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(fslab_results_next(rd, &row, err, sizeof(err)), 1);
	ck_assert_int_eq(row.test, FSLAB_TEST_FREAD);
	ck_assert_str_eq(row.status, "ok");
	ck_assert(row.elapsed_s < 0);
	fslab_results_close(rd);
	free(p);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("results");
	TCase *tc = ft_tcase(s, "csv", 0);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_then_read_back);
	tcase_add_test(tc, bad_files_name_file_and_line);
	tcase_add_test(tc, extra_columns_are_tolerated);
	return ft_suite_run(s, argc, argv);
}
