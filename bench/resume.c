/* --resume: the cells a results CSV already holds.  A cell is (filesystem,
 * test, file size, record size, trial); one row per finished cell.  A run
 * killed while writing a row leaves a last line without its newline: it is
 * cut off here (the cell is redone), every complete row is kept.  Nothing
 * is changed until every CSV, the manifest and the run id have been checked. */
#include "run_int.h"
#include "fileutil.h"
#include "results.h"

#include <stdio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The same cell, whatever the trial. */
static bool done_same_cell(const struct fslab_cell_key *a, const struct fslab_cell_key *b)
{
	return a->test == b->test && a->file_kib == b->file_kib && a->record_kib == b->record_kib &&
	       a->iodepth == b->iodepth && a->jobs == b->jobs;
}

int fslab_done_add(struct fslab_done_set *d, const struct fslab_cell_key *key, enum fslab_row_use use,
		   double throughput)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 256;
		struct fslab_cell_key *k = realloc(d->keys, nc * sizeof(*k));
		if (!k)
			return -ENOMEM;
		d->keys = k;
		double *tp = realloc(d->throughput, nc * sizeof(*tp));
		if (!tp)
			return -ENOMEM;
		d->throughput = tp;
		unsigned char *o = realloc(d->ok, nc * sizeof(*o));
		if (!o)
			return -ENOMEM;
		d->ok = o;
		d->cap = nc;
	}
	d->keys[d->n] = *key;
	d->throughput[d->n] = throughput;
	d->ok[d->n] = (unsigned char)use;
	d->n++;
	return 0;
}

bool fslab_done_has(const struct fslab_done_set *d, const struct fslab_cell_key *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (done_same_cell(&d->keys[i], key) && d->keys[i].trial == key->trial)
			return true;
	return false;
}

size_t fslab_done_samples(const struct fslab_done_set *d, const struct fslab_cell_key *key,
			  double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n && n < max; i++)
		if (d->ok[i] && done_same_cell(&d->keys[i], key))
			out[n++] = d->throughput[i];
	return n;
}

void fslab_done_free(struct fslab_done_set *d)
{
	free(d->keys);
	free(d->throughput);
	free(d->ok);
	memset(d, 0, sizeof(*d));
}

void fslab_resume_csv_free(struct fslab_resume_csv *rc)
{
	if (rc->fd >= 0)
		close(rc->fd);
	free(rc->kept);
	memset(rc, 0, sizeof(*rc));
	rc->fd = -1;
}

/* Opens <fs>.csv for resume: a regular file of ours with one link.
 * Returns the fd, -ENOENT (none: killed before it was made) or -errno with
 * err set. */
static int resume_open_csv(int dfd, const char *name, struct fslab_err *e)
{
	struct stat st;
	int fd = fslab_open_regular_at(dfd, name, O_RDWR), r = 0;

	if (fd == -ENOENT)
		return fd;
	if (fd < 0)
		return fslab_err_set(e, fd, "%s: %s; fslab writes its CSVs as regular files, so this one is not the run's own: nothing was changed",
				     name, fd == -ELOOP ? "is a symbolic link" : fd == -EINVAL ? "is not a regular file" : strerror(-fd));
	if (fstat(fd, &st) < 0)
		r = fslab_err_set(e, errno, "%s: %s", name, strerror(errno));
	else if (st.st_uid != geteuid() || st.st_nlink != 1)
		r = fslab_err_set(e, -EPERM, "%s: %s, so it is not a CSV this fslab wrote: nothing was changed",
				  name, st.st_uid != geteuid() ? "owned by another user" : "has other hard links");
	if (r < 0)
		close(fd);
	return r < 0 ? r : fd;
}

/* The complete rows (len bytes of data) of filesystem fs: their cells into
 * d, and, when rows of a vanished filesystem must go, the rows to keep
 * into rc->kept.  Returns 0 or -errno with e set (not NULL). */
