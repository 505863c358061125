/* The first screen per band of file sizes: for each workload family and
 * band (small 64K-1M, medium 2M-64M, large 128M-2G), the leader, its
 * margin over the next best and how sure.
 *
 * Two entries of one run are compared cell by cell: the run measures a
 * cell on every filesystem back to back in each trial, so a drift shared
 * within that block cancels in their ratio, and the band's cells, not
 * only its trials, are the replicates (bd_paired).  Entries of two runs
 * fall back to band scores (per trial the geometric mean of the band's
 * ok samples) and the trials-as-blocks model of infer.c, their standard
 * errors over a family's tests added.  The family of the screen is every
 * pair of candidates in every family and band (Bonferroni); flagged
 * figures are set aside as in the verdicts. */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const bd_bands[RP_N_BAND_LINES] = { "small (64K-1M)", "medium (2M-64M)", "large (128M-2G)",
							 "all sizes (64K-2G)" };
_Static_assert((int)RP_N_BANDS == (int)FSLAB_N_BANDS, "the report's bands are lib/names.h's");

const char *rp_band_name(int b)
{
	return b >= 0 && b < RP_N_BAND_LINES ? bd_bands[b] : "?";
}

/* Is a file size in band line b? */
static bool bd_in(uint64_t file_kib, int b)
{
	int k = fslab_band_of(file_kib);

	return b == RP_BAND_ALL ? k < RP_N_BANDS : k == b;
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
		if (!c->n_ok || !bd_in(c->file_kib, b))
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
 * beyond: none, its own variance; only with more than 4 runs). */
static size_t bd_pool(const struct rp_data *d, const struct rp_entry *e, int t, int b)
{
	return ((size_t)(e->run - d->runs) * RP_N_BAND_LINES + (size_t)b) * FSLAB_TEST_MAX + (size_t)t;
}

/* One cell two entries share in test t: its key and per-trial log-ratio
 * (NaN: a trial not measured on both). */
#define BD_TRIALS 64
struct bd_unit {
	uint64_t key[4];
	int t;
	double d[BD_TRIALS];
};

static int bd_key_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b; /* the key leads struct bd_unit */

	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Entry e's mean log sample of cell c in each trial, times sign, added to d. */
static void bd_cell_logs(const struct rp_entry *e, const struct rp_cell *c, double sign, double *d)
{
	double sum[BD_TRIALS] = { 0 }, n[BD_TRIALS] = { 0 };

	for (unsigned i = 0; i < c->n_ok; i++) {
		const struct rp_sample *sm = &e->samples[c->first + i];

		if (sm->v > 0 && sm->trial < BD_TRIALS)
			sum[sm->trial] += log(sm->v), n[sm->trial]++;
	}
	for (size_t k = 0; k < BD_TRIALS; k++)
		d[k] += sign * (n[k] ? sum[k] / n[k] : NAN);
}

/* x against y in one family and band, paired by cell and trial. */
struct bd_pair {
	double dl;       /* mean over the tests of the mean over the cells of a cell's mean log-ratio */
	double var, v2;  /* its variance with cells independent; sum of var_cell^2 / df_cell */
	double num, den; /* a shared trial effect's variance is num / den (method of moments) */
	double w1, kt;   /* ... and adds w1 times that to var; the trials seen */
};

/* x against y (one run: each trial measured a cell on every filesystem
 * back to back) over the tests ft in band b.  A cell's trials are its
 * replicates (a cell's tests in one trial are one unit, however
 * correlated) and cells are independent, but for a trial effect they
 * share: Q_k, the cells' residuals in trial k summed, agree across cells
 * only then.  False: no cell with two shared trials. */
