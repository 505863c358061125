/* The 13 IOzone tests as a const table, and the cell runner.  Each test's
 * run function does: untimed open (+ untimed priming read where IOzone has
 * one), timer start, the I/O loop, [fsync + close in fsync mode], timer
 * stop, untimed fsync/close.  Nothing else sits between the two clock
 * reads. */
#include "engine.h"
#include "engine_int.h"
#include "clock.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int io_fail(struct fslab_bench_pass *p, const char *op, uint64_t rec_index, ssize_t got)
{
	int e = errno;
	uint64_t off = rec_index * p->rec;

	if (got >= 0)
		return fslab_pass_fail(p, 0, "short %s at offset %llu (%zd of %zu bytes)", op,
				 (unsigned long long)off, got, p->rec);
	return fslab_pass_fail(p, e ? e : EIO, "%s at offset %llu", op, (unsigned long long)off);
}

/* The file a pass has open: an fd, or a stdio stream when f is set.  Both
 * are closed through the same helpers, so the end of a pass (the flush
 * inside or outside the timer, the close) is written once. */
struct pass_file {
	int fd;
	FILE *f;
};

/* -errno after an ops call that failed; -EIO if it left errno at 0 (a
 * fake, or stdio reporting an error it did not name). */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* The calls that flush (sync) or close the file, for a message. */
static const char *pf_call(const struct pass_file *pf, bool sync)
{
	return sync ? (pf->f ? "fflush/fsync" : "fsync") : pf->f ? "fclose" : "close";
}

/* A writer's flush: fflush (stdio), then fsync.  0 or -errno. */
static int pf_sync(const struct fslab_io_ops *ops, const struct pass_file *pf)
{
	if (pf->f && ops->fflush(ops->ctx, pf->f) != 0)
		return neg_errno();
	if (ops->fsync(ops->ctx, pf->f ? fileno(pf->f) : pf->fd) != 0)
		return neg_errno();
	return 0;
}

/* close or fclose, once: the file is marked closed either way.  0 or
 * -errno. */
static int pf_close(const struct fslab_io_ops *ops, struct pass_file *pf)
{
	int r = 0;

	if (pf->f)
		r = ops->fclose(ops->ctx, pf->f) != 0 ? neg_errno() : 0;
	else if (pf->fd >= 0)
		r = ops->close(ops->ctx, pf->fd) < 0 ? neg_errno() : 0;
	pf->f = NULL;
	pf->fd = -1;
	return r;
}

/* Untimed end of a pass: a writer's flush (unless the timed region did
 * it, or the pass already failed) and the close, if the timed region did
 * not close.  r is the pass's result so far; an earlier failure is kept. */
static int pass_finish(struct fslab_bench_pass *p, struct pass_file *pf, int r)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = fslab_now();
	int e;

	if (pf->fd < 0 && !pf->f)
		return r;
	if (r == 0 && (p->test->flags & FSLAB_BT_WRITES) && !p->synced) {
		e = pf_sync(ops, pf);
		if (e < 0)
			r = fslab_pass_fail(p, -e, "%s %s", pf_call(pf, true), p->cell->name);
	}
	e = pf_close(ops, pf);
	if (e < 0 && r == 0)
		r = fslab_pass_fail(p, -e, "%s %s", pf_call(pf, false), p->cell->name);
	p->untimed += fslab_now() - t;
	return r;
}

/* IOzone fsyncs the freshly opened file before every timed pass but random
 * read/write, outside the timer: the pass then starts with no dirty pages
 * of the file (on a journaled filesystem the next overwrite is faster). */
static int pass_presync(struct fslab_bench_pass *p, const struct pass_file *pf)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = fslab_now();
	int r = 0;

	if (ops->fsync(ops->ctx, pf->f ? fileno(pf->f) : pf->fd) < 0)
		r = fslab_pass_fail(p, errno, "fsync %s before the pass", p->cell->name);
	p->untimed += fslab_now() - t;
	return r;
}

