#include "results.h"
#include "clock.h"
#include "fileutil.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum col {
	COL_FILESYSTEM,
	COL_TEST,
	COL_FILE,
	COL_RECORD,
	COL_TRIAL,
	COL_THROUGHPUT,
	COL_ELAPSED,
	COL_CACHE,
	COL_STATUS,
	COL_FLAG,
	COL_IODEPTH,
	COL_JOBS,
	COL_IOPS,
	COL_LAT_P50,
	COL_LAT_P99,
	COL_LAT_P999,
	COL_LAT_P9999,
	COL_LAT_MAX,
	COL_IO_BYTES,
	COL_DEV_READ,
	COL_DEV_WRITE,
	COL_DEV_WRITE_TIMED,
	COL_MAX,
};

static const char *const col_names[COL_MAX] = {
	"filesystem", "test",      "file_size_kib", "record_size_kib", "trial",
	"throughput_kib_s", "elapsed_s", "cache_mode", "status", "flag",
	"iodepth", "jobs", "iops", "lat_p50_us", "lat_p99_us", "lat_p999_us",
	"lat_p9999_us", "lat_max_us",
	"io_bytes", "dev_read_bytes", "dev_write_bytes", "dev_write_timed_bytes",
};

#define MAX_FIELDS 64
#define MAX_LINE (1u << 20) /* bytes, with the newline */
#define STR_(x) #x
#define STR(x) STR_(x)

struct fslab_results_reader {
	FILE *f;
	char *path;
	unsigned long line;
	int map[MAX_FIELDS]; /* field index -> enum col, -1 ignored */
	size_t n_fields;
	char *buf;
	size_t cap;
	bool nul; /* the last line read held a NUL byte */
};

bool fslab_result_ok(const struct fslab_result_row *row)
{
	return strcmp(row->status, "ok") == 0;
}

enum fslab_row_use fslab_result_use(const struct fslab_result_row *row)
{
	if (!fslab_result_ok(row))
		return FSLAB_ROW_FAILED;
	for (const char *p = row->flag; *p; p += strcspn(p, ";") + (p[strcspn(p, ";")] == ';')) {
		size_t n = strcspn(p, ";");

		if (!(n == strlen(FSLAB_FLAG_BEYOND_DEVICE) && !strncmp(p, FSLAB_FLAG_BEYOND_DEVICE, n)) &&
		    strncmp(p, "redone-", 7) != 0)
			return FSLAB_ROW_ASIDE;
	}
	return FSLAB_ROW_OK;
}

static void put_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc('"', out);
}

double fslab_result_iops(const struct fslab_result_row *row)
{
	if (!fslab_result_ok(row))
		return 0;
	return row->iops >= 0 ? row->iops : row->record_kib ? row->throughput_kib_s / (double)row->record_kib : 0;
}

