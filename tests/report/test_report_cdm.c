/* The CrystalDiskMark panel on the checked-in fixture tests/report/fixtures/cdm
 * (two filesystems, --sweep cdm's four rows, 5 trials, the queue columns):
 * rows of one test at two depths are two cells; the panel's text, HTML and
 * JSON show each row's MB/s (decimal) and IOPS with the 95% interval, say
 * which row's interval is wider than 5% and why, and give each row's
 * verdict against its fastest filesystem. */
#include "view.h"
#include "stats.h"
#include "testutil.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fixture[4096];

static void load_fixture_path(void)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");

	snprintf(fixture, sizeof(fixture), "%s/tests/report/fixtures/cdm", src ? src : "../..");
}

static struct rp_data *load(void)
{
	const char *dirs[] = { fixture };
	struct rp_data *d = calloc(1, sizeof(*d));

	load_fixture_path();
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(rp_load(d, dirs, 1, NULL), 0);
	ck_assert_uint_eq(d->n_all, 2);
	return d;
}

static const struct rp_entry *entry(const struct rp_data *d, const char *fs)
{
	for (size_t i = 0; i < d->n_all; i++)
		if (strcmp(d->all[i]->fs, fs) == 0)
			return d->all[i];
	ck_abort_msg("no entry %s", fs);
	return NULL;
}

static const struct rp_cell *cell(const struct rp_entry *e, enum fslab_test t, uint64_t rec,
				  unsigned depth)
{
	const struct rp_cell *found = NULL;

	for (size_t k = e->test_first[t]; k < e->test_first[t + 1]; k++)
		if (e->cells[k].record_kib == rec && e->cells[k].iodepth == depth) {
			ck_assert_msg(!found, "two cells of %s %lluK Q%u", fslab_test_to_string(t),
				      (unsigned long long)rec, depth);
			found = &e->cells[k];
		}
	ck_assert_msg(found, "no cell %s %lluK Q%u", fslab_test_to_string(t), (unsigned long long)rec, depth);
	return found;
}

/* SEQ1M Q8T1 and SEQ1M Q1T1 share test, file and record: two cells of 5
 * trials each, each with its own mean (mixed they would be one of 10). */
