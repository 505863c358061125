/* The sweep plan: sweep settings (preset < spec [sweep] < flags) and the
 * file x record cells IOzone's auto mode visits, built before anything runs
 * so progress, ETA and resume know the whole job. */
#ifndef FSLAB_BENCH_PLAN_H
#define FSLAB_BENCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* IOzone skips records below this on files above FSLAB_SMALL_RECORD_FILE. */
#define FSLAB_SMALL_RECORD_LIMIT (64 * 1024)
#define FSLAB_SMALL_RECORD_FILE (16 * 1024 * 1024)

/* Fills s with a preset: "seed" (64K-2G files, 4K-16M records, all tests,
 * 1 trial, warm, seed 1, small records skipped, shuffled order: the 2023
 * experiment), "quick" (the same up to 64M files) or "lab" (the quick grid,
 * cold, 3 trials).  s->set is 0.  Returns 0 or -EINVAL. */
int fslab_sweep_preset(const char *name, struct fslab_sweep_spec *s);
/* The same from the preset's enum (the settings table's PRESET row). */
void fslab_sweep_preset_values(enum fslab_preset p, struct fslab_sweep_spec *s);


struct fslab_sweep_cell {
	uint64_t file_bytes, record_bytes;
	/* The queued tests' depth and threads (0 is 1) and pass length in
	 * seconds (0: one pass over the file), as struct fslab_cell has
	 * them; tests: the tests this cell runs, within the sweep's (0: all
	 * the sweep's), for plans made of named rows (CrystalDiskMark's). */
	unsigned iodepth, jobs;
	double pass_s;
	unsigned tests;
};

struct fslab_plan {
	struct fslab_sweep_cell *cells; /* file size ascending, then record */
	size_t n;
};

/* Builds the cells: file sizes doubling from file_min to file_max, records
 * doubling from record_min to record_max but never above the file, and
 * records below 64K skipped for files above 16M unless keep_small_records.
 * Returns 0, -EINVAL (no cell) or -ENOMEM. */
int fslab_plan_build(const struct fslab_sweep_spec *s, struct fslab_plan *p);
void fslab_plan_free(struct fslab_plan *p);

#endif
