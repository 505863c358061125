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
 * is below FSLAB_STOP_FUTILITY (undecidable).  The judgement itself
 * (fslab_stop_judge) is statistics: lib/stats.h, with its tests in
 * tests/bench/test_stop_rule.c. */
#ifndef FSLAB_BENCH_STOP_RULE_H
#define FSLAB_BENCH_STOP_RULE_H

#include <stddef.h>

#include "stats.h"

/* --stop: how many trials a cell's test gets.  The names are what the
 * manifest records ("stop") and --stop takes. */
enum fslab_stop_rule {
	FSLAB_STOP_RULE_DECIDED, /* until its comparisons are decided or undecidable */
	FSLAB_STOP_RULE_CI,      /* --until-ci PCT: until each interval is narrow */
	FSLAB_STOP_RULE_FIXED,   /* --trials N, no more */
	FSLAB_STOP_RULE_MAX,
	FSLAB_STOP_RULE_INVALID = -1,
};
const char *fslab_stop_rule_to_string(enum fslab_stop_rule r);
/* FSLAB_STOP_RULE_INVALID for an unknown name. */
enum fslab_stop_rule fslab_stop_rule_from_string(const char *s);

/* Why a test of a cell stopped getting trials (enum fslab_stop_why,
 * lib/stats.h): the manifest's words. */
const char *fslab_stop_why_to_string(enum fslab_stop_why w);

#endif
