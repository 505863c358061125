/* fslab_run(): settings, filesystems, device probe, then the sweep:
 *
 *   for trial in 1..T                       (outside the filesystem loop)
 *     for fs in shuffle(filesystems, seed, trial)
 *       for (file, record) in plan          (IOzone's order)
 *         fslab_cell_run(): the 13 tests, one CSV row appended and
 *         flushed after each
 *
 * A cell (fs, test, file, record, trial) already in the CSV is skipped
 * (--resume).  SIGINT/SIGTERM stop after the test in flight. */
#include "run.h"
#include "bench_int.h"
#include "engine.h"
#include "fileutil.h"
#include "lab.h"
#include "lock.h"
#include "log.h"
#include "progress.h"
#include "results.h"
#include "size.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE_CACHE_FACTOR 1.5
#define TESTFILE_PREFIX "fslab-testfile."

static volatile sig_atomic_t run_stop;

static void run_on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

void fslab_run_opts_init(struct fslab_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->preset = "seed";
	o->cache = FSLAB_CACHE_MODE_INVALID;
}

static double run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_utc_now(char *buf, size_t len, bool compact)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static uint64_t run_splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* The filesystem order of one trial: a function of (seed, trial) only, so
 * a resumed run visits them in the same order. */
static void run_fs_order(const struct fslab_run_ctx *c, unsigned trial, size_t *order)
{
	uint64_t s = c->sweep.seed * UINT64_C(1000003) + trial;

	for (size_t i = 0; i < c->n_fs; i++)
		order[i] = i;
	if (!c->sweep.shuffle)
		return;
	for (size_t i = c->n_fs; i > 1; i--) {
		size_t j = (size_t)(run_splitmix(&s) % i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

static bool run_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* ---- settings ---- */

static int run_load_sweep_file(struct fslab_run_ctx *c, const char *path)
{
	char err[512], *text = NULL, *full = NULL;
	size_t len;
	struct fslab_spec spec;
	int r;

	r = fslab_read_file(path, &text, &len, 1 << 20);
	if (r < 0) {
		fslab_error("--sweep %s: cannot read: %s", path, strerror(-r));
		return r;
	}
	/* A sweep file may hold only [sweep]; the parser wants a layout, so a
	 * placeholder one is added for parsing (it is not used). */
	if (!strstr(text, "[fs ")) {
		if (asprintf(&full, "%s\n[fs placeholder]\ntype = ext4\nsize = 16M\n", text) < 0) {
			free(text);
			return -ENOMEM;
		}
	}
	r = fslab_spec_parse_string(full ? full : text, path, &spec, err, sizeof(err));
	free(full);
	if (r < 0) {
		fslab_error("%s", err);
		free(text);
		return r;
	}
	fslab_sweep_merge(&c->sweep, &spec.sweep);
	c->spec_text = text;
	snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", path);
	return 0;
}

static int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	const char *preset = o->preset ? o->preset : "seed";
	struct fslab_sweep_spec *s = &c->sweep;
	char a[32], b[32];

	if (fslab_sweep_preset(preset, s) < 0) {
		fslab_error("--sweep '%s': not a preset (seed, quick) and not a file", preset);
		return -EINVAL;
	}
	c->preset = strcmp(preset, "quick") == 0 ? "quick" : "seed";
	if (o->sweep_file && run_load_sweep_file(c, o->sweep_file) < 0)
		return -EINVAL;
	if (o->tests)
		s->tests = o->tests;
	if (o->file_min) {
		s->file_min = o->file_min;
		s->file_max = o->file_max;
	}
	if (o->record_min) {
		s->record_min = o->record_min;
		s->record_max = o->record_max;
	}
	if (o->cache != FSLAB_CACHE_MODE_INVALID)
		s->cache = o->cache;
	if (o->trials)
		s->trials = o->trials;
	if (o->seed_set)
		s->seed = o->seed;
	if (o->keep_small_records_set)
		s->keep_small_records = o->keep_small_records;
	if (!run_is_pow2(s->file_min) || !run_is_pow2(s->file_max) || !run_is_pow2(s->record_min) ||
	    !run_is_pow2(s->record_max)) {
		fslab_error("file and record sizes must be powers of two (the sweep doubles): files %s-%s, records %s-%s",
			    fslab_size_format(s->file_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)),
			    fslab_size_format(s->record_min, a, sizeof(a)),
			    fslab_size_format(s->record_max, b, sizeof(b)));
		return -EINVAL;
	}
	if (s->record_min < 4 * FSLAB_KiB) {
		fslab_error("the smallest record is 4K (got %s)",
			    fslab_size_format(s->record_min, a, sizeof(a)));
		return -EINVAL;
	}
	if (s->record_min > s->file_max) {
		fslab_error("the smallest record (%s) is larger than the largest file (%s): no cell to run",
			    fslab_size_format(s->record_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)));
		return -EINVAL;
	}
	if (s->tests == 0) {
		fslab_error("no test selected");
		return -EINVAL;
	}
	if (s->trials < 1 || s->trials > FSLAB_TRIALS_MAX) {
		fslab_error("--trials must be 1 to %d", FSLAB_TRIALS_MAX);
		return -EINVAL;
	}
	c->until_ci_pct = o->until_ci_pct;
	if (c->until_ci_pct < 0 || c->until_ci_pct > 100) {
		fslab_error("--until-ci %g: give a percentage above 0 and at most 100", c->until_ci_pct);
		return -EINVAL;
	}
	if (c->until_ci_pct > 0) {
		if (s->trials < 2)
			s->trials = 2; /* a confidence interval needs two samples */
		c->max_trials = o->max_trials ? o->max_trials : 10;
		if (c->max_trials < s->trials || c->max_trials > FSLAB_TRIALS_MAX) {
			fslab_error("--max-trials %u: give at least the minimum number of trials (%u) and at most %d",
				    c->max_trials, s->trials, FSLAB_TRIALS_MAX);
			return -EINVAL;
		}
	} else if (o->max_trials) {
		fslab_error("--max-trials goes with --until-ci PCT");
		return -EINVAL;
	} else {
		c->max_trials = s->trials;
	}
	c->no_device_probe = o->no_device_probe;
	c->probe_bytes = o->probe_bytes;
	return 0;
}

