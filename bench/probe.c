/* What the device can do: a sequential write then read of a scratch file
 * with 1 MiB records, O_DIRECT where the filesystem allows it, else
 * buffered with fsync inside the timer (write) and the file's pages dropped
 * before the read.  Where O_DIRECT works, the write and the read are also
 * made the way the tests make them (buffered, fsync inside the timer;
 * buffered after a drop) and the faster of the two is the device's.
 * Figures above page_cache_factor x these are cache.
 *
 * Every call on the probe file goes through the engine's I/O layer (the
 * ops struct of bench/engine/engine.h), and its pages leave the cache by the
 * filesystem's cold-mode policy (fslab_cache_drop, bench/engine/cache.c): the
 * probe has no I/O or cache code of its own. */
#include "run_int.h"
#include "clock.h"
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

/* One probe's working set. */
struct probe_ctx {
	const struct fslab_io_ops *io;
	int *dfd; /* the private directory (a remount may replace it) */
	const char *dir;
	struct fslab_cache_ctl *cache;
	void *buf;
	uint64_t n; /* records */
};

/* Creates the probe file in the private directory: O_EXCL, no symlink
 * followed (the ops add O_NOFOLLOW).  An open that refused O_DIRECT may
 * have created the file already; in fslab's own directory that leftover is
 * removed and the open repeated. */
static int probe_create(const struct probe_ctx *p, bool *direct)
{
	int fd = p->io->open(p->io->ctx, *p->dfd, PROBEFILE_NAME, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT,
			     0600);

	if (fd >= 0 || errno != EINVAL)
		return fd;
	*direct = false;
	if (p->io->unlink(p->io->ctx, *p->dfd, PROBEFILE_NAME) < 0 && errno != ENOENT)
		return -1;
	return p->io->open(p->io->ctx, *p->dfd, PROBEFILE_NAME, O_WRONLY | O_CREAT | O_EXCL, 0600);
}

/* The probe file's size: bytes (or the default), at most a quarter of
 * the free space, in whole records.  0 when too little is free.  statvfs
 * can be empty (some FUSE filesystems report no blocks): then the size is
 * not limited here, and a full disk shows as a failed probe. */
static uint64_t probe_size(int dfd, uint64_t bytes)
{
	struct statvfs vfs;

	if (bytes == 0)
		bytes = FSLAB_PROBE_DEFAULT_BYTES;
	if (fstatvfs(dfd, &vfs) == 0 && vfs.f_blocks > 0) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;

		if (bytes > avail / 4)
			bytes = avail / 4;
	}
	bytes = bytes / FSLAB_PROBE_RECORD * FSLAB_PROBE_RECORD;
	return bytes < 4 * FSLAB_PROBE_RECORD ? 0 : bytes;
}

static void probe_timer(const struct fslab_io_ops *io, bool start)
{
	if (io->timer)
		io->timer(io->ctx, start);
}

/* One timed pass over the file: n records written (then fsync'ed, so a
 * buffered write is timed until it is on the device) or read.  0 with the
 * rate in *kib_s, or -errno (-EIO for a short transfer). */
static int probe_pass(const struct probe_ctx *p, int fd, bool write_pass, double *kib_s)
{
	const struct fslab_io_ops *io = p->io;
	double t0, t1;
	int e = 0;

	probe_timer(io, true);
	t0 = fslab_now();
	for (uint64_t i = 0; i < p->n && !e; i++) {
		ssize_t got = write_pass ? io->write(io->ctx, fd, p->buf, FSLAB_PROBE_RECORD)
					 : io->read(io->ctx, fd, p->buf, FSLAB_PROBE_RECORD);

		if (got != FSLAB_PROBE_RECORD)
			e = got < 0 ? -errno : -EIO;
	}
	if (!e && write_pass && io->fsync(io->ctx, fd) < 0)
		e = -errno;
	t1 = fslab_now();
	probe_timer(io, false);
	if (!e)
		*kib_s = (double)(p->n * FSLAB_PROBE_RECORD) / 1024.0 / (t1 - t0);
	return e;
}

/* A timed write pass over fd (probe_pass), then fd closed: the pass's
 * error, else the close's.  0 or -errno. */
static int probe_write_close(const struct probe_ctx *p, int fd, double *kib_s)
{
	int e = probe_pass(p, fd, true, kib_s);

	if (p->io->close(p->io->ctx, fd) < 0 && !e)
		e = -errno;
	return e;
}

/* A probe's I/O failed (e: -errno): said in the note; returns e. */
static int probe_io_failed(struct fslab_probe_result *r, const char *dir, int e)
{
	snprintf(r->note, sizeof(r->note), "probe I/O in %.150s failed: %s", dir, strerror(-e));
	return e;
}

