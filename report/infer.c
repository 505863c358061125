/* The inference behind every verdict of the report: one simultaneous
 * interval per comparison, and the word read off that interval.
 *
 * Each entry's score in a test is the geometric mean of its trial scores;
 * two entries are compared on the difference of the means of the log
 * trial scores, so a ratio's interval is symmetric in log space and a
 * slowdown of 10% means the same at 10 MiB/s and at 10 GiB/s.  The
 * variance comes from a model of the whole report (rp_varmodel_fit): the
 * filesystems of one run's test pool their trials (and, compared with each
 * other, have the trials' shared effect taken out: the trials as blocks),
 * each scaled by its filesystem's noise factor, and the pools are
 * moderated towards a prior common to every test (Smyth 2004; lib/stats.h
 * fslab_var_prior).  The interval is Student's t at alpha / m, m the
 * number of comparisons in the family (Bonferroni): every interval of the
 * family covers its true ratio with probability at least 1 - alpha
 * together, so a verdict read off any of them is a family-wise one.
 * docs/report.md, "Verdicts and their intervals", explains the choices;
 * tests/report/verdict_harness measures them. */
#include "format.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

/* An entry's own variance usable for the fit: 2 trials or more, finite. */
static bool vm_usable(const struct rp_score *s)
{
	return s->n_trials >= 2 && isfinite(s->lvar) && isfinite(s->lmean);
}

/* Step 1: each pool's variance, the trials' sums of squares pooled over
 * its entries, each scaled by its filesystem's noise factor, into ss and
 * l->dfp. */
static void vm_pools(const struct rp_vm_in *in, size_t n, const struct rp_varmodel *vm,
		     struct rp_vm_layer *l, double *ss)
{
	for (size_t p = 0; p < vm->n_pools; p++) {
		ss[p] = 0;
		l->dfp[p] = 0;
	}
	for (size_t i = 0; i < n; i++)
		if (vm_usable(in[i].s) && in[i].pool < vm->n_pools) {
			double d = (double)in[i].s->n_trials - 1;

			ss[in[i].pool] += d * in[i].s->lvar / vm->factor[in[i].key];
			l->dfp[in[i].pool] += d;
		}
}

/* Do a and b have the same trials? */
static bool vm_same_trials(const struct rp_score *a, const struct rp_score *b)
{
	if (a->n_trials != b->n_trials || !a->trial_no || !b->trial_no)
		return false;
	for (size_t k = 0; k < a->n_trials; k++)
		if (a->trial_no[k] != b->trial_no[k])
			return false;
	return true;
}

/* Step 1 with the trials as blocks (every filesystem of a run is measured
 * in each trial, so a trial that was slow for all of them is one effect,
 * not noise of each; Kalibera and Jones's repeated measures): for a pool
 * whose entries all have the same trials, the two-way residual
 * y[e][k] - mean_e - mean_k + mean, on (E - 1)(K - 1) degrees of freedom. */
static void vm_pools_blocked(const struct rp_vm_in *in, size_t n, const struct rp_varmodel *vm,
			     struct rp_vm_layer *l, double *ss)
{
	for (size_t p = 0; p < vm->n_pools; p++) {
		const struct rp_score *first = NULL;
		size_t ne = 0, nk, e = 0;
		bool ok = true;

		ss[p] = 0;
		l->dfp[p] = 0;
		for (size_t i = 0; i < n && ok; i++) {
			if (in[i].pool != p || !vm_usable(in[i].s))
				continue;
			if (!first)
				first = in[i].s;
			ok = vm_same_trials(first, in[i].s);
			ne++;
		}
		if (!ok || ne < 2)
			continue;
		nk = first->n_trials;
		/* the residuals are lib/stats.h's, the ones fslab run stops on;
		 * no memory: the pool keeps only its unblocked variance */
		double *y = malloc(ne * nk * sizeof(*y)), *row = malloc(ne * sizeof(*row));
		size_t *key = malloc(ne * sizeof(*key));

		for (size_t i = 0; i < n && y && row && key; i++) {
			if (in[i].pool != p || !vm_usable(in[i].s))
				continue;
			for (size_t k = 0; k < nk; k++)
				y[e * nk + k] = log(in[i].s->trial[k]);
			key[e++] = in[i].key;
		}
		if (y && row && key) {
			/* a residual mixes every entry's noise (with two entries
			 * both rows are halves of the paired differences): the
			 * residuals sum to (E - 1)(K - 1) x the mean factor x the
			 * pool's variance, so the sum is divided by the mean factor
			 * (each row by its own factor inflated a quiet entry against
			 * a noisy one by (2 + r + 1/r) / 4) */
			double fsum = 0;

			fslab_twoway_resid_ss(y, ne, nk, row);
			for (e = 0; e < ne; e++) {
				ss[p] += row[e];
				fsum += vm->factor[key[e]];
			}
			ss[p] *= (double)ne / fsum;
			l->dfp[p] = (double)(ne - 1) * (double)(nk - 1);
		}
		free(y);
		free(row);
		free(key);
	}
}

