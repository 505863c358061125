/* The first screen as text and HTML: banners, the verdict matrix, the
 * family verdicts and the change matrix (numbers from summary.c).  Both
 * matrices are shown by the same code, through struct vd_cell. */
#include "view.h"
#include "stats.h"
#include "steady.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char vd_cmd_disk[] =
	"fslab run --cache cold (or --cache direct) on the same lab";

/* A cell of either matrix: a ratio with its interval and verdict. */
struct vd_cell {
	bool has, partial;
	struct rp_cmp cmp;    /* the ratio, its interval (lo, hi NaN untested), the verdict */
	unsigned flags;       /* its flags of the kind that sets a figure aside (letters) */
	unsigned aside;       /* those flags when they set it aside (the test has an
			       * unflagged figure); 0: not set aside */
	const char *other;    /* the names of its unknown flags */
	bool show_score;      /* the score on hover (the change matrix has none) */
	bool change;          /* a change matrix cell: improved / regressed */
	double score;         /* KiB/s */
	size_t n_cmp;         /* the comparisons its p is corrected for */
};

/* One of the two matrices: its columns, their cells, the text marks. */
struct vd_matrix {
	size_t n;
	/* the column's heading in the text */
	void (*label)(const struct rp_data *d, size_t i, char *buf, size_t len);
	struct vd_cell (*cell)(const struct rp_summary *s, int t, size_t i);
	const char *const *marks; /* per enum rp_dir; NULL: no mark */
};

static void vd_ratio_label(const struct rp_data *d, size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s", d->all[i]->label);
}

static struct vd_cell vd_ratio_cell(const struct rp_summary *s, int t, size_t i)
{
	const struct rp_mcell *c = rp_sum_cell(s, t, i);

	return (struct vd_cell){ c->has, c->partial, c->cmp, c->flags & RP_FLAGS_ASIDE,
				 c->aside ? c->flags & RP_FLAGS_ASIDE : 0, c->other ? c->other : "", true, false,
				 c->score, s->n_comparisons };
}

static const char *const vd_ratio_marks[] = {
	[RP_DIR_BEST] = " best", [RP_DIR_SLOWER] = " <", [RP_DIR_FASTER] = " >",
	[RP_DIR_EQUIVALENT] = " =", [RP_DIR_INCONCLUSIVE] = " ?", [RP_DIR_UNTESTED] = NULL,
};

static void vd_change_label(const struct rp_data *d, size_t i, char *buf, size_t len)
{
	const struct rp_change *c = &d->sum->chg[i];

	snprintf(buf, len, "%s %s/%s", c->b->fs, c->tag_b, c->tag_a);
}

static struct vd_cell vd_change_cell(const struct rp_summary *s, int t, size_t i)
{
	const struct rp_change_cell *c = &s->chg[i].t[t];

	return (struct vd_cell){ c->has, c->partial, c->cmp, c->flags, 0, "", false, true, 0, s->n_chg_comparisons };
}

static const char *const vd_change_marks[] = {
	[RP_DIR_FASTER] = " +", [RP_DIR_SLOWER] = " -", [RP_DIR_EQUIVALENT] = " =",
	[RP_DIR_INCONCLUSIVE] = " ?", [RP_DIR_UNTESTED] = NULL,
};

/* ---- text ---- */

