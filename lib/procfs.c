#include "procfs.h"
#include "fileutil.h"
#include "size.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A /proc entry name that is a pid ("1234"), else 0. */
static pid_t proc_name_pid(const char *name)
{
	char *end;
	long v;

	if (name[0] < '0' || name[0] > '9')
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

int fslab_proc_each_pid(int (*fn)(pid_t pid, void *ctx), void *ctx)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int r = 0;

	if (!proc)
		return -errno;
	while (!r && (e = readdir(proc))) {
		pid_t pid = proc_name_pid(e->d_name);

		if (pid > 0)
			r = fn(pid, ctx);
	}
	closedir(proc);
	return r;
}

/* fn for every open fd of pid. */
static int proc_each_fd(pid_t pid, fslab_proc_fd_fn fn, void *ctx)
{
	char dir[64], fdpath[64 + 256];
	struct dirent *e;
	DIR *fds;
	int r = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	fds = opendir(dir);
	if (!fds)
		return 0; /* gone, or not ours to read: it holds nothing we can see */
	while (!r && (e = readdir(fds))) {
		pid_t fd = proc_name_pid(e->d_name);

		if (fd <= 0 && strcmp(e->d_name, "0") != 0)
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", dir, e->d_name);
		r = fn(pid, (int)fd, fdpath, ctx);
	}
	closedir(fds);
	return r;
}

struct proc_open_fd_walk {
	fslab_proc_fd_fn fn;
	void *ctx;
};

static int proc_open_fd_step(pid_t pid, void *ctx)
{
	struct proc_open_fd_walk *w = ctx;

	return proc_each_fd(pid, w->fn, w->ctx);
}

int fslab_proc_each_open_fd(fslab_proc_fd_fn fn, void *ctx)
{
	struct proc_open_fd_walk w = { .fn = fn, .ctx = ctx };

	return fslab_proc_each_pid(proc_open_fd_step, &w);
}

bool fslab_proc_fd_blockdev(const char *fdpath, dev_t *rdev)
{
	struct statx sx;

	/* AT_STATX_DONT_SYNC: the cached attributes.  Without it a file open
	 * on a FUSE mount whose daemon is busy or stopped makes the stat
	 * wait for that daemon, and setup or teardown with it. */
	if (statx(AT_FDCWD, fdpath, AT_STATX_DONT_SYNC, STATX_TYPE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_TYPE) || !S_ISBLK(sx.stx_mode))
		return false;
	*rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	return true;
}

/* Reads up to len - 1 bytes of /proc/PID/what into buf (NUL-terminated);
 * the byte count, or -errno. */
static ssize_t proc_read(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	size_t n = 0;
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n + 1 < len) {
		ssize_t got = read(fd, buf + n, len - 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			r = -errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	return r < 0 ? r : (ssize_t)n;
}

int fslab_proc_comm(pid_t pid, char *buf, size_t len)
{
	ssize_t n = proc_read(pid, "comm", buf, len);

	if (n < 0) {
		snprintf(buf, len, "?");
		return (int)n;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int fslab_proc_cmdline(pid_t pid, char *buf, size_t len)
{
	ssize_t n = proc_read(pid, "cmdline", buf, len);

	if (n < 0) {
		buf[0] = '\0';
		return (int)n;
	}
	/* words are NUL-terminated: join them, drop the last terminator */
	for (ssize_t i = 0; i + 1 < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return 0;
}

/* /proc/PID/stat's state letter and process group: 0, or -errno
 * (-ESRCH when pid is gone). */
static int proc_stat_fields(pid_t pid, char *state, int *pgrp)
{
	char buf[512];
	const char *p;
	ssize_t n = proc_read(pid, "stat", buf, sizeof(buf));

	if (n == -ENOENT)
		return -ESRCH;
	if (n < 0)
		return (int)n;
	/* "PID (comm) S PPID PGRP ...": comm may hold spaces and ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %d", state, pgrp) != 2)
		return -EIO;
	return 0;
}

char fslab_proc_state(pid_t pid)
{
	char state;
	int g;

	return proc_stat_fields(pid, &state, &g) == 0 ? state : '?';
}

int fslab_proc_pgrp(pid_t pid, pid_t *pgrp)
{
	char state;
	int g, r = proc_stat_fields(pid, &state, &g);

	if (r < 0)
		return r;
	if (state == 'Z')
		return -ESRCH;
	*pgrp = (pid_t)g;
	return 0;
}

int fslab_proc_has_env(pid_t pid, const char *word)
{
	char buf[1 << 15];
	size_t wl = strlen(word);
	ssize_t n = proc_read(pid, "environ", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	for (size_t off = 0; off < (size_t)n; off += strlen(buf + off) + 1)
		if (strncmp(buf + off, word, wl) == 0 && buf[off + wl] == '\0')
			return 1;
	return 0;
}

bool fslab_proc_alive(pid_t pid)
{
	char path[64];

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return access(path, F_OK) == 0;
}

/* The kind bit of a /proc/locks type word; 0 for one we do not know. */
static unsigned proc_lock_kind(const char *type)
{
	if (strcmp(type, "FLOCK") == 0)
		return FSLAB_PROC_LOCK_FLOCK;
	if (strcmp(type, "POSIX") == 0)
		return FSLAB_PROC_LOCK_POSIX;
	if (strcmp(type, "OFDLCK") == 0)
		return FSLAB_PROC_LOCK_OFD;
	if (strcmp(type, "LEASE") == 0 || strcmp(type, "DELEG") == 0)
		return FSLAB_PROC_LOCK_LEASE;
	return 0;
}

/* One line of /proc/locks ("1: FLOCK  ADVISORY  WRITE 1234 08:02:131 0
 * EOF"): 1 and its fields when it is a lock held (not a waiter's "->"). */
static int proc_lock_parse(const char *line, unsigned *kind, int *pid, unsigned *maj,
			   unsigned *mnr, unsigned long long *ino)
{
	char type[16];

	if (strstr(line, "->"))
		return 0;
	if (sscanf(line, "%*s %15s %*s %*s %d %x:%x:%llu", type, pid, maj, mnr, ino) != 5)
		return 0;
	*kind = proc_lock_kind(type);
	return 1;
}

int fslab_proc_lock_holder(dev_t dev, ino_t ino, unsigned kinds, pid_t skip, pid_t *pid)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256];
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned kind, maj, mnr;
		unsigned long long i;
		int p;

		if (!proc_lock_parse(line, &kind, &p, &maj, &mnr, &i) ||
		    (kinds != FSLAB_PROC_LOCK_ANY && !(kind & kinds)))
			continue;
		if (i != (unsigned long long)ino || maj != major(dev) || mnr != minor(dev))
			continue;
		if (skip > 0 && p == (int)skip)
			continue;
		*pid = p > 0 ? (pid_t)p : -1;
		found = 1;
	}
	fclose(f);
	return found;
}

int fslab_sysfs_read_u64(const char *dir, const char *attr, uint64_t *v)
{
	char path[PATH_MAX];
	char *data = NULL;
	size_t n = 0;
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, attr) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = fslab_read_file(path, &data, &n, 64);
	if (r < 0)
		return r;
	while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == ' '))
		data[--n] = '\0';
	r = fslab_parse_uint(data, 0, UINT64_MAX, v) < 0 ? -EINVAL : 0;
	free(data);
	return r;
}
