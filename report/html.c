/* report.html: one self-contained page.  Images are embedded as data: URIs
 * (PNG, base64); the page loads nothing from anywhere else. */
#include "fileutil.h"
#include "termtext.h"
#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void ht_base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char buf[4096];
	size_t k = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		buf[k++] = tab[(v >> 18) & 63];
		buf[k++] = tab[(v >> 12) & 63];
		buf[k++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		buf[k++] = i + 2 < n ? tab[v & 63] : '=';
		if (k >= sizeof(buf) - 4) {
			fwrite(buf, 1, k, out);
			k = 0;
		}
	}
	fwrite(buf, 1, k, out);
}

static int ht_img(FILE *out, const char *dir, const struct rp_plot *p, struct fslab_err *e)
{
	char path[PATH_MAX + 200], *data, esc[4 * (PATH_MAX + 200) + 8];
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s.png", dir, p->name);
	r = fslab_read_file(path, &data, &len, 64u << 20);
	if (r < 0)
		return rp_err_errno(e, r, "%s: cannot read the plot gnuplot should have drawn",
				    fslab_escape_ctrl(path, esc, sizeof(esc)));
	rp_html_put(out, "<figure><img alt=\"", p->title, "\" src=\"data:image/png;base64,");
	ht_base64(out, (const unsigned char *)data, len);
	rp_html_put(out, "\"><figcaption>", p->title, "");
	fprintf(out, " <span class=\"files\">(plots/%s.png, .svg)</span></figcaption></figure>\n",
		p->name);
	free(data);
	return 0;
}

static const char ht_style[] =
	"*{box-sizing:border-box}body{font-family:sans-serif;margin:0 auto;padding:0 12px;"
	"max-width:1400px;color:#222;overflow-wrap:anywhere}h1{margin:.4em 0;font-size:1.5em}"
	"h2{margin:.8em 0 .3em}\n"
	".scroll{overflow-x:auto;max-width:100%}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;"
	"text-align:right;font-size:13px}th{background:#eee}td.l,th.l{text-align:left}"
	"p.legend{font-size:13px;margin:.2em 0 .6em;color:#333}\n"
	".matrix td,.matrix th{white-space:nowrap;overflow-wrap:normal}.matrix small{color:#555}\n"
	".banner{padding:6px 10px;margin:6px 0;border-radius:4px;font-size:14px}"
	".warn{background:#fff3cd;border:1px solid #d9a400}.info{background:#e7f1ff;border:1px solid #7aa7e0}\n"
	"ul.verdicts{margin:.3em 0;padding-left:1.2em}ul.verdicts li{margin:2px 0}\n"
	"figure{display:inline-block;margin:4px;vertical-align:top;max-width:min(100%,660px)}"
	"figure img{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:12px}\n"
	".files{color:#777}.pc{background:#ffd8a8}.fu{background:#cfe2ff}.pc.fu{background:#e0c8ff}"
	".bad{background:#ddd;color:#900}\n"
	".best{font-weight:bold;background:#fff;outline:2px solid #333;outline-offset:-2px}"
	".faster{background:#c9e7c4}.slower{background:#f6cfcf}.wide{background:#fbe3b8}.same{background:#dfe8f3;color:#234}"
	".undecided{background:#ececec;color:#444}"
	".nd{color:#999}\n"
	".holds{color:#060;font-weight:bold}.fails{color:#b00;font-weight:bold}.unknown{color:#a60}\n"
	".within{color:#a60}li.claim-holds{color:#060}li.claim-fails{color:#b00}"
	"li.claim-within,li.claim-unknown{color:#a60}\n"
	"pre{background:#f6f6f6;padding:6px;overflow:auto;font-size:12px;white-space:pre-wrap}"
	"table.cells td{font-size:11px;padding:1px 3px}\n"
	"dl.manifest{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;"
	"font-size:13px}dl.manifest dt{font-weight:bold}dl.manifest dd{margin:0}\n"
	"@media (max-width:600px){dl.manifest{grid-template-columns:minmax(0,1fr)}"
	"dl.manifest dd{margin-left:1em}body{padding:0 6px}}\n"
	"details>summary{cursor:pointer}\n";

