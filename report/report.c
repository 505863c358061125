/* fslab_report(): load, print the text report, then build the output
 * directory in a temporary sibling of --out and rename it into place only
 * when everything in it is complete. */
#include "err.h"
#include "fileutil.h"
#include "log.h"
#include "outputs.h"
#include "view.h"
#include "termtext.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/random.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fslab_report_opts_init(struct fslab_report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = FSLAB_REPORT_FORMAT_ALL;
	o->plots = FSLAB_REPORT_PLOT_ALL;
	o->equivalence = RP_EQUIVALENCE_DEFAULT;
	o->fail_on_regression = -1;
}

int fslab_report_plots_parse(const char *list, unsigned *mask, struct fslab_err *e)
{
	static const struct {
		const char *word;
		unsigned bits;
	} kinds[] = { { "all", FSLAB_REPORT_PLOT_ALL }, { "none", 0 },
		      { "surface", FSLAB_REPORT_PLOT_SURFACE }, { "heatmap", FSLAB_REPORT_PLOT_HEATMAP },
		      { "compare", FSLAB_REPORT_PLOT_COMPARE } };
	char buf[256], *save = NULL;
	unsigned m = 0;
	size_t k;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return fslab_err_set(e, EINVAL, "--plots: unknown plot kind '%.63s' (all, none, surface, heatmap, compare)", list);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(w, kinds[k].word) != 0; k++)
			;
		if (k == sizeof(kinds) / sizeof(kinds[0]))
			return fslab_err_set(e, EINVAL, "--plots: unknown plot kind '%.63s' (all, none, surface, heatmap, compare)", w);
		m |= kinds[k].bits;
	}
	*mask = m;
	return 0;
}

/* The marker in every report directory fslab writes: --out is replaced only
 * when it holds one (a regular file, not a link, owned by root or us, in a
 * directory owned by root or us) that records this very directory's
 * (st_dev, st_ino), or when it is empty.  A marker copied into another
 * directory proves nothing there: that directory is refused.
 *
 *   fslab report directory
 *   id <random>
 *   fslab_version <version>
 *   <a sentence for a reader>
 *   dir <st_dev> <st_ino>
 */
#define RPT_MARKER ".fslab-report"
#define RPT_MARKER_HEAD "fslab report directory\n"
#define RPT_MARKER_MAX 4096

