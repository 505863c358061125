/* Mounting the lab's filesystems: libmount for kernel drivers, fusefat
 * (run directly, as libmount's helper path hands it a plain "rw" it
 * refuses) for FAT32 where the kernel has no vfat. */
#include "lab_mount.h"
#include "clock.h"
#include "exec.h"
#include "fileutil.h"
#include "fshealth.h"
#include "procfs.h"
#include "prov_int.h"
#include "fslab/provision.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_FUSE_WAIT_S 30
/* How long a lab mount may take to answer a statfs before it is said not
 * to answer: a healthy one answers in microseconds, a loaded FUSE daemon
 * in well under a second. */
#define LAB_ANSWER_S 5

static bool lab_kernel_has(const char *fstype)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *t = strrchr(line, '\t');
		t = t ? t + 1 : line;
		t[strcspn(t, "\n")] = '\0';
		found = strcmp(t, fstype) == 0;
	}
	if (f)
		fclose(f);
	return found;
}

enum fslab_mount_method fslab_lab_mount_method_for(enum fslab_fs_type type)
{
	if (type == FSLAB_FS_FAT32 && !lab_kernel_has("vfat"))
		return FSLAB_MOUNT_FUSE;
	return FSLAB_MOUNT_KERNEL;
}

/* Does this mount table entry show dev (by dev_t, or by source path for
 * FUSE, which has no dev_t of its own)? */
static bool lab_fs_is_device(struct libmnt_fs *fs, const struct stat *devst)
{
	const char *src = mnt_fs_get_source(fs);
	struct stat st;

	if (mnt_fs_get_devno(fs) == devst->st_rdev)
		return true;
	return src && src[0] == '/' && stat(src, &st) == 0 && S_ISBLK(st.st_mode) &&
	       st.st_rdev == devst->st_rdev;
}

int prov_mount_find_device(const char *dev, char *where, size_t len)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	struct stat devst;
	int r = 0;

	if (stat(dev, &devst) < 0 || !S_ISBLK(devst.st_mode))
		return 0;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !it) {
		r = -EIO;
		goto out;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		if (lab_fs_is_device(fs, &devst)) {
			snprintf(where, len, "%s", mnt_fs_get_target(fs));
			r = 1;
			break;
		}
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return r;
}

int prov_mount_at(const char *dir, char *source, size_t len, char *fstype, size_t flen)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_fs *fs;
	int r = 0;

	if (!tb)
		return -EIO;
	/* The top-most mount at dir (searching from the end). */
	fs = mnt_table_find_target(tb, dir, MNT_ITER_BACKWARD);
	if (fs && strcmp(mnt_fs_get_target(fs), dir) == 0) {
		snprintf(source, len, "%s", mnt_fs_get_source(fs) ? mnt_fs_get_source(fs) : "");
		snprintf(fstype, flen, "%s", mnt_fs_get_fstype(fs) ? mnt_fs_get_fstype(fs) : "");
		r = 1;
	}
	mnt_unref_table(tb);
	return r;
}

/* Is dev mounted exactly at dir? */
static int lab_mounted_here(const char *dev, const char *dir)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct stat devst;
	int r = 0;

	if (stat(dev, &devst) < 0)
		return 0;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return -EIO;
	fs = mnt_table_find_target(tb, dir, MNT_ITER_BACKWARD);
	if (fs && strcmp(mnt_fs_get_target(fs), dir) == 0)
		r = lab_fs_is_device(fs, &devst) ? 1 : 2;
	mnt_unref_table(tb);
	return r; /* 0 nothing, 1 dev, 2 something else */
}

int fslab_lab_mount_root_check(const char *mount_root, const char *existing, struct fslab_err *e)
{
	struct fslab_err why = FSLAB_ERR_INIT;
	int r = fslab_path_trusted(existing, NULL, 0, &why);

	if (r < 0)
		fslab_note_fail(e, -EIO, "refused: mount root %s: %s; root would mount where another user chose. "
			    "Give a --mount-root under directories only root can change (the default %s)",
			    mount_root, why.msg, FSLAB_MOUNT_ROOT_DEFAULT);
	return r;
}

