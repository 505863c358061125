/* The 13 IOzone tests as a const table, and the cell runner.  Each test's
 * run function does: untimed open (+ untimed priming read where IOzone has
 * one), timer start, the I/O loop, [fsync + close in fsync mode], timer
 * stop, untimed fsync/close.  Nothing else sits between the two clock
 * reads. */
#include "engine.h"
#include "log.h"
#include "sweep_stats.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One pass of one test: what the run functions need. */
struct fslab_bench_pass {
	const struct fslab_cell *cell;
	const struct fslab_bench_test *test;
	struct fslab_bench_buffers *buf;
	int dfd;             /* the directory holding the test file */
	bool *file_exists;   /* the cell may have created the test file */
	uint64_t n;          /* records */
	size_t rec;          /* record bytes */
	bool direct;         /* O_DIRECT on the fd tests */
	bool flush_in_timer; /* fsync mode */
	bool fsync_in_timer; /* cold mode: a writer's fsync is timed (iozone -e) */
	bool synced;         /* out: the timed region did the writer's fsync */
	struct fslab_lat_hist *lat; /* --latency: per-operation times, or NULL */
	/* --latency: the loop's span in lat_clock() ticks and in ns, to turn
	 * the histogram's ticks into time */
	uint64_t lat_tk0, lat_tk1, lat_ns0, lat_ns1;
	double elapsed;      /* out: timed region */
	double untimed;      /* out: untimed I/O (open, fsync, close, priming) */
	char *why;           /* out: failure reason */
	size_t whylen;
};

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *fslab_io_mode_to_string(enum fslab_io_mode m)
{
	return m == FSLAB_IO_POSITIONAL ? "positional" : "seek";
}

int fslab_io_mode_from_string(const char *s)
{
	if (s && strcmp(s, "seek") == 0)
		return FSLAB_IO_SEEK;
	if (s && strcmp(s, "positional") == 0)
		return FSLAB_IO_POSITIONAL;
	return -1;
}

const char *fslab_sync_policy_to_string(enum fslab_sync_policy p)
{
	return p == FSLAB_SYNC_GLOBAL ? "global" : "fs";
}

int fslab_sync_policy_from_string(const char *s)
{
	if (s && strcmp(s, "fs") == 0)
		return FSLAB_SYNC_FS;
	if (s && strcmp(s, "global") == 0)
		return FSLAB_SYNC_GLOBAL;
	return -1;
}

/* --latency: the one clock read per operation in a timed loop. */
static inline uint64_t lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* The per-operation clock of --latency: the CPU's time-stamp counter
 * where there is one (a few ns, a third of clock_gettime's cost, which is
 * most of --latency's overhead on a cached 4 KiB loop), else
 * CLOCK_MONOTONIC in ns.  Ticks become ns with the loop's own span
 * measured both ways (lat_begin/lat_end). */
static inline uint64_t lat_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return lat_now_ns();
#endif
}

static inline uint64_t lat_begin(struct fslab_bench_pass *p)
{
	if (!p->lat)
		return 0;
	p->lat_ns0 = lat_now_ns();
	p->lat_tk0 = lat_clock();
	return p->lat_tk0;
}

static inline void lat_end(struct fslab_bench_pass *p)
{
	if (!p->lat)
		return;
	p->lat_tk1 = lat_clock();
	p->lat_ns1 = lat_now_ns();
}

/* In a timed loop, after each operation: its ticks since the previous
 * mark go into a bucket.  Nothing else (no allocation, no branch but
 * the histogram's). */
#define LAT_MARK(lat, mark)                                      \
	do {                                                      \
		if (lat) {                                        \
			uint64_t now_ = lat_clock();              \
			fslab_lat_add((lat), now_ - (mark));      \
			(mark) = now_;                            \
		}                                                 \
	} while (0)

/* ---- access patterns ---- */

