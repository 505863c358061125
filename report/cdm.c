/* The CrystalDiskMark panel's model: the queued tests' rows (SEQ1M Q8T1
 * ...) per filesystem, read and write, each a mean over the trials with
 * its 95% interval (never a best-of), and each row's verdicts by the
 * report's inference on that row's cell alone, so rows of one test at
 * different depths are never mixed.  A flagged figure is set aside, never
 * the row's best, while the row has an unflagged one, as in the rankings.
 * Rendered by cdm_view.c. */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const enum fslab_test cd_tests[2][2] = {
	{ FSLAB_TEST_QUEUED_READ, FSLAB_TEST_QUEUED_WRITE },
	{ FSLAB_TEST_QUEUED_RANDOM_READ, FSLAB_TEST_QUEUED_RANDOM_WRITE },
};

struct rp_cdm_side *rp_cdm_at(const struct rp_cdm *p, size_t r, size_t e, int k)
{
	return &p->side[(r * p->n_entries + e) * 2 + (size_t)k];
}

static bool cd_random(enum fslab_test t)
{
	return t == FSLAB_TEST_QUEUED_RANDOM_READ || t == FSLAB_TEST_QUEUED_RANDOM_WRITE;
}

static bool cd_row_of(const struct rp_cdm_row *r, const struct rp_cell *c)
{
	return r->random == cd_random(c->test) && r->file_kib == c->file_kib &&
	       r->record_kib == c->record_kib && r->iodepth == c->iodepth && r->jobs == c->jobs;
}

/* CrystalDiskMark's order: sequential first, larger records first, then
 * deeper queues (depth x threads), then the file. */
static int cd_cmp_row(const void *a, const void *b)
{
	const struct rp_cdm_row *x = a, *y = b;
	unsigned long qx = (unsigned long)x->iodepth * x->jobs, qy = (unsigned long)y->iodepth * y->jobs;

	if (x->random != y->random)
		return x->random ? 1 : -1;
	if (x->record_kib != y->record_kib)
		return x->record_kib > y->record_kib ? -1 : 1;
	if (qx != qy)
		return qx > qy ? -1 : 1;
	if (x->jobs != y->jobs)
		return x->jobs < y->jobs ? -1 : 1;
	return (x->file_kib > y->file_kib) - (x->file_kib < y->file_kib);
}

/* The rows every entry's queued cells make, in CrystalDiskMark's order. */
static void cd_collect_rows(const struct rp_data *d, unsigned tests, struct rp_cdm *p)
{
	uint64_t file = 0;
	bool files_differ = false;

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];

		for (size_t k = 0; k < e->n_cells; k++) {
			const struct rp_cell *c = &e->cells[k];
			size_t r;

			if (fslab_test_family(c->test) != FSLAB_FAMILY_QUEUED || !(tests & (1u << c->test)))
				continue;
			for (r = 0; r < p->n_rows && !cd_row_of(&p->rows[r], c); r++)
				;
			if (r < p->n_rows)
				continue;
			if (p->n_rows == RP_CDM_MAX_ROWS) {
				p->truncated = true;
				continue;
			}
			p->rows[p->n_rows++] = (struct rp_cdm_row){
				.random = cd_random(c->test), .file_kib = c->file_kib,
				.record_kib = c->record_kib, .iodepth = c->iodepth, .jobs = c->jobs,
			};
			files_differ |= file && file != c->file_kib;
			file = c->file_kib;
		}
	}
	qsort(p->rows, p->n_rows, sizeof(p->rows[0]), cd_cmp_row);
	for (size_t r = 0; r < p->n_rows; r++) {
		struct rp_cdm_row *w = &p->rows[r];

		fslab_queue_row_name(cd_tests[w->random][0], w->record_kib, w->iodepth, w->jobs, w->name,
				     sizeof(w->name));
		if (files_differ) /* rows of several file sizes: say which */
			fslab_catf(w->name, sizeof(w->name), " %s", rp_fmt_size(w->file_kib, (char[16]){ 0 }, 16));
	}
}

/* MB/s and IOPS of one side from its cell. */
static void cd_fill_side(struct rp_cdm_side *s, const struct rp_cell *c)
{
	s->c = c;
	s->mbs = s->mbs_ci = s->iops = s->iops_ci = NAN;
	if (!c || !c->n_ok)
		return;
	s->mbs = c->mean * 1024.0 / 1e6;
	s->mbs_ci = c->ci * 1024.0 / 1e6;
	s->iops = c->iops_mean;
	s->iops_ci = c->iops_ci;
	s->within = isfinite(c->ci) && c->mean > 0 && c->ci <= RP_CDM_WITHIN * c->mean;
}

