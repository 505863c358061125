/* The sweep, in randomized blocks (a block: one cell of one trial):
 *
 *   for trial in 1..T
 *     for (file, record) in plan              (IOzone's order; cell i)
 *       for fs in shuffle(filesystems, seed, trial) rotated left by i
 *         fslab_cell_run(): the cell's tests, one CSV row appended and
 *         flushed after each
 *
 * So a cell's filesystems run back to back and the machine's drift falls
 * on them alike (docs/run.md, "The order of the cells").  A cell (fs, test, file, record,
 * trial) already in the CSV is skipped (--resume); past the minimum, the
 * decided rule (run_stop.c) runs only the tests still open, and
 * --until-ci runs a cell until every test's interval is narrow enough.
 * A FUSE filesystem runs the FUSE plan: files up to RUN_FUSE_FILE_MAX,
 * the minimum trials.  SIGINT/SIGTERM stop after the test in flight; a
 * test timed across a SIGSTOP is run again (SIGCONT says the process was
 * stopped). */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "results.h"
#include "size.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

struct run_group_ctx {
	struct fslab_run_ctx *c;
	struct fslab_bench_fs *fs;
	struct run_fs_state *fst;
	struct fslab_progress *prog;
	const struct fslab_sweep_cell *cell;
	double *work; /* the sweep's work done (the model's seconds) */
	double t_last; /* when the last row of this group was written (or the group began) */
	unsigned trial;
	bool failed;
};

/* Appends word to a row's flags, ';' between two. */
static void run_flag_add(char *flag, size_t len, const char *word)
{
	size_t n = strlen(flag);

	snprintf(flag + n, len - n, "%s%s", n ? ";" : "", word);
}

/* Under FSLAB_DEVICE_SHARE of the pass's bytes reached the device: the
 * page cache served (a read) or held (a write by its timer's stop) the
 * rest. */
#define FSLAB_DEVICE_SHARE 0.9

void run_flag(const struct fslab_bench_fs *fs, enum fslab_cache_mode cache, enum fslab_test t,
	      const struct fslab_test_outcome *o, char *flag, size_t len)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	double dev = (bt->flags & FSLAB_BT_WRITES) ? fs->probe.write_kib_s : fs->probe.read_kib_s;
	const double io = (double)o->io_bytes * FSLAB_DEVICE_SHARE;
	/* dev: the fastest of the probes, an upper bound on the device one
	 * request at a time; not on a queued test's O_DIRECT requests, which
	 * overlap at the device and bypass the page cache; nor on a
	 * many-files test that moves no data (stat, unlink) */
	const bool exempt = ((bt->flags & FSLAB_BT_QUEUED) && cache != FSLAB_CACHE_WARM) ||
			    (bt->flags & FSLAB_BT_METADATA);
	const bool beyond = !exempt && dev > 0 && o->throughput_kib_s > FSLAB_PAGE_CACHE_FACTOR * dev;

	flag[0] = '\0';
	/* with the device's counters the facts say it; the probe's bound is
	 * then a second, independent check */
	if (!exempt && o->has_dev &&
	    (((bt->flags & FSLAB_BT_READS) && (double)o->dev_read_bytes < io) ||
	     ((bt->flags & FSLAB_BT_WRITES) && (double)o->dev_write_timed_bytes < io)))
		run_flag_add(flag, len, FSLAB_FLAG_PAGE_CACHE);
	if (beyond)
		run_flag_add(flag, len, o->has_dev ? FSLAB_FLAG_BEYOND_DEVICE : FSLAB_FLAG_PAGE_CACHE);
	/* direct mode: the stdio tests ran buffered (IOzone -I does the same);
	 * warm mode: the queued tests ran buffered, not with their O_DIRECT */
	if ((cache == FSLAB_CACHE_DIRECT && (bt->flags & FSLAB_BT_STDIO)) ||
	    (cache == FSLAB_CACHE_WARM && (bt->flags & FSLAB_BT_QUEUED)))
		run_flag_add(flag, len, FSLAB_FLAG_BUFFERED);
	if (fs->rec.fuse)
		run_flag_add(flag, len, FSLAB_FLAG_FUSE);
	/* an image whose loop device reads it through the host's page cache */
	if (strcmp(fs->rec.loop_io, "buffered") == 0)
		run_flag_add(flag, len, FSLAB_FLAG_BUFFERED_LOOP);
	/* cold, fsync and direct promise the device; tmpfs and ramfs have
	 * none, so what they measure there is memory */
	if (cache != FSLAB_CACHE_WARM && (strcmp(fs->rec.type, "tmpfs") == 0 || strcmp(fs->rec.type, "ramfs") == 0))
		run_flag_add(flag, len, FSLAB_FLAG_MEMORY);
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

