/* --resume: the cells a results CSV already holds.  A cell is (filesystem,
 * test, file size, record size, trial); one row per finished cell.  A run
 * killed while writing a row leaves a last line without its newline: it is
 * cut off here (the cell is redone), every complete row is kept. */
#include "bench_int.h"
#include "fileutil.h"
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Truncates path after its last newline. */
static int resume_cut_partial_line(const char *path)
{
	struct stat st;
	char buf[4096];
	off_t end;
	int fd = open(path, O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	end = st.st_size;
	while (end > 0) {
		off_t start = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, (size_t)(end - start), start);
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			goto out;
		}
		for (ssize_t i = n - 1; i >= 0; i--)
			if (buf[i] == '\n') {
				off_t keep = start + i + 1;
				if (keep != st.st_size && ftruncate(fd, keep) < 0)
					r = -errno;
				goto out;
			}
		end = start;
	}
	if (st.st_size > 0 && ftruncate(fd, 0) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}

int fslab_done_add(struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
		   uint64_t record_kib, unsigned trial, bool ok, double throughput)
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
		bool *o = realloc(d->ok, nc * sizeof(*o));
		if (!o)
			return -ENOMEM;
		d->ok = o;
		d->cap = nc;
	}
	d->keys[d->n] = (struct fslab_cell_key){ t, file_kib, record_kib, trial };
	d->throughput[d->n] = throughput;
	d->ok[d->n] = ok;
	d->n++;
	return 0;
}

bool fslab_done_has(const struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
		    uint64_t record_kib, unsigned trial)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct fslab_cell_key *k = &d->keys[i];
		if (k->test == t && k->file_kib == file_kib && k->record_kib == record_kib &&
		    k->trial == trial)
			return true;
	}
	return false;
}

size_t fslab_done_samples(const struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
			  uint64_t record_kib, double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n && n < max; i++) {
		const struct fslab_cell_key *k = &d->keys[i];
		if (d->ok[i] && k->test == t && k->file_kib == file_kib && k->record_kib == record_kib)
			out[n++] = d->throughput[i];
	}
	return n;
}

void fslab_done_free(struct fslab_done_set *d)
{
	free(d->keys);
	free(d->throughput);
	free(d->ok);
	memset(d, 0, sizeof(*d));
}

int fslab_resume_load(const char *csv_path, struct fslab_done_set *d, char *err, size_t errlen)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	int r;

	if (access(csv_path, F_OK) != 0)
		return 0;
	r = resume_cut_partial_line(csv_path);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", csv_path, strerror(-r));
		return r;
	}
	struct stat st;
	if (stat(csv_path, &st) == 0 && st.st_size == 0)
		return 0; /* killed before the header was written: start afresh */
	r = fslab_results_open(csv_path, &rd, err, errlen);
	if (r < 0)
		return r;
	/* Rows of a filesystem that vanished are dropped so its cells run
	 * again once it is back; every other row stays. */
	char *kept = NULL;
	size_t kept_len = 0;
	bool dropped = false;
	FILE *mem = open_memstream(&kept, &kept_len);
	if (!mem) {
		fslab_results_close(rd);
		return -ENOMEM;
	}
	fslab_results_write_header(mem);
	while ((r = fslab_results_next(rd, &row, err, errlen)) == 1) {
		if (strncmp(row.status, FSLAB_VANISHED_STATUS, strlen(FSLAB_VANISHED_STATUS)) == 0) {
			dropped = true;
			continue;
		}
		fslab_results_write_row(mem, &row);
		r = fslab_done_add(d, row.test, row.file_kib, row.record_kib, row.trial,
				   fslab_result_ok(&row), row.throughput_kib_s);
		if (r < 0)
			break;
	}
	fslab_results_close(rd);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r >= 0 && dropped) {
		r = fslab_write_file_atomic(csv_path, kept, kept_len, 0644);
		if (r < 0)
			snprintf(err, errlen, "%s: cannot rewrite: %s", csv_path, strerror(-r));
	}
	free(kept);
	return r < 0 ? r : 0;
}