/* The flags' legend, from the flag table (format.c): a paragraph for each
 * flag some cell carries, with how many do; then the unknown ones. */
static void ht_flag_legend(FILE *out, const struct rp_data *d, size_t noth)
{
	size_t any = noth;

	for (size_t f = 0; f < rp_n_flags; f++) {
		const struct rp_flag_info *fi = &rp_flag_table[f];
		size_t n = 0;

		for (size_t i = 0; i < d->n_all; i++)
			for (size_t k = 0; k < d->all[i]->n_cells; k++)
				n += !!(d->all[i]->cells[k].flags & fi->bit);
		if (!n)
			continue;
		any += n;
		fprintf(out, "<p><span%s>&nbsp;%s&nbsp;</span> %s: ",
			fi->bit == RP_FLAG_FUSE ? " class=fu" : (fi->bit & RP_FLAGS_ASIDE) ? " class=pc" : "",
			fi->csv, fi->words);
		rp_html_escape(out, fi->legend);
		fprintf(out, ". (%zu cells)</p>\n", n);
	}
	if (noth) {
		char names[512];
		fprintf(out, "<p>%zu cells carry a flag this fslab report does not know, as the CSV names it: ",
			noth);
		rp_html_put(out, "", rp_other_flags_all(d, names, sizeof(names)), ".</p>\n");
	}
	if (!any)
		fputs("<p>No cell is flagged.</p>\n", out);
}

/* The class attribute that colours a row or cell by its flags. */
static const char *ht_flag_class(unsigned flags)
{
	if (flags & RP_FLAG_PAGE_CACHE)
		return flags & RP_FLAG_FUSE ? " class=\"pc fu\"" : " class=pc";
	return flags & RP_FLAG_FUSE ? " class=fu" : "";
}

/* The row's state for scripts and tests: its label, whether it is
 * ranked, set aside, partial, and its flags' letters. */
static void ht_row_data(FILE *out, const struct rp_entry *e, const char *state, bool aside,
			unsigned flags)
{
	char fl[24];

	rp_html_put(out, " data-label=\"", e->label, "");
	fprintf(out, "\" data-state=%s data-aside=%d data-flags=\"%s\"", state, aside,
		rp_flag_letters(flags, "", fl, sizeof(fl)));
}

/* Row i of test t's ranking: the score, interval, ratio, the verdict
 * against #1 (the summary's interval), plateau, cells and flags. */