/* Has fs gone away (unmounted, its disk pulled, gone read-only)?  Said
 * once, when first seen.  With need_workdir a lost private directory (a
 * cold-mode reopen that failed) counts too. */
static bool run_fs_vanished(struct fslab_bench_fs *fs, struct fslab_progress *prog, bool need_workdir)
{
	int vr = -ENOENT;

	if (fs->rec.vanished)
		return true;
	if ((!need_workdir || fs->work_fd >= 0) && (vr = fslab_fsinfo_check(fs)) >= 0)
		return false;
	fs->rec.vanished = true;
	fslab_progress_clear(prog);
	fslab_note(FSLAB_NOTE_ERROR, "%s: %s is no longer the filesystem this run started on (%s); its remaining cells are recorded as failed, and --resume runs them once it is back",
		    fs->rec.name, fslab_esc(fs->rec.path), run_vanished_why(vr));
	return true;
}

/* The row's status (and its count in fs): ok, skipped or failed.  A test
 * that failed because its filesystem went away counts as vanished, so
 * --resume runs it again. */
static void run_row_status(struct run_group_ctx *g, const struct fslab_test_outcome *o,
			   struct fslab_result_row *row)
{
	struct fslab_bench_fs *fs = g->fs;
	const char *vanished_reason = FSLAB_VANISHED_REASON;

	switch (o->status) {
	case FSLAB_OUTCOME_OK:
		row->throughput_kib_s = o->throughput_kib_s;
		row->elapsed_s = o->elapsed_s;
		snprintf(row->status, sizeof(row->status), "ok");
		run_flag(fs, g->c->cfg.sweep.cache, row->test, o, row->flag, sizeof(row->flag));
		row->io_bytes = (int64_t)o->io_bytes;
		if (o->has_dev) {
			row->dev_read_bytes = (int64_t)o->dev_read_bytes;
			row->dev_write_bytes = (int64_t)o->dev_write_bytes;
			row->dev_write_timed_bytes = (int64_t)o->dev_write_timed_bytes;
		}
		fs->rec.cells_ok++;
		return;
	case FSLAB_OUTCOME_SKIPPED:
		snprintf(row->status, sizeof(row->status), "skipped: %s", o->reason);
		fs->rec.cells_skipped++;
		return;
	default:
		break;
	}
	if (run_fs_vanished(fs, g->prog, false) &&
	    strncmp(o->reason, vanished_reason, strlen(vanished_reason)) != 0)
		snprintf(row->status, sizeof(row->status), "%s (during the test: %.180s)",
			 FSLAB_VANISHED_STATUS, o->reason);
	else
		snprintf(row->status, sizeof(row->status), "failed: %s",
			 o->reason[0] ? o->reason : "unknown error");
	fs->rec.cells_failed++;
	g->failed = true;
}

/* The row's flags besides page-cache and buffered: fuse, and the passes
 * thrown away (stopped, disturbed). */
static void run_row_flags(const struct fslab_bench_fs *fs, const struct fslab_test_outcome *o,
			  struct fslab_result_row *row)
{
	if (o->status != FSLAB_OUTCOME_OK && fs->rec.fuse)
		run_flag_add(row->flag, sizeof(row->flag), FSLAB_FLAG_FUSE);
	if (o->redone)
		run_flag_add(row->flag, sizeof(row->flag), FSLAB_FLAG_REDONE_STOPPED);
	if (o->redone_slow)
		run_flag_add(row->flag, sizeof(row->flag), FSLAB_FLAG_REDONE_SLOW);
}

/* The key of test t's row in cell (resume's done set): a queued test
 * carries the cell's depth and threads, every other test 1 and 1, as its
 * CSV row (run_write_row). */
static struct fslab_cell_key run_key(const struct fslab_sweep_cell *cell, enum fslab_test t,
				     unsigned trial)
{
	bool queued = fslab_test_family(t) == FSLAB_FAMILY_QUEUED;

	return (struct fslab_cell_key){
		.test = t,
		.file_kib = cell->file_bytes / 1024,
		.record_kib = cell->record_bytes / 1024,
		.iodepth = queued && cell->iodepth ? cell->iodepth : 1,
		.jobs = queued && cell->jobs ? cell->jobs : 1,
		.trial = trial,
	};
}

