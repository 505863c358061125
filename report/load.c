/* Loading results directories: every <fs>.csv through lib/results.h's
 * reader, and manifest.json through lib/manifest.h (optional; any key may
 * be missing, a value outside what fslab writes is refused by name). */
#include "err.h"
#include "fileutil.h"
#include "termtext.h"
#include "manifest.h"
#include "format.h"
#include "results.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ld_row {
	uint64_t file_kib, record_kib;
	unsigned iodepth, jobs; /* 1 and 1 but for the queued tests */
	char *problem; /* status when not ok */
	unsigned long line; /* in its CSV */
	unsigned char test, kind; /* kind: 0 ok, 1 failed, 2 skipped */
	struct rp_sample s; /* the sample an ok row is */
};

/* Paths and CSV text in messages reach a terminal: control bytes escaped. */
static char ld_e1[4 * (PATH_MAX + 512) + 8], ld_e2[4 * PATH_MAX + 8];
#define E1(s) fslab_escape_ctrl((s), ld_e1, sizeof(ld_e1))
#define E2(s) fslab_escape_ctrl((s), ld_e2, sizeof(ld_e2))

/* By cell (test, file, record, and a queued test's depth and threads:
 * CrystalDiskMark's SEQ1M Q8T1 and SEQ1M Q1T1 are two cells), then trial,
 * then line. */
#define LD_CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
static int ld_cmp_cell(const struct ld_row *x, const struct ld_row *y)
{
	LD_CMP(test);
	LD_CMP(file_kib);
	LD_CMP(record_kib);
	LD_CMP(iodepth);
	LD_CMP(jobs);
	return 0;
}

static int ld_cmp_row(const void *a, const void *b)
{
	const struct ld_row *x = a, *y = b;
	int k = ld_cmp_cell(x, y);

	if (!k && x->s.trial != y->s.trial)
		return x->s.trial < y->s.trial ? -1 : 1;
	return k ? k : (x->line > y->line) - (x->line < y->line);
}

/* Adds the unknown flag w to the entry's names (once; what fits). */
static void ld_other_flag(struct rp_entry *e, const char *w)
{
	size_t n = strlen(e->other_flags), k = strlen(w);

	for (const char *p = e->other_flags; (p = strstr(p, w)); p += k)
		if ((p == e->other_flags || p[-1] == ';') && (p[k] == ';' || p[k] == '\0'))
			return;
	if (n + k + 2 <= sizeof(e->other_flags))
		snprintf(e->other_flags + n, sizeof(e->other_flags) - n, "%s%s", n ? ";" : "", w);
}

static unsigned ld_parse_flags(struct rp_entry *e, const char *s)
{
	unsigned f = 0;
	char buf[64], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, ";, ", &save); w; w = strtok_r(NULL, ";, ", &save)) {
		size_t i = 0;

		while (i < rp_n_flags && strcmp(w, rp_flag_table[i].csv) != 0)
			i++;
		if (i < rp_n_flags) {
			f |= rp_flag_table[i].bit;
		} else {
			f |= RP_FLAG_OTHER;
			ld_other_flag(e, w);
		}
	}
	return f;
}

/* Copies what fits (the report's columns are narrower than the fields). */
static void ld_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%.*s", (int)len - 1, src ? src : "");
}

