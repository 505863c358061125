/* What a plan costs (bytes, free space, time), and fslab run --dry-run.
 * The cost model's one home: a test of a cell costs a fixed part, a part
 * per record (a many-files test: per file) and its bytes at the probe's
 * rate (warm mode: a file that fits in memory at the page cache's).  A
 * run measures the first two on each filesystem (run_calibrate), so a
 * FUSE filesystem's prices are its own; --dry-run and fslab reproduce use
 * the defaults.  The ETA's work is the model's seconds (run_cost_s). */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "size.h"
#include "steady.h"

#include <errno.h>
#include <math.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Before calibration: a test's fixed part (open, close, a flush, cold
 * mode's drop), a buffered call, a many-files test's file. */
#define COST_TEST_S 10e-3
#define COST_CALL_S 2e-6
#define COST_FILE_S 1e-3
/* Warm mode's rate for a file of at most half the memory. */
#define COST_PAGE_CACHE_KIB_S (2.0 * 1024 * 1024)

/* The prices of test t on fs: measured (run_calibrate) or the defaults. */
static void cost_prices(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs, enum fslab_test t,
			double *fixed_s, double *unit_s)
{
	const unsigned f = fslab_bench_test_get(t)->flags;
	const enum fslab_cache_mode m = c->cfg.sweep.cache;
	/* each record reaches the device as its own request: O_DIRECT (not
	 * stdio's; queued but in warm mode), a dropped file read out of order */
	const bool dev = (f & FSLAB_BT_QUEUED) ? m != FSLAB_CACHE_WARM
			 : m == FSLAB_CACHE_DIRECT ? !(f & FSLAB_BT_STDIO)
			 : m == FSLAB_CACHE_COLD && (t == FSLAB_TEST_RANDOM_READ || t == FSLAB_TEST_BACKWARD_READ ||
						     t == FSLAB_TEST_STRIDE_READ);

	*fixed_s = fs && fs->cal_fixed_s[t] > 0 ? fs->cal_fixed_s[t] : COST_TEST_S;
	*unit_s = fs && fs->cal_unit_s[t] > 0 ? fs->cal_unit_s[t]
		  : (f & FSLAB_BT_FILES)     ? COST_FILE_S
		  : dev			     ? RUN_COST_DEVICE_OP_S
					     : COST_CALL_S;
}

/* Records (a many-files test: files) of test t of cell, per request in flight. */
static double cost_units(const struct fslab_sweep_cell *cell, enum fslab_test t)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);

	if (bt->flags & FSLAB_BT_FILES)
		return (double)fslab_files_count(cell->file_bytes);
	return (double)(cell->file_bytes / cell->record_bytes) /
	       (bt->flags & FSLAB_BT_QUEUED ? (double)((cell->iodepth ? cell->iodepth : 1) * (cell->jobs ? cell->jobs : 1)) : 1);
}

/* Seconds test t of cell should take on fs (NULL: the defaults) at the
 * rates w and r (KiB/s); negative without a rate. */
static double cost_test_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
			  const struct fslab_sweep_cell *cell, enum fslab_test t, double w, double r)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	double rate = (bt->flags & FSLAB_BT_WRITES) ? w : r, fixed, unit, units, bytes = (double)cell->file_bytes;
	long pages = sysconf(_SC_PHYS_PAGES);

	if (!(rate > 0) || cell->pass_s > 0)
		return rate > 0 ? cell->pass_s + COST_TEST_S : -1;
	if (c->cfg.sweep.cache == FSLAB_CACHE_WARM && pages > 0 &&
	    bytes * 2 <= (double)pages * (double)sysconf(_SC_PAGESIZE))
		rate = COST_PAGE_CACHE_KIB_S;
	cost_prices(c, fs, t, &fixed, &unit);
	units = cost_units(cell, t);
	if (bt->flags & FSLAB_BT_FILES)
		bytes = bt->flags & FSLAB_BT_METADATA ? 0 : units * bytes;
	return fixed + units * unit + bytes / 1024.0 / rate + c->cfg.pass_gap_ms / 1000.0;
}

