/* The CrystalDiskMark panel rendered: text, HTML and JSON of the model's
 * panel (cdm.c builds it once, into the summary). */
#include "view.h"

#include <errno.h>
#include <math.h>

static const char *const cd_side_names[2] = { "read", "write" };
#define RP_CDM_LAT "p50/p99/p99.9/p99.99/max"
#define RP_CDM_LAT_NOTE                                                                            \
	"latency per row (fslab run --latency), each at its own depth: " RP_CDM_LAT " of one operation, " \
	"microseconds; the quantiles are their histogram bucket's upper edge, up to 6.25% high (12.5% " \
	"in runs of an fslab with 8 buckets per power of two); p99.9 needs passes of 1,000 operations, " \
	"p99.99 of 10,000 (else -)"

/* "cdm: a 1G file, passes of 5 s, 1 warm-up pass of each row discarded"
 * from a run's manifest; "" without those keys. */
static char *cd_run_note(const struct rp_run *run, char *buf, size_t len)
{
	json_object *sw, *v;
	const char *preset = rp_json_str(run->manifest, "sweep", "preset", "");
	int pass = 0, warm = -1;
	long long file = 0;

	buf[0] = '\0';
	if (!run->manifest || !json_object_object_get_ex(run->manifest, "sweep", &sw))
		return buf;
	if (json_object_object_get_ex(sw, "pass_s", &v))
		pass = json_object_get_int(v);
	if (json_object_object_get_ex(sw, "warmup_passes_discarded", &v))
		warm = json_object_get_int(v);
	if (json_object_object_get_ex(sw, "file_max_kib", &v))
		file = json_object_get_int64(v);
	if (pass <= 0)
		return buf;
	snprintf(buf, len, "--sweep %s: a %s file, passes of %d s, %d warm-up pass%s of each row discarded",
		 preset, rp_fmt_size((uint64_t)file, (char[16]){ 0 }, 16), pass, warm < 0 ? 0 : warm,
		 warm == 1 ? "" : "es");
	return buf;
}

/* "512.34 +-1.20", "-" (no cell), "skipped", "failed". */
static char *cd_value(const struct rp_cdm_side *s, bool iops, char *buf, size_t len)
{
	double v = iops ? s->iops : s->mbs, ci = iops ? s->iops_ci : s->mbs_ci;

	if (!s->c)
		snprintf(buf, len, "-");
	else if (!s->c->n_ok)
		snprintf(buf, len, "%s", s->c->n_failed ? "failed" : "skipped");
	else if (isfinite(ci))
		snprintf(buf, len, iops ? "%.1f +-%.1f" : "%.2f +-%.2f", v, ci);
	else
		snprintf(buf, len, iops ? "%.1f (1 trial)" : "%.2f (1 trial)", v);
	return buf;
}

/* A side's latency, RP_CDM_LAT in us ("-": none, or a quantile the passes
 * were too short for). */