/* The manifest's facts about the filesystem of entry e, if it names it. */
static void ld_fsinfo(struct rp_entry *e, const struct fslab_manifest *m)
{
	int i = m ? fslab_manifest_find_fs(m, e->fs) : -1;
	const struct fslab_manifest_fs *f = i < 0 ? NULL : &m->fs[i];

	if (!f)
		return;
	e->has_info = true;
	e->info.run_index = i;
	ld_copy(e->info.type, sizeof(e->info.type), f->type);
	ld_copy(e->info.mount_method, sizeof(e->info.mount_method), f->mount_method);
	ld_copy(e->info.device, sizeof(e->info.device), f->device);
	ld_copy(e->info.device_model, sizeof(e->info.device_model), f->device_model);
	ld_copy(e->info.mkfs_options, sizeof(e->info.mkfs_options), f->mkfs_options);
	ld_copy(e->info.mount_options, sizeof(e->info.mount_options), f->mount_options);
	if (f->mount_options_at_end[0])
		fslab_note_warn("%s: %s was remounted during the run (mount options %s at the end; manifest: mount_options_at_end): its figures may mix two configurations",
			   E1(e->run->dir), E2(e->fs), f->mount_options_at_end);
	e->info.device_write_kib_s = f->device_write_kib_s;
	e->info.device_read_kib_s = f->device_read_kib_s;
	/* a steady-state phase that ran out of rounds */
	e->info.steady_not_reached = f->steady.n_rounds > 0 && !f->steady.reached &&
				     strncmp(f->steady.result, "not reached", 11) == 0;
	/* the drive was hot during its sweep (fslab run's drive watch) */
	ld_copy(e->info.drive_hot, sizeof(e->info.drive_hot), f->drive.thermal);
}

/* The cell's latency from its ok trials that have it (tmp: room for
 * n_ok values). */
static void ld_cell_latency(struct rp_entry *e, struct rp_cell *c, double *tmp)
{
	for (int q = 0; q < FSLAB_LAT_N; q++) {
		size_t m = 0;

		for (unsigned k = 0; k < c->n_ok; k++)
			if (!isnan(e->samples[c->first + k].lat[q]))
				tmp[m++] = e->samples[c->first + k].lat[q];
		c->lat[q] = m ? fslab_median_sort(tmp, m) : NAN; /* sorted: the max is the last */
		if (m && q == FSLAB_LAT_MAX)
			c->lat[q] = tmp[m - 1];
		e->latency |= m > 0;
	}
}

/* Groups sorted rows into cells and samples. */
static int ld_build_cells(struct rp_entry *e, struct ld_row *rows, size_t n)
{
	size_t n_ok = 0, nc = 0;

	for (size_t i = 0; i < n; i++) {
		n_ok += rows[i].kind == 0;
		if (i == 0 || ld_cmp_cell(&rows[i], &rows[i - 1]) != 0)
			nc++;
	}
	e->cells = calloc(nc ? nc : 1, sizeof(*e->cells));
	e->samples = calloc(n_ok ? n_ok : 1, sizeof(*e->samples));
	if (!e->cells || !e->samples)
		return -ENOMEM;
	double *tmp = malloc((n ? n : 1) * sizeof(double));
	if (!tmp)
		return -ENOMEM;
	struct rp_cell *c = NULL;
	for (size_t i = 0; i < n; i++) {
		struct ld_row *r = &rows[i];

		if (!c || ld_cmp_cell(r, r - 1) != 0) {
			c = &e->cells[e->n_cells++];
			c->test = r->test;
			c->file_kib = r->file_kib;
			c->record_kib = r->record_kib;
			c->iodepth = r->iodepth;
			c->jobs = r->jobs;
			c->first = e->n_samples;
		}
		c->flags |= r->s.flags;
		if (r->kind == 0) {
			e->samples[e->n_samples++] = r->s;
			c->n_ok++;
		} else {
			(*(r->kind == 1 ? &c->n_failed : &c->n_skipped))++;
			if (!c->problem) {
				c->problem = r->problem;
				r->problem = NULL;
			}
		}
	}
	for (size_t i = 0; i < e->n_cells; i++) {
		c = &e->cells[i];
		for (unsigned k = 0; k < c->n_ok; k++)
			tmp[k] = e->samples[c->first + k].v;
		fslab_mean_ci95(tmp, c->n_ok, &c->mean, &c->ci);
		c->median = fslab_median_sort(tmp, c->n_ok);
		for (unsigned k = 0; k < c->n_ok; k++)
			tmp[k] = e->samples[c->first + k].iops;
		fslab_mean_ci95(tmp, c->n_ok, &c->iops_mean, &c->iops_ci);
		ld_cell_latency(e, c, tmp);
		e->n_flag_pc += !!(c->flags & RP_FLAG_PAGE_CACHE);
		e->n_flag_fuse += !!(c->flags & RP_FLAG_FUSE);
		e->n_flag_other += !!(c->flags & RP_FLAG_OTHER);
		e->n_flag_loop += !!(c->flags & RP_FLAG_BUFFERED_LOOP);
	}
	free(tmp);
	size_t k = 0;
	for (int t = 0; t <= FSLAB_TEST_MAX; t++) { /* t = FSLAB_TEST_MAX: past every cell */
		while (k < e->n_cells && (int)e->cells[k].test < t)
			k++;
		e->test_first[t] = k;
	}
	return 0;
}

