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

	ck_assert_int_eq(fslab_results_write_header_ex(f, 0), 0);
	ck_assert_int_eq(fslab_results_write_row(f, &in), 0);
	fclose(f);
	ck_assert_msg(fslab_results_open(p, &rd, NULL) == 0, "%s", err);
	ck_assert_msg(fslab_results_next(rd, &out, NULL) == 1, "%s", err);
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
	ck_assert_int_eq(fslab_results_next(rd, &out, NULL), 0);
	fslab_results_close(rd);
	free(p);
}
END_TEST

static void expect_error(const char *content, const char *phrase)
{
	char *p = path_in("bad.csv");
	struct fslab_err fe = FSLAB_ERR_INIT;
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	int r;

	ck_assert_int_eq(ft_write_file(p, content), 0);
	r = fslab_results_open(p, &rd, &fe);
	if (r == 0)
		while ((r = fslab_results_next(rd, &row, &fe)) == 1)
			;
	fslab_results_close(rd);
	ck_assert_msg(r < 0, "accepted: %s", content);
	ck_assert_int_eq(fe.code, r);
	ck_assert_msg(strstr(fe.msg, phrase), "'%s' lacks '%s'", fe.msg, phrase);
	ck_assert_msg(strstr(fe.msg, "bad.csv:"), "'%s' does not name the file", fe.msg);
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

/* Class 3: a line too long, too many fields, a header that is either,
 * were named by the errno they surfaced as ("Argument list too long") or
 * as another cause (unbalanced quotes, an incomplete header, 0 columns);
 * each now says what is wrong with which line, and the fix. */
START_TEST(line_and_field_bounds_name_the_cause)
{
	size_t big = 2u << 20;
	char *text = malloc(big + 512), *p;

	ck_assert_ptr_nonnull(text);
	/* a row of 2 MiB */
	p = text + sprintf(text, FSLAB_RESULTS_HEADER "\next4,write,64,4,1,100,0.1,warm,ok,\next4,write,64,4,2,");
	memset(p, '1', big);
	strcpy(p + big, ",0.1,warm,ok,\n");
	expect_error(text, "bad.csv:3: the line is 1 MiB or longer");
	expect_error(text, "(fix or remove the line)");
	/* a header of 2 MiB */
	p = text + sprintf(text, FSLAB_RESULTS_HEADER ",");
	memset(p, 'x', big);
	strcpy(p + big, "\next4,write,64,4,1,100,0.1,warm,ok,\n");
	expect_error(text, "bad.csv:1: the line is 1 MiB or longer");
	/* 70 fields: a row, then the header */
	p = text + sprintf(text, FSLAB_RESULTS_HEADER "\next4,write,64,4,1,100,0.1,warm,ok,");
	for (int i = 0; i < 60; i++)
		p += sprintf(p, ",");
	strcpy(p, "\n");
	expect_error(text, "bad.csv:2: more than 64 fields; the header has 10 (fix or remove the line)");
	p = text + sprintf(text, FSLAB_RESULTS_HEADER);
	for (int i = 0; i < 60; i++)
		p += sprintf(p, ",x%d", i);
	strcpy(p, "\n");
	expect_error(text, "bad.csv:1: the header has more than 64 fields; a results CSV has 6 to 64 columns");
	expect_error("filesystem,\"test,file_size_kib\n", "bad.csv:1: the header has unbalanced quotes");
	expect_error(FSLAB_RESULTS_HEADER "\next4,\"write,64,4,1,100,0.1,warm,ok,\n", "bad.csv:2: unbalanced quotes");
	/* a flag list longer than the row holds: its last flag was dropped */
	expect_error(FSLAB_RESULTS_HEADER "\next4,write,64,4,1,100,0.1,warm,ok,fuse;thermal;memory;buffered;buffered-loop;"
		     "redone-slow;page-cache\n", ":2: column 'flag' = 'fuse;thermal;");
	expect_error(FSLAB_RESULTS_HEADER "\next4,write,64,4,1,100,0.1,warm,ok,fuse;thermal;memory;buffered;buffered-loop;"
		     "redone-slow;page-cache\n", "': longer than the 63 bytes a run writes");
	/* a cut-off header is a cut-off file, as a cut-off row is */
	expect_error("filesystem,test,file_size_kib", "bad.csv:1: the last line has no newline: the file was cut off");
	free(text);
}
END_TEST

START_TEST(extra_columns_are_tolerated)
{
	char *p = path_in("x.csv"), err[512];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;

	ck_assert_int_eq(ft_write_file(p, "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,note\n"
					  "xfs,fread,128,8,1,99,hello\n"), 0);
	ck_assert_msg(fslab_results_open(p, &rd, NULL) == 0, "%s", err);
	ck_assert_int_eq(fslab_results_next(rd, &row, NULL), 1);
	ck_assert_int_eq(row.test, FSLAB_TEST_FREAD);
	ck_assert_str_eq(row.status, "ok");
	ck_assert(row.elapsed_s < 0);
	fslab_results_close(rd);
	free(p);
}
END_TEST

/* The queue columns: written when the run asks for them, read back, and
 * an old CSV without them reads as depth 1, one thread, and the requests
 * a second its throughput and record size give. */
START_TEST(queue_columns_round_trip_and_old_csvs_still_read)
{
	char *p = path_in("q.csv"), *old = path_in("old.csv"), err[512];
	FILE *f = fopen(p, "w");
	struct fslab_result_row in = { .elapsed_s = -1, .lat_us = { -1, -1, -1, -1, -1 },
				       .cache = FSLAB_CACHE_MODE_INVALID, .status = "ok" }, out;
	struct fslab_results_reader *rd;

	snprintf(in.filesystem, sizeof(in.filesystem), "xfs");
	in.test = FSLAB_TEST_QUEUED_RANDOM_READ;
	in.file_kib = 1048576;
	in.record_kib = 4;
	in.trial = 1;
	in.throughput_kib_s = 400000;
	in.queue = true;
	in.iodepth = 32;
	in.jobs = 16;
	in.iops = 100000;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fslab_results_write_header_ex(f, FSLAB_RESULTS_COLS_QUEUE), 0);
	ck_assert_int_eq(fslab_results_write_row(f, &in), 0);
	fclose(f);
	ck_assert_msg(fslab_results_open(p, &rd, NULL) == 0, "%s", err);
	ck_assert_msg(fslab_results_next(rd, &out, NULL) == 1, "%s", err);
	ck_assert_int_eq(out.test, FSLAB_TEST_QUEUED_RANDOM_READ);
	ck_assert(out.queue);
	ck_assert_uint_eq(out.iodepth, 32);
	ck_assert_uint_eq(out.jobs, 16);
	ck_assert_double_eq(fslab_result_iops(&out), 100000);
	fslab_results_close(rd);

	ck_assert_int_eq(ft_write_file(old, FSLAB_RESULTS_HEADER "\next4,read,1024,64,1,6400,0.16,cold,ok,\n"), 0);
	ck_assert_msg(fslab_results_open(old, &rd, NULL) == 0, "%s", err);
	ck_assert_msg(fslab_results_next(rd, &out, NULL) == 1, "%s", err);
	ck_assert(!out.queue);
	ck_assert_uint_eq(out.iodepth, 1);
	ck_assert_uint_eq(out.jobs, 1);
	ck_assert_double_eq(fslab_result_iops(&out), 100);
	fslab_results_close(rd);

	expect_error(FSLAB_RESULTS_HEADER FSLAB_RESULTS_QUEUE_COLUMNS "\next4,queued_read,1024,64,1,1,0.1,cold,ok,,0,1,\n",
		     "not a queue depth (1-256)");
	expect_error(FSLAB_RESULTS_HEADER FSLAB_RESULTS_QUEUE_COLUMNS "\next4,queued_read,1024,64,1,1,0.1,cold,ok,,1,65,\n",
		     "not a number of threads (1-64)");
	free(p);
	free(old);
}
END_TEST