static int lab_check_dir(const char *dir, struct fslab_err *e)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return fslab_note_fail_errno(e, errno, "mount point %s", dir);
	if (S_ISLNK(st.st_mode))
		return fslab_note_fail(e, -ELOOP, "mount point %s is a symbolic link; fslab does not follow it (remove it)",
				       dir);
	if (!S_ISDIR(st.st_mode))
		return fslab_note_fail(e, -ENOTDIR, "mount point %s is not a directory", dir);
	return 0;
}

/* The mount point's VFS attributes (fsmount's MOUNT_ATTR_*) among the
 * allowed mount options; every other option goes to the filesystem
 * through fsconfig (superblock flags such as sync and lazytime
 * included). */
static const struct {
	const char *name;
	unsigned attr;  /* set */
	bool ignore;    /* the default anyway: nothing to pass */
} lab_vfs_opts[] = {
	{ "noatime", MOUNT_ATTR_NOATIME, false },      { "relatime", MOUNT_ATTR_RELATIME, false },
	{ "strictatime", MOUNT_ATTR_STRICTATIME, false }, { "nodiratime", MOUNT_ATTR_NODIRATIME, false },
	{ "nodev", MOUNT_ATTR_NODEV, false },          { "nosuid", MOUNT_ATTR_NOSUID, false },
	{ "noexec", MOUNT_ATTR_NOEXEC, false },        { "defaults", 0, true },
	{ "atime", 0, true },                          { "norelatime", 0, true },
};

/* The kernel's words for why fsconfig refused (read from the fs fd). */
static void lab_fs_log(int fsfd, char *buf, size_t len)
{
	ssize_t n;

	buf[0] = '\0';
	while ((n = read(fsfd, buf, len - 1)) > 0) {
		buf[n] = '\0';
		if (buf[0] == 'e' && buf[1] == ' ')
			return; /* an error line: keep it */
	}
}

/* Mounts p by fd: the mount point opened O_PATH|O_NOFOLLOW and checked
 * against the identity setup recorded, then fsopen/fsconfig/fsmount and
 * move_mount onto that very fd, so no name is resolved after the check.
 * -ENOSYS when the kernel lacks the new mount API (the caller falls
 * back); else 0 or -errno (the reason in e). */
