/* The stopping rules' names, and the decided rule (fslab_stop_judge,
 * lib/stats.h) applied to the sweep.  The trial loop is outside the cell
 * and filesystem loops (run_sweep.c), so when a trial begins every
 * filesystem's earlier trials are known: each test of each file x record
 * cell still open is judged on them, and the next trial runs only the
 * tests still open.  A decision is kept once made (a stopping time: judging
 * again later could undo it): a test's, and within a test still open, each
 * of its pairs' (the record's words).
 *
 * Tests that share the test file run together: a second pass (rewrite,
 * reread, random write, frewrite, freread: FSLAB_BT_SECOND_PASS) means
 * what it does only after the pass before it, so it runs while either of
 * the two is open.  The other tests of a cell stand alone: the engine
 * writes the file they need, untimed, when the write test does not run. */
#include "run_int.h"

#include "engine/engine.h"
#include "names.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stop_why_names[FSLAB_STOP_WHY_MAX] = {
	[FSLAB_STOP_OPEN] = "open",
	[FSLAB_STOP_DECIDED] = "decided",
	[FSLAB_STOP_UNDECIDABLE] = "undecidable",
	[FSLAB_STOP_MAX_TRIALS] = "max_trials",
	[FSLAB_STOP_NO_DATA] = "no_data",
};

const char *fslab_stop_why_to_string(enum fslab_stop_why w)
{
	return w >= 0 && w < FSLAB_STOP_WHY_MAX ? stop_why_names[w] : "?";
}

/* the record's rows: a bit per filesystem of the run */
_Static_assert(FSLAB_MAX_FS <= 32, "fslab_stop_record.rows has 32 bits");

int run_stop_begin(struct fslab_run_ctx *c, const struct fslab_plan *plan)
{
	c->plan = plan;
	if (c->cfg.stop_rule != FSLAB_STOP_RULE_DECIDED)
		return 0;
	c->stops = calloc(plan->n * FSLAB_TEST_MAX, sizeof(*c->stops));
	if (!c->stops)
		return run_note_errno(-ENOMEM, "the stopping rule's record");
	return 0;
}

void run_stop_end(struct fslab_run_ctx *c)
{
	free(c->stops);
	c->stops = NULL;
	c->plan = NULL;
}

/* The first test of t's group: tests of one group run while any of them
 * is open (a second pass goes with the pass before it). */
static int rs_group(const struct fslab_run_ctx *c, int t)
{
	while (t > 0 && (fslab_bench_test_get((enum fslab_test)t)->flags & FSLAB_BT_SECOND_PASS) &&
	       (c->cfg.sweep.tests & (1u << (t - 1))))
		t--;
	return t;
}

unsigned run_stop_mask(const struct fslab_run_ctx *c, size_t i)
{
	unsigned open_groups = 0, mask = 0;

	if (!c->stops)
		return c->cfg.sweep.tests;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if ((c->cfg.sweep.tests & (1u << t)) && c->stops[i * FSLAB_TEST_MAX + t].why == FSLAB_STOP_OPEN)
			open_groups |= 1u << rs_group(c, t);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if ((c->cfg.sweep.tests & (1u << t)) && (open_groups & (1u << rs_group(c, t))))
			mask |= 1u << t;
	return mask;
}

/* What the rule judges by: the table
 * tab[((f * cells + i) * FSLAB_TEST_MAX + t) * T + trial - 1] of the log throughputs of the ok rows of trials 1..T (clean: but
 * those the report sets aside, as the band look judges), NaN where there
 * is none (NULL: no memory; the caller frees it); and one test of cell i
 * packed as fslab_stop_judge takes it: the filesystems that measured it
 * (*ne, their mask *rows) row-major into y (n_fs x T at most) over the
 * trials every one of them measured, which it returns. */
static double *run_stop_table(const struct fslab_run_ctx *c, const struct run_fs_state *fst,
			      unsigned T, bool clean)
{
	const struct fslab_plan *plan = c->plan;
	size_t n = c->n_fs * plan->n * FSLAB_TEST_MAX * T;
	double *tab = malloc(n * sizeof(*tab));

	if (!tab)
		return NULL;
	for (size_t k = 0; k < n; k++)
		tab[k] = NAN;
	for (size_t f = 0; f < c->n_fs; f++) {
		const struct fslab_done_set *d = &fst[f].done;

		/* FUSE runs the minimum trials (run_sweep.c): not judged */
		for (size_t k = 0; k < d->n && !c->fs[f].rec.fuse; k++) {
			const struct fslab_cell_key *key = &d->keys[k];
			size_t i;

			if (!d->ok[k] || (clean && d->ok[k] == FSLAB_ROW_ASIDE) || key->trial < 1 || key->trial > T || !(d->throughput[k] > 0) ||
			    (i = fslab_plan_find(plan, key->test, key->file_kib, key->record_kib,
						 key->iodepth, key->jobs)) == plan->n)
				continue;
			tab[((f * plan->n + i) * FSLAB_TEST_MAX + key->test) * T + key->trial - 1] =
				log(d->throughput[k]);
		}
	}
	return tab;
}

