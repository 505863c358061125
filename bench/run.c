/* fslab_run(): settings, filesystems, device probe, then the sweep:
 *
 *   for trial in 1..T                       (outside the filesystem loop)
 *     for fs in shuffle(filesystems, seed, trial)
 *       for (file, record) in plan          (IOzone's order)
 *         fslab_cell_run(): the 13 tests, one CSV row appended and
 *         flushed after each
 *
 * A cell (fs, test, file, record, trial) already in the CSV is skipped
 * (--resume).  SIGINT/SIGTERM stop after the test in flight; a test timed
 * across a SIGSTOP is run again (SIGCONT says the process was stopped).
 *
 * Trust: the test and probe files live in a private directory fslab makes
 * in each directory under test and removes after; the results directory is
 * held open and flock'ed for the whole run, its files are created O_EXCL
 * relative to it, and it carries a run id (.fslab-run) that --resume
 * checks against the manifest before it changes anything. */
#include "run.h"
#include "bench_int.h"
#include "plan.h"
#include "engine.h"
#include "fileutil.h"
#include "lab.h"
#include "lock.h"
#include "log.h"
#include "progress.h"
#include "results.h"
#include "size.h"
#include "sweep_stats.h"
#include "termtext.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

/* The flag of a row whose test was run again because the process was
 * stopped (SIGSTOP) while the first pass was timed. */
#define REDONE_FLAG "redone-stopped"

static volatile sig_atomic_t run_stop, run_continued;

static void run_on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

/* A stop is invisible to the stopped process; the SIGCONT that ends it is
 * not: the test in flight was timed across the stop and is run again. */
static void run_on_continue(int sig)
{
	(void)sig;
	run_continued = 1;
}

/* A user's path or name as it may reach a terminal: control bytes shown
 * as \xNN.  Four rotating buffers, so one message can hold several. */
static const char *run_esc(const char *s)
{
	static char bufs[4][FSLAB_ESCAPE_SIZE(PATH_MAX)];
	static unsigned next;
	char *b = bufs[next++ % 4];

	return fslab_escape_ctrl(s, b, sizeof(bufs[0]));
}

