/* What each filesystem makes the drive write, on the checked-in fixtures
 * tests/report/fixtures/device (ext2, ext4, xfs, btrfs and fat32
 * through FUSE, 3 trials, every row with the device columns filled) and
 * device-empty (the columns there, no counters), against basic/ (no device
 * columns at all).  The figures below were worked out by hand from the
 * rows: a trial's ratio is the sum of what the device did over the sum of
 * what the test did in that trial, the figure their mean with Student's
 * 95% interval (t(0.975, 2) = 4.302653). */
#include "view.h"
#include "manifest.h"
#include "testutil.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T2 4.302653

static struct rp_data *load(const char *sub)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char dir[4096];
	const char *dirs[] = { dir };
	struct rp_data *d = calloc(1, sizeof(*d));

	snprintf(dir, sizeof(dir), "%s/tests/report/fixtures/%s", src ? src : "../..", sub);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(rp_load(d, dirs, 1, NULL), 0);
	ck_assert_int_eq(rp_summary_build(d, FSLAB_TESTS_EVERY, RP_EQUIVALENCE_DEFAULT), 0);
	return d;
}

static void unload(struct rp_data *d)
{
	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
}

static size_t idx(const struct rp_data *d, const char *fs)
{
	for (size_t i = 0; i < d->n_all; i++)
		if (strcmp(d->all[i]->fs, fs) == 0)
			return i;
	ck_abort_msg("no entry %s", fs);
	return 0;
}

static const struct rp_dev_fig *test_fig(const struct rp_data *d, enum fslab_test t, const char *fs)
{
	return &d->sum->dev.test[(size_t)t * d->n_all + idx(d, fs)];
}

static const struct rp_dev_fig *fam_fig(const struct rp_data *d, int f, const char *fs)
{
	return &d->sum->dev.fam[(size_t)f * d->n_all + idx(d, fs)];
}

static void fig_is(const struct rp_dev_fig *f, enum rp_dev_kind kind, double mean, double sd)
{
	ck_assert_int_eq(f->kind, kind);
	ck_assert_uint_eq(f->n_trials, 3);
	ck_assert_double_eq_tol(f->mean, mean, 1e-6 * mean);
	ck_assert_double_eq_tol(f->ci, T2 * sd / sqrt(3), 1e-5 * mean);
}

