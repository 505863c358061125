/* What a plan costs (bytes, free space, time, from the device probes) and
 * fslab run --dry-run, which prints it without running anything. */
#include "run_int.h"

#include "engine.h"
#include "lab.h"
#include "log.h"
#include "size.h"
#include "steady.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/statvfs.h>

int fslab_run_sweep_bytes(enum fslab_preset preset, uint64_t file_max, uint64_t *bytes)
{
	struct fslab_sweep_spec sweep;
	struct fslab_plan plan;
	int r;

	if (preset < 0 || preset >= FSLAB_PRESET_MAX)
		return -EINVAL;
	fslab_sweep_preset_values(preset, &sweep);
	if (file_max)
		sweep.file_max = file_max;
	r = fslab_plan_build(&sweep, &plan);
	if (r < 0)
		return r;
	*bytes = 0;
	for (size_t i = 0; i < plan.n; i++)
		*bytes += plan.cells[i].file_bytes * (uint64_t)__builtin_popcount(sweep.tests);
	fslab_plan_free(&plan);
	return 0;
}

/* Bytes one trial of the plan moves on one filesystem: every test of
 * every cell reads or writes the whole file once. */
static uint64_t run_plan_bytes(const struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	uint64_t b = 0;

	for (size_t i = 0; i < plan->n; i++)
		b += plan->cells[i].file_bytes * (uint64_t)__builtin_popcount(c->sweep.tests);
	return b;
}

/* Seconds one trial of the plan should take on fs, from its device probe:
 * each writer's bytes at the probe's write rate, each reader's at its read
 * rate, plus a system call's cost per record (RUN_EST_CALL_S) and each
 * test's own fixed cost (create, fsync, cache drop: RUN_EST_TEST_S).
 * Negative when the probe gave no rate. */
#define RUN_EST_CALL_S 2e-6

#define RUN_EST_TEST_S 3e-3

static double run_plan_estimate_s(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
				  const struct fslab_bench_fs *fs)
{
	double s = 0;

	if (!(fs->probe.write_kib_s > 0) || !(fs->probe.read_kib_s > 0))
		return -1;
	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_sweep_cell *cell = &plan->cells[i];
		double kib = (double)cell->file_bytes / 1024.0;
		double calls = (double)(cell->file_bytes / cell->record_bytes);

		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			if (!(c->sweep.tests & (1u << t)))
				continue;
			const struct fslab_bench_test *bt = fslab_bench_test_get(t);
			double rate = (bt->flags & FSLAB_BT_WRITES) ? fs->probe.write_kib_s : fs->probe.read_kib_s;
			s += kib / rate + calls * RUN_EST_CALL_S + RUN_EST_TEST_S;
		}
	}
	return s;
}

/* The largest file the run writes on a filesystem: the plan's largest, or
 * the probe's when it is larger (and probed). */
static uint64_t run_plan_largest(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t big = plan->cells[plan->n - 1].file_bytes;
	uint64_t pb = c->probe_bytes ? c->probe_bytes : FSLAB_PROBE_DEFAULT_BYTES;

	return probe && pb > big ? pb : big;
}

static bool run_probe_is_largest(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
				 bool probe)
{
	return run_plan_largest(c, plan, probe) > plan->cells[plan->n - 1].file_bytes;
}

/* Free space fs needs for the plan: its largest file, plus an eighth and
 * 8 MiB for metadata, journal and clusters. */
static uint64_t run_plan_need(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t big = run_plan_largest(c, plan, probe);

	return big + big / 8 + 8 * FSLAB_MiB;
}

/* The progress ETA starts from the same estimate as --dry-run (until
 * measured rates take over): seconds per unit of run_cell_work, over every
 * filesystem.  Nothing when a filesystem's probe gave no rate. */
void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
		  struct fslab_progress *prog)
{
	double est = 0, work = 0;
	char d1[32], d2[32];

	for (size_t i = 0; i < c->n_fs; i++) {
		double e = run_plan_estimate_s(c, plan, &c->fs[i]);

		if (e < 0)
			return;
		est += e;
	}
	for (size_t i = 0; i < plan->n; i++)
		work += run_cell_work(&plan->cells[i]) * __builtin_popcount(c->sweep.tests);
	work *= (double)c->n_fs;
	if (!(work > 0) || !(est > 0))
		return;
	fslab_progress_set_estimate(prog, est / work);
	if (c->max_trials > c->sweep.trials)
		fslab_progress_note(prog, "%s: estimated time %s..%s (%u..%u trials; from the device probes, as --dry-run)",
				    fslab_log_prefix(),
				    fslab_progress_format_duration(est * c->sweep.trials, d1, sizeof(d1)),
				    fslab_progress_format_duration(est * c->max_trials, d2, sizeof(d2)),
				    c->sweep.trials, c->max_trials);
	else
		fslab_progress_note(prog, "%s: estimated time %s (%u trial(s); from the device probes, as --dry-run)",
				    fslab_log_prefix(),
				    fslab_progress_format_duration(est * c->sweep.trials, d1, sizeof(d1)),
				    c->sweep.trials);
}

