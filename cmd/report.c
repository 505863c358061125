/* fslab report: options into struct fslab_report_opts; report/ does the
 * work (fslab reproduce calls the same function). */
#include "commands.h"
#include "log.h"
#include "names.h"
#include "report.h"
#include "size.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab report RESULTS_DIR... [--out DIR] [--format all|text|html|json]\n"
	      "                    [--plots LIST] [--tests LIST] [--record SIZE]\n"
	      "       fslab report --claims WARM_DIR HONEST_DIR... [--out DIR]\n\n"
	      "Ranks the filesystems of one or more results directories (fslab run or fslab\n"
	      "import iozone) per test on the large-file plateau, with 95% intervals, ratios to\n"
	      "the best and Welch's t-test against noise (Holm-corrected across the tests);\n"
	      "starts with the verdict: banners, a test x filesystem matrix, one line per\n"
	      "workload family, and the change between runs.  Draws plots with gnuplot and\n"
	      "writes one self-contained report.html (and report.json).  See docs/report.md.\n\n"
	      "  -o, --out DIR     output directory (default: the first RESULTS_DIR/report);\n"
	      "                    built beside DIR and renamed into place when complete;\n"
	      "                    an existing DIR is replaced only when empty or an earlier\n"
	      "                    fslab report (its .fslab-report marker), else refused\n"
	      "  -f, --format F    all (default: text on stdout and DIR), text (stdout only,\n"
	      "                    writes nothing), html (DIR only), json (rankings,\n"
	      "                    intervals, verdicts and changes on stdout; writes nothing)\n"
	      "  -p, --plots LIST  all (default), none, or a comma list of surface, heatmap,\n"
	      "                    compare\n"
	      "  -t, --tests LIST  all (default) or a comma list of tests (write,read,...)\n"
	      "  -r, --record SIZE record size of the by-file-size charts (default: the\n"
	      "                    record size measured at the most file sizes)\n"
	      "      --claims      the first directory is a warm (2023-style) run, the others\n"
	      "                    honest runs (cold/direct, not warm): add the section that\n"
	      "                    checks the 2023 report's claims one by one\n"
	      "  -h, --help        this help\n\n"
	      "Exit status: 0 done, 1 failure (gnuplot, writing), 2 bad usage or bad input.\n",
	      out);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "plots", required_argument, NULL, 'p' },
		{ "tests", required_argument, NULL, 't' },
		{ "record", required_argument, NULL, 'r' },
		{ "claims", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_report_opts o;
	char bad[64];
	int c;

	fslab_report_opts_init(&o);
	opterr = 0; /* fslab_cli_bad_option says it, with a suggestion */
	while ((c = getopt_long(argc, argv, "o:f:p:t:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "all") == 0)
				o.format = FSLAB_REPORT_FORMAT_ALL;
			else if (strcmp(optarg, "text") == 0)
				o.format = FSLAB_REPORT_FORMAT_TEXT;
			else if (strcmp(optarg, "html") == 0)
				o.format = FSLAB_REPORT_FORMAT_HTML;
			else if (strcmp(optarg, "json") == 0)
				o.format = FSLAB_REPORT_FORMAT_JSON;
			else {
				fslab_error("--format '%s': use all, text, html or json", optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case 'p':
			if (fslab_report_plots_parse(optarg, &o.plots, bad, sizeof(bad)) < 0) {
				fslab_error("--plots: unknown plot kind '%s' (all, none, surface, heatmap, compare)",
					    bad);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case 't':
			if (fslab_tests_parse(optarg, &o.tests, bad, sizeof(bad)) < 0 || !o.tests) {
				fslab_error("--tests: unknown test '%s' (all, or a list of write, rewrite, read, reread, random_read, random_write, backward_read, record_rewrite, stride_read, fwrite, frewrite, fread, freread)",
					    bad);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case 'r': {
			uint64_t bytes;
			const char *why = NULL;
			if (fslab_size_parse(optarg, &bytes, &why) < 0 || bytes % 1024) {
				fslab_error("--record '%s': %s", optarg,
					    why ? why : "not a whole number of KiB");
				return FSLAB_EXIT_USAGE;
			}
			o.compare_record_kib = bytes / 1024;
			break;
		}
		case 'C':
			o.claims = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			fslab_cli_bad_option("report", opts, argv);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fslab_error("give at least one results directory");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (argc - optind > FSLAB_REPORT_MAX_DIRS) {
		fslab_error("at most %d results directories", FSLAB_REPORT_MAX_DIRS);
		return FSLAB_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++)
		o.dirs[o.n_dirs++] = argv[i];
	if (o.out && (o.format == FSLAB_REPORT_FORMAT_TEXT || o.format == FSLAB_REPORT_FORMAT_JSON)) {
		fslab_error("--out is unused with --format %s (it goes to stdout)",
			    o.format == FSLAB_REPORT_FORMAT_TEXT ? "text" : "json");
		return FSLAB_EXIT_USAGE;
	}
	return fslab_report(&o);
}
