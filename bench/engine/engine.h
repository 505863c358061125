/* The I/O engine's contract with the run above it (bench/engine/: a leaf
 * that knows a cell and a target, nothing of runs): the I/O ops, cold
 * mode's cache drop, the cell plan and the cell's tests. */
#ifndef FSLAB_BENCH_ENGINE_H
#define FSLAB_BENCH_ENGINE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "names.h"
#include "cell_plan.h"
#include "spec.h"
#include "stats.h"
#include "target.h"

/* The engine's I/O layer: every call fslab run makes on a file it
 * benchmarks goes through one ops struct (fio's ioengine_ops shape): the
 * 13 tests' test file (bench/engine/engine.c), the queued tests' rings
 * (bench/engine/queued.c), the many-files tests' tree (bench/engine/files.c), the
 * device probe's file
 * (bench/probe.c) and the steady-state phase's file (bench/run_steady.c).
 * A test can swap in an ops struct that records the (operation, offset,
 * length) sequence or injects faults.  Each function behaves like the
 * libc call it is named after (-1 / NULL / short count with errno set on
 * failure).
 *
 * Not through it, by design: the page-cache drop (bench/engine/cache.c's
 * fslab_cache_drop, the one drop policy: its fsync, posix_fadvise,
 * mincore, drop_caches and remount are the policy's, reached through the
 * cell's drop_cache and called by the probe), and calls about a
 * filesystem rather than a file's data (fstatvfs for free space, FITRIM
 * after a pass).
 *
 * Files are named relative to a directory fd (the run's private directory)
 * and never through a symlink: open, unlink and fopen work like openat,
 * unlinkat and an fdopen of openat, with O_NOFOLLOW always added. */
/* The layout of struct fslab_io_ops.  Bumped whenever a member is added,
 * removed or changes meaning; the engine refuses an ops struct of another
 * version (every test of the cell fails saying so), so a fake built
 * against an old layout breaks loudly instead of being called wrongly. */
#define FSLAB_IO_OPS_VERSION 4

/* One request of the queued tests for a ring: a read into or a write from
 * buf (the ring's registered buffer buf_index) of len bytes at off of fd;
 * tag comes back with its completion. */
struct fslab_ring_req {
	int fd;
	bool write;
	unsigned buf_index;
	void *buf;
	size_t len;
	off_t off;
	uint64_t tag;
};

/* A completion: the request's tag and its result, the bytes moved or
 * -errno (io_uring's cqe). */
struct fslab_ring_done {
	uint64_t tag;
	int res;
};

struct fslab_io_ops {
	unsigned version; /* FSLAB_IO_OPS_VERSION */
	const char *name;
	void *ctx; /* passed back as the first argument */

