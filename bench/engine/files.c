/* The many-files tests (files_create, files_stat, files_read,
 * files_unlink): what a workload of many files of one size costs a
 * filesystem, metadata included, as fs_mark and fio's filecreate,
 * filestat and filedelete engines measure it (docs/tests.md).
 *
 * The tree: FSLAB_FILES_TREE in the run's private directory, holding
 * directories D000, D001, ... of FSLAB_FILES_PER_DIR files each, named
 * F00000, F00001, ... (8.3 names in capitals: FAT stores them without
 * long-name entries).  A cell of file size S has fslab_files_count(S)
 * files of S bytes, each written and read in the cell's records.
 *
 * One pass, each phase over every file in name order, timed from its
 * first call to its last:
 *   files_create  mkdir of each directory as it is reached, open(O_CREAT |
 *                 O_EXCL), the records written, --file-sync's fsync or
 *                 fdatasync, close (the tree's own directory is made
 *                 untimed first)
 *   files_stat    fstatat of each file (its size checked)
 *   files_read    open, the records read, close; in cold mode the whole
 *                 tree's pages are dropped first (bench/engine/cache.c)
 *   files_unlink  unlinkat of each file, and each directory removed after
 *                 its last file
 * The directories' fds are opened outside the timer (create opens each
 * new one inside it, after its mkdir).  Direct mode opens the files
 * O_DIRECT.  A pass that needs the tree and finds none complete writes it
 * first, untimed, as the IOzone tests write their file.
 *
 * On a FUSE mount (c->keep_tree_dirs) the directories stay, emptied, from
 * cell to cell: the files are created and removed as everywhere, a mkdir
 * that finds its directory kept (EEXIST) goes on, and no rmdir is made;
 * the run's private directory takes them at its end.  Unlink then goes
 * from the last file to the first: fusefat marks a freed entry followed
 * by the directory's end as the end too, so a directory emptied that way
 * reads as a fresh one, where one emptied in name order keeps every entry
 * as deleted and fusefat scans them all at each lookup (the creates of
 * the next cells took 3x as long).  fusefat (0.1a, the
 * FUSE driver for FAT32 where the kernel has no vfat) keeps lseek64's
 * result in an int where it reads a directory entry, so it cannot read a
 * directory whose cluster lies 2 GiB or more into the partition: a lookup
 * there says ENOENT and a mkdir inside it fails with EPERM ("directory not
 * found in parent").  It hands out clusters in ascending order from its
 * next-free hint and reuses freed ones only after reaching the end of the
 * volume, so once 2 GiB were allocated since the mount (the demo's run
 * crossed it in its second trial, after IOzone's tests) every directory
 * made afresh lands there.  Directories made in the run's first cell of
 * the family, and grown there to their full size, stay readable. */
#include "engine_int.h"


#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define FILES_DIRS_MAX ((FSLAB_FILES_MAX + FSLAB_FILES_PER_DIR - 1) / FSLAB_FILES_PER_DIR)
/* a cluster of slack per file in fslab_files_tree_bytes */
#define FILES_SLACK_BYTES (32u * 1024)

uint64_t fslab_files_count(uint64_t file_bytes)
{
	uint64_t n = file_bytes ? FSLAB_FILES_PHASE_BYTES / file_bytes : FSLAB_FILES_MAX;

	if (n < FSLAB_FILES_MIN)
		return FSLAB_FILES_MIN;
	return n > FSLAB_FILES_MAX ? FSLAB_FILES_MAX : n;
}

uint64_t fslab_files_tree_bytes(uint64_t file_bytes)
{
	return fslab_files_count(file_bytes) * (file_bytes + FILES_SLACK_BYTES);
}

/* Directory d's and file i's names. */
static void files_dir_name(char name[8], uint64_t d)
{
	snprintf(name, 8, "D%03u", (unsigned)d);
}

static void files_file_name(char name[8], uint64_t i)
{
	snprintf(name, 8, "F%05u", (unsigned)(i % 100000)); /* i < FSLAB_FILES_MAX: five digits */
}

/* A mkdir that failed with err: is it one of the kept directories? */
static bool files_dir_kept(const struct fslab_cell *c, int err)
{
	return c->keep_tree_dirs && err == EEXIST;
}

/* The tree's directory fds while a pass walks it. */
struct files_dirs {
	int tree;
	int fd[FILES_DIRS_MAX];
	uint64_t n; /* directories open in fd[] */
};

static uint64_t files_n_dirs(uint64_t n)
{
	return (n + FSLAB_FILES_PER_DIR - 1) / FSLAB_FILES_PER_DIR;
}