static bool bd_paired(const struct rp_entry *x, const struct rp_entry *y, int b, unsigned ft, struct bd_pair *p)
{
	size_t nu = 0, cap = 0;
	struct bd_unit *u = NULL;
	double ct[FSLAB_TEST_MAX] = { 0 }, qk[BD_TRIALS] = { 0 }, ntests = 0, rr = 0, ww = 0;
	bool ok = false, seen[BD_TRIALS] = { false };

	memset(p, 0, sizeof(*p));
	RP_FOR_TESTS(t, ft) {
		const struct rp_cell *cy = &y->cells[y->test_first[t]], *ey = &y->cells[y->test_first[t + 1]];

		RP_FOR_CELLS(cx, x, t) {
			uint64_t kx[4] = { cx->file_kib, cx->record_kib, cx->iodepth, cx->jobs };
			int c = 1;

			if (!bd_in(cx->file_kib, b) || !cx->n_ok)
				continue;
			while (cy < ey &&
			       (c = bd_key_cmp((uint64_t[4]){ cy->file_kib, cy->record_kib, cy->iodepth, cy->jobs }, kx)) < 0)
				cy++;
			if (c || !cy->n_ok)
				continue;
			if (nu == cap) {
				struct bd_unit *nw = realloc(u, (cap = 2 * cap + 16) * sizeof(*u));

				if (!nw)
					goto out;
				u = nw;
			}
			memcpy(u[nu].key, kx, sizeof(kx));
			u[nu].t = t;
			memset(u[nu].d, 0, sizeof(u[nu].d));
			bd_cell_logs(x, cx, 1, u[nu].d);
			bd_cell_logs(y, cy, -1, u[nu++].d);
		}
	}
	if (nu)
		qsort(u, nu, sizeof(*u), bd_key_cmp);
	/* a cell's trials: those every test of it has; a cell with two or
	 * more counts, first (pass 0) into its tests' numbers of cells */
	for (int pass = 0; pass < 2; pass++)
		for (size_t g = 0, h; g < nu; g = h) {
			double z[BD_TRIALS], m = 0, s2 = 0, w = 0, n = 0;

			for (h = g; h < nu && !bd_key_cmp(&u[g], &u[h]); h++)
				w += pass && ct[u[h].t] > 0 ? 1 / ct[u[h].t] : 0;
			for (size_t k = 0; k < BD_TRIALS; k++) {
				z[k] = 0;
				for (size_t i = g; i < h; i++)
					z[k] += !pass ? u[i].d[k] : ct[u[i].t] > 0 ? u[i].d[k] / ct[u[i].t] : NAN;
				n += isfinite(z[k]), m += isfinite(z[k]) ? z[k] : 0;
			}
			if (n < 2)
				continue;
			for (size_t i = g; i < h && !pass; i++)
				ct[u[i].t]++;
			if (!pass)
				continue;
			m /= n;
			for (size_t k = 0; k < BD_TRIALS; k++)
				s2 += isfinite(z[k]) ? (z[k] - m) * (z[k] - m) / (n - 1) : 0;
			p->dl += m, p->var += s2 / n, p->v2 += s2 * s2 / (n * n * (n - 1)), ww += w * w;
			for (size_t k = 0; k < BD_TRIALS; k++)
				if (isfinite(z[k]))
					qk[k] += z[k] - m, rr += (z[k] - m) * (z[k] - m), seen[k] = true;
		}
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		ntests += ct[t] > 0;
	for (size_t k = 0; k < BD_TRIALS; k++)
		p->num += qk[k] * qk[k], p->kt += seen[k];
	if ((ok = ntests > 0 && p->var > 0)) {
		/* E[sum Q_k^2 - sum r^2] = (T - 1) su2 (1 - sum w_g^2), a cell's
		 * weight w_g in the estimate (they sum to 1) */
		ww /= ntests * ntests;
		p->num = (p->num - rr) / (ntests * ntests);
		p->den = (p->kt - 1) * (1 - ww);
		p->w1 = (1 - ww) / p->kt;
		p->dl /= ntests;
		p->var /= ntests * ntests;
		p->v2 /= ntests * ntests * ntests * ntests;
	}
out:
	free(u);
	return ok;
}