START_TEST(t_depths_are_cells)
{
	struct rp_data *d = load();
	const struct rp_entry *e = entry(d, "ext4");
	const struct rp_cell *q8 = cell(e, FSLAB_TEST_QUEUED_READ, 1024, 8);
	const struct rp_cell *q1 = cell(e, FSLAB_TEST_QUEUED_READ, 1024, 1);

	ck_assert_uint_eq(q8->n_ok, 5);
	ck_assert_uint_eq(q1->n_ok, 5);
	ck_assert_double_eq_tol(q8->mean, 2000000, 1e-6);
	ck_assert_double_eq_tol(q1->mean, 1000000, 1e-6);
	ck_assert_double_eq_tol(q8->iops_mean, 2000000 / 1024.0, 0.1);
	ck_assert_uint_eq(cell(e, FSLAB_TEST_QUEUED_RANDOM_READ, 4, 32)->jobs, 1);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

/* The model (and its panel) built afresh for tests, as fslab report
 * builds it once before any view renders. */
static void model(struct rp_data *d, unsigned tests)
{
	rp_summary_free(d->sum);
	d->sum = NULL;
	ck_assert_int_eq(rp_summary_build(d, tests, RP_EQUIVALENCE_DEFAULT), 0);
}

/* The panel rendered as JSON from a model of tests. */
static json_object *cdm_json(struct rp_data *d, unsigned tests)
{
	model(d, tests);
	return rp_cdm_json(d);
}

/* The panel as text (html false) or HTML, as its own string. */
static char *render(struct rp_data *d, bool html)
{
	char *buf = NULL, *copy;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	model(d, ~0u);
	if (html)
		rp_cdm_html(f, d);
	else /* as the text report shows them: the summary's verdicts by row, the panel */
		ck_assert_int_eq(rp_cdm_verdicts_text(f, d, true) | rp_cdm_text(f, d), 0);
	ck_assert_int_eq(fclose(f), 0);
	/* a copy: what open_memstream wrote through &buf, as its own string */
	copy = strdup(buf);
	free(buf);
	ck_assert_ptr_nonnull(copy);
	return copy;
}

/* The text panel: per filesystem, the rows in CrystalDiskMark's order with
 * MB/s = 10^6 B/s (2000000 KiB/s is 2048.00 MB/s) and the interval; the
 * noisy row named with its spread; the verdicts. */
START_TEST(t_text_panel)
{
	struct rp_data *d = load();
	char *t = render(d, false);
	const char *ext4 = strstr(t, "\next4 (--sweep cdm: a 64M file, passes of 5 s, 1 warm-up pass of each row discarded)\n");
	const char *q8, *q1, *r32, *r1;

	ck_assert_msg(ext4, "%s", t);
	q8 = strstr(ext4, "SEQ1M Q8T1");
	q1 = strstr(ext4, "SEQ1M Q1T1");
	r32 = strstr(ext4, "RND4K Q32T1");
	r1 = strstr(ext4, "RND4K Q1T1");
	ck_assert_msg(q8 && q1 && r32 && r1 && q8 < q1 && q1 < r32 && r32 < r1, "order:\n%s", t);
	/* 2000000 KiB/s x 1024 / 10^6; t(0.975, 4) x sd / sqrt(5) */
	ck_assert_msg(strstr(q8, "2048.00 +-20.10") && strstr(q8, "1953.1 +-19.2"), "%s", t);
	ck_assert_msg(strstr(q1, "1024.00 +-10.05"), "%s", t);
	ck_assert_msg(strstr(t, "95% interval within 5% of the mean: 15 of 16 row sides\n"), "%s", t);
	ck_assert_msg(strstr(t, "not within 5%: xfs RND4K Q1T1 write: +-18.1% over 5 trials"), "%s", t);
	ck_assert_msg(!strstr(t, "not within 5%: ext4"), "%s", t);
	/* xfs reads SEQ1M Q8T1 at 0.9 of ext4, tightly: slower; the noisy
	 * row cannot be decided */
	ck_assert_msg(strstr(t, "SEQ1M Q8T1   read   best                     0.90 [0.89-0.91] slower"), "%s", t);
	ck_assert_msg(strstr(t, "RND4K Q32T1  write  0.97 [0.96-0.98] slower  best"), "%s", t);
	ck_assert_msg(strstr(t, "RND4K Q1T1   write  best                     0.99 [0.82-1.20] inconclusive"), "%s", t);
	free(t);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

static json_object *side(json_object *root, size_t fs, size_t row, const char *k)
{
	json_object *fss, *f, *rows, *r, *s;

	ck_assert(json_object_object_get_ex(root, "filesystems", &fss));
	f = json_object_array_get_idx(fss, fs);
	ck_assert(json_object_object_get_ex(f, "rows", &rows));
	r = json_object_array_get_idx(rows, row);
	ck_assert_ptr_nonnull(r);
	ck_assert(json_object_object_get_ex(r, k, &s));
	return s;
}

static double num(json_object *o, const char *k)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, k, &v) && v, "no %s", k);
	return json_object_get_double(v);
}

static const char *str(json_object *o, const char *k)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, k, &v) && v, "no %s", k);
	return json_object_get_string(v);
}

/* The JSON panel holds the same figures, the rows' depth and threads, the
 * interval test and the verdicts; --tests without a queued test: none. */