static void ht_rank_row(FILE *out, const struct rp_data *d, enum fslab_test t, size_t i,
			const struct rp_rank_row *row)
{
	char m[24], lo[24], hi[24], a[16], b[16];
	const struct rp_mcell *mc = rp_sum_cell(d->sum, t, row->e->idx);

	fprintf(out, "<tr%s", ht_flag_class(row->s.flags));
	ht_row_data(out, row->e, row->e->partial[t] ? "partial" : "ranked", row->aside, row->s.flags);
	fprintf(out, "><td>%zu</td><td class=l>", i + 1);
	rp_html_escape(out, row->e->fs);
	rp_html_put(out, "</td><td class=l>", row->e->run->tag, "");
	fprintf(out, "</td><td>%s</td>", rp_fmt_mibs(row->s.score, m, sizeof(m)));
	if (isnan(row->s.ci))
		fputs(d->sum->max_trials >= 2 ? "<td>(1 trial)</td>" : "<td>&ndash;</td>", out);
	else
		fprintf(out, "<td>%s &ndash; %s</td>",
			rp_fmt_mibs(fmax(0, row->s.mean - row->s.ci), lo, sizeof(lo)),
			rp_fmt_mibs(row->s.mean + row->s.ci, hi, sizeof(hi)));
	fprintf(out, "<td>%zu</td><td>%.3f</td>", row->s.n_trials, row->ratio);
	if (i == 0)
		fputs("<td class=\"l best\">best</td>", out);
	else if (!mc->cmp.tested)
		fputs("<td class=l>not tested</td>", out);
	else {
		char ci[64];

		fprintf(out, "<td class=\"l %s\">%s, %s (corrected ", rp_dir_class(mc->cmp.dir),
			rp_fmt_ratio_ci(&mc->cmp, "&ndash;", ci, sizeof(ci)), rp_dir_word(mc->cmp.dir));
		rp_html_escape(out, rp_fmt_p(mc->cmp.p_adj, lo, sizeof(lo)));
		fprintf(out, ")%s</td>", mc->aside ? ", set aside" : "");
	}
	fprintf(out, "<td>%s&ndash;%s</td><td>%zu</td><td class=l>",
		rp_fmt_size(row->s.file_lo, a, sizeof(a)), rp_fmt_size(row->s.file_hi, b, sizeof(b)),
		row->s.n_cells);
	if (row->s.n_flag_pc)
		fprintf(out, "page-cache %zu/%zu cells ", row->s.n_flag_pc, row->s.n_cells);
	if (row->s.n_flag_fuse)
		fprintf(out, "fuse %zu/%zu cells", row->s.n_flag_fuse, row->s.n_cells);
	if (row->e->partial[t])
		fputs(" partial data", out);
	fputs("</td></tr>\n", out);
}

static void ht_not_ranked(FILE *out, const struct rp_entry *e, const char *why)
{
	fputs("<tr class=bad", out);
	ht_row_data(out, e, "not-ranked", false, 0);
	rp_html_put(out, "><td>-</td><td class=l>", e->fs, "</td><td class=l>");
	rp_html_escape(out, e->run->tag);
	fprintf(out, "</td><td colspan=8 class=l>not ranked: %s</td></tr>\n", why);
}

/* Entry e's failed and skipped rows of test t, with the first reason. */
static void ht_problems(FILE *out, const struct rp_entry *e, enum fslab_test t)
{
	unsigned nf, ns;
	const struct rp_cell *first = rp_first_problem(e, t, &nf, &ns);
	char a[16], b[16];

	if (!first)
		return;
	rp_html_put(out, "<p class=bad>", e->label, "");
	fprintf(out, ": %u failed, %u skipped rows; first at %s file, %s records: ", nf, ns,
		rp_fmt_size(first->file_kib, a, sizeof(a)), rp_fmt_size(first->record_kib, b, sizeof(b)));
	rp_html_put(out, "", first->problem, "</p>\n");
}

static void ht_ranking(FILE *out, const struct rp_data *d, enum fslab_test t)
{
	const struct rp_ranking *r = &d->sum->rank[t];

	fputs("<div class=scroll><table><tr><th>#</th><th class=l>filesystem</th><th class=l>run</th>"
	      "<th>score MiB/s</th><th>95% CI (MiB/s)</th><th>trials</th><th>ratio to best</th>"
	      "<th class=l>vs #1 (95% interval over all comparisons, verdict, p)</th><th>files used</th><th>cells</th>"
	      "<th class=l>flags</th></tr>\n",
	      out);
	for (size_t i = 0; i < r->n; i++)
		ht_rank_row(out, d, t, i, &r->rows[i]);
	for (size_t i = 0; i < r->n_partial; i++)
		ht_not_ranked(out, r->partial[i], "partial data (interrupted or incomplete run)");
	for (size_t i = 0; i < r->n_unranked; i++)
		ht_not_ranked(out, r->unranked[i], "no cell of this test succeeded");
	fputs("</table></div>\n", out);
	char dl[1024];
	if (rp_dev_test_line(d, t, dl, sizeof(dl))[0])
		rp_html_put(out, "<p class=legend>", dl, "</p>\n");
	for (size_t i = 0; i < d->n_all; i++)
		ht_problems(out, d->all[i], t);
}

