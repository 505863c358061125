/* What report, import and export may write over.
 *
 * fslab runs as root; an output path is a name a user typed, and what stands
 * there may be the results just read or the lab's state file.  Before an
 * output file is replaced, its identity (st_dev, st_ino, of the name itself
 * and of what a symlink there points to) is compared with every input and
 * with the state file paths, and a file the state loader accepts is never an
 * output.  The write itself is an atomic rename relative to a directory fd,
 * so it replaces the name and never writes through it. */
#include "err.h"
#include "outputs.h"
#include "procfs.h"
#include "state.h"
#include "termtext.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ou_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Does the file at lst (and st, what a symlink there leads to, when
 * have_st) have the identity of path? */
static bool ou_is(const char *path, const struct stat *lst, const struct stat *st, bool have_st)
{
	struct stat ps;

	if (!path || !*path || stat(path, &ps) < 0)
		return false;
	return ou_same(&ps, lst) || (have_st && ou_same(&ps, st));
}

/* The directory of the lab locks (provision/lab.c: LABID.lock, .run,
 * .mount). */
#define OU_LAB_LOCK_DIR "/run/fslab"

/* Some process holds a lock (flock, POSIX or OFD) on the file st: its pid,
 * -1 when the kernel names none, else 0. */
static int ou_locked_by(const struct stat *st)
{
	pid_t pid = 0;

	if (fslab_proc_lock_holder(st->st_dev, st->st_ino, FSLAB_PROC_LOCK_ANY, 0, &pid) != 1)
		return 0;
	return pid > 0 ? pid : -1;
}

/* A lab's lock, lease and log files are no output, not even with --force:
 * the atomic replacement renames a new file over the name, and a lock
 * whose inode is swapped silently stops protecting the lab.  Refused: a
 * live lock file (lst, wherever it is); and NAME.lock, NAME.run,
 * NAME.mount and NAME.log beside a state file NAME. */
static int ou_lab_file(int dfd, const char *name, const struct stat *lst, const char *e1,
		       struct fslab_err *e)
{
	static const char *const suffixes[] = { ".lock", ".run", ".mount", ".log" };
	size_t nl = strlen(name);
	int pid;

	if (S_ISREG(lst->st_mode) && (pid = ou_locked_by(lst)) != 0) {
		char who[32] = "another process";
		if (pid > 0)
			snprintf(who, sizeof(who), "pid %d", pid);
		return fslab_err_set(e, EBUSY, "%s is a lock file in use (%s holds a lock on it); replacing it would silently break that lock, so fslab refuses, even with --force; choose another output",
				     e1, who);
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);
		char base[NAME_MAX + 1];
		struct fslab_state *st;
		int r;

		if (nl <= sl || strcmp(name + nl - sl, suffixes[i]) != 0 || nl - sl >= sizeof(base))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(nl - sl), name);
		st = malloc(sizeof(*st));
		if (!st)
			return fslab_err_set(e, ENOMEM, "out of memory: %s", strerror(ENOMEM));
		r = fslab_state_load_at(dfd, base, base, st, NULL);
		free(st);
		if (r == 0) {
			char e2[NAME_MAX * 4 + 8];
			return fslab_err_set(e, EPERM, "%s is the %s file of the lab whose state file is %s beside it; fslab never writes an output over a lab's lock, lease or log, not even with --force; choose another output",
					     e1, suffixes[i] + 1, fslab_escape_ctrl(base, e2, sizeof(e2)));
		}
	}
	return 0;
}

int rp_output_check(int dfd, const char *name, const char *shown, const char *input, bool force,
		    struct fslab_err *e)
{
	char e1[PATH_MAX * 4 + 8], e2[PATH_MAX * 4 + 8];
	struct stat lst, st, ds, ls;
	bool have_st;
	int r;

	fslab_escape_ctrl(shown, e1, sizeof(e1));
	if (fstat(dfd, &ds) == 0 && stat(OU_LAB_LOCK_DIR, &ls) == 0 && ou_same(&ds, &ls))
		return fslab_err_set(e, EPERM, "%s is in %s, where the labs' lock files live; fslab never writes an output there, not even with --force; choose another output",
				     e1, OU_LAB_LOCK_DIR);
	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		int er = errno;

		if (er == ENOENT)
			return 0;
		return fslab_err_set(e, er, "%s: cannot check the output: %s: %s", e1, strerror(er),
				     strerror(er));
	}
	if ((r = ou_lab_file(dfd, name, &lst, e1, e)) < 0)
		return r;
	have_st = fstatat(dfd, name, &st, 0) == 0;
	if (ou_is(input, &lst, &st, have_st))
		return fslab_err_set(e, EEXIST, "%s is the input %s: fslab never writes over what it reads, not even with --force; choose another output file",
				     e1, fslab_escape_ctrl(input, e2, sizeof(e2)));
	const char *states[] = { fslab_state_default_path(), FSLAB_STATE_DEFAULT_PATH };
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (ou_is(states[i], &lst, &st, have_st))
			return fslab_err_set(e, EEXIST, "%s is the lab's state file %s: fslab never writes results over it, not even with --force; choose another output file",
					     e1, fslab_escape_ctrl(states[i], e2, sizeof(e2)));
	if (have_st && S_ISREG(st.st_mode)) {
		struct fslab_state *s = malloc(sizeof(*s));

		if (!s)
			return fslab_err_set(e, ENOMEM, "out of memory: %s", strerror(ENOMEM));
		r = fslab_state_load(shown, s, NULL);
		free(s);
		if (r == 0)
			return fslab_err_set(e, EEXIST, "%s is an fslab state file: fslab never writes results over one, not even with --force; choose another output file",
					     e1);
	}
	if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
		return fslab_err_set(e, EEXIST, "%s exists and is not a regular file; choose another output file", e1);
	if (!force)
		return fslab_err_set(e, EEXIST, "%s exists; use --force to replace it, or choose another output file", e1);
	return 0;
}

int rp_split_path(const char *path, char *dir, size_t dirlen, char *base, size_t baselen)
{
	size_t l = strlen(path), s;

	while (l > 1 && path[l - 1] == '/')
		l--;
	s = l;
	while (s > 0 && path[s - 1] != '/')
		s--;
	if (l == s || (l - s == 1 && path[s] == '.') ||
	    (l - s == 2 && path[s] == '.' && path[s + 1] == '.') || (l - s == 1 && path[s] == '/'))
		return -EISDIR;
	if (snprintf(base, baselen, "%.*s", (int)(l - s), path + s) >= (int)baselen)
		return -ENAMETOOLONG;
	if (s == 0)
		snprintf(dir, dirlen, ".");
	else if (s == 1)
		snprintf(dir, dirlen, "/");
	else if (snprintf(dir, dirlen, "%.*s", (int)(s - 1), path) >= (int)dirlen)
		return -ENAMETOOLONG;
	return 0;
}