/* Step 2: the pools' variances moderated towards their common prior. */
static void vm_moderate_pools(const struct rp_varmodel *vm, struct rp_vm_layer *l, const double *ss)
{
	double s2[RP_VM_MAX_POOLS], df[RP_VM_MAX_POOLS], pooled = 0;
	size_t m = 0;

	for (size_t p = 0; p < vm->n_pools; p++)
		if (l->dfp[p] > 0) {
			s2[m] = ss[p] / l->dfp[p];
			df[m++] = l->dfp[p];
			pooled += l->dfp[p];
		}
	fslab_var_prior(s2, df, m, RP_VM_PRIOR_Z, &l->d0, &l->s02);
	/* s02 is itself estimated from the pooled degrees of freedom: the
	 * prior is worth no more than those (an infinite d0 would treat it as
	 * known) */
	if (l->d0 > pooled)
		l->d0 = pooled;
	for (size_t p = 0; p < vm->n_pools; p++) {
		double s = l->dfp[p] > 0 ? ss[p] / l->dfp[p] : NAN;

		if (l->d0 > 0 && l->dfp[p] > 0) {
			/* never below the pool's own: where the tests' variances
			 * are not the prior's inverse chi-square, shrinking a noisy
			 * test towards the quiet ones would call its noise a
			 * difference */
			l->v[p] = fmax(s, (l->d0 * l->s02 + l->dfp[p] * s) / (l->d0 + l->dfp[p]));
			l->dfm[p] = l->d0 + l->dfp[p];
		} else {
			l->v[p] = s;
			l->dfm[p] = l->dfp[p];
		}
	}
}

/* Step 0: each filesystem's noise factor.  A filesystem may be noisier
 * than the others in every test (FUSE, copy-on-write): its log variances
 * sit above its pools' means by about the same amount in each test.  That
 * offset, averaged over its tests, is shrunk towards 0 by how much of the
 * offsets' scatter is more than sampling noise (an empirical-Bayes
 * estimate of a random effect): equal filesystems get factor 1, so their
 * pool is shared whole; a filesystem 3x noisier keeps most of its 9x. */
static void vm_factors(const struct rp_vm_in *in, size_t n, struct rp_varmodel *vm)
{
	double psum[RP_VM_MAX_POOLS] = { 0 }, off[RP_VM_MAX_KEYS] = { 0 }, noise[RP_VM_MAX_KEYS] = { 0 };
	size_t pcnt[RP_VM_MAX_POOLS] = { 0 }, kcnt[RP_VM_MAX_KEYS] = { 0 }, nk = 0;

	for (size_t k = 0; k < RP_VM_MAX_KEYS; k++) {
		vm->factor[k] = 1;
		vm->fvar[k] = 0;
	}
	for (size_t i = 0; i < n; i++)
		if (vm_usable(in[i].s) && in[i].s->lvar > 0 && in[i].pool < vm->n_pools &&
		    in[i].key < RP_VM_MAX_KEYS) {
			double d = (double)in[i].s->n_trials - 1;
			psum[in[i].pool] += fslab_log_var_centred(in[i].s->lvar, d);
			pcnt[in[i].pool]++;
		}
	for (size_t i = 0; i < n; i++) {
		const struct rp_score *s = in[i].s;
		if (!vm_usable(s) || !(s->lvar > 0) || in[i].pool >= vm->n_pools ||
		    in[i].key >= RP_VM_MAX_KEYS || pcnt[in[i].pool] < 2)
			continue;
		double d = (double)s->n_trials - 1, np = (double)pcnt[in[i].pool];
		double e = fslab_log_var_centred(s->lvar, d);

		off[in[i].key] += e - psum[in[i].pool] / np;
		noise[in[i].key] += fslab_trigamma(d / 2) * (1 - 1 / np);
		kcnt[in[i].key]++;
	}
	double mean2 = 0, noise_mean = 0;
	for (size_t k = 0; k < RP_VM_MAX_KEYS; k++)
		if (kcnt[k]) {
			off[k] /= (double)kcnt[k];
			noise[k] /= (double)kcnt[k] * (double)kcnt[k]; /* of the mean offset */
			mean2 += off[k] * off[k];
			noise_mean += noise[k];
			nk++;
		}
	if (nk < 2)
		return;
	/* the offsets average 0 within each pool; their spread beyond noise */
	double tau2 = mean2 / (double)(nk - 1) - noise_mean / (double)nk;
	vm->fs_spread = tau2 > 0 ? tau2 : 0;
	if (!(tau2 > 0))
		return;
	for (size_t k = 0; k < RP_VM_MAX_KEYS; k++)
		if (kcnt[k])
			/* the posterior mean of exp(offset): shrunk, plus half its
			 * posterior variance */
			vm->fvar[k] = tau2 * noise[k] / (tau2 + noise[k]),
			vm->factor[k] = exp(off[k] * tau2 / (tau2 + noise[k]) + 0.5 * vm->fvar[k]);
}