/* Opens the pass's file and (presync) fsyncs it, untimed.  0, or the
 * pass's failure with the file closed again. */
static int pass_begin(struct fslab_bench_pass *p, int flags, bool presync, struct pass_file *pf)
{
	int r;

	pf->f = NULL;
	pf->fd = fslab_pass_open(p, flags);
	if (pf->fd < 0)
		return pf->fd;
	if (!presync)
		return 0;
	r = pass_presync(p, pf);
	return r < 0 ? pass_finish(p, pf, r) : 0;
}

/* The end of every timed loop, written once.  r is the loop's result: 0,
 * or a failure it already explained (then nothing is flushed in the
 * timer).  Inside the timer: fsync mode (iozone -e -c) flushes a writer
 * and closes; cold mode (iozone -e) flushes a writer, so the pass is timed
 * until its data is on the device, and closes outside.  Then the clock
 * stops, and pass_finish does what is left, untimed. */
static int pass_end(struct fslab_bench_pass *p, struct pass_file *pf, double t0, int r)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	const enum fslab_cache_mode mode = p->cell->sweep->cache;
	int sync_r = 0, close_r = 0;

	fslab_lat_end(p);
	if (r == 0 && writes && (mode == FSLAB_CACHE_FSYNC || mode == FSLAB_CACHE_COLD)) {
		sync_r = pf_sync(ops, pf);
		p->synced = true;
	}
	if (r == 0 && mode == FSLAB_CACHE_FSYNC)
		close_r = pf_close(ops, pf);
	p->elapsed = fslab_pass_timer_stop(p) - t0;
	if (sync_r < 0)
		r = fslab_pass_fail(p, -sync_r, "%s %s", pf_call(pf, true), p->cell->name);
	else if (close_r < 0)
		r = fslab_pass_fail(p, -close_r, "%s %s", pf_call(pf, false), p->cell->name);
	return pass_finish(p, pf, r);
}

/* ---- the run functions: one per access pattern ---- */

/* write (creates), rewrite: N sequential writes.  read, reread: untimed
 * priming read of record 0 and seek back (IOzone's, to warm the
 * instruction cache and TLB), then N sequential reads.  Not in cold
 * mode's read pass: the priming read and the readahead it starts would
 * bring back the pages the drop just removed (the whole file when the
 * record is a quarter of it or more), and the timed loop would read
 * memory.  Two timed loops: no per-record branch on the kind. */