static void vd_text_banners(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	if (s->pc_cells && s->pc_frac >= 0.5)
		fprintf(out, "!! MOSTLY PAGE CACHE: %.0f%% of the measured cells (%zu of %zu) ran faster than\n"
			     "   the disk can; these numbers measure memory, not the disk.  To measure the\n"
			     "   disk: %s.\n",
			100 * s->pc_frac, s->pc_cells, s->ok_cells, vd_cmd_disk);
	if (s->incomplete || s->interrupted) {
		char line[2400];

		snprintf(line, sizeof(line), "%s: %s%s%s. A filesystem with missing data is never ranked first.",
			 s->interrupted ? "INTERRUPTED RUN" : "INCOMPLETE DATA", s->stop_text,
			 s->incomplete && s->interrupted ? ". Not measured in full: " : "", s->incomplete ? s->incomplete_names : "");
		rp_text_wrap(out, "!! ", 3, line);
	}
	if (s->fuse)
		fprintf(out, "!! FUSE: %s run through a user-space driver (fusefat): not comparable\n"
			     "   with the kernel filesystems.\n",
			s->fuse_names);
	if (s->buffered_loop)
		rp_text_wrap(out, "!! ", 3, s->loop_text);
	if (s->hot) {
		char line[1400];

		snprintf(line, sizeof(line), "HOT DRIVE: %s. Figures measured while the drive was hot are "
			 "flagged thermal (T) and set aside; the manifest's drive has the readings.", s->hot_names);
		rp_text_wrap(out, "!! ", 3, line);
	}
	if (s->unsteady)
		fprintf(out, "!! NO STEADY STATE: %s did not reach SSD steady state in %d rounds (SNIA PTS\n"
			     "   rule; the manifest's steady_state has every round): their figures are the\n"
			     "   drive's state on the day.\n",
			s->unsteady_names, FSLAB_STEADY_ROUNDS_MAX);
	if (s->max_trials < 2)
		fprintf(out, "!! 1 TRIAL: no intervals and no significance tests in this report; %s\n"
			     "   to tell differences from noise.\n",
			s->interrupted ? "finish the run (above)" : "run with\n   --trials 3 or more");
	else if (s->min_trials < 3)
		fprintf(out, "!! FEW TRIALS: some filesystems have %u; intervals are wide and tests weak.\n",
			s->min_trials);
}

/* "0.98 [0.91-1.05] ?" ("p" added for partial data, the flag letters for
 * a flagged entry, set aside or not: a test whose every figure is flagged,
 * such as cold mode's reread, still shows it is the page cache). */
static void vd_text_cell(char *buf, size_t len, const struct vd_cell *c, const char *const *marks)
{
	char ci[64], fl[24];

	if (c->partial && !c->has) {
		snprintf(buf, len, "partial");
		return;
	}
	if (!c->has) {
		snprintf(buf, len, "-");
		return;
	}
	const char *mark = c->cmp.dir <= RP_DIR_UNTESTED && marks[c->cmp.dir] ? marks[c->cmp.dir] : "";
	rp_flag_letters(c->flags, " ", fl, sizeof(fl));
	snprintf(buf, len, "%s%s%s%s%s", rp_fmt_ratio_ci(&c->cmp, "-", ci, sizeof(ci)), mark,
		 fl[0] ? " " : "", fl, c->partial ? " p" : "");
}

/* Columns c0 to c1 of matrix m as a table (lib/table.h): their headings,
 * then a row per test.  0 or -errno. */
static int vd_text_block(FILE *out, const struct rp_data *d, const struct vd_matrix *m, size_t c0,
			 size_t c1)
{
	const struct rp_summary *s = d->sum;
	static const char *const test[] = { "test" };
	struct rp_tab tb;
	char label[200], cell[64];

	if (rp_tab_open(&tb, out, false, test, 1, 1, 0) < 0)
		return -ENOMEM;
	for (size_t i = c0; i < c1; i++)
		fslab_table_column(tb.tb, (m->label(d, i, label, sizeof(label)), label), FSLAB_TABLE_LEFT);
	RP_FOR_TESTS(t, s->tests) {
		rp_tab_row(&tb);
		rp_tab_cell(&tb, fslab_test_to_string(t), NULL, false);
		for (size_t i = c0; i < c1; i++) {
			struct vd_cell c = m->cell(s, t, i);

			vd_text_cell(cell, sizeof(cell), &c, m->marks);
			rp_tab_cell(&tb, cell, NULL, false);
		}
	}
	return rp_tab_close(&tb, "");
}

/* Per band of file sizes (bands.c): each family's leader, its margin over
 * the next best and how sure, before the verdicts. */
