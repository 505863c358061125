/* The ETA's forecast of how many trials the decided rule gives each test
 * of each file x record cell (issue 24: the range 3..10 trials was too
 * wide to be an estimate).  After each trial, every test still open is
 * continued by simulation through the rule's own judgement
 * (stop_predict.h), on the noise its trials so far show:
 *
 * - from the second trial on, each test's residual variance (the trials
 *   as blocks, as the rule pools it), moderated towards what the test's
 *   other cells show (lib/stats.h fslab_var_prior: a variance on one or
 *   two degrees of freedom alone is too rough to forecast from);
 * - after the first trial, which has no residual yet, the roughness of
 *   the differences between the filesystems from a cell to its
 *   neighbours (the next record of the same file, the next file of the
 *   same record): the same test measured on neighbouring cells differs
 *   by its noise and by a trend that moves slowly, so the median
 *   contrast over a file size's neighbours is nearly the noise alone
 *   (its trend part makes it an upper bound).
 *
 * A replicate draws, per test, a scale of that noise from the estimate's
 * own uncertainty (a scaled inverse chi-square), so the replicates'
 * spread is the forecast's; run_cost.c prices each replicate's trials by
 * its one cost model and shows their mean and 10th..90th percentile. */
#include "run_int.h"

#include "engine.h"
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

/* The median of a chi-square on df degrees of freedom over df (Wilson
 * and Hilferty): a median of variances on df is this much below their
 * mean. */
static double rp_chi2_median_ratio(double df)
{
	double a = 2.0 / (9.0 * df);

	return pow(1 - a, 3);
}

/* The noise of test t's trials (the variance of one log score), per
 * cell, into s2[cells]; returns the degrees of freedom it is trusted
 * with.  Residuals where a cell has two trials or more (own, own_df:
 * each cell's, n each), moderated; neighbours' roughness where it has
 * not. */
