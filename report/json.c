/* fslab report --format json: the rankings, intervals, verdicts, change
 * matrix and banners of the text and HTML reports, for scripts and CI
 * dashboards.  Throughput in KiB/s as in the CSVs (each key says its
 * unit: *_kib_s; the CDM panel's mb_s, 10^6 B/s); a number that does not
 * exist (no interval with one trial, an untested p) is null. */
#include "termtext.h"
#include "view.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

static json_object *js_pair(double a, double b)
{
	json_object *arr;

	if (isnan(a) || isnan(b))
		return NULL;
	arr = json_object_new_array();
	json_object_array_add(arr, json_object_new_double(a));
	json_object_array_add(arr, json_object_new_double(b));
	return arr;
}

/* One comparison: its ratio, the simultaneous interval, p (raw and
 * adjusted), the smallest difference these data resolve and the word the
 * interval gives; the ratio's and p's keys are the caller's. */
static void js_put_cmp(json_object *o, const struct rp_cmp *c, const char *ratio_key,
		       const char *p_key, const char *p_adj_key, const char *word)
{
	rp_json_put(o, ratio_key, rp_json_num(c->ratio), "ratio_ci95", js_pair(c->lo, c->hi), p_key,
		    rp_json_num(c->p), p_adj_key, rp_json_num(c->p_adj), "resolvable_fraction",
		    rp_json_num(c->resolve), "verdict", RP_JSTR(word), NULL);
}

/* Every pair of ranked rows, the higher ranked first: a over b with the
 * interval and the word, so a reader can tell the order the data decide
 * (faster, slower) from the one that is within noise.  All of a test's
 * pairs are already in the summary's family (rp_sum_pair), so these are
 * the matrix's own intervals, not a second test. */
static json_object *js_pairs(const struct rp_data *d, enum fslab_test t, const struct rp_ranking *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->n; i++)
		for (size_t j = i + 1; j < r->n; j++) {
			const struct rp_entry *x = r->rows[i].e, *y = r->rows[j].e;
			struct rp_cmp c;
			json_object *o;

			if (!rp_sum_pair(d->sum, t, x->idx, y->idx, &c))
				continue;
			o = RP_JOBJ("a", RP_JSTR(x->label), "b", RP_JSTR(y->label));
			js_put_cmp(o, &c, "ratio", "p", "p_adjusted", rp_dir_word(c.dir));
			json_object_array_add(a, o);
		}
	return a;
}

static json_object *js_ranking(const struct rp_data *d, enum fslab_test t)
{
	const struct rp_ranking *r = &d->sum->rank[t];
	json_object *o, *rows, *nr;

	if (!(d->sum->shown & (1u << t)))
		return NULL;
	o = json_object_new_object();
	rows = json_object_new_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct rp_rank_row *row = &r->rows[i];
		const struct rp_mcell *c = rp_sum_cell(d->sum, t, row->e->idx);
		json_object *x = RP_JOBJ(
			"rank", RP_JINT(i + 1), "filesystem", RP_JSTR(row->e->fs), "run", RP_JSTR(row->e->run->tag),
			"label", RP_JSTR(row->e->label), "score_kib_s", rp_json_num(row->s.score),
			"median_kib_s", rp_json_num(row->s.median), "mean_kib_s", rp_json_num(row->s.mean),
			"ci95_kib_s", js_pair(fmax(0, row->s.mean - row->s.ci), row->s.mean + row->s.ci),
			"trials", RP_JINT(row->s.n_trials));

		js_put_cmp(x, &c->cmp, "ratio_to_best", "p_vs_best", "p_vs_best_adjusted",
			   rp_dir_word(c->cmp.dir));
		json_object_array_add(rows, rp_json_put(
			x, "set_aside", RP_JBOOL(c->aside), "plateau_file_kib",
			js_pair((double)row->s.file_lo, (double)row->s.file_hi), "plateau_cells",
			RP_JINT(row->s.n_cells), "flags", rp_json_flags(row->s.flags, row->e->other_flags),
			"partial", RP_JBOOL(row->e->partial[t]), NULL));
	}
	nr = json_object_new_array();
	for (size_t i = 0; i < r->n_partial + r->n_unranked; i++) { /* the partial ones first */
		bool partial = i < r->n_partial;

		json_object_array_add(nr, RP_JOBJ("label", RP_JSTR(partial ? r->partial[i]->label
									  : r->unranked[i - r->n_partial]->label),
						  "why", RP_JSTR(partial ? "partial data" : "no ok cell")));
	}
	return rp_json_put(o, "ranked", rows, "pairs", js_pairs(d, t, r), "not_ranked", nr, NULL);
}