int fslab_results_write_header_ex(FILE *out, unsigned cols)
{
	static const char *const groups[] = { FSLAB_RESULTS_QUEUE_COLUMNS, FSLAB_RESULTS_LATENCY_COLUMNS,
					      FSLAB_RESULTS_DEVICE_COLUMNS }; /* FSLAB_RESULTS_COLS_*'s order */

	fputs(FSLAB_RESULTS_HEADER, out);
	for (int i = 0; i < 3; i++)
		if (cols & (1u << i))
			fputs(groups[i], out);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int fslab_results_write_row(FILE *out, const struct fslab_result_row *r)
{
	put_field(out, r->filesystem);
	fprintf(out, ",%s,%llu,%llu,%u,%.0f,", fslab_test_to_string(r->test),
		(unsigned long long)r->file_kib, (unsigned long long)r->record_kib, r->trial,
		r->throughput_kib_s);
	if (r->elapsed_s >= 0)
		fprintf(out, "%.6f", r->elapsed_s);
	fprintf(out, ",%s,", r->cache >= 0 ? fslab_cache_mode_to_string(r->cache) : "");
	put_field(out, r->status);
	fputc(',', out);
	put_field(out, r->flag);
	if (r->queue) {
		fprintf(out, ",%u,%u,", r->iodepth, r->jobs);
		if (r->iops >= 0)
			fprintf(out, "%.1f", r->iops);
	}
	for (int i = 0; r->latency && i < FSLAB_LAT_N; i++) {
		fputc(',', out);
		if (r->lat_us[i] >= 0)
			fprintf(out, "%.3f", r->lat_us[i]);
	}
	if (r->device) {
		const int64_t v[4] = { r->io_bytes, r->dev_read_bytes, r->dev_write_bytes, r->dev_write_timed_bytes };
		for (int i = 0; i < 4; i++) {
			fputc(',', out);
			if (v[i] >= 0)
				fprintf(out, "%lld", (long long)v[i]);
		}
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int fslab_results_append_row(FILE *out, const struct fslab_result_row *row, uint64_t *synced_ns)
{
	int r = fslab_results_write_row(out, row);
	uint64_t now;

	/* fflush's errno names a failed write better than -EIO (stdio's
	 * error flag) does */
	if (fflush(out) != 0)
		return -errno;
	if (r < 0)
		return r;
	now = fslab_now_ns();
	if (*synced_ns && now - *synced_ns < FSLAB_RESULTS_SYNC_WINDOW_NS)
		return 0;
	/* the rows' data and the file's size: what a reader after a crash
	 * needs to find them (the name reached the disk when the run made
	 * the file) */
	if (fdatasync(fileno(out)) < 0)
		return -errno;
	*synced_ns = fslab_now_ns();
	return 0;
}

/* Splits one CSV line in place (RFC 4180 quoting, no embedded newlines).
 * Returns the number of fields, -EINVAL on a malformed quote or -E2BIG
 * past max fields. */
static int split_line(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *out, *start;

		if (n >= max)
			return -E2BIG;
		if (*p == '"') {
			start = out = ++p;
			for (;;) {
				if (*p == '\0')
					return -EINVAL;
				if (*p == '"') {
					if (p[1] == '"') {
						*out++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*out++ = *p++;
			}
			if (*p != ',' && *p != '\0')
				return -EINVAL;
			fields[n++] = start;
			char sep = *p;
			*out = '\0';
			if (sep == '\0')
				return (int)n;
			p++;
		} else {
			start = p;
			while (*p && *p != ',')
				p++;
			fields[n++] = start;
			if (*p == '\0')
				return (int)n;
			*p++ = '\0';
		}
	}
}

/* What split_line's n says: unbalanced quotes, or how many fields. */
static const char *fields_said(int n, char *buf, size_t len)
{
	if (n == -EINVAL)
		return "unbalanced quotes";
	snprintf(buf, len, n < 0 ? "more than %d fields" : "%d fields", n < 0 ? MAX_FIELDS : n);
	return buf;
}

/* Reads one line; returns 1, 0 at EOF, or -errno with e set: a line over
 * MAX_LINE, or a last line without its newline (cut off). */
static int read_line(struct fslab_results_reader *rd, struct fslab_err *e)
{
	size_t n = 0;
	int c;

	rd->nul = false;
	for (;;) {
		c = fgetc(rd->f);
		if (c == EOF)
			break;
		if (n + 2 > rd->cap) {
			size_t nc = rd->cap ? rd->cap * 2 : 512;
			if (nc > MAX_LINE)
				return fslab_err_set(e, -E2BIG, "%s:%lu: the line is 1 MiB or longer; a row fslab writes is under 1 KiB: the file is damaged or not a results CSV (fix or remove the line)",
						     rd->path, rd->line + 1);
			char *nb = realloc(rd->buf, nc);
			if (!nb)
				return fslab_err_set(e, -ENOMEM, "%s: out of memory", rd->path);
			rd->buf = nb;
			rd->cap = nc;
		}
		if (c == '\n')
			break;
		rd->nul |= c == '\0';
		rd->buf[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return ferror(rd->f) ? fslab_err_set(e, -EIO, "%s:%lu: cannot read: I/O error", rd->path, rd->line + 1) : 0;
	rd->line++;
	if (c == EOF)
		return fslab_err_set(e, -EINVAL, "%s:%lu: the last line has no newline: the file was cut off (truncated write?)",
				     rd->path, rd->line);
	if (n && rd->buf[n - 1] == '\r')
		n--;
	rd->buf[n] = '\0';
	return 1;
}

/* The reader on fd (a regular file, opened non-blocking: cleared here). */
static int results_open_fd(int fd, const char *path, struct fslab_results_reader **out, struct fslab_err *e)
{
	int fl = fcntl(fd, F_GETFL);
	FILE *f;

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (!f) {
		int r = -errno;
		close(fd);
		return fslab_err_set(e, r, "%s: cannot open: %s", path, strerror(-r));
	}
	return fslab_results_open_stream(f, path, out, e);
}

int fslab_results_open(const char *path, struct fslab_results_reader **out, struct fslab_err *e)
{
	/* O_NONBLOCK: a FIFO under the name must not hang the reader */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return fslab_err_set(e, errno, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fslab_err_set(e, -EINVAL, "%s: not a regular file; a results CSV is one", path);
	}
	return results_open_fd(fd, path, out, e);
}

int fslab_results_open_at(int dfd, const char *name, const char *path,
			  struct fslab_results_reader **out, struct fslab_err *e)
{
	int fd = fslab_open_regular_at(dfd, name, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fslab_err_set(e, fd, "%s: %s", path,
				     fd == -ELOOP ? "a symbolic link, which is not followed in a results directory (fslab writes its CSVs as regular files); remove it or copy its target in"
				     : fd == -EINVAL ? "not a regular file (a FIFO, device or directory named like a CSV); remove it"
						     : strerror(-fd));
	return results_open_fd(fd, path, out, e);
}

int fslab_results_open_stream(FILE *f, const char *path, struct fslab_results_reader **out,
			      struct fslab_err *e)
{
	struct fslab_results_reader *rd = calloc(1, sizeof(*rd));
	char *fields[MAX_FIELDS], why[32];
	int n, r;

	if (!rd) {
		fclose(f);
		return -ENOMEM;
	}
	rd->f = f;
	rd->path = strdup(path);
	if (!rd->path) {
		r = fslab_err_set(e, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	r = read_line(rd, e);
	if (r == 0)
		r = fslab_err_set(e, -EINVAL, "%s:1: empty file; a results CSV starts with the header " FSLAB_RESULTS_HEADER, path);
	if (r <= 0)
		goto fail;
	n = split_line(rd->buf, fields, MAX_FIELDS);
	if (n < 6) {
		r = fslab_err_set(e, -EINVAL, "%s:1: the header has %s; a results CSV has 6 to " STR(MAX_FIELDS) " columns, from " FSLAB_RESULTS_HEADER,
				  path, fields_said(n, why, sizeof(why)));
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		rd->map[i] = -1;
		if (i < COL_ELAPSED) {
			if (strcmp(fields[i], col_names[i]) != 0) {
				r = fslab_err_set(e, -EINVAL, "%s:1: column %d is '%s'; expected '%s' (header: %s)",
						  path, i + 1, fields[i], col_names[i], FSLAB_RESULTS_HEADER);
				goto fail;
			}
			rd->map[i] = i;
			continue;
		}
		for (int c = COL_ELAPSED; c < COL_MAX; c++)
			if (strcmp(fields[i], col_names[c]) == 0)
				rd->map[i] = c;
	}
	rd->n_fields = (size_t)n;
	*out = rd;
	return 0;
fail:
	fslab_results_close(rd);
	return r;
}

/* A file or record size column: NULL, or what is wrong with f. */
static const char *kib_field(const char *f, uint64_t *v)
{
	int r = fslab_parse_uint(f, 1, FSLAB_SIZE_MAX / FSLAB_KiB, v);

	if (r == -ERANGE && f[strspn(f, "0")] != '\0')
		return "larger than 1 EiB";
	return r < 0 ? "not a positive whole number of KiB" : NULL;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || *end || !isfinite(x) || x < 0)
		return -EINVAL;
	*v = x;
	return 0;
}

/* The next non-empty line, split into fields (as many as the header has).
 * Returns the number of fields, 0 at the end, or a negative errno with err
 * set. */
static int read_fields(struct fslab_results_reader *rd, char **fields, struct fslab_err *e)
{
	char why[32];
	int n, r;

	do {
		r = read_line(rd, e);
		if (r <= 0)
			return r;
		/* a crash can leave blocks of zeros where rows were: such a
		 * line is damage to name, never an empty line to pass over */
		if (rd->nul)
			return fslab_err_set(e, -EILSEQ, "%s:%lu: the line holds NUL bytes: damaged (a crash before the data reached the disk?)",
					     rd->path, rd->line);
	} while (rd->buf[0] == '\0');

	n = split_line(rd->buf, fields, MAX_FIELDS);
	if ((size_t)n != rd->n_fields)
		return fslab_err_set(e, -EINVAL, "%s:%lu: %s; the header has %zu (fix or remove the line)", rd->path, rd->line,
				     fields_said(n, why, sizeof(why)), rd->n_fields);
	return n;
}

/* Field f of column col into row: NULL, or what is wrong with it. */
static const char *parse_field(int col, const char *f, struct fslab_result_row *row)
{
	uint64_t u;

	switch (col) {
	case COL_FILESYSTEM:
		if (!fslab_fs_name_valid(f))
			return "not a filesystem name";
		snprintf(row->filesystem, sizeof(row->filesystem), "%s", f);
		return NULL;
	case COL_TEST:
		row->test = fslab_test_from_string(f);
		return row->test == FSLAB_TEST_INVALID ? "unknown test" : NULL;
	case COL_FILE:
		return kib_field(f, &row->file_kib);
	case COL_RECORD:
		return kib_field(f, &row->record_kib);
	case COL_TRIAL:
		if (fslab_parse_uint(f, 1, 1000000, &u) < 0)
			return "not a trial number (1, 2, ...)";
		row->trial = (unsigned)u;
		return NULL;
	case COL_THROUGHPUT:
		if (parse_double(f, &row->throughput_kib_s) < 0)
			return "not a non-negative number";
		return row->throughput_kib_s > FSLAB_RESULTS_KIB_S_MAX
			       ? "above 10 TiB/s, faster than any memory a CPU can read: not a measured figure"
			       : NULL;
	case COL_ELAPSED:
		return *f && parse_double(f, &row->elapsed_s) < 0 ? "not a non-negative number" : NULL;
	case COL_CACHE:
		if (!*f)
			return NULL;
		row->cache = fslab_cache_mode_from_string(f);
		return row->cache == FSLAB_CACHE_MODE_INVALID ? "unknown cache mode" : NULL;
	case COL_STATUS:
		if (strcmp(f, "ok") && strncmp(f, "failed", 6) && strncmp(f, "skipped", 7))
			return "status must be ok, failed: ... or skipped: ...";
		snprintf(row->status, sizeof(row->status), "%s", f);
		return NULL;
	case COL_FLAG: /* cut short, its last flags (page-cache) would be lost */
		return snprintf(row->flag, sizeof(row->flag), "%s", f) >= (int)sizeof(row->flag)
			       ? "longer than the 63 bytes a run writes: not a flag list of fslab's" : NULL;
	case COL_IODEPTH:
	case COL_JOBS:
		if (fslab_parse_uint(f, 1, col == COL_IODEPTH ? FSLAB_RESULTS_IODEPTH_MAX
								 : FSLAB_RESULTS_JOBS_MAX, &u) < 0)
			return col == COL_IODEPTH ? "not a queue depth (1-" STR(FSLAB_RESULTS_IODEPTH_MAX) ")"
						  : "not a number of threads (1-" STR(FSLAB_RESULTS_JOBS_MAX) ")";
		*(col == COL_IODEPTH ? &row->iodepth : &row->jobs) = (unsigned)u;
		row->queue = true;
		return NULL;
	case COL_IOPS:
		row->queue = true;
		return *f && parse_double(f, &row->iops) < 0 ? "not a non-negative number" : NULL;
	case COL_LAT_P50:
	case COL_LAT_P99:
	case COL_LAT_P999:
	case COL_LAT_P9999:
	case COL_LAT_MAX:
		row->latency = true;
		return *f && parse_double(f, &row->lat_us[col - COL_LAT_P50]) < 0 ? "not a non-negative number" : NULL;
	case COL_IO_BYTES:
	case COL_DEV_READ:
	case COL_DEV_WRITE:
	case COL_DEV_WRITE_TIMED:
		row->device = true;
		if (!*f)
			return NULL;
		if (fslab_parse_uint(f, 0, INT64_MAX, &u) < 0)
			return "not a whole number of bytes";
		*(col == COL_IO_BYTES ? &row->io_bytes : col == COL_DEV_READ ? &row->dev_read_bytes :
		  col == COL_DEV_WRITE ? &row->dev_write_bytes : &row->dev_write_timed_bytes) = (int64_t)u;
		return NULL;
	}
	return NULL;
}

int fslab_results_next(struct fslab_results_reader *rd, struct fslab_result_row *row,
		       struct fslab_err *e)
{
	char *fields[MAX_FIELDS];
	int n = read_fields(rd, fields, e);

	if (n <= 0)
		return n;
	*row = (struct fslab_result_row){ .elapsed_s = -1, .lat_us = { -1, -1, -1, -1, -1 },
					  .iodepth = 1, .jobs = 1, .iops = -1, .io_bytes = -1, .dev_read_bytes = -1,
					  .dev_write_bytes = -1, .dev_write_timed_bytes = -1,
					  .cache = FSLAB_CACHE_MODE_INVALID, .status = "ok" };
	for (int i = 0; i < n; i++) {
		const char *bad = parse_field(rd->map[i], fields[i], row);

		if (bad)
			return fslab_err_set(e, -EINVAL, "%s:%lu: column '%s' = '%.40s': %s", rd->path,
					     rd->line, rd->map[i] >= 0 ? col_names[rd->map[i]] : "?", fields[i],
					     bad);
	}
	return 1;
}

unsigned long fslab_results_line(const struct fslab_results_reader *rd)
{
	return rd->line;
}

void fslab_results_close(struct fslab_results_reader *rd)
{
	if (!rd)
		return;
	if (rd->f)
		fclose(rd->f);
	free(rd->path);
	free(rd->buf);
	free(rd);
}