uint64_t fslab_random_record(uint64_t i, uint64_t n)
{
	unsigned k = 0;
	uint64_t mask, x = i;

	if (n <= 1)
		return 0;
	while ((UINT64_C(1) << k) < n)
		k++;
	mask = (k >= 64) ? UINT64_MAX : (UINT64_C(1) << k) - 1;
	/* A bijection of [0, 2^k): odd multiplies, xor-shifts and adds with
	 * fixed constants, walked until it lands inside [0, n) (cycle walking
	 * keeps it a bijection of [0, n)).  Fixed constants: the same order in
	 * every run, like IOzone's fixed-seed random offsets. */
	do {
		x = (x * UINT64_C(0x9E3779B97F4A7C15)) & mask;
		x ^= x >> ((k + 1) / 2);
		x = (x + UINT64_C(0x632BE59BD9B4E019)) & mask;
		x = (x * UINT64_C(0xBF58476D1CE4E5B9)) & mask;
		x ^= x >> ((k + 2) / 3 ? (k + 2) / 3 : 1);
		x = (x + UINT64_C(0x94D049BB133111EB)) & mask;
	} while (x >= n);
	return x;
}

uint64_t fslab_stride_next(uint64_t rec, uint64_t n, uint64_t *wraps)
{
	/* IOzone 3.508: jump 17 records; when the jump would land on record
	 * N-2 or later (rec + 17 >= N - 2), restart at (wraps mod N), wraps
	 * counted from 1, or at 0 when N <= 17. */
	if ((int64_t)(rec + FSLAB_STRIDE_RECORDS) >= (int64_t)n - 2) {
		(*wraps)++;
		return n <= FSLAB_STRIDE_RECORDS ? 0 : *wraps % n;
	}
	return rec + FSLAB_STRIDE_RECORDS;
}

/* ---- helpers for the run functions (all outside the timed region) ---- */

static int pass_fail(struct fslab_bench_pass *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int pass_fail(struct fslab_bench_pass *p, int err, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(p->why, p->whylen, fmt, ap);
	va_end(ap);
	n = strlen(p->why);
	if (err)
		snprintf(p->why + n, p->whylen - n, ": %s", strerror(err));
	return err ? -err : -EIO;
}

static int io_fail(struct fslab_bench_pass *p, const char *op, uint64_t rec_index, ssize_t got)
{
	int e = errno;
	uint64_t off = rec_index * p->rec;

	if (got >= 0)
		return pass_fail(p, 0, "short %s at offset %llu (%zd of %zu bytes)", op,
				 (unsigned long long)off, got, p->rec);
	return pass_fail(p, e ? e : EIO, "%s at offset %llu", op, (unsigned long long)off);
}

/* Opens the test file in the private directory.  With O_CREAT, the first
 * creation in a cell is O_EXCL; once the cell may have made the file (an
 * earlier pass, or an open that created it and then refused O_DIRECT), it
 * is truncated instead.  O_NOFOLLOW always (the io ops add it). */
static int cell_open(const struct fslab_cell *c, int dfd, bool *exists, int flags)
{
	const struct fslab_io_ops *ops = c->ops;
	int fd;

	if (!(flags & O_CREAT))
		return ops->open(ops->ctx, dfd, c->name, flags, 0600);
	flags &= ~(O_EXCL | O_TRUNC);
	fd = ops->open(ops->ctx, dfd, c->name, flags | (*exists ? O_TRUNC : O_EXCL), 0600);
	if (fd < 0 && errno == EEXIST && !*exists)
		fd = ops->open(ops->ctx, dfd, c->name, (flags & ~O_CREAT) | O_TRUNC, 0600);
	*exists = true;
	return fd;
}

static int pass_open(struct fslab_bench_pass *p, int flags)
{
	double t = bench_now();
	int fd;

	if (p->direct)
		flags |= O_DIRECT;
	fd = cell_open(p->cell, p->dfd, p->file_exists, flags);
	if (fd < 0) {
		int e = errno;
		if (p->direct && e == EINVAL)
			return pass_fail(p, 0, "the filesystem refuses O_DIRECT (open: EINVAL)");
		return pass_fail(p, e, "open %s", p->cell->name);
	}
	p->untimed += bench_now() - t;
	return fd;
}

/* Untimed end of an fd pass: fsync (writers) and close, unless fsync mode
 * already did both inside the timer.  keep_err keeps an earlier error. */
static int pass_finish_fd(struct fslab_bench_pass *p, int fd, int r)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = bench_now();

	if (fd < 0)
		return r;
	if (r == 0 && (p->test->flags & FSLAB_BT_WRITES) && !p->synced &&
	    ops->fsync(ops->ctx, fd) < 0)
		r = pass_fail(p, errno, "fsync %s", p->cell->name);
	if (ops->close(ops->ctx, fd) < 0 && r == 0)
		r = pass_fail(p, errno, "close %s", p->cell->name);
	p->untimed += bench_now() - t;
	return r;
}