static int rpt_write_marker(int tfd)
{
	unsigned char rnd[16];
	char id[33], text[320];
	struct stat ds;
	int n;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -errno;
	if (fstat(tfd, &ds) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	n = snprintf(text, sizeof(text),
		     RPT_MARKER_HEAD "id %s\nfslab_version %s\n"
				     "This directory was written by fslab report, which replaces it as a whole.\n"
				     "dir %llu %llu\n",
		     id, FSLAB_VERSION, (unsigned long long)ds.st_dev, (unsigned long long)ds.st_ino);
	return fslab_write_file_atomic_flags_at(tfd, RPT_MARKER, text, (size_t)n, 0644, FSLAB_WRITE_NOSYNC);
}

/* 1: the directory open as dfd is empty; 0: it is not; or -errno. */
static int rpt_dir_empty(int dfd)
{
	int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *dh = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	int empty = 1;

	if (!dh) {
		int r = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return r;
	}
	while ((de = readdir(dh)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(dh);
	return empty;
}

/* May the marker (st) in the directory (ds) be believed: a regular file
 * with one link, it and the directory owned by root or us?  Else why. */
static bool rpt_marker_trusted(const struct stat *ds, const struct stat *st, char *why,
			       size_t whylen)
{
	if (ds->st_uid != 0 && ds->st_uid != geteuid()) {
		snprintf(why, whylen, "the directory belongs to uid %u", (unsigned)ds->st_uid);
		return false;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "its %s is not a regular file%s", RPT_MARKER,
			 S_ISLNK(st->st_mode) ? " (a symlink)" : "");
		return false;
	}
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, whylen, "its %s belongs to uid %u, not to root or uid %u", RPT_MARKER,
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return false;
	}
	if (st->st_nlink != 1) {
		snprintf(why, whylen, "its %s has %u hard links (fslab writes it with one: a link to another report's marker proves nothing)",
			 RPT_MARKER, (unsigned)st->st_nlink);
		return false;
	}
	return true;
}

/* What stands at --out. */
enum rpt_out {
	RPT_OUT_NONE,   /* nothing: the new report is renamed there */
	RPT_OUT_REPORT, /* an earlier report fslab wrote: replaced, then removed */
	RPT_OUT_EMPTY,  /* an empty directory: replaced, then rmdir'ed */
};

/* Is the directory open as ofd one fslab may replace?  RPT_OUT_REPORT
 * (it holds this directory's marker) or RPT_OUT_EMPTY; -EEXIST when it
 * is neither (why in why), another negative errno when it cannot tell. */
static int rpt_out_dir_kind(int ofd, char *why, size_t whylen)
{
	struct stat st, ds;
	char *text = NULL;
	unsigned long long dev, ino;
	ssize_t got;
	int fd, r = -EEXIST;

	if (fstat(ofd, &ds) < 0)
		return -errno;
	if (fstatat(ofd, RPT_MARKER, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = rpt_dir_empty(ofd);
		if (r == 0)
			snprintf(why, whylen, "it is not empty and has no %s marker", RPT_MARKER);
		return r < 0 ? r : r ? RPT_OUT_EMPTY : -EEXIST;
	}
	if (!rpt_marker_trusted(&ds, &st, why, whylen))
		return -EEXIST;
	fd = fslab_open_regular_at(ofd, RPT_MARKER, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, whylen, "its %s cannot be opened: %s", RPT_MARKER, strerror(-fd));
		return -EEXIST;
	}
	text = malloc(RPT_MARKER_MAX + 1);
	got = text ? read(fd, text, RPT_MARKER_MAX) : -1;
	close(fd);
	if (got >= 0)
		text[got] = '\0';
	if (got < 0 || (size_t)got == RPT_MARKER_MAX ||
	    strncmp(text, RPT_MARKER_HEAD, strlen(RPT_MARKER_HEAD)) != 0) {
		snprintf(why, whylen, "its %s is not one fslab wrote", RPT_MARKER);
		goto out;
	}
	/* written for this very directory */
	const char *dl = strstr(text, "\ndir ");
	if (!dl || sscanf(dl, "\ndir %llu %llu", &dev, &ino) != 2) {
		snprintf(why, whylen, "its %s records no directory identity (an earlier fslab wrote it); remove the directory yourself",
			 RPT_MARKER);
		goto out;
	}
	if (dev != (unsigned long long)ds.st_dev || ino != (unsigned long long)ds.st_ino) {
		snprintf(why, whylen, "its %s was written for another directory (device %llu inode %llu, this one is %llu/%llu): copied in, or the report was copied",
			 RPT_MARKER, dev, ino, (unsigned long long)ds.st_dev, (unsigned long long)ds.st_ino);
		goto out;
	}
	r = RPT_OUT_REPORT;
out:
	free(text);
	return r;
}

/* What stands at base in pfd (enum rpt_out), its identity in id; or, with
 * the error printed, a negative errno (-EEXIST: something fslab must not
 * replace). */
static int rpt_out_kind(int pfd, const char *base, const char *shown, struct fslab_file_id *id,
			struct fslab_err *e)
{
	char why[256];
	struct stat st;
	int ofd, r;

	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return RPT_OUT_NONE;
		return rp_err_errno(e, errno, "--out %s", shown);
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
		return fslab_err_set(e, EEXIST, "--out %s exists and is %s, not a report directory fslab wrote; remove it or choose another --out",
				     shown, S_ISLNK(st.st_mode) ? "a symlink" : "no directory");
	ofd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ofd < 0)
		return rp_err_errno(e, errno, "--out %s", shown);
	r = fslab_file_id_of_fd(ofd, id);
	if (r == 0)
		r = rpt_out_dir_kind(ofd, why, sizeof(why));
	close(ofd);
	if (r == -EEXIST)
		return fslab_err_set(e, r, "--out %s is not an earlier fslab report (%s); fslab replaces only a directory it wrote: remove it or choose another --out",
				     shown, why);
	if (r < 0)
		return rp_err_errno(e, r, "--out %s", shown);
	return r;
}

/* Is the entry name in pfd still the directory whose identity is id? */
static bool rpt_same_dir(int pfd, const char *name, const struct fslab_file_id *id)
{
	struct stat st;

	return fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == id->dev && st.st_ino == id->ino;
}

/* No atomic exchange on this filesystem: moves the old report at base
 * aside as old, then the new one (tname) in; the old one goes back on
 * failure.  0 or a negative errno (printed). */
