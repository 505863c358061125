/* report/ internals: statistics, the plateau and ranking on the checked-in
 * fixture (expected values worked out by hand below), and the IOzone
 * parser on memory buffers. */
#include "iozone.h"
#include "report_priv.h"
#include "stats.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB 1024.0
#define T975_2 4.302652729749464 /* Student's t, 0.975 quantile, 2 df (table value) */

static char fixture[4096];

static void fixture_path(void)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");

	snprintf(fixture, sizeof(fixture), "%s/tests/report/fixtures/basic", src ? src : "../..");
}

START_TEST(t_quantiles_match_tables)
{
	/* t(0.975) from any statistics table */
	ck_assert_double_eq_tol(fslab_t975(1), 12.7062, 1e-3);
	ck_assert_double_eq_tol(fslab_t975(2), T975_2, 1e-6);
	ck_assert_double_eq_tol(fslab_t975(4), 2.7764, 1e-4);
	ck_assert_double_eq_tol(fslab_t975(10), 2.2281, 1e-4);
	ck_assert_double_eq_tol(fslab_t975(1000), 1.9623, 1e-3);
}
END_TEST

START_TEST(t_median_mean_ci)
{
	double v[] = { 5, 1, 3, 2 };
	double m, sd;

	ck_assert_double_eq(fslab_median_sort(v, 4), 2.5);
	double w[] = { 9, 1, 5 };
	ck_assert_double_eq(fslab_median_sort(w, 3), 5);
	ck_assert(isnan(fslab_median_sort(w, 0)));
	double x[] = { 2100, 2200, 2300 };
	rp_mean_sd(x, 3, &m, &sd);
	ck_assert_double_eq_tol(m, 2200, 1e-9);
	ck_assert_double_eq_tol(sd, 100, 1e-9);
	ck_assert_double_eq_tol(rp_ci95(x, 3), T975_2 * 100 / sqrt(3), 1e-6);
	ck_assert(isnan(rp_ci95(x, 1)));
	/* 32 trials, 16 at 90 and 16 at 110: mean 100, sd sqrt(100 * 32 / 31);
	 * the half-width uses t(0.975, 31) = 2.039513 from a table (a table
	 * that said 2.021 there let --until-ci stop on a narrower interval
	 * than the report draws) */
	double y[32];
	for (int i = 0; i < 32; i++)
		y[i] = i % 2 ? 110 : 90;
	ck_assert_double_eq_tol(rp_ci95(y, 32), 2.039513 * sqrt(100.0 * 32 / 31) / sqrt(32), 1e-5);
}
END_TEST

START_TEST(t_welch)
{
	/* Equal n and sd: t = diff / sqrt(2 sd^2 / n) = 10 / sqrt(2 * 10 / 5)
	 * = 5, and Welch's df for equal variances and n is 2n - 2 = 8. */
	double a[] = { 10, 12, 14, 16, 18 }; /* mean 14, sd sqrt(10) */
	double b[] = { 20, 22, 24, 26, 28 }; /* mean 24 */
	double df;
	double p = rp_welch_p(a, 5, b, 5, &df);

	ck_assert_double_eq_tol(df, 8, 1e-9);
	/* two-sided p(|T8| > 5) = 0.001053 (t table / any stats package) */
	ck_assert_double_eq_tol(p, 0.001053, 2e-5);
	/* Same data: p = 1; a single value: untestable */
	ck_assert_double_eq_tol(rp_welch_p(a, 5, a, 5, NULL), 1, 1e-9);
	ck_assert(isnan(rp_welch_p(a, 1, b, 5, NULL)));
	/* no variance at all but different means: a real difference */
	double c[] = { 1, 1 }, d[] = { 2, 2 };
	ck_assert_double_eq(rp_welch_p(c, 2, d, 2, NULL), 0);
}
END_TEST

static const struct rp_entry *find(const struct rp_data *d, const char *fs)
{
	for (size_t i = 0; i < d->n_all; i++)
		if (strcmp(d->all[i]->fs, fs) == 0)
			return d->all[i];
	ck_abort_msg("no entry %s", fs);
	return NULL;
}