/* A verdict's structure beside its sentence: the leader of a test (or of
 * a CDM row's side), the next, the next's ratio to it with the
 * simultaneous interval, the word, the smallest difference resolvable. */
static void js_verdict(json_object *a, enum fslab_test t, const char *row, const char *lead, const char *next,
		       const struct rp_cmp *c)
{
	json_object_array_add(a, RP_JOBJ("test", RP_JSTR(fslab_test_to_string(t)), "row", row ? RP_JSTR(row) : NULL,
					  "leader", RP_JSTR(lead), "next", RP_JSTR(next), "ratio", rp_json_num(c->ratio),
					  "ci_lo", rp_json_num(c->lo), "ci_hi", rp_json_num(c->hi), "word",
					  RP_JSTR(rp_dir_word(c->dir)), "resolvable_pct", rp_json_num(100 * c->resolve)));
}

static json_object *js_verdicts(const struct rp_data *d, unsigned tests)
{
	const struct rp_summary *s = d->sum;
	const struct rp_cdm *p = &s->cdm;
	json_object *a = json_object_new_array();

	RP_FOR_TESTS(t, tests & s->tests) /* the next: the best unflagged after the leader */
		for (size_t i = 1; i < s->rank[t].n; i++)
			if (!s->rank[t].rows[i].aside) {
				js_verdict(a, t, NULL, s->rank[t].rows[0].e->label, s->rank[t].rows[i].e->label,
					   &rp_sum_cell(s, t, s->rank[t].rows[i].e->idx)->cmp);
				break;
			}
	for (size_t r = 0; r < p->n_rows; r++)
		for (int k = 0; k < 2; k++) {
			size_t lead = SIZE_MAX, next = SIZE_MAX;

			for (size_t e = 0; e < p->n_entries; e++) {
				const struct rp_cdm_side *x = rp_cdm_at(p, r, e, k);

				lead = x->best ? e : lead;
				if (x->compared && (next == SIZE_MAX || x->cmp.ratio > rp_cdm_at(p, r, next, k)->cmp.ratio))
					next = e;
			}
			if (lead != SIZE_MAX && next != SIZE_MAX)
				js_verdict(a, rp_cdm_at(p, r, lead, k)->c->test, p->rows[r].name, d->all[lead]->label,
					   d->all[next]->label, &rp_cdm_at(p, r, next, k)->cmp);
		}
	return a;
}

static json_object *js_runs(const struct rp_data *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->n_runs; i++) {
		const struct rp_run *r = &d->runs[i];

		json_object_array_add(a, RP_JOBJ("dir", RP_JSTR(r->dir), "tag", RP_JSTR(r->tag), "cache_mode",
						 RP_JSTR(r->cache), "trials", RP_JINT(r->trials), "interrupted",
						 RP_JBOOL(r->interrupted)));
	}
	return a;
}

static json_object *js_banners(const struct rp_summary *s)
{
	return RP_JOBJ("page_cache_fraction", json_object_new_double(s->pc_frac), "mostly_page_cache",
		       RP_JBOOL(s->pc_cells && s->pc_frac >= 0.5), "incomplete",
		       s->incomplete ? RP_JSTR(s->incomplete_names) : NULL, "interrupted",
		       RP_JBOOL(s->interrupted), "fuse", s->fuse ? RP_JSTR(s->fuse_names) : NULL,
		       "buffered_loop", s->buffered_loop ? RP_JSTR(s->loop_text) : NULL, "hot_drive", s->hot ? RP_JSTR(s->hot_names) : NULL, "no_steady_state",
		       s->unsteady ? RP_JSTR(s->unsteady_names) : NULL, "max_trials", RP_JINT(s->max_trials),
		       "min_trials", RP_JINT(s->min_trials));
}

/* One column of the change matrix: a filesystem's later run against its
 * first, per test with data. */
static json_object *js_change(const struct rp_change *c)
{
	json_object *tt = json_object_new_object();

	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		const struct rp_change_cell *cc = &c->t[t];
		json_object *y;

		if (!cc->has)
			continue;
		y = json_object_new_object();
		js_put_cmp(y, &cc->cmp, "ratio", "p", "p_adjusted", rp_change_word(cc->cmp.dir));
		rp_json_put(tt, fslab_test_to_string(t), rp_json_put(y, "partial", RP_JBOOL(cc->partial), NULL), NULL);
	}
	return RP_JOBJ("filesystem", RP_JSTR(c->b->fs), "first_run", RP_JSTR(c->tag_a), "later_run",
		       RP_JSTR(c->tag_b), "tests", tt);
}

