/* fslab run --sweep cdm and cdm-nvme: CrystalDiskMark 8's rows as the
 * plan (record, depth, threads, passes of 5 s, one file of --cdm-size, at
 * least 5 trials), their refusals, and a run on temporary directories whose
 * rows keep the depths apart (resume's key) and whose manifest records the
 * discarded warm-up, and whose rows are measured (io_uring, O_DIRECT in
 * cold mode: ok, with the row's depth and threads). */
#include "testutil.h"
#include "engine/engine.h"
#include "fslab/run.h"
#include "size.h"

#include <json-c/json.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQ ((1u << FSLAB_TEST_QUEUED_WRITE) | (1u << FSLAB_TEST_QUEUED_READ))
#define RND ((1u << FSLAB_TEST_QUEUED_RANDOM_WRITE) | (1u << FSLAB_TEST_QUEUED_RANDOM_READ))

struct want_row {
	const char *name;
	uint64_t record;
	unsigned depth, jobs, tests;
};

/* The preset's plan is exactly these rows, in this order. */
static void check_rows(enum fslab_preset preset, const struct want_row *want, size_t n)
{
	struct fslab_sweep_spec s;
	struct fslab_plan p;
	char name[48];

	fslab_sweep_preset_values(preset, &s);
	ck_assert_uint_eq(s.file_min, FSLAB_GiB);
	ck_assert_uint_eq(s.file_max, FSLAB_GiB);
	ck_assert_uint_ge(s.trials, 5);
	ck_assert_uint_eq(s.tests, SEQ | RND);
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_eq(p.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct fslab_sweep_cell *c = &p.cells[i];
		enum fslab_test t = c->tests == SEQ ? FSLAB_TEST_QUEUED_READ : FSLAB_TEST_QUEUED_RANDOM_READ;

		ck_assert_msg(c->record_bytes == want[i].record && c->iodepth == want[i].depth &&
				      c->jobs == want[i].jobs && c->tests == want[i].tests,
			      "%s row %zu: record %llu depth %u jobs %u tests %#x, want %s",
			      fslab_preset_to_string(preset), i, (unsigned long long)c->record_bytes, c->iodepth, c->jobs, c->tests,
			      want[i].name);
		ck_assert_uint_eq(c->file_bytes, FSLAB_GiB);
		ck_assert(c->pass_s == 5.0);
		ck_assert_str_eq(fslab_queue_row_name(t, c->record_bytes / 1024, c->iodepth, c->jobs, name,
						      sizeof(name)),
				 want[i].name);
		/* a CSV row finds its own row, never the other depth's */
		ck_assert_uint_eq(fslab_plan_find(&p, t, FSLAB_GiB / 1024, c->record_bytes / 1024,
						  c->iodepth, c->jobs),
				  i);
	}
	/* 2 tests a row */
	ck_assert_uint_eq(fslab_plan_test_count(&p, s.tests), 2 * n);
	fslab_plan_free(&p);
}

START_TEST(cdm_rows)
{
	static const struct want_row cdm[] = {
		{ "SEQ1M Q8T1", FSLAB_MiB, 8, 1, SEQ },
		{ "SEQ1M Q1T1", FSLAB_MiB, 1, 1, SEQ },
		{ "RND4K Q32T1", 4 * FSLAB_KiB, 32, 1, RND },
		{ "RND4K Q1T1", 4 * FSLAB_KiB, 1, 1, RND },
	};
	static const struct want_row nvme[] = {
		{ "SEQ1M Q8T1", FSLAB_MiB, 8, 1, SEQ },
		{ "SEQ128K Q32T1", 128 * FSLAB_KiB, 32, 1, SEQ },
		{ "RND4K Q32T16", 4 * FSLAB_KiB, 32, 16, RND },
		{ "RND4K Q1T1", 4 * FSLAB_KiB, 1, 1, RND },
	};

	check_rows(FSLAB_PRESET_CDM, cdm, 4);
	check_rows(FSLAB_PRESET_CDM_NVME, nvme, 4);
}
END_TEST

/* A sweep of named rows restricted by --tests keeps only the rows of those
 * tests; a queued test in a grid cell finds no named row; the IOzone
 * tests' rows (depth 1) never match a row of depth 8. */
START_TEST(cdm_rows_follow_tests)
{
	struct fslab_sweep_spec s;
	struct fslab_plan p;

	fslab_sweep_preset_values(FSLAB_PRESET_CDM, &s);
	s.tests = 1u << FSLAB_TEST_QUEUED_RANDOM_READ;
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_uint_eq(p.cells[0].iodepth, 32);
	ck_assert_uint_eq(fslab_plan_test_count(&p, s.tests), 2);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_QUEUED_READ, FSLAB_GiB / 1024, 4, 32, 1), p.n);
	fslab_plan_free(&p);
	fslab_sweep_preset_values(FSLAB_PRESET_CDM, &s);
	s.file_max = s.file_min = 64 * FSLAB_MiB;
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_QUEUED_READ, 65536, 1024, 1, 1), 1);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_QUEUED_READ, 65536, 1024, 2, 1), p.n);
	fslab_plan_free(&p);
}
END_TEST

