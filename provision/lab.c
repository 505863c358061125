/* The lab object: the state file reached by identity, its locks, its log;
 * and the creation markers provision uses to prove what it made. */
#include "clock.h"
#include "fslab/provision.h"
#include "device_identity.h"
#include "fileutil.h"
#include "lab_mount.h"
#include "log.h"
#include "progress.h"
#include "prov_int.h"
#include "spec_options.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LAB_MOUNT_WAIT_S 30
#define LAB_LOCK_DIR FSLAB_RUNTIME_DIR

struct fslab_lab {
	enum fslab_lab_mode mode;
	char path[PATH_MAX];      /* real path of the state file */
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];  /* state file name in dir */
	char log_path[PATH_MAX + 8];
	int dfd;
	int lock_fd, lease_fd, log_fd;
	/* The locks of the lab itself, by its lab_id, in LAB_LOCK_DIR: every
	 * name, copy or bind mount of one lab's state takes these. */
	int id_dfd, id_lock_fd;
	char id[40];
	bool have_state;
	struct fslab_state st;
};

/* ---- creation markers ---- */

int prov_marker_set(int fd, const char *lab_id)
{
	return fsetxattr(fd, PROV_MARKER_XATTR, lab_id, strlen(lab_id), 0) < 0 ? -errno : 0;
}

/* The lab id fd is marked with: 1 (in buf), 0 no marker, or -errno. */
static int prov_marker_get(int fd, char *buf, size_t len)
{
	ssize_t n = fgetxattr(fd, PROV_MARKER_XATTR, buf, len - 1);

	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
	buf[n] = '\0';
	return 1;
}

int prov_marker_check(int fd, const char *lab_id, char *found, size_t len)
{
	char buf[64];
	int r = prov_marker_get(fd, buf, sizeof(buf));

	snprintf(found, len, "%s", "no fslab marker"); /* len 0: nothing written */
	if (r <= 0)
		return r;
	if (lab_id[0] && strcmp(buf, lab_id) == 0)
		return 1;
	snprintf(found, len, "the marker of another lab (%s)", buf);
	return 0;
}

void prov_marker_remove(int fd)
{
	/* absent already, or the filesystem has no xattrs: nothing to undo */
	fremovexattr(fd, PROV_MARKER_XATTR);
}

