/* The lab object: the state file reached by identity, its locks, its log;
 * and the creation markers provision uses to prove what it made. */
#include "lab.h"
#include "fileutil.h"
#include "lab_mount.h"
#include "lock.h"
#include "log.h"
#include "prov_int.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LAB_MOUNT_WAIT_S 30

struct fslab_lab {
	enum fslab_lab_mode mode;
	char path[PATH_MAX];      /* real path of the state file */
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];  /* state file name in dir */
	char log_path[PATH_MAX + 8];
	int dfd;
	int lock_fd, lease_fd, log_fd;
	bool have_state;
	struct fslab_state st;
};

/* ---- creation markers ---- */

int prov_marker_set(int fd, const char *lab_id)
{
	if (fsetxattr(fd, PROV_MARKER_XATTR, lab_id, strlen(lab_id), 0) < 0)
		return -errno;
	return 0;
}

int prov_marker_check(int fd, const char *lab_id, char *found, size_t len)
{
	char buf[64];
	ssize_t n = fgetxattr(fd, PROV_MARKER_XATTR, buf, sizeof(buf) - 1);

	if (len)
		snprintf(found, len, "%s", "no fslab marker");
	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
	buf[n] = '\0';
	if (lab_id[0] && strcmp(buf, lab_id) == 0)
		return 1;
	if (len)
		snprintf(found, len, "the marker of another lab (%s)", buf);
	return 0;
}

void prov_marker_remove(int fd)
{
	if (fremovexattr(fd, PROV_MARKER_XATTR) < 0) {
		/* absent already, or the filesystem has no xattrs: nothing to undo */
	}
}

void prov_id_of_fd(int fd, struct fslab_state_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (fstat(fd, &st) == 0) {
		id->known = true;
		id->dev = (uint64_t)st.st_dev;
		id->ino = (uint64_t)st.st_ino;
	}
}

bool prov_id_matches(const struct fslab_state_id *id, const struct stat *st)
{
	return id->known && id->dev == (uint64_t)st->st_dev && id->ino == (uint64_t)st->st_ino;
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
		char found[128];

		if (prov_marker_check(fd, "", found, sizeof(found)) == 0 &&
		    strncmp(found, "the marker of", 13) == 0) {
			snprintf(dev, len, "/dev/%s (a partition of %s)", slash + 1, back);
			r = 1;
		}
		close(fd);
	}
	return r;
}

/* ---- the lab ---- */

static int lab_lock_error(int r, const char *what, const char *holder, const char *state_path,
			  char *err, size_t errlen)
{
	if (r == -EWOULDBLOCK)
		snprintf(err, errlen,
			 "the lab (%s) is in use by %s; wait for it to finish, or stop it, then retry",
			 state_path, fslab_lock_holder_alive(holder) ? holder : "another fslab command");
	else if (r == -EINVAL)
		snprintf(err, errlen,
			 "%s is not a lock file of ours (a link, another owner or not a regular "
			 "file); remove it",
			 what);
	else if (r == -ESTALE)
		snprintf(err, errlen, "%s was replaced while we locked it; retry", what);
	else
		snprintf(err, errlen, "cannot lock %s: %s", what, strerror(-r));
	return r;
}

static int lab_lease(struct fslab_lab *lab, const char *state_path, const char *command, char *err,
		     size_t errlen)
{
	char name[NAME_MAX + 8], holder[128];
	bool alone = lab->mode == FSLAB_LAB_RUN;
	int fd;

	snprintf(name, sizeof(name), "%s.run", lab->name);
	fd = fslab_lock_at(lab->dfd, name, alone ? LOCK_EX : LOCK_SH, command, holder, sizeof(holder));
	if (fd == -EWOULDBLOCK) {
		if (alone)
			snprintf(err, errlen,
				 "refused: another benchmark is running on the lab (%s): %s; two runs "
				 "on one lab perturb each other's figures. Wait for it or stop it, or "
				 "add --allow-concurrent to both if that is what you want",
				 state_path, fslab_lock_holder_alive(holder) ? holder : "another fslab run");
		else
			snprintf(err, errlen,
				 "refused: %s runs alone on the lab (%s) (it was started without "
				 "--allow-concurrent); wait for it to finish",
				 fslab_lock_holder_alive(holder) ? holder : "another fslab run", state_path);
		return fd;
	}
	if (fd < 0) {
		char what[PATH_MAX + NAME_MAX + 16];

		snprintf(what, sizeof(what), "%s/%s", lab->dir, name);
		return lab_lock_error(fd, what, holder, state_path, err, errlen);
	}
	lab->lease_fd = fd;
	return 0;
}

