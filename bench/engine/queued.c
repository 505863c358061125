/* The queued tests (queued_write, queued_read, queued_random_write,
 * queued_random_read): io_uring at a queue depth and a number of threads,
 * as fio's io_uring engine and CrystalDiskMark measure (docs/tests.md).
 *
 * One pass: the file split into one region per thread (--jobs; the last
 * records that do not fill a region are left out), one fd and one ring per
 * thread, each with depth registered buffers of one record.  A thread
 * submits depth requests at once, then after each batch of completions as
 * many as completed, so exactly depth are in flight (never more) until
 * its region is done (one sweep of it: sequential, or IOzone's shuffle of
 * the region's records) or, for a pass of a fixed length (the cell's
 * pass_s, CrystalDiskMark's 5 s), until the time is up, wrapping over its
 * region.  The timed region is from the moment every thread is set up
 * (fd, ring, buffers) until the last completion of the last thread, plus
 * a writer's fsync in fsync and cold mode.  O_DIRECT, except in warm mode
 * (buffered; run_sweep.c flags the rows). */
#include "engine_int.h"

#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* All the buffers of a pass: depth x threads x record. */
#define QUEUED_BUF_MAX (1024ull * 1024 * 1024)

struct q_pass;

/* One thread's share: its fd, ring, buffers and region, and what it did. */
struct q_job {
	struct q_pass *q;
	unsigned index;
	int fd;
	void *ring;
	void **bufs;                  /* depth records, one per request in flight */
	uint64_t first;               /* the region: records first .. first + n - 1 */
	uint64_t next;                /* requests submitted so far */
	uint64_t done_ops, done_bytes;
	unsigned inflight, max_inflight;
	unsigned *free_slot, n_free;  /* buffers not in flight */
	off_t *slot_off;              /* the offset of each slot's request */
	uint64_t *slot_tick;          /* --latency: when it was submitted */
	struct fslab_ring_req *reqs;
	struct fslab_ring_done *dones;
	struct fslab_lat_hist lat;
	int err;                      /* 0, or -errno with why */
	char why[200];
};

