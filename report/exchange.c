/* fslab import iozone / fslab export iozone. */
#include "err.h"
#include "fslab/report.h"
#include "fileutil.h"
#include "iozone.h"
#include "log.h"
#include "termtext.h"
#include "manifest.h"
#include "format.h"
#include "outputs.h"
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EX_SKIP_STATUS "skipped: IOzone reported 0 (not measured)"

static int ex_csv_text(const struct fslab_iozone_report *rep, const char *fs,
		       enum fslab_cache_mode cache, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int r;

	if (!f)
		return -ENOMEM;
	r = fslab_results_write_header_ex(f, 0);
	for (size_t i = 0; i < rep->n && r == 0; i++) {
		const struct fslab_iozone_cell *c = &rep->cells[i];
		struct fslab_result_row row = {
			.test = c->test,
			.file_kib = c->file_kib,
			.record_kib = c->record_kib,
			.trial = 1,
			.throughput_kib_s = c->kib_s,
			.elapsed_s = -1,
			.cache = cache,
		};
		snprintf(row.filesystem, sizeof(row.filesystem), "%s", fs);
		snprintf(row.status, sizeof(row.status), "%s", c->kib_s > 0 ? "ok" : EX_SKIP_STATUS);
		r = fslab_results_write_row(f, &row);
	}
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	return r;
}

/* An earlier import's manifest in dfd, to extend: it must be one (an
 * "imported_from": "iozone" manifest, read through lib/manifest) with the
 * same cache mode.  Anything else (a run's manifest, someone's
 * manifest.json) is refused, never rewritten.  Returns 0 or the error. */
static int ex_manifest_load(const struct fslab_import_opts *o, int fd, const char *e1,
			    struct fslab_manifest **out, struct fslab_err *e)
{
	struct fslab_err why = FSLAB_ERR_INIT;
	struct fslab_manifest *m = NULL;
	int r = fslab_manifest_read_fd(fd, e1, &m, &why);

	if (r == -ENOMEM || r == -EFBIG || (r < 0 && r != -EINVAL))
		return fslab_err_set(e, r == -ENOMEM ? r : -EIO, "%s; import into another directory", why.msg);
	if (r < 0 || m->kind != FSLAB_MANIFEST_IMPORT)
		r = fslab_err_set(e, EEXIST, "%s was not written by fslab import%s%s; it is left as it is: import into another (new or empty) directory",
				  e1, r < 0 ? ": " : "", r < 0 ? why.msg : "");
	else if (m->cache != o->cache)
		r = fslab_err_set(e, EEXIST, "%s records imports with cache mode %s, this one is %s: one results directory holds one cache mode; import into another directory",
				  e1, m->cache == FSLAB_CACHE_MODE_INVALID ? "(none)" : fslab_cache_mode_to_string(m->cache),
				  fslab_cache_mode_to_string(o->cache));
	if (r < 0) {
		fslab_manifest_free(m);
		return r;
	}
	*out = m;
	return 0;
}

/* A new import manifest: fslab's version, the command, when, the cache
 * mode; one trial per cell. */
static int ex_manifest_new(const struct fslab_import_opts *o, struct fslab_manifest **out)
{
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_IMPORT);

	if (!m || fslab_manifest_set_words(&m->command, &m->n_command, (size_t)o->argc,
					   (const char *const *)o->argv) < 0) {
		fslab_manifest_free(m);
		return -ENOMEM;
	}
	snprintf(m->fslab_version, sizeof(m->fslab_version), "%s", FSLAB_VERSION);
	fslab_utc_now("%Y-%m-%dT%H:%M:%SZ", m->imported_at, sizeof(m->imported_at));
	m->cache = o->cache;
	m->trials = 1;
	*out = m;
	return 0;
}

/* The manifest this import writes: the existing one (or a new one) with
 * the filesystem's entry replaced.  Returns 0 or the error. */
static int ex_manifest(const struct fslab_import_opts *o, int dfd, const char *shown,
		       struct fslab_manifest **out, struct fslab_err *e)
{
	char e1[4 * PATH_MAX + 8];
	struct fslab_manifest_fs *f;
	int fd = fslab_manifest_open_at(dfd), r, i;