/* Opens the probe file for the read pass. */
static int probe_open_read(const struct probe_ctx *p, bool direct)
{
	return p->io->open(p->io->ctx, *p->dfd, PROBEFILE_NAME, O_RDONLY | (direct ? O_DIRECT : 0), 0);
}

/* The write half: creates the file (O_DIRECT where the filesystem takes
 * it) and times writing it.  An open that accepts O_DIRECT whose writes
 * refuse it (EINVAL on the first) is redone buffered.  0 or -errno. */
static int probe_write(const struct probe_ctx *p, bool *direct, struct fslab_probe_result *r)
{
	const struct fslab_io_ops *io = p->io;
	int fd = probe_create(p, direct), e;

	if (fd < 0) {
		e = -errno;
		snprintf(r->note, sizeof(r->note), "cannot create the probe file in %.150s: %s", p->dir,
			 strerror(-e));
		return e;
	}
	e = probe_write_close(p, fd, &r->write_kib_s);
	if (e == -EINVAL && *direct) {
		*direct = false;
		fd = io->open(io->ctx, *p->dfd, PROBEFILE_NAME, O_WRONLY | O_TRUNC, 0);
		if (fd < 0)
			return probe_io_failed(r, p->dir, -errno);
		e = probe_write_close(p, fd, &r->write_kib_s);
	}
	return e < 0 ? probe_io_failed(r, p->dir, e) : 0;
}

/* The writers of a cold or fsync run write buffered and are timed with
 * their fsync, which writeback answers with large requests, several in
 * flight: that can beat synchronous 1 MiB O_DIRECT writes as readahead
 * beats them on reads, and the device can do the faster of the two.  So
 * the file is made again, buffered (allocating, as a test's new file is),
 * and timed with its fsync; the read pass reads this one.  0 or -errno. */
