/* --claims: the 2023 report's conclusions checked against a warm run (the
 * 2023 method) and honest runs (cold/direct).  runs[0] is the warm run, the
 * others are honest.  Each claim is judged once, in rp_claims_build, with
 * the matrix's inference (report/infer.c: the same estimates, the same
 * family, the same words); the text, HTML and JSON only render it. */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const cl_titles[RP_N_CLAIMS] = {
	"btrfs is the fastest filesystem for writes",
	"btrfs is the fastest filesystem for reads",
	"FAT32 has a read dip at 128 MB files (vs 64 MB and 256 MB, all record sizes)",
	"btrfs writes faster than it reads",
	"the 2023 headline, btrfs writing at 3.5e+07 KB/s and reading at 2.2e+07 KB/s",
};

#define CL_2023_WRITE 3.5e7 /* KB/s, the 2023 headline (btrfs write) */
#define CL_2023_READ 2.2e7  /* KB/s (btrfs read) */

static const struct rp_entry *cl_find(const struct rp_run *r, enum fslab_fs_type t)
{
	for (size_t i = 0; i < r->n_entries; i++)
		if (r->entries[i].type == t)
			return &r->entries[i];
	return NULL;
}

/* A claim that x beats y (the interval of x/y): faster holds it, slower
 * or equivalent refutes it, else the interval cannot decide. */
static enum rp_claim_word cl_word_of(const struct rp_cmp *c)
{
	return c->dir == RP_DIR_FASTER ? RP_CLAIM_HOLDS
	       : c->dir == RP_DIR_SLOWER || c->dir == RP_DIR_EQUIVALENT ? RP_CLAIM_FAILS
	       : c->dir == RP_DIR_INCONCLUSIVE ? RP_CLAIM_INCONCLUSIVE : RP_CLAIM_UNTESTED;
}

/* "btrfs/ext4 0.80 [0.75-0.86] slower" */
static void cl_fig(struct rp_claim_run *l, const char *what, const struct rp_cmp *c)
{
	char ci[64];

	l->has_cmp = true;
	l->cmp = *c;
	snprintf(l->fig, sizeof(l->fig), "%s %s %s", what, rp_fmt_ratio_ci(c, "-", ci, sizeof(ci)),
		 rp_dir_word(c->dir));
}

/* Claims 1 and 2: btrfs is the fastest for test t in this run: btrfs
 * against the fastest other filesystem of the run, the matrix's pair. */
static void cl_fastest(const struct rp_data *d, const struct rp_run *r, enum fslab_test t,
		       struct rp_claim_run *l)
{
	const struct rp_summary *s = d->sum;
	const struct rp_entry *b = cl_find(r, FSLAB_FS_BTRFS), *o = NULL;
	size_t n = 0, rank = 1;
	struct rp_cmp c;
	char ra[24], rb[24];

	if (!b || !rp_sum_cell(s, t, b->idx)->has) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs %s)",
			 fslab_test_to_string(t));
		return;
	}
	double bs = rp_sum_cell(s, t, b->idx)->score;
	for (size_t i = 0; i < r->n_entries; i++) {
		const struct rp_entry *e = &r->entries[i];
		const struct rp_mcell *m = rp_sum_cell(s, t, e->idx);

		if (e == b || !m->has)
			continue;
		n++;
		rank += m->score > bs;
		if (!o || m->score > rp_sum_cell(s, t, o->idx)->score)
			o = e;
	}
	if (!o || !rp_sum_pair(s, t, b->idx, o->idx, &c)) {
		snprintf(l->evidence, sizeof(l->evidence),
			 "cannot tell (no data for any other filesystem's %s)", fslab_test_to_string(t));
		return;
	}
	char what[sizeof(l->fig)];
	snprintf(what, sizeof(what), "btrfs/%s", o->fs);
	cl_fig(l, what, &c);
	snprintf(what, sizeof(what), "%s", l->fig);
	l->word = cl_word_of(&c);
	int k = snprintf(l->evidence, sizeof(l->evidence), "btrfs #%zu of %zu at %s; %s %s %s (%s)", rank,
			 n + 1, rp_fmt_rate(bs, ra, sizeof(ra)), rank == 1 ? "next" : "fastest", o->fs,
			 rp_fmt_rate(rp_sum_cell(s, t, o->idx)->score, rb, sizeof(rb)), what);
	/* An honest run confirms nothing with a figure the matrix sets aside
	 * (page cache, a buffered loop, heat, FUSE): that is how 2023's
	 * figures were made.  Refuting stays: a flag inflates, never slows. */
	const struct rp_mcell *bm = rp_sum_cell(s, t, b->idx);
	if (r != &d->runs[0] && l->word == RP_CLAIM_HOLDS && bm->aside) {
		char fw[160];

		l->word = RP_CLAIM_UNKNOWN;
		if (k > 0 && (size_t)k < sizeof(l->evidence))
			snprintf(l->evidence + k, sizeof(l->evidence) - (size_t)k,
				 "; cannot tell: btrfs's figure is flagged (%s), so it confirms nothing",
				 rp_flag_words(bm->flags, bm->other, fw, sizeof(fw)));
	}
}

