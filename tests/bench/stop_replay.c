/* stop_replay RESULTS_DIR MIN MAX FS...: fslab run's decided rule replayed
 * on the rows a finished run recorded (RESULTS_DIR/<FS>.csv), with the
 * minimum and the cap given: trial by trial, the rule's own code
 * (run_stop.c, on a sweep context that holds only what it reads) judges
 * the tests and says which would run next; a row is taken only if the run
 * measured it.  It prints per filesystem the timed seconds the replay's
 * rows took against the run's, and the stopping record's summary, so a
 * rule or a cap can be weighed on one real run without running it again
 * (scripts/bench-stop-replay.sh).  Replaying a rule that stops no later
 * than the run did is exact; a test the replay wants beyond the run's
 * last trial of it is counted "short" (its figures are a lower bound). */
#include "run_int.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rr_row {
	uint64_t file_kib, record_kib;
	size_t cell; /* in the plan, once it is sorted */
	int test;
	unsigned trial;
	enum fslab_row_use use;
	double tp, elapsed;
};

struct rr_fs {
	struct rr_row *rows;
	size_t n, cap;
	double recorded_s, replay_s;
};

static size_t rr_cell(struct fslab_plan *plan, size_t *cap, uint64_t file_kib, uint64_t record_kib)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->cells[i].file_bytes == file_kib * 1024 && plan->cells[i].record_bytes == record_kib * 1024)
			return i;
	if (plan->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		plan->cells = realloc(plan->cells, *cap * sizeof(*plan->cells));
		if (!plan->cells) {
			fprintf(stderr, "stop_replay: out of memory\n");
			exit(1);
		}
	}
	plan->cells[plan->n] = (struct fslab_sweep_cell){ .file_bytes = file_kib * 1024,
							 .record_bytes = record_kib * 1024 };
	return plan->n++;
}

/* The plan's order (file size ascending, then record). */
static int rr_cmp_cell(const void *a, const void *b)
{
	const struct fslab_sweep_cell *x = a, *y = b;

	if (x->file_bytes != y->file_bytes)
		return x->file_bytes < y->file_bytes ? -1 : 1;
	return (x->record_bytes > y->record_bytes) - (x->record_bytes < y->record_bytes);
}

