/* The ETA's forecast of how many trials the decided rule gives each test
 * of each file x record cell (issue 24: the range 3..10 trials was too
 * wide to be an estimate).  After each trial, every test still open is
 * continued by simulation through the rule's own judgement
 * (stop_predict.h), on the noise its trials so far show:
 *
 * - each cell's own residual variance (the trials as blocks, as the rule
 *   pools it) from the second trial on, moderated towards its
 *   neighbourhood's: the roughness of the differences between the
 *   filesystems from the cell to its neighbours (the next and previous
 *   record of the same file, file of the same record), which after the
 *   first trial, with no residual yet, is all there is (doubled: see
 *   PREDICT_NEIGHBOUR_FACTOR);
 * - each filesystem's true score in a cell drawn around its mean so far
 *   shrunk towards its usual difference over the test's cells (rp_truth:
 *   a test still open is one whose difference looked promising).
 *
 * A replicate draws, per test, a scale of that noise from the estimate's
 * own uncertainty (a scaled inverse chi-square), so the replicates'
 * spread is the forecast's; run_cost.c prices each replicate's trials by
 * its one cost model and shows their mean and 10th..90th percentile. */
#include "run_int.h"

#include "engine/engine.h"
#include "stats.h"
#include "stop_predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Replicates of each forecast, and the judgements (times the pairs each
 * weighs) a forecast may spend: about 0.4 s for 2 filesystems. */
#define PREDICT_REPS_MIN 8
#define PREDICT_REPS_MAX 40
#define PREDICT_JUDGE_BUDGET 300000.0
/* The degrees of freedom a noise estimate is trusted with (the spread
 * of the replicates' scale): its own, halved (neighbours are not
 * independent, and the trend is not noise), within these bounds. */
#define PREDICT_NU_MIN 4.0
#define PREDICT_NU_MAX 20.0
/* No estimate at all (one cell, one trial): 5% noise. */
#define PREDICT_SIGMA_DEFAULT 0.05
/* The most degrees of freedom a cell's neighbourhood weighs against its
 * own residuals (its trend is not noise). */
#define PREDICT_LOCAL_DF 2.0
/* Neighbouring cells are measured seconds apart in one pass, a cell's
 * trials minutes apart in passes of their own: the noise between trials
 * holds what changes between passes too (the machine's load), which
 * neighbours do not see.  Replayed on three runs of the default sweep on
 * the loaded 2-core machine (scripts/bench-eta.sh's), the neighbours'
 * variance was about half what the trials then showed: it is doubled
 * (the forecast's rows past the minimum after trial 1 were then +16%,
 * +24% and -7% of those run; +74%, +37% and +22% with it as measured). */
#define PREDICT_NEIGHBOUR_FACTOR 2.0

struct run_forecast {
	unsigned reps, cap;
	size_t cells;
	/* [(r * cells + i) * RP_SLOTS + t]: the trials test t of cell i runs
	 * in replicate r (its group's: a second pass runs while the pass
	 * before it is open); slot FSLAB_TEST_MAX: those the cell runs
	 * anything in */
	unsigned char *g;
	unsigned char *runs; /* [r]: the trials any cell runs in (the passes) */
};

#define RP_SLOTS (FSLAB_TEST_MAX + 1)

static const double *rp_row(const struct fslab_run_ctx *c, const double *tab, unsigned T, size_t f,
			    size_t i, int t)
{
	return tab + ((f * c->plan->n + i) * FSLAB_TEST_MAX + (size_t)t) * T;
}

/* The roughness between cells i and j in trial k over the filesystems
 * that measured both: how much the differences between the filesystems
 * moved from one cell to the other, as the variance of one log score
 * (half the centred contrasts' mean square: each contrast holds two
 * cells' noise); on its degrees of freedom *df (0: none). */
