/* Large-file plateau scores, rankings and their text tables.
 *
 * Plateau (docs/report.md): for one filesystem and test, at every record
 * size take the cells at the two largest file sizes measured ok with that
 * record size.  A trial's score is the median of its samples over those
 * cells; the filesystem's score is the median of its trial scores, and the
 * 95% interval is Student's t over the trial scores.  A queued test's
 * record sizes are (record, depth, threads): each of its configurations
 * (CrystalDiskMark's rows) has its own plateau cells, and the per-row
 * comparisons are the CDM panel's (cdm.c). */
#include "log.h"
#include "format.h"
#include "table.h"
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
	for (size_t i = e->test_first[t]; i < e->test_first[t + 1]; i++) {
		const struct rp_cell *c = &e->cells[i];
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

bool rp_rank_test(const struct rp_data *d, unsigned tests, enum fslab_test t, struct rp_ranking *r)
{
	memset(r, 0, sizeof(*r));
	if (!(tests & (1u << t)))
		return false;
	if (rp_rank(d, t, r) == 0)
		return true;
	rp_ranking_free(r);
	return false;
}

void rp_ranking_free(struct rp_ranking *r)
{
	for (size_t i = 0; i < r->n; i++)
		rp_score_free(&r->rows[i].s);
	free(r->rows);
	r->rows = NULL;
}

/* Column widths from the content: the longest label, filesystem name or
 * run tag of the report, at least min (names are never cut). */
enum rk_col { RK_LABEL, RK_FS, RK_TAG };
static int rk_width(const struct rp_data *d, enum rk_col col, int min)
{
	size_t w = (size_t)min;

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];
		size_t n = strlen(col == RK_LABEL ? e->label : col == RK_FS ? e->fs : e->run->tag);

		if (n > w)
			w = n;
	}
	return (int)w;
}

static void rk_flags(const struct rp_score *s, char *buf, size_t len)
{
	rp_flag_letters(s->flags, "", buf, len);
}

const struct rp_cell *rp_first_problem(const struct rp_entry *e, enum fslab_test t,
				      unsigned *n_failed, unsigned *n_skipped)
{
	const struct rp_cell *first = NULL;

	*n_failed = *n_skipped = 0;
	for (size_t i = e->test_first[t]; i < e->test_first[t + 1]; i++) {
		const struct rp_cell *c = &e->cells[i];
		*n_failed += c->n_failed;
		*n_skipped += c->n_skipped;
		if (c->problem && !first)
			first = c;
	}
	return first;
}

static void rk_problems(FILE *out, const struct rp_entry *e, enum fslab_test t)
{
	unsigned nf, nsk;
	const struct rp_cell *first = rp_first_problem(e, t, &nf, &nsk);
	char a[16], b[16], line[512];

	if (!first)
		return;
	int n = snprintf(line, sizeof(line), "    %s: %u failed, %u skipped; first at %s file, %s records: %s",
			 e->label, nf, nsk, rp_fmt_size(first->file_kib, a, sizeof(a)),
			 rp_fmt_size(first->record_kib, b, sizeof(b)), first->problem);
	if (n > 100 && sizeof(line) > 100) /* keep to 100 columns */
		memcpy(line + 97, "...", 4);
	fprintf(out, "%s\n", line);
}

/* The ranking tables' columns. */
enum { RK_C_RANK, RK_C_LABEL, RK_C_SCORE, RK_C_CI, RK_C_RATIO, RK_C_VS, RK_C_PLATEAU, RK_C_FLAGS };

/* One ranked row of the text table: #, label, median, interval (in the
 * median's unit), ratio, the test against #1, plateau, then the flags
 * with "partial" and "aside" (the shared ranking's marks). */
