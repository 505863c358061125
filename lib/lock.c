#include "lock.h"
#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int fslab_lock_state(const char *state_path, enum fslab_lock_kind kind, const char *command,
		     char *err, size_t errlen)
{
	char path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	int fd, r;

	if (snprintf(path, sizeof(path), "%s.lock", state_path) >= (int)sizeof(path)) {
		snprintf(err, errlen, "%s: path too long", state_path);
		return -ENAMETOOLONG;
	}
	snprintf(tmp, sizeof(tmp), "%s", state_path);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	r = fslab_mkdir_p(dir, 0755);
	if (r < 0) {
		snprintf(err, errlen, "cannot create %s for the lock file: %s", dir, strerror(-r));
		return r;
	}
	/* O_NOFOLLOW: a symlink planted at the lock path is refused, not followed. */
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot open lock file %s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "lock file %s is not a regular file; remove it", path);
		return -EINVAL;
	}
	if (flock(fd, (kind == FSLAB_LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		char holder[128] = "";
		ssize_t n;

		r = -errno;
		n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		close(fd);
		if (r == -EWOULDBLOCK)
			snprintf(err, errlen,
				 "the lab (%s) is in use by %s; wait for it to finish, or stop it, then retry",
				 state_path, holder[0] ? holder : "another fslab command");
		else
			snprintf(err, errlen, "cannot lock %s: %s", path, strerror(-r));
		return r;
	}
	if (kind == FSLAB_LOCK_EXCLUSIVE && ftruncate(fd, 0) == 0)
		dprintf(fd, "%s, pid %ld\n", command, (long)getpid());
	else if (kind == FSLAB_LOCK_SHARED && fstat(fd, &st) == 0 && st.st_size == 0)
		dprintf(fd, "%s, pid %ld\n", command, (long)getpid());
	return fd;
}

void fslab_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
