#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int posix_open(void *ctx, int dfd, const char *name, int flags, mode_t mode)
{
	(void)ctx;
	return openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

static int posix_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

static ssize_t posix_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return read(fd, buf, len);
}

static ssize_t posix_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return write(fd, buf, len);
}

static ssize_t posix_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	(void)ctx;
	return pread(fd, buf, len, off);
}

static ssize_t posix_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
	(void)ctx;
	return pwrite(fd, buf, len, off);
}

static off_t posix_lseek(void *ctx, int fd, off_t off, int whence)
{
	(void)ctx;
	return lseek(fd, off, whence);
}

static int posix_fsync(void *ctx, int fd)
{
	(void)ctx;
	return fsync(fd);
}

static int posix_unlink(void *ctx, int dfd, const char *name)
{
	(void)ctx;
	return unlinkat(dfd, name, 0);
}

static int posix_syncfs(void *ctx, int dfd)
{
	(void)ctx;
	return syncfs(dfd);
}

static int posix_fsync_path(void *ctx, const char *path)
{
	int fd, r, e;

	(void)ctx;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	r = fsync(fd);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

static int posix_sync(void *ctx)
{
	(void)ctx;
	sync();
	return 0;
}

static FILE *posix_fopen(void *ctx, int dfd, const char *name, const char *mode)
{
	int flags = strcmp(mode, "r+") == 0 ? O_RDWR : O_RDONLY;
	int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	FILE *f;

	(void)ctx;
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

static int posix_setvbuf(void *ctx, FILE *f, char *buf, int type, size_t size)
{
	(void)ctx;
	return setvbuf(f, buf, type, size);
}

static size_t posix_fread(void *ctx, void *buf, size_t size, size_t n, FILE *f)
{
	(void)ctx;
	return fread(buf, size, n, f);
}

static size_t posix_fwrite(void *ctx, const void *buf, size_t size, size_t n, FILE *f)
{
	(void)ctx;
	return fwrite(buf, size, n, f);
}

static int posix_fflush(void *ctx, FILE *f)
{
	(void)ctx;
	return fflush(f);
}

static int posix_fclose(void *ctx, FILE *f)
{
	(void)ctx;
	return fclose(f);
}

const struct fslab_io_ops fslab_io_posix = {
	.version = FSLAB_IO_OPS_VERSION,
	.name = "posix",
	.open = posix_open,
	.close = posix_close,
	.read = posix_read,
	.write = posix_write,
	.pread = posix_pread,
	.pwrite = posix_pwrite,
	.lseek = posix_lseek,
	.fsync = posix_fsync,
	.unlink = posix_unlink,
	.syncfs = posix_syncfs,
	.fsync_path = posix_fsync_path,
	.sync = posix_sync,
	.fopen = posix_fopen,
	.setvbuf = posix_setvbuf,
	.fread = posix_fread,
	.fwrite = posix_fwrite,
	.fflush = posix_fflush,
	.fclose = posix_fclose,
};
