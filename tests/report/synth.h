/* Synthetic experiments with a known truth, run through the real report
 * code: a results directory of CSVs is written from a chosen distribution,
 * loaded with rp_load and summarised with rp_summary_build, and every
 * ranked cell's verdict is scored against the truth and against its own
 * interval (numeric, as printed in a cell, and as the text matrix shows
 * it).  Used by the verdict harness (prints the figures) and by
 * test_report_synth (a fast check under ctest). */
#ifndef FSLAB_TESTS_REPORT_SYNTH_H
#define FSLAB_TESTS_REPORT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

enum synth_tails {
	SYNTH_NORMAL,  /* log-normal trial noise */
	SYNTH_T3,      /* Student's t with 3 degrees of freedom, scaled to the CV */
};

struct synth_cfg {
	unsigned n_fs;     /* filesystems (at most 8) */
	unsigned n_tests;  /* the first n_tests of fslab's 13 */
	unsigned trials;
	double cv;         /* trial-to-trial CV of a filesystem's score */
	double cv_hi;      /* > cv: each test draws its CV log-uniformly from [cv, cv_hi] */
	unsigned n_slow;   /* the last n_slow filesystems are slower ... */
	double slowdown;   /* ... by this fraction in every test (0.1: 10%) */
	enum synth_tails tails;
	double outlier_p;  /* chance that a trial of one filesystem hiccups ... */
	double outlier;    /* ... to this fraction of its throughput (0.7) */
	double drift;      /* CV of a trial's effect shared by every filesystem */
	double noisy;      /* > 1: the first filesystem's trial CV is this many times the others' */
};

struct synth_tally {
	unsigned long experiments;
	unsigned long fw_false;     /* experiments with any false slower/faster call */
	unsigned long null_cmp, false_calls; /* comparisons of equal filesystems; called */
	unsigned long slow_cmp, slow_hits;   /* a slower filesystem against an equal best; called slower */
	unsigned long equivalent;   /* null comparisons called equivalent */
	unsigned long cells;        /* ranked non-best cells checked */
	unsigned long disagree;     /* cells whose shown interval and verdict disagree */
	double resolve_sum;         /* sum of the tested cells' resolvable fraction */
	unsigned long resolve_n;
	unsigned long band_false;   /* experiments with a false call on the by-file-size screen */
	unsigned long band_calls;   /* its verdicts called faster, and ... */
	unsigned long band_verdicts; /* ... all its leader-against-next verdicts */
};

/* Runs n experiments of cfg in fresh directories under tmp, seeded with
 * seed, adding to t.  0, or a negative errno (message printed). */
int synth_run(const struct synth_cfg *cfg, unsigned n, uint64_t seed, const char *tmp,
	      struct synth_tally *t);

#endif
