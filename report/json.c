/* fslab report --format json: the rankings, intervals, verdicts, change
 * matrix and banners of the text and HTML reports, for scripts and CI
 * dashboards.  Throughput in KiB/s as in the CSVs; a number that does not
 * exist (no interval with one trial, an untested p) is null. */
#include "view.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef FSLAB_VERSION
#define FSLAB_VERSION "0.0.0"
#endif

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
	json_object_object_add(o, ratio_key, rp_json_num(c->ratio));
	json_object_object_add(o, "ratio_ci95", js_pair(c->lo, c->hi));
	json_object_object_add(o, p_key, rp_json_num(c->p));
	json_object_object_add(o, p_adj_key, rp_json_num(c->p_adj));
	json_object_object_add(o, "resolvable_fraction", rp_json_num(c->resolve));
	json_object_object_add(o, "verdict", json_object_new_string(word));
}

/* The flags by their CSV names (an unknown one as the CSV names it). */
static json_object *js_flags(unsigned f, const char *other)
{
	json_object *a = json_object_new_array();
	char buf[sizeof(((struct rp_entry *)0)->other_flags)], *save = NULL;

	for (size_t i = 0; i < rp_n_flags; i++)
		if (f & rp_flag_table[i].bit)
			json_object_array_add(a, json_object_new_string(rp_flag_table[i].csv));
	if (!(f & RP_FLAG_OTHER))
		return a;
	snprintf(buf, sizeof(buf), "%s", other);
	for (char *w = strtok_r(buf, ";", &save); w; w = strtok_r(NULL, ";", &save))
		json_object_array_add(a, json_object_new_string(w));
	return a;
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
			o = json_object_new_object();
			json_object_object_add(o, "a", json_object_new_string(x->label));
			json_object_object_add(o, "b", json_object_new_string(y->label));
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
		json_object *x = json_object_new_object();

		json_object_object_add(x, "rank", json_object_new_int((int)i + 1));
		json_object_object_add(x, "filesystem", json_object_new_string(row->e->fs));
		json_object_object_add(x, "run", json_object_new_string(row->e->run->tag));
		json_object_object_add(x, "label", json_object_new_string(row->e->label));
		json_object_object_add(x, "score_kib_s", rp_json_num(row->s.score));
		json_object_object_add(x, "median_kib_s", rp_json_num(row->s.median));
		json_object_object_add(x, "mean_kib_s", rp_json_num(row->s.mean));
		json_object_object_add(x, "ci95_kib_s",
				       js_pair(fmax(0, row->s.mean - row->s.ci), row->s.mean + row->s.ci));
		json_object_object_add(x, "trials", json_object_new_int((int)row->s.n_trials));
		js_put_cmp(x, &c->cmp, "ratio_to_best", "p_vs_best", "p_vs_best_adjusted",
			   rp_dir_word(c->cmp.dir));
		json_object_object_add(x, "set_aside", json_object_new_boolean(c->aside));
		json_object_object_add(x, "plateau_file_kib",
				       js_pair((double)row->s.file_lo, (double)row->s.file_hi));
		json_object_object_add(x, "plateau_cells", json_object_new_int((int)row->s.n_cells));
		json_object_object_add(x, "flags", js_flags(row->s.flags, row->e->other_flags));
		json_object_object_add(x, "partial", json_object_new_boolean(row->e->partial[t]));
		json_object_array_add(rows, x);
	}
	json_object_object_add(o, "ranked", rows);
	json_object_object_add(o, "pairs", js_pairs(d, t, r));
	nr = json_object_new_array();
	for (size_t i = 0; i < r->n_partial + r->n_unranked; i++) { /* the partial ones first */
		bool partial = i < r->n_partial;
		json_object *x = json_object_new_object();

		json_object_object_add(x, "label", json_object_new_string(
			partial ? r->partial[i]->label : r->unranked[i - r->n_partial]->label));
		json_object_object_add(x, "why", json_object_new_string(partial ? "partial data" : "no ok cell"));
		json_object_array_add(nr, x);
	}
	json_object_object_add(o, "not_ranked", nr);
	return o;
}