static double rp_contrast(const struct fslab_run_ctx *c, const double *tab, unsigned T, int t, size_t i,
			  size_t j, unsigned k, double *df)
{
	double z[FSLAB_MAX_FS], m = 0, ss = 0;
	size_t cnt = 0;

	for (size_t f = 0; f < c->n_fs; f++) {
		double a = rp_row(c, tab, T, f, i, t)[k], b = rp_row(c, tab, T, f, j, t)[k];

		if (!isnan(a) && !isnan(b))
			m += z[cnt++] = a - b;
	}
	*df = 0;
	if (cnt == 0 || (cnt == 1 && c->n_fs > 1))
		return 0;
	if (cnt == 1) { /* one filesystem: its own score moved (and its trend) */
		*df = 1;
		return z[0] * z[0] / 2;
	}
	m /= (double)cnt;
	for (size_t e = 0; e < cnt; e++)
		ss += (z[e] - m) * (z[e] - m);
	*df = (double)(cnt - 1);
	return ss / (2.0 * *df);
}

/* The noise of test t's trials (the variance of one log score), per
 * cell, into s2[cells]; returns the degrees of freedom it is trusted
 * with.  Each cell's own residual variance where it has two trials or
 * more, moderated towards its neighbours' roughness (the cells next to
 * it in record and in file size, every trial): cells differ in noise by
 * far (a 64K file in cold mode is noisier than a 64M one), so each cell
 * keeps its own, and one or two degrees of freedom of its own lean on
 * its neighbourhood.  own and own_df are scratch (n each). */
