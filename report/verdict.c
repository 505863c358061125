/* The first screen as text and HTML: banners, the verdict matrix, the
 * family verdicts and the change matrix (numbers from summary.c). */
#include "report_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char vd_cmd_disk[] =
	"fslab run --cache cold (or --cache direct) on the same lab";

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

/* "0.98 [0.91-1.05] ~" in at most w columns. */
static void vd_text_cell(char *buf, size_t len, const struct rp_mcell *c)
{
	if (c->partial && !c->has) {
		snprintf(buf, len, "partial");
		return;
	}
	if (!c->has) {
		snprintf(buf, len, "-");
		return;
	}
	const char *mark = c->dir == RP_DIR_BEST ? " best"
			   : c->dir == RP_DIR_SLOWER ? " <"
			   : c->dir == RP_DIR_SAME ? " ~"
						   : "";
	if (isnan(c->ratio_lo))
		snprintf(buf, len, "%.2f%s%s", c->ratio, mark, c->partial ? " p" : "");
	else
		snprintf(buf, len, "%.2f [%.2f-%.2f]%s%s", c->ratio, c->ratio_lo, c->ratio_hi, mark,
			 c->partial ? " p" : "");
}

static void vd_text_chg_cell(char *buf, size_t len, const struct rp_change_cell *c)
{
	if (!c->has) {
		snprintf(buf, len, "-");
		return;
	}
	const char *mark = c->dir == RP_DIR_FASTER ? " +"
			   : c->dir == RP_DIR_SLOWER ? " -"
			   : c->dir == RP_DIR_SAME ? " ~"
						   : "";
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

void rp_text_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	char cell[64];
	int w = s->max_trials >= 2 ? 20 : 10;

	vd_text_banners(out, d);
	if (!s->tests)
		return;
	fprintf(out, "\n== summary: ratio to the best per test (large-file plateau%s) ==\n",
		s->max_trials >= 2 ? ", [95% CI]" : "");
	char line[4096];
	size_t l;
	/* blocks of as many columns as fit in 100 */
	size_t per = (100 - 14) / (size_t)(w + 1);
	for (size_t c0 = 0; c0 < s->n; c0 += per) {
		size_t c1 = c0 + per < s->n ? c0 + per : s->n;

		l = (size_t)snprintf(line, sizeof(line), "%-14s", "test");
		for (size_t i = c0; i < c1 && l < sizeof(line); i++)
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*.*s", w, w, d->all[i]->label);
		vd_line(out, line);
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			if (!(s->tests & (1u << t)))
				continue;
			l = (size_t)snprintf(line, sizeof(line), "%-14s", fslab_test_to_string(t));
			for (size_t i = c0; i < c1 && l < sizeof(line); i++) {
				vd_text_cell(cell, sizeof(cell), rp_sum_cell(s, t, i));
				l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*s", w, cell);
			}
			vd_line(out, line);
		}
	}
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
	for (size_t c0 = 0; c0 < s->n_chg; c0 += per) {
		size_t c1 = c0 + per < s->n_chg ? c0 + per : s->n_chg;

		l = (size_t)snprintf(line, sizeof(line), "%-14s", "test");
		for (size_t i = c0; i < c1 && l < sizeof(line); i++) {
			char lab[200];
			snprintf(lab, sizeof(lab), "%s %s/%s", s->chg[i].b->fs, s->chg[i].b->run->tag,
				 s->chg[i].a->run->tag);
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*.*s", w, w, lab);
		}
		vd_line(out, line);
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			if (!(s->tests & (1u << t)))
				continue;
			l = (size_t)snprintf(line, sizeof(line), "%-14s", fslab_test_to_string(t));
			for (size_t i = c0; i < c1 && l < sizeof(line); i++) {
				vd_text_chg_cell(cell, sizeof(cell), &s->chg[i].t[t]);
				l += (size_t)snprintf(line + l, sizeof(line) - l, " %-*s", w, cell);
			}
			vd_line(out, line);
		}
	}
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
			     "(1.5&times; its O_DIRECT probe). These numbers measure memory, not the "
			     "disk. To measure the disk: <code>%s</code>.</div>\n",
			100 * s->pc_frac, s->pc_cells, s->ok_cells, vd_cmd_disk);
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