int prov_resolve_parent(const char *path, char *out, size_t len)
{
	char head[PATH_MAX], tail[PATH_MAX] = "", real[PATH_MAX], t[PATH_MAX];
	struct stat st;

	if (path[0] != '/' || snprintf(head, sizeof(head), "%s", path) >= (int)sizeof(head))
		return -EINVAL;
	for (size_t n = strlen(head); n > 1 && head[n - 1] == '/'; n--)
		head[n - 1] = '\0';
	if (strcmp(head, "/") == 0) {
		snprintf(out, len, "/");
		return 0;
	}
	/* Peel names off the end until what is left exists; those names
	 * (the last one always: it is not followed) must be plain. */
	do {
		char *slash = strrchr(head, '/');
		const char *comp = slash + 1;

		if (!*comp || strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return -EINVAL;
		if (snprintf(t, sizeof(t), "%s%s%s", comp, tail[0] ? "/" : "", tail) >= (int)sizeof(t))
			return -ENAMETOOLONG;
		snprintf(tail, sizeof(tail), "%s", t);
		if (slash == head)
			snprintf(head, sizeof(head), "/");
		else
			*slash = '\0';
	} while (lstat(head, &st) < 0 && errno == ENOENT);
	if (!realpath(head, real))
		return -errno;
	if (snprintf(out, len, "%s/%s", strcmp(real, "/") == 0 ? "" : real, tail) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int prov_path_on_lab_mount(const char *path, char *dev, size_t len)
{
	char head[PATH_MAX], link[64], real[PATH_MAX], flag[PATH_MAX + 32], back[PATH_MAX + 16];
	char *slash;
	struct stat st;
	FILE *f;
	int fd, r = 0;

	snprintf(head, sizeof(head), "%s", path);
	while (stat(head, &st) < 0) {
		slash = strrchr(head, '/');
		if (!slash || slash == head)
			return 0;
		*slash = '\0';
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real))
		return 0; /* not on a block device (tmpfs, FUSE, ...) */
	snprintf(flag, sizeof(flag), "%s/partition", real);
	if (access(flag, F_OK) != 0)
		return 0;
	slash = strrchr(real, '/');
	if (!slash)
		return 0;
	*slash = '\0'; /* the whole disk's directory */
	snprintf(flag, sizeof(flag), "%s/loop/backing_file", real);
	f = fopen(flag, "re");
	if (!f)
		return 0;
	back[0] = '\0';
	if (!fgets(back, sizeof(back), f))
		back[0] = '\0';
	fclose(f);
	back[strcspn(back, "\n")] = '\0';
	fd = back[0] == '/' ? open(back, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;
	if (fd >= 0) {
		char id[64];

		if (prov_marker_get(fd, id, sizeof(id)) == 1) {
			snprintf(dev, len, "/dev/%s (a partition of %s)", slash + 1, back);
			r = 1;
		}
		close(fd);
	}
	return r;
}

/* ---- the lab ---- */

/* A state file tells root which devices to mount, unmount and wipe: only a
 * file root (our euid) wrote, in a directory only root can change, is one. */
int fslab_lab_check_path(const char *path, struct fslab_err *e)
{
	char abs[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
	uid_t me = geteuid();
	struct stat sb;
	bool first = true;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)) ||
		    snprintf(abs, sizeof(abs), "%s/%s", cwd, path) >= (int)sizeof(abs))
			return 0; /* resolved (and refused if need be) later */
	} else {
		snprintf(abs, sizeof(abs), "%s", path);
	}
	/* Each component as given: a link must be ours or root's. */
	for (char *slash = strchr(abs + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (lstat(abs, &sb) == 0 && S_ISLNK(sb.st_mode) && sb.st_uid != me && sb.st_uid != 0) {
			fslab_err_set(e, -EPERM,
				 "refused: %s is a symbolic link owned by uid %u, so that user chooses where "
				 "the state file of %s is; give a path without it",
				 abs, (unsigned)sb.st_uid, path);
			*slash = '/';
			return -EPERM;
		}
		*slash = '/';
	}
	if (lstat(abs, &sb) == 0 && S_ISLNK(sb.st_mode) && sb.st_uid != me && sb.st_uid != 0)
		return fslab_err_set(e, -EPERM, "refused: %s is a symbolic link owned by uid %u, not a state file fslab wrote",
			 abs, (unsigned)sb.st_uid);
	snprintf(cwd, sizeof(cwd), "%s", abs);
	snprintf(dir, sizeof(dir), "%s", dirname(cwd));
	/* The nearest existing directory, then up to /. */
	while (!realpath(dir, real)) {
		if (errno != ENOENT || strcmp(dir, "/") == 0)
			return 0;
		snprintf(cwd, sizeof(cwd), "%s", dir);
		snprintf(dir, sizeof(dir), "%s", dirname(cwd));
		first = false;
	}
	for (;;) {
		char who[64];

		if (stat(real, &sb) < 0)
			return 0;
		if (sb.st_uid != me && sb.st_uid != 0)
			snprintf(who, sizeof(who), "belongs to uid %u", (unsigned)sb.st_uid);
		else if ((sb.st_mode & 022) && (first || !(sb.st_mode & S_ISVTX)))
			snprintf(who, sizeof(who), "is writable by %s", (sb.st_mode & 002) ? "every user" : "its group");
		else
			who[0] = '\0';
		if (who[0])
			return fslab_err_set(e, -EPERM, "refused: %s (on the way to the state file %s) %s, who "
				 "could replace the state file and make fslab act on any device; keep "
				 "the state in a directory only root can change (default %s)",
				 real, path, who, FSLAB_STATE_DEFAULT_PATH);
		if (strcmp(real, "/") == 0)
			return 0;
		snprintf(cwd, sizeof(cwd), "%s", real);
		snprintf(real, sizeof(real), "%s", dirname(cwd));
		first = false;
	}
}

/* The state file itself: ours (or root's), one link, writable by no one
 * else.  0 or -EPERM with the reason in e. */
static int lab_check_state_file(const char *path, const struct stat *sb, struct fslab_err *e)
{
	if (sb->st_uid != geteuid() && sb->st_uid != 0)
		return fslab_err_set(e, -EPERM,
			 "refused: the state file %s belongs to uid %u, not root: fslab did not write "
			 "it, and acting on what it names could change any device; nothing was done",
			 path, (unsigned)sb->st_uid);
	if (sb->st_mode & 022)
		return fslab_err_set(e, -EPERM,
			 "refused: the state file %s is writable by others (mode %04o): fslab writes "
			 "it 0600, and anyone could have changed what it names; nothing was done",
			 path, (unsigned)(sb->st_mode & 07777));
	if (sb->st_nlink != 1)
		return fslab_err_set(e, -EPERM,
			 "refused: the state file %s has %lu links (a hard link or copy is another "
			 "name for the lab, and would take other locks); use the lab's one state "
			 "file and remove the extra link",
			 path, (unsigned long)sb->st_nlink);
	return 0;
}

/* Locks name in dfd (the directory dir) with how (LOCK_SH, LOCK_EX): the
 * fd, or a negative errno with the refusal in e (holder: who has it). */
static int lab_lock(int dfd, const char *dir, const char *name, int how, const char *state_path,
		    const char *command, char holder[128], struct fslab_err *e)
{
	char what[PATH_MAX + NAME_MAX + 16];
	int r, tries = 0;

	/* -ESTALE: unlinked under us (a teardown's last act): the new one */
	while ((r = fslab_lock_at(dfd, name, how, command, holder, 128)) == -ESTALE && ++tries < 3)
		;
	if (r >= 0)
		return r;
	snprintf(what, sizeof(what), "%s/%s", dir, name);
	if (r == -EWOULDBLOCK)
		fslab_err_set(e, r,
			 "the lab (%s) is in use by %s; wait for it to finish, or stop it, then retry",
			 state_path, fslab_lock_holder_alive(holder) ? holder : "another fslab command");
	else if (r == -EINVAL)
		fslab_err_set(e, r,
			 "%s is not a lock file of ours (a link, another owner or not a regular "
			 "file); remove it",
			 what);
	else if (r == -ESTALE)
		fslab_err_set(e, r, "%s was replaced while we locked it; retry", what);
	else
		fslab_err_set(e, r, "cannot lock %s: %s", what, strerror(-r));
	return r;
}

/* A lab_id fit for a file name (setup writes a UUID). */
static bool lab_id_usable(const char *id)
{
	size_t n = strlen(id);

	if (n < 8 || n >= 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f') ||
		      (id[i] >= 'A' && id[i] <= 'F') || id[i] == '-'))
			return false;
	return true;
}

