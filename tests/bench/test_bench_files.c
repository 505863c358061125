/* The many-files tests (bench/engine/files.c) through recording I/O ops on a
 * temporary directory: each phase's calls, which of them the timer holds,
 * the tree's shape (8.3 names, at most 256 files a directory), the
 * --file-sync words, what a row says it moved, a read alone writing the
 * tree untimed first, cold mode's one drop of the whole tree, a failed
 * write named by its file and the tree removed on every path, a refused
 * O_DIRECT skipped (cold mode's real drop of the tree is test_cache's);
 * and, as root, fslab run's files tests on FAT32 through fusefat. */
#include "testutil.h"

#include "engine/engine.h"
#include "results.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define T(x) FSLAB_TEST_BIT(FSLAB_TEST_FILES_##x)
#define ALL_FILES (T(CREATE) | T(STAT) | T(READ) | T(UNLINK))

/* What the ops saw, per test of the cell (the last test started). */
struct calls {
	unsigned mkdir, rmdir, create, open_read, close, write, read, fsync, fdatasync, unlink, stat;
};

struct rec {
	bool in_timer;
	struct calls timed, untimed;
	/* the tree's names: files created since the last mkdir of a D
	 * directory, the most seen, names not 8.3 capitals */
	unsigned since_mkdir, most_per_dir, bad_names;
	/* faults: the write_fail-th write (from 1) fails with ENOSPC, once */
	unsigned writes, write_fail;
	bool refuse_direct;
	/* rmdir calls of the whole cell, its end's removal included; the
	 * first file unlinked */
	unsigned rmdir_seen;
	char first_unlink[16];
	/* drops asked for, and the name of the last one */
	unsigned drops;
	char drop_name[64];
};

static struct rec R;
static char *dir;
static int dir_fd = -1;

static struct calls *cnt(void)
{
	return R.in_timer ? &R.timed : &R.untimed;
}

/* An 8.3 name in capitals and digits (no long-name entry on FAT). */
static bool name_83(const char *n)
{
	const char *dot = strchr(n, '.');
	size_t base = dot ? (size_t)(dot - n) : strlen(n);

	if (base == 0 || base > 8 || (dot && strlen(dot + 1) > 3))
		return false;
	for (const char *p = n; *p; p++)
		if (*p != '.' && !isupper((unsigned char)*p) && !isdigit((unsigned char)*p))
			return false;
	return true;
}

static int r_open(void *ctx, int dfd, const char *name, int flags, mode_t mode)
{
	(void)ctx;
	R.bad_names += !name_83(name);
	if (flags & O_CREAT) {
		cnt()->create++;
		R.since_mkdir++;
		if (R.since_mkdir > R.most_per_dir)
			R.most_per_dir = R.since_mkdir;
		ck_assert_msg(flags & O_EXCL, "a file of the tree is created without O_EXCL");
	} else if (!(flags & O_DIRECTORY)) {
		cnt()->open_read++;
	}
	if ((flags & O_DIRECT) && R.refuse_direct) {
		errno = EINVAL;
		return -1;
	}
	return fslab_io_posix.open(NULL, dfd, name, flags & ~O_DIRECT, mode);
}

static int r_close(void *ctx, int fd)
{
	(void)ctx;
	cnt()->close++;
	return close(fd);
}

static ssize_t r_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	cnt()->write++;
	if (++R.writes == R.write_fail) {
		errno = ENOSPC;
		return -1;
	}
	return write(fd, buf, len);
}

static ssize_t r_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	cnt()->read++;
	return read(fd, buf, len);
}

static int r_fsync(void *ctx, int fd)
{
	(void)ctx;
	cnt()->fsync++;
	return fsync(fd);
}

static int r_fdatasync(void *ctx, int fd)
{
	(void)ctx;
	cnt()->fdatasync++;
	return fdatasync(fd);
}

static int r_unlink(void *ctx, int dfd, const char *name)
{
	(void)ctx;
	cnt()->unlink++;
	if (!R.first_unlink[0])
		snprintf(R.first_unlink, sizeof(R.first_unlink), "%s", name);
	return unlinkat(dfd, name, 0);
}

static int r_mkdir(void *ctx, int dfd, const char *name, mode_t mode)
{
	(void)ctx;
	R.bad_names += !name_83(name);
	cnt()->mkdir++;
	R.since_mkdir = 0;
	return mkdirat(dfd, name, mode);
}

static int r_rmdir(void *ctx, int dfd, const char *name)
{
	(void)ctx;
	cnt()->rmdir++;
	R.rmdir_seen++;
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

static int r_fstatat(void *ctx, int dfd, const char *name, struct stat *st)
{
	(void)ctx;
	cnt()->stat++;
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW);
}

