/* fslab run: the in-process IOzone-style engine, as a library call.
 *
 * cmd/run.c only parses options into struct fslab_run_opts; `fslab
 * reproduce` fills the same struct and calls fslab_run() in-process.
 *
 * Precedence of the settings: the preset (lab, quick or seed) < the
 * [sweep] section of sweep_file < the rows set in `given` (lib/settings.h:
 * a set bit is the one meaning of "given").  With resume_dir, the settings
 * are those recorded in that run's manifest and no row may be set. */
#ifndef FSLAB_BENCH_RUN_H
#define FSLAB_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "names.h"
#include "settings.h"
#include "spec.h"

struct fslab_lab; /* provision/lab.h */

/* The preset of `fslab run` without --sweep: numbers a reviewer accepts.
 * The quick grid, cold cache, at least FSLAB_DEFAULT_MIN_TRIALS trials and,
 * unless trials are given, more (up to FSLAB_DEFAULT_MAX_TRIALS) of each
 * test whose comparisons are not decided yet (--stop decided,
 * run_settings.c).  --stop ci without --until-ci: FSLAB_DEFAULT_UNTIL_CI_PCT. */
#define FSLAB_PRESET_DEFAULT FSLAB_PRESET_LAB
#define FSLAB_DEFAULT_MIN_TRIALS 3
#define FSLAB_DEFAULT_MAX_TRIALS 10
#define FSLAB_DEFAULT_UNTIL_CI_PCT 5.0
/* The steady-state phase's round: each workload (1 MiB sequential, 4 KiB
 * random writes) writes this many bytes (bench/run_steady.c). */
#define FSLAB_STEADY_ROUND_DEFAULT (256ull << 20)
#define FSLAB_STEADY_ROUND_MIN (1ull << 20)

/* One directory to benchmark without a lab (--dir NAME=PATH). */
struct fslab_run_dir {
	char name[FSLAB_FS_NAME_MAX]; /* CSV name: [A-Za-z0-9_-]+ */
	const char *path;             /* an existing, writable directory */
};

/* Context a caller running several stages (fslab reproduce) passes so the
 * progress line shows where the whole pipeline stands.  All optional. */
struct fslab_run_pipeline {
	double elapsed_before_s;  /* seconds the pipeline spent before this run */
	double remaining_after_s; /* estimated seconds of work after this run, at least */
	double remaining_after_hi_s; /* ... and at most (less: the same) */
};

/* The cost model's device rate where none was probed (fslab reproduce
 * --dry-run, a run with --no-device-probe until cells are measured). */
#define FSLAB_RUN_NOMINAL_KIB_S 102400.0

#define FSLAB_RUN_LABEL_MAX 64 /* including the NUL */

struct fslab_run_opts {
	/* Where: either a state file (all its mounted partitions) or dirs.
	 * With neither, the default state path (fslab_state_default_path()). */
	const char *state_path;
	const struct fslab_run_dir *dirs;
	size_t n_dirs;

	/* Output directory; NULL: results/<UTC timestamp>/ under the cwd. */
	const char *out_dir;
	/* Continue the run in this directory (its manifest gives the plan). */
	const char *resume_dir;

	/* The settings the caller gave (fslab run's flags, lib/settings.h):
	 * each row whose bit is set in given.set, over the [sweep] section
	 * of sweep_file, over the preset (given's FSLAB_SETTING_PRESET; not
	 * set: lab).  Bounds and words are checked where they were parsed;
	 * run_settings.c adds the rules between rows. */
	struct fslab_settings given;
	const char *sweep_file;   /* spec file whose [sweep] applies; NULL none */

	/* Share the lab with other runs that also allow it.  Without it the
	 * run takes the lab's run lease alone: a second run is refused. */
	bool allow_concurrent;
	/* A lab the caller already holds (fslab reproduce: exclusive from
	 * setup to teardown), opened on state_path; NULL: the run opens it. */
	struct fslab_lab *lab;
	/* Progress and messages. */
	bool quiet;
	const char *stage; /* label at the start of the progress line, or NULL */
	const struct fslab_run_pipeline *pipeline; /* or NULL */

	/* argv of the command, recorded in the manifest (may be NULL). */
	int argc;
	char *const *argv;

	/* Receives the results directory actually used (may be NULL). */
	char *out_dir_used;
	size_t out_dir_used_len;
};

/* Fills o with "not set" everywhere (no setting given: the lab preset). */
void fslab_run_opts_init(struct fslab_run_opts *o);

/* Bytes one trial of a preset's sweep (file sizes capped at file_max when
 * non-zero) moves per filesystem: every test of a cell reads or writes the
 * whole file once.  Returns 0, -EINVAL (unknown preset, no cell) or
 * -ENOMEM. */
int fslab_run_sweep_bytes(enum fslab_preset preset, uint64_t file_max, uint64_t *bytes);
/* Seconds the run o describes should take on n_fs filesystems whose
 * devices write and read at these rates, by the cost model of --dry-run
 * (bench/run_cost.c): the device probes, then *lo_s with the minimum of
 * trials, *hi_s with every test run to the stopping rule's maximum.  The
 * steady-state phase is not counted (whether it runs depends on the
 * disk).  0, -EINVAL (bad settings, said) or -ENOMEM. */
int fslab_run_estimate(const struct fslab_run_opts *o, size_t n_fs, double write_kib_s,
		       double read_kib_s, double *lo_s, double *hi_s);

/* Runs the sweep.  Returns FSLAB_EXIT_OK when every cell finished ok or
 * skipped, FSLAB_EXIT_FAILURE when a cell failed, a filesystem vanished,
 * the run was interrupted (SIGINT/SIGTERM) or could not start, and
 * FSLAB_EXIT_USAGE for bad options or a bad sweep file.  Messages go to
 * stderr through log.h. */
int fslab_run(const struct fslab_run_opts *o);
/* fslab run --dry-run: prints the plan of the run o describes
 * (filesystems, grid, cells, trials, tests, bytes to move), each
 * filesystem's free space against what the plan needs, and a time
 * estimate from a device probe in a private directory it removes (none
 * with --no-device-probe).  Writes no results.  Returns FSLAB_EXIT_OK,
 * FSLAB_EXIT_FAILURE (a filesystem too small: refused before any probe)
 * or FSLAB_EXIT_USAGE. */
int fslab_run_dry_run(const struct fslab_run_opts *o);

#endif