static void rk_text_row(struct fslab_table *tb, const struct rp_data *d, enum fslab_test t, size_t i,
			const struct rp_rank_row *row)
{
	char m[24], lo[24], hi[24], vs[48], fl[8], a[16], b[16], pb[24], marks[32];

	fslab_table_row(tb);
	fslab_table_cellf(tb, RK_C_RANK, "%zu", i + 1);
	fslab_table_cell(tb, RK_C_LABEL, row->e->label);
	fslab_table_cell(tb, RK_C_SCORE, rp_fmt_rate(row->s.score, m, sizeof(m)));
	if (isnan(row->s.ci))
		fslab_table_cell(tb, RK_C_CI, row->s.n_trials < 2 && d->sum && d->sum->max_trials >= 2
							? "(1 trial)" : "-");
	else
		fslab_table_cellf(tb, RK_C_CI, "%s..%s", /* in the median's unit */
				  rp_fmt_rate_in(fmax(0, row->s.mean - row->s.ci), row->s.median, false,
						 lo, sizeof(lo)),
				  rp_fmt_rate_in(row->s.mean + row->s.ci, row->s.median, true, hi,
						 sizeof(hi)));
	fslab_table_cellf(tb, RK_C_RATIO, "%5.3f", row->ratio);
	const struct rp_mcell *mc = d->sum ? rp_sum_cell(d->sum, t, row->e->idx) : NULL;
	if (i == 0 || !mc || (d->sum->max_trials < 2)) /* 1 trial: said once, on top */
		snprintf(vs, sizeof(vs), "%s", i == 0 ? "best" : "-");
	else if (!mc->cmp.tested)
		snprintf(vs, sizeof(vs), "not tested");
	else if (mc->cmp.dir == RP_DIR_SLOWER || mc->cmp.dir == RP_DIR_FASTER)
		snprintf(vs, sizeof(vs), "%s %s", rp_dir_word(mc->cmp.dir),
			 rp_fmt_p(mc->cmp.p_adj, pb, sizeof(pb)));
	else
		snprintf(vs, sizeof(vs), "%s", rp_dir_word(mc->cmp.dir));
	fslab_table_cell(tb, RK_C_VS, vs);
	if (row->s.file_lo == row->s.file_hi)
		fslab_table_cell(tb, RK_C_PLATEAU, rp_fmt_size(row->s.file_hi, a, sizeof(a)));
	else
		fslab_table_cellf(tb, RK_C_PLATEAU, "%s-%s", rp_fmt_size(row->s.file_lo, a, sizeof(a)),
				  rp_fmt_size(row->s.file_hi, b, sizeof(b)));
	/* the marks as the summary's model has them (report.json reads the
	 * same cell), not decided again here */
	rk_flags(&row->s, fl, sizeof(fl));
	snprintf(marks, sizeof(marks), "%s%s%s", fl, (mc ? mc->partial : row->e->partial[t]) ? " partial" : "",
		 (mc ? mc->aside : row->aside) ? " aside" : "");
	fslab_table_cell(tb, RK_C_FLAGS, marks + (marks[0] == ' '));
}

/* Test t's ranked rows as a table (lib/table.h).  0 or -errno. */
static int rk_text_table(FILE *out, const struct rp_data *d, enum fslab_test t,
			 const struct rp_ranking *r)
{
	static const struct {
		const char *heading;
		enum fslab_table_align align;
	} cols[] = {
		[RK_C_RANK] = { "#", FSLAB_TABLE_RIGHT },	     [RK_C_LABEL] = { "filesystem", FSLAB_TABLE_LEFT },
		[RK_C_SCORE] = { "score", FSLAB_TABLE_RIGHT },	     [RK_C_CI] = { "95% CI", FSLAB_TABLE_LEFT },
		[RK_C_RATIO] = { "ratio", FSLAB_TABLE_RIGHT },	     [RK_C_VS] = { "vs #1 (adj. p)", FSLAB_TABLE_LEFT },
		[RK_C_PLATEAU] = { "plateau", FSLAB_TABLE_LEFT },    [RK_C_FLAGS] = { "flags", FSLAB_TABLE_LEFT },
	};
	struct fslab_table *tb = fslab_table_new(2);
	int rc;

	if (!tb)
		return -ENOMEM;
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fslab_table_column(tb, cols[c].heading, cols[c].align);
	for (size_t i = 0; i < r->n; i++)
		rk_text_row(tb, d, t, i, &r->rows[i]);
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	return rc;
}

int rp_text_rankings(FILE *out, const struct rp_data *d, unsigned tests)
{
	unsigned flags = 0; /* of every ranked row */
	int rc = 0;

	for (int t = 0; t < FSLAB_TEST_MAX && rc == 0; t++) {
		struct rp_ranking r;

		if (!(d->sum->shown & (1u << t)) || !rp_rank_test(d, tests, t, &r))
			continue;
		fprintf(out, "\n== %s == %s (1 MiB = 1024 KiB)\n", fslab_test_to_string(t), rp_plateau_words(t));
		rc = rk_text_table(out, d, t, &r);
		for (size_t i = 0; i < r.n; i++)
			flags |= r.rows[i].s.flags;
		/* the entries the ranking leaves out, after the table */
		for (size_t i = 0; i < r.n_partial; i++)
			fprintf(out, "-  %s  not ranked: partial data (interrupted or incomplete run)\n",
				r.partial[i]->label);
		for (size_t i = 0; i < r.n_unranked; i++)
			fprintf(out, "-  %s  not ranked: no ok cell (every one failed or was skipped)\n",
				r.unranked[i]->label);
		for (size_t i = 0; i < d->n_all; i++)
			rk_problems(out, d->all[i], t);
		rp_ranking_free(&r);
	}
	rp_text_flag_legend(out, d, flags);
	return rc;
}