struct q_pass {
	struct fslab_bench_pass *p;
	const struct fslab_io_ops *ops;
	bool writes, random, timed, latency;
	unsigned depth, jobs;
	uint64_t region;              /* records per thread */
	uint64_t deadline_ns;         /* a pass of a fixed length ends then */
	const uint32_t *order;        /* random: the region's shuffle */
	atomic_bool stop;             /* a thread failed: the others stop too */
	/* the start: each thread set up counts in n_ready; the caller opens
	 * the gate once all are (abort: a set-up failed, no pass) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n_ready;
	bool gate_open, abort;
	struct q_job *job;
};

static int job_fail(struct q_job *j, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int job_fail(struct q_job *j, int err, const char *fmt, ...)
{
	va_list ap;

	if (j->err)
		return j->err;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	if (err)
		fslab_catf(j->why, sizeof(j->why), ": %s", strerror(err));
	j->err = err ? -err : -EIO;
	atomic_store(&j->q->stop, true);
	return j->err;
}

/* What a failed ring_setup means, and the fix. */
static const char *ring_setup_hint(int e)
{
	switch (e) {
	case ENOSYS:
		return " (this kernel has no io_uring: CONFIG_IO_URING; the IOzone tests run without it)";
	case EPERM:
		return " (io_uring is disabled: sysctl kernel.io_uring_disabled; set it to 0, or run as root)";
	case ENOMEM:
		return " (the locked-memory limit: ulimit -l, or a lower --iodepth)";
	default:
		return "";
	}
}

/* Untimed, in the thread: buffers (the engine's record pattern), the
 * ring with them registered, the bookkeeping of the slots. */
static int job_setup(struct q_job *j)
{
	struct q_pass *q = j->q;
	const size_t rec = q->p->rec;
	const unsigned d = q->depth;

	j->bufs = calloc(d, sizeof(*j->bufs));
	j->free_slot = calloc(d, sizeof(*j->free_slot));
	j->slot_off = calloc(d, sizeof(*j->slot_off));
	j->slot_tick = calloc(d, sizeof(*j->slot_tick));
	j->reqs = calloc(d, sizeof(*j->reqs));
	j->dones = calloc(d, sizeof(*j->dones));
	if (!j->bufs || !j->free_slot || !j->slot_off || !j->slot_tick || !j->reqs || !j->dones)
		return job_fail(j, ENOMEM, "thread %u: queue of %u requests", j->index, d);
	for (unsigned i = 0; i < d; i++) {
		if (posix_memalign(&j->bufs[i], 4096, rec) != 0) {
			j->bufs[i] = NULL;
			return job_fail(j, ENOMEM, "thread %u: %u buffers of %zu bytes", j->index, d, rec);
		}
		memcpy(j->bufs[i], q->p->buf->io, rec);
		j->free_slot[i] = d - 1 - i;
	}
	j->n_free = d;
	if (q->ops->ring_setup(q->ops->ctx, d, j->bufs, d, rec, &j->ring) < 0) {
		int e = errno ? errno : EIO;

		j->ring = NULL;
		job_fail(j, e, "io_uring setup (depth %u)", d);
		fslab_catf(j->why, sizeof(j->why), "%s", ring_setup_hint(e));
		return j->err;
	}
	return 0;
}

static void job_free(struct q_job *j)
{
	if (j->ring)
		j->q->ops->ring_teardown(j->q->ops->ctx, j->ring);
	for (unsigned i = 0; j->bufs && i < j->q->depth; i++)
		free(j->bufs[i]);
	free(j->bufs);
	free(j->free_slot);
	free(j->slot_off);
	free(j->slot_tick);
	free(j->reqs);
	free(j->dones);
}

/* The offset of the job's request number k: its region in order or in
 * the shuffle, wrapping for a pass of a fixed length. */
static inline off_t job_offset(const struct q_job *j, uint64_t k)
{
	const struct q_pass *q = j->q;
	uint64_t r = k % q->region;

	if (q->random)
		r = q->order[r];
	return (off_t)((j->first + r) * q->p->rec);
}

/* May the job submit more?  A sweep: until its region is done; a pass of
 * a fixed length: until the deadline; never after a failure. */
static inline bool job_more(const struct q_job *j, uint64_t now_ns)
{
	const struct q_pass *q = j->q;

	if (j->err || atomic_load_explicit(&q->stop, memory_order_relaxed) || PASS_STOP(q->p))
		return false;
	return q->timed ? now_ns < q->deadline_ns : j->next < q->region;
}

/* Fills the queue back to depth and submits the new requests in one
 * call.  0 or the job's failure. */
static int job_refill(struct q_job *j, uint64_t now_ns)
{
	struct q_pass *q = j->q;
	const size_t rec = q->p->rec;
	unsigned n = 0;
	int r;

	if (!job_more(j, now_ns))
		return 0;
	while (j->inflight + n < q->depth && (q->timed || j->next < q->region)) {
		unsigned slot = j->free_slot[--j->n_free];
		off_t off = job_offset(j, j->next++);

		j->slot_off[slot] = off;
		j->reqs[n++] = (struct fslab_ring_req){
			.fd = j->fd, .write = q->writes, .buf_index = slot, .buf = j->bufs[slot],
			.len = rec, .off = off, .tag = slot,
		};
	}
	if (!n)
		return 0;
	if (q->latency) {
		uint64_t tk = fslab_lat_clock();

		for (unsigned i = 0; i < n; i++)
			j->slot_tick[j->reqs[i].tag] = tk;
	}
	r = q->ops->ring_submit(q->ops->ctx, j->ring, j->reqs, n);
	if (r < 0)
		return job_fail(j, errno ? errno : EIO, "io_uring submit of %u %s at offset %llu", n,
				q->writes ? "writes" : "reads", (unsigned long long)j->reqs[0].off);
	if ((unsigned)r != n)
		return job_fail(j, 0, "io_uring took %d of %u %s at offset %llu", r, n,
				q->writes ? "writes" : "reads", (unsigned long long)j->reqs[0].off);
	j->inflight += n;
	if (j->inflight > j->max_inflight)
		j->max_inflight = j->inflight;
	return 0;
}

/* One completion: its bytes, its latency, its slot free again; a short
 * or failed request fails the job (the rest in flight are still reaped). */
static void job_complete(struct q_job *j, const struct fslab_ring_done *d, uint64_t tick)
{
	struct q_pass *q = j->q;
	const size_t rec = q->p->rec;
	unsigned slot = (unsigned)d->tag;

	if (d->tag >= q->depth) {
		/* not ours: count it as one in flight less all the same, so
		 * the loop cannot wait for a completion that never comes */
		j->inflight -= j->inflight > 0;
		job_fail(j, 0, "io_uring completion with unknown tag %llu", (unsigned long long)d->tag);
		return;
	}
	j->inflight--;
	j->free_slot[j->n_free++] = slot;
	if (d->res < 0)
		job_fail(j, -d->res, "io_uring %s at offset %llu", q->writes ? "write" : "read",
			 (unsigned long long)j->slot_off[slot]);
	else if ((size_t)d->res != rec)
		job_fail(j, 0, "short io_uring %s at offset %llu (%d of %zu bytes)",
			 q->writes ? "write" : "read", (unsigned long long)j->slot_off[slot], d->res, rec);
	if (d->res <= 0)
		return;
	j->done_ops += (size_t)d->res == rec;
	j->done_bytes += (uint64_t)d->res;
	if (q->latency)
		fslab_lat_add(&j->lat, tick - j->slot_tick[slot]);
}

/* The timed loop of one thread: depth in flight, a batch of completions
 * reaped at a time, refilled after each batch; after a failure or the
 * deadline, what is in flight is reaped before the ring goes. */
static void job_loop(struct q_job *j)
{
	struct q_pass *q = j->q;

	job_refill(j, q->timed ? fslab_now_ns() : 0);
	while (j->inflight) {
		int k = q->ops->ring_reap(q->ops->ctx, j->ring, j->dones, q->depth, 1);
		uint64_t tick = q->latency ? fslab_lat_clock() : 0;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			job_fail(j, errno ? errno : EIO, "io_uring wait for completions");
			return;
		}
		for (int i = 0; i < k; i++)
			job_complete(j, &j->dones[i], tick);
		job_refill(j, q->timed ? fslab_now_ns() : 0);
	}
}

