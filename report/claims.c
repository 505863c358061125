/* --claims: the 2023 report's conclusions checked against a warm run (the
 * 2023 method) and honest runs (cold/direct).  runs[0] is the warm run, the
 * others are honest.  Each claim gets a verdict per run with its numbers,
 * then an overall verdict from the honest runs. */
#include "report_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum cl_outcome { CL_UNKNOWN, CL_HOLDS, CL_TIE, CL_FAILS };

static const char *const cl_words[] = {
	[CL_UNKNOWN] = "cannot tell",
	[CL_HOLDS] = "holds",
	[CL_TIE] = "within noise",
	[CL_FAILS] = "fails",
};
static const char *const cl_class[] = {
	[CL_UNKNOWN] = "unknown", [CL_HOLDS] = "holds", [CL_TIE] = "within", [CL_FAILS] = "fails",
};

struct cl_line {
	const struct rp_run *run;
	enum cl_outcome o;
	char evidence[512];
};

struct cl_claim {
	const char *title;
	struct cl_line lines[FSLAB_REPORT_MAX_DIRS];
	size_t n;
	enum cl_outcome overall;
	char overall_text[256];
};

static void cl_wrap(FILE *out, const char *first, size_t indent, const char *text);

#define CL_2023_WRITE 3.5e7 /* KB/s, the 2023 headline (btrfs write) */
#define CL_2023_READ 2.2e7  /* KB/s (btrfs read) */

static const struct rp_entry *cl_find(const struct rp_run *r, enum fslab_fs_type t)
{
	for (size_t i = 0; i < r->n_entries; i++)
		if (r->entries[i].type == t)
			return &r->entries[i];
	return NULL;
}

static const char *cl_p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "1 trial: no significance test");
	else
	{
		char q[24];
		snprintf(buf, len, "%s, %s", rp_fmt_p(p, q, sizeof(q)), rp_verdict(p));
	}
	return buf;
}

/* Claims 1 and 2: btrfs is the fastest for test t in this run. */
static void cl_fastest(const struct rp_run *r, enum fslab_test t, struct cl_line *l)
{
	struct rp_score *s = calloc(r->n_entries ? r->n_entries : 1, sizeof(*s));
	size_t best = SIZE_MAX, second = SIZE_MAX, btrfs = SIZE_MAX, n = 0, rank = 1;
	char pb[64], ra[24], rb[24];

	l->run = r;
	if (!s) {
		snprintf(l->evidence, sizeof(l->evidence), "out of memory");
		return;
	}
	for (size_t i = 0; i < r->n_entries; i++) {
		if (rp_plateau(&r->entries[i], t, &s[i]) < 0)
			continue;
		n++;
		if (r->entries[i].type == FSLAB_FS_BTRFS && btrfs == SIZE_MAX)
			btrfs = i;
		if (best == SIZE_MAX || s[i].median > s[best].median) {
			second = best;
			best = i;
		} else if (second == SIZE_MAX || s[i].median > s[second].median) {
			second = i;
		}
	}
	if (btrfs == SIZE_MAX) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs %s)",
			 fslab_test_to_string(t));
	} else if (n < 2) {
		snprintf(l->evidence, sizeof(l->evidence),
			 "cannot tell (no data for any other filesystem's %s)", fslab_test_to_string(t));
	} else {
		for (size_t i = 0; i < r->n_entries; i++)
			if (s[i].n_trials && s[i].median > s[btrfs].median)
				rank++;
		if (btrfs == best) {
			double p = rp_welch_p(s[best].trial, s[best].n_trials, s[second].trial,
					      s[second].n_trials, NULL);
			l->o = (isnan(p) || p < 0.05) ? CL_HOLDS : CL_TIE;
			snprintf(l->evidence, sizeof(l->evidence),
				 "btrfs #1 of %zu at %s; next %s %s (x%.2f; %s)", n,
				 rp_fmt_rate(s[best].median, ra, sizeof(ra)), r->entries[second].fs,
				 rp_fmt_rate(s[second].median, rb, sizeof(rb)),
				 s[best].median / s[second].median, cl_p(p, pb, sizeof(pb)));
		} else {
			double p = rp_welch_p(s[btrfs].trial, s[btrfs].n_trials, s[best].trial,
					      s[best].n_trials, NULL);
			l->o = (isnan(p) || p < 0.05) ? CL_FAILS : CL_TIE;
			snprintf(l->evidence, sizeof(l->evidence),
				 "btrfs #%zu of %zu at %s; fastest %s %s (btrfs x%.2f; %s)",
				 rank, n, rp_fmt_rate(s[btrfs].median, ra, sizeof(ra)), r->entries[best].fs,
				 rp_fmt_rate(s[best].median, rb, sizeof(rb)),
				 s[btrfs].median / s[best].median, cl_p(p, pb, sizeof(pb)));
		}
	}
	for (size_t i = 0; i < r->n_entries; i++)
		rp_score_free(&s[i]);
	free(s);
}