/* cold mode: a writer's fsync inside the timer (iozone -e), so the pass
 * is timed until its data is on the device; close stays outside. */
static int pass_fsync_timed(struct fslab_bench_pass *p, int fd)
{
	const struct fslab_io_ops *ops = p->cell->ops;

	if (!(p->test->flags & FSLAB_BT_WRITES))
		return 0;
	p->synced = true;
	return ops->fsync(ops->ctx, fd) < 0 ? -errno : 0;
}

/* fsync mode: fsync (writers) and close inside the timer.  Sets *fd = -1
 * once closed. */
static int pass_flush_timed(struct fslab_bench_pass *p, int *fd)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	int r = 0;

	if ((p->test->flags & FSLAB_BT_WRITES) && ops->fsync(ops->ctx, *fd) < 0)
		r = -errno;
	if (ops->close(ops->ctx, *fd) < 0 && r == 0)
		r = -errno;
	*fd = -1;
	return r;
}

/* The clock reads that open and close a timed region.  ops->timer (a
 * recorder's mark) runs just outside them. */
static inline double pass_timer_start(const struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;

	if (ops->timer)
		ops->timer(ops->ctx, true);
	return bench_now();
}

static inline double pass_timer_stop(const struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = bench_now();

	if (ops->timer)
		ops->timer(ops->ctx, false);
	return t;
}

/* IOzone fsyncs the freshly opened file before every timed pass but random
 * read/write, outside the timer: the pass then starts with no dirty pages
 * of the file (on a journaled filesystem the next overwrite is faster). */
static int pass_presync(struct fslab_bench_pass *p, int fd)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = bench_now();
	int r = 0;

	if (ops->fsync(ops->ctx, fd) < 0)
		r = pass_fail(p, errno, "fsync %s before the pass", p->cell->name);
	p->untimed += bench_now() - t;
	return r;
}

/* ---- the run functions: one per access pattern ---- */

/* write (creates), rewrite: N sequential writes. */
static int run_seq_write(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	int flags = O_WRONLY | ((p->test->flags & FSLAB_BT_CREATES) ? O_CREAT : 0);
	const void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	uint64_t i;
	ssize_t got = 0;
	int fd, r = 0;
	double t0, t1;
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;

	fd = pass_open(p, flags);
	if (fd < 0)
		return fd;
	r = pass_presync(p, fd);
	if (r < 0)
		return pass_finish_fd(p, fd, r);
	t0 = pass_timer_start(p);
	lmark = lat_begin(p);
	for (i = 0; i < n; i++) {
		got = ops->write(ops->ctx, fd, buf, rec);
		if (got != (ssize_t)rec)
			break;
		LAT_MARK(lat, lmark);
	}
	lat_end(p);
	if (i == n && p->flush_in_timer)
		r = pass_flush_timed(p, &fd);
	else if (i == n && p->fsync_in_timer)
		r = pass_fsync_timed(p, fd);
	t1 = pass_timer_stop(p);
	if (i < n)
		r = io_fail(p, "write", i, got);
	else if (r < 0)
		r = pass_fail(p, -r, "fsync/close %s", p->cell->name);
	p->elapsed = t1 - t0;
	return pass_finish_fd(p, fd, r);
}

/* read, reread: untimed priming read of record 0 and seek back, then N
 * sequential reads. */
static int run_seq_read(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	uint64_t i;
	ssize_t got = 0;
	int fd, r = 0;
	double t0, t1;
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;

	fd = pass_open(p, O_RDONLY);
	if (fd < 0)
		return fd;
	r = pass_presync(p, fd);
	if (r < 0)
		return pass_finish_fd(p, fd, r);
	t0 = bench_now();
	got = ops->read(ops->ctx, fd, buf, rec);
	if (got != (ssize_t)rec)
		return pass_finish_fd(p, fd, io_fail(p, "priming read", 0, got));
	if (ops->lseek(ops->ctx, fd, 0, SEEK_SET) != 0)
		return pass_finish_fd(p, fd, pass_fail(p, errno, "lseek to 0"));
	p->untimed += bench_now() - t0;

	t0 = pass_timer_start(p);
	lmark = lat_begin(p);
	for (i = 0; i < n; i++) {
		got = ops->read(ops->ctx, fd, buf, rec);
		if (got != (ssize_t)rec)
			break;
		LAT_MARK(lat, lmark);
	}
	lat_end(p);
	if (i == n && p->flush_in_timer)
		r = pass_flush_timed(p, &fd);
	else if (i == n && p->fsync_in_timer)
		r = pass_fsync_timed(p, fd);
	t1 = pass_timer_stop(p);
	if (i < n)
		r = io_fail(p, "read", i, got);
	else if (r < 0)
		r = pass_fail(p, -r, "close %s", p->cell->name);
	p->elapsed = t1 - t0;
	return pass_finish_fd(p, fd, r);
}

