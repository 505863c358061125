/* One file x record cell of the sweep on one filesystem: the 13 IOzone
 * tests run in IOzone's order on one test file (docs/tests.md), each timed with
 * CLOCK_MONOTONIC around its I/O loop and nothing else.
 *
 * The tests are rows of a const table (fslab_bench_test_get); all I/O goes
 * through the fslab_io_ops given in the cell, so tests can record or fake
 * it. */
#ifndef FSLAB_BENCH_ENGINE_H
#define FSLAB_BENCH_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "names.h"

/* What a test needs and does. */
enum {
	FSLAB_BT_CREATES = 1 << 0,    /* creates the test file (write) */
	FSLAB_BT_NEEDS_FILE = 1 << 1, /* needs the whole file written */
	FSLAB_BT_WRITES = 1 << 2,
	FSLAB_BT_READS = 1 << 3,
	FSLAB_BT_STDIO = 1 << 4,      /* fopen/fread/fwrite with setvbuf(record) */
	FSLAB_BT_SECOND_PASS = 1 << 5, /* the "re-" pass over the same file */
	FSLAB_BT_QUEUED = 1 << 6,      /* io_uring at a depth and threads (bench/queued.c) */
	FSLAB_BT_FILES = 1 << 7,       /* the many-files tests' tree (bench/files.c) */
	FSLAB_BT_NEEDS_TREE = 1 << 8,  /* needs the tree's every file written whole */
	/* moves no file data: its throughput counts FSLAB_FILES_META_BYTES a
	 * file (stat, unlink), so no device bound applies to it */
	FSLAB_BT_METADATA = 1 << 9,
};

struct fslab_bench_pass;

struct fslab_bench_test {
	enum fslab_test id;
	unsigned flags;          /* FSLAB_BT_* */
	const char *pattern;     /* one line for docs and --help */
	int (*run)(struct fslab_bench_pass *p); /* one timed pass */
};

/* The row for a test (never NULL for a valid test). */
const struct fslab_bench_test *fslab_bench_test_get(enum fslab_test t);

/* Record buffers, sized by the record and never by the file: the I/O buffer
 * and the stdio buffer (setvbuf), aligned for O_DIRECT. */
struct fslab_bench_buffers {
	void *io;
	void *stdio;
	uint64_t record_bytes;
	/* IOzone's random order for order_n records (random read/write),
	 * made by the first pass that needs it, or NULL */
	uint32_t *order;
	uint64_t order_n;
};
int fslab_bench_buffers_alloc(struct fslab_bench_buffers *b, uint64_t record_bytes);
void fslab_bench_buffers_free(struct fslab_bench_buffers *b);

enum fslab_outcome {
	FSLAB_OUTCOME_NOT_RUN,
	FSLAB_OUTCOME_OK,
	FSLAB_OUTCOME_FAILED,
	FSLAB_OUTCOME_SKIPPED,
};

struct fslab_test_outcome {
	enum fslab_outcome status;
	char reason[200];         /* for FAILED / SKIPPED */
	double elapsed_s;         /* timed region */
	double throughput_kib_s;  /* bytes / elapsed / 1024, truncated like IOzone */
	unsigned redone;          /* passes thrown away: the process was stopped in them */
	unsigned redone_slow;     /* passes thrown away: > 10x the median of the test's trials */
	/* --latency: per-operation latency of the kept pass (microseconds;
	 * p50/p99 are bucket upper edges, within 12.5%) */
	bool has_latency;
	double lat_p50_us, lat_p99_us, lat_max_us;
	/* Operations a second of the kept pass, for the CSV's iops column:
	 * set by the queued tests (I/O requests) and the many-files tests
	 * (files); 0 for IOzone's, whose rate is throughput / record. */
	double ops_s;
};

struct fslab_cell_times {
	double timed_s;      /* sum of the timed regions */
	double untimed_io_s; /* open, untimed fsync/close, priming read, create, delete, syncfs */
	double cache_drop_s; /* cold mode's page-cache drops */
};

/* The many-files tests (bench/files.c, docs/tests.md): in a fresh tree
 * FSLAB_FILES_TREE of the run's private directory, N files of the cell's
 * file size S in directories of at most FSLAB_FILES_PER_DIR (8.3 names,
 * so FAT needs no long-name entries), written and read in the cell's
 * records.  N moves FSLAB_FILES_PHASE_BYTES a phase, at least
 * FSLAB_FILES_MIN and at most FSLAB_FILES_MAX files; the plan gives the
 * family one cell per file size up to FSLAB_FILES_SIZE_MAX. */
#define FSLAB_FILES_TREE "FILES.TRE"
#define FSLAB_FILES_PER_DIR 256
#define FSLAB_FILES_PHASE_BYTES (64ull * 1024 * 1024)
#define FSLAB_FILES_MIN 16
#define FSLAB_FILES_MAX 16384
#define FSLAB_FILES_SIZE_MAX (64ull * 1024 * 1024)
#define FSLAB_FILES_META_BYTES 4096
/* The files of a cell of file size S. */
uint64_t fslab_files_count(uint64_t file_bytes);
/* Bytes test t (a files test) counts per pass of a cell of file size S:
 * N x S for create and read, N x FSLAB_FILES_META_BYTES for stat and
 * unlink. */