static int resume_rows(const char *name, const char *fs, const char *data, size_t len,
		       struct fslab_resume_csv *rc, struct fslab_done_set *d, struct fslab_err *e)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	char *kept = NULL;
	size_t kept_len = 0;
	bool dropped = false;
	FILE *mem = NULL, *in = fmemopen((void *)data, len, "r");
	const char *nl = memchr(data, '\n', len);
	int r;

	if (!in)
		return fslab_err_set(e, ENOMEM, "%s: out of memory", name);
	r = fslab_results_open_stream(in, name, &rd, e);
	if (r < 0)
		return r;
	/* Rows of a filesystem that vanished are dropped so its cells run
	 * again once it is back; every other row stays, under the same
	 * columns as the file's header (the queue and latency columns when
	 * it has them). */
	mem = open_memstream(&kept, &kept_len);
	if (!mem) {
		r = fslab_err_set(e, ENOMEM, "%s: out of memory", name);
		goto out;
	}
	rc->device = nl && memmem(data, (size_t)(nl - data), ",dev_read_bytes,", 16);
	fslab_results_write_header_ex(
		mem, (nl && memmem(data, (size_t)(nl - data), ",iodepth,", 9) ? FSLAB_RESULTS_COLS_QUEUE : 0) |
			     (nl && memmem(data, (size_t)(nl - data), "lat_p50_us", 10) ? FSLAB_RESULTS_COLS_LATENCY : 0) |
			     (rc->device ? FSLAB_RESULTS_COLS_DEVICE : 0));
	while ((r = fslab_results_next(rd, &row, e)) == 1) {
		if (strcmp(row.filesystem, fs) != 0) {
			r = fslab_err_set(e, EINVAL, "%s: holds rows of filesystem '%s': not this run's CSV; nothing was changed",
					  name, row.filesystem);
			break;
		}
		if (strncmp(row.status, FSLAB_VANISHED_STATUS, strlen(FSLAB_VANISHED_STATUS)) == 0) {
			dropped = true;
			continue;
		}
		fslab_results_write_row(mem, &row);
		r = fslab_done_add(d,
				   &(struct fslab_cell_key){ .test = row.test, .file_kib = row.file_kib,
							     .record_kib = row.record_kib,
							     .iodepth = row.iodepth ? row.iodepth : 1,
							     .jobs = row.jobs ? row.jobs : 1,
							     .trial = row.trial },
				   fslab_result_use(&row), row.throughput_kib_s);
		if (r < 0)
			break;
	}
	if (fclose(mem) != 0 && r == 0)
		r = fslab_err_set(e, ENOMEM, "%s: out of memory", name);
	if (r < 0)
		e->code = r;
	if (r == 0 && dropped) {
		rc->kept = kept;
		rc->kept_len = kept_len;
		kept = NULL;
	}
out:
	fslab_results_close(rd);
	free(kept);
	return r;
}

int fslab_resume_check(int dfd, const char *fs, struct fslab_resume_csv *rc,
		       struct fslab_done_set *d, struct fslab_err *e)
{
	char name[FSLAB_FS_NAME_MAX + 8], *data = NULL;
	struct fslab_err local = FSLAB_ERR_INIT;
	size_t len = 0;
	int r;

	if (!e)
		e = &local;
	memset(rc, 0, sizeof(*rc));
	rc->fd = -1;
	snprintf(name, sizeof(name), "%s.csv", fs);
	r = resume_open_csv(dfd, name, e);
	if (r == -ENOENT)
		return 0; /* killed before the CSV was made */
	if (r < 0)
		return r;
	rc->fd = r;
	r = fslab_read_fd(rc->fd, &data, &len, (size_t)1 << 30);
	if (r < 0) {
		fslab_err_set(e, r, "%s: cannot read: %s", name, strerror(-r));
		goto fail;
	}
	rc->size = (off_t)len;
	/* A run killed while it wrote a row leaves a line without its newline:
	 * it is cut off (the cell runs again), every complete row stays. */
	while (len > 0 && data[len - 1] != '\n')
		len--;
	rc->keep = (off_t)len;
	/* len 0: killed before the header was complete: start afresh */
	r = len ? resume_rows(name, fs, data, len, rc, d, e) : 0;
	if (r < 0)
		goto fail;
	free(data);
	return 0;
fail:
	free(data);
	fslab_resume_csv_free(rc);
	return r;
}

int fslab_resume_apply(int dfd, const char *fs, struct fslab_resume_csv *rc, struct fslab_err *e)
{
	char name[FSLAB_FS_NAME_MAX + 8];
	int r;

	snprintf(name, sizeof(name), "%s.csv", fs);
	if (rc->fd < 0)
		return 0;
	if (rc->kept) {
		r = fslab_write_file_atomic_at(dfd, name, rc->kept, rc->kept_len, 0644);
		if (r < 0)
			return fslab_err_set(e, r, "%s: cannot rewrite: %s", name, strerror(-r));
		close(rc->fd);
		rc->fd = fslab_open_regular_at(dfd, name, O_RDWR);
		if (rc->fd < 0)
			return fslab_err_set(e, rc->fd, "%s: cannot open after rewriting: %s", name,
					     strerror(-rc->fd));
	} else if (rc->keep != rc->size && ftruncate(rc->fd, rc->keep) < 0) {
		return fslab_err_set(e, errno, "%s: cannot cut off the incomplete last line: %s", name,
				     strerror(errno));
	}
	return 0;
}