START_TEST(t_json_panel)
{
	struct rp_data *d = load();
	json_object *root = cdm_json(d, ~0u), *rows, *r0, *v;
	size_t x = strcmp(d->all[0]->fs, "xfs") == 0 ? 0 : 1, e = 1 - x;

	ck_assert_ptr_nonnull(root);
	json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(root, "filesystems"), e),
				  "rows", &rows);
	ck_assert_uint_eq(json_object_array_length(rows), 4);
	r0 = json_object_array_get_idx(rows, 0);
	ck_assert_str_eq(str(r0, "row"), "SEQ1M Q8T1");
	ck_assert_int_eq((int)num(r0, "iodepth"), 8);
	ck_assert_double_eq_tol(num(side(root, e, 0, "read"), "mb_s"), 2048.0, 1e-9);
	ck_assert_double_eq_tol(num(side(root, e, 0, "read"), "iops"), 1953.125, 0.1);
	ck_assert_double_eq_tol(num(side(root, e, 0, "read"), "mb_s_ci95"), 20.10, 0.01);
	ck_assert_str_eq(str(side(root, e, 0, "read"), "verdict"), "best");
	ck_assert_str_eq(str(side(root, x, 0, "read"), "verdict"), "slower");
	ck_assert_double_eq_tol(num(side(root, x, 0, "read"), "ratio_to_best"), 0.9, 1e-9);
	ck_assert(json_object_object_get_ex(side(root, x, 3, "write"), "within_5pct", &v));
	ck_assert(!json_object_get_boolean(v));
	ck_assert(json_object_object_get_ex(side(root, e, 3, "write"), "within_5pct", &v));
	ck_assert(json_object_get_boolean(v));
	json_object_put(root);
	ck_assert_ptr_null(cdm_json(d, FSLAB_TESTS_ALL));
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

/* The HTML panel: a table per filesystem, the wide interval marked, the
 * verdicts classed as the report's other matrices. */