/* The CSVs carry the queue columns (lib/results.h) when the plan holds a
 * test of the queued or many-files families. */
static bool run_queue_columns(const struct fslab_run_ctx *c)
{
	return (c->cfg.sweep.tests & ~FSLAB_TESTS_IOZONE) != 0;
}

/* One test's outcome: its CSV row (appended and synced at once), the
 * done set, and a step of progress (the cell's on_test; ctx: the group). */
static void run_write_row(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	struct run_group_ctx *g = ctx;
	struct fslab_bench_fs *fs = g->fs;
	struct fslab_result_row row = {
		.test = t,
		.file_kib = g->cell->file_bytes / 1024,
		.record_kib = g->cell->record_bytes / 1024,
		.trial = g->trial,
		.cache = g->c->cfg.sweep.cache,
		.elapsed_s = -1,
		.latency = g->c->cfg.latency,
		.queue = run_queue_columns(g->c),
		.iodepth = 1,
		.jobs = 1,
		.iops = o->status == FSLAB_OUTCOME_OK && o->ops_s > 0 ? o->ops_s : -1,
		.device = fs->csv_device,
		.io_bytes = -1, .dev_read_bytes = -1, .dev_write_bytes = -1, .dev_write_timed_bytes = -1,
	};
	int r;

	struct fslab_cell_key key = run_key(g->cell, t, g->trial);

	row.iodepth = key.iodepth;
	row.jobs = key.jobs;
	for (int i = 0; i < FSLAB_LAT_N; i++)
		row.lat_us[i] = o->has_latency ? o->lat_us[i] : -1;
	if (row.iops < 0 && o->status == FSLAB_OUTCOME_OK && row.record_kib && o->throughput_kib_s > 0)
		row.iops = o->throughput_kib_s / (double)row.record_kib;

	snprintf(row.filesystem, sizeof(row.filesystem), "%s", fs->rec.name);
	run_row_status(g, o, &row);
	run_row_flags(fs, o, &row);
	/* measured while the drive was hot (run_steady.c watches it) */
	if (o->status == FSLAB_OUTCOME_OK && run_drive_hot(fs))
		run_flag_add(row.flag, sizeof(row.flag), FSLAB_FLAG_THERMAL);
	/* on the disk within the journal's window (lib/results.h) */
	r = fslab_results_append_row(fs->csv, &row, &fs->csv_synced_ns);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "cannot append to %s/%s.csv: %s", fslab_esc(g->c->out_dir), fs->rec.name, strerror(-r));
		g->failed = true;
		run_stop = 1;
	}
	fslab_done_add(&g->fst->done, &key, fslab_result_use(&row), row.throughput_kib_s);
	if (o->status == FSLAB_OUTCOME_FAILED)
		fslab_debug(FSLAB_DBG_BENCH, "%s %s %lluK/%lluK trial %u: %s", fs->rec.name,
			    fslab_test_to_string(t), (unsigned long long)row.file_kib,
			    (unsigned long long)row.record_kib, g->trial, row.status);
	/* the row's share of the plan, in the cost model's seconds */
	double w = o->status == FSLAB_OUTCOME_SKIPPED ? 0 : run_cost_s(g->c, fs, g->cell, 1u << t);

	*g->work += w;
	fslab_progress_add_work(g->prog, w);
	fslab_progress_step(g->prog, &(struct fslab_progress_item){
		.filesystem = fs->rec.name,
		.test = fslab_test_to_string(t),
		.file_bytes = g->cell->file_bytes,
		.record_bytes = g->cell->record_bytes,
		.throughput_kib_s = o->status == FSLAB_OUTCOME_OK ? o->throughput_kib_s : -1,
	});
}

/* What a cell could not clean up: a warning, the run goes on. */
static void run_cell_warn(const struct fslab_err *e)
{
	fslab_note_warn("%s", e->msg);
}

/* A pass more than FSLAB_DISTURBED_FACTOR x slower than the median of the
 * same test's earlier trials of this file x record cell was disturbed: the
 * engine runs it again.  kib_s is counted as its row would be (a
 * many-files pass by its files' bytes, not one file's), so it compares
 * with the rows' samples. */