/* The positioned tests (random read/write, backward read, record rewrite,
 * stride read) visit records in an order given by `order`.  By default
 * (FSLAB_IO_SEEK) with IOzone's calls, offset for offset: lseek to the
 * record, then read or write; backward read seeks to the last record from
 * the end, then back two records from the current position after each
 * read (IOzone's SEEK_END / SEEK_CUR), except after the last.  With
 * FSLAB_IO_POSITIONAL one pread or pwrite per record at the same offsets:
 * half the system calls (see docs/tests.md). */
enum pos_order { POS_RANDOM, POS_BACKWARD, POS_ZERO, POS_STRIDE };

static int run_positioned(struct fslab_bench_pass *p, enum pos_order order)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	const bool seek = p->cell->io != FSLAB_IO_POSITIONAL;
	void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	uint64_t i, which = 0, wraps = 0;
	ssize_t got = 0;
	bool seek_failed = false;
	int fd, r = 0;
	double t0, t1;
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;

	fd = pass_open(p, writes ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return fd;
	if (order != POS_RANDOM) {
		r = pass_presync(p, fd);
		if (r < 0)
			return pass_finish_fd(p, fd, r);
	}
	t0 = pass_timer_start(p);
	lmark = lat_begin(p);
	for (i = 0; i < n; i++) {
		switch (order) {
		case POS_RANDOM:
			which = fslab_random_record(i, n);
			break;
		case POS_BACKWARD:
			which = n - 1 - i;
			break;
		case POS_ZERO:
			which = 0;
			break;
		case POS_STRIDE:
			if (i)
				which = fslab_stride_next(which, n, &wraps);
			break;
		}
		if (seek) {
			off_t want = (off_t)(which * rec), at;

			if (order != POS_BACKWARD)
				at = ops->lseek(ops->ctx, fd, want, SEEK_SET);
			else if (i == 0)
				at = ops->lseek(ops->ctx, fd, -(off_t)rec, SEEK_END);
			else
				at = ops->lseek(ops->ctx, fd, -2 * (off_t)rec, SEEK_CUR);
			if (at != want) {
				seek_failed = true;
				break;
			}
			got = writes ? ops->write(ops->ctx, fd, buf, rec) : ops->read(ops->ctx, fd, buf, rec);
		} else {
			got = writes ? ops->pwrite(ops->ctx, fd, buf, rec, (off_t)(which * rec))
				     : ops->pread(ops->ctx, fd, buf, rec, (off_t)(which * rec));
		}
		if (got != (ssize_t)rec)
			break;
		LAT_MARK(lat, lmark);
	}
	lat_end(p);
	if (i == n && p->flush_in_timer)
		r = pass_flush_timed(p, &fd);
	else if (i == n && p->fsync_in_timer)
		r = pass_fsync_timed(p, fd);
	t1 = pass_timer_stop(p);
	if (seek_failed)
		r = pass_fail(p, errno ? errno : ESPIPE, "lseek to offset %llu",
			      (unsigned long long)(which * rec));
	else if (i < n)
		r = io_fail(p, writes ? "write" : "read", which, got);
	else if (r < 0)
		r = pass_fail(p, -r, "fsync/close %s", p->cell->name);
	p->elapsed = t1 - t0;
	return pass_finish_fd(p, fd, r);
}

/* random read, random write: records in fslab_random_record order. */
static int run_random(struct fslab_bench_pass *p)
{
	return run_positioned(p, POS_RANDOM);
}

/* backward read: records N-1 down to 0. */
static int run_backward(struct fslab_bench_pass *p)
{
	return run_positioned(p, POS_BACKWARD);
}

