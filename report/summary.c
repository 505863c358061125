/* The first screen: which filesystem, for what, by how much, how sure.
 *
 * - The matrix: per test and filesystem the score's ratio to the best in
 *   that test with its simultaneous interval (infer.c) and the verdict read
 *   off that interval: slower, faster, equivalent, inconclusive.  The family
 *   is every pair of testable entries in every test, so the family-wise
 *   error stays at 5% across the 13 tests whichever entry the data make the
 *   best.  A flagged entry (page cache, FUSE, ...) is never the best while
 *   an unflagged one exists.
 * - The change matrix: the same filesystem on two sides (each later side
 *   against the first; a side is one or more runs), a family of its own.
 * - One verdict line per workload family (small files: its
 *   many-files tests when the run has one, else a description of the
 *   IOzone cells with small files, nothing tested).
 * - The banners: page cache, missing data, FUSE, no steady state, too few
 *   trials. */
#include "format.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The workload families of the verdict lines, the one place that says
 * which tests each is judged on.  A family is judged on its tests that the
 * run has (tests); small files, when the run has none of its many-files
 * tests, falls back to describing the cells with files up to 1 MiB of the
 * IOzone tests it has (described): medians, nothing tested. */
static const struct {
	const char *name;
	unsigned tests;     /* judged on these, like every family */
	unsigned described; /* without any of tests in the run: described on these */
	const char *what;   /* the tests' common name in the line ("many files"), or NULL */
} sm_families[RP_N_FAMILIES] = {
	{ "sequential write", FSLAB_TESTS_SEQ_WRITE, 0, NULL },
	{ "sequential read", FSLAB_TESTS_SEQ_READ, 0, NULL },
	{ "random and strided", FSLAB_TESTS_RANDOM, 0, NULL },
	{ "small files", FSLAB_TESTS_FILES, FSLAB_TESTS_ALL, "many files" },
};

const char *rp_family_name(int f)
{
	return f >= 0 && f < RP_N_FAMILIES ? sm_families[f].name : "?";
}

/* Appends ", " (not first) and what fmt says to the list in buf of size
 * len, while room is left for a name of room bytes. */
static void __attribute__((format(printf, 4, 5)))
sm_name(char *buf, size_t len, size_t room, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= len - room)
		return;
	l += (size_t)snprintf(buf + l, len - l, "%s", l ? ", " : "");
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

/* Family f's tests in a run of tests run; *descriptive: they are only
 * described (small files without its many-files tests: the cells with
 * files up to 1 MiB of the IOzone tests), never tested. */
static unsigned rp_family_tests(int f, unsigned run, bool *descriptive)
{
	*descriptive = false;
	if (f < 0 || f >= RP_N_FAMILIES)
		return 0;
	if (sm_families[f].tests & run)
		return sm_families[f].tests & run;
	*descriptive = (sm_families[f].described & run) != 0;
	return sm_families[f].described & run;
}

/* Family f's name as its lines say it, for its tests ft: "small files
 * (many files: create, stat, read, unlink)" (each test's name after its
 * family's prefix), "small files (files up to 1 MiB, IOzone's tests)" when
 * descriptive, else its name.  Returns buf. */
static const char *sm_family_label(int f, unsigned ft, bool descriptive, char *buf, size_t len)
{
	char sep = ':';

	snprintf(buf, len, "%s", sm_families[f].name);
	if (descriptive)
		return fslab_catf(buf, len, " (files up to 1 MiB, IOzone's tests)");
	if (!sm_families[f].what)
		return buf;
	fslab_catf(buf, len, " (%s", sm_families[f].what);
	RP_FOR_TESTS(t, ft) {
		const char *name = fslab_test_to_string(t), *us = strchr(name, '_');

		fslab_catf(buf, len, "%c %s", sep, us ? us + 1 : name);
		sep = ',';
	}
	return fslab_catf(buf, len, ")");
}

/* The two best complete entries of in that are not set aside (SIZE_MAX:
 * none): the winner and the runner-up of a family. */
static void sm_top_two(const struct rp_fam_in *in, size_t n, size_t *w, size_t *r)
{
	*w = *r = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!in[i].complete || isnan(in[i].score) || in[i].aside)
			continue;
		if (*w == SIZE_MAX || in[i].score > in[*w].score) {
			*r = *w;
			*w = i;
		} else if (*r == SIZE_MAX || in[i].score > in[*r].score) {
			*r = i;
		}
	}
}

/* The entries set aside whose family score is above the winner's w (all
 * of them when w is NULL): the fastest named with its flag and margin, the
 * others counted - "; set aside: xfs/warm (page cache, 3.10x) and 4 more
 * flagged - never the best while an unflagged figure exists". */
static void sm_aside_tail(const struct rp_fam_in *in, size_t n, const struct rp_fam_in *w,
			  char *buf, size_t len)
{
	size_t top = SIZE_MAX, more = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!in[i].aside || isnan(in[i].score) || (w && !(in[i].score > w->score)))
			continue;
		if (top != SIZE_MAX)
			more++;
		if (top == SIZE_MAX || in[i].score > in[top].score)
			top = i;
	}
	if (top == SIZE_MAX)
		return;
	char fw[160];
	snprintf(buf, len, "; set aside: %s (%s", in[top].label,
		 rp_flag_words(in[top].aside, in[top].other, fw, sizeof(fw)));
	if (w && w->score > 0)
		fslab_catf(buf, len, ", %.2fx", in[top].score / w->score);
	fslab_catf(buf, len, ")%s%.0zu%s - never the best while an unflagged figure exists",
		more ? " and " : "", more, more ? " more flagged" : "");
}