static int run_seq(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	int flags = writes ? O_WRONLY | ((p->test->flags & FSLAB_BT_CREATES) ? O_CREAT : 0) : O_RDONLY;
	void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	struct pass_file pf;
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;
	ssize_t got;
	double t0;
	const bool prime = !writes && (p->cell->sweep->cache != FSLAB_CACHE_COLD ||
				       (p->test->flags & FSLAB_BT_SECOND_PASS));
	int r = pass_begin(p, flags, true, &pf);

	if (r < 0)
		return r;
	if (prime) {
		t0 = fslab_now();
		got = ops->read(ops->ctx, pf.fd, buf, rec);
		if (got != (ssize_t)rec)
			return pass_finish(p, &pf, io_fail(p, "priming read", 0, got));
		if (ops->lseek(ops->ctx, pf.fd, 0, SEEK_SET) != 0)
			return pass_finish(p, &pf, fslab_pass_fail(p, errno, "lseek to 0"));
		p->untimed += fslab_now() - t0;
	}

	t0 = fslab_pass_timer_start(p);
	lmark = fslab_lat_begin(p);
	if (writes) {
		for (uint64_t i = 0; i < n && !PASS_STOP(p); i++) {
			got = ops->write(ops->ctx, pf.fd, buf, rec);
			if (got != (ssize_t)rec) {
				r = io_fail(p, "write", i, got);
				break;
			}
			FSLAB_LAT_MARK(lat, lmark);
		}
		return pass_end(p, &pf, t0, r);
	}
	for (uint64_t i = 0; i < n && !PASS_STOP(p); i++) {
		got = ops->read(ops->ctx, pf.fd, buf, rec);
		if (got != (ssize_t)rec) {
			r = io_fail(p, "read", i, got);
			break;
		}
		FSLAB_LAT_MARK(lat, lmark);
	}
	return pass_end(p, &pf, t0, r);
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

/* The record visited at step i; *which holds the previous one (stride),
 * shuffle IOzone's random order (POS_RANDOM). */
static uint64_t pos_next(enum pos_order order, uint64_t i, uint64_t n, uint64_t which,
			 uint64_t *wraps, const uint32_t *shuffle)
{
	switch (order) {
	case POS_RANDOM:
		return shuffle[i];
	case POS_BACKWARD:
		return n - 1 - i;
	case POS_STRIDE:
		return i ? fslab_stride_next(which, n, wraps) : 0;
	case POS_ZERO:
		break;
	}
	return 0;
}

/* One positioned operation on record `which` at step i: lseek + read/write
 * (IOzone's calls) or pread/pwrite.  0, or a failure explained in p. */
static int pos_io(struct fslab_bench_pass *p, int fd, enum pos_order order, uint64_t i,
		  uint64_t which)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	const off_t rec = (off_t)p->rec, want = (off_t)which * rec;
	void *buf = p->buf->io;
	ssize_t got;

	if (p->cell->io == FSLAB_IO_POSITIONAL) {
		got = writes ? ops->pwrite(ops->ctx, fd, buf, p->rec, want)
			     : ops->pread(ops->ctx, fd, buf, p->rec, want);
	} else {
		off_t at;

		if (order != POS_BACKWARD)
			at = ops->lseek(ops->ctx, fd, want, SEEK_SET);
		else if (i == 0)
			at = ops->lseek(ops->ctx, fd, -rec, SEEK_END);
		else
			at = ops->lseek(ops->ctx, fd, -2 * rec, SEEK_CUR);
		if (at != want)
			return fslab_pass_fail(p, errno ? errno : ESPIPE, "lseek to offset %llu",
					 (unsigned long long)want);
		got = writes ? ops->write(ops->ctx, fd, buf, p->rec) : ops->read(ops->ctx, fd, buf, p->rec);
	}
	if (got != (ssize_t)p->rec)
		return io_fail(p, writes ? "write" : "read", which, got);
	return 0;
}

/* random read, random write (IOzone's random order), backward read
 * (records N-1 down to 0), record rewrite (record 0 written N times),
 * stride read (17 records a jump, IOzone's wrap rule). */
static int run_positioned(struct fslab_bench_pass *p)
{
	const enum fslab_test id = p->test->id;
	const enum pos_order order = id == FSLAB_TEST_BACKWARD_READ    ? POS_BACKWARD
				     : id == FSLAB_TEST_RECORD_REWRITE ? POS_ZERO
				     : id == FSLAB_TEST_STRIDE_READ    ? POS_STRIDE
								       : POS_RANDOM;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	const uint64_t n = p->n;
	uint64_t which = 0, wraps = 0;
	struct pass_file pf;
	struct fslab_lat_hist *const lat = p->lat;
	const uint32_t *shuffle;
	uint64_t lmark;
	double t0;
	int r = order == POS_RANDOM ? fslab_pass_shuffle(p, p->n) : 0;

	if (r < 0)
		return r;
	shuffle = p->buf->order;
	/* IOzone fsyncs before every pass but random read/write */
	r = pass_begin(p, writes ? O_WRONLY : O_RDONLY, order != POS_RANDOM, &pf);
	if (r < 0)
		return r;
	t0 = fslab_pass_timer_start(p);
	lmark = fslab_lat_begin(p);
	for (uint64_t i = 0; i < n && !PASS_STOP(p); i++) {
		which = pos_next(order, i, n, which, &wraps, shuffle);
		r = pos_io(p, pf.fd, order, i, which);
		if (r < 0)
			break;
		FSLAB_LAT_MARK(lat, lmark);
	}
	return pass_end(p, &pf, t0, r);
}

