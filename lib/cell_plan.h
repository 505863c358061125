/* The sweep plan (bench/engine runs it, lib/run_config.c checks it): the
 * presets' values, CrystalDiskMark's named rows and the file x record
 * cells IOzone's auto mode visits, built before anything runs so
 * progress, ETA and resume know the whole job. */
#ifndef FSLAB_CELL_PLAN_H
#define FSLAB_CELL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "settings.h"

/* The many-files tests (bench/engine/files.c) get one cell per file size
 * up to this. */
#define FSLAB_FILES_SIZE_MAX (64ull * 1024 * 1024)
/* IOzone skips records below this on files above FSLAB_SMALL_RECORD_FILE
 * (its 13 tests: the rule is its auto mode's). */
#define FSLAB_SMALL_RECORD_LIMIT (64 * 1024)
#define FSLAB_SMALL_RECORD_FILE (16 * 1024 * 1024)
/* The lab preset's coarse grid (s->coarse): its rule, as the manifest's
 * sweep.records_rule and --dry-run say it, and its large files. */
#define FSLAB_PLAN_LARGE_FILE (128ull * 1024 * 1024)
#define FSLAB_TESTS_STDIO FSLAB_TESTS_RANGE(FSLAB_TEST_FWRITE, FSLAB_TEST_FREREAD)
#define FSLAB_PLAN_COARSE_RULE                                                                \
	"records 4K, 64K, 1M, 16M (up to the file, none below 64K above 16M) on files below 128M, " \
	"from 128M the 1M record and no stdio test (libc hands such records to write and read): "  \
	"the question is the file size, records matter most on small files; the other records "    \
	"were not measured (--file-sizes or --record-sizes: every record)"

/* Fills s with a preset (the settings table's PRESET row): seed (64K-2G
 * files, 4K-16M records, all tests, 1 trial, warm, seed 1, small records
 * skipped, shuffled order: the 2023 experiment), quick (the same up to 64M
 * files), lab (the seed files, coarse records, cold, 3 trials), or the
 * named rows of cdm and cdm-nvme.  s->set is 0. */
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
	/* the grid: file size ascending, then record; named rows: in the
	 * preset's order */
	struct fslab_sweep_cell *cells;
	size_t n;
};

/* The CrystalDiskMark presets (cdm, cdm-nvme): CrystalDiskMark 8's rows,
 * each a read and a write test at its record, queue depth and threads, on
 * one file of --cdm-size (default FSLAB_CDM_FILE_DEFAULT); passes of
 * --cdm-time seconds (default FSLAB_CDM_PASS_S, CrystalDiskMark's); a
 * discarded warm-up pass of each row (bench/engine/engine.h); at least
 * FSLAB_CDM_TRIALS trials, each row's 95% interval reported, never a
 * best-of. */
#define FSLAB_CDM_FILE_DEFAULT (1024ull * 1024 * 1024)
#define FSLAB_CDM_PASS_S 5 /* the default of --cdm-time */
#define FSLAB_CDM_TRIALS 5

/* True for a preset whose plan is named rows (cdm, cdm-nvme), not the
 * file x record grid. */
bool fslab_preset_named_rows(enum fslab_preset p);

/* The tests cell runs of the sweep's tests: its own (a named row's), or
 * all of them. */
static inline unsigned fslab_plan_cell_tests(const struct fslab_sweep_cell *c, unsigned tests)
{
	return c->tests ? c->tests & tests : tests;
}
/* The tests of one trial of the plan on one filesystem. */
uint64_t fslab_plan_test_count(const struct fslab_plan *p, unsigned tests);
/* The cell a CSV row of test t belongs to: file and record, and for a
 * queued test its depth and threads (a cell's 0 is 1; any other test's
 * rows say 1 and 1); p->n when none. */
size_t fslab_plan_find(const struct fslab_plan *p, enum fslab_test t, uint64_t file_kib,
		       uint64_t record_kib, unsigned iodepth, unsigned jobs);

/* Builds the cells.  The grid: files and records of the lists, else
 * doubling from min to max, a record only on a file it divides, IOzone's
 * tests off records below 64K on files above 16M unless keep_small_records,
 * the queued tests a cell per depth of s->depths; coarse:
 * FSLAB_PLAN_COARSE_RULE's.  The many-files tests run in one cell per file size up to
 * FSLAB_FILES_SIZE_MAX, the one with the largest record of its row (its
 * files are written in that record), and the other cells leave them out.
 * Named rows (s->named_rows cdm or cdm-nvme): the preset's rows, each on
 * a file of file_max bytes.
 * Returns 0, -EINVAL (no cell) or -ENOMEM. */
int fslab_plan_build(const struct fslab_sweep_spec *s, struct fslab_plan *p);
void fslab_plan_free(struct fslab_plan *p);

#endif