static char *cd_lat(const struct rp_cdm_side *s, char *buf, size_t len)
{
	char a[24];
	size_t n = 0;

	snprintf(buf, len, "-");
	for (int q = 0; s->c && !isnan(s->c->lat[FSLAB_LAT_MAX]) && q < FSLAB_LAT_N && n < len; q++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", q ? "/" : "", rp_fmt_us(s->c->lat[q], a, sizeof(a)));
	return buf;
}

/* A side's marks: its flags' letters, then "aside" when it is set aside
 * ("F aside", "P", ""). */
static char *cd_marks(const struct rp_cdm_side *s, char *buf, size_t len)
{
	char fl[16];

	rp_flag_letters(s->c ? s->c->flags : 0, "", fl, sizeof(fl));
	snprintf(buf, len, "%s%s%s", fl, fl[0] && s->aside ? " " : "", s->aside ? "aside" : "");
	return buf;
}

/* "best", "0.97 [0.95-0.99] slower", "1.20 [1.10-1.30] faster F aside",
 * "-". */
static char *cd_verdict(const struct rp_cdm_side *s, char *buf, size_t len)
{
	char r[64], m[32];
	int n;

	if (s->best)
		n = snprintf(buf, len, "best");
	else if (s->compared && s->cmp.tested)
		n = snprintf(buf, len, "%s %s", rp_fmt_ratio_ci(&s->cmp, "-", r, sizeof(r)), rp_dir_word(s->cmp.dir));
	else if (s->compared)
		n = snprintf(buf, len, "%.2f %s", s->cmp.ratio, rp_dir_word(s->cmp.dir));
	else {
		snprintf(buf, len, "-");
		return buf;
	}
	if (cd_marks(s, m, sizeof(m))[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", m);
	return buf;
}

/* A row's flags on one entry: its read side's and its write side's. */
static unsigned cd_row_flags(const struct rp_cdm_side *rd, const struct rp_cdm_side *wr)
{
	return (rd->c ? rd->c->flags : 0) | (wr->c ? wr->c->flags : 0);
}

/* Why a side's interval is not within 5%: into buf; NULL when it is. */
static const char *cd_not_within(const struct rp_cdm_side *s, char *buf, size_t len)
{
	if (!s->c)
		return NULL;
	if (!s->c->n_ok)
		snprintf(buf, len, "%s", s->c->problem ? s->c->problem : "no ok trial");
	else if (s->c->n_ok < 2)
		snprintf(buf, len, "one trial: no interval");
	else if (!s->within)
		snprintf(buf, len, "+-%.1f%% over %u trials", 100 * s->c->ci / s->c->mean, s->c->n_ok);
	else
		return NULL;
	return buf;
}

/* Entry e's rows; adds its row sides to *n, those within 5% to *ok. */
static int cd_text_entry(FILE *out, const struct rp_data *d, const struct rp_cdm *p, size_t e, size_t *n_sides,
			 size_t *ok)
{
	static const char *const heads[] = { "row", "read MB/s", "read IOPS", "write MB/s", "write IOPS",
					     "trials", "within 5%", "flags", "read " RP_CDM_LAT " us", "write " RP_CDM_LAT " us" };
	struct rp_tab t;
	struct fslab_table *tb;
	char note[256], v[64];

	if (rp_tab_open(&t, out, false, heads, d->all[e]->latency ? 10 : 8, 1, 0) < 0)
		return -ENOMEM;
	tb = t.tb;
	cd_run_note(d->all[e]->run, note, sizeof(note));
	fprintf(out, "%s%s%s%s\n", d->all[e]->label, note[0] ? " (" : "", note, note[0] ? ")" : "");
	for (size_t r = 0; r < p->n_rows; r++) {
		const struct rp_cdm_side *rd = rp_cdm_at(p, r, e, 0), *wr = rp_cdm_at(p, r, e, 1);
		unsigned nr = rd->c ? rd->c->n_ok : 0, nw = wr->c ? wr->c->n_ok : 0;
		unsigned n = nr > nw ? nr : nw;

		if (!rd->c && !wr->c)
			continue;
		*n_sides += (rd->c != NULL) + (wr->c != NULL);
		*ok += (rd->c && rd->within) + (wr->c && wr->within);
		fslab_table_row(tb);
		fslab_table_cell(tb, 0, p->rows[r].name);
		for (int k = 0; k < 4; k++) /* read MB/s, IOPS, write MB/s, IOPS */
			fslab_table_cell(tb, 1 + (size_t)k, cd_value(k < 2 ? rd : wr, k & 1, v, sizeof(v)));
		fslab_table_cellf(tb, 5, "%u", n);
		fslab_table_cell(tb, 6, !n ? "-" : (!rd->c || rd->within) && (!wr->c || wr->within) ? "yes" : "no");
		fslab_table_cell(tb, 7, rp_flag_letters(cd_row_flags(rd, wr), "", v, sizeof(v)));
		for (int k = 0; k < 2 && d->all[e]->latency; k++)
			fslab_table_cell(tb, 8 + (size_t)k, cd_lat(k ? wr : rd, v, sizeof(v)));
	}
	return rp_tab_close(&t, "");
}

/* The verdict matrix: one line per row and side, a column per entry
 * (text or HTML). */
static int cd_verdicts(FILE *out, const struct rp_data *d, const struct rp_cdm *p, bool html)
{
	const char *heads[2 + FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4] = { "row", "side|" };
	struct rp_tab tb;
	char v[96];
	int rc;

	for (size_t e = 0; e < p->n_entries; e++)
		heads[2 + e] = d->all[e]->label;
	if ((rc = rp_tab_open(&tb, out, html, heads, 2 + p->n_entries, ~0u, ~0u)) < 0)
		return rc;
	for (size_t r = 0; r < p->n_rows; r++)
		for (int k = 0; k < 2; k++) {
			rp_tab_row(&tb);
			rp_tab_cell(&tb, p->rows[r].name, NULL, false);
			rp_tab_cell(&tb, cd_side_names[k], NULL, false);
			for (size_t e = 0; e < p->n_entries; e++) {
				const struct rp_cdm_side *s = rp_cdm_at(p, r, e, k);

				rp_tab_cell(&tb, cd_verdict(s, v, sizeof(v)), !html ? NULL : s->compared ? rp_dir_class(s->cmp.dir)
									     : s->best ? rp_dir_class(RP_DIR_BEST) : "", false);
			}
		}
	return rp_tab_close(&tb, "</section>\n");
}

int rp_cdm_verdicts_text(FILE *out, const struct rp_data *d, bool head)
{
	if (!d->sum->cdm.n_rows)
		return 0;
	fputs(head ? "\nverdicts:\n" : "", out);
	rp_text_wrap(out, "  ", 2, "per CrystalDiskMark row, never across depths: each filesystem against the "
		     "row's fastest unflagged one (ratio of means, 95% simultaneous interval; equivalent within "
		     "5%); a flagged figure shows its letters and is set aside (aside), never the best while the "
		     "row has an unflagged one");
	return cd_verdicts(out, d, &d->sum->cdm, false);
}

int rp_cdm_text(FILE *out, const struct rp_data *d)
{
	const struct rp_cdm *p = &d->sum->cdm;
	size_t n = 0, ok = 0, at_cap = 0;
	unsigned cap = 0, flags = 0;
	int rc = 0;
	char why[320];

	if (!p->n_rows)
		goto out;
	fputs("\n== CrystalDiskMark rows (queued tests): mean over the trials +-95% interval, "
	      "MB/s (10^6 B/s, as CrystalDiskMark) ==\n", out);
	if (d->sum->lat) /* some entry has latency */
		rp_text_wrap(out, "", 0, RP_CDM_LAT_NOTE);
	for (size_t e = 0; e < p->n_entries && rc == 0; e++)
		if (rp_cdm_entry_has(p, e))
			rc = cd_text_entry(out, d, p, e, &n, &ok);
	if (rc < 0)
		goto out;
	fprintf(out, "95%% interval within 5%% of the mean: %zu of %zu row sides\n", ok, n);
	for (size_t r = 0; r < p->n_rows; r++)
		for (size_t e = 0; e < p->n_entries; e++)
			for (int k = 0; k < 2; k++) {
				const struct rp_cdm_side *s = rp_cdm_at(p, r, e, k);
				unsigned c = d->all[e]->run->trial_cap;

				if (!cd_not_within(s, why, sizeof(why)))
					continue;
				fprintf(out, "  not within 5%%: %s %s %s: %s\n", d->all[e]->label,
					p->rows[r].name, cd_side_names[k], why);
				if (c && s->c->n_ok >= c) {
					at_cap++;
					cap = c > cap ? c : cap;
				}
			}
	/* more trials is the advice only for a row that could have had them */
	if (ok < n)
		fputs("  a wider interval: the device or the filesystem varied from pass to pass (or the machine\n"
		      "  did)", out);
	if (ok + at_cap < n)
		fputs("; run more trials of those rows (--until-ci 5 --max-trials 10) on a quieter machine", out);
	if (at_cap) {
		if (ok + at_cap < n)
			fprintf(out, ";\n  %zu of them", at_cap);
		else if (at_cap > 1)
			fprintf(out, ": all %zu", at_cap);
		else
			fputs(": it", out);
		fprintf(out, " had every trial the run allows (--max-trials %u): longer passes\n"
			"  (--cdm-time), a quieter machine, or a larger --max-trials", cap);
	}
	if (ok < n)
		fputc('\n', out);
	if (p->truncated)
		fprintf(out, "  (more than %d rows: the first %d shown)\n", RP_CDM_MAX_ROWS, RP_CDM_MAX_ROWS);
	for (size_t i = 0; i < p->n_rows * p->n_entries * 2; i++) /* every side's, for the legend */
		flags |= p->side[i].c ? p->side[i].c->flags : 0;
	rp_text_flag_legend(out, d, flags);
out:
	return rc;
}

void rp_cdm_html(FILE *out, const struct rp_data *d)
{
	const struct rp_cdm *p = &d->sum->cdm;
	char note[256], v[96];

	if (!p->n_rows)
		return;
	fputs("<section id=\"cdm\"><h2>CrystalDiskMark rows</h2>\n<p>The queued tests' rows (fslab run "
	      "--sweep cdm or cdm-nvme): per filesystem, the mean over the trials with its 95% "
	      "interval (never a best-of), in MB/s (10<sup>6</sup> bytes a second, as CrystalDiskMark "
	      "shows them) and IOPS; an interval wider than 5% of its mean is marked.</p>\n",
	      out);
	if (d->sum->lat) /* some entry has latency */
		rp_html_put(out, "<p>", RP_CDM_LAT_NOTE, "</p>\n");
	for (size_t e = 0; e < p->n_entries; e++) {
		if (!rp_cdm_entry_has(p, e))
			continue;
		rp_html_put(out, "<h3>", d->all[e]->label, "</h3>\n");
		if (cd_run_note(d->all[e]->run, note, sizeof(note))[0])
			rp_html_put(out, "<p>", note, "</p>\n");
		fputs("<div class=scroll><table class=cdm><tr><th class=l>row</th><th>read MB/s</th>"
		      "<th>read IOPS</th><th>write MB/s</th><th>write IOPS</th><th class=l>flags</th>", out);
		fputs(d->all[e]->latency ? "<th>read " RP_CDM_LAT " &micro;s</th><th>write " RP_CDM_LAT " &micro;s</th></tr>\n" : "</tr>\n", out);
		for (size_t r = 0; r < p->n_rows; r++) {
			const struct rp_cdm_side *rd = rp_cdm_at(p, r, e, 0), *wr = rp_cdm_at(p, r, e, 1);

			if (!rd->c && !wr->c)
				continue;
			rp_html_put(out, "<tr><th class=l>", p->rows[r].name, "</th>");
			for (int k = 0; k < 4; k++) { /* read MB/s, IOPS, write MB/s, IOPS; a wide interval marked */
				const struct rp_cdm_side *s = k < 2 ? rd : wr;
				fputs(s->c && s->c->n_ok && !s->within ? "<td class=wide>" : "<td>", out);
				rp_html_put(out, "", cd_value(s, k & 1, v, sizeof(v)), "</td>");
			}
			rp_html_put(out, "<td class=l>", rp_flag_letters(cd_row_flags(rd, wr), "", v, sizeof(v)), "</td>");
			for (int k = 0; k < 2 && d->all[e]->latency; k++)
				rp_html_put(out, "<td>", cd_lat(k ? wr : rd, v, sizeof(v)), "</td>");
			fputs("</tr>\n", out);
		}
		fputs("</table></div>\n", out);
	}
	fputs("<h3>Verdicts by row</h3>\n<p>Each filesystem against the row's fastest unflagged one: "
	      "the ratio of the means with its 95% simultaneous interval (equivalent within 5%). A "
	      "flagged figure shows its letters (the flags' legend) and is set aside (aside), never "
	      "the best while the row has an unflagged one.</p>\n", out);
	cd_verdicts(out, d, p, true);
}

static json_object *cd_json_side(const struct rp_cdm_side *s)
{
	json_object *o = RP_JOBJ("test", RP_JSTR(fslab_test_to_string(s->c->test)), "trials", RP_JINT(s->c->n_ok),
				 "mb_s", rp_json_num(s->mbs), "mb_s_ci95", rp_json_num(s->mbs_ci), "iops",
				 rp_json_num(s->iops), "iops_ci95", rp_json_num(s->iops_ci), "within_5pct",
				 RP_JBOOL(s->within), "flags", rp_json_flags(s->c->flags & ~(unsigned)RP_FLAG_OTHER, ""),
				 "set_aside", RP_JBOOL(s->aside));
	static const char *const lat_keys[FSLAB_LAT_N] = { "lat_p50_us", "lat_p99_us", "lat_p999_us",
							   "lat_p9999_us", "lat_max_us" };

	for (int q = 0; q < FSLAB_LAT_N; q++)
		rp_json_put(o, lat_keys[q], rp_json_num(s->c->lat[q]), NULL);

	if (!s->c->n_ok)
		rp_json_put(o, "problem", s->c->problem ? RP_JSTR(s->c->problem) : NULL, NULL);
	if (s->best)
		rp_json_put(o, "verdict", RP_JSTR("best"), NULL);
	else if (s->compared)
		rp_json_put(o, "verdict", RP_JSTR(rp_dir_word(s->cmp.dir)), "ratio_to_best", rp_json_num(s->cmp.ratio),
			    "ratio_lo", rp_json_num(s->cmp.lo), "ratio_hi", rp_json_num(s->cmp.hi), NULL);
	return o;
}

json_object *rp_cdm_json(const struct rp_data *d)
{
	const struct rp_cdm *p = &d->sum->cdm;
	json_object *fss;

	if (!p->n_rows)
		return NULL;
	fss = json_object_new_array();
	for (size_t e = 0; e < p->n_entries; e++) {
		json_object *fo, *rows;
		char note[256];

		if (!rp_cdm_entry_has(p, e))
			continue;
		fo = RP_JOBJ("label", RP_JSTR(d->all[e]->label));
		rows = json_object_new_array();
		if (cd_run_note(d->all[e]->run, note, sizeof(note))[0])
			rp_json_put(fo, "plan", RP_JSTR(note), NULL);
		for (size_t r = 0; r < p->n_rows; r++) {
			const struct rp_cdm_row *w = &p->rows[r];
			json_object *ro;

			if (!rp_cdm_at(p, r, e, 0)->c && !rp_cdm_at(p, r, e, 1)->c)
				continue;
			ro = RP_JOBJ("row", RP_JSTR(w->name), "file_kib", json_object_new_int64((int64_t)w->file_kib),
				     "record_kib", json_object_new_int64((int64_t)w->record_kib), "iodepth",
				     RP_JINT(w->iodepth), "jobs", RP_JINT(w->jobs));
			for (int k = 0; k < 2; k++)
				if (rp_cdm_at(p, r, e, k)->c)
					rp_json_put(ro, cd_side_names[k], cd_json_side(rp_cdm_at(p, r, e, k)), NULL);
			json_object_array_add(rows, ro);
		}
		json_object_array_add(fss, rp_json_put(fo, "rows", rows, NULL));
	}
	return RP_JOBJ("units", RP_JSTR("mb_s: 10^6 bytes a second; iops: operations a second; *_ci95: half-width of the 95% interval of the mean over the trials; lat_*_us: microseconds, quantiles up to 6.25% high, null when the passes were too short (p99.9 needs 1,000 operations, p99.99 10,000)"),
		       "filesystems", fss);
}