static double rp_noise(const struct fslab_run_ctx *c, const double *tab, unsigned T, int t, double *s2,
		       double *own, double *own_df, double *y)
{
	const struct fslab_plan *plan = c->plan;
	size_t n = plan->n;
	double df_sum = 0, all = 0, all_df = 0;

	for (size_t i = 0; i < n; i++) {
		size_t ne;
		uint32_t rows;
		size_t nk = run_stop_pack(c, tab, T, i, t, y, &ne, &rows);

		own[i] = NAN;
		own_df[i] = 0;
		if (ne >= 2 && nk >= 2) {
			own_df[i] = (double)(ne - 1) * (double)(nk - 1);
			own[i] = fslab_twoway_resid_ss(y, ne, nk, NULL) / own_df[i];
		} else if (ne == 1 && nk >= 2) {
			double m = 0, ss = 0;

			for (size_t k = 0; k < nk; k++)
				m += y[k];
			m /= (double)nk;
			for (size_t k = 0; k < nk; k++)
				ss += (y[k] - m) * (y[k] - m);
			own_df[i] = (double)nk - 1;
			own[i] = ss / own_df[i];
		}
		df_sum += own_df[i];
	}
	for (size_t i = 0; i < n; i++) {
		const struct fslab_sweep_cell *cell = &plan->cells[i];
		uint64_t f = cell->file_bytes / 1024, r = cell->record_bytes / 1024;
		/* the next and previous record of the file, the next and
		 * previous file of the record */
		size_t nb[4] = {
			i + 1 < n && plan->cells[i + 1].file_bytes == cell->file_bytes ? i + 1 : n,
			i > 0 && plan->cells[i - 1].file_bytes == cell->file_bytes ? i - 1 : n,
			run_stop_cell(plan, f * 2, r),
			f >= 2 ? run_stop_cell(plan, f / 2, r) : n,
		};
		double sum = 0, df = 0;

		for (int b = 0; b < 4; b++)
			for (unsigned k = 0; nb[b] < n && k < T; k++) {
				double d, v = rp_contrast(c, tab, T, t, i, nb[b], k, &d);

				sum += v * d;
				df += d;
			}
		s2[i] = df > 0 ? PREDICT_NEIGHBOUR_FACTOR * sum / df : NAN;
		own_df[i] = own_df[i] > 0 ? own_df[i] : 0;
		all += PREDICT_NEIGHBOUR_FACTOR * sum;
		all_df += df;
		/* the neighbourhood's weight: its degrees of freedom, at most
		 * PREDICT_LOCAL_DF (its trend is not noise) */
		if (df > 0 && own_df[i] > 0 && isfinite(own[i])) {
			double pd = fmin(df, PREDICT_LOCAL_DF);

			s2[i] = (pd * s2[i] + own_df[i] * own[i]) / (pd + own_df[i]);
		} else if (own_df[i] > 0 && isfinite(own[i])) {
			s2[i] = own[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(s2[i]))
			s2[i] = all_df > 0 ? all / all_df : PREDICT_SIGMA_DEFAULT * PREDICT_SIGMA_DEFAULT;
	return fmin(PREDICT_NU_MAX, fmax(PREDICT_NU_MIN, (df_sum + all_df) / (2.0 * (double)n)));
}

/* A draw of sqrt(nu / chi-square(nu)) (Wilson and Hilferty's normal
 * approximation of the chi-square): the noise's scale in one replicate. */
static double rp_scale(double nu, uint64_t *rng)
{
	double a = 2.0 / (9.0 * nu), q = 1 - a + fslab_stop_normal(rng) * sqrt(a);

	if (q < 0.2)
		q = 0.2;
	return sqrt(1 / (q * q * q));
}

/* Where test t's true scores lie in each cell (truth[i], valid[i]):
 * each filesystem's mean so far shrunk towards its usual difference from
 * the others over the test's cells, as far as the cells' differences
 * scatter beyond their noise (empirical Bayes, method of moments).  A
 * test still open is one whose difference looked promising on few
 * trials; taking that difference for the truth forecast such tests to
 * run on for several trials where the rule, seeing the difference shrink
 * back, gave them up at the next look or two (replayed on runs under
 * load: 3.0 trials more forecast, 2.1 run). */
static void rp_truth(const struct fslab_run_ctx *c, int t, unsigned T, const double *ys, const size_t *ne,
		     const size_t *nk, const uint32_t *rows, const double *sig, struct fslab_stop_truth *truth,
		     bool *valid)
{
	size_t n = c->plan->n;
	double su[FSLAB_MAX_FS] = { 0 }, suu[FSLAB_MAX_FS] = { 0 }, sv[FSLAB_MAX_FS] = { 0 };
	double cnt[FSLAB_MAX_FS] = { 0 }, tau2[FSLAB_MAX_FS] = { 0 }, ubar[FSLAB_MAX_FS] = { 0 };

	/* pass 1: each filesystem's difference from the cell's mean, over
	 * the cells; pass 2: shrink each cell's */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t f = 0; pass && f < c->n_fs; f++) {
			ubar[f] = cnt[f] ? su[f] / cnt[f] : 0;
			tau2[f] = cnt[f] > 1 ? fmax(0, (suu[f] - cnt[f] * ubar[f] * ubar[f]) / (cnt[f] - 1) - sv[f] / cnt[f])
					     : 0;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = i * FSLAB_TEST_MAX + (size_t)t, e = 0;
			const double *y = ys + k * c->n_fs * T;
			double m[FSLAB_MAX_FS], all = 0, v, sd2 = 0;

			if (pass)
				valid[i] = false;
			if (ne[k] < 2 || nk[k] < 1)
				continue;
			for (size_t j = 0; j < ne[k]; j++) {
				m[j] = 0;
				for (size_t q = 0; q < nk[k]; q++)
					m[j] += y[j * nk[k] + q];
				m[j] /= (double)nk[k];
				all += m[j];
			}
			all /= (double)ne[k];
			v = sig[i] / (double)nk[k] * (1 - 1.0 / (double)ne[k]);
			for (size_t f = 0; f < c->n_fs; f++) {
				double u;

				if (!(rows[k] & (UINT32_C(1) << f)))
					continue;
				u = m[e] - all;
				if (!pass) {
					su[f] += u;
					suu[f] += u * u;
					sv[f] += v;
					cnt[f]++;
				} else {
					double w = tau2[f] / (tau2[f] + v);

					truth[i].centre[e] = all + ubar[f] + (u - ubar[f]) * (isfinite(w) ? w : 1);
					sd2 += tau2[f] > 0 ? tau2[f] * v / (tau2[f] + v) : 0;
				}
				e++;
			}
			if (pass) {
				truth[i].sd = sqrt(sd2 / (double)ne[k]);
				valid[i] = true;
			}
		}
	}
}