	int (*open)(void *ctx, int dfd, const char *name, int flags, mode_t mode);
	int (*close)(void *ctx, int fd);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, off_t off);
	off_t (*lseek)(void *ctx, int fd, off_t off, int whence);
	int (*fsync)(void *ctx, int fd);
	int (*unlink)(void *ctx, int dfd, const char *name);
	/* Flushes the filesystem holding dfd (syncfs(2)); may be NULL. */
	int (*syncfs)(void *ctx, int dfd);
	/* Opens path (a block device) read-only, fsync(2)s and closes it: its
	 * dirty buffers reach the disk even when the filesystem's own flush
	 * does not (a FUSE daemon writing the device through the page cache).
	 * May be NULL. */
	int (*fsync_path)(void *ctx, const char *path);
	/* sync(2): every filesystem of the machine, IOzone's own flush.  May
	 * be NULL. */
	int (*sync)(void *ctx);

	/* mode "r" or "r+" (the file exists); never creates. */
	FILE *(*fopen)(void *ctx, int dfd, const char *name, const char *mode);
	int (*setvbuf)(void *ctx, FILE *f, char *buf, int type, size_t size);
	size_t (*fread)(void *ctx, void *buf, size_t size, size_t n, FILE *f);
	size_t (*fwrite)(void *ctx, const void *buf, size_t size, size_t n, FILE *f);
	int (*fflush)(void *ctx, FILE *f);
	int (*fclose)(void *ctx, FILE *f);

	/* Called right before a timed region's first clock read (start true)
	 * and right after its last one (start false): outside the region, so
	 * a recorder can tell which calls were timed.  May be NULL. */
	void (*timer)(void *ctx, bool start);

	/* io_uring for the queued tests: one ring per thread, used by that
	 * thread only (a fake must allow one ring per thread at once).
	 * ring_setup makes a ring of depth submission entries and registers
	 * bufs[0..nbufs), each len bytes, as its fixed buffers (where the
	 * memlock limit refuses them, the ring does the same I/O from
	 * unregistered buffers); *ring is its handle.  ring_submit queues
	 * reqs[0..n) and submits them in one call: how many were submitted.
	 * ring_reap waits until at least min completions are there (0: does
	 * not wait) and takes up to max of them into done: how many.
	 * ring_teardown frees the ring (requests still in flight are
	 * cancelled).  -1 with errno set on failure, like the others. */
	int (*ring_setup)(void *ctx, unsigned depth, void *const *bufs, unsigned nbufs, size_t len,
			  void **ring);
	int (*ring_submit)(void *ctx, void *ring, const struct fslab_ring_req *reqs, unsigned n);
	int (*ring_reap)(void *ctx, void *ring, struct fslab_ring_done *done, unsigned max, unsigned min);
	void (*ring_teardown)(void *ctx, void *ring);
	/* The queued writer's pre-sizing of its file: fallocate(2) mode 0 of
	 * 0..len (blocks reserved, size len; -1 EOPNOTSUPP where the
	 * filesystem has none), else ftruncate(2). */
	int (*fallocate)(void *ctx, int fd, off_t len);
	int (*ftruncate)(void *ctx, int fd, off_t len);

	/* The many-files tests (bench/engine/files.c): fdatasync(2) of a file;
	 * mkdirat(2), unlinkat(2) with AT_REMOVEDIR and fstatat(2) with
	 * AT_SYMLINK_NOFOLLOW, each relative to the directory fd dfd. */
	int (*fdatasync)(void *ctx, int fd);
	int (*mkdir)(void *ctx, int dfd, const char *name, mode_t mode);
	int (*rmdir)(void *ctx, int dfd, const char *name);
	int (*fstatat)(void *ctx, int dfd, const char *name, struct stat *st);
};

/* The real system calls. */
extern const struct fslab_io_ops fslab_io_posix;


/* Cold mode's page-cache control: before each read test the test file's
 * pages leave the page cache, disturbing as little else as it can:
 *   fadvise      fsync, then posix_fadvise(POSIX_FADV_DONTNEED) on the
 *                file, verified with mincore() on a mapping of the file
 *                (outside the timed region): no page of it may stay
 *                resident (pages found are asked for again a few times
 *                first: a readahead's read may still hold them).  The first choice: it drops one file, not the
 *                machine's page cache.
 * Where that does not drop (a FUSE mount, whose daemon reads its device
 * through the page cache fadvise on the file never reaches; tmpfs; pages
 * found resident after the request), the filesystem falls back, for the
 * rest of the run, to
 *   drop_caches  fsync + syncfs, then "1" into /proc/sys/vm/drop_caches
 *                (root, and /proc/sys writable), else
 *   remount      unmount and mount the filesystem again (only a target
 *                whose maker gave a remount: a lab partition).
 * The manifest records the method per filesystem (cache_drop_method) and
 * why (cache_drop_note). */
/* fadvise found pages resident: it is asked again up to this many times,
 * after 1, 4 and 16 ms (21 ms in all, outside the timer). */
#define FSLAB_CACHE_FADVISE_RETRIES 3
#define FSLAB_CACHE_FADVISE_WAIT_NS 1000000L

enum fslab_drop_method {
	FSLAB_DROP_CACHES,
	FSLAB_DROP_REMOUNT,
	FSLAB_DROP_FADVISE,
};