/* Takes the lab's own lock, LAB_LOCK_DIR/<lab_id>.lock, in the lab's mode
 * (an old state without a lab_id keeps only the lock beside it).  0 or a
 * negative errno with the refusal in e. */
static int lab_lock_id(struct fslab_lab *lab, const char *state_path, const char *command,
		       struct fslab_err *e)
{
	char name[64], holder[128];
	int fd;

	if (lab->id_lock_fd >= 0 || !lab_id_usable(lab->st.lab_id))
		return 0;
	if (lab->id_dfd < 0) {
		/* LAB_LOCK_DIR, made 0700 when missing: ours, no one else can write */
		fd = fslab_runtime_dir_open();
		if (fd < 0) {
			if (geteuid() != 0)
				return 0; /* a user's status: reads, changes nothing */
			return fslab_err_set(e, fd, "cannot use the lock directory %s: %s%s", LAB_LOCK_DIR,
				 strerror(-fd),
				 fd == -EPERM ? " (it must be root's directory, writable by no one else)"
					      : "");
		}
		lab->id_dfd = fd;
	}
	snprintf(lab->id, sizeof(lab->id), "%s", lab->st.lab_id);
	snprintf(name, sizeof(name), "%s.lock", lab->id);
	fd = lab_lock(lab->id_dfd, LAB_LOCK_DIR, name, lab->mode == FSLAB_LAB_EXCLUSIVE ? LOCK_EX : LOCK_SH,
		      state_path, command, holder, e);
	if (fd < 0)
		return fd;
	lab->id_lock_fd = fd;
	return 0;
}

static int lab_lease(struct fslab_lab *lab, const char *state_path, const char *command, struct fslab_err *e)
{
	char name[NAME_MAX + 8], holder[128];
	bool alone = lab->mode == FSLAB_LAB_RUN;
	int fd, dfd = lab->id_dfd >= 0 ? lab->id_dfd : lab->dfd;

	snprintf(name, sizeof(name), "%s.run", lab->id_dfd >= 0 ? lab->id : lab->name);
	fd = lab_lock(dfd, lab->id_dfd >= 0 ? LAB_LOCK_DIR : lab->dir, name, alone ? LOCK_EX : LOCK_SH,
		      state_path, command, holder, e);
	if (fd == -EWOULDBLOCK) {
		if (alone)
			fslab_err_set(e, fd,
				 "refused: another benchmark is running on the lab (%s): %s; two runs "
				 "on one lab perturb each other's figures. Wait for it or stop it, or "
				 "add --allow-concurrent to both if that is what you want",
				 state_path, fslab_lock_holder_alive(holder) ? holder : "another fslab run");
		else
			fslab_err_set(e, fd,
				 "refused: %s runs alone on the lab (%s) (it was started without "
				 "--allow-concurrent); wait for it to finish",
				 fslab_lock_holder_alive(holder) ? holder : "another fslab run", state_path);
	}
	if (fd < 0)
		return fd;
	lab->lease_fd = fd;
	return 0;
}