/* ---- filesystems ---- */

static int run_add_fs(struct fslab_run_ctx *c, const char *name, const char *path,
		      const struct fslab_state_partition *part)
{
	struct fslab_bench_fs *fs;
	int r;

	if (c->n_fs >= FSLAB_MAX_FS) {
		fslab_error("at most %d filesystems per run", FSLAB_MAX_FS);
		return -E2BIG;
	}
	if (!fslab_fs_name_valid(name)) {
		fslab_error("'%s' is not a valid filesystem name: use 1 to 31 of A-Z a-z 0-9 _ -", name);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->n_fs; i++)
		if (strcmp(c->fs[i].name, name) == 0) {
			fslab_error("the name '%s' is given twice; each filesystem needs its own name (it names the CSV)",
				    name);
			return -EINVAL;
		}
	fs = &c->fs[c->n_fs];
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->name, sizeof(fs->name), "%s", name);
	if (snprintf(fs->path, sizeof(fs->path), "%s", path) >= (int)sizeof(fs->path)) {
		fslab_error("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fs->part = part;
	r = fslab_fsinfo_fill(fs);
	if (r < 0) {
		fslab_error("%s (%s): %s; give an existing directory", name, path, strerror(-r));
		return r;
	}
	if (access(path, W_OK) != 0) {
		fslab_error("%s (%s): not writable: %s", name, path, strerror(errno));
		return -EACCES;
	}
	c->n_fs++;
	return 0;
}

static int run_lab_filesystems(struct fslab_run_ctx *c, const char *const *only, size_t n_only)
{
	char err[512];
	int r;

	c->state = calloc(1, sizeof(*c->state));
	if (!c->state)
		return -ENOMEM;
	r = fslab_state_load(c->state_path, c->state, err, sizeof(err));
	if (r == -ENOENT) {
		fslab_error("no lab at %s: run 'fslab setup' first, or benchmark directories with --dir NAME=PATH",
			    c->state_path);
		return r;
	}
	if (r < 0) {
		fslab_error("%s", err[0] ? err : strerror(-r));
		return r;
	}
	for (size_t i = 0; i < c->state->n_partitions; i++) {
		const struct fslab_state_partition *p = &c->state->partitions[i];
		bool wanted = n_only == 0;

		for (size_t j = 0; j < n_only; j++)
			wanted |= strcmp(only[j], p->name) == 0;
		if (!wanted)
			continue;
		if (p->mount_method == FSLAB_MOUNT_NONE || !p->mountpoint[0]) {
			fslab_error("%s (%s) is not mounted by the lab; run 'fslab status' to see why",
				    p->name, p->device);
			return -ENOENT;
		}
		r = run_add_fs(c, p->name, p->mountpoint, p);
		if (r < 0)
			return r;
	}
	if (c->n_fs == 0) {
		fslab_error("the lab in %s has no mounted filesystem to benchmark", c->state_path);
		return -ENOENT;
	}
	return 0;
}

/* Opens the lab (provision/lab.h): its lock shared (setup and teardown
 * cannot run under us) and its run lease alone (a second run is refused)
 * unless concurrent.  A missing state file creates nothing (no directory,
 * no lock file). */
static int run_lock_lab(struct fslab_run_ctx *c, bool concurrent, struct fslab_lab **lab)
{
	char err[1024];
	int r = fslab_lab_open(c->state_path, concurrent ? FSLAB_LAB_RUN_CONCURRENT : FSLAB_LAB_RUN, 0,
			       "fslab run", lab, err, sizeof(err));

	if (r == -ENOENT)
		fslab_error("no lab at %s: run 'fslab setup' first, or benchmark directories with --dir NAME=PATH",
			    c->state_path);
	else if (r < 0)
		fslab_error("%s", err);
	return r;
}

/* Removes test and probe files that an earlier, killed run left in dir
 * (their pid is gone). */
static void run_remove_stale_testfiles(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, path[PATH_MAX + 300];
		long pid;

		const char *num;

		if (strncmp(e->d_name, TESTFILE_PREFIX, strlen(TESTFILE_PREFIX)) == 0)
			num = e->d_name + strlen(TESTFILE_PREFIX);
		else if (strncmp(e->d_name, PROBEFILE_PREFIX, strlen(PROBEFILE_PREFIX)) == 0)
			num = e->d_name + strlen(PROBEFILE_PREFIX);
		else
			continue;
		pid = strtol(num, &end, 10);
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) == 0)
			fslab_debug(FSLAB_DBG_BENCH, "removed stale test file %s", path);
	}
	closedir(d);
}