/* The latency columns: p50, p99, p99.9, p99.99 and max written and read
 * back, an empty p99.99 (a pass too short for it) read as unknown, and a
 * CSV of an earlier fslab with p50/p99/max only reads with p99.9 and
 * p99.99 unknown. */
START_TEST(latency_columns_round_trip_and_old_csvs_still_read)
{
	char *p = path_in("lat.csv"), *old = path_in("oldlat.csv");
	FILE *f = fopen(p, "w");
	struct fslab_result_row in = { .elapsed_s = -1, .lat_us = { 10.5, 90.25, 400, -1, 1234.5 },
				       .cache = FSLAB_CACHE_MODE_INVALID, .status = "ok", .latency = true }, out;
	struct fslab_results_reader *rd;

	snprintf(in.filesystem, sizeof(in.filesystem), "xfs");
	in.test = FSLAB_TEST_READ;
	in.file_kib = 1024;
	in.record_kib = 4;
	in.trial = 1;
	in.throughput_kib_s = 4000;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fslab_results_write_header_ex(f, FSLAB_RESULTS_COLS_LATENCY), 0);
	ck_assert_int_eq(fslab_results_write_row(f, &in), 0);
	fclose(f);
	char *text = ft_read_text(p);
	ck_assert_ptr_nonnull(strstr(text, ",lat_p50_us,lat_p99_us,lat_p999_us,lat_p9999_us,lat_max_us\n"));
	ck_assert_ptr_nonnull(strstr(text, ",10.500,90.250,400.000,,1234.500\n"));
	free(text);
	ck_assert_int_eq(fslab_results_open(p, &rd, NULL), 0);
	ck_assert_int_eq(fslab_results_next(rd, &out, NULL), 1);
	ck_assert(out.latency);
	for (int i = 0; i < FSLAB_LAT_N; i++)
		ck_assert_double_eq(out.lat_us[i], in.lat_us[i]);
	fslab_results_close(rd);

	ck_assert_int_eq(ft_write_file(old, FSLAB_RESULTS_HEADER ",lat_p50_us,lat_p99_us,lat_max_us\n"
					    "ext4,read,1024,64,1,6400,0.16,cold,ok,,12.000,99.000,500.000\n"), 0);
	ck_assert_int_eq(fslab_results_open(old, &rd, NULL), 0);
	ck_assert_int_eq(fslab_results_next(rd, &out, NULL), 1);
	ck_assert(out.latency);
	ck_assert_double_eq(out.lat_us[FSLAB_LAT_P50], 12);
	ck_assert_double_eq(out.lat_us[FSLAB_LAT_P99], 99);
	ck_assert(out.lat_us[FSLAB_LAT_P999] < 0 && out.lat_us[FSLAB_LAT_P9999] < 0);
	ck_assert_double_eq(out.lat_us[FSLAB_LAT_MAX], 500);
	fslab_results_close(rd);
	free(p);
	free(old);
}
END_TEST