static void vd_bands(FILE *out, const struct rp_data *d, bool html)
{
	const struct rp_bands *b = &d->sum->bands;
	char line[512];

	if (!b->any)
		return;
	fprintf(out, html ? "<p>By file size: the leader against the next best over the family's tests,\n"
			    "paired by cell and trial; intervals hold together at 95%% over %zu pairs.</p>\n<ul class=bands>\n"
			  : "\nby file size (the leader against the next best over the family's tests, paired\n"
			    "by cell and trial; intervals hold together at 95%% over %zu pairs):\n",
		b->m);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (int j = 0; j < RP_N_BAND_LINES; j++) {
			int k = (j + RP_BAND_ALL) % RP_N_BAND_LINES; /* all sizes first */

			if (!b->v[f][k].line[0])
				continue;
			snprintf(line, sizeof(line), "%s, %s: %s", rp_family_name(f), rp_band_name(k), b->v[f][k].line);
			if (html)
				rp_html_put(out, "<li>", line, "</li>\n");
			else
				rp_text_wrap(out, "  ", 6, line);
		}
	if (html)
		fputs("</ul>\n", out);
}

/* Matrix m in blocks of as many columns as fit in 100, each column as
 * wide as its widest cell or heading (a name is never cut), counted here
 * at the widest of any column (at least w) to choose the blocks.  0 or
 * -errno. */
static int vd_text_matrix(FILE *out, const struct rp_data *d, const struct vd_matrix *m, int w)
{
	char cell[64], label[200];

	for (size_t i = 0; i < m->n; i++) {
		m->label(d, i, label, sizeof(label));
		if ((int)strlen(label) > w)
			w = (int)strlen(label);
	}

	RP_FOR_TESTS(t, d->sum->tests)
		for (size_t i = 0; i < m->n; i++) {
			struct vd_cell c = m->cell(d->sum, t, i);

			vd_text_cell(cell, sizeof(cell), &c, m->marks);
			if ((int)strlen(cell) > w)
				w = (int)strlen(cell);
		}
	size_t per = (100 - 14) / (size_t)(w + 2); /* two blanks apart */
	if (per == 0) /* a heading wider than the screen: one column a block */
		per = 1;

	int rc = 0;
	for (size_t c0 = 0; c0 < m->n && rc == 0; c0 += per)
		rc = vd_text_block(out, d, m, c0, c0 + per < m->n ? c0 + per : m->n);
	return rc;
}

/* The legend of the letters beyond P and F (the matrix's own legend line
 * names those), when a cell carries one: from the flag table. */
static void vd_text_more_flags(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	unsigned f = 0;
	char names[512], line[768] = "";

	for (size_t k = 0; k < s->n * FSLAB_TEST_MAX; k++)
		f |= s->m[k].has ? s->m[k].flags : 0;
	f &= RP_FLAGS_ASIDE & ~(unsigned)(RP_FLAG_PAGE_CACHE | RP_FLAG_FUSE);
	if (!f)
		return;
	for (size_t i = 0; i < rp_n_flags; i++)
		if (f & rp_flag_table[i].bit)
			fslab_catf(line, sizeof(line), "%s%s = %s", line[0] ? "; " : "", rp_flag_table[i].letter,
				rp_flag_table[i].words);
	if (f & RP_FLAG_OTHER)
		fslab_catf(line, sizeof(line), "%s? = %s", line[0] ? "; " : "", rp_other_flags_all(d, names, sizeof(names)));
	rp_text_wrap(out, "", 6, fslab_catf(line, sizeof(line), ", set aside likewise"));
}

/* The device panel: a row per entry, a column per family with a figure
 * (docs/report.md "What each filesystem makes the drive write"). */