/* ---- the sweep ---- */

struct run_fs_state {
	struct fslab_done_set done;
};

struct run_group_ctx {
	struct fslab_run_ctx *c;
	struct fslab_bench_fs *fs;
	struct run_fs_state *fst;
	struct fslab_progress *prog;
	const struct fslab_sweep_cell *cell;
	unsigned trial;
	bool failed;
};

/* Relative cost of one test of a cell, for the ETA: the bytes moved plus
 * a per-call cost (a 4 KiB record costs about as much again in calls). */
static double run_cell_work(const struct fslab_sweep_cell *cell)
{
	return (double)cell->file_bytes + 4096.0 * (double)(cell->file_bytes / cell->record_bytes);
}

static void run_flag(const struct fslab_bench_fs *fs, enum fslab_test t, double tp, char *flag,
		     size_t len)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	double dev = (bt->flags & FSLAB_BT_WRITES) ? fs->probe.write_kib_s : fs->probe.read_kib_s;

	flag[0] = '\0';
	if (dev > 0 && tp > PAGE_CACHE_FACTOR * dev)
		snprintf(flag, len, "page-cache");
	if (fs->fuse)
		snprintf(flag + strlen(flag), len - strlen(flag), "%sfuse", flag[0] ? ";" : "");
}

static void run_write_row(struct run_group_ctx *g, enum fslab_test t,
			  const struct fslab_test_outcome *o)
{
	struct fslab_bench_fs *fs = g->fs;
	struct fslab_result_row row;
	struct fslab_progress_item it;

	memset(&row, 0, sizeof(row));
	snprintf(row.filesystem, sizeof(row.filesystem), "%s", fs->name);
	row.test = t;
	row.file_kib = g->cell->file_bytes / 1024;
	row.record_kib = g->cell->record_bytes / 1024;
	row.trial = g->trial;
	row.cache = g->c->sweep.cache;
	row.elapsed_s = -1;
	switch (o->status) {
	case FSLAB_OUTCOME_OK:
		row.throughput_kib_s = o->throughput_kib_s;
		row.elapsed_s = o->elapsed_s;
		snprintf(row.status, sizeof(row.status), "ok");
		run_flag(fs, t, o->throughput_kib_s, row.flag, sizeof(row.flag));
		fs->cells_ok++;
		break;
	case FSLAB_OUTCOME_SKIPPED:
		snprintf(row.status, sizeof(row.status), "skipped: %s", o->reason);
		fs->cells_skipped++;
		break;
	default:
		/* A test that failed because its filesystem went away counts as
		 * vanished, so --resume runs it again. */
		if (!fs->vanished && fslab_fsinfo_check(fs) < 0) {
			fs->vanished = true;
			fslab_progress_clear(g->prog);
			fslab_error("%s: %s is no longer the filesystem this run started on (unmounted?); its remaining cells are recorded as failed, and --resume runs them once it is back",
				    fs->name, fs->path);
		}
		if (fs->vanished && strncmp(o->reason, FSLAB_VANISHED_STATUS + 8,
					    strlen(FSLAB_VANISHED_STATUS + 8)) != 0)
			snprintf(row.status, sizeof(row.status), "%s (during the test: %.180s)",
				 FSLAB_VANISHED_STATUS, o->reason);
		else
			snprintf(row.status, sizeof(row.status), "failed: %s",
				 o->reason[0] ? o->reason : "unknown error");
		fs->cells_failed++;
		g->failed = true;
		break;
	}
	if (o->status != FSLAB_OUTCOME_OK && fs->fuse)
		snprintf(row.flag, sizeof(row.flag), "fuse");
	if (fslab_results_write_row(fs->csv, &row) < 0 || fflush(fs->csv) != 0) {
		fslab_error("cannot append to %s/%s.csv: %s", g->c->out_dir, fs->name, strerror(errno));
		g->failed = true;
		run_stop = 1;
	}
	fslab_done_add(&g->fst->done, t, row.file_kib, row.record_kib, row.trial,
		       o->status == FSLAB_OUTCOME_OK, row.throughput_kib_s);
	if (o->status == FSLAB_OUTCOME_FAILED)
		fslab_debug(FSLAB_DBG_BENCH, "%s %s %lluK/%lluK trial %u: %s", fs->name,
			    fslab_test_to_string(t), (unsigned long long)row.file_kib,
			    (unsigned long long)row.record_kib, g->trial, row.status);
	fslab_progress_add_work(g->prog, run_cell_work(g->cell));
	it = (struct fslab_progress_item){
		.filesystem = fs->name,
		.test = fslab_test_to_string(t),
		.file_bytes = g->cell->file_bytes,
		.record_bytes = g->cell->record_bytes,
		.throughput_kib_s = o->status == FSLAB_OUTCOME_OK ? o->throughput_kib_s : -1,
	};
	fslab_progress_step(g->prog, 1, &it);
}