static json_object *js_runs(const struct rp_data *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->n_runs; i++) {
		const struct rp_run *r = &d->runs[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "dir", json_object_new_string(r->dir));
		json_object_object_add(x, "tag", json_object_new_string(r->tag));
		json_object_object_add(x, "cache_mode", json_object_new_string(r->cache));
		json_object_object_add(x, "trials", json_object_new_int((int)r->trials));
		json_object_object_add(x, "interrupted", json_object_new_boolean(r->interrupted));
		json_object_array_add(a, x);
	}
	return a;
}

/* The order effect: null when no test was checked, else the tests checked
 * and those whose first/last interval excludes 1. */
static json_object *js_order(const struct rp_summary *s)
{
	json_object *o, *a;

	if (!s->order_tested)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "tests_checked", json_object_new_int((int)s->order_tested));
	for (size_t i = 0; i < s->n_order; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "run", json_object_new_string(s->order[i].run->tag));
		json_object_object_add(x, "test",
				       json_object_new_string(fslab_test_to_string(s->order[i].test)));
		json_object_object_add(x, "first_to_last_ratio", rp_json_num(s->order[i].ratio));
		json_object_object_add(x, "ratio_ci", js_pair(s->order[i].lo, s->order[i].hi));
		json_object_object_add(x, "trials", json_object_new_int((int)s->order[i].trials));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "effects", a);
	return o;
}

static json_object *js_banners(const struct rp_summary *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "page_cache_fraction", json_object_new_double(s->pc_frac));
	json_object_object_add(o, "mostly_page_cache", json_object_new_boolean(s->pc_cells && s->pc_frac >= 0.5));
	json_object_object_add(o, "incomplete",
			       s->incomplete ? json_object_new_string(s->incomplete_names) : NULL);
	json_object_object_add(o, "interrupted", json_object_new_boolean(s->interrupted));
	json_object_object_add(o, "fuse", s->fuse ? json_object_new_string(s->fuse_names) : NULL);
	json_object_object_add(o, "buffered_loop",
			       s->buffered_loop ? json_object_new_string(s->loop_text) : NULL);
	json_object_object_add(o, "order_effect", js_order(s));
	json_object_object_add(o, "hot_drive", s->hot ? json_object_new_string(s->hot_names) : NULL);
	json_object_object_add(o, "no_steady_state",
			       s->unsteady ? json_object_new_string(s->unsteady_names) : NULL);
	json_object_object_add(o, "max_trials", json_object_new_int((int)s->max_trials));
	json_object_object_add(o, "min_trials", json_object_new_int((int)s->min_trials));
	return o;
}

/* One column of the change matrix: a filesystem's later run against its
 * first, per test with data. */