static int vd_device(FILE *out, const struct rp_data *d, bool html)
{
	const struct rp_dev *v = &d->sum->dev;
	const char *heads[1 + RP_N_FAMILIES] = { "filesystem" };
	struct rp_tab tb;
	size_t n = 1;
	char b[96];
	int rc;

	if (v->empty)
		fputs(html ? "<p id=\"device-none\">No device counters in these CSVs' device columns: the "
			     "page-cache flags come from the probe's bound, as before.</p>\n"
			   : "\nno device counters in these CSVs' device columns: the page-cache flags come from\n"
			     "the probe's bound, as before\n", out);
	if (!v->n_rows)
		return 0;
	fputs(html ? "<h3 id=\"device\">What each filesystem makes the drive write</h3>\n"
		   : "\n== what each filesystem makes the drive write (device counters; mean [95%] over trials) ==\n", out);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (v->fam_any[f])
			heads[n++] = rp_family_name(f);
	if ((rc = rp_tab_open(&tb, out, html, heads, n, 1, 1)) < 0)
		return rc;
	for (size_t i = 0; i < d->n_all; i++) {
		rp_tab_row(&tb);
		snprintf(b, sizeof(b), "%s%s", d->all[i]->label, d->all[i]->n_flag_fuse ? " (FUSE)" : "");
		rp_tab_cell(&tb, b, NULL, false);
		for (int f = 0; f < RP_N_FAMILIES; f++)
			if (v->fam_any[f])
				rp_tab_cell(&tb, rp_fmt_dev(&v->fam[(size_t)f * d->n_all + i], b, sizeof(b)), NULL, false);
	}
	if ((rc = rp_tab_close(&tb, "\n")) < 0)
		return rc;
	if (html)
		fprintf(out, "<p class=legend>Mean [95%% interval] over trials. %s %zu passes with device "
			     "counters; page cache by the counters but within the probe's bound: %zu; beyond "
			     "the probe's bound though the device did the work: %zu.</p>\n",
			rp_dev_words, v->n_rows, v->n_pc_only, v->n_beyond_only);
	else {
		rp_text_wrap(out, "", 0, rp_dev_words);
		fprintf(out, "%zu passes with device counters; page cache by the counters but within the probe's\n"
			     "bound: %zu; beyond the probe's bound though the device did the work: %zu\n",
			v->n_rows, v->n_pc_only, v->n_beyond_only);
	}
	if (v->drive_bytes > 0) {
		const double gib = 1024.0 * 1024 * 1024;

		fprintf(out, html ? "<p class=legend>The drive's own count of host writes (SMART) over the run: "
				    "%.2f GiB; the device columns' writes of the timed passes: %.2f GiB (the drive's "
				    "also holds the run's untimed writes: test files laid down, the probe).</p>\n"
				  : "the drive's own count of host writes (SMART) over the run: %.2f GiB; the device\n"
				    "columns' writes of the timed passes: %.2f GiB (the drive's also holds the run's\n"
				    "untimed writes: test files laid down, the probe)\n",
			v->drive_bytes / gib, v->block_bytes / gib);
	}
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (v->memory[f][0] && html) {
			rp_html_put(out, "<p class=legend>", rp_family_name(f), ": ");
			rp_html_put(out, "", v->memory[f], "</p>\n");
		} else if (v->memory[f][0]) {
			snprintf(b, sizeof(b), "%s: ", rp_family_name(f));
			rp_text_wrap(out, b, 2, v->memory[f]);
		}
	return 0;
}

int rp_text_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	const struct vd_matrix ratios = { s->n, vd_ratio_label, vd_ratio_cell, vd_ratio_marks };
	const struct vd_matrix changes = { s->n_chg, vd_change_label, vd_change_cell, vd_change_marks };
	int w = 10, rc;

	vd_text_banners(out, d);
	if (!s->tests)
		return rp_cdm_verdicts_text(out, d, true);
	if (s->comparison)
		goto changes;
	fprintf(out, "\n== summary: ratio to the best per test (large-file score%s) ==\n",
		s->n_comparisons ? ", [95% interval]" : "");
	if ((rc = vd_text_matrix(out, d, &ratios, w)) < 0)
		return rc;
	if (s->n_comparisons)
		fprintf(out, "best = fastest unflagged; < slower, > faster (the interval excludes 1);\n"
			     "= equivalent (inside +-%g%%); ? inconclusive; no mark: not tested.  Intervals\n"
			     "hold together at 95%% over the %zu pairs of the tests (docs/report.md);\n"
			     "P/F = page cache/FUSE: set aside, never the best, where the test has an\n"
			     "unflagged figure; p = partial data\n",
			100 * s->delta, s->n_comparisons);
	else
		fputs("best = fastest unflagged; P/F = page cache/FUSE: set aside, never the best, where\n"
		      "the test has an unflagged figure; p = partial data; not tested: no filesystem has\n"
		      "2 trials to compare\n", out);
	vd_text_more_flags(out, d);
	vd_bands(out, d, false);
	/* the families' lines judge each test's large-file score, as the
	 * matrix does; the band lines above judge every file size */
	bool fams = false;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		fams |= s->family_present[f];
	fputs(fams ? "\nverdicts on the large files (each test's two largest file sizes):\n" : "\nverdicts:\n", out);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (s->family_present[f])
			rp_text_wrap(out, "  ", 6, s->verdict[f]);
	rp_cdm_verdicts_text(out, d, false);