static void run_on_test(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	run_write_row(ctx, t, o);
}

/* --until-ci: has every test of this file x record cell converged? */
static bool run_group_converged(const struct fslab_run_ctx *c, const struct fslab_done_set *d,
				const struct fslab_sweep_cell *cell)
{
	double samples[FSLAB_TRIALS_MAX];

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(c->sweep.tests & (1u << t)))
			continue;
		size_t n = fslab_done_samples(d, t, cell->file_bytes / 1024, cell->record_bytes / 1024,
					      samples, FSLAB_TRIALS_MAX);
		if (n == 0)
			continue; /* never ok (failed or skipped): repeating will not help */
		if (!fslab_ci_within(samples, n, c->until_ci_pct))
			return false;
	}
	return true;
}

/* Tests of one file x record cell still to run in a trial. */
static unsigned run_group_todo(const struct fslab_run_ctx *c, const struct fslab_done_set *d,
			       const struct fslab_sweep_cell *cell, unsigned trial)
{
	unsigned mask = 0;

	if (c->until_ci_pct > 0 && trial > c->sweep.trials && run_group_converged(c, d, cell))
		return 0;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if ((c->sweep.tests & (1u << t)) &&
		    !fslab_done_has(d, t, cell->file_bytes / 1024, cell->record_bytes / 1024, trial))
			mask |= 1u << t;
	return mask;
}

static double run_work_todo(const struct fslab_run_ctx *c, struct run_fs_state *fst,
			    const struct fslab_plan *plan, unsigned trial)
{
	double w = 0;

	for (size_t f = 0; f < c->n_fs; f++)
		for (size_t i = 0; i < plan->n; i++)
			w += run_cell_work(&plan->cells[i]) *
			     __builtin_popcount(run_group_todo(c, &fst[f].done, &plan->cells[i], trial));
	return w;
}

static uint64_t run_count_todo(const struct fslab_run_ctx *c, struct run_fs_state *fst,
			       const struct fslab_plan *plan, unsigned trial)
{
	uint64_t n = 0;

	for (size_t f = 0; f < c->n_fs; f++)
		for (size_t i = 0; i < plan->n; i++)
			n += (uint64_t)__builtin_popcount(run_group_todo(c, &fst[f].done, &plan->cells[i], trial));
	return n;
}

