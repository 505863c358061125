/* The first screen as text and HTML: banners, the verdict matrix, the
 * family verdicts and the change matrix (numbers from summary.c).  Both
 * matrices are shown by the same code, through struct vd_cell. */
#include "report_priv.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char vd_cmd_disk[] =
	"fslab run --cache cold (or --cache direct) on the same lab";

/* A cell of either matrix: a ratio with its interval and verdict. */
struct vd_cell {
	bool has, partial;
	enum rp_dir dir;
	double ratio, lo, hi; /* lo, hi NaN without an interval */
	double p_adj;         /* Holm-adjusted; NaN untested */
	bool show_median;     /* the median on hover (the change matrix has none) */
	double median;        /* KiB/s */
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

	return (struct vd_cell){ c->has, c->partial, c->dir, c->ratio, c->ratio_lo,
				 c->ratio_hi, c->p_adj, true, c->median };
}

static const char *const vd_ratio_marks[] = {
	[RP_DIR_BEST] = " best", [RP_DIR_SLOWER] = " <", [RP_DIR_SAME] = " ~", [RP_DIR_UNTESTED] = NULL,
};

static void vd_change_label(const struct rp_data *d, size_t i, char *buf, size_t len)
{
	const struct rp_change *c = &d->sum->chg[i];

	snprintf(buf, len, "%s %s/%s", c->b->fs, c->b->run->tag, c->a->run->tag);
}

static struct vd_cell vd_change_cell(const struct rp_summary *s, int t, size_t i)
{
	const struct rp_change_cell *c = &s->chg[i].t[t];

	return (struct vd_cell){ c->has, c->partial, c->dir, c->ratio, c->lo, c->hi, c->p_adj, false, 0 };
}

static const char *const vd_change_marks[] = {
	[RP_DIR_FASTER] = " +", [RP_DIR_SLOWER] = " -", [RP_DIR_SAME] = " ~", [RP_DIR_UNTESTED] = NULL,
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
	if (s->incomplete || s->interrupted)
		fprintf(out, "!! %s: %s.\n   A filesystem with missing data is never ranked first.\n",
			s->interrupted ? "INTERRUPTED RUN" : "INCOMPLETE DATA",
			s->incomplete ? s->incomplete_names : "the manifest says the run did not finish");
	if (s->fuse)
		fprintf(out, "!! FUSE: %s run through a user-space driver (fusefat): not comparable\n"
			     "   with the kernel filesystems.\n",
			s->fuse_names);
	if (s->max_trials < 2)
		fputs("!! 1 TRIAL: no intervals and no significance tests in this report; run with\n"
		      "   --trials 3 or more to tell differences from noise.\n",
		      out);
	else if (s->min_trials < 3)
		fprintf(out, "!! FEW TRIALS: some filesystems have %u; intervals are wide and tests weak.\n",
			s->min_trials);
}

/* "0.98 [0.91-1.05] ~" ("p" added for partial data). */
static void vd_text_cell(char *buf, size_t len, const struct vd_cell *c, const char *const *marks)
{
	if (c->partial && !c->has) {
		snprintf(buf, len, "partial");
		return;
	}
	if (!c->has) {
		snprintf(buf, len, "-");
		return;
	}
	const char *mark = c->dir <= RP_DIR_UNTESTED && marks[c->dir] ? marks[c->dir] : "";
	if (isnan(c->lo))
		snprintf(buf, len, "%.2f%s%s", c->ratio, mark, c->partial ? " p" : "");
	else
		snprintf(buf, len, "%.2f [%.2f-%.2f]%s%s", c->ratio, c->lo, c->hi, mark,
			 c->partial ? " p" : "");
}

/* text wrapped at 96 columns, continuation lines indented by 6 */
static void vd_wrap(FILE *out, const char *first, const char *text)
{
	size_t col = (size_t)fprintf(out, "%s", first), start = col;
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (col > start && col + 1 + n > 96) {
			fputs("\n      ", out);
			col = start = 6;
		} else if (col > start) {
			fputc(' ', out);
			col++;
		}
		col += fwrite(p, 1, n, out);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* a matrix line without trailing blanks */
static void vd_line(FILE *out, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	fprintf(out, "%s\n", line);
}

/* Columns c0 to c1 of matrix m: their headings, then a row per test. */
static void vd_text_block(FILE *out, const struct rp_data *d, const struct vd_matrix *m, size_t c0,
			  size_t c1, int w)
{
	const struct rp_summary *s = d->sum;
	char line[4096], label[200], cell[64];
	size_t l = (size_t)snprintf(line, sizeof(line), "%-14s", "test");

	for (size_t i = c0; i < c1 && l < sizeof(line); i++) {
		m->label(d, i, label, sizeof(label));
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*.*s", w, w, label);
	}
	vd_line(out, line);
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(s->tests & (1u << t)))
			continue;
		l = (size_t)snprintf(line, sizeof(line), "%-14s", fslab_test_to_string(t));
		for (size_t i = c0; i < c1 && l < sizeof(line); i++) {
			struct vd_cell c = m->cell(s, t, i);

			vd_text_cell(cell, sizeof(cell), &c, m->marks);
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*s", w, cell);
		}
		vd_line(out, line);
	}
}