/* The verdicts of one side of row r: each entry's score on that cell
 * alone against the best's (an unflagged best when there is one), in a
 * family of the others.  0 or -ENOMEM. */
static int cd_verdicts(const struct rp_data *d, struct rp_cdm *p, size_t r, int k)
{
	struct rp_score *sc = calloc(p->n_entries ? p->n_entries : 1, sizeof(*sc));
	bool *have = calloc(p->n_entries ? p->n_entries : 1, sizeof(*have));
	size_t best = SIZE_MAX, n = 0;
	int ret = 0;

	if (!sc || !have) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t e = 0; e < p->n_entries; e++) {
		struct rp_cdm_side *s = rp_cdm_at(p, r, e, k);
		int rc;

		if (!s->c || !s->c->n_ok)
			continue;
		rc = rp_cell_score(d->all[e], s->c, &sc[e]);
		if (rc == -ENOMEM) {
			ret = rc;
			goto out;
		}
		if (rc < 0 || !isfinite(sc[e].score))
			continue;
		have[e] = true;
		n++;
		if (best == SIZE_MAX)
			best = e;
		bool aside = s->c->flags & RP_FLAGS_ASIDE, best_aside = rp_cdm_at(p, r, best, k)->c->flags & RP_FLAGS_ASIDE;
		if ((best_aside && !aside) || (aside == best_aside && sc[e].score > sc[best].score))
			best = e;
	}
	if (best == SIZE_MAX)
		goto out;
	rp_cdm_at(p, r, best, k)->best = true;
	if (!(rp_cdm_at(p, r, best, k)->c->flags & RP_FLAGS_ASIDE))
		for (size_t e = 0; e < p->n_entries; e++)
			rp_cdm_at(p, r, e, k)->aside = have[e] && (rp_cdm_at(p, r, e, k)->c->flags & RP_FLAGS_ASIDE);
	for (size_t e = 0; e < p->n_entries && n > 1; e++) {
		struct rp_est x, y;
		struct rp_cdm_side *s = rp_cdm_at(p, r, e, k);

		if (!have[e] || e == best)
			continue;
		rp_est_of(&sc[e], NULL, SIZE_MAX, e, &x);
		rp_est_of(&sc[best], NULL, SIZE_MAX, best, &y);
		rp_compare(&x, &y, n - 1, RP_EQUIVALENCE_DEFAULT, &s->cmp);
		s->compared = true;
	}
out:
	for (size_t e = 0; sc && e < p->n_entries; e++)
		rp_score_free(&sc[e]);
	free(sc);
	free(have);
	return ret;
}

int rp_cdm_build(const struct rp_data *d, unsigned tests, struct rp_cdm *p)
{
	memset(p, 0, sizeof(*p));
	cd_collect_rows(d, tests, p);
	if (!p->n_rows)
		return 0;
	p->n_entries = d->n_all;
	p->side = calloc(p->n_rows * p->n_entries * 2, sizeof(*p->side));
	if (!p->side)
		return -ENOMEM;
	for (size_t r = 0; r < p->n_rows; r++)
		for (size_t e = 0; e < p->n_entries; e++) {
			const struct rp_entry *en = d->all[e];

			for (int k = 0; k < 2; k++) {
				const struct rp_cell *c = NULL;

				for (size_t j = 0; j < en->n_cells && !c; j++)
					if (en->cells[j].test == cd_tests[p->rows[r].random][k] &&
					    cd_row_of(&p->rows[r], &en->cells[j]) && (tests & (1u << en->cells[j].test)))
						c = &en->cells[j];
				cd_fill_side(rp_cdm_at(p, r, e, k), c);
			}
		}
	for (size_t r = 0; r < p->n_rows; r++)
		for (int k = 0; k < 2; k++)
			if (cd_verdicts(d, p, r, k) < 0)
				return -ENOMEM;
	return 0;
}

void rp_cdm_free(struct rp_cdm *p)
{
	free(p->side);
	p->side = NULL;
}

bool rp_cdm_entry_has(const struct rp_cdm *p, size_t e)
{
	for (size_t r = 0; r < p->n_rows; r++)
		if (rp_cdm_at(p, r, e, 0)->c || rp_cdm_at(p, r, e, 1)->c)
			return true;
	return false;
}