START_TEST(t_html_panel)
{
	struct rp_data *d = load();
	char *buf = render(d, true);

	ck_assert_msg(strstr(buf, "<section id=\"cdm\">"), "%s", buf);
	ck_assert_msg(strstr(buf, "<h3>xfs</h3>") && strstr(buf, "<h3>ext4</h3>"), "%s", buf);
	ck_assert_msg(strstr(buf, "<tr><th class=l>SEQ1M Q8T1</th><td>2048.00 +-20.10</td><td>1953.1 +-19.2</td>"),
		      "%s", buf);
	ck_assert_msg(strstr(buf, "<td class=wide>81.92 +-14.83</td>"), "%s", buf);
	ck_assert_msg(strstr(buf, "<td class=\"l slower\">0.90 [0.89-0.91] slower</td>"), "%s", buf);
	free(buf);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

/* The line of the text that starts with start ("" when there is none). */
static char *line_of(const char *t, const char *start)
{
	const char *l = strstr(t, start), *end;

	if (!l)
		return strdup("");
	end = strchr(l, '\n');
	return strndup(l, end ? (size_t)(end - l) : strlen(l));
}

/* A flagged figure is shown with its letters and set aside: ext4's
 * SEQ1M Q8T1 read, 1.11x xfs's, flagged page cache, is no longer the
 * row's best; xfs is.  The same in the text (the row, the matrix, the
 * legend), the HTML and the JSON. */
START_TEST(t_flagged_set_aside)
{
	struct rp_data *d = load();
	struct rp_cell *q8 = (struct rp_cell *)cell(entry(d, "ext4"), FSLAB_TEST_QUEUED_READ, 1024, 8);
	size_t x = strcmp(d->all[0]->fs, "xfs") == 0 ? 0 : 1, e = 1 - x;
	char *t, *m, *row, *h;
	json_object *root, *fl;

	q8->flags |= RP_FLAG_PAGE_CACHE;
	t = render(d, false);
	m = line_of(t, "SEQ1M Q8T1   read ");
	ck_assert_msg(strstr(m, "1.11 [1.10-1.12] faster P aside") && strstr(m, "best"), "%s", t);
	ck_assert_msg(!strstr(strstr(t, "SEQ1M Q8T1   write"), "aside"), "only the flagged side:\n%s", t);
	row = line_of(strstr(t, "\next4 ("), "SEQ1M Q8T1");
	ck_assert_msg(row[0] && row[strlen(row) - 1] == 'P', "ext4's row ends with its flag: '%s'\n%s", row, t);
	ck_assert_msg(strstr(t, "flags: P = page cache: "), "the legend:\n%s", t);
	h = render(d, true);
	ck_assert_msg(strstr(h, "faster P aside</td>"), "%s", h);
	root = cdm_json(d, ~0u);
	ck_assert_str_eq(str(side(root, x, 0, "read"), "verdict"), "best");
	ck_assert_str_eq(str(side(root, e, 0, "read"), "verdict"), "faster");
	ck_assert(json_object_object_get_ex(side(root, e, 0, "read"), "flags", &fl));
	ck_assert_uint_eq(json_object_array_length(fl), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(fl, 0)), "page-cache");
	ck_assert(json_object_get_boolean(json_object_object_get(side(root, e, 0, "read"), "set_aside")));
	ck_assert(!json_object_get_boolean(json_object_object_get(side(root, x, 0, "read"), "set_aside")));
	json_object_put(root);
	free(h);
	free(row);
	free(m);
	free(t);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

/* What the panel advises for a wide interval follows what the run could
 * still have done: the fixture's run (5 trials, no stopping rule in its
 * manifest) is told to run more trials; the same rows from a --stop ci
 * run capped at 5 had every trial it allows, and are told so; a --stop
 * fixed run of 5 could have had more. */
static char *advice_for(const char *stop, int max_trials)
{
	char *dir = ft_mkdtemp("fslab-cdm-advice"), path[sizeof(fixture) + 64], *text, *t, *a;
	const char *dirs[] = { dir };
	struct rp_data *d = calloc(1, sizeof(*d));
	json_object *m;

	ck_assert_ptr_nonnull(d);
	load_fixture_path();
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "xfs.csv" : "ext4.csv";

		snprintf(path, sizeof(path), "%s/%s", fixture, name);
		text = ft_read_text(path);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		ck_assert_int_eq(ft_write_file(path, text), 0);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/manifest.json", fixture);
	text = ft_read_text(path);
	m = json_tokener_parse(text);
	ck_assert_ptr_nonnull(m);
	if (stop) {
		json_object_object_add(m, "stop", json_object_new_string(stop));
		json_object_object_add(m, "max_trials", json_object_new_int(max_trials));
	}
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	ck_assert_int_eq(ft_write_file(path, json_object_to_json_string(m)), 0);
	json_object_put(m);
	free(text);
	ck_assert_int_eq(rp_load(d, dirs, 1, NULL), 0);
	t = render(d, false);
	a = ft_text_section(t, "  a wider interval:", "\n\n");
	free(t);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
	ft_rm_rf(dir);
	free(dir);
	return a;
}

START_TEST(t_wide_interval_advice)
{
	char *none = advice_for(NULL, 0), *ci = advice_for("ci", 5), *fixed = advice_for("fixed", 5),
	     *ci10 = advice_for("ci", 10);

	ck_assert_msg(strstr(none, "run more trials of those rows (--until-ci 5 --max-trials 10)"), "%s", none);
	ck_assert_msg(!strstr(none, "every trial"), "%s", none);
	ck_assert_msg(strstr(ci, "did): it had every trial the run allows (--max-trials 5)"), "%s", ci);
	ck_assert_msg(strstr(ci, "(--cdm-time)") && !strstr(ci, "run more trials"), "%s", ci);
	ck_assert_msg(strstr(fixed, "run more trials") && !strstr(fixed, "every trial"), "%s", fixed);
	ck_assert_msg(strstr(ci10, "run more trials") && !strstr(ci10, "every trial"), "%s", ci10);
	free(none);
	free(ci);
	free(fixed);
	free(ci10);
}
END_TEST

/* A CDM run's headline is its panel, row by row: no plateau ranking mixes
 * the depths of a queued test (RND4K Q32T1 and Q1T1 averaged would be
 * neither), the summary's verdicts are the rows', and the panel comes
 * first in the text and the HTML. */
static char *report_of(const char *dir, const char *name)
{
	struct ft_output o;
	char path[4200];

	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", dir, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return ft_read_text(path);
}

START_TEST(t_rows_are_the_headline)
{
	struct rp_data *d = load();
	char *dir = ft_mkdtemp("fslab-cdm-report"), out[4200];

	model(d, ~0u);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (fslab_test_family((enum fslab_test)t) == FSLAB_FAMILY_QUEUED) {
			ck_assert_msg(d->sum->rank[t].n == 0 && d->sum->rank[t].n_unranked == 0,
				      "%s ranked over its rows", fslab_test_to_string((enum fslab_test)t));
			ck_assert(!(d->sum->tests & (1u << t)));
		}
	ck_assert(!d->sum->tests && d->sum->cdm.n_rows == 4);
	snprintf(out, sizeof(out), "%s/r", dir);
	char *t = report_of(out, "report.txt"), *h = report_of(out, "report.html");
	const char *panel = strstr(t, "== CrystalDiskMark rows"), *run = strstr(t, "\nrun ");

	ck_assert_msg(strstr(t, "\nverdicts:\n  per CrystalDiskMark row, never across depths:"), "%s", t);
	ck_assert_msg(strstr(t, "\nRND4K Q32T1  read   best                     0.95 [0.94-0.96] slower\n"), "%s", t);
	ck_assert_msg(strstr(t, "\nRND4K Q1T1   read   best                     1.00 [0.99-1.01] equivalent\n"), "%s", t);
	ck_assert_msg(strstr(t, "verdicts:") < strstr(t, "SEQ1M Q8T1   read   best"), "%s", t);
	ck_assert_msg(panel && run && panel < run, "%s", t);
	ck_assert_msg(strstr(t, "MB/s (10^6 B/s, as CrystalDiskMark)"), "%s", t);
	ck_assert_msg(!strstr(t, "== queued_random_read =="), "%s", t);
	ck_assert_msg(strstr(h, "<section id=\"cdm\">") && strstr(h, "<section id=\"rankings\">") &&
		      strstr(h, "<section id=\"cdm\">") < strstr(h, "<section id=\"rankings\">"), "%s", h);
	ck_assert_msg(!strstr(h, "No test has data to rank"), "%s", h);
	/* JSON: the verdicts' structure, one per row and side; no queued ranking */
	char *js = report_of(out, "report.json");
	json_object *root = json_tokener_parse(js), *v, *rk;
	bool found = false;

	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "verdicts_by_test", &v));
	ck_assert_uint_eq(json_object_array_length(v), 8);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *x = json_object_array_get_idx(v, i);

		if (strcmp(str(x, "row"), "RND4K Q32T1") || strcmp(str(x, "test"), "queued_random_read"))
			continue;
		found = true;
		ck_assert_str_eq(str(x, "leader"), "ext4");
		ck_assert_str_eq(str(x, "next"), "xfs");
		ck_assert_str_eq(str(x, "word"), "slower");
		ck_assert_double_eq_tol(num(x, "ratio"), 0.95, 1e-9);
		ck_assert(num(x, "ci_lo") < 0.95 && num(x, "ci_hi") > 0.95 && num(x, "resolvable_pct") > 0);
	}
	ck_assert(found);
	ck_assert(json_object_object_get_ex(root, "rankings", &rk));
	ck_assert_uint_eq(json_object_object_length(rk), 0);
	json_object_put(root);
	free(js);
	free(t);
	free(h);
	ft_rm_rf(dir);
	free(dir);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}
