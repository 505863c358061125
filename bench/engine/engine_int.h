/* Private to bench/: one pass of one test, as the engine's run functions
 * (bench/engine/engine.c) and the queued tests' (bench/engine/queued.c) see it, and the
 * helpers both use. */
#ifndef FSLAB_BENCH_ENGINE_INT_H
#define FSLAB_BENCH_ENGINE_INT_H

#include "clock.h"
#include "engine.h"
#include "stats.h"

#include <stddef.h>

/* The many-files tests' tree in the cell's directory (bench/engine/files.c). */
struct fslab_files_tree {
	bool exists;   /* some of it may be on disk */
	bool complete; /* every file is there, written whole */
};

/* One pass of one test: what the run functions need. */
struct fslab_bench_pass {
	const struct fslab_cell *cell;
	const struct fslab_bench_test *test;
	struct fslab_bench_buffers *buf;
	int dfd;             /* the directory holding the test file */
	bool *file_exists;   /* the cell may have created the test file */
	struct fslab_files_tree *tree; /* the many-files tests' tree */
	uint64_t n;          /* records */
	size_t rec;          /* record bytes */
	bool synced;         /* out: the timed region did the writer's fsync */
	bool refused_direct; /* out: open refused O_DIRECT: skipped, not failed */
	struct fslab_lat_hist *lat; /* --latency: per-operation times, or NULL */
	/* --latency: the loop's span in lat_clock() ticks and in ns, to turn
	 * the histogram's ticks into time */
	uint64_t lat_tk0, lat_tk1, lat_ns0, lat_ns1;
	double elapsed;      /* out: timed region */
	double untimed;      /* out: untimed I/O (open, fsync, close, priming) */
	char *why;           /* out: failure reason */
	size_t whylen;
	/* out, the queued tests: bytes and requests completed in the timed
	 * region (a pass of a fixed length moves what it can), and whether
	 * every record of the file was written (a writer that did not cover
	 * the file leaves it for the next test to write whole) */
	uint64_t moved_bytes, moved_ops;
	bool covered;
	/* the partition's counters (cell->dev_stat open; -1: none), sectors
	 * read and written: [0] at the timer's start, [1] at its stop, [2]
	 * after the syncfs; bit k of dev_ok: reading k worked */
	int stat_fd;
	uint64_t dev[3][2];
	unsigned dev_ok;
};

/* A stop asked (SIGINT, SIGTERM): every loop of a pass ends at its next
 * record or file; the cell runner drops the pass (no row). */
#define PASS_STOP(p) ((p)->cell->stop && *(p)->cell->stop)

/* Reads the partition's counters (fd: its stat file) into p->dev[k],
 * outside any timed region. */
void fslab_pass_dev_read(struct fslab_bench_pass *p, unsigned k);

/* Does the pass open its file(s) with O_DIRECT?  From the cache mode
 * (cell->sweep->cache) as it reaches the open: the queued tests in every
 * mode but warm (rows flagged buffered then); the others in direct mode,
 * but for the stdio tests, which run buffered as IOzone -I does (stdio
 * cannot do O_DIRECT; run_sweep.c flags their rows). */
static inline bool fslab_pass_direct(const struct fslab_bench_pass *p)
{
	enum fslab_cache_mode m = p->cell->sweep->cache;

	if (p->test->flags & FSLAB_BT_QUEUED)
		return m != FSLAB_CACHE_WARM;
	return m == FSLAB_CACHE_DIRECT && !(p->test->flags & FSLAB_BT_STDIO);
}

/* The per-operation clock of --latency: the CPU's time-stamp counter
 * where there is one (a few ns, a third of clock_gettime's cost, which is
 * most of --latency's overhead on a cached 4 KiB loop), else
 * CLOCK_MONOTONIC in ns.  Ticks become ns with the loop's own span
 * measured both ways (fslab_lat_begin/fslab_lat_end). */
static inline uint64_t fslab_lat_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return fslab_now_ns();
#endif
}

static inline uint64_t fslab_lat_begin(struct fslab_bench_pass *p)
{
	if (!p->lat)
		return 0;
	p->lat_ns0 = fslab_now_ns();
	p->lat_tk0 = fslab_lat_clock();
	return p->lat_tk0;
}

static inline void fslab_lat_end(struct fslab_bench_pass *p)
{
	if (!p->lat)
		return;
	p->lat_tk1 = fslab_lat_clock();
	p->lat_ns1 = fslab_now_ns();
}

/* --latency around a timed loop: the loop's span read on both clocks
 * (fslab_lat_begin returns the first mark) and, in the loop, after each
 * operation: its ticks since the previous mark go into a bucket.  Nothing else (no allocation, no branch but
 * the histogram's). */
#define FSLAB_LAT_MARK(lat, mark)                                \
	do {                                                      \
		if (lat) {                                        \
			uint64_t now_ = fslab_lat_clock();              \
			fslab_lat_add((lat), now_ - (mark));      \
			(mark) = now_;                            \
		}                                                 \
	} while (0)

/* The clock reads that open and close a timed region (pass.c): each
 * reads the partition's counters outside the region, and ops->timer (a
 * recorder's mark) runs just outside it. */
double fslab_pass_timer_start(struct fslab_bench_pass *p);
double fslab_pass_timer_stop(struct fslab_bench_pass *p);

/* Explains a pass's failure in p->why ("write at offset 4096", then
 * ": <strerror(err)>" when err is set); returns -err, or -EIO. */
int fslab_pass_fail(struct fslab_bench_pass *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Tells c->warn (when set) of a failure to clean up: the message of fmt,
 * the code -err. */
void fslab_cell_warn(const struct fslab_cell *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Opens the test file name of c in dfd: with O_CREAT, O_EXCL the first
 * time in a cell, truncated once *exists (set here).  The fd or -1. */
int fslab_cell_open(const struct fslab_cell *c, int dfd, bool *exists, int flags);
/* Opens the pass's test file, untimed (O_DIRECT by fslab_pass_direct; O_CREAT:
 * created once per cell, truncated after): the fd, or the pass's failure
 * (p->refused_direct when the filesystem refuses O_DIRECT). */
int fslab_pass_open(struct fslab_bench_pass *p, int flags);
/* IOzone's random order of n records in p->buf->order, made once per n
 * (4 bytes a record), untimed.  0 or the pass's failure. */
int fslab_pass_shuffle(struct fslab_bench_pass *p, uint64_t n);

/* The queued tests' one pass (bench/engine/queued.c): io_uring at the cell's
 * depth and threads. */
int fslab_queued_run(struct fslab_bench_pass *p);

/* The many-files tests' one pass (bench/engine/files.c): create, stat, read or
 * unlink every file of the tree (p->test->id says which). */
int fslab_files_run(struct fslab_bench_pass *p);
/* Before a test that needs the tree: writes it whole, untimed, unless it
 * is complete (what a partial one holds is removed first).  0 or the
 * pass's failure. */
int fslab_files_ensure(struct fslab_bench_pass *p);
/* Removes whatever of the tree exists, untimed (its seconds added to
 * *untimed); a failure goes to c->warn, not returned. */
void fslab_files_remove(const struct fslab_cell *c, int dfd, struct fslab_files_tree *tree,
			double *untimed);

#endif
