/* fslab import iozone REPORT.txt --fs NAME --out DIR: an IOzone auto-mode
 * report becomes an fslab results directory (report/exchange.c). */
#include "commands.h"
#include "exchange.h"
#include "log.h"
#include "names.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab import iozone REPORT.txt --fs NAME --out DIR [--cache MODE] [--force]\n\n"
	      "Turns the output of `iozone -a` (its text report, with or without the -R\n"
	      "\"Excel output\" section) into DIR/NAME.csv plus DIR/manifest.json, so old IOzone\n"
	      "runs can be compared with fslab runs by `fslab report`.  Every cell becomes one\n"
	      "trial; a value IOzone printed as 0 (not measured) becomes a \"skipped\" row; a cell\n"
	      "absent from the report gets no row.  Several imports (with one cache mode) may\n"
	      "share one DIR; a manifest.json that fslab import did not write is refused.\n\n"
	      "  --fs NAME      filesystem name (1-31 of A-Z a-z 0-9 _ -), e.g. btrfs\n"
	      "  -o, --out DIR  results directory (created if missing)\n"
	      "  --cache MODE   cache mode the IOzone run used: warm (default, plain iozone -a),\n"
	      "                 fsync (-e -c), direct (-I), cold\n"
	      "  --force        replace an existing DIR/NAME.csv (never REPORT.txt itself, a\n"
	      "                 lab state file, or a lab's lock, lease or log)\n"
	      "  -h, --help     this help\n\n"
	      "Exit status: 0 done, 1 refused or failed, 2 bad usage or a malformed report.\n",
	      out);
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fs", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ "cache", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_import_opts o = { .cache = FSLAB_CACHE_WARM };
	char *cmdline[66];
	int c;

	/* getopt_long permutes argv: keep the command as typed for the manifest */
	cmdline[0] = "fslab";
	for (c = 0; c < argc && c < 64; c++)
		cmdline[c + 1] = argv[c];
	cmdline[c + 1] = NULL;
	o.argc = c + 1;
	o.argv = cmdline;

	opterr = 0; /* fslab_cli_bad_option says it, with a suggestion */
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			o.fs = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'c':
			o.cache = fslab_cache_mode_from_string(optarg);
			if (o.cache == FSLAB_CACHE_MODE_INVALID) {
				fslab_error("--cache '%s': use warm, fsync, direct or cold", optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case 'f':
			o.force = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			fslab_cli_bad_option("import", opts, argv);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind + 2 != argc || strcmp(argv[optind], "iozone") != 0) {
		fslab_error("expected: fslab import iozone REPORT.txt --fs NAME --out DIR");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (!o.fs || !o.out) {
		fslab_error("--fs NAME and --out DIR are required");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	o.report = argv[optind + 1];
	return fslab_import_iozone(&o);
}
