#include "fileutil.h"
#include "clock.h"
#include "termtext.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dir, len, "%s", dirname(tmp));
	return 0;
}

int fslab_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	int dfd, r;

	r = dir_of(path, dir, sizeof(dir));
	if (r < 0)
		return r;
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	base = basename(tmp);
	if (!*base || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	dfd = fslab_dir_open(dir);
	if (dfd < 0)
		return dfd;
	r = fslab_write_file_atomic_at(dfd, base, data, len, mode);
	close(dfd);
	return r;
}

/* fd (from an open with O_NONBLOCK, or -1 with errno set) when it is a
 * regular file, made blocking again unless keep_nonblock; else it is
 * closed and the result is -EISDIR for a directory, -EINVAL for anything
 * else (a FIFO, socket or device) or -errno. */
static int regular_or_close(int fd, bool keep_nonblock)
{
	struct stat st;
	int fl, r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (keep_nonblock)
		return fd;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
		return fd;
fail:
	r = -errno;
	close(fd);
	return r;
}

const char *fslab_input_strerror(int r)
{
	switch (r) {
	case -EINVAL:
		return "not a regular file (a FIFO, socket or device); give the path of a file";
	case -EISDIR:
		return "a directory; give the path of a file";
	case -EFBIG:
		return "larger than fslab reads for this file; is this the right file?";
	default:
		return strerror(-r);
	}
}

int fslab_default_results_trusted(bool made, struct fslab_err *e)
{
	char esc[PATH_MAX + 256];
	struct stat st;
	int r = fslab_path_trusted(made || lstat("results", &st) == 0 ? "results" : ".", NULL, 0, e);

	if (r < 0)
		fslab_err_set(e, r, "refused: the default results directory results/ (in the working "
			      "directory): %s; give --out DIR in a directory of yours",
			      fslab_escape_ctrl(fslab_err_msg(e), esc, sizeof(esc)));
	return r;
}

