#include "fileutil.h"
#include "procfs.h"
#include "prov_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int fslab_lock_at(int dfd, const char *name, int how, const char *command, char *holder,
		  size_t holderlen)
{
	struct stat st, again;
	int fd, r;

	if (holderlen)
		holder[0] = '\0';
	/* No symlink followed; a hard link to someone's file, or a file
	 * another user made, is not a lock file fslab may write its name into. */
	fd = fslab_open_own_at(dfd, name, O_RDWR, 0600);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (flock(fd, how | LOCK_NB) < 0) {
		ssize_t n;

		r = -errno;
		n = holderlen ? pread(fd, holder, holderlen - 1, 0) : 0;
		if (holderlen) {
			holder[n > 0 ? n : 0] = '\0';
			holder[strcspn(holder, "\n")] = '\0';
		}
		close(fd);
		return r;
	}
	/* Locked: is name still this file (not unlinked and replaced)? */
	if (fstatat(dfd, name, &again, AT_SYMLINK_NOFOLLOW) < 0 || again.st_dev != st.st_dev ||
	    again.st_ino != st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	/* Every holder writes its name (the last shared one wins); a reader
	 * checks that the named process still lives (fslab_lock_holder_alive). */
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%s, pid %ld\n", command, (long)getpid());
	return fd;
}

bool fslab_lock_holder_alive(const char *holder)
{
	const char *p = strstr(holder, ", pid ");
	long pid;

	if (!p)
		return false;
	pid = strtol(p + 6, NULL, 10);
	return pid > 0 && pid <= INT_MAX && fslab_proc_alive((pid_t)pid);
}