/* "ext2 slower in 3, inconclusive in 1 of 4 tests (...)" */
static void sm_calls_text(const char *runner, const struct rp_fam_calls *k, char *buf, size_t len)
{
	const struct {
		unsigned n;
		const char *word;
	} part[] = {
		{ k->slower, "slower" },      { k->faster, "faster" },
		{ k->equivalent, "equivalent" }, { k->inconclusive, "inconclusive" },
		{ k->untested, "not tested" },
	};
	size_t kinds = 0;

	snprintf(buf, len, "%s", runner);
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		kinds += part[i].n > 0;
	for (size_t i = 0, done = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		if (!part[i].n)
			continue;
		if (kinds == 1 && k->n_tests == 2)
			fslab_catf(buf, len, " %s in both tests", part[i].word);
		else if (kinds == 1)
			fslab_catf(buf, len, " %s in %s%zu test%s", part[i].word, k->n_tests > 1 ? "all " : "",
				k->n_tests, k->n_tests > 1 ? "s" : "");
		else
			fslab_catf(buf, len, "%s %s in %u", done ? "," : "", part[i].word, part[i].n);
		if (part[i].word[0] == 'e')
			fslab_catf(buf, len, " (within %g%%)", 100 * k->delta);
		done++;
	}
	if (kinds > 1)
		fslab_catf(buf, len, " of %zu tests", k->n_tests);
	if (k->inconclusive)
		fslab_catf(buf, len, "; no difference larger than %.0f%% could be detected; " RP_MORE_TRIALS,
			   ceil(100 * k->resolve));
}

void rp_family_verdict(const char *family, const struct rp_fam_in *in, size_t n,
		       const struct rp_fam_calls *calls, char *buf, size_t len)
{
	char skipped[200] = "", tail[260] = "", aside[400], said[400];
	size_t wi, ri;

	for (size_t i = 0; i < n; i++)
		if (!in[i].complete || isnan(in[i].score))
			sm_name(skipped, sizeof(skipped), 40, "%s", in[i].label);
	if (skipped[0])
		snprintf(tail, sizeof(tail), "; not judged (missing or partial data): %s", skipped);
	sm_top_two(in, n, &wi, &ri);
	if (wi == SIZE_MAX) {
		sm_aside_tail(in, n, NULL, aside, sizeof(aside));
		snprintf(buf, len, "%s: no verdict, no unflagged filesystem has complete data%s%s",
			 family, tail, aside);
		return;
	}
	const struct rp_fam_in *w = &in[wi], *r = ri == SIZE_MAX ? NULL : &in[ri];
	sm_aside_tail(in, n, w, aside, sizeof(aside));
	if (!r) {
		snprintf(buf, len, "%s: only %s has complete unflagged data, nothing to compare with%s%s",
			 family, w->label, tail, aside);
		return;
	}
	double margin = w->score / r->score;
	const struct rp_fam_calls *k = calls;
	if (k->descriptive || k->untested == k->n_tests)
		snprintf(buf, len, "%s: %s leads, %.2fx %s (not tested: %s)%s%s", family, w->label,
			 margin, r->label, k->descriptive ? "descriptive, cell medians" : "1 trial",
			 tail, aside);
	else if (k->equivalent == k->n_tests)
		snprintf(buf, len, "%s: %s and %s are equivalent (within %g%%) in %s%zu test%s (%.2fx)%s%s",
			 family, w->label, r->label, 100 * k->delta, k->n_tests > 1 ? "all " : "",
			 k->n_tests, k->n_tests > 1 ? "s" : "", margin, tail, aside);
	else {
		sm_calls_text(r->label, k, said, sizeof(said));
		snprintf(buf, len, "%s: %s leads, %.2fx %s (next best): %s%s%s", family, w->label,
			 margin, r->label, said, tail, aside);
	}
}

/* A comparison not made: every figure NaN (dir RP_DIR_NONE). */
static const struct rp_cmp sm_no_cmp = { .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_adj = NAN,
					 .resolve = NAN, .df = NAN };

/* The flags that keep a small-file cell out of the descriptive line: those
 * that set a figure aside, but FUSE, which is the whole filesystem's (the
 * matrix sets that entry aside). */
#define SM_SMALL_OUT (RP_FLAGS_ASIDE & ~(unsigned)RP_FLAG_FUSE)

/* Median over the cells of test t with files up to 1 MiB of the cell
 * medians, the flagged ones (SM_SMALL_OUT: the page cache, not the disk)
 * left out and their flags added to *flagged; NaN without such cells. */
static double sm_small_files_median(const struct rp_entry *e, enum fslab_test t, unsigned *flagged)
{
	double *v = malloc((e->test_first[t + 1] - e->test_first[t] + 1) * sizeof(double));
	size_t n = 0;

	if (!v)
		return NAN;
	RP_FOR_CELLS(c, e, t) {
		if (!c->n_ok || c->file_kib > 1024)
			continue;
		if (c->flags & SM_SMALL_OUT)
			*flagged |= c->flags & SM_SMALL_OUT;
		else
			v[n++] = c->median;
	}
	double m = fslab_median_sort(v, n);
	free(v);
	return m;
}

/* Per test of ft the best small-file median of any entry (NaN: none);
 * into *out the tests that have small-file cells but only flagged ones,
 * and into *out_flags those cells' flags. */