uint64_t fslab_files_pass_bytes(enum fslab_test t, uint64_t file_bytes);
/* The room the tree takes on a filesystem, at most: each file with a
 * cluster of slack (32 KiB, FAT's largest usual). */
uint64_t fslab_files_tree_bytes(uint64_t file_bytes);

const char *fslab_file_sync_to_string(enum fslab_file_sync s);
int fslab_file_sync_from_string(const char *s);

const char *fslab_io_mode_to_string(enum fslab_io_mode m);
/* -1 for an unknown name ("seek", "positional"). */
int fslab_io_mode_from_string(const char *s);

const char *fslab_sync_policy_to_string(enum fslab_sync_policy s);
int fslab_sync_policy_from_string(const char *s);

/* Passes of one test thrown away because the process was stopped (SIGSTOP,
 * SIGTSTP) during them, before the test is given up as failed. */
#define FSLAB_STOP_REDO_MAX 3

struct fslab_cell {
	/* The test file: name (one component) in the directory dir_fd, the
	 * run's private directory.  Created with O_EXCL, opened with
	 * O_NOFOLLOW, removed here. */
	int dir_fd;
	const char *name;
	uint64_t file_bytes, record_bytes;
	unsigned tests;     /* mask of tests to measure */
	/* The queued tests: queue depth and threads (0 is 1), and the length
	 * of a pass in seconds (0: one pass over the file's bytes, as every
	 * other test; CrystalDiskMark-style passes loop over the file for
	 * this long). */
	unsigned iodepth, jobs;
	double pass_s;
	/* the many-files tests' flush of each file */
	enum fslab_file_sync file_sync;
	/* The many-files tests keep the tree's directories (FSLAB_FILES_TREE
	 * and its Dnnn), emptied, from cell to cell; the run's private
	 * directory goes with them at the end.  Set on a FUSE mount:
	 * bench/files.c says why (fusefat). */
	bool keep_tree_dirs;
	enum fslab_cache_mode cache;
	enum fslab_io_mode io;
	enum fslab_sync_policy sync;
	/* --latency: time every operation of the timed loops into a log-bucket
	 * histogram (a clock read and a bucket increment per operation). */
	bool latency;
	/* --pass-gap: seconds of an untimed pause before each pass, after its
	 * cache drop (0: none); cut short by *stop. */
	double pass_gap_s;
	/* The filesystem's block device, fsync'ed before the cell with
	 * FSLAB_SYNC_FS; NULL or "" when unknown (--dir without a lab). */
	const char *device;
	/* ops->version must be FSLAB_IO_OPS_VERSION. */
	const struct fslab_io_ops *ops;
	/* cold mode: empties the page cache of the test file (closed); 0 or
	 * -errno, with a reason in why.  A remount may replace *dir_fd (the
	 * same directory, opened again). */
	int (*drop_cache)(void *ctx, int *dir_fd, const char *name, char *why, size_t whylen);
	void *drop_ctx;
	/* Called after each measured test (outside any timed region). */
	void (*on_test)(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o);
	void *on_test_ctx;
	/* Checked between tests: set by SIGINT/SIGTERM.  May be NULL. */
	volatile sig_atomic_t *stop;
	/* Set by a SIGCONT handler: the process was stopped.  Cleared before
	 * each pass; a pass that ends with it set was timed across the stop, so
	 * it is thrown away and run again (outcome.redone counts them), up to
	 * FSLAB_STOP_REDO_MAX times.  May be NULL. */
	volatile sig_atomic_t *continued;
	/* Called after each ok pass, outside the timer, with its throughput
	 * as its row would record it (KiB/s): true when that is under the
	 * median of the same test's earlier trials by more than
	 * FSLAB_DISTURBED_FACTOR (sweep_stats.h).  Such a pass was disturbed
	 * (the machine, not the filesystem): it is thrown away and run again
	 * (outcome.redone_slow counts them), up to FSLAB_STOP_REDO_MAX times;
	 * after that the last pass is kept.  May be NULL. */
	bool (*disturbed)(void *ctx, enum fslab_test t, double kib_s);
	void *disturbed_ctx;
};

/* Runs the cell's tests.  out[t] gets each test's outcome (NOT_RUN for
 * tests not asked for or not reached).  Returns 0, or -EINTR when *stop
 * ended it early.  The test file is removed on every path. */
int fslab_cell_run(const struct fslab_cell *c, struct fslab_bench_buffers *b,
		   struct fslab_test_outcome out[FSLAB_TEST_MAX], struct fslab_cell_times *times);

/* IOzone's random order: order[i] is the record random read and random
 * write visit at step i of N, the permutation of 0..N-1 IOzone 3.489 makes
 * (the same in every run).  0, or -EOVERFLOW when N is above 2^32. */
int fslab_random_order(uint32_t *order, uint64_t n);
/* IOzone's stride read: the record read after `rec`, given the number of
 * wraps so far (updated).  stride 17 records. */
#define FSLAB_STRIDE_RECORDS 17
uint64_t fslab_stride_next(uint64_t rec, uint64_t n, uint64_t *wraps);

#endif