static int rpt_swap_by_renames(int pfd, const char *tname, const char *base, const char *e1,
			       const struct fslab_file_id *id, char *old, size_t oldlen, struct fslab_err *e)
{
	if (snprintf(old, oldlen, "%s.old", tname) >= (int)oldlen)
		return -ENAMETOOLONG;
	if (renameat2(pfd, base, pfd, old, RENAME_NOREPLACE) < 0)
		return rp_err_errno(e, errno, "cannot move the earlier report %s aside", e1);
	if (!rpt_same_dir(pfd, old, id)) {
		renameat2(pfd, old, pfd, base, RENAME_NOREPLACE);
		return fslab_err_set(e, ESTALE, "%s changed while the report was written; nothing replaced", e1);
	}
	if (renameat2(pfd, tname, pfd, base, RENAME_NOREPLACE) < 0) {
		int err = errno;

		if (renameat2(pfd, old, pfd, base, RENAME_NOREPLACE) < 0)
			return fslab_err_set(e, err, "cannot rename the new report to %s: %s\n%s: and cannot put the earlier report back: %s",
					     e1, strerror(err), fslab_log_prefix(), strerror(errno));
		return rp_err_errno(e, err, "cannot rename the new report to %s", e1);
	}
	return 0;
}

/* Puts the finished temporary directory tname (in pfd) at base, replacing
 * an earlier report or an empty directory there, and removes the old one
 * (rmdir for an empty directory, the whole tree for a report).  The old
 * one is removed only when it is still the directory that was checked. */
static int rpt_replace(int pfd, const char *tname, const char *base, const char *shown,
		       struct fslab_err *e)
{
	struct fslab_file_id id;
	char old[NAME_MAX + 1];
	int kind = rpt_out_kind(pfd, base, shown, &id, e), r;

	if (kind < 0)
		return kind;
	if (kind == RPT_OUT_NONE) {
		if (renameat2(pfd, tname, pfd, base, RENAME_NOREPLACE) < 0)
			return rp_err_errno(e, errno, "cannot rename the new report to %s", shown);
		return 0;
	}
	if (renameat2(pfd, tname, pfd, base, RENAME_EXCHANGE) == 0) {
		if (!rpt_same_dir(pfd, tname, &id)) {
			/* something else was put at --out meanwhile: give it back */
			if (renameat2(pfd, tname, pfd, base, RENAME_EXCHANGE) < 0)
				return fslab_err_set(e, ESTALE, "and cannot swap it back: %s\n%s: %s changed while the report was written; nothing replaced",
						     strerror(errno), fslab_log_prefix(), shown);
			return fslab_err_set(e, ESTALE, "%s changed while the report was written; nothing replaced", shown);
		}
		snprintf(old, sizeof(old), "%s", tname);
	} else if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
		return rp_err_errno(e, errno, "cannot replace %s with the new report", shown);
	} else if ((r = rpt_swap_by_renames(pfd, tname, base, shown, &id, old, sizeof(old), e)) < 0) {
		return r;
	}
	r = kind == RPT_OUT_REPORT ? fslab_remove_tree_at(pfd, old, &id)
				   : (unlinkat(pfd, old, AT_REMOVEDIR) < 0 ? -errno : 0);
	if (r < 0)
		fslab_note_warn("the earlier report, moved aside as %s beside %s, was not removed: %s", old, shown,
			   strerror(-r));
	return 0;
}

/* The text report into a malloc'd buffer. */
static int rpt_text_render(const struct rp_data *d,
			   unsigned tests, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int rc;

	if (!f)
		return -ENOMEM;
	fputs("fslab report\n", f);
	rp_claims_text_first(f, d);
	rc = rp_text_summary(f, d);
	if (rc == 0 && !d->sum->tests) /* a CDM run's headline: its rows */
		rc = rp_cdm_text(f, d);
	fputc('\n', f);
	rp_text_runs(f, d);
	if (rc == 0)
		rc = rp_text_rankings(f, d, tests);
	if (rc == 0 && d->sum->tests)
		rc = rp_cdm_text(f, d);
	if (rc == 0)
		rc = rp_latency_table(f, d, false);
	if (rc == 0 && d->n_runs > 1)
		rc = rp_same_fs_table(f, d, false);
	if (d->n_runs > 1 && !d->sum->comparison)
		rp_text_run_rankings(f, d, tests);
	rp_claims_text(f, d);
	if (fclose(f) != 0 || rc < 0) /* a table: only memory can fail it */
		return -ENOMEM;
	return 0;
}