/* --tests words: the families by their word, "all" still IOzone's 13,
 * and a mask written back with the same words. */
/* The stopping rule's band look leaves out what the report sets aside: a
 * figure the page cache served, however named beside; beyond-device alone
 * and the redone flags keep a figure in. */
START_TEST(rows_the_report_sets_aside_are_told)
{
	struct fslab_result_row row = { .status = "ok" };

	ck_assert_int_eq(fslab_result_use(&row), FSLAB_ROW_OK);
	snprintf(row.flag, sizeof(row.flag), "beyond-device;redone-slow");
	ck_assert_int_eq(fslab_result_use(&row), FSLAB_ROW_OK);
	snprintf(row.flag, sizeof(row.flag), "page-cache;beyond-device");
	ck_assert_int_eq(fslab_result_use(&row), FSLAB_ROW_ASIDE);
	snprintf(row.flag, sizeof(row.flag), "redone-stopped;buffered-loop");
	ck_assert_int_eq(fslab_result_use(&row), FSLAB_ROW_ASIDE);
	snprintf(row.status, sizeof(row.status), "failed: EIO");
	ck_assert_int_eq(fslab_result_use(&row), FSLAB_ROW_FAILED);
}
END_TEST

START_TEST(test_families_parse_and_format)
{
	unsigned m;
	char bad[64], buf[512];

	ck_assert_int_eq(fslab_tests_parse("all", &m, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(m, FSLAB_TESTS_IOZONE);
	ck_assert_int_eq(__builtin_popcount(m), 13);
	ck_assert_int_eq(fslab_tests_parse("queued", &m, bad, sizeof(bad)), 0);
	ck_assert_int_eq(__builtin_popcount(m), 4);
	ck_assert(m & FSLAB_TEST_BIT(FSLAB_TEST_QUEUED_RANDOM_READ));
	ck_assert_int_eq(fslab_tests_parse("files,read", &m, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(m, FSLAB_TESTS_FILES | FSLAB_TEST_BIT(FSLAB_TEST_READ));
	fslab_tests_format(m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "read,files");
	fslab_tests_format(FSLAB_TESTS_EVERY, buf, sizeof(buf));
	ck_assert_str_eq(buf, "all,queued,files");
	ck_assert_int_eq(fslab_tests_parse(buf, &m, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(m, FSLAB_TESTS_EVERY);
	ck_assert_int_eq(fslab_test_family(FSLAB_TEST_FREREAD), FSLAB_FAMILY_IOZONE);
	ck_assert_int_eq(fslab_test_family(FSLAB_TEST_FILES_STAT), FSLAB_FAMILY_FILES);
	ck_assert_int_lt(fslab_tests_parse("queue", &m, bad, sizeof(bad)), 0);
	fslab_tests_problem(bad, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "unknown test 'queue'") && strstr(buf, "queued") &&
			      strstr(buf, "files_unlink"),
		      "%s", buf);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("results");
	TCase *tc = ft_tcase(s, "csv", 0);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_then_read_back);
	tcase_add_test(tc, bad_files_name_file_and_line);
	tcase_add_test(tc, line_and_field_bounds_name_the_cause);
	tcase_add_test(tc, extra_columns_are_tolerated);
	tcase_add_test(tc, queue_columns_round_trip_and_old_csvs_still_read);
	tcase_add_test(tc, latency_columns_round_trip_and_old_csvs_still_read);
	tcase_add_test(tc, test_families_parse_and_format);
	tcase_add_test(tc, rows_the_report_sets_aside_are_told);
	return ft_suite_run(s, argc, argv);
}