static const struct rp_cell *cl_cell(const struct rp_entry *e, enum fslab_test t, uint64_t f,
				     uint64_t rec)
{
	for (size_t k = e->test_first[t]; k < e->test_first[t + 1]; k++)
		if (e->cells[k].file_kib == f && e->cells[k].record_kib == rec && e->cells[k].n_ok)
			return &e->cells[k];
	return NULL;
}

static double cl_cell_p(const struct rp_entry *e, const struct rp_cell *a, const struct rp_cell *b)
{
	double *va = malloc((a->n_ok + 1) * sizeof(double)), *vb = malloc((b->n_ok + 1) * sizeof(double));
	double p = NAN;

	if (va && vb) {
		for (unsigned i = 0; i < a->n_ok; i++)
			va[i] = e->samples[a->first + i].v;
		for (unsigned i = 0; i < b->n_ok; i++)
			vb[i] = e->samples[b->first + i].v;
		p = rp_welch_p(va, a->n_ok, vb, b->n_ok, NULL);
	}
	free(va);
	free(vb);
	return p;
}

/* Claim 3: FAT32 reads 128M files slower than 64M and 256M ones, at every
 * record size. */
static void cl_fat_dip(const struct rp_run *r, struct cl_line *l)
{
	const struct rp_entry *e = cl_find(r, FSLAB_FS_FAT32);
	const uint64_t f64 = 64 * 1024, f128 = 128 * 1024, f256 = 256 * 1024;
	unsigned n = 0, dips = 0, sig = 0, testable = 0;
	char ex[160] = "";

	l->run = r;
	if (!e) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for fat32)");
		return;
	}
	for (size_t k = e->test_first[FSLAB_TEST_READ]; k < e->test_first[FSLAB_TEST_READ + 1]; k++) {
		const struct rp_cell *c = &e->cells[k], *a, *b;

		if (c->file_kib != f128 || !c->n_ok)
			continue;
		a = cl_cell(e, FSLAB_TEST_READ, f64, c->record_kib);
		b = cl_cell(e, FSLAB_TEST_READ, f256, c->record_kib);
		if (!a || !b)
			continue;
		n++;
		if (c->median < a->median && c->median < b->median) {
			double pa = cl_cell_p(e, c, a), pb = cl_cell_p(e, c, b);

			dips++;
			if (!isnan(pa) && !isnan(pb)) {
				testable++;
				sig += pa < 0.05 && pb < 0.05;
			}
		}
		if (!ex[0]) {
			char rs[16];
			char ra[24], rb[24], rc[24];
			snprintf(ex, sizeof(ex), "at %s records: 64M %s, 128M %s, 256M %s",
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
	if (dips == n)
		l->o = (testable == 0 || sig == dips) ? CL_HOLDS : CL_TIE;
	else
		l->o = CL_FAILS;
	snprintf(l->evidence, sizeof(l->evidence),
		 "128M slower than both 64M and 256M at %u of %u record sizes (%u of %u testable dips beyond noise); %s",
		 dips, n, sig, testable, ex);
}

/* Claim 4: btrfs writes faster than it reads (plateau). */
static void cl_write_read(const struct rp_run *r, struct cl_line *l)
{
	const struct rp_entry *e = cl_find(r, FSLAB_FS_BTRFS);
	struct rp_score w, rd;
	char pb[64], ra[24], rb[24];

	l->run = r;
	if (!e || rp_plateau(e, FSLAB_TEST_WRITE, &w) < 0) {
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs write)");
		return;
	}
	if (rp_plateau(e, FSLAB_TEST_READ, &rd) < 0) {
		rp_score_free(&w);
		snprintf(l->evidence, sizeof(l->evidence), "cannot tell (no data for btrfs read)");
		return;
	}
	double p = rp_welch_p(w.trial, w.n_trials, rd.trial, rd.n_trials, NULL);
	if (w.median > rd.median)
		l->o = (isnan(p) || p < 0.05) ? CL_HOLDS : CL_TIE;
	else
		l->o = (isnan(p) || p < 0.05) ? CL_FAILS : CL_TIE;
	snprintf(l->evidence, sizeof(l->evidence),
		 "btrfs write %s, read %s (write/read x%.2f; %s)", rp_fmt_rate(w.median, ra, sizeof(ra)),
		 rp_fmt_rate(rd.median, rb, sizeof(rb)),
		 w.median / rd.median, cl_p(p, pb, sizeof(pb)));
	rp_score_free(&w);
	rp_score_free(&rd);
}

static void cl_overall(struct cl_claim *c)
{
	bool any = false, fails = false, ties = false;

	for (size_t i = 1; i < c->n; i++) {
		if (c->lines[i].o == CL_UNKNOWN)
			continue;
		any = true;
		fails |= c->lines[i].o == CL_FAILS;
		ties |= c->lines[i].o == CL_TIE;
	}
	if (!any) {
		c->overall = CL_UNKNOWN;
		snprintf(c->overall_text, sizeof(c->overall_text),
			 "cannot tell: no honest run has the data");
	} else if (fails) {
		c->overall = CL_FAILS;
		snprintf(c->overall_text, sizeof(c->overall_text), "does not survive");
	} else if (ties) {
		c->overall = CL_TIE;
		snprintf(c->overall_text, sizeof(c->overall_text),
			 "not shown: the honest runs cannot tell it from noise");
	} else {
		c->overall = CL_HOLDS;
		snprintf(c->overall_text, sizeof(c->overall_text), "survives");
	}
}

static void cl_evaluate(const struct rp_data *d, struct cl_claim c[4])
{
	static const char *const titles[4] = {
		"btrfs is the fastest filesystem for writes",
		"btrfs is the fastest filesystem for reads",
		"FAT32 has a read dip at 128 MB files (vs 64 MB and 256 MB, all record sizes)",
		"btrfs writes faster than it reads",
	};

	for (int k = 0; k < 4; k++) {
		memset(&c[k], 0, sizeof(c[k]));
		c[k].title = titles[k];
		for (size_t i = 0; i < d->n_runs; i++) {
			struct cl_line *l = &c[k].lines[c[k].n++];
			switch (k) {
			case 0:
				cl_fastest(&d->runs[i], FSLAB_TEST_WRITE, l);
				break;
			case 1:
				cl_fastest(&d->runs[i], FSLAB_TEST_READ, l);
				break;
			case 2:
				cl_fat_dip(&d->runs[i], l);
				break;
			default:
				cl_write_read(&d->runs[i], l);
			}
		}
		cl_overall(&c[k]);
	}
}

/* The headline against the device probe, per filesystem with page-cache
 * flags (and always btrfs). */
static void cl_headline(const struct rp_data *d, FILE *out, bool html)
{
	for (size_t ri = 0; ri < d->n_runs; ri++) {
		const struct rp_run *r = &d->runs[ri];

		for (size_t i = 0; i < r->n_entries; i++) {
			const struct rp_entry *e = &r->entries[i];
			struct rp_score w, rd;
			char ra[24], pa[24], pb[24];
			size_t wpc = 0, wn = 0, rpc = 0, rn = 0;
			char line[768];
			int o = 0;

			if (!e->n_flag_pc && e->type != FSLAB_FS_BTRFS)
				continue;
			for (size_t k = e->test_first[FSLAB_TEST_WRITE]; k < e->test_first[FSLAB_TEST_WRITE + 1]; k++) {
				wn++;
				wpc += !!(e->cells[k].flags & RP_FLAG_PAGE_CACHE);
			}
			for (size_t k = e->test_first[FSLAB_TEST_READ]; k < e->test_first[FSLAB_TEST_READ + 1]; k++) {
				rn++;
				rpc += !!(e->cells[k].flags & RP_FLAG_PAGE_CACHE);
			}
			bool hw = rp_plateau(e, FSLAB_TEST_WRITE, &w) == 0;
			bool hr = rp_plateau(e, FSLAB_TEST_READ, &rd) == 0;
			double pw = e->info.device_write_kib_s, pr = e->info.device_read_kib_s;

			o += snprintf(line + o, sizeof(line) - (size_t)o, "%s: ", e->label);
			if (pw > 0 && pr > 0)
				o += snprintf(line + o, sizeof(line) - (size_t)o,
					      "device probe (O_DIRECT) write %s, read %s; 2023 headline (its own unit, KB/s) write 3.5e+07 = x%.0f, read 2.2e+07 = x%.0f the probe; ",
					      rp_fmt_rate(pw, pa, sizeof(pa)), rp_fmt_rate(pr, pb, sizeof(pb)),
					      CL_2023_WRITE / pw, CL_2023_READ / pr);
			else
				o += snprintf(line + o, sizeof(line) - (size_t)o,
					      "cannot tell how the headline compares (no device probe in the manifest); ");
			if (hw)
				o += snprintf(line + o, sizeof(line) - (size_t)o, "this run's write %s",
					      rp_fmt_rate(w.median, ra, sizeof(ra)));
			if (hw && pw > 0)
				o += snprintf(line + o, sizeof(line) - (size_t)o, " (x%.1f the probe)", w.median / pw);
			if (hr)
				o += snprintf(line + o, sizeof(line) - (size_t)o, ", read %s",
					      rp_fmt_rate(rd.median, ra, sizeof(ra)));
			if (hr && pr > 0)
				o += snprintf(line + o, sizeof(line) - (size_t)o, " (x%.1f)", rd.median / pr);
			if (o < (int)sizeof(line))
				snprintf(line + o, sizeof(line) - (size_t)o,
					 "; page-cache flags on %zu of %zu write and %zu of %zu read cells", wpc,
					 wn, rpc, rn);
			if (hw)
				rp_score_free(&w);
			if (hr)
				rp_score_free(&rd);
			if (html) {
				fputs("<li>", out);
				rp_html_escape(out, line);
				fputs("</li>\n", out);
			} else {
				cl_wrap(out, "    ", 6, line);
			}
		}
	}
}

/* Prints first (no newline) then text word-wrapped to 100 columns, the
 * continuation lines indented by indent spaces. */
static void cl_wrap(FILE *out, const char *first, size_t indent, const char *text)
{
	size_t col = strlen(first);
	bool line_start = true; /* nothing written after the prefix yet */

	fputs(first, out);
	while (*text) {
		size_t w = strcspn(text, " ");

		if (!line_start && col + 1 + w > 100) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			line_start = true;
		}
		if (!line_start) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, w, out);
		col += w;
		line_start = false;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

void rp_claims_text(FILE *out, const struct rp_data *d)
{
	struct cl_claim *c = calloc(4, sizeof(*c));

	if (!c)
		return;
	cl_evaluate(d, c);
	fprintf(out, "\n== 2023 claims: warm run '%s' (the 2023 method) beside %zu honest run%s ==\n",
		d->runs[0].tag, d->n_runs - 1, d->n_runs == 2 ? "" : "s");
	for (int k = 0; k < 4; k++) {
		fprintf(out, "(%d) %s\n", k + 1, c[k].title);
		for (size_t i = 0; i < c[k].n; i++) {
			char first[64];
			snprintf(first, sizeof(first), "    %-8.8s %-6s %-12s ", c[k].lines[i].run->tag,
				 i == 0 ? "warm" : "honest", cl_words[c[k].lines[i].o]);
			cl_wrap(out, first, 20, c[k].lines[i].evidence);
		}
		fprintf(out, "    => %s\n", c[k].overall_text);
	}
	fputs("(5) the 2023 headline (btrfs write 3.5e+07 KB/s, read 2.2e+07 KB/s) against the device\n",
	      out);
	cl_headline(d, out, false);
	free(c);
}

void rp_claims_html(FILE *out, const struct rp_data *d)
{
	struct cl_claim *c = calloc(4, sizeof(*c));

	if (!c)
		return;
	cl_evaluate(d, c);
	fputs("<section id=\"claims-2023\"><h2>The 2023 claims, warm beside honest</h2>\n<p>The warm "
	      "run repeats the 2023 method (buffered I/O, files that fit in RAM); the honest runs drop "
	      "or bypass the page cache. A claim survives when it holds in every honest run that has "
	      "the data, beyond the trials' noise (Welch's t-test, 95%) where there are 2 or more "
	      "trials.</p>\n<table><tr><th class=l>claim</th><th class=l>run</th><th class=l>kind</th>"
	      "<th class=l>verdict</th><th class=l>evidence</th></tr>\n",
	      out);
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < c[k].n; i++) {
			const struct cl_line *l = &c[k].lines[i];
			if (i == 0)
				fprintf(out, "<tr><td class=l rowspan=%zu>(%d) %s<br><b class=%s>%s</b></td>",
					c[k].n, k + 1, c[k].title, cl_class[c[k].overall], c[k].overall_text);
			else
				fputs("<tr>", out);
			fputs("<td class=l>", out);
			rp_html_escape(out, l->run->tag);
			fprintf(out, "</td><td class=l>%s</td><td class=\"l %s\">%s</td><td class=l>",
				i == 0 ? "warm" : "honest", cl_class[l->o], cl_words[l->o]);
			rp_html_escape(out, l->evidence);
			fputs("</td></tr>\n", out);
		}
	}
	fputs("</table>\n<h3>(5) The 2023 headline against the device</h3>\n<p>2023: btrfs wrote at "
	      "3.5e+07 KB/s and read at 2.2e+07 KB/s. Compared with what each device did in fslab "
	      "run's O_DIRECT probe:</p><ul>\n",
	      out);
	cl_headline(d, out, true);
	fputs("</ul></section>\n", out);
	free(c);
}
