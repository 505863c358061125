/* The queued tests (bench/engine/queued.c) through a fake ring in the I/O ops:
 * the queue depth is reached and never exceeded, each thread keeps to its
 * own region and together they visit every record once, a short or failed
 * completion fails the test with a message naming the call and offset, a
 * ring that cannot be set up says why, a pass of a fixed length wraps over
 * its region; O_DIRECT but in warm mode, whose rows fslab run flags
 * buffered; and the real io_uring ring (liburing) on a small file. */
#include "testutil.h"

#include "engine/engine.h"
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_BYTES (1024 * 1024)
#define REC 4096
#define N_REC (FILE_BYTES / REC)
#define MAX_RINGS 64
#define MAX_DEPTH 256

struct fake_ring {
	unsigned id, depth, inflight, max_inflight;
	uint64_t submitted, completed, reaps;
	struct fslab_ring_done pending[MAX_DEPTH];
	uint64_t pending_off[MAX_DEPTH];
	size_t pending_len[MAX_DEPTH];
	unsigned n_pending;
};

/* Everything the rings saw, under one lock (the threads share it). */
struct fake {
	pthread_mutex_t mu;
	struct fake_ring *rings[MAX_RINGS];
	unsigned setups, teardowns, over_depth, bad_len;
	unsigned owner[N_REC];       /* ring id + 1 of the first request of each record */
	unsigned visits[N_REC];      /* requests per record */
	unsigned foreign;            /* requests at a record another ring visited */
	int last_open_flags;
	/* faults: the completion at fault_off (once) returns fault_res */
	bool fault;
	uint64_t fault_off;
	int fault_res;
	int setup_errno;             /* ring_setup fails with it; 0 none */
};

static struct fake F;

static void fake_reset(void)
{
	for (unsigned i = 0; i < MAX_RINGS; i++)
		free(F.rings[i]);
	memset(&F, 0, sizeof(F));
	pthread_mutex_init(&F.mu, NULL);
}

/* The test file is real (a temporary directory): opened without
 * O_DIRECT, which is recorded, so any filesystem takes it. */
static int fake_open(void *ctx, int dfd, const char *name, int flags, mode_t mode)
{
	(void)ctx;
	F.last_open_flags = flags;
	return fslab_io_posix.open(NULL, dfd, name, flags & ~O_DIRECT, mode);
}