/* Everything in the report directory but its marker, into tmp: the plots,
 * report.html, report.txt (text) and report.json. */
static int rpt_write_files(const struct fslab_report_opts *o, const struct rp_data *d,
			   unsigned tests, const char *text, size_t text_len, const char *tmp,
			   struct fslab_err *e)
{
	char pdir[PATH_MAX + 128], p[PATH_MAX + 160];
	struct rp_plots plots;
	int r;

	snprintf(pdir, sizeof(pdir), "%s/plots", tmp);
	if (mkdir(pdir, 0755) < 0)
		return rp_err_errno(e, errno, "%s: cannot create", pdir);
	r = rp_plots_draw(d, pdir, o->plots, tests, o->compare_record_kib, &plots, e);
	if (r < 0) {
		rp_plots_free(&plots);
		return r;
	}
	r = rp_html_write(d, &plots, tmp, tests, o->claims, e);
	rp_plots_free(&plots);
	if (r < 0)
		return r;
	char *js = NULL;
	size_t js_len = 0;
	FILE *jf = open_memstream(&js, &js_len);
	if (!jf)
		return rp_err_errno(e, ENOMEM, "out of memory");
	r = rp_json_write(jf, d, tests);
	if (fclose(jf) != 0 || r < 0) {
		free(js);
		return rp_err_errno(e, ENOMEM, "out of memory");
	}
	for (int k = 0; k < 2 && r >= 0; k++) { /* report.txt, report.json */
		snprintf(p, sizeof(p), "%s/report.%s", tmp, k ? "json" : "txt");
		r = fslab_write_file_atomic(p, k ? js : text, k ? js_len : text_len, 0644);
	}
	free(js);
	return r < 0 ? rp_err_errno(e, r, "%s: cannot write", p) : 0;
}

/* The text report as it reaches a terminal or report.txt, through the
 * terminal filter (lib/termtext.h), so a name cannot drive the terminal. */
static int rpt_escape_lines(char **buf, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	int r = f ? fslab_put_text(*buf, f) : EOF;

	if (!f || fclose(f) != 0 || r != 0) {
		free(out);
		return -ENOMEM;
	}
	free(*buf);
	*buf = out;
	return 0;
}

/* The output directory: built in a temporary sibling of --out (default
 * DIR/report) and renamed into place when complete.  0, or an exit code
 * with the error printed. */
static int rpt_write_dir(const struct fslab_report_opts *o, const struct rp_data *d, unsigned tests,
			 const char *text, size_t text_len, struct fslab_err *e)
{
	char out[PATH_MAX], parent[PATH_MAX], base[NAME_MAX + 1], tname[NAME_MAX + 1],
		tmp[PATH_MAX];
	struct fslab_file_id tid, oid;
	int r, pfd = -1, tfd = -1, ret = FSLAB_EXIT_FAILURE;

	snprintf(out, sizeof(out), "%s%s", o->out ? o->out : o->dirs[0], o->out ? "" : "/report");
	if (rp_split_path(out, parent, sizeof(parent), base, sizeof(base)) < 0) {
		fslab_err_set(e, EINVAL, "--out %s: give a directory name (not / . or ..)", out);
		return FSLAB_EXIT_USAGE;
	}
	r = fslab_mkdir_p(parent, 0755);
	if (r < 0) {
		fslab_err_set(e, r, "%s: cannot create the parent of --out %s: %s",
			      parent, out, strerror(-r));
		return FSLAB_EXIT_FAILURE;
	}
	pfd = fslab_dir_open(parent);
	if (pfd < 0) {
		fslab_err_set(e, pfd, "%s: cannot open the parent of --out: %s%s", parent,
			      strerror(-pfd), pfd == -ELOOP || pfd == -ENOTDIR ? " (a symlink is not followed)" : "");
		return FSLAB_EXIT_FAILURE;
	}
	/* refuse early, before the plots are drawn; checked again at the end */
	if (rpt_out_kind(pfd, base, out, &oid, e) < 0)
		goto done;
	tfd = rp_tmpdir_make(pfd, parent, tname, sizeof(tname));
	if (tfd < 0) {
		fslab_err_set(e, tfd, "%s: cannot create a temporary directory: %s",
			      parent, strerror(-tfd));
		goto done;
	}
	if (fslab_file_id_of_fd(tfd, &tid) < 0) {
		fslab_err_set(e, errno, "%s: cannot stat the temporary directory: %s", out, strerror(errno));
		goto done;
	}
	if (snprintf(tmp, sizeof(tmp), "%s/%s", parent, tname) >= (int)sizeof(tmp)) {
		fslab_err_set(e, ENAMETOOLONG, "--out %s: path too long", out);
		goto done;
	}
	if (rpt_write_files(o, d, tests, text, text_len, tmp, e) < 0)
		goto done;
	r = rpt_write_marker(tfd);
	if (r < 0) {
		fslab_err_set(e, r, "%s: cannot write the %s marker: %s", out, RPT_MARKER, strerror(-r));
		goto done;
	}
	if (rp_tmpdir_unmark(tfd) < 0 || fchmod(tfd, 0755) < 0 || fsync(tfd) < 0) {
		fslab_err_set(e, errno, "%s: cannot finish the temporary directory: %s", out, strerror(errno));
		goto done;
	}
	if (rpt_replace(pfd, tname, base, out, e) < 0)
		goto done;
	close(tfd);
	tfd = -1;
	fsync(pfd);
	fprintf(stderr, "%s: wrote %s/report.html\n", fslab_log_prefix(), fslab_esc(out));
	ret = FSLAB_EXIT_OK;
done:
	/* a write that failed under the temporary directory: the user's path,
	 * the cause, the fix (the step's message named a temporary name) */
	r = -e->code;
	if (ret != FSLAB_EXIT_OK && (r == ENOSPC || r == EDQUOT || r == EIO || r == EROFS || r == EFBIG))
		fslab_err_set(e, r, "cannot write the report to %s: %s; %s; nothing was replaced, and no part of the report is left", out,
			      strerror(r), r == ENOSPC || r == EDQUOT ? "make room on its filesystem or give --out on another one" : "give --out on another filesystem");
	if (tfd >= 0) {
		close(tfd);
		fslab_remove_tree_at(pfd, tname, &tid);
	}
	close(pfd);
	return ret;
}