/* x against y over the tests ft[f][b] of family f in band b, paired:
 * *dl, *se and *df.  The trial effect's variance is pooled over every
 * family and band of the pair (a filesystem's state in a trial is shared
 * by all of them; the more cells, the better it is told from their own
 * noise), truncated at 0, on the trials' df; the df of the sum as if
 * its two parts were fully correlated (they share the trials), which the
 * A/A tests found holds the 5% where Satterthwaite's did not quite. */
static bool bd_paired_cmp(const struct rp_entry *x, const struct rp_entry *y, const unsigned ft[][RP_N_BAND_LINES],
			  int f, int b, double *dl, double *se, double *df)
{
	struct bd_pair p, q;
	double num = 0, den = 0;

	/* trials beyond BD_TRIALS would be left out here: such a run keeps
	 * the per-trial band scores, which see every trial */
	if (x->run != y->run || x->max_trial >= BD_TRIALS || y->max_trial >= BD_TRIALS ||
	    !bd_paired(x, y, b, ft[f][b], &p))
		return false;
	for (int g = 0; g < RP_N_FAMILIES; g++)
		for (int c = 0; c < RP_N_BANDS; c++)
			if (ft[g][c] && bd_paired(x, y, c, ft[g][c], &q) && q.den > 0)
				num += q.num, den += q.den;
	double vu = den > 0 ? fmax(0, num / den) * p.w1 : 0, v = p.var + vu;

	*dl = p.dl;
	*se = sqrt(v);
	*df = v * v / pow(sqrt(p.v2) + (p.kt > 1 ? vu / sqrt(p.kt - 1) : 0), 2);
	return true;
}

/* Family f in band b: the leader and the next best over the tests ft of
 * the scores sc; with cmp false only the candidates are
 * counted into s->bands.m. */
static void bd_family(struct rp_summary *s, const struct rp_data *d, int f, int b, const unsigned fts[][RP_N_BAND_LINES],
		      const struct rp_score *sc, const struct rp_varmodel *vm, bool cmp)
{
	unsigned ft = fts[f][b];
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
	double dl = best[0] - best[1];

	if (bd_paired_cmp(v->lead, v->next, fts, f, b, &dl, &se, &df)) {
		if (dl < 0) { /* paired, the next best is ahead */
			v->lead = d->all[top[1]], v->next = d->all[top[0]];
			dl = -dl;
		}
	} else {
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
	}
	rp_compare_log(dl, se, df, s->bands.m, s->delta, &v->cmp);
	v->within = v->cmp.dir == RP_DIR_EQUIVALENT ? fmax(1, ceil(100 * fmax(v->cmp.hi - 1, 1 - v->cmp.lo))) / 100
						    : NAN;
}

/* Every entry's band scores in the tests of fam, one variance model over
 * every band and test (the more pools, the better their prior), then each
 * family and band. */
static int bd_all(struct rp_summary *s, const struct rp_data *d, const unsigned *fam)
{
	size_t n = d->n_all, nv = 0, nk = (n ? n : 1) * RP_N_BAND_LINES * FSLAB_TEST_MAX;
	struct rp_score *sc = calloc(nk, sizeof(*sc));
	struct rp_vm_in *in = calloc(nk, sizeof(*in));
	struct rp_varmodel *vm = calloc(1, sizeof(*vm));
	unsigned clean[RP_N_BAND_LINES] = { 0 }, tests = 0, ft[RP_N_FAMILIES][RP_N_BAND_LINES];
	int rc = -ENOMEM;

	if (!sc || !in || !vm)
		goto out;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		tests |= fam[f] & s->tests;
	for (int b = 0; b < RP_N_BAND_LINES; b++)
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
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (int b = 0; b < RP_N_BAND_LINES; b++)
			ft[f][b] = fam[f] & s->tests & clean[b];
	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < RP_N_FAMILIES; f++)
			for (int b = 0; b < RP_N_BAND_LINES; b++)
				bd_family(s, d, f, b, ft, sc, vm, pass == 1);
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
		for (int b = 0; b < RP_N_BAND_LINES; b++) {
			bd_line(&s->bands.v[f][b]);
			s->bands.any |= s->bands.v[f][b].lead != NULL;
		}
	return rc;
}
