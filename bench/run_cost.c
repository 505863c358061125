/* What a plan costs (bytes, free space, time) and fslab run --dry-run,
 * which prints it without running anything.
 *
 * The cost model has its one home here: what one test of a cell costs on
 * a device (its bytes at the probed rate, a price per call, a price per
 * small I/O that reaches the device, a fixed part per test), used by
 * --dry-run, by the estimate printed when the run starts, by the steady-
 * state phase's estimate (run_steady.c), by fslab reproduce
 * (fslab_run_estimate) and, until cells are measured, by the live ETA.
 * The live ETA (struct run_eta) re-fits it from the cells measured so far:
 * a cell measured before costs what it took (its mean), one not measured
 * yet costs the seconds per test, per byte and per call fitted (least
 * squares, none negative) over the same filesystem's measured cells of
 * the same test. */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "size.h"
#include "steady.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* A buffered read or write call, beyond its bytes. */
#define COST_CALL_S 2e-6
#define COST_DEVICE_OP_S RUN_COST_DEVICE_OP_S
/* A test's fixed part: open, create, close. */
#define COST_TEST_S 3e-3
/* A flush: fsync mode's fsync, cold mode's cache drop, the sync before a
 * cell (charged to the test that writes the file). */
#define COST_FLUSH_S 20e-3

/* Does test t's every record reach the device as its own I/O? */
static bool cost_per_op_device(enum fslab_cache_mode cache, enum fslab_test t)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);

	if (bt->flags & FSLAB_BT_QUEUED)
		return cache != FSLAB_CACHE_WARM; /* O_DIRECT but in warm mode */
	if (cache == FSLAB_CACHE_DIRECT)
		return !(bt->flags & FSLAB_BT_STDIO); /* stdio tests run buffered */
	/* a dropped file read out of order: no readahead to hide the device */
	return cache == FSLAB_CACHE_COLD &&
	       (t == FSLAB_TEST_RANDOM_READ || t == FSLAB_TEST_BACKWARD_READ || t == FSLAB_TEST_STRIDE_READ);
}

/* A file a many-files create makes or an unlink removes: its metadata
 * (inode, directory entry, journal), beyond the calls' own cost. */
#define COST_FILE_META_S 50e-6

/* A many-files test: the files' bytes at the rate, their records' calls,
 * an open and a close (or one call) per file; a create's or unlink's
 * metadata per file, and a create's flush of each file as two device
 * requests, its data and the journal's commit (--file-sync's default; the
 * live ETA re-fits what none or fdatasync cost); a cold or direct read's
 * first request of each file at the device (no readahead crosses files);
 * cold mode's drop of the tree, per file an open, fsync, fadvise and
 * mincore check (about half a device request, measured on ext4). */
static double cost_files_test_s(double rate, enum fslab_cache_mode cache, enum fslab_test t,
				uint64_t file_bytes, uint64_t record_bytes)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	const double n = (double)fslab_files_count(file_bytes);
	const bool device_reads = cache == FSLAB_CACHE_COLD || cache == FSLAB_CACHE_DIRECT;
	double s = COST_TEST_S, per_file = 2 * COST_CALL_S;

	if (!(bt->flags & FSLAB_BT_METADATA)) {
		s += n * (double)file_bytes / 1024.0 / rate;
		per_file += (double)(file_bytes / record_bytes) *
			    (cache == FSLAB_CACHE_DIRECT ? COST_DEVICE_OP_S : COST_CALL_S);
	}
	if (t == FSLAB_TEST_FILES_CREATE)
		per_file += COST_FILE_META_S + 2 * COST_DEVICE_OP_S;
	if (t == FSLAB_TEST_FILES_UNLINK)
		per_file += COST_FILE_META_S;
	if (t == FSLAB_TEST_FILES_READ && device_reads)
		per_file += COST_DEVICE_OP_S / 2;
	if (t == FSLAB_TEST_FILES_READ && cache == FSLAB_CACHE_COLD)
		s += COST_FLUSH_S + n * COST_DEVICE_OP_S / 2;
	return s + n * per_file;
}

double run_cost_test_s(double write_kib_s, double read_kib_s, enum fslab_cache_mode cache,
		       enum fslab_test t, uint64_t file_bytes, uint64_t record_bytes, unsigned inflight)
{
	const struct fslab_bench_test *bt = fslab_bench_test_get(t);
	bool writes = bt->flags & FSLAB_BT_WRITES;
	double rate = writes ? write_kib_s : read_kib_s;
	double ops = record_bytes ? (double)(file_bytes / record_bytes) : 0;
	double s = COST_TEST_S;

	if (!(rate > 0))
		return -1;
	if ((bt->flags & FSLAB_BT_FILES) && record_bytes)
		return cost_files_test_s(rate, cache, t, file_bytes, record_bytes);
	s += (double)file_bytes / 1024.0 / rate;
	/* a queued test's requests reach the device inflight at a time */
	s += ops * (cost_per_op_device(cache, t) ? COST_DEVICE_OP_S / (inflight ? inflight : 1) : COST_CALL_S);
	if ((cache == FSLAB_CACHE_FSYNC && writes) || (cache == FSLAB_CACHE_COLD && !writes) ||
	    (bt->flags & FSLAB_BT_CREATES))
		s += COST_FLUSH_S;
	return s;
}

