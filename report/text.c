/* The text view: the rankings, the runs, the same filesystem in two runs,
 * each run's own rankings and the latency panel, rendered from the model
 * (model.h) with the shared formatting (format.h).  The first screen is
 * verdict.c's, the CrystalDiskMark panel cdm_view.c's. */
#include "view.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int rp_tab_open(struct rp_tab *t, FILE *out, bool html, const char *const *heads, size_t n,
		unsigned text_left, unsigned html_left)
{
	*t = (struct rp_tab){ .out = out, .html_left = html_left };
	if (html)
		fputs("<div class=scroll><table><tr>", out);
	else if (!(t->tb = fslab_table_new(2)))
		return -ENOMEM;
	for (size_t c = 0; c < n; c++) {
		const char *bar = strchr(heads[c], '|');
		char h[32];

		if (html)
			rp_html_put(out, (html_left >> (c < 31 ? c : 31)) & 1 ? "<th class=l>" : "<th>", bar ? bar + 1 : heads[c], "</th>");
		else
			fslab_table_column(t->tb, bar ? (snprintf(h, sizeof(h), "%.*s", (int)(bar - heads[c]), heads[c]), h)
						      : heads[c], (text_left >> (c < 31 ? c : 31)) & 1 ? FSLAB_TABLE_LEFT : FSLAB_TABLE_RIGHT);
	}
	if (html)
		fputs("</tr>\n", out);
	return 0;
}

void rp_tab_row(struct rp_tab *t)
{
	if (t->tb)
		fslab_table_row(t->tb);
	else
		fputs(t->col ? "</tr>\n<tr>" : "<tr>", t->out);
	t->col = 0;
}

void rp_tab_cell(struct rp_tab *t, const char *text, const char *cls, bool raw)
{
	size_t c = t->col++;

	if (t->tb) {
		fslab_table_cell(t->tb, c, text);
		return;
	}
	if (cls)
		fprintf(t->out, "<td class=\"l %s\">", cls);
	else
		fputs((t->html_left >> (c < 31 ? c : 31)) & 1 ? "<td class=l>" : "<td>", t->out);
	if (raw)
		fputs(text, t->out);
	else
		rp_html_escape(t->out, text);
	fputs("</td>", t->out);
}

int rp_tab_close(struct rp_tab *t, const char *html_after)
{
	int rc = 0;

	if (t->tb) {
		rc = fslab_table_print(t->tb, t->out);
		fslab_table_free(t->tb);
	} else {
		fprintf(t->out, "%s</table></div>%s", t->col ? "</tr>\n" : "", html_after);
	}
	return rc;
}

/* The ranking tables' columns. */
enum { RK_C_RANK, RK_C_LABEL, RK_C_SCORE, RK_C_CI, RK_C_RATIO, RK_C_VS, RK_C_PLATEAU, RK_C_FLAGS };

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
		fslab_table_cell(tb, RK_C_CI, row->s.n_trials < 2 && d->sum->max_trials >= 2 ? "(1 trial)" : "-");
	else
		fslab_table_cellf(tb, RK_C_CI, "%s..%s", /* in the median's unit */
				  rp_fmt_rate_in(fmax(0, row->s.mean - row->s.ci), row->s.median, false,
						 lo, sizeof(lo)),
				  rp_fmt_rate_in(row->s.mean + row->s.ci, row->s.median, true, hi,
						 sizeof(hi)));
	fslab_table_cellf(tb, RK_C_RATIO, "%5.3f", row->ratio);
	const struct rp_mcell *mc = rp_sum_cell(d->sum, t, row->e->idx);
	if (i == 0 || d->sum->max_trials < 2) /* 1 trial: said once, on top */
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
	snprintf(marks, sizeof(marks), "%s%s%s", fl, mc->partial ? " partial" : "", mc->aside ? " aside" : "");
	fslab_table_cell(tb, RK_C_FLAGS, marks + (marks[0] == ' '));
}

int rp_text_rankings(FILE *out, const struct rp_data *d, unsigned tests)
{
	static const char *const heads[] = { [RK_C_RANK] = "#", [RK_C_LABEL] = "filesystem", [RK_C_SCORE] = "score",
					     [RK_C_CI] = "95% CI", [RK_C_RATIO] = "ratio", [RK_C_VS] = "vs #1 (corrected p)",
					     [RK_C_PLATEAU] = "files used", [RK_C_FLAGS] = "flags" };
	unsigned flags = 0; /* of every ranked row */
	struct rp_tab tb;
	int rc = 0;

	for (int t = 0; t < FSLAB_TEST_MAX && rc == 0; t++) {
		const struct rp_ranking *r = &d->sum->rank[t];

		if (!(d->sum->shown & (1u << t)) || !(tests & (1u << t)))
			continue;
		fprintf(out, "\n== %s == %s (1 MiB = 1024 KiB)\n", fslab_test_to_string(t), rp_plateau_words(t));
		if ((rc = rp_tab_open(&tb, out, false, heads, 8, 0xea, 0)) < 0)
			break;
		for (size_t i = 0; i < r->n; i++)
			rk_text_row(tb.tb, d, t, i, &r->rows[i]);
		rc = rp_tab_close(&tb, "");
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
		const char *host = rp_json_str(r->manifest, "machine", "hostname", "?");

		for (size_t k = 0; k < r->n_entries; k++) {
			rows += r->entries[k].n_rows;
			failed += r->entries[k].n_failed;
			skipped += r->entries[k].n_skipped;
			pc += r->entries[k].n_flag_pc;
			fuse += r->entries[k].n_flag_fuse;
			if (r->entries[k].max_trial > trials)
				trials = r->entries[k].max_trial;
		}
		fprintf(out, "run %-8s %s\n", r->tag, r->dir);
		fprintf(out, "    cache mode %s, up to %u trial%s, %zu filesystem%s, %zu rows (%zu failed, %zu skipped),\n"
			     "    host %s, cells flagged: %zu page-cache, %zu fuse%s\n",
			r->cache, trials, trials == 1 ? "" : "s", r->n_entries,
			r->n_entries == 1 ? "" : "s", rows, failed, skipped, host, pc, fuse,
			r->manifest ? "" : " (no manifest.json)");
	}
}