static bool run_disturbed(void *ctx, enum fslab_test t, double kib_s)
{
	struct run_group_ctx *g = ctx;
	double samples[FSLAB_TRIALS_MAX], median;
	size_t n;

	/* a pass of a fixed length (CrystalDiskMark's) takes that long
	 * whatever it moved: its time says nothing of a disturbance */
	if (g->cell->pass_s > 0)
		return false;
	struct fslab_cell_key key = run_key(g->cell, t, 0);

	n = fslab_done_samples(&g->fst->done, &key, samples, FSLAB_TRIALS_MAX);
	if (n == 0 || kib_s <= 0)
		return false;
	median = fslab_median_sort(samples, n);
	return median > 0 && kib_s * FSLAB_DISTURBED_FACTOR < median;
}

/* --until-ci: has every test of this file x record cell converged? */
static bool run_group_converged(const struct fslab_run_ctx *c, const struct fslab_done_set *d,
				const struct fslab_sweep_cell *cell)
{
	double samples[FSLAB_TRIALS_MAX];

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(c->cfg.sweep.tests & (1u << t)) || (cell->tests && !(cell->tests & (1u << t))))
			continue;
		struct fslab_cell_key key = run_key(cell, (enum fslab_test)t, 0);
		size_t n = fslab_done_samples(d, &key, samples, FSLAB_TRIALS_MAX);
		if (n == 0)
			continue; /* never ok (failed or skipped): repeating will not help */
		if (!fslab_ci_within(samples, n, c->cfg.until_ci_pct))
			return false;
	}
	return true;
}

/* Does the FUSE plan leave this cell out on fs (docs/run.md)? */
static bool run_fuse_skips(const struct fslab_bench_fs *fs, const struct fslab_sweep_cell *cell)
{
	return fs->rec.fuse && cell->file_bytes > RUN_FUSE_FILE_MAX;
}

/* Tests of one file x record cell a trial runs on fs by the stopping rule
 * (whether or not they ran already: --resume).  A FUSE filesystem runs
 * the minimum trials only. */
static unsigned run_group_wanted(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
				 const struct fslab_done_set *d, const struct fslab_sweep_cell *cell,
				 unsigned trial)
{
	/* a named row (CrystalDiskMark's) runs its own tests of the sweep's */
	unsigned own = cell->tests ? cell->tests & c->cfg.sweep.tests : c->cfg.sweep.tests;

	if (fs->rec.fuse && trial > c->cfg.sweep.trials)
		return 0;
	if (c->cfg.until_ci_pct > 0 && trial > c->cfg.sweep.trials && run_group_converged(c, d, cell))
		return 0;
	/* the decided rule: past the minimum, only the tests still open */
	if (c->stops && trial > c->cfg.sweep.trials)
		return run_stop_mask(c, (size_t)(cell - c->plan->cells)) & own;
	return own;
}

/* Tests of one file x record cell still to run in a trial. */
static unsigned run_group_todo(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
			       const struct fslab_done_set *d, const struct fslab_sweep_cell *cell,
			       unsigned trial)
{
	unsigned mask = 0, wanted = run_group_wanted(c, fs, d, cell, trial);

	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (wanted & (1u << t)) {
			struct fslab_cell_key key = run_key(cell, (enum fslab_test)t, trial);

			if (!fslab_done_has(d, &key))
				mask |= 1u << t;
		}
	return mask;
}

/* Tests still to run in a trial, over every filesystem, their cost (the
 * model's seconds) added to *work; with open, a trial past the minimum of
 * the tests still open (before it: all but FUSE's) added to it, and
 * whether any test is wanted (run or not) in *wanted. */
static uint64_t run_count_todo(const struct fslab_run_ctx *c, struct run_fs_state *fst,
			       const struct fslab_plan *plan, unsigned trial, double *work, double *open,
			       bool *wanted)
{
	unsigned past = (trial > c->cfg.sweep.trials ? trial : c->cfg.sweep.trials) + 1;
	uint64_t n = 0;

	for (size_t f = 0; f < c->n_fs; f++)
		for (size_t i = 0; i < plan->n; i++) {
			unsigned todo = run_group_todo(c, &c->fs[f], &fst[f].done, &plan->cells[i], trial);
			bool fuse = c->fs[f].rec.fuse;

			n += (unsigned)__builtin_popcount(todo);
			if (open)
				*wanted |= run_group_wanted(c, &c->fs[f], &fst[f].done, &plan->cells[i], trial) != 0;
			if (run_fuse_skips(&c->fs[f], &plan->cells[i]))
				continue; /* costs nothing */
			*work += run_cost_s(c, &c->fs[f], &plan->cells[i], todo);
			if (open)
				*open += run_cost_s(c, &c->fs[f], &plan->cells[i],
					    trial <= c->cfg.sweep.trials && !fuse ? c->cfg.sweep.tests
					    : run_group_wanted(c, &c->fs[f], &fst[f].done, &plan->cells[i], past));
		}
	return n;
}