/* What makes row impossible for the run its manifest m describes (NULL:
 * nothing; the reader bounded every figure): a finished test that moved
 * nothing, a record larger than its file, a cache mode not the run's
 * (cache: "?", the manifest's, else the first row's), a trial past the
 * run's last (as fslab run --resume checks), a cell outside the recorded
 * plan (a run's sweep: its tests, file and record sizes; imports: none). */
static const char *ld_impossible(const struct fslab_manifest *m, const char *cache,
				 const struct fslab_result_row *row, char *why, size_t len)
{
	if (fslab_result_ok(row) && !(row->throughput_kib_s > 0))
		return "an ok row of 0 KiB/s (a finished test moved bytes)";
	if (row->record_kib > row->file_kib)
		return "a record larger than its file";
	if (row->cache != FSLAB_CACHE_MODE_INVALID && cache[0] != '?' &&
	    strcmp(cache, fslab_cache_mode_to_string(row->cache)) != 0)
		snprintf(why, len, "cache mode %s in a %s run", fslab_cache_mode_to_string(row->cache), cache);
	else if (m && m->trials && row->trial > FSLAB_RESULTS_LAST_TRIAL(m->trials, m->max_trials))
		snprintf(why, len, "trial %u of a run of at most %u (manifest: trials, max_trials)", row->trial,
			 FSLAB_RESULTS_LAST_TRIAL(m->trials, m->max_trials));
	else if (!m || m->kind != FSLAB_MANIFEST_RUN || !(m->has & FSLAB_MF_HAS_SWEEP))
		return NULL;
	else if (!(m->sweep.tests & (1u << row->test)))
		snprintf(why, len, "test %s, which the manifest's sweep does not run", fslab_test_to_string(row->test));
	else if (row->file_kib < m->sweep.file_min_kib || row->file_kib > m->sweep.file_max_kib)
		snprintf(why, len, "file size %llu KiB, outside the manifest's sweep (%llu-%llu KiB)",
			 (unsigned long long)row->file_kib, (unsigned long long)m->sweep.file_min_kib,
			 (unsigned long long)m->sweep.file_max_kib);
	else if (row->record_kib < m->sweep.record_min_kib || row->record_kib > m->sweep.record_max_kib)
		snprintf(why, len, "record size %llu KiB, outside the manifest's sweep (%llu-%llu KiB)",
			 (unsigned long long)row->record_kib, (unsigned long long)m->sweep.record_min_kib,
			 (unsigned long long)m->sweep.record_max_kib);
	else
		return NULL;
	return why;
}

/* Rows in all CSVs of a report: above the biggest real sweep, the seed
 * sweep's every test (2,492 cells a trial: 144 file x record cells for each
 * IOzone and queued test, 11 for each many-files test) at the stopping
 * rule's default cap, 8 trials, on 16 filesystems: 318,976.  A CSV of a
 * plan: at most one row per cell and trial (tests x files x records x trials). */
#define LD_ROWS_MAX ((size_t)1 << 19)
#define LD_ROWS_TEXT "524,288"
#define LD_SIZES(lo, hi) (size_t)(64 - __builtin_clzll((hi) / ((lo) + !(lo)) | 1))

/* The entries of a manifest's list (sizes, depths), else n. */
static size_t ld_listed(const char *list, size_t n)
{
	for (size_t i = 0, k = 1; list[0]; k += list[i++] == ',')
		if (!list[i])
			return k;
	return n;
}
#define LD_NOT_RUN ": not a figure this run can have measured; the results were changed after the run (fix or remove the row)"

