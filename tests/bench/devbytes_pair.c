/* Does counting the device's bytes move the timed figures?  Runs one
 * cell of IOzone's 13 tests on DIR ROUNDS times with the partition's
 * counters (STAT: /sys/class/block/PART/stat) and ROUNDS times without,
 * in pairs, who goes first alternating, and prints per test the median of
 * the pairs' on/off throughput ratios and their range.  A tool, not a
 * test:
 *
 *   devbytes_pair DIR STAT ROUNDS FILE_KIB RECORD_KIB warm|cold */
#include "engine/engine.h"
#include "stats.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS_MAX 64

/* The untimed I/O seconds of every cell, with counters [1] and without [0]. */
static double untimed[2];

static int run(int dfd, const char *stat, uint64_t file, uint64_t rec, enum fslab_cache_mode cache,
	       struct fslab_cache_ctl *ctl, struct fslab_bench_buffers *b, double kib_s[FSLAB_TEST_MAX])
{
	struct fslab_test_outcome out[FSLAB_TEST_MAX];
	struct fslab_cell_times times;
	const struct fslab_sweep_spec sweep = { .cache = cache };
	struct fslab_cell cell = {
		.dir_fd = dfd, .name = "pairfile", .file_bytes = file, .record_bytes = rec,
		.tests = FSLAB_TESTS_IOZONE, .sweep = &sweep, .ops = &fslab_io_posix,
		.drop_cache = fslab_cache_drop, .drop_ctx = ctl, .dev_stat = stat,
	};
	int r = fslab_cell_run(&cell, b, out, &times);

	untimed[stat != NULL] += times.untimed_io_s;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		kib_s[t] = out[t].status == FSLAB_OUTCOME_OK ? out[t].throughput_kib_s : 0;
	return r;
}

int main(int argc, char **argv)
{
	static double on[ROUNDS_MAX][FSLAB_TEST_MAX], off[ROUNDS_MAX][FSLAB_TEST_MAX];
	struct fslab_bench_buffers b;
	struct fslab_cache_ctl ctl;
	int dfd, rounds;
	uint64_t file, rec;
	enum fslab_cache_mode cache;

	if (argc != 7 || (rounds = atoi(argv[3])) < 1 || rounds > ROUNDS_MAX) {
		fprintf(stderr, "usage: devbytes_pair DIR STAT ROUNDS(1-%d) FILE_KIB RECORD_KIB warm|cold\n",
			ROUNDS_MAX);
		return 2;
	}
	file = strtoull(argv[4], NULL, 10) * 1024;
	rec = strtoull(argv[5], NULL, 10) * 1024;
	cache = strcmp(argv[6], "cold") == 0 ? FSLAB_CACHE_COLD : FSLAB_CACHE_WARM;
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !rec || file < rec || fslab_bench_buffers_alloc(&b, rec) < 0) {
		perror(argv[1]);
		return 1;
	}
	fslab_cache_ctl_init(&ctl, NULL, NULL);
	for (int k = 0; k < rounds; k++)
		for (int side = 0; side < 2; side++) {
			bool with = (side == 0) == (k % 2 == 0);

			if (run(dfd, with ? argv[2] : NULL, file, rec, cache, &ctl, &b, with ? on[k] : off[k]) < 0)
				return 1;
		}
	printf("%-16s %10s %10s %8s %8s %8s\n", "test", "on KiB/s", "off KiB/s", "on/off", "lo", "hi");
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		double ratio[ROUNDS_MAX], a[ROUNDS_MAX], o[ROUNDS_MAX], lo = 1e9, hi = 0;

		if (!(FSLAB_TESTS_IOZONE & (1u << t)))
			continue;
		for (int k = 0; k < rounds; k++) {
			a[k] = on[k][t];
			o[k] = off[k][t];
			ratio[k] = o[k] > 0 ? a[k] / o[k] : 0;
			lo = ratio[k] < lo ? ratio[k] : lo;
			hi = ratio[k] > hi ? ratio[k] : hi;
		}
		printf("%-16s %10.0f %10.0f %8.3f %8.3f %8.3f\n", fslab_test_to_string((enum fslab_test)t),
		       fslab_median_sort(a, (size_t)rounds), fslab_median_sort(o, (size_t)rounds),
		       fslab_median_sort(ratio, (size_t)rounds), lo, hi);
	}
	printf("untimed I/O a cell: %.4f s with counters, %.4f s without\n", untimed[1] / rounds,
	       untimed[0] / rounds);
	fslab_bench_buffers_free(&b);
	close(dfd);
	return 0;
}
