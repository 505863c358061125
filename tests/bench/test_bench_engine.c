/* The engine against IOzone's patterns (docs/tests.md), captured through the
 * I/O ops struct; data integrity; injected faults; the sweep plan. */
#include "testutil.h"

#include "engine/engine.h"
#include "progress.h"
#include "fslab/run.h"
#include "settings.h"
#include "size.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A preset by its name (the settings table's word), as fslab run takes it:
 * 0, or -EINVAL for an unknown name. */
static int sweep_preset(const char *name, struct fslab_sweep_spec *s)
{
	int p = fslab_setting_word_index(FSLAB_SETTING_PRESET, name);

	if (p < 0)
		return -EINVAL;
	fslab_sweep_preset_values((enum fslab_preset)p, s);
	return 0;
}

/* ---- a recording, verifying, fault-injecting ops struct ---- */

/* Every call the engine makes through the ops struct.  OP_READ/OP_WRITE
 * are the data calls (read, pread, fread / write, pwrite, fwrite: `call`
 * says which); the rest are the calls around them. */
enum rec_op {
	OP_READ, OP_WRITE, OP_OPEN, OP_CLOSE, OP_LSEEK, OP_FSYNC, OP_UNLINK, OP_SYNCFS,
	OP_FSYNC_PATH, OP_SYNC, OP_FOPEN, OP_SETVBUF, OP_FFLUSH, OP_FCLOSE, OP_DROP,
	OP_TIMER, /* a timer mark: arg 1 start, 0 stop */
};

struct rec_event {
	enum rec_op op;
	uint64_t off;   /* data calls: the file offset; lseek: the resulting offset */
	size_t len;
	const char *call; /* the function's name */
	int flags;      /* open: the flags the engine asked for */
	int whence;     /* lseek */
	int64_t arg;    /* lseek: the offset argument */
	bool timed;     /* inside a timed region (between the timer marks) */
};

#define MAX_EVENTS 200000
#define STAMP_MAGIC UINT64_C(0xF51AB0000000000)

struct rec_ctx {
	struct rec_event *ev;
	size_t n_ev;
	/* segments: the event index where each test's events end */
	size_t seg_end[FSLAB_TEST_MAX];
	bool seg_done[FSLAB_TEST_MAX];
	/* data integrity: writes stamp the offset into the record's first
	 * bytes; reads check the stamp and that the rest is the engine's
	 * buffer as written */
	unsigned char *scratch;
	size_t scratch_len;
	unsigned char *expect; /* the engine's write buffer content */
	size_t checked, mismatches;
	/* faults: the nth write (1-based) / nth read fails; 0 none */
	unsigned long writes, reads, fail_write_n, fail_read_n;
	bool fail_writes_after; /* every write from the nth on fails */
	int write_errno, read_errno;
	/* the timer marks: in_timer between start and stop; a mark out of
	 * order (two starts, a stop without a start) counts in bad_marks */
	bool in_timer;
	unsigned timers, bad_marks;
	/* record O_DIRECT in opens but open without it (works on any
	 * filesystem; the sequence tests check the flags, not the device) */
	bool strip_direct;
	/* open with O_DIRECT fails EINVAL, as on a filesystem without it */
	bool refuse_direct;
	int fail_open_errno; /* every open fails with it; 0 none */
};

static struct rec_ctx *R(void *ctx)
{
	return ctx;
}

static struct rec_event *rec_add(struct rec_ctx *c, enum rec_op op, uint64_t off, size_t len)
{
	ck_assert_uint_lt(c->n_ev, MAX_EVENTS);
	c->ev[c->n_ev] = (struct rec_event){ .op = op, .off = off, .len = len, .timed = c->in_timer };
	return &c->ev[c->n_ev++];
}

static void rec_call(struct rec_ctx *c, enum rec_op op, const char *call)
{
	rec_add(c, op, 0, 0)->call = call;
}

static void rec_timer(void *ctx, bool start)
{
	struct rec_ctx *c = ctx;

	if (start == c->in_timer)
		c->bad_marks++;
	c->in_timer = start;
	c->timers += start;
	rec_add(c, OP_TIMER, 0, 0)->arg = start;
}

/* cold mode's cache drop, recorded (the file's pages stay: a test
 * checks the calls, not the cache) */
static int rec_drop(void *ctx, int *dfd, const char *name, struct fslab_err *e)
{
	(void)dfd;
	(void)name;
	(void)e;
	rec_call(ctx, OP_DROP, "drop");
	return 0;
}

static const void *rec_stamp(struct rec_ctx *c, const void *buf, size_t len, uint64_t off)
{
	if (c->scratch_len < len) {
		void *p = NULL;
		/* aligned: direct mode writes it with O_DIRECT */
		ck_assert_int_eq(posix_memalign(&p, 4096, len), 0);
		free(c->scratch);
		c->scratch = p;
		c->scratch_len = len;
	}
	memcpy(c->scratch, buf, len);
	uint64_t stamp = STAMP_MAGIC ^ off;
	memcpy(c->scratch, &stamp, sizeof(stamp));
	return c->scratch;
}

static void rec_verify(struct rec_ctx *c, const void *buf, size_t len, uint64_t off)
{
	uint64_t stamp;

	memcpy(&stamp, buf, sizeof(stamp));
	c->checked++;
	if (stamp != (STAMP_MAGIC ^ off) ||
	    (c->expect && memcmp((const char *)buf + 8, c->expect + 8, len - 8) != 0))
		c->mismatches++;
}

static int rec_open(void *ctx, int dfd, const char *name, int flags, mode_t mode)
{
	struct rec_ctx *c = ctx;
	struct rec_event *e = rec_add(c, OP_OPEN, 0, 0);

	e->call = "open";
	e->flags = flags;
	if ((c->refuse_direct && (flags & O_DIRECT)) || c->fail_open_errno) {
		errno = c->fail_open_errno ? c->fail_open_errno : EINVAL;
		return -1;
	}
	if (c->strip_direct)
		flags &= ~O_DIRECT;
	return fslab_io_posix.open(R(ctx), dfd, name, flags, mode);
}

static int rec_close(void *ctx, int fd)
{
	rec_call(ctx, OP_CLOSE, "close");
	return close(fd);
}

static ssize_t rec_read(void *ctx, int fd, void *buf, size_t len)
{
	struct rec_ctx *c = ctx;
	off_t off = lseek(fd, 0, SEEK_CUR);
	ssize_t r;

	c->reads++;
	rec_add(c, OP_READ, (uint64_t)off, len)->call = "read";
	if (c->fail_read_n && c->reads == c->fail_read_n) {
		errno = c->read_errno ? c->read_errno : EIO;
		return -1;
	}
	r = read(fd, buf, len);
	if (r == (ssize_t)len)
		rec_verify(c, buf, len, (uint64_t)off);
	return r;
}

static bool rec_write_fails(struct rec_ctx *c)
{
	c->writes++;
	if (!c->fail_write_n)
		return false;
	return c->fail_writes_after ? c->writes >= c->fail_write_n : c->writes == c->fail_write_n;
}

static ssize_t rec_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct rec_ctx *c = ctx;
	off_t off = lseek(fd, 0, SEEK_CUR);

	rec_add(c, OP_WRITE, (uint64_t)off, len)->call = "write";
	if (rec_write_fails(c)) {
		errno = c->write_errno ? c->write_errno : ENOSPC;
		return -1;
	}
	if (!c->expect) {
		c->expect = malloc(len);
		memcpy(c->expect, buf, len);
	}
	return write(fd, rec_stamp(c, buf, len, (uint64_t)off), len);
}

static ssize_t rec_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	struct rec_ctx *c = ctx;
	ssize_t r;

	c->reads++;
	rec_add(c, OP_READ, (uint64_t)off, len)->call = "pread";
	if (c->fail_read_n && c->reads == c->fail_read_n) {
		errno = c->read_errno ? c->read_errno : EIO;
		return -1;
	}
	r = pread(fd, buf, len, off);
	if (r == (ssize_t)len)
		rec_verify(c, buf, len, (uint64_t)off);
	return r;
}

static ssize_t rec_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
	struct rec_ctx *c = ctx;

	rec_add(c, OP_WRITE, (uint64_t)off, len)->call = "pwrite";
	if (rec_write_fails(c)) {
		errno = c->write_errno ? c->write_errno : ENOSPC;
		return -1;
	}
	return pwrite(fd, rec_stamp(c, buf, len, (uint64_t)off), len, off);
}

static off_t rec_lseek(void *ctx, int fd, off_t off, int whence)
{
	struct rec_event *e = rec_add(ctx, OP_LSEEK, 0, 0);
	off_t r = lseek(fd, off, whence);

	e->call = "lseek";
	e->arg = off;
	e->whence = whence;
	e->off = (uint64_t)r;
	return r;
}

static int rec_fsync(void *ctx, int fd)
{
	rec_call(ctx, OP_FSYNC, "fsync");
	return fsync(fd);
}

static int rec_syncfs(void *ctx, int dfd)
{
	rec_call(ctx, OP_SYNCFS, "syncfs");
	return syncfs(dfd);
}

static int rec_fsync_path(void *ctx, const char *p)
{
	(void)p; /* a test's device is a name only: nothing to flush */
	rec_call(ctx, OP_FSYNC_PATH, "fsync_path");
	return 0;
}

static int rec_sync(void *ctx)
{
	rec_call(ctx, OP_SYNC, "sync");
	return 0;
}

static int rec_unlink(void *ctx, int dfd, const char *name)
{
	rec_call(ctx, OP_UNLINK, "unlink");
	return unlinkat(dfd, name, 0);
}

static FILE *rec_fopen(void *ctx, int dfd, const char *name, const char *mode)
{
	rec_call(ctx, OP_FOPEN, strcmp(mode, "r+") == 0 ? "fopen(r+)" : "fopen(r)");
	return fslab_io_posix.fopen(R(ctx), dfd, name, mode);
}

static int rec_setvbuf(void *ctx, FILE *f, char *buf, int type, size_t size)
{
	rec_add(ctx, OP_SETVBUF, 0, size)->call = "setvbuf";
	return setvbuf(f, buf, type, size);
}

