/* The CrystalDiskMark panel: the queued tests' rows (SEQ1M Q8T1 ... as
 * fslab run --sweep cdm and cdm-nvme measure them) per filesystem, read
 * and write, in MB/s (10^6 bytes a second, as CrystalDiskMark shows them)
 * and IOPS, each a mean over the trials with its 95% interval (never a
 * best-of), which rows' intervals are within 5% of their mean, and the
 * verdict of each row: every filesystem against the row's fastest, by the
 * report's inference (infer.c) on that row's cell alone, so rows of one
 * test at different depths are never mixed.  A flagged figure (the flag
 * table, load.c) carries its letters wherever it is shown, and is set
 * aside, never the row's best, while the row has an unflagged one, as in
 * the rankings.  Text, HTML and JSON. */
#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CD_MAX_ROWS 32
#define CD_WITHIN 0.05 /* the acceptance: a row's interval within 5% of its mean */

/* One row: a read and a write test at one record, depth, threads and file. */
struct cd_row {
	char name[48];
	bool random;
	uint64_t file_kib, record_kib;
	unsigned iodepth, jobs;
};

/* One side (read 0, write 1) of one row on one entry. */
struct cd_side {
	const struct rp_cell *c; /* NULL: the entry has no such cell */
	double mbs, mbs_ci, iops, iops_ci; /* NaN: none */
	bool within;
	bool best;
	bool aside; /* flagged (RP_FLAGS_ASIDE) while the row's best is not */
	struct rp_cmp cmp; /* against the row's best (cmp.tested false: not compared) */
	bool compared;
};

struct cd_panel {
	struct cd_row rows[CD_MAX_ROWS];
	size_t n_rows, n_entries;
	struct cd_side *side; /* [(row * n_entries + entry) * 2 + side] */
	bool truncated;       /* more rows than CD_MAX_ROWS */
};

static const enum fslab_test cd_tests[2][2] = {
	{ FSLAB_TEST_QUEUED_READ, FSLAB_TEST_QUEUED_WRITE },
	{ FSLAB_TEST_QUEUED_RANDOM_READ, FSLAB_TEST_QUEUED_RANDOM_WRITE },
};
static const char *const cd_side_names[2] = { "read", "write" };

static struct cd_side *cd_at(const struct cd_panel *p, size_t r, size_t e, int k)
{
	return &p->side[(r * p->n_entries + e) * 2 + (size_t)k];
}

static bool cd_random(enum fslab_test t)
{
	return t == FSLAB_TEST_QUEUED_RANDOM_READ || t == FSLAB_TEST_QUEUED_RANDOM_WRITE;
}

static bool cd_row_of(const struct cd_row *r, const struct rp_cell *c)
{
	return r->random == cd_random(c->test) && r->file_kib == c->file_kib &&
	       r->record_kib == c->record_kib && r->iodepth == c->iodepth && r->jobs == c->jobs;
}

/* CrystalDiskMark's order: sequential first, larger records first, then
 * deeper queues (depth x threads), then the file. */
static int cd_cmp_row(const void *a, const void *b)
{
	const struct cd_row *x = a, *y = b;
	unsigned long qx = (unsigned long)x->iodepth * x->jobs, qy = (unsigned long)y->iodepth * y->jobs;

	if (x->random != y->random)
		return x->random ? 1 : -1;
	if (x->record_kib != y->record_kib)
		return x->record_kib > y->record_kib ? -1 : 1;
	if (qx != qy)
		return qx > qy ? -1 : 1;
	if (x->jobs != y->jobs)
		return x->jobs < y->jobs ? -1 : 1;
	return (x->file_kib > y->file_kib) - (x->file_kib < y->file_kib);
}