void fslab_run_opts_init(struct fslab_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->preset = NULL; /* FSLAB_PRESET_DEFAULT */
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

/* The sweep: the preset, then a sweep file, then the options, each over
 * the one before. */
static int run_settings_sweep(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	const char *preset = o->preset ? o->preset : FSLAB_PRESET_DEFAULT;
	struct fslab_sweep_spec *s = &c->sweep;

	if (fslab_sweep_preset(preset, s) < 0) {
		fslab_error("--sweep '%s': not a preset (lab, quick, seed) and not a file", preset);
		return -EINVAL;
	}
	c->preset = strcmp(preset, "quick") == 0 ? "quick"
		    : strcmp(preset, FSLAB_PRESET_DEFAULT) == 0 ? FSLAB_PRESET_DEFAULT : "seed";
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
	return 0;
}

/* The grid must have cells: sizes that double from a power of two, a
 * record no smaller than 4K and no larger than the largest file. */
static int run_check_grid(const struct fslab_sweep_spec *s)
{
	char a[32], b[32], x[32], y[32];

	if (!run_is_pow2(s->file_min) || !run_is_pow2(s->file_max) || !run_is_pow2(s->record_min) ||
	    !run_is_pow2(s->record_max)) {
		fslab_error("file and record sizes must be powers of two (the sweep doubles): files %s-%s, records %s-%s",
			    fslab_size_format(s->file_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)),
			    fslab_size_format(s->record_min, x, sizeof(x)),
			    fslab_size_format(s->record_max, y, sizeof(y)));
		return -EINVAL;
	}
	if (s->record_min < 4 * FSLAB_KiB) {
		fslab_error("the smallest record is 4K (got %s)", fslab_size_format(s->record_min, a, sizeof(a)));
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
	return 0;
}

/* How many trials: fixed, or --until-ci's minimum..maximum. */
static int run_settings_trials(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	struct fslab_sweep_spec *s = &c->sweep;

	c->until_ci_pct = o->until_ci_pct;
	/* The default preset repeats each cell until its interval is narrow,
	 * unless the cache mode or the trials were chosen (flags or the sweep
	 * file): `--cache warm --trials 1` is the old single warm pass. */
	if (strcmp(c->preset, FSLAB_PRESET_DEFAULT) == 0 && !o->trials && c->until_ci_pct <= 0 &&
	    !o->max_trials && o->cache == FSLAB_CACHE_MODE_INVALID &&
	    !(s->set & (FSLAB_SWEEP_SET_TRIALS | FSLAB_SWEEP_SET_CACHE))) {
		c->until_ci_pct = FSLAB_DEFAULT_UNTIL_CI_PCT;
		c->max_trials = FSLAB_DEFAULT_MAX_TRIALS;
	}
	if (c->until_ci_pct < 0 || c->until_ci_pct > 100) {
		fslab_error("--until-ci %g: give a percentage above 0 and at most 100", c->until_ci_pct);
		return -EINVAL;
	}
	if (c->until_ci_pct <= 0) {
		if (o->max_trials) {
			fslab_error("--max-trials goes with --until-ci PCT");
			return -EINVAL;
		}
		c->max_trials = s->trials;
		return 0;
	}
	if (s->trials < 2)
		s->trials = 2; /* a confidence interval needs two samples */
	c->max_trials = o->max_trials ? o->max_trials : FSLAB_DEFAULT_MAX_TRIALS;
	if (c->max_trials < s->trials || c->max_trials > FSLAB_TRIALS_MAX) {
		fslab_error("--max-trials %u: give at least the minimum number of trials (%u) and at most %d",
			    c->max_trials, s->trials, FSLAB_TRIALS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* --label: a name for the host in reports. */
static int run_settings_label(struct fslab_run_ctx *c, const char *label)
{
	size_t n = strlen(label);

	if (n == 0 || n >= sizeof(c->label) ||
	    strspn(label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n ||
	    label[0] == '-') {
		fslab_error("--label '%s': give 1 to %zu letters, digits, '.', '_' or '-', not starting with '-' (e.g. the host's name)",
			    label, sizeof(c->label) - 1);
		return -EINVAL;
	}
	snprintf(c->label, sizeof(c->label), "%s", label);
	return 0;
}

static int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	if (run_settings_sweep(c, o) < 0 || run_check_grid(&c->sweep) < 0 || run_settings_trials(c, o) < 0)
		return -EINVAL;
	c->io_mode = o->io_mode;
	c->sync_policy = o->sync_policy;
	c->latency = o->latency;
	if (o->label && run_settings_label(c, o->label) < 0)
		return -EINVAL;
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
		fslab_error("'%s' is not a valid filesystem name: use 1 to 31 of A-Z a-z 0-9 _ -", run_esc(name));
		return -EINVAL;
	}
	for (size_t i = 0; i < c->n_fs; i++)
		if (strcmp(c->fs[i].name, name) == 0) {
			fslab_error("the name '%s' is given twice; each filesystem needs its own name (it names the CSV)",
				    run_esc(name));
			return -EINVAL;
		}
	fs = &c->fs[c->n_fs];
	memset(fs, 0, sizeof(*fs));
	fs->dir_fd = fs->work_fd = -1;
	snprintf(fs->name, sizeof(fs->name), "%s", name);
	if (snprintf(fs->path, sizeof(fs->path), "%s", path) >= (int)sizeof(fs->path)) {
		fslab_error("%s: path too long", run_esc(path));
		return -ENAMETOOLONG;
	}
	fs->part = part;
	r = fslab_fsinfo_fill(fs);
	if (r < 0) {
		fslab_error("%s (%s): %s; give an existing directory", name, run_esc(path), strerror(-r));
		return r;
	}
	if (access(path, W_OK) != 0) {
		fslab_error("%s (%s): not writable: %s", name, run_esc(path), strerror(errno));
		return -EACCES;
	}
	c->n_fs++;
	return 0;
}

/* The lab's filesystems, from the state the open lab loaded (by identity,
 * under its lock), not from the path again. */
static int run_lab_filesystems(struct fslab_run_ctx *c, struct fslab_lab *lab,
			       const char *const *only, size_t n_only)
{
	char err[512];
	int r;

	c->state = calloc(1, sizeof(*c->state));
	if (!c->state)
		return -ENOMEM;
	if (lab) {
		*c->state = *fslab_lab_state(lab);
		r = 0;
	} else {
		r = fslab_state_load(c->state_path, c->state, err, sizeof(err));
	}
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
	int r;

	if (*lab)
		return 0; /* the caller's, held since before the run */
	r = fslab_lab_open(c->state_path, concurrent ? FSLAB_LAB_RUN_CONCURRENT : FSLAB_LAB_RUN, 0,
			   "fslab run", lab, err, sizeof(err));
	if (r == -ENOENT)
		fslab_error("no lab at %s: run 'fslab setup' first, or benchmark directories with --dir NAME=PATH",
			    c->state_path);
	else if (r < 0)
		fslab_error("%s", err);
	return r;
}

/* ---- the private directory in each directory under test ---- */

/* Removes private directories that earlier, killed runs left in the
 * directory under test.  Only a directory that is provably such a leftover
 * goes: fslab's name, a directory (not a symlink) on the same filesystem,
 * owned by the user fslab runs as (root, as a rule) with mode 0700 (so no
 * other user made it or could have put anything in it), and not flock'ed
 * (a live run holds its own).  Anything else is left alone. */
static void run_remove_stale_workdirs(struct fslab_bench_fs *fs)
{
	struct stat dst;
	DIR *d;
	struct dirent *e;
	int dup_fd;

	if (fstat(fs->dir_fd, &dst) < 0)
		return;
	dup_fd = fcntl(fs->dir_fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return;
	}
	while ((e = readdir(d))) {
		struct fslab_file_id id;
		struct stat st;
		int fd, r;

		if (strncmp(e->d_name, FSLAB_WORKDIR_PREFIX, strlen(FSLAB_WORKDIR_PREFIX)) != 0)
			continue;
		fd = openat(fs->dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || st.st_dev != dst.st_dev || st.st_uid != geteuid() ||
		    (st.st_mode & 07777) != 0700 || flock(fd, LOCK_EX | LOCK_NB) < 0 ||
		    fslab_file_id_of_fd(fd, &id) < 0) {
			fslab_debug(FSLAB_DBG_BENCH, "%s/%s: not a leftover of a killed run (owner, mode or a live run's lock): left alone",
				    run_esc(fs->path), run_esc(e->d_name));
			close(fd);
			continue;
		}
		r = fslab_remove_tree_at(fs->dir_fd, e->d_name, &id);
		if (r < 0)
			fslab_warn("%s/%s: cannot remove what a killed run left: %s", run_esc(fs->path),
				   run_esc(e->d_name), strerror(-r));
		else
			fslab_debug(FSLAB_DBG_BENCH, "removed %s/%s, left by a killed run",
				    run_esc(fs->path), e->d_name);
		close(fd);
	}
	closedir(d);
}

/* Opens the directory under test and makes the run's private directory in
 * it (after removing leftovers of killed runs). */
static int run_workdir_create(struct fslab_bench_fs *fs)
{
	struct stat st;
	int r;

	fs->dir_fd = open(fs->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->dir_fd < 0)
		return fslab_error_errno(errno, "%s: cannot open %s", fs->name, run_esc(fs->path));
	if (fstat(fs->dir_fd, &st) < 0 || st.st_dev != fs->dev) {
		fslab_error("%s: %s changed while the run started (another filesystem is there now)",
			    fs->name, run_esc(fs->path));
		return -ESTALE;
	}
	run_remove_stale_workdirs(fs);
	r = fslab_mkdtemp_at(fs->dir_fd, FSLAB_WORKDIR_PREFIX, fs->work_name, sizeof(fs->work_name));
	if (r < 0)
		return fslab_error_errno(r, "%s: cannot make a private directory for the test files in %s",
					 fs->name, run_esc(fs->path));
	fs->work_fd = r;
	r = fslab_file_id_of_fd(fs->work_fd, &fs->work_id);
	if (r < 0)
		return fslab_error_errno(r, "%s: %s/%s", fs->name, run_esc(fs->path), fs->work_name);
	/* The lock only tells another run's leftover sweep that this
	 * directory is alive; where the filesystem has no flock, that sweep
	 * cannot take it either and leaves it alone. */
	if (flock(fs->work_fd, LOCK_EX | LOCK_NB) < 0)
		fslab_debug(FSLAB_DBG_BENCH, "%s: no flock on %s/%s: %s", fs->name, run_esc(fs->path),
			    fs->work_name, strerror(errno));
	return 0;
}

/* Removes the private directory: only while it still is the one this run
 * made (its recorded identity), never through a symlink. */
static void run_workdir_remove(struct fslab_bench_fs *fs)
{
	if (fs->dir_fd >= 0 && fs->work_name[0] && fs->work_fd >= 0) {
		int r = fslab_remove_tree_at(fs->dir_fd, fs->work_name, &fs->work_id);
		if (r < 0 && r != -ENOENT && !fs->vanished)
			fslab_warn("%s: cannot remove the run's directory %s/%s: %s", fs->name,
				   run_esc(fs->path), fs->work_name, strerror(-r));
	}
	if (fs->work_fd >= 0)
		close(fs->work_fd);
	if (fs->dir_fd >= 0)
		close(fs->dir_fd);
	fs->work_fd = fs->dir_fd = -1;
}

/* Cold mode's remount: the unmount needs the run's directories closed ... */
static void run_workdir_release(void *ctx)
{
	struct fslab_bench_fs *fs = ctx;

	if (fs->work_fd >= 0)
		close(fs->work_fd);
	if (fs->dir_fd >= 0)
		close(fs->dir_fd);
	fs->work_fd = fs->dir_fd = -1;
}

/* ... and after the mount they are opened again: the private directory
 * must be the same directory (inode; a FUSE mount renumbers, so there only
 * owner and mode), else the run stops using it. */
static int run_workdir_reopen(void *ctx, int *dir_fd, char *why, size_t whylen)
{
	struct fslab_bench_fs *fs = ctx;
	struct stat st;
	int r;

	fs->dir_fd = open(fs->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->dir_fd < 0) {
		r = -errno;
		goto fail;
	}
	fs->work_fd = openat(fs->dir_fd, fs->work_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fs->work_fd < 0) {
		r = -errno;
		goto fail;
	}
	if (fstat(fs->work_fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (st.st_uid != geteuid() || (!fs->fuse && st.st_ino != fs->work_id.ino)) {
		r = -ESTALE;
		goto fail;
	}
	fs->work_id.dev = st.st_dev;
	fs->work_id.ino = st.st_ino;
	flock(fs->work_fd, LOCK_EX | LOCK_NB);
	*dir_fd = fs->work_fd;
	return 0;
fail:
	if (why)
		snprintf(why, whylen, "cold mode: after the remount, the run's directory %s is not the one it made: %s",
			 fs->work_name, strerror(-r));
	run_workdir_release(fs);
	*dir_fd = -1;
	return r;
}

/* ---- the sweep ---- */

struct run_fs_state {
	struct fslab_done_set done;
	struct fslab_resume_csv csv; /* --resume: the checked CSV */
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

static void run_flag(const struct fslab_bench_fs *fs, enum fslab_cache_mode cache,
		     enum fslab_test t, double tp, char *flag, size_t len)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	double dev = (bt->flags & FSLAB_BT_WRITES) ? fs->probe.write_kib_s : fs->probe.read_kib_s;

	flag[0] = '\0';
	/* dev: the fastest of the probes, an upper bound on the device */
	if (dev > 0 && tp > FSLAB_PAGE_CACHE_FACTOR * dev)
		snprintf(flag, len, "page-cache");
	/* direct mode: the stdio tests ran buffered (IOzone -I does the same) */
	if (cache == FSLAB_CACHE_DIRECT && (bt->flags & FSLAB_BT_STDIO))
		snprintf(flag + strlen(flag), len - strlen(flag), "%sbuffered", flag[0] ? ";" : "");
	if (fs->fuse)
		snprintf(flag + strlen(flag), len - strlen(flag), "%sfuse", flag[0] ? ";" : "");
}

/* Why fslab_fsinfo_check() says a filesystem is gone, for the message. */
static const char *run_vanished_why(int r)
{
	if (r == -ENODEV)
		return "its disk is gone";
	if (r == -EROFS)
		return "it went read-only";
	if (r == -ENOENT || r == -ESTALE)
		return "unmounted?";
	return strerror(-r);
}

static void run_write_row(struct run_group_ctx *g, enum fslab_test t,
			  const struct fslab_test_outcome *o)
{
	struct fslab_bench_fs *fs = g->fs;
	struct fslab_result_row row;
	struct fslab_progress_item it;
	int vr;

	memset(&row, 0, sizeof(row));
	snprintf(row.filesystem, sizeof(row.filesystem), "%s", fs->name);
	row.test = t;
	row.file_kib = g->cell->file_bytes / 1024;
	row.record_kib = g->cell->record_bytes / 1024;
	row.trial = g->trial;
	row.cache = g->c->sweep.cache;
	row.elapsed_s = -1;
	row.latency = g->c->latency;
	row.lat_p50_us = o->has_latency ? o->lat_p50_us : -1;
	row.lat_p99_us = o->has_latency ? o->lat_p99_us : -1;
	row.lat_max_us = o->has_latency ? o->lat_max_us : -1;
	switch (o->status) {
	case FSLAB_OUTCOME_OK:
		row.throughput_kib_s = o->throughput_kib_s;
		row.elapsed_s = o->elapsed_s;
		snprintf(row.status, sizeof(row.status), "ok");
		run_flag(fs, g->c->sweep.cache, t, o->throughput_kib_s, row.flag, sizeof(row.flag));
		fs->cells_ok++;
		break;
	case FSLAB_OUTCOME_SKIPPED:
		snprintf(row.status, sizeof(row.status), "skipped: %s", o->reason);
		fs->cells_skipped++;
		break;
	default:
		/* A test that failed because its filesystem went away counts as
		 * vanished, so --resume runs it again. */
		if (!fs->vanished && (vr = fslab_fsinfo_check(fs)) < 0) {
			fs->vanished = true;
			fslab_progress_clear(g->prog);
			fslab_error("%s: %s is no longer the filesystem this run started on (%s); its remaining cells are recorded as failed, and --resume runs them once it is back",
				    fs->name, run_esc(fs->path), run_vanished_why(vr));
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
	if (o->redone)
		snprintf(row.flag + strlen(row.flag), sizeof(row.flag) - strlen(row.flag), "%s" REDONE_FLAG,
			 row.flag[0] ? ";" : "");
	if (o->redone_slow)
		snprintf(row.flag + strlen(row.flag), sizeof(row.flag) - strlen(row.flag), "%sredone-slow",
			 row.flag[0] ? ";" : "");
	if (fslab_results_write_row(fs->csv, &row) < 0 || fflush(fs->csv) != 0) {
		fslab_error("cannot append to %s/%s.csv: %s", run_esc(g->c->out_dir), fs->name, strerror(errno));
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

/* A pass that took more than FSLAB_DISTURBED_FACTOR x the median time of
 * the same test's earlier trials of this file x record cell was disturbed:
 * the engine runs it again.  Times compare as throughputs (same bytes). */
static bool run_disturbed(void *ctx, enum fslab_test t, double elapsed_s)
{
	struct run_group_ctx *g = ctx;
	double samples[FSLAB_TRIALS_MAX], median, tp;
	size_t n;

	n = fslab_done_samples(&g->fst->done, t, g->cell->file_bytes / 1024,
			       g->cell->record_bytes / 1024, samples, FSLAB_TRIALS_MAX);
	if (n == 0 || elapsed_s <= 0)
		return false;
	median = fslab_median(samples, n);
	tp = (double)g->cell->file_bytes / 1024.0 / elapsed_s;
	return median > 0 && tp * FSLAB_DISTURBED_FACTOR < median;
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

/* The CSVs, ready to append to: on resume the ones run_resume_check
 * validated (now cut or rewritten as it found necessary), else new files
 * created O_EXCL in the results directory (a name already taken, a symlink
 * included, is refused, never written through). */
static int run_open_csvs(struct fslab_run_ctx *c, struct run_fs_state *fst)
{
	char name[FSLAB_FS_NAME_MAX + 8], err[512];
	struct stat st;
	int r, fd;

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];

		snprintf(name, sizeof(name), "%s.csv", fs->name);
		r = fslab_resume_apply(c->out_fd, fs->name, &fst[i].csv, err, sizeof(err));
		if (r < 0) {
			fslab_error("%s/%s", run_esc(c->out_dir), err);
			return r;
		}
		fd = fst[i].csv.fd;
		fst[i].csv.fd = -1;
		if (fd < 0) {
			fd = fslab_create_at(c->out_fd, name, O_WRONLY | O_APPEND, 0644);
			if (fd < 0)
				return fslab_error_errno(fd, "cannot create %s/%s%s", run_esc(c->out_dir), name,
							 fd == -EEXIST ? " (something took that name since the run checked)" : "");
		} else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_APPEND) < 0) {
			r = -errno;
			close(fd);
			return fslab_error_errno(r, "%s/%s", run_esc(c->out_dir), name);
		}
		fs->csv = fdopen(fd, "a");
		if (!fs->csv) {
			r = -errno;
			close(fd);
			return fslab_error_errno(r, "cannot open %s/%s", run_esc(c->out_dir), name);
		}
		if (fstat(fileno(fs->csv), &st) == 0 && st.st_size == 0) {
			if (fslab_results_write_header_ex(fs->csv, c->latency) < 0 || fflush(fs->csv) != 0)
				return fslab_error_errno(errno, "cannot write %s/%s", run_esc(c->out_dir), name);
		}
	}
	return 0;
}

/* The end of a run: each CSV flushed, fsync'ed and closed, then the
 * results directory fsync'ed (the names of the CSVs and the manifest in
 * it), each checked: rows lost on their way to the disk make a failed
 * run, never a quiet one.  0 or the first -errno, said. */
static int run_close_csvs(struct fslab_run_ctx *c)
{
	int ret = 0, r;

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];

		if (!fs->csv)
			continue;
		r = 0;
		if (fflush(fs->csv) != 0 || fsync(fileno(fs->csv)) < 0)
			r = -errno;
		if (fclose(fs->csv) != 0 && r == 0)
			r = -errno;
		fs->csv = NULL;
		if (r < 0 && ret == 0)
			ret = r;
		if (r < 0)
			fslab_error_errno(r, "cannot write %s/%s.csv to the disk", run_esc(c->out_dir), fs->name);
	}
	/* EINVAL: a filesystem that cannot sync a directory (nothing to wait for) */
	if (c->out_fd >= 0 && fsync(c->out_fd) < 0 && errno != EINVAL) {
		r = fslab_error_errno(errno, "cannot flush the results directory %s to the disk",
				      run_esc(c->out_dir));
		if (ret == 0)
			ret = r;
	}
	return ret;
}

/* What the sweep carries from cell to cell. */
struct run_sweep_state {
	struct fslab_bench_buffers buf; /* sized for cur_record */
	uint64_t cur_record;
	double session_start, wall_before;
	struct fslab_progress *prog;
	bool *failed;
};

/* The same outcome as a row for each test in mask (a cell not run). */
static void run_write_rows(struct run_group_ctx *g, unsigned mask, const struct fslab_test_outcome *o)
{
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (mask & (1u << t))
			run_write_row(g, t, o);
}

/* A cell that is not run: its filesystem vanished (its rows say so, and
 * --resume runs them), or direct mode on a FUSE mount.  True when the cell
 * is done with. */
static bool run_group_not_run(struct run_group_ctx *g, unsigned mask)
{
	struct fslab_run_ctx *c = g->c;
	struct fslab_bench_fs *fs = g->fs;
	const bool extra = g->trial > c->sweep.trials; /* --until-ci's trials */
	struct fslab_test_outcome o = { .status = FSLAB_OUTCOME_FAILED };
	int vr = -ENOENT;

	if (!fs->vanished && (fs->work_fd < 0 || (vr = fslab_fsinfo_check(fs)) < 0)) {
		fs->vanished = true;
		fslab_progress_clear(g->prog);
		fslab_error("%s: %s is no longer the filesystem this run started on (%s); its remaining cells are recorded as failed, and --resume runs them once it is back",
			    fs->name, run_esc(fs->path), run_vanished_why(vr));
	}
	if (fs->vanished) {
		if (extra)
			return true; /* nothing to sample */
		snprintf(o.reason, sizeof(o.reason), "%s", FSLAB_VANISHED_STATUS + strlen("failed: "));
		run_write_rows(g, mask, &o);
		g->failed = true;
		return true;
	}
	if (!fs->fuse || c->sweep.cache != FSLAB_CACHE_DIRECT)
		return false;
	/* O_DIRECT on a FUSE mount bypasses only the FUSE file's cache: the
	 * daemon (fusefat) still reads and writes the device through the page
	 * cache, so the figures would not be the device's.  fusefat also fails
	 * O_DIRECT reads inside a file's last cluster with EPERM.  Say so
	 * rather than measure it. */
	if (!extra) {
		o.status = FSLAB_OUTCOME_SKIPPED;
		snprintf(o.reason, sizeof(o.reason),
			 "direct mode on a FUSE mount does not reach the device (the FUSE daemon reads it through the page cache)");
		run_write_rows(g, mask, &o);
	}
	return true;
}

/* Record buffers for the cell's record size (kept while it stays). */
static int run_buffers_for(struct run_sweep_state *sw, uint64_t record_bytes)
{
	if (sw->cur_record == record_bytes)
		return 0;
	fslab_bench_buffers_free(&sw->buf);
	sw->cur_record = 0;
	if (fslab_bench_buffers_alloc(&sw->buf, record_bytes) < 0)
		return fslab_error_errno(ENOMEM, "cannot allocate %llu bytes of record buffers",
					 (unsigned long long)record_bytes * 2);
	sw->cur_record = record_bytes;
	return 0;
}

/* One file x record cell of one trial on fs: the tests in mask, one row
 * each.  0, or -ENOMEM (the sweep stops). */
static int run_group(struct fslab_run_ctx *c, struct run_sweep_state *sw, struct fslab_bench_fs *fs,
		     struct run_fs_state *fs_st, const struct fslab_sweep_cell *cell, unsigned mask,
		     unsigned trial)
{
	struct run_group_ctx g = {
		.c = c, .fs = fs, .fst = fs_st, .prog = sw->prog, .cell = cell, .trial = trial,
	};
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	double g0 = run_now();
	int r;

	if (run_group_not_run(&g, mask)) {
		if (g.failed)
			*sw->failed = true;
		return 0;
	}
	r = run_buffers_for(sw, cell->record_bytes);
	if (r < 0)
		return r;
	struct fslab_cell engine_cell = {
		.dir_fd = fs->work_fd,
		.name = TESTFILE_NAME,
		.file_bytes = cell->file_bytes,
		.record_bytes = cell->record_bytes,
		.tests = mask,
		.cache = c->sweep.cache,
		.io = (enum fslab_io_mode)c->io_mode,
		.sync = (enum fslab_sync_policy)c->sync_policy,
		/* a lab partition's block device (state); --dir: none known,
		 * syncfs only */
		.device = fs->part ? fs->part->device : NULL,
		.ops = &fslab_io_posix,
		.drop_cache = fslab_cache_drop,
		.drop_ctx = &fs->cache,
		.on_test = run_on_test,
		.on_test_ctx = &g,
		.stop = &run_stop,
		.continued = &run_continued,
		.disturbed = run_disturbed,
		.latency = c->latency,
		.disturbed_ctx = &g,
	};
	fslab_cell_run(&engine_cell, &sw->buf, out, &times);
	fs->timed_s += times.timed_s;
	fs->untimed_io_s += times.untimed_io_s;
	fs->cache_drop_s += times.cache_drop_s;
	fs->wall_s += run_now() - g0;
	if (g.failed)
		*sw->failed = true;
	return 0;
}

/* One filesystem's cells of one trial, then the manifest brought up to
 * date (checked: --resume trusts it) and a line of progress. */
static int run_fs_trial(struct fslab_run_ctx *c, struct run_sweep_state *sw, size_t fi,
			struct run_fs_state *fs_st, const struct fslab_plan *plan, unsigned trial)
{
	struct fslab_bench_fs *fs = &c->fs[fi];
	uint64_t before_ok = fs->cells_ok, before_failed = fs->cells_failed;
	double fs_start = run_now();
	bool ran = false;
	int r;

	for (size_t i = 0; i < plan->n && !run_stop; i++) {
		unsigned mask = run_group_todo(c, &fs_st->done, &plan->cells[i], trial);

		if (!mask)
			continue;
		ran = true;
		r = run_group(c, sw, fs, fs_st, &plan->cells[i], mask, trial);
		if (r < 0)
			return r;
	}
	if (!ran)
		return 0;
	c->wall_s = sw->wall_before + (run_now() - sw->session_start);
	r = fslab_manifest_write(c);
	if (r < 0) {
		fslab_progress_clear(sw->prog);
		fslab_error("cannot update %s/manifest.json: %s; the run goes on, but --resume may redo cells",
			    run_esc(c->out_dir), strerror(-r));
		*sw->failed = true;
	}
	if (!fslab_progress_is_tty(sw->prog))
		fslab_progress_note(sw->prog, "%s%strial %u/%u  %s: %llu cells ok, %llu failed in %.1f s",
				    fslab_log_prefix(), ": ", trial, c->max_trials, fs->name,
				    (unsigned long long)(fs->cells_ok - before_ok),
				    (unsigned long long)(fs->cells_failed - before_failed),
				    run_now() - fs_start);
	return 0;
}

static uint64_t run_count_done(const struct fslab_run_ctx *c, const struct run_fs_state *fst)
{
	uint64_t done = 0;

	for (size_t f = 0; f < c->n_fs; f++)
		done += fst[f].done.n;
	return done;
}

/* The progress totals at the start of a trial: this trial's work and the
 * minimum trials' still to come.  False when --until-ci has nothing left
 * (every cell converged). */
static bool run_trial_progress(const struct fslab_run_ctx *c, struct run_fs_state *fst,
			       const struct fslab_plan *plan, unsigned trial, struct fslab_progress *prog)
{
	uint64_t todo = run_count_todo(c, fst, plan, trial), later = 0, done = run_count_done(c, fst);
	double work;

	if (todo == 0 && trial > c->sweep.trials)
		return false;
	work = run_work_todo(c, fst, plan, trial);
	for (unsigned t = trial + 1; t <= c->sweep.trials; t++) {
		later += run_count_todo(c, fst, plan, t);
		work += run_work_todo(c, fst, plan, t);
	}
	fslab_progress_set_total(prog, done + todo + later, done);
	fslab_progress_set_work(prog, work, 0);
	return true;
}

static int run_sweep(struct fslab_run_ctx *c, const struct fslab_plan *plan,
		     struct run_fs_state *fst, struct fslab_progress *prog, bool *failed)
{
	struct run_sweep_state sw = {
		.session_start = run_now(), .wall_before = c->wall_s, .prog = prog, .failed = failed,
	};
	size_t order[FSLAB_MAX_FS];
	int r = 0;

	for (unsigned trial = 1; trial <= c->max_trials && !run_stop && r == 0; trial++) {
		if (!run_trial_progress(c, fst, plan, trial, prog))
			break; /* --until-ci: everything converged */
		run_fs_order(c, trial, order);
		for (size_t oi = 0; oi < c->n_fs && !run_stop && r == 0; oi++)
			r = run_fs_trial(c, &sw, order[oi], &fst[order[oi]], plan, trial);
	}
	fslab_bench_buffers_free(&sw.buf);
	c->wall_s = sw.wall_before + (run_now() - sw.session_start);
	return r;
}

/* ---- setup of a run ---- */

/* Names the process holding a flock on fd, from /proc/locks ("pid 1234:
 * fslab run --resume out"), or "" when it cannot tell. */
static void run_flock_holder(int fd, char *buf, size_t len)
{
	struct stat st;
	char line[256];
	FILE *f;

	buf[0] = '\0';
	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned maj, mnr;
		unsigned long long ino;
		int pid;

		if (strstr(line, "->") || !strstr(line, "FLOCK") ||
		    sscanf(strstr(line, "FLOCK"), "FLOCK %*s %*s %d %x:%x:%llu", &pid, &maj, &mnr, &ino) != 4)
			continue;
		if (ino != (unsigned long long)st.st_ino || maj != major(st.st_dev) || mnr != minor(st.st_dev) ||
		    pid == getpid())
			continue;
		char path[64], cmd[256] = "";
		int cfd;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		cfd = open(path, O_RDONLY | O_CLOEXEC);
		n = cfd >= 0 ? read(cfd, cmd, sizeof(cmd) - 1) : -1;
		if (cfd >= 0)
			close(cfd);
		for (ssize_t i = 0; i + 1 < n; i++)
			if (cmd[i] == '\0')
				cmd[i] = ' ';
		cmd[n > 0 ? n : 0] = '\0';
		snprintf(buf, len, "pid %d%s%s", pid, cmd[0] ? ": " : "", run_esc(cmd));
		break;
	}
	fclose(f);
}

/* One run at a time per results directory: an exclusive flock on the
 * directory itself (held through c->out_fd until the run ends), whatever
 * path reached it. */
static int run_lock_results(struct fslab_run_ctx *c)
{
	char holder[400];

	if (flock(c->out_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return fslab_error_errno(errno, "cannot lock the results directory %s", run_esc(c->out_dir));
	run_flock_holder(c->out_fd, holder, sizeof(holder));
	fslab_error("%s is in use by another fslab run (%s); wait for it to finish: two runs in one results directory would write the same cells twice",
		    run_esc(c->out_dir), holder[0] ? holder : "holder unknown");
	return -EBUSY;
}

/* What fslab trusts in a results directory must be the user's own: owned
 * by the user fslab runs as and writable by nobody else (no other user can
 * have replaced a file in it or written into one), and a file singly
 * linked.  0, or -EPERM with the reason and the fix in why. */
static int run_check_ours(const struct stat *st, const char *what, char *why, size_t whylen)
{
	if (st->st_uid != geteuid())
		snprintf(why, whylen, "%s belongs to uid %u, not to uid %u that fslab runs as (another user could have changed it); %s",
			 what, (unsigned)st->st_uid, (unsigned)geteuid(),
			 S_ISDIR(st->st_mode) ? "choose a directory of your own" : "it is not a file this fslab wrote");
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, whylen, "%s is writable by %s (another user could have changed it); remove that permission (chmod go-w) or choose another directory",
			 what, (st->st_mode & S_IWOTH) ? "other users" : "its group");
	else if (!S_ISDIR(st->st_mode) && st->st_nlink != 1)
		snprintf(why, whylen, "%s has %u hard links (fslab creates its files with one); it is not a file this fslab wrote",
			 what, (unsigned)st->st_nlink);
	else
		return 0;
	return -EPERM;
}

/* Something (a file, a symlink, anything) named name in dfd? */
static bool run_name_taken(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

/* The run marker ties a run to its directory and files:
 *
 *   <run id>
 *   dir <st_dev> <st_ino>          the results directory itself
 *   csv <NAME.csv> <st_dev> <st_ino>  each CSV, once the run made it
 *
 * A marker and manifest copied together into another directory (or a CSV
 * copied in) have another identity there, so --resume refuses them. */
struct run_marker {
	char id[FSLAB_RUN_ID_LEN + 1];
	bool has_dir;
	struct fslab_file_id dir;
	size_t n_csv;
	struct {
		char name[FSLAB_FS_NAME_MAX + 8];
		struct fslab_file_id id;
	} csv[FSLAB_MAX_FS];
};

#define RUN_MARKER_MAX 16384

/* Reads and parses the marker (fd open on it); 0 or -EINVAL. */
static int run_marker_read(int fd, struct run_marker *m)
{
	char text[RUN_MARKER_MAX + 1], *save = NULL, *line;
	ssize_t n = pread(fd, text, RUN_MARKER_MAX, 0);
	uuid_t uu;

	memset(m, 0, sizeof(*m));
	if (n <= 0 || n == RUN_MARKER_MAX)
		return -EINVAL;
	text[n] = '\0';
	line = strtok_r(text, "\n", &save);
	if (!line || strlen(line) != FSLAB_RUN_ID_LEN || uuid_parse(line, uu) < 0)
		return -EINVAL;
	snprintf(m->id, sizeof(m->id), "%s", line);
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned long long dev, ino;
		char name[80]; /* %79s below; a longer name is no CSV of fslab's */
		int used = 0;

		if (sscanf(line, "dir %llu %llu%n", &dev, &ino, &used) == 2 && line[used] == '\0' &&
		    !m->has_dir) {
			m->has_dir = true;
			m->dir = (struct fslab_file_id){ (dev_t)dev, (ino_t)ino };
		} else if (sscanf(line, "csv %79s %llu %llu%n", name, &dev, &ino, &used) == 3 &&
			   line[used] == '\0' && m->n_csv < FSLAB_MAX_FS && strlen(name) < sizeof(m->csv[0].name)) {
			snprintf(m->csv[m->n_csv].name, sizeof(m->csv[0].name), "%s", name);
			m->csv[m->n_csv].id = (struct fslab_file_id){ (dev_t)dev, (ino_t)ino };
			m->n_csv++;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* The marker's text for c: the run id, the directory and the CSVs open
 * in c (all when csvs is true). */
static int run_marker_text(const struct fslab_run_ctx *c, bool csvs, char *text, size_t len)
{
	struct stat st;
	size_t o;

	if (fstat(c->out_fd, &st) < 0)
		return -errno;
	o = (size_t)snprintf(text, len, "%s\ndir %llu %llu\n", c->run_id, (unsigned long long)st.st_dev,
			     (unsigned long long)st.st_ino);
	for (size_t i = 0; csvs && i < c->n_fs && o < len; i++) {
		if (!c->fs[i].csv || fstat(fileno(c->fs[i].csv), &st) < 0)
			return -EIO;
		o += (size_t)snprintf(text + o, len - o, "csv %s.csv %llu %llu\n", c->fs[i].name,
				      (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	}
	return o < len ? (int)o : -ENAMETOOLONG;
}

/* Once every CSV is open (made or resumed): the marker records their
 * identities, replacing the marker atomically. */
static int run_marker_record_csvs(const struct fslab_run_ctx *c)
{
	char text[RUN_MARKER_MAX];
	int n = run_marker_text(c, true, text, sizeof(text)), r;

	if (n < 0)
		return fslab_error_errno(n, "cannot record the CSVs in %s/" FSLAB_RUN_MARKER, run_esc(c->out_dir));
	r = fslab_write_file_atomic_at(c->out_fd, FSLAB_RUN_MARKER, text, (size_t)n, 0644);
	if (r < 0)
		return fslab_error_errno(r, "cannot write %s/" FSLAB_RUN_MARKER, run_esc(c->out_dir));
	return 0;
}

/* The marker of the results directory held in c (checked as ours by the
 * caller before), which must be this directory's own. */
static int run_marker_load(const struct fslab_run_ctx *c, struct run_marker *m)
{
	struct fslab_file_id dir;
	int fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK), r;

	if (fd < 0) {
		fslab_error("--resume %s: no run id (" FSLAB_RUN_MARKER ": %s): not a results directory this fslab wrote, so its manifest cannot be proved to be its own; nothing was changed",
			    run_esc(c->out_dir), fd == -ELOOP ? "a symbolic link" : fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return -EINVAL;
	}
	r = run_marker_read(fd, m);
	close(fd);
	if (r < 0) {
		fslab_error("--resume %s: " FSLAB_RUN_MARKER " does not hold a run id; nothing was changed", run_esc(c->out_dir));
		return r;
	}
	r = fslab_file_id_of_fd(c->out_fd, &dir);
	if (r < 0)
		return fslab_error_errno(r, "--resume %s", run_esc(c->out_dir));
	if (!m->has_dir) {
		fslab_error("--resume %s: " FSLAB_RUN_MARKER " does not record its directory (written by an earlier fslab): the run cannot be proved to be this directory's; report it, or start a new run; nothing was changed",
			    run_esc(c->out_dir));
		return -EINVAL;
	}
	if (!fslab_file_id_equal(&dir, &m->dir)) {
		fslab_error("--resume %s: " FSLAB_RUN_MARKER " was written for another directory (device %llu inode %llu, this one is %llu/%llu): the marker and its manifest were copied in from another run (or the directory was copied); refusing to resume, nothing was changed",
			    run_esc(c->out_dir), (unsigned long long)m->dir.dev, (unsigned long long)m->dir.ino,
			    (unsigned long long)dir.dev, (unsigned long long)dir.ino);
		return -EINVAL;
	}
	return 0;
}

/* A new run's results directory: made 0755 (or an existing one holding no
 * run), locked, and marked with a new run id in .fslab-run. */
static int run_prepare_out(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	char ts[32], line[FSLAB_RUN_ID_LEN + 128], why[256];
	uuid_t uu;
	struct stat st;
	bool existed;
	int r, fd;

	if (o->out_dir) {
		snprintf(c->out_dir, sizeof(c->out_dir), "%s", o->out_dir);
	} else {
		run_utc_now(ts, sizeof(ts), true);
		snprintf(c->out_dir, sizeof(c->out_dir), "results/%s", ts);
	}
	existed = lstat(c->out_dir, &st) == 0;
	r = fslab_mkdir_p(c->out_dir, 0755);
	if (r < 0)
		return fslab_error_errno(r, "cannot create the results directory %s", run_esc(c->out_dir));
	c->out_fd = fslab_dir_open(c->out_dir);
	if (c->out_fd < 0)
		return fslab_error_errno(c->out_fd, "%s: cannot open the results directory%s",
					 run_esc(c->out_dir),
					 c->out_fd == -ELOOP || c->out_fd == -ENOTDIR ? " (a symbolic link is not followed; give the directory itself)" : "");
	if (!existed && fchmod(c->out_fd, 0755) < 0)
		return fslab_error_errno(errno, "cannot set the mode of %s", run_esc(c->out_dir));
	r = run_lock_results(c);
	if (r < 0)
		return r;
	if (run_name_taken(c->out_fd, "manifest.json")) {
		fslab_error("%s already holds a run (manifest.json); continue it with --resume %s, or choose another --out",
			    run_esc(c->out_dir), run_esc(c->out_dir));
		return -EEXIST;
	}
	if (run_name_taken(c->out_fd, FSLAB_RUN_MARKER)) {
		/* A run killed before it wrote its manifest left only its
		 * marker: with no manifest there is nothing to resume, and
		 * the same command starts again.  Only fslab's own marker
		 * (a regular file of ours) is replaced. */
		struct run_marker old;

		fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() || st.st_nlink != 1 ||
		    run_marker_read(fd, &old) < 0 || unlinkat(c->out_fd, FSLAB_RUN_MARKER, 0) < 0) {
			if (fd >= 0)
				close(fd);
			fslab_error("%s/" FSLAB_RUN_MARKER " exists but is not a run marker fslab left; choose another --out",
				    run_esc(c->out_dir));
			return -EEXIST;
		}
		close(fd);
	}
	for (size_t i = 0; i < c->n_fs; i++) {
		char csv[FSLAB_FS_NAME_MAX + 8];

		snprintf(csv, sizeof(csv), "%s.csv", c->fs[i].name);
		if (run_name_taken(c->out_fd, csv)) {
			fslab_error("%s/%s already exists; choose another --out (results of two runs are never mixed, and fslab never writes through a file it did not create)",
				    run_esc(c->out_dir), csv);
			return -EEXIST;
		}
	}
	/* An existing directory of another user's, or one others may write
	 * to, is not taken: that user could later swap its manifest and steer
	 * a resume. */
	if (fstat(c->out_fd, &st) < 0)
		return fslab_error_errno(errno, "cannot stat the results directory %s", run_esc(c->out_dir));
	if (run_check_ours(&st, "the directory", why, sizeof(why)) < 0) {
		fslab_error("--out %s: %s", run_esc(c->out_dir), why);
		return -EPERM;
	}
	uuid_generate(uu);
	uuid_unparse_lower(uu, c->run_id);
	fd = fslab_create_at(c->out_fd, FSLAB_RUN_MARKER, O_WRONLY, 0644);
	if (fd < 0)
		return fslab_error_errno(fd, "cannot create %s/" FSLAB_RUN_MARKER, run_esc(c->out_dir));
	r = run_marker_text(c, false, line, sizeof(line));
	if (r < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd) < 0) {
		r = -errno;
		close(fd);
		return fslab_error_errno(r ? r : -EIO, "cannot write %s/" FSLAB_RUN_MARKER, run_esc(c->out_dir));
	}
	close(fd);
	return 0;
}

/* --resume DIR, before anything in DIR changes: the directory itself (not
 * a symlink), its lock, its run id (.fslab-run, a regular file) and a
 * manifest carrying the same run id. */
static int run_open_resume_dir(struct fslab_run_ctx *c, const char *dir)
{
	char id[FSLAB_RUN_ID_LEN + 2] = "", err[PATH_MAX + 512], why[256];
	struct run_marker m;
	struct stat st;
	int r, fd;

	snprintf(c->out_dir, sizeof(c->out_dir), "%s", dir);
	c->out_fd = fslab_dir_open(dir);
	if (c->out_fd < 0) {
		fslab_error("--resume %s: %s%s", run_esc(dir), strerror(-c->out_fd),
			    c->out_fd == -ELOOP || c->out_fd == -ENOTDIR ? " (a symbolic link is not followed; give the results directory itself)" : "");
		return c->out_fd;
	}
	r = run_lock_results(c);
	if (r < 0)
		return r;
	/* The directory, its marker and its manifest: ours alone, or another
	 * user could have put a run of their choosing in them. */
	if (fstat(c->out_fd, &st) < 0)
		return fslab_error_errno(errno, "--resume %s", run_esc(dir));
	if (run_check_ours(&st, "the directory", why, sizeof(why)) < 0 ||
	    (fstatat(c->out_fd, "manifest.json", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	     run_check_ours(&st, "manifest.json", why, sizeof(why)) < 0)) {
		fslab_error("--resume %s: %s; nothing was changed", run_esc(dir), why);
		return -EPERM;
	}
	fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) < 0 || run_check_ours(&st, FSLAB_RUN_MARKER, why, sizeof(why)) < 0)) {
		close(fd);
		fslab_error("--resume %s: %s; nothing was changed", run_esc(dir), why);
		return -EPERM;
	}
	if (fd >= 0)
		close(fd);
	/* the run id, recorded for this very directory */
	r = run_marker_load(c, &m);
	if (r < 0)
		return r;
	snprintf(id, sizeof(id), "%s", m.id);
	r = fslab_manifest_read(c->out_fd, c->out_dir, c, err, sizeof(err));
	if (r < 0) {
		fslab_error("%s", run_esc(err));
		return r;
	}
	if (strcmp(c->run_id, id) != 0) {
		fslab_error("--resume %s: manifest.json belongs to run %s, but this directory is run %s (" FSLAB_RUN_MARKER "): the manifest is not this directory's own (copied from another run?); refusing to resume, nothing was changed",
			    run_esc(dir), run_esc(c->run_id), id);
		return -EINVAL;
	}
	return 0;
}

/* --resume: every CSV checked (and nothing changed) before the run goes
 * on. */
static int run_check_resume_csvs(struct fslab_run_ctx *c, const struct fslab_plan *plan,
				 struct run_fs_state *fst)
{
	struct run_marker m;
	char err[512];
	int r;

	r = run_marker_load(c, &m);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_fs; i++) {
		char name[FSLAB_FS_NAME_MAX + 8];
		struct fslab_file_id id;
		const struct fslab_file_id *rec = NULL;

		r = fslab_resume_check(c->out_fd, c->fs[i].name, &fst[i].csv, &fst[i].done, err,
				       sizeof(err));
		if (r < 0) {
			fslab_error("--resume %s: %s", run_esc(c->out_dir), err);
			return r;
		}
		snprintf(name, sizeof(name), "%s.csv", c->fs[i].name);
		for (size_t k = 0; k < m.n_csv; k++)
			if (strcmp(m.csv[k].name, name) == 0)
				rec = &m.csv[k].id;
		/* The CSV the run made (the marker recorded it), or one made
		 * just before a kill, with no row yet. */
		if (fst[i].csv.fd >= 0) {
			r = fslab_file_id_of_fd(fst[i].csv.fd, &id);
			if (r < 0)
				return fslab_error_errno(r, "--resume %s/%s", run_esc(c->out_dir), name);
			if (rec ? !fslab_file_id_equal(rec, &id) : fst[i].done.n > 0) {
				fslab_error("--resume %s: %s is not the file this run created (%s): copied in from another run?; refusing to resume, nothing was changed",
					    run_esc(c->out_dir), name,
					    rec ? "another inode than " FSLAB_RUN_MARKER " records" : FSLAB_RUN_MARKER " records no such CSV");
				return -EINVAL;
			}
		}
		/* Every row a cell of the recorded plan: rows of another
		 * sweep would be mixed into this run's. */
		for (size_t k = 0; k < fst[i].done.n; k++) {
			const struct fslab_cell_key *key = &fst[i].done.keys[k];
			unsigned trials = c->max_trials > c->sweep.trials ? c->max_trials : c->sweep.trials;
			bool in_plan = false;

			for (size_t p = 0; p < plan->n && !in_plan; p++)
				in_plan = plan->cells[p].file_bytes == key->file_kib * 1024 &&
					  plan->cells[p].record_bytes == key->record_kib * 1024;
			if (!in_plan || !(c->sweep.tests & (1u << key->test)) || key->trial < 1 || key->trial > trials) {
				fslab_error("--resume %s: %s holds a row outside this run's plan (%s, file %llu KiB, record %llu KiB, trial %u; manifest.json says otherwise): the CSV and the manifest are not of one run; refusing to resume, nothing was changed",
					    run_esc(c->out_dir), name, fslab_test_to_string(key->test),
					    (unsigned long long)key->file_kib, (unsigned long long)key->record_kib,
					    key->trial);
				return -EINVAL;
			}
		}
		for (size_t k = 0; k < fst[i].done.n; k++)
			if (fst[i].done.ok[k])
				c->fs[i].cells_ok++;
	}
	return 0;
}

static int run_check_resume_opts(const struct fslab_run_opts *o)
{
	if (o->tests || o->file_min || o->record_min || o->cache != FSLAB_CACHE_MODE_INVALID ||
	    o->trials || o->seed_set || o->keep_small_records_set || o->sweep_file || o->n_dirs ||
	    o->until_ci_pct > 0 || o->max_trials || o->out_dir || o->io_mode || o->sync_policy || o->latency ||
	    o->preset || o->label) {
		fslab_error("--resume continues with the settings recorded in that run's manifest; drop the sweep, --dir, --out, --label and --until-ci options");
		return -EINVAL;
	}
	return 0;
}

static void run_ctx_free(struct fslab_run_ctx *c)
{
	for (size_t i = 0; i < c->n_fs; i++) {
		if (c->fs[i].csv)
			fclose(c->fs[i].csv);
		run_workdir_remove(&c->fs[i]);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
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

/* ---- the plan's cost: bytes, free space, time (--dry-run, and the ETA) ---- */

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
static void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
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
	if (c->until_ci_pct > 0)
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

/* A run context with nothing open yet. */
static struct fslab_run_ctx *run_ctx_new(void)
{
	struct fslab_run_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out_fd = -1;
	for (size_t i = 0; i < FSLAB_MAX_FS; i++)
		c->fs[i].dir_fd = c->fs[i].work_fd = -1;
	c->preset = "seed";
	return c;
}

/* A new run's filesystems (and --dry-run's): --dir NAME=PATH, or the
 * lab's (the lab held as a run holds it, so no probe runs beside a running
 * run).  Returns an exit status: FSLAB_EXIT_OK, _USAGE or _FAILURE. */
static int run_pick_filesystems(struct fslab_run_ctx *c, const struct fslab_run_opts *o,
				struct fslab_lab **lab)
{
	if (o->n_dirs) {
		if (o->state_path) {
			fslab_error("give either --state or --dir, not both");
			return FSLAB_EXIT_USAGE;
		}
		for (size_t i = 0; i < o->n_dirs; i++)
			if (run_add_fs(c, o->dirs[i].name, o->dirs[i].path, NULL) < 0)
				return FSLAB_EXIT_USAGE;
		return FSLAB_EXIT_OK;
	}
	snprintf(c->state_path, sizeof(c->state_path), "%s",
		 o->state_path ? o->state_path : fslab_state_default_path());
	if (run_lock_lab(c, o->allow_concurrent, lab) < 0 || run_lab_filesystems(c, *lab, NULL, 0) < 0)
		return FSLAB_EXIT_FAILURE;
	return FSLAB_EXIT_OK;
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
	else
		printf("trials: %u\n", c->sweep.trials);
	printf("cache: %s, io: %s, sync: %s\n", fslab_cache_mode_to_string(c->sweep.cache),
	       fslab_io_mode_to_string(c->io_mode), fslab_sync_policy_to_string(c->sync_policy));
	printf("bytes to move: %s per filesystem and trial; %s", fslab_size_human(bytes, f1, sizeof(f1)),
	       fslab_size_human(bytes * c->n_fs * c->sweep.trials, f2, sizeof(f2)));
	if (c->until_ci_pct > 0)
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
		avail = (uint64_t)sv.f_bavail * sv.f_frsize;
		printf("  %-12s %-8s %s  free %s, needs %s: %s\n", fs->name, fs->type, run_esc(fs->path),
		       fslab_size_human(avail, f1, sizeof(f1)), fslab_size_human(need, f2, sizeof(f2)),
		       avail >= need ? "ok" : "DOES NOT FIT");
		if (avail >= need)
			continue;
		fflush(stdout);
		fslab_error("%s (%s): the plan needs %s free (its largest file, %s, plus an eighth and 8 MiB), the filesystem has %s; lower --file-sizes or use a bigger filesystem",
			    fs->name, run_esc(fs->path), fslab_size_human(need, f2, sizeof(f2)),
			    fslab_size_human(run_plan_largest(c, plan, probe), f3, sizeof(f3)),
			    fslab_size_human(avail, f1, sizeof(f1)));
		ret = -ENOSPC;
	}
	return ret;
}

/* --dry-run: probes each device and prints the time the plan should take.
 * 0, or -errno when a private directory cannot be made. */
static int run_dry_estimate(struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	double est_s = 0;
	bool estimated = true;
	char f1[32], f2[32];

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];
		double e;
		int r = run_workdir_create(fs);

		if (r < 0)
			return r;
		fslab_device_probe(fs->work_fd, fs->path, c->probe_bytes, &fs->probe);
		run_workdir_remove(fs);
		e = run_plan_estimate_s(c, plan, fs);
		if (e < 0) {
			printf("  %s: probe %s (%s): no estimate\n", fs->name, fs->probe.method, fs->probe.note);
			estimated = false;
			continue;
		}
		printf("  %s: probe %s: write %.0f KiB/s, read %.0f KiB/s: %s per trial\n", fs->name,
		       fs->probe.method, fs->probe.write_kib_s, fs->probe.read_kib_s,
		       fslab_progress_format_duration(e, f1, sizeof(f1)));
		est_s += e;
	}
	if (!estimated) {
		printf("time: not estimated (a probe gave no rate)\n");
		return 0;
	}
	printf("time: about %s", fslab_progress_format_duration(est_s * c->sweep.trials, f1, sizeof(f1)));
	if (c->until_ci_pct > 0)
		printf("..%s", fslab_progress_format_duration(est_s * c->max_trials, f2, sizeof(f2)));
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

/* --resume: the manifest's filesystems come back by name and path (from
 * the lab's state when the run was on a lab), with what the run measured
 * of them so far.  The manifest's copies are kept on the heap (a struct
 * fslab_bench_fs holds paths: FSLAB_MAX_FS of them are ~224 KB). */
static int run_resume_filesystems(struct fslab_run_ctx *c, const struct fslab_run_opts *o,
				  struct fslab_lab **lab)
{
	size_t n_saved = c->n_fs;
	struct fslab_bench_fs *saved = malloc(n_saved * sizeof(*saved) + 1);
	const char *names[FSLAB_MAX_FS];
	int r = 0;

	if (!saved)
		return fslab_error_errno(-ENOMEM, "--resume");
	memcpy(saved, c->fs, n_saved * sizeof(*saved));
	c->n_fs = 0;
	for (size_t i = 0; i < n_saved; i++) {
		saved[i].dir_fd = saved[i].work_fd = -1;
		names[i] = saved[i].name;
	}
	if (c->state_path[0]) {
		r = run_lock_lab(c, o->allow_concurrent, lab);
		if (r == 0)
			r = run_lab_filesystems(c, *lab, names, n_saved);
	} else {
		for (size_t i = 0; i < n_saved && r == 0; i++)
			r = run_add_fs(c, saved[i].name, saved[i].path, NULL);
	}
	for (size_t i = 0; i < c->n_fs && r == 0; i++)
		for (size_t j = 0; j < n_saved; j++) {
			struct fslab_bench_fs *fs = &c->fs[i];

			if (strcmp(fs->name, saved[j].name) != 0)
				continue;
			fs->probe = saved[j].probe;
			fs->timed_s = saved[j].timed_s;
			fs->untimed_io_s = saved[j].untimed_io_s;
			fs->cache_drop_s = saved[j].cache_drop_s;
			fs->wall_s = saved[j].wall_s;
		}
	free(saved);
	return r;
}

/* The settings and the filesystems: a new run's from the options, a
 * resumed run's from its manifest.  Returns an exit status. */
static int run_begin(struct fslab_run_ctx *c, const struct fslab_run_opts *o, struct fslab_lab **lab)
{
	if (o->resume_dir) {
		if (run_check_resume_opts(o) < 0)
			return FSLAB_EXIT_USAGE;
		if (run_open_resume_dir(c, o->resume_dir) < 0)
			return FSLAB_EXIT_FAILURE;
		c->sessions++;
		return run_resume_filesystems(c, o, lab) < 0 ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
	}
	if (run_settings(c, o) < 0)
		return FSLAB_EXIT_USAGE;
	run_utc_now(c->started_at, sizeof(c->started_at), false);
	return run_pick_filesystems(c, o, lab);
}

/* From the probe on, SIGINT/SIGTERM only ask the run to stop: the probe
 * and the test in flight finish and clean up first. */
struct run_signals {
	struct sigaction old_int, old_term, old_cont;
	bool installed;
};

static void run_signals_install(struct run_signals *rs)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &rs->old_int);
	sigaction(SIGTERM, &sa, &rs->old_term);
	sa.sa_handler = run_on_continue;
	sigaction(SIGCONT, &sa, &rs->old_cont);
	rs->installed = true;
}

static void run_signals_restore(struct run_signals *rs)
{
	if (!rs->installed)
		return;
	sigaction(SIGINT, &rs->old_int, NULL);
	sigaction(SIGTERM, &rs->old_term, NULL);
	sigaction(SIGCONT, &rs->old_cont, NULL);
	rs->installed = false;
}

/* A filesystem made ready for the sweep: its private directory, its mkfs
 * version, and cold mode's cache control (the remount is the lab's to do,
 * under its own lock). */
static int run_fs_ready(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_lab *lab)
{
	int r = run_workdir_create(fs);

	if (r < 0)
		return r;
	if (fs->part)
		fslab_fsinfo_mkfs_version(fs->type, fs->mkfs_tool_version, sizeof(fs->mkfs_tool_version));
	fslab_cache_ctl_init(&fs->cache, c->state, fs->part);
	fs->cache.remount = lab ? fslab_lab_remount : NULL;
	fs->cache.remount_ctx = lab;
	fs->cache.dev = &fs->dev;
	fs->cache.release = run_workdir_release;
	fs->cache.reopen = run_workdir_reopen;
	fs->cache.hold_ctx = fs;
	return 0;
}

/* What the device under fs can do.  A probe timed across a stop of the
 * process is no figure: it is probed again (a few times at most).  A
 * failed probe only costs the page-cache flag. */
static void run_fs_probe(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	char size[32];
	int r = 0;

	if (c->no_device_probe || run_stop) {
		snprintf(fs->probe.method, sizeof(fs->probe.method), "skipped");
		return;
	}
	fslab_progress_note(prog, "%s: probing what the device under %s can do (%u x %s sequential O_DIRECT write and read; the fastest is the bound)",
			    fslab_log_prefix(), run_esc(fs->path), FSLAB_PROBE_RUNS,
			    fslab_size_human(c->probe_bytes ? c->probe_bytes : FSLAB_PROBE_DEFAULT_BYTES,
					     size, sizeof(size)));
	for (int tries = 0; tries < FSLAB_STOP_REDO_MAX + 1; tries++) {
		run_continued = 0;
		r = fslab_device_probe(fs->work_fd, fs->path, c->probe_bytes, &fs->probe);
		if (!run_continued || run_stop)
			break;
		fslab_debug(FSLAB_DBG_BENCH, "%s: the process was stopped during the probe; probing again",
			    fs->name);
	}
	if (run_continued) {
		fslab_warn("%s: the process was stopped during every device probe; its cells get no page-cache flag",
			   fs->name);
		fs->probe.write_kib_s = fs->probe.read_kib_s = 0;
		snprintf(fs->probe.method, sizeof(fs->probe.method), "failed");
		snprintf(fs->probe.note, sizeof(fs->probe.note), "stopped (SIGSTOP) during every probe");
	} else if (r < 0) {
		fslab_warn("%s: device probe failed (%s); its cells get no page-cache flag", fs->name,
			   run_esc(fs->probe.note));
	} else if (strcmp(fs->probe.method, "o_direct") != 0) {
		fslab_warn("%s: %s", fs->name, run_esc(fs->probe.note));
	}
	if (fs->fuse)
		fslab_warn("%s is mounted through FUSE (%s): its figures are flagged 'fuse' and are not comparable to kernel drivers",
			   fs->name, fs->type);
}

/* After the sweep (r: its result): the interruption or the finish time,
 * the final manifest, the CSVs and the directory made durable, the tally.
 * Returns the run's exit status. */
static int run_end(struct fslab_run_ctx *c, struct fslab_progress *prog, int r, bool failed)
{
	uint64_t n_failed = 0;
	int e;

	fslab_progress_clear(prog);
	if (run_stop) {
		c->interrupted = true;
		fslab_error("interrupted: the finished cells are in %s; continue with: fslab run --resume %s",
			    run_esc(c->out_dir), run_esc(c->out_dir));
		failed = true;
	} else {
		run_utc_now(c->finished_at, sizeof(c->finished_at), false);
	}
	e = fslab_manifest_write(c);
	if (e < 0) {
		fslab_error("cannot write %s/manifest.json: %s", run_esc(c->out_dir), strerror(-e));
		failed = true;
	}
	if (run_close_csvs(c) < 0)
		failed = true;
	for (size_t i = 0; i < c->n_fs; i++)
		n_failed += c->fs[i].cells_failed;
	if (n_failed)
		fslab_error("%llu cell(s) failed; their rows in %s say why",
			    (unsigned long long)n_failed, run_esc(c->out_dir));
	fslab_progress_note(prog, "%s: done: %s", fslab_log_prefix(), run_esc(c->out_dir));
	return (r < 0 || failed) ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
}

static void run_fs_state_free(struct run_fs_state *fst, size_t n)
{
	if (!fst)
		return;
	for (size_t i = 0; i < n; i++) {
		fslab_done_free(&fst[i].done);
		fslab_resume_csv_free(&fst[i].csv);
	}
	free(fst);
}

int fslab_run(const struct fslab_run_opts *o)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct run_fs_state *fst = NULL;
	struct fslab_progress *prog = NULL;
	struct fslab_plan plan = { 0 };
	struct run_signals sig = { 0 };
	bool failed = false;
	struct fslab_lab *lab = o->lab;
	int ret = FSLAB_EXIT_FAILURE, r;

	if (!c)
		return FSLAB_EXIT_FAILURE;
	run_stop = 0;
	run_continued = 0;
	c->argc = o->argc;
	c->argv = o->argv;
	c->sessions = 1;
	ret = run_begin(c, o, &lab);
	if (ret != FSLAB_EXIT_OK)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	r = fslab_plan_build(&c->sweep, &plan);
	if (r < 0) {
		fslab_error(r == -ENOMEM ? "out of memory" : "the sweep has no cell to run");
		goto out;
	}
	fst = calloc(c->n_fs, sizeof(*fst));
	if (!fst)
		goto out;
	for (size_t i = 0; i < c->n_fs; i++)
		fst[i].csv.fd = -1;
	if (o->resume_dir ? run_check_resume_csvs(c, &plan, fst) < 0 : run_prepare_out(c, o) < 0)
		goto out;
	if (o->out_dir_used && o->out_dir_used_len)
		snprintf(o->out_dir_used, o->out_dir_used_len, "%s", c->out_dir);

	prog = fslab_progress_new(stderr, o->stage, o->quiet);
	if (!prog)
		goto out;
	if (o->pipeline)
		fslab_progress_set_pipeline(prog, o->pipeline->elapsed_before_s,
					    o->pipeline->remaining_after_s);
	run_signals_install(&sig);
	for (size_t i = 0; i < c->n_fs; i++) {
		if (run_fs_ready(c, &c->fs[i], lab) < 0)
			goto out;
		if (!o->resume_dir)
			run_fs_probe(c, &c->fs[i], prog);
	}

	/* The manifest first: a run killed before it has no CSV either, and
	 * once it exists --resume knows everything. */
	r = fslab_manifest_write(c);
	if (r < 0) {
		fslab_error("cannot write %s/manifest.json: %s", run_esc(c->out_dir), strerror(-r));
		goto out;
	}
	if (run_open_csvs(c, fst) < 0 || run_marker_record_csvs(c) < 0)
		goto out;

	fslab_progress_note(prog, "%s: %zu filesystem(s), %zu file x record cells x %d tests, %s cache, %u trial(s)%s; results in %s",
			    fslab_log_prefix(), c->n_fs, plan.n, __builtin_popcount(c->sweep.tests),
			    fslab_cache_mode_to_string(c->sweep.cache), c->sweep.trials,
			    c->until_ci_pct > 0 ? " (more until the CI is narrow enough)" : "",
			    run_esc(c->out_dir));
	run_seed_eta(c, &plan, prog);
	r = run_sweep(c, &plan, fst, prog, &failed);
	ret = run_end(c, prog, r, failed);
out:
	run_signals_restore(&sig);
	run_fs_state_free(fst, c->n_fs);
	fslab_progress_free(prog);
	fslab_plan_free(&plan);
	run_ctx_free(c);
	if (lab != o->lab)
		fslab_lab_close(lab);
	free(c);
	return ret;
}
