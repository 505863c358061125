#include "cell_plan.h"
#include "spec.h"
#include "size.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* CrystalDiskMark 8's rows, in the order it shows them: its default
 * profile and its NVMe SSD profile.  Each row is a read and a write test:
 * sequential (queued_read, queued_write) or random (queued_random_*). */
static const struct plan_named_row {
	enum fslab_preset preset;
	bool random;
	uint64_t record;
	unsigned iodepth, jobs;
} named_rows[] = {
	{ FSLAB_PRESET_CDM, false, 1024 * 1024, 8, 1 },      /* SEQ1M Q8T1 */
	{ FSLAB_PRESET_CDM, false, 1024 * 1024, 1, 1 },      /* SEQ1M Q1T1 */
	{ FSLAB_PRESET_CDM, true, 4 * 1024, 32, 1 },         /* RND4K Q32T1 */
	{ FSLAB_PRESET_CDM, true, 4 * 1024, 1, 1 },          /* RND4K Q1T1 */
	{ FSLAB_PRESET_CDM_NVME, false, 1024 * 1024, 8, 1 }, /* SEQ1M Q8T1 */
	{ FSLAB_PRESET_CDM_NVME, false, 128 * 1024, 32, 1 }, /* SEQ128K Q32T1 */
	{ FSLAB_PRESET_CDM_NVME, true, 4 * 1024, 32, 16 },   /* RND4K Q32T16 */
	{ FSLAB_PRESET_CDM_NVME, true, 4 * 1024, 1, 1 },     /* RND4K Q1T1 */
};
#define N_NAMED_ROWS (sizeof(named_rows) / sizeof(named_rows[0]))

#define SEQ_TESTS ((1u << FSLAB_TEST_QUEUED_WRITE) | (1u << FSLAB_TEST_QUEUED_READ))
#define RND_TESTS ((1u << FSLAB_TEST_QUEUED_RANDOM_WRITE) | (1u << FSLAB_TEST_QUEUED_RANDOM_READ))

bool fslab_preset_named_rows(enum fslab_preset p)
{
	return p == FSLAB_PRESET_CDM || p == FSLAB_PRESET_CDM_NVME;
}

void fslab_sweep_preset_values(enum fslab_preset p, struct fslab_sweep_spec *s)
{
	fslab_sweep_defaults(s); /* the seed preset */
	if (fslab_preset_named_rows(p)) {
		/* both presets' rows: RND4K up to SEQ1M */
		s->named_rows = p;
		s->file_min = s->file_max = FSLAB_CDM_FILE_DEFAULT;
		s->record_min = 4 * 1024;
		s->record_max = 1024 * 1024;
		s->tests = SEQ_TESTS | RND_TESTS;
		s->trials = FSLAB_CDM_TRIALS;
		s->cache = FSLAB_CACHE_COLD;
		s->pass_s = FSLAB_CDM_PASS_S;
		return;
	}
	if (p == FSLAB_PRESET_QUICK)
		s->file_max = 64 * FSLAB_MiB;
	if (p == FSLAB_PRESET_LAB) {
		s->cache = FSLAB_CACHE_COLD;
		s->trials = FSLAB_DEFAULT_MIN_TRIALS;
		s->coarse = true;
	}
}

static bool plan_keep(const struct fslab_sweep_spec *s, uint64_t file, uint64_t rec)
{
	if (file % rec) /* above the file, or not dividing it */
		return false;
	/* the lab's coarse records: 4K, 64K, 1M, 16M (every 16th); 1M alone
	 * on a large file */
	if (s->coarse)
		return file >= FSLAB_PLAN_LARGE_FILE ? rec == FSLAB_MiB : __builtin_ctzll(rec) % 4 == 0;
	return true;
}

/* The next size of an axis: its list's next, else doubling up to max:
 * false at the end (or on a wrap: a max near 2^64, read from a damaged
 * manifest, must end the walk, not spin on a value that overflowed to 0). */
static bool plan_next(const uint64_t *list, uint64_t *v, uint64_t max)
{
	for (size_t i = 0; list[0] && i < FSLAB_SIZE_LIST_MAX && list[i]; i++)
		if (list[i] > *v)
			return *v = list[i], true;
	if (list[0] || *v > max / 2)
		return false;
	*v *= 2;
	return true;
}

/* The largest record of file f's row of the grid; 0 when the row has
 * none. */
static uint64_t plan_row_last_record(const struct fslab_sweep_spec *s, uint64_t f)
{
	uint64_t r = s->record_min, last = 0;

	do {
		if (plan_keep(s, f, r))
			last = r;
	} while (plan_next(s->records, &r, s->record_max));
	return last;
}

/* The tests of the grid's cell (f, r): the sweep's, where the many-files
 * tests have one cell per file size up to FSLAB_FILES_SIZE_MAX, its row's
 * largest record, a coarse grid's large files no stdio test, and IOzone's
 * auto-mode rule drops its 13 tests (only) from small records on large
 * files. */