double run_cost_direct_s(double kib_s, uint64_t bytes, uint64_t record_bytes)
{
	if (!(kib_s > 0) || !record_bytes)
		return -1;
	return (double)bytes / 1024.0 / kib_s + (double)(bytes / record_bytes) * COST_DEVICE_OP_S;
}

/* One filesystem's device probe: FSLAB_PROBE_RUNS O_DIRECT writes and
 * reads of its file (bench/probe.c); 0 when the run skips it. */
static double cost_probe_s(const struct fslab_run_ctx *c, double write_kib_s, double read_kib_s)
{
	uint64_t bytes = c->cfg.probe_bytes ? c->cfg.probe_bytes : FSLAB_PROBE_DEFAULT_BYTES;

	if (c->cfg.no_device_probe)
		return 0;
	return FSLAB_PROBE_RUNS * (run_cost_direct_s(write_kib_s, bytes, FSLAB_PROBE_RECORD) +
				   run_cost_direct_s(read_kib_s, bytes, FSLAB_PROBE_RECORD));
}

/* Bytes one trial of plan moves on one filesystem: every test of every
 * cell reads or writes the whole file once (a pass of a fixed length, at
 * least once: it moves what the device does in that time); a many-files
 * create or read every file of its tree, a stat or unlink no data. */
static uint64_t cost_plan_bytes(const struct fslab_plan *plan, unsigned tests)
{
	uint64_t b = 0;

	for (size_t i = 0; i < plan->n; i++) {
		unsigned ct = fslab_plan_cell_tests(&plan->cells[i], tests);
		uint64_t f = plan->cells[i].file_bytes;

		b += f * (uint64_t)__builtin_popcount(ct & ~FSLAB_TESTS_FILES);
		for (int t = FSLAB_TEST_FILES_CREATE; t <= FSLAB_TEST_FILES_UNLINK; t++)
			if ((ct & (1u << t)) && !(fslab_bench_test_get((enum fslab_test)t)->flags & FSLAB_BT_METADATA))
				b += fslab_files_count(f) * f;
	}
	return b;
}

/* Requests a test of cell keeps in flight: a queued test's depth x
 * threads, 1 for the others. */
static unsigned cost_inflight(const struct fslab_sweep_cell *cell, enum fslab_test t)
{
	if (!(fslab_bench_test_get(t)->flags & FSLAB_BT_QUEUED))
		return 1;
	return (cell->iodepth ? cell->iodepth : 1) * (cell->jobs ? cell->jobs : 1);
}

/* A test of a named row (CrystalDiskMark's): its pass of a fixed length,
 * the test's fixed part, and a read's cache flush; the row's file, written
 * before its first test, at the write rate. */
static double cost_pass_test_s(const struct fslab_sweep_cell *cell, enum fslab_test t, bool first,
			       double write_kib_s)
{
	bool writes = fslab_bench_test_get(t)->flags & FSLAB_BT_WRITES;
	double s = cell->pass_s + COST_TEST_S + (writes ? 0 : COST_FLUSH_S);

	if (!(write_kib_s > 0))
		return -1;
	if (first)
		s += (double)cell->file_bytes / 1024.0 / write_kib_s;
	return s;
}

/* --pass-gap's pause before every pass, in seconds. */
static double cost_gap_s(const struct fslab_run_ctx *c)
{
	return c->cfg.pass_gap_ms / 1000.0;
}

/* The discarded warm-up of a plan of named rows on one filesystem: one
 * pass of each row's tests (FSLAB_CDM_WARMUP_PASSES each), each after its
 * --pass-gap; 0 for a grid. */
static double cost_plan_warmup_s(const struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	double s = 0;

	for (size_t i = 0; i < plan->n; i++)
		if (plan->cells[i].pass_s > 0)
			s += FSLAB_CDM_WARMUP_PASSES * (plan->cells[i].pass_s + cost_gap_s(c)) *
			     __builtin_popcount(fslab_plan_cell_tests(&plan->cells[i], c->cfg.sweep.tests));
	return s;
}

/* Seconds one trial of the plan should take at these rates, by the model;
 * negative without a rate. */
static double cost_plan_trial_s(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
				double write_kib_s, double read_kib_s)
{
	double s = 0;

	for (size_t i = 0; i < plan->n; i++) {
		unsigned tests = fslab_plan_cell_tests(&plan->cells[i], c->cfg.sweep.tests);
		bool first = true;

		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			double e;

			if (!(tests & (1u << t)))
				continue;
			if (plan->cells[i].pass_s > 0)
				e = cost_pass_test_s(&plan->cells[i], (enum fslab_test)t, first, write_kib_s);
			else
				e = run_cost_test_s(write_kib_s, read_kib_s, c->cfg.sweep.cache, (enum fslab_test)t,
						    plan->cells[i].file_bytes, plan->cells[i].record_bytes,
						    cost_inflight(&plan->cells[i], (enum fslab_test)t));
			first = false;
			if (e < 0)
				return -1;
			s += e + cost_gap_s(c);
		}
	}
	return s;
}

