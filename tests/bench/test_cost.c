/* The cost model (bench/run_cost.c) fed a filesystem's calibration, the
 * three small cells a run measures before its first estimate: its
 * prediction of a whole trial holds what a recorded run took within 25%
 * on a kernel filesystem.  On FAT32 through FUSE within 40%: a FAT
 * directory is a list, so a create costs more in the plan's trees of 256
 * files than in the calibration's of 64 (the ETA then re-fits from the
 * rate measured); the old model priced a file at a kernel filesystem's
 * 0.5 ms where an fsync'd create through fusefat took 140.  Recorded on a 2-core
 * VM's image lab (600M partitions, loop with direct I/O): each
 * calibration test's wall seconds and the trial's rows' wall seconds. */
#include "testutil.h"

#include "run_int.h"
#include "engine/engine.h"
#include "size.h"

#include <math.h>
#include <stdlib.h>

struct cal {
	uint64_t file, record;
	int test;
	double wall_s;
};

/* ext4, fslab run --file-sizes 64K-16M (cold, 81 cells x 13 tests):
 * trial 1's 1053 rows took 16.47 s. */
static const struct cal ext4_cal[] = {
	{ 65536, 65536, 0, 0.004343 },	  { 65536, 65536, 1, 0.000554 },   { 65536, 65536, 2, 0.002916 },
	{ 65536, 65536, 3, 0.000642 },	  { 65536, 65536, 4, 0.000406 },   { 65536, 65536, 5, 0.000962 },
	{ 65536, 65536, 6, 0.000803 },	  { 65536, 65536, 7, 0.000702 },   { 65536, 65536, 8, 0.001233 },
	{ 65536, 65536, 9, 0.001109 },	  { 65536, 65536, 10, 0.000428 },  { 65536, 65536, 11, 0.001833 },
	{ 65536, 65536, 12, 0.000282 },	  { 4194304, 4096, 0, 0.007330 },  { 4194304, 4096, 1, 0.004626 },
	{ 4194304, 4096, 2, 0.004992 },	  { 4194304, 4096, 3, 0.001408 },  { 4194304, 4096, 4, 0.277066 },
	{ 4194304, 4096, 5, 0.006776 },	  { 4194304, 4096, 6, 0.230654 },  { 4194304, 4096, 7, 0.002236 },
	{ 4194304, 4096, 8, 0.029675 },	  { 4194304, 4096, 9, 0.011150 },  { 4194304, 4096, 10, 0.006249 },
	{ 4194304, 4096, 11, 0.005863 },  { 4194304, 4096, 12, 0.001195 },
};

/* fat32 through fusefat, fslab run --tests all,files --file-sizes 256K-1M
 * --stop fixed --trials 1 (24 cells, the many-files tests in 3): its 323
 * rows took 24.8 s; its first write took 50 times the next. */
static const struct cal fat32_cal[] = {
	{ 65536, 65536, 0, 0.268223 },	    { 65536, 65536, 1, 0.003295 },	{ 65536, 65536, 2, 0.117525 },
	{ 65536, 65536, 3, 0.002587 },	    { 65536, 65536, 4, 0.054163 },	{ 65536, 65536, 5, 0.001847 },
	{ 65536, 65536, 6, 0.052783 },	    { 65536, 65536, 7, 0.007687 },	{ 65536, 65536, 8, 0.056763 },
	{ 65536, 65536, 9, 0.006865 },	    { 65536, 65536, 10, 0.007530 },	{ 65536, 65536, 11, 0.050430 },
	{ 65536, 65536, 12, 0.001131 },	    { 1048576, 4096, 0, 0.023378 },	{ 1048576, 4096, 1, 0.010951 },
	{ 1048576, 4096, 2, 0.047200 },	    { 1048576, 4096, 3, 0.002585 },	{ 1048576, 4096, 4, 0.104133 },
	{ 1048576, 4096, 5, 0.034609 },	    { 1048576, 4096, 6, 0.149761 },	{ 1048576, 4096, 7, 0.022229 },
	{ 1048576, 4096, 8, 0.060942 },	    { 1048576, 4096, 9, 0.008311 },	{ 1048576, 4096, 10, 0.007169 },
	{ 1048576, 4096, 11, 0.048327 },    { 1048576, 4096, 12, 0.002025 },	{ 1048576, 1048576, 17, 1.087270 },
	{ 1048576, 1048576, 18, 0.011367 }, { 1048576, 1048576, 19, 0.214007 }, { 1048576, 1048576, 20, 0.094836 },
};

/* One trial of the plan the options say on one filesystem probed at w
 * and r KiB/s, by the model calibrated with cal (n rows; none: the
 * defaults). */
static double trial_s(uint64_t file_min, uint64_t file_max, unsigned tests, double w, double r,
		      const struct cal *cal, size_t n)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_run_opts o;
	struct fslab_plan plan = { 0 };
	double s = 0;

	ck_assert_ptr_nonnull(c);
	fslab_run_opts_init(&o);
	fslab_settings_put(&o.given, FSLAB_SETTING_FILE_SIZES, file_min, file_max);
	ck_assert_int_eq(run_settings(c, &o), 0);
	c->cfg.sweep.tests = tests;
	ck_assert_int_eq(fslab_plan_build(&c->cfg.sweep, &plan), 0);
	c->fs = calloc(1, sizeof(*c->fs));
	ck_assert_ptr_nonnull(c->fs);
	c->fs[0].probe.write_kib_s = w;
	c->fs[0].probe.read_kib_s = r;
	for (size_t i = 0; i < n; i++) {
		struct fslab_sweep_cell cell = { .file_bytes = cal[i].file, .record_bytes = cal[i].record };

		run_cost_calibrated(&c->fs[0], c, &cell, (enum fslab_test)cal[i].test, cal[i].wall_s);
	}
	for (size_t i = 0; i < plan.n; i++)
		s += run_cost_s(c, &c->fs[0], &plan.cells[i], fslab_plan_cell_tests(&plan.cells[i], tests));
	fslab_plan_free(&plan);
	run_ctx_free(c); /* n_fs 0: nothing of fs[0] was opened */
	return s;
}

START_TEST(calibrated_model_predicts_a_recorded_trial)
{
	double ext4 = trial_s(64 * FSLAB_KiB, 16 * FSLAB_MiB, FSLAB_TESTS_IOZONE, 1875539, 1698805, ext4_cal,
			      sizeof(ext4_cal) / sizeof(ext4_cal[0]));
	double fat32 = trial_s(256 * FSLAB_KiB, FSLAB_MiB, FSLAB_TESTS_IOZONE | FSLAB_TESTS_FILES, 245737, 1137509,
			       fat32_cal, sizeof(fat32_cal) / sizeof(fat32_cal[0]));

	fprintf(stderr, "ext4: %.2f s predicted, 16.47 recorded; fat32: %.2f s, 24.8 recorded\n", ext4, fat32);
	ck_assert_msg(fabs(ext4 / 16.47 - 1) <= 0.25, "ext4: %.2f s predicted, 16.47 s recorded", ext4);
	ck_assert_msg(fabs(fat32 / 24.8 - 1) <= 0.4, "fat32: %.2f s predicted, 24.8 s recorded", fat32);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("cost");
	TCase *tc = ft_tcase(s, "cost", 0);

	tcase_add_test(tc, calibrated_model_predicts_a_recorded_trial);
	return ft_suite_run(s, argc, argv);
}