static int lab_mount_by_fd(const struct fslab_state_partition *p, const char *fstype, struct fslab_err *e)
{
	char opts[FSLAB_OPTIONS_MAX], *save = NULL, log[512] = "";
	unsigned attrs = 0;
	struct stat st;
	int tfd, fsfd = -1, mfd = -1, r = 0;

	tfd = open(p->mountpoint, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return fslab_note_fail_errno(e, errno, "mount point %s", p->mountpoint);
	if (fstat(tfd, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    (p->mountpoint_created && p->mountpoint_id.known &&
	     (st.st_dev != p->mountpoint_id.dev || st.st_ino != p->mountpoint_id.ino))) {
		r = fslab_note_fail(e, -ESTALE, "refused: %s is not the directory setup made for %s (another inode): "
				    "not mounting there", p->mountpoint, p->name);
		goto out;
	}
	fsfd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		r = -errno;
		if (r != -ENOSYS)
			fslab_note_fail_errno(e, -r, "fsopen %s for %s", fstype, p->device);
		goto out;
	}
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", p->device, 0) < 0)
		goto fsconfig_failed;
	snprintf(opts, sizeof(opts), "%s", p->mount_options);
	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(o, '=');
		bool vfs = false;

		for (size_t i = 0; i < sizeof(lab_vfs_opts) / sizeof(lab_vfs_opts[0]); i++)
			if (strcmp(o, lab_vfs_opts[i].name) == 0) {
				attrs |= lab_vfs_opts[i].attr;
				vfs = true;
			}
		if (vfs)
			continue;
		if (eq)
			*eq = '\0';
		if (fsconfig(fsfd, eq ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, o, eq ? eq + 1 : NULL, 0) < 0)
			goto fsconfig_failed;
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fsconfig_failed;
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, attrs);
	if (mfd < 0 || move_mount(mfd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		r = -errno;
		fslab_note_fail_errno(e, -r, "mount %s on %s (%s, options '%s')", p->device, p->mountpoint, fstype,
				  p->mount_options);
	}
	goto out;
fsconfig_failed:
	r = -errno;
	lab_fs_log(fsfd, log, sizeof(log));
	fslab_note_fail(e, -EIO, "mount %s on %s (%s, options '%s') failed: %s%s%s", p->device, p->mountpoint, fstype,
		    p->mount_options, strerror(-r), log[0] ? ": " : "", log[0] ? log + 2 : "");
out:
	if (mfd >= 0)
		close(mfd);
	if (fsfd >= 0)
		close(fsfd);
	close(tfd);
	return r;
}

static int lab_mount_kernel(const struct fslab_state_partition *p, struct fslab_err *e)
{
	const struct fslab_fs_recipe *rc = fslab_fs_recipe(p->type);
	struct libmnt_context *cxt;
	char msg[512] = "";
	int r;

	if (!rc)
		return -ENOMEM;
	r = lab_mount_by_fd(p, rc->kernel_fstype, e);
	if (r != -ENOSYS)
		return r;
	/* a kernel before 5.2: by name, through libmount */
	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_disable_mtab(cxt, 1);
	mnt_context_set_source(cxt, p->device);
	mnt_context_set_target(cxt, p->mountpoint);
	mnt_context_set_fstype(cxt, rc->kernel_fstype);
	if (p->mount_options[0])
		mnt_context_set_options(cxt, p->mount_options);
	r = mnt_context_mount(cxt);
	if (r != 0) {
		int sys = mnt_context_get_syscall_errno(cxt);
		mnt_context_get_excode(cxt, r, msg, sizeof(msg));
		r = fslab_note_fail(e, sys ? -sys : -EIO, "mount %s on %s (%s, options '%s') failed: %s", p->device,
				    p->mountpoint, rc->kernel_fstype, p->mount_options,
				    msg[0] ? msg : strerror(sys ? sys : EIO));
	}
	mnt_free_context(cxt);
	return r;
}

static int lab_mount_fuse(const struct fslab_state_partition *p, struct fslab_err *e)
{
	char prog[PATH_MAX], opts[FSLAB_OPTIONS_MAX + 128], why[256];
	const char *argv[] = { prog, "-o", opts, p->device, p->mountpoint, NULL };
	struct fslab_exec_result res;
	double deadline;
	int r;

	if (fslab_exec_find_tool("fusefat", prog, sizeof(prog)) < 0)
		return fslab_note_fail(e, -ENOENT, "fusefat not found: this kernel has no vfat, so FAT32 is mounted "
				       "through FUSE; install it with: apt-get install fusefat");
	/* fusefat starts allocating at FSInfo's next-free hint, where the last
	 * mount left it: from past 2 GiB a new directory is one it cannot
	 * read, so it starts from the volume's first cluster again. */
	r = fslab_fat32_rewind_next_free(p->device, why, sizeof(why));
	if (r < 0)
		return fslab_note_fail(e, r, "not mounting %s on %s through fusefat: %s; check it with: fsck.fat -n %s",
				       p->device, p->mountpoint, why, p->device);
	/* fusefat wants rw+ for writing; fsname names the device in the
	 * mount table, the only place FUSE records it. */
	snprintf(opts, sizeof(opts), "rw+,fsname=%s%s%s", p->device, p->mount_options[0] ? "," : "",
		 p->mount_options);
	r = fslab_exec_run_in(argv, NULL, NULL, 60, &res);
	if (r < 0)
		return fslab_note_fail_errno(e, r, "cannot run %s", prog);
	if (res.exit_status != 0)
		return fslab_note_fail(e, -EIO, "fusefat %s on %s failed (exit %d): %s", p->device, p->mountpoint,
				       res.exit_status, res.stderr_tail);
	deadline = fslab_now() + LAB_FUSE_WAIT_S;
	while ((r = lab_mounted_here(p->device, p->mountpoint)) != 1) {
		if (fslab_now() > deadline)
			return fslab_note_fail(e, -ETIMEDOUT, "fusefat %s: no mount at %s after %d s", p->device,
					       p->mountpoint, LAB_FUSE_WAIT_S);
		usleep(10000);
	}
	return 0;
}

int fslab_lab_mount(const struct fslab_state *st, const struct fslab_state_partition *p, struct fslab_err *e)
{
	enum fslab_mount_method m = p->mount_method;
	struct fslab_err why = FSLAB_ERR_INIT;
	int r;

	(void)st;
	if (m == FSLAB_MOUNT_NONE)
		m = fslab_lab_mount_method_for(p->type);
	r = lab_check_dir(p->mountpoint, e);
	if (r < 0)
		return r;
	/* Checked again at the mount: a directory another user made (or
	 * could swap) between setup's checks and now is not mounted over. */
	r = fslab_path_trusted(p->mountpoint, NULL, 0, &why);
	if (r < 0)
		return fslab_note_fail(e, r, "refused: not mounting %s on %s: %s; root would mount where another "
				       "user chose (run fslab teardown, then setup with a --mount-root only "
				       "root can change)",
				       p->device, p->mountpoint, why.msg);
	r = lab_mounted_here(p->device, p->mountpoint);
	if (r > 0)
		return fslab_note_fail(e, -EBUSY, "%s: %s is already mounted there", p->mountpoint,
				       r == 1 ? p->device : "another filesystem");
	return m == FSLAB_MOUNT_FUSE ? lab_mount_fuse(p, e) : lab_mount_kernel(p, e);
}

struct device_open_walk {
	dev_t rdev;
	pid_t pid;
};

static int lab_device_open_step(pid_t pid, int fd, const char *fdpath, void *ctx)
{
	struct device_open_walk *w = ctx;
	dev_t rdev;

	(void)fd;
	if (!fslab_proc_fd_blockdev(fdpath, &rdev) || rdev != w->rdev)
		return 0;
	w->pid = pid;
	return 1;
}

pid_t fslab_lab_device_holder(dev_t rdev)
{
	struct device_open_walk w = { .rdev = rdev };

	return fslab_proc_each_open_fd(lab_device_open_step, &w) == 1 ? w.pid : 0;
}

/* The FUSE connection number of the mount at dir: its minor device
 * number in the mount table (never a stat of dir, which a FUSE daemon
 * answers).  0 when nothing is mounted there. */
static unsigned lab_fuse_conn_at(const char *dir)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_fs *fs;
	unsigned conn = 0;

	if (!tb)
		return 0;
	fs = mnt_table_find_target(tb, dir, MNT_ITER_BACKWARD);
	if (fs && strcmp(mnt_fs_get_target(fs), dir) == 0)
		conn = minor(mnt_fs_get_devno(fs));
	mnt_unref_table(tb);
	return conn;
}

