/* fslab setup: checks every safety rule, then partitions, formats and
 * mounts, keeping the state file current after each step so that
 * fslab teardown can undo whatever part of it happened. */
#include "exec.h"
#include "fileutil.h"
#include "lab_mount.h"
#include "log.h"
#include "discard.h"
#include "device_identity.h"
#include "precond.h"
#include "quiet.h"
#include "progress.h"
#include "prov_int.h"
#include "fslab/provision.h"
#include "size.h"
#include "stopsig.h"
#include "table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

static volatile sig_atomic_t setup_stop;

static void setup_on_signal(int sig)
{
	setup_stop = sig;
}

struct setup_run {
	const struct fslab_setup_opts *o;
	struct fslab_spec default_spec;
	const struct fslab_spec *spec;
	char state_path[PATH_MAX];
	char mount_root[PATH_MAX];
	char image[PATH_MAX];
	char log_path[PATH_MAX + 8];
	/* The lab's state, changed in place (fslab_lab_state); NULL until
	 * the lab is taken (setup_take_lab). */
	struct fslab_state *st;
	struct fslab_lab_plan plan;
	struct prov_disk disk;
	char partuuids[FSLAB_MAX_FS][40];
	bool image_exists;
	uint64_t image_bytes;
	int image_fd;            /* the image, flock'ed for the whole setup */
	struct fslab_lab *lab;   /* held exclusive from the first write on */
	int disk_lock_fd;
	bool state_written;
	char env_lab_id[64];     /* FSLAB_LAB_ID=... for mkfs */
	struct fslab_precond_decision precond; /* what --precondition/--purge mean here */
	struct fslab_err *e;     /* the caller's, or err_own */
	struct fslab_err err_own;
};

/* An absolute form of path (relative to the cwd), without resolving
 * symlinks: the state must name what the user named. */
static int setup_abspath(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];
	int w;

	if (path[0] == '/')
		w = snprintf(out, len, "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		w = snprintf(out, len, "%s/%s", cwd, path);
	else
		return -errno;
	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	/* drop trailing slashes */
	for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	return 0;
}

/* Durable (fsync'd) saves where a machine crash matters: before the first
 * write to the disk, and at the end.  The others are atomic renames only,
 * which is what surviving a killed fslab needs, and much cheaper. */
/* phase FSLAB_PHASE_NONE: the phase stays as it is. */
static int setup_save_how(struct setup_run *s, enum fslab_phase phase, bool durable)
{
	int r;

	if (phase != FSLAB_PHASE_NONE)
		s->st->phase = phase;
	r = fslab_lab_save(s->lab, durable ? 0 : FSLAB_STATE_SAVE_NOSYNC, s->e);
	if (r < 0)
		return prov_fail_errno(s, r, "cannot write the state file %s", s->state_path);
	s->state_written = true;
	return 0;
}

static int setup_save(struct setup_run *s, enum fslab_phase phase)
{
	return setup_save_how(s, phase, false);
}

/* Between steps: has the user asked us to stop? */
static bool setup_stopped(struct setup_run *s)
{
	if (!setup_stop)
		return false;
	prov_fail(s, -EINTR,
		   "interrupted by signal %d after step '%s'; the lab is half set up: run fslab "
		   "teardown --state %s to undo",
		   (int)setup_stop, fslab_phase_to_string(s->st->phase), s->state_path);
	return true;
}

/* A safe point between steps: the test hook may pause here, and a
 * SIGINT/SIGTERM received so far stops setup (-EINTR). */
static int setup_step(struct setup_run *s, const char *step)
{
	if (setup_stopped(s))
		return -EINTR;
	prov_test_pause(step, &setup_stop);
	return setup_stopped(s) ? -EINTR : 0;
}

/* The partitions of the plan as a table (lib/table.h), as one note (its
 * lines).  0 or -errno. */
static int setup_note_parts(const struct fslab_lab_plan *pl)
{
	static const char *const heads[] = { "#", "name", "type", "start", "size",
					     "GPT type", "mkfs", "mount point" };
	struct fslab_table *t = fslab_table_new(1);
	char a[32], *text = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	if (!t)
		return -ENOMEM;
	for (size_t c = 0; c < sizeof(heads) / sizeof(heads[0]); c++)
		fslab_table_column(t, heads[c], c == 3 || c == 4 ? FSLAB_TABLE_RIGHT : FSLAB_TABLE_LEFT);
	for (size_t i = 0; i < pl->n; i++) {
		const struct fslab_partition_plan *p = &pl->parts[i];
		const char *argv[FSLAB_MKFS_ARGV_MAX];
		char words[FSLAB_OPTIONS_MAX + 8], cmd[512];
		enum fslab_mount_method m = fslab_lab_mount_method_for(p->fs->type);

		if (fslab_mkfs_argv(p->recipe, p->fs->mkfs_options, p->device, words, sizeof(words),
				    argv) == 0)
			fslab_exec_format(argv, cmd, sizeof(cmd));
		else
			snprintf(cmd, sizeof(cmd), "(too many mkfs options)");
		fslab_table_row(t);
		fslab_table_cellf(t, 0, "%u", p->number);
		fslab_table_cell(t, 1, p->fs->name);
		fslab_table_cell(t, 2, fslab_fs_type_to_string(p->fs->type));
		fslab_table_cell(t, 3, fslab_size_format(p->start, a, sizeof(a)));
		fslab_table_cell(t, 4, fslab_size_format(p->size, a, sizeof(a)));
		fslab_table_cell(t, 5, p->recipe->gpt_type_name);
		fslab_table_cell(t, 6, cmd);
		fslab_table_cellf(t, 7, "%s (%s%s%s)", p->mountpoint,
				  m == FSLAB_MOUNT_FUSE ? "fusefat" : "kernel",
				  p->fs->mount_options[0] ? ", " : "", p->fs->mount_options);
	}
	mem = open_memstream(&text, &len);
	r = mem ? fslab_table_print(t, mem) : -errno;
	fslab_table_free(t);
	if (!mem)
		return r;
	if (fclose(mem) != 0 && r == 0)
		r = -ENOMEM;
	if (r == 0 && len) {
		if (text[len - 1] == '\n')
			text[len - 1] = '\0';
		fslab_note_line("%s", text);
	}
	free(text);
	return r;
}

/* The plan, before anything is written.  0, or -1 when it could not be
 * printed (said): setup does not write a plan its user did not see. */
