/* fslab_run(): the settings (lib/run_config.c), the filesystems, each one's
 * private directory (run_workdir.c) and device probe, the results
 * directory (run_results.c), then the sweep (run_sweep.c); --dry-run and
 * the plan's cost are run_cost.c.
 *
 * Trust: the test and probe files live in a private directory fslab makes
 * in each directory under test and removes after; the results directory is
 * held open and flock'ed for the whole run, its files are created O_EXCL
 * relative to it, and it carries a run id (.fslab-run) that --resume
 * checks against the manifest before it changes anything. */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "stopsig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void fslab_run_opts_init(struct fslab_run_opts *o)
{
	memset(o, 0, sizeof(*o)); /* given.set 0: no setting given */
}

int fslab_run_opts_check(const struct fslab_run_opts *o, bool dry_run)
{
	struct fslab_run_ctx *c;
	int r;

	if (o->resume_dir && dry_run) {
		fslab_note(FSLAB_NOTE_ERROR, "--dry-run plans a new run; --resume continues one with its recorded plan (see its manifest)");
		return FSLAB_EXIT_USAGE;
	}
	c = run_ctx_new();
	if (!c) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		return FSLAB_EXIT_FAILURE;
	}
	r = run_settings(c, o);
	run_ctx_free(c);
	return r < 0 ? FSLAB_EXIT_USAGE : FSLAB_EXIT_OK;
}

/* The settings and the filesystems: a new run's from the options, a
 * resumed run's from its manifest.  Returns an exit status. */
static int run_begin(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	int r;

	if (run_settings(c, o) < 0)
		return FSLAB_EXIT_USAGE;
	if (o->resume_dir && run_open_resume_dir(c, o->resume_dir) < 0)
		return FSLAB_EXIT_FAILURE;
	if (o->resume_dir)
		c->sessions++;
	else
		fslab_utc_now("%Y-%m-%dT%H:%M:%SZ", c->started_at, sizeof(c->started_at));
	r = run_pick_filesystems(c, o);
	return o->resume_dir && r != FSLAB_EXIT_OK ? FSLAB_EXIT_FAILURE : r;
}

/* A filesystem made ready for the sweep: its private directory and cold
 * mode's cache control (a remount is the target's
 * maker's to do: a lab's, under its own lock). */
static int run_fs_ready(struct fslab_run_ctx *c, struct fslab_bench_fs *fs)
{
	int r = run_workdir_create(fs, c->run_id);

	if (r < 0)
		return r;
	fslab_cache_ctl_init(&fs->cache, fs->t,
			     strcmp(fs->rec.loop_io, "buffered") == 0 ? fs->loop_backing : NULL);
	fs->cache.dev = &fs->dev;
	fs->cache.release = run_workdir_release;
	fs->cache.reopen = run_workdir_reopen;
	fs->cache.hold_ctx = fs;
	return 0;
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
		fslab_note(FSLAB_NOTE_ERROR, "interrupted: the finished cells are in %s; continue with: fslab run --resume %s",
			    fslab_esc(c->out_dir), fslab_esc(c->out_dir));
		failed = true;
	} else {
		fslab_utc_now("%Y-%m-%dT%H:%M:%SZ", c->finished_at, sizeof(c->finished_at));
	}
	e = fslab_manifest_write(c);
	if (e < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "cannot write %s/manifest.json: %s", fslab_esc(c->out_dir), strerror(-e));
		failed = true;
	}
	if (run_close_csvs(c) < 0)
		failed = true;
	for (size_t i = 0; i < c->n_fs; i++)
		n_failed += c->fs[i].rec.cells_failed;
	if (n_failed)
		fslab_note(FSLAB_NOTE_ERROR, "%llu cell(s) failed; their rows in %s say why",
			    (unsigned long long)n_failed, fslab_esc(c->out_dir));
	/* An interrupted run is not done: its last word stays the --resume
	 * line above. */
	if (!c->interrupted)
		fslab_progress_note(prog, "%s: done: %s", fslab_log_prefix(), fslab_esc(c->out_dir));
	return (r < 0 || failed) ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
}