void rp_text_runs(FILE *out, const struct rp_data *d)
{
	for (size_t i = 0; i < d->n_runs; i++) {
		const struct rp_run *r = &d->runs[i];
		size_t rows = 0, failed = 0, skipped = 0, pc = 0, fuse = 0;
		unsigned trials = 0;
		json_object *m = NULL, *v;
		const char *host = "?";

		for (size_t k = 0; k < r->n_entries; k++) {
			rows += r->entries[k].n_rows;
			failed += r->entries[k].n_failed;
			skipped += r->entries[k].n_skipped;
			pc += r->entries[k].n_flag_pc;
			fuse += r->entries[k].n_flag_fuse;
			if (r->entries[k].max_trial > trials)
				trials = r->entries[k].max_trial;
		}
		if (r->manifest && json_object_object_get_ex(r->manifest, "machine", &m) &&
		    json_object_object_get_ex(m, "hostname", &v) &&
		    json_object_is_type(v, json_type_string))
			host = json_object_get_string(v);
		fprintf(out, "run %-8s %s\n", r->tag, r->dir);
		fprintf(out, "    cache mode %s, up to %u trial%s, %zu filesystem%s, %zu rows (%zu failed, %zu skipped),\n"
			     "    host %s, cells flagged: %zu page-cache, %zu fuse%s\n",
			r->cache, trials, trials == 1 ? "" : "s", r->n_entries,
			r->n_entries == 1 ? "" : "s", rows, failed, skipped, host, pc, fuse,
			r->manifest ? "" : " (no manifest.json)");
	}
}

struct rk_rows {
	struct rp_same_fs *v;
	size_t n, cap;
};

/* The one verdict of b against a in test t: the change matrix's cell when
 * the pair is one of its columns, else the matrix family's pair (every
 * pair of a test is in it) - never a second test of the same pair. */
static void rk_same_fs_cmp(const struct rp_data *d, const struct rp_entry *a,
			   const struct rp_entry *b, enum fslab_test t, struct rp_cmp *c)
{
	const struct rp_summary *s = d->sum;

	*c = (struct rp_cmp){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_adj = NAN,
			      .resolve = NAN, .df = NAN, .dir = RP_DIR_UNTESTED };
	if (!s)
		return;
	for (size_t i = 0; i < s->n_chg; i++)
		if (s->chg[i].a == a && s->chg[i].b == b && s->chg[i].t[t].has) {
			*c = s->chg[i].t[t].cmp;
			return;
		}
	rp_sum_pair(s, t, b->idx, a->idx, c);
}

/* Entries a and b (one filesystem in two runs) in each test they both
 * have a plateau in, appended to rows.  0 or -ENOMEM. */
static int rk_same_fs_pair(const struct rp_data *d, const struct rp_entry *a,
			   const struct rp_entry *b, unsigned tests, struct rk_rows *rows)
{
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		struct rp_score sa, sb;

		if (!(tests & (1u << t)))
			continue;
		if (rp_plateau(a, t, &sa) < 0 || rp_plateau(b, t, &sb) < 0) {
			rp_score_free(&sa);
			continue;
		}
		if (rows->n == rows->cap) {
			size_t cap = rows->cap ? rows->cap * 2 : 16;
			struct rp_same_fs *v = realloc(rows->v, cap * sizeof(*v));

			if (!v) {
				rp_score_free(&sa);
				rp_score_free(&sb);
				return -ENOMEM;
			}
			rows->v = v;
			rows->cap = cap;
		}
		rows->v[rows->n] = (struct rp_same_fs){
			.a = a, .b = b, .test = t, .median_a = sa.score, .median_b = sb.score,
		};
		rk_same_fs_cmp(d, a, b, t, &rows->v[rows->n++].cmp);
		rp_score_free(&sa);
		rp_score_free(&sb);
	}
	return 0;
}

int rp_same_fs_rows(const struct rp_data *d, unsigned tests, struct rp_same_fs **rows, size_t *n)
{
	struct rk_rows r = { 0 };
	int rc = 0;

	for (size_t i = 0; i < d->n_all && rc == 0; i++)
		for (size_t j = i + 1; j < d->n_all && rc == 0; j++) {
			const struct rp_entry *a = d->all[i], *b = d->all[j];

			if (a->run != b->run && strcmp(a->fs, b->fs) == 0)
				rc = rk_same_fs_pair(d, a, b, tests, &r);
		}
	*rows = r.v;
	*n = r.n;
	return rc;
}

