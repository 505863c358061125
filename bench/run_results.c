/* The results directory: made (or continued) as the user's own, locked
 * for the run, and tied to the run by its marker (.fslab-run: the run id,
 * the directory's and each CSV's identity), which --resume checks against
 * the manifest and the CSVs before it changes anything. */
#include "run_int.h"

#include "log.h"
#include "manifest.h"
#include "procfs.h"
#include "results.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <uuid/uuid.h>

/* Names the process holding a flock on fd, from /proc/locks ("pid 1234:
 * fslab run --resume out"), or "" when it cannot tell. */
static void run_flock_holder(int fd, char *buf, size_t len)
{
	struct stat st;
	char cmd[256];
	pid_t pid;

	buf[0] = '\0';
	if (fstat(fd, &st) < 0 ||
	    fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_FLOCK, getpid(), &pid) != 1 ||
	    pid < 0)
		return;
	fslab_proc_cmdline(pid, cmd, sizeof(cmd));
	snprintf(buf, len, "pid %d%s%s", (int)pid, cmd[0] ? ": " : "", fslab_esc(cmd));
}

/* One run at a time per results directory: an exclusive flock on the
 * directory itself (held through c->out_fd until the run ends), whatever
 * path reached it. */
static int run_lock_results(struct fslab_run_ctx *c)
{
	char holder[400];

	if (flock(c->out_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return run_note_errno(errno, "cannot lock the results directory %s", fslab_esc(c->out_dir));
	run_flock_holder(c->out_fd, holder, sizeof(holder));
	fslab_note(FSLAB_NOTE_ERROR, "%s is in use by another fslab run (%s); wait for it to finish: two runs in one results directory would write the same cells twice",
		    fslab_esc(c->out_dir), holder[0] ? holder : "holder unknown");
	return -EBUSY;
}

/* What fslab trusts in a results directory must be the user's own: owned
 * by the user fslab runs as and writable by nobody else (no other user can
 * have replaced a file in it or written into one), and a file singly
 * linked.  0, or -EPERM with the reason and the fix in e. */
static int run_check_ours(const struct stat *st, const char *what, struct fslab_err *e)
{
	if (st->st_uid != geteuid())
		return fslab_err_set(e, EPERM, "%s belongs to uid %u, not to uid %u that fslab runs as (another user could have changed it); %s",
			 what, (unsigned)st->st_uid, (unsigned)geteuid(),
			 S_ISDIR(st->st_mode) ? "choose a directory of your own" : "it is not a file this fslab wrote");
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return fslab_err_set(e, EPERM, "%s is writable by %s (another user could have changed it); remove that permission (chmod go-w) or choose another directory",
			 what, (st->st_mode & S_IWOTH) ? "other users" : "its group");
	if (!S_ISDIR(st->st_mode) && st->st_nlink != 1)
		return fslab_err_set(e, EPERM, "%s has %u hard links (fslab creates its files with one); it is not a file this fslab wrote",
				     what, (unsigned)st->st_nlink);
	return 0;
}

/* Something (a file, a symlink, anything) named name in dfd? */
static bool run_name_taken(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

/* The run marker ties a run to its directory and files:
 *
 *   <run id>
 *   dir <st_dev> <st_ino>          the results directory itself
 *   csv <NAME.csv> <st_dev> <st_ino>  each CSV, once the run made it
 *
 * A marker and manifest copied together into another directory (or a CSV
 * copied in) have another identity there, so --resume refuses them. */
struct run_marker {
	char id[FSLAB_RUN_ID_LEN + 1];
	bool has_dir;
	struct fslab_file_id dir;
	size_t n_csv;
	struct {
		char name[FSLAB_FS_NAME_MAX + 8];
		struct fslab_file_id id;
	} csv[FSLAB_MAX_FS];
};

#define RUN_MARKER_MAX 16384

/* Reads and parses the marker (fd open on it); 0 or -EINVAL. */
static int run_marker_read(int fd, struct run_marker *m)
{
	char text[RUN_MARKER_MAX + 1], *save = NULL, *line;
	ssize_t n = pread(fd, text, RUN_MARKER_MAX, 0);
	uuid_t uu;

	memset(m, 0, sizeof(*m));
	if (n <= 0 || n == RUN_MARKER_MAX)
		return -EINVAL;
	text[n] = '\0';
	line = strtok_r(text, "\n", &save);
	if (!line || strlen(line) != FSLAB_RUN_ID_LEN || uuid_parse(line, uu) < 0)
		return -EINVAL;
	snprintf(m->id, sizeof(m->id), "%s", line);
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned long long dev, ino;
		char name[80]; /* %79s below; a longer name is no CSV of fslab's */
		int used = 0;

		if (sscanf(line, "dir %llu %llu%n", &dev, &ino, &used) == 2 && line[used] == '\0' &&
		    !m->has_dir) {
			m->has_dir = true;
			m->dir = (struct fslab_file_id){ (dev_t)dev, (ino_t)ino };
		} else if (sscanf(line, "csv %79s %llu %llu%n", name, &dev, &ino, &used) == 3 &&
			   line[used] == '\0' && m->n_csv < FSLAB_MAX_FS && strlen(name) < sizeof(m->csv[0].name)) {
			snprintf(m->csv[m->n_csv].name, sizeof(m->csv[0].name), "%s", name);
			m->csv[m->n_csv].id = (struct fslab_file_id){ (dev_t)dev, (ino_t)ino };
			m->n_csv++;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* The marker's text for c: the run id, the directory and the CSVs open
 * in c (all when csvs is true). */
static int run_marker_text(const struct fslab_run_ctx *c, bool csvs, char *text, size_t len)
{
	struct stat st;
	size_t o;

	if (fstat(c->out_fd, &st) < 0)
		return -errno;
	o = (size_t)snprintf(text, len, "%s\ndir %llu %llu\n", c->run_id, (unsigned long long)st.st_dev,
			     (unsigned long long)st.st_ino);
	for (size_t i = 0; csvs && i < c->n_fs && o < len; i++) {
		if (!c->fs[i].csv || fstat(fileno(c->fs[i].csv), &st) < 0)
			return -EIO;
		o += (size_t)snprintf(text + o, len - o, "csv %s.csv %llu %llu\n", c->fs[i].rec.name,
				      (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	}
	return o < len ? (int)o : -ENAMETOOLONG;
}

/* The marker written whole or not at all (temporary file + rename,
 * fsync'ed), with the CSVs open in c when csvs.  0 or -errno, said. */
static int run_marker_write(const struct fslab_run_ctx *c, bool csvs)
{
	char text[RUN_MARKER_MAX];
	int n = run_marker_text(c, csvs, text, sizeof(text)), r;

	if (n < 0)
		return run_note_errno(n, csvs ? "cannot record the CSVs in %s/" FSLAB_RUN_MARKER
						 : "cannot write %s/" FSLAB_RUN_MARKER,
					 fslab_esc(c->out_dir));
	r = fslab_write_file_atomic_at(c->out_fd, FSLAB_RUN_MARKER, text, (size_t)n, 0644);
	if (r < 0)
		return run_note_errno(r, "cannot write %s/" FSLAB_RUN_MARKER, fslab_esc(c->out_dir));
	return 0;
}

/* Once every CSV is open (made or resumed): their headers and names on
 * the disk before the first cell (the rows are then synced within the
 * journal's window as they are appended, fslab_results_append_row, so a
 * crash leaves them findable), then the marker records their identities,
 * replacing the marker atomically.  EINVAL from the directory: a
 * filesystem that cannot sync one (nothing to wait for). */
int run_marker_record_csvs(const struct fslab_run_ctx *c)
{
	for (size_t i = 0; i < c->n_fs; i++)
		if (c->fs[i].csv && (fflush(c->fs[i].csv) != 0 || fdatasync(fileno(c->fs[i].csv)) < 0))
			return run_note_errno(errno, "cannot write %s/%s.csv to the disk", fslab_esc(c->out_dir),
						 c->fs[i].rec.name);
	if (fsync(c->out_fd) < 0 && errno != EINVAL)
		return run_note_errno(errno, "cannot flush the results directory %s to the disk",
					 fslab_esc(c->out_dir));
	return run_marker_write(c, true);
}

/* The marker of the results directory held in c (checked as ours by the
 * caller before), which must be this directory's own. */
static int run_marker_load(const struct fslab_run_ctx *c, struct run_marker *m)
{
	struct fslab_file_id dir;
	int fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK), r;

	if (fd < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: no run id (" FSLAB_RUN_MARKER ": %s): not a results directory this fslab wrote, so its manifest cannot be proved to be its own; nothing was changed",
			    fslab_esc(c->out_dir), fd == -ELOOP ? "a symbolic link" : fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return -EINVAL;
	}
	r = run_marker_read(fd, m);
	close(fd);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: " FSLAB_RUN_MARKER " does not hold a run id; nothing was changed", fslab_esc(c->out_dir));
		return r;
	}
	r = fslab_file_id_of_fd(c->out_fd, &dir);
	if (r < 0)
		return run_note_errno(r, "--resume %s", fslab_esc(c->out_dir));
	if (!m->has_dir) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: " FSLAB_RUN_MARKER " does not record its directory (written by an earlier fslab): the run cannot be proved to be this directory's; report it, or start a new run; nothing was changed",
			    fslab_esc(c->out_dir));
		return -EINVAL;
	}
	if (!fslab_file_id_equal(&dir, &m->dir)) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: " FSLAB_RUN_MARKER " was written for another directory (device %llu inode %llu, this one is %llu/%llu): the marker and its manifest were copied in from another run (or the directory was copied); refusing to resume, nothing was changed",
			    fslab_esc(c->out_dir), (unsigned long long)m->dir.dev, (unsigned long long)m->dir.ino,
			    (unsigned long long)dir.dev, (unsigned long long)dir.ino);
		return -EINVAL;
	}
	return 0;
}

/* A new run's results directory (--out, or results/<UTC time>): made
 * 0755 when new, opened (never through a symlink) and locked. */
static int run_out_open(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	char ts[32];
	struct fslab_err fe = FSLAB_ERR_INIT;
	struct stat st;
	bool existed;
	int r;

	if (o->out_dir) {
		snprintf(c->out_dir, sizeof(c->out_dir), "%s", o->out_dir);
	} else {
		fslab_utc_now("%Y%m%dT%H%M%SZ", ts, sizeof(ts));
		snprintf(c->out_dir, sizeof(c->out_dir), "results/%s", ts);
		r = fslab_default_results_trusted(false, &fe);
		if (r < 0) {
			fslab_note(FSLAB_NOTE_ERROR, "%s", fe.msg);
			return r;
		}
	}
	existed = lstat(c->out_dir, &st) == 0;
	r = fslab_mkdir_p(c->out_dir, 0755);
	if (r < 0)
		return run_note_errno(r, "cannot create the results directory %s", fslab_esc(c->out_dir));
	if (!o->out_dir && (r = fslab_default_results_trusted(true, &fe)) < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", fe.msg);
		return r;
	}
	c->out_fd = fslab_dir_open(c->out_dir);
	if (c->out_fd < 0)
		return run_note_errno(c->out_fd, "%s: cannot open the results directory%s",
					 fslab_esc(c->out_dir),
					 c->out_fd == -ELOOP || c->out_fd == -ENOTDIR ? " (a symbolic link is not followed; give the directory itself)" : "");
	if (!existed && fchmod(c->out_fd, 0755) < 0)
		return run_note_errno(errno, "cannot set the mode of %s", fslab_esc(c->out_dir));
	return run_lock_results(c);
}

/* A run killed before it wrote its manifest left only its marker: with no
 * manifest there is nothing to resume, and the same command starts again.
 * Only fslab's own marker (a regular file of ours) is removed. */
static int run_out_drop_stale_marker(struct fslab_run_ctx *c)
{
	struct run_marker old;
	struct stat st;
	int fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK);
	bool ours = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() && st.st_nlink == 1 &&
		    run_marker_read(fd, &old) == 0;

	if (fd >= 0)
		close(fd);
	if (!ours || unlinkat(c->out_fd, FSLAB_RUN_MARKER, 0) < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s/" FSLAB_RUN_MARKER " exists but is not a run marker fslab left; choose another --out",
			    fslab_esc(c->out_dir));
		return -EEXIST;
	}
	return 0;
}