static int setup_print_plan(struct setup_run *s)
{
	const struct fslab_lab_plan *pl = &s->plan;
	char a[32], b[32], c[32], line[320];
	int r;

	fslab_note_line("disk %s: %s, %u-byte sectors; layout needs %s; GPT, %s alignment",
		pl->disk[0] ? pl->disk : "(new loop device)", fslab_size_human(pl->disk_bytes, a, sizeof(a)),
		pl->sector_size, fslab_size_human(pl->needed_bytes, b, sizeof(b)),
		fslab_size_format(s->spec->disk.alignment ? s->spec->disk.alignment : FSLAB_MiB, c,
				  sizeof(c)));
	if (s->image[0])
		fslab_note_line("image %s: %s, %s", s->image, fslab_size_human(s->image_bytes, a, sizeof(a)),
			s->image_exists ? "exists, reused" : "created sparse");
	if ((r = setup_note_parts(pl)) < 0) {
		prov_fail_errno(s, r, "cannot print the plan's partitions");
		return -1;
	}
	fslab_discard_plan_line(pl->disk, !s->o->no_discard, line, sizeof(line));
	fslab_note_line("%s", line);
	fslab_precond_plan_line(&s->precond, pl->disk, pl->disk_bytes, line, sizeof(line));
	fslab_note_line("%s", line);
	return 0;
}

/* The image's device names are only known once it is attached. */
static void setup_placeholder_devices(struct setup_run *s)
{
	for (size_t i = 0; i < s->plan.n; i++)
		snprintf(s->plan.parts[i].device, sizeof(s->plan.parts[i].device), "/dev/loopNp%u",
			 s->plan.parts[i].number);
}

static int setup_compute_plan(struct setup_run *s, const char *disk, uint64_t bytes, unsigned ss)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_plan_compute(s->spec, disk, bytes, ss, s->mount_root, &s->plan, &e);
	const char *err = fslab_err_msg(&e);

	if (r == -ENOSPC) {
		char ask[32], fix[PATH_MAX + 96];

		/* The fix depends on what is too small: a disk is replaced, a new
		 * image is given a --size, an existing image is made again. */
		fslab_plan_size_to_ask(s->plan.needed_bytes, ask, sizeof(ask));
		if (disk)
			snprintf(fix, sizeof(fix), "use a disk of %s or more", ask);
		else if (s->image_exists)
			snprintf(fix, sizeof(fix), "remove %s and run again with --size %s or more", s->image, ask);
		else
			snprintf(fix, sizeof(fix), "give --size %s or more", ask);
		return prov_fail(s, FSLAB_EXIT_FAILURE,
				  "refused: %s; %s, or shrink a partition in the spec (rule: the disk must "
				  "hold the layout)",
				  err, fix);
	}
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_USAGE, "%s", err);
	return 0;
}

/* The tools the spec's filesystems need. */
static int setup_check_tools(struct setup_run *s)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < s->spec->n_fs; i++) {
		const struct fslab_fs_recipe *rc = fslab_fs_recipe(s->spec->fs[i].type);

		if (fslab_exec_find_tool(rc->mkfs, path, sizeof(path)) < 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "%s not found (needed for [fs %s]); install it with: apt-get install %s",
				    rc->mkfs, s->spec->fs[i].name, rc->package);
		if (fslab_lab_mount_method_for(rc->type) == FSLAB_MOUNT_FUSE &&
		    fslab_exec_find_tool("fusefat", path, sizeof(path)) < 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "fusefat not found (this kernel has no vfat, so [fs %s] is mounted "
				    "through FUSE); install it with: apt-get install fusefat",
				    s->spec->fs[i].name);
	}
	return 0;
}

/* The system directory dir is (by identity, so no spelling gets round
 * it), or NULL. */
static const char *setup_system_dir(const char *dir)
{
	static const char *const sys[] = { "/", "/bin", "/boot", "/dev", "/etc", "/home",
					   "/lib", "/lib32", "/lib64", "/libx32",
					   "/opt", "/proc", "/root", "/run", "/sbin",
					   "/srv", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/lib",
					   "/usr/lib64", "/usr/libexec", "/usr/local", "/usr/sbin",
					   "/usr/share", "/var", "/var/lib", "/var/log", "/var/tmp" };
	struct stat a, b;

	if (stat(dir, &a) < 0)
		return NULL;
	for (size_t k = 0; k < sizeof(sys) / sizeof(sys[0]); k++)
		if (stat(sys[k], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return sys[k];
	return NULL;
}

/* Never over the system: not / nor a directory the system lives in, as
 * the mount root or as a mount point.  Not inside another lab either: its
 * teardown could not unmount it. */
static int setup_check_places(struct setup_run *s)
{
	char dev[PATH_MAX];

	for (size_t i = 0; i <= s->plan.n; i++) {
		const char *d = i == 0 ? s->mount_root : s->plan.parts[i - 1].mountpoint;
		const char *sys = setup_system_dir(d);

		if (sys)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s %s is the system directory %s; mounting the lab there "
				    "would hide what the system (and teardown) needs; give a "
				    "--mount-root of its own, such as %s",
				    i == 0 ? "mount root" : "mount point", d, sys, FSLAB_MOUNT_ROOT_DEFAULT);
	}
	for (int i = 0; i < 2; i++) {
		const char *what = i == 0 ? s->mount_root : s->image;

		if (what[0] && prov_path_on_lab_mount(what, dev, sizeof(dev)) > 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s %s would be on %s, a filesystem of another fslab lab (it "
				    "would keep that lab busy, and its teardown would fail); give a path "
				    "outside every lab",
				    i == 0 ? "the mount root" : "the image", what, dev);
	}
	return 0;
}

/* The mount root: an existing directory (not a symlink) we can write, or
 * creatable under the nearest existing ancestor. */
static int setup_check_mount_root(struct setup_run *s)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s", s->mount_root);
	while (lstat(path, &st) < 0) {
		char *slash;

		if (errno != ENOENT)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: cannot create the mount root %s (%s: %s); give another "
				    "--mount-root",
				    s->mount_root, path, strerror(errno));
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return 0;
		*slash = '\0';
	}
	if (S_ISLNK(st.st_mode))
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: mount root %s is a symbolic link; fslab does not follow links "
			    "there (give a real directory with --mount-root)",
			    path);
	if (!S_ISDIR(st.st_mode))
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: mount root %s is not a directory; give another --mount-root", path);
	if (access(path, W_OK) != 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: cannot write in the mount root %s: %s; give another --mount-root",
			    path, strerror(errno));
	return fslab_lab_mount_root_check(s->mount_root, path, s->e) < 0 ? FSLAB_EXIT_FAILURE : 0;
}

/* 1 when the directory holds nothing but . and .., 0 when it holds
 * something, or a negative errno. */