static int ld_csv(struct rp_run *run, struct rp_entry *e, int dfd, const char *name, const char *path,
		  const char *fs, const struct fslab_manifest *m, size_t room, struct fslab_err *fe)
{
	unsigned long damaged = 0, first_damaged = 0;
	char why[256];
	const char *bad;
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	struct ld_row *rows = NULL;
	size_t n = 0, cap = 0, plan = !m || m->kind != FSLAB_MANIFEST_RUN || !(m->has & FSLAB_MF_HAS_SWEEP) || !m->trials ? SIZE_MAX
		: (size_t)__builtin_popcount(m->sweep.tests) * FSLAB_RESULTS_LAST_TRIAL(m->trials, m->max_trials) *
		  ld_listed(m->sweep.file_sizes, LD_SIZES(m->sweep.file_min_kib, m->sweep.file_max_kib)) *
		  ld_listed(m->sweep.record_sizes, LD_SIZES(m->sweep.record_min_kib, m->sweep.record_max_kib)) *
		  ld_listed(m->sweep.iodepths, 1);
	size_t most = plan < room ? plan : room;
	char err[PATH_MAX + 512];
	struct fslab_err re = FSLAB_ERR_INIT;
	int r;

	snprintf(e->fs, sizeof(e->fs), "%s", fs);
	snprintf(e->csv, sizeof(e->csv), "%s", path);
	e->run = run;
	r = fslab_results_open_at(dfd, name, path, &rd, &re);
	if (r < 0)
		return fslab_err_set(fe, r, "%s", E1(re.msg));
	while ((r = fslab_results_next(rd, &row, &re)) == 1 || r == -EILSEQ) {
		if (r == -EILSEQ) {
			/* a damaged line is named and counted, never ranked */
			fslab_note_warn("%s; the line is not used", E1(re.msg));
			fslab_err_clear(&re);
			if (!damaged++)
				first_damaged = fslab_results_line(rd);
			continue;
		}
		bad = ld_impossible(m, run->cache, &row, why, sizeof(why));
		if (bad) {
			snprintf(err, sizeof(err), "%s:%lu: %s" LD_NOT_RUN, path, fslab_results_line(rd), bad);
			r = -EINVAL;
			break;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct ld_row *nr = realloc(rows, nc * sizeof(*rows));
			if (!nr) {
				r = -ENOMEM;
				snprintf(err, sizeof(err), "%s: out of memory", path);
				break;
			}
			rows = nr;
			cap = nc;
		}
		struct ld_row *lr = &rows[n++];
		memset(lr, 0, sizeof(*lr));
		lr->test = (unsigned char)row.test;
		lr->line = fslab_results_line(rd);
		lr->file_kib = row.file_kib;
		lr->record_kib = row.record_kib;
		lr->iodepth = row.iodepth ? row.iodepth : 1;
		lr->jobs = row.jobs ? row.jobs : 1;
		lr->s.trial = row.trial;
		lr->s.v = row.throughput_kib_s;
		lr->s.iops = fslab_result_iops(&row);
		lr->s.flags = ld_parse_flags(e, row.flag);
		for (int k = 0; k < FSLAB_LAT_N; k++)
			lr->s.lat[k] = row.latency && row.lat_us[k] >= 0 ? row.lat_us[k] : NAN;
		int64_t dv[RP_DEV_FIELDS] = { row.io_bytes, row.dev_read_bytes, row.dev_write_bytes,
					      row.dev_write_timed_bytes, -1 };
		for (int k = 0; k < RP_DEV_FILES; k++)
			lr->s.dev[k] = row.device && dv[k] >= 0 ? (double)dv[k] : NAN;
		/* files: the many-files tests' operations are files */
		lr->s.dev[RP_DEV_FILES] = row.elapsed_s > 0 ? round(lr->s.iops * row.elapsed_s) : NAN;
		e->device |= row.device;
		if (!fslab_result_ok(&row)) {
			lr->kind = strncmp(row.status, "skipped", 7) == 0 ? 2 : 1;
			lr->problem = strdup(row.status);
			(*(lr->kind == 1 ? &e->n_failed : &e->n_skipped))++;
		}
		/* one past the most: its duplicate, if any, is named below */
		if (n > most) {
			snprintf(err, sizeof(err), "%s:%lu: more than %zu rows%s (fix or remove the rows past it)", path, lr->line, most,
				 most == plan ? ", one per cell and trial of the plan in manifest.json"
					      : ": a report reads at most " LD_ROWS_TEXT " in all, with the CSVs before it");
			r = -EFBIG;
			break;
		}
		if (row.trial > e->max_trial)
			e->max_trial = row.trial;
		if (run->cache[0] == '?' && row.cache != FSLAB_CACHE_MODE_INVALID)
			snprintf(run->cache, sizeof(run->cache), "%s",
				 fslab_cache_mode_to_string(row.cache));
	}
	fslab_results_close(rd);
	if (re.code)
		snprintf(err, sizeof(err), "%s", re.msg);
	if (n) /* qsort of no rows: NULL, which it may not be given */
		qsort(rows, n, sizeof(*rows), ld_cmp_row);
	/* the plan has one row per cell and trial: a second is no sample */
	for (size_t i = 1; i < n && (r == 0 || r == -EFBIG); i++)
		if (ld_cmp_cell(&rows[i - 1], &rows[i]) == 0 && rows[i - 1].s.trial == rows[i].s.trial) {
			snprintf(err, sizeof(err), "%s:%lu: %s, file %llu KiB, record %llu KiB, trial %u again (also at line %lu; a run writes one row per cell and trial)" LD_NOT_RUN,
				 path, rows[i].line, fslab_test_to_string(rows[i].test), (unsigned long long)rows[i].file_kib,
				 (unsigned long long)rows[i].record_kib, rows[i].s.trial, rows[i - 1].line);
			r = -EINVAL;
		}
	if (r < 0) {
		fslab_err_set(fe, r, "%s", E1(err));
		goto out;
	}
	e->n_damaged = damaged;
	if (damaged)
		fslab_note_warn("%s: %lu damaged line%s (NUL bytes; the first at line %lu) left out of the report; its data is partial",
			   E1(path), damaged, damaged == 1 ? "" : "s", first_damaged);
	e->n_rows = n;
	r = ld_build_cells(e, rows, n);
	if (r < 0)
		fslab_err_set(fe, r, "%s: out of memory", E1(path));
out:
	for (size_t i = 0; i < n; i++)
		free(rows[i].problem);
	free(rows);
	return r;
}