static size_t rec_fread(void *ctx, void *buf, size_t size, size_t n, FILE *f)
{
	struct rec_ctx *c = ctx;
	long off = ftell(f);
	size_t r;

	c->reads++;
	rec_add(c, OP_READ, (uint64_t)off, size * n)->call = "fread";
	if (c->fail_read_n && c->reads == c->fail_read_n) {
		errno = c->read_errno ? c->read_errno : EIO;
		return 0;
	}
	r = fread(buf, size, n, f);
	if (r == n)
		rec_verify(c, buf, size * n, (uint64_t)off);
	return r;
}

static size_t rec_fwrite(void *ctx, const void *buf, size_t size, size_t n, FILE *f)
{
	struct rec_ctx *c = ctx;
	long off = ftell(f);

	rec_add(c, OP_WRITE, (uint64_t)off, size * n)->call = "fwrite";
	if (rec_write_fails(c)) {
		errno = c->write_errno ? c->write_errno : ENOSPC;
		return 0;
	}
	return fwrite(rec_stamp(c, buf, size * n, (uint64_t)off), size, n, f);
}

static int rec_fflush(void *ctx, FILE *f)
{
	rec_call(ctx, OP_FFLUSH, "fflush");
	return fflush(f);
}

static int rec_fclose(void *ctx, FILE *f)
{
	rec_call(ctx, OP_FCLOSE, "fclose");
	return fclose(f);
}

static void rec_on_test(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	struct rec_ctx *c = ctx;

	(void)o;
	c->seg_end[t] = c->n_ev;
	c->seg_done[t] = true;
}

static struct fslab_io_ops rec_ops(struct rec_ctx *c)
{
	return (struct fslab_io_ops){
		.version = FSLAB_IO_OPS_VERSION,
		.name = "recording",
		.ctx = c,
		.open = rec_open,
		.close = rec_close,
		.read = rec_read,
		.write = rec_write,
		.pread = rec_pread,
		.pwrite = rec_pwrite,
		.lseek = rec_lseek,
		.fsync = rec_fsync,
		.unlink = rec_unlink,
		.fopen = rec_fopen,
		.setvbuf = rec_setvbuf,
		.fread = rec_fread,
		.fwrite = rec_fwrite,
		.fflush = rec_fflush,
		.fclose = rec_fclose,
		.syncfs = rec_syncfs,
		.fsync_path = rec_fsync_path,
		.sync = rec_sync,
		.timer = rec_timer,
	};
}

/* ---- fixture ---- */

static char *dir;
static int dir_fd = -1; /* the cells' directory, as the run's private one */

static void setup(void)
{
	dir = ft_mkdtemp_fd("fslab-engine", &dir_fd);
}

static void teardown(void)
{
	ft_rmdir_fd(dir, &dir_fd);
	dir = NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static int count_files(const char *d_path)
{
	DIR *d = opendir(d_path);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

struct cell_run {
	/* set before run_cell (zero: seek, sync fs, no device, no drops) */
	enum fslab_io_mode io;
	enum fslab_sync_policy sync;
	const char *device;
	bool record_drops;
	bool latency;
	struct rec_ctx ctx;
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	int ret;
};

static void run_cell(struct cell_run *cr, uint64_t file, uint64_t rec, unsigned tests,
		     enum fslab_cache_mode cache)
{
	struct fslab_bench_buffers b;
	struct fslab_io_ops ops;
	struct fslab_cell cell;

	cr->ctx.ev = calloc(MAX_EVENTS, sizeof(*cr->ctx.ev));
	ops = rec_ops(&cr->ctx);
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, rec), 0);
	cell = (struct fslab_cell){
		.dir_fd = dir_fd,
		.name = "testfile",
		.file_bytes = file,
		.record_bytes = rec,
		.tests = tests,
		.sweep = &(const struct fslab_sweep_spec){ .cache = cache },
		.io = cr->io,
		.sync = cr->sync,
		.device = cr->device,
		.latency = cr->latency,
		.ops = &ops,
		.drop_cache = cr->record_drops ? rec_drop : NULL,
		.drop_ctx = &cr->ctx,
		.on_test = rec_on_test,
		.on_test_ctx = &cr->ctx,
	};
	cr->ret = fslab_cell_run(&cell, &b, cr->out, &cr->times);
	fslab_bench_buffers_free(&b);
}

static void cell_run_free(struct cell_run *cr)
{
	free(cr->ctx.ev);
	free(cr->ctx.scratch);
	free(cr->ctx.expect);
}

/* Events of one test in a full cell: from the end of the previous test. */
static void segment(const struct cell_run *cr, enum fslab_test t, size_t *from, size_t *to)
{
	size_t start = 0;

	ck_assert_msg(cr->ctx.seg_done[t], "test %s did not run", fslab_test_to_string(t));
	for (int p = (int)t - 1; p >= 0; p--)
		if (cr->ctx.seg_done[p]) {
			start = cr->ctx.seg_end[p];
			break;
		}
	*from = start;
	*to = cr->ctx.seg_end[t];
}

static void expect_seq(const struct cell_run *cr, enum fslab_test t, enum rec_op op,
		       const uint64_t *recs, size_t n, size_t rec)
{
	size_t a, b;

	size_t n_data = 0, k = 0;

	segment(cr, t, &a, &b);
	for (size_t i = a; i < b; i++)
		n_data += cr->ctx.ev[i].op == OP_READ || cr->ctx.ev[i].op == OP_WRITE;
	ck_assert_msg(n_data == n, "%s: %zu I/O calls, expected %zu", fslab_test_to_string(t), n_data, n);
	for (size_t i = 0; i < n; i++, k++) {
		while (cr->ctx.ev[a + k].op != OP_READ && cr->ctx.ev[a + k].op != OP_WRITE)
			k++;
		const struct rec_event *e = &cr->ctx.ev[a + k];
		ck_assert_msg(e->op == op && e->off == recs[i] * rec && e->len == rec,
			      "%s call %zu: %s at %llu len %zu; expected %s at %llu len %zu",
			      fslab_test_to_string(t), i, e->op == OP_READ ? "read" : "write",
			      (unsigned long long)e->off, e->len, op == OP_READ ? "read" : "write",
			      (unsigned long long)(recs[i] * rec), rec);
	}
}

/* The records of a test's data calls (all of kind op), in order; returns
 * how many there were (at most max stored). */
static size_t data_offsets(const struct cell_run *cr, enum fslab_test t, enum rec_op op,
			   size_t rec, uint64_t *out, size_t max)
{
	size_t a, b, n = 0;

	segment(cr, t, &a, &b);
	for (size_t i = a; i < b; i++) {
		const struct rec_event *e = &cr->ctx.ev[i];
		if (e->op != OP_READ && e->op != OP_WRITE)
			continue;
		ck_assert_msg(e->op == op, "%s: a %s among its %s calls", fslab_test_to_string(t),
			      e->call, op == OP_READ ? "read" : "write");
		if (n < max)
			out[n] = e->off / rec;
		n++;
	}
	return n;
}

/* IOzone's stride rule from docs/tests.md, written independently of the engine:
 * after record r, wrap when r + 17 >= N - 2 (the next jump would land on
 * record N-2 or later). */
static void stride_expected(uint64_t n, uint64_t *out)
{
	uint64_t r = 0, wraps = 0;

	for (uint64_t i = 0; i < n; i++) {
		out[i] = r;
		if ((int64_t)r + 17 >= (int64_t)n - 2) {
			wraps++;
			r = n <= 17 ? 0 : wraps % n;
		} else {
			r += 17;
		}
	}
}

static void check_patterns(uint64_t n, size_t rec)
{
	struct cell_run cr = { 0 };
	uint64_t *seq = calloc(n + 1, sizeof(*seq)), *perm_r, *perm_w;

	run_cell(&cr, n * rec, rec, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.ret, 0);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK, "%s: %s", fslab_test_to_string(t),
			      cr.out[t].reason);

	/* write, rewrite: 0..N-1 */
	for (uint64_t i = 0; i < n; i++)
		seq[i] = i;
	expect_seq(&cr, FSLAB_TEST_WRITE, OP_WRITE, seq, n, rec);
	expect_seq(&cr, FSLAB_TEST_REWRITE, OP_WRITE, seq, n, rec);
	expect_seq(&cr, FSLAB_TEST_FWRITE, OP_WRITE, seq, n, rec);
	expect_seq(&cr, FSLAB_TEST_FREWRITE, OP_WRITE, seq, n, rec);
	expect_seq(&cr, FSLAB_TEST_FREAD, OP_READ, seq, n, rec);
	expect_seq(&cr, FSLAB_TEST_FREREAD, OP_READ, seq, n, rec);
	/* read, reread: the priming read of record 0, then 0..N-1 */
	seq[0] = 0;
	for (uint64_t i = 0; i < n; i++)
		seq[i + 1] = i;
	expect_seq(&cr, FSLAB_TEST_READ, OP_READ, seq, n + 1, rec);
	expect_seq(&cr, FSLAB_TEST_REREAD, OP_READ, seq, n + 1, rec);
	/* backward read: N-1..0 */
	for (uint64_t i = 0; i < n; i++)
		seq[i] = n - 1 - i;
	expect_seq(&cr, FSLAB_TEST_BACKWARD_READ, OP_READ, seq, n, rec);
	/* record rewrite: record 0, N times */
	memset(seq, 0, n * sizeof(*seq));
	expect_seq(&cr, FSLAB_TEST_RECORD_REWRITE, OP_WRITE, seq, n, rec);
	/* stride read */
	stride_expected(n, seq);
	expect_seq(&cr, FSLAB_TEST_STRIDE_READ, OP_READ, seq, n, rec);
	if (n <= 17)
		for (uint64_t i = 0; i < n; i++)
			ck_assert_uint_eq(seq[i], 0);

	/* random read and random write: the same order, every record once */
	perm_r = calloc(n, sizeof(*perm_r));
	perm_w = calloc(n, sizeof(*perm_w));
	ck_assert_uint_eq(data_offsets(&cr, FSLAB_TEST_RANDOM_READ, OP_READ, rec, perm_r, n), n);
	ck_assert_uint_eq(data_offsets(&cr, FSLAB_TEST_RANDOM_WRITE, OP_WRITE, rec, perm_w, n), n);
	ck_assert_mem_eq(perm_r, perm_w, n * sizeof(*perm_r));
	unsigned char *seen = calloc(n, 1);
	bool in_order = true;
	for (uint64_t i = 0; i < n; i++) {
		ck_assert_uint_lt(perm_r[i], n);
		ck_assert_msg(!seen[perm_r[i]], "record %llu visited twice", (unsigned long long)perm_r[i]);
		seen[perm_r[i]] = 1;
		in_order &= perm_r[i] == i;
	}
	if (n >= 8)
		ck_assert_msg(!in_order, "the random order is the sequential order");

	/* data integrity: every read returned what was written there */
	ck_assert_uint_gt(cr.ctx.checked, 6 * n);
	ck_assert_uint_eq(cr.ctx.mismatches, 0);
	ck_assert_int_eq(count_files(dir), 0);

	free(seen);
	free(perm_r);
	free(perm_w);
	free(seq);
	cell_run_free(&cr);
}

