/* The default `fslab run` on a small ext4 lab on a loop image: a run a
 * reviewer accepts.  It ends with cache mode cold, at least 3 trials of
 * every cell, and at most 10% of the write, read, random, backward and
 * stride rows flagged page-cache (root; docs/run.md).
 *
 * The whole default plan (the lab preset's coarse records on files from
 * 64K up to the largest that fits the 320M filesystem, adaptive up to 8
 * trials; files up to 128M) took 58 s here (1203 rows, 24 of 562
 * flagged), the narrowed one 10 s, so by default the run gets a sweep file
 * that only narrows the file sizes to 64K-1M (sizes given: every record,
 * 35 cells): it sets neither cache nor trials, so everything else is the
 * default (the lab preset, cold, 3 trials, --stop decided
 * --max-trials 24).  FSLAB_TEST_FULL_DEFAULT=1 runs `fslab run` with no
 * option at all: its plan is the lab preset's, capped. */
#include "testutil.h"

#include "cell_plan.h"
#include "names.h"
#include "results.h"
#include "settings.h"
#include "size.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-default");
	ck_assert_ptr_nonnull(tmp);
}

static void teardown(void)
{
	ft_cleanup_under(tmp);
	free(tmp);
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "manifest key '%s' missing", key);
	return v;
}

/* The tests the flag bound is about: the first passes, which the cold
 * cache makes the device's (reread/freread re-read the cache by design). */
static bool counted(enum fslab_test t)
{
	return t == FSLAB_TEST_WRITE || t == FSLAB_TEST_READ || t == FSLAB_TEST_RANDOM_READ ||
	       t == FSLAB_TEST_RANDOM_WRITE || t == FSLAB_TEST_BACKWARD_READ ||
	       t == FSLAB_TEST_STRIDE_READ;
}

#define MAX_CELLS 2048

