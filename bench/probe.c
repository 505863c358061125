/* What the device can do: a sequential write then read of a scratch file
 * with 1 MiB records, O_DIRECT where the filesystem allows it, else
 * buffered with fsync inside the timer (write) and the file's pages dropped
 * before the read.  Figures above page_cache_factor x these are cache. */
#include "bench_int.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int probe_drop(int fd)
{
	int dfd;

	if (fsync(fd) < 0)
		return -errno;
	dfd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (dfd >= 0) {
		ssize_t w = write(dfd, "1\n", 2);
		close(dfd);
		if (w == 2)
			return 1;
	}
	return posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0 ? 0 : -EIO;
}

/* Creates the probe file in the private directory: O_EXCL, no symlink
 * followed.  An open that refused O_DIRECT may have created the file
 * already; in fslab's own directory that leftover is removed and the open
 * repeated. */
static int probe_create(int dfd, bool *direct)
{
	int fd;

	fd = openat(dfd, PROBEFILE_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT | O_CLOEXEC,
		    0600);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	*direct = false;
	if (unlinkat(dfd, PROBEFILE_NAME, 0) < 0 && errno != ENOENT)
		return -1;
	return openat(dfd, PROBEFILE_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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

/* One timed pass over the file: n records written (then fsync'ed, so a
 * buffered write is timed until it is on the device) or read.  0 with the
 * rate in *kib_s, or -errno (-EIO for a short transfer). */
static int probe_pass(int fd, void *buf, uint64_t n, bool write_pass, double *kib_s)
{
	double t0 = fslab_now();

	for (uint64_t i = 0; i < n; i++) {
		ssize_t got = write_pass ? write(fd, buf, FSLAB_PROBE_RECORD) : read(fd, buf, FSLAB_PROBE_RECORD);

		if (got != FSLAB_PROBE_RECORD)
			return got < 0 ? -errno : -EIO;
	}
	if (write_pass && fsync(fd) < 0)
		return -errno;
	*kib_s = (double)(n * FSLAB_PROBE_RECORD) / 1024.0 / (fslab_now() - t0);
	return 0;
}

/* A probe's I/O failed (e: -errno): said in the note; returns e. */
static int probe_io_failed(struct fslab_probe_result *r, const char *dir, int e)
{
	snprintf(r->note, sizeof(r->note), "probe I/O in %.150s failed: %s", dir, strerror(-e));
	return e;
}

/* The write half: creates the file (O_DIRECT where the filesystem takes
 * it) and times writing it.  An open that accepts O_DIRECT whose writes
 * refuse it (EINVAL on the first) is redone buffered.  0 or -errno. */
static int probe_write(int dfd, const char *dir, void *buf, uint64_t n, bool *direct,
		       struct fslab_probe_result *r)
{
	int fd = probe_create(dfd, direct), e;

	if (fd < 0) {
		e = -errno;
		snprintf(r->note, sizeof(r->note), "cannot create the probe file in %.150s: %s", dir,
			 strerror(-e));
		return e;
	}
	e = probe_pass(fd, buf, n, true, &r->write_kib_s);
	if (e == -EINVAL && *direct) {
		close(fd);
		*direct = false;
		fd = openat(dfd, PROBEFILE_NAME, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return probe_io_failed(r, dir, -errno);
		e = probe_pass(fd, buf, n, true, &r->write_kib_s);
	}
	close(fd);
	return e < 0 ? probe_io_failed(r, dir, e) : 0;
}

/* Buffered reads after a cache drop get the kernel's readahead (larger,
 * overlapping requests) and can beat synchronous 1 MiB O_DIRECT reads; the
 * device can do the faster of the two. */
static void probe_read_ahead(int dfd, void *buf, uint64_t n, struct fslab_probe_result *r)
{
	int fd = openat(dfd, PROBEFILE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	double ra;

	if (fd < 0)
		return;
	if (probe_drop(fd) == 1 && probe_pass(fd, buf, n, false, &ra) == 0 && ra > r->read_kib_s) {
		r->read_kib_s = ra;
		snprintf(r->note, sizeof(r->note),
			 "read figure from buffered reads after drop_caches (readahead beat O_DIRECT)");
	}
	close(fd);
}

/* The read half: O_DIRECT, or buffered after the file's pages are
 * dropped.  0 or -errno. */
static int probe_read(int dfd, const char *dir, void *buf, uint64_t n, bool direct,
		      struct fslab_probe_result *r)
{
	int fd = openat(dfd, PROBEFILE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (direct ? O_DIRECT : 0));
	int e;

	if (fd < 0)
		return probe_io_failed(r, dir, -errno);
	if (!direct) {
		int d = probe_drop(fd);

		snprintf(r->note, sizeof(r->note),
			 "the filesystem refuses O_DIRECT: write timed with fsync, read after %s",
			 d == 1 ? "drop_caches" : d == 0 ? "posix_fadvise(DONTNEED), which may leave pages cached" : "a failed cache drop");
	}
	e = probe_pass(fd, buf, n, false, &r->read_kib_s);
	close(fd);
	if (e < 0)
		return probe_io_failed(r, dir, e);
	if (direct)
		probe_read_ahead(dfd, buf, n, r);
	return 0;
}

/* One probe: write then read the scratch file once. */
static int probe_once(int dfd, const char *dir, uint64_t bytes, struct fslab_probe_result *r)
{
	void *buf = NULL;
	bool direct = true;
	int ret;

	memset(r, 0, sizeof(*r));
	r->bytes = probe_size(dfd, bytes);
	if (!r->bytes) {
		snprintf(r->method, sizeof(r->method), "failed");
		snprintf(r->note, sizeof(r->note), "too little free space in %s for a probe file", dir);
		return -ENOSPC;
	}
	if (posix_memalign(&buf, 4096, FSLAB_PROBE_RECORD) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < FSLAB_PROBE_RECORD; i++)
		((unsigned char *)buf)[i] = (unsigned char)(0x5A ^ (i * 131 + (i >> 12)));

	ret = probe_write(dfd, dir, buf, r->bytes / FSLAB_PROBE_RECORD, &direct, r);
	if (ret == 0)
		ret = probe_read(dfd, dir, buf, r->bytes / FSLAB_PROBE_RECORD, direct, r);
	snprintf(r->method, sizeof(r->method), direct ? "o_direct" : "buffered+fsync");
	if (ret < 0) {
		snprintf(r->method, sizeof(r->method), "failed");
		r->write_kib_s = r->read_kib_s = 0;
	}
	unlinkat(dfd, PROBEFILE_NAME, 0);
	free(buf);
	return ret;
}

/* FSLAB_PROBE_RUNS probes; the fastest write and the fastest read are the
 * device's upper bound (a probe can only be slowed by noise, never sped
 * up, so the fastest is the least disturbed).  Every probe is kept for the
 * manifest.  A failure after the first probe keeps the probes done. */
int fslab_device_probe(int dfd, const char *dir, uint64_t bytes, struct fslab_probe_result *r)
{
	struct fslab_probe_result one;
	int e;

	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < FSLAB_PROBE_RUNS; k++) {
		e = probe_once(dfd, dir, bytes, &one);
		if (e < 0 && k == 0) {
			*r = one;
			return e;
		}
		if (e < 0) {
			size_t n = strlen(r->note);
			snprintf(r->note + n, sizeof(r->note) - n, "%sprobe %u of %u failed (%.120s); the bound is from %u",
				 n ? "; " : "", k + 1, FSLAB_PROBE_RUNS, one.note, k);
			break;
		}
		if (k == 0) {
			snprintf(r->method, sizeof(r->method), "%s", one.method);
			snprintf(r->note, sizeof(r->note), "%s", one.note);
			r->bytes = one.bytes;
		}
		r->write_runs_kib_s[k] = one.write_kib_s;
		r->read_runs_kib_s[k] = one.read_kib_s;
		r->runs = k + 1;
		if (one.write_kib_s > r->write_kib_s)
			r->write_kib_s = one.write_kib_s;
		if (one.read_kib_s > r->read_kib_s) {
			r->read_kib_s = one.read_kib_s;
			if (k > 0 && one.note[0]) /* how the fastest read was made */
				snprintf(r->note, sizeof(r->note), "%s", one.note);
		}
	}
	return 0;
}
