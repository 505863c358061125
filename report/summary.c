/* The first screen: which filesystem, for what, by how much, how sure.
 *
 * - The matrix: per test and filesystem the plateau median's ratio to the
 *   best in that test, its approximate 95% interval (delta method on the
 *   two trial-score intervals), and whether it is beyond noise: Welch's
 *   t-test against the best, p values corrected with Holm-Bonferroni over
 *   every comparison in the matrix (the family-wise error stays at 5%
 *   across the 13 tests).
 * - The change matrix: the same filesystem in two runs (each later run
 *   against the first), Holm over its own comparisons.
 * - One verdict line per workload family.
 * - The banners: page cache, missing data, FUSE, too few trials. */
#include "report_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned tests;
} sm_families[RP_N_FAMILIES] = {
	{ "sequential write", 1u << FSLAB_TEST_WRITE | 1u << FSLAB_TEST_REWRITE |
				      1u << FSLAB_TEST_FWRITE | 1u << FSLAB_TEST_FREWRITE },
	{ "sequential read", 1u << FSLAB_TEST_READ | 1u << FSLAB_TEST_REREAD |
				     1u << FSLAB_TEST_FREAD | 1u << FSLAB_TEST_FREREAD },
	{ "random and strided", 1u << FSLAB_TEST_RANDOM_READ | 1u << FSLAB_TEST_RANDOM_WRITE |
					1u << FSLAB_TEST_RECORD_REWRITE |
					1u << FSLAB_TEST_STRIDE_READ | 1u << FSLAB_TEST_BACKWARD_READ },
	{ "small files", FSLAB_TESTS_ALL },
};

const char *rp_family_name(int f)
{
	return f >= 0 && f < RP_N_FAMILIES ? sm_families[f].name : "?";
}

unsigned rp_family_tests(int f)
{
	return f >= 0 && f < RP_N_FAMILIES ? sm_families[f].tests : 0;
}

struct sm_p {
	double p;
	double *adj;
};

static int sm_cmp_p(const void *a, const void *b)
{
	const struct sm_p *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

size_t rp_holm(const double *p, size_t n, double *adj)
{
	struct sm_p *v = malloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	double run = 0;

	for (size_t i = 0; i < n; i++) {
		adj[i] = NAN;
		if (!isnan(p[i]) && v)
			v[m++] = (struct sm_p){ p[i], &adj[i] };
	}
	if (!v)
		return 0;
	qsort(v, m, sizeof(*v), sm_cmp_p);
	for (size_t k = 0; k < m; k++) {
		double a = fmin(1.0, (double)(m - k) * v[k].p);
		run = fmax(run, a); /* adjusted p values never decrease */
		*v[k].adj = run;
	}
	free(v);
	return m;
}

bool rp_log_axis(double lo, double hi)
{
	return lo > 0 && hi > 0 && hi / lo > 10;
}

/* ratio a/b with the delta-method interval from the two half-widths. */
static void sm_ratio(const struct rp_score *a, const struct rp_score *b, double *r, double *lo,
		     double *hi)
{
	*r = b->median > 0 ? a->median / b->median : NAN;
	*lo = *hi = NAN;
	if (isnan(a->ci) || isnan(b->ci) || !(a->mean > 0) || !(b->mean > 0))
		return;
	double rel = sqrt(pow(a->ci / a->mean, 2) + pow(b->ci / b->mean, 2));
	*lo = fmax(0, *r * (1 - rel));
	*hi = *r * (1 + rel);
}

/* The two best complete entries of in (SIZE_MAX: none): the winner and
 * the runner-up of a family. */
static void sm_top_two(const struct rp_fam_in *in, size_t n, size_t *w, size_t *r)
{
	*w = *r = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!in[i].complete || isnan(in[i].score))
			continue;
		if (*w == SIZE_MAX || in[i].score > in[*w].score) {
			*r = *w;
			*w = i;
		} else if (*r == SIZE_MAX || in[i].score > in[*r].score) {
			*r = i;
		}
	}
}