static int run_open_csvs(struct fslab_run_ctx *c, struct run_fs_state *fst)
{
	char path[PATH_MAX + 64], err[512];
	struct stat st;
	int r;

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];

		snprintf(path, sizeof(path), "%s/%s.csv", c->out_dir, fs->name);
		r = fslab_resume_load(path, &fst[i].done, err, sizeof(err));
		if (r < 0) {
			fslab_error("%s", err);
			return r;
		}
		for (size_t k = 0; k < fst[i].done.n; k++)
			if (fst[i].done.ok[k])
				fs->cells_ok++;
		fs->csv = fopen(path, "ae");
		if (!fs->csv) {
			return fslab_error_errno(errno, "cannot open %s", path);
		}
		if (fstat(fileno(fs->csv), &st) == 0 && st.st_size == 0) {
			if (fslab_results_write_header(fs->csv) < 0 || fflush(fs->csv) != 0)
				return fslab_error_errno(errno, "cannot write %s", path);
		}
	}
	return 0;
}

static int run_sweep(struct fslab_run_ctx *c, const struct fslab_plan *plan,
		     struct run_fs_state *fst, struct fslab_progress *prog, bool *failed)
{
	struct fslab_bench_buffers buf = { 0 };
	uint64_t cur_record = 0;
	size_t order[FSLAB_MAX_FS];
	double session_start = run_now(), wall_before = c->wall_s;
	uint64_t done = 0;
	int ret = 0;

	for (size_t f = 0; f < c->n_fs; f++)
		done += fst[f].done.n;

	for (unsigned trial = 1; trial <= c->max_trials && !run_stop; trial++) {
		uint64_t todo = run_count_todo(c, fst, plan, trial);
		uint64_t later = 0;

		if (todo == 0 && trial > c->sweep.trials)
			break; /* --until-ci: everything converged */
		double work = run_work_todo(c, fst, plan, trial);
		for (unsigned t = trial + 1; t <= c->sweep.trials; t++) {
			later += run_count_todo(c, fst, plan, t);
			work += run_work_todo(c, fst, plan, t);
		}
		fslab_progress_set_total(prog, done + todo + later, done);
		fslab_progress_set_work(prog, work, 0);

		run_fs_order(c, trial, order);
		for (size_t oi = 0; oi < c->n_fs && !run_stop; oi++) {
			struct fslab_bench_fs *fs = &c->fs[order[oi]];
			struct run_fs_state *fs_st = &fst[order[oi]];
			uint64_t before_ok = fs->cells_ok, before_failed = fs->cells_failed;
			double fs_start = run_now();
			char testfile[PATH_MAX + 64];
			bool ran = false;

			snprintf(testfile, sizeof(testfile), "%s/" TESTFILE_PREFIX "%ld", fs->path,
				 (long)getpid());
			for (size_t i = 0; i < plan->n && !run_stop; i++) {
				const struct fslab_sweep_cell *cell = &plan->cells[i];
				unsigned mask = run_group_todo(c, &fs_st->done, cell, trial);
				struct run_group_ctx g = {
					.c = c, .fs = fs, .fst = fs_st, .prog = prog, .cell = cell,
					.trial = trial,
				};
				struct fslab_test_outcome out[FSLAB_TEST_MAX];
				struct fslab_cell_times times;
				double g0 = run_now();

				if (!mask)
					continue;
				ran = true;
				if (!fs->vanished && fslab_fsinfo_check(fs) < 0) {
					fs->vanished = true;
					fslab_progress_clear(prog);
					fslab_error("%s: %s is no longer the filesystem this run started on (unmounted?); its remaining cells are recorded as failed, and --resume runs them once it is back",
						    fs->name, fs->path);
				}
				if (fs->vanished && trial > c->sweep.trials)
					continue; /* --until-ci extra trials: nothing to sample */
				if (fs->vanished) {
					struct fslab_test_outcome o = { .status = FSLAB_OUTCOME_FAILED };
					snprintf(o.reason, sizeof(o.reason), "%s",
						 FSLAB_VANISHED_STATUS + strlen("failed: "));
					for (int t = 0; t < FSLAB_TEST_MAX; t++)
						if (mask & (1u << t))
							run_write_row(&g, t, &o);
					*failed = true;
					continue;
				}
				if (fs->fuse && c->sweep.cache == FSLAB_CACHE_DIRECT) {
					/* O_DIRECT on a FUSE mount bypasses only the FUSE
					 * file's cache: the daemon (fusefat) still reads and
					 * writes the device through the page cache, so the
					 * figures would not be the device's.  fusefat also
					 * fails O_DIRECT reads inside a file's last cluster
					 * with EPERM.  Say so rather than measure it. */
					struct fslab_test_outcome o = { .status = FSLAB_OUTCOME_SKIPPED };

					if (trial > c->sweep.trials)
						continue;
					snprintf(o.reason, sizeof(o.reason),
						 "direct mode on a FUSE mount does not reach the device (the FUSE daemon reads it through the page cache)");
					for (int t = 0; t < FSLAB_TEST_MAX; t++)
						if (mask & (1u << t))
							run_write_row(&g, t, &o);
					continue;
				}
				if (cur_record != cell->record_bytes) {
					fslab_bench_buffers_free(&buf);
					if (fslab_bench_buffers_alloc(&buf, cell->record_bytes) < 0) {
						fslab_error("cannot allocate %llu bytes of record buffers",
							    (unsigned long long)cell->record_bytes * 2);
						ret = -ENOMEM;
						goto out;
					}
					cur_record = cell->record_bytes;
				}
				struct fslab_cell spec = {
					.path = testfile,
					.file_bytes = cell->file_bytes,
					.record_bytes = cell->record_bytes,
					.tests = mask,
					.cache = c->sweep.cache,
					.ops = &fslab_io_posix,
					.drop_cache = fslab_cache_drop,
					.drop_ctx = &fs->cache,
					.on_test = run_on_test,
					.on_test_ctx = &g,
					.stop = &run_stop,
				};
				fslab_cell_run(&spec, &buf, out, &times);
				fs->timed_s += times.timed_s;
				fs->untimed_io_s += times.untimed_io_s;
				fs->cache_drop_s += times.cache_drop_s;
				fs->wall_s += run_now() - g0;
				if (g.failed)
					*failed = true;
			}
			if (!ran)
				continue;
			c->wall_s = wall_before + (run_now() - session_start);
			fslab_manifest_write(c);
			if (!fslab_progress_is_tty(prog))
				fslab_progress_note(prog, "%s%strial %u/%u  %s: %llu cells ok, %llu failed in %.1f s",
						    fslab_log_prefix(), ": ", trial, c->max_trials, fs->name,
						    (unsigned long long)(fs->cells_ok - before_ok),
						    (unsigned long long)(fs->cells_failed - before_failed),
						    run_now() - fs_start);
		}
		done = 0;
		for (size_t f = 0; f < c->n_fs; f++)
			done += fst[f].done.n;
	}
out:
	fslab_bench_buffers_free(&buf);
	c->wall_s = wall_before + (run_now() - session_start);
	return ret;
}