/* One trial of plan on fs at the rates (negative without one); warmup: a
 * plan of named rows' warm-up and rows' files written first too. */
static double cost_plan_s(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
			  const struct fslab_bench_fs *fs, double w, double r, bool warmup)
{
	double s = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_sweep_cell *cell = &plan->cells[i];
		unsigned tests = fslab_plan_cell_tests(cell, c->cfg.sweep.tests);

		if (fs && fs->rec.fuse && cell->file_bytes > RUN_FUSE_FILE_MAX)
			continue; /* the FUSE plan leaves it out */

		if (warmup && cell->pass_s > 0)
			s += (FSLAB_CDM_WARMUP_PASSES * (cell->pass_s + c->cfg.pass_gap_ms / 1000.0)) *
				     __builtin_popcount(tests) + (double)cell->file_bytes / 1024.0 / w;
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			double e = tests & (1u << t) ? cost_test_s(c, fs, cell, (enum fslab_test)t, w, r) : 0;

			if (e < 0)
				return -1;
			s += e;
		}
	}
	return s;
}

/* The run's time from one trial's and the once-only part: the minimum
 * trials, the likely (RUN_COST_PAST_MIN) and the most (the cap). */
static void cost_trials(const struct fslab_run_ctx *c, double trial, double once, double *lo_s, double *mid_s,
			double *hi_s)
{
	unsigned more = c->cfg.max_trials > c->cfg.sweep.trials ? c->cfg.max_trials - c->cfg.sweep.trials : 0;

	*lo_s = once + trial * c->cfg.sweep.trials;
	*mid_s = *lo_s + trial * more / RUN_COST_PAST_MIN;
	*hi_s = *lo_s + trial * more;
	/* past the tests' own cap the band look spends its budget and a trial */
	if (c->cfg.stop_rule == FSLAB_STOP_RULE_DECIDED && c->cfg.max_trials > run_stop_cell_cap(c)) {
		double cell = (double)run_stop_cell_cap(c) - c->cfg.sweep.trials;
		double most = fmax(*lo_s + trial * cell, FSLAB_STOP_BAND_BUDGET_S + trial);

		*mid_s = fmin(*mid_s, most), *hi_s = fmin(*hi_s, most);
	}
}

int fslab_run_estimate(const struct fslab_run_opts *o, size_t n_fs, double write_kib_s,
		       double read_kib_s, double *lo_s, double *hi_s)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_plan plan = { 0 };
	double trial, mid;
	int r = -ENOMEM;

	if (!c)
		return r;
	r = run_settings(c, o) < 0 ? -EINVAL : fslab_plan_build(&c->cfg.sweep, &plan);
	if (r >= 0) {
		trial = cost_plan_s(c, &plan, NULL, write_kib_s, read_kib_s, true) * (double)n_fs;
		r = trial < 0 ? -EINVAL : 0;
		cost_trials(c, trial, 0, lo_s, &mid, hi_s);
	}
	fslab_plan_free(&plan);
	run_ctx_free(c);
	return r;
}

/* The room the plan's files take at once on a filesystem: its largest
 * file, the largest tree of the many-files tests or (probe) the device
 * probe's file, whichever is largest; what[0] says which, what[1] the
 * fix. */
static uint64_t cost_largest(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe,
			     const char *what[2])
{
	uint64_t big = plan->cells[plan->n - 1].file_bytes;
	uint64_t pb = c->cfg.probe_bytes ? c->cfg.probe_bytes : FSLAB_PROBE_DEFAULT_BYTES;

	what[0] = "its largest file";
	what[1] = fslab_preset_named_rows(c->cfg.sweep.named_rows) ? "lower --cdm-size" : "lower --file-sizes";
	for (size_t i = 0; i < plan->n; i++)
		if ((fslab_plan_cell_tests(&plan->cells[i], c->cfg.sweep.tests) & FSLAB_TESTS_FILES) &&
		    fslab_files_tree_bytes(plan->cells[i].file_bytes) > big) {
			big = fslab_files_tree_bytes(plan->cells[i].file_bytes);
			what[0] = "the many-files tests' largest tree";
		}
	if (probe && pb > big) {
		big = pb;
		what[0] = "the device probe's file";
		what[1] = "lower --probe-size (or --no-device-probe)";
	}
	return big;
}