/* record rewrite: the record at offset 0 written N times. */
static int run_record_rewrite(struct fslab_bench_pass *p)
{
	return run_positioned(p, POS_ZERO);
}

/* stride read: N reads, jumping 17 records with IOzone's wrap rule. */
static int run_stride(struct fslab_bench_pass *p)
{
	return run_positioned(p, POS_STRIDE);
}

/* fwrite, frewrite, fread, freread: stdio with setvbuf(record). */
static int run_stdio(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	uint64_t i;
	size_t got = 0;
	FILE *f;
	int r = 0, e = 0;
	double t, t0, t1;
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;

	t = bench_now();
	f = ops->fopen(ops->ctx, p->dfd, p->cell->name, writes ? "r+" : "r");
	if (!f)
		return pass_fail(p, errno, "fopen %s", p->cell->name);
	if (ops->setvbuf(ops->ctx, f, p->buf->stdio, _IOFBF, rec) != 0) {
		r = pass_fail(p, errno ? errno : EINVAL, "setvbuf(%zu)", rec);
		ops->fclose(ops->ctx, f);
		return r;
	}
	p->untimed += bench_now() - t;
	r = pass_presync(p, fileno(f));
	if (r < 0) {
		ops->fclose(ops->ctx, f);
		return r;
	}

	t0 = pass_timer_start(p);
	lmark = lat_begin(p);
	for (i = 0; i < n; i++) {
		got = writes ? ops->fwrite(ops->ctx, buf, rec, 1, f) : ops->fread(ops->ctx, buf, rec, 1, f);
		if (got != 1)
			break;
		LAT_MARK(lat, lmark);
	}
	lat_end(p);
	if (i == n && p->flush_in_timer) {
		if (writes && (ops->fflush(ops->ctx, f) != 0 || ops->fsync(ops->ctx, fileno(f)) != 0))
			r = -errno;
		if (ops->fclose(ops->ctx, f) != 0 && r == 0)
			r = -errno;
		f = NULL;
	} else if (i == n && p->fsync_in_timer && writes) {
		if (ops->fflush(ops->ctx, f) != 0 || ops->fsync(ops->ctx, fileno(f)) != 0)
			r = -errno;
		p->synced = true;
	}
	t1 = pass_timer_stop(p);
	e = errno;
	p->elapsed = t1 - t0;
	if (i < n) {
		errno = e;
		r = io_fail(p, writes ? "fwrite" : "fread", i, got == 1 ? (ssize_t)rec : (e ? -1 : 0));
	} else if (r < 0) {
		r = pass_fail(p, -r, "fflush/fsync/fclose %s", p->cell->name);
	}
	if (f) {
		t = bench_now();
		if (r == 0 && writes && !p->synced &&
		    (ops->fflush(ops->ctx, f) != 0 || ops->fsync(ops->ctx, fileno(f)) != 0))
			r = pass_fail(p, errno, "fflush/fsync %s", p->cell->name);
		if (ops->fclose(ops->ctx, f) != 0 && r == 0)
			r = pass_fail(p, errno, "fclose %s", p->cell->name);
		p->untimed += bench_now() - t;
	}
	return r;
}

/* ---- the test table: IOzone's order ---- */

static const struct fslab_bench_test bench_tests[FSLAB_TEST_MAX] = {
	{ FSLAB_TEST_WRITE, FSLAB_BT_CREATES | FSLAB_BT_WRITES,
	  "create the file, N sequential write(record)", run_seq_write },
	{ FSLAB_TEST_REWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_SECOND_PASS,
	  "reopen without truncating, N sequential write(record)", run_seq_write },
	{ FSLAB_TEST_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS,
	  "untimed priming read of record 0 + lseek 0, then N sequential read(record)",
	  run_seq_read },
	{ FSLAB_TEST_REREAD, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_SECOND_PASS,
	  "the read pass again", run_seq_read },
	{ FSLAB_TEST_RANDOM_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS,
	  "lseek + read per record in the fixed shuffle of 0..N-1", run_random },
	{ FSLAB_TEST_RANDOM_WRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_SECOND_PASS,
	  "lseek + write per record in the same shuffle", run_random },
	{ FSLAB_TEST_BACKWARD_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS,
	  "records N-1 down to 0: lseek(-record, SEEK_END), then read + lseek(-2 records, SEEK_CUR)",
	  run_backward },
	{ FSLAB_TEST_RECORD_REWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES,
	  "lseek(0) + write(record), N times", run_record_rewrite },
	{ FSLAB_TEST_STRIDE_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS,
	  "lseek + read at records 0, 17, 34, ... with IOzone's wrap rule, N reads",
	  run_stride },
	{ FSLAB_TEST_FWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_STDIO,
	  "fopen r+, setvbuf(record), N fwrite(record)", run_stdio },
	{ FSLAB_TEST_FREWRITE,
	  FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_STDIO | FSLAB_BT_SECOND_PASS,
	  "the fwrite pass again", run_stdio },
	{ FSLAB_TEST_FREAD, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_STDIO,
	  "fopen r, setvbuf(record), N fread(record)", run_stdio },
	{ FSLAB_TEST_FREREAD,
	  FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_STDIO | FSLAB_BT_SECOND_PASS,
	  "the fread pass again", run_stdio },
};