START_TEST(patterns_small_file)
{
	/* N = 16 records: stride reads all hit record 0 */
	check_patterns(16, 4096);
}
END_TEST

START_TEST(patterns_17_records)
{
	check_patterns(17, 4096);
}
END_TEST

START_TEST(patterns_many_records)
{
	/* N = 64 and N = 256: stride wraps */
	check_patterns(64, 4096);
	check_patterns(256, 8192);
}
END_TEST

/* IOzone's random order of a 4-record file (random_order_is_iozones) */
static const unsigned iozone_order4[] = { 1, 2, 0, 3 };

START_TEST(random_order_fixed)
{
	/* every record exactly once, the same order in every call */
	for (uint64_t n = 1; n <= 300; n += 37) {
		uint32_t *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
		unsigned char *seen = calloc(n, 1);

		ck_assert(a && b && seen);
		ck_assert_int_eq(fslab_random_order(a, n), 0);
		ck_assert_int_eq(fslab_random_order(b, n), 0);
		for (uint64_t i = 0; i < n; i++) {
			ck_assert_uint_lt(a[i], n);
			ck_assert(!seen[a[i]]);
			seen[a[i]] = 1;
			ck_assert_uint_eq(a[i], b[i]);
		}
		free(a);
		free(b);
		free(seen);
	}
}
END_TEST

/* The records IOzone 3.489 visits in its random read (and random write),
 * read from its lseek offsets under strace: iozone -i 0 -i 2 -r 4k with
 * -s 16k, 64k, 1m and 256m (N = 4, 16, 256, 65536 records). */
START_TEST(random_order_is_iozones)
{
	static const uint32_t n4[] = { 1, 2, 0, 3 };
	static const uint32_t n16[] = { 1, 5, 7, 13, 10, 6, 0, 8, 14, 3, 11, 2, 4, 12, 9, 15 };
	static const uint32_t n256[] = { 163, 19, 120, 112, 180, 56, 0, 217, 17, 73, 130, 212, 133, 190, 31 };
	static const uint32_t n65536[] = { 16266, 60552, 17891, 22541, 38479, 46406, 59665, 26503,
					   11534, 12375, 41125, 36671, 14798, 24591, 20413 };
	static const uint32_t n65536_last[] = { 49950, 62394, 40319 };
	uint32_t *o = calloc(65536, sizeof(*o));

	ck_assert(o);
	ck_assert_int_eq(fslab_random_order(o, 4), 0);
	ck_assert_mem_eq(o, n4, sizeof(n4));
	ck_assert_int_eq(fslab_random_order(o, 16), 0);
	ck_assert_mem_eq(o, n16, sizeof(n16));
	ck_assert_int_eq(fslab_random_order(o, 256), 0);
	ck_assert_mem_eq(o, n256, sizeof(n256));
	ck_assert_int_eq(fslab_random_order(o, 65536), 0);
	ck_assert_mem_eq(o, n65536, sizeof(n65536));
	ck_assert_mem_eq(o + 65536 - 3, n65536_last, sizeof(n65536_last));
	free(o);
	/* more records than 32 bits number: refused, nothing written */
	ck_assert_int_eq(fslab_random_order(NULL, (uint64_t)UINT32_MAX + 2), -EOVERFLOW);
}
END_TEST

START_TEST(stride_rule)
{
	uint64_t wraps = 0;

	/* N = 64: 0, 17, 34, 51; the jump to 68 would land past 62: wrap to 1 */
	ck_assert_uint_eq(fslab_stride_next(0, 64, &wraps), 17);
	ck_assert_uint_eq(fslab_stride_next(34, 64, &wraps), 51);
	ck_assert_uint_eq(fslab_stride_next(51, 64, &wraps), 1);
	ck_assert_uint_eq(wraps, 1);
	ck_assert_uint_eq(fslab_stride_next(52, 64, &wraps), 2);
	/* 45 + 17 = 62 = N - 2: lands on record N-2, so it wraps (IOzone reads
	 * 11 28 45 12, never 62) */
	wraps = 11;
	ck_assert_uint_eq(fslab_stride_next(45, 64, &wraps), 12);
	ck_assert_uint_eq(wraps, 12);
	/* one below: 44 + 17 = 61 < 62, no wrap */
	ck_assert_uint_eq(fslab_stride_next(44, 64, &wraps), 61);
	ck_assert_uint_eq(wraps, 12);
	wraps = 0;
	ck_assert_uint_eq(fslab_stride_next(0, 17, &wraps), 0);
}
END_TEST

/* The whole read sequence the engine's rule gives for N records. */
static void stride_walk(uint64_t n, uint64_t *out)
{
	uint64_t r = 0, wraps = 0;

	for (uint64_t i = 0; i < n; i++) {
		out[i] = r;
		r = fslab_stride_next(r, n, &wraps);
	}
}

static void expect_walk(uint64_t n, const uint64_t *want, size_t n_want)
{
	uint64_t *got = calloc(n, sizeof(*got));

	ck_assert_uint_le(n_want, n);
	stride_walk(n, got);
	for (size_t i = 0; i < n_want; i++)
		ck_assert_msg(got[i] == want[i], "N=%llu read %zu: record %llu, IOzone reads %llu",
			      (unsigned long long)n, i, (unsigned long long)got[i],
			      (unsigned long long)want[i]);
	free(got);
}

START_TEST(stride_sequences)
{
	/* IOzone 3.508's reads, written out by hand from its rule */
	static const uint64_t n64[64] = {
		0,  17, 34, 51, 1,  18, 35, 52, 2,  19, 36, 53, 3,  20, 37, 54,
		4,  21, 38, 55, 5,  22, 39, 56, 6,  23, 40, 57, 7,  24, 41, 58,
		8,  25, 42, 59, 9,  26, 43, 60, 10, 27, 44, 61, 11, 28, 45, 12,
		29, 46, 13, 30, 47, 14, 31, 48, 15, 32, 49, 16, 33, 50, 17, 34,
	};
	static const uint64_t n20[20] = { 0, 17, 1, 2, 3, 4, 5, 6, 7, 8,
					  9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };
	static const uint64_t n36[8] = { 0, 17, 1, 18, 2, 19, 3, 20 };
	static const uint64_t n256[17] = { 0,   17,  34,  51,  68,  85,  102, 119, 136,
					   153, 170, 187, 204, 221, 238, 1,   18 };
	uint64_t seq[256], zero[17] = { 0 };

	/* N <= 17: every read is record 0 */
	for (uint64_t n = 1; n <= 17; n++)
		expect_walk(n, zero, n);
	/* N = 18, 19: the first jump (to 17) lands on N-2 or later: 0, 1, 2, ... */
	for (uint64_t n = 18; n <= 19; n++) {
		for (uint64_t i = 0; i < n; i++)
			seq[i] = i;
		expect_walk(n, seq, n);
	}
	expect_walk(20, n20, 20);
	expect_walk(36, n36, 8);
	/* the example in docs/tests.md: ... 11 28 45 12 29 ...; 62 and 63 never read */
	expect_walk(64, n64, 64);
	stride_walk(64, seq);
	for (int i = 0; i < 64; i++)
		ck_assert(seq[i] < 62);
	expect_walk(256, n256, 17);
	/* the engine's rule is the independently written one, for every N */
	for (uint64_t n = 1; n <= 256; n++) {
		uint64_t want[256];
		stride_expected(n, want);
		expect_walk(n, want, n);
	}
}
END_TEST

/* ---- the exact calls: one cell per test, every mode ---- */

static void render_flags(int flags, char *out, size_t len)
{
	int acc = flags & O_ACCMODE;

	snprintf(out, len, "%s%s%s%s%s", acc == O_RDONLY ? "RDONLY" : acc == O_WRONLY ? "WRONLY" : "RDWR",
		 flags & O_CREAT ? "|CREAT" : "", flags & O_EXCL ? "|EXCL" : "",
		 flags & O_TRUNC ? "|TRUNC" : "", flags & O_DIRECT ? "|DIRECT" : "");
}

/* The calls of events [a, b) as text: "open(WRONLY), fsync, [, write 0,
 * ..., ], close".  Offsets are in records; "[" and "]" are the timer. */
static char *render(const struct cell_run *cr, size_t a, size_t b, size_t rec)
{
	size_t len = 64 * (b - a + 1), n = 0;
	char *out = calloc(1, len), f[64];

	for (size_t i = a; i < b; i++) {
		const struct rec_event *e = &cr->ctx.ev[i];
		const char *sep = n ? ", " : "";

		switch (e->op) {
		case OP_TIMER:
			n += (size_t)snprintf(out + n, len - n, "%s%s", sep, e->arg ? "[" : "]");
			break;
		case OP_OPEN:
			render_flags(e->flags, f, sizeof(f));
			n += (size_t)snprintf(out + n, len - n, "%sopen(%s)", sep, f);
			break;
		case OP_READ:
		case OP_WRITE:
			ck_assert_uint_eq(e->len, rec);
			n += (size_t)snprintf(out + n, len - n, "%s%s %llu", sep, e->call,
					      (unsigned long long)(e->off / rec));
			break;
		case OP_LSEEK:
			if (e->whence == SEEK_SET)
				n += (size_t)snprintf(out + n, len - n, "%slseek %lld", sep,
						      (long long)(e->arg / (int64_t)rec));
			else
				n += (size_t)snprintf(out + n, len - n, "%slseek %s%+lld", sep,
						      e->whence == SEEK_END ? "end" : "cur",
						      (long long)(e->arg / (int64_t)rec));
			break;
		default:
			n += (size_t)snprintf(out + n, len - n, "%s%s", sep, e->call);
			break;
		}
	}
	return out;
}