static int ld_cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The results directory's <fs>.csv files (not the hidden ones). */
static int ld_is_csv(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return l > 4 && strcmp(de->d_name + l - 4, ".csv") == 0 && de->d_name[0] != '.';
}

/* manifest.json through lib/manifest.h: every value checked.  *out stays
 * NULL when there is none. */
static int ld_manifest(struct rp_run *run, int dfd, struct fslab_manifest **out, struct fslab_err *fe)
{
	char path[PATH_MAX + 16];
	struct fslab_err err = FSLAB_ERR_INIT;
	int r, fd;

	*out = NULL;
	run->drive_written = NAN;
	snprintf(path, sizeof(path), "%s/%s", run->dir, FSLAB_MANIFEST_NAME);
	/* no symlink followed, a regular file only (a FIFO cannot hang the
	 * report): the results directory may be writable by others */
	fd = fslab_manifest_open_at(dfd);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fslab_err_set(fe, fd == -ELOOP || fd == -EINVAL ? -EINVAL : fd, "%s: %s", E1(path),
				     fd == -ELOOP ? "a symbolic link, which is not followed in a results directory; remove it or copy its target in"
				     : fd == -EINVAL ? "not a regular file (a FIFO, device or directory); remove it"
						     : strerror(-fd));
	r = fslab_manifest_read_fd(fd, path, out, &err);
	close(fd);
	if (r < 0)
		return fslab_err_set(fe, r, "%s; fix or remove the manifest", E1(err.msg));
	run->manifest = json_object_get((*out)->json);
	if ((*out)->cache != FSLAB_CACHE_MODE_INVALID)
		snprintf(run->cache, sizeof(run->cache), "%s", fslab_cache_mode_to_string((*out)->cache));
	run->page_cache_factor = (*out)->page_cache_factor;
	/* what the run should have: its trials, whether it finished */
	run->trials = (*out)->trials;
	/* a run that added trials while a row was undecided or its interval
	 * wide (--stop decided, ci; a run from before "stop" was recorded:
	 * ci when it has until_ci_pct) gave a row at most max_trials */
	if ((*out)->stop[0] ? strcmp((*out)->stop, "fixed") != 0 : (*out)->until_ci_pct > 0)
		run->trial_cap = (*out)->max_trials;
	run->interrupted = (*out)->interrupted || ((*out)->started_at[0] && !(*out)->finished_at[0]);
	/* the drive's count from the earliest reading before a filesystem's
	 * sweep to the latest after one: the filesystems share the time */
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < (*out)->n_fs; i++) {
		const struct fslab_manifest_drive *dr = &(*out)->fs[i].drive;

		if (dr->before.has_host_written && dr->after.has_host_written) {
			lo = fmin(lo, (double)dr->before.host_written_bytes);
			hi = fmax(hi, (double)dr->after.host_written_bytes);
		}
	}
	if (hi >= lo)
		run->drive_written = hi - lo;
	return 0;
}