struct fslab_cache_ctl {
	/* The method in use: fadvise until a drop finds it does not work
	 * here, then fallback (when there is one). */
	enum fslab_drop_method method;
	enum fslab_drop_method fallback;
	bool has_fallback;
	bool forced; /* FSLAB_DROP_METHOD (tests): no check, no fallback */
	bool checked; /* the filesystem type was looked at (FUSE, tmpfs) */
	/* fadvise was found not to drop here and there is no fallback: a
	 * drop may leave pages cached. */
	bool leaky;
	/* fadvise drops that found pages resident and dropped them when
	 * asked again (counted in the note). */
	unsigned retried;
	/* The wait before asking again, the k-th (from 0) of ns nanoseconds;
	 * NULL (the init's): nanosleep.  Tests set it to release what holds
	 * the pages. */
	void (*wait)(void *wait_ctx, unsigned k, long ns);
	void *wait_ctx;
	/* Why this method, for the manifest's cache_drop_note. */
	char note[PATH_MAX + 256];
	/* The backing file of the loop device (no direct I/O) the filesystem
	 * is on: its pages are dropped too.  "" when none. */
	char backing[PATH_MAX];
	/* The target (lib/target.h) whose remount the fallback calls: its
	 * name and mount point.  NULL: no remount. */
	const struct fslab_target *target;
	/* Updated with the mount point's st_dev after a remount (a FUSE
	 * mount gets a new one), so the run still knows its filesystem. */
	dev_t *dev;
	/* remount: the run holds directories open inside the mount (its
	 * private directory), which would make the unmount fail.  release
	 * closes them before the unmount; reopen opens them again after the
	 * mount (proving they are the same directories) and stores the new
	 * private directory fd in *dir_fd (0, or -errno said in e).  Both
	 * may be NULL. */
	void (*release)(void *hold_ctx);
	int (*reopen)(void *hold_ctx, int *dir_fd, struct fslab_err *e);
	void *hold_ctx;
};

/* Picks the method for one filesystem, the target t (remount the last
 * resort when t has one); buffered_loop_backing: the backing file of the
 * loop device without direct I/O the filesystem is on, whose pages are
 * dropped too; NULL or "" when there is none. */
void fslab_cache_ctl_init(struct fslab_cache_ctl *c, const struct fslab_target *t,
			  const char *buffered_loop_backing);
const char *fslab_drop_method_name(enum fslab_drop_method m);

/* The loop device a filesystem is on, from its block device node (a loop
 * device or a partition of one; fs_dev, the directory's st_dev, when device
 * is no block device node): its backing file (the kernel's path, from
 * sysfs) into backing and whether it does direct I/O (false: it reads its
 * backing file through the host's page cache).  False when on no loop. */
bool fslab_loop_of_device(const char *device, dev_t fs_dev, char *backing, size_t len, bool *direct);

/* Pages of the open file fd resident in the page cache (mincore on a
 * read-only mapping; the file's size from fstat): 0 or -errno. */
int fslab_cache_resident(int fd, uint64_t *resident, uint64_t *pages);

/* Matches struct fslab_cell's drop_cache: ctx is a struct fslab_cache_ctl;
 * the test file is name in the directory *dir_fd (a directory: every file
 * in it and in its directories, the many-files tests' tree).  The one cache drop of
 * fslab run: the cold-mode tests and the device probe (bench/probe.c). */
int fslab_cache_drop(void *ctx, int *dir_fd, const char *name, struct fslab_err *e);

/* Does a drop by c's method (as it stands after the drops so far) leave
 * none of the file's pages cached?  False for an unchecked fadvise
 * (FSLAB_DROP_METHOD=fadvise) and for fadvise found not to drop with no
 * fallback. */
bool fslab_cache_drop_sure(const struct fslab_cache_ctl *c);

/* The CrystalDiskMark presets' discarded warm-up pass of each row before
 * its first measured one on each filesystem (lib/cell_plan.h). */
#define FSLAB_CDM_WARMUP_PASSES 1

/* One file x record cell of the sweep on one filesystem: the 13 IOzone
 * tests run in IOzone's order on one test file (docs/tests.md), each timed with
 * CLOCK_MONOTONIC around its I/O loop and nothing else.
 *
 * The tests are rows of a const table (fslab_bench_test_get); all I/O goes
 * through the fslab_io_ops given in the cell, so tests can record or fake
 * it. */