const struct fslab_bench_test *fslab_bench_test_get(enum fslab_test t)
{
	if ((int)t < 0 || t >= FSLAB_TEST_MAX)
		return NULL;
	return &bench_tests[t];
}

/* ---- buffers ---- */

int fslab_bench_buffers_alloc(struct fslab_bench_buffers *b, uint64_t record_bytes)
{
	unsigned char *io;
	size_t align = 4096;

	memset(b, 0, sizeof(*b));
	if (posix_memalign(&b->io, align, record_bytes) != 0 ||
	    posix_memalign(&b->stdio, align, record_bytes) != 0) {
		fslab_bench_buffers_free(b);
		return -ENOMEM;
	}
	/* A fixed, non-zero pattern (no all-zero pages a filesystem could
	 * treat specially); touching it also faults the pages in, outside
	 * any timed region. */
	io = b->io;
	for (uint64_t i = 0; i < record_bytes; i++)
		io[i] = (unsigned char)(0xA5 ^ (i * 131 + (i >> 12)));
	memset(b->stdio, 0, record_bytes);
	b->record_bytes = record_bytes;
	return 0;
}

void fslab_bench_buffers_free(struct fslab_bench_buffers *b)
{
	free(b->io);
	free(b->stdio);
	memset(b, 0, sizeof(*b));
}

/* ---- the cell ---- */

/* Untimed: writes the whole file so a test that needs it can run even when
 * the write test was not asked for (or failed). */
static int cell_prepare_file(const struct fslab_cell *c, int dfd, bool *exists,
			     struct fslab_bench_buffers *b, bool direct, char *why, size_t whylen)
{
	const struct fslab_io_ops *ops = c->ops;
	uint64_t n = c->file_bytes / c->record_bytes, i;
	int fd, r = 0;
	ssize_t got = 0;

	fd = cell_open(c, dfd, exists, O_WRONLY | O_CREAT | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		r = -errno;
		snprintf(why, whylen, "cannot create the test file %s: %s", c->name, strerror(-r));
		return r;
	}
	for (i = 0; i < n; i++) {
		got = ops->write(ops->ctx, fd, b->io, c->record_bytes);
		if (got != (ssize_t)c->record_bytes)
			break;
	}
	if (i < n) {
		r = got < 0 ? -errno : -EIO;
		if (got < 0)
			snprintf(why, whylen, "cannot write the test file: write at offset %llu: %s",
				 (unsigned long long)(i * c->record_bytes), strerror(-r));
		else
			snprintf(why, whylen, "cannot write the test file: short write at offset %llu",
				 (unsigned long long)(i * c->record_bytes));
	} else if (ops->fsync(ops->ctx, fd) < 0) {
		r = -errno;
		snprintf(why, whylen, "cannot write the test file: fsync: %s", strerror(-r));
	}
	if (ops->close(ops->ctx, fd) < 0 && r == 0) {
		r = -errno;
		snprintf(why, whylen, "cannot write the test file: close: %s", strerror(-r));
	}
	return r;
}

/* The untimed flush before a cell (IOzone: sync() twice).  Failures only
 * leave more dirty pages behind; they do not stop the cell. */
static void cell_sync(const struct fslab_cell *c, int dfd)
{
	const struct fslab_io_ops *ops = c->ops;

	if (c->sync == FSLAB_SYNC_GLOBAL) {
		if (ops->sync) {
			ops->sync(ops->ctx);
			ops->sync(ops->ctx);
		}
		return;
	}
	if (ops->syncfs)
		ops->syncfs(ops->ctx, dfd);
	if (c->device && c->device[0] && ops->fsync_path)
		ops->fsync_path(ops->ctx, c->device);
}