static double rp_noise(const struct fslab_run_ctx *c, const double *tab, unsigned T, int t, double *s2,
		       double *own, double *own_df, double *scratch)
{
	const struct fslab_plan *plan = c->plan;
	size_t n = plan->n, n_all = 0;
	double d0 = 0, s02 = NAN, df_sum = 0, rough_all = NAN;
	/* scratch: one test's packed trials (n_fs T), a file size's contrasts
	 * (two neighbours per cell and trial: at most 2 n T), all of them */
	double *y = scratch, *contrasts = scratch + c->n_fs * T, *all = contrasts + 2 * n * T;

	/* each cell's own residual variance */
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
	fslab_var_prior(own, own_df, n, 0, &d0, &s02);

	/* the neighbours' roughness, per file size (cells of one file size
	 * are contiguous) and over all of them */
	for (size_t i0 = 0; i0 < n;) {
		size_t i1 = i0, nc = 0;
		double rough;

		while (i1 < n && plan->cells[i1].file_bytes == plan->cells[i0].file_bytes)
			i1++;
		for (size_t i = i0; i < i1; i++) {
			size_t nb[2] = { i + 1 < i1 ? i + 1 : n,
					 run_stop_cell(plan, plan->cells[i].file_bytes / 512, plan->cells[i].record_bytes / 1024) };

			for (int b = 0; b < 2; b++) {
				if (nb[b] >= n)
					continue;
				for (unsigned k = 0; k < T; k++) {
					double z[FSLAB_MAX_FS], m = 0, ss = 0;
					size_t cnt = 0;

					for (size_t f = 0; f < c->n_fs; f++) {
						double a = rp_row(c, tab, T, f, i, t)[k], bb = rp_row(c, tab, T, f, nb[b], t)[k];

						if (!isnan(a) && !isnan(bb))
							m += z[cnt++] = a - bb;
					}
					if (cnt == 0 || (cnt == 1 && c->n_fs > 1))
						continue;
					if (cnt == 1) {
						ss = z[0] * z[0] / 2;
					} else {
						m /= (double)cnt;
						for (size_t e = 0; e < cnt; e++)
							ss += (z[e] - m) * (z[e] - m);
						ss /= 2.0 * (double)(cnt - 1);
					}
					/* on cnt - 1 (or 1) degrees of freedom: to a mean */
					contrasts[nc] = ss / rp_chi2_median_ratio(cnt > 1 ? (double)(cnt - 1) : 1);
					all[n_all++] = contrasts[nc++];
				}
			}
		}
		rough = nc >= 3 ? fslab_median_sort(contrasts, nc) : NAN;
		for (size_t i = i0; i < i1; i++)
			s2[i] = rough;
		i0 = i1;
	}
	if (n_all >= 3)
		rough_all = fslab_median_sort(all, n_all);
	df_sum += (double)n_all;

	for (size_t i = 0; i < n; i++) {
		double prior = isfinite(s2[i]) ? s2[i] : rough_all, pd = 2;

		if (d0 > 0 && isfinite(s02)) {
			prior = s02;
			pd = d0;
		}
		if (!isfinite(prior))
			prior = PREDICT_SIGMA_DEFAULT * PREDICT_SIGMA_DEFAULT;
		if (own_df[i] > 0 && isfinite(own[i]))
			s2[i] = isinf(pd) ? prior : (pd * prior + own_df[i] * own[i]) / (pd + own_df[i]);
		else
			s2[i] = prior;
	}
	return fmin(PREDICT_NU_MAX, fmax(PREDICT_NU_MIN, df_sum / 2));
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

/* Trials test t of cell i runs in one replicate: a closed test's own,
 * an open one's simulated from its trials so far (y). */
static unsigned rp_trials(const struct fslab_run_ctx *c, const struct fslab_stop_params *p, size_t i,
			  int t, unsigned T, const double *y, size_t ne, size_t nk, uint32_t rows,
			  double sigma, uint64_t *rng)
{
	const struct fslab_stop_record *rec = &c->stops[i * FSLAB_TEST_MAX + t];
	unsigned first = T;

	if (rec->why != FSLAB_STOP_OPEN)
		return rec->trials > p->min_trials ? rec->trials : p->min_trials;
	if (rec->trials >= T && T >= p->min_trials)
		first = T + 1; /* judged open at T already */
	return fslab_stop_simulate(p, y, ne, nk, rec->rows == rows ? rec->words : NULL, first, sigma, rng);
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
	uint64_t rng = UINT64_C(0x2545F4914F6CDD1D) ^ c->sweep.seed ^ ((uint64_t)T << 32);
	unsigned looks;

	if (!c->stops || !n || T == 0 || c->max_trials > FSLAB_STOP_PREDICT_TRIALS_MAX ||
	    c->max_trials <= c->sweep.trials)
		return NULL;
	run_stop_params(c, &p);
	tab = run_stop_table(c, fst, T);
	sig = malloc(n * FSLAB_TEST_MAX * sizeof(*sig));
	scratch = malloc((c->n_fs * T + 4 * n * T + 2 * n) * sizeof(*scratch));
	ys = malloc(n * FSLAB_TEST_MAX * c->n_fs * T * sizeof(*ys));
	ne = malloc(n * FSLAB_TEST_MAX * sizeof(*ne));
	nk = malloc(n * FSLAB_TEST_MAX * sizeof(*nk));
	rows = malloc(n * FSLAB_TEST_MAX * sizeof(*rows));
	fc = calloc(1, sizeof(*fc));
	if (!tab || !sig || !scratch || !ys || !ne || !nk || !rows || !fc)
		goto fail;

	/* each test's noise and packed trials, once */
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		double *own = scratch + c->n_fs * T + 4 * n * T; /* rp_noise's own[n], own_df[n] */

		if (!(c->sweep.tests & (1u << t)))
			continue;
		nu[t] = rp_noise(c, tab, T, t, sig + (size_t)t * n, own, own + n, scratch);
		for (size_t i = 0; i < n; i++) {
			size_t k = i * FSLAB_TEST_MAX + (size_t)t;

			nk[k] = run_stop_pack(c, tab, T, i, t, ys + k * c->n_fs * T, &ne[k], &rows[k]);
			open += c->stops[k].why == FSLAB_STOP_OPEN;
		}
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