static const struct rp_cell *cl_cell(const struct rp_entry *e, uint64_t f, uint64_t rec)
{
	for (size_t k = e->test_first[FSLAB_TEST_READ]; k < e->test_first[FSLAB_TEST_READ + 1]; k++)
		if (e->cells[k].file_kib == f && e->cells[k].record_kib == rec && e->cells[k].n_ok)
			return &e->cells[k];
	return NULL;
}

/* A cell's trials as an estimate of their own (no pool: one cell's
 * trials have nobody to share their variance with). */
static void cl_cell_est(const struct rp_entry *e, const struct rp_cell *c, struct rp_est *x)
{
	double sum = 0, ss = 0;

	*x = (struct rp_est){ .n = c->n_ok, .lmean = NAN, .s2 = NAN, .df = NAN, .s2b = NAN,
			      .dfb = NAN, .pool = SIZE_MAX };
	for (unsigned i = 0; i < c->n_ok; i++)
		sum += log(e->samples[c->first + i].v);
	x->lmean = sum / c->n_ok;
	for (unsigned i = 0; i < c->n_ok; i++) {
		double dv = log(e->samples[c->first + i].v) - x->lmean;
		ss += dv * dv;
	}
	if (c->n_ok >= 2) {
		x->s2 = ss / (c->n_ok - 1);
		x->df = c->n_ok - 1;
	}
}

#define CL_F64 (64 * 1024ull)
#define CL_F128 (128 * 1024ull)
#define CL_F256 (256 * 1024ull)

/* The fat32 read cells at 64M, 128M and 256M of record size k-th (in cell
 * order) of entry e; false when that record size lacks one of them. */
static bool cl_dip_cells(const struct rp_entry *e, size_t k, const struct rp_cell **a,
			 const struct rp_cell **c, const struct rp_cell **b)
{
	*c = &e->cells[k];
	if ((*c)->file_kib != CL_F128 || !(*c)->n_ok)
		return false;
	*a = cl_cell(e, CL_F64, (*c)->record_kib);
	*b = cl_cell(e, CL_F256, (*c)->record_kib);
	return *a && *b;
}

/* Claim 3's family: two comparisons per record size per run. */
static size_t cl_dip_family(const struct rp_data *d)
{
	size_t m = 0;

	for (size_t ri = 0; ri < d->n_runs; ri++) {
		const struct rp_entry *e = cl_find(&d->runs[ri], FSLAB_FS_FAT32);
		const struct rp_cell *a, *b, *c;

		for (size_t k = e ? e->test_first[FSLAB_TEST_READ] : 0;
		     e && k < e->test_first[FSLAB_TEST_READ + 1]; k++)
			m += cl_dip_cells(e, k, &a, &c, &b) ? 2 : 0;
	}
	return m;
}

/* Claim 3: FAT32 reads 128M files slower than 64M and 256M ones, at every
 * record size: both intervals (128M over each neighbour) below 1.  The
 * run's figure is the weakest dip: the comparison with the highest ratio. */
static void cl_fat_dip(const struct rp_data *d, size_t m, const struct rp_run *r,
		       struct rp_claim_run *l)
{
	const struct rp_entry *e = cl_find(r, FSLAB_FS_FAT32);
	unsigned n = 0, dips = 0, no = 0, open = 0, untested = 0;
	struct rp_cmp weak = { .ratio = -INFINITY };
	char ex[160] = "", wk[16] = "";