int fslab_lab_open(const char *state_path, enum fslab_lab_mode mode, unsigned flags,
		   const char *command, struct fslab_lab **labp, char *err, size_t errlen)
{
	struct fslab_lab *lab;
	char tmp[PATH_MAX], real[PATH_MAX], lockname[NAME_MAX + 8], holder[128];
	struct stat st, named;
	bool is_new = flags & FSLAB_LAB_NEW;
	int r;

	*labp = NULL;
	if (!state_path)
		state_path = fslab_state_default_path();
	lab = calloc(1, sizeof(*lab));
	if (!lab) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lab->mode = mode;
	lab->dfd = lab->lock_fd = lab->lease_fd = lab->log_fd = -1;

	if (snprintf(tmp, sizeof(tmp), "%s", state_path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", state_path);
		r = -ENAMETOOLONG;
		goto fail;
	}
	if (!is_new) {
		/* No lab: say so without creating the lock file or its directory. */
		if (lstat(state_path, &st) < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", state_path, strerror(errno));
			goto fail;
		}
		if (!realpath(state_path, real)) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", state_path, strerror(errno));
			goto fail;
		}
	} else {
		char dir[PATH_MAX], base[NAME_MAX + 1];

		snprintf(dir, sizeof(dir), "%s", dirname(tmp));
		snprintf(tmp, sizeof(tmp), "%s", state_path);
		snprintf(base, sizeof(base), "%s", basename(tmp));
		r = fslab_mkdir_p(dir, 0755);
		if (r < 0) {
			snprintf(err, errlen, "cannot create %s for the state file: %s", dir, strerror(-r));
			goto fail;
		}
		if (!realpath(dir, real)) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			goto fail;
		}
		if (snprintf(tmp, sizeof(tmp), "%s/%s", strcmp(real, "/") ? real : "", base) >=
		    (int)sizeof(tmp)) {
			snprintf(err, errlen, "%s: path too long", state_path);
			r = -ENAMETOOLONG;
			goto fail;
		}
		snprintf(real, sizeof(real), "%s", tmp);
	}
	snprintf(lab->path, sizeof(lab->path), "%s", real);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(lab->dir, sizeof(lab->dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", real);
	if (snprintf(lab->name, sizeof(lab->name), "%s", basename(tmp)) >= (int)sizeof(lab->name) - 8) {
		snprintf(err, errlen, "%s: name too long", state_path);
		r = -ENAMETOOLONG;
		goto fail;
	}
	snprintf(lab->log_path, sizeof(lab->log_path), "%s.log", lab->path);
	lab->dfd = fslab_dir_open(lab->dir);
	if (lab->dfd < 0) {
		r = lab->dfd;
		snprintf(err, errlen, "%s: %s", lab->dir, strerror(-r));
		goto fail;
	}
	snprintf(lockname, sizeof(lockname), "%s.lock", lab->name);
	r = fslab_lock_at(lab->dfd, lockname, mode == FSLAB_LAB_EXCLUSIVE ? LOCK_EX : LOCK_SH, command,
			  holder, sizeof(holder));
	if (r < 0) {
		char what[PATH_MAX + NAME_MAX + 16];

		snprintf(what, sizeof(what), "%s/%s", lab->dir, lockname);
		lab_lock_error(r, what, holder, state_path, err, errlen);
		goto fail;
	}
	lab->lock_fd = r;

	if (fstatat(lab->dfd, lab->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT || !is_new) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", state_path, strerror(errno));
			goto fail;
		}
	} else if (is_new) {
		snprintf(err, errlen,
			 "a lab is already set up (state file %s); run fslab teardown --state %s "
			 "first, or give another --state",
			 state_path, state_path);
		r = -EEXIST;
		goto fail;
	} else {
		/* The file we locked for must be the one the caller named. */
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s is not a regular file; not a state file fslab wrote",
				 lab->path);
			r = -EINVAL;
			goto fail;
		}
		if (stat(state_path, &named) < 0 || named.st_dev != st.st_dev ||
		    named.st_ino != st.st_ino) {
			snprintf(err, errlen,
				 "the state file %s changed while it was being locked (another "
				 "command replaced it); retry",
				 state_path);
			r = -ESTALE;
			goto fail;
		}
		r = fslab_state_load_at(lab->dfd, lab->name, state_path, &lab->st, err, errlen);
		if (r < 0) {
			if (r == -ENOENT)
				snprintf(err, errlen, "%s: %s", state_path, strerror(ENOENT));
			goto fail;
		}
		lab->have_state = true;
	}
	if (mode == FSLAB_LAB_RUN || mode == FSLAB_LAB_RUN_CONCURRENT) {
		r = lab_lease(lab, state_path, command, err, errlen);
		if (r < 0)
			goto fail;
	}
	*labp = lab;
	return 0;
