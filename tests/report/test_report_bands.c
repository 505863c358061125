/* The first screen per band of file sizes (report/bands.c) on results
 * written here with a planted truth: a drift shared by the filesystems of
 * a cell and trial (10%, cancels in the paired ratios) and each sample's
 * own noise (0.5%).
 * - band assignment: 64K-1M small, 2M-64M medium, 128M-2G large, others none;
 * - planted: xfs 20% faster on large files only; ext4 and ext2 alike on
 *   small ones; fat32 through FUSE 3x faster everywhere is
 *   set aside, never the leader;
 * - A/A: one filesystem's figures under two names with independent noise
 *   is split no more often than the screen's 5% family-wise error allows
 *   (100 seeds here; 2,000 split 48, 2.4%), also with a trial effect;
 * - many cells resolve what few trials alone could not. */
#include "view.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double bt_normal(uint64_t *s)
{
	double u[2];

	for (int i = 0; i < 2; i++) {
		*s = *s * 6364136223846793005ull + 1442695040888963407ull;
		u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

static const uint64_t bt_files[] = { 256, 8192, 524288 }; /* one per band */

/* The shape of the results: records per file (4K, 8K, ...), trials, each
 * sample's own noise, and a trial effect of each filesystem shared by all
 * its cells in one trial (its state then), as log sds. */
struct bt_shape {
	int records;
	unsigned trials;
	double own, trial_fx;
};
static const struct bt_shape bt_default = { 2, 5, 0.005, 0 };

/* Writes fs.csv of n_fs filesystems of shape sh into dir: truth(f, band)
 * the factor, FUSE-flagged where fuse[f]. */
static void bt_write_shape(const char *dir, const char *const *fs, size_t n_fs, double (*truth)(size_t, int),
			   const bool *fuse, uint64_t seed, const struct bt_shape *sh)
{
	uint64_t rng = (seed + 1) * 0x9e3779b97f4a7c15ull;
	double drift[3][8][8][2], tfx[8][8];
	FILE *out[8];

	for (size_t c = 0; c < 3 * 8 * 8 * 2; c++)
		(&drift[0][0][0][0])[c] = 0.10 * bt_normal(&rng);
	for (size_t c = 0; c < 8 * 8; c++)
		(&tfx[0][0])[c] = sh->trial_fx * bt_normal(&rng);
	for (size_t f = 0; f < n_fs; f++) {
		char p[4200];

		snprintf(p, sizeof(p), "%.4095s/%s.csv", dir, fs[f]);
		ck_assert_ptr_nonnull(out[f] = fopen(p, "w"));
		fputs("filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,"
		      "cache_mode,status,flag\n", out[f]);
	}
	for (int t = 0; t < 2; t++)
		for (int b = 0; b < 3; b++)
			for (int r = 0; r < sh->records; r++)
				for (unsigned k = 0; k < sh->trials; k++)
					for (size_t f = 0; f < n_fs; f++)
						fprintf(out[f], "%s,%s,%llu,%u,%u,%.1f,1.0,cold,ok,%s\n", fs[f],
							t ? "read" : "write", (unsigned long long)bt_files[b],
							4u << r, k + 1,
							400000.0 * (1 + r) * truth(f, b) *
								exp(drift[b][r][k][t] + tfx[f][k] +
								    sh->own * bt_normal(&rng)),
							fuse && fuse[f] ? "fuse" : "");
	for (size_t f = 0; f < n_fs; f++)
		ck_assert_int_eq(fclose(out[f]), 0);
}

static void bt_write(const char *dir, const char *const *fs, size_t n_fs, double (*truth)(size_t, int),
		     const bool *fuse, uint64_t seed)
{
	bt_write_shape(dir, fs, n_fs, truth, fuse, seed, &bt_default);
}

static struct rp_data *bt_load(const char *dir)
{
	struct rp_data *d = calloc(1, sizeof(*d));
	const char *dirs[] = { dir };
	struct fslab_err e = { 0 };

	ck_assert_ptr_nonnull(d);
	ck_assert_msg(rp_load(d, dirs, 1, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(rp_summary_build(d, FSLAB_TESTS_EVERY, RP_EQUIVALENCE_DEFAULT), 0);
	return d;
}

static void bt_unload(struct rp_data *d, const char *dir, const char *const *fs, size_t n)
{
	char p[4200];

	rp_summary_free(d->sum);
	rp_free(d);
	free(d);
	for (size_t f = 0; f < n; f++) {
		snprintf(p, sizeof(p), "%.4095s/%s.csv", dir, fs[f]);
		unlink(p);
	}
}

static char *bt_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/fslab-bands-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(buf));
	return buf;
}

START_TEST(t_band_of)
{
	ck_assert_int_eq(fslab_band_of(32), RP_N_BANDS);
	ck_assert_int_eq(fslab_band_of(64), RP_BAND_SMALL);
	ck_assert_int_eq(fslab_band_of(1024), RP_BAND_SMALL);
	ck_assert_int_eq(fslab_band_of(2048), RP_BAND_MEDIUM);
	ck_assert_int_eq(fslab_band_of(65536), RP_BAND_MEDIUM);
	ck_assert_int_eq(fslab_band_of(131072), RP_BAND_LARGE);
	ck_assert_int_eq(fslab_band_of(2097152), RP_BAND_LARGE);
	ck_assert_int_eq(fslab_band_of(4194304), RP_N_BANDS);
	ck_assert_str_eq(rp_band_name(RP_BAND_MEDIUM), "medium (2M-64M)");
}
END_TEST

/* ext2, ext4, xfs, fat32 */
static double bt_planted(size_t f, int b)
{
	static const double t[4][3] = { { 1, 1, 1 }, { 1, 1, 1 }, { 0.8, 1, 1.2 }, { 3, 3, 3 } };
	return t[f][b];
}

START_TEST(t_planted)
{
	static const char *const fs[] = { "ext2", "ext4", "xfs", "fat32" };
	static const bool fuse[] = { false, false, false, true };
	char dir[4200];
	struct rp_data *d;

	bt_write(bt_dir(dir, sizeof(dir)), fs, 4, bt_planted, fuse, 42);
	d = bt_load(dir);
	const struct rp_bands *b = &d->sum->bands;
	/* 2 families x (3 bands and all sizes), 3 candidates each (fat32 set aside) */
	ck_assert_uint_eq(b->m, 2 * 4 * 3);
	for (int f = RP_FAMILY_SEQ_WRITE; f <= RP_FAMILY_SEQ_READ; f++) {
		const struct rp_band_verdict *s = &b->v[f][RP_BAND_SMALL], *m = &b->v[f][RP_BAND_MEDIUM],
					     *l = &b->v[f][RP_BAND_LARGE];

		ck_assert_str_eq(l->lead->fs, "xfs");
		ck_assert_int_eq(l->cmp.dir, RP_DIR_FASTER);
		ck_assert_msg(l->cmp.lo < 1.2 && l->cmp.hi > 1.2 && l->cmp.lo > 1.15, "[%g, %g]", l->cmp.lo,
			      l->cmp.hi);
		ck_assert_msg(strstr(l->line, "xfs leads, 1.2") && strstr(l->line, "faster"), "%s", l->line);
		/* fat32 would have led: named as set aside, with its flag */
		ck_assert_msg(l->aside && strstr(l->line, "; set aside: fat32 (FUSE"), "%s", l->line);
		/* small: ext4 and ext2 alike within 3% (the interval inside +-3%) */
		ck_assert_int_eq(s->cmp.dir, RP_DIR_EQUIVALENT);
		ck_assert(strcmp(s->lead->fs, "xfs") != 0 && strcmp(s->next->fs, "xfs") != 0);
		ck_assert_msg(s->within <= 0.03 && s->cmp.lo >= 1 - s->within && s->cmp.hi <= 1 + s->within,
			      "%s", s->line);
		ck_assert_msg(strstr(s->line, "alike within"), "%s", s->line);
		/* medium: all three equal, never called faster */
		ck_assert_int_ne(m->cmp.dir, RP_DIR_FASTER);
		/* all sizes: xfs's 0.8 and 1.2 bands against 1 and 1, never fat32 */
		const struct rp_band_verdict *a = &b->v[f][RP_BAND_ALL];
		ck_assert_msg(a->lead && strcmp(a->lead->fs, "fat32") && a->cmp.ratio >= 1 && a->cmp.ratio < 1.2,
			      "%s", a->line);
		for (int k = 0; k < RP_N_BANDS; k++)
			ck_assert_str_ne(b->v[f][k].lead->fs, "fat32");
	}
	ck_assert_ptr_null(b->v[RP_FAMILY_RANDOM][RP_BAND_LARGE].lead);
	/* the text shows the section before the verdicts; JSON has its keys */
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	ck_assert_int_eq(rp_text_summary(o, d), 0);
	fclose(o);
	char *sec = strstr(text, "by file size");
	ck_assert_msg(sec && strstr(sec, "\nverdicts on the large files") && strstr(sec, "sequential read, large (128M-2G): xfs leads"),
		      "%s", text);
	/* each family's line over every size comes first */
	ck_assert_msg(strstr(sec, "sequential read, all sizes (64K-2G): ") &&
			      strstr(sec, "sequential read, all sizes") < strstr(sec, "sequential read, small"),
		      "%s", text);
	free(text);
	/* report.json: bands, by family then band */
	o = open_memstream(&text, &len);
	ck_assert_int_eq(rp_json_write(o, d, FSLAB_TESTS_EVERY), 0);
	fclose(o);
	json_object *j = json_tokener_parse(text), *x;
	ck_assert(json_object_object_get_ex(j, "bands", &x) &&
		  json_object_object_get_ex(x, "sequential write", &x) && json_object_object_get_ex(x, "large", &x));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(x, "leader")), "xfs");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(x, "verdict")), "faster");
	json_object_put(j);
	free(text);
	bt_unload(d, dir, fs, 4);
	rmdir(dir);
}
END_TEST