/* The 2023 claims (--claims): each claim's word and deciding figure, and
 * per run its word with the comparison that decided it (null: none). */
static json_object *js_claims(const struct rp_data *d)
{
	const struct rp_claims *cs = d->claims;
	json_object *a;

	if (!cs)
		return NULL;
	a = json_object_new_array();
	for (int k = 0; k < RP_N_CLAIMS; k++) {
		const struct rp_claim *c = &cs->c[k];
		json_object *x = RP_JOBJ("claim", RP_JINT(k + 1), "title", RP_JSTR(c->title), "verdict",
					 RP_JSTR(rp_claim_word(c->word)), "decided_by", RP_JSTR(c->decides));
		json_object *runs = json_object_new_array();

		if (k == RP_N_CLAIMS - 1)
			rp_json_put(x, "headline_over_probe", rp_json_num(c->figure), NULL);
		for (size_t i = 0; i < c->n; i++) {
			const struct rp_claim_run *l = &c->runs[i];
			json_object *z = NULL;

			if (l->has_cmp) {
				z = json_object_new_object();
				js_put_cmp(z, &l->cmp, "ratio", "p", "p_adjusted", rp_dir_word(l->cmp.dir));
				rp_json_put(z, "shown", RP_JSTR(l->fig), NULL);
			}
			json_object_array_add(runs, RP_JOBJ("run", RP_JSTR(l->run->tag), "kind",
							    RP_JSTR(i == 0 ? "warm" : "honest"), "verdict",
							    RP_JSTR(rp_claim_word(l->word)), "comparison", z,
							    "evidence", RP_JSTR(l->evidence)));
		}
		json_object_object_add(x, "runs", runs);
		json_object_array_add(a, x);
	}
	return a;
}

static json_object *rp_latency_json(const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	json_object *o;

	if (!s->lat_tests)
		return NULL;
	o = json_object_new_object();
	RP_FOR_TESTS(t, s->lat_tests) {
		json_object *a;

		a = json_object_new_array();
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			json_object *x;

			if (!l->has)
				continue;
			x = RP_JOBJ("label", RP_JSTR(d->all[i]->label), "cells", RP_JINT(l->n_cells),
				    "p50_us_median", rp_json_num(l->lat[FSLAB_LAT_P50]), "p99_us_worst",
				    rp_json_num(l->lat[FSLAB_LAT_P99]), "p999_us_worst", rp_json_num(l->lat[FSLAB_LAT_P999]),
				    "p9999_us_worst", rp_json_num(l->lat[FSLAB_LAT_P9999]));
			if (!isnan(l->lat[FSLAB_LAT_P99]))
				rp_json_put(x, "p99_worst_cell",
					    RP_JOBJ("file_kib", json_object_new_int64((int64_t)l->p99_file_kib),
						    "record_kib", json_object_new_int64((int64_t)l->p99_record_kib)),
					    NULL);
			json_object_array_add(a, rp_json_put(x, "max_us", rp_json_num(l->lat[FSLAB_LAT_MAX]), NULL));
		}
		json_object_object_add(o, fslab_test_to_string(t), a);
	}
	return o;
}
/* The device panel (rp_dev): per family and per test each entry's figure;
 * NULL (no key) when no CSV has the device columns. */
static json_object *js_figs(const struct rp_data *d, const struct rp_dev_fig *figs)
{
	static const char *const kind[] = { NULL, "write_amplification", "read_from_device",
					    "device_bytes_per_file" };
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_dev_fig *f = &figs[i];

		if (f->kind != RP_DEVK_NONE)
			rp_json_put(o, d->all[i]->label,
				    RP_JOBJ("measure", RP_JSTR(kind[f->kind]), "mean", rp_json_num(f->mean), "ci95",
					    js_pair(f->mean - f->ci, f->mean + f->ci), "trials", RP_JINT(f->n_trials),
					    "passes", RP_JINT(f->n_rows), "passes_from_memory", RP_JINT(f->n_memory)),
				    NULL);
	}
	return o;
}