static void r_timer(void *ctx, bool start)
{
	(void)ctx;
	ck_assert_msg(R.in_timer != start, "the timer was %s twice", start ? "started" : "stopped");
	R.in_timer = start;
}

static int r_drop(void *ctx, int *dfd, const char *name, struct fslab_err *e)
{
	(void)ctx;
	(void)dfd;
	(void)e;
	R.drops++;
	snprintf(R.drop_name, sizeof(R.drop_name), "%s", name);
	return 0;
}

static struct fslab_io_ops rec_ops(void)
{
	struct fslab_io_ops o = fslab_io_posix;

	o.name = "recording";
	o.open = r_open;
	o.close = r_close;
	o.write = r_write;
	o.read = r_read;
	o.fsync = r_fsync;
	o.fdatasync = r_fdatasync;
	o.unlink = r_unlink;
	o.mkdir = r_mkdir;
	o.rmdir = r_rmdir;
	o.fstatat = r_fstatat;
	o.timer = r_timer;
	return o;
}

struct frun {
	uint64_t file, rec;
	unsigned tests;
	enum fslab_cache_mode cache;
	enum fslab_file_sync sync;
	bool keep; /* the cell's keep_tree_dirs (a FUSE mount's) */
	/* out */
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	struct calls timed[FSLAB_TEST_MAX], untimed[FSLAB_TEST_MAX];
};

static void f_on_test(void *ctx, enum fslab_test t, const struct fslab_test_outcome *o)
{
	struct frun *f = ctx;

	(void)o;
	/* each test's calls: what the ops counted since the last test */
	f->timed[t] = R.timed;
	f->untimed[t] = R.untimed;
	memset(&R.timed, 0, sizeof(R.timed));
	memset(&R.untimed, 0, sizeof(R.untimed));
}

static void run_files(struct frun *f)
{
	struct fslab_io_ops ops = rec_ops();
	struct fslab_bench_buffers b;
	struct fslab_cell cell = {
		.dir_fd = dir_fd,
		.name = "testfile",
		.file_bytes = f->file,
		.record_bytes = f->rec,
		.tests = f->tests,
		.file_sync = f->sync,
		.keep_tree_dirs = f->keep,
		.sweep = &(const struct fslab_sweep_spec){ .cache = f->cache },
		.ops = &ops,
		.drop_cache = r_drop,
		.on_test = f_on_test,
		.on_test_ctx = f,
	};

	ck_assert_int_eq(fslab_bench_buffers_alloc(&b, f->rec), 0);
	ck_assert_int_eq(fslab_cell_run(&cell, &b, f->out, &f->times), 0);
	fslab_bench_buffers_free(&b);
	ck_assert_msg(!R.in_timer, "the cell ended inside a timed region");
	/* kept: FILES.TRE alone */
	ck_assert_msg(ft_dir_entries(dir) == (f->keep ? 1 : 0), "the cell left %d entries in its directory",
		      ft_dir_entries(dir));
}

static void setup(void)
{
	dir = ft_mkdtemp_fd("fslab-files", &dir_fd);
}

static void reset(void)
{
	memset(&R, 0, sizeof(R));
}

static void teardown(void)
{
	ft_rmdir_fd(dir, &dir_fd);
	dir = NULL;
}

static void assert_ok(const struct frun *f, enum fslab_test t)
{
	ck_assert_msg(f->out[t].status == FSLAB_OUTCOME_OK, "%s: status %d: %s", fslab_test_to_string(t),
		      f->out[t].status, f->out[t].reason);
}

/* 256 KiB files in 64 KiB records: 256 files, one directory.  Each
 * phase's calls are in its timer; the tree's own directory is made
 * outside it; a row counts N x S (create, read) or N x 4 KiB (stat,
 * unlink) and N files a second. */
