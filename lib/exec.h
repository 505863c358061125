/* Running external programs (mkfs, fusefat, gnuplot): posix_spawn with an
 * argv array, never a shell; everything the child gets is prepared before
 * it exists, so no code of fslab's runs between fork and exec and calls
 * from several threads are safe.  The child's stdout and stderr are
 * appended to a log file; the tail of stderr is kept so a failure can be
 * shown to the user.  A child that cannot enter its directory or execute
 * its program exits 127, saying why ("cannot change to DIR: ...",
 * "cannot execute PROG: ...") in the tail and the log. */
#ifndef FSLAB_EXEC_H
#define FSLAB_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fslab_exec_result {
	int exit_status;   /* exit code; 128 + signal number if killed */
	char stderr_tail[1024]; /* last bytes the child wrote to stderr */
};

/* Looks name up in $PATH, then /usr/sbin and /sbin (mkfs lives there and
 * sudo'd PATHs often lack it).  A name with a '/' is taken as it is.
 * Returns 0 and the full path of an executable regular file, or -ENOENT. */
int fslab_exec_find(const char *name, char *path, size_t len);

/* The lab's tools (mkfs.*, fusefat): as fslab_exec_find, except that when
 * $FSLAB_TOOL_PATH is set (tests, unusual installs) only its
 * colon-separated directories are searched. */
int fslab_exec_find_tool(const char *name, char *path, size_t len);

/* Runs argv[0] (a full path, or a name looked up with fslab_exec_find) with
 * argv, stdin from /dev/null, stdout+stderr appended to log_path (NULL: not
 * logged; a symbolic link there is refused, not followed), in the working
 * directory cwd (NULL: inherited; mkfs runs in "/", so that no word of its
 * argv can name a device relative to the directory fslab was started from,
 * a bare "loop4" given while in /dev).  timeout_s > 0 kills the child
 * (SIGKILL) after that many seconds.  Returns 0 when the child ran
 * (whatever its exit status, see res), or a negative errno when it could
 * not be started. */
int fslab_exec_run_in(const char *const argv[], const char *cwd, const char *log_path,
		      int timeout_s, struct fslab_exec_result *res);

/* Everything fslab_exec_run_in does, and more, for callers that must be
 * able to find and stop the child later (setup's mkfs). */
struct fslab_exec_opts {
	const char *cwd;        /* NULL: inherited */
	int log_fd;             /* >= 0: append output here (log_path ignored); -1: none */
	const char *log_path;   /* opened O_APPEND | O_NOFOLLOW, created 0600; or NULL */
	int timeout_s;          /* > 0: SIGKILL (the whole group if new_pgrp) after that */
	bool new_pgrp;          /* the child leads its own process group (pgid = pid) */
	const char *const *env; /* "NAME=VALUE" words added to the child's environment */
	/* Called in the parent once the child exists (before waiting). */
	void (*started)(void *ctx, pid_t pid);
	void *ctx;
};

/* Runs argv as o says.  Returns as fslab_exec_run_in. */
int fslab_exec_run_opts(const char *const argv[], const struct fslab_exec_opts *o,
			struct fslab_exec_result *res);

/* Runs "prog arg" (a tool's version option) for at most 10 s and writes
 * the first line of its output that names a version (holds a digit) to
 * buf; "" when the tool cannot be run or says no version. */
void fslab_exec_version(const char *prog, const char *arg, char *buf, size_t len);

/* Formats argv as a readable command line ("mkfs.ext4 -q /dev/loop0p1") for
 * plans and messages.  Words with spaces or quotes are single-quoted. */
char *fslab_exec_format(const char *const argv[], char *buf, size_t len);

#endif