static const char *vd_class(enum rp_dir dir)
{
	switch (dir) {
	case RP_DIR_BEST:
		return "best";
	case RP_DIR_FASTER:
		return "faster";
	case RP_DIR_SLOWER:
		return "slower";
	case RP_DIR_SAME:
		return "same";
	default:
		return "nd";
	}
}

void rp_html_summary(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	char buf[64];

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
	fputs("<div class=scroll><table class=matrix>\n", out);
	/* the legend (a caption would be squeezed to the table's width) */
	char *legend = NULL;
	size_t legend_len = 0;
	FILE *lg = open_memstream(&legend, &legend_len);
	if (!lg)
		return;
	fputs("<p class=legend>Ratio to the best filesystem per test on the large-file plateau", lg);
	if (s->max_trials >= 2)
		fprintf(lg, " (95%% interval); colour: <span class=best>best</span>, "
			     "<span class=slower>slower beyond noise</span>, <span class=same>not "
			     "distinguishable</span> (Welch's t-test, Holm&ndash;Bonferroni over %zu "
			     "comparisons, 5%% family-wise).",
			s->n_comparisons);
	else
		fputs(". 1 trial: no interval, no test against noise.", lg);
	fputs(" Click a test for its ranking.</p>\n", lg);
	fclose(lg);
	fputs("<tr><th class=l>test</th>", out);
	for (size_t i = 0; i < s->n; i++) {
		fputs("<th>", out);
		rp_html_escape(out, d->all[i]->label);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		if (!(s->tests & (1u << t)))
			continue;
		fprintf(out, "<tr><th class=l><a href=\"#rank-%s\">%s</a></th>", fslab_test_to_string(t),
			fslab_test_to_string(t));
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_mcell *c = rp_sum_cell(s, t, i);

			if (!c->has) {
				fprintf(out, "<td class=nd>%s</td>", c->partial ? "partial" : "&ndash;");
				continue;
			}
			fprintf(out, "<td class=%s title=\"%s; %s MiB/s", vd_class(c->dir),
				rp_dir_word(c->dir), rp_fmt_mibs(c->median, buf, sizeof(buf)));
			if (!isnan(c->p_adj))
				fprintf(out, "; Holm-adjusted p %.3g", c->p_adj);
			fprintf(out, "\">%.2f", c->ratio);
			if (!isnan(c->ratio_lo))
				fprintf(out, "<small> %.2f&ndash;%.2f</small>", c->ratio_lo, c->ratio_hi);
			if (c->partial)
				fputs(" <small>(partial)</small>", out);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	fputs(legend, out);
	free(legend);
	if (s->n_chg) {
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
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			if (!(s->tests & (1u << t)))
				continue;
			fprintf(out, "<tr><th class=l>%s</th>", fslab_test_to_string(t));
			for (size_t i = 0; i < s->n_chg; i++) {
				const struct rp_change_cell *c = &s->chg[i].t[t];

				if (!c->has) {
					fputs("<td class=nd>&ndash;</td>", out);
					continue;
				}
				fprintf(out, "<td class=%s title=\"%s", vd_class(c->dir), rp_dir_word(c->dir));
				if (!isnan(c->p_adj))
					fprintf(out, "; Holm-adjusted p %.3g", c->p_adj);
				fprintf(out, "\">%.2f", c->ratio);
				if (!isnan(c->lo))
					fprintf(out, "<small> %.2f&ndash;%.2f</small>", c->lo, c->hi);
				if (c->partial)
					fputs(" <small>(partial)</small>", out);
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
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
	fputs("</section>\n", out);
}