START_TEST(t_fixture_plateau_and_ranking)
{
	const char *dirs[] = { fixture };
	struct rp_data *d = calloc(1, sizeof(*d));
	struct rp_score s;
	struct rp_ranking r;

	ck_assert_int_eq(rp_load(d, dirs, 1), 0);
	ck_assert_uint_eq(d->n_all, 3);

	/* ext4 write: the plateau is files 2M and 4M at records 64K and 128K;
	 * trial t's cells are 1000,1100,1200,1300 MiB/s + 10(t-1), so its
	 * median is 1150 + 10(t-1): scores 1150, 1160, 1170.  The 1M cells
	 * (99999 MiB/s) are not on the plateau and must not count. */
	ck_assert_int_eq(rp_plateau(find(d, "ext4"), FSLAB_TEST_WRITE, &s), 0);
	ck_assert_uint_eq(s.n_cells, 4);
	ck_assert_uint_eq(s.n_trials, 3);
	ck_assert_double_eq_tol(s.trial[0], 1150 * MIB, 1e-6);
	ck_assert_double_eq_tol(s.trial[2], 1170 * MIB, 1e-6);
	ck_assert_double_eq_tol(s.median, 1160 * MIB, 1e-6);
	ck_assert_double_eq_tol(s.ci, T975_2 * 10 * MIB / sqrt(3), 1e-3);
	ck_assert_uint_eq(s.file_lo, 2048);
	ck_assert_uint_eq(s.file_hi, 4096);
	ck_assert_uint_eq(s.flags, 0);
	rp_score_free(&s);

	/* fat32 write failed at 4M: its plateau moves to 1M and 2M (the two
	 * largest files measured ok); 1 trial of 300,310,320,330 -> 315. */
	ck_assert_int_eq(rp_plateau(find(d, "fat32"), FSLAB_TEST_WRITE, &s), 0);
	ck_assert_uint_eq(s.file_lo, 1024);
	ck_assert_uint_eq(s.file_hi, 2048);
	ck_assert_double_eq_tol(s.median, 315 * MIB, 1e-6);
	ck_assert(isnan(s.ci));
	ck_assert_uint_eq(s.flags, RP_FLAG_FUSE);
	rp_score_free(&s);
	ck_assert_int_eq(rp_plateau(find(d, "fat32"), FSLAB_TEST_READ, &s), -ENODATA);

	/* write ranking: btrfs 2200 (scores 2100, 2200, 2300), ext4 1160,
	 * fat32 315; ratios 1, 1160/2200, 315/2200; btrfs's 4M cells are
	 * flagged page-cache. */
	ck_assert_int_eq(rp_rank(d, FSLAB_TEST_WRITE, &r), 0);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_str_eq(r.rows[0].e->fs, "btrfs");
	ck_assert_str_eq(r.rows[1].e->fs, "ext4");
	ck_assert_str_eq(r.rows[2].e->fs, "fat32");
	ck_assert_double_eq_tol(r.rows[0].s.median, 2200 * MIB, 1e-6);
	ck_assert_double_eq_tol(r.rows[0].s.ci, T975_2 * 100 * MIB / sqrt(3), 1e-3);
	ck_assert_double_eq_tol(r.rows[1].ratio, 1160.0 / 2200, 1e-9);
	ck_assert_double_eq_tol(r.rows[2].ratio, 315.0 / 2200, 1e-9);
	ck_assert_uint_eq(r.rows[0].s.n_flag_pc, 2);
	/* ext4 vs btrfs: means 1160 vs 2200, sds 10 and 100, n 3: Welch
	 * t = 1040/sqrt(100/3 + 10000/3) = 17.92, df = 2.04 -> p ~ 0.003 */
	ck_assert(r.rows[1].p_best < 0.01);
	ck_assert(isnan(r.rows[2].p_best)); /* fat32 has 1 trial */
	rp_ranking_free(&r);

	/* read: ext4 1100 (1000,1100,1200) vs btrfs 1070 (1060,1070,1080):
	 * t = 30/58.02 = 0.52, p ~ 0.66: within noise.  fat32 all failed:
	 * listed as not ranked. */
	ck_assert_int_eq(rp_rank(d, FSLAB_TEST_READ, &r), 0);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(r.rows[0].e->fs, "ext4");
	ck_assert_double_eq_tol(r.rows[0].s.median, 1100 * MIB, 1e-6);
	ck_assert_double_eq_tol(r.rows[1].s.median, 1070 * MIB, 1e-6);
	ck_assert(r.rows[1].p_best > 0.5 && r.rows[1].p_best < 0.8);
	ck_assert_uint_eq(r.n_unranked, 1);
	ck_assert_str_eq(r.unranked[0]->fs, "fat32");
	rp_ranking_free(&r);

	/* manifest: device probe figures and the fuse mount reach the entries */
	ck_assert_double_eq(find(d, "btrfs")->info.device_write_kib_s, 512000);
	ck_assert_str_eq(find(d, "fat32")->info.mount_method, "fuse");
	ck_assert_uint_eq(find(d, "fat32")->n_failed, 8);
	rp_free(d);
	free(d);
}
END_TEST