static double bt_equal(size_t f, int b)
{
	(void)f;
	(void)b;
	return 1;
}

/* Experiments of shape sh with two filesystems, the second's factor
 * truth(1, band): how many had a comparison called faster; *resolve: the
 * first experiment's, sequential write on small files. */
static unsigned bt_calls(const struct bt_shape *sh, double (*truth)(size_t, int), unsigned nseeds,
			 double *resolve)
{
	static const char *const fs[] = { "ext4", "ext4b" };
	char dir[4200];
	unsigned split = 0;

	bt_dir(dir, sizeof(dir));
	for (uint64_t seed = 1; seed <= nseeds; seed++) {
		struct rp_data *d;
		bool any = false;

		bt_write_shape(dir, fs, 2, truth, NULL, seed, sh);
		d = bt_load(dir);
		for (int f = 0; f < RP_N_FAMILIES; f++)
			for (int k = 0; k < RP_N_BANDS; k++) {
				const struct rp_band_verdict *v = &d->sum->bands.v[f][k];

				if (v->cmp.dir == RP_DIR_FASTER)
					any = true;
				if (resolve && v->next && seed == 1 && f == RP_FAMILY_SEQ_WRITE && k == RP_BAND_SMALL)
					*resolve = v->cmp.resolve;
				if (v->cmp.dir == RP_DIR_FASTER && getenv("BT_SEEDS"))
					fprintf(stderr, "seed %llu: %s\n", (unsigned long long)seed, v->line);
			}
		split += any;
		bt_unload(d, dir, fs, 2);
	}
	rmdir(dir);
	if (getenv("BT_SEEDS"))
		fprintf(stderr, "called in %u of %u\n", split, nseeds);
	return split;
}