changes:
	if (s->comparison)
		fputs("\nchange per test:\n", out);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (size_t k = 0; k < s->n_chg_verdict[f]; k++)
			rp_text_wrap(out, "  ", 6, s->chg_verdict[f][k]);
	if (!s->n_chg)
		return vd_device(out, d, false);
	fprintf(out, "\n== change between runs: later / first side, large-file score of each run%s ==\n",
		s->n_chg_comparisons ? " [95% interval]" : "");
	if (s->differs[0])
		rp_text_wrap(out, "differs: ", 6, s->differs);
	if ((rc = vd_text_matrix(out, d, &changes, w)) < 0)
		return rc;
	if (s->n_chg_comparisons)
		fprintf(out, "+ improved, - regressed (the interval excludes 1), = equivalent (inside +-%g%%),\n"
			     "? inconclusive; intervals (Welch on the runs' scores) hold together at 95%%\n"
			     "over the %zu comparisons; no mark: not tested (1 run on a side);\n"
			     "P/F = page cache/FUSE; p = partial data\n",
			100 * s->delta, s->n_chg_comparisons);
	else
		fputs("not tested: between-run noise unknown (1 run per side): give each side 2 or more\n"
		      "runs (fslab report B1,B2,B3 A1,A2,A3); P/F = page cache/FUSE; p = partial data\n", out);
	return vd_device(out, d, false);
}

/* ---- HTML ---- */

/* One banner: its title, the text escaped, then tail (HTML). */
static void vd_html_banner(FILE *out, const char *cls, const char *id, const char *title, const char *text,
			   const char *tail)
{
	fprintf(out, "<div class=\"banner %s\" id=\"banner-%s\"><b>%s:</b> ", cls, id, title);
	rp_html_put(out, "", text, tail);
	fputs("</div>\n", out);
}

static void vd_html_banners(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	if (s->pc_cells && s->pc_frac >= 0.5)
		fprintf(out, "<div class=\"banner warn\" id=\"banner-page-cache\"><b>Mostly page cache:</b> "
			     "%.0f%% of the measured cells (%zu of %zu) ran faster than the disk can "
			     "(%g&times; its O_DIRECT probe). These numbers measure memory, not the "
			     "disk. To measure the disk: <code>%s</code>.</div>\n",
			100 * s->pc_frac, s->pc_cells, s->ok_cells, FSLAB_PAGE_CACHE_FACTOR, vd_cmd_disk);
	char tail[256], line[2400];

	snprintf(line, sizeof(line), "%s%s%s", s->stop_text, s->incomplete && s->interrupted ? ". Not measured in full: " : "",
		 s->incomplete ? s->incomplete_names : "");
	if (s->incomplete || s->interrupted)
		vd_html_banner(out, "warn", "incomplete", s->interrupted ? "Interrupted run" : "Incomplete data",
			       line, ". A filesystem with missing data is never ranked first.");
	if (s->fuse)
		vd_html_banner(out, "info", "fuse", "FUSE", s->fuse_names,
			       " run through a user-space driver (fusefat): not comparable with the kernel filesystems.");
	if (s->buffered_loop)
		vd_html_banner(out, "warn", "buffered-loop", "Buffered loop device", s->loop_text, "");
	if (s->hot)
		vd_html_banner(out, "warn", "thermal", "Hot drive", s->hot_names,
			       ". Figures measured while the drive was hot are flagged <code>thermal</code> and set "
			       "aside; the manifest's <code>drive</code> has the readings.");
	snprintf(tail, sizeof(tail), " did not reach SSD steady state in %d rounds (SNIA PTS rule; the manifest's "
		 "<code>steady_state</code> has every round): their figures are the drive's state on the day.",
		 FSLAB_STEADY_ROUNDS_MAX);
	if (s->unsteady)
		vd_html_banner(out, "warn", "steady", "No steady state", s->unsteady_names, tail);
	if (s->max_trials < 2)
		fprintf(out, "<div class=\"banner warn\" id=\"banner-trials\"><b>1 trial:</b> no intervals and "
			     "no significance tests in this report. %s to tell differences from noise.</div>\n",
			s->interrupted ? "Finish the run (above)" : "Run with <code>--trials 3</code> or more");
	else if (s->min_trials < 3)
		fprintf(out, "<div class=\"banner info\" id=\"banner-trials\"><b>Few trials:</b> some "
			     "filesystems have %u; intervals are wide and tests weak.</div>\n",
			s->min_trials);
}