fail:
	fslab_lab_close(lab);
	return r;
}

void fslab_lab_close(struct fslab_lab *lab)
{
	if (!lab)
		return;
	/* The holder's name in a lock file is stale once we let go; a later
	 * shared holder writes its own only into an empty file. */
	if (lab->lease_fd >= 0) {
		if (lab->mode == FSLAB_LAB_RUN && ftruncate(lab->lease_fd, 0) < 0) {
			/* only a name for messages */
		}
		close(lab->lease_fd);
	}
	if (lab->lock_fd >= 0) {
		if (lab->mode == FSLAB_LAB_EXCLUSIVE && ftruncate(lab->lock_fd, 0) < 0) {
			/* only a name for messages */
		}
		close(lab->lock_fd);
	}
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

int fslab_lab_save(struct fslab_lab *lab, unsigned flags)
{
	int r;

	if (lab->mode != FSLAB_LAB_EXCLUSIVE)
		return -EPERM;
	r = fslab_state_save_at(lab->dfd, lab->name, &lab->st, flags);
	if (r == 0) {
		lab->have_state = true;
		lab->st.version = FSLAB_STATE_VERSION;
	}
	return r;
}

int fslab_lab_reload(struct fslab_lab *lab, char *err, size_t errlen)
{
	int r = fslab_state_load_at(lab->dfd, lab->name, lab->path, &lab->st, err, errlen);

	lab->have_state = r == 0;
	return r;
}

int fslab_lab_remove_state(struct fslab_lab *lab)
{
	char log[NAME_MAX + 8];

	if (lab->mode != FSLAB_LAB_EXCLUSIVE)
		return -EPERM;
	snprintf(log, sizeof(log), "%s.log", lab->name);
	if (unlinkat(lab->dfd, log, 0) < 0 && errno != ENOENT) {
		/* the log is a convenience: a stale one is harmless */
	}
	if (unlinkat(lab->dfd, lab->name, 0) < 0 && errno != ENOENT)
		return -errno;
	lab->have_state = false;
	return 0;
}

int fslab_lab_log_fd(struct fslab_lab *lab)
{
	char name[NAME_MAX + 8];
	struct stat st;
	int fd;

	if (lab->log_fd >= 0)
		return lab->log_fd;
	snprintf(name, sizeof(name), "%s.log", lab->name);
	fd = openat(lab->dfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		    0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EINVAL;
	}
	lab->log_fd = fd;
	return fd;
}

const char *fslab_lab_log_path(const struct fslab_lab *lab)
{
	return lab->log_path;
}

/* NAME.mount with how (LOCK_SH / LOCK_EX), waiting up to LAB_MOUNT_WAIT_S. */
static int lab_mounts_lock(struct fslab_lab *lab, int how, const char *command)
{
	char name[NAME_MAX + 8], holder[128];
	double deadline = prov_now() + LAB_MOUNT_WAIT_S;
	int fd;

	snprintf(name, sizeof(name), "%s.mount", lab->name);
	for (;;) {
		fd = fslab_lock_at(lab->dfd, name, how, command, holder, sizeof(holder));
		if (fd != -EWOULDBLOCK || prov_now() > deadline)
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

int fslab_lab_remount(void *ctx, const char *name, char *why, size_t whylen)
{
	struct fslab_lab *lab = ctx;
	const struct fslab_state_partition *p;
	int fd, r;

	if (!lab || (lab->mode != FSLAB_LAB_RUN && lab->mode != FSLAB_LAB_EXCLUSIVE)) {
		snprintf(why, whylen,
			 "cold mode: a remount needs the lab alone, and this run shares it "
			 "(--allow-concurrent); cannot drop the page cache of %s",
			 name);
		return -EPERM;
	}
	p = fslab_state_find(&lab->st, name);
	if (!p || p->mount_method == FSLAB_MOUNT_NONE) {
		snprintf(why, whylen, "cold mode: %s is not a mounted partition of the lab %s", name,
			 lab->path);
		return -ENOENT;
	}
	fd = lab_mounts_lock(lab, LOCK_EX, "fslab run (remount)");
	if (fd < 0) {
		snprintf(why, whylen, "cold mode: cannot lock the lab's mounts (%s/%s.mount): %s",
			 lab->dir, lab->name, strerror(-fd));
		return fd;
	}
	r = fslab_lab_unmount(&lab->st, p);
	if (r == 0)
		r = fslab_lab_mount(&lab->st, p);
	close(fd);
	if (r < 0)
		snprintf(why, whylen, "cold mode: remount of %s at %s failed: %s", p->device,
			 p->mountpoint, strerror(-r));
	return r;
}