static int setup_dir_is_empty(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!dh)
		return -errno;
	while (empty && (e = readdir(dh)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(dh);
	return empty;
}

/* Each existing mount point: a real, empty directory with nothing mounted
 * on it (mounting over files would hide them for as long as the lab is
 * up). */
static int setup_check_mount_points(struct setup_run *s)
{
	for (size_t i = 0; i < s->plan.n; i++) {
		const char *mp = s->plan.parts[i].mountpoint;
		char src[PATH_MAX], fstype[64];
		struct stat st;

		if (lstat(mp, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: mount point %s is %s; fslab does not follow or replace it (remove it "
				    "or give another --mount-root)",
				    mp, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		if (prov_mount_at(mp, src, sizeof(src), fstype, sizeof(fstype)) == 1)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: mount point %s already has %s (%s) mounted; unmount it or give "
				    "another --mount-root",
				    mp, src, fstype);
		if (setup_dir_is_empty(mp) == 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: mount point %s is not empty; the lab would be mounted "
				    "over its files and hide them; give another --mount-root or "
				    "move them",
				    mp);
	}
	return 0;
}

/* The new image's directory is writable; the state (and its lock and log)
 * stays reachable while the lab is mounted, and teardown finds it: never
 * under the mount root, where a lab filesystem would be mounted over it,
 * nor on another lab. */
static int setup_check_files(struct setup_run *s)
{
	size_t n = strlen(s->mount_root);
	char dir[PATH_MAX];
	int r;

	if (s->image[0] && !s->image_exists) {
		r = fslab_check_parent_writable(s->image, dir, sizeof(dir));
		if (r < 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: cannot create the image %s: %s: %s; give another path",
				    s->image, dir, strerror(-r));
	}
	if (strncmp(s->state_path, s->mount_root, n) == 0 &&
	    (s->state_path[n] == '/' || s->state_path[n] == '\0'))
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: the state file %s is inside the mount root %s, where the lab's "
			    "filesystems are mounted (they would hide it from teardown); give a "
			    "--state outside %s",
			    s->state_path, s->mount_root, s->mount_root);
	if (prov_path_on_lab_mount(s->state_path, dir, sizeof(dir)) > 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: the state file %s would be on %s, a filesystem of another fslab "
			    "lab (its teardown unmounts and wipes it); give a --state outside every lab",
			    s->state_path, dir);
	r = fslab_check_parent_writable(s->state_path, dir, sizeof(dir));
	if (r < 0 && r != -ENOENT)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: state file %s: cannot write in %s: %s; give another --state",
			    s->state_path, dir, strerror(-r));
	return 0;
}

static int setup_confirm(struct setup_run *s, const char *what)
{
	char line[320], a[32];
	const char *name = strrchr(what, '/') ? strrchr(what, '/') + 1 : what;

	if (s->o->yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: setup erases everything on %s and there is no --yes and no "
			    "terminal to ask on (rule: confirm first); add --yes if %s may be erased",
			    what, what);
	fslab_note(FSLAB_NOTE_ASK, "fslab setup will ERASE everything on %s (%s) and partition it for the lab.\n",
		what, fslab_size_human(s->plan.disk_bytes, a, sizeof(a)));
	if (s->precond.write) { /* the bytes, the wear and the time, before anything is asked */
		fslab_precond_plan_line(&s->precond, s->plan.disk, s->plan.disk_bytes, line, sizeof(line));
		fslab_note(FSLAB_NOTE_ASK, "%s\n", line);
	}
	fslab_note(FSLAB_NOTE_ASK, "Type the device name (%s) to continue: ", name);
	if (!fgets(line, sizeof(line), stdin))
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: no confirmation given");
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, what) != 0 && strcmp(line, name) != 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: '%s' is not %s; nothing was changed", line, name);
	return 0;
}

/* What the path names: a whole disk (not a partition, not a file).  Reads
 * the device node and sysfs only: an argument check. */
static int setup_inspect_disk(struct setup_run *s, const char *path)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	if (prov_disk_inspect(path, &s->disk, &err) < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	if (s->disk.is_partition)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s is a partition of /dev/%s (rule: whole disks only); give the "
			    "whole disk /dev/%s if all of it may be erased",
			    path, s->disk.parent, s->disk.parent);
	return 0;
}

/* The rules for the whole disk s->disk (setup_inspect_disk) on this
 * machine: nothing else uses it, it holds the layout, and no signature on
 * it is overwritten unasked.  Reads only; leaves the disk flock'ed in
 * s->disk_lock_fd. */
