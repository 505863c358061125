/* fslab import iozone / fslab export iozone. */
#include "exchange.h"
#include "fileutil.h"
#include "iozone.h"
#include "log.h"
#include "report_priv.h"
#include "results.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#ifndef FSLAB_VERSION
#define FSLAB_VERSION "0.0.0"
#endif

#define EX_SKIP_STATUS "skipped: IOzone reported 0 (not measured)"

static int ex_csv_text(const struct fslab_iozone_report *rep, const char *fs,
		       enum fslab_cache_mode cache, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int r;

	if (!f)
		return -ENOMEM;
	r = fslab_results_write_header(f);
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

/* The manifest an import creates or extends.  An existing one must be an
 * earlier import's (imported_from "iozone") with the same cache mode:
 * anything else (a run's manifest, someone's manifest.json, a symlink) is
 * refused, never rewritten. */
static json_object *ex_manifest(const struct fslab_import_opts *o, int dfd, const char *shown,
				char *err, size_t errlen, int *rc)
{
	char *text = NULL, e1[4 * PATH_MAX + 8];
	json_object *m = NULL, *fss, *fsobj;
	int fd = fslab_open_regular_at(dfd, "manifest.json", O_RDONLY);
	int r = 0;

	*rc = 0;
	rp_esc(shown, e1, sizeof(e1));
	if (fd >= 0) {
		struct stat st;
		ssize_t got = 0;

		if (fstat(fd, &st) < 0 || st.st_size > (16 << 20)) {
			close(fd);
			snprintf(err, errlen, "%s: cannot read it or larger than 16 MiB; import into another directory",
				 e1);
			*rc = -EINVAL;
			return NULL;
		}
		text = malloc((size_t)st.st_size + 1);
		if (text)
			got = read(fd, text, (size_t)st.st_size);
		close(fd);
		if (!text || got != st.st_size) {
			free(text);
			snprintf(err, errlen, "%s: cannot read", e1);
			*rc = -EIO;
			return NULL;
		}
		text[got] = '\0';
		m = json_tokener_parse(text);
		free(text);
		const char *from = NULL, *cache = NULL;
		json_object *v;
		if (m && json_object_is_type(m, json_type_object)) {
			if (json_object_object_get_ex(m, "imported_from", &v))
				from = json_object_get_string(v);
			if (json_object_object_get_ex(m, "cache_mode", &v))
				cache = json_object_get_string(v);
		}
		if (!from || strcmp(from, "iozone") != 0) {
			json_object_put(m);
			snprintf(err, errlen, "%s was not written by fslab import; it is left as it is: import into another (new or empty) directory",
				 e1);
			*rc = -EEXIST;
			return NULL;
		}
		if (!cache || strcmp(cache, fslab_cache_mode_to_string(o->cache)) != 0) {
			snprintf(err, errlen, "%s records imports with cache mode %s, this one is %s: one results directory holds one cache mode; import into another directory",
				 e1, cache ? cache : "(none)", fslab_cache_mode_to_string(o->cache));
			json_object_put(m);
			*rc = -EEXIST;
			return NULL;
		}
	} else if (fd == -ENOENT) {
		json_object *cmd = json_object_new_array();
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		m = json_object_new_object();
		json_object_object_add(m, "fslab_version", json_object_new_string(FSLAB_VERSION));
		for (int i = 0; i < o->argc; i++)
			json_object_array_add(cmd, json_object_new_string(o->argv[i]));
		json_object_object_add(m, "command", cmd);
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_object_object_add(m, "imported_at", json_object_new_string(stamp));
		json_object_object_add(m, "imported_from", json_object_new_string("iozone"));
		json_object_object_add(m, "cache_mode",
				       json_object_new_string(fslab_cache_mode_to_string(o->cache)));
		json_object_object_add(m, "trials", json_object_new_int(1));
	} else {
		r = fd;
		snprintf(err, errlen, "%s: %s; import into another directory", e1,
			 r == -ELOOP ? "a symlink, not fslab's manifest"
			 : r == -EINVAL ? "not a regular file" : strerror(-r));
		*rc = r == -ELOOP || r == -EINVAL ? -EEXIST : r;
		return NULL;
	}
	if (!json_object_object_get_ex(m, "filesystems", &fss) ||
	    !json_object_is_type(fss, json_type_array)) {
		fss = json_object_new_array();
		json_object_object_add(m, "filesystems", fss);
	}
	for (size_t i = json_object_array_length(fss); i-- > 0;) {
		json_object *f = json_object_array_get_idx(fss, i), *nm;
		if (json_object_object_get_ex(f, "name", &nm) &&
		    strcmp(json_object_get_string(nm), o->fs) == 0)
			json_object_array_del_idx(fss, i, 1);
	}
	fsobj = json_object_new_object();
	json_object_object_add(fsobj, "name", json_object_new_string(o->fs));
	if (fslab_fs_type_from_string(o->fs) != FSLAB_FS_TYPE_INVALID)
		json_object_object_add(fsobj, "type", json_object_new_string(o->fs));
	json_object_object_add(fsobj, "iozone_report", json_object_new_string(o->report));
	json_object_array_add(fss, fsobj);
	return m;
}

/* The directory of the lab locks (provision/lab.c: LABID.lock, .run,
 * .mount). */
#define EX_LAB_LOCK_DIR "/run/fslab"

/* Some process holds a lock (flock, POSIX or OFD) on the file st: its pid,
 * else 0. */
static int ex_locked_by(const struct stat *st)
{
	char line[256];
	FILE *f = fopen("/proc/locks", "re");
	int holder = 0;

	if (!f)
		return 0;
	while (!holder && fgets(line, sizeof(line), f)) {
		unsigned maj, mnr;
		unsigned long long ino;
		int pid;

		if (strstr(line, "->") ||
		    sscanf(line, "%*s %*s %*s %*s %d %x:%x:%llu", &pid, &maj, &mnr, &ino) != 4)
			continue;
		if (ino == (unsigned long long)st->st_ino && maj == major(st->st_dev) &&
		    mnr == minor(st->st_dev))
			holder = pid > 0 ? pid : -1;
	}
	fclose(f);
	return holder;
}

/* A lab's lock, lease and log files are no output, not even with --force:
 * the atomic replacement renames a new file over the name, and a lock
 * whose inode is swapped silently stops protecting the lab.  Refused: any
 * name in the lab lock directory /run/fslab; any file a process holds a
 * lock on (a live lock file, wherever it is); and NAME.lock, NAME.run,
 * NAME.mount and NAME.log beside a state file NAME.  (The state file itself
 * and the input are rp_output_check's.) */
static int ex_lab_file_check(int dfd, const char *name, const char *shown)
{
	static const char *const suffixes[] = { ".lock", ".run", ".mount", ".log" };
	char e1[PATH_MAX * 4 + 8];
	struct stat lst, ds, ls;
	size_t nl = strlen(name);
	int pid;

	rp_esc(shown, e1, sizeof(e1));
	if (fstat(dfd, &ds) == 0 && stat(EX_LAB_LOCK_DIR, &ls) == 0 && ds.st_dev == ls.st_dev &&
	    ds.st_ino == ls.st_ino) {
		fslab_error("%s is in %s, where the labs' lock files live; fslab never writes an output there, not even with --force; choose another output",
			    e1, EX_LAB_LOCK_DIR);
		return -EPERM;
	}
	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISREG(lst.st_mode) && (pid = ex_locked_by(&lst)) != 0) {
		char who[32] = "another process";
		if (pid > 0)
			snprintf(who, sizeof(who), "pid %d", pid);
		fslab_error("%s is a lock file in use (%s holds a lock on it); replacing it would silently break that lock, so fslab refuses, even with --force; choose another output",
			    e1, who);
		return -EBUSY;
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);
		char base[NAME_MAX + 1], err[PATH_MAX + 256];
		struct fslab_state *st;
		int r;

		if (nl <= sl || strcmp(name + nl - sl, suffixes[i]) != 0 || nl - sl >= sizeof(base))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(nl - sl), name);
		st = malloc(sizeof(*st));
		if (!st)
			return fslab_error_errno(ENOMEM, "out of memory");
		r = fslab_state_load_at(dfd, base, base, st, err, sizeof(err));
		free(st);
		if (r == 0) {
			char e2[NAME_MAX * 4 + 8];
			fslab_error("%s is the %s file of the lab whose state file is %s beside it; fslab never writes an output over a lab's lock, lease or log, not even with --force; choose another output",
				    e1, suffixes[i] + 1, rp_esc(base, e2, sizeof(e2)));
			return -EPERM;
		}
	}
	return 0;
}