static void expect_calls(const struct cell_run *cr, enum fslab_test t, size_t rec, const char *want)
{
	size_t a, b;
	char *got;

	segment(cr, t, &a, &b);
	got = render(cr, a, b, rec);
	ck_assert_msg(strcmp(got, want) == 0, "%s (%s mode):\n got: %s\nwant: %s",
		      fslab_test_to_string(t), fslab_setting_word(FSLAB_SETTING_IO, cr->io), got, want);
	free(got);
}

/* The calls after the last test: the test file's removal. */
static void expect_tail(const struct cell_run *cr, size_t rec, const char *want)
{
	size_t a = 0;
	char *got;

	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		if (cr->ctx.seg_done[t])
			a = cr->ctx.seg_end[t];
	got = render(cr, a, cr->ctx.n_ev, rec);
	ck_assert_str_eq(got, want);
	free(got);
}

#define SEQ4(call) call " 0, " call " 1, " call " 2, " call " 3"

START_TEST(syscall_sequences_warm)
{
	struct cell_run cr = { .device = "/dev/fslab-test-device" };
	char random_r[512], random_w[512];
	size_t n = 0, m = 0;

	cr.ctx.strip_direct = true;
	run_cell(&cr, 4 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.ret, 0);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK, "%s: %s", fslab_test_to_string(t),
			      cr.out[t].reason);
	ck_assert_uint_eq(cr.ctx.bad_marks, 0);
	ck_assert_uint_eq(cr.ctx.timers, 13);
	/* before the cell: syncfs + fsync of the block device, untimed; the
	 * write pass: fsync of the fresh file, the timed loop, fsync + close */
	expect_calls(&cr, FSLAB_TEST_WRITE, 4096,
		     "syncfs, fsync_path, open(WRONLY|CREAT|EXCL), fsync, [, " SEQ4("write")
		     ", ], fsync, close");
	expect_calls(&cr, FSLAB_TEST_REWRITE, 4096,
		     "open(WRONLY), fsync, [, " SEQ4("write") ", ], fsync, close");
	/* read: fsync, then the untimed priming read of record 0 and lseek 0 */
	expect_calls(&cr, FSLAB_TEST_READ, 4096,
		     "open(RDONLY), fsync, read 0, lseek 0, [, " SEQ4("read") ", ], close");
	expect_calls(&cr, FSLAB_TEST_REREAD, 4096,
		     "open(RDONLY), fsync, read 0, lseek 0, [, " SEQ4("read") ", ], close");
	/* random read/write: no fsync before the pass (as IOzone); lseek +
	 * read/write in the fixed shuffle */
	for (uint64_t i = 0; i < 4; i++) {
		unsigned long long r = (unsigned long long)iozone_order4[i];
		n += (size_t)snprintf(random_r + n, sizeof(random_r) - n, ", lseek %llu, read %llu", r, r);
		m += (size_t)snprintf(random_w + m, sizeof(random_w) - m, ", lseek %llu, write %llu", r, r);
	}
	{
		char want[640];
		snprintf(want, sizeof(want), "open(RDONLY), [%s, ], close", random_r);
		expect_calls(&cr, FSLAB_TEST_RANDOM_READ, 4096, want);
		snprintf(want, sizeof(want), "open(WRONLY), [%s, ], fsync, close", random_w);
		expect_calls(&cr, FSLAB_TEST_RANDOM_WRITE, 4096, want);
	}
	expect_calls(&cr, FSLAB_TEST_BACKWARD_READ, 4096,
		     "open(RDONLY), fsync, [, lseek end-1, read 3, lseek cur-2, read 2, lseek cur-2, read 1, lseek cur-2, read 0, ], close");
	expect_calls(&cr, FSLAB_TEST_RECORD_REWRITE, 4096,
		     "open(WRONLY), fsync, [, lseek 0, write 0, lseek 0, write 0, lseek 0, write 0, lseek 0, write 0, ], fsync, close");
	expect_calls(&cr, FSLAB_TEST_STRIDE_READ, 4096,
		     "open(RDONLY), fsync, [, lseek 0, read 0, lseek 0, read 0, lseek 0, read 0, lseek 0, read 0, ], close");
	expect_calls(&cr, FSLAB_TEST_FWRITE, 4096,
		     "fopen(r+), setvbuf, fsync, [, " SEQ4("fwrite") ", ], fflush, fsync, fclose");
	expect_calls(&cr, FSLAB_TEST_FREWRITE, 4096,
		     "fopen(r+), setvbuf, fsync, [, " SEQ4("fwrite") ", ], fflush, fsync, fclose");
	expect_calls(&cr, FSLAB_TEST_FREAD, 4096,
		     "fopen(r), setvbuf, fsync, [, " SEQ4("fread") ", ], fclose");
	expect_calls(&cr, FSLAB_TEST_FREREAD, 4096,
		     "fopen(r), setvbuf, fsync, [, " SEQ4("fread") ", ], fclose");
	expect_tail(&cr, 4096, "unlink");
	cell_run_free(&cr);
}
END_TEST

START_TEST(syscall_sequences_stride_wrap)
{
	struct cell_run cr = { 0 };
	char want[2048];
	size_t n = 0;
	/* N = 20: 0, 17 (17 + 17 >= 18: wrap), 1, 2, ..., 18 */
	static const unsigned recs[20] = { 0, 17, 1, 2, 3, 4, 5, 6, 7, 8,
					   9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };

	run_cell(&cr, 20 * 4096, 4096, 1u << FSLAB_TEST_STRIDE_READ, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_STRIDE_READ].status, FSLAB_OUTCOME_OK);
	n += (size_t)snprintf(want + n, sizeof(want) - n, "open(RDONLY), fsync, [");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, ", lseek %u, read %u", recs[i], recs[i]);
	snprintf(want + n, sizeof(want) - n, ", ], close");
	/* the file is written untimed first (no write test asked for) */
	{
		size_t a, b;
		char *got;
		segment(&cr, FSLAB_TEST_STRIDE_READ, &a, &b);
		while (a < b && cr.ctx.ev[a].op != OP_OPEN)
			a++;
		/* skip the untimed preparation: open, 20 writes, fsync, close */
		ck_assert_int_eq(cr.ctx.ev[a].flags & O_CREAT, O_CREAT);
		ck_assert(!cr.ctx.ev[a + 1].timed);
		a += 1 + 20 + 2;
		got = render(&cr, a, b, 4096);
		ck_assert_str_eq(got, want);
		free(got);
	}
	cell_run_free(&cr);
}
END_TEST

START_TEST(syscall_sequences_modes)
{
	struct cell_run cr = { .io = FSLAB_IO_POSITIONAL, .sync = FSLAB_SYNC_GLOBAL };
	char want[640];
	size_t n = 0;

	/* --io positional and --sync global: pread/pwrite at the same
	 * offsets, sync() twice before the cell */
	run_cell(&cr, 4 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	expect_calls(&cr, FSLAB_TEST_WRITE, 4096,
		     "sync, sync, open(WRONLY|CREAT|EXCL), fsync, [, " SEQ4("write") ", ], fsync, close");
	n += (size_t)snprintf(want + n, sizeof(want) - n, "open(RDONLY), [");
	for (uint64_t i = 0; i < 4; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, ", pread %llu",
				      (unsigned long long)iozone_order4[i]);
	snprintf(want + n, sizeof(want) - n, ", ], close");
	expect_calls(&cr, FSLAB_TEST_RANDOM_READ, 4096, want);
	expect_calls(&cr, FSLAB_TEST_BACKWARD_READ, 4096,
		     "open(RDONLY), fsync, [, pread 3, pread 2, pread 1, pread 0, ], close");
	expect_calls(&cr, FSLAB_TEST_RECORD_REWRITE, 4096,
		     "open(WRONLY), fsync, [, " "pwrite 0, pwrite 0, pwrite 0, pwrite 0, ], fsync, close");
	expect_calls(&cr, FSLAB_TEST_STRIDE_READ, 4096,
		     "open(RDONLY), fsync, [, pread 0, pread 0, pread 0, pread 0, ], close");
	cell_run_free(&cr);

	/* fsync mode (iozone -e -c): fsync and close inside the timer */
	memset(&cr, 0, sizeof(cr));
	run_cell(&cr, 4 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_FSYNC);
	expect_calls(&cr, FSLAB_TEST_WRITE, 4096,
		     "syncfs, open(WRONLY|CREAT|EXCL), fsync, [, " SEQ4("write") ", fsync, close, ]");
	expect_calls(&cr, FSLAB_TEST_READ, 4096,
		     "open(RDONLY), fsync, read 0, lseek 0, [, " SEQ4("read") ", close, ]");
	expect_calls(&cr, FSLAB_TEST_FWRITE, 4096,
		     "fopen(r+), setvbuf, fsync, [, " SEQ4("fwrite") ", fflush, fsync, fclose, ]");
	cell_run_free(&cr);

	/* direct mode: O_DIRECT on every fd open */
	memset(&cr, 0, sizeof(cr));
	cr.ctx.strip_direct = true;
	run_cell(&cr, 4 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_DIRECT);
	expect_calls(&cr, FSLAB_TEST_WRITE, 4096,
		     "syncfs, open(WRONLY|CREAT|EXCL|DIRECT), fsync, [, " SEQ4("write") ", ], fsync, close");
	expect_calls(&cr, FSLAB_TEST_READ, 4096,
		     "open(RDONLY|DIRECT), fsync, read 0, lseek 0, [, " SEQ4("read") ", ], close");
	expect_calls(&cr, FSLAB_TEST_BACKWARD_READ, 4096,
		     "open(RDONLY|DIRECT), fsync, [, lseek end-1, read 3, lseek cur-2, read 2, lseek cur-2, read 1, lseek cur-2, read 0, ], close");
	/* the stdio tests run buffered (IOzone -I), not skipped */
	expect_calls(&cr, FSLAB_TEST_FWRITE, 4096,
		     "fopen(r+), setvbuf, fsync, [, " SEQ4("fwrite") ", ], fflush, fsync, fclose");
	expect_calls(&cr, FSLAB_TEST_FREAD, 4096,
		     "fopen(r), setvbuf, fsync, [, " SEQ4("fread") ", ], fclose");
	cell_run_free(&cr);

	/* cold mode: the cache drop comes before the read test's open, and
	 * no priming read follows it (it would read the dropped pages back);
	 * reread, a second pass over cached pages, keeps it */
	memset(&cr, 0, sizeof(cr));
	cr.record_drops = true;
	run_cell(&cr, 4 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_COLD);
	expect_calls(&cr, FSLAB_TEST_READ, 4096,
		     "drop, open(RDONLY), fsync, [, " SEQ4("read") ", ], close");
	expect_calls(&cr, FSLAB_TEST_REREAD, 4096,
		     "open(RDONLY), fsync, read 0, lseek 0, [, " SEQ4("read") ", ], close");
	cell_run_free(&cr);
}
END_TEST

/* The run's "took more than 10x the median" check, faked: the first
 * `slow` passes of each asked-about test are called disturbed. */
struct slow_ctx {
	unsigned slow, calls[FSLAB_TEST_MAX];
};

static bool fake_disturbed(void *ctx, enum fslab_test t, double kib_s)
{
	struct slow_ctx *s = ctx;

	ck_assert(kib_s > 0);
	return s->calls[t]++ < s->slow;
}

static void run_slow_cell(struct cell_run *cr, struct slow_ctx *sc)
{
	struct fslab_bench_buffers b;
	struct fslab_io_ops ops;

	cr->ctx.ev = calloc(MAX_EVENTS, sizeof(*cr->ctx.ev));
	ops = rec_ops(&cr->ctx);
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, 4096), 0);
	struct fslab_cell cell = { .dir_fd = dir_fd, .name = "testfile", .file_bytes = 4 * 4096,
				   .record_bytes = 4096,
				   .tests = (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_READ),
				   .sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_WARM }, .ops = &ops, .on_test = rec_on_test,
				   .on_test_ctx = &cr->ctx, .disturbed = fake_disturbed,
				   .disturbed_ctx = sc };
	cr->ret = fslab_cell_run(&cell, &b, cr->out, &cr->times);
	fslab_bench_buffers_free(&b);
}