static void rr_load(const char *dir, const char *name, struct rr_fs *fs, struct fslab_plan *plan,
		    size_t *cells_cap, unsigned *tests)
{
	char path[4096];
	struct fslab_err fe = FSLAB_ERR_INIT;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	int r;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
	if (fslab_results_open(path, &rd, &fe) < 0) {
		fprintf(stderr, "stop_replay: %s\n", fe.msg);
		exit(1);
	}
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		if (fs->n == fs->cap) {
			fs->cap = fs->cap ? 2 * fs->cap : 1024;
			fs->rows = realloc(fs->rows, fs->cap * sizeof(*fs->rows));
			if (!fs->rows) {
				fprintf(stderr, "stop_replay: out of memory\n");
				exit(1);
			}
		}
		rr_cell(plan, cells_cap, row.file_kib, row.record_kib);
		fs->rows[fs->n++] = (struct rr_row){
			.file_kib = row.file_kib,
			.record_kib = row.record_kib,
			.test = row.test,
			.trial = row.trial,
			.use = fslab_result_use(&row),
			.tp = row.throughput_kib_s,
			.elapsed = row.elapsed_s > 0 ? row.elapsed_s : 0,
		};
		fs->recorded_s += row.elapsed_s > 0 ? row.elapsed_s : 0;
		*tests |= 1u << row.test;
	}
	fslab_results_close(rd);
	if (r < 0) {
		fprintf(stderr, "stop_replay: %s\n", fe.msg);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static struct fslab_run_ctx c;
	static struct rr_fs fs[FSLAB_MAX_FS];
	static struct fslab_bench_fs bfs[FSLAB_MAX_FS]; /* none FUSE */
	static struct run_fs_state fst[FSLAB_MAX_FS];
	struct fslab_plan plan = { 0 };
	size_t cells_cap = 0, n_fs = (size_t)argc - 4, wanted = 0, short_rows = 0;
	unsigned tests = 0, lo, hi;

	if (argc < 6 || argc - 4 > FSLAB_MAX_FS || sscanf(argv[2], "%u", &lo) != 1 ||
	    sscanf(argv[3], "%u", &hi) != 1 || lo < 2 || hi < lo || hi > FSLAB_TRIALS_MAX) {
		fprintf(stderr, "usage: stop_replay RESULTS_DIR MIN_TRIALS MAX_TRIALS FS FS...\n"
				"(2 <= MIN <= MAX, 2 to %d filesystems: the names of RESULTS_DIR's CSVs)\n",
			FSLAB_MAX_FS);
		return 2;
	}
	for (size_t f = 0; f < n_fs; f++)
		rr_load(argv[1], argv[4 + f], &fs[f], &plan, &cells_cap, &tests);
	qsort(plan.cells, plan.n, sizeof(*plan.cells), rr_cmp_cell);
	for (size_t f = 0; f < n_fs; f++)
		for (size_t k = 0; k < fs[f].n; k++)
			fs[f].rows[k].cell = fslab_plan_find(&plan, FSLAB_TEST_WRITE, fs[f].rows[k].file_kib,
							       fs[f].rows[k].record_kib, 1, 1);
	c.cfg.stop_rule = FSLAB_STOP_RULE_DECIDED;
	c.cfg.sweep.tests = tests;
	c.cfg.sweep.trials = lo;
	c.cfg.max_trials = hi;
	c.n_fs = n_fs;
	c.fs = bfs;
	if (run_stop_begin(&c, &plan) < 0)
		return 1;
	/* the run's last trial of each test of each cell, and whether the
	 * replay wanted one past it */
	unsigned *last = calloc(plan.n * FSLAB_TEST_MAX, sizeof(*last));
	bool *past = calloc(plan.n * FSLAB_TEST_MAX, sizeof(*past));
	if (!last || !past)
		return 1;
	for (size_t f = 0; f < n_fs; f++)
		for (size_t k = 0; k < fs[f].n; k++) {
			unsigned *l = &last[fs[f].rows[k].cell * FSLAB_TEST_MAX + fs[f].rows[k].test];

			if (fs[f].rows[k].trial > *l)
				*l = fs[f].rows[k].trial;
		}
	for (unsigned trial = 1; trial <= hi; trial++) {
		run_stop_update(&c, fst, trial - 1, false);
		for (size_t i = 0; i < plan.n; i++) {
			unsigned mask = trial > lo ? run_stop_mask(&c, i) : tests;

			for (int t = 0; t < FSLAB_TEST_MAX; t++)
				if ((mask & (1u << t)) && trial > last[i * FSLAB_TEST_MAX + t])
					past[i * FSLAB_TEST_MAX + t] = true;
		}
		for (size_t f = 0; f < n_fs; f++)
			for (size_t k = 0; k < fs[f].n; k++) {
				const struct rr_row *w = &fs[f].rows[k];
				const struct fslab_sweep_cell *cell = &plan.cells[w->cell];

				if (w->trial != trial ||
				    (trial > lo && !(run_stop_mask(&c, w->cell) & (1u << w->test))))
					continue;
				fslab_done_add(&fst[f].done,
					       &(struct fslab_cell_key){ .test = (enum fslab_test)w->test,
									 .file_kib = cell->file_bytes / 1024,
									 .record_kib = cell->record_bytes / 1024,
									 .iodepth = 1, .jobs = 1, .trial = trial },
					       w->use, w->tp);
				fs[f].replay_s += w->elapsed;
			}
	}
	run_stop_update(&c, fst, hi, true);
	for (size_t i = 0; i < plan.n; i++)
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			if (tests & (1u << t)) {
				wanted++;
				short_rows += past[i * FSLAB_TEST_MAX + t];
			}
	free(last);
	free(past);

	unsigned why[FSLAB_STOP_WHY_MAX] = { 0 }, comparisons = 0, decided = 0, undecidable = 0;
	double trials = 0;
	for (size_t i = 0; i < plan.n * FSLAB_TEST_MAX; i++) {
		const struct fslab_stop_record *rec = &c.stops[i];

		if (!(tests & (1u << (i % FSLAB_TEST_MAX))))
			continue;
		why[rec->why]++;
		comparisons += rec->pairs;
		decided += rec->decided;
		undecidable += rec->undecidable;
		trials += rec->trials;
	}
	printf("replay of %s, trials %u..%u: %zu cells x %d tests\n", argv[1], lo, hi, plan.n,
	       __builtin_popcount(tests));
	for (size_t f = 0; f < n_fs; f++)
		printf("  %-12s timed %8.1f s of the run's %8.1f s (%.0f%%)\n", argv[4 + f], fs[f].replay_s,
		       fs[f].recorded_s, fs[f].recorded_s > 0 ? 100 * fs[f].replay_s / fs[f].recorded_s : 0);
	printf("tests of cells: %zu; decided %u, undecidable %u, max_trials %u, no_data %u, short %zu\n",
	       wanted, why[FSLAB_STOP_DECIDED], why[FSLAB_STOP_UNDECIDABLE], why[FSLAB_STOP_MAX_TRIALS],
	       why[FSLAB_STOP_NO_DATA], short_rows);
	printf("comparisons decided: %u of %u, undecidable (futility) %u; trials per test of a cell %.2f\n",
	       decided, comparisons, undecidable, wanted ? trials / (double)wanted : 0);
	run_stop_end(&c);
	for (size_t f = 0; f < n_fs; f++) {
		fslab_done_free(&fst[f].done);
		free(fs[f].rows);
	}
	free(plan.cells);
	return 0;
}