int rp_same_fs_table(FILE *out, const struct rp_data *d, bool html)
{
	static const char *const heads[] = { "filesystem", "test", "run A", "A|A MiB/s", "run B",
					     "B|B MiB/s", "B/A [interval]", "verdict" };
	const struct rp_same_fs *rows = d->sum->same_fs;
	struct rp_tab tb;
	char m[24], ci[64];
	int rc;

	if (d->sum->n_same_fs == 0)
		return 0;
	fputs(html ? "<section id=\"same-fs\"><h2>The same filesystem in two runs</h2>\n"
		     "<p>Large-file scores; B/A with the interval and verdict of the change matrix in the "
		     "summary (a pair that is not one of its columns: of the summary's matrix), so a pair "
		     "has one verdict only.</p>\n"
		   : "\n== the same filesystem in two runs (large-file score MiB/s; B/A with the change matrix's\n"
		     "   interval and verdict) ==\n", out);
	if ((rc = rp_tab_open(&tb, out, html, heads, 8, 0xd7, 0x97)) < 0)
		return rc;
	for (size_t i = 0; i < d->sum->n_same_fs; i++) {
		const struct rp_same_fs *r = &rows[i];

		rp_tab_row(&tb);
		rp_tab_cell(&tb, r->a->fs, NULL, false);
		rp_tab_cell(&tb, fslab_test_to_string(r->test), NULL, false);
		rp_tab_cell(&tb, r->a->run->tag, NULL, false);
		rp_tab_cell(&tb, rp_fmt_mibs(r->median_a, m, sizeof(m)), NULL, false);
		rp_tab_cell(&tb, r->b->run->tag, NULL, false);
		rp_tab_cell(&tb, rp_fmt_mibs(r->median_b, m, sizeof(m)), NULL, false);
		rp_tab_cell(&tb, rp_fmt_ratio_ci(&r->cmp, html ? "&ndash;" : "-", ci, sizeof(ci)), NULL, true);
		rp_tab_cell(&tb, rp_change_word(r->cmp.dir), html ? rp_dir_class(r->cmp.dir) : NULL, false);
	}
	return rp_tab_close(&tb, "</section>\n");
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
	size_t w = 12; /* the longest run tag, at least 12 (names are never cut) */

	for (size_t i = 0; i < d->n_runs; i++)
		w = strlen(d->runs[i].tag) > w ? strlen(d->runs[i].tag) : w;
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
				if (!rp_sum_pair(d->sum, t, row->e->idx, best->e->idx, &cmp))
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
			fprintf(out, "%-14s %-*s %s\n", fslab_test_to_string(t), (int)w, d->runs[r].tag, line);
		}
	}
}

int rp_latency_table(FILE *out, const struct rp_data *d, bool html)
{
	static const char *const heads[] = { "test", "filesystem", "cells", "p50 median",
					     "p99 worst", "(cell)|cell", "p99.9 worst", "p99.99 worst", "max" };
	const struct rp_summary *s = d->sum;
	struct rp_tab tb;
	int rc;

	if (!s->lat_tests)
		return 0;
	fputs(html ? "<section id=\"latency\"><h2>Latency per operation</h2>\n<p>From <code>fslab run "
		     "--latency</code>, in microseconds: per test and filesystem, the median of its cells' "
		     "p50, the largest cell p99 (at that file/record size), p99.9 and p99.99 (- when the passes "
		     "were too short: 1,000 operations for p99.9, 10,000 for p99.99) and the largest "
		     "maximum.</p>\n"
		   : "\n== latency per operation (fslab run --latency), microseconds ==\n", out);
	if ((rc = rp_tab_open(&tb, out, html, heads, 9, 0x23, 0x23)) < 0)
		return rc;
	RP_FOR_TESTS(t, s->lat_tests)
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			char a[24], f[16], r[16], cell[40] = "";

			if (!l->has)
				continue;
			if (!isnan(l->lat[FSLAB_LAT_P99]))
				snprintf(cell, sizeof(cell), "%s/%s", rp_fmt_size(l->p99_file_kib, f, sizeof(f)),
					 rp_fmt_size(l->p99_record_kib, r, sizeof(r)));
			rp_tab_row(&tb);
			rp_tab_cell(&tb, fslab_test_to_string(t), NULL, false);
			rp_tab_cell(&tb, d->all[i]->label, NULL, false);
			snprintf(a, sizeof(a), "%zu", l->n_cells);
			rp_tab_cell(&tb, a, NULL, false);
			for (int q = 0; q < FSLAB_LAT_N; q++) {
				rp_tab_cell(&tb, rp_fmt_us(l->lat[q], a, sizeof(a)), NULL, false);
				if (q == FSLAB_LAT_P99)
					rp_tab_cell(&tb, cell, NULL, false);
			}
		}
	if ((rc = rp_tab_close(&tb, "</section>\n")) < 0 || html)
		return rc;
	fputs("p50 median: the median of the cells' p50 (each the median over its trials); p99\n"
	      "worst: the largest cell p99, at that file/record size; p99.9 and p99.99 worst: the\n"
	      "largest cell figure (-: passes under 1,000 or 10,000 operations); max: the largest seen.\n", out);
	return 0;
}