/* Free space a filesystem needs for the plan: the largest, plus an eighth
 * and 8 MiB for metadata, journal and clusters. */
#define COST_NEED(big) ((big) + (big) / 8 + 8 * FSLAB_MiB)

/* The free bytes of fs into *avail: 1, 0 when the filesystem does not
 * say (fusefat reports no blocks at all), or -errno, said. */
static int cost_fs_avail(const struct fslab_bench_fs *fs, uint64_t *avail)
{
	struct statvfs sv;

	if (statvfs(fs->rec.path, &sv) < 0)
		return run_note_errno(errno, "%s (%s): cannot read its free space", fs->rec.name,
				      fslab_esc(fs->rec.path));
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	return sv.f_blocks != 0;
}

/* The run on c's filesystems and their steady-state phases, as
 * cost_trials; -1 when a probe gave no rate. */
static int cost_run(const struct fslab_run_ctx *c, const struct fslab_plan *plan, double *lo, double *mid,
		    double *hi)
{
	double trial = 0, once = 0;

	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		double e = cost_plan_s(c, plan, fs, fs->probe.write_kib_s, fs->probe.read_kib_s, false);
		double st = run_steady_estimate_s(c, fs);

		if (e < 0 || st < 0)
			return -1;
		/* the FUSE plan runs the minimum trials, never more */
		trial += fs->rec.fuse ? 0 : e;
		once += (fs->rec.fuse ? e * c->cfg.sweep.trials : 0) + st + cost_plan_s(c, plan, fs, fs->probe.write_kib_s, fs->probe.read_kib_s, true) - e;
	}
	cost_trials(c, trial, once, lo, mid, hi);
	return 0;
}

/* The first estimate (probes, calibration): a figure and a range for the
 * model's error (25%) and the trials past the minimum, up to the cap. */
void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
		  struct fslab_progress *prog)
{
	double lo, mid, hi;
	char d1[32], d2[32], d3[32];

	fslab_progress_set_estimate(prog, 1); /* the work is the model's seconds */
	if (cost_run(c, plan, &lo, &mid, &hi) < 0)
		return;
	hi *= 1.25;
	fslab_progress_note(prog, "%s: estimated time %s (%s..%s; %u..%u trial(s), from the device probes and each filesystem's measured costs; re-fitted from each cell measured)",
			    fslab_log_prefix(), fslab_progress_format_duration(mid, d1, sizeof(d1)),
			    fslab_progress_format_duration(lo * 0.8, d2, sizeof(d2)),
			    fslab_progress_format_duration(hi, d3, sizeof(d3)), c->cfg.sweep.trials, c->cfg.max_trials);
}

/* A calibration cell's row: test t took wall_s in all (its untimed part
 * too), less its bytes the rest.  A one-record cell's rest is the fixed
 * part; a larger one's, less the fixed part, is per record or file, and
 * the fixed part the least of the two (a first create on a FUSE mount
 * took 50 times what the next did). */
void run_cost_calibrated(struct fslab_bench_fs *fs, const struct fslab_run_ctx *c,
			 const struct fslab_sweep_cell *cell, enum fslab_test t, double wall_s)
{
	const bool one = cell->file_bytes == cell->record_bytes && !(fslab_bench_test_get(t)->flags & FSLAB_BT_FILES);
	double fixed, unit, units = cost_units(cell, t), s, rest;

	cost_prices(c, fs, t, &fixed, &unit);
	s = cost_test_s(c, fs, cell, t, fs->probe.write_kib_s, fs->probe.read_kib_s);
	rest = fmax(wall_s - (s - fixed - unit * units), 1e-4);
	fs->cal_fixed_s[t] = s < 0 ? 0 : one ? rest : fmin(fixed, rest);
	if (!one && s >= 0)
		fs->cal_unit_s[t] = fmax((rest - fs->cal_fixed_s[t]) / units, 1e-7);
}