/* ---- setup of a run ---- */

static int run_prepare_out(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	char ts[32], mf[PATH_MAX + 32];
	int r;

	if (o->resume_dir) {
		snprintf(c->out_dir, sizeof(c->out_dir), "%s", o->resume_dir);
		return 0;
	}
	if (o->out_dir) {
		snprintf(c->out_dir, sizeof(c->out_dir), "%s", o->out_dir);
	} else {
		run_utc_now(ts, sizeof(ts), true);
		snprintf(c->out_dir, sizeof(c->out_dir), "results/%s", ts);
	}
	snprintf(mf, sizeof(mf), "%s/manifest.json", c->out_dir);
	if (access(mf, F_OK) == 0) {
		fslab_error("%s already holds a run (manifest.json); continue it with --resume %s, or choose another --out",
			    c->out_dir, c->out_dir);
		return -EEXIST;
	}
	for (size_t i = 0; i < c->n_fs; i++) {
		char csv[PATH_MAX + 64];
		snprintf(csv, sizeof(csv), "%s/%s.csv", c->out_dir, c->fs[i].name);
		if (access(csv, F_OK) == 0) {
			fslab_error("%s already exists; choose another --out (results of two runs are never mixed)",
				    csv);
			return -EEXIST;
		}
	}
	r = fslab_mkdir_p(c->out_dir, 0755);
	if (r < 0)
		return fslab_error_errno(r, "cannot create the results directory %s", c->out_dir);
	return 0;
}

static int run_check_resume_opts(const struct fslab_run_opts *o)
{
	if (o->tests || o->file_min || o->record_min || o->cache != FSLAB_CACHE_MODE_INVALID ||
	    o->trials || o->seed_set || o->keep_small_records_set || o->sweep_file || o->n_dirs ||
	    o->until_ci_pct > 0 || o->max_trials || o->out_dir ||
	    (o->preset && strcmp(o->preset, "seed") != 0)) {
		fslab_error("--resume continues with the settings recorded in that run's manifest; drop the sweep, --dir, --out and --until-ci options");
		return -EINVAL;
	}
	return 0;
}