/* The CSVs, ready to append to: on resume the ones run_resume_check
 * validated (now cut or rewritten as it found necessary), else new files
 * created O_EXCL in the results directory (a name already taken, a symlink
 * included, is refused, never written through). */
int run_open_csvs(struct fslab_run_ctx *c, struct run_fs_state *fst)
{
	char name[FSLAB_FS_NAME_MAX + 8];
	struct fslab_err err = FSLAB_ERR_INIT;
	struct stat st;
	bool device = false; /* the device columns: a filesystem has counters */
	int r, fd;

	for (size_t i = 0; i < c->n_fs; i++)
		device |= c->fs[i].rec.device_counters[0] != '\0';
	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];

		snprintf(name, sizeof(name), "%s.csv", fs->rec.name);
		r = fslab_resume_apply(c->out_fd, fs->rec.name, &fst[i].csv, &err);
		if (r < 0) {
			fslab_note(FSLAB_NOTE_ERROR, "%s/%s", fslab_esc(c->out_dir), fslab_err_msg(&err));
			return r;
		}
		fd = fst[i].csv.fd;
		fst[i].csv.fd = -1;
		if (fd < 0) {
			fd = fslab_create_at(c->out_fd, name, O_WRONLY | O_APPEND, 0644);
			if (fd < 0)
				return run_note_errno(fd, "cannot create %s/%s%s", fslab_esc(c->out_dir), name,
							 fd == -EEXIST ? " (something took that name since the run checked)" : "");
		} else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_APPEND) < 0) {
			r = -errno;
			close(fd);
			return run_note_errno(r, "%s/%s", fslab_esc(c->out_dir), name);
		}
		fs->csv = fdopen(fd, "a");
		if (!fs->csv) {
			r = -errno;
			close(fd);
			return run_note_errno(r, "cannot open %s/%s", fslab_esc(c->out_dir), name);
		}
		/* a resumed CSV keeps its columns */
		fs->csv_device = fst[i].csv.device;
		if (fstat(fileno(fs->csv), &st) == 0 && st.st_size == 0) {
			fs->csv_device = device;
			r = fslab_results_write_header_ex(fs->csv,
							  (run_queue_columns(c) ? FSLAB_RESULTS_COLS_QUEUE : 0) |
								  (c->cfg.latency ? FSLAB_RESULTS_COLS_LATENCY : 0) |
								  (device ? FSLAB_RESULTS_COLS_DEVICE : 0));
			if (fflush(fs->csv) != 0)
				r = -errno;
			if (r < 0)
				return run_note_errno(r, "cannot write %s/%s", fslab_esc(c->out_dir), name);
		}
	}
	return 0;
}

/* The end of a run: each CSV flushed, fsync'ed and closed, then the
 * results directory fsync'ed (the names of the CSVs and the manifest in
 * it), each checked: rows lost on their way to the disk make a failed
 * run, never a quiet one.  0 or the first -errno, said. */
int run_close_csvs(struct fslab_run_ctx *c)
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
			run_note_errno(r, "cannot write %s/%s.csv to the disk", fslab_esc(c->out_dir), fs->rec.name);
	}
	/* EINVAL: a filesystem that cannot sync a directory (nothing to wait for) */
	if (c->out_fd >= 0 && fsync(c->out_fd) < 0 && errno != EINVAL) {
		r = run_note_errno(errno, "cannot flush the results directory %s to the disk",
				      fslab_esc(c->out_dir));
		if (ret == 0)
			ret = r;
	}
	return ret;
}

/* What the sweep carries from cell to cell. */
struct run_sweep_state {
	struct fslab_bench_buffers buf; /* sized for cur_record */
	uint64_t cur_record;
	double session_start, wall_before, manifest_at;
	struct fslab_progress *prog;
	double work; /* the rows' work so far (the model's seconds) */
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
	struct fslab_test_outcome o = { .status = FSLAB_OUTCOME_FAILED };