/* A thread of its own (jobs 1..): set up, wait for all, run. */
static void *job_thread(void *arg)
{
	struct q_job *j = arg;
	struct q_pass *q = j->q;
	bool run;

	job_setup(j);
	pthread_mutex_lock(&q->mu);
	q->n_ready++;
	pthread_cond_broadcast(&q->cv);
	while (!q->gate_open)
		pthread_cond_wait(&q->cv, &q->mu);
	run = !q->abort;
	pthread_mutex_unlock(&q->mu);
	if (run)
		job_loop(j);
	return NULL;
}

/* Untimed before the threads: every thread's fd (the first creates the
 * file in a writer's first pass, pre-sized: fallocate, else ftruncate,
 * because ext4 serialises O_DIRECT writes that extend a file; where the
 * filesystem refuses both, as fusefat does, the writes extend it), and
 * the region split.  0 or the pass's failure. */
static int queued_open(struct q_pass *q)
{
	struct fslab_bench_pass *p = q->p;
	const struct fslab_io_ops *ops = q->ops;
	const bool creates = p->test->flags & FSLAB_BT_CREATES;
	double t = fslab_now();

	for (unsigned i = 0; i < q->jobs; i++) {
		int flags = q->writes ? O_WRONLY : O_RDONLY;

		if (creates && i == 0)
			flags |= O_CREAT;
		q->job[i].fd = fslab_pass_open(p, flags);
		if (q->job[i].fd < 0)
			return q->job[i].fd;
	}
	p->untimed += fslab_now() - t;
	if (!creates)
		return 0;
	t = fslab_now();
	if (ops->fallocate(ops->ctx, q->job[0].fd, (off_t)p->cell->file_bytes) < 0) {
		int e = errno;

		if (e != EOPNOTSUPP && e != ENOSYS)
			return fslab_pass_fail(p, e, "pre-sizing %s to %llu bytes (fallocate)", p->cell->name,
					       (unsigned long long)p->cell->file_bytes);
		/* fusefat: no fallocate, and no ftruncate that extends (EPERM) */
		if (ops->ftruncate(ops->ctx, q->job[0].fd, (off_t)p->cell->file_bytes) < 0 &&
		    errno != EPERM && errno != EOPNOTSUPP)
			return fslab_pass_fail(p, errno, "pre-sizing %s to %llu bytes (ftruncate)",
					       p->cell->name, (unsigned long long)p->cell->file_bytes);
	}
	if (ops->fsync(ops->ctx, q->job[0].fd) < 0)
		return fslab_pass_fail(p, errno, "fsync %s after pre-sizing it", p->cell->name);
	p->untimed += fslab_now() - t;
	return 0;
}

