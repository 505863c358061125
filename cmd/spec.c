/* fslab spec --print: the built-in lab spec, to edit and pass back with
 * --spec (setup) or --sweep FILE (run).  fslab spec --check FILE validates
 * a spec without doing anything else. */
#include "commands.h"
#include "log.h"
#include "spec.h"
#include "termtext.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab spec --print\n"
	      "       fslab spec --check FILE\n\n"
	      "  --print       write the built-in spec (the 2023 layout: ext4, ext2, xfs, fat32,\n"
	      "                btrfs, 20G each) to stdout, ready to edit\n"
	      "  --check FILE  parse FILE and report the first problem, or print it back\n"
	      "  -h, --help    this help\n",
	      out);
}

int cmd_spec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "print", no_argument, NULL, 'p' },
		{ "check", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *check = NULL;
	int print = 0, c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			print = 1;
			break;
		case 'c':
			check = optarg;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			usage(stderr);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind < argc || print == !!check) {
		fslab_error("give exactly one of --print or --check FILE");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	struct fslab_spec spec;
	if (check) {
		char err[512];
		if (fslab_spec_load(check, &spec, err, sizeof(err)) < 0) {
			char esc[FSLAB_ESCAPE_SIZE(512)];

			/* it quotes the file's own text: names, options, the path */
			fslab_error("%s", fslab_escape_ctrl(err, esc, sizeof(esc)));
			return FSLAB_EXIT_USAGE;
		}
	} else {
		fslab_spec_default(&spec);
	}
	if (fslab_spec_write(stdout, &spec) < 0 || fflush(stdout) != 0) {
		fslab_error("cannot write to stdout");
		return FSLAB_EXIT_FAILURE;
	}
	return FSLAB_EXIT_OK;
}