static int setup_check_disk(struct setup_run *s, bool confirm)
{
	const char *path = s->disk.path;
	struct fslab_err err = FSLAB_ERR_INIT;
	char found[256];
	int fd, r;

	if (prov_check_in_use(&s->disk, &err) < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	/* A loop device is only as spare as its backing file: another loop
	 * device on the same file, or that file mounted, is the same disk. */
	if (prov_loop_check_alias(s->disk.name, &err) < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s cannot be opened exclusively (%s) (rule: nothing else may use "
			    "the disk); something (a mount, RAID, LVM, another program) holds it",
			    path, strerror(errno));
	close(fd);
	if (prov_check_openers(&s->disk, &err) < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	/* not O_EXCL across mkfs and mount (they open the partitions O_EXCL): an
	 * advisory lock on the whole disk keeps other well-behaved tools away */
	if (s->disk_lock_fd >= 0)
		close(s->disk_lock_fd);
	s->disk_lock_fd = open(s->disk.path, O_RDONLY | O_CLOEXEC);
	if (s->disk_lock_fd < 0 || flock(s->disk_lock_fd, LOCK_EX | LOCK_NB) < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s is locked by another program (%s)", s->disk.path,
				 strerror(errno));
	r = setup_compute_plan(s, path, s->disk.bytes, s->disk.sector_size);
	if (r)
		return r;
	r = prov_probe_signatures(path, found, sizeof(found));
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "%s: cannot probe for signatures: %s", path, strerror(-r));
	if (r > 0 && !s->o->wipe)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s carries %s (rule: never overwrite a partition table or "
			    "filesystem unasked); add --wipe if it may be destroyed",
			    path, found);
	if (confirm)
		return setup_confirm(s, path);
	return 0;
}

static void setup_fill_state(struct setup_run *s)
{
	struct fslab_state *st = s->st;
	uuid_t lab;

	memset(st, 0, sizeof(*st));
	st->version = FSLAB_STATE_VERSION;
	/* a disk's device number (setup_check_disk); an image's loop is
	 * recorded when it is attached */
	st->disk_rdev = s->image[0] ? 0 : (uint64_t)s->disk.devno;
	uuid_generate_random(lab);
	uuid_unparse_lower(lab, st->lab_id);
	snprintf(s->env_lab_id, sizeof(s->env_lab_id), "FSLAB_LAB_ID=%s", st->lab_id);
	if (s->image_exists && s->image_fd >= 0)
		prov_id_of_fd(s->image_fd, &st->image_id);
	snprintf(st->disk, sizeof(st->disk), "%s", s->plan.disk);
	snprintf(st->image, sizeof(st->image), "%s", s->image);
	st->image_created = s->image[0] && !s->image_exists;
	snprintf(st->mount_root, sizeof(st->mount_root), "%s", s->mount_root);
	snprintf(st->spec_source, sizeof(st->spec_source), "%s",
		 s->o->spec_source ? s->o->spec_source : "built-in");
	fslab_utc_now("%Y-%m-%dT%H:%M:%SZ", st->created_at, sizeof(st->created_at));
	st->n_partitions = s->plan.n;
	for (size_t i = 0; i < s->plan.n; i++) {
		const struct fslab_partition_plan *p = &s->plan.parts[i];
		struct fslab_state_partition *sp = &st->partitions[i];
		uuid_t u;

		uuid_generate_random(u);
		uuid_unparse_upper(u, s->partuuids[i]);
		snprintf(sp->name, sizeof(sp->name), "%s", p->fs->name);
		sp->type = p->fs->type;
		sp->number = p->number;
		snprintf(sp->device, sizeof(sp->device), "%s", p->device);
		snprintf(sp->partuuid, sizeof(sp->partuuid), "%s", s->partuuids[i]);
		sp->start_sector = p->start / 512;
		sp->size_sectors = p->size / 512;
		snprintf(sp->mkfs_options, sizeof(sp->mkfs_options), "%s", p->fs->mkfs_options);
		snprintf(sp->mount_options, sizeof(sp->mount_options), "%s", p->fs->mount_options);
		snprintf(sp->mountpoint, sizeof(sp->mountpoint), "%s", p->mountpoint);
	}
}

/* The mkfs child exists: record it before waiting for it. */
static void setup_mkfs_started(void *ctx, pid_t pid)
{
	struct setup_run *s = ctx;

	s->st->mkfs_pid = pid;
	setup_save(s, FSLAB_PHASE_NONE); /* a failure is named; teardown still finds it by the lab id */
	prov_test_pause("mkfs-running", &setup_stop);
}

static int setup_format(struct setup_run *s, size_t i)
{
	const struct fslab_partition_plan *p = &s->plan.parts[i];
	struct fslab_state_partition *sp = &s->st->partitions[i];
	const char *argv[FSLAB_MKFS_ARGV_MAX];
	char words[FSLAB_OPTIONS_MAX + 8], prog[PATH_MAX], cmd[FSLAB_MKFS_COMMAND_MAX], type[32], version[32];
	struct fslab_exec_result res;
	enum fslab_discard_result dr;
	int r;

	fslab_note_line("formatting %s as %s (%zu/%zu): %s", p->device, fslab_fs_type_to_string(p->fs->type),
	       i + 1, s->plan.n, p->fs->name);
	r = prov_wipe_signatures(p->device, s->e);
	if (r < 0)
		return r;
	r = fslab_discard_device(p->device, !s->o->no_discard, &dr, s->e);
	if (r < 0)
		return r;
	sp->discarded = dr == FSLAB_DISCARD_DONE;
	if (fslab_mkfs_argv(p->recipe, p->fs->mkfs_options, p->device, words, sizeof(words), argv) < 0)
		return prov_fail_errno(s, E2BIG, "[fs %s] mkfs_options has too many words", p->fs->name);
	if (fslab_exec_find_tool(p->recipe->mkfs, prog, sizeof(prog)) < 0)
		return prov_fail(s, -ENOENT, "%s not found; install it with: apt-get install %s", p->recipe->mkfs,
			    p->recipe->package);
	argv[0] = prog;
	fslab_exec_format(argv, cmd, sizeof(cmd));
	fslab_debug(FSLAB_DBG_PROVISION, "%s", cmd);
	snprintf(sp->mkfs_command, sizeof(sp->mkfs_command), "%s", cmd);
	/* In "/": no word of the spec can name a device relative to our cwd.
	 * Its own process group, recorded in the state while it runs, with
	 * the lab's id in its environment: a teardown after setup was killed
	 * finds it and stops it before it wipes the disk. */
	{
		const char *env[] = { s->env_lab_id, NULL };
		int logfd = fslab_lab_log_fd(s->lab);
		struct fslab_exec_opts eo = {
			.cwd = "/", .log_fd = logfd, .log_path = NULL, .timeout_s = 600,
			.new_pgrp = true, .env = env, .started = setup_mkfs_started, .ctx = s,
		};

		if (logfd < 0)
			return prov_fail_errno(s, logfd, "cannot open the setup log %s (it must be a "
							"regular file of ours, not a link)",
						 s->log_path);
		r = fslab_exec_run_opts(argv, &eo, &res);
		s->st->mkfs_pid = 0;
	}
	if (r < 0)
		return prov_fail_errno(s, r, "cannot run %s", cmd);
	if (res.exit_status != 0) {
		/* a note: mkfs's words may be longer than a struct fslab_err holds */
		fslab_note_err(s->e);
		fslab_note(FSLAB_NOTE_ERROR, "%s failed (exit %d); its output is in %s; it said:\n%s",
			   cmd, res.exit_status, s->log_path, res.stderr_tail);
		return -EIO;
	}
	r = prov_probe_fs(p->device, type, sizeof(type), version, sizeof(version));
	if (r < 0 || !fslab_fs_recipe_probed(p->recipe, type, version))
		return prov_fail(s, -EIO, "%s: after %s, libblkid sees TYPE='%s' VERSION='%s', expected '%s'%s%s",
			    p->device, cmd, type, version, p->recipe->blkid_type,
			    p->recipe->blkid_version ? " " : "",
			    p->recipe->blkid_version ? p->recipe->blkid_version : "");
	sp->formatted = true;
	/* The version of the mkfs that made it, for the run's manifest. */
	fslab_exec_version(prog, p->recipe->mkfs_version_arg, sp->mkfs_version, sizeof(sp->mkfs_version));
	return 0;
}

/* Records the identity of a directory setup just made and marks it as the
 * lab's, so that teardown removes only that directory. */
static int setup_mark_dir(struct setup_run *s, const char *path, struct fslab_state_id *id)
{
	int fd = fslab_dir_open(path), r;

	if (fd < 0)
		return prov_fail_errno(s, fd, "%s: cannot open the directory setup made", path);
	prov_id_of_fd(fd, id);
	r = prov_marker_set(fd, s->st->lab_id);
	close(fd);
	if (r < 0)
		return prov_fail_errno(s, r, "%s: cannot mark it as the lab's (%s attribute)", path,
					 PROV_MARKER_XATTR);
	return 0;
}

/* Marks the mount root and mount points that do not exist yet as created
 * by setup (one save, phase "formatted"), then creates them: a setup
 * killed in between leaves teardown an rmdir of a missing directory, which
 * it ignores. */
static int setup_mount_prepare(struct setup_run *s)
{
	struct stat st;
	int r;

	if (lstat(s->mount_root, &st) < 0)
		s->st->mount_root_created = true;
	else if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
		return prov_fail(s, -ENOTDIR, "mount root %s is not a directory (or is a link); not following it",
			    s->mount_root);
	for (size_t i = 0; i < s->plan.n; i++)
		if (lstat(s->st->partitions[i].mountpoint, &st) < 0)
			s->st->partitions[i].mountpoint_created = true;
	r = setup_save(s, FSLAB_PHASE_FORMATTED);
	if (r < 0)
		return r;
	if (s->st->mount_root_created) {
		r = fslab_mkdir_p(s->mount_root, 0755);
		if (r < 0)
			return prov_fail_errno(s, r, "cannot create the mount root %s", s->mount_root);
		r = setup_mark_dir(s, s->mount_root, &s->st->mount_root_id);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < s->plan.n; i++) {
		struct fslab_state_partition *sp = &s->st->partitions[i];

		if (!sp->mountpoint_created)
			continue;
		if (mkdir(sp->mountpoint, 0755) < 0)
			return prov_fail_errno(s, errno, "cannot create the mount point %s", sp->mountpoint);
		r = setup_mark_dir(s, sp->mountpoint, &sp->mountpoint_id);
		if (r < 0)
			return r;
	}
	return setup_save(s, FSLAB_PHASE_NONE);
}

static int setup_mount_all(struct setup_run *s)
{
	int r;

	for (size_t i = 0; i < s->plan.n; i++) {
		struct fslab_state_partition *sp = &s->st->partitions[i];
		enum fslab_mount_method m = fslab_lab_mount_method_for(sp->type);
		struct fslab_state_partition tmp;
		char step[64];

		snprintf(step, sizeof(step), "mount-%s", sp->name);
		r = setup_step(s, step);
		if (r < 0)
			return r;
		fslab_note_line("mounting %s on %s (%s%s) (%zu/%zu)", sp->device, sp->mountpoint,
		       m == FSLAB_MOUNT_FUSE ? "fusefat" : "kernel ",
		       m == FSLAB_MOUNT_FUSE ? "" : fslab_fs_recipe(sp->type)->kernel_fstype, i + 1,
		       s->plan.n);
		sp->mount_method = FSLAB_MOUNT_NONE;
		tmp = *sp;
		tmp.mount_method = m;
		r = fslab_lab_mount(s->st, &tmp, s->e);
		if (r < 0)
			return r;
		sp->mount_method = m;
		fslab_lab_fuse_record(sp);
		if (setup_save(s, FSLAB_PHASE_NONE) < 0)
			return -EIO;
	}
	return 0;
}

/* Is the lab's disk a drive, rather than an image or another loop device
 * (whose blocks are a file on the host's disk)?  The one answer for
 * preconditioning and the quiet wait. */
static bool setup_is_drive(const struct setup_run *s)
{
	return s->o->device && strncmp(s->disk.name, "loop", 4) != 0;
}

/* Each filesystem left to finish its own background work (quiet.h), so
 * that the first run does not share the disk with it. */
static int setup_quiet_all(struct setup_run *s)
{
	int r = setup_step(s, "quiet");

	if (r < 0)
		return r;
	/* An image or another loop device is not a drive (the disk under it
	 * is the host's, as for preconditioning and the run's steady state):
	 * no wait, unless it was preconditioned as one (--precondition on). */
	if (!setup_is_drive(s) && strcmp(s->st->precondition.status, "done") != 0) {
		for (size_t i = 0; i < s->plan.n; i++) {
			struct fslab_state_partition *sp = &s->st->partitions[i];

			snprintf(sp->quiet, sizeof(sp->quiet), "skipped");
			snprintf(sp->quiet_note, sizeof(sp->quiet_note),
				 "a loop device, not a drive: the disk under it is the host's");
			sp->quiet_wait_s = 0;
		}
		return setup_save(s, FSLAB_PHASE_NONE) < 0 ? -EIO : 0;
	}
	fslab_note_line("waiting for the filesystems' background work after mount (up to %.0f s)",
	       FSLAB_QUIET_TIMEOUT_S);
	fslab_quiet_wait(s->st->partitions, s->plan.n, FSLAB_QUIET_TIMEOUT_S, &setup_stop);
	for (size_t i = 0; i < s->plan.n; i++) {
		const struct fslab_state_partition *sp = &s->st->partitions[i];

		fslab_note_line("%s: %s after %.1f s (%s)", sp->name, sp->quiet, sp->quiet_wait_s, sp->quiet_note);
	}
	return setup_save(s, FSLAB_PHASE_NONE) < 0 ? -EIO : 0;
}

/* Opens the existing image (no-follow, a regular file), locks it against
 * a second setup and records what it is. */
static int setup_image_open(struct setup_run *s, struct stat *st)
{
	int fd = open(s->image, (s->o->dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s: %s%s", s->image, strerror(errno),
			    errno == ELOOP ? " (a symbolic link is not followed)" : "");
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))
		prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s exists and is not a regular file", s->image);
	/* The kernel will mount what is in this file: no one but root may be
	 * able to write it underneath (owner, mode), and it must have no
	 * other name (a hard link to someone's file). */
	else if (st->st_uid != geteuid())
		prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s belongs to uid %u, who could rewrite the disk "
			    "under the mounted lab; use an image of root's (or a new file), even "
			    "with --wipe",
			    s->image, (unsigned)st->st_uid);
	else if (st->st_mode & 022)
		prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s is writable by others (mode %04o), who could "
			    "rewrite the disk under the mounted lab; chmod go-w it first",
			    s->image, (unsigned)(st->st_mode & 07777));
	else if (st->st_nlink != 1)
		prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s has %lu links (a hard link: its other name may "
			    "be someone's file); give a file with one name, even with --wipe",
			    s->image, (unsigned long)st->st_nlink);
	else if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s is locked by another program (another fslab setup on "
			    "it?) (rule: nothing else may use the disk); wait for it and retry",
			    s->image);
	else
		s->image_fd = fd;
	if (s->image_fd == fd)
		return 0;
	close(fd);
	return FSLAB_EXIT_FAILURE;
}