START_TEST(phases_make_their_calls_in_the_timer)
{
	struct frun f = { .file = 256 * 1024, .rec = 64 * 1024, .tests = ALL_FILES,
			  .cache = FSLAB_CACHE_WARM, .sync = FSLAB_FILE_SYNC_FSYNC };
	const unsigned n = 256, per = 4;

	ck_assert_uint_eq(fslab_files_count(f.file), n);
	run_files(&f);
	for (int t = FSLAB_TEST_FILES_CREATE; t <= FSLAB_TEST_FILES_UNLINK; t++) {
		const uint64_t bytes = t == FSLAB_TEST_FILES_STAT || t == FSLAB_TEST_FILES_UNLINK
					       ? (uint64_t)n * FSLAB_FILES_META_BYTES
					       : (uint64_t)n * f.file;
		const struct fslab_test_outcome *o = &f.out[t];

		assert_ok(&f, (enum fslab_test)t);
		ck_assert(o->elapsed_s > 0);
		ck_assert_double_eq_tol(o->throughput_kib_s, (double)bytes / 1024 / o->elapsed_s, 1.0);
		ck_assert_double_eq_tol(o->ops_s, n / o->elapsed_s, n / o->elapsed_s * 1e-6);
	}
	/* create: FILES.TRE untimed, D000 and every file in the timer */
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_CREATE].mkdir, 1);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].mkdir, 1);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].create, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].write, n * per);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].fsync, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].fdatasync, 0);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].close, n);
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_CREATE].write, 0);
	/* stat: one fstatat a file, nothing else timed */
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_STAT].stat, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_STAT].open_read + f.timed[FSLAB_TEST_FILES_STAT].read, 0);
	/* read: open, the records, close; no write anywhere */
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].open_read, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].read, n * per);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].close, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].write + f.untimed[FSLAB_TEST_FILES_READ].write, 0);
	/* unlink: every file, then D000 in the timer; FILES.TRE after it */
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_UNLINK].unlink, n);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_UNLINK].rmdir, 1);
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_UNLINK].rmdir, 1);
	ck_assert_uint_eq(R.bad_names, 0);
}
END_TEST

/* 4 KiB files: the most, FSLAB_FILES_MAX, in directories of at most 256
 * (64 of them), each name 8.3. */
START_TEST(small_files_fill_directories_of_256)
{
	struct frun f = { .file = 4096, .rec = 4096, .tests = T(CREATE) | T(UNLINK),
			  .cache = FSLAB_CACHE_WARM, .sync = FSLAB_FILE_SYNC_NONE };

	ck_assert_uint_eq(fslab_files_count(f.file), FSLAB_FILES_MAX);
	ck_assert_uint_eq(fslab_files_count(64ull << 20), FSLAB_FILES_MIN);
	ck_assert_uint_eq(fslab_files_count(1 << 20), 64);
	run_files(&f);
	assert_ok(&f, FSLAB_TEST_FILES_CREATE);
	assert_ok(&f, FSLAB_TEST_FILES_UNLINK);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].mkdir, FSLAB_FILES_MAX / FSLAB_FILES_PER_DIR);
	ck_assert_uint_eq(R.most_per_dir, FSLAB_FILES_PER_DIR);
	ck_assert_uint_eq(R.bad_names, 0);
	/* none: no flush of any file */
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].fsync + f.timed[FSLAB_TEST_FILES_CREATE].fdatasync, 0);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_UNLINK].rmdir, FSLAB_FILES_MAX / FSLAB_FILES_PER_DIR);
}
END_TEST

START_TEST(fdatasync_flushes_each_file)
{
	struct frun f = { .file = 1 << 20, .rec = 1 << 20, .tests = T(CREATE),
			  .cache = FSLAB_CACHE_WARM, .sync = FSLAB_FILE_SYNC_FDATASYNC };

	run_files(&f);
	assert_ok(&f, FSLAB_TEST_FILES_CREATE);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].fdatasync, 64);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].fsync, 0);
	ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_FILE_SYNC, FSLAB_FILE_SYNC_FDATASYNC), "fdatasync");
}
END_TEST

/* files_read alone: the tree is written first, untimed; in cold mode the
 * whole tree is dropped once, after it is written and before the reads. */
START_TEST(read_alone_writes_the_tree_untimed_and_drops_it_cold)
{
	struct frun f = { .file = 1 << 20, .rec = 256 * 1024, .tests = T(READ),
			  .cache = FSLAB_CACHE_COLD, .sync = FSLAB_FILE_SYNC_FSYNC };

	run_files(&f);
	assert_ok(&f, FSLAB_TEST_FILES_READ);
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_READ].create, 64);
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_READ].write, 64 * 4);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].write + f.timed[FSLAB_TEST_FILES_READ].create, 0);
	ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_READ].read, 64 * 4);
	ck_assert_uint_eq(R.drops, 1);
	ck_assert_str_eq(R.drop_name, FSLAB_FILES_TREE);
}
END_TEST

/* A write that fails fails files_create, naming the file and the error;
 * stat writes the tree again (untimed) and runs; nothing is left. */