START_TEST(disturbed_pass_is_redone)
{
	struct cell_run cr = { 0 };
	struct slow_ctx sc = { .slow = 2 };

	/* two disturbed passes: thrown away, the third is kept */
	run_slow_cell(&cr, &sc);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_WRITE].redone_slow, 2);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_READ].redone_slow, 2);
	ck_assert_uint_eq(sc.calls[FSLAB_TEST_WRITE], 3);
	/* three whole timed passes of each test were made */
	ck_assert_uint_eq(cr.ctx.timers, 6);
	ck_assert_uint_eq(data_offsets(&cr, FSLAB_TEST_READ, OP_READ, 4096, NULL, 0), 3 * (1 + 4));
	/* a creating pass run again starts from no file (O_EXCL again, not a
	 * truncation: fusefat fails rewriting a truncated file) */
	{
		size_t a, b, n_again = 0;
		char *w;
		segment(&cr, FSLAB_TEST_WRITE, &a, &b);
		w = render(&cr, a, b, 4096);
		for (const char *q = w; (q = strstr(q, "unlink, open(WRONLY|CREAT|EXCL)")); q++)
			n_again++;
		ck_assert_msg(n_again == 2, "write passes: %s", w);
		ck_assert_ptr_null(strstr(w, "TRUNC"));
		free(w);
	}
	cell_run_free(&cr);

	/* always disturbed: redone FSLAB_STOP_REDO_MAX times, then the last
	 * pass is kept (a cell that stays slow is slow) */
	memset(&cr, 0, sizeof(cr));
	sc = (struct slow_ctx){ .slow = 1000 };
	run_slow_cell(&cr, &sc);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_WRITE].redone_slow, FSLAB_STOP_REDO_MAX);
	ck_assert_uint_eq(sc.calls[FSLAB_TEST_WRITE], FSLAB_STOP_REDO_MAX); /* not asked after */
	ck_assert_uint_eq(cr.ctx.timers, 2 * (FSLAB_STOP_REDO_MAX + 1));
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);
}
END_TEST

START_TEST(latency_per_operation)
{
	struct cell_run cr = { .latency = true };
	size_t a, b;
	char *with, *without;

	run_cell(&cr, 16 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++) {
		const struct fslab_test_outcome *o = &cr.out[t];
		ck_assert_msg(o->status == FSLAB_OUTCOME_OK, "%s", o->reason);
		ck_assert_msg(o->has_latency, "%s: no latency", fslab_test_to_string(t));
		ck_assert_msg(o->lat_us[FSLAB_LAT_P50] > 0 && o->lat_us[FSLAB_LAT_P50] <= o->lat_us[FSLAB_LAT_P99] &&
				      o->lat_us[FSLAB_LAT_P99] <= o->lat_us[FSLAB_LAT_MAX],
			      "%s: p50 %g p99 %g max %g", fslab_test_to_string(t), o->lat_us[FSLAB_LAT_P50],
			      o->lat_us[FSLAB_LAT_P99], o->lat_us[FSLAB_LAT_MAX]);
		/* 16 operations a pass: too few for p99.9 and p99.99, unknown */
		ck_assert(o->lat_us[FSLAB_LAT_P999] < 0 && o->lat_us[FSLAB_LAT_P9999] < 0);
		/* no operation took longer than the whole timed pass */
		ck_assert(o->lat_us[FSLAB_LAT_MAX] <= o->elapsed_s * 1e6 + 1);
	}
	/* the clock reads are not calls: the sequence is the same as without */
	segment(&cr, FSLAB_TEST_BACKWARD_READ, &a, &b);
	with = render(&cr, a, b, 4096);
	cell_run_free(&cr);
	memset(&cr, 0, sizeof(cr));
	run_cell(&cr, 16 * 4096, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert(!cr.out[FSLAB_TEST_WRITE].has_latency);
	segment(&cr, FSLAB_TEST_BACKWARD_READ, &a, &b);
	without = render(&cr, a, b, 4096);
	ck_assert_str_eq(with, without);
	free(with);
	free(without);
	cell_run_free(&cr);
}
END_TEST

START_TEST(median_and_latency_histogram)
{
	double odd[] = { 5, 1, 9 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	double big[100];
	struct fslab_lat_hist h;
	uint64_t lo, hi;

	/* the disturbed-pass check's median (lib/stats.h) */
	ck_assert_double_eq(fslab_median_sort(odd, 3), 5);
	ck_assert_double_eq(fslab_median_sort(even, 4), 2.5);
	ck_assert_double_eq(fslab_median_sort(one, 1), 7);
	ck_assert(isnan(fslab_median_sort(odd, 0)));
	for (int i = 0; i < 100; i++)
		big[i] = 100 - i;
	ck_assert_double_eq(fslab_median_sort(big, 100), 50.5);

	/* buckets: exact below 16 ns, then 16 per power of two; every value
	 * lies in its bucket's range and a bucket is at most 6.25% wide */
	for (uint64_t v = 0; v < 5000000; v = v < 64 ? v + 1 : v + v / 7 + 1) {
		unsigned b = fslab_lat_bucket(v);
		ck_assert_uint_lt(b, FSLAB_LAT_BUCKETS);
		fslab_lat_bucket_range(b, &lo, &hi);
		ck_assert_msg(lo <= v && v <= hi, "%llu in bucket %u [%llu, %llu]",
			      (unsigned long long)v, b, (unsigned long long)lo, (unsigned long long)hi);
		if (lo >= 16)
			ck_assert_uint_le((hi - lo + 1) * 16, lo);
	}
	ck_assert_uint_lt(fslab_lat_bucket(UINT64_MAX), FSLAB_LAT_BUCKETS);

	/* 1..1000 us: p50 ~ 500 us, p99 ~ 990 us, within a bucket (12.5%) */
	memset(&h, 0, sizeof(h));
	ck_assert_uint_eq(fslab_lat_quantile(&h, 0.5), 0);
	for (uint64_t us = 1; us <= 1000; us++)
		fslab_lat_add(&h, us * 1000);
	ck_assert_uint_eq(h.count, 1000);
	ck_assert_uint_eq(h.max_ns, 1000000);
	uint64_t p50 = fslab_lat_quantile(&h, 0.5), p99 = fslab_lat_quantile(&h, 0.99);
	ck_assert_msg(p50 >= 500000 && p50 <= 500000 * 9 / 8, "p50 %llu", (unsigned long long)p50);
	ck_assert_msg(p99 >= 990000 && p99 <= 1000000, "p99 %llu", (unsigned long long)p99);
	ck_assert_uint_eq(fslab_lat_quantile(&h, 1.0), 1000000);
	/* 1,000 values: p99.9 is a figure (the largest, 1000 us), p99.99 is not */
	double q[FSLAB_LAT_N];
	fslab_lat_quantiles(&h, q);
	ck_assert_double_eq(q[FSLAB_LAT_P50], (double)p50);
	ck_assert_double_eq(q[FSLAB_LAT_P99], (double)p99);
	ck_assert_double_eq(q[FSLAB_LAT_P999], 1000000);
	ck_assert_double_eq(q[FSLAB_LAT_P9999], -1);
	ck_assert_double_eq(q[FSLAB_LAT_MAX], 1000000);
	h.count = 999; /* 999 values: p99.9 is not a figure either */
	fslab_lat_quantiles(&h, q);
	ck_assert_double_eq(q[FSLAB_LAT_P999], -1);

	/* 10,000 values: 9,990 of 100 us, 9 of 5 ms, one of 1 s: p99.9 is the
	 * 9,990th (100 us), p99.99 the 9,999th (5 ms), each within its bucket
	 * (6.25%), and the max the 1 s */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 10000; i++)
		fslab_lat_add(&h, i < 9990 ? 100000 : i < 9999 ? 5000000 : 1000000000);
	fslab_lat_quantiles(&h, q);
	ck_assert_msg(q[FSLAB_LAT_P99] >= 100000 && q[FSLAB_LAT_P99] <= 106250, "p99 %g", q[FSLAB_LAT_P99]);
	ck_assert_msg(q[FSLAB_LAT_P999] >= 100000 && q[FSLAB_LAT_P999] <= 106250, "p99.9 %g", q[FSLAB_LAT_P999]);
	ck_assert_msg(q[FSLAB_LAT_P9999] >= 5000000 && q[FSLAB_LAT_P9999] <= 5312500, "p99.99 %g",
		      q[FSLAB_LAT_P9999]);
	ck_assert_double_eq(q[FSLAB_LAT_MAX], 1000000000);
}
END_TEST

START_TEST(ops_version_mismatch_fails_loudly)
{
	struct cell_run cr = { 0 };
	struct fslab_bench_buffers b;
	struct fslab_io_ops ops;

	cr.ctx.ev = calloc(MAX_EVENTS, sizeof(*cr.ctx.ev));
	ops = rec_ops(&cr.ctx);
	ops.version = FSLAB_IO_OPS_VERSION - 1; /* a fake built against the old layout */
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, 4096), 0);
	struct fslab_cell cell = { .dir_fd = dir_fd, .name = "testfile", .file_bytes = 65536,
				   .record_bytes = 4096, .tests = FSLAB_TESTS_ALL,
				   .sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_WARM }, .ops = &ops };
	ck_assert_int_eq(fslab_cell_run(&cell, &b, cr.out, &cr.times), -EINVAL);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++) {
		ck_assert_int_eq(cr.out[t].status, FSLAB_OUTCOME_FAILED);
		ck_assert_ptr_nonnull(strstr(cr.out[t].reason, "layout version"));
	}
	ck_assert_uint_eq(cr.ctx.n_ev, 0); /* not one call through it */
	fslab_bench_buffers_free(&b);
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);
}
END_TEST