/* The directory holds no run (no manifest, no CSV of ours to be), and is
 * the user's own: an existing directory of another user's, or one others
 * may write to, is not taken (that user could later swap its manifest and
 * steer a resume). */
static int run_out_check_free(struct fslab_run_ctx *c)
{
	struct fslab_err why = FSLAB_ERR_INIT;
	struct stat st;

	if (run_name_taken(c->out_fd, FSLAB_MANIFEST_NAME)) {
		fslab_note(FSLAB_NOTE_ERROR, "%s already holds a run (manifest.json); continue it with --resume %s, or choose another --out",
			    fslab_esc(c->out_dir), fslab_esc(c->out_dir));
		return -EEXIST;
	}
	if (run_name_taken(c->out_fd, FSLAB_RUN_MARKER) && run_out_drop_stale_marker(c) < 0)
		return -EEXIST;
	for (size_t i = 0; i < c->n_fs; i++) {
		char csv[FSLAB_FS_NAME_MAX + 8];

		snprintf(csv, sizeof(csv), "%s.csv", c->fs[i].rec.name);
		if (run_name_taken(c->out_fd, csv)) {
			fslab_note(FSLAB_NOTE_ERROR, "%s/%s already exists; choose another --out (results of two runs are never mixed, and fslab never writes through a file it did not create)",
				    fslab_esc(c->out_dir), csv);
			return -EEXIST;
		}
	}
	if (fstat(c->out_fd, &st) < 0)
		return run_note_errno(errno, "cannot stat the results directory %s", fslab_esc(c->out_dir));
	if (run_check_ours(&st, "the directory", &why) < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--out %s: %s", fslab_esc(c->out_dir), why.msg);
		return -EPERM;
	}
	return 0;
}

