/* The first screen per band of file sizes: for each workload family and
 * band (small 64K-1M, medium 2M-64M, large 128M-2G), the leader, its
 * margin over the next best and how sure.
 *
 * An entry's band score in a test: per trial the geometric mean of its ok
 * samples in the band's cells; so the difference of two entries' mean
 * logs is the mean of their paired log-ratios, one per cell and trial (the
 * block the run measures every filesystem in back to back), and a drift
 * shared within a block cancels.  Their variance is the trials-as-blocks
 * model of infer.c, fitted on the band scores (one fit per band); over a
 * family's tests the log-ratios are averaged and their standard errors
 * added (never narrower however the tests are correlated).  The family of
 * the screen is every pair of candidates in every family and band
 * (Bonferroni); flagged figures are set aside as in the verdicts. */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint64_t lo, hi; /* KiB */
} bd_bands[RP_N_BANDS] = {
	{ "small (64K-1M)", 64, 1024 },
	{ "medium (2M-64M)", 2048, 65536 },
	{ "large (128M-2G)", 131072, 2097152 },
};

const char *rp_band_name(int b)
{
	return b >= 0 && b < RP_N_BANDS ? bd_bands[b].name : "?";
}

int rp_band_of(uint64_t file_kib)
{
	int b = 0;

	while (b < RP_N_BANDS && !(file_kib >= bd_bands[b].lo && file_kib <= bd_bands[b].hi))
		b++;
	return b;
}

/* Entry e's score in test t and band b into s (rp_score_free it);
 * s->n_trials 0: no positive ok sample there. */
static void bd_score(const struct rp_entry *e, int t, int b, struct rp_score *s)
{
	size_t nt = (size_t)e->max_trial + 1;
	double *sum = calloc(2 * nt, sizeof(*sum)), sd;

	memset(s, 0, sizeof(*s));
	s->lmean = s->lvar = s->score = NAN;
	s->trial = malloc(nt * sizeof(*s->trial));
	s->trial_no = malloc(nt * sizeof(*s->trial_no));
	if (!sum || !s->trial || !s->trial_no) {
		free(sum);
		return;
	}
	RP_FOR_CELLS(c, e, t) {
		if (!c->n_ok || rp_band_of(c->file_kib) != b)
			continue;
		s->n_cells++;
		s->flags |= c->flags;
		for (unsigned k = 0; k < c->n_ok; k++) {
			const struct rp_sample *sm = &e->samples[c->first + k];

			if (sm->v > 0 && sm->trial < nt) {
				sum[sm->trial] += log(sm->v);
				sum[nt + sm->trial]++;
			}
		}
	}
	for (size_t k = 0; k < nt; k++)
		if (sum[nt + k] > 0) {
			s->trial_no[s->n_trials] = (unsigned)k;
			s->trial[s->n_trials++] = sum[k] / sum[nt + k];
		}
	free(sum);
	if (!s->n_trials)
		return;
	fslab_mean_sd(s->trial, s->n_trials, &s->lmean, &sd);
	s->lvar = s->n_trials > 1 ? sd * sd : NAN;
	for (size_t k = 0; k < s->n_trials; k++)
		s->trial[k] = exp(s->trial[k]);
	s->score = exp(s->lmean);
}

/* The variance pool of entry e in test t and band b (RP_VM_MAX_POOLS and
 * beyond: none, its own variance; only with more than 5 runs). */
static size_t bd_pool(const struct rp_data *d, const struct rp_entry *e, int t, int b)
{
	return ((size_t)(e->run - d->runs) * RP_N_BANDS + (size_t)b) * FSLAB_TEST_MAX + (size_t)t;
}

/* Family f in band b: the leader and the next best over the tests ft of
 * the scores sc; with cmp false only the candidates are
 * counted into s->bands.m. */
static void bd_family(struct rp_summary *s, const struct rp_data *d, int f, int b, unsigned ft,
		      const struct rp_score *sc, const struct rp_varmodel *vm, bool cmp)
{
	struct rp_band_verdict *v = &s->bands.v[f][b];
	double best[2] = { -INFINITY, -INFINITY }, aside = -INFINITY, se = 0, df = INFINITY, var, dfi;
	size_t top[2] = { SIZE_MAX, SIZE_MAX }, nc = 0, nt = 0, n = d->n_all;

	RP_FOR_TESTS(t, ft)
		nt++;
	for (size_t i = 0; i < n && nt; i++) {
		double l = 0;
		bool ok = true;
		unsigned fl = 0;

		RP_FOR_TESTS(t, ft) {
			size_t k = (b * n + i) * FSLAB_TEST_MAX + (size_t)t;

			ok &= sc[k].n_trials && !d->all[i]->partial[t];
			fl |= sc[k].flags & RP_FLAGS_ASIDE;
			l += ok ? sc[k].lmean / (double)nt : 0;
		}
		if (ok && fl && l > aside) { /* flagged: set aside, the fastest named */
			aside = l;
			v->aside = d->all[i];
			v->aside_flags = fl;
		}
		if (!ok || fl)
			continue;
		nc++;
		size_t r = l > best[0] ? 0 : l > best[1] ? 1 : 2;
		if (r == 0)
			best[1] = best[0], top[1] = top[0];
		if (r < 2)
			best[r] = l, top[r] = i;
	}
	if (!cmp) {
		s->bands.m += nc * (nc - 1) / 2;
		return;
	}
	if (top[0] == SIZE_MAX)
		return;
	v->aside_ratio = exp(aside - best[0]);
	if (!(v->aside_ratio > 1))
		v->aside = NULL; /* named only when it would have led */
	v->lead = d->all[top[0]];
	v->n_tests = nt;
	if (top[1] == SIZE_MAX)
		return;
	v->next = d->all[top[1]];
	RP_FOR_TESTS(t, ft) {
		struct rp_est x, y;

		rp_est_of(&sc[(b * n + top[0]) * FSLAB_TEST_MAX + (size_t)t], vm, bd_pool(d, v->lead, t, b),
			  top[0], &x);
		rp_est_of(&sc[(b * n + top[1]) * FSLAB_TEST_MAX + (size_t)t], vm, bd_pool(d, v->next, t, b),
			  top[1], &y);
		if (!rp_est_testable(&x) || !rp_est_testable(&y)) {
			se = NAN;
			break;
		}
		rp_cmp_var(&x, &y, &var, &dfi);
		se += sqrt(var) / (double)nt;
		df = fmin(df, dfi);
	}
	rp_compare_log(best[0] - best[1], se, df, s->bands.m, s->delta, &v->cmp);
	v->within = v->cmp.dir == RP_DIR_EQUIVALENT ? fmax(1, ceil(100 * fmax(v->cmp.hi - 1, 1 - v->cmp.lo))) / 100
						    : NAN;
}