	if (run_fs_vanished(fs, g->prog, true)) {
		if (g->trial > c->cfg.sweep.trials)
			return true; /* --until-ci's trials: nothing to sample */
		snprintf(o.reason, sizeof(o.reason), "%s", FSLAB_VANISHED_REASON);
		run_write_rows(g, mask, &o);
		g->failed = true;
		return true;
	}
	if (!fs->rec.fuse || (c->cfg.sweep.cache != FSLAB_CACHE_DIRECT && !run_fuse_skips(fs, g->cell)))
		return false;
	/* O_DIRECT on a FUSE mount bypasses only the FUSE file's cache: the
	 * daemon (fusefat) still reads and writes the device through the page
	 * cache, so the figures would not be the device's (and fusefat fails
	 * O_DIRECT reads inside a file's last cluster with EPERM) */
	o.status = FSLAB_OUTCOME_SKIPPED;
	snprintf(o.reason, sizeof(o.reason), "%s", run_fuse_skips(fs, g->cell)
		 ? "FUSE plan (files up to " RUN_FUSE_FILE_MAX_TEXT " on a FUSE mount, which costs several times a kernel filesystem's time)"
		 : "direct mode on a FUSE mount does not reach the device (the FUSE daemon reads it through the page cache)");
	run_write_rows(g, mask, &o);
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
		return run_note_errno(ENOMEM, "cannot allocate %llu bytes of record buffers",
					 (unsigned long long)record_bytes * 2);
	sw->cur_record = record_bytes;
	return 0;
}

/* CrystalDiskMark's discarded warm-up: a named row with passes of a fixed
 * length (plan cell i) runs its tests once before its first measured pass
 * on each filesystem (once a session: a resumed run warms up again), the
 * outcomes dropped; the manifest records how many such passes there were
 * (sweep.warmup_passes_discarded).  Its time counts as the filesystem's
 * wall time only. */
static void run_warm_up(struct run_fs_state *fs_st, struct fslab_cell cell, size_t i,
			struct fslab_bench_buffers *buf, struct fslab_cell_times *times)
{
	struct fslab_test_outcome out[FSLAB_TEST_MAX];

	if (cell.pass_s <= 0 || i >= 64 || (fs_st->warmed & (UINT64_C(1) << i)))
		return;
	fs_st->warmed |= UINT64_C(1) << i;
	cell.on_test = NULL; /* the outcomes are discarded: no row, no sample */
	cell.disturbed = NULL;
	for (int k = 0; k < FSLAB_CDM_WARMUP_PASSES && !run_stop; k++)
		fslab_cell_run(&cell, buf, out, times);
	memset(times, 0, sizeof(*times));
}

/* A calibration cell's test (trial 0): its wall time prices it. */
static void run_calibrated_row(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	struct run_group_ctx *g = ctx;
	double now = fslab_now();

	if (o->status == FSLAB_OUTCOME_OK)
		run_cost_calibrated(g->fs, g->c, g->cell, t, now - g->t_last);
	g->t_last = now;
}

/* One file x record cell of one trial on fs: the tests in mask, one row
 * each (trial 0: a calibration cell, no row).  0, or -ENOMEM (the sweep
 * stops). */
static int run_group(struct fslab_run_ctx *c, struct run_sweep_state *sw, struct fslab_bench_fs *fs,
		     struct run_fs_state *fs_st, const struct fslab_sweep_cell *cell, unsigned mask,
		     unsigned trial)
{
	struct run_group_ctx g = {
		.c = c, .fs = fs, .fst = fs_st, .prog = sw->prog, .cell = cell, .trial = trial,
		.work = &sw->work, .t_last = fslab_now(),
	};
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	double g0 = g.t_last;
	int r;

	if (cell->tests)
		mask &= cell->tests;
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
		.sweep = &c->cfg.sweep,
		.io = c->cfg.io_mode,
		.sync = c->cfg.sync_policy,
		.file_sync = c->cfg.file_sync,
		.keep_tree_dirs = fs->rec.fuse,
		/* a lab partition's block device (its target); --dir: none
		 * known, syncfs only */
		.device = fs->t->lab ? fs->t->device : NULL,
		.dev_stat = fs->rec.device_counters,
		.ops = &fslab_io_posix,
		.drop_cache = fslab_cache_drop,
		.drop_ctx = &fs->cache,
		.warn = run_cell_warn,
		.on_test = trial ? run_write_row : run_calibrated_row,
		.on_test_ctx = &g,
		.stop = &run_stop,
		.continued = &run_continued,
		.disturbed = trial ? run_disturbed : NULL,
		.latency = c->cfg.latency,
		.pass_gap_s = c->cfg.pass_gap_ms / 1000.0,
		.disturbed_ctx = &g,
		.iodepth = cell->iodepth,
		.jobs = cell->jobs,
		.pass_s = cell->pass_s,
	};
	if (trial)
		run_warm_up(g.fst, engine_cell, (size_t)(cell - c->plan->cells), &sw->buf, &times);
	fslab_cell_run(&engine_cell, &sw->buf, out, &times);
	fs->rec.timed_s += times.timed_s;
	fs->rec.untimed_io_s += times.untimed_io_s;
	fs->rec.cache_drop_s += times.cache_drop_s;
	fs->rec.wall_s += fslab_now() - g0;
	if (g.failed)
		*sw->failed = true;
	return 0;
}