static void js_device(json_object *root, const struct rp_data *d)
{
	const struct rp_dev *v = &d->sum->dev;
	json_object *o, *x;

	if (!v->n_rows && !v->empty)
		return;
	o = RP_JOBJ("passes_with_counters", RP_JINT(v->n_rows), "page_cache_within_probe_bound",
		    RP_JINT(v->n_pc_only), "beyond_probe_bound_on_device", RP_JINT(v->n_beyond_only));
	x = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES && v->n_rows; f++)
		json_object_object_add(x, rp_family_name(f), js_figs(d, &v->fam[(size_t)f * d->n_all]));
	json_object_object_add(o, "families", x);
	x = json_object_new_object();
	for (int t = 0; t < FSLAB_TEST_MAX && v->n_rows; t++) {
		json_object *y = js_figs(d, &v->test[(size_t)t * d->n_all]);

		if (json_object_object_length(y))
			json_object_object_add(x, fslab_test_to_string(t), y);
		else
			json_object_put(y);
	}
	json_object_object_add(o, "tests", x);
	x = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (v->memory[f][0])
			json_object_object_add(x, rp_family_name(f), json_object_new_string(v->memory[f]));
	json_object_object_add(o, "not_on_device", x);
	if (v->drive_bytes > 0)
		rp_json_put(o, "drive_host_written_bytes", json_object_new_double(v->drive_bytes),
			    "block_layer_written_bytes", json_object_new_double(v->block_bytes), NULL);
	json_object_object_add(root, "device", o);
}

int rp_json_write(FILE *out, const struct rp_data *d, unsigned tests)
{
	const struct rp_summary *s = d->sum;
	json_object *root = json_object_new_object(), *a, *o;

	rp_json_put(root, "fslab_version", RP_JSTR(FSLAB_VERSION), "runs", js_runs(d), "claims", js_claims(d),
		    "banners", js_banners(s), NULL);
	json_object_object_add(root, "inference",
			       RP_JOBJ("family_alpha", json_object_new_double(RP_FAMILY_ALPHA), "comparisons",
				       RP_JINT(s->n_comparisons), "change_comparisons", RP_JINT(s->n_chg_comparisons),
				       "equivalence_fraction", json_object_new_double(s->delta), "prior_df",
				       rp_json_num(s->vm->all.d0), "prior_log_variance", rp_json_num(s->vm->all.s02),
				       "prior_df_blocked", rp_json_num(s->vm->blocked.d0), "filesystem_noise_spread",
				       rp_json_num(s->vm->fs_spread)));
	o = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (s->family_present[f])
			json_object_object_add(o, rp_family_name(f), json_object_new_string(s->verdict[f]));
	json_object_object_add(root, "verdicts", o);
	json_object_object_add(root, "verdicts_by_test", js_verdicts(d, tests));
	o = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (int b = 0; b < RP_N_BAND_LINES; b++) { /* "small" .. "all" */
			const struct rp_band_verdict *v = &s->bands.v[f][b];
			json_object *fo = NULL;

			if (!v->lead)
				continue;
			if (!json_object_object_get_ex(o, rp_family_name(f), &fo))
				json_object_object_add(o, rp_family_name(f), fo = json_object_new_object());
			char key[16]; /* "small" */
			snprintf(key, sizeof(key), "%.*s", (int)strcspn(rp_band_name(b), " "), rp_band_name(b));
			json_object_object_add(fo, key, RP_JOBJ("leader", RP_JSTR(v->lead->label),
				"next", v->next ? RP_JSTR(v->next->label) : NULL, "ratio", rp_json_num(v->cmp.ratio),
				"lo", rp_json_num(v->cmp.lo), "hi", rp_json_num(v->cmp.hi),
				"verdict", RP_JSTR(v->next ? rp_dir_word(v->cmp.dir) : "alone"),
				"alike_within", rp_json_num(v->within), "resolves", rp_json_num(v->cmp.resolve),
				"text", RP_JSTR(v->line)));
		}
	json_object_object_add(root, "bands", o);
	o = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES; f++) {
		if (!s->n_chg_verdict[f])
			continue;
		a = json_object_new_array();
		for (size_t k = 0; k < s->n_chg_verdict[f]; k++)
			json_object_array_add(a, json_object_new_string(s->chg_verdict[f][k]));
		json_object_object_add(o, rp_family_name(f), a);
	}
	json_object_object_add(root, "change_verdicts", o);

	o = json_object_new_object();
	RP_FOR_TESTS(t, tests)
		if ((a = js_ranking(d, t)))
			json_object_object_add(o, fslab_test_to_string(t), a);
	json_object_object_add(root, "rankings", o);

	a = json_object_new_array();
	for (size_t i = 0; i < s->n_chg; i++)
		json_object_array_add(a, js_change(&s->chg[i]));
	json_object_object_add(root, "changes", a);
	json_object_object_add(root, "latency", rp_latency_json(d));
	json_object_object_add(root, "cdm", rp_cdm_json(d));
	js_device(root, d);
	json_object_object_add(root, "run_differences",
			       s->differs[0] ? json_object_new_string(s->differs) : NULL);

	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_NOSLASHESCAPE);
	int r = fslab_put_json(text, out) == EOF || putc('\n', out) == EOF ? -1 : 0;
	json_object_put(root);
	return r;
}