static void files_close_dirs(const struct fslab_io_ops *ops, struct files_dirs *d)
{
	for (uint64_t k = 0; k < d->n; k++)
		ops->close(ops->ctx, d->fd[k]);
	if (d->tree >= 0)
		ops->close(ops->ctx, d->tree);
	d->n = 0;
	d->tree = -1;
}

/* Opens the tree and (all) its n files' directories, untimed.  0 or the
 * pass's failure with nothing left open. */
static int files_open_dirs(struct fslab_bench_pass *p, uint64_t n, bool all, struct files_dirs *d)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	char dname[8];

	d->n = 0;
	d->tree = ops->open(ops->ctx, p->dfd, FSLAB_FILES_TREE, O_RDONLY | O_DIRECTORY, 0);
	if (d->tree < 0)
		return fslab_pass_fail(p, errno, "open %s", FSLAB_FILES_TREE);
	for (uint64_t k = 0; all && k < files_n_dirs(n); k++) {
		files_dir_name(dname, k);
		d->fd[k] = ops->open(ops->ctx, d->tree, dname, O_RDONLY | O_DIRECTORY, 0);
		if (d->fd[k] < 0) {
			int r = fslab_pass_fail(p, errno, "open %s/%s", FSLAB_FILES_TREE, dname);
			files_close_dirs(ops, d);
			return r;
		}
		d->n++;
	}
	return 0;
}

/* A call on file i that failed: "create FILES.TRE/D000/F00000: ...". */
static int files_fail(struct fslab_bench_pass *p, int err, const char *op, uint64_t i)
{
	char dname[8], fname[8];

	files_dir_name(dname, i / FSLAB_FILES_PER_DIR);
	files_file_name(fname, i);
	return fslab_pass_fail(p, err, "%s %s/%s/%s", op, FSLAB_FILES_TREE, dname, fname);
}

/* -errno of the call that just failed, or EIO (a short count). */
static int files_errno(ssize_t got)
{
	return got < 0 && errno ? errno : EIO;
}

/* File i in the directory dfd, opened with flags (O_DIRECT added in
 * direct mode): the fd, or the pass's failure (op names the call; a
 * refused O_DIRECT skips the test). */
static int files_open(struct fslab_bench_pass *p, int dfd, uint64_t i, int flags, const char *op)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	char fname[8];
	int fd;

	files_file_name(fname, i);
	fd = ops->open(ops->ctx, dfd, fname, flags | (fslab_pass_direct(p) ? O_DIRECT : 0), 0600);
	if (fd >= 0)
		return fd;
	if (fslab_pass_direct(p) && errno == EINVAL) {
		p->refused_direct = true;
		return fslab_pass_fail(p, 0, "the filesystem refuses O_DIRECT (open: EINVAL)");
	}
	return files_fail(p, errno, op, i);
}

/* File i: created, written in records, flushed as --file-sync says,
 * closed.  0 or the pass's failure. */
static int files_create_one(struct fslab_bench_pass *p, int dfd, uint64_t i)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const size_t rec = p->rec;
	int fd = files_open(p, dfd, i, O_WRONLY | O_CREAT | O_EXCL, "create"), r = 0;

	if (fd < 0)
		return fd;
	for (uint64_t k = 0; k < p->n; k++) {
		ssize_t got = ops->write(ops->ctx, fd, p->buf->io, rec);

		if (got != (ssize_t)rec) {
			r = files_fail(p, files_errno(got), got < 0 ? "write" : "short write", i);
			break;
		}
	}
	if (r == 0 && p->cell->file_sync == FSLAB_FILE_SYNC_FSYNC && ops->fsync(ops->ctx, fd) < 0)
		r = files_fail(p, errno, "fsync", i);
	if (r == 0 && p->cell->file_sync == FSLAB_FILE_SYNC_FDATASYNC && ops->fdatasync(ops->ctx, fd) < 0)
		r = files_fail(p, errno, "fdatasync", i);
	if (ops->close(ops->ctx, fd) < 0 && r == 0)
		r = files_fail(p, errno, "close", i);
	return r;
}

/* Every file of the tree, made from nothing (the tree's directory is
 * made first, untimed).  timed: the loop is the pass's timed region. */