/* ... on fs, from its device probe. */
static double run_plan_estimate_s(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
				  const struct fslab_bench_fs *fs)
{
	return cost_plan_trial_s(c, plan, fs->probe.write_kib_s, fs->probe.read_kib_s);
}

int fslab_run_estimate(const struct fslab_run_opts *o, size_t n_fs, double write_kib_s,
		       double read_kib_s, double *lo_s, double *hi_s)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_plan plan = { 0 };
	double trial, probes;
	int r = -ENOMEM;

	if (!c)
		return r;
	r = run_settings(c, o) < 0 ? -EINVAL : fslab_plan_build(&c->cfg.sweep, &plan);
	if (r < 0)
		goto out;
	trial = cost_plan_trial_s(c, &plan, write_kib_s, read_kib_s) * (double)n_fs;
	if (trial < 0) {
		r = -EINVAL;
		goto out;
	}
	/* beyond the trials: the probe (when run) and a named rows plan's warm-up */
	probes = (cost_probe_s(c, write_kib_s, read_kib_s) + cost_plan_warmup_s(c, &plan)) * (double)n_fs;
	*lo_s = probes + trial * c->cfg.sweep.trials;
	*hi_s = probes + trial * (c->cfg.max_trials > c->cfg.sweep.trials ? c->cfg.max_trials : c->cfg.sweep.trials);
out:
	fslab_plan_free(&plan);
	run_ctx_free(c);
	return r;
}

/* The room the plan's files take at once on a filesystem: its largest
 * file, or the largest tree of the many-files tests when that is larger. */
static uint64_t run_plan_files_largest(const struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	uint64_t big = plan->cells[plan->n - 1].file_bytes;

	for (size_t i = 0; i < plan->n; i++)
		if (fslab_plan_cell_tests(&plan->cells[i], c->cfg.sweep.tests) & FSLAB_TESTS_FILES) {
			uint64_t tree = fslab_files_tree_bytes(plan->cells[i].file_bytes);
			big = tree > big ? tree : big;
		}
	return big;
}

/* ... or the probe's file when it is larger (and probed). */
static uint64_t run_plan_largest(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t big = run_plan_files_largest(c, plan);
	uint64_t pb = c->cfg.probe_bytes ? c->cfg.probe_bytes : FSLAB_PROBE_DEFAULT_BYTES;

	return probe && pb > big ? pb : big;
}

/* What sets the plan's need: the probe's file, a many-files tree or the
 * largest file. */
static const char *run_largest_what(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t files = run_plan_files_largest(c, plan);

	return run_plan_largest(c, plan, probe) > files			 ? "the device probe's file"
	       : files > plan->cells[plan->n - 1].file_bytes ? "the many-files tests' largest tree"
							     : "its largest file";
}

/* Free space fs needs for the plan: its largest file, plus an eighth and
 * 8 MiB for metadata, journal and clusters. */
static uint64_t run_plan_need(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t big = run_plan_largest(c, plan, probe);

	return big + big / 8 + 8 * FSLAB_MiB;
}

/* The estimate printed when the run starts, from the same model as
 * --dry-run: the steady-state phases still to come and every trial up to
 * the stopping rule's maximum.  Nothing when a probe gave no rate. */
void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
		  struct fslab_progress *prog)
{
	double est = 0, steady = 0;
	char d1[32], d2[40] = "", d3[32], n[16] = "";

	for (size_t i = 0; i < c->n_fs; i++) {
		double e = run_plan_estimate_s(c, plan, &c->fs[i]);
		double st = run_steady_estimate_s(c, &c->fs[i]);

		if (e < 0 || st < 0)
			return;
		est += e;
		/* a once-only part, as the steady-state phase */
		steady += st + cost_plan_warmup_s(c, plan);
	}
	if (c->cfg.max_trials > c->cfg.sweep.trials) {
		snprintf(n, sizeof(n), "..%u", c->cfg.max_trials);
		memcpy(d2, "..", 2);
		fslab_progress_format_duration(est * c->cfg.max_trials + steady, d2 + 2, sizeof(d2) - 2);
	}
	fslab_progress_note(prog, "%s: estimated time %s%s (%u%s trial(s)%s%s; from the device probes, as --dry-run; re-fitted from each cell measured)",
			    fslab_log_prefix(), fslab_progress_format_duration(est * c->cfg.sweep.trials + steady, d1, sizeof(d1)),
			    d2, c->cfg.sweep.trials, n, steady > 0 ? ", steady-state phases up to " : "",
			    steady > 0 ? fslab_progress_format_duration(steady, d3, sizeof(d3)) : "");
}

/* ---- the live ETA ---- */