void rp_family_verdict(const char *family, const struct rp_fam_in *in, size_t n, size_t n_tests,
		       unsigned clear, bool tested, char *buf, size_t len)
{
	char skipped[200] = "", tail[260] = "";
	size_t sl = 0, wi, ri;

	for (size_t i = 0; i < n; i++)
		if ((!in[i].complete || isnan(in[i].score)) && sl < sizeof(skipped) - 40)
			sl += (size_t)snprintf(skipped + sl, sizeof(skipped) - sl, "%s%s",
					       sl ? ", " : "", in[i].label);
	if (sl)
		snprintf(tail, sizeof(tail), "; not judged (missing or partial data): %s", skipped);
	sm_top_two(in, n, &wi, &ri);
	if (wi == SIZE_MAX) {
		snprintf(buf, len, "%s: no verdict, no filesystem has complete data%s", family, tail);
		return;
	}
	const struct rp_fam_in *w = &in[wi], *r = ri == SIZE_MAX ? NULL : &in[ri];
	if (!r) {
		snprintf(buf, len, "%s: only %s has complete data, nothing to compare with%s", family,
			 w->label, tail);
		return;
	}
	double margin = w->score / r->score;
	if (!tested)
		snprintf(buf, len, "%s: %s leads, %.2fx %s (not tested against noise: %s)%s", family,
			 w->label, margin, r->label,
			 n_tests ? "1 trial" : "descriptive, cell medians", tail);
	else if (clear == 0)
		snprintf(buf, len, "%s: %s and %s are not distinguishable (%.2fx, within noise in every test)%s",
			 family, w->label, r->label, margin, tail);
	else if (clear == n_tests && n_tests == 1)
		snprintf(buf, len, "%s: %s, %.2fx %s (next best), beyond noise%s", family, w->label,
			 margin, r->label, tail);
	else if (clear == n_tests)
		snprintf(buf, len, "%s: %s, %.2fx %s (next best), beyond noise in all %zu tests%s",
			 family, w->label, margin, r->label, n_tests, tail);
	else
		snprintf(buf, len, "%s: %s, %.2fx %s (next best), beyond noise in %u of %zu tests%s",
			 family, w->label, margin, r->label, clear, n_tests, tail);
}

/* Median over the cells of test t with files up to 1 MiB of the cell
 * medians; NaN without such cells. */
static double sm_small_files_median(const struct rp_entry *e, enum fslab_test t)
{
	double *v = malloc((e->test_first[t + 1] - e->test_first[t] + 1) * sizeof(double));
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t k = e->test_first[t]; k < e->test_first[t + 1]; k++)
		if (e->cells[k].n_ok && e->cells[k].file_kib <= 1024)
			v[n++] = e->cells[k].median;
	double m = fslab_median_sort(v, n);
	free(v);
	return m;
}

/* Per test of ft the best small-file median of any entry (NaN: none). */
static void sm_best_small(const struct rp_data *d, unsigned ft, double best[FSLAB_TEST_MAX])
{
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		best[t] = NAN;
		if (!(ft & (1u << t)))
			continue;
		for (size_t i = 0; i < d->n_all; i++) {
			double v = sm_small_files_median(d->all[i], t);
			if (!isnan(v) && (isnan(best[t]) || v > best[t]))
				best[t] = v;
		}
	}
}

/* Entry i's score in the family of tests ft: the geometric mean of its
 * ratios to the best (small files: its small-file median to the best
 * one's, best_small); incomplete when a test has no ratio or partial data. */
static struct rp_fam_in sm_family_score(const struct rp_summary *s, const struct rp_data *d,
					size_t i, unsigned ft, const double *best_small)
{
	struct rp_fam_in in = { .label = d->all[i]->label, .complete = true };
	double lsum = 0;
	size_t k = 0;

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(ft & (1u << t)))
			continue;
		const struct rp_mcell *c = rp_sum_cell(s, t, i);
		double ratio = best_small ? sm_small_files_median(d->all[i], t) / best_small[t]
					  : (c->has ? c->ratio : NAN);

		if (c->partial)
			in.complete = false;
		if (isnan(ratio) || !(ratio > 0)) {
			in.complete = false;
			continue;
		}
		lsum += log(ratio);
		k++;
	}
	in.score = k ? exp(lsum / (double)k) : NAN;
	return in;
}

/* Tests of ft where the winner wi is #1 and the runner-up ri slower
 * beyond noise (Holm). */
