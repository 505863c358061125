/* fslab report checks a results directory's rows against the run's own
 * plan (a results directory may come from another machine):
 *  - class 1: a row the plan cannot have produced (a second row of one
 *    cell and trial, a trial past the run's last, a cache mode not the
 *    run's, a test the run did not run) is refused with its file and line,
 *    with or without a manifest;
 *  - class 2: the rows read are bounded: by the plan (one row per cell and
 *    trial: the read stops at the first row past it) and, in all CSVs of a
 *    report, by a fixed cap named in the message.
 * Each case is set up as the attack and asserts what a user sees: the
 * report refuses, naming the file, the line and the problem.  Any user. */
#include "testutil.h"
#include "trust_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cap in all of a report's CSVs (report/load.c's LD_ROWS_MAX). */
#define ROWS_MAX 524288u

/* A finished run of tu_tmp/data into tu_tmp/out: write and read, 64K-128K
 * files, 4K-64K records, warm, two trials (--stop fixed: max_trials 2),
 * 40 rows.  Returns its CSV's path; *out the directory. */
static char *small_run(char **out)
{
	char *data = tu_tpath("data"), *sw = tu_tpath("sweep.ini"), arg[4200];
	struct ft_output o;

	*out = tu_tpath("out");
	ck_assert_int_eq(mkdir(data, 0755), 0);
	ck_assert_int_eq(ft_write_file(sw, "[sweep]\ntests = write,read\nfile_sizes = 64K-128K\n"
					   "record_sizes = 4K-64K\ncache = warm\ntrials = 2\n"),
			 0);
	snprintf(arg, sizeof(arg), "s=%s", data);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sw, "--stop", "fixed", "--no-device-probe",
				  "--out", *out, "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
	free(sw);
	free(data);
	return tu_join(*out, "s.csv");
}

/* Lines in text. */
static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* Commas in the first line of text. */
static int commas(const char *text)
{
	int n = 0;

	for (; *text && *text != '\n'; text++)
		n += *text == ',';
	return n;
}

/* Appends copies of row (empty fields added up to the header's: the
 * device columns of a directory on a block device) to csv; returns the
 * line number of the first. */
static unsigned append_rows(const char *csv, const char *row, unsigned copies)
{
	char *text = tu_slurp(csv);
	unsigned first = count_lines(text) + 1;
	int pad = commas(text) - commas(row);
	FILE *f = fopen(csv, "a");

	free(text);
	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < copies; i++)
		fprintf(f, "%s%.*s\n", row, pad, ",,,,,,,,,,,,,,,,,,,,");
	ck_assert_int_eq(fclose(f), 0);
	return first;
}

/* The run's CSV's second line (its first row), without its newline. */
static char *first_row(const char *csv)
{
	char *text = tu_slurp(csv), *row = strdup(strchr(text, '\n') + 1);

	free(text);
	*strchr(row, '\n') = '\0';
	return row;
}

/* `fslab report dir` exits non-zero; stderr names csv:line and holds
 * what. */
static void refused_at(const char *dir, const char *csv, unsigned line, const char *what)
{
	struct ft_output o;
	char want[4300];

	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "text", NULL), 0);
	snprintf(want, sizeof(want), "%s:%u: ", csv, line);
	tu_assert_refused(&o, want);
	tu_has(o.err, what);
	tu_has(o.err, "fix or remove");
	ft_output_free(&o);
}

/* A copy of the finished run (its manifest, or none) in tu_tmp/name. */
static char *copy_run(const char *out, const char *name, bool manifest)
{
	char *dir = tu_tpath(name), *from, *to, *text;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	for (int i = 0; i < (manifest ? 2 : 1); i++) {
		const char *file = i ? "manifest.json" : "s.csv";
		from = tu_join(out, file);
		to = tu_join(dir, file);
		text = tu_slurp(from);
		ck_assert_int_eq(ft_write_file(to, text), 0);
		free(text);
		free(from);
		free(to);
	}
	return dir;
}

/* Class 1: a second row of one cell and trial was counted as a sample (30
 * copies moved a score while the header still said 2 trials); refused,
 * with the manifest and without, the line of the copy named. */
START_TEST(second_row_of_a_cell_refused)
{
	char *out, *csv = small_run(&out), *row = first_row(csv);
	char *bare = copy_run(out, "bare", false), *bare_csv = tu_join(bare, "s.csv");
	char again[512];
	unsigned line;

	/* the run's own rows are accepted */
	{
		struct ft_output o;
		ck_assert_int_eq(ft_fslab(&o, "report", out, "--format", "text", NULL), 0);
		ck_assert_msg(o.status == 0, "the run's own report: %s", o.err);
		ft_output_free(&o);
	}
	line = append_rows(csv, row, 1);
	snprintf(again, sizeof(again), "again (also at line 2;");
	refused_at(out, csv, line, again);
	refused_at(out, csv, line, "a run writes one row per cell and trial");
	/* the red team's 30 copies */
	append_rows(csv, row, 29);
	refused_at(out, csv, line, "again");
	/* no manifest: one row per cell and trial all the same */
	line = append_rows(bare_csv, row, 1);
	refused_at(bare, bare_csv, line, again);
	free(bare_csv);
	free(bare);
	free(row);
	free(csv);
	free(out);
}
END_TEST