/* One filesystem's measured cells of one test (or of all its tests, or of
 * everything): their wall seconds and the model's seconds for them. */
struct eta_fit {
	double wall, model;
	unsigned n;
};

struct run_eta {
	const struct fslab_run_ctx *c;
	const struct fslab_plan *plan;
	double *meas_s;     /* [(f * cells + i) * FSLAB_TEST_MAX + t]: measured seconds, summed */
	unsigned *meas_n;   /* ... and how many */
	unsigned *todo;     /* [f * cells + i]: tests this trial still runs */
	unsigned *later;    /* [f * cells + i]: tests a trial past the minimum runs */
	struct eta_fit fit[FSLAB_MAX_FS][FSLAB_TEST_MAX];
	struct eta_fit fs_all[FSLAB_MAX_FS], all; /* over the tests; over everything */
	double pass_s[FSLAB_MAX_FS]; /* overhead of the passes */
	unsigned passes[FSLAB_MAX_FS];
	bool passed[FSLAB_MAX_FS]; /* fs's pass of this trial is over */
	unsigned trial;
	double spent_s, last_update; /* the sweep's seconds so far (rows, passes) */
};

#define ETA_IDX(e, f, i) ((f) * (e)->plan->n + (i))
/* how often the progress line's range is recomputed (seconds) */
#define ETA_UPDATE_S 0.25

struct run_eta *run_eta_new(const struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	struct run_eta *e = calloc(1, sizeof(*e));
	size_t groups = c->n_fs * plan->n;

	if (!e)
		return NULL;
	e->c = c;
	e->plan = plan;
	e->meas_s = calloc(groups * FSLAB_TEST_MAX, sizeof(*e->meas_s));
	e->meas_n = calloc(groups * FSLAB_TEST_MAX, sizeof(*e->meas_n));
	e->todo = calloc(groups, sizeof(*e->todo));
	e->later = calloc(groups, sizeof(*e->later));
	if (!e->meas_s || !e->meas_n || !e->todo || !e->later) {
		run_eta_free(e);
		return NULL;
	}
	return e;
}

void run_eta_free(struct run_eta *e)
{
	if (!e)
		return;
	free(e->meas_s);
	free(e->meas_n);
	free(e->todo);
	free(e->later);
	free(e);
}

/* The model's seconds for test t of cell i on filesystem f (its probe);
 * with no probed rate, the nominal one (the fit takes over). */
static double eta_model(const struct run_eta *e, size_t f, size_t i, int t)
{
	const struct fslab_bench_fs *fs = &e->c->fs[f];
	const struct fslab_sweep_cell *cell = &e->plan->cells[i];
	double w = fs->probe.write_kib_s > 0 ? fs->probe.write_kib_s : FSLAB_RUN_NOMINAL_KIB_S;
	double r = fs->probe.read_kib_s > 0 ? fs->probe.read_kib_s : FSLAB_RUN_NOMINAL_KIB_S;

	if (cell->pass_s > 0)
		return cost_pass_test_s(cell, (enum fslab_test)t, false, w) + cost_gap_s(e->c);
	return run_cost_test_s(w, r, e->c->cfg.sweep.cache, (enum fslab_test)t, cell->file_bytes,
			       cell->record_bytes, cost_inflight(cell, (enum fslab_test)t)) +
	       cost_gap_s(e->c);
}

/* What test t of cell i on filesystem f should cost now: its own mean
 * when measured; else the model scaled as the measured cells of (f, t),
 * of f, of any filesystem ran against it. */
static double eta_pred(const struct run_eta *e, size_t f, size_t i, int t)
{
	size_t k = ETA_IDX(e, f, i) * FSLAB_TEST_MAX + (size_t)t;
	const struct eta_fit *scale[] = { &e->fit[f][t], &e->fs_all[f], &e->all };
	double m;

	if (e->meas_n[k])
		return e->meas_s[k] / e->meas_n[k];
	m = eta_model(e, f, i, t);
	for (size_t j = 0; j < sizeof(scale) / sizeof(scale[0]); j++)
		if (scale[j]->n && scale[j]->model > 0)
			return m * scale[j]->wall / scale[j]->model;
	return m;
}

void run_eta_trial(struct run_eta *e, unsigned trial, size_t f, size_t i, unsigned todo, unsigned later)
{
	e->trial = trial;
	e->todo[ETA_IDX(e, f, i)] = todo;
	e->later[ETA_IDX(e, f, i)] = later;
	e->passed[f] = false;
}

static void eta_fit_add(struct eta_fit *x, double w, double m)
{
	x->wall += w;
	x->model += m;
	x->n++;
}

void run_eta_row(struct run_eta *e, size_t f, size_t i, enum fslab_test t, double wall_s)
{
	size_t k;
	double m;

	if (!e || !(wall_s >= 0))
		return;
	k = ETA_IDX(e, f, i) * FSLAB_TEST_MAX + (size_t)t;
	m = eta_model(e, f, i, t);
	e->todo[ETA_IDX(e, f, i)] &= ~(1u << t);
	e->spent_s += wall_s;
	e->meas_s[k] += wall_s;
	e->meas_n[k]++;
	/* a cell measured again scales nothing new: first measurements only */
	if (e->meas_n[k] == 1)
		eta_fit_add(&e->fit[f][t], wall_s, m);
	eta_fit_add(&e->fs_all[f], wall_s, m);
	eta_fit_add(&e->all, wall_s, m);
}