/* Run run's row of test t in rk: its best with the plateau median, then
 * the others' ratios to it.  Opens the table first when *table is false. */
static void ht_run_test_row(FILE *out, const struct rp_data *d, const struct rp_ranking *rk,
			    const struct rp_run *run, bool *table)
{
	const struct rp_rank_row *best = NULL;
	char rate[32];

	for (size_t i = 0; i < rk->n; i++) {
		const struct rp_rank_row *row = &rk->rows[i];

		if (row->e->run != run)
			continue;
		if (!best) {
			if (!*table)
				fputs("<div class=scroll><table><tr><th class=l>test</th>"
				      "<th class=l>best</th><th>score</th>"
				      "<th class=l>the others: ratio to the best</th></tr>\n",
				      out);
			*table = true;
			best = row;
			fprintf(out, "<tr><td class=l>%s</td><td class=\"l best\">",
				fslab_test_to_string(rk->test));
			rp_html_escape(out, row->e->fs);
			fprintf(out, "</td><td>%s</td><td class=l>",
				rp_fmt_rate(row->s.score, rate, sizeof(rate)));
			continue;
		}
		struct rp_cmp cmp;
		char ci[64];

		if (!rp_sum_pair(d->sum, rk->test, row->e->idx, best->e->idx, &cmp))
			continue;
		fprintf(out, "<span class=%s>", rp_dir_class(cmp.dir));
		rp_html_escape(out, row->e->fs);
		fprintf(out, " %s %s</span> ", rp_fmt_ratio_ci(&cmp, "&ndash;", ci, sizeof(ci)),
			rp_dir_word(cmp.dir));
	}
	if (best)
		fputs("</td></tr>\n", out);
}

/* Each run's filesystems ranked among themselves, a table per run (per
 * host when runs are labelled by host), as the text report ends: per test
 * the run's best with its score, then the others by their ratio to it with
 * the interval and verdict of the summary's family (the pair is one of
 * the matrix's).  Partial data is left out, as in the rankings. */
static void ht_run_rankings(FILE *out, const struct rp_data *d, unsigned tests)
{
	fputs("<section id=\"run-rankings\"><h2>Each run's own ranking</h2>\n<p>Each run's "
	      "filesystems ranked among themselves (per host when the runs are labelled by host): "
	      "per test the run's best with its score, then the others with their ratio "
	      "to it, its interval and verdict, as in the summary's family of comparisons. "
	      "Partial data is not ranked.</p>\n",
	      out);
	for (size_t r = 0; r < d->n_runs; r++) {
		bool table = false;

		fprintf(out, "<h3 id=\"run-rank-%zu\">", r + 1);
		rp_html_put(out, "", d->runs[r].tag, "</h3>\n");
		RP_FOR_TESTS(t, tests)
			ht_run_test_row(out, d, &d->sum->rank[t], &d->runs[r], &table);
		fputs(table ? "</table></div>\n" : "<p>No test of this run has data to rank.</p>\n", out);
	}
	fputs("</section>\n", out);
}

/* One cell of ht_cells' grid: its median, coloured by its flags; failed
 * ones a cross with the reason on hover. */
static void ht_cell_td(FILE *out, const struct rp_cell *c)
{
	char m[24];

	if (!c->n_ok) {
		rp_html_put(out, "<td class=bad title=\"", c->problem, "\">&times;</td>");
		return;
	}
	/* the class says the flags; the title only what it does not */
	fputs("<td", out);
	fputs(ht_flag_class(c->flags), out);
	if (!isnan(c->ci) && c->mean > 0)
		fprintf(out, " title=\"%u trials, &plusmn;%.1f%%%s\"", c->n_ok, 100 * c->ci / c->mean,
			(c->flags & RP_FLAG_OTHER) ? ", other flag" : "");
	else if (c->flags & RP_FLAG_OTHER)
		fputs(" title=\"other flag (see CSV)\"", out);
	fprintf(out, ">%s</td>", rp_fmt_mibs(c->median, m, sizeof(m)));
}

