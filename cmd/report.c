/* fslab report: options into struct fslab_report_opts; report/ does the
 * work (fslab reproduce calls the same function). */
#include "commands.h"
#include "err.h"
#include "log.h"
#include "names.h"
#include "opts.h"
#include "fslab/report.h"
#include "size.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct fslab_cmd_opts fslab_report_cmd = {
	.name = "report",
	.synopsis = "Usage: fslab report RESULTS_DIR[,DIR...] [--out DIR] [--format all|text|html|json]\n"
		    "                    [--plots LIST] [--tests LIST] [--record SIZE] [--equivalence PCT]\n"
		    "       fslab report BEFORE_DIR[,DIR...] AFTER_DIR[,DIR...] [--fail-on-regression PCT]\n"
		    "       fslab report --claims WARM_DIR HONEST_DIR... [--out DIR]",
	.intro = "Ranks the filesystems of one or more results directories (fslab run or fslab\n"
		 "import iozone) per test by its large-file score; each comparison has one 95%\n"
		 "interval of the ratio, holding over all the report's comparisons, and the word\n"
		 "read off it: slower, faster, equivalent or inconclusive (not tested with one\n"
		 "trial).  Starts with the verdict: banners, a test x filesystem matrix, one line\n"
		 "per workload family.  Draws plots with gnuplot and writes one self-contained\n"
		 "report.html (and report.json).  Several operands are sides (BEFORE AFTER), each a\n"
		 "comma list of runs (fresh setups): the report is then the change per test, its\n"
		 "interval from the spread between runs, and writes nothing without --out.\n"
		 "See docs/report.md.\n",
	.opts = FSLAB_OPTS(
		{ "out", 'o', 'o', "DIR",
		  "output directory (default: the first RESULTS_DIR/report; none when comparing sides); built beside DIR and renamed "
		  "into place when complete; an existing DIR is replaced only when empty or an earlier "
		  "fslab report (its .fslab-report marker), else refused", 0 },
		{ "format", 'f', 'f', "F",
		  "all (default: text on stdout and DIR), text (stdout only, writes nothing), html (DIR "
		  "only), json (rankings, intervals, verdicts and changes on stdout; writes nothing)", 0 },
		{ "plots", 'p', 'p', "LIST",
		  "all (default), none, or a comma list of surface, heatmap, compare", 0 },
		{ "tests", 't', 't', "LIST", "all (default) or a comma list of tests (write,read,...)", 0 },
		{ "record", 'r', 'r', "SIZE",
		  "record size of the by-file-size charts (default: the record size measured at the most "
		  "file sizes)", 0 },
		{ "equivalence", 0, 0, "PCT",
		  "call two filesystems equivalent when their ratio's simultaneous interval lies inside "
		  "1 +- PCT% (default 5)", 0 },
		{ "fail-on-regression", 0, 0, "PCT",
		  "for git bisect run: exit 1 when a test of AFTER is slower than BEFORE by more than PCT% "
		  "(its interval below 1 - PCT%), 0 when no test's interval reaches below 1 - PCT%, else "
		  "125 (cannot tell; also 1 run per side and every error)", 0 },
		{ "compare-different", 0, 0, NULL,
		  "compare a filesystem with a later run's of the same name on another type or device", 0 },
		{ "claims", 0, 0, NULL,
		  "the first directory is a warm (2023-style) run, the others honest runs (cold/direct, "
		  "not warm): add the section that checks the 2023 report's claims one by one", 0 }),
	.operands = true,
	.outro = "Exit status: 0 done, 1 failure (gnuplot, writing), 2 bad usage or bad input.\n"
		 "With --fail-on-regression (git bisect run): 0 not regressed, 1 regressed, 125\n"
		 "cannot tell (inconclusive, 1 run per side, flagged-only tests, any error).\n",
};

/* A percentage for option name: lo <= PCT < 100 (lo_open: lo < PCT), as a
 * fraction into *frac; 0 or -1 after a message. */