START_TEST(modes_fsync_and_direct)
{
	struct cell_run cr = { 0 };

	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_FSYNC);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK, "%s", cr.out[t].reason);
	ck_assert_uint_eq(cr.ctx.mismatches, 0);
	cell_run_free(&cr);

	memset(&cr, 0, sizeof(cr));
	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_DIRECT);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++) {
		const struct fslab_bench_test *bt = fslab_bench_test_get(t);
		if (bt->flags & FSLAB_BT_STDIO) {
			/* run buffered, as IOzone -I does (run.c flags the rows) */
			ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK, "%s: %s",
				      fslab_test_to_string(t), cr.out[t].reason);
		} else {
			/* O_DIRECT works here, or the whole test is skipped with why */
			ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK ||
					      (cr.out[t].status == FSLAB_OUTCOME_SKIPPED &&
					       strstr(cr.out[t].reason, "O_DIRECT")),
				      "%s: %s", fslab_test_to_string(t), cr.out[t].reason);
		}
	}
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);

	/* a filesystem that refuses O_DIRECT: the write test (its own open,
	 * no prepared file) is skipped, not failed; the same EINVAL without
	 * O_DIRECT is a failure */
	memset(&cr, 0, sizeof(cr));
	cr.ctx.refuse_direct = true;
	run_cell(&cr, 4 * 4096, 4096, 1u << FSLAB_TEST_WRITE, FSLAB_CACHE_DIRECT);
	ck_assert_msg(cr.out[FSLAB_TEST_WRITE].status == FSLAB_OUTCOME_SKIPPED, "%s",
		      cr.out[FSLAB_TEST_WRITE].reason);
	cell_run_free(&cr);
	memset(&cr, 0, sizeof(cr));
	cr.ctx.fail_open_errno = EINVAL;
	run_cell(&cr, 4 * 4096, 4096, 1u << FSLAB_TEST_WRITE, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_FAILED);
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);
}
END_TEST

START_TEST(only_read_tests_prepare_the_file)
{
	struct cell_run cr = { 0 };
	unsigned mask = (1u << FSLAB_TEST_READ) | (1u << FSLAB_TEST_STRIDE_READ);

	run_cell(&cr, 128 * 1024, 4096, mask, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_READ].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(cr.out[FSLAB_TEST_STRIDE_READ].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_NOT_RUN);
	ck_assert_uint_eq(cr.ctx.mismatches, 0);
	ck_assert_uint_gt(cr.ctx.checked, 0);
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);
}
END_TEST

START_TEST(fault_enospc_nth_write)
{
	struct cell_run cr = { 0 };
	int fds = count_fds();

	cr.ctx.fail_write_n = 5;
	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_msg(strstr(cr.out[FSLAB_TEST_WRITE].reason, "No space left on device") &&
			      strstr(cr.out[FSLAB_TEST_WRITE].reason, "offset 16384"),
		      "%s", cr.out[FSLAB_TEST_WRITE].reason);
	/* the run went on: the later tests got a file and passed */
	for (int t = FSLAB_TEST_REWRITE; t < FSLAB_TEST_IOZONE_COUNT; t++)
		ck_assert_msg(cr.out[t].status == FSLAB_OUTCOME_OK, "%s: %s", fslab_test_to_string(t),
			      cr.out[t].reason);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);
}
END_TEST

START_TEST(fault_enospc_disk_full)
{
	struct cell_run cr = { 0 };
	int fds = count_fds();

	/* every write from the 70th on fails: the filesystem is full */
	cr.ctx.fail_write_n = 70;
	cr.ctx.fail_writes_after = true;
	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(cr.out[FSLAB_TEST_REWRITE].status, FSLAB_OUTCOME_FAILED);
	for (int t = FSLAB_TEST_REWRITE; t < FSLAB_TEST_IOZONE_COUNT; t++) {
		ck_assert_int_eq(cr.out[t].status, FSLAB_OUTCOME_FAILED);
		ck_assert_msg(strstr(cr.out[t].reason, "No space left"), "%s", cr.out[t].reason);
	}
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);
}
END_TEST

START_TEST(fault_eio_read)
{
	struct cell_run cr = { 0 };
	int fds = count_fds();

	/* the 2nd read call is the read test's first timed read (after priming) */
	cr.ctx.fail_read_n = 2;
	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_READ].status, FSLAB_OUTCOME_FAILED);
	ck_assert_msg(strstr(cr.out[FSLAB_TEST_READ].reason, "Input/output error"), "%s",
		      cr.out[FSLAB_TEST_READ].reason);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(cr.out[FSLAB_TEST_REREAD].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(cr.out[FSLAB_TEST_FREREAD].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);
}
END_TEST

START_TEST(fault_stdio)
{
	struct cell_run cr = { 0 };
	int fds = count_fds();
	/* writes: write 64 + rewrite 64 + random 64 + record rewrite 64 = 256;
	 * the 260th is fwrite's 4th */
	cr.ctx.fail_write_n = 260;
	run_cell(&cr, 256 * 1024, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_FSYNC);
	ck_assert_int_eq(cr.out[FSLAB_TEST_FWRITE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_msg(strstr(cr.out[FSLAB_TEST_FWRITE].reason, "fwrite"), "%s",
		      cr.out[FSLAB_TEST_FWRITE].reason);
	ck_assert_int_eq(cr.out[FSLAB_TEST_FREWRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);
}
END_TEST

/* Sets *stop once test `after` has reported, as a SIGINT between two
 * tests would. */
struct stop_after {
	struct rec_ctx *rec;
	volatile sig_atomic_t *stop;
	enum fslab_test after;
};

static void stop_on_test(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	struct stop_after *s = ctx;

	rec_on_test(s->rec, t, o);
	if (t == s->after)
		*s->stop = 1;
}

START_TEST(stop_between_tests)
{
	struct cell_run cr = { 0 };
	volatile sig_atomic_t stop = 1;
	struct fslab_bench_buffers b;
	struct fslab_io_ops ops;
	struct stop_after sa = { .rec = &cr.ctx, .stop = &stop, .after = FSLAB_TEST_READ };

	cr.ctx.ev = calloc(MAX_EVENTS, sizeof(*cr.ctx.ev));
	ops = rec_ops(&cr.ctx);
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, 4096), 0);
	struct fslab_cell cell = { .dir_fd = dir_fd, .name = "testfile", .file_bytes = 65536, .record_bytes = 4096,
				   .tests = FSLAB_TESTS_ALL, .sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_WARM },
				   .ops = &ops, .stop = &stop };
	/* set before the first test: nothing runs, no file is opened */
	ck_assert_int_eq(fslab_cell_run(&cell, &b, cr.out, &cr.times), -EINTR);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		ck_assert_int_eq(cr.out[t].status, FSLAB_OUTCOME_NOT_RUN);
	for (size_t i = 0; i < cr.ctx.n_ev; i++)
		ck_assert(cr.ctx.ev[i].op != OP_OPEN && cr.ctx.ev[i].op != OP_FOPEN);
	ck_assert_int_eq(count_files(dir), 0);

	/* set between read and reread: the tests before it are measured,
	 * none after it starts, and the test file is still removed */
	stop = 0;
	cell.on_test = stop_on_test;
	cell.on_test_ctx = &sa;
	ck_assert_int_eq(fslab_cell_run(&cell, &b, cr.out, &cr.times), -EINTR);
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		enum fslab_outcome want = t <= FSLAB_TEST_READ ? FSLAB_OUTCOME_OK : FSLAB_OUTCOME_NOT_RUN;

		ck_assert_msg(cr.out[t].status == want, "%s: status %d, want %d (%s)",
			      fslab_test_to_string(t), cr.out[t].status, want, cr.out[t].reason);
	}
	ck_assert(!cr.ctx.seg_done[FSLAB_TEST_REREAD]);
	expect_tail(&cr, 4096, "unlink");
	fslab_bench_buffers_free(&b);
	cell_run_free(&cr);
	ck_assert_int_eq(count_files(dir), 0);
}
END_TEST


/* The ETA starts from the estimate (work left x its rate) before any work
 * finished, and moves to the measured rate as work finishes: wholly once a
 * fifth of the work is done.  Bounds come from the elapsed time, not from
 * how fast this machine is. */
START_TEST(progress_eta_starts_from_the_estimate)
{
	FILE *null = fopen("/dev/null", "w");
	struct fslab_progress *p;
	double eta, el;

	ck_assert_ptr_nonnull(null);
	p = fslab_progress_new(null, NULL, true);
	ck_assert_ptr_nonnull(p);
	fslab_progress_set_work(p, 100, 0);
	ck_assert_double_lt(fslab_progress_eta(p), 0); /* nothing to go on */
	fslab_progress_set_estimate(p, 0.5);
	ck_assert_double_eq_tol(fslab_progress_eta(p), 50, 1e-9);
	/* a tenth done: half measured, half the estimate's 45 s */
	fslab_progress_add_work(p, 10);
	eta = fslab_progress_eta(p);
	el = fslab_progress_elapsed(p);
	ck_assert_double_ge(eta, 22.5);
	ck_assert_double_le(eta, 22.5 + 0.5 * el / 10 * 90 + 1e-9);
	/* three tenths done: measured alone, far below the estimate's 35 s
	 * (each unit took microseconds, not 0.5 s) */
	fslab_progress_add_work(p, 20);
	eta = fslab_progress_eta(p);
	el = fslab_progress_elapsed(p);
	ck_assert_double_ge(eta, 0);
	ck_assert_double_le(eta, fmax(el / 30 * 70, FSLAB_PROGRESS_MIN_LEFT_S) + 1e-9);
	/* a later trial's set_work keeps the measured rate */
	fslab_progress_set_work(p, 70, 0);
	ck_assert_double_le(fslab_progress_eta(p),
			    fmax(fslab_progress_elapsed(p) / 30 * 70, FSLAB_PROGRESS_MIN_LEFT_S) + 1e-9);
	fslab_progress_free(p);
	fclose(null);
}
END_TEST