static json_object *js_change(const struct rp_change *c)
{
	json_object *x = json_object_new_object(), *tt = json_object_new_object();

	json_object_object_add(x, "filesystem", json_object_new_string(c->b->fs));
	json_object_object_add(x, "first_run", json_object_new_string(c->a->run->tag));
	json_object_object_add(x, "later_run", json_object_new_string(c->b->run->tag));
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		const struct rp_change_cell *cc = &c->t[t];
		json_object *y;

		if (!cc->has)
			continue;
		y = json_object_new_object();
		js_put_cmp(y, &cc->cmp, "ratio", "p", "p_adjusted", rp_change_word(cc->cmp.dir));
		json_object_object_add(y, "partial", json_object_new_boolean(cc->partial));
		json_object_object_add(tt, fslab_test_to_string(t), y);
	}
	json_object_object_add(x, "tests", tt);
	return x;
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
		json_object *x = json_object_new_object(), *runs = json_object_new_array();

		json_object_object_add(x, "claim", json_object_new_int(k + 1));
		json_object_object_add(x, "title", json_object_new_string(c->title));
		json_object_object_add(x, "verdict", json_object_new_string(rp_claim_word(c->word)));
		json_object_object_add(x, "decided_by", json_object_new_string(c->decides));
		if (k == RP_N_CLAIMS - 1)
			json_object_object_add(x, "headline_over_probe", rp_json_num(c->figure));
		for (size_t i = 0; i < c->n; i++) {
			const struct rp_claim_run *l = &c->runs[i];
			json_object *y = json_object_new_object(), *z = NULL;

			json_object_object_add(y, "run", json_object_new_string(l->run->tag));
			json_object_object_add(y, "kind", json_object_new_string(i == 0 ? "warm" : "honest"));
			json_object_object_add(y, "verdict", json_object_new_string(rp_claim_word(l->word)));
			if (l->has_cmp) {
				z = json_object_new_object();
				js_put_cmp(z, &l->cmp, "ratio", "p", "p_adjusted", rp_dir_word(l->cmp.dir));
				json_object_object_add(z, "shown", json_object_new_string(l->fig));
			}
			json_object_object_add(y, "comparison", z);
			json_object_object_add(y, "evidence", json_object_new_string(l->evidence));
			json_object_array_add(runs, y);
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
			x = json_object_new_object();
			json_object_object_add(x, "label", json_object_new_string(d->all[i]->label));
			json_object_object_add(x, "cells", json_object_new_int((int)l->n_cells));
			json_object_object_add(x, "p50_us_median", rp_json_num(l->p50));
			json_object_object_add(x, "p99_us_worst", rp_json_num(l->p99));
			if (!isnan(l->p99)) {
				json_object *c = json_object_new_object();
				json_object_object_add(c, "file_kib", json_object_new_int64((int64_t)l->p99_file_kib));
				json_object_object_add(c, "record_kib",
						       json_object_new_int64((int64_t)l->p99_record_kib));
				json_object_object_add(x, "p99_worst_cell", c);
			}
			json_object_object_add(x, "max_us", rp_json_num(l->max));
			json_object_array_add(a, x);
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
		json_object *x = json_object_new_object();

		if (f->kind == RP_DEVK_NONE) {
			json_object_put(x);
			continue;
		}
		json_object_object_add(x, "measure", json_object_new_string(kind[f->kind]));
		json_object_object_add(x, "mean", rp_json_num(f->mean));
		json_object_object_add(x, "ci95", js_pair(f->mean - f->ci, f->mean + f->ci));
		json_object_object_add(x, "trials", json_object_new_int((int)f->n_trials));
		json_object_object_add(x, "passes", json_object_new_int((int)f->n_rows));
		json_object_object_add(x, "passes_from_memory", json_object_new_int((int)f->n_memory));
		json_object_object_add(o, d->all[i]->label, x);
	}
	return o;
}

static void js_device(json_object *root, const struct rp_data *d)
{
	const struct rp_dev *v = &d->sum->dev;
	json_object *o, *x;

	if (!v->n_rows && !v->empty)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "passes_with_counters", json_object_new_int((int)v->n_rows));
	json_object_object_add(o, "page_cache_within_probe_bound", json_object_new_int((int)v->n_pc_only));
	json_object_object_add(o, "beyond_probe_bound_on_device", json_object_new_int((int)v->n_beyond_only));
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
	json_object_object_add(root, "device", o);
}

int rp_json_write(FILE *out, const struct rp_data *d, unsigned tests)
{
	const struct rp_summary *s = d->sum;
	json_object *root = json_object_new_object(), *a, *o;

	json_object_object_add(root, "fslab_version", json_object_new_string(FSLAB_VERSION));
	json_object_object_add(root, "runs", js_runs(d));
	json_object_object_add(root, "claims", js_claims(d));
	json_object_object_add(root, "banners", js_banners(s));
	o = json_object_new_object();
	json_object_object_add(o, "family_alpha", json_object_new_double(RP_FAMILY_ALPHA));
	json_object_object_add(o, "comparisons", json_object_new_int((int)s->n_comparisons));
	json_object_object_add(o, "change_comparisons", json_object_new_int((int)s->n_chg_comparisons));
	json_object_object_add(o, "equivalence_fraction", json_object_new_double(s->delta));
	json_object_object_add(o, "prior_df", rp_json_num(s->vm->all.d0));
	json_object_object_add(o, "prior_log_variance", rp_json_num(s->vm->all.s02));
	json_object_object_add(o, "prior_df_blocked", rp_json_num(s->vm->blocked.d0));
	json_object_object_add(o, "filesystem_noise_spread", rp_json_num(s->vm->fs_spread));
	json_object_object_add(root, "inference", o);
	o = json_object_new_object();
	for (int f = 0; f < RP_N_FAMILIES; f++)
		if (s->family_present[f])
			json_object_object_add(o, rp_family_name(f), json_object_new_string(s->verdict[f]));
	json_object_object_add(root, "verdicts", o);
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
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		json_object *x;

		if (!(tests & (1u << t)) || !(x = js_ranking(d, t)))
			continue;
		json_object_object_add(o, fslab_test_to_string(t), x);
	}
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
	int r = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
	json_object_put(root);
	return r;
}

