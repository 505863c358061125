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
#include "state.h"
#include "termtext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int rp_output_check(int dfd, const char *name, const char *shown, const char *const *inputs,
		    size_t n_inputs, bool force, struct fslab_err *e)
{
	char e1[PATH_MAX * 4 + 8], e2[PATH_MAX * 4 + 8];
	struct stat lst, st;
	bool have_st;

	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		int er = errno;

		if (er == ENOENT)
			return 0;
		return fslab_err_set(e, er, "%s: cannot check the output: %s: %s",
				     fslab_escape_ctrl(shown, e1, sizeof(e1)), strerror(er), strerror(er));
	}
	have_st = fstatat(dfd, name, &st, 0) == 0;
	for (size_t i = 0; i < n_inputs; i++)
		if (ou_is(inputs[i], &lst, &st, have_st))
			return fslab_err_set(e, EEXIST, "%s is the input %s: fslab never writes over what it reads, not even with --force; choose another output file",
					     fslab_escape_ctrl(shown, e1, sizeof(e1)), fslab_escape_ctrl(inputs[i], e2, sizeof(e2)));
	const char *states[] = { fslab_state_default_path(), FSLAB_STATE_DEFAULT_PATH };
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (ou_is(states[i], &lst, &st, have_st))
			return fslab_err_set(e, EEXIST, "%s is the lab's state file %s: fslab never writes results over it, not even with --force; choose another output file",
					     fslab_escape_ctrl(shown, e1, sizeof(e1)), fslab_escape_ctrl(states[i], e2, sizeof(e2)));
	if (have_st && S_ISREG(st.st_mode)) {
		struct fslab_state *s = malloc(sizeof(*s));

		if (!s)
			return fslab_err_set(e, ENOMEM, "out of memory: %s", strerror(ENOMEM));
		int r = fslab_state_load(shown, s, NULL);
		free(s);
		if (r == 0)
			return fslab_err_set(e, EEXIST, "%s is an fslab state file: fslab never writes results over one, not even with --force; choose another output file",
					     fslab_escape_ctrl(shown, e1, sizeof(e1)));
	}
	if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
		return fslab_err_set(e, EEXIST, "%s exists and is not a regular file; choose another output file",
				     fslab_escape_ctrl(shown, e1, sizeof(e1)));
	if (!force)
		return fslab_err_set(e, EEXIST, "%s exists; use --force to replace it, or choose another output file",
				     fslab_escape_ctrl(shown, e1, sizeof(e1)));
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