/* The text report (or HTML's summary) as one string. */
static char *render(const struct rp_data *d, bool html)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	if (html)
		rp_html_summary(f, d);
	else
		ck_assert_int_eq(rp_text_summary(f, d), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* Write amplification: ext4's write trials write 1.04, 1.05, 1.06x what
 * the test wrote in both cells (mean 1.05, sd 0.01); btrfs's cells differ
 * (1.4/1.2, 1.5/1.3, 1.6/1.4: trials 1.3, 1.4, 1.5); the sequential-write
 * family of ext4 adds rewrite's 1.02 (trials 1.03, 1.035, 1.04). */
START_TEST(t_waf)
{
	struct rp_data *d = load("device");

	fig_is(test_fig(d, FSLAB_TEST_WRITE, "ext4"), RP_DEVK_WAF, 1.05, 0.01);
	fig_is(test_fig(d, FSLAB_TEST_WRITE, "btrfs"), RP_DEVK_WAF, 1.40, 0.1);
	fig_is(test_fig(d, FSLAB_TEST_REWRITE, "btrfs"), RP_DEVK_WAF, 1.90, 0.1);
	fig_is(fam_fig(d, RP_FAMILY_SEQ_WRITE, "ext4"), RP_DEVK_WAF, 1.035, 0.005);
	fig_is(fam_fig(d, RP_FAMILY_SEQ_WRITE, "xfs"), RP_DEVK_WAF, 1.015, 0.005);
	fig_is(fam_fig(d, RP_FAMILY_SEQ_WRITE, "ext2"), RP_DEVK_WAF, 1.0, 0);
	fig_is(fam_fig(d, RP_FAMILY_RANDOM, "btrfs"), RP_DEVK_WAF, 2.0, 0.1);
	/* files created: 1000 a pass (2000 files/s x 0.5 s); ext4 wrote
	 * 7680, 8192, 8704 bytes a file */
	fig_is(fam_fig(d, RP_FAMILY_SMALL, "ext4"), RP_DEVK_PER_FILE, 8192, 512);
	fig_is(test_fig(d, FSLAB_TEST_FILES_CREATE, "btrfs"), RP_DEVK_PER_FILE, 20480, 512);
	/* reads: ext4's two reread passes of trial 1 came from memory (the
	 * device read 1/20), as reread does by design: the family's share is
	 * the first reads' alone, all from the device */
	fig_is(fam_fig(d, RP_FAMILY_SEQ_READ, "ext4"), RP_DEVK_READ, 1, 0);
	fig_is(test_fig(d, FSLAB_TEST_REREAD, "ext4"), RP_DEVK_READ, 0.05 / 3 + 2.0 / 3,
	       sqrt(((0.05 - 2.05 / 3) * (0.05 - 2.05 / 3) + 2 * (1 - 2.05 / 3) * (1 - 2.05 / 3)) / 2));
	fig_is(test_fig(d, FSLAB_TEST_READ, "xfs"), RP_DEVK_READ, 1, 0);
	ck_assert_int_eq(test_fig(d, FSLAB_TEST_FILES_STAT, "xfs")->kind, RP_DEVK_NONE);
	unload(d);
}
END_TEST

/* The counts: 5 filesystems x 42 passes with counters; xfs's rewrite
 * flagged page-cache by the counters alone, btrfs's write beyond the
 * probe's bound alone; the passes that had not reached the device. */
START_TEST(t_counts)
{
	struct rp_data *d = load("device");
	const struct rp_dev *v = &d->sum->dev;

	ck_assert_uint_eq(v->n_rows, 210);
	ck_assert_uint_eq(v->n_pc_only, 1);
	ck_assert_uint_eq(v->n_beyond_only, 1);
	ck_assert(!v->empty);
	ck_assert_str_eq(v->memory[RP_FAMILY_SEQ_WRITE],
			 "3 of 30 rewrite passes had not reached the device by the end of their timed region"
			 " (on ext4, xfs)");
	ck_assert_str_eq(v->memory[RP_FAMILY_SEQ_READ],
			 "2 of 30 reread passes were served from memory (the device read under 90% of what they returned)"
			 " (on ext4)");
	ck_assert_str_eq(v->memory[RP_FAMILY_RANDOM], "");
	/* beyond-device is a known flag, not set aside: btrfs's write ranks */
	ck_assert(!(d->all[idx(d, "btrfs")]->cells[0].flags & RP_FLAG_OTHER));
	unload(d);
}
END_TEST

/* The panel on the first screen with counters, fat32 marked FUSE; the
 * WAF beside the ranking's table in HTML. */
START_TEST(t_text_panel)
{
	struct rp_data *d = load("device");
	char *t = render(d, false), *h = render(d, true), *p;
	char line[1024];

	p = strstr(t, "== what each filesystem makes the drive write");
	ck_assert_msg(p, "%s", t);
	ck_assert_msg(strstr(p, "fat32 (FUSE)"), "%s", p);
	ck_assert_msg(strstr(p, "1.03 [1.02-1.05]"), "ext4's sequential write: %s", p);
	ck_assert_msg(strstr(p, "8.0 KiB [6.8-9.2]"), "%s", p);
	ck_assert_msg(strstr(p, "bound: 1; beyond the probe's bound though the device did the work: 1"), "%s", p);
	ck_assert_msg(strstr(p, "sequential write: 3 of 30 rewrite passes"), "%s", p);
	ck_assert_msg(strstr(h, "<h3 id=\"device\">What each filesystem makes the drive write</h3>"), "%s", h);
	ck_assert_msg(strstr(h, "<td class=l>fat32 (FUSE)</td>"), "%s", h);
	rp_dev_test_line(d, FSLAB_TEST_WRITE, line, sizeof(line));
	ck_assert_str_eq(line, "write amplification (device counters): btrfs 1.40 [1.15-1.65], ext2 1.00 "
			       "[1.00-1.00], ext4 1.05 [1.03-1.07], fat32 1.01 [0.99-1.03], xfs 1.02 [1.00-1.04]");
	free(t);
	free(h);
	unload(d);
}
END_TEST

/* No device columns: nothing new; the columns empty: one line, no panel. */
START_TEST(t_no_counters)
{
	struct rp_data *d = load("basic");
	char *t = render(d, false), line[256];

	ck_assert_msg(!strstr(t, "device"), "%s", t);
	ck_assert_str_eq(rp_dev_test_line(d, FSLAB_TEST_WRITE, line, sizeof(line)), "");
	free(t);
	unload(d);
	d = load("device-empty");
	t = render(d, false);
	ck_assert(d->sum->dev.empty);
	ck_assert_msg(strstr(t, "no device counters in these CSVs' device columns: the page-cache flags come from\n"
				"the probe's bound"), "%s", t);
	ck_assert_msg(!strstr(t, "== what each filesystem"), "%s", t);
	free(t);
	unload(d);
}
END_TEST

static json_object *json_of(const struct rp_data *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *o;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(rp_json_write(f, d, FSLAB_TESTS_EVERY), 0);
	ck_assert_int_eq(fclose(f), 0);
	o = json_tokener_parse(buf);
	free(buf);
	ck_assert_ptr_nonnull(o);
	return o;
}

/* report.json: the same figures under "device", no key without the
 * columns. */
/* The drive's own count of host writes (the manifest's drive readings,
 * SMART) beside the device columns': the count over the run is the
 * earliest reading before a filesystem's sweep to the latest after one. */
START_TEST(t_drive_count)
{
	const char *fss[] = { "btrfs", "ext2", "ext4", "fat32", "xfs" };
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char *dir = ft_mkdtemp("fslab-device"), from[4096], to[4096], *text;
	const char *dirs[] = { dir };
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_RUN);
	struct rp_data *d = calloc(1, sizeof(*d));
	struct fslab_err fe = FSLAB_ERR_INIT;
	double block = 0;
	int dfd;

	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(m);
	/* a sweep that holds every row of the fixture */
	m->sweep.tests = FSLAB_TESTS_EVERY;
	m->sweep.file_min_kib = m->sweep.record_min_kib = 4;
	m->sweep.file_max_kib = m->sweep.record_max_kib = UINT64_C(1) << 30;
	for (size_t i = 0; i < 5; i++) {
		struct fslab_manifest_fs *f = fslab_manifest_add_fs(m);

		snprintf(f->name, sizeof(f->name), "%s", fss[i]);
		fslab_drive_conditions_unknown(&f->drive.before);
		fslab_drive_conditions_unknown(&f->drive.after);
		snprintf(f->drive.before.read_at, sizeof(f->drive.before.read_at), "2026-12-06T10:00:00Z");
		snprintf(f->drive.after.read_at, sizeof(f->drive.after.read_at), "2026-12-06T10:30:00Z");
		f->drive.before.has_host_written = f->drive.after.has_host_written = true;
		f->drive.before.host_written_bytes = (uint64_t)(1000 + i) << 20;
		f->drive.after.host_written_bytes = (uint64_t)(3000 + i) << 20;
		snprintf(from, sizeof(from), "%s/tests/report/fixtures/device/%s.csv", src ? src : "../..", fss[i]);
		snprintf(to, sizeof(to), "%s/%s.csv", dir, fss[i]);
		text = ft_read_text(from);
		ck_assert_ptr_nonnull(text);
		ck_assert_int_eq(ft_write_file(to, text), 0);
		free(text);
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(fslab_manifest_write_at(dfd, m), 0);
	close(dfd);
	fslab_manifest_free(m);
	ck_assert_msg(rp_load(d, dirs, 1, &fe) == 0, "%s", fe.msg);
	ck_assert_int_eq(rp_summary_build(d, FSLAB_TESTS_EVERY, RP_EQUIVALENCE_DEFAULT), 0);
	/* from 1000 MiB (the first before) to 3004 MiB (the last after) */
	ck_assert(fabs(d->sum->dev.drive_bytes - 2004.0 * 1048576) < 1);
	for (size_t i = 0; i < d->n_all; i++)
		for (size_t k = 0; k < d->all[i]->n_samples; k++)
			if (!isnan(d->all[i]->samples[k].dev[RP_DEV_WRITE]))
				block += d->all[i]->samples[k].dev[RP_DEV_WRITE];
	ck_assert(block > 0);
	ck_assert(fabs(d->sum->dev.block_bytes - block) < 1);
	unload(d);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(t_json)
{
	struct rp_data *d = load("device");
	json_object *o = json_of(d), *dev, *x;

	ck_assert(json_object_object_get_ex(o, "device", &dev));
	ck_assert(json_object_object_get_ex(dev, "passes_with_counters", &x));
	ck_assert_int_eq(json_object_get_int(x), 210);
	ck_assert(json_object_object_get_ex(dev, "page_cache_within_probe_bound", &x));
	ck_assert_int_eq(json_object_get_int(x), 1);
	ck_assert(json_object_object_get_ex(dev, "beyond_probe_bound_on_device", &x));
	ck_assert_int_eq(json_object_get_int(x), 1);
	ck_assert(json_object_object_get_ex(dev, "families", &x));
	ck_assert(json_object_object_get_ex(x, "sequential write", &x));
	ck_assert(json_object_object_get_ex(x, "ext4", &x));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(x, "measure")), "write_amplification");
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(x, "mean")), 1.035, 1e-6);
	ck_assert_int_eq(json_object_array_length(json_object_object_get(x, "ci95")), 2);
	ck_assert(json_object_object_get_ex(dev, "tests", &x));
	ck_assert(json_object_object_get_ex(x, "files_create", &x));
	ck_assert(json_object_object_get_ex(x, "btrfs", &x));
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(x, "mean")), 20480, 1e-3);
	ck_assert(json_object_object_get_ex(dev, "not_on_device", &x));
	ck_assert(json_object_object_get_ex(x, "sequential write", NULL));
	json_object_put(o);
	unload(d);
	d = load("basic");
	o = json_of(d);
	ck_assert(!json_object_object_get_ex(o, "device", NULL));
	json_object_put(o);
	unload(d);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_device");
	TCase *tc = ft_tcase(s, "device", 0);

	tcase_add_test(tc, t_waf);
	tcase_add_test(tc, t_counts);
	tcase_add_test(tc, t_text_panel);
	tcase_add_test(tc, t_no_counters);
	tcase_add_test(tc, t_json);
	tcase_add_test(tc, t_drive_count);
	return ft_suite_run(s, argc, argv);
}