int fslab_import_iozone(const struct fslab_import_opts *o)
{
	struct fslab_iozone_report rep;
	char *text = NULL, *csv = NULL, err[8 * PATH_MAX + 1024], path[PATH_MAX + 64],
	     mpath[PATH_MAX + 32], name[FSLAB_FS_NAME_MAX + 8], e1[4 * PATH_MAX + 8],
	     e2[4 * PATH_MAX + 8];
	size_t len = 0, csv_len = 0;
	json_object *m = NULL;
	int r, dfd = -1, ret = FSLAB_EXIT_USAGE;

	if (!fslab_fs_name_valid(o->fs)) {
		fslab_error("--fs '%s': a filesystem name is 1-31 of A-Z a-z 0-9 _ -",
			    rp_esc(o->fs, e1, sizeof(e1)));
		return FSLAB_EXIT_USAGE;
	}
	rp_esc(o->report, e2, sizeof(e2));
	r = fslab_read_file(o->report, &text, &len, 256u << 20);
	if (r < 0) {
		fslab_error("%s: cannot read: %s", e2, strerror(-r));
		return FSLAB_EXIT_USAGE;
	}
	r = fslab_iozone_parse(text, len, &rep, err, sizeof(err));
	free(text);
	if (r < 0) {
		fslab_error("%s: %s", e2, rp_esc(err, e1, sizeof(e1)));
		return FSLAB_EXIT_USAGE;
	}
	size_t ok = 0, skipped = 0;
	for (size_t i = 0; i < rep.n; i++) {
		ok += rep.cells[i].kib_s > 0;
		skipped += !(rep.cells[i].kib_s > 0);
	}
	if (ex_csv_text(&rep, o->fs, o->cache, &csv, &csv_len) < 0) {
		fslab_error("out of memory");
		ret = FSLAB_EXIT_FAILURE;
		goto out;
	}
	snprintf(name, sizeof(name), "%s.csv", o->fs);
	snprintf(path, sizeof(path), "%s/%s", o->out, name);
	snprintf(mpath, sizeof(mpath), "%s/manifest.json", o->out);
	ret = FSLAB_EXIT_FAILURE;
	r = fslab_mkdir_p(o->out, 0755);
	if (r < 0) {
		fslab_error("%s: cannot create: %s", rp_esc(o->out, e1, sizeof(e1)), strerror(-r));
		goto out;
	}
	dfd = fslab_dir_open(o->out);
	if (dfd < 0) {
		fslab_error("%s: cannot open the directory: %s%s", rp_esc(o->out, e1, sizeof(e1)),
			    strerror(-dfd), dfd == -ELOOP || dfd == -ENOTDIR ? " (a symlink is not followed)" : "");
		goto out;
	}
	const char *inputs[] = { o->report };
	if (ex_lab_file_check(dfd, name, path) < 0 || rp_output_check(dfd, name, path, inputs, 1, o->force) < 0)
		goto out;
	/* the manifest too must be none of those, even before it is read */
	if (ex_lab_file_check(dfd, "manifest.json", mpath) < 0 ||
	    rp_output_check(dfd, "manifest.json", mpath, inputs, 1, true) < 0)
		goto out;
	m = ex_manifest(o, dfd, mpath, err, sizeof(err), &r);
	if (!m) {
		fslab_error("%s", err);
		goto out;
	}
	r = fslab_write_file_atomic_at(dfd, name, csv, csv_len, 0644);
	if (r < 0) {
		fslab_error("%s: cannot write: %s", rp_esc(path, e1, sizeof(e1)), strerror(-r));
		goto out;
	}
	const char *js = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE);
	char *mtext = NULL;
	if (asprintf(&mtext, "%s\n", js) < 0) {
		fslab_error("out of memory");
		goto out;
	}
	r = fslab_write_file_atomic_at(dfd, "manifest.json", mtext, strlen(mtext), 0644);
	free(mtext);
	if (r < 0) {
		fslab_error("%s: cannot write: %s", rp_esc(mpath, e1, sizeof(e1)), strerror(-r));
		goto out;
	}
	fprintf(stderr, "%s: %s: %zu cells measured, %zu reported as 0 (skipped rows) -> %s\n",
		fslab_log_prefix(), e2, ok, skipped, rp_esc(path, e1, sizeof(e1)));
	ret = FSLAB_EXIT_OK;