static int probe_write_behind(const struct probe_ctx *p, struct fslab_probe_result *r)
{
	const struct fslab_io_ops *io = p->io;
	double wb;
	int fd, e;

	if (io->unlink(io->ctx, *p->dfd, PROBEFILE_NAME) < 0)
		return probe_io_failed(r, p->dir, -errno);
	fd = io->open(io->ctx, *p->dfd, PROBEFILE_NAME, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return probe_io_failed(r, p->dir, -errno);
	e = probe_write_close(p, fd, &wb);
	if (e < 0)
		return probe_io_failed(r, p->dir, e);
	if (wb > r->write_kib_s) {
		r->write_kib_s = wb;
		snprintf(r->write_how, sizeof(r->write_how),
			 "write figure from buffered writes with fsync (writeback beat O_DIRECT)");
	}
	return 0;
}

/* Buffered reads after a cache drop get the kernel's readahead (larger,
 * overlapping requests) and can beat synchronous 1 MiB O_DIRECT reads; the
 * device can do the faster of the two.  Only after a drop the policy
 * vouches for: reads from cached pages would be no device figure. */
static void probe_read_ahead(const struct probe_ctx *p, struct fslab_probe_result *r)
{
	double ra;
	int fd;

	/* the file's pages dropped by the filesystem's cold-mode policy */
	if (fslab_cache_drop(p->cache, p->dfd, PROBEFILE_NAME, NULL) < 0 || !fslab_cache_drop_sure(p->cache))
		return;
	fd = probe_open_read(p, false);
	if (fd < 0)
		return;
	if (probe_pass(p, fd, false, &ra) == 0 && ra > r->read_kib_s) {
		r->read_kib_s = ra;
		snprintf(r->read_how, sizeof(r->read_how), "read figure from buffered reads after %s (readahead beat O_DIRECT)",
			 fslab_drop_method_name(p->cache->method));
	}
	p->io->close(p->io->ctx, fd);
}

/* The read half: O_DIRECT, or buffered after the file's pages are
 * dropped.  0 or -errno. */
static int probe_read(const struct probe_ctx *p, bool direct, struct fslab_probe_result *r)
{
	struct fslab_err err = FSLAB_ERR_INIT;
	int fd, e;

	if (!direct) {
		int d = fslab_cache_drop(p->cache, p->dfd, PROBEFILE_NAME, &err);

		snprintf(r->read_how, sizeof(r->read_how),
			 "the filesystem refuses O_DIRECT: write timed with fsync, read after %s%.120s",
			 d < 0 ? "a failed cache drop: " : fslab_drop_method_name(p->cache->method),
			 d < 0 ? err.msg : fslab_cache_drop_sure(p->cache) ? "" : ", which may leave pages cached");
	}
	fd = probe_open_read(p, direct);
	if (fd < 0)
		return probe_io_failed(r, p->dir, -errno);
	e = probe_pass(p, fd, false, &r->read_kib_s);
	p->io->close(p->io->ctx, fd);
	if (e < 0)
		return probe_io_failed(r, p->dir, e);
	if (direct)
		probe_read_ahead(p, r);
	return 0;
}

/* One probe: write then read the scratch file once. */
static int probe_once(struct probe_ctx *p, uint64_t bytes, struct fslab_probe_result *r)
{
	bool direct = true;
	int ret;

	memset(r, 0, sizeof(*r));
	r->bytes = probe_size(*p->dfd, bytes);
	if (!r->bytes) {
		snprintf(r->method, sizeof(r->method), "failed");
		snprintf(r->note, sizeof(r->note), "too little free space in %s for a probe file", p->dir);
		return -ENOSPC;
	}
	p->n = r->bytes / FSLAB_PROBE_RECORD;
	ret = probe_write(p, &direct, r);
	if (ret == 0 && direct)
		ret = probe_write_behind(p, r);
	if (ret == 0)
		ret = probe_read(p, direct, r);
	snprintf(r->method, sizeof(r->method), direct ? "o_direct" : "buffered+fsync");
	if (ret < 0) {
		snprintf(r->method, sizeof(r->method), "failed");
		r->write_kib_s = r->read_kib_s = 0;
		r->write_how[0] = r->read_how[0] = '\0';
	}
	p->io->unlink(p->io->ctx, *p->dfd, PROBEFILE_NAME);
	return ret;
}

/* Folds probe k (one) into r: the fastest write and the fastest read are
 * the device's upper bound (a probe can only be slowed by noise, never
 * sped up, so the fastest is the least disturbed), each with the word on
 * how it was made. */
void fslab_probe_fold(struct fslab_probe_result *r, const struct fslab_probe_result *one, unsigned k)
{
	if (k == 0) {
		snprintf(r->method, sizeof(r->method), "%s", one->method);
		snprintf(r->note, sizeof(r->note), "%s", one->note);
		r->bytes = one->bytes;
	}
	r->write_runs_kib_s[k] = one->write_kib_s;
	r->read_runs_kib_s[k] = one->read_kib_s;
	r->runs = k + 1;
	/* an earlier probe's "beat O_DIRECT" is not true of a faster one */
	if (one->write_kib_s > r->write_kib_s) {
		r->write_kib_s = one->write_kib_s;
		snprintf(r->write_how, sizeof(r->write_how), "%s", one->write_how);
	}
	if (one->read_kib_s > r->read_kib_s) {
		r->read_kib_s = one->read_kib_s;
		snprintf(r->read_how, sizeof(r->read_how), "%s", one->read_how);
	}
}

/* FSLAB_PROBE_RUNS probes; every probe is kept for the manifest.  A
 * failure after the first probe keeps the probes done. */
int fslab_device_probe(const struct fslab_io_ops *io, int *dfd, const char *dir,
		       struct fslab_cache_ctl *cache, uint64_t bytes, struct fslab_probe_result *r)
{
	struct fslab_cache_ctl own;
	struct fslab_probe_result one;
	struct probe_ctx p = { .io = io, .dfd = dfd, .dir = dir, .cache = cache };
	int e = 0;

	memset(r, 0, sizeof(*r));
	if (io->version != FSLAB_IO_OPS_VERSION) {
		snprintf(r->method, sizeof(r->method), "failed");
		snprintf(r->note, sizeof(r->note), "I/O layer '%s' has version %u, not %u", io->name,
			 io->version, FSLAB_IO_OPS_VERSION);
		return -EPROTO;
	}
	if (!cache) {
		fslab_cache_ctl_init(&own, NULL, NULL);
		p.cache = &own;
	}
	if (posix_memalign(&p.buf, 4096, FSLAB_PROBE_RECORD) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < FSLAB_PROBE_RECORD; i++)
		((unsigned char *)p.buf)[i] = (unsigned char)(0x5A ^ (i * 131 + (i >> 12)));
	for (unsigned k = 0; k < FSLAB_PROBE_RUNS; k++) {
		e = probe_once(&p, bytes, &one);
		if (e < 0 && k == 0) {
			*r = one;
			break;
		}
		if (e < 0) {
			fslab_catf(r->note, sizeof(r->note), "%sprobe %u of %u failed (%.120s); the bound is from %u",
				   r->note[0] ? "; " : "", k + 1, FSLAB_PROBE_RUNS, one.note, k);
			e = 0;
			break;
		}
		fslab_probe_fold(r, &one, k);
	}
	free(p.buf);
	for (int i = 0; i < 2; i++) { /* the bound's write_how and read_how, after the note */
		const char *how = i ? r->read_how : r->write_how;

		if (how[0])
			fslab_catf(r->note, sizeof(r->note), "%s%s", r->note[0] ? "; " : "", how);
	}
	snprintf(r->source, sizeof(r->source), "measured");
	r->measured_at = (int64_t)time(NULL);
	return e;
}