/* fwrite, frewrite, fread, freread: stdio with setvbuf(record). */
static int run_stdio(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool writes = p->test->flags & FSLAB_BT_WRITES;
	void *buf = p->buf->io;
	const size_t rec = p->rec;
	const uint64_t n = p->n;
	struct pass_file pf = { .fd = -1 };
	struct fslab_lat_hist *const lat = p->lat;
	uint64_t lmark;
	double t0 = fslab_now();
	int r;

	pf.f = ops->fopen(ops->ctx, p->dfd, p->cell->name, writes ? "r+" : "r");
	if (!pf.f)
		return fslab_pass_fail(p, errno, "fopen %s", p->cell->name);
	if (ops->setvbuf(ops->ctx, pf.f, p->buf->stdio, _IOFBF, rec) != 0)
		return pass_finish(p, &pf, fslab_pass_fail(p, errno ? errno : EINVAL, "setvbuf(%zu)", rec));
	p->untimed += fslab_now() - t0;
	r = pass_presync(p, &pf);
	if (r < 0)
		return pass_finish(p, &pf, r);

	t0 = fslab_pass_timer_start(p);
	lmark = fslab_lat_begin(p);
	errno = 0; /* stdio's short count: errno set means an error */
	for (uint64_t i = 0; i < n && !PASS_STOP(p); i++) {
		size_t got = writes ? ops->fwrite(ops->ctx, buf, rec, 1, pf.f)
				    : ops->fread(ops->ctx, buf, rec, 1, pf.f);

		if (got != 1) {
			/* stdio says no more than "not the whole record":
			 * an error when errno says so, else end of file */
			r = io_fail(p, writes ? "fwrite" : "fread", i, errno ? -1 : 0);
			break;
		}
		FSLAB_LAT_MARK(lat, lmark);
	}
	return pass_end(p, &pf, t0, r);
}

/* ---- the test table: IOzone's order (docs/tests.md: each test's calls) ---- */

static const struct fslab_bench_test bench_tests[FSLAB_TEST_MAX] = {
	{ FSLAB_TEST_WRITE, FSLAB_BT_CREATES | FSLAB_BT_WRITES, run_seq },
	{ FSLAB_TEST_REWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_SECOND_PASS,
	  run_seq },
	{ FSLAB_TEST_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS, run_seq },
	{ FSLAB_TEST_REREAD, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_SECOND_PASS, run_seq },
	{ FSLAB_TEST_RANDOM_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS, run_positioned },
	{ FSLAB_TEST_RANDOM_WRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_SECOND_PASS,
	  run_positioned },
	{ FSLAB_TEST_BACKWARD_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS, run_positioned },
	{ FSLAB_TEST_RECORD_REWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES, run_positioned },
	{ FSLAB_TEST_STRIDE_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS, run_positioned },
	{ FSLAB_TEST_FWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_STDIO, run_stdio },
	{ FSLAB_TEST_FREWRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_STDIO | FSLAB_BT_SECOND_PASS,
	  run_stdio },
	{ FSLAB_TEST_FREAD, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_STDIO, run_stdio },
	{ FSLAB_TEST_FREREAD, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_STDIO | FSLAB_BT_SECOND_PASS,
	  run_stdio },
	/* the queued tests (bench/engine/queued.c, docs/tests.md) */
	{ FSLAB_TEST_QUEUED_WRITE, FSLAB_BT_CREATES | FSLAB_BT_WRITES | FSLAB_BT_QUEUED,
	  fslab_queued_run },
	{ FSLAB_TEST_QUEUED_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_QUEUED,
	  fslab_queued_run },
	{ FSLAB_TEST_QUEUED_RANDOM_WRITE, FSLAB_BT_NEEDS_FILE | FSLAB_BT_WRITES | FSLAB_BT_QUEUED,
	  fslab_queued_run },
	{ FSLAB_TEST_QUEUED_RANDOM_READ, FSLAB_BT_NEEDS_FILE | FSLAB_BT_READS | FSLAB_BT_QUEUED,
	  fslab_queued_run },
	/* the many-files tests (bench/engine/files.c, docs/tests.md) */
	{ FSLAB_TEST_FILES_CREATE, FSLAB_BT_FILES | FSLAB_BT_WRITES, fslab_files_run },
	{ FSLAB_TEST_FILES_STAT, FSLAB_BT_FILES | FSLAB_BT_NEEDS_TREE | FSLAB_BT_METADATA,
	  fslab_files_run },
	{ FSLAB_TEST_FILES_READ, FSLAB_BT_FILES | FSLAB_BT_NEEDS_TREE | FSLAB_BT_READS,
	  fslab_files_run },
	{ FSLAB_TEST_FILES_UNLINK, FSLAB_BT_FILES | FSLAB_BT_NEEDS_TREE | FSLAB_BT_WRITES | FSLAB_BT_METADATA,
	  fslab_files_run },
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
	free(b->order);
	memset(b, 0, sizeof(*b));
}

