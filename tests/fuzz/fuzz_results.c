/* Fuzz target: the results CSV reader (lib/results.h), which `fslab report`,
 * `fslab export` and `fslab run --resume` trust with files a user may have
 * edited.  The reader takes a path, so each input is written to a memfd and
 * opened through /proc/self/fd.  Properties checked on every input:
 *  - open/next return 0, 1 or a negative errno with a message naming the
 *    file; nothing is read past the buffer (ASan);
 *  - every row it accepts is valid (filesystem name, known test, positive
 *    sizes and trial, a status of ok/failed/skipped);
 *  - an accepted row written back with fslab_results_write_row reads back
 *    as the same row (the contract run --resume relies on). */
#include "fuzz_check.h"
#include "results.h"
#include "size.h"

#include <errno.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

/* Two memfds: 0 holds the input, 1 the round-trip copy (the input is still
 * being read while a row is checked). */
static int fuzz_memfd(int which)
{
	static int fd[2] = { -1, -1 };

	if (fd[which] < 0) {
		fd[which] = memfd_create("fuzz-results", MFD_CLOEXEC);
		FUZZ_CHECK(fd[which] >= 0);
	}
	return fd[which];
}

/* Replaces memfd `which`'s contents and returns its /proc path. */
static const char *fuzz_file(int which, const void *data, size_t size)
{
	static char paths[2][64];
	char *path = paths[which];
	int fd = fuzz_memfd(which);

	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, sizeof(paths[0]), "/proc/self/fd/%d", fd);
	return path;
}

static void check_row(const struct fslab_result_row *row)
{
	FUZZ_CHECK(fslab_fs_name_valid(row->filesystem));
	FUZZ_CHECK(row->test >= 0 && row->test < FSLAB_TEST_MAX);
	FUZZ_CHECK(row->file_kib > 0 && row->record_kib > 0 && row->trial > 0);
	/* Byte counts (KiB * 1024) must not wrap in report/ or bench/. */
	FUZZ_CHECK(row->file_kib <= FSLAB_SIZE_MAX / FSLAB_KiB);
	FUZZ_CHECK(row->record_kib <= FSLAB_SIZE_MAX / FSLAB_KiB);
	FUZZ_CHECK(row->throughput_kib_s >= 0 && isfinite(row->throughput_kib_s));
	FUZZ_CHECK(row->elapsed_s == -1 || (row->elapsed_s >= 0 && isfinite(row->elapsed_s)));
	FUZZ_CHECK(row->cache == FSLAB_CACHE_MODE_INVALID ||
		   (row->cache >= 0 && row->cache < FSLAB_CACHE_MODE_MAX));
	FUZZ_CHECK(memchr(row->status, '\0', sizeof(row->status)));
	FUZZ_CHECK(memchr(row->flag, '\0', sizeof(row->flag)));
	FUZZ_CHECK(fslab_result_ok(row) || strncmp(row->status, "failed", 6) == 0 ||
		   strncmp(row->status, "skipped", 7) == 0);
}

/* The writer turns CR/LF inside a field into blanks; compare that way. */
static int same_text(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = (*a == '\r' || *a == '\n') ? ' ' : *a;
		if (x != *b)
			return 0;
	}
	return *a == *b;
}

static void check_round_trip(const struct fslab_result_row *row)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row back;
	char *text = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	FUZZ_CHECK(f != NULL);
	/* a row read from a CSV with the optional groups carries them */
	FUZZ_CHECK(fslab_results_write_header_ex(f, (row->queue ? FSLAB_RESULTS_COLS_QUEUE : 0) |
							  (row->latency ? FSLAB_RESULTS_COLS_LATENCY : 0) |
							  (row->device ? FSLAB_RESULTS_COLS_DEVICE : 0)) == 0);
	FUZZ_CHECK(fslab_results_write_row(f, row) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	if (fslab_results_open(fuzz_file(1, text, len), &rd, &fe) != 0 ||
	    fslab_results_next(rd, &back, &fe) != 1) {
		fprintf(stderr, "written row does not read back: %s\n--- written:\n%s", fe.msg, text);
		abort();
	}
	FUZZ_CHECK(strcmp(back.filesystem, row->filesystem) == 0);
	FUZZ_CHECK(back.test == row->test);
	FUZZ_CHECK(back.file_kib == row->file_kib && back.record_kib == row->record_kib);
	FUZZ_CHECK(back.trial == row->trial);
	FUZZ_CHECK(fabs(back.throughput_kib_s - row->throughput_kib_s) <=
		   0.5 + 1e-12 * row->throughput_kib_s);
	FUZZ_CHECK(back.cache == row->cache);
	FUZZ_CHECK(same_text(row->status, back.status));
	FUZZ_CHECK(same_text(row->flag, back.flag));
	FUZZ_CHECK(fslab_results_next(rd, &back, &fe) == 0);
	fslab_results_close(rd);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fslab_results_reader *rd = NULL;
	struct fslab_result_row row;
	struct fslab_err fe = FSLAB_ERR_INIT;
	const char *path = fuzz_file(0, data, size);
	int r, rows = 0;

	fe.msg[0] = '\0';
	r = fslab_results_open(path, &rd, &fe);
	if (r < 0) {
		FUZZ_CHECK(strncmp(fe.msg, path, strlen(path)) == 0);
		return 0;
	}
	FUZZ_CHECK(r == 0 && rd != NULL);
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		check_row(&row);
		if (rows++ < 4)
			check_round_trip(&row);
		if (rows > 100000)
			break;
	}
	if (r < 0)
		FUZZ_CHECK(strncmp(fe.msg, path, strlen(path)) == 0);
	fslab_results_close(rd);
	return 0;
}