/* Loads the directories and checks what --claims needs of them: 0, or an
 * exit code with the error printed. */
static int rpt_load(const struct fslab_report_opts *o, struct rp_data *d, struct fslab_err *e)
{
	int r;

	if (o->n_dirs == 0 || o->n_dirs > FSLAB_REPORT_MAX_DIRS) {
		fslab_err_set(e, EINVAL, "give 1 to %d results directories", FSLAB_REPORT_MAX_DIRS);
		return FSLAB_EXIT_USAGE;
	}
	if (o->claims && o->n_dirs < 2) {
		fslab_err_set(e, EINVAL, "--claims needs the warm run and at least one honest run: WARM_DIR HONEST_DIR...");
		return FSLAB_EXIT_USAGE;
	}
	r = rp_load(d, o->dirs, o->n_dirs, e);
	if (r < 0)
		return (r == -ENOMEM || r == -EIO) ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_USAGE;
	for (size_t i = 0; i < d->n_runs; i++) {
		d->runs[i].side = o->side[i];
		d->n_sides = o->side[i] >= d->n_sides ? o->side[i] + 1 : d->n_sides;
	}
	if (o->fail_on_regression >= 0 && d->n_sides < 2) {
		fslab_err_set(e, EINVAL, "--fail-on-regression compares two sides: give BEFORE AFTER, each a comma list of runs");
		return FSLAB_EXIT_USAGE;
	}
	for (size_t i = 1; o->claims && i < d->n_runs; i++)
		if (fslab_cache_mode_from_string(d->runs[i].cache) == FSLAB_CACHE_WARM) {
			fslab_err_set(e, EINVAL, "--claims: %s is a warm run, and a warm run cannot be the honest one: give runs made with --cache cold, direct or fsync after the warm one",
				    d->runs[i].dir);
			return FSLAB_EXIT_USAGE;
		}
	return 0;
}

/* The JSON (--format json) or the text report to text_out (stdout). */
static int rpt_print(const struct fslab_report_opts *o, const struct rp_data *d, unsigned tests,
		     const char *text, size_t text_len, struct fslab_err *e)
{
	FILE *to = o->text_out ? o->text_out : stdout;
	bool json = o->format == FSLAB_REPORT_FORMAT_JSON;

	if ((json ? rp_json_write(to, d, tests) < 0 : fwrite(text, 1, text_len, to) != text_len) || fflush(to) != 0) {
		fslab_err_set(e, errno, "cannot write the %s report: %s", json ? "JSON" : "text", strerror(errno));
		return FSLAB_EXIT_FAILURE;
	}
	return 0;
}