double run_cost_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
		  const struct fslab_sweep_cell *cell, unsigned mask)
{
	double s = 0;

	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (mask & (1u << t))
			s += cost_test_s(c, fs, cell, (enum fslab_test)t,
					 fs->probe.write_kib_s > 0 ? fs->probe.write_kib_s : FSLAB_RUN_NOMINAL_KIB_S,
					 fs->probe.read_kib_s > 0 ? fs->probe.read_kib_s : FSLAB_RUN_NOMINAL_KIB_S);
	return s;
}

/* ---- --dry-run ---- */

/* --dry-run: what the plan is and moves. */
static void run_dry_print_plan(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	const struct fslab_sweep_spec *s = &c->cfg.sweep;
	char f1[400], f2[32], r1[400], r2[80], tests[256];
	uint64_t bytes = 0;

	for (size_t i = 0; i < plan->n; i++) {
		unsigned ct = fslab_plan_cell_tests(&plan->cells[i], s->tests);

		bytes += plan->cells[i].file_bytes * (uint64_t)__builtin_popcount(ct & ~FSLAB_TESTS_FILES);
		bytes += plan->cells[i].file_bytes * fslab_files_count(plan->cells[i].file_bytes) *
			 (uint64_t)__builtin_popcount(ct & ((1u << FSLAB_TEST_FILES_CREATE) | (1u << FSLAB_TEST_FILES_READ)));
	}
	fslab_tests_format(s->tests, tests, sizeof(tests));
	printf("fslab run --dry-run: the plan; nothing is run or written%s\n",
	       probe ? " (the device probe writes its file in a private directory and removes it)" : "");
	if (fslab_preset_named_rows(s->named_rows)) {
		printf("rows: %s (CrystalDiskMark 8), %zu rows x their read and write tests on a file of %s, passes of %u s, %d discarded warm-up pass of each row on each filesystem first:\n",
		       fslab_preset_to_string(s->named_rows), plan->n, fslab_size_format(s->file_max, f1, sizeof(f1)),
		       s->pass_s, FSLAB_CDM_WARMUP_PASSES);
		for (size_t i = 0; i < plan->n; i++) {
			const struct fslab_sweep_cell *cell = &plan->cells[i];
			unsigned ct = fslab_plan_cell_tests(cell, s->tests);
			char list[128], name[48];

			if (!ct)
				continue;
			fslab_tests_format(ct, list, sizeof(list));
			printf("  %-14s %s\n", fslab_queue_row_name((enum fslab_test)__builtin_ctz(ct), cell->record_bytes / 1024,
								    cell->iodepth, cell->jobs, name, sizeof(name)), list);
		}
	} else {
		printf("grid: files %s x records %s%s: %zu cells x %d tests (%s)\n",
		       fslab_setting_format(FSLAB_SETTING_FILE_SIZES, &c->cfg, f1, sizeof(f1)),
		       fslab_setting_format(FSLAB_SETTING_RECORD_SIZES, &c->cfg, r1, sizeof(r1)), s->coarse ? " (coarse, below)"
		       : s->keep_small_records ? "" : " (IOzone's tests: records < 64K skipped on files > 16M)",
		       plan->n, __builtin_popcount(s->tests), tests);
	}
	if (s->coarse)
		printf("records (the lab preset's): %s\n", FSLAB_PLAN_COARSE_RULE);
	if (!fslab_preset_named_rows(s->named_rows) && (s->tests & FSLAB_TESTS_QUEUED))
		printf("queued tests: io_uring, %s in flight per thread, %u thread%s (--iodepth, --jobs), %s\n",
		       fslab_setting_format(FSLAB_SETTING_IODEPTH, &c->cfg, r2, sizeof(r2)), s->jobs ? s->jobs : 1, s->jobs > 1 ? "s" : "",
		       s->cache == FSLAB_CACHE_WARM ? "buffered" : "O_DIRECT");
	printf(c->cfg.max_trials > s->trials ? "trials: %u..%u (%s)\n" : "trials: %u\n", s->trials, c->cfg.max_trials,
	       c->cfg.until_ci_pct > 0 ? "until each test's 95% CI is narrow enough (--until-ci)"
				       : "--stop decided: each test until its comparisons are decided or undecidable, "
					 "and its band of file sizes resolved within 10%");
	printf("cache: %s, io: %s, sync: %s, steady state: %s (rounds of %s)\n", fslab_cache_mode_to_string(s->cache),
	       fslab_setting_word(FSLAB_SETTING_IO, c->cfg.io_mode), fslab_setting_word(FSLAB_SETTING_SYNC, c->cfg.sync_policy),
	       fslab_setting_word(FSLAB_SETTING_STEADY, c->cfg.steady_mode), fslab_size_format(c->cfg.steady_round_bytes, r1, sizeof(r1)));
	if (fslab_preset_named_rows(s->named_rows))
		printf("bytes to move: what each device moves in %u s a pass, the rows' files of %s written first\n", s->pass_s,
		       fslab_size_format(s->file_max, f1, sizeof(f1)));
	else
		printf("bytes to move: %s per filesystem and trial; %s%s%s in all\n", fslab_size_human(bytes, f1, sizeof(f1)),
		       fslab_size_human(bytes * c->n_fs * s->trials, f2, sizeof(f2)), c->cfg.max_trials > s->trials ? ".." : "",
		       c->cfg.max_trials > s->trials ? fslab_size_human(bytes * c->n_fs * c->cfg.max_trials, r1, sizeof(r1)) : "");
}

