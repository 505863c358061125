/* The report's temporary directory beside --out, and what a killed report
 * left of one.  A report builds its output in .fslab-report.tmp-XXXXXX
 * (mode 0700), holds an exclusive flock on it while it works, and marks it
 * with a file (.fslab-report-tmp, fslab's line) before anything else goes
 * in; the mark is removed just before the directory is renamed into place.
 * A SIGKILL leaves the directory behind: the next report beside the same
 * --out removes each one it can prove is such a leftover (the name, a
 * directory of the user's own on the parent's filesystem, mode 0700, the
 * mark, and no live report holding its lock), and leaves anything else. */
#include "fileutil.h"
#include "log.h"
#include "termtext.h"
#include "outputs.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define RP_TMP_PREFIX ".fslab-report.tmp-"
#define RP_TMP_MARK ".fslab-report-tmp"
#define RP_TMP_MARK_TEXT "fslab report: temporary directory of a report at work\n"

/* Is the directory fd (named name in the directory of st_dev pdev) a
 * leftover of a killed report?  Takes its lock when it is (kept until fd
 * is closed). */
static bool rp_tmp_is_leftover(int fd, dev_t pdev, struct fslab_file_id *id)
{
	char text[sizeof(RP_TMP_MARK_TEXT) + 1];
	struct stat st, mst;
	ssize_t n;
	int mfd;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700 || st.st_dev != pdev)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) /* a report at work */
		return false;
	mfd = fslab_open_regular_at(fd, RP_TMP_MARK, O_RDONLY | O_NONBLOCK);
	if (mfd < 0)
		return false;
	n = fstat(mfd, &mst) == 0 && mst.st_uid == geteuid() && mst.st_nlink == 1
		    ? pread(mfd, text, sizeof(text) - 1, 0)
		    : -1;
	close(mfd);
	if (n != (ssize_t)strlen(RP_TMP_MARK_TEXT) || memcmp(text, RP_TMP_MARK_TEXT, (size_t)n) != 0)
		return false;
	*id = (struct fslab_file_id){ st.st_dev, st.st_ino };
	return true;
}

/* Removes the leftovers of killed reports in the directory pfd, saying
 * so; anything it cannot prove is one stays. */
static void rp_tmp_sweep(int pfd, const char *parent)
{
	int lfd = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
	DIR *dh = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct dirent *de;
	struct stat pst;

	if (!dh || fstat(pfd, &pst) < 0) {
		if (dh)
			closedir(dh);
		else if (lfd >= 0)
			close(lfd);
		return;
	}
	while ((de = readdir(dh))) {
		char e1[4 * PATH_MAX + 8], e2[4 * NAME_MAX + 8];
		struct fslab_file_id id;
		int fd;

		if (strncmp(de->d_name, RP_TMP_PREFIX, strlen(RP_TMP_PREFIX)) != 0)
			continue;
		fd = openat(pfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (rp_tmp_is_leftover(fd, pst.st_dev, &id) && fslab_remove_tree_at(pfd, de->d_name, &id) == 0)
			fprintf(stderr, "%s: removed %s/%s, left by a report that was killed\n", fslab_log_prefix(),
				fslab_escape_ctrl(parent, e1, sizeof(e1)), fslab_escape_ctrl(de->d_name, e2, sizeof(e2)));
		close(fd);
	}
	closedir(dh);
}

int rp_tmpdir_make(int pfd, const char *parent, char *name, size_t len)
{
	int tfd, r;

	rp_tmp_sweep(pfd, parent);
	tfd = fslab_mkdtemp_at(pfd, RP_TMP_PREFIX, name, len);
	if (tfd < 0)
		return tfd;
	/* the lock before the mark: a sweeper that finds the mark finds the
	 * lock held; the mark whole or not at all, with the errno of the call
	 * that failed */
	r = flock(tfd, LOCK_EX) < 0 ? -errno
				    : fslab_write_file_atomic_flags_at(tfd, RP_TMP_MARK, RP_TMP_MARK_TEXT,
								       strlen(RP_TMP_MARK_TEXT), 0600,
								       FSLAB_WRITE_NOSYNC);
	if (r == 0)
		return tfd;
	close(tfd);
	unlinkat(pfd, name, AT_REMOVEDIR); /* made here, empty now */
	return r;
}

int rp_tmpdir_unmark(int tfd)
{
	return unlinkat(tfd, RP_TMP_MARK, 0) < 0 ? -errno : 0;
}