/* Every entry's band scores in the tests of fam, one variance model over
 * every band and test (the more pools, the better their prior), then each
 * family and band. */
static int bd_all(struct rp_summary *s, const struct rp_data *d, const unsigned *fam)
{
	size_t n = d->n_all, nv = 0, nk = (n ? n : 1) * RP_N_BANDS * FSLAB_TEST_MAX;
	struct rp_score *sc = calloc(nk, sizeof(*sc));
	struct rp_vm_in *in = calloc(nk, sizeof(*in));
	struct rp_varmodel *vm = calloc(1, sizeof(*vm));
	unsigned clean[RP_N_BANDS] = { 0 }, tests = 0;
	int rc = -ENOMEM;

	if (!sc || !in || !vm)
		goto out;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		tests |= fam[f] & s->tests;
	for (int b = 0; b < RP_N_BANDS; b++)
		for (size_t i = 0; i < n; i++)
			RP_FOR_TESTS(t, tests) {
				size_t k = (b * n + i) * FSLAB_TEST_MAX + (size_t)t;
				const struct rp_entry *e = d->all[i];

				bd_score(e, t, b, &sc[k]);
				if (!sc[k].n_trials)
					continue;
				clean[b] |= (sc[k].flags & RP_FLAGS_ASIDE) || e->partial[t] ? 0 : 1u << t;
				in[nv++] = (struct rp_vm_in){ &sc[k], bd_pool(d, e, t, b), i };
			}
	rp_varmodel_fit(in, nv, RP_VM_MAX_POOLS, vm);
	/* a test no entry has clean in a band is left out of it */
	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < RP_N_FAMILIES; f++)
			for (int b = 0; b < RP_N_BANDS; b++)
				bd_family(s, d, f, b, fam[f] & s->tests & clean[b], sc, vm, pass == 1);
	rc = 0;
out:
	for (size_t k = 0; sc && k < nk; k++)
		rp_score_free(&sc[k]);
	free(sc);
	free(in);
	free(vm);
	return rc;
}

/* The verdict as one line. */
static void bd_line(struct rp_band_verdict *v)
{
	const struct rp_cmp *c = &v->cmp;
	char ci[64];

	if (!v->lead)
		return;
	if (!v->next) {
		snprintf(v->line, sizeof(v->line), "%s (no other filesystem to compare)", v->lead->label);
		return;
	}
	rp_fmt_ratio_ci(c, "-", ci, sizeof(ci));
	if (c->dir == RP_DIR_EQUIVALENT)
		snprintf(v->line, sizeof(v->line), "%s and %s (next best) alike within %.0f%%: %s",
			 v->lead->label, v->next->label, 100 * v->within, ci);
	else
		snprintf(v->line, sizeof(v->line), "%s leads, %s x %s (next best): %s", v->lead->label, ci,
			 v->next->label, c->dir == RP_DIR_FASTER ? "faster" : c->dir == RP_DIR_INCONCLUSIVE ?
			 "inconclusive" : "not tested (1 trial)");
	if (c->dir == RP_DIR_INCONCLUSIVE)
		fslab_catf(v->line, sizeof(v->line), ": no difference larger than %.0f%% could be detected", 100 * c->resolve);
	if (v->aside)
		fslab_catf(v->line, sizeof(v->line), "; set aside: %s (%s, %.2fx)", v->aside->label,
			rp_flag_words(v->aside_flags, v->aside->other_flags, ci, sizeof(ci)), v->aside_ratio);
}

int rp_bands_build(struct rp_summary *s, const struct rp_data *d, const unsigned fam[RP_N_FAMILIES])
{
	memset(&s->bands, 0, sizeof(s->bands));
	int rc = bd_all(s, d, fam);

	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (int b = 0; b < RP_N_BANDS; b++) {
			bd_line(&s->bands.v[f][b]);
			s->bands.any |= s->bands.v[f][b].lead != NULL;
		}
	return rc;
}
