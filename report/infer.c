/* The inference behind every verdict of the report: one simultaneous
 * interval per comparison, and the word read off that interval.
 *
 * Each entry's score in a test is the geometric mean of its trial scores;
 * two entries are compared on the difference of the means of the log
 * trial scores, so a ratio's interval is symmetric in log space and a
 * slowdown of 10% means the same at 10 MiB/s and at 10 GiB/s.  The
 * variance of each entry's log trial scores is moderated towards a prior
 * fitted to every (entry, test) of the report (Smyth 2004; see
 * lib/stats.h fslab_var_prior): three trials give 2 degrees of freedom of
 * their own, the prior adds d0 more, as many as the variances' agreement
 * across tests and filesystems supports.  The pair's standard error is
 * Welch's (each side its own moderated variance), its degrees of freedom
 * Welch-Satterthwaite's.  The interval is Student's t at alpha / m, m the
 * number of comparisons in the family (Bonferroni): every interval of the
 * family covers its true ratio with probability at least 1 - alpha
 * together, so a verdict read off any of them is a family-wise one.
 * docs/report.md, "Significance", explains the choice. */
#include "report_priv.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* An entry's own variance usable for the fit: 2 trials or more, finite. */
static bool vm_usable(const struct rp_score *s)
{
	return s->n_trials >= 2 && isfinite(s->lvar) && isfinite(s->lmean);
}

/* Step 1: each pool's variance, the trials' sums of squares pooled over
 * its entries, each scaled by its filesystem's noise factor. */
static void vm_pools(const struct rp_vm_in *in, size_t n, struct rp_varmodel *vm, double *ss)
{
	for (size_t p = 0; p < vm->n_pools; p++) {
		ss[p] = 0;
		vm->dfp[p] = 0;
	}
	for (size_t i = 0; i < n; i++)
		if (vm_usable(in[i].s) && in[i].pool < vm->n_pools) {
			double d = (double)in[i].s->n_trials - 1;

			ss[in[i].pool] += d * in[i].s->lvar / vm->factor[in[i].key];
			vm->dfp[in[i].pool] += d;
		}
}