static unsigned bt_seeds(void)
{
	return getenv("BT_SEEDS") ? (unsigned)atoi(getenv("BT_SEEDS")) : 100;
}

/* the screen's family-wise error is 5%: about 5 of 100 experiments may
 * call one of their 6 comparisons; 10 would be beyond it (a method that
 * split equal filesystems by their noise would call far more: the drift
 * alone is 10%) */
START_TEST(t_aa_never_split)
{
	unsigned split = bt_calls(&bt_default, bt_equal, bt_seeds(), NULL);

	ck_assert_msg(split <= 9, "%u of %u A/A experiments split", split, bt_seeds());
}
END_TEST

/* A filesystem's state in a trial, shared by all its cells (here 2x each
 * sample's own noise), is noise the cells cannot average away: A/A is
 * still not split beyond the 5% (2,000 seeds: 3.3%; with the cells
 * counted as independent and no trial effect: 35%). */
START_TEST(t_aa_trial_effect)
{
	static const struct bt_shape sh = { 6, 3, 0.005, 0.01 };
	unsigned split = bt_calls(&sh, bt_equal, bt_seeds(), NULL);

	ck_assert_msg(split <= 9, "%u of %u A/A experiments split", split, bt_seeds());
}
END_TEST

static double bt_five_pct(size_t f, int b)
{
	(void)b;
	return f ? 1.05 : 1;
}

/* Many cells, few trials: 6 records x 3 trials at 3% noise per sample
 * tell a 5% difference (the cells are the replicates, not only the
 * trials), where per-trial band scores would have 2 df. */
START_TEST(t_cells_resolve)
{
	static const struct bt_shape sh = { 6, 3, 0.03, 0 };
	double resolve = NAN;
	unsigned called = bt_calls(&sh, bt_five_pct, 20, &resolve);

	ck_assert_msg(called >= 18, "a 5%% difference called in %u of 20", called);
	ck_assert_msg(resolve < 0.05, "resolves %g", resolve);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_bands");
	TCase *tc = ft_tcase(s, "bands", 0);

	tcase_add_test(tc, t_band_of);
	tcase_add_test(tc, t_planted);
	tcase_add_test(tc, t_aa_never_split);
	tcase_add_test(tc, t_aa_trial_effect);
	tcase_add_test(tc, t_cells_resolve);
	return ft_suite_run(s, argc, argv);
}