/* The rows every entry's queued cells make, in CrystalDiskMark's order. */
static void cd_collect_rows(const struct rp_data *d, unsigned tests, struct cd_panel *p)
{
	uint64_t file = 0;
	bool files_differ = false;

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];

		for (size_t k = 0; k < e->n_cells; k++) {
			const struct rp_cell *c = &e->cells[k];
			size_t r;

			if (fslab_test_family(c->test) != FSLAB_FAMILY_QUEUED || !(tests & (1u << c->test)))
				continue;
			for (r = 0; r < p->n_rows && !cd_row_of(&p->rows[r], c); r++)
				;
			if (r < p->n_rows)
				continue;
			if (p->n_rows == CD_MAX_ROWS) {
				p->truncated = true;
				continue;
			}
			p->rows[p->n_rows++] = (struct cd_row){
				.random = cd_random(c->test), .file_kib = c->file_kib,
				.record_kib = c->record_kib, .iodepth = c->iodepth, .jobs = c->jobs,
			};
			files_differ |= file && file != c->file_kib;
			file = c->file_kib;
		}
	}
	qsort(p->rows, p->n_rows, sizeof(p->rows[0]), cd_cmp_row);
	for (size_t r = 0; r < p->n_rows; r++) {
		struct cd_row *w = &p->rows[r];
		size_t n;

		fslab_queue_row_name(cd_tests[w->random][0], w->record_kib, w->iodepth, w->jobs, w->name,
				     sizeof(w->name));
		n = strlen(w->name);
		if (files_differ) /* rows of several file sizes: say which */
			snprintf(w->name + n, sizeof(w->name) - n, " %s",
				 rp_fmt_size(w->file_kib, (char[16]){ 0 }, 16));
	}
}

/* MB/s and IOPS of one side from its cell. */
static void cd_fill_side(struct cd_side *s, const struct rp_cell *c)
{
	s->c = c;
	s->mbs = s->mbs_ci = s->iops = s->iops_ci = NAN;
	if (!c || !c->n_ok)
		return;
	s->mbs = c->mean * 1024.0 / 1e6;
	s->mbs_ci = c->ci * 1024.0 / 1e6;
	s->iops = c->iops_mean;
	s->iops_ci = c->iops_ci;
	s->within = isfinite(c->ci) && c->mean > 0 && c->ci <= CD_WITHIN * c->mean;
}

/* The verdicts of one side of row r: each entry's score on that cell
 * alone against the best's (an unflagged best when there is one), in a
 * family of the others.  0 or -ENOMEM. */
static int cd_verdicts(const struct rp_data *d, struct cd_panel *p, size_t r, int k)
{
	struct rp_score *sc = calloc(p->n_entries ? p->n_entries : 1, sizeof(*sc));
	bool *have = calloc(p->n_entries ? p->n_entries : 1, sizeof(*have));
	size_t best = SIZE_MAX, n = 0;
	int ret = 0;

	if (!sc || !have) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t e = 0; e < p->n_entries; e++) {
		struct cd_side *s = cd_at(p, r, e, k);
		int rc;

		if (!s->c || !s->c->n_ok)
			continue;
		rc = rp_cell_score(d->all[e], s->c, &sc[e]);
		if (rc == -ENOMEM) {
			ret = rc;
			goto out;
		}
		if (rc < 0 || !isfinite(sc[e].score))
			continue;
		have[e] = true;
		n++;
		if (best == SIZE_MAX)
			best = e;
		bool aside = s->c->flags & RP_FLAGS_ASIDE, best_aside = cd_at(p, r, best, k)->c->flags & RP_FLAGS_ASIDE;
		if ((best_aside && !aside) || (aside == best_aside && sc[e].score > sc[best].score))
			best = e;
	}
	if (best == SIZE_MAX)
		goto out;
	cd_at(p, r, best, k)->best = true;
	if (!(cd_at(p, r, best, k)->c->flags & RP_FLAGS_ASIDE))
		for (size_t e = 0; e < p->n_entries; e++)
			cd_at(p, r, e, k)->aside = have[e] && (cd_at(p, r, e, k)->c->flags & RP_FLAGS_ASIDE);
	for (size_t e = 0; e < p->n_entries && n > 1; e++) {
		struct rp_est x, y;
		struct cd_side *s = cd_at(p, r, e, k);

		if (!have[e] || e == best)
			continue;
		rp_est_of(&sc[e], NULL, SIZE_MAX, e, &x);
		rp_est_of(&sc[best], NULL, SIZE_MAX, best, &y);
		rp_compare(&x, &y, n - 1, RP_EQUIVALENCE_DEFAULT, &s->cmp);
		s->compared = true;
	}
out:
	for (size_t e = 0; sc && e < p->n_entries; e++)
		rp_score_free(&sc[e]);
	free(sc);
	free(have);
	return ret;
}

/* The panel of the queued tests in tests: 0 (p->n_rows 0: none), or
 * -ENOMEM.  p->side to free with cd_free. */