/* --fail-on-regression, for git bisect run: 1 when a change cell's
 * interval lies below 1 - PCT (each named on stderr), else 125 when one
 * reaches below it (or none decides), else 0.  A cell with a flagged
 * figure (page cache, FUSE, ...) decides nothing. */
static int rpt_regressions(const struct fslab_report_opts *o, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	size_t bad = 0, open = 0, ok = 0, aside = 0;
	double bar = 1 - o->fail_on_regression;

	for (size_t i = 0; i < s->n_chg; i++)
		RP_FOR_TESTS(t, s->tests) {
			const struct rp_change_cell *c = &s->chg[i].t[t];
			char ci[64];

			aside += c->has && c->flags;
			if (!c->has || c->flags || !(c->cmp.hi < bar)) {
				open += c->has && !c->flags && !(c->cmp.lo >= bar);
				ok += c->has && !c->flags && c->cmp.lo >= bar;
				continue;
			}
			bad++;
			fslab_note(FSLAB_NOTE_ERROR, "regressed: %s %s %s/%s %s (slower by more than %g%%)",
				   s->chg[i].b->fs, fslab_test_to_string(t),
				   s->chg[i].tag_b, s->chg[i].tag_a, rp_fmt_ratio_ci(&c->cmp, "-", ci, sizeof(ci)),
				   100 * o->fail_on_regression);
		}
	if (bad)
		return FSLAB_EXIT_FAILURE;
	fprintf(stderr, "%s: %s: %zu test%s within %g%%, %zu reaching below%s, %zu flagged (page cache, "
		"FUSE, ...: they decide nothing)\n", fslab_log_prefix(),
		open || !ok ? "cannot tell (exit 125)" : "not regressed", ok, ok == 1 ? "" : "s",
		100 * o->fail_on_regression, open, !open ? "" : s->n_chg_comparisons
		? " (more runs per side narrow them)" : " (1 run per side: between-run noise unknown)", aside);
	return open || !ok ? FSLAB_REPORT_EXIT_CANNOT_TELL : FSLAB_EXIT_OK;
}

int fslab_report(const struct fslab_report_opts *o, struct fslab_err *e)
{
	struct rp_data *d = calloc(1, sizeof(*d));
	unsigned tests = o->tests ? o->tests : FSLAB_TESTS_EVERY;
	char *text = NULL;
	size_t text_len = 0;
	int ret;

	fslab_err_clear(e);
	if (!d)
		return FSLAB_EXIT_FAILURE;
	ret = rpt_load(o, d, e);
	if (ret != 0)
		goto done;
	ret = FSLAB_EXIT_FAILURE;
	if (rp_summary_build(d, tests, o->equivalence) < 0 || (o->claims && rp_claims_build(d) < 0) ||
	    rpt_text_render(d, tests, &text, &text_len) < 0 ||
	    rpt_escape_lines(&text, &text_len) < 0) {
		fslab_err_set(e, ENOMEM, "out of memory");
		goto done;
	}
	if (d->sum->unlike[0] && !o->compare_different) {
		fslab_err_set(e, EINVAL, "%s", d->sum->unlike);
		ret = FSLAB_EXIT_USAGE;
		goto done;
	}
	if (o->format != FSLAB_REPORT_FORMAT_HTML && (ret = rpt_print(o, d, tests, text, text_len, e)) != 0)
		goto done;
	if (o->format == FSLAB_REPORT_FORMAT_JSON || o->format == FSLAB_REPORT_FORMAT_TEXT ||
	    (d->n_sides > 1 && !o->out && o->format == FSLAB_REPORT_FORMAT_ALL))
		goto done; /* a comparison writes nothing unless asked (--out) */
	if (d->n_sides > 1 && !o->out) {
		fslab_err_set(e, EINVAL, "--format html compares sides: give --out DIR (nothing is written into a results directory)");
		ret = FSLAB_EXIT_USAGE;
	} else
		ret = rpt_write_dir(o, d, tests, text, text_len, e);
done:
	if (o->fail_on_regression >= 0)
		ret = ret == FSLAB_EXIT_OK ? rpt_regressions(o, d) : FSLAB_REPORT_EXIT_CANNOT_TELL;
	free(text);
	rp_claims_free(d);
	rp_summary_free(d->sum);
	d->sum = NULL;
	rp_free(d);
	free(d);
	return ret;
}
