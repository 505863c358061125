/* fslab run's internals, shared by run.c and the files it is split into
 * (run_settings.c, run_workdir.c, run_results.c, run_sweep.c, run_cost.c).
 * Not a contract: other modules use run.h. */
#ifndef FSLAB_BENCH_RUN_INT_H
#define FSLAB_BENCH_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_int.h"
#include "engine/engine.h"
#include "clock.h"
#include "progress.h"
#include "run.h"

/* Set by SIGINT/SIGTERM: stop after the test in flight.  Set by SIGCONT:
 * the process was stopped (the pass in flight is redone). */
extern volatile sig_atomic_t run_stop, run_continued;

/* A user's path or name as it may reach a terminal: control bytes shown
 * as \xNN.  Four rotating buffers, so one message can hold several. */
const char *run_esc(const char *s);
/* UTC now, ISO 8601 ("2026-01-02T03:04:05Z"; compact: "20260102T030405Z"). */
void run_utc_now(char *buf, size_t len, bool compact);
/* The same of a time in Unix seconds. */
void run_utc_format(int64_t when, char *buf, size_t len, bool compact);

/* A run context with nothing open yet, and its release. */
struct fslab_run_ctx *run_ctx_new(void);
void run_ctx_free(struct fslab_run_ctx *c);
/* The targets of o (o->targets); returns an exit status (FSLAB_EXIT_*). */
int run_pick_filesystems(struct fslab_run_ctx *c, const struct fslab_run_opts *o);

/* run_settings.c: 0 or -EINVAL, said. */
int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o);
int run_check_resume_opts(const struct fslab_run_opts *o);

/* run_workdir.c: the private directory (fs->work_fd) in fs->rec.path. */
int run_workdir_create(struct fslab_bench_fs *fs, const char *run_id);
void run_workdir_remove(struct fslab_bench_fs *fs);
/* cold mode's remount: close the directories, then reopen and check them */
void run_workdir_release(void *ctx);
int run_workdir_reopen(void *ctx, int *dir_fd, char *why, size_t whylen);

/* What the run knows of one filesystem's results. */
struct run_fs_state {
	struct fslab_done_set done;
	struct fslab_resume_csv csv; /* --resume: the checked CSV */
	/* named rows (plan cells 0..63 with pass_s > 0) whose discarded
	 * warm-up pass ran in this session */
	uint64_t warmed;
};

/* run_results.c: the results directory of a new run (made, locked,
 * marked), or of a resumed one (checked before anything changes). */
int run_prepare_out(struct fslab_run_ctx *c, const struct fslab_run_opts *o);
int run_open_resume_dir(struct fslab_run_ctx *c, const char *dir);
int run_check_resume_csvs(struct fslab_run_ctx *c, const struct fslab_plan *plan,
			  struct run_fs_state *fst);
int run_marker_record_csvs(const struct fslab_run_ctx *c);

/* run_sweep.c */
/* The flag column of an ok row of test t at tp KiB/s on fs. */
void run_flag(const struct fslab_bench_fs *fs, enum fslab_cache_mode cache, enum fslab_test t,
	      double tp, char *flag, size_t len);
int run_open_csvs(struct fslab_run_ctx *c, struct run_fs_state *fst);
int run_close_csvs(struct fslab_run_ctx *c);
int run_sweep(struct fslab_run_ctx *c, const struct fslab_plan *plan, struct run_fs_state *fst,
	      struct fslab_progress *prog, bool *failed);

/* run_stop.c: the decided rule (stop_rule.h) applied to the sweep.
 * run_stop_begin allocates its record (-ENOMEM); run_stop_update judges
 * every open test from the trials 1..trials_done of every filesystem;
 * run_stop_mask is the tests of plan cell i a later trial still runs. */
int run_stop_begin(struct fslab_run_ctx *c, const struct fslab_plan *plan);
void run_stop_update(struct fslab_run_ctx *c, const struct run_fs_state *fst, unsigned trials_done);
unsigned run_stop_mask(const struct fslab_run_ctx *c, size_t i);
/* The first test of t's group: tests of one group run while any of them
 * is open (a second pass goes with the pass before it). */