/* Trials test t of cell i runs in one replicate: a closed test's own,
 * an open one's simulated from its trials so far (y). */
static unsigned rp_trials(const struct fslab_run_ctx *c, const struct fslab_stop_params *p, size_t i,
			  int t, unsigned T, const double *y, size_t ne, size_t nk, uint32_t rows,
			  const struct fslab_stop_truth *truth, double sigma, uint64_t *rng)
{
	const struct fslab_stop_record *rec = &c->stops[i * FSLAB_TEST_MAX + t];
	unsigned first = T;

	if (rec->why != FSLAB_STOP_OPEN)
		return rec->trials > p->min_trials ? rec->trials : p->min_trials;
	if (rec->trials >= T && T >= p->min_trials)
		first = T + 1; /* judged open at T already */
	return fslab_stop_simulate(p, y, ne, nk, rec->rows == rows ? rec->words : NULL, first, truth, sigma,
				   rng);
}

/* The trials t runs in: its group's (run_stop.c: a second pass runs
 * while the pass before it is open, and that pass while it is). */
static unsigned rp_group_trials(const struct fslab_run_ctx *c, const unsigned *N, int t)
{
	int a = run_stop_group(c, t);
	unsigned g = 0;

	for (int u = 0; u < FSLAB_TEST_MAX; u++)
		if ((c->sweep.tests & (1u << u)) && run_stop_group(c, u) == a && N[u] > g)
			g = N[u];
	return g;
}

void run_forecast_free(struct run_forecast *fc)
{
	if (!fc)
		return;
	free(fc->g);
	free(fc->runs);
	free(fc);
}