/* One entry per CSV, with the manifest's facts on its filesystem. */
static int ld_entries(struct rp_data *d, struct rp_run *run, int dfd, struct dirent **de, size_t n,
		      const struct fslab_manifest *m, struct fslab_err *fe)
{
	run->entries = calloc(n, sizeof(*run->entries));
	if (!run->entries)
		return fslab_err_set(fe, ENOMEM, "%s: out of memory", E1(run->dir));
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], fs[FSLAB_FS_NAME_MAX];
		struct rp_entry *e = &run->entries[i];
		const char *name = de[i]->d_name;
		size_t l = strlen(name) - 4, room = LD_ROWS_MAX;
		int r;

		for (size_t k = 0; k < d->n_all; k++)
			room -= d->all[k]->n_rows;
		if (snprintf(path, sizeof(path), "%s/%s", run->dir, name) >= (int)sizeof(path))
			return fslab_err_set(fe, ENAMETOOLONG, "%s/%s: path too long", E1(run->dir), E2(name));
		snprintf(fs, sizeof(fs), "%.*s", (int)(l < sizeof(fs) - 1 ? l : sizeof(fs) - 1), name);
		run->n_entries++;
		r = ld_csv(run, e, dfd, name, path, fs, m, room, fe);
		if (r < 0)
			return r;
		ld_fsinfo(e, m);
		e->type = fslab_fs_type_from_string(e->has_info && e->info.type[0] ? e->info.type : e->fs);
		d->all[d->n_all++] = e;
	}
	return 0;
}

/* The filesystems the manifest names that have no CSV. */
static void ld_missing(struct rp_run *run, const struct fslab_manifest *m)
{
	for (size_t i = 0; m && i < m->n_fs; i++) {
		bool found = false;

		for (size_t k = 0; k < run->n_entries; k++)
			found |= strcmp(run->entries[k].fs, m->fs[i].name) == 0;
		if (!found && run->n_missing < FSLAB_MAX_FS)
			snprintf(run->missing[run->n_missing++], FSLAB_FS_NAME_MAX, "%s", m->fs[i].name);
	}
}

/* The directory dfd is none of the n already loaded (ids): the same
 * directory given twice, by any spelling or through a symbolic link,
 * would be compared with itself and counted twice. */
static int ld_check_distinct(int dfd, const char *dir, const struct fslab_file_id *ids, size_t n,
			     const char *const *dirs, struct fslab_file_id *id, struct fslab_err *fe)
{
	int r = fslab_file_id_of_fd(dfd, id);

	if (r < 0)
		return fslab_err_set(fe, r, "results directory %s: %s", E1(dir), strerror(-r));
	for (size_t i = 0; i < n; i++)
		if (fslab_file_id_equal(&ids[i], id))
			return fslab_err_set(fe, EINVAL, "%s is the results directory %s again (the same directory, device %llu inode %llu): give each results directory once",
					     E1(dir), E2(dirs[i]), (unsigned long long)id->dev, (unsigned long long)id->ino);
	return 0;
}

