/* The order effect: does a filesystem score differently when it is
 * measured first in its trial than when it is measured last?
 *
 * A run visits its filesystems in a shuffled order each trial (lib/spec.h
 * fslab_sweep_trial_order, replayed here from the manifest's seed), so no
 * filesystem is always first; but one filesystem's work can still change
 * the next one's figures (a drive's write cache and garbage collection,
 * its heat, the machine's memory).  For each test of each such run, the
 * log trial scores of the filesystems that measured every common trial
 * are taken as a two-way table (filesystem x trial); its residuals (the
 * filesystem's and the trial's effects taken out, as report/infer.c does)
 * of the filesystem that ran first in each trial are compared with those
 * of the one that ran last.  The difference of their means has the
 * variance s2 (1/K + 1/K), s2 the residual variance on (E-1)(K-1) degrees
 * of freedom (conservative: a residual varies less than s2), and its
 * interval is Student's t at alpha / m over the m tests checked
 * (Bonferroni).  An interval that excludes 1 is an order effect. */
#include "format.h"
#include "spec.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct od_pair {
	const struct rp_run *run;
	enum fslab_test test;
	double diff, se, df;
	size_t trials;
};

/* The trial's score of entry s, by trial number; NaN when it has none. */
static double od_trial_score(const struct rp_score *s, unsigned trial)
{
	for (size_t k = 0; k < s->n_trials; k++)
		if (s->trial_no[k] == trial)
			return s->trial[k];
	return NAN;
}

/* The first-minus-last difference of one test of one run: false when the
 * run's data cannot give one (fewer than 2 filesystems or 2 trials that
 * all of them measured). */
static bool od_test(const struct rp_run *r, enum fslab_test t, struct od_pair *out)
{
	struct rp_score sc[FSLAB_MAX_FS];
	const struct rp_entry *e[FSLAB_MAX_FS];
	size_t ne = 0, nk = 0, order[FSLAB_MAX_FS];
	unsigned trials[FSLAB_TRIALS_MAX];
	double *y = NULL;
	bool ok = false;

	for (size_t i = 0; i < r->n_entries && ne < FSLAB_MAX_FS; i++) {
		const struct rp_entry *x = &r->entries[i];

		if (!x->has_info || x->partial[t] || x->info.run_index < 0 ||
		    (size_t)x->info.run_index >= r->n_fs)
			continue;
		memset(&sc[ne], 0, sizeof(sc[ne]));
		if (rp_plateau(x, t, &sc[ne]) < 0 || !sc[ne].trial_no) {
			rp_score_free(&sc[ne]);
			continue;
		}
		e[ne++] = x;
	}
	/* the trials every one of them measured, with a positive score */
	for (unsigned tr = 1; ne >= 2 && tr <= r->trials && tr <= FSLAB_TRIALS_MAX; tr++) {
		bool all = true;

		for (size_t i = 0; i < ne && all; i++) {
			double v = od_trial_score(&sc[i], tr);
			all = isfinite(v) && v > 0;
		}
		if (all)
			trials[nk++] = tr;
	}
	if (ne < 2 || nk < 2 || !(y = malloc(ne * nk * sizeof(*y))))
		goto out;
	double grand = 0, row[FSLAB_MAX_FS] = { 0 }, ss = 0, first = 0, last = 0;

	for (size_t i = 0; i < ne; i++)
		for (size_t k = 0; k < nk; k++) {
			y[i * nk + k] = log(od_trial_score(&sc[i], trials[k]));
			row[i] += y[i * nk + k] / (double)nk;
			grand += y[i * nk + k] / (double)(ne * nk);
		}
	for (size_t k = 0; k < nk; k++) {
		double col = 0;
		size_t fi = 0, li = 0, pos[FSLAB_MAX_FS];

		for (size_t i = 0; i < ne; i++)
			col += y[i * nk + k] / (double)ne;
		fslab_sweep_trial_order(r->seed, r->shuffle, trials[k], r->n_fs, order);
		for (size_t p = 0; p < r->n_fs; p++)
			pos[order[p]] = p;
		for (size_t i = 0; i < ne; i++) {
			double res = y[i * nk + k] - row[i] - col + grand;

			ss += res * res;
			y[i * nk + k] = res;
			if (pos[e[i]->info.run_index] < pos[e[fi]->info.run_index])
				fi = i;
			if (pos[e[i]->info.run_index] > pos[e[li]->info.run_index])
				li = i;
		}
		first += y[fi * nk + k];
		last += y[li * nk + k];
	}
	out->run = r;
	out->test = t;
	out->trials = nk;
	out->df = (double)((ne - 1) * (nk - 1));
	out->diff = (first - last) / (double)nk;
	out->se = sqrt(ss / out->df * 2.0 / (double)nk);
	ok = isfinite(out->diff) && isfinite(out->se);
out:
	free(y);
	for (size_t i = 0; i < ne; i++)
		rp_score_free(&sc[i]);
	return ok;
}

void rp_order_effects(struct rp_summary *s, const struct rp_data *d)
{
	struct od_pair p[FSLAB_REPORT_MAX_DIRS * FSLAB_TEST_MAX];
	size_t n = 0, len = 0;

	s->order_tested = s->n_order = 0;
	s->order_text[0] = '\0';
	for (size_t ri = 0; ri < d->n_runs; ri++) {
		const struct rp_run *r = &d->runs[ri];

		if (!r->order_known || !r->shuffle || r->n_fs < 2)
			continue;
		for (int t = 0; t < FSLAB_TEST_MAX && n < sizeof(p) / sizeof(p[0]); t++)
			if (od_test(r, (enum fslab_test)t, &p[n]))
				n++;
	}
	s->order_tested = n;
	for (size_t i = 0; i < n; i++) {
		struct rp_order_effect *o = &s->order[s->n_order];
		double lo, hi;

		fslab_log_ratio_interval(p[i].diff, p[i].se, p[i].df, FSLAB_FAMILY_ALPHA / (double)n,
					 &lo, &hi);
		if (!(lo > 1 || hi < 1))
			continue;
		*o = (struct rp_order_effect){ p[i].run, p[i].test, exp(p[i].diff), lo, hi,
					       p[i].trials };
		s->n_order++;
	}
	for (size_t i = 0; i < s->n_order && len < sizeof(s->order_text) - 200; i++) {
		const struct rp_order_effect *o = &s->order[i];

		len += (size_t)snprintf(s->order_text + len, sizeof(s->order_text) - len,
					"%s%s%s%s %.2fx [%.2f-%.2f]", i ? "; " : "",
					fslab_test_to_string(o->test), d->n_runs > 1 ? " in " : "",
					d->n_runs > 1 ? o->run->tag : "", o->ratio, o->lo, o->hi);
	}
}