/* ---- the cell ---- */

/* Untimed: writes the whole file so a test that needs it can run even when
 * the write test was not asked for (or failed). */
static int cell_prepare_file(const struct fslab_cell *c, int dfd, bool *exists,
			     struct fslab_bench_buffers *b, char *why, size_t whylen)
{
	const bool direct = c->sweep->cache == FSLAB_CACHE_DIRECT;
	const struct fslab_io_ops *ops = c->ops;
	uint64_t n = c->file_bytes / c->record_bytes, i;
	int fd, r = 0;
	ssize_t got = 0;

	fd = fslab_cell_open(c, dfd, exists, O_WRONLY | O_CREAT | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		r = -errno;
		snprintf(why, whylen, "cannot create the test file %s: %s", c->name, strerror(-r));
		return r;
	}
	for (i = 0; i < n && !(c->stop && *c->stop); i++) {
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

/* syncfs of the filesystem, then an fsync of its block device when the
 * cell names it (a FUSE daemon's writes sit in the device's cache). */
static void cell_flush_fs(const struct fslab_cell *c, int dfd)
{
	const struct fslab_io_ops *ops = c->ops;

	if (ops->syncfs)
		ops->syncfs(ops->ctx, dfd);
	if (c->device && c->device[0] && ops->fsync_path)
		ops->fsync_path(ops->ctx, c->device);
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
	cell_flush_fs(c, dfd);
}

static void cell_emit(const struct fslab_cell *c, enum fslab_test t,
		      const struct fslab_test_outcome *o)
{
	if (c->on_test && !(c->stop && *c->stop)) /* a stopped pass: no row */
		c->on_test(c->on_test_ctx, t, o);
}

/* A creating pass run again starts from no file, as the first did: a
 * truncated file is not the same (fusefat fails the rewrite of a truncated
 * file past its first clusters, EPERM). */
static void cell_unlink_for_redo(const struct fslab_cell *c, struct fslab_bench_pass *p, int dfd,
				 struct fslab_cell_times *times)
{
	const struct fslab_io_ops *ops = c->ops;
	double t = fslab_now();

	if (ops->unlink(ops->ctx, dfd, c->name) == 0 || errno == ENOENT)
		*p->file_exists = false;
	times->untimed_io_s += fslab_now() - t;
}

/* cold: a first read pass starts with the file's pages dropped; reread
 * and freread keep IOzone's meaning (they re-read what the pass before
 * them cached).  0 or -errno (o->reason says why). */
static int cell_drop_before(const struct fslab_cell *c, struct fslab_bench_pass *p, int *dfd,
			    struct fslab_test_outcome *o, struct fslab_cell_times *times)
{
	const unsigned flags = p->test->flags;
	struct fslab_err e = FSLAB_ERR_INIT;
	double t;
	int r;

	/* the queued tests read with O_DIRECT in cold mode: nothing to drop */
	if (c->sweep->cache != FSLAB_CACHE_COLD || !(flags & FSLAB_BT_READS) ||
	    (flags & (FSLAB_BT_SECOND_PASS | FSLAB_BT_QUEUED)) || !c->drop_cache)
		return 0;
	t = fslab_now();
	/* the many-files tests: their whole tree */
	r = c->drop_cache(c->drop_ctx, dfd, (flags & FSLAB_BT_FILES) ? FSLAB_FILES_TREE : c->name, &e);
	if (r < 0)
		snprintf(o->reason, sizeof(o->reason), "%s", e.msg);
	times->cache_drop_s += fslab_now() - t;
	p->dfd = *dfd;
	return r;
}

/* An ok pass's throughput as its row records it: a queued or many-files
 * pass says what it moved (and its requests or files); every other pass
 * moves the file. */
static double pass_kib_s(const struct fslab_cell *c, const struct fslab_bench_pass *p)
{
	const bool counted = p->test->flags & (FSLAB_BT_QUEUED | FSLAB_BT_FILES);
	const uint64_t bytes = counted ? p->moved_bytes : c->file_bytes;
	double el = p->elapsed > 1e-9 ? p->elapsed : 1e-9;

	return (double)(uint64_t)((double)bytes / el / 1024.0);
}

/* The outcome of the pass that was kept (r: its result). */
static void cell_outcome(const struct fslab_cell *c, const struct fslab_bench_pass *p, int r,
			 struct fslab_test_outcome *o)
{
	double el = p->elapsed > 1e-9 ? p->elapsed : 1e-9, us_per_tick;
	const bool counted = p->test->flags & (FSLAB_BT_QUEUED | FSLAB_BT_FILES);

	if (r < 0) {
		o->status = p->refused_direct ? FSLAB_OUTCOME_SKIPPED : FSLAB_OUTCOME_FAILED;
		o->elapsed_s = -1;
		return;
	}
	o->status = FSLAB_OUTCOME_OK;
	o->elapsed_s = p->elapsed;
	o->throughput_kib_s = pass_kib_s(c, p);
	o->io_bytes = (p->test->flags & FSLAB_BT_METADATA) ? 0 : counted ? p->moved_bytes : c->file_bytes;
	/* the window: all three readings, none going backwards */
	o->has_dev = p->dev_ok == 7 && p->dev[2][0] >= p->dev[0][0] && p->dev[2][1] >= p->dev[1][1] &&
		     p->dev[1][1] >= p->dev[0][1];
	if (o->has_dev) {
		o->dev_read_bytes = (p->dev[2][0] - p->dev[0][0]) * 512;
		o->dev_write_bytes = (p->dev[2][1] - p->dev[0][1]) * 512;
		o->dev_write_timed_bytes = (p->dev[1][1] - p->dev[0][1]) * 512;
	}
	if (counted)
		o->ops_s = (double)p->moved_ops / el;
	if (!p->lat || !p->lat->count)
		return;
	/* the histogram counts fslab_lat_clock() ticks */
	us_per_tick = p->lat_tk1 > p->lat_tk0 ? (double)(p->lat_ns1 - p->lat_ns0) / 1e3 /
							(double)(p->lat_tk1 - p->lat_tk0)
					      : 1e-3;
	o->has_latency = true;
	fslab_lat_quantiles(p->lat, o->lat_us);
	for (int i = 0; i < FSLAB_LAT_N; i++)
		o->lat_us[i] = o->lat_us[i] < 0 ? -1 : o->lat_us[i] * us_per_tick;
}

/* --pass-gap: the untimed pause before a pass; a stop (SIGINT, SIGTERM)
 * ends it early. */
static void cell_pause(const struct fslab_cell *c)
{
	double whole = (double)(time_t)c->pass_gap_s;
	struct timespec ts = { (time_t)whole, (long)((c->pass_gap_s - whole) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !(c->stop && *c->stop))
		;
}

/* Runs one test: its cold-mode cache drop, then the pass; a pass timed
 * across a stop of the process, or disturbed, is thrown away and run
 * again. */
static void cell_run_test(const struct fslab_cell *c, struct fslab_bench_pass *p, int *dfd,
			  struct fslab_test_outcome *o, struct fslab_cell_times *times)
{
	const struct fslab_bench_test *test = p->test;
	int r;

	for (bool again = false;; again = true) {
		bool stopped;

		if (again && (test->flags & FSLAB_BT_CREATES) && *p->file_exists)
			cell_unlink_for_redo(c, p, *dfd, times);
		/* the tree is written before its pages are dropped */
		if (test->flags & FSLAB_BT_NEEDS_TREE) {
			p->untimed = 0;
			r = fslab_files_ensure(p);
			times->untimed_io_s += p->untimed;
			if (r < 0) {
				cell_outcome(c, p, r, o);
				return;
			}
		}
		if (cell_drop_before(c, p, dfd, o, times) < 0) {
			o->status = FSLAB_OUTCOME_FAILED;
			return;
		}
		if (c->pass_gap_s > 0)
			cell_pause(c);
		if (c->continued)
			*c->continued = 0;
		p->elapsed = p->untimed = 0;
		p->synced = p->refused_direct = p->covered = false;
		p->moved_bytes = p->moved_ops = 0;
		if (p->lat)
			memset(p->lat, 0, sizeof(*p->lat));
		p->dev_ok = 0;
		r = test->run(p);
		times->timed_s += p->elapsed;
		times->untimed_io_s += p->untimed;
		/* the counting window ends after what the pass left to write
		 * (its data, the journal's commit) reached the device */
		if (r == 0 && p->stat_fd >= 0) {
			double t = fslab_now();

			cell_flush_fs(c, *dfd);
			fslab_pass_dev_read(p, 2);
			times->untimed_io_s += fslab_now() - t;
		}
		stopped = c->continued && *c->continued;
		if (r == 0 && stopped && o->redone < FSLAB_STOP_REDO_MAX) {
			o->redone++;
			continue;
		}
		if (r == 0 && !stopped && c->disturbed && o->redone_slow < FSLAB_STOP_REDO_MAX &&
		    p->elapsed > 0 && c->disturbed(c->disturbed_ctx, test->id, pass_kib_s(c, p))) {
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
	cell_outcome(c, p, r, o);
}

/* A caller (or test fake) built against another layout of the ops struct:
 * calling through it would call the wrong members, so every asked-for test
 * fails saying so, and not one call is made. */
static int cell_refuse_ops(const struct fslab_cell *c, struct fslab_test_outcome out[FSLAB_TEST_MAX])
{
	const struct fslab_io_ops *ops = c->ops;

	for (int ti = 0; ti < FSLAB_TEST_MAX; ti++) {
		if (!(c->tests & (1u << ti)))
			continue;
		out[ti].status = FSLAB_OUTCOME_FAILED;
		out[ti].elapsed_s = -1;
		snprintf(out[ti].reason, sizeof(out[ti].reason),
			 "internal: I/O ops '%s' have layout version %u, the engine needs %u (rebuild it against bench/engine/engine.h)",
			 ops && ops->name ? ops->name : "?", ops ? ops->version : 0, FSLAB_IO_OPS_VERSION);
		cell_emit(c, (enum fslab_test)ti, &out[ti]);
	}
	return -EINVAL;
}

/* Before a test that needs the whole file when no pass left one: writes
 * it, untimed.  0, or -errno with o filled (direct mode's EINVAL is the
 * filesystem refusing O_DIRECT: skipped, not failed). */
static int cell_need_file(const struct fslab_cell *c, int dfd, bool *exists,
			  struct fslab_bench_buffers *b, struct fslab_test_outcome *o,
			  struct fslab_cell_times *times)
{
	double t = fslab_now();
	int r;

	r = cell_prepare_file(c, dfd, exists, b, o->reason, sizeof(o->reason));
	times->untimed_io_s += fslab_now() - t;
	if (r == 0)
		return 0;
	o->status = FSLAB_OUTCOME_FAILED;
	if (c->sweep->cache == FSLAB_CACHE_DIRECT && r == -EINVAL) {
		o->status = FSLAB_OUTCOME_SKIPPED;
		snprintf(o->reason, sizeof(o->reason), "the filesystem refuses O_DIRECT (EINVAL)");
	}
	return r;
}

int fslab_cell_run(const struct fslab_cell *c, struct fslab_bench_buffers *b,
		   struct fslab_test_outcome out[FSLAB_TEST_MAX], struct fslab_cell_times *times)
{
	const struct fslab_io_ops *ops = c->ops;
	bool file_ok = false, file_exists = false;
	struct fslab_files_tree tree = { 0 };
	int ret = 0, dfd = c->dir_fd, stat_fd = -1;
	double t;
	struct fslab_lat_hist lat; /* --latency: one pass's, reset before each */

	memset(out, 0, sizeof(out[0]) * FSLAB_TEST_MAX);
	memset(times, 0, sizeof(*times));
	if (!ops || ops->version != FSLAB_IO_OPS_VERSION)
		return cell_refuse_ops(c, out);
	t = fslab_now();
	cell_sync(c, dfd);
	times->untimed_io_s += fslab_now() - t;
	if (c->dev_stat && c->dev_stat[0])
		stat_fd = open(c->dev_stat, O_RDONLY | O_CLOEXEC);

	for (int ti = 0; ti < FSLAB_TEST_MAX; ti++) {
		const struct fslab_bench_test *test = &bench_tests[ti];
		struct fslab_test_outcome *o = &out[ti];
		struct fslab_bench_pass p = {
			.cell = c,
			.test = test,
			.buf = b,
			.dfd = dfd,
			.file_exists = &file_exists,
			.tree = &tree,
			.n = c->file_bytes / c->record_bytes,
			.rec = (size_t)c->record_bytes,
			.lat = c->latency ? &lat : NULL,
			.why = o->reason,
			.whylen = sizeof(o->reason),
			.stat_fd = stat_fd,
		};

		if (!(c->tests & (1u << ti)))
			continue;
		if (c->stop && *c->stop) {
			ret = -EINTR;
			break;
		}
		if (!test->run) {
			/* a test of a family this engine cannot run */
			o->status = FSLAB_OUTCOME_SKIPPED;
			snprintf(o->reason, sizeof(o->reason), "the %s tests are not built into this fslab",
				 fslab_test_family_to_string(fslab_test_family((enum fslab_test)ti)));
			cell_emit(c, (enum fslab_test)ti, o);
			continue;
		}
		if ((test->flags & FSLAB_BT_NEEDS_FILE) && !file_ok) {
			if (cell_need_file(c, dfd, &file_exists, b, o, times) < 0) {
				cell_emit(c, test->id, o);
				continue;
			}
			file_ok = true;
		}
		cell_run_test(c, &p, &dfd, o, times);
		/* a queued writer's pass of a fixed length may not reach
		 * every record: the file is then written whole before a
		 * reader, not read where it holds no data (the many-files
		 * tests keep their own tree) */
		if (!(test->flags & FSLAB_BT_FILES)) {
			if (o->status == FSLAB_OUTCOME_OK && (test->flags & FSLAB_BT_CREATES))
				file_ok = !(test->flags & FSLAB_BT_QUEUED) || p.covered;
			else if (o->status != FSLAB_OUTCOME_OK && (test->flags & FSLAB_BT_WRITES))
				file_ok = false;
		}
		cell_emit(c, test->id, o);
	}
	fslab_files_remove(c, dfd, &tree, &times->untimed_io_s);
	if (file_exists) {
		t = fslab_now();
		if (ops->unlink(ops->ctx, dfd, c->name) < 0 && errno != ENOENT)
			fslab_cell_warn(c, errno, "cannot remove the test file %s: %s", c->name, strerror(errno));
		times->untimed_io_s += fslab_now() - t;
	}
	if (stat_fd >= 0)
		close(stat_fd);
	return c->stop && *c->stop ? -EINTR : ret;
}