START_TEST(failed_write_names_the_file)
{
	struct frun f = { .file = 256 * 1024, .rec = 256 * 1024, .tests = T(CREATE) | T(STAT),
			  .cache = FSLAB_CACHE_WARM, .sync = FSLAB_FILE_SYNC_NONE };

	R.write_fail = 11; /* file 10 */
	run_files(&f);
	ck_assert_int_eq(f.out[FSLAB_TEST_FILES_CREATE].status, FSLAB_OUTCOME_FAILED);
	ck_assert_msg(strstr(f.out[FSLAB_TEST_FILES_CREATE].reason, "FILES.TRE/D000/F00010") &&
			      strstr(f.out[FSLAB_TEST_FILES_CREATE].reason, strerror(ENOSPC)),
		      "reason: %s", f.out[FSLAB_TEST_FILES_CREATE].reason);
	assert_ok(&f, FSLAB_TEST_FILES_STAT);
	ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_STAT].create, 256);
}
END_TEST

START_TEST(refused_direct_is_skipped)
{
	struct frun f = { .file = 1 << 20, .rec = 1 << 20, .tests = ALL_FILES,
			  .cache = FSLAB_CACHE_DIRECT, .sync = FSLAB_FILE_SYNC_FSYNC };

	R.refuse_direct = true;
	run_files(&f);
	for (int t = FSLAB_TEST_FILES_CREATE; t <= FSLAB_TEST_FILES_UNLINK; t++)
		ck_assert_msg(f.out[t].status == FSLAB_OUTCOME_SKIPPED && strstr(f.out[t].reason, "O_DIRECT"),
			      "%s: %d %s", fslab_test_to_string((enum fslab_test)t), f.out[t].status,
			      f.out[t].reason);
}
END_TEST

/* fslab run --tests files on FAT32 through fusefat: every file size's four
 * rows ok (flagged fuse), files/s in the iops column, nothing left. */
START_TEST(fat32_through_fusefat)
{
	char img[1100], mnt[1100], out[1100], arg[1200], csv[1200];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	unsigned rows = 0;

	ft_require_root();
	snprintf(img, sizeof(img), "%s/fat.img", dir);
	snprintf(mnt, sizeof(mnt), "%s/fat", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ft_fusefat_mount(img, "200M", mnt);
	snprintf(arg, sizeof(arg), "fat=%s", mnt);
	ft_fslab_then_umount(mnt, mnt, "run", "--dir", arg, "--out", out, "--tests", "files",
			     "--file-sizes", "256K-4M", "--cache", "cold", "--trials", "1", "--stop", "fixed",
			     "--no-device-probe", "--quiet", NULL);
	snprintf(csv, sizeof(csv), "%s/fat.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_msg(strcmp(row.status, "ok") == 0, "%s %llu: %s", fslab_test_to_string(row.test),
			      (unsigned long long)row.file_kib, row.status);
		ck_assert(fslab_test_family(row.test) == FSLAB_FAMILY_FILES);
		ck_assert_msg(strstr(row.flag, "fuse"), "flag %s", row.flag);
		ck_assert(row.iops > 0);
		rows++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(rows, 5 * 4); /* 256K, 512K, 1M, 2M, 4M */
}
END_TEST

/* A later trial's many-files pass is compared with the earlier trials as
 * its row counts it (the files' bytes), so an ordinary pass is not taken
 * for a disturbed one: comparing one file's bytes against the rows'
 * figures once called every pass of trial 2 on 10x too slow and ran each
 * again three times (flagged redone-slow).  A real disturbance may still
 * redo one; not most. */
START_TEST(later_trials_are_not_called_disturbed)
{
	char out[1100], arg[1200], csv[1200];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct ft_output o;
	unsigned later = 0, redone = 0;

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(arg, sizeof(arg), "here=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--tests", "files", "--file-sizes",
				  "64K-128K", "--cache", "warm", "--trials", "3", "--stop", "fixed",
				  "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/here.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_msg(strcmp(row.status, "ok") == 0, "%s: %s", fslab_test_to_string(row.test), row.status);
		if (row.trial < 2)
			continue;
		later++;
		redone += strstr(row.flag, "redone-slow") != NULL;
	}
	fslab_results_close(rd);
	ft_rm_rf(out); /* the directory holds only what each test makes */
	ck_assert_uint_eq(later, 2 * 4 * 2); /* trials 2-3 x 4 tests x 64K, 128K */
	ck_assert_msg(redone * 2 < later, "%u of %u later passes were called disturbed and redone", redone, later);
}
END_TEST

/* A FUSE mount's cells keep the tree's directories: the first cell makes
 * FILES.TRE and D000 and removes neither, its unlink going from the last
 * file back (fusefat then marks the entries as the directory's end); the
 * next one's mkdirs find them (EEXIST) and its four tests are ok; what
 * stays is the two directories, empty. */
START_TEST(kept_directories_serve_the_next_cell)
{
	struct frun f = { .file = 256 * 1024, .rec = 64 * 1024, .tests = ALL_FILES,
			  .cache = FSLAB_CACHE_WARM, .sync = FSLAB_FILE_SYNC_NONE, .keep = true };
	char path[1100];

	for (int cell = 0; cell < 2; cell++) {
		run_files(&f);
		for (int t = FSLAB_TEST_FILES_CREATE; t <= FSLAB_TEST_FILES_UNLINK; t++)
			assert_ok(&f, (enum fslab_test)t);
		ck_assert_uint_eq(f.untimed[FSLAB_TEST_FILES_CREATE].mkdir, 1);
		ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].mkdir, 1);
		ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_CREATE].create, 256);
		ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_UNLINK].unlink, 256);
		ck_assert_uint_eq(f.timed[FSLAB_TEST_FILES_UNLINK].rmdir + f.untimed[FSLAB_TEST_FILES_UNLINK].rmdir,
				  0);
		ck_assert_uint_eq(R.rmdir_seen, 0);
		ck_assert_str_eq(R.first_unlink, "F00255");
		R.first_unlink[0] = '\0';
	}
	snprintf(path, sizeof(path), "%s/FILES.TRE", dir);
	ck_assert_int_eq(ft_dir_entries(path), 1);
	snprintf(path, sizeof(path), "%s/FILES.TRE/D000", dir);
	ck_assert_int_eq(ft_dir_entries(path), 0);
	ck_assert_int_eq(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/FILES.TRE", dir);
	ck_assert_int_eq(rmdir(path), 0);
}
END_TEST