	*out = NULL;
	fslab_escape_ctrl(shown, e1, sizeof(e1));
	if (fd >= 0) {
		r = ex_manifest_load(o, fd, e1, out, e);
		close(fd);
	} else if (fd == -ENOENT) {
		if ((r = ex_manifest_new(o, out)) < 0)
			return fslab_err_set(e, r, "out of memory");
	} else {
		return fslab_err_set(e, fd == -ELOOP || fd == -EINVAL ? -EEXIST : fd,
				     "%s: %s; import into another directory", e1,
				     fd == -ELOOP ? "a symlink, not fslab's manifest"
				     : fd == -EINVAL ? "not a regular file" : strerror(-fd));
	}
	if (r < 0)
		return r;
	if ((i = fslab_manifest_find_fs(*out, o->fs)) >= 0)
		fslab_manifest_remove_fs(*out, (size_t)i);
	if (!(f = fslab_manifest_add_fs(*out))) {
		fslab_manifest_free(*out);
		*out = NULL;
		return fslab_err_set(e, E2BIG, "%s records %d imports already, the most one directory holds; import into another directory",
				     e1, FSLAB_MANIFEST_FS_MAX);
	}
	snprintf(f->name, sizeof(f->name), "%s", o->fs);
	if (fslab_fs_type_from_string(o->fs) != FSLAB_FS_TYPE_INVALID)
		snprintf(f->type, sizeof(f->type), "%s", o->fs);
	snprintf(f->iozone_report, sizeof(f->iozone_report), "%s", o->report);
	return 0;
}

/* Reads and parses the IOzone report; counts its measured and 0 cells. */
static int ex_read_report(const struct fslab_import_opts *o, struct fslab_iozone_report *rep,
			  size_t *ok, size_t *skipped, struct fslab_err *e)
{
	char *text = NULL, e1[4 * PATH_MAX + 8], e2[4 * PATH_MAX + 8];
	struct fslab_err err = FSLAB_ERR_INIT;
	size_t len = 0;
	int r;

	fslab_escape_ctrl(o->report, e2, sizeof(e2));
	r = fslab_read_file(o->report, &text, &len, 256u << 20);
	if (r < 0)
		return fslab_err_set(e, r, "%s: cannot read: %s", e2, fslab_input_strerror(r));
	r = fslab_iozone_parse(text, len, rep, &err);
	free(text);
	if (r < 0)
		return fslab_err_set(e, r, "%s: %s", e2, fslab_escape_ctrl(err.msg, e1, sizeof(e1)));
	*ok = 0;
	for (size_t i = 0; i < rep->n; i++)
		*ok += rep->cells[i].kib_s > 0;
	*skipped = rep->n - *ok;
	return 0;
}

/* Creates and opens the results directory o->out and checks the names the
 * import writes (the CSV, the manifest): no lab file, no input, the CSV
 * only with --force.  Returns the directory fd or -errno (reported). */