static int fake_ring_setup(void *ctx, unsigned depth, void *const *bufs, unsigned nbufs, size_t len,
			   void **ring)
{
	struct fake_ring *r;

	(void)ctx;
	ck_assert_uint_eq(nbufs, depth);
	for (unsigned i = 0; i < nbufs; i++)
		ck_assert_uint_eq((uintptr_t)bufs[i] % 4096, 0); /* O_DIRECT's alignment */
	ck_assert_uint_eq(len, REC);
	if (F.setup_errno) {
		errno = F.setup_errno;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	pthread_mutex_lock(&F.mu);
	ck_assert_uint_lt(F.setups, MAX_RINGS);
	r->id = F.setups;
	r->depth = depth;
	F.rings[F.setups++] = r;
	pthread_mutex_unlock(&F.mu);
	*ring = r;
	return 0;
}

static int fake_ring_submit(void *ctx, void *ring, const struct fslab_ring_req *reqs, unsigned n)
{
	struct fake_ring *r = ring;

	(void)ctx;
	pthread_mutex_lock(&F.mu);
	for (unsigned i = 0; i < n; i++) {
		uint64_t rec = (uint64_t)reqs[i].off / REC;

		if (r->inflight == r->depth) {
			F.over_depth++;
			break;
		}
		if (reqs[i].len != REC || reqs[i].off % REC || rec >= N_REC) {
			F.bad_len++;
			continue;
		}
		if (F.owner[rec] && F.owner[rec] != r->id + 1)
			F.foreign++;
		if (!F.owner[rec])
			F.owner[rec] = r->id + 1;
		F.visits[rec]++;
		r->pending[r->n_pending] = (struct fslab_ring_done){ .tag = reqs[i].tag, .res = REC };
		r->pending_off[r->n_pending] = (uint64_t)reqs[i].off;
		r->pending_len[r->n_pending++] = reqs[i].len;
		r->inflight++;
		r->submitted++;
		if (r->inflight > r->max_inflight)
			r->max_inflight = r->inflight;
	}
	pthread_mutex_unlock(&F.mu);
	return (int)n;
}

/* Completes the oldest requests: a batch of 1 to 3 at a time (at least
 * min), so the runner sees completions trickle in. */
static int fake_ring_reap(void *ctx, void *ring, struct fslab_ring_done *done, unsigned max, unsigned min)
{
	struct fake_ring *r = ring;
	unsigned k;

	(void)ctx;
	pthread_mutex_lock(&F.mu);
	k = 1 + (unsigned)(r->reaps++ % 3);
	if (k < min)
		k = min;
	if (k > max)
		k = max;
	if (k > r->n_pending)
		k = r->n_pending;
	ck_assert_uint_ge(k, min); /* a wait for more than is in flight would hang */
	for (unsigned i = 0; i < k; i++) {
		done[i] = r->pending[i];
		if (F.fault && r->pending_off[i] == F.fault_off) {
			done[i].res = F.fault_res;
			F.fault = false;
		}
	}
	memmove(r->pending, r->pending + k, (r->n_pending - k) * sizeof(r->pending[0]));
	memmove(r->pending_off, r->pending_off + k, (r->n_pending - k) * sizeof(r->pending_off[0]));
	memmove(r->pending_len, r->pending_len + k, (r->n_pending - k) * sizeof(r->pending_len[0]));
	r->n_pending -= k;
	r->inflight -= k;
	r->completed += k;
	pthread_mutex_unlock(&F.mu);
	return (int)k;
}

static void fake_ring_teardown(void *ctx, void *ring)
{
	(void)ctx;
	(void)ring;
	pthread_mutex_lock(&F.mu);
	F.teardowns++;
	pthread_mutex_unlock(&F.mu);
}

/* Pre-sizing refused: fallocate and ftruncate fail with these errnos
 * (fusefat: EOPNOTSUPP and EPERM). */
static int presize_errno[2];

static int fake_presize_refused(int which)
{
	errno = presize_errno[which];
	return -1;
}

static int fake_no_fallocate(void *ctx, int fd, off_t len)
{
	(void)ctx, (void)fd, (void)len;
	return fake_presize_refused(0);
}

static int fake_no_ftruncate(void *ctx, int fd, off_t len)
{
	(void)ctx, (void)fd, (void)len;
	return fake_presize_refused(1);
}

static struct fslab_io_ops fake_ops(void)
{
	struct fslab_io_ops o = fslab_io_posix;

	o.name = "fake ring";
	o.open = fake_open;
	o.ring_setup = fake_ring_setup;
	o.ring_submit = fake_ring_submit;
	o.ring_reap = fake_ring_reap;
	o.ring_teardown = fake_ring_teardown;
	return o;
}

/* ---- fixture ---- */

static char *dir;
static int dir_fd = -1;

static void setup(void)
{
	fake_reset();
	dir = ft_mkdtemp_fd("fslab-queued", &dir_fd);
}

static void teardown(void)
{
	ft_rmdir_fd(dir, &dir_fd);
	dir = NULL;
	fake_reset();
}

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

struct qrun {
	unsigned depth, jobs;
	double pass_s;
	enum fslab_cache_mode cache;
	bool latency;
	const struct fslab_io_ops *ops; /* NULL: the fake */
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
};

static void run_queued(struct qrun *q, unsigned tests)
{
	struct fslab_io_ops ops = fake_ops();
	struct fslab_bench_buffers b;
	struct fslab_cell cell = {
		.dir_fd = dir_fd,
		.name = "testfile",
		.file_bytes = FILE_BYTES,
		.record_bytes = REC,
		.tests = tests,
		.iodepth = q->depth,
		.jobs = q->jobs,
		.pass_s = q->pass_s,
		.sweep = &(const struct fslab_sweep_spec){ .cache = q->cache },
		.latency = q->latency,
		.ops = q->ops ? q->ops : &ops,
	};

	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, REC), 0);
	ck_assert_int_eq(fslab_cell_run(&cell, &b, q->out, &q->times), 0);
	fslab_bench_buffers_free(&b);
}