/* Untimed after the pass: a writer's fsync (unless the timer had it) and
 * every fd closed.  r: the pass's result so far, kept if a failure. */
static int queued_close(struct q_pass *q, int r)
{
	struct fslab_bench_pass *p = q->p;
	const struct fslab_io_ops *ops = q->ops;
	double t = fslab_now();

	if (r == 0 && q->writes && !p->synced && ops->fsync(ops->ctx, q->job[0].fd) < 0)
		r = fslab_pass_fail(p, errno, "fsync %s", p->cell->name);
	for (unsigned i = 0; i < q->jobs; i++) {
		if (q->job[i].fd >= 0 && ops->close(ops->ctx, q->job[i].fd) < 0 && r == 0)
			r = fslab_pass_fail(p, errno, "close %s", p->cell->name);
		q->job[i].fd = -1;
	}
	p->untimed += fslab_now() - t;
	return r;
}

/* What the threads did, into the pass: bytes, requests, latency, the
 * first failure, whether a writer covered the file. */
static int queued_collect(struct q_pass *q)
{
	struct fslab_bench_pass *p = q->p;
	bool covered = q->writes && q->region * q->jobs == p->n;

	for (unsigned i = 0; i < q->jobs; i++) {
		struct q_job *j = &q->job[i];

		p->moved_bytes += j->done_bytes;
		p->moved_ops += j->done_ops;
		covered = covered && j->done_ops >= q->region;
		if (p->lat) {
			for (unsigned b = 0; b < FSLAB_LAT_BUCKETS; b++)
				p->lat->bucket[b] += j->lat.bucket[b];
			p->lat->count += j->lat.count;
			if (j->lat.max_ns > p->lat->max_ns)
				p->lat->max_ns = j->lat.max_ns;
		}
	}
	p->covered = covered;
	for (unsigned i = 0; i < q->jobs; i++)
		if (q->job[i].err) {
			snprintf(p->why, p->whylen, "%s", q->job[i].why);
			return q->job[i].err;
		}
	return 0;
}

/* The checks before anything is opened: a ring to use, records for every
 * thread, buffers within QUEUED_BUF_MAX. */
static int queued_check(struct q_pass *q)
{
	struct fslab_bench_pass *p = q->p;
	const struct fslab_io_ops *ops = q->ops;
	uint64_t bufs = (uint64_t)q->depth * q->jobs * p->rec;

	if (!ops->ring_setup || !ops->ring_submit || !ops->ring_reap || !ops->ring_teardown ||
	    !ops->fallocate || !ops->ftruncate)
		return fslab_pass_fail(p, 0, "internal: I/O ops '%s' have no io_uring ring (rebuild them against bench/engine/engine.h)",
				       ops->name ? ops->name : "?");
	if (q->region == 0)
		return fslab_pass_fail(p, 0, "a file of %llu records cannot be split among %u threads: give fewer --jobs or a larger file",
				       (unsigned long long)p->n, q->jobs);
	if (bufs > QUEUED_BUF_MAX)
		return fslab_pass_fail(p, 0, "depth %u x %u threads x %zu-byte records needs %llu MiB of buffers, more than %llu MiB: give a lower --iodepth or --jobs",
				       q->depth, q->jobs, p->rec, (unsigned long long)(bufs >> 20),
				       (unsigned long long)(QUEUED_BUF_MAX >> 20));
	return 0;
}

/* Starts jobs 1.. as threads (job 0 is the caller's) and sets job 0 up;
 * returns once every thread started is set up, with the gate still shut.
 * 0, or -1 when a thread could not start or be set up (its why says).
 * *started: the threads to join. */
