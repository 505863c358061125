/* fslab report: rank, compare and plot results directories; fslab import
 * and export: IOzone text reports to and from results directories.
 *
 * The command layer (cmd/report.c) and `fslab reproduce` fill a
 * struct fslab_report_opts and call fslab_report().  Everything the report
 * needs comes from the results contract (lib/results.h) and each directory's
 * manifest.json; docs/report.md describes the statistics and the output. */
#ifndef FSLAB_REPORT_H
#define FSLAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "names.h"

struct fslab_err;

#define FSLAB_REPORT_MAX_DIRS 16

enum fslab_report_format {
	FSLAB_REPORT_FORMAT_ALL,  /* text on stdout + the --out directory */
	FSLAB_REPORT_FORMAT_TEXT, /* text on stdout only; nothing written */
	FSLAB_REPORT_FORMAT_HTML, /* the --out directory only (report.html + plots) */
	FSLAB_REPORT_FORMAT_JSON, /* rankings, verdicts, changes as JSON on stdout only */
};

/* Which plots to draw (a mask). */
enum {
	FSLAB_REPORT_PLOT_SURFACE = 1 << 0, /* per filesystem x test, 3D */
	FSLAB_REPORT_PLOT_HEATMAP = 1 << 1, /* per filesystem x test */
	FSLAB_REPORT_PLOT_COMPARE = 1 << 2, /* per test, one line per filesystem */
	FSLAB_REPORT_PLOT_ALL = 7,
};

struct fslab_report_opts {
	const char *dirs[FSLAB_REPORT_MAX_DIRS]; /* results directories */
	size_t n_dirs;
	/* Output directory (created; replaced when it holds an earlier fslab
	 * report).  NULL: <dirs[0]>/report.  Unused with FORMAT_TEXT and JSON. */
	const char *out;
	enum fslab_report_format format;
	unsigned plots;        /* FSLAB_REPORT_PLOT_* mask; 0 = none */
	unsigned tests;        /* mask of enum fslab_test; 0 = all */
	uint64_t compare_record_kib; /* record size of the comparison charts; 0 = automatic */
	/* --claims: dirs[0] is the warm (2023-style) run, dirs[1..] the honest
	 * runs (cold/direct); adds the "2023 claims" section. */
	bool claims;
	FILE *text_out;        /* where the text report goes; NULL = stdout */
	/* --equivalence: two filesystems whose ratio's interval lies inside
	 * 1 +- equivalence are "equivalent" (a fraction; default 0.05) */
	double equivalence;
	/* --fail-on-regression, for git bisect run: exit 1 when a test of the
	 * later side is slower by more than this fraction (its interval below
	 * 1 - it), 0 when no interval reaches below 1 - it, else 125 (cannot
	 * tell; also every error and a single side); negative: off (default) */
	double fail_on_regression;
	bool compare_different; /* --compare-different: a name of another type or device in a later run */
	/* The side of each of dirs (0 BEFORE, 1 AFTER, ...): a side's runs are
	 * fresh setups of one spec, their spread the between-run noise; the
	 * change matrix compares each later side with side 0.  Init: all 0 (a
	 * ranking, no change).  With two sides or more and no out, nothing is
	 * written (text on stdout). */
	unsigned side[FSLAB_REPORT_MAX_DIRS];
};

/* fslab report --fail-on-regression's exit status when it cannot tell */
#define FSLAB_REPORT_EXIT_CANNOT_TELL 125

/* Defaults: all formats, all plots, all tests, automatic record size. */
void fslab_report_opts_init(struct fslab_report_opts *o);

/* Parses a --plots list ("all", "none" or a comma list of surface, heatmap,
 * compare) into a mask; -EINVAL on an unknown word, named in e's message. */
int fslab_report_plots_parse(const char *list, unsigned *mask, struct fslab_err *e);

/* Produces the report.  Returns FSLAB_EXIT_OK, FSLAB_EXIT_USAGE (bad
 * input: missing/empty directory, malformed CSV or manifest; the message
 * names the file and line), FSLAB_EXIT_FAILURE (gnuplot or writing
 * failed); with --fail-on-regression 0, 1 or FSLAB_REPORT_EXIT_CANNOT_TELL
 * instead (the regressions named on stderr).  On failure e holds the message for the
 * caller to print; it is empty when the error was already printed
 * (gnuplot's failures, with its stderr) or memory ran out.  On any
 * error nothing is left in (or changed at) o->out. */
int fslab_report(const struct fslab_report_opts *o, struct fslab_err *e);

/* IOzone <-> fslab results: `fslab import iozone` and `fslab export iozone`.
 * Both return FSLAB_EXIT_* with, when it is not FSLAB_EXIT_OK, the error in
 * e for the command to print. */
struct fslab_import_opts {
	const char *report;    /* IOzone output (text report, with or without -R) */
	const char *fs;        /* filesystem name: writes <out>/<fs>.csv */
	const char *out;       /* results directory (created if missing) */
	enum fslab_cache_mode cache; /* for the rows and manifest (IOzone -a: warm) */
	bool force;            /* replace an existing <fs>.csv (never the report read
				* or a state file) */
	int argc;              /* the command line, recorded in manifest.json */
	char **argv;
};

/* Parses the report, then writes <out>/<fs>.csv (each cell one trial: a
 * value > 0 is an "ok" row, IOzone's 0 a "skipped: ..." row; cells absent
 * from the report get no row) and creates or extends <out>/manifest.json.
 * Both files are written atomically; nothing is written on bad input.  A
 * manifest.json that an earlier import with the same cache mode did not
 * write is refused, never rewritten. */
int fslab_import_iozone(const struct fslab_import_opts *o, struct fslab_err *e);

/* Writes one results CSV in IOzone's text report layout (plus the -R
 * section when excel) to out_path (atomically) or stdout when NULL.  Each
 * cell is the median of its ok trials; a cell without an ok trial is 0.
 * An existing out_path is replaced only with force, and never when it is
 * the CSV read or a lab state file. */
int fslab_export_iozone(const char *csv, const char *out_path, bool excel, bool force,
			struct fslab_err *e);

#endif