/* The FUSE daemon of p as it is now: the process holding p's device, else
 * the one setup recorded.  0 when neither is known. */
static pid_t lab_fuse_daemon(const struct fslab_state_partition *p, bool *alive)
{
	struct stat devst;
	pid_t pid = 0;

	if (stat(p->device, &devst) == 0 && S_ISBLK(devst.st_mode))
		pid = fslab_lab_device_holder(devst.st_rdev);
	*alive = pid > 0;
	if (!pid && p->fuse_pid > 0)
		pid = (pid_t)p->fuse_pid;
	return pid;
}

/* statvfs(dir) in a child killed after timeout_s: a call on a mount whose
 * FUSE daemon is stopped waits in the kernel for an answer that never
 * comes, and only a process we can kill may wait there.  0 (vfs filled),
 * -ETIMEDOUT, or statvfs's -errno (-ENOTCONN: the daemon is gone). */
static int lab_statvfs_bounded(const char *dir, int timeout_s, struct statvfs *vfs)
{
	struct {
		int err;
		struct statvfs vfs;
	} res = { 0 };
	struct pollfd pfd;
	int pipefd[2], status, r;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return r;
	}
	if (pid == 0) {
		close(pipefd[0]);
		res.err = statvfs(dir, &res.vfs) < 0 ? errno : 0;
		_exit(write(pipefd[1], &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	do
		r = poll(&pfd, 1, timeout_s * 1000);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		/* It waits on the mount: killed, it goes once the kernel lets
		 * it (an aborted connection or a continued daemon); never
		 * waited for here. */
		kill(pid, SIGKILL);
		close(pipefd[0]);
		waitpid(pid, &status, WNOHANG);
		return -ETIMEDOUT;
	}
	n = read(pipefd[0], &res, sizeof(res));
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(res))
		return -EIO;
	if (res.err)
		return -res.err;
	if (vfs)
		*vfs = res.vfs;
	return 0;
}

