/* The text view: the rankings, the runs, the same filesystem in two runs,
 * each run's own rankings and the latency panel, rendered from the model
 * (model.h) with the shared formatting (format.h).  The first screen is
 * verdict.c's, the CrystalDiskMark panel cdm_view.c's. */
#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The ranking tables' columns. */
enum { RK_C_RANK, RK_C_LABEL, RK_C_SCORE, RK_C_CI, RK_C_RATIO, RK_C_VS, RK_C_PLATEAU, RK_C_FLAGS };

/* The longest run tag of the report, at least min (names are never cut). */
static int rk_tag_width(const struct rp_data *d, size_t min)
{
	for (size_t i = 0; i < d->n_runs; i++)
		if (strlen(d->runs[i].tag) > min)
			min = strlen(d->runs[i].tag);
	return (int)min;
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
	rp_flag_letters(row->s.flags, "", fl, sizeof(fl));
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
		const struct rp_ranking *r = &d->sum->rank[t];

		if (!(d->sum->shown & (1u << t)) || !(tests & (1u << t)))
			continue;
		fprintf(out, "\n== %s == %s (1 MiB = 1024 KiB)\n", fslab_test_to_string(t), rp_plateau_words(t));
		rc = rk_text_table(out, d, t, r);
		char dl[1024];
		if (rp_dev_test_line(d, t, dl, sizeof(dl))[0])
			rp_text_wrap(out, "", 2, dl);
		for (size_t i = 0; i < r->n; i++)
			flags |= r->rows[i].s.flags;
		/* the entries the ranking leaves out, after the table */
		for (size_t i = 0; i < r->n_partial; i++)
			fprintf(out, "-  %s  not ranked: partial data (interrupted or incomplete run)\n",
				r->partial[i]->label);
		for (size_t i = 0; i < r->n_unranked; i++)
			fprintf(out, "-  %s  not ranked: no ok cell (every one failed or was skipped)\n",
				r->unranked[i]->label);
		for (size_t i = 0; i < d->n_all; i++)
			rk_problems(out, d->all[i], t);
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

int rp_text_same_fs(FILE *out, const struct rp_data *d)
{
	static const char *const heads[] = { "filesystem", "test", "run A", "A",
					     "run B", "B", "B/A [interval]", "verdict" };
	const struct rp_same_fs *rows = d->sum->same_fs;
	struct fslab_table *tb;
	size_t n = d->sum->n_same_fs;
	char ma[24], mb[24], ci[64];
	int rc;

	if (n == 0)
		return 0;
	fputs("\n== the same filesystem in two runs (plateau score MiB/s; B/A with the change matrix's\n"
	      "   interval and verdict) ==\n", out);
	if (!(tb = fslab_table_new(2)))
		return -ENOMEM;
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

	RP_FOR_TESTS(t, tests) {
		const struct rp_ranking *rk = &d->sum->rank[t];

		for (size_t r = 0; r < d->n_runs; r++) {
			const struct rp_rank_row *best = NULL;
			char rate[32], line[1024];
			int o = 0;

			for (size_t i = 0; i < rk->n && o < (int)sizeof(line) - 64; i++) {
				const struct rp_rank_row *row = &rk->rows[i];
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
			fprintf(out, "%-14s %-*s %s\n", fslab_test_to_string(t), rk_tag_width(d, 12),
				d->runs[r].tag, line);
		}
	}
}

int rp_latency_text(FILE *out, const struct rp_data *d)
{
	static const char *const heads[] = { "test", "filesystem", "cells", "p50 median",
					     "p99 worst", "(cell)", "max" };
	const struct rp_summary *s = d->sum;
	struct fslab_table *tb;
	int rc;

	if (!s->lat_tests)
		return 0;
	fputs("\n== latency per operation (fslab run --latency), microseconds ==\n", out);
	if (!(tb = fslab_table_new(2)))
		return -ENOMEM;
	for (size_t c = 0; c < sizeof(heads) / sizeof(heads[0]); c++)
		fslab_table_column(tb, heads[c], c < 2 || c == 5 ? FSLAB_TABLE_LEFT : FSLAB_TABLE_RIGHT);
	RP_FOR_TESTS(t, s->lat_tests)
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			char a[24], f[16], r[16];

			if (!l->has)
				continue;
			fslab_table_row(tb);
			fslab_table_cell(tb, 0, fslab_test_to_string(t));
			fslab_table_cell(tb, 1, d->all[i]->label);
			fslab_table_cellf(tb, 2, "%zu", l->n_cells);
			fslab_table_cell(tb, 3, rp_fmt_us(l->p50, a, sizeof(a)));
			fslab_table_cell(tb, 4, rp_fmt_us(l->p99, a, sizeof(a)));
			if (!isnan(l->p99))
				fslab_table_cellf(tb, 5, "%s/%s", rp_fmt_size(l->p99_file_kib, f, sizeof(f)),
						  rp_fmt_size(l->p99_record_kib, r, sizeof(r)));
			fslab_table_cell(tb, 6, rp_fmt_us(l->max, a, sizeof(a)));
		}
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	if (rc < 0)
		return rc;
	fputs("p50 median: the median of the cells' p50 (each the median over its trials); p99\n"
	      "worst: the largest cell p99, at that file/record size; max: the largest seen.\n",
	      out);
	return 0;
}