/* A matrix cell: the ratio and its interval, coloured by the verdict; the
 * verdict, score and adjusted p on hover. */
static void vd_html_cell(FILE *out, const struct vd_cell *c)
{
	char buf[64];

	if (!c->has) {
		fprintf(out, "<td class=nd>%s</td>", c->partial ? "partial" : "&ndash;");
		return;
	}
	const char *word = c->change ? rp_change_word(c->cmp.dir) : rp_dir_word(c->cmp.dir);

	fprintf(out, "<td class=%s title=\"%s", rp_dir_class(c->cmp.dir), word);
	if (c->show_score)
		fprintf(out, "; %s MiB/s", rp_fmt_mibs(c->score, buf, sizeof(buf)));
	if (!isnan(c->cmp.p_adj))
		fprintf(out, "; p %.3g after correcting for %zu comparisons", c->cmp.p_adj, c->n_cmp);
	if (c->cmp.dir == RP_DIR_INCONCLUSIVE && !isnan(c->cmp.resolve))
		fprintf(out, "; no difference larger than %.0f%% could be detected; %s", ceil(100 * c->cmp.resolve),
			c->change ? "more runs per side narrow it" : RP_MORE_TRIALS);
	if (c->flags) {
		char fw[160];
		fputs(c->aside ? "; set aside: " : "; flagged (every figure of this test is): ", out);
		rp_html_escape(out, rp_flag_words(c->flags, c->other, fw, sizeof(fw)));
	}
	fprintf(out, "\">%s", rp_fmt_ratio_ci(&c->cmp, "&ndash;", buf, sizeof(buf)));
	if (c->cmp.dir != RP_DIR_BEST && c->cmp.dir != RP_DIR_NONE)
		fprintf(out, " <small>%s</small>", word);
	if (c->aside)
		fputs(" <small>(set aside)</small>", out);
	else if (c->flags)
		fputs(" <small>(flagged)</small>", out);
	if (c->partial)
		fputs(" <small>(partial)</small>", out);
	fputs("</td>", out);
}

/* The rows of matrix m, a test each (linked to its ranking when link). */
/* Matrix m as an HTML table: the change matrix (chg), or the ratios with
 * each test's name a link to its ranking. */