/* The cells of one filesystem and test as a grid: file sizes down, record
 * sizes across, each the median of its trials. */
static void ht_cells(FILE *out, const struct rp_entry *e, enum fslab_test t)
{
	uint64_t recs[RP_SIZES_MAX];
	size_t nr = 0, end = e->test_first[t + 1];
	char a[16];
	unsigned npc = 0, nfu = 0, nbad = 0;

	for (size_t k = e->test_first[t]; k < end; k++) {
		const struct rp_cell *c = &e->cells[k];

		npc += !!(c->flags & RP_FLAG_PAGE_CACHE);
		nfu += !!(c->flags & RP_FLAG_FUSE);
		nbad += !c->n_ok;
		rp_sizes_add(recs, &nr, c->record_kib);
	}
	if (!nr)
		return;
	rp_html_put(out, "<details><summary>", e->label, "");
	fprintf(out, " &mdash; %s: %zu cells, %u flagged page-cache, %u fuse, %u failed/skipped</summary>\n",
		fslab_test_to_string(t), end - e->test_first[t], npc, nfu, nbad);
	fputs("<div class=scroll><table class=cells><tr><th>file \\ record</th>", out);
	for (size_t j = 0; j < nr; j++)
		fprintf(out, "<th>%s</th>", rp_fmt_size(recs[j], a, sizeof(a)));
	fputs("</tr>\n", out);
	for (size_t k = e->test_first[t]; k < end;) {
		uint64_t f = e->cells[k].file_kib;

		fprintf(out, "<tr><th>%s</th>", rp_fmt_size(f, a, sizeof(a)));
		for (size_t j = 0; j < nr; j++) {
			if (k < end && e->cells[k].file_kib == f && e->cells[k].record_kib == recs[j])
				ht_cell_td(out, &e->cells[k++]);
			else
				fputs("<td></td>", out);
		}
		fputs("</tr>\n", out);
		while (k < end && e->cells[k].file_kib == f)
			k++; /* record sizes beyond the 64 columns */
	}
	fputs("</table></div></details>\n", out);
}