	if (!e) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for fat32)");
		return;
	}
	for (size_t k = e->test_first[FSLAB_TEST_READ]; k < e->test_first[FSLAB_TEST_READ + 1]; k++) {
		const struct rp_cell *a, *b, *c;
		struct rp_est xa, xb, xc;
		struct rp_cmp ca, cb;

		if (!cl_dip_cells(e, k, &a, &c, &b))
			continue;
		n++;
		cl_cell_est(e, a, &xa);
		cl_cell_est(e, b, &xb);
		cl_cell_est(e, c, &xc);
		rp_compare(&xc, &xa, m, d->sum->delta, &ca);
		rp_compare(&xc, &xb, m, d->sum->delta, &cb);
		const struct rp_cmp *w = ca.ratio >= cb.ratio ? &ca : &cb;
		if (w->ratio > weak.ratio) {
			weak = *w;
			snprintf(wk, sizeof(wk), "%s", w == &ca ? "64M" : "256M");
		}
		dips += c->median < a->median && c->median < b->median;
		if (ca.dir == RP_DIR_SLOWER && cb.dir == RP_DIR_SLOWER)
			continue;
		if (!ca.tested || !cb.tested)
			untested++;
		else if (ca.dir == RP_DIR_FASTER || ca.dir == RP_DIR_EQUIVALENT ||
			 cb.dir == RP_DIR_FASTER || cb.dir == RP_DIR_EQUIVALENT)
			no++;
		else
			open++;
		if (!ex[0]) {
			char rs[16], ra[24], rb[24], rc[24];
			snprintf(ex, sizeof(ex), "; at %s records: 64M %s, 128M %s, 256M %s",
				 rp_fmt_size(c->record_kib, rs, sizeof(rs)),
				 rp_fmt_rate(a->median, ra, sizeof(ra)), rp_fmt_rate(c->median, rb, sizeof(rb)),
				 rp_fmt_rate(b->median, rc, sizeof(rc)));
		}
	}
	if (n == 0) {
		snprintf(l->evidence, sizeof(l->evidence),
			 "cannot tell (no data for fat32 read at 64M, 128M and 256M files with a common record size)");
		return;
	}
	l->word = no ? RP_CLAIM_FAILS : open ? RP_CLAIM_INCONCLUSIVE
			: untested ? RP_CLAIM_UNTESTED : RP_CLAIM_HOLDS;
	char what[sizeof(l->fig)];
	snprintf(what, sizeof(what), "128M/%s", wk);
	cl_fig(l, what, &weak);
	snprintf(what, sizeof(what), "%s", l->fig);
	snprintf(l->evidence, sizeof(l->evidence),
		 "128M slower than both 64M and 256M at %u of %u record sizes (medians); the interval "
		 "below 1 on both sides at %u; weakest %s%s",
		 dips, n, n - no - open - untested, what, ex);
}

/* Claim 4: btrfs writes faster than it reads (plateau): the two matrix
 * estimates compared in the matrix's family. */
static void cl_write_read(const struct rp_data *d, const struct rp_run *r, struct rp_claim_run *l)
{
	const struct rp_summary *s = d->sum;
	const struct rp_entry *e = cl_find(r, FSLAB_FS_BTRFS);
	const struct rp_mcell *w, *rd;
	struct rp_cmp c;
	char ra[24], rb[24];

	if (!e || !(w = rp_sum_cell(s, FSLAB_TEST_WRITE, e->idx))->has) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs write)");
		return;
	}
	if (!(rd = rp_sum_cell(s, FSLAB_TEST_READ, e->idx))->has) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs read)");
		return;
	}
	rp_compare(&w->est, &rd->est, s->n_comparisons ? s->n_comparisons : 1, s->delta, &c);
	cl_fig(l, "write/read", &c);
	l->word = cl_word_of(&c);
	char fig[sizeof(l->fig)];
	snprintf(fig, sizeof(fig), "%s", l->fig);
	snprintf(l->evidence, sizeof(l->evidence), "btrfs write %s, read %s (%s)",
		 rp_fmt_rate(w->score, ra, sizeof(ra)), rp_fmt_rate(rd->score, rb, sizeof(rb)), fig);
}

/* The claim's word from the honest runs that have the data: two runs that
 * decide it differently disagree, and that is said with both figures. */