void run_calibrate(struct fslab_run_ctx *c)
{
	const struct fslab_sweep_spec *s = &c->cfg.sweep;
	const uint64_t f4 = s->file_max < 4 * FSLAB_MiB ? s->file_max : 4 * FSLAB_MiB;
	const unsigned io = s->tests & ~FSLAB_TESTS_FILES;
	/* a test's fixed part; per record; per file of a tree */
	const struct fslab_sweep_cell cells[] = {
		{ .file_bytes = 64 * FSLAB_KiB, .record_bytes = 64 * FSLAB_KiB, .tests = io, .iodepth = s->iodepth, .jobs = s->jobs },
		{ .file_bytes = f4, .record_bytes = s->record_min < f4 ? s->record_min : f4, .tests = io, .iodepth = s->iodepth, .jobs = s->jobs },
		{ .file_bytes = f4, .record_bytes = s->record_max < f4 ? s->record_max : f4, .tests = s->tests & FSLAB_TESTS_FILES },
	};
	bool failed = false;
	struct run_sweep_state sw = { .failed = &failed };

	for (size_t f = 0; f < c->n_fs && !fslab_preset_named_rows(s->named_rows); f++)
		for (size_t k = 0; k < 3 && !run_stop; k++)
			if (cells[k].tests && !(c->fs[f].rec.fuse && s->cache == FSLAB_CACHE_DIRECT) &&
			    !run_fs_vanished(&c->fs[f], NULL, true))
				run_group(c, &sw, &c->fs[f], NULL, &cells[k], cells[k].tests, 0);
	fslab_bench_buffers_free(&sw.buf);
}

/* The manifest brought up to date (checked: --resume trusts it). */
static void run_manifest_now(struct fslab_run_ctx *c, struct run_sweep_state *sw)
{
	int r;

	sw->manifest_at = fslab_now();
	c->wall_s = sw->wall_before + (sw->manifest_at - sw->session_start);
	r = fslab_manifest_write(c);
	if (r < 0) {
		fslab_progress_clear(sw->prog);
		fslab_note(FSLAB_NOTE_ERROR, "cannot update %s/manifest.json: %s; the run goes on, but --resume may redo cells",
			    fslab_esc(c->out_dir), strerror(-r));
		*sw->failed = true;
	}
}

/* One block: cell i of one trial on each filesystem, in the trial's order
 * rotated left by i (the drive's watch begins at a filesystem's first
 * block of the trial: ran); then the manifest, if RUN_MANIFEST_EVERY_S
 * passed (its fsync, on the disk under test or beside it, would disturb
 * the next block), and, off a terminal, a line of progress. */
static int run_block(struct fslab_run_ctx *c, struct run_sweep_state *sw, struct run_fs_state *fst,
		     const struct fslab_plan *plan, size_t i, unsigned trial, const size_t *order, bool *ran)
{
	double t0 = fslab_now();
	bool any = false;

	for (size_t k = 0; k < c->n_fs && !run_stop; k++) {
		size_t f = order[(k + i) % c->n_fs];
		unsigned mask = run_group_todo(c, &c->fs[f], &fst[f].done, &plan->cells[i], trial);
		int r;

		if (!mask)
			continue;
		if (!ran[f])
			run_drive_before(&c->fs[f], trial, c->sessions);
		ran[f] = any = true;
		fslab_debug(FSLAB_DBG_BENCH, "block: trial %u cell %zu %s", trial, i + 1, c->fs[f].rec.name);
		r = run_group(c, sw, &c->fs[f], &fst[f], &plan->cells[i], mask, trial);
		if (r < 0)
			return r;
	}
	if (!any)
		return 0;
	if (fslab_now() - sw->manifest_at >= RUN_MANIFEST_EVERY_S)
		run_manifest_now(c, sw);
	if (!fslab_progress_is_tty(sw->prog)) {
		char eta[80];
		double lo = -1, hi = -1, point = -1;

		/* machine-readable too (scripts/bench-eta.sh reads eta_s=) */
		fslab_progress_eta_range(sw->prog, &lo, &point, &hi);
		fslab_progress_note(sw->prog, "%s%strial %u/%u  cell %zu/%zu in %.1f s; %.0f%% of the plan done, ETA %s (eta_s=%.1f eta_lo_s=%.1f eta_hi_s=%.1f done_pct=%.1f)",
				    fslab_log_prefix(), ": ", trial, c->cfg.max_trials, i + 1, plan->n,
				    fslab_now() - t0, floor(fslab_progress_done_pct(sw->prog)),
				    fslab_progress_format_eta(sw->prog, eta, sizeof(eta)), point, lo, hi,
				    fslab_progress_done_pct(sw->prog));
	}
	return 0;
}