static const char iozone_text[] =
	"\tIozone: Performance Test of File I/O\n"
	"\tCommand line used: iozone -a -g 32m\n"
	"\tOutput is in kBytes/sec\n"
	"                                                              random    random     bkwd    record    stride\n"
	"              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n"
	"              64       4   100    101    102    103    104    105    106    107    108    109    110    111    112\n"
	"              64      64   200    201    202    203    204    205      0    207    208    209    210    211    212\n"
	"           32768      64   300    301    302    303    304    305    306    307    308    309    310    311    312\n"
	"\niozone test complete.\n"
	"Excel output is below:\n\n"
	"\"Writer report\"\n"
	"        \"4\"  \"8\"  \"16\"  \"32\"  \"64\"  \n"
	"\"64\"   100   0   0   0   200\n"
	"\"32768\"   0   0   0   0   300\n";

static const struct fslab_iozone_cell *iz_get(const struct fslab_iozone_report *r, uint64_t f,
					      uint64_t rec, enum fslab_test t)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->cells[i].file_kib == f && r->cells[i].record_kib == rec && r->cells[i].test == t)
			return &r->cells[i];
	return NULL;
}

START_TEST(t_holm)
{
	/* Holm's worked example: p sorted 0.01, 0.04, 0.03, 0.005 -> ascending
	 * 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 =
	 * 0.04, raised to 0.06: adjusted values never decrease) */
	double p[] = { 0.01, 0.04, 0.03, 0.005, NAN }, adj[5];

	ck_assert_uint_eq(rp_holm(p, 5, adj), 4);
	ck_assert_double_eq_tol(adj[3], 0.02, 1e-12);
	ck_assert_double_eq_tol(adj[0], 0.03, 1e-12);
	ck_assert_double_eq_tol(adj[2], 0.06, 1e-12);
	ck_assert_double_eq_tol(adj[1], 0.06, 1e-12);
	ck_assert(isnan(adj[4]));
	/* capped at 1; one test is its own correction */
	double q[] = { 0.6, 0.7 }, qa[2];
	ck_assert_uint_eq(rp_holm(q, 2, qa), 2);
	ck_assert_double_eq(qa[0], 1.0);
	ck_assert_double_eq(qa[1], 1.0);
	double one = 0.03, oa;
	rp_holm(&one, 1, &oa);
	ck_assert_double_eq(oa, 0.03);
	/* 0.03 is beyond noise alone, not among 13 such tests */
	double many[13], ma[13];
	for (int i = 0; i < 13; i++)
		many[i] = 0.03;
	rp_holm(many, 13, ma);
	for (int i = 0; i < 13; i++)
		ck_assert(ma[i] > 0.05);
}
END_TEST

START_TEST(t_log_axis_rule)
{
	ck_assert(!rp_log_axis(100, 1000));   /* exactly 10x: linear */
	ck_assert(rp_log_axis(100, 1001));    /* more than 10x: log */
	ck_assert(rp_log_axis(30, 2200));     /* fat32 beside btrfs */
	ck_assert(!rp_log_axis(1000, 2200));
	ck_assert(!rp_log_axis(0, 2200));     /* a zero cannot go on a log axis */
	ck_assert(!rp_log_axis(NAN, 2200));
}
END_TEST

/* Tic labels never overlap: level while each fits its slot, 45 degrees
 * when not, and only every step-th when even turned they are closer than
 * a line; y labels are stacked a line apart. */