static int setup_image_prepare(struct setup_run *s)
{
	struct stat st;

	if (lstat(s->image, &st) == 0) {
		char found[256], loop[64];
		int r;

		if (!S_ISREG(st.st_mode))
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s exists and is not a regular file%s", s->image,
				    S_ISLNK(st.st_mode) ? " (a symbolic link is not followed)" : "");
		r = setup_image_open(s, &st);
		if (r)
			return r;
		if (s->o->image_size && (uint64_t)st.st_size != s->o->image_size) {
			char a[32], b[32];
			return prov_fail(s, FSLAB_EXIT_USAGE, "image %s exists with size %s, not --size %s; remove it or drop --size",
				    s->image, fslab_size_format((uint64_t)st.st_size, a, sizeof(a)),
				    fslab_size_format(s->o->image_size, b, sizeof(b)));
		}
		s->image_exists = true;
		s->image_bytes = (uint64_t)st.st_size;
		if (prov_loop_find_fd(s->image_fd, loop, sizeof(loop)) == 0)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s is in use: attached to %s (rule: nothing else may "
				    "use the disk); detach it first",
				    s->image, loop);
		r = setup_compute_plan(s, NULL, s->image_bytes, 512);
		if (r)
			return r;
		r = prov_probe_signatures(s->image, found, sizeof(found));
		if (r > 0 && !s->o->wipe)
			return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s carries %s (rule: never overwrite a partition table "
				    "or filesystem unasked); add --wipe if it may be destroyed",
				    s->image, found);
		/* No signature is not "empty": a file with any data in it is
		 * someone's, whatever --yes says. */
		if (r == 0 && !s->o->wipe) {
			r = prov_file_has_data(s->image_fd);
			if (r != 0)
				return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: image %s exists and is not empty (%s) (rule: never "
					    "overwrite a file unasked); add --wipe if its contents may be "
					    "destroyed, or give a new file",
					    s->image, r > 0 ? "it holds data" : strerror(-r));
		}
		if (!s->o->dry_run) {
			r = setup_confirm(s, s->image);
			if (r)
				return r;
		}
		return 0;
	}
	if (errno != ENOENT)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "image %s: %s", s->image, strerror(errno));
	s->image_bytes = s->o->image_size ? s->o->image_size : fslab_plan_image_size(s->spec);
	return setup_compute_plan(s, NULL, s->image_bytes, 512);
}

