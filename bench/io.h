/* The engine's I/O layer: every call fslab run makes on a file it
 * benchmarks goes through one ops struct (fio's ioengine_ops shape): the
 * 13 tests' test file (bench/engine.c), the device probe's file
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
#include <stdio.h>
#include <sys/types.h>

/* The layout of struct fslab_io_ops.  Bumped whenever a member is added,
 * removed or changes meaning; the engine refuses an ops struct of another
 * version (every test of the cell fails saying so), so a fake built
 * against an old layout breaks loudly instead of being called wrongly. */
#define FSLAB_IO_OPS_VERSION 2

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
};

/* The real system calls. */
extern const struct fslab_io_ops fslab_io_posix;

#endif