START_TEST(t_tic_layout_rule)
{
	static const struct {
		size_t n, maxlen;
		double axis_px;
		bool x_axis;
		int rotate;
		size_t step;
	} cases[] = {
		/* 4 filesystems across 560 px: level */
		{ 4, 10, 560, true, 0, 1 },
		/* 16 file sizes (64K-2G, 4 characters) across 430 px: 27 px a
		 * slot, a label needs 31: turned, every one labelled (19 px
		 * apart across) */
		{ 16, 4, 430, true, 45, 1 },
		/* the same across a 200 px heatmap: 12.5 px a slot, 8.8 across
		 * at 45 degrees, less than a 12.5 px line: every other */
		{ 16, 4, 200, true, 45, 2 },
		/* y: 13 record sizes up 200 px (15 px each) fit; up 100 px
		 * every other */
		{ 13, 4, 200, false, 0, 1 },
		{ 13, 4, 100, false, 0, 2 },
		/* one label, or none: as is */
		{ 1, 40, 10, true, 0, 1 },
		{ 0, 0, 200, true, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rp_tic_layout l;

		/* a 10 px font */
		rp_tic_layout(cases[i].n, cases[i].maxlen, cases[i].axis_px, 10, cases[i].x_axis, &l);
		ck_assert_msg(l.rotate == cases[i].rotate && l.step == cases[i].step,
			      "%zu labels of %zu characters on %.0f px (%s): rotate %d step %zu, want %d and %zu",
			      cases[i].n, cases[i].maxlen, cases[i].axis_px, cases[i].x_axis ? "x" : "y",
			      l.rotate, l.step, cases[i].rotate, cases[i].step);
	}
}
END_TEST

START_TEST(t_verdict_text)
{
	char buf[512];
	struct rp_fam_in in[] = {
		{ "ext4", 0.89, true }, { "xfs", 1.0, true }, { "fat32", 0.2, true }, { "btrfs", 1.3, false },
	};

	/* winner among complete entries; btrfs is faster but partial: not judged */
	rp_family_verdict("sequential write", in, 4, 4, 4, true, buf, sizeof(buf));
	ck_assert_str_eq(buf, "sequential write: xfs, 1.12x ext4 (next best), beyond noise in all 4 tests; "
			      "not judged (missing or partial data): btrfs");
	rp_family_verdict("sequential read", in, 3, 4, 2, true, buf, sizeof(buf));
	ck_assert_str_eq(buf, "sequential read: xfs, 1.12x ext4 (next best), beyond noise in 2 of 4 tests");
	rp_family_verdict("random", in, 3, 5, 0, true, buf, sizeof(buf));
	ck_assert_str_eq(buf, "random: xfs and ext4 are not distinguishable (1.12x, within noise in every test)");
	rp_family_verdict("random", in, 3, 5, 0, false, buf, sizeof(buf));
	ck_assert_str_eq(buf, "random: xfs leads, 1.12x ext4 (not tested against noise: 1 trial)");
	rp_family_verdict("random", in + 1, 1, 5, 0, true, buf, sizeof(buf));
	ck_assert_str_eq(buf, "random: only xfs has complete data, nothing to compare with");
	rp_family_verdict("random", in + 3, 1, 5, 0, true, buf, sizeof(buf));
	ck_assert_str_eq(buf, "random: no verdict, no filesystem has complete data; "
			      "not judged (missing or partial data): btrfs");
}
END_TEST

START_TEST(t_iozone_parse)
{
	struct fslab_iozone_report r;
	char err[256];

	ck_assert_msg(fslab_iozone_parse(iozone_text, strlen(iozone_text), &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert(r.has_text && r.has_excel);
	ck_assert_str_eq(r.command, "iozone -a -g 32m");
	/* 3 rows x 13 from the table + 7 zero cells only in -R's Writer report
	 * (64/8,16,32 and 32768/4,8,16,32) */
	ck_assert_uint_eq(r.n, 3 * 13 + 7);
	ck_assert_double_eq(iz_get(&r, 64, 4, FSLAB_TEST_FREREAD)->kib_s, 112);
	ck_assert_double_eq(iz_get(&r, 64, 64, FSLAB_TEST_BACKWARD_READ)->kib_s, 0);
	ck_assert_double_eq(iz_get(&r, 32768, 4, FSLAB_TEST_WRITE)->kib_s, 0);
	ck_assert_ptr_null(iz_get(&r, 32768, 4, FSLAB_TEST_READ));
	ck_assert_uint_eq(iz_get(&r, 32768, 64, FSLAB_TEST_WRITE)->line, 8);
	fslab_iozone_report_free(&r);

	/* not NUL-terminated: a prefix of the buffer parses on its own */
	size_t cut = (size_t)(strstr(iozone_text, "           32768") - iozone_text);
	ck_assert_int_eq(fslab_iozone_parse(iozone_text, cut, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 2 * 13);
	fslab_iozone_report_free(&r);
}
END_TEST

/* iozone -i 0 -i 2: short table rows; the -R section's titles say which
 * tests the values are, so they win; without -R the values fill the
 * first tests in order. */
START_TEST(t_iozone_short_rows)
{
	static const char with_r[] =
		"  kB  reclen  write rewrite random-read random-write\n"
		"  64       4    100     101         102          103\n"
		"Excel output is below:\n"
		"\"Writer report\"\n\"4\"\n\"64\" 100\n"
		"\"Re-writer report\"\n\"4\"\n\"64\" 101\n"
		"\"Random read report\"\n\"4\"\n\"64\" 102\n"
		"\"Random write report\"\n\"4\"\n\"64\" 103\n";
	struct fslab_iozone_report r;
	char err[256];

	ck_assert_msg(fslab_iozone_parse(with_r, strlen(with_r), &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_double_eq(iz_get(&r, 64, 4, FSLAB_TEST_RANDOM_READ)->kib_s, 102);
	ck_assert_ptr_null(iz_get(&r, 64, 4, FSLAB_TEST_READ));
	fslab_iozone_report_free(&r);
	/* the table alone: positional */
	size_t cut = (size_t)(strstr(with_r, "Excel") - with_r);
	ck_assert_int_eq(fslab_iozone_parse(with_r, cut, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_double_eq(iz_get(&r, 64, 4, FSLAB_TEST_READ)->kib_s, 102);
	fslab_iozone_report_free(&r);
}
END_TEST

START_TEST(t_iozone_bad)
{
	struct fslab_iozone_report r;
	char err[256];
	static const char *const bad[][2] = {
		{ "kB reclen write\n64 4 12x\n", "line 2: column 3 ('12x')" },
		{ "kB reclen write\n64 4\n", "line 2: expected a row" },
		{ "kB reclen write\n64 4 1\n64 4 2\n", "line 3: the table repeats file 64 KiB" },
		{ "Excel output is below:\n\"Bogus report\"\n", "line 2: unknown section" },
		{ "Excel output is below:\n\"Writer report\"\n\"4\"\n\"64\" 1 2\n", "line 4: 2 values" },
		{ "hello\nworld\n", "no IOzone auto-mode results" },
		{ "", "no IOzone auto-mode results" },
		/* fuzzer find: nothing measured cannot be written back */
		{ "kB  reclen\n63 9 00\n", "every value in the report is 0" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = fslab_iozone_parse(bad[i][0], strlen(bad[i][0]), &r, err, sizeof(err));
		ck_assert_msg(rc == -EINVAL, "case %zu: rc %d", i, rc);
		ck_assert_msg(strstr(err, bad[i][1]), "case %zu: '%s' lacks '%s'", i, err, bad[i][1]);
		ck_assert_ptr_null(r.cells);
	}
}
END_TEST

/* fuzzer find: 8-digit sizes ran into each other in the written table */
START_TEST(t_iozone_write_wide_numbers)
{
	struct fslab_iozone_report r = { 0 }, back;
	struct fslab_iozone_cell c = { 256, 12013776, FSLAB_TEST_READ, 123456789, 0 };
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(fslab_iozone_add(&r, &c), 0);
	ck_assert_int_eq(fslab_iozone_write(f, &r, true), 0);
	fclose(f);
	ck_assert_msg(fslab_iozone_parse(text, len, &back, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(iz_get(&back, 256, 12013776, FSLAB_TEST_READ));
	ck_assert_double_eq(iz_get(&back, 256, 12013776, FSLAB_TEST_READ)->kib_s, 123456789);
	fslab_iozone_report_free(&back);
	fslab_iozone_report_free(&r);
	free(text);
}
END_TEST

static struct ft_suite *suite(void)
{
	struct ft_suite *s = ft_suite_new("report_unit");
	TCase *tc = ft_tcase(s, "core", 0);

	tcase_add_test(tc, t_quantiles_match_tables);
	tcase_add_test(tc, t_median_mean_ci);
	tcase_add_test(tc, t_welch);
	tcase_add_test(tc, t_fixture_plateau_and_ranking);
	tcase_add_test(tc, t_holm);
	tcase_add_test(tc, t_log_axis_rule);
	tcase_add_test(tc, t_verdict_text);
	tcase_add_test(tc, t_tic_layout_rule);
	tcase_add_test(tc, t_iozone_parse);
	tcase_add_test(tc, t_iozone_short_rows);
	tcase_add_test(tc, t_iozone_bad);
	tcase_add_test(tc, t_iozone_write_wide_numbers);
	return s;
}

int main(int argc, char **argv)
{
	struct ft_suite *s = suite();

	fixture_path();
	return ft_suite_run(s, argc, argv);
}