static size_t run_stop_pack(const struct fslab_run_ctx *c, const double *tab, unsigned T, size_t i,
			    int t, double *y, size_t *ne_out, uint32_t *rows_out)
{
	const double *row[FSLAB_MAX_FS];
	size_t ne = 0, nk = 0, col = 0;
	uint32_t rows = 0;

	for (size_t f = 0; f < c->n_fs; f++) {
		const double *r = tab + ((f * c->plan->n + i) * FSLAB_TEST_MAX + t) * T;
		bool any = false;

		for (unsigned k = 0; k < T; k++)
			any |= !isnan(r[k]);
		if (any) {
			row[ne++] = r;
			rows |= UINT32_C(1) << f;
		}
	}
	for (unsigned k = 0; k < T && ne; k++) {
		bool all = true;

		for (size_t e = 0; e < ne; e++)
			all &= !isnan(row[e][k]);
		if (all)
			nk++;
	}
	/* packed row-major: filesystem e's complete trials at y[e * nk] */
	for (unsigned k = 0; k < T && col < nk; k++) {
		bool all = true;

		for (size_t e = 0; e < ne; e++)
			all &= !isnan(row[e][k]);
		if (!all)
			continue;
		for (size_t e = 0; e < ne; e++)
			y[e * nk + col] = row[e][k];
		col++;
	}
	*ne_out = ne;
	*rows_out = rows;
	return nk;
}

unsigned run_stop_cell_cap(const struct fslab_run_ctx *c)
{
	unsigned n = c->cfg.sweep.trials > FSLAB_STOP_CELL_CAP ? c->cfg.sweep.trials : FSLAB_STOP_CELL_CAP;

	return c->cfg.max_trials < n ? c->cfg.max_trials : n;
}

/* One open test of cell i (its record rec) judged on the filesystems that
 * measured it, over the trials every one of them measured (the blocks).
 * The pairs' decisions of earlier looks stand while the same filesystems
 * measured it (a filesystem that failed it since, or measured it only
 * now, changes the pairs: they are judged afresh). */
static enum fslab_stop_why rs_judge(const struct fslab_run_ctx *c, const double *tab, size_t i, int t,
				    unsigned T, double *y, struct fslab_stop_record *rec,
				    struct fslab_stop_tally *tally)
{
	/* the decided rule's parameters for this run */
	const struct fslab_stop_params p = {
		.alpha = FSLAB_FAMILY_ALPHA,
		.delta = FSLAB_EQUIVALENCE_DEFAULT,
		.futility = FSLAB_STOP_FUTILITY,
		.min_trials = c->cfg.sweep.trials,
		.max_trials = run_stop_cell_cap(c),
	};
	size_t ne, nk;
	uint32_t rows;

	nk = run_stop_pack(c, tab, T, i, t, y, &ne, &rows);
	if (rows != rec->rows) {
		memset(rec->words, 0, sizeof(rec->words));
		rec->rows = rows;
	}
	memset(tally, 0, sizeof(*tally));
	if (ne == 0)
		return FSLAB_STOP_NO_DATA; /* never ok (failed or skipped): repeating will not help */
	return fslab_stop_judge(&p, y, ne, nk, rec->words, tally);
}

/* The band look, the rule's second level.  The first screen compares two
 * filesystems per workload and band of file sizes over the band's cells
 * (report/bands.c); a cell's own judgement above stops it once its pairs
 * are decided or cannot be, which at the minimum trials is most cells,
 * while their band's comparison is still wide.  So each look also judges
 * every pair of judged filesystems per workload and band as the report
 * will: the mean over the band's cells of a cell's mean log-ratio (its
 * tests averaged in each trial), its variance from each cell's trials,
 * the cells independent but for a trial effect they share.  While its
 * interval at the screen's level (FSLAB_FAMILY_ALPHA over every pair,
 * workload and band, and each workload's line over every size) would
 * resolve only differences beyond FSLAB_STOP_BAND_RESOLVE (10%), the
 * band's cells of the workload's tests stay open, up to the cap (past the
 * tests' own FSLAB_STOP_CELL_CAP, where only this look decides).  Only
 * the interval's width is weighed, never its direction, so where a band
 * stops says nothing of its verdict (no optional stopping). */