struct run_forecast *run_forecast_make(const struct fslab_run_ctx *c, const struct run_fs_state *fst,
				       unsigned T)
{
	struct fslab_stop_params p;
	size_t n = c->plan ? c->plan->n : 0, open = 0;
	struct run_forecast *fc = NULL;
	double *tab = NULL, *sig = NULL, *scratch = NULL, *ys = NULL, nu[FSLAB_TEST_MAX] = { 0 };
	size_t *ne = NULL, *nk = NULL;
	uint32_t *rows = NULL;
	struct fslab_stop_truth *truth = NULL;
	bool *tvalid = NULL;
	uint64_t rng = UINT64_C(0x2545F4914F6CDD1D) ^ c->sweep.seed ^ ((uint64_t)T << 32);
	unsigned looks;

	if (!c->stops || !n || T == 0 || c->max_trials > FSLAB_STOP_PREDICT_TRIALS_MAX ||
	    c->max_trials <= c->sweep.trials)
		return NULL;
	run_stop_params(c, &p);
	tab = run_stop_table(c, fst, T);
	sig = malloc(n * FSLAB_TEST_MAX * sizeof(*sig));
	scratch = malloc((c->n_fs * T + 2 * n) * sizeof(*scratch)); /* rp_noise's */
	ys = malloc(n * FSLAB_TEST_MAX * c->n_fs * T * sizeof(*ys));
	ne = malloc(n * FSLAB_TEST_MAX * sizeof(*ne));
	nk = malloc(n * FSLAB_TEST_MAX * sizeof(*nk));
	rows = malloc(n * FSLAB_TEST_MAX * sizeof(*rows));
	truth = malloc(n * FSLAB_TEST_MAX * sizeof(*truth));
	tvalid = calloc(n * FSLAB_TEST_MAX, sizeof(*tvalid));
	fc = calloc(1, sizeof(*fc));
	if (!tab || !sig || !scratch || !ys || !ne || !nk || !rows || !truth || !tvalid || !fc)
		goto fail;

	/* each test's noise and packed trials, once */
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		double *own = scratch + c->n_fs * T; /* rp_noise's own[n], own_df[n] */

		if (!(c->sweep.tests & (1u << t)))
			continue;
		nu[t] = rp_noise(c, tab, T, t, sig + (size_t)t * n, own, own + n, scratch);
		for (size_t i = 0; i < n; i++) {
			size_t k = i * FSLAB_TEST_MAX + (size_t)t;

			nk[k] = run_stop_pack(c, tab, T, i, t, ys + k * c->n_fs * T, &ne[k], &rows[k]);
			open += c->stops[k].why == FSLAB_STOP_OPEN;
		}
		rp_truth(c, t, T, ys, ne, nk, rows, sig + (size_t)t * n, truth + (size_t)t * n, tvalid + (size_t)t * n);
	}
	looks = c->max_trials - (T > p.min_trials ? T : p.min_trials) + 1;
	double per_rep = (double)(open ? open : 1) * looks * (c->n_fs > 2 ? c->n_fs * (c->n_fs - 1) / 2 : 1);
	fc->reps = (unsigned)fmin(PREDICT_REPS_MAX, fmax(PREDICT_REPS_MIN, PREDICT_JUDGE_BUDGET / per_rep));
	fc->cap = c->max_trials;
	fc->cells = n;
	fc->g = calloc((size_t)fc->reps * n * RP_SLOTS, 1);
	fc->runs = calloc(fc->reps, 1);
	if (!fc->g || !fc->runs)
		goto fail;

	for (unsigned r = 0; r < fc->reps; r++) {
		double scale[FSLAB_TEST_MAX];

		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			scale[t] = nu[t] > 0 ? rp_scale(nu[t], &rng) : 1;
		for (size_t i = 0; i < n; i++) {
			unsigned N[FSLAB_TEST_MAX] = { 0 }, any = 0;
			unsigned char *g = fc->g + ((size_t)r * n + i) * RP_SLOTS;

			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				size_t k = i * FSLAB_TEST_MAX + (size_t)t;

				if (c->sweep.tests & (1u << t))
					N[t] = rp_trials(c, &p, i, t, T, ys + k * c->n_fs * T, ne[k], nk[k], rows[k],
							 tvalid[(size_t)t * n + i] ? &truth[(size_t)t * n + i] : NULL,
							 sqrt(sig[(size_t)t * n + i]) * scale[t], &rng);
			}
			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				if (!(c->sweep.tests & (1u << t)))
					continue;
				g[t] = (unsigned char)rp_group_trials(c, N, t);
				if (g[t] > any)
					any = g[t];
			}
			g[FSLAB_TEST_MAX] = (unsigned char)any;
			if (any > fc->runs[r])
				fc->runs[r] = (unsigned char)any;
		}
	}
	goto out;
fail:
	run_forecast_free(fc);
	fc = NULL;
out:
	free(tab);
	free(sig);
	free(scratch);
	free(ys);
	free(ne);
	free(nk);
	free(rows);
	free(truth);
	free(tvalid);
	return fc;
}

unsigned run_forecast_reps(const struct run_forecast *fc)
{
	return fc ? fc->reps : 0;
}

unsigned run_forecast_trials(const struct run_forecast *fc, unsigned r, size_t i, int slot)
{
	return fc->g[((size_t)r * fc->cells + i) * RP_SLOTS + (size_t)slot];
}

unsigned run_forecast_passes(const struct run_forecast *fc, unsigned r)
{
	return fc->runs[r];
}

double run_forecast_runs_past(const struct run_forecast *fc, const struct fslab_run_ctx *c, unsigned past)
{
	double sum = 0;

	if (!fc || !fc->reps)
		return -1;
	for (unsigned r = 0; r < fc->reps; r++)
		for (size_t i = 0; i < fc->cells; i++)
			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				unsigned g = run_forecast_trials(fc, r, i, t);

				if ((c->sweep.tests & (1u << t)) && g > past)
					sum += g - past;
			}
	return sum / fc->reps;
}
