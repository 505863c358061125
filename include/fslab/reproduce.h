/* fslab reproduce, the module: cmd/reproduce.c turns the options into a
 * reproduce_ctl and calls the pipeline (pipeline.c), which chains setup,
 * the runs, the report and teardown, reads and annotates each stage's
 * manifest (stage_manifest.c) and estimates what is left (eta.c). */
#ifndef FSLAB_REPRODUCE_H
#define FSLAB_REPRODUCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "settings.h"

struct fslab_setup_opts;
struct fslab_state;

/* What the command line asked for. */
struct reproduce_ctl {
	/* The setup stage's options: --device or --image [--size], --spec
	 * (spec_source; spec its layout, or the built-in one), --state,
	 * --mount-root, --wipe, --yes, --precondition; lab, held exclusive
	 * from before setup until after teardown: no other fslab command can
	 * act on it in between. */
	struct fslab_setup_opts *setup;
	const char *out;
	uint64_t max_file;     /* 2 GiB (the report's text) unless --max-file */
	bool max_file_set;
	bool honest;
	bool keep;
	bool quiet;
	bool dry_run;          /* print the plan, touch nothing */
	/* The honest runs' --until-ci and --max-trials (5 and 5 unless given),
	 * as fslab run's settings take them. */
	struct fslab_settings honest_given;
	int argc;
	char **argv;
};

/* One sweep of the pipeline: warm, and with --honest cold and direct. */
struct repro_stage {
	const char *name;
	enum fslab_cache_mode cache;
	char dir[PATH_MAX + 16];
	uint64_t file_max;
};

struct fslab_run_opts;

/* The whole pipeline: setup, the sweeps, the report, teardown (with
 * c->dry_run: its plan, printed; nothing touched).  Returns FSLAB_EXIT_*. */
int repro_pipeline(struct reproduce_ctl *c);
/* eta.c: the options of stage s's fslab run (no lab, progress or output
 * directory filled in). */
void repro_stage_opts(const struct reproduce_ctl *c, const struct repro_stage *s,
		      struct fslab_run_opts *o);

/* eta.c: the honest sweeps' largest file (beyond RAM when the
 * partitions have room bytes free, else the largest power of two that fits, with the
 * reason in why); and what a stage costs, lo..hi seconds: a sweep by the
 * run's cost model (bench/run_cost.c) on n_fs filesystems at device_kib_s
 * (FSLAB_RUN_NOMINAL_KIB_S when not probed), the report and teardown their
 * allowance.  0, or -EINVAL (the sweep's settings, said). */
uint64_t repro_honest_max_file(const struct reproduce_ctl *c, uint64_t room, char *why, size_t whylen);
/* Free bytes on the fullest mounted partition of st, UINT64_MAX when none
 * says: the room repro_honest_max_file is given. */
uint64_t repro_min_free(const struct fslab_state *st);
int repro_stage_estimate(const struct reproduce_ctl *c, const struct repro_stage *s, size_t n_fs,
			 double device_kib_s, double *lo_s, double *hi_s);
/* Seconds allowed for the report of n_stages sweeps, and for teardown. */
#define REPRO_REPORT_S_PER_SWEEP 10.0
#define REPRO_TEARDOWN_S 10.0

/* stage_manifest.c: what a finished stage recorded (interrupted, the
 * slowest device probe figure in KiB/s, 0 when not probed), and a note
 * added to its manifest for the report to show. */
void repro_read_manifest(const char *dir, bool *interrupted, double *device_kib_s);
void repro_add_note(const char *dir, const char *note);

#endif