#define T(x) FSLAB_TEST_BIT(FSLAB_TEST_QUEUED_##x)

/* Every ring had exactly depth in flight at its fullest, never more, and
 * every request came back. */
static void assert_depth(unsigned depth)
{
	ck_assert_uint_eq(F.over_depth, 0);
	ck_assert_uint_eq(F.bad_len, 0);
	for (unsigned i = 0; i < F.setups; i++) {
		ck_assert_msg(F.rings[i]->max_inflight == depth, "ring %u: at most %u in flight, not the depth %u",
			      i, F.rings[i]->max_inflight, depth);
		ck_assert_uint_eq(F.rings[i]->completed, F.rings[i]->submitted);
	}
	ck_assert_uint_eq(F.teardowns, F.setups);
}

START_TEST(depth_reached_never_exceeded)
{
	static const unsigned depths[] = { 1, 8, 32 };

	for (size_t k = 0; k < sizeof(depths) / sizeof(depths[0]); k++) {
		struct qrun q = { .depth = depths[k], .jobs = 1, .cache = FSLAB_CACHE_DIRECT };

		fake_reset();
		run_queued(&q, T(WRITE) | T(READ));
		ck_assert_msg(q.out[FSLAB_TEST_QUEUED_WRITE].status == FSLAB_OUTCOME_OK, "write: %s",
			      q.out[FSLAB_TEST_QUEUED_WRITE].reason);
		ck_assert_msg(q.out[FSLAB_TEST_QUEUED_READ].status == FSLAB_OUTCOME_OK, "read: %s",
			      q.out[FSLAB_TEST_QUEUED_READ].reason);
		ck_assert_uint_eq(F.setups, 2); /* one ring per test, one thread */
		assert_depth(depths[k]);
		/* each test visited each record once */
		for (unsigned r = 0; r < N_REC; r++)
			ck_assert_uint_eq(F.visits[r], 2);
		/* requests a second, and the bytes of the one sweep */
		ck_assert(q.out[FSLAB_TEST_QUEUED_READ].ops_s > 0);
		ck_assert(q.out[FSLAB_TEST_QUEUED_READ].throughput_kib_s > 0);
		ck_assert_double_eq_tol(q.out[FSLAB_TEST_QUEUED_READ].ops_s * REC / 1024.0,
					q.out[FSLAB_TEST_QUEUED_READ].throughput_kib_s,
					q.out[FSLAB_TEST_QUEUED_READ].throughput_kib_s * 1e-3 + 1);
	}
}
END_TEST

/* --jobs 4: four rings, each within its quarter of the file, together
 * every record once, in order and in the shuffle. */