static int queued_start(struct q_pass *q, pthread_t *tid, unsigned *started)
{
	int r = 0, e;

	for (unsigned i = 1; i < q->jobs; i++) {
		e = pthread_create(&tid[i], NULL, job_thread, &q->job[i]);
		if (e) {
			job_fail(&q->job[i], e, "starting thread %u of %u", i + 1, q->jobs);
			break;
		}
		(*started)++;
	}
	job_setup(&q->job[0]);
	pthread_mutex_lock(&q->mu);
	while (q->n_ready < *started)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	for (unsigned i = 0; i < q->jobs; i++)
		if (q->job[i].err)
			r = -1;
	return r;
}

/* Opens the gate: the threads run (or, with abort, end). */
static void queued_gate(struct q_pass *q, bool abort)
{
	pthread_mutex_lock(&q->mu);
	q->abort = abort;
	q->gate_open = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

int fslab_queued_run(struct fslab_bench_pass *p)
{
	const struct fslab_cell *c = p->cell;
	const enum fslab_test t = p->test->id;
	struct q_pass q = {
		.p = p,
		.ops = c->ops,
		.writes = p->test->flags & FSLAB_BT_WRITES,
		.random = t == FSLAB_TEST_QUEUED_RANDOM_WRITE || t == FSLAB_TEST_QUEUED_RANDOM_READ,
		.timed = c->pass_s > 0,
		.latency = p->lat != NULL,
		.depth = c->iodepth ? c->iodepth : 1,
		.jobs = c->jobs ? c->jobs : 1,
		.mu = PTHREAD_MUTEX_INITIALIZER,
		.cv = PTHREAD_COND_INITIALIZER,
	};
	pthread_t *tid = NULL;
	unsigned started = 0;
	double t0 = 0;
	int r, sr = 0;

	q.region = p->n / q.jobs;
	r = queued_check(&q);
	if (r < 0)
		return r;
	if (q.random && (r = fslab_pass_shuffle(p, q.region)) < 0)
		return r;
	q.order = p->buf->order;
	q.job = calloc(q.jobs, sizeof(*q.job));
	tid = calloc(q.jobs, sizeof(*tid));
	if (!q.job || !tid) {
		free(q.job);
		free(tid);
		return fslab_pass_fail(p, ENOMEM, "%u threads", q.jobs);
	}
	for (unsigned i = 0; i < q.jobs; i++)
		q.job[i] = (struct q_job){ .q = &q, .index = i, .fd = -1, .first = i * q.region };
	r = queued_open(&q);
	if (r == 0 && queued_start(&q, tid, &started) < 0) {
		queued_gate(&q, true);
		r = queued_collect(&q);
	} else if (r == 0) {
		t0 = fslab_pass_timer_start(p);
		fslab_lat_begin(p);
		q.deadline_ns = fslab_now_ns() + (uint64_t)(c->pass_s * 1e9);
		queued_gate(&q, false);
		job_loop(&q.job[0]);
		for (unsigned i = 1; i <= started; i++)
			pthread_join(tid[i], NULL);
		started = 0;
		fslab_lat_end(p);
		/* fsync and cold mode: a writer is timed until its data is
		 * on the device (one fsync: every thread's fd is the file) */
		if (q.writes && (c->sweep->cache == FSLAB_CACHE_FSYNC || c->sweep->cache == FSLAB_CACHE_COLD) &&
		    !atomic_load(&q.stop)) {
			sr = c->ops->fsync(c->ops->ctx, q.job[0].fd) < 0 ? (errno ? errno : EIO) : 0;
			p->synced = true;
		}
		p->elapsed = fslab_pass_timer_stop(p) - t0;
		r = queued_collect(&q);
		if (r == 0 && sr)
			r = fslab_pass_fail(p, sr, "fsync %s", c->name);
	}
	for (unsigned i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < q.jobs; i++)
		job_free(&q.job[i]);
	pthread_mutex_destroy(&q.mu);
	pthread_cond_destroy(&q.cv);
	r = queued_close(&q, r);
	free(q.job);
	free(tid);
	return r;
}
