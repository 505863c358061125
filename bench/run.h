/* fslab run: the in-process IOzone-style engine, as a library call.
 *
 * cmd/run.c only parses options into struct fslab_run_opts; `fslab
 * reproduce` fills the same struct and calls fslab_run() in-process.
 *
 * Precedence of the sweep settings: the preset (seed or quick) < the
 * [sweep] section of sweep_file < the explicit fields below that are "set"
 * (non-zero / non-NULL / not _INVALID).  With resume_dir, the settings are
 * those recorded in that run's manifest and the sweep fields must be left
 * unset. */
#ifndef FSLAB_BENCH_RUN_H
#define FSLAB_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "names.h"
#include "spec.h"

struct fslab_lab; /* provision/lab.h */

/* The preset of `fslab run` without --sweep: numbers a reviewer accepts.
 * The quick grid, cold cache, at least FSLAB_DEFAULT_MIN_TRIALS trials and,
 * unless trials are given, more (up to FSLAB_DEFAULT_MAX_TRIALS) of each
 * test whose comparisons are not decided yet (--stop decided,
 * run_settings.c).  --stop ci without --until-ci: FSLAB_DEFAULT_UNTIL_CI_PCT. */
#define FSLAB_PRESET_DEFAULT "lab"
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
	double remaining_after_s; /* estimated seconds of work after this run */
};

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

	/* Sweep. */
	const char *preset;       /* "lab", "quick" or "seed"; NULL: FSLAB_PRESET_DEFAULT */
	const char *sweep_file;   /* spec file whose [sweep] applies; NULL none */
	unsigned tests;           /* mask of enum fslab_test bits; 0: not set */
	uint64_t file_min, file_max;     /* bytes; 0: not set */
	uint64_t record_min, record_max; /* bytes; 0: not set */
	enum fslab_cache_mode cache;     /* FSLAB_CACHE_MODE_INVALID: not set */
	unsigned trials;                 /* 0: not set */
	bool seed_set;
	uint64_t seed;
	bool keep_small_records_set;
	bool keep_small_records;

	/* Repeat a file x record cell until the 95% confidence interval
	 * half-width of each of its tests is within until_ci_pct percent of
	 * the mean, or max_trials samples exist.  0: off.  trials is then the
	 * minimum number of samples (at least 2). */
	double until_ci_pct;
	unsigned max_trials; /* 0: 10 when until_ci_pct is set */
	/* --stop: enum fslab_stop_rule (bench/stop_rule.h), -1 when not
	 * given.  The lab preset's default is "decided": past the minimum of
	 * trials, a test of a cell runs again only while its comparisons
	 * between the filesystems are neither decided nor undecidable, up to
	 * max_trials (docs/run.md, "When the run stops"). */
	int stop_rule;

	/* How the positioned tests address records: enum fslab_io_mode
	 * (bench/engine.h); -1: not given, FSLAB_IO_SEEK (IOzone's lseek +
	 * read/write). */
	int io_mode;
	/* The flush before each cell: enum fslab_sync_policy; -1: not given,
	 * FSLAB_SYNC_FS (syncfs + fsync of the block device). */
	int sync_policy;
	/* Per-cell p50/p99/max per-operation latency as extra CSV columns
	 * (lat_p50_us, lat_p99_us, lat_max_us). */
	bool latency;

	/* A name for the run (e.g. the host it ran on), recorded in the
	 * manifest as "label"; fslab report tags the run with it.  1 to
	 * FSLAB_RUN_LABEL_MAX - 1 of A-Z a-z 0-9 . _ -; NULL: none. */
	const char *label;

	/* Skip the device probe (no page-cache flags; the manifest says so). */
	bool no_device_probe;
	/* Share the lab with other runs that also allow it.  Without it the
	 * run takes the lab's run lease alone: a second run is refused. */
	bool allow_concurrent;
	/* A lab the caller already holds (fslab reproduce: exclusive from
	 * setup to teardown), opened on state_path; NULL: the run opens it. */
	struct fslab_lab *lab;
	/* --probe fresh: measure each device even when a probe of it kept
	 * from an earlier run still holds (bench/probe_keep.c). */
	bool probe_fresh;
	/* Bytes of the probe's scratch file; 0: 64 MiB. */
	uint64_t probe_bytes;
	/* The steady-state phase before each filesystem's sweep: enum
	 * fslab_steady_mode (lib/steady.h); -1: not given, FSLAB_STEADY_AUTO.
	 * And the bytes each of its workloads writes per round (0: the
	 * default, FSLAB_STEADY_ROUND_DEFAULT). */
	int steady_mode;
	uint64_t steady_round_bytes;

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

/* Fills o with "not set" everywhere (the default preset, cache unset). */
void fslab_run_opts_init(struct fslab_run_opts *o);

/* Bytes one trial of a preset's sweep (file sizes capped at file_max when
 * non-zero) moves per filesystem: every test of a cell reads or writes the
 * whole file once.  For estimates (fslab reproduce's ETA).  Returns 0,
 * -EINVAL (unknown preset, no cell) or -ENOMEM. */
int fslab_run_sweep_bytes(const char *preset, uint64_t file_max, uint64_t *bytes);

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