static void sm_best_small(const struct rp_data *d, unsigned ft, double best[FSLAB_TEST_MAX],
			  unsigned *out, unsigned *out_flags)
{
	*out = *out_flags = 0;
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		unsigned flagged = 0;

		best[t] = NAN;
		if (!(ft & (1u << t)))
			continue;
		for (size_t i = 0; i < d->n_all; i++) {
			double v = sm_small_files_median(d->all[i], t, &flagged);
			if (!isnan(v) && (isnan(best[t]) || v > best[t]))
				best[t] = v;
		}
		if (isnan(best[t]) && flagged) {
			*out |= 1u << t;
			*out_flags |= flagged;
		}
	}
}

/* Entry i's score in the family of tests ft: the geometric mean of its
 * ratios to the best (small files: its small-file median to the best
 * one's, best_small); incomplete when a test has no ratio or partial data;
 * set aside when flagged in one of them while an unflagged entry was
 * ranked, or (small files) when all its small-file cells of a test are
 * flagged while another entry's are not. */
static struct rp_fam_in sm_family_score(const struct rp_summary *s, const struct rp_data *d,
					size_t i, unsigned ft, const double *best_small)
{
	struct rp_fam_in in = { .label = d->all[i]->label, .complete = true,
				.other = d->all[i]->other_flags };
	double lsum = 0;
	size_t k = 0;

	RP_FOR_TESTS(t, ft) {
		const struct rp_mcell *c = rp_sum_cell(s, t, i);
		unsigned flagged = 0;
		double ratio = best_small ? sm_small_files_median(d->all[i], t, &flagged) / best_small[t]
					  : (c->has ? c->cmp.ratio : NAN);

		if (c->partial)
			in.complete = false;
		if (c->aside)
			in.aside |= c->flags & RP_FLAGS_ASIDE;
		if (isnan(ratio) && flagged) { /* only flagged small files: set aside, not missing */
			in.aside |= flagged;
			continue;
		}
		if (isnan(ratio) || !(ratio > 0)) {
			in.complete = false;
			continue;
		}
		lsum += log(ratio);
		k++;
	}
	in.score = k ? exp(lsum / (double)k) : NAN;
	return in;
}

/* The runner-up ri against the winner wi in each test of ft, in the
 * matrix's family (every pair of a test is in it). */
static void sm_calls(const struct rp_summary *s, unsigned ft, size_t wi, size_t ri,
		     struct rp_fam_calls *k)
{
	RP_FOR_TESTS(t, ft) {
		struct rp_cmp c;

		if (!rp_sum_pair(s, t, ri, wi, &c) || !c.tested)
			k->untested++;
		else if (c.dir == RP_DIR_SLOWER)
			k->slower++;
		else if (c.dir == RP_DIR_FASTER)
			k->faster++;
		else if (c.dir == RP_DIR_EQUIVALENT)
			k->equivalent++;
		else {
			k->inconclusive++;
			k->resolve = fmax(k->resolve, c.resolve);
		}
	}
}

/* "; left out: reread, freread (every figure flagged: page cache, FUSE)"
 * for the tests in out, whose every figure is flagged (flags: the union of
 * their flags), into buf ("" none). */
static char *sm_left_out(unsigned out, unsigned flags, char *buf, size_t len)
{
	buf[0] = '\0';
	RP_FOR_TESTS(t, out)
		fslab_catf(buf, len, "%s%s", buf[0] ? ", " : "; left out: ", fslab_test_to_string(t));
	if (!buf[0] || strlen(buf) + 1 >= len)
		return buf;
	fslab_catf(buf, len, " (every figure flagged:");
	for (size_t i = 0, n = 0; i < rp_n_flags; i++)
		if (flags & rp_flag_table[i].bit)
			fslab_catf(buf, len, "%s %s", n++ ? "," : "", rp_flag_table[i].words);
	if (flags & RP_FLAG_OTHER)
		fslab_catf(buf, len, ", a flag this report does not know");
	return fslab_catf(buf, len, ")");
}

/* Family f's verdict line into s->verdict[f]; in holds n_all entries.
 * Inferential (each test's simultaneous intervals, sm_calls) on the
 * family's tests in the run, or descriptive (small files without its
 * many-files tests: medians of the unflagged cells with small files).
 * A test whose every figure (descriptive: every small-file cell) is
 * flagged is left out, and named: it measured what no filesystem's device
 * did (cold mode's reread: the page cache). */
static void sm_family(struct rp_summary *s, const struct rp_data *d, int f, struct rp_fam_in *in)
{
	bool descriptive;
	unsigned ft = rp_family_tests(f, s->tests, &descriptive);
	unsigned out = 0, out_flags = 0;
	double best_small[FSLAB_TEST_MAX];
	size_t nt = 0, wi, ri;
	char fam[128], left[256];

	if (descriptive) {
		sm_best_small(d, ft, best_small, &out, &out_flags);
	} else {
		out = ft & s->all_flagged;
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			for (size_t i = 0; i < s->n && (out & (1u << t)); i++)
				out_flags |= rp_sum_cell(s, t, i)->flags & RP_FLAGS_ASIDE;
	}
	ft &= ~out;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		nt += !!(ft & (1u << t));
	s->family_present[f] = nt > 0 || out;
	sm_left_out(out, out_flags, left, sizeof(left));
	if (!nt) {
		if (out)
			snprintf(s->verdict[f], sizeof(s->verdict[f]), "%s: no verdict%s", sm_families[f].name,
				 left);
		return;
	}
	for (size_t i = 0; i < d->n_all; i++)
		in[i] = sm_family_score(s, d, i, ft, descriptive ? best_small : NULL);
	struct rp_fam_calls k = { .n_tests = nt, .delta = s->delta, .descriptive = descriptive };
	sm_top_two(in, d->n_all, &wi, &ri);
	if (wi != SIZE_MAX && ri != SIZE_MAX && !descriptive)
		sm_calls(s, ft, wi, ri, &k);
	rp_family_verdict(sm_family_label(f, ft, descriptive, fam, sizeof(fam)), in, d->n_all, &k,
			  s->verdict[f], sizeof(s->verdict[f]));
	fslab_catf(s->verdict[f], sizeof(s->verdict[f]), "%s", left);
}