/* fusefat reads no directory that lies 2 GiB or more into its partition,
 * and hands out clusters upwards from its mount on (bench/engine/files.c).  Its
 * allocator set 32 MiB short of 2 GiB, as after that much was written
 * since the mount: the first trial's 16 files of 4 MiB cross it, so the
 * second trial's tree, made afresh, would land past it (mkdir D000:
 * EPERM).  Both trials' four rows are ok: the directories made in the
 * first trial are kept; nothing is left. */
START_TEST(fusefat_tree_past_2g)
{
	char img[1100], mnt[1100], out[1100], arg[1200], csv[1200];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	unsigned rows = 0;

	ft_require_root();
	snprintf(img, sizeof(img), "%s/fat3g.img", dir);
	snprintf(mnt, sizeof(mnt), "%s/fat3g", dir);
	snprintf(out, sizeof(out), "%s/out3g", dir);
	ft_fusefat_mount_at(img, "3G", mnt, (UINT64_C(2048) - 32) << 20);
	snprintf(arg, sizeof(arg), "fat=%s", mnt);
	ft_fslab_then_umount(mnt, mnt, "run", "--dir", arg, "--out", out, "--tests", "files",
			     "--file-sizes", "4M", "--record-sizes", "4M", "--cache", "warm", "--trials", "2",
			     "--stop", "fixed", "--no-device-probe", "--quiet", NULL);
	unlink(img);
	snprintf(csv, sizeof(csv), "%s/fat.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_msg(strcmp(row.status, "ok") == 0, "%s trial %u: %s", fslab_test_to_string(row.test),
			      row.trial, row.status);
		rows++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(rows, 2 * 4);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_files");
	TCase *tc = ft_tcase(s, "files", 0);
	TCase *fuse = ft_tcase(s, "files_fuse", FT_ROOT | FT_FUSE | FT_MKFS_ALL);

	for (TCase **t = (TCase *[]){ tc, fuse, NULL }; *t; t++) {
		tcase_set_timeout(*t, 120);
		tcase_add_unchecked_fixture(*t, setup, teardown);
		tcase_add_checked_fixture(*t, reset, NULL);
	}
	tcase_add_test(tc, phases_make_their_calls_in_the_timer);
	tcase_add_test(tc, small_files_fill_directories_of_256);
	tcase_add_test(tc, fdatasync_flushes_each_file);
	tcase_add_test(tc, later_trials_are_not_called_disturbed);
	tcase_add_test(tc, read_alone_writes_the_tree_untimed_and_drops_it_cold);
	tcase_add_test(tc, failed_write_names_the_file);
	tcase_add_test(tc, refused_direct_is_skipped);
	tcase_add_test(tc, kept_directories_serve_the_next_cell);
	tcase_add_test(fuse, fat32_through_fusefat);
	tcase_add_test(fuse, fusefat_tree_past_2g);
	return ft_suite_run(s, argc, argv);
}
