/* When fslab run stops repeating a test of a file x record cell: the
 * stopping rules of --stop, and the default one's judgement of one test
 * from its trials so far.  Pure functions of the numbers given (no I/O),
 * so tests/bench/test_stop_rule.c drives them with synthetic series;
 * bench/run_stop.c applies them to the sweep.
 *
 * The default rule ("decided", docs/run.md "When the run stops"): after
 * each trial from the minimum on, each test's comparisons between the
 * filesystems are read off simultaneous intervals of their ratios (the
 * report's statistic: the difference of mean log scores, the trials as
 * blocks, lib/stats.h), at the nominal level of that look of a
 * group-sequential design (Lan-DeMets Pocock-type alpha spending over the
 * looks the trial cap allows, Bonferroni over the looks' increments and
 * over the test's pairs).  A test stops when every comparison is decided
 * (slower, faster or equivalent), a decision once made standing, or what
 * is left is futile: its conditional power, the chance that a look up to
 * the cap decides it were the present ratio and variance the true ones,
 * is below FSLAB_STOP_FUTILITY (undecidable). */
#ifndef FSLAB_BENCH_STOP_RULE_H
#define FSLAB_BENCH_STOP_RULE_H

#include <stddef.h>

#include "names.h"

const char *fslab_stop_rule_to_string(enum fslab_stop_rule r);
/* FSLAB_STOP_RULE_INVALID for an unknown name. */
enum fslab_stop_rule fslab_stop_rule_from_string(const char *s);

/* Why a test of a cell stopped getting trials (the manifest's words). */
enum fslab_stop_why {
	FSLAB_STOP_OPEN,        /* "open": still getting trials */
	FSLAB_STOP_DECIDED,     /* "decided": every comparison decided */
	FSLAB_STOP_UNDECIDABLE, /* "undecidable": the rest cannot be decided by the cap */
	FSLAB_STOP_MAX_TRIALS,  /* "max_trials": the cap came first */
	FSLAB_STOP_NO_DATA,     /* "no_data": no filesystem measured it (failed or skipped) */
	FSLAB_STOP_WHY_MAX,
};
const char *fslab_stop_why_to_string(enum fslab_stop_why w);

/* The futility threshold of the decided rule: a comparison whose chance
 * of being decided at a look still to come (its conditional power on the
 * present estimate) is below this is undecidable. */
#define FSLAB_STOP_FUTILITY 0.2
/* Looks the futility judgement weighs at most (evenly spaced up to the
 * cap when more are left). */
#define FSLAB_STOP_LOOKS_MAX 32

struct fslab_stop_params {
	double alpha;          /* family-wise error over the looks (FSLAB_FAMILY_ALPHA) */
	double delta;          /* equivalence margin (FSLAB_EQUIVALENCE_DEFAULT) */
	double futility;       /* conditional power below which: undecidable (FSLAB_STOP_FUTILITY) */
	unsigned min_trials;   /* the first look, >= 2 */
	unsigned max_trials;   /* the cap (the last look), >= min_trials */
};

/* The error spent at the look after n trials: the spending function's
 * growth from the look before (all of it up to min_trials at the first
 * look); 0 outside min_trials..max_trials. */
double fslab_stop_look_alpha(const struct fslab_stop_params *p, unsigned n);

/* What the judgement of one test found. */
struct fslab_stop_tally {
	enum fslab_stop_why why;
	unsigned pairs;       /* comparisons judged */
	unsigned decided;     /* of them: slower, faster or equivalent */
	unsigned undecidable; /* of them: not decided and not decidable by the cap */
	unsigned wrong_way;   /* of the decided: slower or faster (for tests) */
};

/* Judges one test from y, ne filesystems x nk trials of log scores
 * (row-major; only trials every one of them measured).  words (may be
 * NULL) holds each pair's word (enum fslab_ratio_word, pairs (0,1), (0,2)
 * .. (1,2) ..; all FSLAB_RATIO_UNTESTED before the first look): a pair
 * decided at an earlier look stays decided, and one decided at this look
 * is written there, so a decision, once made, stands (ne(ne-1)/2 bytes,
 * the same filesystems in the same order at every look).  ne == 1: no
 * comparison exists, so the filesystem's own interval must resolve half
 * the margin (two such intervals resolve the margin); words is not used.
 * Sets t (may be NULL) and returns t->why.  nk >= max_trials turns "open"
 * into "max_trials". */
enum fslab_stop_why fslab_stop_judge(const struct fslab_stop_params *p, const double *y, size_t ne,
				     size_t nk, unsigned char *words, struct fslab_stop_tally *t);

#endif