START_TEST(jobs_get_disjoint_regions)
{
	static const unsigned tests[] = { T(WRITE), T(READ), T(RANDOM_WRITE), T(RANDOM_READ) };

	for (size_t k = 0; k < sizeof(tests) / sizeof(tests[0]); k++) {
		struct qrun q = { .depth = 4, .jobs = 4, .cache = FSLAB_CACHE_COLD };
		int fds = count_fds();

		fake_reset();
		run_queued(&q, tests[k]);
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			if (tests[k] & (1u << t))
				ck_assert_msg(q.out[t].status == FSLAB_OUTCOME_OK, "%s: %s",
					      fslab_test_to_string((enum fslab_test)t), q.out[t].reason);
		ck_assert_uint_eq(F.setups, 4);
		assert_depth(4);
		ck_assert_uint_eq(F.foreign, 0);
		for (unsigned r = 0; r < N_REC; r++) {
			unsigned ring = F.owner[r] - 1;

			ck_assert_uint_eq(F.visits[r], 1);
			/* the rings are set up in any order: a ring's records
			 * are one quarter, whichever */
			ck_assert_uint_eq(F.owner[r], F.owner[(r / (N_REC / 4)) * (N_REC / 4)]);
			ck_assert_uint_lt(ring, 4);
		}
		ck_assert_int_eq(count_fds(), fds); /* four fds, all closed */
		/* O_DIRECT in cold mode */
		ck_assert(F.last_open_flags & O_DIRECT);
	}
}
END_TEST

/* A completion shorter than its record, or failed, fails the test with
 * the call and the offset; the rings are torn down and the fds closed. */