static void sm_verdicts(struct rp_summary *s, const struct rp_data *d)
{
	struct rp_fam_in *in = calloc(d->n_all ? d->n_all : 1, sizeof(*in));

	if (!in)
		return;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		sm_family(s, d, f, in);
	free(in);
}

/* The variance pool of entry e in test t: its run's test. */
static size_t rp_pool(const struct rp_data *d, const struct rp_entry *e, int t)
{
	return (size_t)(e->run - d->runs) * FSLAB_TEST_MAX + (size_t)t;
}

/* Change c in each test: per side (0 a's, 1 b's) its runs' scores (each
 * its plateau's mean log trial score) as one estimate whose variance is
 * their spread - the noise between fresh setups, the trials' included
 * (NaN with one run) - into est[t][0..1]; the flags, partial, has. */
static void sm_change_pair(const struct rp_data *d, struct rp_change *c, unsigned tests,
			   struct rp_est est[FSLAB_TEST_MAX][2])
{
	RP_FOR_TESTS(t, tests) {
		for (int k = 0; k < 2; k++) {
			const struct rp_entry *x = k ? c->b : c->a;
			struct rp_est *es = &est[t][k];
			double sum = 0, sq = 0;

			*es = (struct rp_est){ .s2b = NAN, .pool = SIZE_MAX };
			for (size_t i = 0; i < d->n_all; i++) {
				const struct rp_entry *e = d->all[i];
				struct rp_score sc = { 0 };

				if (e->run->side == x->run->side && strcmp(e->fs, x->fs) == 0 &&
				    rp_plateau(e, t, &sc) == 0 && isfinite(sc.lmean)) {
					es->n++;
					sum += sc.lmean;
					sq += sc.lmean * sc.lmean;
					c->t[t].flags |= sc.flags & RP_FLAGS_ASIDE;
					c->t[t].partial |= e->partial[t];
				}
				rp_score_free(&sc);
			}
			es->lmean = sum / (double)es->n; /* NaN without a run */
			es->df = (double)es->n - 1;
			es->s2 = es->n >= 2 ? fmax(0, (sq - sum * es->lmean) / es->df) : NAN;
		}
		c->t[t].has = est[t][0].n && est[t][1].n;
	}
}

/* "b1" for a side of one run, "b1+2" for b1 and two more. */
static void sm_side_tag(const struct rp_data *d, const struct rp_entry *e, char *buf, size_t len)
{
	unsigned more = 0;

	for (size_t r = 0; r < d->n_runs; r++)
		more += d->runs[r].side == e->run->side && &d->runs[r] != e->run;
	snprintf(buf, len, more ? "%s+%u" : "%s", e->run->tag, more);
}

/* The change matrix's family: every cell with a testable pair; then each
 * cell's interval and verdict. */
static void sm_changes_compare(struct rp_summary *s, struct rp_est (*est)[FSLAB_TEST_MAX][2])
{
	size_t m = 0;

	for (size_t i = 0; i < s->n_chg; i++)
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			m += s->chg[i].t[t].has && rp_est_testable(&est[i][t][0]) &&
			     rp_est_testable(&est[i][t][1]);
	s->n_chg_comparisons = m;
	for (size_t i = 0; i < s->n_chg; i++)
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			if (s->chg[i].t[t].has)
				rp_compare(&est[i][t][1], &est[i][t][0], m, s->delta,
					   &s->chg[i].t[t].cmp);
			else
				s->chg[i].t[t].cmp = sm_no_cmp;
}

/* Appends "what 'a' -> 'b'" to s->differs when a and b differ; whether
 * they do (a value one manifest does not record is no difference). */
static bool sm_differ(struct rp_summary *s, const char *what, const char *a, const char *b)
{
	if (strcmp(a, b) == 0 || strcmp(a, "unknown") == 0 || strcmp(b, "unknown") == 0)
		return false;
	char item[512]; /* once, though several runs of a side differ alike */

	snprintf(item, sizeof(item), "%s '%s' -> '%s'", what, a, b);
	if (!strstr(s->differs, item) && strlen(s->differs) + 40 < sizeof(s->differs))
		fslab_catf(s->differs, sizeof(s->differs), "%s%s", s->differs[0] ? "; " : "", item);
	return true;
}

/* Entry e's record in its manifest (live: its live.start, what the kernel
 * showed), or NULL; has_info: the parsed manifest has it, in an array. */
static json_object *sm_fs_rec(const struct rp_entry *e, bool live)
{
	json_object *v, *f = json_object_array_get_idx(json_object_object_get(e->run->manifest, "filesystems"),
						      (size_t)e->info.run_index);

	return !live ? f : json_object_object_get_ex(f, "live", &v) && json_object_object_get_ex(v, "start", &v) ? v : NULL;
}

/* The text of key in o, a number as written; "unknown": absent. */
static const char *sm_str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "unknown";
}