/* Creates the image (O_EXCL: never someone else's file), marks it with the
 * lab's id before anything else and records its identity. */
static int setup_image_create(struct setup_run *s)
{
	int fd, r;

	r = setup_step(s, "image-create");
	if (r < 0)
		return r;
	fd = open(s->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return prov_fail_errno(s, errno, "cannot create the image %s", s->image);
	s->image_fd = fd;
	r = prov_marker_set(fd, s->st->lab_id);
	if (r < 0)
		return prov_fail_errno(s, r, "%s: cannot mark the image as this lab's (%s attribute; "
					    "the filesystem must support trusted extended attributes, "
					    "or teardown could not prove it made the file)",
					 s->image, PROV_MARKER_XATTR);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return prov_fail_errno(s, errno, "%s: cannot lock the new image", s->image);
	prov_id_of_fd(fd, &s->st->image_id);
	r = setup_save(s, FSLAB_PHASE_NONE);
	if (r < 0)
		return r;
	if (ftruncate(fd, (off_t)s->image_bytes) < 0)
		return prov_fail_errno(s, errno, "%s: cannot size the image", s->image);
	return 0;
}

/* The image setup works on: created and marked, or (reused) marked while
 * the lab holds it. */
static int setup_image_claim(struct setup_run *s)
{
	char a[32];
	int r;

	if (!s->image_exists) {
		fslab_note_line("creating sparse image %s (%s)", s->image,
		       fslab_size_human(s->image_bytes, a, sizeof(a)));
		return setup_image_create(s);
	}
	/* A reused image carries the lab's mark while the lab holds it;
	 * teardown takes it off again. */
	r = prov_marker_set(s->image_fd, s->st->lab_id);
	if (r < 0)
		return prov_fail_errno(s, r, "%s: cannot mark the image as this lab's (%s attribute)",
					 s->image, PROV_MARKER_XATTR);
	return 0;
}

/* Attaches the image to a new loop device, records it and checks it as
 * any disk (it must be ours alone), locked, no questions. */
static int setup_image_attach(struct setup_run *s)
{
	char loop[64], other[64];
	struct stat lst;
	bool direct;
	int r;

	r = setup_image_claim(s);
	if (r < 0)
		return r;
	if (setup_stopped(s))
		return -EINTR;
	r = prov_loop_attach_fd(s->image_fd, s->image, loop, sizeof(loop), &direct, s->e);
	if (r < 0)
		return r;
	snprintf(s->st->loop_io, sizeof(s->st->loop_io), "%s", direct ? "direct" : "buffered");
	if (direct)
		fslab_note_line("attached %s to %s (direct I/O: the lab's figures are the disk's under the image)",
		       s->image, loop);
	else
		fslab_note_warn("attached %s to %s, but the kernel kept it buffered: the filesystem holding the image "
			   "cannot do direct I/O (tmpfs, a 4 KiB-sector disk, FUSE?), so reads of the lab are "
			   "served by this machine's page cache and every figure is flagged buffered-loop; "
			   "put the image on a disk filesystem (ext4, xfs) for figures of the disk",
			   s->image, loop);
	snprintf(s->st->disk, sizeof(s->st->disk), "%s", loop);
	if (stat(loop, &lst) == 0)
		s->st->disk_rdev = (uint64_t)lst.st_rdev;
	if (setup_compute_plan(s, loop, s->image_bytes, 512))
		return -EINVAL;
	for (size_t i = 0; i < s->plan.n; i++)
		snprintf(s->st->partitions[i].device, sizeof(s->st->partitions[i].device), "%s",
			 s->plan.parts[i].device);
	r = setup_save(s, FSLAB_PHASE_ATTACHED);
	if (r < 0)
		return r;
	/* One image, one loop device: another one on it (a setup that raced
	 * us) would be the same disk under a second name. */
	if (prov_loop_find_other(&s->st->image_id, loop, other, sizeof(other)) == 0)
		return prov_fail(s, -EBUSY, "refused: image %s is also attached to %s (rule: nothing else may use the "
			    "disk); detach it, then run fslab teardown --state %s",
			    s->image, other, s->state_path);
	if (setup_inspect_disk(s, loop) || setup_check_disk(s, false))
		return -EBUSY;
	return setup_step(s, "attached");
}

static int setup_precond_save(void *ctx, bool durable)
{
	return setup_save_how(ctx, FSLAB_PHASE_NONE, durable);
}

/* Purge and precondition (precond.h) the disk every rule accepted, before
 * it is partitioned; stopped by a signal, the disk stays unpartitioned
 * and the state says so. */
static int setup_precondition(struct setup_run *s)
{
	struct fslab_precond_run run = {
		.disk = s->disk.path, .devno = s->disk.devno, .capacity = s->disk.bytes, .d = &s->precond, .stop = &setup_stop,
		.save = setup_precond_save, .ctx = s, .rec = &s->st->precondition, .e = s->e,
	};
	struct fslab_state_precondition *rec = &s->st->precondition;
	char a[32], b[32];
	int r;

	r = fslab_precond_run(&run);
	if (r == -EINTR)
		prov_fail(s, r, "interrupted by signal %d while preconditioning %s (%s of %s written): the "
			    "disk was left unpartitioned; run fslab teardown --state %s to forget the lab",
			    (int)setup_stop, s->disk.path, fslab_size_human(rec->bytes, a, sizeof(a)),
			    fslab_size_human(rec->target_bytes, b, sizeof(b)), s->state_path);
	if (r < 0)
		return r;
	return setup_step(s, "preconditioned");
}

/* From here on the disk is written: the state names the GUID about to be
 * written (a durable save), so teardown can tell our table from another. */
static int setup_partition(struct setup_run *s)
{
	char guid[40];
	uuid_t u;
	int r;

	uuid_generate_random(u);
	uuid_unparse_upper(u, guid);
	snprintf(s->st->disk_guid, sizeof(s->st->disk_guid), "%s", guid);
	prov_disk_ident_record(s->st);
	r = setup_save_how(s, FSLAB_PHASE_PARTITIONING, true);
	if (r < 0)
		return r;
	r = setup_step(s, "partitioning");
	if (r < 0)
		return r;
	fslab_note_line("partitioning %s: GPT, %zu partitions", s->plan.disk, s->plan.n);
	r = prov_kpart_remove_all(&s->disk, s->e);
	if (r == 0 && s->o->wipe)
		r = prov_wipe_signatures(s->plan.disk, s->e);
	if (r == 0)
		r = prov_gpt_write(&s->plan, guid, s->partuuids, s->e);
	if (r == 0)
		r = prov_kpart_add_plan(&s->disk, &s->plan, s->e);
	if (r == 0)
		r = setup_save(s, FSLAB_PHASE_PARTITIONED);
	return r;
}

static int setup_format_all(struct setup_run *s)
{
	int r;

	prov_test_pause("partitioned", &setup_stop);
	for (size_t i = 0; i < s->plan.n; i++) {
		char step[64];

		snprintf(step, sizeof(step), "format-%s", s->plan.parts[i].fs->name);
		r = setup_step(s, step);
		if (r == 0)
			r = setup_format(s, i);
		if (r == 0)
			r = setup_save(s, FSLAB_PHASE_NONE);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every step after the state was first written ("claimed"); each leaves
 * the state naming what it did. */
static int setup_do(struct setup_run *s)
{
	int r = 0;

	if (s->image[0])
		r = setup_image_attach(s);
	if (r == 0)
		r = setup_step(s, "claimed");
	if (r == 0)
		r = setup_precondition(s);
	if (r == 0)
		r = setup_partition(s);
	if (r == 0)
		r = setup_format_all(s);
	if (r == 0)
		r = setup_mount_prepare(s);
	if (r == 0)
		r = setup_step(s, "formatted");
	if (r == 0)
		r = setup_mount_all(s);
	if (r == 0)
		r = setup_quiet_all(s);
	if (r == 0)
		r = setup_step(s, "mounted");
	if (r == 0)
		r = setup_save_how(s, FSLAB_PHASE_READY, true);
	return r;
}

/* What --precondition and --purge mean for this disk: an image's or any
 * loop device is no drive, a rotational disk has no flash; secure-erase
 * is refused here, before anything is written. */
static int setup_decide_precondition(struct setup_run *s)
{
	const struct fslab_setup_opts *o = s->o;
	bool is_drive = setup_is_drive(s);
	int rotational = -1;

	if (is_drive) {
		struct fslab_devinfo di;

		if (fslab_devinfo_read(s->disk.path, &di, NULL) == 0)
			rotational = di.rotational;
	}
	fslab_precond_decide(o->precondition, o->purge_given, o->purge, is_drive, rotational,
			     &s->precond);
	if (s->precond.purge == FSLAB_PURGE_SECURE_ERASE) {
		struct fslab_err err = FSLAB_ERR_INIT;

		/* Only an NVMe namespace whose controller says it can (read-only
		 * Identify commands); the erase itself comes after every safety
		 * check and the confirmation, as the writes do. */
		if (is_drive && strncmp(s->disk.name, "nvme", 4) == 0) {
			if (fslab_nvme_erase_check(s->disk.path, &s->precond.nvme, &err) == 0)
				return 0;
			return prov_fail(s, FSLAB_EXIT_FAILURE,
					  "refused: --purge secure-erase: %s; use --purge trim (a TRIM purge, "
					  "not a PTS purge); nothing was changed",
					  fslab_err_msg(&err));
		}
		fslab_precond_secure_erase_refusal(o->device ? s->disk.path : "an image's loop device",
						   &err);
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s; nothing was changed",
				  fslab_err_msg(&err));
	}
	return 0;
}

/* Checks of the arguments alone, before anything on the machine (mounts,
 * locks, an existing lab) is looked at: the device is a whole disk, the
 * sizes and paths are usable, the spec lays out.  A bad argument gets its
 * own message whatever state the machine is in. */
static int setup_check_args(struct setup_run *s)
{
	const struct fslab_setup_opts *o = s->o;
	int r;

	if (!o->device == !o->image)
		return prov_fail(s, FSLAB_EXIT_USAGE, "give exactly one of --device DISK or --image FILE");
	if (o->device && o->image_size)
		return prov_fail(s, FSLAB_EXIT_USAGE, "--size is for --image only (a disk has its own size)");
	if (o->spec) {
		s->spec = o->spec;
	} else {
		fslab_spec_default(&s->default_spec);
		s->spec = &s->default_spec;
	}
	if (setup_abspath(o->state_path ? o->state_path : fslab_state_default_path(), s->state_path,
			  sizeof(s->state_path)) < 0 ||
	    setup_abspath(o->mount_root ? o->mount_root : FSLAB_MOUNT_ROOT_DEFAULT, s->mount_root,
			  sizeof(s->mount_root)) < 0 ||
	    (o->image && setup_abspath(o->image, s->image, sizeof(s->image)) < 0))
		return prov_fail(s, FSLAB_EXIT_USAGE, "a path is too long or the current directory is gone");
	if (o->device && (r = setup_inspect_disk(s, o->device)))
		return r;
	if ((r = setup_decide_precondition(s)))
		return r;
	if (o->device)
		return setup_compute_plan(s, o->device, s->disk.bytes, s->disk.sector_size);
	return setup_compute_plan(s, NULL, o->image_size, 512);
}

/* The mount root is recorded with the directories above it resolved (a
 * symlinked parent is followed once, here), so teardown removes the
 * directory setup made, by its real path; the state path must be one no
 * other user can redirect. */
static int setup_resolve_paths(struct setup_run *s)
{
	char real[PATH_MAX];
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	r = prov_resolve_parent(s->mount_root, real, sizeof(real));
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_USAGE, "mount root %s: %s; give a plain absolute path", s->mount_root,
			    r == -EINVAL ? "'.' or '..' below a directory that does not exist"
					 : strerror(-r));
	snprintf(s->mount_root, sizeof(s->mount_root), "%s", real);
	r = fslab_lab_check_path(s->state_path, &err);
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "%s", fslab_err_msg(&err));
	if (prov_resolve_parent(s->state_path, real, sizeof(real)) == 0)
		snprintf(s->state_path, sizeof(s->state_path), "%s", real);
	snprintf(s->log_path, sizeof(s->log_path), "%s.log", s->state_path);
	return 0;
}