START_TEST(default_run_is_cold_repeated_and_rarely_flagged)
{
	char spec[700], img[700], mnt[700], state[700], out[700], csv[800], mf[800];
	char sweep[700];
	const char *full = getenv("FSLAB_TEST_FULL_DEFAULT");
	const bool whole = full && strcmp(full, "1") == 0;
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	/* per (test, file, record): a bit per trial seen ok */
	struct {
		enum fslab_test t;
		uint64_t f, r;
		unsigned trials;
	} *cells = calloc(MAX_CELLS, sizeof(*cells));
	size_t n_cells = 0, rows = 0, counted_rows = 0, flagged = 0, whole_tests = 0;
	int run_status, td_status;
	char *run_err;

	snprintf(spec, sizeof(spec), "%s/spec.ini", tmp);
	snprintf(img, sizeof(img), "%s/lab.img", tmp);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(state, sizeof(state), "%s/state.json", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	/* room for a 64M test file and the probe file */
	ck_assert_int_eq(ft_write_file(spec, "[fs e4]\ntype = ext4\nsize = 320M\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--spec", spec, "--mount-root", mnt,
				  "--state", state, "--yes", NULL),
			 0);
	ck_assert_msg(o.status == 0, "setup: %s", o.err);
	ft_output_free(&o);

	/* the default: no --cache, --trials or --until-ci (and, whole, no --sweep) */
	snprintf(sweep, sizeof(sweep), "%s/sweep.ini", tmp);
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K-1M\n"), 0);
	if (whole)
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--out", out, "--quiet", NULL), 0);
	else
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--out", out, "--sweep", sweep,
					  "--quiet", NULL),
				 0);
	run_status = o.status;
	run_err = strdup(o.err);
	ft_output_free(&o);
	ft_fslab(&o, "teardown", "--state", state, "--yes", NULL);
	td_status = o.status;
	ft_output_free(&o);
	ck_assert_msg(run_status == 0, "run: %d: %s", run_status, run_err);
	ck_assert_int_eq(td_status, 0);
	free(run_err);

	snprintf(mf, sizeof(mf), "%s/manifest.json", out);
	json_object *m = json_object_from_file(mf);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(json_object_get_string(jget(m, "cache_mode")), "cold");
	ck_assert_str_eq(json_object_get_string(jget(jget(m, "sweep"), "preset")), "lab");
	ck_assert_int_ge(json_object_get_int(jget(m, "trials")), 3);
	ck_assert_str_eq(json_object_get_string(jget(m, "stop")), "decided");
	ck_assert(json_object_is_type(jget(m, "until_ci_pct"), json_type_null));
	ck_assert_int_eq(json_object_get_int(jget(m, "max_trials")), FSLAB_DEFAULT_MAX_TRIALS);
	/* the whole default: the coarse plan, its rule named, its files capped */
	if (whole) {
		struct fslab_sweep_spec sw;
		struct fslab_plan plan;

		ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(jget(m, "sweep"), "records_rule")), "1M"));
		fslab_sweep_preset_values(FSLAB_PRESET_LAB, &sw);
		sw.file_max = (uint64_t)json_object_get_int64(jget(jget(m, "sweep"), "file_max_kib")) * 1024;
		ck_assert_uint_lt(sw.file_max, 320 * FSLAB_MiB);
		ck_assert_int_eq(fslab_plan_build(&sw, &plan), 0);
		whole_tests = fslab_plan_test_count(&plan, sw.tests);
		fslab_plan_free(&plan);
	}
	ck_assert_int_eq(json_object_get_int(jget(jget(jget(m, "stopping"), "summary"), "open")), 0);
	ck_assert_str_eq(json_object_get_string(jget(m, "io_mode")), "seek");
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_uint_eq(json_object_array_length(jget(fs0, "device_probe_runs")), 3);
	/* ext4 drops the test file by fadvise (mincore found none of its pages
	 * left, else the run would have fallen back): no machine-wide drop;
	 * the flag bound below holds with it */
	ck_assert_str_eq(json_object_get_string(jget(fs0, "cache_drop_method")), "fadvise");
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(fs0, "cache_drop_note")), "mincore"));
	json_object_put(m);

	snprintf(csv, sizeof(csv), "%s/e4.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		size_t i;

		rows++;
		ck_assert_int_eq(row.cache, FSLAB_CACHE_COLD);
		ck_assert_msg(fslab_result_ok(&row), "%s %llu/%llu trial %u: %s",
			      fslab_test_to_string(row.test), (unsigned long long)row.file_kib,
			      (unsigned long long)row.record_kib, row.trial, row.status);
		for (i = 0; i < n_cells; i++)
			if (cells[i].t == row.test && cells[i].f == row.file_kib &&
			    cells[i].r == row.record_kib)
				break;
		if (i == n_cells) {
			ck_assert_uint_lt(n_cells, MAX_CELLS);
			cells[n_cells].t = row.test;
			cells[n_cells].f = row.file_kib;
			cells[n_cells].r = row.record_kib;
			n_cells++;
		}
		cells[i].trials++;
		if (counted(row.test)) {
			counted_rows++;
			flagged += strstr(row.flag, "page-cache") != NULL;
		}
	}
	fslab_results_close(rd);
	/* 64K-1M given: 35 file x record cells (5+6+7+8+9), 13 tests each */
	ck_assert_uint_eq(n_cells, whole ? whole_tests : 35 * 13);
	for (size_t i = 0; i < n_cells; i++)
		ck_assert_msg(cells[i].trials >= 3, "%s %llu/%llu: %u trials",
			      fslab_test_to_string(cells[i].t), (unsigned long long)cells[i].f,
			      (unsigned long long)cells[i].r, cells[i].trials);
	fprintf(stderr, "default run: %zu rows, %zu of %zu write/read/random/backward/stride rows flagged page-cache\n",
		rows, flagged, counted_rows);
	ck_assert_msg(flagged * 10 <= counted_rows,
		      "%zu of %zu write/read/random/backward/stride rows flagged page-cache (> 10%%)",
		      flagged, counted_rows);
	free(cells);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_default");
	TCase *tc = ft_tcase(s, "default", FT_EXT_LAB);

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, default_run_is_cold_repeated_and_rarely_flagged);
	return ft_suite_run(s, argc, argv);
}