static int files_write_tree(struct fslab_bench_pass *p, uint64_t n, bool timed)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	struct fslab_lat_hist *const lat = timed ? p->lat : NULL;
	struct files_dirs d = { .tree = -1 };
	double t = fslab_now(), t0 = 0;
	uint64_t lmark = 0;
	char dname[8];
	int r = 0;

	if (ops->mkdir(ops->ctx, p->dfd, FSLAB_FILES_TREE, 0700) < 0 && !files_dir_kept(p->cell, errno))
		return fslab_pass_fail(p, errno, "mkdir %s", FSLAB_FILES_TREE);
	p->tree->exists = true;
	r = files_open_dirs(p, n, false, &d);
	if (r < 0)
		return r;
	p->untimed += fslab_now() - t;
	if (timed) {
		t0 = fslab_pass_timer_start(p);
		lmark = fslab_lat_begin(p);
	}
	for (uint64_t i = 0; i < n && r == 0 && !PASS_STOP(p); i++) {
		uint64_t k = i / FSLAB_FILES_PER_DIR;

		if (i % FSLAB_FILES_PER_DIR == 0) {
			files_dir_name(dname, k);
			if (ops->mkdir(ops->ctx, d.tree, dname, 0700) < 0 && !files_dir_kept(p->cell, errno)) {
				r = fslab_pass_fail(p, errno, "mkdir %s/%s", FSLAB_FILES_TREE, dname);
				break;
			}
			d.fd[k] = ops->open(ops->ctx, d.tree, dname, O_RDONLY | O_DIRECTORY, 0);
			if (d.fd[k] < 0) {
				r = fslab_pass_fail(p, errno, "open %s/%s", FSLAB_FILES_TREE, dname);
				break;
			}
			d.n++;
		}
		r = files_create_one(p, d.fd[k], i);
		FSLAB_LAT_MARK(lat, lmark);
	}
	if (timed) {
		fslab_lat_end(p);
		p->elapsed = fslab_pass_timer_stop(p) - t0;
	}
	t = fslab_now();
	files_close_dirs(ops, &d);
	p->untimed += fslab_now() - t;
	if (r == 0)
		p->tree->complete = true;
	return r;
}

/* files_stat, files_read, files_unlink: one call (or open, reads, close)
 * per file, in name order. */
static int files_walk_one(struct fslab_bench_pass *p, struct files_dirs *d, uint64_t i)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const int dfd = d->fd[i / FSLAB_FILES_PER_DIR];
	char fname[8];
	struct stat st;
	int fd, r = 0;

	files_file_name(fname, i);
	switch (p->test->id) {
	case FSLAB_TEST_FILES_STAT:
		if (ops->fstatat(ops->ctx, dfd, fname, &st) < 0)
			return files_fail(p, errno, "stat", i);
		if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != p->cell->file_bytes)
			return files_fail(p, 0, "unexpected type or size from stat of", i);
		return 0;
	case FSLAB_TEST_FILES_UNLINK:
		return ops->unlink(ops->ctx, dfd, fname) < 0 ? files_fail(p, errno, "unlink", i) : 0;
	default:
		break;
	}
	fd = files_open(p, dfd, i, O_RDONLY, "open");
	if (fd < 0)
		return fd;
	for (uint64_t k = 0; k < p->n; k++) {
		ssize_t got = ops->read(ops->ctx, fd, p->buf->io, p->rec);

		if (got != (ssize_t)p->rec) {
			r = files_fail(p, files_errno(got), got < 0 ? "read" : "short read", i);
			break;
		}
	}
	if (ops->close(ops->ctx, fd) < 0 && r == 0)
		r = files_fail(p, errno, "close", i);
	return r;
}

static int files_walk(struct fslab_bench_pass *p, uint64_t n)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	const bool unlinks = p->test->id == FSLAB_TEST_FILES_UNLINK;
	const bool rmdirs = unlinks && !p->cell->keep_tree_dirs;
	/* kept directories are emptied last file first (see the top) */
	const bool backwards = unlinks && !rmdirs;
	struct fslab_lat_hist *const lat = p->lat;
	struct files_dirs d = { .tree = -1 };
	double t = fslab_now(), t0;
	uint64_t lmark;
	char dname[8];
	int r;

	if (!p->tree->complete)
		return fslab_pass_fail(p, 0, "internal: the tree of files is not written");
	r = files_open_dirs(p, n, true, &d);
	if (r < 0)
		return r;
	p->untimed += fslab_now() - t;
	if (unlinks)
		p->tree->complete = false;
	t0 = fslab_pass_timer_start(p);
	lmark = fslab_lat_begin(p);
	for (uint64_t i = 0; i < n && r == 0 && !PASS_STOP(p); i++) {
		r = files_walk_one(p, &d, backwards ? n - 1 - i : i);
		/* a directory goes after its last file */
		if (r == 0 && rmdirs && (i % FSLAB_FILES_PER_DIR == FSLAB_FILES_PER_DIR - 1 || i == n - 1)) {
			files_dir_name(dname, i / FSLAB_FILES_PER_DIR);
			if (ops->rmdir(ops->ctx, d.tree, dname) < 0)
				r = fslab_pass_fail(p, errno, "rmdir %s/%s", FSLAB_FILES_TREE, dname);
		}
		FSLAB_LAT_MARK(lat, lmark);
	}
	fslab_lat_end(p);
	p->elapsed = fslab_pass_timer_stop(p) - t0;
	t = fslab_now();
	files_close_dirs(ops, &d);
	if (r == 0 && unlinks && !rmdirs)
		p->tree->exists = false; /* only the kept directories are left */
	if (r == 0 && rmdirs) {
		if (ops->rmdir(ops->ctx, p->dfd, FSLAB_FILES_TREE) < 0)
			r = fslab_pass_fail(p, errno, "rmdir %s", FSLAB_FILES_TREE);
		else
			p->tree->exists = false;
	}
	p->untimed += fslab_now() - t;
	return r;
}