static int ld_dir(struct rp_data *d, struct rp_run *run, const char *dir, struct fslab_file_id *ids,
		  const char *const *dirs, struct fslab_err *fe)
{
	struct fslab_manifest *m = NULL;
	struct stat st;
	struct dirent **names = NULL;
	size_t n = 0;
	int r = 0, dfd, k;

	snprintf(run->dir, sizeof(run->dir), "%s", dir);
	snprintf(run->cache, sizeof(run->cache), "?");
	/* The directory the user named (followed like any path typed); the
	 * files in it are then reached only through this fd, never by name. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (dfd < 0) {
		r = -errno;
		if (r == -ENOTDIR && stat(dir, &st) == 0)
			return fslab_err_set(fe, r, "%s is not a directory; give a results directory (fslab run --out DIR)", E1(dir));
		return fslab_err_set(fe, r, "results directory %s: %s", E1(dir), strerror(-r));
	}
	r = ld_check_distinct(dfd, dir, ids, (size_t)(run - d->runs), dirs, &ids[run - d->runs], fe);
	if (r == 0)
		r = ld_manifest(run, dfd, &m, fe);
	/* the sorted names of its <fs>.csv files */
	if (r == 0 && (k = scandirat(dfd, ".", &names, ld_is_csv, ld_cmp_name)) < 0) {
		k = errno;
		r = fslab_err_set(fe, k, "results directory %s: %s", E1(dir), strerror(k));
	}
	n = r == 0 ? (size_t)k : 0;
	if (r == 0 && n == 0) {
		r = fslab_err_set(fe, ENOENT, "%s: no <filesystem>.csv files; a results directory is written by 'fslab run' or 'fslab import iozone'",
				  E1(dir));
	} else if (r == 0 && n > FSLAB_MAX_FS * 4) {
		r = fslab_err_set(fe, E2BIG, "%s: %zu CSV files; at most %d per results directory", E1(dir), n,
				  FSLAB_MAX_FS * 4);
	}
	if (r == 0)
		r = ld_entries(d, run, dfd, names, n, m, fe);
	if (r == 0)
		ld_missing(run, m);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fslab_manifest_free(m);
	close(dfd);
	return r;
}

static const char *ld_basename(const char *p, char *buf, size_t len)
{
	size_t l = strlen(p);

	while (l > 1 && p[l - 1] == '/')
		l--;
	size_t s = l;
	while (s > 0 && p[s - 1] != '/')
		s--;
	snprintf(buf, len, "%.*s", (int)(l - s), p + s);
	return buf;
}

/* A run's name from its manifest (fslab run --label, e.g. the host), or
 * NULL. */
static const char *ld_run_label(const struct rp_run *r)
{
	const char *l = rp_json_str(r->manifest, "label", NULL, "");

	return l[0] ? l : NULL;
}

/* Short tags that tell the runs apart: the runs' labels when every run has
 * its own (entries are then label/fs: hostA/ext4), else the cache mode
 * when that differs, else the directory name, else both with the
 * position. */