int fslab_lab_mount_answers(const struct fslab_state_partition *p, struct statvfs *vfs, struct fslab_err *e)
{
	bool fuse = p->mount_method == FSLAB_MOUNT_FUSE, alive;
	int r = lab_statvfs_bounded(p->mountpoint, LAB_ANSWER_S, vfs);
	pid_t pid;

	if (r == 0 || (!fuse && r != -ETIMEDOUT))
		return r == 0 || r == -ENOSYS ? 0 : r;
	if (!fuse)
		return fslab_err_set(e, r, "%s (%s) does not answer: a statfs got no reply in %d s", p->mountpoint,
			 p->device, LAB_ANSWER_S);
	pid = lab_fuse_daemon(p, &alive);
	if (r == -ETIMEDOUT) {
		char state = pid > 0 ? fslab_proc_state(pid) : '?';

		return fslab_err_set(e, r, "%s does not answer: its FUSE daemon (fusefat, pid %d%s) gave no reply to a "
			 "statfs in %d s%s; fslab teardown aborts its connection and unmounts it",
			 p->mountpoint, (int)pid, state == 'T' || state == 't' ? ", stopped" : "", LAB_ANSWER_S,
			 state == 'T' || state == 't' ? " (continue it with kill -CONT, or tear the lab down)" : "");
	}
	if (r == -ENOTCONN || !alive)
		return fslab_err_set(e, -ENOTCONN, "%s is a dead FUSE mount: its FUSE daemon (fusefat, pid %d) is gone, so the "
			 "filesystem serves nothing; run fslab teardown (and setup again)",
			 p->mountpoint, (int)pid);
	return fslab_err_set(e, r, "%s: statfs failed: %s", p->mountpoint, strerror(-r));
}

void fslab_lab_fuse_record(struct fslab_state_partition *p)
{
	bool alive;

	p->fuse_pid = 0;
	p->fuse_conn = 0;
	if (p->mount_method != FSLAB_MOUNT_FUSE)
		return;
	p->fuse_pid = lab_fuse_daemon(p, &alive);
	if (!alive)
		p->fuse_pid = 0;
	p->fuse_conn = lab_fuse_conn_at(p->mountpoint);
}

/* Ends a FUSE connection that does not answer: every request waiting on
 * it (ours and any other process's) fails with ENOTCONN and the mount can
 * go.  Through /sys/fs/fuse/connections/N/abort where fusectl is mounted,
 * else umount2(MNT_FORCE), which for FUSE aborts the connection the same
 * way without resolving anything on the mount.  0 or -errno. */
static int lab_fuse_abort(const struct fslab_state_partition *p, unsigned conn)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", conn);
	fd = conn ? open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	if (fd >= 0) {
		ssize_t n = write(fd, "1", 1);
		close(fd);
		if (n == 1) {
			fslab_note_warn("aborted the FUSE connection %u of %s (%s)", conn, p->mountpoint, path);
			return 0;
		}
	}
	if (umount2(p->mountpoint, MNT_FORCE | UMOUNT_NOFOLLOW) < 0 && errno != EBUSY)
		return -errno;
	fslab_note_warn("aborted the FUSE connection %u of %s (umount -f: fusectl is not mounted at "
		   "/sys/fs/fuse/connections)",
		   conn, p->mountpoint);
	return 0;
}