/* What differs between the first run and each later one: the host, kernel
 * and cache mode and, per filesystem in both, its record's and the kernel's
 * facts; in s->unlike the first filesystem whose type or device is not the
 * same (not one filesystem measured twice). */
static void sm_differences(struct rp_summary *s, const struct rp_data *d)
{
	static const struct { const char *what, *key; bool live, unlike; } row[] = {
		{ "type", "type", true, true }, { "device", "device_model", false, true },
		{ "device serial", "device_serial", false, true }, { "device size", "device_size_bytes", false, false },
		{ "mkfs options", "mkfs_options", false, false }, { "mount options", "mount_options", false, false },
		{ "live mount options", "options", true, false }, { "superblock features", "features", true, false },
	}; /* not the UUID: each fresh mkfs has its own, and a side is fresh setups */
	static const char *const machine[] = { "hostname", "kernel" };
	const struct rp_run *a = &d->runs[0];

	for (size_t r = 1; r < d->n_runs; r++) {
		const struct rp_run *b = &d->runs[r];
		char what[160];

		for (int k = 0; k < 2; k++) {
			snprintf(what, sizeof(what), "%s/%s %s", b->tag, a->tag, machine[k]);
			sm_differ(s, what, rp_json_str(a->manifest, "machine", machine[k], "unknown"),
				  rp_json_str(b->manifest, "machine", machine[k], "unknown"));
		}
		snprintf(what, sizeof(what), "%s/%s cache mode", b->tag, a->tag);
		sm_differ(s, what, a->cache, b->cache);
		for (size_t i = 0; i < b->n_entries; i++)
			for (size_t j = 0; j < a->n_entries; j++) {
				const struct rp_entry *eb = &b->entries[i], *ea = &a->entries[j];
				bool unlike = false;

				if (strcmp(ea->fs, eb->fs) != 0 || !ea->has_info || !eb->has_info)
					continue;
				json_object *ra = sm_fs_rec(ea, false), *rb = sm_fs_rec(eb, false);
				json_object *la = sm_fs_rec(ea, true), *lb = sm_fs_rec(eb, true);
				if (!la || !lb) /* the kernel's view where both runs recorded it */
					la = ra, lb = rb;
				for (size_t k = 0; k < sizeof(row) / sizeof(row[0]); k++) {
					snprintf(what, sizeof(what), "%s %s", eb->fs, row[k].what);
					unlike |= sm_differ(s, what, sm_str(row[k].live ? la : ra, row[k].key),
							    sm_str(row[k].live ? lb : rb, row[k].key)) && row[k].unlike;
				}
				if (unlike && !s->unlike[0])
					snprintf(s->unlike, sizeof(s->unlike), "%s is %s on '%s' in %s but %s on '%s' in %s: not the same filesystem on the same device; compare runs of one filesystem and device, give the other its own name, or give --compare-different to compare them anyway",
						 eb->fs, sm_str(la, "type"), sm_str(ra, "device_model"), a->tag,
						 sm_str(lb, "type"), sm_str(rb, "device_model"), b->tag);
			}
	}
}

/* Each later side's filesystems against the same names in the first side;
 * a comparison when every entry has its name on every side. */
static void sm_changes(struct rp_summary *s, const struct rp_data *d)
{
	if (d->n_sides < 2)
		return;
	sm_differences(s, d);
	struct rp_est (*est)[FSLAB_TEST_MAX][2] = calloc(d->n_all ? d->n_all : 1, sizeof(*est));

	s->chg = calloc(d->n_all ? d->n_all : 1, sizeof(*s->chg));
	if (!s->chg || !est) {
		free(est);
		return;
	}
	s->comparison = true;
	for (size_t j = 0; j < d->n_all; j++) {
		const struct rp_entry *b = d->all[j], *a = NULL, *first = NULL;
		unsigned on = 0; /* the sides that have b's filesystem */

		for (size_t i = 0; i < d->n_all; i++)
			if (strcmp(d->all[i]->fs, b->fs) == 0) {
				on |= 1u << d->all[i]->run->side;
				a = !a && d->all[i]->run->side == 0 ? d->all[i] : a;
				first = !first && d->all[i]->run->side == b->run->side ? d->all[i] : first;
			}
		s->comparison &= on == (1u << d->n_sides) - 1;
		if (!a || b->run->side == 0 || first != b)
			continue;
		struct rp_change *c = &s->chg[s->n_chg++];
		c->a = a;
		c->b = b;
		sm_side_tag(d, a, c->tag_a, sizeof(c->tag_a));
		sm_side_tag(d, b, c->tag_b, sizeof(c->tag_b));
		sm_change_pair(d, c, s->tests, est[s->n_chg - 1]);
	}
	sm_changes_compare(s, est);
	free(est);
}

/* Appends "ext4 write 0.79 [0.78-0.81]" to the list in buf. */
static void sm_chg_name(char *buf, size_t len, const struct rp_change *c, int t)
{
	char ci[64];

	fslab_catf(buf, len, "%s%s %s %s", buf[0] ? ", " : "", c->b->fs, fslab_test_to_string(t),
		rp_fmt_ratio_ci(&c->t[t].cmp, "-", ci, sizeof(ci)));
}

/* ": every cell skipped: WHY" when every row of e was skipped for one
 * reason (fat32 in direct mode: a FUSE mount does not reach the device),
 * so the banner says why there is no data; "" otherwise. */
