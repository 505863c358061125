/* The run's private directory in each directory under test: made after
 * leftovers of killed runs are cleared, closed and checked again around a
 * cold-mode remount, removed by identity at the end. */
#include "run_int.h"

#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* The registry (the user's own, 0700): the fd, or a negative errno. */
static int run_registry_open(bool create)
{
	const char *t = FSLAB_WORKDIR_REGISTRY_TOP;
	struct stat sb;
	int top = !geteuid() ? fslab_runtime_dir_open() : t ? fslab_dir_open(t) : -ENOENT, fd;

	if (top < 0)
		return top;
	if (create && mkdirat(top, FSLAB_WORKDIR_REGISTRY, 0700) < 0 && errno != EEXIST) {
		fd = -errno;
		close(top);
		return fd;
	}
	fd = openat(top, FSLAB_WORKDIR_REGISTRY, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(top);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || sb.st_uid != geteuid() || (sb.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Is name in the registry (a regular file of ours there)?  Unregistered
 * with unlink when it is and drop. */
static bool run_registry_has(const char *name, bool drop)
{
	int rfd = run_registry_open(false), fd;
	bool has = false;

	if (rfd < 0)
		return false;
	fd = fslab_open_regular_at(rfd, name, O_RDONLY);
	if (fd >= 0) {
		struct stat sb;

		has = fstat(fd, &sb) == 0 && sb.st_uid == geteuid() && sb.st_nlink == 1;
		close(fd);
		if (has && drop)
			unlinkat(rfd, name, 0);
	}
	close(rfd);
	return has;
}

/* Marks the new scratch directory as fslab's: the xattr, or where the
 * filesystem has none the registry.  0 or a negative errno. */
static int run_workdir_mark(struct fslab_bench_fs *fs, const char *run_id)
{
	const char *id = run_id && run_id[0] ? run_id : "estimate";
	int rfd, r;

	if (fsetxattr(fs->work_fd, FSLAB_WORKDIR_MARK, id, strlen(id), XATTR_CREATE) == 0)
		return 0;
	if (errno != ENOTSUP && errno != ENOSYS)
		return -errno;
	rfd = run_registry_open(true);
	if (rfd < 0)
		return rfd;
	r = fslab_write_file_atomic_flags_at(rfd, fs->work_name, id, strlen(id), 0600,
					     FSLAB_WRITE_NOSYNC);
	close(rfd);
	if (r == 0)
		fs->work_registered = true;
	return r;
}

/* Removes private directories that earlier, killed runs left in the
 * directory under test.  Only a directory that is provably such a leftover
 * goes: fslab's name, a directory (not a symlink) on the same filesystem,
 * owned by the user fslab runs as (root, as a rule) with mode 0700 (so no
 * other user made it or could have put anything in it), and not flock'ed
 * (a live run holds its own).  Anything else is left alone. */
static void run_remove_stale_workdirs(struct fslab_bench_fs *fs)
{
	struct stat dst;
	DIR *d;
	struct dirent *e;
	int dup_fd;

	if (fstat(fs->dir_fd, &dst) < 0)
		return;
	dup_fd = fcntl(fs->dir_fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return;
	}
	while ((e = readdir(d))) {
		char mark[FSLAB_RUN_ID_LEN + 8];
		struct fslab_file_id id;
		struct stat st;
		ssize_t n;
		int fd, r;

		if (strncmp(e->d_name, FSLAB_WORKDIR_PREFIX, strlen(FSLAB_WORKDIR_PREFIX)) != 0)
			continue;
		fd = openat(fs->dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || st.st_dev != dst.st_dev || st.st_uid != geteuid() ||
		    (st.st_mode & 07777) != 0700 || flock(fd, LOCK_EX | LOCK_NB) < 0 ||
		    fslab_file_id_of_fd(fd, &id) < 0) {
			fslab_debug(FSLAB_DBG_BENCH, "%s/%s: not a leftover of a killed run (owner, mode or a live run's lock): left alone",
				    fslab_esc(fs->rec.path), fslab_esc(e->d_name));
			close(fd);
			continue;
		}
		/* fslab's mark, or where the filesystem has no xattrs the registry */
		n = fgetxattr(fd, FSLAB_WORKDIR_MARK, mark, sizeof(mark) - 1);
		if (n <= 0 && !(n < 0 && (errno == ENOTSUP || errno == ENOSYS) && run_registry_has(e->d_name, false))) {
			fslab_debug(FSLAB_DBG_BENCH, "%s/%s: has fslab's name but not its mark (%s): left alone",
				    fslab_esc(fs->rec.path), fslab_esc(e->d_name), FSLAB_WORKDIR_MARK);
			close(fd);
			continue;
		}
		r = fslab_remove_tree_at(fs->dir_fd, e->d_name, &id);
		if (r == 0)
			run_registry_has(e->d_name, true);
		if (r < 0)
			fslab_note_warn("%s/%s: cannot remove what a killed run left: %s", fslab_esc(fs->rec.path),
				   fslab_esc(e->d_name), strerror(-r));
		else
			fslab_debug(FSLAB_DBG_BENCH, "removed %s/%s, left by a killed run",
				    fslab_esc(fs->rec.path), e->d_name);
		close(fd);
	}
	closedir(d);
}

/* Opens the directory under test and makes the run's private directory in
 * it (after removing leftovers of killed runs). */
int run_workdir_create(struct fslab_bench_fs *fs, const char *run_id)
{
	struct stat st;
	int r;

	fs->dir_fd = open(fs->rec.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->dir_fd < 0)
		return run_note_errno(errno, "%s: cannot open %s", fs->rec.name, fslab_esc(fs->rec.path));
	if (fstat(fs->dir_fd, &st) < 0 || st.st_dev != fs->dev) {
		fslab_note(FSLAB_NOTE_ERROR, "%s: %s changed while the run started (another filesystem is there now)",
			    fs->rec.name, fslab_esc(fs->rec.path));
		return -ESTALE;
	}
	run_remove_stale_workdirs(fs);
	r = fslab_mkdtemp_at(fs->dir_fd, FSLAB_WORKDIR_PREFIX, fs->work_name, sizeof(fs->work_name));
	if (r < 0)
		return run_note_errno(r, "%s: cannot make a private directory for the test files in %s",
					 fs->rec.name, fslab_esc(fs->rec.path));
	fs->work_fd = r;
	r = fslab_file_id_of_fd(fs->work_fd, &fs->work_id);
	if (r < 0)
		return run_note_errno(r, "%s: %s/%s", fs->rec.name, fslab_esc(fs->rec.path), fs->work_name);
	r = run_workdir_mark(fs, run_id);
	if (r < 0) {
		fslab_remove_tree_at(fs->dir_fd, fs->work_name, &fs->work_id);
		return run_note_errno(r, "%s: cannot mark %s/%s as fslab's (%s, or the registry %s/%s)",
					 fs->rec.name, fslab_esc(fs->rec.path), fs->work_name, FSLAB_WORKDIR_MARK,
					 FSLAB_WORKDIR_REGISTRY_TOP ? FSLAB_WORKDIR_REGISTRY_TOP : "$XDG_RUNTIME_DIR (unset)",
					 FSLAB_WORKDIR_REGISTRY);
	}
	/* The lock only tells another run's leftover sweep that this
	 * directory is alive; where the filesystem has no flock, that sweep
	 * cannot take it either and leaves it alone. */
	if (flock(fs->work_fd, LOCK_EX | LOCK_NB) < 0)
		fslab_debug(FSLAB_DBG_BENCH, "%s: no flock on %s/%s: %s", fs->rec.name, fslab_esc(fs->rec.path),
			    fs->work_name, strerror(errno));
	return 0;
}

/* Removes the private directory: only while it still is the one this run
 * made (its recorded identity), never through a symlink. */
void run_workdir_remove(struct fslab_bench_fs *fs)
{
	if (fs->dir_fd >= 0 && fs->work_name[0] && fs->work_fd >= 0) {
		int r = fslab_remove_tree_at(fs->dir_fd, fs->work_name, &fs->work_id);
		if (r < 0 && r != -ENOENT && !fs->rec.vanished)
			fslab_note_warn("%s: cannot remove the run's directory %s/%s: %s", fs->rec.name,
				   fslab_esc(fs->rec.path), fs->work_name, strerror(-r));
		if (r == 0 && fs->work_registered)
			run_registry_has(fs->work_name, true);
		fs->work_registered = false;
	}
	run_workdir_release(fs);
}

/* Cold mode's remount: the unmount needs the run's directories closed ... */
void run_workdir_release(void *ctx)
{
	struct fslab_bench_fs *fs = ctx;

	if (fs->work_fd >= 0)
		close(fs->work_fd);
	if (fs->dir_fd >= 0)
		close(fs->dir_fd);
	fs->work_fd = fs->dir_fd = -1;
}

/* ... and after the mount they are opened again: the private directory
 * must be the same directory (inode; a FUSE mount renumbers, so there only
 * owner and mode), else the run stops using it. */
int run_workdir_reopen(void *ctx, int *dir_fd, struct fslab_err *e)
{
	struct fslab_bench_fs *fs = ctx;
	struct stat st;
	int r;

	fs->dir_fd = open(fs->rec.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fs->work_fd = fs->dir_fd < 0 ? -1
				     : openat(fs->dir_fd, fs->work_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fs->work_fd < 0 || fstat(fs->work_fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (st.st_uid != geteuid() || (!fs->rec.fuse && st.st_ino != fs->work_id.ino)) {
		r = -ESTALE;
		goto fail;
	}
	fs->work_id.dev = st.st_dev;
	fs->work_id.ino = st.st_ino;
	flock(fs->work_fd, LOCK_EX | LOCK_NB);
	*dir_fd = fs->work_fd;
	return 0;
fail:
	fslab_err_set(e, r, "cold mode: after the remount, the run's directory %s is not the one it made: %s",
		      fs->work_name, strerror(-r));
	run_workdir_release(fs);
	*dir_fd = -1;
	return r;
}
