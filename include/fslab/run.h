/* fslab run: the in-process IOzone-style engine, as a library call.
 *
 * bench/ benchmarks targets (lib/target.h) and never opens a lab: cmd/run.c
 * parses the options into struct fslab_run_opts and makes the targets
 * (--dir directories, or a lab's partitions through provision's
 * fslab_lab_targets, the lab held open for the run); `fslab reproduce`
 * does the same with the lab it holds and calls fslab_run() in-process.
 *
 * Precedence of the settings: the preset (lab, quick or seed) < the
 * [sweep] section of sweep_file < the rows set in `given` (lib/settings.h:
 * a set bit is the one meaning of "given").  With resume_dir, the settings
 * are those recorded in that run's manifest and no row may be set. */
#ifndef FSLAB_BENCH_RUN_H
#define FSLAB_BENCH_RUN_H

#include <stdbool.h>

#include "names.h"
#include "settings.h"
#include "spec.h"
#include "stats.h"
#include "target.h"

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

struct fslab_run_opts {
	/* What: the targets (lib/target.h), made by the caller: --dir
	 * directories or a lab's partitions (provision's fslab_lab_targets,
	 * the lab held open as a run holds it until fslab_run returns).  With
	 * resume_dir, the targets of the run's manifest's filesystems
	 * (fslab_run_resume_where says which). */
	const struct fslab_target *targets;
	size_t n_targets;
	/* The lab's state file the targets come from, recorded in the
	 * manifest; NULL for directories. */
	const char *state_path;

	/* Output directory; NULL: results/<UTC timestamp>/ under the cwd. */
	const char *out_dir;
	/* Continue the run in this directory (its manifest gives the plan). */
	const char *resume_dir;

	/* The settings the caller gave (fslab run's flags, lib/settings.h):
	 * each row whose bit is set in given.set, over the [sweep] section
	 * of sweep_file, over the preset (given's FSLAB_SETTING_PRESET; not
	 * set: lab).  Bounds and words are checked where they were parsed;
	 * lib/run_config.c adds the rules between rows. */
	struct fslab_settings given;
	const char *sweep_file;   /* spec file whose [sweep] applies; NULL none */

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

/* What a run to be resumed ran on, from the manifest in resume_dir: the
 * state file of its lab into state_path ("" for directories) and its
 * filesystems' names and paths as --dir targets into *targets (malloc'd,
 * *n of them).  The caller makes the real targets from that (a lab's:
 * fslab_lab_targets by those names) and passes them with resume_dir;
 * fslab_run checks the directory in full.  Returns FSLAB_EXIT_OK, or
 * FSLAB_EXIT_FAILURE after a message. */
int fslab_run_resume_where(const char *resume_dir, char *state_path, size_t len,
			   struct fslab_target **targets, size_t *n);

/* Fills o with "not set" everywhere (no setting given: the lab preset). */
void fslab_run_opts_init(struct fslab_run_opts *o);

/* Seconds the run o describes should take on n_fs filesystems whose
 * devices write and read at these rates, by --dry-run's cost model
 * (bench/run_cost.c): *lo_s the minimum trials, *hi_s every test to the
 * cap; no steady-state phase.  0, -EINVAL (bad settings, said) or -ENOMEM. */
int fslab_run_estimate(const struct fslab_run_opts *o, size_t n_fs, double write_kib_s,
		       double read_kib_s, double *lo_s, double *hi_s);

/* The options of o alone, before the caller makes targets (a bad option
 * gets its message whether or not there is a lab): the settings of a new
 * run, or none of them with resume_dir; dry_run: for fslab_run_dry_run.
 * Returns FSLAB_EXIT_OK or FSLAB_EXIT_USAGE after a message. */
int fslab_run_opts_check(const struct fslab_run_opts *o, bool dry_run);

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
 * or FSLAB_EXIT_USAGE.  o has passed fslab_run_opts_check(o, true). */
int fslab_run_dry_run(const struct fslab_run_opts *o);

/* Why a test of a cell stopped getting trials (enum fslab_stop_why,
 * lib/stats.h): the manifest's words. */
const char *fslab_stop_why_to_string(enum fslab_stop_why w);

#endif