static int cd_build(const struct rp_data *d, unsigned tests, struct cd_panel *p)
{
	memset(p, 0, sizeof(*p));
	cd_collect_rows(d, tests, p);
	if (!p->n_rows)
		return 0;
	p->n_entries = d->n_all;
	p->side = calloc(p->n_rows * p->n_entries * 2, sizeof(*p->side));
	if (!p->side)
		return -ENOMEM;
	for (size_t r = 0; r < p->n_rows; r++)
		for (size_t e = 0; e < p->n_entries; e++) {
			const struct rp_entry *en = d->all[e];

			for (int k = 0; k < 2; k++) {
				const struct rp_cell *c = NULL;

				for (size_t j = 0; j < en->n_cells && !c; j++)
					if (en->cells[j].test == cd_tests[p->rows[r].random][k] &&
					    cd_row_of(&p->rows[r], &en->cells[j]) && (tests & (1u << en->cells[j].test)))
						c = &en->cells[j];
				cd_fill_side(cd_at(p, r, e, k), c);
			}
		}
	for (size_t r = 0; r < p->n_rows; r++)
		for (int k = 0; k < 2; k++)
			if (cd_verdicts(d, p, r, k) < 0)
				return -ENOMEM;
	return 0;
}

static void cd_free(struct cd_panel *p)
{
	free(p->side);
	p->side = NULL;
}

/* Does entry e have any cell in the panel? */
static bool cd_entry_has(const struct cd_panel *p, size_t e)
{
	for (size_t r = 0; r < p->n_rows; r++)
		if (cd_at(p, r, e, 0)->c || cd_at(p, r, e, 1)->c)
			return true;
	return false;
}

/* "cdm: a 1G file, passes of 5 s, 1 warm-up pass of each row discarded"
 * from a run's manifest; "" without those keys. */