/* What a test needs and does. */
enum {
	FSLAB_BT_CREATES = 1 << 0,    /* creates the test file (write) */
	FSLAB_BT_NEEDS_FILE = 1 << 1, /* needs the whole file written */
	FSLAB_BT_WRITES = 1 << 2,
	FSLAB_BT_READS = 1 << 3,
	FSLAB_BT_STDIO = 1 << 4,      /* fopen/fread/fwrite with setvbuf(record) */
	FSLAB_BT_SECOND_PASS = 1 << 5, /* the "re-" pass over the same file */
	FSLAB_BT_QUEUED = 1 << 6,      /* io_uring at a depth and threads (bench/engine/queued.c) */
	FSLAB_BT_FILES = 1 << 7,       /* the many-files tests' tree (bench/engine/files.c) */
	FSLAB_BT_NEEDS_TREE = 1 << 8,  /* needs the tree's every file written whole */
	/* moves no file data: its throughput counts FSLAB_FILES_META_BYTES a
	 * file (stat, unlink), so no device bound applies to it */
	FSLAB_BT_METADATA = 1 << 9,
};

struct fslab_bench_pass;

struct fslab_bench_test {
	enum fslab_test id;
	unsigned flags;          /* FSLAB_BT_* */
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
	/* --latency: per-operation latency of the kept pass (microseconds,
	 * lib/stats.h FSLAB_LAT_*: quantiles are bucket upper edges, within
	 * 6.25%; below 0 when the pass is too short for it) */
	bool has_latency;
	double lat_us[FSLAB_LAT_N];
	/* Operations a second of the kept pass, for the CSV's iops column:
	 * set by the queued tests (I/O requests) and the many-files tests
	 * (files); 0 for IOzone's, whose rate is throughput / record. */
	double ops_s;
	/* The kept pass's bytes (docs/run.md "Device bytes"): io_bytes, the
	 * file data it read or wrote as the program saw it (0 for stat and
	 * unlink); with the cell's dev_stat (has_dev), what the partition
	 * read and wrote from the timer's start to after a syncfs that
	 * follows the pass, and of those written, the ones written by the
	 * timer's stop. */
	uint64_t io_bytes;
	bool has_dev;
	uint64_t dev_read_bytes, dev_write_bytes, dev_write_timed_bytes;
};

struct fslab_cell_times {
	double timed_s;      /* sum of the timed regions */
	double untimed_io_s; /* open, untimed fsync/close, priming read, create, delete, syncfs */
	double cache_drop_s; /* cold mode's page-cache drops */
};

/* The many-files tests (bench/engine/files.c, docs/tests.md): in a fresh tree
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
#define FSLAB_FILES_META_BYTES 4096
/* The files of a cell of file size S. */
uint64_t fslab_files_count(uint64_t file_bytes);
/* The room the tree takes on a filesystem, at most: each file with a
 * cluster of slack (32 KiB, FAT's largest usual). */
uint64_t fslab_files_tree_bytes(uint64_t file_bytes);

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
	 * bench/engine/files.c says why (fusefat). */
	bool keep_tree_dirs;
	/* The run's typed configuration (lib/spec.h, preset < [sweep] <
	 * flags): the engine reads the cache mode here (sweep->cache), and
	 * nowhere else, where it acts on it: O_DIRECT at an open, the fsync
	 * inside the timed region, cold mode's drop.  Never NULL. */
	const struct fslab_sweep_spec *sweep;
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
	/* The block layer's counters of the partition the filesystem reads
	 * and writes (/sys/class/block/PART/stat); NULL or "": none.  Read
	 * right before each timed region, right after it, and after a
	 * syncfs (+ the fsync of device) that follows the pass, all
	 * outside the timer. */
	const char *dev_stat;
	/* ops->version must be FSLAB_IO_OPS_VERSION. */
	const struct fslab_io_ops *ops;
	/* cold mode: empties the page cache of the test file (closed); 0 or
	 * -errno, said in e.  A remount may replace *dir_fd (the same
	 * directory, opened again). */
	int (*drop_cache)(void *ctx, int *dir_fd, const char *name, struct fslab_err *e);
	void *drop_ctx;
	/* What the cell could not clean up (the test file, the tree of
	 * files): no failure of a test, so it is told here for the caller
	 * to warn about.  May be NULL (dropped). */
	void (*warn)(const struct fslab_err *e);
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
	 * FSLAB_DISTURBED_FACTOR (lib/stats.h).  Such a pass was disturbed
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