/* The real path of the state file: an existing one with every link
 * resolved (-ENOENT: no lab, said without creating anything); a new one
 * (is_new) in its directory, made when missing and resolved. */
static int lab_real_path(const char *state_path, bool is_new, char *real, struct fslab_err *e)
{
	char tmp[PATH_MAX], dir[PATH_MAX], base[NAME_MAX + 1];
	struct stat st;
	int r;

	if (!is_new) {
		if (lstat(state_path, &st) < 0 || !realpath(state_path, real))
			return fslab_err_set(e, -errno, "%s: %s", state_path, strerror(errno));
		return fslab_lab_check_path(real, e);
	}
	snprintf(tmp, sizeof(tmp), "%s", state_path);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", state_path);
	snprintf(base, sizeof(base), "%s", basename(tmp));
	r = fslab_mkdir_p(dir, 0755);
	if (r < 0)
		return fslab_err_set(e, r, "cannot create %s for the state file: %s", dir, strerror(-r));
	if (!realpath(dir, tmp))
		return fslab_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	if (snprintf(real, PATH_MAX, "%s/%s", strcmp(tmp, "/") ? tmp : "", base) >= PATH_MAX)
		return fslab_err_set(e, -ENAMETOOLONG, "%s: path too long", state_path);
	return 0;
}

/* Fills the lab's path, directory, name and log path from the state
 * file's real path and opens its directory. */