static int ex_open_out(const struct fslab_import_opts *o, const char *name, const char *path,
		       const char *mpath, struct fslab_err *e)
{
	char e1[4 * PATH_MAX + 8];
	int r, dfd;

	r = fslab_mkdir_p(o->out, 0755);
	if (r < 0)
		return fslab_err_set(e, r, "%s: cannot create: %s", fslab_escape_ctrl(o->out, e1, sizeof(e1)), strerror(-r));
	dfd = fslab_dir_open(o->out);
	if (dfd < 0)
		return fslab_err_set(e, dfd, "%s: cannot open the directory: %s%s", fslab_escape_ctrl(o->out, e1, sizeof(e1)),
				     strerror(-dfd), dfd == -ELOOP || dfd == -ENOTDIR ? " (a symlink is not followed)" : "");
	/* the manifest too must be none of those, even before it is read */
	if (rp_output_check(dfd, name, path, o->report, o->force, e) < 0 ||
	    rp_output_check(dfd, FSLAB_MANIFEST_NAME, mpath, o->report, true, e) < 0) {
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

int fslab_import_iozone(const struct fslab_import_opts *o, struct fslab_err *e)
{
	struct fslab_iozone_report rep = { 0 };
	struct fslab_manifest *m = NULL;
	char *csv = NULL, path[PATH_MAX + 64], mpath[PATH_MAX + 32],
	     name[FSLAB_FS_NAME_MAX + 8], e1[4 * PATH_MAX + 8], e2[4 * PATH_MAX + 8];
	size_t csv_len = 0, ok = 0, skipped = 0;
	int r, dfd = -1, ret = FSLAB_EXIT_USAGE;

	if (!fslab_fs_name_valid(o->fs)) {
		fslab_err_set(e, EINVAL, "--fs '%s': a filesystem name is 1-31 of A-Z a-z 0-9 _ -",
			      fslab_escape_ctrl(o->fs, e1, sizeof(e1)));
		return FSLAB_EXIT_USAGE;
	}
	if (ex_read_report(o, &rep, &ok, &skipped, e) < 0)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	if (ex_csv_text(&rep, o->fs, o->cache, &csv, &csv_len) < 0) {
		fslab_err_set(e, ENOMEM, "out of memory");
		goto out;
	}
	snprintf(name, sizeof(name), "%s.csv", o->fs);
	snprintf(path, sizeof(path), "%s/%s", o->out, name);
	snprintf(mpath, sizeof(mpath), "%s/%s", o->out, FSLAB_MANIFEST_NAME);
	dfd = ex_open_out(o, name, path, mpath, e);
	if (dfd < 0)
		goto out;
	if (ex_manifest(o, dfd, mpath, &m, e) < 0)
		goto out;
	r = fslab_write_file_atomic_at(dfd, name, csv, csv_len, 0644);
	if (r < 0) {
		fslab_err_set(e, r, "%s: cannot write: %s", fslab_escape_ctrl(path, e1, sizeof(e1)), strerror(-r));
		goto out;
	}
	r = fslab_manifest_write_at(dfd, m);
	if (r < 0) {
		fslab_err_set(e, r, "%s: cannot write: %s", fslab_escape_ctrl(mpath, e1, sizeof(e1)), strerror(-r));
		goto out;
	}
	fprintf(stderr, "%s: %s: %zu cells measured, %zu reported as 0 (skipped rows) -> %s\n",
		fslab_log_prefix(), fslab_escape_ctrl(o->report, e2, sizeof(e2)), ok, skipped,
		fslab_escape_ctrl(path, e1, sizeof(e1)));
	ret = FSLAB_EXIT_OK;
out:
	if (dfd >= 0)
		close(dfd);
	fslab_manifest_free(m);
	free(csv);
	fslab_iozone_report_free(&rep);
	return ret;
}

/* The rows of a results CSV as cells (kib_s NaN: a row not ok).  Returns
 * 0 or -errno (reported). */
static int ex_read_rows(const char *csv, struct fslab_iozone_cell **out, size_t *n_out, struct fslab_err *e)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	struct fslab_iozone_cell *keys = NULL;
	char err[PATH_MAX + 512], esc[4 * (PATH_MAX + 512) + 8];
	struct fslab_err fe = FSLAB_ERR_INIT;
	size_t n = 0, cap = 0;
	int r = fslab_results_open(csv, &rd, &fe);

	if (r < 0)
		return fslab_err_set(e, r, "%s", fslab_escape_ctrl(fe.msg, esc, sizeof(esc)));
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct fslab_iozone_cell *nk = realloc(keys, nc * sizeof(*keys));
			if (!nk) {
				r = -ENOMEM;
				snprintf(err, sizeof(err), "out of memory");
				break;
			}
			keys = nk;
			cap = nc;
		}
		keys[n++] = (struct fslab_iozone_cell){ row.file_kib, row.record_kib, row.test,
							fslab_result_ok(&row) ? row.throughput_kib_s : NAN, 0 };
	}
	fslab_results_close(rd);
	if (fe.code)
		snprintf(err, sizeof(err), "%s", fe.msg);
	if (r == 0 && n == 0) {
		snprintf(err, sizeof(err), "%s: no rows to export", csv);
		r = -ENODATA;
	}
	if (r < 0) {
		free(keys);
		return fslab_err_set(e, r, "%s", fslab_escape_ctrl(err, esc, sizeof(esc)));
	}
	*out = keys;
	*n_out = n;
	return 0;
}

/* One IOzone cell per file x record x test: the median of its ok trials,
 * 0 without one.  keys are sorted here.  Returns 0 or -errno (reported). */
static int ex_cells(const char *csv, struct fslab_iozone_cell *keys, size_t n, struct fslab_iozone_report *rep,
		    struct fslab_err *e)
{
	char esc[4 * PATH_MAX + 8];
	double *tmp = malloc(n * sizeof(double));