/* The steady-state phase of each filesystem, in turn, before the sweep;
 * the manifest brought up to date after each.  A resumed run runs it
 * again (the drive idled since), except on a filesystem whose fixed
 * trials (--stop fixed) are all done (a new run has none done). */
static void run_steady_all(struct fslab_run_ctx *c, const struct fslab_plan *plan,
			   const struct run_fs_state *fst, struct fslab_progress *prog)
{
	const uint64_t all = fslab_plan_test_count(plan, c->cfg.sweep.tests) * c->cfg.sweep.trials;

	for (size_t i = 0; i < c->n_fs && !run_stop; i++) {
		int r;

		if (c->cfg.stop_rule == FSLAB_STOP_RULE_FIXED && fst[i].done.n >= all)
			continue;
		run_steady_phase(c, &c->fs[i], prog);
		r = fslab_manifest_write(c);
		if (r < 0)
			fslab_note_warn("cannot update %s/manifest.json: %s", fslab_esc(c->out_dir), strerror(-r));
	}
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
	struct fslab_stopsig sig = { 0 };
	bool failed = false;
	int ret = FSLAB_EXIT_FAILURE, r;

	if (!c)
		return FSLAB_EXIT_FAILURE;
	run_stop = 0;
	run_continued = 0;
	c->argc = o->argc;
	c->argv = o->argv;
	c->sessions = 1;
	ret = run_begin(c, o);
	if (ret != FSLAB_EXIT_OK)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	r = fslab_plan_build(&c->cfg.sweep, &plan);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, r == -ENOMEM ? "out of memory" : "the sweep has no cell to run");
		goto out;
	}
	if (run_fit_plan(c, &plan) < 0)
		goto out;
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
	fslab_progress_beat(prog, 60); /* off a terminal, a line a minute at least */
	if (o->pipeline)
		fslab_progress_set_pipeline(prog, o->pipeline->elapsed_before_s,
					    o->pipeline->remaining_after_s, o->pipeline->remaining_after_hi_s);
	/* from the probe on, SIGINT/SIGTERM only ask the run to stop: the probe
	 * and the test in flight finish and clean up first; SIGCONT says the
	 * process was stopped */
	fslab_stopsig_catch(&sig, run_on_signal, run_on_continue);
	for (size_t i = 0; i < c->n_fs; i++) {
		if (run_fs_ready(c, &c->fs[i]) < 0)
			goto out;
		if (!o->resume_dir)
			run_fs_probe(c, &c->fs[i], prog);
	}

	/* The manifest first: a run killed before it has no CSV either, and
	 * once it exists --resume knows everything. */
	r = fslab_manifest_write(c);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "cannot write %s/manifest.json: %s", fslab_esc(c->out_dir), strerror(-r));
		goto out;
	}
	if (run_open_csvs(c, fst) < 0 || run_marker_record_csvs(c) < 0)
		goto out;

	fslab_progress_note(prog, "%s: %zu filesystem(s), %zu file x record cells x %d tests, %s cache, %u trial(s)%s; results in %s",
			    fslab_log_prefix(), c->n_fs, plan.n, __builtin_popcount(c->cfg.sweep.tests),
			    fslab_cache_mode_to_string(c->cfg.sweep.cache), c->cfg.sweep.trials,
			    c->cfg.until_ci_pct > 0 ? " (more until the CI is narrow enough)"
			    : c->cfg.stop_rule == FSLAB_STOP_RULE_DECIDED ? " (more until each test's comparisons are decided)" : "",
			    fslab_esc(c->out_dir));
	run_calibrate(c);
	run_seed_eta(c, &plan, prog);
	run_steady_all(c, &plan, fst, prog);
	r = run_sweep(c, &plan, fst, prog, &failed);
	ret = run_end(c, prog, r, failed);
out:
	fslab_stopsig_restore(&sig);
	run_fs_state_free(fst, c->n_fs);
	fslab_progress_free(prog);
	fslab_plan_free(&plan);
	run_ctx_free(c);
	return ret;
}