static unsigned sm_clear(const struct rp_summary *s, unsigned ft, size_t wi, size_t ri)
{
	unsigned clear = 0;

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(ft & (1u << t)))
			continue;
		const struct rp_mcell *cw = rp_sum_cell(s, t, wi), *cr = rp_sum_cell(s, t, ri);
		if (cw->rank == 1 && cr->dir == RP_DIR_SLOWER)
			clear++;
	}
	return clear;
}

/* Family f's verdict line into s->verdict[f]; in holds n_all entries. */
static void sm_family(struct rp_summary *s, const struct rp_data *d, int f, struct rp_fam_in *in)
{
	unsigned ft = sm_families[f].tests & s->tests, clear = 0;
	bool small = f == RP_FAMILY_SMALL, tested = !small && s->max_trials >= 2;
	double best_small[FSLAB_TEST_MAX];
	size_t nt = 0, wi, ri;
	char fam[64];

	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		nt += !!(ft & (1u << t));
	s->family_present[f] = nt > 0;
	if (!nt)
		return;
	if (small)
		sm_best_small(d, ft, best_small);
	for (size_t i = 0; i < d->n_all; i++)
		in[i] = sm_family_score(s, d, i, ft, small ? best_small : NULL);
	sm_top_two(in, d->n_all, &wi, &ri);
	if (wi != SIZE_MAX && ri != SIZE_MAX && !small)
		clear = sm_clear(s, ft, wi, ri);
	snprintf(fam, sizeof(fam), "%s%s", sm_families[f].name,
		 small ? " (files up to 1 MiB, all tests)" : "");
	rp_family_verdict(fam, in, d->n_all, small ? 0 : nt, clear, tested, s->verdict[f],
			  sizeof(s->verdict[f]));
}

static void sm_verdicts(struct rp_summary *s, const struct rp_data *d)
{
	struct rp_fam_in *in = calloc(d->n_all ? d->n_all : 1, sizeof(*in));

	if (!in)
		return;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		sm_family(s, d, f, in);
	free(in);
}

/* Later entry b against a (the first run's of that filesystem) in each
 * test: the ratio of plateau medians, its interval, Welch's p. */
static void sm_change_pair(struct rp_change *c, unsigned tests)
{
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		struct rp_score sa, sb;

		c->t[t].p = c->t[t].p_adj = NAN;
		if (!(tests & (1u << t)))
			continue;
		if (rp_plateau(c->a, t, &sa) < 0) {
			rp_score_free(&sa);
			continue;
		}
		if (rp_plateau(c->b, t, &sb) < 0) {
			rp_score_free(&sa);
			rp_score_free(&sb);
			continue;
		}
		c->t[t].has = true;
		c->t[t].partial = c->a->partial[t] || c->b->partial[t];
		sm_ratio(&sb, &sa, &c->t[t].ratio, &c->t[t].lo, &c->t[t].hi);
		c->t[t].p = rp_welch_p(sa.trial, sa.n_trials, sb.trial, sb.n_trials, NULL);
		rp_score_free(&sa);
		rp_score_free(&sb);
	}
}

/* Holm over the change matrix's own comparisons, and each cell's verdict. */
static void sm_changes_holm(struct rp_summary *s)
{
	size_t n = s->n_chg * FSLAB_TEST_MAX, np = 0;
	double *p = calloc(n + 1, sizeof(double)), *adj = malloc((n + 1) * sizeof(double));

	if (p && adj) {
		for (size_t i = 0; i < s->n_chg; i++)
			for (int t = 0; t < FSLAB_TEST_MAX; t++)
				p[np++] = s->chg[i].t[t].has ? s->chg[i].t[t].p : NAN;
		s->n_chg_comparisons = rp_holm(p, np, adj);
		for (size_t k = 0; k < np; k++) {
			struct rp_change_cell *cc = &s->chg[k / FSLAB_TEST_MAX].t[k % FSLAB_TEST_MAX];

			cc->p_adj = adj[k];
			if (!cc->has)
				cc->dir = RP_DIR_NONE;
			else if (isnan(cc->p_adj))
				cc->dir = RP_DIR_UNTESTED;
			else if (cc->p_adj >= 0.05)
				cc->dir = RP_DIR_SAME;
			else
				cc->dir = cc->ratio > 1 ? RP_DIR_FASTER : RP_DIR_SLOWER;
		}
	}
	free(p);
	free(adj);
}