static int parse_pct(const char *name, const char *arg, double lo, bool lo_open, double *frac)
{
	double v;

	if (fslab_parse_decimal(arg, &v) < 0 || !(v < 100) || (lo_open ? !(v > lo) : !(v >= lo)))
		return fslab_fail(-1, "%s '%s': give a percentage %s %g and below 100 (e.g. 5)", name, arg,
				  lo_open ? "above" : "from", lo);
	*frac = v / 100;
	return 0;
}

/* The values the table cannot check into o: arg holds --format, --plots,
 * --tests, --record, --equivalence and --fail-on-regression (NULL: not
 * given).  0 or -1 after a message. */
static int report_values(const char *const *arg, struct fslab_report_opts *o)
{
	static const char *const formats[] = { "all", "text", "html", "json" }; /* the enum's order */
	char bad[64], why[320];
	struct fslab_err e = FSLAB_ERR_INIT;
	uint64_t bytes;
	int i = arg[0] ? fslab_name_index(formats, 4, arg[0]) : (int)o->format;

	if (i < 0)
		return fslab_fail(-1, "--format '%s': use all, text, html or json", arg[0]);
	o->format = (enum fslab_report_format)i;
	if (arg[1] && fslab_report_plots_parse(arg[1], &o->plots, &e) < 0)
		return fslab_fail(-1, "%s", fslab_err_msg(&e));
	if (arg[2] && (fslab_tests_parse(arg[2], &o->tests, bad, sizeof(bad)) < 0 || !o->tests))
		return fslab_fail(-1, "--tests '%s': %s", arg[2], fslab_tests_problem(bad, why, sizeof(why)));
	if (arg[3]) {
		if (fslab_opt_size("--record", arg[3], &bytes) < 0)
			return -1;
		if (bytes % 1024)
			return fslab_fail(-1, "--record '%s': not a whole number of KiB", arg[3]);
		o->compare_record_kib = bytes / 1024;
	}
	if ((arg[4] && parse_pct("--equivalence", arg[4], 0, true, &o->equivalence) < 0) ||
	    (arg[5] && parse_pct("--fail-on-regression", arg[5], 0, false, &o->fail_on_regression) < 0))
		return -1;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct fslab_report_opts o;
	const char *arg[6] = { NULL };
	void *const bind[] = { &o.out, &arg[0], &arg[1], &arg[2], &arg[3], &arg[4], &arg[5],
			       &o.compare_different, &o.claims };
	struct fslab_opts it;
	struct fslab_err e = FSLAB_ERR_INIT;

	/* git bisect run takes 1 and 2 for "bad": with --fail-on-regression
	 * every usage error is 125, "cannot tell" */
	int bad = FSLAB_EXIT_USAGE;
	char *save = NULL;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		bad = strncmp(argv[i], "--fail-on-regression", 20) ? bad : FSLAB_REPORT_EXIT_CANNOT_TELL;
	fslab_report_opts_init(&o);
	fslab_opts_begin(&it, &fslab_report_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status ? bad : 0;
	if (report_values(arg, &o) < 0)
		return bad;
	if (it.ind >= argc) {
		fslab_error("give at least one results directory");
		fslab_opts_help(&fslab_report_cmd, stderr);
		return bad;
	}
	/* each operand a side, its runs comma-separated (--claims: one side) */
	for (int i = it.ind; i < argc; i++)
		for (char *dir = strtok_r(argv[i], ",", &save); dir; dir = strtok_r(NULL, ",", &save)) {
			if (o.n_dirs == FSLAB_REPORT_MAX_DIRS)
				return fslab_fail(bad, "at most %d results directories", FSLAB_REPORT_MAX_DIRS);
			o.side[o.n_dirs] = o.claims ? 0 : (unsigned)(i - it.ind);
			o.dirs[o.n_dirs++] = dir;
		}
	if (o.out && (o.format == FSLAB_REPORT_FORMAT_TEXT || o.format == FSLAB_REPORT_FORMAT_JSON))
		return fslab_fail(bad, "--out is unused with --format %s (it goes to stdout)",
				  o.format == FSLAB_REPORT_FORMAT_TEXT ? "text" : "json");
	int ret = fslab_report(&o, &e);
	if (e.msg[0])
		fslab_error("%s", e.msg);
	return ret;
}