/* A new run's results directory: made 0755 (or an existing one holding no
 * run), locked, and marked with a new run id in .fslab-run (written whole
 * or not at all: a run killed while it marks its directory leaves no
 * marker or a complete one, never an empty file the same command could
 * not tell from a stranger's). */
int run_prepare_out(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	int r = run_out_open(c, o);
	uuid_t uu;

	if (r == 0)
		r = run_out_check_free(c);
	if (r < 0)
		return r;
	uuid_generate(uu);
	uuid_unparse_lower(uu, c->run_id);
	return run_marker_write(c, false);
}

/* --resume DIR, before anything in DIR changes: the directory itself (not
 * a symlink), its lock, its run id (.fslab-run, a regular file) and a
 * manifest carrying the same run id. */
int run_open_resume_dir(struct fslab_run_ctx *c, const char *dir)
{
	char id[FSLAB_RUN_ID_LEN + 2] = "", err[PATH_MAX + 512];
	struct fslab_err why = FSLAB_ERR_INIT;
	struct run_marker m;
	struct stat st;
	int r, fd;

	snprintf(c->out_dir, sizeof(c->out_dir), "%s", dir);
	c->out_fd = fslab_dir_open(dir);
	if (c->out_fd < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: %s%s", fslab_esc(dir), strerror(-c->out_fd),
			    c->out_fd == -ELOOP || c->out_fd == -ENOTDIR ? " (a symbolic link is not followed; give the results directory itself)" : "");
		return c->out_fd;
	}
	r = run_lock_results(c);
	if (r < 0)
		return r;
	/* The directory, its marker and its manifest: ours alone, or another
	 * user could have put a run of their choosing in them. */
	if (fstat(c->out_fd, &st) < 0)
		return run_note_errno(errno, "--resume %s", fslab_esc(dir));
	fd = fslab_open_regular_at(c->out_fd, FSLAB_RUN_MARKER, O_RDONLY | O_NONBLOCK);
	r = run_check_ours(&st, "the directory", &why) < 0 ||
	    (fstatat(c->out_fd, FSLAB_MANIFEST_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	     run_check_ours(&st, FSLAB_MANIFEST_NAME, &why) < 0) ||
	    (fd >= 0 && (fstat(fd, &st) < 0 || run_check_ours(&st, FSLAB_RUN_MARKER, &why) < 0));
	if (fd >= 0)
		close(fd);
	if (r) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: %s; nothing was changed", fslab_esc(dir), why.msg);
		return -EPERM;
	}
	/* the run id, recorded for this very directory */
	r = run_marker_load(c, &m);
	if (r < 0)
		return r;
	snprintf(id, sizeof(id), "%s", m.id);
	r = fslab_manifest_read(c->out_fd, c->out_dir, c, err, sizeof(err));
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", fslab_esc(err));
		return r;
	}
	if (strcmp(c->run_id, id) != 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--resume %s: manifest.json belongs to run %s, but this directory is run %s (" FSLAB_RUN_MARKER "): the manifest is not this directory's own (copied from another run?); refusing to resume, nothing was changed",
			    fslab_esc(dir), fslab_esc(c->run_id), id);
		return -EINVAL;
	}
	return 0;
}

