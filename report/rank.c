/* Large-file plateau scores and rankings.
 *
 * Plateau (docs/report.md): for one filesystem and test, at every record
 * size take the cells at the two largest file sizes measured ok with that
 * record size.  A trial's score is the median of its samples over those
 * cells; the filesystem's score is the median of its trial scores, and the
 * 95% interval is Student's t over the trial scores.  A queued test's
 * record sizes are (record, depth, threads): each of its configurations
 * (CrystalDiskMark's rows): a test of several rows has no plateau score
 * (rows of different depths are never averaged) and is ranked row by row
 * in the CDM panel (cdm.c). */
#include "format.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rk_top {
	uint64_t record, f1, f2; /* f1 > f2: the two largest file sizes */
	unsigned iodepth, jobs;
};

static bool rk_top_of(const struct rk_top *k, const struct rp_cell *c)
{
	return k->record == c->record_kib && k->iodepth == c->iodepth && k->jobs == c->jobs;
}

static int rk_cmp_sample(const void *a, const void *b)
{
	const struct rp_sample *x = a, *y = b;

	if (x->trial != y->trial)
		return x->trial < y->trial ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

/* The plateau's rows: per record size with a cell measured ok, the two
 * largest file sizes measured ok with it.  *top is malloc'd; returns the
 * number of record sizes (0: no cell ok), or -ENOMEM. */
static int rk_tops(const struct rp_entry *e, enum fslab_test t, struct rk_top **top)
{
	size_t lo = e->test_first[t], hi = e->test_first[t + 1], nt = 0;
	struct rk_top *tp = calloc(hi - lo, sizeof(*tp));

	if (!tp)
		return -ENOMEM;
	for (size_t i = lo; i < hi; i++) {
		const struct rp_cell *c = &e->cells[i];
		size_t k;

		if (!c->n_ok)
			continue;
		for (k = 0; k < nt && !rk_top_of(&tp[k], c); k++)
			;
		if (k == nt) {
			tp[nt].record = c->record_kib;
			tp[nt].iodepth = c->iodepth;
			tp[nt].jobs = c->jobs;
			nt++;
		}
		if (c->file_kib > tp[k].f1) {
			tp[k].f2 = tp[k].f1;
			tp[k].f1 = c->file_kib;
		} else if (c->file_kib > tp[k].f2 && c->file_kib != tp[k].f1) {
			tp[k].f2 = c->file_kib;
		}
	}
	*top = tp;
	return (int)nt;
}

/* The ok samples of the plateau cells into pool, and the cells' count,
 * flags and file size range into s.  Returns the number of samples. */
static size_t rk_plateau_samples(const struct rp_entry *e, enum fslab_test t,
				 const struct rk_top *top, struct rp_sample *pool, struct rp_score *s)
{
	size_t ns = 0;

	s->file_lo = UINT64_MAX;
	RP_FOR_CELLS(c, e, t) {
		size_t k;

		if (!c->n_ok)
			continue;
		for (k = 0; !rk_top_of(&top[k], c); k++)
			;
		if (c->file_kib != top[k].f1 && c->file_kib != top[k].f2)
			continue;
		s->n_cells++;
		s->flags |= c->flags;
		s->n_flag_pc += !!(c->flags & RP_FLAG_PAGE_CACHE);
		s->n_flag_fuse += !!(c->flags & RP_FLAG_FUSE);
		if (c->file_kib < s->file_lo)
			s->file_lo = c->file_kib;
		if (c->file_kib > s->file_hi)
			s->file_hi = c->file_kib;
		memcpy(&pool[ns], &e->samples[c->first], c->n_ok * sizeof(*pool));
		ns += c->n_ok;
	}
	return ns;
}

/* From the ns samples in pool: each trial's score (the median of its
 * samples) into s->trial, and their median, mean and 95% interval.  tmp
 * holds ns values.  0 or -ENOMEM. */
static int rk_trial_scores(struct rp_sample *pool, size_t ns, double *tmp, struct rp_score *s)
{
	double sd;

	qsort(pool, ns, sizeof(*pool), rk_cmp_sample);
	s->trial = malloc(ns * sizeof(double));
	s->trial_no = malloc(ns * sizeof(unsigned));
	if (!s->trial || !s->trial_no)
		return -ENOMEM;
	for (size_t i = 0; i < ns;) {
		size_t j = i, m = 0;

		while (j < ns && pool[j].trial == pool[i].trial)
			tmp[m++] = pool[j++].v;
		s->trial_no[s->n_trials] = pool[i].trial;
		s->trial[s->n_trials++] = fslab_median_sort(tmp, m);
		i = j;
	}
	fslab_mean_ci95(s->trial, s->n_trials, &s->mean, &s->ci);
	memcpy(tmp, s->trial, s->n_trials * sizeof(double));
	s->median = fslab_median_sort(tmp, s->n_trials);
	/* the score the inference compares: logs of the trial scores */
	bool positive = s->n_trials > 0;
	for (size_t i = 0; i < s->n_trials; i++) {
		positive &= s->trial[i] > 0;
		tmp[i] = positive ? log(s->trial[i]) : 0;
	}
	if (positive) {
		fslab_mean_sd(tmp, s->n_trials, &s->lmean, &sd);
		s->lvar = sd * sd;
		s->score = exp(s->lmean);
	} else { /* a zero throughput has no logarithm: described, never tested */
		s->lmean = s->lvar = NAN;
		s->score = s->median;
	}
	return 0;
}

int rp_plateau(const struct rp_entry *e, enum fslab_test t, struct rp_score *s)
{
	size_t room = e->n_samples ? e->n_samples : 1;
	struct rk_top *top = NULL;
	struct rp_sample *pool = NULL;
	double *tmp = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	s->median = s->mean = s->ci = s->score = s->lmean = s->lvar = NAN;
	if (e->test_first[t] == e->test_first[t + 1])
		return -ENODATA;
	r = rk_tops(e, t, &top);
	if (r == 0)
		r = -ENODATA;
	else if (r > 1 && fslab_test_family(t) == FSLAB_FAMILY_QUEUED)
		r = -EDOM; /* rows of several depths or records: never one score */
	if (r < 0)
		goto out;
	pool = malloc(room * sizeof(*pool));
	tmp = malloc(room * sizeof(*tmp));
	if (!pool || !tmp) {
		r = -ENOMEM;
		goto out;
	}
	r = rk_trial_scores(pool, rk_plateau_samples(e, t, top, pool, s), tmp, s);
out:
	free(top);
	free(pool);
	free(tmp);
	return r;
}

int rp_cell_score(const struct rp_entry *e, const struct rp_cell *c, struct rp_score *s)
{
	size_t room = c->n_ok ? c->n_ok : 1;
	struct rp_sample *pool = malloc(room * sizeof(*pool));
	double *tmp = malloc(room * sizeof(*tmp));
	int r = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->median = s->mean = s->ci = s->score = s->lmean = s->lvar = NAN;
	if (pool && tmp && c->n_ok) {
		memcpy(pool, &e->samples[c->first], c->n_ok * sizeof(*pool));
		s->n_cells = 1;
		s->flags = c->flags;
		s->file_lo = s->file_hi = c->file_kib;
		r = rk_trial_scores(pool, c->n_ok, tmp, s);
	} else if (pool && tmp) {
		r = -ENODATA;
	}
	free(pool);
	free(tmp);
	return r;
}

void rp_score_free(struct rp_score *s)
{
	free(s->trial);
	free(s->trial_no);
	s->trial = NULL;
	s->trial_no = NULL;
}

/* Flagged rows (page cache, FUSE, another flag) sort below the unflagged
 * ones when a row is unflagged and complete: a figure the device could not
 * have produced never wins. */
static int rk_cmp_row(const void *a, const void *b)
{
	const struct rp_rank_row *x = a, *y = b;
	if (x->aside != y->aside)
		return x->aside ? 1 : -1;
	if (x->s.score != y->s.score)
		return x->s.score > y->s.score ? -1 : 1;
	return strcmp(x->e->label, y->e->label);
}

int rp_rank(const struct rp_data *d, enum fslab_test t, struct rp_ranking *r)
{
	bool clean = false;

	memset(r, 0, sizeof(*r));
	r->test = t;
	r->rows = calloc(d->n_all ? d->n_all : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_all; i++) {
		struct rp_rank_row *row = &r->rows[r->n];
		int rc;

		rc = rp_plateau(d->all[i], t, &row->s);
		if (rc == -EDOM) /* the CDM panel ranks it row by row */
			continue;
		if (rc == -ENODATA) {
			if (d->all[i]->test_first[t] != d->all[i]->test_first[t + 1])
				r->unranked[r->n_unranked++] = d->all[i];
			continue;
		}
		if (rc < 0)
			return rc;
		row->e = d->all[i];
		clean |= !(row->s.flags & RP_FLAGS_ASIDE) && !row->e->partial[t];
		r->n++;
	}
	for (size_t i = 0; i < r->n; i++)
		r->rows[i].aside = clean && (r->rows[i].s.flags & RP_FLAGS_ASIDE);
	qsort(r->rows, r->n, sizeof(*r->rows), rk_cmp_row);
	/* no crown on missing data: the best is the best complete entry; a
	 * partial one above it is shown, not ranked */
	size_t first = 0;
	while (first < r->n && r->rows[first].e->partial[t])
		first++;
	for (size_t i = 0; i < first; i++) {
		r->partial[r->n_partial++] = r->rows[i].e;
		rp_score_free(&r->rows[i].s);
	}
	if (first) {
		memmove(r->rows, r->rows + first, (r->n - first) * sizeof(*r->rows));
		r->n -= first;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct rp_rank_row *row = &r->rows[i];

		row->ratio = r->rows[0].s.score > 0 ? row->s.score / r->rows[0].s.score : NAN;
		if (row->aside && row->s.score > r->rows[0].s.score)
			r->n_aside_faster++;
	}
	return 0;
}

void rp_ranking_free(struct rp_ranking *r)
{
	for (size_t i = 0; i < r->n; i++)
		rp_score_free(&r->rows[i].s);
	free(r->rows);
	r->rows = NULL;
}

const struct rp_cell *rp_first_problem(const struct rp_entry *e, enum fslab_test t,
				      unsigned *n_failed, unsigned *n_skipped)
{
	const struct rp_cell *first = NULL;

	*n_failed = *n_skipped = 0;
	RP_FOR_CELLS(c, e, t) {
		*n_failed += c->n_failed;
		*n_skipped += c->n_skipped;
		if (c->problem && !first)
			first = c;
	}
	return first;
}
