/* Small file helpers shared by every module. */
#ifndef FSLAB_FILEUTIL_H
#define FSLAB_FILEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* Writes data to path atomically: a temporary file in the same directory
 * (created O_EXCL, mode `mode`), fsync, rename over path, fsync of the
 * directory.  Returns 0 or a negative errno; on failure path is unchanged
 * and no temporary file is left. */
int fslab_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* The words for an error of fslab_read_file (a FIFO, a directory, the
 * size cap), strerror for the rest. */
const char *fslab_input_strerror(int r);

/* The one reader of a file fslab reads by a name it was given (a spec, a
 * sweep file, an IOzone report, the state, a /proc or /sys file): opened
 * read-only without blocking (a FIFO cannot hang the open), refused unless
 * fstat says it is a regular file (-EINVAL; a directory -EISDIR), read
 * whole into a NUL-terminated malloc'd buffer.  Returns 0 or a negative
 * errno; more than limit bytes give -EFBIG (the size cap). */
int fslab_read_file(const char *path, char **data, size_t *len, size_t limit);

/* mkdir -p with mode for the directories it creates.  Returns 0 or a
 * negative errno. */
int fslab_mkdir_p(const char *path, mode_t mode);

/* 0 when the directory of path exists and is writable by us, else a negative
 * errno (the message names the directory). */
int fslab_check_parent_writable(const char *path, char *dir, size_t dirlen);

/* fslab's root-only runtime directory: the lab locks, the registry of
 * scratch directories on filesystems without extended attributes. */
#define FSLAB_RUNTIME_DIR "/run/fslab"

/* FSLAB_RUNTIME_DIR, made 0700 when missing: an O_DIRECTORY fd on a
 * directory of ours that no one else can write, or a negative errno
 * (-EPERM when it is someone else's or writable by others). */
int fslab_runtime_dir_open(void);

/* May root trust what is at path (an existing file or directory) not to
 * be changed or swapped by another user?  The real path (symlinks
 * resolved, written to real) and each directory above it must be owned
 * by root or by us, each directory writable by no one else unless it is
 * sticky (others can then add names, not rename or remove ours), and the
 * object itself owned by root or us and writable by no one else.  0, or
 * -EPERM with e naming the first place another user controls (or
 * another negative errno from realpath/lstat). */
int fslab_path_trusted(const char *path, char *real, size_t reallen, struct fslab_err *e);

/* The default results directory of fslab run and fslab reproduce is
 * results/<name> in the working directory, made with fslab_mkdir_p; root
 * must not make it through a `results` link or directory another user
 * controls.  Call once before making it (made false: `results` if it
 * exists, else the working directory, must be trusted) and once after
 * (made true: `results`).  0, or -EPERM (or another negative errno) with e
 * naming the place another user controls and the fix. */
int fslab_default_results_trusted(bool made, struct fslab_err *e);

/* ---- Trust: acting only on what fslab proves is its own ----
 *
 * fslab runs as root in directories other users may write to.  Every file it
 * creates, replaces or removes is reached relative to a directory fd it holds,
 * with O_NOFOLLOW, and new files with O_EXCL: a planted symlink or a file
 * swapped in between a check and its use makes the call fail, never act on
 * something else.  What fslab must undo later is recorded by identity. */

/* The identity of a file: what fslab records when it makes something, and
 * compares before it undoes it. */
struct fslab_file_id {
	dev_t dev;
	ino_t ino;
};

/* Fills id from an open fd.  Returns 0 or a negative errno. */
int fslab_file_id_of_fd(int fd, struct fslab_file_id *id);
bool fslab_file_id_equal(const struct fslab_file_id *a, const struct fslab_file_id *b);

/* Opens the directory at path (O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC): a
 * symlink as the last component is refused (-ELOOP or -ENOTDIR).  Returns the
 * fd or a negative errno. */
int fslab_dir_open(const char *path);

/* Creates name in dfd with O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags
 * and exactly `mode` (fchmod, so the umask cannot widen or narrow it): fails
 * with -EEXIST when anything, a symlink included, is already there.  name
 * must be a single path component.  Returns the fd or a negative errno. */
int fslab_create_at(int dfd, const char *name, int flags, mode_t mode);

/* Opens an existing regular file name in dfd with O_NOFOLLOW | O_CLOEXEC |
 * flags (never O_CREAT or O_TRUNC).  A symlink gives -ELOOP, anything but a
 * regular file -EINVAL; the file is not changed by the open.  Returns the fd
 * or a negative errno. */
int fslab_open_regular_at(int dfd, const char *name, int flags);

/* Atomic replacement relative to dfd: writes data to a new temporary file
 * (created O_EXCL | O_NOFOLLOW, mode `mode`), fsyncs it, renames it over
 * name, fsyncs dfd.  name must be a single path component.  Whatever stood at
 * name (a symlink included) is replaced, never written through.  Returns 0 or
 * a negative errno; on failure name is unchanged and no temporary is left. */
int fslab_write_file_atomic_at(int dfd, const char *name, const void *data, size_t len,
			       mode_t mode);

/* fslab_write_file_atomic_at flags. */
enum {
	/* Atomic (temporary file + rename: never a torn file) but without
	 * the fsyncs: survives a killed process, not a machine crash.  For
	 * frequent intermediate saves (the lab state during setup). */
	FSLAB_WRITE_NOSYNC = 1 << 0,
};

/* fslab_write_file_atomic_at with flags (0: the same). */
int fslab_write_file_atomic_flags_at(int dfd, const char *name, const void *data, size_t len,
				     mode_t mode, unsigned flags);

/* Reads the rest of the open file fd into a NUL-terminated malloc'd
 * buffer, as fslab_read_file does (limit, -EFBIG); fd stays open.
 * Returns 0 or a negative errno. */
int fslab_read_fd(int fd, char **data, size_t *len, size_t limit);

/* Opens name in dfd (single component) for a file fslab keeps beside its
 * state (a lock, a log): created with mode when missing, never through a
 * symbolic link (O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK added to flags), and
 * refused (-EINVAL, closed) unless it is a regular file with one link
 * owned by the caller.  Returns the fd or a negative errno. */
int fslab_open_own_at(int dfd, const char *name, int flags, mode_t mode);

/* Makes a new private directory inside dfd named "<prefix>XXXXXX" (mkdtemp's
 * rules: unique, mode 0700 - or the filesystem's own where it has no
 * permissions to set, e.g. fusefat - never an existing one), writes its name into
 * name (namelen bytes) and returns an O_DIRECTORY fd on it, or a negative
 * errno. */
int fslab_mkdtemp_at(int dfd, const char *prefix, char *name, size_t namelen);

/* Removes the directory name in dfd and everything in it, without following
 * any symlink (a symlink inside is unlinked, never its target) and without
 * crossing into another filesystem.  When expect is not NULL, the directory
 * must still have that identity, else nothing is removed and -ESTALE is
 * returned.  Returns 0 or a negative errno (-ENOENT when name is gone). */
int fslab_remove_tree_at(int dfd, const char *name, const struct fslab_file_id *expect);

#endif