START_TEST(short_or_failed_completion_is_reported)
{
	struct qrun q = { .depth = 8, .jobs = 2, .cache = FSLAB_CACHE_DIRECT };
	int fds = count_fds();

	F.fault = true;
	F.fault_off = 40 * REC;
	F.fault_res = REC / 2;
	run_queued(&q, T(READ));
	ck_assert_int_eq(q.out[FSLAB_TEST_QUEUED_READ].status, FSLAB_OUTCOME_FAILED);
	ck_assert_str_eq(q.out[FSLAB_TEST_QUEUED_READ].reason,
			 "short io_uring read at offset 163840 (2048 of 4096 bytes)");
	ck_assert_uint_eq(F.teardowns, F.setups);
	for (unsigned i = 0; i < F.setups; i++)
		ck_assert_uint_eq(F.rings[i]->completed, F.rings[i]->submitted); /* drained */
	ck_assert_int_eq(count_fds(), fds);

	fake_reset();
	F.fault = true;
	F.fault_off = 3 * REC;
	F.fault_res = -ENOSPC;
	run_queued(&q, T(WRITE));
	ck_assert_int_eq(q.out[FSLAB_TEST_QUEUED_WRITE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_str_eq(q.out[FSLAB_TEST_QUEUED_WRITE].reason,
			 "io_uring write at offset 12288: No space left on device");
	ck_assert_uint_eq(F.teardowns, F.setups);
	ck_assert_int_eq(count_fds(), fds);
}
END_TEST

/* A ring that cannot be made: the test fails naming the cause and the fix;
 * threads, fds and buffers are all let go. */
START_TEST(ring_setup_refusal_says_why)
{
	struct qrun q = { .depth = 16, .jobs = 3, .cache = FSLAB_CACHE_DIRECT };
	int fds = count_fds();

	F.setup_errno = EPERM;
	run_queued(&q, T(WRITE));
	ck_assert_int_eq(q.out[FSLAB_TEST_QUEUED_WRITE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_msg(strstr(q.out[FSLAB_TEST_QUEUED_WRITE].reason,
			     "io_uring setup (depth 16): Operation not permitted (io_uring is disabled: sysctl kernel.io_uring_disabled"),
		      "%s", q.out[FSLAB_TEST_QUEUED_WRITE].reason);
	ck_assert_int_eq(count_fds(), fds);
	/* more threads than records to share */
	fake_reset();
	q.jobs = 64;
	q.depth = 1;
	{
		struct fslab_io_ops ops = fake_ops();
		struct fslab_bench_buffers b;
		struct fslab_cell cell = {
			.dir_fd = dir_fd, .name = "testfile", .file_bytes = 32 * REC, .record_bytes = REC,
			.tests = T(READ), .iodepth = 1, .jobs = 64, .sweep = &(const struct fslab_sweep_spec){ .cache = FSLAB_CACHE_DIRECT }, .ops = &ops,
		};

		ck_assert_int_eq(fslab_bench_buffers_alloc(&b, REC), 0);
		ck_assert_int_eq(fslab_cell_run(&cell, &b, q.out, &q.times), 0);
		fslab_bench_buffers_free(&b);
		ck_assert_str_eq(q.out[FSLAB_TEST_QUEUED_READ].reason,
				 "a file of 32 records cannot be split among 64 threads: give fewer --jobs or a larger file");
	}
}
END_TEST

/* A filesystem that can neither fallocate nor extend by ftruncate
 * (fusefat): the writer runs without pre-sizing; another refusal of
 * ftruncate still fails, naming it. */
START_TEST(writer_runs_where_the_file_cannot_be_pre_sized)
{
	struct fslab_io_ops ops = fake_ops();
	struct qrun q = { .depth = 4, .jobs = 2, .cache = FSLAB_CACHE_DIRECT, .ops = &ops };

	ops.fallocate = fake_no_fallocate;
	ops.ftruncate = fake_no_ftruncate;
	presize_errno[0] = EOPNOTSUPP;
	presize_errno[1] = EPERM;
	run_queued(&q, T(WRITE) | T(READ));
	ck_assert_msg(q.out[FSLAB_TEST_QUEUED_WRITE].status == FSLAB_OUTCOME_OK, "%s",
		      q.out[FSLAB_TEST_QUEUED_WRITE].reason);
	ck_assert_msg(q.out[FSLAB_TEST_QUEUED_READ].status == FSLAB_OUTCOME_OK, "%s",
		      q.out[FSLAB_TEST_QUEUED_READ].reason);
	fake_reset();
	{
		struct qrun q2 = { .depth = 4, .jobs = 1, .cache = FSLAB_CACHE_DIRECT, .ops = &ops };

		presize_errno[1] = EIO;
		run_queued(&q2, T(WRITE));
		ck_assert_int_eq(q2.out[FSLAB_TEST_QUEUED_WRITE].status, FSLAB_OUTCOME_FAILED);
		ck_assert_msg(strstr(q2.out[FSLAB_TEST_QUEUED_WRITE].reason, "(ftruncate): Input/output error"),
			      "%s", q2.out[FSLAB_TEST_QUEUED_WRITE].reason);
	}
}
END_TEST

/* A pass of a fixed length (CrystalDiskMark's) runs for that long,
 * wrapping over the region, depth in flight, with per-request latency. */
START_TEST(timed_pass_wraps_over_the_region)
{
	struct qrun q = { .depth = 4, .jobs = 2, .pass_s = 0.05, .cache = FSLAB_CACHE_DIRECT, .latency = true };
	const struct fslab_test_outcome *o = &q.out[FSLAB_TEST_QUEUED_RANDOM_READ];

	run_queued(&q, T(RANDOM_READ));
	ck_assert_msg(o->status == FSLAB_OUTCOME_OK, "%s", o->reason);
	ck_assert(o->elapsed_s >= 0.05);
	ck_assert_uint_eq(F.foreign, 0);
	for (unsigned i = 0; i < F.setups; i++)
		ck_assert_uint_gt(F.rings[i]->submitted, N_REC / 2); /* wrapped */
	assert_depth(4);
	ck_assert(o->has_latency);
	ck_assert(o->lat_us[FSLAB_LAT_MAX] >= o->lat_us[FSLAB_LAT_P50]);
}
END_TEST

/* Warm mode runs them buffered (fslab run flags the row buffered); the
 * other modes with O_DIRECT (no flag). */
START_TEST(warm_is_buffered_and_flagged)
{
	struct qrun q = { .depth = 2, .jobs = 1, .cache = FSLAB_CACHE_WARM };
	char data[600], out[600], arg[700], path[700], *csv;
	struct ft_output o;

	run_queued(&q, T(READ));
	ck_assert_int_eq(q.out[FSLAB_TEST_QUEUED_READ].status, FSLAB_OUTCOME_OK);
	ck_assert(!(F.last_open_flags & O_DIRECT));

	snprintf(data, sizeof(data), "%s/data", dir);
	ck_assert_int_eq(mkdir(data, 0755), 0);
	snprintf(arg, sizeof(arg), "a=%s", data);
	for (int k = 0; k < 2; k++) {
		snprintf(out, sizeof(out), "%s/out%d", dir, k);
		ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--tests", "queued_read",
					  "--file-sizes", "64K", "--record-sizes", "16K", "--iodepth", "2",
					  "--cache", k ? "direct" : "warm", "--trials", "1", "--stop", "fixed",
					  "--no-device-probe", "--steady-state", "off", "--quiet", NULL),
				 0);
		ck_assert_msg(o.status == 0, "run: %s", o.err);
		ft_output_free(&o);
		snprintf(path, sizeof(path), "%s/a.csv", out);
		csv = ft_read_text(path);
		if (k == 0)
			/* page-cache too where the directory's device has
			 * counters: the read came from memory */
			ck_assert_msg(strstr(csv, "a,queued_read,64,16,1,") &&
					      (strstr(csv, ",warm,ok,buffered,2,1,") ||
					       strstr(csv, ",warm,ok,page-cache;buffered,2,1,")),
				      "%s", csv);
		else
			ck_assert_msg(strstr(csv, ",direct,ok,,2,1,") || strstr(csv, "refuses O_DIRECT"), "%s", csv);
		free(csv);
	}
}
END_TEST

/* The page-cache flag: an O_DIRECT queued row above the probe is not
 * flagged (requests in flight together pass a one-at-a-time bound on the
 * device itself); a buffered one is, as IOzone's tests are. */
START_TEST(page_cache_flag_spares_direct_queued_rows)
{
	static struct fslab_bench_fs fs; /* large: not on the stack */
	const struct fslab_test_outcome fast = { .throughput_kib_s = 1e6 };
	char flag[128];

	memset(&fs, 0, sizeof(fs));
	snprintf(fs.rec.type, sizeof(fs.rec.type), "ext4");
	fs.probe.read_kib_s = fs.probe.write_kib_s = 1000;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_QUEUED_READ, &fast, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	run_flag(&fs, FSLAB_CACHE_DIRECT, FSLAB_TEST_QUEUED_RANDOM_WRITE, &fast, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	run_flag(&fs, FSLAB_CACHE_WARM, FSLAB_TEST_QUEUED_READ, &fast, flag, sizeof(flag));
	ck_assert_str_eq(flag, "page-cache;buffered");
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_READ, &fast, flag, sizeof(flag));
	ck_assert_str_eq(flag, "page-cache");
}
END_TEST

/* With the device's counters the page-cache flag is a fact: a read whose
 * device read under 90% of what it returned, a write whose bytes had not
 * reached the device by its timer's stop; the probe's bound then says
 * beyond-device.  A pass that moves no data, and a queued O_DIRECT one,
 * are not judged by their bytes. */
START_TEST(page_cache_flag_from_device_bytes)
{
	static struct fslab_bench_fs fs;
	const uint64_t mib64 = 64ull << 20;
	struct fslab_test_outcome o = { .throughput_kib_s = 500, .io_bytes = mib64, .has_dev = true };
	char flag[128];

	memset(&fs, 0, sizeof(fs));
	snprintf(fs.rec.type, sizeof(fs.rec.type), "ext4");
	fs.probe.read_kib_s = fs.probe.write_kib_s = 1000;
	/* a read from the device, at the device's pace: no flag */
	o.dev_read_bytes = mib64;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_READ, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	/* 89% of it from the device: the cache served the rest */
	o.dev_read_bytes = mib64 / 100 * 89;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_READ, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "page-cache");
	/* all from the device but faster than its probe: beyond-device */
	o.dev_read_bytes = mib64;
	o.throughput_kib_s = 1e6;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_READ, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "beyond-device");
	/* a write: written in the window, but half of it after the timer */
	o.throughput_kib_s = 500;
	o.dev_write_bytes = mib64;
	o.dev_write_timed_bytes = mib64 / 2;
	run_flag(&fs, FSLAB_CACHE_WARM, FSLAB_TEST_WRITE, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "page-cache");
	o.dev_write_timed_bytes = mib64;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_WRITE, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	/* stat moves no file data; a queued O_DIRECT read bypasses the cache */
	o.io_bytes = 0;
	o.dev_read_bytes = 0;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_FILES_STAT, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	o.io_bytes = mib64;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_QUEUED_READ, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "");
	/* without counters, the probe's rule as before */
	o.has_dev = false;
	o.throughput_kib_s = 1e6;
	run_flag(&fs, FSLAB_CACHE_COLD, FSLAB_TEST_READ, &o, flag, sizeof(flag));
	ck_assert_str_eq(flag, "page-cache");
}
END_TEST

