/* The engine's I/O layer: every call fslab run makes on a file it
 * benchmarks goes through one ops struct (fio's ioengine_ops shape): the
 * 13 tests' test file (bench/engine.c), the queued tests' rings
 * (bench/queued.c), the many-files tests' tree (bench/files.c), the
 * device probe's file
 * (bench/probe.c) and the steady-state phase's file (bench/run_steady.c).
 * A test can swap in an ops struct that records the (operation, offset,
 * length) sequence or injects faults.  Each function behaves like the
 * libc call it is named after (-1 / NULL / short count with errno set on
 * failure).
 *
 * Not through it, by design: the page-cache drop (bench/cache.c's
 * fslab_cache_drop, the one drop policy: its fsync, posix_fadvise,
 * mincore, drop_caches and remount are the policy's, reached through the
 * cell's drop_cache and called by the probe), and calls about a
 * filesystem rather than a file's data (fstatvfs for free space, FITRIM
 * after a pass).
 *
 * Files are named relative to a directory fd (the run's private directory)
 * and never through a symlink: open, unlink and fopen work like openat,
 * unlinkat and an fdopen of openat, with O_NOFOLLOW always added. */
#ifndef FSLAB_BENCH_IO_H
#define FSLAB_BENCH_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

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

	/* The many-files tests (bench/files.c): fdatasync(2) of a file;
	 * mkdirat(2), unlinkat(2) with AT_REMOVEDIR and fstatat(2) with
	 * AT_SYMLINK_NOFOLLOW, each relative to the directory fd dfd. */
	int (*fdatasync)(void *ctx, int fd);
	int (*mkdir)(void *ctx, int dfd, const char *name, mode_t mode);
	int (*rmdir)(void *ctx, int dfd, const char *name);
	int (*fstatat)(void *ctx, int dfd, const char *name, struct stat *st);
};

/* The real system calls. */
extern const struct fslab_io_ops fslab_io_posix;

#endif