static void ld_tags(struct rp_data *d)
{
	bool label_unique = true, cache_unique = true, base_unique = true;
	char b1[PATH_MAX], b2[PATH_MAX];

	for (size_t i = 0; i < d->n_runs; i++)
		if (!ld_run_label(&d->runs[i]))
			label_unique = false;
	for (size_t i = 0; i < d->n_runs; i++)
		for (size_t j = i + 1; j < d->n_runs; j++) {
			if (label_unique && strcmp(ld_run_label(&d->runs[i]), ld_run_label(&d->runs[j])) == 0)
				label_unique = false;
			if (strcmp(d->runs[i].cache, d->runs[j].cache) == 0)
				cache_unique = false;
			if (strcmp(ld_basename(d->runs[i].dir, b1, sizeof(b1)),
				   ld_basename(d->runs[j].dir, b2, sizeof(b2))) == 0)
				base_unique = false;
		}
	for (size_t i = 0; i < d->n_runs; i++) {
		struct rp_run *r = &d->runs[i];

		ld_basename(r->dir, b1, sizeof(b1));
		if (label_unique)
			snprintf(r->tag, sizeof(r->tag), "%s", ld_run_label(r));
		else if (cache_unique)
			snprintf(r->tag, sizeof(r->tag), "%s", r->cache);
		else if (base_unique)
			snprintf(r->tag, sizeof(r->tag), "%.40s", b1);
		else
			snprintf(r->tag, sizeof(r->tag), "%s#%zu", r->cache, i + 1);
		for (size_t k = 0; k < r->n_entries; k++) {
			struct rp_entry *e = &r->entries[k];
			if (d->n_runs > 1 && label_unique)
				snprintf(e->label, sizeof(e->label), "%.47s/%s", r->tag, e->fs);
			else if (d->n_runs > 1)
				snprintf(e->label, sizeof(e->label), "%s/%s", e->fs, r->tag);
			else
				snprintf(e->label, sizeof(e->label), "%s", e->fs);
		}
	}
}

/* What each run should have: its trials (manifest, else the most seen;
 * an interrupted run's: the trials every cell finished, run->done, so the
 * complete trials are ranked) and the cells per test (the most any of its
 * filesystems has); an entry short of that, or with damaged lines, is
 * partial.  (The filesystems its manifest names without a CSV: ld_missing.) */
static void ld_completeness(struct rp_run *run)
{
	unsigned most = 0, done = UINT_MAX;

	for (size_t k = 0; k < run->n_entries; k++) {
		most = run->entries[k].max_trial > most ? run->entries[k].max_trial : most;
		for (size_t c = 0; c < run->entries[k].n_cells; c++) {
			const struct rp_cell *cell = &run->entries[k].cells[c];
			unsigned rows = cell->n_ok + cell->n_failed + cell->n_skipped;
			done = rows < done ? rows : done;
		}
	}
	run->done = done == UINT_MAX ? 0 : done;
	if (!run->trials) /* none in the manifest */
		run->trials = most;
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		size_t want = 0;

		for (size_t k = 0; k < run->n_entries; k++) {
			size_t nc = run->entries[k].test_first[t + 1] - run->entries[k].test_first[t];
			if (nc > want)
				want = nc;
		}
		for (size_t k = 0; k < run->n_entries; k++) {
			struct rp_entry *e = &run->entries[k];
			size_t nc = e->test_first[t + 1] - e->test_first[t];

			if (nc == 0)
				continue; /* no data for this test: not ranked anyway */
			if (nc < want || e->n_damaged)
				e->partial[t] = true;
			for (size_t c = e->test_first[t]; c < e->test_first[t + 1] && !e->partial[t]; c++) {
				const struct rp_cell *cell = &e->cells[c];
				if (cell->n_ok + cell->n_failed + cell->n_skipped < (run->interrupted ? run->done : run->trials))
					e->partial[t] = true;
			}
		}
	}
}

int rp_load(struct rp_data *d, const char *const *dirs, size_t n, struct fslab_err *fe)
{
	struct fslab_file_id ids[FSLAB_REPORT_MAX_DIRS];

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d->n_runs++;
		int r = ld_dir(d, &d->runs[i], dirs[i], ids, dirs, fe);
		if (r < 0)
			return r;
	}
	ld_tags(d);
	for (size_t i = 0; i < d->n_runs; i++)
		ld_completeness(&d->runs[i]);
	return 0;
}

void rp_free(struct rp_data *d)
{
	for (size_t i = 0; i < d->n_runs; i++) {
		struct rp_run *r = &d->runs[i];

		for (size_t k = 0; k < r->n_entries; k++) {
			struct rp_entry *e = &r->entries[k];
			for (size_t c = 0; c < e->n_cells; c++)
				free(e->cells[c].problem);
			free(e->cells);
			free(e->samples);
		}
		free(r->entries);
		json_object_put(r->manifest);
	}
	memset(d, 0, sizeof(*d));
}