static void cell_emit(const struct fslab_cell *c, enum fslab_test t,
		      const struct fslab_test_outcome *o)
{
	if (c->on_test)
		c->on_test(c->on_test_ctx, t, o);
}

/* Runs one test: its cold-mode cache drop, then the pass; a pass timed
 * across a stop of the process is thrown away and run again. */
static void cell_run_test(const struct fslab_cell *c, struct fslab_bench_pass *p, int *dfd,
			  struct fslab_test_outcome *o, struct fslab_cell_times *times)
{
	const struct fslab_bench_test *test = p->test;
	int r;
	double t;

	for (bool again = false;; again = true) {
		bool stopped;

		/* A creating pass run again starts from no file, as the first
		 * did: a truncated file is not the same (fusefat fails the
		 * rewrite of a truncated file past its first clusters, EPERM). */
		if (again && (test->flags & FSLAB_BT_CREATES) && *p->file_exists) {
			const struct fslab_io_ops *ops = c->ops;
			t = bench_now();
			if (ops->unlink(ops->ctx, *dfd, c->name) == 0 || errno == ENOENT)
				*p->file_exists = false;
			times->untimed_io_s += bench_now() - t;
		}

		/* cold: a first read pass starts with the file's pages dropped;
		 * reread and freread keep IOzone's meaning (they re-read what
		 * the pass before them cached) */
		if (c->cache == FSLAB_CACHE_COLD && (test->flags & FSLAB_BT_READS) &&
		    !(test->flags & FSLAB_BT_SECOND_PASS) && c->drop_cache) {
			t = bench_now();
			r = c->drop_cache(c->drop_ctx, dfd, c->name, o->reason, sizeof(o->reason));
			times->cache_drop_s += bench_now() - t;
			if (r < 0) {
				o->status = FSLAB_OUTCOME_FAILED;
				return;
			}
			p->dfd = *dfd;
		}
		if (c->continued)
			*c->continued = 0;
		p->elapsed = p->untimed = 0;
		p->synced = false;
		if (p->lat)
			memset(p->lat, 0, sizeof(*p->lat));
		r = test->run(p);
		times->timed_s += p->elapsed;
		times->untimed_io_s += p->untimed;
		stopped = c->continued && *c->continued;
		if (r == 0 && stopped && o->redone < FSLAB_STOP_REDO_MAX) {
			o->redone++;
			continue;
		}
		if (r == 0 && !stopped && c->disturbed && o->redone_slow < FSLAB_STOP_REDO_MAX &&
		    c->disturbed(c->disturbed_ctx, test->id, p->elapsed)) {
			o->redone_slow++;
			continue;
		}
		if (r == 0 && stopped) {
			o->status = FSLAB_OUTCOME_FAILED;
			o->elapsed_s = -1;
			snprintf(o->reason, sizeof(o->reason),
				 "the process was stopped (SIGSTOP/SIGTSTP) during %u passes of this test; none is a measurement",
				 o->redone + 1);
			return;
		}
		break;
	}
	if (r == 0) {
		double el = p->elapsed > 1e-9 ? p->elapsed : 1e-9;
		o->status = FSLAB_OUTCOME_OK;
		o->elapsed_s = p->elapsed;
		o->throughput_kib_s = (double)(uint64_t)((double)c->file_bytes / el / 1024.0);
		if (p->lat && p->lat->count) {
			/* the histogram counts lat_clock() ticks */
			double us_per_tick = p->lat_tk1 > p->lat_tk0
						     ? (double)(p->lat_ns1 - p->lat_ns0) / 1e3 /
							       (double)(p->lat_tk1 - p->lat_tk0)
						     : 1e-3;
			o->has_latency = true;
			o->lat_p50_us = (double)fslab_lat_quantile(p->lat, 0.50) * us_per_tick;
			o->lat_p99_us = (double)fslab_lat_quantile(p->lat, 0.99) * us_per_tick;
			o->lat_max_us = (double)p->lat->max_ns * us_per_tick;
		}
	} else {
		o->status = (p->direct && strstr(o->reason, "refuses O_DIRECT")) ? FSLAB_OUTCOME_SKIPPED
										 : FSLAB_OUTCOME_FAILED;
		o->elapsed_s = -1;
	}
}