/* A FUSE mount whose daemon does not answer (stopped) or is gone: its
 * connection is aborted first, as libmount's umount and everything else
 * would wait on it for ever; a stopped daemon (the process holding the
 * lab's device) is continued so that it sees the end and exits.  0 when
 * the daemon answers or was dealt with, else -errno (the reason in e). */
static int lab_unmount_unanswering_fuse(const struct fslab_state_partition *p, struct fslab_err *e)
{
	struct fslab_err why = FSLAB_ERR_INIT;
	bool alive;
	pid_t pid;
	int r = fslab_lab_mount_answers(p, NULL, &why);

	if (r != -ETIMEDOUT && r != -ENOTCONN)
		return 0;
	fslab_note_warn("%s", fslab_err_msg(&why));
	pid = lab_fuse_daemon(p, &alive);
	r = lab_fuse_abort(p, lab_fuse_conn_at(p->mountpoint));
	if (r < 0)
		return fslab_note_fail_errno(e, r, "cannot abort the FUSE connection of %s (try: umount -f %s)",
					 p->mountpoint, p->mountpoint);
	if (alive && pid > 0)
		kill(pid, SIGCONT);
	/* The processes that waited on the connection (a killed statfs
	 * child, a killed command) leave it only now: until they have, the
	 * mount is busy.  Bounded. */
	for (double end = fslab_now() + LAB_ANSWER_S * 2; lab_mounted_here(p->device, p->mountpoint) == 1;) {
		if (umount2(p->mountpoint, UMOUNT_NOFOLLOW) == 0 || errno != EBUSY || fslab_now() > end)
			break;
		usleep(50000);
	}
	return 0;
}

int fslab_lab_unmount(const struct fslab_state *st, const struct fslab_state_partition *p, struct fslab_err *e)
{
	struct libmnt_context *cxt;
	struct stat devst;
	bool fuse = p->mount_method == FSLAB_MOUNT_FUSE;
	char src[PATH_MAX], fstype[64];
	double deadline;
	int r;

	(void)st;
	r = lab_mounted_here(p->device, p->mountpoint);
	if (r == 0)
		return 0;
	if (r == 2) {
		prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype));
		return fslab_note_fail(e, -EBUSY, "%s: %s (%s) is mounted there, not the lab's %s; not touching it",
				       p->mountpoint, src, fstype, p->device);
	}
	if (r < 0)
		return fslab_note_fail_errno(e, r, "cannot read the mount table");
	if (prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype)) == 1 &&
	    strncmp(fstype, "fuse", 4) == 0)
		fuse = true;
	if (fuse) {
		r = lab_unmount_unanswering_fuse(p, e);
		if (r < 0)
			return r;
		if (lab_mounted_here(p->device, p->mountpoint) == 0)
			goto unmounted;
	}
	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_disable_mtab(cxt, 1);
	mnt_context_set_target(cxt, p->mountpoint);
	r = mnt_context_umount(cxt);
	if (r != 0) {
		int sys = mnt_context_get_syscall_errno(cxt);
		char msg[512] = "";

		mnt_context_get_excode(cxt, r, msg, sizeof(msg));
		mnt_free_context(cxt);
		return fslab_note_fail(e, sys ? -sys : -EIO, "umount %s failed: %s%s", p->mountpoint,
				       msg[0] ? msg : strerror(sys), sys == EBUSY ? " (a program still uses it: see fuser -vm)" : "");
	}
	mnt_free_context(cxt);
unmounted:
	if (fuse && stat(p->device, &devst) == 0) {
		/* The daemon flushes and exits after the unmount; wait until
		 * it lets go of the device so that what follows sees all of
		 * its writes. */
		deadline = fslab_now() + LAB_FUSE_WAIT_S;
		while (fslab_lab_device_holder(devst.st_rdev) != 0) {
			if (fslab_now() > deadline) {
				fslab_note_warn("%s: the FUSE daemon still holds the device %d s after the "
					   "unmount",
					   p->device, LAB_FUSE_WAIT_S);
				return -EBUSY;
			}
			usleep(20000);
		}
	}
	return 0;
}