static void run_ctx_free(struct fslab_run_ctx *c)
{
	for (size_t i = 0; i < c->n_fs; i++)
		if (c->fs[i].csv)
			fclose(c->fs[i].csv);
	free(c->spec_text);
	free(c->state);
	for (size_t i = 0; i < c->n_first_command; i++)
		free(c->first_command[i]);
	free(c->first_command);
}

int fslab_run_sweep_bytes(const char *preset, uint64_t file_max, uint64_t *bytes)
{
	struct fslab_sweep_spec sweep;
	struct fslab_plan plan;
	int r;

	r = fslab_sweep_preset(preset, &sweep);
	if (r < 0)
		return r;
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

int fslab_run(const struct fslab_run_opts *o)
{
	struct fslab_run_ctx *c = calloc(1, sizeof(*c));
	struct run_fs_state *fst = NULL;
	struct fslab_progress *prog = NULL;
	struct fslab_plan plan = { 0 };
	struct sigaction sa, old_int, old_term;
	bool failed = false, handlers = false;
	struct fslab_lab *lab = NULL;
	int ret = FSLAB_EXIT_FAILURE, r;
	char err[512];

	if (!c)
		return FSLAB_EXIT_FAILURE;
	run_stop = 0;
	c->argc = o->argc;
	c->argv = o->argv;
	c->sessions = 1;
	c->preset = "seed";

	/* Settings and the list of filesystems. */
	if (o->resume_dir) {
		if (run_check_resume_opts(o) < 0) {
			ret = FSLAB_EXIT_USAGE;
			goto out;
		}
		r = fslab_manifest_read(o->resume_dir, c, err, sizeof(err));
		if (r < 0) {
			fslab_error("%s", err);
			ret = r == -EINVAL ? FSLAB_EXIT_USAGE : FSLAB_EXIT_FAILURE;
			goto out;
		}
		c->sessions++;
		/* the filesystems come back by name and path */
		struct fslab_bench_fs saved[FSLAB_MAX_FS];
		size_t n_saved = c->n_fs;
		memcpy(saved, c->fs, sizeof(saved));
		c->n_fs = 0;
		if (c->state_path[0]) {
			const char *names[FSLAB_MAX_FS];
			for (size_t i = 0; i < n_saved; i++)
				names[i] = saved[i].name;
			if (run_lock_lab(c, o->allow_concurrent, &lab) < 0)
				goto out;
			if (run_lab_filesystems(c, names, n_saved) < 0)
				goto out;
		} else {
			for (size_t i = 0; i < n_saved; i++)
				if (run_add_fs(c, saved[i].name, saved[i].path, NULL) < 0)
					goto out;
		}
		for (size_t i = 0; i < c->n_fs; i++)
			for (size_t j = 0; j < n_saved; j++)
				if (strcmp(c->fs[i].name, saved[j].name) == 0) {
					c->fs[i].probe = saved[j].probe;
					c->fs[i].timed_s = saved[j].timed_s;
					c->fs[i].untimed_io_s = saved[j].untimed_io_s;
					c->fs[i].cache_drop_s = saved[j].cache_drop_s;
					c->fs[i].wall_s = saved[j].wall_s;
				}
	} else {
		r = run_settings(c, o);
		if (r < 0) {
			ret = FSLAB_EXIT_USAGE;
			goto out;
		}
		run_utc_now(c->started_at, sizeof(c->started_at), false);
		if (o->n_dirs) {
			if (o->state_path) {
				fslab_error("give either --state or --dir, not both");
				ret = FSLAB_EXIT_USAGE;
				goto out;
			}
			for (size_t i = 0; i < o->n_dirs; i++)
				if (run_add_fs(c, o->dirs[i].name, o->dirs[i].path, NULL) < 0) {
					ret = FSLAB_EXIT_USAGE;
					goto out;
				}
		} else {
			snprintf(c->state_path, sizeof(c->state_path), "%s",
				 o->state_path ? o->state_path : fslab_state_default_path());
			if (run_lock_lab(c, o->allow_concurrent, &lab) < 0)
				goto out;
			if (run_lab_filesystems(c, NULL, 0) < 0)
				goto out;
		}
	}
	r = fslab_plan_build(&c->sweep, &plan);
	if (r < 0) {
		fslab_error(r == -ENOMEM ? "out of memory" : "the sweep has no cell to run");
		goto out;
	}
	if (run_prepare_out(c, o) < 0)
		goto out;
	if (o->out_dir_used && o->out_dir_used_len)
		snprintf(o->out_dir_used, o->out_dir_used_len, "%s", c->out_dir);

	prog = fslab_progress_new(stderr, o->stage, o->quiet);
	if (!prog)
		goto out;
	if (o->pipeline)
		fslab_progress_set_pipeline(prog, o->pipeline->elapsed_before_s,
					    o->pipeline->remaining_after_s);

	/* From here SIGINT/SIGTERM only ask the run to stop: the probe and
	 * the test in flight finish and clean up first. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	handlers = true;

	/* What each filesystem is and what its device can do. */
	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];

		run_remove_stale_testfiles(fs->path);
		if (fs->part)
			fslab_fsinfo_mkfs_version(fs->type, fs->mkfs_tool_version,
						  sizeof(fs->mkfs_tool_version));
		fslab_cache_ctl_init(&fs->cache, c->state, fs->part);
		/* The cold remount is the lab's to do, under its own lock. */
		fs->cache.remount = lab ? fslab_lab_remount : NULL;
		fs->cache.remount_ctx = lab;
		fs->cache.dev = &fs->dev;
		if (o->resume_dir)
			continue;
		if (c->no_device_probe || run_stop) {
			snprintf(fs->probe.method, sizeof(fs->probe.method), "skipped");
			continue;
		}
		fslab_progress_note(prog, "%s: probing what the device under %s can do (%s sequential O_DIRECT write and read)",
				    fslab_log_prefix(), fs->path,
				    fslab_size_human(c->probe_bytes ? c->probe_bytes : FSLAB_PROBE_DEFAULT_BYTES,
						     err, sizeof(err)));
		if (fslab_device_probe(fs->path, c->probe_bytes, &fs->probe) < 0)
			fslab_warn("%s: device probe failed (%s); its cells get no page-cache flag",
				   fs->name, fs->probe.note);
		else if (strcmp(fs->probe.method, "o_direct") != 0)
			fslab_warn("%s: %s", fs->name, fs->probe.note);
		if (fs->fuse)
			fslab_warn("%s is mounted through FUSE (%s): its figures are flagged 'fuse' and are not comparable to kernel drivers",
				   fs->name, fs->type);
	}

	/* The manifest first: a run killed before it has no CSV either, and
	 * once it exists --resume knows everything. */
	if (fslab_manifest_write(c) < 0) {
		fslab_error("cannot write %s/manifest.json", c->out_dir);
		goto out;
	}
	fst = calloc(c->n_fs, sizeof(*fst));
	if (!fst)
		goto out;
	if (run_open_csvs(c, fst) < 0)
		goto out;

	fslab_progress_note(prog, "%s: %zu filesystem(s), %zu file x record cells x %d tests, %s cache, %u trial(s)%s; results in %s",
			    fslab_log_prefix(), c->n_fs, plan.n, __builtin_popcount(c->sweep.tests),
			    fslab_cache_mode_to_string(c->sweep.cache), c->sweep.trials,
			    c->until_ci_pct > 0 ? " (more until the CI is narrow enough)" : "",
			    c->out_dir);
	r = run_sweep(c, &plan, fst, prog, &failed);
	fslab_progress_clear(prog);
	if (run_stop) {
		c->interrupted = true;
		fslab_error("interrupted: the finished cells are in %s; continue with: fslab run --resume %s",
			    c->out_dir, c->out_dir);
		failed = true;
	} else {
		run_utc_now(c->finished_at, sizeof(c->finished_at), false);
	}
	if (fslab_manifest_write(c) < 0) {
		fslab_error("cannot write %s/manifest.json", c->out_dir);
		failed = true;
	}
	uint64_t n_failed = 0;
	for (size_t i = 0; i < c->n_fs; i++)
		n_failed += c->fs[i].cells_failed;
	if (n_failed)
		fslab_error("%llu cell(s) failed; their rows in %s say why",
			    (unsigned long long)n_failed, c->out_dir);
	fslab_progress_note(prog, "%s: done: %s", fslab_log_prefix(), c->out_dir);
	ret = (r < 0 || failed) ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
out:
	if (handlers) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	if (fst) {
		for (size_t i = 0; i < c->n_fs; i++)
			fslab_done_free(&fst[i].done);
		free(fst);
	}
	fslab_progress_free(prog);
	fslab_plan_free(&plan);
	run_ctx_free(c);
	fslab_lab_close(lab);
	free(c);
	return ret;
}