int run_stop_group(const struct fslab_run_ctx *c, int t);
/* The plan cell of (file_kib, record_kib) (a grid's), or plan->n. */
size_t run_stop_cell(const struct fslab_plan *plan, uint64_t file_kib, uint64_t record_kib);
void run_stop_end(struct fslab_run_ctx *c);

/* run_steady.c: the steady-state phase of fs before the sweep (its
 * outcome in fs->rec.steady), and the quiet drive after each pass of its
 * sweep (FITRIM, a bounded wait for an idle disk: fs->rec.quiet); and the
 * phase's time at most, from fs's device probe (negative: no estimate). */
void run_steady_phase(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog);
void run_quiet_after(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog);
double run_steady_estimate_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs);
/* The drive's conditions (lib/drivetemp.h) before and after each pass of
 * fs's sweep (trial of the run's session), outside the timed cells, into
 * fs->rec.drive (the pass's own entry too); and, after each test of the pass, whether
 * the drive is hot now (its row is then flagged FSLAB_FLAG_THERMAL): the
 * hwmon sensor at most once a second, smartctl at most every
 * RUN_DRIVE_SMART_EVERY_S. */
#define RUN_DRIVE_SMART_EVERY_S 30.0
void run_drive_before(struct fslab_bench_fs *fs, unsigned trial, unsigned session);
bool run_drive_hot(struct fslab_bench_fs *fs);
void run_drive_after(struct fslab_bench_fs *fs, struct fslab_progress *prog);

/* run_probe.c: what the device under fs can do, before the sweep
 * (fs->probe; a failure costs only the page-cache flag). */
void run_fs_probe(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog);

/* The cost model's price of one small I/O that reaches the device at
 * queue depth 1 (an O_DIRECT record, a random read of a dropped file):
 * about 200 us for a 4 KiB O_DIRECT write on a loop device over an SSD's
 * filesystem (issue 24: the 50 us assumed before was 4x low).  The
 * steady-state phase's estimate passes it to lib/steady.c. */
#define RUN_COST_DEVICE_OP_S 200e-6

/* run_cost.c: the cost model (the one home of what a test costs): the
 * seconds test t of a file x record cell should take at the probed rates
 * in cache mode cache (inflight: the requests a queued test keeps at the
 * device, depth x threads; 1 for the others), and those of O_DIRECT I/O
 * of bytes in records at a rate (the device probe); negative without a
 * rate. */
double run_cost_test_s(double write_kib_s, double read_kib_s, enum fslab_cache_mode cache,
		       enum fslab_test t, uint64_t file_bytes, uint64_t record_bytes, unsigned inflight);
double run_cost_direct_s(double kib_s, uint64_t bytes, uint64_t record_bytes);
/* A plan of named rows (--sweep cdm, cdm-nvme) on filesystems without
 * room for its file (--cdm-size): refused before anything is written,
 * naming each filesystem, its free space and the fix.  0 or -ENOSPC
 * (-errno when free space cannot be read); 0 for a grid. */
int run_check_rows_space(const struct fslab_run_ctx *c, const struct fslab_plan *plan);
/* The estimate printed as the sweep starts (the model, as --dry-run). */
void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
		  struct fslab_progress *prog);
/* The live ETA over the whole plan (every trial up to the stopping
 * rule's maximum), re-fitted from each measured cell.  run_sweep.c tells
 * it, at each trial's start, each file x record group's tests still to
 * run in the trial (todo) and those a trial past the minimum would run
 * (later: the tests still open); then each row's wall seconds and each
 * pass's; run_eta_update sets the progress range and share (at most 4
 * times a second unless force).  run_eta_new: NULL when out of memory. */
struct run_eta;
struct run_eta *run_eta_new(const struct fslab_run_ctx *c, const struct fslab_plan *plan);
void run_eta_free(struct run_eta *e);
void run_eta_trial(struct run_eta *e, unsigned trial, size_t f, size_t i, unsigned todo, unsigned later);
void run_eta_row(struct run_eta *e, size_t f, size_t i, enum fslab_test t, double wall_s);
void run_eta_pass(struct run_eta *e, size_t f, double pass_s);
void run_eta_update(struct run_eta *e, struct fslab_progress *prog, bool force);

#endif