/* One pair in one workload and band: the variance of its mean log-ratio
 * with the cells independent, the sum of each cell's variance^2 / df,
 * and the shared trial effect's moment estimate num / den with its
 * weight w1 (report/bands.c's bd_paired, each cell's tests averaged). */
struct rs_band {
	double var, v2, num, den, w1, kt;
};

static void rs_band_pair(const struct fslab_run_ctx *c, const double *tab, unsigned T, size_t x, size_t y, int b,
			 unsigned ft, struct rs_band *r)
{
	double q[T], rr = 0, nc = 0;
	bool seen[T];

	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < T; k++)
		q[k] = 0, seen[k] = false;
	/* summed with weight 1 per cell, scaled by 1 / nc at the end */
	for (size_t i = 0; i < c->plan->n; i++) {
		double z[T], mean = 0, s2 = 0, n = 0;

		if (fslab_band_of(c->plan->cells[i].file_bytes / 1024) != b)
			continue;
		for (unsigned k = 0; k < T; k++) {
			double sum = 0, cnt = 0;

			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				const double *a = tab + ((x * c->plan->n + i) * FSLAB_TEST_MAX + t) * T;
				const double *o = tab + ((y * c->plan->n + i) * FSLAB_TEST_MAX + t) * T;

				if ((ft & (1u << t)) && !isnan(a[k]) && !isnan(o[k]))
					sum += a[k] - o[k], cnt++;
			}
			z[k] = cnt ? sum / cnt : NAN;
			n += cnt > 0, mean += cnt ? z[k] : 0;
		}
		if (n < 2)
			continue;
		nc++;
		mean /= n;
		for (unsigned k = 0; k < T; k++)
			s2 += isnan(z[k]) ? 0 : (z[k] - mean) * (z[k] - mean) / (n - 1);
		r->var += s2 / n, r->v2 += pow(s2 / n, 2) / (n - 1);
		for (unsigned k = 0; k < T; k++)
			if (!isnan(z[k]))
				q[k] += z[k] - mean, rr += pow(z[k] - mean, 2), seen[k] = true;
	}
	for (unsigned k = 0; k < T; k++)
		r->num += q[k] * q[k], r->kt += seen[k];
	if (nc) {
		r->var /= nc * nc, r->v2 /= pow(nc, 4), r->num = (r->num - rr) / (nc * nc);
		r->den = (r->kt - 1) * (1 - 1 / nc);
		r->w1 = (1 - 1 / nc) / r->kt;
	}
}

/* Does some pair leave workload w's band b wider than the screen wants?
 * The trial effect is pooled over the pair's workloads and bands, as the
 * report pools it. */
static void rs_band_open(const struct fslab_run_ctx *c, const double *tab, unsigned T, const size_t *judged,
			 size_t ne, const unsigned *ft, size_t nf, double m, bool (*open)[FSLAB_N_BANDS])
{
	struct rs_band r[nf][FSLAB_N_BANDS];

	for (size_t x = 0; x < ne; x++)
		for (size_t y = x + 1; y < ne; y++) {
			double num = 0, den = 0;

			for (size_t w = 0; w < nf; w++)
				for (int b = 0; b < FSLAB_N_BANDS; b++) {
					rs_band_pair(c, tab, T, judged[x], judged[y], b, ft[w], &r[w][b]);
					num += r[w][b].den > 0 ? r[w][b].num : 0, den += fmax(r[w][b].den, 0);
				}
			for (size_t w = 0; w < nf; w++)
				for (int b = 0; b < FSLAB_N_BANDS; b++) {
					const struct rs_band *p = &r[w][b];
					double vu = den > 0 ? fmax(0, num / den) * p->w1 : 0, v = p->var + vu;
					double df = v * v / pow(sqrt(p->v2) + (p->kt > 1 ? vu / sqrt(p->kt - 1) : 0), 2);

					/* no cell with two trials: nothing to wait for */
					open[w][b] |= v > 0 && expm1(fslab_t_quantile(FSLAB_FAMILY_ALPHA / m, df) * sqrt(v)) >
								       FSLAB_STOP_BAND_RESOLVE;
				}
		}
}