static const char *sm_all_skipped_why(const struct rp_entry *e, char *why, size_t len)
{
	const char *p = NULL;

	if (e->n_rows == 0 || e->n_skipped != e->n_rows)
		return "";
	for (size_t i = 0; i < e->n_cells && !p; i++)
		p = e->cells[i].problem;
	if (!p || !p[0])
		return ": every cell skipped";
	if (strncmp(p, "skipped: ", 9) == 0)
		p += 9;
	snprintf(why, len, ": every cell skipped: %s", p);
	return why;
}

/* Family f between the runs: per later run, the change matrix's cells of
 * the family's tests named when they regressed or improved, the others
 * counted - "sequential write, after / before: regressed ext4 write 0.79
 * [0.78-0.81]; improved nothing; equivalent 2, inconclusive 0 of 3 cells". */
static void sm_change_family(struct rp_summary *s, const struct rp_data *d, int f)
{
	bool descriptive;
	unsigned ft;
	char fam[128];

	s->n_chg_verdict[f] = 0;
	ft = rp_family_tests(f, s->tests, &descriptive);
	if (descriptive || !ft) /* a description compares nothing between runs */
		return;
	sm_family_label(f, ft, false, fam, sizeof(fam));
	for (unsigned r = 1; r < d->n_sides; r++) {
		char down[256] = "", up[256] = "", first[72] = "", later[72] = "";
		size_t k[RP_DIR_UNTESTED + 1] = { 0 }, cells = 0; /* the cells by verdict */

		for (size_t i = 0; i < s->n_chg; i++) {
			const struct rp_change *c = &s->chg[i];

			if (c->b->run->side != r)
				continue;
			snprintf(first, sizeof(first), "%s", c->tag_a);
			snprintf(later, sizeof(later), "%s", c->tag_b);
			RP_FOR_TESTS(t, ft) if (c->t[t].has) {
				enum rp_dir dir = c->t[t].cmp.dir;

				cells++;
				/* the first 4 named, the others counted */
				if (k[dir]++ < 4 && (dir == RP_DIR_SLOWER || dir == RP_DIR_FASTER))
					sm_chg_name(dir == RP_DIR_SLOWER ? down : up, sizeof(down), c, t);
			}
		}
		size_t nd = k[RP_DIR_SLOWER], nu = k[RP_DIR_FASTER], eq = k[RP_DIR_EQUIVALENT],
		       open = k[RP_DIR_INCONCLUSIVE], untested = cells - nd - nu - eq - open;
		size_t md = nd > 4 ? nd - 4 : 0, mu = nu > 4 ? nu - 4 : 0;
		if (!cells)
			continue;
		char tail[96] = "";
		if (untested)
			snprintf(tail, sizeof(tail), ", not tested %zu", untested);
		snprintf(s->chg_verdict[f][s->n_chg_verdict[f]++], sizeof(s->chg_verdict[f][0]),
			 "%s, %s / %s: regressed %s%s%.0zu%s; improved %s%s%.0zu%s; equivalent %zu, "
			 "inconclusive %zu%s of %zu cell%s",
			 fam, later, first, nd ? down : "nothing",
			 md ? " and " : "", md, md ? " more" : "", nu ? up : "nothing", mu ? " and " : "",
			 mu, mu ? " more" : "", eq, open, tail, cells, cells == 1 ? "" : "s");
	}
}

static void sm_banners(struct rp_summary *s, const struct rp_data *d)
{
	size_t ok = 0, pc = 0;

	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];
		bool any_partial = false;

		for (size_t k = 0; k < e->n_cells; k++) {
			ok += e->cells[k].n_ok > 0;
			pc += e->cells[k].n_ok > 0 && (e->cells[k].flags & RP_FLAG_PAGE_CACHE);
		}
		if (e->n_flag_fuse || e->type == FSLAB_FS_FAT32) {
			s->fuse = true;
			sm_name(s->fuse_names, sizeof(s->fuse_names), 80, "%s", e->label);
		}
		if (e->n_flag_loop) {
			s->buffered_loop = true;
			sm_name(s->loop_names, sizeof(s->loop_names), 80, "%s", e->label);
		}
		if (e->has_info && e->info.steady_not_reached) {
			s->unsteady = true;
			sm_name(s->unsteady_names, sizeof(s->unsteady_names), 80, "%s", e->label);
		}
		if (e->has_info && e->info.drive_hot[0]) {
			s->hot = true;
			sm_name(s->hot_names, sizeof(s->hot_names), 300, "%s (%s)", e->label, e->info.drive_hot);
		}
		for (int t = 0; t < FSLAB_TEST_MAX; t++)
			any_partial |= e->partial[t];
		if (any_partial || e->n_cells == 0 || e->n_samples == 0) {
			char why[400];

			s->incomplete = true;
			sm_name(s->incomplete_names, sizeof(s->incomplete_names), 100, "%s (%s%s)", e->label,
				e->n_samples == 0 ? "no data" : "partial data", sm_all_skipped_why(e, why, sizeof(why)));
		}
	}
	for (size_t r = 0; r < d->n_runs; r++) {
		const struct rp_run *run = &d->runs[r];

		if (run->interrupted) {
			s->interrupted = true;
			fslab_catf(s->stop_text, sizeof(s->stop_text), "%s%s was interrupted after %u complete trial%s of the "
				   "%u it was started with%s: the tables rank the trials measured. To finish it: fslab run --resume %s",
				   s->stop_text[0] ? "; " : "", run->dir, run->done, run->done == 1 ? "" : "s", run->trials,
				   run->trial_cap > run->trials ? " (more where a comparison was undecided)" : "",
				   run->dir);
		}
		for (size_t k = 0; k < run->n_missing; k++) {
			s->incomplete = true;
			sm_name(s->incomplete_names, sizeof(s->incomplete_names), 100, "%s (no data)", run->missing[k]);
		}
	}
	if (s->buffered_loop) {
		bool one = !strchr(s->loop_names, ',');
		snprintf(s->loop_text, sizeof(s->loop_text),
			 "%s: measured on %s; %s figures may be the host's page cache (set aside, never "
			 "the best while an unflagged figure exists). To measure the disk: an image where "
			 "the loop device gets direct I/O (docs/ssd.md), or a real disk",
			 s->loop_names, one ? "a buffered loop device" : "buffered loop devices",
			 one ? "its" : "their");
	}
	s->ok_cells = ok;
	s->pc_cells = pc;
	s->pc_frac = ok ? (double)pc / (double)ok : 0;
}