	if (!tmp)
		return fslab_err_set(e, ENOMEM, "out of memory");
	fslab_iozone_sort(&(struct fslab_iozone_report){ .cells = keys, .n = n });
	for (size_t i = 0; i < n;) {
		size_t j = i, m = 0;
		for (; j < n && keys[j].file_kib == keys[i].file_kib && keys[j].record_kib == keys[i].record_kib &&
		       keys[j].test == keys[i].test; j++)
			if (!isnan(keys[j].kib_s))
				tmp[m++] = keys[j].kib_s;
		struct fslab_iozone_cell c = { keys[i].file_kib, keys[i].record_kib, keys[i].test,
					       m ? fslab_median_sort(tmp, m) : 0, 0 };
		if (fslab_iozone_add(rep, &c) < 0) {
			free(tmp);
			return fslab_err_set(e, E2BIG, "%s: too many cells", fslab_escape_ctrl(csv, esc, sizeof(esc)));
		}
		i = j;
	}
	free(tmp);
	fslab_iozone_sort(rep);
	snprintf(rep->command, sizeof(rep->command), "iozone -a (fslab export iozone %.200s)", csv);
	return 0;
}

/* Writes the report text to out_path atomically (checked like every
 * output: no lab file, not the input, an existing file only with force).
 * Returns FSLAB_EXIT_*. */
static int ex_write_out(const char *csv, const char *out_path, const char *buf, size_t len,
			bool force, struct fslab_err *e)
{
	char dir[PATH_MAX], base[NAME_MAX + 1], e1[4 * PATH_MAX + 8];
	int r, dfd;

	if (rp_split_path(out_path, dir, sizeof(dir), base, sizeof(base)) < 0) {
		fslab_err_set(e, EINVAL, "--out %s: give a file name, not a directory", fslab_escape_ctrl(out_path, e1, sizeof(e1)));
		return FSLAB_EXIT_USAGE;
	}
	dfd = fslab_dir_open(dir);
	if (dfd < 0) {
		fslab_err_set(e, dfd, "%s: cannot open the directory of --out: %s", fslab_escape_ctrl(dir, e1, sizeof(e1)),
			      strerror(-dfd));
		return FSLAB_EXIT_FAILURE;
	}
	r = rp_output_check(dfd, base, out_path, csv, force, e);
	if (r == 0) {
		r = fslab_write_file_atomic_at(dfd, base, buf, len, 0644);
		if (r < 0)
			fslab_err_set(e, r, "%s: cannot write: %s", fslab_escape_ctrl(out_path, e1, sizeof(e1)), strerror(-r));
	}
	close(dfd);
	return r < 0 ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
}

int fslab_export_iozone(const char *csv, const char *out_path, bool excel, bool force,
			struct fslab_err *e)
{
	struct fslab_iozone_report rep = { 0 };
	struct fslab_iozone_cell *keys = NULL;
	char *buf = NULL, esc[4 * PATH_MAX + 8];
	size_t n = 0, blen = 0;
	struct stat cst;
	FILE *f;
	int r, ret = FSLAB_EXIT_USAGE;

	if (stat(csv, &cst) == 0 && S_ISDIR(cst.st_mode)) {
		fslab_err_set(e, EISDIR, "%s is a directory; give one filesystem's CSV in it: %s/FS.csv",
			      fslab_escape_ctrl(csv, esc, sizeof(esc)), esc);
		return FSLAB_EXIT_USAGE;
	}
	if ((r = ex_read_rows(csv, &keys, &n, e)) < 0)
		return r == -ENOMEM ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_USAGE;
	ret = FSLAB_EXIT_FAILURE;
	if (ex_cells(csv, keys, n, &rep, e) < 0)
		goto out;
	f = open_memstream(&buf, &blen);
	if (!f) {
		fslab_err_set(e, ENOMEM, "out of memory");
		goto out;
	}
	/* the memstream's buffer is complete only after fclose, which runs
	 * whatever the write said */
	r = fslab_iozone_write(f, &rep, excel);
	if (fclose(f) != 0 || r < 0) {
		fslab_err_set(e, ENOMEM, "out of memory");
		goto out;
	}
	if (out_path)
		ret = ex_write_out(csv, out_path, buf, blen, force, e);
	else {
		/* a short write sets stdout's error flag: main reports it at exit */
		(void)fwrite(buf, 1, blen, stdout);
		ret = FSLAB_EXIT_OK;
	}
out:
	free(keys);
	free(buf);
	fslab_iozone_report_free(&rep);
	return ret;
}