/* --until-ci stops on exactly the interval the report draws: 32 trials
 * (df = 31, where the old table said 2.021 and the truth is 2.0395), the
 * stopping rule flips at the report's own half-width, not below it. */
static void check_until_ci_stops_on_report_interval(void)
{
	double x[32], m, sd, half, pct;

	for (size_t i = 0; i < 32; i++)
		x[i] = 1000 + (double)(i % 4) * 10 - 15 + (double)(i % 3);
	fslab_mean_sd(x, 32, &m, &sd);
	fslab_mean_ci95(x, 32, NULL, &half);
	ck_assert_double_eq_tol(half, 2.0395 * sd / sqrt(32), 1e-4 * sd);
	pct = 100 * half / m;
	ck_assert(fslab_ci_within(x, 32, pct * (1 + 1e-9)));
	/* the old table's 2.021 would stop here; the report's wider bar must not */
	ck_assert(!fslab_ci_within(x, 32, pct * 2.021 / 2.0395));
}

/* t(0.975, df) as printed in statistics tables (4 decimals), and closed
 * forms of the tail: independent of how fslab computes either. */
START_TEST(confidence_interval)
{
	static const struct {
		double df, t;
	} table[] = {
		{ 1, 12.7062 }, { 2, 4.3027 }, { 3, 3.1824 }, { 5, 2.5706 }, { 10, 2.2281 },
		{ 30, 2.0423 }, { 31, 2.0395 }, { 100, 1.9840 }, { 1000, 1.9623 }, { 1e6, 1.9600 },
	};
	double two[] = { 10, 12 }, m, h;
	double five[] = { 100, 102, 98, 101, 99 };

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		ck_assert_msg(fabs(fslab_t_quantile(0.05, table[i].df) - table[i].t) < 1e-4,
			      "t975(%g) = %.6f, tables say %.4f", table[i].df,
			      fslab_t_quantile(0.05, table[i].df), table[i].t);
	ck_assert(isnan(fslab_t_quantile(0.05, 0)));
	/* df = 1 is Cauchy: P(|T| >= 1) = 1/2; df = 2: 1 - t / sqrt(2 + t^2) */
	ck_assert_double_eq_tol(fslab_t_two_sided_p(1, 1), 0.5, 1e-9);
	ck_assert_double_eq_tol(fslab_t_two_sided_p(2, 2), 1 - 2 / sqrt(6), 1e-9);
	ck_assert_double_eq_tol(fslab_t_two_sided_p(0, 7), 1, 1e-12);

	fslab_mean_ci95(two, 2, &m, &h);
	ck_assert_double_eq_tol(m, 11, 1e-9);
	/* s = sqrt(2), half = t(1) * s / sqrt(2) = t(1) */
	ck_assert_double_eq_tol(h, 12.7062, 1e-4);
	fslab_mean_ci95(five, 5, &m, &h);
	ck_assert_double_eq_tol(m, 100, 1e-9);
	/* s = sqrt(2.5), half = 2.7764 * s / sqrt(5) = 1.9632 */
	ck_assert_double_eq_tol(h, 2.7764 * sqrt(0.5), 1e-4);
	ck_assert(fslab_ci_within(five, 5, 2.0)); /* 1.9632 <= 2 */
	ck_assert(!fslab_ci_within(five, 5, 1.9));
	ck_assert(!fslab_ci_within(five, 1, 50)); /* one sample: no interval */
	fslab_mean_ci95(five, 1, &m, &h);
	ck_assert(isnan(h));
	/* the factor pasted into help text is the one the flag uses */
	ck_assert_double_eq(strtod(FSLAB_PAGE_CACHE_FACTOR_TEXT, NULL), FSLAB_PAGE_CACHE_FACTOR);
	check_until_ci_stops_on_report_interval();
}
END_TEST

/* ---- plan ---- */

static size_t plan_count(const char *preset, uint64_t fmax, bool keep)
{
	struct fslab_sweep_spec s;
	struct fslab_plan p;
	size_t n;

	ck_assert_int_eq(sweep_preset(preset, &s), 0);
	if (fmax)
		s.file_max = fmax;
	s.keep_small_records = keep;
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	n = p.n;
	fslab_plan_free(&p);
	return n;
}

START_TEST(plan_counts)
{
	ck_assert_uint_eq(plan_count("seed", 0, false), 144);
	ck_assert_uint_eq(plan_count("seed", FSLAB_GiB, false), 135);
	ck_assert_uint_eq(plan_count("seed", 64 * FSLAB_MiB, false), 99);
	ck_assert_uint_eq(plan_count("seed", 512 * FSLAB_MiB, false), 126);
	ck_assert_uint_eq(plan_count("quick", 0, false), 99);
	/* -z keeps the small records: 13 records for every file from 16M up */
	ck_assert_uint_eq(plan_count("seed", 0, true), 81 + 7 * 13);

	struct fslab_sweep_spec s;
	ck_assert_int_eq(sweep_preset("seed", &s), 0);
	ck_assert_uint_eq(s.tests, FSLAB_TESTS_ALL);
	ck_assert_uint_eq(s.trials, 1);
	ck_assert_int_eq(s.cache, FSLAB_CACHE_WARM);

}
END_TEST

/* The default plan (the lab preset): every file size of the question,
 * 64K-2G, on the coarse records of FSLAB_PLAN_COARSE_RULE: 4K, 64K, 1M,
 * 16M up to the file (no 4K above 16M) below 128M, 1M alone and no stdio
 * test from 128M on; cold, 3..24 trials.  Sizes given: the whole grid. */
START_TEST(lab_plan_is_coarse)
{
	static const uint64_t recs[] = { 4 * FSLAB_KiB, 64 * FSLAB_KiB, FSLAB_MiB, 16 * FSLAB_MiB };
	struct fslab_sweep_spec s;
	struct fslab_plan p;
	size_t n = 0;

	ck_assert_int_eq(sweep_preset("lab", &s), 0);
	ck_assert_uint_eq(s.file_min, 64 * FSLAB_KiB);
	ck_assert_uint_eq(s.file_max, 2 * FSLAB_GiB);
	ck_assert_int_eq(s.cache, FSLAB_CACHE_COLD);
	ck_assert_uint_eq(s.trials, 3);
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	for (uint64_t f = 64 * FSLAB_KiB; f <= 2 * FSLAB_GiB; f *= 2) {
		for (size_t k = 0; k < 4; k++) {
			bool want = f >= FSLAB_PLAN_LARGE_FILE ? recs[k] == FSLAB_MiB
							       : recs[k] <= f && !(f > 16 * FSLAB_MiB && k == 0);
			size_t i = fslab_plan_find(&p, FSLAB_TEST_WRITE, f / 1024, recs[k] / 1024, 1, 1);

			ck_assert_msg((i < p.n) == want, "file %llu KiB record %llu KiB: %s", (unsigned long long)(f / 1024),
				      (unsigned long long)(recs[k] / 1024), want ? "missing" : "planned");
			n += want;
			if (!want)
				continue;
			/* a large file: no stdio test; a small one: all 13 */
			ck_assert_uint_eq(fslab_plan_cell_tests(&p.cells[i], s.tests),
					  f >= FSLAB_PLAN_LARGE_FILE ? FSLAB_TESTS_IOZONE & ~FSLAB_TESTS_STDIO : FSLAB_TESTS_IOZONE);
		}
		/* records between the coarse ones are not in the plan */
		ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_READ, f / 1024, 8, 1, 1), p.n);
	}
	ck_assert_uint_eq(p.n, n);
	ck_assert_uint_eq(p.n, 35);
	ck_assert_uint_eq(fslab_plan_test_count(&p, s.tests), 30 * 13 + 5 * 9);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_FREAD, 2 * FSLAB_GiB / 1024, 1024, 1, 1), p.n);
	fslab_plan_free(&p);
}
END_TEST

/* The default run's estimate on a fake lab of the four kernel filesystems
 * (FAT32 through FUSE has a plan of its own that costs minutes) at an
 * assumed SATA SSD's 500 MB/s: at most an hour up to the stopping rule's
 * cap of 8 trials, with the device probes; at least 20 minutes (3 trials
 * of 64K-2G are real work, not an empty plan). */
START_TEST(lab_estimate_within_an_hour)
{
	struct fslab_run_opts o;
	const double kib_s = 500e6 / 1024;
	double lo, hi;

	fslab_run_opts_init(&o);
	ck_assert_int_eq(fslab_run_estimate(&o, 4, kib_s, kib_s, &lo, &hi), 0);
	fprintf(stderr, "default plan, 4 filesystems at 500 MB/s: %.0f..%.0f s\n", lo, hi);
	ck_assert_double_le(hi, 3600);
	ck_assert_double_gt(lo, 0.3 * hi);
	ck_assert_double_ge(lo, 600);
}
END_TEST