static unsigned plan_grid_tests(const struct fslab_sweep_spec *s, uint64_t f, uint64_t r)
{
	unsigned t = s->tests & ~(s->coarse && f >= FSLAB_PLAN_LARGE_FILE ? FSLAB_TESTS_STDIO : 0);

	if (!s->keep_small_records && f > FSLAB_SMALL_RECORD_FILE && r < FSLAB_SMALL_RECORD_LIMIT)
		t &= ~FSLAB_TESTS_IOZONE;

	if (f <= FSLAB_FILES_SIZE_MAX && r == plan_row_last_record(s, f))
		return t;
	return t & ~FSLAB_TESTS_FILES;
}

/* Puts a cell of tests (none: no cell) at cells[n] (when not NULL);
 * returns the cells' number after it. */
static size_t plan_put(const struct fslab_sweep_spec *s, struct fslab_sweep_cell *cells, size_t n, uint64_t f,
		       uint64_t r, unsigned tests, unsigned depth)
{
	if (cells && tests)
		cells[n] = (struct fslab_sweep_cell){ .file_bytes = f, .record_bytes = r, .iodepth = depth,
						      .jobs = s->jobs, .tests = tests == s->tests ? 0 : tests };
	return n + (tests != 0);
}

/* Walks the grid in plan order; stores the cells in cells (when not NULL)
 * and returns how many there are.  A cell left with no test (only
 * many-files or stdio tests asked for, and not their cell) is no cell;
 * with a list of depths, the queued tests have a cell per depth. */
static size_t plan_walk(const struct fslab_sweep_spec *s, struct fslab_sweep_cell *cells)
{
	size_t n = 0;
	uint64_t f = s->file_min;

	do {
		uint64_t r = s->record_min;

		do {
			unsigned tests = plan_grid_tests(s, f, r), q = s->depths[0] ? tests & FSLAB_TESTS_QUEUED : 0;

			if (!plan_keep(s, f, r))
				continue;
			n = plan_put(s, cells, n, f, r, tests & ~q, s->iodepth);
			for (size_t i = 0; q && i < FSLAB_SIZE_LIST_MAX && s->depths[i]; i++)
				n = plan_put(s, cells, n, f, r, q, s->depths[i]);
		} while (plan_next(s->records, &r, s->record_max));
	} while (plan_next(s->files, &f, s->file_max));
	return n;
}

/* The named rows of s's preset in plan order (into cells when not NULL);
 * returns how many there are. */
static size_t plan_rows(const struct fslab_sweep_spec *s, struct fslab_sweep_cell *cells)
{
	size_t n = 0;

	for (size_t i = 0; i < N_NAMED_ROWS; i++) {
		const struct plan_named_row *r = &named_rows[i];

		if (r->preset != s->named_rows || !(s->tests & (r->random ? RND_TESTS : SEQ_TESTS)))
			continue;
		if (cells)
			cells[n] = (struct fslab_sweep_cell){
				.file_bytes = s->file_max,
				.record_bytes = r->record,
				.iodepth = r->iodepth,
				.jobs = r->jobs,
				.pass_s = s->pass_s ? s->pass_s : FSLAB_CDM_PASS_S,
				.tests = r->random ? RND_TESTS : SEQ_TESTS,
			};
		n++;
	}
	return n;
}

uint64_t fslab_plan_test_count(const struct fslab_plan *p, unsigned tests)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += (uint64_t)__builtin_popcount(fslab_plan_cell_tests(&p->cells[i], tests));
	return n;
}

size_t fslab_plan_find(const struct fslab_plan *p, enum fslab_test t, uint64_t file_kib,
		       uint64_t record_kib, unsigned iodepth, unsigned jobs)
{
	bool queued = fslab_test_family(t) == FSLAB_FAMILY_QUEUED;

	for (size_t i = 0; i < p->n; i++) {
		const struct fslab_sweep_cell *c = &p->cells[i];
		unsigned d = queued && c->iodepth ? c->iodepth : 1, j = queued && c->jobs ? c->jobs : 1;

		if (c->file_bytes / 1024 == file_kib && c->record_bytes / 1024 == record_kib &&
		    (iodepth ? iodepth : 1) == d && (jobs ? jobs : 1) == j &&
		    (!c->tests || (c->tests & (1u << t))))
			return i;
	}
	return p->n;
}

int fslab_plan_build(const struct fslab_sweep_spec *s, struct fslab_plan *p)
{
	const bool rows = fslab_preset_named_rows(s->named_rows);
	size_t (*walk)(const struct fslab_sweep_spec *, struct fslab_sweep_cell *) =
		rows ? plan_rows : plan_walk;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (rows ? !s->file_max
		 : !s->file_min || !s->record_min || s->file_min > s->file_max || s->record_min > s->record_max)
		return -EINVAL;
	n = walk(s, NULL);
	if (n == 0)
		return -EINVAL;
	p->cells = calloc(n, sizeof(*p->cells));
	if (!p->cells)
		return -ENOMEM;
	p->n = walk(s, p->cells);
	return 0;
}

void fslab_plan_free(struct fslab_plan *p)
{
	free(p->cells);
	memset(p, 0, sizeof(*p));
}