int fslab_runtime_dir_open(void)
{
	struct stat sb;
	int fd;

	if (mkdir(FSLAB_RUNTIME_DIR, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = fslab_dir_open(FSLAB_RUNTIME_DIR);
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb) < 0 || sb.st_uid != geteuid() || (sb.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* One component of fslab_path_trusted: st of what is at p. */
static int path_component_trusted(const char *p, const struct stat *st, bool last,
				  struct fslab_err *e)
{
	bool ours = st->st_uid == 0 || st->st_uid == geteuid();
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && !last;

	if (!ours)
		return fslab_err_set(e, -EPERM, "%s belongs to uid %u, who could replace what is there", p,
				     (unsigned)st->st_uid);
	if ((st->st_mode & 022) && !sticky_dir)
		return fslab_err_set(e, -EPERM, "%s is writable by %s (mode %04o), who could %s; "
				     "chmod go-w it or use another place",
				     p, (st->st_mode & 002) ? "every user" : "its group", (unsigned)(st->st_mode & 07777),
				     (st->st_mode & S_ISVTX) ? "make a name in it first (sticky keeps only others' names from being replaced)"
							     : "replace what is there");
	return 0;
}

int fslab_path_trusted(const char *path, char *real, size_t reallen, struct fslab_err *e)
{
	char rp[PATH_MAX], part[PATH_MAX];
	struct stat st;
	size_t n;
	int r;

	if (!realpath(path, rp)) {
		r = -errno;
		return fslab_err_set(e, r, "%s: %s", path, strerror(-r));
	}
	if (real)
		snprintf(real, reallen, "%s", rp);
	/* The path as given, too: a symbolic link on it that another user
	 * owns could be pointed elsewhere after this check. */
	{
		char given[PATH_MAX], cwd[PATH_MAX];

		if (path[0] == '/')
			snprintf(given, sizeof(given), "%s", path);
		else if (getcwd(cwd, sizeof(cwd)) &&
			 snprintf(given, sizeof(given), "%s/%s", cwd, path) < (int)sizeof(given))
			;
		else
			snprintf(given, sizeof(given), "%s", rp);
		for (char *q = given + 1;; q++) {
			char c = *q;

			if (c != '/' && c != '\0')
				continue;
			*q = '\0';
			if (lstat(given, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 &&
			    st.st_uid != geteuid())
				return fslab_err_set(e, -EPERM, "the symbolic link %s belongs to uid %u, who could point it elsewhere",
						     given, (unsigned)st.st_uid);
			*q = c;
			if (c == '\0')
				break;
		}
	}
	n = strlen(rp);
	/* "/", then every longer prefix of the real path, the object last */
	for (size_t i = 0; i <= n; i++) {
		if (i > 0 && i < n && rp[i] != '/')
			continue;
		if (i == 0 || (i == 1 && n == 1))
			snprintf(part, sizeof(part), "/");
		else {
			memcpy(part, rp, i);
			part[i] = '\0';
		}
		if (lstat(part, &st) < 0) {
			r = -errno;
			return fslab_err_set(e, r, "%s: %s", part, strerror(-r));
		}
		r = path_component_trusted(part, &st, i == n, e);
		if (r < 0)
			return r;
		if (n == 1)
			break;
	}
	return 0;
}

int fslab_read_file(const char *path, char **data, size_t *len, size_t limit)
{
	int fd, r;

	/* O_NONBLOCK: opening a FIFO for reading blocks until a writer
	 * comes, and a FIFO given as a spec would hang fslab there. */
	fd = regular_or_close(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), false);
	if (fd < 0)
		return fd;
	r = fslab_read_fd(fd, data, len, limit);
	close(fd);
	return r;
}

int fslab_read_fd(int fd, char **data, size_t *len, size_t limit)
{
	size_t cap = 4096, n = 0;
	char *buf;
	int r;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= limit) {
				r = -EFBIG;
				goto fail;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				r = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;
fail:
	free(buf);
	return r;
}

int fslab_mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t n;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -errno;
	struct stat st;
	if (stat(tmp, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return 0;
}

int fslab_check_parent_writable(const char *path, char *dir, size_t dirlen)
{
	struct stat st;
	int r = dir_of(path, dir, dirlen);

	if (r < 0)
		return r;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(dir, W_OK | X_OK) < 0)
		return -errno;
	return 0;
}

/* ---- Trust helpers (see fileutil.h) ---- */

int fslab_file_id_of_fd(int fd, struct fslab_file_id *id)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return 0;
}

bool fslab_file_id_equal(const struct fslab_file_id *a, const struct fslab_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

int fslab_dir_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static bool is_single_component(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

int fslab_create_at(int dfd, const char *name, int flags, mode_t mode)
{
	int fd;

	if (!is_single_component(name))
		return -EINVAL;
	flags &= ~(O_TRUNC | O_CREAT | O_EXCL);
	fd = openat(dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0) {
		int r = -errno;
		close(fd);
		unlinkat(dfd, name, 0);
		return r;
	}
	return fd;
}

int fslab_open_regular_at(int dfd, const char *name, int flags)
{
	int fd;

	if (!is_single_component(name))
		return -EINVAL;
	flags &= ~(O_TRUNC | O_CREAT | O_EXCL);
	/* O_NONBLOCK: a FIFO planted under the name must not hang the open. */
	fd = regular_or_close(openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
			      flags & O_NONBLOCK);
	return fd == -EISDIR ? -EINVAL : fd;
}

int fslab_open_own_at(int dfd, const char *name, int flags, mode_t mode)
{
	struct stat st;
	int fd;

	if (!is_single_component(name))
		return -EINVAL;
	fd = openat(dfd, name, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
	if (fd < 0)
		return -errno;
	/* A hard link to someone's file, or a file another user made, is
	 * not one fslab may write into. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* A random suffix for temporary names: names a rival cannot predict. */
static void random_suffix(char *out, size_t n)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[16];
	size_t i;

	if (n > sizeof(rnd) + 1)
		n = sizeof(rnd) + 1;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uint64_t ns = fslab_now_ns();
		for (i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)((ns >> (i % 4 * 8)) ^ (getpid() >> (i % 2 * 8)) ^ i * 37);
	}
	for (i = 0; i + 1 < n; i++)
		out[i] = chars[rnd[i] % (sizeof(chars) - 1)];
	out[i] = '\0';
}

int fslab_write_file_atomic_at(int dfd, const char *name, const void *data, size_t len,
			       mode_t mode)
{
	return fslab_write_file_atomic_flags_at(dfd, name, data, len, mode, 0);
}

int fslab_write_file_atomic_flags_at(int dfd, const char *name, const void *data, size_t len,
				     mode_t mode, unsigned flags)
{
	bool sync = !(flags & FSLAB_WRITE_NOSYNC);
	char tmp[NAME_MAX + 1], sfx[8];
	const char *p = data;
	int fd = -1, r = 0, tries;

	if (!is_single_component(name))
		return -EINVAL;
	for (tries = 0; tries < 100; tries++) {
		random_suffix(sfx, sizeof(sfx));
		if (snprintf(tmp, sizeof(tmp), ".%.200s.tmp.%s", name, sfx) >= (int)sizeof(tmp))
			return -ENAMETOOLONG;
		fd = fslab_create_at(dfd, tmp, O_WRONLY, mode);
		if (fd != -EEXIST)
			break;
	}
	if (fd < 0)
		return fd;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		p += n;
		len -= (size_t)n;
	}
	if (sync && fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		goto fail;
	}
	if (sync)
		fsync(dfd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
	return r;
}

int fslab_mkdtemp_at(int dfd, const char *prefix, char *name, size_t namelen)
{
	char sfx[7];
	int tries, fd;

	for (tries = 0; tries < 100; tries++) {
		random_suffix(sfx, sizeof(sfx));
		if (snprintf(name, namelen, "%s%s", prefix, sfx) >= (int)namelen)
			return -ENAMETOOLONG;
		if (!is_single_component(name))
			return -EINVAL;
		if (mkdirat(dfd, name, 0700) < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			int r = -errno;
			unlinkat(dfd, name, AT_REMOVEDIR);
			return r;
		}
		/* Exactly 0700 whatever the umask.  A filesystem with no
		 * permissions to set (fusefat: no setattr) refuses the chmod;
		 * the directory is still new and its name ours alone, since
		 * mkdirat never reuses a name or follows a symlink. */
		if (fchmod(fd, 0700) < 0 && errno != EPERM && errno != ENOSYS &&
		    errno != EOPNOTSUPP) {
			int r = -errno;
			close(fd);
			unlinkat(dfd, name, AT_REMOVEDIR);
			return r;
		}
		return fd;
	}
	return -EEXIST;
}

/* Empties the directory open at fd (depth-bounded); never follows a symlink
 * and never descends into another filesystem. */
static int empty_dir_fd(int fd, dev_t dev, int depth)
{
	DIR *d;
	struct dirent *e;
	int r = 0, dup_fd;

	if (depth > 64)
		return -ELOOP;
	dup_fd = dup(fd);
	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		r = -errno;
		close(dup_fd);
		return r;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT && !r)
				r = -errno;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			if (st.st_dev != dev) {
				if (!r)
					r = -EXDEV;
				continue;
			}
			sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				if (!r)
					r = -errno;
				continue;
			}
			int rr = empty_dir_fd(sub, dev, depth + 1);
			close(sub);
			if (rr < 0 && !r)
				r = rr;
			if (unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT && !r)
				r = -errno;
		} else if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT && !r) {
			r = -errno;
		}
	}
	closedir(d);
	return r;
}

int fslab_remove_tree_at(int dfd, const char *name, const struct fslab_file_id *expect)
{
	struct fslab_file_id id;
	int fd, r;

	if (!is_single_component(name))
		return -EINVAL;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fslab_file_id_of_fd(fd, &id);
	if (r == 0 && expect && !fslab_file_id_equal(&id, expect))
		r = -ESTALE;
	if (r == 0)
		r = empty_dir_fd(fd, id.dev, 0);
	close(fd);
	if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		r = -errno;
	return r;
}