START_TEST(plan_bounds)
{
	struct fslab_sweep_spec s;
	struct fslab_plan p;

	ck_assert_int_eq(sweep_preset("seed", &s), 0);
	s.file_min = FSLAB_MiB;
	s.file_max = 64 * FSLAB_MiB;
	s.record_min = 16 * FSLAB_KiB;
	s.record_max = 2 * FSLAB_MiB;
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_gt(p.n, 0);
	for (size_t i = 0; i < p.n; i++) {
		const struct fslab_sweep_cell *c = &p.cells[i];
		ck_assert_uint_ge(c->file_bytes, s.file_min);
		ck_assert_uint_le(c->file_bytes, s.file_max);
		ck_assert_uint_ge(c->record_bytes, s.record_min);
		ck_assert_uint_le(c->record_bytes, s.record_max);
		ck_assert_uint_le(c->record_bytes, c->file_bytes);
		if (c->file_bytes > 16 * FSLAB_MiB)
			ck_assert_uint_ge(c->record_bytes, 64 * FSLAB_KiB);
		if (i)
			ck_assert(c->file_bytes > p.cells[i - 1].file_bytes ||
				  (c->file_bytes == p.cells[i - 1].file_bytes &&
				   c->record_bytes > p.cells[i - 1].record_bytes));
	}
	/* 1M: 16K..1M = 7; 2M..16M: 16K..2M = 8 x 4; 32M, 64M: 64K..2M = 6 x 2 */
	ck_assert_uint_eq(p.n, 7 + 32 + 12);
	fslab_plan_free(&p);

	s.record_min = 128 * FSLAB_MiB;
	s.record_max = 128 * FSLAB_MiB;
	ck_assert_int_eq(fslab_plan_build(&s, &p), -EINVAL);

	/* a file_max near 2^64 (a damaged manifest) ends the walk at 2^63
	 * instead of doubling to 0 and spinning: files 64K..16M keep records
	 * 4K..the file (5..13 each), the 39 sizes from 32M on 64K..16M (9) */
	s.file_min = 64 * FSLAB_KiB;
	s.record_min = 4 * FSLAB_KiB;
	s.record_max = 16 * FSLAB_MiB;
	s.file_max = UINT64_MAX;
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_eq(p.cells[p.n - 1].file_bytes, UINT64_C(1) << 63);
	ck_assert_uint_eq(p.n, 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 9 * 39);
	fslab_plan_free(&p);
	s.file_max = UINT64_C(9007199254740992) * 1024; /* --resume's file_max_kib */
	ck_assert_int_eq(fslab_plan_build(&s, &p), 0);
	ck_assert_uint_eq(p.cells[p.n - 1].file_bytes, UINT64_C(1) << 63);
	fslab_plan_free(&p);
}
END_TEST

/* A SIGSTOP shows up as a SIGCONT once the process runs again; here the
 * ops' write sets the flag as the handler would, in the first `stops`
 * write passes (the first write call of each pass of the write test). */
static volatile sig_atomic_t stop_flag;
static unsigned stop_passes_left;
static ssize_t (*stop_real_write)(void *, int, const void *, size_t);

static ssize_t stop_write(void *ctx, int fd, const void *buf, size_t len)
{
	if (lseek(fd, 0, SEEK_CUR) == 0 && stop_passes_left) {
		stop_passes_left--;
		stop_flag = 1;
	}
	return stop_real_write(ctx, fd, buf, len);
}

static void run_stopped_cell(struct cell_run *cr, unsigned stops)
{
	struct fslab_bench_buffers b;
	struct fslab_io_ops ops;

	cr->ctx.ev = calloc(MAX_EVENTS, sizeof(*cr->ctx.ev));
	ops = rec_ops(&cr->ctx);
	stop_real_write = ops.write;
	ops.write = stop_write;
	stop_flag = 0;
	stop_passes_left = stops;
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, 4096), 0);
	struct fslab_cell cell = { .dir_fd = dir_fd, .name = "testfile", .file_bytes = 65536,
				   .record_bytes = 4096,
				   .tests = (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_READ),
				   .sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_WARM }, .ops = &ops, .continued = &stop_flag };
	ck_assert_int_eq(fslab_cell_run(&cell, &b, cr->out, &cr->times), 0);
	fslab_bench_buffers_free(&b);
}

START_TEST(stopped_pass_is_redone)
{
	struct cell_run cr = { 0 };

	run_stopped_cell(&cr, 1);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_OK);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_WRITE].redone, 1);
	ck_assert_int_eq(cr.out[FSLAB_TEST_READ].status, FSLAB_OUTCOME_OK);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_READ].redone, 0);
	/* the kept pass wrote the whole file again: 16 records twice */
	ck_assert_uint_eq(cr.ctx.writes, 32);
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);

	/* stopped in every pass: no figure at all, the row says why */
	memset(&cr, 0, sizeof(cr));
	run_stopped_cell(&cr, 100);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_uint_eq(cr.out[FSLAB_TEST_WRITE].redone, FSLAB_STOP_REDO_MAX);
	ck_assert_ptr_nonnull(strstr(cr.out[FSLAB_TEST_WRITE].reason, "stopped"));
	ck_assert_int_eq(count_files(dir), 0);
	cell_run_free(&cr);
}
END_TEST

/* The test file is never written through a symlink: a link planted under
 * its name (in a directory that is not private) fails the cell's first
 * create instead of writing the link's target. */
START_TEST(planted_symlink_is_not_followed)
{
	struct cell_run cr = { 0 };
	char victim[600], link[600], buf[16] = "";
	int fd;

	snprintf(victim, sizeof(victim), "%s.victim", dir);
	snprintf(link, sizeof(link), "%s/testfile", dir);
	ck_assert_int_eq(ft_write_file(victim, "precious"), 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	run_cell(&cr, 65536, 4096, FSLAB_TESTS_ALL, FSLAB_CACHE_WARM);
	ck_assert_int_eq(cr.out[FSLAB_TEST_WRITE].status, FSLAB_OUTCOME_FAILED);
	fd = open(victim, O_RDONLY);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	ck_assert_str_eq(buf, "precious");
	unlink(link);
	unlink(victim);
	cell_run_free(&cr);
}
END_TEST

/* The device counting window, on a fake stat file the ops rewrite as the
 * pass goes: the pass's I/O between the timer's marks, the flush's after
 * its syncfs.  The first reading must come before the timer's start, the
 * second after its stop, the third after the syncfs that follows the
 * pass; without counters no syncfs is added. */
struct fake_dev {
	int fd; /* an unlinked file, named /proc/self/fd/FD: nothing left behind */
	char path[64];
	unsigned long long rd, wr;
	unsigned syncfs;
};

static void fake_dev_write(struct fake_dev *d)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "    1 0 %llu 0 2 0 %llu 0 0 0 0 0 0 0 0 0 0\n", d->rd, d->wr);

	ck_assert_int_eq(ftruncate(d->fd, 0), 0);
	ck_assert_int_eq(pwrite(d->fd, line, (size_t)n, 0), n);
}

static void fake_dev_timer(void *ctx, bool start)
{
	struct fake_dev *d = ctx;

	if (!start)
		return;
	d->rd += 1000; /* what the timed loop moves */
	d->wr += 2000;
	fake_dev_write(d);
}

static int fake_dev_syncfs(void *ctx, int dfd)
{
	struct fake_dev *d = ctx;

	(void)dfd;
	d->syncfs++;
	d->rd += 5; /* what the flush after the pass writes (and reads) */
	d->wr += 7;
	fake_dev_write(d);
	return 0;
}

START_TEST(device_counting_window)
{
	static struct fake_dev d;
	struct fslab_io_ops ops = fslab_io_posix;
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	struct fslab_bench_buffers b;

	memset(&d, 0, sizeof(d));
	d.fd = openat(dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	ck_assert_int_ge(d.fd, 0);
	snprintf(d.path, sizeof(d.path), "/proc/self/fd/%d", d.fd);
	d.rd = 10;
	d.wr = 20;
	fake_dev_write(&d);
	ops.ctx = &d;
	ops.timer = fake_dev_timer;
	ops.syncfs = fake_dev_syncfs;
	ops.fsync_path = NULL;
	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, 4096), 0);
	for (int with = 1; with >= 0; with--) {
		struct fslab_cell cell = {
			.dir_fd = dir_fd, .name = "testfile", .file_bytes = 16 * 4096, .record_bytes = 4096,
			.tests = (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_READ),
			.sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_WARM },
			.ops = &ops, .dev_stat = with ? d.path : NULL,
		};

		d.syncfs = 0;
		ck_assert_int_eq(fslab_cell_run(&cell, &b, out, &times), 0);
		for (int k = 0; k < 2; k++) {
			const struct fslab_test_outcome *o = &out[k ? FSLAB_TEST_READ : FSLAB_TEST_WRITE];

			ck_assert_int_eq(o->status, FSLAB_OUTCOME_OK);
			ck_assert_uint_eq(o->io_bytes, 16 * 4096);
			ck_assert(o->has_dev == (bool)with);
			if (!with)
				continue;
			ck_assert_uint_eq(o->dev_read_bytes, 1005 * 512);
			ck_assert_uint_eq(o->dev_write_bytes, 2007 * 512);
			ck_assert_uint_eq(o->dev_write_timed_bytes, 2000 * 512);
		}
		/* the cell's flush, then one a pass with counters only */
		ck_assert_uint_eq(d.syncfs, with ? 3 : 1);
	}
	fslab_bench_buffers_free(&b);
	close(d.fd);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_engine");
	TCase *tc = ft_tcase(s, "engine", 0);
	TCase *tp = ft_tcase(s, "plan", 0);

	/* unchecked: runs in the parent, so the temporary directory goes away
	 * even when a test fails (a failing forked test skips checked teardown) */
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, patterns_small_file);
	tcase_add_test(tc, device_counting_window);
	tcase_add_test(tc, patterns_17_records);
	tcase_add_test(tc, patterns_many_records);
	tcase_add_test(tc, random_order_fixed);
	tcase_add_test(tc, random_order_is_iozones);
	tcase_add_test(tc, stride_rule);
	tcase_add_test(tc, stride_sequences);
	tcase_add_test(tc, syscall_sequences_warm);
	tcase_add_test(tc, syscall_sequences_stride_wrap);
	tcase_add_test(tc, syscall_sequences_modes);
	tcase_add_test(tc, ops_version_mismatch_fails_loudly);
	tcase_add_test(tc, disturbed_pass_is_redone);
	tcase_add_test(tc, median_and_latency_histogram);
	tcase_add_test(tc, latency_per_operation);
	tcase_add_test(tc, modes_fsync_and_direct);
	tcase_add_test(tc, only_read_tests_prepare_the_file);
	tcase_add_test(tc, fault_enospc_nth_write);
	tcase_add_test(tc, fault_enospc_disk_full);
	tcase_add_test(tc, fault_eio_read);
	tcase_add_test(tc, fault_stdio);
	tcase_add_test(tc, stop_between_tests);
	tcase_add_test(tc, stopped_pass_is_redone);
	tcase_add_test(tc, planted_symlink_is_not_followed);
	tcase_add_test(tp, plan_counts);
	tcase_add_test(tp, lab_plan_is_coarse);
	tcase_add_test(tp, lab_estimate_within_an_hour);
	tcase_add_test(tp, plan_bounds);
	tcase_add_test(tp, confidence_interval);
	tcase_add_test(tp, progress_eta_starts_from_the_estimate);
	return ft_suite_run(s, argc, argv);
}