static char *cd_run_note(const struct rp_run *run, char *buf, size_t len)
{
	json_object *sw, *v;
	const char *preset = "";
	int pass = 0, warm = -1;
	long long file = 0;

	buf[0] = '\0';
	if (!run->manifest || !json_object_object_get_ex(run->manifest, "sweep", &sw))
		return buf;
	if (json_object_object_get_ex(sw, "preset", &v) && json_object_is_type(v, json_type_string))
		preset = json_object_get_string(v);
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
static char *cd_value(const struct cd_side *s, bool iops, char *buf, size_t len)
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

/* A side's marks: its flags' letters, then "aside" when it is set aside
 * ("F aside", "P", ""). */
static char *cd_marks(const struct cd_side *s, char *buf, size_t len)
{
	char fl[16];

	rp_flag_letters(s->c ? s->c->flags : 0, "", fl, sizeof(fl));
	snprintf(buf, len, "%s%s%s", fl, fl[0] && s->aside ? " " : "", s->aside ? "aside" : "");
	return buf;
}

/* "best", "0.97 [0.95-0.99] slower", "1.20 [1.10-1.30] faster F aside",
 * "-". */
static char *cd_verdict(const struct cd_side *s, char *buf, size_t len)
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
static unsigned cd_row_flags(const struct cd_side *rd, const struct cd_side *wr)
{
	return (rd->c ? rd->c->flags : 0) | (wr->c ? wr->c->flags : 0);
}

/* The flags of every side of the panel (for the legend). */
static unsigned cd_flags(const struct cd_panel *p)
{
	unsigned flags = 0;

	for (size_t i = 0; i < p->n_rows * p->n_entries * 2; i++)
		flags |= p->side[i].c ? p->side[i].c->flags : 0;
	return flags;
}

/* Why a side's interval is not within 5%: into buf; NULL when it is. */
static const char *cd_not_within(const struct cd_side *s, char *buf, size_t len)
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

static int cd_text_entry(FILE *out, const struct rp_data *d, const struct cd_panel *p, size_t e)
{
	static const char *const heads[] = { "row", "read MB/s", "read IOPS", "write MB/s", "write IOPS",
					     "trials", "within 5%", "flags" };
	struct fslab_table *tb = fslab_table_new(2);
	char note[256], v[64];
	int rc;

	if (!tb)
		return -ENOMEM;
	cd_run_note(d->all[e]->run, note, sizeof(note));
	fprintf(out, "%s%s%s%s\n", d->all[e]->label, note[0] ? " (" : "", note, note[0] ? ")" : "");
	for (size_t c = 0; c < sizeof(heads) / sizeof(heads[0]); c++)
		fslab_table_column(tb, heads[c], c == 0 ? FSLAB_TABLE_LEFT : FSLAB_TABLE_RIGHT);
	for (size_t r = 0; r < p->n_rows; r++) {
		const struct cd_side *rd = cd_at(p, r, e, 0), *wr = cd_at(p, r, e, 1);
		unsigned nr = rd->c ? rd->c->n_ok : 0, nw = wr->c ? wr->c->n_ok : 0;
		unsigned n = nr > nw ? nr : nw;

		if (!rd->c && !wr->c)
			continue;
		fslab_table_row(tb);
		fslab_table_cell(tb, 0, p->rows[r].name);
		fslab_table_cell(tb, 1, cd_value(rd, false, v, sizeof(v)));
		fslab_table_cell(tb, 2, cd_value(rd, true, v, sizeof(v)));
		fslab_table_cell(tb, 3, cd_value(wr, false, v, sizeof(v)));
		fslab_table_cell(tb, 4, cd_value(wr, true, v, sizeof(v)));
		fslab_table_cellf(tb, 5, "%u", n);
		fslab_table_cell(tb, 6, !n ? "-" : (!rd->c || rd->within) && (!wr->c || wr->within) ? "yes" : "no");
		fslab_table_cell(tb, 7, rp_flag_letters(cd_row_flags(rd, wr), "", v, sizeof(v)));
	}
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	return rc;
}

/* The verdict matrix: one line per row and side, a column per entry. */
static int cd_text_verdicts(FILE *out, const struct rp_data *d, const struct cd_panel *p)
{
	struct fslab_table *tb = fslab_table_new(2);
	char v[96];
	int rc;

	if (!tb)
		return -ENOMEM;
	fslab_table_column(tb, "row", FSLAB_TABLE_LEFT);
	fslab_table_column(tb, "side", FSLAB_TABLE_LEFT);
	for (size_t e = 0; e < p->n_entries; e++)
		fslab_table_column(tb, d->all[e]->label, FSLAB_TABLE_LEFT);
	for (size_t r = 0; r < p->n_rows; r++)
		for (int k = 0; k < 2; k++) {
			fslab_table_row(tb);
			fslab_table_cell(tb, 0, p->rows[r].name);
			fslab_table_cell(tb, 1, cd_side_names[k]);
			for (size_t e = 0; e < p->n_entries; e++)
				fslab_table_cell(tb, 2 + e, cd_verdict(cd_at(p, r, e, k), v, sizeof(v)));
		}
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	return rc;
}

int rp_cdm_text(FILE *out, const struct rp_data *d, unsigned tests)
{
	struct cd_panel p;
	size_t n = 0, ok = 0, at_cap = 0;
	unsigned cap = 0;
	int rc = cd_build(d, tests, &p);
	char why[320];

	if (rc < 0 || !p.n_rows)
		goto out;
	fputs("\n== CrystalDiskMark rows (queued tests): mean over the trials +-95% interval, "
	      "MB/s = 10^6 bytes/s ==\n", out);
	for (size_t e = 0; e < p.n_entries && rc == 0; e++)
		if (cd_entry_has(&p, e))
			rc = cd_text_entry(out, d, &p, e);
	if (rc < 0)
		goto out;
	fputs("verdicts by row: each filesystem against the row's fastest unflagged one (ratio of means,\n"
	      "95% simultaneous interval; equivalent within 5%); a flagged figure shows its letters and is\n"
	      "set aside (aside), never the best while the row has an unflagged one\n", out);
	if ((rc = cd_text_verdicts(out, d, &p)) < 0)
		goto out;
	for (size_t r = 0; r < p.n_rows; r++)
		for (size_t e = 0; e < p.n_entries; e++)
			for (int k = 0; k < 2; k++) {
				const struct cd_side *s = cd_at(&p, r, e, k);

				n += s->c != NULL;
				ok += s->c && s->within;
			}
	fprintf(out, "95%% interval within 5%% of the mean: %zu of %zu row sides\n", ok, n);
	for (size_t r = 0; r < p.n_rows; r++)
		for (size_t e = 0; e < p.n_entries; e++)
			for (int k = 0; k < 2; k++) {
				const struct cd_side *s = cd_at(&p, r, e, k);
				unsigned c = d->all[e]->run->trial_cap;

				if (!cd_not_within(s, why, sizeof(why)))
					continue;
				fprintf(out, "  not within 5%%: %s %s %s: %s\n", d->all[e]->label,
					p.rows[r].name, cd_side_names[k], why);
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
	if (p.truncated)
		fprintf(out, "  (more than %d rows: the first %d shown)\n", CD_MAX_ROWS, CD_MAX_ROWS);
	rp_text_flag_legend(out, d, cd_flags(&p));
out:
	cd_free(&p);
	return rc;
}

bool rp_cdm_any(const struct rp_data *d)
{
	for (size_t i = 0; i < d->n_all; i++)
		for (size_t k = 0; k < d->all[i]->n_cells; k++)
			if (fslab_test_family(d->all[i]->cells[k].test) == FSLAB_FAMILY_QUEUED)
				return true;
	return false;
}

static void cd_html_side(FILE *out, const struct cd_side *s, bool iops)
{
	char v[64];

	fputs(s->c && s->c->n_ok && !s->within ? "<td class=wide>" : "<td>", out);
	rp_html_escape(out, cd_value(s, iops, v, sizeof(v)));
	fputs("</td>", out);
}

void rp_cdm_html(FILE *out, const struct rp_data *d, unsigned tests)
{
	struct cd_panel p;
	char note[256], v[96];

	if (cd_build(d, tests, &p) < 0 || !p.n_rows)
		goto out;
	fputs("<section id=\"cdm\"><h2>CrystalDiskMark rows</h2>\n<p>The queued tests' rows (fslab run "
	      "--sweep cdm or cdm-nvme): per filesystem, the mean over the trials with its 95% "
	      "interval (never a best-of), in MB/s (10<sup>6</sup> bytes a second, as CrystalDiskMark "
	      "shows them) and IOPS; an interval wider than 5% of its mean is marked.</p>\n",
	      out);
	for (size_t e = 0; e < p.n_entries; e++) {
		if (!cd_entry_has(&p, e))
			continue;
		fputs("<h3>", out);
		rp_html_escape(out, d->all[e]->label);
		fputs("</h3>\n", out);
		if (cd_run_note(d->all[e]->run, note, sizeof(note))[0]) {
			fputs("<p>", out);
			rp_html_escape(out, note);
			fputs("</p>\n", out);
		}
		fputs("<div class=scroll><table class=cdm><tr><th class=l>row</th><th>read MB/s</th>"
		      "<th>read IOPS</th><th>write MB/s</th><th>write IOPS</th><th class=l>flags</th></tr>\n",
		      out);
		for (size_t r = 0; r < p.n_rows; r++) {
			const struct cd_side *rd = cd_at(&p, r, e, 0), *wr = cd_at(&p, r, e, 1);

			if (!rd->c && !wr->c)
				continue;
			fputs("<tr><th class=l>", out);
			rp_html_escape(out, p.rows[r].name);
			fputs("</th>", out);
			cd_html_side(out, rd, false);
			cd_html_side(out, rd, true);
			cd_html_side(out, wr, false);
			cd_html_side(out, wr, true);
			fputs("<td class=l>", out);
			rp_html_escape(out, rp_flag_letters(cd_row_flags(rd, wr), "", v, sizeof(v)));
			fputs("</td></tr>\n", out);
		}
		fputs("</table></div>\n", out);
	}
	fputs("<h3>Verdicts by row</h3>\n<p>Each filesystem against the row's fastest unflagged one: "
	      "the ratio of the means with its 95% simultaneous interval (equivalent within 5%). A "
	      "flagged figure shows its letters (the flags' legend) and is set aside (aside), never "
	      "the best while the row has an unflagged one.</p>\n"
	      "<div class=scroll><table><tr><th class=l>row</th><th class=l></th>", out);
	for (size_t e = 0; e < p.n_entries; e++) {
		fputs("<th class=l>", out);
		rp_html_escape(out, d->all[e]->label);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t r = 0; r < p.n_rows; r++)
		for (int k = 0; k < 2; k++) {
			fputs("<tr><td class=l>", out);
			rp_html_escape(out, p.rows[r].name);
			fprintf(out, "</td><td class=l>%s</td>", cd_side_names[k]);
			for (size_t e = 0; e < p.n_entries; e++) {
				const struct cd_side *s = cd_at(&p, r, e, k);

				fprintf(out, "<td class=\"l %s\">",
					s->compared ? rp_dir_class(s->cmp.dir) : s->best ? rp_dir_class(RP_DIR_BEST) : "");
				rp_html_escape(out, cd_verdict(s, v, sizeof(v)));
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
	fputs("</table></div></section>\n", out);
out:
	cd_free(&p);
}

static json_object *cd_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *cd_json_side(const struct cd_side *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "test", json_object_new_string(fslab_test_to_string(s->c->test)));
	json_object_object_add(o, "trials", json_object_new_int((int)s->c->n_ok));
	json_object_object_add(o, "mb_s", cd_num(s->mbs));
	json_object_object_add(o, "mb_s_ci95", cd_num(s->mbs_ci));
	json_object_object_add(o, "iops", cd_num(s->iops));
	json_object_object_add(o, "iops_ci95", cd_num(s->iops_ci));
	json_object_object_add(o, "within_5pct", json_object_new_boolean(s->within));
	json_object *fl = json_object_new_array();
	for (size_t i = 0; i < rp_n_flags; i++)
		if (s->c->flags & rp_flag_table[i].bit)
			json_object_array_add(fl, json_object_new_string(rp_flag_table[i].csv));
	json_object_object_add(o, "flags", fl);
	json_object_object_add(o, "set_aside", json_object_new_boolean(s->aside));
	if (!s->c->n_ok)
		json_object_object_add(o, "problem", s->c->problem ? json_object_new_string(s->c->problem) : NULL);
	if (s->best) {
		json_object_object_add(o, "verdict", json_object_new_string("best"));
	} else if (s->compared) {
		json_object_object_add(o, "verdict", json_object_new_string(rp_dir_word(s->cmp.dir)));
		json_object_object_add(o, "ratio_to_best", cd_num(s->cmp.ratio));
		json_object_object_add(o, "ratio_lo", cd_num(s->cmp.lo));
		json_object_object_add(o, "ratio_hi", cd_num(s->cmp.hi));
	}
	return o;
}

json_object *rp_cdm_json(const struct rp_data *d, unsigned tests)
{
	struct cd_panel p;
	json_object *root = NULL, *fss;

	if (cd_build(d, tests, &p) < 0 || !p.n_rows)
		goto out;
	root = json_object_new_object();
	fss = json_object_new_array();
	json_object_object_add(root, "units", json_object_new_string("mb_s: 10^6 bytes a second; iops: operations a second; *_ci95: half-width of the 95% interval of the mean over the trials"));
	for (size_t e = 0; e < p.n_entries; e++) {
		json_object *fo, *rows;
		char note[256];

		if (!cd_entry_has(&p, e))
			continue;
		fo = json_object_new_object();
		rows = json_object_new_array();
		json_object_object_add(fo, "label", json_object_new_string(d->all[e]->label));
		if (cd_run_note(d->all[e]->run, note, sizeof(note))[0])
			json_object_object_add(fo, "plan", json_object_new_string(note));
		for (size_t r = 0; r < p.n_rows; r++) {
			json_object *ro;

			if (!cd_at(&p, r, e, 0)->c && !cd_at(&p, r, e, 1)->c)
				continue;
			ro = json_object_new_object();
			json_object_object_add(ro, "row", json_object_new_string(p.rows[r].name));
			json_object_object_add(ro, "file_kib", json_object_new_int64((int64_t)p.rows[r].file_kib));
			json_object_object_add(ro, "record_kib", json_object_new_int64((int64_t)p.rows[r].record_kib));
			json_object_object_add(ro, "iodepth", json_object_new_int((int)p.rows[r].iodepth));
			json_object_object_add(ro, "jobs", json_object_new_int((int)p.rows[r].jobs));
			for (int k = 0; k < 2; k++)
				if (cd_at(&p, r, e, k)->c)
					json_object_object_add(ro, cd_side_names[k], cd_json_side(cd_at(&p, r, e, k)));
			json_object_array_add(rows, ro);
		}
		json_object_object_add(fo, "rows", rows);
		json_object_array_add(fss, fo);
	}
	json_object_object_add(root, "filesystems", fss);
out:
	cd_free(&p);
	return root;
}