/* Each refusal names the setting and the fix. */
START_TEST(cdm_refusals)
{
	static const struct {
		const char *a, *b, *c, *d, *want;
	} cases[] = {
		{ "--sweep", "cdm", "--trials", "3", "at least 5 trials" },
		{ "--sweep", "cdm", "--file-sizes", "1G", "drop --file-sizes" },
		{ "--sweep", "cdm-nvme", "--tests", "write", "--tests names write" },
		{ "--sweep", "lab", "--cdm-size", "1G", "--cdm-size sizes the file of --sweep cdm" },
		{ "--sweep", "cdm", "--cdm-size", "100M", "a power of two" },
		{ "--sweep", "cdm", "--cdm-size", "8M", "at least 16M" },
		{ "--sweep", "quick", "--cdm-time", "1", "--cdm-time times the passes of --sweep cdm" },
		{ "--sweep", "cdm", "--cdm-time", "0", "1 to 60" },
		{ "--sweep", "cdm", "--iodepth", "4", "each row has its own queue depth and threads (Q and T in its name); drop --iodepth" },
		{ "--sweep", "cdm-nvme", "--jobs", "2", "drop --jobs ([sweep] jobs)" },
	};
	char *dir = ft_mkdtemp("fslab-cdm");
	char arg[512];

	snprintf(arg, sizeof(arg), "a=%s", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ft_output o;

		ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, cases[i].a, cases[i].b, cases[i].c,
					  cases[i].d, "--no-device-probe", "--dry-run", NULL),
				 0);
		ck_assert_msg(o.status == 2 && strstr(o.err, cases[i].want), "%s %s %s %s: status %d: %s",
			      cases[i].a, cases[i].b, cases[i].c, cases[i].d, o.status, o.err);
		ft_output_free(&o);
	}
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

/* --dry-run shows the rows, the file, the pass length and the warm-up. */
START_TEST(cdm_dry_run_shows_the_rows)
{
	char *dir = ft_mkdtemp("fslab-cdm");
	char arg[512];
	struct ft_output o;

	snprintf(arg, sizeof(arg), "a=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", "cdm-nvme", "--cdm-size", "64M",
				  "--no-device-probe", "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(strstr(o.out, "on a file of 64M, passes of 5 s, 1 discarded warm-up pass"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "RND4K Q32T16") && strstr(o.out, "SEQ128K Q32T1"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "trials: 5\n"), "%s", o.out);
	ft_output_free(&o);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

static size_t count_lines(const char *path, const char *needle)
{
	char line[1024];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* A run writes one row per test, row and trial: SEQ1M Q8T1 and SEQ1M Q1T1
 * share test, file and record but not depth, and are two rows each trial
 * (a key without the depth would take the second for done); a resume of
 * the finished run adds nothing; the manifest says the warm-up pass was
 * discarded and how long a pass is, and records no single depth.  One test and passes of 1 s keep it
 * short where the queued tests run (2 rows x (5 trials + a warm-up)). */
START_TEST(cdm_run_keeps_depths_apart)
{
	char *dir = ft_mkdtemp("fslab-cdm"), data[512], out[512], arg[600], path[600];
	struct ft_output o;
	json_object *root, *sweep, *v;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ck_assert_int_eq(mkdir(data, 0755), 0);
	snprintf(arg, sizeof(arg), "a=%s", data);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--sweep", "cdm", "--cdm-size",
				  "16M", "--cdm-time", "1", "--tests", "queued_read", "--no-device-probe",
				  "--steady-state", "off", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run: %s", o.err);
	ft_output_free(&o);
	snprintf(path, sizeof(path), "%s/a.csv", out);
	ck_assert_uint_eq(count_lines(path, ",queued"), 2 * 5);
	ck_assert_uint_eq(count_lines(path, "a,queued_read,16384,1024,"), 2 * 5);
	ck_assert_uint_eq(count_lines(path, ",8,1,"), 5);
	ck_assert_uint_eq(count_lines(path, ",1,1,"), 5);
	/* measured, not skipped: a time-based pass of each row */
	ck_assert_uint_eq(count_lines(path, ",cold,ok,"), 2 * 5);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "resume: %s", o.err);
	ft_output_free(&o);
	ck_assert_uint_eq(count_lines(path, ",queued"), 2 * 5);

	snprintf(path, sizeof(path), "%s/manifest.json", out);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "sweep", &sweep));
	ck_assert(json_object_object_get_ex(sweep, "preset", &v));
	ck_assert_str_eq(json_object_get_string(v), "cdm");
	ck_assert(json_object_object_get_ex(sweep, "pass_s", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(json_object_object_get_ex(sweep, "warmup_passes_discarded", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(json_object_object_get_ex(sweep, "file_max_kib", &v));
	ck_assert_int_eq(json_object_get_int(v), 16384);
	/* no one depth or thread count (null or absent): each row has its own (Q8T1, Q1T1) */
	ck_assert_msg(!json_object_object_get(sweep, "iodepth") && !json_object_object_get(sweep, "jobs"), "%s",
		      json_object_to_json_string(sweep));
	json_object_put(root);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_cdm");
	TCase *tp = ft_tcase(s, "plan", 0);
	TCase *tr = ft_tcase(s, "run", 0);

	tcase_add_test(tp, cdm_rows);
	tcase_add_test(tp, cdm_rows_follow_tests);
	tcase_add_test(tr, cdm_refusals);
	tcase_add_test(tr, cdm_dry_run_shows_the_rows);
	tcase_add_test(tr, cdm_run_keeps_depths_apart);
	return ft_suite_run(s, argc, argv);
}