static void cl_overall(struct rp_claim *c)
{
	/* the first run of each word; an unknown one only when compared,
	 * its figure flagged (cl_fastest) */
	static const enum rp_claim_word decide[] = { RP_CLAIM_FAILS, RP_CLAIM_INCONCLUSIVE, RP_CLAIM_UNTESTED,
						     RP_CLAIM_HOLDS };
	const struct rp_claim_run *first[RP_CLAIM_PAGE_CACHE + 1] = { 0 }, *l = NULL, *hold, *fail, *unk;

	for (size_t i = 1; i < c->n; i++)
		if (!first[c->runs[i].word] && (c->runs[i].word != RP_CLAIM_UNKNOWN || c->runs[i].has_cmp))
			first[c->runs[i].word] = &c->runs[i];
	hold = first[RP_CLAIM_HOLDS], fail = first[RP_CLAIM_FAILS], unk = first[RP_CLAIM_UNKNOWN];
	if (hold && fail) {
		c->word = RP_CLAIM_DISAGREE;
		snprintf(c->decides, sizeof(c->decides), "holds in %s (%s), not in %s (%s)",
			 hold->run->tag, hold->fig, fail->run->tag, fail->fig);
		return;
	}
	for (size_t k = 0; k < sizeof(decide) / sizeof(decide[0]) && !l; k++)
		if ((l = first[decide[k]]))
			c->word = decide[k];
	if (!l) {
		c->word = RP_CLAIM_UNKNOWN;
		if (unk)
			snprintf(c->decides, sizeof(c->decides), "%.63s: %.440s", unk->run->tag, unk->evidence);
		else
			snprintf(c->decides, sizeof(c->decides), "no honest run has the data");
		return;
	}
	char warm[sizeof(c->decides)] = "";
	if (c->word == RP_CLAIM_FAILS && c->runs[0].word == RP_CLAIM_HOLDS)
		snprintf(warm, sizeof(warm), "; it holds only in the warm run (%s), the 2023 method",
			 c->runs[0].fig);
	snprintf(c->decides, sizeof(c->decides), "%s: %s%s", l->run->tag, l->fig, warm);
}

/* Claim 5: the headline against the devices' O_DIRECT probes (any run's
 * manifest): the largest of 2023's figure over the probe decides. */
static void cl_headline_claim(const struct rp_data *d, struct rp_claim *c)
{
	const struct rp_entry *at = NULL;
	const char *what = "";
	double best = NAN, factor = FSLAB_PAGE_CACHE_FACTOR;

	for (size_t ri = 0; ri < d->n_runs; ri++)
		for (size_t i = 0; i < d->runs[ri].n_entries; i++) {
			const struct rp_entry *e = &d->runs[ri].entries[i];

			for (int k = 0; k < 2 && e->type == FSLAB_FS_BTRFS; k++) {
				double probe = k ? e->info.device_read_kib_s : e->info.device_write_kib_s,
				       f = (k ? CL_2023_READ : CL_2023_WRITE) / probe;

				if (probe > 0 && !(f <= best)) {
					best = f;
					at = e;
					what = k ? "read" : "write";
				}
			}
		}
	c->figure = best;
	if (!at) {
		c->word = RP_CLAIM_UNKNOWN;
		snprintf(c->decides, sizeof(c->decides),
			 "no run's manifest has btrfs's device probe to compare with");
		return;
	}
	char pb[24];
	double probe = strcmp(what, "write") == 0 ? at->info.device_write_kib_s : at->info.device_read_kib_s;
	c->word = best > factor ? RP_CLAIM_PAGE_CACHE : RP_CLAIM_HOLDS;
	snprintf(c->decides, sizeof(c->decides), "%s %.0fx what the disk can do: 2023 %s %.1e KB/s, %s's O_DIRECT probe %s",
		 c->word == RP_CLAIM_PAGE_CACHE ? "up to" : "at most",
		 best, what, strcmp(what, "write") == 0 ? CL_2023_WRITE : CL_2023_READ, at->label,
		 rp_fmt_rate(probe, pb, sizeof(pb)));
}

/* The headline against the device probe, per filesystem with page-cache
 * flags (and always btrfs). */
