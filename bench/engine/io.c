#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The ops that are one libc call each (ctx unused). */
#define POSIX_OP(RET, OP, PARAMS, CALL) \
	static RET posix_##OP PARAMS     \
	{                                \
		(void)ctx;               \
		return CALL;             \
	}

POSIX_OP(int, open, (void *ctx, int dfd, const char *name, int flags, mode_t mode),
	 openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode))
POSIX_OP(int, close, (void *ctx, int fd), close(fd))
POSIX_OP(ssize_t, read, (void *ctx, int fd, void *buf, size_t len), read(fd, buf, len))
POSIX_OP(ssize_t, write, (void *ctx, int fd, const void *buf, size_t len), write(fd, buf, len))
POSIX_OP(ssize_t, pread, (void *ctx, int fd, void *buf, size_t len, off_t off), pread(fd, buf, len, off))
POSIX_OP(ssize_t, pwrite, (void *ctx, int fd, const void *buf, size_t len, off_t off),
	 pwrite(fd, buf, len, off))
POSIX_OP(off_t, lseek, (void *ctx, int fd, off_t off, int whence), lseek(fd, off, whence))
POSIX_OP(int, fsync, (void *ctx, int fd), fsync(fd))
POSIX_OP(int, unlink, (void *ctx, int dfd, const char *name), unlinkat(dfd, name, 0))
POSIX_OP(int, syncfs, (void *ctx, int dfd), syncfs(dfd))

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

POSIX_OP(int, setvbuf, (void *ctx, FILE *f, char *buf, int type, size_t size), setvbuf(f, buf, type, size))
POSIX_OP(size_t, fread, (void *ctx, void *buf, size_t size, size_t n, FILE *f), fread(buf, size, n, f))
POSIX_OP(size_t, fwrite, (void *ctx, const void *buf, size_t size, size_t n, FILE *f),
	 fwrite(buf, size, n, f))
POSIX_OP(int, fflush, (void *ctx, FILE *f), fflush(f))
POSIX_OP(int, fclose, (void *ctx, FILE *f), fclose(f))

/* A queued test's ring: liburing's, and whether its buffers are
 * registered (fixed-buffer reads and writes) or not (the memlock limit
 * refused them: the same requests from plain buffers). */
struct posix_ring {
	struct io_uring ring;
	bool fixed;
	bool deferred; /* IORING_SETUP_DEFER_TASKRUN: completions post when asked */
};

#define RING_FLAGS (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN)

static int posix_ring_setup(void *ctx, unsigned depth, void *const *bufs, unsigned nbufs, size_t len,
			    void **out)
{
	struct posix_ring *r = calloc(1, sizeof(*r));
	struct iovec *iov = calloc(nbufs ? nbufs : 1, sizeof(*iov));
	int e;

	(void)ctx;
	if (!r || !iov) {
		free(r);
		free(iov);
		errno = ENOMEM;
		return -1;
	}
	/* fio's io_uring engine's flags (fio 3.33): one submitter, the
	 * thread that made the ring; no IPI for a completion; its task work
	 * run only when that thread asks (DEFER_TASKRUN: when it waits, or
	 * submits with GETEVENTS, as fio does).  Kernels before 6.1 refuse
	 * DEFER_TASKRUN, before 6.0 the others: fewer flags there */
	e = io_uring_queue_init(depth, &r->ring, RING_FLAGS | IORING_SETUP_DEFER_TASKRUN);
	r->deferred = e == 0;
	if (e == -EINVAL)
		e = io_uring_queue_init(depth, &r->ring, RING_FLAGS);
	if (e == -EINVAL)
		e = io_uring_queue_init(depth, &r->ring, 0);
	if (e < 0) {
		free(r);
		free(iov);
		errno = -e;
		return -1;
	}
	for (unsigned i = 0; i < nbufs; i++)
		iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = len };
	r->fixed = nbufs && io_uring_register_buffers(&r->ring, iov, nbufs) == 0;
	free(iov);
	*out = r;
	return 0;
}

static int posix_ring_submit(void *ctx, void *ring, const struct fslab_ring_req *reqs, unsigned n)
{
	struct posix_ring *r = ring;
	int e;

	(void)ctx;
	for (unsigned i = 0; i < n; i++) {
		const struct fslab_ring_req *q = &reqs[i];
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

		if (!sqe) {
			errno = EBUSY; /* more than the ring's depth at once */
			return -1;
		}
		if (q->write && r->fixed)
			io_uring_prep_write_fixed(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)q->off,
						  (int)q->buf_index);
		else if (q->write)
			io_uring_prep_write(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)q->off);
		else if (r->fixed)
			io_uring_prep_read_fixed(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)q->off,
						 (int)q->buf_index);
		else
			io_uring_prep_read(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)q->off);
		io_uring_sqe_set_data64(sqe, q->tag);
	}
	e = r->deferred ? io_uring_submit_and_get_events(&r->ring) : io_uring_submit(&r->ring);
	if (e < 0) {
		errno = -e;
		return -1;
	}
	return e;
}

static int posix_ring_reap(void *ctx, void *ring, struct fslab_ring_done *done, unsigned max,
			   unsigned min)
{
	struct posix_ring *r = ring;
	struct io_uring_cqe *cqe;
	unsigned head, k = 0;
	int e;

	(void)ctx;
	if (min) {
		e = io_uring_wait_cqe_nr(&r->ring, &cqe, min);
		if (e < 0) {
			errno = -e;
			return -1;
		}
	} else if (r->deferred && (e = io_uring_get_events(&r->ring)) < 0) {
		/* not waiting: the deferred completions posted all the same */
		errno = -e;
		return -1;
	}
	io_uring_for_each_cqe(&r->ring, head, cqe) {
		if (k == max)
			break;
		done[k].tag = io_uring_cqe_get_data64(cqe);
		done[k].res = cqe->res;
		k++;
	}
	io_uring_cq_advance(&r->ring, k);
	return (int)k;
}

static void posix_ring_teardown(void *ctx, void *ring)
{
	struct posix_ring *r = ring;

	(void)ctx;
	if (!r)
		return;
	io_uring_queue_exit(&r->ring);
	free(r);
}

POSIX_OP(int, fallocate_ops, (void *ctx, int fd, off_t len), fallocate(fd, 0, 0, len))
POSIX_OP(int, ftruncate, (void *ctx, int fd, off_t len), ftruncate(fd, len))
POSIX_OP(int, fdatasync, (void *ctx, int fd), fdatasync(fd))
POSIX_OP(int, mkdir, (void *ctx, int dfd, const char *name, mode_t mode), mkdirat(dfd, name, mode))
POSIX_OP(int, rmdir, (void *ctx, int dfd, const char *name), unlinkat(dfd, name, AT_REMOVEDIR))
POSIX_OP(int, fstatat, (void *ctx, int dfd, const char *name, struct stat *st),
	 fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW))
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
	.ring_setup = posix_ring_setup,
	.ring_submit = posix_ring_submit,
	.ring_reap = posix_ring_reap,
	.ring_teardown = posix_ring_teardown,
	.fallocate = posix_fallocate_ops,
	.ftruncate = posix_ftruncate,
	.fdatasync = posix_fdatasync,
	.mkdir = posix_mkdir,
	.rmdir = posix_rmdir,
	.fstatat = posix_fstatat,
};