/* Numbers the entries (rp_entry.idx) and finds the most and fewest
 * trials of any entry with data. */
static void sm_trials(struct rp_summary *s, struct rp_data *d)
{
	s->min_trials = UINT_MAX;
	for (size_t i = 0; i < d->n_all; i++) {
		d->all[i]->idx = i;
		if (d->all[i]->max_trial > s->max_trials)
			s->max_trials = d->all[i]->max_trial;
		if (d->all[i]->n_samples && d->all[i]->max_trial < s->min_trials)
			s->min_trials = d->all[i]->max_trial;
	}
	if (s->min_trials == UINT_MAX)
		s->min_trials = 0;
}

/* Test t's column of the matrix from its ranking: rank, scores, flags;
 * the scores into sc (n_all per test) for the prior. */
static void sm_matrix_test(struct rp_summary *s, enum fslab_test t,
			   struct rp_score *sc)
{
	const struct rp_ranking r = s->rank[t];

	if (r.n || r.n_partial)
		s->tests |= 1u << t;
	if (r.n || r.n_partial || r.n_unranked)
		s->shown |= 1u << t;
	if (r.n)
		s->best[t] = r.rows[0].e->idx;
	bool unflagged = r.n_partial > 0; /* a partial entry's flags are not known here */
	for (size_t k = 0; k < r.n; k++)
		unflagged |= !(r.rows[k].s.flags & RP_FLAGS_ASIDE);
	if (r.n && !unflagged)
		s->all_flagged |= 1u << t;
	for (size_t k = 0; k < r.n; k++) {
		struct rp_mcell *c = rp_sum_cell(s, t, r.rows[k].e->idx);

		c->has = true;
		c->partial = r.rows[k].e->partial[t];
		c->aside = r.rows[k].aside;
		c->rank = k + 1;
		c->median = r.rows[k].s.median;
		c->score = r.rows[k].s.score;
		c->flags = r.rows[k].s.flags;
		c->other = r.rows[k].e->other_flags;
		c->n_trials = r.rows[k].s.n_trials;
		/* the score (and its trials, for the blocked variance), the ranking's */
		sc[(size_t)t * s->n + r.rows[k].e->idx] = r.rows[k].s;
	}
	for (size_t k = 0; k < r.n_partial; k++)
		rp_sum_cell(s, t, r.partial[k]->idx)->partial = true;
}

/* The variance model over every ranked score, each cell's estimate, the
 * family's size and each cell's comparison with its test's best.  0 or
 * -ENOMEM. */
static int sm_matrix_compare(struct rp_summary *s, const struct rp_data *d, const struct rp_score *sc)
{
	size_t n = s->n * FSLAB_TEST_MAX, np = 0;
	struct rp_vm_in *in = malloc((n ? n : 1) * sizeof(*in));

	s->vm = malloc(sizeof(*s->vm));
	if (!in || !s->vm) {
		free(in);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		if (s->m[k].has)
			in[np++] = (struct rp_vm_in){ &sc[k], rp_pool(d, d->all[k % s->n], (int)(k / s->n)),
						      k % s->n };
	rp_varmodel_fit(in, np, d->n_runs * FSLAB_TEST_MAX, s->vm);
	free(in);
	s->n_comparisons = 0;
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		size_t testable = 0;

		for (size_t i = 0; i < s->n; i++) {
			struct rp_mcell *c = rp_sum_cell(s, t, i);

			if (!c->has)
				continue;
			rp_est_of(&sc[(size_t)t * s->n + i], s->vm, rp_pool(d, d->all[i], t), i, &c->est);
			testable += rp_est_testable(&c->est);
		}
		s->n_comparisons += testable * (testable - (testable > 0)) / 2;
	}
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		for (size_t i = 0; i < s->n; i++) {
			struct rp_mcell *c = rp_sum_cell(s, t, i);

			if (c->has && c->rank == 1) { /* no interval of the best against itself */
				c->cmp.ratio = 1;
				c->cmp.dir = RP_DIR_BEST;
			} else if (c->has) {
				rp_sum_pair(s, t, i, s->best[t], &c->cmp);
			}
		}
	return 0;
}

bool rp_sum_pair(const struct rp_summary *s, int t, size_t i, size_t j, struct rp_cmp *c)
{
	if (t < 0 || t >= FSLAB_TEST_MAX || i >= s->n || j >= s->n)
		return false;
	const struct rp_mcell *x = rp_sum_cell(s, t, i), *y = rp_sum_cell(s, t, j);

	if (!x->has || !y->has)
		return false;
	rp_compare(&x->est, &y->est, s->n_comparisons, s->delta, c);
	return true;
}