/* Matrix m in blocks of as many columns of w as fit in 100. */
static void vd_text_matrix(FILE *out, const struct rp_data *d, const struct vd_matrix *m, int w)
{
	size_t per = (100 - 14) / (size_t)(w + 1);

	for (size_t c0 = 0; c0 < m->n; c0 += per)
		vd_text_block(out, d, m, c0, c0 + per < m->n ? c0 + per : m->n, w);
}

void rp_text_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	const struct vd_matrix ratios = { s->n, vd_ratio_label, vd_ratio_cell, vd_ratio_marks };
	const struct vd_matrix changes = { s->n_chg, vd_change_label, vd_change_cell, vd_change_marks };
	int w = s->max_trials >= 2 ? 20 : 10;

	vd_text_banners(out, d);
	if (!s->tests)
		return;
	fprintf(out, "\n== summary: ratio to the best per test (large-file plateau%s) ==\n",
		s->max_trials >= 2 ? ", [95% CI]" : "");
	vd_text_matrix(out, d, &ratios, w);
	if (s->max_trials >= 2)
		fprintf(out, "best = fastest; < slower beyond noise, ~ not distinguishable (Welch's t-test,\n"
			     "Holm-Bonferroni over the %zu comparisons: 5%% family-wise); p = partial data\n",
			s->n_comparisons);
	else
		fputs("best = fastest; p = partial data; 1 trial: no test against noise\n", out);
	fputs("\nverdicts:\n", out);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (s->family_present[f])
			vd_wrap(out, "  ", s->verdict[f]);
	if (!s->n_chg)
		return;
	fprintf(out, "\n== change between runs: later / first run, plateau median%s ==\n",
		s->max_trials >= 2 ? " [95% CI]" : "");
	vd_text_matrix(out, d, &changes, w);
	if (s->max_trials >= 2)
		fprintf(out, "+ faster, - slower beyond noise, ~ not distinguishable (Welch's t-test, Holm\n"
			     "over the %zu comparisons); p = partial data\n",
			s->n_chg_comparisons);
}

/* ---- HTML ---- */

static void vd_html_banners(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	if (s->pc_cells && s->pc_frac >= 0.5)
		fprintf(out, "<div class=\"banner warn\" id=\"banner-page-cache\"><b>Mostly page cache:</b> "
			     "%.0f%% of the measured cells (%zu of %zu) ran faster than the disk can "
			     "(%g&times; its O_DIRECT probe). These numbers measure memory, not the "
			     "disk. To measure the disk: <code>%s</code>.</div>\n",
			100 * s->pc_frac, s->pc_cells, s->ok_cells, FSLAB_PAGE_CACHE_FACTOR, vd_cmd_disk);
	if (s->incomplete || s->interrupted) {
		fprintf(out, "<div class=\"banner warn\" id=\"banner-incomplete\"><b>%s:</b> ",
			s->interrupted ? "Interrupted run" : "Incomplete data");
		rp_html_escape(out, s->incomplete ? s->incomplete_names
						  : "the manifest says the run did not finish");
		fputs(". A filesystem with missing data is never ranked first.</div>\n", out);
	}
	if (s->fuse) {
		fputs("<div class=\"banner info\" id=\"banner-fuse\"><b>FUSE:</b> ", out);
		rp_html_escape(out, s->fuse_names);
		fputs(" run through a user-space driver (fusefat): not comparable with the kernel "
		      "filesystems.</div>\n",
		      out);
	}
	if (s->max_trials < 2)
		fputs("<div class=\"banner warn\" id=\"banner-trials\"><b>1 trial:</b> no intervals and "
		      "no significance tests in this report. Run with <code>--trials 3</code> or more "
		      "to tell differences from noise.</div>\n",
		      out);
	else if (s->min_trials < 3)
		fprintf(out, "<div class=\"banner info\" id=\"banner-trials\"><b>Few trials:</b> some "
			     "filesystems have %u; intervals are wide and tests weak.</div>\n",
			s->min_trials);
}

/* A matrix cell: the ratio and its interval, coloured by the verdict; the
 * verdict, median and adjusted p on hover. */