void run_eta_pass(struct run_eta *e, size_t f, double overhead_s)
{
	if (!e)
		return;
	e->passed[f] = true;
	e->pass_s[f] += overhead_s;
	e->spent_s += overhead_s;
	e->passes[f]++;
}

/* Cost of the tests in mask of group (f, i), with cost(): plus the file
 * the engine writes untimed when the mask reads it but does not write it. */
static double eta_mask_cost(const struct run_eta *e, size_t f, size_t i, unsigned mask, bool prep,
			    double (*cost)(const struct run_eta *, size_t, size_t, int))
{
	double s = 0;

	if (!mask)
		return 0;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (mask & (1u << t))
			s += cost(e, f, i, t);
	if (prep && !(mask & (1u << FSLAB_TEST_WRITE)) && (e->c->cfg.sweep.tests & (1u << FSLAB_TEST_WRITE)))
		s += cost(e, f, i, FSLAB_TEST_WRITE);
	return s;
}

/* What is left by the fit (eta_pred): this trial's tests still to run,
 * the trials up to the minimum (certain), each with its pass's overhead,
 * in *base; the trials past them up to the cap of the tests still open
 * (the most that can come) in *open. */
static void eta_left(const struct run_eta *e, double *base, double *open)
{
	const struct fslab_run_ctx *c = e->c;
	unsigned T = e->trial ? e->trial : 1, m = c->cfg.sweep.trials, past = T > m ? T : m;
	unsigned certain = m > T ? m - T : 0, extra = c->cfg.max_trials > past ? c->cfg.max_trials - past : 0;

	*base = *open = 0;
	for (size_t f = 0; f < c->n_fs; f++) {
		double now = 0, all = 0, later_s = 0, ov = e->passes[f] ? e->pass_s[f] / e->passes[f] : 0;
		bool todo = false, later = false;

		for (size_t i = 0; i < e->plan->n; i++) {
			unsigned td = e->todo[ETA_IDX(e, f, i)], lt = e->later[ETA_IDX(e, f, i)];

			/* the untimed write only past the minimum (before it,
			 * the write test runs) */
			now += eta_mask_cost(e, f, i, td, T > m, eta_pred);
			/* a trial to come runs the cell's own tests (the
			 * many-files tests are in one cell per file size) */
			if (certain)
				all += eta_mask_cost(e, f, i, fslab_plan_cell_tests(&e->plan->cells[i], c->cfg.sweep.tests),
						     false, eta_pred);
			if (extra)
				later_s += eta_mask_cost(e, f, i, lt, true, eta_pred);
			todo |= td != 0;
			later |= lt != 0;
		}
		*base += now + certain * all + ((todo && !e->passed[f] ? 1 : 0) + certain) * ov;
		*open += extra * later_s + (later ? extra : 0) * ov;
	}
}

void run_eta_update(struct run_eta *e, struct fslab_progress *prog, bool force)
{
	double base, open, lo, mid, hi, now = fslab_now();

	if (!e || (!force && now - e->last_update < ETA_UPDATE_S))
		return;
	e->last_update = now;
	eta_left(e, &base, &open);
	/* the range up to the cap, a figure only when nothing is open; the
	 * share done: the seconds spent over those and the figure left (the
	 * range's top while there is no figure: it shows the plan's extent,
	 * never a share that then sits while the tail runs) */
	lo = base;
	hi = base + open;
	mid = open > 0 ? hi : base;
	fslab_progress_set_left(prog, lo, open == 0 ? mid : -1, hi,
				e->spent_s + mid > 0 ? e->spent_s / (e->spent_s + mid) : 1);
}

/* ---- --dry-run ---- */

/* --dry-run: a plan of named rows (CrystalDiskMark's), row by row. */
static void run_dry_print_rows(const struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	char f1[32], name[48];

	printf("rows: %s (CrystalDiskMark 8), %zu rows x their read and write tests on a file of %s, "
	       "passes of %u s, %d discarded warm-up pass of each row on each filesystem first:\n",
	       fslab_preset_to_string(c->cfg.sweep.named_rows), plan->n,
	       fslab_size_format(c->cfg.sweep.file_max, f1, sizeof(f1)), c->cfg.sweep.pass_s,
	       FSLAB_CDM_WARMUP_PASSES);
	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_sweep_cell *cell = &plan->cells[i];
		unsigned tests = fslab_plan_cell_tests(cell, c->cfg.sweep.tests);
		char list[128];

		if (!tests)
			continue;
		fslab_tests_format(tests, list, sizeof(list));
		printf("  %-14s %s\n",
		       fslab_queue_row_name((enum fslab_test)__builtin_ctz(tests),
					    cell->record_bytes / 1024, cell->iodepth, cell->jobs, name,
					    sizeof(name)),
		       list);
	}
}