void rp_varmodel_fit(const struct rp_vm_in *in, size_t n, size_t n_pools, struct rp_varmodel *vm)
{
	double ss[RP_VM_MAX_POOLS];

	memset(vm, 0, sizeof(*vm));
	vm->n_pools = n_pools < RP_VM_MAX_POOLS ? n_pools : RP_VM_MAX_POOLS;
	vm_factors(in, n, vm);
	vm_pools(in, n, vm, &vm->all, ss);
	vm_moderate_pools(vm, &vm->all, ss);
	vm_pools_blocked(in, n, vm, &vm->blocked, ss);
	vm_moderate_pools(vm, &vm->blocked, ss);
}

void rp_est_of(const struct rp_score *s, const struct rp_varmodel *vm, size_t pool, size_t key,
	       struct rp_est *e)
{
	double d = (double)s->n_trials - 1;

	*e = (struct rp_est){ .n = s->n_trials, .lmean = s->lmean, .s2 = NAN, .df = d, .s2b = NAN,
			      .dfb = NAN, .pool = SIZE_MAX };
	if (!vm_usable(s))
		return;
	if (!vm || pool >= vm->n_pools || key >= RP_VM_MAX_KEYS || !(vm->all.dfm[pool] > 0)) {
		e->s2 = s->lvar;
		return;
	}
	/* the pool's variance, in this filesystem's noise */
	e->pool = pool;
	e->s2 = vm->factor[key] * vm->all.v[pool];
	e->df = fslab_df_scaled(vm->all.dfm[pool], vm->fvar[key]);
	if (vm->blocked.dfm[pool] > 0) {
		e->s2b = vm->factor[key] * vm->blocked.v[pool];
		e->dfb = fslab_df_scaled(vm->blocked.dfm[pool], vm->fvar[key]);
	}
}

bool rp_est_testable(const struct rp_est *e)
{
	return e->n >= 2 && isfinite(e->lmean) && isfinite(e->s2);
}

/* The word is lib/stats.h's, shared with fslab run's stopping rule. */
static enum rp_dir rp_dir_of(double lo, double hi, double delta)
{
	static const enum rp_dir dir[] = {
		[FSLAB_RATIO_UNTESTED] = RP_DIR_UNTESTED, [FSLAB_RATIO_SLOWER] = RP_DIR_SLOWER,
		[FSLAB_RATIO_FASTER] = RP_DIR_FASTER, [FSLAB_RATIO_EQUIVALENT] = RP_DIR_EQUIVALENT,
		[FSLAB_RATIO_INCONCLUSIVE] = RP_DIR_INCONCLUSIVE,
	};
	unsigned w = (unsigned)fslab_ratio_word_of(lo, hi, delta);

	return w < sizeof(dir) / sizeof(dir[0]) ? dir[w] : RP_DIR_UNTESTED;
}

/* The variance of x's mean log score minus y's, and its degrees of
 * freedom (model.h).  Two entries of one pool share its estimate (counted once, not
 * as two independent ones, which would double its degrees of freedom),
 * and the trials' common effect cancels between them: the blocked
 * variance when there is one.  Else Welch-Satterthwaite on two
 * independent estimates. */
void rp_cmp_var(const struct rp_est *x, const struct rp_est *y, double *var, double *df)
{
	double nx = (double)x->n, ny = (double)y->n;

	if (x->pool != SIZE_MAX && x->pool == y->pool) {
		bool blocked = isfinite(x->s2b) && isfinite(y->s2b);

		*var = blocked ? x->s2b / nx + y->s2b / ny : x->s2 / nx + y->s2 / ny;
		*df = blocked ? fmin(x->dfb, y->dfb) : fmin(x->df, y->df);
		return;
	}
	fslab_welch(x->s2 / nx, x->df, y->s2 / ny, y->df, var, df);
}

void rp_compare_log(double dl, double se, double df, size_t m, double delta, struct rp_cmp *c)
{
	c->ratio = exp(dl);
	c->lo = c->hi = c->p = c->p_adj = c->resolve = c->df = NAN;
	c->tested = false;
	c->delta = delta;
	c->dir = RP_DIR_UNTESTED;
	if (!(se >= 0) || !isfinite(se) || m == 0)
		return;
	c->df = df;
	c->tested = true;
	fslab_log_ratio_test(dl, se, df, RP_FAMILY_ALPHA / (double)m, &c->lo, &c->hi, &c->p);
	c->resolve = sqrt(c->hi / c->lo) - 1; /* exp(crit se) - 1 */
	c->p_adj = fmin(1, c->p * (double)m);
	c->dir = rp_dir_of(c->lo, c->hi, delta);
}

void rp_compare(const struct rp_est *x, const struct rp_est *y, size_t m, double delta,
		struct rp_cmp *c)
{
	double var = NAN, df = NAN;

	if (rp_est_testable(x) && rp_est_testable(y))
		rp_cmp_var(x, y, &var, &df);
	rp_compare_log(x->lmean - y->lmean, sqrt(var), df, m, delta, c);
}