int rp_text_same_fs(FILE *out, const struct rp_data *d, unsigned tests)
{
	static const char *const heads[] = { "filesystem", "test", "run A", "A",
					     "run B", "B", "B/A [interval]", "verdict" };
	struct rp_same_fs *rows;
	struct fslab_table *tb;
	size_t n;
	char ma[24], mb[24], ci[64];
	int rc;

	rc = rp_same_fs_rows(d, tests, &rows, &n);
	if (rc < 0 || n == 0) {
		free(rows);
		return rc;
	}
	fputs("\n== the same filesystem in two runs (plateau score MiB/s; B/A with the change matrix's\n"
	      "   interval and verdict) ==\n", out);
	if (!(tb = fslab_table_new(2))) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t c = 0; c < sizeof(heads) / sizeof(heads[0]); c++)
		fslab_table_column(tb, heads[c], c == 3 || c == 5 ? FSLAB_TABLE_RIGHT : FSLAB_TABLE_LEFT);
	for (size_t i = 0; i < n; i++) {
		const struct rp_same_fs *r = &rows[i];

		fslab_table_row(tb);
		fslab_table_cell(tb, 0, r->a->fs);
		fslab_table_cell(tb, 1, fslab_test_to_string(r->test));
		fslab_table_cell(tb, 2, r->a->run->tag);
		fslab_table_cell(tb, 3, rp_fmt_mibs(r->median_a, ma, sizeof(ma)));
		fslab_table_cell(tb, 4, r->b->run->tag);
		fslab_table_cell(tb, 5, rp_fmt_mibs(r->median_b, mb, sizeof(mb)));
		fslab_table_cell(tb, 6, rp_fmt_ratio_ci(&r->cmp, "-", ci, sizeof(ci)));
		fslab_table_cell(tb, 7, rp_change_word(r->cmp.dir));
	}
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	free(rows);
	return rc;
}

/* Each run's filesystems ranked among themselves - with runs labelled by
 * host, the per-host ranking of a lab across machines.  Per test and run:
 * the run's best with its score, then the others with their ratio to it
 * and the summary's verdict of that pair (< slower, > faster, = equivalent,
 * ? inconclusive; the pair is one of the matrix's family).  Partial data is
 * left out, as in the rankings above. */
void rp_text_run_rankings(FILE *out, const struct rp_data *d, unsigned tests)
{
	static const char *const marks[] = {
		[RP_DIR_SLOWER] = " <", [RP_DIR_FASTER] = " >", [RP_DIR_EQUIVALENT] = " =",
		[RP_DIR_INCONCLUSIVE] = " ?",
	};
	bool header = false;

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		struct rp_ranking rk;

		if (!rp_rank_test(d, tests, t, &rk))
			continue;
		for (size_t r = 0; r < d->n_runs; r++) {
			const struct rp_rank_row *best = NULL;
			char rate[32], line[1024];
			int o = 0;

			for (size_t i = 0; i < rk.n && o < (int)sizeof(line) - 64; i++) {
				const struct rp_rank_row *row = &rk.rows[i];
				struct rp_cmp cmp;

				if (row->e->run != &d->runs[r])
					continue;
				if (!best) {
					best = row;
					o += snprintf(line + o, sizeof(line) - (size_t)o, "1 %s %s", row->e->fs,
						      rp_fmt_rate(row->s.score, rate, sizeof(rate)));
					continue;
				}
				if (!d->sum || !rp_sum_pair(d->sum, t, row->e->idx, best->e->idx, &cmp))
					continue;
				o += snprintf(line + o, sizeof(line) - (size_t)o, ", %s %.2fx%s", row->e->fs,
					      cmp.ratio,
					      cmp.dir <= RP_DIR_INCONCLUSIVE && marks[cmp.dir] ? marks[cmp.dir] : "");
			}
			if (!best)
				continue;
			if (!header) {
				fputs("\n== each run's own ranking (score of its best; ratio to it: < slower, > faster,\n"
				      "   = equivalent, ? inconclusive, as in the summary's family of comparisons) ==\n",
				      out);
				header = true;
			}
			fprintf(out, "%-14s %-*s %s\n", fslab_test_to_string(t), rk_width(d, RK_TAG, 12),
				d->runs[r].tag, line);
		}
		rp_ranking_free(&rk);
	}
}