/* Step 2: the pools' variances moderated towards their common prior. */
static void vm_moderate_pools(struct rp_varmodel *vm, const double *ss)
{
	double s2[RP_VM_MAX_POOLS], df[RP_VM_MAX_POOLS], pooled = 0;
	size_t m = 0;

	for (size_t p = 0; p < vm->n_pools; p++)
		if (vm->dfp[p] > 0) {
			s2[m] = ss[p] / vm->dfp[p];
			df[m++] = vm->dfp[p];
			pooled += vm->dfp[p];
		}
	fslab_var_prior(s2, df, m, RP_VM_PRIOR_Z, &vm->d0, &vm->s02);
	/* s02 is itself estimated from the pooled degrees of freedom: the
	 * prior is worth no more than those (an infinite d0 would treat it as
	 * known) */
	if (vm->d0 > pooled)
		vm->d0 = pooled;
	for (size_t p = 0; p < vm->n_pools; p++) {
		double s = vm->dfp[p] > 0 ? ss[p] / vm->dfp[p] : NAN;

		if (vm->d0 > 0 && vm->dfp[p] > 0) {
			/* never below the pool's own: where the tests' variances
			 * are not the prior's inverse chi-square, shrinking a noisy
			 * test towards the quiet ones would call its noise a
			 * difference */
			vm->v[p] = fmax(s, (vm->d0 * vm->s02 + vm->dfp[p] * s) / (vm->d0 + vm->dfp[p]));
			vm->dfm[p] = vm->d0 + vm->dfp[p];
		} else {
			vm->v[p] = s;
			vm->dfm[p] = vm->dfp[p];
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
			psum[in[i].pool] += log(in[i].s->lvar) - fslab_digamma(d / 2) + log(d / 2);
			pcnt[in[i].pool]++;
		}
	for (size_t i = 0; i < n; i++) {
		const struct rp_score *s = in[i].s;
		if (!vm_usable(s) || !(s->lvar > 0) || in[i].pool >= vm->n_pools ||
		    in[i].key >= RP_VM_MAX_KEYS || pcnt[in[i].pool] < 2)
			continue;
		double d = (double)s->n_trials - 1, np = (double)pcnt[in[i].pool];
		double e = log(s->lvar) - fslab_digamma(d / 2) + log(d / 2);

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
	vm_pools(in, n, vm, ss);
	vm_moderate_pools(vm, ss);
}

void rp_est_of(const struct rp_score *s, const struct rp_varmodel *vm, size_t pool, size_t key,
	       struct rp_est *e)
{
	double d = (double)s->n_trials - 1;

	*e = (struct rp_est){ .n = s->n_trials, .lmean = s->lmean, .s2 = NAN, .shared = 0,
			      .shared_df = INFINITY, .own_df = d, .pool = SIZE_MAX };
	if (!vm_usable(s))
		return;
	if (!vm || pool >= vm->n_pools || key >= RP_VM_MAX_KEYS || !(vm->dfm[pool] > 0)) {
		e->s2 = s->lvar;
		return;
	}
	/* the pool's variance, in this filesystem's noise */
	e->pool = pool;
	e->shared = e->s2 = vm->factor[key] * vm->v[pool];
	/* a factor known only roughly costs degrees of freedom: a chi-square
	 * variance on df degrees has log variance about 2 / df */
	e->shared_df = vm->fvar[key] > 0 ? 2 / (2 / vm->dfm[pool] + vm->fvar[key]) : vm->dfm[pool];
}

bool rp_est_testable(const struct rp_est *e)
{
	return e->n >= 2 && isfinite(e->lmean) && isfinite(e->s2);
}

/* Decimals enough that a bound on one side of a threshold (1, and the
 * equivalence margin's 1 - delta and 1 + delta) is not shown on the other
 * side of it or at it ("1.00" for 1.003 next to "faster", "0.95" for
 * 0.9496 next to "inconclusive"): 2 decimals, more only when needed, at
 * most 5. */
static bool rb_crosses(double v, double back, double th)
{
	return (v > th && back <= th) || (v < th && back >= th);
}

char *rp_fmt_bound(double v, double delta, char *buf, size_t len)
{
	const double th[3] = { 1, 1 - delta, 1 + delta };
	int n = delta > 0 ? 3 : 1;

	for (int prec = 2; prec <= 5; prec++) {
		bool bad = false;

		snprintf(buf, len, "%.*f", prec, v);
		double back = strtod(buf, NULL);
		for (int i = 0; i < n; i++)
			bad |= rb_crosses(v, back, th[i]);
		if (!bad)
			return buf;
	}
	/* within 5e-6 of a threshold: cut towards its own side */
	double near = th[0];
	for (int i = 1; i < n; i++)
		if (fabs(v - th[i]) < fabs(v - near))
			near = th[i];
	snprintf(buf, len, "%.5f", v < near ? floor(v * 1e5) / 1e5 : ceil(v * 1e5) / 1e5);
	return buf;
}

char *rp_fmt_ratio_ci(const struct rp_cmp *c, const char *sep, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (isnan(c->lo))
		snprintf(buf, len, "%.2f", c->ratio);
	else
		snprintf(buf, len, "%.2f [%s%s%s]", c->ratio, rp_fmt_bound(c->lo, c->delta, lo, sizeof(lo)),
			 sep, rp_fmt_bound(c->hi, c->delta, hi, sizeof(hi)));
	return buf;
}

enum rp_dir rp_dir_of(double lo, double hi, double delta)
{
	if (isnan(lo) || isnan(hi))
		return RP_DIR_UNTESTED;
	if (hi < 1)
		return RP_DIR_SLOWER;
	if (lo > 1)
		return RP_DIR_FASTER;
	if (lo >= 1 - delta && hi <= 1 + delta)
		return RP_DIR_EQUIVALENT;
	return RP_DIR_INCONCLUSIVE;
}

/* v * v / df, 0 when df is infinite or v is 0 */
static double cmp_term(double v, double df)
{
	return v == 0 || isinf(df) ? 0 : v * v / df;
}

/* The denominator of the Welch-Satterthwaite degrees of freedom of
 * x->s2 / x->n + y->s2 / y->n, each part once: two entries of one pool
 * share its variance (one estimate, not two independent ones - counting
 * it twice would double its degrees of freedom). */
static double cmp_df_terms(const struct rp_est *x, const struct rp_est *y)
{
	double nx = (double)x->n, ny = (double)y->n;
	double own = cmp_term((x->s2 - x->shared) / nx, x->own_df) +
		     cmp_term((y->s2 - y->shared) / ny, y->own_df);

	if (x->pool != SIZE_MAX && x->pool == y->pool)
		return own + cmp_term(x->shared / nx + y->shared / ny, fmin(x->shared_df, y->shared_df));
	return own + cmp_term(x->shared / nx, x->shared_df) + cmp_term(y->shared / ny, y->shared_df);
}

void rp_compare(const struct rp_est *x, const struct rp_est *y, size_t m, double delta,
		struct rp_cmp *c)
{
	double dl = x->lmean - y->lmean;

	c->ratio = exp(dl);
	c->lo = c->hi = c->p = c->p_adj = c->resolve = c->df = NAN;
	c->tested = false;
	c->delta = delta;
	c->dir = RP_DIR_UNTESTED;
	if (!rp_est_testable(x) || !rp_est_testable(y) || m == 0)
		return;
	double a = x->s2 / (double)x->n, b = y->s2 / (double)y->n, se = sqrt(a + b);
	double den = cmp_df_terms(x, y);

	c->tested = true;
	c->df = den > 0 ? (a + b) * (a + b) / den : INFINITY;
	if (!(se > 0)) { /* no noise at all: any difference is real */
		c->lo = c->hi = c->ratio;
		c->resolve = 0;
		c->p = dl == 0 ? 1.0 : 0.0;
	} else {
		double crit = fslab_t_quantile(RP_FAMILY_ALPHA / (double)m, c->df);

		c->lo = exp(dl - crit * se);
		c->hi = exp(dl + crit * se);
		c->resolve = exp(crit * se) - 1;
		c->p = fslab_t_two_sided_p(fabs(dl) / se, c->df);
	}
	c->p_adj = fmin(1, c->p * (double)m);
	c->dir = rp_dir_of(c->lo, c->hi, delta);
}