/* fslab run --dry-run says the grid's queued tests run at --iodepth and
 * --jobs; without a queued test those flags are refused, naming the fix. */
START_TEST(dry_run_names_depth_and_threads)
{
	char arg[600];
	struct ft_output o;

	snprintf(arg, sizeof(arg), "a=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--tests", "queued", "--iodepth", "4", "--jobs", "2",
				  "--file-sizes", "1M", "--record-sizes", "4K", "--no-device-probe", "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "dry run: %s", o.err);
	ck_assert_msg(strstr(o.out, "queued tests: io_uring, 4 in flight per thread, 2 threads (--iodepth, --jobs), O_DIRECT"),
		      "%s", o.out);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--tests", "write", "--jobs", "2", "--dry-run", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "--jobs ([sweep] jobs) sets the queued tests' threads; --tests write names none of them: add queued"),
		      "%s", o.err);
	ft_output_free(&o);
}
END_TEST

/* The real ring (liburing): a write and a read at depth 4 on 2 threads,
 * buffered so that any filesystem takes it. */
START_TEST(real_ring_moves_the_file)
{
	struct qrun q = { .depth = 4, .jobs = 2, .cache = FSLAB_CACHE_WARM, .ops = &fslab_io_posix };
	const char *why;

	run_queued(&q, T(WRITE) | T(READ));
	why = q.out[FSLAB_TEST_QUEUED_WRITE].reason;
	if (strstr(why, "io_uring setup") && (strstr(why, "not permitted") || strstr(why, "not implemented"))) {
		fprintf(stderr, "note: no io_uring here (%s): the real ring is not checked\n", why);
		return;
	}
	ck_assert_msg(q.out[FSLAB_TEST_QUEUED_WRITE].status == FSLAB_OUTCOME_OK, "write: %s", why);
	ck_assert_msg(q.out[FSLAB_TEST_QUEUED_READ].status == FSLAB_OUTCOME_OK, "read: %s",
		      q.out[FSLAB_TEST_QUEUED_READ].reason);
	ck_assert(q.out[FSLAB_TEST_QUEUED_READ].ops_s > 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_queued");
	TCase *tc = ft_tcase(s, "queued", 0);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, depth_reached_never_exceeded);
	tcase_add_test(tc, jobs_get_disjoint_regions);
	tcase_add_test(tc, short_or_failed_completion_is_reported);
	tcase_add_test(tc, ring_setup_refusal_says_why);
	tcase_add_test(tc, timed_pass_wraps_over_the_region);
	tcase_add_test(tc, warm_is_buffered_and_flagged);
	tcase_add_test(tc, page_cache_flag_spares_direct_queued_rows);
	tcase_add_test(tc, page_cache_flag_from_device_bytes);
	tcase_add_test(tc, dry_run_names_depth_and_threads);
	tcase_add_test(tc, real_ring_moves_the_file);
	tcase_add_test(tc, writer_runs_where_the_file_cannot_be_pre_sized);
	return ft_suite_run(s, argc, argv);
}