/* --dry-run: what the plan is and moves. */
static void run_dry_print_plan(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	char f1[32], f2[32], r1[32], r2[32], tests[256];
	uint64_t bytes = run_plan_bytes(c, plan);

	fslab_tests_format(c->sweep.tests, tests, sizeof(tests));
	printf("fslab run --dry-run: the plan; nothing is run or written%s\n",
	       probe ? " (the device probe writes its file in a private directory and removes it)" : "");
	printf("grid: files %s-%s x records %s-%s%s: %zu cells x %d tests (%s)\n",
	       fslab_size_format(c->sweep.file_min, f1, sizeof(f1)),
	       fslab_size_format(c->sweep.file_max, f2, sizeof(f2)),
	       fslab_size_format(c->sweep.record_min, r1, sizeof(r1)),
	       fslab_size_format(c->sweep.record_max, r2, sizeof(r2)),
	       c->sweep.keep_small_records ? "" : " (records < 64K skipped on files > 16M)", plan->n,
	       __builtin_popcount(c->sweep.tests), tests);
	if (c->until_ci_pct > 0)
		printf("trials: %u..%u (until each test's 95%% CI is within %g%%)\n", c->sweep.trials,
		       c->max_trials, c->until_ci_pct);
	else if (c->max_trials > c->sweep.trials)
		printf("trials: %u..%u (--stop decided: each test until its comparisons are decided or undecidable)\n",
		       c->sweep.trials, c->max_trials);
	else
		printf("trials: %u\n", c->sweep.trials);
	printf("cache: %s, io: %s, sync: %s, steady state: %s (rounds of %s)\n",
	       fslab_cache_mode_to_string(c->sweep.cache), fslab_io_mode_to_string(c->io_mode),
	       fslab_sync_policy_to_string(c->sync_policy), fslab_steady_mode_to_string(c->steady_mode),
	       fslab_size_format(c->steady_round_bytes, r1, sizeof(r1)));
	printf("bytes to move: %s per filesystem and trial; %s", fslab_size_human(bytes, f1, sizeof(f1)),
	       fslab_size_human(bytes * c->n_fs * c->sweep.trials, f2, sizeof(f2)));
	if (c->max_trials > c->sweep.trials)
		printf("..%s", fslab_size_human(bytes * c->n_fs * c->max_trials, r1, sizeof(r1)));
	printf(" in all\n");
}

/* --dry-run: does the plan fit on each filesystem?  0, or -ENOSPC after
 * saying which does not (or -errno when free space cannot be read). */
static int run_dry_check_space(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t need = run_plan_need(c, plan, probe), avail;
	char f1[32], f2[32], f3[32];
	int ret = 0;

	printf("filesystems: %zu\n", c->n_fs);
	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		struct statvfs sv;

		if (statvfs(fs->path, &sv) < 0)
			return fslab_error_errno(errno, "%s (%s): cannot read its free space", fs->name,
						 run_esc(fs->path));
		if (sv.f_blocks == 0) {
			/* fusefat, for one, reports no blocks at all: nothing
			 * to check against, which is not "full". */
			printf("  %-12s %-8s %s  free unknown (the filesystem does not say), needs %s\n",
			       fs->name, fs->type, run_esc(fs->path),
			       fslab_size_human(need, f2, sizeof(f2)));
			continue;
		}
		avail = (uint64_t)sv.f_bavail * sv.f_frsize;
		printf("  %-12s %-8s %s  free %s, needs %s: %s\n", fs->name, fs->type, run_esc(fs->path),
		       fslab_size_human(avail, f1, sizeof(f1)), fslab_size_human(need, f2, sizeof(f2)),
		       avail >= need ? "ok" : "DOES NOT FIT");
		if (avail >= need)
			continue;
		fflush(stdout);
		/* Name the file that sets the need: the device probe's scratch
		 * file can be larger than every file of the plan. */
		fslab_error("%s (%s): the plan needs %s free (%s, %s, plus an eighth and 8 MiB), the filesystem has %s; %s or use a bigger filesystem",
			    fs->name, run_esc(fs->path), fslab_size_human(need, f2, sizeof(f2)),
			    run_probe_is_largest(c, plan, probe) ? "the device probe's file"
								 : "its largest file",
			    fslab_size_human(run_plan_largest(c, plan, probe), f3, sizeof(f3)),
			    fslab_size_human(avail, f1, sizeof(f1)),
			    run_probe_is_largest(c, plan, probe)
				    ? "lower --probe-size (or --no-device-probe)"
				    : "lower --file-sizes");
		ret = -ENOSPC;
	}
	return ret;
}