/* --dry-run: what the plan is and moves. */
static void run_dry_print_plan(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	char f1[32], f2[32], r1[32], r2[32], tests[256];
	uint64_t bytes = cost_plan_bytes(plan, c->cfg.sweep.tests);

	fslab_tests_format(c->cfg.sweep.tests, tests, sizeof(tests));
	printf("fslab run --dry-run: the plan; nothing is run or written%s\n",
	       probe ? " (the device probe writes its file in a private directory and removes it)" : "");
	if (fslab_preset_named_rows(c->cfg.sweep.named_rows))
		run_dry_print_rows(c, plan);
	else
		printf("grid: files %s-%s x records %s-%s%s: %zu cells x %d tests (%s)\n",
		       fslab_size_format(c->cfg.sweep.file_min, f1, sizeof(f1)),
		       fslab_size_format(c->cfg.sweep.file_max, f2, sizeof(f2)),
		       fslab_size_format(c->cfg.sweep.record_min, r1, sizeof(r1)),
		       fslab_size_format(c->cfg.sweep.record_max, r2, sizeof(r2)),
		       c->cfg.sweep.coarse ? " (coarse, below)"
		       : c->cfg.sweep.keep_small_records ? "" : " (records < 64K skipped on files > 16M)", plan->n,
		       __builtin_popcount(c->cfg.sweep.tests), tests);
	if (c->cfg.sweep.coarse)
		printf("records (the lab preset's): %s\n", FSLAB_PLAN_COARSE_RULE);
	if (!fslab_preset_named_rows(c->cfg.sweep.named_rows) && (c->cfg.sweep.tests & FSLAB_TESTS_QUEUED))
		printf("queued tests: io_uring, %u in flight per thread, %u thread%s (--iodepth, --jobs), %s\n",
		       c->cfg.sweep.iodepth ? c->cfg.sweep.iodepth : 1, c->cfg.sweep.jobs ? c->cfg.sweep.jobs : 1,
		       c->cfg.sweep.jobs > 1 ? "s" : "", c->cfg.sweep.cache == FSLAB_CACHE_WARM ? "buffered" : "O_DIRECT");
	if (c->cfg.sweep.tests & FSLAB_TESTS_FILES)
		printf("many-files tests: files of %s-%s, %llu-%llu of them a cell (N = %s / S, %d to %d), each %s before its close (--file-sync)\n",
		       fslab_size_format(c->cfg.sweep.file_min, f1, sizeof(f1)),
		       fslab_size_format(c->cfg.sweep.file_max < FSLAB_FILES_SIZE_MAX ? c->cfg.sweep.file_max
										: FSLAB_FILES_SIZE_MAX,
					 f2, sizeof(f2)),
		       (unsigned long long)fslab_files_count(c->cfg.sweep.file_max < FSLAB_FILES_SIZE_MAX
								     ? c->cfg.sweep.file_max
								     : FSLAB_FILES_SIZE_MAX),
		       (unsigned long long)fslab_files_count(c->cfg.sweep.file_min),
		       fslab_size_format(FSLAB_FILES_PHASE_BYTES, r1, sizeof(r1)), FSLAB_FILES_MIN,
		       FSLAB_FILES_MAX, c->cfg.file_sync == FSLAB_FILE_SYNC_NONE ? "not flushed"
		       : c->cfg.file_sync == FSLAB_FILE_SYNC_FDATASYNC ? "fdatasync'ed"
								   : "fsync'ed");
	if (c->cfg.until_ci_pct > 0)
		printf("trials: %u..%u (until each test's 95%% CI is within %g%%)\n", c->cfg.sweep.trials,
		       c->cfg.max_trials, c->cfg.until_ci_pct);
	else if (c->cfg.max_trials > c->cfg.sweep.trials)
		printf("trials: %u..%u (--stop decided: each test until its comparisons are decided or undecidable)\n",
		       c->cfg.sweep.trials, c->cfg.max_trials);
	else
		printf("trials: %u\n", c->cfg.sweep.trials);
	printf("cache: %s, io: %s, sync: %s, steady state: %s (rounds of %s)\n",
	       fslab_cache_mode_to_string(c->cfg.sweep.cache), fslab_io_mode_to_string(c->cfg.io_mode),
	       fslab_sync_policy_to_string(c->cfg.sync_policy), fslab_steady_mode_to_string(c->cfg.steady_mode),
	       fslab_size_format(c->cfg.steady_round_bytes, r1, sizeof(r1)));
	if (fslab_preset_named_rows(c->cfg.sweep.named_rows)) {
		printf("bytes to move: what each device moves in %u s a pass, the rows' files of %s written first\n",
		       c->cfg.sweep.pass_s, fslab_size_format(c->cfg.sweep.file_max, f1, sizeof(f1)));
		return;
	}
	printf("bytes to move: %s per filesystem and trial; %s", fslab_size_human(bytes, f1, sizeof(f1)),
	       fslab_size_human(bytes * c->n_fs * c->cfg.sweep.trials, f2, sizeof(f2)));
	if (c->cfg.max_trials > c->cfg.sweep.trials)
		printf("..%s", fslab_size_human(bytes * c->n_fs * c->cfg.max_trials, r1, sizeof(r1)));
	printf(" in all\n");
}