/* --dry-run: the plan for the disk or image as it is, nothing changed. */
static int setup_dry_run(struct setup_run *s)
{
	int r;

	if (s->image[0]) {
		r = setup_image_prepare(s);
		if (r == 0)
			setup_placeholder_devices(s);
	} else {
		/* again: the mount root is resolved now */
		r = setup_compute_plan(s, s->o->device, s->disk.bytes, s->disk.sector_size);
	}
	if (r)
		return r;
	if (setup_print_plan(s) < 0)
		return FSLAB_EXIT_FAILURE;
	fslab_note_line("dry run: nothing was changed");
	return FSLAB_EXIT_OK;
}

/* A state file already at the state path: a lab (refused, naming the
 * command busy with it, if any) or something else (refused: setup does not
 * overwrite it, and no lock file of ours goes beside it).  0 when there is
 * none. */
static int setup_refuse_existing(struct setup_run *s)
{
	struct fslab_state *other;
	struct fslab_err err = FSLAB_ERR_INIT;
	struct stat sb;
	int r;

	if (s->o->lab || lstat(s->state_path, &sb) < 0)
		return 0;
	other = malloc(sizeof(*other));
	r = !other ? -ENOMEM
		   : S_ISREG(sb.st_mode) ? fslab_state_load(s->state_path, other, NULL)
					 : -EINVAL;
	free(other);
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s exists and is not an fslab state file (%s); setup does not "
			    "overwrite it: give a --state that does not exist yet. Nothing was created",
			    s->state_path,
			    S_ISREG(sb.st_mode) ? "it does not parse as one" : "not a regular file");
	/* A lab exists: if another command is busy with it, name that
	 * command (its lock file is already there). */
	r = fslab_lab_open(s->state_path, FSLAB_LAB_EXCLUSIVE, FSLAB_LAB_NEW, "fslab setup", &s->lab,
			   &err);
	return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s",
			  r < 0 ? fslab_err_msg(&err) : "a lab is already set up");
}