int fslab_cell_run(const struct fslab_cell *c, struct fslab_bench_buffers *b,
		   struct fslab_test_outcome out[FSLAB_TEST_MAX], struct fslab_cell_times *times)
{
	const struct fslab_io_ops *ops = c->ops;
	const bool direct = c->cache == FSLAB_CACHE_DIRECT;
	bool file_ok = false, file_exists = false;
	int ret = 0, dfd = c->dir_fd;
	double t;
	struct fslab_lat_hist lat; /* --latency: one pass's, reset before each */

	memset(out, 0, sizeof(out[0]) * FSLAB_TEST_MAX);
	memset(times, 0, sizeof(*times));
	if (!ops || ops->version != FSLAB_IO_OPS_VERSION) {
		/* A caller (or test fake) built against another layout of the
		 * ops struct: calling through it would call the wrong members. */
		for (int ti = 0; ti < FSLAB_TEST_MAX; ti++) {
			if (!(c->tests & (1u << ti)))
				continue;
			out[ti].status = FSLAB_OUTCOME_FAILED;
			out[ti].elapsed_s = -1;
			snprintf(out[ti].reason, sizeof(out[ti].reason),
				 "internal: I/O ops '%s' have layout version %u, the engine needs %u (rebuild it against bench/io.h)",
				 ops && ops->name ? ops->name : "?", ops ? ops->version : 0,
				 FSLAB_IO_OPS_VERSION);
			cell_emit(c, (enum fslab_test)ti, &out[ti]);
		}
		return -EINVAL;
	}
	t = bench_now();
	cell_sync(c, dfd);
	times->untimed_io_s += bench_now() - t;

	for (int ti = 0; ti < FSLAB_TEST_MAX; ti++) {
		const struct fslab_bench_test *test = &bench_tests[ti];
		struct fslab_test_outcome *o = &out[ti];
		struct fslab_bench_pass p = {
			.cell = c,
			.test = test,
			.buf = b,
			.dfd = dfd,
			.file_exists = &file_exists,
			.n = c->file_bytes / c->record_bytes,
			.rec = (size_t)c->record_bytes,
			.direct = direct && !(test->flags & FSLAB_BT_STDIO),
			.flush_in_timer = c->cache == FSLAB_CACHE_FSYNC,
			.fsync_in_timer = c->cache == FSLAB_CACHE_COLD,
			.lat = c->latency ? &lat : NULL,
			.why = o->reason,
			.whylen = sizeof(o->reason),
		};
		int r;

		if (!(c->tests & (1u << ti)))
			continue;
		if (c->stop && *c->stop) {
			ret = -EINTR;
			break;
		}
		/* Direct mode runs the stdio tests buffered, as IOzone -I does
		 * (stdio cannot do O_DIRECT); run.c flags their rows. */
		if ((test->flags & FSLAB_BT_NEEDS_FILE) && !file_ok) {
			t = bench_now();
			r = cell_prepare_file(c, dfd, &file_exists, b, direct, o->reason,
					      sizeof(o->reason));
			times->untimed_io_s += bench_now() - t;
			if (r < 0) {
				if (direct && r == -EINVAL) {
					o->status = FSLAB_OUTCOME_SKIPPED;
					snprintf(o->reason, sizeof(o->reason),
						 "the filesystem refuses O_DIRECT (EINVAL)");
				} else {
					o->status = FSLAB_OUTCOME_FAILED;
				}
				cell_emit(c, test->id, o);
				continue;
			}
			file_ok = true;
		}
		cell_run_test(c, &p, &dfd, o, times);
		if (o->status == FSLAB_OUTCOME_OK && (test->flags & FSLAB_BT_CREATES))
			file_ok = true;
		else if (o->status != FSLAB_OUTCOME_OK && (test->flags & FSLAB_BT_WRITES))
			file_ok = false;
		cell_emit(c, test->id, o);
	}
	if (file_exists) {
		t = bench_now();
		if (ops->unlink(ops->ctx, dfd, c->name) < 0 && errno != ENOENT)
			fslab_warn("cannot remove the test file %s: %s", c->name, strerror(errno));
		times->untimed_io_s += bench_now() - t;
	}
	return ret;
}