/* The progress at the start of a trial: the work left (the model's
 * seconds) of this trial and the minimum trials still to come, and of
 * the trials past the minimum up to the cap as the first estimate counts
 * them (RUN_COST_PAST_MIN), none of them, all of them.  False when the stopping rule has nothing left (every test decided or
 * given up, every cell converged). */
static bool run_trial_progress(const struct fslab_run_ctx *c, struct run_fs_state *fst,
			       const struct fslab_plan *plan, unsigned trial, struct fslab_progress *prog,
			       double work)
{
	unsigned past = trial > c->cfg.sweep.trials ? trial : c->cfg.sweep.trials;
	double left = 0, open = 0;
	bool wanted = false;
	uint64_t todo = run_count_todo(c, fst, plan, trial, &left, &open, &wanted);

	/* a trial whose wanted tests all ran already (a resumed run) is not
	 * the end: the trials after it may still be wanted */
	if (todo == 0 && trial > c->cfg.sweep.trials && !wanted)
		return false;
	for (unsigned t = trial + 1; t <= c->cfg.sweep.trials; t++)
		run_count_todo(c, fst, plan, t, &left, NULL, NULL);
	open *= c->cfg.max_trials > past ? c->cfg.max_trials - past : 0;
	fslab_progress_set_work(prog, work + left + open / RUN_COST_PAST_MIN, work);
	fslab_progress_set_work_range(prog, work + left, work + left + open);
	return true;
}

int run_sweep(struct fslab_run_ctx *c, const struct fslab_plan *plan,
	      struct run_fs_state *fst, struct fslab_progress *prog, bool *failed)
{
	struct run_sweep_state sw = {
		.session_start = fslab_now(), .wall_before = c->wall_s, .manifest_at = fslab_now(), .prog = prog,
		.failed = failed,
	};
	size_t order[FSLAB_MAX_FS];
	unsigned done = 0;
	int r = run_stop_begin(c, plan);
	double t0 = fslab_now();

	for (unsigned trial = 1; trial <= c->cfg.max_trials && !run_stop && r == 0; trial++) {
		double now = fslab_now(), took = now - t0, so_far = sw.wall_before + (now - sw.session_start);

		/* every filesystem's trials so far are known: judge them */
		run_stop_update(c, fst, trial - 1, false);
		if (!run_trial_progress(c, fst, plan, trial, prog, sw.work))
			break; /* --until-ci or decided: nothing left open */
		/* the band look's trials, within its budget */
		if (c->stops && trial > run_stop_cell_cap(c) && so_far + took > FSLAB_STOP_BAND_BUDGET_S) {
			fslab_progress_note(prog, "%s: trial %u not started: the run took %.0f min and a trial %.0f min, and the band look's budget is %d min",
					    fslab_log_prefix(), trial, so_far / 60, took / 60, FSLAB_STOP_BAND_BUDGET_S / 60);
			break;
		}
		t0 = now;
		bool ran[FSLAB_MAX_FS] = { false };

		fslab_sweep_trial_order(c->cfg.sweep.seed, c->cfg.sweep.shuffle, trial, c->n_fs, order);
		for (size_t i = 0; i < plan->n && !run_stop && r == 0; i++)
			r = run_block(c, &sw, fst, plan, i, trial, order, ran);
		/* each filesystem that ran: its drive's reading, its quiet wait */
		for (size_t f = 0; f < c->n_fs && r == 0; f++)
			if (ran[f]) {
				run_drive_after(&c->fs[f], prog);
				run_quiet_after(&c->fs[f], prog);
			}
		if (r == 0)
			run_manifest_now(c, &sw);
		if (!run_stop && r == 0)
			done = trial;
	}
	if (!run_stop && r == 0)
		run_stop_update(c, fst, done, true); /* the last trial's verdicts, and the cap's */
	fslab_bench_buffers_free(&sw.buf);
	c->wall_s = sw.wall_before + (fslab_now() - sw.session_start);
	return r;
}