/* --dry-run: does the plan fit on each filesystem?  0, or -ENOSPC after
 * saying which does not (or -errno when free space cannot be read). */
static int run_dry_check_space(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	const char *what[2];
	uint64_t big = cost_largest(c, plan, probe, what), need = COST_NEED(big), avail;
	char f1[32], f2[32], f3[32];
	int ret = 0;

	printf("filesystems: %zu\n", c->n_fs);
	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		int known = cost_fs_avail(fs, &avail);

		if (known < 0)
			return known;
		printf("  %-12s %-8s %s  free %s, needs %s: %s\n", fslab_esc(fs->rec.name), fs->rec.type, fslab_esc(fs->rec.path),
		       known ? fslab_size_human(avail, f1, sizeof(f1)) : "unknown (the filesystem does not say)",
		       fslab_size_human(need, f2, sizeof(f2)), !known || avail >= need ? "ok" : "DOES NOT FIT");
		if (!known || avail >= need)
			continue;
		fflush(stdout);
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): the plan needs %s free (%s, %s, plus an eighth and 8 MiB), the filesystem has %s; %s or use a bigger filesystem",
			   fs->rec.name, fslab_esc(fs->rec.path), fslab_size_human(need, f2, sizeof(f2)), what[0],
			   fslab_size_human(big, f3, sizeof(f3)), fslab_size_human(avail, f1, sizeof(f1)), what[1]);
		ret = -ENOSPC;
	}
	return ret;
}