/* The free bytes of fs into *avail: 1, 0 when the filesystem does not
 * say (fusefat, for one, reports no blocks at all: nothing to check
 * against, which is not "full"), or -errno, said. */
static int cost_fs_avail(const struct fslab_bench_fs *fs, uint64_t *avail)
{
	struct statvfs sv;

	if (statvfs(fs->rec.path, &sv) < 0)
		return run_note_errno(errno, "%s (%s): cannot read its free space", fs->rec.name,
					 fslab_esc(fs->rec.path));
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	return sv.f_blocks != 0;
}

/* --dry-run: does the plan fit on each filesystem?  0, or -ENOSPC after
 * saying which does not (or -errno when free space cannot be read). */
static int run_dry_check_space(const struct fslab_run_ctx *c, const struct fslab_plan *plan, bool probe)
{
	uint64_t need = run_plan_need(c, plan, probe), avail;
	char f1[32], f2[32], f3[32];
	int ret = 0;

	printf("filesystems: %zu\n", c->n_fs);
	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		int known = cost_fs_avail(fs, &avail);

		if (known < 0)
			return known;
		if (!known) {
			printf("  %-12s %-8s %s  free unknown (the filesystem does not say), needs %s\n",
			       fslab_esc(fs->rec.name), fs->rec.type, fslab_esc(fs->rec.path),
			       fslab_size_human(need, f2, sizeof(f2)));
			continue;
		}
		printf("  %-12s %-8s %s  free %s, needs %s: %s\n", fslab_esc(fs->rec.name), fs->rec.type, fslab_esc(fs->rec.path),
		       fslab_size_human(avail, f1, sizeof(f1)), fslab_size_human(need, f2, sizeof(f2)),
		       avail >= need ? "ok" : "DOES NOT FIT");
		if (avail >= need)
			continue;
		fflush(stdout);
		/* Name the file that sets the need: the device probe's scratch
		 * file can be larger than every file of the plan. */
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): the plan needs %s free (%s, %s, plus an eighth and 8 MiB), the filesystem has %s; %s or use a bigger filesystem",
			    fs->rec.name, fslab_esc(fs->rec.path), fslab_size_human(need, f2, sizeof(f2)),
			    run_largest_what(c, plan, probe),
			    fslab_size_human(run_plan_largest(c, plan, probe), f3, sizeof(f3)),
			    fslab_size_human(avail, f1, sizeof(f1)),
			    run_plan_largest(c, plan, probe) > run_plan_files_largest(c, plan)
				    ? "lower --probe-size (or --no-device-probe)"
				    : fslab_preset_named_rows(c->cfg.sweep.named_rows) ? "lower --cdm-size"
										 : "lower --file-sizes");
		ret = -ENOSPC;
	}
	return ret;
}

int run_fit_plan(struct fslab_run_ctx *c, struct fslab_plan *plan)
{
	struct fslab_sweep_spec *s = &c->cfg.sweep;
	uint64_t need = run_plan_need(c, plan, false), avail, room = UINT64_MAX, was = s->file_max;
	char f1[32], f2[32], f3[32];
	int ret = 0;

	for (size_t i = 0; i < c->n_fs; i++) {
		const struct fslab_bench_fs *fs = &c->fs[i];
		int known = cost_fs_avail(fs, &avail);

		if (known < 0)
			return known;
		room = known && avail < room ? avail : room;
		if (!fslab_preset_named_rows(s->named_rows) || !known || avail >= need)
			continue;
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): --sweep %s's file of %s needs %s free (plus an eighth and 8 MiB), the filesystem has %s; give a smaller --cdm-size (a power of two, e.g. %s) or free some space",
			    fs->rec.name, fslab_esc(fs->rec.path), fslab_preset_to_string(s->named_rows),
			    fslab_size_format(s->file_max, f1, sizeof(f1)),
			    fslab_size_human(need, f2, sizeof(f2)), fslab_size_human(avail, f3, sizeof(f3)),
			    fslab_size_format(s->file_max / 4 >= 16 * FSLAB_MiB ? s->file_max / 4 : 16 * FSLAB_MiB,
					      f1, sizeof(f1)));
		ret = -ENOSPC;
	}
	/* the lab preset's files: halved until the largest fits (a resumed
	 * run keeps its recorded plan) */
	while (s->coarse && !c->resumed && s->file_max > s->file_min && run_plan_need(c, plan, false) > room) {
		s->file_max /= 2;
		fslab_plan_free(plan);
		if (fslab_plan_build(s, plan) < 0)
			return -EINVAL;
	}
	if (s->file_max < was)
		fslab_note_line("%s: files up to %s, not %s: the largest that fits the fullest filesystem (%s free)",
				fslab_log_prefix(), fslab_size_format(s->file_max, f1, sizeof(f1)),
				fslab_size_format(was, f2, sizeof(f2)), fslab_size_human(room, f3, sizeof(f3)));
	return ret;
}