/* The lab, held exclusive from here to the end: the caller's (which must
 * hold no state yet) or our own, new. */
static int setup_take_lab(struct setup_run *s)
{
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	if (s->o->lab) {
		s->lab = s->o->lab; /* the caller's, held exclusive since before we looked */
		r = !fslab_lab_has_state(s->lab) ? 0
			: fslab_err_set(&err, -EEXIST, "a lab is already set up (state file %s)",
					s->state_path);
	} else {
		r = fslab_lab_open(s->state_path, FSLAB_LAB_EXCLUSIVE, FSLAB_LAB_NEW, "fslab setup",
				   &s->lab, &err);
	}
	if (r < 0)
		return prov_fail(s, FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	s->st = fslab_lab_state(s->lab);
	return 0;
}

/* Every check of the machine, in order, before anything is written. */
static int setup_check_machine(struct setup_run *s)
{
	int r;

	r = setup_refuse_existing(s);
	if (r)
		return r;
	/* A first plan (for an image: as it is) to check mount points. */
	if (s->image[0])
		r = setup_image_prepare(s);
	else
		r = setup_compute_plan(s, s->o->device, 0, 512);
	/* Everything on the machine that needs no disk: tools, paths. */
	if (r == 0 && ((r = setup_check_tools(s)) || (r = setup_check_places(s)) ||
		       (r = setup_check_mount_root(s)) || (r = setup_check_mount_points(s)) ||
		       (r = setup_check_files(s))))
		return r;
	/* The disk's rules (they only read, and flock the disk) before the
	 * lab's lock file and the state's directory exist: a refused disk
	 * leaves nothing behind. */
	if (r == 0 && !s->image[0])
		r = setup_check_disk(s, true);
	if (r == 0)
		r = setup_take_lab(s);
	return r;
}

/* Claims the lab in the state, then does every step; says how to undo a
 * setup that stopped half way.  SIGINT/SIGTERM stop it at the next safe
 * point. */
static int setup_run_steps(struct setup_run *s)
{
	struct fslab_stopsig saved;
	int r;

	setup_stop = 0;
	fslab_stopsig_catch(&saved, setup_on_signal, NULL);
	setup_fill_state(s);
	if (s->image[0])
		setup_placeholder_devices(s); /* for the plan only; the state gets the real names */
	r = setup_print_plan(s) < 0 ? -ENOMEM : 0;
	if (r == 0)
		r = setup_save(s, FSLAB_PHASE_CLAIMED);
	if (r == 0)
		r = setup_do(s);
	if (r == 0)
		fslab_note_line("lab ready: %zu filesystems under %s; state in %s", s->plan.n, s->mount_root,
		       s->state_path);
	else if (s->state_written && r != -EINTR && setup_stop)
		prov_fail(s, FSLAB_EXIT_FAILURE, "interrupted by signal %d during step '%s'; the lab is half set up: run "
			    "fslab teardown --state %s to undo",
			    (int)setup_stop, fslab_phase_to_string(s->st->phase), s->state_path);
	else if (s->state_written && r != -EINTR)
		prov_fail(s, FSLAB_EXIT_FAILURE, "setup stopped at step '%s'; run fslab teardown --state %s to undo what it "
			    "did",
			    fslab_phase_to_string(s->st->phase), s->state_path);
	fslab_stopsig_restore(&saved);
	return r == 0 ? FSLAB_EXIT_OK : FSLAB_EXIT_FAILURE;
}

int fslab_setup(const struct fslab_setup_opts *o, struct fslab_err *e)
{
	struct setup_run *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return fslab_note_fail(e, FSLAB_EXIT_FAILURE, "out of memory");
	s->o = o;
	s->e = e ? e : &s->err_own;
	s->image_fd = -1;
	s->disk_lock_fd = -1;
	ret = setup_check_args(s);
	/* Before anything on the machine is looked at or created: setup
	 * needs root. */
	if (ret == 0 && !o->dry_run && geteuid() != 0)
		ret = prov_fail(s, FSLAB_EXIT_FAILURE, "refused: fslab setup must run as root (it attaches loop "
				 "devices, partitions, formats and mounts); nothing was created. Run it with "
				 "sudo, or add --dry-run to see the plan");
	if (ret == 0)
		ret = setup_resolve_paths(s);
	if (ret == 0 && o->dry_run)
		ret = setup_dry_run(s);
	else if (ret == 0)
		ret = setup_check_machine(s);
	if (ret == 0 && !o->dry_run)
		ret = setup_run_steps(s);
	if (s->disk_lock_fd >= 0)
		close(s->disk_lock_fd);
	if (s->lab != o->lab)
		fslab_lab_close(s->lab);
	if (s->image_fd >= 0)
		close(s->image_fd);
	free(s);
	return ret;
}