static void vd_html_cell(FILE *out, const struct vd_cell *c)
{
	char buf[64];

	if (!c->has) {
		fprintf(out, "<td class=nd>%s</td>", c->partial ? "partial" : "&ndash;");
		return;
	}
	fprintf(out, "<td class=%s title=\"%s", rp_dir_class(c->dir), rp_dir_word(c->dir));
	if (c->show_median)
		fprintf(out, "; %s MiB/s", rp_fmt_mibs(c->median, buf, sizeof(buf)));
	if (!isnan(c->p_adj))
		fprintf(out, "; Holm-adjusted p %.3g", c->p_adj);
	fprintf(out, "\">%.2f", c->ratio);
	if (!isnan(c->lo))
		fprintf(out, "<small> %.2f&ndash;%.2f</small>", c->lo, c->hi);
	if (c->partial)
		fputs(" <small>(partial)</small>", out);
	fputs("</td>", out);
}

/* The rows of matrix m, a test each (linked to its ranking when link). */
static void vd_html_rows(FILE *out, const struct rp_summary *s, const struct vd_matrix *m,
			 bool link)
{
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		const char *name = fslab_test_to_string(t);

		if (!(s->tests & (1u << t)))
			continue;
		if (link)
			fprintf(out, "<tr><th class=l><a href=\"#rank-%s\">%s</a></th>", name, name);
		else
			fprintf(out, "<tr><th class=l>%s</th>", name);
		for (size_t i = 0; i < m->n; i++) {
			struct vd_cell c = m->cell(s, t, i);

			vd_html_cell(out, &c);
		}
		fputs("</tr>\n", out);
	}
}

static void vd_html_ratios(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	const struct vd_matrix ratios = { s->n, vd_ratio_label, vd_ratio_cell, vd_ratio_marks };

	fputs("<div class=scroll><table class=matrix>\n", out);
	fputs("<tr><th class=l>test</th>", out);
	for (size_t i = 0; i < s->n; i++) {
		fputs("<th>", out);
		rp_html_escape(out, d->all[i]->label);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	vd_html_rows(out, s, &ratios, true);
	fputs("</table></div>\n", out);
	/* the legend (a caption would be squeezed to the table's width) */
	fputs("<p class=legend>Ratio to the best filesystem per test on the large-file plateau", out);
	if (s->max_trials >= 2)
		fprintf(out, " (95%% interval); colour: <span class=best>best</span>, "
			     "<span class=slower>slower beyond noise</span>, <span class=same>not "
			     "distinguishable</span> (Welch's t-test, Holm&ndash;Bonferroni over %zu "
			     "comparisons, 5%% family-wise).",
			s->n_comparisons);
	else
		fputs(". 1 trial: no interval, no test against noise.", out);
	fputs(" Click a test for its ranking.</p>\n", out);
}

static void vd_html_changes(FILE *out, const struct rp_summary *s)
{
	const struct vd_matrix changes = { s->n_chg, vd_change_label, vd_change_cell, vd_change_marks };

	fputs("<h3>Change between runs</h3><div class=scroll id=\"changes\"><table class=matrix>\n",
	      out);
	fputs("<tr><th class=l>test</th>", out);
	for (size_t i = 0; i < s->n_chg; i++) {
		fputs("<th>", out);
		rp_html_escape(out, s->chg[i].b->fs);
		fputs("<br><small>", out);
		rp_html_escape(out, s->chg[i].b->run->tag);
		fputs(" / ", out);
		rp_html_escape(out, s->chg[i].a->run->tag);
		fputs("</small></th>", out);
	}
	fputs("</tr>\n", out);
	vd_html_rows(out, s, &changes, false);
	fputs("</table></div>\n<p class=legend>Later run / first run, plateau medians", out);
	if (s->max_trials >= 2)
		fprintf(out, " (95%% interval); <span class=faster>faster</span>, "
			     "<span class=slower>slower</span> beyond noise, <span class=same>not "
			     "distinguishable</span> (Welch's t-test, Holm&ndash;Bonferroni over %zu "
			     "comparisons).",
			s->n_chg_comparisons);
	else
		fputs(". 1 trial: no interval, no test against noise.", out);
	fputs("</p>\n", out);
}

void rp_html_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	vd_html_banners(out, d);
	fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
	if (!s->tests) {
		fputs("<p>No test has data to rank.</p></section>\n", out);
		return;
	}
	fputs("<ul class=verdicts>\n", out);
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (s->family_present[f]) {
			fputs("<li>", out);
			rp_html_escape(out, s->verdict[f]);
			fputs("</li>\n", out);
		}
	fputs("</ul>\n", out);
	vd_html_ratios(out, d);
	if (s->n_chg)
		vd_html_changes(out, s);
	fputs("</section>\n", out);
}
