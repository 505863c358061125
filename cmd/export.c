/* fslab export iozone RESULTS_DIR/FS.csv [--out FILE]: IOzone's text report
 * layout, so existing IOzone graph scripts keep working
 * (report/exchange.c). */
#include "commands.h"
#include "exchange.h"
#include "log.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab export iozone RESULTS_DIR/FS.csv [--out FILE [--force]] [--no-excel]\n\n"
	      "Writes one filesystem's results in the layout of `iozone -a -R` output: the text\n"
	      "table (file KiB, record KiB, 13 tests in IOzone's order) and the \"Excel output\"\n"
	      "section.  Each cell is the median of its ok trials; a cell with no ok trial is\n"
	      "written as 0, as IOzone writes cells it did not measure.  Values are KiB/s.\n\n"
	      "  -o, --out FILE  write FILE (atomically) instead of stdout; an existing FILE\n"
	      "                  is refused without --force\n"
	      "  --force         replace an existing FILE (never the CSV read, a lab state\n"
	      "                  file or a lab's lock, lease or log: those are refused even\n"
	      "                  with --force)\n"
	      "  --no-excel      omit the -R section\n"
	      "  -h, --help      this help\n\n"
	      "Exit status: 0 done, 1 failure, 2 bad usage or a malformed CSV.\n",
	      out);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "no-excel", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL;
	bool excel = true, force = false;
	int c;

	opterr = 0; /* fslab_cli_bad_option says it, with a suggestion */
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			excel = false;
			break;
		case 'F':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			fslab_cli_bad_option("export", opts, argv);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind + 2 != argc || strcmp(argv[optind], "iozone") != 0) {
		fslab_error("expected: fslab export iozone RESULTS_DIR/FS.csv [--out FILE]");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (force && !out) {
		fslab_error("--force needs --out FILE (stdout is never replaced)");
		return FSLAB_EXIT_USAGE;
	}
	return fslab_export_iozone(argv[optind + 1], out, excel, force);
}