int run_fit_plan(struct fslab_run_ctx *c, struct fslab_plan *plan)
{
	struct fslab_sweep_spec *s = &c->cfg.sweep;
	const char *what[2];
	uint64_t need = COST_NEED(cost_largest(c, plan, false, what)), avail, room = UINT64_MAX, was = s->file_max;
	char f1[32], f2[32], f3[32];
	int ret = 0;

	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		int known = cost_fs_avail(fs, &avail);

		if (known < 0)
			return known;
		room = known && avail < room ? avail : room;
		if (!fslab_preset_named_rows(s->named_rows) || !known || avail >= need)
			continue;
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): --sweep %s's file of %s needs %s free (plus an eighth and 8 MiB), the filesystem has %s; give a smaller --cdm-size (a power of two, e.g. %s) or free some space",
			   fs->rec.name, fslab_esc(fs->rec.path), fslab_preset_to_string(s->named_rows),
			   fslab_size_format(s->file_max, f1, sizeof(f1)), fslab_size_human(need, f2, sizeof(f2)),
			   fslab_size_human(avail, f3, sizeof(f3)),
			   fslab_size_format(s->file_max / 4 >= 16 * FSLAB_MiB ? s->file_max / 4 : 16 * FSLAB_MiB, f1, sizeof(f1)));
		ret = -ENOSPC;
	}
	/* the lab preset's files: halved until the largest fits (a resumed
	 * run keeps its recorded plan) */
	while (s->coarse && !c->resumed && s->file_max > s->file_min && COST_NEED(cost_largest(c, plan, false, what)) > room) {
		s->file_max /= 2;
		fslab_plan_free(plan);
		if (fslab_plan_build(s, plan) < 0)
			return -EINVAL;
	}
	if (s->file_max < was)
		fslab_note_line("%s: files up to %s, not %s: the largest that fits the fullest filesystem (%s free)",
				fslab_log_prefix(), fslab_size_format(s->file_max, f1, sizeof(f1)),
				fslab_size_format(was, f2, sizeof(f2)), fslab_size_human(room, f3, sizeof(f3)));
	return ret;
}

/* --dry-run: probes each device and prints the time the plan should take
 * by the model's defaults (fslab run measures its own).  0, or -errno when
 * a private directory cannot be made. */
static int run_dry_estimate(struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	double lo, mid, hi;
	char f1[32], f2[32];

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];
		int r = run_workdir_create(fs, c->run_id);

		if (r < 0)
			return r;
		fslab_device_probe(&fslab_io_posix, &fs->work_fd, fs->rec.path, NULL, c->cfg.probe_bytes, &fs->probe);
		run_workdir_remove(fs);
		printf("  %s: probe %s: write %.0f KiB/s, read %.0f KiB/s (%s)\n", fslab_esc(fs->rec.name), fs->probe.method,
		       fs->probe.write_kib_s, fs->probe.read_kib_s, fslab_esc(fs->probe.note));
	}
	if (cost_run(c, plan, &lo, &mid, &hi) < 0)
		printf("time: not estimated (a probe gave no rate)\n");
	else
		printf("time: about %s (up to %s with every trial the stopping rule allows; from each device probe and the model's default prices of a test, a record and a file; fslab run measures them on each filesystem before the sweep)\n",
		       fslab_progress_format_duration(mid, f1, sizeof(f1)), fslab_progress_format_duration(hi, f2, sizeof(f2)));
	return 0;
}

int fslab_run_dry_run(const struct fslab_run_opts *o)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_plan plan = { 0 };
	int ret = FSLAB_EXIT_FAILURE;

	if (!c)
		return FSLAB_EXIT_FAILURE;
	if (run_settings(c, o) < 0) {
		ret = FSLAB_EXIT_USAGE;
		goto out;
	}
	ret = run_pick_filesystems(c, o);
	if (ret != FSLAB_EXIT_OK)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	if (fslab_plan_build(&c->cfg.sweep, &plan) < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "the sweep has no cell to run");
		goto out;
	}
	if (run_fit_plan(c, &plan) < 0)
		goto out;
	run_dry_print_plan(c, &plan, !c->cfg.no_device_probe);
	if (run_dry_check_space(c, &plan, !c->cfg.no_device_probe) < 0)
		goto out;
	if (c->cfg.no_device_probe)
		printf("time: not estimated (--no-device-probe: no rate to estimate from)\n");
	else if (run_dry_estimate(c, &plan) < 0)
		goto out;
	ret = FSLAB_EXIT_OK;
out:
	fslab_plan_free(&plan);
	run_ctx_free(c);
	return ret;
}