/* A manifest's scalar as shown: a string as it is, else its JSON. */
static const char *ht_scalar_text(json_object *v)
{
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
							: json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* A manifest value: an object as "key: value; ...", an array as its
 * values, else the value. */
static void ht_manifest_value(FILE *out, json_object *val)
{
	if (json_object_is_type(val, json_type_object)) {
		const char *sep = "";
		json_object_object_foreach(val, k2, v2)
		{
			fputs(sep, out);
			rp_html_put(out, "", k2, ": ");
			rp_html_escape(out, ht_scalar_text(v2));
			sep = "; ";
		}
	} else if (json_object_is_type(val, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(val); i++) {
			if (i)
				fputc(' ', out);
			rp_html_escape(out, ht_scalar_text(json_object_array_get_idx(val, i)));
		}
	} else {
		rp_html_escape(out, ht_scalar_text(val));
	}
}

/* The manifest's filesystems[] as a table, a row per filesystem. */
static void ht_manifest_filesystems(FILE *out, json_object *manifest)
{
	static const char *const keys[] = {
		"name", "type", "path", "device", "mount_method", "mkfs_options",
		"mount_options", "mkfs_tool_version", "device_model", "device_serial",
		"device_size_bytes", "device_write_kib_s", "device_read_kib_s", "device_probe",
		"device_probe_source", "device_probe_measured_at",
		"cache_drop_method",
	};
	json_object *fss;
	struct rp_tab tb;

	if (!json_object_object_get_ex(manifest, "filesystems", &fss) ||
	    !json_object_is_type(fss, json_type_array) || json_object_array_length(fss) == 0)
		return;
	rp_tab_open(&tb, out, true, keys, sizeof(keys) / sizeof(keys[0]), ~0u, ~0u);
	for (size_t i = 0; i < json_object_array_length(fss); i++) {
		json_object *f = json_object_array_get_idx(fss, i), *v;

		rp_tab_row(&tb);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			rp_tab_cell(&tb, json_object_object_get_ex(f, keys[k], &v) && v ? ht_scalar_text(v) : "", NULL, false);
	}
	rp_tab_close(&tb, "\n");
}

static void ht_manifest(FILE *out, const struct rp_run *r)
{
	rp_html_put(out, "<h3>", r->tag, ": ");
	rp_html_put(out, "", r->dir, "</h3>\n");
	if (!r->manifest) {
		fputs("<p>No manifest.json in this directory (imported or hand-made results): machine, "
		      "device and options are unknown.</p>\n",
		      out);
		return;
	}
	fputs("<dl class=manifest>\n", out);
	json_object_object_foreach(r->manifest, key, val)
	{
		if (strcmp(key, "filesystems") == 0 || strcmp(key, "spec") == 0)
			continue;
		rp_html_put(out, "<dt>", key, "</dt><dd>");
		ht_manifest_value(out, val);
		fputs("</dd>\n", out);
	}
	fputs("</dl>\n", out);
	ht_manifest_filesystems(out, r->manifest);
	fputs("<details><summary>manifest.json as written</summary><pre>", out);
	rp_html_escape(out, json_object_to_json_string_ext(r->manifest, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
	fputs("</pre></details>\n", out);
}

/* The runs read, with the time the page was written. */
static void ht_runs(FILE *out, const struct rp_data *d)
{
	char stamp[64];

	fprintf(out, "<section id=\"runs\"><h2>Runs</h2><p>Written %s from %zu results "
		     "director%s:</p><ul>\n",
		fslab_utc_now("%Y-%m-%d %H:%M UTC", stamp, sizeof(stamp)), d->n_runs, d->n_runs == 1 ? "y" : "ies");
	for (size_t i = 0; i < d->n_runs; i++) {
		rp_html_put(out, "<li><b>", d->runs[i].tag, "</b>: ");
		rp_html_escape(out, d->runs[i].dir);
		rp_html_put(out, " (cache mode ", d->runs[i].cache, ")</li>\n");
	}
	fputs("</ul></section>\n", out);
}

static void ht_contents(FILE *out, const struct rp_data *d, bool claims)
{
	fputs("<p>Contents: <a href=\"#summary\">summary</a> &middot; "
	      "<a href=\"#flags\">flags</a> &middot; ", out);
	if (claims)
		fputs("<a href=\"#claims-2023\">2023 claims</a> &middot; ", out);
	fputs("<a href=\"#rankings\">rankings</a> &middot; ", out);
	if (d->sum->cdm.n_rows)
		fputs("<a href=\"#cdm\">CrystalDiskMark rows</a> &middot; ", out);
	if (d->sum->lat_tests)
		fputs("<a href=\"#latency\">latency</a> &middot; ", out);
	if (d->n_runs > 1)
		fputs("<a href=\"#run-rankings\">each run's ranking</a> &middot; ", out);
	fputs("<a href=\"#plots\">plots by size</a> &middot; "
	      "<a href=\"#cells\">all cells</a> &middot; <a href=\"#manifests\">manifests</a></p>\n",
	      out);
}

/* The flags' legend, then per filesystem its rows, flagged cells and the
 * device's probed speed. */
static void ht_flags(FILE *out, const struct rp_data *d)
{
	size_t noth = 0;

	for (size_t i = 0; i < d->n_all; i++)
		noth += d->all[i]->n_flag_other;
	fputs("<section id=\"flags\"><h2>Flags</h2>\n", out);
	ht_flag_legend(out, d, noth);
	fputs("<div class=scroll><table><tr><th class=l>filesystem</th><th class=l>run</th><th>rows</th><th>cells</th>"
	      "<th>page-cache cells</th><th>fuse cells</th><th>failed rows</th><th>skipped rows</th>"
	      "<th>device write KiB/s (probe)</th><th>device read KiB/s (probe)</th>"
	      "<th class=l>mount</th></tr>\n",
	      out);
	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];
		rp_html_put(out, "<tr><td class=l>", e->fs, "</td><td class=l>");
		rp_html_escape(out, e->run->tag);
		fprintf(out, "</td><td>%zu</td><td>%zu</td><td%s>%zu</td><td%s>%zu</td><td>%zu</td><td>%zu</td>",
			e->n_rows, e->n_cells, e->n_flag_pc ? " class=pc" : "", e->n_flag_pc,
			e->n_flag_fuse ? " class=fu" : "", e->n_flag_fuse, e->n_failed, e->n_skipped);
		for (int k = 0; k < 2; k++) {
			double v = k ? e->info.device_read_kib_s : e->info.device_write_kib_s;
			char b[32] = "unknown";

			fprintf(out, "<td>%s</td>", v > 0 ? (snprintf(b, sizeof(b), "%.0f", v), b) : b);
		}
		rp_html_put(out, "<td class=l>", e->info.mount_method[0] ? e->info.mount_method : "-",
			    "</td></tr>\n");
	}
	fputs("</table></section>\n", out);
}

/* Per test its ranking table and the ranking's bars.  0 or the error of
 * reading a plot. */
static int ht_rankings(FILE *out, const struct rp_data *d, const struct rp_plots *plots,
		       const char *pdir, unsigned tests, struct fslab_err *e)
{
	fputs("<section id=\"rankings\"><h2>Rankings on the large files</h2>\n"
	      "<p>Per test, each filesystem's large-file score: at every record "
	      "size the cells at the two largest file sizes measured; a trial's score is the median "
	      "over those cells, the filesystem's score the geometric mean over trials. The 95% "
	      "interval is Student's t on the per-trial scores (shown with 2 or more trials); "
	      "&ldquo;vs #1&rdquo; is the ratio to the best unflagged filesystem with its "
	      "interval (holding together over all the summary's comparisons) and the verdict read off it. "
	      "1 MiB/s = 1024 KiB/s.</p>\n",
	      out);
	RP_FOR_TESTS(t, tests & d->sum->shown) {
		fprintf(out, "<h3 id=\"rank-%s\">%s</h3>\n", fslab_test_to_string(t),
			fslab_test_to_string(t));
		ht_ranking(out, d, t);
		for (size_t i = 0; plots && i < plots->n; i++) {
			const struct rp_plot *p = &plots->p[i];
			int r;

			if (p->kind == FSLAB_REPORT_PLOT_COMPARE && p->bars && p->test == (enum fslab_test)t &&
			    (r = ht_img(out, pdir, p, e)) < 0)
				return r;
		}
	}
	fputs("</section>\n", out);
	return 0;
}

/* Test t's plots other than the ranking's bars: by size first, then the
 * heatmaps, then the surfaces. */
static int ht_test_plots(FILE *out, const struct rp_plots *plots, const char *pdir,
			 enum fslab_test t, struct fslab_err *e)
{
	size_t cnt = 0;
	int r;

	for (size_t i = 0; plots && i < plots->n; i++)
		cnt += !plots->p[i].bars && plots->p[i].test == t;
	if (!cnt)
		return 0;
	fprintf(out, "<details><summary>%s: %zu plot%s</summary>\n", fslab_test_to_string(t), cnt,
		cnt == 1 ? "" : "s");
	for (unsigned kind = FSLAB_REPORT_PLOT_COMPARE; kind; kind >>= 1)
		for (size_t i = 0; i < plots->n; i++) {
			const struct rp_plot *p = &plots->p[i];

			if (!p->bars && p->test == t && p->kind == kind && (r = ht_img(out, pdir, p, e)) < 0)
				return r;
		}
	fputs("</details>\n", out);
	return 0;
}

static int ht_plots(FILE *out, const struct rp_plots *plots, const char *pdir, struct fslab_err *e)
{
	int r;

	fputs("<section id=\"plots\"><h2>By file and record size</h2>\n<p>Per test, folded: "
	      "throughput against file size at one record size (a line per filesystem, mean of "
	      "trials, bars = 95% interval, log scale where the values span more than 10&times;), "
	      "and per filesystem a heatmap (its own colour scale, log where its values span more "
	      "than 10&times;; flagged cells ringed, failed ones crossed) and a 3D surface "
	      "(one z scale per test). Axes are log2 file size and log2 record size; cells that "
	      "were not measured are left empty. SVG versions are in the plots folder.</p>\n",
	      out);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if ((r = ht_test_plots(out, plots, pdir, t, e)) < 0)
			return r;
	if (!plots || plots->n == 0)
		fputs("<p>No plots were drawn (--plots none).</p>\n", out);
	fputs("</section>\n", out);
	return 0;
}

static void ht_all_cells(FILE *out, const struct rp_data *d, unsigned tests)
{
	fputs("<section id=\"cells\"><h2>All cells</h2>\n<p>Median MiB/s of each cell over its "
	      "trials; hover for the trials and the 95% interval (as % of the mean). <span class=pc>&nbsp;orange&nbsp;</span> "
	      "page-cache, <span class=fu>&nbsp;blue&nbsp;</span> fuse, "
	      "<span class=bad>&nbsp;&times;&nbsp;</span> failed or skipped.</p>\n",
	      out);
	RP_FOR_TESTS(t, tests)
		for (size_t i = 0; i < d->n_all; i++)
			ht_cells(out, d->all[i], t);
	fputs("</section>\n", out);
}

/* The page, section by section; 0 or the error of reading a plot. */
static int ht_page(FILE *out, const struct rp_data *d, const struct rp_plots *plots,
		   const char *pdir, unsigned tests, bool claims, struct fslab_err *e)
{
	int r;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>fslab report</title>\n<style>",
	      out);
	fputs(ht_style, out);
	fputs("</style></head><body>\n<h1>fslab report</h1>\n", out);
	rp_claims_html_first(out, d);
	rp_html_summary(out, d);
	ht_runs(out, d);
	ht_contents(out, d, claims);
	ht_flags(out, d);
	if (claims)
		rp_claims_html(out, d); /* nothing without d->claims */
	if (!d->sum->tests) /* a CDM run's headline: its rows, first */
		rp_cdm_html(out, d);
	if ((r = ht_rankings(out, d, plots, pdir, tests, e)) < 0)
		return r;
	if (d->sum->tests)
		rp_cdm_html(out, d);
	rp_latency_table(out, d, true);
	rp_same_fs_table(out, d, true);
	if (d->n_runs > 1)
		ht_run_rankings(out, d, tests);
	if ((r = ht_plots(out, plots, pdir, e)) < 0)
		return r;
	ht_all_cells(out, d, tests);
	fputs("<section id=\"manifests\"><h2>Manifests</h2>\n", out);
	for (size_t i = 0; i < d->n_runs; i++)
		ht_manifest(out, &d->runs[i]);
	fputs("</section>\n</body></html>\n", out);
	return 0;
}

int rp_html_write(const struct rp_data *d, const struct rp_plots *plots, const char *dir,
		  unsigned tests, bool claims, struct fslab_err *e)
{
	char path[PATH_MAX + 32], pdir[PATH_MAX + 16], esc[4 * (PATH_MAX + 32) + 8];
	char *page = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&page, &len);
	int r;

	if (!out)
		return rp_err_errno(e, ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/report.html", dir);
	snprintf(pdir, sizeof(pdir), "%s/plots", dir);
	/* built in memory, written in one call: its errno is the cause */
	r = ht_page(out, d, plots, pdir, tests, claims, e);
	if (fclose(out) != 0 && r == 0)
		r = rp_err_errno(e, ENOMEM, "out of memory");
	if (r == 0 && (r = fslab_write_file_atomic(path, page, len, 0644)) < 0)
		rp_err_errno(e, r, "%s: cannot write", fslab_escape_ctrl(path, esc, sizeof(esc)));
	free(page);
	return r;
}