static int cl_headline(const struct rp_data *d, struct rp_claims *cs)
{
	for (size_t ri = 0; ri < d->n_runs; ri++) {
		const struct rp_run *r = &d->runs[ri];

		for (size_t i = 0; i < r->n_entries; i++) {
			const struct rp_entry *e = &r->entries[i];
			struct rp_score w, rd;
			char ra[24], pa[24], pb[24];
			size_t wpc = 0, rpc = 0, wn = e->test_first[FSLAB_TEST_WRITE + 1] - e->test_first[FSLAB_TEST_WRITE],
			       rn = e->test_first[FSLAB_TEST_READ + 1] - e->test_first[FSLAB_TEST_READ];
			char line[768];

			if (!e->n_flag_pc && e->type != FSLAB_FS_BTRFS)
				continue;
			RP_FOR_CELLS(c, e, FSLAB_TEST_WRITE)
				wpc += !!(c->flags & RP_FLAG_PAGE_CACHE);
			RP_FOR_CELLS(c, e, FSLAB_TEST_READ)
				rpc += !!(c->flags & RP_FLAG_PAGE_CACHE);
			bool hw = rp_plateau(e, FSLAB_TEST_WRITE, &w) == 0;
			bool hr = rp_plateau(e, FSLAB_TEST_READ, &rd) == 0;
			double pw = e->info.device_write_kib_s, pr = e->info.device_read_kib_s;

			snprintf(line, sizeof(line), "%s: ", e->label);
			if (pw > 0 && pr > 0)
				fslab_catf(line, sizeof(line),
					"device probe (O_DIRECT) write %s, read %s; 2023 headline (its own unit, KB/s) write 3.5e+07 = x%.0f, read 2.2e+07 = x%.0f the probe; ",
					rp_fmt_rate(pw, pa, sizeof(pa)), rp_fmt_rate(pr, pb, sizeof(pb)),
					CL_2023_WRITE / pw, CL_2023_READ / pr);
			else
				fslab_catf(line, sizeof(line),
					"cannot tell how the headline compares (no device probe in the manifest); ");
			if (hw)
				fslab_catf(line, sizeof(line), "this run's write %s", rp_fmt_rate(w.median, ra, sizeof(ra)));
			if (hw && pw > 0)
				fslab_catf(line, sizeof(line), " (x%.1f the probe)", w.median / pw);
			if (hr)
				fslab_catf(line, sizeof(line), ", read %s", rp_fmt_rate(rd.median, ra, sizeof(ra)));
			if (hr && pr > 0)
				fslab_catf(line, sizeof(line), " (x%.1f)", rd.median / pr);
			fslab_catf(line, sizeof(line), "; page-cache flags on %zu of %zu write and %zu of %zu read cells",
				wpc, wn, rpc, rn);
			rp_score_free(&w); /* NULL when the plateau had none */
			rp_score_free(&rd);
			char (*h)[768] = realloc(cs->headline, (cs->n_headline + 1) * sizeof(*h));
			if (!h)
				return -ENOMEM;
			cs->headline = h;
			memcpy(cs->headline[cs->n_headline++], line, sizeof(line));
		}
	}
	return 0;
}

int rp_claims_build(struct rp_data *d)
{
	struct rp_claims *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return -ENOMEM;
	cs->m3 = cl_dip_family(d);
	for (int k = 0; k < RP_N_CLAIMS; k++) {
		struct rp_claim *c = &cs->c[k];

		c->title = cl_titles[k];
		c->figure = NAN;
		if (k == 4) {
			cl_headline_claim(d, c);
			continue;
		}
		for (size_t i = 0; i < d->n_runs; i++) {
			struct rp_claim_run *l = &c->runs[c->n++];

			l->run = &d->runs[i];
			if (k < 2)
				cl_fastest(d, &d->runs[i], k == 0 ? FSLAB_TEST_WRITE : FSLAB_TEST_READ, l);
			else if (k == 2)
				cl_fat_dip(d, cs->m3, &d->runs[i], l);
			else
				cl_write_read(d, &d->runs[i], l);
		}
		cl_overall(c);
	}
	d->claims = cs;
	return cl_headline(d, cs);
}

void rp_claims_free(struct rp_data *d)
{
	if (d->claims)
		free(d->claims->headline);
	free(d->claims);
	d->claims = NULL;
}