/* --dry-run: probes each device and prints the time the plan should take.
 * 0, or -errno when a private directory cannot be made. */
static int run_dry_estimate(struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	double est_s = 0, steady_s = 0;
	bool estimated = true;
	char f1[32], f2[32], f3[32];

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];
		double e, st;
		int r = run_workdir_create(fs, c->run_id);

		if (r < 0)
			return r;
		fslab_device_probe(&fslab_io_posix, &fs->work_fd, fs->path, NULL, c->probe_bytes, &fs->probe);
		run_workdir_remove(fs);
		e = run_plan_estimate_s(c, plan, fs);
		st = run_steady_estimate_s(c, fs);
		if (e < 0 || st < 0) {
			printf("  %s: probe %s (%s): no estimate\n", fs->name, fs->probe.method, fs->probe.note);
			estimated = false;
			continue;
		}
		printf("  %s: probe %s: write %.0f KiB/s, read %.0f KiB/s: %s per trial", fs->name,
		       fs->probe.method, fs->probe.write_kib_s, fs->probe.read_kib_s,
		       fslab_progress_format_duration(e, f1, sizeof(f1)));
		if (st > 0)
			printf(", steady-state phase up to %s (%d rounds)",
			       fslab_progress_format_duration(st, f1, sizeof(f1)), FSLAB_STEADY_ROUNDS_MAX);
		printf("\n");
		est_s += e;
		steady_s += st;
	}
	if (!estimated) {
		printf("time: not estimated (a probe gave no rate)\n");
		return 0;
	}
	printf("time: about %s", fslab_progress_format_duration(est_s * c->sweep.trials + steady_s, f1, sizeof(f1)));
	if (c->max_trials > c->sweep.trials)
		printf("..%s", fslab_progress_format_duration(est_s * c->max_trials + steady_s, f2, sizeof(f2)));
	if (steady_s > 0)
		printf(" (of which the steady-state phases, all %d rounds, %s)", FSLAB_STEADY_ROUNDS_MAX,
		       fslab_progress_format_duration(steady_s, f3, sizeof(f3)));
	printf(" plus the probes (estimated from each device probe: a writer's bytes at its write rate, a reader's at its read rate, %g us a record, %g ms a test; page-cache reads run faster)\n",
	       RUN_EST_CALL_S * 1e6, RUN_EST_TEST_S * 1e3);
	return 0;
}

int fslab_run_dry_run(const struct fslab_run_opts *o)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_plan plan = { 0 };
	struct fslab_lab *lab = o->lab;
	int ret = FSLAB_EXIT_FAILURE;
	bool probe;

	if (!c)
		return FSLAB_EXIT_FAILURE;
	if (o->resume_dir) {
		fslab_error("--dry-run plans a new run; --resume continues one with its recorded plan (see its manifest)");
		ret = FSLAB_EXIT_USAGE;
		goto out;
	}
	if (run_settings(c, o) < 0) {
		ret = FSLAB_EXIT_USAGE;
		goto out;
	}
	ret = run_pick_filesystems(c, o, &lab);
	if (ret != FSLAB_EXIT_OK)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	if (fslab_plan_build(&c->sweep, &plan) < 0) {
		fslab_error("the sweep has no cell to run");
		goto out;
	}
	probe = !c->no_device_probe;
	run_dry_print_plan(c, &plan, probe);
	if (run_dry_check_space(c, &plan, probe) < 0)
		goto out;
	if (!probe)
		printf("time: not estimated (--no-device-probe: no rate to estimate from)\n");
	else if (run_dry_estimate(c, &plan) < 0)
		goto out;
	ret = FSLAB_EXIT_OK;
out:
	fslab_plan_free(&plan);
	if (lab != o->lab)
		fslab_lab_close(lab);
	run_ctx_free(c);
	free(c);
	return ret;
}