static void vd_html_table(FILE *out, const struct rp_data *d, const struct vd_matrix *m, bool chg)
{
	fprintf(out, "<div class=scroll%s><table class=matrix>\n<tr><th class=l>test</th>",
		chg ? " id=\"changes\"" : "");
	for (size_t i = 0; i < m->n; i++) {
		const struct rp_change *c = chg ? &d->sum->chg[i] : NULL;

		rp_html_put(out, "<th>", chg ? c->b->fs : d->all[i]->label, chg ? "<br><small>" : "</th>");
		if (chg) {
			rp_html_escape(out, c->tag_b);
			rp_html_put(out, " / ", c->tag_a, "</small></th>");
		}
	}
	fputs("</tr>\n", out);
	RP_FOR_TESTS(t, d->sum->tests) {
		const char *name = fslab_test_to_string(t);

		if (!chg)
			fprintf(out, "<tr><th class=l><a href=\"#rank-%s\">%s</a></th>", name, name);
		else
			fprintf(out, "<tr><th class=l>%s</th>", name);
		for (size_t i = 0; i < m->n; i++) {
			struct vd_cell c = m->cell(d->sum, t, i);

			vd_html_cell(out, &c);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

/* The ratio matrix, or the change matrix (chg), as an HTML table with its
 * legend (a caption would be squeezed to the table's width). */
static void vd_html_matrix(FILE *out, const struct rp_data *d, bool chg)
{
	const struct rp_summary *s = d->sum;
	const struct vd_matrix m = chg ? (struct vd_matrix){ s->n_chg, vd_change_label, vd_change_cell, vd_change_marks }
				       : (struct vd_matrix){ s->n, vd_ratio_label, vd_ratio_cell, vd_ratio_marks };
	size_t n = chg ? s->n_chg_comparisons : s->n_comparisons;

	if (chg) {
		fputs("<h3>Change between runs</h3>\n", out);
		if (s->differs[0])
			rp_html_put(out, "<p id=\"run-differences\"><b>What differs:</b> ", s->differs, "</p>\n");
	}
	vd_html_table(out, d, &m, chg);
	fputs(chg ? "<p class=legend>Later side / first side, each run one large-file score"
		  : "<p class=legend>Ratio to the best filesystem per test on its large-file score", out);
	if (n)
		fprintf(out, chg ? " with the interval; the intervals hold together at 95%% over %zu "
				   "comparisons. <span class=faster>improved</span>, <span class=slower>regressed"
				   "</span> (the interval excludes 1), <span class=same>equivalent</span> "
				   "(inside &plusmn;%g%%), <span class=undecided>inconclusive</span>."
				 : " with its interval; the intervals hold together at 95%% over the %zu "
				   "pairs of the tests. Colour: <span class=best>best</span> (fastest "
				   "unflagged), <span class=slower>slower</span> or <span class=faster>faster"
				   "</span> (the interval excludes 1), <span class=same>equivalent</span> "
				   "(inside &plusmn;%g%%), <span class=undecided>inconclusive</span>. A "
				   "flagged figure (page cache, FUSE) is set aside, never the best, where "
				   "the test has an unflagged one; a test whose every figure is flagged is "
				   "marked so and left out of the verdicts.",
			n, 100 * s->delta);
	else
		fputs(chg ? ". Not tested: between-run noise unknown (1 run per side)."
			  : ". Not tested: no filesystem has 2 trials to compare.", out);
	fputs(chg ? "</p>\n" : " Click a test for its ranking.</p>\n", out);
}

void rp_html_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	vd_html_banners(out, d);
	fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
	if (!s->tests) {
		fputs(s->cdm.n_rows ? "<p>Queued tests: ranked row by row (depth, threads) in the CrystalDiskMark "
				     "rows below.</p></section>\n" : "<p>No test has data to rank.</p></section>\n", out);
		return;
	}
	if (!s->comparison) {
		vd_bands(out, d, true);
		fputs("<p>On the large files (each test's two largest file sizes):</p>\n", out);
	}
	fputs("<ul class=verdicts>\n", out);
	for (int f = 0; f < RP_N_FAMILIES && !s->comparison; f++)
		if (s->family_present[f])
			rp_html_put(out, "<li>", s->verdict[f], "</li>\n");
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (size_t k = 0; k < s->n_chg_verdict[f]; k++)
			rp_html_put(out, "<li class=change>", s->chg_verdict[f][k], "</li>\n");
	fputs("</ul>\n", out);
	if (!s->comparison)
		vd_html_matrix(out, d, false);
	if (s->n_chg)
		vd_html_matrix(out, d, true);
	vd_device(out, d, true);
	fputs("</section>\n", out);
}