void fslab_files_remove(const struct fslab_cell *c, int dfd, struct fslab_files_tree *tree,
			double *untimed)
{
	const struct fslab_io_ops *ops = c->ops;
	const uint64_t n = fslab_files_count(c->file_bytes);
	double t = fslab_now();
	char dname[8], fname[8];
	bool left = false; /* a file that would not go */
	int tfd;

	if (!tree->exists)
		return;
	tree->complete = false;
	tfd = ops->open(ops->ctx, dfd, FSLAB_FILES_TREE, O_RDONLY | O_DIRECTORY, 0);
	if (tfd < 0 && errno == ENOENT) {
		tree->exists = false;
		goto out;
	}
	if (tfd < 0) {
		fslab_cell_warn(c, errno, "cannot open the tree of files %s to remove it: %s", FSLAB_FILES_TREE,
				strerror(errno));
		goto out;
	}
	for (uint64_t k = 0; k < files_n_dirs(n); k++) {
		int fd;

		files_dir_name(dname, k);
		fd = ops->open(ops->ctx, tfd, dname, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			continue; /* never made (a create that stopped early), or gone */
		for (uint64_t i = k * FSLAB_FILES_PER_DIR; i < n && i < (k + 1) * FSLAB_FILES_PER_DIR; i++) {
			files_file_name(fname, i);
			if (ops->unlink(ops->ctx, fd, fname) < 0 && errno != ENOENT) {
				fslab_cell_warn(c, errno, "cannot remove %s/%s/%s: %s", FSLAB_FILES_TREE, dname,
						fname, strerror(errno));
				left = true;
			}
		}
		ops->close(ops->ctx, fd);
		if (!c->keep_tree_dirs && ops->rmdir(ops->ctx, tfd, dname) < 0 && errno != ENOENT)
			fslab_cell_warn(c, errno, "cannot remove %s/%s: %s", FSLAB_FILES_TREE, dname,
					strerror(errno));
	}
	ops->close(ops->ctx, tfd);
	if (c->keep_tree_dirs)
		tree->exists = left;
	else if (ops->rmdir(ops->ctx, dfd, FSLAB_FILES_TREE) < 0 && errno != ENOENT)
		fslab_cell_warn(c, errno, "cannot remove %s: %s", FSLAB_FILES_TREE, strerror(errno));
	else
		tree->exists = false;
out:
	*untimed += fslab_now() - t;
}

/* A fresh tree of n files: what an earlier pass left is removed first;
 * timed: the create pass's. */
static int files_fresh_tree(struct fslab_bench_pass *p, uint64_t n, bool timed)
{
	fslab_files_remove(p->cell, p->dfd, p->tree, &p->untimed);
	if (p->tree->exists)
		return fslab_pass_fail(p, 0, "cannot remove what an earlier pass left of %s",
				       FSLAB_FILES_TREE);
	return files_write_tree(p, n, timed);
}

int fslab_files_ensure(struct fslab_bench_pass *p)
{
	if (p->tree->complete)
		return 0;
	return files_fresh_tree(p, fslab_files_count(p->cell->file_bytes), false);
}

int fslab_files_run(struct fslab_bench_pass *p)
{
	const uint64_t n = fslab_files_count(p->cell->file_bytes);

	p->moved_ops = n;
	/* N x S for create and read, N x FSLAB_FILES_META_BYTES for stat and unlink */
	p->moved_bytes = n * ((p->test->flags & FSLAB_BT_METADATA) ? FSLAB_FILES_META_BYTES : p->cell->file_bytes);
	if (p->test->id != FSLAB_TEST_FILES_CREATE)
		return files_walk(p, n);
	return files_fresh_tree(p, n, true);
}
