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
#include <stdio.h>
#include <stdlib.h>

void rp_est_of(const struct rp_score *s, const struct rp_prior *p, struct rp_est *e)
{
	double d = (double)s->n_trials - 1;

	e->n = s->n_trials;
	e->lmean = s->lmean;
	e->s2 = e->df = NAN;
	if (s->n_trials < 2 || !isfinite(s->lmean) || !isfinite(s->lvar))
		return;
	if (!p || !(p->d0 > 0)) {
		e->s2 = s->lvar;
		e->df = d;
	} else if (isinf(p->d0)) {
		e->s2 = p->s02;
		e->df = INFINITY;
	} else {
		e->s2 = (p->d0 * p->s02 + d * s->lvar) / (p->d0 + d);
		e->df = p->d0 + d;
	}
}

bool rp_est_testable(const struct rp_est *e)
{
	return e->n >= 2 && isfinite(e->lmean) && isfinite(e->s2);
}

void rp_prior_fit(const struct rp_score *const *s, size_t n, struct rp_prior *p)
{
	double *s2 = malloc((n ? n : 1) * sizeof(double)), *df = malloc((n ? n : 1) * sizeof(double));
	size_t m = 0;

	p->d0 = 0;
	p->s02 = NAN;
	if (s2 && df) {
		for (size_t i = 0; i < n; i++)
			if (s[i]->n_trials >= 2 && isfinite(s[i]->lvar)) {
				s2[m] = s[i]->lvar;
				df[m++] = (double)s[i]->n_trials - 1;
			}
		fslab_var_prior(s2, df, m, &p->d0, &p->s02);
	}
	free(s2);
	free(df);
}

/* Significant digits enough that a bound on one side of 1 is not shown on
 * the other side of it or at 1 itself ("1.00" for 1.003 next to
 * "faster"): 2 decimals, more only when needed, at most 5. */
char *rp_fmt_bound(double v, char *buf, size_t len)
{
	for (int prec = 2; prec <= 5; prec++) {
		snprintf(buf, len, "%.*f", prec, v);
		double back = strtod(buf, NULL);

		if (!((v > 1 && back <= 1) || (v < 1 && back >= 1)))
			return buf;
	}
	/* within 5e-6 of 1: cut towards its own side */
	snprintf(buf, len, "%.5f", v < 1 ? floor(v * 1e5) / 1e5 : ceil(v * 1e5) / 1e5);
	return buf;
}

char *rp_fmt_ratio_ci(const struct rp_cmp *c, const char *sep, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (isnan(c->lo))
		snprintf(buf, len, "%.2f", c->ratio);
	else
		snprintf(buf, len, "%.2f [%s%s%s]", c->ratio, rp_fmt_bound(c->lo, lo, sizeof(lo)), sep,
			 rp_fmt_bound(c->hi, hi, sizeof(hi)));
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

void rp_compare(const struct rp_est *x, const struct rp_est *y, size_t m, double delta,
		struct rp_cmp *c)
{
	double dl = x->lmean - y->lmean;

	c->ratio = exp(dl);
	c->lo = c->hi = c->p = c->p_adj = c->resolve = c->df = NAN;
	c->tested = false;
	c->dir = RP_DIR_UNTESTED;
	if (!rp_est_testable(x) || !rp_est_testable(y) || m == 0)
		return;
	double a = x->s2 / (double)x->n, b = y->s2 / (double)y->n, se = sqrt(a + b);
	double den = (isinf(x->df) ? 0 : a * a / x->df) + (isinf(y->df) ? 0 : b * b / y->df);

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