/* --dry-run: probes each device and prints the time the plan should take.
 * 0, or -errno when a private directory cannot be made. */
static int run_dry_estimate(struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	double est_s = 0, steady_s = 0, probe_s = 0, warm_s = 0;
	bool estimated = true;
	char f1[32], f2[32], f3[32];

	for (size_t i = 0; i < c->n_fs; i++) {
		struct fslab_bench_fs *fs = &c->fs[i];
		double e, st;
		int r = run_workdir_create(fs, c->run_id);

		if (r < 0)
			return r;
		double p0 = fslab_now();

		fslab_device_probe(&fslab_io_posix, &fs->work_fd, fs->rec.path, NULL, c->cfg.probe_bytes, &fs->probe);
		probe_s += fslab_now() - p0;
		run_workdir_remove(fs);
		e = run_plan_estimate_s(c, plan, fs);
		st = run_steady_estimate_s(c, fs);
		if (e < 0 || st < 0) {
			printf("  %s: probe %s (%s): no estimate\n", fslab_esc(fs->rec.name), fs->probe.method,
			       fslab_esc(fs->probe.note));
			estimated = false;
			continue;
		}
		printf("  %s: probe %s: write %.0f KiB/s, read %.0f KiB/s: %s per trial", fslab_esc(fs->rec.name),
		       fs->probe.method, fs->probe.write_kib_s, fs->probe.read_kib_s,
		       fslab_progress_format_duration(e, f1, sizeof(f1)));
		if (st > 0)
			printf(", steady-state phase up to %s (%d rounds)",
			       fslab_progress_format_duration(st, f1, sizeof(f1)), FSLAB_STEADY_ROUNDS_MAX);
		printf("\n");
		est_s += e;
		steady_s += st;
		warm_s += cost_plan_warmup_s(c, plan);
	}
	if (!estimated) {
		printf("time: not estimated (a probe gave no rate)\n");
		return 0;
	}
	printf("time: about %s",
	       fslab_progress_format_duration(est_s * c->cfg.sweep.trials + steady_s + warm_s, f1, sizeof(f1)));
	if (c->cfg.max_trials > c->cfg.sweep.trials)
		printf("..%s", fslab_progress_format_duration(est_s * c->cfg.max_trials + steady_s + warm_s, f2,
							      sizeof(f2)));
	if (warm_s > 0)
		printf(" (the discarded warm-up passes %s)", fslab_progress_format_duration(warm_s, f3, sizeof(f3)));
	if (steady_s > 0)
		printf(" (of which the steady-state phases, all %d rounds, %s)", FSLAB_STEADY_ROUNDS_MAX,
		       fslab_progress_format_duration(steady_s, f3, sizeof(f3)));
	printf(" plus the probes, %s here (estimated from each device probe: a writer's bytes at its write rate, a reader's at its read rate, %g us a buffered call, %g us a record that reaches the device (O_DIRECT, cold random reads), %g ms a test, %g ms a flush",
	       fslab_progress_format_duration(probe_s, f3, sizeof(f3)), COST_CALL_S * 1e6,
	       COST_DEVICE_OP_S * 1e6, COST_TEST_S * 1e3, COST_FLUSH_S * 1e3);
	if (c->cfg.pass_gap_ms)
		printf(", --pass-gap's %u ms before each pass", c->cfg.pass_gap_ms);
	printf("; page-cache reads run faster; the run re-fits this from each cell it measures)\n");
	return 0;
}

int fslab_run_dry_run(const struct fslab_run_opts *o)
{
	struct fslab_run_ctx *c = run_ctx_new();
	struct fslab_plan plan = { 0 };
	int ret = FSLAB_EXIT_FAILURE;
	bool probe;

	if (!c)
		return FSLAB_EXIT_FAILURE;
	if (run_settings(c, o) < 0) {
		ret = FSLAB_EXIT_USAGE;
		goto out;
	}
	ret = run_pick_filesystems(c, o);
	if (ret != FSLAB_EXIT_OK)
		goto out;
	ret = FSLAB_EXIT_FAILURE;
	if (fslab_plan_build(&c->cfg.sweep, &plan) < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "the sweep has no cell to run");
		goto out;
	}
	if (run_fit_plan(c, &plan) < 0)
		goto out;
	probe = !c->cfg.no_device_probe;
	run_dry_print_plan(c, &plan, probe);
	if (run_dry_check_space(c, &plan, probe) < 0)
		goto out;
	if (!probe)
		printf("time: not estimated (--no-device-probe: no rate to estimate from)\n");
	else if (run_dry_estimate(c, &plan) < 0)
		goto out;
	ret = FSLAB_EXIT_OK;
out:
	fslab_plan_free(&plan);
	run_ctx_free(c);
	return ret;
}