static int lab_place(struct fslab_lab *lab, const char *state_path, const char *real, struct fslab_err *e)
{
	char tmp[PATH_MAX];

	snprintf(lab->path, sizeof(lab->path), "%s", real);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(lab->dir, sizeof(lab->dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", real);
	if (snprintf(lab->name, sizeof(lab->name), "%s", basename(tmp)) >= (int)sizeof(lab->name) - 8)
		return fslab_err_set(e, -ENAMETOOLONG, "%s: name too long", state_path);
	snprintf(lab->log_path, sizeof(lab->log_path), "%s.log", lab->path);
	lab->dfd = fslab_dir_open(lab->dir);
	if (lab->dfd < 0)
		return fslab_err_set(e, lab->dfd, "%s: %s", lab->dir, strerror(-lab->dfd));
	return 0;
}

/* NAME.lock beside the state file, in the lab's mode. */
static int lab_lock_beside(struct fslab_lab *lab, const char *state_path, const char *command,
			   struct fslab_err *e)
{
	char lockname[NAME_MAX + 8], holder[128];
	int r;

	snprintf(lockname, sizeof(lockname), "%s.lock", lab->name);
	r = lab_lock(lab->dfd, lab->dir, lockname, lab->mode == FSLAB_LAB_EXCLUSIVE ? LOCK_EX : LOCK_SH,
		     state_path, command, holder, e);
	if (r < 0)
		return r;
	lab->lock_fd = r;
	return 0;
}

/* Under the lock: for a new lab, no state file yet; for an existing one,
 * the file we locked for is the one the caller named, and a state file of
 * ours: loaded, then the lab's own lock taken. */
static int lab_load(struct fslab_lab *lab, const char *state_path, bool is_new,
		    const char *command, struct fslab_err *e)
{
	struct stat st, named;
	int r;

	if (fstatat(lab->dfd, lab->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		if (r == -ENOENT && is_new)
			return 0;
		return fslab_err_set(e, r, "%s: %s", state_path, strerror(-r));
	}
	if (is_new)
		return fslab_err_set(e, -EEXIST, "a lab is already set up (state file %s); run fslab teardown --state %s "
			 "first, or give another --state",
			 state_path, state_path);
	if (!S_ISREG(st.st_mode))
		return fslab_err_set(e, -EINVAL, "%s is not a regular file; not a state file fslab wrote", lab->path);
	r = lab_check_state_file(state_path, &st, e);
	if (r < 0)
		return r;
	if (stat(state_path, &named) < 0 || named.st_dev != st.st_dev || named.st_ino != st.st_ino)
		return fslab_err_set(e, -ESTALE, "the state file %s changed while it was being locked (another command "
			 "replaced it); retry",
			 state_path);
	r = fslab_state_load_at(lab->dfd, lab->name, state_path, &lab->st, e);
	if (r == -ENOENT)
		return fslab_err_set(e, r, "%s: %s", state_path, strerror(ENOENT));
	if (r < 0)
		return r;
	lab->have_state = true;
	return lab_lock_id(lab, state_path, command, e);
}

int fslab_lab_open(const char *state_path, enum fslab_lab_mode mode, unsigned flags,
		   const char *command, struct fslab_lab **labp, struct fslab_err *e)
{
	bool is_new = flags & FSLAB_LAB_NEW;
	bool run = mode == FSLAB_LAB_RUN || mode == FSLAB_LAB_RUN_CONCURRENT;
	char real[PATH_MAX];
	struct fslab_lab *lab;
	int r;

	*labp = NULL;
	if (!state_path)
		state_path = fslab_state_default_path();
	if (strlen(state_path) >= PATH_MAX)
		return fslab_err_set(e, -ENAMETOOLONG, "%s: path too long", state_path);
	lab = calloc(1, sizeof(*lab));
	if (!lab)
		return fslab_err_set(e, -ENOMEM, "out of memory");
	lab->mode = mode;
	lab->dfd = lab->lock_fd = lab->lease_fd = lab->log_fd = -1;
	lab->id_dfd = lab->id_lock_fd = -1;
	r = fslab_lab_check_path(state_path, e);
	if (r == 0)
		r = lab_real_path(state_path, is_new, real, e);
	if (r == 0)
		r = lab_place(lab, state_path, real, e);
	if (r == 0)
		r = lab_lock_beside(lab, state_path, command, e);
	if (r == 0)
		r = lab_load(lab, state_path, is_new, command, e);
	/* A run writes into the lab's mounts and may remount them. */
	if (r == 0 && run && lab->have_state && lab->st.phase == FSLAB_PHASE_READY)
		r = fslab_lab_prove(lab, true, e);
	if (r == 0 && run)
		r = lab_lease(lab, state_path, command, e);
	if (r < 0) {
		fslab_lab_close(lab);
		return r;
	}
	*labp = lab;
	return 0;
}

/* The holder's name in a lock file is stale once we let go (clear: we
 * held it alone); a later shared holder writes its own only into an
 * empty file. */
static void lab_unlock(int fd, bool clear)
{
	if (fd < 0)
		return;
	if (clear && ftruncate(fd, 0) < 0) {
		/* only a name for messages */
	}
	close(fd);
}

void fslab_lab_close(struct fslab_lab *lab)
{
	if (!lab)
		return;
	lab_unlock(lab->lease_fd, lab->mode == FSLAB_LAB_RUN);
	lab_unlock(lab->lock_fd, lab->mode == FSLAB_LAB_EXCLUSIVE);
	lab_unlock(lab->id_lock_fd, lab->mode == FSLAB_LAB_EXCLUSIVE);
	if (lab->id_dfd >= 0)
		close(lab->id_dfd);
	if (lab->log_fd >= 0)
		close(lab->log_fd);
	if (lab->dfd >= 0)
		close(lab->dfd);
	free(lab);
}

struct fslab_state *fslab_lab_state(struct fslab_lab *lab)
{
	return &lab->st;
}

const char *fslab_lab_path(const struct fslab_lab *lab)
{
	return lab->path;
}

bool fslab_lab_has_state(const struct fslab_lab *lab)
{
	return lab->have_state;
}

bool fslab_lab_can_undo(const struct fslab_lab *lab)
{
	return lab->have_state && lab->st.version >= 2 && lab->st.lab_id[0];
}

int fslab_lab_save(struct fslab_lab *lab, unsigned flags, struct fslab_err *e)
{
	int r;

	if (lab->mode != FSLAB_LAB_EXCLUSIVE)
		return -EPERM;
	/* Setup: the lab's own lock from its first save on, so that a copy
	 * of the state made meanwhile cannot be used under it. */
	if (lab->id_lock_fd < 0 && lab_id_usable(lab->st.lab_id)) {
		fslab_note_err(e);
		r = lab_lock_id(lab, lab->path, "fslab setup", e);
		if (r < 0)
			return r;
	}
	r = fslab_state_save_at(lab->dfd, lab->name, &lab->st, flags);
	if (r == 0) {
		lab->have_state = true;
		lab->st.version = FSLAB_STATE_VERSION;
	}
	return r;
}

int fslab_lab_reload(struct fslab_lab *lab, struct fslab_err *e)
{
	int r = fslab_state_load_at(lab->dfd, lab->name, lab->path, &lab->st, e);

	lab->have_state = r == 0;
	return r;
}

int fslab_lab_remove_state(struct fslab_lab *lab)
{
	static const char *const ext[] = { "log", "run", "mount", "lock" };
	char name[NAME_MAX + 8];

	if (lab->mode != FSLAB_LAB_EXCLUSIVE)
		return -EPERM;
	if (unlinkat(lab->dfd, lab->name, 0) < 0 && errno != ENOENT)
		return -errno;
	lab->have_state = false;
	/* Then its files, stale ones harmless: the log, the lock files by its
	 * id (a copy of the state names a lab that is gone, refused on its
	 * own) and beside it, NAME.lock last, still held alone.  Whoever
	 * opened NAME.lock before it went finds it replaced once locked
	 * (fslab_lock_at) and takes the new one, under which no state is. */
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(name, sizeof(name), "%s.%s", lab->id, ext[i]);
		if (lab->id_dfd >= 0)
			unlinkat(lab->id_dfd, name, 0);
		snprintf(name, sizeof(name), "%s.%s", lab->name, ext[i]);
		unlinkat(lab->dfd, name, 0);
	}
	return 0;
}

int fslab_lab_log_fd(struct fslab_lab *lab)
{
	char name[NAME_MAX + 8];
	int fd;

	if (lab->log_fd >= 0)
		return lab->log_fd;
	snprintf(name, sizeof(name), "%s.log", lab->name);
	fd = fslab_open_own_at(lab->dfd, name, O_WRONLY | O_APPEND, 0600);
	if (fd >= 0)
		lab->log_fd = fd;
	return fd;
}

void prov_disk_ident_record(struct fslab_state *st)
{
	struct fslab_devinfo di;

	st->disk_serial[0] = st->disk_wwid[0] = '\0';
	memset(&st->disk_backing_id, 0, sizeof(st->disk_backing_id));
	if (fslab_devinfo_read(st->disk, &di, NULL) == 0) {
		snprintf(st->disk_serial, sizeof(st->disk_serial), "%s", di.serial);
		snprintf(st->disk_wwid, sizeof(st->disk_wwid), "%s", di.wwid);
	}
	if (!st->image[0] && prov_loop_backing(st->disk, &st->disk_backing_id) < 0)
		memset(&st->disk_backing_id, 0, sizeof(st->disk_backing_id));
}

int prov_disk_ident_check(const struct fslab_state *st, struct fslab_err *e)
{
	struct fslab_devinfo di;
	struct fslab_state_id back;
	struct fslab_err err = FSLAB_ERR_INIT;

	if (st->disk_serial[0] || st->disk_wwid[0]) {
		if (fslab_devinfo_read(st->disk, &di, &err) < 0)
			return fslab_err_set(e, -EINVAL, "%s: %s", st->disk, err.msg);
		if (strcmp(di.serial, st->disk_serial) != 0)
			return fslab_err_set(e, -EINVAL, "%s reports serial '%s', the lab's disk '%s'", st->disk,
				 di.serial, st->disk_serial);
		if (strcmp(di.wwid, st->disk_wwid) != 0)
			return fslab_err_set(e, -EINVAL, "%s reports WWID '%s', the lab's disk '%s'", st->disk, di.wwid,
				 st->disk_wwid);
	}
	if (st->disk_backing_id.known &&
	    (prov_loop_backing(st->disk, &back) < 0 || !back.known ||
	     back.dev != st->disk_backing_id.dev || back.ino != st->disk_backing_id.ino))
		return fslab_err_set(e, -EINVAL, "the loop device %s is backed by another file than the lab's disk "
			 "(inode %llu on device %llu when setup ran)",
			 st->disk, (unsigned long long)st->disk_backing_id.ino,
			 (unsigned long long)st->disk_backing_id.dev);
	return 0;
}

/* The disk the state names is the lab's: for an image, the image carries
 * the lab's marker (a version 1 state: none to check) and the recorded
 * loop device (its device number as setup recorded it) is backed by that
 * very file; for a disk, its GPT disk GUID is the lab's.  d is filled. */
static int lab_prove_disk(const struct fslab_state *st, struct prov_disk *d, struct fslab_err *e)
{
	struct stat sb;
	char guid[40], found[128];
	struct fslab_err ident = FSLAB_ERR_INIT;
	int r;

	if (!st->disk[0])
		return fslab_err_set(e, -EINVAL, "the state records no disk");
	if (stat(st->disk, &sb) < 0 || !S_ISBLK(sb.st_mode))
		return fslab_err_set(e, -ENODEV, "the lab's disk %s is missing or not a block device", st->disk);
	if (st->disk_rdev && (uint64_t)sb.st_rdev != st->disk_rdev)
		return fslab_err_set(e, -EINVAL, "%s is not the device setup claimed (device number %u:%u, not "
			 "the recorded one)", st->disk, major(sb.st_rdev), minor(sb.st_rdev));
	if (st->image[0]) {
		struct fslab_state_id id, back;
		int fd = open(st->image, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

		if (fd < 0)
			return fslab_err_set(e, -errno, "the lab's image %s: %s", st->image, strerror(errno));
		prov_id_of_fd(fd, &id);
		r = st->version >= 2 ? prov_marker_check(fd, st->lab_id, found, sizeof(found)) : 1;
		close(fd);
		if (r != 1)
			return fslab_err_set(e, -EINVAL, "%s is not this lab's image (%s)", st->image,
				 r < 0 ? strerror(-r) : found);
		if ((st->image_id.known && (st->image_id.dev != id.dev || st->image_id.ino != id.ino)) ||
		    prov_loop_backing(st->disk, &back) < 0 || back.dev != id.dev || back.ino != id.ino)
			return fslab_err_set(e, -EINVAL, "%s is not the loop device setup attached to %s", st->disk,
				 st->image);
	} else {
		r = prov_gpt_guid(st->disk, guid, sizeof(guid));
		if (r < 0 || !st->disk_guid[0] || strcasecmp(guid, st->disk_guid) != 0)
			return fslab_err_set(e, -EINVAL, "%s does not carry the lab's GPT (disk GUID %s)", st->disk,
				 st->disk_guid[0] ? st->disk_guid : "none recorded");
		/* the GUID is in the contents: a clone carries it too */
		if (prov_disk_ident_check(st, &ident) < 0)
			return fslab_err_set(e, -EINVAL, "%s carries the lab's GPT but is not the lab's disk: %s "
				 "(a copy of its contents?)", st->disk, fslab_err_msg(&ident));
	}
	if (prov_disk_inspect(st->disk, d, e) < 0)
		return -ENODEV;
	if (d->is_partition)
		return fslab_err_set(e, -EINVAL, "%s is a partition, not a whole disk", st->disk);
	return 0;
}

/* p's device is a partition of the proven disk d; with mounted, it is
 * what is mounted at p's mount point.  0 or -EINVAL with err. */
static int lab_prove_partition(const struct prov_disk *d, const struct fslab_state_partition *p,
			       bool mounted, struct fslab_err *e)
{
	char src[PATH_MAX], fstype[64];
	struct fslab_err why = FSLAB_ERR_INIT;
	struct stat sb, ssb;
	int r;

	if (stat(p->device, &sb) < 0 || !S_ISBLK(sb.st_mode) || sb.st_rdev == d->devno ||
	    !prov_devno_on_disk(sb.st_rdev, d))
		return fslab_err_set(e, -EINVAL, "[%s] %s is not a partition of the lab's disk %s", p->name,
			 p->device, d->path);
	if (!mounted)
		return 0;
	if (prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype)) != 1 ||
	    stat(src, &ssb) < 0 || !S_ISBLK(ssb.st_mode) || ssb.st_rdev != sb.st_rdev)
		return fslab_err_set(e, -EINVAL, "[%s] %s is not what is mounted at %s", p->name, p->device,
			 p->mountpoint);
	/* A mount that does not answer would hang whoever uses it next. */
	r = fslab_lab_mount_answers(p, NULL, &why);
	if (r < 0)
		return fslab_err_set(e, r, "[%s] %s", p->name, fslab_err_msg(&why));
	return 0;
}

int fslab_lab_prove(const struct fslab_lab *lab, bool mounted, struct fslab_err *e)
{
	const struct fslab_state *st = &lab->st;
	struct prov_disk d;
	struct fslab_err why = FSLAB_ERR_INIT;
	int r;

	r = lab_prove_disk(st, &d, &why);
	for (size_t i = 0; r == 0 && i < st->n_partitions; i++) {
		struct stat sb;

		/* status names a missing partition as damage itself */
		if (!mounted && stat(st->partitions[i].device, &sb) < 0 && errno == ENOENT)
			continue;
		if (st->partitions[i].device[0])
			r = lab_prove_partition(&d, &st->partitions[i],
						mounted && st->partitions[i].mount_method != FSLAB_MOUNT_NONE,
						&why);
	}
	if (r < 0)
		fslab_err_set(e, r,
			 "refused: %s is not a lab fslab set up as it stands now: %s; nothing was "
			 "used. If the lab is damaged, run fslab teardown --state %s",
			 lab->path, fslab_err_msg(&why), lab->path);
	return r;
}

/* NAME.mount with how (LOCK_SH / LOCK_EX), waiting up to LAB_MOUNT_WAIT_S. */
static int lab_mounts_lock(struct fslab_lab *lab, int how, const char *command)
{
	char name[NAME_MAX + 8], holder[128];
	double deadline = fslab_now() + LAB_MOUNT_WAIT_S;
	int fd, dfd = lab->id_dfd >= 0 ? lab->id_dfd : lab->dfd;

	snprintf(name, sizeof(name), "%s.mount", lab->id_dfd >= 0 ? lab->id : lab->name);
	for (;;) {
		fd = fslab_lock_at(dfd, name, how, command, holder, sizeof(holder));
		if (fd != -EWOULDBLOCK || fslab_now() > deadline)
			return fd;
		usleep(20000);
	}
}

int fslab_lab_mounts_hold(struct fslab_lab *lab)
{
	return lab_mounts_lock(lab, LOCK_SH, "fslab status");
}

void fslab_lab_mounts_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* Unmounts and mounts again the lab partition called name, proven the
 * lab's, under the exclusive NAME.mount lock; purpose starts each message
 * in e ("cold mode"). */
static int lab_remount_as(struct fslab_lab *lab, const char *name, const char *purpose, struct fslab_err *e)
{
	const struct fslab_state_partition *p;
	struct fslab_err e2 = FSLAB_ERR_INIT;
	struct prov_disk d;
	char why[512];
	int fd, r;

	p = fslab_state_find(&lab->st, name);
	if (!p || p->mount_method == FSLAB_MOUNT_NONE)
		return fslab_err_set(e, -ENOENT, "%s: %s is not a mounted partition of the lab %s", purpose, name,
			 lab->path);
	r = fslab_spec_options_check(p->type, FSLAB_SPEC_MOUNT_OPTIONS, p->mount_options, why, sizeof(why));
	if (r < 0)
		return fslab_err_set(e, r, "%s", why);
	r = lab_prove_disk(&lab->st, &d, &e2);
	if (r == 0)
		r = lab_prove_partition(&d, p, true, &e2);
	if (r < 0)
		return fslab_err_set(e, r, "%s: not remounting %s: %s", purpose, p->mountpoint,
				     fslab_err_msg(&e2));
	fd = lab_mounts_lock(lab, LOCK_EX, "fslab run (remount)");
	if (fd < 0)
		return fslab_err_set(e, fd, "%s: cannot lock the lab's mounts (%s/%s.mount): %s", purpose,
			 lab->dir, lab->name, strerror(-fd));
	r = fslab_lab_unmount(&lab->st, p, e);
	if (r == 0)
		r = fslab_lab_mount(&lab->st, p, e);
	close(fd);
	if (r < 0)
		fslab_note_fail(e, r, "%s: remount of %s at %s failed: %s", purpose, p->device,
			 p->mountpoint, strerror(-r));
	return r;
}

static bool lab_alone(const struct fslab_lab *lab)
{
	return lab && (lab->mode == FSLAB_LAB_RUN || lab->mode == FSLAB_LAB_EXCLUSIVE);
}

int fslab_lab_remount(void *ctx, const char *name, char *why, size_t whylen)
{
	struct fslab_lab *lab = ctx;
	struct fslab_err e = FSLAB_ERR_INIT;
	int r;

	if (!lab_alone(lab))
		r = fslab_err_set(&e, -EPERM,
				  "cold mode: a remount needs the lab alone, and this run shares it "
				  "(--allow-concurrent); cannot drop the page cache of %s",
				  name);
	else
		r = lab_remount_as(lab, name, "cold mode", &e);
	if (r < 0 && whylen)
		snprintf(why, whylen, "%s", fslab_err_msg(&e));
	return r;
}

int fslab_lab_fuse_refresh(struct fslab_lab *lab, const char *name, struct fslab_err *e)
{
	const struct fslab_state_partition *p = fslab_state_find(&lab->st, name);

	if (!p || p->mount_method != FSLAB_MOUNT_FUSE)
		return 0;
	if (!lab_alone(lab)) {
		fslab_debug(FSLAB_DBG_PROVISION,
			    "%s: not remounted before the run: the lab is shared (--allow-concurrent), "
			    "so fusefat allocates on from where the last run left it",
			    name);
		return 0;
	}
	return lab_remount_as(lab, name, "before the run, remounting fusefat", e);
}