static void sm_changes(struct rp_summary *s, const struct rp_data *d)
{
	if (d->n_runs < 2)
		return;
	s->chg = calloc(d->n_all ? d->n_all : 1, sizeof(*s->chg));
	if (!s->chg)
		return;
	/* each later run's filesystem against the same name in the first run
	 * that has it */
	for (size_t j = 0; j < d->n_all; j++) {
		const struct rp_entry *b = d->all[j], *a = NULL;

		for (size_t i = 0; i < j && !a; i++)
			if (d->all[i]->run != b->run && strcmp(d->all[i]->fs, b->fs) == 0)
				a = d->all[i];
		if (!a)
			continue;
		struct rp_change *c = &s->chg[s->n_chg++];
		c->a = a;
		c->b = b;
		sm_change_pair(c, s->tests);
	}
	sm_changes_holm(s);
}

static void sm_banners(struct rp_summary *s, const struct rp_data *d)
{
	size_t ok = 0, pc = 0, fl = 0, il = 0;

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];
		bool any_partial = false;

		for (size_t k = 0; k < e->n_cells; k++) {
			ok += e->cells[k].n_ok > 0;
			pc += e->cells[k].n_ok > 0 && (e->cells[k].flags & RP_FLAG_PAGE_CACHE);
		}
		if (e->n_flag_fuse || e->type == FSLAB_FS_FAT32) {
			s->fuse = true;
			if (fl < sizeof(s->fuse_names) - 80)
				fl += (size_t)snprintf(s->fuse_names + fl, sizeof(s->fuse_names) - fl,
						       "%s%s", fl ? ", " : "", e->label);
		}
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			any_partial |= e->partial[t];
		if (any_partial || e->n_cells == 0 || e->n_samples == 0) {
			s->incomplete = true;
			if (il < sizeof(s->incomplete_names) - 100)
				il += (size_t)snprintf(s->incomplete_names + il,
						       sizeof(s->incomplete_names) - il, "%s%s (%s)",
						       il ? ", " : "", e->label,
						       e->n_samples == 0 ? "no data" : "partial data");
		}
	}
	for (size_t r = 0; r < d->n_runs; r++) {
		const struct rp_run *run = &d->runs[r];

		if (run->interrupted)
			s->interrupted = true;
		for (size_t k = 0; k < run->n_missing; k++) {
			s->incomplete = true;
			if (il < sizeof(s->incomplete_names) - 100)
				il += (size_t)snprintf(s->incomplete_names + il,
						       sizeof(s->incomplete_names) - il,
						       "%s%s (no data)", il ? ", " : "", run->missing[k]);
		}
	}
	s->ok_cells = ok;
	s->pc_cells = pc;
	s->pc_frac = ok ? (double)pc / (double)ok : 0;
}

/* Numbers the entries (rp_entry.idx) and finds the most and fewest
 * trials of any entry with data. */
static void sm_trials(struct rp_summary *s, struct rp_data *d)
{
	s->min_trials = UINT_MAX;
	for (size_t i = 0; i < d->n_all; i++) {
		d->all[i]->idx = i;
		if (d->all[i]->max_trial > s->max_trials)
			s->max_trials = d->all[i]->max_trial;
		if (d->all[i]->n_samples && d->all[i]->max_trial < s->min_trials)
			s->min_trials = d->all[i]->max_trial;
	}
	if (s->min_trials == UINT_MAX)
		s->min_trials = 0;
}

/* Test t's column of the matrix from its ranking: rank, median, ratio to
 * the best with its interval, Welch's p against the best. */
