/* fslab status: parse options, call fslab_status(). */
#include "commands.h"
#include "log.h"
#include "provision.h"
#include "state.h"
#include "termtext.h"

#include <getopt.h>
#include <stdio.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab status [--state FILE] [--json]\n\n"
	      "Shows the lab as it is now: the disk or image, and for each partition its device,\n"
	      "the filesystem probed now, the mount point, whether it is mounted, size and free\n"
	      "space.  Exit status 1, naming each problem, when the lab is damaged (a partition\n"
	      "missing, unmounted or of the wrong type, or setup unfinished).\n\n"
	      "  --state FILE   state file (default $FSLAB_STATE or " FSLAB_STATE_DEFAULT_PATH ")\n"
	      "  --json         print JSON instead of a table\n"
	      "  -h, --help     this help\n",
	      out);
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_status_opts o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.state_path = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			usage(stderr);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		char esc[FSLAB_ESCAPE_SIZE(256)];

		fslab_error("unexpected argument '%s'", fslab_escape_ctrl(argv[optind], esc, sizeof(esc)));
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (fslab_path_has_ctrl(o.state_path ? o.state_path : fslab_state_default_path())) {
		char esc[FSLAB_ESCAPE_SIZE(256)];

		fslab_error("refused: the state path '%s' holds control characters (shown escaped); "
			    "give one without them",
			    fslab_escape_ctrl(o.state_path ? o.state_path : fslab_state_default_path(),
					      esc, sizeof(esc)));
		return FSLAB_EXIT_USAGE;
	}
	return fslab_status(&o);
}