out:
	if (dfd >= 0)
		close(dfd);
	json_object_put(m);
	free(csv);
	fslab_iozone_report_free(&rep);
	return ret;
}

struct ex_key {
	uint64_t file_kib, record_kib;
	enum fslab_test test;
	double v;
	bool ok;
};

static int ex_cmp(const void *a, const void *b)
{
	const struct ex_key *x = a, *y = b;

	if (x->file_kib != y->file_kib)
		return x->file_kib < y->file_kib ? -1 : 1;
	if (x->record_kib != y->record_kib)
		return x->record_kib < y->record_kib ? -1 : 1;
	return (x->test > y->test) - (x->test < y->test);
}

int fslab_export_iozone(const char *csv, const char *out_path, bool excel, bool force)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	struct fslab_iozone_report rep = { 0 };
	struct ex_key *keys = NULL;
	size_t n = 0, cap = 0;
	char err[PATH_MAX + 512], *buf = NULL, esc[4 * (PATH_MAX + 512) + 8];
	size_t blen = 0;
	int r, ret = FSLAB_EXIT_USAGE;

	struct stat cst;
	if (stat(csv, &cst) == 0 && S_ISDIR(cst.st_mode)) {
		fslab_error("%s is a directory; give one filesystem's CSV in it: %s/FS.csv",
			    rp_esc(csv, esc, sizeof(esc)), esc);
		return FSLAB_EXIT_USAGE;
	}
	r = fslab_results_open(csv, &rd, err, sizeof(err));
	if (r < 0) {
		fslab_error("%s", rp_esc(err, esc, sizeof(esc)));
		return FSLAB_EXIT_USAGE;
	}
	while ((r = fslab_results_next(rd, &row, err, sizeof(err))) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct ex_key *nk = realloc(keys, cap * sizeof(*keys));
			if (!nk) {
				fslab_error("out of memory");
				ret = FSLAB_EXIT_FAILURE;
				goto out;
			}
			keys = nk;
		}
		keys[n++] = (struct ex_key){ row.file_kib, row.record_kib, row.test,
					     row.throughput_kib_s, fslab_result_ok(&row) };
	}
	if (r < 0) {
		fslab_error("%s", rp_esc(err, esc, sizeof(esc)));
		goto out;
	}
	if (n == 0) {
		fslab_error("%s: no rows to export", rp_esc(csv, esc, sizeof(esc)));
		goto out;
	}
	ret = FSLAB_EXIT_FAILURE;
	qsort(keys, n, sizeof(*keys), ex_cmp);
	double *tmp = malloc(n * sizeof(double));
	if (!tmp) {
		fslab_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i, m = 0;
		for (; j < n && ex_cmp(&keys[i], &keys[j]) == 0; j++)
			if (keys[j].ok)
				tmp[m++] = keys[j].v;
		struct fslab_iozone_cell c = { keys[i].file_kib, keys[i].record_kib, keys[i].test,
					       m ? rp_median(tmp, m) : 0, 0 };
		if (fslab_iozone_add(&rep, &c) < 0) {
			free(tmp);
			fslab_error("%s: too many cells", rp_esc(csv, esc, sizeof(esc)));
			goto out;
		}
		i = j;
	}
	free(tmp);
	fslab_iozone_sort(&rep);
	snprintf(rep.command, sizeof(rep.command), "iozone -a (fslab export iozone %.200s)", csv);
	FILE *f = open_memstream(&buf, &blen);
	if (!f || fslab_iozone_write(f, &rep, excel) < 0) {
		if (f)
			fclose(f);
		fslab_error("out of memory");
		goto out;
	}
	fclose(f);
	if (out_path) {
		char dir[PATH_MAX], base[NAME_MAX + 1], e1[4 * PATH_MAX + 8];
		const char *inputs[] = { csv };
		int dfd;

		r = rp_split_path(out_path, dir, sizeof(dir), base, sizeof(base));
		if (r < 0) {
			fslab_error("--out %s: give a file name, not a directory",
				    rp_esc(out_path, e1, sizeof(e1)));
			ret = FSLAB_EXIT_USAGE;
			goto out;
		}
		dfd = fslab_dir_open(dir);
		if (dfd < 0) {
			fslab_error("%s: cannot open the directory of --out: %s",
				    rp_esc(dir, e1, sizeof(e1)), strerror(-dfd));
			goto out;
		}
		r = ex_lab_file_check(dfd, base, out_path);
		if (r == 0)
			r = rp_output_check(dfd, base, out_path, inputs, 1, force);
		if (r == 0) {
			r = fslab_write_file_atomic_at(dfd, base, buf, blen, 0644);
			if (r < 0)
				fslab_error("%s: cannot write: %s", rp_esc(out_path, e1, sizeof(e1)),
					    strerror(-r));
		}
		close(dfd);
		if (r < 0)
			goto out;
	} else if (fwrite(buf, 1, blen, stdout) != blen || fflush(stdout) != 0) {
		fslab_error("cannot write to stdout");
		goto out;
	}
	ret = FSLAB_EXIT_OK;
out:
	fslab_results_close(rd);
	free(keys);
	free(buf);
	fslab_iozone_report_free(&rep);
	return ret;
}
