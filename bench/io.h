/* The engine's I/O layer: every system call a benchmark test makes goes
 * through one ops struct (fio's ioengine_ops shape), so a test can swap in
 * an ops struct that records the (operation, offset, length) sequence or
 * injects faults.  Each function behaves like the libc call it is named
 * after (-1 / NULL / short count with errno set on failure). */
#ifndef FSLAB_BENCH_IO_H
#define FSLAB_BENCH_IO_H

#include <stdio.h>
#include <sys/types.h>

struct fslab_io_ops {
	const char *name;
	void *ctx; /* passed back as the first argument */

	int (*open)(void *ctx, const char *path, int flags, mode_t mode);
	int (*close)(void *ctx, int fd);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, off_t off);
	off_t (*lseek)(void *ctx, int fd, off_t off, int whence);
	int (*fsync)(void *ctx, int fd);
	int (*unlink)(void *ctx, const char *path);
	/* Flushes the filesystem holding path (syncfs(2)); may be NULL. */
	int (*syncfs)(void *ctx, const char *path);

	FILE *(*fopen)(void *ctx, const char *path, const char *mode);
	int (*setvbuf)(void *ctx, FILE *f, char *buf, int type, size_t size);
	size_t (*fread)(void *ctx, void *buf, size_t size, size_t n, FILE *f);
	size_t (*fwrite)(void *ctx, const void *buf, size_t size, size_t n, FILE *f);
	int (*fflush)(void *ctx, FILE *f);
	int (*fclose)(void *ctx, FILE *f);
};

/* The real system calls. */
extern const struct fslab_io_ops fslab_io_posix;

#endif