/* Class 1: rows the plan cannot have produced, each refused with its file
 * and line: a trial past max_trials (fslab run --resume refuses it too), a
 * cold row in a warm run (with a manifest and without: the run's mode is
 * then its first row's), a test the run did not run. */
START_TEST(rows_outside_the_plan_refused)
{
	static const struct {
		const char *row, *what;
		bool manifest;
	} cases[] = {
		{ "s,write,64,4,99,2048,0.001,warm,ok,", "trial 99 of a run of at most 2", true },
		{ "s,write,64,4,3,2048,0.001,warm,ok,", "trial 3 of a run of at most 2", true },
		{ "s,read,128,8,2,2048,0.001,cold,ok,", "cache mode cold in a warm run", true },
		{ "s,read,128,8,2,2048,0.001,cold,ok,", "cache mode cold in a warm run", false },
		{ "s,write,64,4,1,0,,direct,skipped: x,", "cache mode direct in a warm run", true },
		{ "s,rewrite,64,4,1,2048,0.001,warm,ok,", "test rewrite, which the manifest's sweep does not run", true },
	};
	char *out, *csv = small_run(&out), *before, *after;
	struct ft_output o;
	unsigned line;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[16];
		snprintf(name, sizeof(name), "case%zu", i);
		char *dir = copy_run(out, name, cases[i].manifest), *c = tu_join(dir, "s.csv");
		unsigned line = append_rows(c, cases[i].row, 1);
		refused_at(dir, c, line, cases[i].what);
		refused_at(dir, c, line, "not a figure this run can have measured");
		free(c);
		free(dir);
	}
	/* the report and fslab run --resume agree on the trials a run has */
	line = append_rows(csv, cases[0].row, 1);
	before = tu_slurp(csv);
	refused_at(out, csv, line, cases[0].what);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	tu_assert_refused(&o, "holds a row outside this run's plan (write, file 64 KiB, record 4 KiB, trial 99;");
	ft_output_free(&o);
	after = tu_slurp(csv);
	ck_assert_msg(strcmp(after, before) == 0, "--resume changed the CSV it refused");
	free(after);
	free(before);
	free(csv);
	free(out);
}
END_TEST

/* Class 2: a CSV of 200,000 copies of one cell (the red team's 3 million:
 * 450 MB and 6.8 s) is refused at the first row past the plan's 40, never
 * read to its end: the lines named are within the first 41 rows. */
START_TEST(rows_past_the_plan_not_read)
{
	char *out, *csv = small_run(&out), *row = first_row(csv);
	struct ft_output o;
	unsigned a, b;
	const char *p;
	char want[4300];

	append_rows(csv, row, 200000);
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--format", "text", NULL), 0);
	snprintf(want, sizeof(want), "%s:", csv);
	tu_assert_refused(&o, want);
	p = strstr(o.err, want) + strlen(want);
	ck_assert_msg(sscanf(p, "%u:", &a) == 1 && (p = strstr(p, "also at line ")) && sscanf(p + 13, "%u", &b) == 1,
		      "%s", o.err);
	ck_assert_msg(a <= 42 && b <= 42, "the report read past the plan's 40 rows (lines %u and %u): %s", a, b,
		      o.err);
	ft_output_free(&o);
	free(row);
	free(csv);
	free(out);
}
END_TEST

/* Writes dir/name: rows of one cell, trials first..first+n-1 (distinct:
 * no manifest, so any trial is one a run can have). */
static char *many_rows(const char *dir, const char *name, unsigned first, unsigned n)
{
	char *p = tu_join(dir, name);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs("filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,cache_mode,status,flag\n", f);
	for (unsigned t = first; t < first + n; t++)
		fprintf(f, "%.*s,write,64,4,%u,2048,0.001,warm,ok,\n", (int)strlen(name) - 4, name, t);
	ck_assert_int_eq(fclose(f), 0);
	return p;
}

/* Class 2: without a plan, the rows of every CSV of a report are bounded
 * in all: one CSV past the cap, and two CSVs under it each but past it
 * together (the second is refused, at the row that crosses it). */
START_TEST(rows_in_all_bounded)
{
	char *one = tu_tpath("one"), *two = tu_tpath("two"), *a, *b, *c;
	char what[128];

	ck_assert_int_eq(mkdir(one, 0755), 0);
	ck_assert_int_eq(mkdir(two, 0755), 0);
	snprintf(what, sizeof(what), "more than %u rows: a report reads at most 524,288 in all", ROWS_MAX);
	a = many_rows(one, "s.csv", 1, ROWS_MAX + 5);
	refused_at(one, a, ROWS_MAX + 2, what);
	b = many_rows(two, "a.csv", 1, 300000);
	c = many_rows(two, "b.csv", 1, 300000);
	snprintf(what, sizeof(what), "more than %u rows: a report reads at most 524,288 in all, with the CSVs before it",
		 ROWS_MAX - 300000);
	refused_at(two, c, ROWS_MAX - 300000 + 2, what);
	free(c);
	free(b);
	free(a);
	free(two);
	free(one);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_rows");
	TCase *tc = ft_tcase(s, "plan", 0);

	tu_dir_fixtures(tc, "fslab-trust-rows");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, second_row_of_a_cell_refused);
	tcase_add_test(tc, rows_outside_the_plan_refused);
	tcase_add_test(tc, rows_past_the_plan_not_read);
	tcase_add_test(tc, rows_in_all_bounded);
	return ft_suite_run(s, argc, argv);
}