/* --resume: every CSV checked (and nothing changed) before the run goes
 * on. */
int run_check_resume_csvs(struct fslab_run_ctx *c, const struct fslab_plan *plan,
			  struct run_fs_state *fst)
{
	struct run_marker m;
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	r = run_marker_load(c, &m);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_fs; i++) {
		char name[FSLAB_FS_NAME_MAX + 8];
		struct fslab_file_id id;
		const struct fslab_file_id *rec = NULL;

		r = fslab_resume_check(c->out_fd, c->fs[i].rec.name, &fst[i].csv, &fst[i].done, &err);
		if (r < 0) {
			fslab_note(FSLAB_NOTE_ERROR, "--resume %s: %s", fslab_esc(c->out_dir), fslab_err_msg(&err));
			return r;
		}
		snprintf(name, sizeof(name), "%s.csv", c->fs[i].rec.name);
		for (size_t k = 0; k < m.n_csv; k++)
			if (strcmp(m.csv[k].name, name) == 0)
				rec = &m.csv[k].id;
		/* The CSV the run made (the marker recorded it), or one made
		 * just before a kill, with no row yet. */
		if (fst[i].csv.fd >= 0) {
			r = fslab_file_id_of_fd(fst[i].csv.fd, &id);
			if (r < 0)
				return run_note_errno(r, "--resume %s/%s", fslab_esc(c->out_dir), name);
			if (rec ? !fslab_file_id_equal(rec, &id) : fst[i].done.n > 0) {
				fslab_note(FSLAB_NOTE_ERROR, "--resume %s: %s is not the file this run created (%s): copied in from another run?; refusing to resume, nothing was changed",
					    fslab_esc(c->out_dir), name,
					    rec ? "another inode than " FSLAB_RUN_MARKER " records" : FSLAB_RUN_MARKER " records no such CSV");
				return -EINVAL;
			}
		}
		/* Every row a cell of the recorded plan: rows of another
		 * sweep would be mixed into this run's. */
		for (size_t k = 0; k < fst[i].done.n; k++) {
			const struct fslab_cell_key *key = &fst[i].done.keys[k];
			bool in_plan = fslab_plan_find(plan, key->test, key->file_kib, key->record_kib,
						       key->iodepth, key->jobs) < plan->n;
			if (!in_plan || !(c->cfg.sweep.tests & (1u << key->test)) || key->trial < 1 || key->trial > FSLAB_RESULTS_LAST_TRIAL(c->cfg.sweep.trials, c->cfg.max_trials)) {
				fslab_note(FSLAB_NOTE_ERROR, "--resume %s: %s holds a row outside this run's plan (%s, file %llu KiB, record %llu KiB, trial %u; manifest.json says otherwise): the CSV and the manifest are not of one run; refusing to resume, nothing was changed",
					    fslab_esc(c->out_dir), name, fslab_test_to_string(key->test),
					    (unsigned long long)key->file_kib, (unsigned long long)key->record_kib,
					    key->trial);
				return -EINVAL;
			}
		}
		for (size_t k = 0; k < fst[i].done.n; k++)
			if (fst[i].done.ok[k])
				c->fs[i].rec.cells_ok++;
	}
	return 0;
}

int fslab_run_resume_where(const char *resume_dir, char *state_path, size_t len,
			   struct fslab_target **targets, size_t *n)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_target *t = NULL;
	int ret = FSLAB_EXIT_FAILURE;

	*targets = NULL;
	*n = 0;
	if (!c) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		return FSLAB_EXIT_FAILURE;
	}
	/* every check --resume makes before it reads the manifest, said as
	 * fslab_run says them; nothing is changed */
	if (run_open_resume_dir(c, resume_dir) < 0)
		goto out;
	t = calloc(c->resumed->n_fs, sizeof(*t));
	if (!t) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->resumed->n_fs; i++) {
		snprintf(t[i].name, sizeof(t[i].name), "%s", c->resumed->fs[i].name);
		snprintf(t[i].path, sizeof(t[i].path), "%s", c->resumed->fs[i].path);
		t[i].discarded = -1;
	}
	snprintf(state_path, len, "%s", c->state_path);
	*targets = t;
	*n = c->resumed->n_fs;
	ret = FSLAB_EXIT_OK;
out:
	run_ctx_free(c);
	return ret;
}
