/* Small file helpers shared by every module. */
#ifndef FSLAB_FILEUTIL_H
#define FSLAB_FILEUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Writes data to path atomically: a temporary file in the same directory
 * (created O_EXCL, mode `mode`), fsync, rename over path, fsync of the
 * directory.  Returns 0 or a negative errno; on failure path is unchanged
 * and no temporary file is left. */
int fslab_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* Reads a whole (small) file into a NUL-terminated malloc'd buffer.
 * Returns 0 or a negative errno; limit guards against reading huge files. */
int fslab_read_file(const char *path, char **data, size_t *len, size_t limit);

/* mkdir -p with mode for the directories it creates.  Returns 0 or a
 * negative errno. */
int fslab_mkdir_p(const char *path, mode_t mode);

/* 0 when the directory of path exists and is writable by us, else a negative
 * errno (the message names the directory). */
int fslab_check_parent_writable(const char *path, char *dir, size_t dirlen);

#endif