/* The one verdict of b against a in test t: the change matrix's cell when
 * the pair is one of its columns, else the matrix family's pair (every
 * pair of a test is in it) - never a second test of the same pair. */
static void rk_same_fs_cmp(const struct rp_data *d, const struct rp_entry *a,
			   const struct rp_entry *b, enum fslab_test t, struct rp_cmp *c)
{
	const struct rp_summary *s = d->sum;

	*c = sm_no_cmp;
	c->dir = RP_DIR_UNTESTED;
	if (!s)
		return;
	for (size_t i = 0; i < s->n_chg; i++)
		if (s->chg[i].a == a && s->chg[i].b == b && s->chg[i].t[t].has) {
			*c = s->chg[i].t[t].cmp;
			return;
		}
	rp_sum_pair(s, t, b->idx, a->idx, c);
}

/* Entries a and b (one filesystem in two runs) in each test they both
 * have a plateau in, appended to rows (*n of them). */
static void rk_same_fs_pair(const struct rp_data *d, const struct rp_entry *a,
			    const struct rp_entry *b, unsigned tests, struct rp_same_fs *rows, size_t *n)
{
	RP_FOR_TESTS(t, tests) {
		struct rp_score sa = { 0 }, sb = { 0 };

		if (rp_plateau(a, t, &sa) == 0 && rp_plateau(b, t, &sb) == 0) {
			rows[*n] = (struct rp_same_fs){
				.a = a, .b = b, .test = t, .median_a = sa.score, .median_b = sb.score,
			};
			rk_same_fs_cmp(d, a, b, t, &rows[(*n)++].cmp);
		}
		rp_score_free(&sa);
		rp_score_free(&sb);
	}
}

/* Every pair of entries of one filesystem name in two runs (in entry
 * order) and test of tests with a plateau on both sides: counted, then
 * filled into *rows (malloc'd).  0 or -ENOMEM. */
static int rp_same_fs_rows(const struct rp_data *d, unsigned tests, struct rp_same_fs **rows, size_t *n)
{
	size_t cap = 0;

	if (d->n_sides > 1 && d->n_sides < d->n_runs) /* sides of several runs: the change matrix */
		return 0;
	for (int fill = 0; fill < 2; fill++) {
		if (fill && !(*rows = calloc(cap ? cap : 1, sizeof(**rows))))
			return -ENOMEM;
		for (size_t i = 0; i < d->n_all; i++)
			for (size_t j = i + 1; j < d->n_all; j++) {
				const struct rp_entry *a = d->all[i], *b = d->all[j];

				if (a->run == b->run || strcmp(a->fs, b->fs) != 0)
					continue;
				if (fill)
					rk_same_fs_pair(d, a, b, tests, *rows, n);
				else
					cap += (size_t)__builtin_popcount(tests);
			}
	}
	return 0;
}

int rp_summary_build(struct rp_data *d, unsigned tests, double delta)
{
	struct rp_summary *s = calloc(1, sizeof(*s));
	size_t n = d->n_all;
	struct rp_score *sc = calloc((n ? n : 1) * FSLAB_TEST_MAX, sizeof(*sc));
	unsigned fam[RP_N_FAMILIES];
	int rc = 0;

	if (!s || !sc || !(s->m = calloc((n ? n : 1) * FSLAB_TEST_MAX, sizeof(*s->m)))) {
		free(sc);
		rp_summary_free(s);
		return -ENOMEM;
	}
	s->n = n;
	s->delta = delta;
	sm_trials(s, d);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		s->best[t] = SIZE_MAX;
	for (size_t k = 0; k < n * FSLAB_TEST_MAX; k++) {
		s->m[k].median = s->m[k].score = NAN;
		s->m[k].cmp = sm_no_cmp;
		s->m[k].est = (struct rp_est){ .lmean = NAN, .s2 = NAN, .df = NAN, .s2b = NAN,
					       .dfb = NAN, .pool = SIZE_MAX };
	}
	for (int t = 0; t < FSLAB_TEST_MAX && rc == 0; t++)
		rc = rp_rank(d, t, &s->rank[t]);
	for (int t = 0; t < FSLAB_TEST_MAX && rc == 0; t++)
		if (tests & (1u << t))
			sm_matrix_test(s, t, sc);
	if (rc == 0)
		rc = sm_matrix_compare(s, d, sc);
	free(sc);
	if (rc == 0) {
		sm_verdicts(s, d);
		sm_changes(s, d);
		for (int f = 0; f < RP_N_FAMILIES; f++) {
			sm_change_family(s, d, f);
			fam[f] = sm_families[f].tests;
		}
		sm_banners(s, d);
	}
	if (rc < 0 || rp_dev_build(s, d, fam) < 0 || rp_bands_build(s, d, fam) < 0 ||
	    rp_latency_build(s, d, tests) < 0 ||
	    rp_cdm_build(d, tests, &s->cdm) < 0) {
		rp_summary_free(s);
		return -ENOMEM;
	}
	d->sum = s;
	return rp_same_fs_rows(d, tests, &s->same_fs, &s->n_same_fs);
}

void rp_summary_free(struct rp_summary *s)
{
	if (!s)
		return;
	rp_cdm_free(&s->cdm);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		rp_ranking_free(&s->rank[t]);
	free(s->same_fs);
	free(s->dev.test);
	free(s->dev.fam);
	free(s->m);
	free(s->lat);
	free(s->chg);
	free(s->vm);
	free(s);
}

struct rp_mcell *rp_sum_cell(const struct rp_summary *s, int t, size_t i)
{
	return &s->m[(size_t)t * s->n + i];
}
