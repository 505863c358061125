/* fslab_report(): load, print the text report, then build the output
 * directory in a temporary sibling of --out and rename it into place only
 * when everything in it is complete. */
#include "fileutil.h"
#include "log.h"
#include "report_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
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
}

int fslab_report_plots_parse(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	char buf[256], *save = NULL;
	unsigned m = 0;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -EINVAL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "all") == 0)
			m |= FSLAB_REPORT_PLOT_ALL;
		else if (strcmp(w, "none") == 0)
			m |= 0;
		else if (strcmp(w, "surface") == 0)
			m |= FSLAB_REPORT_PLOT_SURFACE;
		else if (strcmp(w, "heatmap") == 0)
			m |= FSLAB_REPORT_PLOT_HEATMAP;
		else if (strcmp(w, "compare") == 0)
			m |= FSLAB_REPORT_PLOT_COMPARE;
		else {
			if (bad)
				snprintf(bad, badlen, "%s", w);
			return -EINVAL;
		}
	}
	*mask = m;
	return 0;
}

static int rpt_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rpt_rm_rf(const char *path)
{
	nftw(path, rpt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* An existing --out may be replaced only when it is an earlier report (it
 * holds report.html) or an empty directory. */
static int rpt_replaceable(const char *out)
{
	char p[PATH_MAX + 16];
	struct stat st;

	if (lstat(out, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	snprintf(p, sizeof(p), "%s/report.html", out);
	if (access(p, F_OK) == 0)
		return 1;
	if (rmdir(out) == 0) /* empty: gone, the rename will recreate it */
		return 0;
	return -EEXIST;
}

static int rpt_text(const struct fslab_report_opts *o, const struct rp_data *d, unsigned tests,
		    char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -ENOMEM;
	rp_text_runs(f, d);
	rp_text_rankings(f, d, tests);
	if (d->n_runs > 1)
		rp_text_same_fs(f, d, tests);
	if (o->claims)
		rp_claims_text(f, d);
	if (fclose(f) != 0)
		return -ENOMEM;
	return 0;
}

static int rpt_build(const struct fslab_report_opts *o, const struct rp_data *d, unsigned tests,
		     const char *text, size_t text_len, const char *tmp)
{
	char pdir[PATH_MAX + 128], p[PATH_MAX + 160];
	struct rp_plots plots;
	int r;

	snprintf(pdir, sizeof(pdir), "%s/plots", tmp);
	if (mkdir(pdir, 0755) < 0)
		return fslab_error_errno(errno, "%s: cannot create: %m", pdir);
	r = rp_plots_draw(d, pdir, o->plots, tests, o->compare_record_kib, &plots);
	if (r < 0) {
		rp_plots_free(&plots);
		return r;
	}
	r = rp_html_write(d, &plots, tmp, tests, o->claims);
	rp_plots_free(&plots);
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s/report.txt", tmp);
	r = fslab_write_file_atomic(p, text, text_len, 0644);
	if (r < 0)
		return fslab_error_errno(r, "%s: cannot write: %s", p, strerror(-r));
	return 0;
}

int fslab_report(const struct fslab_report_opts *o)
{
	struct rp_data *d = calloc(1, sizeof(*d));
	unsigned tests = o->tests ? o->tests : FSLAB_TESTS_ALL;
	char out[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX + 64], *text = NULL;
	size_t text_len = 0;
	int r, ret = FSLAB_EXIT_FAILURE;
	bool made_tmp = false;

	if (!d)
		return FSLAB_EXIT_FAILURE;
	if (o->n_dirs == 0 || o->n_dirs > FSLAB_REPORT_MAX_DIRS) {
		fslab_error("give 1 to %d results directories", FSLAB_REPORT_MAX_DIRS);
		free(d);
		return FSLAB_EXIT_USAGE;
	}
	if (o->claims && o->n_dirs < 2) {
		fslab_error("--claims needs the warm run and at least one honest run: WARM_DIR HONEST_DIR...");
		free(d);
		return FSLAB_EXIT_USAGE;
	}
	r = rp_load(d, o->dirs, o->n_dirs);
	if (r < 0) {
		ret = (r == -ENOMEM || r == -EIO) ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_USAGE;
		goto done;
	}
	if (rpt_text(o, d, tests, &text, &text_len) < 0) {
		fslab_error("out of memory");
		goto done;
	}
	if (o->format != FSLAB_REPORT_FORMAT_HTML) {
		FILE *to = o->text_out ? o->text_out : stdout;
		if (fwrite(text, 1, text_len, to) != text_len || fflush(to) != 0) {
			fslab_error("cannot write the text report: %m");
			goto done;
		}
	}
	if (o->format == FSLAB_REPORT_FORMAT_TEXT) {
		ret = FSLAB_EXIT_OK;
		goto done;
	}

	if (o->out)
		snprintf(out, sizeof(out), "%s", o->out);
	else
		snprintf(out, sizeof(out), "%s/report", o->dirs[0]);
	size_t l = strlen(out);
	while (l > 1 && out[l - 1] == '/')
		out[--l] = '\0';
	{
		char tmpdn[PATH_MAX];
		snprintf(tmpdn, sizeof(tmpdn), "%s", out);
		snprintf(parent, sizeof(parent), "%s", dirname(tmpdn));
	}
	r = fslab_mkdir_p(parent, 0755);
	if (r < 0) {
		fslab_error("%s: cannot create the parent of --out %s: %s", parent, out, strerror(-r));
		goto done;
	}
	snprintf(tmp, sizeof(tmp), "%s/.fslab-report.tmp-XXXXXX", parent);
	if (!mkdtemp(tmp)) {
		fslab_error("%s: cannot create a temporary directory: %m", parent);
		goto done;
	}
	chmod(tmp, 0755);
	made_tmp = true;
	r = rpt_build(o, d, tests, text, text_len, tmp);
	if (r < 0)
		goto done;
	r = rpt_replaceable(out);
	if (r == -ENOTDIR || r == -EEXIST) {
		fslab_error("%s exists and is not an earlier fslab report (no report.html in it); remove it or choose another --out",
			    out);
		goto done;
	}
	if (r < 0) {
		fslab_error("%s: %s", out, strerror(-r));
		goto done;
	}
	if (r == 1) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE) < 0) {
			/* no atomic exchange here (EINVAL/ENOSYS on some
			 * filesystems): move the old report aside, then the
			 * new one in; the old one comes back on failure */
			char old[PATH_MAX + 80];

			if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
				fslab_error("cannot replace %s with the new report: %m", out);
				goto done;
			}
			snprintf(old, sizeof(old), "%s.old", tmp);
			if (rename(out, old) < 0) {
				fslab_error("cannot move the earlier report %s aside: %m", out);
				goto done;
			}
			if (rename(tmp, out) < 0) {
				fslab_error("cannot rename %s to %s: %m", tmp, out);
				if (rename(old, out) < 0)
					fslab_error("and cannot put the earlier report back from %s: %m", old);
				goto done;
			}
			rpt_rm_rf(old);
			made_tmp = false;
		}
		/* else tmp now holds the old report, removed below */
	} else {
		if (rename(tmp, out) < 0) {
			fslab_error("cannot rename %s to %s: %m", tmp, out);
			goto done;
		}
		made_tmp = false;
	}
	fprintf(stderr, "%s: wrote %s/report.html\n", fslab_log_prefix(), out);
	ret = FSLAB_EXIT_OK;
done:
	if (made_tmp)
		rpt_rm_rf(tmp);
	free(text);
	rp_free(d);
	free(d);
	return ret;
}