static void sm_matrix_test(struct rp_summary *s, const struct rp_data *d, enum fslab_test t)
{
	struct rp_ranking r;

	if (rp_rank(d, t, &r) < 0) {
		rp_ranking_free(&r);
		return;
	}
	if (r.n || r.n_partial)
		s->tests |= 1u << t;
	for (size_t k = 0; k < r.n; k++) {
		struct rp_mcell *c = rp_sum_cell(s, t, r.rows[k].e->idx);

		c->has = true;
		c->partial = r.rows[k].e->partial[t];
		c->rank = k + 1;
		c->median = r.rows[k].s.median;
		c->flags = r.rows[k].s.flags;
		c->n_trials = r.rows[k].s.n_trials;
		sm_ratio(&r.rows[k].s, &r.rows[0].s, &c->ratio, &c->ratio_lo, &c->ratio_hi);
		if (k == 0) {
			c->ratio = 1;
			c->ratio_lo = c->ratio_hi = NAN;
		}
		c->p = k ? r.rows[k].p_best : NAN;
	}
	for (size_t k = 0; k < r.n_partial; k++)
		rp_sum_cell(s, t, r.partial[k]->idx)->partial = true;
	rp_ranking_free(&r);
}

/* Holm over every p of the matrix, and each cell's verdict.  0 or
 * -ENOMEM. */
static int sm_matrix_holm(struct rp_summary *s)
{
	size_t n = s->n * FSLAB_TEST_MAX;
	double *p = calloc(n + 1, sizeof(double)), *adj = malloc((n + 1) * sizeof(double));

	if (!p || !adj) {
		free(p);
		free(adj);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		p[k] = s->m[k].p;
	s->n_comparisons = rp_holm(p, n, adj);
	for (size_t k = 0; k < n; k++) {
		struct rp_mcell *c = &s->m[k];

		c->p_adj = adj[k];
		if (!c->has)
			c->dir = RP_DIR_NONE;
		else if (c->rank == 1)
			c->dir = RP_DIR_BEST;
		else if (isnan(c->p_adj))
			c->dir = RP_DIR_UNTESTED;
		else
			c->dir = c->p_adj < 0.05 ? RP_DIR_SLOWER : RP_DIR_SAME;
	}
	free(p);
	free(adj);
	return 0;
}

int rp_summary_build(struct rp_data *d, unsigned tests)
{
	struct rp_summary *s = calloc(1, sizeof(*s));
	size_t n = d->n_all;

	if (!s)
		return -ENOMEM;
	s->n = n;
	s->m = calloc((n ? n : 1) * FSLAB_TEST_MAX, sizeof(*s->m));
	if (!s->m) {
		rp_summary_free(s);
		return -ENOMEM;
	}
	sm_trials(s, d);
	for (size_t k = 0; k < n * FSLAB_TEST_MAX; k++) {
		s->m[k].p = s->m[k].p_adj = NAN;
		s->m[k].ratio = s->m[k].ratio_lo = s->m[k].ratio_hi = NAN;
		s->m[k].median = NAN;
	}
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (tests & (1u << t))
			sm_matrix_test(s, d, t);
	if (sm_matrix_holm(s) < 0) {
		rp_summary_free(s);
		return -ENOMEM;
	}
	sm_verdicts(s, d);
	sm_changes(s, d);
	sm_banners(s, d);
	d->sum = s;
	return 0;
}

void rp_summary_free(struct rp_summary *s)
{
	if (!s)
		return;
	free(s->m);
	free(s->chg);
	free(s);
}

struct rp_mcell *rp_sum_cell(const struct rp_summary *s, int t, size_t i)
{
	return &s->m[(size_t)t * s->n + i];
}

/* Each verdict's words and the class that colours it in report.html. */
static const struct {
	const char *word, *cls;
} sm_dirs[] = {
	[RP_DIR_NONE] = { "no data", "nd" },
	[RP_DIR_BEST] = { "best", "best" },
	[RP_DIR_FASTER] = { "faster", "faster" },
	[RP_DIR_SLOWER] = { "slower", "slower" },
	[RP_DIR_SAME] = { "not distinguishable", "same" },
	[RP_DIR_UNTESTED] = { "untested", "nd" },
};

const char *rp_dir_word(enum rp_dir dir)
{
	return dir <= RP_DIR_UNTESTED ? sm_dirs[dir].word : sm_dirs[RP_DIR_NONE].word;
}

const char *rp_dir_class(enum rp_dir dir)
{
	return dir <= RP_DIR_UNTESTED ? sm_dirs[dir].cls : sm_dirs[RP_DIR_NONE].cls;
}