END_TEST

/* Latency per row: the fixture with --latency's columns, each depth its
 * own figures (Q32: p99 4000 us, Q1: 100 us).  The CDM panel shows them
 * per row with their error bound; the merged latency panel leaves the
 * queued tests out (it would name no depth). */
START_TEST(t_latency_per_row)
{
	char *dir = ft_mkdtemp("fslab-cdm-lat"), path[sizeof(fixture) + 64];
	const char *dirs[] = { dir };
	struct rp_data *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	load_fixture_path();
	for (int i = 0; i < 3; i++) {
		const char *name = i == 0 ? "ext4.csv" : i == 1 ? "xfs.csv" : "manifest.json";
		char *text, *out = NULL, *save = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		snprintf(path, sizeof(path), "%s/%s", fixture, name);
		text = ft_read_text(path);
		if (i == 2)
			fputs(text, f);
		for (char *l = i < 2 ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
			const char *q = l;
			for (int k = 0; k < 10 && q; k++) /* the 11th field: iodepth */
				q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL;
			/* ext4: p99.9 per row, p99.99 on the Q1 rows only (the deep
			 * ones too short for it); xfs: a CSV of an earlier fslab,
			 * p50/p99/max only */
			if (l[0] == 'f')
				fprintf(f, "%s,lat_p50_us,lat_p99_us,%slat_max_us\n", l, i ? "" : "lat_p999_us,lat_p9999_us,");
			else
				fprintf(f, "%s,%d,%d,%s%d\n", l, atoi(q) > 1 ? 500 : 50, atoi(q) > 1 ? 4000 : 100,
					i ? "" : atoi(q) > 1 ? "6000,," : "200,250,", atoi(q) > 1 ? 9000 : 300);
		}
		ck_assert_int_eq(fclose(f), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		ck_assert_int_eq(ft_write_file(path, out), 0);
		free(out);
		free(text);
	}
	ck_assert_int_eq(rp_load(d, dirs, 1, NULL), 0);
	char *t = render(d, false), *panel = strstr(t, "== CrystalDiskMark rows");

	ck_assert_ptr_nonnull(panel);
	char *r32 = line_of(panel, "RND4K Q32T1"), *r1 = line_of(panel, "RND4K Q1T1");

	ck_assert_msg(strstr(r32, "500/4000/6000/-/9000") && strstr(r1, "50.0/100/200/250/300"), "%s", t);
	ck_assert_msg(strstr(t, "read p50/p99/p99.9/p99.99/max us") && strstr(t, "up to 6.25% high"), "%s", t);
	char *x32 = line_of(strstr(panel, "\nxfs") ? strstr(panel, "\nxfs") : "", "RND4K Q32T1");
	ck_assert_msg(strstr(x32, "500/4000/-/-/9000"), "%s", t); /* the old CSV: p99.9, p99.99 unknown */
	free(x32);
	char *h = render(d, true);
	ck_assert_msg(strstr(h, "<th>read p50/p99/p99.9/p99.99/max &micro;s</th>") && strstr(h, "500/4000/6000/-/9000"),
		      "%s", h);
	free(h);
	for (int k = 0; k < FSLAB_TEST_MAX; k++)
		ck_assert_msg(!(d->sum->lat_tests & (1u << k)) ||
			      fslab_test_family((enum fslab_test)k) != FSLAB_FAMILY_QUEUED, "%s merged over depths",
			      fslab_test_to_string((enum fslab_test)k));
	json_object *root = rp_cdm_json(d), *fss, *rows, *rd;

	ck_assert(json_object_object_get_ex(root, "filesystems", &fss));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(fss, 0), "rows", &rows));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(rows, 2), "read", &rd));
	ck_assert_double_eq_tol(num(rd, "lat_p99_us"), 4000, 1e-9);
	ck_assert_double_eq_tol(num(rd, "lat_p999_us"), 6000, 1e-9);
	json_object *v = NULL;
	ck_assert(json_object_object_get_ex(rd, "lat_p9999_us", &v) && !v); /* null: too few requests */
	json_object_put(root);
	free(r32);
	free(r1);
	free(t);
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_cdm");
	TCase *tc = ft_tcase(s, "cdm", 0);

	tcase_add_test(tc, t_depths_are_cells);
	tcase_add_test(tc, t_text_panel);
	tcase_add_test(tc, t_json_panel);
	tcase_add_test(tc, t_html_panel);
	tcase_add_test(tc, t_flagged_set_aside);
	tcase_add_test(tc, t_wide_interval_advice);
	tcase_add_test(tc, t_rows_are_the_headline);
	tcase_add_test(tc, t_latency_per_row);
	return ft_suite_run(s, argc, argv);
}