static void rs_band_look(struct fslab_run_ctx *c, const double *tab, unsigned T, bool last)
{
	const unsigned fam[] = { FSLAB_TESTS_SEQ_WRITE, FSLAB_TESTS_SEQ_READ, FSLAB_TESTS_RANDOM, FSLAB_TESTS_FILES };
	enum { NF = sizeof(fam) / sizeof(fam[0]) };
	size_t judged[FSLAB_MAX_FS], ne = 0;
	double m = 0;
	bool any[NF][FSLAB_N_BANDS] = { { false } }, open[NF][FSLAB_N_BANDS] = { { false } };
	unsigned ft[NF];

	if (T >= c->cfg.max_trials || last)
		return;
	for (size_t f = 0; f < c->n_fs; f++)
		if (!c->fs[f].rec.fuse) /* FUSE runs the minimum trials: not judged */
			judged[ne++] = f;
	for (int w = 0; w < NF; w++)
		ft[w] = fam[w] & c->cfg.sweep.tests;
	for (size_t i = 0; i < c->plan->n; i++)
		for (int w = 0; w < NF; w++) {
			int b = fslab_band_of(c->plan->cells[i].file_bytes / 1024);

			if (b < FSLAB_N_BANDS && ft[w] && !any[w][b])
				any[w][b] = true, m += (double)ne * (double)(ne - 1) / 2;
		}
	for (int w = 0; w < NF; w++) { /* and the screen's line over every size */
		bool some = false;

		for (int b = 0; b < FSLAB_N_BANDS; b++)
			some |= any[w][b];
		m += some ? (double)ne * (double)(ne - 1) / 2 : 0;
	}
	if (m == 0)
		return;
	rs_band_open(c, tab, T, judged, ne, ft, NF, m, open);
	for (size_t i = 0; i < c->plan->n; i++) {
		int b = fslab_band_of(c->plan->cells[i].file_bytes / 1024);

		for (int t = 0; t < FSLAB_TEST_MAX && b < FSLAB_N_BANDS; t++) {
			struct fslab_stop_record *rec = &c->stops[i * FSLAB_TEST_MAX + t];

			for (int w = 0; w < NF; w++)
				if (open[w][b] && (ft[w] & (1u << t)) &&
				    (rec->why == FSLAB_STOP_DECIDED || rec->why == FSLAB_STOP_UNDECIDABLE ||
				     rec->why == FSLAB_STOP_MAX_TRIALS))
					rec->why = FSLAB_STOP_OPEN;
		}
	}
}

void run_stop_update(struct fslab_run_ctx *c, const struct run_fs_state *fst, unsigned trials_done, bool last)
{
	double *tab, *y;

	if (!c->stops || trials_done < c->cfg.sweep.trials)
		return;
	tab = run_stop_table(c, fst, trials_done, false);
	y = malloc(c->n_fs * trials_done * sizeof(*y)); /* one test's blocks */
	if (!tab || !y) {
		free(tab);
		free(y);
		/* no decision is no harm: the tests run on to the cap */
		fslab_note_warn("out of memory judging the trials; the open tests run on");
		return;
	}
	for (size_t i = 0; i < c->plan->n; i++)
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			struct fslab_stop_record *rec = &c->stops[i * FSLAB_TEST_MAX + t];
			struct fslab_stop_tally tally;
			enum fslab_stop_why why;

			if (!(c->cfg.sweep.tests & (1u << t)) || rec->why != FSLAB_STOP_OPEN)
				continue;
			rec->trials = trials_done;
			if (trials_done > run_stop_cell_cap(c)) { /* the band look's trials: not judged again */
				rec->why = FSLAB_STOP_MAX_TRIALS;
				continue;
			}
			why = rs_judge(c, tab, i, t, trials_done, y, rec, &tally);
			if (why == FSLAB_STOP_OPEN && trials_done >= c->cfg.max_trials)
				why = FSLAB_STOP_MAX_TRIALS;
			rec->why = (unsigned char)why;
			rec->pairs = tally.pairs;
			rec->decided = tally.decided;
			rec->undecidable = tally.undecidable;
		}
	/* the band look leaves out the rows the report sets aside (a reread
	 * the page cache served): counted, they narrowed a band the report
	 * then judged without them (9.9% against 19%) */
	free(tab);
	tab = run_stop_table(c, fst, trials_done, true);
	if (tab) /* no memory: no look, as no decision above */
		rs_band_look(c, tab, trials_done, last);
	free(tab);
	free(y);
}
